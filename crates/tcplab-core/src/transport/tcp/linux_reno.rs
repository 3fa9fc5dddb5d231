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
//! * The undo of a spurious reduction (`undo`, with timestamps: the Eifel
//!   check of `tcp_packet_delayed()`): a recovery whose end, or whose
//!   partial ACK, echoes a timestamp older than its retransmission gives
//!   the window back (`tcp_try_undo_recovery()`, `tcp_try_undo_partial()`),
//!   and so does the first advancing ACK after a timeout
//!   (`tcp_try_undo_loss()`; for Reno the Loss state then stays until
//!   high_seq is passed, the go-back stops).
//! * F-RTO (`frto`, RFC 5682 as `tcp_process_loss()` runs it without
//!   SACK): the first ACK after a timeout that advances sends new data
//!   instead of going on back (step 2b); an ACK of data sent once below
//!   high_seq then shows the timeout spurious and the window comes back
//!   (3b); a duplicate ACK says the loss was real (3a) and the go-back
//!   resumes, each further duplicate an emulated SACK.
//! * A repeated timeout in the Loss state before snd_una moved keeps the
//!   ssthresh of the first (`tcp_enter_loss()` cuts once per window).
//!
//! Not modelled: the growth during Disorder (Linux raises cwnd only on
//! ACKs of data; here the congestion control grows it on every new ACK, as
//! the other policies do), and the reordering the undo infers (Linux's
//! tp->reordering, the duplicate ACK threshold, grows).

use super::prr::Prr;
use super::recovery::LossRecovery;
use super::sender::{Segment, TcpSender};
use super::undo::Undo;
use crate::engine::Time;
use crate::packet::{flags, TcpHeader};

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
    /// The ssthresh this recovery (or timeout) set.
    ssthresh: u64,
    prr: Prr,
    /// The undo's episode (`TcpConfig::undo`).
    u: Undo,
    /// F-RTO under way after a timeout (tp->frto), and, for the ACK being
    /// answered, its step 2b: new data before the go-back (REXMIT_NEW).
    frto: bool,
    frto_new: bool,
    /// In the Loss state: the top of the data the timeout marked lost
    /// (the go-back's range, snd_max then); data above it (F-RTO's) is
    /// not resent.
    lost_top: Option<u64>,
    /// Segments ever marked lost (tp->lost).
    lost_total: u64,
}

impl LinuxRenoRecovery {
    fn segs(bytes: u64, mss: u64) -> u64 {
        bytes.div_ceil(mss)
    }

    /// Outstanding segments (packets_out).
    fn packets_out(s: &TcpSender) -> u64 {
        Self::segs(s.snd_max - s.snd_una, s.w.mss)
    }

    /// Open (or Disorder): no recovery, CWR or Loss state.
    fn is_open(&self) -> bool {
        self.high_seq.is_none() && self.cwr.is_none() && self.loss_until.is_none()
    }

    /// Segments marked lost (lost_out): the head in recovery; in the Loss
    /// state every segment below the timeout's snd_max, resent or not.
    fn lost_out(&self, s: &TcpSender) -> u64 {
        match self.lost_top {
            Some(top) => Self::segs(top.saturating_sub(s.snd_una), s.w.mss),
            None => self.head_lost as u64,
        }
    }

    /// Linux's tcp_packets_in_flight(): packets_out - (sacked_out +
    /// lost_out) + retrans_out, in recovery (the Loss state's is
    /// `poll_loss`'s).
    fn in_flight(&self, s: &TcpSender) -> u64 {
        (Self::packets_out(s) + self.head_retransmitted as u64).saturating_sub(self.sacked + self.head_lost as u64)
    }

