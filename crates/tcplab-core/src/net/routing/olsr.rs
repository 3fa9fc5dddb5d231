//! OLSR (RFC 3626), proactive link-state routing: every node broadcasts a
//! HELLO every 2 s listing the neighbours it hears and which of them are
//! symmetric and its MPRs (link sensing and neighbour detection); from its
//! neighbours' HELLOs it learns its two-hop neighbours and selects
//! multipoint relays (MPRs, the RFC's heuristic in `select_mprs`) that
//! cover them. A node selected as MPR floods a TC message every 5 s
//! listing its MPR selectors; only MPRs re-broadcast a TC, and only the
//! first copy. Routes are shortest hop paths over the symmetric links,
//! two-hop links and the topology set. Periodic messages come up to
//! MAXJITTER (HELLO interval / 4) early and forwarded ones wait up to it
//! (RFC 3626 section 3.5). Information expires after its hold time (3
//! intervals); a lost neighbour is noticed when its link times out (MAC
//! failures are not used, as in ns-3's OLSR by default). Every HELLO
//! carries its node's willingness to relay (RFC 3626 8.3.1): a neighbour
//! with WILL_NEVER is never chosen as MPR, one with WILL_ALWAYS always, and
//! otherwise the more willing neighbour is chosen first. Link hysteresis
//! (RFC 3626 14, off by default as in ns-3) makes a link usable only once
//! its quality, raised by every HELLO and lowered by every missed one, is
//! above a high threshold, and drops it when it falls below a low one.

use super::{Cells, Route, Routing, RoutingAction, RoutingIo, RoutingStats};
use crate::engine::time::SEC;
use crate::engine::{Rng, Time};
use crate::net::device::DevId;
use crate::packet::{NodeId, Packet, PktId, Transport, BROADCAST, UDP_HEADER};
use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `ControlHeader::proto` of OLSR messages (its UDP port).
pub const PROTO_OLSR: u16 = 698;

pub mod kind {
    pub const HELLO: u16 = 1;
    pub const TC: u16 = 2;
}
const KIND_NAMES: &[&str] = &["olsr_hello", "olsr_tc"];

/// Willingness to carry traffic for others (RFC 3626 18.8).
pub mod will {
    pub const NEVER: u8 = 0;
    pub const LOW: u8 = 1;
    pub const DEFAULT: u8 = 3;
    pub const HIGH: u8 = 6;
    pub const ALWAYS: u8 = 7;
}

/// Packet header 4 + message header 12 (RFC 3626 3.3).
const HEADERS: u32 = 16;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OlsrParams {
    pub hello_interval: Time,
    pub tc_interval: Time,
    /// Hold times: 3 emission intervals (NEIGHB_HOLD_TIME, TOP_HOLD_TIME).
    pub neighb_hold: Time,
    pub top_hold: Time,
    pub buffer_len: usize,
    pub buffer_timeout: Time,
    /// This node's willingness, 0 (WILL_NEVER) .. 7 (WILL_ALWAYS);
    /// WILL_DEFAULT 3.
    pub willingness: u8,
    /// Link hysteresis (RFC 3626 14): off by default.
    pub hysteresis: bool,
    /// HYST_THRESHOLD_HIGH, HYST_THRESHOLD_LOW, HYST_SCALING (0.8, 0.3, 0.5).
    pub hyst_high: f64,
    pub hyst_low: f64,
    pub hyst_scaling: f64,
}

impl Default for OlsrParams {
    fn default() -> Self {
        OlsrParams {
            hello_interval: 2 * SEC,
            tc_interval: 5 * SEC,
            neighb_hold: 6 * SEC,
            top_hold: 15 * SEC,
            buffer_len: 64,
            buffer_timeout: 30 * SEC,
            willingness: will::DEFAULT,
            hysteresis: false,
            hyst_high: 0.8,
            hyst_low: 0.3,
            hyst_scaling: 0.5,
        }
    }
}

/// A HELLO: the neighbours heard (asymmetric), symmetric, and chosen as
/// MPR, and the sender's willingness (in the HELLO's 4-byte header).
#[derive(Clone, Debug, Default)]
pub struct Hello {
    pub heard: Vec<NodeId>,
    pub sym: Vec<NodeId>,
    pub mpr: Vec<NodeId>,
    pub willingness: u8,
}

