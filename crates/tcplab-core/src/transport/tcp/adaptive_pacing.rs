//! TCP with Adaptive Pacing (TCP-AP; ElRakabawy, Klemm and Lindemann, "TCP
//! with Adaptive Pacing for Multihop Wireless Networks", MobiHoc 2005),
//! as the authors' ns-2 agent (`Agent/TCP/Newreno/AP`) runs it on top of
//! NewReno. On an 802.11 chain a node's transmission collides with those
//! of nodes up to about four hops away (the carrier-sense and interference
//! ranges are about twice the receive range), so a sender that puts more
//! than one packet into every four hops of its path only makes hidden
//! terminals collide. TCP-AP keeps TCP's window but releases the segments
//! the window allows one at a time, spaced by the estimated time a packet
//! takes to travel four hops (the "4-hop propagation delay", FHD), widened
//! when the round trip times vary (contention):
//!
//! ```text
//! interval = (1 + 2 * variation) * FHD
//! ```
//!
//! From every ACK the sender takes an RTT sample (its timestamp echo) and
//! the hop count h of the ACK's path (from its IP TTL), and splits the
//! round trip into its per-hop parts, with S the data packet's size on the
//! air (payload + `overhead`), A the ACK's (`overhead`) and B the
//! link-layer rate in bytes a second:
//!
//! ```text
//! queueing per hop q = (RTT / h - (S + A) / B) / 2   (the EWMA of q, weight
//!                                                    gamma, when above delay_bound)
//! one hop            = q + S / B
//! FHD sample         = n_factor * one hop  (one hop when h < n_factor)
//! FHD                = EWMA of the samples below delay_bound, weight alpha
//! variation          = mean absolute deviation / mean of the last `history`
//!                      samples (the agent's choice; the paper's coefficient
//!                      of variation, std / mean, with variation = "cov")
//! ```
//!
//! The pacing timer ticks every interval, recomputed at each tick, and
//! sends one waiting segment a tick; the first segment after the pacing
//! starts (or restarts) goes at once and starts the ticks. A fast
//! retransmit goes at once and stops the pacing until the next ACK; a
//! retransmission timeout does the same, and (the agent's choice: the
//! pacing, not the backoff, answers congestion) does not back the timer
//! off unless `backoff` is set.
//!
//! Where the agent's code departs from what it describes, tcplab follows
//! the description (docs/models.md, "TCP-AP"): segments the window allowed
//! but the pacing still held are not forgotten at a fast retransmit (the
//! agent drops its queue of them, leaving holes its NewReno fills one per
//! partial ACK), and a fast retransmit with nothing held does not stop
//! the ticks for good (the agent cancels its timer and, holding nothing,
//! never restarts it until a retransmission timeout).
//!
//! The ticks are kept lazily: a tick at which nothing waits changes
//! nothing but the time of the next, computed from estimates that only
//! ACKs change, so the sender catches the tick times up when an ACK
//! arrives, before its estimates move, and needs a timer only while a
//! segment waits.

use crate::engine::Time;

/// TCP-AP's parameters (`[flow.tcp_ap]`); the defaults are the authors'
/// ns-2 agent's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApParams {
    /// Hops within which transmissions interfere (n_factor_, 4: 250 m
    /// receive and 550 m carrier-sense ranges).
    pub n_factor: u32,
    /// Samples kept for the variation (history_, 50).
    pub history: usize,
    /// Weight of the old FHD in its average (alpha_, 0.7).
    pub alpha: f64,
    /// Weight of the old queueing delay in its average (gamma_, 0.5).
    pub gamma: f64,
    /// Samples above this are discarded (delaybound_, 0.5 s), seconds.
    pub delay_bound: f64,
    /// The link layer's rate (ll_bandwidth_, 2 Mbit/s), bits a second.
    pub link_rate_bps: f64,
    /// Bytes of headers (TCP, IP, MAC) on every packet on the air, the
    /// ACK's whole size (112 in the agent).
    pub overhead: f64,
    /// The interval before the first estimate (rate_interval_, 50 ms),
    /// seconds.
    pub initial_interval: f64,
    /// The variation measure: the mean absolute deviation (false, the
    /// agent's) or the standard deviation (true, the paper's
    /// coefficient of variation), over the mean.
    pub cov: bool,
    /// Back the retransmission timer off at a timeout (false in the
    /// agent).
    pub backoff: bool,
}

