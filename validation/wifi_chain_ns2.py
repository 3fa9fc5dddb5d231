"""TCP over 802.11 chains in tcplab and in ns-2.35's wireless model, side
by side (docs/validation.md, "802.11 chains").

    python validation/wifi_chain_ns2.py [--seeds 3] [--duration 100] [--hops 7]
    python validation/wifi_chain_ns2.py --routing aodv --hops 2,4,8,16,32 --duration 50
    python validation/wifi_chain_ns2.py --routing aodv --hops 32 --net-diameter 64

The chain: nodes 250 m apart on a line, two-ray ground, ns-2.35's WaveLAN
radio (250 m receive, 550 m carrier-sense range), 2 Mbit/s data, 1 Mbit/s
basic rate, RTS/CTS on every data frame, interface queue 50, one NewReno
flow from the first node to the last with 1460-byte segments and a 32-packet
window, started at 1 s and measured for `duration` seconds. `--hops N` runs
1..N hops, `--hops 2,4,8` those hop counts, `--hops 2-8` that range.

`--routing static` (the default) runs static shortest-hop routing on both
sides: ns-2.35 has no multi-hop static routing for wireless nodes, so its
side loads benchmarks/ns2/static_route.cc's agent into ns (built on first
use by benchmarks/ns2/build_static_route.sh; a MAC retry-limit drop loses
the frame and nothing else, as in tcplab). Before that module existed the
ns-2 side of a "static" chain ran AODV (docs/validation.md);
`--routing aodv|dsdv|dsr` runs that protocol on both sides (ns-2's DSR with
its CMUPriQueue interface queue, as ns-2 requires, and tcplab's over the
same queue, `ifq = { kind = "cmupriqueue" }`). `--net-diameter` sets
tcplab's `[wireless.aodv] net_diameter` (ns-2.35 hard-codes 30);
`--dsdv-no-mac-failures` makes tcplab's DSDV ignore MAC failures as
ns-2.35's does and `--dsdv-ns2-advertising` hold changed routes back as
ns-2.35's does (ns2_advertising = true); `--aodv-no-new-ring` makes tcplab's AODV search a
destination it never reached network-wide at once, as ns-2.35 does in
effect; `--aodv-hold-down 10` makes it hold a destination down for 10 s
after a discovery gives up, as ns-2.35 does (MAX_RREQ_TIMEOUT);
`--aodv-local-repair` makes it repair a route broken near its destination
locally, as ns-2.35 built with AODV_LOCAL_REPAIR does (local_repair = true);
`--aodv-per-hop-time` makes it wait for a request's answer by the last
discoveries' latency per hop, as ns-2.35's PerHopTime (ns2_per_hop_time = true),
and `--aodv-retry-ticks` repeat requests only at its 0.5 s route-table purges
or with a new packet, as ns-2.35's rt_purge (retry_ticks = "0.5s");
`--aodv-ns2-local-repair` makes its local repair ns-2.35's as coded
(local_repair and ns2_local_repair = true), and `--aodv-ns2-route-errors`
its route errors ns-2.35's (ns2_route_errors = true), and
`--aodv-release-spacing` send the packets a reply frees 10 ms apart, as
ns-2.35's ARP_DELAY (release_spacing = "10ms"), and `--aodv-ns2-lifetimes`
keep route lifetimes as ns-2.35's code does (ns2_lifetimes = true).
`--ns2-mac` gives tcplab's 802.11 MAC ns-2.35's reception, CTS and EIFS
rules (`[wireless.mac] ns2_reception, ns2_cts, ns2_eifs = true`;
docs/models.md), `--ns2-backoff` its backoff rules (`ns2_backoff = true`)
and `--no-cca` its instant carrier sense (`cca_time = 0`);
`--dsr-ns2-backoff` gives its DSR ns-2.35's route request schedule
(`[wireless.dsr] ns2_request_backoff = true`) and `--dsr-flow-state`
ns-2.35's flow state (`[wireless.dsr] flow_state = true`; likewise
`--dsr-release-spacing`, `--dsr-salvage-discovery`, `--dsr-ns2-cache`,
`--dsr-grat-errors`, `--dsr-buffer-checks`; `--dsdv-ns2-ip-header` and
`--dsr-ns2-ip-header`, ns-2.35's second IP header on TCP packets;
`--dsr-ns2-request-size`, its growing route requests);
`--ns2-profile` sets
`[wireless] profile = "ns2"`, all of ns-2.35's switches at once.

`--mac-drops` (static routing) adds a table of the TCP segments and ACKs
the MACs dropped at the retry limit per run on both sides (ns-2's MAC
trace, tcplab's nodes.csv and trace.csv) and the retransmissions beyond
those segments.

With `--trace-dir DIR --dsdv-log`, ns-2.35's DSDV also writes its own log
(DIR/chain-dsdv-<h>h-s<seed>.dsdv, read by validation/dsdv_trace.py).

ns-2's router-level trace goes to a temporary file (or `--trace-dir`) and is
read for the routing packets sent (`s` and `f` lines of AODV, DSDV's
`message` or DSR packets at RTR) and the data packets (TCP segments and
ACKs) the routing layer dropped, by reason (CBK: the MAC's link-failure
callback, NRTE: no route, ...).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation.ns2 import available, measure, run_tcl, static_route_module  # noqa: E402

SEGMENT = 1460


def scenario(hops: int, seed: int, duration: float, routing: str = "static", ns2_profile: bool = False) -> dict:
    """The chain in tcplab; `ns2_profile`: with `[wireless] profile = "ns2"`."""
    sc = {
        "sim": {"duration": f"{duration + 1}s", "seed": seed},
        "wireless": {
            "propagation": "two_ray_ground", "data_rate": "2Mbps", "basic_rate": "1Mbps",
            "rts_threshold": 0, "routing": routing,
            # ns-2's DSR needs its CMUPriQueue (the Tcl below), the others
            # run its PriQueue: the same kind of queue on both sides.
            "ifq": {"kind": "cmupriqueue" if routing == "dsr" else "priqueue", "limit": 50},
        },
        "node": [{"name": f"n{i}", "position": [250.0 * i, 0.0]} for i in range(hops + 1)],
        "flow": [{
            "name": "chain", "from": "n0", "to": f"n{hops}", "transport": "newreno",
            "packet_size": SEGMENT, "window": 32, "app": {"kind": "bulk", "start": 1.0},
        }],
    }
    if ns2_profile:
        sc["wireless"]["profile"] = "ns2"
    return sc


def tcl(hops: int, seed: int, duration: float, routing: str = "static", trace: str = "/dev/null",
        mac_trace: bool = False, dsdv_log: str | None = None) -> str:
    nn = hops + 1
    # ns-2.35's DSDV writes its own log (routes taken with their
    # advertise_ok_at, periodic dumps, triggered entries, buffered packets)
    # when verbose_ is set and each agent has a trace target; neither
    # changes what it does (docs/validation.md, "ns-2's DSDV: why the first
    # route takes a minute").
    log_open = log_close = log_attach = ""
    if dsdv_log is not None and routing == "dsdv":
        log_open = f"Agent/DSDV set verbose_ 1\nAgent/DSDV set trace_wst_ 1\nset dlog [open {dsdv_log} w]\n"
        log_close = "  global dlog\n  close $dlog\n"
        log_attach = f"""for {{set i 0}} {{$i < {nn}}} {{incr i}} {{
  set dt($i) [new Trace/Generic]
  $dt($i) target [$ns set nullAgent_]
  $dt($i) attach $dlog
  [$n($i) set ragent_] tracetarget $dt($i)
}}
"""
    proto = routing.upper()
    ifq = "CMUPriQueue" if proto == "DSR" else "Queue/DropTail/PriQueue"
    # ns-2.35 has no multi-hop static routing for wireless nodes: the
    # static chain loads benchmarks/ns2/static_route.cc's agent into ns and
    # gives each node its next hop towards every other node.
    static_load = static_routes = ""
    if routing == "static":
        module = static_route_module()
        if module is None:
            raise RuntimeError("the ns-2 side of a static chain needs benchmarks/ns2/build_static_route.sh's "
                               "module (ns-2.35's source headers: set NS2_SRC or enable deb-src)")
        proto = "StaticRoute -rtAgentFunction tcplab-static-route"
        static_load = f"""load {module} Staticroute
