"""Study `multihop` (SPEC 9.3): TCP Vegas against NewReno on h-hop 802.11
chains.

One bulk TCP connection from the first to the last node of a straight chain
of h + 1 stations 250 m apart (two-ray ground, ns-2.35's WaveLAN radio:
receive range 250 m, carrier sense 550 m), 802.11 DCF with RTS/CTS for every
data frame, 2 Mbit/s data and 1 Mbit/s basic rate, AODV routing, priority
interface queues of 50 packets, 1460-byte segments, a receiver window of 32
packets, the ns2 TCP profile. The experiments:

* `hops`: goodput, TCP retransmissions, average window and false route
  failures against h = 2 ... 64 for NewReno; NewReno with ACK thinning;
  NewReno with its window clamped to the optimum h/4 (Fu et al., INFOCOM
  2003); Vegas with alpha = beta = 2, 3 and 4, each with and without ACK
  thinning; and paced UDP, whose best goodput over the inter-packet times
  is the upper bound.
* `rates`: the 7-hop chain at 2, 5.5 and 11 Mbit/s data rate for the same
  TCP configurations: goodput, retransmissions, window and the link-layer
  drop probability.
* `udp`: paced UDP goodput against the inter-packet time (the 7-hop curve
  is drawn; every chain length is in the table, where its maximum is the
  bound of `hops`).

The choices SPEC 9.3 leaves open are module constants below and are
discussed in docs/studies.md.
"""
from __future__ import annotations

import math
from pathlib import Path

from ..scenario import Scenario
from ..sweep import Sweep, study_summary_many
from . import check_choice, check_whole, wireless_profile

SPACING = 250.0          # m between neighbours of the chain
PACKET = 1460            # bytes of TCP payload (and of each UDP datagram)
WINDOW = 32              # receiver window, packets
START = 1.0              # s: the flow's application starts (AODV finds the route then)
NET_DIAMETER = 64        # AODV's network diameter: ns-2.35's 30 cannot reach 64 hops
PROFILE = "standard"     # [wireless] profile: the 802.11 standard; "ns2" for ns-2.35's MAC and AODV rules
DURATION, QUICK_DURATION = "300s", "30s"
SEEDS, QUICK_SEEDS = 5, 3
SAMPLE = "0.1s"          # the window is sampled this often for its time average

HOPS = [2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 32, 48, 64]
QUICK_HOPS = [2, 4, 7, 16]
RATES = ["2Mbps", "5.5Mbps", "11Mbps"]
RATE_HOPS = 7
# Inter-packet times of paced UDP, ms: from well above a 2-hop chain's
# capacity (one 1460-byte frame with RTS/CTS/ACK every ~7.7 ms per hop) to
# well below a long chain's.
UDP_INTERVALS_MS = [8, 10, 12, 15, 18, 21, 25, 30, 35, 40, 50, 60, 80]
QUICK_UDP_INTERVALS_MS = [10, 15, 25, 40]

#: TCP configurations: name -> (transport, Vegas alpha = beta or None, ACK thinning, window clamped to h/4).
CONFIGS: dict[str, tuple[str, int | None, bool, bool]] = {
    "newreno": ("newreno", None, False, False),
    "newreno+thin": ("newreno", None, True, False),
    "newreno+clamp": ("newreno", None, False, True),
    "vegas2": ("vegas", 2, False, False),
    "vegas2+thin": ("vegas", 2, True, False),
    "vegas3": ("vegas", 3, False, False),
    "vegas3+thin": ("vegas", 3, True, False),
    "vegas4": ("vegas", 4, False, False),
    "vegas4+thin": ("vegas", 4, True, False),
}
LABELS = {"newreno": "NewReno", "newreno+thin": "NewReno, ACK thinning",
          "newreno+clamp": "NewReno, window h/4", "udp": "paced UDP (best interval)",
          **{f"vegas{k}": f"Vegas a=b={k}" for k in (2, 3, 4)},
          **{f"vegas{k}+thin": f"Vegas a=b={k}, ACK thinning" for k in (2, 3, 4)}}


