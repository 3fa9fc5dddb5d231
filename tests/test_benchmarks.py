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
    assert "issue 11's targets" not in r.stdout  # judged only by the full run


def test_hop_floor_benchmark_quick_runs():
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hop_floor.py"), "--quick"],
                       capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    # The floor runs exactly tcplab's events (the same packets, the same hops).
    assert "the floor ran" not in r.stderr, r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith("tcplab core") for line in lines), r.stdout
    assert any(line.startswith("floor:") for line in lines), r.stdout


def _scaling_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("scaling_bench", ROOT / "benchmarks" / "scaling.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return mod


def test_scaling_verdicts_judge_each_target_by_its_deciding_figure():
    verdicts = _scaling_module().verdicts

    def row(sim_ms, wall_ms, events, ns2_sim_ms, ns2_wall_ms):
        return ({"sim_s": sim_ms / 1e3, "wall_s": wall_ms / 1e3, "events": events},
                {"sim_s": ns2_sim_ms / 1e3, "wall_s": ns2_wall_ms / 1e3})

    # This machine's run of 2026-11-30 06:48 (docs/validation.md).
    rows = {1: row(2.5, 33, 80_000, 14, 57), 10: row(26, 60, 852_000, 169, 264),
            100: row(288, 323, 8_450_000, 2074, 2835), 1000: row(5135, 5736, 90_000_000, 65291, 122098)}
    assert verdicts(rows) == [
        "simulation at least 10x ns-2's at every N: NOT met (lowest 5.6x, N = 1)",
        "whole process faster than ns-2 at every N: met (lowest 1.73x, N = 1)",
        "whole process at least 10x ns-2's from N = 100 up: NOT met (lowest 8.78x, N = 100)",
        "cost per event from N = 10 to N = 1000 at most 1.5x: NOT met (31 -> 57 ns, 1.87x)",
    ]
    # Every target met, each just: each line says so.
    met = {1: row(1.4, 5, 80_000, 14, 57), 10: row(16.9, 26, 852_000, 169, 264),
           100: row(200, 283.5, 8_450_000, 2074, 2835), 1000: row(2670, 3000, 90_000_000, 65291, 122098)}
    assert [line.split(": ")[1].split(" (")[0] for line in verdicts(met)] == ["met"] * 4
    # Without ns-2 only the cost per event is judged; a quick run (N = 1, 10) judges no growth.
    assert [line.split(":")[0] for line in verdicts({n: (t, None) for n, (t, _) in rows.items()})] == \
        ["cost per event from N = 10 to N = 1000 at most 1.5x"]
    assert len(verdicts({n: rows[n] for n in (1, 10)})) == 2
