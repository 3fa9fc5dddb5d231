"""Study `gsmlink` (SPEC 9.2): a Seawind-style GSM data link with a small
router buffer.

    server --10 Mbit/s, 5 ms-- router ==9600 bit/s each way, 200 ms, PPP== mobile

The router's downlink buffer is a DropTail queue of 3, 5, 7, 10 or 20 packets
or unlimited (the packet in transmission not counted); the uplink has no
limit; random packet loss of 0, 2, 5 or 10 % each way. One 100 KB transfer
written in 256-byte blocks. Baseline TCP (Linux-like): NewReno, no SACK,
initial window 2, MSS 256, delayed ACKs, 32 KB advertised window, no
timestamps; each optimization changes one thing: initial window 3 or 4,
window 2048 or 3840 bytes, SACK, NewReno off (Reno), MSS 536.

The same scenario builder is meant to drive the emulator later.
"""
from __future__ import annotations

from pathlib import Path

from ..scenario import Scenario
from ..sweep import Sweep, summarize

OPTIMIZATIONS: dict[str, dict[str, object]] = {
    "baseline": {},
    "iw3": {"initial_window": 3},
    "iw4": {"initial_window": 4},
    "win2048": {"window_bytes": 2048},
    "win3840": {"window_bytes": 3840},
    "sack": {"sack": True},
    "newreno-off": {"newreno": False},
    "mss536": {},
}
BUFFERS = [3, 5, 7, 10, 20, "unlimited"]
LOSSES = [0.0, 0.02, 0.05, 0.10]
TRANSFER = 102_400
FIRST = 15 * 1024
LINK_BPS = 9600
PPP = 8


def line_rate(mss: int = 256) -> float:
    """Payload bytes/s the link can carry: 9600/8 x mss / (mss + 40 + PPP)."""
    return LINK_BPS / 8 * mss / (mss + 40 + PPP)


def downlink_queue(buffer, kind: str = "droptail") -> dict:
    if kind == "red":
        # Thresholds for a 4-packet/s link; weight from ns-2's automatic rule
        # 1 - exp(-1/C) with C = link capacity in packets per second.
        return {"kind": "red", "min_th": 2, "max_th": 6, "max_p": 0.1, "weight": 0.2, "limit": 20}
    if kind == "dual-threshold":
        return {"kind": "dual-threshold", "soft": 5, "hard": 20, "hold": "2s"}
    if buffer == "unlimited":
        return {"kind": "unlimited"}
    return {"kind": "droptail", "limit": int(buffer)}


def scenario(optimization: str = "baseline", buffer=7, loss: float = 0.0, flows: int = 1,
             queue: str = "droptail", error: dict | None = None, duration: str = "1200s",
             seed: int = 1) -> Scenario:
    """One transfer (or `flows` concurrent ones) over the GSM-like link."""
    if optimization not in OPTIMIZATIONS:
        raise ValueError(f"optimization: expected one of {', '.join(OPTIMIZATIONS)}, got {optimization!r}")
    mss = 536 if optimization == "mss536" else 256
    tcp: dict[str, object] = {"initial_window": 2, "sack": False, "timestamps": False, "delayed_ack": True,
           "window_bytes": 32768, "newreno": True}
    tcp.update(OPTIMIZATIONS[optimization])
    err = error if error is not None else {"kind": "uniform", "rate": loss, "direction": "both"}
    nodes = [{"name": "router"}, {"name": "mobile"}] + [{"name": f"server{i}"} for i in range(1, flows + 1)]
    links = [{"between": [f"server{i}", "router"], "rate": "10Mbps", "delay": "5ms",
              "queue": {"kind": "unlimited"}} for i in range(1, flows + 1)]
    links.append({"between": ["router", "mobile"], "rate": f"{LINK_BPS}bps", "delay": "200ms", "framing": "ppp",
                  "forward": {"queue": downlink_queue(buffer, queue)},
                  "reverse": {"queue": {"kind": "unlimited"}}, "error": err})
    fl = [{"name": f"download{i}", "from": f"server{i}", "to": "mobile", "transport": "newreno",
           "packet_size": mss, "first_bytes": FIRST, "tcp": dict(tcp),
           "app": {"kind": "transfer", "bytes": TRANSFER, "write": 256}} for i in range(1, flows + 1)]
    return Scenario({"sim": {"duration": duration, "seed": seed, "tcp_profile": "linux"},
                     "node": nodes, "link": links, "flow": fl}, source="gsmlink")


