"""tcplab: a fast, deterministic laboratory for TCP over wired and wireless networks.

    import tcplab
    sc = tcplab.load_scenario("scenarios/dumbbell.toml")
    res = tcplab.run(sc, seed=2, overrides=["flow[*].transport=reno"])
    res.flows        # pandas DataFrame, one row per flow

Heavy libraries (pandas, pyarrow) are imported only when a table is asked for.
The public names below are loaded on first use (PEP 562), so that `tcplab run`
pays only for the modules a single run needs: the sweep machinery alone
(statistics, hashlib, inspect, dataclasses ...) used to be a third of the
command's start-up.
"""
from __future__ import annotations

import importlib
import sys
import types

from ._core import __version__
from .errors import ScenarioError

# name -> (module, attribute). `tcplab.sweep` is the function of sweepfile;
# the module of the same name is still imported as `from tcplab.sweep import
# Sweep, summarize` (a submodule import does not go through __getattr__).
_LAZY = {
    "Scenario": (".scenario", "Scenario"),
    "load_scenario": (".scenario", "load_scenario"),
    "run": (".api", "run"),
    "Result": (".result", "Result"),
    "sweep": (".sweepfile", "sweep"),
    "SweepResult": (".sweepfile", "SweepResult"),
    "OutputError": (".io", "OutputError"),
    "expected_throughput": (".expected", "expected_throughput"),
    "ExpectedThroughput": (".expected", "ExpectedThroughput"),
}

# Spelled out (not built from _LAZY): type checkers read __all__ only as a
# literal list (tests/test_api.py checks that it matches _LAZY).
__all__ = ["__version__", "ScenarioError", "OutputError", "Scenario", "load_scenario", "run", "Result", "sweep",
           "SweepResult", "expected_throughput", "ExpectedThroughput"]

# Seen by type checkers only (type checkers take any name TYPE_CHECKING as
# true; importing typing itself costs start-up time). The `X as X` form
# marks each name as exported for mypy --strict (no implicit re-export).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .api import run as run
    from .expected import ExpectedThroughput as ExpectedThroughput
    from .expected import expected_throughput as expected_throughput
    from .io import OutputError as OutputError
    from .result import Result as Result
    from .scenario import Scenario as Scenario
    from .scenario import load_scenario as load_scenario
    from .sweepfile import SweepResult as SweepResult
    from .sweepfile import sweep as sweep


def __getattr__(name: str) -> object:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'tcplab' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module, __name__), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


class _Package(types.ModuleType):
    """Keeps `tcplab.sweep` the function: importing the submodule of the
    same name binds it on the package after running it, which would hide
    the function; that one binding is ignored (the module stays reachable
    through sys.modules and `from tcplab.sweep import ...`)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "sweep" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
