//! The TCP sender: byte sequence numbers, MSS segmentation, the send window
//! min(cwnd, rwnd), duplicate-ACK counting, RTT timing of one segment per
//! window with Karn's rule, the RFC 6298 timer, go-back-N after a timeout and
//! abort after too many retransmissions. No handshake: like ns-2's one-way
//! agents the connection starts established, with sequence number 0.

use super::cc::{AckInfo, CcState, CongestionControl, DupResponse};
use super::config::TcpConfig;
use super::rto::RtoEstimator;
use crate::engine::Time;
use crate::packet::TcpHeader;

/// A segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub retransmit: bool,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    /// Segments sent again (fast retransmits, partial-ACK and go-back-N resends).
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub acks_received: u64,
    pub dupacks_received: u64,
}

pub struct TcpSender {
    pub cfg: TcpConfig,
    cc: Box<dyn CongestionControl>,
    pub w: CcState,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Bytes the application has handed over so far.
    app_written: u64,
    /// Total bytes the application will write; None = unlimited (bulk).
    app_total: Option<u64>,
    /// The application stopped writing (bulk with a stop time).
    app_closed: bool,
    /// Receiver's advertised window.
    rwnd: u64,
    dupacks: u32,
    /// Segments Limited Transmit may send beyond cwnd (one per early dupack).
    limited_extra: u64,
    /// Bytes sent beyond cwnd under Limited Transmit since the last new ACK:
    /// RFC 5681 3.2 keeps them out of the FlightSize that sets ssthresh.
    limited_bytes: u64,
    pub rto: RtoEstimator,
    rto_deadline: Option<Time>,
    /// (sequence number whose ACK ends the measurement, send time).
    rtt_timing: Option<(u64, Time)>,
    consecutive_timeouts: u32,
    pending_head_rtx: bool,
    pub aborted: bool,
    /// When the last byte of a finite transfer was acknowledged.
    pub completed_at: Option<Time>,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let w = CcState {
            cwnd: cfg.initial_cwnd(),
            ssthresh: cfg.initial_ssthresh_bytes(),
            mss: cfg.mss as u64,
            dupthresh: cfg.dupthresh,
            ca_rem: 0,
        };
        let rto = RtoEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.granularity);
        TcpSender {
            rwnd: cfg.rwnd,
            cfg,
            cc,
            w,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_written: 0,
            app_total: Some(0),
            app_closed: false,
            dupacks: 0,
            limited_extra: 0,
            limited_bytes: 0,
            rto,
            rto_deadline: None,
            rtt_timing: None,
            consecutive_timeouts: 0,
            pending_head_rtx: false,
            aborted: false,
            completed_at: None,
            stats: SenderStats::default(),
        }
    }

    pub fn variant(&self) -> &'static str {
        self.cc.name()
    }

    pub fn in_recovery(&self) -> bool {
        self.cc.in_recovery()
    }

    /// The application makes `bytes` more available (None = unlimited).
    pub fn app_write(&mut self, bytes: Option<u64>) {
        match bytes {
            None => self.app_total = None,
            Some(b) => {
                self.app_written += b;
                if let Some(t) = self.app_total.as_mut() {
                    *t = (*t).max(self.app_written);
                }
            }
        }
    }

    /// A bulk application stops producing data.
    pub fn app_close(&mut self) {
        self.app_closed = true;
        self.app_total = Some(self.snd_max.max(self.app_written));
    }

    /// Highest byte the application has made available.
    fn app_limit(&self) -> u64 {
        match self.app_total {
            None if !self.app_closed => u64::MAX,
            _ => self.app_written.max(self.app_total.unwrap_or(0)),
        }
    }

    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// Current send window: min(cwnd, rwnd), plus what Limited Transmit
    /// allows after early duplicate ACKs (RFC 3042: cwnd itself unchanged,
    /// at most cwnd + 2 MSS outstanding, within the receiver's window).
    pub fn window(&self) -> u64 {
        (self.w.cwnd + self.limited_extra * self.w.mss).min(self.rwnd)
    }

    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// Everything written has been acknowledged.
    pub fn finished(&self) -> bool {
        self.app_total.is_some() && self.snd_una >= self.app_limit()
    }

    fn ack_info(&self, ack: u64, acked: u64, flight: u64) -> AckInfo {
        AckInfo { ack, acked, snd_max: self.snd_max, flight, dupacks: self.dupacks }
    }

    fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = Some(now + self.rto.rto());
    }

    /// Next segment to transmit at `now`, if the window and data allow one.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if self.aborted {
            return None;
        }
        if self.pending_head_rtx {
            self.pending_head_rtx = false;
            let len = (self.snd_max - self.snd_una).min(self.w.mss);
            if len > 0 {
                return Some(self.emit(now, self.snd_una, len as u32));
            }
        }
        let limit = self.app_limit().max(self.snd_max);
        if self.snd_nxt >= limit {
            return None;
        }
        let mut len = (limit - self.snd_nxt).min(self.w.mss);
        let win = self.window();
        let edge = self.snd_una + win;
        if self.snd_nxt + len > edge {
            // Sender silly-window avoidance: only a full segment, unless the
            // window itself is smaller than one and nothing is outstanding.
            if self.snd_nxt == self.snd_una && win > 0 {
                len = len.min(win);
            } else {
                return None;
            }
        }
        Some(self.emit(now, self.snd_nxt, len as u32))
    }

    fn emit(&mut self, now: Time, seq: u64, len: u32) -> Segment {
        let retransmit = seq < self.snd_max;
        if retransmit {
            self.stats.retransmits += 1;
            // Karn: a retransmission makes the timed sample ambiguous.
            if matches!(self.rtt_timing, Some((end, _)) if seq < end) {
                self.rtt_timing = None;
            }
        } else if self.rtt_timing.is_none() {
            self.rtt_timing = Some((seq + len as u64, now));
        }
        if self.limited_extra > 0 && !retransmit && seq + len as u64 > self.snd_una + self.w.cwnd {
            self.limited_bytes += len as u64;
        }
        if seq == self.snd_nxt {
            self.snd_nxt += len as u64;
        }
        self.snd_max = self.snd_max.max(seq + len as u64);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
        Segment { seq, len, retransmit }
    }

    /// An ACK arrives.
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader) {
        if self.aborted {
            return;
        }
        self.stats.acks_received += 1;
        self.rwnd = h.window as u64;
        let ack = h.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            let flight = self.flight();
            if let Some((end, sent)) = self.rtt_timing {
                if ack >= end {
                    self.rto.sample(now - sent);
                    self.rtt_timing = None;
                }
            }
            self.snd_una = ack;
            if self.snd_nxt < ack {
                self.snd_nxt = ack;
            }
            self.consecutive_timeouts = 0;
            self.dupacks = 0;
            self.limited_extra = 0;
            self.limited_bytes = 0;
            let info = self.ack_info(ack, acked, flight);
            let resp = self.cc.on_new_ack(&mut self.w, &info);
            if resp.retransmit_head {
                self.pending_head_rtx = true;
            }
            if self.snd_una == self.snd_max {
                self.rto_deadline = None;
            } else if resp.restart_timer {
                self.restart_timer(now);
            }
            debug_assert!(self.w.cwnd >= self.w.mss, "cwnd below one MSS");
            if self.completed_at.is_none() && self.finished() {
                self.completed_at = Some(now);
            }
        } else if ack == self.snd_una && self.snd_max > self.snd_una {
            self.stats.dupacks_received += 1;
            self.dupacks += 1;
            let info = self.ack_info(ack, 0, self.flight() - self.limited_bytes);
            match self.cc.on_dupack(&mut self.w, &info) {
                DupResponse::None => {
                    if self.cfg.limited_transmit && self.dupacks < self.w.dupthresh && !self.cc.in_recovery() {
                        self.limited_extra = self.dupacks as u64;
                    }
                }
                DupResponse::FastRetransmit => {
                    self.limited_extra = 0;
                    self.stats.fast_retransmits += 1;
                    self.pending_head_rtx = true;
                    self.restart_timer(now);
                }
                DupResponse::FastRetransmitGoBackN => {
                    self.limited_extra = 0;
                    self.stats.fast_retransmits += 1;
                    self.snd_nxt = self.snd_una;
                    self.restart_timer(now);
                }
            }
        }
    }

    /// The retransmission timer fires at `now`. Returns false if it was stale.
    pub fn on_timeout(&mut self, now: Time) -> bool {
        match self.rto_deadline {
            Some(d) if d <= now && !self.aborted => {}
            _ => return false,
        }
        self.stats.timeouts += 1;
        self.consecutive_timeouts += 1;
        if let Some(max) = self.cfg.max_retransmits {
            if self.consecutive_timeouts > max {
                self.aborted = true;
                self.rto_deadline = None;
                return true;
            }
        }
        let info = self.ack_info(self.snd_una, 0, self.flight());
        self.cc.on_timeout(&mut self.w, &info);
        self.w.ca_rem = 0;
        self.rto.back_off();
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.limited_extra = 0;
        self.limited_bytes = 0;
        self.pending_head_rtx = false;
        self.rtt_timing = None;
        self.restart_timer(now);
        debug_assert!(self.w.cwnd >= self.w.mss, "cwnd below one MSS");
        true
    }
}
