//! Linux's receive window (kernel 6.18), for a receiver whose application
//! reads every byte as soon as it arrives and holds the window at most at
//! the flow's `window` with TCP_WINDOW_CLAMP, set again after every read
//! (what the emulator's receiving application does: crates/tcplab-emu,
//! `workload.rs`).
//!
//! The kernel does not advertise its receive buffer. It advertises
//! `rcv_ssthresh`, which starts near 64 kB and grows by two segments for
//! each in-order segment received (tcp_grow_window(), each growth also
//! acknowledging that segment at once), under two ceilings that the
//! receive buffer's autotuning raises once a receiver round trip
//! (tcp_rcv_space_adjust(), tcp_rcvbuf_grow()): the window clamp and the
//! free space of the buffer, both counted in the memory the received
//! packets take (their `truesize`), converted to bytes of payload by a
//! ratio measured from the first full-sized segment (`scaling_ratio`). The
//! offered right edge never moves back (tcp_select_window()), so while a
//! hole is open without SACK the window's right edge stands still; and a
//! read that lets the window at least double sends a window update
//! (tcp_cleanup_rbuf()). docs/models.md, "Linux's receive window", gives
//! the rules with their kernel functions and what was measured.
//!
//! Memory is counted in whole segments, each charged `truesize` (the
//! kernel's skbs of one received packet each; coalescing of segments in the
//! queues is not modelled): exact while segments are full-sized.

use crate::engine::time::{Time, US};

/// tcp_rmem[1], the receive buffer a connection starts with.
pub const DEFAULT_RCVBUF: u32 = 131_072;
/// tcp_rmem[2] since Linux 6.16: the most autotuning gives a buffer.
pub const DEFAULT_RCVBUF_MAX: u32 = 33_554_432;
/// net.core.rmem_max's default (read only for the window scale).
const RMEM_MAX: u64 = 4_194_304;
/// TCP_DEFAULT_SCALING_RATIO: half the memory counted as payload until a
/// segment is measured (1 << (TCP_RMEM_TO_WIN_SCALE - 1), since 6.10).
const DEFAULT_RATIO: u64 = 128;
/// TCP_MSS_DEFAULT and TCP_MIN_MSS.
const MSS_DEFAULT: u64 = 536;
const MIN_MSS: u64 = 88;
/// SOCK_MIN_RCVBUF / 2: the smallest window clamp.
const MIN_CLAMP: u64 = 1152;
/// The most the emulator's receiving application reads at once (its
/// buffer, `workload.rs`): a larger backlog takes several reads, each
/// with its own window update and clamp.
pub const READ_CHUNK: u64 = 65_536;

/// The memory the kernel charges for one received packet of `wire_len`
/// bytes (IP header included) arriving through a TUN device as the
/// emulator's are: one linear buffer holding the packet and the shared
/// info (320 bytes), from the power-of-two kmalloc cache that fits it,
/// plus the 256-byte `sk_buff` (SKB_TRUESIZE). 2304 bytes for packets of
/// 1052 to 1728 bytes; measured from the scaling ratio a real receiver
/// took (docs/models.md). Packets longer than a page minus the overhead
/// (3776 bytes) go partly into page fragments in the kernel: the rule is
/// then an estimate, and `tcp.rcv_truesize` gives the measured value.
pub fn tun_truesize(wire_len: u32) -> u32 {
    let head = (wire_len as u64).div_ceil(64) * 64 + 320;
    (head.next_power_of_two().max(512) + 256) as u32
}

/// What the model needs from the flow's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinuxRcvParams {
    /// sk_rcvbuf at the start (tcp_rmem[1]).
    pub rcvbuf: u32,
    /// The most autotuning grows it to (tcp_rmem[2]).
    pub rcvbuf_max: u32,
    /// Memory charged per received segment.
    pub truesize: u32,
}

