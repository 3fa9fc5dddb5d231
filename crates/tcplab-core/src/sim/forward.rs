//! Moving packets through nodes: per-hop agents, local delivery, routing
//! and devices, and carrying out the actions they return.

use super::NodeStats;
use super::{Ev, TraceKind, World};
use crate::engine::{EventQueue, Time};
use crate::mechanisms::{Agent, AgentAction, AgentIo, Verdict};
use crate::net::routing::{Route, Router, RoutingAction, RoutingIo};
use crate::net::{Arrival, DropCause, FlowKey};
use crate::net::{
    DevAction, DevEvent, DevId, DevIo, DevScheduler, Device, DropReason, FanOut, NetDevice, Offer, PointToPoint,
};
use crate::packet::Ecn;
use crate::packet::{NodeId, Packet, PacketPool, PktId, Transport, BROADCAST};

/// The event queue as a device's scheduler: events tagged with the device.
struct Sched<'a> {
    q: &'a mut EventQueue<Ev>,
    dev: DevId,
    /// Set while a `FanArrive` is handled: reception ends are numbered at
    /// once but queued after the whole group (`World::fan_arrive`).
    ends: Option<&'a mut Vec<PendingEnd>>,
}

/// A reception end numbered while a `FanArrive` was handled, not yet queued.
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingEnd {
    dev: DevId,
    /// The frame received (all ends of one `FanArrive` are of its frame;
    /// checked again before they are merged).
    frame: PktId,
    at: Time,
    seq: u64,
    /// The receiver's index in the sender's fan-out list.
    member: u16,
}

impl DevScheduler for Sched<'_> {
    // Always inlined: left to the inliner it stayed a call from each of the
    // station's timer sites (275 k calls on the 7-hop chain at about 100
    // instructions each, the queue's insertion inlined into it).
    #[inline(always)]
    fn schedule(&mut self, at: Time, ev: DevEvent) {
        self.q.schedule(at, Ev::device(self.dev, ev));
    }

    fn schedule_for(&mut self, dev: DevId, at: Time, ev: DevEvent) {
        self.q.schedule(at, Ev::device(dev, ev));
    }

    fn fan_out(&mut self, now: Time, frame: PktId, targets: &[FanOut]) {
        // The numbers the receivers' `schedule_for` calls in rank order
        // would have taken; each arrival (or run of them) is then an
        // ordinary node carrying its number (the wheel does not care in
        // which order a bucket's nodes were inserted).
        let first = self.q.reserve(targets.len() as u64);
        let mut i = 0;
        while i < targets.len() {
            let t = targets[i];
            let same = targets[i..].iter().take_while(|u| u.delay == t.delay).count();
            // The arrivals at one time come out one right after the other:
            // every insertion number between theirs is from this block,
            // and the block's other events are at other times. So one
            // event, numbered as the first of them, carries them all.
            // A single arrival travels as a `FanArrive` too: the receiver
            // then gets the sender's power from the fan-out list.
            let ev = if i <= u16::MAX as usize {
                Ev::FanArrive(self.dev, frame, i as u16)
            } else {
                Ev::DevArrive(t.dev, frame)
            };
            self.q.schedule_numbered(now + t.delay, first + t.rank as u64, ev);
            i += if matches!(ev, Ev::FanArrive(..)) { same } else { 1 };
        }
    }

    fn fan_out_each(&mut self, now: Time, frame: PktId, targets: &[FanOut]) {
        let first = self.q.reserve(targets.len() as u64);
        for t in targets {
            self.q.schedule_numbered(now + t.delay, first + t.rank as u64, Ev::DevArrive(t.dev, frame));
        }
    }

    #[inline(always)]
    fn schedule_frame_end(&mut self, frame: PktId, at: Time) {
        match self.ends.as_mut() {
            Some(ends) => {
                // Its number now, as `schedule` would take it.
                let seq = self.q.reserve(1);
                ends.push(PendingEnd { dev: self.dev, frame, at, seq, member: 0 });
            }
            None => self.q.schedule(at, Ev::DevFrameEnd(self.dev)),
        }
    }
}

/// A router decrements the TTL of what it forwards (not what it
/// originates); false, the drop counted, when the TTL runs out.
#[inline(always)]
fn ttl_step(p: &mut Packet, n: NodeId, stats: &mut NodeStats) -> bool {
    if p.ip.src != n {
        if p.ip.ttl <= 1 {
            stats.drops_ttl += 1;
            return false;
        }
        p.ip.ttl -= 1;
    }
    true
}

/// What a point-to-point send step did with a packet.
#[derive(Clone, Copy)]
enum Sent {
    /// Its transmission started: it is on its way to the far end.
    Started,
    /// Queued behind the packet being sent.
    Waiting,
    /// Refused by the queue.
    Dropped(DropCause),
    /// Queued, and the queue dropped a packet waiting until now instead
    /// (`Queue::take_displaced`).
    Displaced(DropCause),
}

