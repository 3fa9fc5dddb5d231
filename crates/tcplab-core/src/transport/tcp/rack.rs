//! SACK loss recovery as Linux 6.x runs it: RACK's time-based loss
//! detection (RFC 8985, `net/ipv4/tcp_recovery.c`, with
//! net.ipv4.tcp_recovery at 1) inside `tcp_fastretrans_alert()`'s state
//! machine, with PRR's window (`prr.rs`). `TcpConfig::rack` with SACK and
//! `prr`: the linux profile.
//!
//! * Every segment keeps Linux's scoreboard bits (`SentSeg`: SACKed, lost,
//!   a retransmission in flight). What is in flight is
//!   `tcp_packets_in_flight()`: outstanding segments minus the SACKed and
//!   the lost, plus the retransmissions in flight.
//! * RACK remembers the most recently sent segment among those delivered
//!   (SACKed, or cumulatively acknowledged without having been SACKed) and
//!   that delivery's round trip (`tcp_rack_advance()`); a retransmitted
//!   segment delivered sooner than min_rtt after its retransmission is
//!   skipped (the original may have arrived), and so is one the timestamp
//!   echo shows was acknowledged before it was retransmitted.
//! * On an ACK that is not a plain cumulative one in the Open state
//!   (`tcp_ack_is_dubious()`: a duplicate, new SACK blocks, ECE, or any
//!   other state) and after a delivery, every segment sent before that one
//!   and not delivered is lost once RACK.rtt + the reordering window has
//!   passed since it was sent, retransmissions included; the rest arm the
//!   reordering timer (`tcp_rack_detect_loss()`). The window is
//!   min(min_rtt / 4, srtt) in the Open state while fewer than `dupthresh`
//!   segments are SACKed, 0 otherwise (`tcp_rack_reo_wnd()`, no reordering
//!   seen).
//! * Recovery starts on the first lost mark (`tcp_time_to_recover()`:
//!   "the loss is proven"), also when the reordering timer marks it
//!   (`tcp_rack_reo_timeout()`); the sender retransmits the lost segments
//!   in sequence order and then sends new data while the flight is below
//!   PRR's window (`tcp_xmit_retransmit_queue()`, `tcp_write_xmit()`).
//!   Recovery ends when snd_una reaches high_seq, with cwnd = ssthresh.
//! * A timeout keeps the scoreboard and marks lost the first segment and
//!   every other not delivered that was sent at least RACK.rtt ago
//!   (`tcp_timeout_mark_lost()`); cwnd = what is then in flight + 1
//!   (`tcp_enter_loss()`), Loss state until snd_una reaches high_seq, with
//!   the same retransmission order and the window growing by slow start.
//!   A retransmission found lost in Loss starts a recovery.
//! * The reordering timer shares the retransmission timer's slot, as the
//!   kernel's ICSK_TIME_REO_TIMEOUT does: armed at the longest wait plus
//!   two ticks (TCP_TIMEOUT_MIN), it replaces the RTO, and when it fires the
//!   RTO is re-armed from the first segment's last transmission.
//!
//! * The tail-loss probe (`TcpConfig::tlp`, net.ipv4.tcp_early_retrans =
//!   3): in the Open state with nothing SACKed, lost or retransmitted, the
//!   timer slot holds a probe timer of 2 SRTT + 2 ms (2 SRTT + the minimum
//!   RTO with one segment out), never later than the RTO; its expiry sends
//!   one segment past cwnd (new data, else the last segment again), and a
//!   resent last segment that an ACK shows repaired a loss cuts the window
//!   once (`tcp_schedule_loss_probe()`, `tcp_send_loss_probe()`,
//!   `tcp_process_tlp_ack()`).
//!
//! * The undo of a spurious reduction (`TcpConfig::undo`) and F-RTO
//!   (`frto`): a recovery or a timeout notes what it cut, the episode's
//!   first retransmission its timestamp; an ACK echoing an older one
//!   answers an original, and the Loss state, the end of a recovery or a
//!   partial ACK gives the window back (`tcp_try_undo_loss()`,
//!   `tcp_try_undo_recovery()`, `tcp_try_undo_partial()`). F-RTO sends new
//!   data on the first advancing ACK after a timeout and undoes when
//!   never-retransmitted data is then acknowledged (`tcp_process_loss()`).
//!   D-SACKs (`dsack`) are evidence too: when they have reported every
//!   retransmission of the episode the reduction is undone, also after
//!   the recovery ended (`tcp_try_undo_dsack()`).
//!
//! Not modelled (docs/models.md): reordering detection (RACK's window
//! stays min_rtt / 4; only the pattern error model's delays reorder), SACK
//! reneging, and min_rtt's 300 s window (a running minimum here).

use super::prr::Prr;
use super::recovery::LossRecovery;
use super::sender::{Segment, SentSeg, TcpSender};
use super::undo::Undo;
use crate::engine::Time;
use crate::packet::{SackBlock, TcpHeader};