Simulator instproc tcplab-static-route {{ node }} {{
  set r [new Agent/StaticRoute]
  $node set ragent_ $r
  return $r
}}
"""
        static_routes = f"""for {{set i 0}} {{$i < {nn}}} {{incr i}} {{
  for {{set j 0}} {{$j < {nn}}} {{incr j}} {{
    if {{$j > $i}} {{ [$n($i) set ragent_] route $j [expr {{$i + 1}}] }}
    if {{$j < $i}} {{ [$n($i) set ragent_] route $j [expr {{$i - 1}}] }}
  }}
}}
"""
    rtr = "OFF" if trace == "/dev/null" else "ON"
    mac = "ON" if mac_trace and trace != "/dev/null" else "OFF"
    return f"""
{static_load}set ns [new Simulator]
{log_open}ns-random 0
$defaultRNG seed {seed + 1}
set tr [open {trace} w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid {250 * nn + 100} 100
create-god {nn}
set chan [new Channel/WirelessChannel]
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
$ns node-config -adhocRouting {proto} -llType LL -macType Mac/802_11 \\
  -ifqType {ifq} -ifqLen 50 -antType Antenna/OmniAntenna \\
  -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \\
  -topoInstance $topo -agentTrace OFF -routerTrace {rtr} -macTrace {mac} -movementTrace OFF
for {{set i 0}} {{$i < {nn}}} {{incr i}} {{
  set n($i) [$ns node]
  $n($i) random-motion 0
  $n($i) set X_ [expr 10.0 + $i * 250.0]
  $n($i) set Y_ 10.0
  $n($i) set Z_ 0.0
}}
{log_attach}{static_routes}set tcp [new Agent/TCP/Newreno]
$tcp set packetSize_ {SEGMENT}
$tcp set window_ 32
set sink [new Agent/TCPSink]
$ns attach-agent $n(0) $tcp
$ns attach-agent $n({hops}) $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 1.0 "$ftp start"
proc finish {{}} {{
  global tcp tr
  puts "flow [$tcp set ack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_]"
  close $tr
{log_close}  exit 0
}}
$ns at {duration + 1} "finish"
$ns run
"""


def run_reporting(t: str, values: str, names: str) -> list[str]:
    """Run chain Tcl `t` (from `tcl`) with its finish proc printing the Tcl
    `values` (its globals `names`) instead of the TCP flow's line; the
    printed fields."""
    t = t.replace('puts "flow [$tcp set ack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_]"',
                  f'puts "report {values}"').replace("global tcp tr", f"global {names} tr")
    m = run_tcl(t)
    return next(ln for ln in m["stdout"].splitlines() if ln.startswith("report ")).split()[1:]


def udp_saturation(hops: int, seed: int, duration: float, routing: str = "static") -> tuple[int, int]:
    """Packets delivered over the chain by a saturating CBR source
    (1020-byte IP packets at 12 Mbit/s offered, from 1 s for `duration`
    seconds): ns-2.35 and tcplab's ns2 profile. No TCP: with static routing
    (ns-2: the static routing module) the MAC and PHY alone; with a routing
    protocol also its messages through full interface queues."""
    t = tcl(hops, seed, duration, routing)
    udp = f"""set udp [new Agent/UDP]
$ns attach-agent $n(0) $udp
set sink [new Agent/LossMonitor]
$ns attach-agent $n({hops}) $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 1000
$cbr set rate_ 12Mb
$cbr attach-agent $udp
$ns at 1.0 "$cbr start"
"""
    # ns-2's UDP agent sends 1000 bytes, its routing agent adds the IP header.
    t = t[:t.index("set tcp [new Agent/TCP/Newreno]")] + udp + t[t.index("proc finish"):]
    theirs = int(run_reporting(t, "[$sink set npkts_]", "sink")[0])
    sc = scenario(hops, seed, duration, routing, ns2_profile=True)
    # 992 bytes of payload and 28 of UDP/IP headers: ns-2's 1020-byte packet.
    sc["flow"] = [{"name": "udp", "from": "n0", "to": f"n{hops}", "transport": "udp", "packet_size": 992,
                   "app": {"kind": "cbr", "rate": "12Mbps", "start": 1.0}}]
    f = tcplab.run(sc).columns("flows")
    ours = round(f["goodput_bps"][0] * duration / (992 * 8))
    return theirs, ours


def two_way(hops: int, seed: int, duration: float, routing: str = "static") -> dict[str, list[float]]:
    """Two NewReno flows in opposite directions over the chain, n0 -> nH
    from 1 s and nH -> n0 from 1.5 s (each with its own sink, so each
    flow's data share the radio with the other's data and both flows'
    ACKs): goodput of each in kbit/s, ns-2.35 and tcplab's ns2 profile."""
    t = tcl(hops, seed, duration, routing)
    back = f"""set tcp2 [new Agent/TCP/Newreno]
$tcp2 set packetSize_ {SEGMENT}
$tcp2 set window_ 32
set sink2 [new Agent/TCPSink]
$ns attach-agent $n({hops}) $tcp2
$ns attach-agent $n(0) $sink2
$ns connect $tcp2 $sink2
set ftp2 [new Application/FTP]
$ftp2 attach-agent $tcp2
$ns at 1.5 "$ftp2 start"
"""
    t = t.replace("proc finish", back + "proc finish", 1)
    acks = run_reporting(t, "[$tcp set ack_] [$tcp2 set ack_]", "tcp tcp2")
    theirs = [max(int(a), 0) * SEGMENT * 8 / duration / 1e3 for a in acks]
    sc = scenario(hops, seed, duration, routing, ns2_profile=True)
    sc["flow"].append({**sc["flow"][0], "name": "back", "from": f"n{hops}", "to": "n0",
                       "app": {"kind": "bulk", "start": 1.5}})
    f = tcplab.run(sc).columns("flows")
    # Both sides count the data acknowledged at the sender (see run_tcplab).
    ours = [x / 1e3 for x in f["throughput_bps"][:2]]
    return {"ns2": theirs, "tcplab": ours}


# ns-2's packet type names of the routing protocols' own packets.
NS2_ROUTING_TYPES = {"AODV", "message", "DSR"}


def read_ns2_trace(path: Path) -> dict:
    """Routing packets sent and data packets dropped at the routing layer,
    from an ns-2 wireless trace (old format: `s|r|f|D time _node_ RTR ...`),
    and, when the trace has the MAC's lines, the TCP segments and ACKs its
    MACs dropped at the retry limit (`D time _node_ MAC RET uid tcp|ack`;
    ns-2 also logs the RTS of such a frame, not counted)."""
    sent = 0
    drops: dict[str, int] = {}
    retry_drops = {"tcp": 0, "ack": 0}
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 7:
                continue
            if parts[3] == "MAC":
                if parts[0] == "D" and parts[4] == "RET" and parts[6] in retry_drops:
                    retry_drops[parts[6]] += 1
                continue
            if parts[3] != "RTR":
                continue
            ev, kind = parts[0], parts[6]
            if ev in ("s", "f") and kind in NS2_ROUTING_TYPES:
                sent += 1
            elif ev == "D" and kind in ("tcp", "ack"):
                drops[parts[4]] = drops.get(parts[4], 0) + 1
    return {"routing_packets": sent, "rtr_drops": drops, "retry_drops": retry_drops}


def run_ns2(hops: int, seed: int, duration: float, routing: str = "static", trace_dir: Path | None = None,
            mac_trace: bool = False, dsdv_log: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as d:
        where = trace_dir if trace_dir is not None else Path(d)
        trace = where / f"chain-{routing}-{hops}h-s{seed}.tr"
        log = str(where / f"chain-dsdv-{hops}h-s{seed}.dsdv") if dsdv_log else None
        path = Path(d) / "chain.tcl"
        path.write_text(tcl(hops, seed, duration, routing, str(trace), mac_trace, log))
        m = measure(["ns", str(path)], cwd=d)
        if m["returncode"] != 0:
            raise RuntimeError(f"ns failed: {m['stderr'].strip()[-500:]}")
        counts = read_ns2_trace(trace)
    return {**flow_result(m["stdout"], duration), "cpu_s": m["cpu_s"], **counts}


def flow_result(stdout: str, duration: float) -> dict:
    """Goodput, retransmissions and timeouts from the `flow` line the
    script's `finish` prints."""
    line = next(ln for ln in stdout.splitlines() if ln.startswith("flow "))
    ack, rtx, timeouts = (int(x) for x in line.split()[1:4])
    # ack_ is the last packet acknowledged; packet 0 is the SYN (syn_ on).
    return {"goodput_bps": max(ack, 0) * SEGMENT * 8 / duration, "retransmits": rtx, "timeouts": timeouts}


# tcplab's switches towards ns-2.35's algorithms: run_tcplab's keyword, its
# command-line flag, the [wireless] table and keys it sets (for the
# routing protocol named, or for every run when None), and the help text.
SWITCHES = [
    ("new_destination_ring", "--aodv-no-new-ring", "aodv", {"new_destination_ring": False},
     "tcplab's AODV searches new destinations network-wide at once, as ns-2.35 (new_destination_ring = false)"),
    ("local_repair", "--aodv-local-repair", "aodv", {"local_repair": True},
     "tcplab's AODV repairs a route broken near its destination locally, as ns-2.35 built with "
     "AODV_LOCAL_REPAIR (local_repair = true)"),
    ("aodv_per_hop_time", "--aodv-per-hop-time", "aodv", {"ns2_per_hop_time": True},
     "tcplab's AODV waits for a request's answer by the last discoveries' latency per hop, as ns-2.35 "
     "(PerHopTime; [wireless.aodv] ns2_per_hop_time = true)"),
    ("aodv_retry_ticks", "--aodv-retry-ticks", "aodv", {"retry_ticks": "0.5s"},
     "tcplab's AODV repeats requests only at 0.5 s route-table purges or with a new packet, as ns-2.35 "
     "(rt_purge; [wireless.aodv] retry_ticks = \"0.5s\")"),
    ("aodv_ns2_local_repair", "--aodv-ns2-local-repair", "aodv", {"local_repair": True, "ns2_local_repair": True},
     "tcplab's AODV repairs locally as ns-2.35's code does: the route kept as it was, no route error, the "
     "repair timer by the request's absolute deadline ([wireless.aodv] ns2_local_repair = true)"),
    ("aodv_ns2_route_errors", "--aodv-ns2-route-errors", "aodv", {"ns2_route_errors": True},
     "tcplab's AODV sends and obeys route errors as ns-2.35's code does: one on every break that brings a "
     "route down, precursors or not; a received one obeyed only if not older than the route, emptying the "
     "queue for its sender ([wireless.aodv] ns2_route_errors = true)"),
    ("aodv_release_spacing", "--aodv-release-spacing", "aodv", {"release_spacing": "10ms"},
     "tcplab's AODV sends the packets a route reply frees 10 ms apart, as ns-2.35's ARP_DELAY "
     "([wireless.aodv] release_spacing = \"10ms\")"),
    ("aodv_ns2_lifetimes", "--aodv-ns2-lifetimes", "aodv", {"ns2_lifetimes": True},
     "tcplab's AODV keeps route lifetimes as ns-2.35's code does: forwarding extends only the route to the "
     "destination; a lapsed route serves until the next purge, which brings it down with its sequence "
     "number raised ([wireless.aodv] ns2_lifetimes = true)"),
    ("dsdv_mac_failures", "--dsdv-no-mac-failures", "dsdv", {"use_mac_failures": False},
     "tcplab's DSDV ignores MAC failures, as ns-2.35's (use_mac_failures = false)"),
    ("dsdv_ns2_advertising", "--dsdv-ns2-advertising", "dsdv", {"ns2_advertising": True},
     "tcplab's DSDV holds changed routes back as ns-2.35's does (ns2_advertising = true)"),
    ("dsr_ns2_backoff", "--dsr-ns2-backoff", "dsr", {"ns2_request_backoff": True},
     "tcplab's DSR repeats route requests on ns-2.35's schedule ([wireless.dsr] ns2_request_backoff = true)"),
    ("dsr_flow_state", "--dsr-flow-state", "dsr", {"flow_state": True},
     "tcplab's DSR with ns-2.35's flow state: after a flow's first packets, data packets carry a flow ID "
     "instead of the source route ([wireless.dsr] flow_state = true)"),
    ("dsr_release_spacing", "--dsr-release-spacing", "dsr", {"release_spacing": "30ms"},
     "tcplab's DSR frees its send buffer 30 ms per packet apart, as ns-2.35 ([wireless.dsr] release_spacing)"),
    ("dsr_salvage_discovery", "--dsr-salvage-discovery", "dsr", {"salvage_discovery": True},
     "tcplab's DSR forwarders keep a packet they cannot salvage for one non-propagating request, as "
     "ns-2.35's NEW_SALVAGE_LOGIC ([wireless.dsr] salvage_discovery = true)"),
    ("dsr_ns2_cache", "--dsr-ns2-cache", "dsr", {"ns2_cache": True},
     "tcplab's DSR caches learn as ns-2.35's: onward parts only, and from overheard packets "
     "([wireless.dsr] ns2_cache = true)"),
    ("dsr_grat_errors", "--dsr-grat-errors", "dsr", {"grat_route_errors": True},
     "tcplab's DSR sources put the last route error they received on their next route requests, as "
     "ns-2.35's ([wireless.dsr] grat_route_errors = true)"),
    ("dsr_buffer_checks", "--dsr-buffer-checks", "dsr", {"buffer_check": "30ms", "jitter_own": True},
     "tcplab's DSR takes due discovery steps at send-buffer checks 30-60 ms apart and jitters its own "
     "requests and replies, as ns-2.35's ([wireless.dsr] buffer_check = \"30ms\", jitter_own = true)"),
    ("dsdv_ns2_ip_header", "--dsdv-ns2-ip-header", "dsdv", {"ns2_ip_header": True},
     "tcplab's DSDV counts a second IP header on the TCP packets a node originates, as ns-2.35's "
     "([wireless.dsdv] ns2_ip_header = true)"),
    ("dsr_ns2_ip_header", "--dsr-ns2-ip-header", "dsr", {"ns2_ip_header": True},
     "tcplab's DSR counts a second IP header on the TCP packets a node originates, as ns-2.35's "
     "([wireless.dsr] ns2_ip_header = true)"),
    ("dsr_ns2_request_size", "--dsr-ns2-request-size", "dsr", {"ns2_request_size": True},
     "tcplab's DSR grows a forwarded route request by its whole header at each hop, as ns-2.35's "
     "([wireless.dsr] ns2_request_size = true)"),
    ("ns2_mac", "--ns2-mac", None, {"mac": {"ns2_reception": True, "ns2_cts": True, "ns2_eifs": True}},
     "tcplab's MAC with ns-2.35's reception, CTS and EIFS rules ([wireless.mac] ns2_reception, ns2_cts, "
     "ns2_eifs = true)"),
    ("ns2_backoff", "--ns2-backoff", None, {"mac": {"ns2_backoff": True}},
     "tcplab's MAC draws backoffs from [0, CW - 1] and backs off even on an idle medium, as ns-2.35's "
     "([wireless.mac] ns2_backoff = true)"),
    ("no_cca", "--no-cca", None, {"mac": {"cca_time": "0s"}},
     "tcplab's stations sense a frame as soon as it reaches them, as ns-2.35's ([wireless.mac] cca_time = 0)"),
    ("ns2_profile", "--ns2-profile", None, {"profile": "ns2"},
     "tcplab with [wireless] profile = \"ns2\" (every ns-2.35 switch of the MAC and the routing protocols)"),
]
# Keywords whose default is on: the flag turns the feature off.
ON_BY_DEFAULT = {"new_destination_ring", "dsdv_mac_failures"}


def run_tcplab(hops: int, seed: int, duration: float, routing: str = "static",
               net_diameter: int | None = None, hold_down: float | None = None, mac_drops: bool = False,
               **switches: bool) -> dict:
    """tcplab's chain; `switches`: SWITCHES' keywords (each off unless
    given, but those ON_BY_DEFAULT). `mac_drops`: also the TCP segments
    and ACKs its MACs dropped at the retry limit (from trace.csv, which
    records every dropped segment)."""
    unknown = set(switches) - {kw for kw, *_ in SWITCHES}
    if unknown:
        raise TypeError(f"run_tcplab: unknown switches {sorted(unknown)}")
    sc = scenario(hops, seed, duration, routing)
    for kw, _, table, keys, _ in SWITCHES:
        default = kw in ON_BY_DEFAULT
        if switches.get(kw, default) == default or table not in (None, routing):
            continue
        if table is None:
            for k, v in keys.items():  # nested tables (mac) merge
                if isinstance(v, dict):
                    sc["wireless"].setdefault(k, {}).update(v)
                else:
                    sc["wireless"][k] = v
        else:
            sc["wireless"].setdefault(table, {}).update(keys)
    if routing == "aodv" and net_diameter is not None:
        sc["wireless"].setdefault("aodv", {})["net_diameter"] = net_diameter
    if routing == "aodv" and hold_down is not None:
        sc["wireless"].setdefault("aodv", {})["discovery_hold_down"] = f"{hold_down}s"
    if mac_drops:
        sc["output"] = {"trace": True}
    r = tcplab.run(sc)
    f = r.columns("flows")
    n = r.columns("nodes")
    retry_drops = None
    if mac_drops:
        # trace.csv's drops are the segments lost anywhere; the split holds
        # while the retry limit is the only cause (static routing, no
        # interface-queue overflow, as on these chains).
        if sum(n["drops_ifq"]):
            raise RuntimeError(f"--mac-drops: {sum(n['drops_ifq'])} interface-queue drops in the {hops}-hop chain, "
                               f"seed {seed}: the segments dropped are not all retry-limit drops")
        segments = sum(1 for k in r.columns("trace")["kind"] if k == "drop")
        retry_drops = {"tcp": segments, "ack": sum(n["drops_retry_limit"]) - segments}
    # ns-2's figure is the data its sender saw acknowledged (ack_); tcplab's
    # like for like is throughput_bps (bytes acknowledged at the sender),
    # not goodput_bps (bytes delivered at the receiver, which counts the
    # segments whose ACKs are still on their way back when the run ends).
    return {"goodput_bps": f["throughput_bps"][0], "retransmits": f["retransmits"][0], "timeouts": f["timeouts"][0],
            "mac_drops": sum(n["drops_retry_limit"]), "wall_s": r.summary["wall_s"],
            "routing_packets": sum(n["routing_packets"]) if "routing_packets" in n else None,
            "link_broken": sum(n["drops_link_broken"]) if "drops_link_broken" in n else None,
            "ttl_drops": r.summary["drops_ttl"], "retry_drops": retry_drops}


def mean_se(values: list[float], digits: int = 1, se_digits: int = 1, se: bool = True) -> str:
    """`mean ± standard error` (the error only with `se` and more than one value)."""
    m = f"{statistics.mean(values):.{digits}f}"
    if se and len(values) > 1:
        m += f" ± {statistics.stdev(values) / len(values) ** 0.5:.{se_digits}f}"
    return m


def hop_list(spec: str) -> list[int]:
    """`7` -> 1..7, `2,4,8` -> those, `2-8` -> 2..8."""
    try:
        if "," in spec:
            hops = [int(x) for x in spec.split(",")]
        elif "-" in spec:
            lo, hi = (int(x) for x in spec.split("-"))
            hops = list(range(lo, hi + 1))
        else:
            hops = list(range(1, int(spec) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--hops: expected N, a,b,c or a-b, got {spec!r}") from None
    if not hops or min(hops) < 1:
        raise argparse.ArgumentTypeError(f"--hops: hop counts must be >= 1, got {spec!r}")
    return hops


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--hops", type=hop_list, default=hop_list("7"), help="N (1..N), a,b,c or a-b")
    ap.add_argument("--routing", choices=["static", "aodv", "dsdv", "dsr"], default="static")
    ap.add_argument("--net-diameter", type=int, default=None,
                    help="tcplab's [wireless.aodv] net_diameter (ns-2.35: 30, fixed)")
    ap.add_argument("--aodv-hold-down", type=float, default=None, metavar="SECONDS",
                    help="tcplab's AODV starts no discovery for a destination this long after one "
                         "gave up (discovery_hold_down; ns-2.35: 10)")
    for _, flag, _, _, help_text in SWITCHES:
        ap.add_argument(flag, action="store_true", help=help_text)
    ap.add_argument("--udp", action="store_true",
                    help="instead of TCP, a saturating CBR source (12 Mbit/s offered, 1020-byte packets): "
                         "packets delivered, tcplab's ns2 profile against ns-2.35")
    ap.add_argument("--two-way", action="store_true",
                    help="two NewReno flows in opposite directions (n0 -> nH from 1 s, nH -> n0 from 1.5 s): "
                         "each flow's goodput, tcplab's ns2 profile against ns-2.35")
    ap.add_argument("--mac-drops", action="store_true",
                    help="with --routing static: after the table, the TCP segments and ACKs dropped at the MACs' "
                         "retry limit per run on both sides (ns-2's MAC trace), and the retransmissions beyond "
                         "the segments dropped")
    ap.add_argument("--se", action="store_true",
                    help="goodput, retransmissions and timeouts as mean ± standard error over the seeds")
    ap.add_argument("--trace-dir", type=Path, default=None, help="keep ns-2's traces here")
    ap.add_argument("--mac-trace", action="store_true",
                    help="with --trace-dir: ns-2's MAC-level trace too (RTS/CTS/ACK, drops; "
                         "read by validation/aodv_trace.py ns2mac)")
    ap.add_argument("--dsdv-log", action="store_true",
                    help="with --trace-dir and --routing dsdv: ns-2.35's DSDV log too "
                         "(chain-dsdv-<h>h-s<seed>.dsdv, read by validation/dsdv_trace.py)")
    a = ap.parse_args()
    if a.dsdv_log and (a.trace_dir is None or a.routing != "dsdv"):
        ap.error("--dsdv-log: needs --trace-dir DIR and --routing dsdv")
    if a.mac_drops and a.routing != "static":
        ap.error("--mac-drops: needs --routing static (other routings drop segments for other causes too)")
    if not available():
        print("ns (ns-2.35) is not installed", file=sys.stderr)
        return 1
    if a.udp:
        print("| hops | tcplab packets delivered | ns-2 packets delivered |")
        print("|---|---|---|")
        for hops in a.hops:
            runs = [udp_saturation(hops, s, a.duration, a.routing) for s in range(1, a.seeds + 1)]

            ours, theirs = ([r[i] for r in runs] for i in (1, 0))
            print(f"| {hops} | {mean_se(ours, 0, 0)} | {mean_se(theirs, 0, 0)} |", flush=True)
        return 0
    if a.two_way:
        print("| hops | tcplab n0 -> nH (kbit/s) | ns-2 n0 -> nH | tcplab nH -> n0 | ns-2 nH -> n0 "
              "| tcplab both | ns-2 both |")
        print("|---|---|---|---|---|---|---|")
        for hops in a.hops:
            runs = [two_way(hops, s, a.duration, a.routing) for s in range(1, a.seeds + 1)]
            cells = []
            for i in (0, 1, None):
                for side in ("tcplab", "ns2"):
                    vals = [sum(r[side]) if i is None else r[side][i] for r in runs]
                    cells.append(mean_se(vals, 0, 1))
            print(f"| {hops} | " + " | ".join(cells) + " |", flush=True)
        return 0
    print("| hops | tcplab goodput (kbit/s) | ns-2 goodput (kbit/s) | tcplab rtx | ns-2 rtx "
          "| tcplab timeouts | ns-2 timeouts | tcplab routing pkts | ns-2 routing pkts "
          "| tcplab MAC drops | tcplab link-broken drops | tcplab TTL drops | ns-2 RTR data drops |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    drop_rows = []
    for hops in a.hops:
        seeds = range(1, a.seeds + 1)
        switches = {kw: getattr(a, flag[2:].replace("-", "_")) != (kw in ON_BY_DEFAULT)
                    for kw, flag, _, _, _ in SWITCHES}
        ours = [run_tcplab(hops, s, a.duration, a.routing, net_diameter=a.net_diameter,
                           hold_down=a.aodv_hold_down, mac_drops=a.mac_drops, **switches) for s in seeds]
        theirs = [run_ns2(hops, s, a.duration, a.routing, a.trace_dir, a.mac_trace or a.mac_drops, a.dsdv_log)
                  for s in seeds]
        if a.mac_drops:
            drop_rows.append((hops, ours, theirs))
        mean = lambda rs, k: statistics.mean(r[k] for r in rs)  # noqa: E731

        def cell(rs, k, scale=1.0, digits=1):
            return mean_se([r[k] / scale for r in rs], digits, 1, a.se)

        opt = lambda rs, k: "-" if rs[0][k] is None else f"{mean(rs, k):.1f}"  # noqa: E731
        reasons = sorted({k for r in theirs for k in r["rtr_drops"]})
        drops = ", ".join(f"{k} {statistics.mean(r['rtr_drops'].get(k, 0) for r in theirs):.1f}"
                          for k in reasons) or "0"
        print(f"| {hops} | {cell(ours, 'goodput_bps', 1e3, 0)} | {cell(theirs, 'goodput_bps', 1e3, 0)} "
              f"| {cell(ours, 'retransmits')} | {cell(theirs, 'retransmits')} "
              f"| {cell(ours, 'timeouts')} | {cell(theirs, 'timeouts')} "
              f"| {opt(ours, 'routing_packets')} | {mean(theirs, 'routing_packets'):.1f} "
              f"| {mean(ours, 'mac_drops'):.1f} | {opt(ours, 'link_broken')} | {mean(ours, 'ttl_drops'):.2f} "
              f"| {drops} |",
              flush=True)
    if drop_rows:
        print_retry_drops(drop_rows, a.se)
    return 0


def print_retry_drops(rows: list, se: bool) -> None:
    """`--mac-drops`' table: per run, the TCP segments and ACKs dropped at
    the MACs' retry limit, and the retransmissions beyond those segments
    (resends after timeouts), tcplab against ns-2.35."""
    print()
    print("| hops | tcplab segments dropped | ns-2 segments dropped | tcplab ACKs dropped | ns-2 ACKs dropped "
          "| tcplab rtx - segments dropped | ns-2 rtx - segments dropped |")
    print("|---|---|---|---|---|---|---|")
    for hops, ours, theirs in rows:
        cells = []
        for value in (lambda r: r["retry_drops"]["tcp"], lambda r: r["retry_drops"]["ack"],
                      lambda r: r["retransmits"] - r["retry_drops"]["tcp"]):
            cells += [mean_se([value(r) for r in side], 1, 1, se) for side in (ours, theirs)]
        print(f"| {hops} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
