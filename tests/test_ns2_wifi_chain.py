"""validation/wifi_chain_ns2.py: hop lists, the ns-2 trace reader, and the
AODV network diameter on both sides (ns-2.35 hard-codes 30 hops: a 31-hop
chain is never found by either with the default; tcplab with
net_diameter 64 reaches 32 hops), and the static chain in ns-2.35 with
benchmarks/ns2/static_route.cc. The ns-2 runs are skipped when `ns` (or
the static-routing module) is absent."""
import argparse
import os
import shutil
import subprocess
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
        # A frame given up at the retry limit: ns-2 logs its RTS and the
        # frame; only the frame counts, by its kind.
        "D 7.0 _1_ MAC  RET 9 RTS 44 [0 0 0 0] \n"
        "D 7.0 _1_ MAC  RET 9 tcp 1560 [0 0 0 0] ------- [0:0 2:0 31 2] [3 0] 0 0\n"
        "D 8.0 _1_ MAC  RET 10 ack 100 [0 0 0 0] ------- [2:0 0:0 31 0] [3 0] 0 0\n"
        "D 8.5 _1_ MAC  COL 11 tcp 1560 [0 0 0 0] ------- [0:0 2:0 31 2] [4 0] 0 0\n"
    )
    assert read_ns2_trace(trace) == {"routing_packets": 3, "rtr_drops": {"CBK": 2, "NRTE": 1},
                                     "retry_drops": {"tcp": 1, "ack": 1}}


@pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")
def test_aodv_network_diameter_on_both_sides():
    dur = 30.0
    assert run_ns2(31, 1, dur, "aodv")["goodput_bps"] == 0.0
    assert run_tcplab(31, 1, dur, "aodv")["goodput_bps"] == 0.0
    assert run_tcplab(32, 1, dur, "aodv", net_diameter=64)["goodput_bps"] > 50e3
    assert run_ns2(30, 1, dur, "aodv")["goodput_bps"] > 0.0
    assert run_tcplab(30, 1, dur, "aodv")["goodput_bps"] > 0.0


@pytest.mark.skipif(not ns2.available() or ns2.static_route_module(build=False) is None,
                    reason="ns-2 or its static-routing module missing (benchmarks/ns2/build_static_route.sh)")
def test_static_chain_is_the_same_run_in_ns2():
    """With benchmarks/ns2/static_route.cc loaded, ns-2.35 runs the static
    chain: no routing packets, nothing dropped at the routing layer, and
    tcplab's ns2 profile carries what it carries (seed 1, 30 s): within 1.5 %
    at one and two hops, where only the MAC's timing counts (28-byte data
    headers instead of ns-2's 34 were 0.8-1.0 % fast), and within 5 % at
    four, where hidden stations collide."""
    for hops, tol in ((1, 0.015), (2, 0.015), (4, 0.05)):
        theirs = run_ns2(hops, 1, 30.0, "static")
        ours = run_tcplab(hops, 1, 30.0, "static", ns2_profile=True)
        assert theirs["routing_packets"] == 0 and theirs["rtr_drops"] == {}
        assert abs(ours["goodput_bps"] / theirs["goodput_bps"] - 1) < tol, (hops, ours, theirs)
    # The ns-2 side is the static chain, not AODV: one hop, no route discovery.
    assert run_ns2(1, 1, 30.0, "aodv")["routing_packets"] > 0


def test_retry_limit_drops_split_segments_from_acks_in_tcplab():
    """`--mac-drops`' tcplab side: the segments trace.csv shows dropped and
    the rest of the MACs' retry-limit drops, which are the ACKs (seed 1's
    7-hop chain drops both kinds)."""
    r = run_tcplab(7, 1, 30.0, "static", mac_drops=True, ns2_profile=True)
    assert r["retry_drops"]["tcp"] > 0 and r["retry_drops"]["ack"] > 0
    assert sum(r["retry_drops"].values()) == r["mac_drops"]
    assert r["retransmits"] >= r["retry_drops"]["tcp"]
    assert run_tcplab(7, 1, 30.0, "static", ns2_profile=True)["retry_drops"] is None


@pytest.mark.skipif(not ns2.available() or ns2.static_route_module(build=False) is None,
                    reason="ns-2 or its static-routing module missing (benchmarks/ns2/build_static_route.sh)")
