//! Semantic validation (ranges, names, reachability) and construction of the
//! world from a parsed scenario.

use super::config::*;
use super::units::Dur;
use super::wireless::Radio;
use super::ScenarioError;
use crate::engine::{stream_rng, Ns2Rng, Time};
use crate::mechanisms::{ConnKey, ElnAgent, SnoopAgent};
use crate::net::error::ErrorKind;
use crate::net::routing::{reachable_from, shortest_paths_to, strong_components, Router, StaticRouting};
use crate::net::{
    CodelParams, DevId, Device, DrrClassify, DrrParams, ErrorModel, FqCodelParams, HitAction, PacketClass,
    PointToPoint, Queue, QueuePolicy, RedParams, RedVictim,
};
use crate::output::pcap::{PcapWriter, SynFlow};
use crate::output::RunOptions;
use crate::packet::{FlowId, NodeId};
use crate::sim::{trace_sink, Capture, Flow, Gaps, Node, Samples, Split, World};
use crate::transport::app::App;
use crate::transport::socket::{SockId, Socket, SocketKind, SplitRole};
use crate::transport::tcp::adaptive_pacing::ApParams;
use crate::transport::tcp::config::DEFAULT_THINNING;
use crate::transport::tcp::{make_cc, AckPolicy, TcpConfig, TcpProfile, TcpReceiver, TcpSender, Variant, VegasParams};
use crate::transport::udp::UdpFlow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

type R<T> = Result<T, ScenarioError>;

/// The largest advertised window TCP allows (RFC 7323 2.3: 2^30 bytes). SACK
/// blocks travel as 32-bit sequence numbers and are read back relative to the
/// cumulative ACK (`packet::SackEdges`), exact while the window stays below
/// 2^31.
const MAX_WINDOW: u64 = 1 << 30;

/// Take a scenario's value where it gives one.
pub(super) fn put<T>(to: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *to = v;
    }
}

/// The kernel's timer frequencies (CONFIG_HZ) a module's clock may take.
fn check_hz(hz: Option<u32>, key: String) -> R<()> {
    match hz.filter(|h| ![100, 250, 300, 1000].contains(h)) {
        Some(h) => err(key, format!("must be one of 100, 250, 300, 1000 (the kernel's CONFIG_HZ), got {h}")),
        None => Ok(()),
    }
}

/// A CUBIC or Westwood+ flow's table and recovery: its parameters within
/// the kernel's ranges, and Linux's loss recovery under it (each is the
/// kernel's module, whose recovery is the kernel's).
fn check_cubic(cfg: &ScenarioCfg, f: &FlowCfg, k: &str) -> R<()> {
    if let Some(w) = &f.westwood {
        if f.transport != TransportName::Westwood {
            return err(format!("{k}.westwood"), "Westwood+ parameters need transport = \"westwood\"");
        }
        check_hz(w.hz, format!("{k}.westwood.hz"))?;
    }
    if let Some(b) = &f.bbr {
        if f.transport != TransportName::Bbr {
            return err(format!("{k}.bbr"), "BBR parameters need transport = \"bbr\"");
        }
        check_hz(b.hz, format!("{k}.bbr.hz"))?;
    }
    if matches!(f.transport, TransportName::Westwood | TransportName::Bbr) {
        let name = f.transport.as_str();
        let tc = tcp_config(cfg, f);
        if !tc.prr {
            return err(
                format!("{k}.transport"),
                format!("\"{name}\" runs with Linux's loss recovery: needs [sim] tcp_profile = \"linux\" (or [tcp] prr = true)"),
            );
        }
        // With SACK Linux's recovery is RACK's (its CWR state and the
        // end of a reduction that Westwood+ hears; the states BBR reads).
        if tc.sack && (!tc.rack || tc.rules.sack1_recovery) {
            return err(
                format!("{k}.tcp.rack"),
                format!("\"{name}\" with SACK runs with Linux's RACK recovery: needs tcp.rack = true (the linux profile's default)"),
            );
        }
    }
    if let Some(c) = &f.cubic {
        if f.transport != TransportName::Cubic {
            return err(format!("{k}.cubic"), "CUBIC parameters need transport = \"cubic\"");
        }
        if let Some(b) = c.beta.filter(|b| !(1..=1023).contains(b)) {
            return err(format!("{k}.cubic.beta"), format!("must be 1..1023 (in 1/1024), got {b}"));
        }
        if let Some(b) = c.bic_scale.filter(|b| !(1..=1024).contains(b)) {
            return err(format!("{k}.cubic.bic_scale"), format!("must be 1..1024 (in 1/1024), got {b}"));
        }
        if let Some(d) = c.hystart_detect.filter(|d| *d > 3) {
            return err(
                format!("{k}.cubic.hystart_detect"),
                format!("must be 0..3 (1: ACK train, 2: delay, 3: both), got {d}"),
            );
        }
        check_hz(c.hz, format!("{k}.cubic.hz"))?;
    }
    if f.transport == TransportName::Cubic && !tcp_config(cfg, f).prr {
        return err(
            format!("{k}.transport"),
            "\"cubic\" runs with Linux's loss recovery: needs [sim] tcp_profile = \"linux\" (or [tcp] prr = true)",
        );
    }
    Ok(())
}

/// A TCP-AP flow's table within its ranges, and the timestamps its RTT
/// samples come from.
fn check_tcp_ap(cfg: &ScenarioCfg, f: &FlowCfg, k: &str) -> R<()> {
    if f.tcp_ap.is_some() && f.transport != TransportName::TcpAp {
        return err(format!("{k}.tcp_ap"), "TCP-AP parameters need transport = \"tcp_ap\"");
    }
    if f.transport != TransportName::TcpAp {
        return Ok(());
    }
    if !tcp_config(cfg, f).timestamps {
        return err(
            format!("{k}.tcp.timestamps"),
            "\"tcp_ap\" takes an RTT sample from every ACK's timestamp echo: needs timestamps = true",
        );
    }
    let Some(a) = &f.tcp_ap else { return Ok(()) };
    let key = |n: &str| format!("{k}.tcp_ap.{n}");
    if let Some(n) = a.n_factor.filter(|n| !(1..=64).contains(n)) {
        return err(key("n_factor"), format!("must be 1..64 hops, got {n}"));
    }
    if let Some(n) = a.history.filter(|n| !(1..=10_000).contains(n)) {
        return err(key("history"), format!("must be 1..10000 samples, got {n}"));
    }
    for (n, v) in [("alpha", a.alpha), ("gamma", a.gamma)] {
        if let Some(x) = v.filter(|x| !(0.0..1.0).contains(x)) {
            return err(key(n), format!("must be a weight in [0, 1), got {x}"));
        }
    }
    for (n, v) in [("delay_bound", a.delay_bound), ("initial_interval", a.initial_interval)] {
        if v.is_some_and(|d| d.0 == 0) {
            return err(key(n), "must be longer than 0 s");
        }
    }
    if let Some(r) = a.link_rate.filter(|r| !(r.0 > 0.0 && r.0.is_finite())) {
        return err(key("link_rate"), format!("must be a positive rate, got {} bit/s", r.0));
    }
    if let Some(o) = a.overhead.filter(|o| *o > 65_535) {
        return err(key("overhead"), format!("must be 0..65535 bytes, got {o}"));
    }
    Ok(())
}

/// TCP-AP's parameters for a `tcp_ap` flow: the table's, else the agent's
/// defaults, the link rate the radio's data rate where there is one.
fn tcp_ap_params(cfg: &ScenarioCfg, f: &FlowCfg) -> ApParams {
    let a = f.tcp_ap.unwrap_or_default();
    let d = ApParams::default();
    let radio = cfg.wireless.as_ref().map(|w| w.data_rate.map_or(2e6, |r| r.0));
    ApParams {
        n_factor: a.n_factor.unwrap_or(d.n_factor),
        history: a.history.map_or(d.history, |n| n as usize),
        alpha: a.alpha.unwrap_or(d.alpha),
        gamma: a.gamma.unwrap_or(d.gamma),
        delay_bound: a.delay_bound.map_or(d.delay_bound, |t| t.0 as f64 / 1e9),
        link_rate_bps: a.link_rate.map(|r| r.0).or(radio).unwrap_or(d.link_rate_bps),
        overhead: a.overhead.map_or(d.overhead, |o| o as f64),
        initial_interval: a.initial_interval.map_or(d.initial_interval, |t| t.0 as f64 / 1e9),
        cov: a.variation == Some(ApVariation::Cov),
        backoff: a.backoff.unwrap_or(d.backoff),
    }
}

/// Reads one switch from a `tcp` table.
type Switch = fn(&TcpOptions) -> Option<bool>;

/// The key where switch `name` is set true explicitly (the flow's own
/// `tcp` table first, then `[tcp]`), if it is.
fn set_true(cfg: &ScenarioCfg, f: &FlowCfg, k: &str, name: &str, get: Switch) -> Option<String> {
    let own = f.tcp.as_ref().and_then(get);
    if own.or(get(&cfg.tcp)) != Some(true) {
        return None;
    }
    Some(if own.is_some() { format!("{k}.tcp.{name}") } else { format!("tcp.{name}") })
}

/// RACK is Linux's loss detection inside Linux's SACK recovery: set
/// explicitly on a SACK flow it needs PRR and RFC 6675's scoreboard (not
/// ns-2's Sack1). The profile's own `rack` (the linux profile's) is simply
/// idle where those are off. The key named is where `rack` was set: the
/// flow's own `tcp` table or `[tcp]`. D-SACK blocks need SACK alike.
fn check_rack(cfg: &ScenarioCfg, f: &FlowCfg, k: &str) -> R<()> {
    let c = tcp_config(cfg, f);
    // The tail-loss probe is RACK's; the undo and F-RTO run inside Linux's
    // recovery: RACK's with SACK, the Reno emulation (PRR's) without.
    let linux_recovery = if c.sack { c.rack } else { c.prr };
    let parts: [(&str, Switch, bool, &str); 3] = [
        ("tlp", |t| t.tlp, c.rack, "the tail-loss probe is RACK's: needs rack = true"),
        (
            "undo",
            |t| t.undo,
            linux_recovery,
            "the undo of spurious reductions runs in Linux's recovery: needs rack = true (with SACK) or prr = true (without)",
        ),
        (
            "frto",
            |t| t.frto,
            linux_recovery,
            "F-RTO runs in Linux's recovery: needs rack = true (with SACK) or prr = true (without)",
        ),
    ];
    for (name, get, on, what) in parts {
        if let Some(key) = set_true(cfg, f, k, name, get).filter(|_| !on) {
            return err(key, format!("{what} (or {name} = false)"));
        }
    }
    if let Some(key) = set_true(cfg, f, k, "dsack", |t| t.dsack).filter(|_| !c.sack) {
        return err(key, "D-SACK blocks are SACK blocks: needs sack = true (or dsack = false)");
    }
    let Some(key) = set_true(cfg, f, k, "rack", |t| t.rack) else { return Ok(()) };
    if c.sack && !c.prr {
        return err(key, "RACK runs in Linux's SACK recovery: needs prr = true (or rack = false)");
    }
    if c.sack && c.rules.sack1_recovery {
        return err(key, "RACK runs in Linux's SACK recovery: needs sack_recovery = \"rfc6675\" (or rack = false)");
    }
    Ok(())
}

fn err<T>(key: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(key, msg))
}

fn check_prob(key: String, p: f64) -> R<()> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return err(key, format!("must be a probability between 0 and 1, got {p}"));
    }
    Ok(())
}

fn node_index(cfg: &ScenarioCfg) -> HashMap<&str, NodeId> {
    cfg.node.iter().enumerate().map(|(i, n)| (n.name.as_str(), i as NodeId)).collect()
}

