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
    /// The fraction of a byte of cwnd below `cwnd` that congestion avoidance
    /// has accumulated: cwnd += MSS*MSS/cwnd per ACK is computed on cwnd +
    /// ca_frac in floating point, as ns-2 grows its fractional cwnd_ (in
    /// segments), so that the window crosses whole segments on the same ACK.
    /// With `count_acked` (Linux's growth) instead the segments acknowledged
    /// towards the next whole segment (the kernel's snd_cwnd_cnt, an
    /// integer); either is cleared where the window is reduced.
    pub ca_frac: f64,
    /// The receiver's advertised window (bytes), kept current by the sender.
    pub rwnd: u64,
    /// ns-2's loss response (`Ns2Rules::loss_window_from_cwnd`).
    pub loss_from_cwnd: bool,
    /// No window increase on the ACK being handled (an ECN echo).
    pub hold: bool,
    /// A halved cwnd may fall below one segment (`Ns2Rules::cwnd_below_one`).
    pub below_one: bool,
    /// The halving keeps the fraction of a segment (`TcpConfig::precision_reduce`).
    pub precise_half: bool,
    /// Growth counts the segments an ACK covers (`TcpConfig::count_acked`).
    pub count_acked: bool,
    /// With `TcpConfig::max_cwnd` M: (M + 1) segments, the window at which
    /// an increase is cut back to M (ns-2's opencwnd(): int(cwnd_) >
    /// maxcwnd_); `u64::MAX` without a cap, so an ACK pays one compare.
    pub cap_at: u64,
}

impl CcState {
    /// Slow start: +1 MSS per new ACK (ns-2 and RFC 5681 without ABC);
    /// congestion avoidance: +MSS*MSS/cwnd per new ACK. With `count_acked`
    /// (Linux) each is per segment the ACK covers (`acked` bytes).
    #[inline(always)]
    pub fn standard_increase(&mut self, acked: u64) {
        if self.hold {
            return;
        }
        if self.count_acked {
            self.increase_by_segments(acked);
        } else if self.cwnd < self.ssthresh {
            self.cwnd += self.mss;
        } else {
            // Through i64: the same values (a window is far below 2^63)
            // with one conversion instruction each way instead of the
            // unsigned sequences, on the ACK's critical path.
            let c = self.cwnd as i64 as f64 + self.ca_frac;
            let next = c + (self.mss * self.mss) as i64 as f64 / c;
            self.cwnd = next as i64 as u64;
            self.ca_frac = next - self.cwnd as i64 as f64;
        }
        if self.cwnd >= self.cap_at {
            self.cwnd = self.cap_at - self.mss;
            self.ca_frac = 0.0;
        }
    }

    /// Linux's growth by the segments an ACK covers (a short segment counts
    /// as one, as a packet does there): slow start up to ssthresh
    /// (tcp_slow_start(): cwnd = min(cwnd + acked, ssthresh)), the segments
    /// left over in congestion avoidance (tcp_cong_avoid_ai(): one whole
    /// segment per cwnd segments acknowledged, counted in `ca_frac`, which
    /// holds the kernel's integer snd_cwnd_cnt here). Until 2026-12-07 the
    /// window grew by MSS*MSS/cwnd per segment on a fractional window:
    /// the same rate, but a loss then halved a window a fraction of a
    /// segment below the kernel's whole one, and ssthresh came out a
    /// segment lower (22 against 23 segments in
    /// `validation/kernel_series.py`'s reno case).
    #[inline(never)]
    fn increase_by_segments(&mut self, acked: u64) {
        let mut segs = acked.div_ceil(self.mss).max(1);
        if self.cwnd < self.ssthresh {
            let grown = (self.cwnd + segs * self.mss).min(self.ssthresh);
            segs -= (grown - self.cwnd).div_ceil(self.mss).min(segs);
            self.cwnd = grown;
        }
        if segs > 0 {
            let w = (self.cwnd / self.mss).max(1) as f64;
            // Credits accumulated at a larger window are applied first.
            if self.ca_frac >= w {
                self.ca_frac = 0.0;
                self.cwnd += self.mss;
            }
            self.ca_frac += segs as f64;
            if self.ca_frac >= w {
                let d = (self.ca_frac / w).floor();
                self.ca_frac -= d * w;
                self.cwnd += d as u64 * self.mss;
            }
        }
        if self.cwnd >= self.cap_at {
            self.cwnd = self.cap_at - self.mss;
            self.ca_frac = 0.0;
        }
    }

