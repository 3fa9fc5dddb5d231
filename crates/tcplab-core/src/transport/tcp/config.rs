//! Resolved TCP parameters of one connection, and the named default sets.
//! This file is the one place where tcplab's TCP defaults live.

use crate::engine::time::{MS, SEC, US};
use crate::engine::Time;

/// When the receiver sends ACKs.
#[derive(Clone, Debug, PartialEq)]
pub enum AckPolicy {
    /// One ACK per segment.
    Immediate,
    /// One ACK per two full segments or after the delayed-ACK timeout.
    Delayed,
    /// One ACK per d segments, d = 1 + number of `thresholds` (segments of
    /// in-order data) already passed; the timeout acknowledges stragglers.
    Thinning { thresholds: [u64; 3] },
}

/// Nagle's rule for segments shorter than the MSS (new data only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nagle {
    /// A short segment goes as soon as the window allows (ns-2's agents,
    /// TCP_NODELAY; SPEC: off by default).
    Off,
    /// RFC 896 / RFC 1122 4.2.3.4: a short segment waits while any data is
    /// unacknowledged, until it is all acknowledged or a full segment's
    /// worth is written.
    Rfc896,
    /// Minshall's variant, Linux's rule: a short segment waits only while
    /// an earlier short segment is unacknowledged.
    Minshall,
}

/// The window a receiver advertises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiveWindow {
    /// The configured window, always (ns-2's TCPSink, the RFCs' receiver
    /// with a buffer of that size read at once).
    Fixed,
    /// Linux's (6.18): from about 64 kB growing with the data received,
    /// under the receive buffer's autotuning, never above the configured
    /// window, its right edge still while a hole is open
    /// (`transport/tcp/linux_rwnd.rs`). `truesize`: the memory charged per
    /// received segment, None for this host's TUN path
    /// (`linux_rwnd::tun_truesize`).
    Linux { rcvbuf: u32, rcvbuf_max: u32, truesize: Option<u32> },
}

/// Linux's SACK compression at the receiver (kernel 4.18 on; the
/// sysctls net.ipv4.tcp_comp_sack_nr, tcp_comp_sack_delay_ns and
/// tcp_comp_sack_slack_ns): while data is held out of order, after three
/// ACKs at once for the same cumulative ACK, the ACKs of further
/// out-of-order segments wait on a timer of min(`delay`, 5 % of the
/// receiver's RTT) plus `slack`, and one ACK then answers them all
/// (`receiver.rs`, `__tcp_ack_snd_check()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompSack {
    /// The most ACKs one compressed ACK stands for (tcp_comp_sack_nr);
    /// 0: no compression.
    pub nr: u32,
    /// The timer's cap (tcp_comp_sack_delay_ns).
    pub delay: Time,
    /// The timer's slack (tcp_comp_sack_slack_ns): an hrtimer with this
    /// range fires at its end on an otherwise idle CPU.
    pub slack: Time,
}

impl CompSack {
    /// The kernel's defaults: 44, 1 ms, 100 us.
    pub const LINUX: CompSack = CompSack { nr: 44, delay: MS, slack: 100 * US };
    /// Off, the delays kept at the kernel's.
    pub const OFF: CompSack = CompSack { nr: 0, ..Self::LINUX };
}

/// What a sender does with its window when the application writes again
/// after everything written was acknowledged and the sender sat idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleRestart {
    /// ns-2.35's: the retransmission timer runs on with nothing
    /// outstanding (newtimer()), and each expiry sets cwnd to one segment
    /// without cutting ssthresh or backing off (timeout() with
    /// slow_start_restart_ and restart_bugfix_), re-arming itself; the
    /// first segment after the pause finds the timer still running.
    Ns2Timer,
    /// RFC 5681 4.1: idle for more than one RTO since the last segment
    /// sent, cwnd is cut to the restart window min(IW, cwnd).
    Rfc5681,
    /// Linux's tcp_cwnd_restart() (net.ipv4.tcp_slow_start_after_idle 1):
    /// idle for more than one RTO since the last segment sent, ssthresh
    /// rises to at least 3/4 cwnd and cwnd halves once per whole RTO of
    /// idleness, not below min(IW, cwnd).
    Linux,
    /// The window is kept.
    Off,
}

/// Altman & Jimenez (2003): d = 2 from the 2nd segment, 3 from the 5th, 4 from the 9th.
pub const DEFAULT_THINNING: [u64; 3] = [2, 5, 9];

/// Vegas thresholds in segments (Brakmo & Peterson; ns-2: 1, 3, 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasParams {
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams { alpha: 1.0, beta: 3.0, gamma: 1.0 }
    }
}

/// A named set of defaults switched together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpProfile {
    /// ns-2.35's `Agent/TCP` and `Agent/TCPSink` defaults and algorithms
    /// (`Ns2Rules::ns2`): the simulator the classic studies used.
    Ns2,
    /// ns-2.35's parameter values with the RFCs' algorithms (RFC 5681,
    /// 6582, 6675, 3168, 6298): the rules alone differ from `Ns2`.
    Rfc,
    /// Linux (5.x/6.x) defaults as far as this model has them.
    Linux,
}

