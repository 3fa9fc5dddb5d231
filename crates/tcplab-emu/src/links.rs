//! The scenario's chain of links as a carrier: packets cross the link
//! directions (the core's `LinkDir`: queue -> transmission -> propagation ->
//! error decision at the far end) on the model's own event heap, and leave
//! the chain at the far end (`Released`).

use crate::ippkt;
use crate::path::LinkPath;
use crate::relay::Released;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tcplab_core::engine::Time;
use tcplab_core::net::{Arrival, Offer};
use tcplab_core::packet::{PktId, NO_FLOW};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The transmitter of direction `d` finishes: start the next queued packet.
    TxDone(usize),
    /// Packet `id` reaches the far end of direction `d`.
    Arrive(usize, u32),
    /// Packet `id`, held by direction `d`'s delaying error model, enters it.
    Enter(usize, u32),
}

struct Pkt {
    buf: Vec<u8>,
    size: u32,
    payload: u32,
    /// The end it came from (0 or 1).
    side: usize,
    /// Index in the chain of the direction it is on.
    hop: usize,
}

#[derive(Default)]
pub struct LinkCarrier {
    pub path: LinkPath,
    pkts: Vec<Option<Pkt>>,
    free: Vec<u32>,
    heap: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    seq: u64,
}

impl LinkCarrier {
    pub fn new(path: LinkPath) -> LinkCarrier {
        LinkCarrier { path, pkts: Vec::new(), free: Vec::new(), heap: BinaryHeap::new(), seq: 0 }
    }

    /// Packets still in the model: queued, in transmission or propagating.
    pub fn held(&self) -> u64 {
        self.pkts.iter().filter(|p| p.is_some()).count() as u64
    }

    pub fn next_due(&self) -> Option<Time> {
        self.heap.peek().map(|r| r.0 .0)
    }

    fn schedule(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    /// A packet the kernel of end `side` sent, read at `now`.
    pub fn ingress(&mut self, side: usize, buf: Vec<u8>, m: ippkt::Meta, now: Time, out: &mut Vec<Released>) {
        let pkt = Pkt { buf, size: m.size, payload: m.payload, side, hop: 0 };
        let id = match self.free.pop() {
            Some(i) => {
                self.pkts[i as usize] = Some(pkt);
                i
            }
            None => {
                self.pkts.push(Some(pkt));
                (self.pkts.len() - 1) as u32
            }
        };
        self.at_hop(now, id, m.ect, out);
    }

    fn pkt(&self, id: u32) -> &Pkt {
        self.pkts[id as usize].as_ref().expect("live packet")
    }

    fn drop_pkt(&mut self, id: u32) {
        self.pkts[id as usize] = None;
        self.free.push(id);
    }

    /// The packet enters the next direction of its chain, or leaves the path.
    fn at_hop(&mut self, now: Time, id: u32, ect: bool, out: &mut Vec<Released>) {
        let (side, hop, size) = {
            let p = self.pkt(id);
            (p.side, p.hop, p.size)
        };
        let Some(&d) = self.path.chains[side].get(hop) else {
            let p = self.pkts[id as usize].take().expect("live");
            self.free.push(id);
            return out.push(Released { due: now, to: 1 - p.side, buf: p.buf });
        };
        if self.path.dirs[d].holds() {
            let payload = self.pkt(id).payload;
            if let Some(at) = self.path.dirs[d].held_until(now, size, payload, NO_FLOW) {
                return self.schedule(at, Ev::Enter(d, id));
            }
        }
        self.enter(now, d, id, size, ect);
    }

    /// The packet is offered to direction `d`.
    fn enter(&mut self, now: Time, d: usize, id: u32, size: u32, ect: bool) {
        let buf = &self.pkts[id as usize].as_ref().expect("live").buf;
        let offer = self.path.dirs[d].offer(now, PktId(id), size, ect, || ippkt::flow_key(buf));
        match offer {
            Offer::Idle | Offer::IdleMarked => {
                if matches!(offer, Offer::IdleMarked) {
                    ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                }
                let at = self.path.dirs[d].transmit(now, size);
                self.schedule(at, Ev::Arrive(d, id));
            }
            Offer::Queued { marked } => {
                if marked {
                    ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                }
                if let Some(t) = self.path.dirs[d].arm_tx_done() {
                    self.schedule(t, Ev::TxDone(d));
                }
            }
            Offer::Dropped(_) => {
                self.drop_pkt(id);
                self.drop_displaced(d);
            }
            Offer::Displaced(_) => {
                if let Some(t) = self.path.dirs[d].arm_tx_done() {
                    self.schedule(t, Ev::TxDone(d));
                }
                self.drop_displaced(d);
            }
        }
    }

    /// Discard the packets direction `d`'s queue took out to make room.
    fn drop_displaced(&mut self, d: usize) {
        while let Some(v) = self.path.dirs[d].queue.pop_displaced() {
            self.drop_pkt(v.0);
        }
    }

    fn handle(&mut self, t: Time, ev: Ev, out: &mut Vec<Released>) {
        match ev {
            Ev::TxDone(d) => {
                let next = self.path.dirs[d].tx_done(t);
                if self.path.dirs[d].has_qdisc() {
                    for v in self.path.dirs[d].queue.take_dequeue_drops() {
                        self.drop_pkt(v.0);
                    }
                    if let Some((PktId(id), _)) = next.filter(|_| self.path.dirs[d].queue.dequeue_marked()) {
                        ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                    }
                }
                if let Some((PktId(id), size)) = next {
                    let at = self.path.dirs[d].transmit(t, size);
                    self.schedule(at, Ev::Arrive(d, id));
                }
                if let Some(t2) = self.path.dirs[d].arm_tx_done() {
                    self.schedule(t2, Ev::TxDone(d));
                }
            }
            Ev::Arrive(d, id) => {
                let (size, payload) = (self.pkt(id).size, self.pkt(id).payload);
                let fate = self.path.dirs[d].arrival(t, size, payload, NO_FLOW);
                if fate != Arrival::Corrupted {
                    if fate == Arrival::Marked {
                        ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                    }
                    let ect = ippkt::parse(&self.pkt(id).buf).is_some_and(|m| m.ect);
                    self.pkts[id as usize].as_mut().expect("live").hop += 1;
                    self.at_hop(t, id, ect, out);
                } else {
                    self.drop_pkt(id);
                }
            }
            Ev::Enter(d, id) => {
                let size = self.pkt(id).size;
                let ect = ippkt::parse(&self.pkt(id).buf).is_some_and(|m| m.ect);
                self.enter(t, d, id, size, ect);
            }
        }
    }

    /// Handle every event due at or before `t`, in time order; the packets
    /// that leave the path go to `out`.
    pub fn advance_to(&mut self, t: Time, out: &mut Vec<Released>) {
        while let Some(&Reverse((due, _, ev))) = self.heap.peek() {
            if due > t {
                break;
            }
            self.heap.pop();
            self.handle(due, ev, out);
        }
    }
}