def clamp_window(hops: int) -> int:
    """The window of `newreno+clamp`: h/4 rounded up (at least one packet),
    so the clamp never holds the chain below its optimal number of packets
    in flight."""
    return max(1, math.ceil(hops / 4))


def scenario(hops: int = 7, config: str = "newreno", rate: str = "2Mbps", duration: str = DURATION,
             seed: int = 1, interval_ms: float | None = None, profile: str | None = None,
             net_diameter: int | None = None) -> Scenario:
    """The chain of SPEC 9.3 with one flow from n0 to n`hops`: TCP in
    configuration `config` (CONFIGS), or with `config = "udp"` paced UDP
    sending one datagram every `interval_ms`. `profile` and `net_diameter`
    default to the module's PROFILE and NET_DIAMETER (read at each call, so
    setting them before `run` changes the whole study)."""
    check_whole("hops", hops, 1)
    check_choice("config", config, [*CONFIGS, "udp"])
    check_choice("rate", rate, RATES)
    profile = wireless_profile(profile, PROFILE)
    net_diameter = NET_DIAMETER if net_diameter is None else net_diameter
    check_whole("net_diameter", net_diameter, 1, 255)
    nodes = [{"name": f"n{i}", "position": [SPACING * i, 0.0]} for i in range(hops + 1)]
    flow: dict = {"name": config, "from": "n0", "to": f"n{hops}", "packet_size": PACKET}
    if config == "udp":
        if interval_ms is None or not interval_ms > 0:
            raise ValueError(f"interval_ms: expected a positive number for paced UDP, got {interval_ms!r}")
        flow |= {"transport": "udp", "app": {"kind": "cbr", "start": f"{START:g}s", "interval": f"{interval_ms:g}ms"}}
    else:
        transport, ab, thin, clamp = CONFIGS[config]
        flow |= {"transport": transport, "window": clamp_window(hops) if clamp else WINDOW,
                 "app": {"kind": "bulk", "start": f"{START:g}s"}}
        if ab is not None:
            flow["vegas"] = {"alpha": ab, "beta": ab}
        if thin:
            flow["tcp"] = {"ack_thinning": True}
    data = {"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"},
            "wireless": {"data_rate": rate, "basic_rate": "1Mbps", "rts_threshold": 0, "routing": "aodv",
                         "profile": profile, "aodv": {"net_diameter": net_diameter}},
            "node": nodes, "flow": [flow]}
    if config != "udp":
        data["output"] = {"sample_interval": SAMPLE}
    return Scenario(data, source="multihop")


def chain_metrics(flows: dict, nodes: dict, series, params: dict) -> dict:
    """Goodput and retransmissions of the flow, its average window, the
    false route failures and link failures of all nodes, and the run's
    link-layer drop probability (data frames dropped after all retries /
    data frames the MACs started to send)."""
    offered = sum(nodes["data_offered"])
    m = {"goodput_bps": flows["goodput_bps"][0], "retransmits": flows["retransmits"][0],
         "timeouts": flows["timeouts"][0],
         "false_route_failures": sum(nodes["false_route_failures"]),
         "link_failures": sum(nodes["link_failures"]),
         "ll_drop_probability": sum(nodes["drops_retry_limit"]) / offered if offered else math.nan,
         "avg_window_pkts": math.nan}
    if series is not None:
        # The window that limits the sender: cwnd, at most the advertised
        # window; time-averaged over the regular samples after the start.
        transport, _, _, clamp = CONFIGS[params["config"]]
        limit = (clamp_window(params["hops"]) if clamp else WINDOW) * PACKET
        w = [min(c, limit) for t, c in zip(series["time_s"], series["cwnd_bytes"]) if t >= START]
        if w:
            m["avg_window_pkts"] = sum(w) / len(w) / PACKET
    return m


def _params(quick: bool):
    return (QUICK_DURATION if quick else DURATION, QUICK_SEEDS if quick else SEEDS)


