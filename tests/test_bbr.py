"""BBR (`transport = "bbr"`, Linux's tcp_bbr with tcp_rate's delivery-rate
samples and the kernel's internal pacing) in the simulator: its input
checks, the model it settles on against the path's analytic values (the
bottleneck rate, the least RTT, the window of two BDPs plus the kernel's
quantization budget), its small queue beside CUBIC's, PROBE_RTT when a
standing queue hides the least RTT, the pacing between segments, and
determinism. The arithmetic is tested step by step in
crates/tcplab-core/src/transport/tcp/{bbr,rate}.rs; the kernel's own BBR
beside it in tests/test_emulator.py and docs/validation.md ("BBR against
the kernel's")."""
from __future__ import annotations


import numpy as np
import pytest

import tcplab
from conftest import cli_refusal, one_flow_toml, scenario_error_key

MSS = 1448
RATE = 10e6
BASE_RTT = 2 * (0.001 + 0.020)  # propagation, both ways


def path(transport: str = "bbr", profile: str = "linux", duration: str = "20s", limit: int = 100,
         sack: bool = True, flows: int = 1, second: str | None = None, **flow) -> dict:
    """Bulk flows over 100 Mbit/s, 1 ms then 10 Mbit/s, 20 ms with a
    DropTail queue of `limit` packets; `second` adds a flow of that
    transport beside the first."""
    def one(t: str, start: str = "0s") -> dict:
        f = {"from": "a", "to": "b", "transport": t, "packet_size": MSS, "app": {"kind": "bulk", "start": start},
             "tcp": {"window_bytes": 8_000_000, "sack": sack}}
        f.update(flow)
        return f
    fl = [one(transport) for _ in range(flows)]
    if second:
        fl.append(one(second))
    return {"sim": {"duration": duration, "tcp_profile": profile, "seed": 1},
            "node": [{"name": "a"}, {"name": "r"}, {"name": "b"}],
            "link": [{"between": ["a", "r"], "rate": "100Mbps", "delay": "1ms"},
                     {"between": ["r", "b"], "rate": "10Mbps", "delay": "20ms",
                      "queue": {"kind": "droptail", "limit": limit}}],
            "flow": fl}


key_of = scenario_error_key


def test_bbr_needs_linuxs_loss_recovery():
    assert key_of(path(profile="ns2")) == "flow[0].transport"
    sc = path(sack=True)
    sc["flow"][0]["tcp"]["rack"] = False
    assert key_of(sc) == "flow[0].tcp.rack"


@pytest.mark.parametrize("table,key", [({"hz": 512}, "flow[0].bbr.hz"), ({"gain": 2}, "flow[0].bbr.gain")])
def test_bad_bbr_parameters_name_the_key(table, key):
    assert key_of(path(bbr=table)) == key


def test_bbr_parameters_need_transport_bbr():
    assert key_of(path(transport="cubic", bbr={"hz": 1000})) == "flow[0].bbr"


def test_bad_input_exits_2_from_the_cli(tmp_path):
    line = cli_refusal(tmp_path, one_flow_toml("bbr"))
    assert "flow[0].transport" in line and "linux" in line


@pytest.mark.parametrize("sack", [True, False])
def test_one_flow_fills_the_pipe_with_a_window_of_two_bdps(sack):
    """After STARTUP and DRAIN one flow delivers the bottleneck's rate
    (less PROBE_BW's brief dips) and settles on cwnd = 2 BDP + the
    quantization budget (3 TSO goals of 2 segments at this rate, rounded
    to even, +2 in the probing phase); the least RTT it measures is the
    path's (the propagation plus a segment's and an ACK's serialisation)."""
    r = tcplab.run(path(sack=sack), sample_interval="50ms")
    f = r.flows
    wire = MSS + 52  # TCP/IP headers with timestamps
    capacity = RATE * MSS / wire
    assert f.goodput_bps[0] > 0.96 * capacity
    assert f.retransmits[0] <= 10
    s = r.series
    late = s[s.time_s > 5]
    min_rtt = BASE_RTT + wire * 8 / RATE + wire * 8 / 100e6 + 52 * 8 / RATE
    bdp = RATE / 8 / MSS * min_rtt  # segments a least RTT at the bottleneck rate
    cwnd = late.cwnd_bytes / MSS
    # The window's target uses the bandwidth filter's max (up to 1.25x
    # the rate in the probing phase's samples is not reached: 2x).
    assert cwnd.max() <= 2 * 1.25 * bdp + 10
    assert np.median(cwnd) >= 2 * bdp * 0.95
    # The queue BBR keeps: the RTT stays well below what a full 100-packet
    # queue would add (120 ms).
    assert late.srtt_s.max() < min_rtt + 0.05


