//! The scenario as the emulator sees it: one path of links between two end
//! nodes, each direction the core's `LinkDir` (queue, transmitter,
//! propagation delay, error model) built by the core's scenario builder.

use tcplab_core::net::LinkDir;
use tcplab_core::scenario::build::link_dirs;
use tcplab_core::scenario::ScenarioCfg;
use tcplab_core::ScenarioError;

#[derive(Default)]
pub struct LinkPath {
    /// Every link direction of the scenario (2i forward, 2i+1 reverse of link i).
    pub dirs: Vec<LinkDir>,
    /// Direction indices crossed from end 0 to end 1, and from end 1 to end 0.
    pub chains: [Vec<usize>; 2],
    /// Node names of the two ends: end 0 is the path end listed first in `node`.
    pub ends: [String; 2],
}

fn bad<T>(key: impl Into<String>, msg: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(key, msg))
}

impl LinkPath {
    pub fn new(cfg: &ScenarioCfg) -> Result<LinkPath, ScenarioError> {
        let names: Vec<&str> = cfg.node.iter().map(|n| n.name.as_str()).collect();
        let idx = |s: &str| names.iter().position(|n| *n == s).expect("validated");
        // An 802.11 scenario has no links (or links only to its base
        // stations): say that, not "needs at least one link".
        if cfg.wireless.is_some() {
            return bad(
                "wireless",
                "the emulator carries wired [[link]] paths only and has no 802.11 channel; remove [wireless] and the nodes' positions",
            );
        }
        if cfg.link.is_empty() {
            return bad("link", "the emulator needs at least one link");
        }
        let mut degree = vec![0usize; names.len()];
        for l in &cfg.link {
            degree[idx(&l.between[0])] += 1;
            degree[idx(&l.between[1])] += 1;
        }
        let path_msg = "the emulator carries one path of links between two end nodes (a chain: every node on at most two links, all nodes connected)";
        if let Some(i) = degree.iter().position(|&d| d > 2) {
            return bad(format!("node[{i}]"), format!("{:?} is on {} links; {path_msg}", names[i], degree[i]));
        }
        if let Some(i) = degree.iter().position(|&d| d == 0) {
            return bad(format!("node[{i}]"), format!("{:?} is on no link; {path_msg}", names[i]));
        }
        let ends: Vec<usize> = (0..names.len()).filter(|&i| degree[i] == 1).collect();
        if ends.len() != 2 || cfg.link.len() != names.len() - 1 {
            return bad("link", path_msg);
        }
        // Walk from end 0 to end 1.
        let (mut at, mut used) = (ends[0], vec![false; cfg.link.len()]);
        let (mut fwd, mut rev) = (vec![], vec![]);
        while at != ends[1] {
            let Some((i, l)) = cfg
                .link
                .iter()
                .enumerate()
                .find(|(i, l)| !used[*i] && (idx(&l.between[0]) == at || idx(&l.between[1]) == at))
            else {
                return bad("link", path_msg);
            };
            used[i] = true;
            let forward = idx(&l.between[0]) == at;
            fwd.push(2 * i + usize::from(!forward));
            rev.insert(0, 2 * i + usize::from(forward));
            at = idx(&l.between[usize::from(forward)]);
        }
        if used.iter().any(|u| !u) {
            return bad("link", path_msg);
        }
        for (i, l) in cfg.link.iter().enumerate() {
            if let Some((key, ..)) = tcplab_core::scenario::build::link_errors(l).find(|(.., e)| e.flow().is_some()) {
                return bad(
                    format!("link[{i}].{key}.flow"),
                    "the emulator's relay does not tell flows apart; remove `flow` (the model then acts on every packet of the direction)",
                );
            }
        }
        for (i, f) in cfg.flow.iter().enumerate() {
            let (a, b) = (idx(&f.from), idx(&f.to));
            if !ends.contains(&a) || !ends.contains(&b) {
                let k = if ends.contains(&a) { "to" } else { "from" };
                return bad(
                    format!("flow[{i}].{k}"),
                    format!(
                        "the emulator carries flows between the path's ends {:?} and {:?}",
                        names[ends[0]], names[ends[1]]
                    ),
                );
            }
        }
        Ok(LinkPath {
            dirs: link_dirs(cfg),
            chains: [fwd, rev],
            ends: [names[ends[0]].to_string(), names[ends[1]].to_string()],
        })
    }

    /// Which end (0 or 1) a node name is.
    pub fn end_of(&self, node: &str) -> usize {
        usize::from(self.ends[1] == node)
    }

    /// Round-trip time of the path without queueing for packets of `a` bytes
    /// one way and `b` bytes back (transmission at every hop plus propagation).
    pub fn base_rtt_ns(&self, a: u32, b: u32) -> u64 {
        let one = |chain: &Vec<usize>, size: u32| -> u64 {
            chain.iter().map(|&d| self.dirs[d].tx_time(size) + self.dirs[d].delay).sum()
        };
        one(&self.chains[0], a) + one(&self.chains[1], b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Scenario;

    fn cfg(text: &str) -> ScenarioCfg {
        Scenario::from_toml_str(text).unwrap().cfg
    }

    const GSM: &str = r#"
[sim]
duration = "10s"
[[node]]
name = "router"
[[node]]
name = "mobile"
[[node]]
name = "server"
[[link]]
between = ["server", "router"]
rate = "10Mbps"
delay = "5ms"
[[link]]
between = ["mobile", "router"]
rate = "9600bps"
delay = "200ms"
[[flow]]
from = "server"
to = "mobile"
transport = "newreno"
app = { kind = "bulk" }
"#;

    #[test]
    fn chain_follows_the_path_in_both_directions() {
        let p = LinkPath::new(&cfg(GSM)).unwrap();
        assert_eq!(p.ends, ["mobile".to_string(), "server".to_string()]);
        // mobile -> router is link 1 forward (2), router -> server link 0 reverse (1)
        assert_eq!(p.chains[0], vec![2, 1]);
        assert_eq!(p.chains[1], vec![0, 3]);
        assert_eq!(p.end_of("server"), 1);
    }

    #[test]
    fn rejects_a_star() {
        let text = GSM.replace("[[flow]]", "[[node]]\nname = \"x\"\n[[link]]\nbetween = [\"x\", \"router\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flow]]");
        let e = LinkPath::new(&cfg(&text)).err().unwrap();
        assert_eq!(e.key, "node[0]");
    }
}
