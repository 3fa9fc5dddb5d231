"""TCP over 1..7-hop 802.11 chains in tcplab and in ns-2.35's wireless model,
side by side (docs/validation.md, "802.11 chains").

    python validation/wifi_chain_ns2.py [--seeds 3] [--duration 100]

The chain: nodes 250 m apart on a line, two-ray ground, ns-2.35's WaveLAN
radio (250 m receive, 550 m carrier-sense range), 2 Mbit/s data, 1 Mbit/s
basic rate, RTS/CTS on every data frame, interface queue 50, one NewReno
flow from the first node to the last with 1460-byte segments and a 32-packet
window, started at 1 s and measured for `duration` seconds.

ns-2.35 has no static routing for wireless nodes, so its chains run AODV
(routes are found once at the start; a MAC retry-limit drop breaks the route
and starts a repair). tcplab runs static shortest-hop routing by default;
`--routing aodv|dsdv|dsr` runs that protocol on both sides (ns-2's DSR with
its CMUPriQueue interface queue, as ns-2 requires).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation.ns2 import available, measure  # noqa: E402

SEGMENT = 1460


def scenario(hops: int, seed: int, duration: float, routing: str = "static") -> dict:
    return {
        "sim": {"duration": f"{duration + 1}s", "seed": seed},
        "wireless": {
            "propagation": "two_ray_ground", "data_rate": "2Mbps", "basic_rate": "1Mbps",
            "rts_threshold": 0, "routing": routing, "ifq": {"kind": "priqueue", "limit": 50},
        },
        "node": [{"name": f"n{i}", "position": [250.0 * i, 0.0]} for i in range(hops + 1)],
        "flow": [{
            "name": "chain", "from": "n0", "to": f"n{hops}", "transport": "newreno",
            "packet_size": SEGMENT, "window": 32, "app": {"kind": "bulk", "start": 1.0},
        }],
    }


def tcl(hops: int, seed: int, duration: float, routing: str = "static") -> str:
    nn = hops + 1
    proto = "AODV" if routing == "static" else routing.upper()
    ifq = "CMUPriQueue" if proto == "DSR" else "Queue/DropTail/PriQueue"
    return f"""
set ns [new Simulator]
ns-random 0
$defaultRNG seed {seed + 1}
set tr [open /dev/null w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid {250 * nn + 100} 100
create-god {nn}
set chan [new Channel/WirelessChannel]
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
$ns node-config -adhocRouting {proto} -llType LL -macType Mac/802_11 \\
  -ifqType {ifq} -ifqLen 50 -antType Antenna/OmniAntenna \\
  -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \\
  -topoInstance $topo -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
for {{set i 0}} {{$i < {nn}}} {{incr i}} {{
  set n($i) [$ns node]
  $n($i) random-motion 0
  $n($i) set X_ [expr 10.0 + $i * 250.0]
  $n($i) set Y_ 10.0
  $n($i) set Z_ 0.0
}}
set tcp [new Agent/TCP/Newreno]
$tcp set packetSize_ {SEGMENT}
$tcp set window_ 32
set sink [new Agent/TCPSink]
$ns attach-agent $n(0) $tcp
$ns attach-agent $n({hops}) $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 1.0 "$ftp start"
proc finish {{}} {{
  global tcp
  puts "flow [$tcp set ack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_]"
  exit 0
}}
$ns at {duration + 1} "finish"
$ns run
"""


def run_ns2(hops: int, seed: int, duration: float, routing: str = "static") -> dict:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "chain.tcl"
        path.write_text(tcl(hops, seed, duration, routing))
        m = measure(["ns", str(path)], cwd=d)
    if m["returncode"] != 0:
        raise RuntimeError(f"ns failed: {m['stderr'].strip()[-500:]}")
    line = next(ln for ln in m["stdout"].splitlines() if ln.startswith("flow "))
    ack, rtx, timeouts = (int(x) for x in line.split()[1:4])
    # ack_ is the last packet acknowledged; packet 0 is the SYN (syn_ on).
    return {"goodput_bps": max(ack, 0) * SEGMENT * 8 / duration, "retransmits": rtx, "timeouts": timeouts,
            "cpu_s": m["cpu_s"]}


def run_tcplab(hops: int, seed: int, duration: float, routing: str = "static") -> dict:
    r = tcplab.run(scenario(hops, seed, duration, routing))
    f = r.columns("flows")
    n = r.columns("nodes")
    return {"goodput_bps": f["goodput_bps"][0], "retransmits": f["retransmits"][0], "timeouts": f["timeouts"][0],
            "mac_drops": sum(n["drops_retry_limit"]), "wall_s": r.summary["wall_s"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--hops", type=int, default=7)
    ap.add_argument("--routing", choices=["static", "aodv", "dsdv", "dsr"], default="static")
    a = ap.parse_args()
    if not available():
        print("ns (ns-2.35) is not installed", file=sys.stderr)
        return 1
    print("| hops | tcplab goodput (kbit/s) | ns-2 goodput (kbit/s) | tcplab rtx | ns-2 rtx "
          "| tcplab timeouts | ns-2 timeouts | tcplab MAC drops |")
    print("|---|---|---|---|---|---|---|---|")
    for hops in range(1, a.hops + 1):
        ours = [run_tcplab(hops, s, a.duration, a.routing) for s in range(1, a.seeds + 1)]
        theirs = [run_ns2(hops, s, a.duration, a.routing) for s in range(1, a.seeds + 1)]
        mean = lambda rs, k: statistics.mean(r[k] for r in rs)  # noqa: E731
        print(f"| {hops} | {mean(ours, 'goodput_bps') / 1e3:.0f} | {mean(theirs, 'goodput_bps') / 1e3:.0f} "
              f"| {mean(ours, 'retransmits'):.1f} | {mean(theirs, 'retransmits'):.1f} "
              f"| {mean(ours, 'timeouts'):.1f} | {mean(theirs, 'timeouts'):.1f} | {mean(ours, 'mac_drops'):.1f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
