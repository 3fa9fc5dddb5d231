"""The real-time emulator (crates/tcplab-emu, docs/emulator.md): the kernel's
TCP through tcplab's link models. Tests that run the emulator need root and
/dev/net/tun and skip with the reason otherwise; sizes are chosen so the
whole file takes about a minute of real time (a 9600 bit/s link carries one
256-byte segment per 253 ms)."""
from __future__ import annotations

import os
import re
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import numpy as np
import pytest

import tcplab
from tcplab import ScenarioError
from tcplab.emulate import EmulatorUnavailable, check, emulate, unavailable_reason
from tcplab.studies import gsmlink
from conftest import linux_flow, ooo_acked_share, read_pcap

ROOT = Path(__file__).resolve().parent.parent
needs_emulator = pytest.mark.skipif(unavailable_reason() is not None,
                                    reason=f"emulator unavailable: {unavailable_reason()}")
A, B = "10.77.0.1", "10.77.0.2"


def two_nodes(rate: str, delay: str, bytes_: int, **extra) -> dict:
    link = {"between": ["a", "b"], "rate": rate, "delay": delay, "queue": {"kind": "unlimited"}}
    link.update(extra.pop("link", {}))
    sc = {"sim": {"duration": "60s", "tcp_profile": "linux"},
          "node": [{"name": "a"}, {"name": "b"}], "link": [link],
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno",
                    "app": {"kind": "transfer", "bytes": bytes_, "write": 8192}}]}
    sc.update(extra)
    return sc


# ---- scenario checks: no root needed ---------------------------------


def test_rejects_what_it_cannot_emulate():
    with pytest.raises(ScenarioError) as e:
        check(gsmlink.scenario("newreno-off", 7, 0.0, baseline="modern"))
    assert e.value.key == "flow[0].tcp.newreno"
    with pytest.raises(ScenarioError) as e:  # two servers: not one path
        check(gsmlink.scenario("baseline", 7, 0.0, flows=2, baseline="modern"))
    assert e.value.key.startswith("node[")
    sc = two_nodes("1Mbps", "1ms", 1000)
    sc["flow"][0]["transport"] = "udp"
    sc["flow"][0]["app"] = {"kind": "cbr", "rate": "1kbps"}
    with pytest.raises(ScenarioError) as e:
        check(sc)
    assert e.value.key == "flow[0].transport"
    # Simulated mechanisms without a kernel counterpart: TCP-AP's sender
    # and a split connection's relay (it was run as plain Reno until
    # 2026-12-06).
    sc = two_nodes("1Mbps", "1ms", 1000)
    sc["flow"][0]["transport"] = "tcp_ap"
    sc["flow"][0]["tcp"] = {"timestamps": True}
    with pytest.raises(ScenarioError) as e:
        check(sc)
    assert e.value.key == "flow[0].transport"
    sc = two_nodes("1Mbps", "1ms", 1000)
    sc["node"].append({"name": "c"})
    sc["link"].append({**sc["link"][0], "between": [sc["link"][0]["between"][1], "c"]})
    sc["flow"][0]["to"] = "c"
    sc["flow"][0]["split"] = {"node": sc["link"][0]["between"][1]}
    with pytest.raises(ScenarioError) as e:
        check(sc)
    assert e.value.key == "flow[0].split"


def test_cli_bad_scenario_exits_2(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('[sim]\nduration = "1s"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
                 '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "1ms"\n'
                 '[[flow]]\nfrom = "a"\nto = "b"\ntransport = "tahoe"\napp = { kind = "bulk" }\n')
    r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(p), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert "flow[0].transport" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


@needs_emulator
def test_a_congestion_control_the_kernel_lacks_exits_2(tmp_path):
    """Found by a fresh user's review: an unknown --cc ran the emulation,
    wrote zeros with a warning and exited 0."""
    p = tmp_path / "x.toml"
    p.write_text('[sim]\nduration = "1s"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
                 '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "1ms"\n'
                 '[[flow]]\nfrom = "a"\nto = "b"\ntransport = "newreno"\napp = { kind = "bulk" }\n')
    r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(p), "--cc", "nosuchcc", "--out",
                        str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("tcplab: error: --cc: ") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (tmp_path / "o").exists()


@needs_emulator
def test_a_stopped_bulk_flow_counts_what_arrived_by_its_stop():
    """A bulk flow with a stop is measured up to its stop. Found by fresh
    users' reviews: a 3 s bulk flow on a 2 Mbit/s link first reported
    4 Mbit/s (the socket buffer it had written, sent after the stop, over
    3 s), then 2.6 Mbit/s (what it had put on the wire, the queue
    included, arrived after the stop). Now goodput counts the bytes the
    receiver read by the stop, throughput those acknowledged by then: with
    an unlimited queue (200 KB queued at the stop) neither exceeds the
    line rate."""
    rate = 2e6
    sc = two_nodes("2Mbps", "50ms", 1)
    sc["sim"]["duration"] = "4s"
    sc["flow"][0].update(packet_size=1000, window=200, app={"kind": "bulk", "start": "0s", "stop": "2s"})
    res = emulate(sc, capture=False)
    f = res.flows.iloc[0]
    payload_rate = rate * 1000 / 1052  # 40 header and 12 timestamp bytes per segment
    assert 0.7 * payload_rate < f.goodput_bps <= payload_rate, f.to_dict()
    assert 0.7 * payload_rate < f.throughput_bps <= payload_rate, f.to_dict()
    assert f.bytes_acked <= f.bytes_delivered <= payload_rate / 8 * 2, f.to_dict()
    # links.csv counts the link's whole run: what the sender had written
    # still crossed it after the stop.
    assert res.links.packets_delivered[0] * 1000 > f.bytes_delivered * 1.2
    # Every packet the relay took in was released, dropped or held at the
    # end (the summary said 0 delivered, 0 in flight until 2026-11-30).
    s, ln = res.summary, res.links
    dropped = int(sum(ln[c].sum() for c in ("drops_overflow", "drops_red", "drops_soft", "drops_codel", "drops_corruption")))
    assert s["packets_created"] == s["packets_delivered"] + dropped + s["packets_in_flight"]


def tcp_windows(pcap: bytes, src: str) -> list:
    """(time s, advertised window in bytes, payload) of the TCP segments
    `src` sent, the window scaled by the shift `src` announced in its SYN."""
    magic = struct.unpack("<I", pcap[:4])[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    off, out, shift = 24, [], 0
    while off + 16 <= len(pcap):
        sec, frac, incl, _ = struct.unpack("<IIII", pcap[off:off + 16])
        p = pcap[off + 16:off + 16 + incl]
        off += 16 + incl
        if ".".join(map(str, p[12:16])) != src:
            continue
        ihl = (p[0] & 15) * 4
        tcp = p[ihl:]
        hlen = (tcp[12] >> 4) * 4
        win = struct.unpack(">H", tcp[14:16])[0]
        if tcp[13] & 0x02:  # SYN: its window is never scaled; the shift is in its options
            opts, i = tcp[20:hlen], 0
            while i < len(opts) and opts[i] != 0:
                if opts[i] == 1:
                    i += 1
                    continue
                if opts[i] == 3:
                    shift = opts[i + 2]
                i += opts[i + 1]
            out.append((sec + frac * scale, win, 0))
            continue
        payload = struct.unpack(">H", p[2:4])[0] - ihl - hlen
        out.append((sec + frac * scale, win << shift, payload))
    return out


@needs_emulator
@pytest.mark.parametrize("packets", [10, 100])
def test_the_receiver_advertises_the_scenarios_window(packets):
    """`window` bounds what the kernel's receiver advertises. Found by a
    reviewer: with only TCP_WINDOW_CLAMP on the listener the window grew
    from 10000 to 65535 bytes within a round trip (Linux 6.x replaces the
    clamp with the receive buffer's space on the first full-sized segment
    and whenever autotuning grows the buffer) and a 10 x 1000 B window ran
    at 4.8 Mbit/s instead of W/RTT = 0.79. The emulator sets the clamp
    again after every read: the window stays at W but for one increment of
    2 MSS at the first full-sized segment, and the rate is W/RTT. With 100
    packets (window scaling on) as with 10 (off)."""
    w = packets * 1000
    sc = two_nodes("10Mbps", "50ms", 1)
    sc["sim"]["duration"] = "3s"
    sc["flow"][0].update(packet_size=1000, window=packets, app={"kind": "bulk"})

    def agrees(res):
        acks = tcp_windows(res.pcaps["tun-b"], B)
        wins = [x[1] for x in acks[1:]]  # after the SYN-ACK
        # The SYN-ACK's window is unscaled: W, or 65535 rounded down to the MSS.
        assert acks[0][1] == min(w, 65000) and max(wins) <= w + 2 * 1000, (acks[0], max(wins))
        assert sum(x > w for x in wins) <= 2, [x for x in wins if x > w]
        assert wins[-1] == w
        # Past slow start the sender has W in flight per round trip: 100 ms
        # plus a 1052-byte segment's 0.84 ms at 10 Mbit/s (the ACKs' 0.05 ms
        # left out). The bytes sent grow as a staircase, a window per round
        # trip: the rate is the least-squares slope of the cumulative bytes
        # against time from 1.5 s to the end, over about fourteen steps, so
        # where the first and last step are cut hardly matters. (Counting the
        # bytes in one second from the first segment after 1.5 s depended on
        # where that segment fell in its burst: 96000 B/s for 99167 when the
        # first burst was counted short. Bursts cannot be told apart by gaps
        # either: delayed ACKs split a 10-segment window into 1 + 9.) The
        # emulator's own forwarding adds 1-3 ms per round trip (steps of 102-103
        # ms measured with 10 packets), so the slope is 1-4 % below W/RTT: 6 %
        # allowed, far from the 4.8 Mbit/s of an unbounded window.
        data = [(t, n) for t, _, n in tcp_windows(res.pcaps["tun-b"], A) if n > 0 and t >= 1.5]
        ts = np.array([t for t, _ in data])
        sent = np.cumsum([n for _, n in data])
        rate = np.polyfit(ts, sent, 1)[0]
        assert rate == pytest.approx(w / 0.10084, rel=0.06)

    emulate_in_real_time(sc, agrees)


@needs_emulator
def test_packets_larger_than_ethernet_are_carried_whole():
    """The TUN devices' MTU fits the segment: packet_size 4000 gives
    4000-byte segments (with a 1500-byte MTU the kernel cut them to 1448:
    1495-byte packets, found by a reviewer)."""
    sc = two_nodes("10Mbps", "5ms", 40_000)
    sc["flow"][0]["packet_size"] = 4000
    res = emulate(sc)
    data = [p for p in read_pcap(res.pcaps["tun-b"]) if p[1] == A and p[4] > 0]
    # (8192-byte writes leave a few segments short.)
    assert max(p[4] for p in data) == 4000 and sum(p[4] == 4000 for p in data) >= 7
    assert all(p[3] == p[4] + 52 for p in data) and sum(p[4] for p in data) == 40_000
    assert res.columns("flows")["bytes_delivered"][0] == 40_000


def test_packet_size_outside_linuxs_range_exits_2(tmp_path):
    """Found by a reviewer: packet_size 60 ran into a traceback
    (TCP_MAXSEG: Invalid argument) after the namespaces were made. Now one
    line naming the key and the range, exit 2, before anything is set up
    (no root needed to see it)."""
    p = tmp_path / "x.toml"
    for size in (60, 40000):
        p.write_text(SMALL_TOML.replace('transport = "reno"', f'transport = "reno"\npacket_size = {size}'))
        r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(p), "--out", str(tmp_path / "o")],
                           capture_output=True, text=True)
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith("tcplab: error: flow[0].packet_size: ") and "88..32767 bytes" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
    sc = dict(SMALL, flow=[dict(SMALL["flow"][0], packet_size=75)])
    with pytest.raises(ScenarioError) as e:
        check(sc)
    assert e.value.key == "flow[0].packet_size"


