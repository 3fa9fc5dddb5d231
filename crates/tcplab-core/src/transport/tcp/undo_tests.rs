//! Packet-level tests of Linux's undo of spurious reductions (`[tcp] undo`:
//! the timestamps' evidence, `tcp_packet_delayed()`) and of F-RTO (`[tcp]
//! frto`, net.ipv4.tcp_frto = 2) in the linux profile's RACK recovery.
//! Each test scripts the exchange by hand from T0 = 1 s (a timestamp echo
//! of 0 means none, as in Linux): a first window of 10 acknowledged after
//! 100 ms, then 10..30 in flight.

use super::config::TcpConfig;
use super::prr_tests::{self, MSS};
use super::sender::TcpSender;
use crate::engine::time::MS;
use crate::engine::Time;
use crate::packet::{SackBlock, TcpHeader};

pub(super) const T0: Time = 1000 * MS;
pub(super) const RTT: Time = 100 * MS;

/// rack_tests' sender (the linux profile, 1000-byte segments, a first
/// window of 10, bulk data) with timestamps on and no limited transmit,
/// `tune` applied.
pub(super) fn sender(tune: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    super::rack_tests::make(
        |c| {
            c.timestamps = true;
            c.limited_transmit = false;
            tune(c);
        },
        None,
    )
}

pub(super) fn drain(s: &mut TcpSender, now: Time) -> Vec<u64> {
    prr_tests::drain(s, now).iter().map(|g| g.seq / MSS).collect()
}

/// An ACK of `ack` segments SACKing the ranges [from, to) of segments,
/// echoing the timestamp `echo` (ms; none if None); what it sends.
pub(super) fn ack(s: &mut TcpSender, now: Time, ack: u64, sacked: &[(u64, u64)], echo: Option<Time>) -> Vec<u64> {
    let mut h = TcpHeader { ack: ack * MSS, window: 1_000_000, ..Default::default() };
    let blocks: Vec<SackBlock> =
        sacked.iter().rev().map(|&(a, b)| SackBlock { start: a * MSS, end: b * MSS }).collect();
    if !blocks.is_empty() {
        h.set_sack(&blocks);
    }
    h.ts = echo.map(|e| (TcpSender::ts_clock(now), TcpSender::ts_clock(e)));
    s.on_ack(now, &h);
    drain(s, now)
}

/// 0..10 at T0, acknowledged at T0 + RTT (echoing T0): slow start sends
/// 10..30 then.
fn warm(s: &mut TcpSender) {
    assert_eq!(drain(s, T0), (0..10).collect::<Vec<_>>());
    let sent: Vec<u64> = (1..=10).flat_map(|k| ack(s, T0 + RTT, k, &[], Some(T0))).collect();
    assert_eq!(sent, (10..30).collect::<Vec<_>>());
}

/// Fire the sender's timer at its deadline; when, and what it sends.
fn fire(s: &mut TcpSender) -> (Time, Vec<u64>) {
    let at = s.rto_deadline().expect("a timer is armed");
    assert!(s.on_timeout(at));
    (at, drain(s, at))
}

/// The ACK clock stops with 10..30 in flight (a delay spike): the probe
/// (new segment 30) and then the RTO fire, which resends 10 alone (cwnd 1:
/// everything was sent a round trip ago and is marked lost). Returns the
/// timeout's time.
fn spurious_timeout(s: &mut TcpSender) -> Time {
    warm(s);
    assert_eq!(fire(s).1, vec![30], "the tail-loss probe: new data");
    let (at, sent) = fire(s);
    assert_eq!((sent, s.stats.timeouts), (vec![10], 1));
    assert!(s.in_recovery());
    at
}

/// The delayed ACKs arrive after the timeout. The first echoes 10's
/// original timestamp, older than the retransmission: Linux's Eifel check
/// (`tcp_try_undo_loss()`) gives back the window of 20 from before the cut
/// and leaves the Loss state, so the next segments are new data (the ACK's
/// slow-start growth makes room for one), not the go-back retransmissions
/// that `undo = false` sends (11 and 12 with cwnd 2).
#[test]
fn the_timestamps_undo_a_spurious_timeout() {
    for undo in [true, false] {
        let mut s = sender(|c| {
            c.undo = undo;
            c.frto = false;
        });
        let at = spurious_timeout(&mut s);
        let sent = ack(&mut s, at + 5 * MS, 11, &[], Some(T0 + RTT));
        if undo {
            assert_eq!(sent, vec![31], "undone: new data only");
            assert!(!s.in_recovery());
            assert_eq!(s.w.cwnd, 21 * MSS, "the window of 20 back, plus this ACK's growth");
            assert_eq!(s.undos(), (1, 0));
        } else {
            assert_eq!(sent, vec![11, 12]);
            assert!(s.in_recovery());
            assert_eq!(s.undos(), (0, 0));
        }
    }
}

