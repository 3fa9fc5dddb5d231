//! The event queue: a binary min-heap ordered by (time, insertion number).
//! The insertion number makes the order of simultaneous events the order in
//! which they were scheduled, so runs are reproducible whatever the heap does.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    key: u128, // time << 64 | seq: one integer compare per heap step
    ev: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key) // reversed: BinaryHeap is a max-heap
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0, now: 0, processed: 0 }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedule `ev` at absolute time `at`. Scheduling in the past is a bug in
    /// the caller and panics in debug builds; release builds clamp to now.
    pub fn schedule(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        let at = at.max(self.now);
        let key = ((at as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, ev });
    }

    pub fn schedule_in(&mut self, delay: Time, ev: E) {
        self.schedule(self.now + delay, ev)
    }

    /// Pop the next event if it is due at or before `until`; advances the clock.
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        let t = (self.heap.peek()?.key >> 64) as Time;
        if t > until {
            return None;
        }
        let e = self.heap.pop().unwrap();
        self.now = t;
        self.processed += 1;
        Some((t, e.ev))
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
    }
}
