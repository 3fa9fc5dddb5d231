"""AODV's routing packets on the 802.11 chains of wifi_chain_ns2.py, by type
and by cause, from ns-2.35's router trace and from tcplab's AODV event log
(docs/validation.md, "2..32-hop chains with AODV and DSDV").

    python validation/wifi_chain_ns2.py --routing aodv --hops 16,30 --seeds 1 --trace-dir DIR
    python validation/aodv_trace.py ns2 DIR/chain-aodv-16h-s1.tr 16

tcplab's event log is a debugging patch, not part of the build:

    git apply validation/aodv_event_log.patch
    cargo build --release -p tcplab-core --example run_scenario
    python validation/aodv_trace.py toml 16 1 > chain16.toml
    (`toml 16 1 reception|cts|both`: with ns-2.35's MAC rules, [wireless.mac])
    TCPLAB_AODV_LOG=1 target/release/examples/run_scenario chain16.toml 2> t16.log
    python validation/aodv_trace.py tcplab t16.log 16
    git apply -R validation/aodv_event_log.patch

The MAC's side (why links fail, docs/validation.md), over seeds 1-3:

    python validation/wifi_chain_ns2.py --routing aodv --hops 16,30 --trace-dir DIR --mac-trace
    python validation/aodv_trace.py ns2mac 16 DIR/chain-aodv-16h-s{1,2,3}.tr
    (tcplab: the event logs t16-{1,2,3}.log as above, seeds 1-3 of `toml`)
    python validation/aodv_trace.py tcplabmac 16 t16-1.log t16-2.log t16-3.log

Local repairs (`--aodv-local-repair`; docs/validation.md, "With local
repair"): tcplab's, each with its outcome and, for a failed one, where its
request or reply stopped and why; ns-2.35's, from its router trace (who
received the repair's request, whose replies came back, whether recvReply
could take them, when the node next forwarded to the destination):

    python validation/aodv_trace.py toml 16 S lr > c16-S.toml   # seeds S = 1, 2, 3
    TCPLAB_AODV_LOG=1 target/release/examples/run_scenario c16-S.toml 2> t16-S.log
    python validation/aodv_trace.py tcplabrepair 16 t16-1.log t16-2.log t16-3.log
    python validation/wifi_chain_ns2.py --routing aodv --hops 16,30 --aodv-local-repair --trace-dir DIR
    python validation/aodv_trace.py ns2repair 16 DIR/chain-aodv-16h-s{1,2,3}.tr

`toml HOPS SEED ns2` writes the chain with `profile = "ns2"` (`dsr-ns2`:
the DSR chain). With ns-2.35's aodv.cc instrumented as
docs/validation.md describes ("An instrumented ns-2.35"), the decisions
of both, per run and per node:

    NS_AODV_LOG=1 ./ns chain.tcl 2> n8-S.log      # S = 1..20, wifi_chain_ns2.tcl()
    python validation/aodv_trace.py decisions n8-*.log -- t8-*.log

The patch also logs AODV's purges of lapsed routes (LAPSE), errors obeyed
(RERR_OBEY), ns-2-style local repairs and their timers (NLR_START,
LR_TIMER), and DSR's requests sent, passed on and heard (DSRQ, DSRQFWD, DSRQRECV), replies
made and received (DSRREPLY, DSRGOT), errors (DSRERR) and a source's
packets held and sent from its send buffer (DSRR, DSRS), and, at the MAC,
a routing broadcast lost because the receiver was already locked on
other frames, with their senders (BLOCK).

The patch also has experiments, off unless set in the environment:
TCPLAB_DEBUG_CTS_IGNORES_NAV=1 answers an RTS whatever the NAV (not
ns-2.35's rule: its CTS waits for an idle medium, NAV included, in
check_pktCTRL) and
TCPLAB_DEBUG_LR_NS2_SEQ=1 sends a local repair's request with the route's
sequence number not raised (as ns-2.35's local_rt_repair: any node with a
valid route answers).

The flow runs from node 0 to node HOPS, so TCP data go to HOPS and ACKs to
0. A link failure's packet has travelled `n` hops (data at node n) or
`HOPS - n` (an ACK at node n); ns-2.35 (AODV_LOCAL_REPAIR) repairs locally
when that exceeds the hops left, and brings the route down (route error to
the precursors, a new discovery at the source) otherwise.
"""
from __future__ import annotations

import bisect
import re
import sys
from collections import Counter, defaultdict

SEND_KINDS = ("RREQ_ORIG", "RREQ_FWD", "RREP_DST", "RREP_INT", "RREP_FWD", "RERR")