    /// tcp_add_reno_sack() with tcp_limit_reno_sacked(): returns the
    /// segments newly counted delivered.
    fn add_sack(&mut self, s: &TcpSender) -> u64 {
        let out = Self::packets_out(s);
        let holes = self.lost_out(s).max(1).min(out);
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
        self.u.prior_cwnd = s.w.cwnd;
        s.w.ssthresh = s.cc.ssthresh_on_loss(&s.w, flight);
        self.ssthresh = s.w.ssthresh;
        self.prr = Prr::start(s.w.cwnd / s.w.mss);
        s.snd_max
    }

    /// `tcp_enter_recovery()`: the undo's episode starts here (the window
    /// to give back is the one before the cut, unless an ECN echo calls
    /// for the cut anyway).
    fn enter(&mut self, s: &mut TcpSender, now: Time, ece: bool) {
        self.u.marker = Some(s.snd_una);
        self.u.prior_ssthresh = None;
        self.u.stamp_cleanup(self.any_retrans_done(s));
        // From CWR the reduction under way goes on (tcp_enter_recovery()).
        let high = match self.cwr.take() {
            Some(h) => h,
            None => {
                if !ece {
                    self.u.note_prior(s, false, s.w.cwnd, s.w.ssthresh);
                }
                self.init_reduction(s)
            }
        };
        self.high_seq = Some(high);
        self.lost_total += !self.head_lost as u64;
        self.head_lost = true;
        self.head_retransmitted = false;
        s.recovery_started();
        s.restart_timer(now);
    }

    /// `tcp_any_retrans_done()`: a retransmission out, or the first
    /// segment was ever resent.
    fn any_retrans_done(&self, s: &TcpSender) -> bool {
        self.head_retransmitted
            || self.lost_top.is_some_and(|t| s.snd_nxt.min(t) > s.snd_una)
            || s.sent.front().is_some_and(|g| g.transmits > 1)
    }

    /// `tcp_may_undo()` without D-SACK: the timestamps show an original
    /// answered.
    fn may_undo(&self, s: &TcpSender, h: &TcpHeader) -> bool {
        self.u.can(s) && self.u.packet_delayed(s, h)
    }

    /// `tcp_undo_cwnd_reduction()` with its lost marks cleared: the head
    /// is not lost any more, a go-back stops.
    fn undo(&mut self, s: &mut TcpSender) {
        self.u.restore(s);
        self.head_lost = false;
        if self.lost_top.take().is_some() {
            s.snd_nxt = s.snd_max;
        }
    }

    /// `tcp_try_undo_loss()`, when it undoes: F-RTO's undo (or any, once
    /// past high_seq) opens the state, except while the ACK is exactly
    /// high_seq (`tcp_is_non_sack_preventing_reopen()`).
    fn undo_loss(&mut self, s: &mut TcpSender, frto: bool, high: u64) {
        self.undo(s);
        s.consecutive_timeouts = 0;
        if frto {
            s.undo_counts.1 += 1;
        }
        if s.snd_una == high {
            self.u.stamp_cleanup(self.any_retrans_done(s));
        } else if frto {
            self.leave_loss();
        }
    }

    fn leave_loss(&mut self) {
        self.loss_until = None;
        self.lost_top = None;
        self.sacked = 0;
    }

    /// `tcp_process_loss()` without SACK: an ACK in the Loss state.
    fn process_loss(&mut self, s: &mut TcpSender, h: &TcpHeader, una_advanced: bool, dupack: bool, orig: bool) {
        let Some(high) = self.loss_until else { return };
        let recovered = s.snd_una >= high;
        if una_advanced && self.may_undo(s, h) {
            return self.undo_loss(s, false, high);
        }
        if self.frto {
            // Step 3b: data sent once below high_seq arrived.
            if orig {
                return self.undo_loss(s, true, high);
            }
            if s.snd_max > high {
                if dupack {
                    self.frto = false; // 3a: the loss was real
                }
            } else if una_advanced && !recovered {
                // Step 2b: new data first, if there is any to send.
                self.loss_until = Some(s.snd_max);
                if s.app_limit() > s.snd_max && s.snd_una + s.rwnd > s.snd_max {
                    self.frto_new = true;
                    return;
                }
                self.frto = false;
            }
        }
        let high = self.loss_until.unwrap_or(high);
        if recovered {
            // tcp_try_undo_recovery(), held at exactly high_seq.
            if self.may_undo(s, h) {
                self.undo(s);
            }
            if s.snd_una == high {
                self.u.stamp_cleanup(self.any_retrans_done(s));
            } else {
                self.leave_loss();
            }
            return;
        }
        // A duplicate ACK of F-RTO's new data is an emulated SACK.
        if s.snd_max > high && dupack {
            self.add_sack(s);
        } else if una_advanced {
            self.sacked = 0;
        }
    }

