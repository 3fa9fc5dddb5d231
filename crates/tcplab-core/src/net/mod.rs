//! The network layer: devices (point-to-point link directions today), their
//! queues and error models, and routing protocols.
pub mod codel;
pub mod device;
pub mod drr;
pub mod error;
pub mod fair;
pub mod fq_codel;
pub mod p2p;
pub mod queue;
pub mod routing;

pub use device::{DevAction, DevActions, DevEvent, DevId, DevIo, DevScheduler, Device, DropReason, FanOut, NetDevice};
pub use error::{Arrival, ErrorModel, HitAction, PacketClass};
pub use p2p::{DirStats, Offer, PointToPoint};
/// A link direction: the point-to-point device (the emulator's name for it).
pub type LinkDir = PointToPoint;
pub use codel::CodelParams;
pub use drr::{DrrClassify, DrrParams};
pub use fair::FlowKey;
pub use fq_codel::FqCodelParams;
pub use queue::{DropCause, Queue, QueuePolicy, RedParams, RedVictim, Verdict};