def ns2(path: str, hops: int) -> None:
    """Routing packets sent (`s` and `f` at RTR) by type and by whom the
    request or reply serves: the TCP sender (0), the receiver (HOPS) or an
    intermediate node (a local repair); route-down link failures (the MAC
    callback's drops, CBK, grouped by time and node) by packet type."""
    c: Counter = Counter()
    cbk = set()
    repair = []
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) < 7 or p[3] != "RTR":
            continue
        ev, t, node = p[0], float(p[1]), int(p[2].strip("_"))
        if ev == "D" and p[4] == "CBK":
            cbk.add((p[1], node, p[6]))
        if p[6] != "AODV" or ev not in ("s", "f"):
            continue
        kind = p[-1]
        if kind == "(REQUEST)":
            m = re.search(r"\[0x2 \d+ \d+ \[(\d+) \d+\] \[(\d+) \d+\]\]", line)
            dst, src = int(m.group(1)), int(m.group(2))
            who = "sender" if src == 0 else "receiver" if src == hops else "local repair"
            c[f"RREQ {who}"] += 1
            if src == node and ev == "s":
                c[f"RREQ originated {who}"] += 1
                if who == "local repair":
                    repair.append((t, node, dst))
        elif kind == "(REPLY)":
            to = int(re.search(r"------- \[\d+:\d+ (-?\d+):\d+", line).group(1))
            who = "sender" if to == 0 else "receiver" if to == hops else "local repair"
            c[f"RREP {who}"] += 1
            m = re.search(r"\[0x4 \d+ \[(\d+) \d+\]", line)
            if ev == "s" and int(m.group(1)) != node:
                c["RREP from an intermediate node"] += 1
        else:
            c["RERR"] += 1
    total = sum(v for k, v in c.items() if k.split()[0] in ("RREQ", "RREP", "RERR") and "originated" not in k
                and "intermediate" not in k)
    print(f"routing packets {total}")
    for k in sorted(c):
        print(f"  {k}: {c[k]}")
    print(f"route-down link failures {len(cbk)}: {dict(Counter(k[2] for k in cbk))}")
    # A local repair episode: a repair request more than 10 s after that
    # node's last one for the same destination.
    last: dict = {}
    episodes = 0
    for t, node, dst in repair:
        if (node, dst) not in last or t - last[(node, dst)] > 10.0:
            episodes += 1
        last[(node, dst)] = t
    print(f"local repair episodes {episodes} ({len(repair)} requests)")


def tcplab(path: str, hops: int) -> None:
    """The event log of aodv_event_log.patch: messages by type, link
    failures by packet and side, and every message sent attributed to the
    last link failure before it (side as ns-2's local-repair test)."""
    c: Counter = Counter()
    breaks = []
    events = []
    for line in open(path):
        p = line.split()
        t, node, ev = float(p[0]), int(p[1]), p[2]
        c[ev] += 1
        if ev == "MACFAIL":
            port = re.search(r"sport: (\d+)", line)
            if port is None:
                c["MACFAIL of a routing message"] += 1  # a reply or error sent to a neighbour
                continue
            kind = "ack" if int(port.group(1)) == 5001 else "data"
            travelled = hops - node if kind == "ack" else node
            breaks.append((t, kind, travelled > hops - travelled))
        elif ev == "RERR_RECV" and "onward=[]" not in line:
            c["RERR passed on"] += 1
        if ev in SEND_KINDS:
            events.append((t, ev))
    print(f"routing packets {sum(c[k] for k in SEND_KINDS)}")
    for k in sorted(c):
        print(f"  {k}: {c[k]}")
    far = sum(b[2] for b in breaks)
    print(f"link failures {len(breaks)}: data {sum(b[1] == 'data' for b in breaks)}, "
          f"ack {sum(b[1] == 'ack' for b in breaks)}; nearer the packet's destination {far}")
    times = [b[0] for b in breaks]
    cost: dict = {}
    for t, ev in events:
        i = bisect.bisect_right(times, t) - 1
        side = "before the first" if i < 0 else "nearer destination" if breaks[i][2] else "nearer source"
        cost.setdefault(side, Counter())[ev] += 1
    for side, v in cost.items():
        n = far if side == "nearer destination" else len(breaks) - far if side == "nearer source" else 0
        per = f", {sum(v.values()) / n:.0f} per failure" if n else ""
        print(f"  after failures {side}: {sum(v.values())}{per} {dict(v)}")


KIND = {0: "DATA", 1: "RTS", 2: "CTS", 3: "ACK"}
TWO_HOP_FIRST = "collision: a 2-hop frame sensed first (ns-2 locks on it)"


def ns2_air(typ: str, size: int, ra: int) -> float:
    """Air time of a frame in ns-2.35's trace (sizes include the 24-byte
    PLCP header, sent in 192 us): control and broadcast frames at the basic
    rate (1 Mbit/s), unicast data at 2 Mbit/s (ns-2.35's
    Mac802_11::sendDATA sets a broadcast's txtime at basicRate_, checked
    in its source)."""
    if typ in ("RTS", "CTS", "ACK") or ra == -1:
        return 192e-6 + (size - 24) * 8 / 1e6
    return 192e-6 + (size - 24) * 8 / 2e6