@needs_emulator
def test_summary_counts_packets_end_to_end_on_a_chain():
    """On a path of two links the summary counts each packet once, as the
    simulator does: taken in from a TUN device (created), handed to the
    other (delivered), or held at the end (in flight). Found by a
    reviewer: `packets_delivered` summed the links' deliveries (twice the
    packets on two links) and `packets_in_flight` was floored at 0."""
    sc = {"sim": {"duration": "2s", "tcp_profile": "linux"},
          "node": [{"name": "a"}, {"name": "r"}, {"name": "b"}],
          "link": [{"between": ["a", "r"], "rate": "10Mbps", "delay": "5ms", "queue": {"kind": "unlimited"}},
                   {"between": ["r", "b"], "rate": "2Mbps", "delay": "20ms",
                    "queue": {"kind": "droptail", "limit": 10}}],
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000,
                    "app": {"kind": "bulk"}}]}
    res = emulate(sc)
    at_a, at_b = read_pcap(res.pcaps["tun-a"]), read_pcap(res.pcaps["tun-b"])
    created = sum(p[1] == A for p in at_a) + sum(p[1] == B for p in at_b)
    delivered = sum(p[1] == B for p in at_a) + sum(p[1] == A for p in at_b)
    s, ln = res.summary, res.links
    assert (s["packets_created"], s["packets_delivered"]) == (created, delivered)
    assert ln.packets_delivered.sum() > 1.5 * delivered  # each packet crossed two links
    dropped = int(sum(ln[c].sum() for c in ("drops_overflow", "drops_red", "drops_soft", "drops_codel", "drops_corruption")))
    assert dropped > 0 and s["packets_in_flight"] > 0  # a full queue at the end
    assert s["packets_created"] == s["packets_delivered"] + dropped + s["packets_in_flight"]


def test_reproduce_emulate_rejects_scheduler(tmp_path):
    """The emulated study runs on this machine: --scheduler is refused in
    one line naming it, before anything is run or written."""
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", "gsmlink", "--emulate", "--quick",
                        "--scheduler", "tcp://127.0.0.1:1", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "--scheduler" in r.stderr and "--emulate" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert r.stdout == "" and list(tmp_path.iterdir()) == []


SMALL = {"sim": {"duration": "1s"}, "node": [{"name": "a"}, {"name": "b"}],
         "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "1ms"}],
         "flow": [{"from": "a", "to": "b", "transport": "reno", "app": {"kind": "bulk"}}]}
SMALL_TOML = ('[sim]\nduration = "1s"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
              '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "1ms"\n'
              '[[flow]]\nfrom = "a"\nto = "b"\ntransport = "reno"\napp = { kind = "bulk" }\n')
API_CODE = ("import json, sys, tcplab.emulate as e\n"
            "print('REASON', e.unavailable_reason())\n"
            "try:\n    e.emulate(json.loads(sys.argv[1]))\n"
            "except e.EmulatorUnavailable as x:\n    print('UNAVAILABLE', x)\n")


def _without(what: str, args: list) -> list:
    """`args` run with one precondition of the emulator taken away, the
    interpreter and files staying the same (the venv may live under a
    directory no other user can read, so dropping to `nobody` cannot run
    it): "root" runs it in a new user namespace without a uid mapping,
    where its effective uid is the overflow uid 65534 (nobody), as for an
    unprivileged user; "tun" runs it in a new mount namespace with an empty
    tmpfs over /dev/net. Where the precondition is already missing, as is."""
    if what == "root":
        if os.geteuid() != 0:
            return args
        if subprocess.run(["unshare", "--user", "true"], capture_output=True).returncode != 0:
            pytest.skip("cannot create a user namespace here (unshare --user)")
        return ["unshare", "--user", *args]
    if not os.path.exists("/dev/net/tun"):
        return args
    if os.geteuid() != 0:
        pytest.skip("needs root to hide /dev/net/tun in a mount namespace")
    hide = "mount -t tmpfs tcplab-test /dev/net || exit 97; exec \"$@\""
    if subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh", "true"],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount over /dev/net in a mount namespace here")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", hide, "sh", *args]


