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

/// Nodes up to which every full row is kept by node, however few its
/// columns (512 bytes a row at most): the routers of a chain carrying one
/// flow have two columns among ten nodes, and their column lookup was one
/// dependent load more on every hop (the UDP chain of
/// benchmarks/hop_floor.py 5 % faster by node).
const SMALL_NETWORK: usize = 64;

pub struct StaticRouting {
    /// Column of each destination node (shared by every node's table).
    slot_of: Arc<[u32]>,
    /// (device, neighbour) per destination column; `NONE` where unreachable.
    /// Empty when `uniform` stands for the whole row.
    next: Vec<(DevId, NodeId)>,
    /// A row that names one hop for every column but at most one (a stub
    /// node: a host on one link sends everything to its router), kept as
    /// that hop, the number of columns and the odd column out (`NONE` if
    /// none), instead of a row as long as the destinations: with a
    /// thousand flows the rows of the hosts were 32 MB, and the first hop
    /// of every packet missed the cache in its host's row.
    uniform: Option<Uniform>,
    /// `next` is indexed by destination node, not by column: a full row
    /// (a router's) when the nodes are not many more than the columns, or
    /// few (`SMALL_NETWORK`), so a router's lookup is one load instead of
    /// two (the column of the destination, then the hop).
    by_node: bool,
}

#[derive(Clone, Copy)]
struct Uniform {
    hop: (DevId, NodeId),
    columns: u32,
    unreachable: u32,
}

impl Uniform {
    /// The row as one hop, if it has that form.
    fn of(row: &[(DevId, NodeId)]) -> Option<Uniform> {
        let hop = *row.iter().find(|x| x.0 != NONE)?;
        let mut unreachable = NONE;
        for (i, x) in row.iter().enumerate() {
            if *x == hop {
                continue;
            }
            if x.0 != NONE || unreachable != NONE {
                return None;
            }
            unreachable = i as u32;
        }
        Some(Uniform { hop, columns: row.len() as u32, unreachable })
    }
}

impl StaticRouting {
    /// `next[d]` = the device and neighbour towards destination `d`, for
    /// every node `d` (small networks, tests).
    pub fn new(next: Vec<Option<(DevId, NodeId)>>) -> Self {
        let slot_of: Arc<[u32]> = (0..next.len() as u32).collect();
        Self::with_columns(slot_of, next)
    }

    /// A table over the destinations that `slot_of` numbers (column `i` of
    /// `next` is the destination whose `slot_of` entry is `i`).
    pub fn with_columns(slot_of: Arc<[u32]>, next: Vec<Option<(DevId, NodeId)>>) -> Self {
        let mut next: Vec<_> = next.into_iter().map(|x| x.unwrap_or((NONE, NONE))).collect();
        let uniform = Uniform::of(&next);
        let by_node = uniform.is_none() && (slot_of.len() <= 2 * next.len() || slot_of.len() <= SMALL_NETWORK);
        if uniform.is_some() {
            next = Vec::new();
        } else if by_node {
            next = slot_of.iter().map(|&c| next.get(c as usize).copied().unwrap_or((NONE, NONE))).collect();
        }
        StaticRouting { slot_of, next, uniform, by_node }
    }

    // Always inlined: left to the inliner it stayed a call from a TCP
    // endpoint's first hop, once per segment and ACK.
    #[inline(always)]
    pub fn next_hop(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        if self.by_node {
            return self.next.get(dst as usize).copied().filter(|&(d, _)| d != NONE);
        }
        let slot = *self.slot_of.get(dst as usize)?;
        if let Some(u) = &self.uniform {
            return (slot < u.columns && slot != u.unreachable).then_some(u.hop);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A row with one hop everywhere answers as the full table would,
    /// whatever single column is unreachable; a row with two hops, or two
    /// unreachable columns, stays a table.
    #[test]
    fn uniform_rows_answer_as_tables() {
        let (a, b) = (Some((3, 7)), Some((4, 8)));
        let rows = [
            vec![a, a, a, a],
            vec![None, a, a, a],
            vec![a, a, None, a],
            vec![a, None, None, a],
            vec![a, b, a, a],
            vec![None, None, None, None],
        ];
        for (r, row) in rows.iter().enumerate() {
            let table: Vec<_> = row.iter().map(|x| x.unwrap_or((NONE, NONE))).collect();
            let routing = StaticRouting::new(row.clone());
            assert_eq!(routing.uniform.is_some(), r < 3, "row {r}");
            for dst in 0..6 {
                let expected = table.get(dst).copied().filter(|&(d, _)| d != NONE);
                assert_eq!(routing.next_hop(dst as NodeId), expected, "row {r}, destination {dst}");
            }
        }
    }

    /// A router's row over some destinations (columns), stored by node when
    /// the nodes are not many more than the columns or few, and by column
    /// otherwise: each answers every node as the row by column does, nodes
    /// that are no column and nodes past the table included.
    #[test]
    fn rows_by_node_answer_as_rows_by_column() {
        let (a, b) = ((3, 7), (4, 8));
        let row = vec![Some(a), Some(b), None, Some(a)];
        // Destinations (columns) are nodes 5, 1, 4 and 2, among `nodes`.
        let columns = |nodes: usize| -> Arc<[u32]> {
            let mut slot_of = vec![NONE; nodes];
            for (c, n) in [5, 1, 4, 2].into_iter().enumerate() {
                slot_of[n] = c as u32;
            }
            Arc::from(slot_of)
        };
        let wide = SMALL_NETWORK + 1;
        for (nodes, by_node) in [(6, true), (9, true), (SMALL_NETWORK, true), (wide, false)] {
            let slot_of = columns(nodes);
            let routing = StaticRouting::with_columns(slot_of.clone(), row.clone());
            assert_eq!(routing.by_node, by_node, "{nodes} nodes, 4 columns");
            for dst in 0..wide + 3 {
                let by_column = slot_of.get(dst).and_then(|&c| row.get(c as usize).copied().flatten());
                assert_eq!(routing.next_hop(dst as NodeId), by_column, "{nodes} nodes, destination {dst}");
            }
        }
    }
}
