import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"

# A test run started in the background by a non-interactive shell
# (`bash .ci/run &`) inherits SIGINT ignored, and so would every process it
# starts: the Ctrl-C tests would fail without testing anything. With
# Python's own handler here, this process raises KeyboardInterrupt and the
# processes it starts begin with the default action (a caught signal is
# reset on exec, an ignored one is not).
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def small_scenario() -> dict:
    """A two-flow, three-node network that runs in milliseconds."""
    return {
        "sim": {"duration": "20s", "seed": 1},
        "node": [{"name": "a"}, {"name": "r"}, {"name": "b"}],
        "link": [
            {"between": ["a", "r"], "rate": "10Mbps", "delay": "1ms"},
            {"between": ["r", "b"], "rate": "1Mbps", "delay": "20ms",
             "error": {"kind": "uniform", "rate": 0.01}},
        ],
        "flow": [
            {"name": "f1", "from": "a", "to": "b", "transport": "newreno", "window": 20,
             "app": {"kind": "bulk"}},
            {"name": "f2", "from": "a", "to": "b", "transport": "tahoe", "window": 20,
             "app": {"kind": "transfer", "bytes": 50000, "write": 256, "start": "1s"}},
        ],
    }


def reproduce_quick(study: str, tmp_path_factory) -> Path:
    """Run `tcplab reproduce STUDY --quick` into a fresh directory (for a
    module-scoped fixture) and return it; the command must succeed."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp(study)
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", study, "--quick", "--out", str(out), "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out
