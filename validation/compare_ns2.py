"""Cross-check tcplab against ns-2.35 on the five-flow dumbbell for each
Reno-family variant and several loss rates; prints both throughputs.

    python validation/compare_ns2.py [--seeds 5] [--duration 100s]

Mean throughput over the five flows and over seeds is compared (single flows
differ run to run because the two simulators draw different random losses).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation import ns2  # noqa: E402

SCENARIO = ROOT / "scenarios" / "dumbbell.toml"


def dumbbell(variant: str, loss: float, seed: int, duration: str, delayed_ack: bool = False) -> dict:
    sc = tomllib.loads(SCENARIO.read_text())
    sc["sim"].update(seed=seed, duration=duration)
    sc["link"][7]["error"]["rate"] = loss
    for f in sc["flow"]:
        f["transport"] = variant
        if delayed_ack:
            f["tcp"] = {"delayed_ack": True}
    return sc


def compare(variant: str, loss: float, seeds: int, duration: str, delayed_ack: bool = False) -> dict:
    ours, theirs, rtx_ours, rtx_theirs = [], [], [], []
    for seed in range(1, seeds + 1):
        sc = dumbbell(variant, loss, seed, duration, delayed_ack)
        r = tcplab.run(sc).columns("flows")
        ours.append(statistics.mean(r["throughput_bps"]))
        rtx_ours.append(sum(r["retransmits"]))
        n = ns2.run(sc)["flows"]
        theirs.append(statistics.mean(f["throughput_bps"] for f in n.values()))
        rtx_theirs.append(sum(f["retransmits"] for f in n.values()))
    return {
        "variant": variant, "loss": loss, "delayed_ack": delayed_ack,
        "tcplab_bps": statistics.mean(ours), "ns2_bps": statistics.mean(theirs),
        "tcplab_rtx": statistics.mean(rtx_ours), "ns2_rtx": statistics.mean(rtx_theirs),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", default="100s")
    a = ap.parse_args()
    if not ns2.available():
        print("ns-2 is not installed (apt-get install ns2)")
        return 1
    print(f"{'variant':<8} {'loss':>6} {'delack':>6} {'tcplab kb/s':>12} {'ns-2 kb/s':>10} {'diff':>7} "
          f"{'rtx tcplab':>11} {'rtx ns-2':>9}")
    for variant in ["tahoe", "reno", "newreno", "sack", "vegas"]:
        for loss in [0.0, 0.001, 0.01, 0.05]:
            for delack in [False, True]:
                c = compare(variant, loss, a.seeds, a.duration, delack)
                d = 100 * (c["tcplab_bps"] - c["ns2_bps"]) / c["ns2_bps"]
                print(f"{variant:<8} {loss:>6.3f} {str(delack):>6} {c['tcplab_bps'] / 1e3:12.1f} "
                      f"{c['ns2_bps'] / 1e3:10.1f} {d:+6.1f}% {c['tcplab_rtx']:11.0f} {c['ns2_rtx']:9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
