"""The multihop study's 802.11 chains in tcplab and in ns-2.35, side by side.

python/tcplab/studies/multihop.py's chains, cross-checked:

    python validation/multihop_ns2.py [--hops 2,4,7,16] [--seeds 5] [--duration 100]
    python validation/multihop_ns2.py --configs vegas2 --hops 4 --variants study,ns2,ns2+vzw
    python validation/multihop_ns2.py --seeds 2 --duration 30          # a quick check

tcplab's side is `tcplab.studies.multihop.scenario(hops, config, ...)`
exactly as the study builds it (AODV with net_diameter 64, the standard
wireless profile, the ns2 TCP profile), run for `duration` + 1 s so that
the flow, which starts at 1 s, is measured for `duration` seconds. ns-2.35's
side is validation/wifi_chain_ns2.py's AODV chain (same radio, MAC, rates,
RTS/CTS, PriQueue of 50, flow from node 0 to node h at 1 s, finished at
`duration` + 1 s) with the study's transport put in:

* `newreno`, `newreno+clamp`: Agent/TCP/Newreno with window_ 32 (or h/4,
  rounded up, for the clamp) and packetSize_ 1460;
* `vegas2`, `vegas3`, `vegas4`: Agent/TCP/Vegas with v_alpha_ = v_beta_ =
  2, 3, 4 (v_gamma_ 1 on both sides); ns-2's Vegas agent puts packetSize_
  on the wire without adding the 40-byte TCP/IP header the other agents
  add, so it gets 1500 for the same 1500-byte IP packets (validation/ns2.py
  does the same; ns-2's trace: 1500 bytes at RTR, 1558 at the MAC, as the
  NewReno agent's segments);
* `udp 10ms` (config `udp`, one row per `--udp-intervals` value):
  Application/Traffic/CBR over Agent/UDP, both with packetSize_ 1468: the
  routing agent adds ns-2's 20-byte IP header, so the packet is 1488 bytes
  as tcplab's 1460-byte datagram with 28 bytes of UDP/IP (ns-2's trace:
  1488 at RTR, 1546 at the MAC; validation/wifi_chain_ns2.py's
  `udp_saturation` does the same with 1000 and 992 bytes); CBR's interval_
  is set after its packetSize_, which makes its rate_ exactly one packet
  per interval.

The ACK-thinning configurations have no ns-2 counterpart and are refused.
ns-2.35 hard-codes AODV's NETWORK_DIAMETER to 30, so it finds no route
beyond 30 hops (docs/validation.md); hop counts above 30 are refused.

Measures, as wifi_chain_ns2.py defines them: TCP goodput is the data
acknowledged at the sender over the `duration` seconds after the start
(ns-2: `ack_` x 1460 B, `ack_` + 1 for Vegas, whose agent sends no SYN;
tcplab: the flow's `throughput_bps`), UDP goodput
the payload delivered (ns-2: the LossMonitor's `npkts_` x 1460 B; tcplab:
`goodput_bps`); retransmissions are ns-2's `nrexmitpack_` and tcplab's
`retransmits`, timeouts `nrexmit_` and `timeouts`. The average window is
the study's `avg_window_pkts`: the window that limits the sender, min(cwnd,
advertised window), time-averaged over 0.1 s samples from 1 s (ns-2: its
`cwnd_` trace, sampled on the same grid). Routing packets: AODV packets sent
or forwarded (ns-2: `s`/`f` lines at RTR in its trace; tcplab: the nodes'
`routing_packets`). The usable window is the same average of the whole
packets of that window, floor(min(cwnd, advertised window)): ns-2's
senders send whole packets of a fractional `cwnd_` (its `window()` is an
int), and ns-2's Vegas `cwnd_` carries fractions tcplab's Vegas window does
not. Note that ns-2's Reno and NewReno agents keep fast recovery's
inflation out of `cwnd_` (a separate `dupwnd_`, not traceable), while
tcplab's `cwnd_bytes` includes it: for NewReno the window columns are not
like for like; for Vegas they are (ns-2's Vegas inflates `cwnd_` itself).

`--variants` runs tcplab's side several ways against the same ns-2 runs:
`study` (the study's scenario as it is) plus any of `ns2` (`[wireless]
profile = "ns2"`: ns-2.35's MAC, ARP, queue and AODV rules), `d30`
(`[wireless.aodv] net_diameter = 30`, ns-2's: it also sets how long a
network-wide route request waits for its reply, 2 x TTL x 30 ms) and `vzw`
(`tcp.vegas_zero_window = true` on Vegas flows: ns-2.35's window of 0 after
a timeout) and `ss20` (`tcp.initial_ssthresh = 20` on TCP flows: the
initial ssthresh ns-2.35's sender has on a mobile node, see
NS2_WIRELESS_SSTHRESH), joined with `+`: `--variants study,ns2,ns2+d30`.
The default is `study,ns2,ns2+d30`.

Every cell is mean ± standard error over the seeds; `ratio` is tcplab's
mean over ns-2's and `z` the difference over its standard error
(sqrt(se1² + se2²)). `--cwnd-dir DIR` writes each TCP run's window series
(both sides, 0.1 s grid) as CSV for a closer look.
"""
from __future__ import annotations

