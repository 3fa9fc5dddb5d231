//! TCP Westwood+ as Linux runs it (`net/ipv4/tcp_westwood.c`, by the
//! Westwood+ authors; Mascolo, Casetti, Gerla, Sanadidi and Wang, "TCP
//! Westwood: bandwidth estimation for enhanced transport over wireless
//! links", MobiCom 2001, with Grieco and Mascolo's per-RTT sampling). The
//! window grows as Reno's; what changes is the window after a loss: the
//! sender estimates the bandwidth its ACKs report (bytes acknowledged per
//! round trip, low-pass filtered) and, instead of halving, sets the window
//! to that estimate times the least RTT seen, the pipe it measured. A loss
//! that was not congestion (a corrupted frame on a radio hop) then costs
//! far less than half the window.
//!
//! In the kernel's integer arithmetic and units:
//! * time in jiffies (`WestwoodParams::hz` a second); the RTT from the
//!   ACK's delay sample (`pkts_acked()`, usecs_to_jiffies(), rounded up),
//!   20 s before the first sample (TCP_WESTWOOD_INIT_RTT);
//! * bytes acknowledged are summed per ACK (`in_ack_event()`): on the
//!   header-predicted fast path the advance of snd_una; on the slow path
//!   (a duplicate ACK, SACK blocks, an ECN echo, a window update) one
//!   segment for each duplicate, taken back from the next cumulative ACK
//!   larger than a segment (`westwood_acked_count()`, its "accounted");
//! * once a window of max(RTT, 50 ms) has passed (HZ/20 jiffies), the
//!   window's bytes per jiffy go through two filters of gain 1/8 in series
//!   (`westwood_filter()`: the sample, then the estimate); the first
//!   window sets both;
//! * bw_rttmin = max(estimate x least RTT / MSS, 2) segments;
//! * a recovery or CWR state's end (CA_EVENT_COMPLETE_CWR, after
//!   `tcp_end_cwnd_reduction()`, also after an undo): cwnd = ssthresh =
//!   bw_rttmin; a timeout (CA_EVENT_LOSS in `tcp_enter_loss()`): ssthresh =
//!   bw_rttmin and the least RTT is taken afresh from the next sample;
//! * on entering recovery or CWR, ssthresh is Reno's max(cwnd / 2, 2)
//!   (`tcp_reno_ssthresh`), the window PRR brings down to it until the
//!   state's end; growth is Reno's (`tcp_reno_cong_avoid`).
//!
//! The order of one ACK's work is the kernel's up to 6.13: the bandwidth
//! sum (in_ack_event) before the ACK's delay sample (pkts_acked), so the
//! least RTT is updated from the previous ACK's sample. Kernels from 6.14
//! call in_ack_event after the ACK's data is taken off and count a
//! duplicate that took the fast path as a fast ACK (nothing acknowledged);
//! docs/models.md says why this follows the earlier kernels.

use super::cc::*;
use crate::engine::Time;

/// TCP_WESTWOOD_RTT_MIN: the shortest sampling window, HZ/20 jiffies.
const RTT_MIN_DIVISOR: u32 = 20;
/// TCP_WESTWOOD_INIT_RTT: the RTT before any sample, 20 s in jiffies.
const INIT_RTT_S: u32 = 20;

/// The kernel's timer frequency, for Westwood+'s jiffies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WestwoodParams {
    pub hz: u32,
}

impl Default for WestwoodParams {
    fn default() -> Self {
        WestwoodParams { hz: 250 }
    }
}

pub struct Westwood {
    hz: u32,
    /// Bytes a jiffy: the filtered samples and the estimate.
    bw_ns_est: u32,
    bw_est: u32,
    /// Start of the sampling window (jiffies) and its bytes.
    rtt_win_sx: u32,
    bk: u32,
    /// snd_una at the last ACK counted.
    snd_una: u64,
    /// Duplicates credited one segment each, not yet taken back.
    accounted: u32,
    /// The last RTT sample and the least since the last reset (jiffies).
    rtt: u32,
    rtt_min: u32,
    first_ack: bool,
    reset_rtt_min: bool,
}

