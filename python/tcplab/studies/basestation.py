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
station, and both; outside the study's grid, `scenario(mechanism="split")`
builds the same network with each connection split at the base station
(I-TCP).
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..scenario import Scenario
from ..sweep import Sweep, study_summary, study_summary_many
from . import check_choice

if TYPE_CHECKING:
    import pandas

VARIANTS = ["tahoe", "reno", "newreno", "vegas"]
MECHANISMS = ["plain", "eln", "snoop", "snoop+eln"]
# Not in the study's grid (SPEC 9.1 has the four above): a split
# connection (I-TCP) at the base station, SPEC 4's "for comparison"
# (validation/split_connections.py; docs/models.md, "Split connections").
SPLIT = "split"
# 0, then 1, 2, 4, 6, 8 per decade from 0.001 % to 8 %, and 10 %. Built
# from decimal text, so each rate is the float its decimal spelling gives
# (6e-05, not 6 * 1e-05 = 6.000000000000001e-05 in the tables).
ERROR_RATES = [0.0] + [float(f"{m}e{e}") for e in range(-5, -1) for m in (1, 2, 4, 6, 8)] + [0.1]
QUICK_ERROR_RATES = [0.0, 1e-4, 1e-3, 1e-2, 5e-2]
N_FLOWS = 5


STAGGER = 0.1        # s between the starts of the study's default runs
QUEUE = 50           # packets waiting at the base station (the bottleneck)
WINDOW = 10          # receiver window, packets
JITTER = 0.01        # s: start jitter of the "same start" variants, uniform in [0, JITTER)


def _start(x: float) -> str:
    # The default staggered starts keep their original spelling ("0.3s"), so
    # the scenarios of the default study (and the stored runs keyed by them)
    # do not change.
    return f"{x:.1f}s" if abs(round(x, 1) - x) < 1e-12 else f"{x:.6f}s"


def jitter_starts(seed: int, n: int = N_FLOWS, jitter: float = JITTER) -> list:
    """Start times for "the same start with small random jitter": uniform in
    [0, jitter) per flow, drawn from the run seed (so each seed is another
    draw, and the same seed gives the same starts)."""
    import random

    rng = random.Random(f"basestation-starts-{seed}")
    return [rng.uniform(0.0, jitter) for _ in range(n)]


def scenario(variant: str = "newreno", mechanism: str = "plain", error_rate: float = 0.0,
             duration: str = "100s", seed: int = 1, stagger: float = STAGGER, queue: int = QUEUE,
             window: int = WINDOW, starts: list | None = None, access_delays: list | None = None) -> Scenario:
    """The network of SPEC 9.1 as a scenario (also usable on its own).

    The keys SPEC 9.1 leaves open, with the study's defaults: `stagger`
    (seconds between the five starts; `starts` gives each start instead),
    `queue` (DropTail limit at the base station, packets waiting), `window`
    (receiver window, packets) and `access_delays` (one-way delay of each
    fixed host's access link in ms, default 1 ms each: 26 ms end to end)."""
    check_choice("variant", variant, VARIANTS)
    check_choice("mechanism", mechanism, MECHANISMS + [SPLIT])
    if starts is None:
        starts = [(i - 1) * stagger for i in range(1, N_FLOWS + 1)]
    if access_delays is None:
        access_delays = [1] * N_FLOWS
    if len(starts) != N_FLOWS or len(access_delays) != N_FLOWS:
        raise ValueError(f"starts, access_delays: expected {N_FLOWS} values each")
    snoop = "snoop" in mechanism
    eln = "eln" in mechanism
    nodes = [{"name": "edge"}, {"name": "core"}, {"name": "bs", "snoop": snoop}, {"name": "cell"}]
    links: list[dict] = []
    for i in range(1, N_FLOWS + 1):
        nodes += [{"name": f"fh{i}"}, {"name": f"mh{i}"}]
        d = access_delays[i - 1]
        links.append({"between": [f"fh{i}", "edge"], "rate": "10Mbps", "delay": f"{d:g}ms"})
    links += [
        {"between": ["edge", "core"], "rate": "10Mbps", "delay": "10ms"},
        {"between": ["core", "bs"], "rate": "10Mbps", "delay": "10ms"},
        {"between": ["bs", "cell"], "rate": "2Mbps", "delay": "4ms",
         "queue": {"kind": "droptail", "limit": int(queue)},
         "error": {"kind": "uniform", "rate": error_rate, "direction": "both"}},
    ]
    links += [{"between": ["cell", f"mh{i}"], "rate": "100Mbps", "delay": "1ms"} for i in range(1, N_FLOWS + 1)]
    flows = [{
        "name": f"ftp{i}", "from": f"fh{i}", "to": f"mh{i}", "transport": variant,
        "packet_size": 1000, "window": int(window), "eln": eln,
        # Default: staggered starts so the five slow starts do not coincide.
        "app": {"kind": "bulk", "start": _start(starts[i - 1])},
        **({"split": {"node": "bs"}} if mechanism == SPLIT else {}),
    } for i in range(1, N_FLOWS + 1)]
    data = {"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"},
            "node": nodes, "link": links, "flow": flows}
    if eln:
        # The experiment is ELN as published (Balakrishnan & Katz), for
        # every variant alike: ns-2.35's own ELN sender (the ns2 profile's
        # tcp.eln_sender) lets its copy race a timer started at the last new
        # ACK, and its Vegas never reads the bit (tcp.eln_all_variants), so
        # the paper's sender is asked for (docs/studies.md).
        data["tcp"] = {"eln_sender": "paper", "eln_all_variants": True}
    return Scenario(data, source="basestation")


