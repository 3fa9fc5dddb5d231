"""The routing study's 8-station string in tcplab and in ns-2.35, side by side.

python/tcplab/studies/routing.py's static experiment, cross-checked:

    python validation/routing_ns2.py [--hops 1,3,5,7] [--seeds 5] [--duration 100]
    python validation/routing_ns2.py --protocols dsdv --variants newreno,vegas --hops 1-7
    python validation/routing_ns2.py --seeds 2 --duration 30          # a quick check

tcplab's side is `tcplab.studies.routing.scenario(protocol, variant, hops,
...)` exactly as the study builds it (8 stations 250 m apart whatever the
hop count, every station running the protocol, one connection n0 -> n<h>,
the ns2 TCP profile), run twice: as it is (`study`: the standard wireless
profile) and with `[wireless] profile = "ns2"` (`ns2`: ns-2.35's MAC, ARP,
queue and routing rules, DSDV ignoring MAC failures, and DSR over
CMUPriQueue). Each run lasts `duration` + 1 s, so the connection, which
starts at 1 s, is measured for `duration` seconds.

ns-2.35's side is validation/wifi_chain_ns2.py's chain Tcl (same radio,
MAC, rates, RTS/CTS, interface queue of 50: PriQueue, or CMUPriQueue for
DSR as ns-2's DSR requires) generated for 7 hops, i.e. the 8 stations,
with the connection's sink moved to node h and the study's variant put in:
Agent/TCP (Tahoe), Agent/TCP/Reno, Agent/TCP/Newreno, Agent/TCP/Sack1 with
Agent/TCPSink/Sack1, and Agent/TCP/Vegas (validation/ns2.py's AGENTS), each
with window_ 32 and packetSize_ 1460, except Vegas: ns-2's Vegas agent puts
packetSize_ on the wire without adding the 40-byte TCP/IP header the other
agents add, so it gets 1500 for the same 1500-byte IP packets (as
validation/ns2.py and validation/multihop_ns2.py). Vegas's thresholds are
ns-2's defaults on both sides (alpha 1, beta 3, gamma 1). ns-2.35 has no
OLSR: `--protocols` takes dsdv, aodv and dsr only.

Measures, as wifi_chain_ns2.py defines them: throughput is the data
acknowledged at the sender over the `duration` seconds after the start
(ns-2: `ack_` x 1460 B, packet 0 being the SYN; `ack_` + 1 for Vegas, whose
agent sends no SYN; tcplab: the flow's `throughput_bps`); retransmissions
are ns-2's `nrexmitpack_` and tcplab's `retransmits`, timeouts `nrexmit_`
and `timeouts`; routing packets are those sent or forwarded (ns-2: `s`/`f`
lines of the protocol's packets at RTR in its trace; tcplab: the stations'
`routing_packets`). Every cell is mean ± standard error over the seeds;
`ratio` is tcplab ns2's mean over ns-2's and `z` the difference over its
standard error (sqrt(se1² + se2²)). A `*` marks |z| > 2.

Known set-up difference not switched here: ns-2.35's wireless TCP senders
start with ssthresh 20 whatever window_ is set to (validation/multihop_ns2.py,
NS2_WIRELESS_SSTHRESH); tcplab's start from the advertised window.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# wifi_chain_ns2 puts the repository root on sys.path (validation.ns2).
from wifi_chain_ns2 import SEGMENT, flow_result, hop_list, mean_se, read_ns2_trace, tcl  # noqa: E402
from multihop_ns2 import NS2_FINISH_PUTS, NS2_TCP_LINES, fmt_z, ns2_ready, ratio, z_value  # noqa: E402

import tcplab  # noqa: E402
from tcplab.studies import routing  # noqa: E402
from validation.ns2 import AGENTS, measure  # noqa: E402

assert SEGMENT == routing.PACKET, "the study and wifi_chain_ns2.py must send the same segments"
NS2_PROTOCOLS = [p for p in routing.PROTOCOLS if p != "olsr"]  # ns-2.35 has no OLSR
LAST = routing.NODES - 1  # wifi_chain_ns2.tcl(LAST, ...) builds the 8 stations
# The connection's lines of that Tcl: the agent (replaced by the variant's)
# and the sink, on the chain's last node (moved to node h).
NS2_SINK_LINES = f"set sink [new Agent/TCPSink]\n$ns attach-agent $n(0) $tcp\n$ns attach-agent $n({LAST}) $sink\n"
SIDES = ["study", "ns2", "ns-2"]


# --- ns-2.35 -------------------------------------------------------------------------

def ns2_tcl(protocol: str, variant: str, hops: int, seed: int, duration: float, trace: str) -> str:
    """wifi_chain_ns2's chain of 8 stations running `protocol`, with the
    connection n0 -> n`hops` of TCP `variant`."""
    t = tcl(LAST, seed, duration, protocol, trace)
    old = NS2_TCP_LINES + NS2_SINK_LINES
    if old not in t or NS2_FINISH_PUTS not in t or f"create-god {routing.NODES}" not in t:
        raise RuntimeError("validation/wifi_chain_ns2.py's Tcl changed: update routing_ns2.ns2_tcl")
    # ns-2's Vegas agent adds no TCP/IP header to packetSize_ (module docstring).
    size = SEGMENT + 40 if variant == "vegas" else SEGMENT
    sink = "Agent/TCPSink/Sack1" if variant == "sack" else "Agent/TCPSink"
    new = (f"set tcp [new {AGENTS[variant]}]\n$tcp set packetSize_ {size}\n$tcp set window_ {routing.WINDOW}\n"
           f"set sink [new {sink}]\n$ns attach-agent $n(0) $tcp\n$ns attach-agent $n({hops}) $sink\n")
    return t.replace(old, new)


def run_ns2(protocol: str, variant: str, hops: int, seed: int, duration: float,
            trace_dir: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory() as d:
        where = trace_dir if trace_dir is not None else Path(d)
        trace = where / f"routing-{protocol}-{variant}-{hops}h-s{seed}.tr"
        path = Path(d) / "string.tcl"
        path.write_text(ns2_tcl(protocol, variant, hops, seed, duration, str(trace)))
        m = measure(["ns", str(path)], cwd=d)
        if m["returncode"] != 0:
            raise RuntimeError(f"ns failed ({protocol} {variant}, {hops} hops, seed {seed}): "
                               f"{m['stderr'].strip()[-500:]}")
        counts = read_ns2_trace(trace)
    res = flow_result(m["stdout"], duration)
    if variant == "vegas":
        # flow_result counts ack_ packets, packet 0 being the SYN; ns-2's
        # Vegas agent sends no SYN, its packet 0 is data (validation/ns2.py, syn_packet).
        ack = int(next(ln for ln in m["stdout"].splitlines() if ln.startswith("flow ")).split()[1])
        res["goodput_bps"] = max(ack + 1, 0) * SEGMENT * 8 / duration
    return {"throughput_bps": res["goodput_bps"], "retransmits": res["retransmits"], "timeouts": res["timeouts"],
            "routing_packets": counts["routing_packets"], "rtr_drops": counts["rtr_drops"]}


# --- tcplab -------------------------------------------------------------------------

def tcplab_scenario(protocol: str, variant: str, hops: int, seed: int, duration: float, side: str):
    """The study's scenario; `side` "ns2": with `[wireless] profile = "ns2"`."""
    sc = routing.scenario(protocol, variant, hops, duration=f"{duration + routing.START:g}s", seed=seed)
    if side == "ns2":
        sc.data["wireless"]["profile"] = "ns2"
    return sc