def ns2mac(path: str, hops: int):
    """ns-2.35's MAC trace (wifi_chain_ns2.py --mac-trace): the link
    failures (`D ... RET`: the RTS at the short retry limit, or the frame at
    the long one), and for every RTS what became of it at its receiver:
    answered (`r RTS` and the receiver's CTS a SIFS later), decoded but not
    answered (`r RTS` and no CTS: ns-2 sends the CTS only if the medium is
    idle then, NAV included, and drops it silently otherwise; see
    `cts_outcome`), refused (`D BSY`), destroyed (`D COL`;
    the frame that spoiled it is looked for among the transmissions of the
    stations within sensing range of the receiver: a neighbour of the
    receiver, or a frame from two hops that began first, which ns-2's
    Mac802_11::recv locks on) or not seen (the receiver transmitting).
    `[nb NAV set]`: answered while a frame of a neighbour of the receiver,
    addressed to another station, reserved the medium (the NAV rebuilt from
    the senders' frames; ns-2 does not log overheard frames). Offsets such
    as `DATA of -2` are from the receiver, positive toward the RTS's
    sender."""
    sends = []  # (t, node, type, size, ra, ta, duration)
    at = defaultdict(list)  # receiver -> [(t, ev, reason, type, ta)]
    rets = defaultdict(list)
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) < 11 or p[3] != "MAC":
            continue
        ev, t, node = p[0], float(p[1]), int(p[2].strip("_"))
        reason, typ, size = p[4], p[6], int(p[7])
        dur = int(p[8].lstrip("["), 16)
        ra = -1 if p[9] == "ffffffff" else int(p[9], 16)
        ta = int(p[10].rstrip("]"), 16)
        if ev == "s":
            sends.append((t, node, typ, size, ra, ta, dur))
        elif ev == "D" and reason == "RET":
            rets[(t, node)].append((typ, ra))
        else:
            at[node].append((t, ev, reason, typ, ta))
    stimes = [s[0] for s in sends]
    cts_sent = defaultdict(list)  # node -> [(t, ra)] of the CTSs it sent
    for s in sends:
        if s[2] == "CTS":
            cts_sent[s[1]].append((s[0], s[4]))

    def cts_outcome(tr: float, n: int, nb: int) -> str:
        """An RTS from n decoded by nb at tr (its `r` line): ns-2 queues a
        CTS (recvRTS looks at the transmit state and a pending control frame
        only) but sends it a SIFS later only if `is_idle()`: no frame being
        received (even one too weak to decode), not transmitting and the
        NAV clear (`check_pktCTRL`); otherwise the CTS is discarded, and
        silently (`discard` traces a CTS only at its addressee)."""
        sifs = 10e-6
        cs = cts_sent[nb]
        k = bisect.bisect_left(cs, (tr,))
        if k < len(cs) and cs[k][0] <= tr + sifs + 2e-6 and cs[k][1] == n:
            return "answered"
        at_cts = tr + sifs
        j = bisect.bisect_left(stimes, at_cts - 0.008)
        while j < len(sends) and sends[j][0] < at_cts:
            x = sends[j]
            if x[1] not in (nb, n) and abs(x[1] - nb) <= 2 and x[0] + ns2_air(x[2], x[3], x[4]) > at_cts:
                return "decoded, no CTS: a frame arriving at the CTS's time (ns-2's check_pktCTRL)"
            j += 1
        return "decoded, no CTS: NAV set or own exchange (ns-2's check_pktCTRL)"

    def frame_class(dur: int) -> str:
        # The RTS's duration field: a 1500-byte segment or a 40-byte ACK.
        return "data" if dur == 0x1B36 else "ack" if dur == 0x466 else "rt"

    def outcome(t: float, n: int, nb: int, air: float) -> tuple[str, bool]:
        evs = at[nb]
        i = bisect.bisect_right(evs, (t,))
        res = None
        while i < len(evs) and evs[i][0] <= t + air + 50e-6:
            _, ev, reason, typ, ta = evs[i]
            if typ == "RTS" and ta == n:
                res = {"r": "decoded"}.get(ev) or {"BSY": "refused BSY", "COL": "collision"}.get(reason, reason)
                break
            i += 1
        if res == "decoded":
            res = cts_outcome(evs[i][0], n, nb)
        # The transmissions within sensing range of nb (two hops) that
        # overlap the RTS: (hops from nb, began first, nb's own, label).
        sg = 1 if n > nb else -1
        j = bisect.bisect_left(stimes, t - 0.008)
        over = []
        while j < len(sends) and sends[j][0] < t + air:
            s = sends[j]
            if s[1] != n and abs(s[1] - nb) <= 2 and s[0] + ns2_air(s[2], s[3], s[4]) > t:
                name = s[2] if s[2] in ("RTS", "CTS", "ACK") else "DATA"
                over.append((abs(s[1] - nb), s[0] <= t, s[1] == nb, f"{name} of {sg * (s[1] - nb):+d}"))
            j += 1
        if res is None:
            res = ("not received: nb transmitting" if any(o[2] for o in over)
                   else "not received: silent (capture/error)")
        elif res == "collision":
            first = [o[3] for o in over if o[0] == 2 and o[1]]
            if any(o[0] == 1 and not o[2] for o in over):
                res = "collision: a 1-hop neighbour of nb (hidden from sender)"
            elif first:
                res = f"{TWO_HOP_FIRST}: {first[-1]}"
            elif any(o[0] == 2 for o in over):
                res = "collision: a 2-hop frame started during the RTS"
            else:
                res = "collision: other"
        # nb's NAV rebuilt: a neighbour's frame to another station that
        # ended before t with a duration reaching past t.
        navset = False
        j = bisect.bisect_left(stimes, t - 0.02)
        while j < len(sends) and sends[j][0] < t:
            s = sends[j]
            if abs(s[1] - nb) == 1 and s[1] != n and s[4] not in (nb, -1):
                end = s[0] + ns2_air(s[2], s[3], s[4])
                if end <= t < end + s[6] * 1e-6:
                    navset = True
            j += 1
        return res, navset

    def label(res: str, nav: bool) -> str:
        return res + (" [nb NAV set]" if nav and res == "answered" else "")

    fails: Counter = Counter()
    att: dict = defaultdict(Counter)
    allrts: dict = defaultdict(Counter)
    positions: Counter = Counter()
    rts_air = ns2_air("RTS", 44, 0)
    for (t, node), v in sorted(rets.items()):
        rts = any(x[0] == "RTS" for x in v)
        pk = [x for x in v if x[0] != "RTS"]
        if not pk:
            continue
        typ, nb = pk[0]
        c = "data" if typ == "tcp" else "ack" if typ == "ack" else "rt"
        fails[(c, "RTS limit" if rts else "data limit")] += 1
        positions[(c, node, nb)] += 1
        if rts:
            k = bisect.bisect_right(stimes, t)
            mine = [s for s in sends[max(0, k - 4000):k] if s[1] == node and s[2] == "RTS" and s[4] == nb][-7:]
            for s in mine:
                att[c][label(*outcome(s[0], node, nb, rts_air))] += 1
    for s in sends:
        if s[2] == "RTS":
            allrts[frame_class(s[6])][label(*outcome(s[0], s[1], s[4], rts_air))] += 1
    return fails, att, allrts, positions