import argparse
import bisect
import math
import statistics
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# wifi_chain_ns2 puts the repository root on sys.path (validation.ns2).
from wifi_chain_ns2 import SEGMENT, flow_result, hop_list, mean_se, read_ns2_trace, tcl  # noqa: E402

import tcplab  # noqa: E402
from tcplab.studies import multihop  # noqa: E402
from validation.ns2 import available, measure  # noqa: E402

assert SEGMENT == multihop.PACKET, "the study and wifi_chain_ns2.py must send the same segments"
SAMPLE_S = 0.1           # the study's window sample interval (multihop.SAMPLE)
NS2_MAX_HOPS = 30        # ns-2.35's AODV NETWORK_DIAMETER
DEFAULT_CONFIGS = "newreno,vegas2,udp"
DEFAULT_INTERVALS = "10,20,40"
# ns-2.35 sets a TCP agent's ssthresh_ from window_ when the agent is
# created (the class default, 20) and resets it to the window set later
# only when `$ns run` resets the agents of wired nodes; a mobile node's
# reset leaves its agents alone, so the chain's sender leaves slow start at
# 20 packets (its cwnd_/ssthresh_ trace), where tcplab's ns2 profile starts
# from the advertised window (32).
NS2_WIRELESS_SSTHRESH = 20
VARIANT_TOKENS = {"ns2", "d30", "vzw", "ss20"}
DEFAULT_VARIANTS = "study,ns2,ns2+d30"

# The TCP agent lines of wifi_chain_ns2.tcl's chain, which the study's
# transport replaces.
NS2_TCP_LINES = f"set tcp [new Agent/TCP/Newreno]\n$tcp set packetSize_ {SEGMENT}\n$tcp set window_ 32\n"
NS2_FINISH_PUTS = 'puts "flow [$tcp set ack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_]"'


def tcp_window(config: str, hops: int) -> int:
    _, _, _, clamp = multihop.CONFIGS[config]
    return multihop.clamp_window(hops) if clamp else multihop.WINDOW


# --- ns-2.35 -------------------------------------------------------------------------

def ns2_tcl(hops: int, seed: int, duration: float, config: str, interval_ms: float | None,
            trace: str, cwnd_trace: str | None) -> str:
    """wifi_chain_ns2's AODV chain with the study's transport: a TCP
    configuration of multihop.CONFIGS (its `cwnd_` traced into
    `cwnd_trace`), or paced UDP every `interval_ms`."""
    t = tcl(hops, seed, duration, "aodv", trace)
    if NS2_TCP_LINES not in t or NS2_FINISH_PUTS not in t or "global tcp tr" not in t:
        raise RuntimeError("validation/wifi_chain_ns2.py's Tcl changed: update multihop_ns2.ns2_tcl")
    if config == "udp":
        size = SEGMENT + 8  # ns-2's UDP agent: payload + UDP header; its routing agent adds 20 bytes of IP
        udp = f"""set udp [new Agent/UDP]
$udp set packetSize_ {size}
$ns attach-agent $n(0) $udp
set sink [new Agent/LossMonitor]
$ns attach-agent $n({hops}) $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ {size}
$cbr set interval_ {interval_ms / 1e3!r}
$cbr set random_ 0
$cbr attach-agent $udp
$ns at {multihop.START} "$cbr start"
"""
        t = t[:t.index(NS2_TCP_LINES)] + udp + t[t.index("proc finish"):]
        return t.replace(NS2_FINISH_PUTS, 'puts "udp [$sink set npkts_]"').replace("global tcp tr", "global sink tr")
    transport, ab, thin, _ = multihop.CONFIGS[config]
    if thin:
        raise ValueError(f"{config}: ACK thinning has no ns-2.35 counterpart")
    if transport == "vegas":
        # ns-2's Vegas agent sends packetSize_ bytes as the IP packet's
        # TCP part without adding its 40 header bytes: 1500 is the other
        # agents' 1460 + 40.
        agent = (f"set tcp [new Agent/TCP/Vegas]\n$tcp set packetSize_ {SEGMENT + 40}\n"
                 f"$tcp set v_alpha_ {ab}\n$tcp set v_beta_ {ab}\n$tcp set v_gamma_ 1\n")
    else:
        agent = f"set tcp [new Agent/TCP/Newreno]\n$tcp set packetSize_ {SEGMENT}\n"
    agent += f"$tcp set window_ {tcp_window(config, hops)}\n"
    t = t.replace(NS2_TCP_LINES, agent)
    if cwnd_trace is not None:
        trace_lines = f"set cwf [open {cwnd_trace} w]\n$tcp attach $cwf\n$tcp trace cwnd_\n"
        t = t.replace("set ftp [new Application/FTP]", trace_lines + "set ftp [new Application/FTP]")
        t = t.replace("global tcp tr", "global tcp tr cwf").replace("close $tr", "close $tr\n  close $cwf")
    return t


