//! The TCP receiver: cumulative ACKs, an out-of-order buffer, and immediate or
//! delayed ACKs (RFC 5681 4.2 / RFC 1122: ACK at least every second full
//! segment, within the delayed-ACK timeout, and at once for out-of-order
//! segments, segments that fill a hole, and duplicates).

use super::config::TcpConfig;
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    pub segments_received: u64,
    pub duplicate_segments: u64,
    pub out_of_order: u64,
    pub acks_sent: u64,
}

pub struct TcpReceiver {
    pub rcv_nxt: u64,
    /// Out-of-order data held: disjoint, sorted [start, end) ranges above rcv_nxt.
    ooo: Vec<(u64, u64)>,
    delayed: bool,
    delack_timeout: Time,
    mss: u64,
    pub window: u32,
    /// Full segments received since the last ACK.
    unacked: u32,
    delack_deadline: Option<Time>,
    /// When in-order delivery last advanced.
    pub last_delivery: Time,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            rcv_nxt: 0,
            ooo: Vec::new(),
            delayed: cfg.delayed_ack,
            delack_timeout: cfg.delack_timeout,
            mss: cfg.mss as u64,
            window: cfg.rwnd.min(u32::MAX as u64) as u32,
            unacked: 0,
            delack_deadline: None,
            last_delivery: 0,
            stats: ReceiverStats::default(),
        }
    }

    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// A data segment arrives. Returns true if an ACK must be sent now;
    /// otherwise the delayed-ACK timer may have been armed.
    pub fn on_segment(&mut self, now: Time, seq: u64, len: u32) -> bool {
        self.stats.segments_received += 1;
        let end = seq + len as u64;
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            return true;
        }
        if seq > self.rcv_nxt {
            self.stats.out_of_order += 1;
            self.insert_ooo(seq, end);
            return true;
        }
        // In order (possibly overlapping old data).
        let had_hole = !self.ooo.is_empty();
        self.rcv_nxt = end;
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
        }
        self.last_delivery = now;
        if had_hole || !self.delayed {
            return true;
        }
        if len as u64 >= self.mss {
            self.unacked += 1;
        }
        if self.unacked >= 2 {
            return true;
        }
        if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.delack_timeout);
        }
        false
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        let i = self.ooo.partition_point(|r| r.1 < s);
        let mut ns = s;
        let mut ne = e;
        let mut j = i;
        while j < self.ooo.len() && self.ooo[j].0 <= ne {
            ns = ns.min(self.ooo[j].0);
            ne = ne.max(self.ooo[j].1);
            j += 1;
        }
        self.ooo.splice(i..j, [(ns, ne)]);
    }

    /// Out-of-order ranges currently held (for SACK later, and tests).
    pub fn ooo_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// The delayed-ACK timer fires: true if an ACK is due.
    pub fn on_delack_timer(&mut self, now: Time) -> bool {
        matches!(self.delack_deadline, Some(d) if d <= now)
    }

    /// Record that an ACK is being sent; returns the cumulative ACK number.
    pub fn ack_sent(&mut self) -> u64 {
        self.unacked = 0;
        self.delack_deadline = None;
        self.stats.acks_sent += 1;
        self.rcv_nxt
    }
}
