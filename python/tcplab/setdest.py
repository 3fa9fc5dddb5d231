"""ns-2 movement files (the output of ns-2's `setdest`, or any scenario
file in its form) as tcplab positions and waypoints.

The lines read are the nodes' starting positions and their movement
commands; everything else (`$god_ set-dist ...`, comments, `Z_`) is
skipped:

    $node_(3) set X_ 120.5
    $node_(3) set Y_ 80.0
    $ns_ at 12.75 "$node_(3) setdest 400.0 35.2 7.1"

In a scenario file, ``[wireless] setdest = "moves.tcl"`` (relative to the
scenario file) gives ns-2's node i the scenario's i-th ``[[node]]``: its
``position`` and ``waypoints`` come from the file, unless the node gives
them itself (in the scenario, or by ``--set``, ``overrides`` or a sweep's
grid): a node's own keys win. The file is read when the scenario is handed
to the core, so that the same overrides can name another file.
"""
from __future__ import annotations

import os
import re

from .errors import ScenarioError

KEY = "wireless.setdest"
_SET = re.compile(r"^\$node_\((\d+)\)\s+set\s+([XYZ])_\s+(\S+)\s*$")
_AT = re.compile(r'^\$ns_\s+at\s+(\S+)\s+"\$node_\((\d+)\)\s+setdest\s+(\S+)\s+(\S+)\s+(\S+)\s*"\s*$')
# Any other timed command on a node: a movement this reader would get wrong.
_NODE_AT = re.compile(r'^\$ns_\s+at\s+\S+\s+"\$node_\(')


def _number(text: str, where: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise ScenarioError(f"{KEY}: {where}: {text!r} is not a number", KEY) from None
    if x != x or x in (float("inf"), float("-inf")):
        raise ScenarioError(f"{KEY}: {where}: {text!r} is not a finite number", KEY)
    return x


def read_setdest(path: str) -> dict[int, dict]:
    """ns-2 node number -> {"position": [x, y], "waypoints": [[t, x, y, v], ...]}
    (commands in time order)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ScenarioError(f"{KEY}: cannot read {path}: {e.strerror or e}", KEY) from None
    nodes: dict[int, dict] = {}
    for i, raw in enumerate(lines, start=1):
        # Tcl's trailing comment (`;# ...`) is not part of the command.
        line = raw.split(";#", 1)[0].strip()
        where = f"{path}:{i}"
        if m := _SET.match(line):
            n, axis = int(m.group(1)), m.group(2)
            if axis != "Z":
                pos = nodes.setdefault(n, {"position": [None, None], "waypoints": []})["position"]
                pos["XY".index(axis)] = _number(m.group(3), where)
        elif m := _AT.match(line):
            t, n = _number(m.group(1), where), int(m.group(2))
            x, y, v = (_number(m.group(k), where) for k in (3, 4, 5))
            if t < 0 or v < 0:
                raise ScenarioError(f"{KEY}: {where}: time and speed must be >= 0, got {line!r}", KEY)
            nodes.setdefault(n, {"position": [None, None], "waypoints": []})["waypoints"].append([t, x, y, v])
        elif _NODE_AT.match(line):
            raise ScenarioError(f"{KEY}: {where}: only `setdest` commands move nodes here, got {line!r}", KEY)
    for n, d in nodes.items():
        if None in d["position"]:
            raise ScenarioError(f"{KEY}: {path}: node {n} has no starting position (set X_ and Y_)", KEY)
        d["waypoints"].sort(key=lambda c: c[0])  # ns-2 runs them by time, whatever the file's order
    return nodes


def apply(data: dict, path: str) -> dict:
    """Give the scenario's nodes the file's positions and waypoints (ns-2's
    node i is the i-th [[node]]) where they have none of their own; which
    keys of which nodes it gave ({node index: [key, ...]})."""
    moves = read_setdest(path)
    nodes = data.get("node")
    if not isinstance(nodes, list):
        raise ScenarioError(f"{KEY}: the scenario has no [[node]] list to move", KEY)
    given: dict[int, list[str]] = {}
    for n, d in sorted(moves.items()):
        if n >= len(nodes) or not isinstance(nodes[n], dict):
            raise ScenarioError(f"{KEY}: {path} moves node {n}, but the scenario has {len(nodes)} nodes", KEY)
        for key, value in (("position", d["position"]), ("waypoints", d["waypoints"])):
            if value and key not in nodes[n]:
                nodes[n][key] = value
                given.setdefault(n, []).append(key)
    return given


def expand(data: dict, scenario_path: str | None) -> dict:
    """Replace ``[wireless] setdest`` by the positions and waypoints it
    names (relative to the scenario file's directory); what it gave (see
    `apply`), with the file's path under the key ``"path"``."""
    w = data.get("wireless")
    if not isinstance(w, dict) or "setdest" not in w:
        return {}
    name = w.pop("setdest")
    if not isinstance(name, str) or not name:
        raise ScenarioError(f"{KEY}: must be the path of an ns-2 movement file, got {name!r}", KEY)
    base = os.path.dirname(scenario_path) if scenario_path else ""
    path = os.path.join(base, name)
    return {"path": path, "nodes": apply(data, path)}


_NODE_KEY = re.compile(r"^node\[(\d+)\]\.(position|waypoints)(\[\d+\])?$")


def blame(message: str, key: str, moved: dict) -> tuple[str, str]:
    """The core's error about a node's position or waypoints that came from
    the movement file, told as the file's (the user never wrote that key)."""
    m = _NODE_KEY.match(key)
    if m and m.group(2) in moved.get("nodes", {}).get(int(m.group(1)), ()):
        detail = message[len(key) + 2:] if message.startswith(key + ": ") else message
        return f"{KEY}: {moved['path']} gives node {m.group(1)} its {m.group(2)}: {detail}", KEY
    return message, key