/// The send step of point-to-point device `dev` (`d`) over the parts of the
/// world it needs: an idle transmitter starts the packet at once (its
/// arrival scheduled directly: a per-link FIFO line of arrivals saved heap
/// work but only costs on the timing wheel, docs/architecture.md, "FIFO
/// lines"), otherwise it waits in the queue (`first`: at its head; ECN
/// marked if the queue says so) behind one `TxDone` event, or is refused.
/// The packet's IP size and ECN capability come from the caller, who has
/// the packet at hand already (looking the packet up again here cost 1 %
/// more instructions on the wired runs). A delaying error model
/// (`PointToPoint::holds`) may hold the packet first: it comes back as the
/// device's timer carrying its number and then enters (`p2p_enter`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn p2p_offer(
    q: &mut EventQueue<Ev>,
    pool: &mut PacketPool,
    d: &mut PointToPoint,
    dev: DevId,
    id: PktId,
    size_ect: (u32, bool),
    now: Time,
    first: bool,
) -> Sent {
    if !first && d.holds() {
        let p = pool.get(id);
        if let Some(at) = d.held_until(now, size_ect.0, p.payload, p.flow) {
            q.schedule(at, Ev::DevTimer(dev, id.0));
            return Sent::Waiting;
        }
    }
    p2p_enter(q, pool, d, dev, id, size_ect, now, first)
}

/// `p2p_offer` past the error model's hold.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn p2p_enter(
    q: &mut EventQueue<Ev>,
    pool: &mut PacketPool,
    d: &mut PointToPoint,
    dev: DevId,
    id: PktId,
    (size, ect): (u32, bool),
    now: Time,
    first: bool,
) -> Sent {
    if first {
        if d.idle(now) {
            return p2p_transmit(q, d, dev, id, size, now);
        }
        d.note_queue(now);
        d.queue.enqueue_front(id, size);
    } else {
        match d.offer(now, id, size, ect, || FlowKey::of(pool.get(id))) {
            Offer::Idle => return p2p_transmit(q, d, dev, id, size, now),
            Offer::IdleMarked => {
                pool.get_mut(id).ip.ecn = Ecn::Ce;
                return p2p_transmit(q, d, dev, id, size, now);
            }
            Offer::Queued { marked: true } => pool.get_mut(id).ip.ecn = Ecn::Ce,
            Offer::Queued { marked: false } => {}
            Offer::Dropped(cause) => return Sent::Dropped(cause),
            Offer::Displaced(cause) => {
                if let Some(at) = d.arm_tx_done() {
                    q.schedule(at, Ev::DevTxDone(dev));
                }
                return Sent::Displaced(cause);
            }
        }
    }
    if let Some(at) = d.arm_tx_done() {
        q.schedule(at, Ev::DevTxDone(dev));
    }
    Sent::Waiting
}

/// Put a packet of IP size `size` on device `dev`'s medium now.
#[inline(always)]
fn p2p_transmit(q: &mut EventQueue<Ev>, d: &mut PointToPoint, dev: DevId, id: PktId, size: u32, now: Time) -> Sent {
    let at = d.transmit(now, size);
    q.schedule(at, Ev::DevArrive(dev, id));
    Sent::Started
}

impl World {
    /// A packet is at node `n` (created here or arrived over a device):
    /// the node's agents see it, then it is delivered here or forwarded.
    // Forwarding past a node without agents, most hops, is inlined into
    // the caller (the run loop's arrival, a socket's output); the rest is
    // a call, so a forwarded hop pays no prologue for the delivery paths.
    #[inline(always)]
    pub(super) fn at_node(&mut self, now: Time, n: NodeId, id: PktId) {
        let dst = self.pool.get(id).ip.dst;
        if dst != n && dst != BROADCAST && self.nodes[n as usize].agents.is_empty() {
            return self.forward(now, n, id);
        }
        self.at_node_slow(now, n, id);
    }

    /// `at_node` for a packet for this node, a broadcast, or a node with
    /// agents.
    #[inline(never)]
    fn at_node_slow(&mut self, now: Time, n: NodeId, id: PktId) {
        if !self.nodes[n as usize].agents.is_empty() && self.run_agents(now, n, id) == Verdict::Consume {
            self.consumed += 1;
            self.pool.release(id);
            return;
        }
        let p = self.pool.get(id);
        // A routing message broadcast to the neighbours is for this node too.
        if p.ip.dst == n || (p.ip.dst == BROADCAST && matches!(p.l4, Transport::Control(_))) {
            if let Transport::Control(_) = p.l4 {
                self.deliver_control(now, n, id);
            } else {
                self.deliver(now, n, id);
            }
            return;
        }
        self.forward(now, n, id);
    }

