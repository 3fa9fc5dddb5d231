//! Fast recovery without SACK as Linux runs it (`[tcp] prr = true`, the
//! linux profile, NewReno senders): `tcp_input.c`'s "Reno" path.
//!
//! * Each duplicate ACK counts as one SACKed segment (`tcp_add_reno_sack`),
//!   at most all outstanding segments but the holes
//!   (`tcp_limit_reno_sacked`); a cumulative ACK of n segments takes n - 1
//!   of them back and reports max(n - sacked, 1) delivered
//!   (`tcp_remove_reno_sacks`).
//! * At `dupthresh` emulated SACKs the first unacknowledged segment is
//!   marked lost and recovery starts (`tcp_newreno_mark_lost`,
//!   `tcp_enter_recovery`): ssthresh from the congestion control,
//!   high_seq = the highest segment sent. Every partial ACK marks the new
//!   first segment lost.
//! * What is in flight is Linux's `tcp_packets_in_flight()`: outstanding
//!   segments minus the emulated SACKs and the lost mark, plus the
//!   retransmission of the lost one. The window is PRR's (`prr.rs`), and
//!   the sender sends while the flight is below it: first the lost
//!   segment, then new data (`tcp_xmit_retransmit_queue`, `tcp_write_xmit`).
//!   No window inflation, no deflation.
//! * Recovery ends on an ACK above high_seq (an ACK of exactly high_seq
//!   holds it, RFC 6582's rule against false fast retransmits, kept by
//!   `tcp_try_undo_recovery`), with cwnd = ssthresh
//!   (`tcp_end_cwnd_reduction`), the growth of that ACK on top.
//! * After a timeout no recovery starts before an ACK above the data
//!   outstanding then (Linux's Loss state, held at exactly that point as
//!   recovery is); a timeout in recovery keeps the recovery's ssthresh
//!   (`tcp_enter_loss` cuts once per window).
//!
//! Not modelled: undo (DSACK, timestamps: Linux's undo of a spurious
//! recovery), F-RTO, and the growth during Disorder (Linux raises cwnd
//! only on ACKs of data; here the congestion control grows it on every new
//! ACK, as the other policies do).

use super::prr::Prr;
use super::recovery::LossRecovery;
use super::sender::{Segment, TcpSender};
use crate::engine::Time;
use crate::packet::TcpHeader;

#[derive(Debug, Default)]
pub struct LinuxRenoRecovery {
    /// Duplicate ACKs counted as SACKed segments (Linux's sacked_out).
    sacked: u64,
    /// The first unacknowledged segment is marked lost (lost_out = 1).
    head_lost: bool,
    /// ... and was retransmitted since (retrans_out = 1).
    head_retransmitted: bool,
    /// In recovery until an ACK above this (Linux's high_seq).
    high_seq: Option<u64>,
    /// After a timeout: no recovery before this is acknowledged.
    loss_until: Option<u64>,
    /// In the CWR state of an ECN echo until an ACK above this (its
    /// high_seq): PRR brings the window down, recovery keeps that
    /// reduction if it starts meanwhile.
    cwr: Option<u64>,
    /// The ssthresh this recovery set.
    ssthresh: u64,
    prr: Prr,
}

impl LinuxRenoRecovery {
    fn segs(bytes: u64, mss: u64) -> u64 {
        bytes.div_ceil(mss)
    }

    /// Outstanding segments (packets_out).
    fn packets_out(s: &TcpSender) -> u64 {
        Self::segs(s.snd_max - s.snd_una, s.w.mss)
    }

    /// Linux's tcp_packets_in_flight(): packets_out - (sacked_out +
    /// lost_out) + retrans_out.
    fn in_flight(&self, s: &TcpSender) -> u64 {
        (Self::packets_out(s) + self.head_retransmitted as u64).saturating_sub(self.sacked + self.head_lost as u64)
    }

    /// tcp_add_reno_sack() with tcp_limit_reno_sacked(): returns the
    /// segments newly counted delivered.
    fn add_sack(&mut self, s: &TcpSender) -> u64 {
        let out = Self::packets_out(s);
        let holes = (self.head_lost as u64).max(1).min(out);
        let before = self.sacked;
        self.sacked = (self.sacked + 1).min(out - holes);
        self.sacked.saturating_sub(before)
    }

    /// The window for this ACK by PRR, while in recovery.
    fn reduce(&mut self, s: &mut TcpSender, delivered: u64, una_advanced: bool, newly_lost: bool) {
        let mss = s.w.mss;
        let flight = self.in_flight(s);
        if let Some(w) = self.prr.window(delivered, flight, s.w.ssthresh / mss, una_advanced, newly_lost) {
            s.w.cwnd = w.max(1) * mss;
            s.w.ca_frac = 0.0;
        }
    }

    /// `tcp_init_cwnd_reduction()`: ssthresh from the congestion control,
    /// PRR from the window now; returns high_seq.
    fn init_reduction(&mut self, s: &mut TcpSender) -> u64 {
        let flight = s.flight() - s.limited_bytes;
        s.w.ssthresh = s.cc.ssthresh_on_loss(&s.w, flight);
        self.ssthresh = s.w.ssthresh;
        self.prr = Prr::start(s.w.cwnd / s.w.mss);
        s.snd_max
    }

    fn enter(&mut self, s: &mut TcpSender, now: Time) {
        // From CWR the reduction under way goes on (tcp_enter_recovery()).
        let high = match self.cwr.take() {
            Some(h) => h,
            None => self.init_reduction(s),
        };
        self.high_seq = Some(high);
        self.head_lost = true;
        self.head_retransmitted = false;
        s.recovery_started();
        s.restart_timer(now);
    }
}

