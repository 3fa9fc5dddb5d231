"""What became of one station's frames at its neighbour on an 802.11
chain, frame by frame, in ns-2.35 and in tcplab (docs/validation.md, "DSR
from three hops: why ns-2 times out").

For the RTSs that station `src` sends to `dst`, and for its broadcasts
(routing requests): decoded by `dst` or not, and when not, which other
stations' frames were on the air at the time and whether they began first.

    python validation/wifi_chain_ns2.py --routing dsr --hops 3 --seeds 1 --trace-dir DIR --mac-trace
    python validation/frame_fates.py ns2 DIR/chain-dsr-3h-s1.tr 3 2
    python validation/frame_fates.py tcplab --routing dsr --hops 3 --seed 1 3 2

ns-2's side reads its MAC trace (sends at the start of a frame, receptions
and drops at its end; sizes include the 24-byte PLCP header sent in
192 us). tcplab's runs the chain with an 802.11 capture at every station
(`--pcap NODE`: every frame a station sends, stamped at its start, and
every frame it decodes, stamped at its end) and reads the files itself.
RTS fates for ns-2 in more detail (answered, CTS dropped, refused) are in
aodv_trace.py's `ns2mac`.
"""

from __future__ import annotations

import argparse
import bisect
import struct
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PLCP = 192e-6
BROADCAST = -1
RTS, CTS, ACK, DATA = "RTS", "CTS", "ACK", "DATA"


def overlaps(sent: list, start: float, end: float, skip: int) -> list:
    """The frames of other stations than `skip` on the air during
    [start, end], as (began first, sender, kind)."""
    lo = bisect.bisect_left(sent, (start - 0.02,))
    out = []
    for s, e, node, kind, _ in sent[lo:]:
        if s >= end:
            break
        if node != skip and e > start:
            out.append((s < start, node, kind))
    return out


def describe(over: list) -> str:
    if not over:
        return "nothing else on the air"
    return ", ".join(f"{kind} of node {node} ({'began first' if first else 'began during it'})"
                     for first, node, kind in sorted(set(over), key=lambda x: (not x[0], x[1], x[2])))


def classify(sent: list, decoded: list, src: int, dst: int, kind: str, ra: int,
             answered=None) -> Counter:
    """Fates at `dst` of `src`'s frames of `kind` to `ra`. `decoded`: sorted
    end times of those frames as `dst` decoded them. `answered(end)`: whether
    `dst` replied (CTS) to a decoded one."""
    out: Counter = Counter()
    for s, e, node, k, r in sent:
        if node != src or k != kind or r != ra:
            continue
        i = bisect.bisect_left(decoded, e - 1e-7)
        if i < len(decoded) and decoded[i] <= e + 5e-6:
            if answered is None:
                out["decoded"] += 1
            else:
                out["decoded, answered" if answered(e) else "decoded, not answered"] += 1
            continue
        over = overlaps(sent, s, e, src)
        if any(n == dst for _, n, _ in over):
            out[f"not decoded: node {dst} transmitting"] += 1
        else:
            out["not decoded: " + describe(over)] += 1
    return out


def fates(sent: list, got: dict, src: int, dst: int, reply_within: float) -> dict:
    """`classify` for `src`'s RTSs to `dst` (answered when `dst`'s CTS to
    `src` begins within `reply_within` of the RTS's end: a SIFS and the
    propagation) and for its broadcasts."""
    mine = got.get(dst, {})
    cts = sorted(s for s, _, n, k, r in sent if n == dst and k == CTS and r == src)

    def answered(end: float) -> bool:
        j = bisect.bisect_left(cts, end)
        return j < len(cts) and cts[j] <= end + reply_within

    return {
        "RTS": classify(sent, sorted(mine.get((RTS, src, dst), [])), src, dst, RTS, dst, answered),
        "broadcast": classify(sent, sorted(mine.get((DATA, src, BROADCAST), [])), src, dst, DATA, BROADCAST),
    }


# ---- ns-2.35 ---------------------------------------------------------

NS2_KINDS = {"RTS": RTS, "CTS": CTS, "ACK": ACK}


def ns2_air(kind: str, size: int, ra: int) -> float:
    if kind in (RTS, CTS, ACK) or ra == BROADCAST:
        return PLCP + (size - 24) * 8 / 1e6
    return PLCP + (size - 24) * 8 / 2e6


def ns2_frames(path: str):
    """Sent frames and, per station, the (kind, sender, receiver) -> end
    times of the frames it received."""
    sent, got = [], {}
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) < 11 or p[3] != "MAC" or p[0] not in ("s", "r"):
            continue
        t, node = float(p[1]), int(p[2].strip("_"))
        kind = NS2_KINDS.get(p[6], DATA)
        ra = BROADCAST if p[9] == "ffffffff" else int(p[9], 16)
        ta = int(p[10].rstrip("]"), 16)
        if p[0] == "s":
            if kind in (CTS, ACK):
                ta = node
            sent.append((t, t + ns2_air(kind, int(p[7]), ra), node, kind, ra))
        else:
            got.setdefault(node, {}).setdefault((kind, ta, ra), []).append(t)
    sent.sort()
    return sent, got


