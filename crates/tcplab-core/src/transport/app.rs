//! Applications on top of a transport: what data exists and when.
use crate::engine::Time;

#[derive(Clone, Debug, PartialEq)]
pub enum App {
    /// Infinite backlog (FTP) from `start` until `stop`.
    Bulk { start: Time, stop: Option<Time> },
    /// `bytes` written in `write`-byte blocks at `start`, then each of
    /// `more` (time, bytes) at its time.
    Transfer { start: Time, bytes: u64, write: u32, more: Vec<(Time, u64)> },
    /// Messages of `bytes` with exponential gaps of mean `interval`, the
    /// mean changed to each of `changes` (time, mean) at its time.
    Messages { start: Time, stop: Option<Time>, interval: Time, bytes: u64, changes: Vec<(Time, Time)> },
    /// Constant bit rate: one `packet_size` datagram every `interval`.
    Cbr { start: Time, stop: Option<Time>, interval: Time },
}

impl App {
    pub fn start(&self) -> Time {
        match self {
            App::Bulk { start, .. }
            | App::Transfer { start, .. }
            | App::Cbr { start, .. }
            | App::Messages { start, .. } => *start,
        }
    }

    pub fn stop(&self) -> Option<Time> {
        match self {
            App::Bulk { stop, .. } | App::Cbr { stop, .. } | App::Messages { stop, .. } => *stop,
            App::Transfer { .. } => None,
        }
    }
}
