//! An 802.11 station's interface queue, as ns-2.35's two kinds behave.
//!
//! - `priqueue` (ns-2's Queue/DropTail/PriQueue, what its AODV, DSDV and
//!   static scenarios use): one drop-tail queue; routing messages go to its
//!   head.
//! - `cmupriqueue` (ns-2's CMUPriQueue, queue/dsr-priqueue.cc, which its
//!   DSR requires): strict-priority bands, each a drop-tail queue with its
//!   own limit, served in order: routing messages, then TCP ACKs (its
//!   `PT_ACK` band, IFQ_LOWDELAY: what a TCP sink sends), then everything
//!   else. So on a chain a forwarder's ACKs overtake the data segments
//!   waiting beside them. (Its real-time band holds ns-2's audio and video
//!   packet types, which tcplab has not.)
//!
//! `limit` counts the packets waiting, as on links. With `ns2_limits` the
//! PriQueue counts as ns-2.35's does instead: at most `limit` - 1 packets
//! wait (its DropTail drops an arrival when length + 1 >= limit), and a
//! routing message is never refused: it goes to the head, and the last
//! packet is dropped if the queue then holds `limit` (PriQueue::
//! recvHighPriority). (CMUPriQueue's bands hold `limit` packets in ns-2
//! too.)

use crate::engine::{Rng, Time};
use crate::net::{DropCause, Queue, QueuePolicy, Verdict};
use crate::packet::PktId;

/// Which interface queue, from the scenario's `[wireless] ifq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfqKind {
    Pri,
    Cmu,
}

/// What a packet is to the interface queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A routing protocol's message.
    Routing,
    /// A TCP segment without payload that acknowledges (ns-2's `PT_ACK`).
    Ack,
    Other,
}

/// What became of an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    Queued,
    /// Refused: the caller drops it.
    Refused(DropCause),
    /// Queued, and this packet, the last in the queue, pushed out
    /// (`ns2_limits`): the caller drops that one.
    PushedOut(PktId),
}

pub struct InterfaceQueue {
    kind: IfqKind,
    /// One band (`Pri`), or routing, ACK and other bands (`Cmu`).
    bands: Vec<Queue>,
    /// ns-2.35's PriQueue counting (`Pri` only; the bands then hold
    /// `limit` - 1 packets and routing messages push out).
    ns2_limits: bool,
    /// Its length over time, all bands together, as links keep theirs.
    pub occupancy: Occupancy,
}

/// A queue's length over time: its time integral (packets x ns) and its
/// maximum, brought up to date before and after each change.
#[derive(Clone, Copy, Debug, Default)]
pub struct Occupancy {
    area: f64,
    last: Time,
    max: usize,
}

impl Occupancy {
    /// Before a change at `now`: the length `len` held since the last one.
    #[inline]
    fn hold(&mut self, now: Time, len: usize) {
        self.area += now.saturating_sub(self.last) as i64 as f64 * len as f64;
        self.last = now;
    }

    /// After a change: the length it left.
    #[inline]
    fn reach(&mut self, len: usize) {
        self.max = self.max.max(len);
    }

    /// The most packets queued at once.
    pub fn max(&self) -> usize {
        self.max
    }

    /// The time-average length over a run of length `dur`, the queue
    /// holding `len` packets from the last change to its end.
    pub fn mean(&self, dur: Time, len: usize) -> f64 {
        if dur == 0 {
            return 0.0;
        }
        let area = self.area + dur.saturating_sub(self.last) as i64 as f64 * len as f64;
        area / dur as f64
    }
}

impl InterfaceQueue {
    pub fn new(kind: IfqKind, limit: u32, ns2_limits: bool, rate_bps: u64) -> Self {
        let n = match kind {
            IfqKind::Pri => 1,
            IfqKind::Cmu => 3,
        };
        let ns2_limits = ns2_limits && kind == IfqKind::Pri;
        let held = if ns2_limits { limit.saturating_sub(1) } else { limit };
        let band = || Queue::new(QueuePolicy::DropTail { limit_packets: Some(held), limit_bytes: None }, rate_bps);
        InterfaceQueue { kind, bands: (0..n).map(|_| band()).collect(), ns2_limits, occupancy: Occupancy::default() }
    }

    pub fn kind(&self) -> IfqKind {
        self.kind
    }

    /// Whether the PriQueue is counted as ns-2.35's (`ns2_limits`).
    pub fn ns2_limits(&self) -> bool {
        self.ns2_limits
    }

