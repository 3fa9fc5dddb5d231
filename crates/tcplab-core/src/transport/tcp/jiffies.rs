//! Linux's jiffy timers (`TcpConfig::timer_wheel`): when a timer the
//! kernel arms in jiffies goes off.
//!
//! The retransmission slot (RTO, tail-loss probe, RACK's reordering timer,
//! window probes) and the delayed-ACK timer are `timer_list`s: the kernel
//! converts the wait to whole jiffies (usecs_to_jiffies(), rounded up),
//! sets `expires = jiffies + when`, and the timer wheel (kernel/time/
//! timer.c since 4.8) files it in the bucket after `expires` at the
//! level's granularity (`calc_index()`: "the timer wheel has to guarantee
//! that a timer does not fire early"): one jiffy late for waits under 63
//! jiffies, up to 8 jiffies for waits under 504, 64 under 4032, and so
//! on. The timer runs at the tick that reaches its bucket. So at HZ 250 a
//! 40 ms delayed ACK goes 40-44 ms after it was armed, a 1 s RTO just over 1 s to
//! 1.032 s after, never early. The SACK-compression and pacing timers are
//! hrtimers and are not affected.
//!
//! Ticks fall at `k * tick - phase`, and the kernel's jiffies counter
//! reads `start` at the run's first tick: `phase` is the connection's
//! `TcpConfig::clock_phase`, `start` its `jiffies_start`, both drawn per
//! flow by the scenario (the kernel's clock has an arbitrary phase against
//! the run, and which multiple of 8, 64, ... jiffies comes next decides
//! when a long timer goes).

use crate::engine::Time;
use std::num::NonZeroU32;

/// LVL_CLK_SHIFT: each level of the wheel is 8 times coarser.
const LVL_CLK_SHIFT: u32 = 3;
/// LVL_SIZE - 1: the first level holds waits below 63 jiffies.
const LVL_SPAN: u64 = 63;
/// LVL_DEPTH at HZ above 100: waits beyond the last level are capped
/// there (beyond any TCP timer's 120 s at HZ 1000).
const LVL_DEPTH: u32 = 9;

/// The longest tick (`granularity`) the clock takes: HZ is at least 100
/// in any kernel; a second leaves room and fits the compact form.
pub const MAX_TICK: Time = crate::engine::time::SEC;

/// The wheel's buckets repeat every 2^24 jiffies (its last level's
/// granularity): the start counts are drawn below this.
pub const START_SPAN: u32 = 1 << 24;

/// The kernel's tick clock of one connection, in 12 bytes (it sits with
/// the sender's per-ACK state).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jiffies {
    /// 1 / HZ, in nanoseconds.
    tick: NonZeroU32,
    /// Tick boundaries at k * tick - phase, phase < tick.
    phase: u32,
    /// The jiffies counter at the first tick at or after time 0.
    start: u32,
}

impl Jiffies {
    /// A clock of `tick` (at most `MAX_TICK`) with ticks at k * tick -
    /// phase, reading `start` jiffies at the first.
    pub fn new(tick: Time, phase: Time, start: u32) -> Self {
        let tick = tick.clamp(1, MAX_TICK);
        Jiffies { tick: NonZeroU32::new(tick as u32).unwrap(), phase: (phase % tick) as u32, start }
    }

    /// The phase, below the tick.
    pub fn phase(&self) -> Time {
        self.phase as Time
    }

    /// The time from `from` to `to` as the kernel's clock counts it:
    /// whole jiffies between them (`tcp_jiffies32 - tp->lsndtime`).
    pub fn elapsed(&self, from: Time, to: Time) -> Time {
        let (tick, phase) = (self.tick.get() as Time, self.phase as Time);
        ((to + phase) / tick).saturating_sub((from + phase) / tick) * tick
    }

    /// usecs_to_jiffies() of a wait in nanoseconds: rounded up.
    #[inline]
    pub fn ticks(&self, wait: Time) -> u64 {
        wait.div_ceil(self.tick.get() as Time)
    }

    /// The time a timer armed at `now` for `wait` goes off: `wait` in
    /// whole jiffies, then the wheel's bucket (`calc_wheel_index()` with
    /// the base clock at the current jiffy).
    pub fn fires(&self, now: Time, wait: Time) -> Time {
        let (tick, phase, start) = (self.tick.get() as Time, self.phase as Time, self.start as Time);
        let jiffies = (now + phase) / tick + start;
        let when = self.ticks(wait);
        let expires = jiffies + when;
        // The level: LVL_START(n) = 63 << 3 (n - 1).
        let mut level = 0;
        while level + 1 < LVL_DEPTH && when >= LVL_SPAN << (LVL_CLK_SHIFT * level) {
            level += 1;
        }
        let shift = LVL_CLK_SHIFT * level;
        let bucket = ((expires >> shift) + 1) << shift;
        (bucket - start) * tick - phase
    }
}

