//! A measuring stick, not a simulator: the plainest forwarding hop of
//! tcplab's benchmarks written with nothing general around it, to see what
//! an event costs here when it does nothing but that hop
//! (`benchmarks/hop_floor.py` runs it beside tcplab and ns-2;
//! docs/architecture.md, "The floor of a hop").
//!
//! Fixed: one CBR flow of 1000-byte UDP payloads (1028 bytes of IP, one
//! every 822.4 us: 10 Mbit/s, as tcplab's `cbr` counts it) from r0 through
//! a chain of 10 routers joined by 100 Mbit/s, 1 ms point-to-point links
//! (no link-layer framing: tcplab's default). Events come out in (time,
//! insertion number) order from tcplab's own event queue, and they are
//! tcplab's events on that scenario, the same number at the same times; an
//! event does what tcplab's does on an idle link (TTL, the next hop from a
//! routing row, the link's busy time and counters, the arrival scheduled at
//! the far end; a busy link would queue behind one `TxDone`), with none of
//! tcplab's generality: no devices, agents, sockets, captures, error
//! models or queue policies to pass by.
//!
//!     cargo run --release --example hop_floor -- [SECONDS] [repeats]

mod common;

use std::collections::VecDeque;
use tcplab_core::engine::EventQueue;

const ROUTERS: usize = 10;
const RATE_BPS: u64 = 100_000_000;
const DELAY_NS: u64 = 1_000_000;
/// tcplab's links have no link-layer framing unless a scenario asks for it.
const FRAMING: u64 = 0;
const PAYLOAD: u32 = 1000;
const IP_UDP: u32 = 28;
const CBR_BPS: u64 = 10_000_000;

#[derive(Clone, Copy)]
enum Ev {
    Send,
    Arrive { link: u32, pkt: u32 },
    TxDone { link: u32 },
}

#[derive(Clone, Copy)]
struct Packet {
    dst: u32,
    size: u32,
    ttl: u8,
}

struct Link {
    busy_until: u64,
    to: u32,
    queue: VecDeque<u32>,
    packets_sent: u64,
    bytes_sent: u64,
}

struct Floor {
    q: EventQueue<Ev>,
    packets: Vec<Packet>,
    free_packets: Vec<u32>,
    links: Vec<Link>,
    /// next[node][dst]: the link out, u32::MAX at the destination.
    next: Vec<Vec<u32>>,
    delivered: u64,
    processed: u64,
}

impl Floor {
    fn new() -> Self {
        // Link 2i goes from router i to i+1, link 2i+1 back.
        let mut links = Vec::new();
        for i in 0..ROUTERS - 1 {
            for to in [i + 1, i] {
                links.push(Link {
                    busy_until: 0,
                    to: to as u32,
                    queue: VecDeque::new(),
                    packets_sent: 0,
                    bytes_sent: 0,
                });
            }
        }
        let next = (0..ROUTERS)
            .map(|n| {
                (0..ROUTERS)
                    .map(|d| match d.cmp(&n) {
                        std::cmp::Ordering::Greater => 2 * n as u32,
                        std::cmp::Ordering::Less => 2 * (n as u32 - 1) + 1,
                        std::cmp::Ordering::Equal => u32::MAX,
                    })
                    .collect()
            })
            .collect();
        Floor {
            q: EventQueue::new(),
            packets: Vec::new(),
            free_packets: Vec::new(),
            links,
            next,
            delivered: 0,
            processed: 0,
        }
    }

    fn tx_time(size: u32) -> u64 {
        (size as u64 + FRAMING) * 8 * 1_000_000_000 / RATE_BPS
    }

    /// Node `n` has packet `pkt`: deliver it or put it on the next link.
    fn at_node(&mut self, now: u64, n: u32, pkt: u32) {
        let p = &mut self.packets[pkt as usize];
        if p.dst == n {
            self.delivered += 1;
            self.free_packets.push(pkt);
            return;
        }
        if p.ttl <= 1 {
            self.free_packets.push(pkt);
            return;
        }
        p.ttl -= 1;
        let size = p.size;
        let out = self.next[n as usize][p.dst as usize];
        let l = &mut self.links[out as usize];
        if l.busy_until <= now && l.queue.is_empty() {
            self.transmit(now, out, pkt, size);
        } else {
            if l.queue.is_empty() {
                let at = l.busy_until;
                self.q.schedule(at, Ev::TxDone { link: out });
            }
            self.links[out as usize].queue.push_back(pkt);
        }
    }

    fn transmit(&mut self, now: u64, link: u32, pkt: u32, size: u32) {
        let l = &mut self.links[link as usize];
        let done = now.max(l.busy_until) + Self::tx_time(size);
        l.busy_until = done;
        l.packets_sent += 1;
        l.bytes_sent += size as u64 + FRAMING;
        self.q.schedule(done + DELAY_NS, Ev::Arrive { link, pkt });
    }

    fn run(&mut self, duration: u64) {
        let interval = (PAYLOAD + IP_UDP) as u64 * 8 * 1_000_000_000 / CBR_BPS;
        self.q.schedule(0, Ev::Send);
        while let Some((at, ev)) = self.q.pop_until(duration) {
            self.processed += 1;
            match ev {
                Ev::Send => {
                    let p = Packet { dst: ROUTERS as u32 - 1, size: PAYLOAD + IP_UDP, ttl: 64 };
                    let id = match self.free_packets.pop() {
                        Some(i) => {
                            self.packets[i as usize] = p;
                            i
                        }
                        None => {
                            self.packets.push(p);
                            self.packets.len() as u32 - 1
                        }
                    };
                    self.at_node(at, 0, id);
                    self.q.schedule(at + interval, Ev::Send);
                }
                Ev::Arrive { link, pkt } => {
                    let to = self.links[link as usize].to;
                    self.at_node(at, to, pkt);
                }
                Ev::TxDone { link } => {
                    if let Some(pkt) = self.links[link as usize].queue.pop_front() {
                        let size = self.packets[pkt as usize].size;
                        self.transmit(at, link, pkt, size);
                        if !self.links[link as usize].queue.is_empty() {
                            let next = self.links[link as usize].busy_until;
                            self.q.schedule(next, Ev::TxDone { link });
                        }
                    }
                }
            }
        }
    }
}

fn main() {
    let (best, f) = common::best_of_runs(|duration| {
        let mut f = Floor::new();
        f.run(duration);
        f
    });
    let sent: u64 = f.links.iter().map(|l| l.packets_sent).sum();
    println!(
        "{{\"events\": {}, \"best_wall_s\": {}, \"best_cpu_s\": {}, \"ns_per_event\": {:.1}, \"delivered\": {}, \"link_packets\": {}}}",
        f.processed,
        best.wall_s,
        best.cpu_s,
        best.wall_s * 1e9 / f.processed as f64,
        f.delivered,
        sent
    );
}
