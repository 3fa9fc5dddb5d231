"""`tcplab plot`: one metric of a sweep's summary against one grid key, one
line per value of a second key, with the 95 % confidence band.

The y axis is scaled to the data (matplotlib's autoscaling, which does not
force 0 into view), so differences between lines stay visible; bands are
clipped to the range the metric can take (tcplab.metrics), so a throughput
band never goes below 0 nor a Jain band above 1. Grid keys that are neither
on the x axis nor the hue must be fixed with --where KEY=VALUE when they
have more than one value: averaging over them would hide a parameter.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from .errors import ScenarioError
from .metrics import METRICS

FORMATS = ("png", "svg", "pdf")


def _read(sweep_out: Path):
    import pandas as pd

    from .sweep import column_kind

    try:
        manifest = json.loads((sweep_out / "sweep.json").read_text())
        # A grid column of text (or of mixed values, written as text) stays
        # text: read_csv would make "1", "4" numbers and "rfc3390" a string.
        text = {k: str for k, vs in manifest["grid"].items() if column_kind(vs) in ("string", "mixed")}
        summary = pd.read_csv(sweep_out / "summary.csv", keep_default_na=False, na_values=[""], dtype=text)
    except FileNotFoundError:
        raise ScenarioError(f"{sweep_out}: not the output of tcplab sweep (no sweep.json/summary.csv)") from None
    except (OSError, ValueError) as e:
        raise ScenarioError(f"{sweep_out}: cannot read the sweep's summary: {e}") from None
    return manifest, summary


def _numeric(column) -> bool:
    """A column drawn on a numeric axis: numbers, not booleans (pandas
    counts booleans as numbers; an axis from 0.0 to 1.0 for false and true
    says nothing)."""
    import pandas as pd

    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _shown(v) -> str:
    """A grid value as the user writes it in the sweep file and --where:
    booleans as TOML's true and false, not Python's True and False."""
    import numpy as np

    return ("true" if v else "false") if isinstance(v, (bool, np.bool_)) else str(v)


def _wrapped(text: str, width: int) -> str:
    """A category's tick label in lines of about `width` characters, broken
    after a comma or at a space (a table value is compact JSON, one long
    word: `{"kind":"red","limit":20,...}`); a piece without either stays
    whole. On one line such labels ran into each other."""
    import re

    lines: list[str] = []
    for piece in re.findall(r"[^, ]+(?:,|\s+|$)|[, ]", text):
        if lines and len(lines[-1]) + len(piece.rstrip()) <= width:
            lines[-1] += piece
        else:
            lines.append(piece)
    return "\n".join(line.rstrip() for line in lines if line.strip()) or text


def _match(column, text: str):
    """Rows of a summary column equal to a --where value given as text."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(column):
        # TOML's true/false, as the sweep file has them (True too).
        word = text.strip().lower()
        return column == (word == "true") if word in ("true", "false") else column != column
    if pd.api.types.is_numeric_dtype(column):
        try:
            return column == float(text)
        except ValueError:
            return column != column  # no row
    return column.astype(str) == text


def _x_positions(values: list, numeric: bool):
    return values if numeric else list(range(len(values)))


def plot(sweep_out: str | Path, x: str, y: str, hue: str | None = None, where=(), logx: bool = False,
         out: str | Path | None = None) -> Path:
    """Draw metric `y` of the sweep in `sweep_out` against grid key `x` and
    write it to `out` (default SWEEP_OUT/Y_vs_X.png; .svg and .pdf too)."""
    sweep_out = Path(sweep_out)
    manifest, summary = _read(sweep_out)
    keys, metrics = list(manifest["grid"]), list(manifest["metrics"])
    for flag, k in (("--x", x), ("--hue", hue)):
        if k is not None and k not in keys:
            raise ScenarioError(f"{flag} {k!r}: not a grid key of this sweep; expected one of {', '.join(keys)}", flag)
    if x == hue:
        raise ScenarioError("--hue: must differ from --x", "--hue")
    if y not in metrics:
        raise ScenarioError(f"--y {y!r}: not a metric of this sweep; expected one of {', '.join(metrics)}", "--y")
    d = summary
    fixed = {}
    for w in where:
        k, sep, v = w.partition("=")
        if not sep or k not in keys:
            raise ScenarioError(f"--where {w!r}: expected KEY=VALUE with KEY one of {', '.join(keys)}", "--where")
        d = d[_match(d[k], v)]
        if d.empty:
            values = ", ".join(map(_shown, dict.fromkeys(summary[k])))
            raise ScenarioError(f"--where {w!r}: no cell has that value; {k} takes {values}", "--where")
        fixed[k] = v
    for k in keys:
        if k not in (x, hue) and k not in fixed and d[k].nunique(dropna=False) > 1:
            values = ", ".join(map(_shown, dict.fromkeys(d[k])))
            raise ScenarioError(f"grid key {k!r} has several values ({values}): fix one with --where {k}=VALUE "
                                f"or draw it with --hue", "--where")
    if d[f"{y}_mean"].isna().all():
        # An empty figure with exit 0 would look like a drawing bug.
        raise ScenarioError(f"--y {y!r}: no value to draw, the metric is NaN in every cell shown "
                            f"(docs/sweeps.md says when each metric is NaN)", "--y")
    if logx and not _numeric(d[x]):
        raise ScenarioError(f"--logx: grid key {x!r} is not numeric", "--logx")
    path, fmt = figure_path(out, sweep_out / f"{y}_vs_{x}.png".replace("/", "_"))
    _draw(d, x, y, hue, logx, fixed, manifest, path, fmt)
    return path


