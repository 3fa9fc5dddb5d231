"""How long ns-2.35's DSDV takes to give the chain's end nodes a route,
hop by hop, from its own log (docs/validation.md, "ns-2's DSDV: why the
first route takes a minute").

    python validation/wifi_chain_ns2.py --routing dsdv --hops 2-7 --trace-dir DIR --dsdv-log
    python validation/dsdv_trace.py DIR/chain-dsdv-4h-s1.dsdv          # one run, hop by hop
    python validation/dsdv_trace.py --table DIR/chain-dsdv-*h-s*.dsdv  # first routes per hop count

The log is what DSDV_Agent writes with `verbose_ 1` and a trace target
(`--dsdv-log`): `VSD`/`VSU` for every route it takes, with the
`advertise_ok_at` it gives it (before that time the route is in no update,
not even a periodic full dump), `VPC` for each periodic dump, `VCT` for each
entry of a triggered update and `VBP` for each packet DSDV buffers for want
of a route. The source is node 0 and the destination node h.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

BIG = 250  # ns-2's infinite metric
ROUTE = re.compile(r"^VS([DU]) (\S+) _(\d+)_ \((\d+),(-?\d+)->(\d+),(-?\d+)->(\d+),(-?\d+)->(\d+),(\S+)\)")
DUMP = re.compile(r"^VPC (\S+) _(\d+)_")
BUFFERED = re.compile(r"^VBP (\S+) _(\d+)_ ")
HOPS = re.compile(r"-(\d+)h-s(\d+)\.dsdv$")


def read(path: Path) -> dict:
    """Routes taken (time, node, dst, metric, seq, next hop, advertise_ok_at),
    periodic dumps per node, packets buffered per node."""
    routes, dumps, buffered = [], defaultdict(list), defaultdict(list)
    with open(path, errors="replace") as f:
        for line in f:
            if m := ROUTE.match(line):
                _, t, node, dst, _, metric, _, seq, _, hop, ok = m.groups()
                routes.append((float(t), int(node), int(dst), int(metric), int(seq), int(hop), float(ok)))
            elif m := DUMP.match(line):
                dumps[int(m.group(2))].append(float(m.group(1)))
            elif m := BUFFERED.match(line):
                buffered[int(m.group(2))].append(float(m.group(1)))
    return {"routes": routes, "dumps": dumps, "buffered": buffered}


def first_route(log: dict, node: int, dst: int) -> float | None:
    return next((t for t, n, d, metric, *_ in log["routes"] if n == node and d == dst and metric < BIG), None)


def chain(log: dict, hops: int, dst: int) -> list[dict]:
    """Node by node from the destination's neighbour back to the other end
    (`dst` = hops: towards the destination; 0: back to the source): when it
    took its first route to `dst`, the advertise_ok_at of each route it took
    to `dst` until its upstream neighbour had one, and how many of its
    periodic dumps fell before the advertise_ok_at in force (the route left
    out of them)."""
    order = range(hops - 1, -1, -1) if dst == hops else range(1, hops + 1)
    out = []
    for node in order:
        up = node - 1 if dst == hops else node + 1
        learned = first_route(log, node, dst)
        end = not 0 <= up <= hops
        passed_on = None if end else first_route(log, up, dst)
        until = passed_on if passed_on is not None else float("inf")
        oks = [(t, ok) for t, n, d, metric, _, _, ok in log["routes"]
               if n == node and d == dst and metric < BIG and t <= until]
        withheld = None if end else 0
        for dump in [] if end else log["dumps"][node]:
            if learned is None or dump < learned or dump > until:
                continue
            in_force = [ok for t, ok in oks if t <= dump]
            if in_force and in_force[-1] > dump:
                withheld += 1
        out.append({"node": node, "learned": learned, "passed_on": passed_on,
                    "ok_at": [ok for _, ok in oks], "withheld": withheld})
    return out


def show_run(path: Path) -> None:
    m = HOPS.search(path.name)
    if not m:
        sys.exit(f"dsdv_trace: {path}: expected a name ending -<hops>h-s<seed>.dsdv")
    hops = int(m.group(1))
    log = read(path)
    for dst, what in ((hops, f"towards the destination (node {hops})"), (0, "back to the source (node 0)")):
        print(f"{path.name}: routes {what}")
        for r in chain(log, hops, dst):
            fmt = lambda t: "never" if t is None else f"{t:7.2f} s"  # noqa: E731
            oks = ", ".join(f"{t:.2f}" for t in r["ok_at"]) or "-"
            dumps = "" if r["withheld"] is None else f"; {r['withheld']} periodic dump(s) without it"
            print(f"  node {r['node']}: route at {fmt(r['learned'])}, advertise_ok_at {oks}{dumps}")
    src_buf = log["buffered"][0]
    first = first_route(log, 0, hops)
    held = [t for t in src_buf if first is None or t < first]
    print(f"  the source buffered {len(held)} packet(s) before its first route"
          + (f" (at {', '.join(f'{t:g}' for t in held)} s)" if held else ""))


def table(paths: list[Path]) -> None:
    runs = defaultdict(list)
    for p in paths:
        m = HOPS.search(p.name)
        if not m:
            sys.exit(f"dsdv_trace: {p}: expected a name ending -<hops>h-s<seed>.dsdv")
        hops = int(m.group(1))
        log = read(p)
        fwd, back = first_route(log, 0, hops), first_route(log, hops, 0)
        withheld = sum(r["withheld"] or 0 for r in chain(log, hops, hops))
        held = sum(1 for t in log["buffered"][0] if fwd is None or t < fwd)
        runs[hops].append((fwd, back, withheld, held))
    print("| hops | runs | source's first route to the destination (s) | destination's first route to the source (s) "
          "| dumps that left the route out, per run | packets the source buffered first |")
    print("|---|---|---|---|---|---|")
    for hops in sorted(runs):
        rs = runs[hops]
        def col(i: int) -> str:
            got = [r[i] for r in rs if r[i] is not None]
            never = len(rs) - len(got)
            s = ", ".join(f"{t:.1f}" for t in sorted(got))
            return s + (f" (never in {never})" if never else "")
        print(f"| {hops} | {len(rs)} | {col(0)} | {col(1)} | {statistics.mean(r[2] for r in rs):.1f} "
              f"| {statistics.mean(r[3] for r in rs):.1f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="one line per hop count over the logs given")
    ap.add_argument("logs", type=Path, nargs="+")
    a = ap.parse_args()
    missing = [p for p in a.logs if not p.is_file()]
    if missing:
        ap.error(f"no such log: {missing[0]}")
    if a.table:
        table(a.logs)
    else:
        for p in a.logs:
            show_run(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
