"""Figure helpers shared by the studies."""
from __future__ import annotations

from pathlib import Path


def pyplot():
    """matplotlib's pyplot on the non-interactive backend (imported lazily:
    plotting is the slowest import of a study)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig, out: Path, name: str, written: list) -> None:
    """Write `name`.png and `name`.svg into `out` atomically and close the figure."""
    from ..io import atomic_write

    plt = pyplot()
    fig.tight_layout()
    for ext in ("png", "svg"):
        p = Path(out) / f"{name}.{ext}"
        atomic_write(p, lambda tmp: fig.savefig(tmp, dpi=150, format=ext))
        written.append(p)
    plt.close(fig)