def tcplabmac(path: str, hops: int):
    """The same from tcplab's event log (aodv_event_log.patch: RTSTX, RTSRX
    with the receiver's state and the frame that set its NAV, LOST, TIMEOUT).
    A NAV setter `CTS -1->-2` is a CTS sent by the receiver's neighbour on
    the far side from the RTS's sender to the node beyond it (offsets from
    the receiver, positive toward the sender)."""
    tx, at = [], defaultdict(list)
    fails: Counter = Counter()
    positions: Counter = Counter()
    failed = []
    for line in open(path):
        p = line.split()
        if len(p) < 3 or p[2] not in ("RTSTX", "RTSRX", "LOST", "TIMEOUT"):
            continue
        ev, t, node = p[2], float(p[0]), int(p[1])
        kv = dict(x.split("=", 1) for x in p[3:] if "=" in x and not x.startswith("navby"))
        if ev != "TIMEOUT":
            _note_rts(ev, t, node, kv, line, tx, at)
        elif kv["drop"] == "1":
            nb = int(re.search(r"to=Some\((\d+)\)", line).group(1))
            limit = "RTS limit" if p[3] == "cts" else "data limit"
            fails[(kv["f"], limit)] += 1
            positions[(kv["f"], node, nb)] += 1
            failed.append((t, node, nb, kv["f"], limit))

    def outcome(t: float, n: int, nb: int) -> str:
        evs = at[nb]
        i = bisect.bisect_right(evs, (t,))
        while i < len(evs) and evs[i][0] <= t + 0.0006:
            e = evs[i]
            if e[2] == n:
                if e[1] == "LOST":
                    return {"tx": "not received: nb transmitting", "hit": "collision at nb",
                            "locked": "not decoded: started during another sensed frame (ns2_reception)"
                            }.get(e[3], "too weak")
                if e[3] == "1":
                    return "answered"
                if e[4] != "Idle":
                    return f"refused: busy ({e[4].split('(')[0]})"
                k, a, b = e[6]
                sg = 1 if n > nb else -1
                return f"refused: NAV, set by {KIND[k]} {sg * (a - nb):+d}->{sg * (b - nb):+d}"
            i += 1
        return "none"

    att: dict = defaultdict(Counter)
    allrts: dict = defaultdict(Counter)
    times = [x[0] for x in tx]
    for (t, n, nb, f, limit) in failed:
        if limit == "RTS limit":
            k = bisect.bisect_right(times, t)
            for x in [x for x in tx[max(0, k - 3000):k] if x[1] == n and x[2] == nb][-7:]:
                att[f][outcome(x[0], n, nb)] += 1
    for (t, n, nb, f) in tx:
        allrts[f][outcome(t, n, nb)] += 1
    return fails, att, allrts, positions


def _note_rts(kind: str, t: float, node: int, kv: dict, line: str, tx: list, at: dict) -> None:
    """An RTS sent (RTSTX, into `tx`), received with its answer or refusal
    (RTSRX) or lost at its receiver (LOST, frames with k=1), into `at`."""
    if kind == "RTSTX":
        tx.append((t, node, int(kv["to"]), kv["f"]))
    elif kind == "RTSRX":
        by = tuple(map(int, re.search(r"navby=\((\d+), (\d+), (\d+)\)", line).groups()))
        at[node].append((t, "RX", int(kv["from"]), kv["ans"], kv["st"], int(kv["nav_us"]), by))
    elif kind == "LOST" and kv["k"] == "1":
        at[node].append((t, "LOST", int(kv["from"]), kv["why"], kv["st"], 0, None))


def _kv(p: list[str]) -> dict:
    return dict(x.split("=", 1) for x in p if "=" in x and "[" not in x and "]" not in x)


