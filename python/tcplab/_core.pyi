"""Type stubs of the compiled core (crates/tcplab-python). Scenarios go in
as JSON text; results come out as plain dicts."""
from typing import Any, TypedDict

__version__: str

class CoreScenarioError(ValueError):
    """args = (message, key): key is the offending scenario entry, e.g. link[2].rate."""

class Table(TypedDict):
    names: list[str]
    types: list[str]  # "float64" | "int64" | "bool" | "string", one per column
    columns: dict[str, list[Any]]
    csv: str

class Summary(TypedDict):
    seed: int
    duration_s: float
    events: int
    wall_s: float
    packets_created: int

class RunOutput(TypedDict):
    flows: Table
    links: Table
    series: Table
    queues: Table
    trace: Table
    pcaps: dict[str, bytes]
    summary: Summary

def validate_json(text: str) -> None:
    """Raise CoreScenarioError if the scenario (JSON text) is invalid."""

def run_json(text: str) -> RunOutput:
    """Run a scenario given as JSON text (raises CoreScenarioError if invalid)."""
