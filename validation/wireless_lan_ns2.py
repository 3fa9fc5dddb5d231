"""The 50-node network of ns-2.35's own wireless test suites in tcplab and
in ns-2.35, side by side (docs/validation.md, "50 nodes, 20 CBR flows").

    python validation/wireless_lan_ns2.py [--routing aodv,dsr,dsdv] [--seeds 5]
        [--duration 500] [--interval SECONDS]

ns-2.35's test-suite-wireless-lan*, -lan-aodv and -shadowing run 50 nodes
in a 670 m x 670 m field with 20 CBR connections (ns2-examples'
mobility/scene/scen-670x670-50-600-20-0 and cbr-50-20-4-512). Those
files' node movements start at 600 s: before that the network is static,
which tcplab can run. This script reads the two files, places the nodes
where the scene puts them, starts the same 20 flows (512-byte CBR packets
every 4 s with ns-2's `random_ 1` jitter, at the files' start times) and
runs both simulators for `duration` seconds (at most 600) with the chain
comparison's radio: two-ray ground, ns-2.35's WaveLAN thresholds (250 m
receive, 550 m carrier sense), 2 Mbit/s data and 1 Mbit/s basic rate,
RTS/CTS before every unicast data frame, interface queue 50 (ns-2's DSR
with its CMUPriQueue, tcplab's too), tcplab with `[wireless] profile =
"ns2"`. `--interval` gives every flow another interval (0.25 s: 16 times
the load; 0.05 s: 80 times, 1.7 Mbit/s offered, which congests the field).
A seed on which ns-2 crashes (its DSR segfaults in some heavily loaded
runs) is left out on both sides and named under the table.

Each run reports, per simulator: the packets sent and delivered (ns-2's
agent-level trace, tcplab's flows table; tcplab's payload is 504 bytes so
that its 532-byte IP packet, with its 8-byte UDP header, is ns-2's 512
bytes plus the 20-byte IP header its routing agent adds), and the routing
packets sent and forwarded (ns-2's router-level trace; tcplab's nodes
table). No timing: the numbers are for docs/validation.md.
"""
from __future__ import annotations

import argparse
import gzip
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation.ns2 import available, measure  # noqa: E402
from validation.wifi_chain_ns2 import NS2_ROUTING_TYPES  # noqa: E402

SCENES = Path("/usr/share/doc/ns2/examples/tcl/mobility/scene")
SCENE = "scen-670x670-50-600-20-0"
TRAFFIC = "cbr-50-20-4-512"
FIELD = 670.0
# ns-2's UDP agent sends the CBR's 512 bytes, its routing agent adds a
# 20-byte IP header: 532 on the air. tcplab's UDP/IP headers are 28 bytes.
NS2_PACKET = 512
PAYLOAD = NS2_PACKET + 20 - 28


def read_text(path: Path) -> str:
    """A scene file, gzipped as ns2-examples ships it or not."""
    for p in (path, path.with_name(path.name + ".gz")):
        if p.exists():
            return gzip.open(p, "rt").read() if p.suffix == ".gz" else p.read_text()
    raise FileNotFoundError(f"{path}(.gz) not found: install ns2-examples (apt-get install ns2-examples)")


def read_scene(text: str) -> tuple[list[tuple[float, float]], float]:
    """Node positions (x, y) from `$node_(i) set X_/Y_` lines, and the time
    of the first movement (`$ns_ at T "$node_(i) setdest ..."`)."""
    pos: dict[int, list[float]] = {}
    for i, axis, v in re.findall(r"\$node_\((\d+)\) set ([XY])_ ([-\d.e+]+)", text):
        pos.setdefault(int(i), [0.0, 0.0])["XY".index(axis)] = float(v)
    if sorted(pos) != list(range(len(pos))):
        raise ValueError("the scene's nodes are not numbered 0..n-1")
    moves = [float(t) for t in re.findall(r'\$ns_ at ([\d.e+]+) "\$node_\(\d+\) setdest', text)]
    return [(pos[i][0], pos[i][1]) for i in range(len(pos))], min(moves, default=float("inf"))


def read_traffic(text: str) -> list[dict]:
    """The CBR connections: source and destination node, packet size,
    interval, `random_` and start time, in the file's order."""
    flows: dict[int, dict] = {}
    for node, kind, k in re.findall(r"\$ns_ attach-agent \$node_\((\d+)\) \$(udp|null)_\((\d+)\)", text):
        flows.setdefault(int(k), {})["src" if kind == "udp" else "dst"] = int(node)
    for k, key, v in re.findall(r"\$cbr_\((\d+)\) set (packetSize_|interval_|random_) ([\d.e+]+)", text):
        flows[int(k)][key] = float(v)
    for t, k in re.findall(r'\$ns_ at ([\d.e+]+) "\$cbr_\((\d+)\) start"', text):
        flows[int(k)]["start"] = float(t)
    out = []
    for k in sorted(flows):
        f = flows[k]
        if f.get("packetSize_", NS2_PACKET) != NS2_PACKET:
            raise ValueError(f"cbr_({k}): packet size {f['packetSize_']}, this script assumes {NS2_PACKET}")
        out.append({"src": f["src"], "dst": f["dst"], "interval": f["interval_"],
                    "random": bool(f.get("random_", 0)), "start": f["start"]})
    return out