fn lookup(names: &HashMap<&str, NodeId>, key: String, name: &str) -> R<NodeId> {
    match names.get(name) {
        Some(i) => Ok(*i),
        None => {
            let mut known: Vec<&str> = names.keys().copied().collect();
            known.sort();
            err(key, format!("unknown node {name:?}; nodes are: {}", known.join(", ")))
        }
    }
}

/// A link runs at a whole number of bit/s (rounded): below 1 bit/s it
/// would be rounded up to 1, a rate the scenario did not ask for.
fn link_rate(key: String, r: super::units::Rate) -> R<()> {
    if r.0 < 1.0 {
        return err(key, format!("must be at least 1 bit/s (links run at whole bit/s), got {} bit/s", r.0));
    }
    Ok(())
}

fn validate_queue(key: String, q: &QueueCfg) -> R<()> {
    if let QueueCfg::Red {
        min_th,
        max_th,
        max_p,
        weight,
        limit,
        mean_pktsize,
        mark_p,
        use_mark_p,
        generator,
        generator_skip,
        ..
    } = q
    {
        if generator_skip.is_some() && *generator != Some(RedGenerator::Ns2) {
            return err(format!("{key}.generator_skip"), "is for generator = \"ns2\" only");
        }
        if let Some(m) = mark_p {
            // Above 1 every early mark stands (p_b never exceeds 1), as
            // ns-2's mark_p_ 2.0 in test-suite-red.
            if !(*m > 0.0 && m.is_finite()) {
                return err(format!("{key}.mark_p"), format!("must be a number above 0, got {m}"));
            }
            if *use_mark_p == Some(false) {
                return err(
                    format!("{key}.mark_p"),
                    "is read only with use_mark_p (ns-2's mark_p_ with use_mark_p_ true); use_mark_p = false marks every early hit",
                );
            }
        }
        if !(*min_th >= 0.0 && min_th < max_th) {
            return err(format!("{key}.min_th"), format!("must be >= 0 and below max_th ({max_th}), got {min_th}"));
        }
        check_prob(format!("{key}.max_p"), *max_p)?;
        if !(*weight > 0.0 && *weight <= 1.0) {
            return err(format!("{key}.weight"), format!("must be in (0, 1], got {weight}"));
        }
        if *limit == 0 {
            return err(format!("{key}.limit"), "must be at least 1 packet");
        }
        if *mean_pktsize == 0 {
            return err(format!("{key}.mean_pktsize"), "must be at least 1 byte");
        }
    }
    match q {
        QueueCfg::Drr { buckets, quantum, blimit, .. } => {
            at_least(format!("{key}.buckets"), *buckets as u64, 1, "bucket")?;
            at_least(format!("{key}.quantum"), *quantum as u64, 1, "byte")?;
            at_least(format!("{key}.blimit"), *blimit, 1, "byte")?;
        }
        QueueCfg::Codel { limit, target, interval, .. } => {
            at_least(format!("{key}.limit"), *limit as u64, 1, "packet")?;
            at_least(format!("{key}.target"), target.0, 1024, "ns (CoDel's clock ticks every 1.024 us)")?;
            at_least(format!("{key}.interval"), interval.0, 1024, "ns (CoDel's clock ticks every 1.024 us)")?;
        }
        QueueCfg::FqCodel { flows, limit, quantum, target, interval, drop_batch, .. } => {
            if !(1..=65536).contains(flows) {
                return err(format!("{key}.flows"), format!("must be 1..65536 (Linux's range), got {flows}"));
            }
            at_least(format!("{key}.limit"), *limit as u64, 1, "packet")?;
            // Linux raises a smaller quantum to 256.
            at_least(format!("{key}.quantum"), *quantum as u64, 256, "bytes (Linux's least)")?;
            at_least(format!("{key}.drop_batch"), *drop_batch as u64, 1, "packet")?;
            at_least(format!("{key}.target"), target.0, 1024, "ns (CoDel's clock ticks every 1.024 us)")?;
            at_least(format!("{key}.interval"), interval.0, 1024, "ns (CoDel's clock ticks every 1.024 us)")?;
        }
        _ => {}
    }
    if let QueueCfg::DualThreshold { soft, hard, .. } = q {
        if *soft == 0 || soft > hard {
            return err(format!("{key}.soft"), format!("must be 1..hard ({hard}), got {soft}"));
        }
    }
    if let QueueCfg::Droptail { limit, limit_bytes } = q {
        if *limit == Some(0) {
            return err(format!("{key}.limit"), "must be at least 1 packet (use kind = \"unlimited\" for no limit)");
        }
        if *limit_bytes == Some(0) {
            return err(format!("{key}.limit_bytes"), "must be at least 1 byte");
        }
    }
    Ok(())
}

/// `key` must be at least `least` (`unit` names it in the message).
fn at_least(key: String, value: u64, least: u64, unit: &str) -> R<()> {
    if value < least {
        return err(key, format!("must be at least {least} {unit}, got {value}"));
    }
    Ok(())
}

fn validate_error(key: &str, e: &ErrorCfg) -> R<()> {
    if e.action() == ErrorActionCfg::Delay && !matches!(e, ErrorCfg::Pattern { .. }) {
        return err(format!("{key}.action"), "\"delay\" is for kind = \"pattern\" only; here \"drop\" or \"mark\"");
    }
    match e {
        ErrorCfg::Uniform { rate, .. } => check_prob(format!("{key}.rate"), *rate),
        ErrorCfg::Ber { ber, .. } => check_prob(format!("{key}.ber"), *ber),
        ErrorCfg::GilbertElliott { p_good_bad, p_bad_good, loss_good, loss_bad, .. } => {
            check_prob(format!("{key}.p_good_bad"), *p_good_bad)?;
            check_prob(format!("{key}.p_bad_good"), *p_bad_good)?;
            check_prob(format!("{key}.loss_good"), *loss_good)?;
            check_prob(format!("{key}.loss_bad"), *loss_bad)
        }
        ErrorCfg::Pattern { drop, action, delay, .. } => {
            if drop.contains(&0) {
                return err(format!("{key}.drop"), "packet numbers start at 1");
            }
            match (action, delay) {
                (ErrorActionCfg::Delay, None) => err(format!("{key}.delay"), "required with action = \"delay\""),
                (ErrorActionCfg::Delay, Some(d)) if d.0 == 0 => err(format!("{key}.delay"), "must be > 0"),
                (_, Some(_)) if *action != ErrorActionCfg::Delay => err(
                    format!("{key}.delay"),
                    "only with action = \"delay\" (a dropped or marked packet is not delayed)",
                ),
                _ => Ok(()),
            }
        }
        ErrorCfg::Windows { windows, .. } => {
            for (i, w) in windows.iter().enumerate() {
                check_prob(format!("{key}.windows[{i}].rate"), w.rate)?;
                if w.end <= w.start {
                    return err(format!("{key}.windows[{i}].end"), "must be after start");
                }
            }
            Ok(())
        }
    }
}

fn validate_tcp(key: &str, t: &TcpOptions) -> R<()> {
    if let Some(InitialWindow::Segments(n)) = t.initial_window {
        if !(1..=64).contains(&n) {
            return err(format!("{key}.initial_window"), format!("must be 1..64 segments or \"rfc3390\", got {n}"));
        }
    }
    if let Some(n) = t.lost_syn_window {
        if !(1..=64).contains(&n) {
            return err(format!("{key}.lost_syn_window"), format!("must be 1..64 segments, got {n}"));
        }
    }
    // ns-2's estimator's scaling: bits of a 32-bit fixed point (RTTVAR's
    // first value is the sample shifted by rttvar_bits - 1).
    for (name, v, lo) in
        [("srtt_bits", t.srtt_bits, 1), ("rttvar_bits", t.rttvar_bits, 1), ("rttvar_exp", t.rttvar_exp, 0)]
    {
        if let Some(n) = v {
            if !(lo..=8).contains(&n) {
                return err(format!("{key}.{name}"), format!("must be {lo}..8, got {n}"));
            }
        }
    }
    if t.initial_ssthresh == Some(0) {
        return err(format!("{key}.initial_ssthresh"), "must be at least 1 segment");
    }
    if let Some(w) = t.window_bytes {
        if !(1..=MAX_WINDOW).contains(&w) {
            return err(
                format!("{key}.window_bytes"),
                format!("must be 1..{MAX_WINDOW} bytes (RFC 7323's largest window), got {w}"),
            );
        }
    }
    if t.quick_acks.is_some_and(|q| q > 1000) {
        return err(format!("{key}.quick_acks"), "must be 0 (none) to 1000");
    }
    // The kernel's own floors: SOCK_MIN_RCVBUF (2304) for the buffer, and
    // a segment's memory at least its payload's.
    for (name, v, low) in
        [("rcvbuf", t.rcvbuf, 2304), ("rcvbuf_max", t.rcvbuf_max, 2304), ("rcv_truesize", t.rcv_truesize, 64)]
    {
        if let Some(v) = v.filter(|&v| !(low..=1 << 30).contains(&v)) {
            return err(format!("{key}.{name}"), format!("must be {low} to {} bytes, got {v}", 1u32 << 30));
        }
    }
    if t.dupthresh == Some(0) {
        return err(format!("{key}.dupthresh"), "must be at least 1");
    }
    for (name, v) in [("initial_rto", t.initial_rto), ("max_rto", t.max_rto), ("granularity", t.granularity)] {
        if v.map(|d| d.0) == Some(0) {
            return err(format!("{key}.{name}"), "must be greater than 0");
        }
    }
    if let (Some(a), Some(b)) = (t.min_rto, t.max_rto) {
        if a > b {
            return err(format!("{key}.min_rto"), "must not exceed max_rto");
        }
    }
    if t.delayed_ack == Some(true) && t.ack_thinning == Some(true) {
        return err(format!("{key}.ack_thinning"), "choose one of delayed_ack and ack_thinning");
    }
    if let Some(th) = t.thinning_thresholds {
        if !(th[0] <= th[1] && th[1] <= th[2]) {
            return err(
                format!("{key}.thinning_thresholds"),
                "must be three non-decreasing segment counts, e.g. [2, 5, 9]",
            );
        }
    }
    if t.delack_timeout.map(|d| d.0) == Some(0) {
        return err(format!("{key}.delack_timeout"), "must be greater than 0");
    }
    let span = crate::transport::tcp::jiffies::START_SPAN;
    if let Some(n) = t.jiffies_start.filter(|&n| n >= span) {
        return err(format!("{key}.jiffies_start"), format!("must be 0 to {}, got {n}", span - 1));
    }
    // The kernel's own range for tcp_comp_sack_nr.
    if let Some(n) = t.comp_sack_nr.filter(|&n| n > 255) {
        return err(format!("{key}.comp_sack_nr"), format!("must be 0 (no compression) to 255, got {n}"));
    }
    for (name, v) in [("comp_sack_delay", t.comp_sack_delay), ("comp_sack_slack", t.comp_sack_slack)] {
        if let Some(d) = v.filter(|d| d.0 > crate::engine::time::SEC) {
            return err(format!("{key}.{name}"), format!("must be 0 to 1s, got {}s", d.0 as f64 / 1e9));
        }
    }
    Ok(())
}

/// IPv4 + UDP header bytes of a CBR datagram on the wire.
const UDP_IP_HEADERS: f64 = 28.0;

/// Names end up in CSV cells, Parquet strings, file names and terminals:
/// control characters (CR, LF, NUL, ESC ...) are refused up front rather
/// than failing half-way through writing the results.
fn check_name(key: String, name: &str) -> R<()> {
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return err(key, format!("{name:?} contains the control character {:?}; use printable characters", c));
    }
    Ok(())
}

