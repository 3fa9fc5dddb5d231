import json
import math
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from tcplab.sweep import STATS, Sweep, summarize, summarize_many, t95


def tiny(params):
    return {
        "sim": {"duration": "5s"},
        "node": [{"name": "a"}, {"name": "b"}],
        "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "10ms",
                  "error": {"kind": "uniform", "rate": params["loss"]}}],
        "flow": [{"from": "a", "to": "b", "transport": params["variant"], "app": {"kind": "bulk"}}],
    }


def test_sweep_grid_seeds_and_summary(tmp_path):
    sw = Sweep(tiny, {"variant": ["reno", "vegas"], "loss": [0.0, 0.05]}, seeds=3, out=tmp_path, name="t")
    runs = sw.run(jobs=2, progress=False)
    assert len(runs) == 2 * 2 * 3
    assert list(runs.columns[:3]) == ["variant", "loss", "seed"]
    assert {"throughput_bps", "unfairness", "jain", "retransmits"} <= set(runs.columns)
    s = summarize(runs, ["variant", "loss"], "throughput_bps")
    # The columns of a sweep's summary.csv (docs/sweeps.md), not the
    # metric's own name for its mean and a bare `n` as before 2026-12.
    assert list(s.columns) == ["variant", "loss", "throughput_bps_mean", "throughput_bps_std",
                               "throughput_bps_ci95_low", "throughput_bps_ci95_high", "throughput_bps_n"]
    assert len(s) == 4 and (s.throughput_bps_n == 3).all()
    cell = runs[(runs.variant == "reno") & (runs.loss == 0.05)].throughput_bps
    half = t95(2) * cell.std() / math.sqrt(3)
    assert s.iloc[1].throughput_bps_mean == pytest.approx(cell.mean())
    assert s.iloc[1].throughput_bps_std == pytest.approx(cell.std())
    assert s.iloc[1].throughput_bps_ci95_low == pytest.approx(cell.mean() - half)
    assert s.iloc[1].throughput_bps_ci95_high == pytest.approx(cell.mean() + half)
    # Without loss every seed gives the same run: zero width, exactly.
    assert s.iloc[0].throughput_bps_std == 0
    assert s.iloc[0].throughput_bps_ci95_low == s.iloc[0].throughput_bps_mean == s.iloc[0].throughput_bps_ci95_high
    # summarize_many: the same columns per measure, side by side; `by` may be one key.
    many = summarize_many(runs, ["variant", "loss"], ["throughput_bps", "jain"])
    pd.testing.assert_frame_equal(many[list(s.columns)], s)
    assert [c for c in many.columns if c.startswith("jain")] == [f"jain_{x}" for x in STATS]
    assert list(summarize(runs, "variant", "jain").variant) == ["reno", "vegas"]
    # A second call finds everything stored and runs nothing.
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").iterdir()}
    again = sw.run(jobs=2, progress=False)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").iterdir()} == before
    pd.testing.assert_frame_equal(runs, again)


def test_parallel_and_serial_give_the_same_table(tmp_path):
    grid = {"variant": ["newreno"], "loss": [0.01, 0.02]}
    a = Sweep(tiny, grid, seeds=2, out=tmp_path / "a").run(jobs=2, progress=False)
    b = Sweep(tiny, grid, seeds=2, out=tmp_path / "b").run(jobs=1, progress=False)
    pd.testing.assert_frame_equal(a, b)


def test_a_builder_with_a_seed_parameter_gets_the_seed(tmp_path):
    seen = []

    def build(params, seed):
        seen.append(seed)
        sc = tiny(params)
        sc["flow"][0]["app"]["start"] = f"{seed / 10}s"  # an input drawn per seed
        return sc

    runs = Sweep(build, {"variant": ["reno"], "loss": [0.0]}, seeds=[3, 5], out=tmp_path).run(jobs=1, progress=False)
    assert sorted(set(seen)) == [3, 5]
    assert len(runs) == 2 and runs.throughput_bps.iloc[0] != runs.throughput_bps.iloc[1]


def test_bad_grid_is_rejected(tmp_path):
    import tcplab
    with pytest.raises(tcplab.ScenarioError, match='grid."loss": expected a non-empty list'):
        Sweep(tiny, {"variant": ["reno"], "loss": []}, seeds=1, out=tmp_path)
    with pytest.raises(tcplab.ScenarioError, match="flow\\[0\\].transport"):
        Sweep(tiny, {"variant": ["quic"], "loss": [0.0]}, seeds=1, out=tmp_path).run(progress=False)


