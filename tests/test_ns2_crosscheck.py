"""Cross-check against ns-2.35 on the five-flow dumbbell (skipped when the
`ns` binary is absent; .ci/run installs it). Mean throughput of the five
flows must agree within 2 % at loss rates up to 1 % for every variant; the
measured agreement is about 0.1 % (docs/validation.md)."""
import statistics
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.compare_ns2 import dumbbell  # noqa: E402

import tcplab  # noqa: E402

pytestmark = pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")


@pytest.mark.parametrize("variant", ["tahoe", "reno", "newreno", "sack", "vegas"])
@pytest.mark.parametrize("loss,delack", [(0.0, False), (0.01, False), (0.01, True)])
def test_dumbbell_matches_ns2(variant, loss, delack):
    ours, theirs = [], []
    for seed in (1, 2):
        sc = dumbbell(variant, loss, seed, "100s", delack)
        ours.append(statistics.mean(tcplab.run(sc).columns("flows")["throughput_bps"]))
        theirs.append(statistics.mean(f["throughput_bps"] for f in ns2.run(sc)["flows"].values()))
    a, b = statistics.mean(ours), statistics.mean(theirs)
    assert abs(a - b) / b < 0.02, f"tcplab {a:.0f} b/s vs ns-2 {b:.0f} b/s"
    if loss == 0.0:
        assert abs(a - b) / b < 0.002  # no randomness: the two models must coincide


from validation.fall_floyd_ns2 import compare as fall_floyd  # noqa: E402

# (variant, NewReno timer): ns-2.35's NewReno is the Impatient one by default.
FF_VARIANTS = [("tahoe", "impatient"), ("reno", "impatient"), ("newreno", "impatient"),
               ("newreno", "slow-but-steady"), ("sack", "impatient"), ("vegas", "impatient")]


@pytest.mark.parametrize("variant,timer", FF_VARIANTS)
@pytest.mark.parametrize("drops", [1, 2, 3, 4])
def test_fall_floyd_recovery_matches_ns2(variant, timer, drops):
    """Same timeouts and retransmissions as ns-2.35 for one to four drops
    from a window (the send times are compared packet by packet in
    test_ns2_packets.py), Vegas with two drops included: both send a
    segment twice there (docs/validation.md)."""
    c = fall_floyd(variant, drops, timer)
    assert c["tcplab_timeouts"] == c["ns2_timeouts"]
    assert c["tcplab_rtx"] == c["ns2_rtx"]


def test_rfc_profile_reno_halves_twice():
    """The rfc profile keeps RFC 5681 Reno: with two drops from a window it
    fast-retransmits twice and needs no timeout, where ns-2's Reno (bugFix_,
    the ns2 profile) refuses the second fast retransmit and times out."""
    from validation.fall_floyd_ns2 import scenario

    sc = scenario("reno", 2)
    del sc["flow"][0]["tcp"]["newreno_timer"]
    ns2_like = tcplab.run(sc).columns("flows")
    sc["sim"]["tcp_profile"] = "rfc"
    rfc = tcplab.run(sc).columns("flows")
    assert ns2_like["timeouts"][0] == 1 and rfc["timeouts"][0] == 0