/// A TC: `orig`'s MPR selectors, numbered `ansn`; `seq` identifies the message.
#[derive(Clone, Debug)]
pub struct Tc {
    pub orig: NodeId,
    pub seq: u16,
    pub ansn: u16,
    pub selectors: Vec<NodeId>,
}

/// The RFC 3626 (8.3.1) MPR heuristic: `n1` the symmetric neighbours,
/// `reach[y]` the symmetric neighbours of neighbour `y` (`me` and nodes of
/// `n1` are not two-hop neighbours), `willing[y]` neighbour `y`'s
/// willingness (absent: WILL_DEFAULT). Neighbours with WILL_NEVER are left
/// out (and so are the two-hop neighbours only they reach); first every
/// neighbour with WILL_ALWAYS and those that alone reach some two-hop
/// neighbour, then repeatedly the one reaching some uncovered two-hop
/// neighbour with the highest willingness, then reaching most of them
/// (ties: more two-hop neighbours, then the lower id).
pub fn select_mprs(
    me: NodeId,
    n1: &BTreeSet<NodeId>,
    reach: &BTreeMap<NodeId, BTreeSet<NodeId>>,
    willing: &BTreeMap<NodeId, u8>,
) -> BTreeSet<NodeId> {
    let will_of = |y: &NodeId| willing.get(y).copied().unwrap_or(will::DEFAULT);
    let two_hop = |y: &NodeId| -> BTreeSet<NodeId> {
        reach.get(y).map_or_else(BTreeSet::new, |s| s.iter().copied().filter(|z| *z != me && !n1.contains(z)).collect())
    };
    let cover: BTreeMap<NodeId, BTreeSet<NodeId>> =
        n1.iter().filter(|y| will_of(y) != will::NEVER).map(|y| (*y, two_hop(y))).collect();
    let mut uncovered: BTreeSet<NodeId> = cover.values().flatten().copied().collect();
    let mut mprs: BTreeSet<NodeId> = cover.keys().copied().filter(|y| will_of(y) == will::ALWAYS).collect();
    for z in uncovered.clone() {
        let via: Vec<NodeId> = cover.iter().filter(|(_, c)| c.contains(&z)).map(|(y, _)| *y).collect();
        if via.len() == 1 {
            mprs.insert(via[0]);
        }
    }
    for y in &mprs {
        for z in &cover[y] {
            uncovered.remove(z);
        }
    }
    while !uncovered.is_empty() {
        let best = cover
            .iter()
            .filter(|(y, c)| !mprs.contains(*y) && !c.is_disjoint(&uncovered))
            .map(|(y, c)| (will_of(y), c.intersection(&uncovered).count(), c.len(), std::cmp::Reverse(*y)))
            .max()
            .expect("an uncovered two-hop neighbour is reached by some neighbour");
        let y = best.3 .0;
        mprs.insert(y);
        for z in &cover[&y] {
            uncovered.remove(z);
        }
    }
    mprs
}

/// A link's quality under hysteresis (RFC 3626 14.1: L_link_quality,
/// L_link_pending, L_LOST_LINK_time as a flag).
#[derive(Clone, Copy, Debug)]
pub struct LinkQuality {
    pub quality: f64,
    pub pending: bool,
    pub lost: bool,
    /// When the next HELLO is due; each interval without one lowers the quality.
    expect: Time,
}

