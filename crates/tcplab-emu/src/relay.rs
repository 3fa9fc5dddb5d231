//! The real-time loop: packets read from one TUN device cross the chain of
//! link directions (the core's `LinkDir`: queue -> transmission ->
//! propagation -> error decision at the far end) and are written to the
//! other TUN device when the model says they arrive.
//!
//! The model runs on its own clock: an event is handled with its scheduled
//! time as "now", so transmission and propagation times are exact however
//! late the loop wakes; lateness only delays the release of the packet to the
//! kernel, and it is measured for every released packet (`Lateness`).

use crate::ippkt;
use crate::path::LinkPath;
use crate::tun::Tun;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tcplab_core::engine::Time;
use tcplab_core::net::{Arrival, Offer};
use tcplab_core::output::pcap::PcapWriter;
use tcplab_core::packet::{PktId, NO_FLOW};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The transmitter of direction `d` finishes: start the next queued packet.
    TxDone(usize),
    /// Packet `id` reaches the far end of direction `d`.
    Arrive(usize, u32),
    /// Packet `id`, held by direction `d`'s delaying error model, enters it.
    Enter(usize, u32),
}

struct Pkt {
    buf: Vec<u8>,
    size: u32,
    payload: u32,
    /// The end it came from (0 or 1).
    side: usize,
    /// Index in the chain of the direction it is on.
    hop: usize,
}

/// Release lateness of the packets written to the TUN devices.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    /// Nanoseconds after the scheduled time, per released packet.
    pub samples: Vec<u64>,
}

impl Lateness {
    pub fn quantile(&self, q: f64) -> u64 {
        if self.samples.is_empty() {
            return 0;
        }
        let mut v = self.samples.clone();
        v.sort_unstable();
        v[((v.len() - 1) as f64 * q).round() as usize]
    }

    pub fn max(&self) -> u64 {
        self.samples.iter().copied().max().unwrap_or(0)
    }

    pub fn count_above(&self, ns: u64) -> usize {
        self.samples.iter().filter(|&&x| x > ns).count()
    }
}

/// How the loop waits for the next event.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Busy-poll instead of sleeping when the next event is this close (ns).
    pub spin_ns: u64,
}

pub struct Relay {
    pub path: LinkPath,
    tuns: [Tun; 2],
    pkts: Vec<Option<Pkt>>,
    free: Vec<u32>,
    heap: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    seq: u64,
    t0: Instant,
    timing: Timing,
    pub lateness: Lateness,
    /// Captures of what each TUN device gave and took (end 0, end 1).
    pub pcaps: Option<[PcapWriter; 2]>,
    /// Packets from the kernel that are not IPv4 (not carried).
    pub ignored: u64,
    /// Writes to a TUN device the kernel refused.
    pub write_errors: u64,
    /// IPv4 packets taken from the kernels.
    pub packets_in: u64,
    /// Packets released to the far end's kernel (written or not).
    pub packets_out: u64,
}

impl Relay {
    pub fn new(path: LinkPath, tuns: [Tun; 2], t0: Instant, timing: Timing, capture: bool) -> Relay {
        Relay {
            path,
            tuns,
            pkts: Vec::new(),
            free: Vec::new(),
            heap: BinaryHeap::new(),
            seq: 0,
            t0,
            timing,
            lateness: Lateness::default(),
            pcaps: capture.then(|| [PcapWriter::new(), PcapWriter::new()]),
            ignored: 0,
            write_errors: 0,
            packets_in: 0,
            packets_out: 0,
        }
    }

    /// Packets still in the model: queued, in transmission or propagating.
    pub fn held(&self) -> u64 {
        self.pkts.iter().filter(|p| p.is_some()).count() as u64
    }

    pub fn now(&self) -> Time {
        self.t0.elapsed().as_nanos() as Time
    }