def read_cwnd_trace(path: Path) -> tuple[list[float], list[float]]:
    """Times and values of ns-2's traced `cwnd_` (lines `time src sport dst
    dport cwnd_ value`)."""
    times, values = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7 and p[5] == "cwnd_":
                times.append(float(p[0]))
                values.append(float(p[6]))
    return times, values


def sample_steps(times: list[float], values: list[float], grid: list[float], initial: float = 1.0) -> list[float]:
    """The step function (`times`, `values`) at each time of `grid`: the
    last value set at or before it."""
    out = []
    for g in grid:
        i = bisect.bisect_right(times, g + 1e-9)
        out.append(values[i - 1] if i else initial)
    return out


def sample_grid(duration: float) -> list[float]:
    """tcplab's sample times from the start to the end of the run."""
    n = int(round(duration / SAMPLE_S))
    return [round(multihop.START + k * SAMPLE_S, 6) for k in range(n + 1)]


def run_ns2(hops: int, seed: int, duration: float, config: str, interval_ms: float | None = None) -> dict:
    with tempfile.TemporaryDirectory() as d:
        trace = Path(d) / "chain.tr"
        cwnd = Path(d) / "cwnd.tr" if config != "udp" else None
        path = Path(d) / "chain.tcl"
        path.write_text(ns2_tcl(hops, seed, duration, config, interval_ms, str(trace),
                                None if cwnd is None else str(cwnd)))
        m = measure(["ns", str(path)], cwd=d)
        if m["returncode"] != 0:
            raise RuntimeError(f"ns failed ({config}, {hops} hops, seed {seed}): {m['stderr'].strip()[-500:]}")
        counts = read_ns2_trace(trace)
        if config == "udp":
            line = next(ln for ln in m["stdout"].splitlines() if ln.startswith("udp "))
            npkts = int(line.split()[1])
            res = {"goodput_bps": npkts * SEGMENT * 8 / duration, "retransmits": None, "timeouts": None,
                   "avg_window_pkts": None, "avg_usable_pkts": None, "window": None}
        else:
            res = flow_result(m["stdout"], duration)
            if multihop.CONFIGS[config][0] == "vegas":
                # flow_result counts ack_ packets, packet 0 being the SYN; ns-2's
                # Vegas agent sends no SYN, its packet 0 is data
                # (validation/ns2.py, syn_packet).
                ack = int(next(ln for ln in m["stdout"].splitlines() if ln.startswith("flow ")).split()[1])
                res["goodput_bps"] = max(ack + 1, 0) * SEGMENT * 8 / duration
            times, values = read_cwnd_trace(cwnd)
            grid = sample_grid(duration)
            w = sample_steps(times, values, grid)
            limit = tcp_window(config, hops)
            res["window"] = (grid, w)
            res["avg_window_pkts"] = statistics.mean(min(c, limit) for c in w)
            res["avg_usable_pkts"] = statistics.mean(math.floor(min(c, limit) + 1e-9) for c in w)
    return {**res, "routing_packets": counts["routing_packets"], "rtr_drops": counts["rtr_drops"],
            "cpu_s": m["cpu_s"]}


# --- tcplab -------------------------------------------------------------------------

def parse_variant(spec: str) -> frozenset:
    tokens = frozenset(spec.split("+")) - {"study"}
    if not spec or tokens - VARIANT_TOKENS:
        raise argparse.ArgumentTypeError(
            f"--variants: {spec!r}: expected study or {'/'.join(sorted(VARIANT_TOKENS))} joined with +")
    return tokens


def variant_name(tokens: frozenset) -> str:
    return "+".join(t for t in ("ns2", "d30", "vzw", "ss20") if t in tokens) or "study"