pub struct Olsr {
    me: NodeId,
    dev: DevId,
    p: OlsrParams,
    /// Link set: neighbour -> (heard until, symmetric until).
    links: BTreeMap<NodeId, (Time, Time)>,
    /// Two-hop set: neighbour -> (its symmetric neighbours, until).
    two_hop: BTreeMap<NodeId, (BTreeSet<NodeId>, Time)>,
    /// Neighbours' willingness, from their last HELLO.
    willing: BTreeMap<NodeId, u8>,
    /// With hysteresis: every link's quality.
    quality: BTreeMap<NodeId, LinkQuality>,
    /// MPR selectors -> until.
    selectors: BTreeMap<NodeId, Time>,
    mprs: BTreeSet<NodeId>,
    /// Topology set: originator -> (ANSN, its selectors, until).
    topology: BTreeMap<NodeId, (u16, BTreeSet<NodeId>, Time)>,
    /// Duplicate set: (originator, message number) -> until.
    seen: BTreeMap<(NodeId, u16), Time>,
    table: BTreeMap<NodeId, (NodeId, u8)>,
    msg_seq: u16,
    ansn: u16,
    last_selectors: BTreeSet<NodeId>,
    next_hello: Option<Time>,
    next_tc: Option<Time>,
    delayed: Vec<(Time, PktId)>,
    buffer: VecDeque<(PktId, NodeId, Time)>,
    rng: Rng,
    pub stats: RoutingStats,
    /// Wired-cum-wireless: this station's cell, if it is a station of one
    /// (not its base station).
    cell: Option<Cells>,
}

impl Olsr {
    pub fn new(me: NodeId, dev: DevId, p: OlsrParams, rng: Rng) -> Self {
        Olsr {
            me,
            dev,
            p,
            links: BTreeMap::new(),
            two_hop: BTreeMap::new(),
            willing: BTreeMap::new(),
            quality: BTreeMap::new(),
            selectors: BTreeMap::new(),
            mprs: BTreeSet::new(),
            topology: BTreeMap::new(),
            seen: BTreeMap::new(),
            table: BTreeMap::new(),
            msg_seq: 0,
            ansn: 0,
            last_selectors: BTreeSet::new(),
            next_hello: None,
            next_tc: None,
            delayed: Vec::new(),
            buffer: VecDeque::new(),
            rng,
            stats: RoutingStats::new(KIND_NAMES),
            cell: None,
        }
    }

    /// A station of a wired-cum-wireless cell: what leaves the cell goes to
    /// its base station.
    pub fn in_cell(mut self, cells: Cells) -> Self {
        self.cell = Some(cells);
        self
    }

    fn towards(&self, src: NodeId, dst: NodeId) -> NodeId {
        self.cell.as_ref().map_or(dst, |c| c.target(self.me, src, dst, |n| self.table.contains_key(&n)))
    }

    /// (destination, next hop, hops) of the routing table.
    pub fn routes(&self) -> Vec<(NodeId, NodeId, u8)> {
        self.table.iter().map(|(&d, &(n, h))| (d, n, h)).collect()
    }

    pub fn mprs(&self) -> &BTreeSet<NodeId> {
        &self.mprs
    }

    fn max_jitter(&self) -> Time {
        self.p.hello_interval / 4
    }

    fn jitter(&mut self) -> Time {
        (self.rng.uniform() * self.max_jitter() as f64) as Time
    }

    /// A link's quality (with hysteresis).
    pub fn link_quality(&self, n: NodeId) -> Option<LinkQuality> {
        self.quality.get(&n).copied()
    }

    /// The link set's entry for neighbour `n`: (heard until, symmetric
    /// until), each the last HELLO from it plus the hold time. Read-only,
    /// for tests.
    pub fn link(&self, n: NodeId) -> Option<(Time, Time)> {
        self.links.get(&n).copied()
    }

    /// Whether hysteresis lets the link to `n` be used (always without it).
    fn usable(&self, n: NodeId) -> bool {
        !self.p.hysteresis || self.quality.get(&n).is_some_and(|h| !h.pending && !h.lost)
    }

    fn is_sym(&self, n: NodeId, now: Time) -> bool {
        self.links.get(&n).is_some_and(|l| l.1 > now) && self.usable(n)
    }

    fn sym(&self, now: Time) -> BTreeSet<NodeId> {
        self.links.iter().filter(|(n, l)| l.1 > now && self.usable(**n)).map(|(&n, _)| n).collect()
    }

