//! The world: nodes (with their devices, routing, agents and sockets) tied
//! to one event queue. Every protocol is a sans-IO state machine living in a
//! lower layer; this module only moves packets between them, carries out the
//! actions they return and fires their timers.

mod endpoints;
pub mod external;
mod forward;
pub mod node;
mod report;
mod split;
pub mod trace;

pub use node::{Node, NodeStats};
pub use report::{
    link_dirs_table, queue_rows, trace_sink, Samples, LINUX_COUNTERS, QUEUES_SCHEMA, SERIES_SCHEMA, SPLIT_COUNTERS,
};
pub use split::Split;
pub use trace::{Capture, TraceKind};

use crate::engine::time::to_secs;
use crate::engine::{prefetch, EventQueue, Rng, Time};
use crate::mechanisms::{AgentAction, ConnKey};
use crate::net::{DevActions, DevEvent, DevId, Device};
use crate::output::{RowSink, RunError, RunResult};
use crate::packet::{FlowId, NodeId, PacketPool};
use crate::transport::app::App;
use crate::transport::socket::{SockId, Socket, SocketKind};
use crate::transport::tcp::{TcpReceiver, TcpSender};
use forward::PendingEnd;

/// Events are small and `Copy`; packets travel as `PktId`s inside them.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// Events a device scheduled for itself (`DevEvent`, flattened so an
    /// event stays 12 bytes).
    DevTxDone(DevId),
    DevArrive(DevId, crate::packet::PktId),
    /// A frame sent by device `sender` reaches the receivers in
    /// `sender`'s fan-out list from index `first` on that have the same
    /// propagation delay: one event standing for their consecutive
    /// arrivals (see `DevScheduler::fan_out`).
    FanArrive(DevId, crate::packet::PktId, u16),
    /// The receptions of one frame ending at the same time at `count`
    /// receivers in device `sender`'s fan-out list from index `first` on:
    /// one event standing for their consecutive `FrameEnd`s (see
    /// `World::fan_arrive`).
    FanEnd {
        sender: DevId,
        first: u16,
        count: u16,
    },
    DevTimer(DevId, u32),
    DevFrameEnd(DevId),
    /// A socket's timer (retransmission, delayed ACK).
    Socket(SockId),
    /// Timer `token` of agent number `agent` at a node.
    Agent(NodeId, u16, u32),
    /// A node's routing protocol timer.
    Routing(NodeId),
    AppStart(FlowId),
    AppStop(FlowId),
    /// A constant-bit-rate application sends its next datagram.
    AppSend(FlowId),
    /// A transfer's later write number `i` (`App::Transfer::more`), or a
    /// messages app's interval change number `i`.
    AppMore(FlowId, u32),
    /// A messages app's next message.
    AppMessage(FlowId),
    Sample,
}

/// A flow as the scenario describes it: an application driving a sender
/// socket towards a receiver socket. Kept for the application's events and
/// the per-flow report; packets never look it up.
pub struct Flow {
    pub name: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub transport: String,
    pub app: App,
    /// The source's sender and the destination's receiver.
    pub tx: SockId,
    pub rx: SockId,
    /// A split connection (I-TCP): the node between that relays.
    pub split: Option<Split>,
    pub stopped: bool,
    /// Payload bytes acknowledged at the sender and delivered to the
    /// receiving application (received, for UDP) when the application
    /// stopped: a flow's rates count what arrived by its stop, not what was
    /// still queued then and arrived later (which could exceed the link).
    pub at_stop: Option<(u64, u64)>,
    /// When the flow's receiver had its first `first_bytes` bytes (the
    /// threshold is the receiving socket's `first_bytes_due`).
    pub first_bytes_at: Option<Time>,
    /// A cbr app with `random = true`: the stream its intervals are drawn
    /// from (`flow<i>.cbr`).
    pub cbr_jitter: Option<Rng>,
    /// A messages app: where its gaps are drawn from (the mean is the
    /// app's `interval`, changed by its `changes`).
    pub gaps: Option<Gaps>,
}

