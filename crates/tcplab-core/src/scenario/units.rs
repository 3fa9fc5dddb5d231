//! Quantities with units in scenario files: rates ("10Mbps", "9600bps",
//! "2Mb", or a number in bit/s) and durations ("100ms", "2s", or a number in
//! seconds). Parse errors list the accepted units.

use crate::engine::Time;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// A link rate in bit/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate(pub f64);

/// A duration in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Dur(pub Time);

const RATE_UNITS: &str = "bps, kbps, Mbps, Gbps (or b, kb, Mb, Gb), e.g. \"2Mbps\", or a number in bit/s";
const DUR_UNITS: &str = "ns, us, ms, s, e.g. \"100ms\", or a number in seconds";

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // 'e' may start a unit in other contexts, but no unit here starts with e.
    let num: f64 = s[..end].parse().ok()?;
    Some((num, s[end..].trim()))
}

pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let bad = || format!("invalid rate {s:?}: expected a number with a unit: {RATE_UNITS}");
    let (n, unit) = split_number(s).ok_or_else(bad)?;
    let mult = match unit {
        "" | "bps" | "b" | "bit/s" => 1.0,
        "kbps" | "Kbps" | "kb" | "Kb" | "kbit/s" => 1e3,
        "Mbps" | "mbps" | "Mb" | "Mbit/s" => 1e6,
        "Gbps" | "gbps" | "Gb" | "Gbit/s" => 1e9,
        _ => return Err(bad()),
    };
    check_rate(n * mult).map_err(|_| format!("invalid rate {s:?}: must be greater than 0"))
}

/// A rate in bit/s as an error message shows it, in the largest unit
/// that keeps it at 1 or more (`2` bit/s reads "2 bit/s", not "0.000002
/// Mbit/s").
pub fn format_rate(bps: f64) -> String {
    let (div, unit) = match bps {
        x if x >= 1e9 => (1e9, "Gbit/s"),
        x if x >= 1e6 => (1e6, "Mbit/s"),
        x if x >= 1e3 => (1e3, "kbit/s"),
        _ => (1.0, "bit/s"),
    };
    format!("{} {unit}", bps / div)
}

fn check_rate(r: f64) -> Result<Rate, String> {
    if r.is_finite() && r > 0.0 {
        Ok(Rate(r))
    } else {
        Err(format!("invalid rate {r}: must be greater than 0 bit/s"))
    }
}

pub fn parse_dur(s: &str) -> Result<Dur, String> {
    let bad = || format!("invalid duration {s:?}: expected a number with a unit: {DUR_UNITS}");
    let (n, unit) = split_number(s).ok_or_else(bad)?;
    let mult = match unit {
        "ns" => 1e-9,
        "us" => 1e-6,
        "ms" => 1e-3,
        "" | "s" => 1.0,
        _ => return Err(bad()),
    };
    // Which durations may be zero is the key's business (sim.duration may
    // not, a start may): here only what no duration can be.
    secs_to_dur(n * mult).map_err(|_| format!("invalid duration {s:?}: {DUR_RANGE}"))
}

/// What no duration may be (docs/scenarios.md: ">= 0 and below 10^9 s"):
/// 1e9 s itself is refused, so the message must not say "above".
const DUR_RANGE: &str = "a duration cannot be negative and must be below 1e9 s";

fn secs_to_dur(x: f64) -> Result<Dur, String> {
    if x.is_finite() && (0.0..1e9).contains(&x) {
        Ok(Dur((x * 1e9).round() as Time))
    } else {
        Err(format!("invalid duration {x}: {DUR_RANGE}"))
    }
}

struct RateVisitor;
impl<'de> Visitor<'de> for RateVisitor {
    type Value = Rate;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a rate: {RATE_UNITS}")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Rate, E> {
        parse_rate(v).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Rate, E> {
        check_rate(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Rate, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Rate, E> {
        self.visit_f64(v as f64)
    }
}
impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RateVisitor)
    }
}

struct DurVisitor;
impl<'de> Visitor<'de> for DurVisitor {
    type Value = Dur;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a duration: {DUR_UNITS}")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
        parse_dur(v).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
        secs_to_dur(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
        self.visit_f64(v as f64)
    }
}
impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DurVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_format_in_the_largest_unit_at_or_above_one() {
        assert_eq!(format_rate(2.0), "2 bit/s");
        assert_eq!(format_rate(9600.0), "9.6 kbit/s");
        assert_eq!(format_rate(5.5e6), "5.5 Mbit/s");
        assert_eq!(format_rate(1e9), "1 Gbit/s");
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps").unwrap().0, 10e6);
        assert_eq!(parse_rate("9600bps").unwrap().0, 9600.0);
        assert_eq!(parse_rate("2Mb").unwrap().0, 2e6);
        assert_eq!(parse_rate("1.5 Mbps").unwrap().0, 1.5e6);
        assert_eq!(parse_rate("64kbps").unwrap().0, 64e3);
        assert!(parse_rate("10MBps").unwrap_err().contains("Mbps"));
        assert!(parse_rate("0bps").is_err());
        assert!(parse_rate("fast").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_dur("1ms").unwrap().0, 1_000_000);
        assert_eq!(parse_dur("100s").unwrap().0, 100_000_000_000);
        assert_eq!(parse_dur("2.5us").unwrap().0, 2_500);
        assert_eq!(parse_dur("0").unwrap().0, 0);
        assert!(parse_dur("-1s").is_err());
        assert!(parse_dur("3 hours").unwrap_err().contains("ms"));
        // The bound is excluded, and the message says so.
        assert!(parse_dur("999999999s").is_ok());
        let e = parse_dur("1000000000s").unwrap_err();
        assert!(e.ends_with("cannot be negative and must be below 1e9 s"), "{e}");
    }
}
