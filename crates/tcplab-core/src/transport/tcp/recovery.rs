//! Loss recovery as a policy beside congestion control, in the manner of
//! ns-3's TcpRecoveryOps beside TcpCongestionOps. The sender has one ACK path
//! (the common prelude: window update, ECN echo, ELN) and hands every ACK to
//! its recovery policy, which detects losses and repairs them; the
//! congestion-control policy (`cc`) owns cwnd and ssthresh and is consulted
//! by the recovery policy.
//!
//! * `DupAckRecovery`: duplicate-ACK counting with the variant's own fast
//!   retransmit and fast recovery (Tahoe, Reno, NewReno, Vegas), driven
//!   through the congestion-control policy's `on_dupack` / `on_new_ack`.
//! * `SackRecovery`: RFC 6675 with the scoreboard (pipe, NextSeg); the
//!   congestion-control policy grows the window outside recovery and sets
//!   ssthresh on loss. With `prr` the window during recovery is
//!   Proportional Rate Reduction's (`prr.rs`) instead of ssthresh.
//! * `LinuxRenoRecovery` (`linux_reno.rs`): NewReno without SACK under
//!   `prr`, Linux's emulated SACKs with PRR.

use super::cc::DupResponse;
use super::prr::Prr;
use super::sack::Next;
use super::sender::{Segment, TcpSender};
use crate::engine::Time;
use crate::packet::TcpHeader;

pub trait LossRecovery: Send {
    fn name(&self) -> &'static str;
    /// An ACK, after the sender's common prelude. `ece_cut`: the window was
    /// just reduced for an ECN echo (no increase on this ACK).
    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool);
    /// Whether `poll` ever chooses (policies that override it say so; the
    /// sender asks once, at construction).
    fn polls(&self) -> bool {
        false
    }
    /// While in recovery: `Some(segment or nothing)` when the policy chooses
    /// what to send, `None` to let the ordinary window rules decide.
    fn poll(&mut self, _s: &mut TcpSender, _now: Time) -> Option<Option<Segment>> {
        None
    }
    fn in_recovery(&self, s: &TcpSender) -> bool;
    /// Whether `poll` chooses what goes out now (in recovery, unless the
    /// policy says more).
    fn chooses(&self, s: &TcpSender) -> bool {
        self.in_recovery(s)
    }
    /// The retransmission timer fired (the sender goes back N afterwards,
    /// unless the policy keeps a scoreboard of its own: RACK's).
    fn on_timeout(&mut self, _s: &mut TcpSender) {}
    /// Whether the timeout being handled keeps the ssthresh of the
    /// reduction under way (Linux's tcp_enter_loss() cuts, and tells the
    /// congestion control CA_EVENT_LOSS, once per window).
    fn keeps_cut_on_timeout(&self, _s: &TcpSender) -> bool {
        false
    }
    /// An ECN echo calls for a window reduction: true if the policy makes
    /// it its own way (Linux's CWR state: ssthresh now, the window brought
    /// down by PRR over the next round trip), false for the congestion
    /// control's immediate cut.
    fn on_ecn_cut(&mut self, _s: &mut TcpSender) -> bool {
        false
    }
    /// The sender's timer fired at `now`: true if it was the policy's own
    /// timer sharing the slot (RACK's reordering timer), handled here.
    fn on_timer(&mut self, _s: &mut TcpSender, _now: Time) -> bool {
        false
    }
    /// Linux's congestion state (for a congestion control that follows
    /// the recovery, BBR).
    fn ca_state(&self, s: &TcpSender) -> super::bbr::CaState {
        if self.in_recovery(s) {
            super::bbr::CaState::Recovery
        } else {
            super::bbr::CaState::Open
        }
    }
    /// tcp_packets_in_flight() in segments.
    fn packets_in_flight(&self, s: &TcpSender) -> u64 {
        s.flight().div_ceil(s.w.mss)
    }
    /// Segments marked lost so far (tp->lost): a policy that marks losses
    /// counts them.
    fn lost_total(&self, _s: &TcpSender) -> u64 {
        0
    }
}

pub struct DupAckRecovery;

