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

/// The serialisation time of one byte at `rate_bps` when it is a whole
/// number of nanoseconds (8e9 divisible by the rate, as for 1, 2, 10, 100 or
/// 1000 Mbit/s), else None. Then `bytes * ns` is exactly `tx_time`: a
/// multiplication where the division took tens of cycles on every packet.
pub fn whole_ns_per_byte(rate_bps: u64) -> Option<u32> {
    let bit_ns = 8 * SEC;
    (rate_bps > 0 && bit_ns.is_multiple_of(rate_bps)).then(|| bit_ns / rate_bps).and_then(|n| u32::try_from(n).ok())
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
    fn whole_ns_per_byte_matches_tx_time() {
        for rate in [2u64, 8, 1_000_000, 2_000_000, 10_000_000, 100_000_000, 1_000_000_000, 8_000_000_000] {
            let ns = whole_ns_per_byte(rate).expect("whole") as u64;
            for bytes in [0u64, 1, 40, 1040, 1500, 65_535] {
                assert_eq!(bytes * ns, tx_time(bytes, rate), "{rate} bit/s, {bytes} bytes");
            }
        }
        for rate in [1u64, 3, 9600, 11_000_000, 16_000_000_000] {
            assert_eq!(whole_ns_per_byte(rate), None, "{rate}");
        }
    }
}
