//! Delivery-rate sampling as Linux does it (`net/ipv4/tcp_rate.c`), for
//! congestion controls that steer by the rate the network delivers (BBR).
//!
//! Each segment sent records the connection's delivery state at that
//! moment: how many segments had been delivered, when the last of them was,
//! when the current "send phase" began, and whether the sender was
//! application-limited. When an ACK or SACK reports a segment delivered,
//! the newest such record gives the sample: the segments delivered since it
//! was sent, over the longer of its send phase and its ACK phase. As in the
//! kernel:
//! * counts are segments (packets), times microseconds; a time of 0 means
//!   "none", so the clock is offset by one microsecond (`us()`), which
//!   changes no interval;
//! * a segment is delivered once: when SACKed, or when cumulatively
//!   acknowledged if it was not SACKed before; without SACK each duplicate
//!   ACK counts one segment delivered, taken back from the cumulative ACK
//!   that follows (`tcp_add_reno_sack()`, `tcp_remove_reno_sacks()`);
//! * a sample shorter than the least RTT seen is invalid; an
//!   application-limited one is marked so (the connection is
//!   application-limited from its start until what was then in flight has
//!   been delivered, and whenever the sender runs out of data with the
//!   window open).
//!
//! Not modelled: SACK reneging (the receiver never reneges here) and the
//! kernel's 5-minute window on the least RTT (the least over the whole
//! connection is used; a path whose delay only grows sees no difference).

use crate::engine::Time;
use crate::packet::SackBlock;
use std::collections::VecDeque;

/// The microsecond clock, offset by one so that 0 means "no stamp".
pub fn us(t: Time) -> u64 {
    t / 1_000 + 1
}

/// One segment's delivery state at its last transmission
/// (`tcp_skb_cb.tx` and the skb's timestamp).
#[derive(Clone, Copy, Debug)]
struct TxRecord {
    seq: u64,
    end: u64,
    sent_us: u64,
    delivered: u64,
    /// 0 once the segment has been SACKed (counted delivered).
    delivered_us: u64,
    first_tx_us: u64,
    app_limited: bool,
    retrans: bool,
    sacked: bool,
}

/// What one ACK tells about the delivery rate (`struct rate_sample`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    /// `tp->delivered` when the newest delivered segment was sent.
    pub prior_delivered: u64,
    /// When the segment delivered then (0: no sample).
    pub prior_us: u64,
    /// Segments delivered over the interval (-1: no valid sample).
    pub delivered: i64,
    /// The sample's interval in microseconds (-1: invalid).
    pub interval_us: i64,
    /// Segments this ACK newly acknowledged or SACKed.
    pub acked_sacked: u64,
    /// Segments this ACK newly marked lost.
    pub losses: u64,
    pub is_app_limited: bool,
    pub is_retrans: bool,
    /// The RTT of the newest segment this ACK delivered that was sent once
    /// (Linux's ca_rtt_us; -1: none).
    pub rtt_us: i64,
    /// Segments in flight before the ACK.
    pub prior_in_flight: u64,
    /// The ACK may have been delayed by the receiver (it delivered one
    /// segment with less than one segment in flight; `FLAG_ACK_MAYBE_DELAYED`).
    pub is_ack_delayed: bool,
}

impl Default for RateSample {
    fn default() -> Self {
        RateSample {
            prior_delivered: 0,
            prior_us: 0,
            delivered: -1,
            interval_us: -1,
            acked_sacked: 0,
            losses: 0,
            is_app_limited: false,
            is_retrans: false,
            rtt_us: -1,
            prior_in_flight: 0,
            is_ack_delayed: false,
        }
    }
}