impl LossRecovery for DupAckRecovery {
    fn name(&self) -> &'static str {
        "dupack"
    }

    fn in_recovery(&self, s: &TcpSender) -> bool {
        s.cc.in_recovery()
    }

    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool) {
        let ack = h.ack;
        if ack > s.snd_una {
            let flight = s.flight();
            let acked = if s.cc.is_partial_ack(ack) {
                s.advance_una_partial(now, h)
            } else {
                // ns-2's newack(): prev_highest_ack_ = highest_ack_.
                s.prev_high_ack = s.snd_una;
                s.advance_una(now, h)
            };
            let info = s.ack_info(ack, acked, flight);
            if ece_cut && s.cc.in_recovery() {
                s.cc.end_recovery_after_ecn_cut(&mut s.w, &info);
            }
            let resp =
                if ece_cut { s.cc.on_new_ack_after_ecn_cut(&mut s.w, &info) } else { s.cc.on_new_ack(&mut s.w, &info) };
            if resp.retransmit_head {
                s.pending_head_rtx = true;
                s.rtx_keeps_timing = s.cc.retransmit_keeps_next();
            }
            // A window below one segment (ns-2's Vegas after a timeout,
            // `vegas_zero_window`; a halving under `cwnd_below_one`) keeps
            // the timer running, as ns-2's newtimer(): nothing else would
            // ever send again.
            let stalled = s.w.cwnd < s.w.mss;
            if s.snd_una == s.snd_max && !stalled {
                s.all_acked(now);
            } else if resp.restart_timer || stalled {
                s.restart_timer(now);
            }
            debug_assert!(
                s.w.cwnd >= s.w.mss || s.cfg.rules.vegas_zero_window || s.cfg.rules.cwnd_below_one,
                "cwnd below one MSS"
            );
            if s.completed_at.is_none() && s.finished() {
                s.note_completion(now);
            }
        } else if ack == s.snd_una && s.snd_max > s.snd_una {
            s.stats.dupacks_received += 1;
            s.dupacks += 1;
            let mut info = s.ack_info(ack, 0, s.flight() - s.limited_bytes);
            if (s.cfg.bugfix_ack || s.cfg.bugfix_ts) && s.dupacks == s.w.dupthresh {
                info.heuristic = s.careful_heuristic();
            }
            match s.cc.on_dupack(&mut s.w, &info) {
                DupResponse::None => {
                    if s.cfg.limited_transmit
                        && s.cc.allows_limited_transmit()
                        && s.dupacks < s.w.dupthresh
                        && !s.cc.in_recovery()
                    {
                        s.limited_extra = s.dupacks as u64;
                    }
                }
                DupResponse::FastRetransmit => {
                    s.fast_retransmit_started(info.ecn_recover.is_none());
                    s.ecn_action = None;
                    s.limited_extra = 0;
                    s.stats.fast_retransmits += 1;
                    s.pending_head_rtx = true;
                    if s.cc.backs_off_on_fast_retransmit() {
                        s.rto.back_off();
                    }
                    s.restart_timer(now);
                }
                DupResponse::FastRetransmitGoBackN => {
                    // Within an ECN cut's window Tahoe's window still goes to
                    // one segment (CWR), but recover stays the cut's.
                    let in_ecn_window = info.ecn_recover.is_some();
                    s.fast_retransmit_started(!in_ecn_window);
                    if in_ecn_window {
                        s.loss_cut();
                    }
                    // The fast retransmit is the last congestion action now.
                    s.ecn_action = None;
                    s.limited_extra = 0;
                    s.stats.fast_retransmits += 1;
                    s.snd_nxt = s.snd_una;
                    s.restart_timer(now);
                }
            }
        }
    }
}

#[derive(Debug, Default)]
pub struct SackRecovery {
    /// Size the window during recovery by PRR (`TcpConfig::prr`).
    prr_on: bool,
    prr: Prr,
    /// The ssthresh this recovery set (with `prr`: a timeout inside the
    /// recovery keeps it, as Linux's tcp_enter_loss() cuts once a window).
    ssthresh: u64,
}

impl SackRecovery {
    pub fn new(prr: bool) -> Self {
        SackRecovery { prr_on: prr, ..Default::default() }
    }

    /// Segments IsLost() marks among those not yet acknowledged, from
    /// `from` (PRR's newly-lost test compares them before and after an ACK).
    fn lost_now(s: &TcpSender, from: u64) -> u64 {
        let sb = s.sb.as_ref().unwrap();
        sb.lost_segments(from.max(s.snd_una), s.snd_max, s.w.mss, s.w.dupthresh)
    }

