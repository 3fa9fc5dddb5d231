"""The gsmlink study: analytic limit, start-up overflow, and every table and
figure of `--quick` with the properties the study is about."""
import subprocess
import sys

import pandas as pd
import pytest

import tcplab
from tcplab.studies import gsmlink


def one(sc):
    return tcplab.run(sc).columns("flows")


def test_error_free_throughput_is_the_line_rate_less_start_up():
    """9600/8 x 256 / (256 + 40 + 8) bytes/s, within 2 % including start-up."""
    for baseline in gsmlink.BASELINES:
        f = one(gsmlink.scenario("baseline", "unlimited", baseline=baseline))
        thr = gsmlink.TRANSFER / f["completion_s"][0]
        limit = gsmlink.line_rate(256)
        assert limit == pytest.approx(1010.53, abs=0.01)
        assert thr <= limit and thr >= 0.98 * limit, (baseline, thr, limit)
        assert f["retransmits"][0] == 0


def test_start_up_overflow_and_the_dual_threshold_fix():
    """A 32 KB window overflows a 20-packet buffer in slow start; the
    dual-threshold policy (one early drop, then a hold time) loses far fewer
    packets and finishes sooner."""
    big = one(gsmlink.scenario("baseline", 20))
    dual = one(gsmlink.scenario("baseline", 20, queue="dual-threshold"))
    assert big["retransmits"][0] >= 20
    assert dual["retransmits"][0] < big["retransmits"][0] / 3
    assert dual["completion_s"][0] < big["completion_s"][0]


def test_linux22_baseline_is_the_studys_stack():
    sc = gsmlink.scenario("baseline", 7)
    tcp = sc.data["flow"][0]["tcp"]
    assert tcp["window_bytes"] == 32696 and tcp["initial_rto"] == "3s" and tcp["delayed_ack"]
    # The emulated study keeps tcplab's modern values (a current kernel runs there).
    from tcplab.studies import gsmlink_emulate
    assert gsmlink_emulate._scenario({"optimization": "baseline", "buffer": 7, "loss": 0.0, "seed": 1}) \
        .data["flow"][0]["tcp"]["window_bytes"] == 32768


def test_first_15k_is_reported():
    f = one(gsmlink.scenario("baseline", 7))
    assert 0 < f["first_bytes_s"][0] < f["completion_s"][0]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("gsmlink")
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", "gsmlink", "--quick", "--out", str(out),
                        "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_quick_mode_writes_every_file(quick):
    for name in ["runs.csv", "throughput.csv", "first15k.csv", "bursts.csv", "burst_runs.csv", "queues.csv",
                 "queue_runs.csv", "startup_overflow.csv", "fig6b.csv", "early_loss.csv", "baselines.csv",
                 "contradictions.csv"] + [
            f"{f}.{e}" for f in ("throughput_vs_buffer", "time_sequence", "error_bursts", "queues", "lockout",
                                 "early_loss") for e in ("png", "svg")]:
        assert (quick / name).stat().st_size > 0, name
    thr = pd.read_csv(quick / "throughput.csv")
    assert set(thr.optimization) == set(gsmlink.OPTIMIZATIONS)
    clean = thr[thr.loss == 0]
    assert {"12", "15"} <= set(clean.buffer.astype(str)), "the error-free grid has buffers 12 and 15"


def test_two_transfers_never_exceed_the_link_and_fairness_is_measured(quick):
    q = pd.read_csv(quick / "queue_runs.csv")
    two = q[q.flows == 2]
    assert set(two.queue) >= {"droptail-20", "droptail-40", "red-20", "red-40", "dual-10-20"}
    # Aggregate throughput (all bytes / time until both finish) is a share of
    # one link: never above its line rate, unlike the mean per transfer.
    assert (two.aggregate_Bps <= gsmlink.line_rate(256)).all()
    assert (two.aggregate_Bps > 0.8 * gsmlink.line_rate(256)).all()
    assert ((two.jain > 0.5) & (two.jain <= 1.0)).all()
    assert (two.completion_ratio >= 1.0).all()
    assert two.overlap_share.between(0, 1).all()
    # DropTail lock-out: in some run one transfer gets less than a fifth of
    # the other's bytes while both are running.
    assert two[two.queue.str.startswith("droptail")].overlap_share.min() < 0.2
    one = q[q.flows == 1]
    assert (one.completion_ratio == 1.0).all() and (one.jain == 1.0).all()