    /// Ask the node's routing protocol where the packet goes and hand it to
    /// that device.
    #[inline(always)]
    fn forward(&mut self, now: Time, n: NodeId, id: PktId) {
        // Split borrows of the world: the packet, the node and the device
        // out are each looked up once here, not again in every step.
        let World { devices, pool, nodes, q, .. } = self;
        let node = &mut nodes[n as usize];
        let p = pool.get_mut(id);
        if !ttl_step(p, n, &mut node.stats) {
            return pool.release(id);
        }
        let (dst, size_ect) = (p.ip.dst, (p.size, p.is_ect()));
        // Static routing needs no actions or I/O: look the hop up directly,
        // and take a point-to-point device's send step here.
        if let Router::Static(r) = &node.routing {
            let Some((out, next_hop)) = r.next_hop(dst) else {
                node.stats.drops_no_route += 1;
                return pool.release(id);
            };
            let Device::P2p(o) = &mut devices[out as usize] else {
                return self.dev_send(now, out, id, Some(next_hop), false);
            };
            let sent = p2p_offer(q, pool, o, out, id, size_ect, now, false);
            return self.p2p_sent(now, out, id, sent);
        }
        let mut out = Vec::new();
        let node = &mut self.nodes[n as usize];
        let route = node.routing.route(now, id, &mut RoutingIo { pool: &mut self.pool, out: &mut out });
        match route {
            Route::Forward { dev, next_hop } => self.dev_send(now, dev, id, Some(next_hop), false),
            // A held packet means a route discovery may have begun: its
            // messages and timer follow.
            Route::Hold => return self.routing_actions(now, n, out),
            Route::Drop => {
                self.nodes[n as usize].stats.drops_no_route += 1;
                self.pool.release(id);
            }
        }
        if !out.is_empty() {
            self.routing_actions(now, n, out);
        }
    }

    fn routing_actions(&mut self, now: Time, n: NodeId, out: Vec<RoutingAction>) {
        for a in out {
            match a {
                RoutingAction::Send { pkt, dev, next_hop } => self.dev_send(now, dev, pkt, next_hop, false),
                RoutingAction::DropHeld(pkt) => {
                    self.nodes[n as usize].stats.drops_no_route += 1;
                    self.pool.release(pkt);
                }
                RoutingAction::DropBroken(pkt) => self.drop_broken(now, n, pkt),
                RoutingAction::DropFailed(pkt) => {
                    let p = self.pool.take(pkt);
                    self.trace_drop(now, &p);
                }
                RoutingAction::FlushTo { dev, neighbor } => {
                    // A route error's flush: the MAC's own frame stays.
                    let flushed =
                        self.devices[dev as usize].as_dyn_mut().take_queued_to(now, neighbor, &self.pool, false);
                    for pkt in flushed {
                        self.drop_broken(now, n, pkt);
                    }
                }
            }
        }
        self.sync_routing_timer(n);
    }

    pub(super) fn sync_routing_timer(&mut self, n: NodeId) {
        let node = &mut self.nodes[n as usize];
        if let Some(at) = node.routing_timer.arm(node.routing.deadline(), self.q.now()) {
            self.q.schedule(at, Ev::Routing(n));
        }
    }

    pub(super) fn routing_timer(&mut self, now: Time, n: NodeId) {
        let mut out = Vec::new();
        let node = &mut self.nodes[n as usize];
        if !node.routing_timer.fire(now) {
            return;
        }
        if node.routing.deadline().is_some_and(|d| d <= now) {
            node.routing.on_timer(now, &mut RoutingIo { pool: &mut self.pool, out: &mut out });
            self.routing_actions(now, n, out);
        } else {
            self.sync_routing_timer(n);
        }
    }

    /// A control packet (routing message) delivered to node `n`: its
    /// routing protocol consumes it.
    fn deliver_control(&mut self, now: Time, n: NodeId, id: PktId) {
        self.delivered += 1;
        let mut out = Vec::new();
        let node = &mut self.nodes[n as usize];
        node.routing.on_control(now, id, &mut RoutingIo { pool: &mut self.pool, out: &mut out });
        self.routing_actions(now, n, out);
    }

    // ---- agents ------------------------------------------------------

    /// Show a packet to the agents of node `n`, in order, carrying out what
    /// each asks before the next sees the packet; stop at one that consumes it.
    fn run_agents(&mut self, now: Time, n: NodeId, id: PktId) -> Verdict {
        for i in 0..self.nodes[n as usize].agents.len() {
            let mut p = *self.pool.get(id);
            let verdict = self.with_agent(now, n, i, |a, io| a.on_packet(now, n, &mut p, io));
            self.pool.replace(id, p);
            if verdict == Verdict::Consume {
                return verdict;
            }
        }
        Verdict::Pass
    }

