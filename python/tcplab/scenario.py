"""Scenarios as plain dicts of the TOML structure, with ``--set`` overrides.

Validation lives in the Rust core (one source of truth for keys, defaults and
ranges); this module only reads files and edits dicts.
"""
from __future__ import annotations

import json
import os
import re

from . import _core
from .errors import ScenarioError, ScenarioWarning, core_error

# Seen by type checkers only (importing typing and collections.abc costs
# `tcplab run` start-up time; annotations are strings here).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from os import PathLike
    from typing import Any

_INDEX = re.compile(r"^(\w[\w-]*)\[(\d+|\*)\]$")


class Scenario:
    """A scenario: the dict form of a scenario file. ``data`` may be edited."""

    def __init__(self, data: dict, source: str | None = None):
        if not isinstance(data, dict):
            raise ScenarioError(f"scenario: must be a table/dict, got {type(data).__name__}", "scenario")
        self.data = data
        self.source = source

    def copy(self) -> "Scenario":
        """An independent copy: a deep copy of ``data``, the same ``source``
        (so a relative path in the scenario, such as a movement file, still
        resolves against the original file)."""
        import copy

        try:
            return Scenario(copy.deepcopy(self.data), self.source)
        except RecursionError:
            raise ScenarioError(f"scenario: nested more than {MAX_DEPTH} levels deep", "scenario") from None

    def with_overrides(self, overrides: Iterable[str] = (), seed: int | None = None) -> "Scenario":
        """A copy with ``key=value`` overrides applied (see :func:`apply_override`)."""
        return self.copy().apply_overrides(overrides, seed)

    def apply_overrides(self, overrides: Iterable[str] = (), seed: int | None = None) -> "Scenario":
        """`with_overrides` in place, for a scenario nobody else holds (one
        just read from its file): no copy of the whole dict (at 100 flows
        the deep copy was 2 ms of a `tcplab run`)."""
        for o in overrides:
            apply_override(self.data, o)
        if seed is not None:
            if not isinstance(seed, int):
                seed = _builtin_number(seed)  # a numpy integer, as in the scenario's own values
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ScenarioError(f"sim.seed: must be a non-negative integer, got {seed!r}", "sim.seed")
            sim = self.data.setdefault("sim", {})
            if not isinstance(sim, dict):
                raise ScenarioError(f"sim: must be a table, got {sim!r}", "sim")
            sim["seed"] = seed
        return self

    def to_json(self) -> str:
        """JSON text for the core; values that are not TOML data are refused
        here with the key that holds them (NaN, infinity, bytes, objects)."""
        return self._json()[0]

    def _json(self) -> tuple[str, dict]:
        """`to_json`, and which nodes' `position` / `waypoints` came from a
        movement file (`[wireless] setdest`, read here and not before, so
        that overrides of the file's name or of a node's own keys, from
        `--set`, `overrides` or a sweep's grid, take effect)."""
        data = _plain(self.data, "")
        assert isinstance(data, dict)  # a Scenario's data is a dict (__init__)
        moved = expand_setdest(data, self.source)
        return json.dumps(data, allow_nan=False), moved

    def validate(self) -> "Scenario":
        """Raise ScenarioError naming the key if anything is wrong."""
        self.checked_json()
        return self

    def checked_json(self) -> str:
        """`to_json`, validated by the core (ScenarioError naming the key):
        the text a run hands the core, made once."""
        text, moved = self._json()
        try:
            notes = _core.validate_json(text)
        except _core.CoreScenarioError as e:
            message, key = e.args[0], e.args[1]
            if moved:
                from .setdest import blame

                message, key = blame(message, key, moved)
            raise core_error(message, key) from None
        for note in notes:
            warn(note)
        return text

    def __repr__(self) -> str:
        return f"Scenario(source={self.source!r}, flows={len(self.data.get('flow', []))})"


def warn(message: str) -> None:
    """Issue a ScenarioWarning. Always from this line, so that Python's
    warning registry shows each message once per process: a sweep file
    validates its scenario once and again with each grid value, and would
    otherwise repeat it."""
    import warnings

    warnings.warn(message, ScenarioWarning, stacklevel=1)


#: Deeper nesting than any scenario needs; refusing it keeps Python's and
#: the core's recursion limits out of reach.
MAX_DEPTH = 32


