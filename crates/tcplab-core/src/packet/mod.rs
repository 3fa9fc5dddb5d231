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
#[repr(C)]
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
///
/// Laid out for the packet slot's first cache line (see `Packet`): what
/// every delivery reads (sequence numbers, ports, flags, window) first, the
/// options last; 72 bytes, one of them padding (after `eln`).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    pub sport: u16,
    pub dport: u16,
    pub flags: u8,
    /// SACK blocks carried (0 to 4); set with `set_sack`.
    pub nsack: u8,
    /// Explicit Loss Notification bit (carried on ACKs).
    pub eln: bool,
    /// Advertised receive window in bytes.
    pub window: u32,
    /// Timestamps option (TSval, TSecr) when in use.
    pub ts: Option<(u32, u32)>,
    /// The SACK blocks' edges as the option carries them (`set_sack`,
    /// `sack_blocks`).
    pub sack: SackEdges,
}

/// The edges of up to four SACK blocks as the option carries them on the
/// wire: 32-bit sequence numbers (RFC 2018). A block is read back as the
/// 64-bit sequence nearest the header's cumulative ACK, the way a real
/// stack compares sequence numbers modulo 2^32; blocks lie within the
/// receive window of the ACK, and TCP's windows stay below 2^30 bytes
/// (RFC 7323), so the 64-bit values come back exactly. Half the bytes of
/// four 64-bit pairs: that is what keeps a packet in two cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SackEdges([u32; 8]);

impl SackEdges {
    /// The edges of `blocks` (at most four), for a header whose cumulative
    /// ACK is `ack` (see `TcpHeader::sack_blocks`).
    #[inline]
    pub fn of(blocks: &[SackBlock], ack: u64) -> SackEdges {
        assert!(blocks.len() <= 4, "a SACK option holds at most 4 blocks, not {}", blocks.len());
        let mut e = [0u32; 8];
        for (i, b) in blocks.iter().enumerate() {
            debug_assert!(
                unfold(b.start as u32, ack) == b.start && unfold(b.end as u32, ack) == b.end,
                "SACK block {b:?} lies 2^31 bytes or more from the cumulative ACK {ack}"
            );
            e[2 * i] = b.start as u32;
            e[2 * i + 1] = b.end as u32;
        }
        SackEdges(e)
    }
}

/// The SACK blocks of a header, in the order the option lists them.
#[derive(Clone, Copy, Debug, Default)]
pub struct SackBlocks {
    blocks: [SackBlock; 4],
    n: u8,
}

impl std::ops::Deref for SackBlocks {
    type Target = [SackBlock];
    fn deref(&self) -> &[SackBlock] {
        &self.blocks[..self.n as usize]
    }
}