    /// Call `f` on agent number `agent` of node `n` and carry out its actions.
    fn with_agent<T>(
        &mut self,
        now: Time,
        n: NodeId,
        agent: usize,
        f: impl FnOnce(&mut dyn Agent, &mut AgentIo) -> T,
    ) -> T {
        let start = self.agent_actions.len();
        let node = &mut self.nodes[n as usize];
        let (routing, devices) = (&node.routing, &self.devices);
        // At a node with a radio (a wired-cum-wireless base station) the
        // media that lose packets are its radio's: only connections whose
        // data leave there are the agents' (Snoop's downlink); elsewhere,
        // every connection the node forwards.
        // (Looked at only when an agent asks: ELN's agents at every node
        // never do.)
        let (radio, node_devs) = (|d: DevId| matches!(devices[d as usize], Device::Wifi(_)), &node.devices);
        let room = |dst: NodeId| {
            routing
                .known_route(dst)
                .filter(|&(d, _)| radio(d) || !node_devs.iter().any(|&x| radio(x)))
                .map(|(d, _)| devices[d as usize].as_dyn().has_room())
        };
        let r = f(node.agents[agent].as_mut(), &mut AgentIo { out: &mut self.agent_actions, room_towards: &room });
        let end = self.agent_actions.len();
        for i in start..end {
            match self.agent_actions[i] {
                AgentAction::SendFirst(copy) => {
                    let Some((dev, next_hop)) = self.nodes[n as usize].routing.known_route(copy.ip.dst) else {
                        continue;
                    };
                    let id = self.pool.insert(copy);
                    if let Transport::Tcp(h) = copy.l4 {
                        self.trace_push(now, copy.flow, TraceKind::LocalRetransmit, h.seq, copy.payload);
                    }
                    self.dev_send(now, dev, id, Some(next_hop), true);
                }
                AgentAction::Timer(token) => {
                    let a = &mut self.nodes[n as usize].agents[agent];
                    let deadline = a.deadline(token);
                    if let Some(at) = a.timer_slot(token).and_then(|s| s.arm(deadline, now)) {
                        self.q.schedule(at, Ev::Agent(n, agent as u16, token));
                    }
                }
            }
        }
        self.agent_actions.truncate(start);
        r
    }

    pub(super) fn agent_timer(&mut self, now: Time, n: NodeId, agent: u16, token: u32) {
        let a = &mut self.nodes[n as usize].agents[agent as usize];
        if a.timer_slot(token).is_some_and(|s| s.fire(now)) {
            self.with_agent(now, n, agent as usize, |a, io| a.on_timer(now, token, io));
        }
    }

    // ---- devices -----------------------------------------------------

    /// Offer a packet to a device (`first`: ahead of its queue).
    // A hop's steps (`forward`, `dev_send`, `p2p_send`, `p2p_start`,
    // `dev_deliver`, and the TCP endpoint calls in endpoints.rs) are forced
    // inline: left to the inliner they stayed calls, and their prologues and
    // argument moves were a tenth of the instructions on the dumbbell
    // (callgrind, 10 flows for 100 s: 497 M -> 447 M; docs/architecture.md).
    #[inline(always)]
    pub(super) fn dev_send(&mut self, now: Time, dev: DevId, id: PktId, next_hop: Option<NodeId>, first: bool) {
        if let Device::P2p(_) = self.devices[dev as usize] {
            return self.p2p_send(now, dev, id, first);
        }
        self.with_device(now, dev, |d, io| match d {
            Device::Wifi(w) => w.send_on(now, id, next_hop, first, io),
            d if first => d.as_dyn_mut().send_first(now, id, next_hop, &mut io.as_dyn()),
            d => d.as_dyn_mut().send(now, id, next_hop, &mut io.as_dyn()),
        });
    }

    /// The receiver `i` of device `sender`'s frames (`NetDevice::fan_targets`).
    fn fan_target(&self, sender: DevId, i: usize) -> Option<FanOut> {
        match &self.devices[sender as usize] {
            Device::Wifi(d) => d.fan_targets().get(i).copied(),
            d => d.as_dyn().fan_targets().get(i).copied(),
        }
    }

    /// The arrivals a `FanArrive` stands for: device `sender`'s receivers
    /// from `first` on with the same delay, in order, as separate events
    /// would have delivered them. The receptions they start end at one
    /// time (one frame, one airtime), usually with consecutive numbers:
    /// those travel as one `FanEnd` event.
    #[inline(never)]
    pub(super) fn fan_arrive(&mut self, now: Time, sender: DevId, frame: PktId, first: u16) {
        let first = first as usize;
        let delay = self.fan_target(sender, first).expect("a receiver of the frame").delay;
        self.batching_ends = true;
        let mut i = first;
        while let Some(t) = self.fan_target(sender, i).filter(|t| t.delay == delay) {
            let before = self.pending_ends.len();
            self.wifi_arrive(now, t.dev, frame, t.power_w);
            for e in &mut self.pending_ends[before..] {
                e.member = i as u16;
            }
            i += 1;
        }
        self.batching_ends = false;
        self.merged_events += (i - first - 1) as u64;
        self.queue_pending_ends(sender);
    }

