//! The event queue, ordered by (time, insertion number): simultaneous events
//! come out in the order they were scheduled, so runs are reproducible.
//!
//! A 4-ary min-heap of 16-byte keys: (time, insertion number << 24 | slot).
//! The event itself waits in a slab at `slot`, so sifting moves only keys;
//! a 4-ary heap has half the levels of a binary one and its children share a
//! cache line. Measured on the dumbbell benchmark it beat both std's
//! BinaryHeap with the events inline and a radix heap.
//!
//! FIFO lines: events that one source schedules in non-decreasing time
//! order (the arrivals of a fixed-delay link: packets leave a link in the
//! order they entered it) wait in a per-line queue with only the line's head
//! in the heap. With many flows most pending events are packets in flight,
//! so the heap stays as small as the number of busy links, and popping a
//! head replaces it with the line's next event in one sift instead of a pop
//! and a push. Each event keeps the insertion number it got when scheduled,
//! so simultaneous events come out exactly as they would without lines.

use super::time::Time;
use std::collections::VecDeque;

const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;
/// Slots with this bit set name a FIFO line, not a slab entry.
const LINE_FLAG: u64 = 1 << (SLOT_BITS - 1);

/// time << 64 | insertion number << 24 | slab slot: one integer compare
/// orders by time, then insertion.
type Key = u128;

pub struct EventQueue<E> {
    heap: Vec<Key>,
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    /// FIFO lines: (time, insertion number, event), head first.
    lines: Vec<VecDeque<(Time, u64, E)>>,
    /// Events waiting in lines behind their heads (not in the heap).
    behind_heads: usize,
    seq: u64,
    now: Time,
    processed: u64,
    /// Set when an event could not be stored (too many pending at once, or
    /// insertion numbers exhausted); the run loop turns it into an error.
    overflow: bool,
    /// Pending events allowed at once (`CAPACITY` but in tests).
    limit: usize,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Events are small `Copy` values (packets travel by id).
impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            slab: Vec::with_capacity(1024),
            free: Vec::new(),
            lines: Vec::new(),
            behind_heads: 0,
            seq: 0,
            now: 0,
            processed: 0,
            overflow: false,
            limit: Self::CAPACITY,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.behind_heads
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Most events that can be pending at once in the slab (and most lines).
    pub const CAPACITY: usize = (LINE_FLAG - 1) as usize;

    /// True once an event had to be refused (see `schedule`); sticky.
    pub fn overflowed(&self) -> bool {
        self.overflow
    }

    /// Schedule `ev` at absolute time `at`. Scheduling in the past is a bug in
    /// the caller and panics in debug builds; release builds clamp to now.
    /// With `CAPACITY` events pending (or 2^40 scheduled in all) the event is
    /// dropped and `overflowed()` turns true: the run is no longer valid and
    /// its loop stops with an error instead of the process aborting.
    pub fn schedule(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        if self.seq >> (64 - SLOT_BITS) != 0 {
            self.overflow = true;
            return;
        }
        let at = at.max(self.now);
        let slot = match self.free.pop() {
            Some(s) => {
                self.slab[s as usize] = Some(ev);
                s as u64
            }
            None => {
                if self.slab.len() >= self.limit {
                    self.overflow = true;
                    return;
                }
                self.slab.push(Some(ev));
                self.slab.len() as u64 - 1
            }
        };
        let key = Self::key(at, self.seq, slot);
        self.seq += 1;
        self.heap.push(key);
        self.sift_up(self.heap.len() - 1);
    }

    #[inline]
    fn key(at: Time, seq: u64, slot: u64) -> Key {
        ((at as u128) << 64) | ((seq << SLOT_BITS) | slot) as u128
    }

    /// Schedule `ev` at `at` on FIFO line `line`: every event of a line must
    /// be scheduled no earlier than the line's previous one (debug builds
    /// check it). Overflow as in `schedule`.
    pub fn schedule_fifo(&mut self, line: u32, at: Time, ev: E) {
        if self.seq >> (64 - SLOT_BITS) != 0 {
            self.overflow = true;
            return;
        }
        let seq = self.seq;
        self.seq += 1;
        self.push_line(line, at, seq, ev);
    }

    /// Take `n` consecutive insertion numbers now, for events scheduled
    /// with `schedule_fifo_at` (the first is returned). Overflow as in
    /// `schedule`: the numbers are then never used.
    pub fn reserve(&mut self, n: u64) -> u64 {
        let first = self.seq;
        if (self.seq + n) >> (64 - SLOT_BITS) != 0 {
            self.overflow = true;
        } else {
            self.seq += n;
        }
        first
    }

