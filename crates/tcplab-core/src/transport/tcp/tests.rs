//! Packet-level tests of the sender and receiver against the RFC rules (the `rfc` profile) the
//! Reno family relies on. Each test scripts an exchange: segments come out of
//! `poll_transmit`, ACKs go in through `on_ack`, time is set by hand.

use super::cc::{make_cc, Variant};
use super::config::{AckPolicy, TcpConfig, TcpProfile};
use super::receiver::{AckFields, TcpReceiver};
use super::sender::{Segment, TcpSender};
use crate::engine::time::{MS, SEC};
use crate::engine::Time;
use crate::packet::TcpHeader;

const MSS: u64 = 1000;

/// The rfc profile with MSS 1000, a 1 MB window, no ssthresh, no
/// Limited Transmit and no handshake (other test modules start here too).
pub(super) fn cfg(iw: u32) -> TcpConfig {
    let mut c = TcpConfig::profile(TcpProfile::Rfc);
    c.mss = MSS as u32;
    c.initial_window = iw;
    c.rwnd = 1_000_000;
    c.initial_ssthresh = Some(u64::MAX);
    // The RFC 5681 rules are tested alone; Limited Transmit has its own test.
    c.limited_transmit = false;
    // Connections start established (the SYN has its own test).
    c.syn = false;
    c
}