    fn band(&self, class: Class) -> usize {
        match (self.kind, class) {
            (IfqKind::Pri, _) | (IfqKind::Cmu, Class::Routing) => 0,
            (IfqKind::Cmu, Class::Ack) => 1,
            (IfqKind::Cmu, Class::Other) => 2,
        }
    }

    /// Queue a packet. `Pri` puts a routing message at its head, refused
    /// only by a full queue (with `ns2_limits` never: the last packet goes
    /// instead); `first` (a local retransmission) goes to the head of its
    /// band when that leaves room (`Queue::has_room`, as on a link).
    /// Otherwise the band's drop-tail verdict.
    pub fn offer(&mut self, now: Time, pkt: PktId, size: u32, class: Class, first: bool, rng: &mut Rng) -> Offered {
        self.occupancy.hold(now, self.len());
        let offered = self.offer_to_band(now, pkt, size, class, first, rng);
        self.occupancy.reach(self.len());
        offered
    }

    fn offer_to_band(&mut self, now: Time, pkt: PktId, size: u32, class: Class, first: bool, rng: &mut Rng) -> Offered {
        let b = self.band(class);
        let q = &mut self.bands[b];
        let routing_first = self.kind == IfqKind::Pri && class == Class::Routing;
        if first || routing_first {
            let refused = if first { !q.has_room() } else { !self.ns2_limits && q.is_full() };
            if refused {
                return Offered::Refused(DropCause::Overflow);
            }
            q.enqueue_front(pkt, size);
            if q.len() > q.limit().unwrap_or(usize::MAX) {
                // (Only `ns2_limits` lets a routing message in past the limit.)
                let last = q.pop_back(now).expect("a packet past the limit");
                return Offered::PushedOut(last);
            }
            return Offered::Queued;
        }
        match q.enqueue(now, pkt, size, false, rng) {
            Verdict::Dropped(cause) => Offered::Refused(cause),
            // (Drop-tail bands never mark nor displace.)
            Verdict::Enqueued | Verdict::Marked | Verdict::Displaced(_) => Offered::Queued,
        }
    }

    /// The next packet to send: the head of the first band holding one.
    #[inline]
    pub fn dequeue(&mut self, now: Time) -> Option<PktId> {
        self.occupancy.hold(now, self.len());
        self.bands.iter_mut().find(|q| !q.is_empty())?.dequeue(now)
    }

    /// Whether a data packet could join (the band ordinary packets use).
    pub fn has_room(&self) -> bool {
        self.data_band().has_room()
    }

    /// The band ordinary packets use (the whole queue for `Pri`).
    pub fn data_band(&self) -> &Queue {
        &self.bands[self.bands.len() - 1]
    }

    /// Take out every queued packet `pick` chooses, band by band in service
    /// order (ns-2's `prq_get_nexthop`, called until it finds none).
    pub fn remove_where(&mut self, now: Time, mut pick: impl FnMut(PktId) -> bool) -> Vec<PktId> {
        self.occupancy.hold(now, self.len());
        let mut out = Vec::new();
        for q in &mut self.bands {
            out.extend(q.remove_where(now, &mut pick));
        }
        out
    }