def tcplab_scenario(hops: int, seed: int, duration: float, config: str, interval_ms: float | None,
                    variant: frozenset):
    sc = multihop.scenario(hops, config, duration=f"{duration + multihop.START:g}s", seed=seed,
                           interval_ms=interval_ms)
    w = sc.data["wireless"]
    if "ns2" in variant:
        w["profile"] = "ns2"
    if "d30" in variant:
        w.setdefault("aodv", {})["net_diameter"] = NS2_MAX_HOPS
    f = sc.data["flow"][0]
    if "vzw" in variant and f["transport"] == "vegas":
        f.setdefault("tcp", {})["vegas_zero_window"] = True
    if "ss20" in variant and f["transport"] != "udp":
        f.setdefault("tcp", {})["initial_ssthresh"] = NS2_WIRELESS_SSTHRESH
    return sc


def run_tcplab(hops: int, seed: int, duration: float, config: str, interval_ms: float | None = None,
               variant: frozenset = frozenset()) -> dict:
    sc = tcplab_scenario(hops, seed, duration, config, interval_ms, variant)
    r = tcplab.run(sc)
    f = r.columns("flows")
    n = r.columns("nodes")
    res = {"routing_packets": sum(n["routing_packets"]), "wall_s": r.summary["wall_s"],
           "ttl_drops": r.summary["drops_ttl"]}
    if config == "udp":
        return {**res, "goodput_bps": f["goodput_bps"][0], "retransmits": None, "timeouts": None,
                "avg_window_pkts": None, "avg_usable_pkts": None, "window": None}
    s = r.columns("series")
    limit = tcp_window(config, hops)
    pts = [(t, c / SEGMENT) for t, c in zip(s["time_s"], s["cwnd_bytes"]) if t >= multihop.START - 1e-9]
    # ns-2's figure is the data acknowledged at the sender: tcplab's
    # throughput_bps (wifi_chain_ns2.run_tcplab), not the study's goodput_bps.
    return {**res, "goodput_bps": f["throughput_bps"][0], "retransmits": f["retransmits"][0],
            "timeouts": f["timeouts"][0], "window": ([t for t, _ in pts], [c for _, c in pts]),
            "avg_window_pkts": statistics.mean(min(c, limit) for _, c in pts),
            "avg_usable_pkts": statistics.mean(math.floor(min(c, limit) + 1e-9) for _, c in pts)}


# --- the table ------------------------------------------------------------------------

def z_value(a: list[float], b: list[float]) -> float | None:
    if len(a) < 2 or len(b) < 2:
        return None
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    d = statistics.mean(a) - statistics.mean(b)
    if se == 0:
        return 0.0 if d == 0 else math.copysign(math.inf, d)
    return d / se


def fmt_z(z: float | None) -> str:
    return "-" if z is None else f"{z:+.1f}"


def ratio(a: list[float], b: list[float]) -> str:
    mb = statistics.mean(b)
    return f"{statistics.mean(a) / mb:.3f}" if mb > 0 else ("1.000" if statistics.mean(a) == 0 else "inf")


def write_windows(out: Path, label: str, hops: int, seed: int, side: str, window) -> None:
    out.mkdir(parents=True, exist_ok=True)
    times, w = window
    with open(out / f"{label}-{hops}h-s{seed}-{side}.csv", "w") as f:
        f.write("time_s,cwnd_pkts\n")
        for t, c in zip(times, w):
            f.write(f"{t:.1f},{c:g}\n")


