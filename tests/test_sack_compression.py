"""Linux's SACK compression at the receiver (`tcp.comp_sack_nr`, the linux
profile's 44; docs/models.md "Linux's SACK compression"): what it changes
end to end, its keys' bad values, and that it needs Linux's window. The
kernel comparison is in tests/test_emulator.py
(`test_sack_compression_answers_out_of_order_data_as_the_kernel`), the
packet-level rules in crates/tcplab-core/src/transport/tcp/comp_sack_tests.rs."""
from __future__ import annotations

import pytest

import tcplab
from conftest import cli_refusal, linux_flow, one_flow_toml, ooo_acked_share, read_pcap


def overflow(tcp: dict | None = None, profile: str = "linux", pcap: bool = False):
    """600 kB written at once over 10 Mbit/s, 10 ms each way, through a
    DropTail queue of 10 packets that the slow start overflows
    (validation/linux_kernel.py's `queue 10 SACK`)."""
    sc = linux_flow({"kind": "transfer", "bytes": 600_000, "write": 600_000}, 10, "30s",
                    tcp={"sack": True, **(tcp or {})}, pcap="b" if pcap else None)
    sc["sim"]["tcp_profile"] = profile
    return tcplab.run(sc)


def acks(res) -> int:
    """Packets the receiver sent (the link's reverse direction)."""
    links = res.links
    return int(links[links.direction == "reverse"].packets_sent.iloc[0])


def answered(tcp: dict | None = None) -> float:
    """The share of the segments above the first hole that the receiver
    answers before the next arrives (`conftest.ooo_acked_share`)."""
    res = overflow({"syn": True, **(tcp or {})}, pcap=True)
    return ooo_acked_share(read_pcap(res.pcaps["node-b"]), "10.0.0.1")


def test_the_receiver_answers_about_every_second_segment_above_a_hole():
    # The first three duplicates go at once, then one ACK per timer of
    # about 1.1 ms while segments come every 0.8 ms (the kernel: 0.55).
    assert 0.45 < answered() < 0.65
    assert answered({"comp_sack_nr": 0}) == 1.0
    assert overflow().flows.bytes_delivered[0] == 600_000


def test_without_sack_or_a_linux_window_nothing_changes():
    plain = overflow({"sack": False})
    assert acks(plain) == acks(overflow({"sack": False, "comp_sack_nr": 0}))
    # The rfc profile's fixed window: its compression is off (0 by default).
    assert acks(overflow(profile="rfc")) == acks(overflow({"comp_sack_nr": 0}, profile="rfc"))


def test_a_cap_above_5_per_cent_of_the_rtt_does_not_matter():
    """With a 20-30 ms RTT (the queue adds up to 8 ms) the timer is 5 %
    of it, 1.0-1.5 ms: the default cap of 1 ms cuts it, 2 ms and 100 ms
    do not, and none (0) leaves the slack alone."""
    two = overflow({"comp_sack_delay": "2ms"}).flows.to_dict()
    assert overflow({"comp_sack_delay": "100ms"}).flows.to_dict() == two
    assert overflow().flows.to_dict() != two
    assert overflow({"comp_sack_delay": "0s"}).flows.to_dict() != overflow().flows.to_dict()


def test_the_runs_are_the_same_each_time():
    assert overflow().flows.to_dict() == overflow().flows.to_dict()


@pytest.mark.parametrize("key,value,message", [
    ("comp_sack_nr", 256, "must be 0 (no compression) to 255, got 256"),
    ("comp_sack_delay", "2s", "must be 0 to 1s, got 2s"),
    ("comp_sack_slack", "1.5s", "must be 0 to 1s, got 1.5s"),
])
def test_bad_values_name_the_key(key, value, message):
    with pytest.raises(tcplab.ScenarioError) as e:
        overflow({key: value})
    assert e.value.key == f"tcp.{key}"
    assert message in str(e.value)


def test_asked_for_under_a_fixed_window_it_is_refused(tmp_path):
    line = cli_refusal(tmp_path, one_flow_toml("newreno", "rfc") + "[tcp]\ncomp_sack_nr = 44\n")
    assert line.startswith("tcplab: error: tcp.comp_sack_nr:"), line
    assert 'receive_window = "linux"' in line, line
    with pytest.raises(tcplab.ScenarioError) as e:
        overflow({"comp_sack_nr": 44, "receive_window": "fixed"})
    assert e.value.key == "tcp.comp_sack_nr"


def receiver_packets(data: bytes) -> list:
    """(time, is data, seq or ack, SACK blocks) of every TCP packet in a
    capture of the receiver `b`, whose data comes from 10.0.0.1."""
    return [(t, src == "10.0.0.1" and payload > 0, seq if src == "10.0.0.1" and payload > 0 else ack, blocks)
            for t, src, _, _, payload, seq, _, ack, blocks in read_pcap(data)]


def reports_not(t: float, ack: int, blocks: list, last: tuple) -> bool:
    """An ACK sent as the out-of-order segment `last` (time, seq) arrives
    that does not report it: the held ACK sent first."""
    return t == last[0] and ack <= last[1] and not any(s <= last[1] < e for s, e in blocks)


def test_a_segment_beyond_the_two_newest_blocks_sends_the_held_ack_first():
    """Every second segment lost at 100 Mbit/s (the rest 0.17 ms apart,
    within the 1.1 ms timer) and a receive buffer that keeps the window
    from growing (a growing window answers each segment at once): three
    ACKs go at once, later ones are held, and a segment that opens a
    block beside two sends the held ACK first, reporting the blocks as
    they were without it, then is held itself."""
    sc = {"sim": {"duration": "30s", "tcp_profile": "linux"},
          "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "100Mbps", "delay": "10ms",
                    "error": {"kind": "pattern", "drop": [50, 52, 54, 56, 58, 60],
                              "direction": "forward", "packets": "data"}}],
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000,
                    "window": 1000, "app": {"kind": "transfer", "bytes": 300_000, "write": 300_000}}],
          "tcp": {"sack": True, "rcvbuf": 65536, "rcvbuf_max": 65536}, "pcap": [{"node": "b"}]}
    res = tcplab.run(sc)
    packets = receiver_packets(res.pcaps["node-b"])
    flushes, last = 0, None
    for t, is_data, n, blocks in packets:
        if is_data:
            last = (t, n)
        elif last and reports_not(t, n, blocks, last):
            flushes += 1
    assert flushes > 0
    sc["tcp"]["comp_sack_nr"] = 0
    res = tcplab.run(sc)
    for t, is_data, n, blocks in receiver_packets(res.pcaps["node-b"]):
        if is_data:
            last = (t, n)
        else:
            assert not reports_not(t, n, blocks, last), t