    /// Schedule `ev` at `at` on FIFO line `line` with an insertion number
    /// taken earlier with `reserve`: it comes out exactly where it would
    /// have, had it been scheduled with `schedule` when the number was
    /// taken. Within a line, (time, number) must not decrease.
    pub fn schedule_fifo_at(&mut self, line: u32, at: Time, seq: u64, ev: E) {
        if self.overflow {
            return;
        }
        self.push_line(line, at, seq, ev);
    }

    fn push_line(&mut self, line: u32, at: Time, seq: u64, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        if line as usize >= Self::CAPACITY {
            self.overflow = true;
            return;
        }
        let at = at.max(self.now);
        let l = line as usize;
        if l >= self.lines.len() {
            self.lines.resize_with(l + 1, VecDeque::new);
        }
        let q = &mut self.lines[l];
        debug_assert!(q.back().is_none_or(|b| (b.0, b.1) < (at, seq)), "FIFO line {line} scheduled out of order");
        q.push_back((at, seq, ev));
        if q.len() == 1 {
            self.heap.push(Self::key(at, seq, LINE_FLAG | line as u64));
            self.sift_up(self.heap.len() - 1);
        } else {
            self.behind_heads += 1;
        }
    }

    pub fn schedule_in(&mut self, delay: Time, ev: E) {
        self.schedule(self.now + delay, ev)
    }

    fn sift_up(&mut self, mut i: usize) {
        let k = self.heap[i];
        while i > 0 {
            let p = (i - 1) / 4;
            if self.heap[p] <= k {
                break;
            }
            self.heap[i] = self.heap[p];
            i = p;
        }
        self.heap[i] = k;
    }