#[derive(Debug)]
pub struct RateSampler {
    log: VecDeque<TxRecord>,
    /// Segments delivered so far (`tp->delivered`).
    pub delivered: u64,
    /// When the last delivery was reported (`tp->delivered_mstamp`).
    pub delivered_us: u64,
    first_tx_us: u64,
    /// `tp->app_limited`: 0 when not, else the delivered count that ends
    /// it; the kernel starts at ~0U (every sample of the first window is
    /// application-limited, and the first ACK clears it), here -1.
    app_limited: i64,
    /// Segments marked lost so far (`tp->lost`), fed by the recovery.
    pub lost: u64,
    /// Duplicate ACKs counted as deliveries without SACK (`sacked_out`).
    reno_sacked: u64,
    rtt_min_us: u64,
    rs: RateSample,
    /// The send time of the newest segment this ACK delivered, sent once.
    ca_rtt_sent: u64,
    delivered_at_ack_start: u64,
}

impl Default for RateSampler {
    fn default() -> Self {
        RateSampler {
            log: VecDeque::new(),
            delivered: 0,
            delivered_us: 0,
            first_tx_us: 0,
            app_limited: -1,
            lost: 0,
            reno_sacked: 0,
            rtt_min_us: u64::MAX,
            rs: RateSample::default(),
            ca_rtt_sent: 0,
            delivered_at_ack_start: 0,
        }
    }
}

impl RateSampler {
    /// Whether the sender is application-limited now.
    pub fn app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// An RTT sample from outside the data (the handshake's).
    pub fn note_rtt(&mut self, rtt_us: u64) {
        self.rtt_min_us = self.rtt_min_us.min(rtt_us.max(1));
    }

    /// `tcp_rate_skb_sent()`: the segment [seq, end) goes on the wire at
    /// `now` (again, when `retrans`).
    pub fn on_send(&mut self, now: Time, seq: u64, end: u64, retrans: bool) {
        let t = us(now);
        if self.log.is_empty() {
            self.first_tx_us = t;
            self.delivered_us = t;
        }
        let rec = TxRecord {
            seq,
            end,
            sent_us: t,
            delivered: self.delivered,
            delivered_us: self.delivered_us,
            first_tx_us: self.first_tx_us,
            app_limited: self.app_limited != 0,
            retrans,
            sacked: false,
        };
        match self.log.back() {
            Some(b) if b.end > seq => {
                // A retransmission: the record of the segment starting here.
                let i = self.log.partition_point(|r| r.seq < seq);
                match self.log.get_mut(i) {
                    Some(r) if r.seq == seq => {
                        let sacked = r.sacked;
                        *r = TxRecord { end: r.end.max(end), sacked, ..rec };
                    }
                    _ => self.log.insert(i, rec),
                }
            }
            _ => self.log.push_back(rec),
        }
    }

    /// An ACK is about to be processed with `in_flight` segments out.
    pub fn begin_ack(&mut self, in_flight: u64) {
        self.rs = RateSample { prior_in_flight: in_flight, ..RateSample::default() };
        self.ca_rtt_sent = 0;
        self.delivered_at_ack_start = self.delivered;
    }

    /// `tcp_rate_skb_delivered()` for the record at `i`.
    fn skb_delivered(&mut self, i: usize) {
        let r = self.log[i];
        if r.delivered_us == 0 {
            return;
        }
        let rs = &mut self.rs;
        if rs.prior_delivered == 0 || r.delivered > rs.prior_delivered {
            rs.prior_delivered = r.delivered;
            rs.prior_us = r.delivered_us;
            rs.is_app_limited = r.app_limited;
            rs.is_retrans = r.retrans;
            self.first_tx_us = r.sent_us;
            rs.interval_us = r.sent_us as i64 - r.first_tx_us as i64;
        }
        if !r.retrans {
            self.ca_rtt_sent = self.ca_rtt_sent.max(r.sent_us);
        }
    }

    /// The SACK blocks of an ACK: every whole segment inside one that was
    /// not SACKed before is delivered now.
    pub fn on_sack(&mut self, blocks: &[SackBlock]) {
        for b in blocks {
            let mut i = self.log.partition_point(|r| r.seq < b.start);
            while i < self.log.len() && self.log[i].end <= b.end {
                if !self.log[i].sacked {
                    self.delivered += 1;
                    self.skb_delivered(i);
                    let r = &mut self.log[i];
                    r.sacked = true;
                    r.delivered_us = 0;
                }
                i += 1;
            }
        }
    }

