//! A sender whose application pauses: what happens to the window when the
//! sender has been idle or application-limited (`TcpConfig::idle_restart`,
//! `cwnd_validation`, `cwv_rtt_counting`).
//!
//! ns-2.35's congestion window validation (RFC 2861, its `QOption_`) works
//! in whole ticks of `tcpTick_` and in packets, on its fractional cwnd_;
//! the functions here take the sender's window in bytes and do the same
//! arithmetic on `cwnd / mss`, so that a window lands where ns-2's does.

use super::cc::CcState;
use crate::engine::Time;

/// The state of idle and application-limited periods; cold, read only
/// when the application can pause (`TcpSender::app_paced`).
#[derive(Clone, Debug, Default)]
pub struct IdleState {
    /// When the last data segment went out (Linux's lsndtime).
    pub last_send: Option<Time>,
    /// Linux's record of how much of cwnd the sender used
    /// (`TcpConfig::cwnd_limited`).
    pub cwnd_use: CwndUse,
    /// ns-2's retransmission timer left running with nothing outstanding
    /// (`IdleRestart::Ns2Timer`): its first expiry; later expiries follow
    /// every RTO. Kept as a time rather than as events: an expiry with
    /// nothing outstanding only sets cwnd to one segment, so all of them
    /// are applied when the application writes again.
    pub ns2_timer: Option<Time>,
    /// ns-2's T_last, T_prev (ticks) and W_used (packets).
    t_last: i64,
    t_prev: i64,
    w_used: i64,
    /// ns-2's RTT counting (EnblRTTCtr_): T_start, RTT_count, RTT_prev,
    /// RTT_goodcount, F_counting, W_timed (a packet number), F_full,
    /// Backoffs.
    t_start: i64,
    rtt_count: i64,
    rtt_prev: i64,
    rtt_goodcount: i64,
    f_counting: bool,
    w_timed: i64,
    f_full: bool,
    backoffs: i64,
}

/// What the segment just sent says about the sender, in ns-2's packet
/// numbers: the packet's number (t_seqno_ before its increment), the
/// highest packet acknowledged (highest_ack_), the window in packets
/// (window()) and the application's end (curseq_).
#[derive(Clone, Copy, Debug)]
pub struct SentPacket {
    pub seqno: i64,
    pub highest_ack: i64,
    pub window: i64,
    pub curseq: i64,
}

/// Linux's tcp_cwnd_validate() state (tcp_sock's is_cwnd_limited,
/// max_packets_out, cwnd_usage_seq): whether cwnd limited the sender in
/// the current window of data, the most segments out in it, and the
/// sequence number whose acknowledgement ends that window.
#[derive(Clone, Copy, Debug, Default)]
pub struct CwndUse {
    pub limited: bool,
    pub max_out: u64,
    pub usage_seq: u64,
}

impl CwndUse {
    /// After a send (tcp_write_xmit()'s call, tcp_cwnd_validate(sk,
    /// is_cwnd_limited)): `limited` whether cwnd held the sender (the
    /// flight reached it, or TSO deferral waited for it), `out` segments
    /// outstanding, `snd_una` and `snd_nxt` in bytes.
    pub fn after_send(&mut self, limited: bool, out: u64, snd_una: u64, snd_nxt: u64) {
        if snd_una >= self.usage_seq || limited || (!self.limited && out > self.max_out) {
            self.limited = limited;
            self.max_out = out;
            self.usage_seq = snd_nxt;
        }
    }

    /// tcp_is_cwnd_limited(): may a new ACK grow a window of `cwnd`
    /// segments (in slow start or not)?
    pub fn may_grow(&self, cwnd: u64, slow_start: bool) -> bool {
        self.limited || (slow_start && cwnd < 2 * self.max_out)
    }
}

impl IdleState {
    pub fn new() -> Self {
        // ns-2's reset() at time 0: T_last = T_prev = T_start = now,
        // RTT_goodcount 1, W_timed -1.
        IdleState { rtt_goodcount: 1, w_timed: -1, ..Default::default() }
    }

    /// ns-2's process_qoption_after_send() (EnblRTTCtr_ 0): idle for an
    /// RTO or more, ssthresh to at least 3/4 cwnd and cwnd halved once per
    /// RTO; the application's last packet sent after an RTO of being
    /// application-limited, cwnd halfway down to the window used.
    pub fn after_send(&mut self, w: &mut CcState, tcp_now: i64, rto: i64, p: SentPacket) {
        let rto = rto.max(1);
        if tcp_now - self.t_last >= rto {
            three_quarter_ssthresh(w);
            for _ in 0..(tcp_now - self.t_last) / rto {
                half_with_min(w);
            }
            self.t_prev = tcp_now;
            self.w_used = 0;
        }
        self.t_last = tcp_now;
        if p.seqno == p.highest_ack + p.window {
            self.t_prev = tcp_now;
            self.w_used = 0;
        } else if p.seqno == p.curseq - 1 {
            self.w_used = self.w_used.max(p.seqno - p.highest_ack);
            if tcp_now - self.t_prev >= rto {
                three_quarter_ssthresh(w);
                halfway_to_used(w, self.w_used);
                self.t_prev = tcp_now;
                self.w_used = 0;
            }
        }
    }

