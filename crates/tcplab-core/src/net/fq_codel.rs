//! FQ-CoDel (RFC 8290) as Linux's sch_fq_codel runs it: packets hashed by
//! their 5-tuple into `flows` queues, each under its own CoDel controller
//! (net::codel); deficit round robin with a `quantum` of bytes over two
//! lists, new flows served before old ones so that sparse flows pass
//! ahead of bulk ones; at the packet limit, drops from the head of the
//! flow holding the most bytes, in a batch of up to half its bytes (at
//! most `drop_batch` packets), and that flow's CoDel count is raised by
//! the packets dropped.
//!
//! Decisions (docs/models.md, "Fair queueing"): the queue is dequeued
//! when the transmitter is free, as a link that holds one packet at a
//! time; when a dequeue leaves the queue empty the next one (which Linux's
//! transmit loop makes at once and which finds nothing) is made too, so
//! emptied flows leave the lists then. An arrival at an idle link with an
//! empty queue goes straight onto the wire without touching the queue
//! (Linux's TCQ_F_CAN_BYPASS). The memory limit (32 MB of socket-buffer
//! truesize) is not modelled: the packet limit binds first for any packet
//! size tcplab sends.

use super::codel::{codel_dequeue, codel_time, CodelFifo, CodelParams, CodelVars, Dequeued, Waiting};
use super::fair::{Backlog, FlowKey};
use crate::engine::Time;
use crate::packet::PktId;
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// Number of flow queues (Linux default 1024).
    pub flows: u32,
    /// Packets all flows may hold together (default 10240).
    pub limit: u32,
    /// Bytes a flow may send per round (default 1514, an Ethernet MTU
    /// with its header).
    pub quantum: u32,
    /// Most packets dropped at once at the limit (default 64).
    pub drop_batch: u32,
    pub codel: CodelParams,
}

#[derive(Clone, Debug, Default)]
struct Flow {
    q: VecDeque<Waiting>,
    /// Bytes waiting (Linux's backlogs[]).
    bytes: u64,
    deficit: i64,
    /// In the new or the old list.
    listed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    New,
    Old,
}

#[derive(Clone, Debug)]
pub struct FqCodel {
    pub params: FqCodelParams,
    flows: Vec<Flow>,
    vars: Vec<CodelVars>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    held: Backlog,
    /// Key of the flow hash (Linux draws one per queue).
    seed: u64,
}

/// One flow's FIFO seen by its controller, which lowers the whole
/// queue's counts as it takes packets out.
struct FlowFifo<'a> {
    flow: &'a mut Flow,
    held: &'a mut Backlog,
}

impl CodelFifo for FlowFifo<'_> {
    fn pop(&mut self) -> Option<Waiting> {
        let w = self.flow.q.pop_front()?;
        self.flow.bytes -= w.size as u64;
        self.held.remove(w.size);
        Some(w)
    }
    fn backlog(&self) -> u64 {
        self.held.bytes
    }
}

impl FqCodel {
    pub fn new(params: FqCodelParams, seed: u64) -> Self {
        let n = params.flows as usize;
        FqCodel {
            params,
            flows: vec![Flow::default(); n],
            vars: vec![CodelVars::default(); n],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            held: Backlog::default(),
            seed,
        }
    }

    pub fn flow_of(&self, key: &FlowKey) -> usize {
        key.scaled(self.seed, self.params.flows) as usize
    }

    /// Append a packet; past the limit, drop a batch from the fattest
    /// flow's head (into `dropped`, the arrival possibly among them).
    pub fn enqueue(&mut self, now: Time, id: PktId, size: u32, ect: bool, key: &FlowKey, dropped: &mut Vec<PktId>) {
        let i = self.flow_of(key);
        let f = &mut self.flows[i];
        f.q.push_back(Waiting { id, size, ect, since: codel_time(now) });
        f.bytes += size as u64;
        self.held.add(size);
        if !f.listed {
            f.listed = true;
            f.deficit = self.params.quantum as i64;
            self.new_flows.push_back(i as u32);
        }
        if self.held.packets > self.params.limit as usize {
            self.drop_from_fattest(dropped);
        }
    }

