//! Packet-level tests of Linux's TSO deferral in the sender
//! (`tso_defer.rs`, the linux profile's `tso_defer`): a window of 10 in
//! congestion avoidance whose first segments are acknowledged one by one
//! a round trip (100 ms) after they left, as a delaying receiver's ACKs
//! would not be but a lossy path's or a quick-ACKing receiver's are.

use super::config::TcpConfig;
use super::prr_tests::MSS;
use super::rack_tests::make;
use super::sender::TcpSender;
use crate::engine::time::{MS, US};
use crate::engine::Time;

const RTT: Time = 100 * MS;

/// The linux profile in congestion avoidance from a window of 10 (ssthresh
/// 10 segments), bulk data, `tso_defer` as given; the first window sent
/// at 0.
fn sender(tso_defer: bool) -> TcpSender {
    let mut s = make(
        |c: &mut TcpConfig| {
            c.initial_ssthresh = Some(10 * MSS);
            c.tso_defer = tso_defer;
        },
        None,
    );
    let first: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(0)).map(|g| g.seq / MSS).collect();
    assert_eq!(first, (0..10).collect::<Vec<_>>());
    s
}

/// ACKs of segments 1..=n, the k-th at RTT + k x `gap`; the segments each
/// one releases.
fn acks(s: &mut TcpSender, n: u64, gap: Time) -> Vec<Vec<u64>> {
    (1..=n).map(|k| super::prr_tests::ack(s, RTT + k * gap, k, &[]).iter().map(|g| g.seq / MSS).collect()).collect()
}

/// ACKs 100 us apart, each freeing one segment: the first goes (the last
/// send was 100 ms before); the next finds room for one segment, less
/// than a GSO burst of two, within 1 ms of the last send, with the head's
/// ACK due (sent at 0, SRTT 100 ms): it waits, and goes with the next
/// ACK's segment as a burst of two.
#[test]
fn room_for_one_segment_waits_for_the_next_ack() {
    let mut s = sender(true);
    let sent = acks(&mut s, 6, 100 * US);
    assert_eq!(sent, vec![vec![10], vec![], vec![11, 12], vec![], vec![13, 14], vec![]]);
    // Without the rule every ACK releases its segment.
    let mut s = sender(false);
    let sent = acks(&mut s, 6, 100 * US);
    assert_eq!(sent, vec![vec![10], vec![11], vec![12], vec![13], vec![14], vec![15]]);
}

/// ACKs 1.1 ms apart: the last send is always more than 1 ms old, so the
/// single segment goes at once.
#[test]
fn a_send_more_than_a_millisecond_old_does_not_hold() {
    let mut s = sender(true);
    let sent = acks(&mut s, 4, 1100 * US);
    assert_eq!(sent, vec![vec![10], vec![11], vec![12], vec![13]]);
}

/// The head's ACK is due more than 1 ms later (SRTT 100 ms, the head sent
/// 98 ms before): no wait.
#[test]
fn an_ack_not_due_within_a_millisecond_does_not_hold() {
    let mut s = make(
        |c: &mut TcpConfig| {
            c.initial_ssthresh = Some(10 * MSS);
        },
        None,
    );
    // Segment 0 at 0, the rest 2 ms later: the head after the first ACK
    // is segment 1, sent at 2 ms.
    assert_eq!(s.poll_transmit(0).map(|g| g.seq), Some(0));
    let rest: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(2 * MS)).map(|g| g.seq / MSS).collect();
    assert_eq!(rest, (1..10).collect::<Vec<_>>());
    // ACK of 0 at 100 ms sets SRTT 100 ms; segment 1's ACK is then due
    // at 102 ms. At 100.1 ms (room 1, last send 100 us ago) it is 1.9 ms
    // away: the segment goes.
    assert_eq!(super::prr_tests::ack(&mut s, RTT, 1, &[]).len(), 1);
    assert_eq!(super::prr_tests::ack(&mut s, RTT + 100 * US, 1, &[]).len(), 0, "a duplicate frees nothing");
    let sent = super::prr_tests::ack(&mut s, RTT + 200 * US, 2, &[]);
    assert_eq!(sent.len(), 1, "segment 2's ACK is due at 102 ms: too far to wait for");
}

