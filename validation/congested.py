"""Congested cross-check of the `ns2` profile against ns-2.35 (issue 9).

The published dumbbell cross-check (compare_ns2.py) never congests: five
flows with a 20-packet window cannot fill a 50-packet queue. The cases here
do: several flows with different RTTs, two-way traffic, buffers of 3-10
packets, RED with and without ECN, Vegas against Reno, SACK and Reno at
several loss rates, and windows that lose several segments at once.

Every case is one parametrised dumbbell: flow i runs from s<i> through r1,
the bottleneck r1-r2 and r2 to d<i> (reverse flows from d<i> to s<i>).
Start times are drawn from the seed here, in Python, and handed to both
simulators, so runs without random loss are the same input for both; with
random loss each simulator draws its own losses and only the means over
seeds can agree.

    python validation/congested.py [--seeds 10] [--duration 60s] [--case NAME]

prints, per flow, the mean throughput over the seeds in tcplab and ns-2,
their difference in percent and its significance z = difference / standard
error of the difference. `run_case` is what tests/test_ns2_congested.py uses.
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation import ns2  # noqa: E402


def dumbbell(flows: list, *, seed: int, duration: str = "60s", rate: str = "1.5Mbps", delay: str = "20ms",
             queue: dict | None = None, loss: float = 0.0, window: int = 64, access_ms=None) -> dict:
    """`flows`: list of dicts with `transport` and optionally `reverse`,
    `ecn`; `access_ms`: one-way delay of each sender's access link."""
    rng = random.Random(seed)
    n = len(flows)
    access_ms = access_ms or [1] * n
    nodes = [{"name": "r1"}, {"name": "r2"}]
    links = []
    for i in range(n):
        nodes += [{"name": f"s{i}"}, {"name": f"d{i}"}]
        links.append({"between": [f"s{i}", "r1"], "rate": "100Mbps", "delay": f"{access_ms[i]}ms"})
        links.append({"between": ["r2", f"d{i}"], "rate": "100Mbps", "delay": "1ms"})
    bottleneck = {"between": ["r1", "r2"], "rate": rate, "delay": delay,
                  "queue": queue or {"kind": "droptail", "limit": 10}}
    if loss:
        bottleneck["error"] = {"kind": "uniform", "rate": loss}
    links.append(bottleneck)
    fl = []
    for i, f in enumerate(flows):
        a, b = (f"d{i}", f"s{i}") if f.get("reverse") else (f"s{i}", f"d{i}")
        fl.append({"name": f"f{i}", "transport": f["transport"], "from": a, "to": b, "window": window,
                   "ecn": bool(f.get("ecn")),
                   "app": {"kind": "bulk", "start": f"{rng.uniform(0, 2):.6f}s"}})
        if f.get("tcp"):
            fl[-1]["tcp"] = dict(f["tcp"])
    return {"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"}, "node": nodes, "link": links,
            "flow": fl}


def parking_lot(flows: list, *, seed: int, duration: str = "60s", queue: dict, window: int = 64) -> dict:
    """Two 1.5 Mbit/s, 10 ms bottlenecks in series, r1-r2 and r2-r3, each
    with `queue`: flow 0 crosses both (s0 -> r1 -> r2 -> r3 -> d0), flow 1
    the first only (s1 -> r1 -> r2 -> d1), flow 2 the second only (s2 ->
    r2 -> r3 -> d2). `flows`: the three flows' dicts, as for `dumbbell`."""
    rng = random.Random(seed)
    nodes = [{"name": n} for n in ("r1", "r2", "r3", "s0", "d0", "s1", "d1", "s2", "d2")]
    fast = {"rate": "100Mbps", "delay": "1ms"}
    links = [{"between": a, **fast} for a in (["s0", "r1"], ["r3", "d0"], ["s1", "r1"], ["r2", "d1"],
                                               ["s2", "r2"], ["r3", "d2"])]
    links += [{"between": a, "rate": "1.5Mbps", "delay": "10ms", "queue": dict(queue)}
              for a in (["r1", "r2"], ["r2", "r3"])]
    fl = [{"name": f"f{i}", "transport": f["transport"], "from": f"s{i}", "to": f"d{i}", "window": window,
           "ecn": bool(f.get("ecn")), "app": {"kind": "bulk", "start": f"{rng.uniform(0, 2):.6f}s"}}
          for i, f in enumerate(flows)]
    return {"sim": {"duration": duration, "seed": seed, "tcp_profile": "ns2"}, "node": nodes, "link": links,
            "flow": fl}


