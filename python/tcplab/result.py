"""Results of one run: tables as pandas DataFrames (built on first access)."""
from __future__ import annotations


class Result:
    """``flows``, ``links``, ``series``, ``queues`` and ``trace`` are pandas
    DataFrames; ``summary`` is a dict (seed, duration_s, events, wall_s ...)."""

    TABLES = ("flows", "links", "series", "queues", "trace")

    def __init__(self, raw: dict, scenario=None):
        self._raw = raw
        self._frames: dict = {}
        self.scenario = scenario
        self.summary = dict(raw["summary"])
        #: capture name -> libpcap file bytes (``[[pcap]]`` / ``--pcap``)
        self.pcaps: dict = dict(raw.get("pcaps", {}))
        wall = self.summary.get("wall_s") or 0.0
        self.summary["events_per_s"] = self.summary["events"] / wall if wall > 0 else None

    def columns(self, name: str) -> dict:
        """Plain dict of column lists (no pandas needed)."""
        return self._raw[name]["columns"]

    def csv(self, name: str) -> str:
        """The table as CSV text, byte-identical for identical runs."""
        return self._raw[name]["csv"]

    def _frame(self, name: str):
        if name not in self._frames:
            import pandas as pd

            t = self._raw[name]
            self._frames[name] = pd.DataFrame({n: t["columns"][n] for n in t["names"]}, columns=t["names"])
        return self._frames[name]

    @property
    def flows(self):
        return self._frame("flows")

    @property
    def links(self):
        return self._frame("links")

    @property
    def series(self):
        return self._frame("series")

    @property
    def queues(self):
        return self._frame("queues")

    @property
    def trace(self):
        return self._frame("trace")

    def write(self, out_dir) -> list:
        """Write the tables and summary.json into out_dir (atomically per file)."""
        from .io import write_result

        return write_result(self, out_dir)

    def __repr__(self) -> str:
        s = self.summary
        return f"Result(flows={len(self.columns('flows')['flow'])}, events={s['events']}, wall_s={s['wall_s']:.3f})"
