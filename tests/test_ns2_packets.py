"""Packet-level agreement with ns-2.35 where runs are deterministic (issue 9):
the Fall & Floyd drop lists (one to four drops from a window, every variant,
ns-2's initial window and SYN) and single flows through a 3- or 6-packet
buffer. Every segment's send time and number must equal ns-2's trace, with
one documented exception (docs/validation.md): ns-2's Vegas agent sends a
never-sent segment twice when its expiry check reads a stale send-time slot,
which tcplab does not copy."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.packets import cases, first_difference, ns2_sends, tcplab_sends  # noqa: E402

pytestmark = pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")

CASES = dict(cases())
NS2_VEGAS_DOUBLE_SEND = "fall-floyd vegas drops=2"


@pytest.mark.parametrize("name", sorted(CASES))
def test_sends_equal_ns2_packet_for_packet(name):
    sc = CASES[name]
    ours, theirs = tcplab_sends(sc, 0), ns2_sends(sc, 0)
    assert len(ours) > 300
    d = first_difference(ours, theirs)
    if name == NS2_VEGAS_DOUBLE_SEND:
        # ns-2 puts packet 24 on the wire twice at 1.91912 s; up to there
        # the two traces are identical.
        k, mine, other = d
        assert theirs[k - 1][1] == theirs[k][1] == 24 and abs(theirs[k][0] - 1.91912) < 1e-5, d
        return
    assert d is None, f"first difference (index, tcplab, ns-2): {d}"
