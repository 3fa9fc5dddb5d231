//! libpcap capture files with real IPv4 / TCP / UDP header bytes, readable by
//! tcpdump, Wireshark and tshark. Link type RAW (IPv4 without a link header),
//! nanosecond timestamps. Only headers are captured (the payload is not
//! simulated): each record's captured length is the header length and its
//! original length the packet's full IP size, as with a short snap length.
//!
//! Addresses: node i is 10.(i / 65536 % 256).(i / 256 % 256).(i % 256 + 1)... kept
//! simple as 10.0.x.y with x.y = i + 1. Ports: the flow's sender uses
//! 10000 + flow index, its receiver 5001. Sequence numbers are the
//! simulator's byte numbers modulo 2^32 (the connection starts at 0, without
//! a SYN). A connection that opens with a SYN and whose windows can exceed
//! 65535 bytes shows RFC 7323's window scaling: its SYN and SYN-ACK carry a
//! window-scale option (the receiver's shift of Linux's window model, else
//! the smallest that fits the configured window; the option's 4 bytes are
//! the capture's, not the simulated SYN's), and later windows are written
//! shifted by it (a fixed window that is no multiple of the scale's unit is
//! shown rounded down, by less than that unit). Otherwise windows above
//! 65535 bytes are clamped (no scaling without a handshake).

use crate::packet::{Ecn, Packet, Transport, BROADCAST};

pub const LINKTYPE_RAW: u32 = 101;
/// IEEE 802.11 frames without radiotap header or FCS.
pub const LINKTYPE_IEEE802_11: u32 = 105;

/// A capture file, in memory or written to disk in chunks as it grows.
#[derive(Debug)]
pub struct PcapWriter {
    /// The bytes not yet written out (all of them for an in-memory capture).
    pub buf: Vec<u8>,
    /// Where the file goes when streamed, and the first write error.
    file: Option<(std::fs::File, std::path::PathBuf)>,
    error: Option<std::io::Error>,
    /// For a node capture: the node. Each packet it forwards is offered
    /// twice (arriving, then leaving); only the arrival is recorded, or
    /// Wireshark would flag every forwarded segment as a retransmission.
    node: Option<u32>,
    /// uids of transit packets recorded on arrival and not yet seen leaving.
    in_transit: std::collections::HashSet<u64>,
    /// An 802.11 capture (`for_wifi_node`): records frames, not IP packets.
    wifi: bool,
    /// By flow: the sender's node and the window scales when the
    /// connection opens with a SYN. The simulated SYN takes no sequence
    /// number (as ns-2's), so in the capture its connection's numbers are
    /// those of a real handshake: the SYN and the SYN-ACK take one each
    /// (`TcpView`).
    syn_senders: std::sync::Arc<[Option<SynFlow>]>,
}

/// A flow that opens with a SYN, as its captures show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SynFlow {
    /// The sender's node.
    pub sender: u32,
    /// The window-scale shifts (RFC 7323) of the windows the sender and
    /// the receiver advertise.
    pub scale: [u8; 2],
}

/// The smallest window-scale shift that shows `window` bytes in the
/// 16-bit field (at most 14, RFC 7323 2.3).
pub fn scale_for(window: u64) -> u8 {
    let mut s = 0;
    while s < 14 && window >> s > 65_535 {
        s += 1;
    }
    s
}

/// How a TCP packet's numbers are written: as simulated, or shifted by the
/// one sequence number a real SYN (and SYN-ACK) takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TcpView {
    AsIs,
    /// A connection that opened with a SYN, seen from its sender's side
    /// (`true`) or its receiver's; `scale`: the window-scale shift of the
    /// side that sent the packet, when the handshake shows the option.
    Handshake {
        from_sender: bool,
        scale: Option<u8>,
    },
}

impl Default for PcapWriter {
    fn default() -> Self {
        Self::new()
    }
}

fn csum_add(mut sum: u32, bytes: &[u8]) -> u32 {
    for c in bytes.chunks(2) {
        let w = if c.len() == 2 { u16::from_be_bytes([c[0], c[1]]) } else { u16::from_be_bytes([c[0], 0]) };
        sum += w as u32;
    }
    sum
}

