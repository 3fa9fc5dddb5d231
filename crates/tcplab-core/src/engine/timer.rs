//! Lazy timers: the one timer mechanism of every component (sockets, per-hop
//! agents, devices, routing protocols).
//!
//! A sans-IO component only exposes its next deadline. The world keeps at most
//! one pending event per timer slot: a deadline earlier than the pending event
//! schedules a new one, a later deadline reuses the pending event, which finds
//! on firing that the deadline has moved and re-arms. Cancelling costs nothing
//! (the stale event is ignored), and the event queue never fills with
//! superseded timers.

use super::Time;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimerSlot {
    pending: Option<Time>,
}

impl TimerSlot {
    /// The component's deadline is now `deadline`: returns the time at which
    /// a new event must be scheduled, if one is needed.
    #[inline]
    pub fn arm(&mut self, deadline: Option<Time>) -> Option<Time> {
        let d = deadline?;
        if self.pending.is_none_or(|p| d < p) {
            self.pending = Some(d);
            Some(d)
        } else {
            None
        }
    }

    /// An event of this slot fires at `now`: true if it is the pending one
    /// (it is then consumed), false if a later-scheduled earlier event
    /// superseded it.
    #[inline]
    pub fn fire(&mut self, now: Time) -> bool {
        if self.pending == Some(now) {
            self.pending = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_deadlines_reuse_the_pending_event_and_stale_ones_are_ignored() {
        let mut t = TimerSlot::default();
        assert_eq!(t.arm(None), None);
        assert_eq!(t.arm(Some(10)), Some(10));
        assert_eq!(t.arm(Some(20)), None, "the event at 10 re-arms when it fires");
        assert_eq!(t.arm(Some(5)), Some(5));
        assert!(!t.fire(10), "superseded by the event at 5");
        assert!(t.fire(5));
        assert!(!t.fire(5), "consumed");
        assert_eq!(t.arm(Some(20)), Some(20));
    }
}