def tcplabrepair(path: str, hops: int, verbose: bool = False) -> Counter:
    """tcplab's local repairs (`local_repair = true`) and why each failed,
    from the event log of aodv_event_log.patch (LR_START/LR_OK/LR_FAIL,
    RREQ_RECV with the receiver's route, RREQ_FWD, RREP_*, CTX: an AODV
    frame put on the air, BLOST/HIT: a broadcast lost at a receiver in
    range and what hit it, MACFAIL, CDROP, and the RTS events of
    `tcplabmac`). Returns counts by cause and prints one line per failed
    repair with `verbose`."""
    ev = []
    for line in open(path):
        p = line.split()
        if len(p) < 3:
            continue
        ev.append((float(p[0]), int(p[1]), p[2], p[3:], line))
    # The RTS fates, as in tcplabmac, for the failure that started the
    # repair and for a reply's failures.
    fails = defaultdict(list)
    tx, at = [], defaultdict(list)
    for t, n, k, p, line in ev:
        _note_rts(k, t, n, _kv(p), line, tx, at)
    times = [x[0] for x in tx]

    def rts_fates(t: float, n: int, nb: int) -> Counter:
        c: Counter = Counter()
        i = bisect.bisect_right(times, t)
        for x in [x for x in tx[max(0, i - 3000):i] if x[1] == n and x[2] == nb][-7:]:
            evs = at[nb]
            j = bisect.bisect_right(evs, (x[0],))
            fate = "none"
            while j < len(evs) and evs[j][0] <= x[0] + 0.0006:
                e = evs[j]
                if e[2] == n:
                    if e[1] == "LOST":
                        fate = "collision at B" if e[3] == "hit" else f"lost at B ({e[3]})"
                    elif e[3] == "1":
                        fate = "answered"
                    elif e[4] != "Idle":
                        fate = "refused: B busy"
                    else:
                        kk, a, b = e[6]
                        sg = 1 if n > nb else -1
                        fate = f"NAV by {KIND[kk]} {sg * (a - nb):+d}->{sg * (b - nb):+d}"
                    break
                j += 1
            c[fate] += 1
        return c

    starts = [(i, e) for i, e in enumerate(ev) if e[2] == "LR_START"]
    causes: Counter = Counter()
    for i, (t0, r, _, p, _) in starts:
        kv = _kv(p)
        dst, rid, ttl = int(kv["dst"]), kv["id"], int(kv["ttl"])
        end, outcome = None, None
        for e in ev[i + 1:]:
            if e[1] == r and e[2] in ("LR_OK", "LR_FAIL") and _kv(e[3])["dst"] == str(dst):
                end, outcome = e[0], e[2]
                break
        if outcome is None:
            causes["unfinished at the end"] += 1
            continue
        step = -1 if dst < r else 1
        window = [e for e in ev[i:] if e[0] <= end + 1.0]
        mine = lambda e: _kv(e[3]).get("orig") == str(r) and _kv(e[3]).get("id", rid) == rid
        recv = {e[1]: e for e in window if e[2] == "RREQ_RECV" and e[0] <= end and mine(e) and _kv(e[3])["dup"] == "0"
                and (e[1] - r) * step > 0}
        # Would ns-2's rule (any valid route, sequence number not raised) have answered?
        ns2_ans = [n for n, e in recv.items() if "valid=1" in e[4]]
        # Did the trigger come from NAV refusals (tcplabmac's classification)?
        trig = rts_fates(t0, r, r + step)
        nav = sum(v for k, v in trig.items() if k.startswith("NAV by CTS"))
        trig_kind = ("NAV(CTS)" if nav >= 4 else "collision" if trig["collision at B"] >= 4
                     else "data unacknowledged (long limit)" if trig["answered"] == sum(trig.values()) else "mixed")
        causes[("trigger", outcome, trig_kind)] += 1
        causes[("request received by the neighbour toward the destination", outcome, (r + step) in recv)] += 1
        causes[("first receiver toward dst had a valid route (ns-2 would answer)", outcome,
                bool(recv.get(r + step)) and (r + step) in ns2_ans)] += 1
        if outcome == "LR_OK":
            continue
        # Where did the request stop?
        front = r
        while (front + step) in recv:
            front += step
        rreps = [e for e in window if e[2] in ("RREP_RECV", "RREP_FWD", "RREP_DST", "RREP_INT", "RREP_NOREV")
                 and _kv(e[3]).get("orig") == str(r)]
        if front == dst or any(e[2] == "RREP_INT" for e in rreps):
            # A reply was made: where did it stop?
            got = [e for e in rreps if e[2] == "RREP_RECV"]
            at_r = [e for e in got if e[1] == r]
            if at_r:
                cause = "reply arrived after the wait"
                desc = f"late by {1000 * (at_r[0][0] - end):.0f} ms"
            else:
                last = min([e[1] for e in got] + [dst], key=lambda n: abs(n - r))
                nxt = last - step
                mf = [e for e in ev if e[2] == "MACFAIL" and e[1] == last and t0 <= e[0] <= end + 1
                      and "Control" in e[4]]
                norev = [e for e in rreps if e[2] == "RREP_NOREV" and e[1] == last]
                if norev:
                    cause, desc = "reply dropped: no reverse route", f"at {last}"
                elif mf:
                    fates = rts_fates(mf[0][0], last, nxt)
                    cause = "reply lost: its RTSs unanswered 7 times"
                    when = "before" if mf[0][0] <= end else "after"
                    desc = f"{last}->{nxt} at {mf[0][0]:.3f} ({when} the wait), RTS fates {dict(fates)}"
                else:
                    cause, desc = "reply not through in the wait (queued or in flight)", f"last at {last}"
        else:
            nxt = front + step
            fwd = [e for e in window if e[2] == "RREQ_FWD" and e[1] == front and mine(e)]
            ttlend = [e for e in window if e[2] == "RREQ_TTLEND" and e[1] == front and mine(e)]
            uid = _kv(fwd[0][3])["uid"] if fwd else (kv["uid"] if front == r else None)
            ctx = [e for e in window if e[2] == "CTX" and e[1] == front and uid and _kv(e[3])["uid"] == uid]
            if ttlend:
                cause, desc = "request's TTL ran out", f"at {front}"
            elif not ctx or ctx[0][0] > end:
                cause, desc = "request not sent in the wait (queued)", f"at {front}"
            else:
                bl = [e for e in window if e[2] == "BLOST" and e[1] == nxt and _kv(e[3])["uid"] == uid]
                hit = [e for e in window if e[2] == "HIT" and e[1] == nxt and f"uid={uid}]" in e[4].split("by[")[0]]
                if bl and _kv(bl[0][3])["why"] == "tx":
                    cause, desc = "request lost: receiver transmitting", f"{front}->{nxt}"
                elif bl and _kv(bl[0][3])["why"] == "other" and not hit:
                    cause = "request not decoded: receiver locked on an earlier frame (ns2_reception)"
                    desc = f"{front}->{nxt}"
                elif bl:
                    by = re.search(r"by\[(\d+)->(-?\d+) k=(\d+) f=(\w+)", hit[0][4]) if hit else None
                    if by:
                        a, b, kk, fc = int(by.group(1)), int(by.group(2)), int(by.group(3)), by.group(4)
                        sg = -step  # offsets from the receiver, positive toward the request's sender
                        to = f"{sg * (b - nxt):+d}" if b >= 0 else "bcast"
                        rel = f"{KIND[kk]} {sg * (a - nxt):+d}->{to}"
                        cause = f"request lost: collision at the next node with {rel}"
                        earlier = " earlier" if "earlier" in hit[0][4] else ""
                        desc = f"{front}->{nxt}, by {a}->{b} {KIND[kk]} ({fc}){earlier}"
                        if KIND[kk] == "CTS":
                            # Did the CTS's sender decode the RTS it answers
                            # while it sensed the request (already on the air)?
                            rr = [e for e in window if e[2] == "RTSRX" and e[1] == a and _kv(e[3])["from"] == str(b)
                                  and ctx[0][0] <= e[0] <= hit[0][0]]
                            during = bool(rr) and int(_kv(rr[-1][3])["rxn"]) >= 2
                            cause += (", its RTS decoded during the request" if during
                                      else ", its RTS before the request")
                            desc += f"; the CTS's RTS reached {a} {'during' if during else 'before'} the request"
                    else:
                        cause, desc = "request lost: collision (interferer not logged)", f"{front}->{nxt}"
                else:
                    cause, desc = "request sent, not received, no loss logged", f"{front}->{nxt}"
        causes[("failed", cause)] += 1
        if verbose:
            print(f"{path} {t0:.3f} repair at {r} for {dst} (ttl {ttl}, trigger {trig_kind} {dict(trig)}): "
                  f"request reached {sorted(recv)}; ns-2-rule answerers {sorted(ns2_ans)}; {cause}: {desc}")
    return causes


