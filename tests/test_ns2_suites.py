"""tcplab against the golden outputs of ns-2.35's own test suites
(validation/ns2_suites.py): every enqueue, dequeue and drop of the traced
link, data and ACKs, at ns-2's printed precision. Needs the package
ns2-examples (scripts/install-peers.sh), not ns-2 itself."""
import pytest

from validation import ns2_suites

pytestmark = pytest.mark.skipif(not ns2_suites.available(), reason="ns2-examples is not installed")


@pytest.mark.parametrize("test", [
    pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=ns2_suites.DIFFERS[t])) if t in ns2_suites.DIFFERS else t
    for t in ns2_suites.SUITE_OF])
def test_identical_to_ns2s_golden_output(test):
    for c in ns2_suites.run_test(test):
        assert c.first is None, f"{test} {c.series}: {c.tcplab} points against {c.golden}, first difference {c.first}"


def test_the_comparison_sees_a_rule():
    """The golden files tell the suite's rules apart: with ns-2.35's default
    halving (precisionReduce_ true) in place of the suite's, Reno's
    one-drop test parts from ns-2's at its recovery."""
    sc, tr = ns2_suites.tcpvariants("onedrop_reno")
    sc["flow"][0]["tcp"]["precision_reduce"] = True
    cmp = ns2_suites.compare(ns2_suites.golden("tcpVariants", "onedrop_reno"), ns2_suites.tcplab_points(sc, tr))
    assert any(c.first is not None for c in cmp)


def test_the_clock_phase_matters_where_the_rto_rounds():
    """ECN's bursty Reno test depends on ns-2's TCP tick phase (boot_time_):
    with the phase tcplab draws from seed 1 instead of ns-2's, the run parts
    from ns-2's at a timeout that rounds to another 10 ms tick."""
    sc, tr = ns2_suites.ecn("ecn_bursty_reno")
    del sc["flow"][0]["tcp"]["clock_phase"]
    cmp = ns2_suites.compare(ns2_suites.golden("ecn", "ecn_bursty_reno"), ns2_suites.tcplab_points(sc, tr))
    assert any(c.first is not None for c in cmp)


def test_maxburst_matters():
    """test-suite-sack's sack1z sets maxburst_ 4: without `max_burst` the
    run parts from ns-2's at the burst after the first recovery."""
    sc, tr = ns2_suites.sack_suite("sack1z")
    del sc["flow"][0]["tcp"]["max_burst"]
    cmp = ns2_suites.compare(ns2_suites.golden("sack", "sack1z"), ns2_suites.tcplab_points(sc, tr),
                             ns2_suites.SERIES_OF["sack"])
    assert any(c.first is not None for c in cmp)


def test_rfc2581_immediate_ack_matters():
    """test-suite-rfc2581's noImmediateAck tests set RFC2581_immediate_ack_
    false: with tcplab's default (true) in its place, the ACK of the
    retransmission that fills the first of the two holes goes at once and
    the run parts from ns-2's at the next segment, 200 ms early."""
    sc, tr = ns2_suites.old_net4("noImmediateAckReno")
    sc["flow"][0]["tcp"]["rfc2581_immediate_ack"] = True
    cmp = ns2_suites.compare(ns2_suites.golden("rfc2581", "noImmediateAckReno"), ns2_suites.tcplab_points(sc, tr))
    assert any(c.first is not None for c in cmp)


def test_timerfix_matters():
    """test-suite-ecn's Tahoe tests of a window of one set timerfix_ false:
    with the timer restarted after the RTT update instead (`timerfix`
    true, the default), ecn_smallwinEcn_tahoe_delack parts from ns-2's."""
    sc, tr = ns2_suites.ecn("ecn_smallwinEcn_tahoe_delack")
    del sc["flow"][0]["tcp"]["timerfix"]
    cmp = ns2_suites.compare(ns2_suites.golden("ecn", "ecn_smallwinEcn_tahoe_delack"),
                             ns2_suites.tcplab_points(sc, tr))
    assert any(c.first is not None for c in cmp)


