"""TCP with Adaptive Pacing (`transport = "tcp_ap"`: NewReno whose window
is released one segment per pacing interval, the interval the estimated
four-hop delay widened by the variation of the samples; ElRakabawy, Klemm
and Lindemann, MobiHoc 2005, as the authors' ns-2 agent runs it): its
input checks, the interval against the analytic per-hop split of a known
round trip on one link and across routers (where the four-hop rule
applies), a fast retransmit that goes at once without stalling the
pacing, and on the 802.11 chain the effect the paper reports (no
retransmissions where NewReno's bursts make the MAC report false link
failures to AODV). The estimator's arithmetic is tested step by step in
crates/tcplab-core/src/transport/tcp/adaptive_pacing.rs; docs/models.md,
"TCP-AP", describes the model and where it departs from the agent."""
from __future__ import annotations

import copy
import tomllib

import numpy as np
import pytest

import tcplab
from conftest import ROOT, cli_refusal, one_flow_toml, scenario_error_key

MSS = 1000
# On the wire: payload + 40 bytes of headers + 12 of the timestamp option.
DATA, ACK = MSS + 52, 52
LINK = 10e6


def path(hops: int = 1, delay: float = 0.020, transport: str = "tcp_ap", duration: str = "10s",
         error: dict | None = None, **ap) -> dict:
    """One bulk flow across `hops` 10 Mbit/s links of `delay` each, no
    queue limit; TCP-AP told the link's rate and the headers' size (the
    ACK's 40 bytes, as the agent's `overhead` counts them)."""
    nodes = [{"name": f"n{i}"} for i in range(hops + 1)]
    links = [{"between": [f"n{i}", f"n{i + 1}"], "rate": "10Mbps", "delay": f"{delay}s"} for i in range(hops)]
    if error:
        links[-1]["error"] = error
    f = {"from": "n0", "to": f"n{hops}", "transport": transport, "packet_size": MSS, "window": 50,
         "app": {"kind": "bulk"}, "tcp": {"timestamps": True}}
    if transport == "tcp_ap":
        f["tcp_ap"] = {"link_rate": "10Mbps", "overhead": 40, **ap}
    return {"sim": {"duration": duration, "tcp_profile": "ns2", "seed": 1},
            "node": nodes, "link": links, "flow": [f]}


key_of = scenario_error_key


def test_tcp_ap_needs_timestamps():
    sc = path()
    sc["flow"][0]["tcp"]["timestamps"] = False
    assert key_of(sc) == "flow[0].tcp.timestamps"


def test_tcp_ap_parameters_need_transport_tcp_ap():
    sc = path(transport="newreno")
    sc["flow"][0]["tcp_ap"] = {"n_factor": 4}
    assert key_of(sc) == "flow[0].tcp_ap"


@pytest.mark.parametrize("table,key", [
    ({"n_factor": 0}, "n_factor"), ({"history": 0}, "history"), ({"alpha": 1.0}, "alpha"),
    ({"gamma": -0.1}, "gamma"), ({"delay_bound": "0s"}, "delay_bound"),
    ({"initial_interval": "0s"}, "initial_interval"), ({"overhead": 70000}, "overhead"),
    ({"variation": "std"}, "variation"), ({"gain": 2}, "gain"),
])
def test_bad_tcp_ap_parameters_name_the_key(table, key):
    sc = path()
    sc["flow"][0]["tcp_ap"] = table
    assert key_of(sc) == f"flow[0].tcp_ap.{key}"


def test_bad_input_exits_2_from_the_cli(tmp_path):
    assert "flow[0].tcp.timestamps" in cli_refusal(tmp_path, one_flow_toml("tcp_ap", profile=None))


def one_hop(rtt: float, hops: int) -> float:
    """The agent's one-hop delay from a round trip over `hops` hops:
    half of what the round trip leaves per hop beyond the data's and the
    ACK's transmissions (the queueing), plus the data's transmission, with
    the sizes it assumes (payload + overhead, overhead)."""
    s, a, b = MSS + 40, 40, LINK / 8
    return 0.5 * (rtt / hops - (s + a) / b) + s / b