/// RACK's variables (RFC 8985 6.1; Linux's `tp->rack` and min_rtt).
#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// Send time and end of the most recently sent delivered segment
    /// (RACK.xmit_ts, RACK.end_seq).
    xmit: Time,
    end: u64,
    /// The round trip of the last delivery taken (RACK.rtt).
    rtt: Time,
    /// A delivery since the last loss detection (`rack.advanced`).
    advanced: bool,
    /// This ACK's round trip was taken from a cumulatively acknowledged
    /// segment (Linux takes the SACKed ones first, so those give way).
    rtt_from_ack: bool,
    /// The smallest round trip seen (Linux's windowed tcp_min_rtt()).
    min_rtt: Option<Time>,
    /// The tail-loss probe is on (`TcpConfig::tlp`).
    tlp: bool,
    /// Not in the Open state (Recovery or Loss): no probe is scheduled.
    recovering: bool,
    /// The probe timer's deadline while it holds the timer slot.
    tlp_at: Option<Time>,
    /// A probe is due: the next send is it.
    probe: bool,
    /// snd_max after the outstanding probe (tlp_high_seq), and whether
    /// it was a retransmission (tlp_retrans).
    tlp_high: Option<u64>,
    tlp_retrans: bool,
    /// Probes sent, and losses they repaired (Linux's TCPLossProbes and
    /// TCPLossProbeRecovery).
    probes: u64,
    probe_recoveries: u64,
    /// Segments with each mark (sacked_out, lost_out, retrans_out), kept
    /// as the marks change so that the flight is not a walk of the log.
    sacked_out: u64,
    lost_out: u64,
    /// Segments ever marked lost (tp->lost).
    pub(super) lost_total: u64,
    retrans_out: u64,
    /// The lowest end among the never-retransmitted segments this ACK
    /// delivered, cumulatively (not SACKed before) or by SACK: Linux's
    /// FLAG_ORIG_SACK_ACKED, once compared with high_seq. Cleared as
    /// each ACK arrives (`TcpSender::on_ack`).
    pub(super) orig_end: Option<u64>,
}

/// `tcp_skb_sent_after()`: t1 after t2, or at the same time with a higher
/// end (the later segment of a burst).
fn sent_after(t1: Time, end1: u64, t2: Time, end2: u64) -> bool {
    t1 > t2 || (t1 == t2 && end1 > end2)
}

impl Rack {
    pub fn new(tlp: bool) -> Self {
        Rack { tlp, ..Default::default() }
    }

    /// tcp_min_rtt(): the smallest round trip seen.
    pub(super) fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    /// A new round-trip sample for min_rtt (the congestion control's,
    /// ca_rtt_us).
    pub fn note_rtt(&mut self, rtt: Time) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// `tcp_rack_advance()`: a segment sent at `time` and ending at `end`
    /// was delivered at `now`. `from_ack`: cumulatively acknowledged (not
    /// newly SACKed).
    fn advance(&mut self, now: Time, time: Time, end: u64, retransmitted: bool, from_ack: bool) {
        let rtt = now.saturating_sub(time);
        if retransmitted && rtt < self.min_rtt.unwrap_or(Time::MAX) {
            return;
        }
        self.advanced = true;
        if from_ack || !self.rtt_from_ack {
            self.rtt = rtt;
        }
        self.rtt_from_ack |= from_ack;
        if sent_after(time, end, self.xmit, self.end) {
            self.xmit = time;
            self.end = end;
        }
    }

    /// A segment is SACKed (`tcp_sacktag_one()`): its lost and
    /// retransmitted marks go.
    fn sack(&mut self, g: &mut SentSeg) {
        if g.transmits == 1 {
            self.note_original(g.end);
        }
        self.lost_out -= g.lost as u64;
        self.retrans_out -= g.rtx_out as u64;
        self.sacked_out += 1;
        (g.sacked, g.lost, g.rtx_out) = (true, false, false);
    }

    /// `tcp_mark_skb_lost()`: a segment already marked lost whose
    /// retransmission is found lost too gives up that retransmission (it
    /// will be sent again); otherwise it is marked. Returns true for the
    /// former.
    fn lose(&mut self, g: &mut SentSeg) -> bool {
        if g.lost {
            let again = g.rtx_out;
            self.retrans_out -= again as u64;
            g.rtx_out = false;
            again
        } else {
            self.lost_out += 1;
            self.lost_total += 1;
            g.lost = true;
            false
        }
    }

    /// A retransmission of `g` is in flight (TCPCB_SACKED_RETRANS), or
    /// (`on` false) the probe's is not counted as one.
    pub(super) fn resent(&mut self, g: &mut SentSeg, on: bool) {
        if g.rtx_out != on {
            if on {
                self.retrans_out += 1;
            } else {
                self.retrans_out -= 1;
            }
            g.rtx_out = on;
        }
    }

    /// A never-retransmitted segment ending at `end` was delivered.
    fn note_original(&mut self, end: u64) {
        self.orig_end = Some(self.orig_end.map_or(end, |e| e.min(end)));
    }

    /// A segment leaves the log, cumulatively acknowledged.
    pub(super) fn forget(&mut self, g: &SentSeg) {
        self.sacked_out -= g.sacked as u64;
        self.lost_out -= g.lost as u64;
        self.retrans_out -= g.rtx_out as u64;
    }

    /// How long past `now` the segment is still given before it counts as
    /// lost, with reordering window `reo` (`tcp_rack_skb_timeout()`); zero
    /// or less: lost.
    fn remaining(&self, now: Time, seg: &SentSeg, reo: Time) -> i64 {
        (self.rtt + reo) as i64 - now.saturating_sub(seg.time) as i64
    }
}

impl TcpSender {
    /// `tcp_schedule_loss_probe()`: in the Open state with nothing SACKed,
    /// lost or retransmitted (Linux's Disorder state has none), the timer
    /// becomes the probe timer: 2 SRTT plus 2 ms (TCP_TIMEOUT_MIN_US), or
    /// plus the minimum RTO with one segment out (its ACK may be
    /// delayed), 1 s before any sample; never later than the RTO would be
    /// (`advancing_rto`: a full RTO from now, else counted from the first
    /// segment's last transmission). Returns whether it was scheduled.
    pub(super) fn schedule_probe(&mut self, now: Time, advancing_rto: bool) -> bool {
        let Some(r) = self.rack.as_deref() else { return false };
        let disorder =
            r.sacked_out + r.lost_out + r.retrans_out > 0 || self.sent.front().is_some_and(|h| h.transmits > 1);
        if !r.tlp || r.recovering || self.sent.is_empty() || disorder {
            return false;
        }
        let g = self.cfg.granularity.max(1);
        let whole = |t: Time| t.div_ceil(g) * g;
        let mut timeout = match self.rto.srtt {
            Some(srtt) if self.sent.len() == 1 => whole(2 * srtt + self.cfg.min_rto),
            Some(srtt) => whole(2 * srtt + 2 * crate::engine::time::MS),
            None => self.cfg.initial_rto,
        };
        let rto = self.rto.rto();
        let delta = if advancing_rto { rto as i64 } else { (self.sent[0].time + rto) as i64 - now as i64 };
        if delta > 0 {
            timeout = timeout.min(whole(delta as Time));
        }
        let at = self.timer_at(now, timeout);
        self.rto_deadline = Some(at);
        self.rack.as_mut().unwrap().tlp_at = Some(at);
        true
    }

