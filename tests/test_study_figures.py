"""The studies' figures drawn from small synthetic tables (no runs): every
panel's y axis holds all the means and confidence bars drawn in it, also
when the panels share the axis and a later panel has the larger values;
bars of a measure bounded below (unfairness, throughput) stop at the bound;
a cell whose mean is infinite is marked and named, not dropped silently."""
import math

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tcplab.studies import basestation as bs  # noqa: E402
from tcplab.studies import wifibs as wb  # noqa: E402
from tcplab.studies.figures import clipped_yerr  # noqa: E402


def data_ys(ax):
    """Every finite y value of the lines (markers, error-bar caps) and
    collections (error bars) that `ax` draws in data coordinates."""
    ys = []
    for line in ax.get_lines():
        if line.get_transform() == ax.transData:
            ys += [float(y) for y in np.ravel(line.get_ydata())]
    for coll in ax.collections:
        if coll.get_transform() == ax.transData:
            for seg in coll.get_segments():
                ys += [float(y) for y in np.asarray(seg).reshape(-1, 2)[:, 1]]
    return [y for y in ys if math.isfinite(y)]


def assert_all_shown(fig):
    drawn = 0
    for ax in fig.axes:
        ys = data_ys(ax)
        lo, hi = ax.get_ylim()
        assert all(lo <= y <= hi for y in ys), (ax.get_title(), (lo, hi), min(ys), max(ys))
        drawn += len(ys)
    assert drawn > 0


@pytest.fixture
def close_all():
    yield
    plt.close("all")


def test_clipped_yerr_stops_at_the_bounds():
    err = clipped_yerr([0.1, 0.5, math.inf, 0.9], [0.4, 0.2, math.nan, math.nan], low=0.0, high=1.0)
    # 0.1 +- 0.4 -> [0, 0.5]; 0.5 +- 0.2 inside; inf and a missing interval draw no bar.
    assert err.ravel().tolist() == pytest.approx([0.1, 0.2, 0.0, 0.0, 0.4, 0.2, 0.0, 0.0])


def test_wifibs_time_series_panels_show_every_line(close_all):
    # The first panel (Tahoe) has the smallest values: with limits set per
    # panel on the shared axis, the later panels were cut at its top.
    t = np.arange(30, dtype=float)
    series = {("uni", v, s): (i + 1) * 10 * (1 + np.sin(t + i)) + (5 if s else 0)
              for i, v in enumerate(wb.VARIANTS) for s in (False, True)}
    fig = wb._series_figure(plt, series, "uni", 1.0, "cwnd (segments)", "synthetic")
    assert_all_shown(fig)
    assert fig.axes[0].get_ylim()[0] == 0
    assert fig.axes[0].get_ylim()[1] >= max(a.max() for a in series.values())


def test_wifibs_goodput_panels_show_every_point_and_bar(close_all):
    rows = [{"direction": "bi", "variant": v, "snoop": s, "error": e,
             "goodput_bps": 4e5 + 5e4 * i + (3e5 if (s and v == "e-newreno" and e == 0.0) else 0) - 1e6 * e,
             "goodput_bps_ci95": 4e4 if e else math.nan}
            for i, v in enumerate(wb.VARIANTS) for s in (False, True) for e in wb.ERRORS]
    summary = pd.DataFrame(rows)
    fig = wb._goodput_vs_error(plt, summary, "bi")
    assert_all_shown(fig)
    top = (summary.goodput_bps + summary.goodput_bps_ci95.fillna(0)).max() / 1e3
    assert fig.axes[0].get_ylim()[1] >= top


def basestation_tables():
    """Summary tables shaped as basestation.tables and experiment_tables
    make them: wide intervals around small unfairness means (they would
    reach below 0), one infinite unfairness (Reno, Snoop, 5 %) and
    throughput intervals whose upper ends exceed every mean."""
    rng = np.random.default_rng(1)
    cells = [(v, m, r) for v in bs.VARIANTS for m in bs.MECHANISMS for r in bs.QUICK_ERROR_RATES]

    def table(extra=None):
        rows = []
        for v, m, r in cells:
            unf = math.inf if (v, m, r) == ("reno", "snoop", 0.05) else float(rng.uniform(0.01, 0.5))
            row = {"variant": v, "mechanism": m, "error_rate": r, "n": 5,
                   "throughput_bps": 385e3 * (1 - 3 * r) - (40e3 if v == "vegas" else 0),
                   "throughput_bps_ci95": 30e3, "unfairness": unf,
                   "unfairness_ci95": math.nan if math.isinf(unf) else 4 * unf}
            row.update({f"throughput_{i}_bps": row["throughput_bps"] * (1.2 - 0.1 * i) for i in range(1, 6)})
            rows.append({**(extra or {}), **row})
        return pd.DataFrame(rows)

    thr, unf = table(), table()
    exp = pd.concat([table({"experiment": e}) for e in bs.EXPERIMENTS], ignore_index=True)
    return thr, unf, exp


