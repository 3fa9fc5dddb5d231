"""`tcplab sweep` from a sweep file, `tcplab.sweep(...)`, `tcplab plot`."""
import json
import math
import re
import subprocess
import sys
import time

import pandas as pd
import pytest
from scipy import stats

import tcplab
from conftest import SCENARIOS

GRID = {"flow[*].transport": ["reno", "vegas"], "link[7].error.rate": [0.0, 0.02]}
METRICS = ["throughput_bps", "retransmits", "timeouts", "unfairness", "jain"]


def sweep_file(tmp_path, grid=None, extra="", name="s.toml"):
    grid = GRID if grid is None else grid
    lines = [f'scenario = "{SCENARIOS / "dumbbell.toml"}"', "seeds = 3", f"metrics = {json.dumps(METRICS)}",
             'overrides = ["sim.duration=10s"]', extra, "[grid]"]
    lines += [f'"{k}" = {json.dumps(v)}' for k, v in grid.items()]
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def tcplab_cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "tcplab", *map(str, args)], capture_output=True, text=True, **kw)


def test_sweep_file_writes_runs_and_summary(tmp_path):
    out = tmp_path / "out"
    r = tcplab_cli("sweep", sweep_file(tmp_path), "--jobs", "2", "--out", out)
    assert r.returncode == 0, r.stderr
    assert "12 runs" in r.stdout
    runs = pd.read_csv(out / "runs.csv")
    assert list(runs.columns[:3]) == ["flow[*].transport", "link[7].error.rate", "seed"]
    assert set(METRICS) | {"events"} <= set(runs.columns)
    assert len(runs) == 2 * 2 * 3
    pd.testing.assert_frame_equal(pd.read_parquet(out / "runs.parquet"), runs)
    summary = pd.read_csv(out / "summary.csv")
    assert len(summary) == 4
    # Every statistic recomputed here from the runs.
    for _, cell in summary.iterrows():
        d = runs[(runs["flow[*].transport"] == cell["flow[*].transport"])
                 & (runs["link[7].error.rate"] == cell["link[7].error.rate"])]
        for m in METRICS:
            x = d[m]
            half = stats.t.ppf(0.975, len(x) - 1) * x.std() / math.sqrt(len(x))
            assert cell[f"{m}_n"] == 3
            assert cell[f"{m}_mean"] == pytest.approx(x.mean(), rel=1e-12)
            assert cell[f"{m}_std"] == pytest.approx(x.std(), rel=1e-9, abs=1e-9)
            assert cell[f"{m}_ci95_low"] == pytest.approx(x.mean() - half, rel=1e-9, abs=1e-6)
            assert cell[f"{m}_ci95_high"] == pytest.approx(x.mean() + half, rel=1e-9, abs=1e-6)
    # tcplab.sweep.summarize_many gives summary.csv's table from runs.csv.
    from tcplab.sweep import summarize_many

    pd.testing.assert_frame_equal(summarize_many(runs, list(GRID), METRICS), summary, check_dtype=False,
                                  rtol=1e-12)
    # The swept values reached the simulator: Vegas and loss change the runs.
    by = summary.set_index(["flow[*].transport", "link[7].error.rate"])
    assert by.loc[("reno", 0.0), "retransmits_mean"] < by.loc[("reno", 0.02), "retransmits_mean"]
    assert by.loc[("reno", 0.02), "throughput_bps_mean"] != by.loc[("vegas", 0.02), "throughput_bps_mean"]
    # Replications that agree have a deviation of exactly zero.
    assert by.loc[("reno", 0.0), "jain_std"] == 0.0
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["grid"] == GRID and manifest["metrics"] == METRICS and manifest["seeds"] == [1, 2, 3]
    # A rerun finds every run stored, says so, and writes the same files.
    before = {f: (out / f).read_bytes() for f in ("runs.csv", "summary.csv", "runs.parquet")}
    r = tcplab_cli("sweep", sweep_file(tmp_path), "--out", out)
    assert r.returncode == 0, r.stderr
    assert "12 runs (0 run now, 12 stored)" in r.stdout
    assert before == {f: (out / f).read_bytes() for f in before}