    pub fn len(&self) -> usize {
        self.bands.iter().map(Queue::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.bands.iter().all(Queue::is_empty)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream_rng;

    fn offer(q: &mut InterfaceQueue, id: u32, class: Class) -> Offered {
        q.offer(0, PktId(id), 100, class, false, &mut stream_rng(1, "ifq"))
    }

    fn drain(q: &mut InterfaceQueue) -> Vec<u32> {
        std::iter::from_fn(|| q.dequeue(0)).map(|p| p.0).collect()
    }

    #[test]
    fn priqueue_puts_routing_messages_at_the_head_of_one_queue() {
        let mut q = InterfaceQueue::new(IfqKind::Pri, 4, false, 1_000_000);
        offer(&mut q, 1, Class::Other);
        offer(&mut q, 2, Class::Ack);
        offer(&mut q, 3, Class::Routing);
        assert!(matches!(offer(&mut q, 4, Class::Routing), Offered::Queued), "refused only by a full queue");
        assert!(matches!(offer(&mut q, 5, Class::Ack), Offered::Refused(DropCause::Overflow)), "one limit for all");
        assert!(matches!(offer(&mut q, 6, Class::Routing), Offered::Refused(DropCause::Overflow)));
        assert_eq!(q.len(), 4);
        assert_eq!(drain(&mut q), vec![4, 3, 1, 2], "ACKs wait behind the data");
    }

    #[test]
    fn cmupriqueue_serves_routing_then_acks_then_the_rest_each_with_its_own_limit() {
        let mut q = InterfaceQueue::new(IfqKind::Cmu, 2, false, 1_000_000);
        for (id, class) in [(1, Class::Other), (2, Class::Ack), (3, Class::Other), (4, Class::Routing), (5, Class::Ack)]
        {
            assert!(matches!(offer(&mut q, id, class), Offered::Queued));
        }
        assert!(matches!(offer(&mut q, 6, Class::Other), Offered::Refused(DropCause::Overflow)), "data band full");
        assert!(matches!(offer(&mut q, 7, Class::Routing), Offered::Queued), "its own band has room");
        assert!(!q.has_room(), "room is the data band's");
        // Routing messages join their band's tail (ns-2's CMUPriQueue has no head insertion).
        assert_eq!(drain(&mut q), vec![4, 7, 2, 5, 1, 3]);
        assert!(q.is_empty());
    }

    #[test]
    fn packets_for_a_lost_neighbour_come_back_band_by_band() {
        let mut q = InterfaceQueue::new(IfqKind::Cmu, 10, false, 1_000_000);
        for (id, class) in [(1, Class::Other), (2, Class::Ack), (3, Class::Other), (4, Class::Routing), (5, Class::Ack)]
        {
            offer(&mut q, id, class);
        }
        let taken: Vec<u32> = q.remove_where(0, |id| id.0 != 3).iter().map(|p| p.0).collect();
        assert_eq!(taken, vec![4, 2, 5, 1]);
        assert_eq!(drain(&mut q), vec![3]);
    }

    #[test]
    fn a_local_retransmission_goes_to_the_head_of_its_band() {
        let mut q = InterfaceQueue::new(IfqKind::Cmu, 10, false, 1_000_000);
        offer(&mut q, 1, Class::Other);
        offer(&mut q, 2, Class::Ack);
        q.offer(0, PktId(3), 100, Class::Other, true, &mut stream_rng(1, "ifq"));
        assert_eq!(drain(&mut q), vec![2, 3, 1]);
    }

    /// ns-2.35's PriQueue with qlim 4: three packets wait at most, and a
    /// routing message pushes the last one out instead of being refused.
    #[test]
    fn ns2_limits_count_the_priqueue_as_ns2_does() {
        let mut q = InterfaceQueue::new(IfqKind::Pri, 4, true, 1_000_000);
        for id in 1..=3 {
            assert_eq!(offer(&mut q, id, Class::Other), Offered::Queued);
        }
        assert_eq!(offer(&mut q, 4, Class::Ack), Offered::Refused(DropCause::Overflow), "length + 1 >= limit");
        assert_eq!(offer(&mut q, 5, Class::Routing), Offered::PushedOut(PktId(3)));
        assert_eq!(offer(&mut q, 6, Class::Routing), Offered::PushedOut(PktId(2)));
        assert_eq!(drain(&mut q), vec![6, 5, 1]);
        // The CMU queue holds `limit` per band in ns-2 too: no change.
        let mut c = InterfaceQueue::new(IfqKind::Cmu, 2, true, 1_000_000);
        assert_eq!(
            (offer(&mut c, 1, Class::Other), offer(&mut c, 2, Class::Other)),
            (Offered::Queued, Offered::Queued)
        );
    }

    #[test]
    fn occupancy_is_the_length_weighted_by_the_time_it_held() {
        let mut q = InterfaceQueue::new(IfqKind::Cmu, 2, false, 1_000_000);
        let mut rng = stream_rng(1, "ifq");
        // 0..10: empty; 10..30: 2 packets (a routing message in its band);
        // 30..35: 1; 35..40: 2 (a second offer at 35 is refused and changes
        // nothing); 40..100: 1, one taken out for a lost neighbour.
        q.offer(10, PktId(1), 100, Class::Other, false, &mut rng);
        q.offer(10, PktId(2), 100, Class::Routing, false, &mut rng);
        q.dequeue(30);
        q.offer(35, PktId(3), 100, Class::Other, false, &mut rng);
        assert!(matches!(q.offer(35, PktId(4), 100, Class::Other, false, &mut rng), Offered::Refused(_)));
        assert_eq!(q.len(), 2);
        q.remove_where(40, |id| id.0 == 3);
        assert_eq!(q.occupancy.max(), 2);
        let want = (2.0 * 20.0 + 1.0 * 5.0 + 2.0 * 5.0 + 1.0 * 60.0) / 100.0;
        assert!((q.occupancy.mean(100, q.len()) - want).abs() < 1e-12);
    }
}
