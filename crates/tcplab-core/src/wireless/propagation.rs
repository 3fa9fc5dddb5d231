//! Radio propagation: the mean power a receiver gets at distance d, and the
//! distance at which that power falls to a threshold (the receive and
//! carrier-sense ranges). Formulas as in Rappaport, "Wireless
//! Communications", which ns-2's models follow.

use super::params::PhyParams;
use crate::engine::Rng;
use std::f64::consts::PI;

pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Propagation {
    /// Friis free space: Pr = Pt Gt Gr lambda^2 / ((4 pi d)^2 L).
    FreeSpace,
    /// Two-ray ground reflection: Friis up to the crossover distance
    /// dc = 4 pi ht hr / lambda, Pt Gt Gr ht^2 hr^2 / (d^4 L) beyond (where
    /// the direct and the reflected ray interfere destructively on average).
    TwoRayGround,
    /// Log-distance path loss with log-normal shadowing: Friis at the
    /// reference distance d0, falling with exponent beta, plus a Gaussian
    /// term of sigma dB drawn per frame and receiver.
    Shadowing { path_loss_exponent: f64, sigma_db: f64, reference_distance: f64 },
}

impl Propagation {
    fn lambda(phy: &PhyParams) -> f64 {
        SPEED_OF_LIGHT / phy.frequency_hz
    }

    fn friis(phy: &PhyParams, d: f64) -> f64 {
        let l = Self::lambda(phy);
        let g = phy.antenna_gain * phy.antenna_gain;
        phy.tx_power_w * g * l * l / ((4.0 * PI * d).powi(2) * phy.system_loss)
    }

    /// The two-ray crossover distance.
    pub fn crossover(phy: &PhyParams) -> f64 {
        4.0 * PI * phy.antenna_height_m * phy.antenna_height_m / Self::lambda(phy)
    }

    /// Mean received power (W) at distance `d` metres. A receiver at the
    /// transmitter's very position (d = 0) gets the transmit power (Friis
    /// and two-ray ground), or the reference distance's power (shadowing).
    pub fn mean_power(&self, phy: &PhyParams, d: f64) -> f64 {
        match *self {
            Propagation::FreeSpace | Propagation::TwoRayGround if d <= 0.0 => phy.tx_power_w,
            Propagation::FreeSpace => Self::friis(phy, d).min(phy.tx_power_w),
            Propagation::TwoRayGround => {
                if d < Self::crossover(phy) {
                    Self::friis(phy, d).min(phy.tx_power_w)
                } else {
                    let h2 = phy.antenna_height_m * phy.antenna_height_m;
                    let g = phy.antenna_gain * phy.antenna_gain;
                    phy.tx_power_w * g * h2 * h2 / (d.powi(4) * phy.system_loss)
                }
            }
            Propagation::Shadowing { path_loss_exponent, reference_distance, .. } => {
                // The log-distance law holds from d0 on; closer, the power
                // is d0's (ns-2.35's Shadowing::Pr, ns-3's log-distance
                // model): extrapolated, a beta above 2 would climb above
                // free space.
                let p0 = Self::friis(phy, reference_distance);
                (p0 * (reference_distance / d.max(reference_distance)).powf(path_loss_exponent)).min(phy.tx_power_w)
            }
        }
    }

    /// The power of one frame at one receiver: the mean, with a shadowing
    /// draw from `rng` for the shadowing model.
    #[inline]
    pub fn sample_power(&self, mean: f64, rng: &mut Rng) -> f64 {
        match *self {
            Propagation::Shadowing { sigma_db, .. } if sigma_db > 0.0 => {
                mean * 10f64.powf(sigma_db * gaussian(rng) / 10.0)
            }
            _ => mean,
        }
    }

    /// Distance at which the mean power falls to `threshold` W.
    pub fn range(&self, phy: &PhyParams, threshold: f64) -> f64 {
        if threshold <= 0.0 {
            return f64::INFINITY;
        }
        let g = phy.antenna_gain * phy.antenna_gain;
        let l = Self::lambda(phy);
        let friis_d = (phy.tx_power_w * g * l * l / (threshold * phy.system_loss)).sqrt() / (4.0 * PI);
        match *self {
            Propagation::FreeSpace => friis_d,
            Propagation::TwoRayGround => {
                let dc = Self::crossover(phy);
                if friis_d < dc {
                    friis_d
                } else {
                    let h2 = phy.antenna_height_m * phy.antenna_height_m;
                    (phy.tx_power_w * g * h2 * h2 / (threshold * phy.system_loss)).powf(0.25)
                }
            }
            Propagation::Shadowing { path_loss_exponent, reference_distance, .. } => {
                let p0 = Self::friis(phy, reference_distance);
                if threshold > p0 {
                    // Not even at d0, and no closer (`mean_power`).
                    return 0.0;
                }
                reference_distance * (p0 / threshold).powf(1.0 / path_loss_exponent)
            }
        }
    }

