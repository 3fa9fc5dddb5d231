//! A sender whose application pauses (`idle.rs`): the restart after an
//! idle period under each profile's rule, and ns-2's control_increase_.
//! ns-2's congestion window validation (QOption_, EnblRTTCtr_) is held to
//! ns-2's own golden outputs (test-suite-tcp's quiescent tests,
//! tests/test_ns2_suites.py).

use super::cc::{make_cc, Variant};
use super::config::{IdleRestart, TcpConfig, TcpProfile};
use super::sender::{Segment, TcpSender};
use crate::engine::time::{MS, SEC};
use crate::engine::Time;
use crate::packet::TcpHeader;

const MSS: u64 = 1000;

fn sender(rule: IdleRestart, iw: u32) -> TcpSender {
    sender_with(rule, iw, |_| ())
}

fn sender_with(rule: IdleRestart, iw: u32, tune: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let mut c = TcpConfig::profile(TcpProfile::Rfc);
    c.mss = MSS as u32;
    c.initial_window = iw;
    c.rwnd = 1_000_000;
    c.initial_ssthresh = Some(64 * MSS);
    c.syn = false;
    c.idle_restart = rule;
    tune(&mut c);
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.set_app_paced();
    s
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn ack(s: &mut TcpSender, now: Time, n: u64) -> Vec<Segment> {
    s.on_ack(now, &TcpHeader { ack: n, window: 1_000_000, ..Default::default() });
    drain(s, now)
}

/// 40 segments written at 0 and sent in slow start from a window of 2,
/// each flight acknowledged 100 ms after it left: cwnd ends at 42 segments,
/// the last segment sent at 400 ms and acknowledged at 500 ms.
fn after_a_transfer(rule: IdleRestart) -> TcpSender {
    after_a_transfer_with(rule, |_| ())
}

fn after_a_transfer_with(rule: IdleRestart, tune: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    let mut s = sender_with(rule, 2, tune);
    s.app_write(Some(40 * MSS));
    let mut out = drain(&mut s, 0);
    let mut t = 0;
    while !out.is_empty() {
        t += 100 * MS;
        let mut next = Vec::new();
        for x in out {
            next.extend(ack(&mut s, t, x.seq + x.len as u64));
        }
        out = next;
    }
    assert_eq!(s.snd_una, 40 * MSS);
    assert_eq!(s.w.cwnd, 42 * MSS);
    assert!(s.rto_deadline().is_none(), "RFC 6298 5.2: the timer stops");
    s
}

#[test]
fn rfc5681_restarts_from_the_initial_window_after_an_rto_of_idleness() {
    let mut s = after_a_transfer(IdleRestart::Rfc5681);
    let rto = s.rto.rto();
    // Idle less than an RTO since the last segment: the window stays.
    s.app_write_more(400 * MS + rto, 10 * MSS);
    assert_eq!(s.w.cwnd, 42 * MSS);
    assert_eq!(drain(&mut s, 400 * MS + rto).len(), 10);
    ack(&mut s, 500 * MS + rto, 50 * MSS);
    // More than an RTO: RW = min(IW, cwnd), two segments.
    let at = 2 * SEC + 2 * rto;
    s.app_write_more(at, 10 * MSS);
    assert_eq!(s.w.cwnd, 2 * MSS);
    assert_eq!(drain(&mut s, at).len(), 2);
    assert_eq!(s.completed_at, None, "the new write is not acknowledged yet");
}

#[test]
fn linux_halves_once_per_further_rto_down_to_the_restart_window() {
    let mut s = after_a_transfer(IdleRestart::Linux);
    let rto = s.rto.rto();
    let ssthresh = s.w.ssthresh;
    // 3.5 RTOs since the last segment (at 400 ms): one halving per whole
    // RTO, 42 -> 21 -> 10 -> 5.
    s.app_write_more(400 * MS + 7 * rto / 2, 10 * MSS);
    assert_eq!(s.w.cwnd, 5 * MSS);
    assert_eq!(s.w.ssthresh, ssthresh.max((21 + 10) * MSS), "tcp_current_ssthresh(): at least 3/4 cwnd");
    let mut s = after_a_transfer(IdleRestart::Linux);
    // Long enough for many halvings: not below min(IW, cwnd).
    s.app_write_more(100 * SEC, MSS);
    assert_eq!(s.w.cwnd, 2 * MSS);
}

/// On the kernel's clock (`timer_wheel`, 4 ms jiffies at phase 0) the
/// idle time is whole jiffies between the last send and the write
/// (tcp_jiffies32 - lsndtime): 3.9 ms past the last whole tick within
/// an RTO is not idle enough, though an RTO has passed.
#[test]
fn linux_counts_the_idle_time_in_jiffies_on_the_kernels_clock() {
    for wheel in [true, false] {
        let mut s = after_a_transfer_with(IdleRestart::Linux, |c| {
            (c.timer_wheel, c.granularity, c.clock_phase) = (wheel, 4 * MS, 0);
        });
        let rto = s.rto.rto();
        let whole = rto / (4 * MS) * (4 * MS);
        assert!(rto - whole < 3_900_000, "the case needs an RTO {rto} off the next tick by more");
        // The last segment left at 400 ms, a tick.
        s.app_write_more(400 * MS + whole + 3_900_000, 10 * MSS);
        let expect = if wheel { 42 * MSS } else { 21 * MSS };
        assert_eq!(s.w.cwnd, expect, "timer_wheel {wheel}");
    }
}

#[test]
fn ns2_timer_runs_on_and_restarts_from_one_segment() {
    let mut s = after_a_transfer(IdleRestart::Ns2Timer);
    let rto = s.rto.rto();
    // The last ACK (500 ms) left the timer running: before it expires the
    // window stays and the segments sent do not restart it.
    s.app_write_more(500 * MS + rto / 2, 5 * MSS);
    assert_eq!(s.w.cwnd, 42 * MSS);
    drain(&mut s, 500 * MS + rto / 2);
    assert_eq!(s.rto_deadline(), Some(500 * MS + rto));
    ack(&mut s, 500 * MS + rto / 2 + 100 * MS, 45 * MSS);
    // Past its expiry (at 600 ms + rto + k rto): one segment, ssthresh kept,
    // the timer at its next period, no timeout counted.
    let last = 500 * MS + rto / 2 + 100 * MS;
    let (ssthresh, timeouts) = (s.w.ssthresh, s.stats.timeouts);
    s.app_write_more(last + 5 * rto / 2, 5 * MSS);
    assert_eq!(s.w.cwnd, MSS);
    assert_eq!(s.w.ssthresh, ssthresh);
    assert_eq!(s.stats.timeouts, timeouts);
    assert_eq!(drain(&mut s, last + 5 * rto / 2).len(), 1);
    assert_eq!(s.rto_deadline(), Some(last + 3 * rto));
}

#[test]
fn off_keeps_the_window() {
    let mut s = after_a_transfer(IdleRestart::Off);
    s.app_write_more(100 * SEC, 50 * MSS);
    assert_eq!(s.w.cwnd, 42 * MSS);
}

#[test]
fn control_increase_opens_only_a_full_window() {
    // ns-2's control_increase_: 5 segments written, a window of 10: the
    // window is never full, so the ACKs leave it at 10.
    let mut s = sender(IdleRestart::Off, 10);
    let mut c = s.cfg.clone();
    c.control_increase = true;
    s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(Some(5 * MSS));
    assert_eq!(drain(&mut s, 0).len(), 5);
    for k in 1..=5 {
        ack(&mut s, 100 * MS, k * MSS);
    }
    assert_eq!(s.w.cwnd, 10 * MSS);
    // Without it every ACK opens the window (slow start).
    let mut s = sender(IdleRestart::Off, 10);
    s.app_write(Some(5 * MSS));
    drain(&mut s, 0);
    for k in 1..=5 {
        ack(&mut s, 100 * MS, k * MSS);
    }
    assert_eq!(s.w.cwnd, 15 * MSS);
    // A full window opens it: 10 written, 10 sent, the first ACK finds the
    // window full.
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(Some(10 * MSS));
    drain(&mut s, 0);
    ack(&mut s, 100 * MS, MSS);
    assert_eq!(s.w.cwnd, 11 * MSS);
}

/// A sender with `cwnd_limited` (Linux's tcp_is_cwnd_limited()) and a
/// receiver window of `rwnd` segments, in congestion avoidance from a
/// cwnd of 10 (ssthresh 10).
fn linux_limited(rule: bool, rwnd: u64) -> TcpSender {
    let mut c = sender(IdleRestart::Off, 10).cfg.clone();
    c.cwnd_limited = rule;
    c.initial_ssthresh = Some(10 * MSS);
    c.rwnd = rwnd * MSS;
    TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c))
}

