"""Results of one run: tables as pandas DataFrames (built on first access),
or as polars DataFrames (`Result.to_polars`).

The trace and the sampled series may be long; the core writes them to CSV
files while it runs (so its memory stays flat) and they are read from there
only when asked for. Small tables come over in memory."""
from __future__ import annotations

from collections.abc import Mapping

# Seen by type checkers only (importing typing costs start-up time).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd
    import polars


def _parse(types: list):
    """Converters from CSV text to Python values, one per column type."""
    def opt_float(s):
        return float(s) if s != "" else None

    def opt_int(s):
        return int(s) if s != "" else None

    conv = {"float64": opt_float, "int64": opt_int, "bool": lambda s: s == "true", "string": str}
    return [conv[t] for t in types]


#: The core's column types as polars dtypes' names (`_polars`).
_POLARS_TYPES = {"float64": "Float64", "int64": "Int64", "bool": "Boolean", "string": "String"}


def _polars() -> Any:
    """The polars module, or an ImportError that says how to get it (polars
    is an optional dependency: pandas is the default frame)."""
    try:
        import polars
    except ImportError:
        raise ImportError("polars is not installed: pip install 'tcplab[polars]' (or polars)") from None
    return polars


def check_table_name(name: str, allowed: tuple[str, ...]) -> None:
    """A clear error for a table name that is not one of `allowed`."""
    if name not in allowed:
        raise ValueError(f"table: {name!r} is not one of {', '.join(allowed)}")


class _Captures(Mapping):
    """Capture name -> libpcap bytes; captures the core wrote to files are
    read when asked for."""

    def __init__(self, in_memory: dict, files: dict, keep=None):
        self._mem = dict(in_memory)
        self.files = dict(files)
        # The directory the files are in lives while this mapping does:
        # `tcplab.run(sc).pcaps["x"]` drops the Result before the read.
        self._keep = keep

    def __getitem__(self, name):
        if name in self._mem:
            return self._mem[name]
        with open(self.files[name], "rb") as f:
            return f.read()

    def __iter__(self):
        return iter(sorted({*self._mem, *self.files}))

    def __len__(self):
        return len({*self._mem, *self.files})


class _OwnedDir:
    """A temporary directory, removed when the last object holding this
    goes."""

    def __init__(self, path):
        import shutil
        import weakref

        self.path = path
        self._cleanup = weakref.finalize(self, shutil.rmtree, path, ignore_errors=True)