/// Where a merged TCP option came from, for the error message: the flow's
/// own `tcp` table, the global `[tcp]` table, or the profile default.
fn tcp_source(cfg: &ScenarioCfg, i: usize, f: &FlowCfg, pick: fn(&TcpOptions) -> bool, name: &str) -> String {
    if f.tcp.as_ref().is_some_and(pick) {
        format!("flow[{i}].tcp.{name}")
    } else if pick(&cfg.tcp) {
        format!("tcp.{name}")
    } else {
        format!("the {:?} profile's {name}", cfg.sim.tcp_profile).to_lowercase()
    }
}

/// Checks on a flow's TCP parameters after the profile, `[tcp]` and the
/// flow's own `tcp` table are merged: each table may be fine alone and the
/// mix still impossible (a flow's max_rto below the global min_rto).
fn validate_effective_tcp(cfg: &ScenarioCfg, i: usize, f: &FlowCfg) -> R<()> {
    let c = tcp_config(cfg, f);
    if let (Some(w), true) = (f.window, c.rwnd > MAX_WINDOW) {
        return err(
            format!("flow[{i}].window"),
            format!(
                "must be at most {MAX_WINDOW} bytes (RFC 7323's largest window), got {w} packets of {} bytes",
                c.mss
            ),
        );
    }
    let secs = crate::engine::time::to_secs;
    let phase = f.tcp.as_ref().and_then(|t| t.clock_phase).or(cfg.tcp.clock_phase);
    if let Some(p) = phase.filter(|p| p.0 >= c.granularity) {
        return err(
            tcp_source(cfg, i, f, |t| t.clock_phase.is_some(), "clock_phase"),
            format!(
                "must be below the tick (granularity {} s) for flow[{i}], got {} s",
                secs(c.granularity),
                secs(p.0)
            ),
        );
    }
    if c.timer_wheel && c.granularity > crate::transport::tcp::jiffies::MAX_TICK {
        return err(
            tcp_source(cfg, i, f, |t| t.granularity.is_some(), "granularity"),
            format!(
                "must be at most 1 s with timer_wheel on (the kernel's jiffy, 1 / HZ) for flow[{i}], got {} s",
                secs(c.granularity)
            ),
        );
    }
    if c.min_rto > c.max_rto {
        let min_from = tcp_source(cfg, i, f, |t| t.min_rto.is_some(), "min_rto");
        let max_from = tcp_source(cfg, i, f, |t| t.max_rto.is_some(), "max_rto");
        // Name the key the user set (the more specific one when both were set).
        let flow_set = |p: fn(&TcpOptions) -> bool| f.tcp.as_ref().is_some_and(p);
        let key =
            if flow_set(|t| t.max_rto.is_some()) || (!flow_set(|t| t.min_rto.is_some()) && cfg.tcp.max_rto.is_some()) {
                max_from.clone()
            } else {
                min_from.clone()
            };
        let key = if key.starts_with("the ") { format!("flow[{i}].tcp") } else { key };
        return err(
            key,
            format!(
                "min_rto ({} s, from {min_from}) exceeds max_rto ({} s, from {max_from}) for flow[{i}]; min_rto must not exceed max_rto",
                secs(c.min_rto),
                secs(c.max_rto)
            ),
        );
    }
    let o = f.tcp.clone().unwrap_or_default().or(&cfg.tcp);
    if o.delayed_ack == Some(true) && o.ack_thinning == Some(true) {
        let key = tcp_source(cfg, i, f, |t| t.ack_thinning.is_some(), "ack_thinning");
        return err(key, format!("flow[{i}] gets both delayed_ack and ack_thinning once [tcp] and its own tcp table are merged; choose one"));
    }
    // SACK compression times its ACKs by the receiver's RTT estimate,
    // which Linux's window keeps (`receive_window`: a profile's own
    // compression is off under a fixed window).
    if c.comp_sack.nr > 0 && c.receive_window == crate::transport::tcp::ReceiveWindow::Fixed {
        return err(
            tcp_source(cfg, i, f, |t| t.comp_sack_nr.is_some(), "comp_sack_nr"),
            format!(
                "Linux's SACK compression times its ACKs by the receiver's RTT estimate, which only \
                 receive_window = \"linux\" keeps; flow[{i}]'s window is fixed: set comp_sack_nr = 0 or receive_window = \"linux\""
            ),
        );
    }
    Ok(())
}

