"""Study `basestation` (SPEC 9.1): throughput and fairness of Tahoe, Reno,
NewReno and Vegas with Snoop and ELN at a base station.

Five fixed hosts send FTP to five mobile hosts through a source edge router,
a core router and a base station onto one shared 2 Mbit/s lossy wireless hop:

    fh_i --10Mb/1ms-- edge --10Mb/10ms-- core --10Mb/10ms-- bs
    bs ==2Mb/4ms, uniform packet errors both ways== cell --100Mb/1ms-- mh_i

One-way propagation 26 ms end to end, TCP payload 1000 bytes, receiver
window 10 packets, 100 s, DropTail queues of 50 packets. The `cell` node
stands for the shared radio channel: the 2 Mbit/s hop is the one all five
connections share and the one that loses packets. Mechanisms: plain, ELN
(marking at the base station, ELN-aware senders), Snoop at the base
station, and both.
"""
from __future__ import annotations

import math
from pathlib import Path

from ..scenario import Scenario
from ..sweep import Sweep, summarize

VARIANTS = ["tahoe", "reno", "newreno", "vegas"]
MECHANISMS = ["plain", "eln", "snoop", "snoop+eln"]
# 0, then 1, 2, 4, 6, 8 per decade from 0.001 % to 8 %, and 10 %.
ERROR_RATES = [0.0] + [m * 10.0 ** e for e in range(-5, -1) for m in (1, 2, 4, 6, 8)] + [0.1]
QUICK_ERROR_RATES = [0.0, 1e-4, 1e-3, 1e-2, 5e-2]
N_FLOWS = 5


def scenario(variant: str = "newreno", mechanism: str = "plain", error_rate: float = 0.0,
             duration: str = "100s", seed: int = 1) -> Scenario:
    """The network of SPEC 9.1 as a scenario (also usable on its own)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {', '.join(VARIANTS)}, got {variant!r}")
    if mechanism not in MECHANISMS:
        raise ValueError(f"mechanism: expected one of {', '.join(MECHANISMS)}, got {mechanism!r}")
    snoop = "snoop" in mechanism
    eln = "eln" in mechanism
    nodes = [{"name": "edge"}, {"name": "core"}, {"name": "bs", "snoop": snoop}, {"name": "cell"}]
    links: list[dict] = []
    for i in range(1, N_FLOWS + 1):
        nodes += [{"name": f"fh{i}"}, {"name": f"mh{i}"}]
        links.append({"between": [f"fh{i}", "edge"], "rate": "10Mbps", "delay": "1ms"})
    links += [
        {"between": ["edge", "core"], "rate": "10Mbps", "delay": "10ms"},
        {"between": ["core", "bs"], "rate": "10Mbps", "delay": "10ms"},
        {"between": ["bs", "cell"], "rate": "2Mbps", "delay": "4ms",
         "queue": {"kind": "droptail", "limit": 50},
         "error": {"kind": "uniform", "rate": error_rate, "direction": "both"}},
    ]
    links += [{"between": ["cell", f"mh{i}"], "rate": "100Mbps", "delay": "1ms"} for i in range(1, N_FLOWS + 1)]
    flows = [{
        "name": f"ftp{i}", "from": f"fh{i}", "to": f"mh{i}", "transport": variant,
        "packet_size": 1000, "window": 10, "eln": eln,
        # Staggered starts so the five slow starts do not coincide.
        "app": {"kind": "bulk", "start": f"{(i - 1) * 0.1:.1f}s"},
    } for i in range(1, N_FLOWS + 1)]
    return Scenario({"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"},
                     "node": nodes, "link": links, "flow": flows}, source="basestation")


def make_sweep(out: Path, quick: bool) -> Sweep:
    duration = "30s" if quick else "100s"
    grid = {"variant": VARIANTS, "mechanism": MECHANISMS,
            "error_rate": QUICK_ERROR_RATES if quick else ERROR_RATES}
    seeds = 2 if quick else 5

    def build(p: dict) -> Scenario:
        return scenario(p["variant"], p["mechanism"], p["error_rate"], duration)

    return Sweep(build, grid, seeds, out, name="basestation")


def tables(runs):
    by = ["variant", "mechanism", "error_rate"]
    thr = summarize(runs, by, "throughput_bps")
    unf = summarize(runs, by, "unfairness")
    return thr, unf


def _xaxis(ax):
    ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_xlim(left=0)
    ax.set_xlabel("packet error rate on the wireless hop (%)")
    ax.grid(True, which="both", alpha=0.3)


def _lines(ax, table, key, values, labels, col, scale):
    for v in values:
        d = table[table[key] == v].sort_values("error_rate")
        x = d["error_rate"] * 100
        y = d[col] / scale
        err = d[f"{col}_ci95"].fillna(0) / scale
        ax.errorbar(x, y, yerr=err, marker="o", ms=3, capsize=2, lw=1.2, label=labels.get(v, v))


LABELS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "vegas": "Vegas",
          "plain": "plain", "eln": "ELN", "snoop": "Snoop", "snoop+eln": "Snoop + ELN"}


def figures(thr, unf, out: Path) -> list:
    from .figures import pyplot, save as save_figure

    plt = pyplot()
    written: list[Path] = []

    def save(fig, name):
        save_figure(fig, out, name, written)

    ymax = thr["throughput_bps"].max() / 1e3 * 1.08
    for group, lines, name in [("mechanism", "variant", "throughput_by_mechanism"),
                               ("variant", "mechanism", "throughput_by_variant")]:
        panels = MECHANISMS if group == "mechanism" else VARIANTS
        values = VARIANTS if lines == "variant" else MECHANISMS
        fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True, sharey=True)
        for ax, panel in zip(axes.flat, panels):
            _lines(ax, thr[thr[group] == panel], lines, values, LABELS, "throughput_bps", 1e3)
            ax.set_title(LABELS[panel])
            _xaxis(ax)
            ax.set_ylim(0, ymax)
            ax.set_ylabel("average throughput per flow (kbit/s)")
            ax.legend(fontsize=8)
        fig.suptitle("Five TCP flows over a shared 2 Mbit/s lossy wireless hop (mean and 95 % CI)")
        save(fig, name)

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, variant in zip(axes, ["tahoe", "vegas"]):
        d = unf[(unf.variant == variant) & unf.mechanism.isin(["plain", "snoop"])]
        _lines(ax, d, "mechanism", ["plain", "snoop"], LABELS, "unfairness", 1)
        ax.set_title(LABELS[variant])
        _xaxis(ax)
        ax.set_ylabel("unfairness (max - min) / min")
        ax.legend(fontsize=8)
    fig.suptitle("Unfairness among the five flows (mean and 95 % CI)")
    save(fig, "unfairness")
    return written


def run(out: str | Path = "results/basestation", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    """Run the sweep (resuming stored runs), write the tables and figures."""
    from ..io import atomic_write_text

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sw = make_sweep(out, quick)
    runs = sw.run(jobs=jobs, progress=progress)
    thr, unf = tables(runs)
    atomic_write_text(out / "runs.csv", runs.to_csv(index=False))
    atomic_write_text(out / "throughput.csv", thr.to_csv(index=False))
    atomic_write_text(out / "unfairness.csv", unf.to_csv(index=False))
    figs = figures(thr, unf, out)
    return {"runs": runs, "throughput": thr, "unfairness": unf, "figures": figs}
