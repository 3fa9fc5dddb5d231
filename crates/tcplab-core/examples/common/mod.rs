//! What the measuring-stick examples share: `[SECONDS] [repeats]` from the
//! command line (1000 s and one run by default) and the best of the timed
//! runs.

use std::time::Instant;

/// Run `run(duration in ns)` the number of times asked; the fastest run's
/// wall time in seconds, and the last run's result.
pub fn best_of_runs<T>(run: impl Fn(u64) -> T) -> (f64, T) {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map(|s| s.parse().expect("SECONDS: a number")).unwrap_or(1000.0);
    let repeats: usize = args.next().map(|s| s.parse().expect("repeats: a number")).unwrap_or(1);
    let duration = (seconds * 1e9).round() as u64;
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let t0 = Instant::now();
        let out = run(duration);
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}
