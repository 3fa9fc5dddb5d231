"""Progress of one long run (SPEC 8: "progress bars for long work"): the
core tells a callback the simulated time reached about every 0.1 s of wall
time, and `tcplab run` / `tcplab.run(progress=True)` draw a bar from it
once a run has lasted a second."""
from __future__ import annotations

import io
import subprocess
import sys
import time

import pytest

from tcplab import _core
from tcplab.api import _prepare
from tcplab.progress import RunProgress

# About 0.7 s of wall time here: long enough for several reports.
LONG = {"sim": {"duration": "20000s", "seed": 1}, "node": [{"name": "a"}, {"name": "b"}],
        "link": [{"between": ["a", "b"], "rate": "10Mbps", "delay": "20ms",
                  "error": {"kind": "uniform", "rate": 0.01}}],
        "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "app": {"kind": "bulk"}}]}


def text(sc: dict) -> str:
    return _prepare(sc, seed=None, overrides=(), sample_interval=None, trace=None, pcap=())[1]


def test_the_core_reports_the_simulated_time_reached():
    calls: list = []
    t0 = time.monotonic()
    res = _core.run_json(text(LONG), None, lambda now, end: calls.append((now, end, time.monotonic() - t0)))
    assert calls, "no report in a run of several tenths of a second"
    assert all(end == 20000.0 for _, end, _ in calls)
    times = [now for now, _, _ in calls]
    assert 0 < times[0] and all(a < b for a, b in zip(times, times[1:])) and times[-1] < 20000.0
    # Reports come no more often than every 0.1 s.
    walls = [w for _, _, w in calls]
    assert all(b - a >= 0.09 for a, b in zip(walls, walls[1:])), calls
    # The run is the same as without reports.
    assert res["flows"] == _core.run_json(text(LONG))["flows"]


def test_an_error_in_the_callback_stops_the_run():
    def fail(now, end):
        raise RuntimeError(f"stop at {now:.0f}")

    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="stop at"):
        _core.run_json(text(LONG), None, fail)
    assert time.monotonic() - t0 < 0.5


def test_the_bar_draws_simulated_seconds():
    out = io.StringIO()
    bar = RunProgress(delay=0, file=out, disable=False)
    _core.run_json(text(LONG), None, bar)
    assert bar.bar is not None
    bar.close()
    assert "simulated:" in out.getvalue() and "/20000.0 s" in out.getvalue()


def test_a_short_run_shows_nothing_and_imports_no_tqdm(small_scenario):
    code = ("import sys, json, tcplab; tcplab.run(json.loads(sys.argv[1]), progress=True); "
            "print('tqdm' in sys.modules)")
    import json

    r = subprocess.run([sys.executable, "-c", code, json.dumps(small_scenario)], capture_output=True, text=True,
                       check=True)
    assert r.stdout.strip() == "False" and r.stderr == ""
