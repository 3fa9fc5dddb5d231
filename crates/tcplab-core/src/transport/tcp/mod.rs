//! TCP: one byte-oriented sender whose congestion behaviour is a pluggable
//! `CongestionControl` (Tahoe, Reno, NewReno, Vegas, CUBIC,
//! Westwood+, BBR; NewReno with TCP-AP's adaptive pacing), an RFC 6298
//! retransmission timer, and a receiver with immediate or delayed ACKs.
pub mod adaptive_pacing;
pub mod averages;
pub mod bbr;
pub mod cc;
pub mod config;
pub mod cubic;
pub mod idle;
pub mod jiffies;
pub mod linux_reno;
pub mod linux_rwnd;
pub mod newreno;
pub mod persist;
pub mod prr;
pub mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
pub mod reno;
pub mod rto;
pub mod sack;
pub mod sack1;
pub mod sender;
pub mod tahoe;
mod tso_defer;
mod undo;
pub mod vegas;
pub mod westwood;

#[cfg(test)]
mod comp_sack_tests;
#[cfg(test)]
mod idle_tests;
#[cfg(test)]
mod nagle_tests;
#[cfg(test)]
mod ns2_tests;
#[cfg(test)]
mod prr_tests;
#[cfg(test)]
mod rack_tests;
#[cfg(test)]
mod reno_undo_tests;
#[cfg(test)]
mod rfc_profile_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tso_defer_tests;
#[cfg(test)]
mod undo_tests;

pub use cc::{make_cc, CcState, CongestionControl, Variant};
pub use config::{AckPolicy, CompSack, Ns2Rules, ReceiveWindow, TcpConfig, TcpProfile, VegasParams};
pub use receiver::{AckFields, TcpReceiver};
pub use sender::{OutSegment, Segment, TcpSender};
