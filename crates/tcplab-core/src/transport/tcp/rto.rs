//! RFC 6298 retransmission timeout: SRTT/RTTVAR, clock granularity, min and
//! max RTO, exponential backoff kept until a new valid RTT sample (Karn).
//!
//! Or, with `Ns2Clock`, ns-2.35's estimator (TcpAgent::rtt_update and
//! rtt_timeout): RTTs counted in whole ticks of `tcpTick_` as a BSD kernel
//! does (the number of tick boundaries between send and ACK, the ticks
//! running at a random phase: ns-2's boot_time_), SRTT and RTTVAR as scaled
//! integers (8 SRTT, 4 RTTVAR), RTO = SRTT + 4 RTTVAR in ticks, the minimum
//! applied before the backoff, at least two ticks; after the eighth backoff
//! the next sample starts the estimate afresh.
//!
//! Or, with `LinuxVar`, Linux's (tcp_rtt_estimator() and __tcp_set_rto(),
//! net/ipv4/tcp_input.c): microseconds, 8 SRTT and 4 mdev as integers, a
//! deviation that grows eight times slower when the RTT falls, and RTO =
//! SRTT + rttvar where rttvar follows the largest mdev of the last round
//! trip (rising at once, decaying by a quarter per round trip) and is never
//! below the minimum RTO: so the minimum is added to SRTT, not a floor of
//! the whole (RFC 6298), and an RTT of 400 ms gives an RTO of 600 ms, not
//! 420 (docs/models.md).

use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct RtoEstimator {
    pub srtt: Option<Time>,
    pub rttvar: Time,
    base: Time,
    backoff: u32,
    min: Time,
    max: Time,
    granularity: Time,
    flavour: Flavour,
    /// `rto()`'s value, recomputed by every change of the state it reads
    /// (`refresh`): the sender reads it on every ACK (its timer, the time
    /// averages), and it changes only with a sample or a backoff.
    current: Time,
}

/// Whose estimator: RFC 6298's on exact times, ns-2's or Linux's (one
/// slot for either's state: the sender's hot lines hold the estimator,
/// socket.rs's layout test).
#[derive(Clone, Debug)]
enum Flavour {
    Rfc6298,
    Ns2(Ns2Clock),
    Linux(LinuxVar),
}

/// Linux's estimator state beside SRTT and mdev (struct tcp_sock's
/// mdev_max_us, rttvar_us and rtt_seq), in microseconds; sequence numbers
/// in 32 bits, compared as the kernel's after(). The kernel's srtt_us (8
/// SRTT) and mdev_us (4 mdev), integers of microseconds, are kept in the
/// estimator's `srtt` and `rttvar` in nanoseconds, which hold them exactly
/// (8 SRTT us = SRTT / 125 ns, 4 mdev us = mdev / 250 ns): the state fits
/// the slot of ns-2's.
#[derive(Clone, Debug, Default)]
struct LinuxVar {
    /// The largest 4 mdev since `rtt_seq` was set (at least the minimum RTO).
    mdev_max: u32,
    /// What the RTO adds to SRTT.
    rttvar: u32,
    /// snd_nxt when the current round trip began: an ACK beyond it ends it.
    rtt_seq: u32,
    /// snd_una and snd_nxt of the ACK whose sample comes next (`at_ack`).
    una: u32,
    nxt: u32,
}

/// ns-2's tick-counting estimator state.
#[derive(Clone, Debug)]
struct Ns2Clock {
    /// Phase of the tick clock (ns-2's boot_time_), in [0, tick).
    phase: Time,
    /// SRTT and RTTVAR in ticks scaled by 2^srtt_bits and 2^rttvar_bits
    /// (t_srtt_, t_rttvar_: 8 SRTT and 4 RTTVAR by default); 0 = no estimate.
    srtt8: i64,
    rttvar4: i64,
    /// ns-2's T_SRTT_BITS, T_RTTVAR_BITS and rttvar_exp_ (3, 2, 2):
    /// gains 1/2^srtt_bits and 1/2^rttvar_bits, RTO = SRTT + 2^rttvar_exp
    /// RTTVAR. Bytes, so that the estimator keeps its size: the sender's
    /// hot lines hold it (socket.rs's layout test).
    srtt_bits: u8,
    rttvar_bits: u8,
    rttvar_exp: u8,
    /// rfc2988_ (true): the minimum applied before the backoff; false:
    /// after it, and the backoff doubled only below 64.
    rfc2988: bool,
}

