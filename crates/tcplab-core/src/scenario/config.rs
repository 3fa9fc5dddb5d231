//! Scenario files as serde structs: the single source of truth for every key
//! a scenario may contain. Unknown keys are rejected everywhere. Defaults that
//! depend on the TCP profile (packet size, window, timers) are `Option`s here
//! and resolved in `build` from `transport::tcp::TcpConfig::profile`.

use super::tagged::{tagged, tagged_opt};
use super::units::{Dur, Rate};
use serde::Deserialize;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioCfg {
    pub sim: SimCfg,
    /// TCP options applied to every TCP flow (a flow's own `tcp` table wins).
    #[serde(default)]
    pub tcp: TcpOptions,
    /// The shared 802.11 radio channel of the nodes that have a position.
    #[serde(default)]
    pub wireless: Option<WirelessCfg>,
    #[serde(default)]
    pub node: Vec<NodeCfg>,
    #[serde(default)]
    pub link: Vec<LinkCfg>,
    #[serde(default)]
    pub flow: Vec<FlowCfg>,
    #[serde(default)]
    pub output: OutputCfg,
    /// Packet captures (libpcap files).
    #[serde(default)]
    pub pcap: Vec<PcapCfg>,
}

/// A capture point: `link` (index) with `direction`, or `node`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapCfg {
    pub link: Option<u32>,
    /// "forward" (default) or "reverse".
    pub direction: Option<PcapDirection>,
    pub node: Option<String>,
    /// File name without ".pcap" (default "link3-forward" or "node-bs").
    pub name: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimCfg {
    /// Simulated time to run.
    pub duration: Dur,
    /// Run seed; every random stream is derived from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Default set for TCP parameters and algorithms: "ns2" (ns-2.35's
    /// values and algorithms), "rfc" (ns-2.35's values, the RFCs'
    /// algorithms) or "linux".
    #[serde(default)]
    pub tcp_profile: ProfileName,
}

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ProfileName {
    #[default]
    Ns2,
    Rfc,
    Linux,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeCfg {
    pub name: String,
    /// Run a Snoop agent: cache and locally retransmit the segments of the
    /// TCP connections this node forwards (a base station).
    #[serde(default)]
    pub snoop: bool,
    /// Position in metres; a node with a position has an 802.11 device on
    /// the `[wireless]` channel.
    #[serde(default, deserialize_with = "position")]
    pub position: Option<[f64; 2]>,
    /// Movement commands, each `[time s, x m, y m, speed m/s]`: at that
    /// time the node heads for (x, y) at that speed from wherever it is
    /// (ns-2's setdest; speed 0 stops it).
    #[serde(default, deserialize_with = "waypoints")]
    pub waypoints: Option<Vec<[f64; 4]>>,
    /// Wired-cum-wireless: the base station (a node with a position and
    /// [[link]]s) through which this station reaches every node outside
    /// its cell (ns-2's `base-station`).
    pub base_station: Option<String>,
    /// Probability that a frame this station would decode is corrupted
    /// instead (ns-2's incoming error model, unit packet): discarded as
    /// undecodable, followed by EIFS (default 0).
    pub frame_error_rate: Option<f64>,
}

/// `[x, y]`: a list of any other length is refused by its length (serde's
/// own message for a fixed-size array, "trailing characters" or "invalid
/// length", does not say what was expected).
fn position<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[f64; 2]>, D::Error> {
    let v = Vec::<f64>::deserialize(d)?;
    match v[..] {
        [x, y] => Ok(Some([x, y])),
        _ => Err(serde::de::Error::custom(format!(
            "must be [x, y] in metres (the plane has two coordinates), got {} number{}",
            v.len(),
            if v.len() == 1 { "" } else { "s" }
        ))),
    }
}

/// A fixed-length array, read as a list so that a list of another length
/// is refused by its length and with what the key holds (serde's own
/// messages for `[T; N]`, "trailing characters" or "invalid length 3,
/// expected fewer elements in array", say neither). Errors inside an
/// element keep their path (`link[0].between[1]: ...`).
fn exact<'de, D, T, const N: usize>(d: D, what: &str) -> Result<[T; N], D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    let v = Vec::<T>::deserialize(d)?;
    let n = v.len();
    v.try_into().map_err(|_| {
        serde::de::Error::custom(format!("must be {what}, got {n} value{}", if n == 1 { "" } else { "s" }))
    })
}

/// One `waypoints` command.
struct Waypoint([f64; 4]);

impl<'de> Deserialize<'de> for Waypoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        exact(d, "[time s, x m, y m, speed m/s]").map(Waypoint)
    }
}

fn waypoints<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<[f64; 4]>>, D::Error> {
    Ok(Some(Vec::<Waypoint>::deserialize(d)?.into_iter().map(|w| w.0).collect()))
}

fn area<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    exact(d, "[width, height] in metres")
}

fn speed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[f64; 2], D::Error> {
    exact(d, "[min, max] in m/s")
}

fn between<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[String; 2], D::Error> {
    exact(d, "[a, b], two node names")
}

fn thinning_thresholds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[u64; 3]>, D::Error> {
    exact(d, "[d2, d3, d4], three segment numbers").map(Some)
}

/// `[wireless]`: the radio channel, its PHY and MAC (defaults: ns-2.35's
/// WaveLAN and 802.11 DSSS values, `wireless::params`).
#[derive(Clone, Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct WirelessCfg {
    #[serde(default)]
    pub propagation: PropagationName,
    /// Rate of data frames: 1, 2, 5.5 or 11 Mbit/s (default 2 Mbit/s).
    pub data_rate: Option<super::units::Rate>,
    /// Rate of RTS, CTS, ACK and broadcast frames (default 1 Mbit/s).
    pub basic_rate: Option<super::units::Rate>,
    /// Bytes; MAC frames longer than this use RTS/CTS; "off" disables.
    /// Default 0 (ns-2.35's RTSThreshold_: every unicast data frame).
    pub rts_threshold: Option<RtsThresholdCfg>,
    #[serde(default)]
    pub routing: WirelessRouting,
    /// Defaults of the switches that reproduce ns-2.35's algorithms
    /// (docs/models.md): "standard" (the rules, the standards and
    /// RFCs) or "ns2"; keys set explicitly win either way.
    #[serde(default)]
    pub profile: WirelessProfile,
    pub ifq: Option<IfqCfg>,
    pub phy: Option<PhyCfg>,
    pub mac: Option<MacCfg>,
    pub shadowing: Option<ShadowingCfg>,
    /// `[wireless.aodv]`: AODV's parameters (routing = "aodv").
    pub aodv: Option<AodvCfg>,
    /// `[wireless.dsdv]`: DSDV's parameters (routing = "dsdv").
    pub dsdv: Option<DsdvCfg>,
    /// `[wireless.dsr]`: DSR's parameters (routing = "dsr").
    pub dsr: Option<DsrCfg>,
    /// `[wireless.olsr]`: OLSR's parameters (routing = "olsr").
    pub olsr: Option<OlsrCfg>,
    /// `[wireless.mobility]`: stations moving by random waypoint.
    pub mobility: Option<MobilityCfg>,
    /// An ns-2 movement file: read by the Python layer into the nodes'
    /// `position` and `waypoints`, so refused here (named, so that a
    /// misspelt key's list of allowed keys shows it).
    pub setdest: Option<String>,
}

/// `[wireless.mobility]`: random waypoint (Broch et al. 1998; ns-2's
/// setdest) for the stations named in `nodes` (default: every station
/// without `waypoints` of its own).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MobilityCfg {
    pub model: MobilityModel,
    /// `[width, height]` in metres: destinations are drawn in
    /// [0, width] x [0, height].
    #[serde(deserialize_with = "area")]
    pub area: [f64; 2],
    /// `[min, max]` speed in m/s, drawn uniformly per leg.
    #[serde(deserialize_with = "speed")]
    pub speed: [f64; 2],
    /// Pause before each leg (default 0 s).
    pub pause: Option<Dur>,
    pub nodes: Option<Vec<String>>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MobilityModel {
    RandomWaypoint,
}

/// `[wireless.olsr]` (defaults: RFC 3626).
#[derive(Clone, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OlsrCfg {
    /// HELLO every this long (default 2 s); neighbour hold time 3 x.
    pub hello_interval: Option<Dur>,
    /// TC every this long (default 5 s); topology hold time 3 x.
    pub tc_interval: Option<Dur>,
    pub buffer_len: Option<u32>,
    pub buffer_timeout: Option<Dur>,
    /// Every node's willingness to relay, 0 (WILL_NEVER) .. 7 (WILL_ALWAYS)
    /// (default 3, WILL_DEFAULT).
    pub willingness: Option<u32>,
    /// Per-node willingness over `willingness`: node name -> 0 .. 7.
    pub node_willingness: Option<std::collections::BTreeMap<String, u32>>,
    /// Link hysteresis, RFC 3626 14 (default false, as ns-3).
    pub hysteresis: Option<bool>,
    /// HYST_THRESHOLD_HIGH (0.8), HYST_THRESHOLD_LOW (0.3), HYST_SCALING (0.5).
    pub hyst_threshold_high: Option<f64>,
    pub hyst_threshold_low: Option<f64>,
    pub hyst_scaling: Option<f64>,
}

