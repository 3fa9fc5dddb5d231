"""Wired-cum-wireless networks in tcplab and in ns-2.35, side by side.

    python validation/wired_wireless_ns2.py                     # every case, 20 seeds
    python validation/wired_wireless_ns2.py --quick             # 4 seeds, 30 s: a smoke check
    python validation/wired_wireless_ns2.py --cases 1,3 --seeds 5 --trace-dir /tmp/ww

Base stations (a radio and wired links) with stations in their cells, DSDV
over the radio, static routes over the links. Both sides are built from the
same description (`Net`, `CASES`):

* tcplab: `[wireless] profile = "ns2"` (ns-2.35's MAC, ARP, queue and DSDV
  rules, among them `dsdv.ns2_gateway`: a station sends a packet for
  another cell straight to it when its DSDV table has a finite route, else
  to its base station), `routing = "dsdv"`, each station naming its
  `base_station`; the default (ns2) TCP profile.
* ns-2.35: hierarchical addressing (domain 0: the wired nodes; domain k:
  base station k-1 and its stations, one cluster each), base stations made
  with `-wiredRouting ON`, stations with `-wiredRouting OFF` and
  `base-station`, `-adhocRouting DSDV`; two-ray ground, ns-2's WaveLAN
  defaults otherwise.

Set alike on both sides: 802.11 data at 2 Mbit/s, basic rate 1 Mbit/s, RTS
before every unicast frame (ns-2: dataRate_ 2Mb, basicRate_ 1Mb,
RTSThreshold_ 0 as validation/wifi_chain_ns2.py sets them; tcplab's
defaults), interface queue PriQueue of 50 (ns-2's `-ifqLen 50`, tcplab's
default with the ns2 profile's `ifq.ns2_limits`), wired links 5 Mbit/s 2 ms
DropTail with ns-2's default queue-limit 50 (tcplab `limit = 49`: tcplab
counts the packets waiting, validation/ns2.py's queue_limit), TCP NewReno
(Agent/TCP/Newreno with Agent/TCPSink) with ns-2's default packetSize_ 1000
and window_ 20, which are the ns2 TCP profile's MSS and window (so ns-2's
initial ssthresh of 20 on mobile nodes, validation/multihop_ns2.py's
NS2_WIRELESS_SSTHRESH, is tcplab's too). FTP (bulk) from `start`; the run
ends `duration` seconds later.

Cases (`--cases`, default all):

1. One cell: W0 - W1 - BS0 (5 Mbit/s, 2 ms each); m0 150 m east of BS0,
   m1 150 m north, m2 350 m east (200 m from m0: it reaches BS0 only
   through m0, 2 hops). One connection per row: m0 -> W0, W0 -> m0,
   m2 -> W0, W0 -> m2.
2. Two cells far apart: W0 - W1, W1 - BS0, W1 - BS1; BS0 and BS1 1500 m
   apart, two stations each (180 and 192 m from their base station); a0 ->
   a1 and b0 -> b1 at once. No station hears the other cell, so both
   rules send everything through the base stations and the wired links.
3. The same two cells 500 m apart (the base stations sense each other but
   cannot decode), every station within receive range of the other cell's:
   ns-2.35's DSDV (dsdv.cc forwardPacket) sends straight over the air when
   its table has a route; so should the ns2 profile. `wired pkts` counts
   TCP packets put on the wired links (ns-2: `-` lines of tcp/ack in its
   trace; tcplab: links.csv packets_sent): 0 when the shortcut is taken.
4. Case 1's cell with a frame error rate of 0.05 or 0.2 on every station
   (not the base station): ns-2's `node-config -IncomingErrProc` with an
   ErrorModel (unit pkt, rate_, RandomVariable/Uniform, no drop target: a
   corrupted frame goes up marked and the MAC discards it and waits EIFS)
   against tcplab's `[[node]] frame_error_rate`. m0 -> W0 and W0 -> m0.

Measures, per connection (rows with two connections show their sum):
goodput is the data acknowledged at the sender over the `duration` seconds
(ns-2: `ack_` x 1000 B, packet 0 being the SYN; tcplab: `throughput_bps`);
retransmissions are ns-2's `nrexmitpack_` and tcplab's `retransmits`,
timeouts `nrexmit_` and `timeouts`; `1st ACK` is the time from the start
to the first ACK of data at the sender (ns-2: its traced `ack_` reaching 1;
tcplab: trace.csv; the later of two connections, `duration` if none came),
i.e. how long DSDV, ARP and the SYN's backoff held the connection. MAC
counts are over every radio, base stations included: `data frames` are
unicast frames other than RTS/CTS/ACK put on the air, retransmissions
included (ns-2: `s` lines at MAC with a unicast MAC destination; tcplab:
nodes.csv data_frames), `MAC retries` the
retransmissions of a frame or its RTS (tcplab: retries; ns-2, where every
unicast frame starts with an RTS and every retry sends one more: RTS lines
minus the distinct frames the MACs sent or dropped at the retry limit),
`retry drops` the frames dropped at the retry limit (ns-2: `D` lines with
reason RET), `RTS without CTS` the RTS frames no CTS answered (RTS sent
minus CTS sent, both sides). ns-2 only: `RTS refused busy`, RTSs its MACs
discarded as busy (`D ... MAC BSY ... RTS`), most of them at a station that
had sent a CTS and still waits for the data it cleared (mac-802_11.cc
recvRTS refuses any RTS while tx_state_ is not idle; after a CTS it stays
MAC_CTS until the data arrives or the data's whole time has passed), and
the data packets its routing layer dropped, by reason (CBK: the MAC gave
up on the next hop, or ARP did after three requests). Every cell is mean ±
standard error over the seeds, `z` the difference over its standard error
(sqrt(se1² + se2²)), `*` |z| > 2.

ns-2's runs are seeded with substreams (`ns2_seeding`), not with
`$defaultRNG seed <seed>` as the other scripts here.

`--trace-dir DIR` keeps ns-2's traces (DIR/<case>-s<seed>.tr, .ack) and
tcplab's trace.csv, nodes.csv and links.csv (DIR/<case>-s<seed>-tcplab/).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# wifi_chain_ns2 puts the repository root on sys.path (validation.ns2).
from wifi_chain_ns2 import mean_se  # noqa: E402
from multihop_ns2 import fmt_z, ns2_ready, z_value  # noqa: E402

import tcplab  # noqa: E402
from validation.ns2 import measure, queue_limit  # noqa: E402

SEGMENT = 1000          # ns-2's Agent/TCP packetSize_ default = the ns2 profile's MSS
WINDOW = 20             # ns-2's window_ default = the ns2 profile's window
LINK_RATE, LINK_DELAY = "5Mbps", "2ms"
NS2_QUEUE_LIMIT = 50    # ns-2's default queue-limit (Queue set limit_ 50)
START = 20.0            # the connections' start: DSDV's one-hop routes are there by then
DURATION = 120.0
QUICK_SEEDS, QUICK_DURATION = 4, 30.0


@dataclass(frozen=True)
class Net:
    """Wired hosts, links between them and base stations, and cells: (base
    station, its position, its stations as (name, position))."""
    wired: tuple
    links: tuple
    cells: tuple

    def stations(self):
        return [(name, pos, bs) for bs, _, sts in self.cells for name, pos in sts]


ONE_CELL = Net(
    wired=("W0", "W1"),
    links=(("W0", "W1"), ("W1", "BS0")),
    cells=(("BS0", (300.0, 300.0), (("m0", (450.0, 300.0)), ("m1", (300.0, 450.0)), ("m2", (650.0, 300.0)))),),
)


def two_cells(gap: float) -> Net:
    """Two cells `gap` metres apart (base station to base station), each
    with a station 180 m towards the other cell and one 192 m off the line."""
    x0, x1 = 300.0, 300.0 + gap
    return Net(
        wired=("W0", "W1"),
        links=(("W0", "W1"), ("W1", "BS0"), ("W1", "BS1")),
        cells=(("BS0", (x0, 300.0), (("a0", (x0 + 180.0, 300.0)), ("b0", (x0 + 150.0, 420.0)))),
               ("BS1", (x1, 300.0), (("a1", (x1 - 180.0, 300.0)), ("b1", (x1 - 150.0, 420.0))))),
    )


FAR, NEAR = two_cells(1500.0), two_cells(500.0)


@dataclass(frozen=True)
class Case:
    key: str            # --cases selects by the leading number
    label: str
    net: Net
    flows: tuple        # (from, to)
    error_rate: float = 0.0   # frame error rate of every station


CASES = [
    Case("1", "1: m0 -> W0 (1 hop)", ONE_CELL, (("m0", "W0"),)),
    Case("1", "1: W0 -> m0 (1 hop)", ONE_CELL, (("W0", "m0"),)),
    Case("1", "1: m2 -> W0 (2 hops)", ONE_CELL, (("m2", "W0"),)),
    Case("1", "1: W0 -> m2 (2 hops)", ONE_CELL, (("W0", "m2"),)),
    Case("2", "2: far cells, a0 -> a1 + b0 -> b1", FAR, (("a0", "a1"), ("b0", "b1"))),
    Case("3", "3: near cells, a0 -> a1 + b0 -> b1", NEAR, (("a0", "a1"), ("b0", "b1"))),
    Case("4", "4: FER 0.05, m0 -> W0", ONE_CELL, (("m0", "W0"),), 0.05),
    Case("4", "4: FER 0.05, W0 -> m0", ONE_CELL, (("W0", "m0"),), 0.05),
    Case("4", "4: FER 0.2, m0 -> W0", ONE_CELL, (("m0", "W0"),), 0.2),
    Case("4", "4: FER 0.2, W0 -> m0", ONE_CELL, (("W0", "m0"),), 0.2),
]


def case_slug(case: Case) -> str:
    """A file name for the case: `1-m0-W0`, `4-fer0.2-W0-m0`, ..."""
    ends = "+".join(f"{a}-{b}" for a, b in case.flows)
    fer = f"-fer{case.error_rate:g}" if case.error_rate else ""
    return f"{case.key}{fer}-{ends}"


# --- tcplab -------------------------------------------------------------------------

def scenario(case: Case, seed: int, duration: float, start: float = START) -> dict:
    net = case.net
    nodes = [{"name": w} for w in net.wired]
    for bs, pos, _ in net.cells:
        nodes.append({"name": bs, "position": list(pos)})
    for name, pos, bs in net.stations():
        n = {"name": name, "position": list(pos), "base_station": bs}
        if case.error_rate:
            n["frame_error_rate"] = case.error_rate
        nodes.append(n)
    # ns-2's queue-limit L is tcplab's limit L - 1 (validation/ns2.py).
    limit = NS2_QUEUE_LIMIT - 1
    assert queue_limit({"kind": "droptail", "limit": limit}) == NS2_QUEUE_LIMIT
    return {
        "sim": {"duration": f"{start + duration:g}s", "seed": seed},
        "wireless": {"profile": "ns2", "routing": "dsdv", "propagation": "two_ray_ground",
                     "data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_threshold": 0,
                     "ifq": {"kind": "priqueue", "limit": 50}},
        "node": nodes,
        "link": [{"between": [a, b], "rate": LINK_RATE, "delay": LINK_DELAY,
                  "queue": {"kind": "droptail", "limit": limit}} for a, b in net.links],
        "flow": [{"name": f"f{i}", "from": a, "to": b, "transport": "newreno", "packet_size": SEGMENT,
                  "window": WINDOW, "app": {"kind": "bulk", "start": start}}
                 for i, (a, b) in enumerate(case.flows)],
    }


def first_data_ack(trace: dict, flow: str, start: float) -> float | None:
    """Seconds from `start` to the first ACK at the sender that covers
    data (trace.csv: the SYN's answer is an ACK of 0, data start at byte 0,
    so the first data ACK acknowledges `packet_size`)."""
    for t, f, kind, seq in zip(trace["time_s"], trace["flow"], trace["kind"], trace["seq"]):
        if f == flow and kind == "ack" and seq > 1:
            return t - start
    return None


def run_tcplab(case: Case, seed: int, duration: float, start: float = START, keep: Path | None = None) -> dict:
    r = tcplab.run(scenario(case, seed, duration, start), trace=True)
    f, n, links, tr = r.columns("flows"), r.columns("nodes"), r.columns("links"), r.columns("trace")
    if keep is not None:
        r.write(keep)
    first = [first_data_ack(tr, name, start) for name in f["flow"]]
    return {
        "goodput_bps": sum(f["throughput_bps"]),
        "retransmits": sum(f["retransmits"]),
        "timeouts": sum(f["timeouts"]),
        "first_ack_s": max(duration if x is None else x for x in first),
        "data_frames": sum(n["data_frames"]),
        "mac_retries": sum(n["retries"]),
        "retry_drops": sum(n["drops_retry_limit"]),
        "rts_unanswered": sum(n["rts_frames"]) - sum(n["cts_frames"]),
        "frame_errors": sum(n["frame_errors"]),
        "wired_pkts": sum(links["packets_sent"]),
        "routing_packets": sum(n["routing_packets"]),
    }


# --- ns-2.35 -------------------------------------------------------------------------

def ns2_addresses(net: Net) -> dict:
    """Hierarchical address of every node: 0.0.i for the wired hosts,
    k.0.0 for base station k-1, k.0.j for its j-th station."""
    addr = {w: f"0.0.{i}" for i, w in enumerate(net.wired)}
    for k, (bs, _, sts) in enumerate(net.cells, start=1):
        addr[bs] = f"{k}.0.0"
        for j, (name, _) in enumerate(sts, start=1):
            addr[name] = f"{k}.0.{j}"
    return addr


def ns2_seeding(seed: int) -> str:
    """Tcl that gives run `seed` its own substream of ns-2's default
    generator (MRG32k3a): seed 1, then `seed` x next-substream (2^76 draws
    apart). Not `$defaultRNG seed <seed>` as the other scripts here: that
    sets every word of the generator's state to the seed, so early draws
    are nearly linear in it (docs/validation.md, the routing study's string,
    "ns-2's seeds"); here the
    stations' first DSDV dumps, which set how soon a 2-hop route is
    passed on, came about 0.028 s later per seed (m0's route to BS0 at 0.064,
    0.095, 0.117 ... 0.602 s for seeds 1-20), a sweep rather than a sample."""
    return f"$defaultRNG seed 1\nfor {{set i 0}} {{$i < {seed}}} {{incr i}} {{ $defaultRNG next-substream }}"


def ns2_tcl(case: Case, seed: int, duration: float, trace: str, ack_trace: str, start: float = START) -> str:
    net = case.net
    addr = ns2_addresses(net)
    nodes_num = [len(net.wired)] + [1 + len(sts) for _, _, sts in net.cells]
    total = len(net.wired) + sum(nodes_num[1:])
    xs = [p[0] for _, p, _ in net.cells] + [p[0] for _, p, _ in net.stations()]
    ys = [p[1] for _, p, _ in net.cells] + [p[1] for _, p, _ in net.stations()]

    def place(name, pos):
        return (f"set n({name}) [$ns node {addr[name]}]\n$n({name}) random-motion 0\n"
                f"$n({name}) set X_ {pos[0]!r}\n$n({name}) set Y_ {pos[1]!r}\n$n({name}) set Z_ 0.0\n")

    wired = "".join(f"set n({w}) [$ns node {addr[w]}]\n" for w in net.wired)
    bss = "".join(place(bs, pos) for bs, pos, _ in net.cells)
    err_proc = err_cfg = ""
    if case.error_rate:
        # No drop target: a corrupted frame goes up marked, the MAC frees it
        # and waits EIFS (mac-802_11.cc recv_timer), as tcplab's model.
        err_proc = (f"proc StationErr {{}} {{\n  set e [new ErrorModel]\n  $e unit pkt\n"
                    f"  $e set rate_ {case.error_rate!r}\n  $e ranvar [new RandomVariable/Uniform]\n  return $e\n}}\n")
        err_cfg = " -IncomingErrProc StationErr"
    stations = "".join(place(name, pos) + f"$n({name}) base-station [AddrParams addr2id [$n({bs}) node-addr]]\n"
                       for name, pos, bs in net.stations())
    links = "".join(f"$ns duplex-link $n({a}) $n({b}) {LINK_RATE.replace('bps', 'b')} {LINK_DELAY} DropTail\n"
                    f"$ns queue-limit $n({a}) $n({b}) {NS2_QUEUE_LIMIT}\n"
                    f"$ns queue-limit $n({b}) $n({a}) {NS2_QUEUE_LIMIT}\n"
                    for a, b in net.links)
    flows = ""
    for i, (a, b) in enumerate(case.flows):
        flows += (f"set tcp({i}) [new Agent/TCP/Newreno]\n$tcp({i}) set packetSize_ {SEGMENT}\n"
                  f"$tcp({i}) set window_ {WINDOW}\n$tcp({i}) set fid_ {i}\n"
                  f"set sink({i}) [new Agent/TCPSink]\n$ns attach-agent $n({a}) $tcp({i})\n"
                  f"$ns attach-agent $n({b}) $sink({i})\n$ns connect $tcp({i}) $sink({i})\n"
                  f"$tcp({i}) attach $af\n$tcp({i}) trace ack_\n"
                  f"set ftp({i}) [new Application/FTP]\n$ftp({i}) attach-agent $tcp({i})\n"
                  f"$ns at {start!r} \"$ftp({i}) start\"\n")
    puts = "".join(f'  puts "flow {i} [$tcp({i}) set ack_] [$tcp({i}) set nrexmitpack_] [$tcp({i}) set nrexmit_]"\n'
                   for i in range(len(case.flows)))
    return f"""set ns [new Simulator]