    /// The distance beyond which no frame is ever sensed: the carrier-sense
    /// range, widened for shadowing to where a draw 5 sigma above the mean
    /// still reaches the threshold (a chance below 3e-7 per frame).
    pub fn reach(&self, phy: &PhyParams) -> f64 {
        match *self {
            Propagation::Shadowing { sigma_db, .. } => {
                self.range(phy, phy.cs_threshold_w * 10f64.powf(-5.0 * sigma_db / 10.0))
            }
            _ => self.range(phy, phy.cs_threshold_w),
        }
    }

    /// Propagation delay over `d` metres, in nanoseconds.
    pub fn delay_ns(d: f64) -> u64 {
        (d / SPEED_OF_LIGHT * 1e9).round() as u64
    }
}

/// A standard normal draw (Box-Muller, one of the pair).
fn gaussian(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.uniform(); // (0, 1]
    let u2 = rng.uniform();
    (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_wavelan_ranges() {
        let phy = PhyParams::default();
        let p = Propagation::TwoRayGround;
        assert!((Propagation::crossover(&phy) - 86.20).abs() < 0.01, "{}", Propagation::crossover(&phy));
        assert!((p.range(&phy, phy.rx_threshold_w) - 250.0).abs() < 0.1);
        assert!((p.range(&phy, phy.cs_threshold_w) - 550.0).abs() < 0.1);
        assert!(p.mean_power(&phy, 549.0) >= phy.cs_threshold_w);
        assert!(p.mean_power(&phy, 551.0) < phy.cs_threshold_w);
        assert!(p.mean_power(&phy, 250.0) >= phy.rx_threshold_w);
        // Friis and the fourth-power law meet at the crossover distance
        let dc = Propagation::crossover(&phy);
        let (a, b) = (p.mean_power(&phy, dc * 0.999), p.mean_power(&phy, dc * 1.001));
        assert!((a / b - 1.0).abs() < 0.01, "{a} {b}");
    }

    #[test]
    fn free_space_and_shadowing_means() {
        let phy = PhyParams::default();
        let fs = Propagation::FreeSpace;
        let d = fs.range(&phy, phy.rx_threshold_w);
        assert!((fs.mean_power(&phy, d) / phy.rx_threshold_w - 1.0).abs() < 1e-9);
        let sh = Propagation::Shadowing { path_loss_exponent: 2.0, sigma_db: 4.0, reference_distance: 1.0 };
        assert!((sh.mean_power(&phy, 100.0) / fs.mean_power(&phy, 100.0) - 1.0).abs() < 1e-9);
        let mut rng = crate::engine::stream_rng(1, "t");
        let n = 20_000;
        let mean_db: f64 = (0..n).map(|_| 10.0 * (sh.sample_power(1.0, &mut rng)).log10()).sum::<f64>() / n as f64;
        assert!(mean_db.abs() < 0.1, "{mean_db}");
    }

    /// The log-distance mean computed here from its formula: Friis at d0
    /// (Pt Gt Gr lambda^2 / ((4 pi d0)^2 L)), then (d0 / d)^beta.
    fn log_distance_mean(phy: &PhyParams, beta: f64, d0: f64, d: f64) -> f64 {
        let lambda = SPEED_OF_LIGHT / phy.frequency_hz;
        let p0 = phy.tx_power_w * phy.antenna_gain * phy.antenna_gain * lambda * lambda
            / ((4.0 * PI * d0).powi(2) * phy.system_loss);
        p0 * (d0 / d).powf(beta)
    }

    /// Shadowing: 10 log10 of a frame's sampled power is normal around the
    /// log-distance mean with standard deviation sigma_db. 20 000 draws per
    /// case: the sample mean within 4 standard errors (sigma / 141) of the
    /// mean, the sample deviation within 3 % of sigma, and the normal's
    /// shape (15.87 % of the draws above mean + sigma, 95.45 % within two
    /// sigmas, each within about 4 standard errors): a uniform or a
    /// one-sided draw with the right mean would fail.
    #[test]
    fn shadowing_draws_are_normal_in_db_around_the_log_distance_mean() {
        let phy = PhyParams::default();
        for (beta, sigma, d0, d) in [(2.0, 4.0, 1.0, 100.0), (2.7, 6.0, 1.0, 300.0), (3.5, 2.0, 10.0, 40.0)] {
            let sh = Propagation::Shadowing { path_loss_exponent: beta, sigma_db: sigma, reference_distance: d0 };
            let mean_w = log_distance_mean(&phy, beta, d0, d);
            let case = format!("beta {beta}, sigma {sigma} dB, d0 {d0} m, d {d} m");
            assert!((sh.mean_power(&phy, d) / mean_w - 1.0).abs() < 1e-12, "{case}");
            let mean_db = 10.0 * mean_w.log10();
            let mut rng = crate::engine::stream_rng(11 + d as u64, "node3.wifi.shadowing");
            let n = 20_000;
            let x: Vec<f64> =
                (0..n).map(|_| 10.0 * sh.sample_power(sh.mean_power(&phy, d), &mut rng).log10()).collect();
            let m = x.iter().sum::<f64>() / n as f64;
            let sd = (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
            let share = |f: &dyn Fn(f64) -> bool| x.iter().filter(|&&v| f(v)).count() as f64 / n as f64;
            let above = share(&|v| v > mean_db + sigma);
            let within2 = share(&|v| (v - mean_db).abs() < 2.0 * sigma);
            println!("{case}: mean {m:.3} dB (log-distance {mean_db:.3}), sd {sd:.3}, above +1 sd {above:.4}, within 2 sd {within2:.4}");
            assert!((m - mean_db).abs() < 4.0 * sigma / (n as f64).sqrt(), "{case}: mean {m} vs {mean_db}");
            assert!((sd / sigma - 1.0).abs() < 0.03, "{case}: sd {sd}");
            assert!((above - 0.1587).abs() < 0.01, "{case}: {above}");
            assert!((within2 - 0.9545).abs() < 0.006, "{case}: {within2}");
        }
    }

    /// Closer than the reference distance the log-distance mean stays at
    /// its value there, Friis at d0: the model is defined from d0 on
    /// (ns-2.35's Shadowing::Pr takes no path loss for dist <= dist0_, as
    /// ns-3's LogDistancePropagationLossModel), not extrapolated with the
    /// exponent, which for beta > 2 climbs above even free space. d = 0
    /// too. The range of a threshold above that mean is 0; below it, the
    /// log-distance inverse.
    #[test]
    fn shadowing_holds_the_reference_power_closer_than_d0() {
        let phy = PhyParams::default();
        let (beta, d0) = (3.0, 100.0);
        let sh = Propagation::Shadowing { path_loss_exponent: beta, sigma_db: 4.0, reference_distance: d0 };
        let p0 = log_distance_mean(&phy, beta, d0, d0);
        for d in [0.0, 1e-3, 1.0, 20.0, 99.9, 100.0] {
            assert!((sh.mean_power(&phy, d) / p0 - 1.0).abs() < 1e-12, "d {d}: {} vs {p0}", sh.mean_power(&phy, d));
        }
        assert!((sh.mean_power(&phy, 200.0) / log_distance_mean(&phy, beta, d0, 200.0) - 1.0).abs() < 1e-12);
        assert_eq!(sh.range(&phy, p0 * 1.01), 0.0);
        assert!((sh.range(&phy, p0 / 8.0) - 200.0).abs() < 1e-9, "{}", sh.range(&phy, p0 / 8.0));
    }

    /// The draws come from the stream they are given: the same seed and
    /// name give the same powers, another seed or another station's stream
    /// other ones (none of 1000 equal). Without variance, and for the
    /// other models, a frame gets the mean, whatever the stream.
    #[test]
    fn shadowing_draws_follow_their_stream() {
        let sh = Propagation::Shadowing { path_loss_exponent: 2.0, sigma_db: 4.0, reference_distance: 1.0 };
        let draws = |p: Propagation, seed: u64, name: &str| -> Vec<f64> {
            let mut rng = crate::engine::stream_rng(seed, name);
            (0..1000).map(|_| p.sample_power(1e-9, &mut rng)).collect()
        };
        let a = draws(sh, 1, "node0.wifi.shadowing");
        assert_eq!(a, draws(sh, 1, "node0.wifi.shadowing"));
        for other in [draws(sh, 2, "node0.wifi.shadowing"), draws(sh, 1, "node1.wifi.shadowing")] {
            assert!(a.iter().zip(&other).all(|(x, y)| x != y));
        }
        assert!(a.windows(2).all(|w| w[0] != w[1]), "a new draw per frame");
        let flat = Propagation::Shadowing { path_loss_exponent: 2.0, sigma_db: 0.0, reference_distance: 1.0 };
        for p in [flat, Propagation::FreeSpace, Propagation::TwoRayGround] {
            assert!(draws(p, 1, "node0.wifi.shadowing").iter().all(|&x| x == 1e-9), "{p:?}");
        }
    }
}