    /// The quality of the link to `n` after a HELLO (`heard`) or after a
    /// missed one, and its state against the thresholds (RFC 3626 14.2).
    fn hyst_update(&mut self, n: NodeId, heard: bool, now: Time) {
        let p = self.p;
        // A HELLO is missed when none came within the interval plus the
        // largest jitter (HELLO_INTERVAL + MAXJITTER).
        let tolerance = p.hello_interval + p.hello_interval / 4;
        let h = self.quality.entry(n).or_insert(LinkQuality { quality: 0.0, pending: true, lost: false, expect: 0 });
        if heard {
            h.quality = (1.0 - p.hyst_scaling) * h.quality + p.hyst_scaling;
            h.expect = now + tolerance;
        } else {
            h.quality *= 1.0 - p.hyst_scaling;
            h.expect += tolerance;
        }
        if h.quality > p.hyst_high {
            h.pending = false;
            h.lost = false;
        } else if h.quality < p.hyst_low && !h.pending {
            h.lost = true;
        }
    }

    /// MPRs and the routing table from the current sets (RFC 8.3, 10).
    fn recompute(&mut self, now: Time) {
        if self.p.hysteresis {
            let due: Vec<NodeId> = self.quality.iter().filter(|(_, h)| h.expect <= now).map(|(&n, _)| n).collect();
            for n in due {
                while self.quality[&n].expect <= now {
                    self.hyst_update(n, false, now);
                }
            }
        }
        self.links.retain(|_, l| l.0 > now || l.1 > now);
        let links = &self.links;
        self.quality.retain(|n, _| links.contains_key(n));
        self.two_hop.retain(|_, t| t.1 > now);
        self.selectors.retain(|_, t| *t > now);
        self.topology.retain(|_, t| t.2 > now);
        let links = &self.links;
        self.willing.retain(|n, _| links.contains_key(n));
        let n1 = self.sym(now);
        let reach: BTreeMap<NodeId, BTreeSet<NodeId>> =
            self.two_hop.iter().filter(|(y, _)| n1.contains(y)).map(|(&y, t)| (y, t.0.clone())).collect();
        self.mprs = select_mprs(self.me, &n1, &reach, &self.willing);
        // Breadth first over neighbours, two-hop links (not through a
        // neighbour with WILL_NEVER, RFC 3626 10 (3)), then TC links.
        let mut table: BTreeMap<NodeId, (NodeId, u8)> = n1.iter().map(|&n| (n, (n, 1))).collect();
        let relays = reach.iter().filter(|(y, _)| self.willing.get(*y).is_none_or(|&w| w != will::NEVER));
        for (&y, set) in relays {
            for &z in set {
                if z != self.me && !table.contains_key(&z) {
                    table.insert(z, (y, 2));
                }
            }
        }
        let mut h = 2u8;
        loop {
            let mut added = Vec::new();
            for (&last, (_, dests, _)) in &self.topology {
                if let Some(&(next, hops)) = table.get(&last) {
                    if hops != h {
                        continue;
                    }
                    for &d in dests {
                        if d != self.me && !table.contains_key(&d) && !added.iter().any(|a: &(NodeId, NodeId)| a.0 == d)
                        {
                            added.push((d, next));
                        }
                    }
                }
            }
            if added.is_empty() || h == u8::MAX - 1 {
                break;
            }
            for (d, next) in added {
                table.insert(d, (next, h + 1));
            }
            h += 1;
        }
        self.table = table;
    }

    fn message(
        &mut self,
        now: Time,
        kind: u16,
        len: u32,
        ttl: u8,
        body: Box<dyn Any + Send>,
        io: &mut RoutingIo,
    ) -> PktId {
        self.stats.message(
            io.pool,
            now,
            (self.me, BROADCAST),
            (PROTO_OLSR, kind),
            UDP_HEADER + HEADERS + len,
            ttl,
            body,
        )
    }

