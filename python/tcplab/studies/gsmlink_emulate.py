"""`tcplab reproduce gsmlink --emulate`: the gsmlink main grid (SPEC 9.2)
run with the machine's own TCP through the emulated GSM link, and the same
cells simulated with the `linux` profile, side by side.

Each emulated run takes real time (a 100 KB transfer at 9600 bit/s is about
100 s), so runs go in parallel: each has its own pair of namespaces, and a
relay needs little CPU at these rates (the release lateness of every run is
kept in runs.csv to show it). The `newreno-off` optimization is left out:
Linux has no plain-Reno recovery (docs/emulator.md).

Grids: quick = baseline and SACK x buffers 3 and unlimited x loss 0 and 5 %,
one seed (8 runs, about 2 minutes); full = every other optimization x every
buffer x every loss rate, one seed error-free and 5 seeds lossy.

Each finished real run is stored at once in `OUT/runs/` (as a sweep's runs
are, docs/sweeps.md), so an interrupted study resumes where it stopped: a
record is reused when the same scenario ran with the same build of the core
on the same kernel. The runs go to the sweeps' local pool: Ctrl-C or
SIGTERM kills the workers (their namespaces go with them) instead of
waiting for real-time runs of minutes.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
from contextlib import closing
from pathlib import Path
from typing import Any, cast

from . import gsmlink

# The emulated grid keeps the study's own buffers (12 and 15 of the simulated
# grid would add 224 real-time runs) and tcplab's `modern` baseline: the
# kernel it runs is a current one, not Linux 2.2.
BUFFERS: list[int | str] = [3, 5, 7, 10, 20, "unlimited"]
QUICK: dict[str, Any] = {"optimization": ["baseline", "sack"], "buffer": [3, "unlimited"], "loss": [0.0, 0.05],
                         "seeds": 1}
FULL_SEEDS = 5


def grid(quick: bool) -> list[dict]:
    if quick:
        opts, buffers, losses, seeds = QUICK["optimization"], QUICK["buffer"], QUICK["loss"], QUICK["seeds"]
    else:
        opts = [o for o in gsmlink.OPTIMIZATIONS if o != "newreno-off"]
        buffers, losses, seeds = BUFFERS, gsmlink.LOSSES, FULL_SEEDS
    cells = []
    for opt, loss, buf in itertools.product(opts, losses, buffers):
        for seed in range(1, (seeds if loss > 0 else 1) + 1):
            cells.append({"optimization": opt, "loss": loss, "buffer": buf, "seed": seed})
    return cells


def _scenario(p: dict):
    return gsmlink.scenario(p["optimization"], p["buffer"], p["loss"], seed=p["seed"], baseline="modern")


def emulate_cell(p: dict) -> dict:
    """One emulated run (in a worker process)."""
    from ..emulate import emulate

    res = emulate(_scenario(p), capture=False)
    row = dict(p, stack="real")
    row.update(gsmlink.metrics(res.columns("flows"), res.summary))
    m = res.emulation
    row["late_max_us"] = m["lateness_us"]["max"]
    row["late_p99_us"] = m["lateness_us"]["p99"]
    row["late_packets"] = m["late_packets"]
    row["steal_ms"] = m.get("steal_ms")
    row["connect_s"] = m["flows"][0]["connect_s"]
    row["warnings"] = "; ".join(m["warnings"])
    return row


def _kernel() -> str:
    return os.uname().release


def _key(p: dict) -> str:
    """A run's identity: its complete scenario (seed included), marked as
    emulated so that it never meets a simulated run's record."""
    return hashlib.sha256(("emulated\n" + _scenario(p).to_json()).encode()).hexdigest()[:24]


#: Record fields naming what made the run (not columns).
_MADE_BY = ("_core", "_kernel")


def _load(path: Path, p: dict) -> dict | None:
    """A stored real run of cell `p`, or None if there is none, it is torn,
    or it was made by another build of the core or on another kernel (then
    it is removed and the run redone)."""
    from ..sweep import _core_id, load_record

    return load_record(path, lambda row: (
        row.get("_core") == _core_id() and row.get("_kernel") == _kernel()
        and all(row.get(k) == v for k, v in p.items()) and "throughput_Bps" in row))


def simulate_cell(p: dict) -> dict:
    import tcplab

    res = tcplab.run(_scenario(p))
    row = dict(p, stack="simulated")
    row.update(gsmlink.metrics(res.columns("flows"), res.summary))
    return row