def ns2repair(path: str, hops: int) -> Counter:
    """ns-2.35's local repairs from its router trace: each request an
    intermediate node originates (not node 0 or HOPS) and the replies that
    node receives within `wait` (its rt_req_timeout is at most 2 x TTL x
    NODE_TRAVERSAL_TIME, 1.8 s at TTL 30): which neighbour received the
    request and who answered, the neighbour toward the destination or one
    upstream (whose route goes through the repairing node)."""
    reqs, recv, replies = [], defaultdict(list), defaultdict(list)
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) < 7 or p[3] != "RTR" or p[6] != "AODV":
            continue
        ev, t, node = p[0], float(p[1]), int(p[2].strip("_"))
        if p[-1] == "(REQUEST)":
            m = re.search(r"\[0x2 \d+ (\d+) \[(\d+) \d+\] \[(\d+) \d+\]\]", line)
            rid, dst, src = int(m.group(1)), int(m.group(2)), int(m.group(3))
            if ev == "s" and src == node and src not in (0, hops):
                dseq = int(re.search(r"\[0x2 \d+ \d+ \[\d+ (\d+)\]", line).group(1))
                reqs.append((t, node, dst, rid, dseq))
            if ev == "r":
                recv[(src, rid)].append((t, node))
        elif p[-1] == "(REPLY)" and ev == "r":
            m = re.search(r"------- \[(\d+):\d+ (-?\d+):\d+", line)
            h = re.search(r"\[0x4 (\d+) \[\d+ (\d+)\]", line)
            if int(m.group(2)) == node:
                replies[node].append((t, int(m.group(1)), int(h.group(1)), int(h.group(2))))
    # When each node next forwards a packet to each destination: the
    # repaired route in use (a forward can follow an accepted reply or a
    # route the node learnt otherwise, e.g. from the destination's own
    # request).
    fwd = defaultdict(list)
    for line in open(path, errors="replace"):
        p = line.split()
        if len(p) > 14 and p[0] == "f" and p[3] == "RTR" and p[6] in ("tcp", "ack"):
            m = re.search(r"------- \[\d+:\d+ (\d+):\d+", line)
            fwd[(int(p[2].strip("_")), int(m.group(1)))].append(float(p[1]))
    c: Counter = Counter()
    wait = 1.8
    last: dict = {}
    for t, r, dst, rid, dseq in reqs:
        # The first request of an episode (as `ns2`: more than 10 s after
        # the node's last one for the destination), the others counted.
        first_of_episode = (r, dst) not in last or t - last[(r, dst)] > 10.0
        last[(r, dst)] = t
        c[("requests", "first of an episode" if first_of_episode else "later in an episode")] += 1
        if not first_of_episode:
            continue
        step = -1 if dst < r else 1
        nxt = [x for x in fwd[(r, dst)] if x > t]
        gap = nxt[0] - t if nxt else None
        c[("next forward to the destination after the request", "none" if gap is None else "within 1.8 s" if gap <= 1.8
           else "1.8-5 s" if gap <= 5 else "5-20 s" if gap <= 20 else "later")] += 1
        got = {n for (tt, n) in recv[(r, rid)] if tt <= t + wait}
        c[("request received by the neighbour toward the destination", (r + step) in got)] += 1
        rep = [(tt, n) for (tt, n, _, _) in replies[r] if t <= tt <= t + wait]
        # recvReply takes a reply only with a higher sequence number or the
        # same and fewer hops than the entry, which local_rt_repair leaves
        # as it was (hops to the destination, |r - dst| on the chain).
        for (tt, n, hc, sq) in replies[r]:
            if t <= tt <= t + wait and (n - r) * step > 0:
                c[("reply from the destination side vs the entry", "seq higher" if sq > dseq else
                   "same seq, fewer hops" if hc < abs(r - dst) else "same seq, not fewer hops (refused)")] += 1
        if not rep:
            c[("first reply", "none in the wait")] += 1
            continue
        first = rep[0][1]
        c[("first reply", "from the destination side" if (first - r) * step > 0 else "from upstream")] += 1
        c[("a reply from the destination side in the wait", any((n - r) * step > 0 for _, n in rep))] += 1
    return c


