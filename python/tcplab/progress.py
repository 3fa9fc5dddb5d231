"""A progress bar for one long simulation (SPEC 8: "progress bars for long
work"; sweeps and studies have theirs per run).

The core calls `RunProgress` with the simulated time reached about every
0.1 s of wall time (`_core.run_json(..., progress=)`). Nothing is shown,
and tqdm is not even imported, until the run has taken `delay` seconds:
most runs end before, and their output stays as it was."""
from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class RunProgress:
    """Callable (simulated seconds reached, the run's duration) -> None that
    draws a bar of simulated seconds on `file` (stderr) once the run has
    lasted `delay` seconds; `disable=None` leaves the bar out when `file`
    is not a terminal (tqdm's rule), so logs and pipes get no bar."""

    def __init__(self, delay: float = 1.0, file: TextIO | None = None, disable: bool | None = None):
        self.t0 = time.monotonic()
        self.delay = delay
        self.file = file
        self.disable = disable
        self.bar: Any = None

    def __call__(self, now_s: float, end_s: float) -> None:
        if self.bar is None:
            if time.monotonic() - self.t0 < self.delay:
                return
            from tqdm import tqdm

            self.bar = tqdm(total=end_s, desc="simulated", file=self.file if self.file is not None else sys.stderr,
                            disable=self.disable, leave=False,
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} s [{elapsed}<{remaining}]")
        self.bar.update(now_s - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
