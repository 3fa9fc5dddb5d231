//! series.csv from the real stack: the sender's state as its kernel tells
//! it (TCP_INFO, TCP_CC_INFO and the send queue's two ioctls), read at the
//! simulator's sampling instants (`output.sample_interval`: 0, iv, 2 iv ...
//! on the run clock) while the sender's socket is open, in the simulator's
//! columns (`tcplab_core::sim::SERIES_SCHEMA`).

use crate::workload::TcpInfo;
use std::os::fd::RawFd;
use tcplab_core::engine::time::to_secs;
use tcplab_core::engine::Time;
use tcplab_core::output::{Cell, RowSink, SinkOutput, Table};
use tcplab_core::sim::SERIES_SCHEMA;

/// The shortest interval the emulator samples at: the kernel's state is
/// read by a thread that wakes for each reading, and a thread's wake-up on
/// this machine is late by tens of microseconds, sometimes a millisecond.
pub const MIN_INTERVAL: Time = 1_000_000;

/// BBR's state (struct tcp_bbr_info, from TCP_CC_INFO).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BbrInfo {
    /// Bandwidth estimate, bytes per second.
    pub bw: u64,
    /// Microseconds; u32::MAX until measured.
    pub min_rtt_us: u32,
    /// Gains in BBR's fixed point (256 = 1).
    pub pacing_gain: u32,
    pub cwnd_gain: u32,
}

impl BbrInfo {
    /// BBR's mode, from the gains its mode sets (tcp_bbr.c,
    /// bbr_update_gains()): STARTUP paces at bbr_high_gain (2/ln 2, 739),
    /// DRAIN at its inverse (88), PROBE_BW keeps a cwnd gain of 2 (512)
    /// while its pacing gain cycles, PROBE_RTT has both gains 1. Until its
    /// first bandwidth sample (the first ACK of data) BBR is in STARTUP,
    /// but the kernel reports gains of 1 then.
    pub fn mode(&self) -> &'static str {
        if self.bw == 0 {
            return "startup";
        }
        match (self.pacing_gain, self.cwnd_gain) {
            (p, _) if p > 512 => "startup",
            (p, _) if p < 128 => "drain",
            (_, 512) => "probe_bw",
            (256, 256) => "probe_rtt",
            _ => "unknown",
        }
    }
}

/// One sampling of a sender.
#[derive(Clone, Debug)]
pub struct Reading {
    /// The sampling instant on the run clock (the reading itself is taken
    /// at most `late` after it).
    pub at: Time,
    pub info: TcpInfo,
    /// Bytes sent but not acknowledged (snd_nxt - snd_una: SIOCOUTQ less
    /// SIOCOUTQNSD).
    pub in_flight_bytes: u64,
    pub bbr: Option<BbrInfo>,
    /// Bytes the receiving application had read.
    pub delivered: u64,
}

/// Linux's congestion states (tcp_ca_state), as series.csv names them.
fn ca_state_name(s: u8) -> &'static str {
    match s {
        0 => "open",
        1 => "disorder",
        2 => "cwr",
        3 => "recovery",
        4 => "loss",
        _ => "unknown",
    }
}

/// Whether socket `fd` runs BBR (its congestion control is set before it
/// connects, so the sampler asks once).
pub fn runs_bbr(fd: RawFd) -> bool {
    let mut name = [0u8; 16];
    let mut len = name.len() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `name`.
    let r =
        unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, name.as_mut_ptr().cast(), &mut len) };
    r == 0 && name.starts_with(b"bbr\0")
}

/// BBR's state of socket `fd`, a socket that runs BBR (`runs_bbr`).
pub fn bbr_info(fd: RawFd) -> Option<BbrInfo> {
    let mut b = [0u32; 5];
    let mut len = std::mem::size_of_val(&b) as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `b`.
    let r = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CC_INFO, b.as_mut_ptr().cast(), &mut len) };
    (r == 0 && len as usize == std::mem::size_of_val(&b)).then(|| BbrInfo {
        bw: u64::from(b[0]) | (u64::from(b[1]) << 32),
        min_rtt_us: b[2],
        pacing_gain: b[3],
        cwnd_gain: b[4],
    })
}

/// snd_nxt - snd_una of socket `fd`: the send queue's unacknowledged bytes
/// less those not yet sent.
pub fn in_flight_bytes(fd: RawFd) -> Option<u64> {
    let (mut outq, mut unsent): (libc::c_int, libc::c_int) = (0, 0);
    // SAFETY: each ioctl writes one int.
    let ok = unsafe {
        libc::ioctl(fd, libc::TIOCOUTQ, &mut outq) == 0 && libc::ioctl(fd, libc::SIOCOUTQNSD, &mut unsent) == 0
    };
    ok.then(|| (outq - unsent).max(0) as u64)
}

/// The next sampling instant at or after `now` for interval `every`.
pub fn next_instant(now: Time, every: Time) -> Time {
    now.div_ceil(every) * every
}

