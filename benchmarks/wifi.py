"""Speed benchmark for the 802.11 model: the 7-hop chain with one NewReno
flow for 100 s (scenarios/wifi-chain.toml's setting, 8 nodes, static
routing) in tcplab and, when installed, ns-2.35 running the same static
chain (benchmarks/ns2/static_route.cc loaded into ns: ns-2.35 has no
multi-hop static routing of its own; built on first use by
benchmarks/ns2/build_static_route.sh, else ns-2's AODV chain stands in and
the output says so); the same chain with AODV on both sides for 250 s (the
ad hoc routing issue's run); and static grids of growing size with the
same traffic density, and one of them again among three times as many
isolated stations 1000 km away (more nodes, the same neighbourhoods), to
show that the cost of a transmission depends on the neighbourhood, not on
the number of nodes. Each chain runs with tcplab's standard rules and with
`[wireless] profile = "ns2"` (ns-2.35's MAC and routing rules: the run
closest to ns-2's own, moving about as much data). With `--seeds N` the
AODV chain also runs over seeds 1..N in both simulators and the totals are
compared: one seed is not the same run in the two.

    python benchmarks/wifi.py [--repeats 5] [--grids 50,200,800] [--isolated 200] [--seeds 10]

tcplab is timed as the Rust core alone (examples/run_scenario, one run per
process, best of N: benchmarks/core_timing.py) and as a whole process; ns-2
as the whole `ns` process and as its simulation (CPU time minus that of the
same script stopped at 1 us). The speed-ups set like against like, all by
CPU time: the simulations, the whole processes, and the simulations' cost
per MAC frame. No assertion here: timings are for people, not for CI.
"""
from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402

from core_timing import (  # noqa: E402  (this script's directory)
    ArgumentParser, build_examples, first_runs, non_negative_int, positive_int, size_list)
from validation.wifi_chain_ns2 import flow_result  # noqa: E402
from validation.wifi_chain_ns2 import tcl as chain_tcl  # noqa: E402


def toml_chain(hops: int, duration: float, routing: str = "static", profile: str = "standard", seed: int = 1) -> str:
    s = (f'[sim]\nduration = "{duration + 1}s"\nseed = {seed}\n[wireless]\nrts_threshold = 0\n'
         f'routing = "{routing}"\nprofile = "{profile}"\nifq = {{ kind = "priqueue", limit = 50 }}\n')
    for i in range(hops + 1):
        s += f'[[node]]\nname = "n{i}"\nposition = [{250.0 * i}, 0.0]\n'
    s += (f'[[flow]]\nfrom = "n0"\nto = "n{hops}"\ntransport = "newreno"\npacket_size = 1460\nwindow = 32\n'
          'app = { kind = "bulk", start = 1.0 }\n')
    return s


def toml_grid(n: int, duration: float, isolated: int = 0) -> str:
    """n nodes on a square grid 200 m apart; every tenth node sends 100
    kbit/s of UDP to its right-hand neighbour. `isolated` more stations on
    a grid of their own 1000 km away, which hear nothing and send nothing."""
    side = math.ceil(math.sqrt(n))
    s = f'[sim]\nduration = "{duration}s"\nseed = 1\n[wireless]\nrts_threshold = 0\n'
    for i in range(n):
        s += f'[[node]]\nname = "g{i}"\nposition = [{200.0 * (i % side)}, {200.0 * (i // side)}]\n'
    far = math.ceil(math.sqrt(isolated)) if isolated else 1
    for i in range(isolated):
        s += f'[[node]]\nname = "z{i}"\nposition = [{1e6 + 200.0 * (i % far)}, {200.0 * (i // far)}]\n'
    for i in range(0, n, 10):
        j = i + 1 if (i + 1) % side and i + 1 < n else i - 1
        s += (f'[[flow]]\nfrom = "g{i}"\nto = "g{j}"\ntransport = "udp"\npacket_size = 1000\n'
              'app = { kind = "cbr", rate = "100kbps" }\n')
    return s