impl Default for ApParams {
    fn default() -> Self {
        ApParams {
            n_factor: 4,
            history: 50,
            alpha: 0.7,
            gamma: 0.5,
            delay_bound: 0.5,
            link_rate_bps: 2e6,
            overhead: 112.0,
            initial_interval: 0.05,
            cov: false,
            backoff: false,
        }
    }
}

/// The estimator and the pacing gate of one TCP-AP sender.
pub struct AdaptivePacing {
    pub p: ApParams,
    /// Hops the ACK being processed crossed.
    pub hops: u32,
    /// Pacing on (the agent's ispaced_): off from a fast retransmit or a
    /// timeout to the next ACK.
    active: bool,
    /// The next tick of the pacing timer; None until the first paced
    /// segment starts the ticks (the agent's initial_pace_ 0).
    tick: Option<Time>,
    /// A segment waits for `tick`.
    pub waiting: bool,
    avg_queueing: f64,
    /// The last FHD sample and their average (n_hop_delay_,
    /// avg_n_hop_delay_), seconds.
    pub fhd: f64,
    pub avg_fhd: f64,
    /// The last `history` valid FHD samples, oldest first.
    samples: std::collections::VecDeque<f64>,
    /// The variation measure over `samples` (adev_ or coeff_var_).
    pub variation: f64,
}

impl AdaptivePacing {
    pub fn new(p: ApParams) -> Self {
        AdaptivePacing {
            p,
            hops: 1,
            active: true,
            tick: None,
            waiting: false,
            avg_queueing: 0.0,
            fhd: 0.0,
            avg_fhd: 0.0,
            samples: std::collections::VecDeque::with_capacity(p.history),
            variation: 0.0,
        }
    }

    /// The interval the timer takes at a tick now, seconds (the agent's
    /// rate_interval_): the initial one until the first estimate, which
    /// an average of positive samples never loses.
    pub fn interval(&self) -> f64 {
        if self.avg_fhd > 0.0 {
            (1.0 + 2.0 * self.variation) * self.avg_fhd
        } else {
            self.p.initial_interval
        }
    }

    fn interval_ns(&self) -> Time {
        (self.interval() * 1e9).round().max(1.0) as Time
    }

    /// An ACK arrives at `now`, before the sender acts on it: the ticks
    /// that passed with nothing waiting are caught up (with the estimates
    /// they saw), and a pacing stopped by a fast retransmit or a timeout
    /// starts again, its first segment at once.
    pub fn ack_arrives(&mut self, now: Time) {
        if !self.active {
            self.active = true;
            self.tick = None;
            return;
        }
        if let Some(mut t) = self.tick {
            while t < now {
                t += self.interval_ns();
            }
            self.tick = Some(t);
        }
    }

    /// The ACK's round trip sample (`rtt` seconds, from its timestamp
    /// echo) for a data segment of `mss` payload bytes, over `self.hops`.
    pub fn sample(&mut self, rtt: f64, mss: u32) {
        let p = self.p;
        let h = self.hops.max(1) as f64;
        let bytes_per_s = p.link_rate_bps / 8.0;
        let data = mss as f64 + p.overhead;
        let ack = p.overhead;
        let mut q = 0.5 * (rtt / h - (data + ack) / bytes_per_s);
        if q > p.delay_bound {
            q = self.avg_queueing;
        }
        self.avg_queueing = p.gamma * self.avg_queueing + (1.0 - p.gamma) * q;
        let one_hop = q + data / bytes_per_s;
        self.fhd = if self.hops >= p.n_factor { one_hop * p.n_factor as f64 } else { one_hop };
        if !(self.fhd > 0.0 && self.fhd < p.delay_bound) {
            return;
        }
        self.avg_fhd = if self.avg_fhd == 0.0 { self.fhd } else { p.alpha * self.avg_fhd + (1.0 - p.alpha) * self.fhd };
        if self.samples.len() == p.history {
            self.samples.pop_front();
        }
        self.samples.push_back(self.fhd);
        self.update_variation();
    }

