"""CUBIC (`transport = "cubic"`, Linux's tcp_cubic with HyStart) in the
simulator: its input checks, its window against the NewReno one on the same
path, and determinism. The kernel comparison is in test_emulator.py
(`test_cubic_follows_the_kernels_cubic`); the window arithmetic is tested
step by step in crates/tcplab-core/src/transport/tcp/cubic.rs."""
from __future__ import annotations


import pytest

import tcplab
from conftest import cli_refusal, one_flow_toml, scenario_error_key


def path(transport: str = "cubic", profile: str = "linux", duration: str = "30s", limit: int = 100,
         **flow) -> dict:
    """One bulk flow over 100 Mbit/s then 20 Mbit/s with 50 ms each way and a
    DropTail queue of `limit` packets."""
    f = {"from": "a", "to": "b", "transport": transport, "packet_size": 1448, "app": {"kind": "bulk"},
         "tcp": {"window_bytes": 8_000_000}}
    f.update(flow)
    return {"sim": {"duration": duration, "tcp_profile": profile, "seed": 1},
            "node": [{"name": "a"}, {"name": "r"}, {"name": "b"}],
            "link": [{"between": ["a", "r"], "rate": "100Mbps", "delay": "1ms"},
                     {"between": ["r", "b"], "rate": "20Mbps", "delay": "50ms",
                      "queue": {"kind": "droptail", "limit": limit}}],
            "flow": [f]}


key_of = scenario_error_key


def test_cubic_needs_linuxs_loss_recovery():
    assert key_of(path(profile="ns2")) == "flow[0].transport"
    assert key_of(path(profile="rfc")) == "flow[0].transport"
    sc = path(profile="rfc")
    sc["flow"][0]["tcp"]["prr"] = True
    assert tcplab.run(sc).flows.goodput_bps[0] > 0


@pytest.mark.parametrize("table,key", [
    ({"beta": 0}, "flow[0].cubic.beta"),
    ({"beta": 1024}, "flow[0].cubic.beta"),
    ({"bic_scale": 0}, "flow[0].cubic.bic_scale"),
    ({"hystart_detect": 4}, "flow[0].cubic.hystart_detect"),
    ({"hz": 512}, "flow[0].cubic.hz"),
    ({"gamma": 1}, "flow[0].cubic.gamma"),
])
def test_bad_cubic_parameters_name_the_key(table, key):
    assert key_of(path(cubic=table)) == key


def test_cubic_parameters_need_transport_cubic():
    assert key_of(path(transport="newreno", cubic={"beta": 700})) == "flow[0].cubic"


def test_bad_input_exits_2_from_the_cli(tmp_path):
    line = cli_refusal(tmp_path, one_flow_toml("cubic"))
    assert "flow[0].transport" in line and "linux" in line


def test_cubic_cuts_to_0_7_and_keeps_a_larger_window_than_newreno():
    """On a 20 Mbit/s, 100 ms path (a BDP of 173 segments) with a queue of
    100: NewReno halves its window at each loss and climbs back one segment
    a round trip; CUBIC cuts to 0.7 and returns to W_max along its curve,
    so its mean ssthresh sits near 0.7 of the window at the losses and its
    mean window above NewReno's."""
    cubic = tcplab.run(path(duration="60s")).flows.iloc[0]
    reno = tcplab.run(path(transport="newreno", duration="60s")).flows.iloc[0]
    assert cubic.fast_retransmits >= 3 and cubic.timeouts == 0
    assert cubic.mean_cwnd_bytes > 1.1 * reno.mean_cwnd_bytes
    assert cubic.goodput_bps > reno.goodput_bps
    # Window at the loss: the BDP plus the queue, 273 segments.
    wmax = (173 + 100) * 1448
    assert cubic.mean_ssthresh_bytes == pytest.approx(0.7 * wmax, rel=0.15)


def test_hystart_leaves_slow_start_before_the_queue_overflows():
    """HyStart's delay test ends slow start when the queue starts to build
    (the round's least RTT 4 ms above the path's), before the window
    overflows a queue of 1000: no loss at all in 10 s, where Reno's slow
    start (and CUBIC's without HyStart) overshoots into losses."""
    sc = path(duration="10s", limit=1000)
    with_hystart = tcplab.run(sc).flows.iloc[0]
    sc["flow"][0]["cubic"] = {"hystart": False}
    without = tcplab.run(sc).flows.iloc[0]
    assert with_hystart.retransmits == 0
    assert without.retransmits > 0


def test_same_seed_same_results():
    sc = path(duration="20s", tcp={"window_bytes": 8_000_000, "sack": True})
    a, b = tcplab.run(sc), tcplab.run(sc)
    assert a.flows.equals(b.flows) and a.links.equals(b.links)
    timing = ("wall_s", "events_per_s")
    assert {k: v for k, v in a.summary.items() if k not in timing} == {
        k: v for k, v in b.summary.items() if k not in timing}
