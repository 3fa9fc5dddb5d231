//! Error models, one per link direction, decided when a packet reaches the far
//! end of the link (after it has used the link's time), as in Seawind. A
//! model that delays (`HitAction::Delay`) loses nothing: the packets it
//! picks are held that long where they enter the link, before its queue,
//! and later packets overtake them (ns-2's ErrorModel with delay_pkt_ at a
//! link's head): reordering.

use crate::engine::{Rng, Time};
use crate::packet::FlowId;

/// Which packets an error model applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketClass {
    All,
    /// Packets carrying payload (TCP data segments, UDP datagrams).
    Data,
    /// Packets without payload (pure TCP ACKs).
    Acks,
}

impl PacketClass {
    pub fn matches(self, payload: u32) -> bool {
        match self {
            PacketClass::All => true,
            PacketClass::Data => payload > 0,
            PacketClass::Acks => payload == 0,
        }
    }
}

#[derive(Clone, Debug)]
pub enum ErrorKind {
    None,
    /// Each packet lost independently with probability `rate`.
    Uniform {
        rate: f64,
    },
    /// Each bit in error independently: P(loss) = 1 - (1 - ber)^bits.
    BitErrorRate {
        ber: f64,
    },
    /// Two-state Markov chain stepped once per packet, before the draw.
    GilbertElliott {
        p_good_bad: f64,
        p_bad_good: f64,
        loss_good: f64,
        loss_bad: f64,
        bad: bool,
    },
    /// Drop exactly the listed packets (1-based count of matching packets).
    Pattern {
        drops: Vec<u64>,
        next: usize,
        count: u64,
    },
    /// Loss rate `rate` while start <= t < end; no loss outside the windows.
    Windows {
        windows: Vec<(Time, Time, f64)>,
    },
}

#[derive(Clone, Debug)]
pub struct ErrorModel {
    pub kind: ErrorKind,
    pub class: PacketClass,
    /// Only this flow's packets are counted and hit (ns-2's ErrorModule
    /// with a Fid classifier); None: every packet of the class.
    pub flow: Option<FlowId>,
    /// What becomes of a packet the model picks.
    pub action: HitAction,
}

/// What an error model does to the packets it picks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HitAction {
    /// Lost at the far end of the link (`corrupts`).
    #[default]
    Drop,
    /// Delivered with its IP ECN field set to CE, ECN-capable or not (ns-2's
    /// ErrorModel with `markecn_ true`: ErrorModel::recv sets the flags
    /// header's ce() and passes the packet to its target).
    Mark,
    /// Not lost but held this long at the link's entry, decided as it is
    /// offered to the link (`holds`), not at the far end.
    Delay(Time),
}

impl Default for ErrorModel {
    fn default() -> Self {
        ErrorModel { kind: ErrorKind::None, class: PacketClass::All, flow: None, action: HitAction::Drop }
    }
}

/// What an error model does to a packet reaching the far end of its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Untouched.
    Intact,
    /// Hit by a marking model: delivered with CE set.
    Marked,
    /// Hit: lost to corruption.
    Corrupted,
}

impl ErrorModel {
    pub fn new(kind: ErrorKind, class: PacketClass) -> Self {
        let kind = match kind {
            ErrorKind::Pattern { mut drops, .. } => {
                drops.sort_unstable();
                drops.dedup();
                ErrorKind::Pattern { drops, next: 0, count: 0 }
            }
            k => k,
        };
        ErrorModel { kind, class, flow: None, action: HitAction::Drop }
    }

    /// The same model for the packets of `flow` only.
    pub fn for_flow(self, flow: Option<FlowId>) -> Self {
        ErrorModel { flow, ..self }
    }

    /// The same model doing `action` to the packets it picks.
    pub fn acting(self, action: HitAction) -> Self {
        ErrorModel { action, ..self }
    }

    pub fn is_none(&self) -> bool {
        matches!(self.kind, ErrorKind::None)
    }

    /// Whether the model acts on packets at the far end (it has a kind and
    /// does not delay).
    pub fn loses(&self) -> bool {
        !self.is_none() && !self.delays()
    }

