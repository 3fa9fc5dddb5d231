//! The point-to-point device: one direction of a duplex link, modelled as in
//! Seawind. A queue, a transmitter that serialises one packet at a time at
//! `rate_bps` (the packet being serialised is not counted in the queue
//! limit), a propagation delay during which any number of packets are in
//! flight, and an error decision when the packet reaches the far end.
//!
//! The emulator (crates/tcplab-emu) drives the same steps in real time, so
//! simulated and emulated links run one model (`LinkDir` is its name there).
//!
//! One event per packet per idle hop: the transmitter's busy-until time is
//! kept here and a `TxDone` event is scheduled only when a packet has to
//! wait, so a link that never queues costs one `Arrive` per packet.

use super::device::{DevAction, DevEvent, DevIo, DevScheduler, DropReason, NetDevice};
use super::error::Arrival;
use super::{DropCause, ErrorModel, FlowKey, Queue, Verdict};
use crate::engine::time::{tx_time, TxRate};
use crate::engine::{Rng, Time};
use crate::packet::{Ecn, FlowId, NodeId, PktId};
use std::any::Any;

/// Counters of one direction. `repr(C)` keeps the three every packet
/// touches (sent, bytes, delivered) first: with the link's hop fields
/// they fill its first cache line.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct DirStats {
    /// Packets put on the medium (a transmission cut by the end of the run counts).
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    /// Time the transmitter was busy, summed per packet only where a
    /// byte's time is not a whole number of ns: private, so that it is
    /// read through `PointToPoint::busy_ns`, which answers for every rate.
    busy_ns: u64,
    /// Integral of queue length (packets) over time, for the mean.
    pub queue_area: f64,
    pub last_change: Time,
    pub max_queue: u64,
    pub drops_overflow: u64,
    /// RED early and forced drops.
    pub drops_red: u64,
    /// Dual-threshold soft-limit drops.
    pub drops_soft: u64,
    pub drops_corruption: u64,
    /// CoDel's drops as packets leave the queue (codel, fq-codel).
    pub drops_codel: u64,
    /// Packets marked CE by RED or CoDel instead of dropped.
    pub ecn_marks: u64,
    /// Packets a delaying error model held at the entry.
    pub packets_delayed: u64,
}

/// `repr(C)`, 64-byte aligned, in this order: what a packet's hop reads
/// and writes (transmitter, delay, whole ns per byte, framing, the flags
/// standing in for "queue empty" and "no error model", far end, the room
/// for `Device`'s discriminant, then the three counters every packet
/// bumps) fills the first cache line; the rest of the counters, the
/// queue, the error model and the report-only fields follow. An idle hop
/// thus touches one line of the 448-byte struct: at a thousand flows the
/// links no longer fit in the second-level cache and every line is a
/// miss. (Two lines until 2026-11-29: the rate as a 16-byte `TxRate`, the
/// busy time summed per packet, framing as `u32`.)
#[repr(C, align(64))]
pub struct PointToPoint {
    /// The transmitter is busy until this time (the packet being serialised
    /// is already on its way to the far end as an `Arrive` event).
    pub busy_until: Time,
    pub delay: Time,
    /// Whole ns per byte where 8e9 is a multiple of the rate (a packet's
    /// time is then a product, and the busy time the bytes sent times
    /// this), 0 otherwise (a division by `rate_bps`, further down). Eight
    /// bytes where `TxRate` takes sixteen: the hop's fields and counters
    /// then fit one cache line.
    ns_per_byte: u64,
    /// Per-packet framing overhead in bytes (PPP: 8), as `u16` so that
    /// the line below holds `TagHere` too.
    framing: u16,
    /// A `TxDone` event is pending to start the next queued packet; true
    /// exactly when packets wait in the queue (so `idle` need not look at
    /// the queue, further down the struct).
    tx_event: bool,
    /// Fixed for the run, in the first line so that a hop reads nothing
    /// else: `LOSSLESS`, the error model never corrupts
    /// (`ErrorModel::loses` false: arrivals need not look at it); `RED`, the
    /// queue sees every arrival, an idle link's too (its policy's tag is
    /// two lines further); `HOLD`, the error model delays the packets it
    /// picks at the entry (`held_until`).
    hop: u8,
    pub to: NodeId,
    /// Room for `Device`'s discriminant in this line (see `TagHere`).
    _tag: TagHere,
    pub stats: DirStats,
    pub queue: Queue,
    pub error: ErrorModel,
    pub rng: Rng,
    /// Randomness of the queue's drop policy (RED).
    pub queue_rng: Rng,
    /// Rate in bit/s (scenario rates are rounded to whole bit/s).
    pub rate_bps: u64,
    pub from: NodeId,
    /// Index of the duplex link in the scenario.
    pub link: u32,
    /// True for the direction between[0] -> between[1].
    pub forward: bool,
}

