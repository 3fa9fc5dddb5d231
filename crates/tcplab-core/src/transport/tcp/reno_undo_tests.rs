//! Packet-level tests of Linux's undo of spurious reductions and of F-RTO
//! without SACK (`[tcp] undo`, `frto` in the Reno emulation of
//! `linux_reno.rs`: the linux profile with `sack = false`). As in
//! undo_tests.rs: a first window of 10 from T0 = 1 s acknowledged after
//! 100 ms, then 10..30 in flight when the ACKs stop.

use super::config::TcpConfig;
use super::prr_tests::MSS;
use super::sender::TcpSender;
use super::undo_tests::{drain, RTT, T0};
use crate::engine::time::MS;
use crate::engine::Time;

/// undo_tests' sender (the linux profile, timestamps on, no limited
/// transmit) without SACK: Linux's Reno recovery.
fn sender(tune: impl FnOnce(&mut TcpConfig)) -> TcpSender {
    super::undo_tests::sender(|c| {
        c.sack = false;
        c.dsack = false;
        tune(c);
    })
}

/// A cumulative ACK of `ack` segments echoing the timestamp `echo` (none
/// if None); what it sends.
fn ack(s: &mut TcpSender, now: Time, ack: u64, echo: Option<Time>) -> Vec<u64> {
    super::undo_tests::ack(s, now, ack, &[], echo)
}

/// 0..10 at T0, acknowledged at T0 + RTT (echoing T0): slow start sends
/// 10..30; then the ACKs stop and the RTO fires, resending 10 alone.
/// Returns the timeout's time.
fn spurious_timeout(s: &mut TcpSender) -> Time {
    assert_eq!(drain(s, T0), (0..10).collect::<Vec<_>>());
    let sent: Vec<u64> = (1..=10).flat_map(|k| ack(s, T0 + RTT, k, Some(T0))).collect();
    assert_eq!(sent, (10..30).collect::<Vec<_>>());
    let at = s.rto_deadline().expect("the RTO is armed");
    assert!(s.on_timeout(at));
    assert_eq!((drain(s, at), s.stats.timeouts), (vec![10], 1));
    at
}

/// With timestamps the first ACK after the timeout echoes 10's original
/// send time, older than the retransmission (`tcp_try_undo_loss()`): the
/// window of 20 comes back and the go-back stops, so the next segments
/// are new data; for Reno the Loss state stays until an ACK passes
/// high_seq. With `undo = false` the same ACK brings go-back resends.
#[test]
fn the_timestamps_undo_a_spurious_timeout_without_sack() {
    for undo in [true, false] {
        let mut s = sender(|c| {
            c.undo = undo;
            c.frto = false;
        });
        let at = spurious_timeout(&mut s);
        let sent = ack(&mut s, at + 5 * MS, 11, Some(T0 + RTT));
        if undo {
            assert_eq!(sent, vec![30, 31], "undone: new data only (19 in flight, cwnd 21)");
            assert_eq!(s.w.cwnd, 21 * MSS, "the window of 20 back, plus this ACK's growth");
            assert_eq!(s.undos(), (1, 0));
        } else {
            assert_eq!(sent, vec![11, 12]);
            assert_eq!(s.undos(), (0, 0));
        }
    }
}

/// Without timestamps F-RTO decides: the first ACK that advances sends
/// two new segments (cwnd 2) instead of resending 11 and 12; the next
/// covers 11, sent once before the timeout, so the timeout was spurious
/// (step 3b) and the window of 20 comes back. With `frto = false` the
/// same ACKs bring go-back resends.
#[test]
fn frto_without_sack_sends_new_data_and_finds_the_timeout_spurious() {
    for frto in [true, false] {
        let mut s = sender(|c| {
            c.timestamps = false;
            c.frto = frto;
            // The undo leaves room for one segment with the head's ACK
            // overdue: Linux's TSO deferral would hold segment 32 for the
            // next ACK (`tso_defer.rs`); this test counts F-RTO's sends.
            c.tso_defer = false;
        });
        let at = spurious_timeout(&mut s);
        let first = ack(&mut s, at + 5 * MS, 11, None);
        let second = ack(&mut s, at + 6 * MS, 12, None);
        if frto {
            assert_eq!(first, vec![30, 31], "step 2b: new data");
            assert_eq!(second, vec![32], "undone: 20 in flight, cwnd 21");
            assert_eq!(s.w.cwnd, 21 * MSS);
            assert_eq!(s.undos(), (1, 1));
        } else {
            assert_eq!(first, vec![11, 12]);
            assert_eq!(second, vec![13, 14]);
            assert_eq!(s.undos(), (0, 0));
        }
    }
}

/// A real loss under F-RTO: the new data of step 2b brings duplicate ACKs
/// while 11 stays missing, so the loss was real (step 3a): the go-back
/// resumes at 11 (each duplicate an emulated SACK that makes room), stops
/// at the data outstanding at the timeout, and new data follows; nothing
/// is undone and 30, 31 are not resent.
#[test]
fn frto_without_sack_takes_a_duplicate_ack_for_a_real_loss() {
    let mut s = sender(|c| c.timestamps = false);
    let at = spurious_timeout(&mut s);
    assert_eq!(ack(&mut s, at + RTT, 11, None), vec![30, 31]);
    let t = at + 2 * RTT;
    let mut sent = ack(&mut s, t, 11, None);
    sent.extend(ack(&mut s, t, 11, None));
    assert_eq!(sent, vec![11, 12], "3a: the go-back resumes, a segment per duplicate");
    assert_eq!(s.undos(), (0, 0));
    // Everything up to 30 arrives: the go-back's rest is skipped past the
    // lost range, new data follows.
    let sent = ack(&mut s, t + RTT, 13, None);
    assert!(sent.iter().all(|&k| (13..30).contains(&k) || k >= 32), "{sent:?}");
    let sent = ack(&mut s, t + 2 * RTT, 32, None);
    assert!(sent.iter().all(|&k| k >= 32), "{sent:?}");
}

/// A timeout repeated in the Loss state before snd_una moved keeps the
/// ssthresh of the first (`tcp_enter_loss()` cuts once per window): the
/// congestion control's second cut, from a flight of one segment, would
/// leave two.
#[test]
fn a_repeated_timeout_keeps_the_first_ssthresh() {
    let mut s = sender(|c| c.timestamps = false);
    spurious_timeout(&mut s);
    let first = s.w.ssthresh;
    assert!(first > 2 * MSS, "{first}");
    let at = s.rto_deadline().expect("the RTO is armed again");
    assert!(s.on_timeout(at));
    assert_eq!((drain(&mut s, at), s.stats.timeouts), (vec![10], 2));
    assert_eq!(s.w.ssthresh, first);
    assert_eq!(s.w.cwnd, MSS);
}
