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


def _tiny_sweep(tmp_path) -> str:
    """A sweep file of four short runs."""
    toml = ('[sim]\nduration = "2s"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
            '[[link]]\nbetween = ["a", "b"]\nrate = "10Mbps"\ndelay = "20ms"\n'
            '[[flow]]\nfrom = "a"\nto = "b"\ntransport = "newreno"\napp = { kind = "bulk" }\n')
    (tmp_path / "small.toml").write_text(toml)
    (tmp_path / "sw.toml").write_text('scenario = "small.toml"\nseeds = 2\n[grid]\n"link[0].delay" = ["5ms", "20ms"]\n')
    return str(tmp_path / "sw.toml")


def test_a_sweep_draws_no_bar_into_a_log(tmp_path):
    """README: bars only on a terminal. stderr to a file (`2>log`) gets no
    bar lines (the sweep's bar was drawn there, \\r and all, until 2026-12)."""
    sweep = _tiny_sweep(tmp_path)
    with open(tmp_path / "log", "w") as log:
        r = subprocess.run([sys.executable, "-m", "tcplab", "sweep", sweep, "--jobs", "1", "--out",
                            str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=log, text=True)
    assert r.returncode == 0
    assert (tmp_path / "log").read_text() == ""


def test_a_sweep_draws_its_bar_on_a_terminal(tmp_path):
    import fcntl
    import os
    import pty
    import struct
    import termios

    sweep = _tiny_sweep(tmp_path)
    leader, follower = pty.openpty()
    # A new pseudo-terminal is 0 columns wide: tqdm would draw an empty bar.
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        r = subprocess.run([sys.executable, "-m", "tcplab", "sweep", sweep, "--jobs", "1", "--out",
                            str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=follower, text=True)
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end is closed: all read
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    assert r.returncode == 0
    assert b"4/4 runs" in drawn, drawn
