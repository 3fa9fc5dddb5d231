"""The linux profile against the machine's kernel instant by instant: one
bulk flow simulated and run through the emulator (root and TUN needed),
both sampled at the same instants (`output.sample_interval`), their
series laid over each other (docs/validation.md, "Instant by instant").

    sudo python validation/kernel_series.py                       # every case, 10 s each
    sudo python validation/kernel_series.py --cases cubic,bbr --duration 20s

Cases (10 Mbit/s, 10 ms each way, a DropTail queue of 20 packets,
1000-byte segments, SACK and timestamps, a handshake on both sides so that
the two timelines start alike): `reno`, `cubic` and `bbr`, the kernel's
modules of those names, the profile's `newreno`, `cubic` and `bbr`. Per
case: throughput, retransmissions and fast recoveries of each side; over
the instants both have (the sender's socket open): the mean window and
smoothed RTT of each, the share of instants whose windows are equal, the
mean absolute difference of the windows in segments, the share with
the same congestion state (the kernel's disorder counted as open), and the
mean pacing rate of each (sk_pacing_rate: BBR's, or the one Linux keeps
for every other socket), over the instants both have one.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402

CASES = ("reno", "cubic", "bbr")
TRANSPORT = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr"}


def scenario(case: str, duration: str, interval: str) -> dict:
    return {"sim": {"duration": duration, "tcp_profile": "linux"},
            "node": [{"name": "a"}, {"name": "b"}],
            "link": [{"between": ["a", "b"], "rate": "10Mbps", "delay": "10ms",
                      "queue": {"kind": "droptail", "limit": 20}}],
            "tcp": {"syn": True},
            "flow": [{"name": "f", "from": "a", "to": "b", "transport": TRANSPORT[case], "packet_size": 1000,
                      "window": 1000, "app": {"kind": "bulk"}}],
            "output": {"sample_interval": interval}}


def compare(sim, real, mss: int = 1000) -> dict:
    """The two series over the instants both have."""
    s, k = sim.copy(), real.copy()
    for d in (s, k):
        d["i"] = (d.time_s * 1e6).round().astype("int64")
    m = s.merge(k, on="i", suffixes=("_s", "_k"))
    state = {"disorder": "open"}
    same_state = (m.ca_state_s == m.ca_state_k.replace(state)).mean()
    paced = m.pacing_rate_bps_s.notna() & m.pacing_rate_bps_k.notna()
    return {
        "instants": len(m),
        "cwnd_s": m.cwnd_bytes_s.mean() / mss, "cwnd_k": m.cwnd_bytes_k.mean() / mss,
        "srtt_s": m.srtt_s_s.mean() * 1e3, "srtt_k": m.srtt_s_k.mean() * 1e3,
        "equal_cwnd": (m.cwnd_bytes_s == m.cwnd_bytes_k).mean(),
        "cwnd_diff": (m.cwnd_bytes_s - m.cwnd_bytes_k).abs().mean() / mss,
        "same_state": same_state,
        "pacing_s": m.pacing_rate_bps_s[paced].mean() / 1e6, "pacing_k": m.pacing_rate_bps_k[paced].mean() / 1e6,
    }


def flows_line(f) -> str:
    return (f"{f['throughput_bps'][0] / 1e6:.3f} Mbit/s, {f['retransmits'][0]} rtx, "
            f"{f['fast_retransmits'][0]} recoveries, {f['timeouts'][0]} RTOs")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated: {', '.join(CASES)} (default: all)")
    ap.add_argument("--duration", default="10s", help="length of each run (default 10s)")
    ap.add_argument("--interval", default="10ms", help="sampling interval, at least 1ms (default 10ms)")
    a = ap.parse_args(argv)
    which = [c.strip() for c in a.cases.split(",") if c.strip()]
    bad = sorted(set(which) - set(CASES))
    if bad or not which:
        ap.exit(2, f"kernel_series.py: error: --cases: expected some of {', '.join(CASES)}, got "
                   f"{', '.join(bad) or 'none'}\n")
    from tcplab.emulate import emulate, unavailable_reason

    reason = unavailable_reason()
    if reason:
        ap.exit(2, f"kernel_series.py: error: the emulator is unavailable ({reason})\n")
    for case in which:
        try:
            sc = tcplab.Scenario(scenario(case, a.duration, a.interval))
            sim = tcplab.run(sc)
            real = emulate(sc)
        except tcplab.ScenarioError as e:
            ap.exit(2, f"kernel_series.py: error: {e}\n")
        c = compare(sim.series, real.series)
        print(f"{case}: simulated {flows_line(sim.columns('flows'))} | kernel {flows_line(real.columns('flows'))}")
        print(f"  {c['instants']} instants: cwnd {c['cwnd_s']:.2f} / {c['cwnd_k']:.2f} segments, "
              f"srtt {c['srtt_s']:.2f} / {c['srtt_k']:.2f} ms, equal cwnd {c['equal_cwnd']:.1%}, "
              f"|cwnd difference| {c['cwnd_diff']:.2f} segments, same state {c['same_state']:.1%}, "
              f"pacing {c['pacing_s']:.2f} / {c['pacing_k']:.2f} Mbit/s")
        for w in real.warnings:
            print(f"  warning: {w}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