/// `[wireless.dsr]` (defaults: ns-2.35's DSR).
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DsrCfg {
    /// Longest source route in nodes (default 16, ns-2.35's MAX_SR_LEN).
    pub max_route_len: Option<u32>,
    pub buffer_len: Option<u32>,
    pub buffer_timeout: Option<Dur>,
    /// Times a data packet may be salvaged after a link failure (default
    /// 15, RFC 4728's MAX_SALVAGE_COUNT; 0 turns salvaging off).
    pub max_salvage_count: Option<u32>,
    /// Route shortening by gratuitous replies (default true, as ns-2.35).
    pub gratuitous_replies: Option<bool>,
    /// Hold-off between gratuitous replies for one (source, transmitter)
    /// (default 1 s, RFC 4728's GRAT_REPLY_HOLDOFF).
    pub grat_reply_holdoff: Option<Dur>,
    /// After a link failure, own packets without another route wait for a
    /// new discovery (default true, as ns-2.35) instead of being dropped.
    pub rebuffer_own: Option<bool>,
    /// Wait for the answer to the non-propagating request (30 ms).
    pub nonprop_timeout: Option<Dur>,
    /// First wait between propagating requests (0.5 s), doubled up to
    /// `max_request_period` (10 s).
    pub request_period: Option<Dur>,
    pub max_request_period: Option<Dur>,
    /// ns-2.35's request schedule (BackOffTest: cycles 0.5, 2, 8 s apart,
    /// each a non-propagating then a propagating request); default false.
    pub ns2_request_backoff: Option<bool>,
    /// Flow state as ns-2.35's DSR: after a flow's first packets, data
    /// packets carry a flow ID (or nothing) instead of the source route;
    /// default false.
    pub flow_state: Option<bool>,
    /// Time between the packets a route reply releases from the send
    /// buffer (default "0s", all at once; ns-2.35: 30 ms).
    pub release_spacing: Option<Dur>,
    /// ns-2.35's NEW_SALVAGE_LOGIC: a forwarder keeps a packet it cannot
    /// salvage and sends a non-propagating request for it; default false.
    pub salvage_discovery: Option<bool>,
    /// ns-2.35's cache learning (forward parts only, overheard routes,
    /// overheard route errors, errors one way); default false.
    pub ns2_cache: Option<bool>,
    /// ns-2.35's gratuitous route errors: a source's next requests carry
    /// the last route error it received; default false.
    pub grat_route_errors: Option<bool>,
    /// ns-2.35's send-buffer checks, every `buffer_check` + U(0,
    /// `buffer_check`): due discovery steps wait for one (default "0s":
    /// taken when due; ns-2.35: 30 ms).
    pub buffer_check: Option<Dur>,
    /// ns-2.35's jitter of a node's own requests and a target's replies;
    /// default false.
    pub jitter_own: Option<bool>,
    /// ns-2.35's size accounting: TCP packets a node originates carry 20
    /// more bytes (its second IP header); default false.
    pub ns2_ip_header: Option<bool>,
    /// ns-2.35's size of a forwarded route request: each forwarder adds
    /// the whole DSR header again; default false.
    pub ns2_request_size: Option<bool>,
    /// ns-2.35's size of a route reply (`hdr_sr::size()`); default false
    /// (RFC 4728's).
    pub ns2_reply_size: Option<bool>,
    /// ns-2.35's target answers every copy of a route request, not only
    /// the first; default false.
    pub reply_to_every_copy: Option<bool>,
}

/// `[wireless.dsdv]` (defaults: ns-2.35's dsdv.cc, except MAC failures).
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DsdvCfg {
    /// Full dumps every this long (default 15 s, each drawn in [0.75, 1] of it).
    pub periodic_update_interval: Option<Dur>,
    /// Periodic intervals without news before a neighbour is gone (3).
    pub min_update_periods: Option<u32>,
    /// A MAC retry-limit failure breaks the link (default true; ns-2.35: false).
    pub use_mac_failures: Option<bool>,
    /// Settling time before one is measured (6 s).
    pub initial_settling_time: Option<Dur>,
    pub buffer_len: Option<u32>,
    pub buffer_timeout: Option<Dur>,
    /// The first full dump within this time of the start (2 s, ns-2.35's
    /// DSDV_STARTUP_JITTER).
    pub startup_jitter: Option<Dur>,
    /// ns-2.35's advertising rule: every changed route held back 2 x its
    /// settling time, even from full dumps (default false).
    pub ns2_advertising: Option<bool>,
    /// ns-2.35's size accounting: TCP packets a node originates carry 20
    /// more bytes (its second IP header); default false.
    pub ns2_ip_header: Option<bool>,
    /// ns-2.35's queue for packets without a route: five per destination,
    /// the oldest dropped, no timeout (instead of buffer_len and
    /// buffer_timeout); default false.
    pub ns2_queue: Option<bool>,
    /// Wired-cum-wireless: ns-2.35's forwarding of a packet for another
    /// cell: straight to it if DSDV knows a route, else to the base
    /// station, dropped if that has no route (default false: always
    /// through the base station, held while its route is missing).
    pub ns2_gateway: Option<bool>,
}

/// `[wireless.aodv]` (defaults: ns-2.35's aodv.h and aodv_rqueue.h).
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AodvCfg {
    /// Hops a network-wide route request may travel (default 30 as ns-2.35
    /// hard-codes; the multihop study sets 64 for chains beyond 30 hops).
    pub net_diameter: Option<u32>,
    pub active_route_timeout: Option<Dur>,
    pub my_route_timeout: Option<Dur>,
    pub node_traversal_time: Option<Dur>,
    pub rreq_retries: Option<u32>,
    pub ttl_start: Option<u32>,
    pub ttl_increment: Option<u32>,
    pub ttl_threshold: Option<u32>,
    /// Packets waiting for a route (default 64) and their longest wait (30 s).
    pub buffer_len: Option<u32>,
    pub buffer_timeout: Option<Dur>,
    /// Broadcast jitter bound (default 10 ms).
    pub jitter: Option<Dur>,
    /// HELLO messages (default off, as ns-2.35) and their interval (1 s).
    pub hello: Option<bool>,
    pub hello_interval: Option<Dur>,
    /// Expanding ring for destinations never reached (default true, RFC
    /// 3561; false: network-wide at once, as ns-2.35 in effect).
    pub new_destination_ring: Option<bool>,
    /// No new discovery for a destination this long after one gave up
    /// (default 0: none, RFC 3561; ns-2.35: 10 s, its MAX_RREQ_TIMEOUT).
    pub discovery_hold_down: Option<Dur>,
    /// Local repair of a route broken near its destination (RFC 3561
    /// 6.12; default false as the issue asks; ns-2.35 has it on).
    pub local_repair: Option<bool>,
    /// ns-2.35's wait for a request's answer, by the last discoveries'
    /// latency per hop (PerHopTime); default false.
    pub ns2_per_hop_time: Option<bool>,
    /// Repeat requests only at route-table purges this far apart (and
    /// with new packets), as ns-2.35 (0.5 s); default "0s": when due.
    pub retry_ticks: Option<Dur>,
    /// With local_repair: ns-2.35's local repair as its code does it
    /// (route kept as it was, no route error, timer by the absolute
    /// deadline); default false.
    pub ns2_local_repair: Option<bool>,
    /// ns-2.35's route errors: one on every break that brings a route
    /// down, precursors or not; a received one obeyed only if not older
    /// than the route, and it empties the queue for its sender; a reply
    /// passed on gives the route back to its originator no precursor;
    /// default false.
    pub ns2_route_errors: Option<bool>,
    /// Time between the packets a route reply frees from the buffer
    /// (default "0s": all at once; ns-2.35: 10 ms, its ARP_DELAY).
    pub release_spacing: Option<Dur>,
    /// ns-2.35's route lifetimes: forwarding extends only the
    /// destination's route; a lapsed route serves until the next purge,
    /// which brings it down with its sequence number raised; replies set
    /// lifetimes, in whole seconds from intermediate nodes; default false.
    pub ns2_lifetimes: Option<bool>,
    /// ns-2.35's TTL for data: net_diameter at the source instead of 64;
    /// default false.
    pub ns2_data_ttl: Option<bool>,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PropagationName {
    FreeSpace,
    #[default]
    TwoRayGround,
    Shadowing,
}

/// `[wireless] profile`.
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WirelessProfile {
    #[default]
    Standard,
    /// ns-2.35's MAC rules (`ns2_reception`, `ns2_cts`), AODV without a
    /// ring search for new destinations, with a 10 s hold-down and local
    /// repair, DSDV without MAC failures and with ns-2's advertising,
    /// DSR's request schedule.
    Ns2,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WirelessRouting {
    /// Shortest hop paths over the radio graph (nodes within receive range).
    #[default]
    Static,
    /// AODV (RFC 3561), `[wireless.aodv]`.
    Aodv,
    /// DSDV (Perkins & Bhagwat), `[wireless.dsdv]`.
    Dsdv,
    /// DSR (RFC 4728), `[wireless.dsr]`.
    Dsr,
    /// OLSR (RFC 3626), `[wireless.olsr]`.
    Olsr,
}

/// A byte count or a word ("off"); checked in validation.
#[derive(Clone, Debug, PartialEq)]
pub enum RtsThresholdCfg {
    Bytes(f64),
    Word(String),
}

/// By hand, not `#[serde(untagged)]`: serde's message for a value of
/// neither form names the Rust type ("data did not match any variant of
/// untagged enum RtsThresholdCfg").
impl<'de> Deserialize<'de> for RtsThresholdCfg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::Number(n) => Ok(RtsThresholdCfg::Bytes(n.as_f64().unwrap_or(f64::NAN))),
            serde_json::Value::String(s) => Ok(RtsThresholdCfg::Word(s)),
            v => Err(serde::de::Error::custom(format!("must be a whole number of bytes >= 0 or \"off\", got {v}"))),
        }
    }
}

