"""Parameter sweeps: a grid of parameter values x replications over seeds,
run in parallel on local cores, every finished run stored at once so that an
interrupted sweep resumes without redoing work.

    from tcplab.sweep import Sweep
    sw = Sweep(build=my_builder, grid={"variant": ["reno", "vegas"], "loss": [0, 0.01]},
               seeds=range(1, 6), out="results/my-sweep", metrics=my_metrics)
    runs = sw.run(jobs=4)          # one row per (grid cell, seed)
    table = summarize(runs, ["variant", "loss"], "throughput_bps")

`build(params) -> Scenario | dict` makes the scenario of one grid cell (the
seed is set by the sweep); `metrics(flows, summary) -> dict` turns one run's
flow table (a dict of column lists) into the numbers to keep; a metrics
function with a third parameter also receives the time-sequence trace
(columns, or None) of scenarios that record one, and with a fourth the
cell's parameters.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Iterable

from . import _core
from .errors import ScenarioError
from .io import atomic_write_text
from .scenario import Scenario

# Two-sided 95 % Student t quantiles for 1..30 degrees of freedom.
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
        2.045, 2.042]


def t95(dof: int) -> float:
    if dof <= 0:
        return float("nan")
    return _T95[dof - 1] if dof <= len(_T95) else 1.96


def _run_one(text: str) -> dict:
    """Worker: run one scenario (JSON) and return its flow columns, summary
    and (when the scenario traces) its time-sequence trace."""
    raw = _core.run_json(text)
    trace = raw["trace"]["columns"]
    return {"flows": raw["flows"]["columns"], "summary": raw["summary"],
            "trace": trace if trace["time_s"] else None}


def default_metrics(flows: dict, summary: dict) -> dict:
    """Mean throughput and goodput of the flows, unfairness (max - min) / min
    and Jain's index of the throughputs, total retransmissions and timeouts."""
    thr = flows["throughput_bps"]
    n = len(thr)
    mean = sum(thr) / n if n else float("nan")
    lo, hi = (min(thr), max(thr)) if n else (float("nan"), float("nan"))
    sq = sum(x * x for x in thr)
    return {
        "throughput_bps": mean,
        "goodput_bps": sum(flows["goodput_bps"]) / n if n else float("nan"),
        "unfairness": (hi - lo) / lo if n and lo > 0 else float("inf") if n else float("nan"),
        "jain": (sum(thr) ** 2) / (n * sq) if n and sq > 0 else float("nan"),
        "retransmits": sum(flows["retransmits"]),
        "timeouts": sum(flows["timeouts"]),
    }


class Sweep:
    def __init__(self, build: Callable[[dict], Scenario | dict], grid: dict, seeds: Iterable[int] | int,
                 out: str | Path, metrics: Callable[[dict, dict], dict] = default_metrics, name: str = "sweep"):
        if not grid:
            raise ScenarioError("grid: give at least one parameter with a list of values", "grid")
        for k, v in grid.items():
            if not isinstance(v, (list, tuple)) or not v:
                raise ScenarioError(f"grid.{k}: expected a non-empty list of values", f"grid.{k}")
        self.build = build
        self.grid = {k: list(v) for k, v in grid.items()}
        self.seeds = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
        if not self.seeds:
            raise ScenarioError("seeds: at least one seed", "seeds")
        self.out = Path(out)
        self.metrics = metrics
        # A metrics function with a third parameter also gets the trace.
        import inspect

        self._nargs = len(inspect.signature(metrics).parameters)
        self.name = name

    def cells(self) -> list[dict]:
        keys = list(self.grid)
        return [dict(zip(keys, vals)) for vals in itertools.product(*(self.grid[k] for k in keys))]

    def _scenario_text(self, params: dict, seed: int) -> str:
        sc = self.build(params)
        if isinstance(sc, dict):
            sc = Scenario(sc)
        sc = sc.with_overrides([], seed=seed)
        text = sc.to_json()
        try:
            _core.validate_json(text)
        except _core.CoreScenarioError as e:
            raise ScenarioError(e.args[0], e.args[1]) from None
        return text

    @staticmethod
    def _key(text: str) -> str:
        # The scenario itself (with its seed) is the identity of a run: a
        # changed builder or default invalidates exactly the runs it changes.
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def run(self, jobs: int | None = None, progress: bool = True) -> "pandas.DataFrame":  # noqa: F821
        import pandas as pd

        runs_dir = self.out / "runs"
        runs_dir.mkdir(parents=True, exist_ok=True)
        todo, rows = [], []
        for params in self.cells():
            for seed in self.seeds:
                text = self._scenario_text(params, seed)
                path = runs_dir / f"{self._key(text)}.json"
                if path.exists():
                    rows.append(json.loads(path.read_text()))
                else:
                    todo.append((params, seed, text, path))
        jobs = jobs or os.cpu_count() or 1
        bar = _progress(len(todo), self.name, enabled=progress and len(todo) > 0)
        try:
            if jobs == 1 or len(todo) <= 1:
                for params, seed, text, path in todo:
                    rows.append(self._store(params, seed, path, _run_one(text)))
                    bar.update(1)
            else:
                with ProcessPoolExecutor(max_workers=jobs) as pool:
                    futures = {pool.submit(_run_one, text): (params, seed, path) for params, seed, text, path in todo}
                    for fut in as_completed(futures):
                        params, seed, path = futures[fut]
                        rows.append(self._store(params, seed, path, fut.result()))
                        bar.update(1)
        finally:
            bar.close()
        df = pd.DataFrame(rows)
        order = list(self.grid) + ["seed"]
        # Fixed column order (parameters, seed, then measures by name) so a
        # resumed sweep writes the same table as an uninterrupted one.
        df = df[order + sorted(c for c in df.columns if c not in order)]
        df = df.sort_values(order, kind="stable").reset_index(drop=True)
        return df

    def _store(self, params: dict, seed: int, path: Path, res: dict) -> dict:
        row = dict(params)
        row["seed"] = seed
        if self._nargs >= 4:
            row.update(self.metrics(res["flows"], res["summary"], res["trace"], params))
        elif self._nargs == 3:
            row.update(self.metrics(res["flows"], res["summary"], res["trace"]))
        else:
            row.update(self.metrics(res["flows"], res["summary"]))
        row["events"] = res["summary"]["events"]
        atomic_write_text(path, json.dumps(row, sort_keys=True))
        return row


def summarize(runs, by: list, value: str):
    """Mean, standard deviation, count and 95 % confidence half-width of
    `value` per cell of `by` (Student t over the replications)."""
    import pandas as pd

    g = runs.groupby(by, sort=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["ci95"] = [t95(int(n) - 1) * s / math.sqrt(n) if n > 1 else float("nan")
                   for s, n in zip(out["std"], out["count"])]
    out = out.rename(columns={"mean": value, "std": f"{value}_std", "count": "n", "ci95": f"{value}_ci95"})
    return pd.DataFrame(out)


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress(total: int, name: str, enabled: bool):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="run", file=sys.stderr, dynamic_ncols=True,
                bar_format="{desc}: {n_fmt}/{total_fmt} runs |{bar}| {elapsed} elapsed, ETA {remaining}")
