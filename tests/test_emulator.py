"""The real-time emulator (crates/tcplab-emu, docs/emulator.md): the kernel's
TCP through tcplab's link models. Tests that run the emulator need root and
/dev/net/tun and skip with the reason otherwise; sizes are chosen so the
whole file takes about a minute of real time (a 9600 bit/s link carries one
256-byte segment per 253 ms)."""
from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tcplab
from tcplab import ScenarioError
from tcplab.emulate import EmulatorUnavailable, check, emulate, unavailable_reason
from tcplab.studies import gsmlink

ROOT = Path(__file__).resolve().parent.parent
needs_emulator = pytest.mark.skipif(unavailable_reason() is not None,
                                    reason=f"emulator unavailable: {unavailable_reason()}")
A, B = "10.77.0.1", "10.77.0.2"


def read_pcap(data: bytes) -> list:
    """(time s, src, dst, ip length, tcp payload, seq) of every IPv4/TCP packet."""
    magic = struct.unpack("<I", data[:4])[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    off, out = 24, []
    while off + 16 <= len(data):
        s, frac, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        off += 16
        p = data[off:off + incl]
        off += incl
        ihl = (p[0] & 15) * 4
        total = struct.unpack(">H", p[2:4])[0]
        tcp = p[ihl:]
        payload = total - ihl - (tcp[12] >> 4) * 4
        out.append((s + frac * scale, ".".join(map(str, p[12:16])), ".".join(map(str, p[16:20])), total, payload,
                    struct.unpack(">I", tcp[4:8])[0]))
    return out


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
def test_a_stopped_bulk_flow_counts_only_what_it_sent_by_its_stop():
    """Found by a fresh user's review: a 3 s bulk flow on a 2 Mbit/s link
    reported 4 Mbit/s, the socket buffer it had written (and the kernel
    sent after the stop) divided by 3 s."""
    sc = two_nodes("2Mbps", "50ms", 1, link={"queue": {"kind": "droptail", "limit": 100}})
    sc["sim"]["duration"] = "5s"
    sc["flow"][0]["app"] = {"kind": "bulk", "start": "0s", "stop": "2s"}
    res = emulate(sc)
    f = res.flows.iloc[0]
    # Every packet the relay took in was released, dropped or held at the
    # end (the summary said 0 delivered, 0 in flight until 2026-11-30).
    s, ln = res.summary, res.links
    dropped = int(sum(ln[c].sum() for c in ("drops_overflow", "drops_red", "drops_soft", "drops_corruption")))
    assert s["packets_delivered"] == ln.packets_delivered.sum() > 0
    assert s["packets_created"] == s["packets_delivered"] + dropped + s["packets_in_flight"]
    # What was on the wire at the stop: at most the 2 s at the line rate
    # plus the 100-packet queue and the 100 ms round trip's window.
    assert f.bytes_acked <= f.bytes_delivered <= 2e6 / 8 * 2 + 100 * 1500 + 2e6 / 8 * 0.1, f.to_dict()
    assert f.goodput_bps < 1.6 * 2e6, f.to_dict()


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


def emulate_in_real_time(sc, attempts: int = 2):
    """`emulate(sc)`, run again (once, by default) when the emulator reports
    that the machine fell behind real time: on a shared machine another
    job can hold the CPU for a few ms and make one packet late. That says
    nothing about the emulator, and a late run's timing is not the one to
    test, so the result returned is the first on time (or the last, whose
    warning the caller's assertion then shows). Any other warning counts
    at once."""
    for _ in range(attempts):
        res = emulate(sc)
        if not any("fell behind real time" in w for w in res.warnings):
            break
    return res


@needs_emulator
def test_line_rate_of_ppp_framed_segments():
    """Error-free 9600 bit/s link, unlimited buffer, MSS 256, PPP: once the
    window keeps the link busy, segments arrive at the line rate of
    9600/8 x 256/(256 + 40 + 8) = 1010.5 B/s; over a whole transfer the
    rate is lower by the start-up (the study's 100 KB gives about 1002)."""
    sc = gsmlink.scenario("baseline", "unlimited", 0.0, baseline="modern")
    sc.data["flow"][0]["app"]["bytes"] = 40 * 256
    sc.data["flow"][0]["first_bytes"] = 5 * 256
    res = emulate_in_real_time(sc)
    assert not res.warnings, res.warnings
    got = read_pcap(res.pcaps["tun-mobile"])
    data = [p for p in got if p[4] > 0]
    assert len(data) == 40 and all(p[3] == 296 for p in data)
    steady = data[8:]  # past slow start the downlink queue never empties
    rate = sum(p[4] for p in steady[1:]) / (steady[-1][0] - steady[0][0])
    assert rate == pytest.approx(gsmlink.line_rate(256), rel=0.01)
    f = res.columns("flows")
    assert f["bytes_delivered"][0] == 40 * 256 and f["retransmits"][0] == 0
    assert f["completion_s"][0] > 0 and f["first_bytes_s"][0] < f["completion_s"][0]
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
    # (CI, other jobs) it can be a few ms late; the kernel's minimum RTT
    # above is the accuracy check.
    assert fl["connect_s"] == pytest.approx(expect, abs=10e-3)
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


@needs_emulator
def test_lateness_over_the_threshold_is_reported(tmp_path):
    """Real-time slack: with a late threshold of 1 us, which no loop that
    sleeps until a packet is due meets for every packet, the run says it
    fell behind: a warning line of `tcplab emulate`, the count in its
    summary line and in emulation.json; the API's EmuResult.warnings."""
    import json
    import re

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
    warned = [ln for ln in r.stderr.splitlines() if ln.startswith("tcplab: warning: ")]
    assert len(warned) == 1, r.stderr
    assert re.search(rf"\b{late} of {n} packets were released more than 1 us late .*fell behind real time", warned[0])
    assert f"({late} of {n} packets later than 1 us)" in r.stdout, r.stdout
    assert m["warnings"] == [warned[0].removeprefix("tcplab: warning: ")]
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
    import pandas as pd

    thr = pd.read_csv(tmp_path / "throughput.csv")
    assert set(thr["stack"]) == {"real", "simulated"}
    runs = pd.read_csv(tmp_path / "runs.csv")
    real = runs[runs["stack"] == "real"]
    assert real["completed"].all()
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
    # transfer takes the simulated time, 102.06 s, within 0.5 % (measured:
    # 0.04 %; a machine that falls behind by a few ms changes it by < 0.1 %).
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
