"""Moving stations in tcplab and in ns-2.35, side by side (node mobility:
`[[node]] waypoints`, `[wireless] setdest`; docs/models.md, "Mobility").

    python validation/mobility_ns2.py                       # every case, default seeds
    python validation/mobility_ns2.py --cases leave,edge --seeds 20
    python validation/mobility_ns2.py --cases field --field-seeds 10
    python validation/mobility_ns2.py --cases edge --edge-offsets 3,3.5,3.8,3.9

Every case runs AODV over ns-2.35's WaveLAN radio, set up as
validation/wifi_chain_ns2.py sets up its chains: two-ray ground (receive
range 250.01 m for RXThresh_ 3.652e-10 W, carrier sense 550 m), 2 Mbit/s
data and 1 Mbit/s basic rate, RTS/CTS before every unicast data frame
(RTSThreshold_ 0), PriQueue interface queue of 50. tcplab runs twice: as it
is (`default`: the standard wireless profile) and with `[wireless] profile =
"ns2"` (`ns2`: ns-2.35's MAC, ARP, queue and AODV rules). The traffic is UDP
CBR: tcplab's payload is 8 bytes smaller than ns-2's CBR packetSize_
(ns-2's UDP agent adds no UDP header, tcplab's adds 8), so the IP packets
on the air are the same size on both sides.

Cases (`--cases`, comma-separated):

* `leave`: station a fixed at (10, 10), station b starting at (210, 10)
  and leaving at 10 m/s from t = 0 (ns-2: `$ns_ at 0.0 "$node_(1) setdest
  1210 10 10"`), 10 datagrams a second from a to b from 1 s, 20 s run.
  b is out of reach once it is 250.01 m from a, just after 5 s: the
  datagrams sent at 1.0 ... 5.0 s (41) can arrive. Per run: datagrams
  delivered, the time of the last delivery, and b's distance from a when
  the data frame of that delivery started (from b's CTS: tcplab's capture
  at b, ns-2's MAC trace).
* `edge`: the same with b starting 0-20 mm further (or nearer): the share
  of runs that deliver the 41st datagram (the one sent at 5.0 s), whose
  data frame starts within a millisecond of b crossing 250.01 m. Which
  side of the edge that frame falls on depends on the MAC's timing
  (backoff draw, interframe spaces), so this checks the positions and the
  MAC timing to the millimetre. `--edge-offsets` chooses the offsets (mm).
* `approach`: b starts at (410, 10), 400 m away and out of reach, and at
  10 s heads for (110, 10) at 30 m/s: in reach from 15.0 s, stopping at
  100 m at 20 s; 30 s run. Per run: time of the first delivery and
  datagrams delivered (AODV's discovery schedule decides when the first
  request after 15 s goes out). Run with a datagram every 0.1 s, and
  every 0.07 s: at 0.1 s the requests' deadlines (multiples of 1.8 s
  after a datagram) fall on datagram times, ties that ns-2 breaks by the
  rounding of its clock (APPROACH_INTERVALS).
* `field`: ten stations moving by validation/data/setdest-10n.tcl (ns-2's
  `setdest -v 1 -n 10 -p 0 -M 10 -t 100 -x 800 -y 300`; setdest seeds
  itself from the clock, so one output is kept) in an 800 m x 300 m
  topography, read by ns-2 with `source` and by tcplab through `[wireless]
  setdest`; four CBR flows (FIELD_FLOWS, 512-byte ns-2 packets every
  250 ms from 5 s); 100 s run. Per flow: datagrams delivered, mean ±
  standard error over `--field-seeds` seeds, and z (difference over its
  standard error).

ns-2's side is written to a temporary directory and run with `ns`; its
deliveries are the `r ... AGT ... cbr` lines of its trace (with the
CBR sequence number), its routing packets the `s`/`f` AODV lines at RTR.
tcplab's deliveries are its flows table's bytes_delivered (divided by the
flow's payload) and, for the times, a capture at the receiving
station (`[[pcap]] node`: every frame it decodes, stamped at the
reception's end; duplicates removed by source address and IP ID).
"""
from __future__ import annotations

import argparse
import math
import re
import statistics
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from tcplab.setdest import expand  # noqa: E402
from validation.multihop_ns2 import z_value  # noqa: E402
from validation.ns2 import available, measure  # noqa: E402

