"""Sweeps described as data: a scenario file, a grid of scenario key paths,
seeds and metric names, from a TOML sweep file (``tcplab sweep``) or from
Python (:func:`sweep`, the same keys as arguments).

    scenario = "scenarios/dumbbell.toml"   # relative to the sweep file
    seeds = 5                              # or a list: [1, 2, 3]
    metrics = ["throughput_bps", "retransmits", "timeouts", "unfairness", "jain"]
    overrides = ["sim.duration=20s"]       # optional: --set for every run
    [grid]                                 # any scenario key path, as --set takes it
    "flow[*].transport" = ["reno", "newreno", "vegas"]
    "link[3].error.rate" = [0.0, 0.01, 0.05]

Outputs in the sweep's directory: ``runs.csv`` and ``runs.parquet`` (one row
per run: grid values, seed, metrics, events), ``summary.csv`` (one row per
grid cell: per metric the mean, standard deviation, 95 % confidence interval
and count), ``sweep.json`` (what was swept, for ``tcplab plot``) and
``runs/`` (one record per finished run, what a rerun resumes from).
"""
from __future__ import annotations

import copy
import json
import tomllib
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ScenarioError
from .io import atomic_write_set, check_out_dir
from .metrics import DEFAULT, check_names
from .scenario import Scenario, _parse_value, key_parts, load_scenario, set_value
from .sweep import Sweep, _table_value, check_seeds, column_kind, column_text, summary_table

if TYPE_CHECKING:
    import pandas as pd
    import polars

FILE_KEYS = ("scenario", "seeds", "metrics", "overrides", "grid", "name")


@dataclass
class SweepSpec:
    """A sweep as data. `scenario` is a Scenario (its source a path)."""

    scenario: Scenario
    grid: dict
    seeds: list
    metrics: list = field(default_factory=lambda: list(DEFAULT))
    overrides: list = field(default_factory=list)
    name: str = "sweep"

    def build(self, params: dict) -> Scenario:
        sc = self.scenario.with_overrides(self.overrides)
        for key, value in params.items():
            set_value(sc.data, key, copy.deepcopy(value))
        return sc

    def check(self) -> None:
        """Each grid key alone first (so an error names the grid key, not a
        cell), then every cell is validated when the sweep plans its runs."""
        base = self.scenario.with_overrides(self.overrides)
        try:
            base.validate()
        except ScenarioError as e:
            where = f"scenario {self.scenario.source}" if self.scenario.source else "scenario"
            raise ScenarioError(f"{where}: {e}", e.key) from None
        for key, values in self.grid.items():
            for v in values:
                sc = base.copy()
                try:
                    set_value(sc.data, key, copy.deepcopy(v))
                    sc.validate()
                except ScenarioError as e:
                    raise ScenarioError(f'grid."{key}" = {_show(v)}: {e}', f"grid.{key}") from None

    def as_json(self) -> dict:
        return {"scenario": self.scenario.source, "grid": self.grid, "seeds": self.seeds,
                "metrics": self.metrics, "overrides": self.overrides, "name": self.name}


def _show(v) -> str:
    return json.dumps(v) if not isinstance(v, str) else repr(v)


def _check_distinct(key: str, values) -> None:
    """No two values of a grid key may be one cell of the result tables:
    a value listed twice, or 1 and 1.0 (one number in a column of numbers),
    or 1 and "1" (one text in a mixed column, see column_text)."""
    kind = column_kind(values)
    seen: dict = {}
    for v in values:
        t = column_text(v) if kind == "mixed" else float(v) if kind == "number" else json.dumps(_table_value(v))
        if t in seen:
            first = seen[t]
            what = (f"the value {_show(v)} is listed twice" if json.dumps(first) == json.dumps(v) else
                    f"{_show(first)} and {_show(v)} are one value in the result tables; list it once")
            raise ScenarioError(f'grid."{key}": {what}', f"grid.{key}")
        seen[t] = v


def _seeds(value, key="seeds") -> list:
    if isinstance(value, bool) or not isinstance(value, (int, list, tuple, range)):
        raise ScenarioError(f"{key}: expected a count (e.g. 5) or a list of seeds, got {value!r}", key)
    if isinstance(value, int) and value < 1:
        raise ScenarioError(f"{key}: expected a positive count of seeds, got {value}", key)
    # Checked here, not only by Sweep, so that a sweep file's error names
    # the file like every other.
    return check_seeds(value)