    /// `tcp_try_undo_partial()`: a partial ACK whose echo shows that a
    /// delayed original filled the hole (its one retransmission was
    /// acknowledged with it): the window comes back and the Open state
    /// returns. True if it undid.
    fn try_undo_partial(&mut self, s: &mut TcpSender, h: &TcpHeader) -> bool {
        if !self.may_undo(s, h) {
            return false;
        }
        self.u.stamp_cleanup(self.any_retrans_done(s));
        self.undo(s);
        self.high_seq = None;
        true
    }

    /// In the Loss state with F-RTO's new data to send or sent: step 2b's
    /// new data, then the go-back over the lost range only, then new data.
    /// A segment goes while the flight (Linux's, in bytes) and it fit the
    /// window, as the sender's own rule has it for the go-back.
    /// In the Loss state, the bytes in flight: those resent since the
    /// timeout (below the go-back pointer) and those sent above the data
    /// the timeout marked lost, less the duplicates' deliveries.
    fn loss_flight(&self, s: &TcpSender) -> u64 {
        let top = self.lost_top.unwrap_or(s.snd_max);
        let flight = s.snd_nxt.min(top).saturating_sub(s.snd_una) + s.snd_max.saturating_sub(top.max(s.snd_una));
        flight.saturating_sub(self.sacked * s.w.mss)
    }

    fn poll_loss(&mut self, s: &mut TcpSender, now: Time) -> Option<Segment> {
        let mss = s.w.mss;
        let top = self.lost_top.unwrap_or(s.snd_max);
        let flight = self.loss_flight(s);
        let fits = |len: u64| flight + len <= s.window();
        let new_len = s.app_limit().saturating_sub(s.snd_max).min(mss);
        let new_fits = new_len > 0 && fits(new_len) && s.snd_max + new_len <= s.snd_una + s.rwnd;
        if self.frto_new {
            if new_fits {
                return Some(s.emit_new(now, new_len as u32));
            }
            self.frto_new = false;
            if self.loss_until.is_some_and(|h| s.snd_max > h) {
                return None;
            }
            self.frto = false;
        }
        if s.snd_nxt < top {
            let len = (top - s.snd_nxt).min(mss);
            return fits(len).then(|| s.emit(now, s.snd_nxt, len as u32));
        }
        s.snd_nxt = s.snd_max;
        new_fits.then(|| s.emit_new(now, new_len as u32))
    }
}

impl LossRecovery for LinuxRenoRecovery {
    fn ca_state(&self, _s: &TcpSender) -> super::bbr::CaState {
        use super::bbr::CaState;
        if self.loss_until.is_some() {
            CaState::Loss
        } else if self.high_seq.is_some() {
            CaState::Recovery
        } else if self.cwr.is_some() {
            CaState::Cwr
        } else {
            CaState::Open
        }
    }

    fn packets_in_flight(&self, s: &TcpSender) -> u64 {
        if self.loss_until.is_some() {
            return Self::segs(self.loss_flight(s), s.w.mss);
        }
        self.in_flight(s)
    }

    fn lost_total(&self, _s: &TcpSender) -> u64 {
        self.lost_total
    }

