//! ns-2.35's default random number generator, so that a model can draw the
//! numbers ns-2 drew and a run can be compared with ns-2's packet for
//! packet (RED's early drops: `RedParams::ns2_generator`). Not a better
//! generator than the PCG streams of `rng`, and not used unless a scenario
//! asks for it.
//!
//! ns-2's `Random::uniform()` draws from one global MRG32k3a stream
//! (L'Ecuyer, "Good parameters and implementations for combined multiple
//! recursive random number generators", Operations Research 47(1), 1999):
//! two order-3 recursions modulo m1 = 2^32 - 209 and m2 = 2^32 - 22853,
//! combined by their difference. Its state starts with all six components
//! at 1 (the seed ns-2.35 gives its default generator). Every object that
//! draws from it takes numbers from the same stream in the order it asks:
//! each TCP agent two (its tick phase at creation and at the run's reset),
//! RED one per early-drop test.

const M1: i64 = 4_294_967_087;
const M2: i64 = 4_294_944_443;
const A12: i64 = 1_403_580;
const A13N: i64 = 810_728;
const A21: i64 = 527_612;
const A23N: i64 = 1_370_589;
/// 1 / (m1 + 1): the difference of the two components, scaled into (0, 1).
const NORM: f64 = 2.328_306_549_295_728e-10;

/// ns-2's default generator: `uniform()` gives the numbers ns-2.35's
/// `Random::uniform()` gives, in the same order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ns2Rng {
    s: [i64; 6],
}

impl Ns2Rng {
    /// The generator as an ns-2.35 run starts it.
    pub fn ns2_default() -> Self {
        Ns2Rng { s: [1; 6] }
    }

    /// The same generator after `n` draws (those other objects took first).
    pub fn skipping(n: u64) -> Self {
        let mut g = Self::ns2_default();
        for _ in 0..n {
            g.uniform();
        }
        g
    }

    /// The next number, in (0, 1). The recursions are computed exactly in
    /// integers (every product stays below 2^53, so this is also what the
    /// reference's floating-point arithmetic gives).
    pub fn uniform(&mut self) -> f64 {
        let s = &mut self.s;
        let p1 = (A12 * s[1] - A13N * s[0]).rem_euclid(M1);
        s[0] = s[1];
        s[1] = s[2];
        s[2] = p1;
        let p2 = (A21 * s[5] - A23N * s[3]).rem_euclid(M2);
        s[3] = s[4];
        s[4] = s[5];
        s[5] = p2;
        let d = if p1 > p2 { p1 - p2 } else { p1 - p2 + M1 };
        d as f64 * NORM
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2.35 gives a lone TCP agent the tick phase boot_time_ =
    /// tcpTick_ x its second draw: 5.558807 ms with tcpTick_ 0.01
    /// (docs/validation.md, "ns-2.35's own test suites"; the same phase
    /// reproduces its recorded test outputs there).
    #[test]
    fn the_second_draw_is_ns2s_boot_time() {
        let mut g = Ns2Rng::ns2_default();
        g.uniform();
        let phase = 0.01 * g.uniform();
        assert!((phase - 0.005_558_807_159_827_996).abs() < 1e-15, "{phase}");
        assert_eq!(Ns2Rng::skipping(2), g);
    }

    /// The two components stay in range and the output in (0, 1).
    #[test]
    fn draws_stay_in_the_open_interval() {
        let mut g = Ns2Rng::ns2_default();
        for _ in 0..100_000 {
            let u = g.uniform();
            assert!(u > 0.0 && u < 1.0);
        }
        assert!(g.s[..3].iter().all(|&x| (0..M1).contains(&x)));
        assert!(g.s[3..].iter().all(|&x| (0..M2).contains(&x)));
    }
}
