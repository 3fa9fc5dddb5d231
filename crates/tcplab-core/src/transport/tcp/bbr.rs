//! BBR (version 1) as Linux runs it (`net/ipv4/tcp_bbr.c`; Cardwell,
//! Cheng, Gunn, Hassas Yeganeh and Jacobson, "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016). The sender steers by a
//! model of the path instead of by losses: the bottleneck bandwidth (the
//! largest delivery rate sampled over the last ten round trips, `rate.rs`)
//! and the round-trip propagation delay (the least RTT over ten seconds).
//! It paces at a gain times the bandwidth and caps its flight at a gain
//! times their product, cycling through four modes:
//! * STARTUP: gain 2/ln 2 (2.885) until three rounds pass without the
//!   bandwidth growing by a quarter;
//! * DRAIN: pacing gain 1/2.885 until the flight is down to one BDP;
//! * PROBE_BW: pacing gains 5/4, 3/4, then six of 1, each phase one least
//!   RTT long (the first phase drawn at random among seven), cwnd gain 2;
//! * PROBE_RTT: when the least RTT is ten seconds old, the window drops to
//!   four segments for 200 ms and a round trip to measure it afresh.
//!
//! In the kernel's integer units: bandwidth in segments a microsecond
//! shifted by 24 bits, gains in 1/256, times in microseconds and, for the
//! least RTT's age and PROBE_RTT's end, jiffies (`BbrParams::hz`). Kept
//! from the kernel: the 1 % pacing margin, the quantization budget (three
//! TSO goals, an even window, +2 in the probing phase), ACK aggregation
//! (`extra_acked`), the long-term bandwidth of a policed path (`lt_bw`),
//! packet conservation in the first round of a recovery and the window
//! restored after it, the restart after idle, and the earliest departure
//! time of the next segment (`packets_in_net_at_edt`). The sender paces by
//! the rate this module sets (`TcpSender`, `pace`).

use super::cc::*;
use super::rate::{us, RateSample};
use crate::engine::rng::{stream_rng, Rng};
use crate::engine::Time;

const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u64 = 1 << BBR_SCALE;
const CYCLE_LEN: usize = 8;
/// Rounds of the bandwidth filter.
const BW_RTTS: u32 = CYCLE_LEN as u32 + 2;
const MIN_RTT_WIN_SEC: u32 = 10;
const PROBE_RTT_MODE_MS: u32 = 200;
/// Below this pacing rate (bit/s) one segment per TSO burst.
pub(super) const MIN_TSO_RATE: u64 = 1_200_000;
const PACING_MARGIN_PERCENT: u64 = 1;
const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
const CWND_GAIN: u64 = BBR_UNIT * 2;
const PACING_GAIN: [u64; CYCLE_LEN] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
const CYCLE_RAND: u64 = 7;
const CWND_MIN_TARGET: u64 = 4;
const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
const EXTRA_ACKED_GAIN: u64 = BBR_UNIT;
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET_THRESH: u64 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100_000;
/// TCP_INIT_CWND: the window before any RTT sample.
const INIT_CWND: u64 = 10;
/// sk_pacing_shift: the TSO goal is a millisecond (2^-10 s) of data.
pub(super) const PACING_SHIFT: u32 = 10;
/// GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER (320 bytes on x86-64).
pub(super) const GSO_BYTES_MAX: u64 = 65_536 - 1 - 320;

/// BBR's settings: the kernel's timer frequency and the seed of the draw
/// of the first gain phase (`prandom_u32_max(7)`), set per flow from the
/// run's seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrParams {
    pub hz: u32,
    pub seed: u64,
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams { hz: 250, seed: 0 }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

/// Linux's congestion states in their order (Disorder counts as Open).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum CaState {
    #[default]
    Open,
    Cwr,
    Recovery,
    Loss,
}

