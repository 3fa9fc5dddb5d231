//! The radio's and the MAC's parameters with their defaults, kept in this
//! one place. PHY defaults are ns-2.35's (tcl/lib/ns-default.tcl and the
//! WaveLAN values its examples set); MAC defaults are 802.11b DSSS's, which
//! are also ns-2.35's Mac/802_11 timing and retry defaults. Not its rates:
//! ns-2.35 sends data at 1 Mbit/s unless told (tcl/lan/ns-mac.tcl sets
//! `dataRate_` and `basicRate_` to 1Mb), tcplab at 2 Mbit/s, the rate the
//! validation scripts give ns-2 (`Mac/802_11 set dataRate_ 2Mb`).

use crate::engine::time::{tx_time, Time, US};

/// Radio parameters (the scenario's `[wireless] phy` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhyParams {
    /// Transmit power Pt in watts. 0.28183815 W is the Lucent WaveLAN
    /// (24.5 dBm) that ns-2's examples use.
    pub tx_power_w: f64,
    /// Carrier frequency (914 MHz WaveLAN).
    pub frequency_hz: f64,
    /// Receive threshold RXThresh: 3.652e-10 W is the two-ray-ground power
    /// at 250 m with the defaults here.
    pub rx_threshold_w: f64,
    /// Carrier-sense threshold CSThresh: 1.559e-11 W, the power at 550 m.
    pub cs_threshold_w: f64,
    /// Capture: a frame survives an overlapping one this many dB weaker.
    pub capture_threshold_db: f64,
    /// Height of every antenna above the ground (two-ray ground).
    pub antenna_height_m: f64,
    /// System loss L (>= 1).
    pub system_loss: f64,
    /// Antenna gains Gt = Gr (not a scenario key: ns-2's omni antenna).
    pub antenna_gain: f64,
}

impl Default for PhyParams {
    fn default() -> Self {
        PhyParams {
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            rx_threshold_w: 3.652e-10,
            cs_threshold_w: 1.559e-11,
            capture_threshold_db: 10.0,
            antenna_height_m: 1.5,
            system_loss: 1.0,
            antenna_gain: 1.0,
        }
    }
}

impl PhyParams {
    /// The capture threshold as a power ratio.
    pub fn capture_ratio(&self) -> f64 {
        10f64.powf(self.capture_threshold_db / 10.0)
    }
}

/// MAC header + FCS of a data frame: the standard's three-address header
/// (24 bytes) and the 4-byte FCS (`MacParams::data_header`'s default).
pub const DATA_HDR: u32 = 28;
/// The same in ns-2.35: its header struct has a fourth address and the
/// sequence control, 30 bytes, plus the FCS (a data frame is 34 bytes
/// longer than its IP packet in ns-2's MAC trace, PLCP apart; the
/// `ns2` profile's `data_header`).
pub const NS2_DATA_HDR: u32 = 34;
/// ns-2.35's wait past a response's expected end: 2 x 2 us of maximum
/// propagation delay (the `ns2` profile's `timeout_slack`).
pub const NS2_TIMEOUT_SLACK: Time = 4 * US;
/// The DSSS PHY's lowest mandatory rate (1 Mbit/s; also the rate of its
/// PLCP preamble and header), the rate EIFS counts its ACK at.
pub const LOWEST_RATE_BPS: u64 = 1_000_000;
/// RTS: frame control, duration, RA, TA, FCS.
pub const RTS_LEN: u32 = 20;
/// CTS and ACK: frame control, duration, RA, FCS.
pub const CTS_LEN: u32 = 14;
pub const ACK_LEN: u32 = 14;