/// Where ns-2.35's TCP algorithms differ from the RFCs: each rule can be
/// switched alone. `ns2()` is what ns-2.35 does, `rfc()` what the RFCs say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns2Rules {
    /// ssthresh on a loss or ECN echo from min(cwnd, rwnd) / 2 in whole
    /// segments, cwnd to exactly half of that window (ns-2's slowdown() with
    /// precisionReduce_), instead of RFC 5681's max(FlightSize / 2, 2 SMSS)
    /// with cwnd = ssthresh. A timeout in fast recovery starts from the
    /// window without its inflation (ns-2 clears dupwnd_ before slowdown()),
    /// i.e. from the already halved window.
    pub loss_window_from_cwnd: bool,
    /// ECN as ns-2's TcpAgent: no cwnd increase on any ACK carrying ECE (not
    /// only the one that cut the window), and no second cut of ssthresh by
    /// a fast retransmit or timeout within the window of an ECN cut.
    pub ecn_hold: bool,
    /// Reno refuses a fast retransmit for duplicate ACKs of data sent before
    /// the last fast retransmit or timeout (ns-2's bugFix_): several losses
    /// in one window end in a timeout instead of repeated halvings.
    pub reno_careful: bool,
    /// Leaving Reno/NewReno fast recovery as ns-2: cwnd becomes ns-2's
    /// cwnd_, the window without the inflation still counted in dupwnd_
    /// (after NewReno's partial-ACK deflations that can be below the halved
    /// window), and the same ACK opens it once more (recv_newack_helper()
    /// runs opencwnd()); RFC 6582: cwnd = ssthresh, no increase.
    pub ns2_recovery_exit: bool,
    /// SACK loss recovery as ns-2's Agent/TCP/Sack1 (a pipe counter, every
    /// unSACKed hole below the highest SACK retransmitted once, cwnd held at
    /// the halved window after recovery) instead of RFC 6675.
    pub sack1_recovery: bool,
    /// A partial ACK in fast recovery yields an RTT sample (RFC 6298 with
    /// Karn's rule). ns-2 (false) ends the measurement it covers without a
    /// sample and clears the timer backoff instead.
    pub rtt_on_partial_ack: bool,
    /// SACK option as ns-2's TCPSink/Sack1: at most 3 blocks, 8 bytes each
    /// on the wire with no option kind, length or padding (instead of
    /// RFC 2018's 2 + 8 per block, padded to 4 bytes, up to 4 blocks).
    pub ns2_sack_option: bool,
    /// RTT estimation and RTO as ns-2's TcpAgent (RTTs counted in ticks of
    /// `granularity`, scaled-integer SRTT/RTTVAR) instead of RFC 6298 on
    /// exact times.
    pub ns2_rtt_estimator: bool,
    /// Vegas computes its rates as ns-2's agent (segments sent in the last
    /// round trip for Actual, outstanding after the ACK + 1 for Expected,
    /// the estimator started on ns-2's Vegas clock, which runs from the
    /// first data segment's send: firstrecv_, v_begtime_ 0, no sample from
    /// a segment sent at that instant)
    /// instead of from the data in transit, as the paper and Linux.
    pub ns2_vegas: bool,
    /// Vegas keeps send times and transmission counts as ns-2's agent: in
    /// slots indexed by packet number modulo the window (v_sendtime_,
    /// v_transmits_), cleared on each ACK by ns-2's loop, which skips an
    /// ACK whose segments straddle the wrap (a later segment in such a
    /// slot then counts as sent twice). Otherwise each segment's own.
    /// With it, the rest of ns-2's Vegas send path: a retransmission leaves
    /// the next new segment where it was (output() does not move
    /// t_seqno_, so a segment there goes out twice, and the RTT
    /// measurement runs on), a timeout leaves v_worried_ as it was, the
    /// first duplicate ACKs send nothing (no Limited Transmit), a loss
    /// cuts window() = min(cwnd_, wnd_), not cwnd alone (docs/validation.md,
    /// "Vegas with loss both ways"), and v_worried_ counts from the last
    /// packet acknowledged.
    pub ns2_vegas_slots: bool,
    /// An ECN flow's Vegas segments are ECN-capable. ns-2.35's
    /// VegasTcpAgent::output() builds its packets without TcpAgent's ECN
    /// part, so there "E-Vegas" sends nothing ECT and runs as plain Vegas;
    /// the ns2 profile does the same, the others mark as any ECN flow. A
    /// rule of its own (not part of the send path's slots) so a study can
    /// ask for the ECN-capable Vegas its experiment names.
    pub vegas_ecn: bool,
    /// ns-2.35's ELN sender (TcpAgent::tcp_eln): the copy goes with
    /// output(), which leaves a running retransmission timer as it is, and
    /// a hole is resent only for an ACK above the last packet resent
    /// (`ack > eln_last_rxmit_`), so the hole just after an ELN copy gets
    /// none. Off: the paper's sender, each hole once, timer restarted.
    pub ns2_eln: bool,
    /// Every variant reads the ELN bit. ns-2.35's Vegas and Sack1 agents
    /// never do (their recv() has no ELN branch: a marked duplicate is an
    /// ordinary one there); the ns2 profile does the same, the others let
    /// every variant answer it. A rule of its own, as `vegas_ecn`, so a
    /// study can ask for the ELN-aware Vegas its experiment names.
    pub eln_all_variants: bool,
    /// ns-2.35's Vegas window after a timeout: a timeout sets v_newcwnd_ to
    /// 0, and a new ACK after more than numdupacks_ duplicates deflates
    /// cwnd_ to it; with a window below one segment ns-2 keeps the
    /// retransmission timer running (TcpAgent::newtimer), so the sender
    /// waits for it even with nothing outstanding and starts again from
    /// its timeout. A known defect (the 1999 "drop dead" report), so off
    /// in every profile: otherwise the window stays at least one segment
    /// (docs/validation.md, "Vegas with loss both ways").
    pub vegas_zero_window: bool,
    /// Delayed ACKs as ns-2's DelAckSink: a segment whose number is that of
    /// the last in-order segment (a retransmission of data already held,
    /// e.g. after a go-back-N timeout) counts as in sequence, so with no
    /// ACK pending it starts the timer instead of drawing an ACK at once
    /// (tcp-sink.cc tests `seqno == acker_->Seqno()`); and packet 0 is
    /// acknowledged at once (SYN_immediate_ack_ tests the number, so a
    /// connection without a SYN, Vegas's, has its first data segment
    /// acknowledged at once). Otherwise a duplicate is acknowledged at once
    /// and the first data segment is delayed like any (RFC 5681 4.2).
    pub ns2_delack_sink: bool,
    /// Tahoe keeps its duplicate-ACK count across a timeout: ns-2's
    /// TcpAgent::timeout() leaves dupacks_ (Reno, NewReno, Sack1 and Vegas
    /// clear it in their own timeout()), so the duplicates that follow a
    /// timeout reach the threshold sooner, where the bugFix_ guard refuses
    /// them, and send nothing (no Limited Transmit on them).
    pub tahoe_timeout_dupacks: bool,
    /// ECN on retransmissions as ns-2's TcpAgent::output(): every data
    /// segment is ECT, retransmissions too, and a pending CWR goes on the
    /// next segment sent, a retransmission too (SetCWRonRetransmit_, true
    /// in ns-2.35). RFC 3168 6.1.5: retransmissions are not ECT, so CWR
    /// waits for new data.
    pub ect_retransmits: bool,
    /// The RTT measurement as ns-2 keeps it: only a fast retransmit or a
    /// timeout ends it (reset_rtx_timer() clears rtt_active_); the
    /// retransmissions ns-2 sends with output() (NewReno's on a partial
    /// ACK, Sack1's holes in recovery, Vegas's expired segments) leave it
    /// running. Otherwise (Karn, RFC 6298) any retransmission of data at
    /// or below the timed segment ends it. With it, too, the timer's
    /// backoff ends only with an RTT sample, so the ACK of a retransmitted
    /// SYN (not timed) leaves it for the first data segments (RFC 6298
    /// 5.7: it ends when the handshake completes, and the RTO is then at
    /// least 3 s until the first sample, as in Linux, which false does).
    pub ns2_rtt_timing: bool,
    /// ECN after a timeout as ns-2's TcpAgent::ecn(): the first ECN echo
    /// after a timeout (before any other cut) cuts the window again even
    /// within the window of data already answered (last_cwnd_action_ ==
    /// CWND_ACTION_TIMEOUT), typically to ssthresh 2 from the restarted
    /// window. RFC 3168 6.1.2 answers one window of data once.
    pub ecn_after_timeout: bool,
    /// ECN flows: an echo on the new ACK that ends fast recovery, beyond the
    /// window of the last cut, is answered on that ACK (ns-2's recv() runs
    /// ecn() before the ACK's processing): Reno and NewReno halve the
    /// inflated window (windowd() = cwnd_ + dupwnd_) and leave recovery
    /// with that, Sack1 halves cwnd_. RFC 3168 (off): no answer while in
    /// recovery; the next echo after it cuts.
    pub ecn_in_recovery: bool,
    /// ns-2's `ecn_backoff_`: an ECN cut at a window of one segment marks
    /// the sender; the next such cut while marked backs the retransmission
    /// timer off (rtt_backoff()), and an RTT sample on an ACK that carries
    /// ECE does not end that backoff while marked. A new ACK without ECE
    /// clears the mark. RFC 3168 6.1.2 instead waits for the timer before
    /// the next new segment (not modelled; docs/models.md).
    pub ecn_backoff: bool,
    /// A halving (an ECN echo, or a loss at a window below two segments)
    /// may leave cwnd below one segment, as ns-2.35's slowdown(), which
    /// bounds ssthresh at 2 but not the halved cwnd_ (window() is then 0).
    /// The sender sends nothing and keeps its retransmission timer
    /// running (newtimer()); the expiry restarts it at one segment, with
    /// nothing outstanding without a cut of ssthresh or a backoff
    /// (restart_bugfix_). This is how ns-2 meets RFC 3168 6.1.2's wait at a
    /// window of one. Otherwise cwnd stays at least one segment.
    pub cwnd_below_one: bool,
    /// CWR after every window reduction of an ECN flow, as ns-2's
    /// slowdown() (cong_action_ on any cut of cwnd: a fast retransmit's
    /// and a timeout's too), not only after the answer to an ECN echo
    /// (RFC 3168 6.1.2), so that the receiver stops echoing once the
    /// sender has reduced for whatever reason.
    pub cwr_after_loss: bool,
    /// ns-2.35's NewReno (newreno_changes_ 0, its default) sends at most two
    /// segments per ACK while dupacks_ >= numdupacks_ (send_much(0, 0, 2)
    /// in tcp-newreno.cc's recv()): in fast recovery, on duplicates and
    /// partial ACKs alike, not counting the retransmission of the hole.
    /// RFC 6582 has no such limit (its section 3.2 step 5 sends what the
    /// window allows). Not for NewReno with SACK (ns-2's Sack1 agent).
    pub newreno_burst: bool,
    /// The careful variants' test before a fast retransmit (ns-2's
    /// bugFix_: `reno_careful`, `newreno_careful`, `tahoe_careful`) in
    /// ns-2's packet numbers, as its dupack_action() makes it: recover_
    /// starts at 0, the SYN (when sent) is packet 0, and a fast retransmit
    /// is let through while highest_ack_ is 0 (bugfix_ss_, the loss of the
    /// first data packet after the SYN, or of the second without one).
    /// Off: in bytes, the ACK above `recover`, which is unset until the
    /// first loss event (RFC 6582's careful variant with recover
    /// initialised to the initial sequence number).
    pub ns2_recover_numbers: bool,
    /// Without a SYN, the first data segment (ns-2's packet 0) goes on the
    /// wire with its payload's bytes only: ns-2's TcpAgent::output() adds
    /// headersize() to every packet but number 0 (a SYN when there is one,
    /// else the first data packet), so that one is 40 bytes shorter than
    /// the others, its retransmissions too. Not Vegas (ns-2's Vegas agent
    /// sends every packet without the header). Off: every segment carries
    /// its headers.
    pub ns2_headerless_first: bool,
}