def scenario(positions: list, flows: list, routing: str, seed: int, duration: float) -> dict:
    """The network in tcplab, with ns-2.35's rules (`profile = "ns2"`)."""
    return {
        "sim": {"duration": f"{duration}s", "seed": seed},
        "wireless": {
            "propagation": "two_ray_ground", "data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_threshold": 0,
            "routing": routing, "profile": "ns2",
            "ifq": {"kind": "cmupriqueue" if routing == "dsr" else "priqueue", "limit": 50},
        },
        "node": [{"name": f"n{i}", "position": [x, y]} for i, (x, y) in enumerate(positions)],
        "flow": [{
            "name": f"cbr{k}", "from": f"n{f['src']}", "to": f"n{f['dst']}", "transport": "udp",
            "packet_size": PAYLOAD,
            "app": {"kind": "cbr", "interval": f"{f['interval']}s", "start": f"{f['start']}s", "random": f["random"]},
        } for k, f in enumerate(flows)],
    }


def tcl(positions: list, flows: list, routing: str, seed: int, duration: float, trace: str) -> str:
    """The same network in ns-2.35 (its own Tcl API; the nodes placed and
    the flows started as the test suites' scene files do)."""
    nn = len(positions)
    ifq = "CMUPriQueue" if routing == "dsr" else "Queue/DropTail/PriQueue"
    place = "".join(f"$n({i}) set X_ {x}\n$n({i}) set Y_ {y}\n$n({i}) set Z_ 0.0\n"
                    for i, (x, y) in enumerate(positions))
    traffic = "".join(f"""set udp({k}) [new Agent/UDP]
$ns attach-agent $n({f['src']}) $udp({k})
set null({k}) [new Agent/Null]
$ns attach-agent $n({f['dst']}) $null({k})
set cbr({k}) [new Application/Traffic/CBR]
$cbr({k}) set packetSize_ {NS2_PACKET}
$cbr({k}) set interval_ {f['interval']}
$cbr({k}) set random_ {int(f['random'])}
$cbr({k}) attach-agent $udp({k})
$ns connect $udp({k}) $null({k})
$ns at {f['start']} "$cbr({k}) start"
""" for k, f in enumerate(flows))
    return f"""set ns [new Simulator]
ns-random 0
$defaultRNG seed {seed + 1}
set tr [open {trace} w]
$ns trace-all $tr
set topo [new Topography]
$topo load_flatgrid {FIELD} {FIELD}
create-god {nn}
set chan [new Channel/WirelessChannel]
Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 0
$ns node-config -adhocRouting {routing.upper()} -llType LL -macType Mac/802_11 \\
  -ifqType {ifq} -ifqLen 50 -antType Antenna/OmniAntenna \\
  -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \\
  -topoInstance $topo -agentTrace ON -routerTrace ON -macTrace OFF -movementTrace OFF
for {{set i 0}} {{$i < {nn}}} {{incr i}} {{
  set n($i) [$ns node]
  $n($i) random-motion 0
}}
{place}{traffic}proc finish {{}} {{
  global tr
  close $tr
  exit 0
}}
$ns at {duration} "finish"
$ns run
"""


IP_FIELD = re.compile(r"\[(\d+):\d+ (\d+):\d+ ")


def read_trace(path: Path) -> dict:
    """From an ns-2 wireless trace (old format): CBR packets sent and
    received at the agents, per (source, destination) node pair, and the
    routing packets sent or forwarded at the routing layer."""
    sent: dict[tuple, int] = {}
    got: dict[tuple, int] = {}
    routing = 0
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 7:
                continue
            ev, layer, kind = parts[0], parts[3], parts[6]
            if layer == "AGT" and kind == "cbr" and ev in ("s", "r"):
                m = IP_FIELD.search(line)
                pair = (int(m.group(1)), int(m.group(2)))
                (sent if ev == "s" else got)[pair] = (sent if ev == "s" else got).get(pair, 0) + 1
            elif layer == "RTR" and ev in ("s", "f") and kind in NS2_ROUTING_TYPES:
                routing += 1
    return {"sent": sent, "delivered": got, "routing_packets": routing}


class Ns2Crashed(RuntimeError):
    """ns exited with a status other than 0 (ns-2.35's DSR segfaults in some
    heavily loaded runs: exit status 139 at 80 times the suites' rate)."""


