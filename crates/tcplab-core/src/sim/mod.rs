//! The world: nodes, link directions and flows tied to one event queue.
//! Protocol state machines live in `transport`; this module only moves
//! packets between them and fires their timers.

mod report;

use crate::engine::time::to_secs;
use crate::engine::{EventQueue, Time};
use crate::net::routing::RoutingTable;
use crate::net::{DropCause, LinkDir, Verdict};
use crate::output::RunResult;
use crate::packet::{flags, Ecn, FlowId, IpHeader, NodeId, Packet, PacketPool, PktId, TcpHeader, Transport, UdpHeader};
use crate::mechanisms::snoop::{AckAction, SnoopConn};
use crate::transport::app::App;
use crate::transport::tcp::{TcpReceiver, TcpSender};
use crate::transport::udp::UdpFlow;

/// Events are small and `Copy`; packets travel as `PktId`s.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// A link direction finished serialising; start its next queued packet.
    TxDone(u32),
    /// A packet reaches the far end of a link direction.
    Arrive(u32, PktId),
    Rto(FlowId),
    DelAck(FlowId),
    AppStart(FlowId),
    AppStop(FlowId),
    UdpSend(FlowId),
    Sample,
    /// The Snoop agents of a flow have a timer due.
    SnoopTimer(FlowId),
}

pub enum Endpoint {
    Tcp { tx: Box<TcpSender>, rx: Box<TcpReceiver>, rto_slot: Option<Time>, delack_slot: Option<Time> },
    Udp(UdpFlow),
}

pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub transport: String,
    pub app: App,
    pub ep: Endpoint,
    pub stopped: bool,
    /// Explicit Loss Notification: corruption losses of this flow's data are
    /// noted where they happen and flagged on the ACKs that report them.
    pub eln: bool,
    /// ELN notes: (node that sent the packet onto the lossy hop, hole).
    pub eln_holes: Vec<(NodeId, u64, u64)>,
    /// Snoop agents on this connection's path (node, state).
    pub snoop: Vec<(NodeId, SnoopConn)>,
    snoop_slot: Option<Time>,
    /// Threshold for `first_bytes_s` and when it was reached.
    pub first_bytes: Option<u64>,
    pub first_bytes_at: Option<Time>,
}

impl Flow {
    pub fn new(name: String, src: NodeId, dst: NodeId, transport: String, app: App, ep: Endpoint, eln: bool) -> Self {
        Flow {
            name,
            src,
            dst,
            transport,
            app,
            ep,
            stopped: false,
            eln,
            eln_holes: Vec::new(),
            snoop: Vec::new(),
            snoop_slot: None,
            first_bytes: None,
            first_bytes_at: None,
        }
    }
}

/// What happened to a segment, for time-sequence traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceKind {
    Send,
    Retransmit,
    Ack,
    DupAck,
    /// A Snoop agent resent a cached segment.
    LocalRetransmit,
    /// One SACK block carried by an arriving ACK (seq = block start).
    Sack,
    Drop,
}

#[derive(Clone, Copy, Debug)]
pub struct TraceRecord {
    pub time: Time,
    pub flow: FlowId,
    pub kind: TraceKind,
    pub seq: u64,
    pub len: u32,
}

/// A capture point: one link direction (packets as they go on the wire) or
/// one node (packets it sends and receives).
pub struct Capture {
    pub name: String,
    pub dir: Option<u32>,
    pub node: Option<NodeId>,
    pub writer: crate::output::pcap::PcapWriter,
}

pub struct World {
    pub q: EventQueue<Ev>,
    pub node_names: Vec<String>,
    pub dirs: Vec<LinkDir>,
    pub routes: RoutingTable,
    pub flows: Vec<Flow>,
    pub pool: PacketPool,
    pub duration: Time,
    pub seed: u64,
    pub sample_interval: Option<Time>,
    pub trace: Option<Vec<TraceRecord>>,
    pub samples: report::Samples,
    pub drops_no_route: u64,
    pub captures: Vec<Capture>,
    /// Nodes running a Snoop agent.
    pub snoop_nodes: Vec<bool>,
}

