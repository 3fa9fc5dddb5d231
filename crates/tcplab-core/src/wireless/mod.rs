//! Wireless: radio propagation, the 802.11 PHY's reception rules and the DCF
//! MAC, as devices on one shared channel (a layer above `net`).
//!
//! Shape (docs/architecture.md, "The 802.11 channel"): the channel is not an
//! object the devices share at run time. For static nodes everything the
//! channel knows - who hears whom and how strongly, and after what
//! propagation delay - is fixed when the world is built, so it is computed
//! once (`channel::neighbour_lists`, a grid search) and each station's
//! device keeps its own list. A transmission is then one `Arrive` event per
//! station in carrier-sense range, scheduled by the sender for the receivers'
//! devices (`DevScheduler::fan_out`, each event with the insertion number it
//! would have had alone, reserved ahead) and carrying a shared reference to
//! one pool slot; each receiver schedules the end of its reception
//! (`DevScheduler::schedule_frame_end`). Arrivals due at the
//! same time (receivers at equal distances), and the ends of their
//! receptions, travel as one queue event each (`Ev::FanArrive`,
//! `Ev::FanEnd`, in `sim::forward`): their insertion numbers leave no room
//! for any other event between them. Each receiver's PHY
//! state (frames on the air at that receiver, NAV, EIFS) lives in its own
//! device. No shared mutable state, and the cost of a frame grows with its
//! neighbourhood, not the network.

pub mod arp;
pub mod channel;
pub mod ifq;
pub mod mac;
pub mod mobility;
pub mod params;
pub mod propagation;

pub use channel::{neighbour_lists, Neighbour};

use crate::packet::{Packet, Transport};

/// Whether `p` is a frame of the link layer (RTS, CTS, ACK, ARP) rather
/// than an IP packet: such frames have no uid of their own and are not in
/// the run's packet accounting.
pub fn is_link_frame(p: &Packet) -> bool {
    matches!(&p.l4, Transport::Control(c) if c.proto == mac::PROTO_MAC || c.proto == arp::PROTO_ARP)
}
pub use ifq::{IfqKind, InterfaceQueue};
pub use mac::{Dcf, WifiStats};
pub use mobility::{Mobility, Track};
pub use params::{MacParams, PhyParams};
pub use propagation::Propagation;