/// A bulk sender through a 20 Mbit/s bottleneck (0.4 ms a segment, no
/// loss, no queue limit) to a receiver that acknowledges every second
/// segment 20 ms after it left the bottleneck: the ACK clock of a steady
/// flow, whose oldest segment's ACK is always due. Returns cwnd (segments)
/// after `until` and the held segments seen (flight a segment below cwnd
/// after a send, in the Open state).
fn ack_clocked(tso_defer: bool, until: Time) -> (u64, u64) {
    let mut s = sender(tso_defer);
    let mut acks = std::collections::VecDeque::new();
    let (mut free_at, mut held) = (0, 0);
    let mut depart = |seq: u64, t: Time, acks: &mut std::collections::VecDeque<(Time, u64)>| {
        free_at = free_at.max(t) + 400 * US;
        if seq % 2 == 1 {
            acks.push_back((free_at + 20 * MS, seq + 1));
        }
    };
    for k in 0..10 {
        depart(k, 0, &mut acks);
    }
    while let Some((t, a)) = acks.pop_front() {
        if t > until {
            break;
        }
        for g in super::prr_tests::ack(&mut s, t, a, &[]) {
            depart(g.seq / MSS, t, &mut acks);
        }
        if s.flight() + MSS == s.w.cwnd {
            held += 1;
        }
    }
    (s.w.cwnd / MSS, held)
}

/// Through a steady ACK clock the rule holds a segment at about a quarter
/// of the ACKs, and the window grows as without it: a held segment counts
/// as cwnd-limited (tcp_cwnd_validate() with is_cwnd_limited). (Here the
/// window also fills between holds, so this run would grow without that
/// count too; it checks that the holds cost no growth.)
#[test]
fn a_wait_for_the_window_keeps_it_growing() {
    let (with, held) = ack_clocked(true, 3 * crate::engine::time::SEC);
    let (without, none) = ack_clocked(false, 3 * crate::engine::time::SEC);
    assert_eq!(none, 0);
    assert!(held > 100, "held {held} times");
    assert!(with + 1 >= without && with > 30, "cwnd {with} with the rule, {without} without");
}

/// The end of a transfer (its FIN) is not held for more data. A round
/// trip of 0.9 ms makes the GSO burst large (Linux's pacing rate, and
/// the whole GSO size halved for a min RTT under 1 ms), so a window of 30
/// with room for a few segments waits: for the window while the room is
/// at most the last skb (4 segments), then, with room for all of it, only
/// if the application may still write (`writes_again`), as Linux waits
/// for more data unless the skb carries FIN.
#[test]
fn the_transfers_end_waits_for_room_not_for_more_data() {
    for writes_again in [false, true] {
        let mut s = make(
            |c: &mut TcpConfig| {
                c.initial_window = 30;
                c.initial_ssthresh = Some(30 * MSS);
            },
            Some(34 * MSS),
        );
        if writes_again {
            s.set_app_paced();
        }
        assert_eq!(std::iter::from_fn(|| s.poll_transmit(0)).count(), 30);
        let sent: Vec<usize> =
            (1..=5).map(|k| super::prr_tests::ack(&mut s, 900 * US + k * 10 * US, k, &[]).len()).collect();
        if writes_again {
            assert_eq!(sent, vec![0, 0, 0, 0, 0]);
        } else {
            assert_eq!(sent, vec![0, 0, 0, 0, 4]);
        }
    }
}

/// Kernel 6.18 sends each GSO chunk of two or more segments with PSH on
/// its last segment, and a chunk of one segment without (the emulator's
/// captures: docs/validation.md, "PSH at the end of each GSO chunk"):
/// the first window of 10 leaves as two chunks of five (half the window,
/// `tcp_cwnd_test()`: without an RTT there is no pacing rate to make the
/// burst smaller), a segment released alone carries no PSH, the pair
/// that a held segment joins ends with one.
#[test]
fn each_multi_segment_chunk_ends_with_psh() {
    use crate::packet::{flags, TcpHeader};
    let pushed = |s: &mut TcpSender, now: Time| -> Vec<(u64, bool)> {
        std::iter::from_fn(|| s.poll_segment(now))
            .map(|o| (o.header.seq / MSS, o.header.flags & flags::PSH != 0))
            .collect()
    };
    let mut s = make(
        |c: &mut TcpConfig| {
            c.initial_ssthresh = Some(10 * MSS);
            c.tso_defer = true;
        },
        None,
    );
    let first = pushed(&mut s, 0);
    assert_eq!(first, (0..10).map(|i| (i, i % 5 == 4)).collect::<Vec<_>>());
    let mut after = Vec::new();
    for k in 1..=4 {
        let now = RTT + k * 100 * US;
        s.on_ack(now, &TcpHeader { ack: k * MSS, window: 1_000_000, flags: flags::ACK, ..Default::default() });
        after.push(pushed(&mut s, now));
    }
    assert_eq!(after, vec![vec![(10, false)], vec![], vec![(11, false), (12, true)], vec![]]);
    // Without the rule the profile sends no PSH on bulk data.
    let mut s = make(|c: &mut TcpConfig| c.tso_defer = false, None);
    assert!(pushed(&mut s, 0).iter().all(|&(_, p)| !p));
}
