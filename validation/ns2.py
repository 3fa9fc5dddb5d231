"""Translate a wired tcplab scenario into an ns-2 Tcl script, run ns-2 on it
and read back per-flow throughputs, for cross-checks and speed comparisons.

Covered: nodes, duplex links (rate, delay, DropTail limit in packets; RED in
packet mode, with or without ECN marking),
uniform packet loss per direction (ErrorModel inserted with
`link-lossmodel`, i.e. after the propagation delay, as tcplab decides loss at
the far end), Tahoe/Reno/NewReno/SACK/Vegas flows (Agent/TCP, /Reno, /Newreno, /Sack1,
/Vegas with TCPSink, TCPSink/Sack1 or their DelAck forms), bulk FTP with start/stop. Anything else raises
NotImplementedError so a comparison never silently runs another scenario.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

AGENTS = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno",
          "sack": "Agent/TCP/Sack1", "vegas": "Agent/TCP/Vegas"}


def available() -> bool:
    return shutil.which("ns") is not None


def default_draws(n: int) -> list[float]:
    """The first `n` numbers of ns-2.35's default generator (MRG32k3a, its
    six components started at 1: `$defaultRNG seed 1`, sim.seed 0 here), as
    crates/tcplab-core's engine::ns2_rng draws them."""
    m1, m2 = 4294967087, 4294944443
    s, out = [1] * 6, []
    for _ in range(n):
        p1 = (1403580 * s[1] - 810728 * s[0]) % m1
        s[0], s[1], s[2] = s[1], s[2], p1
        p2 = (527612 * s[5] - 1370589 * s[3]) % m2
        s[3], s[4], s[5] = s[4], s[5], p2
        out.append((p1 - p2 if p1 > p2 else p1 - p2 + m1) * 2.328306549295728e-10)
    return out


ROOT = Path(__file__).resolve().parent.parent
STATIC_ROUTE_BUILD = ROOT / "benchmarks" / "ns2" / "build_static_route.sh"


def static_route_module(build: bool = True) -> Path | None:
    """The module that gives the packaged ns-2.35 static routing for
    wireless nodes (benchmarks/ns2/static_route.cc, loaded with Tcl's
    `load`): $TCPLAB_NS2_STATIC_ROUTE, or build/ns2/libstaticroute.so,
    built on first use when `build` (benchmarks/ns2/build_static_route.sh:
    ns-2.35's source headers from $NS2_SRC or Debian's source package).
    None when it is not there and cannot be built."""
    env = os.environ.get("TCPLAB_NS2_STATIC_ROUTE")
    path = Path(env) if env else ROOT / "build" / "ns2" / "libstaticroute.so"
    stale = not path.exists() or (not env and path.stat().st_mtime < (ROOT / "benchmarks" / "ns2" /
                                                                    "static_route.cc").stat().st_mtime)
    if stale and build and not env and available():
        subprocess.run(["bash", str(STATIC_ROUTE_BUILD), str(path)], check=False)
    return path if path.exists() else None


def _secs(v) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(ns|us|ms|s)?\s*", v)
    if not m:
        raise ValueError(f"duration {v!r}")
    return float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, None: 1.0}[m.group(2)]


