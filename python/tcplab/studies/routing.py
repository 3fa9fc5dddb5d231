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

The mobile experiment: 30 stations in 1500 m x 300 m moving by random
waypoint (speed uniform in 9-11 m/s, mean 10, no pause), 25 movement
patterns, one TCP connection from n0 to n1 per pattern, every variant over
every protocol: the actual throughput, the expected throughput (Holland &
Vaidya, MobiCom 1999: the static i-hop throughput of the same variant and
protocol weighted by the time the pattern's shortest path has i hops, 0
while the two are partitioned) and their ratio.
"""
from __future__ import annotations

from pathlib import Path

from ..scenario import Scenario
from ..sweep import Sweep, study_summary_many
from . import check_choice, check_whole, wireless_profile

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
QUICK_HOPS = HOPS      # the mobile experiment weights every hop count
LABELS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK", "vegas": "Vegas",
          "dsdv": "DSDV", "olsr": "OLSR", "aodv": "AODV", "dsr": "DSR"}

# The mobile experiment.
FIELD = (1500.0, 300.0)  # m
MOBILE_NODES = 30
SPEED = (9.0, 11.0)      # m/s, uniform per leg: mean 10 m/s, never near 0
PAUSE = 0.0              # s
RX_RANGE = 250.0         # m: ns-2.35's WaveLAN receive range (two-ray ground)
PATTERNS, QUICK_PATTERNS = 25, 3
MOBILE_DURATION, QUICK_MOBILE_DURATION = "200s", "60s"
HOP_SAMPLE = 0.1         # s between the samples of the shortest path's length


def _connection(nodes: list[dict], to: str, protocol: str, variant: str, duration: str, seed: int,
                profile: str | None, source: str) -> Scenario:
    """The stations `nodes` (the first sends) running `protocol`, one
    connection of `variant` from the first to `to`: what the string and the
    moving field share (their callers check protocol and variant first)."""
    flow = {"name": variant, "from": nodes[0]["name"], "to": to, "transport": variant, "packet_size": PACKET,
            "window": WINDOW, "app": {"kind": "bulk", "start": f"{START:g}s"}}
    wireless = {"data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_threshold": 0, "routing": protocol,
                "profile": wireless_profile(profile, PROFILE)}
    return Scenario({"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"}, "wireless": wireless,
                     "node": nodes, "flow": [flow]}, source=source)


def scenario(protocol: str = "aodv", variant: str = "newreno", hops: int = 7, duration: str = DURATION,
             seed: int = 1, profile: str | None = None) -> Scenario:
    """The 8-station string with one connection from n0 to n`hops`."""
    check_choice("protocol", protocol, PROTOCOLS)
    check_choice("variant", variant, VARIANTS)
    check_choice("hops", hops, HOPS)
    nodes = [{"name": f"n{i}", "position": [SPACING * i, 0.0]} for i in range(NODES)]
    return _connection(nodes, f"n{hops}", protocol, variant, duration, seed, profile, "routing")


def movement(pattern: int, duration: float) -> list[dict]:
    """Movement pattern `pattern`: each station's starting position
    (uniform in the field) and its random-waypoint legs as `waypoints`
    (time, x, y, speed), drawn from the pattern's own stream (the same for
    every variant and protocol, as ns-2 studies reuse one setdest file)."""
    import random

    rng = random.Random(f"routing-mobile-pattern-{pattern}")
    nodes = []
    for i in range(MOBILE_NODES):
        at = [rng.uniform(0, FIELD[0]), rng.uniform(0, FIELD[1])]
        t, legs = PAUSE, []
        pos = at
        while t < duration:
            to = [rng.uniform(0, FIELD[0]), rng.uniform(0, FIELD[1])]
            v = rng.uniform(*SPEED)
            legs.append([round(t, 9), to[0], to[1], v])
            t += ((to[0] - pos[0]) ** 2 + (to[1] - pos[1]) ** 2) ** 0.5 / v + PAUSE
            pos = to
        nodes.append({"name": f"m{i}", "position": at, "waypoints": legs})
    return nodes


def _position(node: dict, t: float) -> tuple[float, float]:
    """Where a station of `movement` is at `t` (its legs run back to back:
    each starts where the last ended, after the pause)."""
    x, y = node["position"]
    for i, (t0, tx, ty, v) in enumerate(node["waypoints"]):
        if t0 > t:
            break
        d = ((tx - x) ** 2 + (ty - y) ** 2) ** 0.5
        arrive = t0 + d / v
        if t < arrive:
            f = (t - t0) / (arrive - t0)
            return x + f * (tx - x), y + f * (ty - y)
        x, y = tx, ty
    return x, y


def hop_timeline(pattern: int, duration: float, src: int = 0, dst: int = 1) -> dict[int, float]:
    """Seconds the pattern's shortest path from station `src` to `dst` has
    i hops (0: partitioned), from the connection's start to the end, by
    breadth-first search over the stations within receive range, sampled
    every HOP_SAMPLE."""
    from collections import deque

    nodes = movement(pattern, duration)
    out: dict[int, float] = {}
    n = int(round((duration - START) / HOP_SAMPLE))
    for k in range(n):
        t = START + (k + 0.5) * HOP_SAMPLE
        pos = [_position(nd, t) for nd in nodes]
        dist = {src: 0}
        queue = deque([src])
        while queue and dst not in dist:
            a = queue.popleft()
            for b in range(len(pos)):
                if b not in dist and (pos[a][0] - pos[b][0]) ** 2 + (pos[a][1] - pos[b][1]) ** 2 <= RX_RANGE ** 2:
                    dist[b] = dist[a] + 1
                    queue.append(b)
        h = dist.get(dst, 0)
        out[h] = out.get(h, 0.0) + HOP_SAMPLE
    return out


def mobile_scenario(protocol: str = "aodv", variant: str = "newreno", pattern: int = 0,
                    duration: str = MOBILE_DURATION, seed: int = 1, profile: str | None = None) -> Scenario:
    """The 30 moving stations of pattern `pattern` with one connection from
    m0 to m1."""
    check_choice("protocol", protocol, PROTOCOLS)
    check_choice("variant", variant, VARIANTS)
    check_whole("pattern", pattern, 0)
    return _connection(movement(pattern, float(duration.rstrip("s"))), "m1", protocol, variant, duration, seed,
                       profile, "routing-mobile")


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


def mobile_sweep(out: Path, quick: bool) -> Sweep:
    duration = QUICK_MOBILE_DURATION if quick else MOBILE_DURATION
    grid = {"protocol": PROTOCOLS, "variant": VARIANTS,
            "pattern": list(range(QUICK_PATTERNS if quick else PATTERNS))}
    return Sweep(lambda p: mobile_scenario(p["protocol"], p["variant"], p["pattern"], duration), grid, [1],
                 out / "runs_mobile", metrics=string_metrics, name="routing/mobile")


def expected_throughput(mruns, static, duration: float):
    """Each mobile run with its expected throughput (the static throughput
    of its variant and protocol over i hops, weighted by the time its
    pattern's path has i hops; paths longer than the static string's 7
    hops take the 7-hop throughput, and `beyond_7_s` says how long that
    was) and the ratio actual / expected."""
    import pandas as pd

    static_thr = {(r.protocol, r.variant, r.hops): r.throughput_bps for r in static.itertuples()}
    timelines = {p: hop_timeline(p, duration) for p in sorted(set(mruns.pattern))}
    rows = []
    for r in mruns.itertuples():
        tl = timelines[r.pattern]
        total = sum(tl.values())
        exp = sum(sec * static_thr[(r.protocol, r.variant, min(h, max(HOPS)))] for h, sec in tl.items() if h > 0) / total
        rows.append({"expected_bps": exp, "ratio": r.throughput_bps / exp if exp > 0 else float("nan"),
                     "partitioned_s": tl.get(0, 0.0), "beyond_7_s": sum(v for h, v in tl.items() if h > max(HOPS)),
                     "mean_hops": sum(h * v for h, v in tl.items() if h > 0) / max(total - tl.get(0, 0.0), 1e-9)})
    return pd.concat([mruns.reset_index(drop=True), pd.DataFrame(rows)], axis=1)


def mobile_table(mobile):
    """Per protocol and variant: mean actual and expected throughput over
    the patterns, with their 95 % half-widths, and the ratio of the means
    (and the mean of the per-pattern ratios)."""
    t = study_summary_many(mobile, ["protocol", "variant"], ["throughput_bps", "expected_bps", "ratio"])
    t["ratio_of_means"] = t.throughput_bps / t.expected_bps
    return t


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


def _mobile(plt, mobile):
    """Actual and expected throughput per variant, one panel per protocol,
    and below them the ratio actual / expected (the mean of the per-run
    ratios with its 95 % CI; a dot: the ratio of the means). The CIs of a
    few patterns reach below 0: they stop at 0, where the axes start."""
    import numpy as np

    from .figures import clipped_yerr, fit_y

    fig = plt.figure(figsize=(10, 10.5))
    grid = fig.add_gridspec(3, 2, height_ratios=[1, 1, 0.9])
    x = np.arange(len(VARIANTS))
    first = None
    panels = []
    for i, protocol in enumerate(PROTOCOLS):
        ax = fig.add_subplot(grid[i // 2, i % 2], sharey=first)
        first = first or ax
        panels.append(ax)
        d = mobile[mobile.protocol == protocol].set_index("variant").reindex(VARIANTS)
        for off, col, label in [(-0.2, "expected_bps", "expected"), (0.2, "throughput_bps", "actual")]:
            ax.bar(x + off, d[col] / 1e3, 0.4, yerr=clipped_yerr(d[col], d[f"{col}_ci95"], 0.0) / 1e3, capsize=2,
                   label=label)
        ax.set_xticks(x, [LABELS[v] for v in VARIANTS])
        ax.set_title(LABELS[protocol])
        ax.set_ylabel("throughput (kbit/s)")
        ax.grid(True, axis="y", alpha=0.3)
        if i == 0:
            ax.legend(fontsize=8)
    # One range for the shared axis once every panel is drawn (a limit set
    # per panel would fix it at the first panel's data).
    fit_y(panels)
    ax = fig.add_subplot(grid[2, :])
    width = 0.8 / len(VARIANTS)
    px = np.arange(len(PROTOCOLS))
    for j, variant in enumerate(VARIANTS):
        d = mobile[mobile.variant == variant].set_index("protocol").reindex(PROTOCOLS)
        at = px - 0.4 + (j + 0.5) * width
        bars = ax.bar(at, d.ratio, width, yerr=clipped_yerr(d.ratio, d.ratio_ci95, 0.0), capsize=2,
                      label=LABELS[variant])
        ax.plot(at, d.ratio_of_means, "o", ms=3, color="black", mfc=bars.patches[0].get_facecolor(),
                label="ratio of the means" if j == 0 else None)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(px, [LABELS[p] for p in PROTOCOLS])
    ax.set_ylabel("actual / expected")
    ax.set_title("actual / expected: mean of the per-run ratios (bars, 95 % CI) and ratio of the means (dots)")
    fit_y([ax])
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    fig.suptitle("30 stations moving at 10 m/s in 1500 m x 300 m: actual and expected throughput\n"
                 "(mean over the movement patterns and 95 % CI)")
    return fig


def figure_tasks(static, mobile=None) -> list:
    extra = [("mobile", _mobile, (mobile,))] if mobile is not None and len(mobile) else []
    return extra + [("throughput", _by_protocol, (static, "throughput_bps", 1e3, "throughput (kbit/s)",
                                          "TCP over an 8-station 802.11 string (2 Mbit/s, RTS/CTS; mean and 95 % CI)")),
            ("routing_overhead", _by_protocol, (static, "routing_overhead", 1e-2,
                                                "routing bytes / delivered data bytes (%)",
                                                "Routing overhead on the string (mean and 95 % CI)"))]


def run(out: str | Path = "results/routing", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    """Run the static and the mobile experiment (resuming stored runs) and
    write their tables and figures."""
    from ..io import atomic_write_text, staged_outputs
    from ..pools import local_jobs, run_local
    from .figures import draw_task

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = make_sweep(out, quick).run(jobs=jobs, progress=progress)
    static = study_summary_many(runs, ["protocol", "variant", "hops"], MEASURES)
    thr = throughput_table(static)
    mruns = mobile_sweep(out, quick).run(jobs=jobs, progress=progress)
    duration = float((QUICK_MOBILE_DURATION if quick else MOBILE_DURATION).rstrip("s"))
    mobile_runs = expected_throughput(mruns, static, duration)
    mobile = mobile_table(mobile_runs)
    # One set of tables and figures (io.staged_outputs): a study stopped
    # while drawing leaves the earlier set in `out` as it was.
    with staged_outputs(out) as stage:
        for name, t in [("runs.csv", runs), ("static.csv", static), ("throughput.csv", thr),
                        ("mobile_runs.csv", mobile_runs), ("mobile.csv", mobile)]:
            atomic_write_text(stage / name, t.to_csv(index=False))
        done = run_local([(draw_task, (t, stage)) for t in figure_tasks(static, mobile)], local_jobs(jobs))
        figs = [out / Path(p).name for paths in done for p in paths]
    return {"runs": runs, "static": static, "throughput": thr, "mobile_runs": mobile_runs, "mobile": mobile,
            "figures": figs}