impl Ns2Rules {
    pub const fn ns2() -> Self {
        Ns2Rules {
            loss_window_from_cwnd: true,
            ecn_hold: true,
            reno_careful: true,
            ns2_recovery_exit: true,
            sack1_recovery: true,
            rtt_on_partial_ack: false,
            ns2_sack_option: true,
            ns2_rtt_estimator: true,
            ns2_vegas: true,
            ns2_vegas_slots: true,
            vegas_zero_window: false,
            vegas_ecn: false,
            ns2_eln: true,
            eln_all_variants: false,
            ns2_delack_sink: true,
            tahoe_timeout_dupacks: true,
            ect_retransmits: true,
            ns2_rtt_timing: true,
            ecn_after_timeout: true,
            ecn_in_recovery: true,
            ecn_backoff: true,
            cwnd_below_one: true,
            cwr_after_loss: true,
            newreno_burst: true,
            ns2_recover_numbers: true,
            ns2_headerless_first: true,
        }
    }

    pub const fn rfc() -> Self {
        Ns2Rules {
            loss_window_from_cwnd: false,
            ecn_hold: false,
            reno_careful: false,
            ns2_recovery_exit: false,
            sack1_recovery: false,
            rtt_on_partial_ack: true,
            ns2_sack_option: false,
            ns2_rtt_estimator: false,
            ns2_vegas: false,
            ns2_vegas_slots: false,
            vegas_zero_window: false,
            vegas_ecn: true,
            ns2_eln: false,
            eln_all_variants: true,
            ns2_delack_sink: false,
            tahoe_timeout_dupacks: false,
            ect_retransmits: false,
            ns2_rtt_timing: false,
            ecn_after_timeout: false,
            ecn_in_recovery: false,
            ecn_backoff: false,
            cwnd_below_one: false,
            cwr_after_loss: false,
            newreno_burst: false,
            ns2_recover_numbers: false,
            ns2_headerless_first: false,
        }
    }
}