def data_sends(r) -> np.ndarray:
    tr = r.trace
    return tr[(tr.kind == "send") & (tr.len > 0)].time_s.to_numpy()


def steady_gaps(r, after: float = 1.0) -> np.ndarray:
    """The gaps between data segments leaving after `after` seconds."""
    sends = data_sends(r)
    return np.diff(sends[sends > after])


def test_one_hop_paces_at_the_one_hop_delay():
    """One link, a constant round trip (the pacing keeps the queue empty):
    every sample is the same, so the variation stays 0 and the segments
    leave exactly one estimated one-hop delay apart (fewer hops than
    n_factor: the agent paces at one hop). The first segment goes at
    once, the second at the initial interval's tick (50 ms)."""
    r = tcplab.run(path(), trace=True, sample_interval="1s")
    sends = data_sends(r)
    rtt = 2 * 0.020 + (DATA + ACK) * 8 / LINK
    gaps = np.diff(sends)
    assert gaps[0] == pytest.approx(0.050, abs=1e-9)
    assert np.allclose(gaps[1:], one_hop(rtt, 1), atol=2e-6), (gaps[1:5], one_hop(rtt, 1))
    f = r.flows.iloc[0]
    assert f.retransmits == 0
    assert f.goodput_bps == pytest.approx(MSS * 8 / one_hop(rtt, 1), rel=0.02)
    # The series report that rate (one payload an interval).
    s = r.series
    last = s[s.time_s == s.time_s.max()].iloc[0]
    assert last.pacing_rate_bps == pytest.approx(MSS * 8 / one_hop(rtt, 1), rel=1e-4)


def test_across_routers_the_hops_come_from_the_ttl_and_four_hops_set_the_pace():
    """Six links: the ACK arrives with six hops counted off its TTL, the
    round trip is split over them, and the interval is n_factor (4) one-hop
    delays; with n_factor 8 (more than the path) it is one hop's."""
    rtt = 6 * (2 * 0.005 + (DATA + ACK) * 8 / LINK)
    for n, want in [(4, 4 * one_hop(rtt, 6)), (8, one_hop(rtt, 6))]:
        gaps = steady_gaps(tcplab.run(path(hops=6, delay=0.005, n_factor=n), trace=True))
        assert np.allclose(gaps, want, atol=2e-6), (n, gaps[:4], want)


def test_a_fast_retransmit_goes_at_once_and_the_pacing_resumes():
    """The 30th data packet is lost: the third duplicate ACK sends the
    retransmission at its own instant, not at a tick, and the pacing
    starts again from the next ACK, with no timeout (the agent, holding
    nothing at that moment, would have stopped its timer until one)."""
    drop = {"kind": "pattern", "drop": [31], "packets": "data"}
    r = tcplab.run(path(error=drop, duration="20s"), trace=True)
    tr = r.trace
    f = r.flows.iloc[0]
    assert (f.retransmits, f.timeouts) == (1, 0)
    rtx = tr[tr.kind == "retransmit"].iloc[0]
    dups = tr[(tr.kind == "dupack") & (tr.time_s <= rtx.time_s)]
    assert len(dups) == 3 and rtx.time_s == dups.time_s.iloc[-1]
    # Ticks again from the ACK after: the gaps settle back to one hop's.
    rtt = 2 * 0.020 + (DATA + ACK) * 8 / LINK
    assert np.allclose(steady_gaps(r, after=10.0), one_hop(rtt, 1), atol=2e-6)
    assert f.goodput_bps > 0.9 * tcplab.run(path(duration="20s")).flows.iloc[0].goodput_bps


def chain(hops: int, transport: str, routing: str = "aodv", duration: str = "60s") -> dict:
    sc = tomllib.loads((ROOT / "scenarios" / "wifi-chain.toml").read_text())
    sc = copy.deepcopy(sc)
    sc["sim"]["duration"] = duration
    sc["wireless"]["routing"] = routing
    sc["node"] = [{"name": f"n{i}", "position": [250.0 * i, 0.0]} for i in range(hops + 1)]
    f = sc["flow"][0]
    f.update(to=f"n{hops}", transport=transport, tcp={"timestamps": True})
    return sc