    /// `tcp_rearm_rto()` after a probe or reordering timer: the RTO less
    /// the time since the first segment was last sent, at least a tick.
    fn rearmed_rto(&self, now: Time) -> Option<Time> {
        let g = self.cfg.granularity.max(1);
        let head = self.sent.front()?;
        Some(self.timer_at(now, (head.time + self.rto.rto()).saturating_sub(now).max(g)))
    }

    /// Tail-loss probes sent and the losses they repaired (0, 0 without
    /// RACK).
    pub fn loss_probes(&self) -> (u64, u64) {
        self.rack.as_ref().map_or((0, 0), |r| (r.probes, r.probe_recoveries))
    }

    /// New data went out (`tcp_write_xmit()`): the probe timer is
    /// scheduled again, unless this is the probe itself.
    pub(super) fn rack_new_data_sent(&mut self, now: Time) {
        if self.rack.as_ref().is_some_and(|r| !r.probe) {
            self.schedule_probe(now, false);
        }
    }

    /// RACK's deliveries among the segments an ACK of new data acknowledges
    /// cumulatively, before they leave the log (`tcp_clean_rtx_queue()`):
    /// those not SACKed before, unless the timestamp echo shows the ACK was
    /// for an earlier transmission (`tcp_skb_spurious_retrans()`).
    pub(super) fn rack_delivered(&mut self, now: Time, h: &TcpHeader) {
        let echo = h.ts.map(|(_, ecr)| ecr).filter(|&e| self.cfg.timestamps && e != 0);
        let Some(rack) = self.rack.as_mut() else { return };
        for s in self.sent.iter().take_while(|s| s.end <= h.ack) {
            if s.sacked {
                continue;
            }
            if s.transmits == 1 {
                rack.note_original(s.end);
            }
            let retransmitted = s.transmits > 1;
            let spurious =
                retransmitted && echo.is_some_and(|e| (e.wrapping_sub(TcpSender::ts_clock(s.time)) as i32) < 0);
            if !spurious {
                rack.advance(now, s.time, s.end, retransmitted, true);
            }
        }
    }
}

/// Linux's congestion states as far as RACK's recovery needs them (Open
/// includes Disorder).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Open,
    /// An ECN echo's reduction (`tcp_enter_cwr()`): PRR's window until an
    /// ACK passes high_seq.
    Cwr,
    Recovery,
    Loss,
}

/// What a loss detection found.
#[derive(Clone, Copy, Debug, Default)]
struct Detected {
    /// Segments newly marked lost (the ACK's rs->losses).
    newly_lost: u64,
    /// A retransmission was found lost (FLAG_LOST_RETRANS).
    lost_retransmit: bool,
    /// The longest wait of a segment not yet lost.
    wait: Option<Time>,
}

#[derive(Debug, Default)]
pub struct RackRecovery {
    state: State,
    /// Recovery and Loss end when snd_una reaches this (high_seq).
    high_seq: u64,
    /// The ssthresh the last recovery or timeout set.
    ssthresh: u64,
    prr: Prr,
    /// The reordering timer's deadline while it holds the timer slot.
    reo_at: Option<Time>,
    /// What an undo needs (`TcpConfig::undo`, `frto`): the episode's
    /// marker, the window to give back, the first retransmission's stamp.
    u: Undo,
    /// Retransmissions of the episode no DSACK has reported yet (Linux's
    /// undo_retrans; None: -1, none sent); at 0 the DSACKs prove every
    /// one spurious.
    undo_retrans: Option<u64>,
    /// Duplicates D-SACKs have reported in all (tp->dsack_dups).
    dsack_dups: u64,
    /// F-RTO under way after a timeout (tp->frto), and, for the ACK being
    /// answered, its step 2b: new data before any retransmission
    /// (REXMIT_NEW).
    frto: bool,
    frto_new: bool,
    /// A partial ACK showed the hole filled by a delayed original while
    /// retransmissions are still out: this ACK clocks out new data only
    /// (`tcp_try_undo_partial()` returning early).
    hold: bool,
}

/// Linux's counters over the scoreboard, in segments.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    /// tcp_packets_in_flight().
    in_flight: u64,
    lost: u64,
    retrans: u64,
    sacked: u64,
}

fn counts(s: &TcpSender) -> Counts {
    let r = s.rack.as_deref().unwrap();
    let c = Counts {
        in_flight: s.sent.len() as u64 - r.sacked_out - r.lost_out + r.retrans_out,
        lost: r.lost_out,
        retrans: r.retrans_out,
        sacked: r.sacked_out,
    };
    debug_assert_eq!(
        (c.sacked, c.lost, c.retrans),
        s.sent.iter().fold((0, 0, 0), |(a, b, d), g| (a + g.sacked as u64, b + g.lost as u64, d + g.rtx_out as u64)),
        "RACK's counters"
    );
    c
}

impl RackRecovery {
    /// `tcp_rack_reo_wnd()` without reordering seen.
    fn reo_wnd(&self, s: &TcpSender, sacked: u64) -> Time {
        if self.state != State::Open || sacked >= s.w.dupthresh as u64 {
            return 0;
        }
        let rack = s.rack.as_ref().unwrap();
        let quarter = rack.min_rtt.map_or(Time::MAX, |m| m / 4);
        quarter.min(s.rto.srtt.unwrap_or(0))
    }

