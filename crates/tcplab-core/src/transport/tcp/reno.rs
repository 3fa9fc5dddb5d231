//! TCP Reno, RFC 5681 fast retransmit / fast recovery: ssthresh =
//! max(FlightSize/2, 2 MSS), cwnd = ssthresh + 3 MSS, +1 MSS per further
//! duplicate ACK (inflation), cwnd = ssthresh on the next new ACK (deflation).
//! Any new ACK ends recovery, so several losses in one window cause several
//! halvings or a timeout (Fall & Floyd 1996).

use super::cc::*;

#[derive(Default)]
pub struct Reno {
    in_recovery: bool,
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_new_ack(&mut self, w: &mut CcState, _a: &AckInfo) -> AckResponse {
        if self.in_recovery {
            self.in_recovery = false;
            w.cwnd = w.ssthresh;
        } else {
            w.standard_increase();
        }
        AckResponse::NORMAL
    }

    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse {
        if self.in_recovery {
            w.cwnd += w.mss;
            DupResponse::None
        } else if a.dupacks == w.dupthresh {
            self.in_recovery = true;
            w.ssthresh = w.halve(a.flight);
            w.cwnd = w.ssthresh + 3 * w.mss;
            DupResponse::FastRetransmit
        } else {
            DupResponse::None
        }
    }

    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        self.in_recovery = false;
        w.ssthresh = w.halve(a.flight);
        w.cwnd = w.mss;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}
