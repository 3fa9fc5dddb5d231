"""Speed benchmark: the five-flow dumbbell of scenarios/dumbbell.toml
(10 Mbit/s wired hops, 2 Mbit/s last hop with 1 % loss, 26 ms one way,
1000-byte packets, window 10, 100 s), in tcplab and, when installed, in ns-2;
`--queue drr` puts ns-2's DRR (50 packets' bytes, a quantum of one packet)
at the last hop in place of its 50-packet drop-tail queue, in both.

    python benchmarks/dumbbell.py [--repeats 5] [--loss 0.01] [--queue drr]

Reports, for tcplab: the simulation alone (Rust core, one run per process,
best of N: benchmarks/core_timing.py; CPU and wall time), the whole
`tcplab run` process (wall and CPU) including Python start-up and writing
files, events per
second and peak memory; for ns-2: the whole `ns` process (wall and CPU) and the run minus ns-2's
own start-up (an empty simulation of the same script), both CPU times, peak
memory, and the per-flow throughputs of both simulators side by side. The
speed-ups set like against like: the simulations by CPU time, the whole
processes by wall time and by CPU time.
No assertion here: timings are for people, not for CI.
"""
from __future__ import annotations

import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402

from core_timing import (  # noqa: E402  (this script's directory)
    ArgumentParser, build_examples, compile_tcplab, first_runs, positive_int, probability)

SCENARIO = ROOT / "scenarios" / "dumbbell.toml"
#: The last hop's queue: its TOML line in the scenario, and as a table.
QUEUES = {
    "droptail": ('queue = { kind = "droptail", limit = 50 }', {"kind": "droptail", "limit": 50}),
    "drr": ('queue = { kind = "drr", blimit = 52000, quantum = 1040 }',
            {"kind": "drr", "blimit": 52000, "quantum": 1040}),
}


def child_run(cmd: list) -> tuple[float, float, int, str]:
    """(wall s, cpu s, peak RSS KiB, stdout) of one child process."""
    m = ns2.measure(cmd)
    if m["returncode"] != 0:
        raise RuntimeError(f"{cmd[0]} failed: {m['stderr'].strip()[-300:]}")
    return m["wall_s"], m["cpu_s"], m["maxrss_kb"], m["stdout"]


def mib(kb) -> str:
    return "n/a (install GNU time)" if kb is None else f"{kb / 1024:.1f} MiB"


def main() -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=positive_int, default=5, help="processes per measure (best taken; default 5)")
    ap.add_argument("--loss", type=probability, default=0.01,
                    help="the 2 Mbit/s hop's packet error rate, in [0, 1] (default 0.01)")
    ap.add_argument("--queue", choices=sorted(QUEUES), default="droptail",
                    help="the last hop's queue (default droptail, the scenario's)")
    a = ap.parse_args()

    sc = tomllib.loads(SCENARIO.read_text())
    sc["link"][7]["error"]["rate"] = a.loss
    sc["link"][7]["queue"] = dict(QUEUES[a.queue][1])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "dumbbell.toml"
        text = SCENARIO.read_text().replace("rate = 0.01,", f"rate = {a.loss},")
        text = text.replace(QUEUES["droptail"][0], QUEUES[a.queue][0])
        path.write_text(text)

        exe = build_examples("run_scenario") / "run_scenario"
        compile_tcplab()  # the whole `tcplab run` as installed (core_timing.py)
        core = first_runs(exe, path, a.repeats)
        rss = core["maxrss_kb"]

        walls, cpus = [], []
        # The installed command, as a user runs it (python -m would be the same process).
        for _ in range(a.repeats):
            w, c, _, _ = child_run([sys.executable, "-m", "tcplab", "run", str(path), "--out", str(Path(d) / "out"), "-q"])
            walls.append(w)
            cpus.append(c)
        cli, cli_cpu = min(walls), min(cpus)

    print(f"tcplab  simulation only : {core['best_cpu_s'] * 1e3:8.1f} ms CPU {core['best_wall_s'] * 1e3:8.1f} ms wall  "
          f"{core['events']:,} events  {core['events'] / core['best_cpu_s'] / 1e6:.1f} M events/s (CPU)  "
          f"peak RSS {mib(rss)}")
    print(f"tcplab  whole CLI run   : {cli * 1e3:8.1f} ms wall {cli_cpu * 1e3:8.1f} ms CPU  "
          "(`tcplab run`: Python start-up, run, CSV/JSON files; best of N)")

    if not ns2.available():
        print("ns-2 not installed (apt-get install ns2): no comparison")
        return 0
    runs = [ns2.run(sc) for _ in range(a.repeats)]
    best = min(runs, key=lambda r: r["cpu_s"])
    empty = dict(sc, sim=dict(sc["sim"], duration="0.000001s"))
    base = min(ns2.run(empty)["cpu_s"] for _ in range(a.repeats))
    sim_cpu = max(best["cpu_s"] - base, 1e-9)
    ns_wall = min(r["wall_s"] for r in runs)
    print(f"ns-2.35 whole run       : {ns_wall * 1e3:8.1f} ms wall {best['cpu_s'] * 1e3:8.1f} ms CPU  "
          f"peak RSS {mib(best['maxrss_kb'])}")
    print(f"ns-2.35 simulation only : {sim_cpu * 1e3:8.1f} ms CPU  (minus {base * 1e3:.1f} ms start-up)")
    print(f"speed-up, simulation    : {sim_cpu / core['best_cpu_s']:6.1f}x CPU (ns-2 minus its start-up vs tcplab's core)")
    print(f"speed-up, whole runs    : {ns_wall / cli:6.2f}x wall, {best['cpu_s'] / cli_cpu:5.2f}x CPU "
          "(`ns` vs `tcplab run`, whole processes)")
    print()
    print(f"{'flow':<6} {'tcplab kb/s':>12} {'ns-2 kb/s':>10} {'diff':>7}")
    names = [f.get("name") for f in sc["flow"]]
    ours_all, theirs_all = 0.0, 0.0
    for name, ours in zip(names, core["throughput_bps"]):
        theirs = best["flows"][name]["throughput_bps"]
        ours_all += ours
        theirs_all += theirs
        print(f"{name:<6} {ours / 1e3:12.1f} {theirs / 1e3:10.1f} {100 * (ours - theirs) / theirs:+6.1f}%")
    print(f"{'mean':<6} {ours_all / 5e3:12.1f} {theirs_all / 5e3:10.1f} {100 * (ours_all - theirs_all) / theirs_all:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