@pytest.mark.parametrize("what,message", [
    ("root", "the emulator needs root (CAP_NET_ADMIN): run it as root"),
    ("tun", "no TUN device: /dev/net/tun does not exist: load the tun module (modprobe tun)"),
])
def test_clear_error_when_not_root_or_no_tun(tmp_path, what, message):
    """Not root, or no TUN device: the API raises EmulatorUnavailable and
    `tcplab emulate` prints that one line and exits 1, with nothing created
    (no namespaces: the check comes before them; no output directory)."""
    import json

    r = subprocess.run(_without(what, [sys.executable, "-c", API_CODE, json.dumps(SMALL)]),
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    reason = {"root": "the emulator needs root", "tun": "no TUN device: /dev/net/tun does not exist"}[what]
    assert f"REASON {reason}" in r.stdout, r.stdout  # what the tests' skip marks ask
    assert f"UNAVAILABLE {message}\n" in r.stdout, r.stdout + r.stderr
    sc = tmp_path / "small.toml"
    sc.write_text(SMALL_TOML)
    r = subprocess.run(_without(what, [sys.executable, "-m", "tcplab", "emulate", str(sc), "--out",
                                       str(tmp_path / "o")]), capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stderr == f"tcplab: error: {message}\n" and r.stdout == ""
    assert not (tmp_path / "o").exists()


# ---- the emulator itself ---------------------------------------------


def disturbance(res) -> str:
    """What the machine did to a real-time run: the relay's release
    lateness and the CPU time the hypervisor took (docs/emulator.md,
    "Real-time slack")."""
    m = res.emulation
    lat, steal = m["lateness_us"], m.get("steal_ms")
    return (f"lateness p50 {lat['p50']:.0f} us, p99 {lat['p99']:.0f} us, max {lat['max']:.0f} us, "
            f"{m['late_packets']} late; hypervisor steal {steal} ms")


# The emulator's warnings that a run was disturbed: a packet released late,
# or the hypervisor taking the machine's CPUs.
DISTURBANCES = ("fell behind real time", "the hypervisor took")


def emulate_in_real_time(sc, check=None, attempts: int = 3, late_threshold_us: int = 1000, **kw):
    """`emulate(sc)`, run again (up to `attempts` runs in all) when the run
    is not the one to test. The kernel's run is one sample of a real stack
    on a shared machine: another job can hold the CPU for a few ms and make
    a packet late (this VM stalls even the real-time relay thread for 1 to
    3 ms now and then: a ppoll() that woke 3.4 ms after its timeout, and
    about one 3 s run at 10 Mbit/s in three had a packet more than 1 ms
    late on an idle machine), and the host can take the VM's CPUs away,
    which delays the kernel's own timers and softirqs without the relay
    being late (fresh-clone CI, 2026-12-07, other builds beside it: the
    delay step of `test_a_spurious_timeout_is_undone_as_by_the_kernel` 14
    and 35 ms behind the simulation, where every run on this machine is
    within 2 ms). A disturbance says nothing about the model.

    Without `check`, a run the emulator reports late is run again, and
    the first on time (or the last, whose warning the caller's assertion
    then shows) is returned. With `check` (a function asserting about one
    run), the first run it passes is returned; a kernel that disagrees in
    every run fails the test with each run's assertion and what the machine
    did to it (`disturbance`). When every run was disturbed (the emulator
    warned of late packets or of the hypervisor's steal), the test is
    skipped, saying so: no run was a measurement of the kernel, and a skip
    says that where a failure would blame the model."""
    seen, undisturbed = [], 0
    for i in range(attempts):
        res = emulate(sc, late_threshold_us=late_threshold_us, **kw)
        disturbed = any(d in w for w in res.warnings for d in DISTURBANCES)
        if check is None:
            if not disturbed:
                return res
            continue
        try:
            check(res)
            return res
        except AssertionError as e:
            undisturbed += not disturbed
            seen.append(f"run {i + 1}{' (disturbed)' if disturbed else ''}: {str(e).splitlines()[0]} "
                        f"({disturbance(res)})")
    if check is None:
        return res
    runs = "\n".join(seen)
    if not undisturbed:
        pytest.skip(f"the machine disturbed every one of {attempts} runs:\n{runs}")
    pytest.fail(f"the kernel disagreed in all {attempts} runs, {undisturbed} of them undisturbed:\n{runs}")


def kernel_time(res) -> float:
    """The kernel's completion time less its handshake (the simulated
    scenarios have none)."""
    return res.columns("flows")["completion_s"][0] - res.emulation["flows"][0]["connect_s"]


def close(got, want, **tolerance) -> None:
    """`got == pytest.approx(want, ...)`, saying both when not."""
    assert got == pytest.approx(want, **tolerance), (got, want)


@needs_emulator
def test_line_rate_of_ppp_framed_segments():
    """Error-free 9600 bit/s link, unlimited buffer, MSS 256, PPP: once the
    window keeps the link busy, segments arrive at the line rate of
    9600/8 x 256/(256 + 40 + 8) = 1010.5 B/s; over a whole transfer the
    rate is lower by the start-up (the study's 100 KB gives about 1002).
    Lateness counts from 10 ms: a segment takes 247 ms on this link, and
    10 ms late on the last one moves the rate measured over 31 segments
    (7.4 s) by 0.14 %, well inside the 1 % asserted. (This machine, a VM,
    wakes the relay from its long sleeps between segments up to about
    1.1 ms late, which the default 1 ms threshold flagged.)"""
    sc = gsmlink.scenario("baseline", "unlimited", 0.0, baseline="modern")
    sc.data["flow"][0]["app"]["bytes"] = 40 * 256
    sc.data["flow"][0]["first_bytes"] = 5 * 256

    def agrees(res):
        # Steal alone is no reason to doubt a link this slow; a packet 10
        # ms late, or any other warning, is.
        assert not [w for w in res.warnings if "the hypervisor took" not in w], res.warnings
        got = read_pcap(res.pcaps["tun-mobile"])
        data = [p for p in got if p[4] > 0]
        assert len(data) == 40 and all(p[3] == 296 for p in data)
        steady = data[8:]  # past slow start the downlink queue never empties
        rate = sum(p[4] for p in steady[1:]) / (steady[-1][0] - steady[0][0])
        close(rate, gsmlink.line_rate(256), rel=0.01)
        f = res.columns("flows")
        assert f["bytes_delivered"][0] == 40 * 256 and f["retransmits"][0] == 0
        assert f["completion_s"][0] > 0 and f["first_bytes_s"][0] < f["completion_s"][0]

    res = emulate_in_real_time(sc, agrees, late_threshold_us=10_000)
    links = res.columns("links")
    i = links["from"].index("router")
    assert links["packets_sent"][i] == links["packets_delivered"][i]


@needs_emulator
def test_rtt_of_a_10mbit_50ms_link():
    """RTT of a 10 Mbit/s, 50 ms link: 100 ms plus the transmission of the
    60-byte SYN and SYN-ACK (48 us each); the kernel's own measurement and
    the handshake time are within 1 ms of it."""
    res = emulate(two_nodes("10Mbps", "50ms", 20_000), capture=False)
    expect = 0.100 + 2 * 60 * 8 / 10e6
    fl = res.emulation["flows"][0]
    assert fl["min_rtt_s"] == pytest.approx(expect, abs=1e-3)
    # The handshake is one sample of a real-time relay: on a loaded machine
    # (CI, other jobs) it can be late (15 ms seen with both cores busy);
    # the kernel's minimum RTT above is the accuracy check, this one only
    # catches a wrong delay.
    assert fl["connect_s"] == pytest.approx(expect, abs=40e-3)
    assert res.columns("flows")["bytes_acked"][0] == 20_000


@needs_emulator
def test_pattern_error_model_drops_exactly_the_chosen_packets():
    sc = two_nodes("10Mbps", "10ms", 30 * 1000,
                   link={"error": {"kind": "pattern", "drop": [5, 9], "direction": "forward", "packets": "data"}})
    sc["flow"][0]["packet_size"] = 1000
    res = emulate(sc)
    sent = [(p[5], p[4]) for p in read_pcap(res.pcaps["tun-a"]) if p[1] == A and p[4] > 0]
    got = [(p[5], p[4]) for p in read_pcap(res.pcaps["tun-b"]) if p[1] == A and p[4] > 0]
    assert got == [s for i, s in enumerate(sent, 1) if i not in (5, 9)]
    links = res.columns("links")
    assert links["drops_corruption"] == [2, 0]
    assert res.columns("flows")["retransmits"][0] >= 2
    assert res.columns("flows")["bytes_delivered"][0] == 30_000


@needs_emulator
def test_tables_have_the_simulators_columns():
    sc = two_nodes("10Mbps", "5ms", 10_000)
    real = emulate(sc, capture=False)
    sim = tcplab.run(sc)
    for t in ("flows", "links"):
        assert list(real.columns(t)) == list(sim.columns(t))
        assert real.csv(t).splitlines()[0] == sim.csv(t).splitlines()[0]


def test_sampling_faster_than_the_emulator_reads_is_refused():
    sc = two_nodes("1Mbps", "1ms", 1000, output={"sample_interval": "0.5ms"})
    with pytest.raises(ScenarioError) as e:
        check(sc)
    assert e.value.key == "output.sample_interval" and "at least 1 ms" in str(e.value)


@needs_emulator
def test_series_and_queues_from_the_kernel():
    """`output.sample_interval` in the emulator: series.csv from the
    sender's TCP_INFO at the multiples of the interval while its socket is
    open, queues.csv from the link model at every multiple up to the end,
    both in the simulator's columns. One lost segment puts the kernel in
    fast recovery for a round trip (20 ms), which 2 ms samples see. The
    sender's pacing rate is the one Linux computes for every socket."""
    sc = two_nodes("10Mbps", "10ms", 300_000, output={"sample_interval": "2ms"},
                   link={"error": {"kind": "pattern", "drop": [50], "direction": "forward", "packets": "data"}})
    sc["flow"][0]["packet_size"] = 1000
    real = emulate_in_real_time(sc)
    sim = tcplab.run(sc)
    s, q = real.series, real.queues
    assert list(s.columns) == list(sim.series.columns) and list(q.columns) == list(sim.queues.columns)
    ms = (s.time_s * 1000).round()
    assert np.allclose(s.time_s * 1000, ms) and ms.is_monotonic_increasing and ms.is_unique
    assert ms.iloc[0] >= real.emulation["flows"][0]["connect_s"] * 1000
    assert s.snd_una.is_monotonic_increasing and s.bytes_delivered.is_monotonic_increasing
    assert (s.snd_una <= s.snd_max).all() and s.snd_una.iloc[-1] <= 300_000 < s.snd_max.max() + 1000
    assert (s.cwnd_bytes > 0).all() and (s.rto_s >= 0.2).all()
    assert set(s.ca_state) <= {"open", "disorder", "cwr", "recovery", "loss"} and "recovery" in set(s.ca_state)
    assert "recovery" in set(sim.series.ca_state)
    assert (s.bbr_mode == "none").all() and s.bw_estimate_bps.isna().all()
    # Linux keeps a pacing rate for every socket (tcp_update_pacing_rate()
    # on each ACK): 200 % of max(cwnd, flight) x MSS / SRTT below half
    # ssthresh, 120 % after, the linux profile's rate too (test_bbr.py);
    # tcpi_rtt is the SRTT to the microsecond. (2026-12-07: 99.4-100 % of
    # the instants within 0.2 % in three runs; the flight exceeds cwnd in
    # the recovery.)
    gain = np.where(s.cwnd_bytes < s.ssthresh_bytes.fillna(np.inf) / 2, 2.0, 1.2)
    rate = gain * np.maximum(s.cwnd_bytes, s.snd_nxt - s.snd_una) * 8 / s.srtt_s
    linuxs = (s.pacing_rate_bps / rate - 1).abs() < 0.002
    assert linuxs.mean() > 0.97 and set(gain) == {2.0, 1.2}, (s.pacing_rate_bps / rate).describe()
    # queues: both directions at every instant from 0 to the end of the run.
    qt = sorted(set((q.time_s * 1000).round()))
    assert qt[0] == 0 and qt == [2 * i for i in range(len(qt))]
    assert len(q) == 2 * len(qt) and q.queue_packets.max() > 0
    assert qt[-1] / 1000 <= real.summary["duration_s"] < qt[-1] / 1000 + 0.002


@needs_emulator
def test_series_of_bbr_from_the_kernel():
    """BBR's state through TCP_CC_INFO: its modes in order, and its
    bandwidth estimate at the end of a 1 MB transfer the path's payload
    rate (10 Mbit/s x 1000 / 1052), as the simulator's. A stall of the
    machine that delivers a clump of ACKs at once gives the kernel a
    delivery-rate sample above the path's rate, which BBR's max filter
    keeps for ten round trips (10.63 Mbit/s in a fresh-clone CI run with
    other builds beside it): such a run is not the one to test."""
    sc = two_nodes("10Mbps", "20ms", 1_000_000, output={"sample_interval": "10ms"})
    sc["flow"][0].update(transport="bbr", packet_size=1000, window=5000)
    sc["flow"][0]["app"]["write"] = 1_000_000
    payload_rate = 10e6 * 1000 / 1052
    assert tcplab.run(sc, sample_interval="10ms").series.bw_estimate_bps.iloc[-1] == pytest.approx(payload_rate, rel=0.05)

    def agrees(real):
        s = real.series
        modes = list(dict.fromkeys(s.bbr_mode))
        assert modes[:3] == ["startup", "drain", "probe_bw"], modes
        assert s.bw_estimate_bps.iloc[-1] == pytest.approx(payload_rate, rel=0.05)
        assert s.min_rtt_s.iloc[-1] == pytest.approx(0.040, abs=0.002)

    emulate_in_real_time(sc, agrees)


@needs_emulator
def test_lateness_over_the_threshold_is_reported(tmp_path):
    """Real-time slack: with a late threshold of 1 us, which no loop that
    sleeps until a packet is due meets for every packet, the run says it
    fell behind: a warning line of `tcplab emulate`, the count in its
    summary line and in emulation.json; the API's EmuResult.warnings."""
    import json

    sc = tmp_path / "sc.toml"  # two_nodes("10Mbps", "2ms", 20_000)
    sc.write_text('[sim]\nduration = "60s"\ntcp_profile = "linux"\n[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
                  '[[link]]\nbetween = ["a", "b"]\nrate = "10Mbps"\ndelay = "2ms"\nqueue = { kind = "unlimited" }\n'
                  '[[flow]]\nname = "f"\nfrom = "a"\nto = "b"\ntransport = "newreno"\n'
                  'app = { kind = "transfer", bytes = 20000, write = 8192 }\n')
    r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(sc), "--out", str(tmp_path / "o"), "--no-pcap",
                        "--late-threshold-us", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = json.loads((tmp_path / "o" / "emulation.json").read_text())
    late, n = m["late_packets"], m["packets_released"]
    assert m["late_threshold_us"] == 1 and 0 < late <= n
    assert m["lateness_us"]["max"] > 1
    # (A busy host may add the hypervisor's warning: docs/emulator.md.)
    warned = [ln for ln in r.stderr.splitlines() if ln.startswith("tcplab: warning: ") and "fell behind" in ln]
    assert len(warned) == 1, r.stderr
    assert re.search(rf"\b{late} of {n} packets were released more than 1 us late .*fell behind real time", warned[0])
    assert f"({late} of {n} packets later than 1 us)" in r.stdout, r.stdout
    assert warned[0].removeprefix("tcplab: warning: ") in m["warnings"]
    # The hypervisor's steal over the run, in emulation.json and the summary line.
    assert m["steal_ms"] >= 0 and f"hypervisor steal {m['steal_ms']:.0f} ms" in r.stdout, r.stdout
    res = emulate(two_nodes("10Mbps", "2ms", 5_000), capture=False, late_threshold_us=1)
    assert res.emulation["late_packets"] > 0
    assert any("us late" in w and "fell behind real time" in w for w in res.warnings), res.warnings
    r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(sc), "--late-threshold-us", "0"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and "--late-threshold-us" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def _netns_inodes_of(pid: int) -> set:
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.add(os.stat(task / "ns" / "net").st_ino)
        except OSError:
            pass
    return found


def _all_netns_inodes() -> set:
    found = set()
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                found |= _netns_inodes_of(int(p.name))
            except OSError:
                pass
    return found


@needs_emulator
def test_sigkill_leaves_nothing_behind(tmp_path):
    """Kill the emulator mid-run: its namespaces (and with them the TUN
    devices, addresses and routes in them) are gone, nothing was made in
    the root namespace, and the next run works."""
    links_before = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    netns_before = set(os.listdir("/var/run/netns")) if os.path.isdir("/var/run/netns") else set()
    mine = os.stat("/proc/self/ns/net").st_ino
    code = ("import tcplab.emulate as e, json, sys\n"
            f"e.emulate(json.loads(sys.argv[1]))\n")
    import json

    sc = two_nodes("9600bps", "200ms", 10**6)
    proc = subprocess.Popen([sys.executable, "-c", code, json.dumps(sc)])
    try:
        inodes = set()
        for _ in range(200):
            inodes = _netns_inodes_of(proc.pid) - {mine}
            if inodes:
                break
            time.sleep(0.05)
        assert inodes, "the emulator's namespaces never appeared"
        time.sleep(1.0)  # mid-transfer
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert not (inodes & _all_netns_inodes())
    assert subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout == links_before
    after = set(os.listdir("/var/run/netns")) if os.path.isdir("/var/run/netns") else set()
    assert after == netns_before
    res = emulate(two_nodes("10Mbps", "1ms", 5000), capture=False)
    assert res.columns("flows")["bytes_delivered"][0] == 5000


@needs_emulator
def test_reproduce_gsmlink_emulate_quick(tmp_path):
    """The quick emulated gsmlink grid (8 runs in parallel, about 2 minutes):
    the tables and the side-by-side figure; every real run completes and the
    error-free unlimited-buffer baseline carries the study's ~1002 B/s."""
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", "gsmlink", "--emulate", "--quick", "-q",
                        "--out", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

    thr = pd.read_csv(tmp_path / "throughput.csv")
    assert set(thr["stack"]) == {"real", "simulated"}
    runs = pd.read_csv(tmp_path / "runs.csv")
    real = runs[runs["stack"] == "real"]
    assert real["completed"].all() and (real["steal_ms"] >= 0).all()
    cell = (runs.optimization == "baseline") & (runs.loss == 0) & (runs.buffer == "unlimited")
    base = runs[cell & (runs["stack"] == "real")].iloc[0]
    sim = runs[cell & (runs["stack"] == "simulated")].iloc[0]
    # Over the whole 100 KB the study measured about 1002 B/s (issue 15);
    # here 998.8 (docs/studies.md): the line rate of 1010.5 less slow start
    # and the handshake.
    assert base["throughput_Bps"] == pytest.approx(1002, rel=0.01)
    assert base["throughput_Bps"] < gsmlink.line_rate(256)
    # The real stack is the model plus a handshake (0.50 s here; the
    # simulator's connections start established): without it the real
    # transfer takes the simulated time, 102.02 s, within 0.5 % (measured:
    # 0.4 ms since the linux profile acknowledges the write's last segment
    # at once, `push_ack`; 40 ms before; a machine that falls behind by a
    # few ms changes it by < 0.1 %).
    assert base["completion_s"] - base["connect_s"] == pytest.approx(sim["completion_s"], rel=0.005)
    assert (tmp_path / "sim_vs_real.png").exists()


@needs_emulator
def test_ctrl_c_stops_the_run_and_writes_nothing(tmp_path):
    import json

    sc = tmp_path / "slow.json"
    sc.write_text(json.dumps(two_nodes("9600bps", "200ms", 10**6)))
    code = ("import sys, tcplab.emulate as e\n"
            "try:\n    e.emulate(sys.argv[1])\nexcept KeyboardInterrupt:\n    sys.exit(130)\n")
    # A TOML path is what the CLI takes; the API takes the dict as well.
    code = code.replace("e.emulate(sys.argv[1])", "import json; e.emulate(json.load(open(sys.argv[1])))")
    p = subprocess.Popen([sys.executable, "-c", code, str(sc)],
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=10) == 130


# ---- outputs, options, interruption -----------------------------------

SLOW_TOML = SMALL_TOML.replace('duration = "1s"', 'duration = "30s"')


@needs_emulator
def test_emulate_checks_out_before_running(tmp_path):
    """Found by a reviewer: an unusable --out (a file, /proc) failed only
    after the whole real-time run, and --out "" was taken as the default.
    Now refused like tcplab run's, exit 2, before the (here 30 s) run."""
    sc = tmp_path / "slow.toml"
    sc.write_text(SLOW_TOML)
    (tmp_path / "afile").write_text("x")
    for out, says in [(str(tmp_path / "afile" / "sub"), "cannot create the directory or write into it"),
                      ("/proc/tcplab-x", "cannot create the directory or write into it"),
                      (str(tmp_path / "afile"), "exists and is not a directory"),
                      ("", "needs a directory name")]:
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(sc), "--out", out],
                           capture_output=True, text=True, cwd=tmp_path)
        assert r.returncode == 2 and time.monotonic() - t0 < 10, (out, r.stderr)
        assert r.stderr.startswith("tcplab: error: --out") and says in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "slow.toml"]


