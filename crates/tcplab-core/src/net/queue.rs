//! Queues in front of a link direction's transmitter. The packet being
//! transmitted is held by the link, not here, so it never counts against the
//! limit (the Seawind / ns-2 convention).
//!
//! * DropTail: a limit in packets and/or bytes.
//! * RED (Floyd & Jacobson 1993, as ns-2's Queue/RED): an EWMA of the queue
//!   length, early drops (or ECN marks of ECN-capable packets) with
//!   probability rising linearly from 0 at min_th to max_p at max_th, spaced
//!   out by the count since the last drop; gentle mode rising to 1 at
//!   2 max_th; idle-time correction; packet or byte mode. As ns-2.35's
//!   REDQueue: every arrival counts; with `spare_short_queue` no early drop
//!   while at most one packet waits; with `spare_first_crossing` the first
//!   arrival after the average crosses min_th is never dropped early (both
//!   on in the ns2 profile, off in rfc: Floyd & Jacobson have neither);
//!   with `wait` (ns-2's wait_, on by default) drops are
//!   spaced more evenly: p_a = 0 while count * p_b < 1, then
//!   p_b / (2 - count * p_b), instead of p_b / (1 - count * p_b).
//! * Dual threshold: above a soft limit drop one arrival, then another only
//!   after a hold time if the queue has not shrunk; drop every arrival at the
//!   hard limit.
//! * DRR (ns-2's), CoDel and FQ-CoDel (Linux's): disciplines that keep
//!   their own packets (`net::fair`); the FIFO here then holds only what
//!   `enqueue_front` puts ahead of them.

use super::codel::{Codel, CodelParams};
use super::drr::{Drr, DrrParams};
use super::fair::{FlowKey, Qdisc};
use super::fq_codel::{FqCodel, FqCodelParams};
use crate::engine::{Ns2Rng, Rng, Time};
use crate::packet::PktId;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The queue's hard limit.
    Overflow,
    /// A RED early or forced drop.
    Red,
    /// The dual-threshold policy's soft limit.
    Soft,
    /// CoDel's drops as packets leave (CoDel, FQ-CoDel).
    Codel,
}

/// What happened to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    /// Enqueued with its ECN field set to CE instead of being dropped.
    Marked,
    Dropped(DropCause),
    /// Enqueued, and to make room a packet that was waiting dropped
    /// instead (RED's forced drops with `RedVictim::Front` or `Random`):
    /// the caller takes it with `Queue::pop_displaced`. (Not carried
    /// here: a verdict of two bytes keeps every `enqueue` cheaper.)
    Displaced(DropCause),
}

