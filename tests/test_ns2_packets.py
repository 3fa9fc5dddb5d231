"""Packet-level agreement with ns-2.35 where runs are deterministic (issue 9):
the Fall & Floyd drop lists (one to four drops from a window, every variant,
ns-2's initial window and SYN), single flows through a 3- or 6-packet
buffer, and Vegas through a link that drops the same list of packets both
ways (data and ACKs), as the ns2 profile is and with ns-2's window of 0
after a timeout (`tcp.vegas_zero_window`), and three congested flows with
ns-2's delayed ACKs (`delack_sink`). Every segment's send time and
number must equal ns-2's trace, including ns-2's Vegas sending a segment
twice when its expiry check reads a stale send-time slot
(docs/validation.md)."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.packets import cases, first_difference, ns2_sends, split, tcplab_sends  # noqa: E402

pytestmark = pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")

CASES = dict(cases())


@pytest.mark.parametrize("name", sorted(CASES))
def test_sends_equal_ns2_packet_for_packet(name):
    sc_ns2, sc_tcplab, flow = split(CASES[name])
    ours, theirs = tcplab_sends(sc_tcplab, flow), ns2_sends(sc_ns2, flow)
    assert len(ours) > 300
    if name == "fall-floyd vegas drops=2":
        # ns-2 puts packet 24 on the wire twice at 1.91912 s, and so does
        # tcplab now.
        assert [p for t, p, _ in ours if abs(t - 1.91912) < 1e-5].count(24) == 2
    d = first_difference(ours, theirs)
    assert d is None, f"first difference (index, tcplab, ns-2): {d}"
