"""The tcplab command. Bad input gives one line on stderr and exit status 2."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

from .errors import ScenarioError

# pathlib is imported by the commands that hand paths on (reproduce, sweep),
# not here: `tcplab run` works on strings (about 4 ms of its start-up).

EXIT_BAD_INPUT = 2


#: The run could not be done for a reason outside its input (full disk).
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130

#: Standard output's reader went away (`tcplab run x | head -1`). Every
#: command writes to stdout only once its work is done and its files are in
#: place, so the status says the work succeeded: 0, not 141 (128 + SIGPIPE,
#: what a tool killed by the signal reports), which would fail a
#: `set -o pipefail` script over results that are all written. Nothing is
#: printed: a reader that stops early has made its choice.
EXIT_STDOUT_CLOSED = 0


class StdoutClosed(Exception):
    """Standard output's reader has gone (a broken pipe). Not an OSError:
    it must not be reported as a failure to write results."""


def say(*args) -> None:
    """print() to standard output and flush at once, so that a reader that
    has gone is noticed here, as StdoutClosed, rather than as an OSError
    among the result files' ("cannot write results: Broken pipe") or at the
    interpreter's flush at exit (a traceback, status 120)."""
    try:
        print(*args)
        sys.stdout.flush()
    except BrokenPipeError:
        raise StdoutClosed from None


def _stdout_closed() -> int:
    """Point file descriptor 1 at /dev/null, so that what is still buffered
    for the gone reader is dropped at exit instead of failing again, and
    return EXIT_STDOUT_CLOSED."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(fd, sys.stdout.fileno())
        finally:
            os.close(fd)
    except (OSError, ValueError, AttributeError):  # no real stdout (a test's capture): nothing to redirect
        pass
    return EXIT_STDOUT_CLOSED


def _flush_stdout() -> None:
    """Flush standard output now, quietly if its reader has gone."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _stdout_closed()
    except (OSError, ValueError):
        pass


def _fail(msg: str, status: int = EXIT_BAD_INPUT) -> int:
    print(f"tcplab: error: {' '.join(str(msg).split())}", file=sys.stderr)
    return status


def _seed(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seed must be a non-negative integer, got {text!r}")
    if v < 0:
        raise argparse.ArgumentTypeError(f"--seed must be a non-negative integer, got {text!r}")
    return v


def positive_int(option: str):
    """An argparse type: a positive integer, refused in one line naming `option`."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = 0
        if v < 1:
            raise argparse.ArgumentTypeError(f"{option} must be a positive integer, got {text!r}")
        return v

    return parse


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it
    ($COLUMNS, else the terminal on standard output, else 80), without
    importing shutil: argparse's help formatter imports it to learn the
    width whenever it is given none, and it makes one at every
    `add_argument` (3 ms of a `tcplab run` of 45, with the modules shutil
    imports in turn)."""
    try:
        columns = int(os.environ["COLUMNS"])
        if columns > 0:
            return columns
    except (KeyError, ValueError):
        pass
    out = sys.__stdout__
    try:
        return (os.get_terminal_size(out.fileno()).columns if out is not None else 0) or 80
    except (ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None, **kwargs):
        # argparse's own default: the terminal's width less 2. Keyword
        # arguments of later Pythons' formatter pass through.
        width = _columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width, **kwargs)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # one line, exit 2 (argparse's default prints usage too)
        self.exit(EXIT_BAD_INPUT, f"tcplab: error: {message}\n")