    /// One arrival of a `FanArrive`: an 802.11 station is handed the
    /// sender's mean power with the frame; any other device gets `Arrive`.
    #[inline(never)]
    fn wifi_arrive(&mut self, now: Time, dev: DevId, frame: PktId, mean_power_w: f64) {
        self.with_device(now, dev, |d, io| match d {
            Device::Wifi(w) => w.arrive_from_on(now, frame, mean_power_w, io),
            d => d.as_dyn_mut().on_event(now, DevEvent::Arrive(frame), &mut io.as_dyn()),
        });
    }

    /// Queue the reception ends numbered during a `FanArrive`, each with its
    /// number. A run of them at one time with consecutive numbers, for
    /// consecutive receivers in the sender's list, comes out one right after
    /// the other (no other event can hold a number between theirs): it goes
    /// as one `FanEnd`.
    fn queue_pending_ends(&mut self, sender: DevId) {
        let World { pending_ends: ends, q, .. } = self;
        let mut i = 0;
        while i < ends.len() {
            let e = ends[i];
            let mut n = 1;
            while let Some(x) = ends.get(i + n) {
                let k = n as u64;
                if (x.frame, x.at, x.seq, x.member as u64) != (e.frame, e.at, e.seq + k, e.member as u64 + k) {
                    break;
                }
                n += 1;
            }
            let ev =
                if n > 1 { Ev::FanEnd { sender, first: e.member, count: n as u16 } } else { Ev::DevFrameEnd(e.dev) };
            q.schedule_numbered(e.at, e.seq, ev);
            i += n;
        }
        ends.clear();
    }

    /// The reception ends a `FanEnd` stands for, in order.
    #[inline(never)]
    pub(super) fn fan_end(&mut self, now: Time, sender: DevId, first: u16, count: u16) {
        for i in first as usize..first as usize + count as usize {
            let t = self.fan_target(sender, i).expect("a receiver of the frame");
            self.other_device_event(now, t.dev, DevEvent::FrameEnd);
        }
        self.merged_events += count as u64 - 1;
    }

    /// A device's timer event. An 802.11 station's timer that would
    /// change nothing (`Dcf::timer_changes_nothing`) stops here, before the
    /// station's I/O is set up and its handler entered.
    #[inline(always)]
    pub(super) fn device_timer(&mut self, now: Time, dev: DevId, token: u32) {
        if let Device::Wifi(w) = &self.devices[dev as usize] {
            if w.timer_changes_nothing(now, token) {
                return;
            }
        }
        self.device_event(now, dev, DevEvent::Timer(token));
    }

    #[inline]
    pub(super) fn device_event(&mut self, now: Time, dev: DevId, ev: DevEvent) {
        if let Device::P2p(_) = self.devices[dev as usize] {
            return self.p2p_event(now, dev, ev);
        }
        self.other_device_event(now, dev, ev);
    }

    /// `device_event` for anything but a point-to-point link: its own
    /// function, so that neither path pays for the other's registers and
    /// stack frame; the merged 802.11 events call it directly.
    #[inline(never)]
    fn other_device_event(&mut self, now: Time, dev: DevId, ev: DevEvent) {
        self.with_device(now, dev, |d, io| match d {
            Device::Wifi(w) => w.on_event_on(now, ev, io),
            d => d.as_dyn_mut().on_event(now, ev, &mut io.as_dyn()),
        });
    }

    /// Call a device with its I/O and carry out the actions it returns.
    /// The scheduler's type is known here, so the 802.11 device (called
    /// directly) schedules its events without dynamic calls.
    #[inline]
    fn with_device(&mut self, now: Time, dev: DevId, f: impl FnOnce(&mut Device, &mut DevIo<Sched>)) {
        let report_transmit = self.watched(dev);
        let ends = self.batching_ends.then_some(&mut self.pending_ends);
        let mut sched = Sched { q: &mut self.q, dev, ends };
        let start = self.dev_actions.len();
        let mut io = DevIo { pool: &mut self.pool, sched: &mut sched, report_transmit, out: &mut self.dev_actions };
        f(&mut self.devices[dev as usize], &mut io);
        if self.dev_actions.len() > start {
            self.dev_actions_run(now, dev, start);
        }
    }

    // The point-to-point device's fast path: the world drives the link's
    // steps (`offer`, `transmit`, `tx_done`, `arrival`) directly, as
    // the emulator does, instead of going through `NetDevice` and an action
    // list. The results are the same as the trait path (the golden tests
    // run through here; `net::p2p` tests the trait path).

