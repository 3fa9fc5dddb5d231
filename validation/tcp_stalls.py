"""Where the time goes for TCP on an 802.11 chain, tcplab against ns-2.35:
the sender's stalls and what ended them, its send rate between stalls, and
its retransmission timer (docs/validation.md, "DSR from five hops: where
the goodput goes").

    python validation/tcp_stalls.py --routing dsr --hops 6 --seeds 10

The same chains as validation/wifi_chain_ns2.py (`[wireless] profile =
"ns2"` on tcplab's side). From the sender's sends (ns-2's agent trace,
tcplab's trace.csv): a stall is a gap of more than `--gap` seconds between
two sends; it ended on an ACK if one arrived in it, else on the
retransmission timer. From the timer's state (ns-2: its traced `srtt_`,
`rttvar_` and `backoff_`, the timeout computed as rtt_timeout() does;
tcplab: series.csv's `rto_s` every 10 ms): its time-weighted mean, the
share of the time it is 2 s or more, and the jumps of the smoothed RTT by
0.15 s or more (an RTT sample of about 1.5 s or more against a smoothed RTT
of a few hundred ms). And how long the receiver held its ACKs: from a
segment's arrival to its ACK's first transmission (ns-2: the sink's agent
trace line and the ACK's first MAC send; tcplab: a capture of the
receiver's 802.11 frames, each segment paired with the first ACK sent
that carries the number it calls for). No assertion: a measurement for people.
"""
from __future__ import annotations

import argparse
import statistics
import struct
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation.ns2 import available, run_tcl  # noqa: E402
from validation.wifi_chain_ns2 import SEGMENT, scenario, tcl  # noqa: E402

# ns-2.35's TCP defaults the chains run with (Agent/TCP minrto_, maxrto_).
NS2_MIN_RTO, NS2_MAX_RTO, TICK = 0.2, 60.0, 0.01
SRTT_JUMP = 0.15


def ns2_run(hops: int, seed: int, duration: float, routing: str) -> dict:
    """Sends, ACK arrivals and the timer's timeline of ns-2.35's sender."""
    with tempfile.TemporaryDirectory() as d:
        trace, tv = Path(d) / "chain.tr", Path(d) / "tcp.tr"
        text = tcl(hops, seed, duration, routing, str(trace), mac_trace=True).replace("-agentTrace OFF",
                                                                                     "-agentTrace ON")
        text = text.replace("$ns connect $tcp $sink", f"$ns connect $tcp $sink\nset tf [open {tv} w]\n$tcp attach $tf\n"
                            + "".join(f"$tcp tracevar {v}\n" for v in ("srtt_", "rttvar_", "backoff_")))
        text = text.replace("close $tr", "global tf\n  close $tr\n  close $tf")
        run_tcl(text)
        sends, acks, made, first_tx = [], [], {}, {}
        sink = f"_{hops}_"
        for line in trace.open():
            p = line.split()
            if len(p) < 7:
                continue
            if p[3] == "AGT" and p[2] == "_0_":
                if p[0] == "s" and p[6] == "tcp":
                    sends.append(float(p[1]))
                elif p[0] == "r" and p[6] == "ack":
                    acks.append(float(p[1]))
            elif p[2] == sink and p[0] == "s" and p[6] == "ack":
                if p[3] == "AGT":
                    made[p[5]] = float(p[1])
                elif p[3] == "MAC":
                    first_tx.setdefault(p[5], float(p[1]))
        srtt, rttvar, backoff, timeline, srtts = None, 0.0, 1, [], []
        for line in tv.open():
            p = line.split()
            t, name, v = float(p[0]), p[5], float(p[6])
            if t == 0.0:
                continue
            if name == "srtt_":
                srtt = v
                if v > 0:  # (0: rtt_backoff() forgot it; the next sample starts afresh)
                    srtts.append((t, v))
            elif name == "rttvar_":
                rttvar = v
            elif name == "backoff_":
                backoff = int(v)
            if srtt is not None:
                # rtt_update()'s t_rtxcur_ from the integers the traced
                # values print (t_srtt_ in eighths of a tick, t_rttvar_ in
                # quarters, to 1 ms: below half of either), then
                # rtt_timeout() with rfc2988_: the minimum before the
                # backoff.
                srtt8, rttvar4 = round(srtt / TICK * 8), round(rttvar / TICK * 4)
                base = ((rttvar4 << 3) + srtt8 >> 3) * TICK
                timeline.append((t, min(max(base, NS2_MIN_RTO) * backoff, NS2_MAX_RTO)))
    holds = [first_tx[u] - t for u, t in made.items() if u in first_tx]
    return {"sends": sends, "acks": acks, "rto": timeline, "srtt": srtts, "holds": holds}


