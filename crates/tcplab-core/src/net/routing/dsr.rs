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
//! forwards. A MAC failure removes the link from the cache; the data
//! packet the MAC gave up on and those queued for the lost neighbour are
//! salvaged: sent on over another cached route if there is one (at most
//! `max_salvage` times per packet, RFC 4728's MAX_SALVAGE_COUNT 15; this
//! node's own are sent again as new), dropped otherwise; then a route
//! error goes back to the first node of the failed packet's route.
//!
//! Route shortening (RFC 4728 3.4.3, ns-2's "gratuitous replies"): the
//! station listens to the data frames it overhears; a node that hears a
//! source-routed packet from a transmitter it appears after by more than
//! one hop sends the source a gratuitous route reply with the hops between
//! them cut out, at most once per (source, transmitter) in a hold-off time
//! (GRAT_REPLY_HOLDOFF, 1 s).
//!
//! Flow state (`flow_state`, off by default; ns-2.35's DSR has it on):
//! the first packets of a flow carry the whole source route and set up a
//! flow at every node on it; the packets after them carry only a flow ID,
//! or no DSR header at all on the (source, destination)'s default flow,
//! and each forwarder looks its next hop up in its flow table
//! (`DsrParams::flow_state`). Forwarders learn no routes from those.
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

// Flow state, with ns-2.35's constants (dsragent.cc, flowstruct.h).
/// A flow unused this long is over at its source (`default_flow_timeout`).
const FLOW_TIMEOUT: Time = 60 * SEC;
/// The source carries the whole route again on a packet this long after
/// it last did (`min_adv_interval`), so that a node that missed the
/// flow's set-up learns it.
const FLOW_READVERTISE: Time = 5 * SEC;
/// Packets after the first that carry the whole route (`END_TO_END_COUNT`).
const END_TO_END_COUNT: u32 = 2;
/// Bytes of the flow ID header, and of the flow timeout option that a
/// packet setting up a flow carries too (ns-2.35's `hdr_sr::size`).
const FLOW_HDR: u32 = 4;
const FLOW_TIMEOUT_OPT: u32 = 4;

/// Bytes a source route adds to a packet: the fixed header, the option
/// header and one address per intermediate node (4 more bytes per hop).
/// Bytes a request carries beyond its request option: a gratuitous route
/// error.
fn rreq_extra(rq: &Rreq) -> u32 {
    if rq.grat_error.is_some() {
        RERR_OPTION
    } else {
        0
    }
}

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
    /// Flow state as ns-2.35's DSR (dsragent.cc `dsragent_enable_flowstate`,
    /// on there; Hu and Johnson's implicit source routes): after a flow's
    /// first packets, data packets carry a flow ID, or nothing on the
    /// default flow, instead of the source route. Forwarders then learn no
    /// routes from them. Off (the default): RFC 4728, every data packet
    /// carries its source route.
    pub flow_state: bool,
    /// Time between the packets a route reply releases from the send
    /// buffer: 0 (the default), all at once; ns-2.35 spaces them by its
    /// ARP timeout, 30 ms (dsragent.cc acceptRouteReply, "to give ARP
    /// time to complete").
    pub release_spacing: Time,
    /// ns-2.35's NEW_SALVAGE_LOGIC: a forwarder that cannot salvage a data
    /// packet over a cached route keeps it in its own send buffer and
    /// starts one cycle of discovery for it, non-propagating requests
    /// only (`dsr_salvage_max_requests` = 1,
    /// `dsr_salvage_allow_propagating` = 0); when the next cycle would
    /// begin, the packet is dropped. False (the default): it is dropped
    /// at once (RFC 4728 8.4.6 salvages only over a cached route).
    pub salvage_discovery: bool,
    /// ns-2.35's cache learning (routecache.cc `pre_noticeRouteUsed`,
    /// dsragent.cc): a node learns from a source route it forwards or
    /// overhears only the part from itself on (not the way back), and
    /// from an overheard one it is not on the link to the transmitter and
    /// the rest of the route after it; from a route request only the
    /// target (or a node answering from its cache) learns the way back; a
    /// node passing a reply on learns the way to the requester only; an
    /// overheard route error removes the link (route shortening's
    /// gratuitous replies still learn both ways). False (the default): a node
    /// learns both directions of what it forwards and of every request
    /// and reply it handles, and nothing from what it overhears. With it
    /// a route error also removes only the link in the direction it names
    /// (mobicache.cc `noticeDeadLink`), where the default removes both
    /// directions (802.11 needs a link both ways).
    pub ns2_cache: bool,
    /// ns-2.35's gratuitous route errors (dsragent.cc
    /// `dsragent_propagate_last_error`, on there): a source that received
    /// a route error puts the broken link on the next route requests it
    /// sends within `GRAT_ERROR_HOLD` (1 s; until a propagating one has
    /// carried it), and every node that receives such a request removes
    /// the link from its cache before it answers or passes the request
    /// on. False (the default): RFC 4728 leaves it optional and tcplab
    /// does not.
    pub grat_route_errors: bool,
    /// ns-2.35's send-buffer checks (dsragent.cc `SendBufferTimer`,
    /// BUFFER_CHECK): a node looks at its send buffer at times `T` +
    /// U(0, `T`) apart, and only then takes a discovery step that has
    /// fallen due (the propagating request, the next cycle) and sends a
    /// waiting packet whose destination its cache has learnt meanwhile;
    /// a packet of the node's own entering the buffer still starts or
    /// steps its discovery at once (getRouteForPacket), while one
    /// salvaged into it (`salvage_discovery`) starts its discovery at the
    /// next check (ns-2's undeliverablePkt only puts it in the buffer). 0
    /// (the default): steps are taken when due, a salvaged packet's
    /// discovery starts at once, and only a route reply frees packets.
    /// ns-2.35: 30 ms.
    pub buffer_check: Time,
    /// ns-2.35's jitter of a node's own requests and of a target's
    /// replies (dsragent.cc: every request leaves through
    /// `sendOutPacketWithRoute` with U(0, RREQ_JITTER), and
    /// `returnSrcRouteToRequestor` waits U(0, RREQ_JITTER)): they wait
    /// U(0, `jitter`) like forwarded requests. False (the default): only
    /// forwarded requests are jittered (RFC 4728 8.2.2 asks it of them).
    pub jitter_own: bool,
    /// ns-2.35's size accounting: the TCP packets a node originates carry
    /// 20 more bytes (`ns2_extra_ip_header`) beside their DSR header (in
    /// its MAC trace a 1500-byte segment on a default flow is a 1520-byte
    /// packet, one carrying a two-hop route 1540); off by default.
    pub ns2_ip_header: bool,
    /// ns-2.35's size of a route request: its header counts the addresses
    /// after the first, and each forwarder adds the whole DSR header of
    /// the request it sends to the size of the one it received
    /// (`sendOutPacketWithRoute` adds `srh->size()` and nothing took the
    /// previous hop's off), so the request grows by 12 + 4 x (nodes
    /// recorded - 1) bytes a hop, 16 more with a gratuitous route error,
    /// instead of 4 (its trace: 32, 48, 68, 92 bytes from the source to
    /// the third forwarder); off by default.
    pub ns2_request_size: bool,
    /// ns-2.35's route reply size (`hdr_sr::size()`): the reply's source
    /// route back (4 + 4 x (nodes - 1)), then 5 + 4 bytes per node of the
    /// route it returns, the requester included, rounded up to 4 bytes.
    /// False (the default): RFC 4728's, the reply option (3 + 4 per node
    /// after the requester, on a 4-byte boundary) and the source route
    /// option back (4 + 4 per intermediate node). A reply of a 3-hop
    /// route from its target: 40 bytes against 32, with the 4-byte DSR
    /// header.
    pub ns2_reply_size: bool,
    /// ns-2.35's target answers every copy of a route request that reaches
    /// it, each along the path that copy took (`handlePacketReceipt` with
    /// `dsragent_reply_only_to_first_rtreq = false`), so the requester and
    /// the nodes the replies pass learn several routes from one flood.
    /// False (the default): the target answers the first copy only, as
    /// every other node handles a request once.
    pub reply_to_every_copy: bool,
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
            flow_state: false,
            release_spacing: 0,
            salvage_discovery: false,
            ns2_cache: false,
            grat_route_errors: false,
            buffer_check: 0,
            jitter_own: false,
            ns2_ip_header: false,
            ns2_request_size: false,
            ns2_reply_size: false,
            reply_to_every_copy: false,
        }
    }
}

/// A data packet's DSR header: its source route, or (flow state) its
/// flow, and how often it was salvaged.
#[derive(Clone, Debug)]
struct SrcRoute {
    /// The source route carried; empty on a packet that carries only its
    /// flow.
    route: Vec<NodeId>,
    /// Flow state: the flow the packet belongs to (with a route: the flow
    /// it sets up).
    flow: Option<FlowTag>,
    salvaged: u8,
    born: Time,
}

/// A packet's flow (flow state).
#[derive(Clone, Copy, Debug, PartialEq)]
struct FlowTag {
    id: u16,
    /// The flow ID is carried (4 bytes); false: the packet has no DSR
    /// header at all and goes on the default flow of its (source,
    /// destination), recognised by its TTL.
    header: bool,
}

/// A flow known at a node (ns-2.35's flow table entry).
#[derive(Clone, Debug)]
struct FlowEntry {
    src: NodeId,
    dst: NodeId,
    id: u16,
    next_hop: NodeId,
    /// The flow's whole route: where this node is on it, and the way back
    /// to the source for a route error.
    route: Vec<NodeId>,
    /// At the source, when the flow is over unless used again; every use
    /// extends it (ns-2's `dsragent_always_reestablish`).
    timeout: Time,
    /// The TTL the flow's packets have here (a packet without a header is
    /// on the default flow only if its TTL is this).
    ttl: u8,
    /// Source only: packets sent with the whole route, when the last one
    /// was, and whether the flow may go without a header.
    count: u32,
    last_adv: Time,
    allow_default: bool,
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
    /// A gratuitous route error carried along (`grat_route_errors`): the
    /// link `from -> to` is broken.
    pub grat_error: Option<(NodeId, NodeId)>,
}

/// How long a source keeps a route error it received for its next
/// requests (`grat_route_errors`; ns-2.35's `max_err_hold`).
const GRAT_ERROR_HOLD: Time = SEC;

/// A route error option's size (RFC 4728 6.5, node unreachable: 16 bytes;
/// ns-2.35 counts the same per error).
const RERR_OPTION: u32 = 16;

/// A reply: the whole route from the originator to the target, travelling
/// back along it from `route[sender]`, the node that sent it (the target,
/// a node answering from its cache, or one shortening the route).
#[derive(Clone, Debug)]
pub struct Rrep {
    pub route: Vec<NodeId>,
    pub sender: usize,
}