impl RtoEstimator {
    pub fn new(initial: Time, min: Time, max: Time, granularity: Time) -> Self {
        RtoEstimator {
            srtt: None,
            rttvar: 0,
            base: initial,
            backoff: 1,
            min,
            max,
            granularity,
            flavour: Flavour::Rfc6298,
            current: 0,
        }
        .refreshed()
    }

    /// Estimate as Linux does (`LinuxVar`).
    pub fn with_linux_estimator(mut self) -> Self {
        self.flavour = Flavour::Linux(LinuxVar::default());
        self.refreshed()
    }

    fn ns2(&self) -> Option<&Ns2Clock> {
        match &self.flavour {
            Flavour::Ns2(c) => Some(c),
            _ => None,
        }
    }

    fn ns2_mut(&mut self) -> Option<&mut Ns2Clock> {
        match &mut self.flavour {
            Flavour::Ns2(c) => Some(c),
            _ => None,
        }
    }

    /// The sequence numbers Linux's estimator reads with the next sample:
    /// snd_una after the ACK, and snd_nxt (a no-op for the others).
    #[inline(always)]
    pub fn at_ack(&mut self, una: u64, nxt: u64) {
        if let Flavour::Linux(l) = &mut self.flavour {
            // Linux's sequence numbers are 32 bits.
            (l.una, l.nxt) = (una as u32, nxt as u32);
        }
    }

    /// Estimate as ns-2 does, with tick clock phase `phase` (< granularity).
    pub fn with_ns2_clock(mut self, phase: Time) -> Self {
        self.flavour = Flavour::Ns2(Ns2Clock {
            phase,
            srtt8: 0,
            rttvar4: 0,
            rfc2988: true,
            srtt_bits: 3,
            rttvar_bits: 2,
            rttvar_exp: 2,
        });
        self.refreshed()
    }

    /// With the ns-2 clock: ns-2's `rfc2988_` (false: its older rule,
    /// rtt_timeout() clamping the backed-off timeout to the minimum).
    pub fn with_ns2_rfc2988(mut self, rfc2988: bool) -> Self {
        if let Some(c) = self.ns2_mut() {
            c.rfc2988 = rfc2988;
        }
        self.refreshed()
    }

    /// With the ns-2 clock: ns-2's T_SRTT_BITS, T_RTTVAR_BITS and
    /// rttvar_exp_ (its defaults 3, 2 and 2 are RFC 6298's gains 1/8 and
    /// 1/4 and its K = 4).
    pub fn with_ns2_scaling(mut self, srtt_bits: u32, rttvar_bits: u32, rttvar_exp: u32) -> Self {
        if let Some(c) = self.ns2_mut() {
            // The scenario allows 1..8, 1..8 and 0..8 (`validate_tcp`).
            c.srtt_bits = srtt_bits.min(16) as u8;
            c.rttvar_bits = rttvar_bits.clamp(1, 16) as u8;
            c.rttvar_exp = rttvar_exp.min(16) as u8;
        }
        self
    }

    /// ns-2's (int)(t_rtxcur_ / tcpTick_): the RTO before backoff and
    /// bounds in whole ticks, as its congestion window validation reads
    /// it; t_rtxcur_ is a whole number of ticks times tcpTick_ once
    /// sampled, the initial RTO before, and the division in floating
    /// point as ns-2's (3 x 0.1 / 0.1 is 2.9999..., two ticks).
    pub fn ns2_rtxcur_ticks(&self) -> i64 {
        let g = self.granularity.max(1);
        let tick_s = g as f64 / 1e9;
        let sampled = self.ns2().map_or(self.srtt.is_some(), |c| c.srtt8 != 0);
        let rtxcur = if sampled { (self.base / g) as f64 * tick_s } else { self.base as f64 / 1e9 };
        (rtxcur / tick_s) as i64
    }