def run_ns2(positions, flows, routing, seed, duration) -> dict:
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "lan.tr"
        path = Path(d) / "lan.tcl"
        path.write_text(tcl(positions, flows, routing, seed, duration, str(trace)))
        m = measure(["ns", str(path)], cwd=d)
        if m["returncode"] != 0:
            raise Ns2Crashed(f"exit status {m['returncode']}: {m['stderr'].strip()[-300:]}")
        return read_trace(trace)


def run_tcplab(positions, flows, routing, seed, duration) -> dict:
    r = tcplab.run(scenario(positions, flows, routing, seed, duration))
    f, n = r.columns("flows"), r.columns("nodes")
    sent: dict[tuple, int] = {}
    got: dict[tuple, int] = {}
    for k, fl in enumerate(flows):
        pair = (fl["src"], fl["dst"])
        sent[pair] = sent.get(pair, 0) + int(f["packets_sent"][k])
        got[pair] = got.get(pair, 0) + int(f["bytes_delivered"][k]) // PAYLOAD
    return {"sent": sent, "delivered": got, "routing_packets": int(sum(n["routing_packets"]))}


def summary(runs: list[dict]) -> dict:
    """Per-run totals: sent, delivered, delivery ratio, routing packets and
    routing packets per delivered packet."""
    out: dict[str, list[float]] = {"sent": [], "delivered": [], "ratio": [], "routing": [], "per_delivered": []}
    for r in runs:
        s, d = sum(r["sent"].values()), sum(r["delivered"].values())
        out["sent"].append(s)
        out["delivered"].append(d)
        out["ratio"].append(d / s if s else 0.0)
        out["routing"].append(r["routing_packets"])
        out["per_delivered"].append(r["routing_packets"] / d if d else float("nan"))
    return out


def mean_se(v: list[float], digits: int = 1) -> str:
    m = statistics.mean(v)
    if len(v) < 2:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} ± {statistics.stdev(v) / len(v) ** 0.5:.{digits}f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--routing", default="aodv,dsr,dsdv", help="comma-separated: aodv, dsr, dsdv")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", type=float, default=500.0)
    ap.add_argument("--interval", type=float, default=None, help="every flow's CBR interval (s); the file's 4 s if not given")
    ap.add_argument("--scenes", type=Path, default=SCENES, help="ns2-examples' mobility/scene directory")
    a = ap.parse_args(argv)
    protocols = a.routing.split(",")
    bad = [p for p in protocols if p not in ("aodv", "dsr", "dsdv")]
    if bad:
        ap.error(f"--routing: unknown {bad}; use aodv, dsr, dsdv")
    if a.seeds < 1 or a.duration <= 0:
        ap.error("--seeds and --duration must be positive")
    if a.interval is not None and a.interval <= 0:
        ap.error("--interval must be positive")
    if not available():
        print("ns-2 is not installed (apt-get install ns2 ns2-examples)", file=sys.stderr)
        return 2
    positions, first_move = read_scene(read_text(a.scenes / SCENE))
    if a.duration > first_move:
        ap.error(f"--duration: the scene's nodes start moving at {first_move:g} s; tcplab's nodes do not move")
    flows = read_traffic(read_text(a.scenes / TRAFFIC))
    if a.interval is not None:
        flows = [{**f, "interval": a.interval} for f in flows]
    print(f"{len(positions)} nodes, {len(flows)} CBR flows, {a.duration:g} s, seeds 1-{a.seeds}; "
          "tcplab / ns-2.35, means per run ± standard error")
    print("| routing | packets sent | packets delivered | delivery ratio | routing packets "
          "| routing packets per delivered | largest per-pair difference in delivered (mean over seeds) |")
    print("|---|---|---|---|---|---|---|")
    crashes = []
    for proto in protocols:
        runs = []
        for s in range(1, a.seeds + 1):
            try:
                ns2_run = run_ns2(positions, flows, proto, s, a.duration)
            except Ns2Crashed as e:
                # Left out on both sides, and said so under the table.
                crashes.append(f"{proto.upper()} seed {s} ({str(e).splitlines()[0][:40]})")
                continue
            runs.append((run_tcplab(positions, flows, proto, s, a.duration), ns2_run))
        if not runs:
            print(f"| {proto.upper()} | ns-2 crashed on every seed |")
            continue
        t, n = summary([r[0] for r in runs]), summary([r[1] for r in runs])
        gap = statistics.mean(max(abs(x["delivered"].get(p, 0) - y["delivered"].get(p, 0))
                                  for p in set(x["sent"]) | set(y["sent"])) for x, y in runs)
        cells = [f"{mean_se(t[k], d)} / {mean_se(n[k], d)}" for k, d in
                 (("sent", 1), ("delivered", 1), ("ratio", 3), ("routing", 0), ("per_delivered", 2))]
        print(f"| {proto.upper()} | " + " | ".join(cells) + f" | {gap:.1f} |")
        sys.stdout.flush()
    if crashes:
        print("ns-2.35 crashed on " + "; ".join(crashes) + ": those seeds are left out on both sides.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