/// A route error: the link `from -> to` is broken; it travels back along
/// `path` (from the node that found it to the source of the packets).
/// With `unknown_flow` it is an unknown-flow error instead (flow state): a
/// forwarder had no entry for the flow (destination, flow ID; no ID: the
/// default flow) of the source's packet, and no link is broken.
#[derive(Clone, Debug)]
pub struct Rerr {
    pub from: NodeId,
    pub to: NodeId,
    pub path: Vec<NodeId>,
    pub unknown_flow: Option<(NodeId, Option<u16>)>,
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
    /// Packets to send later: forwarded requests after their jitter
    /// (broadcast), packets released from the send buffer after their
    /// spacing (to their next hop).
    delayed: Vec<(Time, PktId, Option<NodeId>)>,
    /// The neighbour whose link the MAC just reported broken, until the
    /// frame it gave up on comes back (`take_back`), which names whom the
    /// route error goes to.
    failed_link: Option<NodeId>,
    /// When this node last sent a gratuitous reply for (source, transmitter).
    grat_sent: BTreeMap<(NodeId, NodeId), Time>,
    /// Flow state: the flows known here, the default flow of each
    /// (source, destination), and the counter flow IDs come from.
    flows: Vec<FlowEntry>,
    default_flows: Vec<(NodeId, NodeId, u16)>,
    flow_counter: u16,
    /// `grat_route_errors`: the broken link of the last route error this
    /// node received as the source, and when.
    held_error: Option<(NodeId, NodeId, Time)>,
    /// `buffer_check`: the next send-buffer check (the run of checks
    /// from time 0, advanced lazily while the buffer is empty).
    next_check: Time,
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
            failed_link: None,
            grat_sent: BTreeMap::new(),
            flows: Vec::new(),
            default_flows: Vec::new(),
            flow_counter: 0,
            held_error: None,
            next_check: 0,
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
        let both_ways = !self.p.ns2_cache;
        for path in self.cache.iter_mut() {
            if let Some(i) =
                path.windows(2).position(|w| (w[0] == a && w[1] == b) || (both_ways && w[0] == b && w[1] == a))
            {
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

    /// The route request option's bytes with `recorded` nodes on its
    /// record: 8 + 4 per node after the initiator (RFC 4728 6.2: the
    /// initiator is the packet's IP source and is not listed; ns-2.35's
    /// header counts the same), and a gratuitous route error if it
    /// carries one.
    fn rreq_option_len(&self, recorded: usize, rq: &Rreq) -> u32 {
        8 + PER_ADDR * (recorded - 1) as u32 + rreq_extra(rq)
    }

    /// A route reply's bytes (after the 4-byte DSR header) for `route`
    /// sent back from `route[sender]` (see `ns2_reply_size`). The size
    /// is set by the sender and kept to the requester.
    fn rrep_len(&self, route: &[NodeId], sender: usize) -> u32 {
        let nodes = route.len() as u32;
        let back = PER_ADDR * sender as u32;
        if self.p.ns2_reply_size {
            // hdr_sr::size() less its SR_HDR_SZ, which `message` adds.
            (FIXED + back + 5 + PER_ADDR * nodes).next_multiple_of(4) - FIXED
        } else {
            // Reply option on a 4-byte boundary (3 + 4n and its pad);
            // source route option: 4 + 4 per node between the two ends.
            4 + PER_ADDR * (nodes - 1) + OPT_HEAD + PER_ADDR * (sender as u32 - 1)
        }
    }

    fn send_request(&mut self, now: Time, target: NodeId, ttl: u8, io: &mut RoutingIo) {
        self.req_id += 1;
        // The last route error received rides along (ns-2.35's
        // sendOutRtReq) until a propagating request has carried it.
        let grat_error = self.held_error.filter(|e| now < e.2 + GRAT_ERROR_HOLD).map(|(a, b, _)| (a, b));
        if ttl > 1 {
            self.held_error = None;
        }
        let rq = Rreq { id: self.req_id, target, record: vec![self.me], grat_error };
        self.seen.insert((self.me, rq.id), now + self.p.max_request_period);
        let len = self.rreq_option_len(1, &rq);
        let pkt = self.message(now, BROADCAST, (kind::RREQ, len), ttl, Box::new(rq), io);
        self.send_jittered(now, pkt, None, io);
    }

    /// Send a message now, or with `jitter_own` after U(0, `jitter`).
    fn send_jittered(&mut self, now: Time, pkt: PktId, next_hop: Option<NodeId>, io: &mut RoutingIo) {
        if self.p.jitter_own {
            let at = now + (self.rng.uniform() * self.p.jitter as f64) as Time;
            self.delayed.push((at, pkt, next_hop));
        } else {
            io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop });
        }
    }

    /// `buffer_check`: move the run of checks past `now` (one draw per
    /// check, as ns-2's timer reschedules itself).
    fn advance_checks(&mut self, now: Time) {
        let t = self.p.buffer_check;
        while self.next_check <= now {
            self.next_check += t + (self.rng.uniform() * t as f64) as Time;
        }
    }

