import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT, SCENARIOS


def tcplab(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "tcplab", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


@pytest.mark.parametrize("name", sorted(p.name for p in SCENARIOS.glob("*.toml")))
def test_every_example_scenario_runs(name, tmp_path):
    r = tcplab("run", SCENARIOS / name, "--out", tmp_path, "--quiet", "--set", "sim.duration=20s")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "flows.csv").exists()
    # nodes.csv exactly when the scenario has 802.11 stations
    assert (tmp_path / "nodes.csv").exists() == ("[wireless]" in (SCENARIOS / name).read_text())


def run_bad_chain(tmp_path, old, new):
    """wifi-chain.toml with `old` replaced by `new`, run into a new output
    directory: (exit status, stderr), after checking nothing was written."""
    text = (SCENARIOS / "wifi-chain.toml").read_text()
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1))
    r = tcplab("run", path, "--out", tmp_path / "out")
    assert not (tmp_path / "out").exists()
    return r.returncode, r.stderr


def test_bad_wireless_input_is_one_line_exit_2(tmp_path):
    code, err = run_bad_chain(tmp_path, "position = [1000.0, 0.0]", "position = [1300.0, 0.0]")
    assert code == 2
    assert err.strip().count("\n") == 0, err
    assert "flow[0].to" in err and '"n3" - "n4", 550.0 m apart' in err and "250.0 m" in err


@pytest.mark.parametrize("old, new, key", [
    ("position = [250.0, 0.0]\n", "", "node[1].position"),
    ("position = [250.0, 0.0]", "position = [nan, 0.0]", "node[1].position"),
    ("position = [250.0, 0.0]", "position = [250.0, 0.0, 1.5]", "node[1].position"),
    ('data_rate = "2Mbps"', 'data_rate = "3Mbps"', "wireless.data_rate"),
    ('basic_rate = "1Mbps"', 'basic_rate = "2"', "wireless.basic_rate"),
    ("rts_threshold = 0", "rts_threshold = -5", "wireless.rts_threshold"),
    ("rts_threshold = 0", "rts_threshold = 0\nphy = { cs_threshold_w = -1e-11 }", "wireless.phy.cs_threshold_w"),
])
def test_each_bad_wireless_key_is_named_exit_2_nothing_written(tmp_path, old, new, key):
    code, err = run_bad_chain(tmp_path, old, new)
    assert code == 2
    assert err.strip().count("\n") == 0, err
    assert f"error: {key}" in err, err


def test_run_writes_all_outputs(tmp_path):
    r = tcplab("run", SCENARIOS / "dumbbell.toml", "--out", tmp_path, "--seed", "3",
               "--set", "sim.duration=10s", "--sample-interval", "1s", "--trace", "--parquet")
    assert r.returncode == 0, r.stderr
    assert "ftp1" in r.stdout
    files = {p.name for p in tmp_path.iterdir()}
    assert {"flows.csv", "flows.parquet", "links.csv", "summary.json", "series.csv", "queues.csv",
            "trace.csv"} <= files
    assert not [f for f in files if f.endswith(".tmp")]
    flows = pd.read_csv(tmp_path / "flows.csv")
    assert len(flows) == 5
    pq = pd.read_parquet(tmp_path / "flows.parquet")
    assert list(pq.columns) == list(flows.columns)
    assert (pq.throughput_bps == flows.throughput_bps).all()
    # Every table written as CSV is written as Parquet too, row for row,
    # the streamed trace and series included.
    for name in ("links", "series", "queues", "trace"):
        csv, par = pd.read_csv(tmp_path / f"{name}.csv"), pd.read_parquet(tmp_path / f"{name}.parquet")
        assert list(par.columns) == list(csv.columns) and len(par) == len(csv) > 0, name
        pd.testing.assert_frame_equal(par, csv, check_dtype=False)
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["seed"] == 3 and s["duration_s"] == 10.0 and s["events"] > 0 and s["wall_s"] > 0


def test_same_seed_byte_identical_files(tmp_path):
    outs = []
    for i in range(2):
        out = tmp_path / f"r{i}"
        r = tcplab("run", SCENARIOS / "dumbbell.toml", "--out", out, "-q", "--set", "sim.duration=20s",
                   "--sample-interval", "1s", "--parquet")
        assert r.returncode == 0, r.stderr
        outs.append(out)
    for name in ["flows.csv", "links.csv", "series.csv", "queues.csv", "flows.parquet", "links.parquet", "series.parquet"]:
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    a, b = (json.loads((o / "summary.json").read_text()) for o in outs)
    for k in ("wall_s", "events_per_s"):
        a.pop(k), b.pop(k)
    assert a == b


def test_validate_ok():
    r = tcplab("validate", SCENARIOS / "gsm9600.toml")
    assert r.returncode == 0 and "ok" in r.stdout


