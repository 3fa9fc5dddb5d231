"""docs/scenarios.md against the parser: every key and every name the
parser accepts is documented where it belongs, and every key the
documentation's tables list is accepted.

The accepted keys are not read from the Rust source: each table is given an
unknown key (`zz_probe`) and the parser's own answer (`unknown field
`zz_probe`, expected one of `a`, `b`, ...`, serde's list of the struct's
fields) says which it takes; an unknown name (`routing = "zz_probe"`) gets
the list of names the same way. A key added to a serde struct in
crates/tcplab-core/src/scenario/config.rs without a line in
docs/scenarios.md fails here. What is checked per table:

* forward: every accepted key appears in a code span of the table's place in
  the page (its section, or its row for a sub-table such as `aodv`), and
  every accepted name appears there as `"name"`;
* reverse: every key the page lists for the table (the first column of its
  key table, or `key (default ...)` in a sub-table's row, or the keys column
  of a `kind` table) is accepted.

A new sub-table needs a line in PROBES (its key in the parent table is
already checked: an accepted key the page does not mention fails).
"""
import json
import re
from pathlib import Path

import pytest

from tcplab import _core

DOC = (Path(__file__).resolve().parent.parent / "docs" / "scenarios.md").read_text()
PROBE = "zz_probe"


# ---------------------------------------------------------------- the page


