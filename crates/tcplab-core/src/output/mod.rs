//! Results as columnar tables (one column per measure), ready to cross into
//! Python as DataFrames or to be written as CSV. Plain data: no dependency on
//! the rest of the simulator.
pub mod pcap;
pub mod stream;
pub mod table;
use std::path::PathBuf;
pub use stream::{Cell, ColType, RowSink, SinkOutput, StreamedTable};
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
    /// With 802.11: frames given up at the retry limit (nodes.csv
    /// `drops_retry_limit`) that their next hop had decoded, every ACK of
    /// them lost; the packet went on, so it is not lost. None without radio.
    pub retry_drops_received: Option<u64>,
    /// With an ad hoc routing protocol: IP bytes of its control packets
    /// sent by all nodes, and those bytes per byte of data delivered to the
    /// flows' receivers (routing overhead). None with static routing.
    pub routing_bytes: Option<u64>,
    pub routing_overhead: Option<f64>,
    /// Fairness of the flows' throughputs (flows.csv `throughput_bps`), as
    /// the sweeps' metrics of the same names define it
    /// (python/tcplab/metrics.py): (max - min) / min, infinite when a flow
    /// got nothing; Jain's index (sum x)^2 / (n sum x^2). NaN without flows
    /// (and Jain's index when every flow got nothing).
    pub unfairness: f64,
    pub jain: f64,
}

/// (unfairness, Jain's index) of a flows table's `throughput_bps`
/// (`Summary`; the simulator's and the emulator's tables alike).
pub fn flows_fairness(flows: &Table) -> (f64, f64) {
    let rates: Vec<f64> = (0..flows.rows()).filter_map(|i| flows.get("throughput_bps", i)).collect();
    fairness(&rates)
}

/// (unfairness, Jain's index) of some rates (`Summary`).
pub fn fairness(rates: &[f64]) -> (f64, f64) {
    if rates.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let lo = rates.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let unfairness = if lo > 0.0 { (hi - lo) / lo } else { f64::INFINITY };
    let sum: f64 = rates.iter().sum();
    let squares: f64 = rates.iter().map(|x| x * x).sum();
    let jain = if squares > 0.0 { sum * sum / (rates.len() as f64 * squares) } else { f64::NAN };
    (unfairness, jain)
}

#[cfg(test)]
mod tests {
    use super::fairness;

    #[test]
    fn fairness_of_equal_unequal_starved_and_no_flows() {
        assert_eq!(fairness(&[2.0, 2.0, 2.0]), (0.0, 1.0));
        let (u, j) = fairness(&[1.0, 3.0]);
        assert_eq!(u, 2.0);
        assert!((j - 16.0 / 20.0).abs() < 1e-12, "{j}");
        // One flow of n taking everything: Jain's index is 1/n.
        let (u, j) = fairness(&[0.0, 0.0, 5.0, 0.0]);
        assert!(u.is_infinite());
        assert!((j - 0.25).abs() < 1e-12);
        let (u, j) = fairness(&[0.0, 0.0]);
        assert!(u.is_infinite() && j.is_nan());
        let (u, j) = fairness(&[]);
        assert!(u.is_nan() && j.is_nan());
    }
}

/// Everything a run produces.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    /// One row per flow.
    pub flows: Table,
    /// One row per link direction.
    pub links: Table,
    /// One row per node with an 802.11 device (empty without `[wireless]`).
    pub nodes: Table,
    /// Flow time series (empty unless a sampling interval was set).
    pub series: Table,
    /// Queue-length time series per link direction (same condition).
    pub queues: Table,
    /// Time-sequence trace of TCP segments (empty unless tracing was on).
    pub trace: Table,
    /// Capture files: (name, libpcap bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
    /// Capture files written during the run (`RunOptions::stream_dir`):
    /// (name, file); these are not in `pcaps`.
    pub pcap_files: Vec<(String, PathBuf)>,
    pub summary: Summary,
    /// Tables written to files during the run (`RunOptions::stream_dir`):
    /// (table name, file). Their in-memory `Table` above is then empty.
    pub streamed: Vec<(String, StreamedTable)>,
}

/// How to run, beyond what the scenario says.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Write the trace, the sampled series and the captures into this
    /// (existing) directory while the run goes on, so memory stays flat
    /// whatever the run length: `trace.csv`, `series.csv`, `queues.csv`,
    /// `NAME.pcap`.
    pub stream_dir: Option<PathBuf>,
    /// The flows' ends are outside the simulation (the emulator carrying a
    /// real TCP stack's packets, `sim/external.rs`): no sockets and no
    /// applications; static routes to the flows' nodes as usual, and
    /// packets that reach a node without a socket are handed out.
    pub external: bool,
}

/// Why a run stopped without a result.
#[derive(Debug)]
pub enum RunError {
    /// The interruption check (e.g. Ctrl-C in the front end) asked to stop.
    Interrupted,
    /// More events pending at once than the event queue can hold.
    QueueOverflow { at_s: f64, pending: usize },
    /// A streamed table could not be written (full disk, removed directory).
    Io(std::io::Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            RunError::Interrupted => write!(f, "interrupted"),
            RunError::QueueOverflow { at_s, pending } => write!(
                f,
                "the run needs more than {pending} pending events at once (at t = {at_s} s): \
                 packets in flight on links plus timers; lower link rate x delay products, \
                 CBR rates or the number of flows"
            ),
            RunError::Io(e) => write!(f, "cannot write results: {e}"),
        }
    }
}

impl std::error::Error for RunError {}