def _suite2_differs(test, change):
    sc, traced, info = ns2_suites.suite2_test(test)
    change(sc)
    suite = ns2_suites.SUITE_OF[test][0]
    cmp = ns2_suites.compare(ns2_suites.golden(suite, test.split("@")[0]),
                             ns2_suites.suite2_points(sc, traced, info), ns2_suites.SERIES_OF[suite])
    return any(c.first is not None for c in cmp)


def test_rfc2988_matters():
    """test-suite-tcp's dialup1 sets rfc2988_ false: with the minimum RTO
    applied before the backoff (`rfc2988` true) it parts from ns-2's."""
    assert _suite2_differs("dialup1", lambda sc: sc["flow"][0]["tcp"].pop("rfc2988"))


def test_ns1_compat_matters():
    """test-suite-tcp-init-win's *4 tests set RED's ns1_compat_: with a
    full queue's drop restarting RED's count, tahoe4 parts from ns-2's."""
    def change(sc):
        sc["link"][2]["queue"]["overflow_resets_count"] = True
    assert _suite2_differs("tahoe4", change)


def test_window_init_option2_is_ns2s_table():
    """ns-2's windowInitOption_ 2 gives 1500-byte packets an initial window
    of 3 (RFC 3390's 4380 bytes would be 2.92): with "rfc3390" instead,
    tahoe1 parts from ns-2's."""
    def change(sc):
        for f in sc["flow"]:
            f["tcp"]["initial_window"] = "rfc3390"
    assert _suite2_differs("tahoe1", change)


def test_old_ecn_matters():
    """test-suite-tcp's ecn test sets old_ecn_ 1: with every echoing ACK
    holding the window (`old_ecn` false) it parts from ns-2's."""
    assert _suite2_differs("ecn@tcp", lambda sc: sc["flow"][0]["tcp"].pop("old_ecn"))


def test_bugfix_ss_matters():
    """test-suite-tcp-init-win's droppedPKT sets bugfix_ss_ 0: with ns-2's
    default (`bugfix_ss` true) the lost first data segment is
    fast-retransmitted (as in droppedPKT1) and the run parts from ns-2's."""
    assert _suite2_differs("droppedPKT", lambda sc: sc["flow"][0]["tcp"].pop("bugfix_ss"))


def _simple_differs(test, change):
    sc, tr = ns2_suites.simple_suite(test)
    change(sc)
    cmp = ns2_suites.compare(ns2_suites.simple_golden(test.split("@")[0]), ns2_suites.tcplab_points(sc, tr),
                             ns2_suites.SERIES_OF["simple"])
    return any(c.first is not None for c in cmp)


def test_simple_bugfix_matters():
    """test-suite-simple's reno5 sets bugFix_ false: with Reno's guard
    (`reno_careful` true) it parts from ns-2's."""
    def change(sc):
        for f in sc["flow"]:
            f["tcp"].pop("reno_careful")
    assert _simple_differs("reno5@simple", change)


def test_max_cwnd_matters():
    """test-suite-simple's reno sets maxcwnd_ 14 below window_ 28: without
    the cap (`max_cwnd`) it parts from ns-2's."""
    assert _simple_differs("reno@simple", lambda sc: sc["flow"][0]["tcp"].pop("max_cwnd"))


def test_simple_drops_repeat_one_point():
    """test-suite-simple's own perl repeats the first drop once (`@d[0..3]`
    is one drop's four elements), not raw2xg's first four."""
    gold = ns2_suites.simple_golden("tahoe1")
    assert len(gold["drops"]) == 9 and len(set(gold["drops"])) == 9


def _options_differs(test, change):
    sc, tr = ns2_suites.tcp_options(test)
    change(sc["flow"][0]["tcp"])
    cmp = ns2_suites.compare(ns2_suites.golden("tcpOptions", test.split("@")[0]), ns2_suites.tcplab_points(sc, tr))
    return any(c.first is not None for c in cmp)


def test_aggressive_maxburst_matters():
    """test-suite-tcpOptions's maxburst_reno sets aggressive_maxburst_ 0:
    with the late ACK 13 sending as any ACK (`aggressive_max_burst` true,
    ns-2.35's default) it parts from ns-2's at segment 20."""
    assert _options_differs("maxburst_reno", lambda tcp: tcp.pop("aggressive_max_burst"))


