"""`tcplab plot` on a small synthetic sweep output (no runs): confidence
bands are clipped to the metric's valid range and the y axis is fitted to
the data, not forced down to 0 (issue 16)."""
import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tcplab.plot import plot  # noqa: E402

KEY = "link[3].error.rate"


def sweep_out(tmp_path, rows):
    """A sweep directory as tcplab sweep writes it: sweep.json and
    summary.csv with <metric>_mean/_std/_ci95_low/_ci95_high/_n columns."""
    metrics = sorted({k.rsplit("_", 1)[0] for r in rows for k in r if k.endswith("_mean")})
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"name": "synthetic", "grid": {KEY: [r[KEY] for r in rows]}, "metrics": metrics}))
    table = pd.DataFrame(rows)
    for m in metrics:
        table[f"{m}_std"] = 1.0
        table[f"{m}_n"] = 3
    table.to_csv(tmp_path / "summary.csv", index=False)
    return tmp_path


@pytest.fixture
def figures(monkeypatch):
    """The figures plot() draws, kept open for inspection."""
    kept = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    yield kept
    for f in kept:
        close(f)


def band_and_line(fig):
    ax = fig.axes[0]
    (band,) = ax.collections
    ys = np.concatenate([p.vertices[:, 1] for p in band.get_paths()])
    (line,) = ax.get_lines()
    return ax, ys, np.asarray(line.get_ydata(), dtype=float)


def test_band_clipped_at_the_metric_bounds(tmp_path, figures):
    # retransmits >= 0: few runs, large spread, the 95 % interval dips below 0.
    rows = [{KEY: 0.0, "retransmits_mean": 1.0, "retransmits_ci95_low": -2.5, "retransmits_ci95_high": 4.5},
            {KEY: 0.01, "retransmits_mean": 3.0, "retransmits_ci95_low": -1.0, "retransmits_ci95_high": 7.0},
            {KEY: 0.05, "retransmits_mean": 8.0, "retransmits_ci95_low": 5.0, "retransmits_ci95_high": 11.0}]
    out = sweep_out(tmp_path, rows)
    path = plot(out, KEY, "retransmits")
    assert path.exists()
    ax, ys, mean = band_and_line(figures[-1])
    assert ys.min() == 0.0  # clipped, not -2.5
    assert ys.max() == 11.0 and 5.0 in ys and 4.5 in ys  # the rest of the band as given
    assert list(mean) == [1.0, 3.0, 8.0]  # the means are not touched

    # Jain's index <= 1: the upper edge of the band stops at 1.
    rows = [{KEY: 0.0, "jain_mean": 0.97, "jain_ci95_low": 0.9, "jain_ci95_high": 1.04},
            {KEY: 0.05, "jain_mean": 0.8, "jain_ci95_low": 0.7, "jain_ci95_high": 0.9}]
    plot(sweep_out(tmp_path, rows), KEY, "jain", out=tmp_path / "jain.svg")
    ax, ys, mean = band_and_line(figures[-1])
    assert ys.max() == 1.0 and ys.min() == 0.7
    assert list(mean) == [0.97, 0.8]


def test_y_range_fitted_to_the_data(tmp_path, figures):
    # Throughputs 900-960 kb/s with narrow bands: the axis shows that range,
    # not 0 to 1 Mb/s where the differences would vanish.
    rows = [{KEY: r, "throughput_bps_mean": m, "throughput_bps_ci95_low": m - 5e3,
             "throughput_bps_ci95_high": m + 5e3} for r, m in [(0.0, 960e3), (0.01, 930e3), (0.05, 900e3)]]
    plot(sweep_out(tmp_path, rows), KEY, "throughput_bps", out=tmp_path / "t.png")
    ax, ys, mean = band_and_line(figures[-1])
    lo, hi = ax.get_ylim()
    assert 850e3 < lo < 895e3 and 965e3 < hi < 1010e3, (lo, hi)
    assert ys.min() == 895e3 and ys.max() == 965e3  # within the bound: nothing clipped


