//! The rfc profile's loss recovery held to the RFCs segment by segment
//! (from a review of 2026-12-06). Each test states the rule it checks.

use super::cc::{make_cc, Variant};
use super::config::TcpConfig;
use super::sender::{Segment, TcpSender};
use crate::engine::time::{MS, SEC};
use crate::engine::Time;
use crate::packet::{SackBlock, TcpHeader};

const MSS: u64 = 1000;

fn cfg(iw: u32, sack: bool) -> TcpConfig {
    let mut c = super::tests::cfg(iw);
    c.sack = sack;
    c
}

fn sender(c: &TcpConfig) -> TcpSender {
    let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, c));
    s.app_write(None);
    s
}

fn drain(s: &mut TcpSender, now: Time) -> Vec<Segment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// An ACK of `ack` segments SACKing the [from, to) segment ranges, the
/// first listed first.
fn ack(s: &mut TcpSender, now: Time, ack: u64, sacked: &[(u64, u64)]) -> Vec<(u64, bool)> {
    let mut h = TcpHeader { ack: ack * MSS, window: 1_000_000, ..Default::default() };
    let blocks: Vec<SackBlock> = sacked.iter().map(|&(a, b)| SackBlock { start: a * MSS, end: b * MSS }).collect();
    if !blocks.is_empty() {
        h.set_sack(&blocks);
    }
    s.on_ack(now, &h);
    drain(s, now).iter().map(|x| (x.seq / MSS, x.retransmit)).collect()
}

/// RFC 6298 5.1: the timer is started when a segment is sent only if it
/// is not running; RFC 5681 3.2 / RFC 6582 3.2 step 2 (fast retransmit)
/// RFC 6298 5.7: after a SYN timeout the RTO is re-initialised to 3 s
/// when data transmission begins, if the RTO in use was below 3 s (here
/// the RFC's initial 1 s, `initial_rto = 1`).
#[test]
fn rfc6298_5_7_three_seconds_after_a_lost_syn() {
    let mut c = cfg(2, false);
    c.syn = true;
    c.initial_rto = SEC;
    let mut s = sender(&c);
    let syn = drain(&mut s, 0);
    assert_eq!(syn.len(), 1);
    let d = s.rto_deadline().unwrap();
    assert_eq!(d, SEC);
    assert!(s.on_timeout(d));
    assert_eq!(drain(&mut s, d).len(), 1, "the SYN again");
    // Its ACK: no RTT sample (the SYN was sent twice, Karn).
    s.on_ack(d + 100 * MS, &TcpHeader { ack: 0, window: 1_000_000, ..Default::default() });
    assert!(s.rto.srtt.is_none());
    assert_eq!(s.rto.rto(), 3 * SEC, "RFC 6298 5.7");
}

/// RFC 5681 4.1: the restart window applies when the TCP "has not sent
/// data in an interval exceeding the RTO"; a retransmission is data sent
/// (and Linux's lsndtime, which `IdleState::last_send` names, counts it).
/// Here the fast retransmission left 150 ms before the next write, with an
/// RTO of 200 ms: no restart is due.
#[test]
fn a_retransmission_counts_as_data_sent_for_the_idle_restart() {
    let mut bad = vec![];
    for sack in [false, true] {
        let c = cfg(2, sack);
        let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
        s.set_app_paced();
        s.app_write(Some(2 * MSS));
        assert_eq!(drain(&mut s, 0).len(), 2);
        ack(&mut s, 150 * MS, 2, &[]);
        for _ in 0..10 {
            s.rto.sample(150 * MS);
        }
        assert_eq!(s.rto.rto(), 200 * MS);
        s.w.cwnd = 20 * MSS;
        // Ten more segments at 150 ms; the first of them (2) is lost.
        s.app_write_more(150 * MS, 10 * MSS);
        assert_eq!(drain(&mut s, 150 * MS).len(), 10);
        let mut out = vec![];
        for k in 3..12u64 {
            let blocks = if sack { vec![(3, k + 1)] } else { vec![] };
            out.extend(ack(&mut s, 300 * MS, 2, &blocks));
        }
        assert_eq!(out.first(), Some(&(2, true)));
        ack(&mut s, 450 * MS, 12, &[]);
        assert!(!s.in_recovery());
        let cwnd = s.w.cwnd;
        assert_eq!(cwnd, 5 * MSS, "ssthresh = FlightSize / 2");
        s.app_write_more(450 * MS, 10 * MSS);
        if s.w.cwnd != cwnd {
            bad.push((sack, s.w.cwnd));
        }
    }
    assert!(bad.is_empty(), "restart window applied 150 ms after the last data sent (sack, cwnd): {bad:?}");
}

/// RFC 6675 5 step (2): IsLost(HighACK + 1) with fewer than DupThresh
/// duplicates (ACKs lost) starts recovery.
#[test]
fn rfc6675_enters_recovery_on_islost_with_one_duplicate() {
    let c = cfg(10, true);
    let mut s = sender(&c);
    drain(&mut s, 0);
    let out = ack(&mut s, 10 * MS, 0, &[(1, 4)]);
    assert!(s.in_recovery());
    assert_eq!(out.first(), Some(&(0, true)));
    assert_eq!(s.w.ssthresh, 5 * MSS);
    assert_eq!(s.w.cwnd, 5 * MSS);
}