/// MAC timing and retry parameters (the scenario's `[wireless] mac` table,
/// plus the rates and the RTS threshold from `[wireless]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MacParams {
    pub cw_min: u32,
    pub cw_max: u32,
    pub slot: Time,
    pub sifs: Time,
    /// dot11ShortRetryLimit: attempts of a frame sent without RTS, and of an RTS.
    pub short_retry_limit: u32,
    /// dot11LongRetryLimit: attempts of a data frame sent after RTS/CTS.
    pub long_retry_limit: u32,
    /// Rate of data frames' MAC part (bit/s).
    pub data_rate_bps: u64,
    /// Rate of RTS, CTS, ACK and broadcast frames.
    pub basic_rate_bps: u64,
    /// Unicast data frames whose MAC frame is longer than this use RTS/CTS;
    /// None: never.
    pub rts_threshold: Option<u32>,
    /// PLCP preamble and header: 144 + 48 bits at 1 Mbit/s (long preamble).
    pub plcp: Time,
    /// MAC header and FCS of a data frame, in bytes (sent at the frame's
    /// rate with the IP packet).
    pub data_header: u32,
    /// How long past the expected end of a CTS or ACK a station waits
    /// before it counts the exchange failed. None: the standard's
    /// CTSTimeout and ACKTimeout instead (IEEE 802.11-2016 10.3.2.7,
    /// 10.3.2.9): SIFS + a slot + aRxPHYStartDelay (`plcp`) after the
    /// RTS or data frame, failed unless a frame has begun to arrive by
    /// then, whose end the verdict then waits for; ns-2.35 waits twice
    /// its maximum propagation delay past the answer's end, 4 us
    /// (`DSSS_MaxPropagationDelay` in check_pktRTS and check_pktTx).
    pub timeout_slack: Option<Time>,
    /// How long after a frame's energy reaches a station its clear-channel
    /// assessment reports the medium busy (aCCATime of the DSSS PHY, at
    /// most 15 us). A station whose backoff ends within this time of another
    /// station's frame reaching it cannot have noticed it and transmits too:
    /// "the same slot" of the slotted model.
    pub cca_time: Time,
    /// ns-2.35's reception rule instead of the issue's: a station receiving
    /// a frame (any frame above the carrier-sense threshold, even one too
    /// weak to decode, or one that began while it transmitted) decodes no
    /// frame that begins before it ends; the first survives a later one
    /// only if 10 dB stronger (Mac802_11::recv: capture or collision), and
    /// the later one is then forgotten: sensed, but locking the station
    /// against no frame after the first ends (Mac802_11::capture).
    pub ns2_reception: bool,
    /// ns-2.35's CTS rule instead of the standard's: the CTS is sent a SIFS
    /// after the RTS only if no frame is arriving then, the NAV is clear,
    /// and no EIFS runs (ns-2 keeps EIFS as a NAV), and is withheld
    /// otherwise (check_pktCTRL, is_idle).
    pub ns2_cts: bool,
    /// ns-2.35's wait after its CTS: the station stays busy until the data
    /// it cleared arrives or the time that data needs has passed (the CTS,
    /// twice the 2 us maximum propagation delay, SIFS and the data frame,
    /// from the CTS's start: ns-2's MAC_CTS state and its send timer), and
    /// meanwhile refuses every RTS (recvRTS, DROP_MAC_BUSY) and does not
    /// count down its own backoff (is_idle). The standard's station answers
    /// the next RTS as soon as its CTS is sent.
    pub ns2_cts_wait: bool,
    /// ns-2.35's EIFS instead of the standard's: after a frame sensed but
    /// not decoded the medium counts as busy for EIFS (a NAV in ns-2), and
    /// the deferral then starts with a DIFS, so the station waits EIFS +
    /// DIFS before its backoff counts where the standard waits EIFS
    /// (Mac802_11::recv_timer and capture set the NAV; navHandler resumes
    /// the backoff with a DIFS).
    pub ns2_eifs: bool,
    /// ns-2.35's backoff instead of the standard's: counts are drawn from
    /// [0, CW - 1] (`Random::random() % cw_`), and a frame handed to a MAC
    /// that finds the medium idle waits DIFS plus a random backoff instead
    /// of going at once (`bugFix_timer_`, on in ns-2.35's defaults:
    /// Mac802_11::send starts the backoff timer with a DIFS).
    pub ns2_backoff: bool,
    /// ns-2.35's ARP before a unicast frame to a neighbour not yet resolved
    /// (wireless/arp.rs).
    pub ns2_arp: bool,
}