def ns2(path: str, src: int, dst: int) -> dict:
    sent, got = ns2_frames(path)
    return fates(sent, got, src, dst, reply_within=15e-6)


# ---- tcplab ----------------------------------------------------------

def read_pcap(path: Path):
    """(time, original length, kind, receiver, transmitter) per record of
    a tcplab 802.11 capture (link type 105, nanosecond stamps). Station
    addresses are 02:00:00 plus node + 1."""
    data = path.read_bytes()
    magic = struct.unpack_from("<I", data)[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from("<IIII", data, off)
        frame = data[off + 16: off + 16 + incl]
        off += 16 + incl
        fc = frame[0]
        ftype, sub = (fc >> 2) & 3, fc >> 4
        kind = {11: RTS, 12: CTS, 13: ACK}.get(sub, "?") if ftype == 1 else DATA

        def node(a: bytes) -> int:
            return BROADCAST if a == b"\xff" * 6 else int.from_bytes(a[3:], "big") - 1
        ra = node(frame[4:10])
        ta = node(frame[10:16]) if kind in (RTS, DATA) else None
        out.append((sec + frac * scale, orig, kind, ra, ta))
    return out


def tcplab_frames(captures: dict, data_bps: float = 2e6, basic_bps: float = 1e6, data_header: int = 28):
    """Sent frames and per-station received frames from the captures of
    every station of a chain (node -> records). A control frame without a
    transmitter address is the capturing station's own when it is
    addressed to a neighbour of it (on a chain no one else within decoding
    range answers them). A captured data frame is its 24-byte MAC header,
    the 8-byte LLC/SNAP header and the IP packet; on the air it is the IP
    packet and `[wireless.mac] data_header` bytes (28; the ns2 profile's
    34)."""
    sent, got = [], {}
    for n, recs in captures.items():
        for t, orig, kind, ra, ta in recs:
            own = ta == n if ta is not None else abs(ra - n) == 1
            if own:
                if kind in (RTS, CTS, ACK):
                    air = PLCP + (orig + 4) * 8 / basic_bps
                else:
                    air = PLCP + (orig - 32 + data_header) * 8 / (basic_bps if ra == BROADCAST else data_bps)
                sent.append((t, t + air, n, kind, ra))
            elif ta is not None:
                got.setdefault(n, {}).setdefault((kind, ta, ra), []).append(t)
    sent.sort()
    return sent, got


def tcplab(captures: dict, src: int, dst: int, ns2_profile: bool = False) -> dict:
    sent, got = tcplab_frames(captures, data_header=34 if ns2_profile else 28)
    return fates(sent, got, src, dst, reply_within=20e-6)


def run_tcplab_captured(hops: int, seed: int, routing: str, duration: float, ns2_profile: bool = False) -> dict:
    import tcplab as tl
    from validation.wifi_chain_ns2 import scenario

    sc = scenario(hops, seed, duration, routing, ns2_profile)
    names = [f"n{i}" for i in range(hops + 1)]
    with tempfile.TemporaryDirectory() as d:
        tl.run(sc, pcap=names).write(Path(d) / "out")
        return {i: read_pcap(Path(d) / "out" / f"node-{name}.pcap") for i, name in enumerate(names)}


def show(res: dict, src: int, dst: int) -> None:
    for what, c in res.items():
        to = f"to node {dst}" if what == "RTS" else "(broadcast)"
        print(f"{what} frames of node {src} {to}, at node {dst}: {sum(c.values())}")
        for k, v in c.most_common():
            print(f"  {v:6d}  {k}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ns2", help="ns-2.35's MAC trace")
    a.add_argument("trace")
    b = sub.add_parser("tcplab", help="run tcplab's chain with captures at every station")
    b.add_argument("--routing", default="dsr", choices=["static", "aodv", "dsdv", "dsr"])
    b.add_argument("--hops", type=int, default=3)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--duration", type=float, default=100.0)
    b.add_argument("--ns2-profile", action="store_true", help="tcplab's [wireless] profile = \"ns2\"")
    for p in (a, b):
        p.add_argument("src", type=int)
        p.add_argument("dst", type=int)
    o = ap.parse_args()
    if o.cmd == "ns2":
        show(ns2(o.trace, o.src, o.dst), o.src, o.dst)
    else:
        caps = run_tcplab_captured(o.hops, o.seed, o.routing, o.duration, o.ns2_profile)
        show(tcplab(caps, o.src, o.dst, o.ns2_profile), o.src, o.dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