    /// ns-2's t_srtt_ >> T_SRTT_BITS: the smoothed RTT in whole ticks.
    pub fn ns2_srtt_ticks(&self) -> i64 {
        match self.ns2() {
            Some(c) => c.srtt8 >> c.srtt_bits,
            None => (self.srtt.unwrap_or(0) / self.granularity.max(1)) as i64,
        }
    }

    /// A segment sent at `sent` was acknowledged at `now` (no timestamps).
    pub fn sample_timed(&mut self, sent: Time, now: Time) {
        match self.ns2() {
            Some(c) => {
                // Tick boundaries crossed between send and ACK.
                let ticks = (now - sent + (sent + c.phase) % self.granularity) / self.granularity;
                self.ns2_sample(ticks as i64);
            }
            None => self.sample(now - sent),
        }
    }

    /// An RTT `r` measured by timestamps: ns-2 rounds it to whole ticks.
    pub fn sample_echo(&mut self, r: Time) {
        match self.ns2() {
            Some(_) => {
                let g = self.granularity;
                self.ns2_sample(((r + g / 2) / g) as i64);
            }
            None => self.sample(r),
        }
    }

    fn ns2_sample(&mut self, ticks: i64) {
        let g = self.granularity;
        let Flavour::Ns2(c) = &mut self.flavour else { unreachable!("ns-2 clock") };
        let t = ticks.max(1);
        let (sb, vb) = (c.srtt_bits as u32, c.rttvar_bits as u32);
        if c.srtt8 != 0 {
            let mut delta = t - (c.srtt8 >> sb);
            c.srtt8 += delta;
            if c.srtt8 <= 0 {
                c.srtt8 = 1;
            }
            delta = delta.abs() - (c.rttvar4 >> vb);
            c.rttvar4 += delta;
            if c.rttvar4 <= 0 {
                c.rttvar4 = 1;
            }
        } else {
            c.srtt8 = t << sb;
            c.rttvar4 = t << (vb - 1);
        }
        self.srtt = Some(((c.srtt8 as u64) * g) >> sb);
        self.rttvar = ((c.rttvar4 as u64) * g) >> vb;
        // t_rtxcur_ = (SRTT + 2^rttvar_exp RTTVAR) in whole ticks, from the
        // scaled values (4 RTTVAR + SRTT by default); no clamp yet.
        let shift = (c.rttvar_exp as u32 + sb) as i64 - vb as i64;
        let var = if shift >= 0 { c.rttvar4 << shift } else { c.rttvar4 >> -shift };
        self.base = ((var + c.srtt8) >> sb) as u64 * g;
        self.clear_backoff();
    }