def core(exe: Path, text: str, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(text)
        return first_runs(exe, path, repeats)


def ns2_chain(hops: int, duration: float, repeats: int, routing: str = "aodv", seed: int = 1) -> dict:
    """ns-2.35's chain (validation/wifi_chain_ns2.py's script, no trace;
    `routing` "static" or "aodv"): the whole process, best CPU time of
    `repeats` runs, and its goodput from the sender's last acknowledged
    segment; its simulation's CPU time (`sim_cpu_s`: minus the best of
    `repeats` runs of the same script stopped at 1 us, ns-2's start-up and
    set-up); then one more run of the same simulation with its MAC trace
    on, only to count the MAC frames it sent (RTS, CTS, data, ACK,
    broadcast), so that both simulators' cost per frame can be compared
    (the two runs may move different amounts of data)."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "chain.tcl"
        text = chain_tcl(hops, seed, duration, routing)
        path.write_text(text)
        runs = [ns2.measure(["ns", str(path)], cwd=d) for _ in range(max(repeats, 1))]
        stop = f'$ns at {duration + 1} "finish"'
        assert stop in text, "the chain script's finish line moved"
        path.write_text(text.replace(stop, '$ns at 0.000001 "finish"'))
        setup = min(ns2.measure(["ns", str(path)], cwd=d)["cpu_s"] for _ in range(max(repeats, 1)))
        trace = Path(d) / "mac.tr"
        path.write_text(chain_tcl(hops, seed, duration, routing, trace=str(trace), mac_trace=True))
        ns2.measure(["ns", str(path)], cwd=d)
        with open(trace, errors="replace") as f:
            frames = sum(1 for ln in f if ln.startswith("s ") and ln.split()[3:4] == ["MAC"])
    m = min(runs, key=lambda x: x["cpu_s"])
    return {**m, **flow_result(m["stdout"], duration), "mac_frames": frames,
            "sim_cpu_s": max(m["cpu_s"] - setup, 1e-9)}


def per_frame(r: dict, m: dict) -> None:
    """Simulation CPU time per MAC frame put on the air: tcplab's core run
    against ns-2's run minus its start-up and set-up."""
    ours = r["best_cpu_s"] / r["mac_frames"] * 1e6
    theirs = m["sim_cpu_s"] / m["mac_frames"] * 1e6
    print(f"  per MAC frame, simulation CPU: tcplab {ours:.2f} us ({r['mac_frames']:.0f} frames), "
          f"ns-2.35 {theirs:.2f} us ({m['mac_frames']} frames): {theirs / ours:.1f}x")


def aodv_seeds(exe: Path, seeds: int, repeats: int) -> None:
    """The AODV chain over seeds 1..`seeds` in both simulators, summed: one
    seed's run is not the same run in the two (their random streams
    differ, and a route break or a timeout more or less changes how much
    data a run moves by tens of percent), while over many seeds both move
    about the same data (docs/validation.md), so the totals compare like
    with like. Each seed's time is the best of `repeats` processes."""
    theirs = [ns2_chain(7, 250.0, repeats, seed=k) for k in range(1, seeds + 1)]
    ns_cpu = sum(m["cpu_s"] for m in theirs)
    ns_sim = sum(m["sim_cpu_s"] for m in theirs)
    ns_frames = sum(m["mac_frames"] for m in theirs)
    ns_good = sum(m["goodput_bps"] for m in theirs) / seeds
    for profile in ("standard", "ns2"):
        ours = [core(exe, toml_chain(7, 250.0, "aodv", profile, seed=k), repeats) for k in range(1, seeds + 1)]
        t = sum(r["best_cpu_s"] for r in ours)
        cpu = sum(r["process_cpu_s"] for r in ours)
        frames = sum(r["mac_frames"] for r in ours)
        good = sum(r["throughput_bps"][0] for r in ours) / seeds
        print(f"7-hop chain, AODV on both sides, one NewReno flow, 250 s, seeds 1-{seeds}, "
              f"tcplab profile = \"{profile}\"")
        print(f"  tcplab core: {t * 1e3:.0f} ms CPU in all, {frames:.0f} MAC frames, mean goodput "
              f"{good / 1e3:.0f} kbit/s; whole processes {cpu * 1e3:.0f} ms CPU")
        print(f"  ns-2.35: {ns_cpu * 1e3:.0f} ms CPU in all, {ns_sim * 1e3:.0f} ms of it simulation, {ns_frames} MAC "
              f"frames, mean goodput {ns_good / 1e3:.0f} kbit/s; speed-up (CPU) {ns_sim / t:.1f}x simulation, "
              f"{ns_cpu / cpu:.1f}x whole process, {(ns_sim / ns_frames) / (t / frames):.1f}x simulation per MAC frame")


def grid_row(label: str, g: dict) -> None:
    """One row of the grid table: MAC frames, events, core wall time, and
    microseconds and events per MAC frame."""
    print(f"| {label} | {g['mac_frames']:.0f} | {g['events']} | {g['best_wall_s'] * 1e3:.1f} "
          f"| {g['best_wall_s'] / g['mac_frames'] * 1e6:.2f} | {g['events'] / g['mac_frames']:.1f} |")


def main() -> int:
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=positive_int, default=5, help="processes per measure (best taken; default 5)")
    ap.add_argument("--grids", type=size_list, default=[50, 200, 800],
                    help="grid sizes in nodes, separated by commas (default 50,200,800)")
    ap.add_argument("--isolated", type=non_negative_int, default=200,
                    help="also run this grid with three times as many isolated stations (0: no)")
    ap.add_argument("--seeds", type=positive_int, default=1,
                    help="also run the AODV chain over seeds 1..N in both simulators and compare the totals")
    a = ap.parse_args()
    exe = build_examples("run_scenario") / "run_scenario"
    if not ns2.available():
        print("ns-2 not installed (apt-get install ns2): tcplab alone, no comparison")

    # The static chain: against ns-2.35 running the same static chain when
    # the static-routing module is there, else against its AODV chain (not
    # the same run: AODV's route breaks stall it, and it moves a third of
    # the data), said so in the output.
    m = None
    if ns2.available():
        static = ns2.static_route_module() is not None
        m = ns2_chain(7, 100.0, a.repeats, "static" if static else "aodv")
        rss = f"{m['maxrss_kb'] / 1024:.1f} MiB" if m["maxrss_kb"] else "n/a"
        label = "static routing (benchmarks/ns2/static_route.cc)" if static else \
            "AODV: no static-routing module (benchmarks/ns2/build_static_route.sh), not the same run"
        print(f"7-hop chain, one NewReno flow, 100 s: ns-2.35 with {label}")
        print(f"  ns-2.35: {m['wall_s'] * 1e3:.0f} ms wall, {m['cpu_s'] * 1e3:.0f} ms CPU (best of {a.repeats}), "
              f"peak {rss}; goodput {m['goodput_bps'] / 1e3:.0f} kbit/s")
    for profile in ("standard", "ns2"):
        r = core(exe, toml_chain(7, 100.0, profile=profile), a.repeats)
        print(f"7-hop chain, static routing, one NewReno flow, 100 s, tcplab profile = \"{profile}\"")
        print(f"  tcplab core: {r['best_cpu_s'] * 1e3:.1f} ms CPU, {r['best_wall_s'] * 1e3:.1f} ms wall (best of "
              f"{a.repeats}), {r['events']} events, {r['events'] / r['best_cpu_s'] / 1e6:.2f} M events/s (CPU); "
              f"whole process {r['process_wall_s'] * 1e3:.0f} ms wall, "
              f"{r['process_cpu_s'] * 1e3:.0f} ms CPU, peak {r['maxrss_kb'] / 1024 if r['maxrss_kb'] else float('nan'):.1f} MiB; "
              f"goodput {r['throughput_bps'][0] / 1e3:.0f} kbit/s")
        if m is not None:
            print(f"  speed-up over ns-2.35 (CPU): {m['sim_cpu_s'] / r['best_cpu_s']:.1f}x simulation (ns-2 minus "
                  f"its set-up, {m['sim_cpu_s'] * 1e3:.0f} ms), {m['cpu_s'] / r['process_cpu_s']:.1f}x whole process")
            per_frame(r, m)

    # The same run with tcplab's standard rules, and with `profile = "ns2"`
    # (ns-2.35's MAC and AODV rules: the run closest to ns-2's own).
    m = ns2_chain(7, 250.0, a.repeats) if ns2.available() else None
    for profile in ("standard", "ns2"):
        r = core(exe, toml_chain(7, 250.0, "aodv", profile), a.repeats)
        print(f"7-hop chain, AODV on both sides, one NewReno flow, 250 s, tcplab profile = \"{profile}\"")
        print(f"  tcplab core: {r['best_cpu_s'] * 1e3:.1f} ms CPU (best of {a.repeats}), {r['events']} events, "
              f"{r['mac_frames']:.0f} MAC frames; whole process {r['process_cpu_s'] * 1e3:.0f} ms CPU; "
              f"goodput {r['throughput_bps'][0] / 1e3:.0f} kbit/s")
        if m is not None:
            print(f"  ns-2.35: {m['cpu_s'] * 1e3:.0f} ms CPU (best of {a.repeats}), {m['sim_cpu_s'] * 1e3:.0f} ms "
                  f"minus its set-up, goodput {m['goodput_bps'] / 1e3:.0f} kbit/s; speed-up (CPU) "
                  f"{m['sim_cpu_s'] / r['best_cpu_s']:.1f}x simulation, {m['cpu_s'] / r['process_cpu_s']:.1f}x "
                  "whole process")
            per_frame(r, m)
    if a.seeds > 1 and ns2.available():
        aodv_seeds(exe, a.seeds, a.repeats)
    print("static grids, 200 m spacing, one 100 kbit/s UDP flow per 10 nodes, 20 s")
    print("| nodes | MAC frames | events | core wall (ms) | us per frame | events per frame |")
    print("|---|---|---|---|---|---|")
    for n in a.grids:
        grid_row(str(n), core(exe, toml_grid(n, 20.0), a.repeats))
    if a.isolated:
        # The same network among as many stations again, and more, that
        # take no part: the node count grows, the neighbourhoods do not.
        n, k = a.isolated, 3 * a.isolated
        grid_row(f"{n} + {k} isolated", core(exe, toml_grid(n, 20.0, k), a.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