    fn sift_down(&mut self, mut i: usize) {
        // Children are read as one sub-slice (one bounds check per level
        // instead of one per child); a full set of four, the common case,
        // is compared pairwise without a loop.
        let heap = &mut self.heap[..];
        let n = heap.len();
        let k = heap[i];
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let (m, mk) = if let Some(&[a, b, x, y]) = heap.get(c..c + 4) {
                let (ab, kab) = if b < a { (1, b) } else { (0, a) };
                let (xy, kxy) = if y < x { (3, y) } else { (2, x) };
                if kxy < kab {
                    (xy, kxy)
                } else {
                    (ab, kab)
                }
            } else {
                let kids = &heap[c..n];
                let mut best = (0, kids[0]);
                for (j, &x) in kids.iter().enumerate().skip(1) {
                    if x < best.1 {
                        best = (j, x);
                    }
                }
                best
            };
            if mk >= k {
                break;
            }
            heap[i] = mk;
            i = c + m;
        }
        heap[i] = k;
    }

    /// Pop the next event if it is due at or before `until`; advances the clock.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        let top = *self.heap.first()?;
        let at = (top >> 64) as Time;
        if at > until {
            return None;
        }
        let slot = top as u64 & SLOT_MASK;
        let ev = if slot & LINE_FLAG != 0 {
            let q = &mut self.lines[(slot & !LINE_FLAG) as usize];
            let (_, _, ev) = q.pop_front().expect("FIFO line empty");
            match q.front() {
                // Fused pop and push: the line's next event takes the root.
                Some(&(t, seq, _)) => {
                    self.behind_heads -= 1;
                    self.heap[0] = Self::key(t, seq, slot);
                    self.sift_down(0);
                }
                None => self.remove_root(),
            }
            ev
        } else {
            self.remove_root();
            let ev = self.slab[slot as usize].take().expect("event slot empty");
            self.free.push(slot as u32);
            ev
        };
        self.now = at;
        self.processed += 1;
        Some((at, ev))
    }

    fn remove_root(&mut self) {
        let last = self.heap.pop().unwrap();
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.sift_down(0);
        }
    }

    /// Move the clock forward without an event (end of run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream_rng;

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), 5);
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(10, 1);
        assert!(q.pop_until(9).is_none());
        assert_eq!(q.pop_until(10), Some((10, 1)));
        assert!(q.pop_until(100).is_none());
    }

    #[test]
    fn overflow_is_reported_not_a_panic() {
        let mut q = EventQueue::new();
        q.limit = 1000;
        for i in 0..1000 {
            q.schedule(i as Time, 0u8);
        }
        assert!(!q.overflowed());
        q.schedule(5, 1u8);
        assert!(q.overflowed());
        assert_eq!(q.len(), 1000);
        assert_eq!(q.pop_until(u64::MAX), Some((0, 0)));
    }

    /// Against the obvious reference (sort by time, then insertion order)
    /// under a random interleaving of pushes and pops like a simulation's.
    #[test]
    fn matches_a_stable_sort_under_random_use() {
        let mut r = stream_rng(9, "queue-test");
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = vec![];
        let mut popped = vec![];
        let mut expect = vec![];
        let mut id = 0u64;
        for _ in 0..200_000 {
            if r.uniform() < 0.55 || reference.is_empty() {
                // Many ties: times on a coarse grid, some exactly now.
                let dt = if r.uniform() < 0.2 { 0 } else { (r.next_u64() % 50) * 1000 };
                let at = q.now() + dt;
                q.schedule(at, id);
                reference.push((at, id));
                id += 1;
            } else {
                let i = (0..reference.len()).min_by_key(|&i| reference[i]).unwrap();
                expect.push(reference.swap_remove(i).1);
                popped.push(q.pop_until(u64::MAX).unwrap().1);
            }
        }
        assert_eq!(popped, expect);
        assert_eq!(q.len(), reference.len());
    }

    /// FIFO lines give exactly the order of plain scheduling: events mixed
    /// over three lines (each in non-decreasing time) and the slab.
    #[test]
    fn fifo_lines_keep_the_order_of_plain_scheduling() {
        let mut r = stream_rng(3, "queue-lines");
        let (mut q, mut plain) = (EventQueue::new(), EventQueue::new());
        let mut last = [0u64; 3];
        let (mut a, mut b) = (vec![], vec![]);
        for id in 0..100_000u64 {
            if r.uniform() < 0.6 {
                let dt = if r.uniform() < 0.3 { 0 } else { (r.next_u64() % 20) * 1000 };
                let line = (r.next_u64() % 4) as usize;
                if line < 3 {
                    let at = (q.now() + dt).max(last[line]);
                    last[line] = at;
                    q.schedule_fifo(line as u32, at, id);
                    plain.schedule(at, id);
                } else {
                    q.schedule(q.now() + dt, id);
                    plain.schedule(plain.now() + dt, id);
                }
            } else if let Some((t, e)) = q.pop_until(u64::MAX) {
                a.push((t, e));
                b.push(plain.pop_until(u64::MAX).unwrap());
            }
            assert_eq!(q.len(), plain.len());
        }
        assert_eq!(a, b);
        assert!(a.len() > 10_000);
    }

    /// Reserved insertion numbers on a line (a frame's arrivals, numbered
    /// in one order and queued in time order) give the order of plain
    /// scheduling in the numbering order.
    #[test]
    fn reserved_numbers_on_lines_keep_the_order_of_plain_scheduling() {
        let mut r = stream_rng(5, "queue-fanout");
        let (mut q, mut plain) = (EventQueue::new(), EventQueue::new());
        let (mut a, mut b) = (vec![], vec![]);
        let mut line = 0u32;
        for id in 0..50_000u64 {
            if r.uniform() < 0.5 {
                // a fan-out of 1..6 events with delays on a coarse grid
                let n = 1 + (r.next_u64() % 6);
                let delays: Vec<u64> = (0..n).map(|_| (r.next_u64() % 3) * 1000).collect();
                let first = q.reserve(n);
                let mut order: Vec<u64> = (0..n).collect();
                order.sort_by_key(|&i| (delays[i as usize], i));
                for &i in &order {
                    q.schedule_fifo_at(line, q.now() + delays[i as usize], first + i, id * 10 + i);
                }
                for i in 0..n {
                    plain.schedule(plain.now() + delays[i as usize], id * 10 + i);
                }
                line += 1;
            } else if r.uniform() < 0.5 {
                let dt = (r.next_u64() % 3) * 1000;
                q.schedule(q.now() + dt, id * 10);
                plain.schedule(plain.now() + dt, id * 10);
            } else if let Some(e) = q.pop_until(u64::MAX) {
                a.push(e);
                b.push(plain.pop_until(u64::MAX).unwrap());
            }
            assert_eq!(q.len(), plain.len());
        }
        assert_eq!(a, b);
        assert!(a.len() > 10_000);
    }
}
