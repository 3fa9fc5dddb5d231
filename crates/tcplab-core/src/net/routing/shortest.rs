//! Shortest hop paths over the directed link graph (hop count, as ns-2's
//! static routing). Ties are broken by the lower link-direction index, so
//! routes do not depend on hash order or thread count.

use crate::packet::NodeId;
use std::collections::VecDeque;

/// Next-hop table: the link direction node `n` uses to reach `d`.
pub struct RoutingTable {
    n: usize,
    /// Row-major n x n, `NONE` where unreachable: one flat array, one lookup.
    table: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl RoutingTable {
    pub fn next(&self, n: NodeId, d: NodeId) -> Option<u32> {
        let v = self.table[n as usize * self.n + d as usize];
        (v != NONE).then_some(v)
    }
}

/// `dirs[i] = (from, to)` for every link direction.
pub fn shortest_paths(n_nodes: usize, dirs: &[(NodeId, NodeId)]) -> RoutingTable {
    let mut next = vec![vec![None; n_nodes]; n_nodes];
    // incoming[v] = directions ending at v, in index order
    let mut incoming: Vec<Vec<u32>> = vec![vec![]; n_nodes];
    for (i, &(_, to)) in dirs.iter().enumerate() {
        incoming[to as usize].push(i as u32);
    }
    for d in 0..n_nodes {
        // BFS backwards from the destination.
        let mut dist = vec![u32::MAX; n_nodes];
        dist[d] = 0;
        let mut q = VecDeque::from([d]);
        while let Some(v) = q.pop_front() {
            for &di in &incoming[v] {
                let u = dirs[di as usize].0 as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    next[u][d] = Some(di);
                    q.push_back(u);
                }
            }
        }
    }
    let table = next.into_iter().flatten().map(|x| x.unwrap_or(NONE)).collect();
    RoutingTable { n: n_nodes, table }
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
