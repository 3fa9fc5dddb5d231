//! A base station of a wired-cum-wireless network: a node with a radio and
//! wired links. Packets for the stations of its own cell go to the ad hoc
//! protocol that runs over its radio; every other packet (a wired node, a
//! station of another cell) follows its static routes over the links, as
//! ns-2.35's base station node hands a packet to its routing agent only
//! when the hierarchical address classifier finds it in its own domain.

use super::dsdv::Cells;
use super::{Route, Routing, RoutingIo, RoutingStats, StaticRouting};
use crate::engine::Time;
use crate::net::device::DevId;
use crate::packet::{NodeId, PktId};
use std::any::Any;

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