fn ack_rwnd(s: &mut TcpSender, now: Time, n: u64, rwnd: u64) -> Vec<Segment> {
    s.on_ack(now, &TcpHeader { ack: n, window: (rwnd * MSS) as u32, ..Default::default() });
    drain(s, now)
}

#[test]
fn cwnd_limited_grows_only_a_window_that_limits() {
    // Held by a receiver window of 6 segments (bulk data): the flight never
    // reaches cwnd 10, so 60 ACKs leave cwnd at 10; without the rule each
    // grows it by MSS^2 / cwnd (congestion avoidance).
    for (rule, grows) in [(true, false), (false, true)] {
        let mut s = linux_limited(rule, 6);
        s.app_write(None);
        let mut out = drain(&mut s, 0);
        assert_eq!(out.len(), 6, "the receiver's window");
        let mut t = 0;
        for _ in 0..10 {
            t += 100 * MS;
            let mut next = Vec::new();
            for x in out {
                next.extend(ack_rwnd(&mut s, t, x.seq + x.len as u64, 6));
            }
            out = next;
        }
        assert_eq!(s.w.cwnd > 10 * MSS, grows, "rule {rule}: cwnd {}", s.w.cwnd);
    }
    // Held by cwnd (a receiver window of 100): it grows as without the rule.
    let mut s = linux_limited(true, 100);
    s.app_write(None);
    assert_eq!(drain(&mut s, 0).len(), 10);
    ack_rwnd(&mut s, 100 * MS, MSS, 100);
    assert_eq!(s.w.cwnd, 10 * MSS + MSS * MSS / (10 * MSS));
}

