//! Time averages of a sender's window and timer (SPEC 7: per flow, the
//! average of cwnd, ssthresh, srtt and rto): each value integrated over the
//! time it held, exactly. The sender's state changes only while it handles
//! an event (an ACK, its timer, an application write), so the integral is
//! brought up to the event's time when the event begins, before anything
//! changes; between events every value is constant.

use super::rto::RtoEstimator;
use crate::engine::Time;

/// Running integrals (value x nanoseconds) since the flow's start.
/// 56 bytes: it sits in the padding of the sender's last cache line.
#[derive(Clone, Copy, Debug)]
pub struct TimeAverages {
    /// Time up to which the integrals run; `Time::MAX` before the start,
    /// so that a call then adds nothing.
    last: Time,
    cwnd: f64,
    /// ssthresh and srtt count only while they are set (ssthresh finite:
    /// Linux starts without one; srtt after the first RTT sample), with
    /// the time they were.
    ssthresh: f64,
    ssthresh_time: f64,
    srtt: f64,
    srtt_time: f64,
    rto: f64,
}

/// The averages over a flow's active time: `None` where the value was never
/// set (or the active time is empty).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WindowAverages {
    pub cwnd_bytes: Option<f64>,
    pub ssthresh_bytes: Option<f64>,
    pub srtt_s: Option<f64>,
    pub rto_s: Option<f64>,
}

/// The ssthresh a table shows: unset above `i64::MAX`, as series.csv has it.
#[inline(always)]
pub fn ssthresh_is_set(ssthresh: u64) -> bool {
    ssthresh <= i64::MAX as u64
}

impl Default for TimeAverages {
    fn default() -> Self {
        TimeAverages {
            last: Time::MAX,
            cwnd: 0.0,
            ssthresh: 0.0,
            ssthresh_time: 0.0,
            srtt: 0.0,
            srtt_time: 0.0,
            rto: 0.0,
        }
    }
}

impl TimeAverages {
    /// The time the integrals run up to (`Time::MAX` before the start).
    pub fn last(&self) -> Time {
        self.last
    }

    /// The flow starts at `now`: integration begins.
    pub fn start(&mut self, now: Time) {
        self.last = now;
    }

    /// Bring the integrals up to `now` with the values that held since the
    /// last call. No branches on the sender's per-ACK path but the two
    /// "is it set" selects.
    #[inline(always)]
    pub fn advance(&mut self, now: Time, cwnd: u64, ssthresh: u64, rto: &RtoEstimator) {
        // Signed conversions: one instruction each on x86-64 (an unsigned
        // one is a branchy sequence); every value here is below 2^63.
        let dt = now.saturating_sub(self.last) as i64 as f64;
        self.last = now;
        self.cwnd += cwnd as i64 as f64 * dt;
        let set = if ssthresh_is_set(ssthresh) { dt } else { 0.0 };
        self.ssthresh += ssthresh as i64 as f64 * set;
        self.ssthresh_time += set;
        let (srtt, with) = match rto.srtt {
            Some(s) => (s as i64 as f64, dt),
            None => (0.0, 0.0),
        };
        self.srtt += srtt * with;
        self.srtt_time += with;
        self.rto += rto.rto() as i64 as f64 * dt;
    }

    /// The averages from `start` to `self`'s last time (the integrals must
    /// have been brought there).
    pub fn averages(&self, start: Time) -> WindowAverages {
        if self.last == Time::MAX {
            return WindowAverages::default(); // never started
        }
        let span = self.last.saturating_sub(start) as f64;
        let over = |sum: f64, time: f64| (time > 0.0).then(|| sum / time);
        WindowAverages {
            cwnd_bytes: over(self.cwnd, span),
            ssthresh_bytes: over(self.ssthresh, self.ssthresh_time),
            srtt_s: over(self.srtt, self.srtt_time).map(|ns| ns / 1e9),
            rto_s: over(self.rto, span).map(|ns| ns / 1e9),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::{from_secs, to_secs};

    fn secs(s: u64) -> Time {
        s * 1_000_000_000
    }

    fn ms(m: u64) -> Time {
        from_secs(m as f64 / 1000.0)
    }

    fn estimator() -> RtoEstimator {
        RtoEstimator::new(secs(3), secs(1), secs(60), ms(1))
    }

    #[test]
    fn each_value_is_weighted_by_the_time_it_held() {
        let mut rto = estimator();
        let mut a = TimeAverages::default();
        // Nothing counts before the start.
        a.advance(secs(1), 999_999, 5, &rto);
        a.start(secs(2));
        // 2..3 s: cwnd 1000, ssthresh unset, no srtt, rto 3 s.
        a.advance(secs(3), 1000, u64::MAX, &rto);
        rto.sample_timed(secs(3), secs(3) + ms(100));
        // 3..6 s: cwnd 3000, ssthresh 8000, srtt 100 ms, rto 1 s (the floor).
        a.advance(secs(6), 3000, 8000, &rto);
        let got = a.averages(secs(2));
        assert_eq!(got.cwnd_bytes, Some((1000.0 * 1.0 + 3000.0 * 3.0) / 4.0));
        assert_eq!(got.ssthresh_bytes, Some(8000.0));
        assert_eq!(got.srtt_s, Some(0.1));
        let want_rto = (3.0 + to_secs(rto.rto()) * 3.0) / 4.0;
        assert!((got.rto_s.unwrap() - want_rto).abs() < 1e-12, "{got:?}");
    }

    #[test]
    fn nothing_set_gives_none() {
        let a = TimeAverages::default();
        assert_eq!(a.averages(0), WindowAverages::default());
        let mut b = TimeAverages::default();
        b.start(secs(1));
        b.advance(secs(1), 1000, u64::MAX, &estimator());
        assert_eq!(b.averages(secs(1)), WindowAverages::default());
    }
}
