//! DSDV (Perkins & Bhagwat 1994), with ns-2.35's timing: every node
//! broadcasts its whole table (a full dump) every periodic interval (15 s,
//! drawn in [0.75, 1] of it as ns-2 does), and a triggered incremental update
//! with the changed entries when its table changes. Each destination
//! stamps its own entry with an even sequence number it raises by 2 at
//! each dump; a broken route is advertised with the next odd number and an
//! infinite metric, which newer news from the destination overrides.
//! Routes with a newer sequence number are taken at once; a better metric
//! under the same sequence number too, but its advertisement waits for the
//! destination's settling time (a weighted average of how long the best
//! route took to arrive after the first one of a sequence number, one
//! sample per number), so that the first, often longer, route of a round
//! is not flooded. Broken news no newer than a finite route we have is
//! answered with that route at once.
//!
//! Link breakage: a neighbour not heard for `min_update_periods` periodic
//! intervals is gone; with `use_mac_failures` (default on) a MAC retry-limit
//! failure breaks the link at once. ns-2.35 ignores MAC failures by default
//! (use_mac_ 0) and then keeps sending into a broken link until the
//! neighbour times out; here it is a parameter, on by default (the choice
//! documented in docs/models.md).
//!
//! DSDV has no route discovery: packets to a destination without a route
//! wait in the route buffer (64 packets, 30 s) until one is advertised.
//!
//! `ns2_advertising` switches to ns-2.35's rule instead (dsdv.cc,
//! `processUpdate` and `makeUpdate`): every route taken with a finite
//! metric, new, better or only with a newer sequence number, may be
//! advertised only 2 x settling time later (`advertise_ok_at`), and until
//! then it is left out of full dumps too; the settling time is updated at
//! every new sequence number; no triggered update is sent for a newer
//! number alone; triggered updates are at least 1 s after the last update
//! (a full dump too) and become a full dump when more than a third of the
//! table changed; a broken route to a destination never reached is kept,
//! and so is an entry made for a packet held without a route. On a chain
//! this holds a route back for minutes (docs/validation.md, "ns-2's DSDV:
//! why the first route takes a minute"), so it is off by default.

use super::{Cells, Route, Routing, RoutingAction, RoutingIo, RoutingStats};
use crate::engine::time::{MS, SEC};
use crate::engine::{Rng, Time};
use crate::net::device::DevId;
use crate::packet::{NodeId, Packet, PktId, Transport, BROADCAST};
use std::any::Any;
use std::collections::{BTreeMap, VecDeque};

/// `ControlHeader::proto` of DSDV messages.
pub const PROTO_DSDV: u16 = 0xd5d7;

pub mod kind {
    pub const FULL: u16 = 1;
    pub const INCREMENTAL: u16 = 2;
}
const KIND_NAMES: &[&str] = &["dsdv_full", "dsdv_incremental"];

/// Message header (type, count) and bytes per advertised route
/// (destination, metric, sequence number; 4 bytes each).
const HEAD_LEN: u32 = 4;
const ENTRY_LEN: u32 = 12;
/// The infinite metric.
pub const INFINITY: u8 = 250;
/// ns-2's DSDV_MIN_TUP_PERIOD: triggered updates at least this far apart
/// (and from the last full dump), with `ns2_advertising`.
const MIN_TRIGGERED_GAP: Time = SEC;
/// ns-2's "check back next week": an entry made for a held packet is not
/// advertised before this (with `ns2_advertising`).
const NS2_NOT_YET: Time = 604_800 * SEC;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsdvParams {
    pub periodic_update_interval: Time,
    /// Periodic intervals without news from a neighbour before its link
    /// counts as broken (ns-2: 3).
    pub min_update_periods: u32,
    /// Take a MAC retry-limit failure as a broken link (ns-2.35: off).
    pub use_mac_failures: bool,
    /// Settling time before anything is measured (ns-2's wst0_: 6 s) and the
    /// weight of the past in its running average (alpha_: 0.875).
    pub initial_settling_time: Time,
    pub settling_alpha: f64,
    pub buffer_len: usize,
    pub buffer_timeout: Time,
    /// Triggered updates wait a uniform delay in [0, jitter).
    pub jitter: Time,
    /// The first full dump at a uniform time in [0, startup_jitter) (ns-2's
    /// DSDV_STARTUP_JITTER: 2 s).
    pub startup_jitter: Time,
    /// ns-2.35's advertising rule (module text); off by default.
    pub ns2_advertising: bool,
    /// ns-2.35's size accounting: the TCP packets this node originates
    /// carry 20 more bytes (`ns2_extra_ip_header`); off by default.
    pub ns2_ip_header: bool,
    /// ns-2.35's queue for packets without a route (dsdv.cc `forwardPacket`,
    /// MAX_QUEUE_LENGTH): at most `NS2_QUEUE_PER_DESTINATION` (5) held per
    /// destination, the oldest of them dropped when a sixth comes, none
    /// timed out and no limit on the whole, instead of `buffer_len` and
    /// `buffer_timeout`; off by default.
    pub ns2_queue: bool,
    /// Wired-cum-wireless (a station in a base station's cell): ns-2.35's
    /// rule for a packet bound outside the cell (dsdv.cc `forwardPacket`):
    /// straight to its destination if the table has a route, else to the
    /// base station, dropped (not held) if that has none either. Off: such
    /// a packet always goes through the base station, as an IP host sends
    /// off-subnet traffic to its gateway, and waits in the buffer while
    /// the route to it is missing.
    pub ns2_gateway: bool,
}

/// ns-2.35's MAX_QUEUE_LENGTH: packets held per destination (`ns2_queue`).
pub const NS2_QUEUE_PER_DESTINATION: usize = 5;

