"""Linux's receive window in the linux profile (`tcp.receive_window`,
docs/models.md "Linux's receive window"): what it changes end to end, its
keys' bad values, and that the other profiles keep a fixed window. The
kernel comparison is in tests/test_emulator.py
(`test_recovery_without_sack_meets_the_kernels_receive_window`)."""
from __future__ import annotations

import pytest

import tcplab


def transfer(drops: list[int], sack: bool, tcp: dict | None = None, profile: str = "linux") -> dict:
    """300 kB written at once over 10 Mbit/s, 10 ms each way, the chosen
    data segments lost, 1000-byte segments, a window of 1000 segments
    (validation/linux_kernel.py's `losses` cases)."""
    sc = {"sim": {"duration": "30s", "tcp_profile": profile},
          "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "10Mbps", "delay": "10ms", "queue": {"kind": "unlimited"},
                    "error": {"kind": "pattern", "drop": drops, "direction": "forward", "packets": "data"}}],
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000,
                    "window": 1000, "app": {"kind": "transfer", "bytes": 300_000, "write": 300_000}}],
          "tcp": {"sack": sack, **(tcp or {})}}
    return tcplab.run(sc).flows.iloc[0]


def test_the_right_edge_holds_the_sender_through_a_hole_without_sack():
    """Four segments lost in a row without SACK: Linux's receiver offers
    98 kB when the hole opens and keeps that edge, the sender reaches it
    halfway through the recovery and waits; with a fixed 1 MB window it
    never does. The kernel took 345.1-345.2 ms (docs/validation.md)."""
    linux = transfer([50, 51, 52, 53], sack=False)
    fixed = transfer([50, 51, 52, 53], sack=False, tcp={"receive_window": "fixed"})
    assert (linux.retransmits, linux.timeouts) == (4, 0) == (fixed.retransmits, fixed.timeouts)
    assert linux.completion_s == pytest.approx(0.3441, abs=0.002)
    assert linux.completion_s > fixed.completion_s + 0.040


def test_with_sack_one_loss_is_untouched_by_the_window():
    """One loss repaired in a round trip: the edge never matters."""
    linux = transfer([50], sack=True)
    fixed = transfer([50], sack=True, tcp={"receive_window": "fixed"})
    assert linux.completion_s == pytest.approx(fixed.completion_s, abs=1e-4)


def test_the_rfc_and_ns2_profiles_keep_a_fixed_window_unless_asked():
    for profile in ("rfc", "ns2"):
        plain = transfer([50, 51, 52, 53], sack=False, profile=profile)
        fixed = transfer([50, 51, 52, 53], sack=False, profile=profile, tcp={"receive_window": "fixed"})
        assert plain.completion_s == fixed.completion_s, profile
    # Asked for, the rfc profile's receiver is Linux's too.
    rfc_linux = transfer([50, 51, 52, 53], sack=False, profile="rfc", tcp={"receive_window": "linux"})
    assert rfc_linux.completion_s != transfer([50, 51, 52, 53], sack=False, profile="rfc").completion_s


def test_a_smaller_buffer_holds_the_window_lower():
    """The buffer's space is what the window can reach: a 32 kB buffer
    (13.9 kB of payload at 2304 bytes per 1000-byte segment) and no
    autotuning beyond it slow the transfer against the default."""
    small = transfer([], sack=True, tcp={"rcvbuf": 32768, "rcvbuf_max": 32768})
    default = transfer([], sack=True)
    assert small.completion_s > default.completion_s + 0.05


def test_the_runs_are_the_same_each_time():
    a = transfer([50, 51, 52, 53], sack=False)
    b = transfer([50, 51, 52, 53], sack=False)
    assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("key,value,message", [
    ("rcvbuf", 100, "must be 2304 to 1073741824 bytes, got 100"),
    ("rcvbuf_max", 0, "must be 2304 to 1073741824 bytes, got 0"),
    ("rcv_truesize", 10, "must be 64 to 1073741824 bytes, got 10"),
    ("receive_window", "auto", "fixed"),
])
def test_bad_values_name_the_key(key, value, message):
    with pytest.raises(tcplab.ScenarioError) as e:
        transfer([], sack=True, tcp={key: value})
    assert e.value.key == f"tcp.{key}"
    assert message in str(e.value)
