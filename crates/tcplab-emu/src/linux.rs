//! The scenario's TCP settings as Linux knobs. Per socket: congestion
//! control, MSS, window clamp, buffers. Per namespace (the same in both, so
//! every flow of a run must agree on them): SACK, D-SACK, timestamps, ECN,
//! F-RTO and the duplicate-ACK threshold as sysctls; initial window, minimum RTO and
//! delayed ACKs (quickack) as attributes of the route to the other end.
//! Settings the kernel has no knob for are rejected when the scenario sets
//! them, naming the key.

use crate::workload::{FlowSpec, SockKnobs, Work};
use tcplab_core::engine::time::MS;
use tcplab_core::scenario::build::tcp_config;
use tcplab_core::scenario::build::{app_start, message_writes};
use tcplab_core::scenario::config::{
    AppCfg, CwndIncrease, IdleRestartCfg, LossWindow, NagleCfg, ReceiveWindowName, RttEstimatorName, RttTimingName,
    ScenarioCfg, TcpOptions, TransportName,
};
use tcplab_core::transport::tcp::config::{IdleRestart, Nagle, ReceiveWindow};
use tcplab_core::transport::tcp::linux_rwnd::{DEFAULT_RCVBUF, DEFAULT_RCVBUF_MAX};
use tcplab_core::transport::tcp::AckPolicy;
use tcplab_core::ScenarioError;

/// Settings applied to both namespaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSettings {
    pub sack: bool,
    pub timestamps: bool,
    pub ecn: bool,
    /// net.ipv4.tcp_reordering: duplicate ACKs that trigger fast retransmit.
    pub reordering: u32,
    /// Route `initcwnd` in segments.
    pub initcwnd: u32,
    /// Route `rto_min` in ms (None: the kernel's 200 ms).
    pub rto_min_ms: Option<u64>,
    /// Route `quickack`: ACK every segment at once (no delayed ACKs).
    pub quickack: bool,
    /// net.ipv4.tcp_slow_start_after_idle: after an idle period of an RTO
    /// the window decays to the initial one (`idle_restart = "linux"`, the
    /// kernel's default) or stays (`"off"`).
    pub slow_start_after_idle: bool,
    /// net.ipv4.tcp_frto: F-RTO after a timeout (2, the kernel's default)
    /// or not (0).
    pub frto: bool,
    /// net.ipv4.tcp_dsack: D-SACK reports of duplicate segments (1, the
    /// kernel's default) or not (0).
    pub dsack: bool,
    /// net.ipv4.tcp_rmem's default and largest receive buffer (the
    /// linux profile's `rcvbuf` and `rcvbuf_max`; the kernel's 131072 and
    /// 33554432 unless set).
    pub rmem: (u32, u32),
    /// net.ipv4.tcp_comp_sack_nr, tcp_comp_sack_delay_ns and
    /// tcp_comp_sack_slack_ns: the receiver's SACK compression
    /// (`comp_sack_*`; the kernel's 44, 1 ms, 100 us in the linux profile,
    /// 0 (off) in the others).
    pub comp_sack: (u32, u64, u64),
    /// MTU of both TUN devices: room for the largest segment of any flow
    /// (IP and TCP headers, options and `packet_size`), at least Ethernet's
    /// 1500. The kernel takes the MSS as the smaller of TCP_MAXSEG and the
    /// device's MTU less 40, so a 1500-byte device cut every segment to
    /// 1448 payload bytes whatever `packet_size` said. Not compared between
    /// flows (0 until `plan` has seen them all).
    pub mtu: u32,
}

