//! Packets as plain data: an IP header with ECN bits, and a TCP or UDP header.
//! The size on the wire is the sum of header and payload sizes; link framing
//! (PPP) is added by the link, not stored here.
pub mod pool;
pub use pool::{PacketPool, PktId};

use crate::engine::Time;

/// Node index (position in the world's node table).
pub type NodeId = u32;
/// Flow index (position in the world's flow table).
pub type FlowId = u32;

pub const IP_HEADER: u32 = 20;
pub const TCP_HEADER: u32 = 20;
pub const UDP_HEADER: u32 = 8;

/// ECN field of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect0,
    Ect1,
    Ce,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct IpHeader {
    pub src: NodeId,
    pub dst: NodeId,
    pub ecn: Ecn,
    pub ttl: u8,
}

/// TCP flag bits, as in the header.
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// A SACK block: [start, end) in byte sequence space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// TCP header. Sequence numbers are 64-bit and never wrap inside a
/// simulation; the pcap writer folds them to 32 bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    pub flags: u8,
    /// Advertised receive window in bytes.
    pub window: u32,
    /// Explicit Loss Notification bit (carried on ACKs).
    pub eln: bool,
    /// Timestamps option (TSval, TSecr) when in use.
    pub ts: Option<(u32, u32)>,
    pub sack: [SackBlock; 4],
    pub nsack: u8,
}

impl TcpHeader {
    /// Header bytes including options, laid out as Linux does: NOP, NOP,
    /// timestamps (12 bytes) and NOP, NOP, SACK (4 + 8 per block).
    pub fn wire_len(&self) -> u32 {
        let mut opt = 0;
        if self.ts.is_some() {
            opt += 12;
        }
        if self.nsack > 0 {
            opt += 4 + 8 * self.nsack as u32;
        }
        TCP_HEADER + opt
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct UdpHeader {
    pub seqno: u64,
}

#[derive(Clone, Copy, Debug)]
pub enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Unique id within the run (for traces).
    pub uid: u64,
    pub flow: FlowId,
    pub ip: IpHeader,
    pub l4: Transport,
    /// Application payload bytes.
    pub payload: u32,
    /// IP datagram size: IP + transport headers + payload.
    pub size: u32,
    /// When the packet was created at its source.
    pub born: Time,
}

impl Packet {
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.l4 {
            Transport::Tcp(h) => Some(h),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn tcp_header_sizes() {
        let mut h = TcpHeader::default();
        assert_eq!(h.wire_len(), 20);
        h.ts = Some((1, 2));
        assert_eq!(h.wire_len(), 32); // 10 bytes of option, padded to 12
        h.ts = None;
        h.nsack = 3;
        assert_eq!(h.wire_len(), 20 + 28);
        h.ts = Some((1, 2));
        assert_eq!(h.wire_len(), 20 + 40, "the 40-byte option space is full");
    }
}
