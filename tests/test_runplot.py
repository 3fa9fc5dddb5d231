"""Figures of one run (SPEC 8, plotting helpers): `tcplab.runplot` draws
a run's window, time-sequence diagram and queue from its tables, and
`tcplab plot RUN_OUT --window | --sequence FLOW | --queue LINK` writes them."""
from __future__ import annotations

import subprocess
import sys

import matplotlib
import numpy as np
import pytest

import tcplab
from conftest import SCENARIOS
from tcplab import runplot

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def dumbbell():
    return tcplab.run(SCENARIOS / "dumbbell.toml", sample_interval="100ms", trace=True,
                      overrides=["sim.duration=20s"])


def tcplab_cli(*args):
    return subprocess.run([sys.executable, "-m", "tcplab", *map(str, args)], capture_output=True, text=True)


def test_the_window_is_the_series(dumbbell):
    ax = runplot.window(dumbbell, flows=["ftp2"])
    s = dumbbell.series[dumbbell.series.flow == "ftp2"]
    cwnd, ssthresh = ax.get_lines()
    assert np.array_equal(cwnd.get_xdata(), s.time_s) and np.allclose(cwnd.get_ydata(), s.cwnd_bytes / 1000)
    assert ssthresh.get_linestyle() == "--" and ssthresh.get_color() == cwnd.get_color()
    assert np.allclose(ssthresh.get_ydata(), s.ssthresh_bytes / 1000, equal_nan=True)
    assert len(runplot.window(dumbbell).get_lines()) == 2 * len(dumbbell.flows)


def test_the_sequence_diagram_marks_every_retransmission_and_drop(dumbbell):
    ax = runplot.sequence(dumbbell, "ftp1")
    t = dumbbell.trace[dumbbell.trace.flow == "ftp1"]
    lines = {line.get_label(): line for line in ax.get_lines()}
    for label, kind in (("retransmission", "retransmit"), ("dropped", "drop"), ("duplicate ACK", "dupack")):
        rows = t[t.kind == kind]
        assert len(rows) > 0, kind
        assert np.array_equal(lines[label].get_xdata(), rows.time_s), kind
    acks = t[t.kind == "ack"]
    assert np.allclose(lines["cumulative ACK"].get_ydata(), acks.seq / 1000)
    part = runplot.sequence(dumbbell, "ftp1", start=5, end=6)
    xs = np.concatenate([line.get_xdata() for line in part.get_lines()])
    assert xs.min() >= 5 and xs.max() <= 6


def test_the_queue_is_the_sampled_queue(dumbbell):
    q = dumbbell.queues
    busiest = q.groupby(["link", "direction"]).queue_packets.max().idxmax()
    ax = runplot.queue(dumbbell, int(busiest[0]), busiest[1])
    d = q[(q.link == busiest[0]) & (q.direction == busiest[1])]
    assert np.array_equal(ax.get_lines()[0].get_ydata(), d.queue_packets) and d.queue_packets.max() > 0


def test_the_command_writes_each_figure_and_the_same_run_gives_the_same_file(tmp_path):
    out = tmp_path / "run"
    r = tcplab_cli("run", SCENARIOS / "dumbbell.toml", "--out", out, "--sample-interval", "100ms", "--trace",
                   "--set", "sim.duration=10s", "-q")
    assert r.returncode == 0, r.stderr
    for args, name in ((["--window"], "window.png"), (["--sequence", "ftp1"], "sequence-ftp1.png"),
                       (["--queue", "7:forward"], "queue-7-forward.png"),
                       (["--window", "--flow", "ftp1", "--start", "2", "--end", "4", "--out", out / "w.svg"],
                        "w.svg")):
        r = tcplab_cli("plot", out, *args)
        assert r.returncode == 0 and r.stdout.strip() == str(out / name), r.stderr
        first = (out / name).read_bytes()
        assert tcplab_cli("plot", out, *args).returncode == 0
        assert (out / name).read_bytes() == first, name