def figure_path(out: str | Path | None, default: Path) -> tuple[Path, str]:
    """The figure file (`out`, or `default`) and its format, checked before
    anything is drawn: a name, a known extension, a directory it can go in."""
    if out is not None and not str(out).strip():  # as tcplab run and sweep: not taken for the default
        raise ScenarioError("--out: needs a file name (got an empty one)", "--out")
    path = Path(out) if out is not None else default
    fmt = path.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ScenarioError(f"--out {path}: the figure format is taken from the extension: {', '.join(FORMATS)}",
                            "--out")
    from .io import OutputError, probe_dir

    try:
        probe_dir(os.path.abspath(path.parent))
    except OSError as e:
        raise OutputError(f"--out {path}: cannot create the directory or write into it: {e.strerror or e}") from None
    return path, fmt


def save_figure(fig, path: Path, fmt: str) -> None:
    """Write `fig` to `path` atomically and close it. No date and fixed
    element ids: the same data give the same file."""
    import matplotlib
    import matplotlib.pyplot as plt

    from .io import atomic_write

    fig.tight_layout()
    meta = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}.get(fmt, {"Software": None})
    with matplotlib.rc_context({"svg.hashsalt": "tcplab"}):
        atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150, metadata=meta))
    plt.close(fig)


def _draw(d, x, y, hue, logx, fixed, manifest, path: Path, fmt: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric = METRICS.get(y)
    lo_ok, hi_ok = (metric.low, metric.high) if metric else (-math.inf, math.inf)
    numeric = _numeric(d[x])
    xs_all = list(dict.fromkeys(d[x]))
    groups = [(None, d)] if hue is None else [(h, d[d[hue] == h]) for h in dict.fromkeys(d[hue])]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for h, g in groups:
        g = g.sort_values(x) if numeric else g.set_index(x).reindex(xs_all).reset_index()
        xs = _x_positions(list(g[x]), numeric)
        mean = g[f"{y}_mean"].astype(float)
        low = g[f"{y}_ci95_low"].astype(float).clip(lower=lo_ok, upper=hi_ok)
        high = g[f"{y}_ci95_high"].astype(float).clip(lower=lo_ok, upper=hi_ok)
        label = None if h is None else f"{hue} = {_shown(h)}"
        line, = ax.plot(xs, mean, marker="o", ms=3, lw=1.2, label=label)
        ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2, lw=0)
    if numeric:
        if logx:
            positive = [v for v in xs_all if v > 0]
            if min(xs_all) <= 0:
                # A log axis cannot show 0 (error rate 0 is the usual first
                # grid value): linear below the smallest positive value.
                ax.set_xscale("symlog", linthresh=min(positive) if positive else 1.0)
            else:
                ax.set_xscale("log")
    else:
        # About 60 characters fit across the axis at the tick font size.
        width = max(8, 60 // max(len(xs_all), 1) - 2)
        ax.set_xticks(range(len(xs_all)), [_wrapped(_shown(v), width) for v in xs_all])
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} (mean, 95 % CI)")
    title = manifest.get("name", "sweep")
    if fixed:
        title += " (" + ", ".join(f"{k} = {v}" for k, v in fixed.items()) + ")"
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    if hue is not None:
        ax.legend(fontsize=8)
    save_figure(fig, path, fmt)