def bool_sweep_out(tmp_path):
    """A sweep over a boolean key and an error rate, as tcplab sweep writes
    it (pandas writes the booleans False/True into summary.csv)."""
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"name": "bools", "grid": {"flow[0].tcp.delayed_ack": [False, True], KEY: [0.0, 0.01]}, "metrics": ["jain"]}))
    rows = [{"flow[0].tcp.delayed_ack": a, KEY: r, "jain_mean": m, "jain_ci95_low": m - 0.01,
             "jain_ci95_high": m + 0.01, "jain_std": 0.01, "jain_n": 3}
            for a, r, m in [(False, 0.0, 0.9), (False, 0.01, 0.8), (True, 0.0, 0.7), (True, 0.01, 0.6)]]
    pd.DataFrame(rows).to_csv(tmp_path / "summary.csv", index=False)
    return tmp_path


@pytest.mark.parametrize("word,mean", [("true", [0.7, 0.6]), ("True", [0.7, 0.6]), ("false", [0.9, 0.8])])
def test_where_takes_toml_booleans(tmp_path, figures, word, mean):
    plot(bool_sweep_out(tmp_path), KEY, "jain", where=[f"flow[0].tcp.delayed_ack={word}"])
    _, _, ys = band_and_line(figures[-1])
    assert list(ys) == mean


def test_where_lists_booleans_as_they_are_typed(tmp_path):
    from tcplab.errors import ScenarioError

    with pytest.raises(ScenarioError, match="flow\\[0\\].tcp.delayed_ack takes false, true$"):
        plot(bool_sweep_out(tmp_path), KEY, "jain", where=["flow[0].tcp.delayed_ack=yes"])
    with pytest.raises(ScenarioError, match=r"has several values \(false, true\)"):
        plot(bool_sweep_out(tmp_path), KEY, "jain")


def test_boolean_axis_is_drawn_as_categories(tmp_path, figures):
    plot(bool_sweep_out(tmp_path), "flow[0].tcp.delayed_ack", "jain", hue=KEY)
    ax = figures[-1].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["false", "true"]
    assert [list(line.get_xdata()) for line in ax.get_lines()] == [[0, 1], [0, 1]]
    plot(bool_sweep_out(tmp_path), KEY, "jain", hue="flow[0].tcp.delayed_ack")
    labels = [t.get_text() for t in figures[-1].axes[0].get_legend().get_texts()]
    assert labels == ["flow[0].tcp.delayed_ack = false", "flow[0].tcp.delayed_ack = true"]


def test_table_values_on_the_x_axis_do_not_run_into_each_other(tmp_path, figures):
    # A grid over a table (`"link[1].forward.queue" = [{...}, ...]`): each
    # value is its compact JSON, one long word; on one line the labels of
    # neighbouring ticks overlapped and could not be read.
    key = "link[1].forward.queue"
    values = ['{"kind":"droptail","limit":7}', '{"kind":"unlimited"}',
              '{"kind":"red","limit":20,"max_p":0.1,"max_th":6,"min_th":2,"weight":0.2}']
    (tmp_path / "sweep.json").write_text(json.dumps(
        {"name": "queues", "grid": {key: [json.loads(v) for v in values]}, "metrics": ["jain"]}))
    pd.DataFrame([{key: v, "jain_mean": 0.9, "jain_ci95_low": 0.8, "jain_ci95_high": 1.0, "jain_std": 0.1,
                   "jain_n": 3} for v in values]).to_csv(tmp_path / "summary.csv", index=False)
    plot(tmp_path, key, "jain")
    fig = figures[-1]
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    labels = fig.axes[0].get_xticklabels()
    # The text is the value, only broken into lines after its commas.
    assert [t.get_text().replace("\n", "") for t in labels] == values
    boxes = [t.get_window_extent(r) for t in labels]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    page = fig.bbox
    assert all(page.x0 <= b.x0 and b.x1 <= page.x1 and page.y0 <= b.y0 for b in boxes)
