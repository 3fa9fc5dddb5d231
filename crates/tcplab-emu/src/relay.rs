//! The real-time loop: packets read from one TUN device cross the chain of
//! link directions (the core's `LinkDir`: queue -> transmission ->
//! propagation -> error decision at the far end) and are written to the
//! other TUN device when the model says they arrive.
//!
//! The model runs on its own clock: an event is handled with its scheduled
//! time as "now", so transmission and propagation times are exact however
//! late the loop wakes; lateness only delays the release of the packet to the
//! kernel, and it is measured for every released packet (`Lateness`).

use crate::appendbuf::AppendBuf;
use crate::ippkt;
use crate::links::LinkCarrier;
use crate::network::NetworkCarrier;
use crate::tun::Tun;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tcplab_core::engine::time::to_secs;
use tcplab_core::engine::Time;
use tcplab_core::output::pcap::PcapWriter;
use tcplab_core::output::RowSink;

/// A packet that reached the far end of the model: written to end `to`'s
/// TUN device, due at `due` (model time).
pub struct Released {
    pub due: Time,
    pub to: usize,
    pub buf: Vec<u8>,
}

/// What carries the packets between the two kernels.
pub enum Carrier {
    /// The scenario's chain of point-to-point links (`links.rs`).
    Links(LinkCarrier),
    /// A simulated network the kernels are two nodes of (`network.rs`).
    Network(Box<NetworkCarrier>),
}

impl Carrier {
    fn ingress(&mut self, side: usize, buf: Vec<u8>, m: ippkt::Meta, now: Time, out: &mut Vec<Released>) {
        match self {
            Carrier::Links(c) => c.ingress(side, buf, m, now, out),
            Carrier::Network(c) => c.ingress(side, buf, m, now),
        }
    }

    fn advance_to(&mut self, t: Time, out: &mut Vec<Released>) {
        match self {
            Carrier::Links(c) => c.advance_to(t, out),
            Carrier::Network(c) => c.advance_to(t, out),
        }
    }

    fn next_due(&mut self) -> Option<Time> {
        match self {
            Carrier::Links(c) => c.next_due(),
            Carrier::Network(c) => c.next_due(),
        }
    }

    /// Packets still in the model: queued, in transmission or propagating.
    pub fn held(&self) -> u64 {
        match self {
            Carrier::Links(c) => c.held(),
            Carrier::Network(c) => c.held(),
        }
    }

    /// queues.csv's rows at model time `t` seconds.
    fn queue_rows(&self, t: f64, sink: &mut RowSink) {
        match self {
            Carrier::Links(c) => tcplab_core::sim::queue_rows(c.path.dirs.iter(), t, sink),
            Carrier::Network(c) => c.world.queue_rows(t, sink),
        }
    }

    /// The names of end 0 and end 1.
    pub fn ends(&self) -> [String; 2] {
        match self {
            Carrier::Links(c) => c.path.ends.clone(),
            Carrier::Network(c) => c.end_names.clone(),
        }
    }
}

/// Release lateness of the packets written to the TUN devices.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    /// Nanoseconds after the scheduled time, per released packet.
    pub samples: AppendBuf<u64>,
}

impl Lateness {
    pub fn quantile(&self, q: f64) -> u64 {
        if self.samples.is_empty() {
            return 0;
        }
        let mut v = self.samples.to_vec();
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
    pub carrier: Carrier,
    tuns: [Tun; 2],
    t0: Instant,
    timing: Timing,
    /// Released packets not yet written (reused).
    out: Vec<Released>,
    pub lateness: Lateness,
    /// Captures of what each TUN device gave and took (end 0, end 1): a
    /// pcap's bytes, its header first.
    pub pcaps: Option<[AppendBuf<u8>; 2]>,
    /// Packets from the kernel that are not IPv4 (not carried).
    pub ignored: u64,
    /// Writes to a TUN device the kernel refused.
    pub write_errors: u64,
    /// IPv4 packets taken from the kernels.
    pub packets_in: u64,
    /// Packets released to the far end's kernel (written or not).
    pub packets_out: u64,
    /// queues.csv (`output.sample_interval`): the interval, the next
    /// instant on the model's clock, the rows so far.
    pub queues: Option<QueueSamples>,
}

/// The links' queues sampled at the multiples of `every` (model time: the
/// state after every event due by then, as the simulator's samples).
pub struct QueueSamples {
    pub every: Time,
    next: Time,
    pub rows: RowSink,
}

impl QueueSamples {
    pub fn new(every: Time) -> QueueSamples {
        QueueSamples { every, next: 0, rows: RowSink::memory(&tcplab_core::sim::QUEUES_SCHEMA) }
    }
}

impl Relay {
    pub fn new(carrier: Carrier, tuns: [Tun; 2], t0: Instant, timing: Timing, capture: bool) -> Relay {
        Relay {
            carrier,
            tuns,
            t0,
            timing,
            out: Vec::new(),
            lateness: Lateness::default(),
            pcaps: capture.then(|| {
                std::array::from_fn(|_| {
                    let mut b = AppendBuf::default();
                    b.extend_from_slice(&PcapWriter::new().buf);
                    b
                })
            }),
            ignored: 0,
            write_errors: 0,
            packets_in: 0,
            packets_out: 0,
            queues: None,
        }
    }