    fn name(&self) -> &'static str {
        "linux-reno"
    }

    /// In recovery or CWR: this policy chooses what goes out (PRR counts
    /// it), and no new ECN cut is made.
    fn in_recovery(&self, _s: &TcpSender) -> bool {
        self.high_seq.is_some() || self.cwr.is_some()
    }

    /// Also in the Loss state once F-RTO has new data to send or sent it:
    /// the go-back then stops at the lost range.
    fn chooses(&self, s: &TcpSender) -> bool {
        self.in_recovery(s) || self.frto_new || self.lost_top.is_some_and(|t| s.snd_max > t)
    }

    /// `tcp_enter_cwr()` outside recovery and the Loss state.
    fn on_ecn_cut(&mut self, s: &mut TcpSender) -> bool {
        if self.high_seq.is_some() || self.loss_until.is_some() {
            return false;
        }
        // Congestion is proven: nothing to undo.
        self.u.prior_ssthresh = None;
        if self.cwr.is_none() {
            self.u.marker = None;
            self.cwr = Some(self.init_reduction(s));
        }
        true
    }

    /// `tcp_enter_loss()`: the congestion control has just cut ssthresh
    /// again; Linux cuts once per window: a timeout inside recovery, or a
    /// repeated one in the Loss state before snd_una moved, keeps the
    /// ssthresh set before. A new episode notes the window to give back;
    /// F-RTO runs for it or for a repeated timeout. Everything outstanding
    /// is marked lost (the sender goes back N).
    fn on_timeout(&mut self, s: &mut TcpSender) {
        let reducing = self.high_seq.is_some() || self.cwr.is_some();
        let new_episode = self.high_seq.is_none() && self.loss_until.is_none();
        if self.keeps_cut_on_timeout(s) {
            s.w.ssthresh = self.ssthresh;
        } else {
            self.ssthresh = s.w.ssthresh;
            let (cwnd, ssthresh) = s.pre_cut;
            self.u.note_prior(s, reducing, cwnd, ssthresh);
            self.u.marker = Some(s.snd_una);
        }
        self.frto = s.cfg.frto && (new_episode || s.consecutive_timeouts > 1);
        self.frto_new = false;
        // tcp_retransmit_timer() resends the first segment at once.
        self.u.note_retransmit(s.now);
        // tcp_timeout_mark_lost(): everything outstanding not yet marked.
        self.lost_total += Self::packets_out(s).saturating_sub(self.lost_out(s));
        self.cwr = None;
        self.sacked = 0;
        self.head_lost = false;
        self.head_retransmitted = false;
        self.high_seq = None;
        self.loss_until = Some(s.snd_max);
        self.lost_top = Some(s.snd_max);
    }

    /// A timeout inside recovery or CWR, or repeated in the Loss state
    /// before snd_una moved.
    fn keeps_cut_on_timeout(&self, s: &TcpSender) -> bool {
        let unfinished = |h: Option<u64>| h.is_some_and(|h| s.snd_una < h);
        unfinished(self.high_seq.or(self.cwr)) || (unfinished(self.loss_until) && s.consecutive_timeouts > 1)
    }

    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool) {
        let ack = h.ack;
        let mss = s.w.mss;
        self.frto_new = false;
        let ece = s.cfg.ecn && h.flags & flags::ECE != 0;
        if ece {
            // An echo proves congestion: a later undo keeps the window.
            self.u.prior_ssthresh = None;
        }
        // tcp_ack_is_dubious(): a duplicate, an echo, any state but Open.
        let mut dubious = ece || !self.is_open();
        if ack > s.snd_una {
            let flight = s.flight();
            // FLAG_ORIG_SACK_ACKED: data sent once, below high_seq.
            let orig = self.loss_until.zip(s.acked_orig_end).is_some_and(|(high, end)| end <= high);
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
            self.process_loss(s, h, true, false, orig);
            let mut grow = !ece_cut;
            match self.high_seq {
                Some(hs) if ack >= hs => {
                    // tcp_try_undo_recovery(); Reno holds the state while
                    // the ACK is exactly high_seq, the emulated SACKs
                    // forgotten; else the recovery ends with cwnd =
                    // ssthresh (unless undone), then this ACK's growth.
                    if self.may_undo(s, h) {
                        self.undo(s);
                    }
                    self.sacked = 0;
                    if ack == hs {
                        self.u.stamp_cleanup(self.any_retrans_done(s));
                        self.reduce(s, delivered, true, false);
                        grow = false;
                    } else {
                        self.high_seq = None;
                        if self.u.marker.is_some() {
                            s.w.cwnd = s.w.ssthresh.max(mss);
                            s.w.ca_frac = 0.0;
                        }
                        s.cc.on_cwr_complete(&mut s.w);
                    }
                }
                Some(_) => {
                    if self.try_undo_partial(s, h) {
                        // Open again; the emulated SACKs left may call a
                        // new recovery at once (tcp_time_to_recover()).
                        if self.sacked >= s.w.dupthresh as u64 {
                            self.enter(s, now, ece);
                            self.reduce(s, delivered, true, true);
                            grow = false;
                        }
                    } else {
                        // A partial ACK: the new first segment is lost.
                        self.lost_total += 1;
                        self.head_lost = true;
                        self.reduce(s, delivered, true, true);
                        grow = false;
                    }
                }
                None => {
                    if self.loss_until.is_none() {
                        self.sacked = 0;
                    }
                    match self.cwr {
                        // CWR holds until an ACK above its high_seq.
                        Some(hs) if ack <= hs => {
                            self.reduce(s, delivered, true, false);
                            grow = false;
                        }
                        Some(_) => {
                            self.cwr = None;
                            s.w.cwnd = s.w.ssthresh.max(mss);
                            s.w.ca_frac = 0.0;
                            s.cc.on_cwr_complete(&mut s.w);
                        }
                        None => {}
                    }
                }
            }
            if grow {
                let info = s.ack_info(ack, delivered * mss, flight);
                s.cc.on_new_ack(&mut s.w, &info);
            }
            s.settle_after_new_ack(now);
        } else if ack == s.snd_una && s.snd_max > s.snd_una {
            dubious = true;
            s.stats.dupacks_received += 1;
            s.dupacks += 1;
            if self.loss_until.is_some() {
                self.process_loss(s, h, false, true, false);
            } else {
                let delivered = self.add_sack(s);
                if self.high_seq.is_some() {
                    self.reduce(s, delivered, false, false);
                } else if self.sacked >= s.w.dupthresh as u64 {
                    self.enter(s, now, ece);
                    self.reduce(s, delivered, false, true);
                } else if self.cwr.is_some() {
                    self.reduce(s, delivered, false, false);
                } else if s.cfg.limited_transmit {
                    // Linux's Disorder state: each emulated SACK takes a
                    // segment out of the flight, so a new one may go (RFC
                    // 3042).
                    s.limited_extra = self.sacked;
                }
            }
        }
        if dubious && self.is_open() {
            // tcp_fastretrans_alert()'s clear in the Open state.
            self.u.stamp_cleanup(self.any_retrans_done(s));
        }
    }

    fn polls(&self) -> bool {
        true
    }

    /// In recovery: the lost segment first, then new data, while the flight
    /// is below the window. In the Loss state with F-RTO: `poll_loss`.
    fn poll(&mut self, s: &mut TcpSender, now: Time) -> Option<Option<Segment>> {
        if self.loss_until.is_some() {
            return Some(self.poll_loss(s, now));
        }
        let mss = s.w.mss;
        if self.in_flight(s) * mss >= s.w.cwnd {
            return Some(None);
        }
        if self.head_lost && !self.head_retransmitted {
            let len = (s.snd_max - s.snd_una).min(mss);
            if len > 0 {
                self.head_retransmitted = true;
                self.u.note_retransmit(now);
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
        Some(Some(s.emit_new(now, len as u32)))
    }
}
