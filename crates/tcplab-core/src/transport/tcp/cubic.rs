//! CUBIC as Linux runs it (`net/ipv4/tcp_cubic.c`, "BIC v2.3", the
//! kernel's default congestion control), with HyStart. Only the window is
//! CUBIC's: loss recovery is Linux's (`linux_reno.rs` without SACK, RFC
//! 6675 with PRR with it), so a flow with `transport = "cubic"` needs the
//! linux profile's recovery (`TcpConfig::prr`).
//!
//! The kernel's integer arithmetic, in its units:
//! * time in jiffies (`CubicParams::hz` a second, this machine's kernel:
//!   250) for the epoch, and in 2^-10 s inside the cubic function;
//! * the window in segments, grown by `tcp_cong_avoid_ai()` with its own
//!   counter of ACKed segments (the kernel's snd_cwnd_cnt);
//! * W(t) = C (t - K)^3 + W_max in segments, C = 10 bic_scale / 1024 =
//!   0.4 a second cubed as the kernel scales it (`cube_rtt_scale`,
//!   `cube_factor`), t counted from the epoch's start plus the minimum
//!   RTT seen;
//! * the "TCP friendly" estimate of a Reno window grown by one segment per
//!   `beta_scale`/8 windows of ACKs (15/8 at beta 717), which caps `cnt`;
//! * at a loss, W_max = cwnd (fast convergence: cwnd (1 + beta) / 2 when
//!   below the last W_max) and ssthresh = max(cwnd * beta / 1024, 2);
//! * a timeout (Linux's Loss state) resets everything, W_max included;
//! * HyStart: in slow start from 16 segments, the end of slow start is
//!   found from an ACK train longer than half the minimum RTT (plus
//!   `hystart_ack_delay`) or from a round's minimum RTT above the least
//!   one by an eighth of it (clamped to 4-16 ms) over 8 samples; ssthresh
//!   is then the current cwnd.
//!
//! One difference, on purpose: K is the exact integer cube root of
//! `cube_factor * (W_max - cwnd)`, where the kernel takes a 64-entry table
//! and one Newton step (about 0.2 % off on average: under a jiffy for K
//! below 2 s at 250 Hz). The kernel's clock is `floor(now * hz)` from the
//! run's start (its jiffies have an arbitrary phase).

use super::cc::*;
use crate::engine::Time;

/// BICTCP_BETA_SCALE: beta is in 1/1024.
const BETA_SCALE: u32 = 1024;
/// BICTCP_HZ: the cubic function's time unit is 2^-10 s.
const BIC_HZ: u32 = 10;
/// HYSTART_MIN_SAMPLES: delay samples per round before the delay test.
const HYSTART_MIN_SAMPLES: u8 = 8;
/// HYSTART_DELAY_MIN / MAX: the delay test's margin bounds (us).
const HYSTART_DELAY_MIN_US: u32 = 4000;
const HYSTART_DELAY_MAX_US: u32 = 16000;
/// The device's largest GSO packet (bytes): TUN, veth and Ethernet
/// devices' default, what `hystart_ack_delay()` reads as sk_gso_max_size.
const GSO_MAX_SIZE: u64 = 65536;

/// The kernel module's parameters (`/sys/module/tcp_cubic/parameters`),
/// with its defaults, and the kernel's timer frequency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// Multiplicative decrease in 1/1024 (717: 0.7).
    pub beta: u32,
    /// C in 1/1024 (41: 0.04 per 100 ms RTT, the kernel's scaling).
    pub bic_scale: u32,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    /// 1: ACK train, 2: delay, 3: both.
    pub hystart_detect: u8,
    /// HyStart runs from this cwnd (segments).
    pub hystart_low_window: u32,
    /// ACKs closer than this (us) belong to one train.
    pub hystart_ack_delta_us: u32,
    /// The kernel's CONFIG_HZ.
    pub hz: u32,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            beta: 717,
            bic_scale: 41,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            hystart_detect: 3,
            hystart_low_window: 16,
            hystart_ack_delta_us: 2000,
            hz: 250,
        }
    }
}