/// Which packet a RED queue's forced drop (the queue full, or with neither
/// `mark_p` nor ECN marking the average past max_th, 2 max_th when
/// gentle) takes, counted with the arrival at the end (ns-2's REDQueue
/// pickPacketToDrop()). Early drops always take the arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RedVictim {
    /// The arrival (ns-2's `drop_tail_ true`, its default).
    #[default]
    Tail,
    /// The packet behind the one at the head, or the arrival when it is
    /// alone (ns-2's `drop_front_`: min(1, length - 1)).
    Front,
    /// One drawn uniformly among those waiting and the arrival (ns-2's
    /// `drop_rand_`: Random::integer(length), the generator's next integer
    /// modulo the length).
    Random,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RedParams {
    /// Thresholds in packets (or bytes in byte mode).
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight w_q.
    pub weight: f64,
    pub gentle: bool,
    /// Count the queue and scale probabilities in bytes.
    pub byte_mode: bool,
    /// The queue (its average, thresholds and the short-queue test) is
    /// measured in bytes (ns-2's queue_in_bytes_; by default as
    /// `byte_mode`, tcplab's byte mode) or in packets. `byte_mode`
    /// without it is ns-2's bytes_ true with queue_in_bytes_ false: as
    /// ns-2's modify_p(), the spacing counts the bytes since the last drop
    /// in whole `mean_pktsize`s and the spaced probability is scaled by
    /// size / mean_pktsize after it. Without `byte_mode` the probability is
    /// not scaled by the packet's size.
    pub queue_in_bytes: bool,
    /// The hard limit is `limit` x `mean_pktsize` bytes waiting
    /// (REDQueue::enque() with queue_in_bytes_: a forced drop when the
    /// bytes waiting reach qlim_ x mean_pktsize before the arrival), not
    /// `limit` packets: with `queue_in_bytes` set explicitly.
    pub limit_in_bytes: bool,
    /// Mark ECN-capable packets instead of dropping them early.
    pub ecn: bool,
    /// Hard limit in packets.
    pub limit: u32,
    /// Typical packet size for idle-time correction and byte mode.
    pub mean_pktsize: u32,
    /// ns-2's wait_: no drop while count * p_b < 1 (spaces drops evenly).
    pub wait: bool,
    /// ns-2's REDQueue: no early drop while at most one packet waits
    /// (`qlen > 1` in its enque()); Floyd & Jacobson's RED has no such test.
    pub spare_short_queue: bool,
    /// ns-2's REDQueue: the first arrival after the average crosses min_th
    /// only starts the count (`old == 0`: count = 1, no drop); Floyd &
    /// Jacobson's count goes from -1 to 0 and that arrival may be dropped
    /// with probability p_b.
    pub spare_first_crossing: bool,
    /// ns-2.35's mark_p_ (with use_mark_p_, its default): an early drop of
    /// an ECN-capable packet becomes a CE mark only while the drop
    /// probability p_b (before spacing) is below this. None: RFC 3168's
    /// rule, a mark while the average is below max_th.
    pub mark_p: Option<f64>,
    /// ns-2.35's use_mark_p_ false (with `mark_p` None): every early hit
    /// on an ECN-capable packet is a mark, however high p_b, and an
    /// average at or past max_th (2 max_th when gentle) is a forced drop,
    /// tested before the first-crossing rule and without a number.
    pub mark_every_hit: bool,
    /// ns-2's REDQueue (ns1_compat_ false, its default): a drop because the
    /// queue is full restarts the count of arrivals since the last early
    /// drop or mark, as an early drop does. Floyd & Jacobson's RED leaves
    /// the hard limit to the buffer and the count alone.
    pub overflow_resets_count: bool,
    /// Draw the early drops from ns-2.35's default generator after this
    /// many draws (two per TCP agent of the ns-2 run), one number per
    /// early-drop test as its drop_early() (also at p = 0), a drop or mark
    /// when u <= p, no number for a forced drop: the decisions of a given
    /// ns-2 run, for packet-level comparisons (`engine::ns2_rng`). None:
    /// the link's own stream, drawn only when p > 0.
    pub ns2_generator: Option<u64>,
    /// The packet a forced drop takes.
    pub victim: RedVictim,
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueuePolicy {
    /// Drop arrivals when the limit would be exceeded; `None` = no limit.
    DropTail {
        limit_packets: Option<u32>,
        limit_bytes: Option<u64>,
    },
    Red(RedParams),
    DualThreshold {
        soft: u32,
        hard: u32,
        hold: Time,
    },
    /// ns-2.35's Queue/DRR (`net::drr`).
    Drr(DrrParams),
    /// Linux's codel: one FIFO under CoDel, tail drop at `limit` packets.
    Codel {
        params: CodelParams,
        limit: u32,
    },
    /// Linux's fq_codel (`net::fq_codel`).
    FqCodel(FqCodelParams),
}

#[derive(Clone, Debug, Default)]
struct RedState {
    avg: f64,
    /// Arrivals since the last early drop or mark (ns-2's count).
    count: i64,
    /// Their bytes (ns-2's count_bytes), for `byte_mode` without
    /// `queue_in_bytes`.
    count_bytes: i64,
    /// The average is above min_th with packets waiting (ns-2's old).
    above: bool,
    idle_since: Option<Time>,
    /// ns-2's one generator (`RedParams::ns2_generator`), shared by every
    /// RED queue of the run that draws from it, as in ns-2 all objects
    /// draw from one global stream in the order they ask.
    ns2: Option<Arc<Mutex<Ns2Rng>>>,
}

#[derive(Clone, Debug, Default)]
struct DualState {
    last_drop: Option<Time>,
    len_at_drop: usize,
}

pub struct Queue {
    pub policy: QueuePolicy,
    buf: VecDeque<(PktId, u32)>,
    bytes: u64,
    red: RedState,
    dual: DualState,
    /// Link rate, for RED's idle-time correction.
    rate_bps: u64,
    /// The packets the last `Verdict::Displaced` (or a `Dropped` of a
    /// discipline that dropped others too) took out.
    displaced: Vec<PktId>,
    /// DRR, CoDel or FQ-CoDel, holding the packets (None: `buf` does).
    qdisc: Option<Box<Qdisc>>,
    /// What the last dequeue of a discipline did besides: the packets its
    /// controller dropped, and whether the packet it gave is to be marked.
    dequeue_drops: Vec<PktId>,
    dequeue_mark: bool,
}

impl Queue {
    pub fn new(policy: QueuePolicy, rate_bps: u64) -> Self {
        Self::seeded(policy, rate_bps, 0)
    }

    /// A queue whose discipline, if it hashes flows, keys its hash with
    /// `seed` (Linux draws a key per queue).
    pub fn seeded(policy: QueuePolicy, rate_bps: u64, seed: u64) -> Self {
        let qdisc = match &policy {
            QueuePolicy::Drr(p) => Some(Qdisc::Drr(Drr::new(p.clone(), seed))),
            QueuePolicy::Codel { params, limit } => Some(Qdisc::Codel(Codel::new(*params, *limit))),
            QueuePolicy::FqCodel(p) => Some(Qdisc::FqCodel(FqCodel::new(p.clone(), seed))),
            _ => None,
        };
        Queue {
            policy,
            buf: VecDeque::new(),
            bytes: 0,
            red: RedState { idle_since: Some(0), ..Default::default() },
            dual: DualState::default(),
            rate_bps,
            displaced: Vec::new(),
            qdisc: qdisc.map(Box::new),
            dequeue_drops: Vec::new(),
            dequeue_mark: false,
        }
    }

    /// Whether a discipline of `net::fair` holds the packets (it wants
    /// each packet's flow and may drop or mark as packets leave).
    #[inline(always)]
    pub fn has_qdisc(&self) -> bool {
        self.qdisc.is_some()
    }

    /// `enqueue` for a queue that may classify by flow: `key` is asked
    /// only by a discipline that does.
    #[inline]
    pub fn enqueue_keyed(
        &mut self,
        now: Time,
        id: PktId,
        size: u32,
        ect: bool,
        key: impl FnOnce() -> FlowKey,
        rng: &mut Rng,
    ) -> Verdict {
        if self.qdisc.is_none() {
            return self.enqueue(now, id, size, ect, rng);
        }
        self.qdisc_enqueue(now, id, size, ect, key())
    }

    /// A discipline's enqueue: `Dropped` if the arrival was among the
    /// packets it dropped, `Displaced` if only others were; either way
    /// the others are taken with `pop_displaced`.
    #[cold]
    #[inline(never)]
    fn qdisc_enqueue(&mut self, now: Time, id: PktId, size: u32, ect: bool, key: FlowKey) -> Verdict {
        let q = self.qdisc.as_mut().expect("a discipline");
        q.enqueue(now, (id, size, ect), &key, &mut self.displaced);
        let cause = DropCause::Overflow;
        if let Some(i) = self.displaced.iter().position(|&d| d == id) {
            self.displaced.remove(i);
            Verdict::Dropped(cause)
        } else if self.displaced.is_empty() {
            Verdict::Enqueued
        } else {
            Verdict::Displaced(cause)
        }
    }

    /// Offer a packet of `size` bytes at `now`; `ect` says whether it is
    /// ECN-capable. On `Dropped` the caller discards it; on `Marked` the
    /// caller sets CE.
    pub fn enqueue(&mut self, now: Time, id: PktId, size: u32, ect: bool, rng: &mut Rng) -> Verdict {
        let verdict = match &self.policy {
            QueuePolicy::DropTail { limit_packets, limit_bytes } => {
                if limit_packets.is_some_and(|l| self.buf.len() as u64 >= l as u64)
                    || limit_bytes.is_some_and(|l| self.bytes + size as u64 > l)
                {
                    Verdict::Dropped(DropCause::Overflow)
                } else {
                    Verdict::Enqueued
                }
            }
            QueuePolicy::Red(p) => {
                let p = p.clone();
                self.red_verdict(&p, now, size, ect, rng)
            }
            QueuePolicy::Drr(_) | QueuePolicy::Codel { .. } | QueuePolicy::FqCodel(_) => {
                return self.qdisc_enqueue(now, id, size, ect, FlowKey::default());
            }
            QueuePolicy::DualThreshold { soft, hard, hold } => {
                let len = self.buf.len();
                if len >= *hard as usize {
                    Verdict::Dropped(DropCause::Overflow)
                } else if len >= *soft as usize {
                    let due = match self.dual.last_drop {
                        None => true,
                        Some(t) => now >= t + hold && len >= self.dual.len_at_drop,
                    };
                    if due {
                        self.dual.last_drop = Some(now);
                        self.dual.len_at_drop = len;
                        Verdict::Dropped(DropCause::Soft)
                    } else {
                        Verdict::Enqueued
                    }
                } else {
                    Verdict::Enqueued
                }
            }
        };
        if !matches!(verdict, Verdict::Dropped(_)) {
            self.buf.push_back((id, size));
            self.bytes += size as u64;
            self.red.idle_since = None;
        }
        verdict
    }

    /// A RED forced drop for `cause` with packets `waiting` and the
    /// arrival counted at the end: the arrival (`Dropped`) or, with
    /// `RedVictim::Front` or `Random`, maybe a waiting packet, taken out
    /// here (`Displaced`; the caller appends the arrival).
    #[cold]
    #[inline(never)]
    fn forced_drop(&mut self, p: &RedParams, cause: DropCause, rng: &mut Rng) -> Verdict {
        let len = self.buf.len() + 1;
        let i = match p.victim {
            RedVictim::Tail => len - 1,
            RedVictim::Front => 1.min(len - 1),
            RedVictim::Random => match p.ns2_generator {
                // ns-2's Random::integer(k): (long)(U01 * (2^31 - 1)) % k.
                Some(skip) => (self.ns2_draw(skip) * 2_147_483_647.0) as u64 as usize % len,
                None => (rng.next_u64() % len as u64) as usize,
            },
        };
        if i == len - 1 {
            return Verdict::Dropped(cause);
        }
        let (victim, size) = self.buf.remove(i).expect("a waiting packet");
        self.bytes -= size as u64;
        self.displaced.push(victim);
        Verdict::Displaced(cause)
    }

    /// A packet the last `Verdict::Displaced` (or a discipline's
    /// `Dropped`) dropped from the queue, until there are none.
    pub fn pop_displaced(&mut self) -> Option<PktId> {
        self.displaced.pop()
    }

    /// How many packets `pop_displaced` has to give.
    pub fn displaced_len(&self) -> usize {
        self.displaced.len()
    }

    /// The next number of ns-2's generator (`RedParams::ns2_generator`,
    /// after `skip` draws when this queue starts it).
    fn ns2_draw(&mut self, skip: u64) -> f64 {
        let g = self.red.ns2.get_or_insert_with(|| Arc::new(Mutex::new(Ns2Rng::skipping(skip))));
        g.lock().expect("one thread").uniform()
    }

    /// RED's average after an arrival at `now` (before the packet joins).
    fn red_average(&mut self, p: &RedParams, now: Time) -> f64 {
        let q = if p.queue_in_bytes { self.bytes as f64 } else { self.buf.len() as f64 };
        match self.red.idle_since {
            Some(t0) if self.buf.is_empty() && now > t0 => {
                // Idle-time correction: the average decays as if m small
                // packets had arrived to an empty queue during the idle
                // time, m in whole packets (ns-2's int(ptc * idle time)).
                let per_sec = self.rate_bps as f64 / (8.0 * p.mean_pktsize as f64);
                let m = ((now - t0) as f64 / 1e9 * per_sec).floor();
                self.red.avg *= (1.0 - p.weight).powf(m);
                self.red.avg = (1.0 - p.weight) * self.red.avg + p.weight * q;
            }
            _ => self.red.avg = (1.0 - p.weight) * self.red.avg + p.weight * q,
        }
        self.red.avg
    }

    /// Out of line: a drop-tail queue's `enqueue`, the common case, then
    /// saves and restores fewer registers.
    #[inline(never)]
    fn red_verdict(&mut self, p: &RedParams, now: Time, size: u32, ect: bool, rng: &mut Rng) -> Verdict {
        let avg = self.red_average(p, now);
        self.red.count += 1;
        self.red.count_bytes += size as i64;
        let waiting = if p.queue_in_bytes { self.bytes } else { self.buf.len() as u64 };
        let mut verdict = Verdict::Enqueued;
        let tests = avg >= p.min_th && (waiting > 1 || !p.spare_short_queue);
        if tests && p.mark_every_hit && red_past_max(p, avg) {
            // ns-2's enque() without use_mark_p_: DTYPE_FORCED, before its
            // `old` test and without drop_early(); the count restarts as
            // after a full queue's drop.
            if p.overflow_resets_count {
                self.red.count = 0;
                self.red.count_bytes = 0;
            }
            if self.takes_victim(p) {
                return self.forced_drop(p, DropCause::Red, rng);
            }
            verdict = Verdict::Dropped(DropCause::Red);
        } else if tests {
            let crossing = !self.red.above;
            if crossing {
                // Just crossed min_th: start counting (ns-2: count 1, no
                // drop; Floyd & Jacobson: count 0 and the drop test).
                self.red.above = true;
                self.red.count = if p.spare_first_crossing { 1 } else { 0 };
                self.red.count_bytes = if p.spare_first_crossing { size as i64 } else { 0 };
            }
            let tested = !(crossing && p.spare_first_crossing);
            if tested && self.red_hit(p, avg, size, rng) {
                self.red.count = 0;
                self.red.count_bytes = 0;
                if red_forces(p, avg) && self.takes_victim(p) {
                    return self.forced_drop(p, DropCause::Red, rng);
                }
                let marks = p.ecn
                    && ect
                    && match p.mark_p {
                        // ns-2.35's red.cc: v_prob1 < mark_p (later ns-2
                        // releases, with DCTCP, test <=).
                        Some(m) => red_pb(p, avg) < m,
                        None if p.mark_every_hit => true,
                        None => avg < p.max_th,
                    };
                verdict = if marks { Verdict::Marked } else { Verdict::Dropped(DropCause::Red) };
            }
        } else {
            self.red.above = false;
        }
        if self.red_full(p) {
            if p.overflow_resets_count {
                self.red.count = 0;
                self.red.count_bytes = 0;
            }
            return self.forced_drop(p, DropCause::Overflow, rng);
        }
        verdict
    }

    /// A forced drop that is not the hard limit's may take a waiting
    /// packet instead of the arrival (`RedVictim`).
    #[inline(always)]
    fn takes_victim(&self, p: &RedParams) -> bool {
        p.victim != RedVictim::Tail && !self.red_full(p)
    }

    /// RED's hard limit reached (before the arrival joins): `limit`
    /// packets, or with `queue_in_bytes` `limit` x `mean_pktsize` bytes.
    #[inline(always)]
    fn red_full(&self, p: &RedParams) -> bool {
        if p.limit_in_bytes {
            self.bytes >= p.limit as u64 * p.mean_pktsize as u64
        } else {
            self.buf.len() >= p.limit as usize
        }
    }

    /// The early-drop test of an arrival past the first crossing: whether
    /// it is dropped or marked.
    fn red_hit(&mut self, p: &RedParams, avg: f64, size: u32, rng: &mut Rng) -> bool {
        let pa = if p.byte_mode && !p.queue_in_bytes {
            // ns-2's modify_p() with bytes_: the count in whole mean-sized
            // packets (integer division), the size scaling after the
            // spacing.
            let pa = red_spaced(red_pb(p, avg), self.red.count_bytes / p.mean_pktsize as i64, p.wait);
            if pa < 1.0 {
                (pa * size as f64 / p.mean_pktsize as f64).min(1.0)
            } else {
                pa
            }
        } else {
            red_spaced(red_probability(p, avg, size), self.red.count, p.wait)
        };
        let Some(skip) = p.ns2_generator else { return rng.chance(pa) };
        // ns-2's enque(): without use_mark_p_ an average past max_th (2
        // max_th when gentle) is a forced drop, decided without a number.
        // (With `mark_every_hit` red_verdict() has taken that drop already.)
        red_forces(p, avg) || self.ns2_draw(skip) <= pa
    }

    /// Draw RED's early drops from `g`, ns-2's generator shared with the
    /// run's other RED queues on it (`RedParams::ns2_generator`).
    pub fn share_ns2_generator(&mut self, g: Arc<Mutex<Ns2Rng>>) {
        self.red.ns2 = Some(g);
    }

    /// Whether arrivals at an idle transmitter must still be offered to
    /// the queue (`idle_arrival`): RED's average and count see every
    /// arrival, those that go straight onto the wire too.
    #[inline(always)]
    pub fn sees_idle_arrivals(&self) -> bool {
        matches!(self.policy, QueuePolicy::Red(_)) || self.qdisc.as_ref().is_some_and(|q| q.sees_idle_arrivals())
    }

    /// A packet arrives with nothing waiting and the transmitter free: RED
    /// updates its average (with the idle-time correction) and its count,
    /// and may still drop or mark it (Floyd & Jacobson test every arrival;
    /// ns-2 spares a short queue). The packet does not join the queue: on
    /// `Enqueued` or `Marked` it goes onto the wire at once.
    /// A discipline that sees idle arrivals (DRR, as ns-2 enques and deques
    /// every packet) takes the packet in and gives it straight back: `key`
    /// is its flow, `id` its number.
    pub fn idle_arrival(
        &mut self,
        now: Time,
        (id, size, ect): (PktId, u32, bool),
        key: impl FnOnce() -> FlowKey,
        rng: &mut Rng,
    ) -> Verdict {
        match &self.policy {
            QueuePolicy::Red(p) => {
                let p = p.clone();
                self.red_verdict(&p, now, size, ect, rng)
            }
            _ if self.qdisc.is_some() => {
                let v = self.qdisc_enqueue(now, id, size, ect, key());
                if !matches!(v, Verdict::Dropped(_)) {
                    let out = self.dequeue_sized(now);
                    debug_assert_eq!(out.map(|o| o.0), Some(id), "an idle queue gives the arrival back");
                }
                v
            }
            _ => Verdict::Enqueued,
        }
    }

    /// The transmitter is busy until `t` with nothing waiting behind: the
    /// queue is idle from then on unless a packet joins (ns-2's REDQueue
    /// starts its idle time when the link asks for a packet and there is
    /// none, at the end of the last transmission).
    #[inline(always)]
    pub fn transmitting_until(&mut self, t: Time) {
        if self.buf.is_empty() {
            self.red.idle_since = Some(t);
        }
    }

    /// Put a packet at the head of the queue regardless of the limits (a
    /// base station's local retransmission goes ahead of queued traffic).
    pub fn enqueue_front(&mut self, id: PktId, size: u32) {
        self.buf.push_front((id, size));
        self.bytes += size as u64;
        self.red.idle_since = None;
    }

    /// Whether a packet could join without reaching the limit (Snoop caches
    /// only then, so that congestion still shows to the sender).
    pub fn has_room(&self) -> bool {
        self.limit().is_none_or(|l| self.len() + 1 < l)
    }

    /// The most packets that may wait (None: no limit).
    pub fn limit(&self) -> Option<usize> {
        match &self.policy {
            QueuePolicy::DropTail { limit_packets, .. } => limit_packets.map(|l| l as usize),
            QueuePolicy::Red(p) => Some(p.limit as usize),
            QueuePolicy::DualThreshold { hard, .. } => Some(*hard as usize),
            QueuePolicy::Codel { limit, .. } => Some(*limit as usize),
            QueuePolicy::FqCodel(p) => Some(p.limit as usize),
            // A limit in bytes only.
            QueuePolicy::Drr(_) => None,
        }
    }

    /// Whether the queue holds its limit (of packets waiting).
    pub fn is_full(&self) -> bool {
        self.limit().is_some_and(|l| self.len() >= l)
    }

    /// Take the last packet out (ns-2's PriQueue making room behind a
    /// routing message).
    pub fn pop_back(&mut self, now: Time) -> Option<PktId> {
        let taken = self.buf.pop_back();
        self.took(now, taken)
    }

    pub fn dequeue(&mut self, now: Time) -> Option<PktId> {
        self.dequeue_sized(now).map(|(id, _)| id)
    }

    /// `dequeue`, with the IP size the packet was queued with: a link
    /// starting its transmission needs no look at the packet, which has
    /// waited in the queue and is no longer in the cache.
    #[inline]
    pub fn dequeue_sized(&mut self, now: Time) -> Option<(PktId, u32)> {
        let taken = self.buf.pop_front();
        if taken.is_none() && self.qdisc.is_some() {
            return self.qdisc_dequeue(now);
        }
        self.took(now, taken)?;
        taken
    }

    /// `dequeue_sized` of a queue without a discipline (the link knows
    /// which it has): no look at one.
    #[inline(always)]
    pub fn dequeue_fifo(&mut self, now: Time) -> Option<(PktId, u32)> {
        debug_assert!(self.qdisc.is_none());
        let taken = self.buf.pop_front();
        self.took(now, taken)?;
        taken
    }

    /// A discipline's dequeue; its drops and mark wait in
    /// `take_dequeue_drops` and `dequeue_marked`.
    #[cold]
    #[inline(never)]
    fn qdisc_dequeue(&mut self, now: Time) -> Option<(PktId, u32)> {
        let q = self.qdisc.as_mut().expect("a discipline");
        let out = q.dequeue(now, &mut self.dequeue_drops);
        self.dequeue_mark = out.is_some_and(|d| d.mark);
        out.map(|d| (d.w.id, d.w.size))
    }

    /// The packets the discipline's controller dropped in the last
    /// dequeues (CoDel), taken out of the queue for the caller to discard.
    pub fn take_dequeue_drops(&mut self) -> Vec<PktId> {
        std::mem::take(&mut self.dequeue_drops)
    }

    /// How many packets `take_dequeue_drops` has to give.
    pub fn dequeue_drops_len(&self) -> usize {
        self.dequeue_drops.len()
    }

    /// Whether the packet the last dequeue gave is to leave marked CE
    /// (CoDel's signal to an ECN-capable packet).
    pub fn dequeue_marked(&self) -> bool {
        self.dequeue_mark
    }

    /// The bookkeeping of a packet taken out at `now`.
    #[inline(always)]
    fn took(&mut self, now: Time, taken: Option<(PktId, u32)>) -> Option<PktId> {
        let (id, size) = taken?;
        self.bytes -= size as u64;
        if self.buf.is_empty() {
            self.red.idle_since = Some(now);
        }
        Some(id)
    }

    /// Take out every queued packet `pick` chooses, in queue order (a
    /// routing protocol pulls back the packets for a neighbour it lost).
    pub fn remove_where(&mut self, now: Time, mut pick: impl FnMut(PktId) -> bool) -> Vec<PktId> {
        debug_assert!(self.qdisc.is_none(), "an interface queue has no discipline of net::fair");
        let mut taken = Vec::new();
        let mut bytes = self.bytes;
        self.buf.retain(|&(id, size)| {
            if pick(id) {
                taken.push(id);
                bytes -= size as u64;
                false
            } else {
                true
            }
        });
        self.bytes = bytes;
        if self.buf.is_empty() && !taken.is_empty() {
            self.red.idle_since = Some(now);
        }
        taken
    }

    /// RED's current average queue (0 for other policies).
    pub fn red_avg(&self) -> f64 {
        self.red.avg
    }

    pub fn len(&self) -> usize {
        self.buf.len() + self.qdisc.as_ref().map_or(0, |q| q.backlog().packets)
    }

    /// The packets in the FIFO only: `len` of a queue without a
    /// discipline (the link knows which it has).
    #[inline(always)]
    pub fn fifo_len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty() && self.qdisc.as_ref().is_none_or(|q| q.backlog().packets == 0)
    }

    pub fn bytes(&self) -> u64 {
        self.bytes + self.qdisc.as_ref().map_or(0, |q| q.backlog().bytes)
    }
}

