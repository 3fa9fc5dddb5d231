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
    ns2: Option<Ns2Clock>,
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
        RtoEstimator { srtt: None, rttvar: 0, base: initial, backoff: 1, min, max, granularity, ns2: None }
    }

    /// Estimate as ns-2 does, with tick clock phase `phase` (< granularity).
    pub fn with_ns2_clock(mut self, phase: Time) -> Self {
        self.ns2 =
            Some(Ns2Clock { phase, srtt8: 0, rttvar4: 0, rfc2988: true, srtt_bits: 3, rttvar_bits: 2, rttvar_exp: 2 });
        self
    }

    /// With the ns-2 clock: ns-2's `rfc2988_` (false: its older rule,
    /// rtt_timeout() clamping the backed-off timeout to the minimum).
    pub fn with_ns2_rfc2988(mut self, rfc2988: bool) -> Self {
        if let Some(c) = self.ns2.as_mut() {
            c.rfc2988 = rfc2988;
        }
        self
    }

    /// With the ns-2 clock: ns-2's T_SRTT_BITS, T_RTTVAR_BITS and
    /// rttvar_exp_ (its defaults 3, 2 and 2 are RFC 6298's gains 1/8 and
    /// 1/4 and its K = 4).
    pub fn with_ns2_scaling(mut self, srtt_bits: u32, rttvar_bits: u32, rttvar_exp: u32) -> Self {
        if let Some(c) = self.ns2.as_mut() {
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
        let sampled = self.ns2.as_ref().map_or(self.srtt.is_some(), |c| c.srtt8 != 0);
        let rtxcur = if sampled { (self.base / g) as f64 * tick_s } else { self.base as f64 / 1e9 };
        (rtxcur / tick_s) as i64
    }

    /// ns-2's t_srtt_ >> T_SRTT_BITS: the smoothed RTT in whole ticks.
    pub fn ns2_srtt_ticks(&self) -> i64 {
        match &self.ns2 {
            Some(c) => c.srtt8 >> c.srtt_bits,
            None => (self.srtt.unwrap_or(0) / self.granularity.max(1)) as i64,
        }
    }

    /// A segment sent at `sent` was acknowledged at `now` (no timestamps).
    pub fn sample_timed(&mut self, sent: Time, now: Time) {
        match &self.ns2 {
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
        match &self.ns2 {
            Some(_) => {
                let g = self.granularity;
                self.ns2_sample(((r + g / 2) / g) as i64);
            }
            None => self.sample(r),
        }
    }

    fn ns2_sample(&mut self, ticks: i64) {
        let g = self.granularity;
        let c = self.ns2.as_mut().expect("ns-2 clock");
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
        self.backoff = 1;
    }

    /// A valid RTT measurement `r` (RFC 6298 2.2 and 2.3). Resets the backoff
    /// (RFC 6298 5.7's note: a new sample recomputes the RTO).
    pub fn sample(&mut self, r: Time) {
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
        self.backoff = 1;
    }

    /// The timeout to arm now.
    pub fn rto(&self) -> Time {
        if let Some(c) = &self.ns2 {
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
        if self.ns2.as_ref().is_some_and(|c| !c.rfc2988) {
            // rtt_backoff() without rfc2988_: doubled while below 64.
            if self.backoff < 64 {
                self.backoff *= 2;
            }
        } else if self.rto() < self.max {
            self.backoff = self.backoff.saturating_mul(2);
        }
        if let Some(c) = self.ns2.as_mut() {
            if self.backoff > 8 {
                // rtt_backoff(): start the estimate afresh at the next sample.
                c.rttvar4 += c.srtt8 >> c.srtt_bits;
                c.srtt8 = 0;
            }
        }
    }

    /// Forget the backoff without a new sample (ns-2 on a partial ACK).
    pub fn clear_backoff(&mut self) {
        self.backoff = 1;
    }

    /// Put back a backoff that a sample has just ended (ns-2 keeps it
    /// while ECN echoes continue at a window of one: `ecn_backoff`).
    pub fn restore_backoff(&mut self, backoff: u32) {
        self.backoff = backoff;
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