    fn p2p(&mut self, dev: DevId) -> &mut PointToPoint {
        match &mut self.devices[dev as usize] {
            Device::P2p(d) => d,
            _ => unreachable!("not a point-to-point device"),
        }
    }

    /// Offer a packet to point-to-point device `dev` (`first`: ahead of
    /// its queue) and report what became of it; the caller shows a started
    /// transmission to captures and agents, or drops a refused packet.
    #[inline(always)]
    fn p2p_send(&mut self, now: Time, dev: DevId, id: PktId, first: bool) {
        let World { devices, pool, q, .. } = self;
        let Device::P2p(d) = &mut devices[dev as usize] else { unreachable!() };
        let p = pool.get(id);
        let sent = p2p_offer(q, pool, d, dev, id, (p.size, p.is_ect()), now, first);
        self.p2p_sent(now, dev, id, sent);
    }

    /// What follows a point-to-point send step with the whole world at hand.
    #[inline(always)]
    fn p2p_sent(&mut self, now: Time, dev: DevId, id: PktId, sent: Sent) {
        match sent {
            Sent::Started => {
                if self.watched(dev) {
                    self.dev_transmit(now, dev, id);
                }
            }
            Sent::Waiting => {}
            Sent::Dropped(cause) => {
                self.dev_drop(now, dev, id, DropReason::Queue(cause));
                // A discipline's batch may have taken others with it.
                if self.p2p(dev).queue.displaced_len() > 0 {
                    self.drop_displaced(now, dev, cause);
                }
            }
            Sent::Displaced(cause) => self.drop_displaced(now, dev, cause),
        }
    }

    /// Discard the packets the queue of `dev` took out to make room.
    #[cold]
    fn drop_displaced(&mut self, now: Time, dev: DevId, cause: DropCause) {
        while let Some(victim) = self.p2p(dev).queue.pop_displaced() {
            self.dev_drop(now, dev, victim, DropReason::Queue(cause));
        }
    }

    /// The transmitter of `dev` takes `next` (IP size `size`), the packet
    /// its queue gave at the end of the last transmission.
    #[inline(always)]
    fn p2p_start_next(&mut self, now: Time, dev: DevId, next: PktId, size: u32) {
        let World { devices, q, .. } = self;
        let Device::P2p(d) = &mut devices[dev as usize] else { unreachable!() };
        p2p_transmit(q, d, dev, next, size, now);
        self.p2p_sent(now, dev, next, Sent::Started);
        if let Some(at) = self.p2p(dev).arm_tx_done() {
            self.q.schedule(at, Ev::DevTxDone(dev));
        }
    }

    /// The end of a transmission at a link whose queue is a discipline:
    /// the packets its controller dropped as it chose the next one (CoDel)
    /// are discarded first, and the next one leaves with CE if it was
    /// marked.
    #[cold]
    #[inline(never)]
    fn p2p_tx_done_qdisc(&mut self, now: Time, dev: DevId) {
        let d = self.p2p(dev);
        let next = d.tx_done(now);
        let drops = d.queue.take_dequeue_drops();
        let marked = d.queue.dequeue_marked();
        for v in drops {
            self.dev_drop(now, dev, v, DropReason::Queue(DropCause::Codel));
        }
        if let Some((id, size)) = next {
            if marked {
                self.pool.get_mut(id).ip.ecn = Ecn::Ce;
            }
            self.p2p_start_next(now, dev, id, size);
        }
    }

    #[inline]
    fn p2p_event(&mut self, now: Time, dev: DevId, ev: DevEvent) {
        match ev {
            DevEvent::TxDone => {
                let Device::P2p(d) = &mut self.devices[dev as usize] else { unreachable!() };
                if d.has_qdisc() {
                    return self.p2p_tx_done_qdisc(now, dev);
                }
                if let Some((next, size)) = d.tx_done(now) {
                    self.p2p_start_next(now, dev, next, size);
                }
            }
            DevEvent::Arrive(id) => {
                // Split borrows: the packet and the device looked up once
                // for the error decision (`forward` does the same for the
                // next hop; together 3 % fewer instructions with 10 and 100
                // flows, docs/architecture.md, "Fewer lookups, not fewer
                // events").
                let World { devices, pool, .. } = self;
                let Device::P2p(d) = &mut devices[dev as usize] else { unreachable!() };
                let p = pool.get(id);
                match d.arrival(now, p.size, p.payload, p.flow) {
                    Arrival::Corrupted => self.dev_drop(now, dev, id, DropReason::Corruption),
                    fate => {
                        if fate == Arrival::Marked {
                            pool.get_mut(id).ip.ecn = Ecn::Ce;
                        }
                        let to = d.to;
                        self.dev_deliver(now, to, id);
                    }
                }
            }
            // A packet the error model held enters the link now.
            DevEvent::Timer(id) => self.p2p_release(now, dev, PktId(id)),
            DevEvent::FrameEnd => {}
        }
    }