def test_udp_saturation_is_ns2s_packet_for_packet():
    """The MAC alone: a saturating CBR source over one static hop delivers
    exactly as many packets in tcplab's ns2 profile as in ns-2.35 (5216 in
    30 s, seed 1), and over two hops within 0.5 %."""
    from validation.wifi_chain_ns2 import udp_saturation

    theirs, ours = udp_saturation(1, 1, 30.0)
    assert abs(ours - theirs) <= 1, (ours, theirs)
    theirs, ours = udp_saturation(2, 1, 30.0)
    assert abs(ours / theirs - 1) < 0.005, (ours, theirs)
    # Full interface queues with a routing protocol's messages in them
    # (AODV over ns-2's PriQueue, DSR over its CMUPriQueue): 2 hops within 1 %.
    for routing in ("aodv", "dsr"):
        theirs, ours = udp_saturation(2, 1, 10.0, routing)
        assert abs(ours / theirs - 1) < 0.01, (routing, ours, theirs)


@pytest.mark.skipif(not ns2.available() or ns2.static_route_module(build=False) is None,
                    reason="ns-2 or its static-routing module missing (benchmarks/ns2/build_static_route.sh)")
def test_two_way_flows_share_the_chain_in_both():
    """Two NewReno flows in opposite directions over a static 2-hop chain
    (seed 1, 30 s): both flows carry data in both simulators, and together
    they carry the same within 1.5 % (over 20 seeds of 100 s the totals
    agree within 1 % at 1-8 hops: docs/validation.md)."""
    from validation.wifi_chain_ns2 import two_way

    r = two_way(2, 1, 30.0)
    assert all(x > 50 for x in r["ns2"] + r["tcplab"]), r
    assert abs(sum(r["tcplab"]) / sum(r["ns2"]) - 1) < 0.015, r


@pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")
def test_static_route_build_says_what_is_missing(tmp_path):
    """build_static_route.sh against a directory that is not an ns-2.35
    tree: exit 1, one line naming it, no module written."""
    out = tmp_path / "m.so"
    r = subprocess.run(["bash", str(ns2.STATIC_ROUTE_BUILD), str(out)], capture_output=True, text=True,
                       env={**os.environ, "NS2_SRC": str(tmp_path)})
    assert r.returncode == 1
    assert r.stderr.strip().count("\n") == 0 and "not an ns-2.35 tree" in r.stderr, r.stderr
    assert not out.exists()


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


def test_ns2mac_counts_an_rts_as_answered_only_when_its_cts_was_sent(tmp_path):
    """ns-2.35 queues the CTS in recvRTS and sends it a SIFS later only on
    an idle medium (check_pktCTRL), dropping it without a trace line
    otherwise: a decoded RTS (`r RTS`) is answered only when the receiver's
    CTS follows; one with a frame arriving at the CTS's time, or with
    nothing visible (NAV, own exchange), is a refusal."""
    from validation.aodv_trace import ns2mac

    lines = [
        # Answered: node 5's CTS 10 us after the RTS's end.
        "s 20.000000000 _6_ MAC  --- 0 RTS 44 [466 5 6 0] \n",
        "r 20.000352800 _5_ MAC  --- 0 RTS 44 [466 5 6 0] \n",
        "s 20.000362800 _5_ MAC  --- 0 CTS 38 [3dc 6 0 0] \n",
        # No CTS: node 3's segment (two hops from node 5) begins between
        # the RTS's end and the CTS's time.
        "s 21.000000000 _6_ MAC  --- 0 RTS 44 [466 5 6 0] \n",
        "r 21.000352800 _5_ MAC  --- 0 RTS 44 [466 5 6 0] \n",
        "s 21.000355000 _3_ MAC  --- 7 tcp 1578 [13a 4 3 800] ------- [0:0 16:0 30 1] [1 0] 0 0 \n",
        # No CTS and nothing on the air: the NAV or an exchange of its own.
        "s 22.000000000 _6_ MAC  --- 0 RTS 44 [466 5 6 0] \n",
        "r 22.000352800 _5_ MAC  --- 0 RTS 44 [466 5 6 0] \n",
    ]
    trace = tmp_path / "mac.tr"
    trace.write_text("".join(lines))
    _, _, allrts, _ = ns2mac(str(trace), 16)
    assert allrts["ack"] == {
        "answered": 1,
        "decoded, no CTS: a frame arriving at the CTS's time (ns-2's check_pktCTRL)": 1,
        "decoded, no CTS: NAV set or own exchange (ns-2's check_pktCTRL)": 1,
    }


