"""The expected throughput of a flow across moving stations (Holland and
Vaidya, MobiCom 1999; SPEC 7): with T_i the throughput of the same flow
over a static chain of i hops and t_i the time the shortest path between its
ends had i hops, sum(T_i * t_i) / sum(t_i) over the flow's active time, with
T_0 = 0 while the two are partitioned. The ratio of a run's throughput to it
says how much of what the topology allowed the protocols achieved.

The path lengths come from the core (`Scenario::hop_timeline`): the
positions the simulation moves the stations along, two stations neighbours
when the mean power between them reaches the receive threshold. Each static
chain is the scenario itself with its stations replaced by i + 1 fixed ones
on a line (`spacing_m` apart, 0.95 of the receive range unless given, so
each reaches only its neighbours) and only this flow, from the first to the
last; radio, MAC, routing, TCP and the flow's keys are the scenario's.
"""
from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass

from . import _core
from .errors import ScenarioError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from .scenario import Scenario

#: Static chains are spaced this fraction of the receive range apart.
SPACING_OF_RANGE = 0.95


@dataclass(frozen=True)
class ExpectedThroughput:
    """`expected_bps` and what it is made of: seconds per hop count
    (`hops_s`, 0 = partitioned), the static chains' mean throughput and
    its standard error over the seeds per hop count."""

    expected_bps: float
    hops_s: dict[int, float]
    static_bps: dict[int, float]
    static_se_bps: dict[int, float]
    rx_range_m: float
    spacing_m: float
    seeds: tuple[int, ...]

    def ratio(self, actual_bps: float) -> float:
        """actual / expected (NaN when nothing was expected: always partitioned)."""
        return actual_bps / self.expected_bps if self.expected_bps > 0 else math.nan


def static_chain(scenario: Scenario, flow: int, hops: int, spacing_m: float, seed: int) -> Scenario:
    """The scenario's flow `flow` alone over `hops` hops of fixed stations
    `spacing_m` apart (named c0 .. c<hops>), with the run seed `seed`."""
    from .scenario import Scenario

    data = copy.deepcopy(scenario.data)
    f = dict(data["flow"][flow])
    f.update({"from": "c0", "to": f"c{hops}"})
    data["flow"] = [f]
    data["node"] = [{"name": f"c{k}", "position": [k * spacing_m, 0.0]} for k in range(hops + 1)]
    w = data.setdefault("wireless", {})
    for key in ("mobility", "setdest"):
        w.pop(key, None)
    if isinstance(w.get("olsr"), dict):
        w["olsr"].pop("node_willingness", None)  # names the scenario's stations
    data.pop("pcap", None)
    data.pop("output", None)
    data.setdefault("sim", {})["seed"] = seed
    return Scenario(data, scenario.source)


def expected_throughput(
    scenario: Scenario | dict | str | Path,
    *,
    flow: int = 0,
    seeds: Iterable[int] = (1,),
    step: str | float = "0.1s",
    spacing_m: float | None = None,
    overrides: Iterable[str] = (),
    metric: str = "throughput_bps",
) -> ExpectedThroughput:
    """Flow `flow`'s expected throughput in `scenario` (moving stations on
    an ad hoc network): its shortest path's length sampled every `step`,
    and one static chain run per hop count seen and seed. `metric` is the
    flows table's column taken as T_i (`"goodput_bps"` for goodput).
    Raises ScenarioError naming the key for what it cannot do (no radio
    channel, shadowing, wired links, an end that is not a station)."""
    from .api import _as_scenario, _prepare, run

    sc = _as_scenario(scenario)
    sc, text = _prepare(sc, seed=None, overrides=overrides, sample_interval=None, trace=None, pcap=())
    if not isinstance(flow, int) or isinstance(flow, bool):
        raise ScenarioError(f"flow: expected a flow's index, got {flow!r}", "flow")
    seeds = tuple(seeds)
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds):
        raise ScenarioError(f"seeds: expected one or more whole numbers >= 0, got {seeds!r}", "seeds")
    if metric not in ("throughput_bps", "goodput_bps"):
        raise ScenarioError(f"metric: expected \"throughput_bps\" or \"goodput_bps\", got {metric!r}", "metric")
    if sc.data.get("link"):
        raise ScenarioError("link: the expected throughput is for ad hoc networks (stations only); "
                            "this scenario has wired links", "link")
    if isinstance(step, bool) or not isinstance(step, (str, int, float)):
        raise ScenarioError(f"step: expected a duration such as \"100ms\", got {step!r}", "step")
    if flow < 0:
        raise ScenarioError(f"flow: expected a flow's index >= 0, got {flow}", "flow")
    try:
        timeline, rx_range = _core.hop_timeline_json(text, flow, json.dumps(step))
    except _core.CoreScenarioError as e:
        raise ScenarioError(e.args[0], e.args[1]) from None
    spacing = SPACING_OF_RANGE * rx_range if spacing_m is None else float(spacing_m)
    if not (0 < spacing <= rx_range):
        raise ScenarioError(f"spacing_m: must be in (0, {rx_range:.3f}] (the receive range), got {spacing_m!r}",
                            "spacing_m")
    hops_s = dict(timeline)
    static_bps: dict[int, float] = {}
    static_se: dict[int, float] = {}
    for h in sorted(k for k in hops_s if k > 0):
        values = [float(run(static_chain(sc, flow, h, spacing, s)).flows[metric][0]) for s in seeds]
        mean = sum(values) / len(values)
        static_bps[h] = mean
        static_se[h] = (math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1) / len(values))
                        if len(values) > 1 else math.nan)
    total = sum(hops_s.values())
    expected = sum(static_bps[h] * t for h, t in hops_s.items() if h > 0) / total if total > 0 else math.nan
    return ExpectedThroughput(expected, hops_s, static_bps, static_se, rx_range, spacing, seeds)