SETDEST_FILE = ROOT / "validation" / "data" / "setdest-10n.tcl"
SETDEST_COMMAND = "setdest -v 1 -n 10 -p 0 -M 10 -t 100 -x 800 -y 300"
# ns-2's receive threshold (RXThresh_ 3.652e-10 W) under two-ray ground with
# its WaveLAN defaults (Pt_ 0.28183815 W, antennas 1.5 m high, L 1): the
# largest distance a frame is decoded at.
PT, HEIGHT, RX_THRESH = 0.28183815, 1.5, 3.652e-10
RECEIVE_RANGE = (PT * HEIGHT ** 4 / RX_THRESH) ** 0.25  # 250.0106 m
# ns-2's CTS: 14 bytes at the 1 Mbit/s basic rate plus the 192 us PLCP
# preamble and header; the data frame starts a SIFS (10 us) after it.
CTS_TO_DATA = 192e-6 + 14 * 8 / 1e6 + 10e-6
# Longer than any frame of these runs on the air (a 528-byte IP packet at
# 2 Mbit/s with its headers and preamble: about 2.5 ms).
LONGEST_FRAME = 0.003

PROFILES = ("default", "ns2")


# --- the scenarios, as data both sides are built from -----------------------

def case_leave(offset: float = 0.0) -> dict:
    """b leaves a at 10 m/s from 200 m (+ `offset` m)."""
    return {"positions": [(10.0, 10.0), (210.0 + offset, 10.0)],
            "waypoints": {1: [(0.0, 1210.0, 10.0, 10.0)]},
            "field": (1500.0, 100.0), "duration": 20.0,
            "flows": [{"src": 0, "dst": 1, "start": 1.0, "interval": 0.1, "payload": 500}]}


def case_approach(interval: float = 0.1) -> dict:
    """b waits 400 m away, then comes to 100 m at 30 m/s from 10 s; a
    datagram every `interval` seconds from 1 s."""
    return {"positions": [(10.0, 10.0), (410.0, 10.0)],
            "waypoints": {1: [(10.0, 110.0, 10.0, 30.0)]},
            "field": (1500.0, 100.0), "duration": 30.0,
            "flows": [{"src": 0, "dst": 1, "start": 1.0, "interval": interval, "payload": 500}]}


# The field's flows: source and destination ns-2 node numbers; starts 50 ms
# apart so that the sources do not send in the same instant.
FIELD_FLOWS = [(6, 3), (4, 5), (1, 7), (9, 8)]


def case_field(path: Path = SETDEST_FILE) -> dict:
    nodes = 1 + max(int(n) for n in re.findall(r"\$node_\((\d+)\)", path.read_text()))
    return {"positions": None, "setdest": path, "nodes": nodes, "waypoints": {},
            "field": (800.0, 300.0), "duration": 100.0,
            "flows": [{"src": s, "dst": d, "start": 5.0 + 0.05 * k, "interval": 0.25, "payload": 504}
                      for k, (s, d) in enumerate(FIELD_FLOWS)]}


def node_count(case: dict) -> int:
    return case["nodes"] if case["positions"] is None else len(case["positions"])


def position(start: tuple, waypoints: list, t: float) -> tuple[float, float]:
    """Where a station starting at `start` and following setdest-style
    `waypoints` [(t, x, y, v), ...] is at time t (straight legs; a later
    command replaces the move under way; speed 0 stops)."""
    x, y = start
    moves = sorted(waypoints) + [(math.inf, 0.0, 0.0, 0.0)]
    for (t0, dx, dy, v), (t1, *_) in zip(moves, moves[1:]):
        if t <= t0:
            break
        span = min(t, t1) - t0
        left = math.hypot(dx - x, dy - y)
        step = min(left, v * span)
        if left > 0:
            x, y = x + (dx - x) * step / left, y + (dy - y) * step / left
    return x, y


def distance(case: dict, t: float, a: int = 0, b: int = 1) -> float:
    pa = position(case["positions"][a], case["waypoints"].get(a, []), t)
    pb = position(case["positions"][b], case["waypoints"].get(b, []), t)
    return math.hypot(pa[0] - pb[0], pa[1] - pb[1])


# --- tcplab ------------------------------------------------------------------