BAD = {
    "unknown_key": ("[sim]\nduration = \"1s\"\nfoo = 1\n", "sim.foo: unknown field `foo`, expected one of `duration`"),
    "bad_unit": ("[sim]\nduration = \"1 fortnight\"\n", "sim.duration"),
    "bad_type": ("[sim]\nduration = \"1s\"\nseed = \"one\"\n", "sim.seed"),
    "bad_toml": ("[sim\n", "invalid TOML"),
    "bad_profile": ("[sim]\nduration = \"1s\"\ntcp_profile = \"bsd\"\n", "sim.tcp_profile"),
    "missing_section": ("[[node]]\nname = \"a\"\n", "missing field `sim`"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_scenario_one_line_exit_2(case, command, tmp_path):
    text, expect = BAD[case]
    f = tmp_path / "bad.toml"
    f.write_text(text)
    out = tmp_path / "out"
    args = [command, f] + (["--out", out] if command == "run" else [])
    r = tcplab(*args)
    assert r.returncode == 2, r
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert expect in lines[0]
    assert "Traceback" not in r.stderr
    assert not out.exists(), "nothing written for a bad scenario"


@pytest.mark.parametrize("args,expect", [
    (["run", "no-such-file.toml"], "no such scenario file"),
    (["run", SCENARIOS / "dumbbell.toml", "--seed", "abc"], "--seed"),
    (["run", SCENARIOS / "dumbbell.toml", "--set", "novalue"], "KEY=VALUE"),
    (["run", SCENARIOS / "dumbbell.toml", "--set", "flow[0].transport=vegas2"], "flow[0].transport"),
    (["run", SCENARIOS / "dumbbell.toml", "--sample-interval", "soon"], "output.sample_interval"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_flags_one_line_exit_2(args, expect, tmp_path):
    r = tcplab(*args, cwd=tmp_path)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0], r.stderr


@pytest.mark.parametrize("args,expect", [
    (["--pcap", "99:forward"], "pcap[0].link"),
    (["--pcap", "7:sideways"], "pcap[0].direction"),
    (["--pcap", "nosuchnode"], "pcap[0].node"),
    (["--pcap", "mh1:forward"], "a direction goes with a link number"),
    (["--set", "flow[0].vegas={alpha = 2}"], "flow[0].vegas"),
    (["--set", "flow[0].tcp={ack_thinning = true, delayed_ack = true}"], "flow[0].tcp.ack_thinning"),
    (["--set", "link[7].queue={kind = \"red\", min_th = 20, max_th = 10}"], "link[7].queue.min_th"),
    (["--set", "link[7].queue={kind = \"red\", max_th = 10}"], "missing field `min_th`"),
    (["--set", "link[7].queue={kind = \"dual-threshold\", soft = 9, hard = 3}"], "link[7].queue.soft"),
    (["--set", "flow[0].tcp={newreno_timer = \"lazy\"}"], "flow[0].tcp.newreno_timer"),
])
def test_bad_issue3_options_one_line_exit_2(args, expect, tmp_path):
    r = tcplab("run", SCENARIOS / "dumbbell.toml", "--out", tmp_path / "o", *args)
    assert r.returncode == 2, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0], r.stderr
    assert not (tmp_path / "o").exists()


def test_pcap_of_a_node_whose_name_is_a_number(tmp_path):
    """ns-2-style node names ("0", "1"): a bare number is a link, so
    `--pcap node:1` is the node. The two captures differ: the link's
    forward direction carries the data only, the node's capture the ACKs
    it sends too."""
    sc = tmp_path / "num.toml"
    sc.write_text('[sim]\nduration = "2s"\n[[node]]\nname = "0"\n[[node]]\nname = "1"\n'
                  '[[link]]\nbetween = ["0", "1"]\nrate = "1Mbps"\ndelay = "10ms"\n'
                  '[[flow]]\nfrom = "0"\nto = "1"\ntransport = "newreno"\napp = { kind = "bulk" }\n')
    r = tcplab("run", sc, "--out", tmp_path / "o", "--pcap", "node:1", "--pcap", "0", "-q")
    assert r.returncode == 0, r.stderr
    node, link = (tmp_path / "o" / "node-1.pcap").read_bytes(), (tmp_path / "o" / "link0-forward.pcap").read_bytes()
    assert len(node) > len(link) > 24
    r = tcplab("run", sc, "--out", tmp_path / "p", "--pcap", "1")
    assert r.returncode == 2 and "pcap[0].link" in r.stderr


def test_every_transport_and_option_from_the_cli(tmp_path):
    sets = [
        "sim.duration=10s",
        "flow[0].transport=tahoe", "flow[1].transport=reno", "flow[2].transport=sack",
        "flow[3].transport=vegas", "flow[3].vegas={alpha = 2, beta = 2}",
        "flow[4].ecn=true", "flow[4].eln=true",
        "flow[0].tcp={ack_thinning = true}", "flow[1].tcp={timestamps = true, initial_window = \"rfc3390\"}",
        "flow[2].tcp={delayed_ack = true, min_rto = \"1s\", window_bytes = 8000}",
        "flow[4].tcp={newreno = false, limited_transmit = false}",
        "link[7].queue={kind = \"dual-threshold\", soft = 10, hard = 30, hold = \"500ms\"}",
    ]
    args = [a for s in sets for a in ("--set", s)]
    r = tcplab("run", SCENARIOS / "dumbbell.toml", "--out", tmp_path, "-q", *args)
    assert r.returncode == 0, r.stderr
    flows = pd.read_csv(tmp_path / "flows.csv")
    assert list(flows.transport) == ["tahoe", "reno", "sack", "vegas", "newreno"]
    assert (flows.bytes_acked > 0).all()


def _closed_stdout(*args, unbuffered=False, **kw):
    """`tcplab ARGS` with standard output a pipe whose reader has already
    gone (as `tcplab ... | head -1` once head has its line), with Python's
    stdout buffered as usual or not (PYTHONUNBUFFERED: every print is a
    write, and fails at once)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([sys.executable, "-m", "tcplab", *map(str, args)], stdout=w, stderr=subprocess.PIPE,
                              text=True, env=env, **kw)
    finally:
        os.close(w)


@pytest.mark.parametrize("unbuffered", [False, True])
def test_a_closed_stdout_is_the_readers_choice(unbuffered, tmp_path):
    """`tcplab run x | head -1` printed "cannot write results: Broken pipe"
    and exited 1 although the results were written (with a buffered stdout,
    a traceback at exit and status 120). Now: quiet, status 0, results
    there; the same for validate and the help."""
    out = tmp_path / "o"
    r = _closed_stdout("run", SCENARIOS / "dumbbell.toml", "--set", "sim.duration=5s", "--out", out,
                       unbuffered=unbuffered)
    assert (r.returncode, r.stderr) == (0, "")
    assert (out / "flows.csv").stat().st_size > 0 and (out / "summary.json").exists()
    for args in (["validate", SCENARIOS / "dumbbell.toml"], ["--help"], ["run", "--help"]):
        r = _closed_stdout(*args, unbuffered=unbuffered)
        assert (r.returncode, r.stderr) == (0, ""), args


def test_head_of_a_pipeline_reads_the_first_line(tmp_path):
    """The shell pipeline itself, with pipefail: head's line, nothing on
    stderr, the pipeline's status 0 whichever side finishes first (whether
    tcplab writes after head has gone is a race here; the closed pipe above
    is the deterministic case)."""
    out = tmp_path / "o"
    cmd = (f"{sys.executable} -m tcplab run {SCENARIOS / 'dumbbell.toml'} --set sim.duration=5s --out {out} "
           "| head -1")
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.split() == ["flow", "transport", "throughput", "goodput", "rtx", "RTOs"]
    assert (out / "flows.csv").exists()


def test_sweep_and_plot_share_the_closed_stdout_handling(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(f'scenario = "{SCENARIOS / "dumbbell.toml"}"\nseeds = 1\nmetrics = ["throughput_bps"]\n'
                    'overrides = ["sim.duration=5s"]\n[grid]\n"link[7].error.rate" = [0.0, 0.02]\n')
    out = tmp_path / "sw"
    r = _closed_stdout("sweep", spec, "--jobs", "1", "--out", out)
    assert r.returncode == 0 and "error" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert (out / "summary.csv").exists()
    r = _closed_stdout("plot", out, "--x", "link[7].error.rate", "--y", "throughput_bps", "--out", tmp_path / "p.png")
    assert (r.returncode, r.stderr) == (0, "")
    assert (tmp_path / "p.png").stat().st_size > 0


def test_write_errors_still_fail_with_a_closed_stdout(tmp_path):
    """A closed stdout does not hide a failure to write the results: an
    unusable --out (exit 2) or a full disk (EFBIG from a file-size limit,
    exit 1) is still one line on stderr."""
    import resource

    (tmp_path / "afile").write_text("")
    r = _closed_stdout("run", SCENARIOS / "dumbbell.toml", "--out", tmp_path / "afile" / "sub")
    assert r.returncode == 2 and r.stderr.startswith("tcplab: error: --out ") and r.stderr.count("\n") == 1, r.stderr

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    r = _closed_stdout("run", SCENARIOS / "eln_wireless.toml", "--trace", "--set", "sim.duration=20s", "--out",
                       tmp_path / "full", preexec_fn=limit)
    assert r.returncode == 1 and r.stderr.startswith("tcplab: error: cannot write results") \
        and r.stderr.count("\n") == 1, r.stderr