/// The draws of a messages app's exponential gaps.
pub enum Gaps {
    /// The flow's own stream (`flow<i>.messages`).
    Own(Rng),
    /// ns-2.35's default generator, as its Telnet source draws them.
    Ns2(crate::engine::Ns2Rng),
}

impl Gaps {
    /// The next gap of mean `interval`, in whole ns: interval x -ln(u),
    /// u in (0, 1] (ns-2's TelnetApp::next() with RNG::exponential()).
    pub fn gap(&mut self, interval: Time) -> Time {
        let u = match self {
            Gaps::Own(r) => 1.0 - r.uniform(),
            Gaps::Ns2(r) => r.uniform(),
        };
        (interval as f64 * -u.ln()).round() as Time
    }
}

/// No device (`ArriveEnd::out`).
const NO_DEV: DevId = DevId::MAX;

/// What the run loop prefetches, beside the packet, device and node, for an
/// arrival over a device at a TCP end (a node with exactly one socket, a
/// TCP sender or receiver): addresses only ever prefetched, never read
/// through (the boxes do not move while the world runs).
#[derive(Clone, Copy)]
struct ArriveEnd {
    /// The node's socket.
    sock: SockId,
    /// The node's only device, what the answer leaves on (`NO_DEV` when it
    /// has several).
    out: DevId,
    /// The boxed TCP state; 0 when the node is no TCP end.
    end: usize,
    /// A sender's congestion-control state (a box of its own, read on
    /// every ACK after the sender's first line: a dependent miss at 1000
    /// flows until it was prefetched, 8-11 % of that run); 0 otherwise.
    cc: usize,
}

impl ArriveEnd {
    const NONE: ArriveEnd = ArriveEnd { sock: 0, out: NO_DEV, end: 0, cc: 0 };
}

impl Ev {
    /// The queue event for a device's own event.
    #[inline]
    pub fn device(dev: DevId, ev: DevEvent) -> Ev {
        match ev {
            DevEvent::TxDone => Ev::DevTxDone(dev),
            DevEvent::Arrive(p) => Ev::DevArrive(dev, p),
            DevEvent::Timer(t) => Ev::DevTimer(dev, t),
            DevEvent::FrameEnd => Ev::DevFrameEnd(dev),
        }
    }
}

impl Flow {
    /// The flow's connection as per-hop agents see it.
    pub fn conn_key(&self, sockets: &[Socket]) -> ConnKey {
        let (tx, rx) = (&sockets[self.tx as usize], &sockets[self.rx as usize]);
        ConnKey { src: tx.node, sport: tx.port, dst: rx.node, dport: rx.port }
    }
}