    fn hello(&mut self, now: Time, io: &mut RoutingIo) {
        let sym = self.sym(now);
        let heard: Vec<NodeId> = self
            .links
            .iter()
            .filter(|(n, l)| l.0 > now && !sym.contains(n) && self.usable(**n))
            .map(|(&n, _)| n)
            .collect();
        let mpr: Vec<NodeId> = self.mprs.iter().copied().collect();
        let sym: Vec<NodeId> = sym.into_iter().filter(|n| !self.mprs.contains(n)).collect();
        // HELLO: 4 bytes, then per link-code group 4 bytes and 4 per address.
        let groups = [heard.len(), sym.len(), mpr.len()].iter().filter(|&&n| n > 0).count() as u32;
        let len = 4 + 4 * groups + 4 * (heard.len() + sym.len() + mpr.len()) as u32;
        let hello = Hello { heard, sym, mpr, willingness: self.p.willingness };
        let pkt = self.message(now, kind::HELLO, len, 1, Box::new(hello), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: None });
    }

    fn tc(&mut self, now: Time, io: &mut RoutingIo) {
        let selectors: BTreeSet<NodeId> = self.selectors.keys().copied().collect();
        if selectors.is_empty() {
            return;
        }
        if selectors != self.last_selectors {
            self.ansn = self.ansn.wrapping_add(1);
            self.last_selectors = selectors.clone();
        }
        self.msg_seq = self.msg_seq.wrapping_add(1);
        let tc = Tc { orig: self.me, seq: self.msg_seq, ansn: self.ansn, selectors: selectors.into_iter().collect() };
        self.seen.insert((self.me, tc.seq), now + 30 * SEC);
        let len = 4 + 4 * tc.selectors.len() as u32;
        let pkt = self.message(now, kind::TC, len, 255, Box::new(tc), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: None });
    }

    fn on_hello(&mut self, now: Time, from: NodeId, h: &Hello) {
        let hold = self.p.neighb_hold;
        self.willing.insert(from, h.willingness);
        if self.p.hysteresis {
            self.hyst_update(from, true, now);
        }
        let l = self.links.entry(from).or_insert((0, 0));
        l.0 = now + hold;
        let lists_me = h.heard.contains(&self.me) || h.sym.contains(&self.me) || h.mpr.contains(&self.me);
        if lists_me {
            l.1 = now + hold;
        }
        if l.1 > now {
            let set: BTreeSet<NodeId> = h.sym.iter().chain(&h.mpr).copied().filter(|&z| z != self.me).collect();
            self.two_hop.insert(from, (set, now + hold));
        }
        if h.mpr.contains(&self.me) {
            self.selectors.insert(from, now + hold);
        } else {
            self.selectors.remove(&from);
        }
    }

    fn on_tc(&mut self, now: Time, from: NodeId, ttl: u8, tc: Tc, io: &mut RoutingIo) {
        if tc.orig == self.me || self.seen.contains_key(&(tc.orig, tc.seq)) {
            return;
        }
        // Only from a symmetric neighbour (RFC 9.5).
        if !self.is_sym(from, now) {
            return;
        }
        self.seen.insert((tc.orig, tc.seq), now + 30 * SEC);
        let newer = |a: u16, b: u16| (a.wrapping_sub(b) as i16) >= 0;
        match self.topology.get(&tc.orig) {
            Some(t) if !newer(tc.ansn, t.0) => {}
            _ => {
                self.topology.insert(tc.orig, (tc.ansn, tc.selectors.iter().copied().collect(), now + self.p.top_hold));
            }
        }
        // MPR flooding: re-broadcast if the sender chose us as its MPR.
        if ttl > 1 && self.selectors.get(&from).is_some_and(|&t| t > now) {
            let len = 4 + 4 * tc.selectors.len() as u32;
            let pkt = self.message(now, kind::TC, len, ttl - 1, Box::new(tc), io);
            let at = now + self.jitter();
            self.delayed.push((at, pkt));
        }
    }

    fn release(&mut self, io: &mut RoutingIo) {
        let mut kept = VecDeque::with_capacity(self.buffer.len());
        for (pkt, dst, since) in std::mem::take(&mut self.buffer) {
            match self.table.get(&dst) {
                Some(&(next, _)) => io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(next) }),
                None => kept.push_back((pkt, dst, since)),
            }
        }
        self.buffer = kept;
    }

    fn handle(&mut self, now: Time, p: &Packet, io: &mut RoutingIo) {
        let Transport::Control(c) = p.l4 else { return };
        if c.proto != PROTO_OLSR {
            return;
        }
        let Some(blob) = c.blob else { return };
        match c.kind {
            kind::HELLO => {
                if let Some(h) = io.pool.blob::<Hello>(blob).cloned() {
                    self.on_hello(now, p.ip.src, &h);
                }
            }
            kind::TC => {
                if let Some(tc) = io.pool.blob::<Tc>(blob).cloned() {
                    self.on_tc(now, p.ip.src, p.ip.ttl, tc, io);
                }
            }
            _ => {}
        }
        self.seen.retain(|_, t| *t > now);
        self.recompute(now);
        self.release(io);
    }
}