pub fn validate(cfg: &ScenarioCfg) -> R<()> {
    if cfg.sim.duration.0 == 0 {
        return err("sim.duration", "must be greater than 0");
    }
    let mut seen = HashMap::new();
    for (i, n) in cfg.node.iter().enumerate() {
        if n.name.is_empty() {
            return err(format!("node[{i}].name"), "must not be empty");
        }
        check_name(format!("node[{i}].name"), &n.name)?;
        if let Some(j) = seen.insert(n.name.as_str(), i) {
            return err(format!("node[{i}].name"), format!("duplicate node name {:?} (also node[{j}])", n.name));
        }
    }
    let names = node_index(cfg);
    for (i, l) in cfg.link.iter().enumerate() {
        let k = format!("link[{i}]");
        let a = lookup(&names, format!("{k}.between"), &l.between[0])?;
        let b = lookup(&names, format!("{k}.between"), &l.between[1])?;
        if a == b {
            return err(format!("{k}.between"), "a link needs two different nodes");
        }
        if let Some(q) = &l.queue {
            validate_queue(format!("{k}.queue"), q)?;
        }
        link_rate(format!("{k}.rate"), l.rate)?;
        for (side, d) in [("forward", &l.forward), ("reverse", &l.reverse)] {
            if let Some(q) = d.as_ref().and_then(|d| d.queue.as_ref()) {
                validate_queue(format!("{k}.{side}.queue"), q)?;
            }
            if let Some(r) = d.as_ref().and_then(|d| d.rate) {
                link_rate(format!("{k}.{side}.rate"), r)?;
            }
        }
        for (key, side, e) in link_errors(l) {
            let key = format!("{k}.{key}");
            if let (Some(side), Some(_)) = (side, e.direction_given()) {
                return err(
                    format!("{key}.direction"),
                    format!(
                        "not allowed in a direction's own error model, which acts on the {side} direction; remove it"
                    ),
                );
            }
            validate_error(&key, e)?;
        }
    }
    // RED queues on ns-2's generator share its one stream: one skip.
    let mut skip: Option<(String, u64)> = None;
    for (i, l) in cfg.link.iter().enumerate() {
        let sides = [("queue", l.queue.as_ref())].into_iter().chain(
            [("forward.queue", &l.forward), ("reverse.queue", &l.reverse)]
                .map(|(k, d)| (k, d.as_ref().and_then(|d| d.queue.as_ref()))),
        );
        for (side, q) in sides {
            if let Some(QueueCfg::Red { generator: Some(RedGenerator::Ns2), generator_skip, .. }) = q {
                let (key, n) = (format!("link[{i}].{side}.generator_skip"), generator_skip.unwrap_or(0));
                match &skip {
                    Some((first, m)) if *m != n => {
                        return err(key, format!("is {n} but {first} is {m}: RED queues on ns-2's generator draw from its one stream, so their skips must agree"));
                    }
                    None => skip = Some((key, n)),
                    _ => {}
                }
            }
        }
    }
    for (i, l) in cfg.link.iter().enumerate() {
        for (key, _, e) in link_errors(l) {
            if let Some(f) = e.flow() {
                if flow_index(cfg, f).is_none() {
                    let known: Vec<String> = cfg.flow.iter().enumerate().map(|(j, g)| flow_name(j, g)).collect();
                    return err(
                        format!("link[{i}].{key}.flow"),
                        format!("no flow named {f:?}; the flows are {known:?}"),
                    );
                }
            }
        }
    }
    validate_tcp("tcp", &cfg.tcp)?;
    super::wireless::validate(cfg)?;
    let radio = super::wireless::radio(cfg, 2 * cfg.link.len() as DevId);
    if let Some(r) = &radio {
        super::wireless::check_cells(cfg, r)?;
    }
    let (dirs, _) = route_graph(cfg, radio.as_ref());
    // Each flow's ends must reach each other: the same strongly connected
    // component (the routes themselves are computed by `build`).
    let comp = strong_components(cfg.node.len(), &dirs);
    let mut flow_names = HashMap::new();
    for (i, f) in cfg.flow.iter().enumerate() {
        let k = format!("flow[{i}]");
        let a = lookup(&names, format!("{k}.from"), &f.from)?;
        let b = lookup(&names, format!("{k}.to"), &f.to)?;
        if a == b {
            return err(format!("{k}.to"), "must differ from `from`");
        }
        // Moving stations may meet later: only fixed ones must be connected.
        if comp[a as usize] != comp[b as usize]
            && !radio.as_ref().and_then(|r| r.mobility.as_ref()).is_some_and(|m| m.moves())
        {
            let why = radio.as_ref().and_then(|r| {
                // From whichever end cannot reach the other.
                let from_a = reachable_from(cfg.node.len(), &dirs, a);
                let reach = if from_a[b as usize] { reachable_from(cfg.node.len(), &dirs, b) } else { from_a };
                super::wireless::gap(cfg, r, &reach)
            });
            let why = why.map(|w| format!(": {w}")).unwrap_or_default();
            return err(format!("{k}.to"), format!("no route between {:?} and {:?}{why}", f.from, f.to));
        }
        let name = flow_name(i, f);
        if name.is_empty() {
            return err(format!("{k}.name"), "must not be empty");
        }
        check_name(format!("{k}.name"), &name)?;
        if let Some(j) = flow_names.insert(name.clone(), i) {
            return err(format!("{k}.name"), format!("duplicate flow name {name:?} (also flow[{j}])"));
        }
        if let Some(s) = f.packet_size {
            if !(1..=65_000).contains(&s) {
                return err(format!("{k}.packet_size"), format!("must be 1..65000 bytes, got {s}"));
            }
        }
        if f.window == Some(0) {
            return err(format!("{k}.window"), "must be at least 1 packet");
        }
        if let Some(v) = &f.vegas {
            if f.transport != TransportName::Vegas {
                return err(format!("{k}.vegas"), "Vegas thresholds need transport = \"vegas\"");
            }
            for (n, x) in [("alpha", v.alpha), ("beta", v.beta), ("gamma", v.gamma)] {
                if !(x >= 0.0 && x.is_finite()) {
                    return err(
                        format!("{k}.vegas.{n}"),
                        format!("must be a non-negative number of segments, got {x}"),
                    );
                }
            }
            if v.alpha > v.beta {
                return err(format!("{k}.vegas.alpha"), "must not exceed beta");
            }
        }
        check_cubic(cfg, f, &k)?;
        check_tcp_ap(cfg, f, &k)?;
        check_rack(cfg, f, &k)?;
        let moving = radio.as_ref().and_then(|r| r.mobility.as_ref()).is_some_and(|m| m.moves());
        check_split(cfg, f, &k, &names, |a, b| moving || comp[a as usize] == comp[b as usize])?;
        if f.first_bytes == Some(0) {
            return err(format!("{k}.first_bytes"), "must be at least 1 byte");
        }
        if let Some(j) = f.start_jitter.filter(|j| j.0 > 0) {
            // What must not come before the start must not come before
            // the latest start the jitter can draw either.
            let latest = app_start_key(&f.app) + j.0;
            let (what, at) = match &f.app {
                AppCfg::Bulk { stop, .. } | AppCfg::Cbr { stop, .. } | AppCfg::Messages { stop, .. } => {
                    ("app.stop", stop.map(|d| d.0))
                }
                AppCfg::Transfer { more, .. } => ("app.more[].at", more.iter().map(|m| m.at.0).min()),
            };
            if let Some(at) = at.filter(|&at| at < latest) {
                return err(
                    format!("{k}.start_jitter"),
                    format!(
                        "app.start + start_jitter ({} s) is after {what} ({} s): the application could start after it",
                        latest as f64 / 1e9,
                        at as f64 / 1e9
                    ),
                );
            }
        }
        if f.transport == TransportName::Udp && (f.ecn || f.eln) {
            return err(format!("{k}.{}", if f.ecn { "ecn" } else { "eln" }), "ECN and ELN are TCP options");
        }
        if let Some(t) = &f.tcp {
            if f.transport == TransportName::Udp {
                return err(format!("{k}.tcp"), "TCP options on a UDP flow");
            }
            validate_tcp(&format!("{k}.tcp"), t)?;
        }
        let ak = format!("{k}.app");
        match (&f.app, f.transport) {
            (AppCfg::Cbr { rate, interval, start, stop, .. }, TransportName::Udp) => {
                if rate.is_some() == interval.is_some() {
                    return err(ak, "a cbr app needs exactly one of `rate` or `interval`");
                }
                if interval.map(|d| d.0) == Some(0) {
                    return err(format!("{ak}.interval"), "must be greater than 0");
                }
                if let Some(r) = rate {
                    // One datagram per nanosecond (the clock's tick) at most:
                    // a faster rate would schedule sends without time passing.
                    let bits = (f.packet_size.unwrap_or(1000) as f64 + UDP_IP_HEADERS) * 8.0;
                    let highest = bits * 1e9;
                    if r.0 > highest {
                        return err(
                            format!("{ak}.rate"),
                            format!(
                                "{:e} bit/s sends datagrams less than 1 ns apart; the highest rate for {}-byte datagrams is {highest:e} bit/s",
                                r.0,
                                bits / 8.0
                            ),
                        );
                    }
                }
                if stop.is_some_and(|s| s < *start) {
                    return err(format!("{ak}.stop"), "must not be before start");
                }
            }
            (AppCfg::Cbr { .. }, _) => return err(format!("{ak}.kind"), "\"cbr\" needs transport = \"udp\""),
            (_, TransportName::Udp) => {
                return err(format!("{ak}.kind"), "a UDP flow needs kind = \"cbr\"");
            }
            (AppCfg::Messages { start, stop, interval, bytes, changes, generator, generator_skip }, _) => {
                if interval.0 == 0 {
                    return err(format!("{ak}.interval"), "must be above 0");
                }
                if *bytes == Some(0) {
                    return err(format!("{ak}.bytes"), "must be at least 1");
                }
                if stop.is_some_and(|s| s < *start) {
                    return err(format!("{ak}.stop"), "must not be before start");
                }
                for (j, c) in changes.iter().enumerate() {
                    if c.interval.0 == 0 {
                        return err(format!("{ak}.changes[{j}].interval"), "must be above 0");
                    }
                    if c.at < *start {
                        return err(format!("{ak}.changes[{j}].at"), "must not be before start");
                    }
                }
                if generator_skip.is_some() && *generator != Some(RedGenerator::Ns2) {
                    return err(format!("{ak}.generator_skip"), "is for generator = \"ns2\" only");
                }
            }
            (AppCfg::Bulk { start, stop }, _) => {
                if stop.is_some_and(|s| s < *start) {
                    return err(format!("{ak}.stop"), "must not be before start");
                }
            }
            (AppCfg::Transfer { bytes, write, start, more }, _) => {
                if *bytes == 0 {
                    return err(format!("{ak}.bytes"), "must be at least 1");
                }
                if *write == 0 {
                    return err(format!("{ak}.write"), "must be at least 1");
                }
                for (j, m) in more.iter().enumerate() {
                    if m.bytes == 0 {
                        return err(format!("{ak}.more[{j}].bytes"), "must be at least 1");
                    }
                    if m.at < *start {
                        return err(format!("{ak}.more[{j}].at"), "must not be before the transfer's start");
                    }
                }
            }
        }
    }
    // A run in which no flow starts measures nothing: a mistake (a start in
    // ms read as s, a duration cut too short), not a result of zeros. Some
    // flows starting after the end is a legitimate look at the early part
    // of a staggered scenario. Each flow's latest start counts, its
    // `start_jitter` included: the jitter is drawn per seed, so a check of
    // this seed's draws would pass some seeds of a sweep and refuse others.
    // A seed can leave every flow unstarted exactly when each one's latest
    // start (app.start + start_jitter less the clock's tick, `app_start`)
    // is at or after the end.
    let end = cfg.sim.duration.0;
    let latest = |f: &FlowCfg| app_start_key(&f.app) + f.start_jitter.map_or(0, |j| j.0.saturating_sub(1));
    if cfg.flow.iter().all(|f| latest(f) >= end) {
        let starts = cfg.flow.iter().map(|f| app_start_key(&f.app));
        if let Some((i, first)) = starts.enumerate().min_by_key(|&(_, s)| s).filter(|&(_, s)| s >= end) {
            return err(
                format!("flow[{i}].app.start"),
                format!(
                    "no flow starts before the end of the run (sim.duration = {} s); the earliest starts at {} s",
                    end as f64 / 1e9,
                    first as f64 / 1e9
                ),
            );
        }
        // Some app.start is before the end: the jitters' doing. Named: the
        // jitter of such a flow whose latest start is earliest.
        let before = cfg.flow.iter().enumerate().filter(|(_, f)| app_start_key(&f.app) < end);
        if let Some((i, f)) = before.min_by_key(|(_, f)| latest(f)) {
            let start = app_start_key(&f.app);
            let jitter = f.start_jitter.map_or(0, |j| j.0);
            return err(
                format!("flow[{i}].start_jitter"),
                format!(
                    "app.start + start_jitter ({} s) reaches past the end of the run (sim.duration = {} s) for \
                     every flow, so a seed can draw no start before the end; at most {} s here",
                    (start + jitter) as f64 / 1e9,
                    end as f64 / 1e9,
                    (end - start) as f64 / 1e9
                ),
            );
        }
    }
    for (i, f) in cfg.flow.iter().enumerate() {
        if f.transport != TransportName::Udp {
            validate_effective_tcp(cfg, i, f)?;
        }
        // A split flow's second connection, its options merged over the
        // flow's: what is wrong there only is the split's own table's.
        if let Some(half) = relay_half(f) {
            validate_effective_tcp(cfg, i, &half).map_err(|e| {
                let own = format!("flow[{i}].tcp");
                let split = format!("flow[{i}].split.tcp");
                match e.key.strip_prefix(&own) {
                    Some(rest) => ScenarioError::new(format!("{split}{rest}"), e.message.replace(&own, &split)),
                    None => e,
                }
            })?;
        }
    }
    let mut pcap_names = HashMap::new();
    for (i, c) in cfg.pcap.iter().enumerate() {
        let k = format!("pcap[{i}]");
        match (&c.link, &c.node) {
            (Some(l), None) => {
                if *l as usize >= cfg.link.len() {
                    let have = match cfg.link.len() {
                        0 => "the scenario has no links".to_string(),
                        1 => "the only link is link 0".to_string(),
                        n => format!("links are numbered 0 to {}", n - 1),
                    };
                    return err(format!("{k}.link"), format!("no link {l}; {have}"));
                }
            }
            (None, Some(n)) => {
                lookup(&names, format!("{k}.node"), n)?;
                if c.direction.is_some() {
                    return err(format!("{k}.direction"), "only for link captures");
                }
            }
            _ => return err(k, "give exactly one of `link` or `node`"),
        }
        let name = pcap_name(c);
        let nk = if c.name.is_some() { format!("{k}.name") } else { format!("{k}.node") };
        if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') || name.chars().any(char::is_control)
        {
            return err(
                nk,
                format!("capture file name {name:?} must be a plain file name: no '/', '\\', leading '.' or control characters"),
            );
        }
        if let Some(j) = pcap_names.insert(name.clone(), i) {
            return err(format!("{k}.name"), format!("duplicate capture name {name:?} (also pcap[{j}])"));
        }
    }
    if let Some(iv) = cfg.output.sample_interval {
        if iv.0 == 0 {
            return err("output.sample_interval", "must be greater than 0");
        }
        // Samples are taken at 0, iv, 2 iv ... up to the end of the run: an
        // interval longer than the run gives only the state at 0 s, before
        // anything has happened (a mistake, e.g. 100 read as seconds, not a
        // series; docs/scenarios.md, "[output]").
        if iv.0 > cfg.sim.duration.0 {
            return err(
                "output.sample_interval",
                format!(
                    "{} s is longer than the run (sim.duration = {} s): the series would hold only the sample at 0 s; \
                     at most the duration",
                    iv.0 as f64 / 1e9,
                    cfg.sim.duration.0 as f64 / 1e9
                ),
            );
        }
    }
    Ok(())
}

/// What a valid scenario asks for and will not get, one line each:
/// switches the resolved ns-2 rules make inert. Not errors: studies
/// reproduce ns-2.35 on purpose, its quirks included; but a silent no-op
/// reads as a result ("E-Vegas did no better than Vegas").
pub fn warnings(cfg: &ScenarioCfg) -> Vec<String> {
    let mut out = Vec::new();
    for (i, f) in cfg.flow.iter().enumerate() {
        if f.transport == TransportName::Udp || !(f.ecn || f.eln) {
            continue;
        }
        let c = tcp_config(cfg, f);
        let name = flow_name(i, f);
        let vegas = f.transport == TransportName::Vegas;
        let rule = |pick: fn(&TcpOptions) -> bool, key: &str| {
            let from = tcp_source(cfg, i, f, pick, key);
            if from.starts_with("the ") {
                format!("{from} is false")
            } else {
                format!("{from} = false")
            }
        };
        if f.ecn && vegas && !c.rules.vegas_ecn {
            out.push(format!(
                "flow[{i}].ecn: has no effect on Vegas flow {name:?}: ns-2.35's Vegas sends nothing ECN-capable ({}); \
                 set tcp.vegas_ecn = true to enable it",
                rule(|t| t.vegas_ecn.is_some(), "vegas_ecn")
            ));
        }
        // As the sender builds it: Sack1 recovery for a SACK flow whose
        // congestion control allows SACK recovery (not Vegas, not Tahoe).
        let sack1 =
            c.sack && c.rules.sack1_recovery && !matches!(f.transport, TransportName::Vegas | TransportName::Tahoe);
        if f.eln && (vegas || sack1) && !c.rules.eln_all_variants {
            let what = if vegas { "Vegas" } else { "SACK (Sack1 recovery)" };
            out.push(format!(
                "flow[{i}].eln: has no effect on {what} flow {name:?}: ns-2.35's Vegas and Sack1 agents never read \
                 the ELN bit ({}); set tcp.eln_all_variants = true to enable it",
                rule(|t| t.eln_all_variants.is_some(), "eln_all_variants")
            ));
        }
    }
    out
}

fn pcap_name(c: &PcapCfg) -> String {
    if let Some(n) = &c.name {
        return n.clone();
    }
    match (&c.link, &c.node) {
        (Some(l), _) => {
            let d = if c.direction == Some(PcapDirection::Reverse) { "reverse" } else { "forward" };
            format!("link{l}-{d}")
        }
        (_, Some(n)) => format!("node-{n}"),
        _ => "capture".into(),
    }
}

/// The nodes packets are addressed to: both ends of every flow (data one
/// way, ACKs the other) whose node names resolve.
fn flow_endpoints(cfg: &ScenarioCfg) -> Vec<NodeId> {
    let names = node_index(cfg);
    let split = |f: &FlowCfg| f.split.as_ref().and_then(|s| names.get(s.node.as_str()));
    cfg.flow
        .iter()
        .flat_map(|f| [names.get(f.from.as_str()), names.get(f.to.as_str()), split(f)])
        .flatten()
        .copied()
        .collect()
}

