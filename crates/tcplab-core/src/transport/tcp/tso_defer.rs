//! Linux's TSO/GSO deferral (`tcp_tso_should_defer()` in kernel 6.18,
//! `TcpConfig::tso_defer`, the linux profile): a sender whose window has
//! room for less than one GSO burst may hold new data back for the ACK it
//! expects within a millisecond, and send a larger burst then.
//!
//! Linux sends new data from its write queue in skbs of up to 64 kB that
//! leave as GSO bursts of `tcp_tso_segs()` segments (about a millisecond
//! at the pacing rate, at least two). TCP sockets get software GSO
//! whatever the device offers (`sk_setup_caps()`), so the deferral acts on
//! every path: the emulator's captures of its TUN devices show it. With
//! less room than a burst, `tcp_write_xmit()` asks `tcp_tso_should_defer()`
//! whether to send the smaller burst now; it waits when all of these hold:
//!
//! * the connection is Open, in Disorder or CWR (not Recovery, not Loss);
//! * the last transmission left at most 1 ms ago (`tcp_wstamp_ns`: for a
//!   paced sender, the departure time its pacing set);
//! * the room, min(the receiver's window, (cwnd - in flight) x MSS), is
//!   less than a burst, less than a third (`tcp_tso_win_divisor`) of
//!   min(the receiver's window, cwnd), and, unless the skb is the last
//!   one written, less than the skb;
//! * the oldest outstanding segment's ACK, expected an SRTT after that
//!   segment left, is due within min(SRTT / 2, 1 ms) (since 6.18,
//!   commit 295ce1eb36ae: before it, the head had to have left more than
//!   SRTT / 2 ago);
//! * the skb does not carry FIN, unless the window is what cannot take it.
//!
//! A wait for the window counts as cwnd-limited (`tcp_cwnd_validate()`).
//! The held segment goes with the next ACK's burst: where the kernel's
//! flight sits a segment below cwnd between bursts of three, a sender
//! without the rule keeps the window full (docs/validation.md, "Instant by
//! instant").
//!
//! The simulation has no write queue, so the skb is modelled: what the
//! application has written is cut into skbs of the size goal
//! (`tcp_xmit_size_goal()`: 64 kB less the headers' room, at most half the
//! largest window the peer advertised, in whole segments) counted from the
//! first byte. The kernel cuts where the writes fell, so its boundaries
//! differ; they matter only when the skb's rest is one segment (which goes
//! without this test) or smaller than the room.

use super::bbr::{GSO_BYTES_MAX, MIN_TSO_RATE, PACING_SHIFT};
use crate::engine::time::MS;
use crate::engine::Time;

/// net.ipv4.tcp_tso_win_divisor.
const WIN_DIVISOR: u64 = 3;
/// net.ipv4.tcp_min_tso_segs.
const MIN_TSO_SEGS: u64 = 2;
/// net.ipv4.tcp_tso_rtt_log: below 2^this us of min RTT the burst grows.
const TSO_RTT_LOG: u32 = 9;

/// The sender's deferral state (`TcpSender::tso`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TsoState {
    /// When the last segment left (tcp_wstamp_ns without pacing).
    pub last_tx: Time,
    /// The largest window the peer has advertised (tp->max_window).
    pub max_window: u64,
    /// Segments of the burst decided at `burst_at` still to go: the
    /// kernel decides once per GSO burst, the sender sends one segment a
    /// poll.
    pub burst_left: u64,
    pub burst_at: Time,
    /// Segments of the GSO chunk decided at `burst_at` still to go after
    /// the one being sent: the burst, cut to whole segments of the
    /// receiver's window (`tcp_mss_split_point()`), which is what leaves
    /// as one skb.
    pub chunk_left: u64,
    /// The segment just let through ends a chunk of two or more segments:
    /// it carries PSH (`TcpSender::poll_segment` takes the flag). Kernel
    /// 6.18 sends every multi-segment GSO chunk with PSH on its last
    /// segment and a chunk of one segment without (the emulator's
    /// captures, docs/models.md "Linux's TSO deferral"); the receiver
    /// then acknowledges that segment at once (`push_ack`).
    pub push_end: bool,
    /// The application writes again after its first write (a transfer
    /// with later writes, messages, a split connection's relay): the end
    /// of what it has written is not the connection's end (FIN).
    pub writes_again: bool,
}

/// The write queue's next unsent skb, as modelled (module comment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Skb {
    pub len: u64,
    /// The last skb written (tcp_write_queue_tail()).
    pub tail: bool,
    /// It carries FIN: the application has closed and this is its end.
    pub fin: bool,
    /// Bytes written after it (u64::MAX: no end), which `tcp_grow_skb()`
    /// may move into it (`grown`).
    pub more: u64,
    /// The end of what is written closes the connection (FIN on the skb
    /// that reaches it).
    pub closes: bool,
}

