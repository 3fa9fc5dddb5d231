//! Transport protocols as sans-IO state machines: they are fed
//! `(now, header)` or `(now, timer)` and hand back segments to send and the
//! deadlines of their timers. They never see the event queue.
pub mod app;
pub mod socket;
pub mod tcp;
pub mod udp;