/// The echo of a retransmission is no evidence: an ACK echoing the
/// timeout's own retransmission (the loss was real) undoes nothing.
#[test]
fn an_echo_of_the_retransmission_undoes_nothing() {
    let mut s = sender(|c| c.frto = false);
    let at = spurious_timeout(&mut s);
    let sent = ack(&mut s, at + RTT, 11, &[], Some(at));
    assert_eq!(sent, vec![11, 12]);
    assert_eq!(s.undos(), (0, 0));
}

/// Without timestamps F-RTO decides (RFC 5682's SACK-enhanced version):
/// the first ACK that advances after the timeout sends two new segments
/// (cwnd 2) instead of resending 11 and 12; the next ACK covers 11, never
/// retransmitted and sent before the timeout, so the timeout was spurious
/// and the window of 20 comes back. With `frto = false` the same ACKs
/// bring go-back retransmissions.
#[test]
fn frto_sends_new_data_and_then_finds_the_timeout_spurious() {
    for frto in [true, false] {
        let mut s = sender(|c| {
            c.timestamps = false;
            c.frto = frto;
        });
        let at = spurious_timeout(&mut s);
        let first = ack(&mut s, at + 5 * MS, 11, &[], None);
        let second = ack(&mut s, at + 6 * MS, 12, &[], None);
        if frto {
            assert_eq!(first, vec![31, 32], "step 2b: new data");
            assert_eq!(second, Vec::<u64>::new(), "undone: 21 in flight, cwnd 21");
            assert_eq!(s.w.cwnd, 21 * MSS);
            assert_eq!(s.undos(), (1, 1));
            assert!(!s.in_recovery());
        } else {
            assert_eq!(first, vec![11, 12]);
            assert_eq!(second, vec![13, 14], "cwnd 3, 12 in flight");
            assert_eq!(s.undos(), (0, 0));
        }
    }
}

/// A real loss under F-RTO: the new data of step 2b is SACKed while 11
/// stays missing (a duplicate ACK with a SACK above high_seq), so the
/// loss was real (step 3a): 11 is resent and nothing is undone.
#[test]
fn frto_takes_a_sack_of_the_new_data_for_a_real_loss() {
    let mut s = sender(|c| c.timestamps = false);
    let at = spurious_timeout(&mut s);
    assert_eq!(ack(&mut s, at + RTT, 11, &[], None), vec![31, 32]);
    let sent = ack(&mut s, at + 2 * RTT, 11, &[(31, 32)], None);
    assert_eq!(sent.first(), Some(&11), "{sent:?}");
    assert_eq!(s.undos(), (0, 0));
    assert!(s.in_recovery());
}

/// A reordered segment in fast recovery: 10 arrives late, after three
/// SACKed segments made RACK resend it. The ACK that ends the recovery
/// echoes 10's original timestamp, so the recovery was spurious and its
/// end gives back the window of 20 and the initial ssthresh
/// (`tcp_try_undo_recovery()`); `undo = false` ends it at ssthresh,
/// half of that.
#[test]
fn a_recovery_ended_by_a_delayed_original_is_undone() {
    for undo in [true, false] {
        let mut s = sender(|c| c.undo = undo);
        warm(&mut s);
        let t = |k: u64| T0 + 2 * RTT + k * MS;
        ack(&mut s, t(1), 10, &[(11, 12)], Some(T0 + RTT));
        ack(&mut s, t(2), 10, &[(11, 13)], Some(T0 + RTT));
        let third = ack(&mut s, t(3), 10, &[(11, 14)], Some(T0 + RTT));
        assert_eq!(third.first(), Some(&10), "RACK resends 10: {third:?}");
        assert!(s.in_recovery());
        // The original 10 arrives: everything up to 30 is acknowledged,
        // echoing its timestamp (RFC 7323: the segment that fills the
        // hole sets TS.Recent).
        ack(&mut s, t(10), 30, &[], Some(T0 + RTT));
        assert!(!s.in_recovery());
        if undo {
            // Slow start again: ssthresh was still the initial one.
            assert!(s.w.cwnd >= 20 * MSS, "{}", s.w.cwnd / MSS);
            assert!(s.w.ssthresh > 1000 * MSS);
            assert_eq!(s.undos(), (1, 0));
        } else {
            assert_eq!(s.w.ssthresh, 10 * MSS);
            assert!(s.w.cwnd < 12 * MSS, "{}", s.w.cwnd / MSS);
        }
    }
}

