//! A whole simulated network as a carrier (802.11 stations on a radio
//! channel, ad hoc or static routing, base stations with wired links): the
//! core's world itself, run in real time, with the kernels standing in for
//! the two end nodes of the scenario's flows. A packet a kernel sends is
//! handed in at its end node (`World::inject`: an IP packet of its real size
//! that the MAC, the queues and the routing protocol carry as any other)
//! and handed back when the model delivers it at the other end
//! (`World::take_delivered`); its bytes wait here meanwhile.

use crate::ippkt;
use crate::relay::Released;
use std::collections::{HashMap, HashSet};
use tcplab_core::engine::time::SEC;
use tcplab_core::engine::Time;
use tcplab_core::output::RunOptions;
use tcplab_core::packet::NodeId;
use tcplab_core::scenario::ScenarioCfg;
use tcplab_core::sim::external::ExternalPacket;
use tcplab_core::sim::World;
use tcplab_core::{Scenario, ScenarioError};

pub struct NetworkCarrier {
    pub world: World,
    /// The end nodes (end 0: the first flow's `from`) and their names.
    pub ends: [NodeId; 2],
    pub end_names: [String; 2],
    /// The bytes of the packets in the network, by uid, with the end they
    /// came from.
    bytes: HashMap<u64, (usize, Vec<u8>)>,
    /// When to forget the bytes of packets the network dropped.
    next_sweep: Time,
}

/// The two end nodes of the flows (all flows run between the same two, in
/// either direction: the emulator has two namespaces).
pub fn ends_of(cfg: &ScenarioCfg) -> Result<[String; 2], ScenarioError> {
    let Some(f0) = cfg.flow.first() else {
        return Err(ScenarioError::new("flow", "the emulator needs at least one flow"));
    };
    let ends = [f0.from.clone(), f0.to.clone()];
    for (i, f) in cfg.flow.iter().enumerate() {
        for (key, n) in [("from", &f.from), ("to", &f.to)] {
            if !ends.contains(n) {
                return Err(ScenarioError::new(
                    format!("flow[{i}].{key}"),
                    format!(
                        "the emulator has two ends, the nodes of the first flow ({:?} and {:?}); every flow runs between them",
                        ends[0], ends[1]
                    ),
                ));
            }
        }
    }
    Ok(ends)
}

impl NetworkCarrier {
    pub fn new(sc: &Scenario) -> Result<NetworkCarrier, ScenarioError> {
        let end_names = ends_of(&sc.cfg)?;
        let id = |n: &str| sc.cfg.node.iter().position(|x| x.name == n).expect("validated") as NodeId;
        let world = sc
            .build_with(&RunOptions { external: true, ..Default::default() })
            .map_err(|e| ScenarioError::new("", e.to_string()))?;
        Ok(NetworkCarrier {
            world,
            ends: [id(&end_names[0]), id(&end_names[1])],
            end_names,
            bytes: HashMap::new(),
            next_sweep: SEC,
        })
    }

    /// Packets in the network.
    pub fn held(&self) -> u64 {
        self.bytes.len() as u64
    }

    pub fn next_due(&mut self) -> Option<Time> {
        self.world.next_due()
    }

    /// A packet the kernel of end `side` sent, read at `now`.
    pub fn ingress(&mut self, side: usize, buf: Vec<u8>, m: ippkt::Meta, now: Time) {
        let (sport, dport) = ippkt::ports(&buf).unwrap_or((0, 0));
        let x = ExternalPacket {
            src: self.ends[side],
            dst: self.ends[1 - side],
            size: m.size,
            payload: m.payload,
            sport,
            dport,
            ect: m.ect,
        };
        let uid = self.world.inject(now, x);
        self.bytes.insert(uid, (side, buf));
    }

    /// Run the network up to `t`; the packets it delivered go to `out`.
    pub fn advance_to(&mut self, t: Time, out: &mut Vec<Released>) {
        self.world.step_until(t);
        for d in self.world.take_delivered() {
            // (A duplicate the network delivers twice finds its bytes gone.)
            if let Some((side, mut buf)) = self.bytes.remove(&d.uid) {
                if d.ce {
                    ippkt::set_ce(&mut buf);
                }
                out.push(Released { due: d.at, to: 1 - side, buf });
            }
        }
        if t >= self.next_sweep {
            // Packets the network dropped are no longer in its pool.
            let live: HashSet<u64> = self.world.pool.alive().map(|(_, p)| p.uid).collect();
            self.bytes.retain(|uid, _| live.contains(uid));
            self.next_sweep = t + SEC;
        }
    }
}
