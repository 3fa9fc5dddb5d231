//! Proportional Rate Reduction (RFC 6937) as Linux runs it
//! (`tcp_cwnd_reduction()` since 5.x, RFC 6937bis's form): the window
//! during fast recovery is what is in flight plus a send quota that spreads
//! the reduction from the window at the loss (`prior_cwnd`, Linux's stand-in
//! for RFC 6937's RecoverFS) down to ssthresh over about one round trip, in
//! proportion to the data the receiver reports delivered. Below ssthresh
//! the quota lets the flight grow back towards it (slow-start reduction
//! bound), at most one segment more than was delivered when the cumulative
//! ACK advanced without a new loss. The first ACK of a recovery always
//! gets one segment, the fast retransmit.
//!
//! Everything here counts whole segments, as Linux counts packets: with
//! byte counts a quota of part of a segment would hold back a send that
//! Linux makes.

/// One recovery episode's PRR state (zero outside recovery).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// The window when recovery started, in segments (Linux's prior_cwnd).
    prior_cwnd: u64,
    /// Segments the receiver reported delivered since (prr_delivered).
    delivered: u64,
    /// Segments sent since, retransmissions and new data (prr_out).
    out: u64,
}

impl Prr {
    /// Recovery starts with a window of `cwnd` segments.
    pub fn start(cwnd: u64) -> Self {
        Prr { prior_cwnd: cwnd.max(1), delivered: 0, out: 0 }
    }

    /// A segment was sent during recovery.
    pub fn sent(&mut self) {
        self.out += 1;
    }

    /// An ACK during recovery reported `delivered` segments (cumulatively
    /// acknowledged or newly SACKed, Linux's newly_acked_sacked) with
    /// `in_flight` segments then in the network and ssthresh `ssthresh`
    /// segments. Returns the new window in segments, or None when the ACK
    /// delivered nothing (the window stays as it is). `una_advanced`: the
    /// cumulative ACK moved; `newly_lost`: this ACK marked a segment lost.
    pub fn window(
        &mut self,
        delivered: u64,
        in_flight: u64,
        ssthresh: u64,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<u64> {
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let quota = if in_flight > ssthresh {
            // Proportional part: ceil(ssthresh * delivered / prior_cwnd)
            // sent in all by now.
            (ssthresh * self.delivered).div_ceil(self.prior_cwnd) as i64 - self.out as i64
        } else {
            let room = (ssthresh - in_flight) as i64;
            let mut n = (self.delivered as i64 - self.out as i64).max(delivered as i64);
            if una_advanced && !newly_lost {
                n += 1;
            }
            n.min(room)
        };
        // The fast retransmit goes out whatever the quota says.
        let quota = quota.max(if self.out == 0 { 1 } else { 0 });
        Some(in_flight + quota as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937's first example, in Linux's counting: a window of 20, one
    /// loss, ssthresh 10. The third duplicate ACK (3 SACKed) forces the
    /// retransmission; afterwards one segment per two delivered while the
    /// flight is above ssthresh.
    #[test]
    fn above_ssthresh_one_segment_per_two_delivered() {
        let mut p = Prr::start(20);
        // 20 out, 3 SACKed, 1 lost: 16 in flight, window 17 (the retransmission).
        assert_eq!(p.window(1, 16, 10, false, true), Some(17));
        p.sent();
        // Each later duplicate: one more delivered, flight down by one.
        let mut sends = 0;
        let mut flight = 17;
        for _ in 0..10 {
            flight -= 1;
            let w = p.window(1, flight, 10, false, false).unwrap();
            while flight < w {
                p.sent();
                flight += 1;
                sends += 1;
            }
        }
        // 11 delivered in all: ceil(10 * 11 / 20) = 6 sent, the
        // retransmission and 5 new segments.
        assert_eq!(sends, 5);
    }

    #[test]
    fn below_ssthresh_the_flight_grows_back_by_what_is_delivered() {
        let mut p = Prr::start(20);
        p.window(1, 16, 10, false, true);
        p.sent();
        // Flight far below ssthresh (a burst of losses): a cumulative ACK
        // of 2 without a new loss lets 3 out (delivered, +1), within room.
        let before = p;
        assert_eq!(p.window(2, 4, 10, true, false), Some(4 + 3));
        // The same ACK marking a new loss: only the 2 delivered.
        let mut q = before;
        assert_eq!(q.window(2, 4, 10, true, true), Some(4 + 2));
        // Room caps it: flight 9 of ssthresh 10.
        let mut r = before;
        assert_eq!(r.window(2, 9, 10, true, false), Some(10));
    }

    #[test]
    fn nothing_delivered_leaves_the_window() {
        let mut p = Prr::start(10);
        assert_eq!(p.window(0, 8, 5, false, false), None);
        assert_eq!(p, Prr::start(10));
    }
}
