"""The floor of a forwarding hop: how fast can an exact-order, one-event-per-
hop simulator be on this machine, and where does tcplab stand against it
and against ns-2?

One CBR flow (1000-byte UDP payloads at 10 Mbit/s) through a chain of 10
routers joined by 100 Mbit/s, 1 ms links: every event is a plain
forwarding hop on an idle link (or the source's send). The same run three
ways, each in processes of its own, best of the repeats, all three by CPU
time:

- tcplab: the Rust core (examples/run_scenario, as benchmarks/core_timing.py);
- the floor (examples/hop_floor.rs): tcplab's event queue and that hop
  with nothing general around it (no devices, agents, sockets, traces,
  queue policies or error models to pass by). It does exactly tcplab's
  events, the same count, in the same order;
- ns-2.35: the same chain in Tcl (CBR over Agent/UDP to Agent/Null), CPU
  time minus that of the same script run for 1 us.

    python benchmarks/hop_floor.py [--seconds 1000] [--repeats 5]
    python benchmarks/hop_floor.py --quick     # 10 s, one repeat: a smoke run for CI

No assertion here: timings are for people, not for CI.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402

from core_timing import (  # noqa: E402  (this script's directory)
    ArgumentParser, build_examples, first_runs, positive_float, positive_int)

ROUTERS = 10


def scenario(seconds: float) -> str:
    """The chain as a tcplab scenario."""
    s = f'[sim]\nduration = "{seconds}s"\nseed = 1\n'
    s += "".join(f'[[node]]\nname = "r{i}"\n' for i in range(ROUTERS))
    s += "".join(f'[[link]]\nbetween = ["r{i}", "r{i + 1}"]\nrate = "100Mbps"\ndelay = "1ms"\n'
                 for i in range(ROUTERS - 1))
    s += (f'[[flow]]\nname = "u"\nfrom = "r0"\nto = "r{ROUTERS - 1}"\ntransport = "udp"\n'
          'packet_size = 1000\napp = { kind = "cbr", rate = "10Mbps" }\n')
    return s


# ns-2's CBR sends packetSize_ bytes every packetSize_ * 8 / rate_: 1028
# (tcplab's 1000-byte payload with its 28 bytes of UDP and IP) keeps the
# two sending the same packets at the same times. The UDP agent's own
# packetSize_ (1000 by default) is the most it puts in one packet: left
# at 1000 it would split every 1028-byte message in two.
NS2_TCL = """set ns [new Simulator]
for {set i 0} {$i < %(n)d} {incr i} { set n($i) [$ns node] }
for {set i 0} {$i < %(last)d} {incr i} { $ns duplex-link $n($i) $n([expr $i+1]) 100Mb 1ms DropTail }
set udp [new Agent/UDP]
$udp set packetSize_ 1500
$ns attach-agent $n(0) $udp
set sink [new Agent/Null]
$ns attach-agent $n(%(last)d) $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 1028
$cbr set rate_ 10Mb
$cbr attach-agent $udp
$ns at 0.0 "$cbr start"
$ns at %(dur)s "exit 0"
$ns run
"""


def ns2_sim(seconds: float, repeats: int) -> dict | None:
    """ns-2's best CPU time for the run and for its set-up (the script run
    for 1 us); None without ns-2."""
    if not ns2.available():
        return None
    full, setup = [], []
    for _ in range(max(repeats, 1)):
        for dur, out in ((seconds, full), (0.000001, setup)):
            out.append(ns2.run_tcl(NS2_TCL % {"n": ROUTERS, "last": ROUTERS - 1, "dur": dur})["cpu_s"])
    return {"cpu_s": min(full), "sim_s": max(min(full) - min(setup), 1e-9)}


def main() -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=positive_float, default=1000.0, help="simulated time (default 1000 s)")
    ap.add_argument("--repeats", type=positive_int, default=5, help="processes per simulator (best taken)")
    ap.add_argument("--quick", action="store_true", help="10 s, one repeat (a smoke run)")
    a = ap.parse_args()
    seconds, repeats = (10.0, 1) if a.quick else (a.seconds, a.repeats)
    examples = build_examples("run_scenario", "hop_floor")
    with tempfile.TemporaryDirectory() as tmp:
        toml = Path(tmp) / "chain.toml"
        toml.write_text(scenario(seconds))
        ours = first_runs(examples / "run_scenario", toml, repeats)
    floor = first_runs(examples / "hop_floor", Path(str(seconds)), repeats)
    theirs = ns2_sim(seconds, repeats)
    if floor["events"] != ours["events"]:
        print(f"warning: the floor ran {floor['events']} events, tcplab {ours['events']}", file=sys.stderr)
    events = ours["events"]
    print(f"UDP chain of {ROUTERS} routers, {seconds:g} s simulated, {events} events; best of {repeats}")
    print(f"{'run':<34} {'sim CPU':>11} {'ns/event':>9} {'ns-2 / this':>12}")
    rows = [("tcplab core", ours["best_cpu_s"]), ("floor: tcplab's queue + bare hop", floor["best_cpu_s"])]
    if theirs:
        rows.append(("ns-2.35 (CPU minus set-up)", theirs["sim_s"]))
    for name, s in rows:
        ratio = f"{theirs['sim_s'] / s:12.2f}" if theirs else f"{'n/a':>12}"
        print(f"{name:<34} {s * 1e3:8.1f} ms {s * 1e9 / events:9.1f} {ratio}")
    if not theirs:
        print("ns-2 not installed (apt-get install ns2): no ns-2 row")
    return 0


if __name__ == "__main__":
    sys.exit(main())