def receiver_holds(capture: bytes, node: int) -> list[float]:
    """From a node capture (nanosecond pcap of 802.11 frames, as tcplab
    writes them): the time from each new TCP segment the node received to
    the first transmission of the ACK it answered with. The receiver is
    replayed to know which ACK number each segment calls for (the next
    byte expected: a duplicate ACK for a segment out of order); ACKs with
    one number answer their segments in order, and a segment whose ACK
    never went out (dropped at the receiver) is left out, except within a
    run of duplicate ACKs, where a lost one shifts the pairing of the
    rest of the run by one."""
    me = bytes([10, 0, 0, node + 1])  # output/pcap.rs node_addr, mac_addr
    mac = bytes([2, 0, 0]) + (node + 1).to_bytes(3, "big")
    off, seen_in, seen_out = 24, set(), set()
    rcv_nxt, above, waiting, holds = None, set(), {}, []
    while off < len(capture):
        sec, nsec, incl, orig = struct.unpack("<IIII", capture[off:off + 16])
        frame = capture[off + 16:off + 16 + incl]
        off += 16 + incl
        # Data frames only: 24-byte header (receiver, transmitter), 8-byte
        # LLC/SNAP, IPv4, TCP.
        if frame[0] != 0x08 or len(frame) < 72 or frame[32 + 9] != 6:
            continue
        ip, t = frame[32:], sec + nsec * 1e-9
        # Sequence control, IP ID, TCP seq and ack: a MAC retry is the same frame.
        key = (frame[22:24], ip[4:6], ip[24:32])
        seq, ack = struct.unpack(">II", ip[24:32])
        if frame[4:10] == mac and ip[16:20] == me and key not in seen_in:
            seen_in.add(key)
            if ip[33] & 0x02:  # SYN: captures number it as a real one (data from seq + 1)
                rcv_nxt = seq + 1
            elif rcv_nxt is not None and orig > 500:  # a full segment (the captured length is headers only)
                above.add(seq)
                while rcv_nxt in above:
                    above.discard(rcv_nxt)
                    rcv_nxt += SEGMENT
            if rcv_nxt is not None:
                waiting.setdefault(rcv_nxt, []).append(t)
        elif frame[10:16] == mac and ip[12:16] == me and key not in seen_out:
            seen_out.add(key)
            if waiting.get(ack):
                holds.append(t - waiting[ack].pop(0))
    return holds


def tcplab_run(hops: int, seed: int, duration: float, routing: str) -> dict:
    sc = scenario(hops, seed, duration, routing, ns2_profile=True)
    sc["output"] = {"trace": True, "sample_interval": "10ms"}
    sc["pcap"] = [{"node": f"n{hops}", "name": "receiver"}]
    r = tcplab.run(sc)
    tr, se = r.columns("trace"), r.columns("series")
    sends = [t for t, k in zip(tr["time_s"], tr["kind"]) if k in ("send", "retransmit")]
    acks = [t for t, k in zip(tr["time_s"], tr["kind"]) if k in ("ack", "dupack")]
    rto = [(t, v) for t, v, s in zip(se["time_s"], se["rto_s"], se["srtt_s"]) if s]
    srtt, last = [], None
    for t, s in zip(se["time_s"], se["srtt_s"]):
        if s and s != last:
            srtt.append((t, s))
            last = s
    return {"sends": sends, "acks": acks, "rto": rto, "srtt": srtt,
            "holds": receiver_holds(r.pcaps["receiver"], hops)}


