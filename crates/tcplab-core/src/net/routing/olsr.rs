//! OLSR (RFC 3626), proactive link-state routing: every node broadcasts a
//! HELLO every 2 s listing the neighbours it hears, which of them are
//! symmetric and its MPRs, and the links it lost lately (link sensing and
//! neighbour detection, RFC 3626 6, 7); from its neighbours' HELLOs it
//! learns its two-hop neighbours and selects multipoint relays (MPRs, the
//! RFC's heuristic in `select_mprs`) that cover them. A node selected as
//! MPR floods a TC message every 5 s listing its MPR selectors, and goes on
//! sending empty ones for the topology hold time after the last selector
//! went (RFC 3626 9.3); only MPRs re-broadcast a TC, and only the first
//! copy. Routes are shortest hop paths over the symmetric links, two-hop
//! links and the topology set. Periodic messages come up to MAXJITTER
//! (HELLO interval / 4) early and forwarded ones wait up to it (RFC 3626
//! section 3.5). Every tuple (link, two-hop neighbour, MPR selector,
//! topology) has its own expiry time, set from the hold time (3 intervals)
//! by the message that created or refreshed it; a lost neighbour is
//! noticed when its link times out or its HELLO declares the link lost
//! (MAC failures are not used, as in ns-3's OLSR by default), and takes
//! its two-hop and MPR selector tuples with it (RFC 3626 8.5). Every HELLO
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

/// A HELLO: its link-code groups (RFC 3626 6.1), the neighbours heard
/// (ASYM_LINK, NOT_NEIGH), symmetric (SYM_LINK, SYM_NEIGH), chosen as MPR
/// (SYM_LINK, MPR_NEIGH) and whose link was lost (LOST_LINK, NOT_NEIGH),
/// and the sender's willingness (in the HELLO's 4-byte header).
#[derive(Clone, Debug, Default)]
pub struct Hello {
    pub heard: Vec<NodeId>,
    pub sym: Vec<NodeId>,
    pub mpr: Vec<NodeId>,
    pub lost: Vec<NodeId>,
    pub willingness: u8,
}

impl Hello {
    /// The body's bytes: 4, then per non-empty link-code group 4 bytes and
    /// 4 per address (RFC 3626 6.1).
    pub fn body_len(&self) -> u32 {
        let lists = [&self.heard, &self.sym, &self.mpr, &self.lost];
        let groups = lists.iter().filter(|l| !l.is_empty()).count() as u32;
        4 + 4 * groups + 4 * lists.iter().map(|l| l.len() as u32).sum::<u32>()
    }
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
/// L_link_pending, L_LOST_LINK_time).
#[derive(Clone, Copy, Debug)]
pub struct LinkQuality {
    pub quality: f64,
    /// Not usable: new and not yet above the high threshold, or fallen
    /// below the low one since.
    pub pending: bool,
    /// Advertised as LOST_LINK until then (set when the quality falls below
    /// the low threshold).
    pub lost_until: Time,
    /// When the next HELLO is due; each interval without one lowers the quality.
    expect: Time,
}

/// A link tuple (RFC 3626 4.2.1): heard until (L_ASYM_time), symmetric
/// until (L_SYM_time), kept until (L_time). Times are valid while later
/// than now.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    asym: Time,
    sym: Time,
    time: Time,
}

pub struct Olsr {
    me: NodeId,
    dev: DevId,
    p: OlsrParams,
    /// Link set: neighbour -> its link tuple.
    links: BTreeMap<NodeId, Link>,
    /// Two-hop set: (neighbour, two-hop neighbour) -> until (RFC 3626
    /// 4.3.2: N_time).
    two_hop: BTreeMap<(NodeId, NodeId), Time>,
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
    /// When the MPR selector set last became empty: empty TCs go out for
    /// the topology hold time after it (RFC 3626 9.3).
    selectors_gone: Option<Time>,
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
            selectors_gone: None,
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
    /// until), L_ASYM_time and L_SYM_time. Read-only, for tests.
    pub fn link(&self, n: NodeId) -> Option<(Time, Time)> {
        self.links.get(&n).map(|l| (l.asym, l.sym))
    }