def make_sweep(out: Path, quick: bool) -> Sweep:
    duration = "30s" if quick else "100s"
    grid = {"variant": VARIANTS, "mechanism": MECHANISMS,
            "error_rate": QUICK_ERROR_RATES if quick else ERROR_RATES}
    seeds = 2 if quick else 5

    def build(p: dict) -> Scenario:
        return scenario(p["variant"], p["mechanism"], p["error_rate"], duration)

    return Sweep(build, grid, seeds, out, name="basestation")


# Variants that answer the study's question beyond its own set-up (issue 12):
# all start together (small random jitter instead of the 0.1 s stagger), a
# bottleneck queue that overflows (congestion and corruption losses together),
# and five different round-trip times.
RTT_ACCESS_DELAYS = [1, 11, 21, 31, 41]   # ms: one-way 26, 36, 46, 56, 66 ms end to end
CONGESTED_QUEUE = 10
EXPERIMENTS: dict[str, dict[str, Any]] = {
    "same-start": {"jitter": True},
    "congested": {"jitter": True, "queue": CONGESTED_QUEUE},
    "rtt": {"jitter": True, "access_delays": RTT_ACCESS_DELAYS},
}


def experiment_scenario(experiment: str, variant: str, mechanism: str, error_rate: float,
                        duration: str = "100s", seed: int = 1) -> Scenario:
    e = EXPERIMENTS[experiment]
    return scenario(variant, mechanism, error_rate, duration, seed,
                    queue=e.get("queue", QUEUE), window=e.get("window", WINDOW),
                    starts=jitter_starts(seed) if e.get("jitter") else None,
                    access_delays=e.get("access_delays"))


def per_flow_metrics(flows: dict, summary: dict) -> dict:
    """The default measures plus each flow's throughput (bit/s)."""
    from ..sweep import default_metrics

    m = default_metrics(flows, summary)
    for i, x in enumerate(flows["throughput_bps"], start=1):
        m[f"throughput_{i}_bps"] = x
    return m