impl Default for DsdvParams {
    fn default() -> Self {
        DsdvParams {
            periodic_update_interval: 15 * SEC,
            min_update_periods: 3,
            use_mac_failures: true,
            initial_settling_time: 6 * SEC,
            settling_alpha: 0.875,
            buffer_len: 64,
            buffer_timeout: 30 * SEC,
            jitter: 10 * MS,
            startup_jitter: 2 * SEC,
            ns2_advertising: false,
            ns2_ip_header: false,
            ns2_queue: false,
            ns2_gateway: false,
        }
    }
}

/// One advertised route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Advert {
    pub dst: NodeId,
    pub metric: u8,
    pub seq: u32,
}

#[derive(Clone, Debug)]
pub struct Update {
    pub routes: Vec<Advert>,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    next_hop: NodeId,
    metric: u8,
    seq: u32,
    /// Changed since the last advertisement, and may be advertised from
    /// this time on (settling).
    pending: Option<Time>,
    /// When the first route of the current sequence number arrived.
    seq_heard: Time,
    /// When the best finite route of the current sequence number arrived
    /// (None: it has had none), for the settling time's next sample.
    best_at: Option<Time>,
    /// Weighted settling time of this destination.
    settle: Time,
    /// With `ns2_advertising`: no update, not even a full dump, carries
    /// this route before this time (ns-2's advertise_ok_at); when it last
    /// changed (changed_at); the metric last advertised.
    ok_at: Time,
    changed_at: Time,
    advertised_metric: u8,
    /// With `ns2_advertising`: a triggered update is due for this entry at
    /// this time (ns-2's per-entry trigger_event).
    trigger: Option<Time>,
    /// With `ns2_advertising`: ns-2's advert_seqnum and advert_metric. An
    /// update clears the first; only a full dump clears the second, so a
    /// route whose metric changed goes into every triggered update until
    /// the next full dump, and counts towards turning one into a full
    /// dump (dsdv.cc `makeUpdate`). `pending` is set while either is.
    adv_seq: bool,
    adv_metric: bool,
}

pub struct Dsdv {
    me: NodeId,
    dev: DevId,
    p: DsdvParams,
    seq: u32,
    table: BTreeMap<NodeId, Entry>,
    /// Neighbours and when each was last heard.
    heard: BTreeMap<NodeId, Time>,
    next_full: Option<Time>,
    next_incremental: Option<Time>,
    /// The last update sent (ns-2's lasttup_), for `MIN_TRIGGERED_GAP`.
    last_update: Option<Time>,
    buffer: VecDeque<(PktId, NodeId, Time)>,
    rng: Rng,
    /// Wired-cum-wireless: this station's cell (`Cells`), if it has one.
    cell: Option<Cells>,
    /// Our sequence number moved on (we were advertised broken) and the
    /// next triggered update must carry it, even with no other news.
    own_news: bool,
    pub stats: RoutingStats,
}

fn newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// The settling time after one more sample `took` (how long a sequence
/// number's best route came after its first), `alpha` the weight of the past.
fn settled(alpha: f64, settle: Time, took: Time) -> Time {
    (alpha * settle as f64 + (1.0 - alpha) * took as f64) as Time
}

impl Dsdv {
    pub fn new(me: NodeId, dev: DevId, p: DsdvParams, rng: Rng) -> Self {
        Dsdv {
            me,
            dev,
            p,
            seq: 0,
            table: BTreeMap::new(),
            heard: BTreeMap::new(),
            next_full: None,
            next_incremental: None,
            last_update: None,
            buffer: VecDeque::new(),
            rng,
            cell: None,
            own_news: false,
            stats: RoutingStats::new(KIND_NAMES),
        }
    }

    /// A station in a base station's cell (wired-cum-wireless).
    pub fn in_cell(mut self, cells: Cells) -> Self {
        self.cell = Some(cells);
        self
    }

    /// The node a packet from `src` for `dst` is routed towards: `dst`
    /// itself without cells, else `Cells::target`; with `ns2_gateway`,
    /// `dst` itself when the table has a route to it.
    fn towards(&self, src: NodeId, dst: NodeId) -> NodeId {
        match &self.cell {
            // ns-2.35's rule (dsdv.cc forwardPacket), at a source and a
            // relay alike: straight over the air when DSDV knows the way,
            // else to this station's own base station.
            Some(c) if self.p.ns2_gateway => {
                if c.holds(dst) || self.next_hop(dst).is_some() {
                    dst
                } else {
                    c.mine
                }
            }
            Some(c) => c.target(self.me, src, dst, |n| self.next_hop(n).is_some()),
            None => dst,
        }
    }

    /// Routes with a finite metric: (destination, next hop, hops).
    pub fn routes(&self) -> Vec<(NodeId, NodeId, u8)> {
        self.table.iter().filter(|(_, e)| e.metric < INFINITY).map(|(&d, e)| (d, e.next_hop, e.metric)).collect()
    }

    /// The table's entry for `dst`, an infinite (broken) one included:
    /// (next hop, metric, sequence number). Read-only, for tests.
    pub fn entry(&self, dst: NodeId) -> Option<(NodeId, u8, u32)> {
        self.table.get(&dst).map(|e| (e.next_hop, e.metric, e.seq))
    }

    /// This node's own sequence number (even; raised by 2 at each full dump).
    pub fn own_seq(&self) -> u32 {
        self.seq
    }

    fn next_hop(&self, dst: NodeId) -> Option<NodeId> {
        self.table.get(&dst).filter(|e| e.metric < INFINITY).map(|e| e.next_hop)
    }

    fn period(&mut self) -> Time {
        let f = 0.75 + 0.25 * self.rng.uniform();
        (self.p.periodic_update_interval as f64 * f) as Time
    }

