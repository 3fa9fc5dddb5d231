"""Parameter sweeps: a grid of parameter values x replications over seeds,
run in parallel on local processes or a Dask cluster, every finished run
stored at once so that an interrupted sweep resumes without redoing work.

    from tcplab.sweep import Sweep, summarize
    sw = Sweep(build=my_builder, grid={"variant": ["reno", "vegas"], "loss": [0, 0.01]},
               seeds=range(1, 6), out="results/my-sweep", metrics=["throughput_bps", "jain"])
    runs = sw.run(jobs=4)          # one row per (grid cell, seed), in grid order
    table = summarize(runs, ["variant", "loss"], "throughput_bps")   # summary.csv's columns

`build(params) -> Scenario | dict` makes the scenario of one grid cell (the
sweep sets the seed; a builder with a parameter named ``seed`` is also given
it, for inputs drawn per seed such as start-time jitter). `metrics` is a list of measure names
(:mod:`tcplab.metrics`) or a function whose parameters say by their names
what it needs: ``flows`` (the run's flow table, a dict of column lists),
``summary``, ``trace`` (the time-sequence trace of scenarios that record one,
else None), ``params`` (the cell's parameters), ``nodes`` (the node table:
802.11 and routing counters) and ``series`` (the sampled flow state of
scenarios with ``output.sample_interval``, else None) and ``scenario`` (the
run's complete scenario as a dict); it returns a dict of numbers. Metrics are
computed where the run executes, so traces never travel.

For a sweep described as data (a scenario file, a grid of key paths, seeds,
metric names) see :func:`tcplab.sweep` / ``tcplab sweep``.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import json
import math
import os
import sys
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from . import _core
from .errors import ScenarioError
from .io import atomic_write
from .metrics import Named
from .scenario import Scenario

if TYPE_CHECKING:
    import pandas

METRIC_INPUTS = ("flows", "summary", "trace", "params", "nodes", "series", "scenario")


def t95(dof: int) -> float:
    """Two-sided 95 % Student t quantile for `dof` degrees of freedom."""
    if dof <= 0:
        return float("nan")
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def default_metrics(flows: dict, summary: dict) -> dict:
    """Mean throughput and goodput of the flows, unfairness (max - min) / min
    and Jain's index of the throughputs, total retransmissions and timeouts."""
    from .metrics import DEFAULT

    return Named(DEFAULT)(flows, summary)


#: Record field holding the fingerprint of a metrics function (not a column).
_FINGERPRINT = "_metrics_fingerprint"
#: Record field naming the simulator build that ran it (not a column).
_CORE = "_core"
#: Record field: revisions of the named metrics it holds (not a column).
_REVISIONS = "_metric_revisions"


@functools.cache
def _core_id() -> str:
    """A digest of the compiled core that runs the scenarios. A stored run
    is reused only if this very build made it: a tcplab upgrade that moves
    results must not leave a resumed sweep (or `reproduce` into the same
    directory) mixing numbers of two versions. Any rebuild counts as a new
    simulator, which redoes runs when nothing changed: the safe side."""
    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def _fingerprint(fn: Callable) -> str:
    """A digest of what a metrics function computes: its bytecode, names and
    constants, nested functions included, and those of the functions of its
    closure and defaults. Stable across processes (no addresses, no
    pickles), so a resumed sweep recognises its own records."""
    h = hashlib.sha256()
    seen: set[int] = set()

    def code(c) -> None:
        h.update(c.co_code)
        h.update(repr((c.co_names, c.co_varnames)).encode())
        for k in c.co_consts:
            code(k) if hasattr(k, "co_code") else h.update(repr(k).encode())

    def walk(f) -> None:
        if id(f) in seen:
            return
        seen.add(id(f))
        c = getattr(f, "__code__", None)
        if c is None:  # a callable object: its class's __call__
            h.update(f"{type(f).__module__}.{type(f).__qualname__}".encode())
            call = getattr(type(f), "__call__", None)
            if call is not None and hasattr(call, "__code__"):
                walk(call)
            return
        h.update(f"{f.__module__}.{f.__qualname__}".encode())
        code(c)
        for v in [*(f.__defaults__ or ()), *(x.cell_contents for x in (f.__closure__ or ()))]:
            walk(v) if callable(v) else h.update(repr(v).encode())

    walk(fn)
    return h.hexdigest()[:16]