def scenario(case: dict, seed: int, profile: str = "default") -> dict:
    """The case as a tcplab scenario (a field case's positions and waypoints
    come from its ns-2 movement file through `[wireless] setdest`)."""
    wireless = {"propagation": "two_ray_ground", "data_rate": "2Mbps", "basic_rate": "1Mbps",
                "rts_threshold": 0, "routing": "aodv", "ifq": {"kind": "priqueue", "limit": 50}}
    if profile == "ns2":
        wireless["profile"] = "ns2"
    elif profile != "default":
        raise ValueError(f"profile {profile!r}: use one of {PROFILES}")
    if case["positions"] is None:
        nodes = [{"name": f"n{i}"} for i in range(node_count(case))]
        wireless["setdest"] = str(case["setdest"])  # absolute: expand joins it to nothing
    else:
        nodes = []
        for i, (x, y) in enumerate(case["positions"]):
            n: dict[str, Any] = {"name": f"n{i}", "position": [x, y]}
            if i in case["waypoints"]:
                n["waypoints"] = [list(w) for w in case["waypoints"][i]]
            nodes.append(n)
    sc = {
        "sim": {"duration": f"{case['duration']}s", "seed": seed},
        "wireless": wireless,
        "node": nodes,
        "flow": [{"name": f"cbr{k}", "from": f"n{f['src']}", "to": f"n{f['dst']}", "transport": "udp",
                  "packet_size": f["payload"],
                  "app": {"kind": "cbr", "interval": f"{f['interval']}s", "start": f"{f['start']}s"}}
                 for k, f in enumerate(case["flows"])],
    }
    expand(sc, None)  # what tcplab.load_scenario does with `setdest`
    return sc


def read_capture(pcap: bytes, node: int) -> dict:
    """From tcplab's 802.11 capture at station `node` (libpcap, nanosecond
    stamps, link type 105): the datagrams it decoded that were addressed
    to it, [(time of the reception's end, source node)] without repeats,
    and the start times of the CTS frames it sent (a capture has the
    frames a station sends, stamped at their start, and every frame it
    decodes, whatever its address, stamped at the reception's end)."""
    magic = pcap[:4]
    if magic != bytes.fromhex("4d3cb2a1") or struct.unpack("<I", pcap[20:24])[0] != 105:
        raise ValueError("not a little-endian nanosecond libpcap file of 802.11 frames")
    me_mac = bytes([2, 0, 0]) + (node + 1).to_bytes(3, "big")
    me_ip = bytes([10]) + (node + 1).to_bytes(3, "big")
    got, cts, decoded, seen = [], [], [], set()
    off = 24
    while off + 16 <= len(pcap):
        sec, nsec, incl, _ = struct.unpack("<IIII", pcap[off:off + 16])
        fr = pcap[off + 16:off + 16 + incl]
        off += 16 + incl
        t = sec + nsec * 1e-9
        kind, sub = (fr[0] >> 2) & 3, fr[0] >> 4
        # Sent by this station: an RTS or data frame from its address, a
        # CTS or ACK to another (those name only their receiver).
        if kind == 1 and sub in (12, 13):
            mine = fr[4:10] != me_mac
        else:
            mine = fr[10:16] == me_mac
        if not mine:
            decoded.append(t)
        if kind == 1 and sub == 12 and mine:
            cts.append(t)
        elif kind == 2 and len(fr) >= 52 and fr[4:10] == me_mac:
            # Addressed to this station at the MAC: frames it overhears for
            # a relay (its capture has those too) are not deliveries.
            ip = fr[32:]
            if ip[9] == 17 and ip[16:20] == me_ip:
                key = (ip[12:16], ip[4:6])
                if key not in seen:
                    seen.add(key)
                    got.append((t, int.from_bytes(ip[13:16], "big") - 1))
    return {"deliveries": got, "cts": cts, "decoded": decoded}