    fn send_update(&mut self, now: Time, kind: u16, routes: Vec<Advert>, io: &mut RoutingIo) {
        let len = HEAD_LEN + ENTRY_LEN * routes.len() as u32;
        let body = Box::new(Update { routes });
        let pkt = self.stats.message(io.pool, now, (self.me, BROADCAST), (PROTO_DSDV, kind), len, 1, body);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: None });
    }

    fn own(&self) -> Advert {
        Advert { dst: self.me, metric: 0, seq: self.seq }
    }

    /// The full table, our own entry first; every pending change is sent.
    /// With `ns2_advertising` the routes not yet to be advertised stay out
    /// and their triggered updates stay due.
    fn full_dump(&mut self, now: Time, io: &mut RoutingIo) {
        self.seq += 2;
        let gated = self.p.ns2_advertising;
        self.own_news = false;
        let mut routes = vec![self.own()];
        for (&dst, e) in self.table.iter_mut() {
            if gated && e.ok_at > now {
                continue;
            }
            routes.push(Advert { dst, metric: e.metric, seq: e.seq });
            e.pending = None;
            e.advertised_metric = e.metric;
            e.adv_seq = false;
            e.adv_metric = false;
        }
        if !gated {
            self.next_incremental = None;
        }
        self.last_update = Some(now);
        self.send_update(now, kind::FULL, routes, io);
    }

    /// The entries whose changes have settled.
    fn incremental(&mut self, now: Time, io: &mut RoutingIo) {
        let mut routes = vec![self.own()];
        for (&dst, e) in self.table.iter_mut() {
            if e.pending.is_some_and(|t| t <= now) {
                routes.push(Advert { dst, metric: e.metric, seq: e.seq });
                e.pending = None;
            }
        }
        // Our own new number alone is news: the stations that took us
        // for unreachable wait for it (else until our next full dump).
        if routes.len() > 1 || self.own_news {
            self.own_news = false;
            self.send_update(now, kind::INCREMENTAL, routes, io);
        }
    }

    /// Schedule a triggered update for a change that may go out at `at`.
    fn trigger(&mut self, at: Time) {
        let j = (self.rng.uniform() * self.p.jitter as f64) as Time;
        let t = at + j;
        self.next_incremental = Some(self.next_incremental.map_or(t, |x| x.min(t)));
    }

    fn break_link(&mut self, now: Time, nb: NodeId) {
        self.heard.remove(&nb);
        let mut any = false;
        for e in self.table.values_mut() {
            if e.next_hop == nb && e.metric < INFINITY {
                e.metric = INFINITY;
                e.seq = e.seq.wrapping_add(1); // odd: broken, as only we know
                e.pending = Some(now);
                e.ok_at = now;
                e.trigger = Some(now);
                (e.adv_seq, e.adv_metric) = (true, true);
                any = true;
            }
        }
        if any {
            if self.p.ns2_advertising {
                self.schedule_ns2_trigger();
            } else {
                self.trigger(now);
            }
        }
    }

    fn on_update(&mut self, now: Time, from: NodeId, up: &Update) {
        self.heard.insert(from, now);
        let mut earliest: Option<Time> = None;
        for a in &up.routes {
            if a.dst == self.me {
                // Someone advertises us broken with a newer number: answer
                // with a newer even number of our own in the next update;
                // with an older one (it missed that answer), with the one
                // we have, as for any route newer than broken news.
                if newer(a.seq, self.seq) {
                    self.seq = (a.seq + 1) & !1;
                }
                if a.metric >= INFINITY {
                    self.own_news = true;
                    earliest = Some(now);
                }
                continue;
            }
            let metric = if a.metric >= INFINITY { INFINITY } else { a.metric + 1 };
            if metric >= INFINITY && !self.table.contains_key(&a.dst) {
                continue; // a broken route to somewhere we never reached
            }
            let settle0 = self.p.initial_settling_time;
            let e = self.table.entry(a.dst).or_insert(Entry {
                next_hop: from,
                metric: INFINITY,
                seq: a.seq.wrapping_sub(2),
                pending: None,
                seq_heard: now,
                best_at: None,
                settle: settle0,
                ok_at: now,
                changed_at: now,
                advertised_metric: INFINITY,
                trigger: None,
                adv_seq: false,
                adv_metric: false,
            });
            let fresher = newer(a.seq, e.seq);
            let better = a.seq == e.seq && metric < e.metric;
            // The current next hop's own news about a route it carries.
            let from_next = a.seq == e.seq && e.next_hop == from && metric != e.metric;
            if !(fresher || better || from_next) {
                // Broken news no newer than our finite route: tell the
                // neighbour at once (Perkins & Bhagwat 1994, "Responding to
                // topology changes"), not at our next full dump.
                if metric >= INFINITY && e.metric < INFINITY {
                    e.pending = Some(now);
                    earliest = Some(now);
                }
                continue;
            }
            if fresher {
                // The old number's round is over: how long its best route
                // took after its first is one sample of the settling time
                // (a round without a finite route gives none).
                if let Some(best) = e.best_at {
                    e.settle = settled(self.p.settling_alpha, e.settle, best.saturating_sub(e.seq_heard));
                }
                e.seq_heard = now;
                e.best_at = None;
            }
            if metric < INFINITY && (fresher || better) {
                e.best_at = Some(now);
            }
            let was = e.metric;
            e.seq = a.seq;
            e.metric = metric;
            e.next_hop = from;
            // A broken route or a newly reachable destination goes out at
            // once; a changed metric after the settling time.
            let at = if metric >= INFINITY || was >= INFINITY {
                now
            } else if metric != was {
                now + 2 * e.settle
            } else {
                continue;
            };
            e.pending = Some(e.pending.map_or(at, |x| x.min(at)));
            earliest = Some(earliest.map_or(at, |x| x.min(at)));
        }
        if let Some(at) = earliest {
            self.trigger(at);
        }
    }

    /// `on_update` under ns-2.35's rule (`processUpdate` in its dsdv.cc).
    fn on_update_ns2(&mut self, now: Time, from: NodeId, up: &Update) {
        self.heard.insert(from, now);
        let (alpha, wst0) = (self.p.settling_alpha, self.p.initial_settling_time);
        for a in &up.routes {
            if a.dst == self.me {
                // Advertised broken: a full dump at once (ns-2 reschedules
                // its periodic update to now), with a newer number.
                if a.metric >= INFINITY {
                    self.seq = self.seq.max((a.seq + 1) & !1);
                    self.next_full = Some(now);
                }
                continue;
            }
            let metric = if a.metric >= INFINITY { INFINITY } else { a.metric + 1 };
            // (a broken route to somewhere we never reached is kept too,
            // as ns-2 keeps it: older news of that destination is stale,
            // and full dumps carry it)
            let old = self.table.get(&a.dst).copied();
            // The settling time: kept under the same number, averaged at a
            // new one with how long the last number's best route took.
            let (settle, seq_heard) = match old {
                Some(e) if e.seq == a.seq => (e.settle, e.seq_heard),
                Some(e) => (settled(alpha, e.settle, e.changed_at.saturating_sub(e.seq_heard)), now),
                None => (wst0, now),
            };
            let finite_before = old.is_none_or(|e| e.metric < INFINITY);
            let ok_at = if metric < INFINITY && finite_before { now + 2 * settle } else { now };
            // (take it with ns-2's advert_seqnum and advert_metric, trigger
            // an update for it)
            let (adv_seq, adv_metric, trigger) = match old {
                None => (false, metric < INFINITY, metric < INFINITY),
                Some(e) if e.seq == a.seq && metric < e.metric => {
                    let changed = metric != e.advertised_metric;
                    (e.adv_seq, changed, changed)
                }
                Some(e) if newer(a.seq, e.seq) => (true, metric != e.advertised_metric, false),
                Some(e) => {
                    // Older news of a route we have broken: tell them now.
                    if metric >= INFINITY && e.metric < INFINITY && newer(e.seq, a.seq) {
                        let e = self.table.get_mut(&a.dst).expect("a route");
                        e.ok_at = now;
                        e.pending = Some(now);
                        e.trigger = Some(now);
                        e.adv_metric = true;
                        self.schedule_ns2_trigger();
                    }
                    continue;
                }
            };
            let e = Entry {
                next_hop: from,
                metric,
                seq: a.seq,
                pending: (adv_seq || adv_metric).then_some(ok_at),
                seq_heard,
                best_at: None,
                settle,
                ok_at,
                changed_at: now,
                advertised_metric: old.map_or(0, |e| e.advertised_metric),
                trigger: if trigger { Some(ok_at) } else { old.and_then(|e| e.trigger) },
                adv_seq,
                adv_metric,
            };
            self.table.insert(a.dst, e);
            if trigger {
                self.schedule_ns2_trigger();
            }
        }
    }

    /// The next triggered update under ns-2.35's rule: at the earliest
    /// entry's trigger, not within `MIN_TRIGGERED_GAP` of the last update.
    fn schedule_ns2_trigger(&mut self) {
        self.next_incremental = None;
        let Some(t) = self.table.values().filter_map(|e| e.trigger).min() else { return };
        let t = self.last_update.map_or(t, |l| t.max(l + MIN_TRIGGERED_GAP));
        self.trigger(t);
    }

    /// A triggered update under ns-2.35's rule (`makeUpdate`): the entries
    /// to advertise whose time has come, or a full dump when they are more
    /// than a third of the table (and more than three).
    fn incremental_ns2(&mut self, now: Time, io: &mut RoutingIo) {
        // ns-2 checks the gap when the trigger fires, not only when it is
        // set: a full dump since then pushes it on (`DSDVTriggerHandler`).
        if self.last_update.is_some_and(|l| now < l + MIN_TRIGGERED_GAP) {
            return self.schedule_ns2_trigger();
        }
        for e in self.table.values_mut() {
            if e.trigger.is_some_and(|t| t <= now) {
                e.trigger = None;
            }
        }
        let due = self.table.values().filter(|e| e.pending.is_some() && e.ok_at <= now).count();
        if due * 3 > self.table.len() + 1 && due > 3 {
            self.full_dump(now, io);
            self.next_full = Some(now + self.period());
        } else if due > 0 {
            let mut routes = Vec::with_capacity(due);
            for (&dst, e) in self.table.iter_mut() {
                if e.pending.is_some() && e.ok_at <= now {
                    routes.push(Advert { dst, metric: e.metric, seq: e.seq });
                    // ns-2 (`makeUpdate`): a triggered update clears
                    // advert_seqnum only; advert_metric waits for a full dump.
                    e.adv_seq = false;
                    if !e.adv_metric {
                        e.pending = None;
                    }
                    e.advertised_metric = e.metric;
                }
            }
            self.last_update = Some(now);
            self.send_update(now, kind::INCREMENTAL, routes, io);
        }
        self.schedule_ns2_trigger();
    }

    /// ns-2.35 (`forwardPacket`) queues a packet without a route on its
    /// destination's table entry and makes one if there is none: infinite,
    /// number 0, not advertised for a week. It counts in the table's size
    /// (the one-third rule), and the first route to it replaces a broken
    /// one, so it may be advertised at once, not 2 x the settling time on.
    fn ns2_held_entry(&mut self, now: Time, dst: NodeId) {
        let settle = self.p.initial_settling_time;
        self.table.entry(dst).or_insert(Entry {
            next_hop: dst,
            metric: INFINITY,
            seq: 0,
            pending: None,
            seq_heard: now,
            best_at: None,
            settle,
            ok_at: now + NS2_NOT_YET,
            changed_at: now,
            advertised_metric: 0,
            trigger: None,
            adv_seq: false,
            adv_metric: false,
        });
    }

    fn release(&mut self, io: &mut RoutingIo) {
        let mut kept = VecDeque::with_capacity(self.buffer.len());
        for (pkt, dst, since) in std::mem::take(&mut self.buffer) {
            match self.next_hop(dst) {
                Some(nh) => io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(nh) }),
                None => kept.push_back((pkt, dst, since)),
            }
        }
        self.buffer = kept;
    }

    fn neighbour_life(&self) -> Time {
        self.p.periodic_update_interval * self.p.min_update_periods as Time
    }

    /// A message of this protocol delivered here.
    fn handle(&mut self, now: Time, p: &Packet, io: &mut RoutingIo) {
        let Transport::Control(c) = p.l4 else { return };
        if c.proto != PROTO_DSDV {
            return;
        }
        if let Some(up) = c.blob.and_then(|b| io.pool.blob::<Update>(b)).cloned() {
            if self.p.ns2_advertising {
                self.on_update_ns2(now, p.ip.src, &up);
            } else {
                self.on_update(now, p.ip.src, &up);
            }
            self.release(io);
        }
    }
}