/// The drop probability p_a from p_b after `count` arrivals without a drop:
/// p_b / (1 - count p_b) (Floyd & Jacobson), or with `wait` 0 while
/// count p_b < 1, then p_b / (2 - count p_b) (ns-2's modify_p()).
pub fn red_spaced(pb: f64, count: i64, wait: bool) -> f64 {
    let cp = count as f64 * pb;
    let pa = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            pb / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        pb / (1.0 - cp)
    } else {
        1.0
    };
    pa.min(1.0)
}

/// RED's base drop probability p_b at average `avg` for a packet of `size`.
pub fn red_probability(p: &RedParams, avg: f64, size: u32) -> f64 {
    let pb = red_pb(p, avg);
    if p.byte_mode {
        (pb * size as f64 / p.mean_pktsize as f64).min(1.0)
    } else {
        pb
    }
}

/// p_b of the average, before byte-mode scaling and spacing (ns-2's
/// calculate_p_new, its v_prob1).
/// ns-2's REDQueue::enque(): without use_mark_p_ an average past max_th
/// (2 max_th when gentle) forces a drop (decided without a number, and
/// taking the queue's victim).
fn red_forces(p: &RedParams, avg: f64) -> bool {
    p.mark_p.is_none() && red_past_max(p, avg)
}

