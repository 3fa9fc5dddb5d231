//! TCP NewReno, RFC 6582. Recovery lasts until the ACK covers `recover` (the
//! highest byte sent when the loss was detected). A partial ACK retransmits
//! the next hole at once, deflates cwnd by the amount acknowledged and adds
//! back one MSS if at least one MSS was acknowledged; only the first partial
//! ACK restarts the retransmission timer (the "Impatient" variant the RFC
//! recommends, and ns-2.35's default), unless `slow_but_steady` is set. After a timeout `recover` is set to the highest byte sent, so
//! duplicate ACKs of data sent before the timeout do not start another fast
//! retransmit (RFC 6582 section 4.1). On the full ACK cwnd = ssthresh (the
//! RFC's second option, also ns-2's).
//!
//! Under the ns-2 rules (`Ns2Rules`): ns-2's loss window (slowdown()), the
//! ACK that ends recovery also opens the window, and a fast retransmit
//! within the window of an ECN cut does not cut again.

use super::cc::*;
use super::config::TcpConfig;

#[derive(Default)]
pub struct NewReno {
    /// Highest byte + 1 sent at the last loss event; None before any loss.
    recover: Option<u64>,
    in_recovery: bool,
    partial_seen: bool,
    /// Restart the timer on every partial ACK, not only the first.
    slow_but_steady: bool,
    /// cwnd to return to when recovery ends (the halved window, bytes).
    exit_cwnd: f64,
    /// ns-2's dupwnd_: the part of cwnd that is inflation (bytes).
    dupwnd: u64,
    exit_growth: bool,
    /// A partial ACK takes back all the inflation (ns-2's
    /// partial_window_deflation_ 0; `TcpConfig::partial_window_deflation`).
    whole_deflation: bool,
    /// No fast retransmit for duplicates of data sent before the last
    /// one or timeout (ns-2's bugFix_; `TcpConfig::newreno_careful`), with
    /// ns-2's lessCareful_ (`TcpConfig::less_careful`).
    careful: Option<CarefulGuard>,
    /// ns-2's exit_recovery_fix_ (`TcpConfig::exit_recovery_fix`).
    exit_fix: bool,
    /// Inflate after a refused fast retransmit (`TcpConfig::exit_fast_retrans`
    /// false, ns-2's exitFastRetrans_ false).
    inflate_refused: bool,
    /// The window is inflated by duplicates (`dupwnd`) after a refused
    /// fast retransmit, outside recovery.
    refused: bool,
}

