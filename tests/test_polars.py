"""Results as polars DataFrames (SPEC 7: "pandas/polars DataFrames"):
`Result.to_polars(name)` and `SweepResult.to_polars(name)` give the same
columns, values and nulls as the pandas tables, with the core's types."""
from __future__ import annotations

import math

import pytest

import tcplab

pl = pytest.importorskip("polars")


def same_values(p, d) -> None:
    """polars frame `p` holds what pandas frame `d` holds, column by column
    (NaN or None in pandas is null in polars)."""
    assert list(p.columns) == list(d.columns)
    assert p.height == len(d)
    for c in d.columns:
        for a, b in zip(p[c].to_list(), d[c].tolist()):
            if b is None or (isinstance(b, float) and math.isnan(b)):
                assert a is None, (c, a, b)
            else:
                assert a == b, (c, a, b)


def test_every_table_of_a_run_in_memory_and_streamed(small_scenario):
    # The linux profile leaves ssthresh unset at first: nulls in the series
    # and in the flows' mean ssthresh of a flow without loss.
    small_scenario["sim"]["tcp_profile"] = "linux"
    res = tcplab.run(small_scenario, sample_interval="500ms", trace=True)
    assert res.file("series") and res.file("trace"), "the series and the trace are streamed to files"
    for name in tcplab.Result.TABLES:
        same_values(res.to_polars(name), getattr(res, name))
    f = res.to_polars("flows")
    assert f.schema["flow"] == pl.String and f.schema["retransmits"] == pl.Int64
    assert f.schema["goodput_bps"] == pl.Float64
    s = res.to_polars("series")
    assert s.schema["ssthresh_bytes"] == pl.Int64, "integers with nulls (pandas makes them floats)"
    assert s["ssthresh_bytes"].null_count() > 0 and s["ssthresh_bytes"].drop_nulls().len() > 0
    assert res.to_polars("trace").filter(pl.col("kind") == "retransmit").height > 0


def test_a_wireless_runs_nodes_table():
    from conftest import SCENARIOS

    res = tcplab.run(SCENARIOS / "hidden-terminal.toml")
    p = res.to_polars("nodes")
    same_values(p, res.nodes)
    assert p.height == len(res.nodes) >= 3 and p["data_frames"].sum() > 0


def test_an_unknown_table_names_the_allowed_ones(small_scenario):
    res = tcplab.run(small_scenario)
    with pytest.raises(ValueError, match="flows, links, nodes, series, queues, trace"):
        res.to_polars("flow")


def test_a_sweeps_runs_and_summary(tmp_path, small_scenario):
    out = tcplab.sweep(small_scenario, {"link[1].delay": ["10ms", "40ms"]}, seeds=2, overrides=["sim.duration=5s"],
                       out=tmp_path / "sw", progress=False, jobs=1)
    runs = out.to_polars()
    assert runs.height == 4
    same_values(runs, out.runs)
    same_values(out.to_polars("summary"), out.summary)
    with pytest.raises(ValueError, match="runs, summary"):
        out.to_polars("flows")
