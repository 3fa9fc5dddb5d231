"""Property test over scenario files and --set overrides (issue 10).

Every input must end as exit status 0 with a complete result directory, or
exit status 2 with one line on stderr that names a key -- never a panic, a
traceback, a hang (a time limit) or a partial output directory.

The command line runs in-process (`tcplab.cli.main`), so hypothesis can try
hundreds of inputs in a few seconds; a SIGALRM time limit catches hangs (the
core looks for signals while it runs). CI tries TCPLAB_FUZZ_EXAMPLES inputs
(default 300); for a longer search:

    TCPLAB_FUZZ_EXAMPLES=5000 python -m pytest -q tests/test_fuzz.py
"""
import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import SCENARIOS
from tcplab.cli import main

EXAMPLES = int(os.environ.get("TCPLAB_FUZZ_EXAMPLES", "300"))
TIME_LIMIT_S = 60
BASES = sorted(p.name for p in SCENARIOS.glob("*.toml"))
#: Inputs tried in this process (reported by the final test).
TRIED = {"n": 0, "ok": 0}

KEYS = [
    "sim.seed", "sim.tcp_profile", "sim.bogus",
    "tcp.min_rto", "tcp.max_rto", "tcp.initial_rto", "tcp.granularity", "tcp.initial_window",
    "tcp.dupthresh", "tcp.delayed_ack", "tcp.ack_thinning", "tcp.window_bytes", "tcp.thinning_thresholds",
    "flow[0].transport", "flow[0].name", "flow[0].packet_size", "flow[0].window", "flow[0].app",
    "flow[0].tcp", "flow[0].tcp.max_rto", "flow[0].tcp.min_rto", "flow[*].tcp", "flow[*].transport",
    "flow[0].eln", "flow[0].ecn", "flow[0].first_bytes", "flow[0].from", "flow[0].to", "flow[0].vegas",
    "flow[1].app.rate", "flow[0].app.start", "flow[0].app.stop",
    "link[0].rate", "link[0].delay", "link[0].queue", "link[0].error", "link[0].error.direction",
    "link[0].error.rate", "link[0].framing", "link[0].forward", "link[0].between", "link[99].rate",
    "node[0].name", "node[0].snoop", "output.sample_interval", "output.trace", "pcap", "flow", "link", "",
    "wireless.mobility", "wireless.mobility.area", "wireless.mobility.speed", "wireless.mobility.pause",
    "wireless.mobility.nodes", "node[0].waypoints", "node[1].position", "wireless.setdest",
    "node[4].base_station", "node[2].base_station", "node[0].frame_error_rate", "node[4].frame_error_rate",
    "wireless.routing", "wireless.dsdv.ns2_gateway",
]

#: Values that are often valid somewhere (so that runs, not only
#: rejections, are explored), then edge cases and garbage.
PLAUSIBLE = st.sampled_from([
    "1", "2", "5", "0.01", "0.5", "true", "false", '"10ms"', '"2Mbps"', '"64kbps"', "reno", "newreno", "sack",
    "vegas", "tahoe", "linux", "ns2", '{kind="droptail", limit=5}', '{kind="red", min_th=5, max_th=15, ecn=true}',
    '{kind="uniform", rate=0.05}', '{kind="ber", ber=1e-5, direction="both"}', '{kind="unlimited"}',
    '{kind="dual-threshold", soft=5, hard=20}', '{kind="transfer", bytes=50000}', '{kind="bulk", stop="0.1s"}',
    '{max_rto="1s", min_rto="100ms"}', '{delayed_ack=true}', '{ack_thinning=true}', '{sack=true, timestamps=true}',
    "ppp", '{rate="1Mbps", delay="5ms"}', '[{node="bs"}]', '[{link=0, direction="reverse"}]', '"100ms"',
    '"bs1"', '"bs2"', '"dsdv"', '"static"', "0.2",
])

