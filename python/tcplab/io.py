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

from . import _core

# pathlib only where a caller gets a Path back (`check_out_dir`,
# `write_result`): importing it cost `tcplab run` about 4 ms of its start-up
# (paired medians, 2026-11-30), so the run's own path works on strings.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

#: Files a run writes (besides NAME.pcap captures). emulation.json is the
#: emulator's (`tcplab emulate`): listed so that a later run into the same
#: directory replaces it with the rest instead of leaving it stale.
RESULT_FILES = (
    "flows.csv", "links.csv", "nodes.csv", "series.csv", "queues.csv", "trace.csv", "summary.json", "emulation.json",
    "flows.parquet", "links.parquet", "nodes.parquet", "series.parquet", "queues.parquet", "trace.parquet",
)


def _of_a_run(name: str) -> bool:
    """Whether a file in an output directory belongs to the run there: one
    the run writes (RESULT_FILES, NAME.pcap) or a figure `tcplab plot RUN`
    drew from them under its default name (runplot.plot_run: window.png,
    sequence-FLOW.png, queue-LINK-DIRECTION.png). A later run into the
    directory replaces its run as a whole, so those figures, which show
    the earlier run, go with it; a figure saved under another name
    (`--out`) is the user's file and stays."""
    if name in RESULT_FILES or name.endswith(".pcap") or name == "window.png":
        return True
    if name.startswith("sequence-") and name.endswith(".png"):
        return True
    if name.startswith("queue-") and name.endswith(".png"):
        link, _, side = name[len("queue-"):-len(".png")].partition("-")
        return link.isdigit() and side in ("forward", "reverse")
    return False


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