/// `PointToPoint::hop` bits.
const HOP_LOSSLESS: u8 = 1;
const HOP_RED: u8 = 2;
/// The error model delays the packets it picks (`HitAction::Delay`).
const HOP_HOLD: u8 = 4;
/// The queue is a discipline of `net::fair` (DRR, CoDel, FQ-CoDel): its
/// FIFO is not all it holds, and packets may be dropped or marked as they
/// leave. Read here, not from the queue, so that the other links pay one
/// bit test in the line they have loaded anyway.
const HOP_QDISC: u8 = 8;

/// A field-less `u64` enum: all but one of its values are free, more than
/// in any other field (the queue policy's tag has all but three), and the
/// compiler keeps an enclosing enum's discriminant in the largest free
/// range. So `Device` records "this is a point-to-point link" in the
/// link's first line, which a hop reads anyway; without it the
/// discriminant went to the queue policy's tag, a third line that every
/// hop would read first.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
enum TagHere {
    Here,
}

// An idle hop reads and writes the first line only: the transmitter's
// fields, the far end, the flags and the three per-packet counters.
const _: () = assert!(
    std::mem::offset_of!(PointToPoint, stats) + std::mem::offset_of!(DirStats, packets_delivered) + 8 <= 64,
    "a hop's fields in the first cache line"
);

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
        let hop = if error.loses() { 0 } else { HOP_LOSSLESS }
            | if queue.sees_idle_arrivals() { HOP_RED } else { 0 }
            | if error.delays() { HOP_HOLD } else { 0 }
            | if queue.has_qdisc() { HOP_QDISC } else { 0 };
        PointToPoint {
            link,
            forward,
            from,
            to,
            rate_bps,
            delay,
            framing: u16::try_from(framing).expect("framing: bytes per packet fit 16 bits"),
            queue,
            hop,
            _tag: TagHere::Here,
            error,
            rng,
            queue_rng,
            ns_per_byte: match TxRate::new(rate_bps) {
                TxRate::PerByte(ns) => ns,
                TxRate::Bps(_) => 0,
            },
            busy_until: 0,
            tx_event: false,
            stats: DirStats::default(),
        }
    }

    /// Time to put a packet of IP size `size` on this link.
    #[inline]
    pub fn tx_time(&self, size: u32) -> Time {
        let bytes = (size + self.framing as u32) as u64;
        if self.ns_per_byte != 0 {
            bytes * self.ns_per_byte
        } else {
            tx_time(bytes, self.rate_bps)
        }
    }

    /// Nothing being serialised and nothing waiting: a new packet starts at
    /// once. (With packets queued a `TxDone` at `busy_until` is pending and
    /// keeps FIFO order even for an arrival at exactly that instant.)
    pub fn idle(&self, now: Time) -> bool {
        // (A discipline's overflow drops may empty the queue under a
        // pending TxDone, which then finds nothing.)
        debug_assert!(
            self.tx_event != self.queue_is_empty() || (self.tx_event && self.has_qdisc()),
            "a TxDone is pending exactly while packets wait"
        );
        now >= self.busy_until && !self.tx_event
    }

    /// Time the transmitter was busy: every packet's transmission time
    /// summed (a product of the bytes sent where a byte takes whole ns,
    /// since each packet's time is its bytes times that).
    pub fn busy_ns(&self) -> u64 {
        if self.ns_per_byte != 0 {
            self.stats.bytes_sent * self.ns_per_byte
        } else {
            self.stats.busy_ns
        }
    }

    /// Account queue-length change for the time-average.
    pub fn note_queue(&mut self, now: Time) {
        self.note_len(now, self.queue_len());
    }

    /// `note_queue` with the length at hand.
    #[inline(always)]
    fn note_len(&mut self, now: Time, len: usize) {
        // The clock never runs backwards here (the emulator's relay keeps
        // it so); a step back would wrap the area.
        debug_assert!(now >= self.stats.last_change, "queue statistics at {now} after {}", self.stats.last_change);
        let dt = now - self.stats.last_change;
        self.stats.queue_area += dt as f64 * len as f64;
        self.stats.last_change = now;
        self.stats.max_queue = self.stats.max_queue.max(len as u64);
    }

    /// Whether the queue is a discipline of `net::fair` (`HOP_QDISC`).
    #[inline(always)]
    pub fn has_qdisc(&self) -> bool {
        self.hop & HOP_QDISC != 0
    }

    /// Packets waiting (`Queue::len`, without its look at a discipline
    /// where there is none).
    #[inline(always)]
    fn queue_len(&self) -> usize {
        if self.has_qdisc() {
            self.queue.len()
        } else {
            self.queue.fifo_len()
        }
    }

    #[inline(always)]
    fn queue_is_empty(&self) -> bool {
        if self.has_qdisc() {
            self.queue.is_empty()
        } else {
            self.queue.fifo_len() == 0
        }
    }

    // ---- The direction's steps, in the order a packet takes them. The
    // event loop that calls them (the simulator through `NetDevice` below,
    // or the real-time emulator in crates/tcplab-emu) owns the packets and
    // the clock, so both run this same link model.

    /// The error model delays packets (`HitAction::Delay`): the caller asks
    /// `held_until` before it offers a packet.
    #[inline(always)]
    pub fn holds(&self) -> bool {
        self.hop & HOP_HOLD != 0
    }

    /// A delaying error model and a packet (IP size `size`, `payload`
    /// bytes of application data) about to be offered at `now`: the time
    /// at which it is to be offered instead, if the model picks it. The
    /// caller keeps it until then and offers it without asking again.
    #[cold]
    #[inline(never)]
    pub fn held_until(&mut self, now: Time, size: u32, payload: u32, flow: FlowId) -> Option<Time> {
        let wire = size + self.framing as u32;
        let d = self.error.holds(now, wire, payload, flow, &mut self.rng)?;
        self.stats.packets_delayed += 1;
        Some(now + d)
    }

    /// Offer a packet arriving at `now`. `Offer::Idle`: nothing is being
    /// serialised or waiting, the caller transmits it at once
    /// (`transmit`). Otherwise the queue's verdict, with the statistics
    /// kept. `key` gives the packet's flow to a queue that classifies by
    /// flow (DRR, FQ-CoDel); no other asks for it.
    #[inline(always)]
    pub fn offer(&mut self, now: Time, id: PktId, size: u32, ect: bool, key: impl FnOnce() -> FlowKey) -> Offer {
        if self.idle(now) {
            if self.hop & HOP_RED != 0 {
                return self.offer_idle(now, id, size, ect, key);
            }
            return Offer::Idle;
        }
        if self.has_qdisc() {
            return self.offer_to_qdisc(now, id, size, ect, key());
        }
        self.offer_to_queue(now, id, size, ect)
    }

    /// `offer` for a free transmitter whose queue sees every arrival (RED).
    /// The packet goes onto the wire now, so RED's idle time starts when
    /// it has been sent.
    #[cold]
    #[inline(never)]
    fn offer_idle(&mut self, now: Time, id: PktId, size: u32, ect: bool, key: impl FnOnce() -> FlowKey) -> Offer {
        let verdict = self.queue.idle_arrival(now, (id, size, ect), key, &mut self.queue_rng);
        if !matches!(verdict, Verdict::Dropped(_)) {
            self.queue.transmitting_until(now + self.tx_time(size));
        }
        match self.counted(verdict) {
            Offer::Queued { marked: false } => Offer::Idle,
            Offer::Queued { marked: true } => Offer::IdleMarked,
            dropped => dropped,
        }
    }

    /// `offer` for a busy transmitter: the queue decides. Out of line, so
    /// that an idle hop (most hops) makes no call.
    #[inline(never)]
    fn offer_to_queue(&mut self, now: Time, id: PktId, size: u32, ect: bool) -> Offer {
        self.note_len(now, self.queue.fifo_len());
        let verdict = self.queue.enqueue(now, id, size, ect, &mut self.queue_rng);
        self.counted(verdict)
    }

    /// `offer_to_queue` for a discipline, which wants the packet's flow.
    #[cold]
    #[inline(never)]
    fn offer_to_qdisc(&mut self, now: Time, id: PktId, size: u32, ect: bool, key: FlowKey) -> Offer {
        self.note_queue(now);
        let verdict = self.queue.enqueue_keyed(now, id, size, ect, || key, &mut self.queue_rng);
        self.counted(verdict)
    }

    /// The queue's verdict as an offer, counted in the statistics (with
    /// the packets it displaced: one for RED, a batch for FQ-CoDel, which
    /// may drop others along with the arrival).
    fn counted(&mut self, verdict: Verdict) -> Offer {
        match verdict {
            Verdict::Enqueued => Offer::Queued { marked: false },
            Verdict::Marked => {
                self.stats.ecn_marks += 1;
                Offer::Queued { marked: true }
            }
            Verdict::Dropped(cause) => {
                for _ in 0..1 + self.queue.displaced_len() {
                    self.count_drop(cause);
                }
                Offer::Dropped(cause)
            }
            Verdict::Displaced(cause) => {
                for _ in 0..self.queue.displaced_len() {
                    self.count_drop(cause);
                }
                Offer::Displaced(cause)
            }
        }
    }

    #[cold]
    fn count_drop(&mut self, cause: DropCause) {
        match cause {
            DropCause::Overflow => self.stats.drops_overflow += 1,
            DropCause::Red => self.stats.drops_red += 1,
            DropCause::Soft => self.stats.drops_soft += 1,
            DropCause::Codel => self.stats.drops_codel += 1,
        }
    }

    /// With packets waiting and no end-of-transmission event pending, the
    /// time at which the caller must schedule one (then call `tx_done`).
    pub fn arm_tx_done(&mut self) -> Option<Time> {
        if self.tx_event || self.queue_is_empty() {
            return None;
        }
        self.tx_event = true;
        Some(self.busy_until)
    }

    /// The transmitter is free at `now`: the next packet to `transmit`, if
    /// any, with the IP size it was queued with.
    pub fn tx_done(&mut self, now: Time) -> Option<(PktId, u32)> {
        if self.has_qdisc() {
            return self.tx_done_qdisc(now);
        }
        self.tx_event = false;
        self.note_len(now, self.queue.fifo_len());
        let next = self.queue.dequeue_fifo(now);
        if self.hop & HOP_RED != 0 {
            // RED's idle time starts when the last packet has been sent.
            if let Some((_, size)) = next {
                self.queue.transmitting_until(now + self.tx_time(size));
            }
        }
        next
    }

    /// `tx_done` of a discipline, with its drops and mark as it gave the
    /// next packet counted; the caller discards the packets
    /// (`Queue::take_dequeue_drops`) and marks the one it transmits
    /// (`Queue::dequeue_marked`). Out of line: the other links' step makes
    /// no call.
    #[cold]
    #[inline(never)]
    fn tx_done_qdisc(&mut self, now: Time) -> Option<(PktId, u32)> {
        self.tx_event = false;
        self.note_queue(now);
        let next = self.queue.dequeue_sized(now);
        self.stats.drops_codel += self.queue.dequeue_drops_len() as u64;
        if next.is_some() && self.queue.dequeue_marked() {
            self.stats.ecn_marks += 1;
        }
        next
    }

    /// Serialise a packet of IP size `size` from `now`; returns the time it
    /// reaches the far end (transmission plus propagation delay).
    #[inline(always)]
    pub fn transmit(&mut self, now: Time, size: u32) -> Time {
        let t = self.tx_time(size);
        self.busy_until = now + t;
        if self.ns_per_byte == 0 {
            self.stats.busy_ns += t;
        }
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += (size + self.framing as u32) as u64;
        now + t + self.delay
    }

    /// The packet (IP size `size`, `payload` bytes of application data)
    /// reaches the far end at `now`: what the error model does to it (the
    /// caller sets CE on a `Marked` one and drops a `Corrupted` one).
    pub fn arrival(&mut self, now: Time, size: u32, payload: u32, flow: FlowId) -> Arrival {
        let wire = size + self.framing as u32;
        let fate = if self.hop & HOP_LOSSLESS == 0 {
            self.error.arrival(now, wire, payload, flow, &mut self.rng)
        } else {
            Arrival::Intact
        };
        if fate == Arrival::Corrupted {
            self.stats.drops_corruption += 1;
        } else {
            self.stats.packets_delivered += 1;
        }
        fate
    }

    // ---- The same steps driven as a simulator device.

    fn arm<S: DevScheduler + ?Sized>(&mut self, io: &mut DevIo<S>) {
        if let Some(at) = self.arm_tx_done() {
            io.sched.schedule(at, DevEvent::TxDone);
        }
    }

    /// Put packet `id`, of IP size `size`, on the medium now.
    fn start_tx<S: DevScheduler + ?Sized>(&mut self, now: Time, id: PktId, size: u32, io: &mut DevIo<S>) {
        let at = self.transmit(now, size);
        io.sched.schedule(at, DevEvent::Arrive(id));
        if io.report_transmit {
            io.out.push(DevAction::Transmit(id));
        }
    }
}