def _bps(v) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([kKMG]?)(bps|b|bit/s)?\s*", v)
    if not m:
        raise ValueError(f"rate {v!r}")
    return float(m.group(1)) * {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def to_tcl(sc: dict) -> str:
    sim = sc["sim"]
    if sim.get("tcp_profile", "ns2") != "ns2":
        raise NotImplementedError("only the ns2 TCP profile has an ns-2 equivalent")
    if sc.get("tcp"):
        raise NotImplementedError("global [tcp] options")
    dur = _secs(sim["duration"])
    out = [
        "set ns [new Simulator]",
        f"ns-random 0",
        # ns-2's default RNG seed is fixed; vary it with the run seed.
        f"$defaultRNG seed {int(sim.get('seed', 1)) + 1}",
    ]
    if any(f.get("ecn") for f in sc["flow"]):
        # ns-2's nrexmit_ leaves out the timeouts in the window of an ECN
        # cut (TcpAgent::timeout(): "in recovery from a recent ECN"); its
        # event trace has every one (TIMEOUT lines, counted by `run`).
        out.append("$ns eventtrace-all stdout")
    for n in sc["node"]:
        if n.get("snoop"):
            raise NotImplementedError(f"node {n['name']}: Snoop (see validation/basestation_ns2.py)")
        out.append(f"set n({n['name']}) [$ns node]")
    for i, l in enumerate(sc["link"]):
        a, b = l["between"]
        if l.get("framing", "none") != "none" or l.get("forward") or l.get("reverse"):
            raise NotImplementedError(f"link[{i}]: framing or per-direction overrides")
        q = l.get("queue", {"kind": "droptail", "limit": 50})
        if q["kind"] not in ("droptail", "unlimited", "red", "drr"):
            raise NotImplementedError(f"link[{i}].queue.kind = {q['kind']}")
        if q["kind"] == "drr" and q.get("classify", "source") != "source":
            raise NotImplementedError(f"link[{i}].queue.classify: ns-2's DRR hashes the source only")
        if q.get("limit_bytes") or q.get("byte_mode"):
            raise NotImplementedError(f"link[{i}]: byte limits")
        if q["kind"] == "red":
            out += red_queue(q)
        if q["kind"] == "drr":
            out += drr_queue(q)
        kind = {"red": "RED", "drr": "DRR"}.get(q["kind"], "DropTail")
        out.append(f"$ns duplex-link $n({a}) $n({b}) {_bps(l['rate'])} {_secs(l['delay'])} {kind}")
        if q["kind"] != "drr":  # DRR has its byte limit only (blimit_)
            out.append(f"$ns queue-limit $n({a}) $n({b}) {queue_limit(q)}")
            out.append(f"$ns queue-limit $n({b}) $n({a}) {queue_limit(q)}")
        e = l.get("error")
        if e:
            dirs = {"forward": [(a, b)], "reverse": [(b, a)], "both": [(a, b), (b, a)]}[e.get("direction", "forward")]
            for k, (x, y) in enumerate(dirs):
                out += error_model(f"em{i}_{k}", e, i) + [f"$ns link-lossmodel $em{i}_{k} $n({x}) $n({y})"]
    names = []
    for i, f in enumerate(sc["flow"]):
        if f["transport"] not in AGENTS:
            raise NotImplementedError(f"flow[{i}].transport = {f['transport']}")
        app = f["app"]
        if app["kind"] != "bulk":
            raise NotImplementedError(f"flow[{i}].app: only bulk")
        tcp = f.get("tcp") or {}
        known = {"delayed_ack", "initial_window", "limited_transmit", "newreno_timer", "syn", "granularity"}
        # tcplab rules that copy what ns-2.35 always does: nothing to set there.
        ns2_always = {"vegas_zero_window"}
        if set(tcp) - known - ns2_always:
            raise NotImplementedError(f"flow[{i}].tcp: {sorted(set(tcp) - known)}")
        if f.get("eln"):
            raise NotImplementedError(f"flow[{i}]: ELN")
        base = "Agent/TCPSink/Sack1" if f["transport"] == "sack" else "Agent/TCPSink"
        sink = base + "/DelAck" if tcp.get("delayed_ack") else base
        name = f.get("name", f"flow{i}")
        names.append((name, _secs(app.get("start", 0)), _secs(app["stop"]) if app.get("stop") else dur))
        out += [
            f"set tcp({i}) [new {AGENTS[f['transport']]}]",
            # ns-2's Vegas agent puts packetSize_ on the wire without adding
            # the 40-byte TCP/IP header the other agents add: give it the
            # same wire size (payload + 40) and count the payload below.
            f"$tcp({i}) set packetSize_ {f.get('packet_size', 1000) + (40 if f['transport'] == 'vegas' else 0)}",
            f"$tcp({i}) set window_ {f.get('window', 20)}",
            f"$tcp({i}) set fid_ {i}",
            *([f"$tcp({i}) set ecn_ 1"] if f.get("ecn") else []),
            *([f"$tcp({i}) set windowInit_ {tcp['initial_window']}"] if "initial_window" in tcp else []),
            # tcplab's granularity is ns-2's tcpTick_ (a fine tick takes the
            # random phase of the RTO clock, boot_time_, out of comparisons;
            # keep it at 10 us or more: ns-2 keeps RTT deltas in a short).
            *([f"$tcp({i}) set tcpTick_ {_secs(tcp['granularity'])}"] if "granularity" in tcp else []),
            *([f"$tcp({i}) set singledup_ {int(bool(tcp['limited_transmit']))}"] if "limited_transmit" in tcp else []),
            *([f"$tcp({i}) set newreno_changes1_ {int(tcp['newreno_timer'] == 'impatient')}"]
              if "newreno_timer" in tcp else []),
            # tcplab's `syn` is ns-2's syn_ with delay_growth_ (both on by
            # default in ns-2 and in the ns2 profile); without it both start
            # established.
            *([f"$tcp({i}) set syn_ false", f"$tcp({i}) set delay_growth_ false"] if not _syn(sc, f) else []),
            *([f"$tcp({i}) set v_alpha_ {f['vegas'].get('alpha', 1)}",
               f"$tcp({i}) set v_beta_ {f['vegas'].get('beta', 3)}",
               f"$tcp({i}) set v_gamma_ {f['vegas'].get('gamma', 1)}"] if f.get("vegas") else []),
            f"$ns attach-agent $n({f['from']}) $tcp({i})",
            f"set sink({i}) [new {sink}]",
            f"$ns attach-agent $n({f['to']}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [new Application/FTP]",
            f"$ftp({i}) attach-agent $tcp({i})",
            f"$ns at {_secs(app.get('start', 0))} \"$ftp({i}) start\"",
        ]
        if app.get("stop"):
            out.append(f"$ns at {_secs(app['stop'])} \"$ftp({i}) stop\"")
    out.append("proc finish {} {")
    out.append("  global tcp")
    for i, _ in enumerate(sc["flow"]):
        out.append(f"  puts \"flow {i} [$tcp({i}) set ack_] [$tcp({i}) set nrexmitpack_] [$tcp({i}) set packetSize_] [$tcp({i}) set nrexmit_]\"")
    out.append("  exit 0")
    out.append("}")
    out.append(f"$ns at {dur} \"finish\"")
    out.append("$ns run")
    return "\n".join(out) + "\n"


def queue_limit(q: dict) -> int:
    """ns-2's queue-limit for a tcplab queue. tcplab's `limit` counts the
    packets waiting, not the one on the wire. ns-2's DropTail drops an arrival
    when length + 1 >= limit_, so it holds limit_ - 1 waiting packets: tcplab
    L is ns-2 L + 1. ns-2's RED drops when length >= limit_ (waiting
    packets, as tcplab)."""
    if q["kind"] == "unlimited":
        return 1_000_000
    if q["kind"] == "red":
        return q.get("limit", 50)
    return q.get("limit", 50) + 1


#: tcplab's RED defaults (crates/tcplab-core/src/scenario/config.rs) where
#: the translator must state them: mean_pktsize as ns-2.35's Queue/RED
#: default (500 bytes), wait as ns-2's wait_ (on).
RED_MEAN_PKTSIZE = 500
RED_WAIT = True


def red_queue(q: dict) -> list:
    """Queue/RED defaults for a tcplab RED queue in packet mode. Every key
    tcplab's RED reads is stated, with tcplab's default where the scenario
    leaves it out, so ns-2's own defaults never stand in for tcplab's."""
    return [
        "Queue/RED set bytes_ false",
        "Queue/RED set queue_in_bytes_ false",
        f"Queue/RED set thresh_ {q['min_th']}",
        f"Queue/RED set maxthresh_ {q['max_th']}",
        f"Queue/RED set linterm_ {1.0 / q.get('max_p', 0.1)}",
        f"Queue/RED set q_weight_ {q.get('weight', 0.002)}",
        f"Queue/RED set gentle_ {'true' if q.get('gentle', True) else 'false'}",
        f"Queue/RED set setbit_ {'true' if q.get('ecn') else 'false'}",
        f"Queue/RED set mean_pktsize_ {q.get('mean_pktsize', RED_MEAN_PKTSIZE)}",
        f"Queue/RED set wait_ {'true' if q.get('wait', RED_WAIT) else 'false'}",
        # tcplab's mark_p (ns2 profile default 0.1, ns-2.35's own).
        "Queue/RED set use_mark_p_ true",
        f"Queue/RED set mark_p_ {q.get('mark_p', 0.1)}",
    ]


#: tcplab's DRR defaults, ns-2.35's (crates/tcplab-core/src/scenario/config.rs).
DRR_DEFAULTS = {"buckets": 10, "quantum": 250, "blimit": 25000, "mask": False}


def drr_queue(q: dict) -> list:
    """Queue/DRR class defaults for the links created next (ns-2's DRR
    hashes the source address into buckets_, serves quantum_ bytes a round
    and holds blimit_ bytes in all)."""
    p = {k: q.get(k, v) for k, v in DRR_DEFAULTS.items()}
    return [f"Queue/DRR set buckets_ {p['buckets']}", f"Queue/DRR set quantum_ {p['quantum']}",
            f"Queue/DRR set blimit_ {p['blimit']}", f"Queue/DRR set mask_ {int(bool(p['mask']))}"]


def _syn(sc: dict, f: dict) -> bool:
    """Whether flow `f` opens with a SYN (tcplab's tcp.syn, default on in
    the ns2 profile)."""
    for table in ((f.get("tcp") or {}), (sc.get("tcp") or {})):
        if "syn" in table:
            return bool(table["syn"])
    return True


def syn_packet(sc: dict, f: dict) -> bool:
    """Whether ns-2's packet 0 of flow `f` is a data-less SYN: with syn_,
    except for the Vegas agent, whose output() has no SYN (its packet 0 is
    data and only the window waits, as tcplab's `syn` does for Vegas)."""
    return _syn(sc, f) and f["transport"] != "vegas"


def error_model(name: str, e: dict, i: int) -> list:
    """An ns-2 error model for a tcplab `error` table (uniform or pattern).
    ns-2's models see only the packets of their link direction, data and
    ACKs alike, so `packets` must be "all", or "data" on a direction that
    carries no ACKs (the caller's scenario must ensure that)."""
    if e["kind"] == "uniform" and e.get("packets", "all") == "all":
        return [
            f"set {name} [new ErrorModel]",
            f"${name} unit pkt",
            f"${name} set rate_ {e['rate']}",
            f"${name} ranvar [new RandomVariable/Uniform]",
            f"${name} drop-target [new Agent/Null]",
        ]
    if e["kind"] == "pattern":
        # tcplab counts from 1, ErrorModel/List from 0.
        drops = " ".join(str(k - 1) for k in e["drop"])
        return [f"set {name} [new ErrorModel/List]", f"${name} droplist {{{drops}}}"]
    raise NotImplementedError(f"link[{i}].error: kind {e['kind']!r} with packets {e.get('packets', 'all')!r}")


def run_tcl(tcl: str) -> dict:
    """Run an ns-2 script from a temporary directory: `measure`'s result;
    RuntimeError with the end of ns's error output if it fails."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "scenario.tcl"
        path.write_text(tcl)
        m = measure(["ns", str(path)], cwd=d)
    if m["returncode"] != 0:
        raise RuntimeError(f"ns failed: {m['stderr'].strip()[-500:]}")
    return m


def run(sc: dict) -> dict:
    """Run the scenario in ns-2: {'wall_s', 'cpu_s', 'maxrss_kb', 'flows': {name: {...}}}."""
    dur = _secs(sc["sim"]["duration"])
    m = run_tcl(to_tcl(sc))
    flows = {}
    # Timeouts by flow from the event trace ("E time src dst TCP TIMEOUT fid
    # seqno cwnd"), when the script asked for it (ECN flows).
    traced = any(f.get("ecn") for f in sc["flow"])
    timeouts: dict[int, int] = {}
    for line in m["stdout"].splitlines():
        parts = line.split()
        if parts[:1] == ["E"] and parts[4:6] == ["TCP", "TIMEOUT"]:
            timeouts[int(parts[6])] = timeouts.get(int(parts[6]), 0) + 1
    for line in m["stdout"].splitlines():
        parts = line.split()
        if parts[:1] == ["flow"]:
            i, ack, rtx, size = int(parts[1]), int(parts[2]), int(parts[3]), int(parts[4])
            f = sc["flow"][i]
            size = f.get("packet_size", 1000)
            start = _secs(f["app"].get("start", 0))
            stop = _secs(f["app"]["stop"]) if f["app"].get("stop") else dur
            # ns-2's ack_ is the last packet acknowledged; with syn_ packet 0
            # is the SYN, which carries no data.
            acked = (ack if syn_packet(sc, f) else ack + 1) * size
            flows[f.get("name", f"flow{i}")] = {
                "throughput_bps": acked * 8 / (min(stop, dur) - start),
                "bytes_acked": acked,
                "retransmits": rtx,
                "timeouts": timeouts.get(i, 0) if traced else int(parts[5]),
            }
    return {"wall_s": m["wall_s"], "cpu_s": m["cpu_s"], "maxrss_kb": m["maxrss_kb"], "flows": flows}


GNU_TIME = shutil.which("time") and Path(shutil.which("time")).resolve()


def measure(cmd: list, cwd=None) -> dict:
    """Run one child; wall and CPU time of that child alone (os.wait4) and its
    peak RSS. Linux carries a process's peak RSS across exec, so a child forked
    from this Python would report Python's size: the peak is read through GNU
    time (a small process) when it is installed, else left as None."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as rss:
        argv = [str(c) for c in cmd]
        if GNU_TIME:
            argv = [str(GNU_TIME), "-q", "-f", "%M", "-o", rss.name] + argv
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, cwd=cwd, text=True)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = rss.read().strip().splitlines()
        return {
            "wall_s": wall,
            "cpu_s": ru.ru_utime + ru.ru_stime,
            "maxrss_kb": int(text[-1]) if GNU_TIME and text and text[-1].isdigit() else None,
            "returncode": p.returncode,
            "stdout": out.read(),
            "stderr": err.read(),
        }
