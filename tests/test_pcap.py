"""Packet captures: libpcap files with real header bytes that tshark decodes
(the tshark checks are skipped when tshark is not installed)."""
import shutil
import struct
import subprocess

import pytest

import tcplab
from conftest import SCENARIOS

TSHARK = shutil.which("tshark")


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap")
    sc = tcplab.load_scenario(SCENARIOS / "dumbbell.toml").with_overrides([
        "sim.duration=5s",
        "flow[0].tcp={timestamps = true, sack = true}",
        "flow[1].ecn=true",
        "link[7].queue={kind = \"red\", min_th = 2, max_th = 6, ecn = true}",
    ])
    res = tcplab.run(sc, pcap=["7:forward", "7:reverse", "mh1"])
    res.write(out)
    return out, res


def test_files_are_libpcap_raw_ip(captures):
    out, res = captures
    assert set(res.pcaps) == {"link7-forward", "link7-reverse", "node-mh1"}
    data = (out / "link7-forward.pcap").read_bytes()
    magic, major, minor, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 101)
    # one record per packet sent on the link
    n, off = 0, 24
    while off < len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        assert data[off + 16] == 0x45  # IPv4, 20-byte header
        off += 16 + incl
        n += 1
    sent = res.links[(res.links.link == 7) & (res.links.direction == "forward")].packets_sent.item()
    assert n == sent