impl Skb {
    /// `tcp_grow_skb()` (Linux 6.10, "tcp: try to send bigger TSO
    /// packets"): before the decision, an skb shorter than
    /// `want` bytes (the window's quota, at most a burst) takes the data
    /// of the skbs after it, up to `want`. Without it the rest of an skb
    /// left one segment long by earlier bursts would go alone; the
    /// kernel's captures show no such lone segments (docs/validation.md,
    /// "PSH at the end of each GSO chunk").
    fn grown(self, want: u64) -> Skb {
        if self.len >= want || self.more == 0 {
            return self;
        }
        let add = (want - self.len).min(self.more);
        let more = self.more - add;
        Skb { len: self.len + add, tail: more == 0, fin: more == 0 && self.closes, more, closes: self.closes }
    }
}

/// What the decision reads: bytes, whole segments where Linux counts
/// segments, ns.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inputs {
    pub now: Time,
    pub mss: u64,
    /// Recovery or Loss: no deferral.
    pub recovering: bool,
    /// tcp_wstamp_ns.
    pub wstamp: Time,
    pub cwnd: u64,
    pub in_flight: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The peer's window (snd_wnd).
    pub snd_wnd: u64,
    pub srtt: Option<Time>,
    pub min_rtt: Option<Time>,
    /// sk_pacing_rate in bytes a second.
    pub pacing_rate: u64,
    /// BBR's own minimum burst (bbr_min_tso_segs()) instead of the sysctl.
    pub bbr: bool,
    /// When the oldest outstanding segment last left.
    pub head_sent: Option<Time>,
    pub skb: Skb,
}

/// `tcp_tso_should_defer()`'s answer and, when it sends, the burst.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// Send a burst of this many segments.
    Send(u64),
    /// Wait for an ACK; true: the congestion window is what holds it.
    Defer { cwnd_limited: bool },
}

/// `tcp_tso_segs()`: the GSO burst, about 1 ms at the pacing rate (more
/// below 512 us of min RTT), at least two segments (BBR: one below
/// 1.2 Mbit/s).
pub(super) fn burst_segments(i: &Inputs) -> u64 {
    let mut bytes = i.pacing_rate >> PACING_SHIFT;
    if let Some(m) = i.min_rtt {
        let r = (m / 1_000) >> TSO_RTT_LOG;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_BYTES_MAX >> r);
        }
    }
    let bytes = bytes.min(GSO_BYTES_MAX);
    let min = match i.bbr {
        true if i.pacing_rate < MIN_TSO_RATE >> 3 => 1,
        _ => MIN_TSO_SEGS,
    };
    (bytes / i.mss).max(min)
}

/// `tcp_xmit_size_goal()`: the skb size, in whole segments.
pub(super) fn size_goal(mss: u64, max_window: u64) -> u64 {
    let bound = if max_window > 536 { GSO_BYTES_MAX.min(max_window / 2) } else { GSO_BYTES_MAX };
    (bound / mss).max(1) * mss
}

/// The next unsent skb at `snd_nxt` when the application's data ends at
/// `data_end` (u64::MAX: no end) and `fin` says whether that end closes
/// the connection.
pub(super) fn unsent_skb(snd_nxt: u64, data_end: u64, goal: u64, fin: bool) -> Skb {
    let boundary = (snd_nxt / goal + 1).saturating_mul(goal);
    let end = boundary.min(data_end);
    let tail = end == data_end;
    Skb { len: end.saturating_sub(snd_nxt), tail, fin: tail && fin, more: data_end - end, closes: fin }
}

/// `tcp_tso_should_defer()` with `tcp_write_xmit()`'s choice of burst.
pub(super) fn decide(i: &Inputs) -> Decision {
    let mss = i.mss;
    let cong_room = i.cwnd.saturating_sub(i.in_flight);
    let burst = burst_segments(i);
    // tcp_cwnd_test(): at most half the window per skb sent.
    let quota = cong_room.min((i.cwnd / 2).max(1));
    let skb = i.skb.grown(quota.min(burst) * mss);
    let skb_segs = skb.len.div_ceil(mss);
    let send = Decision::Send(quota.min(burst).min(skb_segs).max(1));
    // One segment's skb goes by Nagle's test instead (tso_segs == 1).
    if skb_segs <= 1 || i.recovering || cong_room == 0 {
        return send;
    }
    if i.now > i.wstamp + MS {
        return send;
    }
    let send_win = (i.snd_una + i.snd_wnd).saturating_sub(i.snd_nxt);
    let cong_win = cong_room * mss;
    let limit = send_win.min(cong_win);
    if limit >= burst * mss {
        return send;
    }
    if !skb.tail && limit >= skb.len {
        return send;
    }
    if limit >= i.snd_wnd.min(i.cwnd * mss) / WIN_DIVISOR {
        return send;
    }
    // Without a round-trip estimate no ACK is expected (the kernel always
    // has its handshake's; a simulated flow without one has none yet).
    let (Some(head), Some(srtt)) = (i.head_sent, i.srtt) else { return send };
    let how_far = (head + srtt) as i128 - i.now as i128;
    if how_far > (srtt / 2).min(MS) as i128 {
        return send;
    }
    if cong_win < send_win {
        if cong_win <= skb.len {
            return Decision::Defer { cwnd_limited: true };
        }
    } else if send_win <= skb.len {
        return Decision::Defer { cwnd_limited: false };
    }
    // The skb fits: the application is what limits; wait for more data
    // unless this is its end.
    if skb.fin {
        return send;
    }
    Decision::Defer { cwnd_limited: false }
}