def experiment_sweep(out: Path, experiment: str, quick: bool) -> Sweep:
    duration = "30s" if quick else "100s"
    grid = {"experiment": [experiment], "variant": VARIANTS, "mechanism": MECHANISMS,
            "error_rate": QUICK_ERROR_RATES if quick else ERROR_RATES}

    def build(p: dict, seed: int) -> Scenario:
        return experiment_scenario(p["experiment"], p["variant"], p["mechanism"], p["error_rate"], duration, seed)

    return Sweep(build, grid, 2 if quick else 5, out / "experiments" / experiment, metrics=per_flow_metrics,
                 name=f"basestation/{experiment}")


def tables(runs):
    by = ["variant", "mechanism", "error_rate"]
    thr = study_summary(runs, by, "throughput_bps")
    unf = study_summary(runs, by, "unfairness")
    return thr, unf


def experiment_tables(runs):
    by = ["experiment", "variant", "mechanism", "error_rate"]
    cols = ["unfairness", "jain", "retransmits", "timeouts"] + [f"throughput_{i}_bps" for i in range(1, N_FLOWS + 1)]
    return study_summary_many(runs, by, ["throughput_bps", *cols])


# --- Mechanism analyses from traces -------------------------------------------------

def _rtt_samples(t, flow: str):
    """(ack time, RTT) for every ACK of new data whose segment was sent once
    (Karn): send time of the segment that ends at the ACK."""
    d = t[t.flow == flow]
    sent = {}
    rtx = set()
    out = []
    for time, kind, seq, ln in zip(d.time_s, d.kind, d.seq, d.len):
        if kind == "send" and ln > 0:  # not the SYN: its answer acknowledges no data
            sent[seq + ln] = time
        elif kind == "retransmit":
            rtx.add(seq + ln)
        elif kind == "ack" and seq in sent and seq not in rtx:
            out.append((time, time - sent.pop(seq)))
    return out


def vegas_analysis(duration: str = "100s") -> "pandas.DataFrame":
    """Why Vegas is unfair without loss: per flow of a Vegas run (and a Reno
    run for contrast) with staggered and with jittered starts: throughput,
    mean cwnd, BaseRTT (the smallest RTT the flow measured: what Vegas's
    BaseRTT becomes) and the mean RTT."""
    import pandas as pd

    import tcplab

    rows = []
    for variant in ["vegas", "reno"]:
        for label, starts in [("staggered 0.1 s", None), ("same start, jitter", jitter_starts(1))]:
            sc = scenario(variant, "plain", 0.0, duration, 1, starts=starts)
            sc.data["output"] = {"trace": True, "sample_interval": "0.1s"}
            r = tcplab.run(sc)
            f, t, ser = r.flows, r.trace, r.series
            for i, name in enumerate(f["flow"]):
                rtt = _rtt_samples(t, name)
                cw = ser[ser.flow == name].cwnd_bytes
                rows.append({"variant": variant, "starts": label, "flow": name,
                             "start_s": float(f["start_s"][i]),
                             "throughput_kbps": float(f["throughput_bps"][i]) / 1e3,
                             "mean_cwnd_segments": float(cw.mean()) / 1000,
                             "base_rtt_ms": 1e3 * min(x for _, x in rtt) if rtt else float("nan"),
                             "mean_rtt_ms": 1e3 * sum(x for _, x in rtt) / len(rtt) if rtt else float("nan"),
                             "retransmits": int(f["retransmits"][i])})
    return pd.DataFrame(rows)


