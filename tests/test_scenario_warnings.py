"""Settings a valid scenario makes inert are run as asked (studies reproduce
ns-2.35's quirks on purpose) but said, one line on stderr each."""
import subprocess
import sys
import warnings

import pytest

from conftest import SCENARIOS, one_flow_toml


def validate(tmp_path, text, *sets):
    sc = tmp_path / "s.toml"
    sc.write_text(text)
    args = [a for s in sets for a in ("--set", s)]
    r = subprocess.run([sys.executable, "-m", "tcplab", "validate", str(sc), *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith(": ok"), r.stdout
    return r.stderr.strip().splitlines()


@pytest.mark.parametrize("transport, key, sets, enable", [
    ("vegas", "ecn", [], "tcp.vegas_ecn = true"),
    ("vegas", "eln", [], "tcp.eln_all_variants = true"),
    ("sack", "eln", [], "tcp.eln_all_variants = true"),
    # Sack1 recovery on a Reno flow that asks for SACK blocks.
    ("reno", "eln", ["tcp.sack=true"], "tcp.eln_all_variants = true"),
])
def test_an_inert_ecn_or_eln_is_one_warning_line(tmp_path, transport, key, sets, enable):
    lines = validate(tmp_path, one_flow_toml(transport), f"flow[0].{key}=true", *sets)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"tcplab: warning: flow[0].{key}: has no effect"), lines[0]
    assert "ns2 profile" in lines[0] and enable in lines[0], lines[0]


@pytest.mark.parametrize("transport, key, sets", [
    ("vegas", "ecn", ["tcp.vegas_ecn=true"]),
    ("vegas", "eln", ["tcp.eln_all_variants=true"]),
    ("sack", "eln", ["flow[0].tcp.eln_all_variants=true"]),
    ("sack", "eln", ['tcp.sack_recovery="rfc6675"']),
    ("newreno", "eln", []),
    ("newreno", "ecn", []),
    ("sack", "ecn", []),
    ("vegas", "ecn", ['sim.tcp_profile="rfc"']),
])
def test_no_warning_where_the_setting_acts(tmp_path, transport, key, sets):
    assert validate(tmp_path, one_flow_toml(transport), f"flow[0].{key}=true", *sets) == []


def test_a_rule_set_false_is_named_as_the_cause(tmp_path):
    lines = validate(tmp_path, one_flow_toml("vegas", "rfc"), "flow[0].ecn=true", "tcp.vegas_ecn=false")
    assert len(lines) == 1 and "(tcp.vegas_ecn = false)" in lines[0], lines


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("*.toml")))
def test_no_example_scenario_warns(name):
    # wifi-cells.toml's Vegas flow said "with ECN" and sent nothing ECT.
    r = subprocess.run([sys.executable, "-m", "tcplab", "validate", str(SCENARIOS / name)], capture_output=True,
                       text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_the_api_warns_once_per_message():
    import tcplab
    from tcplab.errors import ScenarioWarning

    sc = tcplab.Scenario(tcplab.load_scenario(SCENARIOS / "wifi-cells.toml").data)
    del sc.data["flow"][2]["tcp"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        import tcplab.scenario as module

        module.__dict__.pop("__warningregistry__", None)
        sc.validate()
        sc.validate()
    got = [w for w in caught if issubclass(w.category, ScenarioWarning)]
    assert len(got) == 1 and str(got[0].message).startswith('flow[2].ecn: has no effect on Vegas flow "a2-host"')


def test_a_sweep_says_what_a_grid_value_makes_inert(tmp_path):
    # The ecn key acts for NewReno and is inert for Vegas under the ns2
    # rules: the sweep validates each run, and says so once, not per seed.
    import tomllib

    from tcplab.errors import ScenarioWarning
    from tcplab.sweep import Sweep

    def build(p):
        sc = tomllib.loads(one_flow_toml(p["transport"]))
        sc["sim"]["duration"] = "0.2s"
        sc["flow"][0]["ecn"] = True
        return sc

    sweep = Sweep(build, {"transport": ["newreno", "vegas"]}, seeds=2, out=tmp_path / "s", metrics=["goodput_bps"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        import tcplab.scenario as module

        module.__dict__.pop("__warningregistry__", None)
        rows = sweep.run(jobs=1, progress=False)
    assert len(rows) == 4
    got = [str(w.message) for w in caught if issubclass(w.category, ScenarioWarning)]
    assert len(got) == 1 and got[0].startswith("flow[0].ecn: has no effect on Vegas"), got
