//! What the measuring-stick examples share: `[SECONDS] [repeats]` from the
//! command line (1000 s and one run by default) and the best of the timed
//! runs.

mod cpu;

use std::time::Instant;

/// The fastest of the timed runs: its wall and its CPU time in seconds
/// (each the least over the runs).
pub struct Best {
    pub wall_s: f64,
    pub cpu_s: f64,
}

/// Run `run(duration in ns)` the number of times asked; the fastest run's
/// wall and CPU time, and the last run's result.
pub fn best_of_runs<T>(run: impl Fn(u64) -> T) -> (Best, T) {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map(|s| s.parse().expect("SECONDS: a number")).unwrap_or(1000.0);
    let repeats: usize = args.next().map(|s| s.parse().expect("repeats: a number")).unwrap_or(1);
    let duration = (seconds * 1e9).round() as u64;
    let mut best = Best { wall_s: f64::INFINITY, cpu_s: f64::INFINITY };
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let (t0, c0) = (Instant::now(), cpu::cpu_seconds());
        let out = run(duration);
        best.cpu_s = best.cpu_s.min(cpu::cpu_seconds() - c0);
        best.wall_s = best.wall_s.min(t0.elapsed().as_secs_f64());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}
