"""Snoop in tcplab and in ns-2.35 side by side, on the nearest setup both can
express. ns-2.35 has Snoop only as a LAN link layer (LL/LLSnoop), so, as in
ns-2's own test-suite-snoop, the base station reaches a "cell" node over a
LAN and the losses happen on the hops from the cell to the mobiles:

    fh_i -- edge -- core -- bs ==LAN 2 Mbit/s, 4 ms== cell --lossy-- mh_i

tcplab uses a 2 Mbit/s point-to-point link for the LAN (ns-2's LAN is an
802.3 channel shared by data and ACKs), so absolute throughputs differ; the
comparison is the gain Snoop gives in each simulator, per variant and
error rate.

    python validation/snoop_ns2.py [--seeds 3]
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
from tcplab.studies.basestation import N_FLOWS  # noqa: E402
from validation import ns2  # noqa: E402

AGENTS = ns2.AGENTS


def tcplab_scenario(variant: str, snoop: bool, rate: float, seed: int, duration: float) -> dict:
    nodes = [{"name": "edge"}, {"name": "core"}, {"name": "bs", "snoop": snoop}, {"name": "cell"}]
    links = []
    for i in range(1, N_FLOWS + 1):
        nodes += [{"name": f"fh{i}"}, {"name": f"mh{i}"}]
        links.append({"between": [f"fh{i}", "edge"], "rate": "10Mbps", "delay": "1ms"})
    links += [{"between": ["edge", "core"], "rate": "10Mbps", "delay": "10ms"},
              {"between": ["core", "bs"], "rate": "10Mbps", "delay": "10ms"},
              {"between": ["bs", "cell"], "rate": "2Mbps", "delay": "4ms"}]
    links += [{"between": ["cell", f"mh{i}"], "rate": "10Mbps", "delay": "1ms",
               "error": {"kind": "uniform", "rate": rate, "direction": "forward"}} for i in range(1, N_FLOWS + 1)]
    flows = [{"name": f"ftp{i}", "from": f"fh{i}", "to": f"mh{i}", "transport": variant, "packet_size": 1000,
              "window": 10, "app": {"kind": "bulk", "start": f"{(i - 1) * 0.1:.1f}s"}} for i in range(1, N_FLOWS + 1)]
    return {"sim": {"duration": f"{duration}s", "seed": seed}, "node": nodes, "link": links, "flow": flows}


def ns2_tcl(variant: str, snoop: bool, rate: float, seed: int, duration: float) -> str:
    out = ["set ns [new Simulator]", f"$defaultRNG seed {seed + 1}",
           "foreach n {edge core bs cell} { set node($n) [$ns node] }"]
    for i in range(1, N_FLOWS + 1):
        out += [f"set node(fh{i}) [$ns node]", f"set node(mh{i}) [$ns node]",
                f"$ns duplex-link $node(fh{i}) $node(edge) 10Mb 1ms DropTail"]
    out += ["$ns duplex-link $node(edge) $node(core) 10Mb 10ms DropTail",
            "$ns duplex-link $node(core) $node(bs) 10Mb 10ms DropTail",
            "set lan [$ns make-lan [list $node(cell)] 2Mb 4ms LL Queue/DropTail Mac/802_3]",
            f"$lan addNode [list $node(bs)] 2Mb 4ms {'LL/LLSnoop' if snoop else 'LL'} Queue/DropTail Mac/802_3"]
    for i in range(1, N_FLOWS + 1):
        out += [f"$ns duplex-link $node(cell) $node(mh{i}) 10Mb 1ms DropTail",
                *ns2.error_model(f"em{i}", {"kind": "uniform", "rate": rate}, i),
                f"$ns link-lossmodel $em{i} $node(cell) $node(mh{i})",
                f"set tcp({i}) [new {AGENTS[variant]}]",
                f"$tcp({i}) set packetSize_ {1040 if variant == 'vegas' else 1000}",
                # ns-2's default SYN (syn_, delay_growth_), as the ns2 profile.
                f"$tcp({i}) set window_ 10",
                f"$ns attach-agent $node(fh{i}) $tcp({i})", f"set sink({i}) [new Agent/TCPSink]",
                f"$ns attach-agent $node(mh{i}) $sink({i})", f"$ns connect $tcp({i}) $sink({i})",
                f"set ftp({i}) [new Application/FTP]", f"$ftp({i}) attach-agent $tcp({i})",
                f"$ns at {(i - 1) * 0.1:.1f} \"$ftp({i}) start\""]
    out.append("proc finish {} { global tcp; for {set i 1} {$i <= %d} {incr i} "
               "{ puts \"flow $i [$tcp($i) set ack_]\" }; exit 0 }" % N_FLOWS)
    out += [f"$ns at {duration} finish", "$ns run"]
    return "\n".join(out) + "\n"


def ns2_throughput(variant, snoop, rate, seed, duration) -> float:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "snoop.tcl"
        p.write_text(ns2_tcl(variant, snoop, rate, seed, duration))
        m = ns2.measure(["ns", p], cwd=d)
    if m["returncode"] != 0:
        raise RuntimeError(m["stderr"][-400:])
    acks = [int(l.split()[2]) for l in m["stdout"].splitlines() if l.startswith("flow")]
    # With the SYN, packet 0 carries no data: ack_ data packets acknowledged.
    return statistics.mean(a * 1000 * 8 / (duration - 0.1 * i) for i, a in enumerate(acks))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=100.0)
    a = ap.parse_args()
    if not ns2.available():
        print("ns-2 is not installed (apt-get install ns2)")
        return 1
    print(f"{'variant':<8} {'error %':>7} | {'tcplab plain':>12} {'snoop':>7} {'gain':>6} | "
          f"{'ns-2 plain':>10} {'snoop':>7} {'gain':>6}   (kbit/s per flow)")
    for variant in ["tahoe", "reno", "newreno"]:
        for rate in [0.0, 0.01, 0.05, 0.1]:
            res = {}
            for snoop in (False, True):
                ours = [statistics.mean(tcplab.run(tcplab_scenario(variant, snoop, rate, s, a.duration))
                                        .columns("flows")["throughput_bps"]) for s in range(1, a.seeds + 1)]
                theirs = [ns2_throughput(variant, snoop, rate, s, a.duration) for s in range(1, a.seeds + 1)]
                res[snoop] = (statistics.mean(ours), statistics.mean(theirs))
            (op, tp), (os_, ts) = res[False], res[True]
            print(f"{variant:<8} {rate * 100:>7.1f} | {op / 1e3:12.1f} {os_ / 1e3:7.1f} {os_ / op:6.2f} | "
                  f"{tp / 1e3:10.1f} {ts / 1e3:7.1f} {ts / tp:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