    /// `tcp_rack_detect_loss()`: mark lost every segment sent before the
    /// most recently sent delivered one whose time is up.
    fn detect(&self, s: &mut TcpSender, now: Time) -> Detected {
        let reo = self.reo_wnd(s, counts(s).sacked);
        let TcpSender { sent, rack, .. } = s;
        let rack = rack.as_deref_mut().unwrap();
        let mut d = Detected::default();
        for g in sent.iter_mut() {
            // Delivered, or marked lost and not yet resent: not in
            // Linux's time-ordered list.
            if g.sacked || (g.lost && !g.rtx_out) || !sent_after(rack.xmit, rack.end, g.time, g.end) {
                continue;
            }
            let left = rack.remaining(now, g, reo);
            if left <= 0 {
                let was_lost = g.lost;
                d.lost_retransmit |= rack.lose(g);
                d.newly_lost += !was_lost as u64;
            } else {
                d.wait = Some(d.wait.map_or(left as Time, |w| w.max(left as Time)));
            }
        }
        d
    }

    /// `tcp_rack_mark_lost()`: detection after a delivery, and the
    /// reordering timer for the segments still waiting (usecs_to_jiffies()
    /// of the wait plus TCP_TIMEOUT_MIN_US, 2 ms, in the timer's slot;
    /// older kernels added two ticks after the rounding).
    fn mark_lost(&mut self, s: &mut TcpSender, now: Time) -> Detected {
        let rack = s.rack.as_mut().unwrap();
        if !rack.advanced {
            return Detected::default();
        }
        rack.advanced = false;
        let d = self.detect(s, now);
        if let Some(wait) = d.wait {
            let g = s.cfg.granularity.max(1);
            let at = s.timer_at(now, (wait + 2 * crate::engine::time::MS).div_ceil(g) * g);
            s.rto_deadline = Some(at);
            self.reo_at = Some(at);
        }
        d
    }

    /// `tcp_enter_recovery()` with `tcp_init_cwnd_reduction()`: ssthresh
    /// from the congestion control, PRR from the window now.
    fn enter_recovery(&mut self, s: &mut TcpSender, ece: bool) {
        // tcp_init_undo(); the window to give back is the one before the
        // cut, unless an ECN echo calls for the cut anyway.
        self.init_undo(s, Self::tlp_retrans_out(s));
        self.u.prior_ssthresh = None;
        // Linux 6.12's cleanup when a recovery starts.
        self.u.stamp_cleanup(Self::any_retrans_done(s));
        // From CWR the reduction under way goes on (its ssthresh, PRR's
        // counts and high_seq), as tcp_enter_recovery() does while
        // tcp_in_cwnd_reduction().
        if self.state != State::Cwr {
            if !ece {
                self.u.note_prior(s, self.reducing(), s.w.cwnd, s.w.ssthresh);
            }
            self.u.prior_cwnd = s.w.cwnd;
            self.init_reduction(s);
        }
        self.state = State::Recovery;
        s.rack.as_mut().unwrap().recovering = true;
        s.recovery_started();
    }

    /// `tcp_init_cwnd_reduction()`: ssthresh from the congestion control,
    /// PRR from the window now, high_seq = the highest byte sent.
    fn init_reduction(&mut self, s: &mut TcpSender) {
        let flight = s.flight() - s.limited_bytes;
        let prior = s.w.cwnd / s.w.mss;
        s.w.ssthresh = s.cc.ssthresh_on_loss(&s.w, flight);
        self.ssthresh = s.w.ssthresh;
        self.prr = Prr::start(prior);
        self.high_seq = s.snd_max;
        s.rack.as_mut().unwrap().tlp_high = None;
    }

    /// PRR's window for `delivered` segments (`tcp_cwnd_reduction()`).
    fn reduce(&mut self, s: &mut TcpSender, delivered: u64, una_advanced: bool, newly_lost: bool) {
        let mss = s.w.mss;
        let flight = counts(s).in_flight;
        if let Some(w) = self.prr.window(delivered, flight, s.w.ssthresh / mss, una_advanced, newly_lost) {
            s.w.cwnd = w.max(1) * mss;
            s.w.ca_frac = 0.0;
        }
    }

    /// The probe can be a new segment: the application has data, the
    /// receiver's window takes it, and no go-back is under way.
    fn probe_new_data(s: &TcpSender) -> bool {
        let len = s.app_limit().saturating_sub(s.snd_max).min(s.w.mss);
        len > 0 && s.snd_max + len <= s.snd_una + s.rwnd && s.snd_nxt == s.snd_max
    }

    /// The probe (`tcp_send_loss_probe()`): one new segment if the
    /// application has data and the receiver's window takes it, whatever
    /// cwnd says; else the last segment sent, again (a retransmission not
    /// counted in flight: TCPCB_EVER_RETRANS only).
    fn send_probe(s: &mut TcpSender, now: Time) -> Segment {
        s.rack.as_mut().unwrap().probe = false;
        let len = s.app_limit().saturating_sub(s.snd_max).min(s.w.mss);
        let new = Self::probe_new_data(s);
        let seg = if new {
            s.rack.as_mut().unwrap().probe = true; // not a new-data send that reschedules
            let seg = s.emit_new(now, len as u32);
            s.rack.as_mut().unwrap().probe = false;
            seg
        } else {
            let last = *s.sent.back().expect("a probe needs data outstanding");
            let seg = s.emit(now, last.seq, (last.end - last.seq) as u32);
            let TcpSender { sent, rack, .. } = s;
            rack.as_deref_mut().unwrap().resent(sent.back_mut().unwrap(), false);
            seg
        };
        let r = s.rack.as_mut().unwrap();
        r.tlp_high = Some(s.snd_max);
        r.tlp_retrans = !new;
        r.probes += 1;
        seg
    }

