"""The Python API: run a scenario, get tables back."""
from __future__ import annotations

import os

from . import _core
from .errors import ScenarioError
from .io import OutputError
from .result import Result
from .scenario import Scenario, load_scenario

# Seen by type checkers only (start-up time; annotations are strings here).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path


def _as_scenario(scenario) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, os.PathLike)):
        return load_scenario(scenario)
    if isinstance(scenario, dict):
        return Scenario(scenario)
    raise ScenarioError(
        f"scenario: expected a Scenario, a dict or a path to a TOML file, got {type(scenario).__name__}",
        "scenario")


def _strings(value, name: str) -> list:
    """An iterable of strings as a list; a lone string is refused (it would
    be taken one character at a time)."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        raise ScenarioError(
            f"{name}: expected a list of strings, got the single string {value!r}; write [{value!r}]", name)
    try:
        items = list(value)
    except TypeError:
        raise ScenarioError(f"{name}: expected a list of strings, got {type(value).__name__}", name) from None
    for v in items:
        if not isinstance(v, str):
            raise ScenarioError(f"{name}: expected strings, got {v!r} ({type(v).__name__})", name)
    return items


def prepare(
    scenario: Scenario | dict | str | Path,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval: str | float | None = None,
    trace: bool | None = None,
    pcap: Iterable[str] = (),
) -> Scenario:
    """The scenario with the arguments of `run` applied, validated (a copy:
    the caller's is untouched). Raises ScenarioError naming the key."""
    return _prepare(scenario, seed=seed, overrides=overrides, sample_interval=sample_interval, trace=trace,
                    pcap=pcap)[0]


def _prepare(scenario, *, seed, overrides, sample_interval, trace, pcap) -> tuple[Scenario, str]:
    """`prepare`, and the JSON text it validated, which `run` hands the
    core as it is (made once, not again for the run). A path is read here
    and edited in place: nobody else holds that dict, so it is not copied."""
    fresh = isinstance(scenario, (str, os.PathLike))
    sc = _as_scenario(scenario)
    overrides = _strings(overrides, "overrides")
    sc = sc.apply_overrides(overrides, seed) if fresh else sc.with_overrides(overrides, seed)
    if sample_interval is not None:
        _entry(sc.data, "output", dict)["sample_interval"] = sample_interval
    if trace is not None:
        if not isinstance(trace, bool):
            raise ScenarioError(f"trace: expected true or false, got {trace!r}", "output.trace")
        _entry(sc.data, "output", dict)["trace"] = trace
    for spec in _strings(pcap, "pcap"):
        _entry(sc.data, "pcap", list).append(_pcap_entry(spec))
    return sc, sc.checked_json()


def _entry(data: dict, key: str, kind: type):
    """data[key], created empty if absent; ScenarioError if it is not a table
    (dict) or an array (list) as the key needs."""
    v = data.setdefault(key, kind())
    if not isinstance(v, kind):
        what = "a table" if kind is dict else "an array of tables"
        raise ScenarioError(f"{key}: must be {what}, got {v!r}", key)
    return v


def run_prepared(sc: Scenario, stream_dir=None) -> Result:
    """Run a prepared scenario. The trace, the series and the captures are
    streamed into `stream_dir`, or into a temporary directory owned by the
    Result."""
    return _run_text(sc, sc.to_json(), stream_dir)


def _run_text(sc: Scenario, text: str, stream_dir=None, progress: bool = False) -> Result:
    """`run_prepared` with the scenario's JSON text at hand (`_prepare`);
    `progress`: a bar of simulated time (`progress.RunProgress`)."""
    owned = None
    if stream_dir is None:
        out = sc.data.get("output", {})
        if isinstance(out, dict) and (out.get("trace") or out.get("sample_interval") is not None) \
                or sc.data.get("pcap"):
            import tempfile

            owned = stream_dir = tempfile.mkdtemp(prefix="tcplab-run-")
    bar = None
    if progress:
        from .progress import RunProgress

        bar = RunProgress()
    try:
        raw = _core.run_json(text, None if stream_dir is None else str(stream_dir), bar)
    except _core.CoreScenarioError as e:
        _cleanup(owned)
        raise ScenarioError(e.args[0], e.args[1]) from None
    except _core.CoreRunError as e:
        _cleanup(owned)
        if e.args[1] == "sim":
            raise ScenarioError(e.args[0], "sim") from None
        raise OutputError(e.args[0]) from None
    except BaseException:
        _cleanup(owned)
        raise
    finally:
        if bar is not None:
            bar.close()
    return Result(raw, sc, owned_dir=owned)


def _cleanup(d) -> None:
    if d is not None:
        import shutil

        shutil.rmtree(d, ignore_errors=True)


def run(
    scenario: Scenario | dict | str | Path,
    *,
    seed: int | None = None,
    overrides: Iterable[str] = (),
    sample_interval: str | float | None = None,
    trace: bool | None = None,
    pcap: Iterable[str] = (),
    progress: bool = False,
) -> Result:
    """Run a scenario (object, dict or TOML path) and return its Result.

    ``seed`` replaces ``sim.seed``; ``overrides`` are ``key=value`` strings as
    for ``tcplab run --set``; ``sample_interval`` (e.g. ``"100ms"``) turns on
    the time series; ``trace`` turns on the time-sequence trace; ``pcap``
    adds captures: ``"7:forward"`` (link 7, one direction) or ``"bs"`` (a node).
    ``progress=True`` draws a bar of simulated time on a terminal's stderr
    once the run has taken a second (``tcplab run`` does unless ``--quiet``).
    Ctrl-C stops the simulation within a fraction of a second
    (KeyboardInterrupt).
    """
    sc, text = _prepare(scenario, seed=seed, overrides=overrides, sample_interval=sample_interval, trace=trace,
                        pcap=pcap)
    return _run_text(sc, text, progress=progress)


def _pcap_entry(spec: str) -> dict:
    """'LINK:DIRECTION', 'LINK' (forward), 'NODE' or 'node:NAME' -> a
    [[pcap]] table. A bare number is a link; 'node:' names a node whose
    name is a number (ns-2's style: nodes "0", "1", ...)."""
    if not isinstance(spec, str) or not spec:
        raise ScenarioError(f"--pcap {spec!r}: expected LINK[:forward|reverse], a node name or node:NAME", "pcap")
    if spec.startswith("node:") and len(spec) > len("node:"):
        return {"node": spec[len("node:"):]}
    head, _, direction = spec.partition(":")
    if head.isdigit():
        entry: dict[str, int | str] = {"link": int(head)}
        if direction:
            entry["direction"] = direction
        return entry
    if direction:
        raise ScenarioError(f"--pcap {spec!r}: a direction goes with a link number, e.g. 7:forward", "pcap")
    return {"node": head}
