//! SACK loss recovery as ns-2.35's Agent/TCP/Sack1 (the `sack1_recovery`
//! rule of the ns2 profile), which predates RFC 6675 and differs from it:
//!
//! * Duplicate ACKs count only when their SACK blocks tell something new;
//!   after a timeout none count until a new cumulative ACK.
//! * Entering recovery: ssthresh and cwnd from the loss rule, `pipe` =
//!   outstanding segments - dupthresh (an integer estimate, not RFC 6675's
//!   scoreboard sum); the first hole is retransmitted at once.
//! * In recovery every ACK takes one from `pipe`, a partial ACK one more;
//!   while pipe < floor(cwnd), send the first hole below the highest SACK
//!   that has been neither SACKed nor retransmitted in this recovery (any
//!   such hole counts as lost, without RFC 6675's IsLost test), else new
//!   data within the advertised window; each send adds one to `pipe`.
//! * The ACK that covers `recover` ends recovery with cwnd left at the
//!   halved window: no deflation step and no increase on that ACK.
//! * A second recovery needs an ACK beyond the last `recover` (bugFix_;
//!   `sack1_careful`, off: any third new duplicate starts one); ns-2
//!   resets `recover` to 0 when recovery ends.

use super::cc::CarefulGuard;
use super::config::TcpConfig;
use super::recovery::LossRecovery;
use super::sender::{Segment, TcpSender};
use crate::engine::Time;
use crate::packet::TcpHeader;

#[derive(Default)]
pub struct Sack1Recovery {
    fast_recovery: bool,
    /// ns-2's recover_ in bytes (highest byte + 1 sent at the last loss
    /// event); None where ns-2 has 0.
    recover: Option<u64>,
    /// ns-2's pipe_, in segments.
    pipe: i64,
    /// Start of each segment retransmitted in this recovery (ns-2's
    /// scoreboard retran_ marks).
    retransmitted: Vec<u64>,
    /// A timeout happened and no new ACK since (ns-2's timeout_).
    timed_out: bool,
    /// The ACK being handled started recovery: it sends the retransmission
    /// alone (ns-2's recv() calls send_much() outside fast recovery only
    /// while dupacks_ == 0, and dupack_action() sends just the hole).
    started_on_this_ack: bool,
}

impl Sack1Recovery {
    /// ns-2's test before a fast retransmit, in its packet numbers (its
    /// Sack1 agent always numbers so; `CarefulGuard`).
    fn recovered(&self, ack: u64, cfg: &TcpConfig) -> bool {
        let guard = CarefulGuard { ns2_numbers: true, ..CarefulGuard::of(cfg, false) };
        guard.allows(ack, self.recover, cfg.mss as u64)
    }

    fn clear(&mut self, s: &mut TcpSender) {
        if let Some(sb) = s.sb.as_mut() {
            sb.clear();
        }
        self.retransmitted.clear();
    }

    /// Restart or stop the retransmission timer after a new cumulative ACK.
    fn after_new_ack(s: &mut TcpSender, now: Time) {
        // A window below one segment keeps the timer running (newtimer()).
        if s.snd_una == s.snd_max && s.w.cwnd >= s.w.mss {
            s.all_acked(now);
        } else {
            s.restart_timer(now);
        }
        if s.completed_at.is_none() && s.finished() {
            s.note_completion(now);
        }
    }

    /// The duplicate-ACK threshold: `dupthresh`, or with `dupthresh_frac`
    /// F at least the whole segments of cwnd / F (ns-2's numdupacks(cwnd_):
    /// int(cwnd_) / numdupacksFrac_ when that is larger).
    fn threshold(s: &TcpSender) -> u32 {
        let d = s.w.dupthresh;
        match s.cfg.dupthresh_frac {
            0 => d,
            f => d.max((s.w.cwnd / s.w.mss) as u32 / f),
        }
    }

    /// The third new duplicate ACK (ns-2's dupack_action()).
    fn dupack_action(&mut self, s: &mut TcpSender, now: Time) {
        let mss = s.w.mss;
        // ns-2's pipe_ = maxseq_ - highest_ack_ - numdupacks(cwnd_), before
        // slowdown() halves cwnd_.
        let outstanding = s.snd_max.div_ceil(mss) as i64 - (s.snd_una / mss) as i64 - Self::threshold(s) as i64;
        // Within the window of an ECN cut, the last congestion action:
        // recover without a second cut. ns-2's ecn() set recover_ to the
        // cut's maxseq_, so this comes before the test of the last
        // recovery's (`recovered`), which the cut has replaced.
        if let Some(g) = s.ecn_action.filter(|&g| s.snd_una <= g) {
            s.ecn_action = None;
            self.recover = Some(g);
            self.start(s, now, outstanding, false);
            return;
        }
        // bugFix_ (`sack1_careful`): none for duplicates of data sent
        // before the last timeout (ns-2's `!bug_fix_ && !ecn_` goes to
        // sack_action at once; with ECN, past the ECN test above).
        if s.cfg.sack1_careful && !self.recovered(s.snd_una, &s.cfg) {
            return;
        }
        self.recover = Some(s.snd_max);
        s.ecn_action = None;
        let flight = s.flight() - s.limited_bytes;
        let cwnd = s.w.halved_cwnd(flight);
        s.w.ssthresh = s.cc.ssthresh_on_loss(&s.w, flight);
        s.w.set_cwnd(cwnd);
        self.start(s, now, outstanding, true);
    }

