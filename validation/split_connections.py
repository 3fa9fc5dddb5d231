"""Split connections (I-TCP) beside end-to-end NewReno and Snoop on the
`basestation` study's network (`basestation.scenario(mechanism="split")`;
NewReno, ns2 profile, window 10, 100 s; uniform packet errors on the
2 Mbit/s hop both ways), one flow alone and the five flows together.

    python validation/split_connections.py [--seeds 10] [--flows 1 5]

prints, per error rate, the mean goodput per flow (kbit/s) over the seeds
with its standard error, for plain, Snoop, split with the default buffer
(two windows, 20 packets) and split with a 5-packet buffer. ns-2.35 has
no split-connection agent, so there is no peer run; docs/models.md
("Split connections") explains the numbers by mechanism.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys

import tcplab
from tcplab.studies import basestation

RATES = (0.0, 0.001, 0.01, 0.02, 0.05, 0.1)
#: (column, mechanism, split buffer in packets or None for the default)
CASES = (("plain", "plain", None), ("Snoop", "snoop", None),
         ("split (buffer 20)", "split", None), ("split (buffer 5)", "split", 5))


def scenario(mechanism: str, error_rate: float, seed: int, flows: int, buffer: int | None) -> tcplab.Scenario:
    sc = basestation.scenario("newreno", mechanism, error_rate, seed=seed)
    d = sc.data
    d["flow"] = d["flow"][:flows]
    for f in d["flow"]:
        if buffer:
            f["split"]["buffer"] = buffer
    return sc


def goodput(mechanism: str, error_rate: float, seed: int, flows: int, buffer: int | None) -> float:
    """Mean goodput per flow, kbit/s."""
    r = tcplab.run(scenario(mechanism, error_rate, seed, flows, buffer))
    return float(r.flows["goodput_bps"].mean()) / 1e3


def table(flows: int, seeds: int) -> list[str]:
    lines = ["| error rate | " + " | ".join(c[0] for c in CASES) + " |", "|---" * (len(CASES) + 1) + "|"]
    for rate in RATES:
        cells = [f"{rate * 100:g} %"]
        for _, mech, buf in CASES:
            v = [goodput(mech, rate, s, flows, buf) for s in range(1, seeds + 1)]
            se = statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else float("nan")
            cells.append(f"{statistics.fmean(v):.0f} ± {se:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--flows", type=int, nargs="+", default=[1, 5], choices=range(1, 6), metavar="N")
    a = ap.parse_args(argv)
    if a.seeds < 1:
        ap.error("--seeds: must be at least 1")
    for n in a.flows:
        print(f"\n{n} flow{'s' if n > 1 else ''}: mean goodput per flow, kbit/s (seeds 1-{a.seeds})\n")
        print("\n".join(table(n, a.seeds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
