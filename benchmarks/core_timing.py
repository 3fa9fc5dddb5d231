"""tcplab's simulation time measured as ns-2's is: each run in a fresh
process (`examples/run_scenario FILE 1`, which times the core's event loop),
best of the repeats. Repeating inside one process would time the later runs
with a warm allocator and warm caches, which ns-2's runs (one per process)
never have; at 1000 flows that alone was 15-20 % (docs/validation.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402


def first_runs(exe: Path, scenario: Path, repeats: int) -> dict:
    """run_scenario's report of its fastest first run over `repeats`
    processes, with that process's peak RSS, wall and CPU time."""
    best = None
    for _ in range(max(repeats, 1)):
        m = ns2.measure([str(exe), str(scenario), "1"])
        if m["returncode"] != 0:
            raise RuntimeError(m["stderr"][-300:])
        out = json.loads(m["stdout"])
        if best is None or out["best_wall_s"] < best["best_wall_s"]:
            out["maxrss_kb"] = m["maxrss_kb"]
            out["process_wall_s"], out["process_cpu_s"] = m["wall_s"], m["cpu_s"]
            best = out
    return best


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
