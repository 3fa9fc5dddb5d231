//! RFC 6298 retransmission timeout: SRTT/RTTVAR, clock granularity, min and
//! max RTO, exponential backoff kept until a new valid RTT sample (Karn).

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
}

impl RtoEstimator {
    pub fn new(initial: Time, min: Time, max: Time, granularity: Time) -> Self {
        RtoEstimator { srtt: None, rttvar: 0, base: initial, backoff: 1, min, max, granularity }
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
        self.base.saturating_mul(self.backoff as u64).min(self.max)
    }

    /// Double the timeout after an expiry (RFC 6298 5.5), up to the maximum.
    pub fn back_off(&mut self) {
        if self.rto() < self.max {
            self.backoff = self.backoff.saturating_mul(2);
        }
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
}