    /// Tag the segments this ACK's blocks newly SACK (`tcp_sacktag_one()`):
    /// their lost and retransmitted marks go, and RACK takes the delivery.
    fn tag_sacked(s: &mut TcpSender, now: Time) {
        let TcpSender { sent, sb, rack, .. } = s;
        let (Some(sb), Some(rack)) = (sb.as_ref(), rack.as_mut()) else { return };
        for g in sent.iter_mut().filter(|g| !g.sacked) {
            if sb.is_sacked(g.seq, g.end) {
                rack.sack(g);
                rack.advance(now, g.time, g.end, g.transmits > 1, false);
            }
        }
    }
}

/// Linux's undo of a spurious reduction and F-RTO (`TcpConfig::undo`,
/// `frto`).
impl RackRecovery {
    /// Recovery or CWR: a reduction is under way.
    fn reducing(&self) -> bool {
        matches!(self.state, State::Recovery | State::Cwr)
    }

    /// `tcp_may_undo()`: DSACKs reported every retransmission of the
    /// episode, or the timestamps show an original answered.
    fn may_undo(&self, s: &TcpSender, h: &TcpHeader) -> bool {
        self.u.can(s) && (self.undo_retrans == Some(0) || self.u.packet_delayed(s, h))
    }

    /// `tcp_init_undo()`: a reduction begins at snd_una; the
    /// retransmissions in flight count as unreported, a tail-loss probe
    /// that resent a segment (`tlp`, still unanswered) among them.
    fn init_undo(&mut self, s: &TcpSender, tlp: bool) {
        self.u.marker = Some(s.snd_una);
        let out = s.rack.as_ref().map_or(0, |r| r.retrans_out) + tlp as u64;
        self.undo_retrans = (out > 0).then_some(out);
    }

    /// A tail-loss probe that resent a segment is unanswered.
    fn tlp_retrans_out(s: &TcpSender) -> bool {
        s.rack.as_ref().is_some_and(|r| r.tlp_high.is_some() && r.tlp_retrans)
    }

    /// `tcp_check_dsack()`, `tcp_dsack_seen()` and the D-SACK side of
    /// `tcp_sacktag_one()`: the first block reports a duplicate if it
    /// starts below the cumulative ACK or lies inside the second (RFC 2883
    /// 5), unless it is dubious: longer than the receiver's window, or more
    /// duplicates reported in all than retransmissions sent. Each
    /// retransmission of the episode it reports (ending above undo_marker)
    /// counts off undo_retrans: below the ACK by its length in segments
    /// (Linux draws that line at the previous snd_una, counting only resent
    /// segments between the two; the log here no longer holds them), above
    /// it by the resent segments of the log it covers. Returns the
    /// duplicates reported, delivered as far as PRR is concerned, if the
    /// first block was a D-SACK (the ACK then is no duplicate ACK and the
    /// block no SACK information).
    fn check_dsack(&mut self, s: &TcpSender, blocks: &[SackBlock], ack: u64) -> Option<u64> {
        let first = blocks.first()?;
        let inside = blocks.get(1).is_some_and(|b| b.start <= first.start && first.end <= b.end);
        let len = first.end.saturating_sub(first.start);
        if (first.start >= ack && !inside) || len == 0 || len > s.rwnd {
            return None;
        }
        let dup_segs = len.div_ceil(s.w.mss);
        self.dsack_dups += dup_segs;
        if self.dsack_dups > s.stats.retransmits {
            return None;
        }
        let resent = if first.end <= ack {
            dup_segs
        } else {
            s.sent.iter().filter(|g| g.seq >= first.start && g.end <= first.end && g.transmits > 1).count() as u64
        };
        if let (Some(marker), Some(n)) = (self.u.marker, self.undo_retrans) {
            if first.end > marker && n > 0 {
                self.undo_retrans = Some(n.saturating_sub(resent));
            }
        }
        Some(dup_segs)
    }

    /// `tcp_try_undo_dsack()`: DSACKs have reported every retransmission of
    /// the last reduction, so it was spurious (in recovery, or after it
    /// until the next one): the window comes back, the marks stay.
    fn try_undo_dsack(&mut self, s: &mut TcpSender) -> bool {
        if !(self.u.can(s) && self.undo_retrans == Some(0)) {
            return false;
        }
        self.undo(s, false);
        true
    }

    /// `tcp_any_retrans_done()`: a retransmission in flight, or the first
    /// segment was ever resent.
    fn any_retrans_done(s: &TcpSender) -> bool {
        s.rack.as_ref().is_some_and(|r| r.retrans_out > 0) || s.sent.front().is_some_and(|g| g.transmits > 1)
    }

    /// `tcp_undo_cwnd_reduction()`: the window and ssthresh from before
    /// the cut come back (reno's and cubic's undo_cwnd: the larger of the
    /// window now and the one before); with `unmark`, no segment is
    /// marked lost any more. RACK looks at every segment again.
    fn undo(&mut self, s: &mut TcpSender, unmark: bool) {
        self.u.restore(s);
        let TcpSender { sent, rack, .. } = s;
        let rack = rack.as_deref_mut().unwrap();
        if unmark {
            for g in sent.iter_mut().filter(|g| g.lost) {
                g.lost = false;
                rack.lost_out -= 1;
            }
        }
        rack.advanced = true;
    }

    /// `tcp_try_undo_loss()`, when it undoes: back to the Open state.
    fn undo_loss(&mut self, s: &mut TcpSender, frto: bool) {
        self.undo(s, true);
        s.consecutive_timeouts = 0;
        if frto {
            s.undo_counts.1 += 1;
        }
        self.state = State::Open;
    }

