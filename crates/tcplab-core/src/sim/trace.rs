//! What the world records while it runs: time-sequence trace records and
//! packet captures.

use crate::net::DevId;
use crate::packet::NodeId;

/// What happened to a segment, for time-sequence traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    Send,
    Retransmit,
    Ack,
    DupAck,
    /// A Snoop agent resent a cached segment.
    LocalRetransmit,
    /// One SACK block carried by an arriving ACK (seq = block start).
    Sack,
    Drop,
    /// An ACK of nothing new that changes the window or answers a window
    /// probe (a split connection's source: `sim/split.rs`).
    WindowUpdate,
    /// A window probe sent by the persist timer.
    WindowProbe,
}

impl TraceKind {
    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Send => "send",
            TraceKind::Retransmit => "retransmit",
            TraceKind::Ack => "ack",
            TraceKind::DupAck => "dupack",
            TraceKind::LocalRetransmit => "local_retransmit",
            TraceKind::Sack => "sack",
            TraceKind::Drop => "drop",
            TraceKind::WindowUpdate => "window_update",
            TraceKind::WindowProbe => "window_probe",
        }
    }
}

/// A capture point: one device (packets as they go on its medium) or one
/// node (packets it sends and receives).
pub struct Capture {
    pub name: String,
    pub dev: Option<DevId>,
    pub node: Option<NodeId>,
    pub writer: crate::output::pcap::PcapWriter,
}
