"""Scaling benchmark: N NewReno flows through one N Mbit/s bottleneck with
1 % packet loss for 100 s (N = 1, 10, 100, 1000), and one flow for 10 000 s,
in tcplab and in ns-2.35 (the same scenario through validation/ns2.py).

    python benchmarks/scaling.py            # the full table (a few minutes)
    python benchmarks/scaling.py --quick    # N = 1 and 10, 10 s: a smoke run for CI

For each case it prints, for both simulators: the whole process (wall and
CPU), the simulation alone (tcplab: the Rust core's own timing of the run,
one run per process, best of the repeats as for ns-2 (benchmarks/core_timing.py);
ns-2: CPU time minus that of the same script run for
1 us, i.e. minus ns-2's own start-up and set-up), events per second and ns
per event (tcplab), peak RSS, and the two ratios ns-2 / tcplab. No
assertion here: timings are for people, not for CI.

Topology: sources --100 Mbit/s, 1 ms-- r1 ==N Mbit/s, 20 ms, uniform 1 %
loss forward, DropTail of max(50, N) packets== r2 --100 Mbit/s, 1 ms-- sinks;
1000-byte packets, a window of 20 packets, starts staggered over the first
second.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402

from core_timing import first_runs  # noqa: E402  (this script's directory)


def scenario(n: int, duration: str) -> str:
    """The scaling scenario as TOML text."""
    lines = [f'[sim]\nduration = "{duration}"\nseed = 1\ntcp_profile = "ns2"\n',
             '[[node]]\nname = "r1"\n[[node]]\nname = "r2"\n']
    for i in range(n):
        lines.append(f'[[node]]\nname = "s{i}"\n[[node]]\nname = "d{i}"\n')
    lines.append(f'[[link]]\nbetween = ["r1", "r2"]\nrate = "{n}Mbps"\ndelay = "20ms"\n'
                 f'queue = {{ kind = "droptail", limit = {max(50, n)} }}\n'
                 'error = { kind = "uniform", rate = 0.01, direction = "forward" }\n')
    for i in range(n):
        lines.append(f'[[link]]\nbetween = ["s{i}", "r1"]\nrate = "100Mbps"\ndelay = "1ms"\n'
                     f'[[link]]\nbetween = ["r2", "d{i}"]\nrate = "100Mbps"\ndelay = "1ms"\n')
    for i in range(n):
        start = f"{i / max(n, 1):.6f}s"
        lines.append(f'[[flow]]\nname = "f{i}"\nfrom = "s{i}"\nto = "d{i}"\ntransport = "newreno"\n'
                     f'packet_size = 1000\nwindow = 20\napp = {{ kind = "bulk", start = "{start}" }}\n')
    return "\n".join(lines)


def tcplab_case(text: str, repeats: int, tmp: Path) -> dict:
    path = tmp / "case.toml"
    path.write_text(text)
    exe = ROOT / "target" / "release" / "examples" / "run_scenario"
    core = first_runs(exe, path, repeats)
    whole = []
    for _ in range(repeats):
        w = ns2.measure([sys.executable, "-m", "tcplab", "run", str(path), "--out", str(tmp / "out"), "-q"])
        if w["returncode"] != 0:
            raise RuntimeError(w["stderr"][-300:])
        whole.append(w)
    best = min(whole, key=lambda r: r["wall_s"])
    return {"sim_s": core["best_wall_s"], "events": core["events"], "wall_s": best["wall_s"],
            "cpu_s": min(r["cpu_s"] for r in whole), "rss_kb": best["maxrss_kb"] or core["maxrss_kb"]}


def ns2_case(text: str, repeats: int) -> dict | None:
    if not ns2.available():
        return None
    sc = tomllib.loads(text)
    runs = [ns2.run(sc) for _ in range(repeats)]
    empty = dict(sc, sim=dict(sc["sim"], duration="0.000001s"))
    setup = min(ns2.run(empty)["cpu_s"] for _ in range(repeats))
    best = min(runs, key=lambda r: r["cpu_s"])
    return {"wall_s": min(r["wall_s"] for r in runs), "cpu_s": best["cpu_s"],
            "sim_s": max(best["cpu_s"] - setup, 1e-9), "rss_kb": best["maxrss_kb"]}


def mib(kb) -> str:
    return "  n/a" if kb is None else f"{kb / 1024:5.0f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 1 and 10 for 10 s (a smoke run)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-ns2", action="store_true", help="tcplab only (ns-2 takes minutes at N = 1000)")
    a = ap.parse_args()
    if a.quick:
        cases = [("N = 1", 1, "10s"), ("N = 10", 10, "10s")]
    else:
        cases = [("N = 1", 1, "100s"), ("N = 10", 10, "100s"), ("N = 100", 100, "100s"),
                 ("N = 1000", 1000, "100s"), ("1 flow, 10 000 s", 1, "10000s")]
    subprocess.run(["cargo", "build", "--release", "-q", "--example", "run_scenario"], cwd=ROOT, check=True)
    print(f"{'case':<18} {'tcplab whole':>13} {'sim':>9} {'ns/event':>9} {'Mev/s':>6} {'MiB':>5} | "
          f"{'ns-2 whole':>11} {'sim':>9} {'MiB':>5} | {'whole x':>7} {'sim x':>6}")
    for label, n, dur in cases:
        text = scenario(n, dur)
        with tempfile.TemporaryDirectory() as d:
            t = tcplab_case(text, a.repeats, Path(d))
        s = None if a.no_ns2 else ns2_case(text, a.repeats)
        ns_per_ev = t["sim_s"] / max(t["events"], 1) * 1e9
        row = (f"{label:<18} {t['wall_s'] * 1e3:10.0f} ms {t['sim_s'] * 1e3:6.0f} ms {ns_per_ev:9.0f} "
               f"{t['events'] / t['sim_s'] / 1e6:6.1f} {mib(t['rss_kb'])} | ")
        if s is None:
            row += "ns-2 not run" if a.no_ns2 else "ns-2 not installed"
        else:
            row += (f"{s['wall_s'] * 1e3:8.0f} ms {s['sim_s'] * 1e3:6.0f} ms {mib(s['rss_kb'])} | "
                    f"{s['wall_s'] / t['wall_s']:7.2f} {s['sim_s'] / t['sim_s']:6.1f}")
        print(row, flush=True)
    print("whole x = ns-2 whole process / tcplab whole process (`tcplab run`), wall; "
          "sim x = ns-2 simulation CPU / tcplab simulation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
