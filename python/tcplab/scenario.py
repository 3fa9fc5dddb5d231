"""Scenarios as plain dicts of the TOML structure, with ``--set`` overrides.

Validation lives in the Rust core (one source of truth for keys, defaults and
ranges); this module only reads files and edits dicts.
"""
from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Iterable

from . import _core
from .errors import ScenarioError

_INDEX = re.compile(r"^(\w[\w-]*)\[(\d+|\*)\]$")


class Scenario:
    """A scenario: the dict form of a scenario file. ``data`` may be edited."""

    def __init__(self, data: dict, source: str | None = None):
        if not isinstance(data, dict):
            raise ScenarioError(f"a scenario must be a table/dict, got {type(data).__name__}")
        self.data = data
        self.source = source

    def copy(self) -> "Scenario":
        return Scenario(copy.deepcopy(self.data), self.source)

    def with_overrides(self, overrides: Iterable[str] = (), seed: int | None = None) -> "Scenario":
        """A copy with ``key=value`` overrides applied (see :func:`apply_override`)."""
        sc = self.copy()
        for o in overrides:
            apply_override(sc.data, o)
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ScenarioError(f"sim.seed: must be a non-negative integer, got {seed!r}", "sim.seed")
            sc.data.setdefault("sim", {})["seed"] = seed
        return sc

    def to_json(self) -> str:
        try:
            return json.dumps(self.data)
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"scenario holds a value that is not TOML data: {e}") from None

    def validate(self) -> "Scenario":
        """Raise ScenarioError naming the key if anything is wrong."""
        try:
            _core.validate_json(self.to_json())
        except _core.CoreScenarioError as e:
            raise ScenarioError(e.args[0], e.args[1]) from None
        return self

    def __repr__(self) -> str:
        return f"Scenario(source={self.source!r}, flows={len(self.data.get('flow', []))})"


def load_scenario(path: str | Path) -> Scenario:
    """Read a TOML scenario file (not yet validated: ``run`` validates)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{p}: no such scenario file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(f"{p}: cannot read scenario file: {e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{p}: invalid TOML: {e}") from None
    return Scenario(data, str(p))


def _parse_value(text: str) -> Any:
    """A TOML value (number, bool, string, array, inline table); bare words are strings."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(data: dict, override: str) -> None:
    """Apply ``key=value``: dotted keys, ``flow[0]`` or ``flow.0`` for array
    entries and ``flow[*]`` for all of them. Values are TOML values
    (``0.01``, ``true``, ``"10Mbps"``, ``{kind = "uniform", rate = 0.02}``) and
    bare words are strings (``transport=reno``)."""
    if "=" not in override:
        raise ScenarioError(f"--set {override!r}: expected KEY=VALUE, e.g. sim.seed=3")
    key, _, value = override.partition("=")
    set_value(data, key.strip(), _parse_value(value.strip()))


def set_value(data: dict, key: str, value: Any) -> None:
    """Set the entry at a key path (as ``--set`` takes it) to an already
    parsed value; sweeps use it for grid values read from TOML."""
    parts: list[str | int] = []
    for part in key.split("."):
        m = _INDEX.match(part)
        if m:
            parts.append(m.group(1))
            parts.append("*" if m.group(2) == "*" else int(m.group(2)))
        elif part.isdigit():
            parts.append(int(part))
        elif part:
            parts.append(part)
        else:
            raise ScenarioError(f"--set {key!r}: empty key component", key)
    if not parts or not isinstance(parts[0], str):
        raise ScenarioError(f"--set {key!r}: must start with a key name", key)
    _set_path(data, parts, value, key)


def _set_path(node: Any, parts: list, value: Any, key: str) -> None:
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
