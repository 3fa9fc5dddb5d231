"""Study `wifi-bs` (SPEC 9.5): TCP variants through two 802.11 base stations
joined by wired links, with RED/ECN on the wired links and Snoop at the base
stations.

The network: two wired routers w1 and w2 on a 10 Mbit/s LAN; base station
bs1 hangs off w1 and bs2 off w2, each by a 1 Mbit/s 1 ms link with a RED
queue in both directions (ns-2.35's RED as its automatic configuration sets
it for that link: min_th 5, max_th 15, weight 1 - exp(-1/250), max_p 0.1,
gentle, ECN marking for ECN-capable packets). Twelve stations in a 600 m x
600 m area, six in each base station's cell (bs1 at (150, 300), bs2 at
(450, 300): 300 m apart, so the base stations sense but cannot decode each
other); each station is placed uniformly in its cell's half of the area
within CELL_RADIUS of its base station, by the run's seed. 802.11b at
11 Mbit/s (1 Mbit/s basic rate, RTS/CTS), ns-2.35's radio and two-ray
ground, DSDV on every station, priority drop-tail interface queues of 50
packets. Wireless losses: every station's radio (the base stations' too)
corrupts each frame it would decode with probability `error` (ns-2's
incoming error model), so frames between each base station and its
stations are lost both ways and the MAC retries them.

Traffic: FTP (bulk) over the ns2 TCP profile (1000-byte segments, window
20). Unidirectional: station a_i of bs1's cell sends to station b_i of
bs2's, i = 1 ... 6. Bidirectional: b_i also sends to a_i. Variants:
Tahoe, Reno, NewReno, SACK, Vegas, E-Vegas and E-NewReno (Vegas and NewReno
with ECN), each without and with Snoop at both base stations (Snoop works
on the connections whose data leave on the base station's radio: the
downlink into bs2's cell, and into bs1's in the bidirectional runs).

Outputs: per variant, direction, Snoop and frame error rate the mean,
standard deviation, count and 95 % half-width of the aggregate goodput out
of bs1's cell (and into it, both ways), Jain's index, TCP retransmissions,
timeouts, ECN window cuts, Snoop's local retransmissions, MAC frame errors
and retries (summary.csv; the RED links' drops, ECN marks and utilisation
are not recorded by the sweep: `tcplab.run(scenario(...)).links` has them
per run); figures of throughput vs time and cwnd vs time per variant (the
mean over the seeds at the figure's error rate), and of goodput vs error
rate.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from ..metrics import jain
from ..scenario import Scenario
from ..sweep import Sweep, study_summary_many
from . import check_choice, wireless_profile

AREA = (600.0, 600.0)            # m
BASE_STATIONS = {"bs1": (150.0, 300.0), "bs2": (450.0, 300.0)}
CELL_RADIUS = 220.0              # m: inside the 250 m receive range
STATIONS_PER_CELL = 6
LINK_RATE = 1e6                  # bit/s, base station - router
LINK_DELAY = "1ms"
LAN_RATE, LAN_DELAY = "10Mbps", "1ms"
DATA_RATE = "11Mbps"             # 802.11b; at 2 Mbit/s the radio, not the RED links, limits (docs/studies.md)
MEAN_PKTSIZE = 500               # bytes: ns-2.35's RED mean_pktsize_
PROFILE = "standard"             # [wireless] profile
START = 10.0                     # s: the transfers start once DSDV has converged
DURATION, QUICK_DURATION = 110.0, 40.0
SEEDS, QUICK_SEEDS = 5, 1
ERRORS, QUICK_ERRORS = [0.0, 0.01, 0.05, 0.1], [0.0, 0.05]
FIGURE_ERROR = 0.05              # the time-series figures' frame error rate
SAMPLE = 1.0                     # s between samples of the time series

VARIANTS = ["tahoe", "reno", "newreno", "sack", "vegas", "e-vegas", "e-newreno"]
DIRECTIONS = ["uni", "bi"]
LABELS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK", "vegas": "Vegas",
          "e-vegas": "E-Vegas", "e-newreno": "E-NewReno"}


def red_queue() -> dict:
    """ns-2.35's RED defaults as its automatic configuration resolves them
    for a LINK_RATE link with LINK_DELAY (red.cc `initialize_params`:
    thresh_ 0 gives 5 packets, or half the queue of its 5 ms target delay
    if more; maxthresh_ 0 gives three times that; q_weight_ -1 gives
    1 - exp(-1 / (10 x RTT x C)) with RTT = max(0.1 s, 3 x (delay + one
    packet's time)), C in mean-size packets per second), ECN marking on."""
    ptc = LINK_RATE / (8 * MEAN_PKTSIZE)
    min_th = max(5.0, 0.005 * ptc / 2)
    rtt = max(0.1, 3 * (float(LINK_DELAY.rstrip("ms")) / 1e3 + 1 / ptc))
    return {"kind": "red", "min_th": min_th, "max_th": 3 * min_th, "max_p": 0.1,
            "weight": 1 - math.exp(-1 / (10 * rtt * ptc)), "gentle": True, "mean_pktsize": MEAN_PKTSIZE,
            "ecn": True, "limit": 50}


def placement(seed: int) -> dict[str, list[float]]:
    """The twelve stations' positions for `seed`: a1..a6 in bs1's cell (the
    left half), b1..b6 in bs2's (the right half), each uniform in its half
    within CELL_RADIUS of its base station."""
    import random

    rng = random.Random(f"wifi-bs-placement-{seed}")
    pos = {}
    for cell, (prefix, (bx, by)) in enumerate(zip("ab", BASE_STATIONS.values())):
        x0 = cell * AREA[0] / 2
        for i in range(1, STATIONS_PER_CELL + 1):
            while True:
                x, y = rng.uniform(x0, x0 + AREA[0] / 2), rng.uniform(0, AREA[1])
                if (x - bx) ** 2 + (y - by) ** 2 <= CELL_RADIUS ** 2:
                    break
            pos[f"{prefix}{i}"] = [round(x, 3), round(y, 3)]
    return pos


def scenario(variant: str = "newreno", direction: str = "uni", snoop: bool = False, error: float = FIGURE_ERROR,
             duration: float = DURATION, seed: int = 1, profile: str | None = None) -> Scenario:
    """The two cells with the flows of `direction`, every connection of
    `variant`, Snoop at the base stations or not, frame error rate `error`
    on every radio."""
    check_choice("variant", variant, VARIANTS)
    check_choice("direction", direction, DIRECTIONS)
    if not isinstance(snoop, bool):
        raise ValueError(f"snoop: expected True or False, got {snoop!r}")
    if not (isinstance(error, (int, float)) and not isinstance(error, bool) and 0.0 <= error <= 1.0):
        raise ValueError(f"error: expected a probability in [0, 1], got {error!r}")
    radio: dict = {"frame_error_rate": error} if error > 0 else {}
    nodes: list[dict] = [{"name": "w1"}, {"name": "w2"}]
    nodes += [{"name": n, "position": list(p), "snoop": snoop, **radio} for n, p in BASE_STATIONS.items()]
    nodes += [{"name": n, "position": p, "base_station": "bs1" if n[0] == "a" else "bs2", **radio}
              for n, p in placement(seed).items()]
    red = red_queue()
    links = [{"between": ["bs1", "w1"], "rate": f"{LINK_RATE:g}bps", "delay": LINK_DELAY, "queue": red},
             {"between": ["w1", "w2"], "rate": LAN_RATE, "delay": LAN_DELAY},
             {"between": ["w2", "bs2"], "rate": f"{LINK_RATE:g}bps", "delay": LINK_DELAY, "queue": red}]
    transport, ecn = (variant[2:], True) if variant.startswith("e-") else (variant, False)
    pairs = [(f"a{i}", f"b{i}") for i in range(1, STATIONS_PER_CELL + 1)]
    if direction == "bi":
        pairs += [(b, a) for a, b in pairs]
    flows = [{"name": f"{s}-{d}", "from": s, "to": d, "transport": transport, "ecn": ecn,
              "app": {"kind": "bulk", "start": f"{START:g}s"}} for s, d in pairs]
    data = {"sim": {"duration": f"{duration:g}s", "seed": seed, "tcp_profile": "ns2"},
            "wireless": {"data_rate": DATA_RATE, "basic_rate": "1Mbps", "rts_threshold": 0, "routing": "dsdv",
                         "profile": wireless_profile(profile, PROFILE)},
            "node": nodes, "link": links, "flow": flows, "output": {"sample_interval": f"{SAMPLE:g}s"}}
    if variant == "e-vegas":
        # The experiment is Vegas with ECN; ns-2.35's own Vegas agent never
        # sends ECT (tcp.vegas_ecn, off in the ns2 profile), so it is asked for.
        data["tcp"] = {"vegas_ecn": True}
    return Scenario(data, source="wifi-bs")


def run_metrics(flows: dict, nodes: dict, series, params: dict) -> dict:
    """Aggregate goodput of the flows out of bs1's cell (`goodput_bps`) and,
    bidirectionally, into it (`reverse_goodput_bps`); Jain's index of all
    flows' goodputs; TCP retransmissions, timeouts and ECN cuts; Snoop's
    local retransmissions; MAC frame errors; and, as JSON text, the
    aggregate throughput of each second after the start and the first
    flow's cwnd at each sample (for the time-series figures)."""
    names, good = flows["flow"], flows["goodput_bps"]
    out_bs1 = [g for n, g in zip(names, good) if n.startswith("a")]
    into_bs1 = [g for n, g in zip(names, good) if n.startswith("b")]
    m = {"goodput_bps": sum(out_bs1), "reverse_goodput_bps": sum(into_bs1) if into_bs1 else math.nan,
         "jain": jain(good), "retransmits": sum(flows["retransmits"]), "timeouts": sum(flows["timeouts"]),
         "ecn_reductions": sum(flows["ecn_reductions"]),
         "local_retransmits": sum(flows["snoop_local_retransmits"]),
         "frame_errors": sum(nodes["frame_errors"]), "mac_retries": sum(nodes["retries"])}
    thr, cwnd = [], []
    if series is not None:
        delivered: dict[float, int] = {}
        first = names[0]
        for t, f, c, d in zip(series["time_s"], series["flow"], series["cwnd_bytes"], series["bytes_delivered"]):
            delivered[t] = delivered.get(t, 0) + d
            if f == first and t >= START:
                cwnd.append(c / 1000)
        times = sorted(t for t in delivered if t >= START)
        thr = [(delivered[b] - delivered[a]) * 8 / (b - a) for a, b in zip(times, times[1:])]
    m["throughput_series"] = json.dumps([round(x) for x in thr])
    m["cwnd_series"] = json.dumps([round(x, 3) for x in cwnd])
    return m


MEASURES = ["goodput_bps", "reverse_goodput_bps", "jain", "retransmits", "timeouts", "ecn_reductions",
            "local_retransmits", "frame_errors", "mac_retries"]


def make_sweep(out: Path, quick: bool) -> Sweep:
    duration = QUICK_DURATION if quick else DURATION
    grid = {"direction": DIRECTIONS, "variant": VARIANTS, "snoop": [False, True],
            "error": QUICK_ERRORS if quick else ERRORS}

    # The builder takes the run's seed: the stations' placement is drawn per
    # seed (`placement`). Without it every seed got seed 1's layout and only
    # the simulation's random stream changed.
    def build(p: dict, seed: int) -> Scenario:
        return scenario(p["variant"], p["direction"], p["snoop"], p["error"], duration, seed)

    return Sweep(build, grid, QUICK_SEEDS if quick else SEEDS, out, metrics=run_metrics, name="wifi-bs")


def mean_series(runs, column: str):
    """Per (direction, variant, snoop) at FIGURE_ERROR: the element-wise
    mean over the seeds of a JSON series column."""
    import numpy as np

    d = runs[runs.error == FIGURE_ERROR]
    out = {}
    for key, g in d.groupby(["direction", "variant", "snoop"]):
        arrays = [np.array(json.loads(s), dtype=float) for s in g[column]]
        n = min(len(a) for a in arrays)
        out[key] = np.mean([a[:n] for a in arrays], axis=0) if n else np.array([])
    return out


def _series_figure(plt, series: dict, direction: str, scale: float, ylabel: str, title: str):
    import numpy as np

    from .figures import fit_y

    fig, axes = plt.subplots(2, 4, figsize=(14, 6.5), sharex=True, sharey=True)
    for ax, variant in zip(axes.flat, VARIANTS):
        for snoop, style in [(False, "-"), (True, "--")]:
            y = series.get((direction, variant, snoop), np.array([]))
            ax.plot(START + SAMPLE * np.arange(len(y)), y / scale, style, lw=1.1,
                    label="Snoop" if snoop else "no Snoop")
        ax.set_title(LABELS[variant])
        ax.grid(True, alpha=0.3)
    # One range for the shared axis once every panel is drawn.
    fit_y(axes.flat)
    axes.flat[-1].axis("off")
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(title)
    return fig


def _goodput_vs_error(plt, summary, direction: str):
    from .figures import clipped_yerr, fit_y

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    d = summary[summary.direction == direction]
    for ax, snoop in zip(axes, [False, True]):
        for variant in VARIANTS:
            v = d[(d.variant == variant) & (d.snoop == snoop)].sort_values("error")
            err = clipped_yerr(v.goodput_bps, v.goodput_bps_ci95, low=0.0)
            ax.errorbar(100 * v.error, v.goodput_bps / 1e3, yerr=err / 1e3, marker="o", ms=3, capsize=2, lw=1.1,
                        label=LABELS[variant])
        ax.set_title("with Snoop" if snoop else "without Snoop")
        ax.set_xlabel("frame error rate at every radio (%)")
        ax.grid(True, alpha=0.3)
    fit_y(axes)
    axes[0].set_ylabel("goodput out of bs1's cell (kbit/s)")
    axes[0].legend(fontsize=8)
    what = "one way" if direction == "uni" else "both ways (bs1 -> bs2 shown)"
    fig.suptitle(f"Six connections bs1's cell -> bs2's cell, {what}: mean and 95 % CI")
    return fig


def figure_tasks(runs, summary) -> list:
    thr, cwnd = mean_series(runs, "throughput_series"), mean_series(runs, "cwnd_series")
    tasks: list[tuple] = []
    for direction, what in [("uni", "one way"), ("bi", "both ways")]:
        tasks.append((f"throughput_time_{direction}", _series_figure,
                      (thr, direction, 1e3, "throughput (kbit/s)",
                       f"Aggregate throughput vs time, {what}, frame error rate {FIGURE_ERROR:.0%} "
                       "(mean over the seeds)")))
        tasks.append((f"cwnd_time_{direction}", _series_figure,
                      (cwnd, direction, 1.0, "cwnd (segments)",
                       f"cwnd of connection a1 -> b1 vs time, {what}, frame error rate {FIGURE_ERROR:.0%} "
                       "(mean over the seeds)")))
        tasks.append((f"goodput_error_{direction}", _goodput_vs_error, (summary, direction)))
    return tasks


def run(out: str | Path = "results/wifi-bs", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    """Run the sweep (resuming stored runs) and write its tables and figures."""
    from ..io import atomic_write_text, staged_outputs
    from ..pools import local_jobs, run_local
    from .figures import draw_task

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = make_sweep(out, quick).run(jobs=jobs, progress=progress)
    summary = study_summary_many(runs, ["direction", "variant", "snoop", "error"], MEASURES)
    scalar = runs.drop(columns=["throughput_series", "cwnd_series"])
    # One set of tables and figures (io.staged_outputs): a study stopped
    # while drawing leaves the earlier set in `out` as it was.
    with staged_outputs(out) as stage:
        for name, t in [("runs.csv", scalar), ("summary.csv", summary)]:
            atomic_write_text(stage / name, t.to_csv(index=False))
        done = run_local([(draw_task, (t, stage)) for t in figure_tasks(runs, summary)], local_jobs(jobs))
        figs = [out / Path(p).name for paths in done for p in paths]
    return {"runs": scalar, "summary": summary, "figures": figs}
