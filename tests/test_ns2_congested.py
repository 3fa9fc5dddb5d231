"""The ns2 profile against ns-2.35 under congestion (issue 9): the suite of
validation/congested.py (different RTTs, two-way traffic, buffers of 3-6
packets, RED with and without ECN, DRR, Vegas against Reno, SACK and Reno at 1 %
and 3 % loss, delayed ACKs, SACK both ways, twenty flows), 20 seeds of
300 s each. Every flow's mean throughput must be within 5 % of ns-2's
(measured: within 3.7 %, |z| <= 2.2; docs/validation.md); with twenty flows
a flow's mean over 20 seeds varies by tens of percent in either simulator,
so there each flow is held to |z| < 3 and the retransmissions to 2 %.
About two minutes in all."""
import functools
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.congested import CASES, run_case, summarize  # noqa: E402

pytestmark = pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")


@functools.cache
def run(case: str) -> dict:
    """A case's 20 seeds of 300 s, run once for all the tests that read it."""
    return run_case(case, seeds=20, duration="300s")


#: Cases whose flows' means are compared one by one.
PER_FLOW = sorted(c for c in CASES if c not in ("many-flows", "drr-collisions"))


@pytest.mark.parametrize("case", PER_FLOW)
def test_every_flow_within_5_percent_of_ns2(case):
    rows = summarize(run(case))
    bad = [r for r in rows if abs(r["diff_pct"]) >= 5.0]
    assert not bad, "\n".join(f"{r['flow']}: tcplab {r['tcplab_bps']:.0f} b/s, ns-2 {r['ns2_bps']:.0f} b/s, "
                              f"{r['diff_pct']:+.1f} %, z {r['z']:+.1f}" for r in bad)


def test_twenty_flows_agree_in_distribution():
    res = run("many-flows")
    rows = summarize(res)
    assert len(rows) == 20
    assert max(abs(r["z"]) for r in rows) < 3.0, rows
    ours, theirs = res["rtx"]
    assert abs(ours - theirs) / theirs < 0.02, res["rtx"]


def test_drr_buckets_shared_by_two_sources_agree_in_distribution():
    """ns-2's DRR hashes twelve sources into ten buckets: two pairs share
    one (and its quantum), and within a pair the split swings from seed to
    seed in both simulators (measured: 20 seeds of 300 s, the eight flows
    alone within 0.5 % of ns-2, the paired ones within 8 % at |z| < 1)."""
    res = run("drr-collisions")
    rows = summarize(res)
    assert max(abs(r["z"]) for r in rows) < 3.0, rows
    alone = [r for r in rows if r["flow"] not in ("f0", "f1", "f5", "f6")]
    assert max(abs(r["diff_pct"]) for r in alone) < 2.0, alone
    # A shared bucket gets one quantum: the pairs' flows get half a share.
    for pair in (("f0", "f5"), ("f1", "f6")):
        both = sum(r["tcplab_bps"] for r in rows if r["flow"] in pair)
        assert abs(both / alone[0]["tcplab_bps"] - 1) < 0.1, (pair, both)
    ours, theirs = res["rtx"]
    assert abs(ours - theirs) / theirs < 0.02, res["rtx"]


#: A known difference: since the ns2 profile's `ecn_in_recovery` (ns-2's
#: recv() answering an echo on the ACK that ends recovery, found by its
#: test-suite-ecn), tcplab's timeouts in ECN both ways are 6.8 % above
#: ns-2's (2965 against 2777, 2.3 standard errors of the difference; 2769
#: with the rule off); not traced further (docs/validation.md, "Congested").
KNOWN = {("ecn-two-way-600", "timeouts"): "timeouts 6.8 % above ns-2's since ecn_in_recovery (docs/validation.md)"}


@pytest.mark.parametrize("case,what", [
    pytest.param(c, w, marks=pytest.mark.xfail(strict=True, reason=KNOWN[c, w])) if (c, w) in KNOWN else (c, w)
    for c in ["red", "red-ecn", "ecn-maxp05", "ecn-two-way-600"] for w in ("rtx", "timeouts")])
def test_red_cases_lose_and_time_out_as_ns2(case, what):
    """RED's count and average see every arrival (an idle link's too) and
    an ECN flow's window may stall below one segment as in ns-2.35: the
    retransmissions and timeouts of the RED cases agree within 5 %
    (measured: within 3.7 % but ecn-two-way-600's timeouts, `KNOWN`;
    before those changes red-ecn's timeouts were 10 % short,
    docs/validation.md "ECN"). ecn-two-way itself is left out: it sits on a
    knife edge of RED's idle count that ns-2's floating point decides by
    rounding noise (its rounding either way moves tcplab by +5 % and -6 %);
    ecn-two-way-600 is the same case off that edge."""
    ours, theirs = run(case)[what]
    assert abs(ours - theirs) / theirs < 0.05, (what, ours, theirs)
