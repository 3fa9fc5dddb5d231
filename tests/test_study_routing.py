"""The routing study (SPEC 9.4): its string, bad input, and the quick run's
static experiment; the mobile experiment is reported as not run."""

import pandas as pd
import pytest
from conftest import reproduce_quick

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
    for name in ["runs.csv", "static.csv", "throughput.csv", "NOT_RUN.txt"] + [
            f"{f}.{e}" for f in ("throughput", "routing_overhead") for e in ("png", "svg")]:
        assert (quick / name).stat().st_size > 0, name
    thr = pd.read_csv(quick / "throughput.csv")
    assert set(zip(thr.protocol, thr.variant)) == {(p, v) for p in rt.PROTOCOLS for v in rt.VARIANTS}
    assert list(thr.columns[2:]) == [f"{h} hops" for h in rt.QUICK_HOPS]
    assert "mobility" in (quick / "NOT_RUN.txt").read_text()


def test_one_hop_needs_no_route_and_carries_most(quick):
    s = pd.read_csv(quick / "static.csv")
    one = s[s.hops == 1]
    # One hop: every protocol delivers (the single-hop 802.11 throughput of a
    # 1500-byte TCP flow with RTS/CTS at 2 Mbit/s is about 1.2-1.3 Mbit/s).
    assert one.throughput_bps.between(1.1e6, 1.4e6).all()
    for (p, v), d in s.groupby(["protocol", "variant"]):
        assert d[d.hops == 1].throughput_bps.iloc[0] > d[d.hops > 1].throughput_bps.max(), (p, v)


def test_protocols_pay_their_overhead(quick):
    s = pd.read_csv(quick / "static.csv")
    # Proactive protocols send control packets whatever the traffic: DSDV's
    # and OLSR's overhead is there even on one hop, AODV and DSR discover the
    # one route (and DSR's source routes ride in the data, not in control).
    one = s[(s.hops == 1) & (s.variant == "newreno")].set_index("protocol").routing_packets
    assert one["dsdv"] > one["aodv"] and one["olsr"] > one["aodv"]
    assert (s.routing_overhead >= 0).all() and (s.false_route_failures >= 0).all()
