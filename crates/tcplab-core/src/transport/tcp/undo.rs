//! What Linux's undo of a spurious window reduction keeps (`TcpConfig::undo`),
//! shared by the two recoveries that run it: RACK's with SACK (`rack.rs`)
//! and the Reno emulation without (`linux_reno.rs`). Each decides when an
//! episode begins and when its evidence suffices; this holds the episode's
//! marker, the window to give back and the timestamp the Eifel check
//! compares with, and gives the window back.

use super::sender::TcpSender;
use crate::packet::TcpHeader;

#[derive(Debug, Default)]
pub(super) struct Undo {
    /// snd_una when the reduction began (tp->undo_marker; None: nothing
    /// to undo).
    pub(super) marker: Option<u64>,
    /// The window and ssthresh from before the cut (prior_cwnd,
    /// prior_ssthresh; None: an ECN echo took part, the window stays).
    pub(super) prior_cwnd: u64,
    pub(super) prior_ssthresh: Option<u64>,
    /// The timestamp of the episode's first retransmission
    /// (tp->retrans_stamp).
    pub(super) retrans_stamp: Option<u32>,
}

impl Undo {
    /// `tcp_current_ssthresh()` for a window `cwnd` and ssthresh: ssthresh
    /// while a reduction is under way (`reducing`: Recovery or CWR), else
    /// at least three quarters of the window (whole segments).
    fn current_ssthresh(reducing: bool, mss: u64, cwnd: u64, ssthresh: u64) -> u64 {
        if reducing {
            return ssthresh;
        }
        let c = cwnd / mss;
        ssthresh.max(((c >> 1) + (c >> 2)) * mss)
    }

    /// The window to give back: from before a cut of `cwnd` and `ssthresh`
    /// (`reducing` as for `current_ssthresh`).
    pub(super) fn note_prior(&mut self, s: &TcpSender, reducing: bool, cwnd: u64, ssthresh: u64) {
        self.prior_ssthresh = Some(Self::current_ssthresh(reducing, s.w.mss, cwnd, ssthresh));
        self.prior_cwnd = cwnd;
    }

    /// `tcp_packet_delayed()`: the ACK echoes a timestamp older than the
    /// episode's first retransmission, so it answers an original.
    pub(super) fn packet_delayed(&self, s: &TcpSender, h: &TcpHeader) -> bool {
        let Some(stamp) = self.retrans_stamp else { return false };
        s.cfg.timestamps && h.ts.is_some_and(|(_, ecr)| ecr != 0 && (ecr.wrapping_sub(stamp) as i32) < 0)
    }

    /// An undo is on and a reduction is there to undo (undo_marker).
    pub(super) fn can(&self, s: &TcpSender) -> bool {
        s.cfg.undo && self.marker.is_some()
    }

    /// `tcp_retransmit_skb()`: the episode's first retransmission, sent
    /// at `now`, dates it.
    pub(super) fn note_retransmit(&mut self, now: crate::engine::Time) {
        self.retrans_stamp = self.retrans_stamp.or(Some(TcpSender::ts_clock(now)));
    }

    /// `tcp_retrans_stamp_cleanup()`: with nothing resent outstanding
    /// (`resent_out` false, `tcp_any_retrans_done()`), the episode's stamp
    /// is forgotten, so that the next retransmission dates a new one.
    pub(super) fn stamp_cleanup(&mut self, resent_out: bool) {
        if !resent_out {
            self.retrans_stamp = None;
        }
    }

    /// The window part of `tcp_undo_cwnd_reduction()`: the window and
    /// ssthresh from before the cut come back (reno's and cubic's
    /// undo_cwnd: the larger of the window now and the one before); the
    /// episode is over. The caller unmarks its lost segments.
    pub(super) fn restore(&mut self, s: &mut TcpSender) {
        if let Some(prior) = self.prior_ssthresh {
            s.w.cwnd = s.w.cwnd.max(self.prior_cwnd);
            if prior > s.w.ssthresh {
                s.w.ssthresh = prior;
                s.pending_cwr = false; // tcp_ecn_withdraw_cwr()
            }
        }
        self.marker = None;
        s.undo_counts.0 += 1;
    }
}

impl TcpSender {
    /// Window reductions undone and, among them, timeouts F-RTO found
    /// spurious (`undo_counts`).
    pub fn undos(&self) -> (u64, u64) {
        self.undo_counts
    }
}