    /// A packet a delaying error model held (`PointToPoint::held_until`)
    /// is offered to the link, without asking the model again.
    #[cold]
    #[inline(never)]
    fn p2p_release(&mut self, now: Time, dev: DevId, id: PktId) {
        let World { devices, pool, q, .. } = self;
        let Device::P2p(d) = &mut devices[dev as usize] else { unreachable!() };
        let p = pool.get(id);
        let sent = p2p_enter(q, pool, d, dev, id, (p.size, p.is_ect()), now, false);
        self.p2p_sent(now, dev, id, sent);
    }

    /// Carry out, in order, the actions a device call appended to
    /// `dev_actions` past `start`, then take them off.
    fn dev_actions_run(&mut self, now: Time, dev: DevId, start: usize) {
        let end = self.dev_actions.len();
        for i in start..end {
            match self.dev_actions[i] {
                DevAction::Transmit(id) => self.dev_transmit(now, dev, id),
                DevAction::Deliver(to, id) => self.dev_deliver(now, to, id),
                DevAction::Drop(id, reason) => self.dev_drop(now, dev, id, reason),
                DevAction::Frame(id) => {
                    self.capture_frame(now, dev, id);
                    self.pool.release(id);
                }
                DevAction::Overheard(id) => {
                    let n = self.dev_node[dev as usize];
                    let mut out = Vec::new();
                    let node = &mut self.nodes[n as usize];
                    node.routing.as_dyn_mut().on_overheard(
                        now,
                        id,
                        &mut RoutingIo { pool: &mut self.pool, out: &mut out },
                    );
                    self.pool.release(id);
                    self.routing_actions(now, n, out);
                }
                DevAction::LinkFailed { neighbor, failed } => {
                    let n = self.dev_node[dev as usize];
                    let decoded = self.next_hop_decoded(n, neighbor, failed);
                    if decoded {
                        self.retry_drops_received += 1;
                    }
                    // A protocol that salvages takes the failed frame back;
                    // for the others it is a retry-limit drop, and a loss on
                    // the hop (ELN) unless the next hop has the packet.
                    let salvages = self.nodes[n as usize].routing.as_dyn().salvages();
                    if !salvages {
                        self.drop_on_device(now, dev, failed, !decoded);
                    }
                    if self.in_reach(now, dev, neighbor) {
                        self.nodes[n as usize].stats.false_link_failures += 1;
                    }
                    let mut out = Vec::new();
                    let node = &mut self.nodes[n as usize];
                    node.routing.on_link_failure(
                        now,
                        dev,
                        neighbor,
                        &mut RoutingIo { pool: &mut self.pool, out: &mut out },
                    );
                    self.routing_actions(now, n, out);
                    let flushes = self.nodes[n as usize].routing.as_dyn().flushes_on_link_failure();
                    self.flush_link(now, dev, n, neighbor, flushes, salvages.then_some(failed));
                }
            }
        }
        self.dev_actions.truncate(start);
    }

    /// After a link failure: with `flushes`, take the packets queued at
    /// device `dev` for `neighbor` out of its queue; hand them, after the
    /// failed frame `failed` if the protocol salvages, back to the routing
    /// protocol, or drop them (`drops_link_broken`).
    fn flush_link(&mut self, now: Time, dev: DevId, n: NodeId, neighbor: NodeId, flushes: bool, failed: Option<PktId>) {
        let pkts = if flushes {
            self.devices[dev as usize].as_dyn_mut().take_queued_to(now, neighbor, &self.pool, true)
        } else {
            vec![]
        };
        if pkts.is_empty() && failed.is_none() {
            return;
        }
        if self.nodes[n as usize].routing.as_dyn().salvages() {
            let mut out = Vec::new();
            let node = &mut self.nodes[n as usize];
            let mut io = RoutingIo { pool: &mut self.pool, out: &mut out };
            node.routing.as_dyn_mut().take_back(now, failed, pkts, &mut io);
            return self.routing_actions(now, n, out);
        }
        for id in pkts {
            self.drop_broken(now, n, id);
        }
    }

    /// Drop a packet node `n` took out of an interface queue because its
    /// next hop's link failed (`drops_link_broken`).
    fn drop_broken(&mut self, now: Time, n: NodeId, id: PktId) {
        self.nodes[n as usize].stats.drops_link_broken += 1;
        let p = self.pool.take(id);
        self.trace_drop(now, &p);
    }

    /// Whether `neighbor`'s radio decoded frame `pkt` from node `me` (a frame
    /// given up at the retry limit after every ACK was lost): accounting
    /// only, the sender cannot know it.
    #[cold]
    pub(super) fn next_hop_decoded(&self, me: NodeId, neighbor: NodeId, pkt: PktId) -> bool {
        let p = self.pool.get(pkt);
        self.nodes[neighbor as usize].devices.iter().any(|&d| match &self.devices[d as usize] {
            Device::Wifi(w) => w.decoded_last(me, p.uid, p.ip.ttl),
            _ => false,
        })
    }