def _add_run(sub) -> None:
    r = sub.add_parser("run", help="run a scenario file and write its tables")
    r.add_argument("scenario", help="scenario file (TOML)")
    r.add_argument("--out", help="output directory (default: results/runs/<scenario name>); "
                   "an earlier run's files there, and the figures tcplab plot drew from them under their "
                   "default names, are replaced as a whole")
    r.add_argument("--seed", type=_seed, help="run seed (replaces sim.seed)")
    r.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario value, e.g. --set flow[*].transport=reno (repeatable)")
    r.add_argument("--sample-interval", metavar="DURATION",
                   help="sample cwnd, srtt, rto, sequence numbers and queue lengths, e.g. 100ms")
    r.add_argument("--trace", action="store_true", help="write the time-sequence trace (trace.csv)")
    r.add_argument("--pcap", action="append", default=[], metavar="LINK[:DIRECTION]|NODE",
                   help="write a packet capture of link LINK in DIRECTION forward (default) or reverse, "
                   "or of a node; node:NAME for a node whose name is a number (repeatable)")
    r.add_argument("--parquet", action="store_true", help="also write NAME.parquet beside each NAME.csv (needs pyarrow)")
    r.add_argument("--quiet", "-q", action="store_true",
                   help="print nothing on success (and no progress bar for a run that takes over a second)")


def _add_reproduce(sub) -> None:
    rp = sub.add_parser("reproduce", help="run one of the classic studies and write its tables and figures")
    from .studies import STUDIES

    rp.add_argument("study", choices=list(STUDIES), help="the study")
    rp.add_argument("--quick", action="store_true",
                    help="a reduced grid that runs in well under two minutes (fewer seeds, grid points or movement "
                    "patterns, or shorter runs: docs/studies.md says which for each study); its files do not say "
                    "they are quick, so give them their own --out")
    _add_pool_options(rp, jobs_default="all cores; with --emulate, one per run up to 16")
    rp.add_argument("--out", help="output directory (default: results/<study>)")
    rp.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    rp.add_argument("--emulate", action="store_true", help="run the study with the kernel's TCP in real time "
                                                           "(gsmlink; needs root, see docs/emulator.md)")


def _add_emulate(sub) -> None:
    from .emulate import add_subcommand

    add_subcommand(sub)


def _add_sweep(sub) -> None:
    sw = sub.add_parser("sweep", help="run a sweep file: a scenario over a grid of values and seeds")
    sw.add_argument("sweep", help="sweep file (TOML)")
    _add_pool_options(sw)
    sw.add_argument("--out", help="output directory (default: results/<sweep file name>)")
    sw.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary line")


def _add_plot(sub) -> None:
    pl = sub.add_parser("plot", help="draw a metric of a sweep against a grid key, with 95%% confidence bands; "
                        "or a run's window, time-sequence diagram or queue")
    pl.add_argument("sweep_out", metavar="OUT", help="output directory of tcplab sweep, or of tcplab run")
    pl.add_argument("--x", metavar="KEY", help="sweep: grid key on the x axis (required)")
    pl.add_argument("--y", metavar="METRIC", help="sweep: metric on the y axis (required)")
    pl.add_argument("--hue", metavar="KEY", help="grid key drawn as one line per value")
    pl.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                    help="fix another grid key that has several values (repeatable)")
    pl.add_argument("--logx", action="store_true", help="logarithmic x axis (symlog when it includes 0)")
    pl.add_argument("--window", action="store_true",
                    help="run: cwnd and ssthresh of each flow over time (needs --sample-interval)")
    pl.add_argument("--flow", action="append", default=[], metavar="NAME",
                    help="run, with --window: only this flow (repeatable)")
    pl.add_argument("--sequence", metavar="FLOW", help="run: FLOW's time-sequence diagram (needs --trace)")
    pl.add_argument("--queue", metavar="LINK[:DIRECTION]",
                    help="run: a link's queue over time, forward (default) or reverse (needs --sample-interval)")
    pl.add_argument("--start", type=float, metavar="SECONDS", help="run: draw from this time on")
    pl.add_argument("--end", type=float, metavar="SECONDS", help="run: draw up to this time")
    pl.add_argument("--out", help="figure file, .png, .svg or .pdf (default: OUT/METRIC_vs_KEY.png for a sweep; "
                    "OUT/window.png, sequence-FLOW.png or queue-LINK-DIRECTION.png for a run)")


