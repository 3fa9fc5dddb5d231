"""Named per-run measures for sweeps.

A sweep file lists the measures it wants by name (``metrics =
["throughput_bps", "jain"]``); each name maps to one function of a run's flow
table (a dict of column lists) and summary, plus the range of values the
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
    compute: Callable[[dict, dict], float]
    low: float = 0.0
    high: float = INF


def _mean(xs) -> float:
    return sum(xs) / len(xs) if xs else NAN


def _unfairness(flows: dict, summary: dict) -> float:
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


def _jain(flows: dict, summary: dict) -> float:
    return jain(flows["throughput_bps"])


def _finished(xs) -> list:
    """Values of an optional per-flow column that are set (None and NaN mean
    'did not happen')."""
    return [x for x in xs if x is not None and x == x]


def _completion(flows: dict, summary: dict) -> float:
    done = _finished(flows["completion_s"])
    return max(done) if done and len(done) == len(flows["completion_s"]) else NAN


def _first_bytes(flows: dict, summary: dict) -> float:
    got = _finished(flows["first_bytes_s"])
    return _mean(got) if got and len(got) == len(flows["first_bytes_s"]) else NAN


def _total(column: str) -> Callable[[dict, dict], float]:
    return lambda flows, summary: sum(flows[column])


def _per_flow(column: str) -> Callable[[dict, dict], float]:
    return lambda flows, summary: _mean(flows[column])


METRICS: dict[str, Metric] = {m.name: m for m in [
    Metric("throughput_bps", "mean throughput of the flows (bit/s)", _per_flow("throughput_bps")),
    Metric("goodput_bps", "mean goodput of the flows (bit/s)", _per_flow("goodput_bps")),
    Metric("total_throughput_bps", "sum of the flows' throughputs (bit/s)", _total("throughput_bps")),
    Metric("unfairness", "(max - min) / min of the flows' throughputs (inf when a flow gets nothing)",
           _unfairness),
    Metric("jain", "Jain's fairness index of the flows' throughputs", _jain, 0.0, 1.0),
    Metric("retransmits", "retransmitted segments, all flows", _total("retransmits")),
    Metric("timeouts", "retransmission timeouts, all flows", _total("timeouts")),
    Metric("fast_retransmits", "fast retransmits, all flows", _total("fast_retransmits")),
    Metric("packets_sent", "packets sent, all flows", _total("packets_sent")),
    Metric("completion_s", "time the last flow completed its transfer (NaN if one did not)", _completion),
    Metric("first_bytes_s", "mean time to deliver each flow's first_bytes (NaN if one did not)", _first_bytes),
    Metric("events", "simulation events processed", lambda flows, summary: summary["events"]),
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

    def __call__(self, flows: dict, summary: dict) -> dict:
        return {n: METRICS[n].compute(flows, summary) for n in self.names}

    def __repr__(self) -> str:
        return f"Named({self.names!r})"