def tshark(path, *args):
    r = subprocess.run([TSHARK, "-r", str(path), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.skipif(TSHARK is None, reason="tshark not installed (apt-get install tshark)")
@pytest.mark.parametrize("name", ["link7-forward", "link7-reverse", "node-mh1"])
def test_tshark_decodes_without_errors(captures, name):
    out, _ = captures
    path = out / f"{name}.pcap"
    assert tshark(path, "-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    assert len(tshark(path).splitlines()) > 100


@pytest.mark.skipif(TSHARK is None, reason="tshark not installed (apt-get install tshark)")
def test_tshark_sees_options_and_ecn(captures):
    out, _ = captures
    fwd, rev = out / "link7-forward.pcap", out / "link7-reverse.pcap"
    assert tshark(fwd, "-Y", "tcp.options.timestamp.tsval").strip()
    assert tshark(rev, "-Y", "tcp.options.sack_le").strip(), "SACK blocks on ACKs"
    assert tshark(fwd, "-Y", "ip.dsfield.ecn == 2").strip(), "ECT(0) on ECN data"
    # CE is set in the RED queue: it shows on the packets as they leave it.
    assert tshark(fwd, "-Y", "ip.dsfield.ecn == 3").strip(), "CE marks"
    assert tshark(rev, "-Y", "tcp.flags.ece == 1").strip(), "ECE echoed"
    assert tshark(fwd, "-Y", "tcp.flags.cwr == 1").strip(), "CWR sent"


@pytest.mark.skipif(TSHARK is None, reason="tshark not installed (apt-get install tshark)")
def test_a_handshake_wireshark_recognises(captures):
    # The simulated SYN takes no sequence number (ns-2's); the capture
    # numbers it as a real one: SYN 0, SYN-ACK 0 acknowledging 1, data from 1.
    out, _ = captures
    path = out / "node-mh1.pcap"
    fields = ["-T", "fields", "-e", "tcp.flags.str", "-e", "tcp.seq_raw", "-e", "tcp.ack_raw", "-e", "tcp.len"]
    rows = [r.split("\t") for r in tshark(path, "-Y", "tcp.stream == 0", *fields).splitlines()[:4]]
    flags = [r[0].replace("\u00b7", "").strip() for r in rows]
    assert flags[0].endswith("S") and "A" not in flags[0], rows
    assert "S" in flags[1] and "A" in flags[1], rows
    assert [r[1:3] for r in rows[:2]] == [["0", "0"], ["0", "1"]], rows
    data = next(r for r in rows[2:] if r[3] != "0")
    assert (data[1], data[2]) == ("1", "1"), rows
    # Nothing Wireshark would call a segment it never saw.
    assert tshark(path, "-Y", "tcp.analysis.ack_lost_segment || tcp.analysis.lost_segment && tcp.seq == 1") == ""


def _records(data: bytes):
    """(captured header bytes) of each record of a libpcap file."""
    off, out = 24, []
    while off < len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def test_node_capture_lists_forwarded_packets_once():
    """A base station forwards every segment and ACK: each appears once in
    its capture (as it arrives); Snoop's local retransmissions are new
    packets (a new IP ID) and appear as sent."""
    res = tcplab.run(SCENARIOS / "basestation.toml", overrides=["sim.duration=5s"], pcap=["bs", "2:forward"])
    recs = _records(res.pcaps["node-bs"])
    assert len(recs) > 100
    ip_headers = [r[:20] for r in recs]  # includes the IP ID (the packet's uid)
    assert len(set(ip_headers)) == len(ip_headers)


def test_station_capture_is_80211(tmp_path):
    """A capture at a node with a radio holds 802.11 frames (link type 105)."""
    sc = tcplab.load_scenario(SCENARIOS / "wifi-chain.toml").with_overrides(["sim.duration=2s"])
    res = tcplab.run(sc, pcap=["n1"])
    data = res.pcaps["node-n1"]
    assert struct.unpack("<I", data[20:24])[0] == 105
    kinds, off = set(), 24
    while off < len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        kinds.add(data[off + 16])
        off += 16 + incl
    assert {0x08, 0xB4, 0xC4, 0xD4} <= kinds  # data, RTS, CTS, ACK
    if TSHARK:
        path = tmp_path / "n1.pcap"
        path.write_bytes(data)
        out = tshark(path, "-T", "fields", "-e", "wlan.fc.type_subtype")
        assert {"0x001b", "0x001c", "0x001d", "0x0020"} <= set(out.split())


@pytest.mark.skipif(TSHARK is None, reason="tshark not installed (apt-get install tshark)")
@pytest.mark.parametrize("profile", ["linux", "ns2"])
def test_windows_above_64k_show_through_window_scaling(tmp_path, profile):
    """A connection with a handshake shows RFC 7323's window scaling: the
    SYN and SYN-ACK carry each side's shift and Wireshark's computed
    windows are the simulated ones. Linux's receive window (rounded to its
    own scale, 2^7 here as the kernel's receiver took for this buffer)
    grows past 64 kB; ns-2's fixed window of 5000 segments shows rounded
    down to the scale's unit (until 2026-12-07 both were clamped at
    65535)."""
    sc = {"sim": {"duration": "5s", "tcp_profile": profile},
          "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "10Mbps", "delay": "20ms"}],
          "tcp": {"syn": True},
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000,
                    "window": 5000, "app": {"kind": "transfer", "bytes": 1_000_000}}]}
    tcplab.run(sc, pcap=["a"]).write(tmp_path)
    fields = ["-T", "fields", "-e", "ip.src", "-e", "tcp.flags.syn", "-e", "tcp.options.wscale.shift",
              "-e", "tcp.window_size"]
    rows = [r.split("\t") for r in tshark(tmp_path / "node-a.pcap", *fields).splitlines()]
    assert [r[2] for r in rows[:2]] == ["7", "7"], rows[:2]
    assert tshark(tmp_path / "node-a.pcap", "-Y", "_ws.malformed || _ws.expert.severity == error") == ""
    acks = [int(r[3]) for r in rows[2:] if r[0] == "10.0.0.2"]
    sent = {int(r[3]) for r in rows[2:] if r[0] == "10.0.0.1"}
    assert sent == {5_000_000 >> 7 << 7}
    if profile == "ns2":
        assert set(acks) == {5_000_000 >> 7 << 7}
    else:
        assert max(acks) > 200_000 and all(w % 128 == 0 for w in acks)
