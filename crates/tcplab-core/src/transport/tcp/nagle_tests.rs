//! Nagle's rule (`TcpConfig::nagle`), segment by segment: RFC 896 holds a
//! short segment while anything is unacknowledged, Minshall's variant
//! (Linux's) only while an earlier short segment is, and off sends it at
//! once.

use super::cc::{make_cc, Variant};
use super::config::{Nagle, TcpConfig, TcpProfile};
use super::sender::TcpSender;
use crate::engine::time::MS;
use crate::engine::Time;
use crate::packet::TcpHeader;

const MSS: u64 = 1000;

fn sender(rule: Nagle) -> TcpSender {
    let mut c = TcpConfig::profile(TcpProfile::Rfc);
    c.mss = MSS as u32;
    c.initial_window = 10;
    c.rwnd = 1_000_000;
    c.syn = false;
    c.nagle = rule;
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.set_app_paced();
    s
}

/// (seq, len) of every segment the sender sends now.
fn drain(s: &mut TcpSender, now: Time) -> Vec<(u64, u32)> {
    std::iter::from_fn(|| s.poll_transmit(now)).map(|x| (x.seq, x.len)).collect()
}

fn ack(s: &mut TcpSender, now: Time, n: u64) -> Vec<(u64, u32)> {
    s.on_ack(now, &TcpHeader { ack: n, window: 1_000_000, ..Default::default() });
    drain(s, now)
}

/// Writes of 300, 300 and 800 bytes, then the ACKs of the first short
/// segment and of everything sent: what goes out at each step.
fn steps(rule: Nagle) -> [Vec<(u64, u32)>; 5] {
    let mut s = sender(rule);
    s.app_write(Some(300));
    let first = drain(&mut s, 0);
    s.app_write_more(MS, 300);
    let second = drain(&mut s, MS);
    s.app_write_more(2 * MS, 800);
    let third = drain(&mut s, 2 * MS);
    let at_300 = ack(&mut s, 50 * MS, 300);
    let end = s.snd_max;
    let at_end = ack(&mut s, 60 * MS, end);
    [first, second, third, at_300, at_end]
}

#[test]
fn off_sends_every_write_at_once() {
    let [a, b, c, d, e] = steps(Nagle::Off);
    assert_eq!(a, vec![(0, 300)]);
    assert_eq!(b, vec![(300, 300)]);
    assert_eq!(c, vec![(600, 800)]);
    assert!(d.is_empty() && e.is_empty());
}

#[test]
fn rfc896_holds_a_short_segment_while_anything_is_unacknowledged() {
    let [a, b, c, d, e] = steps(Nagle::Rfc896);
    // Nothing outstanding: the first short write goes.
    assert_eq!(a, vec![(0, 300)]);
    // The second waits for the first's ACK ...
    assert!(b.is_empty());
    // ... until a full segment's worth is written: that goes, the rest waits.
    assert_eq!(c, vec![(300, 1000)]);
    // Data still outstanding after the first ACK: still held.
    assert!(d.is_empty());
    // Everything acknowledged: the last 100 bytes go.
    assert_eq!(e, vec![(1300, 100)]);
}

#[test]
fn minshall_holds_a_short_segment_only_behind_an_unacknowledged_short_one() {
    let [a, b, c, d, e] = steps(Nagle::Minshall);
    assert_eq!(a, vec![(0, 300)]);
    assert!(b.is_empty());
    assert_eq!(c, vec![(300, 1000)]);
    // The short segment acknowledged: the rest goes though a full segment
    // is still outstanding (where RFC 896 waits).
    assert_eq!(d, vec![(1300, 100)]);
    assert!(e.is_empty());
}
