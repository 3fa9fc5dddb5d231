"""validation/wifi_chain_ns2.py: hop lists, the ns-2 trace reader, and the
AODV network diameter on both sides (ns-2.35 hard-codes 30 hops: a 31-hop
chain is never found by either with the default; tcplab with
net_diameter 64 reaches 32 hops). The ns-2 runs are skipped when `ns` is
absent."""
import argparse
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import ns2  # noqa: E402
from validation.wifi_chain_ns2 import hop_list, read_ns2_trace, run_ns2, run_tcplab  # noqa: E402


def test_hop_lists():
    assert hop_list("3") == [1, 2, 3]
    assert hop_list("2,4,8,16,32") == [2, 4, 8, 16, 32]
    assert hop_list("30-32") == [30, 31, 32]
    for bad in ("", "x", "0", "2,-1", "4-"):
        with pytest.raises(argparse.ArgumentTypeError, match="--hops"):
            hop_list(bad)


def test_trace_reader_counts_routing_sends_and_data_drops(tmp_path):
    trace = tmp_path / "t.tr"
    trace.write_text(
        "s 1.0 _0_ RTR  --- 0 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] (REQUEST)\n"
        "r 1.1 _1_ RTR  --- 0 AODV 48 [0 ffffffff 0 800] ------- [0:255 -1:255 30 0] (REQUEST)\n"
        "f 1.2 _1_ RTR  --- 1 AODV 44 [0 0 0 0] ------- [2:255 0:255 30 0] (REPLY)\n"
        "s 2.0 _0_ RTR  --- 2 message 32 [0 0 0 0] ------- [0:255 -1:255 32 0]\n"
        "f 3.0 _1_ RTR  --- 3 tcp 1520 [0 0 0 0] ------- [0:0 2:0 31 2] [1 0] 0 0\n"
        "D 4.0 _1_ RTR  CBK 4 tcp 1520 [0 0 0 0] ------- [0:0 2:0 31 2] [2 0] 0 0\n"
        "D 4.0 _1_ RTR  CBK 5 ack 60 [0 0 0 0] ------- [2:0 0:0 31 0] [2 0] 0 0\n"
        "D 5.0 _0_ RTR  NRTE 6 tcp 40 [0 0 0 0] ------- [0:0 2:0 30 0] [0 0] 0 0\n"
        "D 5.0 _0_ RTR  NRTE 7 AODV 48 [0 0 0 0] ------- [0:255 -1:255 30 0] (REQUEST)\n"
        "s 6.0 _0_ MAC  --- 8 AODV 100 [0 0 0 0] ------- [0:255 -1:255 30 0] (REQUEST)\n"
    )
    assert read_ns2_trace(trace) == {"routing_packets": 3, "rtr_drops": {"CBK": 2, "NRTE": 1}}


@pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")
def test_aodv_network_diameter_on_both_sides():
    dur = 30.0
    assert run_ns2(31, 1, dur, "aodv")["goodput_bps"] == 0.0
    assert run_tcplab(31, 1, dur, "aodv")["goodput_bps"] == 0.0
    assert run_tcplab(32, 1, dur, "aodv", net_diameter=64)["goodput_bps"] > 50e3
    assert run_ns2(30, 1, dur, "aodv")["goodput_bps"] > 0.0
    assert run_tcplab(30, 1, dur, "aodv")["goodput_bps"] > 0.0


def test_aodv_local_repair_flag_reaches_tcplab():
    """--aodv-local-repair: tcplab's AODV with local_repair = true (seed 1,
    16 hops, 50 s) sends fewer routing packets than the default (it saves
    the route errors and source discoveries of breaks near node 0)."""
    plain = run_tcplab(16, 1, 50.0, "aodv")
    repaired = run_tcplab(16, 1, 50.0, "aodv", local_repair=True)
    assert repaired["routing_packets"] < plain["routing_packets"]


def test_mac_trace_readers_classify_link_failures_and_rts_fates(tmp_path):
    """aodv_trace.py's ns2mac and tcplabmac on hand-made traces: an ACK's
    RTS from node 6 to node 5 lost seven times to a collision with node 3's
    segment that began first (ns-2), and refused seven times by a NAV set
    by node 4's CTS to node 3 (tcplab)."""
    from validation.aodv_trace import ns2mac, tcplabmac

    # The same seven attempts in both traces: attempt i at 10 s + 2 ms * i.
    attempts = [(i, 10.0 + i * 0.002) for i in range(7)]
    lines = []
    for i, t in attempts:
        lines.append(f"s {t - 0.001:.9f} _3_ MAC  --- {i} tcp 1578 [13a 4 3 800] ------- [0:0 16:0 30 1] [1 0] 0 0 \n")
        lines.append(f"s {t:.9f} _6_ MAC  --- 0 RTS 44 [466 5 6 0] \n")
        lines.append(f"D {t + 0.0001:.9f} _5_ MAC  COL 0 RTS 44 [466 5 6 0] \n")
    lines.append("D 10.020000000 _6_ MAC  RET 0 RTS 44 [466 5 6 0] \n")
    lines.append("D 10.020000000 _6_ MAC  RET 9 ack 40 [13a 5 6 800] ------- [16:0 0:0 20 5] [26 0] 10 0\n")
    trace = tmp_path / "mac.tr"
    trace.write_text("".join(lines))
    fails, att, allrts, positions = ns2mac(str(trace), 16)
    assert fails == {("ack", "RTS limit"): 1}
    assert positions == {("ack", 6, 5): 1}
    assert att["ack"] == {"collision: a 2-hop frame sensed first (ns-2 locks on it): DATA of -2": 7}
    assert sum(allrts["ack"].values()) == 7

    log = []
    for i, t in attempts:
        log.append(f"{t:.6f} 6 RTSTX to=5 f=ack src={i} lrc=0")
        log.append(f"{t + 0.0003:.6f} 5 RTSRX from=6 ans=0 st=Idle nav_us=3000 navby=(2, 4, 3) rxn=1 eifs=0 cur=-")
        log.append(f"{t + 0.0007:.6f} 6 TIMEOUT cts to=Some(5) f=ack src={i + 1} lrc=0 drop={int(i == 6)}")
    path = tmp_path / "t.log"
    path.write_text("\n".join(log) + "\n")
    fails, att, allrts, positions = tcplabmac(str(path), 16)
    assert fails == {("ack", "RTS limit"): 1}
    assert att["ack"] == {"refused: NAV, set by CTS -1->-2": 7}