    /// A duplicate ACK without SACK: one more segment has left the network
    /// (`tcp_add_reno_sack()`, at most all but one of those out).
    pub fn on_reno_dupack(&mut self) {
        let out = self.log.len() as u64;
        if self.reno_sacked + 1 < out.max(1) || out == 0 {
            self.reno_sacked += 1;
            self.delivered += 1;
        }
    }

    /// The cumulative ACK moved to `ack`: the segments below it leave the
    /// log, those not SACKed before delivered now. `reno`: without SACK,
    /// where the duplicates counted before are taken back.
    pub fn on_cumulative(&mut self, ack: u64, reno: bool) {
        let mut acked = 0u64;
        let mut newly = 0u64;
        while self.log.front().is_some_and(|r| r.end <= ack) {
            if !self.log[0].sacked {
                newly += 1;
            }
            self.skb_delivered(0);
            self.log.pop_front();
            acked += 1;
        }
        if reno {
            if acked > 0 {
                self.delivered += acked.saturating_sub(self.reno_sacked).max(1);
                self.reno_sacked = self.reno_sacked.saturating_sub(acked - 1);
            }
        } else {
            self.delivered += newly;
        }
        if self.log.is_empty() {
            self.reno_sacked = 0;
        }
    }

    /// A timeout: nothing is left SACKed by duplicates (Linux clears
    /// sacked_out without SACK at `tcp_enter_loss()`).
    pub fn on_timeout(&mut self) {
        self.reno_sacked = 0;
    }

    /// `tcp_rate_gen()` at the end of the ACK, `losses` segments newly
    /// marked lost by it. Returns the sample.
    pub fn finish_ack(&mut self, now: Time, losses: u64) -> RateSample {
        let t = us(now);
        let delivered = self.delivered - self.delivered_at_ack_start;
        if self.ca_rtt_sent != 0 {
            let rtt = t - self.ca_rtt_sent;
            self.rs.rtt_us = rtt as i64;
            self.rtt_min_us = self.rtt_min_us.min(rtt.max(1));
        }
        self.rs.is_ack_delayed =
            delivered == 1 && self.rs.prior_in_flight == 1 && self.rs.prior_delivered + 1 == self.delivered;
        if self.app_limited != 0 && self.delivered as i64 > self.app_limited {
            self.app_limited = 0;
        }
        if delivered > 0 {
            self.delivered_us = t;
        }
        self.lost += losses;
        let rs = &mut self.rs;
        rs.acked_sacked = delivered;
        rs.losses = losses;
        if rs.prior_us == 0 {
            rs.delivered = -1;
            rs.interval_us = -1;
            return *rs;
        }
        rs.delivered = (self.delivered - rs.prior_delivered) as i64;
        let snd_us = rs.interval_us;
        let ack_us = t as i64 - rs.prior_us as i64;
        rs.interval_us = snd_us.max(ack_us);
        if rs.interval_us < self.rtt_min_us.min(i64::MAX as u64) as i64 {
            rs.interval_us = -1;
        }
        *rs
    }

    /// `tcp_rate_check_app_limited()`: the sender has less than a segment
    /// to send with the window open and every lost segment resent (BBR's
    /// PROBE_RTT marks its low-rate samples the same way).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1) as i64;
    }
}

/// net.ipv4.tcp_pacing_ss_ratio and tcp_pacing_ca_ratio, percent.
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;

/// `tcp_update_pacing_rate()`, sk_pacing_rate in bytes a second for a
/// sender whose congestion control does not set its own (all but BBR):
/// 200 % of max(cwnd, segments out) x MSS / SRTT while cwnd is below half
/// ssthresh, 120 % after; without an SRTT the rate is not divided (as
/// large as it gets). Read by CUBIC's HyStart and the TSO deferral.
pub(super) fn linux_pacing_rate(mss: u64, cwnd: u64, packets_out: u64, ssthresh: u64, srtt: Option<Time>) -> u64 {
    let ratio = if cwnd < ssthresh / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
    let per_window = mss as u128 * ratio as u128 * cwnd.max(packets_out) as u128;
    match srtt {
        // bytes/s = per_window / 100 / (srtt / 1e9)
        Some(t) if t > 0 => (per_window * 10_000_000 / t as u128).min(u64::MAX as u128) as u64,
        _ => u64::MAX,
    }
}