impl World {
    /// Schedule the applications and the sampler; call once before `run`.
    fn prime(&mut self) {
        for i in 0..self.flows.len() {
            let f = &self.flows[i];
            self.q.schedule(f.app.start(), Ev::AppStart(i as FlowId));
            if let Some(stop) = f.app.stop() {
                self.q.schedule(stop, Ev::AppStop(i as FlowId));
            }
        }
        if self.sample_interval.is_some() {
            self.q.schedule(0, Ev::Sample);
        }
    }

    /// Run to the configured duration and report.
    pub fn run(mut self) -> RunResult {
        let t0 = std::time::Instant::now();
        self.prime();
        while let Some((now, ev)) = self.q.pop_until(self.duration) {
            self.handle(now, ev);
        }
        self.q.advance_to(self.duration);
        let wall = t0.elapsed().as_secs_f64();
        report::build(&mut self, wall)
    }

    fn handle(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::TxDone(d) => self.tx_done(now, d),
            Ev::Arrive(d, p) => self.arrive(now, d, p),
            Ev::Rto(f) => self.rto_fired(now, f),
            Ev::DelAck(f) => self.delack_fired(now, f),
            Ev::AppStart(f) => self.app_start(now, f),
            Ev::AppStop(f) => self.app_stop(f),
            Ev::UdpSend(f) => self.udp_send(now, f),
            Ev::Sample => self.sample(now),
            Ev::SnoopTimer(f) => self.snoop_timer(now, f),
        }
    }

    // ---- links -------------------------------------------------------

    /// Hand a packet to node `n`: deliver it if addressed there, else
    /// forward it on the route towards its destination.
    fn at_node(&mut self, now: Time, n: NodeId, id: PktId) {
        let p = self.pool.get(id);
        let dst = p.ip.dst;
        if p.payload == 0 && self.flows[p.flow as usize].eln {
            self.eln_mark(n, id);
        }
        if self.snoop_nodes[n as usize] && dst != n && !self.snoop_pass(now, n, id) {
            return;
        }
        if dst == n {
            let p = self.pool.take(id);
            self.deliver(now, n, p);
            return;
        }
        match self.routes.next(n, dst) {
            Some(d) => self.enqueue(now, d, id),
            None => {
                self.drops_no_route += 1;
                self.pool.take(id);
            }
        }
    }

    /// Snoop at node `n` sees a TCP packet of a connection it is in the
    /// middle of. Returns false if the packet was consumed (a suppressed
    /// duplicate ACK).
    fn snoop_pass(&mut self, now: Time, n: NodeId, id: PktId) -> bool {
        let p = *self.pool.get(id);
        let Transport::Tcp(h) = p.l4 else { return true };
        let fid = p.flow;
        let (fsrc, fdst) = (self.flows[fid as usize].src, self.flows[fid as usize].dst);
        if n == fsrc {
            return true;
        }
        let to_mobile = p.ip.src == fsrc;
        let room = match self.routes.next(n, fdst) {
            Some(d) => self.dirs[d as usize].queue.has_room(),
            None => return true,
        };
        let flow = &mut self.flows[fid as usize];
        let idx = match flow.snoop.iter().position(|(node, _)| *node == n) {
            Some(i) => i,
            None => {
                flow.snoop.push((n, SnoopConn::default()));
                flow.snoop.len() - 1
            }
        };
        let conn = &mut flow.snoop[idx].1;
        if to_mobile {
            if p.payload > 0 {
                conn.on_data(&p, h.seq, room);
            }
            self.sync_snoop(fid);
            return true;
        }
        let keep = match conn.on_ack(now, h.ack) {
            AckAction::Forward => true,
            AckAction::Suppress => false,
            AckAction::Retransmit(seq) => {
                self.snoop_rxmit(now, fid, idx, seq);
                false
            }
        };
        if !keep {
            self.pool.take(id);
        }
        self.sync_snoop(fid);
        keep
    }

    /// Send the cached segment at `seq` again from the Snoop node, ahead of
    /// whatever waits in the queue towards the mobile.
    fn snoop_rxmit(&mut self, now: Time, fid: FlowId, idx: usize, seq: u64) {
        let flow = &mut self.flows[fid as usize];
        let (n, conn) = &mut flow.snoop[idx];
        let n = *n;
        let Some(copy) = conn.take_for_rxmit(seq) else { return };
        let fdst = flow.dst;
        let Some(d) = self.routes.next(n, fdst) else { return };
        let id = self.pool.insert(copy);
        self.trace_push(now, fid, TraceKind::LocalRetransmit, seq, copy.payload);
        let dir = &mut self.dirs[d as usize];
        if dir.idle(now) {
            self.start_tx(now, d, id);
        } else {
            dir.note_queue(now);
            dir.queue.enqueue_front(id, copy.size);
            self.arm_tx_done(d);
        }
    }

    fn sync_snoop(&mut self, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        let Some(d) = f.snoop.iter().filter_map(|(_, c)| c.deadline()).min() else { return };
        if f.snoop_slot.map_or(true, |s| d < s) {
            f.snoop_slot = Some(d);
            self.q.schedule(d, Ev::SnoopTimer(fid));
        }
    }

    fn snoop_timer(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        if f.snoop_slot != Some(now) {
            return;
        }
        f.snoop_slot = None;
        for idx in 0..f.snoop.len() {
            let seq = self.flows[fid as usize].snoop[idx].1.on_timer(now);
            if let Some(seq) = seq {
                self.snoop_rxmit(now, fid, idx, seq);
            }
        }
        self.sync_snoop(fid);
    }

    /// ELN at a node that saw corruption losses on its outgoing hop: an ACK
    /// passing back through it whose cumulative ACK is the start of such a
    /// hole reports that hole, and gets the ELN bit (Balakrishnan & Katz
    /// 1998). Holes the ACK covers are forgotten.
    fn eln_mark(&mut self, n: NodeId, id: PktId) {
        let p = self.pool.get_mut(id);
        let Transport::Tcp(h) = &mut p.l4 else { return };
        let holes = &mut self.flows[p.flow as usize].eln_holes;
        if holes.is_empty() {
            return;
        }
        // Each node keeps its own notes: only this node's are pruned here
        // (an ACK leaving the receiver must not erase what the base station
        // still has to flag on the duplicates behind it).
        holes.retain(|&(node, _, end)| node != n || end > h.ack);
        if holes.iter().any(|&(node, start, _)| node == n && start == h.ack) {
            h.eln = true;
        }
    }

    /// Offer a packet to a link direction. An idle transmitter starts at
    /// once; otherwise the packet waits in the queue and one `TxDone` event
    /// (at the end of the current transmission) pulls the next packet. Links
    /// that never queue therefore cost one event per packet, not two.
    fn enqueue(&mut self, now: Time, d: u32, id: PktId) {
        let dir = &mut self.dirs[d as usize];
        if dir.idle(now) {
            self.start_tx(now, d, id);
            return;
        }
        let p = self.pool.get(id);
        let (size, ect) = (p.size, matches!(p.ip.ecn, Ecn::Ect0 | Ecn::Ect1));
        dir.note_queue(now);
        match dir.queue.enqueue(now, id, size, ect, &mut dir.queue_rng) {
            Verdict::Enqueued => {}
            Verdict::Marked => {
                dir.stats.ecn_marks += 1;
                self.pool.get_mut(id).ip.ecn = Ecn::Ce;
            }
            Verdict::Dropped(cause) => {
                match cause {
                    DropCause::Overflow => dir.stats.drops_overflow += 1,
                    DropCause::Red => dir.stats.drops_red += 1,
                    DropCause::Soft => dir.stats.drops_soft += 1,
                }
                let p = self.pool.take(id);
                self.trace_drop(now, &p);
                return;
            }
        }
        self.arm_tx_done(d);
    }

    /// Make sure one `TxDone` is pending for a direction with queued packets.
    fn arm_tx_done(&mut self, d: u32) {
        let dir = &mut self.dirs[d as usize];
        if !dir.tx_event {
            dir.tx_event = true;
            self.q.schedule(dir.busy_until, Ev::TxDone(d));
        }
    }

    /// Serialise a packet from `now`; it reaches the far end after the
    /// transmission and propagation delays.
    fn start_tx(&mut self, now: Time, d: u32, id: PktId) {
        let size = self.pool.get(id).size;
        let dir = &mut self.dirs[d as usize];
        let t = dir.tx_time(size);
        dir.busy_until = now + t;
        dir.stats.busy_ns += t;
        dir.stats.packets_sent += 1;
        dir.stats.bytes_sent += (size + dir.framing) as u64;
        self.q.schedule(now + t + dir.delay, Ev::Arrive(d, id));
        let from = dir.from;
        if !self.captures.is_empty() {
            self.capture(now, id, |c| c.dir == Some(d) || c.node == Some(from));
        }
        if self.snoop_nodes[from as usize] {
            let p = self.pool.get(id);
            if let (Transport::Tcp(h), true) = (p.l4, p.payload > 0) {
                let fid = p.flow as usize;
                if let Some((_, conn)) = self.flows[fid].snoop.iter_mut().find(|(n, _)| *n == from) {
                    conn.on_transmit(now, h.seq);
                    self.sync_snoop(fid as FlowId);
                }
            }
        }
    }

    fn capture(&mut self, now: Time, id: PktId, wants: impl Fn(&Capture) -> bool) {
        let p = self.pool.get(id);
        let from_src = p.ip.src == self.flows[p.flow as usize].src;
        for c in self.captures.iter_mut().filter(|c| wants(c)) {
            c.writer.record(now, p, from_src);
        }
    }

    /// The transmitter is free: start the next queued packet, if any.
    fn tx_done(&mut self, now: Time, d: u32) {
        let dir = &mut self.dirs[d as usize];
        dir.tx_event = false;
        dir.note_queue(now);
        if let Some(next) = dir.queue.dequeue(now) {
            self.start_tx(now, d, next);
            if !self.dirs[d as usize].queue.is_empty() {
                self.arm_tx_done(d);
            }
        }
    }

    fn arrive(&mut self, now: Time, d: u32, id: PktId) {
        let dir = &mut self.dirs[d as usize];
        let p = self.pool.get(id);
        let wire = p.size + dir.framing;
        if !dir.error.is_none() && dir.error.corrupts(now, wire, p.payload, &mut dir.rng) {
            dir.stats.drops_corruption += 1;
            let from = dir.from;
            let p = self.pool.take(id);
            if let (true, Transport::Tcp(h)) = (p.payload > 0 && self.flows[p.flow as usize].eln, p.l4) {
                self.flows[p.flow as usize].eln_holes.push((from, h.seq, h.seq + p.payload as u64));
            }
            self.trace_drop(now, &p);
            return;
        }
        dir.stats.packets_delivered += 1;
        let to = dir.to;
        if !self.captures.is_empty() {
            self.capture(now, id, |c| c.node == Some(to));
        }
        self.at_node(now, to, id);
    }

    // ---- endpoints ---------------------------------------------------

    fn deliver(&mut self, now: Time, node: NodeId, p: Packet) {
        let fid = p.flow;
        let f = &mut self.flows[fid as usize];
        match (&mut f.ep, p.l4) {
            (Endpoint::Tcp { rx, .. }, Transport::Tcp(h)) if node == f.dst => {
                rx.note_ecn(p.ip.ecn == Ecn::Ce, h.flags & flags::CWR != 0);
                let ack_now = rx.on_segment(now, h.seq, p.payload, h.ts.map(|t| t.0));
                if let (Some(n), None) = (f.first_bytes, f.first_bytes_at) {
                    if rx.delivered() >= n {
                        f.first_bytes_at = Some(now);
                    }
                }
                if ack_now {
                    self.send_ack(now, fid);
                } else {
                    self.sync_delack(fid);
                }
            }
            (Endpoint::Tcp { tx, .. }, Transport::Tcp(h)) => {
                if self.trace.is_some() {
                    let kind = if h.ack > tx.snd_una { TraceKind::Ack } else { TraceKind::DupAck };
                    self.trace_push(now, fid, kind, h.ack, 0);
                    for b in &h.sack[..h.nsack as usize] {
                        self.trace_push(now, fid, TraceKind::Sack, b.start, (b.end - b.start) as u32);
                    }
                }
                let f = &mut self.flows[fid as usize];
                if let Endpoint::Tcp { tx, .. } = &mut f.ep {
                    tx.on_ack(now, &h);
                }
                self.tcp_output(now, fid);
            }
            (Endpoint::Udp(u), Transport::Udp(_)) => {
                u.stats.packets_received += 1;
                u.stats.bytes_received += p.payload as u64;
                u.last_rx = now;
            }
            _ => unreachable!("packet of the wrong transport for its flow"),
        }
    }

    fn new_packet(&mut self, now: Time, fid: FlowId, from_src: bool, l4: Transport, payload: u32, hdr: u32) -> PktId {
        let f = &self.flows[fid as usize];
        let (src, dst) = if from_src { (f.src, f.dst) } else { (f.dst, f.src) };
        self.pool.insert(Packet {
            uid: 0,
            flow: fid,
            ip: IpHeader { src, dst, ecn: Default::default(), ttl: 64 },
            l4,
            payload,
            size: crate::packet::IP_HEADER + hdr + payload,
            born: now,
        })
    }

    /// Let the sender put out everything its window allows.
    fn tcp_output(&mut self, now: Time, fid: FlowId) {
        loop {
            let (seg, window, ts) = match &mut self.flows[fid as usize].ep {
                Endpoint::Tcp { tx, rx, .. } => match tx.poll_transmit(now) {
                    Some(s) => (s, rx.window, tx.cfg.timestamps),
                    None => break,
                },
                _ => unreachable!(),
            };
            let h = TcpHeader {
                seq: seg.seq,
                flags: flags::ACK | flags::PSH | if seg.cwr { flags::CWR } else { 0 },
                window,
                ts: ts.then(|| (TcpSender::ts_clock(now), 0)),
                ..Default::default()
            };
            let hl = h.wire_len();
            let kind = if seg.retransmit { TraceKind::Retransmit } else { TraceKind::Send };
            self.trace_push(now, fid, kind, seg.seq, seg.len);
            let id = self.new_packet(now, fid, true, Transport::Tcp(h), seg.len, hl);
            if seg.ect {
                self.pool.get_mut(id).ip.ecn = Ecn::Ect0;
            }
            let src = self.flows[fid as usize].src;
            self.at_node(now, src, id);
        }
        self.sync_rto(fid);
    }

    fn send_ack(&mut self, now: Time, fid: FlowId) {
        let h = match &mut self.flows[fid as usize].ep {
            Endpoint::Tcp { rx, .. } => {
                let a = rx.make_ack();
                TcpHeader {
                    ack: a.ack,
                    flags: flags::ACK | if a.ece { flags::ECE } else { 0 },
                    window: rx.window,
                    sack: a.sack,
                    nsack: a.nsack,
                    ts: a.ts_ecr.map(|ecr| (TcpSender::ts_clock(now), ecr)),
                    ..Default::default()
                }
            }
            _ => unreachable!(),
        };
        let hl = h.wire_len();
        let id = self.new_packet(now, fid, false, Transport::Tcp(h), 0, hl);
        let dst = self.flows[fid as usize].dst;
        self.at_node(now, dst, id);
    }

    /// Make sure an event exists at or before the sender's RTO deadline.
    /// Timers are lazy: a later deadline reuses the earlier event, which
    /// re-arms itself when it finds the deadline has moved.
    fn sync_rto(&mut self, fid: FlowId) {
        if let Endpoint::Tcp { tx, rto_slot, .. } = &mut self.flows[fid as usize].ep {
            if let Some(d) = tx.rto_deadline() {
                if rto_slot.map_or(true, |s| d < s) {
                    *rto_slot = Some(d);
                    self.q.schedule(d, Ev::Rto(fid));
                }
            }
        }
    }

    fn sync_delack(&mut self, fid: FlowId) {
        if let Endpoint::Tcp { rx, delack_slot, .. } = &mut self.flows[fid as usize].ep {
            if let Some(d) = rx.delack_deadline() {
                if delack_slot.map_or(true, |s| d < s) {
                    *delack_slot = Some(d);
                    self.q.schedule(d, Ev::DelAck(fid));
                }
            }
        }
    }

    fn rto_fired(&mut self, now: Time, fid: FlowId) {
        if let Endpoint::Tcp { tx, rto_slot, .. } = &mut self.flows[fid as usize].ep {
            if *rto_slot != Some(now) {
                return; // superseded by an earlier event
            }
            *rto_slot = None;
            if tx.on_timeout(now) {
                self.tcp_output(now, fid);
            } else {
                self.sync_rto(fid);
            }
        }
    }

    fn delack_fired(&mut self, now: Time, fid: FlowId) {
        if let Endpoint::Tcp { rx, delack_slot, .. } = &mut self.flows[fid as usize].ep {
            if *delack_slot != Some(now) {
                return;
            }
            *delack_slot = None;
            if rx.on_delack_timer(now) {
                self.send_ack(now, fid);
            } else {
                self.sync_delack(fid);
            }
        }
    }

    fn app_start(&mut self, now: Time, fid: FlowId) {
        let app = self.flows[fid as usize].app.clone();
        match &mut self.flows[fid as usize].ep {
            Endpoint::Tcp { tx, .. } => {
                match app {
                    App::Bulk { .. } => tx.app_write(None),
                    // With the default unlimited send buffer the application
                    // writes its whole transfer at once; write size then only
                    // matters for bookkeeping.
                    App::Transfer { bytes, .. } => tx.app_write(Some(bytes)),
                    App::Cbr { .. } => {}
                }
                self.tcp_output(now, fid);
            }
            Endpoint::Udp(_) => self.udp_send(now, fid),
        }
    }

    fn app_stop(&mut self, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        f.stopped = true;
        if let Endpoint::Tcp { tx, .. } = &mut f.ep {
            tx.app_close();
        }
    }

    fn udp_send(&mut self, now: Time, fid: FlowId) {
        let f = &mut self.flows[fid as usize];
        let interval = match f.app {
            App::Cbr { interval, .. } => interval,
            _ => return,
        };
        if f.stopped {
            return;
        }
        let Endpoint::Udp(u) = &mut f.ep else { unreachable!() };
        let seqno = u.next_seq;
        u.next_seq += 1;
        let payload = u.payload;
        u.stats.packets_sent += 1;
        u.stats.bytes_sent += payload as u64;
        let id = self.new_packet(now, fid, true, Transport::Udp(UdpHeader { seqno }), payload, crate::packet::UDP_HEADER);
        let src = self.flows[fid as usize].src;
        self.at_node(now, src, id);
        self.q.schedule(now + interval, Ev::UdpSend(fid));
    }

    // ---- measurements ------------------------------------------------

    fn sample(&mut self, now: Time) {
        report::sample(self, now);
        if let Some(iv) = self.sample_interval {
            self.q.schedule(now + iv, Ev::Sample);
        }
    }

    fn trace_push(&mut self, now: Time, flow: FlowId, kind: TraceKind, seq: u64, len: u32) {
        if let Some(t) = self.trace.as_mut() {
            t.push(TraceRecord { time: now, flow, kind, seq, len });
        }
    }

    fn trace_drop(&mut self, now: Time, p: &Packet) {
        if self.trace.is_some() {
            if let Transport::Tcp(h) = p.l4 {
                if p.payload > 0 {
                    self.trace_push(now, p.flow, TraceKind::Drop, h.seq, p.payload);
                }
            }
        }
    }

    pub fn now_s(&self) -> f64 {
        to_secs(self.q.now())
    }
}
