//! The 802.11 DCF MAC with its PHY's reception rules, as one station's
//! device. Sans-IO like every device: it schedules its own timers and the
//! `Arrive` events of its frames at the stations that hear them, and
//! returns `DevAction`s.
//!
//! PHY, per receiver: a frame arrives with a power (from the channel's
//! neighbour list, with a shadowing draw if that model is on). Below the
//! carrier-sense threshold it is ignored. Above it, it keeps the medium
//! busy until its last bit. It is decoded when its power reaches the receive
//! threshold, the station is not transmitting during it, and every frame
//! overlapping it at this receiver is at least the capture ratio weaker; an
//! overlapping frame that is not that much weaker destroys it (a collision
//! at this receiver). A frame sensed but not decoded makes the next wait
//! EIFS instead of DIFS.
//!
//! MAC (IEEE 802.11-2016 section 10.3): a frame that finds the medium idle
//! for DIFS goes at once; otherwise a backoff of [0, CW] slots counts down
//! while the medium is idle after DIFS (or EIFS) and freezes while it is
//! busy, physically or by the NAV. Unicast frames longer than the RTS
//! threshold are preceded by RTS/CTS; unicast data is acknowledged; a
//! missing CTS or ACK doubles CW and retries until the short (7) or long (4)
//! retry limit, then the frame is dropped and routing told the neighbour is
//! unreachable. After every exchange the station draws a new backoff
//! (post-backoff), so back-to-back frames of one station contend.

use super::arp::{self, ArpTable, Resolve};
use super::channel::Neighbour;
use super::ifq::{Class, InterfaceQueue, Offered};
use super::mobility::Mobility;
use super::params::{MacParams, PhyParams, ACK_LEN, CTS_LEN, RTS_LEN};
use super::propagation::Propagation;
use crate::engine::time::TxRate;
use crate::engine::{Rng, Time};
use crate::net::{DevAction, DevEvent, DevId, DevIo, DevScheduler, DropCause, DropReason, FanOut, NetDevice, Queue};
use crate::packet::{
    flags as tcp_flags, ControlHeader, LinkHeader, NodeId, Packet, PktId, Transport, BROADCAST, NO_FLOW,
};
use std::any::Any;
use std::sync::Arc;

/// Frame kinds in `LinkHeader::Mac::kind`.
pub mod frame {
    pub const DATA: u8 = 0;
    pub const RTS: u8 = 1;
    pub const CTS: u8 = 2;
    pub const ACK: u8 = 3;
}

/// `ControlHeader::proto` of MAC control frames (never seen above the MAC).
pub const PROTO_MAC: u16 = 0x0802;

// Timer tokens: the kind in the low bits, a generation above it for the
// timers that can be cancelled (a stale one is recognised and ignored).
const KIND_BITS: u32 = 3;
/// Generations wrap within the bits left above the kind.
const GEN_MASK: u32 = u32::MAX >> KIND_BITS;
const T_ACCESS: u32 = 0;
const T_TXEND: u32 = 1;
const T_TIMEOUT: u32 = 2;
const T_SIFS: u32 = 3;
const T_NAV: u32 = 4;
const T_CTS_WAIT: u32 = 5;

