//! Packet-level tests of fast recovery under `prr` (the linux profile's):
//! Proportional Rate Reduction with SACK and Linux's emulated-SACK NewReno
//! without it. Each test scripts the exchange by hand, as `tests.rs` does.

use super::cc::{make_cc, Variant};
use super::config::{TcpConfig, TcpProfile};
use super::sender::{Segment, TcpSender};
use crate::engine::time::MS;
use crate::engine::Time;
use crate::packet::{SackBlock, TcpHeader};

/// The segment size of these tests (and `rack_tests.rs`, which borrows
/// `drain` and `ack`).
pub(super) const MSS: u64 = 1000;

/// The linux profile's rules with a window of `iw` segments already open,
/// plain ACKs (the receiver is scripted), no Limited Transmit unless asked.
fn cfg(iw: u32, sack: bool) -> TcpConfig {
    let mut c = TcpConfig::profile(TcpProfile::Linux);
    c.mss = MSS as u32;
    c.initial_window = iw;
    c.rwnd = 1_000_000;
    c.sack = sack;
    c.timestamps = false;
    c.limited_transmit = false;
    c
}

fn sender(c: TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
    s.app_write(None);
    s
}

pub(super) fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// An ACK of `ack` segments SACKing [from, to) segments (none if equal).
pub(super) fn ack(s: &mut TcpSender, now: Time, ack: u64, sacked: &[(u64, u64)]) -> Vec<Segment> {
    let mut h = TcpHeader { ack: ack * MSS, window: 1_000_000, ..Default::default() };
    let blocks: Vec<SackBlock> =
        sacked.iter().rev().map(|&(a, b)| SackBlock { start: a * MSS, end: b * MSS }).collect();
    if !blocks.is_empty() {
        h.set_sack(&blocks);
    }
    s.on_ack(now, &h);
    drain(s, now)
}

fn seqs(v: &[Segment]) -> Vec<(u64, bool)> {
    v.iter().map(|s| (s.seq / MSS, s.retransmit)).collect()
}

/// The duplicate ACKs of a window of 20 whose first segment was lost,
/// one per segment 1..=19 arriving; returns what each sent.
fn one_loss(s: &mut TcpSender, sack: bool) -> Vec<Vec<(u64, bool)>> {
    assert_eq!(drain(s, 0).len(), 20);
    (1..20)
        .map(|k| {
            let blocks = if sack { vec![(1, k + 1)] } else { vec![] };
            seqs(&ack(s, k * MS, 0, &blocks))
        })
        .collect()
}

/// RFC 6937's example (one loss in a window of 20, ssthresh 10), in
/// Linux's counting: the third duplicate sends the retransmission, then
/// one new segment per two duplicates while the flight (20 outstanding
/// less the SACKed and the lost, plus the retransmission) is above
/// ssthresh: ceil(10 x delivered / 20) segments in all. At the 15th the
/// flight is down to ssthresh, and from then on each duplicate sends one
/// (the slow-start reduction bound keeps it there). The same with SACK and
/// with Linux's emulated SACKs. RFC 6675 alone (`prr` false) holds
/// everything until the pipe falls below ssthresh (at the 11th duplicate:
/// 17 in the pipe after the retransmission, less one per duplicate), then
/// sends one per duplicate.
#[test]
fn one_loss_one_segment_per_two_duplicates() {
    let one = |n: u64| vec![(n, false)];
    let mut prr: Vec<Vec<(u64, bool)>> = vec![vec![], vec![], vec![(0, true)]];
    for n in 20..25 {
        prr.extend([vec![], one(n)]);
    }
    prr.extend([vec![], vec![]]);
    prr.extend((25..29).map(one));
    for sack in [false, true] {
        let mut s = sender(cfg(20, sack));
        let sent = one_loss(&mut s, sack);
        assert_eq!(sent, prr, "sack {sack}");
        assert_eq!(s.w.ssthresh, 10 * MSS, "max(cwnd / 2, 2) segments (loss_window = cwnd)");
    }
    let mut c = cfg(20, true);
    c.prr = false;
    let mut s = sender(c);
    let sent = one_loss(&mut s, true);
    let mut rfc6675: Vec<Vec<(u64, bool)>> = vec![vec![], vec![], vec![(0, true)]];
    rfc6675.extend(std::iter::repeat_n(vec![], 7));
    rfc6675.extend((20..29).map(one));
    assert_eq!(sent, rfc6675);
}