/// westwood_do_filter(): an exponential filter of gain 1/8.
fn filter(a: u32, b: u32) -> u32 {
    (a.wrapping_mul(7).wrapping_add(b)) >> 3
}

impl Westwood {
    pub fn new(p: WestwoodParams) -> Self {
        let init_rtt = INIT_RTT_S * p.hz;
        Westwood {
            hz: p.hz,
            bw_ns_est: 0,
            bw_est: 0,
            rtt_win_sx: 0,
            bk: 0,
            snd_una: 0,
            accounted: 0,
            rtt: init_rtt,
            rtt_min: init_rtt,
            first_ack: true,
            reset_rtt_min: true,
        }
    }

    /// tcp_jiffies32 at `now`.
    fn jiffies(&self, now: Time) -> u32 {
        ((now as u128 * self.hz as u128) / 1_000_000_000) as u32
    }

    /// westwood_update_window(): close the sampling window once it is
    /// longer than the RTT (and 50 ms), feeding its bytes a jiffy to the
    /// filters.
    fn update_window(&mut self, now: Time, snd_una: u64) {
        let now_j = self.jiffies(now);
        let delta = now_j.wrapping_sub(self.rtt_win_sx) as i32;
        if self.first_ack {
            self.snd_una = snd_una;
            self.first_ack = false;
        }
        let least = self.rtt.max(self.hz / RTT_MIN_DIVISOR);
        if self.rtt != 0 && delta > 0 && delta as u32 > least {
            let sample = self.bk / delta as u32;
            if self.bw_ns_est == 0 && self.bw_est == 0 {
                self.bw_ns_est = sample;
                self.bw_est = sample;
            } else {
                self.bw_ns_est = filter(self.bw_ns_est, sample);
                self.bw_est = filter(self.bw_est, self.bw_ns_est);
            }
            self.bk = 0;
            self.rtt_win_sx = now_j;
        }
    }

    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// westwood_acked_count(): the bytes a slow-path ACK reports, a
    /// duplicate counting one segment.
    fn acked_count(&mut self, snd_una: u64, mss: u32) -> u32 {
        let mut cumul = snd_una.saturating_sub(self.snd_una).min(u32::MAX as u64) as u32;
        if cumul == 0 {
            self.accounted = self.accounted.wrapping_add(mss);
            cumul = mss;
        }
        if cumul > mss {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = mss;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = snd_una;
        cumul
    }

    /// tcp_westwood_bw_rttmin(): the measured pipe in segments, at least 2.
    fn bw_rttmin(&self, mss: u64) -> u64 {
        (self.bw_est as u64 * self.rtt_min as u64 / mss).max(2)
    }

    /// (bandwidth estimate in bytes a jiffy, least RTT in jiffies).
    #[cfg(test)]
    fn estimate(&self) -> (u32, u32) {
        (self.bw_est, self.rtt_min)
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }

    /// tcp_reno_cong_avoid(): Reno's growth (as the linux profile's
    /// NewReno grows).
    fn on_new_ack(&mut self, w: &mut CcState, a: &AckInfo) -> AckResponse {
        w.standard_increase(a.acked);
        AckResponse::NORMAL
    }

    /// Loss recovery is the sender's (Linux's); never asked.
    fn on_dupack(&mut self, _w: &mut CcState, _a: &AckInfo) -> DupResponse {
        DupResponse::None
    }

    /// tcp_enter_loss(): Reno's ssthresh, then CA_EVENT_LOSS sets it to
    /// bw_rttmin and the least RTT starts again; cwnd one segment.
    fn on_timeout(&mut self, w: &mut CcState, _a: &AckInfo) {
        w.ssthresh = self.bw_rttmin(w.mss) * w.mss;
        self.reset_rtt_min = true;
        w.cwnd = w.mss;
        w.ca_frac = 0.0;
    }

    /// A timeout inside a reduction, or repeated in the Loss state before
    /// snd_una moved: no CA_EVENT_LOSS, only cwnd one segment (the
    /// recovery keeps its ssthresh).
    fn on_timeout_keeping_cut(&mut self, w: &mut CcState, _a: &AckInfo) {
        w.cwnd = w.mss;
        w.ca_frac = 0.0;
    }

    /// tcp_reno_ssthresh(): max(cwnd / 2, 2) segments, on entering
    /// recovery or CWR; the state's end sets bw_rttmin.
    fn ssthresh_on_loss(&mut self, w: &CcState, _flight: u64) -> u64 {
        (w.cwnd / w.mss / 2).max(2) * w.mss
    }

    /// pkts_acked(): the ACK's delay sample is the RTT.
    fn on_delay_sample(&mut self, _w: &mut CcState, s: &super::cubic::DelaySample) {
        let us = s.rtt / 1000;
        if us > 0 {
            self.rtt = (us * self.hz as u64).div_ceil(1_000_000).min(u32::MAX as u64) as u32;
        }
    }

    fn wants_delay_samples(&self) -> bool {
        true
    }

    fn wants_ack_events(&self) -> bool {
        true
    }

    /// The connection opens (tcp_westwood_init()): the first sampling
    /// window starts now.
    fn on_open(&mut self, now: Time, snd_una: u64) {
        self.rtt_win_sx = self.jiffies(now);
        self.snd_una = snd_una;
    }

    /// tcp_westwood_ack(): the fast path counts the advance of snd_una,
    /// the slow path `acked_count()`.
    fn on_ack_event(&mut self, w: &CcState, e: &AckEvent) {
        self.update_window(e.now, e.snd_una);
        if e.slow {
            let mss = w.mss.min(u32::MAX as u64) as u32;
            let acked = self.acked_count(e.snd_una, mss);
            self.bk = self.bk.wrapping_add(acked);
        } else {
            let acked = e.snd_una.saturating_sub(self.snd_una).min(u32::MAX as u64) as u32;
            self.bk = self.bk.wrapping_add(acked);
            self.snd_una = e.snd_una;
        }
        self.update_rtt_min();
    }

    /// CA_EVENT_COMPLETE_CWR: the window and the threshold become the
    /// measured pipe.
    fn on_cwr_complete(&mut self, w: &mut CcState) {
        let segs = self.bw_rttmin(w.mss);
        w.ssthresh = segs * w.mss;
        w.cwnd = segs * w.mss;
        w.ca_frac = 0.0;
    }

    fn allows_sack_recovery(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::cubic::DelaySample;
    use super::*;

    const MSS: u64 = 1000;
    const MS: Time = 1_000_000;

    fn state(cwnd: u64) -> CcState {
        CcState::linux_test(cwnd, u32::MAX as u64, MSS)
    }

    fn event(c: &mut Westwood, w: &CcState, now: Time, snd_una: u64, slow: bool) {
        c.on_ack_event(w, &AckEvent { now, snd_una, slow });
    }

    fn rtt(c: &mut Westwood, w: &mut CcState, now: Time, rtt: Time) {
        c.on_delay_sample(w, &DelaySample { now, rtt, snd_una: 0, snd_nxt: 0, srtt: None });
    }

    fn ack_info() -> AckInfo {
        AckInfo {
            ack: 0,
            acked: 0,
            snd_max: 0,
            flight: 0,
            dupacks: 0,
            ecn_recover: None,
            now: 0,
            snd_nxt: 0,
            acked_seg: None,
            head_seg: None,
            first_sent: None,
            heuristic: false,
        }
    }

    fn timeout(c: &mut Westwood, w: &mut CcState, una: u64) {
        c.on_timeout(w, &AckInfo { ack: una, snd_max: una, snd_nxt: una, ..ack_info() });
    }

    /// ACKs of one segment every millisecond (1 MB/s, 4000 bytes a jiffy
    /// at 250 Hz) from `from` ms to `to` ms, each with a delay sample of
    /// `rtt_ms` after it: the kernel's order (in_ack_event, then
    /// pkts_acked).
    fn steady(c: &mut Westwood, w: &mut CcState, from: u64, to: u64, rtt_ms: u64) {
        for i in from..=to {
            event(c, w, i * MS, i * MSS, false);
            rtt(c, w, i * MS, rtt_ms * MS);
        }
    }

    #[test]
    fn the_estimate_is_the_rate_the_acks_report() {
        let mut c = Westwood::new(WestwoodParams::default());
        let mut w = state(10);
        c.on_open(0, 0);
        steady(&mut c, &mut w, 1, 10_000, 100);
        let (bw, rtt_min) = c.estimate();
        // 1 MB/s is 4000 bytes a jiffy of 4 ms; 100 ms is 25 jiffies.
        assert!((3960..=4040).contains(&bw), "{bw}");
        assert_eq!(rtt_min, 25);
        // The pipe: 1 MB/s x 100 ms = 100 segments of 1000 bytes.
        c.on_cwr_complete(&mut w);
        assert!((99..=101).contains(&(w.cwnd / MSS)), "{}", w.cwnd);
        assert_eq!(w.cwnd, w.ssthresh);
    }

    #[test]
    fn a_window_closes_only_after_an_rtt_and_the_filters_have_gain_one_eighth() {
        let mut c = Westwood::new(WestwoodParams::default());
        let mut w = state(10);
        c.on_open(0, 0);
        // No window closes before the first RTT sample (20 s assumed).
        for i in 1..=1000 {
            event(&mut c, &w, i * MS, i * MSS, false);
        }
        assert_eq!((c.estimate().0, c.rtt_win_sx), (0, 0));
        rtt(&mut c, &mut w, 1000 * MS, 100 * MS);
        // The next ACK closes the first window (1 s = 250 jiffies; the
        // first ACK's segment is not counted): it sets both filters.
        event(&mut c, &w, 1001 * MS, 1001 * MSS, false);
        assert_eq!((c.bw_ns_est, c.bw_est), (999_000 / 250, 999_000 / 250));
        // Then one segment a millisecond, then two: every window that
        // closes is longer than the RTT (25 jiffies) and moves the sample
        // filter 1/8 of the way to its bytes a jiffy, the estimate 1/8 of
        // the way to the sample filter.
        let mut una = 1001 * MSS;
        let mut closed = 0;
        for i in 1002..=3000u64 {
            una += if i < 2000 { MSS } else { 2 * MSS };
            let (bk, sx, ns, est) = (c.bk, c.rtt_win_sx, c.bw_ns_est, c.bw_est);
            event(&mut c, &w, i * MS, una, false);
            let now_j = c.jiffies(i * MS);
            if c.rtt_win_sx != sx {
                closed += 1;
                let delta = now_j - sx;
                assert!(delta > 25, "{delta}");
                let ns2 = (7 * ns + bk / delta) >> 3;
                assert_eq!((c.bw_ns_est, c.bw_est), (ns2, (7 * est + ns2) >> 3));
            } else {
                assert!(now_j - sx <= 25);
            }
        }
        // Windows of 26 jiffies from jiffy 250 to 750.
        assert_eq!(closed, (750 - 250) / 26);
        // Halfway to the doubled rate's 8000 bytes a jiffy after 9 windows
        // of the second rate: the two filters in series lag.
        assert!(c.bw_ns_est > 6000 && c.bw_est > 4000 && c.bw_est < c.bw_ns_est, "{} {}", c.bw_ns_est, c.bw_est);
    }

    #[test]
    fn duplicates_count_a_segment_each_taken_back_from_the_next_slow_cumulative_ack() {
        let mut c = Westwood::new(WestwoodParams::default());
        let w = state(10);
        c.on_open(0, 0);
        event(&mut c, &w, MS, MSS, false); // the first ACK counts nothing
        assert_eq!(c.bk, 0);
        for _ in 0..3 {
            event(&mut c, &w, 2 * MS, MSS, true);
        }
        assert_eq!((c.bk, c.accounted), (3000, 3000));
        // Five segments acknowledged, three of them counted already.
        event(&mut c, &w, 3 * MS, 6 * MSS, true);
        assert_eq!((c.bk, c.accounted), (5000, 0));
        // One segment is counted as itself, whatever was accounted.
        event(&mut c, &w, 4 * MS, 6 * MSS, true);
        event(&mut c, &w, 5 * MS, 7 * MSS, true);
        assert_eq!((c.bk, c.accounted), (7000, 1000));
    }

    #[test]
    fn a_fast_path_ack_counts_its_whole_advance_and_keeps_the_accounted_duplicates() {
        let mut c = Westwood::new(WestwoodParams::default());
        let w = state(10);
        c.on_open(0, 0);
        event(&mut c, &w, MS, MSS, false);
        for _ in 0..3 {
            event(&mut c, &w, 2 * MS, MSS, true);
        }
        event(&mut c, &w, 3 * MS, 6 * MSS, false);
        assert_eq!((c.bk, c.accounted), (8000, 3000));
    }

    #[test]
    fn a_timeout_sets_ssthresh_to_the_pipe_and_the_least_rtt_starts_again() {
        let mut c = Westwood::new(WestwoodParams::default());
        let mut w = state(150);
        c.on_open(0, 0);
        steady(&mut c, &mut w, 1, 5_000, 100);
        // The last sample before the timeout is 160 ms (40 jiffies).
        rtt(&mut c, &mut w, 5_000 * MS, 160 * MS);
        timeout(&mut c, &mut w, 5_000 * MSS);
        assert!((99..=101).contains(&(w.ssthresh / MSS)), "{}", w.ssthresh);
        assert_eq!(w.cwnd, MSS);
        // The least RTT starts again from the last sample, even a larger
        // one (the ACK's own sample comes after its bandwidth sum).
        event(&mut c, &w, 5_001 * MS, 5_000 * MSS, true);
        assert_eq!(c.estimate().1, 40);
        rtt(&mut c, &mut w, 5_001 * MS, 200 * MS);
        event(&mut c, &w, 5_002 * MS, 5_001 * MSS, false);
        assert_eq!(c.estimate().1, 40);
    }

    #[test]
    fn a_timeout_inside_a_reduction_tells_the_module_nothing() {
        let mut c = Westwood::new(WestwoodParams::default());
        let mut w = state(150);
        c.on_open(0, 0);
        steady(&mut c, &mut w, 1, 5_000, 100);
        w.ssthresh = 75 * MSS;
        let a = AckInfo { ack: 5_000 * MSS, ..ack_info() };
        c.on_timeout_keeping_cut(&mut w, &a);
        assert_eq!((w.ssthresh, w.cwnd), (75 * MSS, MSS));
        assert!(!c.reset_rtt_min);
    }

    #[test]
    fn without_an_estimate_the_pipe_is_two_segments_and_reno_halves_on_entry() {
        let mut c = Westwood::new(WestwoodParams::default());
        let mut w = state(40);
        assert_eq!(c.ssthresh_on_loss(&w, 0), 20 * MSS);
        assert_eq!(c.ssthresh_on_loss(&state(3), 0), 2 * MSS);
        c.on_cwr_complete(&mut w);
        assert_eq!((w.cwnd, w.ssthresh), (2 * MSS, 2 * MSS));
    }
}