/// A rate-based sender's state (`TcpSender`): the sampler and Linux's
/// internal pacing (`tcp_update_skb_after_send()`, `tcp_pacing_check()`).
#[derive(Debug, Default)]
pub struct Pacing {
    pub sampler: RateSampler,
    /// sk_pacing_rate, bytes a second (0: not yet set).
    pub rate: u64,
    /// The earliest departure time of the next segment (tcp_wstamp_ns).
    pub wstamp: Time,
    /// Data segments sent (tp->data_segs_out): the first nine go unpaced.
    segs_out: u64,
    /// A segment is held back until `wstamp`.
    pub waiting: bool,
}

impl Pacing {
    /// May a segment leave at `now`? If not, the sender waits for `wstamp`.
    pub fn check(&mut self, now: Time) -> bool {
        if self.wstamp > now {
            self.waiting = true;
            return false;
        }
        true
    }

    /// A segment of `len` payload bytes (the write queue skb's len, which
    /// Linux charges) left at `now`: the next may leave len / rate later,
    /// less up to half of that for time the sender spent idle.
    pub fn sent(&mut self, now: Time, len: u64) {
        let prior = self.wstamp;
        self.wstamp = self.wstamp.max(now);
        self.segs_out += 1;
        if self.rate > 0 && self.segs_out >= 10 {
            let len_ns = (len as u128 * 1_000_000_000 / self.rate as u128) as u64;
            let credit = self.wstamp - prior;
            self.wstamp += len_ns - (len_ns / 2).min(credit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    #[test]
    fn pacing_rate_is_linuxs() {
        // 120 % of 40 x 1000 B / 32 ms = 1.5 MB/s; 200 % in slow start;
        // the segments out count when more than cwnd.
        assert_eq!(linux_pacing_rate(1000, 40, 39, 30, Some(32 * MS)), 1_500_000);
        assert_eq!(linux_pacing_rate(1000, 40, 39, 100, Some(32 * MS)), 2_500_000);
        assert_eq!(linux_pacing_rate(1000, 40, 80, 30, Some(32 * MS)), 3_000_000);
        assert_eq!(linux_pacing_rate(1000, 40, 39, 30, None), u64::MAX);
    }

    /// Ten segments sent back to back at t=0 and acknowledged one by one,
    /// a millisecond apart from 100 ms: after the first window (whose
    /// samples are application-limited, as the kernel's), each ACK's
    /// sample is one segment a millisecond.
    #[test]
    fn a_steady_ack_clock_gives_its_rate() {
        let mut r = RateSampler::default();
        for k in 0..10u64 {
            r.on_send(0, k * 1000, (k + 1) * 1000, false);
        }
        let mut last = RateSample::default();
        for k in 0..10u64 {
            let now = 100 * MS + k * MS;
            r.begin_ack(10 - k);
            r.on_cumulative((k + 1) * 1000, false);
            last = r.finish_ack(now, 0);
            assert!(last.is_app_limited, "first window is app-limited");
            assert_eq!(last.acked_sacked, 1);
            // Each ACK frees a slot: send the next segment now.
            r.on_send(now, (10 + k) * 1000, (11 + k) * 1000, false);
        }
        assert_eq!(last.delivered, 10);
        assert_eq!(last.rtt_us, 109_000);
        // The second window, sent a millisecond apart: its segments carry
        // the first window's send phase (all sent at 0), so the send phase
        // is the longer, 100 + k ms.
        for k in 0..10u64 {
            let now = 200 * MS + k * MS;
            r.begin_ack(10);
            r.on_cumulative((11 + k) * 1000, false);
            let s = r.finish_ack(now, 0);
            assert!(!s.is_app_limited);
            assert_eq!((s.delivered, s.interval_us), (10, 100_000 + k as i64 * 1000));
            r.on_send(now, (20 + k) * 1000, (21 + k) * 1000, false);
        }
        // The third: both phases 100 ms, ten segments each.
        for k in 0..10u64 {
            let now = 300 * MS + k * MS;
            r.begin_ack(10);
            r.on_cumulative((21 + k) * 1000, false);
            let s = r.finish_ack(now, 0);
            assert_eq!((s.delivered, s.interval_us), (10, 100_000));
        }
    }

    #[test]
    fn a_sacked_segment_is_delivered_once() {
        let mut r = RateSampler::default();
        for k in 0..4u64 {
            r.on_send(0, k * 100, (k + 1) * 100, false);
        }
        r.begin_ack(4);
        r.on_sack(&[SackBlock { start: 100, end: 300 }]);
        let s = r.finish_ack(10 * MS, 0);
        assert_eq!(s.acked_sacked, 2);
        r.begin_ack(2);
        r.on_sack(&[SackBlock { start: 100, end: 300 }]);
        r.on_cumulative(400, false);
        let s = r.finish_ack(11 * MS, 0);
        // The head and the last segment; the SACKed two not again.
        assert_eq!(s.acked_sacked, 2);
        assert_eq!(r.delivered, 4);
    }

    /// At 1 MB/s a 1000-byte segment leaves every millisecond once the
    /// first nine have gone; an idle gap earns up to half a segment's time.
    #[test]
    fn pacing_spaces_segments_at_the_rate() {
        let mut p = Pacing { rate: 1_000_000, ..Default::default() };
        for _ in 0..9 {
            assert!(p.check(0));
            p.sent(0, 1000);
        }
        assert_eq!(p.wstamp, 0);
        p.sent(0, 1000);
        assert_eq!(p.wstamp, MS);
        assert!(!p.check(MS / 2));
        assert!(p.waiting);
        assert!(p.check(MS));
        p.sent(MS, 1000);
        assert_eq!(p.wstamp, 2 * MS);
        // Idle until 10 ms: half a millisecond of credit.
        p.sent(10 * MS, 1000);
        assert_eq!(p.wstamp, 10 * MS + MS / 2);
    }

    #[test]
    fn duplicates_count_as_deliveries_without_sack() {
        let mut r = RateSampler::default();
        for k in 0..5u64 {
            r.on_send(0, k * 100, (k + 1) * 100, false);
        }
        for _ in 0..3 {
            r.begin_ack(5);
            r.on_reno_dupack();
            assert_eq!(r.finish_ack(10 * MS, 0).acked_sacked, 1);
        }
        // The ACK of all five: two more delivered (5 - 3), as Linux counts.
        r.begin_ack(5);
        r.on_cumulative(500, true);
        assert_eq!(r.finish_ack(11 * MS, 0).acked_sacked, 2);
        assert_eq!(r.delivered, 5);
    }

    #[test]
    fn running_out_of_data_marks_the_samples_app_limited() {
        let mut r = RateSampler::default();
        r.on_send(0, 0, 100, false);
        r.begin_ack(1);
        r.on_cumulative(100, false);
        r.finish_ack(10 * MS, 0);
        assert!(!r.app_limited());
        r.mark_app_limited(0);
        r.on_send(10 * MS, 100, 200, false);
        r.on_send(11 * MS, 200, 300, false);
        r.begin_ack(2);
        r.on_cumulative(200, false);
        let s = r.finish_ack(20 * MS, 0);
        assert!(s.is_app_limited);
        // The bubble (nothing was in flight) is delivered: the marker is
        // gone, though the next segment was sent under it.
        assert!(!r.app_limited());
        r.begin_ack(1);
        r.on_cumulative(300, false);
        assert!(r.finish_ack(21 * MS, 0).is_app_limited);
    }
}