def _plain(v: object, key: str, depth: int = 0) -> object:
    """`v` as plain JSON data (numpy scalars become int/float), or
    ScenarioError naming the key of the first value that is not scenario data."""
    where = key or "scenario"
    if depth > MAX_DEPTH:
        raise ScenarioError(f"{where}: nested more than {MAX_DEPTH} levels deep", where)
    if isinstance(v, bool):
        return v
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise ScenarioError(f"{where}: table keys must be strings, got {k!r}", where)
            out[k] = _plain(x, f"{key}.{k}" if key else k, depth + 1)
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{key}[{i}]", depth + 1) for i, x in enumerate(v)]
    if isinstance(v, str):
        return v
    if not isinstance(v, (int, float)):
        v = _builtin_number(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ScenarioError(f"{where}: {v} is not allowed; give a finite number", where)
        return v
    if isinstance(v, int):
        return v
    raise ScenarioError(
        f"{where}: a {type(v).__name__} value is not scenario data "
        "(use a string, number, boolean, list or table)", where)


def _builtin_number(v: object) -> object:
    """A numpy (or other numbers.Number) scalar as int or float; anything
    else unchanged. (numpy's float64 is a float already.)"""
    import numbers

    if isinstance(v, (numbers.Integral, numbers.Real)):
        return v.item() if hasattr(v, "item") else (int(v) if isinstance(v, numbers.Integral) else float(v))
    return v


def load_scenario(path: str | PathLike) -> Scenario:
    """Read a TOML scenario file (not yet validated: ``run`` validates)."""
    # os.path rather than pathlib, and the core's TOML parser rather than
    # tomllib: importing both was a quarter of `tcplab run`'s start-up. The
    # path is normalised as pathlib would print it ("./a.toml" -> "a.toml").
    p = os.path.normpath(os.fspath(path))
    try:
        with open(p, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such scenario file", "scenario") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{p}: cannot read scenario file: {e}", "scenario") from None
    try:
        data = _core.toml_loads(text)
    except ValueError as e:
        raise ScenarioError(f"{p}: invalid TOML: {e}", "scenario") from None
    except RecursionError:
        raise ScenarioError(f"{p}: invalid TOML: nested too deeply", "scenario") from None
    return Scenario(data, p)


def expand_setdest(data: dict, source: str | None) -> dict:
    """Replace ``[wireless] setdest`` by the movement it names (the module
    that reads movement files is imported only when one is named); which
    node fields it gave, {node index: [key, ...]} (see `setdest.expand`)."""
    w = data.get("wireless")
    if isinstance(w, dict) and "setdest" in w:
        from .setdest import expand

        return expand(data, source)
    return {}


def _parse_value(text: str) -> object:
    """A TOML value (number, bool, string, array, inline table); bare words are strings."""
    try:
        return _core.toml_loads(f"v = {text}")["v"]
    except ValueError:
        return text
    except RecursionError:
        raise ScenarioError("nested too deeply") from None


def apply_override(data: dict, override: str) -> None:
    """Apply ``key=value``: dotted keys, ``flow[0]`` or ``flow.0`` for array
    entries and ``flow[*]`` for all of them. Values are TOML values
    (``0.01``, ``true``, ``"10Mbps"``, ``{kind = "uniform", rate = 0.02}``) and
    bare words are strings (``transport=reno``)."""
    if "=" not in override:
        raise ScenarioError(f"--set {override!r}: expected KEY=VALUE, e.g. sim.seed=3", "--set")
    key, _, value = override.partition("=")
    key = key.strip()
    try:
        parsed = _parse_value(value.strip())
    except ScenarioError as e:
        raise ScenarioError(f"--set {key}: {e}", key) from None
    set_value(data, key, parsed)


def set_value(data: dict, key: str, value: Any) -> None:
    """Set the entry at a key path (as ``--set`` takes it) to an already
    parsed value; sweeps use it for grid values read from TOML."""
    _set_path(data, key_parts(key), value, key)


def key_parts(key: str) -> list:
    """A key path as its parts: ``link[0].error.rate`` and
    ``link.0.error.rate`` are ["link", 0, "error", "rate"]; ``flow[*]`` is
    ["flow", "*"]."""
    parts: list[str | int] = []
    for part in key.split("."):
        m = _INDEX.match(part)
        if m:
            parts.append(m.group(1))
            parts.append("*" if m.group(2) == "*" else int(m.group(2)))
        elif part.isdigit():
            parts.append(int(part))
        elif "[" in part or "]" in part:
            raise ScenarioError(f"--set {key!r}: {part!r}: an index is a whole number >= 0 or *, as in flow[0]", key)
        elif part:
            parts.append(part)
        else:
            raise ScenarioError(f"--set {key!r}: empty key component", key)
    if not parts or not isinstance(parts[0], str):
        raise ScenarioError(f"--set {key!r}: must start with a key name", key)
    return parts


def _set_path(node: object, parts: list, value: object, key: str) -> None:
    head, rest = parts[0], parts[1:]
    if isinstance(head, str) and head != "*":
        if not isinstance(node, dict):
            raise ScenarioError(f"--set {key}: {head!r} is inside a value that is not a table", key)
        if not rest:
            node[head] = value
            return
        if head not in node:
            if isinstance(rest[0], (int,)) or rest[0] == "*":
                raise ScenarioError(f"--set {key}: the scenario has no {head!r} array", key)
            node[head] = {}
        _set_path(node[head], rest, value, key)
        return
    if not isinstance(node, list):
        raise ScenarioError(f"--set {key}: index used on a value that is not an array", key)
    targets = range(len(node)) if head == "*" else [head]
    for i in targets:
        if i >= len(node):
            raise ScenarioError(f"--set {key}: index {i} out of range (the array has {len(node)} entries)", key)
        if not rest:
            node[i] = value
        else:
            _set_path(node[i], rest, value, key)