    /// `tcp_process_loss()`: an ACK in the Loss state. The timestamps may
    /// show the timeout spurious; F-RTO sends new data on the first ACK
    /// that advances (step 2b) and undoes when never-retransmitted data
    /// below high_seq is then acknowledged or SACKed (3b), or gives up on
    /// a duplicate or a SACK (3a); once snd_una reaches high_seq the Loss
    /// state ends, undone if the timestamps say so.
    fn process_loss(&mut self, s: &mut TcpSender, h: &TcpHeader, una_advanced: bool, dup_or_sack: bool) {
        let recovered = s.snd_una >= self.high_seq;
        if una_advanced && self.may_undo(s, h) {
            return self.undo_loss(s, false);
        }
        if self.frto {
            if s.rack.as_ref().unwrap().orig_end.is_some_and(|e| e <= self.high_seq) {
                return self.undo_loss(s, true);
            }
            if s.snd_max > self.high_seq {
                if dup_or_sack {
                    self.frto = false;
                }
            } else if una_advanced && !recovered {
                self.high_seq = s.snd_max;
                if s.app_limit() > s.snd_max && s.snd_una + s.rwnd > s.snd_max {
                    self.frto_new = true;
                    return;
                }
                self.frto = false;
            }
        }
        if recovered {
            // tcp_try_undo_recovery()
            if self.may_undo(s, h) {
                self.undo(s, false);
            }
            self.state = State::Open;
        }
    }

    /// `tcp_try_undo_partial()`: a partial ACK in recovery whose echo shows
    /// a delayed original filled the hole. With retransmissions still out
    /// this ACK only clocks out new data; otherwise the reduction is
    /// undone and the Open state returns (RACK may start a new recovery
    /// on this ACK).
    fn try_undo_partial(&mut self, s: &mut TcpSender, h: &TcpHeader) {
        if !(self.u.can(s) && self.u.packet_delayed(s, h)) {
            return;
        }
        if s.rack.as_ref().unwrap().retrans_out > 0 {
            self.hold = true;
            return;
        }
        self.u.stamp_cleanup(Self::any_retrans_done(s));
        self.undo(s, true);
        self.state = State::Open;
    }

    /// Tell the sender's RACK state whether the Open state holds (the
    /// probe timer is scheduled only then).
    fn sync(&self, s: &mut TcpSender) {
        s.rack.as_mut().unwrap().recovering = matches!(self.state, State::Recovery | State::Loss);
    }

    /// `tcp_process_tlp_ack()`: an ACK at or past the probe's snd_max ends
    /// the episode. A probe of new data needs nothing more; a probe that
    /// resent the last segment repaired a loss if the ACK goes past that
    /// point, and the window is cut once (CWR: ssthresh from the
    /// congestion control, cwnd = ssthresh), unless a D-SACK reports the
    /// probe itself as a duplicate (`dsack_tlp`, FLAG_DSACK_TLP); a
    /// duplicate ACK with nothing new says the original and the probe both
    /// arrived.
    fn probe_acked(s: &mut TcpSender, ack: u64, news: bool, flight: u64, dsack_tlp: bool) {
        let r = s.rack.as_mut().unwrap();
        let Some(high) = r.tlp_high.filter(|&h| ack >= h) else { return };
        if !r.tlp_retrans || dsack_tlp {
            r.tlp_high = None;
        } else if ack > high {
            r.tlp_high = None;
            r.probe_recoveries += 1;
            s.w.ssthresh = s.cc.ssthresh_on_loss(&s.w, flight);
            s.w.cwnd = s.w.ssthresh.max(s.w.mss);
            s.w.ca_frac = 0.0;
            s.cc.on_cwr_complete(&mut s.w);
        } else if !news {
            r.tlp_high = None;
        }
    }
}

impl LossRecovery for RackRecovery {
    fn ca_state(&self, _s: &TcpSender) -> super::bbr::CaState {
        use super::bbr::CaState;
        match self.state {
            State::Open => CaState::Open,
            State::Cwr => CaState::Cwr,
            State::Recovery => CaState::Recovery,
            State::Loss => CaState::Loss,
        }
    }

    fn packets_in_flight(&self, s: &TcpSender) -> u64 {
        counts(s).in_flight
    }

    fn lost_total(&self, s: &TcpSender) -> u64 {
        s.rack.as_deref().map_or(0, |r| r.lost_total)
    }

