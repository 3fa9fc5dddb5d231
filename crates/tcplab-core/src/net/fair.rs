//! The queue disciplines that keep their own packets, per flow or with
//! per-packet timestamps: DRR (ns-2's), CoDel and FQ-CoDel (Linux's).
//! `net::Queue` holds one of these in place of its FIFO; the link asks it
//! for the next packet and is told of the drops and marks made then.

use super::codel::{Codel, Dequeued};
use super::drr::Drr;
use super::fq_codel::FqCodel;
use crate::engine::Time;
use crate::packet::{Packet, PktId, Transport};

/// What a fair queue classifies a packet by: its addresses, protocol and
/// ports (0 where a packet has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct FlowKey {
    pub src: u32,
    pub dst: u32,
    /// IP protocol number (6 TCP, 17 UDP; 0 for tcplab's routing messages).
    pub proto: u8,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    pub fn of(p: &Packet) -> Self {
        let (proto, (sport, dport)) = match &p.l4 {
            Transport::Tcp(h) => (6, (h.sport, h.dport)),
            Transport::Udp(h) => (17, (h.sport, h.dport)),
            Transport::Control(_) => (0, (0, 0)),
        };
        FlowKey { src: p.ip.src, dst: p.ip.dst, proto, sport, dport }
    }

    /// A keyed 64-bit hash (two rounds of the splitmix64 finaliser over
    /// the packed tuple): the same for the same seed on every machine and
    /// Rust release, unlike std's hasher.
    pub fn hash(&self, seed: u64) -> u64 {
        fn mix(mut z: u64) -> u64 {
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        let a = mix(seed ^ ((self.src as u64) << 32 | self.dst as u64));
        mix(a ^ ((self.sport as u64) << 24 | (self.dport as u64) << 8 | self.proto as u64).wrapping_add(seed))
    }

    /// The hash scaled onto `0..n` by its upper 32 bits (Linux's
    /// reciprocal_scale()).
    pub fn scaled(&self, seed: u64, n: u32) -> u32 {
        (((self.hash(seed) >> 32) * n as u64) >> 32) as u32
    }
}

/// What a discipline holds: packets and their IP bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    pub packets: usize,
    pub bytes: u64,
}

impl Backlog {
    pub fn add(&mut self, size: u32) {
        self.packets += 1;
        self.bytes += size as u64;
    }

    pub fn remove(&mut self, size: u32) {
        self.packets -= 1;
        self.bytes -= size as u64;
    }
}

/// One of the disciplines, held by `net::Queue`.
#[derive(Clone, Debug)]
pub enum Qdisc {
    Drr(Drr),
    Codel(Codel),
    FqCodel(FqCodel),
}

impl Qdisc {
    /// Offer a packet; every packet it drops (the arrival among them if
    /// so) is appended to `dropped`.
    #[inline]
    pub fn enqueue(&mut self, now: Time, w: (PktId, u32, bool), key: &FlowKey, dropped: &mut Vec<PktId>) {
        let (id, size, ect) = w;
        match self {
            Qdisc::Drr(d) => d.enqueue(id, size, key, dropped),
            Qdisc::Codel(c) => {
                if !c.enqueue(now, id, size, ect) {
                    dropped.push(id);
                }
            }
            Qdisc::FqCodel(f) => f.enqueue(now, id, size, ect, key, dropped),
        }
    }

    /// The next packet, `mark`ed if it is to leave with CE; the packets
    /// dropped on the way (CoDel) are appended to `dropped`.
    #[inline]
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<PktId>) -> Option<Dequeued> {
        match self {
            Qdisc::Drr(d) => d.dequeue().map(|(id, size)| Dequeued {
                w: super::codel::Waiting { id, size, ect: false, since: 0 },
                mark: false,
            }),
            Qdisc::Codel(c) => c.dequeue(now, dropped),
            Qdisc::FqCodel(f) => f.dequeue(now, dropped),
        }
    }

    pub fn backlog(&self) -> Backlog {
        match self {
            Qdisc::Drr(d) => d.backlog(),
            Qdisc::Codel(c) => c.backlog(),
            Qdisc::FqCodel(f) => f.backlog(),
        }
    }

    /// ns-2 passes every packet through its queue, an idle link's too
    /// (enque then deque at once): DRR's state sees it. Linux's fq_codel
    /// and codel let it bypass an empty queue.
    pub fn sees_idle_arrivals(&self) -> bool {
        matches!(self, Qdisc::Drr(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_stable_and_keyed() {
        let k = FlowKey { src: 1, dst: 2, proto: 6, sport: 10, dport: 80 };
        assert_eq!(k.hash(5), k.hash(5));
        assert_ne!(k.hash(5), k.hash(6));
        assert_ne!(k.hash(5), FlowKey { sport: 11, ..k }.hash(5));
        // Spread: 10 000 flows over 1024 buckets fill nearly all of them.
        let mut seen = vec![0u32; 1024];
        for s in 0..10_000u16 {
            seen[FlowKey { sport: s, ..k }.scaled(3, 1024) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 0 && c < 30), "{:?}", seen.iter().max());
    }
}
