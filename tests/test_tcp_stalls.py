"""validation/tcp_stalls.py: the stall and timer analysis of an 802.11
chain's TCP sender, and the receiver's ACK holds read from tcplab's
capture; ns-2.35's side is run when `ns` is installed."""
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.tcp_stalls import analyse, ns2_run, tcplab_run  # noqa: E402
from validation.wifi_chain_ns2 import scenario  # noqa: E402


def test_stalls_are_gaps_between_sends_ended_by_an_ack_or_the_timer():
    # The send at 2.0 is clocked by the ACK arriving then; the one at 4.0
    # comes after an ACK (3.0) that sent nothing: the timer's.
    run = {"sends": [1.0, 1.1, 2.0, 2.1, 4.0], "acks": [1.5, 2.0, 3.0],
           "rto": [(1.0, 1.0), (2.0, 3.0)], "srtt": [(1.0, 0.2), (2.0, 0.5), (3.0, 0.55)], "holds": [0.01, 2.0]}
    a = analyse(run, gap=0.3, end=4.0)
    assert a["stalls"] == [(pytest.approx(0.9), "ack"), (pytest.approx(1.9), "timer")]
    assert a["active_s"] == pytest.approx(3.0 - 2.8)
    # The timer was 1 s for 1 s and 3 s for 2 s.
    assert a["rto_mean"] == pytest.approx(7 / 3)
    assert a["rto_long_share"] == pytest.approx(2 / 3)
    assert a["srtt_jumps"] == 1
    assert (a["acks_held"], a["held_long"], a["held_s"]) == (2, 1, 2.0)


def test_tcplab_side_reads_sends_timer_and_receiver_holds():
    r = tcplab_run(3, 1, 5.0, "dsr")
    assert len(r["sends"]) > 50 and len(r["acks"]) > 50
    assert r["rto"] and all(v > 0 for _, v in r["rto"])
    # One ACK per segment, each sent after its segment arrived.
    assert len(r["holds"]) > 50 and min(r["holds"]) >= 0


def test_dsr_chains_run_over_ns2s_cmu_queue_on_both_sides():
    assert scenario(3, 1, 5.0, "dsr")["wireless"]["ifq"]["kind"] == "cmupriqueue"
    assert scenario(3, 1, 5.0, "aodv")["wireless"]["ifq"]["kind"] == "priqueue"


@pytest.mark.skipif(not ns2.available(), reason="ns-2.35 not installed")
def test_ns2_side_reads_agent_trace_and_traced_timer():
    r = ns2_run(3, 1, 5.0, "dsr")
    assert len(r["sends"]) > 50 and len(r["acks"]) > 50
    assert r["rto"] and min(v for _, v in r["rto"]) >= 0.2
    assert len(r["holds"]) > 50 and min(r["holds"]) >= 0
