//! Who hears whom: for static stations, computed once at build time with a
//! uniform grid whose cells are as wide as the farthest distance a frame can
//! be sensed at, so each station looks at the 3 x 3 cells around it instead
//! of every other station (build cost ~ stations x neighbourhood).

use super::params::PhyParams;
use super::propagation::Propagation;
use crate::engine::Time;
use crate::net::DevId;
use crate::packet::NodeId;
use std::collections::HashMap;

/// A station another station's frames reach above the carrier-sense
/// threshold (for shadowing: may reach, the power is drawn per frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbour {
    pub node: NodeId,
    pub dev: DevId,
    /// Mean received power (W), the same both ways (equal powers, gains and
    /// heights at every station).
    pub power_w: f64,
    pub distance_m: f64,
    pub delay: Time,
}

/// A station: its node, its 802.11 device and its position.
#[derive(Clone, Copy, Debug)]
pub struct Station {
    pub node: NodeId,
    pub dev: DevId,
    pub pos: [f64; 2],
}

pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Station `o`, `d` metres away, as a neighbour: when its frames can be
/// sensed there (within `reach`; above the carrier-sense threshold, or, with
/// shadowing, possibly above it).
pub fn sensed(o: &Station, d: f64, reach: f64, prop: &Propagation, phy: &PhyParams) -> Option<Neighbour> {
    if d > reach {
        return None;
    }
    let power_w = prop.mean_power(phy, d);
    (matches!(prop, Propagation::Shadowing { .. }) || power_w >= phy.cs_threshold_w).then(|| Neighbour {
        node: o.node,
        dev: o.dev,
        power_w,
        distance_m: d,
        delay: Propagation::delay_ns(d),
    })
}

/// For each station, the stations within its reach, sorted by node id.
pub fn neighbour_lists(stations: &[Station], prop: &Propagation, phy: &PhyParams) -> Vec<Vec<Neighbour>> {
    let reach = prop.reach(phy);
    // Cells as wide as the reach (a bounded number of cells when the reach
    // is infinite or tiny compared with the area: one cell for all).
    let cell = if reach.is_finite() && reach > 0.0 { reach } else { f64::INFINITY };
    let key = |p: [f64; 2]| -> (i64, i64) {
        if cell.is_infinite() {
            (0, 0)
        } else {
            ((p[0] / cell).floor() as i64, (p[1] / cell).floor() as i64)
        }
    };
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (i, s) in stations.iter().enumerate() {
        grid.entry(key(s.pos)).or_default().push(i);
    }
    let mut out = Vec::with_capacity(stations.len());
    for s in stations {
        let (cx, cy) = key(s.pos);
        let mut list = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                let Some(cands) = grid.get(&(cx + dx, cy + dy)) else { continue };
                for &j in cands {
                    let o = &stations[j];
                    if o.node == s.node {
                        continue;
                    }
                    list.extend(sensed(o, distance(s.pos, o.pos), reach, prop, phy));
                }
            }
        }
        list.sort_by_key(|n| n.node);
        list.dedup_by_key(|n| n.node);
        out.push(list);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_finds_exactly_the_stations_in_range() {
        let phy = PhyParams::default();
        let prop = Propagation::TwoRayGround;
        // a 10 x 10 grid, 200 m apart
        let st: Vec<Station> = (0..100)
            .map(|i| Station { node: i, dev: 1000 + i, pos: [(i % 10) as f64 * 200.0, (i / 10) as f64 * 200.0] })
            .collect();
        let lists = neighbour_lists(&st, &prop, &phy);
        for (i, s) in st.iter().enumerate() {
            let brute: Vec<NodeId> = st
                .iter()
                .filter(|o| o.node != s.node && prop.mean_power(&phy, distance(s.pos, o.pos)) >= phy.cs_threshold_w)
                .map(|o| o.node)
                .collect();
            let got: Vec<NodeId> = lists[i].iter().map(|n| n.node).collect();
            assert_eq!(got, brute, "station {i}");
        }
    }

    /// The grid search against all pairs, for the three models, with
    /// stations scattered over a square three reaches wide around the
    /// origin (negative coordinates: cells on both sides of 0), no pair
    /// within 0.5 m of the reach: each list holds exactly the stations
    /// within reach (two-ray ground and free space: the carrier-sense
    /// range; shadowing: the widened reach), sorted by node, with their
    /// mean power, distance and delay. 300 more stations 1000 reaches away
    /// leave every list of the first ones as it was.
    #[test]
    fn grid_search_matches_all_pairs_anywhere_and_ignores_far_stations() {
        let phy = PhyParams::default();
        let shadowing = Propagation::Shadowing { path_loss_exponent: 2.7, sigma_db: 4.0, reference_distance: 1.0 };
        for prop in [Propagation::TwoRayGround, Propagation::FreeSpace, shadowing] {
            let reach = prop.reach(&phy);
            if !matches!(prop, Propagation::Shadowing { .. }) {
                assert_eq!(reach, prop.range(&phy, phy.cs_threshold_w));
            }
            let mut rng = crate::engine::stream_rng(5, "channel-test");
            let mut st: Vec<Station> = Vec::new();
            while st.len() < 80 {
                let pos = [(rng.uniform() - 0.5) * 3.0 * reach, (rng.uniform() - 0.5) * 3.0 * reach];
                if st.iter().all(|o| (distance(o.pos, pos) - reach).abs() > 0.5) {
                    let i = st.len() as NodeId;
                    st.push(Station { node: i, dev: 500 + i, pos });
                }
            }
            let lists = neighbour_lists(&st, &prop, &phy);
            for (i, s) in st.iter().enumerate() {
                let brute: Vec<Neighbour> = st
                    .iter()
                    .filter(|o| o.node != s.node && distance(s.pos, o.pos) < reach)
                    .map(|o| {
                        let d = distance(s.pos, o.pos);
                        Neighbour {
                            node: o.node,
                            dev: o.dev,
                            power_w: prop.mean_power(&phy, d),
                            distance_m: d,
                            delay: Propagation::delay_ns(d),
                        }
                    })
                    .collect();
                assert_eq!(lists[i], brute, "{prop:?}: station {i}");
                if !matches!(prop, Propagation::Shadowing { .. }) {
                    assert!(lists[i].iter().all(|n| n.power_w >= phy.cs_threshold_w));
                }
            }
            assert!(lists.iter().any(|l| l.len() >= 10) && lists.iter().all(|l| l.len() < 79), "{prop:?}");
            let mut more = st.clone();
            for k in 0..300u32 {
                let pos = [1000.0 * reach + 0.3 * reach * (k % 20) as f64, -0.3 * reach * (k / 20) as f64];
                more.push(Station { node: 80 + k, dev: 580 + k, pos });
            }
            let with_far = neighbour_lists(&more, &prop, &phy);
            assert_eq!(with_far[..st.len()], lists[..], "{prop:?}");
            assert!(with_far[st.len()..].iter().flatten().all(|n| n.node >= 80), "{prop:?}");
            // Hearing is mutual and at the same mean power both ways, to
            // the bit: a frame's arrival takes its power from the sender's
            // list (`FanOut::power_w`) instead of the receiver's.
            for (i, s) in st.iter().enumerate() {
                for n in &lists[i] {
                    let back = lists[n.node as usize].iter().find(|m| m.node == s.node);
                    assert_eq!(
                        back.map(|m| (m.power_w.to_bits(), m.delay)),
                        Some((n.power_w.to_bits(), n.delay)),
                        "{prop:?}: stations {} and {}",
                        s.node,
                        n.node
                    );
                }
            }
        }
    }
}
