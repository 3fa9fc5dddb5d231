//! Deficit round robin (Shreedhar & Varghese 1995) as ns-2.35's Queue/DRR
//! (queue/drr.cc) runs it, the DRR the classic studies could use.
//!
//! Its rules, kept here because they decide who is served and who loses:
//! packets are classified into `buckets` by a hash of the *source address*
//! only (ns-2's `mask_` keeps the address's upper bits; ports are not
//! looked at, so two flows from one node share a bucket); the buffer is
//! one byte limit over all buckets (`blimit`; ns-2's queue limit in
//! packets is not consulted), and an arrival that takes the total past it
//! is first appended, then packets are dropped from the *head* of the
//! bucket holding the most bytes until the total fits (the first such
//! bucket in round-robin order from the current one wins ties). A bucket
//! that becomes active joins the round behind the current one with a
//! deficit of 0 and gets its `quantum` when its turn begins; one that
//! empties while served leaves with its deficit cleared. ns-2's quirks
//! are kept: a bucket emptied by those overflow drops keeps its deficit
//! and turn flag, so if it was being served it skips a quantum when it
//! comes back.
//!
//! `classify = "flow"` (not ns-2's) hashes source, destination, protocol
//! and ports instead, for per-flow fairness between flows of one node.

use super::fair::{Backlog, FlowKey};
use crate::packet::PktId;
use std::collections::VecDeque;

/// What a DRR queue classifies packets by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DrrClassify {
    /// ns-2's hash of the source address.
    #[default]
    Source,
    /// A keyed hash of source, destination, protocol and ports.
    Flow,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DrrParams {
    /// Number of buckets (ns-2's buckets_, default 10).
    pub buckets: u32,
    /// Bytes all buckets may hold together (blimit_, default 25000).
    pub blimit: u64,
    /// Bytes a bucket may send per round (quantum_, default 250).
    pub quantum: u32,
    /// Hash the source address & 0xfff0 only (mask_ 1).
    pub mask: bool,
    pub classify: DrrClassify,
}

#[derive(Clone, Debug, Default)]
struct Bucket {
    q: VecDeque<(PktId, u32)>,
    /// Bytes waiting (ns-2's bcount).
    bytes: u64,
    deficit: i64,
    /// Its quantum for the current visit has been added.
    turn: bool,
    prev: u32,
    next: u32,
}

#[derive(Clone, Debug)]
pub struct Drr {
    pub params: DrrParams,
    buckets: Vec<Bucket>,
    /// The bucket being served; the active ones form a ring through it.
    curr: Option<u32>,
    active: u32,
    held: Backlog,
    /// Key of the `Flow` classification's hash.
    seed: u64,
}

/// ns-2's DRR::hash() of a source address, in C's 32-bit arithmetic.
pub fn ns2_source_hash(addr: u32, mask: bool) -> i32 {
    let i = if mask { (addr & 0xfff0) as i32 } else { addr as i32 };
    let h = i.wrapping_add(i >> 8).wrapping_add(!(i >> 4));
    (h % ((2 << 23) - 1)) + 1
}

impl Drr {
    pub fn new(params: DrrParams, seed: u64) -> Self {
        let buckets = vec![Bucket::default(); params.buckets as usize];
        Drr { params, buckets, curr: None, active: 0, held: Backlog::default(), seed }
    }

    #[inline]
    pub fn bucket_of(&self, key: &FlowKey) -> usize {
        let n = self.params.buckets as i64;
        match self.params.classify {
            // rem_euclid: ns-2's node addresses are small and the hash
            // positive, but the emulator's IPv4 addresses can make it
            // negative (C's % would index out of the table).
            DrrClassify::Source => (ns2_source_hash(key.src, self.params.mask) as i64).rem_euclid(n) as usize,
            DrrClassify::Flow => key.scaled(self.seed, self.params.buckets) as usize,
        }
    }

    /// Append a packet; if the buffer then exceeds its limit, drop from the
    /// fattest bucket's head (into `dropped`, the arrival possibly among them).
    #[inline]
    pub fn enqueue(&mut self, id: PktId, size: u32, key: &FlowKey, dropped: &mut Vec<PktId>) {
        let which = self.bucket_of(key) as u32;
        let b = &mut self.buckets[which as usize];
        b.q.push_back((id, size));
        b.bytes += size as u64;
        self.held.add(size);
        if b.q.len() == 1 {
            self.curr = Some(self.join(which));
            self.buckets[which as usize].deficit = 0;
            self.active += 1;
        }
        while self.held.bytes > self.params.blimit {
            let fat = self.fattest();
            let b = &mut self.buckets[fat as usize];
            let (victim, size) = b.q.pop_front().expect("the fattest bucket holds a packet");
            b.bytes -= size as u64;
            self.held.remove(size);
            dropped.push(victim);
            if b.q.is_empty() {
                self.curr = self.leave(fat);
                self.active -= 1;
            }
        }
    }

