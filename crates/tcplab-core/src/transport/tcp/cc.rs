//! Congestion control as a pluggable policy over one sender (in the manner of
//! ns-3's TcpCongestionOps). The sender owns sequence numbers, timers and
//! segmentation; the policy owns cwnd/ssthresh and decides when a loss is
//! repaired by fast retransmit and how.

/// Window state shared between sender and policy. All values in bytes.
#[derive(Clone, Debug)]
pub struct CcState {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    pub dupthresh: u32,
    /// Remainder of the congestion-avoidance increase, so that
    /// cwnd += MSS*MSS/cwnd per ACK is exact in integer arithmetic.
    pub ca_rem: u64,
}

impl CcState {
    /// Slow start: +1 MSS per new ACK (ns-2 and RFC 5681 without ABC);
    /// congestion avoidance: +MSS*MSS/cwnd per new ACK.
    pub fn standard_increase(&mut self) {
        if self.cwnd < self.ssthresh {
            self.cwnd += self.mss;
        } else {
            let num = self.mss * self.mss + self.ca_rem;
            self.cwnd += num / self.cwnd;
            self.ca_rem = num % self.cwnd.max(1);
        }
    }

    /// RFC 5681 (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
    pub fn halve(&self, flight: u64) -> u64 {
        (flight / 2).max(2 * self.mss)
    }
}

/// What the sender knows about an arriving ACK.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub ack: u64,
    /// Bytes newly acknowledged (0 for a duplicate).
    pub acked: u64,
    /// Highest sequence number sent + 1.
    pub snd_max: u64,
    /// Bytes outstanding before this ACK.
    pub flight: u64,
    /// Consecutive duplicate ACKs including this one.
    pub dupacks: u32,
    pub now: crate::engine::Time,
    /// Next new byte the sender will send (ns-2's t_seqno_ in bytes).
    pub snd_nxt: u64,
    /// (send time, transmissions) of the highest segment this ACK covers.
    pub acked_seg: Option<(crate::engine::Time, u32)>,
    /// (send time, transmissions) of the first unacknowledged segment.
    pub head_seg: Option<(crate::engine::Time, u32)>,
}

/// Response to a new (cumulative) ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckResponse {
    /// Retransmit the first unacknowledged segment now (NewReno partial ACK).
    pub retransmit_head: bool,
    /// Restart the retransmission timer (RFC 6298 5.3).
    pub restart_timer: bool,
}

impl AckResponse {
    pub const NORMAL: AckResponse = AckResponse { retransmit_head: false, restart_timer: true };
}

/// Response to a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupResponse {
    None,
    /// Retransmit the first unacknowledged segment, keep sending new data.
    FastRetransmit,
    /// Retransmit from the first unacknowledged segment onwards (Tahoe).
    FastRetransmitGoBackN,
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse;
    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse;
    /// Retransmission timeout: set the loss window; the sender goes back N.
    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo);
    fn in_recovery(&self) -> bool {
        false
    }
    /// ssthresh after a loss detected by SACK recovery (RFC 6675 uses the
    /// RFC 5681 rule; other algorithms may choose another factor).
    fn ssthresh_on_loss(&self, w: &CcState, flight: u64) -> u64 {
        w.halve(flight)
    }
    /// ECN-Echo (RFC 3168 6.1.2): halve like a loss, without retransmitting.
    /// The sender calls this at most once per window of data.
    fn on_ecn(&mut self, w: &mut CcState, a: &AckInfo) {
        w.ssthresh = self.ssthresh_on_loss(w, a.flight);
        w.cwnd = w.ssthresh.max(w.mss);
    }
    /// Whether the policy uses per-segment send times (`AckInfo::acked_seg`,
    /// `head_seg`); the sender keeps that log only for policies that do.
    fn times_segments(&self) -> bool {
        false
    }
    /// Whether this algorithm may run RFC 6675 SACK loss recovery; the
    /// sender then owns recovery and the policy only sets the window.
    fn allows_sack_recovery(&self) -> bool {
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Tahoe,
    Reno,
    NewReno,
    Vegas,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Vegas => "vegas",
        }
    }
}

pub fn make_cc(v: Variant, cfg: &super::config::TcpConfig) -> Box<dyn CongestionControl> {
    match v {
        Variant::Tahoe => Box::new(super::tahoe::Tahoe::default()),
        Variant::Reno => Box::new(super::reno::Reno::default()),
        Variant::NewReno => Box::new(super::newreno::NewReno::new(cfg.slow_but_steady)),
        Variant::Vegas => Box::new(super::vegas::Vegas::new(cfg.vegas)),
    }
}