def sections() -> dict[str, str]:
    """`## ` heading -> its text (up to the next `## `)."""
    out = {}
    for part in re.split(r"^## ", DOC, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        out[head] = body
    return out


def section(title: str) -> str:
    found = [body for head, body in sections().items() if title in head]
    assert len(found) == 1, f"docs/scenarios.md: one section titled {title!r}, found {len(found)}"
    return found[0]


def cells(line: str) -> list[str]:
    """A table row's cells; a `|` inside a code span does not split."""
    out, cur, code = [], "", False
    for ch in line.strip().strip("|"):
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def rows(text: str) -> list[list[str]]:
    """The rows of the tables in `text`, headers and rules left out."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        if i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|- ") and lines[i + 1].startswith("|"):
            continue  # a header
        out.append(cells(line))
    return out


def code_spans(text: str) -> list[str]:
    return [m.group(2).strip() for m in re.finditer(r"(`+)(.+?)\1", text)]


def row(text: str, first: str) -> list[str]:
    """The row whose first cell names `first` (`key` or `"kind"`)."""
    found = [r for r in rows(text) if first in code_spans(r[0]) or f'"{first}"' in code_spans(r[0])]
    assert len(found) == 1, f"docs/scenarios.md: one row for {first!r}, found {len(found)}"
    return found[0]


IDENT = r"[a-z][a-z0-9_]*"


def mentioned(text: str) -> set[str]:
    """Every word in a code span (keys, names, `key = value` forms)."""
    return {w for s in code_spans(text) for w in re.findall(r"[A-Za-z0-9_\-]+", s)}


def quoted_names(text: str) -> set[str]:
    """Names written `"name"` (or "name" in a table's default columns)."""
    return set(re.findall(r'"([^"`]+)"', text))


def first_column_keys(text: str) -> set[str]:
    """Keys a key table lists: the code spans of its first column."""
    out = set()
    for r in rows(text):
        for s in code_spans(r[0]):
            if re.fullmatch(IDENT, s):
                out.add(s)
    return out


def listed_keys(text: str) -> set[str]:
    """Keys listed inline, as a sub-table's row or a `kind` table's keys
    column writes them: `key` followed by ` (` (its default or range), a
    `key = value` span, or a span in a comma-separated list of them.
    ns-2's own variables (`mark_p_`) and dotted paths are not keys here."""
    out = set()
    for m in re.finditer(r"`([^`]+)`", text):
        s = m.group(1).strip()
        after = text[m.end() : m.end() + 2]
        before = text[max(0, m.start() - 6) : m.start()]
        if before.endswith(("with ", "needs ")):
            continue  # a condition on another key: `routing = "aodv"`
        if s.startswith("{") and s.endswith("}"):
            out |= set(re.findall(rf"(?:^|,)\s*({IDENT})\s*=", s[1:-1]))
        elif re.fullmatch(IDENT, s) and not s.endswith("_") and after.startswith((" (", ",")):
            out.add(s)
        elif k := re.fullmatch(rf"({IDENT}) = .*", s):
            out.add(k.group(1))
    return out


# ---------------------------------------------------------------- the parser


def accepted(doc: dict, key: str) -> set[str]:
    """What the parser lists as allowed at `key` after the probe there."""
    with pytest.raises(_core.CoreScenarioError) as e:
        _core.validate_json(json.dumps(doc))
    msg, at = e.value.args
    assert at == key, msg
    if "this kind takes no other keys" in msg:
        return set()
    assert f"`{PROBE}`" in msg and "expected" in msg, msg
    return set(re.findall(r"`([^`]+)`", msg.split("expected", 1)[1]))


def at(path: str, leaf) -> dict:
    """A document with `leaf` at `path` (`link[0].queue`), nothing else."""
    parts = path.split(".")
    doc: object = leaf
    for part in reversed(parts):
        name, _, index = part.partition("[")
        if index:
            doc = [doc]
        doc = {name: doc}
    return doc  # type: ignore[return-value]


def table_keys(path: str, fixed: dict | None = None) -> set[str]:
    """The keys the table at `path` accepts (`fixed`: its `kind`)."""
    leaf = {**(fixed or {}), PROBE: 1}
    keys = accepted(at(path, leaf) if path else leaf, f"{path}.{PROBE}" if path else PROBE)
    return keys | set(fixed or {})


def names(path: str, kind: str | None = None) -> set[str]:
    """The names the key at `path` accepts (`kind`: its table's kind)."""
    parent, _, leaf = path.rpartition(".")
    doc = at(parent, {**({"kind": kind} if kind else {}), leaf: PROBE})
    return accepted(doc, path)


# ---------------------------------------------------------------- the probes

# (parser path, kind or None, where the page documents it)
#   where: ("section", title) - the section's key table (first column);
#          ("row", title, key) - the row for `key` in that section's table;
#          ("kind", title, kind) - a `kind` table's row ("keys" column).
TABLES = [
    ("", None, ("top",)),
    ("sim", None, ("section", "`[sim]`")),
    ("node[0]", None, ("section", "`[[node]]`")),
    ("wireless", None, ("section", "`[wireless]`")),
    ("wireless.aodv", None, ("row", "`[wireless]`", "aodv")),
    ("wireless.dsr", None, ("row", "`[wireless]`", "dsr")),
    ("wireless.olsr", None, ("row", "`[wireless]`", "olsr")),
    ("wireless.dsdv", None, ("row", "`[wireless]`", "dsdv")),
    ("wireless.mobility", None, ("row", "`[wireless]`", "mobility")),
    ("wireless.ifq", None, ("row", "`[wireless]`", "ifq")),
    ("wireless.phy", None, ("row", "`[wireless]`", "phy")),
    ("wireless.mac", None, ("row", "`[wireless]`", "mac")),
    ("wireless.shadowing", None, ("row", "`[wireless]`", "shadowing")),
    ("link[0]", None, ("section", "`[[link]]`")),
    ("link[0].forward", None, ("row", "`[[link]]`", "forward")),
    ("link[0].reverse", None, ("row", "`[[link]]`", "reverse")),
    ("link[0].queue", {"kind": "droptail"}, ("kind", "`[[link]]`", "droptail")),
    ("link[0].queue", {"kind": "unlimited"}, ("kind", "`[[link]]`", "unlimited")),
    ("link[0].queue", {"kind": "red"}, ("kind", "`[[link]]`", "red")),
    ("link[0].queue", {"kind": "dual-threshold"}, ("kind", "`[[link]]`", "dual-threshold")),
    ("link[0].forward.queue", {"kind": "red"}, ("kind", "`[[link]]`", "red")),
    ("link[0].error", {"kind": "uniform"}, ("error", "uniform")),
    ("link[0].error", {"kind": "ber"}, ("error", "ber")),
    ("link[0].error", {"kind": "gilbert-elliott"}, ("error", "gilbert-elliott")),
    ("link[0].error", {"kind": "pattern"}, ("error", "pattern")),
    ("link[0].error", {"kind": "windows"}, ("error", "windows")),
    ("flow[0]", None, ("section", "`[[flow]]`")),
    ("flow[0].vegas", None, ("row", "`[[flow]]`", "vegas")),
    ("flow[0].tcp_ap", None, ("row", "`[[flow]]`", "tcp_ap")),
    ("flow[0].split", None, ("row", "`[[flow]]`", "split")),
    ("flow[0].app", {"kind": "bulk"}, ("kind", "`[[flow]]`", "bulk")),
    ("flow[0].app", {"kind": "transfer"}, ("kind", "`[[flow]]`", "transfer")),
    ("flow[0].app", {"kind": "cbr"}, ("kind", "`[[flow]]`", "cbr")),
    ("flow[0].tcp", None, ("section", "`[tcp]`")),
    ("tcp", None, ("section", "`[tcp]`")),
    ("output", None, ("section", "`[output]`")),
    ("pcap[0]", None, ("section", "`[[pcap]]`")),
]

# The names a key accepts, and the row that documents them.
NAMES = [
    ("sim.tcp_profile", ("row", "`[sim]`", "tcp_profile")),
    ("wireless.propagation", ("row", "`[wireless]`", "propagation")),
    ("wireless.routing", ("row", "`[wireless]`", "routing")),
    ("wireless.profile", ("row", "`[wireless]`", "profile")),
    ("wireless.ifq.kind", ("row", "`[wireless]`", "ifq")),
    ("wireless.mobility.model", ("row", "`[wireless]`", "mobility")),
    ("link[0].framing", ("row", "`[[link]]`", "framing")),
    ("link[0].queue.kind", ("kinds", "`[[link]]`", "Queues")),
    ("link[0].error.kind", ("kinds", "`[[link]]`", "Error models")),
    ("link[0].error.direction", ("para", "`[[link]]`", "Error models"), "uniform"),
    ("link[0].error.packets", ("para", "`[[link]]`", "Error models"), "uniform"),
    ("link[0].error.action", ("error", "pattern"), "pattern"),
    ("link[0].error.action", ("para", "`[[link]]`", "Error models"), "uniform"),
    ("pcap[0].direction", ("row", "`[[pcap]]`", "direction")),
    ("flow[0].transport", ("row", "`[[flow]]`", "transport")),
    ("flow[0].app.kind", ("kinds", "`[[flow]]`", "Applications")),
] + [
    (f"tcp.{k}", ("row", "`[tcp]`", k))
    for k in [
        "newreno_timer",
        "loss_window",
        "recovery_exit",
        "sack_recovery",
        "sack_option",
        "delack_sink",
        "rtt_timing",
        "rtt_estimator",
        "vegas_rates",
        "vegas_send_times",
        "eln_sender",
        "receive_window",
    ]
]


def error_models() -> str:
    link = section("`[[link]]`")
    return link[link.index("Error models") : link.index("Each direction has its own random stream")]


def place(where: tuple) -> str:
    """The page's text for a table (all of it, for the forward check)."""
    kind = where[0]
    if kind == "top":
        return "\n".join(f"`{h}`" for h in sections())
    if kind == "section":
        return section(where[1])
    if kind == "row":
        return " | ".join(row(section(where[1]), where[2]))
    if kind == "kind":
        return " | ".join(row(section(where[1]), where[2]))
    if kind == "error":
        # Every error model takes `direction` and `packets`, said above the table.
        head = error_models().split("\n|", 1)[0]
        return head + " | ".join(row(error_models(), where[1]))
    raise AssertionError(where)


def documented(where: tuple) -> set[str]:
    """The keys the page lists for a table (for the reverse check)."""
    kind = where[0]
    if kind == "top":
        return {re.sub(r"[\[\]`]", "", h.split()[0]) for h in sections() if h.startswith("`[")}
    if kind == "section":
        return first_column_keys(section(where[1]))
    if kind == "row":  # the default column (`{ a = 1 }`) and the meaning
        return listed_keys(" | ".join(row(section(where[1]), where[2])[1:]))
    if kind == "kind":
        return listed_keys(row(section(where[1]), where[2])[1])
    if kind == "error":
        return listed_keys(row(error_models(), where[1])[1]) | {"direction", "packets", "action"}
    raise AssertionError(where)


TABLE_IDS = [f"{p or 'top'}{'/' + k['kind'] if k else ''}" for p, k, _ in TABLES]


@pytest.mark.parametrize("path,kind,where", TABLES, ids=TABLE_IDS)
def test_every_accepted_key_is_documented(path, kind, where):
    keys = table_keys(path, kind) - {"kind"}
    text = place(where)
    missing = sorted(k for k in keys if k not in mentioned(text))
    assert not missing, f"{path or 'top level'}: accepted but not in docs/scenarios.md ({where}): {missing}"


@pytest.mark.parametrize("path,kind,where", TABLES, ids=TABLE_IDS)
def test_every_documented_key_is_accepted(path, kind, where):
    keys = table_keys(path, kind) - {"kind"}
    listed = documented(where)
    assert listed or not keys, f"no keys found for {path} in docs/scenarios.md ({where})"
    extra = sorted(listed - keys - {"kind"})
    assert not extra, f"{path or 'top level'}: in docs/scenarios.md ({where}) but refused by the parser: {extra}"


def name_place(where: tuple) -> str:
    kind = where[0]
    if kind == "error":  # an error model's row: its keys column
        return row(error_models(), where[1])[1]
    if kind == "row":
        return " | ".join(row(section(where[1]), where[2]))
    text = section(where[1])
    start = text.index(where[2])
    text = text[start:]
    if kind == "kinds":  # the first column of the `kind` table that follows
        table = text[text.index("\n|") :].split("\n\n", 1)[0]
        return "\n".join(r[0] for r in rows(table))
    if kind == "para":
        return text.split("\n\n", 1)[0]
    raise AssertionError(where)


@pytest.mark.parametrize("path,where,kind", [(*n, None)[:3] for n in NAMES], ids=[n[0] for n in NAMES])
def test_every_accepted_name_is_documented(path, where, kind):
    allowed = names(path, kind)
    assert allowed, path
    text = name_place(where)
    missing = sorted(n for n in allowed if n not in quoted_names(text))
    assert not missing, f"{path}: accepted but not in docs/scenarios.md ({where}): {missing}"


@pytest.mark.parametrize("path,where", [n[:2] for n in NAMES if n[1][0] == "kinds"], ids=lambda x: str(x))
def test_every_documented_kind_is_accepted(path, where):
    extra = sorted(quoted_names(name_place(where)) - names(path))
    assert not extra, f"{path}: in docs/scenarios.md but refused by the parser: {extra}"
