"""Split connections (`split`, I-TCP: the source's TCP connection ends at a
base station, which relays the bytes over a connection of its own): the
input checks, the CLI's exit status on bad input, the relay's rows in
the trace, and the example scenario. The relay's behaviour (bytes in
order, the buffer's bound, the window that throttles the source, the
persist timer's probes) is tested packet by packet in
crates/tcplab-core/tests/split.rs and transport/tcp/persist.rs;
docs/models.md, "Split connections", describes the model."""
from __future__ import annotations

import tomllib

import pytest

import tcplab
from conftest import ROOT, cli_refusal, scenario_error_key

key_of = scenario_error_key


def cell(split: dict | None = None, loss: float = 0.02, **flow) -> dict:
    """fh --10 Mbit/s, 20 ms-- bs --2 Mbit/s, 2 ms, `loss`-- mh."""
    f = {"name": "f", "from": "fh", "to": "mh", "transport": "newreno", "window": 20,
         "app": {"kind": "bulk"}, **flow}
    if split is not None:
        f["split"] = split
    return {"sim": {"duration": "20s", "seed": 2},
            "node": [{"name": "fh"}, {"name": "bs"}, {"name": "mh"}, {"name": "far"}],
            "link": [{"between": ["fh", "bs"], "rate": "10Mbps", "delay": "20ms"},
                     {"between": ["bs", "mh"], "rate": "2Mbps", "delay": "2ms",
                      "error": {"kind": "uniform", "rate": loss, "packets": "data"}}],
            "flow": [f]}


@pytest.mark.parametrize("split,key", [
    ({"node": "nowhere"}, "flow[0].split.node"),
    ({"node": "fh"}, "flow[0].split.node"),
    ({"node": "mh"}, "flow[0].split.node"),
    ({"node": "far"}, "flow[0].split.node"),          # no route to it
    ({"node": "bs", "buffer": 0}, "flow[0].split.buffer"),
    ({"node": "bs", "transport": "udp"}, "flow[0].split.transport"),
    ({"node": "bs", "tcp": {"dupthresh": 0}}, "flow[0].split.tcp.dupthresh"),
    # CUBIC needs Linux's loss recovery, on the second connection too.
    ({"node": "bs", "transport": "cubic"}, "flow[0].split.transport"),
    ({"node": "bs", "size": 3}, "flow[0].split.size"),
    ({}, "flow[0].split.node"),
])
def test_bad_split_names_its_key(split, key):
    assert key_of(cell(split)) == key


def test_split_refuses_udp_and_snoop():
    sc = cell({"node": "bs"}, transport="udp", app={"kind": "cbr", "rate": "100kbps"})
    assert key_of(sc) == "flow[0].split"
    sc = cell({"node": "bs"})
    sc["node"][1]["snoop"] = True
    assert key_of(sc) == "flow[0].split.node"


def test_cli_exits_2_and_writes_nothing(tmp_path):
    line = cli_refusal(tmp_path, '[sim]\nduration = "1s"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n[[node]]\nname = "c"\n'
                 '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "1ms"\n'
                 '[[link]]\nbetween = ["b", "c"]\nrate = "1Mbps"\ndelay = "1ms"\n'
                 '[[flow]]\nfrom = "a"\nto = "c"\ntransport = "reno"\napp = { kind = "bulk" }\n'
                 'split = { node = "b", buffer = -1 }\n')
    assert "flow[0].split.buffer" in line


def test_trace_has_both_connections_under_their_names():
    r = tcplab.run(cell({"node": "bs"}, loss=0.03), trace=True)
    t = r.trace
    kinds = t.groupby("flow")["kind"].value_counts().unstack(fill_value=0)
    assert set(kinds.index) == {"f", "f/relay"}
    # The wireless losses are the relay's: its segments are the ones
    # dropped and resent; the source resends nothing.
    assert kinds.loc["f/relay", "drop"] > 0 and kinds.loc["f/relay", "retransmit"] > 0
    assert kinds.loc["f"].get("retransmit", 0) == 0 and kinds.loc["f"].get("drop", 0) == 0
    # The relay sends what the source sent, in the same sequence space.
    src = t[(t.flow == "f") & (t.kind == "send")].seq.max()
    relay = t[(t.flow == "f/relay") & (t.kind == "send")].seq.max()
    assert 0 < src - relay <= 2 * 20 * 1000
    f = r.flows.iloc[0]
    assert f.retransmits == 0 and f.split_retransmits == (t[t.flow == "f/relay"].kind == "retransmit").sum()


