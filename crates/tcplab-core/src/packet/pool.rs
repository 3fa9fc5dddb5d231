//! Packet storage. Events carry a small `PktId`; the packet itself stays in
//! one slot from creation to its end (delivery or drop), so it is never cloned
//! and steady state allocates nothing.
//!
//! A slot may be shared: a frame broadcast on a shared channel reaches many
//! receivers, each holding a reference (`share`) to the same slot; the slot is
//! freed when the last reference is released (`take` or `release`). A
//! receiver that changes the packet (to forward it) takes its own copy with
//! `take`, which leaves the shared original untouched. Variable-length
//! message bodies (routing messages) live in the blob store beside the slots,
//! counted by the packets that name them.

use super::{BlobId, Packet, Transport};
use std::any::Any;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PktId(pub u32);

/// 128 bytes on a cache-line boundary: the packet's first line holds what
/// hops and deliveries read (see `Packet`), so a hop loads one line. (Until
/// 2026-11-29 slots were 168 bytes at any offset, three or four lines, and
/// a hop and a delivery read two or three of them.)
/// The reference count is the packet's own `refs` field, which fills the
/// padding a separate field would have doubled into a third line.
#[repr(C, align(64))]
struct Slot {
    pkt: Packet,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 128, "a slot is two cache lines");

struct Blob {
    refs: u32,
    body: Option<Box<dyn Any + Send>>,
}

/// Slots are plain values: a free slot's packet has `refs == 0` (checked in debug
/// builds, where every test runs), so reading a packet is one indexed load
/// with no `Option` to test, and storing one writes it in place.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Slot>,
    free: Vec<u32>,
    next_uid: u64,
    blobs: Vec<Blob>,
    free_blobs: Vec<u32>,
}

fn blob_of(p: &Packet) -> Option<BlobId> {
    match &p.l4 {
        Transport::Control(c) => c.blob,
        _ => None,
    }
}

