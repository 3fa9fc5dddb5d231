//! Random number streams. Every independent source of randomness (the error
//! model of each link direction, each application's start jitter, later each
//! MAC's backoff) gets its own PCG stream whose seed is derived from the run
//! seed and a stable name of the component. Adding a component therefore never
//! shifts the numbers another component sees.

use rand_pcg::rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A seeded stream with the few draws the models need.
pub struct Rng {
    inner: Pcg64Mcg,
}

/// 64-bit FNV-1a: a fixed, documented hash, unlike std's hasher whose output
/// may change between Rust releases.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser: spreads nearby inputs over the whole 64-bit space.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream for component `name` in a run with seed `seed`.
pub fn stream_rng(seed: u64, name: &str) -> Rng {
    let a = mix(seed ^ fnv1a(name.as_bytes()));
    let b = mix(a ^ 0x5851_f42d_4c95_7f2d);
    let s = ((a as u128) << 64) | b as u128;
    Rng { inner: Pcg64Mcg::from_seed(s.to_le_bytes()) }
}

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_name_same_stream_different_name_different_stream() {
        let mut a = stream_rng(7, "link0.fwd.error");
        let mut b = stream_rng(7, "link0.fwd.error");
        let mut c = stream_rng(7, "link0.rev.error");
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn uniform_mean_is_half() {
        let mut r = stream_rng(1, "x");
        let n = 100_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((m - 0.5).abs() < 0.01, "{m}");
    }
}