def metrics(flows: dict, summary: dict) -> dict:
    """Throughput in bytes/s of the transfer(s) (bytes / completion time),
    time to the first 15 KB, retransmissions, timeouts, completion."""
    n = len(flows["flow"])
    comp = [c if c is not None and c == c else None for c in flows["completion_s"]]
    done = all(c is not None for c in comp)
    thr = [TRANSFER / c if c else flows["throughput_bps"][i] / 8 for i, c in enumerate(comp)]
    first = [x for x in flows["first_bytes_s"] if x is not None and x == x]
    return {
        "throughput_Bps": sum(thr) / n,
        "first15k_s": sum(first) / len(first) if len(first) == n else float("nan"),
        "completion_s": max(c for c in comp if c is not None) if done else float("nan"),
        "retransmits": sum(flows["retransmits"]),
        "timeouts": sum(flows["timeouts"]),
        "completed": done,
    }


def _sweep(out: Path, name: str, grid: dict, seeds, build) -> Sweep:
    return Sweep(build, grid, seeds, out / name, metrics=metrics, name=f"gsmlink/{name}")


def main_grid(out: Path, quick: bool, jobs, progress):
    """Throughput and first-15 KB tables: optimization x loss x buffer.
    Error-free cells are deterministic: one seed; lossy cells: 20 seeds."""
    opts = list(OPTIMIZATIONS)
    buffers = [3, 7, "unlimited"] if quick else BUFFERS
    losses = [0.0, 0.05] if quick else LOSSES
    seeds = 3 if quick else 20

    def build(p):
        return scenario(p["optimization"], p["buffer"], p["loss"])

    clean = _sweep(out, "clean", {"optimization": opts, "loss": [0.0], "buffer": buffers}, [1], build)
    lossy = _sweep(out, "lossy", {"optimization": opts, "loss": [x for x in losses if x > 0], "buffer": buffers},
                   seeds, build)
    import pandas as pd

    runs = pd.concat([clean.run(jobs=jobs, progress=progress), lossy.run(jobs=jobs, progress=progress)],
                     ignore_index=True)
    runs["buffer"] = runs["buffer"].astype(str)
    return runs


def queue_grid(out: Path, quick: bool, jobs, progress):
    """RED, DropTail (7 and 20 packets) and the dual-threshold policy with one
    and with two concurrent transfers on an error-free link."""
    seeds = 2 if quick else 10
    kinds = ["droptail-7", "droptail-20", "red", "dual-threshold"]

    def build(p):
        kind = p["queue"]
        if kind.startswith("droptail"):
            return scenario("baseline", int(kind.split("-")[1]), flows=p["flows"], seed=1)
        return scenario("baseline", 20, flows=p["flows"], queue=kind)

    return _sweep(out, "queues", {"queue": kinds, "flows": [1, 2]}, seeds, build)


BURST_START = 40.0


def _burst_build(p):
    err = {"kind": "windows", "direction": "both",
           "windows": [{"start": f"{BURST_START}s", "end": f"{BURST_START + p['burst_s']}s", "rate": p["burst_rate"]}]}
    sc = scenario("baseline", p["buffer"], error=err)
    sc.data["output"] = {"trace": True}
    return sc


def idle_after(trace, end: float) -> float:
    if not trace:
        return float("nan")
    for t, k in zip(trace["time_s"], trace["kind"]):
        if t > end and k == "ack":
            return t - end
    return float("nan")


def time_sequence(sc: Scenario):
    import tcplab

    sc = sc.copy()
    sc.data["output"] = {"trace": True}
    return tcplab.run(sc).trace