impl HostSettings {
    pub fn sysctls(&self) -> Vec<(&'static str, String)> {
        vec![
            ("net.ipv4.tcp_sack", u8::from(self.sack).to_string()),
            ("net.ipv4.tcp_timestamps", u8::from(self.timestamps).to_string()),
            ("net.ipv4.tcp_ecn", u8::from(self.ecn).to_string()),
            ("net.ipv4.tcp_reordering", self.reordering.to_string()),
            ("net.ipv4.tcp_slow_start_after_idle", u8::from(self.slow_start_after_idle).to_string()),
            ("net.ipv4.tcp_frto", if self.frto { "2" } else { "0" }.to_string()),
            ("net.ipv4.tcp_dsack", u8::from(self.dsack).to_string()),
            ("net.ipv4.tcp_rmem", format!("4096 {} {}", self.rmem.0, self.rmem.1)),
            ("net.ipv4.tcp_comp_sack_nr", self.comp_sack.0.to_string()),
            ("net.ipv4.tcp_comp_sack_delay_ns", self.comp_sack.1.to_string()),
            ("net.ipv4.tcp_comp_sack_slack_ns", self.comp_sack.2.to_string()),
            // Each connection starts fresh, not from a previous one's RTT
            // and ssthresh cached for the destination.
            ("net.ipv4.tcp_no_metrics_save", "1".to_string()),
            // Keep the kernel's own IPv6 chatter off the emulated link.
            ("net.ipv6.conf.all.disable_ipv6", "1".to_string()),
            ("net.ipv6.conf.default.disable_ipv6", "1".to_string()),
        ]
    }

    pub fn route_attrs(&self) -> Vec<String> {
        let mut v = vec!["initcwnd".to_string(), self.initcwnd.to_string()];
        if let Some(ms) = self.rto_min_ms {
            v.extend(["rto_min".to_string(), format!("{ms}ms")]);
        }
        if self.quickack {
            v.extend(["quickack".to_string(), "1".to_string()]);
        }
        v
    }
}

/// Run options that are not in the scenario.
#[derive(Clone, Debug, Default)]
pub struct Knobs {
    /// Congestion control for every flow (default: "reno" for reno, newreno
    /// and sack flows, "vegas" for vegas, "cubic" for cubic).
    pub cc: Option<String>,
    /// SO_RCVBUF of the receivers and SO_SNDBUF of the senders.
    pub rcvbuf: Option<u32>,
    pub sndbuf: Option<u32>,
}

fn err<T>(key: String, msg: &str) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(key, msg))
}

/// The MSS option values Linux's TCP_MAXSEG takes: TCP_MIN_MSS (88) to
/// MAX_TCP_WINDOW (32767); anything else is EINVAL.
pub const MAXSEG_RANGE: (u32, u32) = (88, 32767);
/// Bytes of options every segment carries with timestamps (TCP_MAXSEG
/// counts them, `packet_size` does not).
const TS_OPTION: u32 = 12;
/// IPv4 and TCP headers without options.
const HEADERS: u32 = 40;

/// `packet_size` as a TCP_MAXSEG value, or the error naming the key with
/// the range this kernel accepts.
fn maxseg(i: usize, mss: u32, timestamps: bool) -> Result<u32, ScenarioError> {
    let opt = if timestamps { TS_OPTION } else { 0 };
    let (lo, hi) = (MAXSEG_RANGE.0 - opt, MAXSEG_RANGE.1 - opt);
    if !(lo..=hi).contains(&mss) {
        let with = if timestamps { "with timestamps" } else { "without timestamps" };
        return err(
            format!("flow[{i}].packet_size"),
            &format!(
                "the emulator takes {lo}..{hi} bytes {with} (Linux's TCP_MAXSEG range {}..{}), got {mss}",
                MAXSEG_RANGE.0, MAXSEG_RANGE.1
            ),
        );
    }
    Ok(mss + opt)
}

