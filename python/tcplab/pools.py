"""Where a sweep's runs execute: local worker processes or a Dask cluster.

Both pools take a list of tasks (a function and its arguments), yield
``(index, result)`` as runs finish, in whatever order they finish (the sweep
orders its rows itself), and on any exception from the caller's side,
Ctrl-C included, stop at once: queued runs are cancelled, local workers are
killed (a run inside the simulator cannot be interrupted, and waiting for
it is what made Ctrl-C hang).

Local workers also die with their parent: if the main process is killed
(SIGKILL, OOM killer), nothing is left running.
"""
from __future__ import annotations

import contextvars
import os
import signal
import sys
import threading
from contextlib import closing, contextmanager
from typing import Callable, Generator, Iterator, Sequence

from .errors import ScenarioError

# How long a sweep waits for a Dask scheduler to answer and for its first
# worker before it gives up with one line instead of waiting for ever.
CONNECT_TIMEOUT_S = 10
WORKER_TIMEOUT_S = 30

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    """Make this worker exit when `parent_pid` goes away. Linux delivers
    SIGKILL at once through prctl(PR_SET_PDEATHSIG); elsewhere (or if prctl
    is unavailable) a daemon thread notices the re-parenting within a
    second (the simulator releases the GIL, so the thread runs during runs)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)

    def watch():
        import time

        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="tcplab-parent-watch", daemon=True).start()


def _worker_init(parent_pid: int) -> None:
    # Ctrl-C in a terminal reaches the whole process group; the main process
    # alone decides what happens (it kills the workers), so workers ignore it
    # instead of each printing a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the command's SIGTERM handler (which turns
    # SIGTERM into Ctrl-C): a worker told to terminate must just terminate.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with_parent(parent_pid)


def _kill_local(pool, procs: list) -> None:
    # The executor's manager thread, which the interpreter joins at exit,
    # joins its call queue's feeder thread; with the workers killed that
    # thread can stay blocked writing to a pipe nobody reads (a forked
    # process elsewhere may still hold its read end, so the write never
    # fails), and the process then hangs after Ctrl-C. Nothing queued
    # matters any more: let the feeder go unjoined.
    queue = getattr(pool, "_call_queue", None)
    if queue is not None:
        queue.cancel_join_thread()
    for p in procs:
        if p.is_alive():
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.join(timeout=2)


def _start_method() -> str:
    """Fork where the platform has it (Linux): workers start at once and a
    script that runs a sweep needs no `if __name__ == "__main__":` guard, as
    before. The workers call only the simulator and the metrics, never a
    lock another thread of the parent may have held at the fork. Elsewhere
    the platform's default (spawn on macOS and Windows)."""
    import multiprocessing

    return "fork" if sys.platform.startswith("linux") else multiprocessing.get_start_method()


class LocalPool:
    """`jobs` worker processes on this machine."""

    def __init__(self, jobs: int):
        self.jobs = jobs

    # A generator (not just an iterator): `run_local` closes it to kill the
    # workers when its caller is interrupted.
    def imap(self, fn: Callable, tasks: Sequence[tuple]) -> Generator[tuple[int, object], None, None]:
        # Worker processes even for one job: a run inside the simulator
        # cannot be interrupted, but a worker can be killed, so Ctrl-C stops
        # at once whatever the length of a run.
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        pool = ProcessPoolExecutor(max_workers=min(self.jobs, len(tasks)),
                                   mp_context=multiprocessing.get_context(_start_method()),
                                   initializer=_worker_init, initargs=(os.getpid(),))
        ok = False
        procs: list = []
        try:
            pending = {pool.submit(fn, *args): i for i, args in enumerate(tasks)}
            # The executor starts its workers on the first submit.
            procs = list(pool._processes.values())
            while pending:
                # A timeout keeps the main thread returning to Python, so a
                # signal handler (Ctrl-C) runs promptly.
                done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield pending.pop(fut), fut.result()
            ok = True
        finally:
            if ok:
                pool.shutdown(wait=True)
            else:
                _kill_local(pool, procs or list((pool._processes or {}).values()))


def _worker_version() -> str:
    from . import __version__

    return __version__


#: Dask transports that reach a scheduler in another process. Not ucx://:
#: it needs ucx-py, without which the Client fails like a malformed address.
SCHEMES = ("tcp", "tls", "ws", "wss")


def check_address(address) -> None:
    """Refuse a malformed scheduler address in one line, before any Dask
    Client exists: a Client given "tcp://localhost" (no port) raises, but
    the half-made client then spent 20 s closing itself at exit and printed
    a traceback (the failed constructor leaves no client to close). An
    in-process cluster's inproc:// address is taken as it is."""
    import re

    if isinstance(address, str) and address.startswith("inproc://"):
        return
    m = re.fullmatch(r"(?:([a-z]+)://)?(\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+):([0-9]{1,5})", address) \
        if isinstance(address, str) else None
    if m is None or (m.group(1) or "tcp") not in SCHEMES or not 0 < int(m.group(3)) < 65536:
        raise ScenarioError(f"--scheduler {address!r}: expected a Dask scheduler address SCHEME://HOST:PORT, "
                            f"e.g. tcp://10.0.0.5:8786 (SCHEME {', '.join(SCHEMES)}; PORT 1-65535)", "scheduler")


