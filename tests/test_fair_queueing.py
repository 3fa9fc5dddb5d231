"""Fair queueing and CoDel at a bottleneck (`queue.kind = "drr"`,
`"codel"`, `"fq-codel"`): what each is for, measured on the RTT-unfair
dumbbell of validation/congested.py (four NewReno flows, one-way access
delays 1-60 ms, 10 Mbit/s, 20 ms), the queue CoDel keeps for one flow
against a bloated drop-tail buffer, ECN marks in place of drops, DRR's two
classifications, input checks and determinism. The disciplines' rules are
tested packet by packet in crates/tcplab-core/src/net/{drr,codel,fq_codel}.rs;
DRR beside ns-2.35's Queue/DRR in tests/test_ns2_congested.py."""
from __future__ import annotations

import json
import sys

import pytest

import tcplab
from conftest import ROOT, cli_refusal
from tcplab import ScenarioError

sys.path.insert(0, str(ROOT))
from validation.congested import NR, dumbbell  # noqa: E402


def jain(xs: list) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def rtts(queue: dict, duration: str = "60s", flow: dict = NR, profile: str = "ns2") -> tuple:
    """Throughputs (Mbit/s) of the four flows, and the bottleneck's row of
    the links table."""
    sc = dumbbell([flow] * 4, seed=1, duration=duration, rate="10Mbps", delay="20ms", queue=queue,
                  access_ms=[1, 10, 30, 60], window=1000)
    sc["sim"]["tcp_profile"] = profile
    r = tcplab.run(sc)
    f, ln = r.columns("flows"), r.columns("links")
    i = next(k for k in range(len(ln["link"])) if (ln["from"][k], ln["to"][k]) == ("r1", "r2"))
    return [x / 1e6 for x in f["throughput_bps"]], {c: ln[c][i] for c in ln}


@pytest.fixture(scope="module")
def disciplines():
    return {kind: rtts(q) for kind, q in {
        "droptail": {"kind": "droptail", "limit": 100},
        "drr": {"kind": "drr", "blimit": 104_000, "quantum": 1040},
        "fq-codel": {"kind": "fq-codel"},
        "codel": {"kind": "codel"},
    }.items()}


def test_per_flow_queueing_undoes_the_rtt_unfairness(disciplines):
    """Drop-tail gives the 2 ms-RTT flow most of the link (Jain's index
    0.46 here); DRR and FQ-CoDel share it nearly evenly (measured 0.988 and
    0.980), CoDel alone does not (0.87)."""
    assert jain(disciplines["droptail"][0]) < 0.6
    assert jain(disciplines["drr"][0]) > 0.95
    assert jain(disciplines["fq-codel"][0]) > 0.95
    assert jain(disciplines["codel"][0]) < 0.95
    for kind, (tp, link) in disciplines.items():
        assert link["utilization"] > 0.9, (kind, link["utilization"])


def test_codel_keeps_the_queue_short_where_drr_fills_its_buffer(disciplines):
    """DRR, like drop-tail, runs its buffer full (77 packets on average);
    CoDel and FQ-CoDel drop as packets leave and hold about 7-9 packets
    (6-8 ms at 10 Mbit/s, near the 5 ms target)."""
    assert disciplines["drr"][1]["mean_queue"] > 50
    for kind in ("codel", "fq-codel"):
        link = disciplines[kind][1]
        assert link["mean_queue"] * 1040 * 8 / 10e6 < 0.015, (kind, link["mean_queue"])
        assert link["drops_codel"] > 50 and link["drops_overflow"] == 0, (kind, link)
    assert disciplines["drr"][1]["drops_codel"] == 0 and disciplines["drr"][1]["drops_overflow"] > 0


def test_codel_holds_one_flows_queue_near_target_against_bufferbloat():
    """One NewReno flow (100 ms RTT, 10 Mbit/s: 120 packets in flight)
    into a 1000-packet buffer: drop-tail lets the standing queue grow (140
    ms on average here). CoDel drops as soon as the queue stands above 5 ms
    for 100 ms, so the window saws between about half the pipe and the
    pipe with almost no queue: the analytic utilization of that sawtooth
    is 3/4 (measured 0.76, with 1.5 ms of mean queueing delay; CoDel's
    known cost for a lone long-RTT flow)."""
    def one(queue):
        sc = dumbbell([NR], seed=1, duration="60s", rate="10Mbps", delay="49ms", queue=queue, window=10_000)
        ln = tcplab.run(sc).columns("links")
        i = next(k for k in range(len(ln["link"])) if (ln["from"][k], ln["to"][k]) == ("r1", "r2"))
        return ln["mean_queue"][i] * 1040 * 8 / 10e6, ln["utilization"][i]
    bloat, full = one({"kind": "droptail", "limit": 1000})
    delay, util = one({"kind": "codel", "limit": 1000})
    assert bloat > 0.1 and full > 0.9, (bloat, full)
    assert delay < 0.005, delay
    assert util == pytest.approx(0.75, abs=0.05)


def test_ecn_capable_packets_are_marked_instead_of_dropped():
    """FQ-CoDel marks (its default `ecn = true`): ECN flows lose nothing to
    CoDel and cut their windows on the echoes; with `ecn = false` the same
    flows are dropped from."""
    ecn = {"transport": "newreno", "ecn": True}
    tp, link = rtts({"kind": "fq-codel"}, flow=ecn)
    assert link["ecn_marks"] > 50 and link["drops_codel"] == 0, link
    tp, link = rtts({"kind": "fq-codel", "ecn": False}, flow=ecn)
    assert link["ecn_marks"] == 0 and link["drops_codel"] > 50, link


