//! Resolved TCP parameters of one connection, and the named default sets.
//! This file is the one place where tcplab's TCP defaults live.

use crate::engine::time::{MS, SEC};
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
    /// ns-2.35's `Agent/TCP` and `Agent/TCPSink` defaults: the simulator the
    /// classic studies used.
    Ns2,
    /// Linux (5.x/6.x) defaults as far as this model has them.
    Linux,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// Initial window in segments; 0 selects RFC 3390's min(4*MSS, max(2*MSS, 4380)).
    pub initial_window: u32,
    /// Initial ssthresh in bytes; None = the receiver's advertised window (ns-2
    /// sets ssthresh_ = window_), Some(u64::MAX) = unbounded.
    pub initial_ssthresh: Option<u64>,
    /// Receiver's advertised window in bytes.
    pub rwnd: u64,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// Clock granularity G of RFC 6298 (ns-2's tcpTick_).
    pub granularity: Time,
    pub dupthresh: u32,
    /// RFC 3042 Limited Transmit: a new segment on each of the first
    /// dupthresh-1 duplicate ACKs (ns-2's singledup_, on by default there).
    pub limited_transmit: bool,
    /// Give up after this many consecutive timeouts of one segment; None = never.
    pub max_retransmits: Option<u32>,
    pub ack_policy: AckPolicy,
    /// Timer of the delayed and thinning policies.
    pub delack_timeout: Time,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery.
    pub sack: bool,
    /// Timestamps option (RFC 7323): 12 bytes per segment, RTT from every ACK.
    pub timestamps: bool,
    /// NewReno resets the retransmission timer on every partial ACK
    /// ("Slow-but-Steady", RFC 6582 4) instead of only the first
    /// ("Impatient", the RFC's recommendation and ns-2.35's newreno_changes1_ 1).
    pub slow_but_steady: bool,
    pub vegas: VegasParams,
    /// ECN (RFC 3168): ECT on new data, react to ECE once per window, CWR.
    pub ecn: bool,
    /// Honour the ELN bit: retransmit without a congestion response.
    pub eln: bool,
}

impl TcpConfig {
    pub fn profile(p: TcpProfile) -> Self {
        match p {
            // ns-2.35: packetSize_ 1000, windowInit_ 2, window_ 20, minrto_ 0.2,
            // maxrto_ 60, rtxcur_init_ 3.0, tcpTick_ 0.01, numdupacks_ 3,
            // singledup_ 1 (limited transmit), no abort, TCPSink acks every
            // segment, DelAck interval_ 100 ms.
            TcpProfile::Ns2 => TcpConfig {
                mss: 1000,
                initial_window: 2,
                initial_ssthresh: None,
                rwnd: 20 * 1000,
                min_rto: 200 * MS,
                max_rto: 60 * SEC,
                initial_rto: 3 * SEC,
                granularity: 10 * MS,
                dupthresh: 3,
                limited_transmit: true,
                max_retransmits: None,
                ack_policy: AckPolicy::Immediate,
                delack_timeout: 100 * MS,
                sack: false,
                timestamps: false,
                slow_but_steady: false,
                vegas: VegasParams::default(),
                ecn: false,
                eln: false,
            },
            // Linux: IW10 (RFC 6928), TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s,
            // TCP_RTO_MAX 120 s, 1 ms timer, tcp_retries2 = 15, delayed ACKs
            // with TCP_DELACK_MIN 40 ms, unbounded initial ssthresh, SACK and
            // timestamps on (net.ipv4.tcp_sack, tcp_timestamps).
            TcpProfile::Linux => TcpConfig {
                mss: 1448,
                initial_window: 10,
                initial_ssthresh: Some(u64::MAX),
                rwnd: 64 * 1024,
                min_rto: 200 * MS,
                max_rto: 120 * SEC,
                initial_rto: SEC,
                granularity: MS,
                dupthresh: 3,
                limited_transmit: true,
                max_retransmits: Some(15),
                ack_policy: AckPolicy::Delayed,
                delack_timeout: 40 * MS,
                sack: true,
                timestamps: true,
                slow_but_steady: false,
                vegas: VegasParams::default(),
                ecn: false,
                eln: false,
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
