//! A node: its devices, its one routing protocol, its per-hop agents and its
//! sockets (in the shape of ns-3's Node -> NetDevice, in sans-IO form).

use crate::engine::TimerSlot;
use crate::mechanisms::Agent;
use crate::net::routing::Router;
use crate::net::DevId;
use crate::transport::socket::SockId;
use smallvec::SmallVec;

#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    /// Packets dropped because routing had no route.
    pub drops_no_route: u64,
    /// Packets dropped because their TTL ran out here.
    pub drops_ttl: u64,
    /// Packets addressed here that no socket was bound to.
    pub drops_no_socket: u64,
    /// Link failures the MAC reported for a neighbour that was within
    /// receive range by geometry, its radio on (false route failures).
    pub false_link_failures: u64,
    /// Packets taken out of the interface queue because their next hop's
    /// link failed (protocols that do so, as ns-2's AODV).
    pub drops_link_broken: u64,
}

/// The fields every packet at a node reads (its agents, its sockets, its
/// routing) come first, and the node starts a cache line, so the line the
/// run loop prefetches one event ahead (`World::prefetch_next`) is the one
/// with the agents and sockets. Rust's own order had them across up to
/// three lines of a 216-byte stride, and the prefetched middle line missed
/// the agents' length for three nodes in eight (perf at 1000 flows: a
/// tenth of the delivery path's samples on that load). With the socket
/// numbers held in the node (below), 10 and 100 flows ran 1-2 % faster
/// (paired alternating runs, 2026-11-29) and 1000 flows the same within
/// noise; prefetching the second line as well made 1000 flows 7 % slower.
#[repr(C, align(64))]
pub struct Node {
    /// Per-hop agents, shown every packet at this node in this order.
    pub agents: Vec<Box<dyn Agent>>,
    /// Held in the node (hosts have one or two): a delivery reads the
    /// socket numbers from the node's line instead of following a pointer
    /// to a list elsewhere, one dependent cache miss fewer.
    pub sockets: SmallVec<[SockId; 4]>,
    pub routing: Router,
    /// Devices this node sends through.
    pub devices: Vec<DevId>,
    /// The routing protocol's timer slot.
    pub routing_timer: TimerSlot,
    pub name: String,
    pub stats: NodeStats,
}

impl Node {
    pub fn new(name: String, routing: Router) -> Self {
        Node {
            name,
            devices: Vec::new(),
            routing,
            agents: Vec::new(),
            sockets: SmallVec::new(),
            routing_timer: TimerSlot::default(),
            stats: NodeStats::default(),
        }
    }
}
