"""Writing results.

Single files (study tables, figures, sweep records) are written to a
temporary name in the same directory and renamed into place, so a crash never
leaves a half file. A run's result directory is written as a whole: every
file goes into a temporary directory beside the target, which then takes the
target's place (see `staged_dir`), so the files of one run appear together
and a failed run leaves the previous results as they were.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from . import _core

#: Files a run writes (besides NAME.pcap captures).
RESULT_FILES = (
    "flows.csv", "links.csv", "nodes.csv", "series.csv", "queues.csv", "trace.csv", "flows.parquet", "summary.json",
)


class OutputError(OSError):
    """The output directory cannot be used or written (one-line message)."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _file_mode() -> int:
    """Permissions of an ordinary new file under the current umask
    (mkstemp creates 0600 files)."""
    return 0o666 & ~_umask()


def atomic_write(path: Path, write) -> None:
    """Call `write(tmp)` to fill a temporary file beside `path`, then give it
    ordinary permissions and rename it into place; on any failure remove the
    temporary file and leave `path` as it was."""
    import tempfile

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


def check_out_dir(out) -> Path:
    """The output directory as an absolute path; OutputError if it cannot be
    one (an empty name, an existing file)."""
    if out is None or str(out).strip() == "":
        raise OutputError("--out: needs a directory name (got an empty one)")
    p = Path(os.path.abspath(out))
    if p.exists() and not p.is_dir():
        raise OutputError(f"--out {out}: exists and is not a directory")
    if p.parent == p:
        raise OutputError(f"--out {out}: cannot replace the file system root")
    return p


def _is_result_dir(d: Path) -> bool:
    """Holds nothing but files a run writes (so it may be swapped whole)."""
    return all(e.is_file() and (e.name in RESULT_FILES or e.name.endswith(".pcap")) for e in d.iterdir())


def _new_dir(parent: Path, prefix: str) -> Path:
    """A new empty directory `parent/prefix<random>`, mode 0700, as
    tempfile.mkdtemp makes it (without importing tempfile and random, which
    were a tenth of `tcplab run`'s start-up)."""
    for _ in range(100):
        d = parent / f"{prefix}{os.urandom(6).hex()}"
        try:
            os.mkdir(d, 0o700)
            return d
        except FileExistsError:
            continue
    raise FileExistsError(f"{parent}: no free name for a temporary directory {prefix}*")


def _remove_dir(d: Path) -> None:
    """Remove a directory of a run's files (flat: a run writes no
    subdirectories) without importing shutil; anything else, or an error,
    goes to shutil.rmtree. Errors are ignored, as rmtree(ignore_errors)."""
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    raise IsADirectoryError(e.path)
                os.unlink(e.path)
        os.rmdir(d)
    except OSError:
        import shutil

        shutil.rmtree(d, ignore_errors=True)


def _commit(stage: Path, out: Path) -> None:
    """Put the finished run in `stage` at `out`.

    A new `out`: one rename. An `out` holding only an earlier run's files: the
    two directories are swapped (one atomic step on Linux, else two renames
    with the old run kept under a hidden name until the new one is in place),
    then the old run is removed. An `out` that also holds other files (the
    user's): the run's files are moved in one by one after the earlier run's
    files that this run does not write are removed, and the user's files are
    left alone."""
    os.chmod(stage, 0o777 & ~_umask())  # _new_dir made it 0700
    if not out.exists():
        os.rename(stage, out)
        return
    if _is_result_dir(out):
        # Swap the two directories in one step (Linux renameat2).
        if _core.exchange_dirs(stage, out):
            _remove_dir(stage)
            return
        import shutil

        old = _new_dir(out.parent, f".{out.name}.old-")
        os.rename(out, old / "d")
        os.rename(stage, out)
        shutil.rmtree(old, ignore_errors=True)
        return
    new = {e.name for e in stage.iterdir()}
    for e in out.iterdir():
        if e.is_file() and (e.name in RESULT_FILES or e.name.endswith(".pcap")) and e.name not in new:
            e.unlink()
    for name in sorted(new):
        os.replace(stage / name, out / name)
    _remove_dir(stage)


@contextlib.contextmanager
def staged_dir(out):
    """Yield a fresh temporary directory beside `out` to write a run into;
    on success it replaces `out` (see `_commit`), on any failure (including
    Ctrl-C) it is removed and `out` is untouched."""
    out = check_out_dir(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        stage = _new_dir(out.parent, f".{out.name}.tmp-")
    except OSError as e:
        raise OutputError(f"--out {out}: cannot create the directory: {e.strerror or e}") from None
    try:
        yield stage
        _commit(stage, out)
    except BaseException:
        _remove_dir(stage)
        raise


def write_parquet(path: Path, table: dict) -> None:
    """Write one result table (as handed over by the core: CSV text plus
    column types) to Parquet. Arrow's C++ CSV reader builds the columns with
    the declared types; going through pyarrow.array() instead would make
    pyarrow import pandas (a third of a second) just to check its input.

    Single-threaded on purpose: Arrow's worker threads could still hold the
    input buffer while the interpreter shut down, which aborted the process
    at exit ("terminate called without an active exception") in a few per
    cent of runs."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    arrow = {"float64": pa.float64(), "int64": pa.int64(), "bool": pa.bool_(), "string": pa.string()}
    types = {n: arrow[t] for n, t in zip(table["names"], table["types"])}
    data = pacsv.read_csv(
        pa.BufferReader(table["csv"].encode()),
        read_options=pacsv.ReadOptions(use_threads=False),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                             true_values=["true"], false_values=["false"]),
    )
    atomic_write(path, lambda tmp: pq.write_table(data, tmp))
    del data


def write_files(result, out: Path, parquet: bool = False) -> list:
    """Write a run's files into the directory `out` (normally a staging
    directory): flows.csv, links.csv, summary.json; nodes.csv when the
    scenario has 802.11 nodes; series.csv and queues.csv when sampling was on; trace.csv when tracing was on;
    NAME.pcap per capture; flows.parquet when asked for. Tables the core
    already streamed into `out` stay where they are; others are copied."""
    out = Path(out)
    written = []
    for name in ("flows", "links", "nodes", "series", "queues", "trace"):
        p = out / f"{name}.csv"
        src = result.file(name)
        if src is not None:
            if Path(src).resolve() != p.resolve():
                import shutil

                shutil.copyfile(src, p)
        elif name in ("nodes", "series", "queues", "trace") and result.rows(name) == 0:
            continue
        else:
            p.write_text(result.csv(name), encoding="utf-8")
        written.append(p)
    for name in result.pcaps:
        p = out / f"{name}.pcap"
        src = result.pcaps.files.get(name)
        if src is None:
            p.write_bytes(result.pcaps[name])
        elif Path(src).resolve() != p.resolve():
            import shutil

            shutil.copyfile(src, p)
        written.append(p)
    if parquet:
        write_parquet(out / "flows.parquet", result._raw["flows"])
        written.append(out / "flows.parquet")
    summary = dict(result.summary)
    from . import __version__

    summary["tcplab_version"] = __version__
    if result.scenario is not None and result.scenario.source:
        summary["scenario"] = result.scenario.source
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    written.append(out / "summary.json")
    return written


def write_result(result, out_dir, parquet: bool = False) -> list:
    """Write a run's files into `out_dir`, all of them appearing together."""
    out = check_out_dir(out_dir)
    with staged_dir(out) as stage:
        names = [p.name for p in write_files(result, stage, parquet)]
    return [out / n for n in names]
