//! Packet storage. Events carry a small `PktId`; the packet itself stays in
//! one slot from creation to its end (delivery or drop), so it is never cloned
//! and steady state allocates nothing.

use super::Packet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PktId(pub u32);

#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
    next_uid: u64,
}

impl PacketPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// Store a packet, giving it the next unique id.
    pub fn insert(&mut self, mut p: Packet) -> PktId {
        p.uid = self.next_uid;
        self.next_uid += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(p);
                PktId(i)
            }
            None => {
                self.slots.push(Some(p));
                PktId(self.slots.len() as u32 - 1)
            }
        }
    }

    pub fn get(&self, id: PktId) -> &Packet {
        self.slots[id.0 as usize].as_ref().expect("packet slot is empty")
    }

    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        self.slots[id.0 as usize].as_mut().expect("packet slot is empty")
    }

    /// Remove a packet at the end of its life.
    pub fn take(&mut self, id: PktId) -> Packet {
        let p = self.slots[id.0 as usize].take().expect("packet slot is empty");
        self.free.push(id.0);
        p
    }

    /// Packets created so far.
    pub fn created(&self) -> u64 {
        self.next_uid
    }

    /// Packets currently alive.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}