fn csum_fold(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Node n's IPv4 address in captures: 10.x.y.z for n + 1; a broadcast
/// (routing messages to all neighbours) is the limited broadcast address
/// 255.255.255.255 (it overflowed n + 1 before: a panic in debug builds,
/// 10.0.0.0 in release ones).
pub fn node_addr(n: u32) -> [u8; 4] {
    if n == BROADCAST {
        return [255; 4];
    }
    let x = n + 1;
    [10, (x >> 16) as u8, (x >> 8) as u8, x as u8]
}

impl PcapWriter {
    pub fn new() -> Self {
        let mut buf = Vec::with_capacity(4096);
        buf.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes()); // nanosecond magic
        buf.extend_from_slice(&2u16.to_le_bytes());
        buf.extend_from_slice(&4u16.to_le_bytes());
        buf.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        buf.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        buf.extend_from_slice(&65535u32.to_le_bytes()); // snaplen
        buf.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        PcapWriter {
            buf,
            node: None,
            in_transit: Default::default(),
            file: None,
            error: None,
            wifi: false,
            syn_senders: std::sync::Arc::from([]),
        }
    }

    /// Which flows open with a SYN, and from which node (see `syn_senders`).
    pub fn with_syn_senders(mut self, senders: std::sync::Arc<[Option<SynFlow>]>) -> Self {
        self.syn_senders = senders;
        self
    }

    fn view(&self, p: &Packet) -> TcpView {
        match self.syn_senders.get(p.flow as usize) {
            Some(&Some(f)) if matches!(p.l4, Transport::Tcp(_)) => {
                let from_sender = p.ip.src == f.sender;
                // The option only where a window needs it (both sides then
                // send it, as RFC 7323 asks): a SYN without it has the
                // simulated size (ns-2's SYN has no options).
                let scale = (f.scale != [0, 0]).then_some(f.scale[usize::from(!from_sender)]);
                TcpView::Handshake { from_sender, scale }
            }
            _ => TcpView::AsIs,
        }
    }

    /// Write the capture to `path` (created now) in chunks of
    /// `stream::CHUNK_BYTES` instead of keeping it in memory.
    pub fn streamed_to(mut self, path: &std::path::Path) -> std::io::Result<Self> {
        self.file = Some((std::fs::File::create(path)?, path.to_path_buf()));
        Ok(self)
    }

    /// The first error writing a streamed capture (full disk).
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    fn flush(&mut self) {
        use std::io::Write;
        if let (Some((f, _)), None) = (&mut self.file, &self.error) {
            if let Err(e) = f.write_all(&self.buf) {
                self.error = Some(e);
            }
        }
        self.buf.clear();
    }

    /// The file of a streamed capture once every record is on disk, or None
    /// for an in-memory one (its bytes are in `buf`).
    pub fn finish(&mut self) -> std::io::Result<Option<std::path::PathBuf>> {
        if self.file.is_none() {
            return Ok(None);
        }
        self.flush();
        let (_, path) = self.file.take().expect("checked above");
        match self.error.take() {
            Some(e) => Err(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
            None => Ok(Some(path)),
        }
    }

    /// A capture of everything node `n` receives or sends, each packet once.
    pub fn for_node(n: u32) -> Self {
        PcapWriter { node: Some(n), ..Self::new() }
    }

    /// A capture of the 802.11 frames node `n`'s radio sends and decodes (as
    /// a monitor-mode interface sees them): data, RTS, CTS and ACK frames,
    /// link type IEEE802_11 (no radiotap header, no FCS).
    pub fn for_wifi_node(n: u32) -> Self {
        let mut w = PcapWriter { node: Some(n), wifi: true, ..Self::new() };
        w.buf[20..24].copy_from_slice(&LINKTYPE_IEEE802_11.to_le_bytes());
        w
    }

    pub fn is_wifi(&self) -> bool {
        self.wifi
    }

    /// Append one 802.11 frame seen at `now_ns` (`duration_us`: its
    /// duration field; `retry`: a retransmission by this station).
    pub fn record_frame(&mut self, now_ns: u64, p: &Packet, duration_us: u16, retry: bool) {
        let (bytes, orig) = wifi_frame(p, duration_us, retry, self.view(p));
        self.push_record(now_ns, &bytes, orig);
    }

    fn push_record(&mut self, now_ns: u64, bytes: &[u8], orig_len: u32) {
        self.buf.extend_from_slice(&((now_ns / 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend_from_slice(&((now_ns % 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(&orig_len.to_le_bytes());
        self.buf.extend_from_slice(bytes);
        if self.file.is_some() && self.buf.len() >= super::stream::CHUNK_BYTES {
            self.flush();
        }
    }

    /// Append one packet seen at `now_ns` (a node capture lists a packet it
    /// forwards once, on arrival). An 802.11 capture ignores IP packets.
    pub fn record(&mut self, now_ns: u64, p: &Packet) {
        if self.wifi {
            return;
        }
        if let Some(n) = self.node {
            if p.ip.src != n && p.ip.dst != n && !self.in_transit.insert(p.uid) {
                self.in_transit.remove(&p.uid);
                return; // the forwarded packet leaving again
            }
        }
        let (hdr, size) = packet_headers(p, self.view(p));
        self.push_record(now_ns, &hdr, size);
    }
}

/// The MAC address of node `n`: locally administered, 02:00:00 and n + 1.
pub fn mac_addr(n: u32) -> [u8; 6] {
    if n == crate::packet::BROADCAST {
        return [0xff; 6];
    }
    let x = n + 1;
    [0x02, 0, 0, (x >> 16) as u8, (x >> 8) as u8, x as u8]
}

/// The bytes of an 802.11 frame (no FCS) and its length on the air without
/// the FCS. Data frames carry an LLC/SNAP header (IPv4) and the packet's IP
/// and transport headers; the payload is not simulated, so the captured
/// length is shorter than the original one. Ad hoc (IBSS) addressing: the
/// BSSID is 02:00:00:00:00:00.
pub fn wifi_frame(p: &Packet, duration_us: u16, retry: bool, view: TcpView) -> (Vec<u8>, u32) {
    use crate::wireless::mac::frame;
    let crate::packet::LinkHeader::Mac { tx, rx, kind, .. } = p.l2 else {
        return (Vec::new(), 0);
    };
    // Frame control: protocol 0, type (2 bits) and subtype (4 bits) in the
    // first byte; flags in the second (0x08 = retry).
    let fc0: u8 = match kind {
        frame::RTS => 0xb4,
        frame::CTS => 0xc4,
        frame::ACK => 0xd4,
        _ => 0x08,
    };
    let mut f = vec![fc0, if retry { 0x08 } else { 0 }];
    f.extend_from_slice(&duration_us.to_le_bytes());
    f.extend_from_slice(&mac_addr(rx));
    match kind {
        frame::CTS | frame::ACK => return (f.clone(), f.len() as u32),
        frame::RTS => {
            f.extend_from_slice(&mac_addr(tx));
            return (f.clone(), f.len() as u32);
        }
        _ => {}
    }
    f.extend_from_slice(&mac_addr(tx));
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0]);
    f.extend_from_slice(&(((p.uid & 0xfff) as u16) << 4).to_le_bytes());
    f.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]);
    let head = f.len() as u32;
    let (hdr, size) = packet_headers(p, view);
    f.extend_from_slice(&hdr);
    (f, head + size)
}

/// The IPv4 and transport header bytes of a packet, and its size in the
/// capture: the simulated size, plus the window-scale option a SYN shows
/// (4 bytes the simulated SYN does not carry).
pub fn packet_headers(p: &Packet, view: TcpView) -> (Vec<u8>, u32) {
    let mut size = p.size;
    let (proto, l4) = match &p.l4 {
        Transport::Tcp(h) => {
            let h = shown(h, view);
            let t = tcp_header(p, &h, view);
            size += t.len() as u32 - h.wire_len();
            (6u8, t)
        }
        Transport::Udp(h) => (17u8, udp_header(p, h)),
        // Routing messages: IP protocol 253 ("for experimentation", RFC
        // 3692); the body is not written.
        Transport::Control(_) => (253u8, Vec::new()),
    };
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[1] = match p.ip.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect1 => 1,
        Ecn::Ect0 => 2,
        Ecn::Ce => 3,
    };
    ip[2..4].copy_from_slice(&(size.min(65535) as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&(p.uid as u16).to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = p.ip.ttl;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&node_addr(p.ip.src));
    ip[16..20].copy_from_slice(&node_addr(p.ip.dst));
    let c = csum_fold(csum_add(0, &ip));
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    let mut out = ip.to_vec();
    out.extend_from_slice(&l4);
    (out, size)
}

/// Checksum over the pseudo-header, the transport header and a payload of
/// zeros (the simulator carries no payload bytes).
fn l4_checksum(p: &Packet, proto: u8, header: &[u8]) -> u16 {
    let l4_len = header.len() as u32 + p.payload;
    let mut pseudo = Vec::with_capacity(12);
    pseudo.extend_from_slice(&node_addr(p.ip.src));
    pseudo.extend_from_slice(&node_addr(p.ip.dst));
    pseudo.extend_from_slice(&[0, proto]);
    pseudo.extend_from_slice(&(l4_len as u16).to_be_bytes());
    csum_fold(csum_add(csum_add(0, &pseudo), header))
}

/// The header as a capture shows it (`TcpView`): with a handshake, the
/// sender's data start at 1 and its ACK field acknowledges the SYN-ACK; the
/// receiver's SYN-ACK is sequence 0 acknowledging 1, its later ACKs are
/// sequence 1 and acknowledge (and SACK) one more than simulated.
fn shown(h: &crate::packet::TcpHeader, view: TcpView) -> crate::packet::TcpHeader {
    use crate::packet::flags;
    let mut h = *h;
    let TcpView::Handshake { from_sender, .. } = view else { return h };
    let syn = h.flags & flags::SYN != 0;
    match (from_sender, syn) {
        (true, true) => {}
        (true, false) => {
            h.seq += 1;
            if h.flags & flags::ACK != 0 {
                h.ack = 1;
            }
        }
        (false, true) => (h.seq, h.ack) = (0, 1),
        (false, false) => {
            (h.seq, h.ack) = (1, h.ack + 1);
            let blocks: Vec<_> = h
                .sack_blocks()
                .iter()
                .map(|b| crate::packet::SackBlock { start: b.start + 1, end: b.end + 1 })
                .collect();
            h.set_sack(&blocks);
        }
    }
    h
}

/// The TCP header's bytes as `view` shows them.
fn tcp_header(p: &Packet, h: &crate::packet::TcpHeader, view: TcpView) -> Vec<u8> {
    let mut opts: Vec<u8> = Vec::new();
    let syn = h.flags & crate::packet::flags::SYN != 0;
    let scale = match view {
        TcpView::Handshake { scale, .. } => scale,
        TcpView::AsIs => None,
    };
    if let (true, Some(s)) = (syn, scale) {
        // NOP, window scale (kind 3, length 3).
        opts.extend_from_slice(&[1, 3, 3, s]);
    }
    if let Some((val, ecr)) = h.ts {
        opts.extend_from_slice(&[1, 1, 8, 10]);
        opts.extend_from_slice(&val.to_be_bytes());
        opts.extend_from_slice(&ecr.to_be_bytes());
    }
    if h.nsack > 0 {
        opts.extend_from_slice(&[1, 1, 5, 2 + 8 * h.nsack]);
        for b in h.sack_blocks().iter() {
            opts.extend_from_slice(&(b.start as u32).to_be_bytes());
            opts.extend_from_slice(&(b.end as u32).to_be_bytes());
        }
    }
    let len = 20 + opts.len();
    let mut t = vec![0u8; 20];
    let (sp, dp) = (h.sport, h.dport);
    t[0..2].copy_from_slice(&sp.to_be_bytes());
    t[2..4].copy_from_slice(&dp.to_be_bytes());
    t[4..8].copy_from_slice(&(h.seq as u32).to_be_bytes());
    t[8..12].copy_from_slice(&(h.ack as u32).to_be_bytes());
    t[12] = ((len / 4) as u8) << 4;
    t[13] = h.flags;
    // A SYN's own window is never scaled (RFC 7323 2.2).
    let window = match scale {
        Some(s) if !syn => h.window >> s,
        _ => h.window,
    };
    t[14..16].copy_from_slice(&(window.min(65535) as u16).to_be_bytes());
    t.extend_from_slice(&opts);
    let c = l4_checksum(p, 6, &t);
    t[16..18].copy_from_slice(&c.to_be_bytes());
    t
}

fn udp_header(p: &Packet, h: &crate::packet::UdpHeader) -> Vec<u8> {
    let (sp, dp) = (h.sport, h.dport);
    let mut u = vec![0u8; 8];
    u[0..2].copy_from_slice(&sp.to_be_bytes());
    u[2..4].copy_from_slice(&dp.to_be_bytes());
    u[4..6].copy_from_slice(&((8 + p.payload) as u16).to_be_bytes());
    let c = l4_checksum(p, 17, &u);
    u[6..8].copy_from_slice(&c.to_be_bytes());
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{SackBlock, TcpHeader};

    fn pkt(h: TcpHeader, payload: u32) -> Packet {
        let mut p = Packet::new(0, 0, 2, Transport::Tcp(h), h.wire_len(), payload, 0);
        p.uid = 7;
        p.ip.ecn = Ecn::Ect0;
        p
    }

    #[test]
    fn header_lengths_match_wire_sizes() {
        let mut h = TcpHeader { seq: 1000, ack: 0, flags: 0x18, window: 20000, ..Default::default() };
        let p = pkt(h, 1000);
        assert_eq!(packet_headers(&p, TcpView::AsIs).0.len() as u32, 20 + h.wire_len());
        h.ts = Some((5, 6));
        h.set_sack(&[SackBlock { start: 1, end: 2 }; 3]);
        let p = pkt(h, 0);
        assert_eq!(packet_headers(&p, TcpView::AsIs).0.len() as u32, 20 + h.wire_len());
        assert_eq!(h.wire_len(), 60);
    }

    /// A handshake's SYN carries the window-scale option (4 bytes more in
    /// the capture than simulated); later windows are shown shifted, a
    /// SYN's never; without a handshake windows are clamped.
    #[test]
    fn window_scaling_in_a_handshake() {
        assert_eq!((scale_for(65_535), scale_for(65_536), scale_for(5_000_000), scale_for(u64::MAX)), (0, 1, 7, 14));
        let view = TcpView::Handshake { from_sender: true, scale: Some(7) };
        let syn = TcpHeader { flags: crate::packet::flags::SYN, window: 200_000, ..Default::default() };
        let p = pkt(syn, 0);
        let (b, size) = packet_headers(&p, view);
        assert_eq!((b.len() as u32, size), (20 + syn.wire_len() + 4, p.size + 4));
        assert_eq!(u16::from_be_bytes([b[2], b[3]]) as u32, size);
        assert_eq!(&b[40..44], &[1, 3, 3, 7]);
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 65_535, "a SYN's window is not scaled");
        let ack = TcpHeader { flags: crate::packet::flags::ACK, window: 200_000, ..Default::default() };
        let (b, size) = packet_headers(&pkt(ack, 0), view);
        assert_eq!(size, pkt(ack, 0).size);
        assert_eq!(u16::from_be_bytes([b[34], b[35]]) as u32, 200_000 >> 7);
        let (b, _) = packet_headers(&pkt(ack, 0), TcpView::AsIs);
        assert_eq!(u16::from_be_bytes([b[34], b[35]]), 65_535);
        // A handshake whose windows fit 16 bits shows no option: its SYN
        // keeps the simulated size.
        let small = TcpView::Handshake { from_sender: true, scale: None };
        assert_eq!(packet_headers(&p, small), (packet_headers(&p, TcpView::AsIs).0, p.size));
    }

    #[test]
    fn ip_checksum_verifies() {
        let p = pkt(TcpHeader::default(), 100);
        let (b, _) = packet_headers(&p, TcpView::AsIs);
        assert_eq!(csum_fold(csum_add(0, &b[..20])), 0);
        assert_eq!(b[1] & 3, 2, "ECT(0)");
    }

    #[test]
    fn node_addresses_and_broadcast() {
        assert_eq!(node_addr(0), [10, 0, 0, 1]);
        assert_eq!(node_addr(0x01_02_02), [10, 1, 2, 3]);
        assert_eq!(node_addr(BROADCAST), [255, 255, 255, 255]);
    }
}
