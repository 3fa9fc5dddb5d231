//! The network: link directions with queues and error models, and static
//! shortest-path routing over the link graph.
pub mod error;
pub mod link;
pub mod queue;
pub mod routing;

pub use error::{ErrorModel, PacketClass};
pub use link::{DirStats, LinkDir, Offer};
pub use queue::{DropCause, Queue, QueuePolicy, RedParams, Verdict};