def test_example_sweep_file_is_valid():
    from tcplab.sweepfile import load_sweep_file

    spec = load_sweep_file(SCENARIOS / "sweeps" / "dumbbell-loss.toml")
    assert len(spec.seeds) == 10 and list(spec.grid) == ["flow[*].transport", "link[7].error.rate"]


def test_api_mirrors_the_file_and_writes_the_same_files(tmp_path):
    r = tcplab_cli("sweep", sweep_file(tmp_path), "--jobs", "1", "--out", tmp_path / "cli", "-q")
    assert r.returncode == 0, r.stderr
    res = tcplab.sweep(SCENARIOS / "dumbbell.toml", GRID, seeds=3, metrics=METRICS, overrides=["sim.duration=10s"],
                       out=tmp_path / "api", name="s", jobs=2, progress=False)
    assert len(res.runs) == 12 and len(res.summary) == 4
    for f in ["runs.csv", "runs.parquet", "summary.csv", "sweep.json"]:
        if f == "sweep.json":  # the scenario is named by path in one, as a Path in the other
            a, b = (json.loads((tmp_path / d / f).read_text()) for d in ("cli", "api"))
            a.pop("scenario"), b.pop("scenario")
            assert a == b
        else:
            assert (tmp_path / "cli" / f).read_bytes() == (tmp_path / "api" / f).read_bytes(), f


def test_table_valued_grid_and_seed_list(tmp_path):
    grid = {"link[7].queue": [{"kind": "droptail", "limit": 5}, {"kind": "droptail", "limit": 50}]}
    res = tcplab.sweep(SCENARIOS / "dumbbell.toml", grid, seeds=[7, 9], metrics=["retransmits"],
                       overrides=["sim.duration=10s", "link[7].error.rate=0"], out=tmp_path, progress=False)
    assert list(res.runs.seed) == [7, 9, 7, 9]
    assert list(res.summary["link[7].queue"]) == ['{"kind":"droptail","limit":5}', '{"kind":"droptail","limit":50}']
    small, big = res.summary.retransmits_mean
    assert small > big  # the small buffer overflows


@pytest.mark.parametrize("grid,extra,expect", [
    ({"link[7].eror.rate": [0.1]}, "", 'grid."link[7].eror.rate"'),
    ({"link[7].error.rate": [0.1, 2.0]}, "", "link[7].error.rate"),
    ({"link[70].error.rate": [0.1]}, "", "index 70 out of range"),
    ({"flow[*].transport": ["reno", "quic"]}, "", "'quic'"),
    ({"flow[*].transport": []}, "", "non-empty list"),
    ({"flow[*].transport": ["reno", "reno"]}, "", "listed twice"),
    # One cell in the tables: 0 and 0.0 in a numeric column, 4 and "4" as text.
    ({"link[7].error.rate": [0, 0.0]}, "", "0 and 0.0 are one value in the result tables"),
    ({"flow[*].tcp.initial_window": [4, "4"]}, "", "4 and '4' are one value"),
    ({"seed": [1, 2]}, "", 'grid."seed"'),
    ({"sim.seed": [1, 2]}, "", 'grid."sim.seed": the sweep sets'),
    (None, 'colour = "red"', "colour: unknown key"),
    (None, "[other]", "other: unknown key"),
])
def test_bad_sweep_file_one_line_before_any_run(tmp_path, grid, extra, expect):
    out = tmp_path / "out"
    r = tcplab_cli("sweep", sweep_file(tmp_path, grid, extra), "--out", out)
    assert r.returncode == 2, r.stderr
    assert expect in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists(), "nothing is run or written"