def test_exit_fast_retrans_matters():
    """test-suite-tcpOptions's timeouts_newreno_noexitFR sets
    exitFastRetrans_ false: with the refused fast retransmit's duplicates
    leaving the window alone (`exit_fast_retrans` true) it parts from
    ns-2's."""
    assert _options_differs("timeouts_newreno_noexitFR", lambda tcp: tcp.pop("exit_fast_retrans"))


def test_ns2_timestamps_and_ts_reset_rto_matter():
    """test-suite-tcpOptions's timeouts_reno3 runs ns-2's timestamps with
    ts_resetRTO_ false: with tcplab's accounting of timestamps (52-byte SYN
    and ACKs, `ns2_timestamps` off) it parts from ns-2's at the SYN, and
    with every echo ending the backoff (`ts_reset_rto` true) at the
    timeouts."""
    assert _options_differs("timeouts_reno3", lambda tcp: tcp.pop("ns2_timestamps"))
    assert _options_differs("timeouts_reno3", lambda tcp: tcp.update(ts_reset_rto=True))
def _red_differs(test, change):
    sc, info = ns2_suites.red_suite(test)
    change(sc)
    cmp = ns2_suites.compare(ns2_suites.golden("red", test.split("@")[0]), ns2_suites.red_points(sc, info),
                             ns2_suites.SERIES_OF["red"])
    return any(c.first is not None for c in cmp)


def _without_red_key(key):
    def change(sc):
        for d in ("forward", "reverse"):
            sc["link"][2][d]["queue"].pop(key, None)
    return change


def _with_tcp_key(key, value):
    """Every flow with [tcp] `key` = `value` (for a rule the ns2 profile
    has on: its RFC value)."""
    def change(sc):
        for f in sc["flow"]:
            f["tcp"][key] = value
    return change


def test_red_use_mark_p_false_matters():
    """test-suite-red sets use_mark_p_ false: with ns-2.35's default rule
    (marks only while p_b < mark_p 0.1, no forced region) in its place,
    `congested` parts from ns-2's."""
    assert _red_differs("congested", _without_red_key("use_mark_p"))


def test_red_queue_in_bytes_false_matters():
    """`congested` has bytes_ true with queue_in_bytes_ false: with the
    queue measured in bytes too (tcplab's byte mode) it parts from ns-2's."""
    assert _red_differs("congested", _without_red_key("queue_in_bytes"))


def test_ns2_sack_blocks_matter():
    """TCPSink/Sack1's SACK blocks (`sack_blocks = "ns2"`): with RFC 2018's
    choice, the ACKs of flows 6 and 7 on r1 -> r2 are longer and
    gentleBadParams parts from ns-2's."""
    assert _red_differs("gentleBadParams", _with_tcp_key("sack_blocks", "rfc2018"))


def test_sack1_ecn_recover_matters():
    """congested2_mark_p: ns-2's Sack1 stays in fast recovery after an ECN
    cut on the ACK that would end it; without `sack1_ecn_recover` it parts
    from ns-2's at 2.43 s."""
    assert _red_differs("congested2_mark_p", _with_tcp_key("sack1_ecn_recover", False))


def test_sack1_partial_ack_timing_matters():
    """congested1_mark_p: ns-2's Sack1 partial ACKs leave the RTT
    measurement running (the sample at the end of recovery is 1.4 s, RTO
    2.2 s); without `sack1_partial_ack_timing` tcplab times out at 4.78 s."""
    assert _red_differs("congested1_mark_p", _with_tcp_key("sack1_partial_ack_timing", False))


def test_red_clock_phases_follow_ns2s_reset_order():
    """ns-2 resets its nodes in Tcl's hash order of Node_ (4 0 5 1 2 3):
    with the eight agents' phases in creation order instead,
    gentleBadParams parts from ns-2's."""
    def change(sc):
        for i, f in enumerate(sc["flow"]):
            f["tcp"]["clock_phase"] = ns2_suites.ns2_clock_phase(0.1, len(sc["flow"]), i)
    assert _red_differs("gentleBadParams", change)



