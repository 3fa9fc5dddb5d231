//! Explicit Loss Notification marking (Balakrishnan & Katz 1998) as a
//! per-hop agent. A node whose outgoing hop loses a data segment to
//! corruption notes the hole; an ACK of that connection passing back through
//! the node whose cumulative ACK is the start of such a hole reports it and
//! gets the ELN bit. Holes the ACK covers are forgotten. The ELN-aware sender
//! then retransmits without a congestion response.

use super::agent::{Agent, AgentIo, ConnKey, Verdict};
use crate::engine::Time;
use crate::packet::{NodeId, Packet, Transport};
use std::any::Any;

pub struct ElnAgent {
    /// Connections whose endpoints use ELN.
    conns: Vec<ConnKey>,
    /// Holes lost on this node's outgoing hops: (connection, start, end).
    holes: Vec<(ConnKey, u64, u64)>,
}

impl ElnAgent {
    pub fn new(conns: Vec<ConnKey>) -> Self {
        ElnAgent { conns, holes: Vec::new() }
    }
}

impl Agent for ElnAgent {
    fn on_packet(&mut self, _now: Time, _node: NodeId, p: &mut Packet, _io: &mut AgentIo) -> Verdict {
        if p.payload != 0 || self.holes.is_empty() {
            return Verdict::Pass;
        }
        let Some(key) = ConnKey::of(p) else { return Verdict::Pass };
        let Transport::Tcp(h) = &mut p.l4 else { return Verdict::Pass };
        let ack = h.ack;
        self.holes.retain(|&(k, _, end)| k != key || end > ack);
        if self.holes.iter().any(|&(k, start, _)| k == key && start == ack) {
            h.eln = true;
        }
        Verdict::Pass
    }

    fn on_loss(&mut self, _now: Time, p: &Packet) {
        if p.payload == 0 {
            return;
        }
        let (Some(key), Transport::Tcp(h)) = (ConnKey::of(p), &p.l4) else { return };
        if self.conns.contains(&key) {
            self.holes.push((key, h.seq, h.seq + p.payload as u64));
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