def test_frame_fates_reads_tcplabs_captures():
    """validation/frame_fates.py on a 2-hop chain with captures at every
    station: every RTS node 2 sent (nodes.csv) gets a fate at node 1, and
    the answered ones are node 1's CTSs to node 2."""
    from validation.frame_fates import run_tcplab_captured, tcplab_frames, tcplab as fates

    caps = run_tcplab_captured(2, 1, "static", 5.0)
    res = fates(caps, 2, 1)
    sent, _ = tcplab_frames(caps)
    rts = sum(1 for _, _, n, k, r in sent if n == 2 and k == "RTS" and r == 1)
    cts = sum(1 for _, _, n, k, r in sent if n == 1 and k == "CTS" and r == 2)
    assert rts > 100 and sum(res["RTS"].values()) == rts
    assert res["RTS"]["decoded, answered"] == cts
    import tcplab
    from validation.wifi_chain_ns2 import scenario

    nodes = tcplab.run(scenario(2, 1, 5.0, "static")).columns("nodes")
    assert nodes["rts_frames"][nodes["node"].index("n2")] == rts


def test_frame_fates_times_data_frames_by_the_profiles_header():
    """The airtime frame_fates.py gives tcplab's data frames ends each
    where the next station's capture stamps its decoding (the end, plus
    0.83 us of propagation over 250 m), with the standard's 28-byte data
    header and the ns2 profile's 34."""
    from validation.frame_fates import DATA, run_tcplab_captured, tcplab_frames

    for ns2 in (False, True):
        caps = run_tcplab_captured(2, 1, "static", 5.0, ns2)
        sent, got = tcplab_frames(caps, data_header=34 if ns2 else 28)
        ends = [e for s, e, n, k, ra in sent if n == 0 and k == DATA and ra == 1]
        decoded = sorted(got[1][(DATA, 0, 1)])
        matched = sum(1 for e in ends if any(0 <= t - e < 2e-6 for t in decoded))
        assert len(ends) > 100 and matched == len(decoded), (ns2, len(ends), matched, len(decoded))