def ns2repair_report(hops: int, files: list[str]) -> None:
    C: Counter = Counter()
    for f in files:
        C.update(ns2repair(f, hops))
    for k, n in sorted(C.items(), key=lambda x: str(x[0])):
        print(f"{n:5d} {k}")


def repair_report(hops: int, files: list[str]) -> None:
    C: Counter = Counter()
    for f in files:
        C.update(tcplabrepair(f, hops, verbose=True))
    for k, n in sorted(C.items(), key=lambda x: str(x[0])):
        print(f"{n:5d} {k}")


def mac_report(which: str, hops: int, files: list[str]) -> None:
    """Link failures by frame and limit, and the RTS outcomes at the
    receiver, summed over the files (one per seed)."""
    F, A, R, P = Counter(), defaultdict(Counter), defaultdict(Counter), Counter()
    for f in files:
        fa, at, al, po = (ns2mac if which == "ns2mac" else tcplabmac)(f, hops)
        F.update(fa)
        P.update(po)
        for k, v in at.items():
            A[k].update(v)
        for k, v in al.items():
            R[k].update(v)
    print("link failures", dict(F))
    for c, v in A.items():
        print(f"RTSs of the failures at the short retry limit, {c}: {sum(v.values())}")
        for k, n in v.most_common():
            print(f"    {n:5d} {k}")
    for c, v in R.items():
        tot = sum(v.values())
        print(f"all RTSs, {c}: {tot}")
        for k, n in v.most_common(12):
            print(f"    {n:6d} {100 * n / tot:5.1f}% {k}")
    print("failures by (frame, sender, receiver):", sorted(P.items(), key=lambda x: -x[1])[:25])


def toml(hops: int, seed: int, local_repair: bool = False, mac: str = "", routing: str = "aodv",
         profile: str = "standard") -> None:
    """wifi_chain_ns2.py's AODV chain as a scenario file (100 s measured);
    `local_repair`: its `--aodv-local-repair`; `mac`: ns-2.35's MAC rules
    ("reception", "cts" or "both": `[wireless.mac] ns2_reception`, `ns2_cts`);
    `routing` and `profile`: `[wireless] routing` and `profile`."""
    print(f'[sim]\nduration = "101s"\nseed = {seed}\n[wireless]\npropagation = "two_ray_ground"\n'
          f'data_rate = "2Mbps"\nbasic_rate = "1Mbps"\nrts_threshold = 0\nrouting = "{routing}"\n'
          f'profile = "{profile}"\nifq = {{ kind = "priqueue", limit = 50 }}')
    if mac:
        print(f'mac = {{ ns2_reception = {str(mac in ("reception", "both")).lower()}, '
              f'ns2_cts = {str(mac in ("cts", "both")).lower()} }}')
    if local_repair:
        print('[wireless.aodv]\nlocal_repair = true')
    for i in range(hops + 1):
        print(f'[[node]]\nname = "n{i}"\nposition = [{250.0 * i}, 0.0]')
    print(f'[[flow]]\nname = "chain"\nfrom = "n0"\nto = "n{hops}"\ntransport = "newreno"\npacket_size = 1460\n'
          'window = 32\napp = { kind = "bulk", start = 1.0 }')


