//! Simulated time: an integer number of nanoseconds since the start of the run.
//! Integers keep runs bit-identical across machines (no float accumulation).

pub type Time = u64;

pub const NS: Time = 1;
pub const US: Time = 1_000;
pub const MS: Time = 1_000_000;
pub const SEC: Time = 1_000_000_000;

/// Nanoseconds to seconds, for reporting only.
pub fn to_secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}

/// Seconds to nanoseconds, rounded to the nearest nanosecond.
pub fn from_secs(s: f64) -> Time {
    (s * SEC as f64).round() as Time
}

/// Time to serialise `bytes` at `rate_bps` (integer bit/s), rounded to the
/// nearest nanosecond. Integer arithmetic: exact and the same on every machine.
pub fn tx_time(bytes: u64, rate_bps: u64) -> Time {
    // bytes * 8e9 fits in u64 for packets below 2 GB; u64 division is
    // several times cheaper than u128.
    (bytes * 8 * SEC + rate_bps / 2) / rate_bps
}

/// Serialising at one rate: whole nanoseconds per byte when 8e9 is a
/// multiple of the rate (1, 2, 10, 100 or 1000 Mbit/s ...), else the rate to
/// divide by. `time` equals `tx_time` either way (the rounding term of the
/// division is below one bit/s), with a multiplication where the division
/// took tens of cycles on every packet or frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxRate {
    PerByte(Time),
    Bps(u64),
}

impl TxRate {
    pub fn new(bps: u64) -> TxRate {
        if bps > 0 && (8 * SEC).is_multiple_of(bps) {
            TxRate::PerByte(8 * SEC / bps)
        } else {
            TxRate::Bps(bps)
        }
    }

    /// `tx_time(bytes, rate)`.
    #[inline]
    pub fn time(self, bytes: u64) -> Time {
        match self {
            TxRate::PerByte(ns) => bytes * ns,
            TxRate::Bps(bps) => tx_time(bytes, bps),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tx_times() {
        assert_eq!(tx_time(1040, 2_000_000), 4_160_000);
        assert_eq!(tx_time(304, 9600), 253_333_333);
        assert_eq!(tx_time(1, 3), 2_666_666_667);
    }

    #[test]
    fn tx_rate_matches_tx_time() {
        let whole = [1u64, 2, 8, 1_000_000, 2_000_000, 10_000_000, 100_000_000, 1_000_000_000, 8_000_000_000];
        let other = [3u64, 9600, 11_000_000, 16_000_000_000];
        for rate in whole.into_iter().chain(other) {
            let r = TxRate::new(rate);
            assert_eq!(matches!(r, TxRate::PerByte(_)), whole.contains(&rate), "{rate}");
            for bytes in [0u64, 1, 40, 1040, 1500, 65_535] {
                assert_eq!(r.time(bytes), tx_time(bytes, rate), "{rate} bit/s, {bytes} bytes");
            }
        }
    }
}
