"""The Python API: run a scenario, get tables back."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from . import _core
from .errors import ScenarioError
from .result import Result
from .scenario import Scenario, load_scenario


def _as_scenario(scenario) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, Path)):
        return load_scenario(scenario)
    if isinstance(scenario, dict):
        return Scenario(scenario)
    raise ScenarioError(
        f"scenario: expected a Scenario, a dict or a path to a TOML file, got {type(scenario).__name__}"
    )


def run(
    scenario: Scenario | dict | str | Path,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval: str | float | None = None,
    trace: bool | None = None,
    pcap: Iterable[str] = (),
) -> Result:
    """Run a scenario (object, dict or TOML path) and return its Result.

    ``seed`` replaces ``sim.seed``; ``overrides`` are ``key=value`` strings as
    for ``tcplab run --set``; ``sample_interval`` (e.g. ``"100ms"``) turns on
    the time series; ``trace`` turns on the time-sequence trace; ``pcap``
    adds captures: ``"7:forward"`` (link 7, one direction) or ``"bs"`` (a node).
    """
    sc = _as_scenario(scenario).with_overrides(overrides, seed)  # a copy: the caller's is untouched
    if sample_interval is not None:
        sc.data.setdefault("output", {})["sample_interval"] = sample_interval
    if trace is not None:
        sc.data.setdefault("output", {})["trace"] = bool(trace)
    for spec in pcap:
        sc.data.setdefault("pcap", []).append(_pcap_entry(spec))
    try:
        raw = _core.run_json(sc.to_json())
    except _core.CoreScenarioError as e:
        raise ScenarioError(e.args[0], e.args[1]) from None
    return Result(raw, sc)


def _pcap_entry(spec: str) -> dict:
    """'LINK:DIRECTION', 'LINK' (forward) or 'NODE' -> a [[pcap]] table."""
    if not isinstance(spec, str) or not spec:
        raise ScenarioError(f"--pcap {spec!r}: expected LINK[:forward|reverse] or a node name", "pcap")
    head, _, direction = spec.partition(":")
    if head.isdigit():
        entry = {"link": int(head)}
        if direction:
            entry["direction"] = direction
        return entry
    if direction:
        raise ScenarioError(f"--pcap {spec!r}: a direction goes with a link number, e.g. 7:forward", "pcap")
    return {"node": head}