/// A split flow's second connection as a flow of its own (the split node
/// to `to`): the split's transport and TCP options over the flow's; the
/// flow's parameter tables (vegas, cubic ...) only with the flow's
/// transport, another one with its defaults.
pub fn relay_half(f: &FlowCfg) -> Option<FlowCfg> {
    let s = f.split.as_ref()?;
    let tcp = match (&s.tcp, &f.tcp) {
        (Some(own), Some(flow)) => Some(own.or(flow)),
        (own, flow) => own.clone().or_else(|| flow.clone()),
    };
    let mut half = FlowCfg { from: s.node.clone(), tcp, first_bytes: None, split: None, ..f.clone() };
    if let Some(t) = s.transport.filter(|&t| t != f.transport) {
        half = FlowCfg { transport: t, vegas: None, cubic: None, westwood: None, bbr: None, tcp_ap: None, ..half };
    }
    Some(half)
}

/// The relay's buffer of a split flow whose TCP configuration is `tc`,
/// in bytes: `split.buffer` packets, or two of the flow's windows (a
/// receive and a send buffer).
fn relay_buffer(s: &SplitCfg, tc: &TcpConfig) -> u64 {
    match s.buffer {
        Some(n) => n as u64 * tc.mss as u64,
        None => 2 * tc.rwnd,
    }
}

/// A split connection (`split`): TCP on both halves, at a third node both
/// ends reach, not one running Snoop (whose cache holds segments it
/// forwards, while the split node sends its own).
fn check_split(
    cfg: &ScenarioCfg,
    f: &FlowCfg,
    k: &str,
    names: &HashMap<&str, NodeId>,
    connected: impl Fn(NodeId, NodeId) -> bool,
) -> R<()> {
    let Some(s) = &f.split else { return Ok(()) };
    let k = format!("{k}.split");
    if f.transport == TransportName::Udp {
        return err(k, "a split connection relays a TCP connection: not for a UDP flow");
    }
    let n = lookup(names, format!("{k}.node"), &s.node)?;
    if s.node == f.from || s.node == f.to {
        return err(format!("{k}.node"), "must be a third node, neither `from` nor `to`");
    }
    if cfg.node[n as usize].snoop {
        return err(
            format!("{k}.node"),
            format!("{:?} runs Snoop, which caches segments it forwards; a split node sends its own", s.node),
        );
    }
    for (a, b) in [(&f.from, &s.node), (&s.node, &f.to)] {
        if !connected(names[a.as_str()], names[b.as_str()]) {
            return err(format!("{k}.node"), format!("no route between {a:?} and {b:?}"));
        }
    }
    if s.buffer == Some(0) {
        return err(format!("{k}.buffer"), "must be at least 1 packet");
    }
    if s.transport == Some(TransportName::Udp) {
        return err(format!("{k}.transport"), "must be a TCP transport: the relay sends a byte stream");
    }
    if let Some(t) = &s.tcp {
        validate_tcp(&format!("{k}.tcp"), t)?;
    }
    let half = relay_half(f).expect("a split flow");
    check_cubic(cfg, &half, &k)?;
    check_tcp_ap(cfg, &half, &k)?;
    check_rack(cfg, &half, &k)
}

fn flow_name(i: usize, f: &FlowCfg) -> String {
    f.name.clone().unwrap_or_else(|| format!("flow{i}"))
}

/// The index of the flow named `name` (a flow's index is its packets' tag).
fn flow_index(cfg: &ScenarioCfg, name: &str) -> Option<usize> {
    cfg.flow.iter().enumerate().position(|(j, g)| flow_name(j, g) == name)
}

/// The graph static routing runs over: every link direction (direction i
/// is device i), then every radio link between stations within receive
/// range (through the sender's 802.11 device). Returns the (from, to) pairs
/// and the device of each.
fn route_graph(cfg: &ScenarioCfg, radio: Option<&Radio>) -> (Vec<(NodeId, NodeId)>, Vec<DevId>) {
    let mut pairs = dir_pairs(cfg);
    let mut devs: Vec<DevId> = (0..pairs.len() as DevId).collect();
    if let Some(r) = radio {
        for (a, b, d) in r.routing_dirs() {
            pairs.push((a, b));
            devs.push(d);
        }
    }
    (pairs, devs)
}

/// The graph of a wired-cum-wireless network's static routes: every link
/// direction, then from each base station to each station of its cell
/// (through the base station's 802.11 device), so that wired nodes and
/// other cells reach a station through its base station.
fn cell_graph(cfg: &ScenarioCfg, radio: &Radio, cells: &[Option<NodeId>]) -> (Vec<(NodeId, NodeId)>, Vec<DevId>) {
    let mut pairs = dir_pairs(cfg);
    let mut devs: Vec<DevId> = (0..pairs.len() as DevId).collect();
    for s in &radio.stations {
        let Some(bs) = cells[s.node as usize].filter(|&b| b != s.node) else { continue };
        let dev = radio.stations.iter().find(|x| x.node == bs).expect("a base station has a radio").dev;
        pairs.push((bs, s.node));
        devs.push(dev);
    }
    (pairs, devs)
}

/// (from, to) of every link direction: link i gives 2i (forward) and 2i+1.
fn dir_pairs(cfg: &ScenarioCfg) -> Vec<(NodeId, NodeId)> {
    let names = node_index(cfg);
    let mut v = Vec::with_capacity(cfg.link.len() * 2);
    for l in &cfg.link {
        let a = names[l.between[0].as_str()];
        let b = names[l.between[1].as_str()];
        v.push((a, b));
        v.push((b, a));
    }
    v
}

/// A queue's policy; `profile` resolves the RED rules a scenario leaves
/// unset (ns-2's REDQueue tests in the ns2 and linux profiles, Floyd &
/// Jacobson's RED in rfc).
fn queue_policy(q: Option<&QueueCfg>, profile: ProfileName) -> QueuePolicy {
    let ns2_red = !matches!(profile, ProfileName::Rfc);
    match q {
        None => QueuePolicy::DropTail { limit_packets: Some(50), limit_bytes: None },
        Some(QueueCfg::Unlimited {}) => QueuePolicy::DropTail { limit_packets: None, limit_bytes: None },
        Some(QueueCfg::Droptail { limit: None, limit_bytes: None }) => {
            QueuePolicy::DropTail { limit_packets: Some(50), limit_bytes: None }
        }
        Some(QueueCfg::Droptail { limit, limit_bytes }) => {
            QueuePolicy::DropTail { limit_packets: *limit, limit_bytes: *limit_bytes }
        }
        Some(QueueCfg::Red {
            min_th,
            max_th,
            max_p,
            weight,
            gentle,
            byte_mode,
            queue_in_bytes,
            ecn,
            limit,
            mean_pktsize,
            wait,
            spare_short_queue,
            spare_first_crossing,
            mark_p,
            use_mark_p,
            overflow_resets_count,
            generator,
            generator_skip,
            victim,
        }) => QueuePolicy::Red(RedParams {
            min_th: *min_th,
            max_th: *max_th,
            max_p: *max_p,
            weight: *weight,
            gentle: *gentle,
            byte_mode: *byte_mode,
            queue_in_bytes: queue_in_bytes.unwrap_or(*byte_mode),
            limit_in_bytes: *queue_in_bytes == Some(true),
            ecn: *ecn,
            limit: *limit,
            mean_pktsize: *mean_pktsize,
            wait: *wait,
            spare_short_queue: spare_short_queue.unwrap_or(ns2_red),
            spare_first_crossing: spare_first_crossing.unwrap_or(ns2_red),
            // ns-2.35's Queue/RED mark_p_ 0.1 with use_mark_p_ true.
            mark_p: match use_mark_p {
                Some(false) => None,
                Some(true) => Some(mark_p.unwrap_or(0.1)),
                None => mark_p.or(ns2_red.then_some(0.1)),
            },
            mark_every_hit: *use_mark_p == Some(false),
            overflow_resets_count: overflow_resets_count.unwrap_or(ns2_red),
            ns2_generator: (*generator == Some(RedGenerator::Ns2)).then(|| generator_skip.unwrap_or(0)),
            victim: match victim {
                None | Some(RedVictimName::Tail) => RedVictim::Tail,
                Some(RedVictimName::Front) => RedVictim::Front,
                Some(RedVictimName::Random) => RedVictim::Random,
            },
        }),
        Some(QueueCfg::DualThreshold { soft, hard, hold }) => {
            QueuePolicy::DualThreshold { soft: *soft, hard: *hard, hold: hold.0 }
        }
        Some(QueueCfg::Drr { buckets, quantum, blimit, mask, classify }) => QueuePolicy::Drr(DrrParams {
            buckets: *buckets,
            blimit: *blimit,
            quantum: *quantum,
            mask: *mask,
            classify: match classify {
                DrrClassifyName::Source => DrrClassify::Source,
                DrrClassifyName::Flow => DrrClassify::Flow,
            },
        }),
        Some(QueueCfg::Codel { limit, target, interval, ecn, mtu }) => QueuePolicy::Codel {
            params: CodelParams { target: target.0, interval: interval.0, ecn: *ecn, mtu: *mtu },
            limit: *limit,
        },
        Some(QueueCfg::FqCodel { flows, limit, quantum, target, interval, ecn, drop_batch, mtu }) => {
            QueuePolicy::FqCodel(FqCodelParams {
                flows: *flows,
                limit: *limit,
                quantum: *quantum,
                drop_batch: *drop_batch,
                codel: CodelParams { target: target.0, interval: interval.0, ecn: *ecn, mtu: *mtu },
            })
        }
    }
}

fn error_model(e: &ErrorCfg) -> ErrorModel {
    let kind = match e.clone() {
        ErrorCfg::Uniform { rate, .. } => ErrorKind::Uniform { rate },
        ErrorCfg::Ber { ber, .. } => ErrorKind::BitErrorRate { ber },
        ErrorCfg::GilbertElliott { p_good_bad, p_bad_good, loss_good, loss_bad, .. } => {
            ErrorKind::GilbertElliott { p_good_bad, p_bad_good, loss_good, loss_bad, bad: false }
        }
        ErrorCfg::Pattern { drop, .. } => ErrorKind::Pattern { drops: drop, next: 0, count: 0 },
        ErrorCfg::Windows { windows, .. } => {
            ErrorKind::Windows { windows: windows.iter().map(|w| (w.start.0, w.end.0, w.rate)).collect() }
        }
    };
    let action = match (e.action(), e) {
        (ErrorActionCfg::Drop, _) => HitAction::Drop,
        (ErrorActionCfg::Mark, _) => HitAction::Mark,
        // `validate_error` refuses a delay elsewhere than on a pattern, or
        // without its duration.
        (ErrorActionCfg::Delay, ErrorCfg::Pattern { delay: Some(d), .. }) => HitAction::Delay(d.0),
        (ErrorActionCfg::Delay, _) => unreachable!("a delay action was validated"),
    };
    ErrorModel::new(kind, packet_class(e.packets())).acting(action)
}

fn packet_class(p: PacketsCfg) -> PacketClass {
    match p {
        PacketsCfg::All => PacketClass::All,
        PacketsCfg::Data => PacketClass::Data,
        PacketsCfg::Acks => PacketClass::Acks,
    }
}

