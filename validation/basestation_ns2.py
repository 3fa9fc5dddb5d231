"""The plain-TCP part of the `basestation` study in tcplab and ns-2.35 side
by side: mean throughput of the five flows and unfairness, for each variant
at a few error rates, averaged over seeds.

    python validation/basestation_ns2.py [--seeds 3] [--timeouts]
        [--variants vegas] [--rates 0.05,0.1] [--vegas-zero-window]

With --timeouts each row also gives the timeouts and retransmissions summed
over the flows and seeds, tcplab / ns-2. --vegas-zero-window runs tcplab's
Vegas with ns-2's window of 0 after a timeout (`tcp.vegas_zero_window`,
off in the ns2 profile; ns-2 always has it).

Snoop is not compared: ns-2.35 has it only as a LAN link layer (LL/LLSnoop)
over an 802.3 MAC, a different channel from the point-to-point wireless hop
of this study (docs/validation.md).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from tcplab.studies.basestation import scenario  # noqa: E402
from validation import ns2  # noqa: E402


def unfairness(values):
    return (max(values) - min(values)) / min(values) if min(values) > 0 else float("inf")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--timeouts", action="store_true", help="add timeouts and retransmissions (tcplab / ns-2)")
    ap.add_argument("--variants", default="tahoe,reno,newreno,vegas")
    ap.add_argument("--rates", default="0,0.001,0.01,0.05,0.1", help="error rates, comma-separated")
    ap.add_argument("--vegas-zero-window", action="store_true", help="tcplab's tcp.vegas_zero_window on")
    ap.add_argument("--tcp", action="append", default=[], metavar="KEY=VALUE",
                    help="a flow tcp key for tcplab only, to switch one rule (TOML value, e.g. tahoe_timeout_dupacks=false)")
    a = ap.parse_args()
    import tomllib
    extra = {k: v for item in a.tcp for k, v in tomllib.loads(item).items()}
    if a.vegas_zero_window:
        extra["vegas_zero_window"] = True
    if not ns2.available():
        print("ns-2 is not installed (apt-get install ns2)")
        return 1
    print(f"{'variant':<8} {'error %':>8} {'tcplab kb/s':>12} {'ns-2 kb/s':>10} {'diff':>7} {'':>9}"
          f"{'unfair tcplab':>13} {'unfair ns-2':>11}")
    for variant in a.variants.split(","):
        for rate in [float(r) for r in a.rates.split(",")]:
            ours, theirs, uo, ut = [], [], [], []
            counts = [0, 0, 0, 0]
            for seed in range(1, a.seeds + 1):
                sc = scenario(variant, "plain", rate, seed=seed).data
                ours_sc = sc
                if extra:
                    ours_sc = {**sc, "flow": [{**f, "tcp": {**(f.get("tcp") or {}), **extra}} for f in sc["flow"]]}
                flows = tcplab.run(ours_sc).columns("flows")
                thr = flows["throughput_bps"]
                ours.append(statistics.mean(thr))
                uo.append(unfairness(thr))
                nf = ns2.run(sc)["flows"].values()
                n = [f["throughput_bps"] for f in nf]
                counts[0] += sum(flows["timeouts"])
                counts[1] += sum(f["timeouts"] for f in nf)
                counts[2] += sum(flows["retransmits"])
                counts[3] += sum(f["retransmits"] for f in nf)
                theirs.append(statistics.mean(n))
                ut.append(unfairness(n))
            o, t = statistics.mean(ours), statistics.mean(theirs)
            # Standard error of the difference, from the per-seed differences.
            d = [x - y for x, y in zip(ours, theirs)]
            se = statistics.stdev(d) / len(d) ** 0.5 if len(d) > 1 else float("nan")
            print(f"{variant:<8} {rate * 100:>8.2f} {o / 1e3:12.1f} {t / 1e3:10.1f} {100 * (o - t) / t:+6.1f}% "
                  f"(se {100 * se / t:.1f}) "
                  f"{statistics.mean(uo):13.3f} {statistics.mean(ut):11.3f}"
                  + (f"   timeouts {counts[0]}/{counts[1]} rtx {counts[2]}/{counts[3]}" if a.timeouts else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
