//! ns-2.35's ARP (mac/arp.cc), for the ns2 profile (`[wireless.mac]
//! ns2_arp`). tcplab's stations know each other's addresses; ns-2's link
//! layer resolves a next hop the first time it sends to it, and what that
//! costs shows with a saturating source (docs/validation.md, "Saturating
//! UDP over the chains").
//!
//! As ns-2 does it: a unicast packet for a neighbour not yet resolved is
//! held (one per neighbour; a packet arriving meanwhile drops the held one
//! and takes its place) and each such packet sends a broadcast ARP request;
//! after three requests the held packet and the new one go back as link
//! failures (ns-2's `xmit_failure_` callback) and the count starts again.
//! Every station that decodes an ARP packet learns its sender (so one
//! request resolves the requester at all its neighbours) and sends what it
//! held for it; the station asked answers with a unicast reply. Entries
//! never expire. ARP packets are 28 bytes, queued behind the data (ns-2's
//! `PT_ARP` has no priority), and are not network packets: they are never
//! handed to routing.

use crate::engine::Time;
use crate::packet::{ControlHeader, NodeId, Packet, PktId, Transport, NO_FLOW};

/// `ControlHeader::proto` of ARP packets (never seen above the MAC).
pub const PROTO_ARP: u16 = 0x0806;
/// ns-2's ARP_HDR_LEN.
pub const ARP_LEN: u32 = 28;
pub const REQUEST: u16 = 1;
pub const REPLY: u16 = 2;
/// ns-2's ARP_MAX_REQUEST_COUNT.
const MAX_REQUESTS: u8 = 3;

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    up: bool,
    hold: Option<PktId>,
    count: u8,
}

/// What to do with a unicast packet for a neighbour.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolve {
    /// Resolved: send it.
    Send,
    /// Held; `displaced` was held before and is dropped; a request goes.
    Held { displaced: Option<PktId> },
    /// Three requests went unanswered: these packets (the one held, then
    /// this one) fail as over a broken link.
    Failed(Vec<PktId>),
}

#[derive(Debug, Default)]
pub struct ArpTable {
    entries: Vec<(NodeId, Entry)>,
}

impl ArpTable {
    fn entry(&mut self, n: NodeId) -> &mut Entry {
        let i = match self.entries.iter().position(|e| e.0 == n) {
            Some(i) => i,
            None => {
                self.entries.push((n, Entry::default()));
                self.entries.len() - 1
            }
        };
        &mut self.entries[i].1
    }

    /// A unicast packet `pkt` for neighbour `to` (ns-2's `arpresolve`).
    pub fn resolve(&mut self, to: NodeId, pkt: PktId) -> Resolve {
        let e = self.entry(to);
        if e.up {
            return Resolve::Send;
        }
        if e.count >= MAX_REQUESTS {
            e.count = 0;
            return Resolve::Failed(e.hold.take().into_iter().chain([pkt]).collect());
        }
        e.count += 1;
        Resolve::Held { displaced: e.hold.replace(pkt) }
    }

    /// An ARP packet from `from` decoded here (ns-2's `arpinput`): `from`
    /// is resolved; the packet held for it, if any, goes now.
    pub fn learn(&mut self, from: NodeId) -> Option<PktId> {
        let e = self.entry(from);
        e.up = true;
        e.hold.take()
    }

    #[cfg(test)]
    fn resolved(&self, n: NodeId) -> bool {
        self.entries.iter().any(|e| e.0 == n && e.1.up)
    }
}

/// An ARP packet from `me`: a request for `target`'s address, or a reply
/// to `target`.
pub fn packet(me: NodeId, target: NodeId, op: u16, now: Time) -> Packet {
    let mut p = Packet::new(
        NO_FLOW,
        me,
        target,
        Transport::Control(ControlHeader { proto: PROTO_ARP, kind: op, len: 0, blob: None }),
        0,
        0,
        now,
    );
    p.size = ARP_LEN;
    p
}

/// The (operation, target) of an ARP packet.
pub fn fields(p: &Packet) -> Option<(u16, NodeId)> {
    match &p.l4 {
        Transport::Control(c) if c.proto == PROTO_ARP => Some((c.kind, p.ip.dst)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_neighbour_is_resolved_by_any_arp_packet_from_it() {
        let mut t = ArpTable::default();
        assert_eq!(t.resolve(7, PktId(1)), Resolve::Held { displaced: None });
        assert!(!t.resolved(7));
        assert_eq!(t.learn(7), Some(PktId(1)), "the held packet goes");
        assert_eq!(t.resolve(7, PktId(2)), Resolve::Send);
        assert_eq!(t.learn(9), None, "a request from 9 resolves 9 here too");
        assert!(t.resolved(9));
    }

    /// One packet held at a time; the fourth packet, after three requests,
    /// fails with the one held, and the count starts again.
    #[test]
    fn three_requests_then_the_held_packet_and_the_new_one_fail() {
        let mut t = ArpTable::default();
        assert_eq!(t.resolve(3, PktId(1)), Resolve::Held { displaced: None });
        assert_eq!(t.resolve(3, PktId(2)), Resolve::Held { displaced: Some(PktId(1)) });
        assert_eq!(t.resolve(3, PktId(3)), Resolve::Held { displaced: Some(PktId(2)) });
        assert_eq!(t.resolve(3, PktId(4)), Resolve::Failed(vec![PktId(3), PktId(4)]));
        assert_eq!(t.resolve(3, PktId(5)), Resolve::Held { displaced: None });
    }
}
