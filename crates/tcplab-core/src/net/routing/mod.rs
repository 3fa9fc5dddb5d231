//! Routing: one protocol instance per node behind the `Routing` trait. The
//! world asks it where a packet goes (`route`) and tells it what it needs to
//! know (control packets addressed to it, link failures from the MAC, its
//! timer). Like devices, a routing protocol is sans-IO: it returns what to
//! send and when it wants its timer, and never touches the event queue.
//!
//! Static shortest-path routing (`static_routes`) and the ad hoc protocols
//! (`aodv`, `dsdv`, `dsr`, `olsr`) implement the same trait; `gateway` is
//! a wired-cum-wireless base station's: its cell over the radio, the rest
//! over its links.

pub mod aodv;
pub mod dsdv;
pub mod dsr;
pub mod gateway;
pub mod olsr;
pub mod shortest;
pub mod static_routes;

pub use aodv::{Aodv, AodvParams};
pub use dsdv::{Dsdv, DsdvParams};
pub use dsr::{Dsr, DsrParams, SharedHeaders};
pub use gateway::{Cells, Gateway};
pub use olsr::{Olsr, OlsrParams};
pub use shortest::{reachable_from, shortest_paths, shortest_paths_to, strong_components};
pub use static_routes::StaticRouting;

use super::device::DevId;
use crate::engine::Time;
use crate::packet::{NodeId, PacketPool, PktId};
use std::any::Any;

/// A protocol's counters (the nodes table): control packets and their IP
/// bytes sent by message type, route discoveries started, route errors
/// sent, and packets dropped for want of a route by cause.
#[derive(Clone, Debug, Default)]
pub struct RoutingStats {
    /// Message type names, in the protocol's order (column names).
    pub kinds: &'static [&'static str],
    pub sent: Vec<u64>,
    pub bytes: Vec<u64>,
    pub discoveries: u64,
    pub route_errors: u64,
    /// A packet waiting for a route pushed out of the full buffer.
    pub drops_buffer_full: u64,
    /// A packet that waited for a route longer than the buffer keeps one.
    pub drops_buffer_timeout: u64,
    /// A packet whose route discovery gave up after its retries.
    pub drops_discovery_failed: u64,
    /// A packet to forward with no route (not the source: no discovery).
    pub drops_no_route: u64,
    /// Counters of this protocol only (column names), e.g. DSR's salvaged
    /// packets; `extra` holds their values.
    pub extra_kinds: &'static [&'static str],
    pub extra: Vec<u64>,
}

impl RoutingStats {
    pub fn new(kinds: &'static [&'static str]) -> Self {
        RoutingStats { kinds, sent: vec![0; kinds.len()], bytes: vec![0; kinds.len()], ..Default::default() }
    }

    /// With counters of the protocol's own (`extra_kinds`, all zero).
    pub fn with_extra(mut self, extra_kinds: &'static [&'static str]) -> Self {
        self.extra_kinds = extra_kinds;
        self.extra = vec![0; extra_kinds.len()];
        self
    }

    /// A routing message from `from` to `to` (a neighbour or BROADCAST) as
    /// a packet in the pool: its body in the blob store, `l4` bytes above IP
    /// on the wire, the given TTL; counted as message type `kind` (1-based).
    /// The one place the four protocols build their control packets.
    #[allow(clippy::too_many_arguments)]
    pub fn message(
        &mut self,
        pool: &mut PacketPool,
        now: Time,
        (from, to): (NodeId, NodeId),
        (proto, kind): (u16, u16),
        l4: u32,
        ttl: u8,
        body: Box<dyn Any + Send>,
    ) -> PktId {
        use crate::packet::{ControlHeader, Packet, Transport, NO_FLOW};
        let blob = pool.insert_blob(body);
        let header = ControlHeader { proto, kind, len: l4, blob: Some(blob) };
        let mut p = Packet::new(NO_FLOW, from, to, Transport::Control(header), l4, 0, now);
        p.ip.ttl = ttl;
        self.count(kind as usize - 1, p.size);
        pool.insert(p)
    }

    /// One message of type number `k` with `size` IP bytes sent.
    pub fn count(&mut self, k: usize, size: u32) {
        self.sent[k] += 1;
        self.bytes[k] += size as u64;
    }

    pub fn control_packets(&self) -> u64 {
        self.sent.iter().sum()
    }

    pub fn control_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }
}

