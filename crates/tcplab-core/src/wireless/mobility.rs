//! Node movement: each mobile station follows a track of straight legs at
//! constant speed, known for the whole run when the world is built (random
//! waypoint legs are drawn then, from the station's own RNG stream, so the
//! same seed gives the same movement whatever else the run does).
//!
//! Positions are exact at any instant (no time steps): a station that starts
//! a frame takes its neighbours from the positions of that instant
//! (`Mobility::neighbours_at`), as ns-2.35 and ns-3 do.

use super::channel::{distance, sensed, Neighbour, Station};
use super::params::PhyParams;
use super::propagation::Propagation;
use crate::engine::rng::Rng;
use crate::engine::time::SEC;
use crate::engine::Time;
use crate::packet::NodeId;

/// A straight move from `from` (at `start`) to `to` (reached at `end`);
/// the station stays at `to` until the next leg starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    pub start: Time,
    pub end: Time,
    pub from: [f64; 2],
    pub to: [f64; 2],
}

/// A station's movement: legs in time order, not overlapping.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Track {
    pub origin: [f64; 2],
    pub legs: Vec<Leg>,
}

impl Track {
    /// Position at `t`.
    pub fn at(&self, t: Time) -> [f64; 2] {
        // The last leg that started at or before t.
        let i = self.legs.partition_point(|l| l.start <= t);
        let Some(l) = i.checked_sub(1).map(|i| &self.legs[i]) else { return self.origin };
        if t >= l.end || l.end == l.start {
            return l.to;
        }
        let f = (t - l.start) as f64 / (l.end - l.start) as f64;
        [l.from[0] + f * (l.to[0] - l.from[0]), l.from[1] + f * (l.to[1] - l.from[1])]
    }

    /// Head for `to` at `speed` m/s from wherever the station is at `t`
    /// (ns-2's `setdest`: a later command replaces the move under way).
    /// Commands must come in time order.
    pub fn set_destination(&mut self, t: Time, to: [f64; 2], speed: f64) {
        let from = self.at(t);
        if let Some(l) = self.legs.last_mut() {
            if l.end > t {
                // Cut the move under way where the station is now.
                l.end = t;
                l.to = from;
            }
        }
        if speed <= 0.0 {
            return; // ns-2: speed 0 stops the node where it is
        }
        let end = t.saturating_add(secs(distance(from, to) / speed));
        self.legs.push(Leg { start: t, end, from, to });
    }
}

fn secs(s: f64) -> Time {
    (s * SEC as f64).round() as Time
}

/// Random waypoint (Broch et al. 1998, ns-2's setdest): pause, then move in
/// a straight line to a destination drawn uniformly in the area
/// `[0, width] x [0, height]` at a speed drawn uniformly in `speed`, pause
/// again, and so on until `until`.
pub fn random_waypoint(
    origin: [f64; 2],
    area: [f64; 2],
    speed: [f64; 2],
    pause: Time,
    until: Time,
    rng: &mut Rng,
) -> Track {
    let mut track = Track { origin, legs: Vec::new() };
    let (mut t, mut at) = (pause, origin);
    while t < until {
        let to = [rng.uniform() * area[0], rng.uniform() * area[1]];
        let v = speed[0] + rng.uniform() * (speed[1] - speed[0]);
        if v <= 0.0 {
            break; // a station drawn speed 0 stays (speed ranges starting at 0 allow it)
        }
        // At least 1 ns a leg: a tiny area or a huge speed must still move
        // the clock on (validation keeps the number of legs sensible).
        let end = t.saturating_add(secs(distance(at, to) / v)).max(t + 1);
        track.legs.push(Leg { start: t, end, from: at, to });
        at = to;
        t = end.saturating_add(pause);
    }
    track
}

/// The movement of every station (`None`: it stays at its position).
pub struct Mobility {
    pub stations: Vec<Station>,
    pub tracks: Vec<Option<Track>>,
    /// Station index by node id.
    index: Vec<Option<usize>>,
}

impl Mobility {
    pub fn new(stations: Vec<Station>, tracks: Vec<Option<Track>>) -> Self {
        let n = stations.iter().map(|s| s.node as usize + 1).max().unwrap_or(0);
        let mut index = vec![None; n];
        for (k, s) in stations.iter().enumerate() {
            index[s.node as usize] = Some(k);
        }
        Mobility { stations, tracks, index }
    }

    /// Where station `k` is at `t`.
    pub fn position(&self, k: usize, t: Time) -> [f64; 2] {
        match &self.tracks[k] {
            Some(track) => track.at(t),
            None => self.stations[k].pos,
        }
    }

    /// Station `other` as `node`'s neighbour at `t` (None: out of reach or
    /// not a station).
    pub fn pair(&self, node: NodeId, other: NodeId, t: Time, prop: &Propagation, phy: &PhyParams) -> Option<Neighbour> {
        let k = self.index.get(node as usize).copied().flatten()?;
        let j = self.index.get(other as usize).copied().flatten()?;
        let d = distance(self.position(k, t), self.position(j, t));
        sensed(&self.stations[j], d, prop.reach(phy), prop, phy)
    }

    /// Whether any station moves at all (a track with a leg that goes
    /// somewhere).
    pub fn moves(&self) -> bool {
        self.tracks.iter().flatten().any(|t| t.legs.iter().any(|l| l.from != l.to && l.end > l.start))
    }