def test_on_the_aodv_chain_pacing_ends_the_false_route_failures():
    """SPEC 9.3's 7-hop chain over AODV (2 Mbit/s, RTS/CTS, window 32):
    NewReno's window of back-to-back segments collides with its own
    frames two and three hops on, the MAC gives up, AODV takes the
    link for broken and TCP loses segments; TCP-AP's four-hop spacing
    leaves the hidden terminals nothing to collide with: no link
    failures, no retransmissions, and more goodput (docs/models.md,
    "TCP-AP")."""
    nr = tcplab.run(chain(7, "newreno"))
    ap = tcplab.run(chain(7, "tcp_ap"))
    n, a = nr.flows.iloc[0], ap.flows.iloc[0]
    assert n.retransmits > 20 and nr.nodes.link_failures.sum() > 5
    assert a.retransmits == 0 and ap.nodes.link_failures.sum() == 0
    assert a.goodput_bps > 1.2 * n.goodput_bps


def test_same_seed_same_run():
    a = tcplab.run(chain(4, "tcp_ap", duration="20s"))
    b = tcplab.run(chain(4, "tcp_ap", duration="20s"))
    assert a.flows.equals(b.flows) and a.nodes.equals(b.nodes)


def test_the_example_scenario_runs():
    f = tcplab.run(ROOT / "scenarios" / "tcp-ap-chain.toml").flows
    rate = dict(zip(f.flow, f.goodput_bps))
    assert rate["tcp_ap"] > rate["newreno"] > 0


def test_pacing_shares_a_chain_fairly():
    """validation/tcp_ap_chain.py's long and short flow sharing the far end
    of a 7-hop AODV chain, one seed: NewReno's short flow takes nearly all
    (Jain's index 0.59 over seeds 1-5), TCP-AP's pacing shares it (0.99),
    the total kept (docs/models.md, "TCP-AP")."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("tcp_ap_chain", ROOT / "validation" / "tcp_ap_chain.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    nr = m.measure(m.chain(7, "newreno", 1, "aodv", "long+short"))
    ap = m.measure(m.chain(7, "tcp_ap", 1, "aodv", "long+short"))
    assert nr["jain"] < 0.8 < 0.95 < ap["jain"], (nr, ap)
    assert ap["goodput"] > 0.9 * nr["goodput"] and ap["retransmits"] < nr["retransmits"]


def test_a_loss_probe_with_nothing_left_to_probe_is_dropped():
    """Found in review: in the linux profile (RACK-TLP) a tail-loss probe
    due while TCP-AP's pacing held it back, and everything acknowledged
    meanwhile, panicked ("a probe needs data outstanding"). Linux's
    tcp_send_loss_probe() sends nothing then; so does tcplab now."""
    flow = {"name": "f", "from": "fh", "to": "mh", "transport": "tcp_ap", "window": 20, "eln": True,
            "tcp": {"timestamps": True}, "app": {"kind": "messages", "bytes": 700, "interval": "0.1s"}}
    sc = {"sim": {"duration": "20s", "seed": 5, "tcp_profile": "linux"},
          "node": [{"name": "fh"}, {"name": "bs"}, {"name": "mh"}],
          "link": [{"between": ["fh", "bs"], "rate": "10Mbps", "delay": "20ms",
                    "reverse": {"error": {"kind": "uniform", "rate": 0.1}}},
                   {"between": ["bs", "mh"], "rate": "200kbps", "delay": "2ms",
                    "error": {"kind": "uniform", "rate": 0.05, "packets": "data", "direction": "forward"}}],
          "flow": [flow]}
    f = tcplab.run(sc).flows.iloc[0]
    assert f.bytes_delivered > 100_000 and f.loss_probes > 0
