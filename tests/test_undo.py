"""Linux's undo of spurious reductions, D-SACK and F-RTO (`[tcp] undo`,
`dsack`, `frto`: the linux profile's, inside RACK's recovery) in the
simulator: their input checks, a delay step that makes the retransmission
timer fire spuriously, a reordered segment that makes RACK resend it, and
determinism. The packet-level rules are tested in
crates/tcplab-core/src/transport/tcp/undo_tests.rs, the kernel comparison
in test_emulator.py (`test_a_spurious_timeout_is_undone_as_by_the_kernel`,
`test_dsacks_undo_a_spurious_fast_retransmission_as_the_kernels`)."""
from __future__ import annotations

import pytest

import tcplab
from tcplab import ScenarioError

from test_rack import key_of


def path(delayed: list[int], delay: str, link_delay: str, nbytes: int, tcp: dict | None = None,
         flow_tcp: dict | None = None, profile: str = "linux") -> dict:
    """`nbytes` in one write at 10 Mbit/s, `link_delay` each way, unlimited
    queue, 1000-byte segments; the `delayed` data packets (numbers from 1,
    retransmissions counted too) are held `delay` where they enter the link
    (the pattern error model's `action = "delay"`), those behind them go
    ahead."""
    link = {"between": ["a", "b"], "rate": "10Mbps", "delay": link_delay, "queue": {"kind": "unlimited"},
            "error": {"kind": "pattern", "drop": delayed, "action": "delay", "delay": delay,
                      "direction": "forward", "packets": "data"}}
    f = {"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000, "window": 1000,
         "app": {"kind": "transfer", "bytes": nbytes, "write": nbytes}}
    if flow_tcp is not None:
        f["tcp"] = flow_tcp
    sc = {"sim": {"duration": "60s", "tcp_profile": profile},
          "node": [{"name": "a"}, {"name": "b"}], "link": [link], "flow": [f]}
    if tcp is not None:
        sc["tcp"] = tcp
    return sc


def reordered(tcp: dict | None = None) -> dict:
    """2 MB at 10 Mbit/s, 50 ms each way: the 100th data segment is held
    30 ms, so the segments behind it are SACKed, RACK resends it (a
    spurious fast retransmission) and the original arrives after the
    resend, a duplicate."""
    return path([100], "30ms", "50ms", 2_000_000, tcp)


def delay_step(tcp: dict | None = None, flow_tcp: dict | None = None, profile: str = "linux") -> dict:
    """300 kB in one write at 10 Mbit/s, 10 ms each way, 1000-byte segments:
    from the 100th data segment on, every data segment (retransmissions
    too) is held 500 ms where it enters the link (the pattern error model's
    `action = "delay"`), a step of the round trip from 20 ms to 520 ms
    while about 108 segments are in flight. The ACKs stop for longer than
    the RTO (246 ms), which fires although nothing was lost."""
    return path(list(range(100, 1001)), "500ms", "10ms", 300_000, tcp, flow_tcp, profile)


def outcome(sc: dict) -> tuple[float, int, int]:
    f = tcplab.run(sc).flows
    return round(float(f["completion_s"][0]), 4), int(f["retransmits"][0]), int(f["timeouts"][0])