/// When a timer armed at `now` for `wait` goes off: at the wait's end,
/// or on the kernel's timer wheel when the connection follows its clock.
#[inline(always)]
pub fn goes_off(clock: Option<Jiffies>, now: Time, wait: Time) -> Time {
    match clock {
        None => now + wait,
        Some(j) => j.fires(now, wait),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    const HZ250: Jiffies = Jiffies { tick: NonZeroU32::new(4_000_000).unwrap(), phase: 0, start: 0 };

    #[test]
    fn a_short_timer_goes_at_the_tick_after_its_expiry() {
        // Armed on a tick: 10 jiffies, then one more.
        assert_eq!(HZ250.fires(0, 40 * MS), 44 * MS);
        // Armed 3 ms into a jiffy: the same bucket, 41 ms later.
        assert_eq!(HZ250.fires(3 * MS, 40 * MS), 44 * MS);
        // usecs_to_jiffies() rounds the wait up first.
        assert_eq!(HZ250.fires(0, 40 * MS + 1), 48 * MS);
        // Never early, at most a jiffy beyond the rounded wait.
        for now in (0..8 * MS).step_by(250_000) {
            let at = HZ250.fires(now, 10 * MS);
            assert!(at > now + 12 * MS && at <= now + 16 * MS, "{now} -> {at}");
        }
    }

    #[test]
    fn longer_waits_land_on_coarser_buckets() {
        // 62 jiffies: level 0; 63: level 1, a multiple of 8 jiffies.
        assert_eq!(HZ250.fires(0, 62 * 4 * MS), 63 * 4 * MS);
        assert_eq!(HZ250.fires(0, 63 * 4 * MS), 64 * 4 * MS);
        assert_eq!(HZ250.fires(4 * MS, 250 * 4 * MS), 256 * 4 * MS);
        // A 1 s RTO armed at jiffy 5: expires at 255, bucket 256.
        assert_eq!(HZ250.fires(20 * MS, 1000 * MS), 1024 * MS);
        // 504 jiffies and more: level 2, multiples of 64 jiffies.
        assert_eq!(HZ250.fires(0, 504 * 4 * MS), 512 * 4 * MS);
        assert_eq!(HZ250.fires(0, 513 * 4 * MS), 576 * 4 * MS);
    }

    #[test]
    fn elapsed_time_counts_the_ticks_between() {
        // 3.9 ms to 8.1 ms crosses the ticks at 4 and 8: two jiffies.
        assert_eq!(HZ250.elapsed(3_900_000, 8_100_000), 8 * MS);
        assert_eq!(HZ250.elapsed(4 * MS, 7_900_000), 0);
        assert_eq!(Jiffies::new(4 * MS, MS, 7).elapsed(2_900_000, 3 * MS), 4 * MS);
    }

    #[test]
    fn the_phase_moves_the_ticks() {
        let j = Jiffies::new(4 * MS, MS, 0);
        // Ticks at 3, 7, 11 ... ms: at 2 ms the current jiffy ends at 3.
        assert_eq!(j.fires(2 * MS, 4 * MS), 7 * MS);
        assert_eq!(j.fires(3 * MS, 4 * MS), 11 * MS);
        assert_eq!(Jiffies::new(4 * MS, 9 * MS, 0).phase(), MS);
        assert_eq!(std::mem::size_of::<Option<Jiffies>>(), 12);
    }

    #[test]
    fn the_start_count_decides_the_coarse_buckets() {
        // A 300 ms wait, 75 jiffies: the second level, buckets 8 apart in
        // the counter's own numbers. Armed at time 0 with the counter at
        // 0 it goes at 80 jiffies; at 5, at 88 - 5 = 83 jiffies after.
        let at = |start| Jiffies::new(4 * MS, 0, start).fires(0, 300 * MS);
        assert_eq!(at(0), 80 * 4 * MS);
        assert_eq!(at(5), 83 * 4 * MS);
        // Over the starts, up to 8 jiffies (32 ms) apart; a short wait's
        // bucket does not care.
        let all: Vec<Time> = (0..8).map(at).collect();
        assert_eq!(all.iter().max().unwrap() - all.iter().min().unwrap(), 7 * 4 * MS);
        assert!((0..8).all(|k| Jiffies::new(4 * MS, 0, k).fires(0, 40 * MS) == 44 * MS));
    }
}