    /// Packets still in the model: queued, in transmission or propagating.
    pub fn held(&self) -> u64 {
        self.carrier.held()
    }

    pub fn now(&self) -> Time {
        self.t0.elapsed().as_nanos() as Time
    }

    fn capture(&mut self, end: usize, now: Time, buf: &[u8]) {
        if let Some(p) = &mut self.pcaps {
            let w = &mut p[end];
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
        let mut out = std::mem::take(&mut self.out);
        self.carrier.ingress(side, buf, m, now, &mut out);
        self.release_all(&mut out);
        self.out = out;
    }

    /// Write the released packets to the far ends' TUN devices.
    fn release_all(&mut self, out: &mut Vec<Released>) {
        for r in out.drain(..) {
            self.packets_out += 1;
            // Lateness is measured when the packet is handed to the kernel;
            // the write itself runs the receiving stack inline (its cost is
            // the kernel's, as on a real host).
            let now = self.now();
            self.lateness.samples.push(now.saturating_sub(r.due));
            if self.tuns[r.to].send(&r.buf).is_err() {
                self.write_errors += 1;
            }
            self.capture(r.to, now, &r.buf);
        }
    }

    /// Handle every event due at or before `t`, in time order, sampling
    /// the queues at the instants on the way.
    fn advance_to(&mut self, t: Time) {
        let mut out = std::mem::take(&mut self.out);
        self.sample_queues(t, Some(&mut out));
        self.carrier.advance_to(t, &mut out);
        self.release_all(&mut out);
        self.out = out;
    }

    /// Take every waiting packet. Each enters the model at the time it was
    /// read, after the events due before then: the model's clock never runs
    /// backwards (queue statistics integrate over it). A packet read at or
    /// after `end` does not enter: the run is over, and its tables are
    /// taken at `end` (a relay that woke late on a busy host took packets
    /// in after it, and the links table of a CoDel run then integrated its
    /// queue over a negative time, wrapped: a mean queue of 1.8e10).
    fn read_all(&mut self, buf: &mut [u8], end: Time) {
        for side in 0..2 {
            while let Ok(Some(n)) = self.tuns[side].recv(buf) {
                let now = self.now();
                if now >= end {
                    return;
                }
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
            let Some(next) = self.carrier.next_due() else { break };
            // At most 20 ms at a time, to notice `keep` cleared.
            let wait = next.min(end).saturating_sub(self.now()).min(20_000_000);
            if wait > self.timing.spin_ns {
                std::thread::sleep(std::time::Duration::from_nanos(wait - self.timing.spin_ns));
            }
        }
        last
    }

    /// queues.csv's rows at the instants up to `t`; with `out`, the model
    /// is first advanced to each instant (its released packets into `out`).
    fn sample_queues(&mut self, t: Time, mut out: Option<&mut Vec<Released>>) {
        let Some(q) = self.queues.as_mut() else { return };
        while q.next <= t {
            if let Some(out) = out.as_deref_mut() {
                self.carrier.advance_to(q.next, out);
            }
            self.carrier.queue_rows(to_secs(q.next), &mut q.rows);
            q.next += q.every;
        }
    }

    /// The queues at the instants left up to `end` (after the run: the
    /// state the model was left in).
    pub fn sample_through(&mut self, end: Time) {
        self.sample_queues(end, None);
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
            let next = self.carrier.next_due().map_or(now + 20_000_000, |t| t.min(now + 20_000_000)).min(end);
            let wait = next.saturating_sub(now);
            if wait > self.timing.spin_ns {
                let sleep = wait - self.timing.spin_ns;
                let ts = libc::timespec { tv_sec: (sleep / 1_000_000_000) as _, tv_nsec: (sleep % 1_000_000_000) as _ };
                // SAFETY: two pollfds we own; a null signal mask pointer.
                unsafe { libc::ppoll(fds.as_mut_ptr(), 2, &ts, std::ptr::null()) };
            }
            self.read_all(&mut buf, end);
        }
    }
}