/// `repr(C)`: the fields a sender reads on every ACK (the advertised
/// window and the feature switches) come first, so that they share one
/// cache line inside `TcpSender`.
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct TcpConfig {
    /// Receiver's advertised window in bytes.
    pub rwnd: u64,
    /// ECN (RFC 3168): ECT on new data, react to ECE once per window, CWR.
    pub ecn: bool,
    /// Honour the ELN bit: retransmit without a congestion response.
    pub eln: bool,
    /// The retransmission slot's and the delayed-ACK timers go off as the
    /// kernel's jiffy timers do (`jiffies.rs`): the wait in whole
    /// `granularity` ticks, then the timer wheel's bucket, on the clock of
    /// `clock_phase` and `jiffies_start`: a short timer fires up to one
    /// tick late, a 1 s one up to 8 (linux profile); false: at the wait's
    /// end. Read whenever a timer is armed, so it sits with the hot fields.
    pub timer_wheel: bool,
    /// Timestamps option (RFC 7323): 12 bytes per segment, RTT from every ACK.
    pub timestamps: bool,
    /// RFC 3042 Limited Transmit: a new segment on each of the first
    /// dupthresh-1 duplicate ACKs (ns-2's singledup_, on by default there).
    pub limited_transmit: bool,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery.
    pub sack: bool,
    /// NewReno resets the retransmission timer on every partial ACK
    /// ("Slow-but-Steady", RFC 6582 4) instead of only the first
    /// ("Impatient", the RFC's recommendation and ns-2.35's newreno_changes1_ 1).
    pub slow_but_steady: bool,
    /// NewReno's partial ACK takes back only the inflation it acknowledged
    /// (RFC 6582 3.2 step 5, ns-2's partial_window_deflation_ 1, the
    /// default everywhere); false: all of it, back to the halved window
    /// (ns-2's partial_window_deflation_ 0, which its test suites set).
    pub partial_window_deflation: bool,
    /// ns-2's precisionReduce_ (true in ns-2.35, and everywhere here): a
    /// halving under `loss_window = "cwnd"` leaves cwnd at exactly half of
    /// min(cwnd, rwnd); false: half of its whole segments, rounded down to
    /// whole segments (ns-2 before 2006, and its test suites).
    pub precision_reduce: bool,
    /// NewReno refuses a fast retransmit for duplicate ACKs of data sent
    /// before the last fast retransmit or timeout (RFC 6582's careful
    /// variant, ns-2's bugFix_ true: the default everywhere); false: any
    /// third duplicate starts one (ns-2's bugFix_ false).
    pub newreno_careful: bool,
    /// ns-2's Sack1 refuses a fast retransmit for duplicate ACKs of data
    /// sent before the last timeout or ECN cut (its `recover_`; ns-2's
    /// bugFix_ true: the default everywhere); false: any third new
    /// duplicate starts one (ns-2's bugFix_ false). Only for the
    /// `sack1_recovery` rule.
    pub sack1_careful: bool,
    /// Tahoe refuses a fast retransmit for duplicate ACKs of data sent
    /// before the last fast retransmit or timeout (ns-2's bugFix_ true, the
    /// default everywhere); false: every third duplicate starts one
    /// (TcpAgent::dupack_action() with bugFix_ false; within an ECN cut's
    /// window the ECN branch still comes first).
    pub tahoe_careful: bool,
    /// With `newreno_careful`, NewReno's "less careful" variant (RFC 2582,
    /// ns-2's lessCareful_ true): a fast retransmit is allowed also when the
    /// duplicate ACKs acknowledge exactly the highest byte sent at the last
    /// one. Off everywhere.
    pub less_careful: bool,
    /// NewReno leaving recovery sets cwnd to min(ssthresh, outstanding + 1
    /// segment) before the ACK's increase (ns-2's exit_recovery_fix_ 1).
    /// Off everywhere (ns-2.35's default).
    pub exit_recovery_fix: bool,
    /// Open with a SYN as ns-2's one-way TCP does (syn_ and delay_growth_,
    /// both on there by default): a 40-byte SYN that the receiver
    /// acknowledges at once, data only after that ACK, cwnd one segment
    /// until then and the initial window from that ACK on; a lost SYN is
    /// retransmitted by the timer and the initial window becomes one
    /// segment (ns-2's bugfix_ss_). Off: connections start established.
    pub syn: bool,
    /// A delaying receiver (delayed ACKs or thinning) acknowledges the SYN
    /// at once (ns-2's TCPSink `SYN_immediate_ack_ true`, its default);
    /// false: the SYN's ACK waits for the ACK timer like a data segment's
    /// (DelAckSink::recv with `SYN_immediate_ack_ false`, which
    /// test-suite-ecn sets).
    pub syn_immediate_ack: bool,
    /// A delaying receiver acknowledges at once an in-order segment that
    /// fills part of a hole, data still held above it (RFC 5681 4.2; ns-2's
    /// DelAckSink with `RFC2581_immediate_ack_ true`, its default); false:
    /// that segment is held like a new in-order one, the timer started
    /// (ns-2's `RFC2581_immediate_ack_ false`, test-suite-rfc2581). A
    /// segment that fills the whole hole is acknowledged at once either way.
    pub rfc2581_immediate_ack: bool,
    /// The receiver chooses its SACK blocks as ns-2.35's TCPSink/Sack1
    /// (`sack_blocks = "ns2"`): the block holding the segment just
    /// received (none when it was in order), then the blocks of its
    /// history as they were reported, newest first, each dropped once the
    /// latest block (or, for an in-order segment, everything below the
    /// cumulative ACK) covers it; the history keeps the last three
    /// out-of-order blocks and empties when no hole is left. Default
    /// false: RFC 2018's current blocks, most recently changed first.
    pub ns2_sack_blocks: bool,
    /// ns-2.35's Sack1 with ECN (`sack1_ecn_recover`): its recv() runs
    /// ecn() before the ACK's own work, and ecn() sets recover_ to the
    /// highest segment sent; on the ACK that would end fast recovery an
    /// ECN cut (`ecn_in_recovery`) so moves the recovery point, and fast
    /// recovery goes on, sending by its pipe, until that is acknowledged.
    /// Default false: that ACK ends recovery with the halved window.
    pub sack1_ecn_recover: bool,
    /// ns-2.35's Sack1 partial ACK (`sack1_partial_ack_timing`): its recv()
    /// in fast recovery restarts the timer and clears the backoff but does
    /// not call newack(), so the RTT measurement in progress goes on and
    /// the ACK that ends recovery takes the sample, however long that was.
    /// Default false: the partial ACK that covers the timed segment ends
    /// the measurement without a sample (`advance_una_partial`).
    pub sack1_partial_ack_timing: bool,
    /// Which algorithm each ns-2/RFC difference follows.
    pub rules: Ns2Rules,
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    pub dupthresh: u32,
    /// At most this many segments sent per ACK, timeout or application
    /// write (ns-2's maxburst_, its send_much()'s limit, retransmissions
    /// of SACK holes included, a fast retransmit not); 0: no limit, the
    /// default everywhere.
    pub max_burst: u32,
    /// The congestion window's cap, in segments (ns-2's maxcwnd_; 0: none,
    /// its default): an increase that takes cwnd to M + 1 segments or more
    /// leaves it at M (opencwnd()), the recovery's inflation aside.
    pub max_cwnd: u32,
    /// Initial window in segments; 0 selects RFC 3390's min(4*MSS, max(2*MSS, 4380)).
    pub initial_window: u32,
    /// Initial ssthresh in bytes; None = the receiver's advertised window (ns-2
    /// sets ssthresh_ = window_), Some(u64::MAX) = unbounded.
    pub initial_ssthresh: Option<u64>,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// Clock granularity G of RFC 6298 (ns-2's tcpTick_); in the linux
    /// profile the kernel's jiffy, 1 / CONFIG_HZ.
    pub granularity: Time,
    /// Give up after this many consecutive timeouts of one segment; None = never.
    pub max_retransmits: Option<u32>,
    pub ack_policy: AckPolicy,
    /// Timer of the delayed and thinning policies.
    pub delack_timeout: Time,
    pub vegas: VegasParams,
    /// CUBIC's module parameters (`transport = "cubic"`).
    pub cubic: super::cubic::CubicParams,
    /// Westwood+'s clock (`transport = "westwood"`).
    pub westwood: super::westwood::WestwoodParams,
    /// BBR's clock and the seed of its gain-cycle draws (`transport = "bbr"`).
    pub bbr: super::bbr::BbrParams,
    /// TCP-AP's adaptive pacing (`transport = "tcp_ap"`), None otherwise.
    pub tcp_ap: Option<super::adaptive_pacing::ApParams>,
    /// Phase of the sender's tick clock for the ns-2 RTT estimator (ns-2's
    /// boot_time_, uniform in [0, granularity) per connection), and of the
    /// jiffies of `timer_wheel`; set from the run's random streams when the
    /// connection is built.
    pub clock_phase: Time,
    /// The kernel's jiffies counter at the first tick of the run (below
    /// `jiffies::START_SPAN`), with `timer_wheel`: which multiple of 8, 64,
    /// ... jiffies comes next, where the wheel's coarse levels file long
    /// timers; drawn per flow.
    pub jiffies_start: u32,
    /// On a new ACK the retransmission timer is restarted after the ACK's
    /// RTT sample has updated the estimate (ns-2's timerfix_ true, its
    /// default, and the default everywhere); false: before it, with the
    /// RTO (and backoff) the sender had when the ACK arrived, as ns-2's
    /// TcpAgent::newack() with timerfix_ false, which some of its test
    /// suites set.
    pub timerfix: bool,
    /// Initial window, in segments, after the SYN was lost: 1 (ns-2's
    /// bugfix_ss_ with a static windowInit_, the default everywhere);
    /// ns-2 keeps windowInit_ with bugfix_ss_ 0, and with windowInitOption_
    /// 2 (its RFC 3390 table) falls back to windowInit_.
    pub lost_syn_window: u32,
    /// ns-2's bugfix_ss_ in its careful test before a fast retransmit
    /// (`Ns2Rules::ns2_recover_numbers`, and Sack1's): three duplicates
    /// may start one while highest_ack_ is 0 (the first data segment lost
    /// after the SYN). true everywhere (ns-2's default); false as ns-2's
    /// `bugfix_ss_ 0` (with `lost_syn_window` = the initial window for the
    /// rest of that setting).
    pub bugfix_ss: bool,
    /// With the ns-2 RTT estimator: ns-2's rfc2988_ (true, its default and
    /// the default everywhere): the minimum RTO applied before the
    /// backoff; false: after it (the backed-off timeout clamped up to the
    /// minimum), the backoff doubled only while below 64 (rtt_timeout()
    /// and rtt_backoff() with rfc2988_ false).
    pub rfc2988: bool,
    /// ECN flows under `ecn_hold`: ns-2's old_ecn_ (false, its default and
    /// the default everywhere); true: only the first ACK of a run of ACKs
    /// with ECE holds the window, the following ones increase it
    /// (TcpAgent::recv_newack_helper() opens cwnd while ecn_burst_).
    pub old_ecn: bool,
    /// An ACK below the highest cumulative ACK received (a reordered,
    /// "invalid" ACK) may send what the window allows, as any ACK (ns-2's
    /// aggressive_maxburst_ 1, its default, and the default everywhere);
    /// false: it sends nothing (ns-2's aggressive_maxburst_ 0: recv()
    /// calls send_much() only for an ACK at or above last_ack_). Matters
    /// where `max_burst` left sendable data behind.
    pub aggressive_max_burst: bool,
    /// Reno and NewReno: duplicates past the threshold inflate the window
    /// only while the last congestion action is a fast retransmit (ns-2's
    /// exitFastRetrans_ true, its default, and the default everywhere);
    /// false: a threshold duplicate whose fast retransmit the careful
    /// guard refuses still inflates it by the threshold and every further
    /// duplicate by one segment, without a cut, until the next new ACK or
    /// timeout (ns-2's recv() with exitFastRetrans_ false sets dupwnd_ to
    /// numdupacks_ whatever dupack_action() did); NewReno then sends at
    /// most two segments per duplicate, as in recovery.
    pub exit_fast_retrans: bool,
    /// With `timestamps`, an RTT sample from a timestamp echo ends the
    /// timer's backoff (RFC 6298 with RFC 7323's RTTM; ns-2's ts_resetRTO_
    /// true; the default everywhere); false: the backoff ends only when
    /// the timed segment is acknowledged, as without timestamps (ns-2's
    /// ts_resetRTO_ false, its own default: newack() clears t_backoff_
    /// only on the rtt_active_ path).
    pub ts_reset_rto: bool,
    /// With `timestamps`, ns-2's accounting of them (false everywhere):
    /// the SYN and the receiver's ACKs carry no option bytes (ns-2's SYN is
    /// 40 bytes, TCPSink's ACKs are), TSval counts microseconds (ns-2's
    /// timestamps are exact send times), and the SYN's ACK is sampled from
    /// the exact time of the last SYN sent, rounded to ticks as ns-2's
    /// rtt_update() rounds an echo. Data segments still carry tcplab's 12
    /// bytes (ns-2's ts_option_size_ is 10).
    pub ns2_timestamps: bool,
    /// NewReno with `newreno_careful`: ns-2's ACK heuristic (its
    /// bugFix_ack_, false by default there and everywhere here). A fast
    /// retransmit the careful guard refuses is let through when cwnd
    /// (without inflation) is above one segment and the last new ACK
    /// outside recovery (ns-2's newack(), not a partial ACK) advanced the
    /// cumulative ACK by at most `dupthresh` segments (highest_ack_ -
    /// prev_highest_ack_ <= numdupacks_ in tcp-newreno.cc's
    /// dupack_action()).
    pub bugfix_ack: bool,
    /// NewReno with `newreno_careful` and `timestamps`: ns-2's timestamp
    /// heuristic (its bugFix_ts_, false by default there and everywhere
    /// here). A fast retransmit the careful guard refuses is let through
    /// when the echo of the last new ACK outside recovery equals the
    /// timestamp of the latest transmission of the highest segment
    /// acknowledged (tss[highest_ack_] == ts_echo_ in dupack_action()).
    /// This heuristic is checked before the ACK heuristic, as ns-2 does.
    pub bugfix_ts: bool,
    /// Sack1 (`sack1_recovery`): the duplicate-ACK threshold grows with
    /// the window, max(`dupthresh`, whole segments of cwnd / this), for the
    /// fast retransmit, Limited Transmit and the pipe estimate (ns-2's
    /// numdupacksFrac_ and TcpAgent::numdupacks(); 0: the fixed threshold,
    /// as ns-2's default -1, and the default everywhere).
    pub dupthresh_frac: u32,
    /// With the ns-2 RTT estimator: the scaling of its integer SRTT, in
    /// bits (ns-2's T_SRTT_BITS, 3 there and everywhere here: a sample
    /// weighs 1/2^3 in SRTT).
    pub srtt_bits: u32,
    /// With the ns-2 RTT estimator: the scaling of its integer RTTVAR
    /// (ns-2's T_RTTVAR_BITS, 2 there and everywhere here: a deviation
    /// weighs 1/2^2 in RTTVAR; the first sample sets RTTVAR to half of it).
    pub rttvar_bits: u32,
    /// With the ns-2 RTT estimator: RTO = SRTT + 2^this x RTTVAR in ticks
    /// (ns-2's rttvar_exp_, 2 there and everywhere here: RFC 6298's K = 4).
    pub rttvar_exp: u32,
    /// After an idle period (`IdleRestart`): ns2 profile ns-2's running
    /// timer, rfc RFC 5681's restart window, linux Linux's decay.
    pub idle_restart: IdleRestart,
    /// ns-2's QOption_ (RFC 2861's congestion window validation, as its
    /// TcpAgent::process_qoption_after_send(), off by default there and
    /// everywhere): idle for an RTO, ssthresh rises to 3/4 cwnd and cwnd
    /// halves once per RTO idle; application-limited for an RTO, cwnd
    /// falls halfway to the window used. The timer stops when everything
    /// written is acknowledged, so `idle_restart`'s ns-2 timer is off.
    pub cwnd_validation: bool,
    /// With `cwnd_validation`: ns-2's EnblRTTCtr_, periods counted in
    /// RTTs estimated per tick (TcpAgent::rtt_counting()) instead of RTOs.
    pub cwv_rtt_counting: bool,
    /// ns-2's control_increase_ (off by default there and everywhere): a
    /// new ACK opens the window only if the window before it was full
    /// (network_limited(): t_seqno_ > prev_highest_ack_ + window()).
    pub control_increase: bool,
    /// Linux's tcp_is_cwnd_limited(): a new ACK grows cwnd only if cwnd
    /// limited the sender in the current window of data (the flight
    /// reached cwnd after a send: is_cwnd_limited, kept until the data out
    /// then is acknowledged), or in slow start while cwnd is below twice
    /// the most segments out then (max_packets_out). A sender held by the
    /// receiver's window or the application stops growing cwnd.
    pub cwnd_limited: bool,
    /// RTT estimation and RTO as Linux's tcp_rtt_estimator() and
    /// __tcp_set_rto() (`RtoEstimator::with_linux_estimator`): RTO = SRTT +
    /// max(the round trip's largest 4 x mdev, min_rto) instead of RFC 6298's
    /// max(SRTT + 4 RTTVAR, min_rto). Ignored under `ns2_rtt_estimator`.
    pub linux_rtt_estimator: bool,
    /// RTT samples as Linux takes them (tcp_clean_rtx_queue() and
    /// tcp_ack_update_rtt()): every ACK of new data, from the send time of
    /// the oldest segment it acknowledges unless any of those was
    /// retransmitted, else from the timestamp echo; instead of one timed
    /// segment per round trip without timestamps (RFC 6298, ns-2) or the
    /// echo of every ACK with them (RFC 7323).
    pub linux_rtt_samples: bool,
    /// The window's growth per new ACK counts the segments it covers
    /// (Linux: tcp_slow_start(tp, acked) and tcp_cong_avoid_ai(tp, w,
    /// acked)); false: one increase per ACK whatever it covers (ns-2, and
    /// RFC 5681 without byte counting).
    pub count_acked: bool,
    /// A delaying receiver acknowledges at once an in-order segment shorter
    /// than the MSS or carrying PSH, which the sender sets on the segment
    /// that ends what its application has written (Linux: ICSK_ACK_PUSHED,
    /// for full-sized PSH segments since 6.7); false: held like any other
    /// (ns-2's DelAckSink, RFC 1122).
    pub push_ack: bool,
    /// Fast recovery sized by Proportional Rate Reduction (RFC 6937 as
    /// Linux's tcp_cwnd_reduction() runs it: prior_cwnd for RecoverFS, the
    /// slow-start reduction bound, one segment forced out at the start);
    /// without SACK, NewReno's recovery becomes Linux's: each duplicate ACK
    /// an emulated SACK of one segment, the head marked lost, no window
    /// inflation (`transport/tcp/linux_reno.rs`). Read by NewReno and by
    /// SACK senders; false: RFC 6582's and RFC 6675's own windows.
    pub prr: bool,
    /// With SACK and `prr`: Linux's loss detection, RACK (RFC 8985 as
    /// `tcp_recovery.c` runs it, net.ipv4.tcp_recovery = 1): a segment is
    /// lost once one sent after it is delivered and a reordering window
    /// has passed, retransmissions too; recovery starts on the first such
    /// mark, a timeout keeps the SACK scoreboard and marks lost only what
    /// was sent a round trip before (`transport/tcp/rack.rs`). false:
    /// RFC 6675's IsLost() and, at a timeout, go-back-N.
    pub rack: bool,
    /// With `rack`: Linux's tail-loss probe (TLP, RFC 8985 7,
    /// net.ipv4.tcp_early_retrans = 3): in the Open state the
    /// retransmission timer is first a probe timer of 2 SRTT (+ 2 ms, or +
    /// `min_rto` with one segment out), whose expiry sends one segment past
    /// the window: new data, or the last segment again; a loss it repairs
    /// halves the window (`tcp_process_tlp_ack()`).
    pub tlp: bool,
    /// With `rack`: Linux's undo of a window reduction shown spurious,
    /// by the timestamp echo (Eifel detection, RFC 3522, as
    /// `tcp_packet_delayed()` runs it: an ACK echoing a timestamp older
    /// than the episode's first retransmission acknowledges an original
    /// transmission) or by DSACKs for every retransmission of the episode
    /// (`undo_retrans` down to 0): a timeout's Loss state, a fast
    /// recovery's end or a partial ACK in it gives back the window and
    /// ssthresh from before the cut (`tcp_try_undo_loss()`,
    /// `tcp_try_undo_recovery()`, `tcp_try_undo_partial()`), and DSACKs do
    /// so at any time until the next episode (`tcp_try_undo_dsack()`).
    pub undo: bool,
    /// With `sack`: the receiver reports a duplicate segment in the first
    /// SACK block of its ACK (D-SACK, RFC 2883; net.ipv4.tcp_dsack = 1):
    /// below the cumulative ACK, or inside a block it reports second.
    pub dsack: bool,
    /// With `rack`: F-RTO after a timeout (RFC 5682's SACK-enhanced
    /// version, net.ipv4.tcp_frto = 2): the first ACK that advances after
    /// the timeout's retransmission sends new data instead of more
    /// retransmissions; an ACK or SACK of never-retransmitted data then
    /// shows the timeout was spurious and the window is given back; a
    /// duplicate or SACK of the new data shows the loss was real.
    pub frto: bool,
    /// A delaying receiver acknowledges the first segments of a connection
    /// at once, at most this many (window / 2 MSS if fewer): Linux's
    /// quick-ACK mode with TCP_MAX_QUICKACKS = 16; 0: none (ns-2, RFC
    /// 1122).
    pub quick_acks: u32,
    /// Nagle's rule (`Nagle`): off in every profile (SPEC), Linux's own
    /// default being `Minshall`.
    pub nagle: Nagle,
    /// Linux's TSO/GSO deferral (`tcp_tso_should_defer()`,
    /// `transport/tcp/tso_defer.rs`): with room in the window for less
    /// than a GSO burst, new data waits for an ACK due within a
    /// millisecond; false: every segment the window allows leaves at once
    /// (ns-2, the RFCs).
    pub tso_defer: bool,
    /// Linux's SACK compression at the receiver (`CompSack`): off in the
    /// ns2 and rfc profiles.
    pub comp_sack: CompSack,
    /// The receiver's window: fixed (ns2 and rfc profiles) or Linux's.
    pub receive_window: ReceiveWindow,
}

