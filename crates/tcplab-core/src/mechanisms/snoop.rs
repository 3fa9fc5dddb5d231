//! The Snoop agent (Balakrishnan, Seshan, Amir & Katz 1995) for one TCP
//! connection at a base station: a cache of data segments on their way to
//! the mobile host, local retransmission on the first duplicate ACK with
//! the following duplicates suppressed, and a local retransmission timer.
//! Sans-IO: it is shown packets and tells the caller what to do.
//!
//! Snoop is told when a cached segment actually goes on the air (leaves the
//! base station's queue): RTT samples and the local timer run from then, and
//! a duplicate ACK for a segment still waiting in the queue cannot mean that
//! segment was lost (it comes from a duplicate or reordered segment) and is
//! suppressed without a retransmission. Timing from the cache instead lets
//! the queueing delay of a loaded base station fire the local timer
//! spuriously, and every spurious copy then produces a duplicate ACK that
//! triggers the next one.
//!
//! A connection's first data segment: until the mobile's first ACK, Snoop
//! presumes the mobile waits for the lowest segment it has seen (the last
//! ACK is taken as the one just before it, as ns-2's Snoop starts with
//! `lastAck_ = -1` before packet 0), so the local timer and the first
//! duplicate ACK repair that segment like any other. The handshake, when
//! the connection has one, gives the first RTT estimate: the SYN timed on
//! the air to its answer, if it went on the air once. The SYN itself is
//! cached and resent by the local timer like a segment (ns-2's Snoop caches
//! it as packet 0), so a SYN lost on the air does not wait for the sender's
//! handshake timeout (3 s).

use crate::engine::time::MS;
use crate::engine::Time;
use crate::packet::Packet;
use std::collections::BTreeMap;

/// Largest number of segments cached per connection (ns-2's SNOOP_MAXWIND).
pub const MAX_CACHE: usize = 100;
/// Local retransmissions of one segment before giving up on it.
pub const MAX_LOCAL_RXMIT: u32 = 10;
/// Floor of the local retransmission timeout.
pub const MIN_TIMEOUT: Time = 100 * MS;

#[derive(Clone, Copy, Debug)]
struct Cached {
    pkt: Packet,
    end: u64,
    /// When it last went on the air; None while it waits in the queue.
    sent: Option<Time>,
    /// The fixed host retransmitted it (or it arrived out of order): its
    /// duplicate ACKs belong to the sender.
    sender_rxmit: bool,
    local_rxmits: u32,
    /// The local timer resent it: the mobile may have had it all along.
    timer_copy: bool,
}

/// The connection's SYN, kept until its answer comes back.
#[derive(Clone, Copy, Debug)]
struct SynCopy {
    pkt: Packet,
    /// When it last went on the air; None while it waits in the queue.
    sent: Option<Time>,
    local_rxmits: u32,
}

#[derive(Clone, Debug, Default)]
pub struct SnoopStats {
    pub local_retransmits: u64,
    pub suppressed_dupacks: u64,
    pub max_cache: u64,
    pub timeouts: u64,
}

/// What to do with an ACK going back to the fixed host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    Forward,
    Suppress,
    /// Suppress the ACK and send the cached segment starting at this
    /// sequence number again, ahead of the queue.
    Retransmit(u64),
}

#[derive(Clone, Debug, Default)]
pub struct SnoopConn {
    cache: BTreeMap<u64, Cached>,
    /// The mobile's last cumulative ACK; before the first one, the start of
    /// the lowest segment seen (`presumed`).
    last_ack: Option<u64>,
    /// `last_ack` is presumed, not seen: no ACK has come from the mobile
    /// yet. A lower ACK then replaces it rather than being a reordered one.
    presumed: bool,
    /// When the connection's SYN went on the air, while its answer is due
    /// and it went only once (Karn: none after a second SYN).
    syn_sent: Option<Time>,
    syn_transmits: u32,
    /// The SYN, cached while its answer is due (`on_syn`).
    syn: Option<SynCopy>,
    /// End of the highest segment seen from the fixed host.
    last_seen: u64,
    /// Duplicate ACKs still expected (and suppressed) after a local retransmission.
    exp_dupacks: u32,
    srtt: Option<Time>,
    rttvar: Time,
    deadline: Option<Time>,
    /// Doubles with each timer-driven local retransmission, reset by a new ACK.
    backoff: u32,
    /// Duplicate ACKs still to come from timer copies of segments the
    /// mobile turned out to have had (see `on_ack`), expected until
    /// `stale_until`: a copy lost on the hop draws none, and the
    /// expectation must not swallow a real loss's first duplicate later.
    stale_copies: u32,
    stale_until: Time,
    pub stats: SnoopStats,
}