def snoop_eln_analysis(duration: str = "100s", rates=(0.01, 0.05, 0.1), seed: int = 1):
    """Why Snoop + ELN equals Snoop: per run, the sender's own
    retransmissions and how each recovery episode started. Every recovery
    the sender still makes is classified by the trace of its first
    retransmitted segment: `air_lost` (the segment was lost on the wireless
    hop and Snoop was still repairing it locally when the sender's timer
    fired), `never_lost` (the segment was not dropped: a spurious timeout),
    and the number of duplicate ACKs that reached the sender between the
    segment's first loss and the sender's retransmission (the only ACKs ELN
    can mark; Snoop suppresses the others). Also the sender's ELN
    retransmissions and timeouts."""
    import pandas as pd

    import tcplab

    rows, episodes = [], []
    for variant in ["reno", "vegas"]:
        for rate in rates:
            for mech in ["snoop", "snoop+eln"]:
                sc = scenario(variant, mech, rate, duration, seed)
                sc.data["output"] = {"trace": True}
                r = tcplab.run(sc)
                f, t = r.flows, r.trace
                kinds = {"air_lost": 0, "never_lost": 0}
                dup_seen = 0
                for name in f["flow"]:
                    d = t[t.flow == name]
                    una = 0
                    drops: dict[int, float] = {}
                    local: dict[int, int] = {}
                    dups: list[float] = []
                    in_episode = False
                    for time, kind, seq in zip(d.time_s, d.kind, d.seq):
                        if kind == "ack":
                            una = max(una, seq)
                            in_episode = False
                        elif kind == "dupack":
                            dups.append(time)
                        elif kind == "drop":
                            drops.setdefault(seq, time)
                        elif kind == "local_retransmit":
                            local[seq] = local.get(seq, 0) + 1
                        elif kind == "retransmit" and seq == una and not in_episode:
                            in_episode = True
                            lost = seq in drops
                            since = drops.get(seq)
                            nd = sum(1 for x in dups if since is not None and since <= x <= time)
                            dup_seen += nd
                            kinds["air_lost" if lost else "never_lost"] += 1
                            episodes.append({"variant": variant, "error_rate": rate, "mechanism": mech,
                                             "flow": name, "time_s": time, "seq": seq, "lost_on_air": lost,
                                             "s_since_loss": time - since if lost else float("nan"),
                                             "local_retransmits": local.get(seq, 0),
                                             "dupacks_to_sender": nd})
                rows.append({"variant": variant, "error_rate": rate, "mechanism": mech,
                             "throughput_kbps": float(f["throughput_bps"].mean()) / 1e3,
                             "sender_retransmits": int(f["retransmits"].sum()),
                             "sender_timeouts": int(f["timeouts"].sum()),
                             "fast_retransmits": int(f["fast_retransmits"].sum()),
                             "eln_retransmits": int(f["eln_retransmits"].sum()),
                             "snoop_local_retransmits": int(f["snoop_local_retransmits"].sum()),
                             "snoop_suppressed_dupacks": int(f["snoop_suppressed_dupacks"].sum()),
                             "episodes_air_lost": kinds["air_lost"],
                             "episodes_never_lost": kinds["never_lost"],
                             "dupacks_reaching_sender_in_episodes": dup_seen})
    return pd.DataFrame(rows), pd.DataFrame(episodes)


def _xaxis(ax):
    ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_xlim(left=0)
    ax.set_xlabel("packet error rate on the wireless hop (%)")
    ax.grid(True, which="both", alpha=0.3)


def _lines(ax, table, key, values, labels, col, scale) -> list[str]:
    """One line per value of `key` against the error rate, with its 95 %
    interval clipped to the range the measure can take (tcplab.metrics:
    unfairness and throughput never below 0). A cell whose mean is not
    finite (unfairness is infinite when a flow got nothing in one seed)
    cannot be drawn: it gets a marker on the panel's top edge in its
    line's colour, and is returned as text for the figure's note."""
    import numpy as np

    from ..metrics import METRICS
    from .figures import clipped_yerr

    metric = METRICS.get(col)
    low, high = (metric.low, metric.high) if metric else (-math.inf, math.inf)
    missing = []
    for v in values:
        d = table[table[key] == v].sort_values("error_rate")
        x = d["error_rate"] * 100
        y = d[col] / scale
        err = clipped_yerr(d[col], d[f"{col}_ci95"], low, high) / scale
        # Snoop + ELN often equals Snoop exactly: dashed, so both stay visible.
        style = dict(ls="--", marker="x", ms=5) if v == "snoop+eln" else dict(marker="o", ms=3)
        line = ax.errorbar(x, y, yerr=err, capsize=2, lw=1.2, label=labels.get(v, v), **style)
        bad = ~np.isfinite(np.asarray(d[col], dtype=float))
        if bad.any():
            ax.plot(x[bad], np.ones(int(bad.sum())), ls="none", marker="^", ms=6, clip_on=False,
                    color=line.lines[0].get_color(), transform=ax.get_xaxis_transform())
            rates = ", ".join(f"{r * 100:g} %" for r in d["error_rate"][bad])
            missing.append(f"{labels.get(v, v)} at {rates}")
    return missing