    /// ssthresh after a loss. RFC 5681 (4): max(FlightSize / 2, 2 * SMSS);
    /// ns-2.35 (slowdown()): half of min(cwnd, rwnd) in whole segments, at
    /// least 2.
    pub fn halve(&self, flight: u64) -> u64 {
        if self.loss_from_cwnd {
            (self.cwnd.min(self.rwnd) / self.mss / 2).max(2) * self.mss
        } else {
            (flight / 2).max(2 * self.mss)
        }
    }

    /// cwnd after a loss, before any inflation: ssthresh under RFC 5681;
    /// exactly half of min(cwnd, rwnd) in ns-2.35, whose cwnd_ is fractional
    /// (at least one segment). In bytes, with the fraction of a byte.
    pub fn halved_cwnd(&self, flight: u64) -> f64 {
        if self.loss_from_cwnd {
            let half = if self.precise_half {
                (self.cwnd as f64 + self.ca_frac).min(self.rwnd as f64) / 2.0
            } else {
                // ns-2 without precisionReduce_: int(window() / 2), window()
                // being min(cwnd_, wnd_) in whole segments.
                ((self.cwnd.min(self.rwnd) / self.mss / 2) * self.mss) as f64
            };
            if self.below_one {
                half
            } else {
                half.max(self.mss as f64)
            }
        } else {
            self.halve(flight) as f64
        }
    }

    /// cwnd (bytes) and its fraction of a byte: cwnd + ca_frac.
    pub fn cwnd_f(&self) -> f64 {
        self.cwnd as f64 + self.ca_frac
    }

    /// Set cwnd to `bytes`, keeping the fraction of a byte.
    pub fn set_cwnd(&mut self, bytes: f64) {
        self.cwnd = bytes as u64;
        self.ca_frac = bytes - self.cwnd as f64;
    }
}