/// What became of a packet offered to a link direction (`PointToPoint::offer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The transmitter is free and nothing waits: transmit it now.
    Idle,
    /// As `Idle`, with its ECN field set to CE first (RED, which sees
    /// every arrival, marked it).
    IdleMarked,
    /// Waiting in the queue (`marked`: its ECN field must be set to CE).
    Queued {
        marked: bool,
    },
    Dropped(DropCause),
    /// Waiting in the queue, which dropped a packet waiting until now to
    /// make room (`RedVictim`): the caller takes it from the queue
    /// (`Queue::take_displaced`) and discards it.
    Displaced(DropCause),
}

/// The device calls, generic over the scheduler so the simulator's
/// point-to-point fast path is compiled without dynamic calls; the
/// `NetDevice` implementation below runs the very same code.
impl PointToPoint {
    /// An idle transmitter starts at once; otherwise the packet waits in the
    /// queue (or is refused by it) and one `TxDone` event at the end of the
    /// current transmission pulls the next packet.
    #[inline]
    pub fn send_on<S: DevScheduler + ?Sized>(&mut self, now: Time, id: PktId, io: &mut DevIo<S>) {
        if self.holds() {
            let p = io.pool.get(id);
            if let Some(at) = self.held_until(now, p.size, p.payload, p.flow) {
                // Back as a device timer carrying the packet's number.
                io.sched.schedule(at, DevEvent::Timer(id.0));
                return;
            }
        }
        self.enter_on(now, id, io)
    }

