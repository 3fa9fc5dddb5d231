//! Queues in front of a link direction's transmitter. The packet being
//! transmitted is held by the link, not here, so it never counts against the
//! limit (the Seawind / ns-2 convention).

use crate::packet::PktId;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    Overflow,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueuePolicy {
    /// Drop arrivals when the limit would be exceeded; `None` = no limit.
    DropTail { limit_packets: Option<u32>, limit_bytes: Option<u64> },
}

pub struct Queue {
    pub policy: QueuePolicy,
    buf: VecDeque<(PktId, u32)>,
    bytes: u64,
}

impl Queue {
    pub fn new(policy: QueuePolicy) -> Self {
        Queue { policy, buf: VecDeque::new(), bytes: 0 }
    }

    /// Offer a packet of `size` bytes. On refusal the caller drops it.
    pub fn enqueue(&mut self, id: PktId, size: u32) -> Result<(), DropCause> {
        match self.policy {
            QueuePolicy::DropTail { limit_packets, limit_bytes } => {
                if let Some(l) = limit_packets {
                    if self.buf.len() as u64 >= l as u64 {
                        return Err(DropCause::Overflow);
                    }
                }
                if let Some(l) = limit_bytes {
                    if self.bytes + size as u64 > l {
                        return Err(DropCause::Overflow);
                    }
                }
            }
        }
        self.buf.push_back((id, size));
        self.bytes += size as u64;
        Ok(())
    }

    pub fn dequeue(&mut self) -> Option<PktId> {
        let (id, size) = self.buf.pop_front()?;
        self.bytes -= size as u64;
        Some(id)
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn droptail_packet_limit() {
        let mut q = Queue::new(QueuePolicy::DropTail { limit_packets: Some(2), limit_bytes: None });
        assert!(q.enqueue(PktId(0), 100).is_ok());
        assert!(q.enqueue(PktId(1), 100).is_ok());
        assert_eq!(q.enqueue(PktId(2), 100), Err(DropCause::Overflow));
        assert_eq!(q.dequeue(), Some(PktId(0)));
        assert!(q.enqueue(PktId(3), 100).is_ok());
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 200);
    }

    #[test]
    fn droptail_byte_limit() {
        let mut q = Queue::new(QueuePolicy::DropTail { limit_packets: None, limit_bytes: Some(250) });
        assert!(q.enqueue(PktId(0), 100).is_ok());
        assert!(q.enqueue(PktId(1), 100).is_ok());
        assert!(q.enqueue(PktId(2), 100).is_err());
        assert!(q.enqueue(PktId(3), 50).is_ok());
    }

    #[test]
    fn unlimited_never_drops() {
        let mut q = Queue::new(QueuePolicy::DropTail { limit_packets: None, limit_bytes: None });
        for i in 0..10_000 {
            assert!(q.enqueue(PktId(i), 1500).is_ok());
        }
    }
}
