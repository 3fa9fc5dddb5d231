"""tcplab's simulation time measured as ns-2's is: each run in a fresh
process (`examples/run_scenario FILE 1`, which times the core's event loop),
best of the repeats. Repeating inside one process would time the later runs
with a warm allocator and warm caches, which ns-2's runs (one per process)
never have; at 1000 flows that alone was 15-20 % (docs/validation.md)."""

from __future__ import annotations

import json
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
