//! Network devices: the interfaces a node sends through. A device is a
//! sans-IO state machine: the world offers it packets (`send`) and fires its
//! events (`on_event`); the device schedules its own events through
//! `DevIo::sched` and answers with `DevAction`s (a packet went on the medium,
//! a packet reached a node, a packet was dropped, a neighbour could not be
//! reached). The world only carries these out; it holds no link or MAC
//! logic. The actions of one call go on a list the world keeps and reuses
//! (no allocation per event).
//!
//! Today's device is the point-to-point link direction (`p2p`); an 802.11
//! interface on a shared channel is another implementation of the same trait.

use super::queue::{DropCause, Queue};
use crate::engine::Time;
use crate::packet::{NodeId, PacketPool, PktId};
use std::any::Any;

/// Index of a device in the world's device table.
pub type DevId = u32;

/// An event a device scheduled for itself. Small and `Copy`, like all events.
#[derive(Clone, Copy, Debug)]
pub enum DevEvent {
    /// The transmitter is free: start the next queued packet.
    TxDone,
    /// A packet reaches the far end of the medium.
    Arrive(PktId),
    /// A device-specific timer (MAC timers), identified by the device.
    Timer(u32),
    /// The end of a frame's reception at this device (scheduled with
    /// `DevScheduler::schedule_frame_end`).
    FrameEnd,
}

/// Why a device dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Refused by the queue (overflow, RED, dual-threshold soft limit).
    Queue(DropCause),
    /// Lost on the medium to the error model (corruption).
    Corruption,
    /// The MAC gave up after its retry limit.
    RetryLimit,
}

/// What a device asks the world to do.
#[derive(Clone, Copy, Debug)]
pub enum DevAction {
    /// The packet started its transmission (captures, per-hop agents of the
    /// sending node see it now).
    Transmit(PktId),
    /// The packet reached this node.
    Deliver(NodeId, PktId),
    /// The device dropped the packet; the world counts and frees it.
    Drop(PktId, DropReason),
    /// The MAC gave up on frame `failed` for `neighbor` at its retry limit:
    /// the neighbour could not be reached (routing's link-failure hook).
    /// The frame is the world's: dropped as a retry-limit drop, unless the
    /// routing protocol takes it back to salvage it (DSR).
    LinkFailed { neighbor: NodeId, failed: PktId },
    /// A data frame addressed to another station that this one decoded
    /// (promiscuous mode, for routing protocols that listen in: DSR's route
    /// shortening). The device gives the world one extra reference to the
    /// frame, which the world releases.
    Overheard(PktId),
    /// A frame this shared-channel device sent or decoded, for captures of
    /// link-layer frames (only when `report_transmit`). The device gives the
    /// world one extra reference to the frame, which the world releases.
    Frame(PktId),
}

/// Where a device's own events go (the world's event queue, tagged with
/// the device).
pub trait DevScheduler {
    fn schedule(&mut self, at: Time, ev: DevEvent);
    /// An event for another device: a frame on a shared channel reaches
    /// each station that hears it as an `Arrive` at that station's device.
    fn schedule_for(&mut self, dev: DevId, at: Time, ev: DevEvent);
    /// A frame on a shared channel reaching several stations at once:
    /// `Arrive(frame)` at each target's device after its delay. The events
    /// come out exactly as if scheduled one by one with `schedule_for` in
    /// the order of the targets' `rank` (0, 1, ...). `targets` is sorted by
    /// (delay, rank), and is the device's
    /// `NetDevice::fan_targets` (the arrivals due at one time may travel as
    /// one event that names the sender and the first of them).
    fn fan_out(&mut self, now: Time, frame: PktId, targets: &[FanOut]);
    /// `fan_out` with one `Arrive` per receiver, each naming its receiver's
    /// device, in the same order: for a sender whose list of receivers may
    /// change before its frame's last arrival (moving stations), so that no
    /// event refers to the list by position.
    fn fan_out_each(&mut self, now: Time, frame: PktId, targets: &[FanOut]) {
        self.fan_out(now, frame, targets)
    }
    /// `FrameEnd` for this device at `at`, the end of its reception of
    /// frame `frame`: the same order as `schedule` (the ends of one frame's
    /// receptions due at one time may travel as one event).
    fn schedule_frame_end(&mut self, frame: PktId, at: Time);
}

/// One receiver of a frame on a shared channel (see `DevScheduler::fan_out`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FanOut {
    pub dev: DevId,
    pub delay: Time,
    /// Position in the order the arrivals are scheduled in.
    pub rank: u32,
    /// Mean power (W) at which this receiver hears the sender: the same
    /// both ways, so the receiver need not look the sender up among its
    /// own neighbours at every arrival.
    pub power_w: f64,
}