def test_linux_cubic_flows_through_fq_codel():
    cubic = {"transport": "cubic", "tcp": {"sack": True}}
    tp, link = rtts({"kind": "fq-codel"}, flow=cubic, profile="linux", duration="30s")
    assert jain(tp) > 0.95 and link["utilization"] > 0.9, (tp, link)


def two_sources(classify: str) -> list:
    """Flows a0 and a1 from node a, b0 from node b, one DRR bottleneck."""
    sc = {"sim": {"duration": "60s", "seed": 1},
          "node": [{"name": n} for n in ("a", "b", "r", "d")],
          "link": [{"between": ["a", "r"], "rate": "100Mbps", "delay": "1ms"},
                   {"between": ["b", "r"], "rate": "100Mbps", "delay": "1ms"},
                   {"between": ["r", "d"], "rate": "3Mbps", "delay": "20ms",
                    "queue": {"kind": "drr", "blimit": 31_200, "quantum": 1040, "classify": classify}}],
          "flow": [{"name": n, "from": s, "to": "d", "transport": "newreno", "window": 100, "app": {"kind": "bulk"}}
                   for n, s in (("a0", "a"), ("a1", "a"), ("b0", "b"))]}
    return list(tcplab.run(sc).columns("flows")["throughput_bps"])


def test_drr_shares_by_source_as_ns2_or_by_flow():
    """ns-2's DRR hashes the source address: node a's two flows share one
    bucket, so b's flow gets half the link. `classify = "flow"` gives each
    flow its own (here: no collision among three flows)."""
    a0, a1, b0 = two_sources("source")
    assert b0 / (a0 + a1 + b0) == pytest.approx(0.5, abs=0.03)
    a0, a1, b0 = two_sources("flow")
    for x in (a0, a1, b0):
        assert x / (a0 + a1 + b0) == pytest.approx(1 / 3, abs=0.03)


def key_of(queue: dict) -> str:
    sc = dumbbell([NR], seed=1, duration="1s", queue=queue)
    with pytest.raises(ScenarioError) as e:
        tcplab.run(sc)
    return e.value.key


@pytest.mark.parametrize("queue,key", [
    ({"kind": "fq-codel", "flows": 0}, "link[2].queue.flows"),
    ({"kind": "fq-codel", "flows": 70_000}, "link[2].queue.flows"),
    ({"kind": "fq-codel", "quantum": 100}, "link[2].queue.quantum"),
    ({"kind": "fq-codel", "drop_batch": 0}, "link[2].queue.drop_batch"),
    ({"kind": "fq_codel", "target": "0s"}, "link[2].queue.target"),
    ({"kind": "codel", "limit": 0}, "link[2].queue.limit"),
    ({"kind": "codel", "interval": "1ns"}, "link[2].queue.interval"),
    ({"kind": "drr", "buckets": 0}, "link[2].queue.buckets"),
    ({"kind": "drr", "blimit": 0}, "link[2].queue.blimit"),
    ({"kind": "drr", "classify": "port"}, "link[2].queue.classify"),
    ({"kind": "drr", "limit": 10}, "link[2].queue.limit"),
])
def test_bad_parameters_name_the_key(queue, key):
    assert key_of(queue) == key


def test_bad_input_exits_2_from_the_cli(tmp_path):
    line = cli_refusal(tmp_path, '[sim]\nduration = "1s"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
                       '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "1ms"\n'
                       'queue = { kind = "fq-codel", quantum = 10 }\n'
                       '[[flow]]\nfrom = "a"\nto = "b"\ntransport = "reno"\napp = { kind = "bulk" }\n')
    assert "link[0].queue.quantum" in line and "256" in line


def test_an_unknown_kind_lists_the_disciplines(tmp_path):
    sc = dumbbell([NR], seed=1, duration="1s", queue={"kind": "sfq"})
    with pytest.raises(ScenarioError) as e:
        tcplab.run(sc)
    assert e.value.key == "link[2].queue.kind"
    for kind in ("drr", "codel", "fq-codel"):
        assert kind in str(e.value)


def test_same_seed_same_results_and_the_seed_keys_the_hash():
    sc = dumbbell([NR] * 6, seed=4, duration="20s", rate="5Mbps",
                  queue={"kind": "fq-codel", "flows": 8})
    a, b = tcplab.run(sc), tcplab.run(sc)
    assert a.flows.equals(b.flows) and a.links.equals(b.links)
    # Six flows in eight queues collide for most keys; another seed draws
    # another key (and other start times), and other shares.
    sc["sim"]["seed"] = 5
    c = tcplab.run(sc)
    assert not a.flows.equals(c.flows)


def test_example_sweep_orders_the_disciplines_by_fairness(tmp_path):
    """scenarios/sweeps/fair-queueing.toml, one seed of 10 s: drop-tail
    shares least evenly, FQ-CoDel most (measured Jain's index: drop-tail
    0.75, DRR 0.93, CoDel 0.93, FQ-CoDel 0.97)."""
    from tcplab.sweepfile import load_sweep_file

    spec = load_sweep_file(ROOT / "scenarios" / "sweeps" / "fair-queueing.toml")
    assert list(spec.grid) == ["link[4].queue"]
    res = tcplab.sweep(ROOT / "scenarios" / "fair-queueing.toml", dict(spec.grid), seeds=[1],
                       metrics=["jain"], overrides=["sim.duration=10s"], out=tmp_path, progress=False, jobs=1)
    jain_of = {json.loads(q)["kind"]: j for q, j in zip(res.summary["link[4].queue"], res.summary.jain_mean)}
    assert jain_of["droptail"] < min(jain_of["drr"], jain_of["fq-codel"]), jain_of
    assert jain_of["codel"] < jain_of["fq-codel"], jain_of