impl Routing for Dsdv {
    fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        let p = io.pool.get_mut(id);
        let dst = self.towards(p.ip.src, p.ip.dst);
        // Once, at the source (a packet held for a route comes back here).
        if self.p.ns2_ip_header && p.ip.src == self.me && p.ip.options_len == 0 {
            let extra = super::ns2_extra_ip_header(p);
            p.ip.options_len = extra;
            p.size += extra as u32;
        }
        if let Some(next_hop) = self.next_hop(dst) {
            return Route::Forward { dev: self.dev, next_hop };
        }
        if self.p.ns2_gateway && self.cell.as_ref().is_some_and(|c| dst == c.mine && !c.holds(p.ip.dst)) {
            // ns-2.35: "Route to base_stn not known: dropping pkt".
            self.stats.drops_no_route += 1;
            return Route::Drop;
        }
        if self.p.ns2_advertising {
            self.ns2_held_entry(now, dst);
        }
        if !self.p.ns2_queue {
            super::hold_packet(&mut self.buffer, self.p.buffer_len, id, dst, now, &mut self.stats, io.out);
            return Route::Hold;
        }
        // ns-2: a queue per destination; the sixth pushes out the first.
        if self.buffer.iter().filter(|b| b.1 == dst).count() >= NS2_QUEUE_PER_DESTINATION {
            let i = self.buffer.iter().position(|b| b.1 == dst).expect("a packet held for dst");
            let (old, _, _) = self.buffer.remove(i).expect("a held packet");
            self.stats.drops_buffer_full += 1;
            io.out.push(RoutingAction::DropHeld(old));
        }
        self.buffer.push_back((id, dst, now));
        Route::Hold
    }

    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.next_hop(self.towards(self.me, dst)).map(|n| (self.dev, n))
    }

    fn on_control(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        // Read the message before letting the packet go: the last holder's
        // release frees its body.
        let p = *io.pool.get(pkt);
        self.handle(now, &p, io);
        io.pool.release(pkt);
    }

    fn on_link_failure(&mut self, now: Time, _dev: DevId, neighbor: NodeId, _io: &mut RoutingIo) {
        if self.p.use_mac_failures {
            self.break_link(now, neighbor);
        }
    }

    fn deadline(&self) -> Option<Time> {
        let mut d = Some(self.next_full.unwrap_or(0));
        let mut at = |t: Time| d = Some(d.map_or(t, |x: Time| x.min(t)));
        if let Some(t) = self.next_incremental {
            at(t);
        }
        if let (Some(&(_, _, since)), false) = (self.buffer.front(), self.p.ns2_queue) {
            at(since.saturating_add(self.p.buffer_timeout));
        }
        if let Some(t) = self.heard.values().min() {
            at(t + self.neighbour_life());
        }
        d
    }

    fn on_timer(&mut self, now: Time, io: &mut RoutingIo) {
        let life = self.neighbour_life();
        let gone: Vec<NodeId> = self.heard.iter().filter(|(_, &t)| t + life <= now).map(|(&n, _)| n).collect();
        for nb in gone {
            self.break_link(now, nb);
        }
        match self.next_full {
            // The first dump at a random point of the first
            // `startup_jitter` (ns-2: 2 s), so the nodes do not all start
            // together.
            None => {
                let first = (self.rng.uniform() * self.p.startup_jitter as f64) as Time;
                self.next_full = Some(now + first);
            }
            Some(t) if t <= now => {
                self.full_dump(now, io);
                let next = now + self.period();
                self.next_full = Some(next);
            }
            _ => {}
        }
        if self.next_incremental.is_some_and(|t| t <= now) {
            if self.p.ns2_advertising {
                self.incremental_ns2(now, io);
            } else {
                self.next_incremental = None;
                self.incremental(now, io);
                // Changes still settling go out later.
                if let Some(t) = self.table.values().filter_map(|e| e.pending).min() {
                    self.trigger(t.max(now));
                }
            }
        }
        if !self.p.ns2_queue {
            super::expire_held(&mut self.buffer, now, self.p.buffer_timeout, &mut self.stats, io.out);
        }
    }

    fn stats(&self) -> Option<&RoutingStats> {
        Some(&self.stats)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{PacketPool, TcpHeader};

    /// ns-2.35's advert_metric (`ns2_advertising`, dsdv.cc `makeUpdate`):
    /// a route whose metric changed goes into every triggered update until
    /// a full dump clears it, while a newer sequence number alone goes
    /// into one. Node 0 hears neighbour 1 advertise 5 (metric 1): a new
    /// route, so metric-changed. Its first triggered update carries 5;
    /// a second, after 6 arrives, carries 6 and 5 again; one after a
    /// fresher number for 7 (taken at its old metric) carries 7 once.
    #[test]
    fn ns2_triggered_updates_repeat_changed_metrics_until_a_full_dump() {
        let p = DsdvParams { ns2_advertising: true, initial_settling_time: 0, ..DsdvParams::default() };
        let mut d = Dsdv::new(0, 0, p, crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        let sent = |d: &mut Dsdv, pool: &mut PacketPool, now: Time| -> Vec<NodeId> {
            let mut out = Vec::new();
            d.incremental_ns2(now, &mut RoutingIo { pool, out: &mut out });
            update_routes(&out, pool).unwrap_or_default().iter().map(|a| a.dst).collect()
        };
        d.on_update_ns2(SEC, 1, &advert(5, 0, 2));
        assert_eq!(sent(&mut d, &mut pool, 2 * SEC), vec![5]);
        d.on_update_ns2(3 * SEC, 1, &advert(6, 0, 2));
        assert_eq!(sent(&mut d, &mut pool, 4 * SEC), vec![5, 6], "5's changed metric goes again");
        d.on_update_ns2(5 * SEC, 1, &advert(7, 0, 2));
        d.full_dump(5 * SEC, &mut RoutingIo { pool: &mut pool, out: &mut Vec::new() });
        d.on_update_ns2(7 * SEC, 1, &advert(7, 0, 4));
        assert_eq!(sent(&mut d, &mut pool, 8 * SEC), vec![7], "a newer number at the metric last advertised");
        assert_eq!(sent(&mut d, &mut pool, 10 * SEC), Vec::<NodeId>::new(), "and only once");
    }

    /// A station advertised broken by a neighbour (its number + 1, odd)
    /// answers at its next triggered update with a newer even number of
    /// its own, even when nothing else changed: the stations that took it
    /// for unreachable get it back then, not at its next full dump up to
    /// 15 s later (Perkins & Bhagwat 1994, 4.1). Found on the wifi-bs
    /// study: every station of a cell lost its base station for 11 s after
    /// one station's MAC gave up on it.
    #[test]
    fn a_station_advertised_broken_answers_with_a_newer_number_at_once() {
        let mut d = Dsdv::new(0, 0, DsdvParams::default(), crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        d.on_update(SEC, 1, &Update { routes: vec![Advert { dst: 1, metric: 0, seq: 2 }] });
        let mut out = Vec::new();
        d.incremental(SEC, &mut RoutingIo { pool: &mut pool, out: &mut out });
        (d.next_incremental, d.next_full) = (None, Some(100 * SEC));
        out.clear();
        // Neighbour 1 advertises us (node 0, number 0 so far) broken.
        d.on_update(2 * SEC, 1, &Update { routes: vec![Advert { dst: 0, metric: INFINITY, seq: 1 }] });
        let due = d.next_incremental.expect("a triggered update");
        assert!(due >= 2 * SEC && due < 2 * SEC + d.p.jitter, "{due}");
        d.on_timer(due, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let routes = update_routes(&out, &pool).unwrap_or_else(|| panic!("no update sent: {out:?}"));
        assert_eq!(routes[..], [Advert { dst: 0, metric: 0, seq: 2 }]);
    }

    /// One advertised route, as an update from a neighbour.
    fn advert(dst: NodeId, metric: u8, seq: u32) -> Update {
        Update { routes: vec![Advert { dst, metric, seq }] }
    }

    /// The routes of the update `out` holds, if it holds one broadcast
    /// update and nothing else.
    fn update_routes(out: &[RoutingAction], pool: &PacketPool) -> Option<Vec<Advert>> {
        let [RoutingAction::Send { pkt, next_hop: None, .. }] = *out else { return None };
        let Transport::Control(c) = pool.get(pkt).l4 else { unreachable!() };
        Some(pool.blob::<Update>(c.blob.unwrap()).unwrap().routes.clone())
    }

    /// The routes of the one update `d`'s timer sends at its next
    /// triggered update (none: no update due or nothing sent).
    fn triggered(d: &mut Dsdv, pool: &mut PacketPool) -> Vec<Advert> {
        let Some(due) = d.next_incremental else { return vec![] };
        let mut out = Vec::new();
        d.on_timer(due, &mut RoutingIo { pool, out: &mut out });
        update_routes(&out, pool).unwrap_or_default()
    }

    /// The settling time (Perkins & Bhagwat 1994, "Damping
    /// fluctuations"): a weighted average, per destination, of how long the
    /// best route of each sequence number took to come after the first
    /// one. One sample per number, taken when the next number ends its
    /// round, and a number whose first route was its best counts 0; until
    /// 2026-12-06 every better route was a sample of its own and a round
    /// without one none, so on a static network the settling time stayed
    /// at its initial 6 s instead of falling towards 0.
    #[test]
    fn the_settling_time_takes_one_sample_per_sequence_number() {
        let mut d = Dsdv::new(0, 0, DsdvParams::default(), crate::engine::stream_rng(1, "test"));
        // Number 2: metric 3 at 1 s, 2 at 1.5 s, 1 at 2 s, its best 1 s
        // after its first.
        d.on_update(SEC, 1, &advert(5, 2, 2));
        d.on_update(SEC + 500 * MS, 2, &advert(5, 1, 2));
        d.on_update(2 * SEC, 3, &advert(5, 0, 2));
        assert_eq!(d.table[&5].settle, 6 * SEC, "no sample before the round ends");
        // Number 4 ends number 2's round: 0.875 x 6 s + 0.125 x 1 s.
        d.on_update(16 * SEC, 3, &advert(5, 0, 4));
        assert_eq!(d.table[&5].settle, 5_375 * MS);
        // Number 6: number 4's first route was its best, a sample of 0.
        d.on_update(31 * SEC, 3, &advert(5, 0, 6));
        assert_eq!(d.table[&5].settle, 4_703_125 * crate::engine::time::US);
        // A broken route (odd, infinite) ends number 6's round (another
        // 0), and its own round, without a route, is no sample.
        d.on_update(40 * SEC, 3, &advert(5, INFINITY, 7));
        assert_eq!(d.table[&5].settle, 4_115_234_375);
        d.on_update(46 * SEC, 2, &advert(5, 1, 8));
        assert_eq!(d.table[&5].settle, 4_115_234_375, "number 7 had no route");
    }

    /// A node that hears a destination advertised broken (infinite metric)
    /// under an older number than its own finite route to it, or the same
    /// one, sends that route at once (Perkins & Bhagwat 1994, "Responding
    /// to topology changes"; ns-2.35 `processUpdate`: "educate this
    /// ignorant fellow"), else the neighbour keeps it for unreachable until
    /// a full dump, up to 15 s later.
    #[test]
    fn a_broken_route_older_than_ours_is_answered_at_once() {
        let mut d = Dsdv::new(0, 0, DsdvParams::default(), crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        d.next_full = Some(100 * SEC);
        d.on_update(SEC, 1, &advert(5, 1, 12));
        assert!(triggered(&mut d, &mut pool).contains(&Advert { dst: 5, metric: 2, seq: 12 }), "a new route");
        // Neighbour 2 had number 10 and lost it: 11, infinite.
        d.on_update(2 * SEC, 2, &advert(5, INFINITY, 11));
        assert_eq!(d.entry(5), Some((1, 2, 12)), "older news changes nothing");
        let due = d.next_incremental.expect("a triggered update");
        assert!(due < 2 * SEC + d.p.jitter, "{due}");
        assert_eq!(triggered(&mut d, &mut pool), [d.own(), Advert { dst: 5, metric: 2, seq: 12 }]);
        // Newer broken news is taken (and goes out at once too).
        d.on_update(3 * SEC, 2, &advert(5, INFINITY, 13));
        assert_eq!(d.entry(5), Some((2, INFINITY, 13)));
    }

    /// The same rule for a node's own entry: a neighbour that still
    /// advertises us broken under a number older than our current one
    /// (it missed the update that carried our newer one) hears our number
    /// in the next triggered update, not at our next full dump.
    #[test]
    fn stale_broken_news_of_ourselves_is_answered_at_once() {
        let mut d = Dsdv::new(0, 0, DsdvParams::default(), crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        d.next_full = Some(100 * SEC);
        d.seq = 4;
        d.on_update(SEC, 1, &advert(0, INFINITY, 3));
        assert_eq!(d.own_seq(), 4, "older news does not move our number");
        assert_eq!(triggered(&mut d, &mut pool), [Advert { dst: 0, metric: 0, seq: 4 }]);
    }

    /// ns-2.35 (`processUpdate`, a brand-new destination) keeps a route
    /// advertised broken even to a destination it never had: an older
    /// number for it is then stale news, ignored, and its full dumps carry
    /// the broken route on. tcplab's ns2 profile skipped such a route and
    /// so took the stale one.
    #[test]
    fn ns2_keeps_a_broken_route_to_a_new_destination() {
        let p = DsdvParams { ns2_advertising: true, ..DsdvParams::default() };
        let mut d = Dsdv::new(0, 0, p, crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        d.on_update_ns2(SEC, 1, &advert(5, INFINITY, 11));
        assert_eq!(d.entry(5), Some((1, INFINITY, 11)));
        assert_eq!(d.next_incremental, None, "no triggered update for it");
        d.on_update_ns2(2 * SEC, 2, &advert(5, 0, 10));
        assert_eq!(d.entry(5), Some((1, INFINITY, 11)), "number 10 is older");
        let mut out = Vec::new();
        d.full_dump(3 * SEC, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let routes = update_routes(&out, &pool).unwrap_or_else(|| panic!("no dump: {out:?}"));
        assert!(routes.contains(&Advert { dst: 5, metric: INFINITY, seq: 11 }), "{routes:?}");
    }

    /// ns-2.35's triggered updates keep DSDV_MIN_TUP_PERIOD (1 s) from the
    /// last update, a periodic full dump included, checked when the
    /// trigger fires (`DSDVTriggerHandler::handle` reschedules it to 1 s
    /// after the last one): a trigger set before a full dump and due
    /// within 1 s after it waits. tcplab applied the gap only when it set
    /// the trigger.
    #[test]
    fn ns2_triggered_update_waits_a_second_after_a_full_dump() {
        let p = DsdvParams { ns2_advertising: true, initial_settling_time: 250 * MS, ..DsdvParams::default() };
        let mut d = Dsdv::new(0, 0, p, crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        d.next_full = Some(100 * SEC);
        // A new destination at 10 s, to be advertised from 10.5 s.
        d.on_update_ns2(10 * SEC, 1, &advert(5, 0, 2));
        let due = d.next_incremental.expect("a trigger");
        assert!(due >= 10 * SEC + 500 * MS && due < 10 * SEC + 500 * MS + d.p.jitter, "{due}");
        // A periodic dump at 10.2 s (without 5, not yet to be advertised).
        d.full_dump(10 * SEC + 200 * MS, &mut RoutingIo { pool: &mut pool, out: &mut Vec::new() });
        let mut out = Vec::new();
        d.on_timer(due, &mut RoutingIo { pool: &mut pool, out: &mut out });
        assert!(out.is_empty(), "sent {:.3} s after the full dump", (due - 10 * SEC - 200 * MS) as f64 / 1e9);
        let again = d.next_incremental.expect("the trigger rescheduled");
        assert!(again >= 11 * SEC + 200 * MS, "{again}");
        assert_eq!(triggered(&mut d, &mut pool), [Advert { dst: 5, metric: 1, seq: 2 }]);
    }

    /// ns-2.35's `forwardPacket` queues a packet for a destination it has
    /// no entry for under a new entry (infinite metric, number 0, not to
    /// be advertised for a week). The first route to it then replaces a
    /// broken one: it may be advertised at once (in the next full dump;
    /// no triggered update for it), not 2 x the settling time later as a
    /// new destination's. tcplab's ns2 profile made no such entry.
    #[test]
    fn ns2_a_held_packet_makes_an_entry_whose_first_route_is_advertised_at_once() {
        let p = DsdvParams { ns2_advertising: true, ns2_queue: true, ..DsdvParams::default() };
        let mut d = Dsdv::new(0, 0, p, crate::engine::stream_rng(1, "test"));
        let mut pool = PacketPool::new();
        d.next_full = Some(100 * SEC);
        let id = pool.insert(Packet::new(0, 0, 5, Transport::Udp(Default::default()), 8, 512, 0));
        let mut out = Vec::new();
        assert_eq!(d.route(SEC, id, &mut RoutingIo { pool: &mut pool, out: &mut out }), Route::Hold);
        assert_eq!(d.entry(5), Some((5, INFINITY, 0)));
        d.on_update_ns2(3 * SEC, 1, &advert(5, 0, 2));
        assert_eq!(d.entry(5), Some((1, 1, 2)));
        assert_eq!(d.table[&5].ok_at, 3 * SEC, "advertised from now on");
        assert_eq!(d.next_incremental, None, "no triggered update for it");
        out.clear();
        d.full_dump(4 * SEC, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let routes = update_routes(&out, &pool).unwrap_or_else(|| panic!("no dump: {out:?}"));
        assert!(routes.contains(&Advert { dst: 5, metric: 1, seq: 2 }), "{routes:?}");
    }

    /// `ns2_queue`: without a route, six packets for node 5 and one for
    /// node 6 are held as ns-2.35's DSDV holds them: five per destination,
    /// the first for 5 dropped by the sixth, the one for 6 kept, and no
    /// timer to drop them later (the default: 64 in all, 30 s each).
    #[test]
    fn ns2_queue_holds_five_per_destination_without_a_timeout() {
        for ns2 in [false, true] {
            let p = DsdvParams { ns2_queue: ns2, ..DsdvParams::default() };
            let mut dsdv = Dsdv::new(0, 0, p, crate::engine::stream_rng(1, "test"));
            let mut pool = PacketPool::new();
            let mut out = Vec::new();
            let mut ids = Vec::new();
            for (i, dst) in [5, 6, 5, 5, 5, 5, 5].into_iter().enumerate() {
                let id = pool.insert(Packet::new(0, 0, dst, Transport::Udp(Default::default()), 8, 512, 0));
                let at = i as Time * SEC;
                assert_eq!(dsdv.route(at, id, &mut RoutingIo { pool: &mut pool, out: &mut out }), Route::Hold);
                ids.push(id);
            }
            let dropped: Vec<PktId> =
                out.iter().filter_map(|a| if let RoutingAction::DropHeld(x) = a { Some(*x) } else { None }).collect();
            assert_eq!(dropped, if ns2 { vec![ids[0]] } else { vec![] }, "ns2 {ns2}");
            assert_eq!(dsdv.buffer.len(), if ns2 { 6 } else { 7 });
            // 40 s on, still without a route: by default every packet has
            // waited its 30 s and is dropped; ns-2 keeps them.
            out.clear();
            dsdv.on_timer(40 * SEC, &mut RoutingIo { pool: &mut pool, out: &mut out });
            let expired = out.iter().filter(|a| matches!(a, RoutingAction::DropHeld(_))).count();
            assert_eq!(expired, if ns2 { 0 } else { 7 }, "ns2 {ns2}");
        }
    }

    /// `ns2_ip_header`: a TCP packet this node originates grows by 20
    /// bytes once (a packet held for a route is routed again later); UDP
    /// packets, packets passing through and the rule off leave sizes alone.
    #[test]
    fn ns2_ip_header_adds_twenty_bytes_to_own_tcp_packets_once() {
        let on = DsdvParams { ns2_ip_header: true, ..DsdvParams::default() };
        let size_after = |p: DsdvParams, src: NodeId, l4: Transport, routings: usize| {
            let mut dsdv = Dsdv::new(0, 0, p, crate::engine::stream_rng(1, "test"));
            let mut pool = PacketPool::new();
            let id = pool.insert(Packet::new(0, src, 5, l4, 20, 1000, 0));
            let mut out = Vec::new();
            for _ in 0..routings {
                dsdv.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            }
            pool.get(id).size
        };
        let tcp = || Transport::Tcp(TcpHeader::default());
        // IP 20 + TCP 20 + 1000 bytes of payload: 1040.
        assert_eq!(size_after(on, 0, tcp(), 1), 1060);
        assert_eq!(size_after(on, 0, tcp(), 3), 1060);
        assert_eq!(size_after(on, 3, tcp(), 1), 1040);
        assert_eq!(size_after(on, 0, Transport::Udp(Default::default()), 1), 1040);
        assert_eq!(size_after(DsdvParams::default(), 0, tcp(), 1), 1040);
    }
}
