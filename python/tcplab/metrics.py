"""Named per-run measures for sweeps.

A sweep file lists the measures it wants by name (``metrics =
["throughput_bps", "jain"]``); each name maps to one function of a run's flow
table (a dict of column lists), summary and scenario (the dict the run was
made from; None when unknown), plus the range of values the
measure can take, which plots use to clip confidence bands (a throughput
band never dips below 0, Jain's index never exceeds 1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .errors import ScenarioError

INF = math.inf
NAN = math.nan


@dataclass(frozen=True)
class Metric:
    name: str
    doc: str
    compute: Callable[[dict, dict, "dict | None"], float]
    low: float = 0.0
    high: float = INF
    #: Raised when the definition changes, so that a resumed sweep redoes
    #: the runs stored with the old definition instead of mixing the two.
    revision: int = 1


def _mean(xs) -> float:
    return sum(xs) / len(xs) if xs else NAN


def _unfairness(flows: dict, summary: dict, scenario=None) -> float:
    thr = flows["throughput_bps"]
    if not thr:
        return NAN
    lo, hi = min(thr), max(thr)
    # A starved flow makes the ratio unbounded: inf, not a large number.
    return (hi - lo) / lo if lo > 0 else INF


def jain(xs) -> float:
    """Jain's fairness index of some flows' rates (NaN when all are 0)."""
    sq = sum(x * x for x in xs)
    return sum(xs) ** 2 / (len(xs) * sq) if xs and sq > 0 else NAN


def _jain(flows: dict, summary: dict, scenario=None) -> float:
    return jain(flows["throughput_bps"])


def _finished(xs) -> list:
    """Values of an optional per-flow column that are set (None and NaN mean
    'did not happen')."""
    return [x for x in xs if x is not None and x == x]


def _flows_where(flows: dict, scenario, test: Callable[[dict], bool]) -> list:
    """Rows of the flow table whose scenario entry passes `test` (the table
    has one row per [[flow]], in order). Without the scenario every row: a
    bulk flow and a transfer that did not finish look alike in the table."""
    n = len(flows["flow"])
    entries = scenario.get("flow") if isinstance(scenario, dict) else None
    if not isinstance(entries, list) or len(entries) != n:
        return list(range(n))
    return [i for i, f in enumerate(entries) if isinstance(f, dict) and test(f)]


def _is_transfer(flow: dict) -> bool:
    app = flow.get("app")
    return isinstance(app, dict) and app.get("kind") == "transfer"


def _reports_first_bytes(flow: dict) -> bool:
    return flow.get("first_bytes") is not None and flow.get("transport") != "udp"


def _of(flows: dict, column: str, rows: list) -> list | None:
    """The column's values at `rows`, or None if there are none or one is
    missing (a transfer that did not complete)."""
    xs = _finished(flows[column][i] for i in rows)
    return xs if rows and len(xs) == len(rows) else None


def _completion(flows: dict, summary: dict, scenario=None) -> float:
    # Only the transfers: bulk and CBR flows never complete.
    done = _of(flows, "completion_s", _flows_where(flows, scenario, _is_transfer))
    return max(done) if done else NAN


def _first_bytes(flows: dict, summary: dict, scenario=None) -> float:
    # Only the TCP flows that set first_bytes: the others never report it.
    got = _of(flows, "first_bytes_s", _flows_where(flows, scenario, _reports_first_bytes))
    return _mean(got) if got else NAN


def _total_throughput(flows: dict, summary: dict, scenario=None) -> float:
    """Payload bits of all flows (what throughput_bps counts: acknowledged
    bytes, received bytes for UDP) over one interval common to them: from
    the first start to the end of the last activity (a completed transfer
    ends at its completion, any other flow at the end of the run; a flow
    that starts after the run does not count). The sum of the flows'
    throughputs divided each flow's bytes by its own active time, and
    exceeded the bottleneck's rate when a transfer finished early beside a
    bulk flow."""
    end = float(summary["duration_s"])
    starts, ends, total = [], [], 0
    for i, s in enumerate(flows["start_s"]):
        if float(s) >= end:
            continue
        c = flows["completion_s"][i]
        starts.append(float(s))
        ends.append(float(s) + float(c) if c is not None and c == c else end)
        total += flows["bytes_delivered"][i] if flows["transport"][i] == "udp" else flows["bytes_acked"][i]
    span = max(ends) - min(starts) if starts else 0.0
    return 8 * total / span if span > 0 else NAN


def _total(column: str) -> Callable[[dict, dict, "dict | None"], float]:
    return lambda flows, summary, scenario: sum(flows[column])


def _per_flow(column: str) -> Callable[[dict, dict, "dict | None"], float]:
    return lambda flows, summary, scenario: _mean(flows[column])


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("throughput_bps", "mean throughput of the flows (bit/s)", _per_flow("throughput_bps")),
    Metric("goodput_bps", "mean goodput of the flows (bit/s)", _per_flow("goodput_bps")),
    # Revision 2: one interval for all flows, not the sum of per-flow rates.
    Metric("total_throughput_bps", "payload bits of all flows over the time from the first start to the end of "
           "the last activity (bit/s)", _total_throughput, revision=2),
    Metric("unfairness", "(max - min) / min of the flows' throughputs (inf when a flow gets nothing)",
           _unfairness),
    Metric("jain", "Jain's fairness index of the flows' throughputs", _jain, 0.0, 1.0),
    Metric("retransmits", "retransmitted segments, all flows", _total("retransmits")),
    Metric("timeouts", "retransmission timeouts, all flows", _total("timeouts")),
    Metric("fast_retransmits", "fast retransmits, all flows", _total("fast_retransmits")),
    Metric("spurious_rtos", "timeouts F-RTO found spurious (linux profile), all flows", _total("spurious_rtos")),
    Metric("undos", "window reductions undone (linux profile), all flows", _total("undos")),
    Metric("packets_sent", "packets sent, all flows", _total("packets_sent")),
    # Revision 2: flows that are not transfers (bulk, CBR) or set no
    # first_bytes no longer make every run NaN.
    Metric("completion_s", "longest transfer time of the flows that are transfers, each from its start "
           "(NaN if there is none or one did not complete)", _completion, revision=2),
    Metric("first_bytes_s", "mean time to deliver first_bytes, over the TCP flows that set it "
           "(NaN if there is none or one did not get there)", _first_bytes, revision=2),
    Metric("events", "simulation events processed", lambda flows, summary, scenario: summary["events"]),
]}

DEFAULT = ["throughput_bps", "goodput_bps", "unfairness", "jain", "retransmits", "timeouts"]


def check_names(names, key: str = "metrics") -> list[str]:
    """The list of metric names, or a ScenarioError naming the bad entry."""
    if isinstance(names, str) or not isinstance(names, (list, tuple)) or not names:
        raise ScenarioError(f"{key}: expected a non-empty list of metric names ({', '.join(METRICS)})", key)
    seen = []
    for i, n in enumerate(names):
        if n not in METRICS:
            raise ScenarioError(f"{key}[{i}]: unknown metric {n!r}, expected one of {', '.join(METRICS)}",
                                f"{key}[{i}]")
        if n in seen:
            raise ScenarioError(f"{key}[{i}]: {n!r} is listed twice", f"{key}[{i}]")
        seen.append(n)
    return seen


class Named:
    """A sweep's metrics function made of named measures. A class, not a
    closure, so that it pickles by reference to worker processes."""

    def __init__(self, names):
        self.names = check_names(names)

    def __call__(self, flows: dict, summary: dict, scenario: dict | None = None) -> dict:
        return {n: METRICS[n].compute(flows, summary, scenario) for n in self.names}

    def revisions(self) -> dict:
        """{name: revision} of the measures whose definition has changed
        (revision > 1): what a stored run must have been measured with."""
        return {n: METRICS[n].revision for n in self.names if METRICS[n].revision > 1}

    def __repr__(self) -> str:
        return f"Named({self.names!r})"
