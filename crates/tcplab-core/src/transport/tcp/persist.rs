//! The persist timer (RFC 9293 3.8.6.1, as Linux's `tcp_probe_timer()`
//! runs it): a sender with data waiting, nothing in flight and a peer
//! window too small for a segment would wait forever if the ACK that
//! reopens the window were lost, so it probes the window. Each probe is a
//! segment without data one byte below `snd_una` (Linux's
//! `tcp_xmit_probe_skb()`): old, so the receiver answers it at once with
//! an ACK that carries its window. The probe interval is the RTO doubled
//! at every probe, at most `max_rto`; an ACK that opens the window stops
//! the probing and clears the doubling.
//!
//! Only a window the receiver closes itself arms it: a split connection's
//! relay (`sim/split.rs`) when its buffer is full. Every other receiver
//! advertises its configured window all along, so nothing here runs for
//! them.

use super::sender::{OutSegment, TcpSender};
use crate::engine::Time;
use crate::packet::{flags, TcpHeader};

/// The persist timer's state (it shares the sender's timer slot with the
/// retransmission timer, which never runs while it does: nothing is in
/// flight).
#[derive(Clone, Copy, Debug, Default)]
pub struct Persist {
    armed: bool,
    /// Probes sent since the window closed (the interval's doubling).
    probes: u32,
    /// Probes sent in all. (Here, not in `SenderStats`, which lies before
    /// the sender's hot configuration: `Socket`'s layout test.)
    sent: u64,
}

impl TcpSender {
    /// Data waits, nothing is in flight and the peer's window has no room
    /// for a segment.
    fn window_blocked(&self) -> bool {
        self.snd_una == self.snd_max
            && !self.aborted
            && !self.awaits_syn_ack()
            && self.app_limit() > self.snd_max
            && self.rwnd < self.w.mss
    }

    /// Window probes sent in all.
    pub fn window_probes(&self) -> u64 {
        self.persist.sent
    }

    /// The persist timer is running.
    pub(super) fn probing(&self) -> bool {
        self.persist.armed
    }

    /// After an ACK has been taken and what it allowed sent: arm the
    /// persist timer if the window holds the data up, stop it if not.
    pub fn persist_check(&mut self, now: Time) {
        if !self.window_blocked() {
            self.stop_probing(now);
        } else if !self.persist.armed {
            self.persist.armed = true;
            self.rto_deadline = Some(self.timer_at(now, self.probe_interval()));
        }
    }

    /// The window opened (or data went out): no more probes, and the
    /// timer slot is the retransmission timer's again, running from `now`
    /// if anything is in flight (never at a probe's doubled deadline).
    pub(super) fn stop_probing(&mut self, now: Time) {
        if std::mem::take(&mut self.persist.armed) {
            self.persist.probes = 0;
            if self.snd_una == self.snd_max {
                self.rto_deadline = None;
            } else {
                self.restart_timer(now);
            }
        }
    }

    fn probe_interval(&self) -> Time {
        let rto = self.rto.rto();
        rto.checked_shl(self.persist.probes.min(32)).unwrap_or(Time::MAX).min(self.cfg.max_rto.max(rto))
    }

    /// The timer slot fired at `now`: if it is the persist timer's, the
    /// window probe to send (the timer re-armed, its interval doubled);
    /// None leaves the event to the retransmission timer.
    pub fn on_persist_timer(&mut self, now: Time) -> Option<OutSegment> {
        if !self.persist.armed || self.rto_deadline.is_some_and(|d| d > now) {
            return None;
        }
        self.persist.probes += 1;
        self.persist.sent += 1;
        self.rto_deadline = Some(self.timer_at(now, self.probe_interval()));
        let header = TcpHeader {
            sport: self.sport,
            dport: self.dport,
            seq: self.snd_una.saturating_sub(1),
            flags: flags::ACK,
            window: self.cfg.rwnd.min(u32::MAX as u64) as u32,
            ts: self.cfg.timestamps.then(|| ((now / self.ts_unit()) as u32, 0)),
            ..Default::default()
        };
        Some(OutSegment { header, payload: 0, ect: false, retransmit: false, headerless: false })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;
    use crate::transport::tcp::cc::{make_cc, Variant};
    use crate::transport::tcp::config::{TcpConfig, TcpProfile};

    const MSS: u64 = 1000;

    fn sender() -> TcpSender {
        let mut c = TcpConfig::profile(TcpProfile::Rfc);
        c.mss = MSS as u32;
        c.initial_window = 2;
        c.rwnd = 10 * MSS;
        c.syn = false;
        let mut s = TcpSender::new(c.clone(), make_cc(Variant::NewReno, &c));
        s.app_write(None);
        s
    }

    fn ack(s: &mut TcpSender, now: Time, n: u64, window: u32) {
        s.on_ack(now, &TcpHeader { ack: n, window, flags: flags::ACK, ..Default::default() });
        s.persist_check(now);
    }

    fn drain(s: &mut TcpSender, now: Time) -> usize {
        std::iter::from_fn(|| s.poll_transmit(now)).count()
    }

    /// RFC 9293 3.8.6.1: with the window closed and nothing in flight the
    /// sender probes, at the RTO doubled at each probe, one byte below
    /// snd_una without data; the window's reopening stops the probes and
    /// sends at once.
    #[test]
    fn a_closed_window_is_probed_until_it_opens() {
        let mut s = sender();
        assert_eq!(drain(&mut s, 0), 2);
        ack(&mut s, 100 * MS, 2 * MSS, 0);
        assert_eq!(drain(&mut s, 100 * MS), 0, "no room: nothing goes");
        let rto = s.rto.rto();
        assert_eq!(s.timer_deadline(), Some(100 * MS + rto));
        assert!(s.on_persist_timer(100 * MS + rto - 1).is_none(), "not yet due");
        let p = s.on_persist_timer(100 * MS + rto).expect("a probe");
        assert_eq!((p.header.seq, p.payload, p.retransmit), (2 * MSS - 1, 0, false));
        assert_eq!(s.timer_deadline(), Some(100 * MS + 3 * rto), "doubled");
        assert_eq!(s.stats.timeouts, 0);
        // The probe's answer: the window still closed, no duplicate ACK.
        let t = 100 * MS + rto + 50 * MS;
        ack(&mut s, t, 2 * MSS, 0);
        assert_eq!(s.stats.dupacks_received, 0);
        assert_eq!(s.timer_deadline(), Some(100 * MS + 3 * rto), "the doubled probe timer runs on");
        // A window update reopens it: segments go and the timer is the
        // retransmission timer again, the probes' doubling cleared.
        ack(&mut s, t + MS, 2 * MSS, 3 * MSS as u32);
        assert!(!s.probing());
        assert_eq!(drain(&mut s, t + MS), 3);
        assert_eq!(s.timer_deadline(), Some(t + MS + s.rto.rto()));
        assert_eq!(s.window_probes(), 1);
    }

    /// A window update is no duplicate ACK (RFC 5681 2 (e)): three of
    /// them with data in flight start no fast retransmit.
    #[test]
    fn window_updates_are_not_duplicate_acks() {
        let mut s = sender();
        drain(&mut s, 0);
        for (i, w) in [4u32, 5, 6, 7].into_iter().enumerate() {
            ack(&mut s, (10 + i as u64) * MS, 0, w * MSS as u32);
        }
        assert_eq!(s.stats.fast_retransmits, 0);
        assert_eq!(s.stats.dupacks_received, 0);
        assert_eq!(s.peer_window(), 7 * MSS);
    }
}
