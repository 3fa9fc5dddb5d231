"""Figure helpers shared by the studies."""
from __future__ import annotations

from pathlib import Path


def pyplot():
    """matplotlib's pyplot on the non-interactive backend (imported lazily:
    plotting is the slowest import of a study)."""
    import matplotlib

    matplotlib.use("Agg")
    # Identical runs give identical SVG bytes: clip-path and other ids are
    # hashed from this salt instead of a random one.
    matplotlib.rcParams["svg.hashsalt"] = "tcplab"
    import matplotlib.pyplot as plt

    return plt


def save(fig, out: Path, name: str, written: list) -> None:
    """Write `name`.png and `name`.svg into `out` atomically and close the figure."""
    from ..io import atomic_write

    plt = pyplot()
    fig.tight_layout()
    for ext in ("png", "svg"):
        p = Path(out) / f"{name}.{ext}"
        # No creation date in the file (SVG's dc:date, PNG has none by default).
        meta = {"Date": None} if ext == "svg" else None
        atomic_write(p, lambda tmp: fig.savefig(tmp, dpi=150, format=ext, metadata=meta))
        written.append(p)
    plt.close(fig)


def draw_task(task: tuple, out: Path) -> list[str]:
    """Draw one figure task, (name, function(plt, *args) -> figure, args),
    into `out`; the paths written. Module-level so worker processes can run it."""
    name, fn, args = task
    written: list[Path] = []
    save(fn(pyplot(), *args), out, name, written)
    return [str(p) for p in written]



def clipped_yerr(mean, ci, low: float = -float("inf"), high: float = float("inf")):
    """Error-bar lengths below and above `mean` (a 2 x N array for
    matplotlib's `yerr`) for the symmetric interval mean +- `ci`, clipped to
    the range [low, high] the measure can take (tcplab.metrics): an
    unfairness or throughput bar never reaches below 0. A missing `ci`
    (NaN: one replication) draws no bar; so does a non-finite mean, which
    is not drawn."""
    import numpy as np

    m = np.asarray(mean, dtype=float)
    c = np.nan_to_num(np.asarray(ci, dtype=float), nan=0.0)
    finite = np.isfinite(m)
    with np.errstate(invalid="ignore"):
        below = np.where(finite, m - np.clip(m - c, low, high), 0.0)
        above = np.where(finite, np.clip(m + c, low, high) - m, 0.0)
    return np.array([np.maximum(below, 0.0), np.maximum(above, 0.0)])


def drawn_y(ax) -> list[float]:
    """Every finite y value drawn in `ax`'s data coordinates: the points of
    its lines (markers and error-bar caps included), the segments of its
    collections (error bars, bands) and the bars' ends. Artists placed in axes coordinates
    (markers on the frame, notes) are left out."""
    import numpy as np

    from matplotlib.patches import Rectangle

    ys: list[float] = []
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_data_transform() == ax.transData:
            ys.extend([patch.get_y(), patch.get_y() + patch.get_height()])
    for line in ax.get_lines():
        if line.get_transform() == ax.transData:
            ys.extend(np.asarray(line.get_ydata(), dtype=float).ravel())
    for coll in ax.collections:
        if coll.get_transform() == ax.transData:
            for path in coll.get_paths():
                ys.extend(np.asarray(path.vertices, dtype=float)[:, 1])
    return [y for y in ys if np.isfinite(y)]


def fit_y(axes, bottom: float = 0.0, top: float | None = None, pad: float = 0.05) -> None:
    """Set one y range on `axes` (panels that share their y axis; call once
    every panel is drawn) that holds every finite value drawn in any of
    them, confidence bars included: from `bottom` (or the lowest value, if
    lower) to the highest value plus `pad` of the span, or to `top` if that
    is higher (a common scale for several figures). Setting the limits per
    panel instead fixes a shared axis at the first panel's range."""
    axes = list(axes)
    ys = [y for ax in axes for y in drawn_y(ax)]
    lo = min([bottom, *ys])
    hi = max(ys) if ys else lo + 1.0
    hi = hi + pad * ((hi - lo) or 1.0)
    if top is not None:
        hi = max(hi, top)
    for ax in axes:
        ax.set_ylim(lo, hi)
