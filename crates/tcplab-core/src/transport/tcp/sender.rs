//! The TCP sender: byte sequence numbers, MSS segmentation, the send window
//! min(cwnd, rwnd), duplicate-ACK counting, RTT timing of one segment per
//! window with Karn's rule, the RFC 6298 timer, go-back-N after a timeout and
//! abort after too many retransmissions. No handshake: like ns-2's one-way
//! agents the connection starts established, with sequence number 0.

use super::adaptive_pacing::AdaptivePacing;
use super::averages::{TimeAverages, WindowAverages};
use super::cc::{AckInfo, CcState, CongestionControl};
use super::config::{IdleRestart, Nagle, TcpConfig};
use super::idle::{self, IdleState, SentPacket};
use super::jiffies::goes_off;
use super::linux_reno::LinuxRenoRecovery;
use super::rack::{Rack, RackRecovery};
use super::rate::Pacing;
use super::recovery::{DupAckRecovery, LossRecovery, SackRecovery};
use super::rto::RtoEstimator;
use super::sack::Scoreboard;
use super::sack1::Sack1Recovery;
use super::tso_defer::{self, Decision, TsoState};
use crate::engine::Time;
use crate::packet::{flags, TcpHeader};

/// A segment ready for the wire: its complete TCP header and the facts the
/// IP layer and the traces need.
#[derive(Clone, Copy, Debug)]
pub struct OutSegment {
    pub header: TcpHeader,
    pub payload: u32,
    /// ECN-capable transport (ECT(0)) in the IP header.
    pub ect: bool,
    pub retransmit: bool,
    /// Its wire size is its payload alone (`Ns2Rules::ns2_headerless_first`).
    pub headerless: bool,
}

/// A segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    pub retransmit: bool,
    /// ECN-capable transport (ECT(0)) in the IP header.
    pub ect: bool,
    /// CWR flag: the sender has reduced its window after an ECE.
    pub cwr: bool,
}

#[derive(Clone, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    /// Segments sent again (fast retransmits, partial-ACK and go-back-N resends).
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Window reductions for ECN-Echo.
    pub ecn_reductions: u64,
    /// Retransmissions triggered by the ELN bit (no congestion response).
    pub eln_retransmits: u64,
    pub acks_received: u64,
    pub dupacks_received: u64,
}

/// One transmitted segment, for algorithms that time every segment (Vegas,
/// CUBIC's delay samples, Linux's RTT samples) and for RACK, whose marks
/// are Linux's per-segment scoreboard bits (`tcp_skb_cb.sacked`).
#[derive(Clone, Copy, Debug)]
pub(super) struct SentSeg {
    pub(super) seq: u64,
    pub(super) end: u64,
    /// The last transmission's time.
    pub(super) time: Time,
    pub(super) transmits: u32,
    /// RACK's marks: SACKed (TCPCB_SACKED_ACKED), marked lost (TCPCB_LOST),
    /// and a retransmission in flight (TCPCB_SACKED_RETRANS).
    pub(super) sacked: bool,
    pub(super) lost: bool,
    pub(super) rtx_out: bool,
}

/// `repr(C, align(64))`, in this order: what an ACK and the segments it
/// releases read and write (sequence numbers, window, timers, the flags of
/// features that are off, the counters, the RTO estimator, then the
/// configuration, whose hot fields lead) fills the first nine of thirteen
/// lines; SACK, ECN and ELN state follow. In Rust's own order an ACK
/// touched eleven or twelve lines of the 792-byte struct, which at a
/// thousand flows are cache misses (docs/architecture.md, "A flow's state
/// in fewer lines").
#[repr(C, align(64))]
pub struct TcpSender {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Receiver's advertised window.
    pub(super) rwnd: u64,
    /// Segments Limited Transmit may send beyond cwnd (one per early dupack).
    pub(super) limited_extra: u64,
    /// Bytes sent beyond cwnd under Limited Transmit since the last new ACK:
    /// RFC 5681 3.2 keeps them out of the FlightSize that sets ssthresh.
    pub(super) limited_bytes: u64,
    /// Time of the event being handled (for AckInfo).
    pub(super) now: Time,
    /// Bytes the application has handed over so far.
    app_written: u64,
    pub w: CcState,
    /// Total bytes the application will write; None = unlimited (bulk).
    app_total: Option<u64>,
    /// (sequence number whose ACK ends the measurement, send time).
    rtt_timing: Option<(u64, Time)>,
    pub(super) rto_deadline: Option<Time>,
    /// With the `ecn_hold` rule: the guard of the last ECN cut while that
    /// cut is the last congestion action (a fast retransmit or a timeout
    /// clears it), as ns-2's last_cwnd_action_ == CWND_ACTION_ECN.
    pub(super) ecn_action: Option<u64>,
    /// With `ecn_after_timeout`: the last congestion action was a timeout
    /// (ns-2's last_cwnd_action_ == CWND_ACTION_TIMEOUT); an ECN cut or a
    /// fast retransmit clears it.
    timeout_last: bool,
    /// With `ecn_backoff`: ns-2's ecn_backoff_ (an ECN cut at a window of
    /// one segment) and ect_ (a new ACK with ECE has been seen).
    ecn_backoff: bool,
    ecn_seen: bool,
    /// ns-2's Vegas agent has no SYN: with `syn` its first data segment
    /// goes alone (cwnd 1) and the second new ACK sets the initial window.
    /// The new ACKs counted so far while that is pending.
    vegas_delay_growth: Option<u32>,
    pub(super) cc: Box<dyn CongestionControl>,
    /// How losses are detected and repaired (beside `cc`, which owns the
    /// window): taken out while it runs, so it can work on the sender.
    recovery: Option<Box<dyn LossRecovery>>,
    pub(super) dupacks: u32,
    pub(super) consecutive_timeouts: u32,
    /// Local and remote ports (the connection's identity on the wire).
    pub sport: u16,
    pub dport: u16,
    /// The application stopped writing (bulk with a stop time).
    app_closed: bool,
    pub aborted: bool,
    /// `cfg.syn`: the SYN has not been acknowledged yet.
    syn_pending: bool,
    pub(super) pending_head_rtx: bool,
    /// Retransmissions until the next ACK keep the RTT measurement: ns-2's
    /// Vegas retransmits on a new ACK with output(), which leaves
    /// rtt_active_ alone (`CongestionControl::retransmit_keeps_next`).
    pub(super) rtx_keeps_timing: bool,
    /// The recovery policy chooses what to send while in recovery
    /// (`LossRecovery::polls`): fixed at construction, so that senders
    /// whose policy never does ask no policy on every send.
    recovery_polls: bool,
    /// Segments the current ACK, timeout or application write may still
    /// send (ns-2's send_much() with a maxburst): `TcpConfig::max_burst`,
    /// u32::MAX when that is 0; `Ns2Rules::newreno_burst`: two while a
    /// NewReno sender without SACK is in recovery. A fast retransmit of the
    /// first hole is not counted (ns-2 sends it with output()).
    burst_left: u32,
    /// `newreno_burst` applies to this sender (NewReno without SACK).
    burst_limited: bool,
    log_segments: bool,
    /// Set CWR on the next new data segment.
    pub(super) pending_cwr: bool,
    /// The first data segment goes without header bytes
    /// (`Ns2Rules::ns2_headerless_first`, no SYN, not Vegas).
    headerless_first: bool,
    /// The application can pause and write again, or the window is
    /// validated (`cwnd_validation`): the sender keeps `idle` up to date.
    /// In padding of the hot lines, so bulk senders test one flag.
    app_paced: bool,
    /// The congestion control is rate-based (BBR): the sender samples
    /// delivery rates and paces (`rate`).
    paced: bool,
    /// A pacing gate holds segments back: BBR's (`paced`) or TCP-AP's
    /// (`ap`).
    gated: bool,
    /// Linux's TSO deferral may hold new data (`TcpConfig::tso_defer`,
    /// state in `tso`).
    tso_defer: bool,
    /// Outstanding segments with their last send time and transmit count.
    pub(super) sent: std::collections::VecDeque<SentSeg>,
    last_acked_seg: Option<(Time, u32)>,
    pub stats: SenderStats,
    pub rto: RtoEstimator,
    pub cfg: TcpConfig,
    /// When the last byte of a finite transfer was acknowledged (once a
    /// flow: past the lines an ACK reads).
    pub completed_at: Option<Time>,
    /// When the first data segment (sequence 0) was last sent, with the
    /// per-segment log (ns-2's firstsent_; Vegas only, so past the lines an
    /// ACK of the other variants reads).
    first_sent: Option<Time>,
    /// With `linux_rtt_samples`: the send time of the oldest segment the
    /// last ACK of new data acknowledged, if none of what it acknowledged
    /// was retransmitted (Linux's first_ackt without FLAG_RETRANS_DATA_ACKED).
    seq_rtt_from: Option<Time>,
    /// With `linux_rtt_samples` and SACK: the send time of the lowest
    /// segment the last ACK's blocks newly SACKed that was sent once
    /// (Linux's first_sackt, tcp_sacktag_one()).
    sack_rtt_from: Option<Time>,
    /// No new ECN reduction until snd_una passes this (once per window).
    ecn_guard: Option<u64>,
    /// Highest byte + 1 sent at the last loss event (SACK mode's guard
    /// against a new recovery for losses of the same window, RFC 6675 5).
    pub(super) sack_recover: Option<u64>,
    /// SACK scoreboard, when SACK is on and the algorithm uses it.
    pub sb: Option<Scoreboard>,
    /// The hole already retransmitted for ELN.
    eln_done_for: Option<u64>,
    /// When the SYN went out, and whether it was sent more than once.
    syn_sent: Option<(Time, bool)>,
    /// With `timerfix` false, while a new ACK is processed: the RTO from
    /// before its RTT sample, which the timer restarted on it runs with.
    ack_rto: Option<Time>,
    /// With `old_ecn`: ns-2's ecn_burst_, the last new ACK of an
    /// ECN-capable connection carried ECE, and its ect_, set by the ACK of
    /// packet 0 (the SYN's, or without a SYN the first data segment's),
    /// which echoes the sender's ECN negotiation.
    ecn_burst: bool,
    ecn_ect: bool,
    /// New data goes out ECT: the flow uses ECN and its policy marks its
    /// segments (`CongestionControl::sends_ect`; ns-2's Vegas does not).
    ect: bool,
    /// ns-2's prev_highest_ack_ in bytes: the cumulative ACK before the
    /// last new ACK outside recovery (`TcpConfig::bugfix_ack`).
    pub(super) prev_high_ack: u64,
    /// ns-2's ts_echo_: the echo of the last new ACK outside recovery
    /// (`TcpConfig::bugfix_ts`).
    last_echo: Option<u32>,
    /// The peer's latest TSval (RFC 7323 TS.Recent: every ACK is within
    /// the window here), echoed by the segments sent.
    peer_tsval: u32,
    /// With `bugfix_ts`: (end, TSval) of the latest transmission of each
    /// segment from the one ending at snd_una on (ns-2's tss[]), by end.
    ts_sent: std::collections::VecDeque<(u64, u32)>,
    /// Idle and application-limited periods (`app_paced`).
    idle: IdleState,
    /// End of the last short segment of new data sent under Minshall's
    /// rule (`Nagle`): the next short one waits until it is acknowledged
    /// (last: out of the per-ACK lines).
    short_end: u64,
    /// Time averages of cwnd, ssthresh, srtt and rto (`averages.rs`),
    /// brought up to date as each event begins: in the padding of the last
    /// line, so the sender keeps its size in lines but one.
    avg: TimeAverages,
    /// The averages when the flow's active time may have ended: at the
    /// last completion of the data written, and when the application
    /// stopped (the flows table decides which end counts).
    avg_done: Option<TimeAverages>,
    avg_stop: Option<TimeAverages>,
    /// The congestion control takes Linux's delay samples
    /// (`CongestionControl::wants_delay_samples`: CUBIC's HyStart).
    delay_samples: bool,
    /// The congestion control sees every ACK first
    /// (`CongestionControl::wants_ack_events`: Westwood+'s bandwidth sum).
    ack_events: bool,
    /// With `delay_samples`: the send time of the newest segment the last
    /// ACK of new data acknowledged, if none of what it acknowledged was
    /// retransmitted (Linux's last_ackt, the ca_rtt_us of an ACK).
    ca_rtt_from: Option<Time>,
    /// With `delay_samples` and SACK: the send time of the highest segment
    /// sent once that the last ACK's blocks newly SACKed (last_sackt,
    /// which takes the place of last_ackt in ca_rtt_us).
    sack_ca_from: Option<Time>,
    /// RACK's state (`TcpConfig::rack` with SACK and PRR): kept by the
    /// sender, since the cumulative ACK's segments leave the log before the
    /// recovery policy runs.
    pub(super) rack: Option<Box<Rack>>,
    /// cwnd and ssthresh just before a timeout's cut (the congestion
    /// control cuts first; `tcp_enter_loss()` saves them for the undo).
    pub(super) pre_cut: (u64, u64),
    /// The end of the first segment sent once (and not SACKed before) that
    /// the last ACK of new data acknowledged: F-RTO's evidence without SACK
    /// (FLAG_ORIG_SACK_ACKED, once compared with high_seq).
    pub(super) acked_orig_end: Option<u64>,
    /// Window reductions undone (`undo`; Linux's TCPLossUndo, TCPFullUndo
    /// and TCPPartialUndo together) and, among them, timeouts F-RTO found
    /// spurious (TCPSpuriousRTOs). Past the hot lines: rare.
    pub(super) undo_counts: (u64, u64),
    /// With a rate-based congestion control: the delivery-rate sampler
    /// and the pacing (`rate.rs`).
    pub(super) rate: Option<Box<Pacing>>,
    /// TCP-AP's estimator and pacing (`adaptive_pacing.rs`).
    pub(super) ap: Option<Box<AdaptivePacing>>,
    /// The persist timer (`persist.rs`), for a peer that closes its window.
    pub(super) persist: super::persist::Persist,
    /// With `tso_defer`: the last departure, the peer's largest window,
    /// the burst being sent, and whether the application writes again.
    tso: TsoState,
}

