//! Packet-level tests of RACK (`rack.rs`, the linux profile's SACK loss
//! detection) against RFC 6675's IsLost() with go-back-N at a timeout (the
//! same profile with `rack = false`). Each test scripts the exchange by
//! hand: a first window acknowledged after 100 ms sets srtt and min_rtt,
//! so RACK's reordering window is min_rtt / 4 = 25 ms.

use super::cc::{make_cc, Variant};
use super::config::{TcpConfig, TcpProfile};
use super::prr_tests::{self, MSS};
use super::sender::{Segment, TcpSender};
use crate::engine::time::MS;
use crate::engine::Time;
const RTT: Time = 100 * MS;

/// The linux profile with 1000-byte segments, a first window of 10 and a
/// receiver's window that never limits, timestamps off, `tune` applied;
/// the application writes `bytes` (None: bulk).
pub(super) fn make(tune: impl FnOnce(&mut TcpConfig), bytes: Option<u64>) -> TcpSender {
    let mut c = TcpConfig::profile(TcpProfile::Linux);
    c.mss = MSS as u32;
    c.initial_window = 10;
    c.rwnd = 1_000_000;
    c.timestamps = false;
    tune(&mut c);
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(bytes);
    s
}

fn sender(rack: bool) -> TcpSender {
    make(
        |c| {
            c.limited_transmit = false;
            c.rack = rack;
        },
        None,
    )
}