VALUES = st.one_of(
    PLAUSIBLE,
    PLAUSIBLE,
    st.sampled_from([
        "0", "1", "-1", "3", "1e30", "1e400", "-1e400", "nan", "inf", "-inf", "0.5", "65001", "4294967296",
        "18446744073709551616", "true", "false", '""', '"x"', '"a\\rb"', '"a\\u0000b"', '"a/b"', '"../x"',
        '"10ms"', '"100s"', '"0s"', '"-5ms"', '"1e30Mbps"', '"1bps"', '"10Mbps"', '"2Mb"',
        '"fortnight"', "reno", "udp", "vegas", "sack", "tahoe", "newreno", "ns2", "linux", "bsd",
        "[]", "[1, 2]", "[2, 5, 9]", "[9, 5, 2]", "{}", '["a", "a"]',
        '{kind="cbr", rate=1e30}', '{kind="cbr", rate="64kbps"}', '{kind="cbr", interval="0s"}',
        '{kind="bulk"}', '{kind="transfer", bytes=0}', '{kind="transfer", bytes=10000}',
        '{max_rto="100ms"}', '{min_rto="100s"}', '{kind="droptail", limit=0}', '{kind="red", max_th=10}',
        '{kind="red", min_th=5, max_th=15}', '{kind="uniform", rate=0.1, direction="sideways"}',
        '{kind="uniform", rate=2}', '{kind="gilbert-elliott", p_good_bad=0.1, p_bad_good=0.5}',
        '{kind="pattern", drop=[0]}', '[{link=99}]', '[{node="nowhere"}]', '[{link=0, direction="both"}]',
        '[{node="a\\u0000b"}]', '{rate="1Mbps"}', "[[[[[[[[]]]]]]]]", "[" * 200 + "]" * 200,
        "{a={b={c={d={}}}}}", "x=y", "=", "1979-05-27", '"\\u001b[31m"',
    ]),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=8).map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'),
)

OVERRIDE = st.tuples(st.sampled_from(KEYS), VALUES).map(lambda kv: f"{kv[0]}={kv[1]}")
#: Durations the fuzzer may also set: short enough to keep a run quick.
#: (At most 0.2 s of simulated time: even a CBR flow at the highest rate the
#: validation allows, one datagram per ns, then finishes well inside the
#: time limit; a hang is a run that does not finish, not a long one.)
DURATIONS = st.sampled_from(["0.2s"] * 6 + ["0.05s", '"0.1s"', "1ns"] * 2 + ["0s", "-1s", "nan", '"x"'])


def _tiny_interval(override: str) -> bool:
    """A sampling interval below 1 ms: legitimate, but 0.2 s of it is a
    multi-gigabyte series file; not what this test is about."""
    key, _, value = override.partition("=")
    if key != "output.sample_interval":
        return False
    try:
        return 0 < float(value) < 1e-3
    except ValueError:
        return value.strip('"').endswith(("ns", "us"))


class _TimeLimit(Exception):
    pass


def _alarm(signum, frame):
    raise _TimeLimit()


def _leftovers(parent: Path) -> list:
    return [p.name for p in parent.iterdir() if ".tmp-" in p.name or ".old-" in p.name]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(base=st.sampled_from(BASES), overrides=st.lists(OVERRIDE, max_size=3), duration=DURATIONS,
       extra=st.sampled_from([[], ["--trace"], ["--sample-interval", "100ms"], ["--pcap", "0"], ["--pcap", "0:back"],
                              ["--seed", "7"], ["--sample-interval", "0s"]]))
def test_run_never_crashes(tmp_path_factory, capsys, base, overrides, duration, extra):
    assume(not any(_tiny_interval(o) for o in overrides))
    TRIED["n"] += 1
    parent = tmp_path_factory.mktemp("fuzz")
    out = parent / "out"
    argv = ["run", str(SCENARIOS / base), "--out", str(out), "-q", "--set", f"sim.duration={duration}"]
    for o in overrides:
        argv += ["--set", o]
    argv += extra
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    try:
        status = main(argv)
    except SystemExit as e:  # argparse
        status = e.code
    except _TimeLimit:
        pytest.fail(f"no answer within {TIME_LIMIT_S} s: {argv}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    err = capsys.readouterr().err
    assert status in (0, 2), (argv, status, err)
    assert not _leftovers(parent), (argv, _leftovers(parent))
    if status == 0:
        TRIED["ok"] += 1
        assert err == "", (argv, err)
        names = {p.name for p in out.iterdir()}
        assert {"flows.csv", "links.csv", "summary.json"} <= names, (argv, names)
    else:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tcplab: error: "), (argv, err)
        msg = lines[0][len("tcplab: error: "):]
        # Names a key (or the flag / file at fault) before the colon.
        head = msg.split(": ", 1)[0]
        assert head and ": " in msg, (argv, err)
        assert not out.exists(), (argv, "output directory written on error")


def test_report_fuzz_count():
    """Not a check: prints how many inputs the property test tried."""
    print(f"\nfuzz: {TRIED['n']} inputs tried, {TRIED['ok']} ran (exit 0), the rest refused with one line "
          f"(TCPLAB_FUZZ_EXAMPLES={EXAMPLES})")
