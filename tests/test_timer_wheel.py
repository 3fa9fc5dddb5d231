"""The linux profile's timers go off as the kernel's jiffy timers do
(`[tcp] timer_wheel`, `granularity` 4 ms; docs/models.md, "The kernel's
timers"): the wait in whole ticks, then the timer wheel's bucket after that
jiffy, at ticks of phase `clock_phase`."""
from __future__ import annotations

import pytest

import tcplab
from conftest import cli_refusal, linux_flow, one_flow_toml, read_pcap

MS = 1e-3
TICK = 4 * MS


def on_grid(t: float, phase: float) -> bool:
    """`t` is a tick of the clock whose ticks fall at k * TICK - phase."""
    r = (t + phase) % TICK
    return min(r, TICK - r) < 1e-7


def delayed_ack(tcp: dict) -> tuple[float, float]:
    """One 1000-byte segment that the receiver acknowledges by its delayed-ACK
    timer (no quick ACKs, no ACK at the write's end): the segment's arrival
    and the ACK's departure at the receiver, from its capture."""
    sc = linux_flow({"kind": "transfer", "bytes": 1000, "write": 1000}, 100, duration="2s",
                    tcp={"quick_acks": 0, "push_ack": False, **tcp}, pcap="b")
    packets = read_pcap(tcplab.run(sc).pcaps["node-b"])
    data = next(p[0] for p in packets if p[1] == "10.0.0.1" and p[4] > 0)
    ack = next(p[0] for p in packets if p[1] != "10.0.0.1" and p[0] > data)
    return data, ack


@pytest.mark.parametrize("phase", [0.0, 0.7, 1.9, 3.3])
def test_the_delayed_ack_goes_at_the_tick_after_its_ten_jiffies(phase):
    data, ack = delayed_ack({"clock_phase": f"{phase}ms"})
    # TCP_DELACK_MIN, 10 jiffies, then the wheel's jiffy: 40-44 ms, on a tick.
    assert 40 * MS < ack - data <= 44 * MS + 1e-7, ack - data
    assert on_grid(ack, phase * MS), (ack, phase)


def test_without_the_wheel_the_timer_goes_at_the_waits_end():
    data, ack = delayed_ack({"timer_wheel": False, "clock_phase": "1.3ms"})
    assert ack - data == pytest.approx(40 * MS, abs=1e-7)


def tail_loss(tcp: dict) -> tuple[float, float]:
    """20 kB at 10 Mbit/s, 10 ms each way, the 19th of 20 segments lost
    (validation/linux_kernel.py's `tails` case): the SACK for the 20th
    and the resend of the 19th by RACK's reordering timer."""
    sc = linux_flow({"kind": "transfer", "bytes": 20_000, "write": 20_000}, 100, duration="5s",
                    tcp={"sack": True, **tcp})
    sc["link"][0]["error"] = {"kind": "pattern", "drop": [19], "direction": "forward", "packets": "data"}
    tr = tcplab.run(sc, trace=True).trace
    sack = tr[tr.kind == "sack"].time_s.min()
    resend = tr[tr.kind == "retransmit"].time_s.min()
    return sack, resend


def test_the_reordering_timer_runs_in_jiffies_on_the_wheel():
    # The wait: RACK's reordering window less the time since the hole was
    # sent, plus 2 ms (TCP_TIMEOUT_MIN_US): 6.5 ms, rounded up to two
    # jiffies; the wheel adds up to one more.
    waits = []
    for phase in (0.0, 1.0, 2.0, 3.0):
        sack, resend = tail_loss({"clock_phase": f"{phase}ms"})
        assert on_grid(resend, phase * MS)
        waits.append(resend - sack)
    assert all(8 * MS < w <= 12 * MS + 1e-7 for w in waits), waits
    assert max(waits) - min(waits) > 2 * MS, "the phase moves the tick"
    sack, resend = tail_loss({"timer_wheel": False})
    assert resend - sack == pytest.approx(8 * MS, abs=1e-7), "at the rounded wait's end"
    sack, resend = tail_loss({"timer_wheel": False, "granularity": "1ms"})
    assert resend - sack == pytest.approx(8 * MS, abs=1e-7), "the 1 ms clock of before"


