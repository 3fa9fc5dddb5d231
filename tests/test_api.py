import math
import re

import pandas as pd
import pytest

import tcplab
from conftest import SCENARIOS


def test_run_returns_dataframes(small_scenario):
    res = tcplab.run(small_scenario)
    assert isinstance(res.flows, pd.DataFrame)
    assert list(res.flows["flow"]) == ["f1", "f2"]
    for col in ["flow", "src", "dst", "transport", "throughput_bps", "goodput_bps", "bytes_delivered",
                "retransmits", "timeouts", "fast_retransmits", "completion_s"]:
        assert col in res.flows.columns
    f1, f2 = res.flows.iloc[0], res.flows.iloc[1]
    assert 0 < f1.throughput_bps < 1e6
    assert math.isnan(f1.completion_s)  # bulk: no completion
    assert f2.bytes_delivered == 50000 and f2.completion_s > 0
    assert {"packets_sent", "drops_overflow", "drops_corruption"} <= set(res.links.columns)
    assert len(res.links) == 4  # two links, two directions each
    assert res.links.loc[(res.links.link == 1) & (res.links.direction == "forward"), "drops_corruption"].item() > 0
    assert res.series.empty
    assert res.summary["events"] > 0 and res.summary["seed"] == 1


def test_time_series_on_request(small_scenario):
    res = tcplab.run(small_scenario, sample_interval="500ms")
    s = res.series
    assert {"time_s", "flow", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rto_s", "snd_max", "snd_una"} <= set(s.columns)
    assert len(s[s.flow == "f1"]) == 41  # 0, 0.5, ..., 20 s (both ends)
    assert (s.cwnd_bytes >= 1000).all()
    q = res.queues
    assert {"time_s", "link", "direction", "queue_packets", "queue_bytes"} <= set(q.columns)
    assert q.queue_packets.max() > 0


def test_an_unset_ssthresh_is_an_empty_cell(small_scenario):
    # The linux profile starts with an infinite ssthresh: no number (not
    # the largest integer) until the first loss sets one.
    small_scenario["sim"]["tcp_profile"] = "linux"
    res = tcplab.run(small_scenario, sample_interval="500ms")
    f1 = res.series[res.series.flow == "f1"]
    assert f1.ssthresh_bytes.iloc[0] is None or math.isnan(f1.ssthresh_bytes.iloc[0])
    assert f1.ssthresh_bytes.dropna().between(1, 1e9).all() and f1.ssthresh_bytes.notna().any()
    first = res.csv("series").splitlines()[1].split(",")
    assert first[3] == ""


def test_trace_on_request(small_scenario):
    res = tcplab.run(small_scenario, trace=True)
    kinds = set(res.trace.kind)
    assert {"send", "ack", "dupack", "retransmit", "drop"} <= kinds
    small_scenario["flow"][0]["transport"] = "sack"
    t = tcplab.run(small_scenario, trace=True).trace
    sacks = t[(t.flow == "f1") & (t.kind == "sack")]
    assert len(sacks) > 0 and (sacks.len > 0).all()



def test_a_lost_syn_is_traced_as_a_drop(small_scenario):
    # The first packet on the access link is f1's SYN: dropped, it is traced
    # (len 0) and sent again after the initial RTO (3 s, ns2 profile).
    small_scenario["link"][0]["error"] = {"kind": "pattern", "drop": [1], "packets": "all"}
    t = tcplab.run(small_scenario, trace=True).trace
    f1 = t[t.flow == "f1"]
    assert list(f1.kind[:3]) == ["send", "drop", "retransmit"], f1.head()
    assert list(f1.seq[:3]) == [0, 0, 0] and list(f1.len[:3]) == [0, 0, 0]


def test_the_syns_answer_is_traced_as_an_ack_not_a_duplicate(small_scenario):
    # The handshake's SYN (seq 0, no payload) is answered with ack 0: it
    # acknowledges no data, yet it is no duplicate ACK.
    t = tcplab.run(small_scenario, trace=True).trace
    f1 = t[t.flow == "f1"]
    assert list(f1.kind[:2]) == ["send", "ack"] and list(f1.seq[:2]) == [0, 0]


def test_load_scenario_and_overrides():
    sc = tcplab.load_scenario(SCENARIOS / "dumbbell.toml")
    sc2 = sc.with_overrides(["flow[*].transport=reno", "sim.duration=5s", "link.7.error.rate=0"], seed=9)
    assert all(f["transport"] == "reno" for f in sc2.data["flow"])
    assert sc.data["flow"][0]["transport"] == "newreno"  # original untouched
    res = tcplab.run(sc2)
    assert set(res.flows.transport) == {"reno"}
    assert res.links.drops_corruption.sum() == 0
    assert res.summary["seed"] == 9


def test_path_scenario_and_dict_run_alike_and_leave_the_callers_data_alone():
    # A path is read and edited in place (nobody else holds that dict); a
    # Scenario or a dict is copied first. All three give the same tables,
    # and the JSON a run hands the core is the one it validated.
    path = SCENARIOS / "dumbbell.toml"
    overrides = ["sim.duration=3s", "flow[*].transport=reno"]
    sc = tcplab.load_scenario(path)
    as_dict = tcplab.load_scenario(path).data
    runs = [tcplab.run(x, overrides=overrides, seed=3) for x in (path, str(path), sc, as_dict)]
    for r in runs[1:]:
        assert r.csv("flows") == runs[0].csv("flows") and r.csv("links") == runs[0].csv("links")
    assert set(runs[0].flows.transport) == {"reno"}
    assert sc.data == as_dict == tcplab.load_scenario(path).data  # the callers' data untouched
    from tcplab.api import _prepare
    prepared, text = _prepare(path, seed=3, overrides=overrides, sample_interval=None, trace=None, pcap=())
    assert text == prepared.to_json()
    assert prepared.data["sim"]["duration"] == "3s" and prepared.data["sim"]["seed"] == 3


def test_same_seed_same_tables(small_scenario):
    a = tcplab.run(small_scenario, seed=4)
    b = tcplab.run(small_scenario, seed=4)
    c = tcplab.run(small_scenario, seed=5)
    assert a.csv("flows") == b.csv("flows") and a.csv("links") == b.csv("links")
    assert a.csv("flows") != c.csv("flows")


@pytest.mark.parametrize("patch,key", [
    (lambda s: s["link"][1].update(rate="fast"), "link[1].rate"),
    (lambda s: s["flow"][0].update(transport="quic"), "flow[0].transport"),
    (lambda s: s["flow"][0].update(to="nowhere"), "flow[0].to"),
    (lambda s: s["sim"].update(colour="red"), "sim.colour"),
    (lambda s: s["link"][1]["error"].update(rate=2), "link[1].error.rate"),
])
def test_bad_input_raises_scenario_error_with_key(small_scenario, patch, key):
    patch(small_scenario)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(small_scenario)
    assert e.value.key == key
    assert str(e.value).startswith(key)


def test_bad_api_arguments(small_scenario):
    with pytest.raises(tcplab.ScenarioError, match="sim.seed"):
        tcplab.run(small_scenario, seed=-1)
    with pytest.raises(tcplab.ScenarioError, match="expected a Scenario"):
        tcplab.run(42)
    with pytest.raises(tcplab.ScenarioError, match="out of range"):
        tcplab.run(small_scenario, overrides=["flow[5].window=3"])
    with pytest.raises(tcplab.ScenarioError, match="KEY=VALUE"):
        tcplab.run(small_scenario, overrides=["nonsense"])


def test_profiles_switch_defaults_together(small_scenario):
    small_scenario["flow"] = small_scenario["flow"][:1]
    small_scenario["link"][1].pop("error")
    ns2 = tcplab.run(small_scenario, sample_interval="10ms").series
    # ns-2's SYN (syn_, delay_growth_): one segment until the SYN is acknowledged.
    assert ns2.cwnd_bytes.iloc[0] == 1000
    ns2 = tcplab.run(small_scenario, sample_interval="10ms", overrides=["tcp.syn=false"]).series
    small_scenario["sim"]["tcp_profile"] = "linux"
    linux = tcplab.run(small_scenario, sample_interval="10ms").series
    assert ns2.cwnd_bytes.iloc[0] == 2 * 1000  # ns-2: windowInit_ 2, packetSize_ 1000
    assert linux.cwnd_bytes.iloc[0] == 10 * 1448  # Linux: IW10, MSS 1448


def test_scenario_toml_read_by_the_core(tmp_path):
    """Scenario files are parsed by the core's TOML reader (not tomllib):
    key order kept, values typed as tomllib gives them, a date refused by
    validation with its key, bad TOML and deep nesting in one line each."""
    from tcplab import _core

    d = _core.toml_loads('b = 1\na = [1.5, "x", true]\n[t]\nz = { q = -2 }\ny = inf\n')
    assert list(d) == ["b", "a", "t"] and list(d["t"]) == ["z", "y"]
    assert d["a"] == [1.5, "x", True] and isinstance(d["b"], int) and d["t"]["z"] == {"q": -2}
    assert d["t"]["y"] == math.inf
    src = (SCENARIOS / "dumbbell.toml").read_text()
    assert tcplab.load_scenario(SCENARIOS / "dumbbell.toml").data == _core.toml_loads(src)

    dated = tmp_path / "dated.toml"
    dated.write_text(re.sub(r"(?m)^duration = .*$", "duration = 1979-05-27", src, count=1))
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(dated)
    assert e.value.key == "sim.duration" and "1979-05-27" in str(e.value)

    bad = tmp_path / "bad.toml"
    bad.write_text("[sim\n")
    with pytest.raises(tcplab.ScenarioError, match="invalid TOML"):
        tcplab.load_scenario(bad)
    bad.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(tcplab.ScenarioError, match="nested too deeply"):
        tcplab.load_scenario(bad)


def test_public_names_are_listed_and_load():
    """__all__ is spelled out for type checkers; it must list every lazily
    loaded name, and each must load (OutputError included: a failed write
    raises it from tcplab.run's Result.write and tcplab.sweep)."""
    assert set(tcplab.__all__) == {"__version__", "ScenarioError", *tcplab._LAZY}
    for name in tcplab.__all__:
        assert getattr(tcplab, name) is not None, name
    from tcplab.io import OutputError

    assert tcplab.OutputError is OutputError and issubclass(OutputError, OSError)
    assert callable(tcplab.sweep)  # the function, not the module of the same name


def test_numpy_integer_seed_is_a_seed(small_scenario):
    # numpy values inside the scenario were accepted, a numpy seed argument
    # refused ("sim.seed: must be a non-negative integer, got 3").
    import numpy as np

    res = tcplab.run(small_scenario, seed=np.int64(3))
    assert res.summary["seed"] == 3 and type(res.scenario.data["sim"]["seed"]) is int
    assert res.csv("flows") == tcplab.run(small_scenario, seed=3).csv("flows")
    for bad in (np.int64(-1), np.float64(3.0), True):
        with pytest.raises(tcplab.ScenarioError, match="sim.seed: must be a non-negative integer"):
            tcplab.run(small_scenario, seed=bad)


def test_summary_has_the_keys_of_summary_json(tmp_path, small_scenario):
    """Result.summary carries what summary.json carries: the version that
    ran and, for a scenario read from a file, that file; the two agree key
    for key (wall-clock values included: the file is written from the dict)."""
    import json

    path = SCENARIOS / "gsm9600.toml"
    res = tcplab.run(path, overrides=["sim.duration=2s"])
    assert res.summary["tcplab_version"] == tcplab.__version__
    assert res.summary["scenario"] == str(path)
    res.write(tmp_path / "out")
    assert json.loads((tmp_path / "out" / "summary.json").read_text()) == res.summary
    # A scenario loaded first keeps its file; a dict has none, in both.
    assert tcplab.run(tcplab.load_scenario(path), overrides=["sim.duration=2s"]).summary["scenario"] == str(path)
    res = tcplab.run(small_scenario)
    assert res.summary["tcplab_version"] == tcplab.__version__ and "scenario" not in res.summary
    res.write(tmp_path / "dict")
    assert json.loads((tmp_path / "dict" / "summary.json").read_text()) == res.summary


def test_summary_has_the_fairness_the_sweep_metrics_give(small_scenario):
    """summary.json's unfairness and Jain's index (the core's) are the
    sweeps' metrics of the same names on the run's flows; a starved flow
    makes the unfairness infinite, and a run without flows has neither."""
    import math

    from tcplab import metrics

    res = tcplab.run(small_scenario)
    flows = res.columns("flows")
    rates = flows["throughput_bps"]
    assert len(rates) == 2 and min(rates) > 0 and max(rates) > min(rates)
    for name in ("unfairness", "jain"):
        want = metrics.METRICS[name].compute(flows, res.summary, None)
        assert res.summary[name] == pytest.approx(want, rel=1e-12), name
    assert 0.5 < res.summary["jain"] < 1.0
    late = tcplab.run(small_scenario, overrides=['flow[1].app.start="30s"'])
    assert math.isinf(late.summary["unfairness"]) and late.summary["jain"] == pytest.approx(0.5)
    none = dict(small_scenario, flow=[])
    assert all(math.isnan(tcplab.run(none).summary[k]) for k in ("unfairness", "jain"))


def test_a_given_clock_phase_takes_the_seed_out_of_a_deterministic_run():
    """`tcp.clock_phase` (ns-2's boot_time_) replaces the per-flow draw: a
    run with losses only from a fixed list then does not depend on the
    seed; without it the seed moves the RTO tick phase and, here, the
    timeouts' times."""
    def sc(seed, phase=None):
        tcp = {"min_rto": "100ms"} | ({"clock_phase": phase} if phase else {})
        return {"sim": {"duration": "20s", "seed": seed, "tcp_profile": "ns2"},
                "node": [{"name": "a"}, {"name": "b"}],
                "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "50ms",
                          "error": {"kind": "pattern", "drop": list(range(20, 200, 9))}}],
                "flow": [{"from": "a", "to": "b", "transport": "reno", "app": {"kind": "bulk"}, "tcp": tcp}],
                "output": {"trace": True}}
    fixed = {tcplab.run(sc(s, "3ms")).trace.to_csv() for s in range(1, 6)}
    assert len(fixed) == 1
    drawn = {tcplab.run(sc(s)).trace.to_csv() for s in range(1, 6)}
    assert len(drawn) == 5


