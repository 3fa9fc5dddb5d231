//! TCP Tahoe (Jacobson 1988, as ns-2's Agent/TCP): on the third duplicate ACK
//! retransmit and slow-start from one segment, going back N. As ns-2 with
//! bugFix_, no new fast retransmit for duplicate ACKs of data sent before the
//! last loss event (they are echoes of the go-back-N retransmissions).

use super::cc::*;
use super::config::TcpConfig;

#[derive(Default)]
pub struct Tahoe {
    /// Highest byte + 1 sent at the last loss event; None before any loss.
    recover: Option<u64>,
    /// A timeout keeps the duplicate-ACK count (`tahoe_timeout_dupacks`).
    keep_dupacks: bool,
    /// ns-2's bugFix_ (`TcpConfig::tahoe_careful`): no fast retransmit at
    /// or below `recover`.
    careful: Option<CarefulGuard>,
}

impl Tahoe {
    pub fn new(cfg: &TcpConfig) -> Self {
        let careful = cfg.tahoe_careful.then(|| CarefulGuard::of(cfg, false));
        Tahoe { recover: None, keep_dupacks: cfg.rules.tahoe_timeout_dupacks, careful }
    }
}

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }

    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        w.standard_increase(a.acked);
        AckResponse::NORMAL
    }

    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse {
        if a.dupacks != w.dupthresh {
            return DupResponse::None;
        }
        if let Some(g) = a.ecn_recover {
            // Within the window of an ECN cut, the last congestion action
            // (ns-2's TcpAgent::dupack_action(): recover_ is the cut's): go
            // back to the hole with cwnd one segment, ssthresh as the cut
            // left it (slowdown(CLOSE_CWND_ONE)).
            self.recover = Some(g);
        } else if self.careful.is_none_or(|g| g.allows(a.ack, self.recover, w.mss)) {
            // bugFix_ false: TcpAgent::dupack_action() reaches tahoe_action
            // whatever recover_ says.
            self.recover = Some(a.snd_max);
            w.ssthresh = w.halve(a.flight);
        } else {
            return DupResponse::None;
        }
        // One segment exactly (ns-2's slowdown(CLOSE_CWND_ONE) sets cwnd_ =
        // 1): congestion avoidance's fraction of a byte goes too, or the
        // next climb crosses each whole segment an ACK early.
        w.cwnd = w.mss;
        w.ca_frac = 0.0;
        DupResponse::FastRetransmitGoBackN
    }

    fn on_idle_timeout(&mut self, snd_max: u64) {
        self.recover = Some(snd_max);
    }

    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        self.recover = Some(a.snd_max);
        // After an ECN cut, ns-2's TcpAgent::timeout() keeps ssthresh.
        if a.ecn_recover.is_none() {
            w.ssthresh = w.halve(a.flight);
        }
        w.cwnd = w.mss;
    }

    /// ns-2's TcpAgent::timeout() does not clear dupacks_ (its Reno,
    /// NewReno, Sack1 and Vegas agents do): the duplicates that follow a
    /// timeout go on counting from where they were.
    fn keeps_dupacks_on_timeout(&self) -> bool {
        self.keep_dupacks
    }

    /// Tahoe predates SACK: its recovery is always slow start.
    fn allows_sack_recovery(&self) -> bool {
        false
    }
}