def test_socket_buffer_options_name_the_option(tmp_path):
    sc = tmp_path / "x.toml"
    sc.write_text(SMALL_TOML)
    for opt, v in [("--rcvbuf", "0"), ("--sndbuf", "-5"), ("--rcvbuf", str(2**31))]:
        r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(sc), opt, v, "--out", str(tmp_path / "o")],
                           capture_output=True, text=True)
        assert r.returncode == 2 and f"{opt} must be a number of bytes from 1 to 2147483647" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
    with pytest.raises(ScenarioError) as e:
        emulate(SMALL, rcvbuf=2**32)
    assert e.value.key == "rcvbuf"


@needs_emulator
def test_emulation_json_is_written_with_the_other_files(tmp_path):
    """emulation.json belongs to the run's set: written in the staging
    directory with the tables, so a failure writes nothing (it used to be
    written after the tables were in place), and replaced or removed by a
    later run into the same directory."""
    res = emulate(two_nodes("10Mbps", "1ms", 5000), capture=False)
    out = tmp_path / "o"
    res.write(out)
    assert sorted(p.name for p in out.iterdir()) == ["emulation.json", "flows.csv", "links.csv", "summary.json"]
    res.emulation["not json"] = object()
    with pytest.raises(TypeError):
        res.write(tmp_path / "o2")
    assert not (tmp_path / "o2").exists()


