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
    /// a new event must be scheduled, if one is needed. A deadline already
    /// past is due `now`: the event queue would put it at `now` anyway, and
    /// the slot must then expect it at `now`, or its `fire` would not
    /// recognise the event and the component's timer would stop for good
    /// (DSDV's triggered updates once did that: docs/validation.md, "50
    /// nodes, 20 CBR flows").
    #[inline]
    pub fn arm(&mut self, deadline: Option<Time>, now: Time) -> Option<Time> {
        let d = deadline?.max(now);
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
        assert_eq!(t.arm(None, 0), None);
        assert_eq!(t.arm(Some(10), 0), Some(10));
        assert_eq!(t.arm(Some(20), 0), None, "the event at 10 re-arms when it fires");
        assert_eq!(t.arm(Some(5), 0), Some(5));
        assert!(!t.fire(10), "superseded by the event at 5");
        assert!(t.fire(5));
        assert!(!t.fire(5), "consumed");
        assert_eq!(t.arm(Some(20), 5), Some(20));
    }

    #[test]
    fn a_deadline_already_past_is_due_now_and_fires() {
        let mut t = TimerSlot::default();
        assert_eq!(t.arm(Some(7), 10), Some(10), "scheduled now, not in the past");
        assert!(t.fire(10), "the event at 10 is the pending one");
        assert_eq!(t.arm(Some(3), 12), Some(12));
        assert_eq!(t.arm(Some(11), 12), None, "one event due now is enough");
        assert!(t.fire(12));
    }
}