def figure(out: Path, runs) -> list:
    from .figures import pyplot, save as save_figure

    plt = pyplot()
    written: list[Path] = []
    losses = sorted(set(runs["loss"]))
    order = [str(b) for b in gsmlink.BUFFERS if str(b) in set(runs["buffer"])]
    fig, axes = plt.subplots(1, len(losses), figsize=(6 * len(losses), 4.5), squeeze=False)
    cell = runs.groupby(["stack", "optimization", "loss", "buffer"], sort=False)["throughput_Bps"].mean()
    for ax, loss in zip(axes[0], losses):
        xs = list(range(len(order)))
        for j, opt in enumerate(dict.fromkeys(runs["optimization"])):
            for stack, style in [("real", "-"), ("simulated", "--")]:
                ys = [cell.get((stack, opt, loss, b), float("nan")) for b in order]
                ax.plot(xs, ys, style, marker="o" if stack == "real" else "x", color=f"C{j}",
                        label=f"{opt}, {'Linux ' if stack == 'real' else 'simulated '}"
                              f"{'kernel' if stack == 'real' else 'linux profile'}")
        ax.axhline(gsmlink.line_rate(256), color="k", ls=":", lw=1)
        ax.set_xticks(xs, order)
        ax.set_xlabel("router downlink buffer (packets)")
        ax.set_ylabel("throughput of the 100 KB transfer (bytes/s)")
        ax.set_title(f"{loss * 100:.0f} % loss each way")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("gsmlink: the real Linux stack (emulated link) vs the simulated linux profile")
    save_figure(fig, out, "sim_vs_real", written)
    return written


def run(out: str | Path = "results/gsmlink-emu", quick: bool = False, jobs: int | None = None,
        progress: bool = True) -> dict:
    import pandas as pd

    from ..emulate import unavailable_reason, EmulatorUnavailable
    from ..io import atomic_write_text, staged_outputs
    from ..pools import LocalPool
    from tqdm import tqdm

    from ..sweep import SweepInterrupted, _core_id, _count, _sync_dir, _write_record, study_summary

    reason = unavailable_reason()
    if reason:
        raise EmulatorUnavailable(reason)
    out = Path(out)
    cells = grid(quick)
    runs_dir = out / "runs"
    keys = [_key(p) for p in cells]
    stored: list[dict | None] = [_load(runs_dir / f"{k}.json", p) for k, p in zip(keys, cells)]
    todo = [i for i, row in enumerate(stored) if row is None]
    _count("total", len(cells))
    _count("reused", len(cells) - len(todo))
    # Emulated runs wait on the link, not on the CPU: run many at once.
    jobs = jobs or min(len(cells), 16)
    try:
        if todo:
            # The directory appears with the first finished run: an
            # interruption before it leaves nothing behind.
            for stale in runs_dir.glob(".*.tmp"):  # left by a killed study
                stale.unlink(missing_ok=True)
            made_by: dict[str, Any] = {"_core": _core_id(), "_kernel": _kernel()}
            with tqdm(total=len(cells), initial=len(cells) - len(todo), desc="gsmlink/emulated", unit="run",
                      file=sys.stderr, disable=None if progress else True) as bar, \
                    closing(LocalPool(jobs).imap(emulate_cell, [(cells[i],) for i in todo])) as results:
                for j, done in results:
                    i, row = todo[j], cast(dict, done)
                    runs_dir.mkdir(parents=True, exist_ok=True)
                    _write_record(runs_dir / f"{keys[i]}.json", {**row, **made_by})
                    # Through JSON, as a resumed study reads the record back.
                    stored[i] = json.loads(json.dumps(row, sort_keys=True))
                    _count("ran")
                    bar.update(1)
    except KeyboardInterrupt:
        # What is on disk, not the running count: Ctrl-C can land after a
        # record's rename and before it was counted. A cell still to do had
        # no valid record (`_load` removed a rejected one), so a record
        # there now was written by this call.
        late = sum(stored[i] is None and (runs_dir / f"{keys[i]}.json").exists() for i in todo)
        _count("ran", late)
        saved = sum(row is not None for row in stored) + late
        raise SweepInterrupted(saved, len(cells), runs_dir) from None
    finally:
        if runs_dir.is_dir():
            _sync_dir(runs_dir)
    rows = [{k: v for k, v in row.items() if k not in _MADE_BY} for row in stored if row is not None]
    simulated = [simulate_cell(p) for p in cells]
    runs = pd.DataFrame(rows + simulated)
    # Columns in a fixed order whether the real rows were run now or read
    # from records: the simulated rows' (parameters, stack, metrics), then
    # those only real runs have, by name.
    first = list(simulated[0])
    runs = runs[first + sorted(c for c in runs.columns if c not in first)]
    runs["buffer"] = runs["buffer"].astype(str)
    runs = runs.sort_values(["stack", "optimization", "loss", "buffer", "seed"], kind="stable").reset_index(drop=True)
    by = ["stack", "optimization", "loss", "buffer"]
    thr = study_summary(runs, by, "throughput_Bps")
    first = study_summary(runs, by, "first15k_s")
    # One set, as in the simulated study (io.staged_outputs).
    with staged_outputs(out) as stage:
        for name, table in [("runs.csv", runs), ("throughput.csv", thr), ("first15k.csv", first)]:
            atomic_write_text(stage / name, table.to_csv(index=False))
        figs = [out / p.name for p in figure(stage, runs)]
    return {"runs": runs, "throughput": thr, "first15k": first, "figures": figs}