    /// Until when the link tuple for `n` is kept (L_time): after its
    /// symmetric and heard times have run out, it is advertised as lost
    /// until then.
    pub fn link_kept_until(&self, n: NodeId) -> Option<Time> {
        self.links.get(&n).map(|l| l.time)
    }

    /// The MPR selector set: selector -> until (MS_time). Read-only, for
    /// tests.
    pub fn mpr_selectors(&self) -> &BTreeMap<NodeId, Time> {
        &self.selectors
    }

    /// The two-hop neighbours reached through neighbour `y`, each with its
    /// expiry time (N_time). Read-only, for tests.
    pub fn two_hop_via(&self, y: NodeId) -> BTreeMap<NodeId, Time> {
        self.two_hop.range((y, NodeId::MIN)..=(y, NodeId::MAX)).map(|(&(_, z), &t)| (z, t)).collect()
    }

    /// The topology set's entry for `orig`: (ANSN, the selectors its last
    /// TC listed). Read-only, for tests.
    pub fn topology_of(&self, orig: NodeId) -> Option<(u16, &BTreeSet<NodeId>)> {
        self.topology.get(&orig).map(|t| (t.0, &t.1))
    }

    /// Whether hysteresis lets the link to `n` be used (always without it;
    /// RFC 3626 14.2: not pending and L_LOST_LINK_time expired).
    fn usable(&self, n: NodeId, now: Time) -> bool {
        !self.p.hysteresis || self.quality.get(&n).is_some_and(|h| !h.pending && h.lost_until <= now)
    }

    fn is_sym(&self, n: NodeId, now: Time) -> bool {
        self.links.get(&n).is_some_and(|l| l.sym > now) && self.usable(n, now)
    }

    fn sym(&self, now: Time) -> BTreeSet<NodeId> {
        self.links.iter().filter(|(n, l)| l.sym > now && self.usable(**n, now)).map(|(&n, _)| n).collect()
    }