    /// The stations node `node`'s frames reach at `t` (as
    /// `channel::neighbour_lists` finds them for fixed positions), sorted by
    /// node id. Every station is looked at: mobile networks here are tens of
    /// stations (SPEC 9.4's 30); a grid rebuilt as nodes move is the way to
    /// large ones (docs/architecture.md, "Mobility").
    pub fn neighbours_at(&self, node: NodeId, t: Time, prop: &Propagation, phy: &PhyParams) -> Vec<Neighbour> {
        let Some(k) = self.index.get(node as usize).copied().flatten() else { return Vec::new() };
        let here = self.position(k, t);
        let reach = prop.reach(phy);
        let mut out: Vec<Neighbour> = (self.stations.iter().enumerate())
            .filter(|&(j, _)| j != k)
            .filter_map(|(j, o)| sensed(o, distance(here, self.position(j, t)), reach, prop, phy))
            .collect();
        out.sort_by_key(|n| n.node);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream_rng;
    use crate::engine::time::to_secs;

    /// The fastest leg's speed, m/s.
    fn max_speed(track: &Track) -> f64 {
        track
            .legs
            .iter()
            .filter(|l| l.end > l.start)
            .map(|l| distance(l.from, l.to) / to_secs(l.end - l.start))
            .fold(0.0, f64::max)
    }

    #[test]
    fn a_track_interpolates_and_stops_at_its_end() {
        let mut t = Track { origin: [0.0, 0.0], legs: Vec::new() };
        t.set_destination(SEC, [100.0, 0.0], 10.0);
        assert_eq!(t.at(0), [0.0, 0.0]);
        assert_eq!(t.at(SEC), [0.0, 0.0]);
        assert_eq!(t.at(6 * SEC), [50.0, 0.0]);
        assert_eq!(t.at(11 * SEC), [100.0, 0.0]);
        assert_eq!(t.at(100 * SEC), [100.0, 0.0]);
        assert_eq!(max_speed(&t), 10.0);
    }

    #[test]
    fn a_new_destination_replaces_the_move_under_way() {
        let mut t = Track { origin: [0.0, 0.0], legs: Vec::new() };
        t.set_destination(0, [100.0, 0.0], 10.0);
        t.set_destination(5 * SEC, [50.0, 40.0], 4.0);
        assert_eq!(t.at(5 * SEC), [50.0, 0.0]);
        assert_eq!(t.at(10 * SEC), [50.0, 20.0]);
        assert_eq!(t.at(20 * SEC), [50.0, 40.0]);
        // Speed 0 stops the node where it is.
        t.set_destination(12 * SEC, [0.0, 0.0], 0.0);
        assert_eq!(t.at(12 * SEC), [50.0, 28.0]);
        assert_eq!(t.at(30 * SEC), [50.0, 28.0]);
    }

    #[test]
    fn random_waypoint_stays_in_its_area_at_its_speeds_with_its_pauses() {
        let mut rng = stream_rng(7, "node3.mobility");
        let (area, speed, pause) = ([1500.0, 300.0], [1.0, 19.0], 2 * SEC);
        let track = random_waypoint([10.0, 10.0], area, speed, pause, 900 * SEC, &mut rng);
        assert!(track.legs.len() > 3, "{}", track.legs.len());
        assert_eq!(track.legs[0].start, pause);
        assert_eq!(track.legs[0].from, [10.0, 10.0]);
        for (a, b) in track.legs.iter().zip(&track.legs[1..]) {
            assert_eq!(b.from, a.to);
            assert_eq!(b.start, a.end + pause);
        }
        for l in &track.legs {
            assert!((0.0..=area[0]).contains(&l.to[0]) && (0.0..=area[1]).contains(&l.to[1]));
            let v = distance(l.from, l.to) / to_secs(l.end - l.start);
            assert!(v > speed[0] - 1e-6 && v < speed[1] + 1e-6, "{v}");
        }
        assert!(track.legs.last().unwrap().start < 900 * SEC);
        // The same stream, the same track.
        let again = random_waypoint([10.0, 10.0], area, speed, pause, 900 * SEC, &mut stream_rng(7, "node3.mobility"));
        assert_eq!(track, again);
    }

    #[test]
    fn neighbours_follow_the_positions() {
        let prop = Propagation::TwoRayGround;
        let phy = PhyParams::default();
        let st = vec![Station { node: 0, dev: 10, pos: [0.0, 0.0] }, Station { node: 1, dev: 11, pos: [200.0, 0.0] }];
        let mut away = Track { origin: [200.0, 0.0], legs: Vec::new() };
        away.set_destination(0, [1200.0, 0.0], 10.0);
        let m = Mobility::new(st, vec![None, Some(away)]);
        let rx = phy.rx_threshold_w;
        let at = |s: u64| m.neighbours_at(0, s * SEC, &prop, &phy);
        assert!(at(0)[0].power_w >= rx && (at(0)[0].distance_m - 200.0).abs() < 1e-9);
        // 250 m (receive range) at 5 s, 550 m (carrier sense) at 35 s.
        assert!(at(4)[0].power_w >= rx);
        assert!(at(6)[0].power_w < rx);
        assert_eq!(at(34).len(), 1);
        assert!(at(36).is_empty());
        // Symmetric.
        assert_eq!(m.neighbours_at(1, 6 * SEC, &prop, &phy)[0].power_w, at(6)[0].power_w);
    }
}