    /// PRR's window for this ACK: `delivered` bytes (acknowledged plus
    /// newly SACKed), the pipe as RFC 6675 counts it.
    fn reduce(&mut self, s: &mut TcpSender, delivered: u64, una_advanced: bool, newly_lost: bool) {
        let mss = s.w.mss;
        let sb = s.sb.as_ref().unwrap();
        let pipe = sb.pipe(s.snd_una, s.snd_max, mss, s.w.dupthresh).div_ceil(mss);
        if let Some(w) = self.prr.window(delivered.div_ceil(mss), pipe, s.w.ssthresh / mss, una_advanced, newly_lost) {
            s.w.cwnd = w.max(1) * mss;
            s.w.ca_frac = 0.0;
        }
    }
}

impl LossRecovery for SackRecovery {
    fn name(&self) -> &'static str {
        "sack"
    }

    fn in_recovery(&self, s: &TcpSender) -> bool {
        s.sb.as_ref().is_some_and(|sb| sb.in_recovery())
    }

    fn on_timeout(&mut self, s: &mut TcpSender) {
        if let Some(sb) = s.sb.as_mut() {
            if self.prr_on && sb.recovery_point.is_some_and(|rp| s.snd_una < rp) {
                s.w.ssthresh = self.ssthresh;
            }
            // As ns-2 and RFC 2018's advice: forget SACK information after a
            // timeout (the receiver may have reneged); go back N.
            sb.clear();
            s.sack_recover = Some(s.snd_max);
        }
    }

    /// ACK processing with SACK: RFC 6675 loss detection and recovery. The
    /// congestion-control policy grows the window outside recovery and sets
    /// ssthresh on loss; the recovery itself (pipe, NextSeg) is the sender's.
    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool) {
        let ack = h.ack;
        let blocks = &*h.sack_blocks();
        let new_ack = ack > s.snd_una;
        let flight = s.flight();
        let was_in_recovery = s.sb.as_ref().unwrap().in_recovery();
        // PRR's inputs: SACKd and the lost segments before this ACK.
        let prr_now = self.prr_on && was_in_recovery;
        let sacked_before = if self.prr_on { s.sb.as_ref().unwrap().sacked_bytes() } else { 0 };
        let lost_before = if prr_now { Self::lost_now(s, ack) } else { 0 };
        s.note_sack_rtt(blocks);
        let newly_sacked = s.sb.as_mut().unwrap().update(ack.max(s.snd_una), blocks);
        let sacked_after = if self.prr_on { s.sb.as_ref().unwrap().sacked_bytes() } else { 0 };
        let mut acked = 0;
        // With PRR (Linux's order): this ACK's growth once loss detection
        // has run (tcp_fastretrans_alert() before tcp_cong_control()), none
        // if it starts a recovery, and on the ACK that ends one too; by
        // what it delivered (acked_sacked: newly acknowledged and not SACKed
        // before, plus newly SACKed), not by the cumulative jump.
        let mut grow = None;
        if new_ack {
            acked = s.advance_una(now, h);
            let sb = s.sb.as_mut().unwrap();
            let grows = match sb.recovery_point {
                Some(rp) if ack >= rp => {
                    sb.recovery_point = None;
                    s.w.cwnd = s.w.ssthresh.max(s.w.mss);
                    s.cc.on_cwr_complete(&mut s.w);
                    self.prr_on && !ece_cut
                }
                Some(_) => false, // partial ACK: pipe and NextSeg carry on
                None if ece_cut => false,
                None if self.prr_on => true,
                None => {
                    let info = s.ack_info(ack, acked, flight);
                    s.cc.on_new_ack(&mut s.w, &info);
                    false
                }
            };
            if grows {
                grow = Some(s.ack_info(ack, Self::delivered(acked, sacked_before, sacked_after), flight));
            }
            s.settle_after_new_ack(now);
        } else if ack == s.snd_una && s.snd_max > s.snd_una && (newly_sacked || h.nsack == 0) {
            s.stats.dupacks_received += 1;
            s.dupacks += 1;
            s.sack_rtt_on_dupack(now, h);
        }
        let sb = s.sb.as_ref().unwrap();
        if prr_now && sb.in_recovery() {
            let delivered = Self::delivered(acked, sacked_before, sacked_after);
            let newly_lost = Self::lost_now(s, ack) > lost_before;
            self.reduce(s, delivered, new_ack, newly_lost);
            return;
        }
        if sb.in_recovery() || s.snd_max == s.snd_una {
            Self::grow(s, grow);
            return;
        }
        let lost = s.dupacks >= s.w.dupthresh || sb.is_lost(s.snd_una, s.w.mss, s.w.dupthresh);
        let guard_ok = s.sack_recover.is_none_or(|r| s.snd_una >= r);
        if lost && guard_ok && (s.dupacks > 0 || newly_sacked) {
            // RFC 6675 4: RecoveryPoint = HighData, ssthresh = cwnd =
            // loss response of the policy, retransmit HighACK + 1 now.
            // With PRR the window comes down gradually from the one at
            // the loss instead (the retransmission is its first segment).
            let fl = s.flight() - s.limited_bytes;
            let prior = s.w.cwnd / s.w.mss;
            s.w.ssthresh = s.cc.ssthresh_on_loss(&s.w, fl);
            self.ssthresh = s.w.ssthresh;
            let sb = s.sb.as_mut().unwrap();
            sb.recovery_point = Some(s.snd_max);
            sb.high_rxt = s.snd_una;
            if self.prr_on {
                self.prr = Prr::start(prior);
                let delivered = Self::delivered(acked, sacked_before, sacked_after);
                self.reduce(s, delivered, new_ack, true);
                self.prr.sent();
            } else {
                s.w.cwnd = s.w.ssthresh;
            }
            s.sack_recover = Some(s.snd_max);
            s.recovery_started();
            s.pending_head_rtx = true;
            s.restart_timer(now);
            return;
        } else if s.cfg.limited_transmit && s.dupacks > 0 && s.dupacks < s.w.dupthresh {
            // RFC 6675 5 step (3): Limited Transmit by pipe, new data
            // while cwnd - pipe >= 1 SMSS; nothing is lost yet, so pipe is
            // what is outstanding less what is SACKed, and the window
            // reaches as far past cwnd as the SACKed segments (RFC 3042
            // counts duplicates instead: one segment each, whatever they
            // SACK; until 2026-12-06 this counted them too).
            let sacked = s.sb.as_ref().map_or(0, |sb| sb.sacked_bytes());
            s.limited_extra = sacked / s.w.mss;
        }
        Self::grow(s, grow);
    }

    /// RFC 6675 step (C): while cwnd - pipe >= 1 MSS, send what NextSeg()
    /// chooses: a lost segment, new data, or an unSACKed one below the
    /// highest SACK.
    fn polls(&self) -> bool {
        true
    }

    fn poll(&mut self, s: &mut TcpSender, now: Time) -> Option<Option<Segment>> {
        let seg = Self::next_segment(s, now);
        if seg.is_some() && self.prr_on {
            self.prr.sent();
        }
        Some(seg)
    }
}