    /// The variation of the kept samples; unchanged while they are all
    /// equal (as the agent's).
    fn update_variation(&mut self) {
        let n = self.samples.len() as f64;
        let mean = self.samples.iter().sum::<f64>() / n;
        let (abs, sq) =
            self.samples.iter().fold((0.0, 0.0), |(a, s), &x| (a + (x - mean).abs(), s + (x - mean) * (x - mean)));
        if abs > 0.0 {
            self.variation = if self.p.cov { (sq / n).sqrt() / mean } else { abs / n / mean };
        }
    }

    /// May a segment leave at `now`? If not, it waits for the next tick.
    pub fn check(&mut self, now: Time) -> bool {
        match self.tick {
            Some(t) if self.active && t > now => {
                self.waiting = true;
                false
            }
            _ => true,
        }
    }

    /// A segment left at `now`: the next waits for the next tick (the
    /// first paced one starts the ticks).
    pub fn sent(&mut self, now: Time) {
        if !self.active {
            return;
        }
        self.waiting = false;
        let from = self.tick.map_or(now, |t| t.max(now));
        self.tick = Some(from + self.interval_ns());
    }

    /// A fast retransmit or a timeout: what the window allows goes
    /// unpaced until the next ACK.
    pub fn stop(&mut self) {
        self.active = false;
        self.tick = None;
        self.waiting = false;
    }

    /// When the waiting segment may leave (the pacing timer), if one waits.
    pub fn deadline(&self) -> Option<Time> {
        self.tick.filter(|_| self.waiting && self.active)
    }

    /// The timer fired at `now` for a waiting segment: true if so.
    pub fn due(&mut self, now: Time) -> bool {
        if self.deadline().is_some_and(|t| t <= now) {
            self.waiting = false;
            return true;
        }
        false
    }