/// An RTT sample: a timed segment's (sent, acknowledged) or a timestamp
/// echo's round trip.
#[derive(Clone, Copy)]
enum Rtt {
    Timed(Time, Time),
    Echo(Time),
}

impl Rtt {
    #[inline(always)]
    fn feed(self, rto: &mut RtoEstimator) {
        match self {
            Rtt::Timed(sent, now) => rto.sample_timed(sent, now),
            Rtt::Echo(r) => rto.sample_echo(r),
        }
    }
}

impl TcpSender {
    /// Where the congestion control's state lives (its own allocation, read
    /// on every ACK after the sender's first line): an address to prefetch
    /// only, never read through.
    pub fn cc_addr(&self) -> usize {
        &*self.cc as *const dyn CongestionControl as *const u8 as usize
    }

    /// The application starts at `now`: the time averages begin.
    /// The connection starts at `now`: the time averages, and the
    /// congestion control's init().
    pub fn start_averages(&mut self, now: Time) {
        self.avg.start(now);
        if !self.syn_pending {
            self.cc.on_open(now, self.snd_una);
        }
    }

    /// Bring the time averages up to `now`, before an event changes
    /// anything.
    #[inline(always)]
    fn note_time(&mut self, now: Time) {
        self.avg.advance(now, self.w.cwnd, self.w.ssthresh, &self.rto);
    }

    /// The time the averages run up to (a check for the world: every event
    /// that may change the window brings them to its time first).
    pub fn averaged_until(&self) -> Time {
        self.avg.last()
    }

    /// A finite transfer's last byte is acknowledged at `now` (during an
    /// ACK, whose start brought the averages here).
    pub(super) fn note_completion(&mut self, now: Time) {
        debug_assert_eq!(self.avg.last(), now);
        self.completed_at = Some(now);
        self.avg_done = Some(self.avg);
    }

    /// The averages of cwnd, ssthresh, srtt and rto from `start` to `end`,
    /// the flow's active time as the flows table counts it.
    pub fn window_averages(&self, start: Time, end: Time) -> WindowAverages {
        let ended = [self.avg_done, self.avg_stop].into_iter().flatten().find(|a| a.last() == end);
        let mut a = ended.unwrap_or(self.avg);
        if a.last() < end {
            a.advance(end, self.w.cwnd, self.w.ssthresh, &self.rto);
        }
        a.averages(start)
    }

