"""The routing study (SPEC 9.4): its string and its moving field, bad input,
and the quick run's static and mobile experiments."""

import pandas as pd
import pytest
from conftest import check_outputs_kept_when_drawing_stops, reproduce_quick

from tcplab.studies import routing as rt


def test_string_is_the_studys():
    sc = rt.scenario("dsr", "sack", 3).data
    assert [n["position"] for n in sc["node"]] == [[250.0 * i, 0.0] for i in range(8)]
    w = sc["wireless"]
    assert (w["routing"], w["data_rate"], w["basic_rate"], w["rts_threshold"]) == ("dsr", "2Mbps", "1Mbps", 0)
    (f,) = sc["flow"]
    assert (f["from"], f["to"], f["transport"], f["packet_size"], f["window"]) == ("n0", "n3", "sack", 1460, 32)
    assert sc["sim"]["tcp_profile"] == "ns2"


@pytest.mark.parametrize("kwargs,key", [
    ({"protocol": "static"}, "protocol"), ({"variant": "cubic"}, "variant"), ({"hops": 0}, "hops"),
    ({"hops": 8}, "hops"), ({"profile": "ns3"}, "profile")])
def test_bad_arguments_name_the_key(kwargs, key):
    with pytest.raises(ValueError, match=f"^{key}: "):
        rt.scenario(**kwargs)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return reproduce_quick("routing", tmp_path_factory)


def test_quick_mode_writes_every_file(quick):
    for name in ["runs.csv", "static.csv", "throughput.csv", "mobile_runs.csv", "mobile.csv"] + [
            f"{f}.{e}" for f in ("throughput", "routing_overhead", "mobile") for e in ("png", "svg")]:
        assert (quick / name).stat().st_size > 0, name
    thr = pd.read_csv(quick / "throughput.csv")
    assert set(zip(thr.protocol, thr.variant)) == {(p, v) for p in rt.PROTOCOLS for v in rt.VARIANTS}
    assert list(thr.columns[2:]) == [f"{h} hops" for h in rt.QUICK_HOPS]
    mobile = pd.read_csv(quick / "mobile.csv")
    assert set(zip(mobile.protocol, mobile.variant)) == {(p, v) for p in rt.PROTOCOLS for v in rt.VARIANTS}
    assert (mobile.n == rt.QUICK_PATTERNS).all()


def test_one_hop_needs_no_route_and_carries_most(quick):
    s = pd.read_csv(quick / "static.csv")
    one = s[s.hops == 1]
    # One hop: every protocol delivers (the single-hop 802.11 throughput of a
    # 1500-byte TCP flow with RTS/CTS at 2 Mbit/s is about 1.2-1.3 Mbit/s).
    assert one.throughput_bps.between(1.1e6, 1.4e6).all()
    for (p, v), d in s.groupby(["protocol", "variant"]):
        assert d[d.hops == 1].throughput_bps.iloc[0] > d[d.hops > 1].throughput_bps.max(), (p, v)


def test_movement_patterns():
    a, b = rt.movement(4, 100.0), rt.movement(4, 100.0)
    assert a == b and a != rt.movement(5, 100.0) and len(a) == rt.MOBILE_NODES
    for node in a:
        x, y = node["position"]
        assert 0 <= x <= rt.FIELD[0] and 0 <= y <= rt.FIELD[1]
        for t, tx, ty, v in node["waypoints"]:
            assert 0 <= tx <= rt.FIELD[0] and 0 <= ty <= rt.FIELD[1] and rt.SPEED[0] <= v <= rt.SPEED[1]
        # Legs run back to back (no pause): each starts where the last ended.
        assert rt._position(node, 0.0) == pytest.approx(tuple(node["position"]))
        for prev, leg in zip(node["waypoints"], node["waypoints"][1:]):
            assert rt._position(node, leg[0]) == pytest.approx(tuple(prev[1:3]))
    tl = rt.hop_timeline(4, 100.0)
    assert sum(tl.values()) == pytest.approx(100.0 - rt.START)


def test_positions_move_as_the_core_moves_them():
    # The same rule as the core's waypoints (wireless/mobility.rs): from the
    # start towards the destination at the leg's speed, then stay.
    node = {"position": [0.0, 0.0], "waypoints": [[2.0, 300.0, 400.0, 10.0]]}
    assert rt._position(node, 1.0) == (0.0, 0.0)
    assert rt._position(node, 27.0) == pytest.approx((150.0, 200.0))
    assert rt._position(node, 99.0) == (300.0, 400.0)


def test_mobile_runs_follow_their_pattern(quick):
    m = pd.read_csv(quick / "mobile_runs.csv")
    # Expected throughput is a weighted static throughput: between 0 and
    # the 1-hop one; each pattern's hop counts are the same for every run.
    assert (m.expected_bps > 0).all() and (m.expected_bps < 1.4e6).all()
    assert m.groupby("pattern").mean_hops.nunique().eq(1).all()
    assert (m.throughput_bps > 0).all()


def test_protocols_pay_their_overhead(quick):
    s = pd.read_csv(quick / "static.csv")
    # Proactive protocols send control packets whatever the traffic: DSDV's
    # and OLSR's overhead is there even on one hop, AODV and DSR discover the
    # one route (and DSR's source routes ride in the data, not in control).
    one = s[(s.hops == 1) & (s.variant == "newreno")].set_index("protocol").routing_packets
    assert one["dsdv"] > one["aodv"] and one["olsr"] > one["aodv"]
    assert (s.routing_overhead >= 0).all() and (s.false_route_failures >= 0).all()


def test_mobile_figure_starts_at_zero_and_shows_the_ratio(quick):
    # Three patterns give 95 % half-widths above the means: the error bars
    # must not take the axes below 0. The ratio actual / expected (SPEC 9.4)
    # has its own panel.
    from tcplab.studies.figures import pyplot

    plt = pyplot()
    mobile = pd.read_csv(quick / "mobile.csv")
    assert (mobile.throughput_bps_ci95 > mobile.throughput_bps).any()
    fig = rt._mobile(plt, mobile)
    try:
        axes = fig.get_axes()
        assert len(axes) == len(rt.PROTOCOLS) + 1
        assert all(ax.get_ylim()[0] == 0 for ax in axes)
        assert axes[-1].get_ylabel() == "actual / expected"
    finally:
        plt.close(fig)


def test_interrupted_while_drawing_leaves_the_earlier_outputs_whole(quick, tmp_path, monkeypatch):
    """Ctrl-C while the figures are drawn (the last one, the tables and
    other figures made): the directory keeps the earlier set whole."""
    check_outputs_kept_when_drawing_stops(rt, quick, tmp_path, monkeypatch, "_by_protocol", after=1)