fn seqs(v: Vec<Segment>) -> Vec<u64> {
    v.iter().map(|g| g.seq / MSS).collect()
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<u64> {
    seqs(prr_tests::drain(s, now))
}

/// An ACK of `ack` segments SACKing the ranges [from, to) of segments.
fn ack(s: &mut TcpSender, now: Time, ack: u64, sacked: &[(u64, u64)]) -> Vec<u64> {
    seqs(prr_tests::ack(s, now, ack, sacked))
}

/// In-order ACKs up to `from..to` segments, 1 ms apart from 200 ms on
/// (after `warm`); returns the last one's time.
fn ack_in_order(s: &mut TcpSender, from: u64, to: u64) -> Time {
    let mut last = 0;
    for k in from..to {
        last = 2 * RTT + (k - 10) * MS;
        ack(s, last, k, &[]);
    }
    last
}

/// Segments 0..10 at 0, each acknowledged at 100 ms: slow start sends
/// 10..30 at 100 ms (returned).
fn warm(s: &mut TcpSender) -> Vec<u64> {
    assert_eq!(drain(s, 0), (0..10).collect::<Vec<_>>());
    (1..=10).flat_map(|k| ack(s, RTT, k, &[])).collect()
}

/// Fire the sender's timer at its deadline; what it sends then.
fn fire(s: &mut TcpSender) -> (Time, Vec<u64>) {
    let at = s.rto_deadline().expect("a timer is armed");
    assert!(s.on_timeout(at));
    (at, drain(s, at))
}

/// Segment 10 lost, 11.. arriving: the third SACKed segment marks it lost
/// at once (no reordering window with `dupthresh` SACKed), as RFC 6675's
/// IsLost() does. Its retransmission is lost too. RACK finds that out when
/// a segment sent after the retransmission is SACKed and RACK.rtt has
/// passed since the retransmission: it resends 10 again on that ACK. RFC
/// 6675 cannot see it and waits for the RTO.
#[test]
fn a_lost_retransmission_is_resent_without_a_timeout() {
    for rack in [true, false] {
        let mut s = sender(rack);
        let window = warm(&mut s);
        assert_eq!(window, (10..30).collect::<Vec<_>>());
        let t = |k: u64| 2 * RTT + k * MS;
        assert_eq!(ack(&mut s, t(1), 10, &[(11, 12)]), Vec::<u64>::new());
        assert_eq!(ack(&mut s, t(2), 10, &[(11, 13)]), Vec::<u64>::new());
        let third = ack(&mut s, t(3), 10, &[(11, 14)]);
        assert_eq!(third.first(), Some(&10), "rack {rack}: {third:?}");
        let mut later = vec![];
        for k in 14..30 {
            later.extend(ack(&mut s, t(k), 10, &[(11, k + 1)]));
        }
        // The new segments sent in recovery (30.., after the lost
        // retransmission) come back SACKed one round trip later.
        let news: Vec<u64> = later.iter().copied().filter(|&n| n >= 30).collect();
        assert!(!news.is_empty());
        let back = 3 * RTT + 30 * MS;
        let resent = ack(&mut s, back, 10, &[(11, 30), (news[0], news[0] + 1)]);
        if rack {
            assert_eq!(resent.first(), Some(&10), "RACK resends the lost retransmission: {resent:?}");
            assert_eq!(s.stats.timeouts, 0);
        } else {
            assert!(!resent.contains(&10), "RFC 6675 does not see it: {resent:?}");
            let (_, after) = fire(&mut s);
            assert_eq!(after.first(), Some(&10));
            assert_eq!(s.stats.timeouts, 1);
        }
    }
}

/// A loss at the end of a window of three: one SACKed segment behind it
/// is not enough for IsLost() (three needed), nor for an immediate RACK
/// mark (the reordering window, min_rtt / 4 = 25 ms, applies while fewer
/// than three are SACKed). RACK arms its reordering timer: RACK.rtt + 25
/// ms from the lost segment's send plus 2 ms (TCP_TIMEOUT_MIN_US), in
/// whole 4 ms jiffies, on the kernel's timer wheel; its expiry marks the
/// segment lost and recovery retransmits it, at once rather than after an
/// RTO.
#[test]
fn a_lone_sack_waits_the_reordering_window_then_the_timer_resends() {
    for rack in [true, false] {
        let mut s = sender(rack);
        warm(&mut s);
        // Acknowledge 10..28 in order; 28 is lost, 29 arrives.
        ack_in_order(&mut s, 11, 29);
        let before = s.stats.segments_sent;
        let now = 2 * RTT + 20 * MS;
        let sent = ack(&mut s, now, 28, &[(29, 30)]);
        assert!(!sent.contains(&28));
        let (at, resent) = fire(&mut s);
        if rack {
            // The SACKed 29 was sent with 28 at 100 ms: RACK.rtt = 120 ms,
            // so 28 is due at 100 + 120 + 25 ms, now + 25 ms. The timer:
            // 27 ms is 7 jiffies from jiffy 55 (220 ms); the wheel files
            // it at jiffy 63, 252 ms.
            assert_eq!(at, 252 * MS);
            assert_eq!(resent.first(), Some(&28), "{resent:?}");
            assert_eq!(s.stats.timeouts, 0, "the reordering timer is not an RTO");
            assert_eq!(s.stats.fast_retransmits, 1);
        } else {
            assert!(at > now + 200 * MS, "an RTO: {}", at - now);
            assert_eq!(s.stats.timeouts, 1);
        }
        assert!(s.stats.segments_sent > before);
    }
}

/// A timeout with the receiver holding SACKed data: 10 and 20 lost of
/// 10..30, the rest SACKed; recovery resends both with new data, and all
/// of that is lost too, so the RTO fires. RACK keeps the scoreboard and
/// marks lost the first segment and those sent a RACK round trip or more
/// before: cwnd = what is still in flight + 1 = one segment
/// (`tcp_enter_loss()`), the timeout resends 10 alone, and the ACK for it
/// (up to 20) brings 20 and then new data, never a SACKed segment again.
/// Go-back-N forgets the SACKs and resends 21.. after 20.
#[test]
fn a_timeout_resends_the_holes_not_the_sacked_segments() {
    for rack in [true, false] {
        let mut s = sender(rack);
        warm(&mut s);
        let sent = ack(&mut s, 2 * RTT + MS, 10, &[(11, 20), (21, 30)]);
        assert_eq!(&sent[..2], &[10, 20], "rack {rack}: {sent:?}");
        let (at, first) = fire(&mut s);
        assert_eq!(first, vec![10], "rack {rack}");
        let next = ack(&mut s, at + RTT, 20, &[(21, 30)]);
        let resent: Vec<u64> = next.iter().copied().filter(|&n| n < 30).collect();
        if rack {
            assert_eq!(resent, vec![20], "{next:?}");
        } else {
            assert!(resent.len() > 1 && resent[0] == 20 && resent[1] == 21, "go-back-N: {next:?}");
        }
    }
}

/// Same seed, same marks: RACK's state is a function of the exchange.
#[test]
fn rack_is_deterministic() {
    let run = || {
        let mut s = sender(true);
        warm(&mut s);
        let mut out = ack(&mut s, 2 * RTT, 10, &[(11, 12)]);
        out.extend(fire(&mut s).1);
        (out, s.w.cwnd, s.w.ssthresh, s.rto_deadline())
    };
    assert_eq!(run(), run());
}

/// A sender with `bytes` to send and the tail-loss probe as given.
fn finite(bytes: u64, tlp: bool) -> TcpSender {
    make(|c| c.tlp = tlp, Some(bytes))
}

/// The last of 20 segments is lost, so no ACK ever reports it: without
/// the probe only the RTO finds it. The probe timer, scheduled on each
/// ACK in the Open state, is 2 SRTT + the minimum RTO with one segment
/// out, capped at the RTO (srtt 100 ms: the RTO, about 300 ms, is the
/// smaller), and its expiry resends the last segment (no new data) as a
/// probe, not a timeout. The ACK for it covers exactly the probe's
/// snd_max: Linux cannot tell a repaired loss from a spurious probe
/// there, and cuts nothing; the next ACK past that point, after the
/// application wrote more, shows the loss was real and cuts the window
/// once (ssthresh from the congestion control, cwnd = ssthresh).
#[test]
fn a_lost_last_segment_is_resent_by_the_probe() {
    for tlp in [true, false] {
        let mut s = finite(20 * MSS, tlp);
        warm(&mut s);
        // 10..20 went at 100 ms; 10..19 arrive, 19 (the last) is lost.
        let last_ack = ack_in_order(&mut s, 11, 20);
        let (at, sent) = fire(&mut s);
        assert_eq!(sent, vec![19], "tlp {tlp}");
        let srtt = s.rto.srtt.unwrap();
        if !tlp {
            assert_eq!((s.stats.timeouts, s.loss_probes()), (1, (0, 0)));
            continue;
        }
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(s.loss_probes(), (1, 0));
        assert!(2 * srtt + 200 * MS > at - last_ack, "capped at the RTO: {}", at - last_ack);
        let (cwnd, ssthresh) = (s.w.cwnd, s.w.ssthresh);
        ack(&mut s, at + RTT, 20, &[]);
        assert_eq!((s.loss_probes(), s.w.ssthresh), ((1, 0), ssthresh), "ACK = the probe's snd_max");
        s.app_write_more(at + RTT + MS, 2 * MSS);
        assert_eq!(drain(&mut s, at + RTT + MS), vec![20, 21]);
        ack(&mut s, at + 2 * RTT, 22, &[]);
        assert_eq!(s.loss_probes(), (1, 1));
        assert!(s.w.ssthresh < ssthresh && s.w.ssthresh <= cwnd / 2 + MSS, "{} {}", s.w.ssthresh, cwnd);
    }
}

/// Two segments out, the ACK clock stopped: the probe timer is 2 SRTT + 2
/// ms (TCP_TIMEOUT_MIN_US) after the last ACK, on the jiffy clock.
#[test]
fn the_probe_timer_is_two_srtt_with_more_than_one_segment_out() {
    let mut s = finite(20 * MSS, true);
    warm(&mut s);
    let last_ack = ack_in_order(&mut s, 11, 19);
    let srtt = s.rto.srtt.unwrap();
    let (at, sent) = fire(&mut s);
    // In whole 4 ms jiffies, then up to one more on the timer wheel.
    let due = last_ack + 2 * srtt + 2 * MS;
    assert!(at > due && at <= due + 8 * MS && at % (4 * MS) == 0, "{at} {due}");
    assert_eq!(sent, vec![19], "the last segment again");
}

/// With data left to send and nothing coming back, the probe is a new
/// segment past cwnd (the application has data, the receiver's window
/// takes it); its ACK ends the episode without a cut. With one segment
/// out the probe waits 2 SRTT + the minimum RTO (a delayed ACK may be
/// due).
#[test]
fn the_probe_sends_new_data_when_there_is_some() {
    let mut s = sender(true);
    let window = warm(&mut s);
    let last = *window.last().unwrap();
    let (at, sent) = fire(&mut s);
    assert_eq!(sent, vec![last + 1], "one new segment past the window");
    assert_eq!(s.loss_probes(), (1, 0));
    // Everything up to the probe arrives: no cut, the episode ends.
    let ssthresh = s.w.ssthresh;
    ack(&mut s, at + RTT, last + 2, &[]);
    assert_eq!(s.w.ssthresh, ssthresh);
    assert_eq!(s.loss_probes(), (1, 0));

    let mut one = finite(MSS, true);
    assert_eq!(drain(&mut one, 0), vec![0]);
    let due = one.rto_deadline().unwrap();
    // No RTT sample yet: TCP_TIMEOUT_INIT, 1 s, 250 jiffies: the wheel's
    // second level, whose buckets are 8 jiffies apart.
    assert_eq!(due, 1024 * MS, "TCP_TIMEOUT_INIT on the timer wheel");
}

/// An ECN echo in the linux profile (Linux's CWR state, `tcp_enter_cwr()`):
/// ssthresh is halved at once, but the window comes down by PRR, one new
/// segment per two delivered while the flight is above ssthresh, instead
/// of stopping until the flight has fallen to the half; the ACK after the
/// reduction's high_seq ends it with cwnd = ssthresh. `prr = false` (the
/// congestion control's immediate cut) sends nothing for the first ten
/// ACKs.
#[test]
fn an_ecn_echo_reduces_by_prr_in_cwr() {
    for prr in [true, false] {
        let mut s = make(
            |c| {
                c.ecn = true;
                c.limited_transmit = false;
                c.prr = prr;
                c.rack = prr;
            },
            None,
        );
        let window = warm(&mut s);
        assert_eq!(window.len(), 20);
        let mut sent = vec![];
        for k in 11..21 {
            let flags = if k == 11 { crate::packet::flags::ECE } else { 0 };
            let h = crate::packet::TcpHeader { ack: k * MSS, window: 1_000_000, flags, ..Default::default() };
            s.on_ack(2 * RTT + k * MS, &h);
            sent.push(drain(&mut s, 2 * RTT + k * MS).len());
        }
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.w.ssthresh, 10 * MSS, "half of the window of 20 at once");
        if prr {
            // PRR: ceil(10 x delivered / 20) segments out after each ACK.
            assert_eq!(sent, vec![1, 0, 1, 0, 1, 0, 1, 0, 1, 0], "{sent:?}");
            assert!(s.in_recovery(), "CWR holds until an ACK passes high_seq");
            ack(&mut s, 3 * RTT, 31, &[]);
            assert!(!s.in_recovery());
            // cwnd = ssthresh, then the growth of that ACK in congestion
            // avoidance for the 11 segments it covers: one whole segment
            // at a window of 10, one segment counted towards the next.
            assert_eq!((s.w.cwnd, s.w.ca_frac), (11 * MSS, 1.0), "{}", s.w.cwnd);
        } else {
            assert_eq!(sent, vec![0; 10], "{sent:?}");
        }
    }
}
