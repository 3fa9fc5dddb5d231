//! The point-to-point device: one direction of a duplex link, modelled as in
//! Seawind. A queue, a transmitter that serialises one packet at a time at
//! `rate_bps` (the packet being serialised is not counted in the queue
//! limit), a propagation delay during which any number of packets are in
//! flight, and an error decision when the packet reaches the far end.
//!
//! One event per packet per idle hop: the transmitter's busy-until time is
//! kept here and a `TxDone` event is scheduled only when a packet has to
//! wait, so a link that never queues costs one `Arrive` per packet.

use super::device::{DevAction, DevEvent, DevIo, DropReason, NetDevice};
use super::{ErrorModel, Queue, Verdict};
use crate::engine::{time::tx_time, Rng, Time};
use crate::packet::{Ecn, NodeId, PktId};
use std::any::Any;

#[derive(Clone, Debug, Default)]
pub struct DirStats {
    /// Packets put on the medium (a transmission cut by the end of the run counts).
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub drops_overflow: u64,
    /// RED early and forced drops.
    pub drops_red: u64,
    /// Dual-threshold soft-limit drops.
    pub drops_soft: u64,
    pub drops_corruption: u64,
    /// Packets marked CE by RED instead of dropped.
    pub ecn_marks: u64,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
    pub max_queue: u64,
    /// Integral of queue length (packets) over time, for the mean.
    pub queue_area: f64,
    pub last_change: Time,
}

pub struct PointToPoint {
    /// Index of the duplex link in the scenario.
    pub link: u32,
    /// True for the direction between[0] -> between[1].
    pub forward: bool,
    pub from: NodeId,
    pub to: NodeId,
    /// Rate in bit/s (scenario rates are rounded to whole bit/s).
    pub rate_bps: u64,
    pub delay: Time,
    /// Per-packet framing overhead in bytes (PPP: 8).
    pub framing: u32,
    pub queue: Queue,
    pub error: ErrorModel,
    pub rng: Rng,
    /// Randomness of the queue's drop policy (RED).
    pub queue_rng: Rng,
    /// The transmitter is busy until this time (the packet being serialised
    /// is already on its way to the far end as an `Arrive` event).
    pub busy_until: Time,
    /// A `TxDone` event is pending to start the next queued packet.
    tx_event: bool,
    pub stats: DirStats,
}

impl PointToPoint {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        link: u32,
        forward: bool,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Time,
        framing: u32,
        queue: Queue,
        error: ErrorModel,
        rng: Rng,
        queue_rng: Rng,
    ) -> Self {
        PointToPoint {
            link,
            forward,
            from,
            to,
            rate_bps,
            delay,
            framing,
            queue,
            error,
            rng,
            queue_rng,
            busy_until: 0,
            tx_event: false,
            stats: DirStats::default(),
        }
    }

    /// Time to put a packet of IP size `size` on this link.
    pub fn tx_time(&self, size: u32) -> Time {
        tx_time((size + self.framing) as u64, self.rate_bps)
    }

    /// Nothing being serialised and nothing waiting: a new packet starts at
    /// once. (With packets queued a `TxDone` at `busy_until` is pending and
    /// keeps FIFO order even for an arrival at exactly that instant.)
    pub fn idle(&self, now: Time) -> bool {
        now >= self.busy_until && self.queue.is_empty()
    }

    /// Account queue-length change for the time-average.
    pub fn note_queue(&mut self, now: Time) {
        let dt = now - self.stats.last_change;
        self.stats.queue_area += dt as f64 * self.queue.len() as f64;
        self.stats.last_change = now;
        self.stats.max_queue = self.stats.max_queue.max(self.queue.len() as u64);
    }

    /// Make sure one `TxDone` is pending while packets are queued.
    fn arm_tx_done(&mut self, io: &mut DevIo) {
        if !self.tx_event {
            self.tx_event = true;
            io.sched.schedule(self.busy_until, DevEvent::TxDone);
        }
    }

    /// Serialise a packet from `now`; it reaches the far end after the
    /// transmission and propagation delays.
    fn start_tx(&mut self, now: Time, id: PktId, io: &mut DevIo) {
        let size = io.pool.get(id).size;
        let t = self.tx_time(size);
        self.busy_until = now + t;
        self.stats.busy_ns += t;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += (size + self.framing) as u64;
        io.sched.schedule(now + t + self.delay, DevEvent::Arrive(id));
        if io.report_transmit {
            io.out.push(DevAction::Transmit(id));
        }
    }

    fn tx_done(&mut self, now: Time, io: &mut DevIo) {
        self.tx_event = false;
        self.note_queue(now);
        if let Some(next) = self.queue.dequeue(now) {
            self.start_tx(now, next, io);
            if !self.queue.is_empty() {
                self.arm_tx_done(io);
            }
        }
    }

    fn arrive(&mut self, now: Time, id: PktId, io: &mut DevIo) {
        let p = io.pool.get(id);
        let wire = p.size + self.framing;
        if !self.error.is_none() && self.error.corrupts(now, wire, p.payload, &mut self.rng) {
            self.stats.drops_corruption += 1;
            io.out.push(DevAction::Drop(id, DropReason::Corruption));
            return;
        }
        self.stats.packets_delivered += 1;
        io.out.push(DevAction::Deliver(self.to, id));
    }
}

impl NetDevice for PointToPoint {
    fn node(&self) -> NodeId {
        self.from
    }

    /// An idle transmitter starts at once; otherwise the packet waits in the
    /// queue (or is refused by it) and one `TxDone` event at the end of the
    /// current transmission pulls the next packet.
    fn send(&mut self, now: Time, id: PktId, _next_hop: Option<NodeId>, io: &mut DevIo) {
        if self.idle(now) {
            self.start_tx(now, id, io);
            return;
        }
        let p = io.pool.get(id);
        let (size, ect) = (p.size, p.is_ect());
        self.note_queue(now);
        match self.queue.enqueue(now, id, size, ect, &mut self.queue_rng) {
            Verdict::Enqueued => {}
            Verdict::Marked => {
                self.stats.ecn_marks += 1;
                io.pool.get_mut(id).ip.ecn = Ecn::Ce;
            }
            Verdict::Dropped(cause) => {
                match cause {
                    super::DropCause::Overflow => self.stats.drops_overflow += 1,
                    super::DropCause::Red => self.stats.drops_red += 1,
                    super::DropCause::Soft => self.stats.drops_soft += 1,
                }
                io.out.push(DevAction::Drop(id, DropReason::Queue(cause)));
                return;
            }
        }
        self.arm_tx_done(io);
    }

    fn send_first(&mut self, now: Time, id: PktId, _next_hop: Option<NodeId>, io: &mut DevIo) {
        if self.idle(now) {
            self.start_tx(now, id, io);
        } else {
            self.note_queue(now);
            self.queue.enqueue_front(id, io.pool.get(id).size);
            self.arm_tx_done(io);
        }
    }

    fn on_event(&mut self, now: Time, ev: DevEvent, io: &mut DevIo) {
        match ev {
            DevEvent::TxDone => self.tx_done(now, io),
            DevEvent::Arrive(id) => self.arrive(now, id, io),
            DevEvent::Timer(_) => {}
        }
    }

    fn has_room(&self) -> bool {
        self.queue.has_room()
    }

    fn queue(&self) -> &Queue {
        &self.queue
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