def test_series_has_both_senders():
    r = tcplab.run(cell({"node": "bs"}, loss=0.03), sample_interval="1s")
    s = r.series
    assert set(s.flow) == {"f", "f/relay"}
    src, relay = s[s.flow == "f"].iloc[-1], s[s.flow == "f/relay"].iloc[-1]
    # The relay has sent no more than the source had acknowledged, and the
    # destination's deliveries are in both rows.
    assert relay.snd_max <= src.snd_una and relay.bytes_delivered == src.bytes_delivered
    assert relay.bytes_delivered >= relay.snd_una


def test_same_seed_same_results():
    a = tcplab.run(cell({"node": "bs", "buffer": 5}), trace=True)
    b = tcplab.run(cell({"node": "bs", "buffer": 5}), trace=True)
    assert a.flows.equals(b.flows) and a.trace.equals(b.trace)


def test_second_connection_may_differ():
    """SACK on the wireless half only, the arrangement Balakrishnan et al.
    call SPLIT-SACK (their SMART-based one aside): the flow runs, the
    source unchanged."""
    sc = cell({"node": "bs", "transport": "sack", "tcp": {"sack": True}}, loss=0.05)
    r = tcplab.run(sc)
    f = r.flows.iloc[0]
    assert f.transport == "newreno" and f.retransmits == 0 and f.split_retransmits > 0


def test_example_scenario():
    data = tomllib.loads((ROOT / "scenarios" / "split-connection.toml").read_text())
    assert all(f["split"] == {"node": "bs"} for f in data["flow"])
    r = tcplab.run(tcplab.load_scenario(ROOT / "scenarios" / "split-connection.toml"))
    f = r.flows
    assert (f.retransmits == 0).all() and (f.split_retransmits > 0).all()
    assert (f.split_max_held_bytes <= 20_000).all()
    assert (f.bytes_acked >= f.bytes_delivered).all()


