//! The TCP receiver: cumulative ACKs, an out-of-order buffer, SACK blocks
//! (RFC 2018), timestamp echo (RFC 7323) and three ACK policies:
//!
//! * immediate: one ACK per segment (ns-2's TCPSink);
//! * delayed (RFC 5681 4.2 / RFC 1122): an ACK for every second full-sized
//!   segment or when the timer expires;
//! * thinning (Altman & Jimenez 2003): an ACK for every d-th segment, d
//!   growing 1 -> 2 -> 3 -> 4 as the in-order sequence passes three
//!   thresholds, with the timer so the last segments are acknowledged.
//!
//! Under every policy an out-of-order segment, a segment that fills (part
//! of) a hole and a duplicate are acknowledged at once.

use super::config::{AckPolicy, CompSack, ReceiveWindow, TcpConfig};
use super::jiffies::{goes_off, Jiffies};
use super::linux_rwnd::{quick_ack_budget, tun_truesize, LinuxRcvParams, LinuxRcvWindow};
use crate::engine::time::US;
use crate::engine::Time;
use crate::packet::{flags, SackBlock, SackEdges, TcpHeader};

/// The compression timer's delay before its slack (__tcp_ack_snd_check()):
/// 5 % of the receiver's RTT estimate `rcv_rtt_us8`, or of the handshake's
/// `srtt_us8` where that is smaller and not 0, at most `cap`; both are
/// microseconds x 8, as the kernel keeps them (so none without a receiver
/// estimate, whatever the handshake measured).
pub fn comp_sack_delay(cap: Time, rcv_rtt_us8: u64, srtt_us8: u64) -> Time {
    let rtt = if srtt_us8 != 0 && srtt_us8 < rcv_rtt_us8 { srtt_us8 } else { rcv_rtt_us8 };
    cap.min(rtt * 125 / 20)
}

#[derive(Clone, Debug, Default)]
pub struct ReceiverStats {
    pub segments_received: u64,
    pub duplicate_segments: u64,
    pub out_of_order: u64,
    pub acks_sent: u64,
}

/// What the ACK about to be sent carries.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckFields {
    pub ack: u64,
    pub sack: [SackBlock; 4],
    pub nsack: u8,
    /// Echo of the peer's timestamp (TS.Recent), when timestamps are on.
    pub ts_ecr: Option<u32>,
    /// ECN-Echo: a CE mark arrived and no CWR since.
    pub ece: bool,
}