    /// `send_on` past the error model's hold: the packet enters the link.
    #[inline]
    fn enter_on<S: DevScheduler + ?Sized>(&mut self, now: Time, id: PktId, io: &mut DevIo<S>) {
        let p = io.pool.get(id);
        let size = p.size;
        match self.offer(now, id, size, p.is_ect(), || FlowKey::of(p)) {
            Offer::Idle => self.start_tx(now, id, size, io),
            Offer::IdleMarked => {
                io.pool.get_mut(id).ip.ecn = Ecn::Ce;
                self.start_tx(now, id, size, io)
            }
            Offer::Queued { marked } => {
                if marked {
                    io.pool.get_mut(id).ip.ecn = Ecn::Ce;
                }
                self.arm(io);
            }
            Offer::Dropped(cause) => {
                io.out.push(DevAction::Drop(id, DropReason::Queue(cause)));
                while let Some(v) = self.queue.pop_displaced() {
                    io.out.push(DevAction::Drop(v, DropReason::Queue(cause)));
                }
            }
            Offer::Displaced(cause) => {
                while let Some(v) = self.queue.pop_displaced() {
                    io.out.push(DevAction::Drop(v, DropReason::Queue(cause)));
                }
                self.arm(io);
            }
        }
    }

    #[inline]
    pub fn send_first_on<S: DevScheduler + ?Sized>(&mut self, now: Time, id: PktId, io: &mut DevIo<S>) {
        let size = io.pool.get(id).size;
        if self.idle(now) {
            self.start_tx(now, id, size, io);
        } else {
            self.note_queue(now);
            self.queue.enqueue_front(id, size);
            self.arm(io);
        }
    }