def _newreno_differs(test, change):
    sc, tr = ns2_suites.newreno_suite(test)
    change(sc["flow"][0]["tcp"])
    cmp = ns2_suites.compare(ns2_suites.golden("newreno", test), ns2_suites.tcplab_points(sc, tr))
    return any(c.first is not None for c in cmp)


def test_bugfix_ack_matters():
    """test-suite-newreno's newreno_rto_loss_ack sets bugFix_ack_: without
    the ACK heuristic (`bugfix_ack`) the duplicates after the timeout get
    no fast retransmit and the run parts from ns-2's at 3.78 s, waiting
    for the next timeout as newreno_rto_loss does."""
    assert _newreno_differs("newreno_rto_loss_ack", lambda tcp: tcp.pop("bugfix_ack"))


def test_dupthresh_frac_matters():
    """test-suite-sack's sack_dupacks1 sets numdupacksFrac_ 4: with the
    fixed threshold of three (`dupthresh_frac` 0) it is sack_dupacks's run,
    and parts from ns-2's at 0.688 s, where the larger threshold holds the
    first fast retransmit back."""
    sc, tr = ns2_suites.sack_suite("sack_dupacks1")
    sc["flow"][0]["tcp"].pop("dupthresh_frac")
    cmp = ns2_suites.compare(ns2_suites.golden("sack", "sack_dupacks1"), ns2_suites.tcplab_points(sc, tr),
                             ns2_suites.SERIES_OF["sack"])
    assert any(c.first is not None for c in cmp)


def test_estimator_scaling_matters():
    """test-suite-tcp's timersA1 sets rttvar_exp_ 3 and timersA3
    T_SRTT_BITS 5 and T_RTTVAR_BITS 4: with ns-2's default scaling
    (`rttvar_exp` 2, `rttvar_bits` 2) each parts from ns-2's, its
    retransmission timer expiring earlier."""
    assert _suite2_differs("timersA1", lambda sc: sc["flow"][0]["tcp"].pop("rttvar_exp"))
    assert _suite2_differs("timersA3", lambda sc: sc["flow"][0]["tcp"].pop("rttvar_bits"))


def test_bugfix_ts_matters():
    """test-suite-newreno's newreno_rto_loss_tsh sets bugFix_ts_: without
    the timestamp heuristic (`bugfix_ts`) it parts from ns-2's at 3.78 s,
    as newreno_rto_loss_ts, which does not set it."""
    assert _newreno_differs("newreno_rto_loss_tsh", lambda tcp: tcp.pop("bugfix_ts"))


@pytest.mark.parametrize("test, change", [
    # ns-2's timer left running through the pause restarts the window from
    # one segment: with RFC 5681's restart window (min(IW, cwnd), IW 1 here
    # too) the timer stops instead, and the segments after the pause go
    # out with a timer armed when they leave.
    ("quiescent_100ms", lambda tcp: tcp.update(idle_restart="off")),
    # QOption_ 1: without window validation the quiescentB run keeps its
    # window through the pause.
    ("quiescentB_qoption", lambda tcp: tcp.pop("cwnd_validation")),
    # With tcpTick_ 0.5 the pause lasts only a few RTOs, so how many
    # halvings it gets shows: QOption_ 1 against ns-2's running timer ...
    ("quiescent_500ms_fine", lambda tcp: tcp.pop("cwnd_validation")),
    # ... and EnblRTTCtr_ 1, periods counted in RTTs, against RTOs. (These
    # runs never show control_increase_: tests.rs holds it.)
    ("quiescent_500ms_coarse", lambda tcp: tcp.pop("cwv_rtt_counting")),
])
def test_the_quiescence_rules_matter(test, change):
    """test-suite-tcp's quiescent tests (an FTP that writes again at 2.4
    and 2.5 s) tell ns-2's idle rules apart: with each one changed, the
    run parts from ns-2's golden output."""
    assert _suite2_differs(test, lambda sc: change(sc["flow"][0]["tcp"]))