#[cfg(test)]
mod tests {
    use super::super::rate::linux_pacing_rate;
    use super::*;

    const MSS: u64 = 1000;

    /// A CUBIC-like sender at 10 Mbit/s: cwnd 40, 39 in flight (room for
    /// one segment), SRTT 32 ms, the head sent 31.5 ms ago (its ACK due
    /// in 0.5 ms), the last send just now, a bulk skb.
    fn base() -> Inputs {
        let now = 100 * MS;
        let srtt = 32 * MS;
        Inputs {
            now,
            mss: MSS,
            recovering: false,
            wstamp: now,
            cwnd: 40,
            in_flight: 39,
            snd_una: 1_000_000,
            snd_nxt: 1_039_000,
            snd_wnd: 1_000_000,
            srtt: Some(srtt),
            min_rtt: Some(20 * MS),
            pacing_rate: linux_pacing_rate(MSS, 40, 39, 30, Some(srtt)),
            bbr: false,
            head_sent: Some(now - srtt + MS / 2),
            skb: Skb { len: 30 * MSS, more: u64::MAX, ..Default::default() },
        }
    }

    #[test]
    fn the_burst_is_a_millisecond_of_pacing_at_least_two() {
        let mut i = base();
        assert_eq!(burst_segments(&i), 2);
        i.pacing_rate = 12_500_000; // 100 Mbit/s: 12 207 B a ms
        assert_eq!(burst_segments(&i), 12);
        // A LAN's min RTT (100 us) adds the whole GSO size.
        i.min_rtt = Some(100_000);
        assert_eq!(burst_segments(&i), GSO_BYTES_MAX / MSS);
        // BBR below 1.2 Mbit/s goes one segment at a time.
        let mut b = base();
        b.bbr = true;
        b.pacing_rate = 100_000;
        assert_eq!(burst_segments(&b), 1);
    }

    #[test]
    fn one_segment_of_room_waits_for_the_ack_due_within_a_millisecond() {
        assert_eq!(decide(&base()), Decision::Defer { cwnd_limited: true });
    }

    #[test]
    fn each_condition_alone_sends() {
        type Change = fn(&mut Inputs);
        let cases: [(&str, Change); 9] = [
            ("recovery", |i| i.recovering = true),
            ("last send 1.1 ms ago", |i| i.wstamp = i.now - MS - MS / 10),
            ("room for a burst", |i| i.in_flight = 38),
            ("ACK due in 1.5 ms", |i| i.head_sent = Some(i.now - 32 * MS + 3 * MS / 2)),
            ("a window of three", |i| {
                i.cwnd = 3;
                i.in_flight = 2;
            }),
            ("no srtt", |i| i.srtt = None),
            ("nothing outstanding", |i| i.head_sent = None),
            ("a one-segment skb", |i| i.skb.len = MSS),
            ("a FIN skb that fits", |i| {
                i.skb = Skb { len: 1500, tail: true, fin: true, ..Default::default() };
                i.cwnd = 40;
                i.in_flight = 38;
                i.pacing_rate = 100_000_000; // a burst of 65
            }),
        ];
        for (what, change) in cases {
            let mut i = base();
            change(&mut i);
            assert!(matches!(decide(&i), Decision::Send(_)), "{what}: {:?}", decide(&i));
        }
    }

    #[test]
    fn the_expected_ack_is_measured_from_the_heads_last_send() {
        let mut i = base();
        // Due exactly 1 ms from now: still waits (how_far > threshold sends).
        i.head_sent = Some(i.now - 31 * MS);
        assert_eq!(decide(&i), Decision::Defer { cwnd_limited: true });
        i.head_sent = Some(i.now - 31 * MS + 1);
        assert_eq!(decide(&i), Decision::Send(1));
        // With a 1.2 ms SRTT the threshold is 0.6 ms.
        let mut i = base();
        i.srtt = Some(1_200_000);
        i.head_sent = Some(i.now - 600_000);
        assert_eq!(decide(&i), Decision::Defer { cwnd_limited: true });
        i.head_sent = Some(i.now - 599_999);
        assert_eq!(decide(&i), Decision::Send(1));
    }