/// RFC 6675 worked by hand: segments 0..9 out, 1, 2 and 5 lost.
#[test]
fn rfc6675_three_losses_by_hand() {
    let c = cfg(10, true);
    let mut s = sender(&c);
    drain(&mut s, 0);
    // 0 arrives: new ACK, slow start (cwnd 11): 10 and 11 go out.
    let mut log = vec![ack(&mut s, 100 * MS, 1, &[])];
    // 3, 4, 6 arrive: three duplicates; the third enters recovery.
    log.push(ack(&mut s, 101 * MS, 1, &[(3, 4)]));
    log.push(ack(&mut s, 102 * MS, 1, &[(3, 5)]));
    log.push(ack(&mut s, 103 * MS, 1, &[(6, 7), (3, 5)]));
    assert!(s.in_recovery());
    // FlightSize 11 segments: ssthresh = cwnd = 5.5 segments.
    assert_eq!(s.w.ssthresh, 5500);
    // 7, 8, 9, 10, 11 arrive.
    for k in 7..12u64 {
        log.push(ack(&mut s, 97 * MS + k * MS, 1, &[(6, k + 1), (3, 5)]));
    }
    // By hand (SetPipe, NextSeg):
    // third dup: retransmit 1 (HighRxt 2); pipe 1 + 5 (5 not lost) + 5 = 7 > 5.5.
    // 7 SACKed: pipe = 1 (rtx) + 1 (5) + 4 (8..11) = 6: nothing.
    // 8 SACKed: 5 lost; pipe = 1 + 3 = 4: send lost 2 (HighRxt 3); pipe 5.
    // 9 SACKed: pipe = 2 + 2 (10, 11) = 4: send lost 5 (HighRxt 6); pipe 5.
    // 10 SACKed: pipe = 3 + 1 = 4: rule 2, new data 12; pipe 5.
    // 11 SACKed: pipe = 3 + 1 (12) = 4: new 13.
    let want: Vec<Vec<(u64, bool)>> = vec![
        vec![(10, false), (11, false)],
        vec![],
        vec![],
        vec![(1, true)],
        vec![],
        vec![(2, true)],
        vec![(5, true)],
        vec![(12, false)],
        vec![(13, false)],
    ];
    assert_eq!(log, want);
    // The retransmitted 1 and 2 arrive: ACK 5, partial.
    ack(&mut s, 200 * MS, 3, &[(6, 12), (3, 5)]);
    ack(&mut s, 201 * MS, 5, &[(6, 12)]);
    assert!(s.in_recovery());
    ack(&mut s, 202 * MS, 12, &[]);
    assert!(!s.in_recovery(), "RecoveryPoint 12 reached");
    assert_eq!(s.w.cwnd, 5500);
}

/// RFC 6675 5.1: an RTO during recovery; recovery is not re-entered until
/// HighACK reaches the HighData of the timeout.
#[test]
fn rfc6675_rto_during_recovery() {
    let c = cfg(10, true);
    let mut s = sender(&c);
    drain(&mut s, 0);
    for k in 1..4u64 {
        ack(&mut s, 10 * MS, 0, &[(1, k + 1)]);
    }
    assert!(s.in_recovery());
    let d = s.rto_deadline().unwrap();
    assert!(s.on_timeout(d));
    assert!(!s.in_recovery());
    let out = drain(&mut s, d);
    assert_eq!(out.iter().map(|x| x.seq / MSS).collect::<Vec<_>>(), vec![0]);
    // The retransmission of 0 arrives and 1..3 were held: ACK 4; the go-back
    // resends 4, 5 (held already): duplicates with no new SACK information.
    ack(&mut s, d + 100 * MS, 4, &[(5, 10)]);
    for _ in 0..3 {
        ack(&mut s, d + 101 * MS, 4, &[(5, 10)]);
    }
    assert!(!s.in_recovery());
}

/// RFC 5681 3.2 / RFC 6675 (4.2): Limited Transmit's segments stay out of
/// the FlightSize that sets ssthresh, with SACK too.
#[test]
fn rfc6675_ssthresh_without_limited_transmit_segments() {
    let mut c = cfg(8, true);
    c.limited_transmit = true;
    let mut s = sender(&c);
    assert_eq!(drain(&mut s, 0).len(), 8);
    assert_eq!(ack(&mut s, MS, 0, &[(1, 2)]), vec![(8, false)]);
    assert_eq!(ack(&mut s, MS, 0, &[(1, 3)]), vec![(9, false)]);
    let out = ack(&mut s, MS, 0, &[(1, 4)]);
    assert_eq!(out.first(), Some(&(0, true)));
    assert_eq!(s.w.ssthresh, 4 * MSS);
}

/// RFC 6675 5 step (3): Limited Transmit with SACK is governed by pipe:
/// (cwnd - pipe) >= 1 SMSS sends, so a first duplicate that SACKs two
/// segments (the ACK of the other was lost) lets two new segments out;
/// RFC 3042's count lets one. One that SACKs nothing new sends nothing.
#[test]
fn rfc6675_limited_transmit_by_pipe() {
    let mut c = cfg(10, true);
    c.limited_transmit = true;
    let mut s = sender(&c);
    assert_eq!(drain(&mut s, 0).len(), 10);
    let out = ack(&mut s, MS, 0, &[(1, 3)]);
    assert_eq!(out, vec![(10, false), (11, false)], "pipe 8 against cwnd 10");
    let out = ack(&mut s, MS, 0, &[(1, 3)]);
    assert_eq!(out, vec![], "nothing newly SACKed: pipe unchanged");
    assert!(!s.in_recovery());
}
