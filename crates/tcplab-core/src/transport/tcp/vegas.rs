//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 1995), with the choices of the
//! Arizona implementation as ns-2.35 carries them:
//!
//! * Every segment's send time is recorded; once per round trip Vegas
//!   compares Expected = window / BaseRTT with Actual = (segments sent in the
//!   last round trip) / RTT, diff = (Expected - Actual) x BaseRTT in segments.
//!   In congestion avoidance cwnd grows by one segment per RTT when
//!   diff < alpha, shrinks by one when diff > beta, stays otherwise.
//! * Modified slow start: exponential growth only every other RTT; leave it
//!   (ssthresh = 2, cwnd -= cwnd/8) when diff > gamma.
//! * Fine-grained retransmission: on a duplicate ACK, if the first unacked
//!   segment was sent longer ago than the fine-grained timeout, retransmit it
//!   at once (also on the third duplicate ACK as Reno); on the first two new
//!   ACKs after a retransmission, retransmit the next segment if it has
//!   expired too.
//! * Decrease cwnd for a loss only if the lost segment was sent after the
//!   last decrease: by a quarter (by half for a segment already
//!   retransmitted, to 2 below 4 segments); inflate by the duplicate ACKs
//!   beyond the threshold and deflate to the decreased value on the next
//!   new ACK if still beyond it, with ns-2's duplicate count (dupacks_,
//!   set to the threshold after retransmitting a segment sent once).
//! * Timeout: ssthresh halved, cwnd = 2 segments.
//!
//! The window is kept in segments as a real number, like the original.
//! With the `vegas_rates = "ns2"` rule (the ns2 profile) the rates are
//! ns-2's: Actual from the segments sent since the last measurement,
//! Expected from the data outstanding after the ACK plus one (t_seqno_ -
//! last_ack_), the growth check after the ACK, and ns-2's Vegas clock
//! (vegastime(): the time since the first data segment was sent,
//! firstsent_): the estimator starts from the first ACK's time on that
//! clock (firstrecv_, i.e. the first round trip), the first measurement
//! runs from its origin, and a segment sent at the origin gives no
//! fine-grained sample (ns-2 tests `sendTime != 0.`). Otherwise (rfc, linux) both rates use the data in transit
//! when the ACK arrives (the paper's WindowSize; Linux computes the same
//! diff = W (1 - BaseRTT/RTT)). ns-2 takes the segments sent since the last
//! measurement for Actual and the data outstanding after the ACK for
//! Expected; with delayed ACKs the two disagree and the window can stall, and
//! without them the queue settles one segment above alpha..beta.

use super::cc::*;
use super::config::VegasParams;
use crate::engine::time::to_secs;
use crate::engine::Time;

pub struct Vegas {
    p: VegasParams,
    /// ns-2's rate arithmetic (`Ns2Rules::ns2_vegas`).
    ns2: bool,
    /// ns-2's send path (`Ns2Rules::ns2_vegas_slots`): its send-time
    /// slots (`slots`, allocated at the first send) and the rest of what
    /// the rule copies.
    ns2_slots: bool,
    /// The window may fall to 0 (`Ns2Rules::vegas_zero_window`).
    zero_window: bool,
    /// An ECN flow's segments are ECT (`Ns2Rules::vegas_ecn`).
    ecn: bool,
    /// cwnd and ssthresh taken from the shared state (`sync_in`).
    synced: bool,
    /// cwnd and ssthresh in segments.
    cwnd: f64,
    ssthresh: f64,
    started: bool,
    base_rtt: f64,
    /// Fine-grained RTT estimator (scaled as in the original: sa = 8 srtt,
    /// sd = 4 mdev) and timeout, in seconds.
    sa: f64,
    sd: f64,
    fine_timeout: f64,
    /// Start of the current per-RTT measurement: first byte sent after it.
    beg_seq: u64,
    beg_time: Time,
    sum_rtt: f64,
    cnt_rtt: u32,
    inc_flag: bool,
    incr: f64,
    /// New ACKs after a retransmission still to be checked for expiry.
    worried: u32,
    /// cwnd decided at the last loss, before inflation.
    new_cwnd: f64,
    /// ns-2's dupacks_ as its Vegas agent keeps it: duplicates since the
    /// last new ACK, set to the threshold after a retransmission of a
    /// segment sent once (so that the next duplicate inflates). cwnd is
    /// inflated only beyond the threshold and deflated on a new ACK only
    /// if it is still beyond it.
    dups: u32,
    dupthresh: u32,
    /// When cwnd was last decreased for a loss (None: never).
    cwnd_changed_at: Option<Time>,
    recover: Option<u64>,
    last_was_timeout: bool,
    /// ns-2's v_sendtime_ / v_transmits_ (the `vegas_send_times = "ns2"`
    /// rule): one slot per packet number modulo the window (v_maxwnd_),
    /// send times on the Vegas clock (-1 when cleared).
    slots: Option<Vec<(f64, u32)>>,
    /// ns-2's firstsent_ and last_ack_ (packet number, -1 before any ACK).
    first_sent: Time,
    last_ack_pkt: i64,
}

