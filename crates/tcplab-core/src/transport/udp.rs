//! UDP: datagrams with a sequence number so the sink can count losses.

#[derive(Clone, Debug, Default)]
pub struct UdpStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_received: u64,
    pub bytes_received: u64,
}

#[derive(Clone, Debug, Default)]
pub struct UdpFlow {
    pub next_seq: u64,
    pub payload: u32,
    pub stats: UdpStats,
    pub last_rx: u64,
}