def test_the_first_rto_lands_on_the_second_level():
    # A lost first segment and nothing else to send: TCP_TIMEOUT_INIT, 1 s
    # = 250 jiffies, filed at the next multiple of 8 jiffies (32 ms) of the
    # kernel's counter, which reads `jiffies_start` at the first tick.
    for phase, start in [(0.0, 0), (2.5, 0), (1.0, 3), (3.9, 8 * 1000 + 7)]:
        sc = linux_flow({"kind": "transfer", "bytes": 1000, "write": 1000}, 100, duration="5s",
                        tcp={"clock_phase": f"{phase}ms", "jiffies_start": start})
        sc["link"][0]["error"] = {"kind": "pattern", "drop": [1], "direction": "forward", "packets": "data"}
        tr = tcplab.run(sc, trace=True).trace
        sent = tr[tr.kind == "send"].time_s.min()
        resend = tr[tr.kind == "retransmit"].time_s.min()
        assert 1.0 < resend - sent <= 1.032 + 1e-7, resend - sent
        assert on_grid(resend, phase * MS)
        assert (round((resend + phase * MS) / TICK) + start) % 8 == 0, "a bucket of the wheel's second level"


def test_a_long_timer_spreads_over_the_kernels_counter():
    # The last of 20 segments lost on a 100 ms round trip: an RTO of about
    # 300 ms, 75 jiffies, on the wheel's second level. Over the counter's
    # values the resend moves by up to 8 jiffies; without the wheel, not.
    def completion(tcp):
        sc = linux_flow({"kind": "transfer", "bytes": 20_000, "write": 20_000}, 100, duration="5s",
                        tcp={"sack": False, "clock_phase": "1ms", **tcp})
        sc["link"][0]["delay"] = "50ms"
        sc["link"][0]["error"] = {"kind": "pattern", "drop": [20], "direction": "forward", "packets": "data"}
        return tcplab.run(sc).flows["completion_s"][0]
    on = [completion({"jiffies_start": k}) for k in range(8)]
    assert 7 * TICK - 1e-7 <= max(on) - min(on) <= 8 * TICK, on
    off = [completion({"jiffies_start": k, "timer_wheel": False}) for k in range(3)]
    assert len(set(off)) == 1 and min(on) > off[0]


def test_the_phase_is_drawn_per_flow_and_the_same_seed_repeats():
    sc = linux_flow({"kind": "transfer", "bytes": 1000, "write": 1000}, 100, duration="2s",
                    tcp={"quick_acks": 0, "push_ack": False})
    a = tcplab.run(sc, seed=1).flows["completion_s"][0]
    assert tcplab.run(sc, seed=1).flows["completion_s"][0] == a
    others = {tcplab.run(sc, seed=s).flows["completion_s"][0] for s in range(2, 8)}
    assert len(others | {a}) > 2, "different seeds, different tick phases"


def test_bad_values_name_the_key(tmp_path):
    for tcp, key in [({"timer_wheel": "yes"}, "timer_wheel"),
                     ({"granularity": "2s"}, "granularity"),
                     ({"jiffies_start": 1 << 24}, "jiffies_start"),
                     ({"jiffies_start": -1}, "jiffies_start")]:
        sc = linux_flow({"kind": "bulk"}, 10, tcp=tcp)
        with pytest.raises(tcplab.ScenarioError, match=key):
            tcplab.run(sc)
    line = cli_refusal(tmp_path, one_flow_toml("newreno", "linux") + "[tcp]\ntimer_wheel = 1\n")
    assert "timer_wheel" in line, line


def test_the_emulator_refuses_timers_the_kernel_does_not_have():
    from tcplab.emulate import check

    sc = linux_flow({"kind": "bulk"}, 10, tcp={"timer_wheel": False})
    with pytest.raises(tcplab.ScenarioError) as e:
        check(sc)
    assert e.value.key == "tcp.timer_wheel"
    check(linux_flow({"kind": "bulk"}, 10, tcp={"timer_wheel": True}))