    #[inline]
    pub fn on_event_on<S: DevScheduler + ?Sized>(&mut self, now: Time, ev: DevEvent, io: &mut DevIo<S>) {
        match ev {
            DevEvent::TxDone => {
                let next = self.tx_done(now);
                if self.has_qdisc() {
                    for v in self.queue.take_dequeue_drops() {
                        io.out.push(DevAction::Drop(v, DropReason::Queue(DropCause::Codel)));
                    }
                    if let Some((id, _)) = next.filter(|_| self.queue.dequeue_marked()) {
                        io.pool.get_mut(id).ip.ecn = Ecn::Ce;
                    }
                }
                if let Some((next, size)) = next {
                    self.start_tx(now, next, size, io);
                    self.arm(io);
                }
            }
            DevEvent::Arrive(id) => {
                let p = io.pool.get(id);
                match self.arrival(now, p.size, p.payload, p.flow) {
                    Arrival::Corrupted => io.out.push(DevAction::Drop(id, DropReason::Corruption)),
                    fate => {
                        if fate == Arrival::Marked {
                            io.pool.get_mut(id).ip.ecn = Ecn::Ce;
                        }
                        io.out.push(DevAction::Deliver(self.to, id));
                    }
                }
            }
            // A packet the error model held enters the link now.
            DevEvent::Timer(id) => self.enter_on(now, PktId(id), io),
            DevEvent::FrameEnd => {}
        }
    }
}