/// Reject TCP options Linux has no knob for. `key` is where the merged
/// option came from (flow[i].tcp or tcp).
fn unsupported(i: usize, own: &TcpOptions, o: &TcpOptions) -> Result<(), ScenarioError> {
    let key = |n: &str| {
        let set_here = match n {
            "initial_ssthresh" => own.initial_ssthresh.is_some(),
            "max_rto" => own.max_rto.is_some(),
            "initial_rto" => own.initial_rto.is_some(),
            "granularity" => own.granularity.is_some(),
            "timer_wheel" => own.timer_wheel.is_some(),
            "max_retransmits" => own.max_retransmits.is_some(),
            "ack_thinning" => own.ack_thinning.is_some(),
            "delack_timeout" => own.delack_timeout.is_some(),
            "limited_transmit" => own.limited_transmit.is_some(),
            "newreno" => own.newreno.is_some(),
            "idle_restart" => own.idle_restart.is_some(),
            "cwnd_validation" => own.cwnd_validation.is_some(),
            "cwv_rtt_counting" => own.cwv_rtt_counting.is_some(),
            "control_increase" => own.control_increase.is_some(),
            "cwnd_limited" => own.cwnd_limited.is_some(),
            "cwnd_increase" => own.cwnd_increase.is_some(),
            "push_ack" => own.push_ack.is_some(),
            "prr" => own.prr.is_some(),
            "rack" => own.rack.is_some(),
            "tlp" => own.tlp.is_some(),
            "undo" => own.undo.is_some(),
            "loss_window" => own.loss_window.is_some(),
            "quick_acks" => own.quick_acks.is_some(),
            "nagle" => own.nagle.is_some(),
            "tso_defer" => own.tso_defer.is_some(),
            "rtt_estimator" => own.rtt_estimator.is_some(),
            "rtt_timing" => own.rtt_timing.is_some(),
            "receive_window" => own.receive_window.is_some(),
            "rcv_truesize" => own.rcv_truesize.is_some(),
            _ => own.newreno_timer.is_some(),
        };
        if set_here {
            format!("flow[{i}].tcp.{n}")
        } else {
            format!("tcp.{n}")
        }
    };
    let no = "Linux has no knob for this; the emulator cannot run it (remove the key)";
    if o.initial_ssthresh.is_some() {
        return err(key("initial_ssthresh"), no);
    }
    if o.max_rto.is_some() {
        return err(key("max_rto"), "Linux's maximum RTO is fixed at 120 s; remove the key");
    }
    if o.initial_rto.is_some() {
        return err(key("initial_rto"), "Linux's initial RTO is fixed at 1 s; remove the key");
    }
    if o.granularity.is_some() {
        return err(key("granularity"), no);
    }
    if o.timer_wheel == Some(false) {
        return err(
            key("timer_wheel"),
            "Linux's TCP timers are jiffy timers on its timer wheel (the kernel's HZ): only true",
        );
    }
    if o.max_retransmits.is_some() {
        return err(key("max_retransmits"), no);
    }
    if o.ack_thinning == Some(true) {
        return err(key("ack_thinning"), "Linux has no ACK thinning");
    }
    if o.delack_timeout.is_some_and(|d| d.0 != 40 * MS) {
        return err(
            key("delack_timeout"),
            "Linux's delayed-ACK timer is its own (40 ms minimum); only 40ms is accepted",
        );
    }
    if o.limited_transmit == Some(false) {
        return err(key("limited_transmit"), "Linux always uses Limited Transmit");
    }
    if o.newreno == Some(false) {
        return err(key("newreno"), "Linux always uses NewReno-style recovery; plain Reno cannot be emulated");
    }
    if o.newreno_timer.is_some() {
        return err(key("newreno_timer"), no);
    }
    if matches!(o.idle_restart, Some(IdleRestartCfg::Ns2Timer | IdleRestartCfg::Rfc5681)) {
        return err(
            key("idle_restart"),
            "Linux restarts after idle its own way (net.ipv4.tcp_slow_start_after_idle): \"linux\" or \"off\"",
        );
    }
    // ns-2's window validation and its increase rule; Linux validates an
    // application-limited window its own way, always.
    for (name, on) in [
        ("cwnd_validation", o.cwnd_validation),
        ("cwv_rtt_counting", o.cwv_rtt_counting),
        ("control_increase", o.control_increase),
    ] {
        if on == Some(true) {
            return err(key(name), no);
        }
    }
    // Linux's own rules, the linux profile's values; the others it cannot run.
    if o.cwnd_increase == Some(CwndIncrease::PerAck) {
        return err(
            key("cwnd_increase"),
            "Linux grows its window by every segment an ACK covers: only \"per-segment\"",
        );
    }
    if o.push_ack == Some(false) {
        return err(key("push_ack"), "Linux acknowledges the end of a write at once: only true");
    }
    if o.cwnd_limited == Some(false) {
        return err(key("cwnd_limited"), "Linux grows its window only while the window limits it: only true");
    }
    if o.rtt_estimator.is_some_and(|e| e != RttEstimatorName::Linux) {
        return err(key("rtt_estimator"), "Linux estimates its RTO with its own estimator: only \"linux\"");
    }
    if o.rtt_timing.is_some_and(|t| t != RttTimingName::Linux) {
        return err(key("rtt_timing"), "Linux takes an RTT sample from every ACK of new data: only \"linux\"");
    }
    if o.prr == Some(false) {
        return err(key("prr"), "Linux's fast recovery is Proportional Rate Reduction: only true");
    }
    if o.rack == Some(false) {
        return err(
            key("rack"),
            "Linux detects SACK losses with RACK (net.ipv4.tcp_recovery; the only detection of recent kernels): only true",
        );
    }
    if o.tlp == Some(false) {
        return err(key("tlp"), "Linux sends tail-loss probes (net.ipv4.tcp_early_retrans = 3): only true");
    }
    if o.tso_defer == Some(false) {
        return err(
            key("tso_defer"),
            "Linux defers small GSO bursts (tcp_tso_should_defer(); every TCP socket uses GSO): only true",
        );
    }
    if o.undo == Some(false) {
        return err(key("undo"), "Linux always undoes a reduction its timestamps show spurious (no knob): only true");
    }
    if o.quick_acks.is_some_and(|q| q != 16) {
        return err(key("quick_acks"), "Linux starts with at most 16 quick ACKs (TCP_MAX_QUICKACKS): only 16");
    }
    if o.nagle == Some(NagleCfg::Rfc896) {
        return err(key("nagle"), "Linux's Nagle rule is Minshall's: \"off\" (TCP_NODELAY) or \"minshall\"");
    }
    if o.receive_window == Some(ReceiveWindowName::Fixed) {
        return err(
            key("receive_window"),
            "Linux's receiver grows its window under receive-buffer autotuning: only \"linux\"",
        );
    }
    if o.rcv_truesize.is_some() {
        return err(key("rcv_truesize"), "the kernel charges each packet the memory it takes; remove the key");
    }
    if o.loss_window == Some(LossWindow::Flight) {
        return err(key("loss_window"), "Linux halves its window, not the flight, on a loss: only \"cwnd\"");
    }
    Ok(())
}

