//! Shortest hop paths over the directed link graph (hop count, as ns-2's
//! static routing). Ties are broken by the lower link-direction index, so
//! routes do not depend on hash order or thread count.

use crate::packet::NodeId;
use std::collections::VecDeque;

/// Next-hop table towards a chosen set of destinations (the nodes packets
/// are addressed to): memory nodes x destinations, not nodes x nodes, so a
/// 20 000-node chain with one flow needs two columns, not 400 million cells.
pub struct RoutingTable {
    /// Column of each node as a destination, `NONE` if it is not one.
    slot_of: Vec<u32>,
    n_dst: usize,
    /// Row-major nodes x destinations: the link direction to take, `NONE`
    /// where unreachable.
    table: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl RoutingTable {
    /// The link direction node `n` takes towards `d` (None: unreachable, or
    /// `d` is not a destination of the table).
    pub fn next(&self, n: NodeId, d: NodeId) -> Option<u32> {
        let slot = *self.slot_of.get(d as usize)?;
        if slot == NONE {
            return None;
        }
        let v = self.table[n as usize * self.n_dst + slot as usize];
        (v != NONE).then_some(v)
    }

    /// The destinations, in column order.
    pub fn slot_of(&self) -> &[u32] {
        &self.slot_of
    }

    /// Node `n`'s row: the direction towards each destination column.
    pub fn row(&self, n: NodeId) -> &[u32] {
        &self.table[n as usize * self.n_dst..(n as usize + 1) * self.n_dst]
    }
}

/// Shortest hop paths from every node towards every node (small networks
/// and tests).
pub fn shortest_paths(n_nodes: usize, dirs: &[(NodeId, NodeId)]) -> RoutingTable {
    let all: Vec<NodeId> = (0..n_nodes as NodeId).collect();
    shortest_paths_to(n_nodes, dirs, &all)
}

/// `dirs[i] = (from, to)` for every link direction; routes towards `dsts`
/// only (a breadth-first search backwards from each: O(dsts x (nodes + dirs))
/// time, nodes x dsts memory).
pub fn shortest_paths_to(n_nodes: usize, dirs: &[(NodeId, NodeId)], dsts: &[NodeId]) -> RoutingTable {
    let mut slot_of = vec![NONE; n_nodes];
    let mut order = Vec::new();
    for &d in dsts {
        if slot_of[d as usize] == NONE {
            slot_of[d as usize] = order.len() as u32;
            order.push(d);
        }
    }
    let n_dst = order.len();
    let mut table = vec![NONE; n_nodes * n_dst];
    // incoming[v] = directions ending at v, in index order
    let mut incoming: Vec<Vec<u32>> = vec![vec![]; n_nodes];
    for (i, &(_, to)) in dirs.iter().enumerate() {
        incoming[to as usize].push(i as u32);
    }
    let mut dist = vec![u32::MAX; n_nodes];
    let mut q = VecDeque::new();
    for (slot, &d) in order.iter().enumerate() {
        // BFS backwards from the destination.
        dist.fill(u32::MAX);
        dist[d as usize] = 0;
        q.push_back(d as usize);
        while let Some(v) = q.pop_front() {
            for &di in &incoming[v] {
                let u = dirs[di as usize].0 as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    table[u * n_dst + slot] = di;
                    q.push_back(u);
                }
            }
        }
    }
    RoutingTable { slot_of, n_dst, table }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_and_shortcut() {
        // 0-1-2-3 chain plus a 0-3 shortcut; directions in pairs (fwd, rev)
        let dirs = vec![(0, 1), (1, 0), (1, 2), (2, 1), (2, 3), (3, 2), (0, 3), (3, 0)];
        let rt = shortest_paths(4, &dirs);
        assert_eq!(rt.next(0, 3), Some(6));
        assert_eq!(rt.next(0, 2), Some(0)); // 0->1->2 and 0->3->2 tie; lower index wins
        assert_eq!(rt.next(2, 0), Some(3));
        assert_eq!(rt.next(1, 1), None);
    }

    #[test]
    fn unreachable_is_none() {
        let rt = shortest_paths(3, &[(0, 1), (1, 0)]);
        assert_eq!(rt.next(0, 2), None);
    }
}