/// ns-2.35's DSSS_MaxPropagationDelay (2 us), in its wait after a CTS.
const NS2_MAX_PROPAGATION: Time = 2_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sent {
    Rts,
    Data,
    Broadcast,
    Cts,
    Ack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reply {
    /// A CTS to `to` for a data frame carrying `size` bytes of IP packet.
    Cts {
        to: NodeId,
        size: u32,
    },
    Ack {
        to: NodeId,
    },
    /// Our data frame, after the CTS.
    Data,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No exchange of ours under way (the station may be deferring or
    /// counting down its backoff).
    Idle,
    /// Transmitting.
    Tx(Sent),
    WaitCts,
    WaitAck,
    /// SIFS before a response or the data after a CTS.
    Sifs(Reply),
    /// `ns2_cts_wait`: our CTS went out; busy until the data it cleared
    /// arrives or this time.
    WaitData(Time),
}

/// A frame on the air at this receiver.
#[derive(Clone, Copy)]
struct Incoming {
    pkt: PktId,
    power: f64,
    end: Time,
    /// Still decodable.
    ok: bool,
    /// A decodable frame destroyed by an overlapping one.
    hit: bool,
    /// It reached us while we were transmitting (half duplex: never
    /// received, and its end is no reception error).
    during_tx: bool,
    /// `ns2_reception`: captured over, i.e. it began while the station was
    /// locked on a frame at least the capture ratio stronger, and ns-2
    /// forgets it (Mac802_11::capture frees it and keeps only a NAV to its
    /// end plus EIFS): it is sensed until its end but locks the receiver
    /// against no later frame and hurts none.
    forgotten: bool,
}

/// The head-of-line frame being sent.
#[derive(Clone, Copy, Debug)]
struct Current {
    pkt: PktId,
    to: Option<NodeId>,
    size: u32,
    rts: bool,
    /// Already shown to captures and agents (retransmissions are the MAC's
    /// business: a capture at the node shows the packet once).
    reported: bool,
}

/// The airtimes and interframe spaces every frame needs, computed once from
/// the MAC's parameters (each `MacParams` method is a 64-bit division per
/// call, and a station computes several per frame it senses). Equal to
/// `MacParams`' methods: `airtimes_match_mac_params` checks it.
#[derive(Clone, Copy, Debug)]
struct Air {
    plcp: Time,
    rts: Time,
    cts: Time,
    ack: Time,
    difs: Time,
    eifs: Time,
    data: TxRate,
    basic: TxRate,
    data_header: u32,
}

impl Air {
    fn new(m: &MacParams) -> Air {
        Air {
            plcp: m.plcp,
            rts: m.ctrl_air(RTS_LEN),
            cts: m.ctrl_air(CTS_LEN),
            ack: m.ctrl_air(ACK_LEN),
            difs: m.difs(),
            eifs: m.eifs(),
            data: TxRate::new(m.data_rate_bps),
            basic: TxRate::new(m.basic_rate_bps),
            data_header: m.data_header,
        }
    }

    /// `MacParams::ctrl_air`.
    fn ctrl(&self, len: u32) -> Time {
        match len {
            RTS_LEN => self.rts,
            CTS_LEN => self.cts,
            _ => self.plcp + self.basic.time(len as u64),
        }
    }

    /// `MacParams::data_air`.
    fn data(&self, size: u32, broadcast: bool) -> Time {
        let rate = if broadcast { self.basic } else { self.data };
        self.plcp + rate.time((self.data_header + size) as u64)
    }
}

/// Per-station counters (the nodes table).
#[derive(Clone, Debug, Default)]
pub struct WifiStats {
    /// Unicast data frames put on the air (retransmissions included).
    pub data_sent: u64,
    pub rts_sent: u64,
    pub cts_sent: u64,
    pub ack_sent: u64,
    pub broadcast_sent: u64,
    /// Retransmissions (of a data frame, or of its RTS) after a missing
    /// CTS or ACK.
    pub retries: u64,
    /// Decodable frames lost at this receiver to an overlapping frame.
    pub collisions: u64,
    pub drops_ifq: u64,
    pub drops_retry: u64,
    pub link_failures: u64,
    /// Unicast data frames the MAC started to send (each counted once).
    pub data_offered: u64,
    pub data_acked: u64,
    /// Frames decoded at this station (any kind, any address).
    pub frames_received: u64,
    /// Retransmitted data frames recognised and not delivered twice.
    pub duplicates: u64,
    /// Frames that would have been decoded here, corrupted by the
    /// station's frame error model (`frame_error_rate`).
    pub rx_errors: u64,
}

impl WifiStats {
    /// Data frames dropped after all retries / data frames offered.
    pub fn drop_probability(&self) -> f64 {
        if self.data_offered == 0 {
            0.0
        } else {
            self.drops_retry as f64 / self.data_offered as f64
        }
    }
}

pub struct Dcf {
    pub node: NodeId,
    /// The MAC's parameters (fixed once the station is built: `air` is
    /// derived from them).
    pub mac: MacParams,
    air: Air,
    pub phy: PhyParams,
    prop: Propagation,
    capture_ratio: f64,
    /// Stations that hear us (and that we hear), sorted by node.
    pub neighbours: Vec<Neighbour>,
    /// The same stations as a frame's receivers: sorted by (delay, rank),
    /// rank being the position in `neighbours` (the order in which their
    /// arrivals are numbered).
    fan: Vec<FanOut>,
    /// Moving stations: `neighbours` and `fan` are taken again from the
    /// positions of the instant each frame starts (`radiate`).
    mobility: Option<Arc<Mobility>>,
    /// Interface queue (ns-2's PriQueue or CMUPriQueue: `ifq`).
    pub queue: InterfaceQueue,
    queue_rng: Rng,
    backoff_rng: Rng,
    shadow_rng: Rng,
    cur: Option<Current>,
    /// From this time on the station's radio is off: it hears nothing and
    /// nothing it sends reaches anyone (a node switched off; tests).
    pub off_from: Time,
    /// Short and long retry counters of the current frame.
    src: u32,
    lrc: u32,
    cw: u32,
    /// Backoff slots still to count (None: no backoff pending).
    backoff: Option<u32>,
    /// The armed access timer: (when the slot count starts, slots).
    access: Option<(Time, u32)>,
    access_gen: u32,
    timeout_gen: u32,
    state: State,
    /// Frames on the air here. A Vec, not a SmallVec: it is looked at on
    /// every event (`medium_idle`), and its capacity, once grown to the
    /// most frames that overlapped, is kept.
    rx: Vec<Incoming>,
    nav_until: Time,
    /// The last frame sensed ended undecoded: the next wait is EIFS.
    eifs: bool,
    /// With `ns2_cts` or `ns2_eifs`: the end of the EIFS after the last
    /// frame sensed but not decoded, which ns-2 keeps as a NAV (holding a
    /// CTS back, and the medium busy).
    eifs_nav_until: Time,
    /// Medium idle as the backoff sees it, and since when.
    idle: bool,
    idle_since: Time,
    /// Last data frame seen from each transmitter (packet uid and TTL), to
    /// drop duplicates.
    last_seen: Vec<(NodeId, u64, u8)>,
    /// Our control frame on the air (our reference is released at its end).
    ctrl_on_air: Option<PktId>,
    /// `ns2_cts_wait`: when the wait after the CTS being sent ends.
    cts_wait_until: Time,
    /// When the answer to our RTS or data frame is due (the response
    /// timeout's first expiry, `await_response`).
    response_by: Time,
    /// Report data frames decoded for other stations (`Overheard`).
    promiscuous: bool,
    /// ns-2's ARP table (`ns2_arp`).
    arp: Option<ArpTable>,
    /// ARP's sends decided while frames were being taken off the air:
    /// offered once that is done.
    arp_out: Vec<(PktId, Option<NodeId>)>,
    /// The incoming frame error model: the probability that a frame this
    /// station would decode is corrupted, and the stream it is drawn from.
    frame_error: Option<(f64, Rng)>,
    pub stats: WifiStats,
}

/// A station's neighbours as a frame's receivers: sorted by (delay, rank),
/// rank being the position in `neighbours` (the order in which their
/// arrivals are numbered).
fn fan_of(neighbours: &[Neighbour]) -> Vec<FanOut> {
    let mut fan: Vec<FanOut> = neighbours
        .iter()
        .enumerate()
        .map(|(i, nb)| FanOut { dev: nb.dev, delay: nb.delay, rank: i as u32, power_w: nb.power_w })
        .collect();
    fan.sort_by_key(|f| (f.delay, f.rank));
    fan
}

impl Dcf {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        node: NodeId,
        mac: MacParams,
        phy: PhyParams,
        prop: Propagation,
        neighbours: Vec<Neighbour>,
        queue: InterfaceQueue,
        queue_rng: Rng,
        backoff_rng: Rng,
        shadow_rng: Rng,
    ) -> Self {
        Dcf {
            fan: fan_of(&neighbours),
            mobility: None,
            node,
            capture_ratio: phy.capture_ratio(),
            air: Air::new(&mac),
            mac,
            phy,
            prop,
            neighbours,
            queue,
            queue_rng,
            backoff_rng,
            shadow_rng,
            cur: None,
            src: 0,
            lrc: 0,
            cw: mac.cw_min,
            backoff: None,
            access: None,
            access_gen: 0,
            timeout_gen: 0,
            state: State::Idle,
            rx: Vec::new(),
            nav_until: 0,
            eifs: false,
            eifs_nav_until: 0,
            idle: true,
            idle_since: 0,
            last_seen: Vec::new(),
            ctrl_on_air: None,
            cts_wait_until: 0,
            response_by: 0,
            promiscuous: false,
            arp: mac.ns2_arp.then(ArpTable::default),
            arp_out: Vec::new(),
            frame_error: None,
            stats: WifiStats::default(),
            off_from: Time::MAX,
        }
    }

    /// Whether the radio is on at `now`.
    pub fn on(&self, now: Time) -> bool {
        now < self.off_from
    }

    /// Corrupt each frame this station would decode with probability
    /// `rate` (ns-2's incoming error model with unit packet, placed
    /// between its PHY and MAC): the frame is discarded as undecodable and
    /// the station waits EIFS, as after a collision.
    pub fn set_frame_errors(&mut self, rate: f64, rng: Rng) {
        self.frame_error = Some((rate, rng));
    }

    /// Whether the frame error model corrupts the frame being decoded.
    fn corrupted(&mut self) -> bool {
        let Some((rate, rng)) = &mut self.frame_error else { return false };
        let hit = rng.uniform() < *rate;
        self.stats.rx_errors += hit as u64;
        hit
    }

    /// Make the station's neighbours follow the stations' movement.
    pub fn set_mobility(&mut self, m: Arc<Mobility>) {
        self.mobility = Some(m);
    }

    fn timer<S: DevScheduler + ?Sized>(io: &mut DevIo<S>, at: Time, kind: u32, gen: u32) {
        io.sched.schedule(at, DevEvent::Timer(kind | (gen << KIND_BITS)));
    }

    /// A backoff count: uniform on [0, CW] (the standard), or on [0, CW - 1]
    /// with `ns2_backoff` (ns-2.35's `Random::random() % cw_`).
    fn draw(&mut self) -> u32 {
        let span = if self.mac.ns2_backoff { (self.cw as u64).max(1) } else { self.cw as u64 + 1 };
        (self.backoff_rng.next_u64() % span) as u32
    }

    /// Airtime of a frame on the air.
    #[inline(always)]
    fn air_of(&self, p: &Packet) -> Time {
        match p.l2 {
            LinkHeader::Mac { kind: frame::DATA, rx, .. } => self.air.data(p.size, rx == BROADCAST),
            LinkHeader::Mac { len, .. } => self.air.ctrl(len as u32),
            LinkHeader::None => unreachable!("a frame without a MAC header on the air"),
        }
    }

    /// The frame's duration field: how long after its end the medium stays
    /// reserved. Derived from the frame's kind and the size of the data
    /// frame it announces (RTS and CTS carry that size in `Packet::size`),
    /// as every station runs the same rates.
    pub fn duration_of(&self, p: &Packet) -> Time {
        let (m, a) = (&self.mac, &self.air);
        let ack = a.ack;
        match p.l2 {
            LinkHeader::Mac { kind: frame::DATA, rx, .. } => {
                if rx == BROADCAST {
                    0
                } else {
                    m.sifs + ack
                }
            }
            LinkHeader::Mac { kind: frame::RTS, .. } => 3 * m.sifs + a.cts + a.data(p.size, false) + ack,
            LinkHeader::Mac { kind: frame::CTS, .. } => 2 * m.sifs + a.data(p.size, false) + ack,
            _ => 0,
        }
    }

    /// Whether the frame `pkt` on the air from this station is a
    /// retransmission (for captures).
    pub fn is_retry(&self, pkt: PktId) -> bool {
        self.cur.is_some_and(|c| c.pkt == pkt && (self.src > 0 || self.lrc > 0))
    }

    /// Show a frame to captures (they get their own reference).
    fn show<S: DevScheduler + ?Sized>(pkt: PktId, io: &mut DevIo<S>) {
        if io.report_transmit {
            io.pool.share(pkt);
            io.out.push(DevAction::Frame(pkt));
        }
    }

    /// ns-2.35's `is_idle()` when its CTS is due (`ns2_cts`): nothing
    /// arriving, the NAV clear, EIFS (a NAV in ns-2) over.
    fn cts_medium_idle(&self, now: Time) -> bool {
        self.rx.is_empty() && self.nav_until <= now && self.eifs_nav_until <= now
    }

    fn medium_idle(&self, now: Time) -> bool {
        matches!(self.state, State::Idle)
            && self.rx.is_empty()
            && self.nav_until <= now
            && (!self.mac.ns2_eifs || self.eifs_nav_until <= now)
    }

    /// A timer for the end of a NAV at `at`, so that the backoff sees the
    /// medium turn idle then. Not needed, and not scheduled, when a frame
    /// arriving here ends after `at`: the medium is busy at `at` anyway
    /// (a frame leaves `rx` only at its end), the timer would change
    /// nothing (`timer_changes_nothing`), and that frame's end looks at
    /// the medium again. Leaving out an event that changes nothing keeps
    /// every other event's order: outputs are the same (about one event
    /// in five on the 7-hop chains with ns-2's EIFS rule).
    #[inline]
    fn nav_timer<S: DevScheduler + ?Sized>(&self, at: Time, io: &mut DevIo<S>) {
        if !self.rx.iter().any(|r| r.end > at) {
            Self::timer(io, at, T_NAV, 0);
        }
    }

    /// Take the next frame from the interface queue if none is being sent.
    #[inline]
    fn load<S: DevScheduler + ?Sized>(&mut self, now: Time, io: &mut DevIo<S>) {
        if self.cur.is_some() {
            return;
        }
        let Some(pkt) = self.queue.dequeue(now) else { return };
        let p = io.pool.get(pkt);
        let to = match p.l2 {
            LinkHeader::Mac { rx, .. } if rx != BROADCAST => Some(rx),
            _ => None,
        };
        let size = p.size;
        let rts = to.is_some() && self.mac.uses_rts(size);
        if to.is_some() {
            self.stats.data_offered += 1;
        }
        self.cur = Some(Current { pkt, to, size, rts, reported: false });
    }

    /// The deferral before a count: EIFS after a frame sensed but not
    /// decoded, DIFS otherwise (`ns2_eifs`: the EIFS was served as a NAV, a
    /// DIFS follows it).
    #[inline(always)]
    fn ifs(&self) -> Time {
        if self.eifs && !self.mac.ns2_eifs {
            self.air.eifs
        } else {
            self.air.difs
        }
    }

    /// The medium just became idle (or a frame arrived while it was): arm
    /// the access timer for DIFS/EIFS plus the pending backoff.
    fn arm<S: DevScheduler + ?Sized>(&mut self, now: Time, io: &mut DevIo<S>) {
        self.load(now, io);
        if (self.cur.is_none() && self.backoff.is_none()) || self.access.is_some() {
            return;
        }
        let start = self.idle_since + self.ifs();
        let slots = self.backoff.unwrap_or(0);
        let fire = (start + slots as Time * self.mac.slot).max(now);
        self.access_gen = (self.access_gen + 1) & GEN_MASK;
        self.access = Some((start, slots));
        Self::timer(io, fire, T_ACCESS, self.access_gen);
    }

    /// The medium just became busy at `now`: stop the count at the slots
    /// completed before the carrier could be detected. A station whose
    /// count ends before it could detect the carrier transmits anyway.
    fn freeze(&mut self, now: Time) {
        let Some((start, slots)) = self.access else { return };
        let slot = self.mac.slot;
        let detected = now + self.mac.cca_time;
        if start + slots as Time * slot <= detected {
            return;
        }
        self.access = None;
        self.access_gen = (self.access_gen + 1) & GEN_MASK;
        let done = if detected > start { ((detected - start) / slot) as u32 } else { 0 };
        match self.backoff {
            Some(_) => self.backoff = Some(slots - done.min(slots)),
            // Deferring for DIFS without a backoff and the medium got busy:
            // the frame now needs a random backoff.
            None => self.backoff = Some(self.draw()),
        }
    }

    /// Compare the medium state with what the backoff last saw. Runs after
    /// every event, most of which change nothing: that check is inlined.
    #[inline]
    fn settle<S: DevScheduler + ?Sized>(&mut self, now: Time, io: &mut DevIo<S>) {
        let idle = self.medium_idle(now);
        if idle != self.idle {
            self.medium_changed(idle, now, io);
        }
    }

    fn medium_changed<S: DevScheduler + ?Sized>(&mut self, idle: bool, now: Time, io: &mut DevIo<S>) {
        self.idle = idle;
        if idle {
            self.idle_since = now;
            self.arm(now, io);
        } else {
            self.freeze(now);
        }
    }

    /// Put a frame on the air: every station in range gets it after its
    /// propagation delay.
    fn radiate<S: DevScheduler + ?Sized>(&mut self, now: Time, pkt: PktId, air: Time, io: &mut DevIo<S>) {
        Self::show(pkt, io);
        if let Some(m) = &self.mobility {
            // Who hears this frame, from where everyone is now. Its arrivals
            // go one per receiver, naming the receiver's device: with long
            // delays (free space, shadowing) they may still be on their way
            // when the station starts its next frame and takes a new list,
            // which index-based events (`fan_out`) would then misread.
            self.neighbours = m.neighbours_at(self.node, now, &self.prop, &self.phy);
            self.fan = fan_of(&self.neighbours);
            if self.on(now) {
                io.pool.share_n(pkt, self.fan.len() as u32);
                io.sched.fan_out_each(now, pkt, &self.fan);
            }
        } else if self.on(now) {
            // A radio switched off keeps its MAC's timing but reaches no one.
            io.pool.share_n(pkt, self.fan.len() as u32);
            io.sched.fan_out(now, pkt, &self.fan);
        }
        // An EIFS is the one deferral after a frame sensed but not decoded
        // (IEEE 802.11-2016 10.3.2.3.7): a station transmits only once it is
        // over (or a correct frame ended it), so the deferral after this
        // frame is DIFS again.
        self.eifs = false;
        // Half duplex: what we were receiving is lost.
        for r in self.rx.iter_mut() {
            r.ok = false;
            r.during_tx = true;
        }
        Self::timer(io, now + air, T_TXEND, 0);
    }

    fn send_ctrl<S: DevScheduler + ?Sized>(&mut self, now: Time, kind: u8, to: NodeId, size: u32, io: &mut DevIo<S>) {
        let (len, sent) = match kind {
            frame::RTS => (RTS_LEN, Sent::Rts),
            frame::CTS => (CTS_LEN, Sent::Cts),
            _ => (ACK_LEN, Sent::Ack),
        };
        let mut p = Packet::new(
            NO_FLOW,
            self.node,
            to,
            Transport::Control(ControlHeader { proto: PROTO_MAC, kind: kind as u16, len: 0, blob: None }),
            0,
            0,
            now,
        );
        p.size = size;
        p.l2 = LinkHeader::Mac { tx: self.node, rx: to, kind, len: len as u16 };
        // Not a network packet: stored without a uid of its own, so the
        // run's packet accounting is about IP packets only.
        let id = io.pool.insert_copy(p);
        match sent {
            Sent::Rts => self.stats.rts_sent += 1,
            Sent::Cts => self.stats.cts_sent += 1,
            _ => self.stats.ack_sent += 1,
        }
        self.state = State::Tx(sent);
        if sent == Sent::Cts && self.mac.ns2_cts_wait {
            // The RTS's size is its data's: the wait covers that frame.
            self.cts_wait_until =
                now + self.air.cts + 2 * NS2_MAX_PROPAGATION + self.mac.sifs + self.air.data(size, false);
        }
        self.ctrl_on_air = Some(id);
        self.radiate(now, id, self.air.ctrl(len), io);
    }

    fn send_data<S: DevScheduler + ?Sized>(&mut self, now: Time, io: &mut DevIo<S>) {
        let c = self.cur.expect("data to send");
        let air = self.air.data(c.size, c.to.is_none());
        if c.to.is_some() {
            self.stats.data_sent += 1;
            self.state = State::Tx(Sent::Data);
        } else {
            self.stats.broadcast_sent += 1;
            self.state = State::Tx(Sent::Broadcast);
        }
        if io.report_transmit && !c.reported {
            io.out.push(DevAction::Transmit(c.pkt));
        }
        if let Some(cur) = self.cur.as_mut() {
            cur.reported = true;
        }
        self.radiate(now, c.pkt, air, io);
    }

    fn start_exchange<S: DevScheduler + ?Sized>(&mut self, now: Time, io: &mut DevIo<S>) {
        let c = self.cur.expect("a frame to send");
        match c.to {
            Some(to) if c.rts => self.send_ctrl(now, frame::RTS, to, c.size, io),
            _ => self.send_data(now, io),
        }
    }

    /// A frame dropped at the interface queue (refused, pushed out, or
    /// displaced while ARP resolved its next hop): a packet goes to the
    /// world's accounting, an ARP frame (no one's packet) is just let go.
    fn ifq_drop<S: DevScheduler + ?Sized>(&mut self, pkt: PktId, cause: DropCause, io: &mut DevIo<S>) {
        self.stats.drops_ifq += 1;
        if arp::fields(io.pool.get(pkt)).is_some() {
            io.pool.release(pkt);
        } else {
            io.out.push(DevAction::Drop(pkt, DropReason::Queue(cause)));
        }
    }

    /// `pkt` could not reach neighbour `to`: routing is told.
    fn link_failed<S: DevScheduler + ?Sized>(&mut self, to: NodeId, pkt: PktId, io: &mut DevIo<S>) {
        self.stats.link_failures += 1;
        io.out.push(DevAction::LinkFailed { neighbor: to, failed: pkt });
    }

    /// The current frame is done with: delivered (or broadcast), or dropped
    /// at the retry limit. Either way CW resets and a new backoff is drawn.
    fn finish<S: DevScheduler + ?Sized>(&mut self, delivered: bool, io: &mut DevIo<S>) {
        let c = self.cur.take().expect("a current frame");
        if delivered {
            if c.to.is_some() {
                self.stats.data_acked += 1;
            }
            io.pool.release(c.pkt);
        } else {
            self.stats.drops_retry += 1;
            match c.to {
                // An ARP reply is no one's packet: ns-2 drops it.
                Some(_) if arp::fields(io.pool.get(c.pkt)).is_some() => io.pool.release(c.pkt),
                Some(to) => self.link_failed(to, c.pkt, io),
                None => io.out.push(DevAction::Drop(c.pkt, DropReason::RetryLimit)),
            }
        }
        self.src = 0;
        self.lrc = 0;
        self.cw = self.mac.cw_min;
        self.backoff = Some(self.draw());
        self.state = State::Idle;
    }

    /// Our RTS (data frame) has just ended: arm the timeout for its CTS
    /// (ACK), `response` being that frame's airtime. The standard's
    /// CTSTimeout and ACKTimeout (IEEE 802.11-2016 10.3.2.7, 10.3.2.9) are
    /// SIFS + a slot + aRxPHYStartDelay (the PLCP preamble and header):
    /// the attempt has failed if no frame has begun to be received by then
    /// (`answer_under_way`). With `timeout_slack` the station waits that
    /// long past the answer's expected end instead (ns-2.35's check_pktRTS
    /// and check_pktTx: twice the maximum propagation delay).
    fn await_response<S: DevScheduler + ?Sized>(&mut self, now: Time, response: Time, io: &mut DevIo<S>) {
        self.timeout_gen = (self.timeout_gen + 1) & GEN_MASK;
        self.response_by = match self.mac.timeout_slack {
            Some(slack) => now + self.mac.sifs + response + slack,
            None => now + self.mac.sifs + self.mac.slot + self.air.plcp,
        };
        Self::timer(io, self.response_by, T_TIMEOUT, self.timeout_gen);
    }

    /// At the standard's response timeout: the end of the latest frame
    /// still arriving whose PLCP header this station had received by the
    /// time the answer was due (PHY-RXSTART: decodable by its power, not
    /// begun while we transmitted). None: no answer is coming.
    fn answer_under_way(&self, pool: &crate::packet::PacketPool) -> Option<Time> {
        if self.mac.timeout_slack.is_some() {
            return None;
        }
        let header_by = self.response_by - self.air.plcp;
        self.rx
            .iter()
            .filter(|r| !r.during_tx && !r.forgotten && r.power >= self.phy.rx_threshold_w)
            .filter(|r| r.end - self.air_of(pool.get(r.pkt)) <= header_by)
            .map(|r| r.end)
            .max()
    }

    fn on_timeout(&mut self) -> bool {
        let c = self.cur.expect("a frame awaiting its response");
        let (count, limit) = if matches!(self.state, State::WaitCts) || !c.rts {
            self.src += 1;
            (self.src, self.mac.short_retry_limit)
        } else {
            self.lrc += 1;
            (self.lrc, self.mac.long_retry_limit)
        };
        if count >= limit {
            return false;
        }
        self.stats.retries += 1;
        self.cw = (2 * self.cw + 1).min(self.mac.cw_max);
        self.backoff = Some(self.draw());
        self.state = State::Idle;
        true
    }

    /// A frame arriving from a transmitter found by its header among the
    /// neighbours (the trait's `Arrive`; the world's fan-out passes the
    /// mean power itself, `arrive_from_on`).
    fn on_arrive<S: DevScheduler + ?Sized>(&mut self, now: Time, pkt: PktId, io: &mut DevIo<S>) {
        let LinkHeader::Mac { tx, .. } = io.pool.get(pkt).l2 else {
            io.pool.release(pkt);
            return;
        };
        let power = match &self.mobility {
            // Where both are as the frame reaches this station (ns-2.35's
            // Propagation::Pr reads both nodes' positions then too).
            Some(m) => m.pair(self.node, tx, now, &self.prop, &self.phy).map(|n| n.power_w),
            None => self.neighbours.binary_search_by_key(&tx, |n| n.node).ok().map(|i| self.neighbours[i].power_w),
        };
        let Some(power) = power else {
            io.pool.release(pkt);
            return;
        };
        self.arrive(now, pkt, power, io);
    }

    /// A frame from a neighbour heard at `mean_power_w` reaches the antenna.
    #[inline(always)]
    fn arrive<S: DevScheduler + ?Sized>(&mut self, now: Time, pkt: PktId, mean_power_w: f64, io: &mut DevIo<S>) {
        if !self.on(now) {
            io.pool.release(pkt);
            return;
        }
        let p = io.pool.get(pkt);
        debug_assert!(
            self.mobility.is_some()
                || matches!(p.l2, LinkHeader::Mac { tx, .. }
            if self.neighbours.iter().any(|n| n.node == tx && n.power_w == mean_power_w))
        );
        let power = self.prop.sample_power(mean_power_w, &mut self.shadow_rng);
        if power < self.phy.cs_threshold_w {
            io.pool.release(pkt);
            return;
        }
        let end = now + self.air_of(p);
        let decodable = power >= self.phy.rx_threshold_w;
        let transmitting = matches!(self.state, State::Tx(_));
        // ns-2's receiver is locked by the frame it senses first, whatever
        // this one's power (after a collision, by the one that ends last:
        // its pktRx_). A frame at least the capture ratio weaker than that
        // one is captured over and forgotten; any other collides with it.
        let ns2 = self.mac.ns2_reception;
        let lock = if ns2 { self.rx.iter().filter(|r| !r.forgotten).max_by_key(|r| r.end) } else { None };
        let forgotten = lock.is_some_and(|l| l.power >= power * self.capture_ratio);
        let mut ok = decodable && !transmitting && lock.is_none();
        let mut hit = false;
        for r in self.rx.iter_mut().filter(|r| !r.forgotten && !forgotten) {
            if r.power < power * self.capture_ratio && r.ok {
                r.ok = false;
                r.hit = true;
            }
            if power < r.power * self.capture_ratio && ok {
                ok = false;
                hit = true;
            }
        }
        self.rx.push(Incoming { pkt, power, end, ok, hit, during_tx: transmitting, forgotten });
        io.sched.schedule_frame_end(pkt, end);
    }

    #[inline(always)]
    fn on_rx_end<S: DevScheduler + ?Sized>(&mut self, now: Time, io: &mut DevIo<S>) {
        // One pass in arrival order: the frames that have ended are taken
        // out and handled, the others slide down over them (no shift of
        // the list per frame). Handling a frame never looks at `rx`.
        let mut kept = 0;
        for i in 0..self.rx.len() {
            let r = self.rx[i];
            if r.end > now {
                self.rx[kept] = r;
                kept += 1;
                continue;
            }
            if r.hit {
                self.stats.collisions += 1;
            }
            if r.ok && !self.corrupted() {
                self.eifs = false;
                self.stats.frames_received += 1;
                Self::show(r.pkt, io);
                self.receive(now, r.pkt, io);
            } else {
                if !r.during_tx {
                    self.eifs = true;
                }
                if (self.mac.ns2_cts || self.mac.ns2_eifs) && self.ns2_eifs_after(&r) {
                    // (`now` only grows: the latest is the furthest.)
                    self.eifs_nav_until = now + self.air.eifs;
                    if self.mac.ns2_eifs {
                        // The medium turns idle then: look again.
                        self.nav_timer(self.eifs_nav_until, io);
                    }
                }
                io.pool.release(r.pkt);
            }
        }
        self.rx.truncate(kept);
        // Almost always empty: tested first, so that a reception end does
        // not take, walk and drop an empty list.
        if !self.arp_out.is_empty() {
            for (pkt, next_hop) in std::mem::take(&mut self.arp_out) {
                self.offer(now, pkt, next_hop, false, io);
            }
        }
    }

    /// Whether ns-2.35 sets its EIFS NAV at the end of `r`, a frame sensed
    /// but not decoded. recv_timer forgets a frame silently only while the
    /// station is still transmitting; one that overlapped the station's
    /// frame but outlasts it ends in error (recv and transmit marked it)
    /// and sets the NAV, unlike the standard's EIFS (the receiver never
    /// synchronised to it). A frame captured over sets it whatever the
    /// station does (Mac802_11::capture, at its arrival).
    fn ns2_eifs_after(&self, r: &Incoming) -> bool {
        r.forgotten || !matches!(self.state, State::Tx(_))
    }

    /// The unicast frame this station is sending or retrying, with its next
    /// hop (accounting: a frame its next hop decoded is not in flight).
    pub fn current_unicast(&self) -> Option<(PktId, NodeId)> {
        self.cur.and_then(|c| Some((c.pkt, c.to?)))
    }

    /// Whether the last data frame this station decoded from `tx` was
    /// packet `uid` at TTL `ttl` (its duplicate check's memory).
    pub fn decoded_last(&self, tx: NodeId, uid: u64, ttl: u8) -> bool {
        self.last_seen.contains(&(tx, uid, ttl))
    }

    /// A frame decoded at this station.
    fn receive<S: DevScheduler + ?Sized>(&mut self, now: Time, pkt: PktId, io: &mut DevIo<S>) {
        // The fields needed, not a copy of the packet (most frames decoded
        // are control frames or someone else's).
        let p = io.pool.get(pkt);
        let LinkHeader::Mac { tx, rx, kind, .. } = p.l2 else { unreachable!() };
        let (size, uid, ttl) = (p.size, p.uid, p.ip.ttl);
        if rx != self.node && rx != BROADCAST {
            // Someone else's exchange: honour its reservation.
            let nav = now + self.duration_of(p);
            if nav > self.nav_until {
                self.nav_until = nav;
                self.nav_timer(nav, io);
            }
            if self.promiscuous && kind == frame::DATA {
                io.pool.share(pkt);
                io.out.push(DevAction::Overheard(pkt));
            }
            io.pool.release(pkt);
            return;
        }
        let expects = |s: &Self, st: State| s.state == st && s.cur.is_some_and(|c| c.to == Some(tx));
        match kind {
            frame::RTS => {
                // Answer only with the medium free by our NAV and no
                // exchange of our own under way.
                if matches!(self.state, State::Idle) && self.nav_until <= now {
                    self.state = State::Sifs(Reply::Cts { to: tx, size });
                    Self::timer(io, now + self.mac.sifs, T_SIFS, 0);
                }
                io.pool.release(pkt);
            }
            frame::CTS => {
                if expects(self, State::WaitCts) {
                    self.timeout_gen = (self.timeout_gen + 1) & GEN_MASK;
                    self.src = 0;
                    self.state = State::Sifs(Reply::Data);
                    Self::timer(io, now + self.mac.sifs, T_SIFS, 0);
                }
                io.pool.release(pkt);
            }
            frame::ACK => {
                if expects(self, State::WaitAck) {
                    self.timeout_gen = (self.timeout_gen + 1) & GEN_MASK;
                    self.finish(true, io);
                }
                io.pool.release(pkt);
            }
            _ => {
                if rx != BROADCAST && matches!(self.state, State::WaitData(_)) {
                    // The data our CTS cleared (ns-2's recvDATA in MAC_CTS).
                    self.state = State::Idle;
                }
                if rx != BROADCAST && matches!(self.state, State::Idle) {
                    self.state = State::Sifs(Reply::Ack { to: tx });
                    Self::timer(io, now + self.mac.sifs, T_SIFS, 0);
                }
                let arp_fields = self.arp.as_ref().and_then(|_| arp::fields(io.pool.get(pkt)));
                if let (Some((op, target)), Some(table)) = (arp_fields, self.arp.as_mut()) {
                    // ns-2's arpinput: the sender is known now; the packet
                    // held for it goes, and a request for us is answered.
                    if let Some(held) = table.learn(tx) {
                        self.arp_out.push((held, Some(tx)));
                    }
                    if op == arp::REQUEST && target == self.node {
                        let reply = io.pool.insert_copy(arp::packet(self.node, tx, arp::REPLY, now));
                        self.arp_out.push((reply, Some(tx)));
                    }
                    io.pool.release(pkt);
                    return;
                }
                if rx != BROADCAST {
                    // A retransmission whose ACK was lost: acknowledge it
                    // again but do not deliver it twice. 802.11 tells one by
                    // its sequence number and retry bit; here the packet and
                    // its TTL stand for the sequence number: the same packet
                    // come back round a routing loop is a new frame (each
                    // hop lowered its TTL), as it is in 802.11 and ns-2, and
                    // must go on to its TTL expiry, not vanish as a duplicate.
                    match self.last_seen.iter_mut().find(|e| e.0 == tx) {
                        Some(e) if (e.1, e.2) == (uid, ttl) => {
                            self.stats.duplicates += 1;
                            io.pool.release(pkt);
                            return;
                        }
                        Some(e) => (e.1, e.2) = (uid, ttl),
                        None => self.last_seen.push((tx, uid, ttl)),
                    }
                }
                // The receiver's own copy, without the MAC header. The copy
                // is stored before the shared frame is let go: a routing
                // message's body lives as long as a packet names it, and
                // the last receiver's `take` would otherwise free it first.
                let mut q = *io.pool.get(pkt);
                q.l2 = LinkHeader::None;
                let id = io.pool.insert_copy(q);
                io.pool.release(pkt);
                io.out.push(DevAction::Deliver(self.node, id));
            }
        }
    }

    /// Whether timer `token` coming out at `now` would change nothing, so
    /// the world need not call the station for it: a superseded access or
    /// response timer (stale generation), or a NAV timer, each of which
    /// `on_timer` ignores, with the medium as the backoff last saw it (the
    /// `settle` after the event is then a no-op too). On the 7-hop chain
    /// about a quarter of the queue's events are such timers.
    #[inline(always)]
    pub fn timer_changes_nothing(&self, now: Time, token: u32) -> bool {
        let gen = token >> KIND_BITS;
        let ignored = match token & ((1 << KIND_BITS) - 1) {
            T_ACCESS => gen != self.access_gen || self.access.is_none(),
            T_TIMEOUT => gen != self.timeout_gen || !matches!(self.state, State::WaitCts | State::WaitAck),
            T_NAV => true,
            _ => false,
        };
        ignored && self.medium_idle(now) == self.idle
    }

    #[inline(always)]
    fn on_timer<S: DevScheduler + ?Sized>(&mut self, now: Time, token: u32, io: &mut DevIo<S>) {
        let gen = token >> KIND_BITS;
        match token & ((1 << KIND_BITS) - 1) {
            T_ACCESS => {
                if gen != self.access_gen || self.access.is_none() {
                    return;
                }
                self.access = None;
                self.backoff = None;
                self.load(now, io);
                if self.cur.is_some() {
                    if matches!(self.state, State::Idle) {
                        self.start_exchange(now, io);
                    } else {
                        self.backoff = Some(self.draw());
                    }
                }
            }
            T_TXEND => {
                if let Some(f) = self.ctrl_on_air.take() {
                    io.pool.release(f);
                }
                match self.state {
                    State::Tx(Sent::Rts) => {
                        self.state = State::WaitCts;
                        self.await_response(now, self.air.cts, io);
                    }
                    State::Tx(Sent::Data) => {
                        self.state = State::WaitAck;
                        self.await_response(now, self.air.ack, io);
                    }
                    State::Tx(Sent::Broadcast) => self.finish(true, io),
                    State::Tx(Sent::Cts) if self.mac.ns2_cts_wait => {
                        let until = self.cts_wait_until;
                        self.state = State::WaitData(until);
                        Self::timer(io, until, T_CTS_WAIT, 0);
                    }
                    State::Tx(Sent::Cts) | State::Tx(Sent::Ack) => self.state = State::Idle,
                    _ => {}
                }
            }
            T_TIMEOUT => {
                if gen != self.timeout_gen || !matches!(self.state, State::WaitCts | State::WaitAck) {
                    return;
                }
                if let Some(end) = self.answer_under_way(io.pool) {
                    // The verdict waits for that frame: it may be the answer.
                    return Self::timer(io, end, T_TIMEOUT, self.timeout_gen);
                }
                if !self.on_timeout() {
                    self.finish(false, io);
                }
            }
            T_SIFS => match self.state {
                State::Sifs(Reply::Cts { .. }) if self.mac.ns2_cts && !self.cts_medium_idle(now) => {
                    self.state = State::Idle;
                }
                State::Sifs(Reply::Cts { to, size }) => self.send_ctrl(now, frame::CTS, to, size, io),
                State::Sifs(Reply::Ack { to }) => self.send_ctrl(now, frame::ACK, to, 0, io),
                State::Sifs(Reply::Data) => self.send_data(now, io),
                _ => {}
            },
            // No data came for our CTS (ns-2's send timer in MAC_CTS).
            T_CTS_WAIT if self.state == State::WaitData(now) => self.state = State::Idle,
            _ => {} // T_NAV: `settle` looks at the NAV
        }
    }

    /// Offer a packet: into the interface queue, then access if the MAC is quiet.
    fn offer<S: DevScheduler + ?Sized>(
        &mut self,
        now: Time,
        pkt: PktId,
        next_hop: Option<NodeId>,
        first: bool,
        io: &mut DevIo<S>,
    ) {
        if let (Some(table), Some(to)) = (self.arp.as_mut(), next_hop) {
            match table.resolve(to, pkt) {
                Resolve::Send => {}
                Resolve::Held { displaced } => {
                    if let Some(d) = displaced {
                        self.ifq_drop(d, DropCause::Overflow, io);
                    }
                    let request = io.pool.insert_copy(arp::packet(self.node, to, arp::REQUEST, now));
                    return self.offer(now, request, None, false, io);
                }
                Resolve::Failed(pkts) => {
                    for failed in pkts {
                        self.link_failed(to, failed, io);
                    }
                    return;
                }
            }
        }
        let p = io.pool.get_mut(pkt);
        p.l2 = LinkHeader::Mac {
            tx: self.node,
            rx: next_hop.unwrap_or(BROADCAST),
            kind: frame::DATA,
            len: self.mac.data_header as u16,
        };
        let class = match &p.l4 {
            // (ns-2's PT_ARP has no priority.)
            Transport::Control(c) if c.proto == arp::PROTO_ARP => Class::Other,
            Transport::Control(_) => Class::Routing,
            Transport::Tcp(h) if p.payload == 0 && h.flags & tcp_flags::ACK != 0 => Class::Ack,
            _ => Class::Other,
        };
        // Routing messages (and local retransmissions) go ahead of the
        // queued data, as ns-2's PriQueue and CMUPriQueue put them; a full
        // queue (band) still refuses them.
        match self.queue.offer(now, pkt, p.size, class, first, &mut self.queue_rng) {
            Offered::Queued => {}
            Offered::Refused(cause) => return self.ifq_drop(pkt, cause, io),
            Offered::PushedOut(last) => self.ifq_drop(last, DropCause::Overflow, io),
        }
        if self.cur.is_none() {
            if self.idle && self.access.is_none() {
                if self.mac.ns2_backoff && self.backoff.is_none() {
                    // ns-2.35 (`bugFix_timer_`): even on an idle medium the
                    // frame waits a DIFS from now and a random backoff. The
                    // count starts then, or when a deferral still running
                    // ends if that is later.
                    self.backoff = Some(self.draw());
                    let (ifs, floor) = (self.ifs(), now + self.air.difs);
                    if self.idle_since + ifs < floor {
                        self.idle_since = floor.saturating_sub(ifs);
                    }
                }
                self.arm(now, io);
            } else if !self.idle && self.backoff.is_none() {
                // The medium is busy as the frame comes: it will back off.
                self.backoff = Some(self.draw());
            }
        }
    }
}

/// The entry points with the scheduler's type known: the world calls these
/// directly (no dynamic call per event or per scheduled timer); the
/// `NetDevice` methods are the same with a `dyn` scheduler.
impl Dcf {
    /// Offer a packet (`first`: ahead of the queued data).
    pub fn send_on<S: DevScheduler + ?Sized>(
        &mut self,
        now: Time,
        pkt: PktId,
        next_hop: Option<NodeId>,
        first: bool,
        io: &mut DevIo<S>,
    ) {
        self.offer(now, pkt, next_hop, first, io);
        self.settle(now, io);
    }

    /// A frame of the world's fan-out arrives from a neighbour heard at
    /// `mean_power_w` (`FanOut::power_w`): `Arrive` without looking the
    /// sender up.
    #[inline(always)]
    pub fn arrive_from_on<S: DevScheduler + ?Sized>(
        &mut self,
        now: Time,
        pkt: PktId,
        mean_power_w: f64,
        io: &mut DevIo<S>,
    ) {
        self.arrive(now, pkt, mean_power_w, io);
        self.settle(now, io);
    }

    /// Called once per event by the world's dispatch, and inlined there
    /// (left to itself, the release build's inliner keeps it a call).
    #[inline(always)]
    pub fn on_event_on<S: DevScheduler + ?Sized>(&mut self, now: Time, ev: DevEvent, io: &mut DevIo<S>) {
        match ev {
            DevEvent::Arrive(pkt) => self.on_arrive(now, pkt, io),
            DevEvent::Timer(token) => self.on_timer(now, token, io),
            DevEvent::FrameEnd => self.on_rx_end(now, io),
            DevEvent::TxDone => {}
        }
        self.settle(now, io);
    }
}

impl NetDevice for Dcf {
    fn node(&self) -> NodeId {
        self.node
    }

    fn send(&mut self, now: Time, pkt: PktId, next_hop: Option<NodeId>, io: &mut DevIo) {
        self.send_on(now, pkt, next_hop, false, io);
    }

    fn send_first(&mut self, now: Time, pkt: PktId, next_hop: Option<NodeId>, io: &mut DevIo) {
        self.send_on(now, pkt, next_hop, true, io);
    }

    fn on_event(&mut self, now: Time, ev: DevEvent, io: &mut DevIo) {
        self.on_event_on(now, ev, io);
    }

    fn has_room(&self) -> bool {
        self.queue.has_room()
    }

    fn queue(&self) -> &Queue {
        self.queue.data_band()
    }

    /// The queued frames addressed to `nb` (the frame being sent stays: it
    /// is the MAC's until it is done).
    fn take_queued_to(
        &mut self,
        now: Time,
        nb: NodeId,
        pool: &crate::packet::PacketPool,
        after_failure: bool,
    ) -> Vec<PktId> {
        // After a link failure: the failure's own event let the MAC take
        // the next frame from the queue before routing heard of it
        // (`finish`, then `settle` and `arm`): a frame for `nb` not yet
        // tried is still one of the queued packets, and goes with them,
        // first. ns-2.35 flushes the queue in the failure callback, before
        // its MAC asks for the next packet (`tx_resume` after
        // `xmit_failure_`). A route error's flush comes at any other time,
        // when ns-2's MAC holds its next frame already (`recvError`
        // filters only the interface queue): the MAC's frame stays.
        let mut out = Vec::new();
        if let (Some(c), true) = (self.cur, after_failure) {
            if c.to == Some(nb) && matches!(self.state, State::Idle) && self.src == 0 && self.lrc == 0 && !c.reported {
                self.cur = None;
                self.stats.data_offered -= 1;
                out.push(c.pkt);
            }
        }
        // (ARP's own frames stay: they are no one's packets.)
        out.extend(self.queue.remove_where(now, |id| {
            let p = pool.get(id);
            matches!(p.l2, LinkHeader::Mac { rx, .. } if rx == nb) && arp::fields(p).is_none()
        }));
        out
    }

    fn in_range(&self, now: Time, nb: NodeId) -> Option<DevId> {
        let n = match &self.mobility {
            Some(m) => m.pair(self.node, nb, now, &self.prop, &self.phy)?,
            None => self.neighbours[self.neighbours.binary_search_by_key(&nb, |n| n.node).ok()?],
        };
        (n.power_w >= self.phy.rx_threshold_w).then_some(n.dev)
    }

    fn fan_targets(&self) -> &[FanOut] {
        &self.fan
    }

    fn radio_on(&self, now: Time) -> bool {
        self.on(now)
    }

    fn set_promiscuous(&mut self, on: bool) {
        self.promiscuous = on;
    }

    fn frame_fields(&self, pkt: PktId, p: &Packet) -> (Time, bool) {
        (self.duration_of(p), self.is_retry(pkt))
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
    use crate::engine::rng::stream_rng;
    use crate::engine::time::US;
    use crate::wireless::IfqKind;

    fn station(mac: MacParams) -> Dcf {
        Dcf::new(
            0,
            mac,
            PhyParams::default(),
            Propagation::TwoRayGround,
            Vec::new(),
            InterfaceQueue::new(IfqKind::Pri, 50, false, mac.data_rate_bps),
            stream_rng(1, "q"),
            stream_rng(1, "b"),
            stream_rng(1, "s"),
        )
    }

    /// The standard draws from [0, CW], ns-2.35 from [0, CW - 1].
    #[test]
    fn backoff_draws_cover_cw_or_stop_below_it() {
        for (ns2, top) in [(false, 31), (true, 30)] {
            let mut d = station(MacParams { ns2_backoff: ns2, ..MacParams::default() });
            let draws: Vec<u32> = (0..20_000).map(|_| d.draw()).collect();
            assert_eq!((draws.iter().min(), draws.iter().max()), (Some(&0), Some(&top)), "ns2_backoff {ns2}");
            let mean = draws.iter().map(|&x| x as f64).sum::<f64>() / draws.len() as f64;
            assert!((mean - top as f64 / 2.0).abs() < 0.3, "ns2_backoff {ns2}: mean {mean}");
        }
    }

    /// A frame reaching the station 10 us before its count ends: with the
    /// standard's 15 us CCA time it cannot be noticed in time and the
    /// station transmits anyway; with none (ns-2.35) the count freezes
    /// with its last slot left.
    #[test]
    fn a_frame_within_the_cca_time_of_the_count_end_does_not_freeze_it() {
        for (cca, frozen) in [(15 * US, false), (0, true)] {
            let mut d = station(MacParams { cca_time: cca, ..MacParams::default() });
            let (start, slots) = (1_000 * US, 5);
            d.access = Some((start, slots));
            d.backoff = Some(slots);
            d.freeze(start + slots as Time * d.mac.slot - 10 * US);
            assert_eq!(d.access.is_none(), frozen, "cca {cca}");
            assert_eq!(d.backoff, Some(if frozen { 1 } else { slots }), "cca {cca}");
        }
    }

    /// ns-2's capture (`ns2_reception`): station 0 hears a short frame
    /// from node 1 (strong), and during it a long one from node 2, 13 dB
    /// weaker: captured over. After node 1's frame ends, node 3's frame
    /// (3 dB stronger than node 2's, decodable alone) arrives while node
    /// 2's is still on the air. ns-2 forgot node 2's frame, so node 3's
    /// is received; the standard's receiver lets node 2's frame destroy it
    /// (not 10 dB weaker), and counts both node 2's and node 3's frames as
    /// collisions. Either way node 1's frame is received and node 2's is
    /// not.
    #[test]
    fn a_frame_captured_over_is_forgotten_by_ns2s_receiver() {
        let nb = |node, power_w| Neighbour { node, dev: node as DevId, power_w, distance_m: 100.0, delay: 0 };
        for (ns2, received) in [(false, 1), (true, 2)] {
            let mut d = station(MacParams { ns2_reception: ns2, ..MacParams::default() });
            d.neighbours = vec![nb(1, 1e-8), nb(2, 5e-10), nb(3, 1e-9)];
            let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
            let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
            let arrive = |d: &mut Dcf, io: &mut DevIo<Recorder>, now: Time, tx: NodeId, payload: u32| {
                let mut p = Packet::new(0, tx, 9, Transport::Udp(Default::default()), 8, payload, 0);
                p.l2 = LinkHeader::Mac { tx, rx: 9, kind: frame::DATA, len: 28 };
                let id = io.pool.insert(p);
                d.on_arrive(now, id, io);
                d.rx.last().expect("sensed").end
            };
            let end1 = arrive(&mut d, &mut io, 0, 1, 100);
            let end2 = arrive(&mut d, &mut io, 100 * US, 2, 1500);
            assert_eq!(d.rx[1].forgotten, ns2);
            d.on_rx_end(end1, &mut io);
            let end3 = arrive(&mut d, &mut io, end1 + 100 * US, 3, 100);
            assert!(end3 < end2, "node 2's frame is still on the air");
            d.on_rx_end(end3, &mut io);
            d.on_rx_end(end2, &mut io);
            assert_eq!(d.stats.frames_received, received, "ns2_reception {ns2}");
            assert_eq!(d.stats.collisions, if ns2 { 0 } else { 2 }, "ns2_reception {ns2}");
        }
    }

    /// A data frame whose ACK was lost comes again (same packet, same TTL):
    /// acknowledged, not delivered twice. The same packet come back round
    /// a routing loop (its TTL lower) is a new frame and is delivered.
    #[test]
    fn a_packet_back_from_a_loop_is_not_a_duplicate() {
        let nb = Neighbour { node: 1, dev: 1, power_w: 1e-8, distance_m: 100.0, delay: 0 };
        let mut d = station(MacParams::default());
        d.neighbours = vec![nb];
        let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
        let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
        let mut now = 0;
        let mut arrive = |d: &mut Dcf, io: &mut DevIo<Recorder>, ttl: u8| {
            let mut p = Packet::new(0, 5, 9, Transport::Udp(Default::default()), 8, 500, 0);
            (p.uid, p.ip.ttl) = (77, ttl);
            p.l2 = LinkHeader::Mac { tx: 1, rx: 0, kind: frame::DATA, len: 28 };
            let id = io.pool.insert_copy(p);
            now += 50_000 * US;
            d.on_arrive(now, id, io);
            let end = d.rx.last().expect("sensed").end;
            d.on_rx_end(end, io);
            d.stats.duplicates
        };
        assert_eq!(arrive(&mut d, &mut io, 60), 0);
        assert_eq!(arrive(&mut d, &mut io, 60), 1, "a retransmission is a duplicate");
        assert_eq!(arrive(&mut d, &mut io, 57), 1, "back from a loop: a new frame");
        assert_eq!(d.stats.frames_received, 3);
    }

    /// ns-2.35's wait after a CTS (`ns2_cts_wait`): station 0 answers
    /// node 1's RTS with a CTS; node 1 (which lost the CTS) asks again 2 ms
    /// later. ns-2's station is still waiting for the data it cleared (the
    /// CTS, 4 us, SIFS and a 1000-byte frame's 4.4 ms at 2 Mbit/s) and
    /// refuses; once the wait is over it answers. The standard's answers
    /// at once.
    #[test]
    fn ns2s_station_refuses_rtss_while_it_waits_for_the_data_after_its_cts() {
        let nb = Neighbour { node: 1, dev: 1, power_w: 1e-8, distance_m: 100.0, delay: 0 };
        for ns2 in [false, true] {
            let mut d = station(MacParams { ns2_cts_wait: ns2, ..MacParams::default() });
            d.neighbours = vec![nb];
            let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
            let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
            // An RTS from node 1 for 1000 bytes of IP packet, decoded at its end.
            let rts = |d: &mut Dcf, io: &mut DevIo<Recorder>, now: Time| {
                let mut p = Packet::new(NO_FLOW, 1, 0, Transport::Udp(Default::default()), 0, 0, 0);
                p.size = 1000;
                p.l2 = LinkHeader::Mac { tx: 1, rx: 0, kind: frame::RTS, len: RTS_LEN as u16 };
                let id = io.pool.insert(p);
                d.on_arrive(now, id, io);
                let end = d.rx.last().expect("sensed").end;
                d.on_rx_end(end, io);
                end
            };
            let end = rts(&mut d, &mut io, 0);
            assert_eq!(d.state, State::Sifs(Reply::Cts { to: 1, size: 1000 }));
            let cts_at = end + d.mac.sifs;
            d.on_timer(cts_at, T_SIFS, &mut io);
            assert_eq!((d.state, d.stats.cts_sent), (State::Tx(Sent::Cts), 1));
            d.on_timer(cts_at + d.air.cts, T_TXEND, &mut io);
            let until = cts_at + d.air.cts + 4 * US + d.mac.sifs + d.air.data(1000, false);
            assert_eq!(d.state, if ns2 { State::WaitData(until) } else { State::Idle }, "ns2_cts_wait {ns2}");
            assert!(!ns2 || !d.medium_idle(until - 1), "busy while waiting: no backoff counts");
            let again = rts(&mut d, &mut io, cts_at + 2_000 * US);
            assert!(again < until);
            let answered = matches!(d.state, State::Sifs(Reply::Cts { .. }));
            assert_eq!(answered, !ns2, "ns2_cts_wait {ns2}: a second RTS within the wait");
            if ns2 {
                d.on_timer(until, T_CTS_WAIT, &mut io);
                assert_eq!(d.state, State::Idle);
                rts(&mut d, &mut io, until + 100 * US);
                assert!(matches!(d.state, State::Sifs(Reply::Cts { .. })), "answered after the wait");
            }
        }
    }

    /// Records what a station schedules.
    #[derive(Default)]
    struct Recorder(Vec<(Time, DevEvent)>);

    impl DevScheduler for Recorder {
        fn schedule(&mut self, at: Time, ev: DevEvent) {
            self.0.push((at, ev));
        }
        fn schedule_for(&mut self, _dev: DevId, _at: Time, _ev: DevEvent) {}
        fn fan_out(&mut self, _now: Time, _frame: PktId, _targets: &[FanOut]) {}
        fn schedule_frame_end(&mut self, _frame: PktId, _at: Time) {}
    }

    /// The timer armed at the end of an RTS (data frame): by default the
    /// standard's CTSTimeout (ACKTimeout), SIFS + a slot + aRxPHYStartDelay
    /// (the 192 us PLCP preamble and header) whichever the answer; with
    /// `timeout_slack` (ns-2.35: 4 us, twice its maximum propagation
    /// delay) a SIFS, the CTS (ACK) and that slack.
    #[test]
    fn the_response_timeout_is_the_standards_or_sifs_the_response_and_the_slack() {
        let standard = 10 * US + 20 * US + 192 * US;
        for set in [None, Some(4 * US)] {
            let m = MacParams { timeout_slack: set, ..MacParams::default() };
            for (sent, response) in [(Sent::Rts, m.ctrl_air(CTS_LEN)), (Sent::Data, m.ctrl_air(ACK_LEN))] {
                let mut d = station(m);
                d.state = State::Tx(sent);
                let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
                let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
                let now = 5_000 * US;
                d.on_timer(now, T_TXEND, &mut io);
                let want = match set {
                    None => now + standard,
                    Some(slack) => now + m.sifs + response + slack,
                };
                assert_eq!(timeouts(&rec), vec![want], "timeout_slack {set:?}");
            }
        }
    }

    /// The timeouts a station scheduled.
    fn timeouts(rec: &Recorder) -> Vec<Time> {
        rec.0
            .iter()
            .filter(|(_, ev)| matches!(ev, DevEvent::Timer(t) if t & ((1 << KIND_BITS) - 1) == T_TIMEOUT))
            .map(|&(at, _)| at)
            .collect()
    }

    /// IEEE 802.11-2016 10.3.2.7: the RTS has failed if no reception has
    /// begun (PHY-RXSTART, the PLCP header received) within SIFS, a slot
    /// and aRxPHYStartDelay of its end; if one has, the station waits for
    /// that frame's end to see whether it is the CTS. Station 0's RTS
    /// ends at `now`. Nothing comes: it retries at the timeout, 222 us
    /// later. A frame for someone else begins 25 us after the RTS (its
    /// header received by the timeout): the verdict waits for its end.
    /// One that begins 35 us after the RTS (its header not yet received):
    /// the timeout stands.
    #[test]
    fn the_rts_fails_at_the_cts_timeout_unless_a_reception_has_begun() {
        for (begins, waits) in [(None, false), (Some(25 * US), true), (Some(35 * US), false)] {
            let mut d = station(MacParams::default());
            d.neighbours = vec![Neighbour { node: 1, dev: 1, power_w: 1e-8, distance_m: 100.0, delay: 0 }];
            d.cur = Some(Current { pkt: PktId(999), to: Some(2), size: 1000, rts: true, reported: true });
            d.state = State::Tx(Sent::Rts);
            let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
            let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
            let now = 5_000 * US;
            d.on_timer(now, T_TXEND, &mut io);
            let due = now + d.mac.sifs + d.mac.slot + d.mac.plcp;
            let mut end = None;
            if let Some(at) = begins {
                let mut p = Packet::new(0, 1, 9, Transport::Udp(Default::default()), 8, 500, 0);
                p.l2 = LinkHeader::Mac { tx: 1, rx: 9, kind: frame::DATA, len: 28 };
                let id = io.pool.insert(p);
                d.on_arrive(now + at, id, &mut io);
                end = Some(d.rx[0].end);
            }
            let token = T_TIMEOUT | (d.timeout_gen << KIND_BITS);
            d.on_timer(due, token, &mut io);
            assert_eq!(d.state == State::WaitCts, waits, "a frame from {begins:?}");
            if waits {
                let end = end.expect("a frame");
                assert_eq!(io.sched.0.last().map(|e| e.0), Some(end), "the verdict at the frame's end");
                d.on_rx_end(end, &mut io);
                d.on_timer(end, token, &mut io);
            }
            assert_eq!((d.state, d.src, d.stats.retries), (State::Idle, 1, 1), "a frame from {begins:?}");
        }
    }

    /// ns-2's CMUPriQueue (DSR's queue) sends a forwarder's TCP ACKs ahead
    /// of the data segments queued before them; its PriQueue keeps them in
    /// arrival order. A SYN is not an ACK.
    #[test]
    fn tcp_acks_overtake_queued_data_only_in_the_cmu_queue() {
        use crate::packet::{flags, TcpHeader};
        for (kind, order) in [(IfqKind::Pri, ["data", "ack", "syn"]), (IfqKind::Cmu, ["ack", "data", "syn"])] {
            let mut d = station(MacParams::default());
            d.queue = InterfaceQueue::new(kind, 50, false, d.mac.data_rate_bps);
            // Busy with a frame: what is offered waits in the queue.
            d.cur = Some(Current { pkt: PktId(999), to: None, size: 0, rts: false, reported: false });
            let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
            let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
            let mut ids = Vec::new();
            for (name, f, payload) in [("data", flags::ACK, 1460), ("ack", flags::ACK, 0), ("syn", flags::SYN, 0)] {
                let h = TcpHeader { flags: f, ..TcpHeader::default() };
                let id = io.pool.insert(Packet::new(0, 0, 2, Transport::Tcp(h), 20, payload, 0));
                ids.push((id, name));
                d.offer(0, id, Some(1), false, &mut io);
            }
            let sent: Vec<&str> = std::iter::from_fn(|| d.queue.dequeue(0))
                .map(|p| ids.iter().find(|(id, _)| *id == p).unwrap().1)
                .collect();
            assert_eq!(sent, order, "{kind:?}");
        }
    }

    /// The frames for neighbour 1 that a flush takes: after a link failure
    /// the MAC's own frame if it has not been tried yet (ns-2 flushed its
    /// queue before its MAC took that frame), after a route error only
    /// the queued ones (ns-2's MAC holds its next frame then).
    #[test]
    fn a_route_errors_flush_leaves_the_macs_frame() {
        for after_failure in [true, false] {
            let mut d = station(MacParams::default());
            let mut pool = crate::packet::PacketPool::new();
            let mut ids = Vec::new();
            for _ in 0..3 {
                let id = pool.insert(Packet::new(0, 0, 2, Transport::Udp(Default::default()), 8, 512, 0));
                ids.push(id);
            }
            let frame = |pool: &mut crate::packet::PacketPool, id: PktId| {
                pool.get_mut(id).l2 = LinkHeader::Mac { tx: 0, rx: 1, kind: frame::DATA, len: 28 };
            };
            for &id in &ids {
                frame(&mut pool, id);
            }
            d.cur = Some(Current { pkt: ids[0], to: Some(1), size: 540, rts: true, reported: false });
            d.stats.data_offered = 1;
            for &id in &ids[1..] {
                let offered = d.queue.offer(0, id, 540, Class::Other, false, &mut d.queue_rng);
                assert!(matches!(offered, Offered::Queued));
            }
            let taken = d.take_queued_to(0, 1, &pool, after_failure);
            let want = if after_failure { ids.clone() } else { ids[1..].to_vec() };
            assert_eq!(taken, want, "after_failure {after_failure}");
            assert_eq!(d.cur.is_some(), !after_failure);
        }
    }

    /// A scheduler that keeps everything the station schedules for itself,
    /// the ends of its receptions included, to be run in time order
    /// (insertion order among equal times, as the world's queue).
    #[derive(Default)]
    struct Agenda {
        evs: Vec<(Time, u64, DevEvent)>,
        n: u64,
    }

    impl DevScheduler for Agenda {
        fn schedule(&mut self, at: Time, ev: DevEvent) {
            self.n += 1;
            self.evs.push((at, self.n, ev));
        }
        fn schedule_for(&mut self, _dev: DevId, _at: Time, _ev: DevEvent) {}
        fn fan_out(&mut self, _now: Time, _frame: PktId, _targets: &[FanOut]) {}
        fn schedule_frame_end(&mut self, _frame: PktId, at: Time) {
            self.schedule(at, DevEvent::FrameEnd);
        }
    }

    impl Agenda {
        fn pop(&mut self) -> Option<(Time, DevEvent)> {
            let i = (0..self.evs.len()).min_by_key(|&i| (self.evs[i].0, self.evs[i].1))?;
            let (at, _, ev) = self.evs.swap_remove(i);
            Some((at, ev))
        }
    }

    /// What became of one packet station 0 sent to station 1.
    struct Exchange {
        d: Dcf,
        /// CW after each attempt ended without its answer, and after the
        /// exchange ended (delivered or dropped).
        cw: Vec<u32>,
        /// The backoff drawn at each of those moments.
        backoff: Vec<Option<u32>>,
        out: Vec<DevAction>,
        pkt: PktId,
    }

    /// Station 0 sends one 1000-byte datagram to station 1, which answers
    /// its `k`-th RTS (from 1) with a CTS if `cts(k)` and its `k`-th data
    /// frame with an ACK if `ack(k)`, each a SIFS after the frame's end.
    /// Runs until nothing is left to do.
    fn exchange(mac: MacParams, cts: impl Fn(u64) -> bool, ack: impl Fn(u64) -> bool) -> Exchange {
        exchange_seeded(mac, 1, cts, ack)
    }

    /// `exchange` with the station's backoff drawn from stream `seed`.
    fn exchange_seeded(mac: MacParams, seed: u64, cts: impl Fn(u64) -> bool, ack: impl Fn(u64) -> bool) -> Exchange {
        let mut d = station(mac);
        d.backoff_rng = stream_rng(seed, "b");
        d.neighbours = vec![Neighbour { node: 1, dev: 1, power_w: 1e-8, distance_m: 100.0, delay: 0 }];
        let (mut pool, mut ag, mut out) = (crate::packet::PacketPool::new(), Agenda::default(), Vec::new());
        let pkt = pool.insert(Packet::new(0, 0, 1, Transport::Udp(Default::default()), 8, 1000, 0));
        let start = 1_000 * US;
        d.send_on(
            start,
            pkt,
            Some(1),
            false,
            &mut DevIo { pool: &mut pool, sched: &mut ag, report_transmit: false, out: &mut out },
        );
        let answer = |pool: &mut crate::packet::PacketPool, kind: u8, len: u32, size: u32, now: Time| {
            let l4 = Transport::Control(ControlHeader { proto: PROTO_MAC, kind: kind as u16, len: 0, blob: None });
            let mut p = Packet::new(NO_FLOW, 1, 0, l4, 0, 0, now);
            p.size = size;
            p.l2 = LinkHeader::Mac { tx: 1, rx: 0, kind, len: len as u16 };
            pool.insert_copy(p)
        };
        let (mut cw, mut backoff) = (Vec::new(), Vec::new());
        let mut steps = 0;
        while let Some((now, ev)) = ag.pop() {
            steps += 1;
            assert!(steps < 100_000, "the exchange never ends");
            let before = d.state;
            d.on_event_on(
                now,
                ev,
                &mut DevIo { pool: &mut pool, sched: &mut ag, report_transmit: false, out: &mut out },
            );
            let size = d.cur.map_or(0, |c| c.size);
            match (before, d.state) {
                (State::Tx(Sent::Rts), State::WaitCts) if cts(d.stats.rts_sent) => {
                    let id = answer(&mut pool, frame::CTS, CTS_LEN, size, now + d.mac.sifs);
                    ag.schedule(now + d.mac.sifs, DevEvent::Arrive(id));
                }
                (State::Tx(Sent::Data), State::WaitAck) if ack(d.stats.data_sent) => {
                    let id = answer(&mut pool, frame::ACK, ACK_LEN, 0, now + d.mac.sifs);
                    ag.schedule(now + d.mac.sifs, DevEvent::Arrive(id));
                }
                (State::WaitCts | State::WaitAck, State::Idle) => {
                    cw.push(d.cw);
                    backoff.push(d.backoff);
                }
                _ => {}
            }
        }
        Exchange { d, cw, backoff, out, pkt }
    }

    /// The LinkFailed actions of an exchange, and whether any packet was
    /// dropped otherwise.
    fn failures(x: &Exchange) -> (Vec<(NodeId, PktId)>, bool) {
        let failed = x
            .out
            .iter()
            .filter_map(|a| match *a {
                DevAction::LinkFailed { neighbor, failed } => Some((neighbor, failed)),
                _ => None,
            })
            .collect();
        (failed, x.out.iter().any(|a| matches!(a, DevAction::Drop(..))))
    }

    /// The retry limits: short 7, long 4 (the defaults).
    #[test]
    fn retry_limits_default_to_short_7_and_long_4() {
        let m = MacParams::default();
        assert_eq!((m.short_retry_limit, m.long_retry_limit, m.cw_min, m.cw_max), (7, 4, 31, 1023));
    }

    /// No CTS ever: the RTS goes out `short_retry_limit` times, each
    /// failure doubling CW (2 CW + 1) up to CWmax, then the frame is
    /// dropped, routing is told, and CW is back at CWmin. Without RTS/CTS
    /// and no ACK ever, the data frame itself counts against the short
    /// limit the same way.
    #[test]
    fn unanswered_frames_go_short_retry_limit_times_doubling_cw_to_cwmax() {
        for rts in [Some(0), None] {
            let m = MacParams { rts_threshold: rts, ..MacParams::default() };
            let x = exchange(m, |_| false, |_| false);
            let s = &x.d.stats;
            let attempts = m.short_retry_limit as u64;
            let (rts_sent, data_sent) = if rts.is_some() { (attempts, 0) } else { (0, attempts) };
            assert_eq!((s.rts_sent, s.data_sent), (rts_sent, data_sent), "rts {rts:?}");
            assert_eq!((s.retries, s.drops_retry, s.link_failures), (attempts - 1, 1, 1), "rts {rts:?}");
            assert_eq!((s.data_offered, s.data_acked), (1, 0), "rts {rts:?}");
            assert_eq!(failures(&x), (vec![(1, x.pkt)], false), "rts {rts:?}");
            // 31 -> 63 -> 127 -> 255 -> 511 -> 1023 -> 1023, then CWmin.
            let mut want = Vec::new();
            let mut cw = m.cw_min;
            for _ in 1..attempts {
                cw = (2 * cw + 1).min(m.cw_max);
                want.push(cw);
            }
            want.push(m.cw_min);
            assert_eq!(want, [63, 127, 255, 511, 1023, 1023, 31]);
            assert_eq!(x.cw, want, "rts {rts:?}");
            for (cw, b) in x.cw.iter().zip(&x.backoff) {
                assert!(b.is_some_and(|b| b <= *cw), "a backoff of {b:?} slots with CW {cw}");
            }
            assert!(x.d.cur.is_none() && matches!(x.d.state, State::Idle));
            assert_eq!((x.d.src, x.d.lrc, x.d.cw), (0, 0, m.cw_min));
        }
    }

    /// The backoff after each failure is drawn from [0, CW] with CW already
    /// doubled: over 400 exchanges (400 backoff streams) with no answer,
    /// the draws after the k-th failure stay within that CW, exceed the
    /// CW before it, and average CW / 2; after the drop, from [0, CWmin].
    #[test]
    fn each_retry_draws_its_backoff_from_the_doubled_cw() {
        let m = MacParams::default();
        let runs: Vec<Exchange> = (0..400).map(|seed| exchange_seeded(m, seed, |_| false, |_| false)).collect();
        let mut prev = m.cw_min;
        for k in 0..m.short_retry_limit as usize {
            let cw = runs[0].cw[k];
            let draws: Vec<u32> = runs.iter().map(|x| x.backoff[k].expect("a backoff drawn")).collect();
            let (max, mean) =
                (*draws.iter().max().unwrap(), draws.iter().map(|&b| b as f64).sum::<f64>() / draws.len() as f64);
            assert!(runs.iter().all(|x| x.cw[k] == cw));
            assert!(max <= cw, "after failure {}: a draw of {max} with CW {cw}", k + 1);
            // (after the drop, CW is back at CWmin: compare with CWmin's half)
            let below = if cw == m.cw_min || cw == prev { cw / 2 } else { prev };
            assert!(max > below, "after failure {}: draws up to {max} only, CW {cw}", k + 1);
            assert!((mean / (cw as f64 / 2.0) - 1.0).abs() < 0.15, "after failure {}: mean {mean}, CW {cw}", k + 1);
            prev = cw;
        }
    }

    /// CW stays at CWmax however many more failures come (a short retry
    /// limit of 10 here), and returns to CWmin with the drop.
    #[test]
    fn cw_saturates_at_cwmax() {
        let m = MacParams { short_retry_limit: 10, ..MacParams::default() };
        let x = exchange(m, |_| false, |_| false);
        assert_eq!(x.cw, [63, 127, 255, 511, 1023, 1023, 1023, 1023, 1023, 31]);
        assert_eq!((x.d.stats.rts_sent, x.d.stats.drops_retry), (10, 1));
    }

    /// Every RTS answered, no data frame acknowledged: the data frame goes
    /// `long_retry_limit` times (each after a new RTS/CTS), then the
    /// frame is dropped and routing told. A data frame sent after RTS/CTS
    /// counts against the long limit only: 4 attempts, not 7.
    #[test]
    fn data_never_acknowledged_after_rts_cts_goes_long_retry_limit_times() {
        let m = MacParams::default();
        let x = exchange(m, |_| true, |_| false);
        let s = &x.d.stats;
        let attempts = m.long_retry_limit as u64;
        assert_eq!((s.rts_sent, s.data_sent), (attempts, attempts));
        assert_eq!((s.retries, s.drops_retry, s.link_failures, s.data_acked), (attempts - 1, 1, 1, 0));
        assert_eq!(failures(&x), (vec![(1, x.pkt)], false));
        assert_eq!(x.cw, [63, 127, 255, 31]);
    }

    /// The two counters are separate, and a CTS resets the short one: six
    /// RTS frames unanswered (one short of the short limit), then every
    /// RTS answered and no data acknowledged: the frame is dropped at the
    /// fourth data frame, after 6 + 4 RTS frames; CW keeps doubling across
    /// both kinds of failure. Then the opposite order: 3 data frames
    /// unacknowledged, then no CTS: 3 + 7 RTS frames. And a CTS between
    /// two runs of failures: six RTS frames unanswered, the seventh
    /// answered, its data frame not acknowledged, then no CTS: the count
    /// starts again from 0 after the CTS, 7 + 7 RTS frames (without the
    /// reset the eighth would be the last).
    #[test]
    fn a_cts_resets_the_short_retry_count_and_the_long_one_counts_on() {
        let m = MacParams::default();
        let x = exchange(m, |k| k > 6, |_| false);
        let s = &x.d.stats;
        assert_eq!((s.rts_sent, s.data_sent, s.retries, s.drops_retry, s.link_failures), (10, 4, 9, 1, 1));
        assert_eq!(x.cw, [63, 127, 255, 511, 1023, 1023, 1023, 1023, 1023, 31]);
        let x = exchange(m, |k| k <= 3, |_| false);
        let s = &x.d.stats;
        assert_eq!((s.rts_sent, s.data_sent, s.retries, s.drops_retry, s.link_failures), (10, 3, 9, 1, 1));
        let x = exchange(m, |k| k == 7, |_| false);
        let s = &x.d.stats;
        assert_eq!((s.rts_sent, s.data_sent, s.retries, s.drops_retry, s.link_failures), (14, 1, 13, 1, 1));
    }

    /// Success after failures: three RTS frames unanswered, then the
    /// exchange completes. CW went 63, 127, 255 and is back at CWmin
    /// after the ACK; the packet is not dropped, and the next frame starts
    /// with fresh counters.
    #[test]
    fn cw_and_retry_counts_reset_after_a_success() {
        let m = MacParams::default();
        let x = exchange(m, |k| k > 3, |_| true);
        let s = &x.d.stats;
        assert_eq!(
            (s.rts_sent, s.data_sent, s.retries, s.data_acked, s.drops_retry, s.link_failures),
            (4, 1, 3, 1, 0, 0)
        );
        assert_eq!(x.cw, [63, 127, 255, 31]);
        assert_eq!((x.d.src, x.d.lrc, x.d.cw), (0, 0, m.cw_min));
        assert!(x.out.is_empty(), "nothing dropped, nothing failed");
        // Without RTS: two data frames unacknowledged, the third acknowledged.
        let m = MacParams { rts_threshold: None, ..MacParams::default() };
        let x = exchange(m, |_| false, |k| k > 2);
        let s = &x.d.stats;
        assert_eq!((s.rts_sent, s.data_sent, s.retries, s.data_acked, s.drops_retry), (0, 3, 2, 1, 0));
        assert_eq!(x.cw, [63, 127, 31]);
    }

    /// Runs the station's own events (its timers, the ends of what it
    /// senses) up to and including the first one at or after `until`.
    fn run_until(d: &mut Dcf, ag: &mut Agenda, pool: &mut crate::packet::PacketPool, until: Time) -> Time {
        let mut out = Vec::new();
        while let Some((now, ev)) = ag.pop() {
            d.on_event_on(now, ev, &mut DevIo { pool, sched: ag, report_transmit: false, out: &mut out });
            if now >= until {
                return now;
            }
        }
        panic!("nothing left to run before {until}");
    }

    /// EIFS is one deferral, the one after a frame sensed but not decoded
    /// (IEEE 802.11-2016 10.3.2.3.7). Station 0 senses a frame it cannot
    /// decode, waits EIFS, sends a broadcast; the post-backoff after its
    /// own frame starts after DIFS: the EIFS was over before it sent.
    #[test]
    fn eifs_ends_with_the_deferral_it_was_for() {
        let mut d = station(MacParams::default());
        // Above the carrier-sense threshold, below the receive threshold.
        d.neighbours = vec![Neighbour { node: 1, dev: 1, power_w: 1e-10, distance_m: 400.0, delay: 0 }];
        let (mut pool, mut ag, mut out) = (crate::packet::PacketPool::new(), Agenda::default(), Vec::new());
        let mut p = Packet::new(0, 1, 9, Transport::Udp(Default::default()), 8, 500, 0);
        p.l2 = LinkHeader::Mac { tx: 1, rx: 9, kind: frame::DATA, len: 28 };
        let sensed = pool.insert(p);
        d.arrive_from_on(
            0,
            sensed,
            1e-10,
            &mut DevIo { pool: &mut pool, sched: &mut ag, report_transmit: false, out: &mut out },
        );
        let end = run_until(&mut d, &mut ag, &mut pool, 0);
        assert!(d.eifs, "a frame sensed but not decoded");
        let bcast = pool.insert(Packet::new(0, 0, BROADCAST, Transport::Udp(Default::default()), 8, 100, 0));
        d.send_on(
            end,
            bcast,
            None,
            false,
            &mut DevIo { pool: &mut pool, sched: &mut ag, report_transmit: false, out: &mut out },
        );
        let air = d.air.data(pool.get(bcast).size, true);
        let sent = run_until(&mut d, &mut ag, &mut pool, end + 1);
        assert_eq!((sent, d.state), (end + d.air.eifs, State::Tx(Sent::Broadcast)), "EIFS after that frame");
        let txend = run_until(&mut d, &mut ag, &mut pool, sent + 1);
        assert_eq!(txend, sent + air);
        assert_eq!(d.access.map(|(start, _)| start), Some(txend + d.air.difs), "DIFS after our own frame");
    }

    /// ns-2.35's receiver does not hear frames while it transmits
    /// (Mac802_11::recv marks them in error, `transmit` the one it was
    /// receiving), but recv_timer forgets such a frame silently only if
    /// the station is still transmitting when it ends; one that outlasts
    /// the station's frame ends in error and sets the EIFS NAV. Station 0
    /// sends a 304 us ACK; a frame from node 1 that begins 100 us into it
    /// outlasts it, one that begins 10 us into it (a 14-byte control
    /// frame) ends before it. With `ns2_eifs` the first sets the EIFS NAV
    /// and the second not; the standard's receiver never synchronised to
    /// either and waits DIFS after both.
    #[test]
    fn ns2s_eifs_follows_a_frame_that_outlasts_the_stations_own() {
        for ns2 in [false, true] {
            let mut d = station(MacParams { ns2_eifs: ns2, ..MacParams::default() });
            d.neighbours = vec![Neighbour { node: 1, dev: 1, power_w: 1e-8, distance_m: 100.0, delay: 0 }];
            let (mut pool, mut rec, mut out) = (crate::packet::PacketPool::new(), Recorder::default(), Vec::new());
            let mut io = DevIo { pool: &mut pool, sched: &mut rec, report_transmit: false, out: &mut out };
            let frame_from_1 = |io: &mut DevIo<Recorder>, kind: u8, len: u16| {
                let mut p = Packet::new(0, 1, 9, Transport::Udp(Default::default()), 8, 500, 0);
                p.l2 = LinkHeader::Mac { tx: 1, rx: 9, kind, len };
                io.pool.insert(p)
            };
            d.state = State::Tx(Sent::Ack);
            let short = frame_from_1(&mut io, frame::ACK, ACK_LEN as u16);
            d.on_arrive(10 * US, short, &mut io);
            let long = frame_from_1(&mut io, frame::DATA, 28);
            d.on_arrive(100 * US, long, &mut io);
            let (short_end, long_end) = (d.rx[0].end, d.rx[1].end);
            d.on_rx_end(short_end, &mut io);
            assert_eq!(d.eifs_nav_until, 0, "ns2_eifs {ns2}: it ended while the station sent");
            d.on_timer(d.air.ack, T_TXEND, &mut io);
            assert!(d.air.ack < long_end);
            d.on_rx_end(long_end, &mut io);
            let want = if ns2 { long_end + d.air.eifs } else { 0 };
            assert_eq!(d.eifs_nav_until, want, "ns2_eifs {ns2}: it outlasted the station's frame");
            assert!(!d.eifs, "the standard's receiver never synchronised to it");
        }
    }

    #[test]
    fn airtimes_match_mac_params() {
        // whole nanoseconds per byte (1 and 2 Mbit/s) and not (5.5, 11, 0.3)
        for (data, basic) in [(2_000_000, 1_000_000), (11_000_000, 5_500_000), (300_000, 7)] {
            let m = MacParams { data_rate_bps: data, basic_rate_bps: basic, sifs: 16 * US, ..MacParams::default() };
            let a = Air::new(&m);
            for len in [RTS_LEN, CTS_LEN, ACK_LEN, 1, 33] {
                assert_eq!(a.ctrl(len), m.ctrl_air(len), "{data} {basic} {len}");
            }
            for size in [0, 1, 40, 1460, 1500, 65_535] {
                for bc in [false, true] {
                    assert_eq!(a.data(size, bc), m.data_air(size, bc), "{data} {basic} {size} {bc}");
                }
            }
            assert_eq!((a.difs, a.eifs), (m.difs(), m.eifs()));
        }
    }
}