def hops_sweep(out: Path, quick: bool) -> Sweep:
    duration, seeds = _params(quick)
    grid = {"hops": QUICK_HOPS if quick else HOPS, "config": list(CONFIGS)}
    return Sweep(lambda p: scenario(p["hops"], p["config"], duration=duration), grid, seeds, out / "runs_hops",
                 metrics=chain_metrics, name="multihop/hops")


def rates_sweep(out: Path, quick: bool) -> Sweep:
    duration, seeds = _params(quick)
    grid = {"hops": [RATE_HOPS], "rate": RATES, "config": list(CONFIGS)}
    return Sweep(lambda p: scenario(p["hops"], p["config"], p["rate"], duration=duration), grid, seeds,
                 out / "runs_rates", metrics=chain_metrics, name="multihop/rates")


def udp_sweep(out: Path, quick: bool) -> Sweep:
    duration, seeds = _params(quick)
    grid = {"hops": QUICK_HOPS if quick else HOPS, "config": ["udp"],
            "interval_ms": QUICK_UDP_INTERVALS_MS if quick else UDP_INTERVALS_MS}
    return Sweep(lambda p: scenario(p["hops"], "udp", duration=duration, interval_ms=p["interval_ms"]), grid,
                 seeds, out / "runs_udp", metrics=chain_metrics, name="multihop/udp")


MEASURES = ["goodput_bps", "retransmits", "timeouts", "avg_window_pkts", "false_route_failures",
            "link_failures", "ll_drop_probability"]


def table(runs, by: list, measures=MEASURES):
    """Mean, std, n and 95 % half-width of each measure per cell of `by`."""
    return study_summary_many(runs, by, measures)


def udp_bound(udp):
    """Per chain length, the paced-UDP interval with the highest mean goodput
    and that goodput: the upper bound of the `hops` figure."""
    best = udp.loc[udp.groupby("hops", sort=False)["goodput_bps"].idxmax()]
    return best[["hops", "interval_ms", "goodput_bps", "goodput_bps_ci95"]].reset_index(drop=True)


# --- Figures -------------------------------------------------------------------------

_STYLE = {"newreno": dict(color="C3", marker="o"), "newreno+thin": dict(color="C3", marker="^", ls="--"),
          "newreno+clamp": dict(color="C1", marker="s", ls=":"),
          "vegas2": dict(color="C0", marker="o"), "vegas2+thin": dict(color="C0", marker="^", ls="--"),
          "vegas3": dict(color="C2", marker="o"), "vegas3+thin": dict(color="C2", marker="^", ls="--"),
          "vegas4": dict(color="C4", marker="o"), "vegas4+thin": dict(color="C4", marker="^", ls="--"),
          "udp": dict(color="k", marker="*", ls="-.")}