class Result:
    """``flows``, ``links``, ``nodes``, ``series``, ``queues`` and ``trace`` are pandas
    DataFrames; ``summary`` is a dict with the keys of summary.json (seed, duration_s,
    events, wall_s, events_per_s, tcplab_version, scenario (the file, for a scenario
    loaded from one) and the packet accounting: docs/scenarios.md, "Output tables")."""

    TABLES = ("flows", "links", "nodes", "series", "queues", "trace")

    def __init__(self, raw: Mapping[str, Any], scenario=None, owned_dir=None):
        self._raw = raw
        self._frames: dict = {}
        self.scenario = scenario
        self.summary = dict(raw["summary"])
        # A temporary directory holding streamed tables and captures lives
        # as long as this object or its `pcaps`.
        self._dir = _OwnedDir(owned_dir) if owned_dir is not None else None
        #: capture name -> libpcap file bytes (``[[pcap]]`` / ``--pcap``)
        self.pcaps: Mapping = _Captures(raw.get("pcaps", {}), raw.get("pcap_files", {}), keep=self._dir)
        wall = self.summary.get("wall_s") or 0.0
        self.summary["events_per_s"] = self.summary["events"] / wall if wall > 0 else None
        # What summary.json says beyond the core's counts: the version that
        # ran and the scenario file (none for a dict), so that the dict and
        # the file agree key for key.
        from . import __version__

        self.summary["tcplab_version"] = __version__
        source = getattr(scenario, "source", None)
        if source:
            self.summary["scenario"] = source

    def file(self, name: str):
        """Path of the CSV file the core streamed table `name` into, or None."""
        return self._raw[name].get("path")

    def rows(self, name: str) -> int:
        """Number of rows of table `name` (one of ``TABLES``), counted
        without reading a streamed table or importing pandas."""
        t = self._raw[name]
        if "path" in t:
            return t["rows"]
        return len(next(iter(t["columns"].values()), []))

    def columns(self, name: str) -> dict:
        """Plain dict of column lists (no pandas needed)."""
        t = self._raw[name]
        if "columns" not in t:
            import csv

            cols: dict[str, list] = {n: [] for n in t["names"]}
            conv = _parse(t["types"])
            lists = [cols[n] for n in t["names"]]
            with open(t["path"], newline="", encoding="utf-8") as f:
                rd = csv.reader(f)
                next(rd)
                for row in rd:
                    for lst, c, v in zip(lists, conv, row):
                        lst.append(c(v))
            t["columns"] = cols
        return t["columns"]

    def csv(self, name: str) -> str:
        """The table as CSV text, byte-identical for identical runs."""
        t = self._raw[name]
        if "csv" not in t:
            with open(t["path"], encoding="utf-8", newline="") as f:
                return f.read()
        return t["csv"]

    def to_polars(self, name: str) -> polars.DataFrame:
        """Table `name` (one of ``TABLES``) as a polars DataFrame, with the
        same columns, values and nulls as the pandas one and the core's
        types (Int64, Float64, Boolean, String). A table the core streamed
        to a file (the trace, the series) is read by polars itself, without
        pandas or a Python list per column. Needs polars (``pip install
        'tcplab[polars]'``)."""
        check_table_name(name, self.TABLES)
        pl = _polars()
        t = self._raw[name]
        types = dict(zip(t["names"], t["types"]))
        schema = {n: getattr(pl, _POLARS_TYPES[k]) for n, k in types.items()}
        if "columns" not in t:
            # The core writes booleans as true/false and a missing number as
            # "" unquoted. A text column has no missing values, so an empty
            # field there is an empty string, as in the pandas table (polars
            # reads it as null, and its option for that changed name).
            text = [n for n, k in types.items() if k == "string"]
            nulls = {n: "" for n in types if n not in text}
            return pl.read_csv(t["path"], schema=schema, null_values=nulls).with_columns(
                pl.col(text).fill_null(""))
        return pl.DataFrame(t["columns"], schema=schema)

    def _frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            import pandas as pd

            t = self._raw[name]
            cols = self.columns(name)
            self._frames[name] = pd.DataFrame({n: cols[n] for n in t["names"]}, columns=t["names"])
        return self._frames[name]

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow: transport, bytes delivered, throughput and goodput, retransmissions, timeouts ...
        (columns: docs/scenarios.md, "Output tables")."""
        return self._frame("flows")

    @property
    def links(self) -> pd.DataFrame:
        """One row per link direction: packets and bytes sent, queue drops, error-model losses ..."""
        return self._frame("links")

    @property
    def nodes(self) -> pd.DataFrame:
        """One row per node with an 802.11 device (empty without [wireless])."""
        return self._frame("nodes")

    @property
    def series(self) -> pd.DataFrame:
        """The sampled flow state (cwnd, srtt, rto, sequence numbers) every ``output.sample_interval``;
        empty when the scenario samples nothing."""
        return self._frame("series")

    @property
    def queues(self) -> pd.DataFrame:
        """The sampled queue lengths every ``output.sample_interval``; empty when the scenario samples nothing."""
        return self._frame("queues")

    @property
    def trace(self) -> pd.DataFrame:
        """The time-sequence trace (every segment sent, retransmitted or dropped, every ACK); empty
        unless ``output.trace`` (``--trace``) is on."""
        return self._frame("trace")

    def write(self, out_dir, parquet: bool = False) -> list:
        """Write the tables and summary.json into out_dir, all files of the
        run appearing together; ``parquet=True`` adds NAME.parquet beside each
        NAME.csv."""
        from .io import write_result

        return write_result(self, out_dir, parquet=parquet)

    def write_files_into(self, stage, parquet: bool = False) -> list:
        """Write the files into `stage` as they are (no staging of its own)."""
        from .io import write_files

        return write_files(self, stage, parquet=parquet)

    def __repr__(self) -> str:
        s = self.summary
        return f"Result(flows={len(self.columns('flows')['flow'])}, events={s['events']}, wall_s={s['wall_s']:.3f})"