/// The average at or past max_th (2 max_th when gentle).
fn red_past_max(p: &RedParams, avg: f64) -> bool {
    avg >= if p.gentle { 2.0 * p.max_th } else { p.max_th }
}

fn red_pb(p: &RedParams, avg: f64) -> f64 {
    if avg < p.min_th {
        0.0
    } else if avg < p.max_th {
        p.max_p * (avg - p.min_th) / (p.max_th - p.min_th)
    } else if p.gentle && avg < 2.0 * p.max_th {
        p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream_rng;
    use crate::engine::time::{MS, SEC};

    fn droptail(limit_packets: Option<u32>, limit_bytes: Option<u64>) -> Queue {
        Queue::new(QueuePolicy::DropTail { limit_packets, limit_bytes }, 1_000_000)
    }

    fn offer(q: &mut Queue, id: u32, size: u32) -> Verdict {
        q.enqueue(0, PktId(id), size, false, &mut stream_rng(0, "q"))
    }

    #[test]
    fn droptail_packet_limit() {
        let mut q = droptail(Some(2), None);
        assert_eq!(offer(&mut q, 0, 100), Verdict::Enqueued);
        assert_eq!(offer(&mut q, 1, 100), Verdict::Enqueued);
        assert_eq!(offer(&mut q, 2, 100), Verdict::Dropped(DropCause::Overflow));
        assert_eq!(q.dequeue(0), Some(PktId(0)));
        assert_eq!(offer(&mut q, 3, 100), Verdict::Enqueued);
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 200);
    }

    #[test]
    fn droptail_byte_limit() {
        let mut q = droptail(None, Some(250));
        assert_eq!(offer(&mut q, 0, 100), Verdict::Enqueued);
        assert_eq!(offer(&mut q, 1, 100), Verdict::Enqueued);
        assert!(matches!(offer(&mut q, 2, 100), Verdict::Dropped(_)));
        assert_eq!(offer(&mut q, 3, 50), Verdict::Enqueued);
    }

    #[test]
    fn unlimited_never_drops() {
        let mut q = droptail(None, None);
        for i in 0..10_000 {
            assert_eq!(offer(&mut q, i, 1500), Verdict::Enqueued);
        }
    }

    fn red(gentle: bool, ecn: bool) -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            weight: 0.002,
            gentle,
            byte_mode: false,
            queue_in_bytes: false,
            limit_in_bytes: false,
            ecn,
            limit: 1000,
            mean_pktsize: 1000,
            wait: true,
            spare_short_queue: true,
            spare_first_crossing: true,
            mark_p: None,
            mark_every_hit: false,
            overflow_resets_count: false,
            ns2_generator: None,
            victim: RedVictim::Tail,
        }
    }

    /// The average follows avg <- (1 - w) avg + w q at each arrival.
    #[test]
    fn red_average_is_the_ewma() {
        let p = red(true, false);
        let mut q = Queue::new(QueuePolicy::Red(p.clone()), 10_000_000);
        let mut rng = stream_rng(1, "red");
        let mut expect = 0.0;
        for i in 0..200u32 {
            let len = q.len() as f64;
            q.enqueue(MS * i as u64, PktId(i), 1000, false, &mut rng);
            expect = (1.0 - p.weight) * expect + p.weight * len;
            assert!((q.red_avg() - expect).abs() < 1e-9, "arrival {i}");
        }
    }

    /// While idle the average decays as if small packets had arrived at the
    /// line rate to an empty queue.
    #[test]
    fn red_idle_time_correction() {
        let p = red(true, false);
        let mut q = Queue::new(QueuePolicy::Red(p.clone()), 8_000_000); // 1000 packets/s
        let mut rng = stream_rng(1, "red");
        for i in 0..500 {
            q.enqueue(0, PktId(i), 1000, false, &mut rng);
        }
        let before = q.red_avg();
        while q.dequeue(0).is_some() {}
        q.enqueue(SEC, PktId(9999), 1000, false, &mut rng);
        let expect = before * (1.0 - p.weight).powf(1000.0) * (1.0 - p.weight);
        assert!((q.red_avg() - expect).abs() < 1e-9, "{} vs {expect}", q.red_avg());
    }

    /// ns-2's idle time starts when the link has sent its last packet
    /// (`transmitting_until`), not when that packet left the queue, and the
    /// decay counts whole packets (int(ptc x idle time)).
    #[test]
    fn red_idle_time_starts_at_the_end_of_the_last_transmission() {
        let p = red(true, false);
        let mut q = Queue::new(QueuePolicy::Red(p.clone()), 8_000_000); // 1000 packets/s
        let mut rng = stream_rng(1, "red");
        for i in 0..500 {
            q.enqueue(0, PktId(i), 1000, false, &mut rng);
        }
        while q.dequeue(0).is_some() {}
        // The last packet is on the wire until 1 ms.
        q.transmitting_until(MS);
        let before = q.red_avg();
        // An arrival during that transmission: no idle-time decay.
        q.enqueue(MS / 2, PktId(9998), 1000, false, &mut rng);
        let expect = before * (1.0 - p.weight);
        assert!((q.red_avg() - expect).abs() < 1e-12, "{} vs {expect}", q.red_avg());
        q.dequeue(MS);
        q.transmitting_until(2 * MS);
        let before = q.red_avg();
        // 2.5 packet times after that one ended: m = 2, not 2.5.
        q.enqueue(2 * MS + 2500 * crate::engine::time::US, PktId(9999), 1000, false, &mut rng);
        let expect = before * (1.0 - p.weight).powi(2) * (1.0 - p.weight);
        assert!((q.red_avg() - expect).abs() < 1e-12, "{} vs {expect}", q.red_avg());
    }

    /// An arrival at an idle transmitter still counts for RED: its average
    /// and count move (ns-2 and Floyd & Jacobson run the estimator on every
    /// arrival), and the packet does not join the queue.
    #[test]
    fn red_sees_arrivals_at_an_idle_link() {
        let p = red(true, false);
        let mut q = Queue::new(QueuePolicy::Red(p), 8_000_000);
        let mut rng = stream_rng(1, "red");
        q.red.avg = 4.0;
        q.red.idle_since = None;
        q.red.count = 7;
        assert!(q.sees_idle_arrivals());
        assert_eq!(q.idle_arrival(0, (PktId(0), 1000, false), FlowKey::default, &mut rng), Verdict::Enqueued);
        assert!(q.is_empty());
        assert!((q.red_avg() - 4.0 * (1.0 - 0.002)).abs() < 1e-12);
        assert_eq!(q.red.count, 8);
        assert!(!droptail(Some(5), None).sees_idle_arrivals());
    }

    /// `queue_in_bytes` (ns-2's queue_in_bytes_): the hard limit is `limit`
    /// x `mean_pktsize` bytes waiting before the arrival, not `limit`
    /// packets: limit 2 and 1000-byte mean hold four 600-byte packets
    /// (1800 bytes before the fourth), packets two.
    #[test]
    fn red_queue_in_bytes_limit() {
        for (bytes, held) in [(false, 2), (true, 4)] {
            let p = RedParams {
                limit: 2,
                mean_pktsize: 1000,
                queue_in_bytes: bytes,
                limit_in_bytes: bytes,
                ..red(true, false)
            };
            let mut q = Queue::new(QueuePolicy::Red(p), 8_000_000);
            let mut rng = stream_rng(1, "red");
            let verdicts: Vec<Verdict> = (0..5).map(|i| q.enqueue(0, PktId(i), 600, false, &mut rng)).collect();
            assert!(verdicts[..held].iter().all(|v| *v == Verdict::Enqueued), "{bytes}: {verdicts:?}");
            assert_eq!(verdicts[held], Verdict::Dropped(DropCause::Overflow), "{bytes}");
        }
    }

    /// A drop because the queue is full restarts the count since the last
    /// early drop in ns-2 (`overflow_resets_count`), not in Floyd & Jacobson.
    #[test]
    fn red_overflow_resets_the_count_as_ns2() {
        for (reset, count_after) in [(true, 0), (false, 4)] {
            let p = RedParams { limit: 3, overflow_resets_count: reset, ..red(true, false) };
            let mut q = Queue::new(QueuePolicy::Red(p), 8_000_000);
            let mut rng = stream_rng(1, "red");
            for i in 0..3 {
                assert_eq!(q.enqueue(0, PktId(i), 1000, false, &mut rng), Verdict::Enqueued);
            }
            q.red.count = 3;
            assert_eq!(q.enqueue(0, PktId(3), 1000, false, &mut rng), Verdict::Dropped(DropCause::Overflow));
            assert_eq!(q.red.count, count_after, "reset {reset}");
        }
    }

    #[test]
    fn red_probability_formula() {
        let p = red(false, false);
        assert_eq!(red_probability(&p, 4.0, 1000), 0.0);
        assert!((red_probability(&p, 10.0, 1000) - 0.05).abs() < 1e-12);
        assert_eq!(red_probability(&p, 15.0, 1000), 1.0);
        let g = red(true, false);
        assert!((red_probability(&g, 15.0, 1000) - 0.1).abs() < 1e-12);
        assert!((red_probability(&g, 22.5, 1000) - 0.55).abs() < 1e-12);
        assert_eq!(red_probability(&g, 30.0, 1000), 1.0);
        let mut b = red(false, false);
        b.byte_mode = true;
        assert!((red_probability(&b, 10.0, 500) - 0.025).abs() < 1e-12);
    }

    /// A RED queue held at average `avg` with two packets waiting (RED
    /// never drops early with at most one waiting, as ns-2).
    fn red_at(p: RedParams, avg: f64) -> Queue {
        let mut q = Queue::new(QueuePolicy::Red(RedParams { weight: 1e-12, ..p }), 1_000_000);
        let mut rng = stream_rng(9, "fill");
        for i in 0..2 {
            q.enqueue(0, PktId(1_000_000 + i), 1000, false, &mut rng);
        }
        q.red.avg = avg;
        q.red.idle_since = None;
        q
    }

    /// Held at a fixed average between the thresholds, the drops are spaced
    /// as p_a makes them (p_b / (1 - count p_b), or ns-2's wait_ law): the
    /// measured drop rate is 1 / E[packets between drops], computed from
    /// that law.
    #[test]
    fn red_drop_rate_at_a_fixed_average() {
        for wait in [false, true] {
            let mut q = red_at(RedParams { wait, ..red(false, false) }, 10.0);
            let mut rng = stream_rng(5, "red");
            let n = 200_000;
            let mut drops = 0;
            for i in 0..n {
                if matches!(q.enqueue(0, PktId(i), 1000, false, &mut rng), Verdict::Dropped(_)) {
                    drops += 1;
                } else {
                    q.dequeue(0);
                }
            }
            let pb: f64 = 0.05;
            // E[X] = sum over n >= 1 of P(X >= n), P(X > n) = prod (1 - p_a(k)).
            let (mut mean, mut survive) = (0.0, 1.0);
            for k in 1..1000 {
                mean += survive;
                survive *= 1.0 - red_spaced(pb, k, wait);
            }
            let expect = 1.0 / mean;
            let got = drops as f64 / n as f64;
            assert!((got - expect).abs() < 0.003, "wait {wait}: {got} vs {expect}");
        }
        // The two laws: Floyd & Jacobson's, and ns-2's with wait_.
        assert!((red_spaced(0.05, 10, false) - 0.1).abs() < 1e-12);
        assert_eq!(red_spaced(0.05, 10, true), 0.0);
        assert!((red_spaced(0.05, 30, true) - 0.1).abs() < 1e-12);
        assert_eq!(red_spaced(0.05, 40, true), 1.0);
    }

    /// `spare_short_queue` alone: with one packet waiting at every arrival
    /// and the average near max_th, ns-2's REDQueue never drops early (and
    /// never counts the average as crossed); Floyd & Jacobson's RED does.
    #[test]
    fn red_spare_short_queue_rule() {
        for spare in [true, false] {
            let p = RedParams { weight: 1e-12, wait: false, spare_short_queue: spare, ..red(false, false) };
            let mut q = Queue::new(QueuePolicy::Red(p), 1_000_000);
            let mut rng = stream_rng(5, "red");
            q.enqueue(0, PktId(0), 1000, false, &mut rng);
            q.red.avg = 14.9;
            let mut drops = 0;
            for i in 1..1000 {
                assert_eq!(q.len(), 1, "one packet waits at each arrival");
                match q.enqueue(0, PktId(i), 1000, false, &mut rng) {
                    Verdict::Dropped(DropCause::Red) => drops += 1,
                    Verdict::Enqueued => {
                        q.dequeue(0);
                    }
                    v => panic!("{v:?}"),
                }
            }
            if spare {
                assert_eq!(drops, 0);
                assert!(!q.red.above, "at most one packet waited: not crossed");
            } else {
                // p_b = 0.099, p_a = p_b / (1 - count p_b): a drop at least
                // every 11 arrivals.
                assert!(drops >= 90, "{drops} drops");
            }
        }
        // Two waiting: both versions test the arrival.
        let p = RedParams { weight: 1e-12, ..red(false, false) };
        let mut q = Queue::new(QueuePolicy::Red(p), 1_000_000);
        let mut rng = stream_rng(5, "red");
        q.enqueue(0, PktId(0), 1000, false, &mut rng);
        q.enqueue(0, PktId(1), 1000, false, &mut rng);
        q.red.avg = 14.9;
        assert_eq!(q.enqueue(0, PktId(2), 1000, false, &mut rng), Verdict::Enqueued);
        assert!(q.red.above, "two waited: the average counts as crossed");
    }

    /// `spare_first_crossing` alone: the first arrival after the average
    /// crosses min_th only starts the count in ns-2 (count 1, no drop); in
    /// Floyd & Jacobson's RED the count starts at 0 and the arrival is
    /// dropped with p_a = p_b (here 0.999).
    #[test]
    fn red_spare_first_crossing_rule() {
        for spare in [true, false] {
            let p =
                RedParams { weight: 1e-12, max_p: 1.0, wait: false, spare_first_crossing: spare, ..red(false, false) };
            let mut q = Queue::new(QueuePolicy::Red(p), 1_000_000);
            let mut rng = stream_rng(5, "red");
            q.enqueue(0, PktId(0), 1000, false, &mut rng);
            q.enqueue(0, PktId(1), 1000, false, &mut rng);
            q.red.avg = 14.99;
            assert!(!q.red.above);
            let v = q.enqueue(0, PktId(2), 1000, false, &mut rng);
            assert!(q.red.above, "crossed");
            if spare {
                assert_eq!((v, q.red.count), (Verdict::Enqueued, 1));
            } else {
                assert_eq!((v, q.red.count), (Verdict::Dropped(DropCause::Red), 0));
            }
        }
    }

    #[test]
    fn red_marks_ect_packets_instead_of_dropping() {
        let mut q = red_at(red(false, true), 12.0);
        let mut rng = stream_rng(5, "red");
        let (mut marks, mut drops) = (0, 0);
        for i in 0..10_000 {
            match q.enqueue(0, PktId(i), 1000, true, &mut rng) {
                Verdict::Marked => marks += 1,
                Verdict::Dropped(_) => drops += 1,
                Verdict::Enqueued | Verdict::Displaced(_) => {}
            }
            q.dequeue(0);
        }
        assert!(marks > 300 && drops == 0, "marks {marks} drops {drops}");
    }

    /// Offer 10 000 ECN-capable packets to `q`, held at two waiting (what
    /// joins leaves again): (marks, drops).
    fn marks_and_drops(mut q: Queue) -> (u32, u32) {
        let mut rng = stream_rng(5, "red");
        let (mut marks, mut drops) = (0, 0);
        for i in 0..10_000 {
            match q.enqueue(0, PktId(i), 1000, true, &mut rng) {
                Verdict::Marked => marks += 1,
                Verdict::Dropped(_) => {
                    drops += 1;
                    continue;
                }
                Verdict::Enqueued | Verdict::Displaced(_) => {}
            }
            q.dequeue(0);
        }
        (marks, drops)
    }

    /// ns-2.35's mark_p_: at p_b = max_p (0.5) x (12 - 5) / 10 = 0.35, an
    /// early drop of an ECN-capable packet is a mark only below mark_p.
    #[test]
    fn red_marks_only_below_mark_p() {
        let count =
            |mark_p: Option<f64>| marks_and_drops(red_at(RedParams { max_p: 0.5, mark_p, ..red(false, true) }, 12.0));
        let (rfc, ns2_low, ns2_high) = (count(None), count(Some(0.1)), count(Some(0.4)));
        assert!(rfc.0 > 1000 && rfc.1 == 0, "RFC 3168: marks below max_th {rfc:?}");
        assert!(ns2_low.0 == 0 && ns2_low.1 == rfc.0, "p_b 0.35 >= mark_p 0.1: drops {ns2_low:?}");
        assert_eq!(ns2_high, rfc, "p_b 0.35 < mark_p 0.4: marks");
    }

    /// ns-2's bytes_ true with queue_in_bytes_ false (`byte_mode` without
    /// `queue_in_bytes`): the average in packets, the spacing counting the
    /// bytes since the last drop in whole mean_pktsizes (1500-byte packets
    /// of mean 500: three per arrival), the size scaling after it; each
    /// arrival takes one number of ns-2's generator and is dropped when
    /// u <= p_a so computed.
    #[test]
    fn red_bytes_without_queue_in_bytes_is_ns2s_modify_p() {
        let p = RedParams {
            byte_mode: true,
            queue_in_bytes: false,
            mean_pktsize: 500,
            ns2_generator: Some(0),
            ..red(false, false)
        };
        let mut q = red_at(p, 10.0);
        q.red.above = true;
        q.red.count = 0;
        q.red.count_bytes = 0;
        let mut rng = stream_rng(5, "red");
        let mut reference = crate::engine::Ns2Rng::skipping(0);
        let mut bytes = 0i64;
        let mut drops = 0;
        for i in 0..2000 {
            bytes += 1500;
            // p_b 0.05 at an average of 10 packets.
            let spaced = red_spaced(0.05, bytes / 500, true);
            let pa = if spaced < 1.0 { (spaced * 3.0).min(1.0) } else { spaced };
            let expect = reference.uniform() <= pa;
            let got = matches!(q.enqueue(0, PktId(i), 1500, false, &mut rng), Verdict::Dropped(_));
            assert_eq!(got, expect, "arrival {i}");
            if got {
                bytes = 0;
                drops += 1;
            } else {
                q.dequeue(0);
            }
            assert!((q.red.avg - 10.0).abs() < 1e-6, "the average stays in packets");
        }
        assert!(drops > 100, "{drops}");
    }

    /// ns-2.35's use_mark_p_ false (`mark_every_hit`): with gentle RED
    /// between max_th and 2 max_th (p_b 0.55 at an average of 22.5 with
    /// max_p 0.1) every early hit on an ECN-capable packet is a mark,
    /// where RFC 3168's rule (mark only below max_th) drops; past 2
    /// max_th every arrival is a forced drop without a number, even the
    /// first after the queue held at most one packet, which the crossing
    /// rule would spare.
    #[test]
    fn red_without_use_mark_p_marks_every_early_hit() {
        let count = |every: bool| marks_and_drops(red_at(RedParams { mark_every_hit: every, ..red(true, true) }, 22.5));
        let (every, rfc) = (count(true), count(false));
        assert!(every.0 > 1000 && every.1 == 0, "use_mark_p_ false: marks {every:?}");
        assert!(rfc.0 == 0 && rfc.1 == every.0, "RFC 3168: drops past max_th {rfc:?}");
        // Past 2 max_th, the first arrival after the average crossed min_th
        // (`above` false): a forced drop, no number drawn.
        let p = RedParams { mark_every_hit: true, ns2_generator: Some(0), ..red(true, true) };
        let mut q = red_at(p, 31.0);
        q.red.above = false;
        let mut rng = stream_rng(5, "red");
        assert_eq!(q.enqueue(0, PktId(1), 1000, true, &mut rng), Verdict::Dropped(DropCause::Red));
        assert!(q.red.ns2.is_none() && !q.red.above, "no number drawn, the crossing untouched");
        // Without it the crossing rule spares that arrival.
        let mut q = red_at(RedParams { ns2_generator: Some(0), ..red(true, true) }, 31.0);
        q.red.above = false;
        assert_eq!(q.enqueue(0, PktId(1), 1000, true, &mut rng), Verdict::Enqueued);
    }

    /// `ns2_generator`: the decisions are ns-2's drop_early() on ns-2's
    /// numbers. Held at p_b 0.05 (no wait_ law, so p_a = p_b / (1 - count
    /// p_b)), every arrival takes the next number of the generator after
    /// the skipped ones, and is dropped exactly when u <= p_a; the link's
    /// own stream is not touched.
    #[test]
    fn red_on_ns2s_generator_follows_its_numbers() {
        let p = RedParams { wait: false, ns2_generator: Some(4), ..red(false, false) };
        let mut q = red_at(p, 10.0);
        // Past the first crossing, as after any earlier arrival above min_th.
        q.red.above = true;
        let mut rng = stream_rng(5, "red");
        let untouched = stream_rng(5, "red").next_u64();
        let mut reference = crate::engine::Ns2Rng::skipping(4);
        let mut count = 0i64;
        let mut drops = 0;
        for i in 0..2000 {
            count += 1;
            let pa = red_spaced(0.05, count, false);
            let expect = reference.uniform() <= pa;
            let got = matches!(q.enqueue(0, PktId(i), 1000, false, &mut rng), Verdict::Dropped(_));
            assert_eq!(got, expect, "arrival {i}");
            if got {
                count = 0;
                drops += 1;
            } else {
                q.dequeue(0);
            }
        }
        assert!(drops > 50, "{drops}");
        assert_eq!(rng.next_u64(), untouched, "the link's own stream is not drawn from");
        // Without use_mark_p_ an average past max_th is a forced drop that
        // takes no number: the next test gets the next one.
        let mut q = red_at(RedParams { ns2_generator: Some(0), ..red(false, false) }, 20.0);
        q.red.above = true;
        assert_eq!(q.enqueue(0, PktId(1), 1000, false, &mut rng), Verdict::Dropped(DropCause::Red));
        assert!(q.red.ns2.is_none(), "no number drawn");
    }

    /// Two RED queues on ns-2's one generator take its numbers in the
    /// order they test: what one draws, the other does not see again.
    #[test]
    fn red_queues_share_ns2s_one_generator() {
        let p = RedParams { wait: false, ns2_generator: Some(0), ..red(false, false) };
        let (mut a, mut b) = (red_at(p.clone(), 10.0), red_at(p, 10.0));
        let g = Arc::new(Mutex::new(crate::engine::Ns2Rng::skipping(0)));
        a.share_ns2_generator(g.clone());
        b.share_ns2_generator(g.clone());
        a.red.above = true;
        b.red.above = true;
        let mut rng = stream_rng(5, "red");
        let mut reference = crate::engine::Ns2Rng::skipping(0);
        let (mut ca, mut cb) = (0i64, 0i64);
        for i in 0..400u32 {
            let (q, count) = if i % 3 == 0 { (&mut a, &mut ca) } else { (&mut b, &mut cb) };
            *count += 1;
            let expect = reference.uniform() <= red_spaced(0.05, *count, false);
            let got = matches!(q.enqueue(0, PktId(i), 1000, false, &mut rng), Verdict::Dropped(_));
            assert_eq!(got, expect, "arrival {i}");
            if got {
                *count = 0;
            } else {
                q.dequeue(0);
            }
        }
        assert_eq!(*g.lock().unwrap(), reference);
    }

    #[test]
    fn dual_threshold_drops_once_then_waits() {
        let mut q = Queue::new(QueuePolicy::DualThreshold { soft: 3, hard: 6, hold: SEC }, 1_000_000);
        let mut rng = stream_rng(1, "d");
        let mut at = |q: &mut Queue, t: Time, i: u32| q.enqueue(t, PktId(i), 100, false, &mut rng);
        for i in 0..3 {
            assert_eq!(at(&mut q, 0, i), Verdict::Enqueued);
        }
        assert_eq!(at(&mut q, 0, 3), Verdict::Dropped(DropCause::Soft), "first arrival above the soft limit");
        assert_eq!(at(&mut q, MS, 4), Verdict::Enqueued, "hold time: accept");
        assert_eq!(at(&mut q, MS, 5), Verdict::Enqueued);
        assert_eq!(at(&mut q, MS, 6), Verdict::Enqueued);
        assert_eq!(at(&mut q, MS, 7), Verdict::Dropped(DropCause::Overflow), "hard limit");
        // After the hold time, the queue (5) has not shrunk below its length
        // at the last drop (3): drop one more.
        q.dequeue(2 * SEC);
        assert_eq!(at(&mut q, 2 * SEC, 8), Verdict::Dropped(DropCause::Soft));
        // Shrunk below the length at the last drop (5): no soft drop.
        for _ in 0..2 {
            q.dequeue(2 * SEC);
        }
        assert_eq!(at(&mut q, 4 * SEC, 9), Verdict::Enqueued);
    }

    /// A forced drop (the queue full) takes the arrival (`Tail`), the
    /// packet behind the head (`Front`: ns-2's min(1, length - 1)) or one
    /// drawn among all (`Random`: ns-2's Random::integer(length) from its
    /// generator, the next integer modulo the length); early drops always
    /// take the arrival.
    #[test]
    fn red_forced_drop_victims() {
        let full = |victim, generator| {
            let p = RedParams {
                limit: 4,
                min_th: 100.0,
                max_th: 200.0,
                victim,
                ns2_generator: generator,
                ..red(true, false)
            };
            let mut q = Queue::new(QueuePolicy::Red(p), 1_000_000);
            let mut rng = stream_rng(3, "red");
            for i in 0..4 {
                assert_eq!(q.enqueue(0, PktId(i), 1000, false, &mut rng), Verdict::Enqueued);
            }
            (q.enqueue(0, PktId(9), 1000, false, &mut rng), q)
        };
        let (v, q) = full(RedVictim::Tail, None);
        assert_eq!(v, Verdict::Dropped(DropCause::Overflow));
        assert_eq!(q.len(), 4);
        let (v, mut q) = full(RedVictim::Front, None);
        assert_eq!(v, Verdict::Displaced(DropCause::Overflow));
        assert_eq!(q.pop_displaced(), Some(PktId(1)));
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(0)).collect();
        assert_eq!(order, [PktId(0), PktId(2), PktId(3), PktId(9)]);
        // ns-2's generator from its start: first number 0.0003395769746692744,
        // (long)(u x (2^31 - 1)) = 729236, 729236 % 5 = 1 (`ns` itself:
        // `[new RNG]`, seed 1, next-random 729236, integer 29 -> 2).
        let (v, mut q) = full(RedVictim::Random, Some(0));
        assert_eq!(v, Verdict::Displaced(DropCause::Overflow));
        assert_eq!(q.pop_displaced(), Some(PktId(1)));
        assert_eq!(q.bytes(), 4000);
    }
}