def analyse(run: dict, gap: float, end: float) -> dict:
    sends, acks = run["sends"], run["acks"]
    # A send at the instant an ACK arrives was clocked out by it; any other
    # send after a stall is the timer's.
    at_ack = {round(t, 9) for t in acks}
    stalls = []
    for a, b in zip(sends, sends[1:]):
        if b - a > gap:
            stalls.append((b - a, "ack" if round(b, 9) in at_ack else "timer"))
    active = (sends[-1] - sends[0]) - sum(d for d, _ in stalls) if sends else 0.0
    tl = run["rto"]
    weighted = long_time = total = 0.0
    for (a, v), (b, _) in zip(tl, tl[1:] + [(end, 0.0)]):
        weighted += v * (b - a)
        total += b - a
        long_time += (b - a) if v >= 2.0 else 0.0
    jumps = sum(1 for (_, x), (_, y) in zip(run["srtt"], run["srtt"][1:]) if y - x >= SRTT_JUMP)
    holds = run["holds"]
    return {"stalls": stalls, "sends": len(sends), "active_s": active, "acks_held": len(holds),
            "held_long": sum(1 for h in holds if h >= 1.5), "held_s": sum(h for h in holds if h > 0.3),
            "rto_mean": weighted / total if total else 0.0, "rto_long_share": long_time / total if total else 0.0,
            "srtt_jumps": jumps}


def report(name: str, runs: list[dict]) -> None:
    n = len(runs)
    st = [s for r in runs for s in r["stalls"]]
    by = Counter()
    for d, how in st:
        by[(min(int(d / 0.4) * 0.4, 2.8), how)] += 1
    mean = lambda k: statistics.mean(r[k] for r in runs)  # noqa: E731
    print(f"{name}: {len(st) / n:.1f} stalls per run, {sum(d for d, _ in st) / n:.1f} s; "
          f"ended by an ACK {sum(1 for _, h in st if h == 'ack') / n:.1f} "
          f"({sum(d for d, h in st if h == 'ack') / n:.1f} s), by the timer {sum(1 for _, h in st if h == 'timer') / n:.1f} "
          f"({sum(d for d, h in st if h == 'timer') / n:.1f} s)")
    print(f"  sends {mean('sends'):.0f} per run, {mean('active_s'):.1f} s sending, "
          f"{sum(r['sends'] for r in runs) / sum(r['active_s'] for r in runs):.1f} sends per second sending")
    print(f"  timer: time-weighted mean {mean('rto_mean'):.3f} s, {100 * mean('rto_long_share'):.1f} % of the time >= 2 s; "
          f"smoothed-RTT jumps >= {SRTT_JUMP} s: {mean('srtt_jumps'):.1f} per run")
    print(f"  receiver: {mean('acks_held'):.0f} ACKs per run, {mean('held_long'):.1f} held 1.5 s or more, "
          f"{mean('held_s'):.1f} s held in all (holds over 0.3 s)")
    print("  stalls per run by length (s), ended by ACK / timer: " + ", ".join(
        f"{b:.1f}-: {by[(b, 'ack')] / n:.1f} / {by[(b, 'timer')] / n:.1f}" for b in sorted({k[0] for k in by})))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routing", choices=["static", "aodv", "dsdv", "dsr"], default="dsr")
    ap.add_argument("--hops", type=int, default=6)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--gap", type=float, default=0.3, help="least gap between sends counted as a stall (s)")
    a = ap.parse_args()
    if a.hops < 1 or a.seeds < 1 or a.duration <= 0 or a.gap <= 0:
        ap.error("--hops and --seeds must be >= 1, --duration and --gap > 0")
    if not available():
        print("ns (ns-2.35) is not installed", file=sys.stderr)
        return 1
    end = a.duration + 1.0
    seeds = range(1, a.seeds + 1)
    report("ns-2.35", [analyse(ns2_run(a.hops, s, a.duration, a.routing), a.gap, end) for s in seeds])
    report("tcplab", [analyse(tcplab_run(a.hops, s, a.duration, a.routing), a.gap, end) for s in seeds])
    return 0


if __name__ == "__main__":
    sys.exit(main())
