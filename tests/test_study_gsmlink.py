"""The gsmlink study: analytic limit, start-up overflow, quick mode."""
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
    f = one(gsmlink.scenario("baseline", "unlimited"))
    thr = gsmlink.TRANSFER / f["completion_s"][0]
    limit = gsmlink.line_rate(256)
    assert limit == pytest.approx(1010.53, abs=0.01)
    assert thr <= limit and thr >= 0.98 * limit, (thr, limit)
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


def test_first_15k_is_reported():
    f = one(gsmlink.scenario("baseline", 7))
    assert 0 < f["first_bytes_s"][0] < f["completion_s"][0]


def test_quick_mode_writes_every_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", "gsmlink", "--quick", "--out", str(tmp_path),
                        "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ["runs.csv", "throughput.csv", "first15k.csv", "bursts.csv", "queues.csv"] + [
            f"{f}.{e}" for f in ("throughput_vs_buffer", "time_sequence", "error_bursts", "queues")
            for e in ("png", "svg")]:
        assert (tmp_path / name).stat().st_size > 0, name
    thr = pd.read_csv(tmp_path / "throughput.csv")
    assert set(thr.optimization) == set(gsmlink.OPTIMIZATIONS)
    b = pd.read_csv(tmp_path / "bursts.csv")
    assert (b.idle_after_burst_s > 0).all()