def test_basestation_figures_show_every_bar_clipped_at_the_bound(close_all):
    thr, unf, exp = basestation_tables()
    tasks = bs.figure_tasks(thr, unf, exp)
    assert len(tasks) == 10
    for name, fn, args in tasks:
        fig = fn(plt, *args)
        assert_all_shown(fig)
        if name != "rtt_flows":
            assert fig.axes[0].get_ylim()[0] == 0, name
            # Nothing below the measure's lower bound (0): the intervals are clipped.
            assert min(y for ax in fig.axes for y in data_ys(ax)) >= 0, name
        note = fig._supxlabel.get_text() if fig._supxlabel else ""
        if name.endswith("unfairness"):
            # The infinite cell is named under the figure and marked on Reno's panel.
            assert "Reno: Snoop at 5 %" in " ".join(note.split()), name
            reno = fig.axes[bs.VARIANTS.index("reno")]
            edge = [line for line in reno.get_lines() if line.get_transform() != reno.transData]
            assert len(edge) == 1 and list(edge[0].get_xdata()) == [5.0]
        else:
            assert note == "", name
    # One throughput scale, high enough for the highest interval.
    tops = {fn(plt, *args).axes[0].get_ylim()[1] for name, fn, args in tasks if name.startswith("throughput")}
    assert len(tops) == 1 and tops.pop() >= (thr.throughput_bps + thr.throughput_bps_ci95).max() / 1e3


def _in_axes(ax, bbox):
    """`bbox` (display coordinates) cut to the axes' area, or None."""
    from matplotlib.transforms import Bbox

    cut = Bbox.intersection(bbox, ax.get_window_extent())
    return cut if cut is not None and cut.width > 0 and cut.height > 0 else None


def test_gsmlink_early_loss_legend_covers_no_bar(close_all):
    from tcplab.studies import gsmlink as gl

    # The study's values: bars up to 997 bytes/s under a 1020 top; the
    # legend inside the axes (upper centre) used to cover the buffer-15 bars.
    early = pd.DataFrame([{"buffer": b, "dropped_packet": k, "throughput_Bps": v}
                          for b, vs in [(7, [982, 953, 979, 992]), (15, [969, 957, 975, 997]),
                                        (20, [949, 953, 979, 992])]
                          for k, v in zip(["none", 3, 6, 12], vs)])
    fig = gl.early_loss_figure(plt, early)
    fig.tight_layout()
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent(r)
    bars = [_in_axes(ax, p.get_window_extent(r)) for p in ax.patches]
    assert len(bars) == 12 and all(b is not None for b in bars)
    assert not any(b.overlaps(legend) for b in bars)
    lo, hi = ax.get_ylim()
    assert all(lo < p.get_height() <= hi for p in ax.patches)


def test_gsmlink_burst_cells_of_one_length_are_drawn_apart(close_all):
    from tcplab.studies import gsmlink as gl

    # --quick: every cell has a 10 s burst. At one x the four cells' bars
    # hid each other; each cell now has its own x near 10, and no interval
    # reaches below 0 (a throughput).
    cells = [(0.2, 3, 340.0, 130.0), (0.2, 20, 290.0, 130.0), (0.5, 3, 51.0, 80.0), (0.5, 20, 25.0, 0.0)]
    burst = pd.DataFrame([{"burst_rate": r, "burst_s": 10, "buffer": b, "throughput_Bps": 800.0 + m / 10,
                           "throughput_Bps_ci95": c / 10, "during_burst_Bps": m, "during_burst_Bps_ci95": c}
                          for r, b, m, c in cells])
    runs = pd.DataFrame({"burst_rate": [0.2, 0.5], "timer_at_end_s": [6.3, 14.0], "idle_after_burst_s": [1.0, 12.3],
                         "timer_remaining_s": [0.7, 11.5]})
    fig = gl.burst_figure(plt, burst, runs)
    for ax in fig.axes[:2]:
        xs = [float(np.ravel(line.get_xdata())[0]) for line in ax.get_lines() if line.get_marker() == "o"]
        assert len(xs) == 4 and len(set(xs)) == 4, xs
        assert all(9 < x < 11 for x in xs)
        assert min(data_ys(ax)) >= 0
    assert_all_shown(fig)


def test_gsmlink_throughput_vs_buffer_legend_hides_no_point(close_all):
    from tcplab.studies import gsmlink as gl

    # The error-free table of the full run (bytes/s per buffer 3 ... unlimited):
    # with the legend inside the axes, newreno-off's point at buffer 12 was under it.
    table = {"baseline": [903, 929, 982, 988, 981, 969, 949, 1000], "iw3": [906, 997, 980, 988, 985, 973, 964, 1004],
             "iw4": [908, 999, 981, 989, 987, 975, 966, 1006], "win2048": [905, 951, 1000, 1000, 1000, 1000, 1000, 1000],
             "win3840": [903, 929, 975, 995, 991, 1000, 1000, 1000], "sack": [935, 1000, 1000, 1000, 995, 1000, 995, 1000],
             "newreno-off": [877, 937, 947, 939, 921, 900, 877, 1000],
             "mss536": [1050, 1085, 1011, 1074, 1074, 1031, 1016, 1085]}
    clean = pd.DataFrame([{"optimization": o, "buffer": str(b), "throughput_Bps": v}
                          for o, vs in table.items() for b, v in zip(gl.BUFFERS, vs)])
    fig = gl.buffer_figure(plt, clean)
    fig.tight_layout()
    fig.canvas.draw()
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    points = np.concatenate([ax.transData.transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
                             for line in ax.get_lines() if line.get_marker() == "o"])
    assert len(points) == 64
    assert not [tuple(p) for p in points if legend.contains(*p)]
    assert_all_shown(fig)