@pytest.mark.parametrize("field,expect", [
    ("seeds = 0", "seeds"), ("seeds = [1, 1]", "seeds"), ('seeds = ["a"]', "seeds[0]"),
    ('metrics = ["throughput"]', "metrics[0]: unknown metric 'throughput'"), ("metrics = []", "metrics"),
    ('scenario = "nope.toml"', "no such scenario file"),
])
def test_bad_top_level_values(tmp_path, field, expect):
    p = tmp_path / "s.toml"
    lines = [f'scenario = "{SCENARIOS / "dumbbell.toml"}"', "seeds = 2", "[grid]", '"sim.duration" = ["1s"]']
    key = field.split(" = ")[0]
    lines = [ln for ln in lines if not ln.startswith(key + " =")]
    p.write_text(field + "\n" + "\n".join(lines) + "\n")
    r = tcplab_cli("sweep", p, "--out", tmp_path / "out")
    assert r.returncode == 2 and expect in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_jobs_and_scheduler_exclude_each_other(tmp_path):
    r = tcplab_cli("sweep", sweep_file(tmp_path), "--jobs", "2", "--scheduler", "tcp://127.0.0.1:1")
    assert r.returncode == 2 and "not allowed with" in r.stderr


def test_plot_writes_figures(tmp_path):
    out = tmp_path / "out"
    r = tcplab_cli("sweep", sweep_file(tmp_path), "--jobs", "2", "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    r = tcplab_cli("plot", out, "--x", "link[7].error.rate", "--y", "throughput_bps", "--hue", "flow[*].transport",
                   "--logx")
    assert r.returncode == 0, r.stderr
    png = out / "throughput_bps_vs_link[7].error.rate.png"
    assert r.stdout.strip() == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svgs = []
    for i in range(2):
        f = tmp_path / f"jain{i}.svg"
        r = tcplab_cli("plot", out, "--x", "flow[*].transport", "--y", "jain", "--where", "link[7].error.rate=0.02",
                       "--out", f)
        assert r.returncode == 0, r.stderr
        svgs.append(f.read_bytes())
    assert svgs[0].startswith(b"<?xml") and svgs[0] == svgs[1], "the same summary gives the same SVG"
    r = tcplab_cli("plot", out, "--x", "link[7].error.rate", "--y", "retransmits", "--out", tmp_path / "r.pdf",
                   "--where", "flow[*].transport=vegas")
    assert r.returncode == 0 and (tmp_path / "r.pdf").read_bytes()[:5] == b"%PDF-"


@pytest.mark.parametrize("args,expect", [
    (["--x", "link[7].error.rate", "--y", "goodput_bps"], "--y 'goodput_bps': not a metric of this sweep"),
    (["--x", "sim.duration", "--y", "jain"], "--x 'sim.duration': not a grid key"),
    (["--x", "link[7].error.rate", "--y", "jain"], "grid key 'flow[*].transport' has several values"),
    (["--x", "flow[*].transport", "--y", "jain", "--hue", "link[7].error.rate", "--logx"], "--logx"),
    (["--x", "link[7].error.rate", "--y", "jain", "--where", "flow[*].transport=bbr"], "reno, vegas"),
    (["--x", "link[7].error.rate", "--y", "jain", "--hue", "flow[*].transport", "--out", "f.gif"], "png, svg, pdf"),
])
def test_plot_bad_arguments(tmp_path, small_sweep_out, args, expect):
    r = tcplab_cli("plot", small_sweep_out, *args, cwd=tmp_path)
    assert r.returncode == 2 and expect in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not list(tmp_path.glob("*.gif")) and not list(small_sweep_out.glob("*.png"))