    /// A fast retransmit (with a cut of the window, or within an ECN cut's).
    /// `outstanding`: the pipe estimate, segments outstanding less the
    /// threshold.
    fn start(&mut self, s: &mut TcpSender, now: Time, outstanding: i64, cut: bool) {
        s.stats.fast_retransmits += 1;
        s.fast_retransmit_started(cut);
        self.started_on_this_ack = true;
        self.pipe = outstanding;
        self.fast_recovery = true;
        self.retransmitted.push(s.snd_una);
        s.pending_head_rtx = true;
        s.limited_extra = 0;
        s.limited_bytes = 0;
        s.restart_timer(now);
    }

    /// ns-2's send_much() in fast recovery, one segment at a time.
    fn next_segment(&mut self, s: &mut TcpSender, now: Time) -> Option<Segment> {
        let mss = s.w.mss;
        if self.started_on_this_ack || self.pipe >= (s.w.cwnd / mss) as i64 {
            return None;
        }
        let sb = s.sb.as_ref()?;
        let top = sb.highest_sacked().min(s.snd_max);
        let mut seq = s.snd_una;
        while seq < top {
            let len = mss.min(s.snd_max - seq);
            if !sb.is_sacked(seq, seq + len) && !self.retransmitted.contains(&seq) {
                if seq >= s.snd_una + s.rwnd {
                    return None;
                }
                self.retransmitted.push(seq);
                self.pipe += 1;
                return Some(s.emit(now, seq, len as u32));
            }
            seq += len;
        }
        let len = s.app_limit().saturating_sub(s.snd_max).min(mss);
        if len > 0 && s.snd_nxt == s.snd_max && s.snd_max + len <= s.snd_una + s.rwnd {
            self.pipe += 1;
            return Some(s.emit(now, s.snd_max, len as u32));
        }
        None
    }
}

impl LossRecovery for Sack1Recovery {
    fn name(&self) -> &'static str {
        "sack1"
    }

    fn in_recovery(&self, _s: &TcpSender) -> bool {
        self.fast_recovery
    }

    fn on_timeout(&mut self, s: &mut TcpSender) {
        self.fast_recovery = false;
        self.started_on_this_ack = false;
        self.timed_out = true;
        self.recover = Some(s.snd_max);
        self.clear(s);
    }

    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool) {
        self.started_on_this_ack = false;
        let ack = h.ack;
        let blocks = &*h.sack_blocks();
        if !self.fast_recovery {
            if ack > s.snd_una {
                let flight = s.flight();
                let acked = s.advance_una(now, h);
                if !ece_cut {
                    let info = s.ack_info(ack, acked, flight);
                    s.cc.on_new_ack(&mut s.w, &info);
                }
                self.timed_out = false;
                self.clear(s);
                Self::after_new_ack(s, now);
            } else if ack == s.snd_una && s.snd_max > s.snd_una && !self.timed_out {
                let news = s.sb.as_mut().is_some_and(|sb| sb.update(ack, blocks));
                if news {
                    s.stats.dupacks_received += 1;
                    s.dupacks += 1;
                    let threshold = Self::threshold(s);
                    if s.dupacks == threshold {
                        self.dupack_action(s, now);
                    } else if s.dupacks < threshold && s.cfg.limited_transmit {
                        s.limited_extra = s.dupacks as u64;
                    }
                }
            }
            return;
        }
        self.pipe -= 1;
        if ece_cut && s.cfg.sack1_ecn_recover {
            // ns-2's ecn() ran first and set recover_ to maxseq_.
            self.recover = Some(s.snd_max);
        }
        if ack >= self.recover.unwrap_or(0) {
            // Recovery is over; cwnd stays at the halved window.
            self.fast_recovery = false;
            self.recover = None;
            s.advance_una(now, h);
            self.timed_out = false;
            self.clear(s);
            Self::after_new_ack(s, now);
        } else if ack > s.snd_una {
            // Partial ACK: one more out of the pipe (ns-2 without
            // partial_ack_), timer restarted, then the backoff cleared:
            // ns-2 runs newtimer() before t_backoff_ = 1, so the restarted
            // timer still carries the backoff of an earlier timeout.
            if s.cfg.sack1_partial_ack_timing {
                // ns-2's Sack1 recv(): no newack(), the measurement runs on.
                s.advance_una_keeping_timing(h);
            } else {
                s.advance_una_partial(now, h);
            }
            if let Some(sb) = s.sb.as_mut() {
                sb.update(ack, blocks);
            }
            self.retransmitted.retain(|&q| q >= ack);
            self.pipe -= 1;
            s.restart_timer(now);
            s.rto.clear_backoff();
        } else if ack == s.snd_una && !self.timed_out {
            s.stats.dupacks_received += 1;
            if let Some(sb) = s.sb.as_mut() {
                sb.update(ack, blocks);
            }
        }
    }

    fn polls(&self) -> bool {
        true
    }

    fn poll(&mut self, s: &mut TcpSender, now: Time) -> Option<Option<Segment>> {
        Some(self.next_segment(s, now))
    }
}