def _add_validate(sub) -> None:
    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("scenario")
    v.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")


#: Subcommands in the order `tcplab --help` lists them.
_COMMANDS = {"run": _add_run, "reproduce": _add_reproduce, "emulate": _add_emulate, "sweep": _add_sweep,
             "plot": _add_plot, "validate": _add_validate}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `only`, just that subcommand (what one call
    needs: building every subcommand, and importing the emulator's, was a
    sixth of `tcplab run`'s start-up)."""
    p = _Parser(prog="tcplab", description="Packet-level simulation of TCP over wired and wireless networks.")
    from . import __version__

    p.add_argument("--version", action="version", version=f"tcplab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(sub)
    return p


def _add_pool_options(p, jobs_default: str = "all cores") -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--jobs", type=positive_int("--jobs"), help=f"parallel local runs (default: {jobs_default})")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster, e.g. tcp://10.0.0.5:8786 (docs/sweeps.md)")


def _print_flows(res) -> None:
    c = res.columns("flows")
    say(f"{'flow':<12} {'transport':<9} {'throughput':>14} {'goodput':>14} {'rtx':>6} {'RTOs':>5}")
    for i, name in enumerate(c["flow"]):
        say(f"{name:<12} {c['transport'][i]:<9} {c['throughput_bps'][i] / 1e3:>10.1f} kb/s "
            f"{c['goodput_bps'][i] / 1e3:>9.1f} kb/s {c['retransmits'][i]:>6} {c['timeouts'][i]:>5}")


@contextlib.contextmanager
def _sigterm_interrupts():
    """Within the block SIGTERM raises KeyboardInterrupt, as Ctrl-C does,
    so that a command stopped by `kill` or `timeout` cleans up (staging
    directory, workers) and exits with status 130."""
    import signal

    def terminate(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_run(a) -> int:
    with _sigterm_interrupts():
        return _run_command(a)


def _run_command(a) -> int:
    from .api import _prepare, _run_text
    from .io import out_dir_path, staged_dir

    # Check everything before the first byte is written.
    stem = os.path.splitext(os.path.basename(os.path.normpath(a.scenario)))[0]
    out = out_dir_path(a.out if a.out is not None else os.path.join("results", "runs", stem))
    sc, text = _prepare(a.scenario, seed=a.seed, overrides=a.overrides,
                        sample_interval=a.sample_interval, trace=True if a.trace else None, pcap=a.pcap)
    with staged_dir(out) as stage:
        res = _run_text(sc, text, stream_dir=stage, progress=not a.quiet)
        res.write_files_into(stage, parquet=a.parquet)
    if not a.quiet:
        _print_flows(res)
        s = res.summary
        say(f"{s['events']} events in {s['wall_s']:.3f} s; tables in {a.out if a.out else out}/")
    return 0


def _sweep_command(a, work) -> int:
    """Run `work(tally)` with Ctrl-C and SIGTERM stopping it cleanly: queued
    runs cancelled, workers gone, and one line saying what is kept."""
    from .sweep import tally

    with _sigterm_interrupts(), tally() as t:
        try:
            return work(t)
        except KeyboardInterrupt:
            print(f"tcplab: interrupted: {t.saved} runs saved, rerun to resume", file=sys.stderr)
            return 130


def _counts(t) -> str:
    return f"{t.total} runs ({t.ran} run now, {t.reused} stored)" if t.reused else f"{t.total} runs"


def cmd_reproduce(a) -> int:
    import time
    from pathlib import Path

    from .io import check_out_dir
    from .pools import check_address, use_scheduler
    from .studies import get

    if a.emulate and a.scheduler is not None:
        # The real stack runs in this machine's namespaces: nothing to send
        # to a cluster, and ignoring the option would hide that.
        return _fail("--scheduler: not allowed with --emulate (the emulated study runs the kernel's TCP on this "
                     "machine in real time; use --jobs)")
    if a.scheduler is not None:
        check_address(a.scheduler)
    out = check_out_dir(a.out if a.out is not None else Path("results") / a.study)

    if a.emulate:
        # The emulated study uses the real kernel stack in real time: no
        # sweep pool, no cluster.
        run = getattr(get(a.study), "run_emulated", None)
        if run is None:
            return _fail(f"--emulate: study {a.study!r} has no emulated version (only gsmlink)")
        out = check_out_dir(a.out if a.out is not None else Path("results") / f"{a.study}-emu")
        from .emulate import EmulatorUnavailable

        def emulated(t) -> int:
            t0 = time.perf_counter()
            try:
                res = run(out, quick=a.quick, jobs=a.jobs, progress=not a.quiet)
            except EmulatorUnavailable as e:  # not root, no TUN: not bad input
                print(f"tcplab: error: {e}", file=sys.stderr)
                return 1
            if not a.quiet:
                say(f"{a.study}: {_counts(t)} with the kernel's TCP, {len(res['runs'])} rows with the simulated "
                    f"ones, {time.perf_counter() - t0:.1f} s; tables and figures in {out}/")
            return 0

        # As a sweep: Ctrl-C and SIGTERM kill the workers (and with them
        # their namespaces), finished real runs stay stored for a rerun.
        return _sweep_command(a, emulated)

    def work(t) -> int:
        t0 = time.perf_counter()
        with use_scheduler(a.scheduler):
            get(a.study).run(out, quick=a.quick, jobs=a.jobs, progress=not a.quiet)
        if not a.quiet:
            say(f"{a.study}: {_counts(t)}, {time.perf_counter() - t0:.1f} s; tables and figures in {out}/")
        return 0

    return _sweep_command(a, work)


def cmd_sweep(a) -> int:
    import time
    from pathlib import Path

    from .pools import check_address
    from .sweepfile import load_sweep_file, run_spec

    if a.scheduler is not None:
        check_address(a.scheduler)
    spec = load_sweep_file(a.sweep)
    # An empty --out is refused (run_spec), as by tcplab run, not taken as
    # the default.
    out = a.out if a.out is not None else Path("results") / Path(a.sweep).stem

    def work(t) -> int:
        t0 = time.perf_counter()
        run_spec(spec, out, jobs=a.jobs, scheduler=a.scheduler, progress=not a.quiet)
        if not a.quiet:
            say(f"{spec.name}: {_counts(t)}, {time.perf_counter() - t0:.1f} s; "
                f"runs.csv, runs.parquet and summary.csv in {out}/")
        return 0

    return _sweep_command(a, work)


def cmd_plot(a) -> int:
    out = a.sweep_out
    run_flags = [f for f, v in (("--window", a.window), ("--sequence", a.sequence), ("--queue", a.queue)) if v]
    is_sweep, is_run = (os.path.isfile(os.path.join(out, f)) for f in ("sweep.json", "summary.json"))
    if not is_sweep and not is_run:
        raise ScenarioError(f"{out}: not the output of tcplab sweep (no sweep.json) nor of tcplab run "
                            f"(no summary.json)", "OUT")
    if not is_sweep:
        # A run's output: one of its figures.
        from .runplot import plot_run

        for flag, v in (("--x", a.x), ("--y", a.y), ("--hue", a.hue), ("--where", a.where), ("--logx", a.logx)):
            if v:
                raise ScenarioError(f"{flag}: for a sweep's output; {out} is a run's (use --window, --sequence "
                                    f"or --queue)", flag)
        if len(run_flags) != 1:
            raise ScenarioError(f"{out} is a run's output: give one of --window, --sequence FLOW, --queue LINK"
                                + (f" (got {', '.join(run_flags)})" if run_flags else ""), "--window")
        if a.flow and not a.window:
            raise ScenarioError("--flow: only with --window", "--flow")
        kind = run_flags[0].lstrip("-")
        path = plot_run(out, kind, a.sequence or a.queue, flows=a.flow, out=a.out, start=a.start, end=a.end)
    else:
        from .plot import plot

        for flag in run_flags + [f for f, v in (("--flow", a.flow), ("--start", a.start), ("--end", a.end))
                                 if v not in (None, [])]:
            raise ScenarioError(f"{flag}: for a run's output (tcplab run); {out} is not one", flag)
        for flag, v in (("--x", a.x), ("--y", a.y)):
            if v is None:
                raise ScenarioError(f"{flag}: required for a sweep's output", flag)
        path = plot(a.sweep_out, a.x, a.y, hue=a.hue, where=a.where, logx=a.logx, out=a.out)
    say(path)
    return 0


def cmd_validate(a) -> int:
    from .scenario import load_scenario

    load_scenario(a.scenario).with_overrides(a.overrides).validate()
    say(f"{a.scenario}: ok")
    return 0


def _one_line_warnings() -> None:
    """Print a scenario's warnings as the errors are, one line each
    (Python's own format adds the file and line of tcplab's source, which
    mean nothing to a scenario's author)."""
    import warnings

    from .errors import ScenarioWarning

    plain = warnings.formatwarning
    if getattr(plain, "_tcplab", False):  # main() called again in one process
        return

    def formatwarning(message, category, filename, lineno, line=None):
        if issubclass(category, ScenarioWarning):
            return f"tcplab: warning: {' '.join(str(message).split())}\n"
        return plain(message, category, filename, lineno, line)

    formatwarning._tcplab = True  # type: ignore[attr-defined]
    warnings.formatwarning = formatwarning


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _one_line_warnings()
    only = argv[0] if argv and argv[0] in _COMMANDS else None
    args = build_parser(only).parse_args(argv)
    try:
        if args.command == "run":
            return cmd_run(args)
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "reproduce":
            return cmd_reproduce(args)
        if args.command == "sweep":
            return cmd_sweep(args)
        if args.command == "plot":
            return cmd_plot(args)
        if args.command == "emulate":
            # SIGTERM stops a real-time run as Ctrl-C does (status 130, one
            # line); it used to kill the process silently (status 143).
            with _sigterm_interrupts():
                return args.func(args)
    except ScenarioError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        if args.command in ("run", "emulate"):
            print("tcplab: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except StdoutClosed:
        return _stdout_closed()
    except OSError as e:
        # Full disk, unwritable or vanished directories: one line, not a traceback.
        from .io import OutputError

        if isinstance(e, OutputError):
            return _fail(str(e), EXIT_BAD_INPUT if str(e).startswith("--out") else EXIT_FAILED)
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        return _fail(f"cannot write results{where}: {e.strerror or e}", EXIT_FAILED)
    return _fail(f"unknown command {args.command!r}")


def entry() -> None:
    """The `tcplab` command and `python -m tcplab`: `main`, then exit with
    its status. An interrupted command (status 130) leaves at once through
    `os._exit`, past the interpreter's shutdown: by then its results are
    saved or removed, its workers killed and its output flushed, but the
    shutdown joins the process pool's manager thread, which can stay blocked
    reading a result that a killed worker was in the middle of writing.
    Seen once in CI (2026-11-29): a SIGTERM'd sweep printed its
    "interrupted" line and was still running 30 s later. `main` itself
    returns normally, so in-process callers (tests) are unaffected."""
    try:
        code = main()
    except SystemExit:
        # argparse's --help or usage message: flushed here, where a reader
        # that has gone (`tcplab --help | head -1`) is dropped quietly.
        _flush_stdout()
        raise
    # Flushed now rather than at exit, where a broken pipe is a traceback
    # and status 120 (the commands' own lines are flushed by `say`).
    _flush_stdout()
    if code == EXIT_INTERRUPTED:
        try:
            sys.stderr.flush()
        except OSError:
            pass
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