def _versus_hops(plt, hops, bound):
    """Four panels against the chain length: goodput (with the UDP bound),
    retransmissions, average window and false route failures."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), sharex=True)
    panels = [("goodput_bps", 1e3, "goodput (kbit/s)"), ("retransmits", 1, "TCP retransmissions"),
              ("avg_window_pkts", 1, "average window (packets)"),
              ("false_route_failures", 1, "false route failures")]
    for ax, (col, scale, ylabel) in zip(axes.flat, panels):
        for config in CONFIGS:
            d = hops[hops.config == config].sort_values("hops")
            ax.errorbar(d.hops, d[col] / scale, yerr=d[f"{col}_ci95"].fillna(0) / scale, capsize=2, lw=1.1, ms=3,
                        label=LABELS[config], **_STYLE[config])
        if col == "goodput_bps" and len(bound):
            b = bound.sort_values("hops")
            ax.plot(b.hops, b.goodput_bps / scale, label=LABELS["udp"], ms=6, **_STYLE["udp"])
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(hops.hops.unique()), [str(h) for h in sorted(hops.hops.unique())])
        ax.set_ylim(bottom=0)
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("hops")
    axes[0, 0].legend(fontsize=7, ncol=2)
    fig.suptitle("TCP over an h-hop 802.11 chain (2 Mbit/s, RTS/CTS, AODV; mean and 95 % CI)")
    return fig


def _rates(plt, rates):
    """Bars per TCP configuration and data rate on the 7-hop chain."""
    import numpy as np

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    panels = [("goodput_bps", 1e3, "goodput (kbit/s)"), ("retransmits", 1, "TCP retransmissions"),
              ("avg_window_pkts", 1, "average window (packets)"),
              ("ll_drop_probability", 1e-2, "link-layer drop probability (%)")]
    configs = list(CONFIGS)
    x = np.arange(len(configs))
    width = 0.8 / len(RATES)
    for ax, (col, scale, ylabel) in zip(axes.flat, panels):
        for i, rate in enumerate(RATES):
            d = rates[rates.rate == rate].set_index("config").reindex(configs)
            ax.bar(x + (i - (len(RATES) - 1) / 2) * width, d[col] / scale, width,
                   yerr=d[f"{col}_ci95"].fillna(0) / scale, capsize=2, label=rate.replace("Mbps", " Mbit/s"))
        ax.set_xticks(x, [LABELS[c] for c in configs], fontsize=7, rotation=35, ha="right")
        ax.set_ylim(bottom=0)
        ax.set_ylabel(ylabel)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"The {RATE_HOPS}-hop chain at three data rates (RTS/CTS, basic rate 1 Mbit/s; mean and 95 % CI)")
    return fig


def _udp(plt, udp):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for h in sorted(udp.hops.unique()):
        d = udp[udp.hops == h].sort_values("interval_ms")
        style = dict(lw=2.2, color="k") if h == RATE_HOPS else dict(lw=0.9, alpha=0.7)
        ax.errorbar(d.interval_ms, d.goodput_bps / 1e3, yerr=d.goodput_bps_ci95.fillna(0) / 1e3, capsize=2,
                    marker="o", ms=3, label=f"{h} hops", **style)
    ax.set_xlabel("inter-packet time (ms)")
    ax.set_ylabel("goodput (kbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("Paced UDP (1460-byte datagrams) against its inter-packet time")
    return fig


def figure_tasks(hops, bound, rates, udp) -> list:
    return [("versus_hops", _versus_hops, (hops, bound)), ("rates_7hop", _rates, (rates,)),
            ("udp_interval", _udp, (udp,))]


def run(out: str | Path = "results/multihop", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    """Run the three sweeps (resuming stored runs) and write the tables and
    figures."""
    import pandas as pd

    from ..io import atomic_write_text, staged_outputs
    from ..pools import local_jobs, run_local
    from .figures import draw_task

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    hruns = hops_sweep(out, quick).run(jobs=jobs, progress=progress)
    rruns = rates_sweep(out, quick).run(jobs=jobs, progress=progress)
    uruns = udp_sweep(out, quick).run(jobs=jobs, progress=progress)
    hops = table(hruns, ["hops", "config"])
    rates = table(rruns, ["hops", "rate", "config"])
    udp = table(uruns, ["hops", "interval_ms"], ["goodput_bps", "ll_drop_probability", "false_route_failures"])
    bound = udp_bound(udp)
    runs = pd.concat([hruns.assign(experiment="hops"), rruns.assign(experiment="rates"),
                      uruns.assign(experiment="udp")], ignore_index=True)
    # One set of tables and figures (io.staged_outputs): a study stopped
    # while drawing leaves the earlier set in `out` as it was.
    with staged_outputs(out) as stage:
        for name, t in [("runs.csv", runs), ("hops.csv", hops), ("rates.csv", rates), ("udp.csv", udp),
                        ("udp_bound.csv", bound)]:
            atomic_write_text(stage / name, t.to_csv(index=False))
        done = run_local([(draw_task, (t, stage)) for t in figure_tasks(hops, bound, rates, udp)],
                         local_jobs(jobs))
        figs = [out / Path(p).name for paths in done for p in paths]
    return {"runs": runs, "hops": hops, "rates": rates, "udp": udp, "udp_bound": bound, "figures": figs}
