"""Study `routing` (SPEC 9.4): TCP Tahoe, Reno, NewReno, SACK and Vegas over
the ad hoc routing protocols DSDV, OLSR, AODV and DSR.

The static experiment: a string of 8 stations 250 m apart (two-ray ground,
ns-2.35's WaveLAN radio: each station reaches its neighbours only), 802.11
at 2 Mbit/s data and 1 Mbit/s basic rate with RTS/CTS, priority interface
queues of 50 packets, every station running the routing protocol; one TCP
connection from the first station to the station h hops along, h = 1 ... 7,
with 1500-byte IP packets (1460 bytes of payload) and a window of 32
packets, the ns2 TCP profile. Output: the throughput table per routing
protocol, with the retransmissions and the routing overhead.

The mobile experiment of SPEC 9.4 (30 stations in 1500 m x 300 m, random
waypoint at a mean 10 m/s, 25 movement patterns: expected throughput,
actual throughput and their ratio) needs node mobility, which tcplab does
not model yet (SPEC 5, "Mobility"); `run` says so in the output directory
(NOT_RUN.txt) instead of leaving it out silently.
"""
from __future__ import annotations

from pathlib import Path

from ..scenario import Scenario
from ..sweep import Sweep, summarize_many

NODES = 8                # the string's stations
SPACING = 250.0          # m
PACKET = 1460            # bytes of payload: 1500-byte IP packets
WINDOW = 32              # receiver window, packets
START = 1.0              # s: the connection's start
PROFILE = "standard"     # [wireless] profile; "ns2": ns-2.35's MAC and routing rules
DURATION, QUICK_DURATION = "300s", "60s"
SEEDS, QUICK_SEEDS = 5, 2

VARIANTS = ["tahoe", "reno", "newreno", "sack", "vegas"]
PROTOCOLS = ["dsdv", "olsr", "aodv", "dsr"]
HOPS = list(range(1, NODES))
QUICK_HOPS = [1, 3, 7]
LABELS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK", "vegas": "Vegas",
          "dsdv": "DSDV", "olsr": "OLSR", "aodv": "AODV", "dsr": "DSR"}

MOBILE_NOT_RUN = """The mobile experiment of SPEC 9.4 was not run.

It needs 30 stations moving by random waypoint (1500 m x 300 m, mean speed
10 m/s, 25 movement patterns), and tcplab has no model of node mobility yet
(SPEC 5, "Mobility": random waypoint and ns-2 setdest files). Its table
(expected throughput, actual throughput and their ratio per variant and
routing protocol) is therefore absent. The static experiment's tables and
figures in this directory are complete.
"""


def _check(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(map(str, allowed))}, got {value!r}")


def scenario(protocol: str = "aodv", variant: str = "newreno", hops: int = 7, duration: str = DURATION,
             seed: int = 1, profile: str | None = None) -> Scenario:
    """The 8-station string with one connection from n0 to n`hops`."""
    _check("protocol", protocol, PROTOCOLS)
    _check("variant", variant, VARIANTS)
    _check("hops", hops, HOPS)
    profile = PROFILE if profile is None else profile
    _check("profile", profile, ["standard", "ns2"])
    nodes = [{"name": f"n{i}", "position": [SPACING * i, 0.0]} for i in range(NODES)]
    flow = {"name": variant, "from": "n0", "to": f"n{hops}", "transport": variant, "packet_size": PACKET,
            "window": WINDOW, "app": {"kind": "bulk", "start": f"{START:g}s"}}
    wireless = {"data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_threshold": 0, "routing": protocol,
                "profile": profile}
    return Scenario({"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"}, "wireless": wireless,
                     "node": nodes, "flow": [flow]}, source="routing")


def string_metrics(flows: dict, nodes: dict, summary: dict) -> dict:
    """The connection's throughput, goodput and retransmissions; routing
    packets sent by all stations and the routing overhead (control bytes /
    delivered data bytes); false route failures."""
    return {"throughput_bps": flows["throughput_bps"][0], "goodput_bps": flows["goodput_bps"][0],
            "retransmits": flows["retransmits"][0], "timeouts": flows["timeouts"][0],
            "routing_packets": sum(nodes["routing_packets"]), "routing_overhead": summary["routing_overhead"],
            "false_route_failures": sum(nodes["false_route_failures"])}


MEASURES = ["throughput_bps", "goodput_bps", "retransmits", "timeouts", "routing_packets", "routing_overhead",
            "false_route_failures"]


def make_sweep(out: Path, quick: bool) -> Sweep:
    duration = QUICK_DURATION if quick else DURATION
    grid = {"protocol": PROTOCOLS, "variant": VARIANTS, "hops": QUICK_HOPS if quick else HOPS}
    return Sweep(lambda p: scenario(p["protocol"], p["variant"], p["hops"], duration), grid,
                 QUICK_SEEDS if quick else SEEDS, out / "runs_static", metrics=string_metrics,
                 name="routing/static")


def throughput_table(static):
    """SPEC 9.4's table: throughput (kbit/s) per routing protocol and
    variant (rows) and hop count (columns)."""
    t = static.pivot_table(index=["protocol", "variant"], columns="hops", values="throughput_bps", sort=False)
    t = (t / 1e3).round(1)
    t.columns = [f"{h} hops" for h in t.columns]
    return t.reset_index()


def _by_protocol(plt, static, col: str, scale: float, ylabel: str, title: str):
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True, sharey=True)
    for ax, protocol in zip(axes.flat, PROTOCOLS):
        d = static[static.protocol == protocol]
        for variant in VARIANTS:
            v = d[d.variant == variant].sort_values("hops")
            ax.errorbar(v.hops, v[col] / scale, yerr=v[f"{col}_ci95"].fillna(0) / scale, capsize=2, marker="o",
                        ms=3, lw=1.1, label=LABELS[variant])
        ax.set_title(LABELS[protocol])
        ax.set_xticks(sorted(static.hops.unique()))
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.set_ylabel(ylabel)
    for ax in axes[1]:
        ax.set_xlabel("hops")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(title)
    return fig


def figure_tasks(static) -> list:
    return [("throughput", _by_protocol, (static, "throughput_bps", 1e3, "throughput (kbit/s)",
                                          "TCP over an 8-station 802.11 string (2 Mbit/s, RTS/CTS; mean and 95 % CI)")),
            ("routing_overhead", _by_protocol, (static, "routing_overhead", 1e-2,
                                                "routing bytes / delivered data bytes (%)",
                                                "Routing overhead on the string (mean and 95 % CI)"))]


def run(out: str | Path = "results/routing", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    """Run the static experiment (resuming stored runs), write its tables
    and figures, and NOT_RUN.txt for the mobile experiment."""
    from ..io import atomic_write_text
    from ..pools import local_jobs, run_local
    from .figures import draw_task

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = make_sweep(out, quick).run(jobs=jobs, progress=progress)
    static = summarize_many(runs, ["protocol", "variant", "hops"], MEASURES)
    thr = throughput_table(static)
    done = run_local([(draw_task, (t, out)) for t in figure_tasks(static)], local_jobs(jobs))
    figs = [Path(p) for paths in done for p in paths]
    for name, t in [("runs.csv", runs), ("static.csv", static), ("throughput.csv", thr)]:
        atomic_write_text(out / name, t.to_csv(index=False))
    atomic_write_text(out / "NOT_RUN.txt", MOBILE_NOT_RUN)
    return {"runs": runs, "static": static, "throughput": thr, "figures": figs}