impl Routing for Olsr {
    fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        let p = io.pool.get(id);
        let dst = self.towards(p.ip.src, p.ip.dst);
        if let Some(&(next_hop, _)) = self.table.get(&dst) {
            return Route::Forward { dev: self.dev, next_hop };
        }
        if self.buffer.len() >= self.p.buffer_len {
            let (old, _, _) = self.buffer.pop_front().expect("a full buffer");
            self.stats.drops_buffer_full += 1;
            io.out.push(RoutingAction::DropHeld(old));
        }
        self.buffer.push_back((id, dst, now));
        Route::Hold
    }

    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.table.get(&self.towards(self.me, dst)).map(|&(n, _)| (self.dev, n))
    }

    fn on_control(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        // Read the message before letting the packet go: the last holder's
        // release frees its body.
        let p = *io.pool.get(pkt);
        self.handle(now, &p, io);
        io.pool.release(pkt);
    }

    fn deadline(&self) -> Option<Time> {
        let mut d = Some(self.next_hello.unwrap_or(0));
        let mut at = |t: Time| d = Some(d.map_or(t, |x: Time| x.min(t)));
        if let Some(t) = self.next_tc {
            at(t);
        }
        for x in &self.delayed {
            at(x.0);
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
        match self.next_hello {
            None => {
                // Start at a random point of the first interval.
                let first = (self.rng.uniform() * self.p.hello_interval as f64) as Time;
                self.next_hello = Some(now + first);
                let first_tc = (self.rng.uniform() * self.p.tc_interval as f64) as Time;
                self.next_tc = Some(now + first_tc);
            }
            Some(t) if t <= now => {
                self.recompute(now);
                self.hello(now, io);
                self.next_hello = Some(now + self.p.hello_interval - self.jitter());
                self.release(io);
            }
            _ => {}
        }
        if self.next_tc.is_some_and(|t| t <= now) {
            self.recompute(now);
            self.tc(now, io);
            self.next_tc = Some(now + self.p.tc_interval - self.jitter());
        }
        super::expire_held(&mut self.buffer, now, self.p.buffer_timeout, &mut self.stats, io.out);
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
    use proptest::prelude::*;

    /// Node `x`'s neighbours with each one's own neighbours.
    fn reach_of(adj: &[BTreeSet<NodeId>], x: usize) -> BTreeMap<NodeId, BTreeSet<NodeId>> {
        adj[x].iter().map(|&y| (y, adj[y as usize].clone())).collect()
    }

    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<BTreeSet<NodeId>> {
        let mut adj = vec![BTreeSet::new(); n];
        for &(a, b) in edges {
            let (a, b) = (a % n, b % n);
            if a != b {
                adj[a].insert(b as NodeId);
                adj[b].insert(a as NodeId);
            }
        }
        adj
    }

    proptest! {
        /// On any topology, every node's MPR set covers all its strict
        /// two-hop neighbours, and contains only one-hop neighbours.
        #[test]
        fn mprs_cover_every_two_hop_neighbour(n in 2usize..30, edges in proptest::collection::vec((0usize..30, 0usize..30), 0..120)) {
            let adj = graph(n, &edges);
            for me in 0..n {
                let n1 = adj[me].clone();
                let reach = reach_of(&adj, me);
                let mprs = select_mprs(me as NodeId, &n1, &reach, &BTreeMap::new());
                prop_assert!(mprs.is_subset(&n1));
                let two_hop: BTreeSet<NodeId> = n1.iter().flat_map(|&y| adj[y as usize].iter().copied())
                    .filter(|&z| z != me as NodeId && !n1.contains(&z)).collect();
                let covered: BTreeSet<NodeId> = mprs.iter().flat_map(|&y| adj[y as usize].iter().copied()).collect();
                prop_assert!(two_hop.is_subset(&covered), "node {}: two-hop {:?}, MPRs {:?}", me, two_hop, mprs);
            }
        }

        /// With any willingness: no WILL_NEVER neighbour is an MPR, every
        /// WILL_ALWAYS neighbour is, and the MPRs cover every two-hop
        /// neighbour that some willing neighbour reaches.
        #[test]
        fn mprs_respect_willingness(n in 2usize..30, edges in proptest::collection::vec((0usize..30, 0usize..30), 0..120),
                                    wills in proptest::collection::vec(0u8..8, 30)) {
            let adj = graph(n, &edges);
            let willing: BTreeMap<NodeId, u8> = (0..n).map(|i| (i as NodeId, wills[i])).collect();
            for me in 0..n {
                let n1 = adj[me].clone();
                let reach = reach_of(&adj, me);
                let mprs = select_mprs(me as NodeId, &n1, &reach, &willing);
                prop_assert!(mprs.is_subset(&n1));
                prop_assert!(mprs.iter().all(|y| willing[y] != will::NEVER), "node {}: MPRs {:?}", me, mprs);
                prop_assert!(n1.iter().filter(|y| willing[*y] == will::ALWAYS).all(|y| mprs.contains(y)));
                let two_hop: BTreeSet<NodeId> = n1.iter().filter(|y| willing[*y] != will::NEVER)
                    .flat_map(|&y| adj[y as usize].iter().copied())
                    .filter(|&z| z != me as NodeId && !n1.contains(&z)).collect();
                let covered: BTreeSet<NodeId> = mprs.iter().flat_map(|&y| adj[y as usize].iter().copied()).collect();
                prop_assert!(two_hop.is_subset(&covered), "node {}: two-hop {:?}, MPRs {:?}", me, two_hop, mprs);
            }
        }
    }

    #[test]
    fn a_sole_path_neighbour_is_an_mpr() {
        // 0 - 1 - 2 and 0 - 3 - 2, 3 - 4: 3 alone reaches 4.
        let adj = graph(5, &[(0, 1), (1, 2), (0, 3), (3, 2), (3, 4)]);
        let reach = reach_of(&adj, 0);
        assert_eq!(select_mprs(0, &adj[0], &reach, &BTreeMap::new()), BTreeSet::from([3]));
        // 3 unwilling: 4 is not reachable through an MPR, 1 covers 2.
        let never = BTreeMap::from([(3, will::NEVER)]);
        assert_eq!(select_mprs(0, &adj[0], &reach, &never), BTreeSet::from([1]));
        // 1 always: chosen although 3 covers everything.
        let always = BTreeMap::from([(1, will::ALWAYS)]);
        assert_eq!(select_mprs(0, &adj[0], &reach, &always), BTreeSet::from([1, 3]));
    }

    /// Several neighbours reach the same two-hop neighbours: the more
    /// willing one is chosen, whatever its id or reach.
    #[test]
    fn the_more_willing_neighbour_is_chosen() {
        // 0 - 1 - {3, 4}, 0 - 2 - {3, 4}, 0 - 5 - 3.
        let adj = graph(6, &[(0, 1), (0, 2), (0, 5), (1, 3), (1, 4), (2, 3), (2, 4), (5, 3)]);
        let reach = reach_of(&adj, 0);
        assert_eq!(select_mprs(0, &adj[0], &reach, &BTreeMap::new()), BTreeSet::from([1]));
        let w = BTreeMap::from([(2, will::HIGH)]);
        assert_eq!(select_mprs(0, &adj[0], &reach, &w), BTreeSet::from([2]));
        // 5 is the most willing but reaches only 3: it goes first, then 1
        // for 4.
        let w = BTreeMap::from([(5, will::HIGH)]);
        assert_eq!(select_mprs(0, &adj[0], &reach, &w), BTreeSet::from([1, 5]));
    }
}