impl NewReno {
    pub fn new(cfg: &TcpConfig) -> Self {
        NewReno {
            slow_but_steady: cfg.slow_but_steady,
            whole_deflation: !cfg.partial_window_deflation,
            exit_growth: cfg.rules.ns2_recovery_exit,
            careful: cfg.newreno_careful.then(|| CarefulGuard::of(cfg, cfg.less_careful)),
            exit_fix: cfg.exit_recovery_fix,
            inflate_refused: !cfg.exit_fast_retrans,
            ..Default::default()
        }
    }
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        if !self.in_recovery {
            if self.refused {
                // ns-2: dupwnd_ > 0 after a refused fast retransmit
                // (exitFastRetrans_ false) goes as on leaving recovery.
                self.refused = false;
                if self.exit_fix {
                    let outstanding = a.snd_max.saturating_sub(a.ack) / w.mss + 1;
                    w.set_cwnd(w.ssthresh.min(outstanding * w.mss) as f64);
                } else {
                    w.set_cwnd((w.cwnd_f() - self.dupwnd as f64).max(w.mss as f64));
                }
                self.dupwnd = 0;
            }
            w.standard_increase(a.acked);
            return AckResponse::NORMAL;
        }
        if a.ack >= self.recover.unwrap_or(0) {
            self.in_recovery = false;
            if self.exit_fix && self.dupwnd > 0 {
                // ns-2's exit_recovery_fix_ (only while dupwnd_ > 0):
                // cwnd_ = min(ssthresh_, maxseq_ - ack + 1), in segments,
                // then the ACK's increase (recv_newack_helper()).
                let outstanding = a.snd_max.saturating_sub(a.ack) / w.mss + 1;
                w.set_cwnd(w.ssthresh.min(outstanding * w.mss) as f64);
                self.dupwnd = 0;
                if self.exit_growth {
                    w.standard_increase(a.acked);
                }
            } else if self.exit_growth {
                // ns-2: dupwnd_ = 0 leaves cwnd_, then opencwnd().
                w.set_cwnd((w.cwnd_f() - self.dupwnd as f64).max(w.mss as f64));
                w.standard_increase(a.acked);
            } else {
                w.set_cwnd(self.exit_cwnd);
            }
            return AckResponse::NORMAL;
        }
        let first = !self.partial_seen;
        self.partial_seen = true;
        let response = AckResponse { retransmit_head: true, restart_timer: first || self.slow_but_steady };
        if self.whole_deflation {
            // ns-2 with partial_window_deflation_ 0: dupwnd_ = 0, the window
            // back to cwnd_ (further duplicates inflate it again).
            w.set_cwnd((w.cwnd_f() - self.dupwnd as f64).max(w.mss as f64));
            self.dupwnd = 0;
            return response;
        }
        // Partial ACK: deflate by the amount acknowledged, add one segment
        // back (ns-2's partial_window_deflation_ takes it from dupwnd_
        // first, then from cwnd_).
        w.cwnd = w.cwnd.saturating_sub(a.acked);
        if a.acked >= w.mss {
            w.cwnd += w.mss;
        }
        w.cwnd = w.cwnd.max(w.mss);
        self.dupwnd = if self.dupwnd > a.acked { self.dupwnd - a.acked + w.mss } else { w.mss };
        response
    }

    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse {
        if self.in_recovery || self.refused {
            w.cwnd += w.mss;
            self.dupwnd += w.mss;
            return DupResponse::None;
        }
        // The careful variant's guard (no fast retransmit for duplicates of
        // data sent before the last recovery or timeout) does not hold
        // within an ECN cut's window: ns-2's dupack_action() retransmits
        // there, without a cut, when the ECN cut was the last congestion
        // action, also after a timeout (`ecn_after_timeout`).
        // ns-2's bugFix_ false (`newreno_careful` off) drops the guard;
        // lessCareful_ lets through duplicates acknowledging exactly the
        // highest byte sent at the last fast retransmit or timeout.
        // ns-2's bugFix_ts_ and bugFix_ack_ heuristics (`a.heuristic`)
        // let through what the guard refuses.
        let allowed =
            self.careful.is_none_or(|g| g.allows(a.ack, self.recover, w.mss)) || a.ecn_recover.is_some() || a.heuristic;
        if a.dupacks == w.dupthresh && allowed {
            self.in_recovery = true;
            self.partial_seen = false;
            if let Some(r) = a.ecn_recover {
                // The window was already cut for this window's ECN echo;
                // ns-2 keeps recover_ from that cut.
                self.recover = Some(r);
                self.exit_cwnd = w.cwnd_f();
            } else {
                self.recover = Some(a.snd_max);
                self.exit_cwnd = w.halved_cwnd(a.flight);
                w.ssthresh = w.halve(a.flight);
            }
            w.set_cwnd(self.exit_cwnd + 3.0 * w.mss as f64);
            self.dupwnd = 3 * w.mss;
            return DupResponse::FastRetransmit;
        }
        if a.dupacks == w.dupthresh && self.inflate_refused {
            // ns-2's exitFastRetrans_ false: dupwnd_ = numdupacks_ after
            // the refused fast retransmit all the same, no cut.
            self.refused = true;
            self.dupwnd = w.dupthresh as u64 * w.mss;
            w.cwnd += self.dupwnd;
        }
        DupResponse::None
    }

    fn on_idle_timeout(&mut self, snd_max: u64) {
        self.recover = Some(snd_max);
    }

    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        if (self.in_recovery || self.refused) && w.loss_from_cwnd {
            // ns-2 clears dupwnd_ first: cwnd_ without the inflation.
            w.set_cwnd((w.cwnd_f() - self.dupwnd as f64).max(w.mss as f64));
        }
        self.refused = false;
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
            w.cwnd_f() - self.dupwnd as f64
        } else {
            w.cwnd_f()
        }
    }

    fn end_recovery_after_ecn_cut(&mut self, w: &mut CcState, a: &AckInfo) {
        self.in_recovery = false;
        if self.exit_fix && self.dupwnd > 0 {
            // exit_recovery_fix_ runs while dupwnd_ > 0, which ecn() left.
            let outstanding = a.snd_max.saturating_sub(a.ack) / w.mss + 1;
            w.set_cwnd(w.ssthresh.min(outstanding * w.mss) as f64);
        }
        self.dupwnd = 0;
    }

    fn is_partial_ack(&self, ack: u64) -> bool {
        self.in_recovery && ack < self.recover.unwrap_or(0)
    }
}