/// The 64-bit sequence number whose low 32 bits are `wire`, nearest `near`.
#[inline]
fn unfold(wire: u32, near: u64) -> u64 {
    near.wrapping_add(wire.wrapping_sub(near as u32) as i32 as i64 as u64)
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

    /// Carry `blocks` (at most four) in the SACK option. `ack` must be set
    /// first: the blocks are read back relative to it.
    pub fn set_sack(&mut self, blocks: &[SackBlock]) {
        self.sack = SackEdges::of(blocks, self.ack);
        self.nsack = blocks.len() as u8;
    }

    /// The SACK blocks carried, as 64-bit sequence numbers.
    #[inline]
    pub fn sack_blocks(&self) -> SackBlocks {
        let (ack, SackEdges(e)) = (self.ack, self.sack);
        let mut out = SackBlocks { blocks: [SackBlock::default(); 4], n: self.nsack };
        for (i, b) in out.blocks.iter_mut().enumerate().take(self.nsack as usize) {
            *b = SackBlock { start: unfold(e[2 * i], ack), end: unfold(e[2 * i + 1], ack) };
        }
        out
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

/// A packet. `repr(C)` in this order so that, in the pool's 128-byte slots
/// that start on a cache line, everything a forwarding hop reads (sizes,
/// IP and link headers) and what a delivery reads of the transport header
/// (sequence numbers, ports, flags, window) share the slot's first line;
/// the options, the uid, the birth time and the flow tag (read by traces
/// and statistics) fill the second, with the pool's reference count in
/// what would otherwise be padding.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Packet {
    /// IP datagram size: IP + transport headers + payload.
    pub size: u32,
    /// Application payload bytes.
    pub payload: u32,
    pub ip: IpHeader,
    pub l2: LinkHeader,
    pub l4: Transport,
    /// Unique id within the run (for traces).
    pub uid: u64,
    /// When the packet was created at its source.
    pub born: Time,
    /// Measurement tag (see `FlowId`); `NO_FLOW` for control packets.
    pub flow: FlowId,
    /// Holders of the pool slot this packet is stored in (`PacketPool`);
    /// meaningless in a copy taken out of the pool.
    pub(super) refs: u32,
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
            refs: 0,
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

    /// ECN-capable for a queue's decision: ECT(0), ECT(1), or CE set by
    /// an earlier queue. A queue that would signal congestion to a CE
    /// packet leaves it marked instead of dropping it: ns-2 keeps its
    /// ect_ bit beside ce_ (RED marks the packet again), Linux's
    /// INET_ECN_set_ce() reports success on CE, and RFC 3168 section 5
    /// has the router set CE only in ECN-capable packets, which a CE
    /// packet is.
    pub fn is_ect(&self) -> bool {
        matches!(self.ip.ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ce_packet_is_still_ecn_capable_for_queues() {
        let mut p = Packet::new(0, 0, 1, Transport::Tcp(TcpHeader::default()), TCP_HEADER, 0, 0);
        assert!(!p.is_ect());
        for e in [Ecn::Ect0, Ecn::Ect1, Ecn::Ce] {
            p.ip.ecn = e;
            assert!(p.is_ect(), "{e:?}: a second RED or CoDel leaves it marked rather than dropping it");
        }
    }
    #[test]
    fn packet_stays_small() {
        // A packet and its pool's reference count fill one 128-byte slot
        // (two cache lines); a hop and a delivery read the first line only
        // (see `Packet`): the transport header's hot fields end within it.
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<Packet>(), 128);
        assert_eq!(size_of::<LinkHeader>(), 12);
        let p = Packet::new(0, 0, 1, Transport::Tcp(TcpHeader::default()), TCP_HEADER, 0, 0);
        let Transport::Tcp(h) = &p.l4 else { unreachable!() };
        let at = |f: *const u8| f as usize - &p as *const Packet as usize;
        assert!(offset_of!(Packet, l4) >= offset_of!(Packet, l2) + size_of::<LinkHeader>());
        assert!(at(&h.ts as *const _ as *const u8) <= 64, "window and flags in the first line");
    }

    #[test]
    fn tcp_header_sizes() {
        let mut h = TcpHeader::default();
        assert_eq!(h.wire_len(), 20);
        h.ts = Some((1, 2));
        assert_eq!(h.wire_len(), 32); // 10 bytes of option, padded to 12
        h.ts = None;
        h.set_sack(&[SackBlock { start: 1, end: 2 }; 3]);
        assert_eq!(h.wire_len(), 20 + 28);
        h.ts = Some((1, 2));
        assert_eq!(h.wire_len(), 20 + 40, "the 40-byte option space is full");
    }

    #[test]
    fn sack_blocks_come_back_as_64_bit_sequence_numbers() {
        // Blocks above and below the cumulative ACK, across a 2^32 boundary.
        let ack = (5u64 << 32) - 1000;
        let mut h = TcpHeader { ack, ..Default::default() };
        let blocks = [
            SackBlock { start: ack + 500, end: ack + 2000 },
            SackBlock { start: ack + (1 << 30), end: ack + (1 << 30) + 1460 },
            SackBlock { start: ack - 3000, end: ack - 1000 },
        ];
        h.set_sack(&blocks);
        assert_eq!(h.nsack, 3);
        assert_eq!(&*h.sack_blocks(), &blocks[..]);
        h.set_sack(&[]);
        assert!(h.sack_blocks().is_empty());
        assert_eq!(h.wire_len(), 20);
    }
}
