//! Routing: one protocol instance per node behind the `Routing` trait. The
//! world asks it where a packet goes (`route`) and tells it what it needs to
//! know (control packets addressed to it, link failures from the MAC, its
//! timer). Like devices, a routing protocol is sans-IO: it returns what to
//! send and when it wants its timer, and never touches the event queue.
//!
//! Today's implementation is static shortest-path routing (`static_routes`);
//! DSDV, AODV, DSR and OLSR are further implementations of the same trait.

pub mod shortest;
pub mod static_routes;

pub use shortest::shortest_paths;
pub use static_routes::StaticRouting;

use super::device::DevId;
use crate::engine::Time;
use crate::packet::{NodeId, PacketPool, PktId};
use std::any::Any;

/// Where a packet goes from this node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Send it through this device to this neighbour.
    Forward { dev: DevId, next_hop: NodeId },
    /// No route yet: the protocol keeps the packet (its route discovery is
    /// under way) and hands it back later through `RoutingAction::Send`.
    Hold,
    /// No route and none to be had: drop it (counted as "no route").
    Drop,
}

/// What a routing protocol asks the world to do.
#[derive(Debug)]
pub enum RoutingAction {
    /// Send a packet (a control message or a held data packet) through a
    /// device to a neighbour (None = broadcast).
    Send { pkt: PktId, dev: DevId, next_hop: Option<NodeId> },
    /// Drop a held packet (its wait in the buffer ran out, or the buffer is full).
    DropHeld(PktId),
}

/// What a routing protocol may touch while handling a call.
pub struct RoutingIo<'a> {
    pub pool: &'a mut PacketPool,
    pub out: &'a mut Vec<RoutingAction>,
}

pub trait Routing: Any {
    /// The route for packet `id` (in `io.pool`) that this node sends or
    /// forwards. A protocol that answers `Hold` keeps the id.
    fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route;
    /// A route the protocol already knows, without side effects (no
    /// discovery): what per-hop agents may ask about.
    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)>;
    /// A control packet of this protocol was delivered to this node; the
    /// protocol consumes it.
    fn on_control(&mut self, _now: Time, _pkt: PktId, _io: &mut RoutingIo) {}
    /// The MAC reports that `neighbor` could not be reached through `dev`.
    fn on_link_failure(&mut self, _now: Time, _dev: DevId, _neighbor: NodeId, _io: &mut RoutingIo) {}
    /// The protocol's next timer deadline, if any. The world reads it after
    /// every call that may change it: a `route` that answered `Hold` or
    /// returned actions, and every other hook.
    fn deadline(&self) -> Option<Time> {
        None
    }
    fn on_timer(&mut self, _now: Time, _io: &mut RoutingIo) {}
    fn as_any(&self) -> &dyn Any;
}