/// D-SACK evidence (RFC 2883, `tcp_try_undo_dsack()`): without
/// timestamps or F-RTO the timeout goes back N (10, then 11 and 12); the
/// delayed originals' ACKs end the Loss state with the window cut. The
/// receiver then reports each of the three retransmissions as a duplicate,
/// below the cumulative ACK; once all three are reported the timeout was
/// spurious and the window of 20 comes back, in the Open state. Two of
/// three are not enough; `undo = false` ignores them. A D-SACK-only ACK
/// is no duplicate ACK.
#[test]
fn dsacks_for_every_retransmission_undo_the_timeout() {
    for undo in [true, false] {
        let mut s = sender(|c| {
            (c.timestamps, c.frto, c.undo) = (false, false, undo);
        });
        let at = spurious_timeout(&mut s);
        assert_eq!(ack(&mut s, at + 5 * MS, 11, &[], None), vec![11, 12]);
        ack(&mut s, at + 6 * MS, 31, &[], None);
        assert!(!s.in_recovery());
        let cut = s.w.cwnd;
        assert!(cut < 12 * MSS, "{}", cut / MSS);
        let dupacks = s.stats.dupacks_received;
        ack(&mut s, at + 7 * MS, 31, &[(10, 11)], None);
        ack(&mut s, at + 8 * MS, 31, &[(11, 12)], None);
        assert_eq!((s.w.cwnd, s.undos()), (cut, (0, 0)), "one retransmission not reported yet");
        ack(&mut s, at + 9 * MS, 31, &[(12, 13)], None);
        assert_eq!(s.stats.dupacks_received, dupacks, "D-SACKs are no duplicate ACKs");
        if undo {
            assert_eq!(s.undos(), (1, 0));
            assert!(s.w.cwnd >= 20 * MSS, "{}", s.w.cwnd / MSS);
        } else {
            assert_eq!((s.w.cwnd, s.undos()), (cut, (0, 0)));
        }
    }
}

/// D-SACKs in a fast recovery: 10 and 11 are delayed, not lost; three
/// SACKs behind them make RACK resend both. The receiver then reports 11
/// twice (a D-SACK above the cumulative ACK, inside the second block: one
/// retransmission of the episode counted off) and, with the ACK that the
/// late original 10 moves, 10 twice (below it: the other). Both
/// retransmissions were needless, so the recovery is undone before its end
/// (`tcp_try_undo_dsack()`, then the Open state) and the window of 20 is
/// back.
#[test]
fn dsacks_undo_a_fast_recovery_before_its_end() {
    let mut s = sender(|c| c.timestamps = false);
    warm(&mut s);
    let t = |k: u64| T0 + 2 * RTT + k * MS;
    // SACKs of 12, 13, ... until PRR has let both retransmissions go.
    let mut sent = Vec::new();
    let mut top = 12;
    while !(sent.contains(&10) && sent.contains(&11)) && top < 20 {
        top += 1;
        sent.extend(ack(&mut s, t(top - 12), 10, &[(12, top)], None));
    }
    assert!(sent.contains(&10) && sent.contains(&11), "{sent:?}");
    assert!(s.in_recovery());
    ack(&mut s, t(15), 10, &[(11, top)], None);
    // (`ack` lists the blocks last first: the D-SACK goes last.)
    ack(&mut s, t(20), 10, &[(11, top), (11, 12)], None);
    assert_eq!(s.undos(), (0, 0), "10's retransmission not reported yet");
    let before = s.w.cwnd;
    ack(&mut s, t(25), top, &[(10, 11)], None);
    assert_eq!(s.undos(), (1, 0));
    assert!(!s.in_recovery());
    assert!(s.w.cwnd >= 20 * MSS, "{} -> {}", before / MSS, s.w.cwnd / MSS);
}

/// Same exchange, same result.
#[test]
fn undo_is_deterministic() {
    let run = || {
        let mut s = sender(|c| c.timestamps = false);
        let at = spurious_timeout(&mut s);
        let mut out = ack(&mut s, at + 5 * MS, 11, &[], None);
        out.extend(ack(&mut s, at + 6 * MS, 12, &[], None));
        (out, s.w.cwnd, s.w.ssthresh, s.rto_deadline(), s.undos())
    };
    assert_eq!(run(), run());
}
