"""Linux's undo of spurious reductions and F-RTO (`[tcp] undo`, `frto`: the
linux profile's, inside RACK's recovery) in the simulator: their input
checks, a delay step that makes the retransmission timer fire spuriously,
and determinism. The packet-level rules are tested in
crates/tcplab-core/src/transport/tcp/undo_tests.rs, the kernel comparison
in test_emulator.py (`test_a_spurious_timeout_is_undone_as_by_the_kernel`)."""
from __future__ import annotations

import pytest

import tcplab
from tcplab import ScenarioError

from test_rack import key_of


def delay_step(tcp: dict | None = None, flow_tcp: dict | None = None, profile: str = "linux") -> dict:
    """300 kB in one write at 10 Mbit/s, 10 ms each way, 1000-byte segments:
    from the 100th data segment on, every data segment (retransmissions
    too) is held 500 ms where it enters the link (the pattern error model's
    `action = "delay"`), a step of the round trip from 20 ms to 520 ms
    while about 108 segments are in flight. The ACKs stop for longer than
    the RTO (246 ms), which fires although nothing was lost."""
    link = {"between": ["a", "b"], "rate": "10Mbps", "delay": "10ms", "queue": {"kind": "unlimited"},
            "error": {"kind": "pattern", "drop": list(range(100, 1001)), "action": "delay", "delay": "500ms",
                      "direction": "forward", "packets": "data"}}
    f = {"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000, "window": 1000,
         "app": {"kind": "transfer", "bytes": 300_000, "write": 300_000}}
    if flow_tcp is not None:
        f["tcp"] = flow_tcp
    sc = {"sim": {"duration": "60s", "tcp_profile": profile},
          "node": [{"name": "a"}, {"name": "b"}], "link": [link], "flow": [f]}
    if tcp is not None:
        sc["tcp"] = tcp
    return sc


def outcome(sc: dict) -> tuple[float, int, int]:
    f = tcplab.run(sc).flows
    return round(float(f["completion_s"][0]), 4), int(f["retransmits"][0]), int(f["timeouts"][0])


def test_undo_and_frto_need_rack():
    assert key_of(delay_step(tcp={"undo": True, "rack": False})) == "tcp.undo"
    assert key_of(delay_step(flow_tcp={"frto": True, "rack": False})) == "flow[0].tcp.frto"
    assert key_of(delay_step(tcp={"frto": True}, profile="ns2")) == "tcp.frto"
    with pytest.raises(ScenarioError, match="needs rack = true"):
        tcplab.run(delay_step(tcp={"undo": True}, profile="rfc"))
    # Off where RACK is off: accepted.
    assert outcome(delay_step(tcp={"undo": False, "frto": False}, profile="ns2"))[0] > 0


def test_the_timestamps_undo_a_spurious_timeout():
    """The first ACK after the timeout echoes the original segment's
    timestamp, older than the retransmission: the timeout was spurious,
    the window comes back and only the one retransmission goes (1.194 s).
    Without the undo (and without F-RTO) the sender goes back N over the
    whole window it had in flight: 109 retransmissions, 1.760 s."""
    undone = outcome(delay_step())
    assert undone[1:] == (1, 1)
    gone_back = outcome(delay_step(tcp={"undo": False, "frto": False}))
    assert gone_back[1] > 100 and gone_back[2] == 1
    assert gone_back[0] > undone[0] + 0.4, (gone_back, undone)


def test_frto_finds_the_timeout_spurious_without_timestamps():
    """Without timestamps F-RTO decides: new data on the first ACK after
    the timeout, then an ACK of segments never retransmitted shows the
    timeout was spurious (1 retransmission, 1.193 s). Without F-RTO the
    sender goes back N and, with no RTT sample from the ambiguous ACKs,
    times out a second time (199 retransmissions, 2.312 s)."""
    frto = outcome(delay_step(tcp={"timestamps": False}))
    assert frto[1:] == (1, 1)
    gone_back = outcome(delay_step(tcp={"timestamps": False, "frto": False}))
    assert gone_back[1] > 150 and gone_back[2] >= 1
    assert gone_back[0] > frto[0] + 0.5, (gone_back, frto)


def test_undo_is_deterministic():
    sc = delay_step(tcp={"timestamps": False})
    sc["sim"]["seed"] = 3
    a = tcplab.run(sc).flows.to_dict()
    b = tcplab.run(sc).flows.to_dict()
    assert a == b