@pytest.mark.parametrize("keep", [[], ["notes.txt"]], ids=["only-the-run", "with-a-user-file"])
def test_a_new_run_takes_the_earlier_runs_figures_with_it(tmp_path, keep):
    """`tcplab run --out RUN` replaces the earlier run as a whole: the
    figures `tcplab plot RUN` drew from it under their default names go too
    (they showed the old run; until 2026-12 they stayed); a figure saved
    under its own name, and any other file of the user's, stay."""
    sc = tmp_path / "s.toml"
    lines = ['[sim]\nduration = "5s"\n', '[[node]]\nname = "a"\n', '[[node]]\nname = "b"\n',
             '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "10ms"\n',
             '[[flow]]\nname = "f/1"\nfrom = "a"\nto = "b"\ntransport = "reno"\napp = { kind = "bulk" }\n']
    sc.write_text("".join(lines))
    out = tmp_path / "run"
    run = ["run", sc, "--out", out, "--sample-interval", "100ms", "--trace", "-q"]
    assert tcplab_cli(*run).returncode == 0
    figures = {"window.png": ["--window"], "sequence-f_1.png": ["--sequence", "f/1"],
               "queue-0-forward.png": ["--queue", "0"], "queue-0-reverse.png": ["--queue", "0:reverse"]}
    for name, args in figures.items():
        r = tcplab_cli("plot", out, *args)
        assert r.returncode == 0 and r.stdout.strip() == str(out / name), r.stderr
    if keep:
        assert tcplab_cli("plot", out, "--window", "--out", out / "mine.png").returncode == 0
        (out / "notes.txt").write_text("mine")
    r = tcplab_cli(*run)
    assert r.returncode == 0, r.stderr
    left = sorted(p.name for p in out.iterdir())
    assert not set(figures) & set(left), left
    assert set(left) == {"flows.csv", "links.csv", "summary.json", "series.csv", "queues.csv", "trace.csv",
                         *(["mine.png", "notes.txt"] if keep else [])}, left


@pytest.mark.parametrize("args, message", [
    (["--window"], "the run wrote no series.csv: run it with --sample-interval"),
    (["--sequence", "f1"], "the run wrote no trace.csv: run it with --trace"),
    ([], "give one of --window, --sequence FLOW, --queue LINK"),
    (["--window", "--queue", "0"], "(got --window, --queue)"),
    (["--x", "a", "--y", "b"], "--x: for a sweep's output"),
    (["--queue", "x"], "expected LINK[:forward|reverse]"),
    (["--sequence", "f1", "--flow", "f1"], "--flow: only with --window"),
])
def test_bad_requests_are_one_line_and_write_nothing(tmp_path, small_scenario, args, message):
    out = tmp_path / "run"
    tcplab.run(small_scenario).write(out)
    before = sorted(p.name for p in out.iterdir())
    r = tcplab_cli("plot", out, *args)
    assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert sorted(p.name for p in out.iterdir()) == before


def test_unknown_flows_and_links_are_named(dumbbell):
    with pytest.raises(tcplab.ScenarioError, match="it has ftp1, ftp2, ftp3, ftp4, ftp5"):
        runplot.sequence(dumbbell, "f9")
    with pytest.raises(tcplab.ScenarioError, match="no such link in this run"):
        runplot.queue(dumbbell, 99)


def test_neither_a_run_nor_a_sweep(tmp_path):
    r = tcplab_cli("plot", tmp_path, "--window")
    assert r.returncode == 2 and "not the output of tcplab sweep (no sweep.json) nor of tcplab run" in r.stderr


def test_flow_names_that_look_like_numbers(tmp_path, small_scenario):
    """A flow named "1" stays the text "1" when read back from trace.csv, and
    a flow name with a slash makes no directory of the default file name."""
    small_scenario["flow"][0]["name"], small_scenario["flow"][1]["name"] = "1", "a/b"
    out = tmp_path / "run"
    tcplab.run(small_scenario, trace=True).write(out)
    for flow, name in (("1", "sequence-1.png"), ("a/b", "sequence-a_b.png")):
        r = tcplab_cli("plot", out, "--sequence", flow)
        assert r.returncode == 0 and r.stdout.strip() == str(out / name), r.stderr