def _metric_inputs(metrics: Callable) -> list[str]:
    """The inputs a metrics function asks for, by parameter name."""
    try:
        params = inspect.signature(metrics).parameters
    except (TypeError, ValueError):
        raise TypeError(f"metrics: cannot read the parameters of {metrics!r}") from None
    names = []
    for p in params.values():
        if p.name not in METRIC_INPUTS:
            raise TypeError(f"metrics function parameter {p.name!r}: expected some of {', '.join(METRIC_INPUTS)}")
        names.append(p.name)
    return names


def run_cell(text: str, metrics_blob: bytes, params: dict) -> dict:
    """Worker task: run one scenario (JSON text) and return the metrics of
    the run and its event count."""
    import cloudpickle

    metrics = cloudpickle.loads(metrics_blob)
    raw = _core.run_json(text)
    trace = raw["trace"]["columns"]
    series = raw["series"]["columns"]
    inputs = {"flows": raw["flows"]["columns"], "summary": raw["summary"],
              "trace": trace if trace["time_s"] else None, "params": params,
              "nodes": raw["nodes"]["columns"], "series": series if series["time_s"] else None}
    names = _metric_inputs(metrics)
    if "scenario" in names:  # parsed only when asked for
        inputs["scenario"] = json.loads(text)
    values = metrics(**{n: inputs[n] for n in names})
    return {"metrics": values, "events": raw["summary"]["events"]}


def _identity(path: Path):
    """A record file's inode and modification time, None when absent:
    `_write_record` renames a new file into place, so a record written by
    this sweep has another identity than the one it replaced."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns)


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM in the command) during a sweep: queued runs were
    cancelled, `saved` runs are stored in `runs_dir`."""

    def __init__(self, saved: int, total: int, runs_dir: Path):
        super().__init__(f"{saved} runs saved, rerun to resume")
        self.saved, self.total, self.runs_dir = saved, total, runs_dir


class Tally:
    """Runs counted across every sweep of one command (a study runs several):
    `total` runs asked for, `ran` now, `reused` from an earlier call."""

    def __init__(self):
        self.total = self.ran = self.reused = 0

    @property
    def saved(self) -> int:
        return self.ran + self.reused


_TALLIES: list[Tally] = []


@contextmanager
def tally():
    """Count the runs of every sweep run inside the block."""
    t = Tally()
    _TALLIES.append(t)
    try:
        yield t
    finally:
        _TALLIES.remove(t)


def _count(field: str, n: int = 1) -> None:
    for t in _TALLIES:
        setattr(t, field, getattr(t, field) + n)


def _table_value(v):
    """Grid values as they appear in tables and run records: scalars as they
    are, arrays and tables as their JSON text (a table column cannot hold
    a dict, and the text is what a reader compares)."""
    if isinstance(v, (dict, list, tuple)):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    return v


def column_kind(values) -> str:
    """What a grid key's values are in a table: "bool", "number", "string"
    or "mixed" (e.g. ``[1, 4, "rfc3390"]``)."""
    kinds = set()
    for v in map(_table_value, values):
        kinds.add("bool" if isinstance(v, bool) else "number" if isinstance(v, (int, float))
                  else "string" if isinstance(v, str) else "other")
    return kinds.pop() if len(kinds) == 1 and "other" not in kinds else "mixed"


def column_text(v) -> str:
    """A value of a mixed grid column as text: a string as it is, anything
    else as its JSON (TOML-like) text, ``true``, ``4``, ``0.5``. A column
    holds one type: Parquet cannot store 4 and "rfc3390" in one column, and
    a CSV reader would guess a different type per file."""
    v = _table_value(v)
    return v if isinstance(v, str) else json.dumps(v)


def _write_record(path: Path, row: dict) -> None:
    """Write one run record atomically, its data on disk before the rename
    so a record that exists is never torn by a crash or power loss. (The
    directory is synced once per sweep, not per record: a rename lost in a
    power cut only means the run is redone.)"""
    data = json.dumps(row, sort_keys=True).encode()

    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())

    atomic_write(path, write)


def _sync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def check_seeds(seeds: Iterable[int] | int) -> list[int]:
    """The list of seeds (a count n means 1..n), or a ScenarioError naming
    the bad entry."""
    if isinstance(seeds, bool):
        raise ScenarioError(f"seeds: expected a count or a list of seeds, got {seeds!r}", "seeds")
    out = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
    if not out:
        raise ScenarioError("seeds: at least one seed", "seeds")
    for i, s in enumerate(out):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise ScenarioError(f"seeds[{i}]: expected a non-negative integer, got {s!r}", f"seeds[{i}]")
    seen: set[int] = set()
    for i, s in enumerate(out):
        if s in seen:
            raise ScenarioError(f"seeds[{i}]: the seed {s} is listed twice", f"seeds[{i}]")
        seen.add(s)
    return out


