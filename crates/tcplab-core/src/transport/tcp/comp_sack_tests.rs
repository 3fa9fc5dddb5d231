//! Linux's SACK compression at the receiver (`comp_sack`, the linux
//! profile's): which out-of-order segments are answered at once, which
//! wait for the compression timer, and when a held ACK goes early.

use super::config::{AckPolicy, TcpConfig, TcpProfile};
use super::receiver::{comp_sack_delay, TcpReceiver};
use crate::engine::time::{MS, US};
use crate::engine::Time;

const MSS: u64 = 1000;
/// Segments arrive 0.8 ms apart (10 Mbit/s).
const GAP: Time = 800 * US;

/// The linux profile's receiver, 1000-byte segments without timestamps
/// (so no receiver RTT estimate yet: the timer is its slack alone).
fn receiver(sack: bool, nr: u32) -> TcpReceiver {
    let mut c = TcpConfig::profile(TcpProfile::Linux);
    c.mss = MSS as u32;
    c.rwnd = 1_000_000;
    c.sack = sack;
    c.timestamps = false;
    c.comp_sack.nr = nr;
    c.quick_acks = 0;
    assert_eq!(c.ack_policy, AckPolicy::Delayed);
    TcpReceiver::new(&c)
}

/// Segment `k` (bytes k*MSS..) arrives at `now`: whether its ACK goes at
/// once (then it is sent).
fn arrive(r: &mut TcpReceiver, now: Time, k: u64) -> bool {
    let now_ack = r.on_segment(now, k * MSS, MSS as u32, None);
    if now_ack {
        r.make_ack();
    }
    now_ack
}

/// Segments 0..10 in order, their ACKs sent; then 11.. above the hole at
/// 10, from `t0` on: the list of which were answered at once.
fn above_a_hole(r: &mut TcpReceiver, t0: Time, n: u64) -> Vec<bool> {
    for k in 0..10 {
        arrive(r, k * GAP, k);
        r.make_ack();
    }
    (0..n).map(|i| arrive(r, t0 + i * GAP, 11 + i)).collect()
}

#[test]
fn the_delay_is_five_per_cent_of_the_rtt_at_most_the_cap() {
    let (cap, ms8) = (MS, 8 * 1000);
    assert_eq!(comp_sack_delay(cap, 20 * ms8, 0), MS);
    assert_eq!(comp_sack_delay(cap, 10 * ms8, 0), 500 * US);
    // The handshake's sample lowers it, never stands in for none.
    assert_eq!(comp_sack_delay(cap, 20 * ms8, 10 * ms8), 500 * US);
    assert_eq!(comp_sack_delay(cap, 10 * ms8, 20 * ms8), 500 * US);
    assert_eq!(comp_sack_delay(cap, 0, 10 * ms8), 0);
}

#[test]
fn three_acks_at_once_then_one_per_timer() {
    let mut r = receiver(true, 44);
    let t0 = 100 * MS;
    let got = above_a_hole(&mut r, t0, 4);
    assert_eq!(got, [true, true, true, false]);
    // No RTT estimate: the timer is the slack, 100 us after the fourth.
    let due = t0 + 3 * GAP + 100 * US;
    assert_eq!(r.delack_deadline(), Some(due));
    assert!(!r.on_delack_timer(due - 1) && r.on_delack_timer(due));
    let ack = r.make_ack();
    assert_eq!((ack.ack, ack.nsack, ack.sack[0].start, ack.sack[0].end), (10 * MSS, 1, 11 * MSS, 15 * MSS));
    // The same cumulative ACK: no more at once; the next two share a timer.
    let t = due + GAP;
    assert!(!arrive(&mut r, t, 15));
    assert!(!arrive(&mut r, t + 50 * US, 16));
    assert_eq!(r.delack_deadline(), Some(t + 100 * US), "the timer runs from the first held");
}

#[test]
fn a_new_cumulative_ack_starts_the_three_again() {
    let mut r = receiver(true, 44);
    let t0 = 100 * MS;
    above_a_hole(&mut r, t0, 5);
    // Segment 10 fills the hole up to 16; 17 is lost, 18.. arrive.
    let t = t0 + 5 * GAP;
    assert!(arrive(&mut r, t, 10));
    let got: Vec<bool> = (0..4).map(|i| arrive(&mut r, t + (i + 1) * GAP, 18 + i)).collect();
    assert_eq!(got, [true, true, true, false]);
}

#[test]
fn at_most_nr_acks_are_held() {
    let mut r = receiver(true, 2);
    assert_eq!(above_a_hole(&mut r, 100 * MS, 6), [true, true, true, false, false, true]);
}

#[test]
fn without_sack_or_with_nr_0_every_segment_is_answered() {
    for (sack, nr) in [(false, 44), (true, 0)] {
        let mut r = receiver(sack, nr);
        assert!(above_a_hole(&mut r, 100 * MS, 8).iter().all(|&a| a), "sack {sack}, nr {nr}");
    }
}

#[test]
fn a_segment_beyond_the_two_newest_blocks_first_sends_the_held_ack() {
    let mut r = receiver(true, 44);
    // Holes at 10, 13-14 and 17-18: blocks 11-12, 15-16 and 19-20, the
    // newest first.
    for k in 0..10 {
        arrive(&mut r, k * GAP, k);
    }
    assert!(!r.flushes_compressed(11 * MSS, 12 * MSS), "nothing held: nothing to send first");
    let mut t = 100 * MS;
    for k in [11, 12, 15, 16, 19, 20] {
        arrive(&mut r, t, k);
        t += GAP;
    }
    // The three at once went to 11, 12 and 15; 16, 19 and 20 are held.
    assert!(r.delack_deadline().is_some());
    // Extending the newest block (19-20) or the second (15-16) waits; the
    // third (11-12) or a new block sends the held ACK first.
    assert!(!r.flushes_compressed(21 * MSS, 22 * MSS));
    assert!(!r.flushes_compressed(17 * MSS, 18 * MSS));
    assert!(r.flushes_compressed(13 * MSS, 14 * MSS));
    assert!(r.flushes_compressed(30 * MSS, 31 * MSS));
    // In-order data and data below the cumulative ACK never do.
    assert!(!r.flushes_compressed(10 * MSS, 11 * MSS));
    assert!(!r.flushes_compressed(5 * MSS, 6 * MSS));
}
