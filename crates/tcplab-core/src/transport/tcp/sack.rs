//! The SACK scoreboard and RFC 6675 loss recovery arithmetic: which bytes the
//! receiver holds (from SACK blocks), IsLost(), the pipe estimate and
//! NextSeg(). The sender owns the recovery state machine; this module only
//! answers questions about the scoreboard.
//!
//! Sequence ranges are [start, end). The sender's segments are laid out in
//! MSS steps from the cumulative ACK point, which is how the scoreboard walks
//! them.

use crate::packet::SackBlock;

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    /// SACKed ranges above the cumulative ACK: sorted, disjoint, merged.
    sacked: Vec<(u64, u64)>,
    /// End of the highest range retransmitted in the current recovery
    /// (RFC 6675 HighRxt, as an exclusive end).
    pub high_rxt: u64,
    /// RFC 6675 RecoveryPoint; Some while in loss recovery.
    pub recovery_point: Option<u64>,
}

/// What NextSeg() chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Retransmit { seq: u64, len: u64 },
    NewData,
    Nothing,
}

impl Scoreboard {
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.high_rxt = 0;
        self.recovery_point = None;
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery_point.is_some()
    }

    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.sacked
    }

    /// Record an ACK: drop what the cumulative ACK covers, merge the blocks.
    /// Returns true if the ACK SACKed bytes not SACKed before.
    pub fn update(&mut self, cum_ack: u64, blocks: &[SackBlock]) -> bool {
        self.sacked.retain_mut(|r| {
            r.0 = r.0.max(cum_ack);
            r.1 > r.0
        });
        let after_trim = self.sacked_bytes();
        for b in blocks {
            let (s, e) = (b.start.max(cum_ack), b.end);
            if e <= s {
                continue;
            }
            let i = self.sacked.partition_point(|r| r.1 < s);
            let mut ns = s;
            let mut ne = e;
            let mut j = i;
            while j < self.sacked.len() && self.sacked[j].0 <= ne {
                ns = ns.min(self.sacked[j].0);
                ne = ne.max(self.sacked[j].1);
                j += 1;
            }
            self.sacked.splice(i..j, [(ns, ne)]);
        }
        self.sacked_bytes() > after_trim
    }

    /// Bytes SACKed above the cumulative ACK (RFC 6937's SACKd).
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.iter().map(|r| r.1 - r.0).sum()
    }

    /// Segments of [from, snd_max) neither SACKed nor acknowledged that
    /// IsLost() holds lost (for PRR's "this ACK found a new loss").
    pub fn lost_segments(&self, from: u64, snd_max: u64, mss: u64, dupthresh: u32) -> u64 {
        let mut n = 0;
        let mut s = from;
        while s < snd_max && s < self.highest_sacked() {
            let e = (s + mss).min(snd_max);
            if !self.is_sacked(s, e) && self.is_lost(s, mss, dupthresh) {
                n += 1;
            }
            s = e;
        }
        n
    }

    /// Is [s, e) entirely SACKed?
    pub fn is_sacked(&self, s: u64, e: u64) -> bool {
        self.sacked.iter().any(|r| r.0 <= s && e <= r.1)
    }

    /// Highest SACKed byte + 1 (0 if nothing is SACKed).
    pub fn highest_sacked(&self) -> u64 {
        self.sacked.last().map_or(0, |r| r.1)
    }

    /// RFC 6675 IsLost(seq): at least `dupthresh` SACKed segments, or more
    /// than (dupthresh - 1) * MSS SACKed bytes, above `seq`.
    pub fn is_lost(&self, seq: u64, mss: u64, dupthresh: u32) -> bool {
        let mut bytes = 0;
        let mut segs = 0;
        for &(s, e) in self.sacked.iter().rev() {
            if e <= seq {
                break;
            }
            let len = e - s.max(seq + 1);
            bytes += len;
            segs += len.div_ceil(mss);
        }
        segs >= dupthresh as u64 || bytes > (dupthresh as u64 - 1) * mss
    }

    /// RFC 6675 SetPipe(): bytes believed to be in the network.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, mss: u64, dupthresh: u32) -> u64 {
        let mut pipe = 0;
        let mut s = snd_una;
        while s < snd_max {
            let e = (s + mss).min(snd_max);
            if !self.is_sacked(s, e) {
                if !self.is_lost(s, mss, dupthresh) {
                    pipe += e - s;
                }
                if s < self.high_rxt {
                    pipe += e - s;
                }
            }
            s = e;
        }
        pipe
    }

    /// RFC 6675 NextSeg(), rules 1-3 (no rescue retransmission). `new_data`
    /// says whether rule 2 (unsent data within the receiver's window) holds.
    pub fn next_seg(&self, snd_una: u64, snd_max: u64, mss: u64, dupthresh: u32, new_data: bool) -> Next {
        let highest = self.highest_sacked();
        let mut rule3 = None;
        let mut s = snd_una.max(self.high_rxt);
        // Walk in MSS steps from the cumulative ACK so segment edges line up.
        if s > snd_una {
            s = snd_una + (s - snd_una).div_ceil(mss) * mss;
        }
        while s < snd_max.min(highest) {
            let e = (s + mss).min(snd_max);
            if !self.is_sacked(s, e) {
                // Do not resend bytes SACKed at the end of the segment.
                let end = self.sacked.iter().find(|r| r.0 > s && r.0 < e).map_or(e, |r| r.0);
                if self.is_lost(s, mss, dupthresh) {
                    return Next::Retransmit { seq: s, len: end - s };
                }
                if rule3.is_none() {
                    rule3 = Some(Next::Retransmit { seq: s, len: end - s });
                }
            }
            s = e;
        }
        if new_data {
            return Next::NewData;
        }
        rule3.unwrap_or(Next::Nothing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blk(s: u64, e: u64) -> SackBlock {
        SackBlock { start: s, end: e }
    }

    #[test]
    fn merge_and_trim() {
        let mut sb = Scoreboard::default();
        assert!(sb.update(0, &[blk(2000, 3000)]));
        assert!(sb.update(0, &[blk(4000, 5000), blk(2000, 3000)]));
        assert!(!sb.update(0, &[blk(2000, 3000)]), "nothing new");
        assert!(sb.update(0, &[blk(3000, 4000)]));
        assert_eq!(sb.ranges(), &[(2000, 5000)]);
        sb.update(3000, &[]);
        assert_eq!(sb.ranges(), &[(3000, 5000)]);
    }

    #[test]
    fn is_lost_needs_three_segments_above() {
        let mut sb = Scoreboard::default();
        sb.update(0, &[blk(1000, 3000)]);
        assert!(!sb.is_lost(0, 1000, 3), "two segments SACKed above");
        sb.update(0, &[blk(4000, 5000)]);
        assert!(sb.is_lost(0, 1000, 3));
        assert!(!sb.is_lost(3000, 1000, 3));
    }

    /// Segments 0 and 3 lost out of 0..10, the rest SACKed: pipe counts
    /// nothing lost or SACKed; NextSeg picks 0, then (after it) 3.
    #[test]
    fn pipe_and_next_seg() {
        let mut sb = Scoreboard::default();
        sb.update(0, &[blk(1000, 3000), blk(4000, 10_000)]);
        assert_eq!(sb.pipe(0, 10_000, 1000, 3), 0);
        assert_eq!(sb.next_seg(0, 10_000, 1000, 3, true), Next::Retransmit { seq: 0, len: 1000 });
        sb.high_rxt = 1000;
        assert_eq!(sb.pipe(0, 10_000, 1000, 3), 1000, "the retransmission is in flight");
        assert_eq!(sb.next_seg(0, 10_000, 1000, 3, true), Next::Retransmit { seq: 3000, len: 1000 });
        sb.high_rxt = 4000;
        assert_eq!(sb.next_seg(0, 10_000, 1000, 3, true), Next::NewData);
        assert_eq!(sb.next_seg(0, 10_000, 1000, 3, false), Next::Nothing);
    }

    #[test]
    fn rule3_resends_unsacked_below_highest_sack() {
        let mut sb = Scoreboard::default();
        // Only one segment SACKed above 0: not lost by the rules.
        sb.update(0, &[blk(1000, 2000)]);
        assert_eq!(sb.next_seg(0, 3000, 1000, 3, true), Next::NewData);
        assert_eq!(sb.next_seg(0, 3000, 1000, 3, false), Next::Retransmit { seq: 0, len: 1000 });
    }
}
