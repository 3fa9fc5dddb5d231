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

/// The graph `dirs` as adjacency arrays: the neighbours of node `v` are
/// `to[start[v]..start[v + 1]]`, those it reaches (or, `reverse`, those
/// that reach it), in direction order.
fn adjacency(n_nodes: usize, dirs: &[(NodeId, NodeId)], reverse: bool) -> (Vec<u32>, Vec<NodeId>) {
    let mut start = vec![0u32; n_nodes + 1];
    for &(a, b) in dirs {
        let from = if reverse { b } else { a };
        start[from as usize + 1] += 1;
    }
    for i in 0..n_nodes {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut to = vec![0 as NodeId; dirs.len()];
    for &(a, b) in dirs {
        let (from, t) = if reverse { (b, a) } else { (a, b) };
        to[fill[from as usize] as usize] = t;
        fill[from as usize] += 1;
    }
    (start, to)
}

/// The nodes `a` reaches over the directed graph `dirs` (itself included).
pub fn reachable_from(n_nodes: usize, dirs: &[(NodeId, NodeId)], a: NodeId) -> Vec<bool> {
    let (start, to) = adjacency(n_nodes, dirs, false);
    let mut seen = vec![false; n_nodes];
    seen[a as usize] = true;
    let mut stack = vec![a];
    while let Some(v) = stack.pop() {
        for &w in &to[start[v as usize] as usize..start[v as usize + 1] as usize] {
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push(w);
            }
        }
    }
    seen
}

/// The strongly connected component of every node of the directed graph
/// `dirs` (component numbers, equal for two nodes exactly when each can
/// reach the other). O(nodes + dirs): whether every flow's two ends reach
/// each other is known without a breadth-first search per destination,
/// which at a thousand flows was 370 M instructions of validation alone.
/// (Kosaraju: finishing order of a depth-first search forwards, then
/// searches over the reversed graph in reverse finishing order.)
pub fn strong_components(n_nodes: usize, dirs: &[(NodeId, NodeId)]) -> Vec<u32> {
    let (fs, ft) = adjacency(n_nodes, dirs, false);
    let mut order = Vec::with_capacity(n_nodes);
    let mut seen = vec![false; n_nodes];
    // Iterative depth-first search: (node, next edge to look at).
    let mut stack: Vec<(usize, u32)> = Vec::new();
    for root in 0..n_nodes {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        stack.push((root, fs[root]));
        while let Some(top) = stack.last_mut() {
            let (v, e) = *top;
            if e < fs[v + 1] {
                top.1 += 1;
                let w = ft[e as usize] as usize;
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, fs[w]));
                }
            } else {
                order.push(v);
                stack.pop();
            }
        }
    }
    let (rs, rt) = adjacency(n_nodes, dirs, true);
    let mut comp = vec![NONE; n_nodes];
    let mut next = 0;
    let mut todo = Vec::new();
    for &root in order.iter().rev() {
        if comp[root] != NONE {
            continue;
        }
        comp[root] = next;
        todo.push(root);
        while let Some(v) = todo.pop() {
            for &w in &rt[rs[v] as usize..rs[v + 1] as usize] {
                if comp[w as usize] == NONE {
                    comp[w as usize] = next;
                    todo.push(w as usize);
                }
            }
        }
        next += 1;
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream_rng;

    /// Two nodes share a component exactly when each reaches the other, and
    /// `reachable_from` names the nodes a node reaches, as the shortest-path
    /// table says, on random directed graphs sparse and dense (one-way
    /// links, isolated nodes, cycles).
    #[test]
    fn strong_components_agree_with_mutual_reachability() {
        let mut r = stream_rng(3, "scc-test");
        for case in 0..200 {
            let n = 1 + (r.next_u64() % 12) as usize;
            let m = (r.next_u64() % (2 * n as u64 + 4)) as usize;
            let dirs: Vec<(NodeId, NodeId)> =
                (0..m).map(|_| ((r.next_u64() % n as u64) as NodeId, (r.next_u64() % n as u64) as NodeId)).collect();
            let comp = strong_components(n, &dirs);
            let rt = shortest_paths(n, &dirs);
            for a in 0..n as NodeId {
                let reach = reachable_from(n, &dirs, a);
                for b in 0..n as NodeId {
                    let reaches = a == b || rt.next(a, b).is_some();
                    assert_eq!(reach[b as usize], reaches, "case {case}: {a} reaches {b} in {dirs:?}");
                    let mutual = a == b || (rt.next(a, b).is_some() && rt.next(b, a).is_some());
                    assert_eq!(comp[a as usize] == comp[b as usize], mutual, "case {case}: {a} and {b} in {dirs:?}");
                }
            }
        }
    }

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
