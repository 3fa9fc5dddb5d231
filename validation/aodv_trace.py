"""AODV's routing packets on the 802.11 chains of wifi_chain_ns2.py, by type
and by cause, from ns-2.35's router trace and from tcplab's AODV event log
(docs/validation.md, "2..32-hop chains with AODV and DSDV").

    python validation/wifi_chain_ns2.py --routing aodv --hops 16,30 --seeds 1 --trace-dir DIR
    python validation/aodv_trace.py ns2 DIR/chain-aodv-16h-s1.tr 16

tcplab's event log is a debugging patch, not part of the build:

    git apply validation/aodv_event_log.patch
    cargo build --release -p tcplab-core --example run_scenario
    python validation/aodv_trace.py toml 16 1 > chain16.toml
    TCPLAB_AODV_LOG=1 target/release/examples/run_scenario chain16.toml 2> t16.log
    python validation/aodv_trace.py tcplab t16.log 16
    git apply -R validation/aodv_event_log.patch

The flow runs from node 0 to node HOPS, so TCP data go to HOPS and ACKs to
0. A link failure's packet has travelled `n` hops (data at node n) or
`HOPS - n` (an ACK at node n); ns-2.35 (AODV_LOCAL_REPAIR) repairs locally
when that exceeds the hops left, and brings the route down (route error to
the precursors, a new discovery at the source) otherwise.
"""
from __future__ import annotations

import bisect
import re
import sys
from collections import Counter

SEND_KINDS = ("RREQ_ORIG", "RREQ_FWD", "RREP_DST", "RREP_INT", "RREP_FWD", "RERR")


def ns2(path: str, hops: int) -> None:
    """Routing packets sent (`s` and `f` at RTR) by type and by whom the
    request or reply serves: the TCP sender (0), the receiver (HOPS) or an
    intermediate node (a local repair); route-down link failures (the MAC
    callback's drops, CBK, grouped by time and node) by packet type."""
    c: Counter = Counter()
    cbk = set()
    repair = []
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) < 7 or p[3] != "RTR":
            continue
        ev, t, node = p[0], float(p[1]), int(p[2].strip("_"))
        if ev == "D" and p[4] == "CBK":
            cbk.add((p[1], node, p[6]))
        if p[6] != "AODV" or ev not in ("s", "f"):
            continue
        kind = p[-1]
        if kind == "(REQUEST)":
            m = re.search(r"\[0x2 \d+ \d+ \[(\d+) \d+\] \[(\d+) \d+\]\]", line)
            dst, src = int(m.group(1)), int(m.group(2))
            who = "sender" if src == 0 else "receiver" if src == hops else "local repair"
            c[f"RREQ {who}"] += 1
            if src == node and ev == "s":
                c[f"RREQ originated {who}"] += 1
                if who == "local repair":
                    repair.append((t, node, dst))
        elif kind == "(REPLY)":
            to = int(re.search(r"------- \[\d+:\d+ (-?\d+):\d+", line).group(1))
            who = "sender" if to == 0 else "receiver" if to == hops else "local repair"
            c[f"RREP {who}"] += 1
            m = re.search(r"\[0x4 \d+ \[(\d+) \d+\]", line)
            if ev == "s" and int(m.group(1)) != node:
                c["RREP from an intermediate node"] += 1
        else:
            c["RERR"] += 1
    total = sum(v for k, v in c.items() if k.split()[0] in ("RREQ", "RREP", "RERR") and "originated" not in k
                and "intermediate" not in k)
    print(f"routing packets {total}")
    for k in sorted(c):
        print(f"  {k}: {c[k]}")
    print(f"route-down link failures {len(cbk)}: {dict(Counter(k[2] for k in cbk))}")
    # A local repair episode: a repair request more than 10 s after that
    # node's last one for the same destination.
    last: dict = {}
    episodes = 0
    for t, node, dst in repair:
        if (node, dst) not in last or t - last[(node, dst)] > 10.0:
            episodes += 1
        last[(node, dst)] = t
    print(f"local repair episodes {episodes} ({len(repair)} requests)")


def tcplab(path: str, hops: int) -> None:
    """The event log of aodv_event_log.patch: messages by type, link
    failures by packet and side, and every message sent attributed to the
    last link failure before it (side as ns-2's local-repair test)."""
    c: Counter = Counter()
    breaks = []
    events = []
    for line in open(path):
        p = line.split()
        t, node, ev = float(p[0]), int(p[1]), p[2]
        c[ev] += 1
        if ev == "MACFAIL":
            sport = int(re.search(r"sport: (\d+)", line).group(1))
            kind = "ack" if sport == 5001 else "data"
            travelled = hops - node if kind == "ack" else node
            breaks.append((t, kind, travelled > hops - travelled))
        elif ev == "RERR_RECV" and "onward=[]" not in line:
            c["RERR passed on"] += 1
        if ev in SEND_KINDS:
            events.append((t, ev))
    print(f"routing packets {sum(c[k] for k in SEND_KINDS)}")
    for k in sorted(c):
        print(f"  {k}: {c[k]}")
    far = sum(b[2] for b in breaks)
    print(f"link failures {len(breaks)}: data {sum(b[1] == 'data' for b in breaks)}, "
          f"ack {sum(b[1] == 'ack' for b in breaks)}; nearer the packet's destination {far}")
    times = [b[0] for b in breaks]
    cost: dict = {}
    for t, ev in events:
        i = bisect.bisect_right(times, t) - 1
        side = "before the first" if i < 0 else "nearer destination" if breaks[i][2] else "nearer source"
        cost.setdefault(side, Counter())[ev] += 1
    for side, v in cost.items():
        n = far if side == "nearer destination" else len(breaks) - far if side == "nearer source" else 0
        per = f", {sum(v.values()) / n:.0f} per failure" if n else ""
        print(f"  after failures {side}: {sum(v.values())}{per} {dict(v)}")


def toml(hops: int, seed: int) -> None:
    """wifi_chain_ns2.py's AODV chain as a scenario file (100 s measured)."""
    print(f'[sim]\nduration = "101s"\nseed = {seed}\n[wireless]\npropagation = "two_ray_ground"\n'
          'data_rate = "2Mbps"\nbasic_rate = "1Mbps"\nrts_threshold = 0\nrouting = "aodv"\n'
          'ifq = { kind = "priqueue", limit = 50 }')
    for i in range(hops + 1):
        print(f'[[node]]\nname = "n{i}"\nposition = [{250.0 * i}, 0.0]')
    print(f'[[flow]]\nname = "chain"\nfrom = "n0"\nto = "n{hops}"\ntransport = "newreno"\npacket_size = 1460\n'
          'window = 32\napp = { kind = "bulk", start = 1.0 }')


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("ns2", "tcplab", "toml"):
        sys.exit(__doc__)
    what, a, b = sys.argv[1:]
    if what == "toml":
        toml(int(a), int(b))
    else:
        {"ns2": ns2, "tcplab": tcplab}[what](a, int(b))