impl Default for MacParams {
    fn default() -> Self {
        MacParams {
            cw_min: 31,
            cw_max: 1023,
            slot: 20 * US,
            sifs: 10 * US,
            short_retry_limit: 7,
            long_retry_limit: 4,
            data_rate_bps: 2_000_000,
            basic_rate_bps: 1_000_000,
            rts_threshold: Some(0),
            plcp: 192 * US,
            data_header: DATA_HDR,
            timeout_slack: None,
            cca_time: 15 * US,
            ns2_reception: false,
            ns2_cts: false,
            ns2_cts_wait: false,
            ns2_eifs: false,
            ns2_backoff: false,
            ns2_arp: false,
        }
    }
}

impl MacParams {
    /// DIFS = SIFS + 2 slots.
    pub fn difs(&self) -> Time {
        self.sifs + 2 * self.slot
    }

    /// EIFS = SIFS + AckTxTime + DIFS: after a frame that could not be
    /// decoded the station leaves room for its ACK. AckTxTime is the ACK
    /// at the PHY's lowest mandatory rate (IEEE 802.11-2016 10.3.2.3.7;
    /// ns-2.35's getEIFS, at PLCPDataRate_), 304 us for DSSS, not at the
    /// basic rate: the station cannot know the rate the ACK it makes room
    /// for will go at. (Until 2026-12-07 the basic rate: 308 us at 2 Mbit/s.)
    pub fn eifs(&self) -> Time {
        self.sifs + self.plcp + tx_time(ACK_LEN as u64, LOWEST_RATE_BPS) + self.difs()
    }

    /// Airtime of a control frame of `len` bytes (basic rate).
    pub fn ctrl_air(&self, len: u32) -> Time {
        self.plcp + tx_time(len as u64, self.basic_rate_bps)
    }

    /// Airtime of a data frame carrying an IP packet of `size` bytes.
    pub fn data_air(&self, size: u32, broadcast: bool) -> Time {
        let rate = if broadcast { self.basic_rate_bps } else { self.data_rate_bps };
        self.plcp + tx_time((self.data_header + size) as u64, rate)
    }

    /// Whether a unicast data frame for an IP packet of `size` bytes is
    /// preceded by RTS/CTS.
    pub fn uses_rts(&self, size: u32) -> bool {
        self.rts_threshold.is_some_and(|t| self.data_header + size > t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn airtimes() {
        let m = MacParams::default();
        assert_eq!(m.ctrl_air(ACK_LEN), 304 * US);
        assert_eq!(m.ctrl_air(RTS_LEN), 352 * US);
        assert_eq!(m.difs(), 50 * US);
        assert_eq!(m.eifs(), 364 * US);
        // 1500-byte IP packet at 2 Mbit/s: 192 us + 1528 * 4 us
        assert_eq!(m.data_air(1500, false), 192 * US + 6112 * US);
    }

    /// EIFS counts its ACK at the PHY's lowest mandatory rate, 1 Mbit/s
    /// for DSSS (IEEE 802.11-2016 10.3.2.3.7, AckTxTime; ns-2.35's
    /// getEIFS, at PLCPDataRate_), not at the basic rate the ACKs are
    /// sent at: 364 us whatever the basic rate. ACKs themselves go at the
    /// basic rate.
    #[test]
    fn eifs_counts_the_ack_at_the_lowest_mandatory_rate() {
        for basic in [1_000_000, 2_000_000, 5_500_000, 11_000_000] {
            let m = MacParams { basic_rate_bps: basic, ..MacParams::default() };
            assert_eq!(m.eifs(), 364 * US, "basic rate {basic}");
            assert_eq!(m.ctrl_air(ACK_LEN), 192 * US + tx_time(ACK_LEN as u64, basic));
        }
    }
}