    /// The next packet in deficit round robin order.
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PktId, u32)> {
        if self.held.packets == 0 {
            return None;
        }
        loop {
            let c = self.curr.expect("an active bucket");
            let quantum = self.params.quantum as i64;
            let b = &mut self.buckets[c as usize];
            if !b.turn {
                b.deficit += quantum;
                b.turn = true;
            }
            let (id, size) = *b.q.front().expect("an active bucket holds a packet");
            if b.deficit >= size as i64 {
                b.deficit -= size as i64;
                b.q.pop_front();
                b.bytes -= size as u64;
                self.held.remove(size);
                if b.q.is_empty() {
                    b.turn = false;
                    b.deficit = 0;
                    self.active -= 1;
                    self.curr = self.leave(c);
                }
                return Some((id, size));
            }
            b.turn = false;
            self.curr = Some(b.next);
        }
    }

    /// Link bucket `b` into the ring just behind the current one (ns-2's
    /// activate()); the current bucket, or `b` if the ring was empty.
    fn join(&mut self, b: u32) -> u32 {
        match self.curr {
            Some(head) => {
                let prev = self.buckets[head as usize].prev;
                self.buckets[b as usize].prev = prev;
                self.buckets[b as usize].next = head;
                self.buckets[prev as usize].next = b;
                self.buckets[head as usize].prev = b;
                head
            }
            None => {
                self.buckets[b as usize].prev = b;
                self.buckets[b as usize].next = b;
                b
            }
        }
    }

    /// Unlink bucket `b` (ns-2's idle()): the new current bucket, the next
    /// one if `b` was current, None if the ring is now empty.
    fn leave(&mut self, b: u32) -> Option<u32> {
        let Bucket { prev, next, .. } = self.buckets[b as usize];
        if self.curr == Some(b) && next == b {
            return None;
        }
        self.buckets[next as usize].prev = prev;
        self.buckets[prev as usize].next = next;
        if self.curr == Some(b) {
            Some(next)
        } else {
            self.curr
        }
    }

    /// The active bucket with the most bytes, the first in ring order from
    /// the current one (ns-2's getMaxflow()).
    fn fattest(&self) -> u32 {
        let start = self.curr.expect("an active bucket");
        let (mut best, mut b) = (start, start);
        for _ in 0..self.active {
            if self.buckets[best as usize].bytes < self.buckets[b as usize].bytes {
                best = b;
            }
            b = self.buckets[b as usize].next;
        }
        best
    }

    pub fn backlog(&self) -> Backlog {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drr(quantum: u32, blimit: u64) -> Drr {
        Drr::new(DrrParams { buckets: 10, blimit, quantum, mask: false, classify: DrrClassify::Source }, 0)
    }

    fn from(src: u32) -> FlowKey {
        FlowKey { src, dst: 99, proto: 6, sport: 0, dport: 0 }
    }

    #[test]
    fn the_source_hash_is_ns2s() {
        // (i + (i >> 8) + ~(i >> 4)) % (2^24 - 1) + 1 in C ints.
        assert_eq!(ns2_source_hash(0, false), 0);
        assert_eq!(ns2_source_hash(1, false), 1);
        assert_eq!(ns2_source_hash(15, false), 15);
        assert_eq!(ns2_source_hash(16, false), 15);
        assert_eq!(ns2_source_hash(300, false), 300 + 1 - 18 - 1 + 1);
        assert_eq!(ns2_source_hash(0x1234, true), ns2_source_hash(0x1230, false));
    }

    #[test]
    fn any_address_has_a_bucket() {
        // The emulator's IPv4 addresses: 192.168.x.y is negative as a C int.
        let d = drr(1000, 1_000_000);
        for a in [0xC0A8_0001u32, 0xFFFF_FFFF, 0x8000_0000, 0x0A00_0002] {
            assert!(d.bucket_of(&from(a)) < 10);
        }
    }

    #[test]
    fn equal_sizes_share_in_turn() {
        let mut d = drr(1000, 1_000_000);
        let mut dropped = Vec::new();
        for i in 0..4 {
            d.enqueue(PktId(i), 1000, &from(1), &mut dropped);
        }
        for i in 4..8 {
            d.enqueue(PktId(i), 1000, &from(2), &mut dropped);
        }
        let order: Vec<u32> = std::iter::from_fn(|| d.dequeue()).map(|p| p.0 .0).collect();
        assert_eq!(order, vec![0, 4, 1, 5, 2, 6, 3, 7]);
        assert!(dropped.is_empty() && d.backlog().packets == 0);
    }

    #[test]
    fn bytes_not_packets_are_shared() {
        // Source 1 sends 1500-byte packets, source 2 500-byte ones, quantum
        // 500: each gets 500 bytes a round on average.
        let mut d = drr(500, 1_000_000);
        let mut dropped = Vec::new();
        for i in 0..30 {
            d.enqueue(PktId(i), 1500, &from(1), &mut dropped);
            d.enqueue(PktId(100 + i), 500, &from(2), &mut dropped);
        }
        let mut bytes = [0u64; 2];
        for _ in 0..40 {
            let (id, size) = d.dequeue().unwrap();
            bytes[(id.0 >= 100) as usize] += size as u64;
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((ratio - 1.0).abs() < 0.1, "{bytes:?}");
    }

    #[test]
    fn a_small_quantum_takes_several_rounds_for_a_packet() {
        // ns-2's default quantum of 250 with 1040-byte packets: a bucket
        // alone goes round five times before it has the deficit.
        let mut d = drr(250, 25_000);
        let mut dropped = Vec::new();
        d.enqueue(PktId(0), 1040, &from(3), &mut dropped);
        d.enqueue(PktId(1), 1040, &from(3), &mut dropped);
        assert_eq!(d.dequeue(), Some((PktId(0), 1040)));
        // 1250 - 1040 left, then 250 more at the next turn: 460, and so on.
        assert_eq!(d.buckets[d.bucket_of(&from(3))].deficit, 210);
        assert_eq!(d.dequeue(), Some((PktId(1), 1040)));
        assert_eq!(d.buckets[d.bucket_of(&from(3))].deficit, 0, "cleared when it empties");
    }

    #[test]
    fn overflow_drops_from_the_head_of_the_fattest_bucket() {
        let mut d = drr(1000, 5000);
        let mut dropped = Vec::new();
        for i in 0..3 {
            d.enqueue(PktId(i), 1000, &from(1), &mut dropped);
        }
        d.enqueue(PktId(10), 1500, &from(2), &mut dropped);
        assert!(dropped.is_empty());
        // 5500 > 5000: source 1 holds the most (4000), its head goes.
        d.enqueue(PktId(3), 1000, &from(1), &mut dropped);
        assert_eq!(dropped, vec![PktId(0)]);
        // Source 2 now holds 3500 against 3000: its head goes, 1500
        // bytes, enough.
        d.enqueue(PktId(11), 2000, &from(2), &mut dropped);
        assert_eq!(dropped, vec![PktId(0), PktId(10)]);
        assert_eq!(d.backlog(), Backlog { packets: 4, bytes: 5000 });
    }

    #[test]
    fn ties_go_to_the_first_in_ring_order_from_the_current_bucket() {
        let mut d = drr(1000, 2000);
        let mut dropped = Vec::new();
        d.enqueue(PktId(0), 1000, &from(1), &mut dropped);
        d.enqueue(PktId(1), 1000, &from(2), &mut dropped);
        // Source 3's arrival: all hold 1000; the current bucket (source 1,
        // the first active) is taken.
        d.enqueue(PktId(2), 1000, &from(3), &mut dropped);
        assert_eq!(dropped, vec![PktId(0)]);
        // Source 1 left the ring; the round goes on from source 2.
        assert_eq!(d.dequeue(), Some((PktId(1), 1000)));
        assert_eq!(d.dequeue(), Some((PktId(2), 1000)));
    }

    #[test]
    fn flow_classification_separates_flows_of_one_source() {
        let mut d = Drr::new(
            DrrParams { buckets: 1024, blimit: 1_000_000, quantum: 1000, mask: false, classify: DrrClassify::Flow },
            7,
        );
        let a = FlowKey { src: 1, dst: 2, proto: 6, sport: 1, dport: 80 };
        let b = FlowKey { sport: 2, ..a };
        assert_ne!(d.bucket_of(&a), d.bucket_of(&b));
        let mut ns2 = drr(1000, 1_000_000);
        assert_eq!(ns2.bucket_of(&a), ns2.bucket_of(&b), "ns-2's DRR hashes the source only");
        let mut dropped = Vec::new();
        d.enqueue(PktId(0), 1000, &a, &mut dropped);
        ns2.enqueue(PktId(0), 1000, &a, &mut dropped);
        assert_eq!(d.backlog().packets, 1);
    }
}