def load_record(path: Path, valid: Callable[[dict], bool]) -> dict | None:
    """The run record stored at `path` if `valid` accepts it; None if there
    is none, and a torn, corrupt or rejected one is removed (the run is
    redone)."""
    try:
        row = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        row = None
    if not isinstance(row, dict) or not valid(row):
        path.unlink(missing_ok=True)
        return None
    return row


class Sweep:
    """A sweep over a grid of Python parameters: ``build(params)`` (or
    ``build(params, seed=seed)``) makes the scenario of each grid cell, every
    cell is run once per seed, and :meth:`run` returns one row per run.

    `grid` maps parameter names to lists of values (every combination is a
    cell); `seeds` is a count n (seeds 1..n) or a list; `out` is the
    directory whose ``runs/`` keeps one record per finished run (a later
    sweep into it reuses them); `metrics` is a list of metric names or a
    function (see the module's documentation); `name` labels the progress
    bar. Bad arguments raise ScenarioError. For a sweep over the key paths
    of one scenario file, see :func:`tcplab.sweep`."""

    def __init__(self, build: Callable[..., Scenario | dict], grid: dict, seeds: Iterable[int] | int,
                 out: str | Path, metrics: Callable | list | tuple = default_metrics, name: str = "sweep"):
        if not isinstance(grid, dict) or not grid:
            raise ScenarioError("grid: give at least one parameter with a list of values", "grid")
        for k, v in grid.items():
            if not isinstance(v, (list, tuple)) or not v:
                raise ScenarioError(f'grid."{k}": expected a non-empty list of values', f"grid.{k}")
            seen = set()
            for x in v:
                t = json.dumps(_table_value(x))
                if t in seen:
                    raise ScenarioError(f'grid."{k}": the value {x!r} is listed twice', f"grid.{k}")
                seen.add(t)
            if k == "seed":
                raise ScenarioError('grid."seed": the seed is not a grid parameter; use seeds', "grid.seed")
        self.build = build
        try:
            self._build_takes_seed = "seed" in inspect.signature(build).parameters
        except (TypeError, ValueError):
            self._build_takes_seed = False
        self.grid = {k: list(v) for k, v in grid.items()}
        self.seeds = check_seeds(seeds)
        self.out = Path(out)
        self.metrics = Named(metrics) if isinstance(metrics, (list, tuple, str)) else metrics
        self._metric_inputs = _metric_inputs(self.metrics)  # checked now, not in a worker
        # Names a stored record must hold to be reused (known for named metrics).
        self._required = list(self.metrics.names) if isinstance(self.metrics, Named) else []
        # A stored record is reused only if it was measured by the same
        # metrics: named metrics are checked by name above, a function by
        # the fingerprint of its code (a changed function redoes the runs
        # instead of returning stale values).
        self._fingerprint = None if isinstance(self.metrics, Named) else _fingerprint(self.metrics)
        # And a named metric whose definition changed since the record was
        # made (metrics.Metric.revision) is measured again.
        self._revisions = self.metrics.revisions() if isinstance(self.metrics, Named) else {}
        self.name = name

    def cells(self) -> list[dict]:
        keys = list(self.grid)
        return [dict(zip(keys, vals)) for vals in itertools.product(*(self.grid[k] for k in keys))]

    def _scenario_text(self, params: dict, seed: int) -> str:
        # A builder with a parameter named `seed` gets the run's seed too (for
        # inputs a study draws per seed, such as start-time jitter).
        sc = self.build(params, seed=seed) if self._build_takes_seed else self.build(params)
        if isinstance(sc, dict):
            sc = Scenario(sc)
        # Validated as a single run is: a grid value that makes a key inert
        # (ecn on a Vegas flow under the ns2 rules) is said once per message.
        return sc.with_overrides([], seed=seed).checked_json()

    @staticmethod
    def _key(text: str) -> str:
        # The scenario itself (with its seed) is the identity of a run: a
        # changed builder or default invalidates exactly the runs it changes.
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def _load(self, path: Path, params: dict) -> dict | None:
        """A stored run record, or None if there is none or it is torn,
        corrupt or made otherwise (then it is removed and the run redone)."""
        return load_record(path, lambda row: (
            isinstance(row.get("seed"), int)
            and all(k in row for k in params) and all(m in row for m in self._required)
            and row.get(_FINGERPRINT) == self._fingerprint and row.get(_CORE) == _core_id()
            and all((row.get(_REVISIONS) or {}).get(n) == r for n, r in self._revisions.items())))

    def plan(self) -> tuple[list, dict]:
        """Build and validate every run's scenario (before anything runs: a
        bad cell fails the sweep at once) and load the stored ones.
        Returns (slots, todo): one slot per (cell, seed) in grid order, each
        [params, seed, key, row or None]; todo maps a run key to its text."""
        slots, todo = [], {}
        runs_dir = self.out / "runs"
        for params in self.cells():
            for seed in self.seeds:
                text = self._scenario_text(params, seed)
                key = self._key(text)
                row = None if key in todo else self._load(runs_dir / f"{key}.json", params)
                if row is None:
                    todo[key] = text
                slots.append([params, seed, key, row])
        return slots, todo

    def run(self, jobs: int | None = None, progress: bool = True,
            scheduler: str | None = None) -> "pandas.DataFrame":
        """Run what is not stored yet and return every run's row. `jobs`
        local processes (default: all cores), or the Dask cluster at
        `scheduler` (``tcp://host:port``) or of an enclosing
        :func:`tcplab.pools.use_scheduler` block."""
        from .pools import check_pool_args, pool_for

        # Before anything is planned or created, and whether or not any run
        # is left to do (a pool is made only then).
        jobs = check_pool_args(jobs, scheduler)

        import cloudpickle
        import pandas as pd
        from tqdm import tqdm

        slots, todo = self.plan()
        runs_dir = self.out / "runs"
        by_key: dict[str, list] = {}
        for slot in slots:
            by_key.setdefault(slot[2], []).append(slot)
        reused = len(slots) - sum(len(by_key[k]) for k in todo)
        _count("total", len(slots))
        _count("reused", reused)
        keys = list(todo)
        blob = cloudpickle.dumps(self.metrics)
        tasks = [(todo[k], blob, by_key[k][0][0]) for k in keys]
        saved = reused
        before = None
        try:
            if tasks:
                with pool_for(jobs, scheduler) as pool:
                    # Only once the pool is there (a scheduler can be unreachable).
                    runs_dir.mkdir(parents=True, exist_ok=True)
                    for stale in runs_dir.glob(".*.tmp"):  # left by a killed sweep
                        stale.unlink(missing_ok=True)
                    before = {k: _identity(runs_dir / f"{k}.json") for k in keys}
                    # disable=None: tqdm's rule, a bar only when stderr is a
                    # terminal; a log or a pipe would collect its \r lines.
                    with tqdm(total=len(slots), initial=reused, desc=self.name, unit="run", file=sys.stderr,
                              dynamic_ncols=True, disable=None if progress else True,
                              bar_format="{desc}: {n_fmt}/{total_fmt} runs |{bar}| {elapsed} elapsed, "
                                         "ETA {remaining}") as bar, \
                            closing(pool.imap(run_cell, tasks)) as results:
                        for i, res in results:
                            key = keys[i]
                            for slot in by_key[key]:
                                slot[3] = self._row(slot[0], slot[1], res, self._fingerprint, self._revisions)
                            _write_record(runs_dir / f"{key}.json", by_key[key][0][3])
                            n = len(by_key[key])
                            saved += n
                            _count("ran", n)
                            bar.update(n)
        except KeyboardInterrupt:
            if before is not None:
                # What is on disk, not the running count: Ctrl-C can land
                # after a record's rename and before `saved` counted it.
                on_disk = reused + sum(len(by_key[k]) for k in keys
                                       if _identity(runs_dir / f"{k}.json") not in (None, before[k]))
                # The command's line reads the tally: make it agree too.
                _count("ran", on_disk - saved)
                saved = on_disk
            raise SweepInterrupted(saved, len(slots), runs_dir) from None
        finally:
            _sync_dir(runs_dir)
        rows = []
        for params, seed, _key, row in slots:
            row = dict(row)
            row.pop(_FINGERPRINT, None)
            row.pop(_CORE, None)
            row.pop(_REVISIONS, None)
            # A record may be shared by two cells whose scenarios coincide:
            # each row shows its own cell.
            row.update({k: _table_value(v) for k, v in params.items()})
            row["seed"] = seed
            rows.append(row)
        df = pd.DataFrame(rows)
        order = list(self.grid) + ["seed"]
        # Fixed column order (parameters, seed, then measures by name) and
        # row order (grid order, then seeds as given), so a resumed sweep, a
        # parallel one and one on a cluster write the same table.
        return df[order + sorted(c for c in df.columns if c not in order)]

    @staticmethod
    def _row(params: dict, seed: int, res: dict, fingerprint: str | None, revisions: dict) -> dict:
        row = {k: _table_value(v) for k, v in params.items()}
        row["seed"] = seed
        row.update(res["metrics"])
        row["events"] = res["events"]
        if fingerprint is not None:
            row[_FINGERPRINT] = fingerprint
        if revisions:
            row[_REVISIONS] = revisions
        row[_CORE] = _core_id()
        # Through JSON and back, so a fresh row equals the one a resumed
        # sweep reads from its record (tuples become lists, and so on).
        return json.loads(json.dumps(row, sort_keys=True))