def atomic_write(path: str | Path, write) -> None:
    """Call `write(tmp)` to fill a temporary file beside `path`, then give it
    ordinary permissions and rename it into place; on any failure remove the
    temporary file and leave `path` as it was."""
    import tempfile

    path = os.fspath(path)
    parent = os.path.dirname(path) or "."
    os.makedirs(parent, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_bytes(path: str, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    atomic_write(path, lambda tmp: _write_bytes(tmp, data))


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_set(directory: str | Path, files: dict, marker: str) -> None:
    """Write the files {name: bytes} of one result into `directory` as a
    set. All are written to temporary files first, so a full disk fails
    before anything is replaced; then `marker` is removed, the others are
    renamed into place and `marker` comes last. A reader that finds the
    marker therefore finds the whole set it belongs to, never the tables
    of one sweep beside the marker of another (a crash between the renames
    leaves a set without its marker, which readers refuse)."""
    import tempfile

    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    temps: dict = {}
    try:
        for name, data in files.items():
            fd, temps[name] = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(temps[name], _file_mode())
        try:
            os.unlink(os.path.join(directory, marker))
        except FileNotFoundError:
            pass
        for name in sorted(temps, key=lambda n: n == marker):
            os.replace(temps.pop(name), os.path.join(directory, name))
    except BaseException:
        for tmp in temps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise


#: Prefix of the temporary directory a study writes its tables and figures
#: into (`staged_outputs`); one left by a killed run is removed by the next.
STAGE_PREFIX = ".outputs.tmp-"


def _signals_held(move) -> None:
    """Call `move()` with Ctrl-C and SIGTERM held back, then deliver any
    that arrived meanwhile (so an interrupted study still stops, after its
    files are all in place). Handlers can only be changed in the main
    thread; elsewhere `move` just runs."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        move()
        return
    pending: list = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.signal(s, lambda signum, frame: pending.append(signum)) for s in held}
    try:
        move()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    if pending:
        signal.raise_signal(pending[0])


@contextlib.contextmanager
def staged_outputs(out):
    """Yield a temporary directory inside `out` (a study's output directory,
    which also holds its stored runs) to write one set of tables and figures
    into. On success the files are moved into `out`, replacing those of the
    same names, with Ctrl-C and SIGTERM held back until all are in place;
    on any failure (Ctrl-C included) the directory is removed and `out`
    keeps its earlier set untouched. (Written one by one into `out`, a study
    stopped while drawing its figures left its new tables beside an earlier
    run's figures.)"""
    from pathlib import Path

    out = os.fspath(out)
    os.makedirs(out, exist_ok=True)
    with os.scandir(out) as it:
        stale = [e.path for e in it if e.name.startswith(STAGE_PREFIX) and e.is_dir(follow_symlinks=False)]
    for d in stale:
        _remove_dir(d)
    stage = _new_dir(out, STAGE_PREFIX)
    try:
        yield Path(stage)
        os.chmod(stage, 0o777 & ~_umask())

        def move() -> None:
            for name in sorted(os.listdir(stage)):
                os.replace(os.path.join(stage, name), os.path.join(out, name))

        _signals_held(move)
    finally:
        _remove_dir(stage)


def out_dir_path(out) -> str:
    """The output directory as an absolute path (a string); OutputError if
    it cannot be one (an empty name, an existing file)."""
    if out is None or str(out).strip() == "":
        raise OutputError("--out: needs a directory name (got an empty one)")
    p = os.path.abspath(out)
    if os.path.exists(p) and not os.path.isdir(p):
        raise OutputError(f"--out {out}: exists and is not a directory")
    if os.path.dirname(p) == p:
        raise OutputError(f"--out {out}: cannot replace the file system root")
    return p


def probe_dir(d: str) -> None:
    """Raise OSError unless directory `d` can be created (with its parents)
    and a file written into it. Directories made for the test are removed
    again: nothing is left behind by a command that then fails."""
    import tempfile

    made = []
    head = d
    while not os.path.lexists(head) and os.path.dirname(head) != head:
        made.append(head)
        head = os.path.dirname(head)
    try:
        for m in reversed(made):
            os.mkdir(m)
        fd, probe = tempfile.mkstemp(prefix=".tcplab-probe.", dir=d)
        os.close(fd)
        os.unlink(probe)
    finally:
        for m in made:
            try:
                os.rmdir(m)
            except OSError:
                pass


def check_out_dir(out) -> Path:
    """`out_dir_path` as a Path, checked to be usable: a directory that
    cannot be created or written into (`/proc/x`, `afile/sub`, read-only)
    is refused now, naming --out, before any run (it used to fail after
    the first run as "cannot write results")."""
    from pathlib import Path

    p = out_dir_path(out)
    try:
        probe_dir(p)
    except OSError as e:
        raise OutputError(f"--out {out}: cannot create the directory or write into it: {e.strerror or e}") from None
    return Path(p)


def _is_result_dir(d: str) -> bool:
    """Holds nothing but files a run writes (so it may be swapped whole)."""
    with os.scandir(d) as it:
        return all(e.is_file() and _of_a_run(e.name) for e in it)


def _new_dir(parent: str, prefix: str) -> str:
    """A new empty directory `parent/prefix<random>`, mode 0700, as
    tempfile.mkdtemp makes it (without importing tempfile and random, which
    were a tenth of `tcplab run`'s start-up)."""
    for _ in range(100):
        d = os.path.join(parent, f"{prefix}{os.urandom(6).hex()}")
        try:
            os.mkdir(d, 0o700)
            return d
        except FileExistsError:
            continue
    raise FileExistsError(f"{parent}: no free name for a temporary directory {prefix}*")


def _remove_dir(d: str) -> None:
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


def _commit(stage: str, out: str) -> None:
    """Put the finished run in `stage` at `out`.

    A new `out`: one rename. An `out` holding only an earlier run's files: the
    two directories are swapped (one atomic step on Linux, else two renames
    with the old run kept under a hidden name until the new one is in place),
    then the old run is removed. An `out` that also holds other files (the
    user's): the run's files are moved in one by one after the earlier run's
    files that this run does not write are removed, and the user's files are
    left alone. The earlier run's files include the figures `tcplab plot`
    drew from it under their default names (`_of_a_run`)."""
    os.chmod(stage, 0o777 & ~_umask())  # _new_dir made it 0700
    if not os.path.exists(out):
        os.rename(stage, out)
        return
    if _is_result_dir(out):
        # Swap the two directories in one step (Linux renameat2).
        if _core.exchange_dirs(stage, out):
            _remove_dir(stage)
            return
        import shutil

        old = _new_dir(os.path.dirname(out), f".{os.path.basename(out)}.old-")
        os.rename(out, os.path.join(old, "d"))
        os.rename(stage, out)
        shutil.rmtree(old, ignore_errors=True)
        return
    new = set(os.listdir(stage))
    with os.scandir(out) as it:
        for e in it:
            if e.is_file() and _of_a_run(e.name) and e.name not in new:
                os.unlink(e.path)
    for name in sorted(new):
        os.replace(os.path.join(stage, name), os.path.join(out, name))
    _remove_dir(stage)


@contextlib.contextmanager
def staged_dir(out):
    """Yield a fresh temporary directory beside `out` to write a run into;
    on success it replaces `out` (see `_commit`), on any failure (including
    Ctrl-C) it is removed and `out` is untouched. Paths are strings."""
    out = out_dir_path(out)
    parent = os.path.dirname(out)
    try:
        os.makedirs(parent, exist_ok=True)
        stage = _new_dir(parent, f".{os.path.basename(out)}.tmp-")
    except OSError as e:
        why = e.strerror or e
        if isinstance(e, FileExistsError) and not os.path.isdir(parent):
            # `--out afile/sub`: makedirs finds the file `afile` where a
            # directory must be.
            import errno

            why = os.strerror(errno.ENOTDIR)
        raise OutputError(f"--out {out}: cannot create the directory: {why}") from None
    try:
        yield stage
        _commit(stage, out)
    except BaseException:
        _remove_dir(stage)
        raise


def write_parquet(path: str | Path, table: dict, csv_path: str | None = None) -> None:
    """Write one result table (as handed over by the core: CSV text, or
    with `csv_path` the CSV file written from it, plus column types) to
    Parquet. Arrow's C++ CSV reader builds the columns with
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
        csv_path if csv_path is not None else pa.BufferReader(table["csv"].encode()),
        read_options=pacsv.ReadOptions(use_threads=False),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                             true_values=["true"], false_values=["false"]),
    )
    atomic_write(path, lambda tmp: pq.write_table(data, tmp))
    del data


def write_files(result, out: str | Path, parquet: bool = False) -> list:
    """Write a run's files into the directory `out` (normally a staging
    directory): flows.csv, links.csv, summary.json; nodes.csv when the
    scenario has 802.11 nodes; series.csv and queues.csv when sampling was on; trace.csv when tracing was on;
    NAME.pcap per capture; with `parquet`, NAME.parquet beside each
    NAME.csv, the same columns with their types. Tables the core
    already streamed into `out` stay where they are; others are copied.
    Returns the paths written, as strings."""
    out = os.fspath(out)
    written = []

    def same(src, p: str) -> bool:
        return os.path.realpath(src) == os.path.realpath(p)

    for name in ("flows", "links", "nodes", "series", "queues", "trace"):
        p = os.path.join(out, f"{name}.csv")
        src = result.file(name)
        if src is not None:
            if not same(src, p):
                import shutil

                shutil.copyfile(src, p)
        elif name in ("nodes", "series", "queues", "trace") and result.rows(name) == 0:
            continue
        else:
            _write_bytes(p, result.csv(name).encode("utf-8"))
        written.append(p)
        if parquet:
            # From the CSV file just written: a streamed table (a trace of
            # millions of rows) is never held in memory as text.
            pp = os.path.join(out, f"{name}.parquet")
            write_parquet(pp, result._raw[name], csv_path=p)
            written.append(pp)
    for name in result.pcaps:
        p = os.path.join(out, f"{name}.pcap")
        src = result.pcaps.files.get(name)
        if src is None:
            _write_bytes(p, result.pcaps[name])
        elif not same(src, p):
            import shutil

            shutil.copyfile(src, p)
        written.append(p)
    # Result.summary as it is: it carries the version and the scenario file.
    p = os.path.join(out, "summary.json")
    _write_bytes(p, (json.dumps(result.summary, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    written.append(p)
    return written


def write_result(result, out_dir, parquet: bool = False) -> list:
    """Write a run's files into `out_dir`, all of them appearing together."""
    out = check_out_dir(out_dir)
    with staged_dir(out) as stage:
        # The result's own method: an emulated run adds emulation.json to
        # the set.
        names = [os.path.basename(os.fspath(p)) for p in result.write_files_into(stage, parquet)]
    return [out / n for n in names]
