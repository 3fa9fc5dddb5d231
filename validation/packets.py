"""Packet-level comparison with ns-2.35 on deterministic scenarios: every
data segment's send time and number, tcplab against ns-2's queue trace at
the sender's first link.

    python validation/packets.py

compares the Fall & Floyd drop lists (one to four drops from a window, each
variant), single flows through a small buffer, Vegas with a drop list both
ways and three flows with delayed ACKs through a 5-packet buffer, and
prints the first difference of each (flow 0), if any. tests/test_ns2_packets.py asserts equality.

Numbers are ns-2's packet numbers: with the SYN (`tcp.syn`, on in the ns2
profile) packet 0 is the SYN and tcplab's byte sequence s is packet
s / MSS + 1. Times are compared to 1 ns (tcplab's clock) plus ns-2's
printed precision (6 decimals, so 1 us).
"""
from __future__ import annotations

import copy
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation import ns2  # noqa: E402
from validation.fall_floyd_ns2 import scenario as fall_floyd  # noqa: E402

TOLERANCE_S = 1.5e-6


def ns2_sends(sc: dict, i: int) -> list:
    """(time, packet number, size) of every packet flow `i` puts on its
    first link in ns-2."""
    f = sc["flow"][i]
    first = next(l["between"] for l in sc["link"] if f["from"] in l["between"])
    nxt = first[1] if first[0] == f["from"] else first[0]
    with tempfile.TemporaryDirectory() as d:
        tr = Path(d) / "q.tr"
        tcl = ns2.to_tcl(sc).replace(
            "$ns run", f'set tf [open "{tr}" w]\n$ns trace-queue $n({f["from"]}) $n({nxt}) $tf\n$ns run')
        (Path(d) / "s.tcl").write_text(tcl)
        subprocess.run(["ns", "s.tcl"], cwd=d, check=True, capture_output=True)
        out = []
        for line in tr.read_text().splitlines():
            p = line.split()
            if p[0] == "+" and p[4] == "tcp" and p[7] == str(i):
                out.append((float(p[1]), int(p[10]), int(p[5])))
        return out


