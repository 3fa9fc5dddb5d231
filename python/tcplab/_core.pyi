"""Type stubs of the compiled core (crates/tcplab-python). Scenarios go in
as JSON text; results come out as plain dicts."""
from os import PathLike
from typing import Any, Callable, NotRequired, TypedDict, overload

__all__ = ["validate_json", "run_json", "hop_timeline_json", "emulate_json", "emulate_check_json", "toml_loads", "exchange_dirs",
           "EmulatorUnavailable", "CoreScenarioError", "CoreRunError", "__version__"]

__version__: str

class CoreScenarioError(ValueError):
    """args = (message, key): key is the offending scenario entry, e.g. link[2].rate."""

class CoreRunError(RuntimeError):
    """A run could not finish (event queue overflow, results not writable);
    args = (message, key): key is "sim" or "--out"."""

class EmulatorUnavailable(RuntimeError):
    """The emulator cannot run here (not root, no TUN device)."""

class Table(TypedDict):
    names: list[str]
    types: list[str]  # "float64" | "int64" | "bool" | "string", one per column
    columns: dict[str, list[Any]]
    csv: str

class StreamedTable(TypedDict):
    """A table the run wrote to a CSV file under stream_dir (series, queues,
    trace): its description instead of its rows."""

    names: list[str]
    types: list[str]
    path: str
    rows: int

class Summary(TypedDict):
    seed: int
    duration_s: float
    events: int
    wall_s: float
    packets_created: int
    packets_delivered: int
    packets_consumed: int
    drops_no_route: int
    drops_ttl: int
    drops_no_socket: int
    packets_in_flight: int
    unfairness: float
    jain: float
    retry_drops_received: NotRequired[int]
    routing_bytes: NotRequired[int]
    routing_overhead: NotRequired[float]

class RunOutput(TypedDict):
    """Without stream_dir: every table in memory, no capture files."""

    flows: Table
    links: Table
    nodes: Table  # one row per node with an 802.11 interface (no rows without one)
    series: Table
    queues: Table
    trace: Table
    pcaps: dict[str, bytes]
    pcap_files: dict[str, str]
    summary: Summary

class StreamedRunOutput(TypedDict):
    """With stream_dir: the long tables and the captures may be files there."""

    flows: Table
    links: Table
    nodes: Table
    series: Table | StreamedTable
    queues: Table | StreamedTable
    trace: Table | StreamedTable
    pcaps: dict[str, bytes]
    pcap_files: dict[str, str]  # capture name -> file the run wrote
    summary: Summary

class EmulationOutput(RunOutput):
    emulation: str  # the emulator's report as JSON text (emulation.json)

def validate_json(text: str) -> list[str]:
    """Raise CoreScenarioError if the scenario (JSON text) is invalid;
    return its warnings (settings that have no effect), one line each."""

def hop_timeline_json(text: str, flow: int, step: str) -> tuple[list[tuple[int, float]], float]:
    """Flow `flow`'s shortest radio path over time, sampled every `step` (a
    duration as JSON text): (seconds per hop count, 0 for no path; the
    receive range in m). Raises CoreScenarioError."""

@overload
def run_json(text: str, stream_dir: None = None, progress: Callable[[float, float], object] | None = None) -> RunOutput: ...
@overload
def run_json(text: str, stream_dir: str | PathLike[str],
             progress: Callable[[float, float], object] | None = None) -> StreamedRunOutput:
    """Run a scenario given as JSON text. With stream_dir (an existing
    directory) the long tables are written there during the run and come
    back as StreamedTable. `progress` is called with (simulated seconds
    reached, the run's duration) about every 0.1 s of wall time. Raises
    CoreScenarioError if the scenario is invalid, CoreRunError if the run
    cannot finish, and the pending error of a Python signal handler
    (KeyboardInterrupt on Ctrl-C) or the error `progress` raised."""

def emulate_json(
    text: str,
    cc: str | None = None,
    rcvbuf: int | None = None,
    sndbuf: int | None = None,
    capture: bool = True,
    spin_us: int = 0,
    late_threshold_us: int = 1000,
) -> EmulationOutput:
    """Run a scenario (JSON text) with the kernel's TCP through the emulated
    path, in real time. Raises CoreScenarioError for what the emulator cannot
    run, EmulatorUnavailable when not root, without /dev/net/tun or if the
    setup fails (no `ip`, a setting the kernel refused), KeyboardInterrupt
    on Ctrl-C."""

def emulate_check_json(text: str, cc: str | None) -> None:
    """Check that the emulator can run the scenario (JSON text) without
    running it: CoreScenarioError if not, RuntimeError for other problems."""


def toml_loads(text: str) -> dict[str, Any]:
    """TOML text as Python values, as tomllib.loads but for dates and times
    (returned as their TOML text); ValueError on bad TOML, RecursionError
    on nesting deeper than 32 levels."""

def exchange_dirs(a: str | PathLike[str], b: str | PathLike[str]) -> bool:
    """Swap two directories atomically (Linux renameat2); False where the
    system cannot."""