    /// The current sending rate of the pacing, segments a second (for the
    /// series), once there is an estimate.
    pub fn segments_per_second(&self) -> Option<f64> {
        (self.avg_fhd > 0.0).then(|| 1.0 / self.interval())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::MS;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn the_first_sample_splits_the_round_trip_per_hop() {
        // 7 hops, 2 Mbit/s, 1460-byte payload: S = 1572, A = 112 bytes,
        // B = 250 000 bytes/s. RTT 100 ms: q = (0.1/7 - 1684/250000)/2.
        let mut ap = AdaptivePacing::new(ApParams::default());
        ap.hops = 7;
        ap.sample(0.1, 1460);
        let q = 0.5 * (0.1 / 7.0 - 1684.0 / 250_000.0);
        let fhd = 4.0 * (q + 1572.0 / 250_000.0);
        assert!(close(ap.fhd, fhd), "{} {}", ap.fhd, fhd);
        assert!(close(ap.avg_fhd, fhd));
        assert_eq!(ap.variation, 0.0, "one sample has no variation");
        assert!(close(ap.interval(), fhd));
    }

    #[test]
    fn short_paths_pace_at_one_hop() {
        let mut ap = AdaptivePacing::new(ApParams::default());
        ap.hops = 2;
        ap.sample(0.03, 1460);
        let one = 0.5 * (0.03 / 2.0 - 1684.0 / 250_000.0) + 1572.0 / 250_000.0;
        assert!(close(ap.fhd, one));
    }

    #[test]
    fn averages_and_mean_deviation_follow_the_samples() {
        let mut ap = AdaptivePacing::new(ApParams { history: 3, ..Default::default() });
        ap.hops = 4;
        let bps = 250_000.0;
        let fhd_of = |rtt: f64| 4.0 * (0.5 * (rtt / 4.0 - 1684.0 / bps) + 1572.0 / bps);
        let rtts = [0.05, 0.06, 0.08, 0.05];
        let mut avg = 0.0;
        for (i, &r) in rtts.iter().enumerate() {
            ap.sample(r, 1460);
            avg = if i == 0 { fhd_of(r) } else { 0.7 * avg + 0.3 * fhd_of(r) };
        }
        assert!(close(ap.avg_fhd, avg));
        // The last three samples: 0.06, 0.08, 0.05.
        let s: Vec<f64> = rtts[1..].iter().map(|&r| fhd_of(r)).collect();
        let mean = s.iter().sum::<f64>() / 3.0;
        let mad = s.iter().map(|x| (x - mean).abs()).sum::<f64>() / 3.0;
        assert!(close(ap.variation, mad / mean));
        assert!(close(ap.interval(), (1.0 + 2.0 * mad / mean) * avg));
        let mut cov = AdaptivePacing::new(ApParams { history: 3, cov: true, ..Default::default() });
        cov.hops = 4;
        for &r in &rtts {
            cov.sample(r, 1460);
        }
        let sd = (s.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 3.0).sqrt();
        assert!(close(cov.variation, sd / mean));
    }

    #[test]
    fn samples_past_the_bound_are_dropped() {
        let mut ap = AdaptivePacing::new(ApParams::default());
        ap.hops = 8;
        ap.sample(0.1, 1460);
        let before = (ap.avg_fhd, ap.samples.len());
        // A 10 s RTT: its queueing part (0.62 s) is above the bound, so
        // the average queueing (1.4 ms) stands in for it.
        ap.sample(10.0, 1460);
        assert!(ap.fhd < 0.5 && ap.fhd > 0.0);
        assert_eq!(ap.samples.len(), before.1 + 1);
        // With a bound below the FHD no sample counts.
        let mut tight = AdaptivePacing::new(ApParams { delay_bound: 0.01, ..Default::default() });
        tight.hops = 8;
        tight.sample(0.1, 1460);
        assert_eq!((tight.avg_fhd, tight.samples.len()), (0.0, 0));
        assert!(close(tight.interval(), 0.05), "the initial interval stands");
    }

    #[test]
    fn one_segment_a_tick_and_the_first_at_once() {
        let mut ap = AdaptivePacing::new(ApParams::default());
        // No estimate yet: 50 ms ticks.
        assert!(ap.check(0));
        ap.sent(0);
        assert!(!ap.check(10 * MS));
        assert_eq!(ap.deadline(), Some(50 * MS));
        assert!(!ap.due(49 * MS));
        assert!(ap.due(50 * MS));
        assert!(ap.check(50 * MS));
        ap.sent(50 * MS);
        assert!(!ap.check(50 * MS), "one a tick");
        assert_eq!(ap.deadline(), Some(100 * MS));
        // Idle past two ticks: an ACK at 235 ms catches them up (100,
        // 150, 200 pass empty); the next segment waits for 250 ms.
        ap.waiting = false;
        ap.ack_arrives(235 * MS);
        assert!(!ap.check(235 * MS));
        assert_eq!(ap.deadline(), Some(250 * MS));
    }

    #[test]
    fn a_fast_retransmit_stops_the_pacing_until_the_next_ack() {
        let mut ap = AdaptivePacing::new(ApParams::default());
        ap.sent(0);
        assert!(!ap.check(MS));
        ap.stop();
        assert!(ap.check(MS) && ap.check(MS), "unpaced");
        ap.sent(MS);
        assert_eq!(ap.deadline(), None);
        ap.ack_arrives(7 * MS);
        assert!(ap.check(7 * MS), "the first after the restart goes at once");
        ap.sent(7 * MS);
        assert!(!ap.check(8 * MS));
        assert_eq!(ap.deadline(), Some(57 * MS));
    }
}