NR = {"transport": "newreno"}
#: Two ECN flows each way through RED queues that mark (ecn-two-way and its
#: twin off RED's idle-count knife edge, ecn-two-way-600).
ECN_TWO_WAY = [{"transport": "newreno", "ecn": True}] * 2 + [{"transport": "newreno", "ecn": True, "reverse": True}] * 2
ECN_TWO_WAY_RED = {"kind": "red", "min_th": 3, "max_th": 9, "limit": 20, "ecn": True}
CASES = {
    # Four NewReno flows, one-way delays 1 to 60 ms on the access links.
    "rtts": dict(flows=[NR] * 4, access_ms=[1, 10, 30, 60], queue={"kind": "droptail", "limit": 10}),
    # Two flows each way: data and ACKs share both directions' queues.
    "two-way": dict(flows=[NR, NR, {"transport": "newreno", "reverse": True},
                           {"transport": "newreno", "reverse": True}], queue={"kind": "droptail", "limit": 8}),
    # Tiny buffers: several losses per window.
    "sack-buffer3": dict(flows=[{"transport": "sack"}] * 3, queue={"kind": "droptail", "limit": 3}),
    "reno-buffer5": dict(flows=[{"transport": "reno"}] * 3, queue={"kind": "droptail", "limit": 5}),
    "newreno-buffer5": dict(flows=[NR] * 3, queue={"kind": "droptail", "limit": 5}),
    "tahoe-buffer6": dict(flows=[{"transport": "tahoe"}] * 3, queue={"kind": "droptail", "limit": 6}),
    # RED, without and with ECN (three ECN flows against one without).
    "red": dict(flows=[NR] * 5, queue={"kind": "red", "min_th": 5, "max_th": 15, "limit": 50}),
    "red-ecn": dict(flows=[{"transport": "newreno", "ecn": True}] * 3 + [NR],
                    queue={"kind": "red", "min_th": 5, "max_th": 15, "limit": 50, "ecn": True}),
    # ECN both ways: data and ECN-echoing ACKs share both RED queues (ECT
    # and CWR on retransmissions matter here: `ect_retransmits`).
    "ecn-two-way": dict(flows=ECN_TWO_WAY, queue=ECN_TWO_WAY_RED),
    # The same off RED's knife edge: with mean_pktsize 500 an ACK stream
    # clocked by 1040-byte data leaves the link idle for exactly 1000
    # bytes' time, two "mean packets", and RED's idle count int(ptc x idle)
    # is an exact integer that ns-2's floating point rounds to 1 or 2 by
    # noise (docs/validation.md, "ECN"); 600 keeps every such count away
    # from an integer.
    "ecn-two-way-600": dict(flows=ECN_TWO_WAY, queue={**ECN_TWO_WAY_RED, "mean_pktsize": 600}),
    # RED with ECN at max_p 0.5 and gentle off: an early drop of an ECT
    # packet is a mark only while p_b < mark_p (0.1), ns-2.35's rule.
    "ecn-maxp05": dict(flows=[{"transport": "newreno", "ecn": True}] * 6,
                       queue={"kind": "red", "min_th": 4, "max_th": 12, "limit": 25, "ecn": True,
                              "max_p": 0.5, "gentle": False}),
    # Vegas against Reno.
    "vegas-reno": dict(flows=[{"transport": "vegas"}, {"transport": "reno"}], queue={"kind": "droptail", "limit": 10}),
    # Random loss on an otherwise uncongested path.
    "sack-loss1": dict(flows=[{"transport": "sack"}] * 2, loss=0.01, queue={"kind": "droptail", "limit": 30}),
    "sack-loss3": dict(flows=[{"transport": "sack"}] * 2, loss=0.03, queue={"kind": "droptail", "limit": 30}),
    "reno-loss1": dict(flows=[{"transport": "reno"}] * 2, loss=0.01, queue={"kind": "droptail", "limit": 30}),
    "reno-loss3": dict(flows=[{"transport": "reno"}] * 2, loss=0.03, queue={"kind": "droptail", "limit": 30}),
    # Many flows: twenty NewReno flows share a 20-packet buffer (windows of
    # a few segments, timeouts common).
    "many-flows": dict(flows=[NR] * 20, queue={"kind": "droptail", "limit": 20}),
    # Delayed ACKs (ns-2's TCPSink/DelAck) through a small buffer.
    "delack-buffer5": dict(flows=[{"transport": "newreno", "tcp": {"delayed_ack": True}}] * 3,
                           queue={"kind": "droptail", "limit": 5}),
    # SACK both ways: data and ACKs share both queues.
    "sack-two-way": dict(flows=[{"transport": "sack"}, {"transport": "sack"},
                                {"transport": "sack", "reverse": True}, {"transport": "sack", "reverse": True}],
                         queue={"kind": "droptail", "limit": 8}),
    # DRR (ns-2's Queue/DRR) at the bottleneck: the four RTTs of `rtts`
    # with ns-2's quantum of 250 bytes and ten 1040-byte packets' worth of
    # buffer, overflow dropped from the fattest flow's head.
    "drr-rtts": dict(flows=[NR] * 4, access_ms=[1, 10, 30, 60], queue={"kind": "drr", "blimit": 10400}),
    # Two-way: each direction's DRR has data from one side and ACKs from
    # the other in buckets of their own.
    "drr-two-way": dict(flows=[NR, NR, {"transport": "newreno", "reverse": True},
                               {"transport": "newreno", "reverse": True}],
                        queue={"kind": "drr", "blimit": 8320, "quantum": 1040}),
    # Twelve sources into ns-2's ten buckets: sources hashed together
    # share a bucket (and its quantum), as in ns-2.
    "drr-collisions": dict(flows=[NR] * 12, queue={"kind": "drr", "blimit": 15600}),
    # SACK flows and random loss through DRR; Vegas against Reno (DRR
    # gives Vegas its share where drop-tail lets Reno's queue crowd it).
    "drr-sack-loss1": dict(flows=[{"transport": "sack"}] * 3, loss=0.01,
                           queue={"kind": "drr", "blimit": 20800, "quantum": 1040}),
    "drr-vegas-reno": dict(flows=[{"transport": "vegas"}, {"transport": "reno"}],
                           queue={"kind": "drr", "blimit": 10400}),
    # Two RED queues that mark, in series (a parking lot): flow 0's packets
    # marked at the first arrive CE at the second, which marks them again
    # rather than dropping them (ns-2's ect_ stays set beside ce_).
    "ecn-parking-lot": dict(topology=parking_lot, flows=[{"transport": "newreno", "ecn": True}] * 3,
                            queue={"kind": "red", "min_th": 3, "max_th": 9, "limit": 30, "ecn": True,
                                   "max_p": 0.2}),
}