/// `[wireless] ifq`: the interface queue. Every key may be left out: the
/// kind then is the scenario's default (PriQueue; CMUPriQueue for DSR under
/// the ns2 profile), so `ifq.limit = 10` alone changes only the limit.
#[derive(Clone, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IfqCfg {
    pub kind: Option<IfqName>,
    pub limit: Option<u32>,
    /// PriQueue only: counted as ns-2.35 does.
    pub ns2_limits: Option<bool>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub enum IfqName {
    /// ns-2's PriQueue: a drop-tail queue whose control packets (routing
    /// messages) go to the head.
    Priqueue,
    /// ns-2's CMUPriQueue (what its DSR requires): strict-priority bands
    /// for routing messages, TCP ACKs and the rest, each `limit` long.
    Cmupriqueue,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PhyCfg {
    pub tx_power_w: Option<f64>,
    pub frequency_hz: Option<f64>,
    pub rx_threshold_w: Option<f64>,
    pub cs_threshold_w: Option<f64>,
    pub capture_threshold_db: Option<f64>,
    pub antenna_height_m: Option<f64>,
    pub system_loss: Option<f64>,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MacCfg {
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    pub slot: Option<Dur>,
    pub sifs: Option<Dur>,
    pub short_retry_limit: Option<u32>,
    pub long_retry_limit: Option<u32>,
    /// ns-2.35's reception: lock onto the first frame sensed (docs/models.md).
    pub ns2_reception: Option<bool>,
    /// ns-2.35's CTS: sent only on an idle medium a SIFS after the RTS.
    pub ns2_cts: Option<bool>,
    /// ns-2.35's wait after a CTS: busy (RTSs refused, backoff frozen)
    /// until the cleared data arrives or its time has passed.
    pub ns2_cts_wait: Option<bool>,
    /// ns-2.35's EIFS: a NAV, followed by a DIFS.
    pub ns2_eifs: Option<bool>,
    /// ns-2.35's backoff: drawn from [0, CW - 1], and taken even by a frame
    /// that finds the medium idle.
    pub ns2_backoff: Option<bool>,
    /// ns-2.35's ARP: a next hop's address resolved the first time a
    /// unicast frame goes to it.
    pub ns2_arp: Option<bool>,
    /// Clear-channel assessment delay (aCCATime): 15 us, 0 in ns-2.35.
    pub cca_time: Option<Dur>,
    /// MAC header and FCS of a data frame in bytes: 28 (three addresses),
    /// 34 in ns-2.35.
    pub data_header: Option<u32>,
    /// Wait past a CTS's or ACK's expected end before a retry: a slot
    /// ("20us"), 4 us in ns-2.35.
    pub timeout_slack: Option<Dur>,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ShadowingCfg {
    /// Path-loss exponent beta (default 2.0, ns-2's pathlossExp_).
    pub path_loss_exponent: Option<f64>,
    /// Standard deviation of the shadowing term in dB (default 4.0).
    pub sigma_db: Option<f64>,
    /// Reference distance d0 in metres (default 1.0).
    pub reference_distance: Option<f64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkCfg {
    /// The two node names; "forward" is between[0] -> between[1].
    #[serde(deserialize_with = "between")]
    pub between: [String; 2],
    pub rate: Rate,
    pub delay: Dur,
    /// Queue of each direction (default: DropTail of 50 packets, as ns-2).
    #[serde(default, deserialize_with = "tagged_opt")]
    pub queue: Option<QueueCfg>,
    #[serde(default, deserialize_with = "tagged_opt")]
    pub error: Option<ErrorCfg>,
    /// Per-packet link-layer framing: "none" (default) or "ppp" (8 bytes).
    #[serde(default)]
    pub framing: Framing,
    /// Overrides for the forward direction only.
    #[serde(default)]
    pub forward: Option<DirCfg>,
    /// Overrides for the reverse direction only.
    #[serde(default)]
    pub reverse: Option<DirCfg>,
}

#[derive(Clone, Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DirCfg {
    pub rate: Option<Rate>,
    pub delay: Option<Dur>,
    #[serde(default, deserialize_with = "tagged_opt")]
    pub queue: Option<QueueCfg>,
    /// This direction's own error model, in place of the link's `error`
    /// (SPEC: each direction has its own; the link's `error` with its
    /// `direction` key is the shorthand for one model on one or both).
    #[serde(default, deserialize_with = "tagged_opt")]
    pub error: Option<ErrorCfg>,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Framing {
    #[default]
    None,
    /// PPP in HDLC-like framing (RFC 1662): flag, address, control,
    /// 2-byte protocol, 2-byte FCS, flag = 8 bytes per packet.
    Ppp,
}

impl Framing {
    pub fn bytes(self) -> u32 {
        match self {
            Framing::None => 0,
            Framing::Ppp => 8,
        }
    }
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum QueueCfg {
    /// Limit in packets (`limit`) and/or bytes (`limit_bytes`); with neither,
    /// 50 packets.
    Droptail { limit: Option<u32>, limit_bytes: Option<u64> },
    /// No limit at all.
    Unlimited {},
    /// RED (Floyd & Jacobson 1993); thresholds in packets, or bytes with
    /// `byte_mode`. Other defaults as ns-2.35 (max_p 0.1, gentle, limit 50,
    /// mean_pktsize 500) except weight 0.002 (the RED paper's; ns-2
    /// derives it from the link rate).
    Red {
        min_th: f64,
        max_th: f64,
        #[serde(default = "red_max_p")]
        max_p: f64,
        #[serde(default = "red_weight")]
        weight: f64,
        #[serde(default = "yes")]
        gentle: bool,
        #[serde(default)]
        byte_mode: bool,
        /// The queue measured in bytes (ns-2's queue_in_bytes_): its
        /// average, thresholds and short-queue test, and when set
        /// explicitly true its hard limit (`limit` x `mean_pktsize`
        /// bytes). Default: as `byte_mode` (whose limit stays in packets);
        /// false with `byte_mode` is ns-2's bytes_ true with
        /// queue_in_bytes_ false (its modify_p() spacing in bytes).
        #[serde(default)]
        queue_in_bytes: Option<bool>,
        /// Mark ECN-capable packets (CE) instead of dropping them early.
        #[serde(default)]
        ecn: bool,
        #[serde(default = "red_limit")]
        limit: u32,
        #[serde(default = "red_mean_pktsize")]
        mean_pktsize: u32,
        /// ns-2's wait_: no early drop while count * p_b < 1.
        #[serde(default = "yes")]
        wait: bool,
        /// No early drop while at most one packet waits (ns-2's REDQueue).
        /// Default: the profile's (ns2 and linux on, rfc off).
        #[serde(default)]
        spare_short_queue: Option<bool>,
        /// The first arrival after the average crosses min_th only starts
        /// the count, without the drop test (ns-2's REDQueue). Default: the
        /// profile's (ns2 and linux on, rfc off).
        #[serde(default)]
        spare_first_crossing: Option<bool>,
        /// An early drop of an ECN-capable packet is a mark only while p_b
        /// is below this (ns-2.35's mark_p_). Default: the profile's (ns2
        /// and linux 0.1, as ns-2.35; rfc none: a mark below max_th).
        #[serde(default)]
        mark_p: Option<f64>,
        /// ns-2.35's use_mark_p_. Unset: the profile's rule (ns2 and linux
        /// `mark_p`, rfc a mark below max_th). false: ns-2's use_mark_p_
        /// false, every early hit on an ECN-capable packet is a mark and an
        /// average at or past max_th (2 max_th when gentle) a forced drop;
        /// refused with `mark_p`. true: `mark_p` (default 0.1) in every
        /// profile.
        #[serde(default)]
        use_mark_p: Option<bool>,
        /// A drop because the queue is full restarts the count since the
        /// last early drop (ns-2's REDQueue, ns1_compat_ false). Default:
        /// the profile's (ns2 and linux on, rfc off).
        #[serde(default)]
        overflow_resets_count: Option<bool>,
        /// Where the early drops' numbers come from: "tcplab" (the link's
        /// own stream) or "ns2" (ns-2.35's default generator, to reproduce
        /// an ns-2 run's decisions).
        #[serde(default)]
        generator: Option<RedGenerator>,
        /// With generator "ns2": the draws ns-2's other objects took from
        /// its generator before RED's first (two per TCP agent).
        #[serde(default)]
        generator_skip: Option<u64>,
        /// The packet a forced drop takes: "tail" (the arrival, ns-2's
        /// default), "front" or "random" (ns-2's drop_front_, drop_rand_).
        #[serde(default)]
        victim: Option<RedVictimName>,
    },
    /// Drop one arrival above `soft` packets, then one more only after
    /// `hold` if the queue has not shrunk; drop all arrivals at `hard`.
    DualThreshold {
        soft: u32,
        hard: u32,
        #[serde(default = "dual_hold")]
        hold: Dur,
    },
    /// Deficit round robin as ns-2.35's Queue/DRR: `buckets` classes by a
    /// hash of the source address (or of the flow, `classify = "flow"`),
    /// `quantum` bytes a round, one byte limit `blimit` over all, overflow
    /// dropped from the head of the bucket holding the most bytes.
    /// Defaults ns-2.35's (10, 250, 25000, mask false).
    Drr {
        #[serde(default = "drr_buckets")]
        buckets: u32,
        #[serde(default = "drr_quantum")]
        quantum: u32,
        #[serde(default = "drr_blimit")]
        blimit: u64,
        /// Hash only the source address & 0xfff0 (ns-2's mask_ 1).
        #[serde(default)]
        mask: bool,
        #[serde(default)]
        classify: DrrClassifyName,
    },
    /// Linux's codel: one FIFO under CoDel (RFC 8289), tail drop at
    /// `limit` packets. Defaults Linux's (limit 1000, target 5 ms,
    /// interval 100 ms, ecn off, mtu 1514).
    Codel {
        #[serde(default = "codel_limit")]
        limit: u32,
        #[serde(default = "codel_target")]
        target: Dur,
        #[serde(default = "codel_interval")]
        interval: Dur,
        #[serde(default)]
        ecn: bool,
        #[serde(default = "codel_mtu")]
        mtu: u32,
    },
    /// Linux's fq_codel (RFC 8290): flows hashed into `flows` queues each
    /// under CoDel, deficit round robin of `quantum` bytes with new flows
    /// first, the fattest flow's head dropped in a batch at `limit`
    /// packets. Defaults Linux's (1024 flows, limit 10240, quantum 1514,
    /// target 5 ms, interval 100 ms, ecn on, drop_batch 64, mtu 1514).
    #[serde(alias = "fq_codel")]
    FqCodel {
        #[serde(default = "fq_codel_flows")]
        flows: u32,
        #[serde(default = "fq_codel_limit")]
        limit: u32,
        #[serde(default = "codel_mtu")]
        quantum: u32,
        #[serde(default = "codel_target")]
        target: Dur,
        #[serde(default = "codel_interval")]
        interval: Dur,
        #[serde(default = "yes")]
        ecn: bool,
        #[serde(default = "fq_codel_drop_batch")]
        drop_batch: u32,
        #[serde(default = "codel_mtu")]
        mtu: u32,
    },
}

/// `queue.classify` of a DRR queue.
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DrrClassifyName {
    /// ns-2's hash of the source address.
    #[default]
    Source,
    /// A hash of addresses, protocol and ports.
    Flow,
}

// DRR's defaults: ns-2.35's tcl/lib/ns-default.tcl (Queue/DRR).
fn drr_buckets() -> u32 {
    10
}
fn drr_quantum() -> u32 {
    250
}
fn drr_blimit() -> u64 {
    25_000
}
// CoDel's and FQ-CoDel's: Linux's codel_params_init(), sch_codel and
// sch_fq_codel's init (quantum and mtu: psched_mtu of an Ethernet device).
fn codel_limit() -> u32 {
    1000
}
fn codel_target() -> Dur {
    Dur(5 * crate::engine::time::MS)
}
fn codel_interval() -> Dur {
    Dur(100 * crate::engine::time::MS)
}
fn codel_mtu() -> u32 {
    1514
}
fn fq_codel_flows() -> u32 {
    1024
}
fn fq_codel_limit() -> u32 {
    10 * 1024
}
fn fq_codel_drop_batch() -> u32 {
    64
}

fn red_max_p() -> f64 {
    0.1
}
fn red_weight() -> f64 {
    0.002
}
fn yes() -> bool {
    true
}
fn red_limit() -> u32 {
    50
}
fn red_mean_pktsize() -> u32 {
    500
}
fn dual_hold() -> Dur {
    Dur(crate::engine::time::SEC)
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    #[default]
    Forward,
    Reverse,
    Both,
}

/// A link capture's direction: one per file (a pcap file holds one link).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PcapDirection {
    Forward,
    Reverse,
}

#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PacketsCfg {
    #[default]
    All,
    Data,
    Acks,
}

/// What an error model does to the packets it hits.
#[derive(Clone, Copy, Debug, Deserialize, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ErrorActionCfg {
    /// Lost to corruption.
    #[default]
    Drop,
    /// Delivered with CE set in the IP header, ECN-capable or not (ns-2's
    /// ErrorModel `markecn_ true`).
    Mark,
    /// Pattern models only: held `delay` where it enters the link, before
    /// its queue; later packets overtake it (ns-2's ErrorModel delay_pkt_).
    Delay,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WindowCfg {
    pub start: Dur,
    pub end: Dur,
    pub rate: f64,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum ErrorCfg {
    Uniform {
        rate: f64,
        /// Forward when absent (`direction()`); refused in a direction's
        /// own model (`link.forward.error`), which acts on that direction.
        #[serde(default)]
        direction: Option<Direction>,
        #[serde(default)]
        packets: PacketsCfg,
        /// Only this flow's packets (data and ACKs), by name: the others are
        /// neither counted nor hit (ns-2's ErrorModule with a Fid classifier).
        #[serde(default)]
        flow: Option<String>,
        #[serde(default)]
        action: ErrorActionCfg,
    },
    Ber {
        ber: f64,
        /// Forward when absent (`direction()`); refused in a direction's
        /// own model (`link.forward.error`), which acts on that direction.
        #[serde(default)]
        direction: Option<Direction>,
        #[serde(default)]
        packets: PacketsCfg,
        /// Only this flow's packets (data and ACKs), by name: the others are
        /// neither counted nor hit (ns-2's ErrorModule with a Fid classifier).
        #[serde(default)]
        flow: Option<String>,
        #[serde(default)]
        action: ErrorActionCfg,
    },
    GilbertElliott {
        p_good_bad: f64,
        p_bad_good: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one_f64")]
        loss_bad: f64,
        /// Forward when absent (`direction()`); refused in a direction's
        /// own model (`link.forward.error`), which acts on that direction.
        #[serde(default)]
        direction: Option<Direction>,
        #[serde(default)]
        packets: PacketsCfg,
        /// Only this flow's packets (data and ACKs), by name: the others are
        /// neither counted nor hit (ns-2's ErrorModule with a Fid classifier).
        #[serde(default)]
        flow: Option<String>,
        #[serde(default)]
        action: ErrorActionCfg,
    },
    Pattern {
        /// 1-based numbers of the packets to drop, counted per direction.
        drop: Vec<u64>,
        /// Forward when absent (`direction()`); refused in a direction's
        /// own model (`link.forward.error`), which acts on that direction.
        #[serde(default)]
        direction: Option<Direction>,
        #[serde(default)]
        packets: PacketsCfg,
        /// Only this flow's packets (data and ACKs), by name: the others are
        /// neither counted nor hit (ns-2's ErrorModule with a Fid classifier).
        #[serde(default)]
        flow: Option<String>,
        /// What becomes of the listed packets: lost ("drop"), marked CE
        /// ("mark") or held `delay` at the link's entry ("delay":
        /// reordering).
        #[serde(default)]
        action: ErrorActionCfg,
        /// With `action = "delay"`: how long a listed packet is held.
        delay: Option<Dur>,
    },
    Windows {
        windows: Vec<WindowCfg>,
        /// Forward when absent (`direction()`); refused in a direction's
        /// own model (`link.forward.error`), which acts on that direction.
        #[serde(default)]
        direction: Option<Direction>,
        #[serde(default)]
        packets: PacketsCfg,
        /// Only this flow's packets (data and ACKs), by name: the others are
        /// neither counted nor hit (ns-2's ErrorModule with a Fid classifier).
        #[serde(default)]
        flow: Option<String>,
        #[serde(default)]
        action: ErrorActionCfg,
    },
}

fn one_f64() -> f64 {
    1.0
}

impl ErrorCfg {
    /// The directions the model acts on (forward when not given).
    pub fn direction(&self) -> Direction {
        self.direction_given().unwrap_or_default()
    }

    /// The `direction` key as written, if it was.
    pub fn direction_given(&self) -> Option<Direction> {
        match self {
            ErrorCfg::Uniform { direction, .. }
            | ErrorCfg::Ber { direction, .. }
            | ErrorCfg::GilbertElliott { direction, .. }
            | ErrorCfg::Pattern { direction, .. }
            | ErrorCfg::Windows { direction, .. } => *direction,
        }
    }

    pub fn action(&self) -> ErrorActionCfg {
        match self {
            ErrorCfg::Uniform { action, .. }
            | ErrorCfg::Ber { action, .. }
            | ErrorCfg::GilbertElliott { action, .. }
            | ErrorCfg::Pattern { action, .. }
            | ErrorCfg::Windows { action, .. } => *action,
        }
    }

    pub fn flow(&self) -> Option<&str> {
        match self {
            ErrorCfg::Uniform { flow, .. }
            | ErrorCfg::Ber { flow, .. }
            | ErrorCfg::GilbertElliott { flow, .. }
            | ErrorCfg::Pattern { flow, .. }
            | ErrorCfg::Windows { flow, .. } => flow.as_deref(),
        }
    }

    pub fn packets(&self) -> PacketsCfg {
        match self {
            ErrorCfg::Uniform { packets, .. }
            | ErrorCfg::Ber { packets, .. }
            | ErrorCfg::GilbertElliott { packets, .. }
            | ErrorCfg::Pattern { packets, .. }
            | ErrorCfg::Windows { packets, .. } => *packets,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TransportName {
    Tahoe,
    Reno,
    Newreno,
    /// Vegas (Brakmo & Peterson 1995); thresholds in the flow's `vegas` table.
    Vegas,
    /// Reno congestion control with SACK (RFC 2018 / RFC 6675 recovery).
    Sack,
    /// CUBIC with HyStart as Linux runs it (tcp_cubic.c); Linux's loss
    /// recovery, so the linux profile's (`[tcp] prr`); SACK with
    /// `tcp.sack = true`; module parameters in the flow's `cubic` table.
    Cubic,
    /// Westwood+ as Linux runs it (tcp_westwood.c): after a loss, the
    /// window is the measured bandwidth times the least RTT; Linux's loss
    /// recovery as for `cubic`; the kernel's HZ in the flow's `westwood`
    /// table.
    Westwood,
    /// BBR (version 1) as Linux runs it (tcp_bbr.c): paced at a gain
    /// times the measured bottleneck bandwidth, the flight capped at a gain
    /// times the bandwidth-delay product; Linux's loss recovery as for
    /// `cubic`; the kernel's HZ in the flow's `bbr` table.
    Bbr,
    /// NewReno with TCP with Adaptive Pacing (ElRakabawy, Klemm and
    /// Lindemann 2005): the window's segments spaced by the estimated
    /// four-hop delay; parameters in the flow's `tcp_ap` table.
    #[serde(rename = "tcp_ap")]
    TcpAp,
    Udp,
}

impl TransportName {
    pub fn as_str(self) -> &'static str {
        match self {
            TransportName::Tahoe => "tahoe",
            TransportName::Reno => "reno",
            TransportName::Newreno => "newreno",
            TransportName::Vegas => "vegas",
            TransportName::Sack => "sack",
            TransportName::Cubic => "cubic",
            TransportName::Westwood => "westwood",
            TransportName::Bbr => "bbr",
            TransportName::TcpAp => "tcp_ap",
            TransportName::Udp => "udp",
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowCfg {
    /// Name in result tables (default "flowN", N from 0).
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    pub transport: TransportName,
    /// TCP: payload bytes per segment (MSS). UDP: payload bytes per datagram.
    pub packet_size: Option<u32>,
    /// Receiver advertised window in packets of `packet_size`.
    pub window: Option<u32>,
    #[serde(deserialize_with = "tagged")]
    pub app: AppCfg,
    #[serde(default)]
    pub tcp: Option<TcpOptions>,
    /// Vegas thresholds in segments (transport = "vegas" only).
    #[serde(default)]
    pub vegas: Option<VegasCfg>,
    /// CUBIC's module parameters (transport = "cubic" only).
    #[serde(default)]
    pub cubic: Option<CubicCfg>,
    /// Westwood+'s clock (transport = "westwood" only).
    #[serde(default)]
    pub westwood: Option<WestwoodCfg>,
    /// BBR's clock (transport = "bbr" only).
    #[serde(default)]
    pub bbr: Option<WestwoodCfg>,
    /// TCP-AP's estimator and pacing (transport = "tcp_ap" only).
    #[serde(default)]
    pub tcp_ap: Option<TcpApCfg>,
    /// ECN (RFC 3168) on this TCP flow: "E-NewReno", "E-Vegas" ...
    #[serde(default)]
    pub ecn: bool,
    /// Explicit Loss Notification on this TCP flow.
    #[serde(default)]
    pub eln: bool,
    /// Report the time to deliver the first this-many bytes to the receiving
    /// application (column `first_bytes_s`, from the application's start).
    pub first_bytes: Option<u64>,
    /// The application starts later than `app.start` by a draw uniform in
    /// [0, start_jitter), from the flow's own stream (`flow<i>.start`):
    /// "the same start with small random jitter", a new draw per seed.
    pub start_jitter: Option<Dur>,
    /// A split connection (I-TCP): the TCP connection ends at this node,
    /// which relays the bytes over a second connection to `to`.
    #[serde(default)]
    pub split: Option<SplitCfg>,
}

/// Where and how a TCP flow's connection is split (Bakre and Badrinath's
/// I-TCP): the split node acknowledges the source's segments itself and
/// sends the bytes on over a connection of its own.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SplitCfg {
    /// The node that ends the first connection and opens the second (a
    /// base station).
    pub node: String,
    /// The bytes the node may hold that the source has had acknowledged
    /// and the destination has not, in packets of the flow's
    /// `packet_size` (two windows: a receive and a send buffer).
    pub buffer: Option<u32>,
    /// The second connection's transport (the flow's).
    pub transport: Option<TransportName>,
    /// The second connection's TCP options, over the flow's.
    #[serde(default)]
    pub tcp: Option<TcpOptions>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VegasCfg {
    #[serde(default = "vegas_alpha")]
    pub alpha: f64,
    #[serde(default = "vegas_beta")]
    pub beta: f64,
    #[serde(default = "vegas_gamma")]
    pub gamma: f64,
}

/// Linux's tcp_cubic module parameters (`/sys/module/tcp_cubic/parameters`)
/// and the kernel's timer frequency; absent keys keep the kernel's defaults.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CubicCfg {
    pub beta: Option<u32>,
    pub bic_scale: Option<u32>,
    pub fast_convergence: Option<bool>,
    pub tcp_friendliness: Option<bool>,
    pub hystart: Option<bool>,
    pub hystart_detect: Option<u8>,
    pub hystart_low_window: Option<u32>,
    pub hystart_ack_delta_us: Option<u32>,
    pub hz: Option<u32>,
}

/// Westwood+'s one setting, and BBR's: the kernel's timer frequency,
/// whose jiffies are its clock (Westwood+'s bandwidth in bytes a jiffy
/// and its RTTs; BBR's least-RTT age and PROBE_RTT's 200 ms).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WestwoodCfg {
    pub hz: Option<u32>,
}

/// TCP-AP's parameters; absent keys keep the authors' ns-2 agent's
/// values (`transport::tcp::adaptive_pacing::ApParams`).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpApCfg {
    /// Hops within which transmissions interfere (4).
    pub n_factor: Option<u32>,
    /// FHD samples the variation is taken over (50).
    pub history: Option<u32>,
    /// Weight of the old FHD in its average (0.7).
    pub alpha: Option<f64>,
    /// Weight of the old queueing delay in its average (0.5).
    pub gamma: Option<f64>,
    /// Samples above this are discarded (0.5 s).
    pub delay_bound: Option<super::units::Dur>,
    /// The link layer's rate (the `[wireless]` data rate, else 2 Mbit/s).
    pub link_rate: Option<super::units::Rate>,
    /// Header bytes of a packet on the air, an ACK's size (112).
    pub overhead: Option<u32>,
    /// The pacing interval before the first estimate (50 ms).
    pub initial_interval: Option<super::units::Dur>,
    /// "mean_deviation" (the agent's) or "cov" (the paper's coefficient
    /// of variation).
    pub variation: Option<ApVariation>,
    /// Back the retransmission timer off at a timeout (false).
    pub backoff: Option<bool>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ApVariation {
    MeanDeviation,
    Cov,
}

fn vegas_alpha() -> f64 {
    1.0
}
fn vegas_beta() -> f64 {
    3.0
}
fn vegas_gamma() -> f64 {
    1.0
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum AppCfg {
    /// Infinite backlog (FTP).
    Bulk {
        #[serde(default)]
        start: Dur,
        stop: Option<Dur>,
    },
    /// `bytes` in total written in `write`-byte blocks.
    Transfer {
        bytes: u64,
        #[serde(default = "default_write")]
        write: u32,
        #[serde(default)]
        start: Dur,
        /// Later writes: `bytes` more at `at` each (ns-2's FTP
        /// `producemore`), so the sender can go quiet and start again.
        #[serde(default)]
        more: Vec<WriteCfg>,
    },
    /// Messages of `bytes` (default one segment) with exponentially
    /// distributed gaps of mean `interval` (ns-2's Application/Telnet with
    /// interval_ set); `changes` set a new mean from a time on (TCP only).
    Messages {
        #[serde(default)]
        start: Dur,
        stop: Option<Dur>,
        interval: Dur,
        bytes: Option<u64>,
        #[serde(default)]
        changes: Vec<IntervalChangeCfg>,
        /// The gaps' draws: the flow's own stream (default) or "ns2"
        /// (ns-2.35's default generator, to reproduce an ns-2 run).
        generator: Option<RedGenerator>,
        /// With generator "ns2": draws other objects took first.
        generator_skip: Option<u64>,
    },
    /// Constant bit rate: give `rate` or `interval` (UDP only).
    Cbr {
        #[serde(default)]
        start: Dur,
        stop: Option<Dur>,
        rate: Option<Rate>,
        interval: Option<Dur>,
        /// Each gap drawn uniformly from 0.5 to 1.5 intervals (ns-2's CBR
        /// with `random_ 1`), not every gap the interval.
        #[serde(default)]
        random: bool,
    },
}

/// A messages app's new mean gap from `at` on.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IntervalChangeCfg {
    pub at: Dur,
    pub interval: Dur,
}

/// One later write of a transfer.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WriteCfg {
    pub at: Dur,
    pub bytes: u64,
}

fn default_write() -> u32 {
    8192
}

/// Initial window: a number of segments or "rfc3390".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    Segments(u32),
    Named(InitialWindowName),
}

/// By hand, not `#[serde(untagged)]`: serde's message for a value of
/// neither form names the Rust type ("data did not match any variant of
/// untagged enum InitialWindow"). The range is checked in validation.
impl<'de> Deserialize<'de> for InitialWindow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        match &v {
            serde_json::Value::Number(n) => {
                if let Some(k) = n.as_u64().and_then(|k| u32::try_from(k).ok()) {
                    return Ok(InitialWindow::Segments(k));
                }
            }
            serde_json::Value::String(s) if s == "rfc3390" => {
                return Ok(InitialWindow::Named(InitialWindowName::Rfc3390));
            }
            _ => {}
        }
        Err(serde::de::Error::custom(format!("must be 1..64 segments or \"rfc3390\", got {v}")))
    }
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InitialWindowName {
    Rfc3390,
}

/// TCP knobs; every one is optional and falls back to the profile default.
#[derive(Clone, Debug, Deserialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    pub initial_window: Option<InitialWindow>,
    /// Initial ssthresh in segments (default ns2: the advertised window).
    pub initial_ssthresh: Option<u32>,
    /// Advertised window in bytes (overrides the flow's `window`).
    pub window_bytes: Option<u64>,
    pub min_rto: Option<Dur>,
    pub max_rto: Option<Dur>,
    pub initial_rto: Option<Dur>,
    /// RFC 6298 clock granularity G (ns-2's tcpTick_; the linux profile's
    /// jiffy).
    pub granularity: Option<Dur>,
    /// The phase of the sender's tick clock under the ns2 RTT estimator
    /// (ns-2's boot_time_) or of the kernel's jiffies under `timer_wheel`,
    /// in [0, granularity); default: drawn per flow.
    pub clock_phase: Option<Dur>,
    pub dupthresh: Option<u32>,
    /// Consecutive timeouts before the connection aborts; 0 = never.
    pub max_retransmits: Option<u32>,
    /// Receiver delays ACKs (one per two full segments, or the timer).
    pub delayed_ack: Option<bool>,
    /// Receiver thins ACKs (one per d segments, d = 1..4 by `thinning_thresholds`).
    pub ack_thinning: Option<bool>,
    /// In-order segments after which d becomes 2, 3 and 4 (default [2, 5, 9]).
    #[serde(default, deserialize_with = "thinning_thresholds")]
    pub thinning_thresholds: Option<[u64; 3]>,
    /// Timer of the delayed-ACK and thinning policies.
    pub delack_timeout: Option<Dur>,
    /// SACK (RFC 2018 blocks, RFC 6675 recovery).
    pub sack: Option<bool>,
    /// Timestamps option (RFC 7323).
    pub timestamps: Option<bool>,
    /// Limited Transmit (RFC 3042).
    pub limited_transmit: Option<bool>,
    /// NewReno's partial-ACK handling; false makes a "newreno" flow plain Reno.
    pub newreno: Option<bool>,
    /// NewReno timer on partial ACKs: "impatient" (restart on the first only)
    /// or "slow-but-steady" (restart on each), RFC 6582 section 4.
    pub newreno_timer: Option<NewRenoTimer>,
    /// NewReno's partial ACK deflates the inflated window by the amount
    /// acknowledged (RFC 6582, ns-2's partial_window_deflation_ 1) or drops
    /// all the inflation (ns-2's partial_window_deflation_ 0).
    pub partial_window_deflation: Option<bool>,
    /// ns-2's precisionReduce_: the halved cwnd is half of the fractional
    /// window (true) or of its whole segments, rounded down (false).
    pub precision_reduce: Option<bool>,
    /// NewReno's careful variant (ns-2's bugFix_): no fast retransmit for
    /// duplicates of data sent before the last one or timeout.
    pub newreno_careful: Option<bool>,
    /// Tahoe: no second fast retransmit within one window (ns-2's bugFix_).
    pub tahoe_careful: Option<bool>,
    /// The timer restarted on a new ACK after its RTT sample (ns-2's
    /// timerfix_ true) or before it (false).
    pub timerfix: Option<bool>,
    /// The initial window after a lost SYN, in segments.
    pub lost_syn_window: Option<u32>,
    /// ns-2's bugfix_ss_ in the careful test before a fast retransmit.
    pub bugfix_ss: Option<bool>,
    /// ns-2's rfc2988_ for its RTT estimator.
    pub rfc2988: Option<bool>,
    /// ns-2's old_ecn_.
    pub old_ecn: Option<bool>,
    /// NewReno's less careful variant (ns-2's lessCareful_).
    pub less_careful: Option<bool>,
    /// An ACK below the highest one received may send (ns-2's
    /// aggressive_maxburst_).
    pub aggressive_max_burst: Option<bool>,
    /// Reno/NewReno: no inflation on duplicates after a refused fast
    /// retransmit (ns-2's exitFastRetrans_).
    pub exit_fast_retrans: Option<bool>,
    /// A timestamp RTT sample ends the timer's backoff (ns-2's ts_resetRTO_).
    pub ts_reset_rto: Option<bool>,
    /// ns-2's accounting of timestamps (sizes, exact times).
    pub ns2_timestamps: Option<bool>,
    /// NewReno: ns-2's ACK heuristic past the careful guard (bugFix_ack_).
    pub bugfix_ack: Option<bool>,
    /// NewReno: ns-2's timestamp heuristic past the careful guard (bugFix_ts_).
    pub bugfix_ts: Option<bool>,
    /// Sack1: the duplicate-ACK threshold at least cwnd / this (ns-2's
    /// numdupacksFrac_); 0: fixed.
    pub dupthresh_frac: Option<u32>,
    /// ns-2 RTT estimator: SRTT's scaling in bits (ns-2's T_SRTT_BITS).
    pub srtt_bits: Option<u32>,
    /// ns-2 RTT estimator: RTTVAR's scaling in bits (T_RTTVAR_BITS).
    pub rttvar_bits: Option<u32>,
    /// ns-2 RTT estimator: RTO = SRTT + 2^this RTTVAR (rttvar_exp_).
    pub rttvar_exp: Option<u32>,
    /// The window after an idle period: "ns2-timer", "rfc5681", "linux", "off".
    pub idle_restart: Option<IdleRestartCfg>,
    /// ns-2's QOption_ (RFC 2861 congestion window validation).
    pub cwnd_validation: Option<bool>,
    /// ns-2's EnblRTTCtr_: `cwnd_validation` counts periods in RTTs.
    pub cwv_rtt_counting: Option<bool>,
    /// ns-2's control_increase_: no increase unless the window was full.
    pub control_increase: Option<bool>,
    /// Linux's tcp_is_cwnd_limited(): cwnd grows only while it limits.
    pub cwnd_limited: Option<bool>,
    /// The window's growth per new ACK: "per-ack" (ns-2, RFC 5681 without
    /// byte counting) or "per-segment" (Linux: each segment it covers).
    pub cwnd_increase: Option<CwndIncrease>,
    /// A delaying receiver acknowledges at once a segment shorter than the
    /// MSS or ending a write (PSH), as Linux does.
    pub push_ack: Option<bool>,
    /// Proportional Rate Reduction (RFC 6937, as Linux runs it) sizes the
    /// window during fast recovery; NewReno without SACK then counts
    /// duplicate ACKs as Linux's emulated SACKs.
    pub prr: Option<bool>,
    /// RACK loss detection (RFC 8985, Linux's) in SACK recovery with PRR.
    pub rack: Option<bool>,
    /// RACK's tail-loss probe (Linux's TLP).
    pub tlp: Option<bool>,
    /// Linux's undo of spurious window reductions (timestamps, DSACK), with
    /// RACK.
    pub undo: Option<bool>,
    /// D-SACK reports of duplicate segments (RFC 2883), with SACK.
    pub dsack: Option<bool>,
    /// F-RTO after a timeout (net.ipv4.tcp_frto = 2), with RACK.
    pub frto: Option<bool>,
    /// Quick ACKs at the start of a connection (Linux: 16).
    pub quick_acks: Option<u32>,
    /// Nagle's rule: "off" (every profile), "rfc896" or "minshall" (Linux's).
    pub nagle: Option<NagleCfg>,
    /// Linux's TSO deferral: new data waits for an ACK due within 1 ms
    /// when the window has room for less than a GSO burst.
    pub tso_defer: Option<bool>,
    /// Linux's SACK compression: the most ACKs one stands for
    /// (tcp_comp_sack_nr, 44); 0: none.
    pub comp_sack_nr: Option<u32>,
    /// Its timer's cap (tcp_comp_sack_delay_ns, 1 ms).
    pub comp_sack_delay: Option<Dur>,
    /// Its timer's slack (tcp_comp_sack_slack_ns, 100 us).
    pub comp_sack_slack: Option<Dur>,
    /// The retransmission and delayed-ACK timers go off on the kernel's
    /// timer wheel, at a tick of `granularity` (the linux profile's
    /// jiffy); false: at the wait's end.
    pub timer_wheel: Option<bool>,
    /// The kernel's jiffies counter at the run's first tick, with
    /// `timer_wheel` (0 to 2^24 - 1); default: drawn per flow.
    pub jiffies_start: Option<u32>,
    /// The receiver's window: "fixed" (the configured window) or "linux"
    /// (Linux 6.18's, growing under receive-buffer autotuning).
    pub receive_window: Option<ReceiveWindowName>,
    /// With "linux": the receive buffer a connection starts with, bytes
    /// (tcp_rmem[1], 131072).
    pub rcvbuf: Option<u32>,
    /// With "linux": the largest buffer autotuning gives, bytes
    /// (tcp_rmem[2], 33554432).
    pub rcvbuf_max: Option<u32>,
    /// With "linux": the memory the kernel charges per received segment,
    /// bytes (default: this host's TUN path for the packet's size).
    pub rcv_truesize: Option<u32>,

    /// Sack1's careful variant (ns-2's bugFix_ for Agent/TCP/Sack1): no
    /// fast retransmit for duplicates of data sent before the last timeout.
    pub sack1_careful: Option<bool>,
    /// At most this many segments per ACK, timeout or application write
    /// (ns-2's maxburst_); 0: no limit.
    pub max_burst: Option<u32>,
    /// ns-2's maxcwnd_: the congestion window's cap in segments (0: none).
    pub max_cwnd: Option<u32>,
    /// NewReno's exit from recovery at min(ssthresh, outstanding + 1)
    /// (ns-2's exit_recovery_fix_).
    pub exit_recovery_fix: Option<bool>,
    /// Loss response: "cwnd" (ns-2: ssthresh = min(cwnd, rwnd) / 2 in whole
    /// segments) or "flight" (RFC 5681: max(FlightSize / 2, 2 SMSS)).
    pub loss_window: Option<LossWindow>,
    /// ns-2's ECN response: no increase on any ACK with ECE, no second cut
    /// within the window of an ECN cut.
    pub ecn_hold: Option<bool>,
    /// Reno: no second fast retransmit within one window (ns-2's bugFix_).
    pub reno_careful: Option<bool>,
    /// Leaving Reno/NewReno recovery: "ns2" (cwnd_ without the remaining
    /// inflation, then one increase) or "rfc" (cwnd = ssthresh).
    pub recovery_exit: Option<RecoveryExitName>,
    /// SACK recovery: "sack1" (ns-2.35's Agent/TCP/Sack1) or "rfc6675".
    pub sack_recovery: Option<SackRecoveryName>,
    /// A partial ACK yields an RTT sample (RFC); ns-2 ends the measurement
    /// without one and clears the backoff.
    pub rtt_on_partial_ack: Option<bool>,
    /// Open with ns-2's SYN exchange (syn_ with delay_growth_).
    pub syn: Option<bool>,
    /// A delaying receiver acknowledges the SYN at once (ns-2's
    /// SYN_immediate_ack_); false: after its ACK timer.
    pub syn_immediate_ack: Option<bool>,
    /// A delaying receiver acknowledges at once an in-order segment that
    /// leaves a hole above it (ns-2's RFC2581_immediate_ack_); false: held
    /// like a new in-order segment.
    pub rfc2581_immediate_ack: Option<bool>,
    /// SACK option size: "ns2" (3 blocks, 8 bytes each) or "rfc2018".
    pub sack_option: Option<SackOptionName>,
    /// Which SACK blocks an ACK reports: "rfc2018" (the block of the
    /// latest segment, then the most recently changed others) or "ns2"
    /// (ns-2.35's TCPSink/Sack1: the latest segment's block, then blocks
    /// as they were reported before, from a history of three).
    pub sack_blocks: Option<SackOptionName>,
    /// ns-2.35's Sack1: an ECN cut on the ACK that would end fast recovery
    /// moves the recovery point to the highest segment sent (its ecn()
    /// sets recover_ first), so fast recovery goes on.
    pub sack1_ecn_recover: Option<bool>,
    /// ns-2.35's Sack1: a partial ACK in fast recovery leaves the RTT
    /// measurement running (only newack(), at the end of recovery, ends it).
    pub sack1_partial_ack_timing: Option<bool>,
    /// RTT estimator: "ns2" (ticks, scaled integers) or "rfc6298".
    pub rtt_estimator: Option<RttEstimatorName>,
    /// Vegas rate arithmetic: "ns2" (ns-2's agent) or "paper" (data in transit).
    pub vegas_rates: Option<VegasRatesName>,
    /// Vegas send-time records: "ns2" (ns-2's slots modulo the window, with
    /// its clearing loop) or "exact" (each segment's own).
    pub vegas_send_times: Option<VegasSendTimesName>,
    /// Vegas after a timeout as ns-2.35: the next new ACK after more than
    /// the threshold of duplicates deflates cwnd to 0 (v_newcwnd_), and the
    /// retransmission timer runs on until it fires (off: at least one
    /// segment).
    pub vegas_zero_window: Option<bool>,
    /// An ECN flow's Vegas segments are ECT (off: ns-2.35's Vegas agent,
    /// which sets no ECN flag, so E-Vegas runs as Vegas).
    pub vegas_ecn: Option<bool>,
    /// ELN-marked duplicates: "ns2" (ns-2.35's tcp_eln(): the copy leaves
    /// a running timer alone, no copy for the hole just after the last
    /// one) or "paper" (the timer restarted, each hole resent once).
    pub eln_sender: Option<ElnSenderName>,
    /// Vegas and Sack1 flows read the ELN bit too (off: ns-2.35's agents,
    /// which never do).
    pub eln_all_variants: Option<bool>,
    /// Delayed ACKs: "ns2" (ns-2's DelAckSink: packet 0 acknowledged at
    /// once even when it carries data, a repeat of the last in-order
    /// segment held like a new one) or "rfc" (RFC 5681 4.2).
    pub delack_sink: Option<DelackSinkName>,
    /// Tahoe after a timeout: keep the duplicate-ACK count (ns-2's
    /// TcpAgent::timeout() leaves dupacks_) or start it again from 0.
    pub tahoe_timeout_dupacks: Option<bool>,
    /// ECN-capable retransmissions, CWR on a retransmission too (ns-2's
    /// TcpAgent) or neither (RFC 3168 6.1.5).
    pub ect_retransmits: Option<bool>,
    /// Which retransmissions end the RTT measurement: "ns2" (only a fast
    /// retransmit or a timeout, ns-2's reset_rtx_timer()) or "karn" (any
    /// retransmission of data at or below the timed segment).
    pub rtt_timing: Option<RttTimingName>,
    /// The first ECN echo after a timeout cuts the window again (ns-2's
    /// TcpAgent::ecn()) or is part of the window already answered (RFC 3168).
    pub ecn_after_timeout: Option<bool>,
    /// ECN: an echo on the ACK that ends fast recovery is answered there
    /// (ns-2's ecn() before the ACK's processing).
    pub ecn_in_recovery: Option<bool>,
    /// ns-2's ecn_backoff_: repeated ECN cuts at a window of one segment
    /// back the retransmission timer off.
    pub ecn_backoff: Option<bool>,
    /// A halving may leave cwnd below one segment, and the sender then
    /// waits for its retransmission timer (ns-2.35's slowdown()); otherwise
    /// at least one segment.
    pub cwnd_below_one: Option<bool>,
    /// CWR after every window reduction of an ECN flow (ns-2's slowdown())
    /// or only after the answer to an ECN echo (RFC 3168).
    pub cwr_after_loss: Option<bool>,
    /// NewReno sends at most two segments per ACK in fast recovery (ns-2's
    /// NewReno agent) or what the window allows (RFC 6582).
    pub newreno_burst: Option<bool>,
    /// The careful variants' test before a fast retransmit in ns-2's
    /// packet numbers (recover_ from 0, the SYN packet 0, bugfix_ss_) or in
    /// bytes (RFC 6582).
    pub ns2_recover_numbers: Option<bool>,
    /// Without a SYN the first data segment carries no header bytes
    /// (ns-2's packet 0) or all of them.
    pub ns2_headerless_first: Option<bool>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RttTimingName {
    Ns2,
    Karn,
    Linux,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DelackSinkName {
    Ns2,
    Rfc,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum VegasSendTimesName {
    Ns2,
    Exact,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum VegasRatesName {
    Ns2,
    Paper,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReceiveWindowName {
    Fixed,
    Linux,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ElnSenderName {
    Ns2,
    Paper,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RttEstimatorName {
    Ns2,
    Rfc6298,
    Linux,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RedVictimName {
    Tail,
    Front,
    Random,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RedGenerator {
    Tcplab,
    Ns2,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryExitName {
    Ns2,
    Rfc,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SackOptionName {
    Ns2,
    Rfc2018,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CwndIncrease {
    PerAck,
    PerSegment,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LossWindow {
    Cwnd,
    Flight,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SackRecoveryName {
    Sack1,
    Rfc6675,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NagleCfg {
    Off,
    Rfc896,
    Minshall,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum IdleRestartCfg {
    #[serde(rename = "ns2-timer")]
    Ns2Timer,
    #[serde(rename = "rfc5681")]
    Rfc5681,
    #[serde(rename = "linux")]
    Linux,
    #[serde(rename = "off")]
    Off,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum NewRenoTimer {
    Impatient,
    SlowButSteady,
}

impl TcpOptions {
    /// `self` with unset fields taken from `base`.
    pub fn or(&self, base: &TcpOptions) -> TcpOptions {
        TcpOptions {
            initial_window: self.initial_window.or(base.initial_window),
            initial_ssthresh: self.initial_ssthresh.or(base.initial_ssthresh),
            window_bytes: self.window_bytes.or(base.window_bytes),
            min_rto: self.min_rto.or(base.min_rto),
            max_rto: self.max_rto.or(base.max_rto),
            initial_rto: self.initial_rto.or(base.initial_rto),
            granularity: self.granularity.or(base.granularity),
            clock_phase: self.clock_phase.or(base.clock_phase),
            dupthresh: self.dupthresh.or(base.dupthresh),
            max_retransmits: self.max_retransmits.or(base.max_retransmits),
            delayed_ack: self.delayed_ack.or(base.delayed_ack),
            ack_thinning: self.ack_thinning.or(base.ack_thinning),
            thinning_thresholds: self.thinning_thresholds.or(base.thinning_thresholds),
            delack_timeout: self.delack_timeout.or(base.delack_timeout),
            sack: self.sack.or(base.sack),
            timestamps: self.timestamps.or(base.timestamps),
            limited_transmit: self.limited_transmit.or(base.limited_transmit),
            newreno: self.newreno.or(base.newreno),
            newreno_timer: self.newreno_timer.or(base.newreno_timer),
            partial_window_deflation: self.partial_window_deflation.or(base.partial_window_deflation),
            precision_reduce: self.precision_reduce.or(base.precision_reduce),
            newreno_careful: self.newreno_careful.or(base.newreno_careful),
            tahoe_careful: self.tahoe_careful.or(base.tahoe_careful),
            timerfix: self.timerfix.or(base.timerfix),
            lost_syn_window: self.lost_syn_window.or(base.lost_syn_window),
            bugfix_ss: self.bugfix_ss.or(base.bugfix_ss),
            rfc2988: self.rfc2988.or(base.rfc2988),
            old_ecn: self.old_ecn.or(base.old_ecn),
            less_careful: self.less_careful.or(base.less_careful),
            aggressive_max_burst: self.aggressive_max_burst.or(base.aggressive_max_burst),
            exit_fast_retrans: self.exit_fast_retrans.or(base.exit_fast_retrans),
            ts_reset_rto: self.ts_reset_rto.or(base.ts_reset_rto),
            ns2_timestamps: self.ns2_timestamps.or(base.ns2_timestamps),
            bugfix_ack: self.bugfix_ack.or(base.bugfix_ack),
            bugfix_ts: self.bugfix_ts.or(base.bugfix_ts),
            dupthresh_frac: self.dupthresh_frac.or(base.dupthresh_frac),
            srtt_bits: self.srtt_bits.or(base.srtt_bits),
            rttvar_bits: self.rttvar_bits.or(base.rttvar_bits),
            rttvar_exp: self.rttvar_exp.or(base.rttvar_exp),
            idle_restart: self.idle_restart.or(base.idle_restart),
            cwnd_validation: self.cwnd_validation.or(base.cwnd_validation),
            cwv_rtt_counting: self.cwv_rtt_counting.or(base.cwv_rtt_counting),
            cwnd_increase: self.cwnd_increase.or(base.cwnd_increase),
            push_ack: self.push_ack.or(base.push_ack),
            prr: self.prr.or(base.prr),
            rack: self.rack.or(base.rack),
            tlp: self.tlp.or(base.tlp),
            undo: self.undo.or(base.undo),
            dsack: self.dsack.or(base.dsack),
            frto: self.frto.or(base.frto),
            quick_acks: self.quick_acks.or(base.quick_acks),
            nagle: self.nagle.or(base.nagle),
            tso_defer: self.tso_defer.or(base.tso_defer),
            comp_sack_nr: self.comp_sack_nr.or(base.comp_sack_nr),
            comp_sack_delay: self.comp_sack_delay.or(base.comp_sack_delay),
            comp_sack_slack: self.comp_sack_slack.or(base.comp_sack_slack),
            timer_wheel: self.timer_wheel.or(base.timer_wheel),
            jiffies_start: self.jiffies_start.or(base.jiffies_start),
            control_increase: self.control_increase.or(base.control_increase),
            cwnd_limited: self.cwnd_limited.or(base.cwnd_limited),
            sack1_careful: self.sack1_careful.or(base.sack1_careful),
            max_burst: self.max_burst.or(base.max_burst),
            max_cwnd: self.max_cwnd.or(base.max_cwnd),
            exit_recovery_fix: self.exit_recovery_fix.or(base.exit_recovery_fix),
            loss_window: self.loss_window.or(base.loss_window),
            ecn_hold: self.ecn_hold.or(base.ecn_hold),
            reno_careful: self.reno_careful.or(base.reno_careful),
            recovery_exit: self.recovery_exit.or(base.recovery_exit),
            sack_recovery: self.sack_recovery.or(base.sack_recovery),
            rtt_on_partial_ack: self.rtt_on_partial_ack.or(base.rtt_on_partial_ack),
            syn: self.syn.or(base.syn),
            syn_immediate_ack: self.syn_immediate_ack.or(base.syn_immediate_ack),
            rfc2581_immediate_ack: self.rfc2581_immediate_ack.or(base.rfc2581_immediate_ack),
            sack_option: self.sack_option.or(base.sack_option),
            sack_blocks: self.sack_blocks.or(base.sack_blocks),
            sack1_ecn_recover: self.sack1_ecn_recover.or(base.sack1_ecn_recover),
            sack1_partial_ack_timing: self.sack1_partial_ack_timing.or(base.sack1_partial_ack_timing),
            rtt_estimator: self.rtt_estimator.or(base.rtt_estimator),
            vegas_rates: self.vegas_rates.or(base.vegas_rates),
            vegas_send_times: self.vegas_send_times.or(base.vegas_send_times),
            vegas_zero_window: self.vegas_zero_window.or(base.vegas_zero_window),
            vegas_ecn: self.vegas_ecn.or(base.vegas_ecn),
            eln_sender: self.eln_sender.or(base.eln_sender),
            eln_all_variants: self.eln_all_variants.or(base.eln_all_variants),
            receive_window: self.receive_window.or(base.receive_window),
            rcvbuf: self.rcvbuf.or(base.rcvbuf),
            rcvbuf_max: self.rcvbuf_max.or(base.rcvbuf_max),
            rcv_truesize: self.rcv_truesize.or(base.rcv_truesize),
            delack_sink: self.delack_sink.or(base.delack_sink),
            tahoe_timeout_dupacks: self.tahoe_timeout_dupacks.or(base.tahoe_timeout_dupacks),
            ect_retransmits: self.ect_retransmits.or(base.ect_retransmits),
            rtt_timing: self.rtt_timing.or(base.rtt_timing),
            ecn_after_timeout: self.ecn_after_timeout.or(base.ecn_after_timeout),
            ecn_in_recovery: self.ecn_in_recovery.or(base.ecn_in_recovery),
            ecn_backoff: self.ecn_backoff.or(base.ecn_backoff),
            cwnd_below_one: self.cwnd_below_one.or(base.cwnd_below_one),
            cwr_after_loss: self.cwr_after_loss.or(base.cwr_after_loss),
            newreno_burst: self.newreno_burst.or(base.newreno_burst),
            ns2_recover_numbers: self.ns2_recover_numbers.or(base.ns2_recover_numbers),
            ns2_headerless_first: self.ns2_headerless_first.or(base.ns2_headerless_first),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct OutputCfg {
    /// Sample cwnd/ssthresh/srtt/rto/sequence numbers and queue lengths at
    /// this interval (off when absent).
    pub sample_interval: Option<Dur>,
    /// Record a time-sequence trace of every TCP segment and ACK.
    #[serde(default)]
    pub trace: bool,
}
