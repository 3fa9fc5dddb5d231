//! DSR (RFC 4728) with ns-2.35's defaults: every data packet carries its
//! whole route from the source (a source route option, 4 bytes per
//! address, counted in the packet's size), so forwarders need no table.
//! The source finds routes by route discovery: first a non-propagating
//! request (TTL 1: a neighbour answers from its cache or as the target,
//! 30 ms wait), then propagating requests that collect the route they
//! travel and are answered by the target or by a node with a cached route
//! (a reply from the cache), repeated after 0.5 s, doubling up to 10 s,
//! while packets wait (64 packets, 30 s). Every node keeps a path cache of
//! routes it learnt from requests, replies and the source routes it
//! forwards. A MAC failure removes the link from the cache, sends a route
//! error back to the sources that used it, and the data packet the MAC gave
//! up on and those queued for the lost neighbour are salvaged: sent on over
//! another cached route if there is one (at most `max_salvage` times per
//! packet, RFC 4728's MAX_SALVAGE_COUNT 15), dropped otherwise.
//!
//! Route shortening (RFC 4728 3.4.3, ns-2's "gratuitous replies"): the
//! station listens to the data frames it overhears; a node that hears a
//! source-routed packet from a transmitter it appears after by more than
//! one hop sends the source a gratuitous route reply with the hops between
//! them cut out, at most once per (source, transmitter) in a hold-off time
//! (GRAT_REPLY_HOLDOFF, 1 s).
//!
//! The source route travels with the packet in a header store shared by the
//! nodes' DSR instances, keyed by the packet's uid (a `Packet` is a fixed
//! size value; `options_len` counts the bytes on the wire).

use super::{Route, Routing, RoutingAction, RoutingIo, RoutingStats};
use crate::engine::time::{MS, SEC};
use crate::engine::{Rng, Time};
use crate::net::device::DevId;
use crate::packet::{LinkHeader, NodeId, Packet, PktId, Transport, BROADCAST};
use std::any::Any;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};

pub const PROTO_DSR: u16 = 0xd5a0;

pub mod kind {
    pub const RREQ: u16 = 1;
    pub const RREP: u16 = 2;
    pub const RERR: u16 = 3;
}
const KIND_NAMES: &[&str] = &["dsr_rreq", "dsr_rrep", "dsr_rerr"];
/// DSR's own counters (nodes table columns): data packets sent on over
/// another route after a link failure, and gratuitous replies sent.
const EXTRA_NAMES: &[&str] = &["dsr_salvaged", "dsr_gratuitous_replies"];
const SALVAGED: usize = 0;
const GRAT_REPLIES: usize = 1;

/// DSR fixed header and a source-route option's header (RFC 4728 6.1, 6.7).
const FIXED: u32 = 4;
const OPT_HEAD: u32 = 4;
const PER_ADDR: u32 = 4;