def run_tcplab(case: dict, seed: int, profile: str = "default", times: bool = True) -> dict:
    """Per flow: datagrams delivered (and with `times` their reception
    times at the destination, from a capture there); the stations' AODV
    packets."""
    sc = scenario(case, seed, profile)
    dests = sorted({f["dst"] for f in case["flows"]}) if times else []
    r = tcplab.run(sc, pcap=[f"n{d}" for d in dests])
    f, n = r.columns("flows"), r.columns("nodes")
    out: dict[str, Any] = {
        "delivered": [int(f["bytes_delivered"][k]) // fl["payload"] for k, fl in enumerate(case["flows"])],
        "sent": [int(x) for x in f["packets_sent"]],
        "routing_packets": int(sum(n["routing_packets"])), "times": [], "cts": {}}
    caps = {d: read_capture(r.pcaps[f"node-n{d}"], d) for d in dests}
    for k, fl in enumerate(case["flows"]):
        if times:
            ts = [t for t, src in caps[fl["dst"]]["deliveries"] if src == fl["src"]]
            if len(ts) != out["delivered"][k]:
                raise RuntimeError(f"capture at n{fl['dst']}: {len(ts)} datagrams, flows table "
                                   f"{out['delivered'][k]}")
            out["times"].append(ts)
    out["cts"] = {d: c["cts"] for d, c in caps.items()}
    out["decoded"] = {d: c["decoded"] for d, c in caps.items()}
    return out


# --- ns-2.35 -----------------------------------------------------------------

def tcl(case: dict, seed: int, trace: str, mac_trace: bool = False) -> str:
    """The case in ns-2.35, its globals named as in ns-2's movement files
    ($ns_, $node_(i), $god_) so that a setdest file can be sourced."""
    nn = node_count(case)
    w, h = case["field"]
    if case["positions"] is None:
        moves = f"source {case['setdest']}\n"
    else:
        moves = "".join(f"$node_({i}) set X_ {x}\n$node_({i}) set Y_ {y}\n$node_({i}) set Z_ 0.0\n"
                        for i, (x, y) in enumerate(case["positions"]))
        for i, wps in sorted(case["waypoints"].items()):
            for t, x, y, v in wps:
                if not (0 < x < w and 0 < y < h):
                    raise ValueError(f"node {i}: ns-2 refuses a destination on or outside its "
                                     f"{w} x {h} topography: ({x}, {y})")
                moves += f'$ns_ at {t} "$node_({i}) setdest {x} {y} {v}"\n'
    # ns-2's UDP agent sends packetSize_ bytes with no UDP header; its
    # routing agent adds the 20-byte IP header.
    traffic = "".join(f"""set udp({k}) [new Agent/UDP]
$ns_ attach-agent $node_({f['src']}) $udp({k})
set null({k}) [new Agent/Null]
$ns_ attach-agent $node_({f['dst']}) $null({k})
$ns_ connect $udp({k}) $null({k})
set cbr({k}) [new Application/Traffic/CBR]
$cbr({k}) set packetSize_ {f['payload'] + 8}
$cbr({k}) set interval_ {f['interval']}
$cbr({k}) set random_ 0
$cbr({k}) attach-agent $udp({k})
$ns_ at {f['start']} "$cbr({k}) start"
""" for k, f in enumerate(case["flows"]))
    mac = "ON" if mac_trace else "OFF"
    return f"""set ns_ [new Simulator]
ns-random 0
$defaultRNG seed {seed + 1}
set tr [open {trace} w]
$ns_ trace-all $tr
set topo [new Topography]
$topo load_flatgrid {w} {h}
set god_ [create-god {nn}]
set chan [new Channel/WirelessChannel]
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
$ns_ node-config -adhocRouting AODV -llType LL -macType Mac/802_11 \\
  -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \\
  -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \\
  -topoInstance $topo -agentTrace ON -routerTrace ON -macTrace {mac} -movementTrace OFF
for {{set i 0}} {{$i < {nn}}} {{incr i}} {{
  set node_($i) [$ns_ node]
  $node_($i) random-motion 0
}}
{moves}{traffic}proc finish {{}} {{
  global tr
  close $tr
  exit 0
}}
$ns_ at {case['duration']} "finish"
$ns_ run
"""


AGT = re.compile(r"^([sr]) (\S+) _(\d+)_ AGT .* cbr \d+ .*\[(\d+):\d+ (\d+):\d+ \S+ \S+\] \[(\d+)\]")


def read_trace(path: Path) -> dict:
    """From an ns-2 wireless trace (old format): CBR datagrams received at
    the agents per (source, destination) node pair [(time, CBR sequence
    number)], the number sent per pair, the AODV packets sent or forwarded
    at RTR, and per node the times its MAC started sending a CTS (with
    the MAC trace on)."""
    got: dict[tuple, list] = {}
    sent: dict[tuple, int] = {}
    cts: dict[int, list] = {}
    decoded: dict[int, list] = {}
    routing = 0
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 7:
                continue
            if parts[3] == "AGT" and parts[6] == "cbr":
                m = AGT.match(line)
                if m is None:
                    raise ValueError(f"unexpected AGT line: {line.strip()}")
                pair = (int(m.group(4)), int(m.group(5)))
                if m.group(1) == "s":
                    sent[pair] = sent.get(pair, 0) + 1
                else:
                    got.setdefault(pair, []).append((float(m.group(2)), int(m.group(6))))
            elif parts[3] == "RTR" and parts[0] in ("s", "f") and parts[6] == "AODV":
                routing += 1
            elif parts[3] == "MAC" and parts[0] == "s" and parts[6] == "CTS":
                cts.setdefault(int(parts[2].strip("_")), []).append(float(parts[1]))
            elif parts[3] == "MAC" and parts[0] == "r":
                decoded.setdefault(int(parts[2].strip("_")), []).append(float(parts[1]))
    return {"received": got, "sent": sent, "routing_packets": routing, "cts": cts, "decoded": decoded}


def run_ns2(case: dict, seed: int, mac_trace: bool = False) -> dict:
    """The case in ns-2.35: per flow the datagrams delivered (agent-level
    receptions, repeats removed) and their times."""
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "mobility.tr"
        path = Path(d) / "mobility.tcl"
        path.write_text(tcl(case, seed, str(trace), mac_trace))
        m = measure(["ns", str(path)], cwd=d)
        if m["returncode"] != 0:
            raise RuntimeError(f"ns failed (status {m['returncode']}): {m['stderr'].strip()[-500:]}")
        tr = read_trace(trace)
    out: dict[str, Any] = {
        "delivered": [], "times": [], "seqnos": [], "routing_packets": tr["routing_packets"], "cts": tr["cts"],
        "decoded": tr["decoded"], "sent": [tr["sent"].get((fl["src"], fl["dst"]), 0) for fl in case["flows"]]}
    for fl in case["flows"]:
        first: dict[int, float] = {}
        for t, seq in tr["received"].get((fl["src"], fl["dst"]), []):
            first.setdefault(seq, t)
        ordered = sorted((t, s) for s, t in first.items())
        out["delivered"].append(len(ordered))
        out["times"].append([t for t, _ in ordered])
        out["seqnos"].append([s for _, s in ordered])
    return out


# --- measures ----------------------------------------------------------------

def last_data_start(delivery: float, cts: list[float]) -> float | None:
    """Start of the data frame whose reception ended at `delivery`: the last
    CTS the receiver sent before it, plus the CTS and a SIFS."""
    before = [t for t in cts if t < delivery]
    return before[-1] + CTS_TO_DATA if before else None


def leave_run(side: str, seed: int, offset: float = 0.0) -> dict:
    """Case `leave` once: side 'ns2-2.35' or a tcplab profile."""
    case = case_leave(offset)
    r = run_ns2(case, seed, mac_trace=True) if side == "ns-2.35" else run_tcplab(case, seed, side)
    times = r["times"][0]
    out = {"delivered": r["delivered"][0], "last": times[-1] if times else None}
    out["dist_last"] = distance(case, out["last"]) if times else None
    start = last_data_start(out["last"], r["cts"].get(1, [])) if times else None
    out["dist_data_start"] = distance(case, start) if start is not None else None
    out["seqnos"] = r.get("seqnos", [None])[0]
    # Frames b decoded (any kind) that ended later than a frame begun
    # before b crossed the receive range could: there should be none.
    cross = (RECEIVE_RANGE - 200.0 - offset) / 10.0
    out["late_frames"] = sum(t > cross + LONGEST_FRAME for t in r["decoded"].get(1, []))
    return out


def approach_run(side: str, seed: int, interval: float = 0.1) -> dict:
    case = case_approach(interval)
    r = run_ns2(case, seed) if side == "ns-2.35" else run_tcplab(case, seed, side)
    times = r["times"][0]
    first = times[0] if times else None
    out = {"delivered": r["delivered"][0], "first": first,
           "dist_first": distance(case, first) if first is not None else None,
           "routing_packets": r["routing_packets"]}
    if side == "ns-2.35" and times:
        out["first_seq"] = r["seqnos"][0][0]
    return out


def field_run(side: str, seed: int) -> dict:
    case = case_field()
    r = run_ns2(case, seed) if side == "ns-2.35" else run_tcplab(case, seed, side, times=False)
    return {"delivered": r["delivered"], "sent": r["sent"], "routing_packets": r["routing_packets"]}


def mean_se(v: list[float], digits: int = 1) -> str:
    v = [x for x in v if x is not None]
    if not v:
        return "-"
    m = statistics.mean(v)
    if len(v) < 2:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {statistics.stdev(v) / len(v) ** 0.5:.{digits}f}"


def fmt_z(z: float | None) -> str:
    if z is None:
        return "-"
    return f"{z:+.1f}" + (" *" if abs(z) > 2 else "")


SIDES = ("ns-2.35",) + PROFILES


# --- the tables --------------------------------------------------------------

def report_leave(seeds: range) -> None:
    print(f"## leave: b leaves a at 10 m/s from 200 m; seeds {seeds.start}-{seeds.stop - 1}\n")
    print(f"b is out of reach beyond {RECEIVE_RANGE:.4f} m (t = {(RECEIVE_RANGE - 200) / 10:.6f} s).\n")
    print("| side | delivered (per seed) | mean | last delivery (s) | b's distance then (m) "
          "| b's distance at that data frame's start (m) | frames b decoded after crossing |")
    print("|---|---|---|---|---|---|---|")
    for side in SIDES:
        runs = [leave_run(side, s) for s in seeds]
        counts = [r["delivered"] for r in runs]
        print(f"| {side} | {' '.join(map(str, counts))} | {mean_se(counts, 2)} "
              f"| {mean_se([r['last'] for r in runs], 4)} "
              f"| {max(r['dist_last'] for r in runs):.4f} (max) "
              f"| {min(r['dist_data_start'] for r in runs):.4f}-{max(r['dist_data_start'] for r in runs):.4f} "
              f"| {sum(r['late_frames'] for r in runs)} |", flush=True)
    print()


EDGE_OFFSETS = (-0.005, 0.0, 0.002, 0.004, 0.006, 0.008, 0.010, 0.020)


def report_edge(seeds: range, offsets: tuple = EDGE_OFFSETS) -> None:
    print(f"## edge: b starts 200 m + offset away; share of seeds {seeds.start}-{seeds.stop - 1} "
          "delivering the datagram sent at 5.0 s (41 delivered)\n")
    print("| offset (mm) | " + " | ".join(SIDES) + " |")
    print("|---|" + "---|" * len(SIDES))
    for off in offsets:
        cells = []
        for side in SIDES:
            runs = [leave_run(side, s, off) for s in seeds]
            n41 = sum(r["delivered"] >= 41 for r in runs)
            bad = sum(r["delivered"] > 41 for r in runs)
            starts = [r["dist_data_start"] for r in runs if r["delivered"] >= 41]
            cell = f"{n41}/{len(runs)}"
            if starts:
                cell += f" (data start at {min(starts):.4f}-{max(starts):.4f} m)"
            if bad:
                cell += f" ({bad} with more than 41!)"
            cells.append(cell)
        print(f"| {off * 1000:+g} | " + " | ".join(cells) + " |", flush=True)
    print()


APPROACH_INTERVALS = (0.1, 0.07)


def report_approach(seeds: range) -> None:
    print(f"## approach: b comes from 400 m to 100 m at 30 m/s from 10 s (in reach from "
          f"{10 + (400 - RECEIVE_RANGE) / 30:.4f} s); seeds {seeds.start}-{seeds.stop - 1}\n")
    print("With a datagram every 0.1 s, AODV's request deadlines (send time + 1.8 s x the tries, "
          "ns-2.35's 2 x TTL 30 x 30 ms) fall on datagram times, and ns-2 decides those ties by its "
          "clock's rounding (it adds 0.1 s per datagram in floating point); every 0.07 s there are "
          "no ties.\n")
    for interval in APPROACH_INTERVALS:
        approach_table(seeds, interval)


def approach_table(seeds: range, interval: float) -> None:
    print(f"Datagram every {interval} s:\n")
    print("| side | first delivery (s), per seed | mean | b's distance then (m) | delivered | AODV packets |")
    print("|---|---|---|---|---|---|")
    for side in SIDES:
        runs = [approach_run(side, s, interval) for s in seeds]
        firsts = [r["first"] for r in runs]
        print(f"| {side} | {' '.join('-' if t is None else f'{t:.3f}' for t in firsts)} | {mean_se(firsts, 3)} "
              f"| {mean_se([r['dist_first'] for r in runs], 1)} | {mean_se([r['delivered'] for r in runs], 1)} "
              f"| {mean_se([r['routing_packets'] for r in runs], 1)} |", flush=True)
        if side == "ns-2.35":
            seqs = [r.get("first_seq") for r in runs]
            print(f"| (ns-2: CBR number of the first datagram delivered: {' '.join(map(str, seqs))}) |||||")
    print()


def report_field(seeds: range) -> None:
    case = case_field()
    print(f"## field: {SETDEST_FILE.relative_to(ROOT)} ({SETDEST_COMMAND}), {len(FIELD_FLOWS)} CBR flows, "
          f"100 s; seeds {seeds.start}-{seeds.stop - 1}; mean ± standard error, z against ns-2.35\n")
    runs = {side: [field_run(side, s) for s in seeds] for side in SIDES}
    print("| flow | sent (ns-2 / tcplab) | ns-2.35 | default | z | ns2 | z |")
    print("|---|---|---|---|---|---|---|")
    rows = [(f"{s} -> {d}", k) for k, (s, d) in enumerate(FIELD_FLOWS)] + [("all", None)]
    for name, k in rows:
        def col(side):
            return [sum(r["delivered"]) if k is None else r["delivered"][k] for r in runs[side]]
        ref = col("ns-2.35")
        cells = [mean_se(ref)]
        for side in PROFILES:
            cells += [mean_se(col(side)), fmt_z(z_value(col(side), ref))]
        sent = [statistics.mean(sum(r["sent"]) if k is None else r["sent"][k] for r in runs[side])
                for side in ("ns-2.35", "ns2")]
        print(f"| {name} | {sent[0]:g} / {sent[1]:g} | " + " | ".join(cells) + " |")
    ref = [r["routing_packets"] for r in runs["ns-2.35"]]
    cells = [mean_se(ref)]
    for side in PROFILES:
        v = [r["routing_packets"] for r in runs[side]]
        cells += [mean_se(v), fmt_z(z_value(v, ref))]
    print("| AODV packets sent/forwarded | | " + " | ".join(cells) + " |")
    print()
    print("Per seed, delivered per flow (ns-2.35 / default / ns2):\n")
    for i, s in enumerate(seeds):
        print(f"- seed {s}: " + " / ".join(" ".join(map(str, runs[side][i]["delivered"])) for side in SIDES))
    print(flush=True)


CASES = {"leave": report_leave, "edge": report_edge, "approach": report_approach, "field": report_field}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="leave,edge,approach,field", help="comma-separated: " + ", ".join(CASES))
    ap.add_argument("--seeds", type=int, default=10, help="seeds of the leave, edge and approach cases")
    ap.add_argument("--field-seeds", type=int, default=10, help="seeds of the field case")
    ap.add_argument("--edge-offsets", default=None, metavar="MM,MM,...",
                    help="the edge case's offsets of b's start, in millimetres (default: "
                         + ",".join(f"{o * 1000:g}" for o in EDGE_OFFSETS) + ")")
    a = ap.parse_args(argv)
    cases = a.cases.split(",")
    bad = [c for c in cases if c not in CASES]
    if bad:
        ap.error(f"--cases: unknown {bad}; use {', '.join(CASES)}")
    if a.seeds < 1 or a.field_seeds < 1:
        ap.error("--seeds and --field-seeds must be positive")
    if not available():
        print("ns (ns-2.35) is not installed (apt-get install ns2)", file=sys.stderr)
        return 2
    try:
        offsets = EDGE_OFFSETS if a.edge_offsets is None else \
            tuple(float(x) / 1000 for x in a.edge_offsets.split(","))
    except ValueError:
        ap.error(f"--edge-offsets: expected millimetres separated by commas, got {a.edge_offsets!r}")
    for c in cases:
        seeds = range(1, (a.field_seeds if c == "field" else a.seeds) + 1)
        if c == "edge":
            report_edge(seeds, offsets)
        else:
            CASES[c](seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