def test_a_run_into_an_emulated_runs_directory_replaces_emulation_json(tmp_path):
    """Found by a reviewer: `tcplab run --out DIR` into an earlier `tcplab
    emulate` directory left its emulation.json beside the new tables."""
    out = tmp_path / "o"
    out.mkdir()
    for name in ("flows.csv", "links.csv", "summary.json", "emulation.json", "tun-a.pcap"):
        (out / name).write_text("old\n")
    sc = tmp_path / "x.toml"
    sc.write_text(SMALL_TOML)
    r = subprocess.run([sys.executable, "-m", "tcplab", "run", str(sc), "--out", str(out), "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["flows.csv", "links.csv", "summary.json"]


def test_the_modules_example_is_accepted():
    """The example in tcplab.emulate's docstring used gsm9600.toml as it
    is, whose 200 ms delayed-ACK timer the emulator refuses."""
    import tcplab.emulate as emu

    call = re.search(r"emu\.emulate\((.*?)\)\n", emu.__doc__, re.S).group(1)
    args = eval(f"(lambda scenario, **kw: (scenario, kw))({call})")  # noqa: S307 - our own docstring
    scenario, kw = args
    kw.pop("cc")
    check(ROOT / scenario, **kw)


def test_reproduce_help_gives_the_emulated_jobs_default():
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", "--help"], capture_output=True, text=True,
                       env=dict(os.environ, COLUMNS="200"))
    assert "with --emulate, one per run up to 16" in r.stdout, r.stdout


def _kill_group(p) -> None:
    """Whatever a test's command left in its process group (its own
    session), killed: workers orphaned by a failure must not run on."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def _children(pid: int) -> list:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@needs_emulator
@pytest.mark.parametrize("how", ["SIGTERM to the command", "SIGINT to its process group"])
def test_interrupting_the_emulated_study_stops_everything(tmp_path, how):
    """Found by a reviewer: SIGTERM left the study's two workers running
    (with their namespaces, one starting new runs) and an empty --out
    directory; Ctrl-C took 135 s, each worker taking the interrupt for one
    failed run and starting the next. Now the command stops within seconds
    with the sweeps' "interrupted" line and status 130, its workers and
    their namespaces gone, and nothing written (no run had finished)."""
    out = tmp_path / "o"
    mine = os.stat("/proc/self/ns/net").st_ino
    p = subprocess.Popen([sys.executable, "-m", "tcplab", "reproduce", "gsmlink", "--emulate", "--quick", "--jobs",
                          "2", "-q", "--out", str(out)], stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        workers, spaces = [], set()
        for _ in range(300):  # both workers inside their emulations
            workers = [w for w in _children(p.pid) if _netns_inodes_of(w) - {mine}]
            spaces = set().union(*(_netns_inodes_of(w) for w in workers)) - {mine} if workers else set()
            if len(workers) == 2 and len(spaces) == 4:
                break
            time.sleep(0.1)
        assert len(workers) == 2 and len(spaces) == 4, (workers, spaces)
        time.sleep(1.0)
        t0 = time.monotonic()
        if how.startswith("SIGTERM"):
            p.send_signal(signal.SIGTERM)
        else:
            os.killpg(p.pid, signal.SIGINT)
        assert p.wait(timeout=20) == 130
        assert time.monotonic() - t0 < 5
        assert p.stderr.read() == "tcplab: interrupted: 0 runs saved, rerun to resume\n"
    finally:
        _kill_group(p)
    time.sleep(0.5)
    assert not [w for w in workers if Path(f"/proc/{w}").exists()]
    assert not (spaces & _all_netns_inodes())
    assert not out.exists()


FAKE_STUDY = '''
import os, sys, time
from tcplab.studies import gsmlink_emulate as ge

def fake(p):
    """Stands in for one real-time run: instant, except one cell that
    takes minutes when SLOW is set; each call leaves a file behind."""
    name = f"{p['optimization']}-{p['loss']}-{p['buffer']}-{p['seed']}"
    open(os.path.join(os.environ["CALLS"], name), "w").close()
    if os.environ.get("SLOW") == name:
        time.sleep(600)
    return dict(p, stack="real", throughput_Bps=900.0 + p["seed"], first15k_s=16.0, completed=True,
                completion_s=110.0, retransmits=0, timeouts=0, late_max_us=1.0, late_p99_us=1.0, late_packets=0,
                connect_s=0.5, warnings="")

ge.emulate_cell = fake
from tcplab.cli import main
sys.exit(main(sys.argv[1:]))
'''


@needs_emulator
def test_an_interrupted_emulated_study_resumes(tmp_path):
    """Finished real runs are stored at once (OUT/runs/, as a sweep's) and
    kept when the study is interrupted; a rerun does only the others and
    writes the same tables. The real-time runs are stood in for by a fake
    (the cell run in the workers is replaced before they fork)."""

    script = tmp_path / "study.py"
    script.write_text(FAKE_STUDY)
    calls, out = tmp_path / "calls", tmp_path / "o"
    calls.mkdir()
    slow = "sack-0.05-unlimited-1"
    cmd = [sys.executable, str(script), "reproduce", "gsmlink", "--emulate", "--quick", "--jobs", "2", "-q",
           "--out", str(out)]
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=dict(os.environ, CALLS=str(calls), SLOW=slow),
                         start_new_session=True)
    try:
        for _ in range(300):
            if len(list((out / "runs").glob("*.json"))) == 7:
                break
            time.sleep(0.1)
        workers = _children(p.pid)
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 130
    finally:
        _kill_group(p)
    assert p.stderr.read() == "tcplab: interrupted: 7 runs saved, rerun to resume\n"
    time.sleep(0.5)
    assert not [w for w in workers if Path(f"/proc/{w}").exists()]
    assert sorted(x.name for x in out.iterdir()) == ["runs"]
    for c in calls.iterdir():
        c.unlink()
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, CALLS=str(calls)))
    assert r.returncode == 0, r.stderr
    assert [c.name for c in calls.iterdir()] == [slow]
    again = pd.read_csv(out / "runs.csv")
    for c in calls.iterdir():
        c.unlink()
    fresh = tmp_path / "fresh"
    r = subprocess.run(cmd[:-1] + [str(fresh)], capture_output=True, text=True, env=dict(os.environ, CALLS=str(calls)))
    assert r.returncode == 0 and len(list(calls.iterdir())) == 8, r.stderr
    pd.testing.assert_frame_equal(again, pd.read_csv(fresh / "runs.csv"))


# ---- fourth review: wireless scenarios, set-up failures, buffers, drain, SIGTERM


def stations(hops: int, routing: str = "static", duration: str = "8s", **flow) -> dict:
    """hops + 1 stations 200 m apart on an 802.11 channel at 2 Mbit/s (RTS
    on every frame), one bulk flow from the first to the last."""
    f = {"name": "f", "from": "s0", "to": f"s{hops}", "transport": "newreno", "packet_size": 1448,
         "app": {"kind": "bulk"}}
    f.update(flow)
    return {"sim": {"duration": duration, "tcp_profile": "linux"},
            "wireless": {"data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_threshold": 0, "routing": routing},
            "node": [{"name": f"s{k}", "position": [200.0 * k, 0.0]} for k in range(hops + 1)],
            "flow": [f]}


def test_a_network_emulation_needs_its_flows_between_two_nodes():
    """With a radio channel the emulator runs the whole simulated network
    (docs/emulator.md, "Through a simulated network"); its two namespaces
    are the two nodes of the first flow, and a flow elsewhere is refused,
    naming it."""
    check(ROOT / "scenarios" / "wifi-chain.toml")
    check(ROOT / "scenarios" / "aodv-chain.toml")
    sc = stations(2)
    sc["flow"].append({"from": "s1", "to": "s0", "transport": "newreno", "app": {"kind": "bulk"}})
    with pytest.raises(ScenarioError) as e:
        check(sc)
    assert e.value.key == "flow[1].from", e.value


@needs_emulator
def test_the_kernel_over_one_802_11_hop_matches_the_simulated_linux_profile():
    """The real stack through the core's DCF (contention between the data
    and the ACKs, RTS/CTS, retries, the interface queue) against the same
    scenario simulated with the linux profile: the 802.11 frames and the
    goodput agree within a few percent (docs/emulator.md: 1.3646 against
    1.3669 Mbit/s, 1182 against 1181 data frames, over 10 s). The mean RTO
    too, since the profile has Linux's estimator (0.595 s both; RFC 6298's
    gives 0.426 s on this run: its minimum floors the sum, Linux adds it to
    SRTT)."""
    sc = stations(1)
    sim = tcplab.run(sc)
    s_row = sim.flows.iloc[0]
    assert pd.isna(s_row.mean_ssthresh_bytes)

    def agrees(emu):
        close(float(emu.flows.goodput_bps[0]), float(sim.flows.goodput_bps[0]), rel=0.05)
        for col in ("data_frames", "rts_frames"):
            e, s_ = emu.nodes[col].to_numpy(dtype=float), sim.nodes[col].to_numpy(dtype=float)
            assert e == pytest.approx(s_, rel=0.05), (col, e, s_)
        assert list(emu.nodes.node) == ["s0", "s1"]
        # The time averages: the kernel's from TCP_INFO every millisecond,
        # the model's exact; no loss, so no ssthresh in either; the RTT is
        # mostly the sender's interface queue in both.
        e_row = emu.flows.iloc[0]
        assert pd.isna(e_row.mean_ssthresh_bytes)
        close(e_row.mean_srtt_s, s_row.mean_srtt_s, rel=0.15)
        close(e_row.mean_rto_s, s_row.mean_rto_s, rel=0.05)
        assert e_row.mean_cwnd_bytes > 10 * 1448
        assert emu.nodes.retries.sum() > 0, "the two directions contend"
        assert emu.summary["packets_created"] == emu.summary["packets_delivered"] + \
            emu.summary["packets_in_flight"] + int(emu.nodes.drops_ifq.sum() + emu.nodes.drops_retry_limit.sum())

    emulate_in_real_time(sc, agrees)


@needs_emulator
@pytest.mark.parametrize("name, duration", [("wifi-cells", "12s"), ("mobile-field", "12s")])
def test_the_kernel_across_base_stations_and_moving_stations(name, duration):
    """The example networks with base stations (two cells joined by wired
    links, DSDV; Snoop off, since it reads the simulator's TCP headers) and
    with moving stations: the first flow runs with the kernel's TCP and
    delivers what the simulated linux profile delivers within 5 %
    (2026-12-03, 15 and 30 s: 956.5 against 959.8 kbit/s, 1.3565 against
    1.3714 Mbit/s)."""
    sc = tcplab.load_scenario(ROOT / "scenarios" / f"{name}.toml")
    d = sc.data
    d["sim"].update(duration=duration, tcp_profile="linux")
    for n in d["node"]:
        n.pop("snoop", None)
    d["flow"] = d["flow"][:1]
    sim = tcplab.run(d)

    def agrees(emu):
        close(emu.flows.goodput_bps[0], sim.flows.goodput_bps[0], rel=0.05)
        assert emu.flows.bytes_delivered[0] > 100_000

    emulate_in_real_time(d, agrees)


@needs_emulator
def test_the_linux_profiles_rtt_samples_and_rto_are_the_kernels():
    """Without timestamps Linux still samples the RTT on every ACK of new
    data (tcp_clean_rtx_queue(): the send time of the oldest segment
    acknowledged) and runs its own estimator: a bulk flow filling a 2 Mbit/s
    queue over 8 s, the kernel's mean SRTT 0.7225 and 0.7231 s and mean RTO
    0.9252 and 0.9257 s in two runs, the linux profile's 0.7314 and 0.9358 s
    (final SRTT 0.8214 s in all three); timing one segment per round trip
    (`rtt_timing = "karn"`, before 2026-12-03) gave 0.3695 and 1.5703 s,
    0.3565 and 1.5688 s since F-RTO and D-SACK (docs/emulator.md)."""
    sc = two_nodes("2Mbps", "50ms", 1)
    sc["sim"]["duration"] = "8s"
    sc["flow"][0].update(packet_size=1448, app={"kind": "bulk"}, tcp={"timestamps": False, "window_bytes": 200000})
    sim = tcplab.run(sc).flows.iloc[0]

    def agrees(res):
        emu = res.flows.iloc[0]
        for col in ("mean_srtt_s", "mean_rto_s", "final_srtt_s"):
            assert sim[col] == pytest.approx(emu[col], rel=0.05), (col, sim[col], emu[col])

    emu = emulate_in_real_time(sc, agrees).flows.iloc[0]
    sc["flow"][0]["tcp"]["rtt_timing"] = "karn"
    karn = tcplab.run(sc).flows.iloc[0]
    assert karn.mean_srtt_s < 0.7 * emu.mean_srtt_s and karn.mean_rto_s > 1.3 * emu.mean_rto_s


@needs_emulator
@pytest.mark.parametrize("sack", [True, False])
def test_cubic_follows_the_kernels_cubic(sack):
    """`transport = "cubic"` against the kernel's own cubic (TCP_CONGESTION
    "cubic"): 10 Mbit/s, 20 ms each way, a DropTail queue of 50, a bulk
    flow for 12 s. CUBIC's cut to 0.7 cwnd, its curve back to W_max and
    HyStart give the kernel's window: the mean cwnd and ssthresh within a
    few per cent and the same fast retransmits within one (measured
    2026-12-03, 20 s runs: 7 and 7 fast retransmits, mean cwnd 107.8 against
    107.3 kB, ssthresh 87.6 against 85.9 kB, mean SRTT 89.6 against 89.1
    ms; docs/emulator.md). The profile's NewReno on the same path, halving
    its window at each loss, keeps the queue emptier (mean SRTT 66-79 ms
    in 12 s): it falls outside the tolerances, so they tell the two
    apart."""
    sc = two_nodes("10Mbps", "20ms", 1, link={"queue": {"kind": "droptail", "limit": 50}})
    sc["sim"]["duration"] = "12s"
    sc["flow"][0].update(transport="cubic", packet_size=1448, app={"kind": "bulk"},
                         tcp={"window_bytes": 4_000_000, "sack": sack})
    sim = tcplab.run(sc).flows.iloc[0]
    sc_newreno = {**sc, "flow": [{**sc["flow"][0], "transport": "newreno"}]}
    newreno = tcplab.run(sc_newreno).flows.iloc[0]

    def off(run, emu) -> list:
        """What of `run` is outside the tolerances around the kernel's."""
        tol = {"goodput_bps": 0.03, "mean_cwnd_bytes": 0.06, "mean_ssthresh_bytes": 0.06, "mean_srtt_s": 0.05}
        bad = [(c, run[c], emu[c]) for c, r in tol.items() if run[c] != pytest.approx(emu[c], rel=r)]
        if abs(run.fast_retransmits - emu.fast_retransmits) > 1 or run.timeouts != emu.timeouts:
            bad.append(("fast_retransmits, timeouts", (run.fast_retransmits, run.timeouts),
                        (emu.fast_retransmits, emu.timeouts)))
        return bad

    # The kernel's run is one sample of a real stack on a shared machine:
    # in a fresh-clone CI run (2026-12-03) one came out at 9.26 Mbit/s
    # against the simulated 9.60, four of the quantities off, where the
    # runs here before and after (six of each) were all within the
    # tolerances. Up to three kernel runs; the first that the simulated
    # run matches, and NewReno's does not, decides.
    def agrees(res):
        emu = res.flows.iloc[0]
        assert off(newreno, emu) != [], "NewReno matches the kernel's CUBIC too"
        assert off(sim, emu) == [] and emu.timeouts == 0, off(sim, emu)

    emulate_in_real_time(sc, agrees)


@needs_emulator
@pytest.mark.parametrize("routing", ["aodv", "dsdv", "dsr", "olsr"])
def test_the_kernel_over_a_two_hop_chain_with_each_routing_protocol(routing):
    """Two hops with each routing protocol: the kernel's first segments wait
    for the route (AODV's and DSR's discovery, DSDV's first updates, OLSR's
    HELLOs and TCs), then the transfer runs over the relay and completes
    about when the simulated linux profile's does (2026-12-03: DSDV 2.831 s
    against 2.806, DSR 2.441 against 2.419, OLSR 5.833 against 5.996)."""
    sc = stations(2, routing=routing, duration="20s", app={"kind": "transfer", "bytes": 200_000})
    sim = tcplab.run(sc)

    def agrees(r):
        assert r.flows.bytes_delivered[0] == 200_000
        close(r.flows.completion_s[0], sim.flows.completion_s[0], rel=0.10)
        assert r.nodes.routing_packets.sum() > 0
        if routing in ("aodv", "dsr"):
            assert r.nodes.route_discoveries.sum() >= 1
        assert r.nodes.set_index("node").data_frames["s1"] > 100, "the relay forwards"

    emulate_in_real_time(sc, agrees)