/// One receiver's window state (struct tcp_sock's receive side).
#[derive(Clone, Debug)]
pub struct LinuxRcvWindow {
    truesize: u64,
    rcvbuf_max: u64,
    /// The application's TCP_WINDOW_CLAMP (the flow's window).
    user_clamp: u64,
    advmss: u64,
    wscale: u32,
    rcvbuf: u64,
    /// scaling_ratio, in 1/256.
    ratio: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    /// The window last advertised and rcv_nxt then (its left edge).
    rcv_wnd: u64,
    rcv_wup: u64,
    /// The receiver's estimate of the peer's MSS (icsk_ack.rcv_mss).
    rcv_mss: u64,
    last_seg_size: u64,
    /// Bytes the application has read (copied_seq): the in-order data
    /// above it is queued, between its arrival and the read.
    copied: u64,
    /// Autotuning: bytes read in the last measured round trip
    /// (rcvq_space.space), where that round trip started and when.
    space: u64,
    space_seq: u64,
    space_time: Time,
    /// The receiver's RTT estimate, in microseconds x 8 (rcv_rtt_est).
    rtt_us8: u64,
    /// The echo the last timestamp sample came from (rcv_rtt_last_tsecr).
    last_tsecr: u32,
    /// Without timestamps: the sequence that ends a window received, and
    /// when the measurement started (the dynamic right-sizing estimate).
    drs_seq: u64,
    drs_time: Option<Time>,
}

impl LinuxRcvWindow {
    /// The connection as the handshake leaves it (tcp_openreq_init_rwin(),
    /// tcp_select_initial_window(), tcp_init_buffer_space()), and the
    /// application's first TCP_WINDOW_CLAMP after accept().
    pub fn new(p: LinuxRcvParams, advmss: u32, user_clamp: u64) -> Self {
        let advmss = advmss.max(1) as u64;
        let rcvbuf = p.rcvbuf as u64;
        let mut w = LinuxRcvWindow {
            truesize: p.truesize.max(1) as u64,
            rcvbuf_max: (p.rcvbuf_max as u64).max(rcvbuf),
            user_clamp: user_clamp.max(MIN_CLAMP),
            advmss,
            wscale: 0,
            rcvbuf,
            ratio: DEFAULT_RATIO,
            window_clamp: 0,
            rcv_ssthresh: 0,
            rcv_wnd: 0,
            rcv_wup: 0,
            rcv_mss: 0,
            last_seg_size: 0,
            copied: 0,
            space: 0,
            space_seq: 0,
            space_time: 0,
            rtt_us8: 0,
            // rcv_rtt_last_tsecr starts at 0: segments echoing 0 (sent
            // before any timestamp came back) give no sample.
            last_tsecr: 0,
            drs_seq: 0,
            drs_time: None,
        };
        // tcp_select_initial_window(): the space rounded down to whole
        // segments, the scale for the largest window the clamp allows.
        let clamp = w.user_clamp;
        let mut space = w.wfs(rcvbuf).min(clamp);
        if space > advmss {
            space = space / advmss * advmss;
        }
        w.rcv_wnd = space;
        let largest = space.max(w.rcvbuf_max).max(RMEM_MAX).min(clamp);
        w.wscale = (largest.max(1).ilog2() as i64 - 15).clamp(0, 14) as u32;
        w.window_clamp = (65535u64 << w.wscale).min(clamp);
        w.rcv_ssthresh = w.rcv_wnd;
        // tcp_init_buffer_space(): the clamp at most the buffer's space
        // less one segment (tcp_app_win 31 reserves nothing more).
        let maxwin = w.wfs(rcvbuf);
        w.window_clamp = w.window_clamp.min(maxwin);
        if w.window_clamp > 2 * advmss && w.window_clamp + advmss > maxwin {
            w.window_clamp = (2 * advmss).max(maxwin.saturating_sub(advmss));
        }
        w.rcv_ssthresh = w.rcv_ssthresh.min(w.window_clamp);
        w.space = w.rcv_ssthresh.min(w.rcv_wnd).min(10 * advmss);
        // tcp_initialize_rcv_mss().
        w.rcv_mss = advmss.min(w.rcv_wnd / 2).clamp(MIN_MSS, MSS_DEFAULT);
        w.set_clamp(w.user_clamp);
        w
    }

    /// The window the SYN-ACK offers (its field is not scaled).
    pub fn initial_window(&self) -> u64 {
        self.rcv_wnd.min(65_535)
    }

    /// The window scale the receiver chose (for the record).
    pub fn wscale(&self) -> u32 {
        self.wscale
    }

    /// tcp_win_from_space().
    fn wfs(&self, space: u64) -> u64 {
        (space * self.ratio) >> 8
    }