/// The retransmission's ACK covers exactly what was outstanding at the
/// loss (high_seq): Linux holds the recovery there (RFC 6582's rule
/// against a false fast retransmit, which tcp_try_undo_recovery() keeps
/// for Reno); the next ACK ends it with cwnd = ssthresh
/// (tcp_end_cwnd_reduction()) plus that ACK's growth in congestion
/// avoidance. No window inflation happened on the way: cwnd never
/// exceeded the window at the loss.
#[test]
fn recovery_held_at_high_seq_then_ends_at_ssthresh() {
    let mut s = sender(cfg(20, false));
    let sent = one_loss(&mut s, false);
    assert!(s.w.cwnd <= 20 * MSS);
    assert_eq!(sent.iter().flatten().map(|x| x.0).max(), Some(28));
    ack(&mut s, 30 * MS, 20, &[]);
    assert!(s.in_recovery(), "held at high_seq");
    assert!(s.w.cwnd <= 20 * MSS);
    ack(&mut s, 31 * MS, 21, &[]);
    assert!(!s.in_recovery());
    assert!(s.w.cwnd >= 10 * MSS && s.w.cwnd < 11 * MSS, "{}", s.w.cwnd);
}

/// Two losses in a window of 20 (segments 0 and 5), no SACK: the partial
/// ACK of the first retransmission marks the next hole lost and it goes
/// out as PRR allows, ahead of new data; one hole per round trip, as
/// RFC 6582, but with the window PRR sets instead of an inflated one.
#[test]
fn a_partial_ack_retransmits_the_next_hole_first() {
    let mut s = sender(cfg(20, false));
    assert_eq!(drain(&mut s, 0).len(), 20);
    let mut sent = vec![];
    for k in 1..19 {
        sent.extend(seqs(&ack(&mut s, k * MS, 0, &[])));
    }
    assert_eq!(sent.first(), Some(&(0, true)));
    assert!(sent[1..].iter().all(|x| !x.1), "{sent:?}");
    // The retransmission of 0 fills the first hole: the ACK stops at 5.
    let out = seqs(&ack(&mut s, 30 * MS, 5, &[]));
    assert!(s.in_recovery());
    assert_eq!(out.first(), Some(&(5, true)), "{out:?}");
    assert!(out[1..].iter().all(|x| !x.1), "{out:?}");
    assert!(s.w.cwnd <= 20 * MSS);
}

/// Without SACK, duplicates beyond the outstanding segments (all but the
/// hole already counted) deliver nothing, so PRR lets nothing more out:
/// Linux's tcp_limit_reno_sacked().
#[test]
fn emulated_sacks_stop_at_the_outstanding_segments() {
    let mut s = sender(cfg(4, false));
    assert_eq!(drain(&mut s, 0).len(), 4);
    let mut sent = vec![];
    for k in 1..10 {
        sent.push(seqs(&ack(&mut s, k * MS, 0, &[])));
    }
    // The third duplicate: the retransmission (ssthresh 2, nothing else in
    // flight: one segment, the forced one). The later ones find the three
    // segments beyond the hole all counted: nothing delivered, nothing sent
    // (RFC 6582's inflation would send one new segment for each).
    assert_eq!(sent[2], vec![(0, true)]);
    assert!(sent[3..].iter().all(|v| v.is_empty()), "{sent:?}");
}

/// After a timeout the go-back-N retransmissions bring duplicates of
/// exactly the point outstanding at the timeout; like Linux (its Loss
/// state, held at that point) no fast retransmit follows them.
#[test]
fn duplicates_of_the_timeout_point_start_no_recovery() {
    let mut s = sender(cfg(4, false));
    assert_eq!(drain(&mut s, 0).len(), 4);
    let rto = s.rto_deadline().unwrap();
    assert!(s.on_timeout(rto));
    assert_eq!(seqs(&drain(&mut s, rto)), vec![(0, true)]);
    // Everything arrives: the ACK of 4, then the go-back-N copies of 1..3
    // sent meanwhile come back as duplicates of 4.
    let t = rto + 100 * MS;
    ack(&mut s, t, 4, &[]);
    let before = s.stats.fast_retransmits;
    for k in 1..5 {
        ack(&mut s, t + k * MS, 4, &[]);
    }
    assert_eq!(s.stats.fast_retransmits, before);
    assert!(!s.in_recovery());
}
