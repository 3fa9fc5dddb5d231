"""TCP-AP beside NewReno on the multihop study's 802.11 chains (SPEC 9.3's
set-up: 250 m spacing, two-ray ground, 2 Mbit/s data, 1 Mbit/s basic rate,
RTS/CTS, 1460-byte segments, window 32; `multihop.scenario`), both with
timestamps (TCP-AP needs them; NewReno gets the same 12 bytes of header),
AODV or static routing, 100 s, several seeds; and the two-flow cases
where pacing is meant to matter most: two flows in opposite directions
on the chain, and a long and a short flow sharing its far end.

    python validation/tcp_ap_chain.py [--seeds 5] [--hops 1 2 4 7 8 16]

prints per case the mean over seeds (± standard error) of goodput
(kbit/s), TCP retransmissions and the MACs' link failures, and for the
two-flow cases each flow's goodput and Jain's fairness index. ns-2.35 has
no TCP-AP agent (the authors' is not part of it), so there is no peer run.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys

import tcplab
from tcplab.studies import multihop

VARIANTS = ("newreno", "tcp_ap")


def chain(hops: int, variant: str, seed: int, routing: str, flows: str = "one") -> tcplab.Scenario:
    """The multihop chain of `hops` hops; `flows`: "one" (n0 -> end),
    "opposite" (n0 -> end and end -> n0) or "long+short" (n0 -> end and
    the middle node -> end)."""
    sc = multihop.scenario(hops, "newreno", seed=seed, duration="100s")
    d = sc.data
    d["wireless"]["routing"] = routing
    if routing != "aodv":
        d["wireless"].pop("aodv", None)
    d.pop("output", None)
    base = d["flow"][0]
    end = f"n{hops}"
    pairs = {"one": [("n0", end)], "opposite": [("n0", end), (end, "n0")],
             "long+short": [("n0", end), (f"n{hops // 2}", end)]}[flows]
    d["flow"] = []
    for i, (a, b) in enumerate(pairs):
        f = dict(base, name=f"f{i}", **{"from": a, "to": b}, transport=variant, tcp={"timestamps": True})
        f["app"] = dict(base["app"], start=f"{multihop.START + 0.1 * i:g}s")
        d["flow"].append(f)
    return sc


def measure(sc: tcplab.Scenario) -> dict:
    r = tcplab.run(sc)
    f, n = r.flows, r.nodes
    good = [float(x) / 1e3 for x in f["goodput_bps"]]
    return {"goodput": sum(good), "flows": good, "retransmits": float(f["retransmits"].sum()),
            "link_failures": float(n["link_failures"].sum()),
            "jain": sum(good) ** 2 / (len(good) * sum(g * g for g in good)) if any(good) else math.nan}


def mean_se(v: list[float], digits: int = 0) -> str:
    se = statistics.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else math.nan
    return f"{statistics.fmean(v):.{digits}f} ± {se:.{digits}f}"


def one_flow(hops: list[int], seeds: int, routing: str) -> list[str]:
    out = [f"| hops ({routing}) | " + " | ".join(f"{v} goodput | {v} rtx | {v} link failures" for v in VARIANTS)
           + " |", "|---" * (1 + 3 * len(VARIANTS)) + "|"]
    for h in hops:
        cells = [str(h)]
        for v in VARIANTS:
            ms = [measure(chain(h, v, s, routing)) for s in range(1, seeds + 1)]
            cells += [mean_se([m["goodput"] for m in ms]), mean_se([m["retransmits"] for m in ms]),
                      mean_se([m["link_failures"] for m in ms])]
        out.append("| " + " | ".join(cells) + " |")
    return out


def two_flows(hops: int, seeds: int, routing: str) -> list[str]:
    out = ["| case | variant | flow 0 | flow 1 | total | Jain | rtx |", "|---" * 7 + "|"]
    for case in ("opposite", "long+short"):
        for v in VARIANTS:
            ms = [measure(chain(hops, v, s, routing, case)) for s in range(1, seeds + 1)]
            out.append(f"| {case}, {hops} hops, {routing} | {v} | " + " | ".join([
                mean_se([m["flows"][0] for m in ms]), mean_se([m["flows"][1] for m in ms]),
                mean_se([m["goodput"] for m in ms]), mean_se([m["jain"] for m in ms], 2),
                mean_se([m["retransmits"] for m in ms])]) + " |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--hops", type=int, nargs="+", default=[1, 2, 4, 7, 8, 16])
    ap.add_argument("--two-flow-hops", type=int, default=7)
    a = ap.parse_args(argv)
    if a.seeds < 1 or min(a.hops) < 1 or a.two_flow_hops < 2:
        ap.error("--seeds and --hops: at least 1; --two-flow-hops: at least 2")
    for routing in ("aodv", "static"):
        print(f"\none flow, 100 s, seeds 1-{a.seeds}: goodput kbit/s, retransmissions, link failures\n")
        print("\n".join(one_flow(a.hops, a.seeds, routing)))
    for routing in ("aodv", "static"):
        print(f"\ntwo flows, 100 s, seeds 1-{a.seeds}: goodput kbit/s\n")
        print("\n".join(two_flows(a.two_flow_hops, a.seeds, routing)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