impl SackRecovery {
    /// RFC 6937's DeliveredData (Linux's acked_sacked) of an ACK: the
    /// change in snd.una plus the change in SACKed bytes.
    fn delivered(acked: u64, sacked_before: u64, sacked_after: u64) -> u64 {
        (acked + sacked_after).saturating_sub(sacked_before)
    }

    /// The growth deferred past loss detection (`on_ack`, PRR only).
    fn grow(s: &mut TcpSender, info: Option<super::cc::AckInfo>) {
        if let Some(info) = info {
            s.cc.on_new_ack(&mut s.w, &info);
        }
    }

    fn next_segment(s: &mut TcpSender, now: Time) -> Option<Segment> {
        let mss = s.w.mss;
        let sb = s.sb.as_ref().unwrap();
        let pipe = sb.pipe(s.snd_una, s.snd_max, mss, s.w.dupthresh);
        if s.w.cwnd < pipe + mss {
            return None;
        }
        let limit = s.app_limit();
        let new_len = limit.saturating_sub(s.snd_max).min(mss);
        let new_ok = new_len > 0 && s.snd_max + new_len <= s.snd_una + s.rwnd && s.snd_nxt == s.snd_max;
        match sb.next_seg(s.snd_una, s.snd_max, mss, s.w.dupthresh, new_ok) {
            Next::Retransmit { seq, len } => {
                let sb = s.sb.as_mut().unwrap();
                sb.high_rxt = sb.high_rxt.max(seq + len);
                Some(s.emit(now, seq, len as u32))
            }
            Next::NewData => Some(s.emit_new(now, new_len as u32)),
            Next::Nothing => None,
        }
    }
}