/// Where a packet goes from this node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Send it through this device to this neighbour.
    Forward { dev: DevId, next_hop: NodeId },
    /// No route yet: the protocol keeps the packet (its route discovery is
    /// under way) and hands it back later through `RoutingAction::Send`.
    Hold,
    /// No route and none to be had: drop it (counted as "no route").
    Drop,
}

/// What a routing protocol asks the world to do.
#[derive(Debug)]
pub enum RoutingAction {
    /// Send a packet (a control message or a held data packet) through a
    /// device to a neighbour (None = broadcast).
    Send { pkt: PktId, dev: DevId, next_hop: Option<NodeId> },
    /// Drop a held packet (its wait in the buffer ran out, or the buffer is full).
    DropHeld(PktId),
    /// Drop a packet taken out of the interface queue after its next hop's
    /// link failed (counted in `drops_link_broken`).
    DropBroken(PktId),
    /// Drop the frame the MAC gave up on (already counted by the MAC as a
    /// retry-limit drop).
    DropFailed(PktId),
    /// Drop every packet queued at device `dev` for `neighbor` (counted in
    /// `drops_link_broken`): ns-2's AODV does so on a route error from it.
    FlushTo { dev: DevId, neighbor: NodeId },
}

/// What a routing protocol may touch while handling a call.
pub struct RoutingIo<'a> {
    pub pool: &'a mut PacketPool,
    pub out: &'a mut Vec<RoutingAction>,
}

/// The bytes ns-2.35's DSDV and DSR add to a packet their node originates:
/// an IP header (`IP_HDR_LEN`) on every packet, TCP's too, whose segments
/// and ACKs already count theirs (dsdv.cc's and dsragent.cc's `recv`;
/// AODV skips TCP). tcplab's packets always count their IP header, so
/// with `ns2_ip_header` only TCP's grow, by 20 bytes carried as IP
/// options: a TCP frame is as long on the air as in ns-2.
pub fn ns2_extra_ip_header(p: &crate::packet::Packet) -> u16 {
    if matches!(p.l4, crate::packet::Transport::Tcp(_)) {
        20
    } else {
        0
    }
}

pub trait Routing: Any + Send {
    /// The route for packet `id` (in `io.pool`) that this node sends or
    /// forwards. A protocol that answers `Hold` keeps the id.
    fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route;
    /// A route the protocol already knows, without side effects (no
    /// discovery): what per-hop agents may ask about.
    fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)>;
    /// A control packet of this protocol was delivered to this node; the
    /// protocol consumes it.
    fn on_control(&mut self, _now: Time, _pkt: PktId, _io: &mut RoutingIo) {}
    /// The MAC reports that `neighbor` could not be reached through `dev`.
    fn on_link_failure(&mut self, _now: Time, _dev: DevId, _neighbor: NodeId, _io: &mut RoutingIo) {}
    /// The protocol's next timer deadline, if any. The world reads it after
    /// every call that may change it: a `route` that answered `Hold` or
    /// returned actions, and every other hook.
    fn deadline(&self) -> Option<Time> {
        None
    }
    fn on_timer(&mut self, _now: Time, _io: &mut RoutingIo) {}
    /// Whether a link failure also discards the packets queued at the
    /// interface for that neighbour (ns-2's AODV does, with local repair off).
    fn flushes_on_link_failure(&self) -> bool {
        false
    }
    /// Whether the protocol takes back the frame the MAC gave up on and,
    /// with `flushes_on_link_failure`, the packets flushed from the queue
    /// (`take_back`: DSR salvages them) instead of the world dropping them.
    fn salvages(&self) -> bool {
        false
    }
    /// Packets handed back after a link failure: the frame the MAC gave up
    /// on (if any) and those pulled out of the interface queue; the
    /// protocol sends or drops each.
    fn take_back(&mut self, _now: Time, failed: Option<PktId>, queued: Vec<PktId>, io: &mut RoutingIo) {
        io.out.extend(failed.map(RoutingAction::DropFailed));
        io.out.extend(queued.into_iter().map(RoutingAction::DropBroken));
    }
    /// Whether the protocol listens to data frames its station overhears
    /// (the device is put in promiscuous mode at build time).
    fn listens(&self) -> bool {
        false
    }
    /// A data frame for another station that this station decoded (with
    /// `listens`); the packet (with its MAC header) stays the world's.
    fn on_overheard(&mut self, _now: Time, _pkt: PktId, _io: &mut RoutingIo) {}
    /// The protocol's counters (None: static routing sends no messages).
    fn stats(&self) -> Option<&RoutingStats> {
        None
    }
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// A node's routing protocol: static routing stored inline so the
/// simulator's per-hop lookup is a direct call, or any other protocol behind
/// the trait. The methods forward to the protocol.
pub enum Router {
    Static(StaticRouting),
    Other(Box<dyn Routing>),
}

