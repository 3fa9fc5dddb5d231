//! tcplab-core: a deterministic packet-level discrete-event simulator for TCP
//! over wired (and later wireless) networks.
//!
//! Layers, lowest first; a module only uses the ones above it in this list:
//! `engine` (time, events, RNG) -> `packet` (headers, sizes) -> `net` (links,
//! queues, error models, routing) -> `wireless` (radio propagation, 802.11
//! PHY and DCF MAC) -> `transport` (TCP, UDP, applications) ->
//! `sim` (the world that wires them to the event queue) -> `scenario`
//! (config structs, defaults, validation, builder) -> `output` (tables).

pub mod engine;
pub mod mechanisms;
pub mod net;
pub mod output;
pub mod packet;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod wireless;

pub use output::RunResult;
pub use scenario::{Scenario, ScenarioError};

/// Parse, validate and run a scenario given as TOML text.
pub fn run_toml(text: &str) -> Result<RunResult, ScenarioError> {
    Ok(Scenario::from_toml_str(text)?.build().run())
}

/// Parse, validate and run a scenario given as JSON text (the Python front end
/// hands scenarios over in this form).
pub fn run_json(text: &str) -> Result<RunResult, ScenarioError> {
    Ok(Scenario::from_json_str(text)?.build().run())
}
