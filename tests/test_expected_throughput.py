"""Holland and Vaidya's expected throughput of a flow across moving stations
(SPEC 7, `tcplab.expected_throughput`): the path lengths from the core held
against the routing study's own breadth-first search over its movement
patterns (an independent implementation of positions and ranges), the
weighting against the static chains it runs, and bad input."""
import pytest

import tcplab
from tcplab.api import prepare
from tcplab.expected import static_chain
from tcplab.studies import routing

RELAY = {
    "sim": {"duration": "10s", "seed": 1, "tcp_profile": "ns2"},
    "wireless": {"routing": "aodv"},
    "node": [{"name": "a", "position": [0.0, 0.0]}, {"name": "b", "position": [400.0, 0.0]},
             # Within 250 m of both ends once y <= 150 m: from t = 2.5 s.
             {"name": "r", "position": [200.0, 400.0], "waypoints": [[0.0, 200.0, 0.0, 100.0]]}],
    "flow": [{"from": "a", "to": "b", "transport": "newreno", "packet_size": 1000, "window": 20,
              "app": {"kind": "bulk", "start": "1s"}}],
}


@pytest.mark.parametrize("pattern", [0, 1, 2])
def test_path_lengths_agree_with_the_routing_studys_own_search(pattern):
    sc = routing.mobile_scenario("aodv", "newreno", pattern, "200s")
    ours = dict(tcplab._core.hop_timeline_json(sc.to_json(), 0, '"0.1s"')[0])
    theirs = routing.hop_timeline(pattern, 200.0)
    assert sum(ours.values()) == pytest.approx(199.0) and sum(theirs.values()) == pytest.approx(199.0)
    assert len(ours) >= 3, ours  # the pattern moves through several lengths
    # The same samples (midpoints of 0.1 s from the start at 1 s): equal
    # but for a sample at a range boundary, where rounding may differ.
    for h in set(ours) | set(theirs):
        assert ours.get(h, 0.0) == pytest.approx(theirs.get(h, 0.0), abs=0.2 + 1e-9), (h, ours, theirs)


def test_expected_is_the_static_chains_weighted_by_the_path_lengths():
    e = tcplab.expected_throughput(RELAY, seeds=(1, 2))
    assert e.rx_range_m == pytest.approx(250.0, abs=0.5)
    assert e.spacing_m == pytest.approx(0.95 * e.rx_range_m)
    assert set(e.hops_s) == {0, 2}
    assert e.hops_s[0] == pytest.approx(1.5, abs=0.1) and sum(e.hops_s.values()) == pytest.approx(9.0)
    # T_2: the flow alone over two fixed hops, each seed run as its own
    # scenario; T_0 = 0 while partitioned.
    runs = [tcplab.run(static_chain(tcplab.Scenario(RELAY), 0, 2, e.spacing_m, s)).flows.throughput_bps[0]
            for s in (1, 2)]
    assert e.static_bps[2] == pytest.approx(sum(runs) / 2)
    assert e.static_bps[2] > 100e3
    assert e.static_se_bps[2] == pytest.approx(abs(runs[0] - runs[1]) / 2)
    assert e.expected_bps == pytest.approx(e.static_bps[2] * e.hops_s[2] / 9.0)
    assert e.ratio(e.expected_bps / 2) == pytest.approx(0.5)
    # Same seeds, same answer.
    assert tcplab.expected_throughput(RELAY, seeds=(1, 2)) == e


def test_static_chain_keeps_the_flow_and_radio_and_drops_the_movement():
    sc = static_chain(routing.mobile_scenario("dsr", "vegas", 0, "60s"), 0, 3, 240.0, 7)
    d = sc.data
    assert [n["name"] for n in d["node"]] == ["c0", "c1", "c2", "c3"]
    assert [n["position"] for n in d["node"]] == [[0.0, 0.0], [240.0, 0.0], [480.0, 0.0], [720.0, 0.0]]
    assert not any("waypoints" in n for n in d["node"])
    (f,) = d["flow"]
    assert (f["from"], f["to"], f["transport"], f["window"]) == ("c0", "c3", "vegas", routing.WINDOW)
    assert d["wireless"]["routing"] == "dsr" and d["sim"]["seed"] == 7
    prepare(sc)  # a valid scenario


@pytest.mark.parametrize("change,kwargs,key", [
    ({"wireless": {"routing": "aodv", "propagation": "shadowing"}}, {}, "wireless.propagation"),
    ({}, {"flow": 3}, "flow"),
    ({}, {"flow": -1}, "flow"),
    ({}, {"step": "fast"}, "step"),
    ({}, {"step": 0}, "step"),
    ({}, {"seeds": ()}, "seeds"),
    ({}, {"metric": "cwnd"}, "metric"),
    ({}, {"spacing_m": 300.0}, "spacing_m"),
])
def test_bad_requests_name_the_key(change, kwargs, key):
    sc = dict(RELAY, **change)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.expected_throughput(sc, **kwargs)
    assert e.value.key == key, e.value


def test_wired_links_are_refused():
    sc = {"sim": {"duration": "5s"}, "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "1ms"}],
          "flow": [{"from": "a", "to": "b", "transport": "newreno", "app": {"kind": "bulk"}}]}
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.expected_throughput(sc)
    assert e.value.key == "link"
