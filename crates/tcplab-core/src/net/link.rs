//! One direction of a duplex link, modelled as in Seawind: a queue, a
//! transmitter that serialises one packet at a time at `rate_bps`, a
//! propagation delay during which any number of packets are in flight, and an
//! error decision when the packet reaches the far end.

use super::{ErrorModel, Queue};
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
}