fn sender(v: Variant, iw: u32) -> TcpSender {
    let mut s = TcpSender::new(cfg(iw), make_cc(v, &cfg(1)));
    s.app_write(None);
    s
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(s: &mut TcpSender, now: Time, n: u64) -> Vec<Segment> {
    s.on_ack(now, &TcpHeader { ack: n, window: 1_000_000, ..Default::default() });
    drain(s, now)
}

/// A segment as the sender emits it without ECN.
fn seg(seq: u64, len: u32, retransmit: bool) -> Segment {
    Segment { seq, len, retransmit, ect: false, cwr: false }
}

fn seqs(v: &[Segment]) -> Vec<u64> {
    v.iter().map(|s| s.seq / MSS).collect()
}

#[test]
fn initial_window_and_slow_start() {
    let mut s = sender(Variant::NewReno, 2);
    let out = drain(&mut s, 0);
    assert_eq!(seqs(&out), vec![0, 1]);
    // Each new ACK opens cwnd by one MSS: two segments out per ACK.
    let out = ack(&mut s, 100 * MS, 1000);
    assert_eq!(seqs(&out), vec![2, 3]);
    assert_eq!(s.w.cwnd, 3 * MSS);
}

/// `count_acked` (the linux profile's `cwnd_increase = "per-segment"`):
/// an ACK of two segments opens cwnd by two (Linux's tcp_slow_start(tp,
/// acked)), four segments out where one per ACK sends three; a short
/// segment counts as one; past ssthresh the rest goes to congestion
/// avoidance, one whole segment per cwnd segments acknowledged, counted
/// as the kernel counts them (tcp_cong_avoid_ai()'s snd_cwnd_cnt).
#[test]
fn counting_acked_segments_grows_by_each_segment_covered() {
    let mut c = cfg(4);
    c.count_acked = true;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    assert_eq!(seqs(&drain(&mut s, 0)), vec![0, 1, 2, 3]);
    let out = ack(&mut s, 100 * MS, 2 * MSS);
    assert_eq!((s.w.cwnd, seqs(&out)), (6 * MSS, vec![4, 5, 6, 7]));
    // 1.5 segments acknowledged: two packets.
    ack(&mut s, 101 * MS, 3 * MSS + MSS / 2);
    assert_eq!(s.w.cwnd, 8 * MSS);
    // ssthresh 9 MSS: three segments acknowledged, one to reach it, two
    // in congestion avoidance.
    s.w.ssthresh = 9 * MSS;
    ack(&mut s, 102 * MS, 6 * MSS + MSS / 2);
    assert_eq!((s.w.cwnd, s.w.ca_frac), (9 * MSS, 2.0));
    // Seven more make nine counted at a window of nine: one segment more.
    ack(&mut s, 103 * MS, 13 * MSS + MSS / 2);
    assert_eq!((s.w.cwnd, s.w.ca_frac), (10 * MSS, 0.0));
    // Ten (9.5 segments' bytes) at a window of ten, all that is out: one more.
    assert_eq!(s.snd_max, 23 * MSS);
    ack(&mut s, 104 * MS, 23 * MSS);
    assert_eq!((s.w.cwnd, s.w.ca_frac), (11 * MSS, 0.0));
    // The same ACKs one increase each (ns-2, RFC 5681): 4 + 1 + 1.
    let mut s = sender(Variant::NewReno, 4);
    drain(&mut s, 0);
    ack(&mut s, 100 * MS, 2 * MSS);
    ack(&mut s, 101 * MS, 3 * MSS + MSS / 2);
    assert_eq!(s.w.cwnd, 6 * MSS);
}

#[test]
fn rfc3390_initial_window() {
    let mut c = cfg(0);
    c.mss = 1460;
    assert_eq!(c.initial_cwnd(), 4380);
    c.mss = 536;
    assert_eq!(c.initial_cwnd(), 4 * 536);
    c.mss = 2500;
    assert_eq!(c.initial_cwnd(), 5000);
}

/// Per ACK cwnd += MSS*MSS/cwnd (RFC 5681 eq. 3, ns-2's 1/cwnd): a window of
/// ACKs adds a little under one MSS because cwnd grows along the way.
#[test]
fn congestion_avoidance_adds_about_one_mss_per_window() {
    let mut s = sender(Variant::Reno, 10);
    s.w.ssthresh = 10 * MSS;
    drain(&mut s, 0);
    // Ten ACKs of one full window at cwnd = 10 MSS add exactly one MSS.
    for i in 1..=10 {
        ack(&mut s, SEC, i * MSS);
    }
    let expect: f64 = (0..10).fold(10_000.0, |c: f64, _| c + 1e6 / c);
    assert!((s.w.cwnd as f64 - expect).abs() <= 1.0, "{} vs {expect}", s.w.cwnd);
    assert!(s.w.cwnd > 10_950 && s.w.cwnd < 11 * MSS);
}

/// Third duplicate ACK: exactly one retransmission of the first unacked
/// segment, ssthresh = max(FlightSize/2, 2*MSS) (RFC 5681 eq. 4).
#[test]
fn third_dupack_triggers_one_fast_retransmit() {
    for v in [Variant::Tahoe, Variant::Reno, Variant::NewReno] {
        let mut s = sender(v, 10);
        assert_eq!(drain(&mut s, 0).len(), 10);
        assert!(ack(&mut s, MS, 0).is_empty(), "{v:?}: 1st dupack");
        assert!(ack(&mut s, MS, 0).is_empty(), "{v:?}: 2nd dupack");
        let out = ack(&mut s, MS, 0);
        assert_eq!(out.len(), 1, "{v:?}: third dupack sends one segment");
        assert_eq!(out[0], seg(0, MSS as u32, true));
        assert_eq!(s.w.ssthresh, 5 * MSS, "{v:?}");
        assert_eq!(s.stats.fast_retransmits, 1);
        // A fourth duplicate does not retransmit again.
        let out = ack(&mut s, MS, 0);
        assert!(out.iter().all(|x| !x.retransmit), "{v:?}");
    }
}

/// RFC 3042: each of the first two duplicate ACKs sends one new segment
/// without touching cwnd; the third triggers fast retransmit as usual, with
/// the limited-transmit segments counted in FlightSize.
#[test]
fn limited_transmit_sends_new_data_on_first_two_dupacks() {
    let mut c = cfg(8);
    c.limited_transmit = true;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    assert_eq!(drain(&mut s, 0).len(), 8);
    let out = ack(&mut s, MS, 0);
    assert_eq!(out, vec![seg(8 * MSS, MSS as u32, false)]);
    let out = ack(&mut s, MS, 0);
    assert_eq!(seqs(&out), vec![9]);
    assert_eq!(s.w.cwnd, 8 * MSS, "cwnd unchanged by limited transmit");
    let out = ack(&mut s, MS, 0);
    assert_eq!(out[0], seg(0, MSS as u32, true));
    // RFC 5681 3.2: segments sent by Limited Transmit are not part of the
    // FlightSize that sets ssthresh: 8 MSS / 2, not 10 MSS / 2.
    assert_eq!(s.w.ssthresh, 4 * MSS);
}

#[test]
fn ssthresh_floor_is_two_mss() {
    let mut s = sender(Variant::NewReno, 3);
    drain(&mut s, 0);
    for _ in 0..3 {
        ack(&mut s, MS, 0);
    }
    assert_eq!(s.w.ssthresh, 2 * MSS); // max(1500, 2000)
    assert_eq!(s.w.cwnd, 5 * MSS); // ssthresh + 3 MSS
}

/// Reno: cwnd = ssthresh + 3 MSS, +1 MSS per further dupack (new data goes
/// out once the inflated window exceeds the flight), deflated to ssthresh by
/// the next new ACK.
#[test]
fn reno_inflation_and_deflation() {
    let mut s = sender(Variant::Reno, 10);
    drain(&mut s, 0);
    for _ in 0..3 {
        ack(&mut s, MS, 0);
    }
    assert_eq!(s.w.cwnd, 8 * MSS);
    assert!(s.in_recovery());
    let mut new = vec![];
    for _ in 0..6 {
        new.extend(ack(&mut s, MS, 0));
    }
    assert_eq!(s.w.cwnd, 14 * MSS);
    // Window edge = 0 + 14 MSS; 10 sent, so segments 10..13 go out.
    assert_eq!(seqs(&new), vec![10, 11, 12, 13]);
    ack(&mut s, 2 * MS, 14 * MSS);
    assert!(!s.in_recovery());
    assert_eq!(s.w.cwnd, s.w.ssthresh);
    assert_eq!(s.w.ssthresh, 5 * MSS);
}

/// NewReno: a partial ACK retransmits the next hole at once and stays in
/// recovery; the full ACK ends it. Reno leaves recovery on the partial ACK.
#[test]
fn newreno_partial_ack_retransmits_next_hole() {
    let mut s = sender(Variant::NewReno, 10);
    drain(&mut s, 0);
    for _ in 0..3 {
        ack(&mut s, MS, 0);
    }
    // Segments 0 and 3 were lost; the retransmitted 0 fills the first hole.
    let cwnd_before = s.w.cwnd;
    let out = ack(&mut s, 2 * MS, 3 * MSS);
    assert!(s.in_recovery(), "partial ACK keeps NewReno in recovery");
    assert_eq!(out[0], seg(3 * MSS, MSS as u32, true));
    // Deflate by the amount acked, add back one MSS (RFC 6582 3.2 step 5).
    assert_eq!(s.w.cwnd, cwnd_before - 3 * MSS + MSS);
    ack(&mut s, 3 * MS, 10 * MSS);
    assert!(!s.in_recovery());
    assert_eq!(s.w.cwnd, s.w.ssthresh);
    assert_eq!(s.stats.timeouts, 0);

    let mut r = sender(Variant::Reno, 10);
    drain(&mut r, 0);
    for _ in 0..3 {
        ack(&mut r, MS, 0);
    }
    let out = ack(&mut r, 2 * MS, 3 * MSS);
    assert!(!r.in_recovery(), "Reno exits recovery on any new ACK");
    assert!(out.iter().all(|x| !x.retransmit));
}

/// Only the first partial ACK restarts the timer (RFC 6582 "Impatient").
#[test]
fn newreno_first_partial_ack_restarts_timer() {
    let mut s = sender(Variant::NewReno, 10);
    drain(&mut s, 0);
    for _ in 0..3 {
        ack(&mut s, MS, 0);
    }
    ack(&mut s, 100 * MS, 2 * MSS);
    let d1 = s.rto_deadline().unwrap();
    ack(&mut s, 200 * MS, 4 * MSS);
    assert_eq!(s.rto_deadline().unwrap(), d1);
}

#[test]
fn newreno_slow_but_steady_restarts_timer_on_every_partial_ack() {
    let mut c = cfg(10);
    c.slow_but_steady = true;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    drain(&mut s, 0);
    for _ in 0..3 {
        ack(&mut s, MS, 0);
    }
    ack(&mut s, 100 * MS, 2 * MSS);
    let d1 = s.rto_deadline().unwrap();
    ack(&mut s, 200 * MS, 4 * MSS);
    assert_eq!(s.rto_deadline().unwrap(), d1 + 100 * MS);
}

/// After a timeout, duplicate ACKs for data sent before it do not start a
/// fast retransmit (RFC 6582 section 4.1); Tahoe behaves the same way.
#[test]
fn no_fast_retransmit_after_timeout_for_old_data() {
    for v in [Variant::NewReno, Variant::Tahoe] {
        let mut s = sender(v, 10);
        drain(&mut s, 0);
        let d = s.rto_deadline().unwrap();
        assert!(s.on_timeout(d));
        let out = drain(&mut s, d);
        assert_eq!(seqs(&out), vec![0]);
        // Old segments 1..9 were received: the receiver answers the
        // retransmission with a jump, then duplicates would follow.
        let out = ack(&mut s, d + MS, MSS);
        assert!(out.iter().all(|x| x.retransmit));
        for _ in 0..3 {
            ack(&mut s, d + 2 * MS, MSS);
        }
        assert_eq!(s.stats.fast_retransmits, 0, "{v:?}");
    }
}

#[test]
fn tahoe_fast_retransmit_goes_back_to_one_segment() {
    let mut s = sender(Variant::Tahoe, 10);
    drain(&mut s, 0);
    for _ in 0..2 {
        ack(&mut s, MS, 0);
    }
    let out = ack(&mut s, MS, 0);
    assert_eq!(s.w.cwnd, MSS);
    assert_eq!(out, vec![seg(0, MSS as u32, true)]);
    // The ACK of the retransmission slow-starts from snd_una.
    let out = ack(&mut s, 2 * MS, 2 * MSS);
    assert_eq!(seqs(&out), vec![2, 3]);
    assert!(out.iter().all(|x| x.retransmit));
}

/// Tahoe's fast retransmit leaves exactly one segment: the fraction of a
/// byte congestion avoidance had gathered goes too (ns-2's cwnd_ = 1), or
/// the climb after it crosses each whole segment one ACK early (found with
/// test-suite-tcp's underutilized_100ms_control).
#[test]
fn tahoe_fast_retransmit_leaves_no_fraction_of_the_window() {
    let mut s = sender(Variant::Tahoe, 3);
    s.w.ssthresh = 3 * MSS;
    drain(&mut s, 0);
    // Congestion avoidance: each ACK adds MSS^2 / cwnd, a fraction of a byte on top.
    ack(&mut s, MS, MSS);
    assert!(s.w.ca_frac > 0.0);
    for _ in 0..3 {
        ack(&mut s, 2 * MS, MSS);
    }
    assert_eq!(s.w.cwnd, MSS);
    assert_eq!(s.w.ca_frac, 0.0);
}

/// RFC 6298: RTO doubles on each expiry up to the maximum, Karn's rule keeps
/// the backoff until a segment sent once is acknowledged.
#[test]
fn rto_backoff_and_reset_after_new_sample() {
    let mut c = cfg(1);
    c.initial_rto = SEC;
    c.max_rto = 60 * SEC;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    drain(&mut s, 0);
    let mut now = 0;
    let mut gaps = vec![];
    for _ in 0..8 {
        let d = s.rto_deadline().unwrap();
        gaps.push((d - now) / SEC);
        now = d;
        assert!(s.on_timeout(now));
        let out = drain(&mut s, now);
        assert_eq!(out, vec![seg(0, MSS as u32, true)]);
    }
    assert_eq!(gaps, vec![1, 2, 4, 8, 16, 32, 60, 60]);
    assert_eq!(s.stats.timeouts, 8);
    // The retransmission is acknowledged: ambiguous, no sample (Karn), so the
    // timer of the next segment keeps the backed-off value.
    let t = now + 100 * MS;
    let out = ack(&mut s, t, MSS);
    assert!(s.rto.srtt.is_none());
    assert_eq!(s.rto_deadline().unwrap(), t + 60 * SEC);
    assert_eq!(seqs(&out), vec![1, 2]);
    // Segment 1 was sent once: its ACK is a valid sample and resets backoff.
    ack(&mut s, t + 100 * MS, 2 * MSS);
    assert_eq!(s.rto.srtt, Some(100 * MS));
    assert_eq!(s.rto.backoff(), 1);
    assert_eq!(s.rto.rto(), 300 * MS);
}

#[test]
fn karn_ignores_acks_of_retransmitted_timed_segment() {
    let mut s = sender(Variant::Reno, 4);
    drain(&mut s, 0); // segment 0 is timed
    for _ in 0..3 {
        ack(&mut s, 10 * MS, 0);
    }
    ack(&mut s, 500 * MS, 4 * MSS);
    assert!(s.rto.srtt.is_none(), "segment 0 was retransmitted: no sample");
}

#[test]
fn timeout_sets_loss_window_and_goes_back_n() {
    let mut s = sender(Variant::Reno, 8);
    drain(&mut s, 0);
    // Two ACKs: cwnd 10 MSS, segments 8..11 out, flight 10 MSS.
    ack(&mut s, 100 * MS, MSS);
    ack(&mut s, 100 * MS, 2 * MSS);
    assert_eq!(s.flight(), 10 * MSS);
    let d = s.rto_deadline().unwrap();
    assert!(s.on_timeout(d));
    assert_eq!(s.w.cwnd, MSS);
    assert_eq!(s.w.ssthresh, 5 * MSS); // FlightSize / 2
    let out = drain(&mut s, d);
    assert_eq!(out, vec![seg(2 * MSS, MSS as u32, true)]);
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn stale_timer_is_ignored() {
    let mut s = sender(Variant::Reno, 2);
    drain(&mut s, 0);
    let d = s.rto_deadline().unwrap();
    assert!(!s.on_timeout(d - 1), "fires only at its deadline");
    // A new ACK restarts the timer: the old deadline is now stale.
    ack(&mut s, 100 * MS, MSS);
    let d2 = s.rto_deadline().unwrap();
    assert_eq!(d2, 100 * MS + 300 * MS);
    assert!(!s.on_timeout(d2 - 1));
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn aborts_after_max_retransmits() {
    let mut c = cfg(1);
    c.max_retransmits = Some(3);
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    drain(&mut s, 0);
    for i in 0..4 {
        let d = s.rto_deadline().unwrap();
        assert!(s.on_timeout(d));
        assert_eq!(s.aborted, i == 3);
        drain(&mut s, d);
    }
    assert!(s.rto_deadline().is_none());
    assert!(s.poll_transmit(1000 * SEC).is_none());
}

#[test]
fn finite_transfer_ends_with_a_short_segment_and_completes() {
    let mut s = TcpSender::new(cfg(10), make_cc(Variant::NewReno, &cfg(10)));
    s.app_write(Some(2500));
    let out = drain(&mut s, 0);
    assert_eq!(out.iter().map(|x| x.len).collect::<Vec<_>>(), vec![1000, 1000, 500]);
    ack(&mut s, 50 * MS, 2500);
    assert_eq!(s.completed_at, Some(50 * MS));
    assert!(s.rto_deadline().is_none());
}

#[test]
fn receiver_window_limits_sending() {
    let mut s = sender(Variant::NewReno, 10);
    s.on_ack(0, &TcpHeader { ack: 0, window: 3 * MSS as u32, ..Default::default() });
    assert_eq!(drain(&mut s, 0).len(), 3);
}

fn rx_with(policy: AckPolicy, sack: bool, ts: bool) -> TcpReceiver {
    let mut c = cfg(2);
    c.ack_policy = policy;
    c.delack_timeout = 100 * MS;
    c.sack = sack;
    c.timestamps = ts;
    TcpReceiver::new(&c)
}

fn rx(delayed: bool) -> TcpReceiver {
    rx_with(if delayed { AckPolicy::Delayed } else { AckPolicy::Immediate }, false, false)
}

/// Feed in-order full segments 0..n; return the segment numbers after which
/// an ACK went out at once.
fn acked_after(r: &mut TcpReceiver, n: u64) -> Vec<u64> {
    let mut out = vec![];
    for i in 0..n {
        if r.on_segment(i * MS, i * MSS, MSS as u32, None) {
            r.make_ack();
            out.push(i);
        }
    }
    out
}

#[test]
fn receiver_acks_every_segment_by_default() {
    let mut r = rx(false);
    assert_eq!(acked_after(&mut r, 5), vec![0, 1, 2, 3, 4]);
    assert_eq!(r.delivered(), 5 * MSS);
}

#[test]
fn delayed_acks_every_second_segment_and_on_timer() {
    let mut r = rx(true);
    assert_eq!(acked_after(&mut r, 10), vec![1, 3, 5, 7, 9], "one ACK per two full segments");
    assert!(!r.on_segment(20 * MS, 10 * MSS, MSS as u32, None));
    assert_eq!(r.delack_deadline(), Some(120 * MS));
    assert!(!r.on_delack_timer(119 * MS));
    assert!(r.on_delack_timer(120 * MS));
}

/// `push_ack` (the linux profile): a full segment carrying PSH (the end of
/// a write) or a short one is acknowledged at once; without the rule both
/// wait for the second segment or the timer.
#[test]
fn push_ack_answers_the_end_of_a_write_at_once() {
    let mut c = cfg(2);
    c.ack_policy = AckPolicy::Delayed;
    c.push_ack = true;
    let mut r = TcpReceiver::new(&c);
    r.note_push(false);
    assert!(!r.on_segment(0, 0, MSS as u32, None), "a full segment without PSH is held");
    r.make_ack();
    r.note_push(true);
    assert!(r.on_segment(MS, MSS, MSS as u32, None), "PSH: at once");
    r.make_ack();
    r.note_push(false);
    assert!(r.on_segment(2 * MS, 2 * MSS, 100, None), "shorter than the MSS: at once");
    let mut r = rx(true);
    r.note_push(true);
    assert!(!r.on_segment(0, 0, MSS as u32, None));
    r.note_push(false);
    assert!(r.on_segment(MS, MSS, MSS as u32, None), "the second full segment");
    r.make_ack();
    r.note_push(true);
    assert!(!r.on_segment(2 * MS, 2 * MSS, 100, None), "without push_ack a short one is held too");
}

/// `quick_acks` (the linux profile's 16): a delaying receiver acknowledges
/// the first segments of a connection one by one, as many as the rule says
/// or half the window in segments if fewer (Linux's tcp_incr_quickack()),
/// each ACK using one; then every second segment, as before.
#[test]
fn quick_acks_at_the_start_then_every_second_segment() {
    let mut c = cfg(2);
    c.ack_policy = AckPolicy::Delayed;
    c.quick_acks = 16;
    c.rwnd = 100 * MSS;
    let mut r = TcpReceiver::new(&c);
    let answered: Vec<bool> = (0..20u64)
        .map(|k| {
            let now = r.on_segment(k * MS, k * MSS, MSS as u32, None);
            if now {
                r.make_ack();
            }
            now
        })
        .collect();
    let mut want = vec![true; 16];
    want.extend([false, true, false, true]);
    assert_eq!(answered, want);
    // A window of 10 segments: 5 quick ACKs.
    c.rwnd = 10 * MSS;
    let mut r = TcpReceiver::new(&c);
    let quick = (0..8u64)
        .take_while(|&k| {
            let now = r.on_segment(k * MS, k * MSS, MSS as u32, None);
            if now {
                r.make_ack();
            }
            now
        })
        .count();
    assert_eq!(quick, 5);
    // A segment received twice starts the quick ACKs again (Linux's
    // tcp_enter_quickack_mode() for a retransmission it had already).
    let later = 100 * MS;
    let mut r = TcpReceiver::new(&c);
    for k in 0..20u64 {
        if r.on_segment(k * MS, k * MSS, MSS as u32, None) {
            r.make_ack();
        }
    }
    assert!(r.on_segment(later, 5 * MSS, MSS as u32, None), "a duplicate: at once");
    r.make_ack();
    let quick = (20..30u64)
        .take_while(|&k| {
            let now = r.on_segment(later + k * MS, k * MSS, MSS as u32, None);
            if now {
                r.make_ack();
            }
            now
        })
        .count();
    assert_eq!(quick, 4, "half the window of 10 segments, one used by the duplicate's own ACK");
}

/// The sender sets PSH on the segment that ends what the application has
/// written: a transfer's last segment, not the ones before it.
#[test]
fn psh_marks_the_end_of_the_written_data() {
    let mut s = TcpSender::new(cfg(4), make_cc(Variant::NewReno, &cfg(4)));
    s.app_write(Some(3 * MSS + 500));
    let flags: Vec<u8> = std::iter::from_fn(|| s.poll_segment(0)).map(|o| o.header.flags).collect();
    let psh = crate::packet::flags::PSH;
    assert_eq!(flags.iter().map(|f| f & psh != 0).collect::<Vec<_>>(), vec![false, false, false, true]);
}

#[test]
fn delayed_ack_is_immediate_out_of_order_and_on_hole_fill() {
    let mut r = rx(true);
    assert!(!r.on_segment(0, 0, MSS as u32, None));
    assert!(r.on_segment(0, 2 * MSS, MSS as u32, None), "out of order: immediate dupack");
    assert_eq!(r.make_ack().ack, MSS);
    assert!(r.on_segment(0, MSS, MSS as u32, None), "fills the hole: immediate");
    assert_eq!(r.make_ack().ack, 3 * MSS);
    assert!(r.on_segment(0, 0, MSS as u32, None), "duplicate: immediate");
}

/// ACK thinning: d = 1 for the first 2 segments, 2 until the 5th, 3 until
/// the 9th, then 4 (Altman & Jimenez's thresholds 2, 5, 9).
#[test]
fn ack_thinning_grows_d_with_the_sequence_number() {
    let mut r = rx_with(AckPolicy::Thinning { thresholds: [2, 5, 9] }, false, false);
    let acks = acked_after(&mut r, 30);
    assert_eq!(acks, vec![0, 1, 3, 6, 10, 14, 18, 22, 26]);
    // Segments 27-29 wait for the timer, armed by the first of them.
    assert_eq!(r.delack_deadline(), Some(127 * MS));
    assert!(r.on_delack_timer(127 * MS));
    r.make_ack();
    // Out of order is still acknowledged at once.
    assert!(r.on_segment(50 * MS, 40 * MSS, MSS as u32, None));
}

#[test]
fn receiver_merges_out_of_order_ranges() {
    let mut r = rx(false);
    for s in [3000, 5000, 4000] {
        r.on_segment(0, s, 1000, None);
    }
    assert_eq!(r.ooo_ranges(), &[(3000, 6000)]);
    for s in [1000, 0, 2000] {
        r.on_segment(0, s, 1000, None);
    }
    assert_eq!(r.delivered(), 6000);
    assert!(r.ooo_ranges().is_empty());
}

/// Segments of 1000 bytes in a random order, some twice: the held ranges
/// are always the maximal runs of received segments above the cumulative
/// ACK, with and without SACK (which also keeps the blocks' order).
#[test]
fn out_of_order_ranges_are_the_runs_received() {
    let mut rng = crate::engine::rng::stream_rng(7, "ooo-ranges");
    for sack in [false, true] {
        let mut r = rx_with(AckPolicy::Immediate, sack, false);
        let mut got = [false; 40];
        for _ in 0..120 {
            let k = (rng.next_u64() % 40) as usize;
            r.on_segment(0, k as u64 * 1000, 1000, None);
            got[k] = true;
            let next = got.iter().position(|&g| !g).unwrap_or(40);
            assert_eq!(r.delivered(), next as u64 * 1000);
            let mut runs = Vec::new();
            let mut i = next;
            while i < 40 {
                if got[i] {
                    let s = i;
                    while i < 40 && got[i] {
                        i += 1;
                    }
                    runs.push((s as u64 * 1000, i as u64 * 1000));
                } else {
                    i += 1;
                }
            }
            assert_eq!(r.ooo_ranges(), &runs[..]);
        }
    }
}

/// RFC 2018 4: the first SACK block holds the most recently received
/// segment, the others follow most recent first; 4 blocks fit, 3 next to
/// timestamps.
#[test]
fn sack_blocks_most_recent_first() {
    let mut r = rx_with(AckPolicy::Immediate, true, false);
    r.on_segment(0, 0, 1000, None);
    for s in [2000, 4000, 6000, 8000, 10_000] {
        r.on_segment(0, s, 1000, None);
    }
    let a = r.make_ack();
    assert_eq!(a.ack, 1000);
    let blocks: Vec<(u64, u64)> = a.sack[..a.nsack as usize].iter().map(|b| (b.start, b.end)).collect();
    assert_eq!(blocks, vec![(10_000, 11_000), (8000, 9000), (6000, 7000), (4000, 5000)]);
    // A segment extending an older block moves that block to the front.
    r.on_segment(0, 5000, 1000, None);
    let a = r.make_ack();
    assert_eq!((a.sack[0].start, a.sack[0].end), (4000, 7000), "4000-5000 and 6000-7000 joined");
    assert_eq!(a.nsack, 4);
    let mut t = rx_with(AckPolicy::Immediate, true, true);
    for s in [2000, 4000, 6000, 8000] {
        t.on_segment(0, s, 1000, Some(7));
    }
    assert_eq!(t.make_ack().nsack, 3);
}

/// RFC 2883 (`dsack`): the ACK that answers a duplicate reports it first,
/// once. Below the cumulative ACK the block is the segment; above it, the
/// part already held, with the block that holds it second; a segment that
/// overlaps the cumulative ACK reports its old part. Off (`dsack = false`,
/// or without SACK), none.
#[test]
fn a_duplicate_segment_is_reported_in_the_first_block() {
    let blocks =
        |a: &AckFields| -> Vec<(u64, u64)> { a.sack[..a.nsack as usize].iter().map(|b| (b.start, b.end)).collect() };
    let mut c = cfg(2);
    c.sack = true;
    c.dsack = true;
    let mut r = TcpReceiver::new(&c);
    r.on_segment(0, 0, 1000, None);
    r.on_segment(0, 1000, 1000, None);
    r.on_segment(0, 3000, 1000, None);
    assert_eq!(blocks(&r.make_ack()), vec![(3000, 4000)]);
    assert!(r.on_segment(0, 1000, 1000, None), "a duplicate is answered at once");
    let a = r.make_ack();
    assert_eq!((a.ack, blocks(&a)), (2000, vec![(1000, 2000), (3000, 4000)]));
    assert_eq!(blocks(&r.make_ack()), vec![(3000, 4000)], "only the next ACK carries it");
    r.on_segment(0, 5000, 1000, None);
    r.on_segment(0, 3000, 1000, None);
    assert_eq!(blocks(&r.make_ack()), vec![(3000, 4000), (3000, 4000), (5000, 6000)]);
    r.on_segment(0, 1500, 1000, None); // 1500..2000 old, 2000..2500 new
    assert_eq!(blocks(&r.make_ack())[0], (1500, 2000));
    // Four SACK blocks at most: the D-SACK takes the room of the oldest.
    let mut r = TcpReceiver::new(&c);
    for s in [2000, 4000, 6000, 8000] {
        r.on_segment(0, s, 1000, None);
    }
    r.on_segment(0, 4000, 1000, None);
    assert_eq!(blocks(&r.make_ack()), vec![(4000, 5000), (4000, 5000), (8000, 9000), (6000, 7000)]);
    for dsack in [false, true] {
        let mut c = cfg(2);
        (c.sack, c.dsack) = (dsack, !dsack);
        let mut r = TcpReceiver::new(&c);
        r.on_segment(0, 0, 1000, None);
        r.on_segment(0, 0, 1000, None);
        assert_eq!(r.make_ack().nsack, 0);
    }
}

#[test]
fn timestamps_echo_the_segment_at_the_left_edge() {
    let mut r = rx_with(AckPolicy::Immediate, false, true);
    r.on_segment(0, 0, 1000, Some(5));
    assert_eq!(r.make_ack().ts_ecr, Some(5));
    r.on_segment(0, 2000, 1000, Some(9)); // out of order: TS.Recent unchanged
    assert_eq!(r.make_ack().ts_ecr, Some(5));
    r.on_segment(0, 1000, 1000, Some(11)); // covers the left edge
    assert_eq!(r.make_ack().ts_ecr, Some(11));
}

/// Vegas retransmits on the first duplicate ACK when the first unacked
/// segment is older than its fine-grained timeout, and cuts cwnd by a
/// quarter (not a half) for it.
#[test]
fn vegas_fine_grained_retransmit_on_first_dupack() {
    let mut s = sender(Variant::Vegas, 8);
    drain(&mut s, 0);
    // First ACK after 50 ms: fine timeout = 1.5 x 50 ms.
    let out = ack(&mut s, 50 * MS, MSS);
    assert!(!out.is_empty());
    let cwnd = s.w.cwnd / MSS;
    // Segment 1 (sent at 0) is still missing 200 ms later: one duplicate
    // ACK is enough.
    let out = ack(&mut s, 200 * MS, MSS);
    assert_eq!(out[0], seg(MSS, MSS as u32, true));
    assert_eq!(s.stats.fast_retransmits, 1);
    let expect = cwnd - cwnd / 4 + 1; // decreased by a quarter, inflated by the dupack
    assert_eq!(s.w.cwnd / MSS, expect);
}

#[test]
fn vegas_waits_for_dupthresh_when_not_expired() {
    let mut s = sender(Variant::Vegas, 8);
    drain(&mut s, 0);
    ack(&mut s, 50 * MS, MSS);
    // 10 ms after the segments were sent: well inside the fine timeout.
    assert!(ack(&mut s, 52 * MS, MSS).iter().all(|x| !x.retransmit));
    assert_eq!(s.stats.fast_retransmits, 0);
}

/// RFC 3168: an ECN-Echo halves the window once per window of data, sends
/// nothing again, and the next new segment carries CWR; new data is ECT,
/// retransmissions are not.
#[test]
fn ecn_echo_reduces_once_per_window_without_retransmitting() {
    let mut c = cfg(10);
    c.ecn = true;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    let out = drain(&mut s, 0);
    assert!(out.iter().all(|x| x.ect && !x.cwr));
    let ece = |s: &mut TcpSender, t, a| {
        s.on_ack(t, &TcpHeader { ack: a, window: 1_000_000, flags: crate::packet::flags::ECE, ..Default::default() });
        drain(s, t)
    };
    let out = ece(&mut s, MS, MSS);
    assert_eq!(s.w.cwnd, 5 * MSS, "FlightSize 10 MSS halved");
    assert_eq!(s.w.ssthresh, 5 * MSS);
    assert!(out.iter().all(|x| !x.retransmit));
    assert_eq!(s.stats.ecn_reductions, 1);
    // More ECEs within the same window: no further reduction.
    ece(&mut s, 2 * MS, 2 * MSS);
    ece(&mut s, 3 * MS, 3 * MSS);
    assert_eq!(s.stats.ecn_reductions, 1);
    // Up to the segment that will carry CWR, the receiver still echoes the
    // old mark: the ACK of all data sent before the reduction is ignored.
    let out = ece(&mut s, 4 * MS, 10 * MSS);
    assert_eq!(s.stats.ecn_reductions, 1, "ECE up to the CWR segment is the old echo");
    assert!(out[0].cwr, "first new segment after the reduction carries CWR");
    assert!(out.iter().skip(1).all(|x| !x.cwr));
    let out = ack(&mut s, 5 * MS, 11 * MSS);
    assert!(out.iter().all(|x| !x.cwr));
    // A window later, ECE reduces again.
    let top = s.snd_max;
    ece(&mut s, 100 * MS, top);
    assert_eq!(s.stats.ecn_reductions, 2);
}

#[test]
fn receiver_echoes_ce_until_cwr() {
    let mut r = rx(false);
    r.note_ecn(true, false);
    r.on_segment(0, 0, 1000, None);
    assert!(r.make_ack().ece);
    r.note_ecn(false, false);
    r.on_segment(0, 1000, 1000, None);
    assert!(r.make_ack().ece, "echo continues until CWR");
    r.note_ecn(false, true);
    r.on_segment(0, 2000, 1000, None);
    assert!(!r.make_ack().ece);
}

/// ELN: duplicate ACKs carrying the ELN bit make the sender retransmit the
/// hole once, without touching cwnd or ssthresh and without fast retransmit.
#[test]
fn eln_retransmits_without_congestion_response() {
    let mut c = cfg(10);
    c.eln = true;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    drain(&mut s, 0);
    let (cwnd, ssthresh) = (s.w.cwnd, s.w.ssthresh);
    let mut rtx = vec![];
    for i in 0..5 {
        s.on_ack(MS * i, &TcpHeader { ack: 0, window: 1_000_000, eln: true, ..Default::default() });
        rtx.extend(drain(&mut s, MS * i).into_iter().filter(|x| x.retransmit));
    }
    assert_eq!(rtx, vec![seg(0, MSS as u32, true)], "one retransmission of the hole");
    assert_eq!((s.w.cwnd, s.w.ssthresh), (cwnd, ssthresh));
    assert_eq!(s.stats.fast_retransmits, 0);
    assert_eq!(s.stats.eln_retransmits, 1);
}

/// ELN resends nothing during a fast recovery: the recovery resends the
/// holes itself, and the ELN-marked duplicates that follow its
/// retransmission (NewReno's on a partial ACK, Reno's fast retransmit) come
/// from segments sent before that copy arrived. ns-2's tcp_eln() acts only
/// on the first duplicate of an ACK (`++dupacks_ == eln_rxmit_thresh_`),
/// which no duplicate in recovery is. After the recovery, a hole is resent
/// on its first ELN duplicate again.
#[test]
fn eln_resends_nothing_in_fast_recovery() {
    let eln_dup = |s: &mut TcpSender, now: Time, n: u64| {
        s.on_ack(now, &TcpHeader { ack: n, window: 1_000_000, eln: true, ..Default::default() });
        drain(s, now).into_iter().filter(|x| x.retransmit).collect::<Vec<_>>()
    };
    let mut c = cfg(10);
    c.eln = true;
    for v in [Variant::NewReno, Variant::Reno] {
        // Segment 0 lost to congestion (plain duplicates: fast retransmit).
        let mut s = TcpSender::new(c.clone(), make_cc(v, &c));
        s.app_write(None);
        drain(&mut s, 0);
        for _ in 0..3 {
            ack(&mut s, MS, 0);
        }
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(eln_dup(&mut s, 2 * MS, 0), vec![], "{v:?}: 0 resent twice");
        if v == Variant::NewReno {
            // Segment 3 lost to corruption: the partial ACK resends it.
            let out = ack(&mut s, 3 * MS, 3 * MSS);
            assert_eq!(out[0], seg(3 * MSS, MSS as u32, true));
            for i in 0..3 {
                assert_eq!(eln_dup(&mut s, 4 * MS + i, 3 * MSS), vec![], "3 resent twice");
            }
        }
        assert_eq!(s.stats.eln_retransmits, 0, "{v:?}");
        // Out of recovery, segment 10 lost to corruption: resent by ELN.
        let out = ack(&mut s, 10 * MS, 10 * MSS);
        assert!(!s.in_recovery() && out[0] == seg(10 * MSS, MSS as u32, false), "{v:?}: {out:?}");
        assert_eq!(eln_dup(&mut s, 11 * MS, 10 * MSS), vec![seg(10 * MSS, MSS as u32, true)], "{v:?}");
        assert_eq!(s.stats.eln_retransmits, 1, "{v:?}");
    }
}