/// Resolve a flow's TCP parameters: profile <- [tcp] <- flow.tcp <- flow keys.
pub fn tcp_config(cfg: &ScenarioCfg, f: &FlowCfg) -> TcpConfig {
    let profile = match cfg.sim.tcp_profile {
        ProfileName::Ns2 => TcpProfile::Ns2,
        ProfileName::Rfc => TcpProfile::Rfc,
        ProfileName::Linux => TcpProfile::Linux,
    };
    let mut c = TcpConfig::profile(profile);
    let o = f.tcp.clone().unwrap_or_default().or(&cfg.tcp);
    if let Some(s) = f.packet_size {
        c.mss = s;
    }
    let mss = c.mss as u64;
    // The default advertised window keeps the profile's size in packets.
    let default_pkts = c.rwnd.div_ceil(TcpConfig::profile(profile).mss as u64);
    c.rwnd = match (o.window_bytes, f.window) {
        (Some(b), _) => b,
        (None, Some(w)) => w as u64 * mss,
        (None, None) => default_pkts * mss,
    };
    match o.initial_window {
        Some(InitialWindow::Segments(n)) => c.initial_window = n,
        Some(InitialWindow::Named(InitialWindowName::Rfc3390)) => c.initial_window = 0,
        None => {}
    }
    if let Some(s) = o.initial_ssthresh {
        c.initial_ssthresh = Some(s as u64 * mss);
    }
    let set = |dst: &mut Time, v: Option<Dur>| {
        if let Some(d) = v {
            *dst = d.0
        }
    };
    set(&mut c.min_rto, o.min_rto);
    set(&mut c.max_rto, o.max_rto);
    set(&mut c.initial_rto, o.initial_rto);
    set(&mut c.granularity, o.granularity);
    set(&mut c.delack_timeout, o.delack_timeout);
    match (o.delayed_ack, o.ack_thinning) {
        (_, Some(true)) => {
            c.ack_policy = AckPolicy::Thinning { thresholds: o.thinning_thresholds.unwrap_or(DEFAULT_THINNING) }
        }
        (Some(true), _) => c.ack_policy = AckPolicy::Delayed,
        (Some(false), _) => c.ack_policy = AckPolicy::Immediate,
        (None, Some(false)) if matches!(c.ack_policy, AckPolicy::Thinning { .. }) => {
            c.ack_policy = AckPolicy::Immediate
        }
        _ => {}
    }
    if f.transport == TransportName::Sack {
        c.sack = true;
    }
    if let Some(v) = o.sack {
        c.sack = v;
    }
    if let Some(v) = o.timestamps {
        c.timestamps = v;
    }
    if let Some(v) = o.limited_transmit {
        c.limited_transmit = v;
    }
    if let Some(v) = f.vegas {
        c.vegas = VegasParams { alpha: v.alpha, beta: v.beta, gamma: v.gamma };
    }
    if let Some(v) = f.cubic {
        let p = &mut c.cubic;
        put(&mut p.beta, v.beta);
        put(&mut p.bic_scale, v.bic_scale);
        put(&mut p.fast_convergence, v.fast_convergence);
        put(&mut p.tcp_friendliness, v.tcp_friendliness);
        put(&mut p.hystart, v.hystart);
        put(&mut p.hystart_detect, v.hystart_detect);
        put(&mut p.hystart_low_window, v.hystart_low_window);
        put(&mut p.hystart_ack_delta_us, v.hystart_ack_delta_us);
        put(&mut p.hz, v.hz);
    }
    if let Some(v) = f.westwood {
        put(&mut c.westwood.hz, v.hz);
    }
    if let Some(v) = f.bbr {
        put(&mut c.bbr.hz, v.hz);
    }
    if f.transport == TransportName::TcpAp {
        c.tcp_ap = Some(tcp_ap_params(cfg, f));
    }
    c.ecn = f.ecn;
    c.eln = f.eln;
    let r = &mut c.rules;
    if let Some(v) = o.loss_window {
        r.loss_window_from_cwnd = v == LossWindow::Cwnd;
    }
    if let Some(v) = o.ecn_hold {
        r.ecn_hold = v;
    }
    if let Some(v) = o.reno_careful {
        r.reno_careful = v;
    }
    if let Some(v) = o.recovery_exit {
        r.ns2_recovery_exit = v == RecoveryExitName::Ns2;
    }
    if let Some(v) = o.sack_recovery {
        r.sack1_recovery = v == SackRecoveryName::Sack1;
    }
    if let Some(v) = o.rtt_on_partial_ack {
        r.rtt_on_partial_ack = v;
    }
    if let Some(v) = o.syn {
        c.syn = v;
    }
    if let Some(v) = o.syn_immediate_ack {
        c.syn_immediate_ack = v;
    }
    if let Some(v) = o.rfc2581_immediate_ack {
        c.rfc2581_immediate_ack = v;
    }
    if let Some(v) = o.sack_option {
        c.rules.ns2_sack_option = v == SackOptionName::Ns2;
    }
    if let Some(v) = o.sack_blocks {
        c.ns2_sack_blocks = v == SackOptionName::Ns2;
    }
    if let Some(v) = o.sack1_ecn_recover {
        c.sack1_ecn_recover = v;
    }
    if let Some(v) = o.sack1_partial_ack_timing {
        c.sack1_partial_ack_timing = v;
    }
    if let Some(v) = o.rtt_estimator {
        c.rules.ns2_rtt_estimator = v == RttEstimatorName::Ns2;
        c.linux_rtt_estimator = v == RttEstimatorName::Linux;
    }
    if let Some(v) = o.vegas_rates {
        c.rules.ns2_vegas = v == VegasRatesName::Ns2;
    }
    if let Some(v) = o.vegas_send_times {
        c.rules.ns2_vegas_slots = v == VegasSendTimesName::Ns2;
    }
    if let Some(v) = o.vegas_zero_window {
        c.rules.vegas_zero_window = v;
    }
    if let Some(v) = o.vegas_ecn {
        c.rules.vegas_ecn = v;
    }
    if let Some(v) = o.eln_sender {
        c.rules.ns2_eln = v == ElnSenderName::Ns2;
    }
    if let Some(v) = o.eln_all_variants {
        c.rules.eln_all_variants = v;
    }
    if let Some(v) = o.delack_sink {
        c.rules.ns2_delack_sink = v == DelackSinkName::Ns2;
    }
    if let Some(v) = o.tahoe_timeout_dupacks {
        c.rules.tahoe_timeout_dupacks = v;
    }
    if let Some(v) = o.ect_retransmits {
        c.rules.ect_retransmits = v;
    }
    if let Some(v) = o.ecn_after_timeout {
        c.rules.ecn_after_timeout = v;
    }
    if let Some(v) = o.ecn_in_recovery {
        c.rules.ecn_in_recovery = v;
    }
    if let Some(v) = o.ecn_backoff {
        c.rules.ecn_backoff = v;
    }
    if let Some(v) = o.cwnd_below_one {
        c.rules.cwnd_below_one = v;
    }
    if let Some(v) = o.cwr_after_loss {
        c.rules.cwr_after_loss = v;
    }
    if let Some(v) = o.newreno_burst {
        c.rules.newreno_burst = v;
    }
    if let Some(v) = o.ns2_recover_numbers {
        c.rules.ns2_recover_numbers = v;
    }
    if let Some(v) = o.ns2_headerless_first {
        c.rules.ns2_headerless_first = v;
    }
    if let Some(v) = o.rtt_timing {
        c.rules.ns2_rtt_timing = v == RttTimingName::Ns2;
        c.linux_rtt_samples = v == RttTimingName::Linux;
    }
    if let Some(t) = o.newreno_timer {
        c.slow_but_steady = t == NewRenoTimer::SlowButSteady;
    }
    if let Some(v) = o.partial_window_deflation {
        c.partial_window_deflation = v;
    }
    if let Some(v) = o.precision_reduce {
        c.precision_reduce = v;
    }
    if let Some(v) = o.newreno_careful {
        c.newreno_careful = v;
    }
    if let Some(v) = o.tahoe_careful {
        c.tahoe_careful = v;
    }
    if let Some(v) = o.timerfix {
        c.timerfix = v;
    }
    if let Some(v) = o.lost_syn_window {
        c.lost_syn_window = v;
    }
    if let Some(v) = o.bugfix_ss {
        c.bugfix_ss = v;
    }
    if let Some(v) = o.rfc2988 {
        c.rfc2988 = v;
    }
    if let Some(v) = o.old_ecn {
        c.old_ecn = v;
    }
    if let Some(v) = o.less_careful {
        c.less_careful = v;
    }
    if let Some(v) = o.aggressive_max_burst {
        c.aggressive_max_burst = v;
    }
    if let Some(v) = o.exit_fast_retrans {
        c.exit_fast_retrans = v;
    }
    if let Some(v) = o.ts_reset_rto {
        c.ts_reset_rto = v;
    }
    if let Some(v) = o.ns2_timestamps {
        c.ns2_timestamps = v;
    }
    if let Some(v) = o.bugfix_ack {
        c.bugfix_ack = v;
    }
    if let Some(v) = o.bugfix_ts {
        c.bugfix_ts = v;
    }
    if let Some(v) = o.dupthresh_frac {
        c.dupthresh_frac = v;
    }
    if let Some(v) = o.srtt_bits {
        c.srtt_bits = v;
    }
    if let Some(v) = o.rttvar_bits {
        c.rttvar_bits = v;
    }
    if let Some(v) = o.rttvar_exp {
        c.rttvar_exp = v;
    }
    if let Some(v) = o.idle_restart {
        use crate::transport::tcp::config::IdleRestart;
        c.idle_restart = match v {
            IdleRestartCfg::Ns2Timer => IdleRestart::Ns2Timer,
            IdleRestartCfg::Rfc5681 => IdleRestart::Rfc5681,
            IdleRestartCfg::Linux => IdleRestart::Linux,
            IdleRestartCfg::Off => IdleRestart::Off,
        };
    }
    if let Some(v) = o.push_ack {
        c.push_ack = v;
    }
    if let Some(v) = o.prr {
        c.prr = v;
    }
    put(&mut c.rack, o.rack);
    put(&mut c.tlp, o.tlp);
    put(&mut c.undo, o.undo);
    put(&mut c.dsack, o.dsack);
    put(&mut c.frto, o.frto);
    if let Some(v) = o.quick_acks {
        c.quick_acks = v;
    }
    receive_window(&mut c, &o);
    put(&mut c.tso_defer, o.tso_defer);
    put(&mut c.comp_sack.nr, o.comp_sack_nr);
    put(&mut c.comp_sack.delay, o.comp_sack_delay.map(|d| d.0));
    put(&mut c.comp_sack.slack, o.comp_sack_slack.map(|d| d.0));
    put(&mut c.timer_wheel, o.timer_wheel);
    if let Some(v) = o.nagle {
        use crate::transport::tcp::config::Nagle;
        c.nagle = match v {
            NagleCfg::Off => Nagle::Off,
            NagleCfg::Rfc896 => Nagle::Rfc896,
            NagleCfg::Minshall => Nagle::Minshall,
        };
    }
    if let Some(v) = o.cwnd_increase {
        c.count_acked = v == CwndIncrease::PerSegment;
    }
    if let Some(v) = o.cwnd_validation {
        c.cwnd_validation = v;
    }
    if let Some(v) = o.cwv_rtt_counting {
        c.cwv_rtt_counting = v;
    }
    if let Some(v) = o.control_increase {
        c.control_increase = v;
    }
    if let Some(v) = o.cwnd_limited {
        c.cwnd_limited = v;
    }
    if let Some(v) = o.sack1_careful {
        c.sack1_careful = v;
    }
    if let Some(v) = o.max_cwnd {
        c.max_cwnd = v;
    }
    if let Some(v) = o.max_burst {
        c.max_burst = v;
    }
    if let Some(v) = o.exit_recovery_fix {
        c.exit_recovery_fix = v;
    }
    if let Some(d) = o.dupthresh {
        c.dupthresh = d;
    }
    if let Some(m) = o.max_retransmits {
        c.max_retransmits = if m == 0 { None } else { Some(m) };
    }
    c
}

/// When flow `i`'s application starts: its `app.start`, later by a draw
/// uniform in [0, `start_jitter`) from the flow's own stream (none drawn
/// without the key). The simulator and the emulator both start it here.
pub fn app_start(cfg: &ScenarioCfg, i: usize) -> Time {
    let f = &cfg.flow[i];
    let start = app_start_key(&f.app);
    match f.start_jitter {
        Some(j) if j.0 > 0 => {
            let u = stream_rng(cfg.sim.seed, &format!("flow{i}.start")).uniform();
            start + ((j.0 as f64 * u) as Time).min(j.0 - 1)
        }
        _ => start,
    }
}