    /// The quality of the link to `n` after a HELLO (`heard`) or after a
    /// missed one, and its state against the thresholds (RFC 3626 14.3).
    fn hyst_update(&mut self, n: NodeId, heard: bool, now: Time) {
        let p = self.p;
        // A HELLO is missed when none came within the interval plus the
        // largest jitter (HELLO_INTERVAL + MAXJITTER).
        let tolerance = p.hello_interval + p.hello_interval / 4;
        let kept = self.links.get(&n).map_or(now, |l| l.time);
        let h = self.quality.entry(n).or_insert(LinkQuality { quality: 0.0, pending: true, lost_until: 0, expect: 0 });
        if heard {
            h.quality = (1.0 - p.hyst_scaling) * h.quality + p.hyst_scaling;
            h.expect = now + tolerance;
        } else {
            h.quality *= 1.0 - p.hyst_scaling;
            h.expect += tolerance;
        }
        if h.quality > p.hyst_high {
            h.pending = false;
            h.lost_until = 0;
        } else if h.quality < p.hyst_low {
            // Unusable, and advertised as lost for the neighbour hold time
            // (or as long as the tuple is kept, if that is sooner).
            h.pending = true;
            h.lost_until = kept.min(now + p.neighb_hold);
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
        self.links.retain(|_, l| l.time > now);
        let links = &self.links;
        self.quality.retain(|n, _| links.contains_key(n));
        self.willing.retain(|n, _| links.contains_key(n));
        let n1 = self.sym(now);
        // Two-hop and MPR selector tuples expire by their own times, and go
        // with their neighbour when its link is no longer symmetric (RFC
        // 3626 8.5).
        self.two_hop.retain(|(y, _), t| *t > now && n1.contains(y));
        let had_selectors = !self.selectors.is_empty();
        self.selectors.retain(|y, t| *t > now && n1.contains(y));
        if had_selectors && self.selectors.is_empty() {
            self.selectors_gone = Some(now);
        }
        self.topology.retain(|_, t| t.2 > now);
        let mut reach: BTreeMap<NodeId, BTreeSet<NodeId>> = BTreeMap::new();
        for &(y, z) in self.two_hop.keys() {
            reach.entry(y).or_default().insert(z);
        }
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

    /// The HELLO to send now: every link tuple still kept, by its link type
    /// (RFC 3626 6.2): SYM_LINK while symmetric (MPR_NEIGH for an MPR,
    /// else SYM_NEIGH), ASYM_LINK while only heard, LOST_LINK once both
    /// have run out. With hysteresis (RFC 3626 14.2) a link fallen below the
    /// low threshold is LOST_LINK until its L_LOST_LINK_time, and a pending
    /// one is left out.
    fn make_hello(&self, now: Time) -> Hello {
        let mut h = Hello { willingness: self.p.willingness, ..Hello::default() };
        for (&n, l) in self.links.iter().filter(|(_, l)| l.time > now) {
            if let Some(q) = self.quality.get(&n).filter(|_| self.p.hysteresis) {
                if q.lost_until > now {
                    h.lost.push(n);
                    continue;
                }
                if q.pending {
                    continue;
                }
            }
            if l.sym > now {
                if self.mprs.contains(&n) {
                    h.mpr.push(n);
                } else {
                    h.sym.push(n);
                }
            } else if l.asym > now {
                h.heard.push(n);
            } else {
                h.lost.push(n);
            }
        }
        h
    }

    fn hello(&mut self, now: Time, io: &mut RoutingIo) {
        let hello = self.make_hello(now);
        let pkt = self.message(now, kind::HELLO, hello.body_len(), 1, Box::new(hello), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: None });
    }

    /// A TC with the MPR selectors (RFC 3626 9.3): a new ANSN whenever the
    /// set differs from the last one sent; once the set has become empty,
    /// empty TCs for the topology hold time (the validity of the TCs sent
    /// before, which they withdraw), then none until a selector comes.
    fn tc(&mut self, now: Time, io: &mut RoutingIo) {
        let selectors: BTreeSet<NodeId> = self.selectors.keys().copied().collect();
        if selectors.is_empty() && self.selectors_gone.is_none_or(|t| now >= t + self.p.top_hold) {
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

    /// A HELLO from neighbour `from`. Its validity time is taken to be
    /// this node's own neighbour hold time (vtime is not read: every node
    /// has the same intervals).
    fn on_hello(&mut self, now: Time, from: NodeId, h: &Hello) {
        let (me, hold) = (self.me, self.p.neighb_hold);
        self.willing.insert(from, h.willingness);
        // Link sensing (RFC 3626 7.1.1): a new tuple is not symmetric and is
        // kept for the validity time; the HELLO refreshes L_ASYM_time; if it
        // lists this node, LOST_LINK ends the symmetry at once and any
        // other link type makes the link symmetric and keeps the tuple the
        // hold time beyond that (so the link is advertised as lost once the
        // symmetry runs out).
        let l = self.links.entry(from).or_insert(Link { asym: 0, sym: 0, time: now + hold });
        l.asym = now + hold;
        if h.lost.contains(&me) {
            l.sym = now.saturating_sub(1);
        } else if h.heard.contains(&me) || h.sym.contains(&me) || h.mpr.contains(&me) {
            l.sym = now + hold;
            l.time = l.sym + hold;
        }
        l.time = l.time.max(l.asym);
        if self.p.hysteresis {
            self.hyst_update(from, true, now);
        }
        if !self.is_sym(from, now) {
            return;
        }
        // Two-hop neighbours one by one (RFC 3626 8.2.1): listed as
        // symmetric (SYM_NEIGH or MPR_NEIGH), created or refreshed; listed
        // as not a neighbour (NOT_NEIGH), removed; the others expire by
        // their time.
        for &z in h.sym.iter().chain(&h.mpr).filter(|&&z| z != me) {
            self.two_hop.insert((from, z), now + hold);
        }
        for z in h.heard.iter().chain(&h.lost) {
            self.two_hop.remove(&(from, *z));
        }
        // MPR selectors (RFC 3626 8.4.1): created or refreshed by a HELLO
        // that lists this node as MPR; they go when their time runs out or
        // the link breaks, not because a HELLO leaves this node out.
        if h.mpr.contains(&me) {
            self.selectors.insert(from, now + hold);
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
        // RFC 3626 9.5: a TC older than the originator's topology tuples
        // (by ANSN, with wrap-around, RFC 3626 19) is ignored; otherwise its
        // selectors replace them. An originator raises its ANSN whenever its
        // set changes, so one with the same ANSN lists the same selectors
        // and refreshes them; an empty TC with a newer ANSN leaves it no
        // selectors (the ANSN is kept for the hold time, to refuse older
        // TCs still on their way).
        let newer = |a: u16, b: u16| (a.wrapping_sub(b) as i16) >= 0;
        match self.topology.get(&tc.orig) {
            Some(t) if t.2 > now && !newer(tc.ansn, t.0) => {}
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

    fn node(me: NodeId, hysteresis: bool) -> Olsr {
        let p = OlsrParams { hysteresis, ..OlsrParams::default() };
        Olsr::new(me, 0, p, crate::engine::stream_rng(1, "olsr test"))
    }

    /// A HELLO with these link-code groups.
    fn hello(sym: &[NodeId], mpr: &[NodeId], heard: &[NodeId], lost: &[NodeId]) -> Hello {
        Hello { heard: heard.to_vec(), sym: sym.to_vec(), mpr: mpr.to_vec(), lost: lost.to_vec(), willingness: 3 }
    }

    /// `o` receives `h` from `from` at `now` (and recomputes, as on every
    /// message).
    fn hear(o: &mut Olsr, now: Time, from: NodeId, h: Hello) {
        o.on_hello(now, from, &h);
        o.recompute(now);
    }

    /// The HELLO `o` sends at `now`, and its length after the IP header.
    fn hello_sent(o: &mut Olsr, now: Time) -> (Hello, u32) {
        let (mut pool, mut out) = (crate::packet::PacketPool::new(), Vec::new());
        o.recompute(now);
        o.hello(now, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let [RoutingAction::Send { pkt, .. }] = out[..] else { panic!("one HELLO: {out:?}") };
        let Transport::Control(c) = pool.get(pkt).l4 else { panic!("a control message") };
        (pool.blob::<Hello>(c.blob.unwrap()).unwrap().clone(), c.len)
    }

    /// The TC `o` sends at its TC tick `now`, if any.
    fn tc_sent(o: &mut Olsr, now: Time) -> Option<Tc> {
        let (mut pool, mut out) = (crate::packet::PacketPool::new(), Vec::new());
        o.recompute(now);
        o.tc(now, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let &[RoutingAction::Send { pkt, .. }] = &out[..] else { return None };
        let Transport::Control(c) = pool.get(pkt).l4 else { panic!("a control message") };
        pool.blob::<Tc>(c.blob.unwrap()).cloned()
    }

    /// RFC 3626 8.4.1, 8.5: an MPR selector tuple lasts the validity time
    /// from the last HELLO naming this node as MPR, whatever later HELLOs
    /// say, and goes at once when the link to the selector breaks.
    #[test]
    fn mpr_selectors_last_until_their_time_or_the_link_runs_out() {
        let mut o = node(0, false);
        hear(&mut o, 0, 1, hello(&[], &[0], &[], &[]));
        assert_eq!(o.mpr_selectors().get(&1), Some(&(6 * SEC)));
        // 1 no longer chooses 0: the tuple stays until its time.
        hear(&mut o, 2 * SEC, 1, hello(&[0], &[], &[], &[]));
        assert_eq!(o.mpr_selectors().get(&1), Some(&(6 * SEC)));
        o.recompute(6 * SEC - 1);
        assert!(o.mpr_selectors().contains_key(&1));
        o.recompute(6 * SEC);
        assert!(o.mpr_selectors().is_empty());
        assert!(o.is_sym(1, 6 * SEC), "the link itself lasts until 8 s");
        // Chosen again, then the link declared lost: the selector goes with it.
        hear(&mut o, 7 * SEC, 1, hello(&[], &[0], &[], &[]));
        assert_eq!(o.mpr_selectors().get(&1), Some(&(13 * SEC)));
        hear(&mut o, 8 * SEC, 1, hello(&[], &[], &[], &[0]));
        assert!(o.mpr_selectors().is_empty());
    }

    /// RFC 3626 8.2.1: every two-hop neighbour a HELLO lists as symmetric
    /// (SYM_NEIGH or MPR_NEIGH) is created or refreshed on its own, one it
    /// lists as not a neighbour is removed, and one it stops listing
    /// expires by its time. This node itself is never a two-hop neighbour.
    #[test]
    fn two_hop_neighbours_are_refreshed_and_removed_one_by_one() {
        let mut o = node(0, false);
        hear(&mut o, 0, 1, hello(&[0, 2], &[3], &[], &[]));
        assert_eq!(o.two_hop_via(1), BTreeMap::from([(2, 6 * SEC), (3, 6 * SEC)]));
        assert_eq!(o.routes(), [(1, 1, 1), (2, 1, 2), (3, 1, 2)]);
        // 3 no longer listed: kept until its time.
        hear(&mut o, 2 * SEC, 1, hello(&[0, 2], &[], &[], &[]));
        assert_eq!(o.two_hop_via(1), BTreeMap::from([(2, 8 * SEC), (3, 6 * SEC)]));
        assert_eq!(o.routes(), [(1, 1, 1), (2, 1, 2), (3, 1, 2)]);
        o.recompute(6 * SEC);
        assert_eq!(o.two_hop_via(1), BTreeMap::from([(2, 8 * SEC)]));
        assert_eq!(o.routes(), [(1, 1, 1), (2, 1, 2)]);
        // Listed as NOT_NEIGH (ASYM_LINK, LOST_LINK): removed at once.
        hear(&mut o, 7 * SEC, 1, hello(&[0, 4], &[], &[2], &[]));
        assert_eq!(o.two_hop_via(1), BTreeMap::from([(4, 13 * SEC)]));
        hear(&mut o, 8 * SEC, 1, hello(&[0], &[], &[], &[4]));
        assert!(o.two_hop_via(1).is_empty());
        assert_eq!(o.routes(), [(1, 1, 1)]);
    }

    /// RFC 3626 6.2, 7.1.1: a link that was symmetric is kept (L_time) the
    /// hold time beyond its symmetry, and advertised as LOST_LINK once its
    /// symmetric and heard times have run out; one only ever heard is kept
    /// as long as it is heard. The HELLO's size counts the LOST_LINK group.
    #[test]
    fn a_link_gone_silent_is_advertised_as_lost_until_its_tuple_expires() {
        let mut o = node(0, false);
        hear(&mut o, 0, 1, hello(&[0], &[], &[], &[]));
        hear(&mut o, 0, 2, hello(&[], &[], &[], &[]));
        assert_eq!((o.link(1), o.link_kept_until(1)), (Some((6 * SEC, 6 * SEC)), Some(12 * SEC)));
        assert_eq!((o.is_sym(2, 0), o.link_kept_until(2)), (false, Some(6 * SEC)));
        let (h, len) = hello_sent(&mut o, SEC);
        assert_eq!((h.sym, h.heard, h.lost.len()), (vec![1], vec![2], 0));
        assert_eq!(len, UDP_HEADER + HEADERS + 4 + 2 * (4 + 4));
        for at in [6 * SEC, 12 * SEC - 1] {
            let (h, len) = hello_sent(&mut o, at);
            assert_eq!((h.sym.len(), h.mpr.len(), h.heard.len(), h.lost), (0, 0, 0, vec![1]), "at {at}");
            assert_eq!(len, UDP_HEADER + HEADERS + 4 + 4 + 4);
            assert!(o.routes().is_empty());
        }
        let (h, len) = hello_sent(&mut o, 12 * SEC);
        assert!(h.lost.is_empty() && o.link(1).is_none());
        assert_eq!(len, UDP_HEADER + HEADERS + 4);
        let h = Hello { heard: vec![1, 2], sym: vec![3], mpr: vec![], lost: vec![4, 5, 6], willingness: 3 };
        assert_eq!(h.body_len(), 4 + 3 * 4 + 6 * 4);
    }

    /// RFC 3626 7.1.1: a HELLO listing this node with LOST_LINK ends the
    /// link's symmetry at once (it is still heard); one listing it with
    /// ASYM_LINK or SYM_LINK makes it symmetric again.
    #[test]
    fn a_hello_declaring_the_link_lost_ends_its_symmetry() {
        let mut o = node(0, false);
        hear(&mut o, 0, 1, hello(&[0, 2], &[], &[], &[]));
        assert_eq!(o.routes(), [(1, 1, 1), (2, 1, 2)]);
        hear(&mut o, SEC, 1, hello(&[2], &[], &[], &[0]));
        let (asym, sym) = o.link(1).unwrap();
        assert!(asym == 7 * SEC && sym < SEC, "{:?}", o.link(1));
        assert!(o.routes().is_empty() && o.two_hop_via(1).is_empty());
        assert_eq!(hello_sent(&mut o, SEC).0.heard, [1]);
        hear(&mut o, 2 * SEC, 1, hello(&[2], &[], &[0], &[]));
        assert_eq!(o.link(1), Some((8 * SEC, 8 * SEC)));
        assert_eq!(o.link_kept_until(1), Some(14 * SEC));
        assert_eq!(hello_sent(&mut o, 2 * SEC).0.mpr, [1], "symmetric, and the MPR for 2");
    }

    /// RFC 3626 14.2, 14.3: with hysteresis, a link whose quality falls
    /// below the low threshold is pending again and advertised as LOST_LINK
    /// until min(L_time, now + NEIGHB_HOLD_TIME), renewed by every further
    /// missed HELLO; a pending link that never fell below is left out.
    #[test]
    fn with_hysteresis_a_link_below_the_low_threshold_is_advertised_as_lost() {
        let mut o = node(0, true);
        for k in 0..3 {
            hear(&mut o, 2 * k * SEC, 1, hello(&[0], &[], &[], &[]));
        }
        hear(&mut o, 4 * SEC, 2, hello(&[0], &[], &[], &[]));
        assert!(o.link_quality(1).unwrap().quality > 0.8);
        assert!(o.link_quality(2).unwrap().pending);
        let (h, _) = hello_sent(&mut o, 4 * SEC + 1);
        assert_eq!((h.sym, h.heard.len(), h.lost.len()), (vec![1], 0, 0), "2 pending, left out");
        // Two HELLO intervals plus MAXJITTER missed (6.5 s, 9 s): 0.22.
        let (h, _) = hello_sent(&mut o, 9 * SEC);
        let q = o.link_quality(1).unwrap();
        assert!(q.pending && q.quality < 0.3, "{q:?}");
        assert_eq!(q.lost_until, 15 * SEC, "{q:?}");
        // And 2, heard once (0.5) and missed at 6.5 s (0.25), is lost too.
        assert_eq!((h.sym.len(), &h.lost[..]), (0, &[1, 2][..]));
        assert!(o.routes().is_empty());
        // Missed again at 11.5 s and 14 s: lost until the tuple goes (L_time
        // 16 s: symmetric until 10 s, plus the hold time).
        let (h, _) = hello_sent(&mut o, 15 * SEC);
        assert_eq!((o.link_quality(1).unwrap().lost_until, h.lost.contains(&1)), (16 * SEC, true));
        let (h, _) = hello_sent(&mut o, 16 * SEC);
        assert!(h.lost.is_empty() && o.link(1).is_none(), "{h:?}");
    }

    /// RFC 3626 9.3: a node whose MPR selector set becomes empty sends empty
    /// TCs, under a new ANSN, for TOP_HOLD_TIME after it emptied, then
    /// none.
    #[test]
    fn empty_tcs_follow_for_the_hold_time_after_the_selectors_go() {
        let mut o = node(0, false);
        assert!(tc_sent(&mut o, 0).is_none(), "no TC without selectors");
        hear(&mut o, 0, 1, hello(&[], &[0], &[], &[]));
        let first = tc_sent(&mut o, SEC).expect("a TC");
        assert_eq!(first.selectors, [1]);
        hear(&mut o, 2 * SEC, 1, hello(&[0], &[], &[], &[]));
        assert_eq!(tc_sent(&mut o, 3 * SEC).map(|t| (t.ansn, t.selectors)), Some((first.ansn, vec![1])));
        // The selector expires at 6 s, noticed at 6.5 s.
        o.recompute(6 * SEC + SEC / 2);
        for at in [7 * SEC, 12 * SEC, 21 * SEC + SEC / 2 - 1] {
            let tc = tc_sent(&mut o, at).unwrap_or_else(|| panic!("an empty TC at {at}"));
            assert!(tc.selectors.is_empty());
            assert_eq!(tc.ansn, first.ansn.wrapping_add(1));
        }
        assert!(tc_sent(&mut o, 21 * SEC + SEC / 2).is_none());
        assert!(tc_sent(&mut o, 30 * SEC).is_none());
    }

    /// RFC 3626 9.5: a TC whose ANSN is newer than the originator's tuples
    /// replaces them, an empty one leaving none (and the routes through
    /// them go); an older one is ignored.
    #[test]
    fn an_empty_tc_with_a_newer_ansn_withdraws_the_originators_tuples() {
        let mut o = node(0, false);
        hear(&mut o, 0, 1, hello(&[0, 5], &[], &[], &[]));
        let (mut pool, mut out) = (crate::packet::PacketPool::new(), Vec::new());
        let mut tc = |o: &mut Olsr, at: Time, seq: u16, ansn: u16, selectors: &[NodeId]| {
            let m = Tc { orig: 5, seq, ansn, selectors: selectors.to_vec() };
            o.on_tc(at, 1, 255, m, &mut RoutingIo { pool: &mut pool, out: &mut out });
            o.recompute(at);
        };
        tc(&mut o, SEC, 1, 1, &[6, 7]);
        assert_eq!(o.routes(), [(1, 1, 1), (5, 1, 2), (6, 1, 3), (7, 1, 3)]);
        tc(&mut o, 2 * SEC, 2, 2, &[]);
        assert_eq!(o.topology_of(5).map(|t| (t.0, t.1.len())), Some((2, 0)));
        assert_eq!(o.routes(), [(1, 1, 1), (5, 1, 2)]);
        tc(&mut o, 3 * SEC, 3, 1, &[6, 7]);
        assert_eq!(o.routes(), [(1, 1, 1), (5, 1, 2)], "an older ANSN is ignored");
        tc(&mut o, 4 * SEC, 4, 3, &[7]);
        assert_eq!(o.routes(), [(1, 1, 1), (5, 1, 2), (7, 1, 3)]);
        assert_eq!(o.topology_of(5).map(|t| (t.0, t.1.iter().copied().collect::<Vec<_>>())), Some((3, vec![7])));
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