impl Router {
    pub fn as_dyn(&self) -> &dyn Routing {
        match self {
            Router::Static(r) => r,
            Router::Other(r) => r.as_ref(),
        }
    }

    pub fn as_dyn_mut(&mut self) -> &mut dyn Routing {
        match self {
            Router::Static(r) => r,
            Router::Other(r) => r.as_mut(),
        }
    }

    #[inline]
    pub fn route(&mut self, now: Time, id: PktId, io: &mut RoutingIo) -> Route {
        match self {
            Router::Static(r) => r.route(now, id, io),
            Router::Other(r) => r.route(now, id, io),
        }
    }

    pub fn known_route(&self, dst: NodeId) -> Option<(DevId, NodeId)> {
        self.as_dyn().known_route(dst)
    }

    pub fn deadline(&self) -> Option<Time> {
        self.as_dyn().deadline()
    }

    pub fn on_timer(&mut self, now: Time, io: &mut RoutingIo) {
        self.as_dyn_mut().on_timer(now, io)
    }

    pub fn on_control(&mut self, now: Time, pkt: PktId, io: &mut RoutingIo) {
        self.as_dyn_mut().on_control(now, pkt, io)
    }

    pub fn on_link_failure(&mut self, now: Time, dev: DevId, neighbor: NodeId, io: &mut RoutingIo) {
        self.as_dyn_mut().on_link_failure(now, dev, neighbor, io)
    }
}

/// A packet waiting for a route: (packet, destination, since when).
pub type Held = (PktId, NodeId, Time);

/// Drop, counted, the held packets that waited for a route longer than
/// `timeout` (the buffer is in arrival order, so only its front can be due).
/// Every protocol with a route buffer does this on its timer.
pub fn expire_held(
    buffer: &mut std::collections::VecDeque<Held>,
    now: Time,
    timeout: Time,
    stats: &mut RoutingStats,
    out: &mut Vec<RoutingAction>,
) {
    while let Some(&(pkt, _, since)) = buffer.front() {
        if since.saturating_add(timeout) > now {
            break;
        }
        buffer.pop_front();
        stats.drops_buffer_timeout += 1;
        out.push(RoutingAction::DropHeld(pkt));
    }
}

/// Keep a packet for `dst` in a route buffer of at most `cap` packets; a
/// full buffer drops (counted) its oldest (ns-2's rqueue does the same).
pub fn hold_packet(
    buffer: &mut std::collections::VecDeque<Held>,
    cap: usize,
    id: PktId,
    dst: NodeId,
    now: Time,
    stats: &mut RoutingStats,
    out: &mut Vec<RoutingAction>,
) {
    if buffer.len() >= cap {
        let (old, _, _) = buffer.pop_front().expect("a full buffer");
        stats.drops_buffer_full += 1;
        out.push(RoutingAction::DropHeld(old));
    }
    buffer.push_back((id, dst, now));
}

/// Drop the buffered packets waiting for `dst` (their discovery, or an
/// AODV local repair, failed; counted as such), keeping the others in
/// order.
pub fn drop_held_for(
    buffer: &mut std::collections::VecDeque<Held>,
    dst: NodeId,
    stats: &mut RoutingStats,
    out: &mut Vec<RoutingAction>,
) {
    let mut kept = std::collections::VecDeque::with_capacity(buffer.len());
    for (pkt, x, since) in buffer.drain(..) {
        if x == dst {
            stats.drops_discovery_failed += 1;
            out.push(RoutingAction::DropHeld(pkt));
        } else {
            kept.push_back((pkt, x, since));
        }
    }
    *buffer = kept;
}

/// Take the jittered messages whose time (`at`) has come, in time order;
/// messages due at the same time keep the order they were made in.
pub fn take_due<T: Copy>(delayed: &mut Vec<T>, now: Time, at: impl Fn(&T) -> Time) -> Vec<T> {
    let mut due = Vec::new();
    delayed.retain(|x| {
        if at(x) <= now {
            due.push(*x);
            false
        } else {
            true
        }
    });
    due.sort_by_key(|x| at(x));
    due
}