class DaskPool:
    """Runs on a Dask distributed cluster. Dask reschedules the tasks of a
    worker that dies on the others; the cluster's workers are the user's,
    so on interruption queued tasks are cancelled but no worker is killed."""

    def __init__(self, address: str):
        try:
            from distributed import Client
        except ImportError as e:  # pragma: no cover - a declared dependency
            raise ScenarioError(f"--scheduler: dask.distributed is not installed ({e})", "scheduler") from None
        check_address(address)
        self.address = address
        try:
            self.client = Client(address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            raise ScenarioError(f"--scheduler {address}: cannot connect to a Dask scheduler: {_one_line(e)}",
                                "scheduler") from None
        try:
            self.client.wait_for_workers(1, timeout=WORKER_TIMEOUT_S)
            self._check_versions()
        except BaseException:
            self.close()
            raise

    def _check_versions(self) -> None:
        """Every worker must run the same tcplab as this process: another
        version may simulate differently, and the sweep promises the results
        of a local run."""
        mine = _worker_version()
        try:
            theirs = self.client.run(_worker_version)
        except Exception as e:
            raise ScenarioError(f"--scheduler {self.address}: a worker cannot import tcplab "
                                f"(install it on every worker: pip install tcplab): {_one_line(e)}",
                                "scheduler") from None
        for worker, v in sorted(theirs.items()):
            if v != mine:
                raise ScenarioError(f"--scheduler {self.address}: worker {worker} runs tcplab {v}, "
                                    f"this machine {mine}; install the same version everywhere", "scheduler")

    def imap(self, fn: Callable, tasks: Sequence[tuple]) -> Iterator[tuple[int, object]]:
        from distributed import as_completed

        futures = []
        try:
            for i, args in enumerate(tasks):
                futures.append(self.client.submit(fn, *args, pure=False))
            index = {f.key: i for i, f in enumerate(futures)}
            for fut in as_completed(futures, loop=self.client.loop):
                yield index[fut.key], fut.result()
                fut.release()
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self) -> None:
        self.client.close(timeout=CONNECT_TIMEOUT_S)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


_SCHEDULER: contextvars.ContextVar = contextvars.ContextVar("tcplab_scheduler", default=None)


@contextmanager
def use_scheduler(address: str | None):
    """Within this block every sweep runs on the Dask cluster at `address`
    (one connection for all of them); with None, on local processes. This is
    how `tcplab reproduce --scheduler` reaches the studies' sweeps without
    changing their functions."""
    if address is None:
        yield None
        return
    pool = DaskPool(address)
    token = _SCHEDULER.set(pool)
    try:
        yield pool
    finally:
        _SCHEDULER.reset(token)
        pool.close()


@contextmanager
def pool_for(jobs: int | None, scheduler: str | None):
    """The pool a sweep uses: the given scheduler, else the one of an
    enclosing use_scheduler block, else `jobs` local processes."""
    if scheduler is not None:
        with use_scheduler(scheduler) as pool:
            yield pool
        return
    active = _SCHEDULER.get()
    if active is not None:
        yield active
        return
    yield LocalPool(local_jobs(jobs))


def check_pool_args(jobs: object, scheduler: str | None) -> int | None:
    """A sweep's `jobs` (`check_jobs`) and `scheduler` (`check_address`,
    when given) checked before anything is made; returns `jobs`."""
    jobs = check_jobs(jobs)
    if scheduler is not None:
        check_address(scheduler)
    return jobs


def check_jobs(jobs: object, option: str = "jobs") -> int | None:
    """`jobs` as a sweep takes it: None (one process per core) or a
    positive integer; anything else is refused in one line naming `option`
    (as the command line's `--jobs`)."""
    if jobs is None:
        return None
    import numbers

    if isinstance(jobs, bool) or not isinstance(jobs, numbers.Integral) or int(jobs) < 1:
        raise ScenarioError(f"{option} must be a positive integer, got {jobs!r}", option)
    return int(jobs)


def local_jobs(jobs: int | None) -> int:
    """Worker processes on this machine: `jobs`, or one per core. (A
    study's own work, trace analyses and figures, writes local files and so
    always runs here, even when its sweeps go to a cluster.)"""
    return jobs if jobs else (os.cpu_count() or 1)


def _call(fn: Callable, args: tuple):
    return fn(*args)


def run_local(calls: Sequence[tuple[Callable, tuple]], jobs: int) -> list:
    """`fn(*args)` for every (fn, args) in `calls`, in up to `jobs` local
    worker processes (in this one with one job or one call); the results
    in the order of `calls`. Functions and arguments must pickle."""
    if jobs <= 1 or len(calls) <= 1:
        return [fn(*args) for fn, args in calls]
    results: list = [None] * len(calls)
    # Closed on the way out, so Ctrl-C kills the workers at once (as a
    # sweep's pool is), not when the generator happens to be collected.
    with closing(LocalPool(jobs).imap(_call, list(calls))) as done:
        for i, r in done:
            results[i] = r
    return results
