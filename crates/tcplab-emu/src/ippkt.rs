//! The few IPv4/TCP header facts the link model needs from a real packet.

use tcplab_core::net::FlowKey;

/// What the link model needs to know about a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// IP total length in bytes (the size the link serialises, before framing).
    pub size: u32,
    /// Application bytes carried (TCP or UDP payload); 0 for pure ACKs, SYNs
    /// and other control packets: the error models' `packets = "acks"` class.
    pub payload: u32,
    /// ECN-capable for a queue's decision: ECT(0), ECT(1) or already CE
    /// (`Packet::is_ect` in the core).
    pub ect: bool,
}

/// Parse an IPv4 packet; None for anything else (IPv6, truncated).
pub fn parse(b: &[u8]) -> Option<Meta> {
    if b.len() < 20 || b[0] >> 4 != 4 {
        return None;
    }
    let ihl = (b[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([b[2], b[3]]) as usize;
    if ihl < 20 || total < ihl || total > b.len() {
        return None;
    }
    let ecn = b[1] & 0x03;
    let l4 = &b[ihl..total];
    let payload = match b[9] {
        6 if l4.len() >= 20 => l4.len().saturating_sub((l4[12] >> 4) as usize * 4),
        17 if l4.len() >= 8 => l4.len() - 8,
        _ => 0,
    };
    Some(Meta { size: total as u32, payload: payload as u32, ect: ecn != 0 })
}

/// Set the ECN field to CE and fix the header checksum (a RED mark).
pub fn set_ce(b: &mut [u8]) {
    if b.len() < 20 {
        return;
    }
    b[1] |= 0x03;
    let ihl = ((b[0] & 0x0f) as usize * 4).min(b.len());
    b[10] = 0;
    b[11] = 0;
    let mut sum: u32 = 0;
    for c in b[..ihl].chunks(2) {
        sum += u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    let ck = !(sum as u16);
    b[10..12].copy_from_slice(&ck.to_be_bytes());
}

/// What a fair queue (DRR, FQ-CoDel) classifies an IPv4 packet by:
/// addresses, protocol and ports (zeros where the packet is too short).
pub fn flow_key(b: &[u8]) -> FlowKey {
    let addr = |i: usize| b.get(i..i + 4).map_or(0, |a| u32::from_be_bytes([a[0], a[1], a[2], a[3]]));
    let (sport, dport) = ports(b).unwrap_or((0, 0));
    FlowKey { src: addr(12), dst: addr(16), proto: b.get(9).copied().unwrap_or(0), sport, dport }
}

/// The TCP or UDP ports of an IPv4 packet (None for other protocols).
pub fn ports(b: &[u8]) -> Option<(u16, u16)> {
    let ihl = (*b.first()? & 0x0f) as usize * 4;
    if !matches!(b.get(9)?, 6 | 17) || b.len() < ihl + 4 {
        return None;
    }
    Some((u16::from_be_bytes([b[ihl], b[ihl + 1]]), u16::from_be_bytes([b[ihl + 2], b[ihl + 3]])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(payload: usize, ecn: u8) -> Vec<u8> {
        let total = 20 + 20 + payload;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[1] = ecn;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[8] = 64;
        b[9] = 6;
        b[20 + 12] = 5 << 4;
        b
    }

    #[test]
    fn sizes_and_payload() {
        assert_eq!(parse(&tcp(256, 0)), Some(Meta { size: 296, payload: 256, ect: false }));
        assert_eq!(parse(&tcp(0, 2)), Some(Meta { size: 40, payload: 0, ect: true }));
        let mut v6 = tcp(0, 0);
        v6[0] = 0x60;
        assert_eq!(parse(&v6), None);
    }

    #[test]
    fn ce_mark_keeps_checksum_valid() {
        let mut b = tcp(10, 2);
        set_ce(&mut b);
        assert_eq!(b[1] & 3, 3);
        let mut sum: u32 = 0;
        for c in b[..20].chunks(2) {
            sum += u16::from_be_bytes([c[0], c[1]]) as u32;
        }
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff);
    }

    #[test]
    fn ports_of_tcp_and_udp_only() {
        let mut b = vec![0u8; 40];
        b[0] = 0x45;
        b[9] = 6;
        b[20..24].copy_from_slice(&[0x13, 0x89, 0x9c, 0x40]);
        assert_eq!(ports(&b), Some((5001, 40000)));
        b[9] = 17;
        assert_eq!(ports(&b), Some((5001, 40000)));
        b[9] = 1;
        assert_eq!(ports(&b), None);
        assert_eq!(ports(&b[..22]), None);
    }
}
