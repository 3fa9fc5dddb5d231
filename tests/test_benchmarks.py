"""The benchmark scripts run (quick forms); they print timings for people and
assert nothing about speed (machines are noisy)."""
import subprocess
import sys

from conftest import ROOT


def test_scaling_benchmark_quick_runs():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "scaling.py"), "--quick", "--repeats", "1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [line for line in r.stdout.splitlines() if line.startswith("N = ")]
    assert [row.split()[2] for row in rows] == ["1", "10"]
    assert all(" ms " in row for row in rows)


def test_hop_floor_benchmark_quick_runs():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hop_floor.py"), "--quick"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    # The floor runs exactly tcplab's events (the same packets, the same hops).
    assert "the floor ran" not in r.stderr, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith("tcplab core") for line in lines), r.stdout
    assert any(line.startswith("floor:") for line in lines), r.stdout