def test_the_comparison_in_models_md():
    """validation/split_connections.py's one-flow table, one seed: what
    docs/models.md ("Split connections") says of it. Without errors the
    split flow's two shorter loops beat the window-bound end-to-end flow
    (and a 5-packet buffer starves the source); at 10 % it is ahead of
    end-to-end NewReno and behind Snoop."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("split_connections", ROOT / "validation" / "split_connections.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)

    def g(mech, rate, buffer=None):
        return m.goodput(mech, rate, 1, 1, buffer)

    assert g("split", 0.0) > 1.25 * g("plain", 0.0)
    assert g("split", 0.0, buffer=5) < 0.5 * g("plain", 0.0)
    assert g("snoop", 0.1) > 1.5 * g("split", 0.1) > 1.5 * g("plain", 0.1)
    lines = m.table(1, 1)
    assert len(lines) == 2 + len(m.RATES) and lines[2].startswith("| 0 % | ")


@pytest.mark.parametrize("profile", ["ns2", "rfc", "linux"])
def test_buffer_bound_and_whole_transfer_for_every_variant(profile):
    """Every variant, its profile's initial window and MSS, a 3-segment
    buffer, 5 % wireless loss: the node never holds more than its buffer
    and the transfer (with a later write) arrives whole."""
    variants = [("newreno", {}), ("sack", {"sack": True}), ("vegas", {}), ("tahoe", {}),
                ("tcp_ap", {"timestamps": True})]
    if profile == "linux":
        variants += [("cubic", {"sack": True}), ("bbr", {"sack": True}), ("westwood", {"sack": True})]
    for transport, tcp in variants:
        sc = cell({"node": "bs", "buffer": 3}, loss=0.05, transport=transport, tcp=tcp,
                  app={"kind": "transfer", "bytes": 200000, "more": [{"at": "5s", "bytes": 100000}]})
        sc["sim"] |= {"tcp_profile": profile, "duration": "120s"}
        f = tcplab.run(sc).flows.iloc[0]
        mss = 1448 if profile == "linux" else 1000
        assert f.bytes_delivered == 300000 and f.completion_s > 0, (transport, f.to_dict())
        assert 0 < f.split_max_held_bytes <= 3 * mss, (transport, f.split_max_held_bytes)


def lossy_acks(split: dict, seed: int, app: dict, radio: str = "200kbps") -> dict:
    """The cell with a 200 kbit/s radio and a third of the split node's
    ACKs (window updates among them) lost on the wired link."""
    sc = cell(split, loss=0.0, app=app)
    sc["sim"] |= {"seed": seed, "duration": "60s"}
    sc["link"][1]["rate"] = radio
    sc["link"][0]["reverse"] = {"error": {"kind": "uniform", "rate": 0.3}}
    return sc


def test_a_write_into_a_closed_window_is_probed():
    """Found in review: a later write while the window was closed and the
    window update lost armed no persist timer (it was armed only on ACKs),
    and seeds 1, 23 and 27 of 30 stalled at 100 of 150 kB. Linux arms it
    on the write (tcp_check_probe_timer())."""
    app = {"kind": "transfer", "bytes": 100000, "more": [{"at": "20s", "bytes": 50000}]}
    for seed in range(1, 31):
        f = tcplab.run(lossy_acks({"node": "bs", "buffer": 2}, seed, app)).flows.iloc[0]
        assert f.bytes_delivered == 150000 and f.completion_s > 20, (seed, f.bytes_delivered)


def test_an_old_ack_does_not_reopen_the_window():
    """Found in review: ACKs delayed past newer ones (the wired link's
    reverse direction holding some back) set the window from an old ACK
    and the source sent past the advertised edge (10 kB held against a
    5 kB buffer). RFC 9293 3.10.7.4: an ACK below snd_una carries no
    window."""
    for seed in (1, 2, 3):
        for buffer in (2, 5):
            for delay in ("30ms", "250ms", "1s"):
                sc = cell({"node": "bs", "buffer": buffer}, loss=0.02, app={"kind": "transfer", "bytes": 300000})
                sc["sim"] |= {"seed": seed, "duration": "30s"}
                sc["link"][1]["rate"] = "200kbps"
                sc["link"][0]["reverse"] = {"error": {"kind": "pattern", "drop": list(range(10, 600, 5)),
                                                      "action": "delay", "delay": delay, "packets": "all"}}
                f = tcplab.run(sc).flows.iloc[0]
                assert f.split_max_held_bytes <= buffer * 1000, (seed, buffer, delay, f.split_max_held_bytes)


@pytest.mark.parametrize("split_tcp,flow_tcp,key", [
    ({"min_rto": "100s"}, {}, "flow[0].split.tcp.min_rto"),
    ({"ack_thinning": True}, {"delayed_ack": True}, "flow[0].split.tcp.ack_thinning"),
    ({"granularity": "1ms"}, {"clock_phase": "5ms"}, "flow[0].split.tcp.clock_phase"),
])
def test_the_second_connections_merged_options_are_checked(split_tcp, flow_tcp, key):
    """Found in review: min_rto above max_rto on the second connection
    only panicked in the RTO clamp; the checks a flow's merged options get
    now run on the second connection's too."""
    assert key_of(cell({"node": "bs", "tcp": split_tcp}, tcp=flow_tcp)) == key


def test_completion_counts_only_writes_made():
    """A later write after the end of the run is never made: the split
    transfer is complete as the plain one is (found in review)."""
    app = {"kind": "transfer", "bytes": 100000, "more": [{"at": "100s", "bytes": 1000}]}
    plain = tcplab.run(cell(None, app=app)).flows.iloc[0]
    split = tcplab.run(cell({"node": "bs"}, app=app)).flows.iloc[0]
    assert plain.completion_s > 0 and split.completion_s > 0