    /// Free space in bytes of payload with `held` segments in the
    /// queues (tcp_space(); negative when the buffer is overcommitted).
    fn free(&self, held: u64) -> i64 {
        let left = self.rcvbuf as i64 - (held * self.truesize) as i64;
        (left * self.ratio as i64) >> 8
    }

    /// tcp_set_window_clamp(): a smaller clamp takes rcv_ssthresh down
    /// with it, a larger one lifts rcv_ssthresh up to the window offered.
    fn set_clamp(&mut self, val: u64) {
        let new = val.max(MIN_CLAMP);
        if new == self.window_clamp {
            return;
        }
        let old = self.window_clamp;
        self.window_clamp = new;
        if new < old {
            self.rcv_ssthresh = self.rcv_ssthresh.min(new);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(new));
        }
    }

    /// tcp_measure_rcv_mss(), for a data segment of `len` bytes of
    /// payload (in order, or out of order as since 6.17): the first
    /// segment longer than the estimate measures the scaling ratio, and a
    /// changed ratio resets the clamp to the buffer's space.
    fn measure_mss(&mut self, len: u64, pushed: bool) {
        let lss = std::mem::take(&mut self.last_seg_size);
        if len >= self.rcv_mss {
            if len != self.rcv_mss {
                // scaling_ratio is a u8: a truesize at most the payload
                // (which no kernel skb has) counts as 255/256.
                let ratio = ((len << 8) / self.truesize).clamp(1, 255);
                if ratio != self.ratio {
                    self.ratio = ratio;
                    self.set_clamp(self.wfs(self.rcvbuf));
                    self.space = self.space.min(self.window_clamp);
                }
            }
            self.rcv_mss = len.min(self.advmss);
        } else if len >= MSS_DEFAULT || (len >= MIN_MSS && !pushed) {
            // A short segment: two in a row of one size make it the
            // estimate (the TCP header's length cancels out here).
            self.last_seg_size = len;
            if len == lss {
                self.rcv_mss = len;
            }
        }
    }

    /// tcp_rcv_rtt_update(), Linux 6.16 on: a smaller sample is taken at
    /// once; a window-based one only then; a timestamp one is averaged
    /// in (1/8) while nothing waits to be read (always, here).
    fn rtt_update(&mut self, sample_us: u64, window_based: bool) {
        let m = sample_us << 3;
        if self.rtt_us8 == 0 || m < self.rtt_us8 {
            self.rtt_us8 = m;
        } else if !window_based {
            self.rtt_us8 = self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us;
        }
    }

    /// The receiver's RTT estimate, microseconds x 8 (0: none yet).
    pub fn rtt_us8(&self) -> u64 {
        self.rtt_us8
    }

    /// tcp_rcv_rtt_measure_ts(): a data segment echoing a timestamp the
    /// receiver has not used yet, at least `rcv_mss` long, measures the
    /// time from the receiver's ACK to the data it released (ms clock; a
    /// zero-ms sample is dropped, since 6.16).
    pub fn timestamp_sample(&mut self, now: Time, tsecr: u32, len: u64) {
        if self.last_tsecr == tsecr {
            return;
        }
        self.last_tsecr = tsecr;
        if len >= self.rcv_mss {
            let delta = super::TcpSender::ts_clock(now).wrapping_sub(tsecr);
            if delta > 0 && delta < i32::MAX as u32 / 1000 {
                self.rtt_update(delta as u64 * 1000, false);
            }
        }
    }

    /// An in-order segment of `len` bytes was queued; `rcv_nxt` is the
    /// end of it (before any out-of-order data joins it).
    /// tcp_event_data_recv(): the MSS estimate and the window-based RTT
    /// measurement; `grow_in_order` follows, after the quick ACKs.
    pub fn on_in_order(&mut self, now: Time, len: u64, pushed: bool, rcv_nxt: u64) {
        self.measure_mss(len, pushed);
        // tcp_rcv_rtt_measure().
        let measured = match self.drs_time {
            Some(_) if rcv_nxt < self.drs_seq => false,
            Some(t) => {
                self.rtt_update(((now - t) / US).max(1), true);
                true
            }
            None => true,
        };
        if measured {
            self.drs_seq = rcv_nxt + self.rcv_wnd;
            self.drs_time = Some(now);
        }
    }

    /// tcp_event_data_recv()'s tcp_grow_window() for the in-order segment
    /// of `len` bytes just queued, ending at `rcv_nxt`, `ooo` segments held
    /// out of order. True if the window grew (`icsk_ack.quick |= 1`: this
    /// segment's ACK goes at once).
    pub fn grow_in_order(&mut self, len: u64, rcv_nxt: u64, ooo: u64) -> bool {
        len >= 128 && self.grow(len, self.queued(rcv_nxt) + ooo)
    }

    /// In-order segments queued, not yet read (whole segments of the
    /// advertised MSS; a segment partly read still holds its memory).
    fn queued(&self, rcv_nxt: u64) -> u64 {
        rcv_nxt.saturating_sub(self.copied).div_ceil(self.advmss)
    }

    /// An out-of-order segment of `len` bytes arrives with `ooo`
    /// segments held out of order before it (tcp_data_queue_ofo()): the
    /// MSS estimate (6.17), with SACK the window's growth if it brought
    /// data not held yet (`new_data`; a full duplicate is dropped), then
    /// the buffer grown for the data above the hole (6.16), `ooo_end`
    /// being the end of the highest out-of-order data. True if the window
    /// grew.
    #[allow(clippy::too_many_arguments)]
    pub fn on_out_of_order(
        &mut self,
        len: u64,
        pushed: bool,
        sack: bool,
        new_data: bool,
        ooo: u64,
        ooo_end: u64,
        rcv_nxt: u64,
    ) -> bool {
        self.measure_mss(len, pushed);
        let grew = sack && new_data && self.grow(len, self.queued(rcv_nxt) + ooo);
        self.rcvbuf_grow(self.space, Some(ooo_end.saturating_sub(rcv_nxt)));
        grew
    }

    /// tcp_grow_window(): rcv_ssthresh up by two segments (at least
    /// twice this one) while below the clamp and the free space, if a
    /// segment like this one would still fit the buffer once the window
    /// is full of them.
    fn grow(&mut self, len: u64, held: u64) -> bool {
        let room = (self.window_clamp as i64).min(self.free(held)) - self.rcv_ssthresh as i64;
        if room <= 0 {
            return false;
        }
        let incr = if self.wfs(self.truesize) <= len {
            2 * self.advmss
        } else {
            // __tcp_grow_window(): halving both until the segment fits.
            let mut t = self.wfs(self.truesize) >> 1;
            let mut w = self.wfs(self.rcvbuf_max) >> 1;
            let mut found = 0;
            while self.rcv_ssthresh <= w {
                if t <= len {
                    found = 2 * self.rcv_mss;
                    break;
                }
                t >>= 1;
                w >>= 1;
            }
            found
        };
        if incr == 0 {
            return false;
        }
        self.rcv_ssthresh += (room as u64).min(incr.max(2 * len));
        true
    }

    /// __tcp_select_window(): the window the free space allows, at most
    /// rcv_ssthresh, rounded to the scale. `quick` is cleared when the
    /// buffer is more than half full, as the kernel does.
    fn select(&self, held: u64, quick: &mut u32) -> u64 {
        let allowed = self.wfs(self.rcvbuf) as i64;
        let full = (self.window_clamp as i64).min(allowed);
        let mut mss = self.rcv_mss as i64;
        if mss > full {
            mss = full;
            if mss <= 0 {
                return 0;
            }
        }
        let mut free = self.free(held);
        if free < full >> 1 {
            *quick = 0;
            free = free.max(0) >> self.wscale << self.wscale;
            if free < allowed >> 4 || free < mss {
                return 0;
            }
        }
        let free = free.min(self.rcv_ssthresh as i64).max(0) as u64;
        if self.wscale > 0 {
            return align_up(free, self.wscale);
        }
        let mss = mss as u64;
        let window = self.rcv_wnd;
        if window + mss <= free || window > free {
            free / mss * mss
        } else if mss as i64 == full && free > window + (full as u64 >> 1) {
            free
        } else {
            window
        }
    }

    /// The window still offered at `rcv_nxt` (tcp_receive_window()).
    fn offered(&self, rcv_nxt: u64) -> u64 {
        (self.rcv_wup + self.rcv_wnd).saturating_sub(rcv_nxt)
    }

    /// __tcp_ack_snd_check()'s test for an ACK now without quick ACKs or
    /// a hole: more than one full segment unacknowledged and a window at
    /// least the one last offered (`ooo` segments held out of order).
    pub fn ack_now(&self, rcv_nxt: u64, ooo: u64, quick: &mut u32) -> bool {
        rcv_nxt - self.rcv_wup > self.rcv_mss && self.select(self.queued(rcv_nxt) + ooo, quick) >= self.rcv_wnd
    }

    /// tcp_select_window() for the ACK sent now: the window in bytes (a
    /// multiple of the scale), never moving the right edge back.
    pub fn advertise(&mut self, rcv_nxt: u64, ooo: u64, quick: &mut u32) -> u64 {
        let cur = self.offered(rcv_nxt);
        let mut new = self.select(self.queued(rcv_nxt) + ooo, quick);
        if new < cur {
            new = align_up(cur, self.wscale);
        }
        self.rcv_wnd = new;
        self.rcv_wup = rcv_nxt;
        new.min(65_535 << self.wscale)
    }

    /// tcp_rcvbuf_grow(): the buffer for twice what one round trip
    /// delivered, more while that grows (the sender may double), plus the
    /// data above a hole; the clamp follows the buffer.
    fn rcvbuf_grow(&mut self, newval: u64, above_hole: Option<u64>) {
        let old = self.space.max(1);
        self.space = newval;
        let mut rcvwin = 2 * newval;
        rcvwin += 2 * (rcvwin * newval.saturating_sub(old) / old);
        rcvwin += above_hole.unwrap_or(0);
        let rcvbuf = ((rcvwin << 8) / self.ratio).min(self.rcvbuf_max);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = self.wfs(rcvbuf);
        }
    }

    /// One read of the application (tcp_recvmsg()), of what is queued in
    /// order up to `rcv_nxt`, at most `READ_CHUNK` bytes: the memory of
    /// the segments it copies whole is freed; after each segment copied,
    /// autotuning measures what the last receiver round trip delivered,
    /// less what is still queued (tcp_rcv_space_adjust(), 6.16); then
    /// tcp_cleanup_rbuf() decides on an ACK. `ooo` is the out-of-order
    /// segments held, `above_hole` the bytes from rcv_nxt to the end of the
    /// highest of them, `scheduled` whether data came since the last ACK.
    /// None: nothing to read (an out-of-order segment or a duplicate wakes
    /// no reader); else whether an ACK (a window update) is due now, to be
    /// sent before `clamp_after_read`.
    pub fn read_chunk(
        &mut self,
        now: Time,
        rcv_nxt: u64,
        ooo: u64,
        above_hole: Option<u64>,
        scheduled: bool,
        quick: &mut u32,
    ) -> Option<bool> {
        if self.copied >= rcv_nxt {
            return None;
        }
        let end = (self.copied + READ_CHUNK).min(rcv_nxt);
        while self.copied < end {
            self.copied = ((self.copied / self.advmss + 1) * self.advmss).min(end);
            self.space_adjust(now, rcv_nxt, above_hole);
        }
        let mut ack = scheduled && rcv_nxt - self.rcv_wup > self.rcv_mss;
        if !ack {
            let now_offered = self.offered(rcv_nxt);
            if 2 * now_offered <= self.window_clamp {
                let new = self.select(self.queued(rcv_nxt) + ooo, quick);
                ack = new != 0 && new >= 2 * now_offered;
            }
        }
        Some(ack)
    }

    /// tcp_rcv_space_adjust() after a segment copied: once a receiver RTT
    /// has passed since the last measurement, the bytes read since then
    /// less those still queued; more than the last round's grows the
    /// buffer.
    fn space_adjust(&mut self, now: Time, rcv_nxt: u64, above_hole: Option<u64>) {
        if self.rtt_us8 == 0 || (now - self.space_time) / US < self.rtt_us8 >> 3 {
            return;
        }
        let copied = self.copied as i64 - self.space_seq as i64 - (rcv_nxt - self.copied) as i64;
        if copied > self.space as i64 {
            self.rcvbuf_grow(copied as u64, above_hole);
        }
        self.space_seq = self.copied;
        self.space_time = now;
    }

    /// The application sets its clamp again after the read returned
    /// (`workload.rs`): tcp_set_window_clamp() with the flow's window.
    pub fn clamp_after_read(&mut self) {
        self.set_clamp(self.user_clamp);
    }

    /// Quick ACKs granted at the first data (tcp_incr_quickack()): half
    /// the window offered in estimated segments, 2 if that is none.
    pub fn quick_budget(&self, max: u32) -> u32 {
        quick_ack_budget(self.rcv_wnd, self.rcv_mss, max)
    }
}