/// What a device may touch while handling a call: the packets, its event
/// scheduler, and the actions it returns (carried out in order after the
/// call returns).
pub struct DevIo<'a, S: DevScheduler + ?Sized + 'a = dyn DevScheduler + 'a> {
    pub pool: &'a mut PacketPool,
    pub sched: &'a mut S,
    /// Whether anyone watches transmissions (captures, agents at the node):
    /// `Transmit` actions are only wanted then.
    pub report_transmit: bool,
    pub out: &'a mut DevActions,
}

impl<'a, S: DevScheduler + 'a> DevIo<'a, S> {
    /// The same I/O with the scheduler behind `dyn`, for a device called
    /// through `NetDevice`.
    pub fn as_dyn(&mut self) -> DevIo<'_> {
        DevIo { pool: self.pool, sched: self.sched, report_transmit: self.report_transmit, out: self.out }
    }
}

/// Where a device call appends its actions. The world uses one list as a
/// stack: a call's actions are those past the length it had before the
/// call (nested calls, made while carrying them out, add theirs above and
/// truncate back), so a device must only push.
pub type DevActions = Vec<DevAction>;

pub trait NetDevice: Any + Send {
    /// The node that owns the device (it sends through it).
    fn node(&self) -> NodeId;
    /// Offer a packet for `next_hop` (None: broadcast).
    fn send(&mut self, now: Time, pkt: PktId, next_hop: Option<NodeId>, io: &mut DevIo);
    /// Offer a packet that goes ahead of everything queued (a base station's
    /// local retransmission).
    fn send_first(&mut self, now: Time, pkt: PktId, next_hop: Option<NodeId>, io: &mut DevIo);
    fn on_event(&mut self, now: Time, ev: DevEvent, io: &mut DevIo);
    /// Whether a packet could join the queue without reaching its limit.
    fn has_room(&self) -> bool;
    /// The interface queue, for samples and reports (an 802.11 station's
    /// CMUPriQueue: its data band only; `Dcf::queue` has all of it).
    fn queue(&self) -> &Queue;
    /// Take the packets queued for `neighbor` out of the interface queue
    /// (after a link failure: routing drops or salvages them; after a
    /// route error from `neighbor`, with `after_failure` false: ns-2's
    /// AODV drops them). A device without per-neighbour frames has none.
    fn take_queued_to(
        &mut self,
        _now: Time,
        _neighbor: NodeId,
        _pool: &PacketPool,
        _after_failure: bool,
    ) -> Vec<PktId> {
        Vec::new()
    }
    /// The device of `neighbor` if it is within this device's receive range
    /// by geometry (mean power at the receive threshold): whether a link
    /// failure to it is a false one. None for devices without a radio.
    fn in_range(&self, _now: Time, _neighbor: NodeId) -> Option<DevId> {
        None
    }
    /// The receivers of every frame the device puts on a shared channel,
    /// as it passes them to `DevScheduler::fan_out` (fixed for the run).
    fn fan_targets(&self) -> &[FanOut] {
        &[]
    }
    /// Whether the device's radio is on at `now` (a switched-off station).
    fn radio_on(&self, _now: Time) -> bool {
        true
    }
    /// Report data frames decoded for other stations (`Overheard`); off
    /// unless a routing protocol asks for it. Devices without a shared
    /// medium hear nothing of the kind.
    fn set_promiscuous(&mut self, _on: bool) {}
    /// For captures of link-layer frames: the duration field (ns) of the
    /// frame `p` and whether frame `pkt` on the air from this station is a
    /// retransmission.
    fn frame_fields(&self, _pkt: PktId, _p: &crate::packet::Packet) -> (Time, bool) {
        (0, false)
    }
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// A device slot of the world: the point-to-point device, stored inline so
/// the simulator's hottest path is compiled without dynamic calls, the
/// 802.11 station (boxed: it is large, and a wireless run spends most of its
/// events in it, so its calls are static too), or any other `NetDevice`
/// behind the trait. (The variants differ in size on purpose: boxing the
/// point-to-point device would add a pointer chase to every hop.)
#[allow(clippy::large_enum_variant)]
pub enum Device {
    P2p(super::p2p::PointToPoint),
    Wifi(Box<crate::wireless::Dcf>),
    Other(Box<dyn NetDevice>),
}

impl Device {
    pub fn as_dyn(&self) -> &dyn NetDevice {
        match self {
            Device::P2p(d) => d,
            Device::Wifi(d) => d.as_ref(),
            Device::Other(d) => d.as_ref(),
        }
    }

    pub fn as_dyn_mut(&mut self) -> &mut dyn NetDevice {
        match self {
            Device::P2p(d) => d,
            Device::Wifi(d) => d.as_mut(),
            Device::Other(d) => d.as_mut(),
        }
    }
}
