//! A base station of a wired-cum-wireless network: a node with a radio and
//! wired links. Packets for the stations of its own cell go to the ad hoc
//! protocol that runs over its radio; every other packet (a wired node, a
//! station of another cell) follows its static routes over the links, as
//! ns-2.35's base station node hands a packet to its routing agent only
//! when the hierarchical address classifier finds it in its own domain.

use super::{Route, Routing, RoutingIo, RoutingStats, StaticRouting};
use crate::engine::Time;
use crate::net::device::DevId;
use crate::packet::{NodeId, PktId};
use std::any::Any;
use std::sync::Arc;

/// The cells of a wired-cum-wireless network, as one station sees them:
/// the base station of every node (a base station is its own; wired nodes
/// have none) and this station's own.
#[derive(Clone, Debug)]
pub struct Cells {
    pub base_station_of: Arc<[Option<NodeId>]>,
    /// This station's base station.
    pub mine: NodeId,
}

impl Cells {
    /// The base station of node `n`'s cell (None: a wired node).
    pub fn cell_of(&self, n: NodeId) -> Option<NodeId> {
        self.base_station_of.get(n as usize).copied().flatten()
    }

    /// Whether `dst` is in this station's cell (its base station included).
    pub fn holds(&self, dst: NodeId) -> bool {
        self.cell_of(dst) == Some(self.mine)
    }

    /// The node a station routes a packet for `dst` towards: `dst` inside
    /// its cell, else its base station (its default route, as a mobile
    /// node's in ns-2's hierarchical mode).
    pub fn towards(&self, dst: NodeId) -> NodeId {
        if self.holds(dst) {
            dst
        } else {
            self.mine
        }
    }

    /// The node station `me` routes a packet from `src` to `dst` towards,
    /// `has_route` saying which nodes its protocol has a route to now.
    /// Inside the cell (and at a base station, which routes only its own
    /// cell over the radio): `dst`. A packet the station sends itself: its
    /// base station (`towards`). A packet it relays for a station of
    /// another cell (cells overlap on the radio) is on one of two ways:
    /// out of the source's cell towards the source's base station, or from
    /// the destination's base station to the destination; the addresses
    /// alone cannot tell which, so it follows the routes: on to the
    /// destination when that is a station it has a route to (the base
    /// station's downlink, or a packet already bound for another cell;
    /// both end at the destination), else to the source's base station
    /// (the one the source sends it to: every relay then heads for the
    /// same node, so no two relays send it back and forth), else to the
    /// destination (a packet from the links with no route yet).
    pub fn target(&self, me: NodeId, src: NodeId, dst: NodeId, has_route: impl Fn(NodeId) -> bool) -> NodeId {
        if self.mine == me || self.holds(dst) {
            return dst;
        }
        if src == me {
            return self.mine;
        }
        if self.cell_of(dst).is_some() && has_route(dst) {
            return dst;
        }
        self.cell_of(src).unwrap_or(dst)
    }
}

pub struct Gateway {
    /// The base station's own cell (`mine` is this node).
    cells: Cells,
    /// Routes over the links, to wired nodes and to other cells' stations
    /// (through their base stations).
    wired: StaticRouting,
    /// The ad hoc protocol of the cell.
    radio: Box<dyn Routing>,
}

impl Gateway {
    pub fn new(cells: Cells, wired: StaticRouting, radio: Box<dyn Routing>) -> Self {
        Gateway { cells, wired, radio }
    }

    /// The ad hoc protocol over the radio (tests, reports).
    pub fn radio(&self) -> &dyn Routing {
        self.radio.as_ref()
    }

    fn over_radio(&self, dst: NodeId) -> bool {
        dst != self.cells.mine && self.cells.holds(dst)
    }
}

impl Routing for Gateway {
    fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        if self.over_radio(io.pool.get(id).ip.dst) {
            self.radio.route(now, id, io)
        } else {
            self.wired.route(now, id, io)
        }
    }

    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        if self.over_radio(dst) {
            self.radio.known_route(dst)
        } else {
            self.wired.known_route(dst)
        }
    }

    fn on_control(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        self.radio.on_control(now, pkt, io)
    }

    fn on_link_failure(&mut self, now: Time, dev: DevId, neighbor: NodeId, io: &mut RoutingIo) {
        self.radio.on_link_failure(now, dev, neighbor, io)
    }

    fn deadline(&self) -> Option<Time> {
        self.radio.deadline()
    }

    fn on_timer(&mut self, now: Time, io: &mut RoutingIo) {
        self.radio.on_timer(now, io)
    }

    fn flushes_on_link_failure(&self) -> bool {
        self.radio.flushes_on_link_failure()
    }

    fn salvages(&self) -> bool {
        self.radio.salvages()
    }

    fn take_back(&mut self, now: Time, failed: Option<PktId>, queued: Vec<PktId>, io: &mut RoutingIo) {
        self.radio.take_back(now, failed, queued, io)
    }

    fn listens(&self) -> bool {
        self.radio.listens()
    }

    fn on_overheard(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        self.radio.on_overheard(now, pkt, io)
    }

    fn stats(&self) -> Option<&RoutingStats> {
        self.radio.stats()
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