def _missing_note(fig, missing: dict) -> None:
    """Say under the figure which cells' means are not drawn (`missing`:
    panel title -> cells), so an absent point is not read as no data."""
    import textwrap

    cells = "; ".join(f"{panel}: {', '.join(m)}" for panel, m in missing.items() if m)
    if cells:
        # Wrapped here: tight_layout makes room for the text as given.
        fig.supxlabel(textwrap.fill("Not drawn, mean not finite (unfairness is infinite when a flow got nothing "
                                    f"in a seed; a triangle on the top edge marks each): {cells}", 150),
                      fontsize=8)


LABELS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "vegas": "Vegas",
          "plain": "plain", "eln": "ELN", "snoop": "Snoop", "snoop+eln": "Snoop + ELN"}


def _panels(plt, table, col, scale, ylabel, title, ymax=None):
    """2 x 2 panels, one per variant, one line per mechanism. The shared y
    axis holds every mean and interval drawn, and reaches at least `ymax`
    (a scale common to several figures)."""
    from .figures import fit_y

    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True, sharey=True)
    missing = {}
    for ax, variant in zip(axes.flat, VARIANTS):
        missing[LABELS[variant]] = _lines(ax, table[table.variant == variant], "mechanism", MECHANISMS, LABELS,
                                          col, scale)
        ax.set_title(LABELS[variant])
        _xaxis(ax)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    fit_y(axes.flat, top=ymax)
    _missing_note(fig, missing)
    fig.suptitle(title)
    return fig


def _throughput_panels(plt, thr, group: str, lines: str, ymax: float):
    from .figures import fit_y

    panels = MECHANISMS if group == "mechanism" else VARIANTS
    values = VARIANTS if lines == "variant" else MECHANISMS
    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True, sharey=True)
    missing = {}
    for ax, panel in zip(axes.flat, panels):
        missing[LABELS[panel]] = _lines(ax, thr[thr[group] == panel], lines, values, LABELS, "throughput_bps", 1e3)
        ax.set_title(LABELS[panel])
        _xaxis(ax)
        ax.set_ylabel("average throughput per flow (kbit/s)")
        ax.legend(fontsize=8)
    fit_y(axes.flat, top=ymax)
    _missing_note(fig, missing)
    fig.suptitle("Five TCP flows over a shared 2 Mbit/s lossy wireless hop (mean and 95 % CI)")
    return fig


