//! Simulated time, the event queue and the random number streams.
pub mod ns2_rng;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use ns2_rng::Ns2Rng;
pub use prefetch::prefetch;
pub use queue::EventQueue;
pub use rng::{stream_rng, Rng};
pub use time::Time;
pub use timer::TimerSlot;