/// series.csv: every flow's readings (flow names in `names`, readings in
/// time order per flow), ordered by time and then by flow as the
/// simulator's rows are.
pub fn table(names: &[String], readings: &[&[Reading]]) -> Table {
    let mut rows: Vec<(Time, usize, &Reading)> =
        readings.iter().enumerate().flat_map(|(f, rs)| rs.iter().map(move |r| (r.at, f, r))).collect();
    rows.sort_by_key(|&(t, f, _)| (t, f));
    let mut sink = RowSink::memory(&SERIES_SCHEMA);
    for (t, f, r) in rows {
        push(&mut sink, to_secs(t), &names[f], r);
    }
    match sink.finish() {
        Ok(SinkOutput::Memory(t)) => t,
        _ => unreachable!("a sink in memory"),
    }
}

/// One row in the simulator's units: bytes, seconds, bits per second;
/// sequence numbers as offsets from the first data byte.
fn push(sink: &mut RowSink, t: f64, flow: &str, r: &Reading) {
    let i = &r.info;
    let mss = u64::from(i.snd_mss);
    // tcpi_bytes_sent counts retransmitted bytes again.
    let snd_max = i.bytes_sent.saturating_sub(i.bytes_retrans);
    let snd_una = i.bytes_acked;
    let bbr = r.bbr;
    sink.push(&[
        Cell::F64(t),
        Cell::Str(flow),
        Cell::I64((u64::from(i.snd_cwnd) * mss) as i64),
        Cell::OptI64(
            (i.snd_ssthresh < crate::workload::INFINITE_SSTHRESH).then(|| (u64::from(i.snd_ssthresh) * mss) as i64),
        ),
        Cell::OptF64((i.rtt_us > 0).then(|| f64::from(i.rtt_us) / 1e6)),
        Cell::F64(f64::from(i.rto_us) / 1e6),
        Cell::I64((snd_una + r.in_flight_bytes) as i64),
        Cell::I64(snd_max as i64),
        Cell::I64(snd_una as i64),
        Cell::I64(r.delivered as i64),
        // sk_pacing_rate, which Linux keeps for every socket (~0 or 0: unset).
        Cell::OptF64((i.pacing_rate != u64::MAX && i.pacing_rate > 0).then_some(i.pacing_rate as f64 * 8.0)),
        Cell::OptF64(bbr.map(|b| b.bw as f64 * 8.0)),
        Cell::OptF64(bbr.and_then(|b| (b.min_rtt_us != u32::MAX).then(|| f64::from(b.min_rtt_us) / 1e6))),
        Cell::Str(bbr.map_or("none", |b| b.mode())),
        Cell::Str(ca_state_name(i.ca_state)),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bbr_modes_from_their_gains() {
        let g = |p, c| BbrInfo { bw: 1, min_rtt_us: 0, pacing_gain: p, cwnd_gain: c }.mode();
        assert_eq!(g(739, 739), "startup");
        assert_eq!(g(88, 739), "drain");
        for p in [320, 192, 256] {
            assert_eq!(g(p, 512), "probe_bw");
        }
        assert_eq!(g(256, 256), "probe_rtt");
        let before_any_ack = BbrInfo { bw: 0, min_rtt_us: 40_000, pacing_gain: 256, cwnd_gain: 256 };
        assert_eq!(before_any_ack.mode(), "startup");
    }

    #[test]
    fn instants_are_multiples_of_the_interval() {
        assert_eq!(next_instant(0, 10), 0);
        assert_eq!(next_instant(1, 10), 10);
        assert_eq!(next_instant(10, 10), 10);
        assert_eq!(next_instant(25, 10), 30);
    }

    /// Rows come out by time, then flow; a Linux sender's unset ssthresh
    /// and unmeasured RTT are empty cells; sequence numbers from the
    /// kernel's byte counters.
    #[test]
    fn rows_in_the_simulators_order_and_units() {
        let info = TcpInfo {
            snd_mss: 1000,
            snd_cwnd: 10,
            snd_ssthresh: crate::workload::INFINITE_SSTHRESH,
            rto_us: 1_000_000,
            bytes_acked: 5000,
            bytes_sent: 12_000,
            bytes_retrans: 2000,
            ca_state: 4,
            ..Default::default()
        };
        let r = |at| Reading { at, info: info.clone(), in_flight_bytes: 3000, bbr: None, delivered: 4000 };
        let ms = 1_000_000;
        let t = table(&["a".into(), "b".into()], &[&[r(0), r(20 * ms)], &[r(10 * ms)]]);
        let csv = t.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].ends_with("bbr_mode,ca_state"), "{}", lines[0]);
        assert_eq!(lines[1], "0,a,10000,,,1,8000,10000,5000,4000,,,,none,loss");
        assert!(lines[2].starts_with("0.01,b,"), "{}", lines[2]);
        assert!(lines[3].starts_with("0.02,a,"), "{}", lines[3]);
        // A socket's pacing rate, bytes a second in TCP_INFO, bit/s here.
        let paced = Reading { info: TcpInfo { pacing_rate: 1_250_000, ..info.clone() }, ..r(0) };
        let csv = table(&["a".into()], &[&[paced]]).to_csv();
        assert_eq!(csv.lines().nth(1), Some("0,a,10000,,,1,8000,10000,5000,4000,10000000,,,none,loss"));
    }
}