impl SnoopConn {
    pub fn timeout(&self) -> Time {
        let base = match self.srtt {
            Some(s) => (s + 4 * self.rttvar).max(MIN_TIMEOUT),
            None => 2 * MIN_TIMEOUT,
        };
        base * self.backoff.max(1) as Time
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn cache_len(&self) -> usize {
        self.cache.len()
    }

    /// The timer runs for the oldest cached segment once it is on the air,
    /// restarted from now at each new ACK (as TCP's, RFC 6298 5.3, and ns-2's
    /// Snoop): it fires when the mobile's ACKs stop advancing for a
    /// timeout, not when one segment's ACK is later than the estimate. (From
    /// the segment's own transmission instead, an RTT rising faster than the
    /// estimate, as in slow start into a busy 802.11 cell, fired it for
    /// segments whose ACKs were on their way; their copies took no RTT
    /// samples, so the estimate never caught up.)
    fn rearm(&mut self, now: Time) {
        let to = self.timeout();
        self.deadline = self.cache.values().next().and_then(|c| c.sent).map(|_| now + to);
    }

    /// A cached segment starts its transmission on the wireless hop.
    pub fn on_transmit(&mut self, now: Time, seq: u64) {
        if let Some(c) = self.cache.get_mut(&seq) {
            c.sent = Some(now);
            if self.cache.keys().next() == Some(&seq) {
                self.rearm(now);
            }
        }
    }

    /// A data segment from the fixed host passes towards the mobile. It is
    /// always forwarded; `room` says whether the outgoing queue has space to
    /// spare (if not, Snoop does not cache, so that congestion control can
    /// act, as in ns-2).
    pub fn on_data(&mut self, p: &Packet, seq: u64, room: bool) {
        let end = seq + p.payload as u64;
        self.presume_waiting_for(seq);
        if self.last_ack.is_some_and(|a| end <= a) {
            return; // already acknowledged by the mobile
        }
        if let Some(c) = self.cache.get_mut(&seq) {
            // Cached before: a sender retransmission. Queued again: if it is
            // the segment the timer runs for, the timer waits for it to go
            // on the air (as after a local retransmission, and as ns-2's
            // Snoop restarts its timer for it), instead of firing and
            // sending a second copy ahead of it.
            c.sender_rxmit = true;
            c.local_rxmits = 0;
            c.sent = None;
            if self.cache.keys().next() == Some(&seq) {
                self.deadline = None;
            }
            return;
        }
        if !room || self.cache.len() >= MAX_CACHE {
            self.last_seen = self.last_seen.max(end);
            return;
        }
        // In sequence, or out of sequence and not cached (lost upstream, or
        // reordered): the latter is marked as the sender's business.
        let in_seq = end > self.last_seen;
        self.cache.insert(
            seq,
            Cached { pkt: *p, end, sent: None, sender_rxmit: !in_seq, local_rxmits: 0, timer_copy: false },
        );
        self.last_seen = self.last_seen.max(end);
        self.stats.max_cache = self.stats.max_cache.max(self.cache.len() as u64);
    }

    /// Before the mobile's first ACK, presume it waits for the lowest
    /// segment seen so far (the connection's first, unless Snoop started
    /// watching it midway or segments came out of order).
    fn presume_waiting_for(&mut self, seq: u64) {
        match self.last_ack {
            None => {
                self.last_ack = Some(seq);
                self.presumed = true;
            }
            Some(a) if self.presumed && seq < a => self.last_ack = Some(seq),
            _ => {}
        }
    }

    /// The connection's SYN passes towards the mobile (it carries no data
    /// and takes no sequence number here): the mobile will wait for `seq`.
    /// It is cached, as a segment would be (only with `room`, and a SYN
    /// the sender repeats replaces the copy), for the local timer.
    pub fn on_syn(&mut self, p: &Packet, seq: u64, room: bool) {
        self.presume_waiting_for(seq);
        if room {
            self.syn = Some(SynCopy { pkt: *p, sent: None, local_rxmits: 0 });
        }
    }

    /// The SYN starts its transmission on the wireless hop: the local
    /// timer runs for it while nothing else is cached.
    pub fn on_syn_transmit(&mut self, now: Time) {
        self.syn_transmits += 1;
        self.syn_sent = (self.syn_transmits == 1).then_some(now);
        if let Some(s) = self.syn.as_mut() {
            s.sent = Some(now);
            if self.cache.is_empty() {
                self.deadline = Some(now + self.timeout());
            }
        }
    }

    /// The local timer fired with the SYN on the air and unanswered: the
    /// copy to resend (ahead of the queue), as ns-2's Snoop resends its
    /// packet 0. Otherwise None, and `on_timer` looks at the segments.
    pub fn syn_timer(&mut self, now: Time) -> Option<Packet> {
        let s = self.syn.as_mut()?;
        match self.deadline {
            Some(d) if d <= now && s.sent.is_some() && s.local_rxmits < MAX_LOCAL_RXMIT => {}
            _ => return None,
        }
        self.deadline = None;
        s.local_rxmits += 1;
        s.sent = None;
        let pkt = s.pkt;
        self.stats.local_retransmits += 1;
        self.timer_fired();
        Some(pkt)
    }

    /// The SYN's answer from the mobile: an RTT sample of the hop if the
    /// SYN went on the air once, and the mobile's ACK. It is never taken
    /// for a duplicate (an answer to a repeated SYN says nothing of a lost
    /// segment).
    pub fn on_syn_ack(&mut self, now: Time, ack: u64) {
        if let Some(sent) = self.syn_sent.take() {
            self.rtt_sample(now - sent);
        }
        if self.syn.take().is_some() {
            self.backoff = 1;
            self.rearm(now);
        }
        if self.last_ack == Some(ack) {
            self.presumed = false;
        } else {
            // Not equal to the last ACK: a new one, or a reordered one
            // (forwarded either way).
            self.on_ack(now, ack);
        }
    }

    /// An ACK from the mobile host passes towards the fixed host.
    pub fn on_ack(&mut self, now: Time, ack: u64) -> AckAction {
        // The first ACK replaces a presumed last ACK, whatever its value;
        // equal to it, it is the duplicate of a lost first segment.
        let presumed = std::mem::take(&mut self.presumed);
        match self.last_ack {
            Some(last) if ack < last && !presumed => AckAction::Forward, // reordered ACK
            Some(last) if ack == last => self.on_dupack(now, ack),
            _ => {
                // New ACK: clean the cache, sample the RTT from the newest
                // segment it covers if it went out only once.
                // A segment the timer resent is most often one whose ACK was
                // only late (queued behind others at the mobile, or on a
                // busy channel): the mobile then gets the copy as a
                // duplicate and answers with a duplicate ACK, which must not
                // count as the loss of the segment it names. Each such copy
                // draws one; they are expected and suppressed. (Without
                // this, every spurious copy's duplicate ACK triggered the
                // next copy, each as spurious: a loaded 802.11 cell with no
                // loss lost 15-25 % of its goodput to Snoop. ns-2's Snoop
                // avoids the chain by resending only on the second
                // duplicate, RTX_THRESH; Snoop as published resends on the
                // first, as here.)
                // The sample is taken only when every segment the ACK
                // covers went out once and none is missing from the cache:
                // an ACK held back by a hole before the newest segment (a
                // lost segment resent, locally or by the sender, or one never
                // cached) measures the hole's repair, seconds on a lossy hop,
                // not the hop's round trip, and such a sample inflated the
                // timeout until a connection's lost segments waited seconds
                // for their local retransmission.
                let mut sample = None;
                let mut clean = true;
                let mut next = self.last_ack;
                let stale_before = self.stale_copies;
                while let Some((&s, c)) = self.cache.iter().next() {
                    if c.end > ack {
                        break;
                    }
                    clean &= !c.sender_rxmit && c.local_rxmits == 0 && next.is_none_or(|n| n == s);
                    sample = if clean { c.sent } else { None };
                    next = Some(c.end);
                    self.stale_copies += u32::from(c.timer_copy);
                    self.cache.remove(&s);
                }
                if let Some(sent) = sample {
                    self.rtt_sample(now - sent);
                }
                self.last_ack = Some(ack);
                self.exp_dupacks = 0;
                self.backoff = 1;
                if self.stale_copies > stale_before {
                    // Their duplicates come within about a round trip of
                    // the hop, after this ACK (the mobile answers in order).
                    self.stale_until = now + self.timeout();
                }
                self.rearm(now);
                AckAction::Forward
            }
        }
    }

    fn on_dupack(&mut self, now: Time, ack: u64) -> AckAction {
        let Some(c) = self.cache.get(&ack) else { return AckAction::Forward };
        if c.sender_rxmit {
            return AckAction::Forward;
        }
        if c.sent.is_none() {
            // Still queued here: this duplicate cannot report its loss.
            self.stats.suppressed_dupacks += 1;
            return AckAction::Suppress;
        }
        if self.exp_dupacks > 0 {
            self.exp_dupacks -= 1;
            self.stats.suppressed_dupacks += 1;
            return AckAction::Suppress;
        }
        if self.stale_copies > 0 && now > self.stale_until {
            // Their copies were lost on the hop.
            self.stale_copies = 0;
        }
        if self.stale_copies > 0 {
            // Drawn by a copy the mobile already had (`on_ack`).
            self.stale_copies -= 1;
            self.stats.suppressed_dupacks += 1;
            return AckAction::Suppress;
        }
        if c.local_rxmits >= MAX_LOCAL_RXMIT {
            return AckAction::Forward; // give up: the sender's turn
        }
        // The first duplicate, or more duplicates than the segments behind
        // the hole explain after a local retransmission (so that one was
        // lost too): resend, and expect one duplicate per segment behind
        // the hole.
        self.exp_dupacks = self.cache.range(ack + 1..).count() as u32;
        self.exp_dupacks = self.exp_dupacks.saturating_sub(1);
        self.stats.suppressed_dupacks += 1;
        AckAction::Retransmit(ack)
    }

    /// The copy to send for a local retransmission of the segment at `seq`.
    pub fn take_for_rxmit(&mut self, seq: u64) -> Option<Packet> {
        let c = self.cache.get_mut(&seq)?;
        if c.local_rxmits >= MAX_LOCAL_RXMIT {
            return None;
        }
        c.local_rxmits += 1;
        c.sent = None; // queued again (at the head) until it goes on the air
        self.stats.local_retransmits += 1;
        let p = c.pkt;
        self.deadline = None;
        Some(p)
    }

    /// The local timer fired: resend the oldest unacknowledged segment if it
    /// is the one the mobile is waiting for (before the mobile's first ACK,
    /// the one presumed: see `presume_waiting_for`).
    pub fn on_timer(&mut self, now: Time) -> Option<u64> {
        match self.deadline {
            Some(d) if d <= now => {}
            _ => return None,
        }
        self.deadline = None;
        let (&seq, c) = self.cache.iter_mut().next()?;
        if self.last_ack != Some(seq) {
            // The mobile waits for a segment Snoop does not hold (never
            // cached): nothing to resend; the next ACK or transmission
            // re-arms the timer.
            return None;
        }
        c.timer_copy |= c.local_rxmits < MAX_LOCAL_RXMIT; // a copy will go
        self.timer_fired();
        self.exp_dupacks = self.cache.len().saturating_sub(1) as u32;
        Some(seq)
    }

    /// The local timer resends something: counted, and the next timeout
    /// doubled (at most 64 times the estimate).
    fn timer_fired(&mut self) {
        self.stats.timeouts += 1;
        self.backoff = (self.backoff.max(1) * 2).min(64);
    }

    fn rtt_sample(&mut self, r: Time) {
        // EWMA with gain 1/4 for the mean and the deviation, the first
        // sample as TCP's (RFC 6298). Not ns-2's: its Snoop starts from
        // srtt_ 0.1 s and rttvar_ 0.25 s (a first timeout of 1.1 s) and,
        // with g_ = 0.125 in srtt_ = g_ srtt_ + (1 - g_) rtt, gives each
        // sample 7/8 of srtt_ and 1/8 of rttvar_ (tcl/lan/ns-ll.tcl).
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(s) => {
                let s2 = (3 * s + r) / 4;
                self.rttvar = (3 * self.rttvar + s2.abs_diff(r)) / 4;
                self.srtt = Some(s2);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{TcpHeader, Transport};

    fn seg(seq: u64) -> Packet {
        Packet::new(0, 0, 1, Transport::Tcp(TcpHeader { seq, ..Default::default() }), 20, 1000, 0)
    }

    fn syn() -> Packet {
        let h = TcpHeader { flags: crate::packet::flags::SYN, ..Default::default() };
        Packet::new(0, 0, 1, Transport::Tcp(h), 20, 0, 0)
    }

    /// n segments cached and put on the air 1 ms apart.
    fn snoop_with(n: u64) -> SnoopConn {
        let mut s = SnoopConn::default();
        for i in 0..n {
            s.on_data(&seg(i * 1000), i * 1000, true);
            s.on_transmit(i * MS, i * 1000);
        }
        s
    }

    #[test]
    fn caches_and_cleans_on_new_acks() {
        let mut s = snoop_with(5);
        assert_eq!(s.cache_len(), 5);
        assert_eq!(s.on_ack(50 * MS, 2000), AckAction::Forward);
        assert_eq!(s.cache_len(), 3);
        assert_eq!(s.srtt, Some(49 * MS), "RTT from the newest segment the ACK covers");
    }

    /// A wireless loss: the first duplicate triggers a local retransmission,
    /// the duplicates caused by the segments behind it are suppressed, and
    /// the fixed host sees none of them.
    #[test]
    fn first_dupack_retransmits_locally_and_duplicates_are_suppressed() {
        let mut s = snoop_with(6);
        s.on_ack(50 * MS, 1000); // segment 1 lost; 2..5 arrive
        assert_eq!(s.on_ack(51 * MS, 1000), AckAction::Retransmit(1000));
        let p = s.take_for_rxmit(1000).unwrap();
        assert_eq!(p.tcp().unwrap().seq, 1000);
        s.on_transmit(52 * MS, 1000);
        for i in 0..3 {
            assert_eq!(s.on_ack(52 * MS + i, 1000), AckAction::Suppress);
        }
        assert_eq!(s.stats.local_retransmits, 1);
        assert_eq!(s.stats.suppressed_dupacks, 4);
        assert_eq!(s.on_ack(100 * MS, 6000), AckAction::Forward);
        assert_eq!(s.cache_len(), 0);
    }

    /// Duplicates for a segment the fixed host retransmitted (or one Snoop
    /// never cached) go through to the sender.
    #[test]
    fn sender_retransmissions_and_uncached_holes_are_the_senders_business() {
        let mut s = snoop_with(4);
        s.on_ack(50 * MS, 1000);
        s.on_data(&seg(1000), 1000, true); // sender retransmits 1
        s.on_transmit(60 * MS, 1000);
        assert_eq!(s.on_ack(61 * MS, 1000), AckAction::Forward);
        let mut t = SnoopConn::default();
        for q in [0, 2000] {
            // 1000 lost upstream: never cached
            t.on_data(&seg(q), q, true);
            t.on_transmit(0, q);
        }
        t.on_ack(10 * MS, 1000);
        assert_eq!(t.on_ack(11 * MS, 1000), AckAction::Forward);
        // Filling the hole later is an out-of-order arrival: marked.
        t.on_data(&seg(1000), 1000, true);
        t.on_transmit(20 * MS, 1000);
        assert_eq!(t.on_ack(21 * MS, 1000), AckAction::Forward);
    }

    #[test]
    fn local_timer_resends_the_oldest_segment_with_backoff() {
        let mut s = snoop_with(3);
        s.on_ack(50 * MS, 1000);
        let to = s.timeout();
        let d = s.deadline().unwrap();
        assert_eq!(d, 50 * MS + to, "restarted at the new ACK");
        assert!(s.on_timer(d - 1).is_none());
        assert_eq!(s.on_timer(d), Some(1000));
        assert!(s.take_for_rxmit(1000).is_some());
        assert!(s.deadline().is_none(), "no timer while the copy waits in the queue");
        s.on_transmit(d + MS, 1000);
        let d2 = s.deadline().unwrap();
        assert_eq!(d2 - (d + MS), 2 * to, "backed off");
    }

    /// ACKs that keep advancing keep the timer off, however long ago the
    /// oldest segment went on the air: its ACK is on its way behind the
    /// others (a busy channel, the mobile's queue), not lost.
    #[test]
    fn advancing_acks_keep_restarting_the_timer() {
        let mut s = snoop_with(40);
        // Ten ACKs 60 ms after their segments (a steady estimate, 100 ms
        // timeout), then one every 15 ms: each RTT 14 ms longer than the
        // last, soon past the timeout counted from the segment's own
        // transmission.
        let mut now = 0;
        for k in 1..40u64 {
            now = if k <= 10 { (k - 1) * MS + 60 * MS } else { now + 15 * MS };
            assert!(s.on_timer(now - 1).is_none(), "the timer fired before ACK {k}");
            s.on_ack(now, k * 1000);
        }
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(s.stats.local_retransmits, 0);
    }

    /// An ACK held back by a hole measures the hole's repair, not the round
    /// trip: no sample from it (the segment behind a resent one, or behind
    /// one never cached).
    #[test]
    fn an_ack_held_back_by_a_hole_gives_no_rtt_sample() {
        let mut s = snoop_with(4);
        s.on_ack(50 * MS, 1000);
        let srtt = s.srtt;
        assert_eq!(s.on_ack(51 * MS, 1000), AckAction::Retransmit(1000));
        s.take_for_rxmit(1000).unwrap();
        s.on_transmit(900 * MS, 1000);
        s.on_ack(950 * MS, 4000); // covers the resent 1000 and 2000, 3000
        assert_eq!(s.srtt, srtt, "a sample of 948 ms taken from segment 3000");
        let mut t = SnoopConn::default();
        for q in [0, 2000] {
            // 1000 never cached (lost before the base station)
            t.on_data(&seg(q), q, true);
            t.on_transmit(q / 1000 * MS, q);
        }
        t.on_ack(40 * MS, 1000);
        let srtt = t.srtt;
        t.on_ack(2000 * MS, 3000); // the sender's retransmission filled it
        assert_eq!(t.srtt, srtt);
    }

    /// A timer copy of a segment the mobile had all along (its ACK was only
    /// late) draws one duplicate ACK when it arrives; that duplicate names
    /// the next segment, which is not lost, and must not be resent.
    /// Four segments out, the mobile's ACKs stop at 1000, and the timer
    /// resends segment 1 (at `d`, returned), the copy on the air at d + 1 ms.
    fn timer_copy_of_segment_1() -> (SnoopConn, Time) {
        let mut s = snoop_with(4);
        s.on_ack(50 * MS, 1000);
        let d = s.deadline().unwrap();
        assert_eq!(s.on_timer(d), Some(1000));
        s.take_for_rxmit(1000).unwrap();
        s.on_transmit(d + MS, 1000);
        (s, d)
    }

    #[test]
    fn the_duplicate_drawn_by_a_needless_timer_copy_is_suppressed() {
        let (mut s, d) = timer_copy_of_segment_1();
        // The late ACKs for segments 1..3 arrive: segment 1 was never lost.
        s.on_ack(d + 2 * MS, 2000);
        s.on_ack(d + 3 * MS, 3000);
        // The copy reaches the mobile, which answers with a duplicate for 3000.
        assert_eq!(s.on_ack(d + 4 * MS, 3000), AckAction::Suppress);
        assert_eq!(s.stats.local_retransmits, 1);
        // A later duplicate for 3000 is a loss again: resent.
        assert_eq!(s.on_ack(d + 5 * MS, 3000), AckAction::Retransmit(3000));
    }

    /// The duplicate a needless timer copy would draw is expected only for
    /// a while: if the copy was lost on the hop, no duplicate comes, and a
    /// genuine first duplicate long after must be resent, not suppressed.
    #[test]
    fn a_needless_copys_duplicate_is_not_expected_forever() {
        let (mut s, d) = timer_copy_of_segment_1();
        s.on_ack(d + 2 * MS, 2000);
        s.on_ack(d + 3 * MS, 4000); // the copy is lost: no duplicate comes
        for q in [4000, 5000] {
            s.on_data(&seg(q), q, true);
        }
        let later = d + 10 * s.timeout();
        s.on_transmit(later, 4000);
        s.on_transmit(later + MS, 5000);
        // Segment 4 is lost, 5 arrives: the first duplicate is a loss.
        assert_eq!(s.on_ack(later + 60 * MS, 4000), AckAction::Retransmit(4000));
    }

    /// A sender retransmission of the segment the timer runs for goes back
    /// into the queue: the timer waits for it to go on the air (as after a
    /// local retransmission) rather than firing and sending a second copy
    /// ahead of it.
    #[test]
    fn a_sender_retransmission_of_the_oldest_segment_stops_the_timer_until_it_is_sent() {
        let mut s = snoop_with(3);
        s.on_ack(50 * MS, 1000);
        let d = s.deadline().unwrap();
        s.on_data(&seg(1000), 1000, true); // the fixed host resends 1, queued here
        assert!(s.deadline().is_none(), "no timer while the sender's copy waits in the queue");
        assert!(s.on_timer(d).is_none());
        s.on_transmit(d + MS, 1000);
        assert_eq!(s.deadline(), Some(d + MS + s.timeout()));
    }

    /// A duplicate ACK for a segment still waiting in the queue is caused by
    /// a duplicate segment, not by its loss: no local retransmission.
    #[test]
    fn dupack_for_a_queued_segment_is_suppressed_without_retransmission() {
        let mut s = SnoopConn::default();
        for q in [0, 1000, 2000] {
            s.on_data(&seg(q), q, true);
        }
        s.on_transmit(0, 0);
        s.on_ack(30 * MS, 1000);
        assert_eq!(s.on_ack(31 * MS, 1000), AckAction::Suppress);
        assert_eq!(s.stats.local_retransmits, 0);
    }

    /// Before the mobile's first ACK the first segment is the one it waits
    /// for: the timer resends it, and a first ACK naming it is a duplicate.
    #[test]
    fn the_first_segment_is_repaired_before_any_ack() {
        let mut s = snoop_with(1);
        let d = s.deadline().unwrap();
        assert_eq!(d, 2 * MIN_TIMEOUT, "no estimate yet");
        assert_eq!(s.on_timer(d), Some(0));
        assert!(s.take_for_rxmit(0).is_some());
        let mut t = snoop_with(3);
        assert_eq!(t.on_ack(30 * MS, 0), AckAction::Retransmit(0));
        t.take_for_rxmit(0).unwrap();
        t.on_transmit(31 * MS, 0);
        assert_eq!(t.on_ack(32 * MS, 0), AckAction::Suppress, "drawn by segment 2000");
    }

    /// The presumption yields to the mobile: a first ACK below it (Snoop
    /// started watching midway, the mobile waits for a segment never seen
    /// here) is no reordered ACK, and the timer then leaves the hole to
    /// the sender.
    #[test]
    fn a_first_ack_below_the_presumed_one_replaces_it() {
        let mut s = SnoopConn::default();
        for q in [5000, 6000] {
            s.on_data(&seg(q), q, true);
            s.on_transmit(0, q);
        }
        assert_eq!(s.on_ack(20 * MS, 4000), AckAction::Forward);
        assert_eq!(s.on_ack(21 * MS, 4000), AckAction::Forward, "not cached: the sender's");
        let d = s.deadline().unwrap();
        assert_eq!(s.on_timer(d), None);
        // A segment below the first one seen lowers the presumption.
        let mut t = SnoopConn::default();
        t.on_data(&seg(2000), 2000, true);
        t.on_data(&seg(1000), 1000, true);
        assert_eq!(t.last_ack, Some(1000));
    }

    /// The handshake: the SYN timed on the air to its answer gives the
    /// first estimate (none if it went twice), and the answer is no
    /// duplicate ACK.
    #[test]
    fn the_handshake_gives_the_first_rtt_sample() {
        let mut s = SnoopConn::default();
        s.on_syn(&syn(), 0, true);
        s.on_syn_transmit(10 * MS);
        s.on_syn_ack(22 * MS, 0);
        assert_eq!(s.srtt, Some(12 * MS));
        assert_eq!(s.timeout(), MIN_TIMEOUT);
        s.on_data(&seg(0), 0, true);
        s.on_transmit(60 * MS, 0);
        // A late answer to a repeated SYN: not a duplicate of segment 0.
        s.on_syn_ack(61 * MS, 0);
        assert_eq!(s.stats.local_retransmits, 0);
        assert_eq!(s.on_timer(60 * MS + MIN_TIMEOUT), Some(0));
        let mut t = SnoopConn::default();
        t.on_syn(&syn(), 0, true);
        t.on_syn_transmit(0);
        t.on_syn(&syn(), 0, true);
        t.on_syn_transmit(3000 * MS);
        t.on_syn_ack(3012 * MS, 0);
        assert_eq!(t.srtt, None, "which SYN it answers is unknown");
    }

    /// A SYN lost on the air: the local timer (200 ms without an estimate)
    /// resends the cached copy, backed off for the next round, and the
    /// answer to the copy ends the SYN's timer without an RTT sample
    /// (Karn). Without room in the queue the SYN is not cached.
    #[test]
    fn a_lost_syn_is_resent_by_the_local_timer() {
        let mut s = SnoopConn::default();
        s.on_syn(&syn(), 0, true);
        assert_eq!(s.deadline(), None, "not on the air yet");
        s.on_syn_transmit(10 * MS);
        let d = s.deadline().expect("the timer runs for the SYN");
        assert_eq!(d, 10 * MS + 2 * MIN_TIMEOUT);
        assert!(s.syn_timer(d - 1).is_none());
        let copy = s.syn_timer(d).expect("the SYN resent");
        assert_eq!(copy.tcp().unwrap().flags & crate::packet::flags::SYN, crate::packet::flags::SYN);
        assert_eq!((s.stats.local_retransmits, s.stats.timeouts), (1, 1));
        assert_eq!(s.on_timer(d), None, "no segment to resend");
        s.on_syn_transmit(d + MS);
        assert_eq!(s.deadline(), Some(d + MS + 4 * MIN_TIMEOUT), "backed off");
        s.on_syn_ack(d + 13 * MS, 0);
        assert_eq!((s.deadline(), s.srtt), (None, None));
        assert!(s.syn_timer(d + 10 * crate::engine::time::SEC).is_none());
        let mut full = SnoopConn::default();
        full.on_syn(&syn(), 0, false);
        full.on_syn_transmit(0);
        assert_eq!(full.deadline(), None, "not cached without room");
    }

    #[test]
    fn already_acknowledged_data_is_not_cached() {
        let mut s = snoop_with(2);
        s.on_ack(50 * MS, 2000);
        s.on_data(&seg(0), 0, true);
        assert_eq!(s.cache_len(), 0);
    }
}
