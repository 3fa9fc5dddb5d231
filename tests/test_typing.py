"""The package type-checks (mypy, configured in pyproject.toml) and the
stubs of the compiled core (python/tcplab/_core.pyi) match the module that
is actually built: a function, argument or exception added in
crates/tcplab-python/src/lib.rs without its stub fails here."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Names that exist only for type checkers (TypedDicts of the result dicts).
STUB_ONLY = ["Table", "StreamedTable", "Summary", "RunOutput", "StreamedRunOutput", "EmulationOutput"]


def test_mypy_package():
    r = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "python/tcplab"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_stubs_match_the_compiled_core(tmp_path):
    allow = tmp_path / "allowlist.txt"
    allow.write_text("".join(f"tcplab._core.{n}\n" for n in STUB_ONLY))
    # The stub from the source tree, the compiled module from wherever it
    # is imported (site-packages, or a copy next to the sources).
    env = dict(os.environ, MYPYPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "tcplab._core", "--allowlist", str(allow),
                        "--mypy-config-file", str(ROOT / "pyproject.toml")],
                       cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr


# A user's script as the README writes one: every documented top-level name,
# the tables as DataFrames. mypy --strict checks it against the installed
# package (py.typed): a name imported for type checkers without an explicit
# re-export, or a table typed `object`, fails here.
USER_SCRIPT = '''
from __future__ import annotations

from pathlib import Path

import tcplab
from tcplab import OutputError, Result, Scenario, ScenarioError, SweepResult
from tcplab.sweep import Sweep, summarize


def build(params: dict[str, object]) -> Scenario:
    return tcplab.load_scenario("base.toml").with_overrides([f"link[0].delay={params['d']}"])


def main() -> None:
    sc: Scenario = tcplab.load_scenario("base.toml")
    sc = tcplab.Scenario(sc.copy().data).validate()
    res: Result = tcplab.run(sc, seed=3, overrides=["sim.duration=2s"], sample_interval="100ms", trace=True)
    print(res.flows.head(), res.links.columns, res.series.shape, res.queues.shape, res.trace.shape)
    print(res.rows("trace"), res.summary["events"], res.write(Path("out")))
    sw: SweepResult = tcplab.sweep(sc, grid={"link[0].delay": ["1ms", "50ms"]}, seeds=2, out="out-sweep", jobs=1)
    print(sw.runs.head(), sw.summary.columns, sw.out, summarize(sw.runs, ["link[0].delay"], "throughput_bps"))
    print(Sweep(build, {"d": ["1ms"]}, 1, Path("out2")).run(jobs=1))
    try:
        tcplab.run(sc, overrides=["link[0].rate=fast"])
    except (ScenarioError, OutputError) as e:
        print(e)
    print(tcplab.__version__)
'''


def test_mypy_strict_accepts_a_users_script(tmp_path):
    (tmp_path / "user.py").write_text(USER_SCRIPT)
    r = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "user.py"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_public_tables_are_annotated_and_documented():
    import tcplab
    from tcplab.result import Result
    from tcplab.sweep import Sweep
    from tcplab.sweepfile import SweepResult

    for name in ("flows", "links", "nodes", "series", "queues", "trace"):
        prop = getattr(Result, name)
        assert prop.fget.__annotations__.get("return") == "pd.DataFrame", name
        assert prop.__doc__, name
    assert SweepResult.__annotations__["runs"] == SweepResult.__annotations__["summary"] == "pd.DataFrame"
    for f in (Result.rows, tcplab.Scenario.copy, Sweep, SweepResult):
        assert f.__doc__ and f.__doc__.strip(), f
