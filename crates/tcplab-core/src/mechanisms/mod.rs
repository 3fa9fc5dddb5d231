//! Per-hop mechanisms that sit on the path of a connection, as agents
//! attached to a node: Snoop at a base station, ELN marking.
pub mod agent;
pub mod eln;
pub mod snoop;
pub mod snoop_agent;

pub use agent::{Agent, AgentAction, AgentIo, ConnKey, Verdict};
pub use eln::ElnAgent;
pub use snoop_agent::SnoopAgent;
