"""The wifi-bs study (SPEC 9.5): its network, bad input, and the quick run's
tables and figures, with the mechanisms the study is about checked in them:
RED at the base stations' links (ECN marks for the E- variants, drops for
the others), the radio's frame errors, and Snoop on the downlink only."""

import json
import math

import pandas as pd
import pytest
from conftest import check_outputs_kept_when_drawing_stops, reproduce_quick

import tcplab
from tcplab.studies import wifibs as wb


def test_network_is_the_studys():
    sc = wb.scenario("e-vegas", "bi", True, 0.05, seed=3).data
    nodes = {n["name"]: n for n in sc["node"]}
    assert set(nodes) == {"w1", "w2", "bs1", "bs2"} | {f"{c}{i}" for c in "ab" for i in range(1, 7)}
    assert nodes["bs1"]["snoop"] and nodes["bs2"]["snoop"] and "base_station" not in nodes["bs1"]
    for name, n in nodes.items():
        if name[0] in "ab" and name[1:].isdigit():
            bs = "bs1" if name[0] == "a" else "bs2"
            assert n["base_station"] == bs and n["frame_error_rate"] == 0.05
            x, y = n["position"]
            bx, by = wb.BASE_STATIONS[bs]
            # In its cell's half of the 600 m x 600 m area, within range of its base station.
            assert (x <= 300) == (bs == "bs1") and 0 <= x <= 600 and 0 <= y <= 600
            assert math.hypot(x - bx, y - by) <= wb.CELL_RADIUS
    links = sc["link"]
    assert [(l["between"], l["rate"], l["delay"]) for l in links] == [
        (["bs1", "w1"], "1e+06bps", "1ms"), (["w1", "w2"], "10Mbps", "1ms"), (["w2", "bs2"], "1e+06bps", "1ms")]
    red = links[0]["queue"]
    # ns-2.35's automatic RED for a 1 Mbit/s 1 ms link (red.cc).
    assert (red["min_th"], red["max_th"], red["ecn"]) == (5.0, 15.0, True)
    assert red["weight"] == pytest.approx(1 - math.exp(-1 / 250))
    flows = sc["flow"]
    assert len(flows) == 12 and {f["transport"] for f in flows} == {"vegas"} and all(f["ecn"] for f in flows)
    assert sc["wireless"]["routing"] == "dsdv"
    # Each seed places the stations anew; the same seed the same way.
    assert wb.placement(3) == wb.placement(3) != wb.placement(4)


def test_the_sweep_places_the_stations_per_seed(tmp_path):
    # Each seed is another layout (and the same seed the same one): the
    # sweep hands its seed to the builder, not only to the simulation.
    sw = wb.make_sweep(tmp_path, quick=False)
    cell = {"direction": "uni", "variant": "reno", "snoop": False, "error": 0.0}
    for seed in (1, 2):
        sc = json.loads(sw._scenario_text(cell, seed))
        assert sc["sim"]["seed"] == seed
        assert {n["name"]: n["position"] for n in sc["node"] if "base_station" in n} == wb.placement(seed)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("kwargs,key", [
    ({"variant": "cubic"}, "variant"), ({"direction": "both"}, "direction"), ({"snoop": 1}, "snoop"),
    ({"error": 1.5}, "error"), ({"error": True}, "error"), ({"profile": "ns3"}, "profile")])
def test_bad_arguments_name_the_key(kwargs, key):
    with pytest.raises(ValueError, match=f"^{key}: "):
        wb.scenario(**kwargs)


def test_red_links_mark_ecn_flows_and_drop_the_others():
    # One way at 11 Mbit/s the 1 Mbit/s link out of bs1 is the bottleneck:
    # RED marks E-NewReno's packets where it drops NewReno's.
    plain = tcplab.run(wb.scenario("newreno", "uni", False, 0.0, duration=40.0))
    ecn = tcplab.run(wb.scenario("e-newreno", "uni", False, 0.0, duration=40.0))
    assert plain.links.ecn_marks.sum() == 0 and plain.links.drops_red[0] > 0
    assert ecn.links.ecn_marks[0] > 0 and ecn.flows.ecn_reductions.sum() > 0
    assert plain.flows.ecn_reductions.sum() == 0
    assert plain.links.utilization[0] > 0.6


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return reproduce_quick("wifi-bs", tmp_path_factory)


def test_quick_mode_writes_every_file(quick):
    figures = [f"{f}_{d}" for f in ("throughput_time", "cwnd_time", "goodput_error") for d in wb.DIRECTIONS]
    for name in ["runs.csv", "summary.csv"] + [f"{f}.{e}" for f in figures for e in ("png", "svg")]:
        assert (quick / name).stat().st_size > 0, name
    s = pd.read_csv(quick / "summary.csv")
    assert set(zip(s.direction, s.variant, s.snoop, s.error)) == {
        (d, v, sn, e) for d in wb.DIRECTIONS for v in wb.VARIANTS for sn in (False, True) for e in wb.QUICK_ERRORS}
    assert (s.goodput_bps > 0).all()
    # Bidirectional runs carry both ways; one-way runs have no reverse flows.
    assert s[s.direction == "bi"].reverse_goodput_bps.gt(0).all()
    assert s[s.direction == "uni"].reverse_goodput_bps.isna().all()


def test_frame_errors_and_snoop_show_where_they_should(quick):
    s = pd.read_csv(quick / "summary.csv")
    assert (s[s.error == 0].frame_errors == 0).all() and (s[s.error > 0].frame_errors > 0).all()
    # Without Snoop nothing is retransmitted locally; with it and frame
    # errors on the radio, something is (the downlink's MAC gives up on a
    # frame now and then).
    assert (s[~s.snoop].local_retransmits == 0).all()
    assert s[s.snoop & (s.error > 0)].local_retransmits.sum() > 0
    # Only ECN flows are cut by ECN echoes.
    assert (s[~s.variant.str.startswith("e-")].ecn_reductions == 0).all()


def test_time_series_cover_the_transfer():
    r = tcplab.run(wb.scenario("reno", "uni", False, 0.05, duration=20.0))
    series = {c: list(r.series[c]) for c in r.series.columns}
    m = wb.run_metrics({c: list(r.flows[c]) for c in r.flows.columns},
                       {c: list(r.nodes[c]) for c in r.nodes.columns}, series, {})
    thr = json.loads(m["throughput_series"])
    last = max(series["time_s"])
    assert len(thr) == round((last - wb.START) / wb.SAMPLE)
    # Nothing is delivered before the start, so the per-second throughputs
    # add up to everything delivered by the last sample.
    delivered = sum(d for t, d in zip(series["time_s"], series["bytes_delivered"]) if t == last)
    assert sum(thr) == pytest.approx(8 * delivered, abs=len(thr))
    assert len(json.loads(m["cwnd_series"])) == len(thr) + 1


def test_interrupted_while_drawing_leaves_the_earlier_outputs_whole(quick, tmp_path, monkeypatch):
    """Ctrl-C while the figures are drawn (the third, two made): the
    directory keeps the earlier set of tables and figures whole."""
    check_outputs_kept_when_drawing_stops(wb, quick, tmp_path, monkeypatch, "_goodput_vs_error")