def interval_list(spec: str) -> list[float]:
    try:
        xs = [float(x) for x in spec.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--udp-intervals: expected ms values like 10,20,40, got {spec!r}") from None
    if not xs or min(xs) <= 0:
        raise argparse.ArgumentTypeError(f"--udp-intervals: intervals must be > 0 ms, got {spec!r}")
    return xs


def config_list(spec: str) -> list[str]:
    configs = [c.strip() for c in spec.split(",") if c.strip()]
    for c in configs:
        if c == "udp":
            continue
        if c not in multihop.CONFIGS:
            raise argparse.ArgumentTypeError(f"--configs: unknown {c!r} (multihop.CONFIGS or udp)")
        if multihop.CONFIGS[c][2]:
            raise argparse.ArgumentTypeError(f"--configs: {c!r}: ACK thinning has no ns-2.35 counterpart")
    if not configs:
        raise argparse.ArgumentTypeError("--configs: empty")
    return configs


def ns2_ready(ap: argparse.ArgumentParser, a: argparse.Namespace) -> bool:
    """The checks every side-by-side script makes: seeds and duration
    (argparse's error, exit 2), then ns-2.35 itself (False, said on stderr)."""
    if a.seeds < 1 or a.duration <= 0:
        ap.error("--seeds must be >= 1 and --duration > 0")
    if not available():
        print("ns (ns-2.35) is not installed", file=sys.stderr)
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hops", type=hop_list, default=hop_list("2,4,7,16"), help="a,b,c, a-b or N (1..N); <= 30")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", type=float, default=100.0, help="seconds measured after the flow's start")
    ap.add_argument("--configs", type=config_list, default=config_list(DEFAULT_CONFIGS),
                    help=f"multihop.CONFIGS without ACK thinning, or udp (default {DEFAULT_CONFIGS})")
    ap.add_argument("--udp-intervals", type=interval_list, default=interval_list(DEFAULT_INTERVALS),
                    help=f"paced UDP's inter-packet times, ms (default {DEFAULT_INTERVALS})")
    ap.add_argument("--variants", type=lambda s: [parse_variant(v) for v in s.split(",")],
                    default=[parse_variant(v) for v in DEFAULT_VARIANTS.split(",")],
                    help=f"tcplab variants: study, or ns2/d30/vzw/ss20 joined with + (default {DEFAULT_VARIANTS})")
    ap.add_argument("--jobs", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--cwnd-dir", type=Path, default=None, help="write each TCP run's window series here")
    a = ap.parse_args()
    if max(a.hops) > NS2_MAX_HOPS:
        ap.error(f"--hops: ns-2.35's AODV finds no route beyond {NS2_MAX_HOPS} hops (NETWORK_DIAMETER)")
    if not ns2_ready(ap, a):
        return 1
    seeds = list(range(1, a.seeds + 1))
    cases = [(c, iv) for c in a.configs for iv in (a.udp_intervals if c == "udp" else [None])]
    print(f"# {a.seeds} seeds, {a.duration:g} s from the flow's start; mean ± standard error; "
          f"ratio = tcplab / ns-2; z = difference / its standard error")
    print("| config | hops | tcplab variant | tcplab goodput (kbit/s) | ns-2 goodput | ratio | z "
          "| tcplab rtx | ns-2 rtx | z | tcplab timeouts | ns-2 timeouts | tcplab avg window (pkts) "
          "| ns-2 avg window | tcplab usable window | ns-2 usable window | tcplab routing pkts | ns-2 routing pkts |")
    print("|---" * 18 + "|")
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for config, iv in cases:
            label = config if iv is None else f"udp {iv:g}ms"
            for hops in a.hops:
                theirs_f = [pool.submit(run_ns2, hops, s, a.duration, config, iv) for s in seeds]
                ours_f = {v: [pool.submit(run_tcplab, hops, s, a.duration, config, iv, v) for s in seeds]
                          for v in a.variants}
                theirs = [f.result() for f in theirs_f]
                for v, fs in ours_f.items():
                    ours = [f.result() for f in fs]
                    if a.cwnd_dir is not None and config != "udp":
                        for s, o, t in zip(seeds, ours, theirs):
                            write_windows(a.cwnd_dir, f"{label}-{variant_name(v)}", hops, s, "tcplab", o["window"])
                            write_windows(a.cwnd_dir, label, hops, s, "ns2", t["window"])

                    def col(rs, k, scale=1.0):
                        return [r[k] / scale for r in rs]

                    g1, g2 = col(ours, "goodput_bps", 1e3), col(theirs, "goodput_bps", 1e3)
                    cells = [label, str(hops), variant_name(v), mean_se(g1, 1, 1), mean_se(g2, 1, 1),
                             ratio(g1, g2), fmt_z(z_value(g1, g2))]
                    if config == "udp":
                        cells += ["-"] * 9
                    else:
                        r1, r2 = col(ours, "retransmits"), col(theirs, "retransmits")
                        cells += [mean_se(r1), mean_se(r2), fmt_z(z_value(r1, r2)),
                                  mean_se(col(ours, "timeouts")), mean_se(col(theirs, "timeouts")),
                                  mean_se(col(ours, "avg_window_pkts"), 2, 2),
                                  mean_se(col(theirs, "avg_window_pkts"), 2, 2),
                                  mean_se(col(ours, "avg_usable_pkts"), 2, 2),
                                  mean_se(col(theirs, "avg_usable_pkts"), 2, 2)]
                    cells += [mean_se(col(ours, "routing_packets"), 0, 0),
                              mean_se(col(theirs, "routing_packets"), 0, 0)]
                    print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