    #[test]
    fn a_receiver_window_hold_is_not_cwnd_limited_and_an_app_limited_skb_waits() {
        let mut i = base();
        i.in_flight = 30;
        i.snd_wnd = 40_500; // 1500 bytes of room left
        assert_eq!(decide(&i), Decision::Defer { cwnd_limited: false });
        // The skb's end fits the room, no FIN: the kernel waits for more
        // data, unless the room is a third of the window.
        let mut i = base();
        i.skb = Skb { len: 1700, tail: true, ..Default::default() };
        i.pacing_rate = 100_000_000;
        i.cwnd = 90;
        i.in_flight = 88;
        assert_eq!(decide(&i), Decision::Defer { cwnd_limited: false });
        i.cwnd = 5;
        i.in_flight = 3;
        assert!(matches!(decide(&i), Decision::Send(_)));
    }

    #[test]
    fn the_burst_is_bounded_by_room_skb_and_half_the_window() {
        let mut i = base();
        i.in_flight = 30;
        assert_eq!(decide(&i), Decision::Send(2));
        // At 100 Mbit/s a burst is 12 segments: room for 10 is less, and
        // less than a third of the window: it waits.
        i.pacing_rate = 12_500_000;
        assert_eq!(decide(&i), Decision::Defer { cwnd_limited: true });
        i.in_flight = 20;
        assert_eq!(decide(&i), Decision::Send(12));
        // An skb of 4 with data behind it grows to the burst
        // (tcp_grow_skb()); the last one written goes as it is.
        i.skb.len = 4 * MSS;
        assert_eq!(decide(&i), Decision::Send(12));
        i.skb = Skb { len: 4 * MSS, tail: true, ..Default::default() };
        assert_eq!(decide(&i), Decision::Send(4));
        i.cwnd = 12;
        i.in_flight = 0;
        i.skb = Skb { len: 30 * MSS, more: u64::MAX, ..Default::default() };
        assert_eq!(decide(&i), Decision::Send(6));
    }

    #[test]
    fn skbs_are_cut_at_the_size_goal() {
        // 64 kB less headers, or half the peer's largest window.
        assert_eq!(size_goal(MSS, 1_000_000), 65 * MSS);
        assert_eq!(size_goal(MSS, 20_000), 10 * MSS);
        assert_eq!(size_goal(MSS, 1_500), MSS);
        let g = 10 * MSS;
        assert_eq!(unsent_skb(0, u64::MAX, g, false), Skb { len: g, more: u64::MAX - g, ..Default::default() });
        assert_eq!(unsent_skb(9 * MSS, u64::MAX, g, false).len, MSS);
        assert_eq!(
            unsent_skb(12 * MSS, 15 * MSS, g, true),
            Skb { len: 3 * MSS, tail: true, fin: true, more: 0, closes: true }
        );
        assert_eq!(
            unsent_skb(12 * MSS, 25 * MSS, g, true),
            Skb { len: 8 * MSS, more: 5 * MSS, closes: true, ..Default::default() }
        );
    }

    /// tcp_grow_skb(): the one-segment rest of an skb takes the next
    /// skb's data up to the quota, so a burst of two goes as a chunk of
    /// two where the rest would have gone alone; the end of the data
    /// stops the growth, and an skb that reaches it carries the FIN.
    #[test]
    fn a_short_skb_grows_into_the_next_before_the_decision() {
        let mut i = base();
        i.in_flight = 36; // room 4, the burst 2: the quota is 2
        i.skb = unsent_skb(i.snd_nxt, u64::MAX, 10 * MSS, false);
        i.skb.len = MSS;
        assert_eq!(decide(&i), Decision::Send(2));
        let rest = Skb { len: MSS, more: 5 * MSS, closes: false, ..Default::default() };
        assert_eq!(rest.grown(2 * MSS), Skb { len: 2 * MSS, more: 4 * MSS, ..Default::default() });
        let last = Skb { len: MSS, more: MSS / 2, closes: true, ..Default::default() };
        assert_eq!(last.grown(2 * MSS), Skb { len: 3 * MSS / 2, tail: true, fin: true, more: 0, closes: true });
        // Without data after it the skb stays as it is: one segment, sent
        // by Nagle's test (off), a chunk of one.
        i.skb = Skb { len: MSS, tail: true, ..Default::default() };
        assert_eq!(decide(&i), Decision::Send(1));
    }
}
