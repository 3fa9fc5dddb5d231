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

/// Time to serialise `bytes` at `rate_bps`, rounded to the nearest nanosecond.
pub fn tx_time(bytes: u64, rate_bps: f64) -> Time {
    ((bytes * 8) as f64 * 1e9 / rate_bps).round() as Time
}
