//! The Snoop agent of a base station node: one `SnoopConn` per TCP
//! connection passing through, created at its SYN or, without one, at its
//! first data segment, each with its own local retransmission timer (timer
//! token = connection index).

use super::agent::{Agent, AgentAction, AgentIo, ConnKey, Verdict};
use super::snoop::{AckAction, SnoopConn};
use crate::engine::{Time, TimerSlot};
use crate::packet::{flags, NodeId, Packet, TcpHeader, Transport};
use std::any::Any;

#[derive(Default)]
pub struct SnoopAgent {
    pub conns: Vec<(ConnKey, SnoopConn, TimerSlot)>,
}

impl SnoopAgent {
    fn index(&self, key: &ConnKey) -> Option<usize> {
        self.conns.iter().position(|(k, _, _)| k == key)
    }

    /// The statistics of one connection's Snoop state, if it passed here.
    pub fn conn(&self, key: &ConnKey) -> Option<&SnoopConn> {
        self.index(key).map(|i| &self.conns[i].1)
    }

    /// The connection of a SYN (flags SYN without ACK) from the data
    /// sender: it carries no payload, so `ConnKey::of` would take it for an
    /// ACK going the other way.
    fn syn_key(p: &Packet, h: &TcpHeader) -> Option<ConnKey> {
        (p.payload == 0 && h.flags & (flags::SYN | flags::ACK) == flags::SYN).then_some(ConnKey {
            src: p.ip.src,
            sport: h.sport,
            dst: p.ip.dst,
            dport: h.dport,
        })
    }

    fn retransmit(&mut self, idx: usize, seq: u64, io: &mut AgentIo) {
        if let Some(copy) = self.conns[idx].1.take_for_rxmit(seq) {
            io.out.push(AgentAction::SendFirst(copy));
        }
    }
}

impl Agent for SnoopAgent {
    fn on_packet(&mut self, now: Time, node: NodeId, p: &mut Packet, io: &mut AgentIo) -> Verdict {
        if p.ip.dst == node {
            return Verdict::Pass;
        }
        let Transport::Tcp(h) = p.l4 else { return Verdict::Pass };
        let syn = Self::syn_key(p, &h);
        let key = syn.unwrap_or_else(|| ConnKey::of(p).expect("a TCP packet"));
        if node == key.src {
            return Verdict::Pass; // the fixed host itself
        }
        // Snoop caches only while the queue towards the mobile has room, so
        // that congestion still shows to the sender (as in ns-2).
        let Some(room) = (io.room_towards)(key.dst) else { return Verdict::Pass };
        let idx = match self.index(&key) {
            Some(i) => i,
            // A connection starts with its SYN or, without one, its first
            // data segment: an ACK is of no connection seen here.
            None if p.payload == 0 && syn.is_none() => return Verdict::Pass,
            None => {
                self.conns.push((key, SnoopConn::default(), TimerSlot::default()));
                self.conns.len() - 1
            }
        };
        let conn = &mut self.conns[idx].1;
        if syn.is_some() {
            conn.on_syn(p, h.seq, room);
            return Verdict::Pass;
        }
        if h.flags & flags::SYN != 0 {
            // The SYN's answer: never suppressed.
            conn.on_syn_ack(now, h.ack);
            io.out.push(AgentAction::Timer(idx as u32));
            return Verdict::Pass;
        }
        if p.payload > 0 {
            conn.on_data(p, h.seq, room);
            io.out.push(AgentAction::Timer(idx as u32));
            return Verdict::Pass;
        }
        let verdict = match conn.on_ack(now, h.ack) {
            AckAction::Forward => Verdict::Pass,
            AckAction::Suppress => Verdict::Consume,
            AckAction::Retransmit(seq) => {
                self.retransmit(idx, seq, io);
                Verdict::Consume
            }
        };
        io.out.push(AgentAction::Timer(idx as u32));
        verdict
    }

    fn on_transmit(&mut self, now: Time, p: &Packet, io: &mut AgentIo) {
        let Transport::Tcp(h) = p.l4 else { return };
        if let Some(key) = Self::syn_key(p, &h) {
            if let Some(idx) = self.index(&key) {
                self.conns[idx].1.on_syn_transmit(now);
                io.out.push(AgentAction::Timer(idx as u32));
            }
            return;
        }
        if p.payload == 0 {
            return;
        }
        let key = ConnKey::of(p).expect("a TCP packet");
        if let Some(idx) = self.index(&key) {
            self.conns[idx].1.on_transmit(now, h.seq);
            io.out.push(AgentAction::Timer(idx as u32));
        }
    }

    fn deadline(&self, token: u32) -> Option<Time> {
        self.conns.get(token as usize).and_then(|c| c.1.deadline())
    }

    fn timer_slot(&mut self, token: u32) -> Option<&mut TimerSlot> {
        self.conns.get_mut(token as usize).map(|c| &mut c.2)
    }

    fn on_timer(&mut self, now: Time, token: u32, io: &mut AgentIo) {
        let idx = token as usize;
        if let Some(copy) = self.conns[idx].1.syn_timer(now) {
            io.out.push(AgentAction::SendFirst(copy));
        } else if let Some(seq) = self.conns[idx].1.on_timer(now) {
            self.retransmit(idx, seq, io);
        }
        io.out.push(AgentAction::Timer(token));
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
