"""Store golden outputs for the core: every example scenario, a few variants
of the 802.11 ones (each routing protocol, shadowing), and every run of
both studies' quick modes, as the scenario JSON the binding hands to the core
plus the outputs it produced. `crates/tcplab-core/tests/golden.rs` re-runs
each case and demands byte-identical flows/links tables and identical digests
of the trace, series, queue and pcap outputs.

    python scripts/make_golden.py        # (re)write crates/tcplab-core/tests/golden/
    python scripts/make_golden.py --rerecord NAME...   # only these stored cases

`--rerecord` runs the named cases' stored scenarios again and rewrites only
their expected outputs (the study cases were recorded from the quick modes
of their day, which have since grown; re-recording everything would rename
and add cases).

Run it only to record an intended change of results, in its own commit that
says which numbers moved and why.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "crates" / "tcplab-core" / "tests" / "golden"

import tcplab  # noqa: E402
import importlib  # noqa: E402

from tcplab import _core  # noqa: E402
from tcplab.scenario import set_value  # noqa: E402

# The module (the package exports a function of the same name).
sweep = importlib.import_module("tcplab.sweep")


#: (example scenario, key, value): extra cases (see main).
VARIANTS = [
    ("aodv-chain", "wireless.routing", "dsr"),
    ("aodv-chain", "wireless.routing", "olsr"),
    ("aodv-chain", "wireless.routing", "dsdv"),
    ("wifi-chain", "wireless.propagation", "shadowing"),
    # The example's FQ-CoDel bottleneck as ns-2's DRR and as Linux's CoDel.
    ("fair-queueing", "link[4].queue.kind", "drr"),
    ("fair-queueing", "link[4].queue.kind", "codel"),
]


def digest(text: str | bytes) -> str:
    if isinstance(text, str):
        text = text.encode()
    return hashlib.sha256(text).hexdigest()


def case_json(data: dict, trace: bool, sample: str | None) -> str:
    data = json.loads(json.dumps(data))
    out = data.setdefault("output", {})
    out["trace"] = trace
    if sample:
        out["sample_interval"] = sample
    return json.dumps(data, sort_keys=True)


def record(name: str, text: str) -> None:
    res = _core.run_json(text)
    (OUT / "cases" / f"{name}.json").write_text(text + "\n")
    expect = {
        "flows": res["flows"]["csv"],
        "links": res["links"]["csv"],
        "trace_sha256": digest(res["trace"]["csv"]),
        "series_sha256": digest(res["series"]["csv"]),
        "queues_sha256": digest(res["queues"]["csv"]),
        "pcaps_sha256": {k: digest(bytes(v)) for k, v in sorted(res["pcaps"].items())},
    }
    # 802.11 scenarios: their per-node MAC table too (absent elsewhere, so
    # the wired cases' files stay as they were).
    if any(res["nodes"]["columns"].values()):
        expect["nodes"] = res["nodes"]["csv"]
    (OUT / "cases" / f"{name}.expect.json").write_text(json.dumps(expect, indent=1, sort_keys=True) + "\n")


def study_texts(study: str) -> list[str]:
    """Scenario texts of a study's quick mode, collected in this process as
    its sweeps plan their runs (the runs themselves go to worker processes),
    in a fixed order (sorted) so re-recording names the same cases."""
    texts: list[str] = []
    orig = sweep.Sweep._scenario_text

    def spy(self, params: dict, seed: int) -> str:
        text = orig(self, params, seed)
        texts.append(text)
        return text

    sweep.Sweep._scenario_text = spy
    try:
        with tempfile.TemporaryDirectory() as tmp:
            mod = __import__(f"tcplab.studies.{study}", fromlist=["run"])
            mod.run(out=tmp, quick=True, jobs=1)
    finally:
        sweep.Sweep._scenario_text = orig
    return sorted(set(texts))


def study_cases() -> list[tuple[str, str]]:
    """One scenario of each 802.11 study, as its sweep would hand it over."""
    from tcplab.studies import multihop, routing, wifibs

    cases = {
        "multihop-vegas2-thin-7": multihop.scenario(7, "vegas2+thin", duration="30s"),
        "routing-string-dsdv-newreno-3": routing.scenario("dsdv", "newreno", 3, duration="60s"),
        "routing-mobile-aodv-newreno-0": routing.mobile_scenario("aodv", "newreno", 0, duration="60s"),
        "wifibs-e-newreno-bi-snoop": wifibs.scenario("e-newreno", "bi", True, 0.05, duration=30.0),
    }
    return [(name, json.dumps(json.loads(sc.checked_json()), sort_keys=True)) for name, sc in cases.items()]


def rerecord(names: list[str]) -> int:
    for name in names:
        path = OUT / "cases" / f"{name}.json"
        if not path.is_file():
            print(f"make_golden.py: --rerecord: no stored case {name!r}", file=sys.stderr)
            return 2
    for name in names:
        record(name, (OUT / "cases" / f"{name}.json").read_text().rstrip("\n"))
    print(f"{len(names)} golden cases re-recorded")
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--rerecord"]:
        return rerecord(sys.argv[2:])
    if sys.argv[1:]:
        # Anything else would be ignored and every case rewritten.
        print(f"make_golden.py: unknown arguments {sys.argv[1:]}: use none (rewrite all) "
              "or --rerecord NAME...", file=sys.stderr)
        return 2
    if (OUT / "cases").exists():
        shutil.rmtree(OUT / "cases")
    (OUT / "cases").mkdir(parents=True)
    n = 0
    for path in sorted((ROOT / "scenarios").glob("*.toml")):
        data = tcplab.load_scenario(path).data
        # Captures on one link direction and at the first flow's source.
        # (radio-only scenarios have no link to capture on).
        data["pcap"] = [{"link": 0, "direction": "reverse"}] if data.get("link") else []
        data["pcap"].append({"node": data["flow"][0]["from"]})
        record(f"scenario-{path.stem}", case_json(data, trace=True, sample="100ms"))
        n += 1
    # The routing protocols and shadowing over 802.11, which no example
    # scenario covers on its own: the AODV chain with each other protocol,
    # the static chain with log-normal shadowing; and the other fair queues.
    for base, key, value in VARIANTS:
        data = tcplab.load_scenario(ROOT / "scenarios" / f"{base}.toml").data
        set_value(data, key, value)
        if key == "wireless.routing":
            data["wireless"].pop("aodv", None)  # AODV's own table goes with it
        data["pcap"] = [{"node": data["flow"][0]["from"]}]
        record(f"variant-{base}-{value}", case_json(data, trace=True, sample="100ms"))
        n += 1
    for study in ("basestation", "gsmlink"):
        for i, text in enumerate(study_texts(study)):
            data = json.loads(text)
            record(f"{study}-{i:03d}", case_json(data, trace=True, sample=None))
            n += 1
    # One run of each 802.11 study (their quick modes are hundreds of runs).
    for name, text in study_cases():
        record(name, text)
        n += 1
    print(f"{n} golden cases in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