def figures(out: Path, clean_runs, burst, queues, ts) -> list:
    from .figures import pyplot, save as save_figure

    plt = pyplot()
    written: list[Path] = []

    def save(fig, name):
        save_figure(fig, out, name, written)

    # Throughput vs buffer, error-free, with the line-rate limit.
    fig, ax = plt.subplots(figsize=(8, 5))
    order = [str(b) for b in BUFFERS]
    present = [b for b in order if b in set(clean_runs["buffer"])]
    xs = list(range(len(present)))
    for opt in OPTIMIZATIONS:
        d = clean_runs[clean_runs.optimization == opt].set_index("buffer").reindex(present)
        ax.plot(xs, d["throughput_Bps"], marker="o", label=opt)
    ax.axhline(line_rate(256), color="k", ls="--", lw=1, label="line rate, MSS 256")
    ax.axhline(line_rate(536), color="gray", ls=":", lw=1, label="line rate, MSS 536")
    ax.set_xticks(xs, present)
    ax.set_xlabel("router downlink buffer (packets)")
    ax.set_ylabel("throughput of the 100 KB transfer (bytes/s)")
    ax.set_title("Error-free 9600 bit/s link")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    save(fig, "throughput_vs_buffer")

    # Time-sequence graphs.
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (title, t) in zip(axes, ts):
        for kind, style in [("send", dict(marker=".", ls="", ms=3, color="C0")),
                            ("retransmit", dict(marker="x", ls="", ms=5, color="C3")),
                            ("drop", dict(marker="v", ls="", ms=5, color="k")),
                            ("ack", dict(ls="-", lw=1, color="C2"))]:
            d = t[(t.flow == "download1") & (t.kind == kind)]
            if len(d):
                ax.plot(d.time_s, d.seq / 1024, label=kind, **style)
        ax.set_title(title)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("sequence number (KB)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    save(fig, "time_sequence")

    # Error bursts.
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, col, label in [(axes[0], "throughput_Bps", "throughput (bytes/s)"),
                           (axes[1], "idle_after_burst_s", "idle time after the burst (s)")]:
        for (rate, buf), d in burst.groupby(["burst_rate", "buffer"]):
            d = d.sort_values("burst_s")
            ax.errorbar(d.burst_s, d[col], yerr=d[f"{col}_ci95"].fillna(0), marker="o", capsize=2,
                        label=f"{rate * 100:.0f} % loss, buffer {buf}")
        ax.set_xlabel("burst length (s)")
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("A loss burst 40 s into the transfer (mean and 95 % CI)")
    save(fig, "error_bursts")

    # Queues.
    fig, ax = plt.subplots(figsize=(8, 4.5))
    kinds = list(dict.fromkeys(queues["queue"]))
    width = 0.38
    for j, n in enumerate(sorted(set(queues["flows"]))):
        d = queues[queues.flows == n].set_index("queue").reindex(kinds)
        ax.bar([i + j * width for i in range(len(kinds))], d["throughput_Bps"], width,
               yerr=d["throughput_Bps_ci95"].fillna(0), label=f"{n} transfer{'s' if n > 1 else ''}")
    ax.set_xticks([i + width / 2 for i in range(len(kinds))], kinds)
    ax.set_ylabel("throughput per transfer (bytes/s)")
    ax.set_title("Router queue policies on an error-free link")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, "queues")
    return written


def run(out: str | Path = "results/gsmlink", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    import pandas as pd

    from ..io import atomic_write_text

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = main_grid(out, quick, jobs, progress)
    by = ["optimization", "loss", "buffer"]
    thr = summarize(runs, by, "throughput_Bps")
    first = summarize(runs, by, "first15k_s")

    rates = [0.5] if quick else [0.2, 0.5, 1.0]
    lengths = [10] if quick else [5, 10, 20]
    bsw = Sweep(_burst_build, {"burst_rate": rates, "burst_s": lengths, "buffer": [3, 20]},
                3 if quick else 20, out / "burst", metrics=_burst_trace_metrics, name="gsmlink/burst")
    bruns = bsw.run(jobs=jobs, progress=progress)
    burst = summarize(bruns, ["burst_rate", "burst_s", "buffer"], "throughput_Bps").merge(
        summarize(bruns, ["burst_rate", "burst_s", "buffer"], "idle_after_burst_s"),
        on=["burst_rate", "burst_s", "buffer", "n"])

    qruns = queue_grid(out, quick, jobs, progress).run(jobs=jobs, progress=progress)
    queues = summarize(qruns, ["queue", "flows"], "throughput_Bps").merge(
        summarize(qruns, ["queue", "flows"], "retransmits"), on=["queue", "flows", "n"]).merge(
        summarize(qruns, ["queue", "flows"], "first15k_s"), on=["queue", "flows", "n"])

    ts = [("buffer 7, no errors: start-up overflow", time_sequence(scenario("baseline", 7))),
          ("unlimited buffer, one late loss",
           time_sequence(scenario("baseline", "unlimited",
                                  error={"kind": "pattern", "drop": [300], "direction": "forward",
                                         "packets": "data"})))]
    for name, table in [("runs.csv", runs), ("throughput.csv", thr), ("first15k.csv", first),
                        ("bursts.csv", burst), ("queues.csv", queues)]:
        atomic_write_text(out / name, table.to_csv(index=False))
    clean = runs[runs.loss == 0.0]
    figs = figures(out, clean, burst, queues, ts)
    return {"runs": runs, "throughput": thr, "first15k": first, "bursts": burst, "queues": queues,
            "figures": figs}


def _burst_trace_metrics(flows, summary, trace, params):
    """`metrics` plus the idle time after the burst: from the end of the
    burst to the first ACK of new data at the sender (after a long burst the
    backed-off retransmission timer keeps the sender silent)."""
    m = metrics(flows, summary)
    m["idle_after_burst_s"] = idle_after(trace, BURST_START + params["burst_s"])
    return m


def run_emulated(out: str | Path = "results/gsmlink-emu", quick: bool = False, jobs: int | None = None,
                 progress: bool = True) -> dict:
    """The main grid with the kernel's TCP in real time, beside the simulated
    `linux` profile (studies/gsmlink_emulate.py, docs/emulator.md)."""
    from .gsmlink_emulate import run as run_emu

    return run_emu(out, quick=quick, jobs=jobs, progress=progress)
