//! Static routing: each node holds its next hop towards every destination,
//! computed once from the topology (shortest hop paths, as ns-2's static
//! routing). It never holds a packet: no route means drop.

use super::{Route, Routing, RoutingIo};
use crate::engine::Time;
use crate::net::device::DevId;
use crate::packet::{NodeId, PktId};
use std::any::Any;

const NONE: u32 = u32::MAX;

pub struct StaticRouting {
    /// (device, neighbour) per destination node; `NONE` where unreachable.
    next: Vec<(DevId, NodeId)>,
}

impl StaticRouting {
    /// `next[d]` = the device and neighbour towards destination `d`.
    pub fn new(next: Vec<Option<(DevId, NodeId)>>) -> Self {
        StaticRouting { next: next.into_iter().map(|x| x.unwrap_or((NONE, NONE))).collect() }
    }

    #[inline]
    pub fn next_hop(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.next.get(dst as usize).copied().filter(|&(d, _)| d != NONE)
    }
}

impl Routing for StaticRouting {
    #[inline]
    fn route(&mut self, _now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        match self.next_hop(io.pool.get(id).ip.dst) {
            Some((dev, next_hop)) => Route::Forward { dev, next_hop },
            None => Route::Drop,
        }
    }

    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.next_hop(dst)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