    /// Whether `neighbor` was, at `now`, within receive range of device
    /// `dev` by geometry (mean power at the receive threshold) with its
    /// radio on: a link failure the MAC reports then is a false one
    /// (collisions or a busy receiver, not distance).
    fn in_reach(&self, now: Time, dev: DevId, neighbor: NodeId) -> bool {
        let Some(theirs) = self.devices[dev as usize].as_dyn().in_range(now, neighbor) else { return false };
        self.devices[theirs as usize].as_dyn().radio_on(now)
    }

    /// A packet started on a device's medium: captures and the agents of
    /// the sending node see it.
    // This, the captures and the drops are marked cold: the hop's code then
    // keeps its common case in one straight line (10 flows for 100 s: 447 M
    // -> 430 M instructions, wall -4 %; a watched device or a drop pays a
    // call it paid before too).
    #[cold]
    fn dev_transmit(&mut self, now: Time, dev: DevId, id: PktId) {
        let from = self.dev_node[dev as usize];
        if !self.captures.is_empty() {
            self.capture(now, id, |c| c.dev == Some(dev) || c.node == Some(from));
        }
        if !self.nodes[from as usize].agents.is_empty() {
            let p = *self.pool.get(id);
            for a in 0..self.nodes[from as usize].agents.len() {
                self.with_agent(now, from, a, |a, io| a.on_transmit(now, &p, io));
            }
        }
    }

    /// A packet reached node `to` over a device.
    #[inline(always)]
    fn dev_deliver(&mut self, now: Time, to: NodeId, id: PktId) {
        if !self.captures.is_empty() {
            self.capture(now, id, |c| c.node == Some(to));
        }
        self.at_node(now, to, id);
    }

    /// A device dropped a packet: corruption is shown to the sending node's
    /// agents (ELN), every drop to the trace.
    #[cold]
    fn dev_drop(&mut self, now: Time, dev: DevId, id: PktId, reason: DropReason) {
        self.drop_on_device(now, dev, id, reason == DropReason::Corruption);
    }

    /// `dev_drop`, with `lost_on_hop` saying whether the sending node's
    /// agents see the loss (ELN): a point-to-point link's corruption, and
    /// an 802.11 frame given up at the retry limit that the next hop did
    /// not decode (the MAC retried the frame's errors and collisions until
    /// it gave up: the packet is lost on the radio hop, not in a queue).
    #[cold]
    fn drop_on_device(&mut self, now: Time, dev: DevId, id: PktId, lost_on_hop: bool) {
        let p = self.pool.take(id);
        if lost_on_hop {
            let from = self.dev_node[dev as usize];
            for a in self.nodes[from as usize].agents.iter_mut() {
                a.on_loss(now, &p);
            }
        }
        self.trace_drop(now, &p);
    }

    /// An 802.11 frame sent or decoded by a station: its node's 802.11
    /// captures record it with the duration field and retry flag the MAC
    /// gives it.
    #[cold]
    fn capture_frame(&mut self, now: Time, dev: DevId, id: PktId) {
        let n = self.dev_node[dev as usize];
        if !self.captures.iter().any(|c| c.node == Some(n) && c.writer.is_wifi()) {
            return;
        }
        let p = self.pool.get(id);
        let (dur, retry) = self.devices[dev as usize].as_dyn().frame_fields(id, p);
        let dur = (dur.div_ceil(1000)).min(32767) as u16;
        let retry = p.l2_tx() == Some(n) && retry;
        for c in self.captures.iter_mut().filter(|c| c.node == Some(n) && c.writer.is_wifi()) {
            c.writer.record_frame(now, p, dur, retry);
        }
    }

    #[cold]
    fn capture(&mut self, now: Time, id: PktId, wants: impl Fn(&super::Capture) -> bool) {
        let p = self.pool.get(id);
        for c in self.captures.iter_mut().filter(|c| wants(c)) {
            c.writer.record(now, p);
        }
    }

    pub(super) fn trace_drop(&mut self, now: Time, p: &Packet) {
        if self.trace.is_some() {
            if let Transport::Tcp(h) = p.l4 {
                // Data segments and the SYN (len 0); not pure ACKs.
                use crate::packet::flags::{ACK, SYN};
                if p.payload > 0 || h.flags & (SYN | ACK) == SYN {
                    // A split flow's second connection sends to the
                    // flow's destination, its first to the split node.
                    let f = &self.flows[p.flow as usize];
                    let relay = f.split.is_some() && p.ip.dst == f.dst;
                    self.trace_write(now, (p.flow, relay), TraceKind::Drop, h.seq, p.payload);
                }
            }
        }
    }
}