ns-random 0
{ns2_seeding(seed)}
$ns node-config -addressType hierarchical
AddrParams set domain_num_ {len(nodes_num)}
AddrParams set cluster_num_ {{{' '.join('1' for _ in nodes_num)}}}
AddrParams set nodes_num_ {{{' '.join(str(k) for k in nodes_num)}}}
set tr [open {trace} w]
$ns trace-all $tr
set af [open {ack_trace} w]
set topo [new Topography]
$topo load_flatgrid {max(xs) + 100:.0f} {max(ys) + 100:.0f}
create-god {total}
{wired}set chan [new Channel/WirelessChannel]
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
{err_proc}$ns node-config -adhocRouting DSDV -llType LL -macType Mac/802_11 \\
  -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \\
  -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \\
  -topoInstance $topo -wiredRouting ON -agentTrace OFF -routerTrace ON -macTrace ON -movementTrace OFF
{bss}$ns node-config -wiredRouting OFF{err_cfg}
{stations}{links}{flows}proc finish {{}} {{
  global tcp tr af
{puts}  close $tr
  close $af
  exit 0
}}
$ns at {start + duration!r} "finish"
$ns run
"""


def read_trace(path: Path) -> dict:
    """Counts from an ns-2 trace of a wired-cum-wireless run: MAC frames
    (old wireless format, `s|r|D time _node_ MAC reason uid type size
    [duration dst src type] ...`), DSDV packets sent or forwarded at RTR,
    data packets dropped at RTR, and TCP packets put on wired links (`-`
    lines: `- time from to type size flags fid src dst seq uid`)."""
    data = rts = cts = busy = drops = routing = wired = 0
    frames: set = set()
    rtr_drops: dict = {}
    with open(path, errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) < 7:
                continue
            if not p[2].startswith("_"):
                if p[0] == "-" and p[4] in ("tcp", "ack"):
                    wired += 1
                continue
            ev, layer, kind = p[0], p[3], p[6]
            if layer == "MAC":
                if ev == "s":
                    if kind == "RTS":
                        rts += 1
                    elif kind == "CTS":
                        cts += 1
                    elif kind != "ACK" and p[9] != "ffffffff":
                        data += 1
                        frames.add((p[2], p[5]))
                elif ev == "D" and p[4] == "RET" and kind not in ("RTS", "CTS", "ACK"):
                    drops += 1
                    frames.add((p[2], p[5]))
                elif ev == "D" and p[4] == "BSY" and kind == "RTS":
                    busy += 1
            elif layer == "RTR":
                if ev in ("s", "f") and kind == "message":
                    routing += 1
                elif ev == "D" and kind in ("tcp", "ack"):
                    rtr_drops[p[4]] = rtr_drops.get(p[4], 0) + 1
    return {"data_frames": data, "mac_retries": rts - len(frames), "retry_drops": drops,
            "rts_unanswered": rts - cts, "rts_busy": busy,
            "routing_packets": routing, "wired_pkts": wired, "rtr_drops": rtr_drops}


def read_ack_trace(path: Path, flows: int, start: float, duration: float) -> float:
    """Seconds from `start` to the first ACK of data, the latest over the
    flows (`duration` for a flow that got none): ns-2's traced `ack_`
    (`time src sport dst dport ack_ value`) reaching 1 (0 is the SYN)."""
    first: dict = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7 and p[5] == "ack_" and float(p[6]) >= 1:
                key = (p[1], p[2])
                first.setdefault(key, float(p[0]) - start)
    vals = list(first.values()) + [duration] * (flows - len(first))
    return max(vals)


def run_ns2(case: Case, seed: int, duration: float, start: float = START, keep: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory() as d:
        where = keep if keep is not None else Path(d)
        slug = f"{case_slug(case)}-s{seed}"
        trace, acks = where / f"{slug}.tr", where / f"{slug}.ack"
        path = Path(d) / "net.tcl"
        path.write_text(ns2_tcl(case, seed, duration, str(trace), str(acks), start))
        m = measure(["ns", str(path)], cwd=d)
        if m["returncode"] != 0:
            raise RuntimeError(f"ns failed ({case.label}, seed {seed}): {m['stderr'].strip()[-500:]}")
        counts = read_trace(trace)
        first = read_ack_trace(acks, len(case.flows), start, duration)
    good, rtx, tout = 0.0, 0, 0
    for ln in m["stdout"].splitlines():
        if ln.startswith("flow "):
            _, _, ack, r, t = ln.split()
            # ack_ is the last packet acknowledged; packet 0 is the SYN (syn_ on).
            good += max(int(ack), 0) * SEGMENT * 8 / duration
            rtx += int(r)
            tout += int(t)
    return {"goodput_bps": good, "retransmits": rtx, "timeouts": tout, "first_ack_s": first,
            "frame_errors": None, **counts}


# --- the table ------------------------------------------------------------------------

# (key, header, scale, digits)
MEASURES = [
    ("goodput_bps", "goodput (kbit/s)", 1e3, 1),
    ("retransmits", "TCP rtx", 1.0, 1),
    ("timeouts", "timeouts", 1.0, 2),
    ("first_ack_s", "1st ACK (s)", 1.0, 2),
    ("data_frames", "data frames", 1.0, 0),
    ("mac_retries", "MAC retries", 1.0, 1),
    ("retry_drops", "retry drops", 1.0, 2),
    ("rts_unanswered", "RTS without CTS", 1.0, 0),
    ("wired_pkts", "wired pkts", 1.0, 0),
]


def row_cells(ours: list, theirs: list) -> list:
    cells = []
    for key, _, scale, digits in MEASURES:
        a = [r[key] / scale for r in ours]
        b = [r[key] / scale for r in theirs]
        z = z_value(a, b)
        mark = "*" if z is not None and abs(z) > 2 else ""
        cells.append(f"{mean_se(a, digits, max(digits, 1))} / {mean_se(b, digits, max(digits, 1))} ({fmt_z(z)}{mark})")
    return cells


def run_all(cases: list, seeds: list, duration: float, jobs: int = 2, trace_dir: Path | None = None,
            start: float = START):
    """{case label: (tcplab runs, ns-2 runs)}, in the order of `cases`;
    yields as each case completes."""
    def keep(case, seed, side):
        if trace_dir is None:
            return None
        if side == "ns-2":
            return trace_dir
        return trace_dir / f"{case_slug(case)}-s{seed}-tcplab"

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {c.label: ([pool.submit(run_tcplab, c, s, duration, start, keep(c, s, "tcplab")) for s in seeds],
                             [pool.submit(run_ns2, c, s, duration, start, keep(c, s, "ns-2")) for s in seeds])
                   for c in cases}
        for c in cases:
            ours_f, theirs_f = futures[c.label]
            yield c, [f.result() for f in ours_f], [f.result() for f in theirs_f]


def case_list(spec: str) -> list:
    keys = [k.strip() for k in spec.split(",") if k.strip()]
    bad = [k for k in keys if k not in {c.key for c in CASES}]
    if not keys or bad:
        raise argparse.ArgumentTypeError(f"--cases: expected some of 1,2,3,4, got {spec!r}")
    return [c for c in CASES if c.key in keys]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--duration", type=float, default=DURATION, help="seconds measured from the connections' start")
    ap.add_argument("--start", type=float, default=START, help="the connections' start (s)")
    ap.add_argument("--quick", action="store_true",
                    help=f"{QUICK_SEEDS} seeds, {QUICK_DURATION:g} s (unless --seeds/--duration are given)")
    ap.add_argument("--cases", type=case_list, default=CASES, help="some of 1,2,3,4 (default all)")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--trace-dir", type=Path, default=None, help="keep both sides' traces here")
    argv = sys.argv[1:]
    a = ap.parse_args(argv)
    if a.quick:
        if not any(x == "--seeds" or x.startswith("--seeds=") for x in argv):
            a.seeds = QUICK_SEEDS
        if not any(x == "--duration" or x.startswith("--duration=") for x in argv):
            a.duration = QUICK_DURATION
    if not ns2_ready(ap, a):
        return 1
    if a.trace_dir is not None:
        a.trace_dir.mkdir(parents=True, exist_ok=True)
    seeds = list(range(1, a.seeds + 1))
    print(f"# {a.seeds} seeds, connections from {a.start:g} s measured for {a.duration:g} s; "
          f"each cell: tcplab / ns-2.35, mean ± standard error (z = difference / its standard error, * |z| > 2)")
    print("| case | " + " | ".join(h for _, h, _, _ in MEASURES)
          + " | tcplab frame errors | ns-2 RTS refused busy | ns-2 RTR drops |")
    print("|---" * (len(MEASURES) + 4) + "|")
    for c, ours, theirs in run_all(a.cases, seeds, a.duration, a.jobs, a.trace_dir, a.start):
        reasons = sorted({k for r in theirs for k in r["rtr_drops"]})
        drops = ", ".join(f"{k} {statistics.mean(r['rtr_drops'].get(k, 0) for r in theirs):.1f}"
                          for k in reasons) or "0"
        fer = mean_se([r["frame_errors"] for r in ours], 0, 0)
        busy = mean_se([r["rts_busy"] for r in theirs], 0, 0)
        print("| " + " | ".join([c.label] + row_cells(ours, theirs) + [fer, busy, drops]) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