/// The `app.start` key as written.
fn app_start_key(app: &AppCfg) -> Time {
    match app {
        AppCfg::Bulk { start, .. }
        | AppCfg::Transfer { start, .. }
        | AppCfg::Cbr { start, .. }
        | AppCfg::Messages { start, .. } => start.0,
    }
}

/// Flow `i`'s application, started at `app_start`.
pub(crate) fn app_of(cfg: &ScenarioCfg, i: usize, payload: u32) -> App {
    let start = app_start(cfg, i);
    match &cfg.flow[i].app {
        AppCfg::Bulk { stop, .. } => App::Bulk { start, stop: stop.map(|d| d.0) },
        AppCfg::Messages { stop, interval, bytes, changes, .. } => App::Messages {
            start,
            stop: stop.map(|d| d.0),
            interval: interval.0,
            bytes: bytes.unwrap_or(payload as u64),
            changes: changes.iter().map(|c| (c.at.0, c.interval.0)).collect(),
        },
        AppCfg::Transfer { bytes, write, more, .. } => App::Transfer {
            start,
            bytes: *bytes,
            write: *write,
            more: more.iter().map(|m| (m.at.0, m.bytes)).collect(),
        },
        AppCfg::Cbr { stop, rate, interval, .. } => {
            let interval = match (rate, interval) {
                (_, Some(i)) => i.0,
                // One datagram of IP size (payload + 28 bytes) per interval.
                (Some(r), None) => ((payload as f64 + UDP_IP_HEADERS) * 8.0 / r.0 * 1e9).round() as Time,
                (None, None) => unreachable!("validated"),
            };
            App::Cbr { start, stop: stop.map(|d| d.0), interval: interval.max(1) }
        }
    }
}

/// Where flow `i`'s messages app draws its gaps: its own stream
/// (`flow<i>.messages`) or ns-2's generator; None for other apps.
fn message_gaps(f: &FlowCfg, i: usize, seed: u64) -> Option<Gaps> {
    match &f.app {
        AppCfg::Messages { generator: Some(RedGenerator::Ns2), generator_skip, .. } => {
            Some(Gaps::Ns2(Ns2Rng::skipping(generator_skip.unwrap_or(0))))
        }
        AppCfg::Messages { .. } => Some(Gaps::Own(stream_rng(seed, &format!("flow{i}.messages")))),
        _ => None,
    }
}

/// The writes flow `i`'s messages app makes before `until` (and before its
/// stop): (time, bytes), drawn exactly as the simulator draws them (the
/// same stream, each gap drawn when the message before it is written, with
/// the mean of the latest change at or before that moment). The emulator
/// replays them so that the kernel sees the simulated run's writes. Empty
/// for other apps.
pub fn message_writes(cfg: &ScenarioCfg, i: usize, until: Time) -> Vec<(Time, u64)> {
    let f = &cfg.flow[i];
    let (Some(mut gaps), App::Messages { start, stop, mut interval, bytes, mut changes }) =
        (message_gaps(f, i, cfg.sim.seed), app_of(cfg, i, f.packet_size.unwrap_or(1000)))
    else {
        return Vec::new();
    };
    // The run's events at one instant pop in the order they were
    // scheduled: changes at the same time apply in the order given; the
    // start comes before a change at the start (both scheduled before the
    // run, the start first), a change before a message at its time (the
    // message scheduled later, when the one before it was written).
    changes.sort_by_key(|&(at, _)| at);
    let end = stop.map_or(until, |s| s.min(until));
    let (mut t, mut next_change, mut out) = (start, 0, Vec::new());
    loop {
        let drawn_at_start = out.is_empty();
        while next_change < changes.len()
            && (changes[next_change].0 < t || changes[next_change].0 == t && !drawn_at_start)
        {
            interval = changes[next_change].1;
            next_change += 1;
        }
        t += gaps.gap(interval);
        if t >= end {
            return out;
        }
        out.push((t, bytes));
    }
}

/// `receive_window` and the keys of Linux's window: set over the
/// profile's choice (the linux profile's is Linux's, with the kernel's
/// defaults).
fn receive_window(c: &mut TcpConfig, o: &TcpOptions) {
    use crate::transport::tcp::linux_rwnd::{DEFAULT_RCVBUF, DEFAULT_RCVBUF_MAX};
    use crate::transport::tcp::ReceiveWindow;
    let linux = match (o.receive_window, c.receive_window) {
        (Some(ReceiveWindowName::Fixed), _) => None,
        (Some(ReceiveWindowName::Linux), ReceiveWindow::Fixed) => Some((DEFAULT_RCVBUF, DEFAULT_RCVBUF_MAX, None)),
        (_, ReceiveWindow::Linux { rcvbuf, rcvbuf_max, truesize }) => Some((rcvbuf, rcvbuf_max, truesize)),
        (None, ReceiveWindow::Fixed) => None,
    };
    if linux.is_none() && o.comp_sack_nr.is_none() {
        // The profile's SACK compression needs Linux's window (its RTT
        // estimate): off with a fixed one.
        c.comp_sack.nr = 0;
    }
    c.receive_window = match linux {
        None => ReceiveWindow::Fixed,
        Some((rcvbuf, rcvbuf_max, truesize)) => ReceiveWindow::Linux {
            rcvbuf: o.rcvbuf.unwrap_or(rcvbuf),
            rcvbuf_max: o.rcvbuf_max.unwrap_or(rcvbuf_max),
            truesize: o.rcv_truesize.or(truesize),
        },
    };
}

/// A TCP connection's two ends for flow config `f`, its random draws from
/// the streams under `stream` (`flow<i>`; `flow<i>.split` for a split
/// flow's second connection).
fn tcp_ends(cfg: &ScenarioCfg, f: &FlowCfg, stream: &str, seed: u64, ports: (u16, u16)) -> (SocketKind, SocketKind) {
    let (sport, dport) = ports;
    let opts = f.tcp.clone().unwrap_or_default().or(&cfg.tcp);
    let variant = match f.transport {
        TransportName::Tahoe => Variant::Tahoe,
        TransportName::Vegas => Variant::Vegas,
        TransportName::Cubic => Variant::Cubic,
        TransportName::Westwood => Variant::Westwood,
        TransportName::Bbr => Variant::Bbr,
        TransportName::Reno | TransportName::Sack => Variant::Reno,
        _ if opts.newreno == Some(false) => Variant::Reno,
        _ => Variant::NewReno,
    };
    let mut tc = tcp_config(cfg, f);
    if tc.rules.ns2_rtt_estimator || tc.timer_wheel {
        // ns-2's boot_time_, or the kernel's jiffies against the run: the
        // phase of this connection's tick clock, drawn unless the scenario
        // gives it.
        tc.clock_phase = match opts.clock_phase {
            Some(p) => p.0,
            None => {
                let u = stream_rng(seed, &format!("{stream}.clock")).uniform();
                (u * tc.granularity as f64) as Time
            }
        };
    }
    if tc.timer_wheel {
        // And the kernel's jiffies counter then: where the wheel's coarse
        // buckets fall.
        tc.jiffies_start = opts.jiffies_start.unwrap_or_else(|| {
            let u = stream_rng(seed, &format!("{stream}.jiffies")).uniform();
            (u * crate::transport::tcp::jiffies::START_SPAN as f64) as u32
        });
    }
    if variant == Variant::Bbr {
        // The draws of BBR's first gain phase: the flow's own stream.
        tc.bbr.seed = stream_rng(seed, &format!("{stream}.bbr")).next_u64();
    }
    let cc = make_cc(variant, &tc);
    let rx = TcpReceiver::new(&tc).with_ports(dport, sport);
    let mut tx = TcpSender::new(tc, cc).with_ports(sport, dport);
    if let Some(w) = rx.initial_window() {
        // Linux's receiver offers its initial window in the handshake.
        tx.set_peer_window(w);
    }
    (SocketKind::TcpSender(Box::new(tx)), SocketKind::TcpReceiver(Box::new(rx)))
}

/// Port of the sending socket of flow `i` and of every receiving socket
/// (like a client's ephemeral port and a server's well-known port).
fn flow_ports(i: usize) -> (u16, u16) {
    (10_000u16.wrapping_add(i as u16), 5001)
}

/// A link's error models, those given, with their keys and, for a
/// direction's own, its side: (`error`, None), (`forward.error`,
/// Some("forward")), (`reverse.error`, Some("reverse")).
pub fn link_errors(l: &LinkCfg) -> impl Iterator<Item = (&'static str, Option<&'static str>, &ErrorCfg)> {
    [("error", None, l.error.as_ref())]
        .into_iter()
        .chain(
            [("forward.error", "forward", &l.forward), ("reverse.error", "reverse", &l.reverse)]
                .map(|(k, side, d)| (k, Some(side), d.as_ref().and_then(|d| d.error.as_ref()))),
        )
        .filter_map(|(k, side, e)| Some((k, side, e?)))
}

/// The link directions of a scenario, two per link in file order (2i is the
/// forward direction of link i, 2i+1 its reverse), each with its queue, error
/// model and random streams. The simulator's world and the real-time
/// emulator (crates/tcplab-emu) both build their links here.
pub fn link_dirs(cfg: &ScenarioCfg) -> Vec<PointToPoint> {
    let seed = cfg.sim.seed;
    let pairs = dir_pairs(cfg);
    let mut dirs = Vec::with_capacity(pairs.len());
    for (i, l) in cfg.link.iter().enumerate() {
        for (fwd, over) in [(true, &l.forward), (false, &l.reverse)] {
            let (from, to) = pairs[2 * i + usize::from(!fwd)];
            let over = over.clone().unwrap_or_default();
            let error = match over.error.as_ref().or(l.error.as_ref()) {
                Some(e) => {
                    // A direction's own model acts on it alone.
                    let applies = over.error.is_some()
                        || match e.direction() {
                            Direction::Both => true,
                            Direction::Forward => fwd,
                            Direction::Reverse => !fwd,
                        };
                    if applies {
                        // The flow's tag is its index (sockets below).
                        let flow = e.flow().and_then(|n| flow_index(cfg, n));
                        error_model(e).for_flow(flow.map(|j| j as FlowId))
                    } else {
                        ErrorModel::default()
                    }
                }
                None => ErrorModel::default(),
            };
            let dname = if fwd { "forward" } else { "reverse" };
            let rate_bps = (over.rate.unwrap_or(l.rate).0.round() as u64).max(1);
            dirs.push(PointToPoint::new(
                i as u32,
                fwd,
                from,
                to,
                rate_bps,
                over.delay.unwrap_or(l.delay).0,
                l.framing.bytes(),
                Queue::seeded(
                    queue_policy(over.queue.as_ref().or(l.queue.as_ref()), cfg.sim.tcp_profile),
                    rate_bps,
                    // The key of a fair queue's flow hash (Linux draws one
                    // per queue); a stream of its own, so adding it moved
                    // no other draw.
                    stream_rng(seed, &format!("link{i}.{dname}.flows")).next_u64(),
                ),
                error,
                stream_rng(seed, &format!("link{i}.{dname}.error")),
                stream_rng(seed, &format!("link{i}.{dname}.queue")),
            ));
        }
    }
    // ns-2 has one generator: RED queues that draw from it share one
    // stream, each number going to whichever queue tests next (their skips
    // agree: `validate`).
    let skip = dirs.iter().find_map(|d| match &d.queue.policy {
        QueuePolicy::Red(p) => p.ns2_generator,
        _ => None,
    });
    if let Some(skip) = skip {
        let g = Arc::new(Mutex::new(Ns2Rng::skipping(skip)));
        for d in &mut dirs {
            if matches!(&d.queue.policy, QueuePolicy::Red(p) if p.ns2_generator.is_some()) {
                d.queue.share_ns2_generator(g.clone());
            }
        }
    }
    dirs
}

