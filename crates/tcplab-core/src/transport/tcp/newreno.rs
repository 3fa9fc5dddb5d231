//! TCP NewReno, RFC 6582. Recovery lasts until the ACK covers `recover` (the
//! highest byte sent when the loss was detected). A partial ACK retransmits
//! the next hole at once, deflates cwnd by the amount acknowledged and adds
//! back one MSS if at least one MSS was acknowledged; only the first partial
//! ACK restarts the retransmission timer (the "Impatient" variant the RFC
//! recommends, and ns-2.35's default), unless `slow_but_steady` is set. After a timeout `recover` is set to the highest byte sent, so
//! duplicate ACKs of data sent before the timeout do not start another fast
//! retransmit (RFC 6582 section 4.1). On the full ACK cwnd = ssthresh (the
//! RFC's second option, also ns-2's).

use super::cc::*;

#[derive(Default)]
pub struct NewReno {
    /// Highest byte + 1 sent at the last loss event; None before any loss.
    recover: Option<u64>,
    in_recovery: bool,
    partial_seen: bool,
    /// Restart the timer on every partial ACK, not only the first.
    slow_but_steady: bool,
}

impl NewReno {
    pub fn new(slow_but_steady: bool) -> Self {
        NewReno { slow_but_steady, ..Default::default() }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        if !self.in_recovery {
            w.standard_increase();
            return AckResponse::NORMAL;
        }
        if a.ack >= self.recover.unwrap_or(0) {
            self.in_recovery = false;
            w.cwnd = w.ssthresh;
            return AckResponse::NORMAL;
        }
        // Partial ACK.
        w.cwnd = w.cwnd.saturating_sub(a.acked);
        if a.acked >= w.mss {
            w.cwnd += w.mss;
        }
        w.cwnd = w.cwnd.max(w.mss);
        let first = !self.partial_seen;
        self.partial_seen = true;
        AckResponse { retransmit_head: true, restart_timer: first || self.slow_but_steady }
    }

    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse {
        if self.in_recovery {
            w.cwnd += w.mss;
            return DupResponse::None;
        }
        if a.dupacks == w.dupthresh && self.recover.is_none_or(|r| a.ack > r) {
            self.in_recovery = true;
            self.partial_seen = false;
            self.recover = Some(a.snd_max);
            w.ssthresh = w.halve(a.flight);
            w.cwnd = w.ssthresh + 3 * w.mss;
            return DupResponse::FastRetransmit;
        }
        DupResponse::None
    }

    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        self.in_recovery = false;
        self.recover = Some(a.snd_max);
        w.ssthresh = w.halve(a.flight);
        w.cwnd = w.mss;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}
