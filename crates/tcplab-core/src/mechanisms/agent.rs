//! Per-hop agents: mechanisms attached to a node that see the packets passing
//! through it (Snoop, ELN marking; later split connections). Sans-IO like
//! every protocol here: an agent is shown a packet, a transmission, a loss or
//! its timer and answers with a verdict and actions; the world carries them
//! out. Agents see packets in the order they were attached to the node.

use crate::engine::{Time, TimerSlot};
use crate::packet::{NodeId, Packet, Transport};
use std::any::Any;

/// A TCP connection as a per-hop agent knows it: the data sender's and
/// receiver's addresses and ports (ACKs travel the other way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConnKey {
    pub src: NodeId,
    pub sport: u16,
    pub dst: NodeId,
    pub dport: u16,
}

impl ConnKey {
    /// The connection of a TCP packet. Data segments carry payload and go
    /// from the data sender; pure ACKs go the other way (connections here
    /// carry data one way, as ns-2's one-way TCP agents).
    pub fn of(p: &Packet) -> Option<ConnKey> {
        let Transport::Tcp(h) = &p.l4 else { return None };
        Some(if p.payload > 0 {
            ConnKey { src: p.ip.src, sport: h.sport, dst: p.ip.dst, dport: h.dport }
        } else {
            ConnKey { src: p.ip.dst, sport: h.dport, dst: p.ip.src, dport: h.sport }
        })
    }
}

/// What an agent does with a packet it was shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let it continue (to delivery or forwarding).
    Pass,
    /// The agent consumed it (e.g. a suppressed duplicate ACK).
    Consume,
}

/// What an agent asks the world to do, in order.
#[derive(Clone, Copy, Debug)]
pub enum AgentAction {
    /// Send this new packet from the agent's node towards its destination,
    /// ahead of the packets queued there (a local retransmission).
    SendFirst(Packet),
    /// The deadline of the agent's timer `token` may have changed.
    Timer(u32),
}

/// What an agent may use while handling a call.
pub struct AgentIo<'a> {
    pub out: &'a mut Vec<AgentAction>,
    /// Whether the device towards a destination has room in its queue
    /// (None: no route from this node, or, at a node with a radio, a
    /// route that does not leave on it).
    pub room_towards: &'a dyn Fn(NodeId) -> Option<bool>,
}

pub trait Agent: Any + Send {
    /// A packet is at the agent's node `node`: created here, arrived to be
    /// forwarded, or arrived for delivery here.
    fn on_packet(&mut self, now: Time, node: NodeId, pkt: &mut Packet, io: &mut AgentIo) -> Verdict;
    /// A packet starts its transmission on a device of this node.
    fn on_transmit(&mut self, _now: Time, _pkt: &Packet, _io: &mut AgentIo) {}
    /// A packet this node sent was lost on the medium (corruption).
    fn on_loss(&mut self, _now: Time, _pkt: &Packet) {}
    /// Deadline of timer `token`, and the slot the world keeps for it.
    fn deadline(&self, _token: u32) -> Option<Time> {
        None
    }
    fn timer_slot(&mut self, _token: u32) -> Option<&mut TimerSlot> {
        None
    }
    fn on_timer(&mut self, _now: Time, _token: u32, _io: &mut AgentIo) {}
    fn as_any(&self) -> &dyn Any;
}