    fn name(&self) -> &'static str {
        "rack"
    }

    /// Recovery, Loss and CWR: this policy chooses what goes out (in CWR
    /// so that PRR counts what is sent, as tcp_write_xmit() adds to
    /// prr_out), and no new ECN cut is made.
    fn in_recovery(&self, s: &TcpSender) -> bool {
        self.state != State::Open || s.rack.as_ref().is_some_and(|r| r.probe)
    }

    /// `tcp_enter_cwr()` from the Open state: the reduction starts now and
    /// PRR brings the window down over the next round trip. (The sender
    /// asks only outside recovery and once per window of data.)
    fn on_ecn_cut(&mut self, s: &mut TcpSender) -> bool {
        // Congestion is proven: nothing to undo (tcp_enter_cwr()).
        self.u.prior_ssthresh = None;
        if self.state == State::Open {
            self.u.marker = None;
            self.init_reduction(s);
            self.state = State::Cwr;
            self.sync(s);
        }
        true
    }

    /// A timeout inside recovery or CWR, or repeated in the Loss state
    /// before snd_una moved.
    fn keeps_cut_on_timeout(&self, s: &TcpSender) -> bool {
        let unfinished = s.snd_una < self.high_seq;
        match self.state {
            State::Recovery | State::Cwr => unfinished,
            State::Loss => unfinished && s.consecutive_timeouts > 1,
            State::Open => false,
        }
    }

    fn on_ack(&mut self, s: &mut TcpSender, now: Time, h: &TcpHeader, ece_cut: bool) {
        let ack = h.ack;
        let mss = s.w.mss;
        let all = h.sack_blocks();
        let dsacked = self.check_dsack(s, &all, ack);
        let dsack = dsacked.is_some();
        let blocks = if dsack { &all[1..] } else { &all[..] };
        let new_ack = ack > s.snd_una;
        let flight = s.flight();
        let state_before = self.state;
        // Linux's duplicate ACK: neither advances nor reports a duplicate,
        // SACK blocks or not.
        let linux_dup = !new_ack && !dsack && ack == s.snd_una && s.snd_max > s.snd_una;
        (self.frto_new, self.hold) = (false, false);
        let sacked_before = s.sb.as_ref().unwrap().sacked_bytes();
        s.note_sack_rtt(blocks);
        let newly_sacked = s.sb.as_mut().unwrap().update(ack.max(s.snd_una), blocks);
        if newly_sacked {
            Self::tag_sacked(s, now);
        }
        let sacked_after = s.sb.as_ref().unwrap().sacked_bytes();
        let ece = s.cfg.ecn && h.flags & crate::packet::flags::ECE != 0;
        if ece {
            // An echo proves congestion: a later undo keeps the window.
            self.u.prior_ssthresh = None;
        }
        let mut acked = 0;
        let mut grow = false;
        if new_ack {
            acked = s.advance_una(now, h);
            let done = ack >= self.high_seq;
            grow = !ece_cut;
            match self.state {
                // CWR ends on an ACK above high_seq (held at it, so that
                // the CWR flag has reached the receiver).
                State::Cwr if ack > self.high_seq => {
                    self.state = State::Open;
                    s.w.cwnd = s.w.ssthresh.max(mss);
                    s.cc.on_cwr_complete(&mut s.w);
                }
                State::Recovery if done => {
                    // tcp_try_undo_recovery(), else tcp_end_cwnd_reduction();
                    // then this ACK's growth.
                    if self.may_undo(s, h) {
                        self.undo(s, false);
                    } else {
                        s.w.cwnd = s.w.ssthresh.max(mss);
                    }
                    s.cc.on_cwr_complete(&mut s.w);
                    self.state = State::Open;
                }
                State::Recovery => {
                    self.try_undo_partial(s, h);
                    grow = self.state == State::Open && !ece_cut;
                }
                State::Cwr => grow = false,
                State::Loss | State::Open => {}
            }
            s.settle_after_new_ack(now);
        } else if linux_dup && (newly_sacked || h.nsack == 0) {
            s.stats.dupacks_received += 1;
            s.dupacks += 1;
            s.sack_rtt_on_dupack(now, h);
        }
        if self.state == State::Loss {
            // F-RTO's step 3a takes Linux's duplicate ACK.
            self.process_loss(s, h, new_ack, linux_dup || newly_sacked);
        }
        // tcp_fastretrans_alert(): DSACKs may undo a recovery under way or
        // one already over (then tcp_try_to_open()); not in CWR or Loss.
        if !self.hold && matches!(self.state, State::Recovery | State::Open) && self.try_undo_dsack(s) {
            self.state = State::Open;
        }
        // tcp_dsack_seen(): a needless retransmission was delivered too.
        let delivered = (acked + sacked_after).saturating_sub(sacked_before).div_ceil(mss) + dsacked.unwrap_or(0);
        // tcp_dsack_seen(): a D-SACK of one segment ending where the probe
        // did reports the probe.
        let dsack_tlp =
            dsacked == Some(1) && all.first().is_some_and(|b| s.rack.as_ref().unwrap().tlp_high == Some(b.end));
        Self::probe_acked(s, ack, new_ack || newly_sacked, flight, dsack_tlp);
        // tcp_ack_is_dubious(): loss detection runs on duplicates, new
        // SACK information, D-SACKs, ECE and in any state but Open when
        // the ACK arrived (an ACK that ends or undoes a recovery too).
        let c = counts(s);
        let disorder = c.sacked > 0 || c.retrans > 0;
        let dubious = !new_ack || newly_sacked || dsack || ece || state_before != State::Open || disorder;
        let d =
            if dubious && s.snd_max > s.snd_una && !self.hold { self.mark_lost(s, now) } else { Detected::default() };
        if let Some(r) = s.rack.as_mut() {
            r.rtt_from_ack = false;
        }
        let start = match self.state {
            State::Open | State::Cwr => counts(s).lost > 0,
            State::Loss => d.lost_retransmit,
            State::Recovery => false,
        };
        if start {
            self.enter_recovery(s, ece);
        }
        if dubious && self.state == State::Open {
            // tcp_fastretrans_alert()'s clear in the Open state and
            // tcp_try_to_open(), on every dubious ACK that leaves the Open
            // (or Disorder) state: nothing resent is outstanding. (An ACK
            // that starts a recovery clears it in enter_recovery().)
            self.u.stamp_cleanup(Self::any_retrans_done(s));
        }
        if matches!(self.state, State::Recovery | State::Cwr) {
            self.reduce(s, delivered, new_ack, d.newly_lost > 0);
        } else if grow {
            let info = s.ack_info(ack, delivered * mss, flight);
            s.cc.on_new_ack(&mut s.w, &info);
        }
        if self.state == State::Open && s.cfg.limited_transmit && s.dupacks > 0 && s.dupacks < s.w.dupthresh {
            // Linux's Disorder state: a SACKed segment leaves the flight,
            // so a new one may go (RFC 3042's effect). A duplicate ACK
            // that SACKs nothing (a duplicate segment's, without D-SACK)
            // frees no room: Linux's in-flight count is unchanged by it.
            s.limited_extra = (s.dupacks as u64).min(counts(s).sacked);
        }
        self.sync(s);
        // tcp_set_xmit_timer() on an ACK of new data, unless RACK's timer
        // took the slot: the probe timer in the Open state (the RTO,
        // restarted above, otherwise).
        if new_ack && d.wait.is_none() && matches!(self.state, State::Open | State::Cwr) {
            s.schedule_probe(now, true);
        }
    }

    fn polls(&self) -> bool {
        true
    }

    /// In Recovery, Loss and CWR: the lost segments first, in sequence
    /// order, then new data, while the flight is below the window.
    fn poll(&mut self, s: &mut TcpSender, now: Time) -> Option<Option<Segment>> {
        let mss = s.w.mss;
        if s.rack.as_ref().unwrap().probe {
            if Self::probe_new_data(s) || !s.sent.is_empty() {
                return Some(Some(Self::send_probe(s, now)));
            }
            // Everything was acknowledged before the probe could go (a
            // paced sender waits for its gate) and nothing new waits:
            // nothing to probe (tcp_send_loss_probe() without a segment).
            s.rack.as_mut().unwrap().probe = false;
        }
        let c = counts(s);
        if self.frto_new {
            // F-RTO's step 2b (tcp_xmit_recovery() with REXMIT_NEW): new
            // data as the window allows; if none went out, F-RTO ends and
            // the lost segments go.
            let len = s.app_limit().saturating_sub(s.snd_max).min(mss);
            if c.in_flight * mss < s.w.cwnd && len > 0 && s.snd_max + len <= s.snd_una + s.rwnd {
                return Some(Some(s.emit_new(now, len as u32)));
            }
            self.frto_new = false;
            if s.snd_max > self.high_seq {
                return Some(None);
            }
            self.frto = false;
        }
        if c.in_flight * mss >= s.w.cwnd {
            return Some(None);
        }
        let lost = (c.retrans < c.lost && !self.hold)
            .then(|| s.sent.iter().find(|g| g.lost && !g.rtx_out && !g.sacked).map(|g| (g.seq, g.end)))
            .flatten();
        let seg = if let Some((seq, end)) = lost {
            let seg = s.emit(now, seq, (end - seq) as u32);
            // tcp_retransmit_skb(): the episode's first retransmission
            // dates it.
            self.u.note_retransmit(now);
            self.undo_retrans = Some(self.undo_retrans.map_or(1, |n| n + 1));
            // tcp_xmit_retransmit_queue(): resending the first segment
            // restarts the RTO, unless the reordering timer holds the slot.
            if seq == s.snd_una && self.reo_at.is_none_or(|at| s.rto_deadline != Some(at)) {
                self.reo_at = None;
                s.restart_timer(now);
            }
            seg
        } else {
            let len = s.app_limit().saturating_sub(s.snd_max).min(mss);
            if len == 0 || s.snd_max + len > s.snd_una + s.rwnd || s.snd_nxt != s.snd_max {
                return Some(None);
            }
            // New data in CWR goes through tcp_write_xmit()'s TSO deferral
            // as in the Open state (Recovery and Loss never defer).
            if self.state == State::Cwr && s.cfg.tso_defer && s.tso_holds(now) {
                return Some(None);
            }
            s.emit_new(now, len as u32)
        };
        if matches!(self.state, State::Recovery | State::Cwr) {
            self.prr.sent();
        }
        Some(Some(seg))
    }

    /// `tcp_enter_loss()` with `tcp_timeout_mark_lost()`: the scoreboard
    /// stays; the first segment and those sent a RACK round trip ago or
    /// more are lost; cwnd = the flight left + 1. The congestion control
    /// has just cut ssthresh; Linux cuts once per window of data: a
    /// timeout inside a recovery, or a repeated one in Loss with no
    /// progress since, keeps the ssthresh set before.
    fn on_timeout(&mut self, s: &mut TcpSender) {
        let now = s.now;
        self.reo_at = None;
        let tlp = Self::tlp_retrans_out(s);
        let r = s.rack.as_mut().unwrap();
        (r.tlp_at, r.tlp_high, r.probe, r.recovering) = (None, None, false, true);
        let keep = self.keeps_cut_on_timeout(s);
        if keep {
            s.w.ssthresh = self.ssthresh;
        } else {
            self.ssthresh = s.w.ssthresh;
            // tcp_init_undo() with the window from before the cut.
            let (cwnd, ssthresh) = s.pre_cut;
            self.u.note_prior(s, self.reducing(), cwnd, ssthresh);
        }
        // F-RTO for a new episode, or a timeout repeated at the same
        // snd_una (RFC 5682 3.2).
        self.frto = s.cfg.frto && (matches!(self.state, State::Open | State::Cwr) || s.consecutive_timeouts > 1);
        (self.frto_new, self.hold) = (false, false);
        let una = s.snd_una;
        let TcpSender { sent, rack, .. } = s;
        let rack = rack.as_deref_mut().unwrap();
        for g in sent.iter_mut().filter(|g| !g.sacked) {
            if g.seq != una && rack.remaining(now, g, 0) > 0 {
                continue; // sent too recently to call lost
            }
            rack.lose(g);
        }
        if !keep {
            // After tcp_timeout_mark_lost(): the retransmissions it found
            // lost are no longer out.
            self.init_undo(s, tlp);
        }
        s.w.cwnd = (counts(s).in_flight + 1) * s.w.mss;
        self.state = State::Loss;
        self.high_seq = s.snd_max;
    }

    /// The reordering timer (`tcp_rack_reo_timeout()`): detect again; if
    /// that marked something, recovery starts (PRR with one segment
    /// delivered) and the lost segments go out; the RTO takes the slot
    /// back, counted from the first segment's last transmission.
    fn on_timer(&mut self, s: &mut TcpSender, now: Time) -> bool {
        let r = s.rack.as_mut().unwrap();
        if r.tlp_at.is_some() && r.tlp_at == s.rto_deadline {
            r.tlp_at = None;
            if r.tlp_high.is_some() {
                // At most one probe an episode: the RTO takes the slot.
                s.rto_deadline = s.rearmed_rto(now);
            } else {
                // tcp_send_loss_probe(): the probe goes out now and the
                // RTO restarts from it.
                r.probe = true;
                s.restart_timer(now);
            }
            return true;
        }
        if self.reo_at.is_none() || self.reo_at != s.rto_deadline {
            return false;
        }
        self.reo_at = None;
        let before = counts(s).in_flight;
        self.detect(s, now);
        if counts(s).in_flight != before && self.state != State::Recovery {
            self.enter_recovery(s, false);
            self.reduce(s, 1, false, false);
        }
        // tcp_rearm_rto(): RTO minus the time since the first segment was
        // last sent, at least a tick.
        s.rto_deadline = s.rearmed_rto(now);
        true
    }
}
