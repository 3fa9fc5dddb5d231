//! A node: its devices, its one routing protocol, its per-hop agents and its
//! sockets (in the shape of ns-3's Node -> NetDevice, in sans-IO form).

use crate::engine::TimerSlot;
use crate::mechanisms::Agent;
use crate::net::routing::Router;
use crate::net::DevId;
use crate::transport::socket::SockId;

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

pub struct Node {
    pub name: String,
    /// Devices this node sends through.
    pub devices: Vec<DevId>,
    pub routing: Router,
    /// Per-hop agents, shown every packet at this node in this order.
    pub agents: Vec<Box<dyn Agent>>,
    pub sockets: Vec<SockId>,
    /// The routing protocol's timer slot.
    pub routing_timer: TimerSlot,
    pub stats: NodeStats,
}

impl Node {
    pub fn new(name: String, routing: Router) -> Self {
        Node {
            name,
            devices: Vec::new(),
            routing,
            agents: Vec::new(),
            sockets: Vec::new(),
            routing_timer: TimerSlot::default(),
            stats: NodeStats::default(),
        }
    }
}