/// Bytes a source route adds to a packet: the fixed header, the option
/// header and one address per intermediate node (4 more bytes per hop).
pub fn source_route_len(route: &[NodeId]) -> u16 {
    (FIXED + OPT_HEAD + PER_ADDR * route.len().saturating_sub(2) as u32) as u16
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DsrParams {
    /// Longest route in nodes (ns-2.35's MAX_SR_LEN: 16).
    pub max_route_len: usize,
    pub nonprop_timeout: Time,
    pub request_period: Time,
    pub max_request_period: Time,
    pub buffer_len: usize,
    pub buffer_timeout: Time,
    /// Paths a node's cache keeps (oldest go first).
    pub cache_paths: usize,
    /// Times a data packet may be salvaged (RFC 4728's MAX_SALVAGE_COUNT,
    /// 15; 0: never, the packets of a failed link are dropped).
    pub max_salvage: u8,
    pub jitter: Time,
    /// Route shortening by gratuitous replies from overheard packets
    /// (ns-2.35: on).
    pub grat_replies: bool,
    /// Least time between two gratuitous replies for the same (source,
    /// transmitter) (RFC 4728's GRAT_REPLY_HOLDOFF, 1 s).
    pub grat_holdoff: Time,
    /// After a link failure, this node's own data packets without another
    /// route go back to the send buffer and a discovery starts (ns-2.35's
    /// DSR does so); false: they are dropped.
    pub rebuffer_own: bool,
    /// ns-2.35's request schedule (dsragent.cc BackOffTest) instead of RFC
    /// 4728's: every cycle is a non-propagating request and, after
    /// `nonprop_timeout`, a propagating one; cycle k + 1 starts
    /// `request_period` x 4^k after cycle k (0.5, 2, 8 s), at most
    /// `max_request_period`. RFC 4728 (the default): one non-propagating
    /// request, then propagating ones `request_period` apart, doubling.
    pub ns2_request_backoff: bool,
}

impl Default for DsrParams {
    fn default() -> Self {
        DsrParams {
            max_route_len: 16,
            nonprop_timeout: 30 * MS,
            request_period: 500 * MS,
            max_request_period: 10 * SEC,
            buffer_len: 64,
            buffer_timeout: 30 * SEC,
            cache_paths: 64,
            max_salvage: 15,
            jitter: 10 * MS,
            grat_replies: true,
            grat_holdoff: SEC,
            rebuffer_own: true,
            ns2_request_backoff: false,
        }
    }
}

/// A data packet's source route and how often it was salvaged.
#[derive(Clone, Debug)]
struct SrcRoute {
    route: Vec<NodeId>,
    salvaged: u8,
    born: Time,
}

/// The headers of the packets in flight, shared by every node's DSR.
#[derive(Default)]
pub struct HeaderStore {
    map: HashMap<u64, SrcRoute>,
    last_purge: Time,
}

pub type SharedHeaders = Arc<Mutex<HeaderStore>>;

#[derive(Clone, Debug)]
pub struct Rreq {
    pub id: u32,
    pub target: NodeId,
    /// The route so far, from the originator to the sender of this copy.
    pub record: Vec<NodeId>,
}

/// A reply: the whole route from the originator to the target, travelling
/// back along it.
#[derive(Clone, Debug)]
pub struct Rrep {
    pub route: Vec<NodeId>,
}

/// A route error: the link `from -> to` is broken; it travels back along
/// `path` (from the node that found it to the source of the packets).
#[derive(Clone, Debug)]
pub struct Rerr {
    pub from: NodeId,
    pub to: NodeId,
    pub path: Vec<NodeId>,
}

#[derive(Clone, Copy, Debug)]
struct Discovery {
    next_try: Time,
    period: Time,
    /// `ns2_request_backoff`: when the current cycle began, cycles so far,
    /// and whether its propagating request is still to go.
    cycle_start: Time,
    cycles: u32,
    limited: bool,
}

pub struct Dsr {
    me: NodeId,
    dev: DevId,
    p: DsrParams,
    headers: SharedHeaders,
    req_id: u32,
    cache: VecDeque<Vec<NodeId>>,
    seen: BTreeMap<(NodeId, u32), Time>,
    discoveries: BTreeMap<NodeId, Discovery>,
    buffer: VecDeque<(PktId, NodeId, Time)>,
    delayed: Vec<(Time, PktId)>,
    /// The route back to the source of the last packet sent to each neighbour
    /// (for a route error when that link fails).
    last_via: BTreeMap<NodeId, Vec<NodeId>>,
    /// When this node last sent a gratuitous reply for (source, transmitter).
    grat_sent: BTreeMap<(NodeId, NodeId), Time>,
    rng: Rng,
    pub stats: RoutingStats,
}

impl Dsr {
    pub fn new(me: NodeId, dev: DevId, p: DsrParams, headers: SharedHeaders, rng: Rng) -> Self {
        Dsr {
            me,
            dev,
            p,
            headers,
            req_id: 0,
            cache: VecDeque::new(),
            seen: BTreeMap::new(),
            discoveries: BTreeMap::new(),
            buffer: VecDeque::new(),
            delayed: Vec::new(),
            last_via: BTreeMap::new(),
            grat_sent: BTreeMap::new(),
            rng,
            stats: RoutingStats::new(KIND_NAMES).with_extra(EXTRA_NAMES),
        }
    }

    /// (destination, next hop, hops) of the shortest cached route to every
    /// node in the cache.
    pub fn routes(&self) -> Vec<(NodeId, NodeId, u8)> {
        let mut dsts: Vec<NodeId> = self.cache.iter().flat_map(|p| p[1..].iter().copied()).collect();
        dsts.sort_unstable();
        dsts.dedup();
        dsts.into_iter().filter_map(|d| self.cached(d).map(|r| (d, r[1], (r.len() - 1) as u8))).collect()
    }

    /// The shortest cached route from here to `dst` (this node first).
    pub fn cached(&self, dst: NodeId) -> Option<Vec<NodeId>> {
        let mut best: Option<&[NodeId]> = None;
        for path in &self.cache {
            if let Some(k) = path.iter().skip(1).position(|&n| n == dst).map(|k| k + 1) {
                if best.is_none_or(|b| k + 1 < b.len()) {
                    best = Some(&path[..=k]);
                }
            }
        }
        best.map(|b| b.to_vec())
    }

    /// Put a path starting at this node into its cache, as if learnt from
    /// a reply (tests: a route known before the run; ignored if it loops).
    pub fn add_route(&mut self, path: Vec<NodeId>) {
        self.learn(path);
    }

    /// Learn a path starting at this node (ignored if it loops).
    fn learn(&mut self, path: Vec<NodeId>) {
        if path.len() < 2 || path[0] != self.me {
            return;
        }
        let mut seen = path.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != path.len() {
            return;
        }
        if self.cache.iter().any(|c| c.starts_with(&path)) {
            return;
        }
        self.cache.retain(|c| !path.starts_with(c));
        if self.cache.len() >= self.p.cache_paths {
            self.cache.pop_front();
        }
        self.cache.push_back(path);
    }

    /// Learn the parts of `route` on either side of this node.
    fn learn_around(&mut self, route: &[NodeId]) {
        if let Some(i) = route.iter().position(|&n| n == self.me) {
            self.learn(route[i..].to_vec());
            let mut back: Vec<NodeId> = route[..=i].to_vec();
            back.reverse();
            self.learn(back);
        }
    }

    fn forget_link(&mut self, a: NodeId, b: NodeId) {
        for path in self.cache.iter_mut() {
            if let Some(i) = path.windows(2).position(|w| (w[0] == a && w[1] == b) || (w[0] == b && w[1] == a)) {
                path.truncate(i + 1);
            }
        }
        self.cache.retain(|p| p.len() >= 2);
    }

    fn message(
        &mut self,
        now: Time,
        to: NodeId,
        (kind, len): (u16, u32),
        ttl: u8,
        body: Box<dyn Any + Send>,
        io: &mut RoutingIo,
    ) -> PktId {
        self.stats.message(io.pool, now, (self.me, to), (PROTO_DSR, kind), FIXED + len, ttl, body)
    }

    fn send_request(&mut self, now: Time, target: NodeId, ttl: u8, io: &mut RoutingIo) {
        self.req_id += 1;
        let rq = Rreq { id: self.req_id, target, record: vec![self.me] };
        self.seen.insert((self.me, rq.id), now + self.p.max_request_period);
        // Route request option: 8 bytes + 4 per recorded address.
        let pkt = self.message(now, BROADCAST, (kind::RREQ, 8 + PER_ADDR), ttl, Box::new(rq), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: None });
    }

    /// Start or repeat the discovery for `dst` if its time has come.
    fn discover(&mut self, now: Time, dst: NodeId, io: &mut RoutingIo) {
        match self.discoveries.get(&dst).copied() {
            None => {
                self.stats.discoveries += 1;
                self.send_request(now, dst, 1, io);
                let next_try = now + self.p.nonprop_timeout;
                let d = Discovery { next_try, period: 0, cycle_start: now, cycles: 1, limited: true };
                self.discoveries.insert(dst, d);
            }
            Some(d) if d.next_try <= now && self.p.ns2_request_backoff => {
                let d = if d.limited {
                    // The cycle's propagating request. The next cycle
                    // starts request_period x 4^cycles after this one did
                    // (BackOffTest, with `cycles` its rt_reqs_outstanding).
                    self.send_request(now, dst, 255, io);
                    let wait = self.p.request_period.saturating_mul(1 << (2 * d.cycles.min(15)));
                    let next_try = (d.cycle_start + wait.min(self.p.max_request_period)).max(now);
                    Discovery { next_try, limited: false, ..d }
                } else {
                    self.send_request(now, dst, 1, io);
                    let next_try = now + self.p.nonprop_timeout;
                    Discovery { next_try, cycle_start: now, cycles: d.cycles + 1, limited: true, ..d }
                };
                self.discoveries.insert(dst, d);
            }
            Some(d) if d.next_try <= now => {
                let period =
                    if d.period == 0 { self.p.request_period } else { (d.period * 2).min(self.p.max_request_period) };
                self.send_request(now, dst, 255, io);
                self.discoveries.insert(dst, Discovery { next_try: now + period, period, ..d });
            }
            _ => {}
        }
    }

    /// Put a source route on packet `id` and say where it goes first.
    fn attach(&mut self, now: Time, id: PktId, route: Vec<NodeId>, salvaged: u8, io: &mut RoutingIo) -> NodeId {
        let p = io.pool.get_mut(id);
        let old = p.ip.options_len;
        let new = source_route_len(&route);
        p.size = p.size - old as u32 + new as u32;
        p.ip.options_len = new;
        let uid = p.uid;
        let next = route[1];
        self.note_via(next, &route);
        let mut h = self.headers.lock().expect("DSR header store");
        if h.map.len() > 4096 && now >= h.last_purge + 10 * SEC {
            // Headers of packets long gone (delivered or dropped elsewhere).
            let keep = now.saturating_sub(self.p.buffer_timeout * 2);
            h.map.retain(|_, r| r.born >= keep);
            h.last_purge = now;
        }
        h.map.insert(uid, SrcRoute { route, salvaged, born: now });
        next
    }

    /// Keep a packet of this node's own in the send buffer (the oldest
    /// goes when it is full) and discover a route to `dst`.
    fn hold(&mut self, now: Time, id: PktId, dst: NodeId, io: &mut RoutingIo) {
        super::hold_packet(&mut self.buffer, self.p.buffer_len, id, dst, now, &mut self.stats, io.out);
        self.discover(now, dst, io);
    }

    fn note_via(&mut self, next: NodeId, route: &[NodeId]) {
        if let Some(i) = route.iter().position(|&n| n == self.me) {
            let mut back = route[..=i].to_vec();
            back.reverse();
            self.last_via.insert(next, back);
        }
    }

    fn release(&mut self, now: Time, io: &mut RoutingIo) {
        let mut kept = VecDeque::with_capacity(self.buffer.len());
        for (pkt, dst, since) in std::mem::take(&mut self.buffer) {
            match self.cached(dst) {
                Some(route) => {
                    self.discoveries.remove(&dst);
                    let next = self.attach(now, pkt, route, 0, io);
                    io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(next) });
                }
                None => kept.push_back((pkt, dst, since)),
            }
        }
        self.buffer = kept;
    }

    fn on_rreq(&mut self, now: Time, ttl: u8, rq: Rreq, io: &mut RoutingIo) {
        let orig = rq.record[0];
        if orig == self.me || rq.record.contains(&self.me) || self.seen.contains_key(&(orig, rq.id)) {
            return;
        }
        self.seen.insert((orig, rq.id), now + self.p.max_request_period);
        let mut record = rq.record.clone();
        record.push(self.me);
        // The way back to the originator.
        let mut back = record.clone();
        back.reverse();
        self.learn(back.clone());
        let reply = if rq.target == self.me {
            Some(record.clone())
        } else {
            // A reply from the cache, if the joined route does not loop.
            self.cached(rq.target).and_then(|tail| {
                let mut full = record.clone();
                full.extend_from_slice(&tail[1..]);
                let mut s = full.clone();
                s.sort_unstable();
                s.dedup();
                (s.len() == full.len() && full.len() <= self.p.max_route_len).then_some(full)
            })
        };
        if let Some(route) = reply {
            let prev = back[1];
            let len = 4 + PER_ADDR * route.len() as u32;
            let pkt = self.message(now, prev, (kind::RREP, len), 255, Box::new(Rrep { route }), io);
            io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(prev) });
            return;
        }
        if ttl <= 1 || record.len() >= self.p.max_route_len {
            return;
        }
        let len = 8 + PER_ADDR * record.len() as u32;
        let pkt = self.message(now, BROADCAST, (kind::RREQ, len), ttl - 1, Box::new(Rreq { record, ..rq }), io);
        let at = now + (self.rng.uniform() * self.p.jitter as f64) as Time;
        self.delayed.push((at, pkt));
    }

    fn on_rrep(&mut self, now: Time, rp: Rrep, io: &mut RoutingIo) {
        self.learn_around(&rp.route);
        let Some(i) = rp.route.iter().position(|&n| n == self.me) else { return };
        if i == 0 {
            self.release(now, io);
            return;
        }
        let prev = rp.route[i - 1];
        let len = 4 + PER_ADDR * rp.route.len() as u32;
        let pkt = self.message(now, prev, (kind::RREP, len), 255, Box::new(rp), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(prev) });
    }

    fn on_rerr(&mut self, now: Time, re: Rerr, io: &mut RoutingIo) {
        self.forget_link(re.from, re.to);
        let Some(i) = re.path.iter().position(|&n| n == self.me) else { return };
        if i + 1 < re.path.len() {
            let next = re.path[i + 1];
            self.send_rerr(now, next, re, io);
        }
    }

    fn send_rerr(&mut self, now: Time, next: NodeId, re: Rerr, io: &mut RoutingIo) {
        let len = 12 + PER_ADDR * re.path.len() as u32;
        let pkt = self.message(now, next, (kind::RERR, len), 255, Box::new(re), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(next) });
    }

    /// A message of this protocol delivered here.
    fn handle(&mut self, now: Time, p: &Packet, io: &mut RoutingIo) {
        let Transport::Control(c) = p.l4 else { return };
        if c.proto != PROTO_DSR {
            return;
        }
        let Some(blob) = c.blob else { return };
        match c.kind {
            kind::RREQ => {
                if let Some(rq) = io.pool.blob::<Rreq>(blob).cloned() {
                    self.on_rreq(now, p.ip.ttl, rq, io);
                }
            }
            kind::RREP => {
                if let Some(rp) = io.pool.blob::<Rrep>(blob).cloned() {
                    self.on_rrep(now, rp, io);
                }
            }
            kind::RERR => {
                if let Some(re) = io.pool.blob::<Rerr>(blob).cloned() {
                    self.on_rerr(now, re, io);
                }
            }
            _ => {}
        }
        self.seen.retain(|_, t| *t > now);
    }
}

