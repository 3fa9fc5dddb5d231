//! A measuring stick for the TCP ends alone: tcplab's NewReno sender and
//! its receiver (the `ns2` profile, 1000-byte segments, a window of 20, as
//! benchmarks/scaling.py's flows) exchanging segments and ACKs over a
//! path drawn as two FIFO lines (1 Mbit/s serialisation, 21 ms each way;
//! every 100th data segment lost), with no event queue, nodes, links or
//! packet pool around them. What it prints, and what callgrind counts for
//! it, is the cost of the state machines' own work per segment: the part
//! of an arrival at a TCP end that no core around them can take away
//! (docs/validation.md, "The floor of a hop").
//!
//!     cargo run --release --example tcp_ends_cost -- [SECONDS] [repeats]

mod common;

use std::collections::VecDeque;
use tcplab_core::packet::TcpHeader;
use tcplab_core::transport::tcp::{make_cc, TcpConfig, TcpProfile, TcpReceiver, TcpSender, Variant};

const MS: u64 = 1_000_000;
const DELAY: u64 = 21 * MS;
/// 1040 bytes at 1 Mbit/s.
const TX: u64 = 8_320_000;

struct Counts {
    segments: u64,
    acks: u64,
}

fn run(duration: u64) -> Counts {
    let mut cfg = TcpConfig::profile(TcpProfile::Ns2);
    cfg.mss = 1000;
    cfg.rwnd = 20 * 1000;
    let mut tx = TcpSender::new(cfg.clone(), make_cc(Variant::NewReno, &cfg));
    let mut rx = TcpReceiver::new(&cfg);
    tx.app_write(None);
    // (arrival time, header, payload) of segments towards the receiver and
    // ACKs back; the bottleneck is free from `busy`.
    let mut data: VecDeque<(u64, TcpHeader, u32)> = VecDeque::new();
    let mut acks: VecDeque<(u64, TcpHeader)> = VecDeque::new();
    let (mut busy, mut sent, mut now) = (0u64, 0u64, 0u64);
    let mut counts = Counts { segments: 0, acks: 0 };
    loop {
        while let Some(seg) = tx.poll_segment(now) {
            sent += 1;
            busy = busy.max(now) + TX;
            if sent % 100 != 0 {
                data.push_back((busy + DELAY, seg.header, seg.payload));
            }
        }
        let next_data = data.front().map(|d| d.0);
        let next_ack = acks.front().map(|a| a.0);
        let next_timer = tx.rto_deadline();
        let t = [next_data, next_ack, next_timer].into_iter().flatten().min();
        let Some(t) = t else { break };
        if t > duration {
            break;
        }
        now = t;
        if next_data == Some(t) {
            let (_, h, len) = data.pop_front().unwrap();
            counts.segments += 1;
            if rx.on_segment(now, h.seq, len, h.ts.map(|x| x.0)) {
                let a = rx.ack_header(now);
                acks.push_back((now + DELAY, a));
            }
        } else if next_ack == Some(t) {
            let (_, a) = acks.pop_front().unwrap();
            counts.acks += 1;
            tx.on_ack(now, &a);
        } else {
            tx.on_timeout(now);
        }
    }
    counts
}

fn main() {
    let (best, c) = common::best_of_runs(run);
    println!(
        "{{\"segments\": {}, \"acks\": {}, \"best_wall_s\": {}, \"ns_per_segment_and_ack\": {:.1}}}",
        c.segments,
        c.acks,
        best.wall_s,
        best.wall_s * 1e9 / c.segments as f64
    );
}