#[cfg(test)]
impl CcState {
    /// A window as the linux profile keeps it (growth per segment, no
    /// ns-2 rules), `cwnd` and `ssthresh` in segments of `mss` bytes: the
    /// Linux modules' unit tests start from it.
    pub(crate) fn linux_test(cwnd: u64, ssthresh: u64, mss: u64) -> Self {
        CcState {
            cwnd: cwnd * mss,
            ssthresh: ssthresh * mss,
            mss,
            dupthresh: 3,
            ca_frac: 0.0,
            rwnd: u64::MAX / 4,
            loss_from_cwnd: false,
            hold: false,
            below_one: false,
            precise_half: false,
            count_acked: true,
            cap_at: u64::MAX,
        }
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
    /// With the `ecn_hold` rule, when the ACK falls within the window of
    /// an ECN cut (ns-2's last_cwnd_action_ == CWND_ACTION_ECN): the highest
    /// byte + 1 sent at that cut. A fast retransmit or timeout then leaves
    /// ssthresh alone.
    pub ecn_recover: Option<u64>,
    pub now: crate::engine::Time,
    /// Next new byte the sender will send (ns-2's t_seqno_ in bytes).
    pub snd_nxt: u64,
    /// (send time, transmissions) of the highest segment this ACK covers.
    pub acked_seg: Option<(crate::engine::Time, u32)>,
    /// (send time, transmissions) of the first unacknowledged segment.
    pub head_seg: Option<(crate::engine::Time, u32)>,
    /// When the first data segment was last sent (ns-2's firstsent_, the
    /// origin of its Vegas clock); kept only with the per-segment log.
    pub first_sent: Option<crate::engine::Time>,
    /// On a duplicate ACK: ns-2's heuristics (`TcpConfig::bugfix_ts`,
    /// `bugfix_ack`) would let a fast retransmit through that the careful
    /// guard refuses. Always false with both off.
    pub heuristic: bool,
}

/// One ACK as Linux's `in_ack_event()` sees it (Westwood+'s bandwidth
/// sum), before the ACK's own processing.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent {
    pub now: crate::engine::Time,
    /// snd_una after this ACK.
    pub snd_una: u64,
    /// The ACK missed Linux's header prediction (CA_ACK_SLOWPATH): it
    /// acknowledges nothing new, or carries SACK blocks, an ECN echo or a
    /// new window.
    pub slow: bool,
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

/// The careful variant's test before a fast retransmit (RFC 6582, ns-2's
/// bugFix_): may duplicate ACKs of `ack` start one, given `recover`, the
/// highest byte + 1 sent at the last fast retransmit or timeout (`None`
/// before any)? Only data sent after that loss event can.
#[derive(Clone, Copy, Debug)]
pub struct CarefulGuard {
    /// Compare ns-2's packet numbers (`Ns2Rules::ns2_recover_numbers`).
    pub ns2_numbers: bool,
    /// The connection opened with a SYN (`TcpConfig::syn`): ns-2 numbers
    /// it packet 0.
    pub syn: bool,
    /// Also let duplicates of exactly `recover` through (ns-2's
    /// lessCareful_).
    pub less_careful: bool,
    /// With `ns2_numbers`, let duplicates through while highest_ack_ is 0
    /// (ns-2's bugfix_ss_, `TcpConfig::bugfix_ss`).
    pub bugfix_ss: bool,
}

impl CarefulGuard {
    /// The guard of a careful variant under `cfg`'s rules.
    pub fn of(cfg: &super::config::TcpConfig, less_careful: bool) -> Self {
        CarefulGuard {
            ns2_numbers: cfg.rules.ns2_recover_numbers,
            syn: cfg.syn,
            less_careful,
            bugfix_ss: cfg.bugfix_ss,
        }
    }