/// The flows of the scenario (between the path's ends) and the host
/// settings they need. `end_of` maps a node name to its end (0 or 1).
pub fn plan(
    cfg: &ScenarioCfg,
    knobs: &Knobs,
    end_of: impl Fn(&str) -> usize,
) -> Result<(Vec<FlowSpec>, HostSettings), ScenarioError> {
    if cfg.flow.is_empty() {
        return err("flow".into(), "the emulator needs at least one flow");
    }
    let mut flows = Vec::new();
    let mut host: Option<(usize, HostSettings)> = None;
    for (i, f) in cfg.flow.iter().enumerate() {
        let cc = match f.transport {
            TransportName::Udp => return err(format!("flow[{i}].transport"), "the emulator runs TCP flows only"),
            TransportName::Tahoe => {
                return err(
                    format!("flow[{i}].transport"),
                    "Linux has no Tahoe; use reno, newreno, sack, vegas or cubic",
                )
            }
            TransportName::Vegas => "vegas",
            TransportName::Cubic => "cubic",
            TransportName::Westwood => "westwood",
            TransportName::Bbr => "bbr",
            TransportName::TcpAp => {
                return err(
                    format!("flow[{i}].transport"),
                    "TCP-AP is a simulated sender; Linux has no such module (use newreno for its loss recovery)",
                )
            }
            _ => "reno",
        };
        if f.split.is_some() {
            return err(
                format!("flow[{i}].split"),
                "a split connection is a simulated relay; the emulator runs end-to-end connections only",
            );
        }
        if f.eln {
            return err(format!("flow[{i}].eln"), "ELN is a simulated mechanism; the emulator has none");
        }
        if f.vegas.is_some() && knobs.cc.is_none() {
            return err(
                format!("flow[{i}].vegas"),
                "Linux's vegas module takes its thresholds as module parameters; remove the table",
            );
        }
        if f.cubic.is_some() {
            return err(
                format!("flow[{i}].cubic"),
                "Linux's cubic module takes its parameters as module parameters (/sys/module/tcp_cubic/parameters), for every connection; remove the table",
            );
        }
        let own = f.tcp.clone().unwrap_or_default();
        unsupported(i, &own, &own.or(&cfg.tcp))?;
        let tc = tcp_config(cfg, f);
        let mss = tc.mss;
        let hs = HostSettings {
            sack: tc.sack,
            timestamps: tc.timestamps,
            ecn: tc.ecn,
            reordering: tc.dupthresh,
            initcwnd: (tc.initial_cwnd() / mss as u64).max(1) as u32,
            rto_min_ms: (tc.min_rto != 200 * MS).then_some(tc.min_rto.div_ceil(MS)),
            quickack: matches!(tc.ack_policy, AckPolicy::Immediate),
            // A profile's own rule (ns-2's timer, RFC 5681's restart) has
            // no Linux knob and gives way to the kernel's; set explicitly,
            // it is refused above.
            slow_start_after_idle: tc.idle_restart != IdleRestart::Off,
            frto: tc.frto,
            dsack: tc.dsack,
            rmem: match tc.receive_window {
                ReceiveWindow::Linux { rcvbuf, rcvbuf_max, .. } => (rcvbuf, rcvbuf_max),
                ReceiveWindow::Fixed => (DEFAULT_RCVBUF, DEFAULT_RCVBUF_MAX),
            },
            comp_sack: (tc.comp_sack.nr, tc.comp_sack.delay, tc.comp_sack.slack),
            mtu: 0,
        };
        match &host {
            None => host = Some((i, hs.clone())),
            Some((j, h)) if *h != hs => {
                return err(
                    format!("flow[{i}].tcp"),
                    &format!("the emulator sets SACK, D-SACK, timestamps, ECN, dupthresh, F-RTO, initial window, min RTO, delayed ACKs, the receive buffer and SACK compression per host; flow[{i}] differs from flow[{j}] ({hs:?} vs {h:?})"),
                )
            }
            _ => {}
        }
        let (start, work) = match &f.app {
            AppCfg::Transfer { bytes, write, more, .. } => (
                app_start(cfg, i),
                Work::Transfer { bytes: *bytes, write: *write, more: more.iter().map(|m| (m.at.0, m.bytes)).collect() },
            ),
            AppCfg::Bulk { stop, .. } => (app_start(cfg, i), Work::Bulk { stop: stop.map(|d| d.0) }),
            AppCfg::Messages { stop, .. } => (
                app_start(cfg, i),
                Work::Messages { writes: message_writes(cfg, i, cfg.sim.duration.0), stop: stop.map(|d| d.0) },
            ),
            AppCfg::Cbr { .. } => {
                return err(format!("flow[{i}].app.kind"), "the emulator runs transfer, bulk and messages applications")
            }
        };
        let pauses = !work.timed().is_empty();
        flows.push(FlowSpec {
            name: f.name.clone().unwrap_or_else(|| format!("flow{i}")),
            from: end_of(&f.from),
            port: 5001 + i as u16,
            start,
            work,
            first_bytes: f.first_bytes,
            knobs: SockKnobs {
                cc: knobs.cc.clone().unwrap_or_else(|| cc.to_string()),
                // The MSS option counts the options every segment carries.
                maxseg: Some(maxseg(i, mss, tc.timestamps)?),
                window_clamp: Some(tc.rwnd.min(i32::MAX as u64) as u32),
                // Nagle off: pausing applications set TCP_NODELAY (the
                // others write once, where Linux's Minshall rule holds
                // nothing back); "minshall" keeps the kernel's rule.
                nodelay: pauses && tc.nagle != Nagle::Minshall,
                rcvbuf: knobs.rcvbuf,
                sndbuf: knobs.sndbuf,
            },
            sample_every: cfg.output.sample_interval.map(|d| d.0),
        });
    }
    let mut host = host.expect("at least one flow").1;
    let largest = flows.iter().filter_map(|f| f.knobs.maxseg).max().unwrap_or(0);
    host.mtu = (largest + HEADERS).max(1500);
    Ok((flows, host))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcplab_core::Scenario;

    fn plan_of(packet_size: u32, timestamps: bool) -> Result<(Vec<FlowSpec>, HostSettings), ScenarioError> {
        plan_with(packet_size, &format!("timestamps = {timestamps}"), r#"{ kind = "bulk" }"#)
    }

    /// One flow of `packet_size` with the flow's `tcp` table's lines `tcp`
    /// and application `app`.
    fn plan_with(packet_size: u32, tcp: &str, app: &str) -> Result<(Vec<FlowSpec>, HostSettings), ScenarioError> {
        let sc = Scenario::from_toml_str(&plan_text(packet_size, tcp, app)).unwrap();
        plan(&sc.cfg, &Knobs::default(), |n| usize::from(n == "b"))
    }

    fn plan_text(packet_size: u32, tcp: &str, app: &str) -> String {
        format!(
            r#"
[sim]
duration = "1s"
tcp_profile = "linux"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
[[flow]]
from = "a"
to = "b"
transport = "newreno"
packet_size = {packet_size}
tcp = {{ {tcp} }}
app = {app}
"#
        )
    }

    #[test]
    fn packet_size_outside_tcp_maxseg_is_refused_with_the_range() {
        // TCP_MAXSEG takes 88..32767 and counts the 12 timestamp bytes.
        for (ps, ts) in [(75, true), (32756, true), (87, false), (32768, false)] {
            let e = plan_of(ps, ts).err().unwrap_or_else(|| panic!("{ps} accepted"));
            assert_eq!(e.key, "flow[0].packet_size");
            let range = if ts { "76..32755" } else { "88..32767" };
            assert!(e.to_string().contains(range), "{e}");
        }
        for (ps, ts) in [(76, true), (32755, true), (88, false), (32767, false)] {
            assert!(plan_of(ps, ts).is_ok(), "{ps}");
        }
    }

    #[test]
    fn the_tun_mtu_fits_the_largest_segment() {
        // 1500 (a 1448-byte MSS with timestamps) unless a segment needs more.
        assert_eq!(plan_of(1000, true).unwrap().1.mtu, 1500);
        let (flows, host) = plan_of(4000, true).unwrap();
        assert_eq!(flows[0].knobs.maxseg, Some(4012));
        assert_eq!(host.mtu, 4000 + 12 + 40);
        assert_eq!(plan_of(32767, false).unwrap().1.mtu, 32807);
    }

    #[test]
    fn later_writes_and_messages_are_replayed_at_their_times() {
        let more = r#"{ kind = "transfer", bytes = 5000, more = [{ at = "0.5s", bytes = 3000 }] }"#;
        let (flows, host) = plan_with(1000, "", more).unwrap();
        assert!(matches!(&flows[0].work, Work::Transfer { bytes: 5000, more, .. } if more == &[(500 * MS, 3000)]));
        assert!(flows[0].knobs.nodelay && host.slow_start_after_idle);
        let msgs = r#"{ kind = "messages", interval = "10ms", stop = "0.8s", bytes = 200 }"#;
        let (flows, _) = plan_with(1000, "", msgs).unwrap();
        let Work::Messages { writes, stop } = &flows[0].work else { panic!("{:?}", flows[0].work) };
        assert_eq!(*stop, Some(800 * MS));
        // The simulator's own draws (its seed and stream), as many as an
        // 800 ms run of 10 ms gaps makes.
        let sc = Scenario::from_toml_str(&plan_text(1000, "", msgs)).unwrap();
        assert_eq!(writes, &message_writes(&sc.cfg, 0, sc.cfg.sim.duration.0));
        assert!((50..120).contains(&writes.len()) && writes.iter().all(|&(t, b)| t < 800 * MS && b == 200));
        // A single transfer or bulk flow keeps Nagle's rule.
        assert!(!plan_of(1000, true).unwrap().0[0].knobs.nodelay);
    }

    #[test]
    fn the_restart_after_idle_is_the_kernels_sysctl() {
        let app = r#"{ kind = "transfer", bytes = 5000, more = [{ at = "0.5s", bytes = 3000 }] }"#;
        // The value of sysctl `key` planned for a flow with `tcp`.
        let sysctl = |tcp: &str, key: &str| {
            let h = plan_with(1000, tcp, app).unwrap().1;
            h.sysctls().into_iter().find(|(k, _)| *k == key).unwrap().1
        };
        for (tcp, key, value) in [
            (r#"idle_restart = "linux""#, "net.ipv4.tcp_slow_start_after_idle", "1"),
            (r#"idle_restart = "off""#, "net.ipv4.tcp_slow_start_after_idle", "0"),
            ("frto = true", "net.ipv4.tcp_frto", "2"),
            ("frto = false", "net.ipv4.tcp_frto", "0"),
            ("dsack = true", "net.ipv4.tcp_dsack", "1"),
            ("dsack = false", "net.ipv4.tcp_dsack", "0"),
            // The receive buffer of Linux's window: tcp_rmem's default and
            // largest, the kernel's own unless set.
            ("", "net.ipv4.tcp_rmem", "4096 131072 33554432"),
            ("rcvbuf = 65536, rcvbuf_max = 1000000", "net.ipv4.tcp_rmem", "4096 65536 1000000"),
            // SACK compression: the kernel's defaults in the linux profile.
            ("", "net.ipv4.tcp_comp_sack_nr", "44"),
            ("", "net.ipv4.tcp_comp_sack_delay_ns", "1000000"),
            ("", "net.ipv4.tcp_comp_sack_slack_ns", "100000"),
            ("comp_sack_nr = 0", "net.ipv4.tcp_comp_sack_nr", "0"),
            (r#"comp_sack_delay = "500us", comp_sack_slack = "0s""#, "net.ipv4.tcp_comp_sack_delay_ns", "500000"),
            (r#"comp_sack_delay = "500us", comp_sack_slack = "0s""#, "net.ipv4.tcp_comp_sack_slack_ns", "0"),
        ] {
            assert_eq!(sysctl(tcp, key), value, "{tcp}");
        }
        // Linux's own values of its rules are accepted.
        assert!(plan_with(
            1000,
            r#"cwnd_increase = "per-segment", push_ack = true, prr = true, rack = true, tlp = true, undo = true, tso_defer = true"#,
            app
        )
        .is_ok());
        assert!(plan_with(
            1000,
            r#"loss_window = "cwnd", quick_acks = 16, rtt_estimator = "linux", rtt_timing = "linux""#,
            app
        )
        .is_ok());
        for (tcp, key) in [
            (r#"idle_restart = "ns2-timer""#, "flow[0].tcp.idle_restart"),
            (r#"idle_restart = "rfc5681""#, "flow[0].tcp.idle_restart"),
            ("cwnd_validation = true", "flow[0].tcp.cwnd_validation"),
            ("cwv_rtt_counting = true", "flow[0].tcp.cwv_rtt_counting"),
            ("control_increase = true", "flow[0].tcp.control_increase"),
            (r#"cwnd_increase = "per-ack""#, "flow[0].tcp.cwnd_increase"),
            ("push_ack = false", "flow[0].tcp.push_ack"),
            ("cwnd_limited = false", "flow[0].tcp.cwnd_limited"),
            ("prr = false", "flow[0].tcp.prr"),
            ("rack = false", "flow[0].tcp.rack"),
            ("tlp = false", "flow[0].tcp.tlp"),
            ("tso_defer = false", "flow[0].tcp.tso_defer"),
            ("undo = false", "flow[0].tcp.undo"),
            (r#"loss_window = "flight""#, "flow[0].tcp.loss_window"),
            (r#"receive_window = "fixed""#, "flow[0].tcp.receive_window"),
            ("rcv_truesize = 2304", "flow[0].tcp.rcv_truesize"),
            ("quick_acks = 0", "flow[0].tcp.quick_acks"),
            (r#"nagle = "rfc896""#, "flow[0].tcp.nagle"),
            (r#"rtt_estimator = "rfc6298""#, "flow[0].tcp.rtt_estimator"),
            (r#"rtt_estimator = "ns2""#, "flow[0].tcp.rtt_estimator"),
            (r#"rtt_timing = "karn""#, "flow[0].tcp.rtt_timing"),
        ] {
            let e = plan_with(1000, tcp, app).err().unwrap_or_else(|| panic!("{tcp} accepted"));
            assert_eq!(e.key, key, "{e}");
        }
    }
}