@pytest.fixture(scope="module")
def small_sweep_out(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("small")
    out = tmp / "out"
    r = tcplab_cli("sweep", sweep_file(tmp), "--jobs", "1", "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    return out


# A two-flow network that runs in milliseconds: a 1 MB transfer and a bulk
# flow (from 1 s) over a 1 Mbit/s bottleneck.
SMALL = """[sim]
duration = "5s"
[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"
[[link]]
between = ["a", "r"]
rate = "10Mbps"
delay = "1ms"
[[link]]
between = ["r", "b"]
rate = "1Mbps"
delay = "20ms"
error = { kind = "uniform", rate = 0.01 }
[[flow]]
name = "transfer"
from = "a"
to = "b"
transport = "newreno"
app = { kind = "transfer", bytes = 1000000 }
[[flow]]
name = "bulk"
from = "a"
to = "b"
transport = "tahoe"
app = { kind = "bulk", start = "1s" }
"""


def small_sweep(tmp_path, grid: str, extra: str = "", seeds=2, metrics=("throughput_bps",), name="s.toml"):
    """A sweep file over SMALL; `grid` is the [grid] table's TOML text."""
    (tmp_path / "small.toml").write_text(SMALL)
    p = tmp_path / name
    p.write_text(f'scenario = "small.toml"\nseeds = {seeds}\nmetrics = {json.dumps(list(metrics))}\n{extra}\n'
                 f"[grid]\n{grid}\n")
    return p


@pytest.mark.parametrize("key,values,shown", [
    ("flow[0].tcp.initial_window", '[1, 4, "rfc3390"]', ["1", "4", "rfc3390"]),
    ("link[0].delay", '[0, "10ms"]', ["0", "10ms"]),
    ("link[1].rate", '["1Mbps", 2000000]', ["1Mbps", "2000000"]),
])
def test_mixed_grid_values_are_written_as_text_everywhere(tmp_path, key, values, shown):
    out = tmp_path / "out"
    r = tcplab_cli("sweep", small_sweep(tmp_path, f'"{key}" = {values}'), "--jobs", "2", "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    runs = pd.read_csv(out / "runs.csv", dtype={key: str})
    assert list(dict.fromkeys(runs[key])) == shown
    pd.testing.assert_frame_equal(pd.read_parquet(out / "runs.parquet"), runs)
    assert list(pd.read_csv(out / "summary.csv", dtype={key: str})[key]) == shown
    assert json.loads((out / "sweep.json").read_text())["grid"][key] == json.loads(values)
    r = tcplab_cli("plot", out, "--x", key, "--y", "throughput_bps", "--out", tmp_path / "a.svg")
    assert r.returncode == 0, r.stderr
    r = tcplab_cli("plot", out, "--x", key, "--y", "throughput_bps", "--where", f"{key}={shown[0]}",
                   "--out", tmp_path / "b.svg")
    assert r.returncode == 0, r.stderr


def test_numeric_looking_text_stays_text_in_the_plot(tmp_path):
    # Flow names "1", "2" (as a mixed column's 1, "2" would be): read back
    # from CSV they would be numbers; the plot takes the column's type from
    # sweep.json.
    from tcplab.plot import _read

    out = tmp_path / "out"
    small_sweep(tmp_path, "")
    tcplab.sweep(tmp_path / "small.toml", {"flow[1].name": ["1", "2"]}, out=out, metrics=["throughput_bps"],
                 progress=False)
    _, summary = _read(out)
    assert list(summary["flow[1].name"]) == ["1", "2"]


def test_the_result_files_are_written_as_a_set(tmp_path, monkeypatch):
    """A failure while the tables are made leaves the files of the earlier
    sweep in that directory as they were, and none of the new ones."""
    small_sweep(tmp_path, "")
    sc = tcplab.load_scenario(tmp_path / "small.toml")
    out = tmp_path / "out"
    tcplab.sweep(sc, {"link[1].error.rate": [0.0]}, out=out, metrics=["throughput_bps"], progress=False)
    names = ["runs.csv", "runs.parquet", "summary.csv", "sweep.json"]
    before = {n: (out / n).read_bytes() for n in names}

    def broken(self, *a, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", broken)
    with pytest.raises(OSError):
        tcplab.sweep(sc, {"link[1].error.rate": [0.0, 0.05]}, out=out, metrics=["throughput_bps"], progress=False)
    assert {n: (out / n).read_bytes() for n in names} == before
    assert not list(out.glob(".*.tmp"))
    with pytest.raises(OSError):
        tcplab.sweep(sc, {"link[1].error.rate": [0.0]}, out=tmp_path / "new", metrics=["throughput_bps"],
                     progress=False)
    assert sorted(p.name for p in (tmp_path / "new").iterdir()) == ["runs"], "no table of a failed sweep"


@pytest.mark.parametrize("grid,overrides,expect", [
    # Grid keys that set an entry in common: each run kept the later value
    # while the rows showed both.
    ('"link[1].error.rate" = [0.0, 0.05]\n"link[1].error" = [{kind="uniform", rate=0.2}]', [],
     'grid."link[1].error.rate" and grid."link[1].error" set the same entry'),
    ('"flow[0].transport" = ["reno", "vegas"]\n"flow[*].transport" = ["newreno", "sack"]', [],
     'grid."flow[0].transport" and grid."flow[*].transport" set the same entry'),
    ('"flow[*].tcp" = [{initial_window=4}]\n"flow[1].tcp.initial_window" = [1, 2]', [],
     'grid."flow[*].tcp" and grid."flow[1].tcp.initial_window"'),
    ('"flow.0.transport" = ["reno"]\n"flow[0].transport" = ["vegas"]', [], 'grid."flow.0.transport" and'),
    # An override that a grid key replaces in every run.
    ('"link[1].error" = [{kind="uniform", rate=0.2}]', ["link[1].error.rate=0.1"],
     """overrides[0] 'link[1].error.rate=0.1': replaced in every run by grid."link[1].error\""""),
    ('"flow[*].transport" = ["reno", "vegas"]', ["flow[0].transport=sack"], "overrides[0]"),
    # A seed set elsewhere than in seeds was replaced by the sweep's.
    ('"flow[*].transport" = ["reno"]', ["sim.seed=7"], "overrides[0] 'sim.seed=7': sets sim.seed; the sweep sets"),
    ('"flow[*].transport" = ["reno"]', ['sim={duration="2s", seed=7}'], "overrides[0]"),
    ('"sim" = [{duration="5s", seed=9}]', [], 'grid."sim" = {"duration": "5s", "seed": 9}: sets sim.seed'),
])
def test_a_value_a_run_would_not_use_is_refused(tmp_path, grid, overrides, expect):
    out = tmp_path / "out"
    p = small_sweep(tmp_path, grid, f"overrides = {json.dumps(overrides)}")
    r = tcplab_cli("sweep", p, "--out", out)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"tcplab: error: {p}: {expect}") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()


@pytest.mark.parametrize("grid,overrides", [
    # Refinements keep their meaning: an override for every flow, one flow
    # swept; a table set by override, one of its fields swept.
    ('"flow[0].transport" = ["reno", "vegas"]', ["flow[*].transport=sack"]),
    ('"link[1].error.rate" = [0.0, 0.1]', ['link[1].error={kind="uniform", rate=0.5, direction="forward"}']),
    ('"flow[0].transport" = ["reno"]\n"flow[1].transport" = ["sack"]', []),
])
def test_overrides_refined_by_the_grid_are_allowed(tmp_path, grid, overrides):
    r = tcplab_cli("sweep", small_sweep(tmp_path, grid, f"overrides = {json.dumps(overrides)}", seeds=1),
                   "--out", tmp_path / "out", "-q")
    assert r.returncode == 0, r.stderr


def test_completion_and_first_bytes_count_only_the_flows_they_apply_to(tmp_path):
    # SMALL: a 1 MB transfer (about 15 s sharing 1 Mbit/s) and a bulk flow.
    small_sweep(tmp_path, "")
    metrics = ["completion_s", "first_bytes_s", "throughput_bps"]

    def sweep(name, overrides, grid=None):
        return tcplab.sweep(tmp_path / "small.toml", grid or {"link[1].error.rate": [0.0]}, seeds=1,
                            metrics=metrics, overrides=overrides, out=tmp_path / name, progress=False).runs.iloc[0]

    done = sweep("done", ["sim.duration=30s"])
    assert 8 < done.completion_s < 25  # the bulk flow does not make it NaN
    assert math.isnan(done.first_bytes_s)  # no flow sets first_bytes
    first = sweep("first", ["sim.duration=30s", "flow[0].first_bytes=20000"])
    assert 0 < first.first_bytes_s < first.completion_s
    unfinished = sweep("unfinished", ["sim.duration=3s", "flow[0].first_bytes=20000"])
    assert math.isnan(unfinished.completion_s) and unfinished.first_bytes_s > 0
    bulk = sweep("bulk", ["sim.duration=3s"], {"flow[0].app": [{"kind": "bulk"}]})
    assert math.isnan(bulk.completion_s)  # no transfer at all


def test_records_of_an_older_metric_definition_are_redone(tmp_path):
    out = tmp_path / "out"
    p = small_sweep(tmp_path, '"link[1].error.rate" = [0.0]', metrics=["completion_s", "throughput_bps"])
    r = tcplab_cli("sweep", p, "--out", out, "-q")
    assert r.returncode == 0, r.stderr
    good = (out / "runs.csv").read_text()
    for f in (out / "runs").glob("*.json"):  # as the previous definition stored them
        row = json.loads(f.read_text())
        del row["_metric_revisions"]
        row["completion_s"] = None
        f.write_text(json.dumps(row))
    r = tcplab_cli("sweep", p, "--out", out)
    assert r.returncode == 0 and "2 runs," in r.stdout and "stored" not in r.stdout, r.stdout  # both redone
    assert (out / "runs.csv").read_text() == good
    # A sweep that asks only for unchanged metrics reuses them.
    p = small_sweep(tmp_path, '"link[1].error.rate" = [0.0]', metrics=["throughput_bps"])
    r = tcplab_cli("sweep", p, "--out", out)
    assert "2 runs (0 run now, 2 stored)" in r.stdout, r.stdout


def test_plot_of_a_metric_without_values_says_so(tmp_path):
    out = tmp_path / "out"
    p = small_sweep(tmp_path, '"link[1].error.rate" = [0.0, 0.01]', metrics=["first_bytes_s"])
    assert tcplab_cli("sweep", p, "--out", out, "-q").returncode == 0
    r = tcplab_cli("plot", out, "--x", "link[1].error.rate", "--y", "first_bytes_s")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--y 'first_bytes_s': no value to draw" in r.stderr
    assert not list(out.glob("*.png"))


def test_total_throughput_never_exceeds_the_bottleneck(tmp_path):
    # The transfer finishes about half-way, the bulk flow runs on: the sum
    # of their rates (each over its own active time) was 1.2 Mbit/s on a
    # 1 Mbit/s link.
    small_sweep(tmp_path, "")
    metrics = ["total_throughput_bps", "throughput_bps"]
    res = tcplab.sweep(tmp_path / "small.toml", {"link[1].error.rate": [0.0, 0.01]}, seeds=2, metrics=metrics,
                       overrides=["sim.duration=30s"], out=tmp_path / "both", progress=False)
    assert (res.runs.total_throughput_bps <= 1e6).all() and (res.runs.total_throughput_bps > 0.8e6).all()
    # A lone transfer: its own throughput.
    res = tcplab.sweep(tmp_path / "small.toml", {"flow[1].app.start": ["40s"]}, seeds=1, metrics=metrics,
                       overrides=["sim.duration=30s"], out=tmp_path / "one", progress=False)
    run = res.runs.iloc[0]
    # (throughput_bps is the mean over both flows, one of them never started)
    assert run.total_throughput_bps == pytest.approx(2 * run.throughput_bps, rel=1e-9)


@pytest.mark.parametrize("address", ["tcp://localhost", "bogus", "localhost:8786x", "tcp://h:99999", "ucx://h:1"])
@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_malformed_scheduler_address_fails_at_once(tmp_path, address, command):
    # A Dask Client given such an address raised, then spent 20 s closing
    # itself at exit and printed a 9-line traceback.
    target = [small_sweep(tmp_path, '"link[1].error.rate" = [0.0]')] if command == "sweep" else ["gsmlink", "--quick"]
    t0 = time.monotonic()
    r = tcplab_cli(command, *target, "--scheduler", address, "--out", tmp_path / "out", timeout=60)
    assert time.monotonic() - t0 < 10
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"tcplab: error: --scheduler {address!r}: expected") and "tcp://" in r.stderr
    assert not (tmp_path / "out").exists()


def test_malformed_scheduler_address_from_python(tmp_path):
    small_sweep(tmp_path, "")
    with pytest.raises(tcplab.ScenarioError, match="--scheduler 'bogus': expected"):
        tcplab.sweep(tmp_path / "small.toml", {"link[1].error.rate": [0.0]}, out=tmp_path / "out", scheduler="bogus",
                     progress=False)


@pytest.mark.parametrize("jobs", [-1, 0, "2", 1.5, True])
def test_bad_jobs_from_python_are_refused_before_anything_is_written(tmp_path, jobs):
    # jobs=-1 raised concurrent.futures' ValueError and jobs="2" a TypeError,
    # both after making OUT/runs/.
    small_sweep(tmp_path, "")
    with pytest.raises(tcplab.ScenarioError, match=f"^jobs must be a positive integer, got {re.escape(repr(jobs))}$"):
        tcplab.sweep(tmp_path / "small.toml", {"link[1].error.rate": [0.0]}, out=tmp_path / "out", jobs=jobs,
                     progress=False)
    from tcplab.sweep import Sweep

    sw = Sweep(lambda p: tcplab.load_scenario(tmp_path / "small.toml"), {"x": [1]}, 1, tmp_path / "out2")
    with pytest.raises(tcplab.ScenarioError, match="^jobs must be a positive integer"):
        sw.run(jobs=jobs, progress=False)
    assert not (tmp_path / "out").exists() and not (tmp_path / "out2").exists()


def test_bad_scheduler_is_refused_even_when_every_run_is_stored(tmp_path):
    small_sweep(tmp_path, "")
    args = (tmp_path / "small.toml", {"link[1].error.rate": [0.0]})
    tcplab.sweep(*args, out=tmp_path / "out", jobs=1, progress=False)
    with pytest.raises(tcplab.ScenarioError, match="--scheduler 'bogus': expected"):
        tcplab.sweep(*args, out=tmp_path / "out", scheduler="bogus", progress=False)
    # numpy integers are integers
    import numpy as np

    assert len(tcplab.sweep(*args, out=tmp_path / "out", jobs=np.int64(2), progress=False).runs) == 1


@pytest.mark.parametrize("command", ["sweep", "reproduce", "plot"])
@pytest.mark.parametrize("out", ["/proc/x", "afile/sub", ""])
def test_unusable_out_is_refused_before_any_run(tmp_path, command, out):
    # sweep and reproduce failed with "cannot write results" (exit 1), sweep
    # after its first run; sweep took --out "" for the default directory.
    (tmp_path / "afile").write_text("keep")
    if command == "plot":
        sweep_out = tmp_path / "done"
        r = tcplab_cli("sweep", small_sweep(tmp_path, '"link[1].error.rate" = [0.0]', seeds=1), "--out", sweep_out,
                       "-q")
        assert r.returncode == 0, r.stderr
        args = ["plot", sweep_out, "--x", "link[1].error.rate", "--y", "throughput_bps", "--out",
                f"{out}/p.png" if out else ""]
    elif command == "sweep":
        args = ["sweep", small_sweep(tmp_path, '"link[1].error.rate" = [0.0]'), "--out", out]
    else:
        args = ["reproduce", "gsmlink", "--quick", "--out", out]
    before = sorted(p.name for p in tmp_path.iterdir())
    t0 = time.monotonic()
    r = tcplab_cli(*args, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("tcplab: error: --out"), r.stderr
    assert time.monotonic() - t0 < 10, "no run before the check"
    assert sorted(p.name for p in tmp_path.iterdir()) == before and (tmp_path / "afile").read_text() == "keep"


@pytest.mark.parametrize("seeds,grid,expect", [
    # Checked by the sweep, not the file reader, these lacked the file name.
    ("[1, 1]", '"link[1].error.rate" = [0.0]', "seeds[1]: the seed 1 is listed twice"),
    ('[1, "a"]', '"link[1].error.rate" = [0.0]', "seeds[1]: expected a non-negative integer, got 'a'"),
    ("2", '"link[1].error.rate" = [0.0, 0.0]', 'grid."link[1].error.rate": the value 0.0 is listed twice'),
    # TOML reads an unquoted dotted key as a table.
    ("2", 'sim.duration = ["1s", "2s"]', 'grid."sim": expected a list of values, got a table; quote a key path: '
                                         '"sim.duration" = [...]'),
])
def test_sweep_file_errors_name_the_file_and_quote_the_key(tmp_path, seeds, grid, expect):
    p = small_sweep(tmp_path, grid, seeds=seeds)
    r = tcplab_cli("sweep", p, "--out", tmp_path / "out")
    assert r.returncode == 2 and r.stderr.strip() == f"tcplab: error: {p}: {expect}", r.stderr
    assert not (tmp_path / "out").exists()