def run_tcplab(protocol: str, variant: str, hops: int, seed: int, duration: float, side: str) -> dict:
    r = tcplab.run(tcplab_scenario(protocol, variant, hops, seed, duration, side))
    f = r.columns("flows")
    n = r.columns("nodes")
    # ns-2's figure is the data its sender saw acknowledged: tcplab's
    # throughput_bps (wifi_chain_ns2.run_tcplab).
    return {"throughput_bps": f["throughput_bps"][0], "retransmits": f["retransmits"][0],
            "timeouts": f["timeouts"][0], "routing_packets": sum(n["routing_packets"]),
            "mac_drops": sum(n["drops_retry_limit"])}


# --- the table ------------------------------------------------------------------------

def name_list(allowed: list[str], what: str):
    def parse(spec: str) -> list[str]:
        xs = [x.strip() for x in spec.split(",") if x.strip()]
        bad = [x for x in xs if x not in allowed]
        if not xs or bad:
            raise argparse.ArgumentTypeError(f"--{what}: expected some of {','.join(allowed)}, got {spec!r}")
        return xs
    return parse


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hops", type=hop_list, default=hop_list("1,3,5,7"), help="a,b,c, a-b or N (1..N); 1..7")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", type=float, default=100.0, help="seconds measured after the connection's start")
    ap.add_argument("--protocols", type=name_list(NS2_PROTOCOLS, "protocols"), default=NS2_PROTOCOLS,
                    help=f"some of {','.join(NS2_PROTOCOLS)} (ns-2.35 has no OLSR)")
    ap.add_argument("--variants", type=name_list(routing.VARIANTS, "variants"), default=routing.VARIANTS,
                    help=f"some of {','.join(routing.VARIANTS)}")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--trace-dir", type=Path, default=None, help="keep ns-2's traces here")
    a = ap.parse_args()
    if max(a.hops) > LAST:
        ap.error(f"--hops: the string has {routing.NODES} stations, at most {LAST} hops")
    if not ns2_ready(ap, a):
        return 1
    if a.trace_dir is not None:
        a.trace_dir.mkdir(parents=True, exist_ok=True)
    seeds = list(range(1, a.seeds + 1))
    cells = [(p, v, h) for p in a.protocols for v in a.variants for h in a.hops]
    print(f"# {a.seeds} seeds, {a.duration:g} s from the connection's start; mean ± standard error; "
          f"ratio = tcplab ns2 / ns-2; z = difference / its standard error (* |z| > 2)")
    print("| protocol | variant | hops | tcplab study (kbit/s) | tcplab ns2 | ns-2 | ratio | z "
          "| rtx study | rtx ns2 | rtx ns-2 | ratio | z | timeouts study | timeouts ns2 | timeouts ns-2 "
          "| routing pkts study | routing pkts ns2 | routing pkts ns-2 |")
    print("|---" * 19 + "|")
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        # Everything submitted at once, so the pool never waits for a row.
        futures = {(c, side): [pool.submit(run_ns2, *c, s, a.duration, a.trace_dir) if side == "ns-2"
                               else pool.submit(run_tcplab, *c, s, a.duration, side) for s in seeds]
                   for c in cells for side in SIDES}
        for c in cells:
            res = {side: [f.result() for f in futures[(c, side)]] for side in SIDES}

            def col(side, k, scale=1.0):
                return [r[k] / scale for r in res[side]]

            row = [routing.LABELS[c[0]], routing.LABELS[c[1]], str(c[2])]
            for k, scale, digits in (("throughput_bps", 1e3, 1), ("retransmits", 1.0, 1)):
                ours, theirs = col("ns2", k, scale), col("ns-2", k, scale)
                z = z_value(ours, theirs)
                row += [mean_se(col("study", k, scale), digits), mean_se(ours, digits), mean_se(theirs, digits),
                        ratio(ours, theirs), fmt_z(z) + ("*" if z is not None and abs(z) > 2 else "")]
            row += [mean_se(col(side, "timeouts")) for side in SIDES]
            row += [mean_se(col(side, "routing_packets"), 0, 0) for side in SIDES]
            print("| " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