    pub fn allows(self, ack: u64, recover: Option<u64>, mss: u64) -> bool {
        if !self.ns2_numbers {
            return recover.is_none_or(|r| ack > r || (self.less_careful && ack == r));
        }
        // ns-2's dupack_action() compares highest_ack_, the last packet
        // acknowledged, with recover_, maxseq_ at the last loss event or
        // 0 before any. Packets are numbered from the SYN when there is
        // one (the first data segment is packet 1), else from the first
        // data segment; so with no SYN and nothing acknowledged
        // (highest_ack_ -1) none may start. bugfix_ss_ lets one through
        // while highest_ack_ is 0.
        let first = if self.syn { 0 } else { 1 };
        let highest_ack = (ack / mss) as i64 - first;
        let recover = recover.map_or(0, |r| r.div_ceil(mss) as i64 - first);
        highest_ack > recover || (self.bugfix_ss && highest_ack == 0) || (self.less_careful && highest_ack == recover)
    }
}

pub trait CongestionControl: Send {
    fn name(&self) -> &'static str;
    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse;
    fn on_dupack(&mut self, w: &mut CcState, a: &AckInfo) -> DupResponse;
    /// Retransmission timeout: set the loss window; the sender goes back N.
    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo);
    /// A timeout that keeps the ssthresh of the reduction under way
    /// (`LossRecovery::keeps_cut_on_timeout`; the recovery puts it back):
    /// Linux tells the module nothing then (no CA_EVENT_LOSS).
    fn on_timeout_keeping_cut(&mut self, w: &mut CcState, a: &AckInfo) {
        self.on_timeout(w, a)
    }
    fn in_recovery(&self) -> bool {
        false
    }
    /// cwnd without the fast-recovery inflation (ns-2's cwnd_ beside
    /// dupwnd_), in bytes with the fraction.
    fn uninflated_cwnd(&self, w: &CcState) -> f64 {
        w.cwnd_f()
    }
    /// An ECN cut (`on_ecn`, of the inflated window) was made on the new ACK
    /// that ends fast recovery (`ecn_in_recovery`): leave recovery with cwnd
    /// as the cut left it, as ns-2's recv() does after its ecn(), clearing
    /// dupwnd_ with no increase on the echoing ACK.
    fn end_recovery_after_ecn_cut(&mut self, _w: &mut CcState, _a: &AckInfo) {}
    /// A new ACK whose ECN echo has just cut the window (RFC 3168: no
    /// growth on it). By default the policy does nothing more with it; a
    /// policy with per-ACK bookkeeping of its own (Vegas: RTT samples, the
    /// duplicate count, the worried ACKs) keeps that up here.
    fn on_new_ack_after_ecn_cut(&mut self, _w: &mut CcState, _a: &AckInfo) -> AckResponse {
        AckResponse::NORMAL
    }
    /// The sender set cwnd from outside (ns-2's delay_growth_ for Vegas):
    /// a policy with its own window takes it over.
    fn window_set(&mut self, _w: &CcState) {}
    /// ns-2's retransmission timer expired with nothing outstanding
    /// (`IdleRestart::Ns2Timer`): its timeout() sets recover_ = maxseq_
    /// there too, so duplicates of the data sent so far start no fast
    /// retransmit under the careful guard.
    fn on_idle_timeout(&mut self, _snd_max: u64) {}
    /// Whether each expiry of that timer with nothing outstanding is a
    /// timeout like any other (`on_timeout`, the timer backed off, counted):
    /// ns-2's Vegas agent has its own timeout(), which returns early only
    /// without slow_start_restart_ (on by default) and lacks TcpAgent's
    /// branch for an idle sender (restart_bugfix_).
    fn idle_expiry_is_timeout(&self) -> bool {
        false
    }
    /// Whether a fast retransmit also backs off the retransmission timer
    /// (ns-2's Vegas calls reset_rtx_timer(1), whose backoff defaults to 1).
    fn backs_off_on_fast_retransmit(&self) -> bool {
        false
    }
    /// Whether the first duplicate ACKs below the threshold may send new
    /// data (Limited Transmit, when the configuration has it): ns-2's Vegas
    /// agent never sends on them.
    fn allows_limited_transmit(&self) -> bool {
        true
    }
    /// Whether a retransmission of the first unacknowledged segment leaves
    /// the next new segment to send where it was, so that a segment at that
    /// point goes out again (ns-2's Vegas retransmits with output(), which
    /// does not move t_seqno_; send_much() then sends from t_seqno_), and
    /// may retransmit at that point when nothing is outstanding.
    fn retransmit_keeps_next(&self) -> bool {
        false
    }
    /// Whether an ECN flow's segments go out ECN-capable (ECT): ns-2's
    /// Vegas agent sends with its own output(), which sets no ECN flag, so
    /// a router drops its segments where it would mark an ECN flow's and
    /// no echo ever comes back.
    fn sends_ect(&self) -> bool {
        true
    }
    /// Whether a timeout leaves the sender's duplicate-ACK count as it was
    /// (ns-2's Tahoe, `Ns2Rules::tahoe_timeout_dupacks`).
    fn keeps_dupacks_on_timeout(&self) -> bool {
        false
    }
    /// Whether a new ACK for `ack` is a partial ACK: recovery goes on.
    fn is_partial_ack(&self, _ack: u64) -> bool {
        false
    }
    /// ssthresh after a loss detected by SACK recovery (RFC 6675 uses the
    /// RFC 5681 rule; other algorithms may choose another factor).
    fn ssthresh_on_loss(&mut self, w: &CcState, flight: u64) -> u64 {
        w.halve(flight)
    }
    /// An ACK's delay sample, as Linux hands it to the module's
    /// `pkts_acked()` (CUBIC's HyStart); only asked of policies whose
    /// `wants_delay_samples` is true.
    fn on_delay_sample(&mut self, _w: &mut CcState, _s: &super::cubic::DelaySample) {}
    fn wants_delay_samples(&self) -> bool {
        false
    }
    /// Every ACK at or above snd_una, before its processing (Linux's
    /// `in_ack_event()`); only sent to policies whose `wants_ack_events`
    /// is true.
    fn on_ack_event(&mut self, _w: &CcState, _e: &AckEvent) {}
    fn wants_ack_events(&self) -> bool {
        false
    }
    /// The connection opens at `now` with `snd_una` (the module's init()).
    fn on_open(&mut self, _now: crate::engine::Time, _snd_una: u64) {}
    /// A recovery or CWR state ends (Linux's CA_EVENT_COMPLETE_CWR, after
    /// `tcp_end_cwnd_reduction()`, an undone recovery's end included).
    fn on_cwr_complete(&mut self, _w: &mut CcState) {}
    /// New data leaves at `now` with nothing in flight, the last data
    /// having left at `last_send` (Linux's CA_EVENT_TX_START).
    fn on_tx_start(&mut self, _now: crate::engine::Time, _last_send: crate::engine::Time) {}
    /// ECN-Echo (RFC 3168 6.1.2): halve like a loss, without retransmitting.
    /// The sender calls this at most once per window of data.
    fn on_ecn(&mut self, w: &mut CcState, a: &AckInfo) {
        let cwnd = w.halved_cwnd(a.flight);
        w.ssthresh = self.ssthresh_on_loss(w, a.flight);
        if w.loss_from_cwnd {
            // ns-2's slowdown() sets cwnd_ = windowd() / 2: the exact half,
            // its fraction of a byte kept as after a loss.
            w.set_cwnd(cwnd);
        } else {
            w.cwnd = w.ssthresh.max(w.mss);
            w.ca_frac = 0.0;
        }
    }
    /// A data segment [seq, seq + len) is put on the wire at `now` (new or
    /// again). Vegas keeps ns-2's send-time slots from it. Called only for
    /// policies whose `times_segments` is true (the sender asks that once).
    fn on_send(&mut self, _w: &CcState, _seq: u64, _len: u32, _now: crate::engine::Time) {}
    /// Whether the policy restarts a sender stalled by a window below one
    /// segment in its own timeout (ns-2's Vegas agent does, with two
    /// segments); otherwise the sender restarts it at one segment
    /// (`Ns2Rules::cwnd_below_one`).
    fn owns_stall(&self) -> bool {
        false
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
    /// A congestion control that sets the window and a pacing rate from
    /// delivery-rate samples after every ACK (Linux's `cong_control`):
    /// the sender then samples, paces, and leaves the window alone.
    fn rate_based(&mut self) -> Option<&mut super::bbr::Bbr> {
        None
    }
    /// The same, to read (reports).
    fn bbr(&self) -> Option<&super::bbr::Bbr> {
        None
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Tahoe,
    Reno,
    NewReno,
    Vegas,
    Cubic,
    Westwood,
    Bbr,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Tahoe => "tahoe",
            Variant::Reno => "reno",
            Variant::NewReno => "newreno",
            Variant::Vegas => "vegas",
            Variant::Cubic => "cubic",
            Variant::Westwood => "westwood",
            Variant::Bbr => "bbr",
        }
    }
}

pub fn make_cc(v: Variant, cfg: &super::config::TcpConfig) -> Box<dyn CongestionControl> {
    match v {
        Variant::Tahoe => Box::new(super::tahoe::Tahoe::new(cfg)),
        Variant::Reno => Box::new(super::reno::Reno::new(cfg)),
        Variant::NewReno => Box::new(super::newreno::NewReno::new(cfg)),
        Variant::Vegas => Box::new(
            super::vegas::Vegas::new(
                cfg.vegas,
                cfg.rules.ns2_vegas,
                cfg.rules.ns2_vegas_slots,
                cfg.rules.vegas_zero_window,
            )
            .with_ecn(cfg.rules.vegas_ecn),
        ),
        Variant::Cubic => Box::new(super::cubic::Cubic::new(cfg.cubic)),
        Variant::Westwood => Box::new(super::westwood::Westwood::new(cfg.westwood)),
        Variant::Bbr => {
            let mss = cfg.mss as u64;
            Box::new(super::bbr::Bbr::new(cfg.bbr, mss, cfg.initial_cwnd() / mss))
        }
    }
}