def test_bbr_keeps_a_far_smaller_queue_than_cubic():
    rtt = {}
    for t in ("bbr", "cubic"):
        s = tcplab.run(path(transport=t, limit=300), sample_interval="50ms").series
        rtt[t] = s[s.time_s > 5].srtt_s.mean()
    assert rtt["bbr"] < 0.6 * rtt["cubic"], rtt


def test_probe_rtt_drains_to_four_segments_when_a_standing_queue_hides_the_least_rtt():
    """Beside a CUBIC flow the queue never empties, so no RTT sample
    matches the least one for ten seconds: BBR enters PROBE_RTT and holds
    its window at four segments for 200 ms and a round trip (at the
    inflated RTT), then takes the RTT it measured then as its least one,
    as the kernel's filter does."""
    s = tcplab.run(path(second="cubic", duration="25s", limit=200), sample_interval="10ms").series
    bbr = s[s.flow == "flow0"]
    low = bbr[(bbr.cwnd_bytes <= 4 * MSS) & (bbr.time_s > 5)].time_s.to_numpy()
    assert len(low) >= 20, "no PROBE_RTT"  # 10 ms samples
    assert 10 < low.min() < 11
    # The first dip: 200 ms and at least one (inflated) round trip long;
    # any later one comes ten seconds after the least RTT was last
    # refreshed, not sooner.
    first = low[low < low.min() + 2]
    assert 0.2 + BASE_RTT < first.max() - first.min() < 1.0
    assert low[low > first.max() + 0.1].min(initial=99) > first.max() + 10
    assert list(dict.fromkeys(bbr[bbr.time_s > 5].bbr_mode))[:2] == ["probe_bw", "probe_rtt"]


def test_segments_leave_paced_not_in_bursts():
    """In PROBE_BW the sender spaces its segments by the pacing rate,
    about the bottleneck's: the gaps between data segments leaving the
    sender's first (100 Mbit/s) link are mostly near the bottleneck's
    serialisation time, where a window-limited sender sends back to back
    (CUBIC: a pair on each ACK of two segments)."""
    r = tcplab.run(path(duration="6s"), trace=True)
    tr = r.trace
    sends = tr[(tr.kind == "send") & (tr.time_s > 4)].time_s.to_numpy()
    gaps = np.diff(sends)
    per_segment = (MSS + 52) * 8 / RATE
    assert np.median(gaps) > 0.7 * per_segment
    cubic = tcplab.run(path(transport="cubic", duration="6s"), trace=True).trace
    cs = cubic[(cubic.kind == "send") & (cubic.time_s > 4)].time_s.to_numpy()
    back_to_back = 0.1 * per_segment
    assert np.mean(gaps < back_to_back) < 0.05
    assert np.mean(np.diff(cs) < back_to_back) > 0.3


def test_same_seed_same_run_other_seed_other_phases():
    sc = path(flows=2, duration="15s")
    a, b = tcplab.run(sc).flows, tcplab.run(sc).flows
    assert a.equals(b)
    c = tcplab.run(sc, seed=7).flows
    # The first gain phase is drawn per flow from the run's seed.
    assert not a.goodput_bps.equals(c.goodput_bps)


