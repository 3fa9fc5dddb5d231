//! CoDel (Nichols & Jacobson; RFC 8289) as Linux runs it (include/net/
//! codel.h and codel_impl.h), the controller of both the `codel` queue and
//! each flow of `fq-codel`.
//!
//! Linux's arithmetic is kept, not only its rules, because it decides
//! which packet is dropped: time in units of 1024 ns in a wrapping `u32`
//! (compared by the sign of the difference), the reciprocal square root of
//! the drop count as a 16-bit fixed-point number refined by one Newton
//! step per drop (so `interval / sqrt(count)` is approximate, exactly as
//! in the kernel), and the rule that a queue holding at most one MTU never
//! drops. What is not modelled: the `ce_threshold` marking (off by
//! default in Linux).

use super::fair::Backlog;
use crate::engine::Time;
use crate::packet::PktId;
use std::collections::VecDeque;

/// CoDel's clock: nanoseconds >> 10, wrapping (Linux's codel_time_t).
pub type CodelTime = u32;

/// Linux's CODEL_SHIFT.
const SHIFT: u32 = 10;
/// The reciprocal square root is kept in 16 bits (REC_INV_SQRT_BITS).
const REC_INV_SQRT_SHIFT: u32 = 32 - 16;

pub fn codel_time(t: Time) -> CodelTime {
    (t >> SHIFT) as u32
}

fn after(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

fn after_eq(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}

fn before(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// The controller's settings (Linux's codel_params).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    /// Acceptable standing delay (default 5 ms).
    pub target: Time,
    /// The window over which the delay must stay above target before a
    /// drop, and the base of the drop spacing (default 100 ms).
    pub interval: Time,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
    /// Bytes: with at most this much left waiting CoDel never drops
    /// (Linux: the device's MTU plus its link header, 1514 on Ethernet).
    pub mtu: u32,
}

impl CodelParams {
    fn target_c(&self) -> CodelTime {
        codel_time(self.target)
    }
    fn interval_c(&self) -> CodelTime {
        codel_time(self.interval)
    }
}

/// One controller's state (Linux's codel_vars; all zero at the start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelVars {
    /// Drops (or marks) since the dropping state was entered.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    pub dropping: bool,
    /// 1 / sqrt(count) in 16-bit fixed point.
    pub rec_inv_sqrt: u16,
    /// When the delay will have been above target for an interval; 0: not
    /// above (Linux's sentinel, kept).
    pub first_above_time: CodelTime,
    pub drop_next: CodelTime,
    /// The sojourn time of the last packet looked at.
    pub ldelay: CodelTime,
}

impl CodelVars {
    /// One Newton step towards 1 / sqrt(count) (codel_Newton_step): Q0.32
    /// arithmetic with Linux's wrap-around where count has jumped.
    fn newton_step(&mut self) {
        let invsqrt = (self.rec_inv_sqrt as u32 as u64) << REC_INV_SQRT_SHIFT;
        let invsqrt2 = (invsqrt * invsqrt) >> 32;
        let mut val = (3u64 << 32).wrapping_sub((self.count as u64).wrapping_mul(invsqrt2));
        val >>= 2;
        val = val.wrapping_mul(invsqrt) >> (32 - 2 + 1);
        self.rec_inv_sqrt = (val >> REC_INV_SQRT_SHIFT) as u16;
    }

    /// t + interval / sqrt(count) (codel_control_law with reciprocal_scale).
    fn control_law(&self, t: CodelTime, interval: CodelTime) -> CodelTime {
        let scale = ((self.rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT) as u64;
        t.wrapping_add(((interval as u64 * scale) >> 32) as u32)
    }

    /// Whether the packet just taken out (`head`: its enqueue time and
    /// size; None if there was none) may be dropped, with `backlog` bytes
    /// left waiting (codel_should_drop).
    fn should_drop(&mut self, p: &CodelParams, head: Option<&Waiting>, backlog: u64, now: CodelTime) -> bool {
        let Some(w) = head else {
            self.first_above_time = 0;
            return false;
        };
        self.ldelay = now.wrapping_sub(w.since);
        if before(self.ldelay, p.target_c()) || backlog <= p.mtu as u64 {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now.wrapping_add(p.interval_c());
            false
        } else {
            after(now, self.first_above_time)
        }
    }
}

/// A packet waiting in a CoDel-managed FIFO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub id: PktId,
    /// IP size in bytes (what the queue's byte counts add up).
    pub size: u32,
    /// ECN-capable (ECT or already CE): a CoDel signal marks it.
    pub ect: bool,
    /// Enqueue time on CoDel's clock.
    pub since: CodelTime,
}

