"""The linux profile against the machine's Linux kernel: the same scenario
simulated and run through the emulator (root and TUN needed), completion
times side by side (docs/validation.md, "The linux profile against the
Linux kernel"; docs/emulator.md, "Accuracy").

    sudo python validation/linux_kernel.py                  # every case, 2 real runs each
    python validation/linux_kernel.py --simulated-only      # the simulated columns alone
    python validation/linux_kernel.py --cases congestion --runs 3

Cases: `slowstart` (one write from an initial window of 10, no loss),
`losses` (300 kB, 10 Mbit/s, 10 ms each way, unlimited queue, chosen data
segments dropped by the pattern error model), `congestion` (600 kB through
a DropTail queue of 10, 20 or 40 packets that the slow start overflows),
`tails` (20 kB with SACK, the 19th, the 20th or both of its 20 data
segments dropped: losses that RACK's timer or the tail-loss probe repair),
`timeouts` (20 kB at 50 ms each way, the last segment dropped, with SACK
and without: an RTO of about 300 ms, which the kernel's timer wheel files
at the next multiple of 8 jiffies, so real runs spread by up to 32 ms),
`spurious` (nothing lost: a delay step of 500 ms from the 100th data
segment of 300 kB, whose timeout the timestamps, F-RTO or, going back N,
D-SACK show spurious, with SACK and without; and 2 MB at 50 ms each way with the 100th segment
held 30 ms, whose needless fast retransmission D-SACK shows), each with
and without SACK where it matters; `bbr` (BBR transfers of 1, 3 and 20 MB
at 10 Mbit/s, 20 ms each way, through an unlimited queue or a DropTail
queue of 20 or 100 packets, with SACK and without; the 20 MB one lasts
through a PROBE_RTT; without SACK through 20 packets the run is chaotic on
both sides, completion 4.6-13 s as the delay moves by 0.2 ms: compare
distributions there, not runs: docs/validation.md). The simulated columns show
the linux profile as it is and with one of its Linux rules switched off
(`prr = false`: RFC 6582's and RFC 6675's recovery; `quick_acks = 0`;
`rack = false`, `tlp = false`; `undo`, `frto`, `dsack` false;
`timer_wheel = false`), so
that what a rule changes can be read beside the kernel. Real completion
times are less the handshake (the profile opens established); each real
run is printed, best first, with its retransmissions and timeouts, and a
`*` when the emulator warned that the machine disturbed it (packets
released late, or the hypervisor's steal: docs/emulator.md, "The
hypervisor's steal"): such a run measured the host as much as the kernel.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402


def two_nodes(rate: str, delay: str, size: int, queue: dict | None = None, drops: list | None = None,
              tcp: dict | None = None, held: tuple[list, str] | None = None, transport: str = "newreno",
              window: int = 1000) -> dict:
    """One linux-profile NewReno transfer of `size` bytes written at once,
    1000-byte segments, a window of 1000 segments; the data packets
    `drops` lost, or the packets of `held` held for its time."""
    link = {"between": ["a", "b"], "rate": rate, "delay": delay, "queue": queue or {"kind": "unlimited"}}
    if drops:
        link["error"] = {"kind": "pattern", "drop": drops, "direction": "forward", "packets": "data"}
    if held:
        link["error"] = {"kind": "pattern", "drop": held[0], "action": "delay", "delay": held[1],
                         "direction": "forward", "packets": "data"}
    sc = {"sim": {"duration": "60s", "tcp_profile": "linux"},
          "node": [{"name": "a"}, {"name": "b"}], "link": [link],
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": transport, "packet_size": 1000,
                    "window": window, "app": {"kind": "transfer", "bytes": size, "write": size}}]}
    if tcp:
        sc["tcp"] = dict(tcp)
    return sc


# Linux's SACK compression off (the receiver acknowledges every
# out-of-order segment at once), beside the cases with SACK.
NO_COMP = ("comp_sack_nr = 0", {"comp_sack_nr": 0})

CASES = ("slowstart", "losses", "congestion", "tails", "timeouts", "spurious", "bbr")


def bbr_case(size: int, limit: int | None, sack: bool = True) -> dict:
    """A BBR transfer at 10 Mbit/s, 20 ms each way (window 5000 segments,
    so that only BBR limits it), opened with a handshake as the kernel's:
    BBR starts from its RTT (bbr_init() after the SYN-ACK)."""
    queue = {"kind": "droptail", "limit": limit} if limit else None
    return two_nodes("10Mbps", "20ms", size, queue=queue, tcp={"sack": sack, "syn": True}, transport="bbr",
                     window=5000)


def cases(which: set) -> list:
    """(case name, scenario, the simulated variants as (label, tcp keys))."""
    out = []
    if "slowstart" in which:
        for rate, delay, size in [("10Mbps", "50ms", 300_000), ("100Mbps", "20ms", 30_000),
                                  ("100Mbps", "20ms", 100_000), ("100Mbps", "20ms", 300_000),
                                  ("20Mbps", "40ms", 300_000)]:
            out.append((f"slow start {rate} {delay} {size // 1000} kB", two_nodes(rate, delay, size),
                        [("no quick ACKs", {"quick_acks": 0}), ("per-ack growth", {"cwnd_increase": "per-ack"})]))
    if "losses" in which:
        for drops in ([50], [50, 52], [50, 51, 52, 53], [100, 110, 120]):
            for sack in (True, False):
                out.append((f"drops {drops} {'SACK' if sack else 'no SACK'}",
                            two_nodes("10Mbps", "10ms", 300_000, drops=drops, tcp={"sack": sack}),
                            [("prr = false", {"prr": False})] + ([NO_COMP] if sack else [])))
    if "congestion" in which:
        for limit in (10, 20, 40):
            for sack in (True, False):
                out.append((f"queue {limit} {'SACK' if sack else 'no SACK'}",
                            two_nodes("10Mbps", "10ms", 600_000, queue={"kind": "droptail", "limit": limit},
                                      tcp={"sack": sack}),
                            [("prr = false", {"prr": False}), ("no quick ACKs", {"quick_acks": 0})]
                            + ([NO_COMP] if sack else [])))
    if "tails" in which:
        for drops in ([19], [20], [19, 20]):
            out.append((f"20 kB, drops {drops} SACK", two_nodes("10Mbps", "10ms", 20_000, drops=drops),
                        [("rack = false", {"rack": False}), ("tlp = false", {"tlp": False}), NO_COMP]))
    if "timeouts" in which:
        # A lost last segment on a 100 ms round trip: the RTO (SRTT + 200
        # ms, about 75 jiffies at HZ 250) lands on the timer wheel's second
        # level, whose buckets are 8 jiffies (32 ms) apart.
        for sack in (True, False):
            out.append((f"20 kB, 50 ms each way, drops [20] {'SACK' if sack else 'no SACK'}",
                        two_nodes("10Mbps", "50ms", 20_000, drops=[20], tcp={"sack": sack}),
                        [("timer_wheel = false", {"timer_wheel": False})]))
    if "spurious" in which:
        none = ("undo, frto, dsack off", {"undo": False, "frto": False, "dsack": False})
        no_sack = {"sack": False, "dsack": False}
        for label, tcp in [("timestamps", {}), ("no timestamps (F-RTO)", {"timestamps": False}),
                           ("no timestamps, frto = false", {"timestamps": False, "frto": False}),
                           ("no SACK, timestamps", no_sack),
                           ("no SACK, no timestamps (F-RTO)", {**no_sack, "timestamps": False}),
                           ("no SACK, no timestamps, frto = false", {**no_sack, "timestamps": False, "frto": False})]:
            out.append((f"delay step 500 ms from segment 100, {label}",
                        two_nodes("10Mbps", "10ms", 300_000, tcp=tcp, held=(list(range(100, 1001)), "500ms")),
                        [none]))
        for dsack in (True, False):
            out.append((f"2 MB, segment 100 held 30 ms, no timestamps, dsack = {str(dsack).lower()}",
                        two_nodes("10Mbps", "50ms", 2_000_000, tcp={"timestamps": False, "dsack": dsack},
                                  held=([100], "30ms")),
                        [("undo = false", {"undo": False})]))
    if "bbr" in which:
        for size, limit, sack in [(1_000_000, None, True), (3_000_000, None, True), (3_000_000, 100, True),
                                  (3_000_000, 20, True), (3_000_000, 20, False), (20_000_000, 100, True)]:
            out.append((f"BBR {size // 1_000_000} MB, queue {limit or 'unlimited'}, {'SACK' if sack else 'no SACK'}",
                        bbr_case(size, limit, sack), [NO_COMP] if sack else []))
    return out


def simulate(sc: dict, extra: dict) -> tuple[float, int, int]:
    """Completion in seconds (less the handshake, when the scenario has
    one, as the real runs'), retransmissions, timeouts."""
    sc = {**sc, "tcp": {**sc.get("tcp", {}), **extra}}
    syn = sc["tcp"].get("syn", False)
    r = tcplab.run(sc, trace=syn)
    f = r.flows
    t = f["completion_s"][0]
    if syn:
        tr = r.trace
        t -= tr[(tr.kind == "send") & (tr.len > 0)].time_s.min()
    return t, f["retransmits"][0], f["timeouts"][0]


def simulated(sc: dict, extra: dict) -> str:
    """`simulate` as the table prints it."""
    t, rtx, rto = simulate(sc, extra)
    return f"{t * 1000:.1f} ms ({rtx}, {rto})"


def over_seeds(sc: dict, n: int) -> str:
    """The linux profile's completion over seeds 1..n, each drawing the
    kernel clock's tick phase and jiffies count (`clock_phase`,
    `jiffies_start`): the spread the kernel's arbitrary clock gives its
    runs."""
    ms = [simulate({**sc, "sim": {**sc["sim"], "seed": seed}}, {})[0] * 1000 for seed in range(1, n + 1)]
    return f"{min(ms):.1f}-{max(ms):.1f} ms (mean {sum(ms) / n:.1f})"


def real(sc: dict, runs: int) -> str:
    from tcplab.emulate import emulate

    got = []
    for _ in range(runs):
        res = emulate(sc, capture=False)
        f = res.columns("flows")
        got.append((f["completion_s"][0] - res.emulation["flows"][0]["connect_s"], f["retransmits"][0],
                    f["timeouts"][0], "*" if res.warnings else ""))
    return ", ".join(f"{t * 1000:.1f} ms ({r}, {o}){w}" for t, r, o, w in sorted(got))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(CASES),
                    help=f"comma-separated: {', '.join(CASES)} (default: all)")
    ap.add_argument("--runs", type=int, default=2, help="real runs per case (default 2)")
    ap.add_argument("--simulated-only", action="store_true", help="no emulator runs (no root needed)")
    ap.add_argument("--seeds", type=int, default=0,
                    help="also simulate the linux profile at seeds 1..N, each drawing its kernel clock's "
                         "phase and jiffies count, and print their range")
    a = ap.parse_args(argv)
    which = {c.strip() for c in a.cases.split(",") if c.strip()}
    bad = which - set(CASES)
    if bad or a.runs < 1 or a.seeds < 0:
        ap.exit(2, f"linux_kernel.py: error: --cases: expected some of {', '.join(CASES)}, got "
                   f"{', '.join(sorted(bad))}\n" if bad else "linux_kernel.py: error: --runs: at least 1, --seeds: at least 0\n")
    if not a.simulated_only:
        from tcplab.emulate import unavailable_reason

        reason = unavailable_reason()
        if reason:
            ap.exit(2, f"linux_kernel.py: error: the emulator is unavailable ({reason}); "
                       "use --simulated-only\n")
    print("completion time (retransmissions, timeouts); * a kernel run the machine disturbed")
    for name, sc, variants in cases(which):
        line = f"{name}: linux profile {simulated(sc, {})}"
        if a.seeds > 0:
            line += f"; over {a.seeds} seeds {over_seeds(sc, a.seeds)}"
        for label, extra in variants:
            line += f"; {label} {simulated(sc, extra)}"
        if not a.simulated_only:
            line += f" | kernel {real(sc, a.runs)}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
