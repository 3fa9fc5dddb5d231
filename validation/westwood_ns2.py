"""Westwood+ beside ns-2.35's Linux agent (Agent/TCP/Linux with
`select_ca westwood`, the 2.6.22 kernel's tcp_westwood.c run through
ns-2's shim) and Reno beside it (`select_ca reno`).

One bulk flow over 100 Mbit/s, 1 ms then 10 Mbit/s, 50 ms with a DropTail
queue of 20 or 200 packets and uniform loss of the data (0, 0.1 %, 1 %)
on the slow link, 1448-byte segments, SACK and timestamps on both sides.
tcplab runs `transport = "westwood"` and `"newreno"` in the linux profile
(SACK: RACK with PRR); each simulator draws its own losses, so the means
over seeds are compared, with the standard error of their difference.

    python validation/westwood_ns2.py [--seeds 3] [--duration 60]

prints goodput (Mbit/s) per case. The two sides run different recoveries
(ns-2's agent: the 2.6.22 kernel's rate halving and tcp_moderate_cwnd;
tcplab: today's kernel's PRR and RACK) and classify ACKs differently for
the bandwidth sum (docs/validation.md, "Westwood+ beside ns-2.35").
`compare` is what tests/test_ns2_westwood.py uses.
"""
from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation import ns2  # noqa: E402

TCL = """\
global defaultRNG
$defaultRNG seed {seed}
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 100Mb 1ms DropTail
$ns duplex-link $n1 $n2 10Mb 50ms DropTail
$ns queue-limit $n1 $n2 {limit}
if {{{loss} > 0}} {{
    set em [new ErrorModel]
    $em set rate_ {loss}
    $em unit pkt
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $n1 $n2
}}
set tcp [new Agent/TCP/Linux]
$tcp set window_ 100000
$tcp set packetSize_ 1448
$tcp set timestamps_ true
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink/Sack1]
$sink set ts_echo_rfc1323_ true
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
$ns at 0 "$tcp select_ca {cc}"
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"
$ns at {duration} {{puts "acked [$tcp set ack_]"; exit 0}}
$ns run
"""

NS2_CC = {"westwood": "westwood", "newreno": "reno"}


def scenario(transport: str, *, limit: int, loss: float, seed: int, duration: float) -> dict:
    # ns-2's TCPSink advertises its window as it is: the same receiver
    # here (the linux profile's own is Linux's, whose window follows its
    # receive buffer: `receive_window`).
    return {"sim": {"duration": f"{duration}s", "tcp_profile": "linux", "seed": seed},
            "node": [{"name": "a"}, {"name": "r"}, {"name": "b"}],
            "link": [{"between": ["a", "r"], "rate": "100Mbps", "delay": "1ms"},
                     {"between": ["r", "b"], "rate": "10Mbps", "delay": "50ms",
                      "queue": {"kind": "droptail", "limit": limit},
                      "error": {"kind": "uniform", "rate": loss, "direction": "forward"}}],
            "flow": [{"from": "a", "to": "b", "transport": transport, "packet_size": 1448,
                      "app": {"kind": "bulk"},
                      "tcp": {"window_bytes": 8_000_000, "sack": True, "receive_window": "fixed"}}]}


def ns2_goodput(transport: str, *, limit: int, loss: float, seed: int, duration: float) -> float:
    """Bit/s of payload acknowledged by the end (ns-2's ack_ counts packets
    from 0)."""
    tcl = TCL.format(seed=seed, limit=limit, loss=loss, cc=NS2_CC[transport], duration=duration)
    with tempfile.NamedTemporaryFile("w", suffix=".tcl", delete=False) as f:
        f.write(tcl)
    try:
        out = subprocess.run(["ns", f.name], capture_output=True, text=True, timeout=600).stdout
    finally:
        Path(f.name).unlink()
    acked = next(int(line.split()[1]) for line in out.splitlines() if line.startswith("acked"))
    return (acked + 1) * 1448 * 8 / duration


def mean_se(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    return m, (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0)


def compare(transport: str, *, limit: int, loss: float, seeds: int, duration: float) -> dict:
    ours = [tcplab.run(scenario(transport, limit=limit, loss=loss, seed=s, duration=duration)).flows.goodput_bps[0]
            for s in range(1, seeds + 1)]
    theirs = [ns2_goodput(transport, limit=limit, loss=loss, seed=s, duration=duration)
              for s in range(1, seeds + 1)]
    (a, sa), (b, sb) = mean_se(ours), mean_se(theirs)
    return {"transport": transport, "limit": limit, "loss": loss, "tcplab": a, "tcplab_se": sa,
            "ns2": b, "ns2_se": sb, "diff_pct": 100 * (a - b) / b, "se_pct": 100 * math.hypot(sa, sb) / b}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=60.0)
    a = ap.parse_args()
    if not ns2.available():
        print("ns-2 (ns) is not installed: scripts/install-peers.sh", file=sys.stderr)
        return 2
    print("| transport | queue | loss | tcplab Mbit/s | ns-2.35 Mbit/s | difference |")
    print("|---|---|---|---|---|---|")
    for limit in (20, 200):
        for loss in (0.0, 0.001, 0.01):
            for t in ("newreno", "westwood"):
                r = compare(t, limit=limit, loss=loss, seeds=a.seeds, duration=a.duration)
                print(f"| {t} | {limit} | {loss:g} | {r['tcplab'] / 1e6:.2f} +- {r['tcplab_se'] / 1e6:.2f} "
                      f"| {r['ns2'] / 1e6:.2f} +- {r['ns2_se'] / 1e6:.2f} "
                      f"| {r['diff_pct']:+.0f} % +- {r['se_pct']:.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