    pub fn new(cfg: TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let w = CcState {
            cwnd: if cfg.syn { cfg.mss as u64 } else { cfg.initial_cwnd() },
            ssthresh: cfg.initial_ssthresh_bytes(),
            mss: cfg.mss as u64,
            dupthresh: cfg.dupthresh,
            ca_frac: 0.0,
            rwnd: cfg.rwnd,
            loss_from_cwnd: cfg.rules.loss_window_from_cwnd,
            hold: false,
            below_one: cfg.rules.cwnd_below_one,
            precise_half: cfg.precision_reduce,
            count_acked: cfg.count_acked,
            cap_at: match cfg.max_cwnd {
                0 => u64::MAX,
                m => (m as u64 + 1) * cfg.mss as u64,
            },
        };
        let syn = cfg.syn;
        let vegas = cc.name() == "vegas";
        let mut cc = cc;
        let mut w = w;
        let paced = cc.rate_based().is_some();
        if paced {
            // bbr_init(): ssthresh TCP_INFINITE_SSTHRESH.
            w.ssthresh = INFINITE_SSTHRESH;
        }
        let mut rto = RtoEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.granularity);
        if cfg.rules.ns2_rtt_estimator {
            rto = rto
                .with_ns2_clock(cfg.clock_phase % cfg.granularity.max(1))
                .with_ns2_rfc2988(cfg.rfc2988)
                .with_ns2_scaling(cfg.srtt_bits, cfg.rttvar_bits, cfg.rttvar_exp);
        } else if cfg.linux_rtt_estimator {
            rto = rto.with_linux_estimator();
        }
        let sb = (cfg.sack && cc.allows_sack_recovery()).then(Scoreboard::default);
        let rack = sb.is_some() && cfg.rack && cfg.prr && !cfg.rules.sack1_recovery;
        let recovery: Box<dyn LossRecovery> = match sb {
            Some(_) if cfg.rules.sack1_recovery => Box::new(Sack1Recovery::default()),
            Some(_) if rack => Box::new(RackRecovery::default()),
            Some(_) => Box::new(SackRecovery::new(cfg.prr)),
            None if cfg.prr && matches!(cc.name(), "newreno" | "cubic" | "westwood" | "bbr") => {
                Box::new(LinuxRenoRecovery::default())
            }
            None => Box::new(DupAckRecovery),
        };
        let burst_limited = cfg.rules.newreno_burst && cc.name() == "newreno" && sb.is_none();
        let headerless_first = cfg.rules.ns2_headerless_first && !syn && !vegas;
        let cfg_validates = cfg.cwnd_validation || cfg.control_increase || cfg.cwnd_limited;
        TcpSender {
            burst_left: u32::MAX,
            burst_limited,
            recovery_polls: recovery.polls(),
            recovery: Some(recovery),
            sb,
            sack_recover: None,
            sent: Default::default(),
            // F-RTO without SACK reads the log for data sent once.
            // TSO deferral reads the oldest segment's send time.
            log_segments: cc.times_segments()
                || cfg.linux_rtt_samples
                || cc.wants_delay_samples()
                || rack
                || cfg.frto
                || cfg.tso_defer,
            // RACK's min_rtt is Linux's, from the congestion control's
            // samples (tcp_update_rtt_min() with ca_rtt_us).
            delay_samples: cc.wants_delay_samples() || rack,
            ack_events: cc.wants_ack_events(),
            rack: rack.then(|| Box::new(Rack::new(cfg.tlp))),
            pre_cut: (0, 0),
            acked_orig_end: None,
            undo_counts: (0, 0),
            paced,
            gated: paced || cfg.tcp_ap.is_some(),
            tso_defer: cfg.tso_defer,
            tso: TsoState { max_window: cfg.rwnd, ..Default::default() },
            rate: paced.then(Box::<Pacing>::default),
            ap: cfg.tcp_ap.map(|p| Box::new(AdaptivePacing::new(p))),
            persist: Default::default(),
            ca_rtt_from: None,
            sack_ca_from: None,
            last_acked_seg: None,
            first_sent: None,
            seq_rtt_from: None,
            sack_rtt_from: None,
            now: 0,
            ecn_guard: None,
            ecn_action: None,
            timeout_last: false,
            ecn_backoff: false,
            ecn_seen: false,
            ecn_burst: false,
            ecn_ect: cfg.syn,
            ect: cfg.ecn && cc.sends_ect(),
            prev_high_ack: 0,
            last_echo: None,
            peer_tsval: 0,
            ts_sent: Default::default(),
            pending_cwr: false,
            eln_done_for: None,
            rwnd: cfg.rwnd,
            sport: 0,
            dport: 0,
            cfg,
            cc,
            w,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            short_end: 0,
            app_written: 0,
            app_total: Some(0),
            app_closed: false,
            dupacks: 0,
            limited_extra: 0,
            limited_bytes: 0,
            rto,
            rto_deadline: None,
            ack_rto: None,
            rtt_timing: None,
            consecutive_timeouts: 0,
            pending_head_rtx: false,
            rtx_keeps_timing: false,
            aborted: false,
            syn_pending: syn && !vegas,
            syn_sent: None,
            vegas_delay_growth: (syn && vegas).then_some(0),
            headerless_first,
            app_paced: cfg_validates,
            idle: IdleState::new(),
            completed_at: None,
            stats: SenderStats::default(),
            avg: TimeAverages::default(),
            avg_done: None,
            avg_stop: None,
        }
    }

    pub fn variant(&self) -> &'static str {
        self.cc.name()
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery.as_ref().is_some_and(|r| r.in_recovery(self))
    }

    /// Linux's name of the congestion state the sender is in ("open",
    /// "cwr", "recovery", "loss"; a policy that keeps no Loss or CWR state,
    /// as ns-2's, says "open" or "recovery"; Linux's Disorder is "open").
    pub fn ca_state_name(&self) -> &'static str {
        use super::bbr::CaState;
        match self.recovery.as_ref().map_or(CaState::Open, |r| r.ca_state(self)) {
            CaState::Open => "open",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }

    /// The loss-recovery policy in use ("dupack" or "sack").
    pub fn recovery_name(&self) -> &'static str {
        self.recovery.as_ref().map_or("", |r| r.name())
    }

    /// Timestamp clock (RFC 7323): milliseconds, wrapping at 2^32.
    pub fn ts_clock(now: Time) -> u32 {
        (now / crate::engine::time::MS) as u32
    }

    /// The unit of this sender's timestamp clock: milliseconds, or
    /// microseconds with `ns2_timestamps` (ns-2 stamps exact times) and
    /// for TCP-AP (as Linux's usec timestamps, `tcp_usec_ts`; a
    /// millisecond clock would add up to 1 ms of noise to each of its
    /// per-hop samples, which its variation term turns into a wider
    /// interval).
    pub(super) fn ts_unit(&self) -> Time {
        if self.cfg.ns2_timestamps || self.cfg.tcp_ap.is_some() {
            crate::engine::time::US
        } else {
            crate::engine::time::MS
        }
    }

    /// The round trip of timestamp echo `ecr` at `now`, in whole ticks of
    /// this sender's clock.
    fn echo_rtt(&self, now: Time, ecr: u32) -> Time {
        let unit = self.ts_unit();
        ((now / unit) as u32).wrapping_sub(ecr) as u64 * unit
    }

    /// The application makes `bytes` more available (None = unlimited).
    pub fn app_write(&mut self, bytes: Option<u64>) {
        self.burst_left = self.burst_start();
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

    /// The application can pause and write again (a transfer with later
    /// writes): the sender keeps the time of its last segment, for the
    /// restart after an idle period (`TcpConfig::idle_restart`).
    pub fn set_app_paced(&mut self) {
        self.app_paced = true;
        self.tso.writes_again = true;
    }

    /// The application writes `bytes` more at `now`, after its first
    /// write. With everything written so far acknowledged the sender has
    /// been idle, and its window restarts as `TcpConfig::idle_restart`
    /// says; the transfer is complete again only when these bytes are
    /// acknowledged too.
    pub fn app_write_more(&mut self, now: Time, bytes: u64) {
        if bytes == 0 {
            return;
        }
        self.note_time(now);
        if self.paced {
            self.rate_check_app_limited();
        }
        if self.snd_una == self.snd_max && !self.syn_pending && self.stats.segments_sent > 0 && !self.paced {
            self.restart_after_idle(now);
            // Linux's CA_EVENT_TX_START: data goes with nothing in flight.
            if let Some(last) = self.idle.last_send {
                self.cc.on_tx_start(now, last);
            }
        }
        self.completed_at = None;
        self.avg_done = None;
        self.app_write(Some(bytes));
    }

    fn restart_after_idle(&mut self, now: Time) {
        let initial = self.cfg.initial_cwnd();
        match self.cfg.idle_restart {
            IdleRestart::Ns2Timer => {
                let Some(first) = self.idle.ns2_timer.take() else { return };
                if self.cc.idle_expiry_is_timeout() {
                    self.rto_deadline = Some(self.idle_timeouts(first, now));
                    return;
                }
                // Expiries strictly before `now` have happened (the write
                // was scheduled before the timer: ns-2 runs it first at a
                // tie); the timer then still runs, and the segments sent
                // now do not restart it (output() arms only an idle timer).
                let period = self.rto.rto().max(1);
                let next = if first >= now {
                    first
                } else {
                    self.idle_timeout();
                    first + (now - first).div_ceil(period) * period
                };
                self.rto_deadline = Some(next);
            }
            IdleRestart::Rfc5681 | IdleRestart::Linux => {
                let Some(last) = self.idle.last_send else { return };
                let rto = self.rto.rto();
                // Linux counts the idle time in jiffies (lsndtime), as
                // its RTO.
                let idle = if self.cfg.timer_wheel && self.cfg.idle_restart == IdleRestart::Linux {
                    self.cfg.kernel_clock().elapsed(last, now)
                } else {
                    now - last
                };
                if idle <= rto {
                    return;
                }
                if self.cfg.idle_restart == IdleRestart::Rfc5681 {
                    idle::rfc5681_restart(&mut self.w, initial);
                } else {
                    idle::linux_restart(&mut self.w, initial, idle, rto);
                }
                self.cc.window_set(&self.w);
            }
            IdleRestart::Off => {}
        }
    }

    /// The expiries of ns-2's timer from `first` to before `now` with
    /// nothing outstanding, for a policy whose timeout() treats them as any
    /// other (`CongestionControl::idle_expiry_is_timeout`, ns-2's Vegas):
    /// each cuts the window as a timeout, counts as one (nrexmit_) and
    /// backs the timer off (reset_rtx_timer(0)), so the next comes a
    /// doubled RTO later. Returns the first expiry at or after `now`, where
    /// the timer still runs. The window's averages take the cuts at `now`,
    /// as `idle_timeout`'s.
    fn idle_timeouts(&mut self, first: Time, now: Time) -> Time {
        let mut due = first;
        while due < now {
            self.stats.timeouts += 1;
            self.timeout_last = true;
            self.loss_cut();
            self.loss_guard();
            let mut info = self.ack_info(self.snd_una, 0, 0);
            info.now = due;
            info.ecn_recover = self.ecn_action;
            self.cc.on_timeout(&mut self.w, &info);
            self.ecn_action = None;
            self.w.ca_frac = 0.0;
            self.rto.back_off();
            due += self.rto.rto().max(1);
        }
        due
    }

    /// ns-2's timeout() with nothing outstanding (slow_start_restart_ and
    /// restart_bugfix_): cwnd to one segment, ssthresh kept (at least two),
    /// no backoff, recover_ at the highest byte sent; a timeout is the last
    /// congestion action. Not counted among the timeouts (ns-2 does not
    /// count it in nrexmit_).
    fn idle_timeout(&mut self) {
        self.timeout_last = true;
        self.loss_cut();
        self.loss_guard();
        self.cc.on_idle_timeout(self.snd_max);
        self.w.cwnd = self.w.mss;
        self.w.ca_frac = 0.0;
        self.w.ssthresh = self.w.ssthresh.max(2 * self.w.mss);
        self.cc.window_set(&self.w);
    }

    /// Everything sent is acknowledged at `now` (and the window is at
    /// least one segment): the retransmission timer stops (RFC 6298 5.2),
    /// or under ns-2's rule runs on, which is noted rather than scheduled
    /// (`IdleState::ns2_timer`).
    pub(super) fn all_acked(&mut self, now: Time) {
        self.rto_deadline = None;
        if self.app_paced && self.cfg.idle_restart == IdleRestart::Ns2Timer && !self.cfg.cwnd_validation {
            self.idle.ns2_timer = Some(now + self.ack_rto.unwrap_or_else(|| self.rto.rto()));
        }
    }

    /// ns-2's network_limited() on a new ACK up to `ack`: the next packet
    /// to send (t_seqno_, at least the ACK) lies beyond the window from the
    /// cumulative ACK before this one (prev_highest_ack_ + window()): the
    /// window was full, and `control_increase` lets it open.
    fn window_was_full(&self, ack: u64) -> bool {
        let mss = self.w.mss;
        let t_seqno = self.snd_nxt.max(ack) / mss;
        let prev_highest = (self.snd_una / mss) as i64 - 1;
        t_seqno as i64 > prev_highest + self.ns2_window()
    }

    /// Linux's tcp_cwnd_validate() after a segment of new data went out
    /// (`TcpConfig::cwnd_limited`). Once per segment rather than once per
    /// burst as tcp_write_xmit() calls it: the state after a burst is the
    /// same (idle.rs, `CwndUse`).
    /// `held`: TSO deferral held data back for the window (is_cwnd_limited
    /// set without the flight reaching cwnd).
    fn note_cwnd_use(&mut self, held: bool) {
        let mss = self.w.mss;
        let out = self.flight().div_ceil(mss);
        let sacked = self.sb.as_ref().map_or(0, |sb| sb.sacked_bytes());
        let in_flight = self.flight().saturating_sub(sacked).div_ceil(mss);
        let limited = held || in_flight >= self.w.cwnd / mss;
        self.idle.cwnd_use.after_send(limited, out, self.snd_una, self.snd_nxt);
    }

    /// ns-2's window(): min(cwnd_, wnd_) in whole packets.
    fn ns2_window(&self) -> i64 {
        (self.w.cwnd / self.w.mss).min(self.rwnd / self.w.mss) as i64
    }

    /// A new segment went out from the window (ns-2's send_much() and
    /// send_one(), not a fast retransmit): note its time, and validate
    /// the window (`cwnd_validation`).
    fn after_app_send(&mut self, now: Time, seg: &Segment) {
        self.idle.last_send = Some(now);
        self.idle.ns2_timer = None;
        if self.cfg.cwnd_limited {
            self.note_cwnd_use(false);
        }
        if !self.cfg.cwnd_validation {
            return;
        }
        let mss = self.w.mss;
        let tick = self.cfg.granularity;
        let p = SentPacket {
            seqno: (seg.seq / mss) as i64,
            highest_ack: (self.snd_una / mss) as i64 - 1,
            window: self.ns2_window(),
            curseq: self.app_limit().div_ceil(mss) as i64,
        };
        let tcp_now = idle::ticks_now(now, tick);
        if self.cfg.cwv_rtt_counting {
            let srtt = self.rto.ns2_srtt_ticks();
            self.idle.after_send_counting(&mut self.w, tcp_now, srtt, p);
        } else {
            let rto = self.rto.ns2_rtxcur_ticks();
            self.idle.after_send(&mut self.w, tcp_now, rto, p);
        }
        self.cc.window_set(&self.w);
    }

    /// The segments one ACK, timeout or application write may send
    /// (`TcpConfig::max_burst`, ns-2's maxburst_; 0: no limit).
    #[inline(always)]
    fn burst_start(&self) -> u32 {
        if self.cfg.max_burst == 0 {
            u32::MAX
        } else {
            self.cfg.max_burst
        }
    }

    /// One segment of the burst sent (`burst_left`; u32::MAX: no limit).
    #[inline(always)]
    fn spend_burst(&mut self) {
        if self.burst_left != u32::MAX {
            self.burst_left -= 1;
        }
    }

    /// A bulk application stops producing data at `now`: the flow's
    /// active time ends there (what was in flight is acknowledged later,
    /// which completes the data written: `avg_done` then holds that end,
    /// which the flows table does not count for a bulk flow).
    pub fn app_close(&mut self, now: Time) {
        self.note_time(now);
        self.avg_stop = Some(self.avg);
        self.app_closed = true;
        self.app_total = Some(self.snd_max.max(self.app_written));
    }

    /// Highest byte the application has made available.
    pub(super) fn app_limit(&self) -> u64 {
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

    /// The socket's timer: the retransmission timer, or sooner the end of
    /// a pacing wait.
    #[inline(always)]
    pub fn timer_deadline(&self) -> Option<Time> {
        if self.gated {
            return self.paced_deadline();
        }
        self.rto_deadline
    }

    #[cold]
    fn paced_deadline(&self) -> Option<Time> {
        let wait = match (self.rate.as_deref(), self.ap.as_deref()) {
            (Some(p), _) if p.waiting => Some(p.wstamp),
            (_, Some(ap)) => ap.deadline(),
            _ => None,
        };
        match (wait, self.rto_deadline) {
            (Some(w), Some(d)) => Some(w.min(d)),
            (w, d) => w.or(d),
        }
    }

    pub fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// Everything written has been acknowledged.
    pub fn finished(&self) -> bool {
        self.app_total.is_some() && self.snd_una >= self.app_limit()
    }

    pub(super) fn ack_info(&self, ack: u64, acked: u64, flight: u64) -> AckInfo {
        AckInfo {
            ack,
            acked,
            snd_max: self.snd_max,
            flight,
            dupacks: self.dupacks,
            ecn_recover: self.ecn_action.filter(|&g| ack <= g),
            now: self.now,
            snd_nxt: self.snd_nxt,
            acked_seg: self.last_acked_seg,
            head_seg: self.sent.front().map(|s| (s.time, s.transmits)),
            first_sent: self.first_sent,
            heuristic: false,
        }
    }

    /// ns-2's heuristics before a fast retransmit the careful guard
    /// refuses (NewReno's dupack_action()): the timestamp heuristic
    /// (`bugfix_ts`), the last new ACK echoing the latest transmission of
    /// the highest segment acknowledged; then the ACK heuristic
    /// (`bugfix_ack`), cwnd above one segment and that ACK having advanced
    /// by at most `dupthresh` segments.
    pub(super) fn careful_heuristic(&mut self) -> bool {
        if self.cfg.bugfix_ts && self.cfg.timestamps {
            self.prune_ts_sent();
            if let (Some(echo), Some(&(end, ts))) = (self.last_echo, self.ts_sent.front()) {
                if end == self.snd_una && ts == echo {
                    return true;
                }
            }
        }
        self.cfg.bugfix_ack
            && self.cc.uninflated_cwnd(&self.w) > self.w.mss as f64
            && self.snd_una - self.prev_high_ack <= self.w.dupthresh as u64 * self.w.mss
    }

    /// Forget the send times of segments below the highest acknowledged.
    fn prune_ts_sent(&mut self) {
        while self.ts_sent.front().is_some_and(|&(end, _)| end < self.snd_una) {
            self.ts_sent.pop_front();
        }
    }

    /// With `bugfix_ts`: the TSval of a transmission of [seq, end).
    #[inline(never)]
    fn note_ts_sent(&mut self, now: Time, end: u64) {
        let ts = (now / self.ts_unit()) as u32;
        self.prune_ts_sent();
        match self.ts_sent.iter_mut().find(|e| e.0 == end) {
            Some(e) => e.1 = ts,
            None => {
                let i = self.ts_sent.partition_point(|e| e.0 < end);
                self.ts_sent.insert(i, (end, ts));
            }
        }
    }

    /// Record a transmission of [seq, seq+len) in the per-segment log (kept
    /// only for policies that time every segment: it costs on every send),
    /// and tell such a policy of it. The check is inlined into every send,
    /// the log itself is not.
    #[inline(always)]
    fn log_send(&mut self, now: Time, seq: u64, len: u32) {
        if self.log_segments {
            self.log_send_timed(now, seq, len);
        }
    }

    fn log_send_timed(&mut self, now: Time, seq: u64, len: u32) {
        if seq == 0 && len > 0 {
            self.first_sent = Some(now);
        }
        let end = seq + len as u64;
        match self.sent.back() {
            Some(last) if seq < last.end => {
                if let Some(s) = self.sent.iter_mut().find(|s| s.seq <= seq && seq < s.end) {
                    s.time = now;
                    s.transmits += 1;
                    match self.rack.as_deref_mut() {
                        Some(r) => r.resent(s, true),
                        None => s.rtx_out = true,
                    }
                }
            }
            _ => {
                self.sent.push_back(SentSeg {
                    seq,
                    end,
                    time: now,
                    transmits: 1,
                    sacked: false,
                    lost: false,
                    rtx_out: false,
                });
                if self.rack.is_some() {
                    self.rack_new_data_sent(now);
                }
            }
        }
        if len > 0 {
            self.cc.on_send(&self.w, seq, len, now);
        }
    }

    /// Forget segments the cumulative ACK covers; remember the last of them.
    #[inline(always)]
    fn log_ack(&mut self, now: Time, h: &TcpHeader) {
        if self.log_segments {
            self.log_ack_timed(now, h);
        }
    }

    fn log_ack_timed(&mut self, now: Time, h: &TcpHeader) {
        let ack = h.ack;
        if self.rack.is_some() {
            self.rack_delivered(now, h);
        }
        self.last_acked_seg = None;
        let (mut first, mut last, mut retransmitted) = (None, None, false);
        let mut orig = None;
        // Linux's samples skip segments SACKed before (TCPCB_SACKED_ACKED:
        // the scoreboard has not taken this ACK's blocks yet).
        let sacked = self.sb.as_ref().filter(|_| self.cfg.linux_rtt_samples || self.delay_samples);
        while let Some(s) = self.sent.front() {
            if s.end > ack {
                break;
            }
            if s.transmits > 1 {
                retransmitted = true;
            } else if !sacked.is_some_and(|sb| sb.is_sacked(s.seq, s.end)) {
                first = first.or(Some(s.time));
                last = Some(s.time);
                orig = orig.or(Some(s.end));
            }
            self.last_acked_seg = Some((s.time, s.transmits));
            if let Some(r) = self.rack.as_deref_mut() {
                r.forget(s);
            }
            self.sent.pop_front();
        }
        // Linux (tcp_clean_rtx_queue): an RTT sample from the oldest
        // segment acknowledged not SACKed before, unless any of them was
        // retransmitted (Karn); the congestion control's from the newest.
        self.seq_rtt_from = if retransmitted { None } else { first };
        self.ca_rtt_from = if retransmitted { None } else { last };
        self.acked_orig_end = orig;
    }

    /// After an ACK of new data: the timer stops when everything is
    /// acknowledged (`all_acked`) and restarts otherwise, and a finished
    /// transfer notes its completion time.
    pub(super) fn settle_after_new_ack(&mut self, now: Time) {
        if self.snd_una == self.snd_max {
            self.all_acked(now);
        } else {
            self.restart_timer(now);
        }
        if self.completed_at.is_none() && self.finished() {
            self.note_completion(now);
        }
    }

    pub(super) fn restart_timer(&mut self, now: Time) {
        self.rto_deadline = Some(self.timer_at(now, self.ack_rto.unwrap_or_else(|| self.rto.rto())));
    }

    /// When the timer slot armed at `now` for `wait` goes off: at the
    /// wait's end, or on the kernel's timer wheel (`timer_wheel`).
    #[inline(always)]
    pub(super) fn timer_at(&self, now: Time, wait: Time) -> Time {
        // The flag leads the configuration's hot fields; the clock's own
        // fields are read only when it is set (the linux profile).
        goes_off(self.cfg.jiffies(), now, wait)
    }

    /// The connection's ports: `sport` here, `dport` at the receiver.
    pub fn with_ports(mut self, sport: u16, dport: u16) -> Self {
        self.sport = sport;
        self.dport = dport;
        self
    }

    /// The next segment to put on the wire at `now` with its complete
    /// header (flags, the window this end advertises, timestamps, CWR), if
    /// the window and the data allow one.
    #[inline(always)]
    pub fn poll_segment(&mut self, now: Time) -> Option<OutSegment> {
        let seg = self.poll_transmit(now)?;
        let syn = self.syn_pending && seg.len == 0;
        let header = TcpHeader {
            sport: self.sport,
            dport: self.dport,
            seq: seg.seq,
            // PSH on the segment that ends what the application has
            // written, as a real stack's send path sets it (a bulk
            // application has no end), and, with `tso_defer`, on the last
            // segment of each of Linux's multi-segment GSO chunks.
            flags: if syn {
                flags::SYN
            } else {
                // `app_limit()` without its branches: a bulk sender
                // (no total) has no end to mark.
                let end = seg.seq + seg.len as u64;
                // Linux's GSO chunks also end with PSH (`TsoState::push_end`).
                let chunk_end = std::mem::take(&mut self.tso.push_end);
                let push = match self.app_total {
                    Some(t) if end == t.max(self.app_written) => flags::PSH,
                    _ if chunk_end => flags::PSH,
                    _ => 0,
                };
                flags::ACK | push | if seg.cwr { flags::CWR } else { 0 }
            },
            window: self.cfg.rwnd.min(u32::MAX as u64) as u32,
            // ns-2's SYN is 40 bytes (`ns2_timestamps`): no option.
            ts: (self.cfg.timestamps && !(syn && self.cfg.ns2_timestamps))
                .then(|| ((now / self.ts_unit()) as u32, self.peer_tsval)),
            ..Default::default()
        };
        let headerless = self.headerless_first && seg.seq == 0 && seg.len > 0;
        Some(OutSegment { header, payload: seg.len, ect: seg.ect, retransmit: seg.retransmit, headerless })
    }

    /// Next segment to transmit at `now`, if the window and data allow one.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Segment> {
        if self.aborted {
            return None;
        }
        if self.syn_pending {
            return self.poll_syn(now);
        }
        if self.gated && !self.gate_open(now) {
            return None;
        }
        if self.pending_head_rtx {
            self.pending_head_rtx = false;
            // ns-2's Vegas retransmits with output(), which leaves
            // t_seqno_ where it is: a segment at t_seqno_ (nothing
            // outstanding after it, or a stale slot's "expiry") goes out
            // again from send_much (the `vegas_send_times = "ns2"` rule).
            let twice = self.cc.retransmit_keeps_next();
            let end = if twice { self.app_limit().max(self.snd_max) } else { self.snd_max };
            let len = (end - self.snd_una).min(self.w.mss);
            if len > 0 {
                if let Some(sb) = self.sb.as_mut() {
                    sb.high_rxt = sb.high_rxt.max(self.snd_una + len);
                }
                let nxt = self.snd_nxt;
                let seg = self.emit(now, self.snd_una, len as u32);
                if twice {
                    self.snd_nxt = nxt;
                }
                return Some(seg);
            }
        }
        if self.recovery_polls && self.recovery.as_ref().is_some_and(|r| r.chooses(self)) {
            // ns-2's Sack1 counts its retransmissions of holes in the
            // burst too (its own send_much()).
            if self.burst_left == 0 {
                return None;
            }
            let mut rec = self.recovery.take().expect("recovery policy present");
            let seg = rec.poll(self, now);
            self.put_recovery(rec);
            if let Some(seg) = seg {
                if seg.is_some() {
                    self.spend_burst();
                }
                return seg;
            }
        }
        let limit = self.app_limit().max(self.snd_max);
        if self.snd_nxt >= limit {
            return None;
        }
        if self.paced && self.snd_nxt >= self.snd_max && self.snd_una == self.snd_max {
            self.rate_tx_start(now);
        }
        let mut len = (limit - self.snd_nxt).min(self.w.mss);
        let win = self.window();
        let edge = self.snd_una + win;
        if self.snd_nxt + len > edge {
            // Sender silly-window avoidance: only a full segment, unless the
            // receiver's window is smaller than one and nothing is
            // outstanding (a cwnd below one segment sends nothing: ns-2's
            // window() is then 0).
            if self.snd_nxt == self.snd_una && win > 0 && self.w.cwnd >= self.w.mss {
                len = len.min(win);
            } else {
                return None;
            }
        }
        if self.burst_left == 0 {
            return None;
        }
        if len < self.w.mss && self.snd_nxt >= self.snd_max && self.nagle_holds(len) {
            return None;
        }
        if self.tso_defer && self.snd_nxt >= self.snd_max && self.tso_holds(now) {
            return None;
        }
        self.spend_burst();
        if self.app_paced {
            return Some(self.emit_paced(now, len as u32));
        }
        Some(self.emit(now, self.snd_nxt, len as u32))
    }

    /// Nagle's rule for a short segment of new data (`len` bytes): true
    /// holds it back. Otherwise, under Minshall's rule, it is noted as the
    /// short segment the next one waits for.
    #[cold]
    #[inline(never)]
    fn nagle_holds(&mut self, len: u64) -> bool {
        match self.cfg.nagle {
            Nagle::Off => false,
            Nagle::Rfc896 => self.snd_max > self.snd_una,
            Nagle::Minshall if self.snd_una < self.short_end => true,
            Nagle::Minshall => {
                self.short_end = self.snd_nxt + len;
                false
            }
        }
    }

    /// Linux's TSO deferral (`tso_defer.rs`) before new data at `now`:
    /// true holds it for the next ACK. The kernel decides once per GSO
    /// burst; the rest of a burst decided at this instant goes without
    /// asking again.
    #[cold]
    #[inline(never)]
    pub(super) fn tso_holds(&mut self, now: Time) -> bool {
        if self.tso.burst_at == now && self.tso.burst_left > 0 {
            self.tso.burst_left -= 1;
            self.tso.push_end = self.tso.chunk_left == 1;
            self.tso.chunk_left = self.tso.chunk_left.saturating_sub(1);
            return false;
        }
        match tso_defer::decide(&self.tso_inputs(now)) {
            Decision::Send(n) => {
                self.tso.burst_left = n - 1;
                self.tso.burst_at = now;
                // The chunk: the burst within the receiver's window, in
                // whole segments (at least the one being sent).
                let room = (self.snd_una + self.rwnd).saturating_sub(self.snd_nxt) / self.w.mss;
                self.tso.chunk_left = n.min(room.max(1)) - 1;
                self.tso.push_end = false;
                false
            }
            Decision::Defer { cwnd_limited } => {
                // tcp_write_xmit() ends with tcp_cwnd_validate(sk,
                // is_cwnd_limited): the window counts as used.
                if cwnd_limited && self.cfg.cwnd_limited {
                    self.note_cwnd_use(true);
                }
                true
            }
        }
    }

    /// sk_pacing_rate as Linux sets it for a congestion control without its
    /// own (tcp_update_pacing_rate()), bytes a second.
    fn linux_pacing_rate(&self) -> u64 {
        let mss = self.w.mss;
        let packets_out = self.flight().div_ceil(mss);
        super::rate::linux_pacing_rate(mss, self.w.cwnd / mss, packets_out, self.w.ssthresh / mss, self.rto.srtt)
    }

    /// The sender's state in `tso_defer::decide`'s terms.
    fn tso_inputs(&self, now: Time) -> tso_defer::Inputs {
        use super::bbr::CaState;
        let mss = self.w.mss;
        let packets_out = self.flight().div_ceil(mss);
        let (state, in_flight) = match self.recovery.as_deref() {
            Some(r) => (r.ca_state(self), r.packets_in_flight(self)),
            None => (CaState::Open, packets_out),
        };
        let cwnd = self.w.cwnd / mss;
        let srtt = self.rto.srtt;
        let pacer = self.rate.as_deref();
        let pacing_rate = pacer.map_or_else(|| self.linux_pacing_rate(), |p| p.rate);
        let fin = self.app_closed || (self.app_total.is_some() && !self.tso.writes_again);
        let goal = tso_defer::size_goal(mss, self.tso.max_window);
        tso_defer::Inputs {
            now,
            mss,
            recovering: state >= CaState::Recovery,
            wstamp: pacer.map_or(self.tso.last_tx, |p| p.wstamp.max(self.tso.last_tx)),
            cwnd,
            in_flight,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_wnd: self.rwnd,
            srtt,
            min_rtt: self.rack.as_deref().and_then(|r| r.min_rtt()),
            pacing_rate,
            bbr: pacer.is_some(),
            head_sent: self.sent.front().map(|g| g.time),
            skb: tso_defer::unsent_skb(self.snd_nxt, self.app_limit(), goal, fin),
        }
    }

    /// `emit` for a sender whose application pauses, out of the bulk
    /// senders' way: the segment, then `after_app_send`.
    #[cold]
    #[inline(never)]
    fn emit_paced(&mut self, now: Time, len: u32) -> Segment {
        let seg = self.emit(now, self.snd_nxt, len);
        self.after_app_send(now, &seg);
        seg
    }

    /// `len` bytes of new data at snd_max, chosen by a recovery policy:
    /// a segment from the window as any other (`after_app_send`: its time
    /// for the restart after idle, the window's use), wherever the go-back
    /// pointer is. (Until 2026-12-06 RFC 6675's and the linux profile's
    /// recoveries sent their new data with plain `emit`, so a flow whose
    /// application pauses restarted its window as if those segments had
    /// not gone out.)
    pub(super) fn emit_new(&mut self, now: Time, len: u32) -> Segment {
        let seg = self.emit(now, self.snd_max, len);
        if self.app_paced {
            self.after_app_send(now, &seg);
        }
        seg
    }

    /// The window-scale shift of the window this sender advertises (the
    /// configured one), as captures show it.
    pub fn window_scale(&self) -> u8 {
        crate::output::pcap::scale_for(self.cfg.rwnd)
    }

    /// Whether the SYN is out and its ACK not yet in.
    pub fn awaits_syn_ack(&self) -> bool {
        self.syn_pending
    }

    /// The SYN, once the application has data, and again after a timeout.
    fn poll_syn(&mut self, now: Time) -> Option<Segment> {
        let due = match self.syn_sent {
            None => self.app_limit() > 0 || self.app_total.is_none(),
            Some(_) => self.rto_deadline.is_none(),
        };
        if !due {
            return None;
        }
        let again = self.syn_sent.is_some();
        if again {
            self.stats.retransmits += 1;
        }
        self.syn_sent = Some((now, again));
        self.stats.segments_sent += 1;
        self.restart_timer(now);
        Some(Segment { seq: 0, len: 0, retransmit: again, ect: false, cwr: false })
    }

    /// The ACK of the SYN: an RTT sample unless the SYN was sent twice
    /// (Karn), and the initial window (ns-2's delay_growth_). The timer's
    /// backoff ends here (RFC 6298 5.7: data start with an RTO of 3 s),
    /// but with `ns2_rtt_timing` only with a sample: ns-2 clears t_backoff_
    /// only when a timed segment is acknowledged, and a retransmitted SYN
    /// is not timed, so after lost SYNs the first data segment's timer
    /// keeps their backoff (3 s x 16 after four).
    fn on_syn_ack(&mut self, now: Time) {
        self.syn_pending = false;
        let sampled = match self.syn_sent {
            Some((sent, again)) if self.cfg.timestamps && self.cfg.ns2_timestamps => {
                // ns-2 samples the echo of the last SYN sent, exact; the
                // backoff ends with it as with any timestamp sample.
                let backoff = self.rto.backoff();
                self.rto.sample_echo(now - sent);
                if !self.cfg.ts_reset_rto {
                    self.rto.restore_backoff(backoff);
                }
                !again
            }
            Some((sent, false)) => {
                self.rto.sample_timed(sent, now);
                true
            }
            _ => false,
        };
        if sampled || !self.cfg.rules.ns2_rtt_timing {
            self.rto.clear_backoff();
        }
        if !sampled && !self.cfg.rules.ns2_rtt_timing && matches!(self.syn_sent, Some((_, true))) {
            // RFC 6298 5.7 (and Linux's tcp_init_metrics()): after a SYN
            // timeout and no sample, data starts with an RTO of at least
            // 3 s (one below that, `initial_rto`, would risk a spurious
            // first timeout).
            self.rto.at_least_until_sampled(3 * crate::engine::time::SEC);
        }
        self.consecutive_timeouts = 0;
        self.rto_deadline = None;
        self.w.cwnd = self.cfg.initial_cwnd();
        // The module's init() comes with the connection (tcp_init_transfer()).
        self.cc.on_open(now, self.snd_una);
        if self.paced {
            // bbr_init() after the handshake: its RTT sample is the least
            // RTT (tcp_min_rtt()) and sets the first pacing rate.
            let syn_rtt = match self.syn_sent {
                Some((sent, false)) => Some((now - sent) / 1_000),
                _ => None,
            };
            let (srtt, cwnd) = (self.srtt_us(), self.w.cwnd / self.w.mss);
            let p = self.rate.as_deref_mut().unwrap();
            if let Some(r) = syn_rtt {
                p.sampler.note_rtt(r);
            }
            let b = self.cc.rate_based().expect("rate-based congestion control");
            b.init_after_handshake(now, syn_rtt, srtt, cwnd);
            p.rate = b.pacing_rate();
        }
    }

    #[inline(always)]
    pub(super) fn emit(&mut self, now: Time, seq: u64, len: u32) -> Segment {
        let retransmit = seq < self.snd_max;
        if retransmit {
            self.stats.retransmits += 1;
            // A retransmission is data sent for the restart after idle
            // (RFC 5681 4.1; Linux's lsndtime): new data notes it in
            // `after_app_send`.
            if self.app_paced {
                self.idle.last_send = Some(now);
            }
            // Karn: a retransmission makes the timed sample ambiguous.
            // (ns-2 ends it only at a fast retransmit or a timeout:
            // `end_rtt_timing`, the `rtt_timing = "ns2"` rule.)
            if !self.rtx_keeps_timing
                && !self.cfg.rules.ns2_rtt_timing
                && matches!(self.rtt_timing, Some((end, _)) if seq < end)
            {
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
        self.log_send(now, seq, len);
        if self.gated {
            self.gated_send(now, seq, len, retransmit);
        }
        if self.tso_defer {
            self.tso.last_tx = now;
        }
        if self.cfg.bugfix_ts && self.cfg.timestamps {
            self.note_ts_sent(now, seq + len as u64);
        }
        let ect = self.ect && (!retransmit || self.cfg.rules.ect_retransmits);
        let cwr = ect && std::mem::take(&mut self.pending_cwr);
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len as u64;
        if self.rto_deadline.is_none() {
            self.restart_timer(now);
        }
        Segment { seq, len, retransmit, ect, cwr }
    }

    /// The window was cut for a loss (`cwr_after_loss`): an ECN flow sets
    /// CWR on its next segment.
    pub(super) fn loss_cut(&mut self) {
        if self.cfg.ecn && self.cfg.rules.cwr_after_loss {
            self.pending_cwr = true;
        }
    }

    /// A loss response covers the data sent so far: an ECN echo for it
    /// cuts no more (RFC 3168 6.1.2: one reduction per window for drops and
    /// marks together; ns-2's fast retransmit and timeout set recover_ =
    /// maxseq_, and ecn() answers only an echo above recover_, or the first
    /// after a timeout, `ecn_after_timeout`).
    fn loss_guard(&mut self) {
        self.ecn_guard = Some(self.ecn_guard.map_or(self.snd_max, |g| g.max(self.snd_max)));
    }

    /// A fast retransmit starts, `cut` if it cuts the window (not within
    /// an ECN cut's window: `loss_cut`). It ends the RTT measurement under
    /// ns-2's rule (its dupack_action() calls reset_rtx_timer(), which
    /// clears rtt_active_); under Karn's the retransmission itself does. It
    /// is the last congestion action from now on (`timeout_last`).
    pub(super) fn fast_retransmit_started(&mut self, cut: bool) {
        if let Some(ap) = self.ap.as_deref_mut() {
            // TCP-AP: the retransmission goes at once, what the window
            // allows with it unpaced until the next ACK.
            ap.stop();
        }
        if cut {
            self.loss_cut();
            self.loss_guard();
        }
        self.timeout_last = false;
        if self.cfg.rules.ns2_rtt_timing {
            self.rtt_timing = None;
        }
    }

    /// A loss recovery that counts its segments (RFC 6675's, Linux's)
    /// starts: a fast retransmit counted and begun, Limited Transmit's
    /// allowance spent.
    pub(super) fn recovery_started(&mut self) {
        self.stats.fast_retransmits += 1;
        self.fast_retransmit_started(true);
        self.limited_extra = 0;
        self.limited_bytes = 0;
    }

    /// An ACK arrives.
    #[inline(always)]
    pub fn on_ack(&mut self, now: Time, h: &TcpHeader) {
        if self.aborted {
            return;
        }
        self.note_time(now);
        self.stats.acks_received += 1;
        // TS.Recent never moves back (tcp_paws_check()): a reordered
        // older ACK leaves it.
        if let Some((val, _)) = h.ts.filter(|&(v, _)| v.wrapping_sub(self.peer_tsval) as i32 >= 0) {
            self.peer_tsval = val;
        }
        self.rtx_keeps_timing = false;
        self.burst_left = self.burst_start();
        let prior_rwnd = self.rwnd;
        // RFC 9293 3.10.7.4: the window of an ACK below snd_una is older
        // than the one held (only a split node's window ever changes).
        if h.ack >= self.snd_una {
            self.rwnd = h.window as u64;
            self.w.rwnd = self.rwnd;
            if self.tso_defer {
                self.tso.max_window = self.tso.max_window.max(self.rwnd);
            }
        }
        self.now = now;
        let ack = h.ack;
        if self.syn_pending {
            if self.syn_sent.is_some() && ack == 0 {
                self.on_syn_ack(now);
            }
            return;
        }
        if ack > self.snd_max {
            return; // acknowledges data never sent: ignore (RFC 793)
        }
        if self.window_news(now, h, prior_rwnd) {
            return;
        }
        if self.ap.is_some() {
            self.ap_ack(now, h);
        }
        if self.ack_events && ack >= self.snd_una {
            self.ack_event(now, h, prior_rwnd);
        }
        if let Some(n) = self.vegas_delay_growth.as_mut() {
            if ack > self.snd_una {
                *n += 1;
                if *n == 2 {
                    self.vegas_delay_growth = None;
                    self.w.cwnd = self.cfg.initial_cwnd();
                    self.cc.window_set(&self.w);
                }
            }
        }
        if let Some(r) = self.rack.as_deref_mut() {
            r.orig_end = None;
        }
        if ack > self.snd_una {
            self.log_ack(now, h);
        }
        // RFC 3168 6.1.2: no window increase on the ACK that carries ECE.
        let ece = self.cfg.ecn && h.flags & flags::ECE != 0;
        let ece_cut = ece && self.on_ece(ack);
        // ns-2 (`ecn_hold`): no increase on any ACK that carries ECE.
        // With `old_ecn` only the first of a run of echoes holds it.
        self.w.hold = ece && self.cfg.rules.ecn_hold && !(self.cfg.old_ecn && self.ecn_burst);
        if self.cfg.eln && h.eln && ack == self.snd_una && self.snd_max > self.snd_una && self.reads_eln() {
            self.on_eln(now, h);
            return;
        }
        if self.app_paced && self.cfg.control_increase && ack > self.snd_una && !self.window_was_full(ack) {
            self.w.hold = true;
        }
        if self.app_paced
            && self.cfg.cwnd_limited
            && !self.idle.cwnd_use.may_grow(self.w.cwnd / self.w.mss, self.w.cwnd < self.w.ssthresh)
        {
            self.w.hold = true;
        }
        let una = self.snd_una;
        let mut rec = self.recovery.take().expect("recovery policy present");
        let before = (self.paced && ack >= una).then(|| self.rate_ack_begin(&*rec, h));
        rec.on_ack(self, now, h, ece_cut);
        if let Some(b) = before {
            self.rate_ack_end(&*rec, now, b);
        }
        self.put_recovery(rec);
        self.ack_rto = None;
        if self.app_paced && self.cfg.cwnd_validation && self.cfg.cwv_rtt_counting {
            let ackno = (ack / self.w.mss) as i64 - 1;
            self.idle.after_ack(ackno, self.dupacks, self.w.dupthresh);
        }
        if self.burst_limited && (self.in_recovery() || !self.cfg.exit_fast_retrans && self.dupacks >= self.w.dupthresh)
        {
            // ns-2's NewReno: send_much(0, 0, 2) while dupacks_ >=
            // numdupacks_, on duplicates and partial ACKs alike (with
            // `exit_fast_retrans` false also after a refused fast
            // retransmit, whose duplicates open the window).
            self.burst_left = 2;
        }
        if ack < una && !self.cfg.aggressive_max_burst {
            // ns-2's aggressive_maxburst_ 0: no send_much() for an ACK
            // below last_ack_.
            self.burst_left = 0;
        }
        // ns-2's recv_newack_helper() (not run on partial ACKs): with
        // `old_ecn` its ecn_burst_ follows the echo once ect_ is set.
        if self.cfg.old_ecn && self.snd_una > una && !self.in_recovery() {
            if self.ecn_ect {
                self.ecn_burst = ece;
            }
            self.ecn_ect = true;
        }
        // ns-2's recv_newack_helper() (not run on partial ACKs) for
        // `ecn_backoff`: an echo marks the connection ECN-capable (ect_),
        // a new ACK without one ends the mark.
        if (ece && !self.ecn_seen || self.ecn_backoff && !ece)
            && self.cfg.rules.ecn_backoff
            && self.snd_una > una
            && !self.in_recovery()
        {
            self.ecn_seen |= ece;
            self.ecn_backoff &= ece;
        }
    }

    /// An ACK of nothing new that only tells of the window: one that
    /// changes it without SACK blocks (a window update; RFC 5681 2 (e):
    /// no duplicate), or a window probe's answer (nothing in flight, RFC
    /// 5681 2 (a)). Neither happens with a fixed window, so this takes no
    /// ACK from the loss recovery of any peer that keeps its window.
    #[inline(always)]
    fn window_news(&mut self, now: Time, h: &TcpHeader, prior_rwnd: u64) -> bool {
        if !self.tells_window(h, prior_rwnd) {
            return false;
        }
        if self.rwnd >= self.w.mss {
            self.stop_probing(now);
        }
        true
    }

    /// ACK `h` at snd_una only tells of the window (`window_news`), the
    /// window before it `prior_rwnd`.
    #[inline(always)]
    pub fn tells_window(&self, h: &TcpHeader, prior_rwnd: u64) -> bool {
        let update = h.window as u64 != prior_rwnd && h.nsack == 0;
        // A probe's answer tells of a window still closed (below a
        // segment): only then is the persist state (a cold line) read.
        let closed = (h.window as u64) < self.w.mss;
        h.ack == self.snd_una && (update || closed && self.answers_probe())
    }

    /// An ACK at snd_una with the window still closed: a window probe's
    /// answer if the probes are on and nothing is in flight.
    #[cold]
    #[inline(never)]
    fn answers_probe(&self) -> bool {
        self.probing() && self.snd_max == self.snd_una
    }

    /// The window the peer advertised last.
    pub fn peer_window(&self) -> u64 {
        self.rwnd
    }

    /// The peer's window before its first ACK, as a handshake would have
    /// told it (a split node's, which its buffer may make smaller than the
    /// configured one).
    pub fn set_peer_window(&mut self, bytes: u64) {
        self.rwnd = bytes;
        self.w.rwnd = bytes;
        self.tso.max_window = bytes;
    }

    /// Linux's in_ack_event() for this ACK: the header prediction misses
    /// an ACK that does not advance snd_una or that carries SACK blocks,
    /// an ECN echo, another flag than ACK and PSH, or a new window.
    #[cold]
    fn ack_event(&mut self, now: Time, h: &TcpHeader, prior_rwnd: u64) {
        let others = flags::ACK | flags::PSH;
        let slow = h.ack == self.snd_una || h.nsack > 0 || h.flags & !others != 0 || h.window as u64 != prior_rwnd;
        let e = super::cc::AckEvent { now, snd_una: h.ack, slow };
        self.cc.on_ack_event(&self.w, &e);
    }

    /// Put the recovery policy back after it ran (`recovery` is empty then:
    /// a plain assignment would call the drop of the empty slot, a call
    /// per ACK).
    #[inline(always)]
    fn put_recovery(&mut self, rec: Box<dyn LossRecovery>) {
        if self.recovery.is_none() {
            self.recovery = Some(rec);
        } else {
            unreachable!("the recovery policy was put back twice");
        }
    }

    /// Bookkeeping common to every ACK of new data: RTT sample, the left
    /// edge, and the counters that a new ACK resets. Returns the bytes acked.
    pub(super) fn advance_una(&mut self, now: Time, h: &TcpHeader) -> u64 {
        if !self.cfg.timerfix {
            // ns-2's newack() with timerfix_ false: newtimer() first.
            self.ack_rto = Some(self.rto.rto());
        }
        self.rtt_measure(now, h);
        self.move_una(h)
    }

    /// A partial ACK in fast recovery as ns-2 handles it (the
    /// `rtt_on_partial_ack = false` rule): the RTT measurement it covers
    /// ends without a sample and the timer backoff is cleared; otherwise as
    /// `advance_una`.
    pub(super) fn advance_una_partial(&mut self, now: Time, h: &TcpHeader) -> u64 {
        if self.cfg.rules.rtt_on_partial_ack {
            return self.advance_una(now, h);
        }
        if matches!(self.rtt_timing, Some((end, _)) if h.ack >= end) {
            self.rtt_timing = None;
            self.rto.clear_backoff();
        }
        self.move_una(h)
    }

    /// A partial ACK that leaves the RTT measurement running
    /// (`sack1_partial_ack_timing`): snd_una moves, nothing else.
    pub(super) fn advance_una_keeping_timing(&mut self, h: &TcpHeader) -> u64 {
        self.move_una(h)
    }

    fn move_una(&mut self, h: &TcpHeader) -> u64 {
        let acked = h.ack - self.snd_una;
        self.snd_una = h.ack;
        self.snd_nxt = self.snd_nxt.max(h.ack);
        self.consecutive_timeouts = 0;
        self.dupacks = 0;
        self.limited_extra = 0;
        self.limited_bytes = 0;
        acked
    }

    /// ECN-Echo: reduce once per window of data, unless loss recovery has
    /// already reduced it (RFC 3168 6.1.2); no retransmission. Returns
    /// whether the window was reduced.
    fn on_ece(&mut self, ack: u64) -> bool {
        // The receiver echoes ECE until it sees CWR, which rides on the first
        // new segment after the reduction (at the old snd_max): ACKs up to
        // and including that point still carry the old echo.
        let window_passed =
            self.ecn_guard.is_none_or(|g| ack > g) || (self.timeout_last && self.cfg.rules.ecn_after_timeout);
        // ns-2's recv() runs ecn() before the ACK's own processing: a new
        // ACK beyond the guard that ends fast recovery is answered too
        // (`ecn_in_recovery`), the cut halving the inflated window.
        let answer_in_recovery = self.cfg.rules.ecn_in_recovery && ack > self.snd_una;
        if !window_passed || (self.in_recovery() && !answer_in_recovery) {
            return false;
        }
        self.timeout_last = false;
        if self.cfg.rules.ecn_backoff {
            // ns-2's ecn(): cwnd_ <= 1 before the cut.
            if self.cc.uninflated_cwnd(&self.w) <= self.w.mss as f64 {
                if self.ecn_backoff {
                    self.rto.back_off();
                }
                self.ecn_backoff = true;
            } else {
                self.ecn_backoff = false;
            }
        }
        let info = self.ack_info(ack, 0, self.flight());
        // Linux's recovery policies answer with their CWR state (the
        // window brought down by PRR); the others cut at once.
        let mut rec = self.recovery.take().expect("recovery policy present");
        let cwr = rec.on_ecn_cut(self);
        self.put_recovery(rec);
        if !cwr {
            self.cc.on_ecn(&mut self.w, &info);
        }
        self.ecn_guard = Some(self.snd_max.max(ack));
        if self.cfg.rules.ecn_hold {
            self.ecn_action = self.ecn_guard;
        }
        self.pending_cwr = true;
        self.stats.ecn_reductions += 1;
        true
    }

    /// A duplicate ACK with the ELN bit: the hole was lost to corruption,
    /// not congestion. Retransmit it once, leave cwnd and ssthresh alone and
    /// keep the duplicate out of the congestion-control policy. Not during
    /// a fast recovery: the recovery has resent the hole itself (the fast
    /// retransmit, NewReno's partial ACK, SACK's holes), and the marked
    /// duplicates that follow it come first from segments sent before that
    /// copy could arrive, so a copy of ELN's would be a second one. ns-2's tcp_eln()
    /// acts only on the first duplicate of an ACK, which none in recovery
    /// is (its dupacks_ stays at or past numdupacks_ until the recovery
    /// ends).
    fn on_eln(&mut self, now: Time, h: &TcpHeader) {
        self.stats.dupacks_received += 1;
        if let Some(sb) = self.sb.as_mut() {
            sb.update(self.snd_una, &h.sack_blocks());
        }
        if self.in_recovery() {
            return;
        }
        let resend = match self.eln_done_for {
            // ns-2's `ack > eln_last_rxmit_`: its ACK numbers the last
            // packet received, one below the hole.
            Some(last) if self.cfg.rules.ns2_eln => self.snd_una > last + self.w.mss,
            last => last != Some(self.snd_una),
        };
        if resend {
            self.eln_done_for = Some(self.snd_una);
            self.stats.eln_retransmits += 1;
            self.pending_head_rtx = true;
            if !self.cfg.rules.ns2_eln || self.rto_deadline.is_none() {
                self.restart_timer(now);
            }
        }
    }

    /// Whether this sender acts on the ELN bit: ns-2.35's Vegas and Sack1
    /// agents never read it (`Ns2Rules::eln_all_variants`).
    fn reads_eln(&self) -> bool {
        self.cfg.rules.eln_all_variants || !(self.variant() == "vegas" || self.recovery_name() == "sack1")
    }

    /// RTT measurement on an ACK of new data: from the timestamp echo when
    /// timestamps are on (RFC 7323 RTTM, every such ACK), otherwise from the
    /// one timed segment (Karn's rule applied when it was retransmitted).
    fn rtt_measure(&mut self, now: Time, h: &TcpHeader) {
        if self.cfg.linux_rtt_samples {
            self.linux_rtt_measure(now, h);
            if self.delay_samples {
                self.delay_sample(now, h, true);
            }
            return;
        }
        if self.delay_samples {
            self.delay_sample(now, h, true);
        }
        if self.cfg.timestamps {
            if let Some((_, ecr)) = h.ts {
                self.last_echo = Some(ecr);
                let backoff = self.rto.backoff();
                self.rtt_sample(h, Rtt::Echo(self.echo_rtt(now, ecr)));
                if !self.cfg.ts_reset_rto {
                    self.rto.restore_backoff(backoff);
                }
            }
            if !self.cfg.ts_reset_rto && matches!(self.rtt_timing, Some((end, _)) if h.ack >= end) {
                // ns-2's newack() with ts_resetRTO_ false: the timed
                // segment's ACK ends the backoff, the sample being the echo's.
                self.rtt_timing = None;
                if !(self.ecn_backoff && self.ecn_seen && h.flags & flags::ECE != 0) {
                    self.rto.clear_backoff();
                }
            }
            return;
        }
        if let Some((end, sent)) = self.rtt_timing {
            if h.ack >= end {
                self.rtt_sample(h, Rtt::Timed(sent, now));
                self.rtt_timing = None;
            }
        }
    }

    /// Linux's tcp_ack_update_rtt(): every ACK of new data is a sample,
    /// from the send time of the oldest segment it acknowledges when none
    /// of them was retransmitted, else from the timestamp echo (when
    /// timestamps are on; tcp_rtt_tsopt_us(): no sample from an echo of
    /// 0 or one ahead of the clock, at least one tick), else none.
    #[inline(never)]
    fn linux_rtt_measure(&mut self, now: Time, h: &TcpHeader) {
        if let Some((_, ecr)) = h.ts.filter(|&(_, ecr)| self.cfg.timestamps && ecr != 0) {
            self.last_echo = Some(ecr);
        }
        let echo = self.linux_echo_rtt(now, h).map(Rtt::Echo);
        let sacked = self.sack_rtt_from.take();
        if let Some(r) = self.seq_rtt_from.take().or(sacked).map(|sent| Rtt::Timed(sent, now)).or(echo) {
            self.rtt_sample(h, r);
        }
    }

    /// tcp_rtt_tsopt_us(): the round trip of this ACK's timestamp echo at
    /// `now`, for the estimator and the congestion control alike; none
    /// with timestamps off, for an echo of 0 or for one ahead of the clock,
    /// and at least one tick.
    fn linux_echo_rtt(&self, now: Time, h: &TcpHeader) -> Option<Time> {
        let (_, ecr) = h.ts.filter(|&(_, ecr)| self.cfg.timestamps && ecr != 0)?;
        let unit = self.ts_unit();
        let ticks = ((now / unit) as u32).wrapping_sub(ecr) as i32;
        (ticks >= 0).then(|| ticks.max(1) as u64 * unit)
    }

    /// With `linux_rtt_samples`: note Linux's SACK RTT sample of an ACK
    /// before the scoreboard takes its blocks (`sack_rtt_from`): the send
    /// time of the lowest segment they newly SACK that was sent once. The
    /// per-segment log is in sequence order, so the first such is it.
    pub(super) fn note_sack_rtt(&mut self, blocks: &[crate::packet::SackBlock]) {
        if !self.cfg.linux_rtt_samples && !self.delay_samples {
            return;
        }
        let Some(sb) = self.sb.as_ref().filter(|_| !blocks.is_empty()) else {
            self.sack_rtt_from = None;
            self.sack_ca_from = None;
            return;
        };
        let newly = |s: &&SentSeg| {
            s.transmits == 1 && blocks.iter().any(|b| b.start <= s.seq && s.end <= b.end) && !sb.is_sacked(s.seq, s.end)
        };
        self.sack_rtt_from = self.sent.iter().find(newly).map(|s| s.time);
        if self.delay_samples {
            self.sack_ca_from = self.sent.iter().rev().find(newly).map(|s| s.time);
        }
    }

    /// A duplicate ACK (Linux: any ACK while data is out) whose blocks
    /// newly SACKed a segment sent once: Linux's tcp_ack_update_rtt() takes
    /// the SACK sample (the ACK of new data takes it in `rtt_measure`).
    pub(super) fn sack_rtt_on_dupack(&mut self, now: Time, h: &TcpHeader) {
        if let Some(sent) = self.sack_rtt_from.take() {
            if self.cfg.linux_rtt_samples {
                self.rtt_sample(h, Rtt::Timed(sent, now));
            }
        }
        if self.delay_samples {
            self.delay_sample(now, h, false);
        }
    }

    /// Linux's pkts_acked() with this ACK's delay (ca_rtt_us): the newest
    /// segment newly SACKed, else (`cumulative`: an ACK of new data) the
    /// newest acknowledged, else on an ACK of new data the timestamp echo
    /// (tcp_ack_update_rtt() takes it only with FLAG_ACKED); none when no
    /// segment sent once was newly acknowledged and there is no echo.
    #[inline(never)]
    fn delay_sample(&mut self, now: Time, h: &TcpHeader, cumulative: bool) {
        let cum = self.ca_rtt_from.take().filter(|_| cumulative);
        let timed = self.sack_ca_from.take().or(cum).map(|sent| now.saturating_sub(sent));
        let echo = || self.linux_echo_rtt(now, h).filter(|_| cumulative);
        let Some(rtt) = timed.or_else(echo) else { return };
        if let Some(r) = self.rack.as_mut() {
            r.note_rtt(rtt);
        }
        let s = super::cubic::DelaySample {
            now,
            rtt,
            snd_una: h.ack.max(self.snd_una),
            snd_nxt: self.snd_max,
            srtt: self.rto.srtt,
        };
        self.cc.on_delay_sample(&mut self.w, &s);
    }

    /// Every RTT sample goes to the estimator through here (the SYN-ACK's
    /// aside).
    #[inline(always)]
    fn rtt_sample(&mut self, h: &TcpHeader, r: Rtt) {
        // Linux's estimator ends its round trips by snd_una (this ACK's)
        // and snd_nxt, the kernel's highest sequence sent: snd_max here,
        // whose snd_nxt goes back to snd_una at a timeout (go-back-N).
        self.rto.at_ack(h.ack, self.snd_max.max(h.ack));
        if self.ecn_backoff {
            return self.rtt_sample_ecn_backoff(h, r);
        }
        r.feed(&mut self.rto);
    }

    /// ns-2's newack() with `ecn_backoff`: an RTT sample ends the timer's
    /// backoff unless the ACK carries ECE while the sender is marked by a
    /// cut at a window of one; when it ends, so does the mark.
    #[inline(never)]
    fn rtt_sample_ecn_backoff(&mut self, h: &TcpHeader, r: Rtt) {
        let backoff = self.rto.backoff();
        r.feed(&mut self.rto);
        if self.ecn_seen && h.flags & flags::ECE != 0 {
            self.rto.restore_backoff(backoff);
        } else {
            self.ecn_backoff = false;
        }
    }

    /// The retransmission timer fires at `now`. Returns false if it was stale.
    pub fn on_timeout(&mut self, now: Time) -> bool {
        if self.gated && self.pacing_due(now) {
            // The pacing timer: tcp_write_xmit() again, as after an ACK.
            self.note_time(now);
            self.now = now;
            self.burst_left = self.burst_start();
            return true;
        }
        match self.rto_deadline {
            Some(d) if d <= now && !self.aborted => {}
            _ => return false,
        }
        self.note_time(now);
        self.now = now;
        self.burst_left = self.burst_start();
        if self.rack.is_some() {
            let mut rec = self.recovery.take().expect("recovery policy present");
            let handled = rec.on_timer(self, now);
            self.put_recovery(rec);
            if handled {
                return true;
            }
        }
        self.stats.timeouts += 1;
        let lost_before = self.recovery.as_deref().map_or(0, |r| r.lost_total(self));
        self.timeout_last = true;
        self.loss_cut();
        self.loss_guard();
        self.consecutive_timeouts += 1;
        if let Some(max) = self.cfg.max_retransmits {
            if self.consecutive_timeouts > max {
                self.aborted = true;
                self.rto_deadline = None;
                return true;
            }
        }
        if self.syn_pending {
            // ns-2: a lost first packet means an initial window of one
            // (`lost_syn_window`), and slowdown() from a one-segment window
            // leaves ssthresh at 2.
            self.cfg.initial_window = self.cfg.lost_syn_window;
            self.w.ssthresh = 2 * self.w.mss;
            self.rto.back_off();
            self.rto_deadline = None;
            return true;
        }
        if self.cfg.rules.cwnd_below_one && self.snd_una == self.snd_max && !self.cc.owns_stall() {
            // A sender stalled by a window below one segment, nothing
            // outstanding: ns-2's timeout() with restart_bugfix_ sets cwnd_
            // to 1 without cutting ssthresh or backing the timer off, and
            // sends the next new segment.
            self.w.cwnd = self.w.mss;
        } else {
            let mut info = self.ack_info(self.snd_una, 0, self.flight());
            // ns-2's timeout() leaves ssthresh alone when an ECN cut was the
            // last congestion action: its test highest_ack_ < recover_
            // comes after recover_ = maxseq_, so it holds whenever data is
            // outstanding, however long ago the cut's window ended.
            info.ecn_recover = self.ecn_action;
            self.pre_cut = (self.w.cwnd, self.w.ssthresh);
            if self.recovery.as_deref().is_some_and(|r| r.keeps_cut_on_timeout(self)) {
                self.cc.on_timeout_keeping_cut(&mut self.w, &info);
            } else {
                self.cc.on_timeout(&mut self.w, &info);
            }
            let mut rec = self.recovery.take().expect("recovery policy present");
            rec.on_timeout(self);
            self.put_recovery(rec);
            if self.ap.as_deref().is_none_or(|ap| ap.p.backoff) {
                self.rto.back_off();
            }
        }
        self.ecn_action = None;
        self.w.ca_frac = 0.0;
        if self.rack.is_none() {
            // Go back N (RACK keeps the scoreboard and resends what it
            // marked lost).
            self.snd_nxt = self.snd_una;
        }
        if !self.cc.keeps_dupacks_on_timeout() {
            self.dupacks = 0;
        }
        self.limited_extra = 0;
        self.limited_bytes = 0;
        self.pending_head_rtx = false;
        self.rtt_timing = None;
        self.restart_timer(now);
        if self.paced {
            self.rate_timeout(lost_before);
        }
        if let Some(ap) = self.ap.as_deref_mut() {
            ap.stop();
        }
        debug_assert!(self.w.cwnd >= self.w.mss, "cwnd below one MSS");
        true
    }
}

/// TCP_INFINITE_SSTHRESH: no ssthresh (a rate-based sender's until BBR's
/// DRAIN sets one).
pub(super) const INFINITE_SSTHRESH: u64 = u64::MAX;

/// What a rate-based sender notes before an ACK's processing.
#[derive(Clone, Copy)]
pub(super) struct RateBefore {
    cwnd: u64,
    state: super::bbr::CaState,
    lost: u64,
    undos: u64,
}

/// A rate-based congestion control (BBR) under Linux's `cong_control`:
/// the sender samples the delivery rate of every ACK, lets the control set
/// the window and the pacing rate, and paces.
impl TcpSender {
    fn srtt_us(&self) -> u64 {
        self.rto.srtt.map_or(0, |t| t / 1_000)
    }

    /// A segment left: its delivery state, and the next departure time.
    #[cold]
    #[inline(never)]
    fn paced_send(&mut self, now: Time, seq: u64, len: u32, retransmit: bool) {
        // The pacing is charged the payload: __tcp_transmit_skb() passes
        // tcp_update_skb_after_send() the write queue's skb, not the clone
        // that carries the headers.
        let p = self.rate.as_deref_mut().unwrap();
        p.sampler.on_send(now, seq, seq + len as u64, retransmit);
        p.sent(now, len as u64);
    }

    /// CA_EVENT_TX_START: new data leaves with nothing in flight.
    #[cold]
    #[inline(never)]
    fn rate_tx_start(&mut self, now: Time) {
        let app_limited = self.rate.as_deref().unwrap().sampler.app_limited();
        let srtt = self.srtt_us();
        let mut cwnd = self.w.cwnd / self.w.mss;
        if let Some(b) = self.cc.rate_based() {
            b.tx_start(now, app_limited, &mut cwnd, srtt);
            self.rate.as_deref_mut().unwrap().rate = b.pacing_rate();
        }
        self.w.cwnd = cwnd * self.w.mss;
    }

    /// tcp_rate_check_app_limited() at an application write: less than a
    /// segment left to send with the window open.
    fn rate_check_app_limited(&mut self) {
        let in_flight = self.flight().div_ceil(self.w.mss);
        let left = self.app_limit().saturating_sub(self.snd_nxt);
        if left < self.w.mss && in_flight * self.w.mss < self.w.cwnd {
            self.rate.as_deref_mut().unwrap().sampler.mark_app_limited(in_flight);
        }
    }

    /// Before the recovery policy sees the ACK: what it delivers (SACK
    /// blocks, the cumulative ACK, a duplicate without SACK).
    #[cold]
    #[inline(never)]
    fn rate_ack_begin(&mut self, rec: &dyn LossRecovery, h: &TcpHeader) -> RateBefore {
        let in_flight = rec.packets_in_flight(self);
        let reno = self.sb.is_none();
        let dup = h.ack == self.snd_una && self.snd_max > self.snd_una;
        let (una, undos) = (self.snd_una, self.undo_counts.0);
        let p = self.rate.as_deref_mut().unwrap();
        p.sampler.begin_ack(in_flight);
        if h.nsack > 0 && !reno {
            p.sampler.on_sack(&h.sack_blocks());
        }
        if h.ack > una {
            p.sampler.on_cumulative(h.ack, reno);
        } else if dup && reno {
            p.sampler.on_reno_dupack();
        }
        RateBefore { cwnd: self.w.cwnd, state: rec.ca_state(self), lost: rec.lost_total(self), undos }
    }

    /// After the recovery policy: the window Linux's own processing leaves
    /// under `cong_control` (the recovery's PRR does not run; the end of a
    /// recovery or CWR state sets cwnd to a finite ssthresh), then BBR.
    #[cold]
    #[inline(never)]
    fn rate_ack_end(&mut self, rec: &dyn LossRecovery, now: Time, b: RateBefore) {
        use super::bbr::{CaState, RateCtx};
        let state = rec.ca_state(self);
        let ended = state == CaState::Open && matches!(b.state, CaState::Recovery | CaState::Cwr);
        self.w.cwnd =
            if ended && self.w.ssthresh < INFINITE_SSTHRESH { self.w.ssthresh.max(self.w.mss) } else { b.cwnd };
        self.w.ca_frac = 0.0;
        let losses = rec.lost_total(self).saturating_sub(b.lost);
        let in_flight = rec.packets_in_flight(self);
        let srtt_us = self.srtt_us();
        let undone = self.undo_counts.0 > b.undos;
        let p = self.rate.as_deref_mut().unwrap();
        let rs = p.sampler.finish_ack(now, losses);
        let ctx = RateCtx {
            now,
            ca_state: state,
            in_flight,
            delivered: p.sampler.delivered,
            delivered_us: p.sampler.delivered_us,
            lost: p.sampler.lost,
            srtt_us,
            wstamp: p.wstamp,
        };
        let bbr = self.cc.rate_based().expect("rate-based congestion control");
        if undone {
            bbr.on_undo();
        }
        bbr.main(&mut self.w, &rs, &ctx);
        if bbr.wants_app_limited {
            p.sampler.mark_app_limited(in_flight);
        }
        p.rate = bbr.pacing_rate();
    }

    /// After a timeout: the segments it marked lost, then BBR's Loss state.
    #[cold]
    #[inline(never)]
    fn rate_timeout(&mut self, lost_before: u64) {
        let lost = self.recovery.as_deref().map_or(0, |r| r.lost_total(self));
        let p = self.rate.as_deref_mut().unwrap();
        p.sampler.lost += lost.saturating_sub(lost_before);
        p.sampler.on_timeout();
        p.waiting = false;
        let bbr = self.cc.rate_based().expect("rate-based congestion control");
        bbr.enter_loss(p.sampler.lost);
    }

    /// The pacing wait ended at `now` (the socket's timer): true if that
    /// is why the timer fired.
    fn pacing_due(&mut self, now: Time) -> bool {
        if self.rto_deadline.is_some_and(|d| d <= now) {
            return false;
        }
        if let Some(ap) = self.ap.as_deref_mut() {
            return ap.due(now);
        }
        let Some(p) = self.rate.as_deref_mut() else { return false };
        if p.waiting && p.wstamp <= now {
            p.waiting = false;
            return true;
        }
        false
    }

    /// May a segment leave at `now` under the pacing? If not, the sender
    /// waits for the gate's deadline.
    #[cold]
    fn gate_open(&mut self, now: Time) -> bool {
        match self.ap.as_deref_mut() {
            Some(ap) => ap.check(now),
            None => self.rate.as_deref_mut().unwrap().check(now),
        }
    }

    #[cold]
    fn gated_send(&mut self, now: Time, seq: u64, len: u32, retransmit: bool) {
        match self.ap.as_deref_mut() {
            Some(ap) => ap.sent(now),
            None => self.paced_send(now, seq, len, retransmit),
        }
    }

    /// An ACK arrives with IP TTL `ttl`: TCP-AP counts the hops it
    /// crossed (every router on its path took one off, `forward.rs`; its
    /// source none). Called by the socket before `on_ack`.
    #[inline(always)]
    pub fn note_ack_ttl(&mut self, ttl: u8) {
        if let Some(ap) = self.ap.as_deref_mut() {
            ap.hops = crate::packet::DEFAULT_TTL.saturating_sub(ttl) as u32 + 1;
        }
    }

    /// TCP-AP hears an ACK before the sender acts on it: the pacing's
    /// ticks caught up, and the round trip its timestamp echo gives (the
    /// segment that drew it, sent when the echoed value was stamped)
    /// split over the hops the ACK crossed (`AdaptivePacing::hops`, set by
    /// the socket from its TTL).
    #[cold]
    #[inline(never)]
    fn ap_ack(&mut self, now: Time, h: &TcpHeader) {
        let rtt = h.ts.filter(|&(_, ecr)| ecr != 0 || self.cfg.ns2_timestamps).map(|(_, ecr)| self.echo_rtt(now, ecr));
        let mss = self.w.mss as u32;
        let ap = self.ap.as_deref_mut().unwrap();
        ap.ack_arrives(now);
        if let Some(rtt) = rtt {
            ap.sample(rtt as f64 / 1e9, mss);
        }
    }

    /// The pacing rate (bytes a second; 0 before one is set) and BBR's
    /// model, for the series: (pacing rate, bandwidth estimate in bytes a
    /// second, least RTT, mode).
    pub fn rate_report(&self) -> Option<(u64, Option<u64>, Option<Time>, &'static str)> {
        if let Some(ap) = self.ap.as_deref() {
            // TCP-AP: one segment's payload a pacing interval.
            let rate = ap.segments_per_second()? * self.w.mss as f64;
            return Some((rate.round() as u64, None, None, "none"));
        }
        let Some(b) = self.cc.bbr() else {
            // Linux keeps sk_pacing_rate for every socket (tcpi_pacing_rate
            // reports it): where the sender models Linux's TSO machinery,
            // the one reader of that rate without BBR or fq, so does the
            // series. Before the first RTT sample there is no rate.
            let known = self.tso_defer && self.rto.srtt.is_some();
            return known.then(|| (self.linux_pacing_rate(), None, None, "none"));
        };
        let rtt = (b.min_rtt_us() != u64::MAX).then(|| b.min_rtt_us() * 1_000);
        let pacing = self.rate.as_deref().map_or(0, |p| p.rate);
        Some((pacing, Some(b.bw_bytes_per_sec()), rtt, b.mode.name()))
    }
}
