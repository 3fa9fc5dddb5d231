"""Ctrl-C and kills during `tcplab reproduce` and `tcplab sweep`: the process
stops at once, says how many runs are kept, and leaves no worker behind,
even when the main process is killed outright."""
import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from conftest import SCENARIOS

# Long enough runs that the sweep is surely still going when interrupted.
SWEEP = """scenario = "{scenario}"
seeds = 40
metrics = ["throughput_bps", "retransmits"]
overrides = ["sim.duration=200s"]
[grid]
"flow[*].transport" = ["reno", "newreno", "vegas"]
"link[7].error.rate" = [0.0, 0.01, 0.02]
"""


def sweep_cmd(tmp_path, out, jobs="2"):
    f = tmp_path / "long.toml"
    f.write_text(SWEEP.format(scenario=SCENARIOS / "dumbbell.toml"))
    return [sys.executable, "-m", "tcplab", "sweep", str(f), "--jobs", jobs, "--out", str(out)]


def sweep_one_job_cmd(tmp_path, out):
    return sweep_cmd(tmp_path, out, jobs="1")


def reproduce_cmd(tmp_path, out):
    return [sys.executable, "-m", "tcplab", "reproduce", "basestation", "--jobs", "2", "--out", str(out)]


def start_and_wait_for_runs(cmd, runs_dir, n=5):
    """Start `cmd`, wait until `n` runs are stored, return the process and
    its descendants (the pool's workers among them)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if runs_dir.exists() and len(list(runs_dir.glob("*.json"))) >= n:
            break
        time.sleep(0.05)
    assert p.poll() is None, p.communicate()
    children = psutil.Process(p.pid).children(recursive=True)
    assert children, "the pool's workers are running"
    return p, children


def running(proc) -> bool:
    # An exited process whose parent is gone stays a zombie until PID 1
    # reaps it (some containers' PID 1 never does): it runs nothing.
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


# A liveness bound, not a speed claim: a stop takes well under a second on
# an idle machine, but CI's other tests (or other work on the machine) have
# stretched it past 5 s.
STOP_BOUND_S = 30


def wait_stopped(p, signal_name):
    """The process's stderr once it has exited after `signal_name`; fail
    (killing it) if it is still running after STOP_BOUND_S."""
    try:
        return p.communicate(timeout=STOP_BOUND_S)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail(f"still running {STOP_BOUND_S} s after {signal_name}")


def assert_all_gone(procs, within):
    deadline = time.time() + within
    while time.time() < deadline and any(running(c) for c in procs):
        time.sleep(0.05)
    alive = [c for c in procs if running(c)]
    for c in alive:
        c.kill()
    assert not alive, f"left running: {[(c.pid, c.cmdline()) for c in alive]}"


@pytest.mark.parametrize("command", [sweep_cmd, sweep_one_job_cmd, reproduce_cmd],
                         ids=["sweep", "sweep-jobs-1", "reproduce"])
def test_ctrl_c_stops_at_once_and_leaves_no_worker(tmp_path, command):
    out = tmp_path / "out"
    p, children = start_and_wait_for_runs(command(tmp_path, out), out / "runs")
    os.kill(p.pid, signal.SIGINT)
    err = wait_stopped(p, "Ctrl-C")
    assert p.returncode == 130
    stored = len(list((out / "runs").glob("*.json")))
    assert f"{stored} runs saved, rerun to resume" in err, err
    assert "Traceback" not in err, err
    assert_all_gone(children, within=STOP_BOUND_S)
    for f in (out / "runs").glob("*.json"):
        json.loads(f.read_text())


def test_sigterm_stops_like_ctrl_c(tmp_path):
    out = tmp_path / "out"
    p, children = start_and_wait_for_runs(sweep_cmd(tmp_path, out), out / "runs")
    p.terminate()
    err = wait_stopped(p, "SIGTERM")
    assert p.returncode == 130 and "runs saved, rerun to resume" in err, err
    assert_all_gone(children, within=STOP_BOUND_S)


def test_workers_exit_when_the_main_process_is_killed(tmp_path):
    out = tmp_path / "out"
    p, children = start_and_wait_for_runs(sweep_cmd(tmp_path, out), out / "runs")
    p.kill()
    p.communicate()
    # Killed workers are SIGKILLed by the kernel at once (PR_SET_PDEATHSIG);
    # the bound is generous for a loaded machine, not a speed claim.
    assert_all_gone(children, within=5)
    # And the sweep resumes from what was stored.
    before = {f.name for f in (out / "runs").glob("*.json")}
    r = subprocess.run(sweep_cmd(tmp_path, out) + ["-q"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert before < {f.name for f in (out / "runs").glob("*.json")}