impl PacketPool {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline(always)]
    pub fn insert(&mut self, mut p: Packet) -> PktId {
        p.uid = self.next_uid;
        self.next_uid += 1;
        self.store(p)
    }

    pub fn insert_copy(&mut self, p: Packet) -> PktId {
        self.store(p)
    }

    #[inline(always)]
    fn store(&mut self, mut p: Packet) -> PktId {
        if let Some(b) = blob_of(&p) {
            self.blobs[b.0 as usize].refs += 1;
        }
        p.refs = 1;
        match self.free.pop() {
            Some(i) => {
                let s = &mut self.slots[i as usize];
                debug_assert_eq!(s.pkt.refs, 0, "a free packet slot in use");
                s.pkt = p;
                PktId(i)
            }
            None => {
                self.slots.push(Slot { pkt: p });
                PktId(self.slots.len() as u32 - 1)
            }
        }
    }

    #[inline]
    fn slot_mut(&mut self, id: PktId) -> &mut Slot {
        let s = &mut self.slots[id.0 as usize];
        debug_assert!(s.pkt.refs > 0, "packet slot {} is empty", id.0);
        s
    }

    /// Start loading the line of packet `id` that a hop reads (see
    /// `engine::prefetch`): the slot's first (see `Slot`).
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        crate::engine::prefetch(self.slots.as_ptr().wrapping_add(id.0 as usize));
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        let s = &self.slots[id.0 as usize];
        debug_assert!(s.pkt.refs > 0, "packet slot {} is empty", id.0);
        &s.pkt
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        let s = self.slot_mut(id);
        debug_assert_eq!(s.pkt.refs, 1, "changing a shared packet in place");
        &mut s.pkt
    }

    /// Write `p` over packet `id` (a copy taken out and changed), keeping
    /// the slot's reference count: the count travels in the packet, and a
    /// copy's is not the slot's.
    pub fn replace(&mut self, id: PktId, mut p: Packet) {
        let s = self.get_mut(id);
        p.refs = s.refs;
        *s = p;
    }

    /// `share` `n` times over.
    pub fn share_n(&mut self, id: PktId, n: u32) {
        self.slot_mut(id).pkt.refs += n;
    }

    pub fn share(&mut self, id: PktId) -> PktId {
        self.share_n(id, 1);
        id
    }

    pub fn refs(&self, id: PktId) -> u32 {
        self.slots[id.0 as usize].pkt.refs
    }

    /// A copy of the packet, dropping this holder's reference.
    pub fn take(&mut self, id: PktId) -> Packet {
        let p = *self.get(id);
        self.release(id);
        p
    }

    #[inline]
    pub fn release(&mut self, id: PktId) {
        let s = self.slot_mut(id);
        s.pkt.refs -= 1;
        if s.pkt.refs == 0 {
            let blob = blob_of(&s.pkt);
            self.free.push(id.0);
            if let Some(b) = blob {
                self.release_blob(b);
            }
        }
    }

    pub fn insert_blob(&mut self, body: Box<dyn Any + Send>) -> BlobId {
        let b = Blob { refs: 0, body: Some(body) };
        match self.free_blobs.pop() {
            Some(i) => {
                self.blobs[i as usize] = b;
                BlobId(i)
            }
            None => {
                self.blobs.push(b);
                BlobId(self.blobs.len() as u32 - 1)
            }
        }
    }

    pub fn blob<T: 'static>(&self, id: BlobId) -> Option<&T> {
        self.blobs[id.0 as usize].body.as_ref().and_then(|b| b.downcast_ref())
    }

    fn release_blob(&mut self, id: BlobId) {
        let b = &mut self.blobs[id.0 as usize];
        b.refs -= 1;
        if b.refs == 0 {
            b.body = None;
            self.free_blobs.push(id.0);
        }
    }

    /// Packets created so far.
    pub fn created(&self) -> u64 {
        self.next_uid
    }

    /// Slots currently in use.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The packets in the slots in use. One packet can fill several slots
    /// (an 802.11 sender's copy awaiting its ACK and the receiver's), and
    /// some slots hold link frames that are not packets (RTS, CTS, ARP).
    pub fn alive(&self) -> impl Iterator<Item = (PktId, &Packet)> {
        self.slots.iter().enumerate().filter(|(_, s)| s.pkt.refs > 0).map(|(i, s)| (PktId(i as u32), &s.pkt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{ControlHeader, Transport, NO_FLOW};

    fn ctl(blob: Option<BlobId>) -> Packet {
        Packet::new(NO_FLOW, 0, 1, Transport::Control(ControlHeader { proto: 1, kind: 2, len: 24, blob }), 24, 0, 0)
    }

    #[test]
    fn shared_packet_lives_until_the_last_holder_lets_go() {
        let mut pool = PacketPool::new();
        let id = pool.insert(ctl(None));
        pool.share(id);
        pool.share(id);
        assert_eq!(pool.refs(id), 3);
        let mut copy = pool.take(id);
        copy.ip.ttl -= 1;
        assert_eq!(copy.ip.ttl, crate::packet::DEFAULT_TTL - 1);
        assert_eq!(pool.get(id).ip.ttl, crate::packet::DEFAULT_TTL, "the original is unchanged");
        pool.release(id);
        assert_eq!(pool.live(), 1);
        pool.release(id);
        assert_eq!(pool.live(), 0);
    }

    #[test]
    fn a_changed_copy_written_back_keeps_the_slots_count() {
        let mut pool = PacketPool::new();
        let id = pool.insert(ctl(None));
        let mut copy = *pool.get(id);
        copy.refs = 0; // a copy's count means nothing (here: a new packet's)
        copy.ip.ttl = 7;
        pool.replace(id, copy);
        assert_eq!((pool.refs(id), pool.get(id).ip.ttl), (1, 7));
        pool.release(id);
        assert_eq!(pool.live(), 0);
    }

    #[test]
    fn blobs_are_freed_with_the_last_packet_that_carries_them() {
        let mut pool = PacketPool::new();
        let b = pool.insert_blob(Box::new(vec![3u32, 4, 5]));
        let a = pool.insert(ctl(Some(b)));
        let c = pool.insert_copy(*pool.get(a));
        assert_eq!(pool.blob::<Vec<u32>>(b).map(|v| v.len()), Some(3));
        pool.release(a);
        assert!(pool.blob::<Vec<u32>>(b).is_some(), "the copy still carries it");
        pool.release(c);
        assert!(pool.blob::<Vec<u32>>(b).is_none());
    }

    #[test]
    fn a_copy_stored_before_the_last_release_keeps_the_body() {
        let mut pool = PacketPool::new();
        let b = pool.insert_blob(Box::new(7u8));
        let a = pool.insert(ctl(Some(b)));
        let copy = pool.insert_copy(*pool.get(a));
        pool.release(a);
        assert_eq!(pool.blob::<u8>(b), Some(&7));
        pool.release(copy);
        assert!(pool.blob::<u8>(b).is_none());
    }
}