/// What the sender knows when an ACK has been processed, in Linux's units.
#[derive(Clone, Copy, Debug)]
pub struct RateCtx {
    pub now: Time,
    pub ca_state: CaState,
    /// tcp_packets_in_flight() after the ACK.
    pub in_flight: u64,
    /// tp->delivered, tp->delivered_mstamp, tp->lost.
    pub delivered: u64,
    pub delivered_us: u64,
    pub lost: u64,
    /// The smoothed RTT in microseconds (0 before any sample).
    pub srtt_us: u64,
    /// The earliest departure time of the next segment (tcp_wstamp_ns).
    pub wstamp: Time,
}

/// Kathleen Nichols' windowed running maximum (`lib/win_minmax.c`): the
/// best, second-best and third-best samples of the window, by round.
#[derive(Clone, Copy, Debug, Default)]
struct MaxFilter {
    s: [(u32, u64); 3],
}

impl MaxFilter {
    fn get(&self) -> u64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u32, v: u64) -> u64 {
        self.s = [(t, v); 3];
        v
    }

    fn running_max(&mut self, win: u32, t: u32, v: u64) -> u64 {
        if v >= self.s[0].1 || t.wrapping_sub(self.s[2].0) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // minmax_subwin_update(): age the window's best samples.
        let dt = t.wrapping_sub(self.s[0].0);
        if dt > win {
            self.s = [self.s[1], self.s[2], (t, v)];
            if t.wrapping_sub(self.s[0].0) > win {
                self.s = [self.s[1], self.s[2], (t, v)];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

pub struct Bbr {
    hz: u32,
    rng: Rng,
    mss: u64,
    min_rtt_us: u64,
    min_rtt_stamp: u32,
    probe_rtt_done_stamp: u32,
    bw: MaxFilter,
    rtt_cnt: u32,
    next_rtt_delivered: u64,
    cycle_mstamp: u64,
    pub mode: Mode,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_last_delivered: u64,
    lt_last_stamp: u64,
    lt_last_lost: u64,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    cycle_idx: usize,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    full_bw: u64,
    ack_epoch_mstamp: u64,
    extra_acked: [u64; 2],
    ack_epoch_acked: u64,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// sk_pacing_rate, bytes a second.
    pacing_rate: u64,
    /// The sender's state as of the last ACK (tp->delivered, its stamp,
    /// tp->lost), for the events between ACKs.
    last: (u64, u64, u64),
    /// PROBE_RTT asks the sender to mark its samples application-limited.
    pub wants_app_limited: bool,
}

impl Bbr {
    pub fn new(p: BbrParams, mss: u64, init_cwnd: u64) -> Self {
        let mut b = Bbr {
            hz: p.hz,
            rng: stream_rng(p.seed, "bbr.cycle"),
            mss,
            min_rtt_us: u64::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: 0,
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: 0,
            last: (0, 0, 0),
            wants_app_limited: false,
        };
        // bbr_init_pacing_rate_from_rtt() with no RTT yet: 1 ms nominal.
        b.init_pacing_rate(init_cwnd, 0);
        b
    }

    /// bbr_init() at the end of a handshake (`TcpConfig::syn`): the
    /// least RTT is the handshake's sample (tcp_min_rtt()), stamped now,
    /// and the pacing rate starts from the smoothed RTT. Without a
    /// handshake (the connection opens established) `new` already did
    /// this with no RTT.
    pub fn init_after_handshake(&mut self, now: Time, syn_rtt_us: Option<u64>, srtt_us: u64, cwnd: u64) {
        self.min_rtt_us = syn_rtt_us.unwrap_or(u64::MAX);
        self.min_rtt_stamp = self.jiffies(now);
        self.ack_epoch_mstamp = us(now);
        self.has_seen_rtt = false;
        self.init_pacing_rate(cwnd, srtt_us);
    }

    fn jiffies(&self, now: Time) -> u32 {
        ((now as u128 * self.hz as u128) / 1_000_000_000) as u32
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// The bandwidth in use: the policed rate when one was found.
    fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// The bandwidth estimate in bytes a second (for reports).
    pub fn bw_bytes_per_sec(&self) -> u64 {
        ((self.bw() as u128 * self.mss as u128 * 1_000_000) >> BW_SCALE) as u64
    }

    /// The least RTT in microseconds (u64::MAX before a sample).
    pub fn min_rtt_us(&self) -> u64 {
        self.min_rtt_us
    }

    fn extra_acked(&self) -> u64 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// bbr_rate_bytes_per_sec(): `rate` (segments/us << 24) times `gain`,
    /// less the pacing margin, in bytes a second.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u64) -> u64 {
        let r = (rate as u128 * self.mss as u128 * gain as u128) >> BBR_SCALE;
        let r = r * (1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT)) as u128;
        (r >> BW_SCALE) as u64
    }

    fn init_pacing_rate(&mut self, cwnd: u64, srtt_us: u64) {
        let rtt_us = if srtt_us > 0 {
            self.has_seen_rtt = true;
            srtt_us.max(1)
        } else {
            1_000
        };
        let bw = cwnd * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    fn set_pacing_rate(&mut self, bw: u64, gain: u64, cwnd: u64, srtt_us: u64) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && srtt_us > 0 {
            self.init_pacing_rate(cwnd, srtt_us);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// bbr_tso_segs_goal(): about a millisecond of data at the pacing rate,
    /// at least one segment below 1.2 Mbit/s and two above, at most 127.
    fn tso_segs_goal(&self) -> u64 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(GSO_BYTES_MAX);
        let min = if self.pacing_rate < MIN_TSO_RATE >> 3 { 1 } else { 2 };
        (bytes / self.mss).max(min).min(0x7F)
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        if self.min_rtt_us == u64::MAX {
            return INIT_CWND;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        (((w * gain as u128) >> BBR_SCALE) + BW_UNIT as u128 - 1) as u64 / BW_UNIT
    }

    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut c = cwnd + 3 * self.tso_segs_goal();
        c = (c + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            c += 2;
        }
        c
    }

    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// bbr_packets_in_net_at_edt(): the flight left in the network when
    /// the next segment may leave.
    fn packets_in_net_at_edt(&self, inflight_now: u64, c: &RateCtx) -> u64 {
        let edt = c.wstamp.max(c.now);
        let interval_us = (edt - c.now) / 1_000;
        let interval_delivered = ((self.bw() as u128 * interval_us as u128) >> BW_SCALE) as u64;
        let mut at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            at_edt += self.tso_segs_goal();
        }
        at_edt.saturating_sub(interval_delivered)
    }

    fn ack_aggregation_cwnd(&self) -> u64 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.bw() as u128 * EXTRA_ACKED_MAX_US as u128 / BW_UNIT as u128) as u64;
        ((EXTRA_ACKED_GAIN * self.extra_acked()) >> BBR_SCALE).min(max_aggr)
    }

    /// bbr_set_cwnd_to_recover_or_restore(): returns the window and
    /// whether packet conservation holds it.
    fn recover_or_restore(&mut self, rs: &RateSample, c: &RateCtx, cwnd: u64) -> (u64, bool) {
        let (prev, state) = (self.prev_ca_state, c.ca_state);
        let mut cwnd = cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u64;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = c.delivered;
            cwnd = c.in_flight + rs.acked_sacked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(c.in_flight + rs.acked_sacked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, rs: &RateSample, c: &RateCtx, cwnd: u64, bw: u64, gain: u64) -> u64 {
        let acked = rs.acked_sacked;
        let mut cwnd = cwnd;
        if acked > 0 {
            let (w, conserving) = self.recover_or_restore(rs, c, cwnd);
            cwnd = w;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || c.delivered < INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        cwnd
    }

    fn is_next_cycle_phase(&self, rs: &RateSample, c: &RateCtx) -> bool {
        let is_full_length = c.delivered_us.saturating_sub(self.cycle_mstamp) > self.min_rtt_us;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, c);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self, delivered_us: u64) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = delivered_us;
    }

    fn reset_probe_bw_mode(&mut self, delivered_us: u64) {
        self.mode = Mode::ProbeBw;
        let r = ((self.rng.next_u64() >> 32) * CYCLE_RAND) >> 32;
        self.cycle_idx = CYCLE_LEN - 1 - r as usize;
        self.advance_cycle_phase(delivered_us);
    }

    fn reset_mode(&mut self, delivered_us: u64) {
        if !self.full_bw_reached {
            self.mode = Mode::Startup;
        } else {
            self.reset_probe_bw_mode(delivered_us);
        }
    }

    fn reset_lt_interval(&mut self, delivered: u64, delivered_us: u64, lost: u64) {
        self.lt_last_stamp = delivered_us / 1_000;
        self.lt_last_delivered = delivered;
        self.lt_last_lost = lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt(&mut self, delivered: u64, delivered_us: u64, lost: u64) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_interval(delivered, delivered_us, lost);
    }

    fn lt_interval_done(&mut self, bw: u64, delivered: u64, delivered_us: u64, lost: u64) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt_bw || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_interval(delivered, delivered_us, lost);
    }

    /// bbr_lt_bw_sampling(): two intervals of consistent delivery rate with
    /// a fifth of the segments lost mean a token-bucket policer.
    fn lt_sampling(&mut self, losses: u64, app_limited: bool, delivered: u64, delivered_us: u64, lost: u64) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(delivered, delivered_us, lost);
                    self.reset_probe_bw_mode(delivered_us);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_interval(delivered, delivered_us, lost);
            self.lt_is_sampling = true;
        }
        if app_limited {
            self.reset_lt(delivered, delivered_us, lost);
            return;
        }
        if self.round_start {
            // lt_rtt_cnt is a 7-bit field in the kernel.
            self.lt_rtt_cnt = (self.lt_rtt_cnt + 1) & 0x7F;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(delivered, delivered_us, lost);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost_n = lost - self.lt_last_lost;
        let delivered_n = delivered - self.lt_last_delivered;
        if delivered_n == 0 || (lost_n << BBR_SCALE) < LT_LOSS_THRESH * delivered_n {
            return;
        }
        let t = (delivered_us / 1_000) as i64 - self.lt_last_stamp as i64;
        if t < 1 {
            return;
        }
        if t as u64 >= u32::MAX as u64 / 1_000 {
            self.reset_lt(delivered, delivered_us, lost);
            return;
        }
        let bw = delivered_n * BW_UNIT / (t as u64 * 1_000);
        self.lt_interval_done(bw, delivered, delivered_us, lost);
    }

    fn update_bw(&mut self, rs: &RateSample, c: &RateCtx) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = c.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(rs.losses, rs.is_app_limited, c.delivered, c.delivered_us, c.lost);
        let bw = rs.delivered as u64 * BW_UNIT / rs.interval_us as u64;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    fn update_ack_aggregation(&mut self, rs: &RateSample, c: &RateCtx, cwnd: u64) {
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = c.delivered_us.saturating_sub(self.ack_epoch_mstamp);
        let mut expected = (self.bw() as u128 * epoch_us as u128 / BW_UNIT as u128) as u64;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = c.delivered_us;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        // A 16-bit field in the kernel, capped by cwnd first.
        let extra = (self.ack_epoch_acked - expected).min(cwnd) & 0xFFFF;
        if extra > self.extra_acked[self.extra_acked_win_idx] {
            self.extra_acked[self.extra_acked_win_idx] = extra;
        }
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    fn check_drain(&mut self, c: &RateCtx, w: &mut CcState) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT) * w.mss;
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(c.in_flight, c) <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(c.delivered_us);
        }
    }

    fn check_probe_rtt_done(&mut self, now: Time, delivered_us: u64, cwnd: &mut u64) {
        let j = self.jiffies(now);
        if !(self.probe_rtt_done_stamp != 0 && (j.wrapping_sub(self.probe_rtt_done_stamp) as i32) > 0) {
            return;
        }
        self.min_rtt_stamp = j;
        *cwnd = (*cwnd).max(self.prior_cwnd);
        self.reset_mode(delivered_us);
    }

    fn update_min_rtt(&mut self, rs: &RateSample, c: &RateCtx, cwnd: &mut u64) {
        let j = self.jiffies(c.now);
        let expiry = self.min_rtt_stamp.wrapping_add(MIN_RTT_WIN_SEC * self.hz);
        let expired = (j.wrapping_sub(expiry) as i32) > 0;
        if rs.rtt_us >= 0 && ((rs.rtt_us as u64) <= self.min_rtt_us || (expired && !rs.is_ack_delayed)) {
            self.min_rtt_us = rs.rtt_us as u64;
            self.min_rtt_stamp = j;
        }
        if PROBE_RTT_MODE_MS > 0 && expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(*cwnd);
            self.probe_rtt_done_stamp = 0;
        }
        if self.mode == Mode::ProbeRtt {
            self.wants_app_limited = true;
            if self.probe_rtt_done_stamp == 0 && c.in_flight <= CWND_MIN_TARGET {
                let ms = PROBE_RTT_MODE_MS as u64 * self.hz as u64;
                self.probe_rtt_done_stamp = j.wrapping_add(ms.div_ceil(1000) as u32);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = c.delivered;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(c.now, c.delivered_us, cwnd);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (if self.lt_use_bw { BBR_UNIT } else { PACING_GAIN[self.cycle_idx] }, CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// bbr_main(): one ACK's model update, then the pacing rate and the
    /// window. `w.cwnd` is the window Linux's own ACK processing left
    /// (`TcpSender` keeps it as the kernel does under a congestion control
    /// with its own `cong_control`).
    pub fn main(&mut self, w: &mut CcState, rs: &RateSample, c: &RateCtx) {
        self.last = (c.delivered, c.delivered_us, c.lost);
        self.wants_app_limited = false;
        let mut cwnd = w.cwnd / w.mss;
        self.update_bw(rs, c);
        self.update_ack_aggregation(rs, c, cwnd);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs, c) {
            self.advance_cycle_phase(c.delivered_us);
        }
        self.check_full_bw_reached(rs);
        self.check_drain(c, w);
        self.update_min_rtt(rs, c, &mut cwnd);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, cwnd, c.srtt_us);
        let cwnd = self.set_cwnd(rs, c, cwnd, bw, self.cwnd_gain);
        w.cwnd = cwnd * w.mss;
        w.ca_frac = 0.0;
    }

    /// CA_EVENT_TX_START while application-limited: an idle restart.
    pub fn tx_start(&mut self, now: Time, app_limited: bool, cwnd: &mut u64, srtt_us: u64) {
        if !app_limited {
            return;
        }
        self.idle_restart = true;
        self.ack_epoch_mstamp = us(now);
        self.ack_epoch_acked = 0;
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate(self.bw(), BBR_UNIT, *cwnd, srtt_us);
        } else if self.mode == Mode::ProbeRtt {
            let mut c = *cwnd;
            self.check_probe_rtt_done(now, self.last.1, &mut c);
            *cwnd = c;
        }
    }

    /// bbr_set_state(TCP_CA_Loss), `lost` the sender's tp->lost once the
    /// timeout has marked its segments: the round ends, full-pipe
    /// detection restarts, and it counts as a loss for the policer check.
    pub fn enter_loss(&mut self, lost: u64) {
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        self.last.2 = lost;
        let (d, d_us, lost) = self.last;
        self.lt_sampling(1, false, d, d_us, lost);
    }

    /// bbr_undo_cwnd(): a spurious reduction restarts full-pipe detection
    /// and the policer check; the window stays.
    pub fn on_undo(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        let (d, d_us, lost) = self.last;
        self.reset_lt(d, d_us, lost);
    }

    pub fn pacing_rate(&self) -> u64 {
        self.pacing_rate
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// The window is set by `main` after every ACK.
    fn on_new_ack(&mut self, _w: &mut CcState, _a: &AckInfo) -> AckResponse {
        AckResponse::NORMAL
    }

    fn on_dupack(&mut self, _w: &mut CcState, _a: &AckInfo) -> DupResponse {
        DupResponse::None
    }

    /// tcp_enter_loss(): ssthresh from bbr_ssthresh() (the window saved,
    /// ssthresh unchanged), the window one segment (the recovery sets
    /// Linux's in-flight + 1), then bbr_set_state(TCP_CA_Loss).
    fn on_timeout(&mut self, w: &mut CcState, _a: &AckInfo) {
        self.save_cwnd(w.cwnd / w.mss);
        w.cwnd = w.mss;
        w.ca_frac = 0.0;
    }

    fn on_timeout_keeping_cut(&mut self, w: &mut CcState, _a: &AckInfo) {
        w.cwnd = w.mss;
        w.ca_frac = 0.0;
    }

    /// bbr_ssthresh(): entering recovery saves the window; ssthresh stays.
    fn ssthresh_on_loss(&mut self, w: &CcState, _flight: u64) -> u64 {
        self.save_cwnd(w.cwnd / w.mss);
        w.ssthresh
    }

    /// An ECN echo: tcp_enter_cwr() asks ssthresh() (the window saved);
    /// BBR v1 does not otherwise answer ECN.
    fn on_ecn(&mut self, w: &mut CcState, _a: &AckInfo) {
        self.save_cwnd(w.cwnd / w.mss);
    }

    fn rate_based(&mut self) -> Option<&mut Bbr> {
        Some(self)
    }

    fn bbr(&self) -> Option<&Bbr> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gains_are_the_kernels() {
        assert_eq!(HIGH_GAIN, 739);
        assert_eq!(DRAIN_GAIN, 88);
        assert_eq!(PACING_GAIN[0], 320);
        assert_eq!(PACING_GAIN[1], 192);
    }

    /// The windowed maximum keeps the best sample for ten rounds, then
    /// gives way to the best of the later ones.
    #[test]
    fn the_bandwidth_filter_forgets_after_ten_rounds() {
        let mut f = MaxFilter::default();
        f.running_max(10, 0, 100);
        for t in 1..=10 {
            assert_eq!(f.running_max(10, t, 50 + t as u64), 100, "round {t}");
        }
        assert_eq!(f.running_max(10, 11, 40), 60);
    }

    /// 1 Mbit/s of 1000-byte segments (125 a second) over a least RTT of
    /// 100 ms: the BDP is 12.5 segments, 13 rounded up, and the window in
    /// PROBE_BW twice that plus the quantization budget.
    #[test]
    fn bdp_and_window_target() {
        let mut b = Bbr::new(BbrParams::default(), 1000, 10);
        b.min_rtt_us = 100_000;
        let bw = 125 * BW_UNIT / 1_000_000;
        assert_eq!(b.bdp(bw, BBR_UNIT), 13);
        b.pacing_rate = 125_000;
        // 125 kB/s < 150 kB/s (1.2 Mbit/s): one segment a TSO burst.
        assert_eq!(b.tso_segs_goal(), 1);
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 2;
        assert_eq!(b.inflight(bw, CWND_GAIN), 28); // 25 + 3, even
        b.cycle_idx = 0;
        assert_eq!(b.inflight(bw, CWND_GAIN), 30);
    }

    #[test]
    fn pacing_rate_has_the_margin() {
        let b = Bbr::new(BbrParams::default(), 1000, 10);
        // 10 segments over the nominal 1 ms at the high gain, less 1 %.
        let r = b.pacing_rate();
        let exact = 10.0 * 1000.0 / 0.001 * 2.89 * 0.99;
        assert!((r as f64 - exact).abs() / exact < 0.01, "{r} vs {exact}");
    }
}