def tcplab_sends(sc: dict, i: int, tcp: dict | None = None) -> list:
    """The same from tcplab's trace; `tcp`: extra [tcp] keys for tcplab only
    (to switch one rule)."""
    f = sc["flow"][i]
    mss = f.get("packet_size", 1000)
    sc = dict(sc, output={"trace": True})
    if tcp:
        sc["tcp"] = dict(tcp)
    t = tcplab.run(sc).trace
    rows = t[(t["flow"] == f.get("name", f"flow{i}")) & t["kind"].isin(["send", "retransmit"])]
    syn = ns2.syn_packet(sc, f)
    return [(float(r.time_s), (r.seq // mss + 1 if syn else r.seq // mss) if r.len > 0 else 0, int(r.len))
            for r in rows.itertuples()]


def first_difference(a: list, b: list):
    """Index and the two entries where the send lists first differ, or None."""
    for k, (x, y) in enumerate(zip(a, b)):
        if x[1] != y[1] or abs(x[0] - y[0]) > TOLERANCE_S:
            return k, x, y
    if len(a) != len(b):
        k = min(len(a), len(b))
        return k, a[k] if k < len(a) else None, b[k] if k < len(b) else None
    return None


def chain(variant: str, buffer: int, duration: str = "20s") -> dict:
    """One flow through a 1 Mbit/s, 30 ms bottleneck with a small DropTail
    buffer: deterministic, with congestion losses."""
    return {
        "sim": {"duration": duration},
        "node": [{"name": n} for n in ("s", "r", "k")],
        "link": [
            {"between": ["s", "r"], "rate": "10Mbps", "delay": "2ms"},
            {"between": ["r", "k"], "rate": "1Mbps", "delay": "30ms", "queue": {"kind": "droptail", "limit": buffer}},
        ],
        "flow": [{"name": "f", "from": "s", "to": "k", "transport": variant, "window": 40, "app": {"kind": "bulk"}}],
    }


def lossy_both_ways(variant: str, seed: int, rate: float = 0.1, duration: str = "30s",
                    zero_window: bool = False) -> dict:
    """One flow through a 2 Mbit/s, 4 ms link that drops the same i.i.d.
    list of packets (`rate`, drawn in Python from `seed`) in each direction,
    data and ACKs: deterministic, with losses both ways (the condition of
    the basestation study's lossy runs). `zero_window`: tcplab's Vegas with
    ns-2's window of 0 after a timeout (`tcp.vegas_zero_window`)."""
    rng = random.Random(seed)
    drops = [k for k in range(1, 20001) if rng.random() < rate]
    return {
        "sim": {"duration": duration},
        "node": [{"name": n} for n in ("s", "r", "k")],
        "link": [
            {"between": ["s", "r"], "rate": "10Mbps", "delay": "10ms"},
            {"between": ["r", "k"], "rate": "2Mbps", "delay": "4ms", "queue": {"kind": "droptail", "limit": 50},
             "error": {"kind": "pattern", "drop": drops, "direction": "both"}},
        ],
        "flow": [{"name": "f", "from": "s", "to": "k", "transport": variant, "window": 10, "packet_size": 1000,
                  "app": {"kind": "bulk"}, **({"tcp": {"vegas_zero_window": True}} if zero_window else {})}],
    }


#: Seeds of `lossy_both_ways` whose Vegas runs equal ns-2's to the end (of
#: seeds 1-10): with the ns2 profile as it is, and with ns-2's window of 0
#: after a timeout switched on as well (`vegas_zero_window`, off by
#: default). Seeds 2, 4, 6 and 10 part without it where ns-2's window falls
#: to 0; with it, seeds 2, 3, 7 and 8 part where Vegas's diff is exactly an
#: integer and the last bit of ns-2's floating-point clock decides it
#: (docs/validation.md, "Vegas with loss both ways").
LOSSY_VEGAS_SEEDS = (1, 5, 9)
LOSSY_VEGAS_ZERO_WINDOW_SEEDS = (1, 4, 5, 6, 9, 10)

FF = [("tahoe", "impatient"), ("reno", "impatient"), ("newreno", "impatient"), ("newreno", "slow-but-steady"),
      ("sack", "impatient"), ("vegas", "impatient")]


def cases():
    for variant, timer in FF:
        for drops in (1, 2, 3, 4):
            sc = fall_floyd(variant, drops, timer)
            if variant != "newreno":
                del sc["flow"][0]["tcp"]["newreno_timer"]
            yield f"fall-floyd {variant}{'/' + timer if variant == 'newreno' else ''} drops={drops}", sc
    for variant in ("tahoe", "reno", "newreno", "sack"):
        for buffer in (3, 6):
            yield f"chain {variant} buffer={buffer}", chain(variant, buffer)
    for seed in LOSSY_VEGAS_SEEDS:
        yield f"vegas 10 % loss both ways seed={seed}", lossy_both_ways("vegas", seed)
    for seed in LOSSY_VEGAS_ZERO_WINDOW_SEEDS:
        yield (f"vegas 10 % loss both ways seed={seed} zero window",
               lossy_both_ways("vegas", seed, zero_window=True))
    for seed in (1, 2, 3):
        yield f"congested delayed ACKs seed={seed}", delack_congested(seed)
    for seed in (1, 2):
        yield f"congested tahoe delayed ACKs seed={seed}", delack_congested(seed, "tahoe")
    for variant in ("tahoe", "reno", "newreno", "sack"):
        yield f"{variant} 3 % loss, 10 us ticks", pattern_loss(variant, seed=1)
    yield "congested rtts, 10 us ticks", rtts_fine_ticks(seed=1)
    for i in range(4):
        yield f"red-ecn on ns-2's generator, flow {i}", red_ecn_ns2_generator(i)


def split(sc: dict) -> tuple[dict, dict, int]:
    """A case's scenario for ns-2 and for tcplab and the flow compared:
    `_tcplab` holds [tcp] keys per flow index for tcplab only (ns-2 has no
    way to be given them, e.g. the tick phase it draws itself), `_flow` the
    flow (default 0)."""
    theirs = {k: v for k, v in sc.items() if not k.startswith("_")}
    ours = copy.deepcopy(theirs)
    for i, keys in sc.get("_tcplab", {}).items():
        ours["flow"][i].setdefault("tcp", {}).update(keys)
    return theirs, ours, sc.get("_flow", 0)


def ns2_boot_times(sc: dict, tick_ns: int) -> list[int]:
    """ns-2's tick phase (boot_time_) of each flow's TCP agent, in ns, for
    a run whose generator is seeded 1 (`sim.seed` 0, validation/ns2.py):
    every agent draws once when built and once when reset, and ns-2
    resets nodes in the hash order of its Node_ array (asked of ns
    itself), each node's agents in turn; the reset's draw is the phase."""
    names = [n["name"] for n in sc["node"]]
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "order.tcl"
        script.write_text(f"for {{set i 0}} {{$i < {len(names)}}} {{incr i}} {{ set Node_($i) x }}\n"
                          "puts [array names Node_]\n")
        order = [int(x) for x in subprocess.run(["ns", str(script)], capture_output=True, text=True,
                                                check=True).stdout.split()]
    reset = [i for node in order for i, f in enumerate(sc["flow"]) if names.index(f["from"]) == node]
    n = len(sc["flow"])
    g = ns2.default_draws(2 * n)
    return [round(tick_ns * g[n + reset.index(i)]) for i in range(n)]


def red_ecn_ns2_generator(flow: int, duration: str = "20s") -> dict:
    """validation/congested.py's `red-ecn` case (three ECN NewReno flows
    and one without through RED that marks) with RED's early drops and
    marks drawn from ns-2's own generator in tcplab (`generator = "ns2"`,
    after the four agents' eight draws), the generator seeded 1 on both
    sides, 10 us ticks with ns-2's phases: every random decision is ns-2's.
    20 s (later the 1 ns rounding of each serialisation adds up past the
    comparison's 1.5 us; with 50 us the four flows were identical for
    300 s, docs/validation.md)."""
    from validation.congested import CASES, dumbbell
    spec = dict(CASES["red-ecn"])
    n = len(spec["flows"])
    spec["flows"] = [dict(f, tcp=dict(f.get("tcp", {}), granularity="10us")) for f in spec["flows"]]
    spec["queue"] = dict(spec["queue"], generator="ns2", generator_skip=2 * n)
    sc = dumbbell(seed=0, duration=duration, **spec)
    # Without ns-2 the case cannot be compared (its tests are skipped);
    # its scenario is still built.
    phases = ns2_boot_times(sc, 10_000) if ns2.available() else [0] * n
    sc["_tcplab"] = {i: {"clock_phase": f"{p}ns"} for i, p in enumerate(phases)}
    sc["_flow"] = flow
    return sc


def rtts_fine_ticks(seed: int) -> dict:
    """validation/congested.py's `rtts` case (four NewReno flows, access
    delays 1-60 ms, 10-packet buffer) for 15 s with a 10 us RTO tick in
    both simulators (no random phase): deterministic, with NewReno
    recoveries whose partial ACKs retransmit below a timed segment (the
    `rtt_timing` rule; docs/validation.md)."""
    from validation.congested import CASES, dumbbell
    spec = dict(CASES["rtts"])
    spec["flows"] = [dict(f, tcp={"granularity": "10us"}) for f in spec["flows"]]
    return dumbbell(seed=seed, duration="15s", **spec)


def pattern_loss(variant: str, seed: int, rate: float = 0.03, duration: str = "20s") -> dict:
    """Two flows through validation/congested.py's dumbbell (30-packet
    buffer) whose bottleneck drops the same i.i.d. list of data packets
    (`rate`, drawn in Python from `seed`) in both simulators, with a 10 us
    RTO tick in both: with the tick's random phase (ns-2's boot_time_) out
    of the way, random loss is deterministic here too. (20 s: later the
    1 ns rounding of each 5546.67 us serialisation adds up to more than the
    comparison's 1.5 us; the packet numbers stay equal to 120 s.)"""
    from validation.congested import dumbbell
    rng = random.Random(seed)
    drops = [k for k in range(1, 200001) if rng.random() < rate]
    flows = [{"transport": variant, "tcp": {"granularity": "10us"}}] * 2
    sc = dumbbell(flows=flows, seed=seed, duration=duration, queue={"kind": "droptail", "limit": 30})
    sc["link"][-1]["error"] = {"kind": "pattern", "drop": drops, "direction": "forward"}
    return sc


def delack_congested(seed: int, variant: str = "newreno") -> dict:
    """validation/congested.py's `delack-buffer5` case for 20 s: three
    flows with delayed ACKs through a 5-packet buffer, start times from
    `seed`, no random loss. (Later, the 1 ns rounding of each 5546.67 us
    serialisation adds up to more than the comparison's 1.5 us.)"""
    from validation.congested import CASES, dumbbell
    spec = dict(CASES["delack-buffer5"])
    spec["flows"] = [dict(f, transport=variant) for f in spec["flows"]]
    return dumbbell(seed=seed, duration="20s", **spec)


#: Each ns-2 rule switched alone to the RFC's (the rfc profile's) value.
RULES = {"loss_window": "flight", "ecn_hold": False, "reno_careful": False, "recovery_exit": "rfc",
         "sack_recovery": "rfc6675", "sack_option": "rfc2018", "rtt_on_partial_ack": True,
         "rtt_estimator": "rfc6298", "syn": False, "vegas_rates": "paper", "vegas_send_times": "exact",
         "delack_sink": "rfc", "tahoe_timeout_dupacks": False, "rtt_timing": "karn",
         "cwnd_below_one": False}


def main() -> int:
    if not ns2.available():
        print("ns-2 is not installed (apt-get install ns2)")
        return 1
    if "--rules" in sys.argv:
        # How many cases stay identical with one rule switched to the RFC's.
        theirs = {name: ns2_sends(*split(sc)[0::2]) for name, sc in cases()}
        for key, value in RULES.items():
            same = sum(first_difference(tcplab_sends(*split(sc)[1:], {key: value}), theirs[name]) is None
                       for name, sc in cases())
            print(f"{key} = {value!r:<10} {same:3d} of {len(theirs)} cases identical")
        return 0
    for name, sc in cases():
        theirs, ours, i = split(sc)
        a, b = tcplab_sends(ours, i), ns2_sends(theirs, i)
        d = first_difference(a, b)
        print(f"{name:<40} {len(a):5d} sends  " + ("identical" if d is None else f"first difference at {d}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
