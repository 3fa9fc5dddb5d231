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

pub use shortest::{shortest_paths, shortest_paths_to};
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

pub trait Routing: Any + Send {
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

/// A node's routing protocol: static routing stored inline so the
/// simulator's per-hop lookup is a direct call, or any other protocol behind
/// the trait. The methods forward to the protocol.
pub enum Router {
    Static(StaticRouting),
    Other(Box<dyn Routing>),
}

impl Router {
    pub fn as_dyn(&self) -> &dyn Routing {
        match self {
            Router::Static(r) => r,
            Router::Other(r) => r.as_ref(),
        }
    }

    pub fn as_dyn_mut(&mut self) -> &mut dyn Routing {
        match self {
            Router::Static(r) => r,
            Router::Other(r) => r.as_mut(),
        }
    }

    #[inline]
    pub fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        match self {
            Router::Static(r) => r.route(now, id, io),
            Router::Other(r) => r.route(now, id, io),
        }
    }

    pub fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.as_dyn().known_route(dst)
    }

    pub fn deadline(&self) -> Option<Time> {
        self.as_dyn().deadline()
    }

    pub fn on_timer(&mut self, now: Time, io: &mut RoutingIo) {
        self.as_dyn_mut().on_timer(now, io)
    }

    pub fn on_control(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        self.as_dyn_mut().on_control(now, pkt, io)
    }

    pub fn on_link_failure(&mut self, now: Time, dev: DevId, neighbor: NodeId, io: &mut RoutingIo) {
        self.as_dyn_mut().on_link_failure(now, dev, neighbor, io)
    }
}