pub struct World {
    pub q: EventQueue<Ev>,
    pub nodes: Vec<Node>,
    pub devices: Vec<Device>,
    /// The node owning each device (looked up on every transmission).
    dev_node: Vec<NodeId>,
    /// The node an arrival over each device is at: a point-to-point
    /// device's far end (the device belongs to the near one), an 802.11
    /// receiver's own node. The run loop prefetches it (`prefetch_next`);
    /// until 2026-11-29 it prefetched `dev_node`, a link's near end, the
    /// node the packet was leaving (1000 flows 2-4 % slower).
    arrive_node: Vec<NodeId>,
    /// For an arrival over each device, the TCP end there if any
    /// (`ArriveEnd`), so the run loop can prefetch it one event ahead
    /// (`prefetch_next`).
    arrive_end: Vec<ArriveEnd>,
    /// Whether a device's transmissions are watched (a capture exists, or
    /// its node has agents): only then does it report them.
    dev_watched: Vec<bool>,
    /// Any device watched at all: when not (no capture, no agent: the
    /// common case), a transmission need not look its device up in
    /// `dev_watched`, a miss per hop once the devices outgrow the cache.
    any_watched: bool,
    pub sockets: Vec<Socket>,
    pub flows: Vec<Flow>,
    pub pool: PacketPool,
    pub duration: Time,
    pub seed: u64,
    pub sample_interval: Option<Time>,
    /// Time-sequence trace rows (memory or a CSV file, see `output::stream`).
    pub trace: Option<RowSink>,
    pub samples: report::Samples,
    pub captures: Vec<Capture>,
    /// Packets handed to a socket or routing protocol at their destination.
    pub delivered: u64,
    /// Packets consumed by per-hop agents.
    pub consumed: u64,
    /// 802.11 frames given up at the retry limit that their next hop had
    /// decoded (summary.json `retry_drops_received`).
    pub retry_drops_received: u64,
    /// Action list of agents, used as a stack: a call appends its actions,
    /// carries them out (nested calls append and clear after them) and
    /// truncates back, so steady state allocates nothing.
    agent_actions: Vec<AgentAction>,
    /// Action list of devices, used as a stack the same way (most device
    /// events return no action: then it costs two length reads).
    dev_actions: DevActions,
    /// Events that `FanArrive` events stood for beyond one each: the run's
    /// event count is the same as with one event per arrival.
    merged_events: u64,
    /// While a `FanArrive` is handled: the ends of the receptions it
    /// started, numbered but not yet queued (see `World::fan_arrive`).
    pending_ends: Vec<PendingEnd>,
    batching_ends: bool,
    /// The applications and timers are scheduled (`prime` ran).
    primed: bool,
    /// Packets from outside handed out at their destination
    /// (`external.rs`); None: such packets are dropped as without a socket.
    external: Option<Vec<external::Delivered>>,
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        nodes: Vec<Node>,
        devices: Vec<Device>,
        sockets: Vec<Socket>,
        flows: Vec<Flow>,
        duration: Time,
        seed: u64,
        sample_interval: Option<Time>,
        trace: Option<RowSink>,
        samples: Samples,
        captures: Vec<Capture>,
    ) -> Self {
        let dev_watched: Vec<bool> = devices
            .iter()
            .map(|d| !captures.is_empty() || !nodes[d.as_dyn().node() as usize].agents.is_empty())
            .collect();
        let mut w = World {
            q: EventQueue::new(),
            dev_node: devices.iter().map(|d| d.as_dyn().node()).collect(),
            arrive_node: devices
                .iter()
                .map(|d| match d {
                    Device::P2p(p) => p.to,
                    d => d.as_dyn().node(),
                })
                .collect(),
            arrive_end: Vec::new(),
            any_watched: dev_watched.contains(&true),
            dev_watched,
            nodes,
            devices,
            sockets,
            flows,
            pool: PacketPool::new(),
            duration,
            seed,
            sample_interval,
            trace,
            samples,
            captures,
            delivered: 0,
            consumed: 0,
            retry_drops_received: 0,
            agent_actions: Vec::new(),
            dev_actions: Vec::new(),
            merged_events: 0,
            pending_ends: Vec::new(),
            batching_ends: false,
            primed: false,
            external: None,
        };
        w.arrive_end = w
            .arrive_node
            .iter()
            .map(|&n| {
                let node = &w.nodes[n as usize];
                let out = match node.devices[..] {
                    [d] => d,
                    _ => NO_DEV,
                };
                let [sock] = node.sockets[..] else { return ArriveEnd::NONE };
                let (end, cc) = match &w.sockets[sock as usize].kind {
                    SocketKind::TcpSender(tx) => (&**tx as *const TcpSender as usize, tx.cc_addr()),
                    SocketKind::TcpReceiver(rx) => (&**rx as *const TcpReceiver as usize, 0),
                    _ => (0, 0),
                };
                ArriveEnd { sock, out, end, cc }
            })
            .collect();
        w
    }

    /// Schedule the applications and the sampler; call once before `run`.
    fn prime(&mut self) {
        if std::mem::replace(&mut self.primed, true) {
            return;
        }
        // Routing protocols with periodic messages start their timers.
        for n in 0..self.nodes.len() {
            if !matches!(self.nodes[n].routing, crate::net::routing::Router::Static(_)) {
                self.sync_routing_timer(n as NodeId);
            }
        }
        for i in 0..self.flows.len() {
            let f = &self.flows[i];
            self.q.schedule(f.app.start(), Ev::AppStart(i as FlowId));
            if let Some(stop) = f.app.stop() {
                self.q.schedule(stop, Ev::AppStop(i as FlowId));
            }
            let later = match &f.app {
                App::Transfer { more, .. } => more.iter().map(|&(at, _)| at).collect(),
                App::Messages { changes, .. } => changes.iter().map(|&(at, _)| at).collect(),
                _ => Vec::new(),
            };
            for (j, at) in later.into_iter().enumerate() {
                self.q.schedule(at, Ev::AppMore(i as FlowId, j as u32));
            }
        }
        if self.sample_interval.is_some() {
            self.q.schedule(0, Ev::Sample);
        }
    }

    /// Run to the configured duration and report. Panics where `run_with`
    /// returns an error (event-queue overflow, a streamed file not written).
    pub fn run(self) -> RunResult {
        self.run_with(|_| false).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Run to the configured duration and report; `interrupted` is asked
    /// about every `CHECK_EVERY` events, told the simulated time reached
    /// (the front ends check for Ctrl-C there and show progress), and a
    /// true answer stops the run with `RunError::Interrupted`.
    pub fn run_with(mut self, mut interrupted: impl FnMut(Time) -> bool) -> Result<RunResult, RunError> {
        const CHECK_EVERY: u32 = 4096;
        let t0 = std::time::Instant::now();
        self.prime();
        let mut countdown = CHECK_EVERY;
        while let Some((now, ev)) = self.q.pop_until(self.duration) {
            if self.q.prefetching() {
                self.q.ready_next();
                self.prefetch_next();
            }
            self.handle(now, ev);
            countdown -= 1;
            if countdown == 0 {
                countdown = CHECK_EVERY;
                self.check_health()?;
                if interrupted(now) {
                    return Err(RunError::Interrupted);
                }
            }
        }
        self.check_health()?;
        self.q.advance_to(self.duration);
        let wall = t0.elapsed().as_secs_f64();
        report::build(&mut self, wall).map_err(RunError::Io)
    }

    /// Run the events before `until` (at most to the configured duration)
    /// and stop there, so a test can look at the nodes (routing tables) in
    /// the middle of a run; `run` carries on from there.
    pub fn run_until(&mut self, until: Time) {
        self.prime();
        while let Some((now, ev)) = self.q.pop_until(until.min(self.duration)) {
            self.handle(now, ev);
        }
    }

    /// Stop early on a refused event or a failed result file.
    fn check_health(&self) -> Result<(), RunError> {
        if self.q.overflowed() {
            return Err(RunError::QueueOverflow { at_s: to_secs(self.q.now()), pending: self.q.len() });
        }
        let capture_error = || self.captures.iter().find_map(|c| c.writer.error());
        if let Some(e) =
            self.trace.as_ref().and_then(|t| t.error()).or_else(|| self.samples.error()).or_else(capture_error)
        {
            return Err(RunError::Io(std::io::Error::new(e.kind(), e.to_string())));
        }
        Ok(())
    }

    /// Inlined into the run loop: one call less per event (the merged
    /// events' loops stay out of line, so the loop stays small).
    #[inline(always)]
    fn handle(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::DevTxDone(d) => self.device_event(now, d, DevEvent::TxDone),
            Ev::DevArrive(d, p) => self.device_event(now, d, DevEvent::Arrive(p)),
            Ev::FanArrive(d, p, first) => self.fan_arrive(now, d, p, first),
            Ev::DevTimer(d, t) => self.device_timer(now, d, t),
            Ev::DevFrameEnd(d) => self.device_event(now, d, DevEvent::FrameEnd),
            Ev::FanEnd { sender, first, count } => self.fan_end(now, sender, first, count),
            Ev::Socket(s) => self.socket_timer(now, s),
            Ev::Agent(n, a, token) => self.agent_timer(now, n, a, token),
            Ev::Routing(n) => self.routing_timer(now, n),
            Ev::AppStart(f) => self.app_start(now, f),
            Ev::AppStop(f) => self.app_stop(now, f),
            Ev::AppSend(f) => self.udp_send(now, f),
            Ev::AppMore(f, i) => self.app_more(now, f, i),
            Ev::AppMessage(f) => self.app_message(now, f),
            Ev::Sample => self.sample(now),
        }
    }

    /// Ask for the lines the next event will read first (its packet, its
    /// device, its socket) while this one is handled. Only a hint: see
    /// `engine::prefetch`.
    #[inline(always)]
    fn prefetch_next(&self) {
        match self.q.peek_next() {
            Some(&Ev::DevArrive(d, p)) => {
                self.pool.prefetch(p);
                self.prefetch_device(d);
                // The node's first line: its agents and sockets (`Node`).
                let node = self.nodes.as_ptr().wrapping_add(self.arrive_node[d as usize] as usize) as *const u8;
                prefetch(node);
                let ArriveEnd { sock, out, end, cc } = self.arrive_end[d as usize];
                if end != 0 {
                    prefetch(self.sockets.as_ptr().wrapping_add(sock as usize));
                    prefetch(end as *const u8);
                    prefetch((end + 64) as *const u8);
                    if cc != 0 {
                        prefetch(cc as *const u8);
                    }
                    if out != NO_DEV {
                        self.prefetch_device(out);
                    }
                }
            }
            Some(&Ev::DevTxDone(d)) => self.prefetch_device(d),
            Some(&Ev::Socket(s)) => prefetch(self.sockets.as_ptr().wrapping_add(s as usize)),
            _ => {}
        }
    }

    /// A device's first line (all a point-to-point hop reads: `PointToPoint`).
    #[inline(always)]
    fn prefetch_device(&self, d: DevId) {
        prefetch(self.devices.as_ptr().wrapping_add(d as usize) as *const u8);
    }

    // ---- measurements ------------------------------------------------

    fn sample(&mut self, now: Time) {
        report::sample(self, now);
        if let Some(iv) = self.sample_interval {
            self.q.schedule(now + iv, Ev::Sample);
        }
    }

    #[inline(always)]
    fn trace_push(&mut self, now: Time, flow: FlowId, kind: TraceKind, seq: u64, len: u32) {
        if self.trace.is_some() {
            self.trace_write(now, (flow, false), kind, seq, len);
        }
    }

    /// A trace row for sender socket `sid`: a split node's sending end
    /// writes under its own name (`Split::trace_name`).
    #[inline(always)]
    fn trace_sock(&mut self, now: Time, sid: SockId, kind: TraceKind, seq: u64, len: u32) {
        if self.trace.is_some() {
            let s = &self.sockets[sid as usize];
            let relay = s.split == crate::transport::socket::SplitRole::RelayOut;
            self.trace_write(now, (s.flow, relay), kind, seq, len);
        }
    }

    /// A row for flow `who.0`; `who.1`: of a split flow's second
    /// connection.
    #[cold]
    fn trace_write(&mut self, now: Time, who: (FlowId, bool), kind: TraceKind, seq: u64, len: u32) {
        let f = &self.flows[who.0 as usize];
        let name = match (&f.split, who.1) {
            (Some(sp), true) => &sp.trace_name,
            _ => &f.name,
        };
        if let Some(t) = self.trace.as_mut() {
            report::trace_row(t, name, now, kind, seq, len);
        }
    }

    /// Device `dev`'s transmissions are reported (see `dev_watched`).
    #[inline(always)]
    fn watched(&self, dev: DevId) -> bool {
        self.any_watched && self.dev_watched[dev as usize]
    }

    /// Events handled so far, each arrival of a `FanArrive` counted.
    pub fn events(&self) -> u64 {
        self.q.processed() + self.merged_events
    }

    pub fn now_s(&self) -> f64 {
        to_secs(self.q.now())
    }
}