    /// A valid RTT measurement `r` (RFC 6298 2.2 and 2.3). Resets the backoff
    /// (RFC 6298 5.7's note: a new sample recomputes the RTO).
    pub fn sample(&mut self, r: Time) {
        if matches!(self.flavour, Flavour::Linux(_)) {
            return self.linux_sample(r);
        }
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                let err = s.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * s + r) / 8);
            }
        }
        let s = self.srtt.unwrap();
        self.base = (s + self.granularity.max(4 * self.rttvar)).clamp(self.min, self.max);
        self.clear_backoff();
    }

    /// Linux's tcp_rtt_estimator() and tcp_set_rto() on a sample of `r`
    /// (measured in whole microseconds, as the kernel's clock).
    fn linux_sample(&mut self, r: Time) {
        let min_us = (self.min / 1000).min(u32::MAX as u64 / 2) as u32;
        let Flavour::Linux(l) = &mut self.flavour else { unreachable!("linux estimator") };
        let mut m = (r / 1000).min(u32::MAX as u64 / 16) as i64;
        let srtt8 = match self.srtt {
            Some(s) => {
                let mut srtt8 = (s / 125) as i64;
                m -= srtt8 >> 3; // the error
                srtt8 += m; // SRTT = 7/8 SRTT + 1/8 sample
                let mdev4 = (self.rttvar / 250) as i64;
                if m < 0 {
                    // A falling RTT: the deviation grows with gain 1/32, not
                    // 1/4 (an Eifel-like check against inflating the RTO).
                    m = -m - (mdev4 >> 2);
                    if m > 0 {
                        m >>= 3;
                    }
                } else {
                    m -= mdev4 >> 2;
                }
                let mdev4 = (mdev4 + m) as u32; // mdev = 3/4 mdev + 1/4 |error|
                self.rttvar = mdev4 as u64 * 250;
                if mdev4 > l.mdev_max {
                    l.mdev_max = mdev4;
                    l.rttvar = l.rttvar.max(mdev4);
                }
                if (l.una.wrapping_sub(l.rtt_seq) as i32) > 0 {
                    // A round trip ended: rttvar decays towards its largest
                    // deviation, and the next round trip's starts at the
                    // minimum.
                    if l.mdev_max < l.rttvar {
                        l.rttvar -= (l.rttvar - l.mdev_max) >> 2;
                    }
                    l.rtt_seq = l.nxt;
                    l.mdev_max = min_us;
                }
                srtt8.max(1) as u64
            }
            None => {
                let mdev4 = (m as u32) << 1; // RTO = 3 x the first RTT
                self.rttvar = mdev4 as u64 * 250;
                l.rttvar = mdev4.max(min_us);
                l.mdev_max = l.rttvar;
                l.rtt_seq = l.nxt;
                ((m as u64) << 3).max(1)
            }
        };
        self.srtt = Some(srtt8 * 125);
        // __tcp_set_rto(): SRTT + rttvar, up to whole ticks of the timer
        // (usecs_to_jiffies()).
        let rto = ((srtt8 >> 3) + l.rttvar as u64) * 1000;
        let g = self.granularity.max(1);
        self.base = rto.div_ceil(g).saturating_mul(g).min(self.max);
        self.clear_backoff();
    }

    /// The timeout to arm now.
    #[inline(always)]
    pub fn rto(&self) -> Time {
        debug_assert_eq!(self.current, self.compute_rto(), "the RTO refreshed after every change");
        self.current
    }

    fn refresh(&mut self) {
        self.current = self.compute_rto();
    }

    fn refreshed(mut self) -> Self {
        self.refresh();
        self
    }

    /// The timeout from the estimator's state (`rto()` reads it cached).
    fn compute_rto(&self) -> Time {
        if let Some(c) = self.ns2() {
            // rtt_timeout() with rfc2988_: the minimum before the backoff;
            // without: after it.
            let t = if c.rfc2988 {
                self.base.max(self.min).saturating_mul(self.backoff as u64)
            } else {
                self.base.saturating_mul(self.backoff as u64).max(self.min)
            };
            return t.min(self.max).max(2 * self.granularity);
        }
        self.base.saturating_mul(self.backoff as u64).min(self.max)
    }

    /// Double the timeout after an expiry (RFC 6298 5.5), up to the maximum.
    pub fn back_off(&mut self) {
        if self.ns2().is_some_and(|c| !c.rfc2988) {
            // rtt_backoff() without rfc2988_: doubled while below 64.
            if self.backoff < 64 {
                self.backoff *= 2;
            }
        } else if self.rto() < self.max {
            self.backoff = self.backoff.saturating_mul(2);
        }
        self.refresh();
        if let Flavour::Ns2(c) = &mut self.flavour {
            if self.backoff > 8 {
                // rtt_backoff(): start the estimate afresh at the next sample.
                c.rttvar4 += c.srtt8 >> c.srtt_bits;
                c.srtt8 = 0;
            }
        }
    }

    /// Forget the backoff: every sample does, and ns-2 also without one
    /// (on a partial ACK).
    pub fn clear_backoff(&mut self) {
        self.backoff = 1;
        self.refresh();
    }

    /// Before the first sample: the base RTO raised to `floor` if below
    /// (RFC 6298 5.7, after a SYN timed out); a sample replaces it.
    pub fn at_least_until_sampled(&mut self, floor: Time) {
        if self.srtt.is_none() && self.base < floor {
            self.base = floor;
            self.refresh();
        }
    }

    /// Put back a backoff that a sample has just ended (ns-2 keeps it
    /// while ECN echoes continue at a window of one: `ecn_backoff`).
    pub fn restore_backoff(&mut self, backoff: u32) {
        self.backoff = backoff;
        self.refresh();
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{MS, SEC};

    #[test]
    fn first_sample_and_update() {
        let mut e = RtoEstimator::new(3 * SEC, 200 * MS, 60 * SEC, 10 * MS);
        assert_eq!(e.rto(), 3 * SEC);
        e.sample(100 * MS);
        // SRTT = 100, RTTVAR = 50 -> RTO = 100 + 200 = 300 ms
        assert_eq!(e.rto(), 300 * MS);
        e.sample(200 * MS);
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5, SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.srtt, Some(112_500_000));
        assert_eq!(e.rto(), 112_500_000 + 4 * 62_500_000);
    }

    #[test]
    fn min_rto_and_granularity() {
        let mut e = RtoEstimator::new(3 * SEC, 200 * MS, 60 * SEC, 10 * MS);
        for _ in 0..50 {
            e.sample(10 * MS);
        }
        assert_eq!(e.rto(), 200 * MS);
        let mut g = RtoEstimator::new(3 * SEC, 0, 60 * SEC, 500 * MS);
        for _ in 0..50 {
            g.sample(10 * MS);
        }
        assert_eq!(g.rto(), 10 * MS + 500 * MS, "granularity floors the variance term");
    }

    #[test]
    fn backoff_doubles_to_max_and_sample_resets() {
        let mut e = RtoEstimator::new(SEC, 200 * MS, 60 * SEC, 10 * MS);
        let mut seen = vec![e.rto()];
        for _ in 0..8 {
            e.back_off();
            seen.push(e.rto());
        }
        assert_eq!(seen.iter().map(|t| t / SEC).collect::<Vec<_>>(), vec![1, 2, 4, 8, 16, 32, 60, 60, 60]);
        e.sample(100 * MS);
        assert_eq!(e.backoff(), 1);
        assert_eq!(e.rto(), 300 * MS);
    }

    /// Linux's estimator, step by step (tcp_rtt_estimator(), the minimum
    /// RTO 200 ms, a 1 ms timer): the first sample of 400 ms gives RTO 3 x
    /// 400 ms; within its round trip (snd_una not past rtt_seq = 10) mdev
    /// falls but rttvar holds its 800 ms (RFC 6298: 1000 ms here); the
    /// first round trip ends with mdev_max = rttvar, nothing to decay; the
    /// second decays rttvar by a quarter of its distance to that round
    /// trip's largest mdev (337.5 ms): 800 - 115.625 = 684.375 ms.
    #[test]
    fn linux_estimator_step_by_step() {
        let mut e = RtoEstimator::new(SEC, 200 * MS, 120 * SEC, MS).with_linux_estimator();
        let mut feed = |una, nxt| {
            e.at_ack(una, nxt);
            e.sample(400 * MS);
            e.rto()
        };
        assert_eq!(feed(1, 10), 1200 * MS);
        assert_eq!(feed(5, 10), 1200 * MS);
        assert_eq!(feed(11, 20), 1200 * MS);
        assert_eq!(feed(21, 30), 1085 * MS, "400 + 684.375 ms, up to the 1 ms timer");
    }

    /// A steady RTT: RFC 6298's RTO falls to SRTT (above the minimum),
    /// Linux's to SRTT + the minimum (rttvar never decays below it).
    #[test]
    fn linux_rto_adds_the_minimum_to_srtt() {
        let mut l = RtoEstimator::new(SEC, 200 * MS, 120 * SEC, MS).with_linux_estimator();
        let mut r = RtoEstimator::new(SEC, 200 * MS, 120 * SEC, MS);
        for k in 0..200u64 {
            l.at_ack(10 * k + 1, 10 * k + 10);
            l.sample(400 * MS);
            r.sample(400 * MS);
        }
        assert_eq!(l.srtt, Some(400 * MS));
        assert_eq!(r.rto(), 401 * MS, "SRTT + the 1 ms granularity");
        // rttvar's integer decay stops within 3 us of its floor: 600.003
        // ms, up to the 1 ms timer.
        assert_eq!(l.rto(), 601 * MS);
        l.back_off();
        assert_eq!(l.rto(), 1202 * MS);
    }

    /// The deviation grows with gain 1/32 on a falling RTT and 1/4 on a
    /// rising one: from a steady 400 ms, 200 ms moves mdev by 25 ms and
    /// leaves the RTO at SRTT (375 ms) + 200; 700 ms moves it by 300 ms,
    /// and rttvar follows at once: 437.5 + 300 ms.
    #[test]
    fn linux_estimator_is_slow_to_grow_on_a_falling_rtt() {
        let steady = || {
            let mut e = RtoEstimator::new(SEC, 200 * MS, 120 * SEC, MS).with_linux_estimator();
            for k in 0..200u64 {
                e.at_ack(10 * k + 1, 10 * k + 10);
                e.sample(400 * MS);
            }
            e
        };
        let (mut down, mut up) = (steady(), steady());
        down.at_ack(1995, 2000);
        down.sample(200 * MS);
        assert_eq!(down.srtt, Some(375 * MS));
        // 4 mdev: the 3 us where its integer decay stopped, + 25 ms.
        assert_eq!(down.rttvar, 25_003 * 250);
        assert_eq!(down.rto(), 576 * MS, "375 + 200.003 ms, up to the timer");
        up.at_ack(1995, 2000);
        up.sample(700 * MS);
        assert_eq!(up.srtt, Some(437_500_000));
        assert_eq!(up.rto(), 738 * MS, "437.5 + 300 ms");
    }

    /// ns-2's estimator (TcpAgent::rtt_update): 105 ms at a 10 ms tick is
    /// 10 ticks (SRTT 10, RTTVAR 5: RTO 30 ticks); then 205 ms, 20 ticks:
    /// 8 SRTT = 90, 4 RTTVAR = 25, RTO = (200 + 90) >> 3 = 36 ticks.
    #[test]
    fn ns2_tick_estimator() {
        let mut e = RtoEstimator::new(3 * SEC, 200 * MS, 60 * SEC, 10 * MS).with_ns2_clock(0);
        assert_eq!(e.rto(), 3 * SEC);
        e.sample_timed(0, 105 * MS);
        assert_eq!(e.rto(), 300 * MS);
        e.sample_timed(SEC, SEC + 205 * MS);
        assert_eq!(e.rto(), 360 * MS);
        // The clock phase decides how many tick boundaries a send-to-ACK
        // interval crosses: 95 ms from 5 ms before a boundary is 10 ticks.
        let mut p = RtoEstimator::new(3 * SEC, 0, 60 * SEC, 10 * MS).with_ns2_clock(5 * MS);
        p.sample_timed(0, 95 * MS);
        assert_eq!(p.srtt, Some(100 * MS));
        // Minimum before the backoff, at least two ticks.
        let mut m = RtoEstimator::new(3 * SEC, 200 * MS, 60 * SEC, 10 * MS).with_ns2_clock(0);
        m.sample_timed(0, 5 * MS);
        assert_eq!(m.rto(), 200 * MS);
        m.back_off();
        assert_eq!(m.rto(), 400 * MS);
    }
}