/// The FIFO a controller takes its packets from: its `pop` also lowers
/// the byte count that `backlog` reports (for fq-codel the whole queue's,
/// not one flow's, as in Linux).
pub trait CodelFifo {
    fn pop(&mut self) -> Option<Waiting>;
    fn backlog(&self) -> u64;
}

/// A packet out of `codel_dequeue`: `mark` says it is to be set CE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dequeued {
    pub w: Waiting,
    pub mark: bool,
}

/// CoDel's dequeue (codel_dequeue): the next packet of `fifo` at `now`,
/// the packets the controller dropped on the way appended to `dropped`.
pub fn codel_dequeue(
    v: &mut CodelVars,
    p: &CodelParams,
    fifo: &mut impl CodelFifo,
    now: Time,
    dropped: &mut Vec<PktId>,
) -> Option<Dequeued> {
    let Some(mut w) = fifo.pop() else {
        v.dropping = false;
        return None;
    };
    let now = codel_time(now);
    let interval = p.interval_c();
    let drop = v.should_drop(p, Some(&w), fifo.backlog(), now);
    if v.dropping {
        if !drop {
            v.dropping = false;
        } else if after_eq(now, v.drop_next) {
            // Drops due now: a long queue may owe several at once.
            while v.dropping && after_eq(now, v.drop_next) {
                v.count = v.count.wrapping_add(1);
                v.newton_step();
                if p.ecn && w.ect {
                    v.drop_next = v.control_law(v.drop_next, interval);
                    return Some(Dequeued { w, mark: true });
                }
                dropped.push(w.id);
                let next = fifo.pop();
                if !v.should_drop(p, next.as_ref(), fifo.backlog(), now) {
                    v.dropping = false;
                } else {
                    v.drop_next = v.control_law(v.drop_next, interval);
                }
                match next {
                    Some(n) => w = n,
                    None => return None,
                }
            }
        }
        return Some(Dequeued { w, mark: false });
    }
    if drop {
        if p.ecn && w.ect {
            v.enter_dropping(now, interval);
            return Some(Dequeued { w, mark: true });
        }
        dropped.push(w.id);
        let next = fifo.pop();
        // Asked again for the next packet only for its side effect on
        // first_above_time, as Linux does.
        v.should_drop(p, next.as_ref(), fifo.backlog(), now);
        v.enter_dropping(now, interval);
        return next.map(|w| Dequeued { w, mark: false });
    }
    Some(Dequeued { w, mark: false })
}

impl CodelVars {
    /// The dropping state begins: if it was left recently, resume near the
    /// drop rate that controlled the queue then (count - lastcount),
    /// otherwise from one drop per interval.
    fn enter_dropping(&mut self, now: CodelTime, interval: CodelTime) {
        self.dropping = true;
        let delta = self.count.wrapping_sub(self.lastcount);
        if delta > 1 && before(now.wrapping_sub(self.drop_next), interval.wrapping_mul(16)) {
            self.count = delta;
            self.newton_step();
        } else {
            self.count = 1;
            self.rec_inv_sqrt = (u32::MAX >> REC_INV_SQRT_SHIFT) as u16;
        }
        self.lastcount = self.count;
        self.drop_next = self.control_law(now, interval);
    }
}

/// Linux's `codel` queue discipline (sch_codel): one FIFO under one
/// controller, tail drop at `limit` packets.
#[derive(Clone, Debug)]
pub struct Codel {
    pub params: CodelParams,
    pub limit: u32,
    fifo: Fifo,
    vars: CodelVars,
}