def run_case(name: str, seeds: int = 10, duration: str = "60s", profile: str = "ns2", tcp: dict | None = None) -> dict:
    """Per flow: lists of throughputs (b/s) over the seeds in both
    simulators, and totals of retransmissions and timeouts. `profile` is
    tcplab's (ns-2 always runs its own algorithms)."""
    spec = dict(CASES[name])
    build = spec.pop("topology", dumbbell)
    out = {"tcplab": {}, "ns2": {}, "rtx": [0, 0], "timeouts": [0, 0], "per_seed": []}
    for seed in range(1, seeds + 1):
        sc = build(seed=seed, duration=duration, **spec)
        theirs = ns2.run(sc)["flows"]
        sc["sim"]["tcp_profile"] = profile
        if tcp:
            sc["tcp"] = dict(tcp)
        ours = tcplab.run(sc).columns("flows")
        out["per_seed"].append((sum(ours["retransmits"]), sum(theirs[n]["retransmits"] for n in ours["flow"]),
                                sum(ours["timeouts"]), sum(theirs[n]["timeouts"] for n in ours["flow"])))
        for i, name_ in enumerate(ours["flow"]):
            out["tcplab"].setdefault(name_, []).append(ours["throughput_bps"][i])
            out["ns2"].setdefault(name_, []).append(theirs[name_]["throughput_bps"])
            out["rtx"][0] += ours["retransmits"][i]
            out["rtx"][1] += theirs[name_]["retransmits"]
            out["timeouts"][0] += ours["timeouts"][i]
            out["timeouts"][1] += theirs[name_]["timeouts"]
    return out