impl TcpConfig {
    /// The kernel's tick clock when timers follow it (`timer_wheel`).
    pub fn jiffies(&self) -> Option<super::jiffies::Jiffies> {
        self.timer_wheel.then(|| self.kernel_clock())
    }

    /// The kernel's tick clock of the connection: `granularity`,
    /// `clock_phase`, `jiffies_start`.
    pub fn kernel_clock(&self) -> super::jiffies::Jiffies {
        super::jiffies::Jiffies::new(self.granularity, self.clock_phase, self.jiffies_start)
    }

    pub fn profile(p: TcpProfile) -> Self {
        match p {
            // ns-2.35: packetSize_ 1000, windowInit_ 2, window_ 20, minrto_ 0.2,
            // maxrto_ 60, rtxcur_init_ 3.0, tcpTick_ 0.01, numdupacks_ 3,
            // singledup_ 1 (limited transmit), no abort, TCPSink acks every
            // segment, DelAck interval_ 100 ms.
            TcpProfile::Ns2 => TcpConfig {
                rules: Ns2Rules::ns2(),
                ns2_sack_blocks: true,
                sack1_ecn_recover: true,
                sack1_partial_ack_timing: true,
                // ns-2.35's ts_resetRTO_ false (Agent/TCP's default).
                ts_reset_rto: false,
                idle_restart: IdleRestart::Ns2Timer,
                ..Self::profile(TcpProfile::Rfc)
            },
            // The same values; the RFCs' algorithms.
            TcpProfile::Rfc => TcpConfig {
                mss: 1000,
                initial_window: 2,
                initial_ssthresh: None,
                rwnd: 20 * 1000,
                min_rto: 200 * MS,
                max_rto: 60 * SEC,
                initial_rto: 3 * SEC,
                granularity: 10 * MS,
                dupthresh: 3,
                max_burst: 0,
                max_cwnd: 0,
                limited_transmit: true,
                max_retransmits: None,
                ack_policy: AckPolicy::Immediate,
                delack_timeout: 100 * MS,
                sack: false,
                timestamps: false,
                slow_but_steady: false,
                partial_window_deflation: true,
                precision_reduce: true,
                newreno_careful: true,
                sack1_careful: true,
                tahoe_careful: true,
                less_careful: false,
                exit_recovery_fix: false,
                timerfix: true,
                lost_syn_window: 1,
                bugfix_ss: true,
                rfc2988: true,
                old_ecn: false,
                aggressive_max_burst: true,
                exit_fast_retrans: true,
                ts_reset_rto: true,
                ns2_timestamps: false,
                bugfix_ack: false,
                bugfix_ts: false,
                dupthresh_frac: 0,
                srtt_bits: 3,
                rttvar_bits: 2,
                rttvar_exp: 2,
                idle_restart: IdleRestart::Rfc5681,
                cwnd_validation: false,
                cwv_rtt_counting: false,
                control_increase: false,
                cwnd_limited: false,
                linux_rtt_estimator: false,
                linux_rtt_samples: false,
                count_acked: false,
                push_ack: false,
                prr: false,
                rack: false,
                tlp: false,
                undo: false,
                dsack: false,
                frto: false,
                quick_acks: 0,
                nagle: Nagle::Off,
                tso_defer: false,
                comp_sack: CompSack::OFF,
                timer_wheel: false,
                jiffies_start: 0,
                receive_window: ReceiveWindow::Fixed,
                vegas: VegasParams::default(),
                cubic: Default::default(),
                westwood: Default::default(),
                bbr: Default::default(),
                tcp_ap: None,
                ecn: false,
                eln: false,
                rules: Ns2Rules::rfc(),
                syn: true,
                syn_immediate_ack: true,
                rfc2581_immediate_ack: true,
                ns2_sack_blocks: false,
                sack1_ecn_recover: false,
                sack1_partial_ack_timing: false,
                clock_phase: 0,
            },
            // Linux: IW10 (RFC 6928), TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s,
            // TCP_RTO_MAX 120 s, jiffy timers at HZ 250 (Kconfig's default
            // and Debian's; `timer_wheel`), tcp_retries2 = 15, delayed ACKs
            // with TCP_DELACK_MIN 40 ms, unbounded initial ssthresh, SACK and
            // timestamps on (net.ipv4.tcp_sack, tcp_timestamps).
            // The rest (the RFC rules, and ns-2's own settings such as
            // precision_reduce, which the RFC algorithms do not read) as
            // the rfc profile's.
            TcpProfile::Linux => TcpConfig {
                mss: 1448,
                initial_window: 10,
                initial_ssthresh: Some(u64::MAX),
                rwnd: 64 * 1024,
                max_rto: 120 * SEC,
                initial_rto: SEC,
                granularity: 4 * MS,
                max_retransmits: Some(15),
                ack_policy: AckPolicy::Delayed,
                delack_timeout: 40 * MS,
                sack: true,
                timestamps: true,
                syn: false,
                idle_restart: IdleRestart::Linux,
                cwnd_limited: true,
                linux_rtt_estimator: true,
                linux_rtt_samples: true,
                count_acked: true,
                push_ack: true,
                prr: true,
                rack: true,
                tlp: true,
                undo: true,
                dsack: true,
                frto: true,
                quick_acks: 16,
                nagle: Nagle::Off,
                tso_defer: true,
                comp_sack: CompSack::LINUX,
                timer_wheel: true,
                receive_window: ReceiveWindow::Linux {
                    rcvbuf: super::linux_rwnd::DEFAULT_RCVBUF,
                    rcvbuf_max: super::linux_rwnd::DEFAULT_RCVBUF_MAX,
                    truesize: None,
                },
                // tcp_reno_ssthresh(): max(cwnd / 2, 2) in whole segments,
                // from the window, not the flight (RFC 5681's FlightSize).
                rules: Ns2Rules { loss_window_from_cwnd: true, ..Ns2Rules::rfc() },
                ..Self::profile(TcpProfile::Rfc)
            },
        }
    }

    /// Initial congestion window in bytes.
    pub fn initial_cwnd(&self) -> u64 {
        let mss = self.mss as u64;
        if self.initial_window == 0 {
            (4 * mss).min((2 * mss).max(4380))
        } else {
            self.initial_window as u64 * mss
        }
    }

    pub fn initial_ssthresh_bytes(&self) -> u64 {
        self.initial_ssthresh.unwrap_or(self.rwnd)
    }
}
