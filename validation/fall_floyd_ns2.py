"""The Fall & Floyd (1996) drop scenarios in tcplab and in ns-2.35 side by
side: one to four packets dropped from one window; timeouts, retransmitted
packets and segments acknowledged after 8 s for each variant.

    python validation/fall_floyd_ns2.py
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402
from validation import ns2  # noqa: E402

FIRST_DROP = 14  # as crates/tcplab-core/tests/fall_floyd.rs


def scenario(variant: str, drops: int, timer: str = "impatient") -> dict:
    return {
        "sim": {"duration": "8s"},
        "node": [{"name": n} for n in ("s", "r", "k")],
        "link": [
            {"between": ["s", "r"], "rate": "8Mbps", "delay": "0.1ms", "queue": {"kind": "unlimited"}},
            {"between": ["r", "k"], "rate": "0.8Mbps", "delay": "100ms", "queue": {"kind": "unlimited"},
             # The forward direction carries only data, so "data" and ns-2's
             # per-link count agree.
             "error": {"kind": "pattern", "drop": [FIRST_DROP + i for i in range(drops)], "packets": "all"}},
        ],
        "flow": [{"name": "f", "from": "s", "to": "k", "transport": variant, "packet_size": 1000, "window": 20,
                  "app": {"kind": "bulk"},
                  "tcp": {"initial_window": 1, "limited_transmit": False, "newreno_timer": timer}}],
    }


def compare(variant: str, drops: int, timer: str = "impatient") -> dict:
    sc = scenario(variant, drops, timer)
    if variant != "newreno":
        del sc["flow"][0]["tcp"]["newreno_timer"]
    f = tcplab.run(sc).columns("flows")
    n = ns2.run(sc)["flows"]["f"]
    return {
        "tcplab_timeouts": f["timeouts"][0], "tcplab_rtx": f["retransmits"][0],
        "tcplab_segments": f["bytes_acked"][0] // 1000,
        "ns2_rtx": n["retransmits"], "ns2_segments": n["bytes_acked"] // 1000, "ns2_timeouts": n["timeouts"],
    }


def main() -> int:
    if not ns2.available():
        print("ns-2 is not installed (apt-get install ns2)")
        return 1
    print(f"{'variant':<22} {'drops':>5} {'RTOs tcplab':>11} {'RTOs ns-2':>9} {'rtx tcplab':>10} {'rtx ns-2':>9} "
          f"{'segs tcplab':>11} {'segs ns-2':>9}")
    for variant, timer in [("tahoe", ""), ("reno", ""), ("newreno", "impatient"),
                           ("newreno", "slow-but-steady"), ("sack", ""), ("vegas", "")]:
        for drops in (1, 2, 3, 4):
            c = compare(variant, drops, timer or "impatient")
            label = variant + (f" ({timer})" if timer else "")
            print(f"{label:<22} {drops:>5} {c['tcplab_timeouts']:>11} {c['ns2_timeouts']:>9} {c['tcplab_rtx']:>10} {c['ns2_rtx']:>9} "
                  f"{c['tcplab_segments']:>11} {c['ns2_segments']:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