pub struct TcpReceiver {
    /// Local port (where data arrives) and the sender's port.
    pub sport: u16,
    pub dport: u16,
    pub rcv_nxt: u64,
    /// Out-of-order data held: disjoint, sorted [start, end) ranges above rcv_nxt.
    ooo: Vec<(u64, u64)>,
    /// Starts of out-of-order ranges, most recently changed first: the
    /// order of the SACK blocks, kept only when SACK is on.
    recent: Vec<u64>,
    policy: AckPolicy,
    delack_timeout: Time,
    sack: bool,
    max_sack_blocks: usize,
    /// ns-2's SACK option accounting (`Ns2Rules::ns2_sack_option`).
    ns2_sack_option: bool,
    /// ns-2's ACKs carry the timestamp option without its bytes
    /// (`TcpConfig::ns2_timestamps`).
    ns2_timestamps: bool,
    /// ns-2's choice of SACK blocks (`TcpConfig::ns2_sack_blocks`).
    ns2_sack_blocks: bool,
    /// With `ns2_sack_blocks`: the out-of-order blocks reported, as they
    /// were then, newest first (ns-2's SackStack), at most
    /// `max_sack_blocks`.
    sack_history: Vec<(u64, u64)>,
    /// Where the last segment received started.
    last_seq: u64,
    /// ns-2's DelAckSink (`Ns2Rules::ns2_delack_sink`).
    ns2_delack_sink: bool,
    /// The connection opened with a SYN (then byte 0 is ns-2's packet 1).
    syn_seen: bool,
    /// The SYN's ACK is held with the ACK timer (`TcpConfig::syn_immediate_ack`
    /// false under a delaying policy); it goes out as a SYN-ACK.
    syn_ack_held: bool,
    syn_immediate_ack: bool,
    /// `TcpConfig::rfc2581_immediate_ack`.
    rfc2581_immediate_ack: bool,
    timestamps: bool,
    ts_recent: Option<u32>,
    /// ACK number of the last ACK sent (RFC 7323 TS.Recent rule).
    last_ack_sent: u64,
    mss: u64,
    /// The window advertised from now on (a split connection's relay
    /// sets it from its buffer: `sim/split.rs`).
    pub window: u32,
    /// The right edge of the window last advertised (ACK + window).
    last_edge: u64,
    /// Full segments received since the last ACK.
    unacked: u32,
    delack_deadline: Option<Time>,
    /// When in-order delivery last advanced.
    pub last_delivery: Time,
    /// Set ECE on ACKs until the sender signals CWR (RFC 3168 6.1.3).
    ece: bool,
    /// `TcpConfig::push_ack`.
    push_ack: bool,
    /// The segment being received carries PSH (`note_push`).
    pushed: bool,
    /// `TcpConfig::quick_acks`: the most quick ACKs a connection starts with.
    quick_max: u32,
    /// Quick ACKs left (Linux's icsk_ack.quick).
    quick: u32,
    /// Data has arrived (the quick ACKs are counted out at the first).
    data_seen: bool,
    /// D-SACK (`TcpConfig::dsack`, with SACK): the duplicate range the
    /// next ACK reports in its first block (Linux's rx_opt.dsack and
    /// duplicate_sack[0]).
    dsack: bool,
    dsack_block: Option<(u64, u64)>,
    /// Linux's receive window (`TcpConfig::receive_window`), in place of
    /// the fixed `window`.
    linux_window: Option<Box<LinuxRcvWindow>>,
    /// Data arrived since the last ACK (the kernel's
    /// inet_csk_ack_scheduled()).
    scheduled: bool,
    /// The timestamp the arriving segment echoes (`note_echo`).
    echo: Option<u32>,
    /// Linux's SACK compression (`TcpConfig::comp_sack`; `comp_sack`).
    comp: CompSack,
    /// ACKs held back since the last ACK sent (tp->compressed_ack): the
    /// compression timer runs while this is above 0.
    compressed: u32,
    /// ACKs sent at once for out-of-order data at the cumulative ACK
    /// `comp_rcv_nxt` (tp->dup_ack_counter, compressed_ack_rcv_nxt).
    comp_dupacks: u32,
    comp_rcv_nxt: u64,
    /// When the SYN-ACK left, until the first data takes the handshake's
    /// RTT sample from it (the passive side's srtt_us, x 8).
    synack_at: Option<Time>,
    srtt_us8: u64,
    /// The kernel's tick clock the delayed-ACK timer follows.
    jiffies: Option<Jiffies>,
    pub stats: ReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        TcpReceiver {
            sport: 0,
            dport: 0,
            rcv_nxt: 0,
            ooo: Vec::new(),
            recent: Vec::new(),
            policy: cfg.ack_policy.clone(),
            delack_timeout: cfg.delack_timeout,
            sack: cfg.sack,
            dsack: cfg.sack && cfg.dsack,
            dsack_block: None,
            // 40 bytes of options: 4 blocks (2 + 32 bytes), 3 next to timestamps.
            // ns-2's TCPSink: maxSackBlocks_ 3.
            max_sack_blocks: if cfg.timestamps || cfg.rules.ns2_sack_option { 3 } else { 4 },
            ns2_sack_option: cfg.rules.ns2_sack_option,
            ns2_timestamps: cfg.timestamps && cfg.ns2_timestamps,
            ns2_sack_blocks: cfg.ns2_sack_blocks,
            sack_history: Vec::new(),
            last_seq: 0,
            ns2_delack_sink: cfg.rules.ns2_delack_sink,
            syn_seen: false,
            syn_ack_held: false,
            syn_immediate_ack: cfg.syn_immediate_ack,
            rfc2581_immediate_ack: cfg.rfc2581_immediate_ack,
            timestamps: cfg.timestamps,
            ts_recent: None,
            last_ack_sent: 0,
            mss: cfg.mss as u64,
            window: cfg.rwnd.min(u32::MAX as u64) as u32,
            last_edge: 0,
            unacked: 0,
            delack_deadline: None,
            last_delivery: 0,
            ece: false,
            push_ack: cfg.push_ack,
            pushed: false,
            quick_max: cfg.quick_acks,
            quick: 0,
            data_seen: false,
            linux_window: Self::linux_window(cfg),
            scheduled: false,
            echo: None,
            comp: cfg.comp_sack,
            compressed: 0,
            comp_dupacks: 0,
            comp_rcv_nxt: 0,
            synack_at: None,
            srtt_us8: 0,
            jiffies: cfg.jiffies(),
            stats: ReceiverStats::default(),
        }
    }

    /// Linux's window model, if the configuration asks for it: the
    /// application's clamp is the configured window.
    fn linux_window(cfg: &TcpConfig) -> Option<Box<LinuxRcvWindow>> {
        let ReceiveWindow::Linux { rcvbuf, rcvbuf_max, truesize } = cfg.receive_window else { return None };
        // The packet the segment arrives in: IP and TCP headers, and the
        // timestamp option's 12 bytes.
        let wire = cfg.mss + 40 + if cfg.timestamps { 12 } else { 0 };
        let truesize = truesize.unwrap_or_else(|| tun_truesize(wire));
        let p = LinuxRcvParams { rcvbuf, rcvbuf_max, truesize };
        Some(Box::new(LinuxRcvWindow::new(p, cfg.mss, cfg.rwnd)))
    }

    /// The window the handshake offered, with Linux's window (the sender
    /// starts from it); None: the configured one.
    pub fn initial_window(&self) -> Option<u64> {
        self.linux_window.as_ref().map(|w| w.initial_window())
    }

    /// A split node's relay sets the window from its buffer: Linux's
    /// model gives way to it.
    pub fn use_fixed_window(&mut self) {
        self.linux_window = None;
    }

    /// The timestamp an arriving data segment echoes, before `on_segment`
    /// (Linux's window measures the receiver's round trip with it).
    #[inline(always)]
    pub fn note_echo(&mut self, ecr: u32) {
        self.echo = Some(ecr);
    }

    /// The window-scale shift of the windows this receiver advertises:
    /// Linux's model's own (rcv_wscale), else the smallest that shows the
    /// configured window (as captures show it).
    pub fn window_scale(&self) -> u8 {
        match &self.linux_window {
            Some(w) => w.wscale() as u8,
            None => crate::output::pcap::scale_for(self.window as u64),
        }
    }

    /// Whether the window is Linux's (the application's reads matter).
    #[inline(always)]
    pub fn has_linux_window(&self) -> bool {
        self.linux_window.is_some()
    }

    /// Out-of-order segments held, counted as whole segments of the MSS.
    fn ooo_segments(&self) -> u64 {
        self.ooo.iter().map(|&(s, e)| (e - s).div_ceil(self.mss.max(1))).sum()
    }

    /// Whether [seq, end) is held out of order already, whole (the held
    /// ranges are merged, so it then lies inside one of them).
    fn ooo_holds(&self, seq: u64, end: u64) -> bool {
        self.ooo.iter().any(|&(s, e)| s <= seq && end <= e)
    }

    /// The connection's SYN arrived: true if its ACK (a SYN-ACK) is due
    /// now. It is, unless a delaying policy holds it (`syn_immediate_ack`
    /// false): then, as ns-2's DelAckSink::recv does with packet 0 under
    /// `SYN_immediate_ack_ false`, the ACK timer starts and its expiry
    /// sends the SYN-ACK (`ack_header`); a SYN arriving while the timer
    /// runs (a repeat) is acknowledged at once.
    pub fn note_syn(&mut self, now: Time) -> bool {
        self.syn_seen = true;
        match self.timeout() {
            Some(timeout) if !self.syn_immediate_ack && self.delack_deadline.is_none() => {
                self.syn_ack_held = true;
                self.delack_deadline = Some(goes_off(self.jiffies, now, timeout));
                false
            }
            _ => true,
        }
    }

    /// Bytes delivered in order to the application.
    pub fn delivered(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// Segments to collect before an ACK, under the current policy, when the
    /// segment starting at `seq` has just arrived. Thinning counts segments
    /// from 0: with thresholds [2, 5, 9], segments 0-1 have d = 1, 2-4 d = 2,
    /// 5-8 d = 3, later ones d = 4.
    fn ack_every(&self, seq: u64) -> u32 {
        match &self.policy {
            AckPolicy::Immediate => 1,
            AckPolicy::Delayed => 2,
            AckPolicy::Thinning { thresholds } => {
                let seg = seq / self.mss.max(1);
                1 + thresholds.iter().filter(|&&t| seg >= t).count() as u32
            }
        }
    }

    fn timeout(&self) -> Option<Time> {
        match self.policy {
            AckPolicy::Immediate => None,
            _ => Some(self.delack_timeout),
        }
    }

    /// ECN bits of an arriving data segment, before `on_segment`: CE starts
    /// echoing, CWR stops it.
    pub fn note_ecn(&mut self, ce: bool, cwr: bool) {
        if cwr {
            self.ece = false;
        }
        if ce {
            self.ece = true;
        }
    }

    /// Whether the arriving data segment, before `on_segment`, carries PSH
    /// (the end of what the sender's application had written).
    #[inline(always)]
    pub fn note_push(&mut self, psh: bool) {
        self.pushed = psh;
    }

    /// A data segment arrives (with the peer's TSval if timestamps are on).
    /// Returns true if an ACK must be sent now; otherwise the ACK timer may
    /// have been armed.
    #[inline(always)]
    pub fn on_segment(&mut self, now: Time, seq: u64, len: u32, ts_val: Option<u32>) -> bool {
        if len == 0 {
            // A window probe (`persist.rs`; SYNs come by `note_syn`):
            // answered at once with the window, nothing received.
            return true;
        }
        self.stats.segments_received += 1;
        self.last_seq = seq;
        self.scheduled = true;
        let linux = self.linux_window.is_some();
        let end = seq + len as u64;
        // RFC 7323 4.3: remember the TSval of the segment that covers the
        // left edge of the window we last acknowledged.
        if self.timestamps {
            if let Some(v) = ts_val {
                // (The first segment's TSval is taken in any case.)
                if (seq <= self.last_ack_sent && self.last_ack_sent <= end) || self.ts_recent.is_none() {
                    self.ts_recent = Some(v);
                }
            }
        }
        if end <= self.rcv_nxt {
            self.stats.duplicate_segments += 1;
            // RFC 2883 4.1.1 (Linux's tcp_dsack_set()): the whole segment
            // was received before.
            if self.dsack {
                self.dsack_block = Some((seq, end));
            }
            // Linux answers a retransmission it had already with quick
            // ACKs for what follows (tcp_data_queue():
            // tcp_enter_quickack_mode(), TCP_MAX_QUICKACKS).
            if self.quick_max > 0 {
                self.quick = self.quick.max(self.quick_budget());
            }
            // ns-2's DelAckSink holds a repeat of its last in-order
            // segment like a new one (nothing above it: otherwise
            // RFC2581_immediate_ack_ answers at once).
            let repeat = end == self.rcv_nxt && self.ooo.is_empty();
            if self.ns2_delack_sink && repeat && matches!(self.policy, AckPolicy::Delayed) {
                return self.hold_or_ack(now, seq, len, self.delack_timeout);
            }
            return true;
        }
        if linux {
            self.linux_timestamp_sample(now, len);
            if self.synack_at.is_some() {
                self.handshake_rtt(now);
            }
        }
        if seq > self.rcv_nxt {
            self.stats.out_of_order += 1;
            if self.dsack {
                self.note_ooo_duplicate(seq, end);
            }
            if linux {
                let (held, new_data) = (self.ooo_segments(), !self.ooo_holds(seq, end));
                self.insert_ooo(seq, end);
                self.linux_out_of_order(len, held, new_data);
            } else {
                self.insert_ooo(seq, end);
            }
            if self.comp.nr > 0 {
                return self.comp_sack_ack_now(now);
            }
            return true;
        }
        // In order (possibly overlapping old data: its old part is a
        // duplicate, RFC 2883 4.1.2).
        if self.dsack && seq < self.rcv_nxt {
            self.dsack_block = Some((seq, self.rcv_nxt));
        }
        let had_hole = !self.ooo.is_empty();
        self.rcv_nxt = end;
        if linux {
            self.linux_in_order(now, len);
        }
        while let Some(&(s, e)) = self.ooo.first() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.ooo.remove(0);
            if self.sack {
                self.recent.retain(|&x| x != s);
            }
        }
        self.last_delivery = now;
        let Some(timeout) = self.timeout() else { return true };
        // A segment that filled (part of) a hole: at once, unless
        // `rfc2581_immediate_ack` is off and a hole is left above it (ns-2's
        // DelAckSink then holds it; one that fills the whole hole moves its
        // cumulative ACK past the segment and is answered at once).
        if had_hole && (self.rfc2581_immediate_ack || self.ooo.is_empty()) {
            return true;
        }
        // ns-2's SYN_immediate_ack_ tests packet number 0: without a SYN
        // that is the first data segment, held too when it is false.
        if self.ns2_delack_sink && seq == 0 && !self.syn_seen && self.syn_immediate_ack {
            return true;
        }
        // Linux (`push_ack`): a segment shorter than the MSS, or a full
        // one with PSH (the end of a write), sets ICSK_ACK_PUSHED
        // (tcp_measure_rcv_mss()), and the application's read that empties
        // the queue then acknowledges at once (tcp_cleanup_rbuf()); the
        // application here reads everything as it arrives.
        if self.push_ack && (self.pushed || (len as u64) < self.mss) {
            return true;
        }
        if self.quick_max > 0 && matches!(self.policy, AckPolicy::Delayed) && self.quick_ack() {
            return true;
        }
        self.hold_or_ack(now, seq, len, timeout)
    }

    /// Linux's quick-ACK mode at the start of a connection: the first data
    /// segment grants min(`quick_acks`, window / (2 MSS), at least 2) ACKs
    /// sent at once (tcp_event_data_recv() -> tcp_incr_quickack()), each
    /// ACK sent uses one (tcp_dec_quickack_mode(), in `make_ack`). Kept
    /// out of line: it runs only under `quick_acks`.
    #[inline(never)]
    fn quick_ack(&mut self) -> bool {
        self.start_quick_acks();
        self.quick > 0
    }

    /// The first data segment grants the quick ACKs.
    fn start_quick_acks(&mut self) {
        if !self.data_seen {
            self.data_seen = true;
            self.quick = self.quick_budget();
        }
    }

    /// `tcp_incr_quickack()`: `quick_acks`, or half the advertised window
    /// in segments if fewer (2 if that is none); with Linux's window, the
    /// window last offered in the receiver's estimate of the segment size.
    fn quick_budget(&self) -> u32 {
        match &self.linux_window {
            Some(w) => w.quick_budget(self.quick_max),
            None => quick_ack_budget(self.window as u64, self.mss, self.quick_max),
        }
    }

    /// The passive side's RTT sample from its handshake
    /// (tcp_synack_rtt_meas()): the time from its SYN-ACK to the first
    /// data, which arrives with the handshake's last ACK.
    #[inline(never)]
    fn handshake_rtt(&mut self, now: Time) {
        if let Some(t) = self.synack_at.take() {
            self.srtt_us8 = ((now - t) / US).max(1) << 3;
        }
    }

    /// __tcp_ack_snd_check() for an out-of-order segment under Linux's
    /// SACK compression: at once if the segment's ACK is due anyway (more
    /// than a segment of in-order data unacknowledged with the window not
    /// shrinking, or a quick ACK), without SACK, or once `comp.nr` ACKs
    /// are held; else the first three ACKs at a given cumulative ACK go
    /// at once (the sender's duplicate-ACK threshold), and later ones wait
    /// for the compression timer, started by the first one held:
    /// min(`comp.delay`, 5 % of the receiver's RTT) plus `comp.slack`
    /// (an hrtimer with that range fires at its end on an idle CPU). The
    /// RTT is the receiver's estimate (`LinuxRcvWindow`), lowered to the
    /// handshake's sample where that is smaller; none yet, none of delay.
    #[inline(never)]
    fn comp_sack_ack_now(&mut self, now: Time) -> bool {
        if !self.sack || !matches!(self.policy, AckPolicy::Delayed) || self.linux_ack_now() || self.quick > 0 {
            return true;
        }
        if self.compressed >= self.comp.nr {
            return true;
        }
        if self.comp_rcv_nxt != self.rcv_nxt {
            self.comp_rcv_nxt = self.rcv_nxt;
            self.comp_dupacks = 0;
        }
        if self.comp_dupacks < 3 {
            self.comp_dupacks += 1;
            return true;
        }
        self.compressed += 1;
        if self.compressed == 1 {
            let rcv_rtt = self.linux_window.as_ref().map_or(0, |w| w.rtt_us8());
            let due = now + comp_sack_delay(self.comp.delay, rcv_rtt, self.srtt_us8) + self.comp.slack;
            self.delack_deadline = Some(self.delack_deadline.map_or(due, |d| d.min(due)));
        }
        false
    }

    /// Whether the out-of-order segment [seq, end) about to be received
    /// first sends the ACK compression holds back (tcp_sack_new_ofo_skb()):
    /// when it extends none of the two most recent SACK blocks, so that
    /// the block it pushes down is reported before it may fall out of the
    /// option (TCP_SACK_BLOCKS_EXPECTED = 2; the kernel keeps four). That
    /// ACK goes before the segment is taken: its blocks and window are the
    /// ones before it (`held_ack`).
    #[inline(always)]
    pub fn flushes_compressed(&self, seq: u64, end: u64) -> bool {
        self.compressed > 0 && seq > self.rcv_nxt && self.flush_for(seq, end)
    }

    /// The held ACK `flushes_compressed` asks for, made now (before the
    /// segment is taken), with its length on the wire.
    #[cold]
    #[inline(never)]
    pub fn held_ack(&mut self, now: Time) -> (TcpHeader, u32) {
        let h = self.ack_header(now);
        let len = self.ack_wire_len(&h);
        (h, len)
    }

    #[inline(never)]
    fn flush_for(&self, seq: u64, end: u64) -> bool {
        let mut n = 0;
        for (i, (s, e)) in self.recent_blocks(4).enumerate() {
            if s <= end && seq <= e {
                return i >= 2;
            }
            n = i + 1;
        }
        n >= 2
    }

    /// Linux's receiver-side RTT sample from the echoed timestamp, for
    /// any data segment within the window (tcp_rcv_rtt_measure_ts()).
    #[inline(never)]
    fn linux_timestamp_sample(&mut self, now: Time, len: u32) {
        if let (true, Some(ecr), Some(w)) = (self.timestamps, self.echo, self.linux_window.as_deref_mut()) {
            w.timestamp_sample(now, ecr, len as u64);
        }
    }

    /// An in-order segment under Linux's window (tcp_event_data_recv()):
    /// the MSS estimate and RTT measurement, the quick ACKs granted at the
    /// first data, then the window's growth, which sends this segment's
    /// ACK at once (`icsk_ack.quick |= 1`).
    #[inline(never)]
    fn linux_in_order(&mut self, now: Time, len: u32) {
        let ooo = self.ooo_segments();
        let (rcv_nxt, pushed) = (self.rcv_nxt, self.pushed);
        let Some(w) = self.linux_window.as_deref_mut() else { return };
        w.on_in_order(now, len as u64, pushed, rcv_nxt);
        if self.quick_max > 0 && matches!(self.policy, AckPolicy::Delayed) {
            self.start_quick_acks();
        }
        let Some(w) = self.linux_window.as_deref_mut() else { return };
        if w.grow_in_order(len as u64, rcv_nxt, ooo) {
            self.quick |= 1;
        }
    }

    /// An out-of-order segment under Linux's window, `ooo` segments
    /// held out of order before it (tcp_data_queue_ofo()); `new_data`:
    /// it brought bytes not held yet.
    #[inline(never)]
    fn linux_out_of_order(&mut self, len: u32, ooo: u64, new_data: bool) {
        let ooo_end = self.ooo.last().map_or(self.rcv_nxt, |r| r.1);
        let (rcv_nxt, pushed, sack) = (self.rcv_nxt, self.pushed, self.sack);
        let Some(w) = self.linux_window.as_deref_mut() else { return };
        if w.on_out_of_order(len as u64, pushed, sack, new_data, ooo, ooo_end, rcv_nxt) {
            self.quick |= 1;
        }
    }

    /// One read of the application, which reads data in order as it
    /// arrives, at most `linux_rwnd::READ_CHUNK` bytes, under Linux's
    /// window: None when nothing is left to read (or the window is
    /// fixed), else whether the read sends a window update
    /// (tcp_cleanup_rbuf()), to be sent before `clamp_after_read`. Called
    /// after the segment's own ACK, until None.
    #[inline(never)]
    pub fn read_chunk(&mut self, now: Time) -> Option<bool> {
        let held = self.ooo_segments();
        let above = self.ooo.last().map(|r| r.1 - self.rcv_nxt);
        let (rcv_nxt, scheduled) = (self.rcv_nxt, self.scheduled);
        let w = self.linux_window.as_deref_mut()?;
        w.read_chunk(now, rcv_nxt, held, above, scheduled, &mut self.quick)
    }

    /// The application sets its window clamp again after each read.
    pub fn clamp_after_read(&mut self) {
        if let Some(w) = self.linux_window.as_deref_mut() {
            w.clamp_after_read();
        }
    }

    /// An in-order segment under a delaying policy: acknowledge it now if
    /// it completes the policy's count, or else hold it with the timer.
    #[inline(always)]
    fn hold_or_ack(&mut self, now: Time, seq: u64, len: u32, timeout: Time) -> bool {
        if len as u64 >= self.mss {
            self.unacked += 1;
        }
        if self.linux_window.is_some() && matches!(self.policy, AckPolicy::Delayed) {
            if self.linux_ack_now() {
                return true;
            }
        } else if self.unacked >= self.ack_every(seq) {
            return true;
        }
        if self.delack_deadline.is_none() {
            self.delack_deadline = Some(goes_off(self.jiffies, now, timeout));
        }
        false
    }

    /// Linux's test for an ACK of in-order data (__tcp_ack_snd_check()):
    /// more than one segment unacknowledged and the window not smaller
    /// than the one offered last.
    #[inline(never)]
    fn linux_ack_now(&mut self) -> bool {
        let ooo = self.ooo_segments();
        let rcv_nxt = self.rcv_nxt;
        let Some(w) = self.linux_window.as_deref_mut() else { return false };
        w.ack_now(rcv_nxt, ooo, &mut self.quick)
    }

    /// D-SACK for a segment above rcv_nxt: the part of it already held
    /// out of order, in the first range it overlaps (Linux's
    /// tcp_data_queue_ofo(): all of it if that range covers it).
    #[inline(never)]
    fn note_ooo_duplicate(&mut self, seq: u64, end: u64) {
        let i = self.ooo.partition_point(|r| r.1 <= seq);
        if let Some(&(s, e)) = self.ooo.get(i).filter(|r| r.0 < end) {
            self.dsack_block = Some((seq.max(s), end.min(e)));
        }
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
        // `recent` orders the SACK blocks: kept only when SACK is on.
        if self.sack {
            for r in &self.ooo[i..j] {
                let start = r.0;
                self.recent.retain(|&x| x != start);
            }
        }
        // The merged range replaces those it covers, in place (through
        // `Vec::splice` its machinery alone was a third of a per cent of
        // the 1000-flow run).
        match j - i {
            0 => self.ooo.insert(i, (ns, ne)),
            1 => self.ooo[i] = (ns, ne),
            _ => {
                self.ooo[i] = (ns, ne);
                self.ooo.drain(i + 1..j);
            }
        }
        if self.sack {
            self.recent.insert(0, ns);
        }
    }

    /// The out-of-order ranges held, most recently changed first (the
    /// SACK blocks' order), among the first `n` of that order.
    #[inline(always)]
    fn recent_blocks(&self, n: usize) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.recent.iter().take(n).filter_map(|&start| self.ooo.iter().find(|r| r.0 == start).copied())
    }

    /// Out-of-order ranges currently held.
    pub fn ooo_ranges(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// The ACK timer fires: true if an ACK is due.
    pub fn on_delack_timer(&mut self, now: Time) -> bool {
        matches!(self.delack_deadline, Some(d) if d <= now)
    }

    /// The maximum segment size the window is counted in.
    pub fn mss(&self) -> u64 {
        self.mss
    }

    /// The right edge of the window the last ACK advertised.
    pub fn last_edge(&self) -> u64 {
        self.last_edge
    }

    /// The connection's ports: `sport` here, `dport` at the data sender.
    pub fn with_ports(mut self, sport: u16, dport: u16) -> Self {
        self.sport = sport;
        self.dport = dport;
        self
    }

    /// The SYN's answer, sent now: a SYN-ACK offering the handshake's
    /// window.
    pub fn syn_ack_header(&mut self, now: Time) -> TcpHeader {
        self.syn_ack_held = true;
        self.ack_header(now)
    }

    /// The complete header of the ACK sent now (cumulative ACK, SACK
    /// blocks, ECN echo, timestamps, window); resets the ACK policy.
    #[inline(always)]
    pub fn ack_header(&mut self, now: Time) -> TcpHeader {
        let syn = std::mem::take(&mut self.syn_ack_held);
        let window = match &self.linux_window {
            None => self.window,
            // The SYN-ACK offers the handshake's window, unscaled; the
            // handshake's RTT is timed from it.
            Some(w) if syn => {
                self.synack_at = Some(now);
                w.initial_window() as u32
            }
            Some(_) => self.linux_advertise(),
        };
        let a = self.make_ack();
        self.last_edge = a.ack + window as u64;
        TcpHeader {
            sport: self.sport,
            dport: self.dport,
            ack: a.ack,
            flags: flags::ACK | if a.ece { flags::ECE } else { 0 } | if syn { flags::SYN } else { 0 },
            window,
            // `TcpHeader::set_sack`'s work, in the literal: calling it on
            // the built header copies the header on the stack (+1.6 %
            // instructions at 10 flows; docs/architecture.md).
            nsack: a.nsack,
            // Without SACK blocks (every ACK of a flow without SACK) the
            // edges are zero: no call (about 0.3 % of a 10-flow run).
            sack: if a.nsack == 0 { SackEdges::default() } else { SackEdges::of(&a.sack[..a.nsack as usize], a.ack) },
            ts: a.ts_ecr.map(|ecr| (super::TcpSender::ts_clock(now), ecr)),
            ..Default::default()
        }
    }

    /// The window this ACK advertises under Linux's model
    /// (tcp_select_window()).
    #[inline(never)]
    fn linux_advertise(&mut self) -> u32 {
        let ooo = self.ooo_segments();
        let rcv_nxt = self.rcv_nxt;
        let Some(w) = self.linux_window.as_deref_mut() else { return self.window };
        w.advertise(rcv_nxt, ooo, &mut self.quick).min(u32::MAX as u64) as u32
    }

    /// Bytes of the TCP header of ACK `h` on the wire: as laid out on real
    /// stacks, or as ns-2's TCPSink counts it (40-byte TCP/IP header, 8 bytes
    /// per SACK block, no option kind, length or padding).
    pub fn ack_wire_len(&self, h: &TcpHeader) -> u32 {
        // Without a timestamp (the common case) first, as before the
        // `ns2_timestamps` rule.
        let ns2_ts = h.ts.is_some() && self.ns2_timestamps;
        if self.ns2_sack_option && (h.ts.is_none() || ns2_ts) {
            crate::packet::TCP_HEADER + 8 * h.nsack as u32
        } else if ns2_ts {
            h.wire_len() - 12
        } else {
            h.wire_len()
        }
    }

    /// Build the ACK being sent now and reset the ACK policy's counters.
    #[inline(always)]
    pub fn make_ack(&mut self) -> AckFields {
        // tcp_dec_quickack_mode(): an ACK of data received uses one.
        if std::mem::take(&mut self.scheduled) {
            self.quick = self.quick.saturating_sub(1);
        }
        self.unacked = 0;
        // tcp_event_ack_sent(): any ACK ends the compression and its timer.
        self.delack_deadline = None;
        self.compressed = 0;
        self.stats.acks_sent += 1;
        self.last_ack_sent = self.rcv_nxt;
        let mut f = AckFields { ack: self.rcv_nxt, ts_ecr: self.ts_recent, ece: self.ece, ..Default::default() };
        if self.sack && self.ns2_sack_blocks {
            self.ns2_sack_blocks(&mut f);
        } else if self.sack {
            // RFC 2018 4: the first block holds the most recently received
            // segment; then the other most recently changed blocks.
            for (s, e) in self.recent_blocks(self.max_sack_blocks) {
                f.sack[f.nsack as usize] = SackBlock { start: s, end: e };
                f.nsack += 1;
            }
        }
        if let Some((s, e)) = self.dsack_block.take() {
            self.put_dsack(&mut f, s, e);
        }
        f
    }

    /// RFC 2883 4: the duplicate range goes first, the SACK blocks after it
    /// as room allows (Linux sends it with the next ACK only). A duplicate
    /// above the cumulative ACK lies inside the block of the segment just
    /// received, which then comes second, as the RFC asks.
    #[inline(never)]
    fn put_dsack(&self, f: &mut AckFields, s: u64, e: u64) {
        let n = (f.nsack as usize).min(self.max_sack_blocks - 1);
        f.sack.copy_within(0..n, 1);
        f.sack[0] = SackBlock { start: s, end: e };
        f.nsack = n as u8 + 1;
    }

    /// ns-2.35's TCPSink/Sack1 (Sacker::append_ack) blocks for the ACK of
    /// the segment that started at `last_seq`: with no hole left, none
    /// (and the history empties); else the held range around that segment
    /// if it lies above the cumulative ACK, then the history's blocks,
    /// newest first, as they were when reported (a block merged or
    /// extended since stays as it was), skipping and forgetting those the
    /// latest block covers (after an in-order segment: those below the
    /// cumulative ACK); the latest block then joins the history, whose
    /// oldest entry goes beyond `max_sack_blocks`.
    fn ns2_sack_blocks(&mut self, f: &mut AckFields) {
        if self.ooo.is_empty() {
            self.sack_history.clear();
            return;
        }
        let seq = self.last_seq;
        let latest =
            if seq >= self.rcv_nxt { self.ooo.iter().find(|r| r.0 <= seq && seq < r.1).copied() } else { None };
        let (cl, cr) = latest.unwrap_or((0, self.rcv_nxt));
        let push = |f: &mut AckFields, (s, e): (u64, u64)| {
            f.sack[f.nsack as usize] = SackBlock { start: s, end: e };
            f.nsack += 1;
        };
        if let Some(b) = latest {
            push(f, b);
        }
        let mut k = 0;
        while (f.nsack as usize) < self.max_sack_blocks && k < self.sack_history.len() {
            let (l, r) = self.sack_history[k];
            if cl <= l && r <= cr {
                self.sack_history.remove(k);
                continue;
            }
            push(f, (l, r));
            k += 1;
        }
        if let Some(b) = latest {
            self.sack_history.insert(0, b);
            self.sack_history.truncate(self.max_sack_blocks);
        }
    }
}
