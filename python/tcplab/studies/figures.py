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

