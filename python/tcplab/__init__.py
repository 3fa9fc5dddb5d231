"""tcplab: a fast, deterministic laboratory for TCP over wired and wireless networks.

    import tcplab
    sc = tcplab.load_scenario("scenarios/dumbbell.toml")
    res = tcplab.run(sc, seed=2, overrides=["flow[*].transport=reno"])
    res.flows        # pandas DataFrame, one row per flow

Heavy libraries (pandas, pyarrow) are imported only when a table is asked for.
"""
from ._core import __version__
from .errors import ScenarioError
from .scenario import Scenario, load_scenario
from .api import run
from .result import Result
# `tcplab.sweep` is the function below; the module of the same name is still
# imported as `from tcplab.sweep import Sweep, summarize`.
from .sweepfile import SweepResult, sweep

__all__ = ["__version__", "ScenarioError", "Scenario", "load_scenario", "run", "Result", "sweep", "SweepResult"]