def test_fig6b_last_segments_wait_for_the_backed_off_timer(quick):
    f = pd.read_csv(quick / "fig6b.csv")
    b = f[f.baseline == "linux22"].iloc[0]
    # No segment follows the lost ones, so no duplicate ACK: one timeout
    # recovers all four, after the RTO the over-sized buffer inflated.
    assert b.timeouts == 1 and b.retransmits == 4
    assert b.wait_after_last_loss_s > 20
    assert b.wait_after_last_loss_s == pytest.approx(b.rto_s - (b.last_loss_s - b.last_new_ack_s), abs=0.5)


def test_start_up_overflow_numbers(quick):
    o = pd.read_csv(quick / "startup_overflow.csv")
    o = o[(o.baseline == "modern") & (o.buffer != "unlimited")]
    # The flight when the first packet drops exceeds the buffer; with one
    # ACK per segment slow start sends two segments per ACK and the full
    # queue takes one of each pair: every second segment is lost.
    assert (o.flight_at_drop_segments > o.buffer.astype(int)).all()
    assert o.lost_share.between(0.45, 0.6).all()


def test_single_early_loss_avoids_the_overflow(quick):
    e = pd.read_csv(quick / "early_loss.csv")
    e["dropped_packet"] = e.dropped_packet.astype(str)
    at20 = e[e.buffer == 20].set_index("dropped_packet")
    assert (at20.drop("none").throughput_Bps > at20.loc["none", "throughput_Bps"]).all()
    assert (at20.drop("none").retransmits < at20.loc["none", "retransmits"] / 10).all()


def test_bursts_measure_during_and_after(quick):
    b = pd.read_csv(quick / "burst_runs.csv")
    assert (b.during_burst_Bps < b.throughput_Bps).all()
    assert (b.idle_after_burst_s > 0).all()
    t = b.dropna(subset=["timer_at_end_s"])
    assert len(t) >= len(b) / 2, "most bursts end with the sender waiting for its timer"
    # The idle time is what is left of the backed-off timer plus the round
    # trip of the retransmission (0.7 s on the empty link, more behind a queue).
    assert (t.timer_remaining_s <= t.timer_at_end_s + 1e-9).all()
    assert (t.idle_after_burst_s >= t.timer_remaining_s).all()
    assert (t.idle_after_burst_s <= t.timer_remaining_s + 3.0).all()


def test_interrupted_while_drawing_leaves_the_earlier_outputs_whole(quick, tmp_path, monkeypatch):
    """Ctrl-C after the runs, while the figures are drawn: the directory
    keeps the earlier set of tables and figures, not the new tables beside
    the old figures (they were written one by one into it)."""
    import shutil

    out = tmp_path / "gsm"
    shutil.copytree(quick, out)  # every run stored: the rerun only analyses and draws
    outputs = sorted(p.name for p in out.iterdir() if p.is_file())
    for name in outputs:
        (out / name).write_bytes(b"earlier set\n")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(gsmlink, "early_loss_figure", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gsmlink.run(out, quick=True, jobs=1, progress=False)
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == outputs
    assert all((out / name).read_bytes() == b"earlier set\n" for name in outputs)
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")], "no temporary files left"

    monkeypatch.undo()
    res = gsmlink.run(out, quick=True, jobs=1, progress=False)
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == outputs
    assert (out / "throughput.csv").read_bytes() == (quick / "throughput.csv").read_bytes()
    assert all(p.parent == out and p.exists() for p in res["figures"])
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


def test_outputs_move_in_whole_when_ctrl_c_comes_during_the_move(tmp_path, monkeypatch):
    """A Ctrl-C that arrives while the finished set is being moved into
    place is held back until every file is there, then still stops the
    command."""
    import os
    import signal

    from tcplab import io

    names = [f"t{i}.csv" for i in range(5)]
    replace = os.replace
    moved = []

    def replace_then_ctrl_c(src, dst):
        replace(src, dst)
        moved.append(dst)
        if len(moved) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(io.os, "replace", replace_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        with io.staged_outputs(tmp_path) as stage:
            for n in names:
                (stage / n).write_text("new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
