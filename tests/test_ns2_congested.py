"""The ns2 profile against ns-2.35 under congestion (issue 9): the suite of
validation/congested.py (different RTTs, two-way traffic, buffers of 3-6
packets, RED with and without ECN, Vegas against Reno, SACK and Reno at 1 %
and 3 % loss, delayed ACKs, SACK both ways, twenty flows), 20 seeds of
300 s each. Every flow's mean throughput must be within 5 % of ns-2's
(measured: within 3.6 %, |z| <= 2.2; docs/validation.md); with twenty flows
a flow's mean over 20 seeds varies by tens of percent in either simulator,
so there each flow is held to |z| < 3 and the retransmissions to 2 %.
About two minutes in all."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.congested import CASES, run_case, summarize  # noqa: E402

pytestmark = pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")


#: Cases whose flows' means are compared one by one.
PER_FLOW = sorted(c for c in CASES if c != "many-flows")


@pytest.mark.parametrize("case", PER_FLOW)
def test_every_flow_within_5_percent_of_ns2(case):
    rows = summarize(run_case(case, seeds=20, duration="300s"))
    bad = [r for r in rows if abs(r["diff_pct"]) >= 5.0]
    assert not bad, "\n".join(f"{r['flow']}: tcplab {r['tcplab_bps']:.0f} b/s, ns-2 {r['ns2_bps']:.0f} b/s, "
                              f"{r['diff_pct']:+.1f} %, z {r['z']:+.1f}" for r in bad)


def test_twenty_flows_agree_in_distribution():
    res = run_case("many-flows", seeds=20, duration="300s")
    rows = summarize(res)
    assert len(rows) == 20
    assert max(abs(r["z"]) for r in rows) < 3.0, rows
    ours, theirs = res["rtx"]
    assert abs(ours - theirs) / theirs < 0.02, res["rtx"]
