//! Packets as plain data: an optional link-layer header, an IP header with
//! ECN bits and TTL, and a TCP, UDP or control (routing/MAC message) header.
//! The IP datagram size is the sum of header and payload sizes; per-link
//! framing (PPP) is added by the device, a link-layer header that travels
//! with the packet (802.11) is counted by `LinkHeader::wire_len`.
pub mod pool;
pub use pool::{PacketPool, PktId};

use crate::engine::Time;

/// Node index (position in the world's node table).
pub type NodeId = u32;
/// Flow index (position in the world's flow table). Packets carry it only as
/// a measurement tag (like ns-2's `fid_`): traces and captures name the flow
/// with it; nothing forwards or demultiplexes on it.
pub type FlowId = u32;
/// The flow tag of packets that belong to no flow (routing messages, MAC frames).
pub const NO_FLOW: FlowId = FlowId::MAX;

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
    /// Decremented by every node that forwards the packet; a router drops a
    /// packet whose TTL would reach 0.
    pub ttl: u8,
    /// Bytes of IP options or extension headers (e.g. a DSR source route)
    /// counted in the packet size.
    pub options_len: u16,
}

/// The receiver address of a broadcast frame.
pub const BROADCAST: NodeId = NodeId::MAX;

/// Initial TTL of every packet (Linux's default).
pub const DEFAULT_TTL: u8 = 64;

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
    pub sport: u16,
    pub dport: u16,
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
    pub sport: u16,
    pub dport: u16,
    pub seqno: u64,
}

/// A control message that belongs to no transport connection: a routing
/// protocol's packet or a management frame. Its contents are kept outside
/// the fixed-size packet (`blob`, owned by the pool) because they vary in
/// length; `len` is what the message occupies on the wire.
#[derive(Clone, Copy, Debug, Default)]
pub struct ControlHeader {
    /// Which protocol the message belongs to (routing protocols choose).
    pub proto: u16,
    /// Message type within the protocol.
    pub kind: u16,
    /// Bytes on the wire after the IP header.
    pub len: u32,
    /// The message body, if any, in the pool's blob store.
    pub blob: Option<BlobId>,
}

/// Index of a variable-length message body in the packet pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlobId(pub u32);

#[derive(Clone, Copy, Debug)]
pub enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
    Control(ControlHeader),
}

/// Link-layer header carried with the packet while it crosses a hop whose
/// device frames it (point-to-point links frame by a fixed per-link byte
/// count instead and leave this `None`).
#[derive(Clone, Copy, Debug, Default)]
pub enum LinkHeader {
    #[default]
    None,
    /// A MAC header: transmitter and receiver (`BROADCAST` for all), frame
    /// kind chosen by the MAC, and its length on the wire.
    Mac { tx: NodeId, rx: NodeId, kind: u8, len: u16 },
}

impl LinkHeader {
    pub fn wire_len(&self) -> u32 {
        match self {
            LinkHeader::None => 0,
            LinkHeader::Mac { len, .. } => *len as u32,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Unique id within the run (for traces).
    pub uid: u64,
    /// Measurement tag (see `FlowId`); `NO_FLOW` for control packets.
    pub flow: FlowId,
    pub l2: LinkHeader,
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
    /// A new packet with the default TTL; its size is the IP header, the
    /// transport header `l4_len` and the payload.
    pub fn new(flow: FlowId, src: NodeId, dst: NodeId, l4: Transport, l4_len: u32, payload: u32, born: Time) -> Self {
        Packet {
            uid: 0,
            flow,
            l2: LinkHeader::None,
            ip: IpHeader { src, dst, ecn: Ecn::NotEct, ttl: DEFAULT_TTL, options_len: 0 },
            l4,
            payload,
            size: IP_HEADER + l4_len + payload,
            born,
        }
    }

    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.l4 {
            Transport::Tcp(h) => Some(h),
            _ => None,
        }
    }

    /// (source port, destination port) of a TCP or UDP packet.
    pub fn ports(&self) -> Option<(u16, u16)> {
        match &self.l4 {
            Transport::Tcp(h) => Some((h.sport, h.dport)),
            Transport::Udp(h) => Some((h.sport, h.dport)),
            Transport::Control(_) => None,
        }
    }

    /// The transmitter of a frame carrying a MAC header.
    pub fn l2_tx(&self) -> Option<NodeId> {
        match self.l2 {
            LinkHeader::Mac { tx, .. } => Some(tx),
            LinkHeader::None => None,
        }
    }

    pub fn is_ect(&self) -> bool {
        matches!(self.ip.ecn, Ecn::Ect0 | Ecn::Ect1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn packet_stays_small() {
        // Packets are copied on every delivery: keep the hot struct compact.
        assert!(std::mem::size_of::<Packet>() <= 160, "{}", std::mem::size_of::<Packet>());
        assert_eq!(std::mem::size_of::<LinkHeader>(), 12);
    }

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