def make_spec(scenario, grid, seeds=1, metrics=None, overrides=(), name="sweep") -> SweepSpec:
    """Check the pieces of a sweep given as data and make its SweepSpec."""
    from .api import _as_scenario

    sc = _as_scenario(scenario)
    if not isinstance(grid, dict) or not grid:
        raise ScenarioError("grid: expected a table of key paths, each with a list of values", "grid")
    for k, v in grid.items():
        if not isinstance(k, str) or not k.strip():
            raise ScenarioError(f"grid: key {k!r}: expected a scenario key path such as link[3].error.rate", "grid")
        if isinstance(v, dict):
            # `sim.duration = [...]` under [grid] is, to TOML, a table sim
            # holding duration: the key path must be quoted.
            path, leaf = k, v
            while isinstance(leaf, dict) and leaf:
                sub, leaf = next(iter(leaf.items()))
                path = f"{path}.{sub}"
            raise ScenarioError(f'grid."{k}": expected a list of values, got a table; quote a key path: '
                                f'"{path}" = [...]', f"grid.{k}")
        if not isinstance(v, (list, tuple)) or not v:
            raise ScenarioError(f'grid."{k}": expected a non-empty list of values', f"grid.{k}")
        _check_distinct(k, v)
    if isinstance(overrides, str) or not isinstance(overrides, (list, tuple)):
        raise ScenarioError("overrides: expected a list of KEY=VALUE strings", "overrides")
    for i, o in enumerate(overrides):
        if not isinstance(o, str):
            raise ScenarioError(f"overrides[{i}]: expected a KEY=VALUE string, got {o!r}", f"overrides[{i}]")
    _check_seed(grid, overrides)
    names = check_names(list(DEFAULT) if metrics is None else metrics)
    clash = ({"seed", "events"} | set(names)) & set(grid)
    if clash:
        k = sorted(clash)[0]
        raise ScenarioError(f'grid."{k}": the name is taken by a column of the results', f"grid.{k}")
    if not isinstance(name, str) or not name:
        raise ScenarioError("name: expected a non-empty string", "name")
    spec = SweepSpec(sc, {k: list(v) for k, v in grid.items()}, _seeds(seeds), names, list(overrides), name)
    spec.check()
    _check_overlaps(spec.grid, spec.overrides)
    return spec


_SEED = ["sim", "seed"]
_SEED_HINT = "the sweep sets each run's seed; list them in seeds"


def _sets_seed(parts: list, value) -> bool:
    """Whether setting key path `parts` to `value` sets sim.seed."""
    return parts[:2] == _SEED or (parts == ["sim"] and isinstance(value, dict) and "seed" in value)


def _check_seed(grid: dict, overrides) -> None:
    """The sweep gives each run its seed from `seeds` and would silently
    replace a seed set anywhere else: refuse it, wherever it is set."""
    for k, values in grid.items():
        parts = _parts(k, f'grid."{k}"')
        if parts[:2] == _SEED:
            raise ScenarioError(f'grid."{k}": {_SEED_HINT}', f"grid.{k}")
        for v in values:
            if _sets_seed(parts, v):
                raise ScenarioError(f'grid."{k}" = {_show(v)}: sets sim.seed; {_SEED_HINT}', f"grid.{k}")
    for i, o in enumerate(overrides):
        key, _, text = o.partition("=")
        if _sets_seed(_parts(key.strip(), f"overrides[{i}] {o!r}"), _parse_value(text.strip())):
            raise ScenarioError(f"overrides[{i}] {o!r}: sets sim.seed; {_SEED_HINT}", f"overrides[{i}]")


def _parts(key: str, where: str) -> list:
    try:
        return key_parts(key)
    except ScenarioError as e:
        raise ScenarioError(f"{where}: {e}", where) from None


def _overlap(a: list, b: list) -> bool:
    """Whether two key paths set some entry in common: one is the other or
    a prefix of it, a [*] standing for any index."""
    return all(x == y or (x == "*" and isinstance(y, int)) or (y == "*" and isinstance(x, int)) for x, y in zip(a, b))


def _covers(a: list, b: list) -> bool:
    """Whether key path `a` replaces all that key path `b` sets: `b` itself
    or a prefix of it, a [*] in `a` standing for any index (but an index in
    `a` does not cover a [*] in `b`)."""
    return len(a) <= len(b) and all(x == y or (x == "*" and isinstance(y, int)) for x, y in zip(a, b))


def _check_overlaps(grid: dict, overrides: list) -> None:
    """Each run applies the overrides, then the grid keys in order; a later
    key that covers an earlier one replaces its value, and the tables would
    still show the lost value. Two grid keys that set an entry in common
    are refused (whichever comes first), as is an override that a grid key
    replaces in every run. An override that a grid key only refines (a
    table override and a grid key inside it, flow[*] set and flow[0] swept)
    keeps its meaning and is allowed."""
    keys = [(k, key_parts(k)) for k in grid]
    for i, (a, pa) in enumerate(keys):
        for b, pb in keys[i + 1:]:
            if _overlap(pa, pb):
                raise ScenarioError(f'grid."{a}" and grid."{b}" set the same entry: a run would keep only one of '
                                    f"the two values (the tables would show both); sweep one of the keys", f"grid.{b}")
    for j, o in enumerate(overrides):
        po = key_parts(o.partition("=")[0].strip())
        for k, pk in keys:
            if _covers(pk, po):
                raise ScenarioError(f'overrides[{j}] {o!r}: replaced in every run by grid."{k}"; '
                                    f"drop the override or put its value in the grid", f"overrides[{j}]")