    /// ns-2's rtt_counting() (EnblRTTCtr_ 1): the same decisions with
    /// periods counted in RTTs, `srtt` ticks each (t_srtt_ >> T_SRTT_BITS).
    pub fn after_send_counting(&mut self, w: &mut CcState, tcp_now: i64, srtt: i64, p: SentPacket) {
        let rtt = srtt.max(1);
        if tcp_now - self.t_last >= 2 * rtt {
            let rtts = (tcp_now - self.t_last) * self.rtt_goodcount / (rtt * 2) - self.backoffs;
            self.backoffs = 0;
            if rtts > 0 {
                three_quarter_ssthresh(w);
                for _ in 0..rtts {
                    half_with_min(w);
                    self.rtt_prev = self.rtt_count;
                    self.w_used = 0;
                }
            }
        }
        self.t_last = tcp_now;
        if tcp_now - self.t_start >= 2 * rtt {
            if self.rtt_count > self.rtt_goodcount || self.f_full {
                self.rtt_goodcount = self.rtt_count.max(1);
            }
            self.rtt_prev -= self.rtt_count;
            self.rtt_count = 0;
            self.t_start = tcp_now;
            self.f_full = false;
        }
        if p.seqno == p.highest_ack + p.window {
            self.w_used = 0;
            self.f_full = true;
            self.rtt_prev = self.rtt_count;
        } else if p.seqno == p.curseq - 1 {
            self.w_used = self.w_used.max(p.seqno - p.highest_ack);
            if self.rtt_count - self.rtt_prev >= 2 {
                three_quarter_ssthresh(w);
                halfway_to_used(w, self.w_used);
                self.rtt_prev = self.rtt_count;
                self.backoffs += 1;
                self.w_used = 0;
            }
        }
        if !self.f_counting {
            self.w_timed = p.seqno;
            self.f_counting = true;
        }
    }

    /// ns-2's process_qoption_after_ack() (EnblRTTCtr_ 1): an ACK at or
    /// past the timed packet, or the duplicate that reaches the threshold,
    /// counts one RTT.
    pub fn after_ack(&mut self, ackno: i64, dupacks: u32, dupthresh: u32) {
        if self.f_counting {
            if ackno >= self.w_timed {
                self.rtt_count += 1;
                self.f_counting = false;
            } else if dupacks == dupthresh {
                self.rtt_count += 1;
            }
        }
    }
}

/// The window slowdown() decreases from, in packets: windowd() =
/// min(cwnd_, wnd_) with precision_reduce_, else window(), its whole part.
fn windowd(w: &CcState) -> f64 {
    let win = (w.cwnd_f() / w.mss as f64).min((w.rwnd / w.mss) as f64);
    if w.precise_half {
        win
    } else {
        win.floor()
    }
}

/// The tail every slowdown() shares: ssthresh at least 2, cwnd at least 1.
fn bounds(w: &mut CcState) {
    w.ssthresh = w.ssthresh.max(2 * w.mss);
    if w.cwnd < w.mss {
        w.set_cwnd(w.mss as f64);
    }
}

/// slowdown(THREE_QUARTER_SSTHRESH): ssthresh_ = max(ssthresh_, (int)(3 cwnd_ / 4)).
fn three_quarter_ssthresh(w: &mut CcState) {
    let q = (3.0 * (w.cwnd_f() / w.mss as f64) / 4.0) as u64;
    w.ssthresh = w.ssthresh.max(q * w.mss);
    bounds(w);
}

/// slowdown(CWND_HALF_WITH_MIN): cwnd_ = decrease_num_ x windowd() (its
/// whole part without precision_reduce_), at least 1.
fn half_with_min(w: &mut CcState) {
    let half = if w.precise_half { 0.5 * windowd(w) } else { (0.5 * windowd(w)).floor() };
    w.set_cwnd(half.max(1.0) * w.mss as f64);
    bounds(w);
}

/// slowdown(CLOSE_CWND_HALF_WAY): cwnd_ = W_used + decrease_num_ (windowd() - W_used).
fn halfway_to_used(w: &mut CcState, used: i64) {
    let win = windowd(w);
    let c = used as f64 + 0.5 * (win - used as f64);
    w.set_cwnd(c.max(1.0) * w.mss as f64);
    bounds(w);
}

/// ns-2's tick clock: (int)(now / tcpTick_ + 0.5).
pub fn ticks_now(now: Time, tick: Time) -> i64 {
    let tick_s = tick as f64 / 1e9;
    ((now as f64 / 1e9) / tick_s + 0.5) as i64
}

/// RFC 5681 4.1: the restart window min(IW, cwnd).
pub fn rfc5681_restart(w: &mut CcState, initial: u64) {
    if w.cwnd > initial {
        w.set_cwnd(initial as f64);
    }
}

/// Linux's tcp_cwnd_restart() after `idle` without data sent, `rto` the
/// current RTO: ssthresh to at least 3/4 cwnd (tcp_current_ssthresh()
/// in the Open state), cwnd halved once for each whole RTO of `idle`,
/// not below min(IW, cwnd); whole segments, as Linux counts.
pub fn linux_restart(w: &mut CcState, initial: u64, idle: Time, rto: Time) {
    let mss = w.mss;
    let mut cwnd = w.cwnd / mss;
    let restart = (initial / mss).min(cwnd).max(1);
    w.ssthresh = w.ssthresh.max(((cwnd >> 1) + (cwnd >> 2)) * mss);
    let mut delta = idle as i128;
    loop {
        delta -= rto.max(1) as i128;
        if delta <= 0 || cwnd <= restart {
            break;
        }
        cwnd >>= 1;
    }
    w.set_cwnd((cwnd.max(restart) * mss) as f64);
}