STATS = ("mean", "std", "ci95_low", "ci95_high", "n")


def summary_table(runs: pandas.DataFrame, keys: list, metrics: list) -> pandas.DataFrame:
    """Per grid cell (in grid order): for each metric the mean, sample
    standard deviation, 95 % Student t confidence interval of the mean and
    the number of runs with a value (NaN, e.g. a transfer that did not
    complete, is left out). summary.csv of a sweep."""
    import pandas as pd

    rows = []
    for cell, d in runs.groupby(keys, sort=False, dropna=False):
        cell = cell if isinstance(cell, tuple) else (cell,)
        row = dict(zip(keys, cell))
        for m in metrics:
            mean, std, n = _mean_std([float(v) for v in d[m]])
            half = t95(n - 1) * std / math.sqrt(n) if n > 1 and math.isfinite(std) else math.nan
            row.update({f"{m}_mean": mean, f"{m}_std": std, f"{m}_ci95_low": mean - half,
                        f"{m}_ci95_high": mean + half, f"{m}_n": n})
        rows.append(row)
    return pd.DataFrame(rows, columns=keys + [f"{m}_{s}" for m in metrics for s in STATS])


def _mean_std(xs: list) -> tuple[float, float, int]:
    """Mean, sample standard deviation and count of the values that are not
    NaN. The statistics module computes both exactly before rounding once,
    so replications that agree give a deviation of exactly 0 (summing
    floats gives 1e-11 noise) and the result does not depend on the order
    of the values."""
    import statistics

    xs = [x for x in xs if x == x]
    n = len(xs)
    if not n:
        return math.nan, math.nan, 0
    if not all(math.isfinite(x) for x in xs):  # e.g. unfairness with a starved flow
        return math.fsum(xs), math.nan, n
    return statistics.mean(xs), statistics.stdev(xs) if n > 1 else math.nan, n


