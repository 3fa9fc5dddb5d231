//! One direction of a duplex link, modelled as in Seawind: a queue, a
//! transmitter that serialises one packet at a time at `rate_bps`, a
//! propagation delay during which any number of packets are in flight, and an
//! error decision when the packet reaches the far end.

use super::{DropCause, ErrorModel, Queue, Verdict};
use crate::packet::PktId;
use crate::engine::{time::tx_time, Rng, Time};
use crate::packet::NodeId;

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

pub struct LinkDir {
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
    pub tx_event: bool,
    pub stats: DirStats,
}

impl LinkDir {
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

    // ---- The direction's steps, in the order a packet takes them. The
    // event loop that calls them (the simulator's world, or the real-time
    // emulator in crates/tcplab-emu) owns the packets and the clock.

    /// Offer a packet arriving at `now`. `Offer::Idle`: nothing is being
    /// serialised or waiting, the caller transmits it at once
    /// (`transmit`). Otherwise the queue's verdict, with the statistics kept.
    pub fn offer(&mut self, now: Time, id: PktId, size: u32, ect: bool) -> Offer {
        if self.idle(now) {
            return Offer::Idle;
        }
        self.note_queue(now);
        match self.queue.enqueue(now, id, size, ect, &mut self.queue_rng) {
            Verdict::Enqueued => Offer::Queued { marked: false },
            Verdict::Marked => {
                self.stats.ecn_marks += 1;
                Offer::Queued { marked: true }
            }
            Verdict::Dropped(cause) => {
                match cause {
                    DropCause::Overflow => self.stats.drops_overflow += 1,
                    DropCause::Red => self.stats.drops_red += 1,
                    DropCause::Soft => self.stats.drops_soft += 1,
                }
                Offer::Dropped(cause)
            }
        }
    }

    /// With packets waiting and no end-of-transmission event pending, the
    /// time at which the caller must schedule one (then call `tx_done`).
    pub fn arm_tx_done(&mut self) -> Option<Time> {
        if self.tx_event || self.queue.is_empty() {
            return None;
        }
        self.tx_event = true;
        Some(self.busy_until)
    }

    /// The transmitter is free at `now`: the next packet to `transmit`, if any.
    pub fn tx_done(&mut self, now: Time) -> Option<PktId> {
        self.tx_event = false;
        self.note_queue(now);
        self.queue.dequeue(now)
    }

    /// Serialise a packet of IP size `size` from `now`; returns the time it
    /// reaches the far end (transmission plus propagation delay).
    pub fn transmit(&mut self, now: Time, size: u32) -> Time {
        let t = self.tx_time(size);
        self.busy_until = now + t;
        self.stats.busy_ns += t;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += (size + self.framing) as u64;
        now + t + self.delay
    }

    /// The packet (IP size `size`, `payload` bytes of application data)
    /// reaches the far end at `now`: false if the error model corrupts it.
    pub fn arrives_intact(&mut self, now: Time, size: u32, payload: u32) -> bool {
        let wire = size + self.framing;
        if !self.error.is_none() && self.error.corrupts(now, wire, payload, &mut self.rng) {
            self.stats.drops_corruption += 1;
            return false;
        }
        self.stats.packets_delivered += 1;
        true
    }
}

/// What became of a packet offered to a link direction (`LinkDir::offer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// The transmitter is free and nothing waits: transmit it now.
    Idle,
    /// Waiting in the queue (`marked`: its ECN field must be set to CE).
    Queued { marked: bool },
    Dropped(DropCause),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream_rng;
    use crate::engine::time::MS;
    use crate::net::{ErrorModel, QueuePolicy};

    fn dir(limit: u32) -> LinkDir {
        LinkDir {
            link: 0,
            forward: true,
            from: 0,
            to: 1,
            rate_bps: 8_000_000,
            delay: 10 * MS,
            framing: 0,
            queue: Queue::new(QueuePolicy::DropTail { limit_packets: Some(limit), limit_bytes: None }, 8_000_000),
            error: ErrorModel::default(),
            rng: stream_rng(1, "e"),
            queue_rng: stream_rng(1, "q"),
            busy_until: 0,
            tx_event: false,
            stats: DirStats::default(),
        }
    }

    /// Idle -> transmit at once; busy -> queue with one end-of-transmission
    /// event; full -> drop; the queued packet starts when the first ends.
    #[test]
    fn steps_in_order() {
        let mut d = dir(1);
        assert_eq!(d.offer(0, PktId(1), 1000, false), Offer::Idle);
        assert_eq!(d.transmit(0, 1000), MS + 10 * MS);
        assert_eq!(d.offer(0, PktId(2), 1000, false), Offer::Queued { marked: false });
        assert_eq!(d.arm_tx_done(), Some(MS));
        assert_eq!(d.arm_tx_done(), None, "one pending event per direction");
        assert_eq!(d.offer(0, PktId(3), 1000, false), Offer::Dropped(DropCause::Overflow));
        assert_eq!(d.tx_done(MS), Some(PktId(2)));
        assert_eq!(d.transmit(MS, 1000), 2 * MS + 10 * MS);
        assert_eq!(d.arm_tx_done(), None, "nothing left to pull");
        assert!(d.arrives_intact(11 * MS, 1000, 960));
        assert_eq!((d.stats.packets_sent, d.stats.drops_overflow, d.stats.packets_delivered), (2, 1, 1));
    }
}