def load_sweep_file(path: str | Path) -> SweepSpec:
    """Read and check a sweep file (scenario path relative to the file)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such sweep file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{p}: cannot read sweep file: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{p}: invalid TOML: {e}") from None
    for k in data:
        if k not in FILE_KEYS:
            raise ScenarioError(f"{p}: {k}: unknown key, expected one of {', '.join(FILE_KEYS)}", k)
    for k in ("scenario", "grid"):
        if k not in data:
            raise ScenarioError(f"{p}: missing key {k!r}", k)
    if not isinstance(data["scenario"], str):
        raise ScenarioError(f"{p}: scenario: expected the path of a scenario file", "scenario")
    try:
        return make_spec(load_scenario(p.parent / data["scenario"]), data["grid"], data.get("seeds", 1),
                         data.get("metrics"), data.get("overrides", []), data.get("name", p.stem))
    except ScenarioError as e:
        raise ScenarioError(f"{p}: {e}", e.key) from None


@dataclass
class SweepResult:
    """What :func:`sweep` returns: the tables it wrote into `out`, as
    pandas DataFrames.

    `runs`: one row per run (runs.csv: grid values, seed, metrics, events);
    `summary`: one row per grid cell (summary.csv: per metric the mean,
    standard deviation, 95 % confidence interval and count); `out`: where
    the files are; `spec`: the sweep as checked."""

    runs: pd.DataFrame
    summary: pd.DataFrame
    out: Path
    spec: SweepSpec

    def to_polars(self, name: str = "runs") -> polars.DataFrame:
        """Table `name` ("runs" or "summary") as a polars DataFrame: runs
        from runs.parquet as written (its types exactly), the summary from
        the pandas table. Needs polars (``pip install 'tcplab[polars]'``)."""
        from .result import _polars, check_table_name

        check_table_name(name, ("runs", "summary"))
        pl = _polars()
        if name == "runs":
            return pl.read_parquet(self.out / "runs.parquet")
        return pl.from_pandas(self.summary)


def run_spec(spec: SweepSpec, out: str | Path, *, jobs: int | None = None, scheduler: str | None = None,
             progress: bool = True) -> SweepResult:
    from .pools import check_pool_args

    jobs = check_pool_args(jobs, scheduler)
    check_out_dir(out)  # before any run: an empty name, a file, a directory that cannot be made
    out = Path(out)
    sw = Sweep(spec.build, spec.grid, spec.seeds, out, metrics=spec.metrics, name=spec.name)
    runs = sw.run(jobs=jobs, progress=progress, scheduler=scheduler)
    keys = list(spec.grid)
    for k in keys:
        if column_kind(spec.grid[k]) == "mixed":
            runs[k] = runs[k].map(column_text)
    summary = summary_table(runs, keys, spec.metrics)
    manifest = spec.as_json()
    manifest["grid"] = {k: [_table_value(v) for v in vs] for k, vs in spec.grid.items()}
    # Every file is made before the first is written (a table that cannot
    # be written fails here, with nothing written), and sweep.json, what
    # `tcplab plot` reads, is replaced last: see io.atomic_write_set.
    parquet = BytesIO()
    runs.to_parquet(parquet, index=False)
    atomic_write_set(out, {"runs.csv": runs.to_csv(index=False).encode(), "runs.parquet": parquet.getvalue(),
                           "summary.csv": summary.to_csv(index=False).encode(),
                           "sweep.json": (json.dumps(manifest, indent=2) + "\n").encode()}, marker="sweep.json")
    return SweepResult(runs, summary, out, spec)


def sweep(scenario, grid: dict, seeds=1, metrics: list | None = None, out: str | Path = "results/sweep", *,
          overrides=(), name: str = "sweep", jobs: int | None = None, scheduler: str | None = None,
          progress: bool = True) -> SweepResult:
    """Run a sweep given as in a sweep file: `scenario` (a path, dict or
    Scenario), `grid` ({key path: [values]}), `seeds` (a count or a list),
    `metrics` (names, default throughput_bps, goodput_bps, unfairness, jain,
    retransmits, timeouts), `overrides` (KEY=VALUE for every run). Writes
    the files of ``tcplab sweep`` into `out` and returns them as DataFrames.
    Runs stored in `out` by an earlier call are reused."""
    spec = make_spec(scenario, grid, seeds, metrics, overrides, name)
    return run_spec(spec, out, jobs=jobs, scheduler=scheduler, progress=progress)