/// One of Linux's `pkts_acked()` calls with an RTT sample: the delay of
/// the ACK (`ack_sample::rtt_us`, from the newest segment it newly
/// acknowledges or SACKs, else the timestamp echo), and what HyStart reads
/// from the socket.
#[derive(Clone, Copy, Debug)]
pub struct DelaySample {
    pub now: Time,
    pub rtt: Time,
    /// snd_una after this ACK.
    pub snd_una: u64,
    /// The highest sequence number sent + 1 (the kernel's snd_nxt).
    pub snd_nxt: u64,
    /// The smoothed RTT, for the pacing rate `hystart_ack_delay()` reads
    /// (None before the first sample).
    pub srtt: Option<Time>,
}

#[derive(Clone, Debug, Default)]
struct Bictcp {
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    origin_point: u32,
    k: u32,
    /// Least delay seen (us), 0 before any.
    delay_min: u32,
    /// The epoch's start (jiffies); None between epochs.
    epoch_start: Option<u32>,
    ack_cnt: u32,
    tcp_cwnd: u32,
    // HyStart.
    found: bool,
    sample_cnt: u8,
    round_start: u32,
    end_seq: u64,
    last_ack: u32,
    curr_rtt: u32,
}

pub struct Cubic {
    p: CubicParams,
    ca: Bictcp,
    /// snd_una at the last timeout: a timeout again with no progress since
    /// (Linux's Loss state with icsk_retransmits > 0) keeps ssthresh.
    loss_una: Option<u64>,
    /// ACKed segments towards the next increment (the kernel's snd_cwnd_cnt).
    cwnd_cnt: u32,
    /// 8 (1024 + beta) / 3 / (1024 - beta) (the kernel's beta_scale).
    beta_scale: u32,
    /// bic_scale * 10 (cube_rtt_scale).
    cube_rtt_scale: u64,
    /// 2^40 / cube_rtt_scale (cube_factor).
    cube_factor: u64,
}

/// floor(cbrt(a)), exactly.
fn cube_root(a: u64) -> u32 {
    let mut x = (a as f64).cbrt() as u64;
    while x > 0 && x * x * x > a {
        x -= 1;
    }
    while (x + 1).pow(3) <= a {
        x += 1;
    }
    x as u32
}