def test_undo_and_frto_need_rack():
    assert key_of(delay_step(tcp={"undo": True, "rack": False})) == "tcp.undo"
    assert key_of(delay_step(flow_tcp={"frto": True, "rack": False})) == "flow[0].tcp.frto"
    assert key_of(delay_step(tcp={"frto": True}, profile="ns2")) == "tcp.frto"
    with pytest.raises(ScenarioError, match="needs rack = true"):
        tcplab.run(delay_step(tcp={"undo": True}, profile="rfc"))
    assert key_of(delay_step(tcp={"dsack": True, "sack": False})) == "tcp.dsack"
    assert key_of(delay_step(flow_tcp={"dsack": True, "sack": False})) == "flow[0].tcp.dsack"
    # Off where RACK is off: accepted.
    assert outcome(delay_step(tcp={"undo": False, "frto": False}, profile="ns2"))[0] > 0
    # Without SACK they run in Linux's Reno recovery, which needs PRR.
    no_sack = {"sack": False, "dsack": False}
    assert key_of(delay_step(tcp={**no_sack, "undo": True, "prr": False})) == "tcp.undo"
    assert key_of(delay_step(tcp={**no_sack, "prr": False}, flow_tcp={"frto": True})) == "flow[0].tcp.frto"
    with pytest.raises(ScenarioError, match="prr = true"):
        tcplab.run(delay_step(tcp={**no_sack, "frto": True, "prr": False}))
    assert outcome(delay_step(tcp={**no_sack, "undo": True, "frto": True, "rack": False}))[1:] == (1, 1)


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
    sender goes back N (109 retransmissions, 1.756 s)."""
    frto = outcome(delay_step(tcp={"timestamps": False}))
    assert frto[1:] == (1, 1)
    gone_back = outcome(delay_step(tcp={"timestamps": False, "frto": False}))
    assert gone_back[1] > 100 and gone_back[2] == 1
    assert gone_back[0] > frto[0] + 0.4, (gone_back, frto)


@pytest.mark.parametrize("timestamps", [True, False], ids=["eifel", "frto"])
def test_the_spurious_timeout_is_undone_without_sack(timestamps):
    """The same delay step without SACK (Linux's Reno recovery): the
    timestamps' echo (Eifel) or, without them, F-RTO's ACK of data sent
    once shows the timeout spurious; one retransmission, 1.194 s and 1.193
    s, as the kernel's 1.194 s (docs/emulator.md). With neither the sender
    goes back N over the 108 segments in flight (1.758 s); without
    timestamps a second spurious timeout follows, as in the kernel (2.300
    s, 164 retransmissions, 2 timeouts; the kernel 2.302 s, 164, 2: Linux's
    receiver acknowledges every segment while its window grows, and the
    sender's flight is the kernel's; docs/validation.md)."""
    tcp = {"sack": False, "dsack": False, "timestamps": timestamps}
    undone = outcome(delay_step(tcp=tcp))
    assert undone[1:] == (1, 1), undone
    # flows.csv's counters: F-RTO's undo is a spurious timeout; with the
    # timestamps the Eifel undo comes first and F-RTO's follows it.
    f = tcplab.run(delay_step(tcp=tcp)).flows
    assert (int(f["spurious_rtos"][0]), int(f["undos"][0])) == ((1, 2) if timestamps else (1, 1))
    gone_back = outcome(delay_step(tcp={**tcp, "undo": False, "frto": False}))
    assert gone_back[1] > 100 and gone_back[2] == (1 if timestamps else 2), gone_back
    assert gone_back[0] > undone[0] + 0.4, (gone_back, undone)


def test_dsacks_undo_a_spurious_fast_retransmission():
    """The reordered segment: with timestamps the ACK that the original
    moves echoes it (Eifel), 2.071 s either way. Without them only the
    receiver's D-SACK of the late original shows the resend needless: the
    window of about 125 segments comes back (2.100 s); with `dsack = false`
    the recovery's halving stands and the window grows back by one segment
    a round trip (3.280 s). A duplicate segment is no duplicate ACK."""
    eifel = outcome(reordered())
    assert eifel[1:] == (1, 0)
    assert outcome(reordered({"dsack": False})) == eifel
    dsack = outcome(reordered({"timestamps": False}))
    halved = outcome(reordered({"timestamps": False, "dsack": False}))
    assert dsack[1:] == halved[1:] == (1, 0)
    assert halved[0] > dsack[0] + 1.0, (halved, dsack)
    assert outcome(reordered({"timestamps": False, "undo": False})) == halved


def test_undo_is_deterministic():
    sc = delay_step(tcp={"timestamps": False})
    sc["sim"]["seed"] = 3
    a = tcplab.run(sc).flows.to_dict()
    b = tcplab.run(sc).flows.to_dict()
    assert a == b


def test_a_dsack_of_the_probe_keeps_the_window():
    """A bulk flow limited by a 200 kB receiver window fills a 2 Mbit/s,
    50 ms path's queue (timestamps off, one timed segment per round trip,
    so its RTO fires once, spuriously, and F-RTO undoes it). Later the
    window-limited sender's tail-loss probe resends its last segment, whose
    original had arrived: the receiver's D-SACK of the probe says nothing
    was lost (Linux's FLAG_DSACK_TLP) and the window stays (mean cwnd 355
    kB); without D-SACK the next ACK past the probe counts as a repaired
    loss and halves it (149 kB). The receiver's window is fixed: Linux's
    (the profile's `receive_window`) grows from 64 kB, the queue and the
    round trip with it, and the probe's moment is another one. So is the
    TSO deferral's (`tso_defer`, 2026-12-07): it holds the segments at the
    receiver window's edge for the next ACK, and in 8 s (or 20) no probe
    then resends a segment that had arrived; the rule under test is the
    probe's, so the deferral is off here. And so are the kernel's jiffy
    timers (`timer_wheel`, 2026-12-08): on the wheel the RTO of 1 s goes at
    the next multiple of 8 jiffies of the kernel's counter, up to 32 ms
    later, after the ACK that it raced here, and nothing is spurious in
    8 s."""
    def run(dsack: bool):
        sc = {"sim": {"duration": "8s", "tcp_profile": "linux"},
              "node": [{"name": "a"}, {"name": "b"}],
              "link": [{"between": ["a", "b"], "rate": "2Mbps", "delay": "50ms", "queue": {"kind": "unlimited"}}],
              "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1448,
                        "app": {"kind": "bulk"},
                        "tcp": {"timestamps": False, "window_bytes": 200_000, "rtt_timing": "karn",
                                "dsack": dsack, "receive_window": "fixed", "tso_defer": False,
                                "timer_wheel": False}}]}
        return tcplab.run(sc).flows.iloc[0]
    kept, cut = run(True), run(False)
    assert (kept.timeouts, kept.retransmits) == (cut.timeouts, cut.retransmits) == (1, 2)
    assert kept.mean_cwnd_bytes > 2 * cut.mean_cwnd_bytes, (kept.mean_cwnd_bytes, cut.mean_cwnd_bytes)