impl Vegas {
    /// Whether an ECN flow's segments go out ECT (`Ns2Rules::vegas_ecn`).
    pub fn with_ecn(self, ecn: bool) -> Self {
        Vegas { ecn, ..self }
    }

    pub fn new(p: VegasParams, ns2: bool, ns2_slots: bool, zero_window: bool) -> Self {
        Vegas {
            p,
            ns2,
            ns2_slots,
            zero_window,
            ecn: true,
            synced: false,
            cwnd: 0.0,
            ssthresh: 0.0,
            started: false,
            base_rtt: f64::INFINITY,
            sa: 0.0,
            sd: 0.0,
            fine_timeout: 1000.0,
            beg_seq: 0,
            beg_time: 0,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            inc_flag: true,
            incr: 0.0,
            worried: 0,
            new_cwnd: 0.0,
            dups: 0,
            dupthresh: 3,
            cwnd_changed_at: None,
            recover: None,
            last_was_timeout: false,
            slots: None,
            first_sent: 0,
            last_ack_pkt: -1,
        }
    }

    /// Take cwnd/ssthresh from the shared state the first time.
    fn sync_in(&mut self, w: &CcState) {
        // A window deflated to 0 is read back from the shared state (one
        // segment) unless it may stay at 0 (`zero_window`).
        let first = !std::mem::replace(&mut self.synced, true);
        if first || (self.cwnd == 0.0 && !self.zero_window) {
            self.cwnd = w.cwnd as f64 / w.mss as f64;
            self.ssthresh = (w.ssthresh as f64 / w.mss as f64).min(1e9);
        }
    }

    fn window_set_from(&mut self, w: &CcState) {
        self.cwnd = w.cwnd as f64 / w.mss as f64;
    }

    fn sync_out(&self, w: &mut CcState) {
        let floor = if self.zero_window { 0.0 } else { 1.0 };
        w.cwnd = (self.cwnd.max(floor).floor() as u64) * w.mss;
        w.ssthresh = (self.ssthresh.max(2.0) * w.mss as f64) as u64;
    }

    fn segs(bytes: u64, mss: u64) -> f64 {
        (bytes / mss) as f64
    }

    pub fn base_rtt(&self) -> f64 {
        self.base_rtt
    }

    pub fn fine_timeout(&self) -> f64 {
        self.fine_timeout
    }

    fn head_expired(&self, a: &AckInfo) -> bool {
        a.head_seg.is_some_and(|(t, _)| to_secs(a.now - t) >= self.fine_timeout)
    }

    /// ns-2's vegastime(): seconds since firstsent_.
    fn vegastime(&self, now: Time) -> f64 {
        to_secs(now - self.first_sent)
    }

    /// ns-2's slot of packet `pkt` (send time on the Vegas clock,
    /// transmissions).
    fn slot(&self, pkt: i64) -> Option<(f64, u32)> {
        let s = self.slots.as_ref()?;
        Some(s[pkt.rem_euclid(s.len() as i64) as usize])
    }

    /// ns-2's vegas_expire() for the packet after `acked` (its last
    /// acknowledged packet): the slot's age against the fine timeout. A
    /// slot that was cleared reads -1, i.e. always expired.
    fn slot_expired(&self, acked: i64, now: Time) -> bool {
        self.slot(acked + 1).is_some_and(|(t, _)| self.vegastime(now) - t >= self.fine_timeout)
    }

