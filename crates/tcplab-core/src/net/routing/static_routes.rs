//! Static routing: each node holds its next hop towards every destination,
//! computed once from the topology (shortest hop paths, as ns-2's static
//! routing). It never holds a packet: no route means drop.

use super::{Route, Routing, RoutingIo};
use crate::engine::Time;
use crate::net::device::DevId;
use crate::packet::{NodeId, PktId};
use std::any::Any;
use std::sync::Arc;

const NONE: u32 = u32::MAX;

pub struct StaticRouting {
    /// Column of each destination node (shared by every node's table).
    slot_of: Arc<Vec<u32>>,
    /// (device, neighbour) per destination column; `NONE` where unreachable.
    next: Vec<(DevId, NodeId)>,
}

impl StaticRouting {
    /// `next[d]` = the device and neighbour towards destination `d`, for
    /// every node `d` (small networks, tests).
    pub fn new(next: Vec<Option<(DevId, NodeId)>>) -> Self {
        let slot_of = Arc::new((0..next.len() as u32).collect());
        StaticRouting { slot_of, next: next.into_iter().map(|x| x.unwrap_or((NONE, NONE))).collect() }
    }

    /// A table over the destinations that `slot_of` numbers (column `i` of
    /// `next` is the destination whose `slot_of` entry is `i`).
    pub fn with_columns(slot_of: Arc<Vec<u32>>, next: Vec<Option<(DevId, NodeId)>>) -> Self {
        StaticRouting { slot_of, next: next.into_iter().map(|x| x.unwrap_or((NONE, NONE))).collect() }
    }

    #[inline]
    pub fn next_hop(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        let slot = *self.slot_of.get(dst as usize)?;
        self.next.get(slot as usize).copied().filter(|&(d, _)| d != NONE)
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

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