def test_an_error_model_for_one_flow_leaves_the_others_alone():
    """`flow` on an error model (ns-2's ErrorModule with a Fid classifier):
    on a link that both flows cross, the pattern counts and drops only f2's
    packets; f1 loses nothing, and f2 loses exactly its 12th data segment,
    whatever f1 sends in between."""
    def sc(flow=None):
        err = {"kind": "pattern", "drop": [12], "packets": "data"} | ({"flow": flow} if flow else {})
        return {"sim": {"duration": "5s", "tcp_profile": "ns2"},
                "node": [{"name": "a"}, {"name": "b"}, {"name": "r"}, {"name": "c"}],
                "link": [{"between": ["a", "r"], "rate": "10Mbps", "delay": "1ms"},
                         {"between": ["b", "r"], "rate": "10Mbps", "delay": "1ms"},
                         {"between": ["r", "c"], "rate": "10Mbps", "delay": "10ms", "error": err}],
                "flow": [{"name": "f1", "from": "a", "to": "c", "transport": "newreno", "app": {"kind": "bulk"}},
                         {"name": "f2", "from": "b", "to": "c", "transport": "newreno", "app": {"kind": "bulk",
                                                                                               "start": "0.3s"}}],
                "output": {"trace": True}}
    t = tcplab.run(sc("f2")).trace
    drops = t[t.kind == "drop"]
    assert list(drops.flow) == ["f2"] and list(drops.seq) == [11 * 1000]
    assert not ((t.flow == "f1") & (t.kind == "retransmit")).any()
    # Without `flow` the same pattern counts f1's segments too: the 12th data
    # segment on the link is f1's (f2 starts later).
    t = tcplab.run(sc()).trace
    assert list(t[t.kind == "drop"].flow) == ["f1"]


@pytest.mark.parametrize("profile,states", [("ns2", {"open", "recovery"}),
                                            ("linux", {"open", "recovery", "loss", "cwr"})])
def test_series_name_linuxs_congestion_state(small_scenario, profile, states):
    """series.csv's `ca_state`: Linux's congestion state (the emulator
    reads the kernel's into the same column). Random losses put every
    profile in fast recovery; ns-2's senders keep no Loss or CWR state."""
    small_scenario["sim"]["tcp_profile"] = profile
    s = tcplab.run(small_scenario, sample_interval="10ms").series
    seen = set(s.ca_state)
    assert "recovery" in seen and "open" in seen and seen <= states, seen


def test_a_capture_outlives_the_result_it_came_from():
    # `tcplab.run(sc).pcaps[name]` drops the Result before the read: the
    # temporary directory holding the capture must still be there.
    sc = tcplab.load_scenario(SCENARIOS / "dumbbell.toml").with_overrides(['sim.duration="1s"'])
    sc.data["pcap"] = [{"node": sc.data["node"][0]["name"]}]
    data = tcplab.run(sc).pcaps[f"node-{sc.data['node'][0]['name']}"]
    assert data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") and len(data) > 24
