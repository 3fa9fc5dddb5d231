//! The process's CPU time, so that the benchmarks can set tcplab's run
//! against ns-2's CPU time on the same clock (wall time on a shared
//! machine also counts the time other processes had the core).

/// CPU time this process has used so far, user and system, in seconds
/// (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec it is given, which
    // lives for the whole call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