    /// Start or repeat the discovery for `dst` if its time has come.
    fn discover(&mut self, now: Time, dst: NodeId, io: &mut RoutingIo) {
        if self.p.salvage_discovery && !self.own_waiting(dst, io) {
            return self.discover_for_others(now, dst, io);
        }
        match self.discoveries.get(&dst).copied() {
            None => {
                self.stats.discoveries += 1;
                self.send_request(now, dst, 1, io);
                let next_try = now + self.p.nonprop_timeout;
                let d = Discovery { next_try, period: 0, cycle_start: now, cycles: 1, limited: true };
                self.discoveries.insert(dst, d);
            }
            Some(d) if d.next_try <= now && self.p.ns2_request_backoff => {
                // (BackOffTest comes first in ns-2's getRouteForPacket: a
                // cycle left unfinished long ago, its packets freed, gives
                // way to a new cycle when that is due.)
                let cycle_due = now >= d.cycle_start.saturating_add(self.ns2_cycle_wait(d.cycles));
                let d = if d.limited && !cycle_due {
                    // The cycle's propagating request. The next cycle
                    // starts request_period x 4^cycles after this one did
                    // (BackOffTest, with `cycles` its rt_reqs_outstanding).
                    self.send_request(now, dst, 255, io);
                    let next_try = (d.cycle_start + self.ns2_cycle_wait(d.cycles)).max(now);
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

    /// ns-2's time from the start of a request cycle to the next after
    /// `cycles` cycles (BackOffTest: `request_period` x 4^cycles, at most
    /// `max_request_period`).
    fn ns2_cycle_wait(&self, cycles: u32) -> Time {
        self.p.request_period.saturating_mul(1 << (2 * cycles.min(15))).min(self.p.max_request_period)
    }

    /// How often packet `uid` was salvaged (0 if it has no header here).
    fn salvaged(&self, uid: u64) -> u8 {
        self.headers.lock().expect("DSR header store").map.get(&uid).map_or(0, |h| h.salvaged)
    }

    /// Whether a packet of this node's own waits for `dst`.
    fn own_waiting(&self, dst: NodeId, io: &RoutingIo) -> bool {
        self.buffer.iter().any(|&(p, d, _)| d == dst && io.pool.get(p).ip.src == self.me)
    }

    /// The discovery for packets of others salvaged into the buffer
    /// (`salvage_discovery`, ns-2.35's getRouteForPacket for p.src !=
    /// net_id): one non-propagating request; no propagating one. With
    /// ns-2's schedule, when the next cycle is due (0.5 x 4 = 2 s later)
    /// one waiting packet is dropped instead of a request, and so on each
    /// cycle (ns-2.35 drops one per cycle; the others wait on, up to
    /// `buffer_timeout`). With RFC 4728's, when the propagating request
    /// would go, every packet waiting for `dst` is dropped.
    fn discover_for_others(&mut self, now: Time, dst: NodeId, io: &mut RoutingIo) {
        match self.discoveries.get(&dst).copied() {
            None => {
                self.stats.discoveries += 1;
                self.send_request(now, dst, 1, io);
                let wait = if self.p.ns2_request_backoff { 4 * self.p.request_period } else { self.p.nonprop_timeout };
                let d = Discovery { next_try: now + wait, period: 0, cycle_start: now, cycles: 1, limited: false };
                self.discoveries.insert(dst, d);
            }
            Some(d) if d.next_try <= now && self.p.ns2_request_backoff => {
                if let Some(i) = self.buffer.iter().position(|b| b.1 == dst) {
                    let (pkt, _, _) = self.buffer.remove(i).expect("a held packet");
                    self.stats.drops_discovery_failed += 1;
                    io.out.push(RoutingAction::DropHeld(pkt));
                }
                let cycles = d.cycles + 1;
                let next_try = now + self.ns2_cycle_wait(cycles);
                self.discoveries.insert(dst, Discovery { next_try, cycle_start: now, cycles, ..d });
            }
            // RFC 4728's schedule: the one request is spent, the packets
            // waiting for `dst` are dropped.
            Some(d) if d.next_try <= now => {
                super::drop_held_for(&mut self.buffer, dst, &mut self.stats, io.out);
                self.discoveries.remove(&dst);
            }
            _ => {}
        }
    }

    /// ns-2.35's tap (`ns2_cache`): what an overheard packet teaches. A
    /// source route this node is on, from here on (not when it is the next
    /// hop: it receives the packet anyway); one it is not on, the link to
    /// the transmitter and the route after it; a reply: the route it
    /// carries, from here on if this node is on it, and then the reply's
    /// own source route like any other (dsragent.cc `tap`: the reply path,
    /// then `noticeRouteUsed` on the packet's route); a route error, the
    /// broken link.
    fn tap(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        let p = io.pool.get(pkt);
        let LinkHeader::Mac { tx, .. } = p.l2 else { return };
        if let Transport::Control(c) = p.l4 {
            let Some(blob) = c.blob.filter(|_| c.proto == PROTO_DSR) else { return };
            if c.kind == kind::RERR {
                if let Some(re) = io.pool.blob::<Rerr>(blob).filter(|r| r.unknown_flow.is_none()).cloned() {
                    self.link_down(now, re.from, re.to);
                }
            } else if c.kind == kind::RREP {
                let route = io.pool.blob::<Rrep>(blob).map(|r| r.route.clone()).unwrap_or_default();
                if let Some(i) = route.iter().position(|&n| n == self.me) {
                    self.learn(route[i..].to_vec());
                }
                // The reply travels back along the route's beginning: from
                // its transmitter the rest of its way is `route[..=t]`
                // reversed, to the requester.
                if let Some(t) = route.iter().position(|&n| n == tx) {
                    let rest: Vec<NodeId> = route[..=t].iter().rev().copied().collect();
                    self.learn_overheard(&rest);
                }
            }
            return;
        }
        let uid = p.uid;
        let route = self.headers.lock().expect("DSR header store").map.get(&uid).map(|h| h.route.clone());
        let Some(route) = route.filter(|r| r.len() >= 2) else { return };
        let Some(t) = route.iter().position(|&n| n == tx) else { return };
        match route.iter().position(|&n| n == self.me) {
            Some(m) if m == t + 1 => {}
            Some(m) => self.learn(route[m..].to_vec()),
            None => self.learn(std::iter::once(self.me).chain(route[t..].iter().copied()).collect()),
        }
    }

    /// What an overheard packet's remaining source route `rest` (its
    /// transmitter first) teaches: from here on if this node is on it
    /// further along (not as the next hop, which receives the packet
    /// anyway), else the link to the transmitter and the route after it.
    fn learn_overheard(&mut self, rest: &[NodeId]) {
        if rest.len() < 2 {
            return;
        }
        match rest.iter().position(|&n| n == self.me) {
            Some(1) => {}
            Some(m) => self.learn(rest[m..].to_vec()),
            None => self.learn(std::iter::once(self.me).chain(rest.iter().copied()).collect()),
        }
    }

    /// Put a source route on packet `id` and say where it goes first.
    fn attach(&mut self, now: Time, id: PktId, route: Vec<NodeId>, salvaged: u8, io: &mut RoutingIo) -> NodeId {
        self.stamp(now, id, route, None, salvaged, io)
    }

    /// Put DSR's header on packet `id` going along `route` and say where
    /// it goes first: the source route, or with `flow` (flow state) the
    /// flow too, and with `flow` saying the route is not carried, only the
    /// flow.
    fn stamp(
        &mut self,
        now: Time,
        id: PktId,
        route: Vec<NodeId>,
        flow: Option<(FlowTag, bool)>,
        salvaged: u8,
        io: &mut RoutingIo,
    ) -> NodeId {
        let p = io.pool.get_mut(id);
        let old = p.ip.options_len;
        let new = match flow {
            None => source_route_len(&route),
            Some((_, true)) => source_route_len(&route) + (FLOW_TIMEOUT_OPT + FLOW_HDR) as u16,
            Some((tag, false)) => {
                if tag.header {
                    FLOW_HDR as u16
                } else {
                    0
                }
            }
        } + if self.p.ns2_ip_header { super::ns2_extra_ip_header(p) } else { 0 };
        p.size = p.size - old as u32 + new as u32;
        p.ip.options_len = new;
        let uid = p.uid;
        let next = route[1];
        let mut h = self.headers.lock().expect("DSR header store");
        if h.map.len() > 4096 && now >= h.last_purge + 10 * SEC {
            // Headers of packets long gone (delivered or dropped elsewhere).
            let keep = now.saturating_sub(self.p.buffer_timeout * 2);
            h.map.retain(|_, r| r.born >= keep);
            h.last_purge = now;
        }
        let (route, flow) = match flow {
            Some((tag, false)) => (Vec::new(), Some(tag)),
            f => (route, f.map(|f| f.0)),
        };
        h.map.insert(uid, SrcRoute { route, flow, salvaged, born: now });
        next
    }

    /// Send a packet of this node's own along `route`: with flow state, on
    /// the route's flow (set up, or its route advertised again, when due).
    fn attach_own(&mut self, now: Time, id: PktId, route: Vec<NodeId>, io: &mut RoutingIo) -> NodeId {
        if !self.p.flow_state || !matches!(io.pool.get(id).l4, Transport::Tcp(_) | Transport::Udp(_)) {
            return self.attach(now, id, route, 0, io);
        }
        let (me, dst, ttl) = (self.me, *route.last().expect("a route"), io.pool.get(id).ip.ttl);
        // The default flow's route if it is no longer than the cache's
        // (dsragent_prefer_default_flow, prefer_shorter_over_default).
        let mut route = route;
        if let Some(e) = self.default_flow(me, dst).and_then(|f| self.find_flow(me, dst, f)).map(|i| &self.flows[i]) {
            if e.timeout >= now && e.route.len() <= route.len() {
                route.clone_from(&e.route);
            }
        }
        let i = match self.flows.iter().rposition(|e| e.src == me && e.dst == dst && e.route == route) {
            Some(i) if self.flows[i].timeout >= now => i,
            _ => {
                let id = self.next_flow_id();
                let next_hop = route[1];
                self.add_flow(
                    now,
                    FlowEntry {
                        src: me,
                        dst,
                        id,
                        next_hop,
                        route: route.clone(),
                        timeout: now + FLOW_TIMEOUT,
                        ttl,
                        count: 0,
                        last_adv: now,
                        allow_default: true,
                    },
                )
            }
        };
        let default = self.default_flow(me, dst);
        let e = &mut self.flows[i];
        let carry = e.count < 1 + END_TO_END_COUNT || e.last_adv + FLOW_READVERTISE < now;
        if carry {
            if e.ttl != ttl {
                e.allow_default = false;
            }
            e.count += 1;
            e.last_adv = now;
        }
        e.timeout = now + FLOW_TIMEOUT;
        let header = carry || default != Some(e.id) || e.ttl != ttl || !e.allow_default;
        let tag = FlowTag { id: e.id, header };
        self.stamp(now, id, route, Some((tag, carry)), 0, io)
    }

    // ---- flow state -----------------------------------------------------

    fn find_flow(&self, src: NodeId, dst: NodeId, id: u16) -> Option<usize> {
        self.flows.iter().rposition(|e| e.src == src && e.dst == dst && e.id == id)
    }

    /// The entry of the flow a packet of (`src`, `dst`) tagged `tag` is on:
    /// its flow ID, or without a header the default flow.
    fn flow_of(&self, src: NodeId, dst: NodeId, tag: FlowTag) -> Option<usize> {
        if tag.header {
            self.find_flow(src, dst, tag.id)
        } else {
            self.default_flow(src, dst).and_then(|f| self.find_flow(src, dst, f))
        }
    }

    fn default_flow(&self, src: NodeId, dst: NodeId) -> Option<u16> {
        self.default_flows.iter().find(|d| d.0 == src && d.1 == dst).map(|d| d.2)
    }

    /// A new flow ID of this source: odd, so that the flow may be the
    /// default one (ns-2's `generateNextFlowId(dst, true)`).
    fn next_flow_id(&mut self) -> u16 {
        if self.flow_counter & 1 == 0 {
            self.flow_counter = self.flow_counter.wrapping_add(1);
        }
        let id = self.flow_counter;
        self.flow_counter = self.flow_counter.wrapping_add(1);
        id
    }

    /// Enter a flow (an odd ID newer than the pair's default becomes the
    /// default) and return its index. Flows over for a whole timeout go
    /// (ns-2.35 keeps them for ever; none of them can be used again).
    fn add_flow(&mut self, now: Time, e: FlowEntry) -> usize {
        self.flows.retain(|f| f.timeout.saturating_add(FLOW_TIMEOUT) >= now);
        let live = &self.flows;
        self.default_flows.retain(|d| live.iter().any(|f| (f.src, f.dst, f.id) == (d.0, d.1, d.2)));
        if e.id & 1 == 1 {
            match self.default_flows.iter_mut().find(|d| d.0 == e.src && d.1 == e.dst) {
                Some(d) if (e.id.wrapping_sub(d.2) as i16) > 0 => d.2 = e.id,
                Some(_) => {}
                None => self.default_flows.push((e.src, e.dst, e.id)),
            }
        }
        self.flows.push(e);
        self.flows.len() - 1
    }

    /// The link `from -> to` is broken: the cache forgets it and the flows
    /// over it end (ns-2 tells its route cache and its flow table).
    fn link_down(&mut self, now: Time, from: NodeId, to: NodeId) {
        self.forget_link(from, to);
        self.end_flows_over(now, from, to);
    }

    /// The link `from -> to` is broken: this node's own flows over it are
    /// over (ns-2's `FlowTable::noticeDeadLink`).
    fn end_flows_over(&mut self, now: Time, from: NodeId, to: NodeId) {
        for e in self.flows.iter_mut().filter(|e| e.src == self.me && e.timeout >= now) {
            if e.route.windows(2).any(|w| w == [from, to]) {
                e.timeout = now.saturating_sub(1);
            }
        }
    }

    /// Forward a packet that carries only its flow: the next hop from the
    /// flow table, or, for a flow not known here, an unknown-flow error to
    /// the source and the packet salvaged over a cached route if there is
    /// one.
    fn forward_flow(&mut self, now: Time, id: PktId, tag: FlowTag, io: &mut RoutingIo) -> Route {
        let p = io.pool.get(id);
        let (src, dst, ttl, uid) = (p.ip.src, p.ip.dst, p.ip.ttl, p.uid);
        // A packet without a header is on the default flow only with its TTL.
        let found = self.flow_of(src, dst, tag).filter(|&i| tag.header || self.flows[i].ttl == ttl);
        if let Some(i) = found {
            let e = &mut self.flows[i];
            e.timeout = now + FLOW_TIMEOUT;
            return Route::Forward { dev: self.dev, next_hop: e.next_hop };
        }
        if let Some(path) = self.cached(src) {
            let next = path[1];
            let flow = Some((dst, tag.header.then_some(tag.id)));
            self.send_rerr(now, next, Rerr { from: self.me, to: self.me, path, unknown_flow: flow }, io);
        }
        let salvaged = self.salvaged(uid);
        match self.cached(dst) {
            Some(route) if salvaged < self.p.max_salvage => {
                self.stats.extra[SALVAGED] += 1;
                let next_hop = self.attach(now, id, route, salvaged + 1, io);
                Route::Forward { dev: self.dev, next_hop }
            }
            _ => {
                self.stats.drops_no_route += 1;
                Route::Drop
            }
        }
    }

    /// Keep a packet of this node's own in the send buffer (the oldest
    /// goes when it is full) and discover a route to `dst`.
    fn hold(&mut self, now: Time, id: PktId, dst: NodeId, io: &mut RoutingIo) {
        self.park(now, id, dst, io);
        self.discover(now, dst, io);
    }

    /// Keep a packet in the send buffer without a discovery step (the next
    /// send-buffer check takes it).
    fn park(&mut self, now: Time, id: PktId, dst: NodeId, io: &mut RoutingIo) {
        if self.p.buffer_check > 0 && self.buffer.is_empty() {
            self.advance_checks(now);
        }
        super::hold_packet(&mut self.buffer, self.p.buffer_len, id, dst, now, &mut self.stats, io.out);
    }

    /// Send the buffered packets a route reply (for `target`) gave a
    /// route, each `release_spacing` after the one before. With ns-2's
    /// schedule the reply resets only its target's request state
    /// (acceptRouteReply); the other destinations' backoff goes on.
    fn release(&mut self, now: Time, target: NodeId, io: &mut RoutingIo) {
        if self.p.ns2_request_backoff {
            self.discoveries.remove(&target);
        }
        self.send_buffered(now, self.p.release_spacing, io);
    }

    /// A send-buffer check's sends (`buffer_check`): every waiting packet
    /// whose destination the cache knows goes at once.
    fn send_cached(&mut self, now: Time, io: &mut RoutingIo) {
        self.send_buffered(now, 0, io);
    }

    /// Send the buffered packets the cache has a route for, `spacing`
    /// apart.
    fn send_buffered(&mut self, now: Time, spacing: Time, io: &mut RoutingIo) {
        let mut kept = VecDeque::with_capacity(self.buffer.len());
        let mut at = now;
        for (pkt, dst, since) in std::mem::take(&mut self.buffer) {
            match self.cached(dst) {
                Some(route) => {
                    if !self.p.ns2_request_backoff {
                        self.discoveries.remove(&dst);
                    }
                    let next = if io.pool.get(pkt).ip.src == self.me {
                        self.attach_own(now, pkt, route, io)
                    } else {
                        // A packet salvaged into the buffer: on, over the
                        // route from here, its salvage count kept.
                        let salvaged = self.salvaged(io.pool.get(pkt).uid);
                        self.attach(now, pkt, route, salvaged, io)
                    };
                    if at == now {
                        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(next) });
                    } else {
                        self.delayed.push((at, pkt, Some(next)));
                    }
                    at += spacing;
                }
                None => kept.push_back((pkt, dst, since)),
            }
        }
        self.buffer = kept;
    }

    /// A route request heard (`received_len`: its DSR bytes on the wire).
    fn on_rreq(&mut self, now: Time, ttl: u8, rq: Rreq, received_len: u32, io: &mut RoutingIo) {
        let orig = rq.record[0];
        if orig == self.me || rq.record.contains(&self.me) {
            return;
        }
        let again = self.seen.contains_key(&(orig, rq.id));
        if again && !(self.p.reply_to_every_copy && rq.target == self.me) {
            return;
        }
        self.seen.entry((orig, rq.id)).or_insert(now + self.p.max_request_period);
        let mut record = rq.record.clone();
        record.push(self.me);
        // The way back to the originator.
        let mut back = record.clone();
        back.reverse();
        if !self.p.ns2_cache {
            self.learn(back.clone());
        }
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
            if self.p.ns2_cache {
                // (ns-2: returnSrcRouteToRequestor, replyFromRouteCache.)
                self.learn(back.clone());
            }
            let prev = back[1];
            // This node is the last of the record, the route's node
            // `record.len() - 1`.
            let sender = record.len() - 1;
            let len = self.rrep_len(&route, sender);
            let pkt = self.message(now, prev, (kind::RREP, len), 255, Box::new(Rrep { route, sender }), io);
            if rq.target == self.me {
                // (A reply from the cache goes at once, in ns-2 too.)
                self.send_jittered(now, pkt, Some(prev), io);
            } else {
                io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(prev) });
            }
            return;
        }
        if ttl <= 1 || record.len() >= self.p.max_route_len {
            return;
        }
        let option = self.rreq_option_len(record.len(), &rq);
        let len = if self.p.ns2_request_size { received_len + option } else { option };
        let pkt = self.message(now, BROADCAST, (kind::RREQ, len), ttl - 1, Box::new(Rreq { record, ..rq }), io);
        let at = now + (self.rng.uniform() * self.p.jitter as f64) as Time;
        self.delayed.push((at, pkt, None));
    }

    /// A route reply heard (`received_len`: its DSR bytes on the wire,
    /// which it keeps on the way back).
    fn on_rrep(&mut self, now: Time, rp: Rrep, received_len: u32, io: &mut RoutingIo) {
        match rp.route.iter().position(|&n| n == self.me) {
            // ns-2: the requester takes the route; a node passing the
            // reply on snoops the reply's own source route, the way back.
            Some(i) if self.p.ns2_cache && i > 0 => self.learn(rp.route[..=i].iter().rev().copied().collect()),
            _ => self.learn_around(&rp.route),
        }
        let Some(i) = rp.route.iter().position(|&n| n == self.me) else { return };
        if i == 0 {
            let target = *rp.route.last().expect("a route");
            self.release(now, target, io);
            return;
        }
        let prev = rp.route[i - 1];
        let pkt = self.message(now, prev, (kind::RREP, received_len - FIXED), 255, Box::new(rp), io);
        io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop: Some(prev) });
    }

    fn on_rerr(&mut self, now: Time, re: Rerr, io: &mut RoutingIo) {
        if re.unknown_flow.is_none() {
            self.link_down(now, re.from, re.to);
        }
        let Some(i) = re.path.iter().position(|&n| n == self.me) else { return };
        if self.p.grat_route_errors && re.unknown_flow.is_none() && i + 1 == re.path.len() {
            self.held_error = Some((re.from, re.to, now));
        }
        // An unknown-flow error at the flow's source: its next packets set
        // the flow up again (ns-2's processUnknownFlowError).
        if let Some((dst, id)) = re.unknown_flow.filter(|_| i + 1 == re.path.len()) {
            let id = id.or_else(|| self.default_flow(self.me, dst));
            if let Some(k) = id.and_then(|id| self.find_flow(self.me, dst, id)) {
                self.flows[k].count = 0;
            }
        }
        if i + 1 < re.path.len() {
            let next = re.path[i + 1];
            self.send_rerr(now, next, re, io);
        }
    }

    /// The way from this node back to the first node of packet `id`'s
    /// source route (the source, the node that salvaged it, or the sender
    /// of a route reply or error), if that is another node: where a route
    /// error about the packet's next link goes. A data packet's route is
    /// in the header store, or with flow state in the flow's entry here.
    fn way_back(&self, id: PktId, io: &RoutingIo) -> Option<Vec<NodeId>> {
        let p = io.pool.get(id);
        let path = match p.l4 {
            Transport::Control(c) => match (c.proto, c.kind, c.blob) {
                (PROTO_DSR, kind::RREP, Some(b)) => {
                    io.pool.blob::<Rrep>(b).map(|rp| rp.route[..=rp.sender].iter().rev().copied().collect())
                }
                (PROTO_DSR, kind::RERR, Some(b)) => io.pool.blob::<Rerr>(b).map(|re| re.path.clone()),
                _ => None,
            },
            _ => {
                let (src, dst) = (p.ip.src, p.ip.dst);
                let h = self.headers.lock().expect("DSR header store");
                let h = h.map.get(&p.uid)?;
                if !h.route.is_empty() {
                    Some(h.route.clone())
                } else {
                    // A packet on its flow alone: the flow's route.
                    self.flow_of(src, dst, h.flow?).map(|i| self.flows[i].route.clone())
                }
            }
        }?;
        let i = path.iter().position(|&n| n == self.me)?;
        let back: Vec<NodeId> = path[..=i].iter().rev().copied().collect();
        (back.len() >= 2).then_some(back)
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
                    // A gratuitous route error is taken before the request
                    // is answered or passed on (ns-2.35's recv snoops it),
                    // by the target after its reply (handlePacketReceipt).
                    let (grat, target) = (rq.grat_error, rq.target == self.me);
                    if let Some((a, b)) = grat.filter(|_| !target) {
                        self.link_down(now, a, b);
                    }
                    self.on_rreq(now, p.ip.ttl, rq, c.len, io);
                    if let Some((a, b)) = grat.filter(|_| target) {
                        self.link_down(now, a, b);
                    }
                }
            }
            kind::RREP => {
                if let Some(rp) = io.pool.blob::<Rrep>(blob).cloned() {
                    self.on_rrep(now, rp, c.len, io);
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
                let next_hop = self.attach_own(now, id, route, io);
                return Route::Forward { dev: self.dev, next_hop };
            }
            self.hold(now, id, dst, io);
            return Route::Hold;
        }
        // A forwarder follows the source route in the packet, or its flow.
        let header = self.headers.lock().expect("DSR header store").map.get(&uid).map(|h| (h.route.clone(), h.flow));
        let Some((route, flow)) = header else {
            self.stats.drops_no_route += 1;
            return Route::Drop;
        };
        if route.is_empty() {
            if let Some(tag) = flow {
                return self.forward_flow(now, id, tag, io);
            }
        }
        let Some(i) = route.iter().position(|&n| n == self.me).filter(|&i| i + 1 < route.len()) else {
            self.stats.drops_no_route += 1;
            return Route::Drop;
        };
        // A packet setting up a flow: the flow's entry here, unless known.
        if let Some(tag) = flow.filter(|t| self.find_flow(src, dst, t.id).is_none()) {
            let ttl = io.pool.get(id).ip.ttl;
            let e = FlowEntry {
                src,
                dst,
                id: tag.id,
                next_hop: route[i + 1],
                route: route.clone(),
                timeout: now + FLOW_TIMEOUT,
                ttl,
                count: 0,
                last_adv: 0,
                allow_default: false,
            };
            self.add_flow(now, e);
        }
        if self.p.ns2_cache {
            self.learn(route[i..].to_vec());
        } else {
            self.learn_around(&route);
        }
        let next_hop = route[i + 1];
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

    /// The link is forgotten here; the route error waits for the frame
    /// the MAC gave up on (`take_back`, which the world calls next).
    fn on_link_failure(&mut self, now: Time, _dev: DevId, neighbor: NodeId, _io: &mut RoutingIo) {
        self.link_down(now, self.me, neighbor);
        self.failed_link = Some(neighbor);
    }

    fn flushes_on_link_failure(&self) -> bool {
        true
    }

    fn salvages(&self) -> bool {
        true
    }

    /// The failed frame and the packets queued for the lost neighbour are
    /// salvaged or dropped, then a route error goes to the node that put
    /// the failed packet on its route (ns-2.35's `xmitFailed`, in that
    /// order; RFC 4728 8.4.1: the packet's source, or the node that
    /// salvaged it), along that route back.
    fn take_back(&mut self, now: Time, failed: Option<PktId>, queued: Vec<PktId>, io: &mut RoutingIo) {
        let error = match (self.failed_link.take(), failed) {
            (Some(to), Some(f)) => self.way_back(f, io).map(|back| (to, back)),
            _ => None,
        };
        let pkts = failed.map(|f| (f, true)).into_iter().chain(queued.into_iter().map(|q| (q, false)));
        for (id, was_failed) in pkts {
            let (src, dst, uid, data) = {
                let p = io.pool.get(id);
                (p.ip.src, p.ip.dst, p.uid, !matches!(p.l4, Transport::Control(_)))
            };
            let salvaged = self.salvaged(uid);
            // Salvage a data packet: on over another cached route (the
            // broken link is already forgotten), its salvage count raised.
            // Route replies and errors are not salvaged. (ns-2.35 puts a
            // reply of the node's own whose link failed back in its send
            // buffer and discovers a route for it: about one a run at a
            // 6-hop chain's busiest relay; not followed.)
            match self.cached(dst) {
                // This node's own packet is sent again as new, over its
                // new route (or flow): not a salvage, whatever the salvage
                // limit (ns-2.35's undeliverablePkt: handlePktWithoutSR).
                Some(route) if data && src == self.me => {
                    let next = self.attach_own(now, id, route, io);
                    io.out.push(RoutingAction::Send { pkt: id, dev: self.dev, next_hop: Some(next) });
                }
                Some(route) if data && salvaged < self.p.max_salvage => {
                    let next = self.attach(now, id, route, salvaged + 1, io);
                    self.stats.extra[SALVAGED] += 1;
                    io.out.push(RoutingAction::Send { pkt: id, dev: self.dev, next_hop: Some(next) });
                }
                // A packet of this node's own without another route waits
                // in the send buffer for a new discovery (ns-2.35 as well).
                None if data && src == self.me && self.p.rebuffer_own => self.hold(now, id, dst, io),
                // Someone else's: ns-2.35 keeps it for one cycle of
                // non-propagating requests (`salvage_discovery`), which
                // its next send-buffer check starts (`buffer_check`).
                None if data && src != self.me && self.p.salvage_discovery && salvaged < self.p.max_salvage => {
                    if self.p.buffer_check > 0 {
                        self.park(now, id, dst, io);
                    } else {
                        self.hold(now, id, dst, io);
                    }
                }
                _ if was_failed => io.out.push(RoutingAction::DropFailed(id)),
                _ => io.out.push(RoutingAction::DropBroken(id)),
            }
        }
        if let Some((to, back)) = error {
            self.stats.route_errors += 1;
            let re = Rerr { from: self.me, to, path: back, unknown_flow: None };
            self.send_rerr(now, re.path[1], re, io);
        }
    }

    fn listens(&self) -> bool {
        self.p.grat_replies || self.p.ns2_cache
    }

    fn on_overheard(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        if self.p.ns2_cache {
            self.tap(now, pkt, io);
        }
        if !self.p.grat_replies {
            return;
        }
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
        // This node follows the transmitter in the shortened route.
        let sender = t + 1;
        let len = self.rrep_len(&short, sender);
        let reply = self.message(now, tx, (kind::RREP, len), 255, Box::new(Rrep { route: short, sender }), io);
        io.out.push(RoutingAction::Send { pkt: reply, dev: self.dev, next_hop: Some(tx) });
    }

    fn deadline(&self) -> Option<Time> {
        let mut d = self.delayed.iter().map(|x| x.0).min();
        let mut at = |t: Time| d = Some(d.map_or(t, |x| x.min(t)));
        if self.p.buffer_check > 0 {
            if !self.buffer.is_empty() {
                at(self.next_check);
            }
        } else {
            for (dst, disc) in &self.discoveries {
                if self.buffer.iter().any(|b| b.1 == *dst) {
                    at(disc.next_try);
                }
            }
        }
        if let Some(&(_, _, since)) = self.buffer.front() {
            at(since.saturating_add(self.p.buffer_timeout));
        }
        d
    }

    fn on_timer(&mut self, now: Time, io: &mut RoutingIo) {
        let due = super::take_due(&mut self.delayed, now, |x| x.0);
        for (_, pkt, next_hop) in due {
            io.out.push(RoutingAction::Send { pkt, dev: self.dev, next_hop });
        }
        super::expire_held(&mut self.buffer, now, self.p.buffer_timeout, &mut self.stats, io.out);
        if self.p.buffer_check > 0 {
            if now < self.next_check {
                return;
            }
            self.advance_checks(now);
            // ns-2's sendBufferCheck: every waiting packet through
            // handlePktWithoutSR, in buffer order: sent if the cache now
            // has a route, else its discovery stepped if due.
            self.send_cached(now, io);
        }
        let due = |dst: &NodeId, d: &Discovery| d.next_try <= now && self.buffer.iter().any(|b| b.1 == *dst);
        let mut waiting: Vec<NodeId> =
            self.discoveries.iter().filter(|(dst, d)| due(dst, d)).map(|(&x, _)| x).collect();
        if self.p.buffer_check > 0 {
            // A packet parked without a discovery (one salvaged into the
            // buffer) starts its discovery now.
            for &(_, dst, _) in &self.buffer {
                if !self.discoveries.contains_key(&dst) && !waiting.contains(&dst) {
                    waiting.push(dst);
                }
            }
            // ns-2's check goes through the buffer in order.
            let first = |dst: &NodeId| self.buffer.iter().position(|b| b.1 == *dst);
            waiting.sort_by_key(first);
        }
        for dst in waiting {
            self.discover(now, dst, io);
        }
        // Discoveries nobody waits for any more are over.
        let buffer = &self.buffer;
        // (ns-2's request table keeps an entry's backoff until a reply
        // for its destination, whether or not packets still wait.)
        if !self.p.ns2_request_backoff {
            self.discoveries.retain(|dst, d| d.next_try > now || buffer.iter().any(|b| b.1 == *dst));
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

    /// `ns2_request_size`: a route request passed along the chain 0-1-2-3
    /// grows by the whole DSR header at each forwarder (ns-2.35's trace:
    /// 32, 48, 68, 92 bytes with the IP header), by 4 bytes a hop without
    /// (RFC 4728 6.2: 8 bytes and the addresses recorded after the
    /// initiator, which is not listed).
    #[test]
    fn ns2_request_size_adds_the_whole_header_at_each_forwarder() {
        // DSR bytes on the wire (the fixed 4 included): the source's
        // request, then each forwarder's.
        for (ns2, want) in [(true, vec![12, 28, 48, 72]), (false, vec![12, 16, 20, 24])] {
            let p = DsrParams { ns2_request_size: ns2, ..DsrParams::default() };
            let headers = SharedHeaders::default();
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let mut rq = Rreq { id: 1, target: 9, record: vec![0], grat_error: None };
            let mut lens = vec![want[0]];
            for me in 1..=3 {
                let mut d = Dsr::new(me, 0, p, headers.clone(), crate::engine::stream_rng(1, "test"));
                d.on_rreq(0, 10, rq.clone(), *lens.last().unwrap(), &mut RoutingIo { pool: &mut pool, out: &mut out });
                let (_, pkt, _) = d.delayed.pop().expect("the request passed on");
                let Transport::Control(c) = pool.get(pkt).l4 else { panic!("a DSR message") };
                lens.push(c.len);
                rq = pool.blob::<Rreq>(c.blob.unwrap()).unwrap().clone();
            }
            assert_eq!(lens, want, "ns2_request_size {ns2}");
        }
    }

    /// `ns2_ip_header`: the TCP packets a source sends carry 20 bytes
    /// beside their DSR header (the route, or nothing on a default flow),
    /// UDP packets only their DSR header.
    #[test]
    fn ns2_ip_header_adds_twenty_bytes_to_own_tcp_packets() {
        let route: Vec<NodeId> = (0..=2).collect();
        for flow_state in [false, true] {
            let p = DsrParams { ns2_ip_header: true, flow_state, ..DsrParams::default() };
            let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            dsr.learn(route.clone());
            let mut pool = PacketPool::new();
            let mut out = Vec::new();
            let mut sent = Vec::new();
            for (k, l4) in [Transport::Tcp(TcpHeader::default()), Transport::Udp(Default::default())]
                .into_iter()
                .cycle()
                .take(10)
                .enumerate()
            {
                let id = pool.insert(Packet::new(0, 0, 2, l4, 20, 1000, 0));
                dsr.route(k as Time * MS, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
                let q = pool.get(id);
                sent.push((q.ip.options_len, q.size - 1040));
            }
            let full = source_route_len(&route) + if flow_state { 8 } else { 0 };
            // Flow state: the first three packets carry the route, then the
            // default flow carries none.
            let dsr_bytes = |k: usize| if flow_state && k >= 3 { 0 } else { full };
            for (k, &(opts, extra)) in sent.iter().enumerate() {
                let want = dsr_bytes(k) + if k % 2 == 0 { 20 } else { 0 };
                assert_eq!((opts, extra), (want, want as u32), "flow_state {flow_state}, packet {k}");
            }
        }
    }

    /// Flow state, packet by packet on the chain 0-1-2-3-4 (ns-2.35's
    /// dsragent.cc): the source's first packet and the two after it carry
    /// the source route with the flow's timeout option and ID (8 bytes
    /// more); then the packets go on the default flow with no DSR header at
    /// all, and every 5 s one carries the route again. A forwarder that saw
    /// the route keeps the flow and sends its flow-only packets to its next
    /// hop; one that never saw it answers with an unknown-flow error to the
    /// source, which then carries the route again.
    #[test]
    fn flow_state_carries_the_route_only_while_the_flow_is_set_up() {
        let p = DsrParams { flow_state: true, ..DsrParams::default() };
        let headers = SharedHeaders::default();
        let rng = || crate::engine::stream_rng(1, "test");
        let mut src = Dsr::new(0, 0, p, headers.clone(), rng());
        let mut fwd = Dsr::new(2, 0, p, headers.clone(), rng());
        let mut late = Dsr::new(2, 0, p, headers.clone(), rng());
        let route: Vec<NodeId> = (0..=4).collect();
        src.learn(route.clone());
        late.learn(vec![2, 1, 0]);
        let mut pool = PacketPool::new();
        let mut out = Vec::new();
        let send = |src: &mut Dsr, pool: &mut PacketPool, out: &mut Vec<RoutingAction>, at: Time| {
            let pkt = Packet::new(0, 0, 4, Transport::Udp(Default::default()), 8, 512, at);
            let id = pool.insert(pkt);
            assert_eq!(src.route(at, id, &mut RoutingIo { pool, out }), Route::Forward { dev: 0, next_hop: 1 });
            id
        };
        let with_route = source_route_len(&route) + 8;
        let mut sizes = Vec::new();
        for k in 0..5 {
            let id = send(&mut src, &mut pool, &mut out, k * 100 * MS);
            sizes.push(pool.get(id).ip.options_len);
            // Two hops on, the TTL the forwarder sees.
            pool.get_mut(id).ip.ttl -= 1;
            let r = fwd.route(k * 100 * MS, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(r, Route::Forward { dev: 0, next_hop: 3 }, "packet {k}");
            if k == 4 {
                // A forwarder that missed the set-up: an unknown-flow error
                // back to the source, and the packet dropped (no other route).
                let r = late.route(k * 100 * MS, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
                assert_eq!(r, Route::Drop);
            }
        }
        assert_eq!(sizes, vec![with_route, with_route, with_route, 0, 0]);
        let err = out.pop().expect("the unknown-flow error");
        let RoutingAction::Send { pkt, next_hop: Some(1), .. } = err else { panic!("{err:?}") };
        let Transport::Control(c) = pool.get(pkt).l4 else { panic!("a DSR message") };
        let re = pool.blob::<Rerr>(c.blob.unwrap()).unwrap().clone();
        assert_eq!((re.path.clone(), re.unknown_flow), (vec![2, 1, 0], Some((4, None))));
        assert!(out.is_empty(), "the flow-only packets gave no other action");
        // The source, told, sets the flow up again.
        src.on_rerr(SEC, re, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let id = send(&mut src, &mut pool, &mut out, SEC);
        assert_eq!(pool.get(id).ip.options_len, with_route);
        // The route on the two packets after the set-up's first, then
        // flow-only, then the route once more over 5 s after it last went.
        let mut sizes = Vec::new();
        for t in [2 * SEC, 3 * SEC, 6 * SEC, 8 * SEC + SEC / 2] {
            let id = send(&mut src, &mut pool, &mut out, t);
            sizes.push(pool.get(id).ip.options_len);
        }
        assert_eq!(sizes, vec![with_route, with_route, 0, with_route]);
        // A broken link on the flow's route ends it: a new flow, set up anew.
        src.on_link_failure(9 * SEC, 0, 1, &mut RoutingIo { pool: &mut pool, out: &mut out });
        src.learn(route.clone());
        let before = src.default_flow(0, 4);
        let id = send(&mut src, &mut pool, &mut out, 9 * SEC);
        assert_eq!(pool.get(id).ip.options_len, with_route);
        assert_ne!(src.default_flow(0, 4), before, "a new default flow");
        // Off, every packet carries its source route.
        let mut rfc = Dsr::new(0, 0, DsrParams::default(), headers, rng());
        rfc.learn(route.clone());
        for k in 0..4 {
            let id = send(&mut rfc, &mut pool, &mut out, k * SEC);
            assert_eq!(pool.get(id).ip.options_len, source_route_len(&route));
        }
    }

    /// Packets waiting in the send buffer go when a route reply comes:
    /// all at once by default, `release_spacing` apart with it (ns-2.35:
    /// 30 ms), the later ones from the protocol's timer.
    #[test]
    fn a_route_reply_releases_the_send_buffer_spaced_as_asked() {
        for spacing in [0, 30 * MS] {
            let p = DsrParams { release_spacing: spacing, ..DsrParams::default() };
            let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            let mut pool = PacketPool::new();
            let mut out = Vec::new();
            let held: Vec<PktId> = (0..3)
                .map(|_| {
                    let pkt = Packet::new(0, 0, 2, Transport::Udp(Default::default()), 8, 512, 0);
                    let id = pool.insert(pkt);
                    assert_eq!(dsr.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out }), Route::Hold);
                    id
                })
                .collect();
            out.clear(); // the discovery's request
            let at = SEC;
            dsr.on_rrep(
                at,
                Rrep { route: vec![0, 1, 2], sender: 2 },
                0,
                &mut RoutingIo { pool: &mut pool, out: &mut out },
            );
            let mut sent: Vec<(Time, PktId)> = Vec::new();
            let mut take = |t: Time, out: &mut Vec<RoutingAction>| {
                for a in out.drain(..) {
                    let RoutingAction::Send { pkt, next_hop: Some(1), .. } = a else { panic!("{a:?}") };
                    sent.push((t, pkt));
                }
            };
            take(at, &mut out);
            while let Some(t) = dsr.deadline().filter(|&t| t < at + SEC) {
                dsr.on_timer(t, &mut RoutingIo { pool: &mut pool, out: &mut out });
                take(t, &mut out);
            }
            let want: Vec<(Time, PktId)> =
                held.iter().enumerate().map(|(k, &id)| (at + k as Time * spacing, id)).collect();
            assert_eq!(sent, want, "spacing {spacing}");
        }
    }

    /// What a node's cache learns, by default and with ns-2.35's rules
    /// (`ns2_cache`): from a source route it forwards, both ways or only
    /// onward; from a request it passes on, the way back or nothing; from
    /// what it overhears, nothing or the onward part (the link to the
    /// transmitter first when it is not on the route); an overheard route
    /// error removes the link either way with `ns2_cache`.
    #[test]
    fn ns2_cache_learns_only_onward_and_from_what_it_overhears() {
        for ns2 in [false, true] {
            let p = DsrParams { ns2_cache: ns2, grat_replies: false, ..DsrParams::default() };
            let headers = SharedHeaders::default();
            let rng = || crate::engine::stream_rng(1, "test");
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            // A source-routed packet 0 -> 4 through 1, 2, 3.
            let mut src = Dsr::new(0, 0, DsrParams::default(), headers.clone(), rng());
            src.learn(vec![0, 1, 2, 3, 4]);
            let id = pool.insert(Packet::new(0, 0, 4, Transport::Udp(Default::default()), 8, 512, 0));
            src.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            // Node 2 forwards it.
            let mut fwd = Dsr::new(2, 0, p, headers.clone(), rng());
            fwd.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(fwd.cached(4), Some(vec![2, 3, 4]));
            assert_eq!(fwd.cached(0), (!ns2).then(|| vec![2, 1, 0]), "ns2 {ns2}");
            // Node 2 passes on a request of node 0's for node 9.
            let mut mid = Dsr::new(2, 0, p, headers.clone(), rng());
            mid.on_rreq(
                0,
                5,
                Rreq { id: 1, target: 9, record: vec![0, 1], grat_error: None },
                16,
                &mut RoutingIo { pool: &mut pool, out: &mut out },
            );
            assert_eq!(mid.cached(0), (!ns2).then(|| vec![2, 1, 0]), "ns2 {ns2}");
            // Node 5, off the route, overhears node 1 sending the packet on.
            let mut ear = Dsr::new(5, 0, p, headers.clone(), rng());
            pool.get_mut(id).l2 = LinkHeader::Mac { tx: 1, rx: 2, kind: 0, len: 0 };
            ear.on_overheard(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(ear.cached(4), ns2.then(|| vec![5, 1, 2, 3, 4]), "ns2 {ns2}");
            // Node 1, on the route behind the transmitter, overhears node 2
            // sending it on to 3: the onward part from itself.
            let mut behind = Dsr::new(1, 0, p, headers.clone(), rng());
            pool.get_mut(id).l2 = LinkHeader::Mac { tx: 2, rx: 3, kind: 0, len: 0 };
            behind.on_overheard(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(behind.cached(4), ns2.then(|| vec![1, 2, 3, 4]), "ns2 {ns2}");
            // ... and node 1's route error for the link 2 -> 3, heard by
            // node 5 knowing a route over that link either way.
            ear.learn(vec![5, 1, 2, 3, 4]);
            let re = Rerr { from: 2, to: 3, path: vec![2, 1, 0], unknown_flow: None };
            let err = src.message(
                0,
                0,
                (kind::RERR, 24),
                255,
                Box::new(re),
                &mut RoutingIo { pool: &mut pool, out: &mut out },
            );
            pool.get_mut(err).l2 = LinkHeader::Mac { tx: 1, rx: 0, kind: 0, len: 0 };
            ear.on_overheard(0, err, &mut RoutingIo { pool: &mut pool, out: &mut out });
            let left = if ns2 { vec![5, 1, 2] } else { vec![5, 1, 2, 3, 4] };
            assert_eq!(ear.cached(4), (!ns2).then(|| left.clone()), "ns2 {ns2}");
            assert_eq!(ear.cached(2), Some(vec![5, 1, 2]), "ns2 {ns2}");
        }
    }

    /// What a node sends over `span` after `from`, driving its timer as
    /// the world would: (time, TTL) of each request, (time, packet) of
    /// the other sends, and the times its timer fired.
    type Driven = (Vec<(Time, u8)>, Vec<(Time, PktId)>, Vec<Time>);

    fn drive(dsr: &mut Dsr, pool: &mut PacketPool, from: Time, span: Time) -> Driven {
        let (mut reqs, mut others, mut wakes, mut out) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        while let Some(t) = dsr.deadline().filter(|&t| t < from + span) {
            wakes.push(t);
            dsr.on_timer(t, &mut RoutingIo { pool, out: &mut out });
            for a in out.drain(..) {
                match a {
                    RoutingAction::Send { pkt, next_hop: None, .. } => reqs.push((t, pool.get(pkt).ip.ttl)),
                    RoutingAction::Send { pkt, .. } => others.push((t, pkt)),
                    a => panic!("{a:?}"),
                }
            }
        }
        (reqs, others, wakes)
    }

    /// ns-2.35's send-buffer checks (`buffer_check`): the node looks at
    /// its buffer 30-60 ms apart. A packet held at 1 s sends its
    /// non-propagating request at once; the propagating one goes at the
    /// first check at least 30 ms later (not exactly 30 ms later, as
    /// without checks), and the next cycle at the first check 2 s after
    /// the first; a route learnt meanwhile by other means than a reply
    /// frees the packet at the next check.
    #[test]
    fn buffer_checks_take_due_steps_and_send_newly_cached_packets() {
        for check in [0, 30 * MS] {
            let p = DsrParams { buffer_check: check, ns2_request_backoff: true, ..DsrParams::default() };
            let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let id = pool.insert(Packet::new(0, 0, 9, Transport::Udp(Default::default()), 8, 512, 0));
            assert_eq!(dsr.route(SEC, id, &mut RoutingIo { pool: &mut pool, out: &mut out }), Route::Hold);
            assert!(matches!(out[..], [RoutingAction::Send { next_hop: None, .. }]), "{out:?}");
            let (reqs, _, wakes) = drive(&mut dsr, &mut pool, SEC, 3 * SEC);
            let (prop, next_cycle) = (reqs[0], reqs[1]);
            assert_eq!(prop.1, 255, "check {check}: {reqs:?}");
            assert_eq!(next_cycle.1, 1, "check {check}: {reqs:?}");
            if check == 0 {
                assert_eq!((prop.0, next_cycle.0), (SEC + 30 * MS, SEC + 2 * SEC));
            } else {
                for w in wakes.windows(2) {
                    assert!(w[1] - w[0] >= check && w[1] - w[0] < 2 * check, "{wakes:?}");
                }
                let first_after = |t: Time| *wakes.iter().find(|&&w| w >= t).unwrap();
                assert_eq!(prop.0, first_after(SEC + 30 * MS + 1));
                assert_eq!(next_cycle.0, first_after(3 * SEC));
            }
            // A route learnt (not from a reply) frees the packet at the
            // next check; without checks only a reply would.
            dsr.add_route(vec![0, 1, 9]);
            let (_, sent, _) = drive(&mut dsr, &mut pool, 4 * SEC, SEC);
            assert_eq!(sent.iter().map(|x| x.1).collect::<Vec<_>>(), if check > 0 { vec![id] } else { vec![] });
        }
    }

    /// A packet of node 5 for 9 that relay 0 failed to pass on and has no
    /// other route for is kept for a discovery of its own
    /// (`salvage_discovery`). Without send-buffer checks its
    /// non-propagating request goes at once; with them (ns-2.35's
    /// undeliverablePkt only puts it in the buffer) at the first check.
    #[test]
    fn a_salvaged_packets_discovery_waits_for_the_next_buffer_check() {
        for check in [0, 30 * MS] {
            let p = DsrParams {
                buffer_check: check,
                ns2_request_backoff: true,
                salvage_discovery: true,
                ..DsrParams::default()
            };
            let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let id = pool.insert(Packet::new(0, 5, 9, Transport::Udp(Default::default()), 8, 512, 0));
            dsr.take_back(SEC, Some(id), Vec::new(), &mut RoutingIo { pool: &mut pool, out: &mut out });
            let requests_now = out.iter().filter(|a| matches!(a, RoutingAction::Send { next_hop: None, .. })).count();
            assert_eq!(requests_now, usize::from(check == 0), "check {check}: {out:?}");
            let (reqs, _, wakes) = drive(&mut dsr, &mut pool, SEC, 100 * MS);
            if check > 0 {
                assert!(matches!(reqs[..], [(t, 1)] if t == wakes[0] && t >= SEC + check), "{reqs:?} {wakes:?}");
            } else {
                assert!(reqs.is_empty(), "{reqs:?}");
            }
            assert_eq!(dsr.buffer.len(), 1, "the packet waits");
        }
    }

    /// ns-2.35's request table (`ns2_request_backoff`): a destination's
    /// backoff outlives packets freed by a route learnt some other way
    /// and only a reply for it resets it. A packet for 9 held at 1 s has
    /// its cycle's two requests sent, then is freed at a check by a route
    /// added to the cache; a new packet at 1.5 s, the route forgotten
    /// again, waits for the next cycle (3 s); after a reply for 9 the
    /// next packet asks at once.
    #[test]
    fn ns2_request_backoff_is_reset_only_by_a_reply() {
        let p = DsrParams { buffer_check: 30 * MS, ns2_request_backoff: true, ..DsrParams::default() };
        let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
        let (mut pool, mut out) = (PacketPool::new(), Vec::new());
        let send = |dsr: &mut Dsr, pool: &mut PacketPool, at: Time| {
            let id = pool.insert(Packet::new(0, 0, 9, Transport::Udp(Default::default()), 8, 512, 0));
            let mut out = Vec::new();
            let r = dsr.route(at, id, &mut RoutingIo { pool, out: &mut out });
            (r, out.len())
        };
        assert_eq!(send(&mut dsr, &mut pool, SEC), (Route::Hold, 1));
        let (reqs, _, _) = drive(&mut dsr, &mut pool, SEC, 200 * MS);
        assert!(matches!(reqs[..], [(_, 255)]), "the cycle's propagating request: {reqs:?}");
        dsr.add_route(vec![0, 1, 9]);
        let (_, freed, _) = drive(&mut dsr, &mut pool, 1200 * MS, 200 * MS);
        assert_eq!(freed.len(), 1);
        dsr.forget_link(1, 9);
        assert_eq!(send(&mut dsr, &mut pool, 1500 * MS), (Route::Hold, 0), "the backoff runs on");
        let (reqs, _, _) = drive(&mut dsr, &mut pool, 1500 * MS, 2 * SEC);
        assert!(matches!(reqs[..], [(t, 1), ..] if (3 * SEC..3 * SEC + 60 * MS).contains(&t)), "{reqs:?}");
        dsr.on_rrep(
            3100 * MS,
            Rrep { route: vec![0, 1, 9], sender: 2 },
            0,
            &mut RoutingIo { pool: &mut pool, out: &mut out },
        );
        dsr.forget_link(1, 9);
        assert_eq!(send(&mut dsr, &mut pool, 3200 * MS), (Route::Hold, 1), "a reply reset it");
    }

    /// ns-2.35's getRouteForPacket tests the backoff first: a cycle whose
    /// packet was freed before its propagating request went (a route
    /// learnt meanwhile) sends that request with the next packet if it
    /// comes within the cycle's wait (2 s), but starts a new cycle (a
    /// non-propagating request) if it comes later.
    #[test]
    fn an_unfinished_ns2_cycle_gives_way_to_the_next_when_due() {
        for (later, ttl) in [(500 * MS, 255), (3 * SEC, 1)] {
            let p = DsrParams { ns2_request_backoff: true, ..DsrParams::default() };
            let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            let mut pool = PacketPool::new();
            let send = |dsr: &mut Dsr, pool: &mut PacketPool, at: Time| {
                let id = pool.insert(Packet::new(0, 0, 9, Transport::Udp(Default::default()), 8, 512, 0));
                let mut out = Vec::new();
                let r = dsr.route(at, id, &mut RoutingIo { pool, out: &mut out });
                let ttls: Vec<u8> = out
                    .iter()
                    .map(|a| match a {
                        RoutingAction::Send { pkt, .. } => pool.get(*pkt).ip.ttl,
                        a => panic!("{a:?}"),
                    })
                    .collect();
                (r, ttls)
            };
            assert_eq!(send(&mut dsr, &mut pool, SEC), (Route::Hold, vec![1]));
            // The route comes from elsewhere before the propagating request.
            dsr.add_route(vec![0, 1, 9]);
            dsr.release(SEC + 10 * MS, 5, &mut RoutingIo { pool: &mut pool, out: &mut Vec::new() });
            dsr.forget_link(1, 9);
            assert_eq!(send(&mut dsr, &mut pool, SEC + later), (Route::Hold, vec![ttl]), "{later}");
        }
    }

    /// `jitter_own`: a node's own requests and its replies as the target
    /// wait U(0, 10 ms); a reply from its cache does not.
    #[test]
    fn jitter_own_delays_own_requests_and_target_replies() {
        for on in [false, true] {
            let p = DsrParams { jitter_own: on, ..DsrParams::default() };
            let rng = || crate::engine::stream_rng(1, "test");
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let mut src = Dsr::new(0, 0, p, SharedHeaders::default(), rng());
            src.send_request(SEC, 9, 1, &mut RoutingIo { pool: &mut pool, out: &mut out });
            let (reqs, _, _) = drive(&mut src, &mut pool, SEC, SEC);
            let waited = if out.is_empty() { reqs[0].0 - SEC } else { 0 };
            assert_eq!(out.len(), usize::from(!on), "on {on}");
            assert!(waited < 10 * MS && (waited > 0) == on, "on {on}: {waited}");
            out.clear();
            // The target answers; a node with a cached route answers too.
            let rq = Rreq { id: 1, target: 9, record: vec![0], grat_error: None };
            let mut target = Dsr::new(9, 0, p, SharedHeaders::default(), rng());
            target.on_rreq(SEC, 5, rq.clone(), 12, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(out.len(), usize::from(!on), "target, on {on}");
            assert_eq!(target.delayed.len(), usize::from(on), "target, on {on}");
            out.clear();
            let mut cache = Dsr::new(4, 0, p, SharedHeaders::default(), rng());
            cache.learn(vec![4, 9]);
            cache.on_rreq(SEC, 5, rq, 12, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(out.len(), 1, "cache reply, on {on}");
            assert!(cache.delayed.is_empty());
        }
    }

    /// ns-2.35's tap of an overheard route reply (`ns2_cache`): the reply
    /// for the route 0-1-2-3 found by 0 travels 3 -> 2 -> 1 -> 0. When 2
    /// passes it on, node 5 (not on it) learns the link to 2 and the
    /// reply's way on, 5-2-1-0; node 3, which sent it to 2, learns 3-2-1-0
    /// the same way; 1, the next hop, learns nothing from overhearing (it
    /// receives the reply). Without `ns2_cache` nothing is learnt by
    /// overhearing.
    #[test]
    fn an_overheard_reply_teaches_its_own_way_to_the_requester() {
        for ns2 in [false, true] {
            let p = DsrParams { ns2_cache: ns2, grat_replies: false, ..DsrParams::default() };
            let rng = || crate::engine::stream_rng(1, "test");
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let mut sender = Dsr::new(2, 0, p, SharedHeaders::default(), rng());
            let rp = Box::new(Rrep { route: vec![0, 1, 2, 3], sender: 3 });
            let pkt =
                sender.message(SEC, 1, (kind::RREP, 20), 255, rp, &mut RoutingIo { pool: &mut pool, out: &mut out });
            pool.get_mut(pkt).l2 = LinkHeader::Mac { tx: 2, rx: 1, kind: 0, len: 0 };
            for (me, want) in [(5, Some(vec![5, 2, 1, 0])), (3, Some(vec![3, 2, 1, 0])), (1, None)] {
                let mut node = Dsr::new(me, 0, p, SharedHeaders::default(), rng());
                node.on_overheard(SEC, pkt, &mut RoutingIo { pool: &mut pool, out: &mut out });
                let want = if ns2 { want } else { None };
                assert_eq!(node.cached(0), want, "node {me}, ns2_cache {ns2}");
            }
        }
    }

    /// ns-2.35's target answers every copy of a request
    /// (`reply_to_every_copy`), each along its own recorded path; by
    /// default only the first. A node other than the target handles a
    /// request once either way.
    #[test]
    fn the_target_answers_every_copy_of_a_request_or_the_first() {
        for every in [false, true] {
            let p = DsrParams { reply_to_every_copy: every, ..DsrParams::default() };
            let rng = || crate::engine::stream_rng(1, "test");
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let mut target = Dsr::new(9, 0, p, SharedHeaders::default(), rng());
            for record in [vec![0, 1], vec![0, 2, 3], vec![0, 4]] {
                let rq = Rreq { id: 7, target: 9, record, grat_error: None };
                target.on_rreq(SEC, 5, rq, 12, &mut RoutingIo { pool: &mut pool, out: &mut out });
            }
            let replies: Vec<Vec<NodeId>> = out
                .iter()
                .filter_map(|a| match a {
                    RoutingAction::Send { pkt, .. } => {
                        let Transport::Control(c) = pool.get(*pkt).l4 else { return None };
                        pool.blob::<Rrep>(c.blob?).map(|r| r.route.clone())
                    }
                    _ => None,
                })
                .collect();
            let want = if every { vec![vec![0, 1, 9], vec![0, 2, 3, 9], vec![0, 4, 9]] } else { vec![vec![0, 1, 9]] };
            assert_eq!(replies, want, "reply_to_every_copy {every}");
            out.clear();
            let mut relay = Dsr::new(5, 0, p, SharedHeaders::default(), rng());
            for record in [vec![0, 1], vec![0, 4]] {
                let rq = Rreq { id: 7, target: 9, record, grat_error: None };
                relay.on_rreq(SEC, 5, rq, 12, &mut RoutingIo { pool: &mut pool, out: &mut out });
            }
            assert_eq!(relay.delayed.len(), 1, "a relay forwards the first copy only");
        }
    }

    /// A route error removes the link both ways by default and only the
    /// way it names with `ns2_cache` (ns-2.35's noticeDeadLink).
    #[test]
    fn a_broken_link_is_forgotten_both_ways_or_as_named() {
        for ns2 in [false, true] {
            let p = DsrParams { ns2_cache: ns2, ..DsrParams::default() };
            let mut dsr = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            dsr.learn(vec![0, 1, 2, 3]);
            dsr.learn(vec![0, 5, 3, 2, 6]);
            dsr.forget_link(2, 3);
            assert_eq!(dsr.cached(3), Some(vec![0, 5, 3]));
            assert_eq!(dsr.cached(2), Some(vec![0, 1, 2]));
            assert_eq!(dsr.cached(6), ns2.then(|| vec![0, 5, 3, 2, 6]), "ns2 {ns2}");
        }
    }

    /// ns-2.35's gratuitous route errors (`grat_route_errors`): source 0
    /// gets a route error for the link 2 -> 3 at 1 s. Its next requests
    /// carry the link (16 bytes more) until a propagating one has, and
    /// none after 1 s; a neighbour with a cached route over that link
    /// drops it before answering, so it does not answer with it. Off, the
    /// requests carry nothing and the neighbour answers from its cache.
    #[test]
    fn grat_route_errors_ride_on_the_next_requests_and_clean_caches() {
        for on in [false, true] {
            let p = DsrParams { grat_route_errors: on, ..DsrParams::default() };
            let rng = || crate::engine::stream_rng(1, "test");
            let (mut pool, mut out) = (PacketPool::new(), Vec::new());
            let mut src = Dsr::new(0, 0, p, SharedHeaders::default(), rng());
            let re = Rerr { from: 2, to: 3, path: vec![2, 1, 0], unknown_flow: None };
            src.on_rerr(SEC, re, &mut RoutingIo { pool: &mut pool, out: &mut out });
            fn request(src: &mut Dsr, at: Time, ttl: u8, pool: &mut PacketPool) -> (Rreq, u32) {
                let mut out = Vec::new();
                src.send_request(at, 9, ttl, &mut RoutingIo { pool, out: &mut out });
                let Some(RoutingAction::Send { pkt, .. }) = out.pop() else { panic!("no request") };
                let p = pool.get(pkt);
                let Transport::Control(c) = p.l4 else { panic!("not a message") };
                let rq = pool.blob::<Rreq>(c.blob.unwrap()).cloned().unwrap();
                (rq, pool.get(pkt).size)
            }
            let (first, size1) = request(&mut src, SEC + 10 * MS, 1, &mut pool);
            let (second, size2) = request(&mut src, SEC + 50 * MS, 255, &mut pool);
            let (third, size3) = request(&mut src, SEC + 60 * MS, 1, &mut pool);
            let link = on.then_some((2, 3));
            assert_eq!((first.grat_error, second.grat_error, third.grat_error), (link, link, None), "on {on}");
            assert_eq!((size1 - size3, size2 - size3), if on { (16, 16) } else { (0, 0) });
            // A fresh error is not carried once it is a second old.
            let re = Rerr { from: 2, to: 3, path: vec![2, 1, 0], unknown_flow: None };
            src.on_rerr(2 * SEC, re, &mut RoutingIo { pool: &mut pool, out: &mut out });
            assert_eq!(request(&mut src, 3 * SEC, 1, &mut pool).0.grat_error, None);
            // Neighbour 4 knows 4-2-3-9 and hears the first request.
            let mut nb = Dsr::new(4, 0, p, SharedHeaders::default(), rng());
            nb.learn(vec![4, 2, 3, 9]);
            let msg = nb.message(
                0,
                BROADCAST,
                (kind::RREQ, 28),
                1,
                Box::new(first),
                &mut RoutingIo { pool: &mut pool, out: &mut out },
            );
            out.clear();
            let m = *pool.get(msg);
            nb.handle(SEC + 11 * MS, &m, &mut RoutingIo { pool: &mut pool, out: &mut out });
            let replied = out.iter().any(|a| matches!(a, RoutingAction::Send { next_hop: Some(0), .. }));
            assert_eq!(replied, !on, "on {on}");
            assert_eq!(nb.cached(9).is_some(), !on);
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

    /// Relay 1 passes a packet of source 0 (0-1-2-3), then one of source 5
    /// (5-1-2-6), both to node 2. The MAC gives up on the first (0's). The
    /// route error must go back to the failed packet's source, 0 (ns-2.35
    /// xmitFailed: tell_addr = the failed packet's srh->addrs()[0]; RFC 4728
    /// 8.4.5: to the IP source of the packet triggering it), not to 5, whose
    /// packet was the last one routed to 2 (where tcplab sent it until
    /// 2026-12-06).
    #[test]
    fn a_route_error_goes_to_the_first_node_of_the_failed_packets_route() {
        let headers = SharedHeaders::default();
        let (mut pool, mut out) = (PacketPool::new(), Vec::new());
        let mut a = Dsr::new(0, 0, DsrParams::default(), headers.clone(), crate::engine::stream_rng(1, "test"));
        let mut e = Dsr::new(5, 0, DsrParams::default(), headers.clone(), crate::engine::stream_rng(1, "test"));
        let mut relay = Dsr::new(1, 0, DsrParams::default(), headers.clone(), crate::engine::stream_rng(1, "test"));
        a.learn(vec![0, 1, 2, 3]);
        e.learn(vec![5, 1, 2, 6]);
        let p1 = pool.insert(Packet::new(0, 0, 3, Transport::Udp(Default::default()), 8, 512, 0));
        let p2 = pool.insert(Packet::new(1, 5, 6, Transport::Udp(Default::default()), 8, 512, 0));
        a.route(0, p1, &mut RoutingIo { pool: &mut pool, out: &mut out });
        e.route(0, p2, &mut RoutingIo { pool: &mut pool, out: &mut out });
        assert_eq!(
            relay.route(0, p1, &mut RoutingIo { pool: &mut pool, out: &mut out }),
            Route::Forward { dev: 0, next_hop: 2 }
        );
        assert_eq!(
            relay.route(0, p2, &mut RoutingIo { pool: &mut pool, out: &mut out }),
            Route::Forward { dev: 0, next_hop: 2 }
        );
        out.clear();
        // The world's order: on_link_failure, then take_back(failed = p1, queued = [p2]).
        relay.on_link_failure(SEC, 0, 2, &mut RoutingIo { pool: &mut pool, out: &mut out });
        relay.take_back(SEC, Some(p1), vec![p2], &mut RoutingIo { pool: &mut pool, out: &mut out });
        let mut told = Vec::new();
        for act in &out {
            if let RoutingAction::Send { pkt, next_hop: Some(n), .. } = *act {
                if let Transport::Control(c) = pool.get(pkt).l4 {
                    if c.kind == kind::RERR {
                        let re = pool.blob::<Rerr>(c.blob.unwrap()).unwrap().clone();
                        told.push((n, *re.path.last().unwrap()));
                    }
                }
            }
        }
        assert!(told.contains(&(0, 0)), "route error to the failed packet's source 0 via 0; sent: {told:?}");
    }

    /// `max_salvage_count = 0` ("turns salvaging off") must not stop a
    /// source re-sending its OWN packet over another cached route: ns-2.35's
    /// undeliverablePkt hands the source's own packet to handlePktWithoutSR
    /// before it looks at dsragent_salvage_with_cache / the salvage count (until
    /// 2026-12-06 tcplab dropped it: the salvage limit applied to it).
    #[test]
    fn salvage_off_still_resends_own_packets_over_another_route() {
        let p = DsrParams { max_salvage: 0, ..DsrParams::default() };
        let (mut pool, mut out) = (PacketPool::new(), Vec::new());
        let mut src = Dsr::new(0, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
        src.learn(vec![0, 1, 3]);
        src.learn(vec![0, 2, 4, 3]);
        let id = pool.insert(Packet::new(0, 0, 3, Transport::Udp(Default::default()), 8, 512, 0));
        assert_eq!(
            src.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out }),
            Route::Forward { dev: 0, next_hop: 1 }
        );
        src.on_link_failure(SEC, 0, 1, &mut RoutingIo { pool: &mut pool, out: &mut out });
        out.clear();
        src.take_back(SEC, Some(id), Vec::new(), &mut RoutingIo { pool: &mut pool, out: &mut out });
        assert!(
            out.iter().any(|a| matches!(a, RoutingAction::Send { pkt, next_hop: Some(2), .. } if *pkt == id)),
            "own packet re-sent over 0-2-4-3; got {out:?}"
        );
    }

    /// A source re-sending its own packet over another route after a link
    /// failure is not a salvage (ns-2.35: handlePktWithoutSR, no Ssalv trace,
    /// salvage count unchanged; RFC 4728 8.4.6 salvaging is by an
    /// intermediate node): `dsr_salvaged` must stay 0 and the header's
    /// salvage count 0.
    #[test]
    fn an_own_packet_sent_again_is_not_a_salvage() {
        let (mut pool, mut out) = (PacketPool::new(), Vec::new());
        let headers = SharedHeaders::default();
        let mut src = Dsr::new(0, 0, DsrParams::default(), headers.clone(), crate::engine::stream_rng(1, "test"));
        src.learn(vec![0, 1, 3]);
        src.learn(vec![0, 2, 4, 3]);
        let id = pool.insert(Packet::new(0, 0, 3, Transport::Udp(Default::default()), 8, 512, 0));
        src.route(0, id, &mut RoutingIo { pool: &mut pool, out: &mut out });
        src.on_link_failure(SEC, 0, 1, &mut RoutingIo { pool: &mut pool, out: &mut out });
        src.take_back(SEC, Some(id), Vec::new(), &mut RoutingIo { pool: &mut pool, out: &mut out });
        let uid = pool.get(id).uid;
        assert_eq!((src.stats.extra[SALVAGED], src.salvaged(uid)), (0, 0));
    }

    /// Sizes (RFC 4728 6.2, 6.3, 6.7): a target's route reply over 3 hops
    /// (route 0-1-2-3) carries the fixed header (4), the Route Reply option
    /// (3 + 4 x 3 addresses, the requester is the IP destination and not
    /// listed: 15, padded 16) and, to travel 3 hops, a Source Route option
    /// (4 + 4 x 2 intermediate nodes = 12): 32 bytes (ns-2.35 hdr_sr::size():
    /// 40 with `ns2_reply_size`). Until 2026-12-06 tcplab counted 24: no
    /// source route for the reply's way back. A node passing the reply on
    /// keeps its size; a reply from a cache counts the way back from the
    /// node that sent it.
    #[test]
    fn route_replies_count_their_source_route_back() {
        let (mut pool, mut out) = (PacketPool::new(), Vec::new());
        let mut target =
            Dsr::new(3, 0, DsrParams::default(), SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
        let rq = Rreq { id: 1, target: 3, record: vec![0, 1, 2], grat_error: None };
        target.on_rreq(0, 250, rq, 24, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let RoutingAction::Send { pkt, next_hop: Some(2), .. } = out[0] else { panic!("{out:?}") };
        let Transport::Control(c) = pool.get(pkt).l4 else { panic!() };
        assert_eq!(c.len, 32, "RFC size of a 3-hop route reply");
        let rp = pool.blob::<Rrep>(c.blob.unwrap()).unwrap().clone();
        let mut relay =
            Dsr::new(2, 0, DsrParams::default(), SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
        out.clear();
        relay.on_rrep(0, rp, c.len, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let RoutingAction::Send { pkt, next_hop: Some(1), .. } = out[0] else { panic!("{out:?}") };
        let Transport::Control(c) = pool.get(pkt).l4 else { panic!() };
        assert_eq!(c.len, 32, "passed on at the same size");
        for (ns2, want) in [(false, [32, 28]), (true, [40, 36])] {
            let p = DsrParams { ns2_reply_size: ns2, ..DsrParams::default() };
            let node = |me| Dsr::new(me, 0, p, SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
            // The target's reply, then 2's from its cache (route 0-1-2-3, sent back over 2 hops).
            assert_eq!(FIXED + node(3).rrep_len(&[0, 1, 2, 3], 3), want[0], "ns2_reply_size {ns2}");
            assert_eq!(FIXED + node(2).rrep_len(&[0, 1, 2, 3], 2), want[1], "ns2_reply_size {ns2}");
        }
        // A source's own request: the fixed header and 8 bytes, no address.
        let mut src =
            Dsr::new(0, 0, DsrParams::default(), SharedHeaders::default(), crate::engine::stream_rng(1, "test"));
        out.clear();
        src.send_request(0, 3, 1, &mut RoutingIo { pool: &mut pool, out: &mut out });
        let RoutingAction::Send { pkt, .. } = out[0] else { panic!("{out:?}") };
        let Transport::Control(c) = pool.get(pkt).l4 else { panic!() };
        assert_eq!(c.len, 12, "RFC 4728 6.2: the initiator is not listed");
    }
}