/// The kernel's tcp_mstamp in 32 bits (it wraps after 71 minutes; every
/// comparison of two of them is a wrapping difference).
fn us(t: Time) -> u32 {
    (t / 1000) as u32
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        let beta_scale = 8 * (BETA_SCALE + p.beta) / 3 / (BETA_SCALE - p.beta);
        let cube_rtt_scale = p.bic_scale as u64 * 10;
        let cube_factor = (1u64 << (10 + 3 * BIC_HZ)) / cube_rtt_scale;
        let mut c =
            Cubic { p, ca: Bictcp::default(), loss_una: None, cwnd_cnt: 0, beta_scale, cube_rtt_scale, cube_factor };
        c.hystart_reset(0, 0);
        c
    }

    /// tcp_jiffies32 at `now`.
    fn jiffies(&self, now: Time) -> u32 {
        ((now as u128 * self.p.hz as u128) / 1_000_000_000) as u32
    }

    /// usecs_to_jiffies(): rounded up.
    fn usecs_to_jiffies(&self, u: u32) -> u32 {
        (u as u64 * self.p.hz as u64).div_ceil(1_000_000) as u32
    }

    fn hystart_reset(&mut self, now: Time, snd_nxt: u64) {
        self.ca.round_start = us(now);
        self.ca.last_ack = us(now);
        self.ca.end_seq = snd_nxt;
        self.ca.curr_rtt = u32::MAX;
        self.ca.sample_cnt = 0;
    }

    /// bictcp_update(): the ACKs per increment (`cnt`) for `cwnd` segments.
    fn update(&mut self, cwnd: u32, acked: u32, now: Time) {
        let jiffies = self.jiffies(now);
        let delay_j = self.usecs_to_jiffies(self.ca.delay_min) as u64;
        let ca = &mut self.ca;
        ca.ack_cnt = ca.ack_cnt.wrapping_add(acked);
        if ca.last_cwnd == cwnd && jiffies.wrapping_sub(ca.last_time) as i32 <= (self.p.hz / 32) as i32 {
            return;
        }
        // At most one computation of cnt per jiffy; an epoch's start
        // (after every reduction) always computes it.
        if !(ca.epoch_start.is_some() && jiffies == ca.last_time) {
            ca.last_cwnd = cwnd;
            ca.last_time = jiffies;
            let epoch = match ca.epoch_start {
                Some(e) => e,
                None => {
                    ca.epoch_start = Some(jiffies);
                    ca.ack_cnt = acked;
                    ca.tcp_cwnd = cwnd;
                    if ca.last_max_cwnd <= cwnd {
                        ca.k = 0;
                        ca.origin_point = cwnd;
                    } else {
                        ca.k = cube_root(self.cube_factor.wrapping_mul((ca.last_max_cwnd - cwnd) as u64));
                        ca.origin_point = ca.last_max_cwnd;
                    }
                    jiffies
                }
            };
            let mut t = jiffies.wrapping_sub(epoch) as i32 as i64 as u64;
            t = t.wrapping_add(delay_j);
            t = (t << BIC_HZ) / self.p.hz as u64;
            let k = ca.k as u64;
            let offs = k.abs_diff(t);
            let delta = (self.cube_rtt_scale.wrapping_mul(offs).wrapping_mul(offs).wrapping_mul(offs)
                >> (10 + 3 * BIC_HZ)) as u32;
            let target = if t < k { ca.origin_point.wrapping_sub(delta) } else { ca.origin_point.wrapping_add(delta) };
            ca.cnt = if target > cwnd { cwnd / (target - cwnd) } else { cwnd.wrapping_mul(100) };
            // Growth at first, before any loss, at least 5 % a round trip.
            if ca.last_max_cwnd == 0 && ca.cnt > 20 {
                ca.cnt = 20;
            }
        }
        if self.p.tcp_friendliness {
            let delta = (cwnd.wrapping_mul(self.beta_scale)) >> 3;
            if delta > 0 {
                while ca.ack_cnt > delta {
                    ca.ack_cnt -= delta;
                    ca.tcp_cwnd += 1;
                }
            }
            if ca.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (ca.tcp_cwnd - cwnd);
                ca.cnt = ca.cnt.min(max_cnt);
            }
        }
        ca.cnt = ca.cnt.max(2);
    }

    /// tcp_cong_avoid_ai(): one segment per `w` segments ACKed.
    fn cong_avoid_ai(&mut self, cwnd: &mut u32, w: u32, acked: u32) {
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            *cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let d = self.cwnd_cnt / w;
            self.cwnd_cnt -= d * w;
            *cwnd += d;
        }
    }

    /// cubictcp_recalc_ssthresh() for a window of `cwnd` segments.
    fn recalc_ssthresh(&mut self, cwnd: u32) -> u32 {
        self.ca.epoch_start = None;
        self.ca.last_max_cwnd = if cwnd < self.ca.last_max_cwnd && self.p.fast_convergence {
            ((cwnd as u64 * (BETA_SCALE + self.p.beta) as u64) / (2 * BETA_SCALE) as u64) as u32
        } else {
            cwnd
        };
        ((cwnd as u64 * self.p.beta as u64 / BETA_SCALE as u64) as u32).max(2)
    }

    /// hystart_ack_delay(): min(1 ms, 4 GSO packets at the pacing rate),
    /// the rate as tcp_update_pacing_rate() sets it (`linux_pacing_rate`).
    fn ack_delay_us(w: &CcState, srtt: Option<Time>) -> u32 {
        let Some(srtt) = srtt.filter(|&s| s > 0) else { return 0 };
        let rate = super::rate::linux_pacing_rate(w.mss, w.cwnd / w.mss, 0, w.ssthresh / w.mss, Some(srtt)) as u128;
        if rate == 0 {
            return 1000;
        }
        ((GSO_MAX_SIZE as u128 * 4 * 1_000_000) / rate).min(1000) as u32
    }

    /// hystart_update(): the end of slow start found from this ACK.
    fn hystart_update(&mut self, w: &mut CcState, s: &DelaySample, delay: u32) {
        if s.snd_una > self.ca.end_seq {
            self.hystart_reset(s.now, s.snd_nxt);
        }
        let cwnd = (w.cwnd / w.mss) as u32;
        if cwnd < self.p.hystart_low_window {
            return;
        }
        let ca = &mut self.ca;
        if self.p.hystart_detect & 1 != 0 {
            let now = us(s.now);
            if now.wrapping_sub(ca.last_ack) as i32 <= self.p.hystart_ack_delta_us as i32 {
                ca.last_ack = now;
                // No pacing (SK_PACING_NONE, cubic without fq): half.
                let threshold = (ca.delay_min + Self::ack_delay_us(w, s.srtt)) >> 1;
                if now.wrapping_sub(ca.round_start) as i32 > threshold as i32 {
                    ca.found = true;
                    w.ssthresh = cwnd as u64 * w.mss;
                }
            }
        }
        if self.p.hystart_detect & 2 != 0 {
            ca.curr_rtt = ca.curr_rtt.min(delay);
            if ca.sample_cnt < HYSTART_MIN_SAMPLES {
                ca.sample_cnt += 1;
            } else if ca.curr_rtt > ca.delay_min + (ca.delay_min >> 3).clamp(HYSTART_DELAY_MIN_US, HYSTART_DELAY_MAX_US)
            {
                ca.found = true;
                w.ssthresh = cwnd as u64 * w.mss;
            }
        }
    }

    #[cfg(test)]
    pub(crate) fn state(&self) -> (u32, u32, u32, Option<u32>) {
        (self.ca.cnt, self.ca.last_max_cwnd, self.ca.k, self.ca.epoch_start)
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    /// cubictcp_cong_avoid() with tcp_slow_start().
    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        if w.hold {
            return AckResponse::NORMAL;
        }
        let mss = w.mss;
        let mut cwnd = (w.cwnd / mss) as u32;
        let mut acked = a.acked.div_ceil(mss).max(1) as u32;
        let ssthresh = (w.ssthresh / mss).min(u32::MAX as u64) as u32;
        if cwnd < ssthresh {
            let grown = (cwnd + acked).min(ssthresh);
            acked -= grown - cwnd;
            cwnd = grown;
        }
        if acked > 0 {
            self.update(cwnd, acked, a.now);
            let cnt = self.ca.cnt;
            self.cong_avoid_ai(&mut cwnd, cnt, acked);
        }
        w.cwnd = cwnd as u64 * mss;
        w.ca_frac = 0.0;
        if w.cwnd >= w.cap_at {
            w.cwnd = w.cap_at - mss;
        }
        AckResponse::NORMAL
    }

    /// Loss recovery is the sender's (Linux's); never asked.
    fn on_dupack(&mut self, _w: &mut CcState, _a: &AckInfo) -> DupResponse {
        DupResponse::None
    }

    /// tcp_enter_loss(): ssthresh from the module (not again on a timeout
    /// with no progress since the last: the Loss state with retransmissions
    /// counted), cwnd one segment, and the Loss state resets CUBIC and
    /// HyStart (W_max forgotten).
    fn on_timeout(&mut self, w: &mut CcState, a: &AckInfo) {
        let cwnd = (w.cwnd / w.mss) as u32;
        if self.loss_una != Some(a.ack) {
            w.ssthresh = self.recalc_ssthresh(cwnd) as u64 * w.mss;
        }
        self.loss_una = Some(a.ack);
        w.cwnd = w.mss;
        w.ca_frac = 0.0;
        self.cwnd_cnt = 0;
        self.ca = Bictcp::default();
        self.hystart_reset(a.now, a.snd_max);
    }

    /// tcp_enter_recovery() / tcp_enter_cwr(): the module's ssthresh, and
    /// tcp_init_cwnd_reduction() clears the ACK count towards an increment.
    fn ssthresh_on_loss(&mut self, w: &CcState, _flight: u64) -> u64 {
        self.cwnd_cnt = 0;
        let cwnd = (w.cwnd / w.mss).min(u32::MAX as u64) as u32;
        self.recalc_ssthresh(cwnd) as u64 * w.mss
    }

    /// cubictcp_acked().
    fn on_delay_sample(&mut self, w: &mut CcState, s: &DelaySample) {
        if let Some(e) = self.ca.epoch_start {
            // No delay samples within a second of a reduction.
            if (self.jiffies(s.now).wrapping_sub(e) as i32) < self.p.hz as i32 {
                return;
            }
        }
        let delay = us(s.rtt).max(1);
        if self.ca.delay_min == 0 || self.ca.delay_min > delay {
            self.ca.delay_min = delay;
        }
        if !self.ca.found && w.cwnd < w.ssthresh && self.p.hystart {
            self.hystart_update(w, s, delay);
        }
    }

    fn wants_delay_samples(&self) -> bool {
        true
    }

    /// cubictcp_cwnd_event(CA_EVENT_TX_START): data leaves with nothing in
    /// flight after `last_send`; the epoch moves by the idle time, so that
    /// the window follows the curve as if the pause had not been.
    fn on_tx_start(&mut self, now: Time, last_send: Time) {
        let now_j = self.jiffies(now);
        let delta = now_j.wrapping_sub(self.jiffies(last_send)) as i32;
        if let Some(e) = self.ca.epoch_start.filter(|_| delta > 0) {
            let moved = e.wrapping_add(delta as u32);
            self.ca.epoch_start = Some(if (moved.wrapping_sub(now_j) as i32) > 0 { now_j } else { moved });
        }
    }

    fn allows_sack_recovery(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    /// ssthresh before any loss (`state(_, u32::MAX)`).
    const INF: u64 = u32::MAX as u64 * MSS;

    fn state(cwnd: u64, ssthresh: u64) -> CcState {
        CcState::linux_test(cwnd, ssthresh, MSS)
    }

    fn ack(now: Time, segs: u64) -> AckInfo {
        AckInfo {
            ack: 0,
            acked: segs * MSS,
            snd_max: 0,
            flight: 0,
            dupacks: 0,
            ecn_recover: None,
            now,
            snd_nxt: 0,
            acked_seg: None,
            head_seg: None,
            first_sent: None,
            heuristic: false,
        }
    }

    const MS: Time = 1_000_000;

    /// A loss at the current window, and the window cut to the new
    /// ssthresh (as the recovery leaves it).
    fn after_loss(c: &mut Cubic, w: &mut CcState) {
        w.ssthresh = c.ssthresh_on_loss(w, 0);
        w.cwnd = w.ssthresh;
    }

    /// One round trip from `now`: an ACK of one segment for each segment
    /// of the window, spread evenly over `rtt`.
    fn one_round(c: &mut Cubic, w: &mut CcState, now: Time, rtt: Time) {
        let cwnd = w.cwnd / MSS;
        for i in 0..cwnd {
            c.on_new_ack(w, &ack(now + rtt * i as Time / cwnd, 1));
        }
    }

    #[test]
    fn cube_root_is_exact() {
        for a in [0u64, 1, 7, 8, 26, 27, 1000, 999, 1 << 40, (1 << 40) + 1, u64::MAX / 7] {
            let x = cube_root(a) as u64;
            assert!(x.pow(3) <= a && (x + 1).pow(3) > a, "{a}");
        }
    }

    #[test]
    fn the_kernels_scale_factors() {
        let c = Cubic::new(CubicParams::default());
        assert_eq!(c.beta_scale, 15); // 8 * 1741 / 3 / 307
        assert_eq!(c.cube_rtt_scale, 410);
        assert_eq!(c.cube_factor, (1u64 << 40) / 410);
    }

    #[test]
    fn a_loss_sets_wmax_and_ssthresh_to_0_7_cwnd_with_fast_convergence() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(100, 50);
        assert_eq!(c.ssthresh_on_loss(&w, 0), 70 * MSS); // 100 * 717 / 1024 = 70.02
        assert_eq!(c.state().1, 100);
        // A second loss below W_max: W_max = cwnd (1 + 0.7) / 2.
        w.cwnd = 80 * MSS;
        assert_eq!(c.ssthresh_on_loss(&w, 0), 56 * MSS); // 80 * 717 / 1024 = 56.01
        assert_eq!(c.state().1, 68); // 80 * 1741 / 2048 = 68.0
                                     // Never below two segments.
        w.cwnd = 2 * MSS;
        assert_eq!(c.ssthresh_on_loss(&w, 0), 2 * MSS);
    }

    /// After a loss from W_max = 100 at cwnd 70, K = cbrt((100 - 70) / C')
    /// in 2^-10 s with the kernel's C' = 410 / 2^40 per unit^3: about
    /// 4.2 s (the RFC's K = cbrt(W_max (1 - beta) / C) = cbrt(30 / 0.4) =
    /// 4.22 s, C = 0.4 being 410 / 1024 at the kernel's 100 ms scale).
    #[test]
    fn k_is_the_time_back_to_wmax() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(100, 1000);
        after_loss(&mut c, &mut w);
        c.on_new_ack(&mut w, &ack(10_000 * MS, 1));
        let (_, wmax, k, epoch) = c.state();
        assert_eq!(wmax, 100);
        assert_eq!(epoch, Some(2500)); // 10 s at 250 Hz
        let k_s = k as f64 / 1024.0;
        let rfc = (30.0f64 / (410.0 / 1024.0)).cbrt();
        assert!((k_s - rfc).abs() < 0.002, "K {k_s} s against {rfc} s");
    }

    /// Follow the window through congestion avoidance at a fixed RTT with
    /// one ACK a segment: it climbs back to W_max, stays there around K
    /// (concave, then convex) and crosses it later. In whole segments as
    /// the kernel counts: the target is W_max while C |t - K|^3 < 1
    /// segment, i.e. within 1.36 s of K (C = 0.4).
    #[test]
    fn the_window_follows_the_cubic_curve() {
        let mut c = Cubic::new(CubicParams { tcp_friendliness: false, ..Default::default() });
        let mut w = state(100, 1000);
        after_loss(&mut c, &mut w);
        let rtt = 100 * MS;
        let start = 10_000 * MS;
        let mut now = start;
        let (mut reached, mut crossed) = (None, None);
        let mut trace = vec![];
        while now < start + 8000 * MS {
            one_round(&mut c, &mut w, now, rtt);
            now += rtt;
            trace.push(((now - start) as f64 / 1e9, w.cwnd / MSS));
            let t = (now - start) as f64 / 1e9;
            if reached.is_none() && w.cwnd / MSS >= 100 {
                reached = Some(t);
            }
            if crossed.is_none() && w.cwnd / MSS > 100 {
                crossed = Some(t);
            }
        }
        let k = 4.22;
        let plateau = (1.0f64 / 0.4).cbrt(); // 1.36 s
        let (reached, crossed) = (reached.unwrap(), crossed.unwrap());
        assert!((reached - (k - plateau)).abs() < 0.2, "back at W_max after {reached} s: {trace:?}");
        assert!((crossed - (k + plateau)).abs() < 0.2, "past W_max after {crossed} s: {trace:?}");
        // Within two segments of the RFC's W(t) = C (t - K)^3 + W_max
        // throughout (the kernel's t also counts the minimum RTT, 0 here:
        // no delay samples).
        for &(t, cwnd) in &trace {
            let rfc = 0.4 * (t - k).powi(3) + 100.0;
            assert!((cwnd as f64 - rfc).abs() <= 2.5, "{cwnd} against {rfc} at {t} s");
        }
        // Concave then convex: growth per RTT falls towards K, then rises.
        let growth = |t: f64| {
            let i = trace.iter().position(|&(s, _)| s >= t).unwrap();
            trace[i + 1].1 as i64 - trace[i].1 as i64
        };
        assert!(growth(0.5) > growth(3.5), "{trace:?}");
        assert!(growth(7.5) > growth(4.5), "{trace:?}");
    }

    /// With friendliness on, at a small window and short RTT the Reno
    /// estimate grows faster than the cubic curve and caps cnt: about
    /// 1 / (15/8 windows) segments per ACK of a window, i.e. the window
    /// rises by one segment per about 1.9 RTTs ... until the cubic curve
    /// takes over.
    #[test]
    fn the_tcp_friendly_region_grows_like_reno_with_beta_0_7() {
        let run = |friendly: bool| {
            let mut c = Cubic::new(CubicParams { tcp_friendliness: friendly, ..Default::default() });
            let mut w = state(20, 1000);
            after_loss(&mut c, &mut w);
            let rtt = 10 * MS;
            let mut now = 10_000 * MS;
            for _ in 0..100 {
                one_round(&mut c, &mut w, now, rtt);
                now += rtt;
            }
            w.cwnd / MSS
        };
        // 14 segments after the loss; 100 RTTs of 10 ms are 1 s, far
        // short of K = cbrt(6 / 0.4 * ...) ~ 2.5 s: the cubic curve alone
        // is still below W_max = 20.
        let (cubic_only, friendly) = (run(false), run(true));
        assert!(cubic_only <= 20, "{cubic_only}");
        // Reno at 3 (1 - beta) / (1 + beta) = 0.53 segments per RTT: about
        // 14 + 53 over 100 RTTs.
        assert!((60..=75).contains(&friendly), "{friendly}");
    }

    #[test]
    fn slow_start_then_cnt_capped_at_20_before_any_loss() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(10, 12);
        // Slow start: +1 a segment up to ssthresh, the rest in CA.
        c.on_new_ack(&mut w, &ack(MS, 3));
        assert_eq!(w.cwnd, 12 * MSS);
        let (cnt, ..) = c.state();
        // No loss yet (W_max 0): at most 20 ACKs an increment (5 % an RTT);
        // the curve from W_max 0 asks for 100 cwnd here.
        assert_eq!(cnt, 20);
    }

    #[test]
    fn a_timeout_resets_wmax_and_the_epoch() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(50, 1000);
        c.ssthresh_on_loss(&w, 0);
        c.on_timeout(&mut w, &ack(MS, 0));
        assert_eq!(w.cwnd, MSS);
        assert_eq!(w.ssthresh, 35 * MSS); // 50 * 717 / 1024
        assert_eq!(c.state(), (0, 0, 0, None));
        // The retransmission's timeout with nothing acknowledged since:
        // ssthresh stays (Linux: Loss state, icsk_retransmits > 0); from a
        // window of one it would have been cut to 2.
        c.on_timeout(&mut w, &ack(2 * MS, 0));
        assert_eq!(w.ssthresh, 35 * MSS);
        // Progress, then a timeout: a new cut, from cwnd.
        w.cwnd = 10 * MSS;
        let mut later = ack(3 * MS, 0);
        later.ack = 5 * MSS;
        c.on_timeout(&mut w, &later);
        assert_eq!(w.ssthresh, 7 * MSS); // 10 * 717 / 1024
    }

    #[test]
    fn a_reduction_clears_the_count_towards_an_increment() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(100, 10);
        c.on_new_ack(&mut w, &ack(MS, 1));
        assert!(c.cwnd_cnt > 0);
        c.ssthresh_on_loss(&w, 0);
        assert_eq!(c.cwnd_cnt, 0);
    }

    /// No delay sample counts within a second (HZ jiffies) of an epoch's
    /// start: the least delay stays what it was.
    #[test]
    fn delay_samples_right_after_a_reduction_are_ignored() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(100, 1000);
        c.on_delay_sample(&mut w, &sample(MS, 50 * MS, 1, 2));
        after_loss(&mut c, &mut w);
        c.on_new_ack(&mut w, &ack(1000 * MS, 1)); // the epoch starts at 1 s
        c.on_delay_sample(&mut w, &sample(1900 * MS, 10 * MS, 3, 4));
        assert_eq!(c.ca.delay_min, 50_000);
        c.on_delay_sample(&mut w, &sample(2000 * MS, 10 * MS, 5, 6));
        assert_eq!(c.ca.delay_min, 10_000);
    }

    /// The least RTT is part of t: with delay_min 400 ms (100 jiffies) the
    /// curve is that much further on at the epoch's first ACK.
    #[test]
    fn the_least_rtt_moves_t_along_the_curve() {
        let first_cnt = |rtt: Time| {
            let mut c = Cubic::new(CubicParams::default());
            let mut w = state(100, 1000);
            c.on_delay_sample(&mut w, &sample(MS, rtt, 1, 2));
            after_loss(&mut c, &mut w);
            c.on_new_ack(&mut w, &ack(10_000 * MS, 1));
            c.state().0
        };
        // Below W_max the target rises with t: fewer ACKs an increment.
        assert!(first_cnt(400 * MS) < first_cnt(MS), "{} {}", first_cnt(400 * MS), first_cnt(MS));
    }

    fn sample(now: Time, rtt: Time, una: u64, nxt: u64) -> DelaySample {
        DelaySample { now, rtt, snd_una: una, snd_nxt: nxt, srtt: Some(rtt) }
    }

    /// HyStart's delay test: a round whose least RTT (of 8 samples or
    /// more) exceeds the least RTT seen by max(4 ms, 1/8 of it) ends slow
    /// start at the current cwnd.
    #[test]
    fn hystart_delay_test_ends_slow_start() {
        let p = CubicParams { hystart_detect: 2, ..Default::default() };
        let mut c = Cubic::new(p);
        let mut w = state(32, u32::MAX as u64);
        let t0 = 100 * MS;
        // A first round at 40 ms: delay_min 40 ms.
        for i in 0..10 {
            c.on_delay_sample(&mut w, &sample(t0 + i * MS, 40 * MS, 1 + i, 100_000));
        }
        assert_eq!(w.ssthresh, INF);
        // Next round (snd_una past end_seq) at 44 ms: within 5 ms (1/8 of
        // 40 ms), nothing.
        for i in 0..10 {
            c.on_delay_sample(&mut w, &sample(t0 + 50 * MS + i * MS, 44 * MS, 100_001 + i, 200_000));
        }
        assert_eq!(w.ssthresh, INF);
        // Then a round at 46 ms: found on the ninth sample.
        for i in 0..9 {
            c.on_delay_sample(&mut w, &sample(t0 + 100 * MS + i * MS, 46 * MS, 200_001 + i, 300_000));
        }
        assert_eq!(w.ssthresh, 32 * MSS);
    }

    /// HyStart's ACK train: ACKs within 2 ms of each other spanning more
    /// than half the minimum RTT plus the GSO allowance (1 ms at this
    /// rate) since the round began: (20 + 1) / 2 = 10.5 ms.
    #[test]
    fn hystart_ack_train_ends_slow_start() {
        let p = CubicParams { hystart_detect: 1, ..Default::default() };
        let mut c = Cubic::new(p);
        let mut w = state(40, u32::MAX as u64);
        let t0 = 100 * MS;
        c.on_delay_sample(&mut w, &sample(t0, 20 * MS, 1, 50_000)); // round starts, delay_min 20 ms
        let mut t = t0;
        let mut found_at = None;
        for i in 0..80 {
            t += MS / 4; // one ACK every 250 us: one train
            c.on_delay_sample(&mut w, &sample(t, 20 * MS, 2 + i, 50_000));
            if found_at.is_none() && w.ssthresh < INF {
                found_at = Some(t - t0);
            }
        }
        // Past 10.5 ms: at 10.75 ms (10.25 without the allowance).
        assert_eq!(found_at, Some(10 * MS + 3 * MS / 4));
        assert_eq!(w.ssthresh, 40 * MSS);
    }

    #[test]
    fn hystart_waits_for_16_segments() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(15, u32::MAX as u64);
        for i in 0..40 {
            c.on_delay_sample(&mut w, &sample(100 * MS + i * MS, (20 + i) * MS, 1 + i, 50_000));
        }
        assert_eq!(w.ssthresh, INF);
    }

    #[test]
    fn an_idle_pause_moves_the_epoch() {
        let mut c = Cubic::new(CubicParams::default());
        let mut w = state(100, 1000);
        after_loss(&mut c, &mut w);
        c.on_new_ack(&mut w, &ack(1000 * MS, 1));
        assert_eq!(c.state().3, Some(250));
        c.on_tx_start(3000 * MS, 2000 * MS);
        assert_eq!(c.state().3, Some(500)); // 1 s later at 250 Hz
                                            // Never past now.
        c.on_tx_start(3004 * MS, 0);
        assert_eq!(c.state().3, Some(751));
    }
}