pub fn build(cfg: &ScenarioCfg) -> World {
    build_with(cfg, &RunOptions::default()).expect("in-memory result tables cannot fail to open")
}

/// Build the world; with `opts.stream_dir` its trace and series go to CSV
/// files there as the run produces them (created now, hence the io error).
pub fn build_with(cfg: &ScenarioCfg, opts: &RunOptions) -> std::io::Result<World> {
    let dir = opts.stream_dir.as_deref();
    let seed = cfg.sim.seed;
    let pairs = dir_pairs(cfg);
    let names = node_index(cfg);
    // Point-to-point devices: link i gives device 2i (forward) and 2i+1;
    // then one 802.11 device per node with a position.
    let mut devices: Vec<Device> = link_dirs(cfg).into_iter().map(Device::P2p).collect();
    let radio = super::wireless::radio(cfg, devices.len() as DevId);
    if let Some(r) = &radio {
        devices.extend(r.devices(seed).into_iter().map(|d| Device::Wifi(Box::new(d))));
    }
    // Static routing: each node's row of the next-hop table towards the
    // nodes packets are addressed to (the flows' endpoints). In a
    // wired-cum-wireless network the links carry it, each station reached
    // through its base station.
    let cells = super::wireless::cells(cfg);
    let (graph, graph_dev) = match (&cells, &radio) {
        (Some(c), Some(r)) => cell_graph(cfg, r, c),
        _ => route_graph(cfg, radio.as_ref()),
    };
    let routes = shortest_paths_to(cfg.node.len(), &graph, &flow_endpoints(cfg));
    let columns: Arc<[u32]> = Arc::from(routes.slot_of());
    let mut nodes: Vec<Node> = cfg
        .node
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let row = routes
                .row(n as NodeId)
                .iter()
                .map(|&dir| (dir != u32::MAX).then(|| (graph_dev[dir as usize], graph[dir as usize].1)))
                .collect();
            Node::new(c.name.clone(), Router::Static(StaticRouting::with_columns(columns.clone(), row)))
        })
        .collect();
    // An ad hoc routing protocol replaces static routing on every station.
    if let (Some(w), Some(r)) = (&cfg.wireless, &radio) {
        use crate::net::routing::{Aodv, Cells, Dsdv, Dsr, Gateway, Olsr, OlsrParams, Routing, SharedHeaders};
        let olsr = super::wireless::olsr_params(w);
        let (aodv, dsdv, dsr) =
            (super::wireless::aodv_params(w), super::wireless::dsdv_params(w), super::wireless::dsr_params(w));
        // DSR's source routes, carried with the packets: one store per run.
        let headers = SharedHeaders::default();
        for s in &r.stations {
            let rng = |name: &str| stream_rng(seed, &format!("node{}.{name}.jitter", s.node));
            // Wired-cum-wireless: the station's cell, if it is in one.
            let cell =
                cells.as_ref().and_then(|c| c[s.node as usize].map(|mine| Cells { base_station_of: c.clone(), mine }));
            let base_station = cell.as_ref().is_some_and(|c| c.mine == s.node);
            let proto: Option<Box<dyn Routing>> = match w.routing {
                WirelessRouting::Static => None,
                WirelessRouting::Aodv => {
                    // The base station's AODV too: it takes on what comes
                    // in over the links.
                    let a = Aodv::new(s.node, s.dev, aodv, rng("aodv"));
                    Some(Box::new(match cell.clone() {
                        Some(c) => a.in_cell(c),
                        None => a,
                    }))
                }
                WirelessRouting::Dsdv => {
                    let d = Dsdv::new(s.node, s.dev, dsdv, rng("dsdv"));
                    Some(match cell.clone() {
                        Some(c) if !base_station => Box::new(d.in_cell(c)),
                        _ => Box::new(d),
                    })
                }
                WirelessRouting::Dsr => Some(Box::new(Dsr::new(s.node, s.dev, dsr, headers.clone(), rng("dsr")))),
                WirelessRouting::Olsr => {
                    let name = &cfg.node[s.node as usize].name;
                    let p = OlsrParams { willingness: super::wireless::olsr_willingness(w, name, &olsr), ..olsr };
                    let o = Olsr::new(s.node, s.dev, p, rng("olsr"));
                    Some(match cell.clone() {
                        Some(c) if !base_station => Box::new(o.in_cell(c)),
                        _ => Box::new(o),
                    })
                }
            };
            if let Some(p) = proto {
                // A protocol that listens in (DSR's route shortening) hears
                // the data frames its station overhears.
                if p.listens() {
                    devices[s.dev as usize].as_dyn_mut().set_promiscuous(true);
                }
                let node = &mut nodes[s.node as usize];
                node.routing = match (cell, &mut node.routing) {
                    // A base station keeps its static routes for the links.
                    (Some(c), Router::Static(wired)) if base_station => {
                        let wired = std::mem::replace(wired, StaticRouting::new(Vec::new()));
                        Router::Other(Box::new(Gateway::new(c, wired, p)))
                    }
                    _ => Router::Other(p),
                };
            }
        }
    }
    for (d, &(from, _)) in pairs.iter().enumerate() {
        nodes[from as usize].devices.push(d as DevId);
    }
    for s in radio.iter().flat_map(|r| &r.stations) {
        nodes[s.node as usize].devices.push(s.dev);
    }
    let mut sockets = Vec::with_capacity(2 * cfg.flow.len());
    let mut flows = Vec::with_capacity(cfg.flow.len());
    let mut eln_conns = Vec::new();
    // External flows (the emulator) have their ends outside.
    let simulated = if opts.external { &cfg.flow[..0] } else { &cfg.flow[..] };
    for (i, f) in simulated.iter().enumerate() {
        let src = names[f.from.as_str()];
        let dst = names[f.to.as_str()];
        let (sport, dport) = flow_ports(i);
        let (tx_kind, rx_kind) = match f.transport {
            TransportName::Udp => {
                let u = UdpFlow { payload: f.packet_size.unwrap_or(1000), ..Default::default() };
                (SocketKind::UdpSender(Box::new(u.clone())), SocketKind::UdpSink(Box::new(u)))
            }
            _ => tcp_ends(cfg, f, &format!("flow{i}"), seed, (sport, dport)),
        };
        // A split flow's first connection ends at the split node, which
        // relays to `dst` over a second one (`sim/split.rs`).
        let relay = f.split.as_ref().map(|s| (names[s.node.as_str()], s));
        let near = relay.map_or(dst, |(at, _)| at);
        let tx = sockets.len() as SockId;
        sockets.push(Socket::new(src, sport, near, dport, i as FlowId, tx_kind));
        sockets.push(Socket::new(near, dport, src, sport, i as FlowId, rx_kind));
        nodes[src as usize].sockets.push(tx);
        nodes[near as usize].sockets.push(tx + 1);
        let split = relay.map(|(at, s)| {
            let half = relay_half(f).expect("a split flow");
            let (s2, r2) = tcp_ends(cfg, &half, &format!("flow{i}.split"), seed, (sport, dport));
            sockets.push(Socket::new(at, sport, dst, dport, i as FlowId, s2));
            sockets.push(Socket::new(dst, dport, at, sport, i as FlowId, r2));
            nodes[at as usize].sockets.push(tx + 2);
            nodes[dst as usize].sockets.push(tx + 3);
            for (sid, role) in [(tx, SplitRole::Source), (tx + 1, SplitRole::RelayIn), (tx + 2, SplitRole::RelayOut)] {
                sockets[sid as usize].split = role;
            }
            let tc = tcp_config(cfg, f);
            let buffer = relay_buffer(s, &tc);
            let split = Split::new((tx + 1, tx + 2), buffer, tc.rwnd, format!("{}/relay", flow_name(i, f)));
            // The room it starts with, which the source knows from the
            // start (as from a SYN-ACK).
            let first = match &mut sockets[tx as usize + 1].kind {
                SocketKind::TcpReceiver(r) => {
                    r.use_fixed_window();
                    r.window = split.room(0, r.mss()).min(u32::MAX as u64) as u32;
                    r.window as u64
                }
                _ => unreachable!("a split flow is TCP"),
            };
            if let SocketKind::TcpSender(s) = &mut sockets[tx as usize].kind {
                s.set_peer_window(first);
            }
            split
        });
        let rx = sockets.len() as SockId - 1;
        sockets[rx as usize].first_bytes_due = f.first_bytes.unwrap_or(u64::MAX);
        if f.eln {
            eln_conns.push(ConnKey { src, sport, dst: near, dport });
            if near != dst {
                eln_conns.push(ConnKey { src: near, sport, dst, dport });
            }
        }
        let payload = f.packet_size.unwrap_or(1000);
        flows.push(Flow {
            name: flow_name(i, f),
            src,
            dst,
            transport: f.transport.as_str().to_string(),
            app: app_of(cfg, i, payload),
            tx,
            rx,
            split,
            stopped: false,
            at_stop: None,
            first_bytes_at: None,
            cbr_jitter: matches!(f.app, AppCfg::Cbr { random: true, .. })
                .then(|| stream_rng(seed, &format!("flow{i}.cbr"))),
            gaps: message_gaps(f, i, seed),
        });
    }
    // Per-hop agents: ELN marking wherever an ELN connection's packets may
    // be lost (every node), before Snoop at the nodes that run it.
    for (n, c) in nodes.iter_mut().zip(&cfg.node) {
        if !eln_conns.is_empty() {
            n.agents.push(Box::new(ElnAgent::new(eln_conns.clone())));
        }
        if c.snoop {
            n.agents.push(Box::new(SnoopAgent::default()));
        }
    }
    // Which flows open with a SYN (captures number their handshake).
    let syn_senders: Arc<[Option<SynFlow>]> = flows
        .iter()
        .map(|f| match (&sockets[f.tx as usize].kind, &sockets[f.rx as usize].kind) {
            (SocketKind::TcpSender(tx), SocketKind::TcpReceiver(rx)) if tx.awaits_syn_ack() => {
                Some(SynFlow { sender: f.src, scale: [tx.window_scale(), rx.window_scale()] })
            }
            _ => None,
        })
        .collect();
    let captures = cfg
        .pcap
        .iter()
        .map(|c| {
            // A capture at a node with a radio records its 802.11 frames.
            let writer = match &c.node {
                Some(n) if cfg.node[names[n.as_str()] as usize].position.is_some() && cfg.wireless.is_some() => {
                    PcapWriter::for_wifi_node(names[n.as_str()])
                }
                Some(n) => PcapWriter::for_node(names[n.as_str()]),
                None => PcapWriter::new(),
            }
            .with_syn_senders(syn_senders.clone());
            // Streamed captures keep memory flat however long the run.
            let writer = match dir {
                Some(d) => writer.streamed_to(&d.join(format!("{}.pcap", pcap_name(c))))?,
                None => writer,
            };
            Ok(Capture {
                name: pcap_name(c),
                dev: c.link.map(|l| 2 * l + u32::from(c.direction == Some(PcapDirection::Reverse))),
                node: c.node.as_ref().map(|n| names[n.as_str()]),
                writer,
            })
        })
        .collect::<std::io::Result<_>>()?;
    let mut world = World::new(
        nodes,
        devices,
        sockets,
        flows,
        cfg.sim.duration.0,
        seed,
        cfg.output.sample_interval.map(|d| d.0),
        if cfg.output.trace { Some(trace_sink(dir)?) } else { None },
        Samples::new(dir, cfg.output.sample_interval.is_some())?,
        captures,
    );
    if opts.external {
        world.accept_external();
    }
    Ok(world)
}
