"""Per-flow time averages of cwnd, ssthresh, srtt and rto (SPEC 7): the
core integrates each value exactly between the sender's events
(transport/tcp/averages.rs). Here they are held against the same averages
computed independently from series.csv sampled every millisecond (a step
function, so within a fraction of a percent), over the flow's active time:
the whole run, up to a transfer's completion, or up to the application's
stop."""
import tomllib

import numpy as np
import pandas as pd
import pytest

import tcplab

BASE = """
[sim]
duration = "{dur}"
seed = 3
tcp_profile = "{profile}"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "2Mbps"
delay = "50ms"
queue = {{ kind = "droptail", limit = 20 }}
error = {{ kind = "uniform", rate = 0.02, direction = "forward" }}
[[flow]]
name = "f"
from = "a"
to = "b"
transport = "{transport}"
packet_size = 1000
window = 30
app = {app}
[output]
sample_interval = "1ms"
"""

COLUMNS = {"mean_cwnd_bytes": "cwnd_bytes", "mean_ssthresh_bytes": "ssthresh_bytes",
           "mean_srtt_s": "srtt_s", "mean_rto_s": "rto_s"}


def run(app='{ kind = "bulk" }', dur="30s", profile="ns2", transport="newreno"):
    text = BASE.format(dur=dur, profile=profile, transport=transport, app=app)
    return tcplab.run(tomllib.loads(text))


def sampled_mean(series, col, start, end):
    """The time average of a sampled column over [start, end]: each sample
    holds until the next one; unset (empty) samples count neither value
    nor time, as the core counts an unset ssthresh or srtt."""
    s = series[(series.flow == "f") & (series.time_s >= start - 1e-9) & (series.time_s < end - 1e-9)]
    t = s.time_s.to_numpy(dtype=float)
    width = np.diff(np.append(t, end))
    v = s[col].to_numpy(dtype=float)
    held = ~np.isnan(v)
    return float((v[held] * width[held]).sum() / width[held].sum())


def check(r, start, end, rel=1e-3):
    row = r.flows.iloc[0]
    for mean, col in COLUMNS.items():
        want = sampled_mean(r.series, col, start, end)
        got = float(row[mean])
        assert got == pytest.approx(want, rel=rel), (mean, got, want)


@pytest.mark.parametrize("profile,transport", [("ns2", "newreno"), ("ns2", "sack"), ("linux", "newreno"),
                                               ("rfc", "reno")])
def test_averages_agree_with_the_sampled_series(profile, transport):
    r = run(profile=profile, transport=transport)
    row = r.flows.iloc[0]
    assert row.retransmits > 10 and row.timeouts >= 0  # a lossy run: the window moves
    check(r, 0.0, 30.0)
    # The averages lie within what the series shows.
    for mean, col in COLUMNS.items():
        v = r.series[col].dropna()
        assert v.min() <= row[mean] <= v.max()


def test_a_completed_transfer_is_averaged_up_to_its_completion():
    r = run(app='{ kind = "transfer", bytes = 2000000 }', dur="40s")
    done = float(r.flows.completion_s[0])
    assert 1 < done < 35
    check(r, 0.0, done)
    # Counted to the end of the run instead, the window average would be
    # another number: the test can tell the two apart.
    whole = sampled_mean(r.series, "cwnd_bytes", 0.0, 40.0)
    assert abs(whole - r.flows.mean_cwnd_bytes[0]) > 0.01 * whole


@pytest.mark.parametrize("app,start", [('{ kind = "bulk", start = "2s", stop = "12s" }', 2.0),
                                       ('{ kind = "bulk", stop = "12s" }', 0.0)])
def test_a_stopped_application_is_averaged_up_to_its_stop(app, start):
    # The segments in flight at the stop are acknowledged after it (the
    # data written is then complete); that drain is not averaged in.
    r = run(app=app, dur="20s")
    check(r, start, 12.0)


def test_a_transfer_that_pauses_ends_at_its_last_completion():
    # A second write after the first completes: the pause between counts.
    r = run(app='{ kind = "transfer", bytes = 300000, more = [{ at = "8s", bytes = 1000000 }] }', dur="40s")
    done = float(r.flows.completion_s[0])
    assert 12 < done < 35
    check(r, 0.0, done)


def test_linux_ssthresh_counts_only_once_set():
    # Linux starts without an ssthresh (empty in series.csv); its average
    # is over the time after the first loss set one.
    r = run(profile="linux")
    first = r.series.ssthresh_bytes.first_valid_index()
    assert first is not None and r.series.time_s[first] > 0
    check(r, 0.0, 30.0)


def test_udp_flows_have_no_window_averages():
    r = tcplab.run(tomllib.loads(BASE.format(dur="5s", profile="ns2", transport="udp",
                                             app='{ kind = "cbr", rate = "1Mbps" }')))
    row = r.flows.iloc[0]
    assert all(pd.isna(row[c]) for c in COLUMNS)


def test_same_seed_same_averages():
    a, b = run(dur="10s"), run(dur="10s")
    assert [list(a.flows[c]) for c in COLUMNS] == [list(b.flows[c]) for c in COLUMNS]