    /// Vegas's new-ACK step; `adjust`: the window may change on this ACK
    /// (false on an ACK whose ECN echo has just cut it).
    fn new_ack(&mut self, w: &mut CcState, a: &AckInfo, adjust: bool) -> AckResponse {
        self.sync_in(w);
        let mss = w.mss;
        let now = a.now;
        if !self.started {
            self.started = true;
            if let Some((t, _)) = a.acked_seg {
                // ns-2's Vegas clock (vegastime()) runs from firstsent_, the
                // time the first data segment was sent: firstrecv_ is the
                // time since then, and the first measurement's start
                // (v_begtime_ = 0) is that instant.
                let r = match (self.ns2, a.first_sent) {
                    (true, Some(t0)) => {
                        self.beg_time = t0;
                        to_secs(now - t0)
                    }
                    _ => to_secs(now - t),
                };
                self.base_rtt = r;
                self.sa = r * 8.0;
                self.sd = r;
                self.fine_timeout = (self.sa / 4.0 + self.sd) / 2.0;
            }
        }
        // Deflate only if inflated beyond the threshold (ns-2:
        // dupacks_ > numdupacks_; a retransmission with no duplicate after
        // it leaves dupacks_ at the threshold and cwnd as it is).
        if self.dups > w.dupthresh && self.cwnd > self.new_cwnd {
            self.cwnd = self.new_cwnd;
            self.ssthresh = 2.0; // Vegas uses ssthresh only in slow start
        }
        self.dups = 0;
        // Once per round trip: compare expected and actual rates (not on an
        // ACK whose echo cut the window: the next ACK makes the comparison).
        if adjust && a.ack > self.beg_seq {
            let rtt = if self.cnt_rtt > 0 { self.sum_rtt / self.cnt_rtt as f64 } else { to_secs(now - self.beg_time) };
            self.sum_rtt = 0.0;
            self.cnt_rtt = 0;
            // Data in transit when this ACK arrived: the paper's WindowSize;
            // ns-2: segments sent in the last round trip (rttLen) for Actual,
            // outstanding after the ACK + 1 for Expected.
            let window = Self::segs(a.flight, mss);
            let (sent, outstanding) = if self.ns2 {
                (Self::segs(a.snd_nxt.saturating_sub(self.beg_seq), mss), Self::segs(a.snd_nxt - a.ack, mss) + 1.0)
            } else {
                (window, window)
            };
            if rtt > 0.0 {
                if rtt < self.base_rtt || sent <= 1.0 {
                    self.base_rtt = rtt;
                }
                // Expected = WindowSize / BaseRTT, Actual = WindowSize / RTT
                // (the window's worth of data took RTT to be acknowledged),
                // Diff in segments = (Expected - Actual) x BaseRTT.
                let expect = outstanding / self.base_rtt;
                let actual = sent / rtt;
                // ns-2: int((expect - actual) * baseRTT + 0.5), truncated
                // toward zero: with its Actual from the segments sent since
                // the last measurement Diff can be negative, and -1.4 + 0.5
                // gives 0, not -1 (which alpha = 0 would tell apart).
                let diff = ((expect - actual) * self.base_rtt + 0.5).trunc();
                if self.cwnd < self.ssthresh {
                    self.inc_flag = !self.inc_flag;
                    if !self.inc_flag {
                        self.incr = 0.0;
                    } else if diff > self.p.gamma {
                        self.ssthresh = 2.0;
                        self.cwnd = (self.cwnd - self.cwnd / 8.0).max(2.0);
                        self.incr = 0.0;
                    } else {
                        self.incr = 1.0;
                    }
                } else if diff > self.p.beta {
                    self.cwnd = (self.cwnd - 1.0).max(2.0);
                    self.incr = 0.0;
                } else if diff < self.p.alpha {
                    self.incr = 1.0 / self.cwnd;
                } else {
                    self.incr = 0.0;
                }
            }
            self.beg_seq = a.snd_nxt;
            self.beg_time = now;
        }
        if self.incr == 1.0 && self.cwnd >= self.ssthresh {
            self.incr = 0.0;
        }
        // Grow only while the window is in use: at most two segments of it
        // idle when this ACK arrived. (ns-2 counts after the ACK, which with
        // delayed ACKs leaves two segments idle at every ACK and freezes the
        // window.)
        let in_use = if self.ns2 { Self::segs(a.snd_nxt - a.ack, mss) + 1.0 } else { Self::segs(a.flight, mss) };
        if adjust && self.incr > 0.0 && self.cwnd - in_use <= 2.0 {
            self.cwnd += self.incr;
        }
        // ns-2's Vegas obeys maxcwnd_ here too (`TcpConfig::max_cwnd`).
        if w.cap_at != u64::MAX && self.cwnd.floor() >= (w.cap_at / mss) as f64 {
            self.cwnd = (w.cap_at / mss - 1) as f64;
        }
        // Fine-grained RTT from a segment sent once; ns-2 skips a segment
        // whose send time on its Vegas clock is 0 (`sendTime != 0.`): one
        // sent at firstsent_.
        let sample = if self.slots.is_some() {
            // ns-2: the acknowledged packet's slot, then its loop clearing
            // the slots this ACK covers, which does nothing when they
            // straddle the wrap (k starts above seqno % v_maxwnd_).
            let seqno = (a.ack / mss) as i64 - 1;
            let (sent, transmits) = self.slot(seqno).unwrap_or((-1.0, 0));
            if let Some(s) = self.slots.as_mut() {
                let m = s.len() as i64;
                let (mut k, mut range) = ((self.last_ack_pkt + 1).rem_euclid(m), seqno - self.last_ack_pkt);
                while k <= seqno.rem_euclid(m) && range > 0 {
                    s[k as usize] = (-1.0, 0);
                    k = (k + 1) % m;
                    range -= 1;
                }
            }
            self.last_ack_pkt = seqno;
            (sent != 0.0 && transmits == 1).then(|| self.vegastime(now) - sent)
        } else {
            let clock_zero = self.ns2 && a.first_sent.is_some() && a.acked_seg.map(|(t, _)| t) == a.first_sent;
            match (a.acked_seg, clock_zero) {
                (Some((t, 1)), false) => Some(to_secs(now - t)),
                _ => None,
            }
        };
        if let Some(r) = sample {
            self.sum_rtt += r;
            self.cnt_rtt += 1;
            if r > 0.0 {
                self.base_rtt = self.base_rtt.min(r);
                let mut n = r - self.sa / 8.0;
                self.sa += n;
                n = n.abs() - self.sd / 4.0;
                self.sd += n;
                self.fine_timeout = (self.sa / 4.0 + self.sd) / 2.0;
                self.fine_timeout += self.fine_timeout / 16.0;
            }
        }
        self.sync_out(w);
        // The first two new ACKs after a retransmission: has the next
        // segment expired as well?
        if self.worried > 0 {
            self.worried -= 1;
            // With the slots, the head's slot (ns-2's vegas_expire()); with
            // nothing outstanding ns-2 reads a cleared or stale slot, finds
            // it "expired" and sends the next segment twice (output() and
            // then send_much(): `retransmit_keeps_next`).
            let expired =
                if self.slots.is_some() { self.slot_expired(self.last_ack_pkt, now) } else { self.head_expired(a) };
            if expired {
                // ns-2 sets dupacks_ = numdupacks_: the duplicates that
                // follow inflate the window instead of retransmitting again.
                self.dups = w.dupthresh;
                return AckResponse { retransmit_head: true, restart_timer: true };
            }
            self.worried = 0;
        }
        AckResponse::NORMAL
    }
}