impl NetDevice for PointToPoint {
    fn node(&self) -> NodeId {
        self.from
    }

    fn send(&mut self, now: Time, id: PktId, _next_hop: Option<NodeId>, io: &mut DevIo) {
        self.send_on(now, id, io)
    }

    fn send_first(&mut self, now: Time, id: PktId, _next_hop: Option<NodeId>, io: &mut DevIo) {
        self.send_first_on(now, id, io)
    }

    fn on_event(&mut self, now: Time, ev: DevEvent, io: &mut DevIo) {
        self.on_event_on(now, ev, io)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream_rng;
    use crate::engine::time::MS;
    use crate::net::QueuePolicy;

    fn dir(limit: u32) -> PointToPoint {
        PointToPoint::new(
            0,
            true,
            0,
            1,
            8_000_000,
            10 * MS,
            0,
            Queue::new(QueuePolicy::DropTail { limit_packets: Some(limit), limit_bytes: None }, 8_000_000),
            ErrorModel::default(),
            stream_rng(1, "e"),
            stream_rng(1, "q"),
        )
    }

    /// Idle -> transmit at once; busy -> queue with one end-of-transmission
    /// event; full -> drop; the queued packet starts when the first ends.
    #[test]
    fn steps_in_order() {
        let mut d = dir(1);
        assert_eq!(d.offer(0, PktId(1), 1000, false, FlowKey::default), Offer::Idle);
        assert_eq!(d.transmit(0, 1000), MS + 10 * MS);
        assert_eq!(d.offer(0, PktId(2), 1000, false, FlowKey::default), Offer::Queued { marked: false });
        assert_eq!(d.arm_tx_done(), Some(MS));
        assert_eq!(d.arm_tx_done(), None, "one pending event per direction");
        assert_eq!(d.offer(0, PktId(3), 1000, false, FlowKey::default), Offer::Dropped(DropCause::Overflow));
        assert_eq!(d.tx_done(MS), Some((PktId(2), 1000)), "with the size it was queued with");
        assert_eq!(d.transmit(MS, 1000), 2 * MS + 10 * MS);
        assert_eq!(d.arm_tx_done(), None, "nothing left to pull");
        assert_eq!(d.arrival(11 * MS, 1000, 960, 0), Arrival::Intact);
        assert_eq!((d.stats.packets_sent, d.stats.drops_overflow, d.stats.packets_delivered), (2, 1, 1));
    }
}