# The decisions both logs name, and how each writes them: ns-2.35's
# aodv.cc instrumented as docs/validation.md describes ("An instrumented
# ns-2.35") prints `time node NAME key=value ...`, as the patch does.
DECISIONS = [
    ("requests sent", {"RREQ_ORIG"}, {"RREQ_ORIG"}),
    ("discoveries given up", {"GIVEUP"}, {"GIVEUP"}),
    ("local repairs (ns-2's)", {"LR_START"}, {"NLR_START"}),
    ("repair timers", {"LR_TIMER"}, {"LR_TIMER"}),
    ("routes lapsed at a purge", {"LAPSE"}, {"LAPSE"}),
    ("route errors obeyed", {"RERR_OBEY"}, {"RERR_OBEY"}),
    ("relay drops for want of a route", {"NOROUTE"}, {"NOROUTE"}),
]


def decisions(ns2_logs: list[str], tcplab_logs: list[str]) -> None:
    """AODV's decisions counted in ns-2.35's instrumented log and in the
    patch's log, per run and per node: which steps one simulator takes more
    often than the other (docs/validation.md, "An instrumented ns-2.35")."""
    def count(files: list[str], names_of) -> Counter:
        c: Counter = Counter()
        for f in files:
            for line in open(f, errors="replace"):
                p = line.split()
                if len(p) < 3:
                    continue
                for label, ns2_names, tcplab_names in DECISIONS:
                    if p[2] in names_of(ns2_names, tcplab_names):
                        c[(label, p[1])] += 1
                        c[(label, "all")] += 1
                if p[2] in ("RREP_TAKEN", "RREP_REFUSED") or (p[2] == "RREP_RECV" and "took=" in line):
                    taken = p[2] == "RREP_TAKEN" or "took=1" in line
                    c[("replies " + ("taken" if taken else "refused"), "all")] += 1
        return c
    ours = count(tcplab_logs, lambda n, t: t)
    theirs = count(ns2_logs, lambda n, t: n)
    runs_n, runs_t = max(len(ns2_logs), 1), max(len(tcplab_logs), 1)
    print(f"per run ({len(ns2_logs)} ns-2.35 logs, {len(tcplab_logs)} tcplab logs): ns-2.35 / tcplab")
    for label in [d[0] for d in DECISIONS] + ["replies taken", "replies refused"]:
        nodes = sorted({k[1] for k in set(ours) | set(theirs) if k[0] == label and k[1] != "all"}, key=int)
        per_node = ", ".join(f"{n}: {theirs[(label, n)] / runs_n:.1f} / {ours[(label, n)] / runs_t:.1f}"
                             for n in nodes)
        print(f"  {label}: {theirs[(label, 'all')] / runs_n:.1f} / {ours[(label, 'all')] / runs_t:.1f}"
              + (f"  (node {per_node})" if per_node else ""))


if __name__ == "__main__":
    if len(sys.argv) >= 5 and sys.argv[1] == "decisions" and "--" in sys.argv:
        cut = sys.argv.index("--")
        decisions(sys.argv[2:cut], sys.argv[cut + 1:])
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == "toml" and sys.argv[4] in ("ns2", "dsr-ns2"):
        toml(int(sys.argv[2]), int(sys.argv[3]), routing="dsr" if sys.argv[4] == "dsr-ns2" else "aodv",
             profile="ns2")
        sys.exit(0)
    if len(sys.argv) >= 4 and sys.argv[1] == "ns2repair":
        ns2repair_report(int(sys.argv[2]), sys.argv[3:])
        sys.exit(0)
    if len(sys.argv) >= 4 and sys.argv[1] == "tcplabrepair":
        repair_report(int(sys.argv[2]), sys.argv[3:])
        sys.exit(0)
    if len(sys.argv) >= 4 and sys.argv[1] in ("ns2mac", "tcplabmac"):
        mac_report(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == "toml" and sys.argv[4] == "lr":
        toml(int(sys.argv[2]), int(sys.argv[3]), local_repair=True)
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == "toml" and sys.argv[4] in ("reception", "cts", "both"):
        toml(int(sys.argv[2]), int(sys.argv[3]), mac=sys.argv[4])
        sys.exit(0)
    if len(sys.argv) != 4 or sys.argv[1] not in ("ns2", "tcplab", "toml"):
        sys.exit(__doc__)
    what, a, b = sys.argv[1:]
    if what == "toml":
        toml(int(a), int(b))
    else:
        {"ns2": ns2, "tcplab": tcplab}[what](a, int(b))