def test_the_example_scenario_shares_the_bottleneck():
    """scenarios/bbr.toml: two BBR flows and CUBIC fill the 10 Mbit/s
    bottleneck; the late BBR flow, whose least RTT includes the queue the
    others keep, takes the largest share (docs/models.md, "BBR")."""
    from pathlib import Path

    f = tcplab.run(Path(__file__).resolve().parent.parent / "scenarios" / "bbr.toml").flows
    rate = dict(zip(f.flow, f.goodput_bps))
    active = rate["bbr1"] * 30 + rate["bbr2"] * 25 + rate["cubic"] * 30
    assert active / 30 > 0.93 * RATE * MSS / (MSS + 52)
    assert rate["bbr2"] > rate["bbr1"] and rate["bbr2"] > rate["cubic"]


def test_the_series_show_the_model_and_the_pacing_rate():
    """`series` carries BBR's pacing rate, bandwidth estimate, least RTT
    and mode (empty for other congestion controls but for the linux
    profile's pacing rate): in steady state the
    estimate is the bottleneck's payload rate and the least RTT the
    path's; the modes run STARTUP, DRAIN, PROBE_BW."""
    s = tcplab.run(path(duration="8s"), sample_interval="10ms").series
    late = s[s.time_s > 3]
    payload = RATE * MSS / (MSS + 52)
    assert late.bw_estimate_bps.median() == pytest.approx(payload, rel=0.02)
    assert late.min_rtt_s.min() == pytest.approx(BASE_RTT + (MSS + 52) * 8 / RATE, abs=0.001)
    # Paced at the gain (mostly 1) times the estimate, less 1 %.
    assert late.pacing_rate_bps.median() == pytest.approx(payload * 0.99, rel=0.01)
    modes = list(dict.fromkeys(s.bbr_mode))
    assert modes[:3] == ["startup", "drain", "probe_bw"], modes
    # Another congestion control has no model to show; the linux profile's
    # senders have Linux's own pacing rate (tcp_update_pacing_rate(): 200 %
    # of cwnd / SRTT in slow start below half ssthresh, 120 % after, of the
    # flight if larger), which the ns2 profile's has not.
    c = tcplab.run(path(transport="cubic", duration="2s"), sample_interval="10ms").series
    assert (c.bbr_mode == "none").all() and c.bw_estimate_bps.isna().all()
    known = c[c.srtt_s.notna()]
    ratio = known.pacing_rate_bps / (known.cwnd_bytes * 8 / known.srtt_s)
    at_ratio = ((ratio - 2.0).abs() < 1e-6) | ((ratio - 1.2).abs() < 1e-6)
    assert at_ratio.mean() > 0.9 and (ratio >= 1.2 - 1e-6).all(), ratio.describe()
    assert {2.0, 1.2} <= set(ratio.round(6)), "both slow start and the rest"
    c = tcplab.run(path(transport="newreno", profile="ns2", duration="2s"), sample_interval="100ms").series
    assert c.pacing_rate_bps.isna().all() and (c.bbr_mode == "none").all()


def test_a_handshake_gives_bbr_its_first_least_rtt():
    """With `tcp.syn` the module starts after the SYN-ACK, as the
    kernel's bbr_init(): its least RTT is the handshake's (segments
    without payload, so shorter than any data segment's), and stays so while no
    data sample is smaller (docs/validation.md: the overshoot into a
    100-packet queue that the data's RTT gave was the kernel's no-loss run
    once modelled)."""
    sc = path(duration="3s")
    sc["flow"][0]["tcp"]["syn"] = True
    s = tcplab.run(sc, sample_interval="10ms").series
    syn_rtt = BASE_RTT + 2 * 40 * 8 * (1 / RATE + 1 / 100e6)
    got = s.min_rtt_s.dropna()
    assert got.iloc[0] == pytest.approx(syn_rtt, abs=20e-6)
    assert (got == got.iloc[0]).all()
