"""The multihop study (SPEC 9.3): its chain, its configurations, bad input,
and what the quick run must show."""

import pandas as pd
import pytest
from conftest import check_outputs_kept_when_drawing_stops, reproduce_quick

import tcplab
from tcplab.studies import multihop as mh


def test_chain_is_the_studys():
    sc = mh.scenario(7, "vegas3+thin").data
    assert [n["position"] for n in sc["node"]] == [[250.0 * i, 0.0] for i in range(8)]
    w = sc["wireless"]
    assert (w["data_rate"], w["basic_rate"], w["rts_threshold"], w["routing"]) == ("2Mbps", "1Mbps", 0, "aodv")
    assert w["aodv"]["net_diameter"] == 64 and w["profile"] == "standard"
    ns2 = mh.scenario(7, "newreno", profile="ns2", net_diameter=30).data["wireless"]
    assert ns2["profile"] == "ns2" and ns2["aodv"]["net_diameter"] == 30
    (f,) = sc["flow"]
    assert (f["from"], f["to"], f["transport"], f["packet_size"], f["window"]) == ("n0", "n7", "vegas", 1460, 32)
    assert f["vegas"] == {"alpha": 3, "beta": 3} and f["tcp"] == {"ack_thinning": True}
    assert sc["output"]["sample_interval"] == mh.SAMPLE
    plain = mh.scenario(7, "newreno").data["flow"][0]
    assert "vegas" not in plain and "tcp" not in plain
    udp = mh.scenario(16, "udp", interval_ms=25).data
    assert udp["flow"][0]["app"] == {"kind": "cbr", "start": "1s", "interval": "25ms"} and "output" not in udp


@pytest.mark.parametrize("hops,window", [(2, 1), (4, 1), (5, 2), (7, 2), (8, 2), (9, 3), (64, 16)])
def test_clamped_window_is_h_over_4_rounded_up(hops, window):
    assert mh.clamp_window(hops) == window
    assert mh.scenario(hops, "newreno+clamp").data["flow"][0]["window"] == window


@pytest.mark.parametrize("kwargs,key", [
    ({"config": "cubic"}, "config"), ({"hops": 0}, "hops"), ({"hops": 2.5}, "hops"),
    ({"rate": "3Mbps"}, "rate"), ({"config": "udp"}, "interval_ms"),
    ({"config": "udp", "interval_ms": -1}, "interval_ms"), ({"profile": "linux"}, "profile"),
    ({"net_diameter": 0}, "net_diameter"), ({"net_diameter": 300}, "net_diameter")])
def test_bad_arguments_name_the_key(kwargs, key):
    with pytest.raises(ValueError, match=f"^{key}: "):
        mh.scenario(**kwargs)


def test_every_chain_length_of_the_study_finds_its_route():
    # 64 hops need AODV's net_diameter above ns-2.35's 30: with it the route
    # is found and data flow end to end within a short run.
    res = tcplab.run(mh.scenario(64, "vegas2", duration="20s"))
    assert res.flows.goodput_bps[0] > 0


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return reproduce_quick("multihop", tmp_path_factory)


def test_quick_mode_writes_every_file(quick):
    for name in ["runs.csv", "hops.csv", "rates.csv", "udp.csv", "udp_bound.csv"] + [
            f"{f}.{e}" for f in ("versus_hops", "rates_7hop", "udp_interval") for e in ("png", "svg")]:
        assert (quick / name).stat().st_size > 0, name
    hops = pd.read_csv(quick / "hops.csv")
    assert set(zip(hops.hops, hops.config)) == {(h, c) for h in mh.QUICK_HOPS for c in mh.CONFIGS}
    assert (hops.n == mh.QUICK_SEEDS).all()
    rates = pd.read_csv(quick / "rates.csv")
    assert set(zip(rates.rate, rates.config)) == {(r, c) for r in mh.RATES for c in mh.CONFIGS}
    udp = pd.read_csv(quick / "udp.csv")
    assert set(zip(udp.hops, udp.interval_ms)) == {(h, i) for h in mh.QUICK_HOPS for i in mh.QUICK_UDP_INTERVALS_MS}


def test_measures_are_within_their_ranges(quick):
    h = pd.read_csv(quick / "hops.csv")
    assert ((h.ll_drop_probability >= 0) & (h.ll_drop_probability <= 1)).all()
    assert (h.false_route_failures <= h.link_failures).all()
    # The sender's window never exceeds what limits it.
    clamp = h[h.config == "newreno+clamp"]
    assert (clamp.avg_window_pkts <= clamp.hops.map(mh.clamp_window) + 1e-9).all()
    assert (h.avg_window_pkts <= mh.WINDOW).all() and (h.avg_window_pkts >= 1).all()


def test_paced_udp_bounds_every_tcp(quick):
    h = pd.read_csv(quick / "hops.csv")
    bound = pd.read_csv(quick / "udp_bound.csv").set_index("hops").goodput_bps
    best_tcp = h.groupby("hops").goodput_bps.max()
    assert (bound.loc[best_tcp.index] > best_tcp).all()


def test_vegas_keeps_the_chain_out_of_overload(quick):
    # The study's finding: on chains of 4 hops and more NewReno fills the
    # 32-packet window, the MACs drop frames after their retries and AODV
    # takes the drops for broken links; Vegas keeps a few packets in
    # flight, retransmits nearly nothing and gets more through.
    h = pd.read_csv(quick / "hops.csv").set_index(["hops", "config"])
    for hops in (4, 7, 16):
        nr, v = h.loc[(hops, "newreno")], h.loc[(hops, "vegas2")]
        assert v.goodput_bps > nr.goodput_bps
        assert v.retransmits < nr.retransmits and v.false_route_failures < nr.false_route_failures
        assert v.avg_window_pkts < nr.avg_window_pkts / 2


def test_faster_rates_carry_more(quick):
    r = pd.read_csv(quick / "rates.csv").pivot(index="config", columns="rate", values="goodput_bps")
    assert (r["11Mbps"] > r["2Mbps"]).all() and (r["5.5Mbps"] > r["2Mbps"]).all()


def test_interrupted_while_drawing_leaves_the_earlier_outputs_whole(quick, tmp_path, monkeypatch):
    """Ctrl-C while the figures are drawn (the last one, the tables and
    other figures made): the directory keeps the earlier set whole."""
    check_outputs_kept_when_drawing_stops(mh, quick, tmp_path, monkeypatch, "_udp")
