//! Packets from outside the simulation: the emulator's way of carrying a
//! real TCP stack's packets through a simulated network (802.11 stations,
//! ad hoc routing) in real time. It hands each packet in at its source node
//! (`inject`), runs the world up to the wall clock (`step_until`), and takes
//! back the packets that reached their destination (`take_delivered`):
//! addressed to a node with no socket for them, they are handed out there
//! instead of being dropped. Nothing here runs in a simulation of its own.

use super::World;
use crate::engine::Time;
use crate::output::RunResult;
use crate::packet::{Ecn, NodeId, Packet, Transport, UdpHeader, IP_HEADER, NO_FLOW, UDP_HEADER};

/// What an external packet looks like to the network: an IP packet of its
/// real size between two nodes. Its ports stand for the real ones (no
/// socket binds them), and its payload is what the real packet carries.
#[derive(Clone, Copy, Debug)]
pub struct ExternalPacket {
    pub src: NodeId,
    pub dst: NodeId,
    /// The real IP packet's size in bytes (at least the IP and UDP headers).
    pub size: u32,
    pub payload: u32,
    pub sport: u16,
    pub dport: u16,
    /// ECN-capable (ECT): a RED queue on the way marks it instead of
    /// dropping it early.
    pub ect: bool,
}

/// A packet that reached its destination node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub at: Time,
    pub uid: u64,
    /// Marked CE on the way.
    pub ce: bool,
}

impl World {
    /// Hand packets that reach a node without a socket for them out
    /// (`take_delivered`) instead of dropping them.
    pub fn accept_external(&mut self) {
        self.external.get_or_insert_with(Vec::new);
    }

    /// Put a packet into the network at its source node at `now` (no
    /// earlier than the world's clock); its uid, by which it comes back.
    pub fn inject(&mut self, now: Time, x: ExternalPacket) -> u64 {
        self.prime();
        self.q.advance_to(now);
        let now = self.q.now();
        let l4 = Transport::Udp(UdpHeader { sport: x.sport, dport: x.dport, ..Default::default() });
        let mut p = Packet::new(NO_FLOW, x.src, x.dst, l4, UDP_HEADER, x.payload, now);
        p.size = x.size.max(IP_HEADER + UDP_HEADER);
        if x.ect {
            p.ip.ecn = Ecn::Ect0;
        }
        let id = self.pool.insert(p);
        let uid = self.pool.get(id).uid;
        self.at_node(now, x.src, id);
        uid
    }

    /// Run every event due at or before `t` and move the clock to `t`.
    pub fn step_until(&mut self, t: Time) {
        self.run_until(t);
        self.q.advance_to(t.min(self.duration));
    }

    /// When the next event is due (None: nothing pending).
    pub fn next_due(&mut self) -> Option<Time> {
        self.q.next_due()
    }

    /// The packets delivered since the last call, in order.
    pub fn take_delivered(&mut self) -> Vec<Delivered> {
        self.external.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// A packet with no socket at its destination node: handed out when
    /// external packets are accepted (false: the caller drops it).
    pub(super) fn hand_out(&mut self, now: Time, uid: u64, ce: bool) -> bool {
        match &mut self.external {
            Some(out) => {
                out.push(Delivered { at: now, uid, ce });
                true
            }
            None => false,
        }
    }

    /// The run's tables at `end` (the nodes' 802.11 and routing counters, the
    /// links), as a simulated run of that length reports them.
    pub fn report_at(mut self, end: Time, wall_s: f64) -> std::io::Result<RunResult> {
        self.duration = end;
        self.q.advance_to(end);
        super::report::build(&mut self, wall_s)
    }
}
