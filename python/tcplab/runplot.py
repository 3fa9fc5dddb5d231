"""Figures of one run (SPEC 8, plotting helpers): the window of each flow
over time, a flow's time-sequence diagram, a queue over time.

Each takes a `Result` or the output directory of `tcplab run` (its
series.csv, trace.csv, queues.csv) and draws on a matplotlib Axes (a new
figure unless `ax` is given), which it returns; `tcplab plot RUN_OUT
--window | --sequence FLOW | --queue LINK[:DIRECTION]` writes them to a
file. A table the run did not write is a one-line error naming the flag
that writes it; an unknown flow or link names the ones there are."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import ScenarioError

#: How each kind of trace record is drawn in the time-sequence diagram.
_SEQUENCE_STYLE = {
    "send": dict(marker=".", linestyle="none", markersize=3, color="tab:blue", label="segment sent"),
    "retransmit": dict(marker="x", linestyle="none", markersize=6, color="tab:red", label="retransmission"),
    "drop": dict(marker="v", linestyle="none", markersize=6, color="black", label="dropped"),
    "dupack": dict(marker="_", linestyle="none", markersize=6, color="tab:orange", label="duplicate ACK"),
}


def _table(res: Any, name: str, flag: str):
    """Table `name` of a Result or a run's output directory, as pandas;
    an empty or missing one is an error naming `flag`, which writes it."""
    import pandas as pd

    if isinstance(res, (str, Path)):
        path = Path(res) / f"{name}.csv"
        if not (Path(res) / "summary.json").is_file():
            raise ScenarioError(f"{res}: not the output of tcplab run (no summary.json)", "run_out")
        if not path.is_file():
            raise ScenarioError(f"{res}: the run wrote no {name}.csv: run it with {flag}", flag)
        # Names stay text even when they look like numbers (a flow "1").
        d = pd.read_csv(path, keep_default_na=False, na_values=[""],
                        dtype={"flow": str, "kind": str, "direction": str})
    else:
        d = getattr(res, name)
    if d.empty:
        raise ScenarioError(f"the run has no {name} table: run it with {flag}", flag)
    return d


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, 4))[1]


def _span(d, start: float | None, end: float | None):
    """The rows of `d` from `start` to `end` seconds (either open)."""
    if start is not None:
        d = d[d["time_s"] >= start]
    if end is not None:
        d = d[d["time_s"] <= end]
    return d


def _pick(values, wanted, what: str, flag: str) -> list:
    names = list(dict.fromkeys(values))
    for w in wanted:
        if w not in names:
            raise ScenarioError(f"{flag} {w!r}: no such {what} in this run; it has {', '.join(map(str, names))}", flag)
    return list(wanted) or names


def window(res: Any, flows=(), ax=None, ssthresh: bool = True, start: float | None = None,
           end: float | None = None):
    """cwnd of each flow (or of `flows`) over time, in KB, as sampled
    (series: ``sample_interval`` / ``--sample-interval``); ssthresh dashed
    in the same colour where it is set; optionally only from `start` to
    `end` seconds."""
    s = _table(res, "series", "--sample-interval")
    ax = _axes(ax)
    for f in _pick(s["flow"], list(flows), "flow", "--flow"):
        d = _span(s[s["flow"] == f], start, end)
        (line,) = ax.step(d["time_s"], d["cwnd_bytes"] / 1000, where="post", label=f"{f} cwnd")
        if ssthresh and d["ssthresh_bytes"].notna().any():
            ax.step(d["time_s"], d["ssthresh_bytes"] / 1000, where="post", linestyle="--", color=line.get_color(),
                    label=f"{f} ssthresh")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("KB")
    ax.set_title("congestion window (solid) and ssthresh (dashed)")
    ax.legend(fontsize="small")
    return ax


def sequence(res: Any, flow: str, ax=None, start: float | None = None, end: float | None = None):
    """Time-sequence diagram of `flow` (trace: ``trace=True`` / ``--trace``):
    every segment sent at its first byte, retransmissions, drops and
    duplicate ACKs as markers, the cumulative ACK as a line; optionally
    only from `start` to `end` seconds."""
    t = _table(res, "trace", "--trace")
    _pick(t["flow"], [flow], "flow", "--sequence")
    d = _span(t[t["flow"] == flow], start, end)
    ax = _axes(ax)
    acks = d[d["kind"] == "ack"]
    ax.step(acks["time_s"], acks["seq"] / 1000, where="post", color="tab:green", linewidth=1, label="cumulative ACK")
    for kind, style in _SEQUENCE_STYLE.items():
        k = d[(d["kind"] == kind) & ((d["len"] > 0) | (kind in ("dupack", "drop")))]
        if not k.empty:
            ax.plot(k["time_s"], k["seq"] / 1000, **style)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence number (KB)")
    ax.set_title(f"{flow}: time-sequence diagram")
    ax.legend(fontsize="small")
    return ax


def queue(res: Any, link: int, direction: str = "forward", ax=None, start: float | None = None,
          end: float | None = None):
    """Packets in link `link`'s queue in `direction` over time, as sampled
    (queues: ``sample_interval``), with RED's average where it is kept;
    optionally only from `start` to `end` seconds."""
    q = _table(res, "queues", "--sample-interval")
    if direction not in ("forward", "reverse"):
        raise ScenarioError(f"--queue direction {direction!r}: expected forward or reverse", "--queue")
    _pick(q["link"], [link], "link", "--queue")
    d = _span(q[(q["link"] == link) & (q["direction"] == direction)], start, end)
    ax = _axes(ax)
    ax.step(d["time_s"], d["queue_packets"], where="post", label="packets queued")
    if "red_avg" in d and (d["red_avg"].fillna(0) != 0).any():
        ax.plot(d["time_s"], d["red_avg"], linestyle="--", label="RED average")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title(f"link {link} {direction}: queue")
    ax.legend(fontsize="small")
    return ax


#: The figures `plot_run` draws (`tcplab plot RUN_OUT --window` ...).
KINDS = ("window", "sequence", "queue")


def plot_run(run_out: str | Path, kind: str, arg: str | None = None, flows=(), out: str | Path | None = None,
             start: float | None = None, end: float | None = None) -> Path:
    """`tcplab plot RUN_OUT --window [--flow F ...] | --sequence FLOW |
    --queue LINK[:DIRECTION] [--start S] [--end S]`: draw from the run's
    files and write the figure to `out` (default RUN_OUT/window.png,
    sequence-FLOW.png, queue-LINK-DIRECTION.png; .svg and .pdf too).
    Returns its path."""
    if start is not None and end is not None and end <= start:
        raise ScenarioError(f"--end {end}: must be after --start {start}", "--end")
    import matplotlib

    matplotlib.use("Agg")
    from .plot import figure_path, save_figure

    run_out = Path(run_out)
    if kind == "window":
        default, draw = "window.png", lambda ax: window(run_out, flows, ax=ax, start=start, end=end)
    elif kind == "sequence":
        default, draw = f"sequence-{str(arg).replace('/', '_')}.png", lambda ax: sequence(run_out, str(arg), ax=ax, start=start, end=end)
    elif kind == "queue":
        head, _, direction = str(arg).partition(":")
        if not head.isdigit():
            raise ScenarioError(f"--queue {arg!r}: expected LINK[:forward|reverse], LINK a link's number", "--queue")
        direction = direction or "forward"
        default, draw = (f"queue-{head}-{direction}.png",
                         lambda ax: queue(run_out, int(head), direction, ax=ax, start=start, end=end))
    else:
        raise ScenarioError(f"plot kind {kind!r}: expected one of {', '.join(KINDS)}", "kind")
    path, fmt = figure_path(out, run_out / default)
    ax = draw(None)
    save_figure(ax.figure, path, fmt)
    return path