impl Routing for Dsr {
    fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        let p = io.pool.get(id);
        let (src, dst, uid) = (p.ip.src, p.ip.dst, p.uid);
        if src == self.me {
            if let Some(route) = self.cached(dst) {
                let next_hop = self.attach(now, id, route, 0, io);
                return Route::Forward { dev: self.dev, next_hop };
            }
            self.hold(now, id, dst, io);
            return Route::Hold;
        }
        // A forwarder follows the source route in the packet.
        let route = self.headers.lock().expect("DSR header store").map.get(&uid).map(|h| h.route.clone());
        let Some(route) = route else {
            self.stats.drops_no_route += 1;
            return Route::Drop;
        };
        let Some(i) = route.iter().position(|&n| n == self.me).filter(|&i| i + 1 < route.len()) else {
            self.stats.drops_no_route += 1;
            return Route::Drop;
        };
        self.learn_around(&route);
        let next_hop = route[i + 1];
        self.note_via(next_hop, &route);
        Route::Forward { dev: self.dev, next_hop }
    }

    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.cached(dst).map(|r| (self.dev, r[1]))
    }

    fn on_control(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        // Read the message before letting the packet go: the last holder's
        // release frees its body.
        let p = *io.pool.get(pkt);
        self.handle(now, &p, io);
        io.pool.release(pkt);
    }

    fn on_link_failure(&mut self, now: Time, _dev: DevId, neighbor: NodeId, io: &mut RoutingIo) {
        self.forget_link(self.me, neighbor);
        if let Some(back) = self.last_via.remove(&neighbor) {
            if back.len() >= 2 {
                let next = back[1];
                self.stats.route_errors += 1;
                self.send_rerr(now, next, Rerr { from: self.me, to: neighbor, path: back }, io);
            }
        }
    }

    fn flushes_on_link_failure(&self) -> bool {
        true
    }

    fn salvages(&self) -> bool {
        true
    }

    fn take_back(&mut self, now: Time, failed: Option<PktId>, queued: Vec<PktId>, io: &mut RoutingIo) {
        let pkts = failed.map(|f| (f, true)).into_iter().chain(queued.into_iter().map(|q| (q, false)));
        for (id, was_failed) in pkts {
            let (src, dst, uid, data) = {
                let p = io.pool.get(id);
                (p.ip.src, p.ip.dst, p.uid, !matches!(p.l4, Transport::Control(_)))
            };
            let salvaged = self.headers.lock().expect("DSR header store").map.get(&uid).map_or(0, |h| h.salvaged);
            // Salvage a data packet: on over another cached route (the
            // broken link is already forgotten), its salvage count raised.
            // Route replies and errors are not salvaged (ns-2 neither).
            match self.cached(dst) {
                Some(route) if data && salvaged < self.p.max_salvage => {
                    let next = self.attach(now, id, route, salvaged + 1, io);
                    self.stats.extra[SALVAGED] += 1;
                    io.out.push(RoutingAction::Send { pkt: id, dev: self.dev, next_hop: Some(next) });
                }
                // A packet of this node's own without another route waits
                // in the send buffer for a new discovery (ns-2.35 as well).
                None if data && src == self.me && self.p.rebuffer_own => self.hold(now, id, dst, io),
                _ if was_failed => io.out.push(RoutingAction::DropFailed(id)),
                _ => io.out.push(RoutingAction::DropBroken(id)),
            }
        }
    }

    fn listens(&self) -> bool {
        self.p.grat_replies
    }

    fn on_overheard(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        let p = io.pool.get(pkt);
        let (LinkHeader::Mac { tx, .. }, false) = (p.l2, matches!(p.l4, Transport::Control(_))) else { return };
        let uid = p.uid;
        let route = self.headers.lock().expect("DSR header store").map.get(&uid).map(|h| h.route.clone());
        let Some(route) = route else { return };
        let (Some(t), Some(m)) = (route.iter().position(|&n| n == tx), route.iter().position(|&n| n == self.me)) else {
            return;
        };
        // Only a node the transmitter's next hop has still to reach.
        if m <= t + 1 {
            return;
        }
        let key = (route[0], tx);
        if self.grat_sent.get(&key).is_some_and(|&at| now < at + self.p.grat_holdoff) {
            return;
        }
        self.grat_sent.insert(key, now);
        self.grat_sent.retain(|_, at| now < *at + self.p.grat_holdoff);
        // The route with the hops between the transmitter and this node
        // cut out, back to the source along its first part.
        let mut short = route[..=t].to_vec();
        short.extend_from_slice(&route[m..]);
        self.learn_around(&short);
        self.stats.extra[GRAT_REPLIES] += 1;
        let len = 4 + PER_ADDR * short.len() as u32;
        let reply = self.message(now, tx, (kind::RREP, len), 255, Box::new(Rrep { route: short }), io);
        io.out.push(RoutingAction::Send { pkt: reply, dev: self.dev, next_hop: Some(tx) });
    }

    fn deadline(&self) -> Option<Time> {
        let mut d = self.delayed.iter().map(|x| x.0).min();
        let mut at = |t: Time| d = Some(d.map_or(t, |x| x.min(t)));
        for (dst, disc) in &self.discoveries {
            if self.buffer.iter().any(|b| b.1 == *dst) {
                at(disc.next_try);
            }
        }
        if let Some(&(_, _, since)) = self.buffer.front() {
            at(since.saturating_add(self.p.buffer_timeout));
        }
        d
    }

    fn on_timer(&mut self, now: Time, io: &mut RoutingIo) {
        let due = super::take_due(&mut self.delayed, now, |x| x.0);
        for (_, pkt) in due {
            io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: None });
        }
        super::expire_held(&mut self.buffer, now, self.p.buffer_timeout, &mut self.stats, io.out);
        let waiting: Vec<NodeId> = self
            .discoveries
            .iter()
            .filter(|(dst, d)| d.next_try <= now && self.buffer.iter().any(|b| b.1 == **dst))
            .map(|(&dst, _)| dst)
            .collect();
        for dst in waiting {
            self.discover(now, dst, io);
        }
        // Discoveries nobody waits for any more are over.
        let buffer = &self.buffer;
        self.discoveries.retain(|dst, d| d.next_try > now || buffer.iter().any(|b| b.1 == *dst));
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

    /// The source route adds 8 bytes plus 4 per intermediate node: the
    /// header grows by 4 bytes per hop, and the packet size with it.
    #[test]
    fn source_route_header_grows_four_bytes_per_hop() {
        assert_eq!(source_route_len(&[0, 1]), 8);
        for hops in 1..15usize {
            let route: Vec<NodeId> = (0..=hops as NodeId).collect();
            let headers = SharedHeaders::default();
            let mut dsr = Dsr::new(0, 0, DsrParams::default(), headers.clone(), crate::engine::stream_rng(1, "test"));
            dsr.learn(route.clone());
            let mut pool = PacketPool::new();
            let pkt = Packet::new(0, 0, hops as NodeId, Transport::Tcp(TcpHeader::default()), 20, 1000, 0);
            let id = pool.insert(pkt);
            let mut out = Vec::new();
            let r = dsr.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(r, Route::Forward { dev: 0, next_hop: 1 });
            let p = pool.get(id);
            assert_eq!(p.ip.options_len as usize, 8 + 4 * (hops - 1));
            assert_eq!(p.size as usize, 20 + 20 + 1000 + 8 + 4 * (hops - 1));
            assert_eq!(headers.lock().unwrap().map[&p.uid].route, route);
        }
    }

    #[test]
    fn the_cache_gives_the_shortest_prefix_and_forgets_broken_links() {
        let mut dsr =
            Dsr::new(0, 0, DsrParams::default(), SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
        dsr.learn(vec![0, 1, 2, 3, 4]);
        dsr.learn(vec![0, 5, 4]);
        assert_eq!(dsr.cached(4), Some(vec![0, 5, 4]));
        assert_eq!(dsr.cached(2), Some(vec![0, 1, 2]));
        dsr.forget_link(5, 4);
        assert_eq!(dsr.cached(4), Some(vec![0, 1, 2, 3, 4]));
        dsr.learn(vec![0, 1, 0]);
        assert_eq!(dsr.cached(0), None, "a looping path is not learnt");
    }
}
