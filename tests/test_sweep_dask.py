"""The same sweep on local processes and on a Dask cluster gives the same
files, byte for byte; a worker killed mid-sweep costs only its own runs."""
import os
import signal
import subprocess
import sys
import time

import pytest
from distributed import LocalCluster

import tcplab
from conftest import SCENARIOS

FILES = ["runs.csv", "runs.parquet", "summary.csv"]
SWEEP = """scenario = "{scenario}"
seeds = {seeds}
metrics = ["throughput_bps", "goodput_bps", "retransmits", "timeouts", "unfairness", "jain", "completion_s"]
overrides = ["sim.duration={duration}"]
[grid]
"flow[*].transport" = ["reno", "newreno", "vegas"]
"link[7].error.rate" = [0.0, 0.01, 0.05]
"""


def sweep_file(tmp_path, seeds=3, duration="10s"):
    f = tmp_path / "s.toml"
    f.write_text(SWEEP.format(scenario=SCENARIOS / "dumbbell.toml", seeds=seeds, duration=duration))
    return f


def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "tcplab", *map(str, args)], capture_output=True, text=True,
                          timeout=600, **kw)


def assert_same_files(a, b):
    for f in FILES:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


@pytest.fixture(scope="module")
def local_result(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("local")
    r = cli("sweep", sweep_file(tmp), "--jobs", "2", "--out", tmp / "out", "-q")
    assert r.returncode == 0, r.stderr
    return tmp / "out"


def test_local_cluster_gives_identical_files(tmp_path, local_result):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        r = cli("sweep", sweep_file(tmp_path), "--scheduler", cluster.scheduler_address, "--out", tmp_path / "out",
                "-q")
        assert r.returncode == 0, r.stderr
        # The API takes the same option.
        res = tcplab.sweep(SCENARIOS / "dumbbell.toml",
                           {"flow[*].transport": ["reno", "vegas"], "link[7].error.rate": [0.01]}, seeds=2,
                           out=tmp_path / "api", scheduler=cluster.scheduler_address, progress=False)
    assert_same_files(tmp_path / "out", local_result)
    assert len(res.runs) == 4


def test_reproduce_on_a_cluster_matches_local(tmp_path):
    study = [sys.executable, "-m", "tcplab", "reproduce", "basestation", "--quick", "-q", "--out"]
    r = subprocess.run(study + [str(tmp_path / "local"), "--jobs", "2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        r = subprocess.run(study + [str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address],
                           capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for f in ["runs.csv", "throughput.csv", "unfairness.csv"]:
        assert (tmp_path / "local" / f).read_bytes() == (tmp_path / "dask" / f).read_bytes(), f


def wait_for(pred, what, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def separate_cluster(tmp_path):
    """A scheduler and two workers, each its own process, on 127.0.0.1 only."""
    sched_file = tmp_path / "scheduler.json"
    common = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                               "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)], **common)]
    wait_for(lambda: sched_file.exists() and sched_file.stat().st_size > 0, "the scheduler")
    for _ in range(2):
        procs.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
                                       str(sched_file), "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny",
                                       "--no-dashboard"], **common))
    import json

    address = json.loads(sched_file.read_text())["address"]
    assert address.startswith("tcp://127.0.0.1:")
    from distributed import Client

    with Client(address, timeout="30s") as c:
        c.wait_for_workers(2, timeout=60)
    try:
        yield address, procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_separate_scheduler_and_workers_give_identical_files(tmp_path, local_result, separate_cluster):
    address, _ = separate_cluster
    r = cli("sweep", sweep_file(tmp_path), "--scheduler", address, "--out", tmp_path / "out")
    assert r.returncode == 0, r.stderr
    assert "27 runs" in r.stdout
    assert_same_files(tmp_path / "out", local_result)


def test_a_worker_killed_mid_sweep_loses_only_its_runs(tmp_path, separate_cluster):
    address, procs = separate_cluster
    f = sweep_file(tmp_path, seeds=12, duration="100s")
    runs = tmp_path / "cluster" / "runs"
    p = subprocess.Popen([sys.executable, "-m", "tcplab", "sweep", str(f), "--scheduler", address, "--out",
                          str(tmp_path / "cluster"), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: runs.exists() and len(list(runs.glob("*.json"))) >= 10 or p.poll() is not None, "some runs")
    os.kill(procs[1].pid, signal.SIGKILL)  # one of the two workers
    _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    assert len(list(runs.glob("*.json"))) == 9 * 12
    r = cli("sweep", f, "--jobs", "2", "--out", tmp_path / "local", "-q")
    assert r.returncode == 0, r.stderr
    assert_same_files(tmp_path / "cluster", tmp_path / "local")


def test_unreachable_scheduler_is_one_line(tmp_path):
    r = cli("sweep", sweep_file(tmp_path), "--scheduler", "tcp://127.0.0.1:9", "--out", tmp_path / "out")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--scheduler tcp://127.0.0.1:9: cannot connect" in r.stderr
    assert not (tmp_path / "out").exists()