    /// Whether the model holds the packets it picks (`HitAction::Delay`).
    pub fn delays(&self) -> bool {
        matches!(self.action, HitAction::Delay(_))
    }

    /// A delaying model and the packet offered to the link at `now`: how
    /// long it is held before it enters the link, if the model picks it.
    pub fn holds(&mut self, now: Time, wire_bytes: u32, payload: u32, flow: FlowId, rng: &mut Rng) -> Option<Time> {
        let HitAction::Delay(d) = self.action else { return None };
        self.corrupts(now, wire_bytes, payload, flow, rng).then_some(d)
    }

    /// The fate of the packet (of `wire_bytes` on the link, `payload` bytes of
    /// application data) arriving at `now`: a hit is `Corrupted`, or
    /// `Marked` for a marking model.
    pub fn arrival(&mut self, now: Time, wire_bytes: u32, payload: u32, flow: FlowId, rng: &mut Rng) -> Arrival {
        match self.corrupts(now, wire_bytes, payload, flow, rng) {
            false => Arrival::Intact,
            true if self.action == HitAction::Mark => Arrival::Marked,
            true => Arrival::Corrupted,
        }
    }

    /// Decide whether the packet (of `wire_bytes` on the link, `payload` bytes
    /// of application data, of flow `flow`) arriving at `now` is corrupted.
    pub fn corrupts(&mut self, now: Time, wire_bytes: u32, payload: u32, flow: FlowId, rng: &mut Rng) -> bool {
        if !self.class.matches(payload) || self.flow.is_some_and(|f| f != flow) {
            return false;
        }
        match &mut self.kind {
            ErrorKind::None => false,
            ErrorKind::Uniform { rate } => rng.chance(*rate),
            ErrorKind::BitErrorRate { ber } => {
                let bits = wire_bytes as f64 * 8.0;
                let p = 1.0 - (1.0 - *ber).powf(bits);
                rng.chance(p)
            }
            ErrorKind::GilbertElliott { p_good_bad, p_bad_good, loss_good, loss_bad, bad } => {
                let flip = if *bad { *p_bad_good } else { *p_good_bad };
                if rng.chance(flip) {
                    *bad = !*bad;
                }
                rng.chance(if *bad { *loss_bad } else { *loss_good })
            }
            ErrorKind::Pattern { drops, next, count } => {
                *count += 1;
                if *next < drops.len() && drops[*next] == *count {
                    *next += 1;
                    true
                } else {
                    false
                }
            }
            ErrorKind::Windows { windows } => {
                let rate = windows.iter().find(|(s, e, _)| now >= *s && now < *e).map(|w| w.2);
                match rate {
                    Some(r) => rng.chance(r),
                    None => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream_rng;

    fn loss_rate(m: &mut ErrorModel, n: u32, bytes: u32) -> f64 {
        let mut r = stream_rng(3, "t");
        (0..n).filter(|_| m.corrupts(0, bytes, bytes, 0, &mut r)).count() as f64 / n as f64
    }

    #[test]
    fn uniform_rate() {
        let mut m = ErrorModel::new(ErrorKind::Uniform { rate: 0.1 }, PacketClass::All);
        let r = loss_rate(&mut m, 200_000, 1000);
        assert!((r - 0.1).abs() < 0.003, "{r}");
    }

    #[test]
    fn ber_depends_on_size() {
        let ber = 1e-5;
        let mut m = ErrorModel::new(ErrorKind::BitErrorRate { ber }, PacketClass::All);
        let small = loss_rate(&mut m, 200_000, 40);
        let big = loss_rate(&mut m, 200_000, 1040);
        let expect_big = 1.0 - (1.0f64 - ber).powf(1040.0 * 8.0);
        assert!((big - expect_big).abs() < 0.004, "{big} vs {expect_big}");
        assert!(small < big / 10.0);
    }

    #[test]
    fn gilbert_elliott_stationary_loss() {
        // pi_bad = p_gb / (p_gb + p_bg) = 0.01 / 0.11
        let mut m = ErrorModel::new(
            ErrorKind::GilbertElliott { p_good_bad: 0.01, p_bad_good: 0.1, loss_good: 0.0, loss_bad: 0.5, bad: false },
            PacketClass::All,
        );
        let r = loss_rate(&mut m, 1_000_000, 100);
        let expect = 0.5 * 0.01 / 0.11;
        assert!((r - expect).abs() < 0.003, "{r} vs {expect}");
    }

    #[test]
    fn pattern_drops_exact_packets() {
        let mut m = ErrorModel::new(ErrorKind::Pattern { drops: vec![5, 2], next: 0, count: 0 }, PacketClass::Data);
        let mut r = stream_rng(1, "p");
        let mut dropped = vec![];
        let mut k = 0;
        for i in 1..=8u64 {
            // ACKs interleaved do not count for a Data-only pattern
            assert!(!m.corrupts(0, 40, 0, 0, &mut r));
            k += 1;
            if m.corrupts(0, 1040, 1000, 0, &mut r) {
                dropped.push(i);
            }
        }
        assert_eq!(k, 8);
        assert_eq!(dropped, vec![2, 5]);
    }

    #[test]
    fn a_delaying_pattern_holds_and_loses_nothing() {
        let m = ErrorModel::new(ErrorKind::Pattern { drops: vec![2], next: 0, count: 0 }, PacketClass::All);
        let mut m = m.acting(HitAction::Delay(50_000_000));
        assert!(!m.loses());
        let mut r = stream_rng(1, "d");
        let held: Vec<_> = (0..4).map(|_| m.holds(0, 1040, 1000, 0, &mut r)).collect();
        assert_eq!(held, vec![None, Some(50_000_000), None, None]);
    }

    #[test]
    fn marking_pattern_marks_instead_of_dropping() {
        // ns-2's ErrorModel with markecn_ true: the listed packets go on,
        // marked; the count is the same as a dropping model's.
        let mut m = ErrorModel::new(ErrorKind::Pattern { drops: vec![2, 4], next: 0, count: 0 }, PacketClass::All)
            .acting(HitAction::Mark);
        let mut r = stream_rng(1, "m");
        let fates: Vec<Arrival> = (0..5).map(|_| m.arrival(0, 1040, 1000, 0, &mut r)).collect();
        use Arrival::*;
        assert_eq!(fates, vec![Intact, Marked, Intact, Marked, Intact]);
        let mut d = ErrorModel::new(ErrorKind::Pattern { drops: vec![2], next: 0, count: 0 }, PacketClass::All);
        assert_eq!((0..2).map(|_| d.arrival(0, 1040, 1000, 0, &mut r)).last(), Some(Corrupted));
    }

    #[test]
    fn a_flow_model_counts_only_its_flow() {
        // ns-2's ErrorModule with a Fid classifier: the pattern counts and
        // hits flow 1's packets; flow 0's pass untouched and uncounted.
        let mut m = ErrorModel::new(ErrorKind::Pattern { drops: vec![2], next: 0, count: 0 }, PacketClass::All)
            .for_flow(Some(1));
        let mut r = stream_rng(1, "f");
        let hits: Vec<(u32, bool)> =
            [0, 1, 0, 0, 1, 1].iter().map(|&f| (f, m.corrupts(0, 1040, 1000, f, &mut r))).collect();
        assert_eq!(hits, vec![(0, false), (1, false), (0, false), (0, false), (1, true), (1, false)]);
    }

    #[test]
    fn windows_only_inside() {
        let s = 1_000_000_000;
        let mut m = ErrorModel::new(ErrorKind::Windows { windows: vec![(s, 2 * s, 1.0)] }, PacketClass::All);
        let mut r = stream_rng(1, "w");
        assert!(!m.corrupts(s - 1, 100, 100, 0, &mut r));
        assert!(m.corrupts(s, 100, 100, 0, &mut r));
        assert!(!m.corrupts(2 * s, 100, 100, 0, &mut r));
    }
}