def summarize(res: dict) -> list:
    """One row per flow: means, difference in percent, z."""
    rows = []
    for f, a in res["tcplab"].items():
        b = res["ns2"][f]
        ma, mb = statistics.mean(a), statistics.mean(b)
        n = len(a)
        se = math.sqrt((statistics.variance(a) if n > 1 else 0) / n + (statistics.variance(b) if n > 1 else 0) / n)
        diff = ma - mb
        rows.append({"flow": f, "tcplab_bps": ma, "ns2_bps": mb, "diff_pct": 100 * diff / mb if mb else math.nan,
                     "z": diff / se if se > 0 else (0.0 if diff == 0 else math.inf)})
    return rows


def total_se(per_seed: list) -> float:
    """The standard error of a total over seeds, from the spread between
    the seeds' values."""
    n = len(per_seed)
    return math.sqrt(n) * statistics.stdev(per_seed) if n > 1 else math.nan


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", default="60s")
    ap.add_argument("--case", action="append", choices=sorted(CASES), help="run only these cases")
    ap.add_argument("--spread", action="store_true",
                    help="also print, per case, the standard error of the retransmission and timeout totals from "
                         "the spread between seeds (tcplab/ns-2)")
    ap.add_argument("--profile", default="ns2", choices=["ns2", "rfc"], help="tcplab's TCP profile (default ns2)")
    ap.add_argument("--tcp", action="append", default=[], metavar="KEY=VALUE",
                    help="a [tcp] key for tcplab only, to switch one rule (TOML value, e.g. ecn_hold=false)")
    a = ap.parse_args()
    if not ns2.available():
        print("ns-2 is not installed (apt-get install ns2)")
        return 1
    print(f"{'case':<16} {'flow':<4} {'tcplab kb/s':>11} {'ns-2 kb/s':>10} {'diff':>7} {'z':>6}   rtx (tcplab/ns-2)  timeouts")
    for name in a.case or CASES:
        import tomllib
        tcp = {k: v for item in a.tcp for k, v in tomllib.loads(item).items()}
        res = run_case(name, a.seeds, a.duration, a.profile, tcp)
        for k, r in enumerate(summarize(res)):
            tail = f"   {res['rtx'][0]:6d}/{res['rtx'][1]:<6d}      {res['timeouts'][0]:4d}/{res['timeouts'][1]:<4d}" \
                if k == 0 else ""
            print(f"{name:<16} {r['flow']:<4} {r['tcplab_bps'] / 1e3:11.1f} {r['ns2_bps'] / 1e3:10.1f} "
                  f"{r['diff_pct']:+6.1f}% {r['z']:+6.1f}{tail}", flush=True)
        if a.spread:
            se = [total_se([s[k] for s in res["per_seed"]]) for k in range(4)]
            print(f"{name:<16} standard error of the totals: rtx {se[0]:.0f}/{se[1]:.0f}, "
                  f"timeouts {se[2]:.0f}/{se[3]:.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