    /// fq_codel_drop(): half the fattest flow's bytes, at most
    /// `drop_batch` packets and at least one.
    fn drop_from_fattest(&mut self, dropped: &mut Vec<PktId>) {
        let mut fat = 0;
        let mut most = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.bytes > most {
                most = f.bytes;
                fat = i;
            }
        }
        let threshold = most >> 1;
        let f = &mut self.flows[fat];
        let (mut len, mut n) = (0u64, 0u32);
        loop {
            let w = f.q.pop_front().expect("the fattest flow holds a packet");
            len += w.size as u64;
            dropped.push(w.id);
            n += 1;
            if n >= self.params.drop_batch || len >= threshold {
                break;
            }
        }
        f.bytes -= len;
        self.vars[fat].count = self.vars[fat].count.wrapping_add(n);
        self.held.bytes -= len;
        self.held.packets -= n as usize;
    }

    /// The next packet at `now` (fq_codel_dequeue), with the packets the
    /// flows' controllers dropped on the way appended to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<PktId>) -> Option<Dequeued> {
        let out = self.dequeue_once(now, dropped);
        if out.is_some() && self.held.packets == 0 {
            // The transmit loop's next dequeue, which finds nothing but
            // takes the emptied flows off the lists.
            self.dequeue_once(now, dropped);
        }
        out
    }

    fn dequeue_once(&mut self, now: Time, dropped: &mut Vec<PktId>) -> Option<Dequeued> {
        loop {
            let (list, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (List::New, i as usize),
                (None, Some(&i)) => (List::Old, i as usize),
                (None, None) => return None,
            };
            if self.flows[i].deficit <= 0 {
                self.flows[i].deficit += self.params.quantum as i64;
                self.take_head(list);
                self.old_flows.push_back(i as u32);
                continue;
            }
            let FqCodel { flows, vars, held, params, .. } = self;
            let mut fifo = FlowFifo { flow: &mut flows[i], held };
            match codel_dequeue(&mut vars[i], &params.codel, &mut fifo, now, dropped) {
                Some(d) => {
                    self.flows[i].deficit -= d.w.size as i64;
                    return Some(d);
                }
                None => {
                    // An empty new flow goes once through the old list
                    // (so a flow cannot stay new by emptying), unless
                    // there is none.
                    self.take_head(list);
                    if list == List::New && !self.old_flows.is_empty() {
                        self.old_flows.push_back(i as u32);
                    } else {
                        self.flows[i].listed = false;
                    }
                }
            }
        }
    }

    fn take_head(&mut self, list: List) {
        match list {
            List::New => self.new_flows.pop_front(),
            List::Old => self.old_flows.pop_front(),
        };
    }

    pub fn backlog(&self) -> Backlog {
        self.held
    }

    /// Flow `i`'s controller (tests, reports).
    pub fn vars(&self, i: usize) -> &CodelVars {
        &self.vars[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    fn fq(limit: u32, quantum: u32) -> FqCodel {
        FqCodel::new(
            FqCodelParams {
                flows: 1024,
                limit,
                quantum,
                drop_batch: 64,
                codel: CodelParams { target: 5 * MS, interval: 100 * MS, ecn: true, mtu: 1514 },
            },
            11,
        )
    }

    fn flow(n: u16) -> FlowKey {
        FlowKey { src: 1, dst: 2, proto: 6, sport: n, dport: 80 }
    }

    fn drain(q: &mut FqCodel, now: Time) -> Vec<u32> {
        let mut dropped = Vec::new();
        let out = std::iter::from_fn(|| q.dequeue(now, &mut dropped)).map(|d| d.w.id.0).collect();
        assert!(dropped.is_empty());
        out
    }

    #[test]
    fn two_flows_of_equal_packets_alternate() {
        // A quantum of exactly one packet: one each per round. (With
        // 1514 a flow sends a second 1500-byte packet on its 14 bytes
        // left: a positive deficit lets any packet through.)
        let mut q = fq(10240, 1500);
        let mut dropped = Vec::new();
        assert_ne!(q.flow_of(&flow(1)), q.flow_of(&flow(2)));
        for i in 0..3 {
            q.enqueue(0, PktId(i), 1500, false, &flow(1), &mut dropped);
        }
        for i in 10..13 {
            q.enqueue(0, PktId(i), 1500, false, &flow(2), &mut dropped);
        }
        // Flow 1 first (new), one quantum each, both then old.
        assert_eq!(drain(&mut q, MS), vec![0, 10, 1, 11, 2, 12]);
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty(), "emptied flows left the lists");
    }

    #[test]
    fn a_sparse_flow_passes_ahead_of_a_bulk_one() {
        let mut q = fq(10240, 1514);
        let mut dropped = Vec::new();
        for i in 0..20 {
            q.enqueue(0, PktId(i), 1500, false, &flow(1), &mut dropped);
        }
        // The bulk flow has been served and is old now.
        assert_eq!(q.dequeue(MS, &mut dropped).unwrap().w.id, PktId(0));
        assert_eq!(q.dequeue(2 * MS, &mut dropped).unwrap().w.id, PktId(1));
        // A small packet of a new flow goes next, ahead of 18 waiting.
        q.enqueue(2 * MS, PktId(100), 80, false, &flow(9), &mut dropped);
        assert_eq!(q.dequeue(3 * MS, &mut dropped).unwrap().w.id, PktId(100));
        assert_eq!(q.dequeue(4 * MS, &mut dropped).unwrap().w.id, PktId(2));
    }

    #[test]
    fn byte_deficits_share_bytes_between_packet_sizes() {
        let mut q = fq(10240, 1514);
        let mut dropped = Vec::new();
        for i in 0..1000 {
            q.enqueue(0, PktId(i), 1500, false, &flow(1), &mut dropped);
            q.enqueue(0, PktId(10_000 + i), 300, false, &flow(2), &mut dropped);
        }
        // Over many rounds each flow gets a quantum of bytes per round
        // (within one packet a round: a positive deficit lets one more go).
        let mut bytes = [0u64; 2];
        for _ in 0..1000 {
            let d = q.dequeue(MS, &mut dropped).unwrap();
            bytes[(d.w.id.0 >= 10_000) as usize] += d.w.size as u64;
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((ratio - 1.0).abs() < 0.05, "{bytes:?}");
    }

    #[test]
    fn the_limit_drops_half_the_fattest_flows_bytes_from_its_head() {
        let mut q = fq(10, 1514);
        let mut dropped = Vec::new();
        for i in 0..8 {
            q.enqueue(0, PktId(i), 1000, false, &flow(1), &mut dropped);
        }
        for i in 10..12 {
            q.enqueue(0, PktId(i), 1000, false, &flow(2), &mut dropped);
        }
        assert!(dropped.is_empty());
        // The 11th packet: flow 1 holds 8000 bytes, 4000 of them go.
        q.enqueue(0, PktId(12), 1000, false, &flow(2), &mut dropped);
        assert_eq!(dropped, vec![PktId(0), PktId(1), PktId(2), PktId(3)]);
        assert_eq!(q.backlog(), Backlog { packets: 7, bytes: 7000 });
        assert_eq!(q.vars(q.flow_of(&flow(1))).count, 4, "CoDel told of the drops");
    }

    #[test]
    fn each_flow_has_its_own_controller() {
        // Flow 1 keeps a standing queue (200 packets, then one a
        // millisecond, what the link takes); flow 2 sends one packet every
        // 20 ms: only flow 1's packets are dropped.
        let mut q = fq(10240, 1514);
        q.params.codel.ecn = false;
        let mut dropped = Vec::new();
        for i in 0..200 {
            q.enqueue(0, PktId(i), 1000, false, &flow(1), &mut dropped);
        }
        let (mut t, mut id, mut sent2, mut delays2) = (0, 200, 0, Vec::new());
        while t < 2000 * MS {
            q.enqueue(t, PktId(id), 1000, false, &flow(1), &mut dropped);
            id += 1;
            if t % (20 * MS) == 0 {
                q.enqueue(t, PktId(1_000_000 + id), 1000, false, &flow(2), &mut dropped);
                sent2 += 1;
            }
            if let Some(d) = q.dequeue(t, &mut dropped) {
                if d.w.id.0 >= 1_000_000 {
                    delays2.push(codel_time(t) - d.w.since);
                }
            }
            t += MS;
        }
        assert!(dropped.len() > 50, "{}", dropped.len());
        assert!(dropped.iter().all(|d| d.0 < 1_000_000), "the sparse flow lost nothing");
        assert_eq!(delays2.len(), sent2, "every sparse packet left");
        // Served within the bulk flow's turn of at most two packets.
        assert!(delays2.iter().all(|&d| d <= codel_time(2 * MS) + 1), "{delays2:?}");
        assert_eq!(q.vars(q.flow_of(&flow(2))).count, 0);
    }

    #[test]
    fn emptied_flows_leave_both_lists() {
        let mut q = fq(10240, 1514);
        let mut dropped = Vec::new();
        q.enqueue(0, PktId(0), 1000, false, &flow(1), &mut dropped);
        q.enqueue(0, PktId(1), 1000, false, &flow(2), &mut dropped);
        assert_eq!(drain(&mut q, MS), vec![0, 1]);
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
        // A flow that comes back is new again, with a fresh quantum.
        q.enqueue(2 * MS, PktId(2), 1000, false, &flow(1), &mut dropped);
        let i = q.flow_of(&flow(1));
        assert!(q.flows[i].listed && q.flows[i].deficit == 1514);
    }
}
