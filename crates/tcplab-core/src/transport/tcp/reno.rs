//! TCP Reno, RFC 5681 fast retransmit / fast recovery: ssthresh =
//! max(FlightSize/2, 2 MSS), cwnd = ssthresh + 3 MSS, +1 MSS per further
//! duplicate ACK (inflation), cwnd = ssthresh on the next new ACK (deflation).
//! Any new ACK ends recovery, so several losses in one window cause several
//! halvings or a timeout (Fall & Floyd 1996).
//!
//! Under the ns-2 rules (`Ns2Rules`): the loss window of ns-2's slowdown();
//! no second fast retransmit for duplicate ACKs of data sent before the last
//! fast retransmit or timeout (bugFix_), so those losses wait for the
//! timeout; the ACK that ends recovery also opens the window; a fast
//! retransmit within the window of an ECN cut does not cut again.

use super::cc::*;
use super::config::TcpConfig;

#[derive(Default)]
pub struct Reno {
    in_recovery: bool,
    /// cwnd to return to when recovery ends (the halved window, bytes).
    exit_cwnd: f64,
    /// Highest byte + 1 sent at the last fast retransmit or timeout.
    recover: Option<u64>,
    /// ns-2's bugFix_ (`Ns2Rules::reno_careful`) and how it numbers.
    careful: Option<CarefulGuard>,
    exit_growth: bool,
    /// Inflate after a refused fast retransmit (`TcpConfig::exit_fast_retrans`
    /// false, ns-2's exitFastRetrans_ false).
    inflate_refused: bool,
    /// The window is inflated by duplicates after a refused fast
    /// retransmit; `exit_cwnd` holds it uninflated.
    refused: bool,
}

impl Reno {
    pub fn new(cfg: &TcpConfig) -> Self {
        Reno {
            careful: cfg.rules.reno_careful.then(|| CarefulGuard::of(cfg, false)),
            exit_growth: cfg.rules.ns2_recovery_exit,
            inflate_refused: !cfg.exit_fast_retrans,
            ..Default::default()
        }
    }

    /// Take back the inflation of a refused fast retransmit (ns-2's
    /// dupwnd_ = 0).
    fn deflate_refused(&mut self, w: &mut CcState) {
        if self.refused {
            self.refused = false;
            w.set_cwnd(self.exit_cwnd);
        }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        if self.in_recovery {
            self.in_recovery = false;
            w.set_cwnd(self.exit_cwnd);
            if self.exit_growth {
                w.standard_increase(a.acked);
            }
        } else {
            self.deflate_refused(w);
            w.standard_increase(a.acked);
        }
        AckResponse::NORMAL
    }

    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse {
        if self.in_recovery || self.refused {
            w.cwnd += w.mss;
            DupResponse::None
        } else if a.dupacks == w.dupthresh {
            // Within an ECN cut's window ns-2 retransmits without a cut
            // whatever the guard says (newreno.rs).
            let refused = self.careful.is_some_and(|g| !g.allows(a.ack, self.recover, w.mss));
            if refused && a.ecn_recover.is_none() {
                if self.inflate_refused {
                    // ns-2's exitFastRetrans_ false: dupwnd_ = numdupacks_
                    // all the same, no cut.
                    self.refused = true;
                    self.exit_cwnd = w.cwnd_f();
                    w.set_cwnd(self.exit_cwnd + w.dupthresh as f64 * w.mss as f64);
                }
                return DupResponse::None;
            }
            self.in_recovery = true;
            self.recover = Some(a.snd_max);
            if a.ecn_recover.is_some() {
                // The window was already cut for this window's ECN echo.
                self.exit_cwnd = w.cwnd_f();
            } else {
                self.exit_cwnd = w.halved_cwnd(a.flight);
                w.ssthresh = w.halve(a.flight);
            }
            w.set_cwnd(self.exit_cwnd + 3.0 * w.mss as f64);
            DupResponse::FastRetransmit
        } else {
            DupResponse::None
        }
    }

    fn on_idle_timeout(&mut self, snd_max: u64) {
        self.recover = Some(snd_max);
    }

    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        if self.in_recovery && w.loss_from_cwnd {
            // ns-2 clears dupwnd_ first: the halved window, not the inflated.
            w.set_cwnd(self.exit_cwnd);
        }
        self.deflate_refused(w);
        self.in_recovery = false;
        self.recover = Some(a.snd_max);
        if a.ecn_recover.is_none() {
            w.ssthresh = w.halve(a.flight);
        }
        w.cwnd = w.mss;
    }

    fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    fn uninflated_cwnd(&self, w: &CcState) -> f64 {
        if self.in_recovery || self.refused {
            self.exit_cwnd
        } else {
            w.cwnd_f()
        }
    }

    fn end_recovery_after_ecn_cut(&mut self, _w: &mut CcState, _a: &AckInfo) {
        self.in_recovery = false;
    }
}