#[test]
fn cwnd_limited_in_slow_start_grows_to_twice_what_was_out() {
    // Slow start (ssthresh unbounded) with 4 segments of data out of a
    // window of 10: the window may grow while below 2 x 4 = 8, so it stays
    // at 10 (Linux: "ensure cwnd grows to twice what was ACKed").
    let mut c = sender(IdleRestart::Off, 10).cfg.clone();
    c.cwnd_limited = true;
    c.initial_ssthresh = Some(u64::MAX);
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(Some(4 * MSS));
    assert_eq!(drain(&mut s, 0).len(), 4);
    ack(&mut s, 100 * MS, MSS);
    assert_eq!(s.w.cwnd, 10 * MSS);
    // With a window of 2 and 2 segments out the flight reaches cwnd: it grows.
    let mut c2 = c.clone();
    c2.initial_window = 2;
    let mut s = TcpSender::new(c2.clone(), make_cc(Variant::NewReno, &c2));
    s.app_write(Some(40 * MSS));
    assert_eq!(drain(&mut s, 0).len(), 2);
    ack(&mut s, 100 * MS, MSS);
    assert_eq!(s.w.cwnd, 3 * MSS);
}

/// ns-2's Vegas agent times out at every expiry of the timer that runs on
/// after the last ACK (its timeout() has no branch for an idle sender):
/// `ns` with a Vegas agent that sent 30 packets and then waited showed
/// cwnd_ 2, ssthresh_ from 20 to 6 and then 2, nrexmit_ and backoff_
/// growing with each expiry. Here 4 segments, all acknowledged, then a
/// write 4 RTOs later: expiries at 1 and 3 RTOs (the second backed off),
/// the next at 7; the write goes out in a window of two segments. TcpAgent's
/// idle branch (the other agents) keeps ssthresh and restarts at one.
#[test]
fn ns2_timer_times_vegas_out_at_every_expiry() {
    use super::config::Ns2Rules;
    let mut c = TcpConfig::profile(TcpProfile::Ns2);
    c.rules = Ns2Rules { ns2_recover_numbers: false, ..Ns2Rules::ns2() };
    c.mss = MSS as u32;
    c.initial_window = 4;
    c.rwnd = 20 * MSS;
    c.syn = false;
    c.idle_restart = IdleRestart::Ns2Timer;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::Vegas, &c));
    s.set_app_paced();
    s.app_write(Some(4 * MSS));
    assert_eq!(drain(&mut s, 0).len(), 4);
    for k in 1..=4 {
        s.on_ack(100 * MS, &TcpHeader { ack: k * MSS, window: (20 * MSS) as u32, ..Default::default() });
    }
    assert_eq!(s.snd_una, 4 * MSS);
    let (cwnd, rto) = (s.w.cwnd, s.rto.rto());
    assert!(cwnd >= 4 * MSS, "cwnd {cwnd}");
    let at = 100 * MS + 4 * rto;
    s.app_write_more(at, 10 * MSS);
    assert_eq!(s.stats.timeouts, 2);
    assert_eq!((s.w.cwnd, s.w.ssthresh), (2 * MSS, 2 * MSS));
    assert_eq!(s.rto.backoff(), 4);
    assert_eq!(s.rto_deadline(), Some(100 * MS + 7 * rto));
    assert_eq!(drain(&mut s, at).len(), 2);
}