    fn schedule(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    fn capture(&mut self, end: usize, now: Time, buf: &[u8]) {
        if let Some(p) = &mut self.pcaps {
            let w = &mut p[end].buf;
            w.extend_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
            w.extend_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
            w.extend_from_slice(&(buf.len() as u32).to_le_bytes());
            w.extend_from_slice(&(buf.len() as u32).to_le_bytes());
            w.extend_from_slice(buf);
        }
    }

    /// A packet the kernel of end `side` sent, read at `now`.
    fn ingress(&mut self, side: usize, buf: Vec<u8>, now: Time) {
        let Some(m) = ippkt::parse(&buf) else {
            self.ignored += 1;
            return;
        };
        self.packets_in += 1;
        self.capture(side, now, &buf);
        let pkt = Pkt { buf, size: m.size, payload: m.payload, side, hop: 0 };
        let id = match self.free.pop() {
            Some(i) => {
                self.pkts[i as usize] = Some(pkt);
                i
            }
            None => {
                self.pkts.push(Some(pkt));
                (self.pkts.len() - 1) as u32
            }
        };
        self.at_hop(now, id, m.ect);
    }

    fn pkt(&self, id: u32) -> &Pkt {
        self.pkts[id as usize].as_ref().expect("live packet")
    }

    fn drop_pkt(&mut self, id: u32) {
        self.pkts[id as usize] = None;
        self.free.push(id);
    }

    /// The packet enters the next direction of its chain, or leaves the path.
    fn at_hop(&mut self, now: Time, id: u32, ect: bool) {
        let (side, hop, size) = {
            let p = self.pkt(id);
            (p.side, p.hop, p.size)
        };
        let Some(&d) = self.path.chains[side].get(hop) else {
            return self.release(now, id);
        };
        if self.path.dirs[d].holds() {
            let payload = self.pkt(id).payload;
            if let Some(at) = self.path.dirs[d].held_until(now, size, payload, NO_FLOW) {
                return self.schedule(at, Ev::Enter(d, id));
            }
        }
        self.enter(now, d, id, size, ect);
    }

    /// The packet is offered to direction `d`.
    fn enter(&mut self, now: Time, d: usize, id: u32, size: u32, ect: bool) {
        let offer = self.path.dirs[d].offer(now, PktId(id), size, ect);
        match offer {
            Offer::Idle | Offer::IdleMarked => {
                if matches!(offer, Offer::IdleMarked) {
                    ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                }
                let at = self.path.dirs[d].transmit(now, size);
                self.schedule(at, Ev::Arrive(d, id));
            }
            Offer::Queued { marked } => {
                if marked {
                    ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                }
                if let Some(t) = self.path.dirs[d].arm_tx_done() {
                    self.schedule(t, Ev::TxDone(d));
                }
            }
            Offer::Dropped(_) => self.drop_pkt(id),
            Offer::Displaced(_) => {
                if let Some(t) = self.path.dirs[d].arm_tx_done() {
                    self.schedule(t, Ev::TxDone(d));
                }
                let victim = self.path.dirs[d].queue.take_displaced();
                self.drop_pkt(victim.0);
            }
        }
    }

    fn handle(&mut self, t: Time, ev: Ev) {
        match ev {
            Ev::TxDone(d) => {
                if let Some((PktId(id), size)) = self.path.dirs[d].tx_done(t) {
                    let at = self.path.dirs[d].transmit(t, size);
                    self.schedule(at, Ev::Arrive(d, id));
                }
                if let Some(t2) = self.path.dirs[d].arm_tx_done() {
                    self.schedule(t2, Ev::TxDone(d));
                }
            }
            Ev::Arrive(d, id) => {
                let (size, payload) = (self.pkt(id).size, self.pkt(id).payload);
                let fate = self.path.dirs[d].arrival(t, size, payload, NO_FLOW);
                if fate != Arrival::Corrupted {
                    if fate == Arrival::Marked {
                        ippkt::set_ce(&mut self.pkts[id as usize].as_mut().expect("live").buf);
                    }
                    let ect = ippkt::parse(&self.pkt(id).buf).is_some_and(|m| m.ect);
                    self.pkts[id as usize].as_mut().expect("live").hop += 1;
                    self.at_hop(t, id, ect);
                } else {
                    self.drop_pkt(id);
                }
            }
            Ev::Enter(d, id) => {
                let size = self.pkt(id).size;
                let ect = ippkt::parse(&self.pkt(id).buf).is_some_and(|m| m.ect);
                self.enter(t, d, id, size, ect);
            }
        }
    }

    /// Write the packet to the other end's TUN device (due at `due`).
    fn release(&mut self, due: Time, id: u32) {
        let p = self.pkts[id as usize].take().expect("live");
        self.free.push(id);
        self.packets_out += 1;
        let to = 1 - p.side;
        // Lateness is measured when the packet is handed to the kernel; the
        // write itself runs the receiving stack inline (its cost is the
        // kernel's, as on a real host).
        let now = self.now();
        self.lateness.samples.push(now.saturating_sub(due));
        if self.tuns[to].send(&p.buf).is_err() {
            self.write_errors += 1;
        }
        self.capture(to, now, &p.buf);
    }

    /// Handle every event due at or before `t`, in time order.
    fn advance_to(&mut self, t: Time) {
        while let Some(&Reverse((due, _, ev))) = self.heap.peek() {
            if due > t {
                break;
            }
            self.heap.pop();
            self.handle(due, ev);
        }
    }

    /// Take every waiting packet. Each enters the model at the time it was
    /// read, after the events due before then: the model's clock never runs
    /// backwards (queue statistics integrate over it).
    fn read_all(&mut self, buf: &mut [u8]) {
        for side in 0..2 {
            while let Ok(Some(n)) = self.tuns[side].recv(buf) {
                let now = self.now();
                self.advance_to(now);
                self.ingress(side, buf[..n].to_vec(), now);
            }
        }
    }

    /// After the run: release the packets still in the model (queued, in
    /// transmission or propagating) at their due times, without taking new
    /// ones in, until none is left or the model time reaches `end`. Returns
    /// the time the last one was released (at least `from`); it stops
    /// early when `keep` is cleared (Ctrl-C). Without it a
    /// run that ended when its flows were done abandoned the closing
    /// segments on the path: links.csv's reverse direction showed packets
    /// sent but never delivered, summary.json packets in flight, and the far
    /// end's capture lacked them.
    pub fn drain(&mut self, from: Time, end: Time, keep: &AtomicBool) -> Time {
        let mut last = from;
        while self.held() > 0 && keep.load(Ordering::Acquire) {
            let now = self.now();
            if now >= end {
                return end.max(last);
            }
            let released = self.packets_out;
            self.advance_to(now);
            if self.packets_out > released {
                last = now;
            }
            let Some(&Reverse((next, _, _))) = self.heap.peek() else { break };
            // At most 20 ms at a time, to notice `keep` cleared.
            let wait = next.min(end).saturating_sub(self.now()).min(20_000_000);
            if wait > self.timing.spin_ns {
                std::thread::sleep(std::time::Duration::from_nanos(wait - self.timing.spin_ns));
            }
        }
        last
    }

    /// Run until `stop` is set or the model time reaches `end`.
    pub fn run(&mut self, stop: &AtomicBool, end: Time) -> Time {
        let mut buf = vec![0u8; 65536];
        let mut fds = [
            libc::pollfd { fd: self.tuns[0].fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: self.tuns[1].fd(), events: libc::POLLIN, revents: 0 },
        ];
        loop {
            let now = self.now();
            if stop.load(Ordering::Acquire) || now >= end {
                return now.min(end);
            }
            self.advance_to(now);
            // Sleep until the next event, a packet, or at most 20 ms (to
            // notice `stop`).
            let now = self.now();
            let next = self.heap.peek().map_or(now + 20_000_000, |r| r.0 .0).min(now + 20_000_000).min(end);
            let wait = next.saturating_sub(now);
            if wait > self.timing.spin_ns {
                let sleep = wait - self.timing.spin_ns;
                let ts = libc::timespec { tv_sec: (sleep / 1_000_000_000) as _, tv_nsec: (sleep % 1_000_000_000) as _ };
                // SAFETY: two pollfds we own; a null signal mask pointer.
                unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
            }
            self.read_all(&mut buf);
        }
    }
}
