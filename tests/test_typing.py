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