def _rtt_flows(plt, d):
    """Per-flow throughput against the flow's round-trip time."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    rtts = [2 * (25 + a) for a in RTT_ACCESS_DELAYS]
    for ax, rate in zip(axes, [0.0, 0.01]):
        for variant in VARIANTS:
            for mech, ls in [("plain", "-"), ("snoop", "--")]:
                row = d[(d.variant == variant) & (d.mechanism == mech) & (d.error_rate == rate)]
                if not len(row):
                    continue
                ys = [row[f"throughput_{i}_bps"].iloc[0] / 1e3 for i in range(1, N_FLOWS + 1)]
                ax.plot(rtts, ys, marker="o", ls=ls, label=f"{LABELS[variant]}, {LABELS[mech]}")
        ax.set_title(f"packet error rate {rate * 100:g} %")
        ax.set_xlabel("flow's propagation round-trip time (ms)")
        ax.set_ylabel("throughput of the flow (kbit/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle("Five flows with different round-trip times (mean over seeds)")
    return fig


def figure_tasks(thr, unf, exp=None) -> list:
    """The study's figures as (name, function(plt, *args) -> figure, args):
    independent, so `run` draws them in parallel (`figures.draw_task`)."""
    # One throughput scale for the study's and the experiments' figures:
    # the highest upper end of a 95 % interval (or mean), so no bar is cut.
    tables = [thr] if exp is None else [thr, exp]
    ymax = max((t["throughput_bps"] + t["throughput_bps_ci95"].fillna(0)).max() for t in tables) / 1e3 * 1.05
    tasks = [("throughput_by_mechanism", _throughput_panels, (thr, "mechanism", "variant", ymax)),
             ("throughput_by_variant", _throughput_panels, (thr, "variant", "mechanism", ymax)),
             # Unfairness for every variant and all four mechanisms (SPEC 9.1
             # names plain and Snoop for Tahoe and Vegas; ELN and Snoop + ELN
             # are added).
             ("unfairness", _panels, (unf, "unfairness", 1, "unfairness (max - min) / min",
                                      "Unfairness among the five flows (mean and 95 % CI)"))]
    if exp is None:
        return tasks
    titles = {"same-start": "all five start together (0-10 ms jitter), queue 50",
              "congested": f"same start, bottleneck queue {CONGESTED_QUEUE}: congestion and corruption losses",
              "rtt": "same start, one-way delays 26, 36, 46, 56, 66 ms"}
    for e in EXPERIMENTS:
        d = exp[exp.experiment == e]
        if not len(d):
            continue
        tasks.append((f"{e}_throughput", _panels, (d, "throughput_bps", 1e3, "average throughput per flow (kbit/s)",
                                                   f"{titles[e]} (mean and 95 % CI)", ymax)))
        tasks.append((f"{e}_unfairness", _panels, (d, "unfairness", 1, "unfairness (max - min) / min",
                                                   f"Unfairness: {titles[e]} (mean and 95 % CI)")))
    d = exp[(exp.experiment == "rtt")]
    if len(d):
        tasks.append(("rtt_flows", _rtt_flows, (d,)))
    return tasks


def run(out: str | Path = "results/basestation", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    """Run the sweeps (resuming stored runs), the trace analyses, and write
    the tables and figures."""
    import pandas as pd

    from ..io import atomic_write_text, staged_outputs

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sw = make_sweep(out, quick)
    runs = sw.run(jobs=jobs, progress=progress)
    thr, unf = tables(runs)
    eruns = pd.concat([experiment_sweep(out, e, quick).run(jobs=jobs, progress=progress) for e in EXPERIMENTS],
                      ignore_index=True)
    exp = experiment_tables(eruns)
    duration = "30s" if quick else "100s"
    # The trace analyses and the figures are independent of each other: they
    # run side by side in local processes (`jobs` of them) instead of one
    # after the other in this one, where they were a fifth of the study's
    # time with one job.
    from ..pools import local_jobs, run_local
    from .figures import draw_task

    figs_tasks = figure_tasks(thr, unf, exp)
    # Tables and figures go into `out` as one set, after all are made
    # (io.staged_outputs): a study stopped while drawing leaves the earlier
    # set as it was, not new tables beside old figures.
    with staged_outputs(out) as stage:
        done = run_local([(vegas_analysis, (duration,)), (snoop_eln_analysis, (duration,))]
                         + [(draw_task, (t, stage)) for t in figs_tasks], local_jobs(jobs))
        vegas, (snoop_eln, episodes) = done[0], done[1]
        figs = [out / Path(p).name for paths in done[2:] for p in paths]
        for name, table in [("runs.csv", runs), ("throughput.csv", thr), ("unfairness.csv", unf),
                            ("experiments_runs.csv", eruns), ("experiments.csv", exp),
                            ("vegas_unfairness.csv", vegas), ("snoop_eln.csv", snoop_eln),
                            ("snoop_eln_episodes.csv", episodes)]:
            atomic_write_text(stage / name, table.to_csv(index=False))
    return {"runs": runs, "throughput": thr, "unfairness": unf, "experiments": exp, "vegas": vegas,
            "snoop_eln": snoop_eln, "figures": figs}
