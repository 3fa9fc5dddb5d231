"""tcplab's simulation time measured as ns-2's is: each run in a fresh
process (`examples/run_scenario FILE 1`, which times the core's run), best
of the repeats. Repeating inside one process would time the later runs
with a warm allocator and warm caches, which ns-2's runs (one per process)
never have; at 1000 flows that alone was 15-20 % (docs/validation.md).

The benchmarks set tcplab against ns-2 on one clock: the simulation's CPU
time (tcplab: the core's run, `best_cpu_s`; ns-2: its process's CPU time
minus that of the same script run for 1 us), and whole processes with
whole processes (wall with wall, CPU with CPU). The core's wall time
(`best_wall_s`) is reported too; on a shared machine it also counts the
time other processes held the core.

This file is also the benchmarks' shared helper (building the examples,
argument types). Run on its own it times one scenario file:

    python benchmarks/core_timing.py scenarios/dumbbell.toml [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402

EXAMPLES = ROOT / "target" / "release" / "examples"


def first_runs(exe: Path, scenario: Path, repeats: int) -> dict:
    """run_scenario's report of its fastest first run (by CPU time) over
    `repeats` processes, with that process's peak RSS, wall and CPU time."""
    best = None
    for _ in range(max(repeats, 1)):
        m = ns2.measure([str(exe), str(scenario), "1"])
        if m["returncode"] != 0:
            raise RuntimeError(m["stderr"][-300:])
        out = json.loads(m["stdout"])
        if best is None or out["best_cpu_s"] < best["best_cpu_s"]:
            out["maxrss_kb"] = m["maxrss_kb"]
            out["process_wall_s"], out["process_cpu_s"] = m["wall_s"], m["cpu_s"]
            best = out
    return best


def build_examples(*names: str) -> Path:
    """Build the Rust examples `names` (release) and return their directory.
    Without cargo on PATH, examples already built are used as they are
    (said on stderr: they may predate the sources), and a missing one ends
    the benchmark with one line."""
    exes = [EXAMPLES / n for n in names]
    if shutil.which("cargo") is None:
        missing = [e for e in exes if not e.exists()]
        if missing:
            sys.exit(f"{Path(sys.argv[0]).name}: error: cargo is not on PATH and "
                     f"{missing[0].relative_to(ROOT)} is not built; install Rust's cargo, or build it with "
                     f"`cargo build --release --example {missing[0].name}`")
        print(f"note: cargo is not on PATH: timing the examples already built in {EXAMPLES.relative_to(ROOT)} "
              f"({', '.join(names)}); they may be older than the sources", file=sys.stderr)
        return EXAMPLES
    cmd = ["cargo", "build", "--release", "-q"] + [x for n in names for x in ("--example", n)]
    r = subprocess.run(cmd, cwd=ROOT)
    if r.returncode != 0:
        sys.exit(f"{Path(sys.argv[0]).name}: error: `{' '.join(cmd)}` failed (status {r.returncode})")
    return EXAMPLES


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a bad argument reported in one line (exit status 2),
    without the usage block."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message}\n")


def _int_at_least(low: int):
    """An argparse type: a whole number >= `low`."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = low - 1
        if v < low:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {text!r}")
        return v
    return parse


positive_int = _int_at_least(1)
non_negative_int = _int_at_least(0)


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (0 < v < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}")
    return v


def probability(text: str) -> float:
    """An argparse type: a number in [0, 1]."""
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"expected a probability in [0, 1], got {text!r}")
    return v


def size_list(text: str) -> list[int]:
    """An argparse type: comma-separated whole numbers >= 1 (e.g. 50,200,800)."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"expected whole numbers >= 1 separated by commas, e.g. 50,200,800, "
                                         f"got {text!r}")
    return sizes


def compile_tcplab() -> None:
    """Byte-compile the tcplab package that `python -m tcplab` imports, as
    an install does (pip compiles what it installs). The whole-process
    timings then measure tcplab as a user runs it. Without this an editable
    install whose sources changed since their bytecode was written is
    compiled again at every start when PYTHONDONTWRITEBYTECODE is set (it
    is on the project's machine): about 9 ms of each `tcplab run`
    (docs/validation.md, "Scaling"). compileall writes the bytecode
    whatever that variable says; a package it cannot write to is left as
    it is."""
    code = ("import compileall, os, tcplab; "
            "compileall.compile_dir(os.path.dirname(tcplab.__file__), quiet=2)")
    subprocess.run([sys.executable, "-c", code], check=False, capture_output=True)


def main() -> int:
    ap = ArgumentParser(description="Time one scenario file with tcplab's Rust core alone, one run per "
                                             "process, best of the repeats (the benchmarks' measure of the "
                                             "simulation); prints run_scenario's JSON report.")
    ap.add_argument("scenario", type=Path, help="scenario file (TOML)")
    ap.add_argument("--repeats", type=positive_int, default=5, help="processes (best taken; default 5)")
    a = ap.parse_args()
    if not a.scenario.is_file():
        ap.error(f"{a.scenario}: no such scenario file")
    exe = build_examples("run_scenario") / "run_scenario"
    try:
        print(json.dumps(first_runs(exe, a.scenario.resolve(), a.repeats)))
    except RuntimeError as e:
        sys.exit(f"core_timing.py: error: {' '.join(str(e).split())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