impl LossRecovery for LinuxRenoRecovery {
    fn name(&self) -> &'static str {
        "linux-reno"
    }

    /// In recovery or CWR: this policy chooses what goes out (PRR counts
    /// it), and no new ECN cut is made.
    fn in_recovery(&self, _s: &TcpSender) -> bool {
        self.high_seq.is_some() || self.cwr.is_some()
    }

    /// `tcp_enter_cwr()` outside recovery and the Loss state.
    fn on_ecn_cut(&mut self, s: &mut TcpSender) -> bool {
        if self.high_seq.is_some() || self.loss_until.is_some() {
            return false;
        }
        if self.cwr.is_none() {
            self.cwr = Some(self.init_reduction(s));
        }
        true
    }

    fn on_timeout(&mut self, s: &mut TcpSender) {
        // The congestion control has just cut ssthresh again; Linux cuts
        // once per window: a timeout inside recovery keeps its ssthresh.
        if self.high_seq.or(self.cwr).is_some_and(|h| s.snd_una < h) {
            s.w.ssthresh = self.ssthresh;
        }
        self.cwr = None;
        self.sacked = 0;
        self.head_lost = false;
        self.head_retransmitted = false;
        self.high_seq = None;
        self.loss_until = Some(s.snd_max);
    }

    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool) {
        let ack = h.ack;
        let mss = s.w.mss;
        if ack > s.snd_una {
            let flight = s.flight();
            let acked_bytes = s.advance_una(now, h);
            let acked = Self::segs(acked_bytes, mss);
            // tcp_clean_rtx_queue(): the head is acknowledged, with its marks.
            self.head_lost = false;
            self.head_retransmitted = false;
            // tcp_remove_reno_sacks().
            let delivered = acked.saturating_sub(self.sacked).max(1);
            self.sacked = self.sacked.saturating_sub(acked - 1);
            // Linux leaves its Loss state on an ACK above high_seq only:
            // duplicates of the go-back-N retransmissions arrive as
            // duplicate ACKs of exactly high_seq (RFC 6582's careful rule,
            // which tcp_try_undo_recovery() keeps for Reno).
            if self.loss_until.is_some_and(|l| ack > l) {
                self.loss_until = None;
            }
            match self.high_seq {
                Some(hs) if ack > hs => {
                    // Recovery ends: cwnd = ssthresh, then this ACK's growth.
                    self.high_seq = None;
                    self.sacked = 0;
                    s.w.cwnd = s.w.ssthresh.max(mss);
                    s.w.ca_frac = 0.0;
                    if !ece_cut {
                        let info = s.ack_info(ack, delivered * mss, flight);
                        s.cc.on_new_ack(&mut s.w, &info);
                    }
                }
                Some(hs) => {
                    let newly_lost = if ack < hs {
                        // A partial ACK: the new first segment is lost.
                        self.head_lost = true;
                        true
                    } else {
                        // Exactly high_seq: recovery is held, the emulated
                        // SACKs are forgotten.
                        self.sacked = 0;
                        false
                    };
                    self.reduce(s, delivered, true, newly_lost);
                }
                None => {
                    self.sacked = 0;
                    match self.cwr {
                        // CWR holds until an ACK above its high_seq.
                        Some(hs) if ack <= hs => self.reduce(s, delivered, true, false),
                        _ => {
                            if self.cwr.take().is_some() {
                                s.w.cwnd = s.w.ssthresh.max(mss);
                                s.w.ca_frac = 0.0;
                            }
                            if !ece_cut {
                                let info = s.ack_info(ack, delivered * mss, flight);
                                s.cc.on_new_ack(&mut s.w, &info);
                            }
                        }
                    }
                }
            }
            s.settle_after_new_ack(now);
        } else if ack == s.snd_una && s.snd_max > s.snd_una {
            s.stats.dupacks_received += 1;
            s.dupacks += 1;
            if self.loss_until.is_some() {
                return;
            }
            let delivered = self.add_sack(s);
            if self.high_seq.is_some() {
                self.reduce(s, delivered, false, false);
            } else if self.sacked >= s.w.dupthresh as u64 {
                self.enter(s, now);
                self.reduce(s, delivered, false, true);
            } else if self.cwr.is_some() {
                self.reduce(s, delivered, false, false);
            } else if s.cfg.limited_transmit {
                // Linux's Disorder state: each emulated SACK takes a segment
                // out of the flight, so a new one may go (RFC 3042).
                s.limited_extra = self.sacked;
            }
        }
    }

    fn polls(&self) -> bool {
        true
    }

    /// In recovery: the lost segment first, then new data, while the flight
    /// is below the window.
    fn poll(&mut self, s: &mut TcpSender, now: Time) -> Option<Option<Segment>> {
        let mss = s.w.mss;
        if self.in_flight(s) * mss >= s.w.cwnd {
            return Some(None);
        }
        if self.head_lost && !self.head_retransmitted {
            let len = (s.snd_max - s.snd_una).min(mss);
            if len > 0 {
                self.head_retransmitted = true;
                self.prr.sent();
                return Some(Some(s.emit(now, s.snd_una, len as u32)));
            }
        }
        let limit = s.app_limit();
        let len = limit.saturating_sub(s.snd_max).min(mss);
        if len == 0 || s.snd_max + len > s.snd_una + s.rwnd || s.snd_nxt != s.snd_max {
            return Some(None);
        }
        self.prr.sent();
        Some(Some(s.emit(now, s.snd_max, len as u32)))
    }
}