def summarize(runs: pandas.DataFrame, by: list | str, value: str) -> pandas.DataFrame:
    """Per cell of `by` (cells in the order they first appear): `value`'s
    mean, sample standard deviation, 95 % Student t confidence interval and
    count, as columns `<value>_mean`, `<value>_std`, `<value>_ci95_low`,
    `<value>_ci95_high` and `<value>_n`: the columns and numbers of a
    sweep's summary.csv (NaN values left out, exact statistics)."""
    return summarize_many(runs, by, [value])


def summarize_many(runs: pandas.DataFrame, by: list | str, values: list) -> pandas.DataFrame:
    """`summarize` of several measures side by side (summary.csv's columns
    for each)."""
    keys = [by] if isinstance(by, str) else list(by)
    return summary_table(runs, keys, list(values))


def study_summary(runs, by: list, value: str):
    """The studies' tables (throughput.csv, ...): `value` (the mean),
    `<value>_std`, `n` and `<value>_ci95` (the 95 % half-width) per cell of
    `by`, cells in the order they first appear. Before 2026-12 this was
    `summarize`, whose columns are now summary.csv's."""
    import pandas as pd

    g = runs.groupby(by, sort=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["ci95"] = [t95(int(n) - 1) * s / math.sqrt(n) if n > 1 else float("nan")
                   for s, n in zip(out["std"], out["count"])]
    out = out.rename(columns={"mean": value, "std": f"{value}_std", "count": "n", "ci95": f"{value}_ci95"})
    return pd.DataFrame(out)


def study_summary_many(runs, by: list, values: list):
    """`study_summary` of several measures side by side: the first
    measure's count is `n`, each other measure's `<value>_n` (a measure
    missing in some run has its own count)."""
    first, *rest = values
    t = study_summary(runs, by, first)
    for col in rest:
        t = t.merge(study_summary(runs, by, col).rename(columns={"n": f"{col}_n"}), on=by)
    return t
