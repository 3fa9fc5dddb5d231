//! The length of the shortest radio path between a flow's two stations over
//! time: the t_i of Holland and Vaidya's expected throughput (MobiCom 1999;
//! SPEC 7), sum(T_i t_i) / sum(t_i) with T_i the throughput of the static
//! i-hop chain and T_0 = 0 while the two are partitioned. Python's
//! `tcplab.expected_throughput` runs the chains and weighs them.
//!
//! Two stations are neighbours when the mean power between them reaches the
//! receive threshold (the radio graph static routing uses), from the
//! positions the simulation itself moves the stations along.

use super::config::PropagationName;
use super::{build, wireless, Scenario, ScenarioError};
use crate::engine::Time;
use crate::wireless::channel::distance;
use std::collections::{BTreeMap, VecDeque};

/// Seconds the shortest path had each hop count (0: no path), and the
/// receive range the neighbourhoods were taken with.
#[derive(Clone, Debug, PartialEq)]
pub struct HopTimeline {
    pub seconds: BTreeMap<u32, f64>,
    pub rx_range_m: f64,
}

impl Scenario {
    /// Flow `flow`'s path length from its application's start to the end of
    /// its active time (its `stop`, or the run's end), taken in the middle
    /// of each interval of `step` (the last one shorter if it must be).
    pub fn hop_timeline(&self, flow: usize, step: Time) -> Result<HopTimeline, ScenarioError> {
        let cfg = &self.cfg;
        if step == 0 {
            return fail("step", "must be > 0");
        }
        let Some(f) = cfg.flow.get(flow) else {
            return fail("flow", format!("no flow {flow}; the scenario has {}", cfg.flow.len()));
        };
        let Some(w) = &cfg.wireless else {
            return fail("wireless", "the expected throughput is for stations on a radio channel; there is none");
        };
        if w.propagation == PropagationName::Shadowing {
            return fail(
                "wireless.propagation",
                "the expected throughput needs a fixed range: \"two_ray_ground\" or \"free_space\", not shadowing",
            );
        }
        let Some(radio) = wireless::radio(cfg, 0) else {
            return fail("wireless", "no radio channel could be built");
        };
        let station = |name: &str, key: &str| -> Result<usize, ScenarioError> {
            let node = cfg.node.iter().position(|n| n.name == name);
            match node.and_then(|n| radio.stations.iter().position(|s| s.node as usize == n)) {
                Some(k) => Ok(k),
                None => fail(format!("flow[{flow}].{key}"), format!("{name:?} is not a station (no position)")),
            }
        };
        let (src, dst) = (station(&f.from, "from")?, station(&f.to, "to")?);
        // The application as the simulation starts and stops it (its
        // payload size plays no part here).
        let app = build::app_of(cfg, flow, 0);
        let (start, dur) = (app.start(), cfg.sim.duration.0);
        let end = app.stop().unwrap_or(dur).min(dur);
        let range = radio.rx_range();
        let n = radio.stations.len();
        let mut seconds = BTreeMap::new();
        let mut t0 = start;
        while t0 < end {
            let width = step.min(end - t0);
            let at = t0 + width / 2;
            let pos: Vec<[f64; 2]> = (0..n)
                .map(|k| match &radio.mobility {
                    Some(m) => m.position(k, at),
                    None => radio.stations[k].pos,
                })
                .collect();
            *seconds.entry(hops(&pos, src, dst, range)).or_insert(0.0) += width as f64 / 1e9;
            t0 += width;
        }
        Ok(HopTimeline { seconds, rx_range_m: range })
    }
}

fn fail<T>(key: impl Into<String>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(key, message))
}

/// Breadth-first search over the stations within `range` of each other:
/// the fewest hops from `src` to `dst`, 0 if none.
fn hops(pos: &[[f64; 2]], src: usize, dst: usize, range: f64) -> u32 {
    let mut dist = vec![u32::MAX; pos.len()];
    dist[src] = 0;
    let mut queue = VecDeque::from([src]);
    while let Some(a) = queue.pop_front() {
        if a == dst {
            return dist[a];
        }
        for b in 0..pos.len() {
            if dist[b] == u32::MAX && distance(pos[a], pos[b]) <= range {
                dist[b] = dist[a] + 1;
                queue.push_back(b);
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Time = 1_000_000_000;

    fn scenario(extra_nodes: &str, propagation: &str, app: &str) -> Scenario {
        Scenario::from_toml_str(&format!(
            "[sim]\nduration = \"10s\"\n[wireless]\npropagation = \"{propagation}\"\nrouting = \"aodv\"\n\
             [[node]]\nname = \"a\"\nposition = [0.0, 0.0]\n\
             [[node]]\nname = \"b\"\nposition = [400.0, 0.0]\n{extra_nodes}\
             [[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"newreno\"\napp = {app}\n"
        ))
        .unwrap()
    }

    /// The ends are 400 m apart, beyond the 250 m range; a relay walks from
    /// (200, 400) down to (200, 0) at 100 m/s from t = 0 and stays there. It
    /// is within range of both once y <= 150 m, from t = 2.5 s: the flow,
    /// started at 1 s, is partitioned for 1.5 s, then 2 hops for 7.5 s.
    #[test]
    fn a_moving_relay_joins_the_ends_while_it_is_in_range_of_both() {
        let relay = "[[node]]\nname = \"r\"\nposition = [200.0, 400.0]\nwaypoints = [[0.0, 200.0, 0.0, 100.0]]\n";
        let sc = scenario(relay, "two_ray_ground", "{ kind = \"bulk\", start = \"1s\" }");
        let tl = sc.hop_timeline(0, SEC / 100).unwrap();
        assert!((tl.rx_range_m - 250.0).abs() < 0.5, "{}", tl.rx_range_m);
        let total: f64 = tl.seconds.values().sum();
        assert!((total - 9.0).abs() < 1e-9, "from the start at 1 s to the end");
        assert_eq!(tl.seconds.keys().copied().collect::<Vec<_>>(), vec![0, 2]);
        assert!((tl.seconds[&0] - 1.5).abs() < 0.011, "{:?}", tl.seconds);
    }

    #[test]
    fn ends_in_range_are_one_hop_and_a_stop_ends_the_timeline() {
        let near = "[[node]]\nname = \"c\"\nposition = [100.0, 0.0]\n";
        let sc = Scenario::from_toml_str(&format!(
            "[sim]\nduration = \"10s\"\n[wireless]\n[[node]]\nname = \"a\"\nposition = [0.0, 0.0]\n{near}\
             [[flow]]\nfrom = \"a\"\nto = \"c\"\ntransport = \"newreno\"\napp = {{ kind = \"bulk\", stop = \"4s\" }}\n"
        ))
        .unwrap();
        let tl = sc.hop_timeline(0, SEC / 3).unwrap();
        assert_eq!(tl.seconds.len(), 1);
        assert!((tl.seconds[&1] - 4.0).abs() < 1e-9);
    }

    #[test]
    fn bad_requests_name_the_key() {
        let relay = "[[node]]\nname = \"r\"\nposition = [200.0, 0.0]\n";
        let sc = scenario(relay, "shadowing", "{ kind = \"bulk\" }");
        assert_eq!(sc.hop_timeline(0, SEC).unwrap_err().key, "wireless.propagation");
        let sc = scenario(relay, "two_ray_ground", "{ kind = \"bulk\" }");
        assert_eq!(sc.hop_timeline(1, SEC).unwrap_err().key, "flow");
        assert_eq!(sc.hop_timeline(0, 0).unwrap_err().key, "step");
    }
}