@needs_emulator
def test_a_failed_setup_is_one_line_not_a_traceback(tmp_path):
    """Found by a review: without iproute2's `ip` on PATH the set-up error
    came out as a Python traceback (RuntimeError)."""
    sc = tmp_path / "x.toml"
    sc.write_text(SMALL_TOML)
    env = dict(os.environ, PATH=str(tmp_path / "nothing-here"))
    r = subprocess.run([sys.executable, "-m", "tcplab", "emulate", str(sc), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("tcplab: error: emulator setup failed: cannot run `ip` (iproute2)"), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "o").exists()


@needs_emulator
def test_rcvbuf_and_sndbuf_are_not_capped_at_rmem_max():
    """Found by a review: --rcvbuf/--sndbuf went through SO_RCVBUF/SO_SNDBUF,
    which the kernel silently caps at net.core.rmem_max/wmem_max (4 MB
    here). Root sets them with the FORCE options, and emulation.json gives
    the sizes the kernel holds (twice the request)."""
    cap = max(int(Path(f"/proc/sys/net/core/{k}").read_text()) for k in ("rmem_max", "wmem_max"))
    want = min(cap + 1_000_000, 2**30 - 1)
    res = emulate(two_nodes("10Mbps", "1ms", 10_000), rcvbuf=want, sndbuf=want, capture=False)
    (f,) = res.emulation["flows"]
    assert (f["rcvbuf_bytes"], f["sndbuf_bytes"]) == (2 * want, 2 * want), f
    plain = emulate(two_nodes("10Mbps", "1ms", 10_000), capture=False).emulation["flows"][0]
    assert plain["rcvbuf_bytes"] is None and plain["sndbuf_bytes"] is None


@needs_emulator
def test_a_finished_run_delivers_what_is_still_on_the_path():
    """Found by a review (post-stop drain): a run that ended because its
    flows were done dropped what the relay still held, the closing
    segments one way delay (100 ms) from their far end: links.csv showed
    packets sent and not delivered, summary.json packets in flight, the
    far end's capture lacked them. Now they are released at their due
    times before the run ends."""
    res = emulate(two_nodes("10Mbps", "100ms", 20_000))
    s, ln = res.summary, res.links
    assert s["packets_in_flight"] == 0, s
    assert list(ln.packets_delivered) == list(ln.packets_sent), ln.to_dict()
    at_a, at_b = read_pcap(res.pcaps["tun-a"]), read_pcap(res.pcaps["tun-b"])
    assert sum(p[1] == A for p in at_a) == sum(p[1] == A for p in at_b)
    assert sum(p[1] == B for p in at_b) == sum(p[1] == B for p in at_a)
    assert s["packets_created"] == s["packets_delivered"]


@needs_emulator
def test_sigterm_stops_tcplab_emulate_like_ctrl_c(tmp_path):
    """Found by a review: SIGTERM killed `tcplab emulate` silently (status
    143) where `tcplab run` and the emulated study stop with status 130 and
    one line; Ctrl-C said nothing either. Now both: 130, "interrupted;
    nothing written", no --out, the namespaces gone with the process."""
    sc = tmp_path / "slow.toml"
    sc.write_text(SLOW_TOML)
    for sig in (signal.SIGTERM, signal.SIGINT):
        out = tmp_path / f"o{int(sig)}"
        p = subprocess.Popen([sys.executable, "-m", "tcplab", "emulate", str(sc), "--out", str(out)],
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(2.0)
        p.send_signal(sig)
        _, err = p.communicate(timeout=10)
        assert p.returncode == 130, (sig, err)
        assert err.strip() == "tcplab: interrupted; nothing written", err
        assert not out.exists()


# ---- applications that pause: later writes and messages -----------------


def pausing(app: dict, idle: str = "linux") -> dict:
    """10 Mbit/s, 10 ms each way, unlimited queue, 1000-byte segments, the
    linux profile with `idle_restart`, 3 s."""
    sc = two_nodes("10Mbps", "10ms", 0, sim={"duration": "3s", "tcp_profile": "linux", "seed": 1},
                   tcp={"idle_restart": idle})
    sc["flow"][0].update(packet_size=1000, app=app)
    return sc


def test_pausing_apps_plan_and_idle_rules_without_root():
    more = {"kind": "transfer", "bytes": 5000, "more": [{"at": "1s", "bytes": 3000}]}
    check(pausing(more))
    check(pausing({"kind": "messages", "interval": "50ms"}))
    for tcp, key in [({"idle_restart": "ns2-timer"}, "tcp.idle_restart"),
                     ({"cwnd_validation": True}, "tcp.cwnd_validation")]:
        sc = pausing(more)
        sc["tcp"] = tcp
        with pytest.raises(ScenarioError) as e:
            check(sc)
        assert e.value.key == key


@needs_emulator
def test_the_kernels_restart_after_idle_is_the_linux_profiles():
    """300 kB, then 100 kB more at 2 s, after 1.5 s idle. Linux's
    tcp_cwnd_restart() (tcp_slow_start_after_idle 1) starts again from its
    initial window of 10: the last write takes 122 ms here, simulated
    122.4 ms; with the sysctl 0 ("off") the window stays and both take
    105 ms (docs/emulator.md)."""
    more = {"kind": "transfer", "bytes": 300_000, "more": [{"at": "2s", "bytes": 100_000}]}
    took = {}
    for idle in ("linux", "off"):
        sc = pausing(more, idle)
        sim = tcplab.run(sc).flows["completion_s"][0] - 2

        def agrees(res):
            emu = res.columns("flows")["completion_s"][0] - 2
            assert res.columns("flows")["bytes_delivered"][0] == 400_000
            assert emu == pytest.approx(sim, rel=0.05), (idle, emu, sim)
            took[idle] = emu

        emulate_in_real_time(sc, agrees)
    assert took["linux"] > took["off"] + 0.010, took


@needs_emulator
def test_messages_are_the_simulated_runs_writes():
    """A messages app replays the simulator's own draws: 500-byte messages
    with 20 ms mean gaps until 2.5 s reach the receiving application as
    they do in the simulation, byte for byte; another seed, other writes."""
    app = {"kind": "messages", "interval": "20ms", "bytes": 500, "stop": "2.5s"}
    sc = pausing(app)
    sim = tcplab.run(sc).flows["bytes_delivered"][0]
    res = emulate_in_real_time(sc)
    assert res.columns("flows")["bytes_delivered"][0] == sim
    assert 80 * 500 < sim < 170 * 500 and sim % 500 == 0
    sc["sim"]["seed"] = 2
    assert tcplab.run(sc).flows["bytes_delivered"][0] != sim


@needs_emulator
def test_slow_start_is_the_kernels():
    """10 Mbit/s, 50 ms each way: 300 kB in one write from an initial
    window of 10, delayed ACKs. Linux grows cwnd by the segments each ACK
    covers (the linux profile's `cwnd_increase = "per-segment"`): 633.0 ms
    here without the handshake, simulated 633.2 ms (631.5 with the
    receiver's quick ACKs at the start, `quick_acks`); growing one segment
    per ACK, as before 2026-12-02, takes 668.4 ms (708.7 before Linux's
    receive window, whose growth acknowledges more segments one by one,
    each ACK adding a segment; 783.6 without the quick ACKs either;
    docs/emulator.md). (At
    100 Mbit/s the same agreement held on a quiet machine, but a loaded
    one stretched the real run by 30 ms: segments 80 us apart.)"""
    sc = two_nodes("10Mbps", "50ms", 300_000)
    sc["flow"][0].update(packet_size=1000, window=1000)
    sc["flow"][0]["app"]["write"] = 300_000
    sim = tcplab.run(sc).flows["completion_s"][0]
    emu = kernel_time(emulate_in_real_time(sc, lambda res: close(kernel_time(res), sim, rel=0.05)))
    sc["tcp"] = {"cwnd_increase": "per-ack"}
    assert tcplab.run(sc).flows["completion_s"][0] > emu + 0.025


@needs_emulator
def test_the_end_of_a_write_is_acknowledged_at_once_as_by_the_kernel():
    """302 kB at 10 Mbit/s, 10 ms each way, SACK, the 50th data segment
    lost: the transfer ends on an odd segment, which Linux's receiver
    acknowledges at once (it carries PSH, the end of the write); the
    profile's `push_ack` does the same (2026-12-03: 290.7 ms simulated),
    without it the last ACK waits for the 40 ms delayed-ACK timer (330.7
    ms). Until 2026-12-03 this was 300 kB (kernel 290.9 ms, profile 291.6
    and 331.6): after the linux profile's SACK recovery took tcp_ack()'s
    order, its receiver's ACK pairs end on the 300th segment instead, so
    that transfer no longer tests the rule. (The kernel's receiver sent
    260 ACKs for those 300 segments, acknowledging nearly each one; the
    profile's 188, every second one: docs/emulator.md, "Where they part:
    the end of slow start".) Since 2026-12-07 the profile's receiver is
    Linux's, whose window still grows at the end of a 1 MB-window
    transfer, and each segment that grows it is acknowledged at once, the
    last one too, with or without `push_ack`: the window is 64 segments
    here, which the receiver reaches early (308.2 ms simulated, 348.2
    without `push_ack`). Since the TSO deferral (`tso_defer`, later on
    2026-12-07) the sender ends 301 kB with a burst of three as the kernel
    does, the last segment then the second of an ACK pair (307.4 ms with
    or without `push_ack`, the kernel 309.6): 302 kB ends on a lone
    segment again (308.2 ms simulated, 348.2 without `push_ack`)."""
    sc = two_nodes("10Mbps", "10ms", 302_000,
                   link={"error": {"kind": "pattern", "drop": [50], "direction": "forward", "packets": "data"}})
    sc["flow"][0].update(packet_size=1000, window=64)
    sc["flow"][0]["app"]["write"] = 302_000
    sim = tcplab.run(sc).flows["completion_s"][0]
    sc["tcp"] = {"push_ack": False}
    waits = tcplab.run(sc).flows["completion_s"][0]
    del sc["tcp"]
    assert waits > sim + 0.030, (sim, waits)

    def agrees(res):
        emu = kernel_time(res)
        assert res.columns("flows")["retransmits"][0] == 1
        assert emu == pytest.approx(sim, rel=0.05), (emu, sim)
        assert abs(emu - sim) < abs(emu - waits), (emu, sim, waits)

    emulate_in_real_time(sc, agrees)


def psh_and_ack_shares(packets: list, sender: str) -> tuple:
    """From one side's capture: the share of the sender's data segments
    that carry PSH, and the share of the receiver's advancing ACKs that
    acknowledge one segment (1000 bytes) rather than two or more."""
    data = [p for p in packets if p[1] == sender and p[4] > 0]
    first = data[0][5]
    pushed = sum(1 for p in data if p[6] & 0x08) / len(data)
    acked, single, advancing = 0, 0, 0
    for p in packets:
        if p[1] == sender or p[4] > 0 or not p[6] & 0x10:
            continue
        rel = (p[7] - first) % 2**32
        if rel > 10**9 or rel <= acked:
            continue
        advancing += 1
        single += rel - acked < 2000
        acked = rel
    return pushed, single / advancing


@needs_emulator
def test_gso_chunks_end_with_psh_as_the_kernels_do():
    """A NewReno bulk flow for 4 s through 10 Mbit/s, 10 ms each way and
    a DropTail queue of 20 packets (validation/kernel_series.py's case).
    Kernel 6.18 sends every GSO chunk of two or more segments with PSH on
    its last segment (in congestion avoidance most chunks are pairs: 44 %
    of the data segments carry PSH), and its receiver acknowledges a
    full-sized PSH segment at once, so 18 % of its advancing ACKs cover
    one segment. The linux profile marks its chunks the same way
    (`TsoState::push_end`): 43 % and 21 %; before, it sent no PSH on bulk
    data and 6 % of its ACKs covered one segment. docs/validation.md,
    "PSH at the end of each GSO chunk"."""
    sc = linux_flow({"kind": "bulk"}, 20, "4s", tcp={"syn": True}, pcap="a")
    sim = tcplab.run(sc)
    sim_push, sim_single = psh_and_ack_shares(read_pcap(sim.pcaps["node-a"]), "10.0.0.1")
    assert 0.35 < sim_push < 0.5 and 0.12 < sim_single < 0.26, (sim_push, sim_single)
    del sc["pcap"]

    def agrees(res):
        push, single = psh_and_ack_shares(read_pcap(res.pcaps["tun-a"]), A)
        assert abs(push - sim_push) < 0.05 and abs(single - sim_single) < 0.05, (push, single, sim_push, sim_single)

    emulate_in_real_time(sc, agrees, cc="reno")


@needs_emulator
def test_sack_compression_answers_out_of_order_data_as_the_kernel():
    """600 kB at 10 Mbit/s, 10 ms each way, through a DropTail queue of 10
    packets, SACK (validation/linux_kernel.py's `queue 10 SACK`): the slow
    start overflows the queue and about 30 segments arrive above the
    first hole. Kernel 6.18's receiver sends three ACKs at once for a
    cumulative ACK and then compresses (net.ipv4.tcp_comp_sack_*): one
    ACK about 1.1 ms after the first segment it holds back, so about
    every second out-of-order segment is answered (34 SACK ACKs against
    47 without compression in the first recovery). The linux profile does
    the same (`comp_sack_nr` 44); with `comp_sack_nr = 0` it answers
    each. docs/validation.md, "SACK compression"."""
    sc = linux_flow({"kind": "transfer", "bytes": 600_000, "write": 600_000}, 10, tcp={"syn": True}, pcap="b")
    res = tcplab.run(sc)
    sim = ooo_acked_share(read_pcap(res.pcaps["node-b"]), "10.0.0.1")
    sc["tcp"]["comp_sack_nr"] = 0
    res = tcplab.run(sc)
    each = ooo_acked_share(read_pcap(res.pcaps["node-b"]), "10.0.0.1")
    assert 0.4 < sim < 0.75 and each > 0.95, (sim, each)
    del sc["pcap"], sc["tcp"]["comp_sack_nr"]

    def agrees(res):
        kernel = ooo_acked_share(read_pcap(res.pcaps["tun-b"]), A)
        assert abs(kernel - sim) < 0.15 and each - kernel > 0.25, (kernel, sim, each)

    emulate_in_real_time(sc, agrees, cc="reno")


@needs_emulator
def test_a_long_rto_goes_on_the_kernels_timer_wheel():
    """20 kB at 10 Mbit/s, 50 ms each way, the last of its 20 segments
    lost, no SACK: only the RTO (SRTT + 200 ms, 75 jiffies at HZ 250)
    repairs it, and the kernel's timer wheel files a wait that long at the
    next multiple of 8 jiffies of its own counter, so runs differ by up to
    32 ms (docs/validation.md, "The kernel's timers": 665.7-694.9 ms in six
    real runs, 665.6-692.7 over 16 seeds simulated). Timers at the wait's
    end (`timer_wheel = false`) give 661.4 ms, below any kernel run."""
    sc = two_nodes("10Mbps", "50ms", 20_000,
                   link={"error": {"kind": "pattern", "drop": [20], "direction": "forward", "packets": "data"}})
    sc["flow"][0].update(packet_size=1000, window=1000)
    sc["flow"][0]["app"]["write"] = 20_000
    sc["tcp"] = {"sack": False}
    seeds = [tcplab.run({**sc, "sim": {**sc["sim"], "seed": k}}).flows["completion_s"][0] for k in range(1, 17)]
    assert 0.020 < max(seeds) - min(seeds) <= 0.033, seeds
    at_end = tcplab.run({**sc, "tcp": {"sack": False, "timer_wheel": False}}).flows["completion_s"][0]
    assert at_end < min(seeds)

    def agrees(res):
        f = res.columns("flows")
        assert (f["retransmits"][0], f["timeouts"][0]) == (1, 1)
        got = kernel_time(res)
        assert min(seeds) - 0.003 < got < max(seeds) + 0.006 and got > at_end + 0.003, (got, seeds, at_end)

    emulate_in_real_time(sc, agrees)


@needs_emulator
@pytest.mark.parametrize("drops,knob,rtx", [([19], "rack", 1), ([19, 20], "tlp", 2)])
def test_tail_losses_are_resent_by_rack_tlp_as_by_the_kernel(drops, knob, rtx):
    """20 kB at 10 Mbit/s, 10 ms each way, 1000-byte segments, the listed
    data segments (of 20) dropped; without the rule named the sender waits
    for its RTO (the simulated run with `knob = false` takes a timeout and
    150 ms more). docs/emulator.md, "RACK's timer".

    * 19: one SACKed segment behind the hole, too few for RFC 6675's
      IsLost() (three). RACK marks the hole lost min_rtt / 4 after that
      delivery, by its reordering timer: 79.8 ms simulated (78.7-81.9
      over 16 seeds' kernel clocks: the timer runs in 4 ms jiffies on the
      timer wheel, `timer_wheel`), 295.8 with `rack = false`; the kernel
      (net.ipv4.tcp_recovery = 1) 79.8-83.1 ms in six runs here.
    * 19 and 20, the last two: nothing comes back to report them. The
      tail-loss probe (net.ipv4.tcp_early_retrans = 3) resends the last
      segment 2 SRTT + 2 ms after the last ACK, and its SACK lets RACK
      mark the other: 144.7 ms simulated (141.5-145.1), 357.8 with `tlp =
      false`; the kernel 142.6-146.9 ms."""
    sc = two_nodes("10Mbps", "10ms", 20_000,
                   link={"error": {"kind": "pattern", "drop": drops, "direction": "forward", "packets": "data"}})
    sc["flow"][0].update(packet_size=1000, window=1000)
    sc["flow"][0]["app"]["write"] = 20_000
    sim = tcplab.run(sc).flows
    assert (sim["retransmits"][0], sim["timeouts"][0]) == (rtx, 0)
    sc["tcp"] = {knob: False}
    rto = tcplab.run(sc).flows
    assert rto["timeouts"][0] == 1 and rto["completion_s"][0] > sim["completion_s"][0] + 0.150
    del sc["tcp"]

    def agrees(res):
        f = res.columns("flows")
        assert (f["retransmits"][0], f["timeouts"][0]) == (rtx, 0)
        close(kernel_time(res), sim["completion_s"][0], abs=0.015)
        # The probes sent and the losses they repaired, the kernel's
        # TCPLossProbes and TCPLossProbeRecovery.
        counts = ["loss_probes", "loss_probe_recoveries", "undos"]
        assert [int(f[c][0]) for c in counts] == [int(sim[c][0]) for c in counts], (
            [f[c][0] for c in counts], [sim[c][0] for c in counts])

    emulate_in_real_time(sc, agrees)


@needs_emulator
def test_an_ecn_echo_brings_the_window_down_by_prr_as_the_kernels_cwr():
    """300 kB at 10 Mbit/s, 10 ms each way, ECN, the 50th and 150th data
    segments marked CE. Linux answers each echo with its CWR state: ssthresh
    at once, the window brought down by PRR over a round trip (one segment
    per two delivered) while it keeps sending; the linux profile does the
    same (340.1 ms simulated; the kernel 342.1-352.7 ms in four runs here,
    its flight from 57 segments down to 27 and later to 13, the profile's
    from 56 to 27 and 13). The immediate halving of `prr = false` stops
    sending for 30 ms after the first echo and ends at 329.2 ms, its window
    a segment or two larger after each cut (docs/emulator.md, "ECN marks").
    The kernel's runs spread by 10 ms here (its bursts, the relay's
    timing); a disturbance only adds time: up to three runs."""
    sc = two_nodes("10Mbps", "10ms", 300_000,
                   link={"error": {"kind": "pattern", "drop": [50, 150], "action": "mark", "direction": "forward",
                                   "packets": "data"}})
    sc["flow"][0].update(packet_size=1000, window=1000, ecn=True)
    sc["flow"][0]["app"]["write"] = 300_000
    cwr = tcplab.run(sc).flows
    assert cwr["ecn_reductions"][0] == 2
    sc["tcp"] = {"prr": False}
    halving = tcplab.run(sc).flows["completion_s"][0]
    del sc["tcp"]
    sim = cwr["completion_s"][0]
    assert sim > halving + 0.005, (sim, halving)

    def agrees(res):
        emu = kernel_time(res)
        assert emu == pytest.approx(sim, abs=0.005) and abs(emu - sim) < abs(emu - halving), (emu, sim, halving)

    emulate_in_real_time(sc, agrees)


@needs_emulator
@pytest.mark.parametrize("tcp", [{}, {"timestamps": False}, {"timestamps": False, "frto": False},
                                 {"sack": False, "dsack": False},
                                 {"sack": False, "dsack": False, "timestamps": False}],
                         ids=["eifel", "frto", "go-back", "eifel-no-sack", "frto-no-sack"])
def test_a_spurious_timeout_is_undone_as_by_the_kernel(tcp):
    """A delay step (test_undo.py's `delay_step`: from the 100th data
    segment on, every data segment is held 500 ms, so the RTO fires with
    about 108 segments in flight and none lost). With timestamps Linux's
    Eifel check finds the timeout spurious on the first ACK; without them
    F-RTO does, on the second (net.ipv4.tcp_frto = 2). Either way both
    stacks resend one segment: 1193.6 ms simulated with timestamps, the
    kernel 1193.8-1195.7; 1192.5 without, the kernel 1192.9-1193.2. With
    neither (tcp_frto = 0) both go back N over the flight: 1755.8 ms and
    109 retransmissions simulated, the kernel 1756.8-1757.1 ms and 110.
    Without SACK (Linux's Reno recovery) the same two undos: 1194.5 and
    1193.3 ms simulated, the kernel 1193.9-1194.2 (docs/emulator.md,
    "Spurious timeouts")."""
    from test_undo import delay_step
    sc = delay_step(tcp=dict(tcp))
    sim = tcplab.run(sc).flows
    rtx, timeouts = int(sim["retransmits"][0]), int(sim["timeouts"][0])
    assert timeouts == 1 and (rtx == 1 if tcp.get("frto", True) else rtx > 100), (rtx, timeouts)

    def agrees(res):
        f = res.columns("flows")
        assert abs(f["retransmits"][0] - rtx) <= 2 and f["timeouts"][0] == timeouts, (f["retransmits"][0], rtx)
        close(kernel_time(res), sim["completion_s"][0], abs=0.010)
        # The kernel's own counters (TCPSpuriousRTOs, the undo MIBs): without
        # SACK the Eifel undo leaves the Loss state closed and F-RTO's undo
        # follows on the next ACK, counted twice in both stacks.
        counts = ["spurious_rtos", "undos"]
        assert [int(f[c][0]) for c in counts] == [int(sim[c][0]) for c in counts], (
            [f[c][0] for c in counts], [sim[c][0] for c in counts])

    emulate_in_real_time(sc, agrees, attempts=5)


@needs_emulator
def test_frto_takes_a_real_loss_for_one_as_the_kernel():
    """An outage without SACK: everything sent in 0.3-0.4 s is lost (the
    error model's `windows`, 1 MB at 10 Mbit/s, 10 ms each way, a window
    of 20), so the RTO fires from the Open state with a whole window lost.
    F-RTO's new data then brings duplicate ACKs (RFC 5682 3a): both stacks
    resend the 20 segments with one timeout and undo nothing. (The kernel's
    completion spreads by about 45 ms between runs here, more than F-RTO's
    one round trip, so the times are not compared: docs/emulator.md.)"""
    link = {"between": ["a", "b"], "rate": "10Mbps", "delay": "10ms", "queue": {"kind": "unlimited"},
            "error": {"kind": "windows", "windows": [{"start": "0.3s", "end": "0.4s", "rate": 1.0}],
                      "direction": "forward"}}
    f = {"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000, "window": 20,
         "app": {"kind": "transfer", "bytes": 1_000_000, "write": 1_000_000},
         "tcp": {"sack": False, "dsack": False, "timestamps": False}}
    sc = {"sim": {"duration": "60s", "tcp_profile": "linux"}, "node": [{"name": "a"}, {"name": "b"}],
          "link": [link], "flow": [f]}
    counts = ["retransmits", "timeouts", "spurious_rtos", "undos"]
    sim = tcplab.run(sc).flows
    assert [int(sim[c][0]) for c in counts] == [20, 1, 0, 0], [sim[c][0] for c in counts]

    def agrees(res):
        real = res.columns("flows")
        assert [int(real[c][0]) for c in counts] == [20, 1, 0, 0], [real[c][0] for c in counts]

    emulate_in_real_time(sc, agrees)


@needs_emulator
@pytest.mark.parametrize("dsack", [True, False])
def test_dsacks_undo_a_spurious_fast_retransmission_as_the_kernels(dsack):
    """A reordered segment (test_undo.py's `reordered`: 2 MB at 10 Mbit/s,
    50 ms each way, the 100th data segment held 30 ms), no timestamps:
    RACK resends it, and only the receiver's D-SACK of the late original
    (net.ipv4.tcp_dsack) shows the resend needless. With D-SACK both stacks
    undo the recovery's halving: 2100.3 ms simulated, the kernel 2109.4 and
    2109.9; without it the halving stands: 3280.1 simulated, the kernel
    3316.5 and 3316.6 (docs/emulator.md, "Spurious timeouts")."""
    from test_undo import reordered
    sc = reordered({"timestamps": False, "dsack": dsack})
    flows = tcplab.run(sc).flows
    sim = flows["completion_s"][0]
    assert int(flows["undos"][0]) == int(dsack), flows["undos"][0]

    def agrees(res):
        f = res.columns("flows")
        assert (f["retransmits"][0], f["timeouts"][0]) == (1, 0)
        close(kernel_time(res), sim, rel=0.02)
        # One undo by D-SACK (the kernel's TCPDSACKUndo) or none.
        assert int(f["undos"][0]) == int(dsack), f["undos"][0]

    emulate_in_real_time(sc, agrees)


@needs_emulator
def test_recovery_without_sack_meets_the_kernels_receive_window():
    """300 kB at 10 Mbit/s, 10 ms each way, no SACK, data segments 50-53
    lost: the kernel's receiver holds its right edge still while the hole
    is open, and its sender stops at it halfway through the four round
    trips of the recovery. The linux profile's receiver (Linux's window,
    `receive_window = "linux"`) takes 344.1 ms; the kernel 345.1 and
    345.2 here; a fixed window 292.4 (docs/validation.md, "Linux's
    receive window")."""
    sc = two_nodes("10Mbps", "10ms", 300_000,
                   link={"error": {"kind": "pattern", "drop": [50, 51, 52, 53], "direction": "forward",
                                   "packets": "data"}})
    sc["flow"][0].update(packet_size=1000, window=1000)
    sc["flow"][0]["app"]["write"] = 300_000
    sc["tcp"] = {"sack": False}
    sim = tcplab.run(sc).flows
    sc["tcp"]["receive_window"] = "fixed"
    fixed = tcplab.run(sc).flows["completion_s"][0]
    sc["tcp"] = {"sack": False}
    assert (sim["retransmits"][0], sim["timeouts"][0]) == (4, 0)
    assert sim["completion_s"][0] > fixed + 0.040, (sim["completion_s"][0], fixed)

    def agrees(res):
        f = res.columns("flows")
        assert (f["retransmits"][0], f["timeouts"][0]) == (4, 0)
        close(kernel_time(res), sim["completion_s"][0], abs=0.010)

    emulate_in_real_time(sc, agrees)


@needs_emulator
def test_sack_recovery_from_congestion_is_the_kernels_prr():
    """600 kB at 10 Mbit/s, 10 ms each way, a DropTail queue of 20
    packets, SACK: the slow start overflows the queue and the recovery's
    window decides the time. The linux profile with PRR (`prr`, Linux's
    tcp_cwnd_reduction()) takes 552.1 ms (551.0 before the receiver's SACK
    compression, 2026-12-07), with RFC 6675's cwnd = ssthresh
    558.1 (554.2 before it, 555.9 until the GSO chunks' PSH and
    tcp_grow_skb(); docs/validation.md, "SACK compression"; the kernel's
    undisturbed runs with 36 retransmissions then 551.9, 553.0, 553.2).
    The kernel's runs
    with the simulated overflow (36 retransmissions, within two) spread
    over 551.1-555.9 ms on a quiet host (2026-12-07: 551.4, 551.7, 551.1,
    555.9, 552.7, 553.6; mean 552.7), their bursts and the relay's timing
    deciding which packets find the queue full; about half the runs lose
    45-49 segments instead. One run cannot tell PRR from RFC 6675 here (a
    fresh-clone CI run failed on a quiet 554.3 ms, nearer RFC 6675's), so
    the test takes the mean of up to five undisturbed runs with the
    simulated overflow (at most ten runs; fewer than three skips) and asks
    it within 4 ms of the profile's: the mean's spread is about 0.8 ms.
    That holds the profile's recovery to the kernel's; which of the two
    rules the kernel runs is shown where they part more, by the ECN test
    and docs/emulator.md's congestion rows. Until 2026-12-07 this was the
    10-packet queue (kernel 585.6-586.5, PRR 586.3, RFC 6675 600.3); with
    Linux's receive window there the profile takes 582.9 and RFC 6675
    588.8, and the kernel's runs (584.3, 585.5) fall between the two."""
    sc = two_nodes("10Mbps", "10ms", 600_000, link={"queue": {"kind": "droptail", "limit": 20}})
    sc["flow"][0].update(packet_size=1000, window=1000)
    sc["flow"][0]["app"]["write"] = 600_000
    sim = tcplab.run(sc).flows
    prr, sim_rtx = sim["completion_s"][0], sim["retransmits"][0]
    sc["tcp"] = {"prr": False}
    rfc6675 = tcplab.run(sc).flows["completion_s"][0]
    assert rfc6675 > prr, (prr, rfc6675)
    del sc["tcp"]
    same, others = [], []
    for _ in range(10):
        res = emulate(sc, capture=False)
        f = res.columns("flows")
        t, rtx = kernel_time(res), f["retransmits"][0]
        if res.warnings or abs(rtx - sim_rtx) > 2 or f["timeouts"][0] > 0:
            others.append((round(t * 1e3, 1), rtx, disturbance(res)))
        else:
            same.append(t)
        if len(same) == 5:
            break
    if len(same) < 3:
        pytest.skip(f"{len(same)} undisturbed runs with the simulated overflow in ten; the others: {others}")
    close(float(np.mean(same)), prr, abs=0.004)


def test_the_kernel_comparison_script_runs_simulated_only_and_rejects_bad_flags():
    """validation/linux_kernel.py, the command behind docs/validation.md's
    "The linux profile against the Linux kernel": its simulated columns
    need no root; a bad flag is one line and status 2."""
    script = ROOT / "validation" / "linux_kernel.py"
    r = subprocess.run([sys.executable, str(script), "--simulated-only", "--cases", "losses"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stdout.splitlines() if x.startswith("drops")]
    assert len(lines) == 8 and all("linux profile" in x and "prr = false" in x for x in lines), r.stdout
    r = subprocess.run([sys.executable, str(script), "--cases", "nope"], capture_output=True, text=True)
    assert r.returncode == 2 and "--cases" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_the_series_comparison_compares_the_same_instants_and_rejects_bad_flags():
    """validation/kernel_series.py (docs/validation.md, "Instant by
    instant"): its comparison takes the instants both series have, counts
    equal windows and congestion states (the kernel's disorder as open),
    and the pacing rates where both have one; a bad case is one line and status 2."""
    sys.path.insert(0, str(ROOT / "validation"))
    from kernel_series import compare

    sim = pd.DataFrame({"time_s": [0.0, 0.01, 0.02, 0.03], "cwnd_bytes": [10_000, 12_000, 14_000, 16_000],
                        "srtt_s": [0.02] * 4, "ca_state": ["open", "open", "recovery", "open"],
                        "pacing_rate_bps": [None, 8e6, 9e6, 10e6]})
    real = pd.DataFrame({"time_s": [0.01, 0.02, 0.03], "cwnd_bytes": [12_000, 13_000, 16_000],
                         "srtt_s": [0.03] * 3, "ca_state": ["disorder", "recovery", "loss"],
                         "pacing_rate_bps": [6e6, None, 7e6]})
    c = compare(sim, real)
    assert c["instants"] == 3 and c["equal_cwnd"] == pytest.approx(2 / 3)
    assert c["cwnd_diff"] == pytest.approx(1 / 3) and c["same_state"] == pytest.approx(2 / 3)
    assert (c["srtt_s"], c["srtt_k"]) == (pytest.approx(20.0), pytest.approx(30.0))
    # Pacing rates over the instants both have one: 0.01 and 0.03 s.
    assert (c["pacing_s"], c["pacing_k"]) == (pytest.approx(9.0), pytest.approx(6.5))
    script = ROOT / "validation" / "kernel_series.py"
    r = subprocess.run([sys.executable, str(script), "--cases", "vegas"], capture_output=True, text=True)
    assert r.returncode == 2 and "--cases" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@needs_emulator
def test_the_series_comparison_runs_against_the_kernel():
    """One short case of validation/kernel_series.py end to end."""
    script = ROOT / "validation" / "kernel_series.py"
    r = subprocess.run([sys.executable, str(script), "--cases", "cubic", "--duration", "2s"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("cubic: simulated ") and "instants: cwnd" in r.stdout, r.stdout
    assert re.search(r"pacing \d+\.\d\d / \d+\.\d\d Mbit/s", r.stdout), r.stdout


def test_the_kernels_tcp_through_codel():
    """The real stack's bulk flow through tcplab's CoDel (the link model
    the simulator runs): CoDel drops as packets leave and keeps the
    standing queue near its 5 ms target where drop-tail would fill 1000
    packets; every packet is still accounted for."""
    sc = {"sim": {"duration": "6s", "tcp_profile": "linux"},
          "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "5Mbps", "delay": "20ms",
                    "queue": {"kind": "codel", "limit": 1000}}],
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000,
                    "app": {"kind": "bulk"}}]}
    res = emulate(sc, capture=False)
    ln, s = res.links, res.summary
    fwd = ln[ln.direction == "forward"].iloc[0]
    assert fwd.drops_codel > 0 and fwd.drops_overflow == 0, fwd
    # Time-average queueing delay (1040-byte packets at 5 Mbit/s).
    assert fwd.mean_queue * 1040 * 8 / 5e6 < 0.03, fwd.mean_queue
    assert fwd.utilization > 0.7, fwd.utilization
    dropped = int(sum(ln[c].sum() for c in ("drops_overflow", "drops_red", "drops_soft", "drops_codel", "drops_corruption")))
    assert s["packets_created"] == s["packets_delivered"] + dropped + s["packets_in_flight"]


@needs_emulator
def test_bbr_beside_the_kernels_bbr():
    """The simulator's BBR (tcp_bbr.c, tcp_rate.c, the kernel's internal
    pacing) against the machine's own bbr module on the same path
    (validation/linux_kernel.py's `bbr` cases; docs/validation.md, "BBR
    against the kernel's"): 1 MB through an unlimited queue and 3 MB
    through 20 packets, where STARTUP overflows the queue: completion within
    0.5 %, retransmissions within 5 %. A loaded machine only adds time to
    the kernel's run (CI, 2026-12-06, with two builds beside it: 2.662 s
    against 2.647 simulated; 2026-12-07, 1 MB in 0.957-0.967 s in three
    runs against 0.952): up to five runs, the first within the tolerances
    decides."""
    sys.path.insert(0, str(ROOT / "validation"))
    from linux_kernel import bbr_case

    for size, limit in [(1_000_000, None), (3_000_000, 20)]:
        sc = bbr_case(size, limit)
        r = tcplab.run(sc, trace=True)
        sim, tr = r.flows, r.trace
        # Both less the handshake (the simulated scenario has one too).
        sim_t = sim.completion_s[0] - tr[(tr.kind == "send") & (tr.len > 0)].time_s.min()
        assert sim.timeouts[0] == 0

        def agrees(res):
            f = res.columns("flows")
            rtx = int(f["retransmits"][0])
            close(kernel_time(res), sim_t, rel=0.005)
            assert abs(int(sim.retransmits[0]) - rtx) <= max(2, 0.05 * rtx), (rtx, int(sim.retransmits[0]))
            assert f["timeouts"][0] == 0

        emulate_in_real_time(sc, agrees, attempts=5, capture=False)