def reproduce(out, *extra):
    return [sys.executable, "-m", "tcplab", "reproduce", "basestation", "--quick", "--out", str(out), *extra]


def test_interrupted_study_resumes_without_redoing_work(tmp_path):
    out = tmp_path / "interrupted"
    runs_dir = out / "runs"
    p = subprocess.Popen(reproduce(out, "--jobs", "1", "-q"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        if runs_dir.exists() and len(list(runs_dir.glob("*.json"))) >= 40:
            break
        time.sleep(0.02)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    done = {f.name: f.stat().st_mtime_ns for f in runs_dir.glob("*.json")}
    assert 40 <= len(done) < 160, "killed half way"
    for f in runs_dir.glob("*.json"):
        json.loads(f.read_text())  # every stored run is whole
    # What a crash can leave besides: a temporary file, and (power loss
    # without a synced directory, a disk error) a torn record.
    (runs_dir / ".leftover.json.x1y2.tmp").write_text('{"seed": 1, "thr')
    torn = sorted(done)[0]
    (runs_dir / torn).write_text('{"seed": 1, "throughput_b')
    r = subprocess.run(reproduce(out, "-q"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    after = {f.name: f.stat().st_mtime_ns for f in runs_dir.glob("*.json")}
    assert len(after) == 160
    assert all(after[n] == t for n, t in done.items() if n != torn), "stored runs were not redone"
    assert after[torn] != done[torn], "the torn record was redone"
    json.loads((runs_dir / torn).read_text())
    assert not list(runs_dir.glob(".*.tmp")), "leftover temporary files are removed on resume"
    clean = tmp_path / "clean"
    r = subprocess.run(reproduce(clean, "-q"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ["throughput.csv", "unfairness.csv", "runs.csv"]:
        assert (out / name).read_text() == (clean / name).read_text(), name


def test_quick_study_writes_every_file(tmp_path):
    r = subprocess.run(reproduce(tmp_path), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # The study's grid (160 runs) and its three added experiments (160 each).
    assert "640 runs" in r.stdout
    for name in ["throughput.csv", "unfairness.csv", "runs.csv"] + [
            f"{f}.{e}" for f in ("throughput_by_mechanism", "throughput_by_variant", "unfairness")
            for e in ("png", "svg")]:
        assert (tmp_path / name).stat().st_size > 0, name
    thr = pd.read_csv(tmp_path / "throughput.csv")
    assert set(thr.variant) == {"tahoe", "reno", "newreno", "vegas"}
    assert set(thr.mechanism) == {"plain", "eln", "snoop", "snoop+eln"}
    assert {"throughput_bps", "throughput_bps_ci95", "n"} <= set(thr.columns)
    # The study's own finding, from the simulation: at 5 % loss Snoop helps Reno.
    at = thr[(thr.variant == "reno") & (thr.error_rate == 0.05)].set_index("mechanism").throughput_bps
    assert at["snoop"] > at["plain"]


@pytest.mark.parametrize("args,expect", [
    (["reproduce", "nosuchstudy"], "invalid choice"),
    (["reproduce", "basestation", "--jobs", "0"], "--jobs"),
])
def test_reproduce_bad_flags(args, expect):
    r = subprocess.run([sys.executable, "-m", "tcplab", *args], capture_output=True, text=True)
    assert r.returncode == 2 and expect in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_t95_is_the_student_t_quantile():
    assert t95(1) == pytest.approx(12.7062047, rel=1e-7)
    assert t95(4) == pytest.approx(2.7764451, rel=1e-7)
    assert t95(100) == pytest.approx(1.9839715, rel=1e-7)  # not the normal 1.96
    assert math.isnan(t95(0))


def _by_name(params, flows):  # parameters in any order: chosen by name
    return {"loss_seen": params["loss"], "flows_seen": len(flows["flow"])}


def _traced(p):
    sc = tiny(p)
    sc["output"] = {"trace": True}
    return sc


def _trace_len(trace, summary):
    return {"trace_rows": len(trace["time_s"]) if trace else -1, "events_seen": summary["events"]}


def test_metrics_get_their_inputs_by_parameter_name(tmp_path):
    grid = {"variant": ["reno"], "loss": [0.0, 0.02]}
    runs = Sweep(tiny, grid, seeds=1, out=tmp_path / "a", metrics=_by_name).run(jobs=1, progress=False)
    assert list(runs.loss_seen) == [0.0, 0.02] and list(runs.flows_seen) == [1, 1]
    runs = Sweep(_traced, grid, seeds=1, out=tmp_path / "b", metrics=_trace_len).run(jobs=2, progress=False)
    assert (runs.trace_rows > 0).all() and (runs.events_seen == runs.events).all()
    runs = Sweep(tiny, grid, seeds=1, out=tmp_path / "c", metrics=["jain", "timeouts"]).run(progress=False)
    assert set(runs.columns) == {"variant", "loss", "seed", "jain", "timeouts", "events"}
    with pytest.raises(TypeError, match="'f'"):
        Sweep(tiny, grid, seeds=1, out=tmp_path, metrics=lambda f, s: {})
    import tcplab
    with pytest.raises(tcplab.ScenarioError, match=r"metrics\[1\].*'jian'"):
        Sweep(tiny, grid, seeds=1, out=tmp_path, metrics=["jain", "jian"])


def test_rows_follow_the_grid_order_not_the_value_order(tmp_path):
    grid = {"variant": ["vegas", "reno"], "loss": [0.02, 0.0]}
    runs = Sweep(tiny, grid, seeds=[3, 1], out=tmp_path).run(jobs=2, progress=False)
    assert list(zip(runs.variant, runs.loss, runs.seed)) == [
        (v, x, s) for v in ["vegas", "reno"] for x in [0.02, 0.0] for s in [3, 1]]


def test_a_changed_metrics_function_redoes_the_runs(tmp_path):
    """Stored records are reused only when measured by the same metrics
    function: a changed one runs again instead of returning stale values
    (and an unchanged one, in a new Sweep, reuses them)."""
    grid = {"variant": ["newreno"], "loss": [0.0]}

    def first(flows):
        return {"x": 1}

    def second(flows):
        return {"x": 2, "y": 3}

    a = Sweep(tiny, grid, seeds=2, out=tmp_path, metrics=first).run(jobs=1, progress=False)
    assert list(a.x) == [1, 1] and "_metrics_fingerprint" not in a.columns
    b = Sweep(tiny, grid, seeds=2, out=tmp_path, metrics=second).run(jobs=1, progress=False)
    assert list(b.x) == [2, 2] and list(b.y) == [3, 3]
    stored = {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").iterdir()}
    c = Sweep(tiny, grid, seeds=2, out=tmp_path, metrics=second).run(jobs=1, progress=False)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").iterdir()} == stored
    pd.testing.assert_frame_equal(b, c)


def test_runs_of_another_simulator_build_are_redone(tmp_path):
    """A stored run is reused only if the same compiled core made it: after
    an upgrade that moves results, a resumed sweep must not mix versions."""
    import json
    grid = {"variant": ["newreno"], "loss": [0.0]}
    a = Sweep(tiny, grid, seeds=1, out=tmp_path).run(jobs=1, progress=False)
    assert "_core" not in a.columns
    (record,) = (tmp_path / "runs").iterdir()
    row = json.loads(record.read_text())
    assert row["_core"]
    row["_core"], row["throughput_bps"] = "another-build", -1.0
    record.write_text(json.dumps(row))
    b = Sweep(tiny, grid, seeds=1, out=tmp_path).run(jobs=1, progress=False)
    assert list(b.throughput_bps) == list(a.throughput_bps), "the stale record was redone, not read"


def test_ctrl_c_right_after_a_records_rename_is_counted(tmp_path, monkeypatch):
    """Ctrl-C between a record's rename and its count: the interruption's
    count and the command's tally both say what is on disk (CI once printed
    12 saved with 13 records there)."""
    sweep_mod = sys.modules["tcplab.sweep"]  # `tcplab.sweep` is also a function

    real_write = sweep_mod._write_record
    written = []

    def write_then_interrupt(path, row):
        real_write(path, row)
        written.append(path)
        if len(written) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(sweep_mod, "_write_record", write_then_interrupt)
    sw = Sweep(tiny, {"variant": ["reno"], "loss": [0.0, 0.01, 0.02]}, seeds=1, out=tmp_path, name="t")
    with sweep_mod.tally() as t, pytest.raises(sweep_mod.SweepInterrupted) as e:
        sw.run(jobs=1, progress=False)
    on_disk = len(list((tmp_path / "runs").glob("*.json")))
    assert on_disk == 2
    assert e.value.saved == t.saved == on_disk
