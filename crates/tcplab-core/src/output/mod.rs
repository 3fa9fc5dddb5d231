//! Results as columnar tables (one column per measure), ready to cross into
//! Python as DataFrames or to be written as CSV. Plain data: no dependency on
//! the rest of the simulator.
pub mod pcap;
pub mod table;
pub use table::{Column, Table};

/// Per-run facts for summary.json.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub seed: u64,
    pub duration_s: f64,
    pub events: u64,
    pub wall_s: f64,
    pub packets_created: u64,
    /// Where every created packet ended: handed to a socket or a routing
    /// protocol, consumed by a per-hop agent, dropped (by the causes counted
    /// in the links table and below), or still in flight at the end.
    pub packets_delivered: u64,
    pub packets_consumed: u64,
    pub drops_no_route: u64,
    pub drops_ttl: u64,
    pub drops_no_socket: u64,
    pub packets_in_flight: u64,
}

/// Everything a run produces.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// One row per flow.
    pub flows: Table,
    /// One row per link direction.
    pub links: Table,
    /// Flow time series (empty unless a sampling interval was set).
    pub series: Table,
    /// Queue-length time series per link direction (same condition).
    pub queues: Table,
    /// Time-sequence trace of TCP segments (empty unless tracing was on).
    pub trace: Table,
    /// Capture files: (name, libpcap bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
    pub summary: Summary,
}