def test_the_debugging_patch_still_applies():
    """validation/aodv_event_log.patch (tcplab's AODV and MAC event log,
    docs/validation.md) applies to the source as it is."""
    root = ROOT
    if not (root / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    r = subprocess.run(["git", "apply", "--check", "validation/aodv_event_log.patch"], cwd=root,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_dsdv_log_reader_finds_first_routes_and_withheld_dumps(tmp_path):
    """dsdv_trace.py on a hand-made log in ns-2.35's format, 2 hops: node 1
    hears node 2 at 0.36 s, but node 2's dump at 11.93 s pushes the
    route's advertise_ok_at to 22.43 s, so node 1's dump at 13.55 s leaves
    it out; its dump at 23 s carries it and node 0 has its route then."""
    from validation.dsdv_trace import chain, first_route, read

    log = tmp_path / "chain-dsdv-2h-s1.dsdv"
    log.write_text(
        "VPC 0.05681 _1_\n (1,0,4)\n"
        "VSD 0.06677 _0_ (1,-1->1,-1->4,-1->1,12.066772)\n"
        "VSD 0.35688 _1_ (2,-1->1,-1->4,-1->2,12.356884)\n"
        "VBP 1.00000 _0_ 0:0 -> 2:0\n"
        "VBP 4.00000 _0_ 0:0 -> 2:0\n"
        "VSD 11.93177 _1_ (2,1->1,4->6,2->2,22.431775)\n"
        "VPC 13.55045 _1_\n (1,0,6)\n"
        "VPC 23.00000 _1_\n (2,1,6)\n"
        "VSU 23.00100 _0_ (2,250->2,0->6,2->1,23.001000)\n"
        "VSU 24.00000 _2_ (0,250->2,0->4,0->1,24.000000)\n"
    )
    t = read(log)
    assert first_route(t, 0, 2) == pytest.approx(23.001)
    assert first_route(t, 2, 0) == pytest.approx(24.0)
    forward = chain(t, 2, 2)
    assert [r["node"] for r in forward] == [1, 0]
    assert forward[0]["ok_at"] == pytest.approx([12.356884, 22.431775])
    assert forward[0]["withheld"] == 1, "the 13.55 s dump came before advertise_ok_at"
    assert forward[1]["withheld"] is None, "the source passes nothing on"
    assert t["buffered"][0] == [1.0, 4.0]


@pytest.mark.skipif(not ns2.available(), reason="ns-2 not installed (apt-get install ns2)")
def test_ns2_dsdv_log_changes_nothing_and_shows_the_late_first_route(tmp_path):
    """ns-2.35's DSDV log (--dsdv-log) leaves the run as it was (same TCP
    counters), and on the 2-hop chain, seed 1, shows the source's first
    route to the destination at 66.2 s, after node 1's periodic dumps had
    left it out four times (docs/validation.md)."""
    from validation.dsdv_trace import chain, first_route, read

    plain = run_ns2(2, 1, 100.0, "dsdv")
    logged = run_ns2(2, 1, 100.0, "dsdv", trace_dir=tmp_path, dsdv_log=True)
    assert {k: logged[k] for k in ("goodput_bps", "retransmits", "timeouts")} == \
        {k: plain[k] for k in ("goodput_bps", "retransmits", "timeouts")}
    t = read(tmp_path / "chain-dsdv-2h-s1.dsdv")
    assert first_route(t, 0, 2) == pytest.approx(66.23, abs=0.01)
    assert chain(t, 2, 2)[0]["withheld"] == 4


def test_dsdv_ns2_advertising_flag_reaches_tcplab():
    """--dsdv-ns2-advertising: on the 8-hop chain (seed 1, 100 s, MAC
    failures ignored) ns-2.35's rule leaves tcplab's source without a route
    for most of the run, as ns-2.35's (7 against 266 kbit/s, 3 seeds, in
    docs/validation.md)."""
    plain = run_tcplab(8, 1, 100.0, "dsdv", dsdv_mac_failures=False)
    gated = run_tcplab(8, 1, 100.0, "dsdv", dsdv_mac_failures=False, dsdv_ns2_advertising=True)
    assert plain["goodput_bps"] > 100e3
    assert gated["goodput_bps"] < 0.25 * plain["goodput_bps"]
    assert gated["timeouts"] >= 3


def test_aodv_decisions_count_both_logs_alike(tmp_path, capsys):
    """aodv_trace.py's decisions: the same step named alike in ns-2.35's
    instrumented log and the patch's is counted per run and node; replies
    split by taken or refused in both spellings."""
    from validation.aodv_trace import decisions
    ns2 = tmp_path / "n.log"
    ns2.write_text("1.0 3 RREQ_ORIG 0 ttl=30 count=1 flags=2 pht_ms=30.000\n"
                   "1.5 3 RREQ_ORIG 0 ttl=30 count=2 flags=2 pht_ms=30.000\n"
                   "2.0 7 NOROUTE src=8 dst=0 flags=0\n"
                   "2.1 3 RREP_TAKEN dst=0 seq=4 hops=3 from=2 for=3\n"
                   "2.2 3 RREP_REFUSED dst=0 seq=4 hops=3 from=2 for=3 have_seq=4 have_hops=3 flags=2\n")
    ours = tmp_path / "t.log"
    ours.write_text("1.0 3 RREQ_ORIG 0 ttl=30 count=1\n"
                    "2.0 7 NOROUTE src=8 dst=0\n"
                    "2.0 6 NOROUTE src=8 dst=0\n"
                    "2.1 3 RREP_RECV from=2 orig=3 dst=0 seq=4 hops=3 took=1 revroute=None\n"
                    "2.1 3 RTSTX to=2 f=ack src=3 lrc=0\n")
    decisions([str(ns2)], [str(ours)])
    out = capsys.readouterr().out
    assert "requests sent: 2.0 / 1.0  (node 3: 2.0 / 1.0)" in out, out
    assert "relay drops for want of a route: 1.0 / 2.0  (node 6: 0.0 / 1.0, 7: 1.0 / 1.0)" in out, out
    assert "replies taken: 1.0 / 1.0" in out and "replies refused: 1.0 / 0.0" in out, out