impl CongestionControl for Vegas {
    fn window_set(&mut self, w: &CcState) {
        self.window_set_from(w);
    }

    fn backs_off_on_fast_retransmit(&self) -> bool {
        true
    }

    /// ns-2's VegasTcpAgent::recv() calls send_much() only with dupacks_ 0
    /// or from numdupacks_ - 1 on, never on the first duplicates: its Vegas
    /// has no Limited Transmit (TcpAgent's singledup_ is not reached).
    fn allows_limited_transmit(&self) -> bool {
        !self.ns2_slots
    }

    fn retransmit_keeps_next(&self) -> bool {
        self.ns2_slots
    }

    /// ns-2's VegasTcpAgent::output() builds its packets without
    /// TcpAgent::output()'s ECN part: with `ecn_` on, no segment is ECT (nor
    /// carries CWR), RED drops rather than marks them, and no echo comes
    /// back (`vegas_ecn` false, the ns2 profile). ns-2.35's binary,
    /// Agent/TCP/Vegas with ecn_ 1 through a RED queue with setbit_: none
    /// of 1297 data packets ECT, 33 dropped by RED, no ECN-Echo; NewReno in
    /// its place: every data packet ECT.
    fn sends_ect(&self) -> bool {
        self.ecn
    }

    fn on_send(&mut self, w: &CcState, seq: u64, _len: u32, now: Time) {
        if !self.ns2_slots {
            return;
        }
        let pkt = (seq / w.mss) as i64;
        if pkt == 0 {
            // ns-2's output() of packet 0 (re)allocates the slots, one per
            // packet of the window (wnd_); send_much() took firstsent_.
            self.first_sent = now;
            self.slots = Some(vec![(-1.0, 0); ((w.rwnd / w.mss) as usize).max(1)]);
        }
        let t = self.vegastime(now);
        if let Some(s) = self.slots.as_mut() {
            let n = s.len() as i64;
            let e = &mut s[pkt.rem_euclid(n) as usize];
            e.0 = t;
            e.1 += 1;
        }
    }

    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        self.new_ack(w, a, true)
    }

    /// The echo's cut is the window's change on this ACK; the rest of
    /// Vegas's new-ACK step (its start, the end of an inflated recovery,
    /// the RTT sample, the worried check) still happens, or a later single
    /// duplicate would find the duplicate count of before the ACK.
    fn on_new_ack_after_ecn_cut(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        self.new_ack(w, a, false)
    }

    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse {
        self.sync_in(w);
        self.dupthresh = w.dupthresh;
        self.dups += 1;
        let expired =
            if self.slots.is_some() { self.slot_expired(self.last_ack_pkt, a.now) } else { self.head_expired(a) };
        // After a retransmission of a segment sent once the later
        // duplicates count as beyond the threshold (ns-2 sets dupacks_ =
        // numdupacks_): the third duplicate ACK must not trigger a second
        // retransmission of the same segment.
        let third = self.dups == w.dupthresh;
        if expired || third {
            // The head's send time (on the Vegas clock with the slots, whose
            // count may be stale) and transmissions.
            let (sent, transmits) = match self.slot(self.last_ack_pkt + 1) {
                Some(slot) => slot,
                None => a.head_seg.map_or((f64::INFINITY, 1), |(t, n)| (to_secs(t), n)),
            };
            let changed = match (&self.slots, self.cwnd_changed_at) {
                (Some(_), c) => c.map_or(0.0, |c| self.vegastime(c)),
                (None, c) => c.map_or(f64::NEG_INFINITY, to_secs),
            };
            if self.recover.is_none_or(|r| a.ack > r) || !self.last_was_timeout {
                self.last_was_timeout = false;
                self.recover = Some(a.snd_max);
                // ns-2: MIN(2, t_seqno_ - last_ack_), last_ack_ the last
                // packet acknowledged: one more than the segments
                // outstanding from the ACK to the next to send.
                let outstanding = Self::segs(a.snd_nxt.saturating_sub(a.ack), w.mss) as u32;
                self.worried = 2u32.min(outstanding + u32::from(self.ns2_slots));
                if transmits > 1 {
                    self.fine_timeout *= 2.0;
                } else {
                    self.fine_timeout += self.fine_timeout / 8.0;
                }
                if changed < sent {
                    // ns-2 cuts its window(), min(cwnd_, wnd_): with the
                    // window inflated past the receiver's by duplicates,
                    // the receiver's window is what it halves.
                    let mut win = self.cwnd.floor() as i64;
                    if self.ns2_slots {
                        win = win.min((w.rwnd / w.mss) as i64);
                    }
                    if win <= 3 {
                        win = 2;
                    } else if transmits > 1 {
                        win >>= 1;
                    } else {
                        win -= win >> 2;
                    }
                    self.new_cwnd = win as f64;
                    self.cwnd = self.new_cwnd + self.dups as f64;
                    self.cwnd_changed_at = Some(a.now);
                }
                if transmits == 1 {
                    self.dups = w.dupthresh;
                }
                self.sync_out(w);
                return DupResponse::FastRetransmit;
            }
        } else if self.dups > w.dupthresh {
            self.cwnd += 1.0;
            self.sync_out(w);
        }
        DupResponse::None
    }

    /// VegasTcpAgent::timeout() tests `highest_ack_ == maxseq_ &&
    /// !slow_start_restart_`: with nothing outstanding (and ns-2's default
    /// slow_start_restart_ true) it goes on to cut ssthresh, set cwnd to
    /// v_slowstart_ and back the timer off, at every expiry (so the
    /// sender calls `on_timeout` for them, never `on_idle_timeout`).
    fn idle_expiry_is_timeout(&self) -> bool {
        true
    }

    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        self.sync_in(w);
        self.last_was_timeout = true;
        self.recover = Some(a.snd_max);
        self.ssthresh = (w.halve(a.flight) / w.mss) as f64;
        self.cwnd = 2.0;
        self.new_cwnd = 0.0;
        self.dups = 0;
        // ns-2.35's VegasTcpAgent::timeout() leaves v_worried_ as it was
        // (the fix that clears it, ns_vegas_fix_level_ 1, is not in 2.35):
        // the next new ACKs may still retransmit an "expired" segment.
        if !self.ns2_slots {
            self.worried = 0;
        }
        self.cwnd_changed_at = Some(a.now);
        self.sync_out(w);
    }

    fn on_ecn(&mut self, w: &mut CcState, a: &AckInfo) {
        // As ns-2's TcpAgent::ecn: ssthresh and cwnd to half the window.
        self.sync_in(w);
        self.cwnd = (self.cwnd / 2.0).max(2.0);
        self.ssthresh = self.cwnd;
        self.cwnd_changed_at = Some(a.now);
        self.sync_out(w);
        w.ca_frac = 0.0;
    }

    fn in_recovery(&self) -> bool {
        self.dups >= self.dupthresh
    }

    fn allows_sack_recovery(&self) -> bool {
        false
    }

    fn owns_stall(&self) -> bool {
        true
    }
    fn times_segments(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    const MSS: u64 = 1000;

    /// The window state of an ns-2-profile sender with a receiver's window
    /// of `rwnd` segments.
    fn state(cwnd: u64, rwnd: u64) -> CcState {
        CcState {
            rwnd: rwnd * MSS,
            loss_from_cwnd: true,
            precise_half: true,
            below_one: true,
            count_acked: false,
            ..CcState::linux_test(cwnd, 1 << 20, MSS)
        }
    }

    fn ack(now: Time, ack: u64, snd_nxt: u64) -> AckInfo {
        AckInfo {
            ack,
            acked: 0,
            snd_max: snd_nxt,
            flight: snd_nxt - ack,
            dupacks: 0,
            ecn_recover: None,
            now,
            snd_nxt,
            acked_seg: None,
            head_seg: None,
            first_sent: None,
            heuristic: false,
        }
    }

    /// ns-2's Diff = int((expect - actual) * baseRTT + 0.5) truncates
    /// toward zero. Here Actual counts 12 segments sent in the round trip
    /// and Expected 11 outstanding, at RTT = BaseRTT: -1 + 0.5 is Diff 0,
    /// which alpha = 0 does not call too little; rounded down it would be
    /// -1 and the window would grow.
    #[test]
    fn ns2_diff_truncates_toward_zero() {
        let p = VegasParams { alpha: 0.0, beta: 3.0, gamma: 1.0 };
        let mut v = Vegas::new(p, true, false, false);
        let mut w = state(10, 64);
        v.sync_in(&w);
        v.started = true;
        v.ssthresh = 2.0;
        v.base_rtt = 0.1;
        (v.sum_rtt, v.cnt_rtt) = (0.1, 1);
        v.on_new_ack(&mut w, &ack(100 * MS, 2 * MSS, 12 * MSS));
        assert_eq!(v.cwnd, 10.0, "Diff 0: alpha <= Diff <= beta, the window stays");
        assert_eq!(v.incr, 0.0);
    }

    /// A retransmission on a duplicate ACK with one segment outstanding
    /// from the ACK (ns-2: t_seqno_ - last_ack_ = 2) worries ns-2 about the
    /// next two new ACKs: v_worried_ = MIN(2, t_seqno_ - last_ack_).
    #[test]
    fn ns2_worried_counts_from_the_last_packet_acknowledged() {
        for (slots, worried) in [(true, 2), (false, 1)] {
            let mut v = Vegas::new(VegasParams::default(), true, slots, false);
            let mut w = state(4, 8);
            for k in 0..2 {
                v.on_send(&w, k * MSS, MSS as u32, 0);
            }
            let mut a = ack(100 * MS, MSS, 2 * MSS);
            (a.acked_seg, a.first_sent) = (Some((0, 1)), Some(0));
            v.on_new_ack(&mut w, &a);
            // Segment 1 (sent at 0) is older than the fine timeout by now.
            let mut d = ack(400 * MS, MSS, 2 * MSS);
            d.head_seg = Some((0, 1));
            assert_eq!(v.on_dupack(&mut w, &d), DupResponse::FastRetransmit);
            assert_eq!(v.worried, worried, "slots {slots}");
        }
    }
}