/// tcp_incr_quickack(): half the window in segments of `mss`, 2 if that is
/// none, at most `max`.
pub fn quick_ack_budget(window: u64, mss: u64, max: u32) -> u32 {
    let q = window / (2 * mss.max(1));
    (if q == 0 { 2 } else { q }).min(max as u64) as u32
}

/// ALIGN(x, 1 << scale): rounded up to the window scale's unit.
fn align_up(x: u64, scale: u32) -> u64 {
    let unit = 1u64 << scale;
    x.div_ceil(unit) * unit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    fn capture_receiver() -> LinuxRcvWindow {
        // The emulator's receiver of docs/models.md's capture: 1000-byte
        // segments with timestamps (advmss 1000), the application's clamp
        // 1 000 000, this host's TUN skbs.
        LinuxRcvWindow::new(
            LinuxRcvParams { rcvbuf: DEFAULT_RCVBUF, rcvbuf_max: DEFAULT_RCVBUF_MAX, truesize: tun_truesize(1052) },
            1000,
            1_000_000,
        )
    }

    /// A 1000-byte segment in order, ending at `nxt`: true if it grew
    /// the window.
    fn segment(w: &mut LinuxRcvWindow, now: Time, nxt: u64) -> bool {
        w.on_in_order(now, 1000, false, nxt);
        w.grow_in_order(1000, nxt, 0)
    }

    /// The application reads everything up to `nxt`: true if a read sent
    /// a window update.
    fn read(w: &mut LinuxRcvWindow, now: Time, nxt: u64) -> bool {
        let (mut q, mut update) = (0, false);
        while let Some(ack) = w.read_chunk(now, nxt, 0, None, false, &mut q) {
            if ack {
                w.advertise(nxt, 0, &mut q);
                update = true;
            }
            w.clamp_after_read();
        }
        update
    }

    /// `n` segments from `nxt` on, each acknowledged and read at once.
    fn stream(w: &mut LinuxRcvWindow, now: Time, mut nxt: u64, n: u32) -> u64 {
        let mut q = 0;
        for _ in 0..n {
            nxt += 1000;
            segment(w, now, nxt);
            w.advertise(nxt, 0, &mut q);
            read(w, now, nxt);
        }
        nxt
    }

    /// The capture's receiver after one segment (the ratio measured) and
    /// one autotuning step (a buffer for 21000 bytes a round trip), then
    /// `n` more segments: the receiver and the bytes received.
    fn autotuned(now: Time, n: u32) -> (LinuxRcvWindow, u64) {
        let mut w = capture_receiver();
        let nxt = stream(&mut w, now, 0, 1);
        w.rcvbuf_grow(21_000, None);
        let nxt = stream(&mut w, now, nxt, n);
        (w, nxt)
    }

    #[test]
    fn truesize_of_a_tun_packet_is_a_2k_buffer_and_the_skb() {
        assert_eq!(tun_truesize(1052), 2304);
        assert_eq!(tun_truesize(1500), 2304);
        assert_eq!(tun_truesize(1728), 2304);
        assert_eq!(tun_truesize(1729), 4352);
    }

    #[test]
    fn the_handshake_offers_64_kb_rounded_to_segments_with_scale_4() {
        let w = capture_receiver();
        assert_eq!(w.initial_window(), 65_000);
        assert_eq!(w.wscale(), 4);
        // The quick ACKs the first segment grants: 65000 / 2000 = 32, at most 16.
        assert_eq!(w.quick_budget(16), 16);
    }

    #[test]
    fn the_measured_ratio_holds_the_window_at_the_buffers_space_then_it_grows_two_segments_a_segment() {
        let mut w = capture_receiver();
        let mut q = 0;
        // Segment 1 measures the ratio (1000 x 256 / 2304 = 111); the
        // edge offered at the handshake is kept.
        assert!(!segment(&mut w, 20 * MS, 1000));
        assert_eq!(w.advertise(1000, 0, &mut q), 64_000);
        read(&mut w, 20 * MS, 1000);
        // Once the handshake's edge is passed: the buffer's space less
        // the queued segment, 55833, rounded up to the scale.
        let mut nxt = stream(&mut w, 21 * MS, 1000, 20);
        nxt += 1000;
        segment(&mut w, 21 * MS, nxt);
        assert_eq!(w.advertise(nxt, 0, &mut q), 55_840);
        read(&mut w, 21 * MS, nxt);
        // A larger buffer (as autotuning makes it) lets rcv_ssthresh
        // (64000 from the application's clamp) grow by 2000 a segment.
        w.rcvbuf_grow(21_000, None);
        nxt += 1000;
        assert!(segment(&mut w, 22 * MS, nxt));
        assert_eq!(w.advertise(nxt, 0, &mut q), 66_000);
        read(&mut w, 22 * MS, nxt);
        nxt += 1000;
        assert!(segment(&mut w, 22 * MS, nxt));
        assert_eq!(w.advertise(nxt, 0, &mut q), 68_000);
    }

    #[test]
    fn the_right_edge_stands_while_a_hole_is_open_without_sack() {
        let (mut w, nxt) = autotuned(30 * MS, 10);
        let mut q = 0;
        let edge = nxt + w.advertise(nxt, 0, &mut q);
        // Segments above a hole: no growth without SACK, the edge kept.
        for k in 1..=5u64 {
            assert!(!w.on_out_of_order(1000, false, false, true, k - 1, nxt + 1000 * (k + 1), nxt));
            assert_eq!(nxt + w.advertise(nxt, k, &mut q), edge);
        }
        // With SACK the same segment grows rcv_ssthresh.
        assert!(w.on_out_of_order(1000, false, true, true, 5, nxt + 7000, nxt));
        // A segment held already is dropped: no growth.
        assert!(!w.on_out_of_order(1000, false, true, false, 5, nxt + 7000, nxt));
    }

    #[test]
    fn a_read_that_lets_the_window_double_sends_an_update() {
        let (mut w, nxt) = autotuned(40 * MS, 30);
        let mut q = 0;
        let offered = w.advertise(nxt, 0, &mut q);
        assert_eq!(offered, 124_000);
        // 100 segments above a one-segment hole, then the hole filled:
        // they join the queue at once and the immediate ACK offers what
        // the buffer has left; the read frees them and the window it may
        // offer then is more than twice that: a window update.
        for k in 0..100u64 {
            w.on_out_of_order(1000, false, false, true, k, nxt + 1000 * (k + 2), nxt);
            w.advertise(nxt, k + 1, &mut q);
        }
        w.on_in_order(41 * MS, 1000, false, nxt + 1000);
        w.grow_in_order(1000, nxt + 1000, 100);
        let filled = nxt + 101_000;
        let small = w.advertise(filled, 0, &mut q);
        assert!(small < offered / 2, "{small}");
        // The first read (64 kB) frees enough for the update.
        assert_eq!(w.read_chunk(41 * MS, filled, 0, None, false, &mut q), Some(true));
        assert!(w.advertise(filled, 0, &mut q) >= 2 * small);
        assert_eq!(w.read_chunk(41 * MS, filled, 0, None, false, &mut q), Some(false));
        assert_eq!(w.read_chunk(41 * MS, filled, 0, None, false, &mut q), None);
    }

    #[test]
    fn a_small_clamp_is_the_window_but_for_one_growth_before_the_first_read() {
        // A window of 10 segments (docs/emulator.md, "The receive
        // window"): the first full-sized segment resets the clamp to the
        // buffer's space and grows the window by two segments before the
        // application's read sets the clamp back, so its ACK offers 12000;
        // the edge then stays until the window is back at 10000.
        let p = LinuxRcvParams { rcvbuf: DEFAULT_RCVBUF, rcvbuf_max: DEFAULT_RCVBUF_MAX, truesize: 2304 };
        let mut w = LinuxRcvWindow::new(p, 1000, 10_000);
        assert_eq!(w.initial_window(), 10_000);
        assert_eq!(w.wscale(), 0);
        let mut q = 0;
        let mut nxt = 0;
        let mut offered = vec![];
        for _ in 0..20 {
            nxt += 1000;
            segment(&mut w, MS, nxt);
            offered.push(w.advertise(nxt, 0, &mut q));
            read(&mut w, MS, nxt);
        }
        assert_eq!(offered[..4], [12_000, 11_000, 10_000, 10_000]);
        assert!(offered[4..].iter().all(|&o| o == 10_000), "{offered:?}");
    }
}