#[derive(Clone, Debug, Default)]
struct Fifo {
    q: VecDeque<Waiting>,
    held: Backlog,
}

impl CodelFifo for Fifo {
    fn pop(&mut self) -> Option<Waiting> {
        let w = self.q.pop_front()?;
        self.held.remove(w.size);
        Some(w)
    }
    fn backlog(&self) -> u64 {
        self.held.bytes
    }
}

impl Codel {
    pub fn new(params: CodelParams, limit: u32) -> Self {
        Codel { params, limit, fifo: Fifo::default(), vars: CodelVars::default() }
    }

    /// Offer a packet: false if the queue is full (the arrival is dropped).
    pub fn enqueue(&mut self, now: Time, id: PktId, size: u32, ect: bool) -> bool {
        if self.fifo.q.len() >= self.limit as usize {
            return false;
        }
        self.fifo.q.push_back(Waiting { id, size, ect, since: codel_time(now) });
        self.fifo.held.add(size);
        true
    }

    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<PktId>) -> Option<Dequeued> {
        codel_dequeue(&mut self.vars, &self.params, &mut self.fifo, now, dropped)
    }

    pub fn backlog(&self) -> Backlog {
        self.fifo.held
    }

    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    fn params(ecn: bool) -> CodelParams {
        CodelParams { target: 5 * MS, interval: 100 * MS, ecn, mtu: 1514 }
    }

    /// Linux's steps, one per drop from 1.0 at count 1: the recurrence
    /// y <- y/2 (3 - n y^2) in Q0.16, which is 0.5 (not 0.707) at count 2
    /// and within 1 % of 1/sqrt(n) from count 6.
    fn newton_sequence(upto: u32) -> Vec<(u32, f64, f64)> {
        let mut v = CodelVars { count: 1, rec_inv_sqrt: u16::MAX, ..Default::default() };
        let mut y = 1.0f64;
        (2..=upto)
            .map(|n| {
                v.count = n;
                v.newton_step();
                y = y / 2.0 * (3.0 - n as f64 * y * y);
                (n, v.rec_inv_sqrt as f64 / 65536.0, y)
            })
            .collect()
    }

    #[test]
    fn newton_steps_follow_the_real_recurrence() {
        for (n, got, y) in newton_sequence(64) {
            assert!((got - y).abs() < 2e-4, "count {n}: {got} vs {y}");
            if n >= 6 {
                let exact = 1.0 / (n as f64).sqrt();
                assert!((got - exact).abs() < 0.011 * exact, "count {n}: {got} vs {exact}");
            }
        }
        assert!((newton_sequence(2)[0].1 - 0.5).abs() < 1e-4);
    }

    #[test]
    fn control_law_is_interval_over_sqrt_count() {
        let mut v = CodelVars { count: 1, rec_inv_sqrt: u16::MAX, ..Default::default() };
        let i = codel_time(100 * MS);
        // count 1: one interval (less the fixed point's last unit).
        assert!((v.control_law(0, i) as i64 - i as i64).abs() <= 2);
        v.count = 4;
        for _ in 0..4 {
            v.newton_step();
        }
        let half = v.control_law(0, i) as f64 / i as f64;
        assert!((half - 0.5).abs() < 0.005, "{half}");
    }

    #[test]
    fn time_comparisons_survive_the_wrap() {
        assert!(after(5, u32::MAX - 5));
        assert!(before(u32::MAX - 5, 5));
        assert!(after_eq(7, 7));
    }

    /// Packets of 1000 bytes enqueued at `at` (ns), ids from 0.
    fn filled(ecn: bool, n: u32, at: Time) -> Codel {
        let mut c = Codel::new(params(ecn), 1000);
        for i in 0..n {
            assert!(c.enqueue(at, PktId(i), 1000, ecn));
        }
        c
    }

    #[test]
    fn no_drop_before_an_interval_above_target() {
        let mut c = filled(false, 50, 0);
        let mut dropped = Vec::new();
        // 10 ms of sojourn: above target, but the interval starts now.
        let out = c.dequeue(10 * MS, &mut dropped).unwrap();
        assert_eq!(out.w.id, PktId(0));
        assert!(dropped.is_empty());
        assert_eq!(c.vars().first_above_time, codel_time(10 * MS) + codel_time(100 * MS));
        // Still within the interval: no drop.
        c.dequeue(100 * MS, &mut dropped).unwrap();
        assert!(dropped.is_empty() && !c.vars().dropping);
        // Past it: the head is dropped and the next packet leaves; the
        // next drop is an interval later.
        let out = c.dequeue(111 * MS, &mut dropped).unwrap();
        assert_eq!(dropped, vec![PktId(2)]);
        assert_eq!(out.w.id, PktId(3));
        let v = *c.vars();
        assert!(v.dropping && v.count == 1);
        assert_eq!(v.drop_next, v.control_law(codel_time(111 * MS), codel_time(100 * MS)));
    }

    #[test]
    fn drops_come_faster_as_count_grows() {
        let mut c = filled(false, 900, 0);
        let mut dropped = Vec::new();
        let mut drop_times = Vec::new();
        let mut t = 10 * MS;
        // One packet a millisecond for 1.5 s with a standing queue.
        while t < 1500 * MS {
            let before = dropped.len();
            c.dequeue(t, &mut dropped);
            if dropped.len() > before {
                drop_times.push(t);
            }
            assert!(c.enqueue(t, PktId(10_000 + (t / MS) as u32), 1000, false));
            t += MS;
        }
        let gaps: Vec<Time> = drop_times.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() > 5, "{drop_times:?}");
        // interval x (Linux's 1/sqrt(count)): 100, 50, 56.3, 48.8, 44.2 ms
        // ... (interval / sqrt(count) once the steps have converged).
        let ys: Vec<f64> = std::iter::once(1.0).chain(newton_sequence(12).iter().map(|x| x.2)).collect();
        for (k, g) in gaps.iter().take(10).enumerate() {
            let expect = 100.0 * ys[k];
            assert!((*g as f64 / MS as f64 - expect).abs() <= 1.1, "gap {k}: {g} vs {expect} ms");
        }
    }

    #[test]
    fn ecn_capable_packets_are_marked_not_dropped() {
        let mut c = filled(true, 50, 0);
        let mut dropped = Vec::new();
        c.dequeue(10 * MS, &mut dropped);
        let out = c.dequeue(111 * MS, &mut dropped).unwrap();
        assert!(dropped.is_empty());
        assert!(out.mark, "the packet that would have been dropped leaves marked");
        assert_eq!(out.w.id, PktId(1));
        assert!(c.vars().dropping);
    }

    #[test]
    fn a_queue_of_one_mtu_is_never_dropped_from() {
        let mut c = filled(false, 2, 0);
        let mut dropped = Vec::new();
        c.dequeue(50 * MS, &mut dropped);
        // One 1000-byte packet left (<= 1514 bytes): no drop however old.
        assert!(c.dequeue(500 * MS, &mut dropped).is_some());
        assert!(dropped.is_empty());
        assert_eq!(c.vars().first_above_time, 0);
    }

    #[test]
    fn leaving_and_reentering_soon_resumes_the_drop_rate() {
        let mut v = CodelVars { count: 9, lastcount: 1, drop_next: 1000, ..Default::default() };
        v.enter_dropping(1000 + 50, 97_656);
        assert_eq!(v.count, 8, "count - lastcount");
        let mut w = CodelVars { count: 9, lastcount: 1, drop_next: 1000, ..Default::default() };
        w.enter_dropping(1000 + 16 * 97_656 + 1, 97_656);
        assert_eq!(w.count, 1, "too long since the last drop");
    }

    #[test]
    fn the_tail_is_dropped_at_the_limit() {
        let mut c = Codel::new(params(false), 2);
        assert!(c.enqueue(0, PktId(0), 100, false));
        assert!(c.enqueue(0, PktId(1), 100, false));
        assert!(!c.enqueue(0, PktId(2), 100, false));
        assert_eq!(c.backlog(), Backlog { packets: 2, bytes: 200 });
    }
}
