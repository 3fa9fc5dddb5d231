"""Writing results: every file is written to a temporary name in the same
directory and renamed into place, so a crash never leaves a half file."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def _file_mode() -> int:
    """Permissions of an ordinary new file under the current umask
    (mkstemp creates 0600 files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: Path, write) -> None:
    """Call `write(tmp)` to fill a temporary file beside `path`, then give it
    ordinary permissions and rename it into place; on any failure remove the
    temporary file and leave `path` as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_bytes(data))


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def write_parquet(path: Path, table: dict) -> None:
    """Write one result table (as handed over by the core: CSV text plus
    column types) to Parquet. Arrow's C++ CSV reader builds the columns with
    the declared types; going through pyarrow.array() instead would make
    pyarrow import pandas (a third of a second) just to check its input."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    arrow = {"float64": pa.float64(), "int64": pa.int64(), "bool": pa.bool_(), "string": pa.string()}
    types = {n: arrow[t] for n, t in zip(table["names"], table["types"])}
    data = pacsv.read_csv(
        pa.py_buffer(table["csv"].encode()),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                             true_values=["true"], false_values=["false"]),
    )
    atomic_write(path, lambda tmp: pq.write_table(data, tmp))


def write_result(result, out_dir) -> list:
    """flows.csv/.parquet, links.csv, summary.json; series.csv and queues.csv
    when sampling was on; trace.csv when tracing was on; NAME.pcap per capture."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in ("flows", "links", "series", "queues", "trace"):
        cols = result.columns(name)
        if name in ("series", "queues", "trace") and not next(iter(cols.values()), []):
            continue
        p = out / f"{name}.csv"
        atomic_write_text(p, result.csv(name))
        written.append(p)
    write_parquet(out / "flows.parquet", result._raw["flows"])
    for name, data in result.pcaps.items():
        atomic_write_bytes(out / f"{name}.pcap", data)
        written.append(out / f"{name}.pcap")
    written.append(out / "flows.parquet")
    summary = dict(result.summary)
    from . import __version__

    summary["tcplab_version"] = __version__
    if result.scenario is not None and result.scenario.source:
        summary["scenario"] = result.scenario.source
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    written.append(out / "summary.json")
    return written
