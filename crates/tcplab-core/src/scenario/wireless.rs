//! The `[wireless]` table and node positions: validation, the resolved
//! radio parameters, the stations with their neighbour lists, and the radio
//! graph static routing runs over.

use super::build::put;
use super::config::*;
use super::ScenarioError;
use crate::engine::stream_rng;
use crate::engine::time::SEC;
use crate::engine::Time;
use crate::net::DevId;
use crate::packet::NodeId;
use crate::wireless::channel::{distance, Station};
use crate::wireless::mobility::random_waypoint;
use crate::wireless::{
    neighbour_lists, Dcf, IfqKind, InterfaceQueue, MacParams, Mobility, Neighbour, PhyParams, Propagation, Track,
};
use std::collections::HashMap;
use std::sync::Arc;

type R<T> = Result<T, ScenarioError>;

fn err<T>(key: impl Into<String>, msg: impl Into<String>) -> R<T> {
    Err(ScenarioError::new(key, msg))
}

/// The 802.11b/DSSS rates (bit/s).
const RATES: [f64; 4] = [1e6, 2e6, 5.5e6, 11e6];

/// Default interface-queue limit (ns-2's ifqlen 50).
const IFQ_LIMIT: u32 = 50;

/// Everything the builder needs about the radio channel.
pub struct Radio {
    pub prop: Propagation,
    pub phy: PhyParams,
    pub mac: MacParams,
    pub ifq_kind: IfqKind,
    /// The limit of the queue, or of each band of a `cmupriqueue`.
    pub ifq_limit: u32,
    /// A `priqueue` counted as ns-2.35's (`ifq.ns2_limits`).
    pub ifq_ns2_limits: bool,
    /// The nodes with a position, in node order; device `first_dev + k`.
    pub stations: Vec<Station>,
    pub lists: Vec<Vec<Neighbour>>,
    /// The stations' movement (None: every station stays where it is).
    pub mobility: Option<Arc<Mobility>>,
    /// Each station's frame error rate (`[[node]] frame_error_rate`).
    pub frame_error: Vec<f64>,
}

impl Radio {
    /// Distance of reliable reception (mean power at the receive threshold).
    pub fn rx_range(&self) -> f64 {
        self.prop.range(&self.phy, self.phy.rx_threshold_w)
    }

    /// Links of the radio graph static routing uses: (from, to, device of
    /// `from`) for every pair whose mean power reaches the receive threshold.
    pub fn routing_dirs(&self) -> Vec<(NodeId, NodeId, DevId)> {
        let mut v = Vec::new();
        for (s, list) in self.stations.iter().zip(&self.lists) {
            for nb in list.iter().filter(|nb| nb.power_w >= self.phy.rx_threshold_w) {
                v.push((s.node, nb.node, s.dev));
            }
        }
        v
    }

    /// One 802.11 device per station, in station order.
    pub fn devices(&self, seed: u64) -> Vec<Dcf> {
        self.stations
            .iter()
            .zip(&self.lists)
            .enumerate()
            .map(|(k, (s, list))| {
                let n = s.node;
                let mut d = Dcf::new(
                    n,
                    self.mac,
                    self.phy,
                    self.prop,
                    list.clone(),
                    InterfaceQueue::new(self.ifq_kind, self.ifq_limit, self.ifq_ns2_limits, self.mac.data_rate_bps),
                    stream_rng(seed, &format!("node{n}.wifi.queue")),
                    stream_rng(seed, &format!("node{n}.wifi.backoff")),
                    stream_rng(seed, &format!("node{n}.wifi.shadowing")),
                );
                let rate = self.frame_error[k];
                if rate > 0.0 {
                    d.set_frame_errors(rate, stream_rng(seed, &format!("node{n}.wifi.frame_error")));
                }
                // Every station follows the movement, the still ones too:
                // the others come and go around them.
                if let Some(m) = &self.mobility {
                    d.set_mobility(m.clone());
                }
                d
            })
            .collect()
    }
}

fn positive(key: String, v: Option<f64>) -> R<()> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => err(key, format!("must be a positive number, got {x}")),
        _ => Ok(()),
    }
}

fn rate_of(key: &str, r: Option<super::units::Rate>, default: f64) -> R<u64> {
    let v = r.map_or(default, |r| r.0);
    if !RATES.iter().any(|x| (x - v).abs() < 1.0) {
        return err(
            key,
            format!(
                "unknown 802.11 rate {}; use \"1Mbps\", \"2Mbps\", \"5.5Mbps\" or \"11Mbps\"",
                super::units::format_rate(v)
            ),
        );
    }
    Ok(v.round() as u64)
}

/// Check the `[wireless]` table and the node positions.
pub fn validate(cfg: &ScenarioCfg) -> R<()> {
    let Some(w) = &cfg.wireless else {
        if let Some(i) = cfg.node.iter().position(|n| n.position.is_some()) {
            return err(
                format!("node[{i}].position"),
                "a position puts the node on a radio channel: add a [wireless] table",
            );
        }
        if let Some(i) = cfg.node.iter().position(|n| n.waypoints.is_some()) {
            return err(
                format!("node[{i}].waypoints"),
                "only stations on a radio channel move: add a [wireless] table and the node's position",
            );
        }
        // The radio's other node keys would have no effect on a wired-only
        // network: refused (a bad value by its value first), not ignored.
        for (i, n) in cfg.node.iter().enumerate() {
            if let Some(r) = n.frame_error_rate {
                frame_error_rate(i, r)?;
                return err(
                    format!("node[{i}].frame_error_rate"),
                    "only a station on a radio channel loses frames: add a [wireless] table and the node's position",
                );
            }
            if n.base_station.is_some() {
                return err(
                    format!("node[{i}].base_station"),
                    "cells are on a radio channel: add a [wireless] table (routing = \"dsdv\", \"aodv\" or \"olsr\") and the node's position",
                );
            }
        }
        return Ok(());
    };
    rate_of("wireless.data_rate", w.data_rate, 2e6)?;
    rate_of("wireless.basic_rate", w.basic_rate, 1e6)?;
    match &w.rts_threshold {
        Some(RtsThresholdCfg::Bytes(b)) if !(b.is_finite() && *b >= 0.0 && b.fract() == 0.0 && *b < 1e9) => {
            return err("wireless.rts_threshold", format!("must be a whole number of bytes >= 0 or \"off\", got {b}"));
        }
        Some(RtsThresholdCfg::Word(s)) if s != "off" => {
            return err(
                "wireless.rts_threshold",
                format!("must be a whole number of bytes >= 0 or \"off\", got {s:?}"),
            );
        }
        _ => {}
    }
    if w.ifq.as_ref().and_then(|q| q.limit) == Some(0) {
        return err("wireless.ifq.limit", "must be at least 1 packet");
    }
    if w.ifq.as_ref().is_some_and(|q| q.ns2_limits.is_some() && ifq_kind(w) != IfqKind::Pri) {
        return err("wireless.ifq.ns2_limits", "only with kind = \"priqueue\" (ns-2's PriQueue)");
    }
    if let Some(p) = &w.phy {
        for (k, v) in [
            ("tx_power_w", p.tx_power_w),
            ("frequency_hz", p.frequency_hz),
            ("rx_threshold_w", p.rx_threshold_w),
            ("cs_threshold_w", p.cs_threshold_w),
            ("antenna_height_m", p.antenna_height_m),
        ] {
            positive(format!("wireless.phy.{k}"), v)?;
        }
        if let Some(c) = p.capture_threshold_db {
            if !(c.is_finite() && c >= 0.0) {
                return err("wireless.phy.capture_threshold_db", format!("must be a number of dB >= 0, got {c}"));
            }
        }
        if let Some(l) = p.system_loss {
            if !(l.is_finite() && l >= 1.0) {
                return err("wireless.phy.system_loss", format!("must be a number >= 1, got {l}"));
            }
        }
    }
    let phy = phy_params(w);
    if phy.cs_threshold_w > phy.rx_threshold_w {
        return err(
            "wireless.phy.cs_threshold_w",
            format!(
                "must not exceed rx_threshold_w ({:e} W): a frame strong enough to decode is also sensed",
                phy.rx_threshold_w
            ),
        );
    }
    if let Some(m) = &w.mac {
        if m.cw_min == Some(0) {
            return err("wireless.mac.cw_min", "must be at least 1");
        }
        let mp = MacParams::default();
        let (lo, hi) = (m.cw_min.unwrap_or(mp.cw_min), m.cw_max.unwrap_or(mp.cw_max));
        if hi < lo || hi > 1 << 20 {
            return err("wireless.mac.cw_max", format!("must be cw_min ({lo}) .. 1048576, got {hi}"));
        }
        for (k, v) in [("slot", m.slot), ("sifs", m.sifs)] {
            if v.map(|d| d.0) == Some(0) {
                return err(format!("wireless.mac.{k}"), "must be greater than 0");
            }
        }
        // aCCATime is part of a slot (IEEE 802.11-2016, 10.3.7): a longer
        // one would let a station miss a whole slot of someone else's frame.
        let slot = m.slot.map_or(mp.slot, |d| d.0);
        if let Some(c) = m.cca_time.map(|d| d.0).filter(|&c| c >= slot) {
            return err("wireless.mac.cca_time", format!("must be less than the slot ({} ns), got {c} ns", slot));
        }
        // Past the response's end, up to the next DIFS (longer would let a
        // station's own post-backoff start before it notices the failure).
        let difs = m.sifs.map_or(mp.sifs, |d| d.0) + 2 * slot;
        if let Some(t) = m.timeout_slack.map(|d| d.0).filter(|&t| t == 0 || t > difs) {
            return err("wireless.mac.timeout_slack", format!("must be 1 ns .. DIFS ({difs} ns), got {t} ns"));
        }
        // From a header no longer than a CTS (frame control, duration, one
        // address, FCS) to one with every optional field of 802.11-2016.
        if let Some(h) = m.data_header.filter(|h| !(14..=64).contains(h)) {
            return err("wireless.mac.data_header", format!("must be 14 .. 64 bytes, got {h}"));
        }
        for (k, v) in [("short_retry_limit", m.short_retry_limit), ("long_retry_limit", m.long_retry_limit)] {
            if v == Some(0) {
                return err(format!("wireless.mac.{k}"), "must be at least 1 attempt");
            }
        }
    }
    if let Some(s) = &w.shadowing {
        if w.propagation != PropagationName::Shadowing {
            return err("wireless.shadowing", "needs propagation = \"shadowing\"");
        }
        positive("wireless.shadowing.path_loss_exponent".into(), s.path_loss_exponent)?;
        positive("wireless.shadowing.reference_distance".into(), s.reference_distance)?;
        if let Some(x) = s.sigma_db {
            if !(x.is_finite() && x >= 0.0) {
                return err("wireless.shadowing.sigma_db", format!("must be a number of dB >= 0, got {x}"));
            }
        }
    }
    if w.aodv.is_some() && w.routing != WirelessRouting::Aodv {
        return err("wireless.aodv", "needs routing = \"aodv\"");
    }
    if w.dsdv.is_some() && w.routing != WirelessRouting::Dsdv {
        return err("wireless.dsdv", "needs routing = \"dsdv\"");
    }
    if let Some(d) = &w.dsdv {
        if d.min_update_periods == Some(0) {
            return err("wireless.dsdv.min_update_periods", "must be at least 1");
        }
        if d.buffer_len == Some(0) {
            return err("wireless.dsdv.buffer_len", "must be at least 1 packet");
        }
        for (k, v) in [
            ("periodic_update_interval", d.periodic_update_interval),
            ("initial_settling_time", d.initial_settling_time),
            ("buffer_timeout", d.buffer_timeout),
        ] {
            if v.map(|d| d.0) == Some(0) {
                return err(format!("wireless.dsdv.{k}"), "must be greater than 0");
            }
        }
    }
    if w.dsr.is_some() && w.routing != WirelessRouting::Dsr {
        return err("wireless.dsr", "needs routing = \"dsr\"");
    }
    if let Some(d) = &w.dsr {
        if let Some(x) = d.max_route_len {
            if !(2..=255).contains(&x) {
                return err("wireless.dsr.max_route_len", format!("must be 2 .. 255 nodes, got {x}"));
            }
        }
        if d.buffer_len == Some(0) {
            return err("wireless.dsr.buffer_len", "must be at least 1 packet");
        }
        if d.buffer_timeout.map(|d| d.0) == Some(0) {
            return err("wireless.dsr.buffer_timeout", "must be greater than 0");
        }
        if let Some(x) = d.max_salvage_count {
            if x > 15 {
                return err("wireless.dsr.max_salvage_count", format!("must be 0 .. 15 (a 4-bit field), got {x}"));
            }
        }
        for (k, v) in [
            ("grat_reply_holdoff", d.grat_reply_holdoff),
            ("nonprop_timeout", d.nonprop_timeout),
            ("request_period", d.request_period),
            ("max_request_period", d.max_request_period),
        ] {
            if v.map(|d| d.0) == Some(0) {
                return err(format!("wireless.dsr.{k}"), "must be greater than 0");
            }
        }
        let p = crate::net::routing::DsrParams::default();
        let (lo, hi) = (
            d.request_period.map_or(p.request_period, |x| x.0),
            d.max_request_period.map_or(p.max_request_period, |x| x.0),
        );
        if hi < lo {
            return err("wireless.dsr.max_request_period", "must be at least request_period");
        }
    }
    if w.olsr.is_some() && w.routing != WirelessRouting::Olsr {
        return err("wireless.olsr", "needs routing = \"olsr\"");
    }
    if let Some(o) = &w.olsr {
        if o.buffer_len == Some(0) {
            return err("wireless.olsr.buffer_len", "must be at least 1 packet");
        }
        let d = crate::net::routing::OlsrParams::default();
        for (k, v) in [("hyst_threshold_high", o.hyst_threshold_high), ("hyst_threshold_low", o.hyst_threshold_low)] {
            if let Some(x) = v.filter(|x| !(*x > 0.0 && *x <= 1.0)) {
                return err(format!("wireless.olsr.{k}"), format!("must be in (0, 1], got {x}"));
            }
        }
        if let Some(x) = o.hyst_scaling.filter(|x| !(*x > 0.0 && *x < 1.0)) {
            return err("wireless.olsr.hyst_scaling", format!("must be in (0, 1), got {x}"));
        }
        let (hi, lo) = (o.hyst_threshold_high.unwrap_or(d.hyst_high), o.hyst_threshold_low.unwrap_or(d.hyst_low));
        if lo >= hi {
            return err(
                "wireless.olsr.hyst_threshold_low",
                format!("must be below hyst_threshold_high ({hi}), got {lo}"),
            );
        }
        if let Some(x) = o.willingness.filter(|&x| x > 7) {
            return err("wireless.olsr.willingness", format!("must be 0 (never) .. 7 (always), got {x}"));
        }
        for (name, &x) in o.node_willingness.iter().flatten() {
            let key = format!("wireless.olsr.node_willingness.{name}");
            if !cfg.node.iter().any(|n| &n.name == name) {
                return err(key, "no node of that name");
            }
            if x > 7 {
                return err(key, format!("must be 0 (never) .. 7 (always), got {x}"));
            }
        }
        for (k, v) in
            [("hello_interval", o.hello_interval), ("tc_interval", o.tc_interval), ("buffer_timeout", o.buffer_timeout)]
        {
            if v.map(|d| d.0) == Some(0) {
                return err(format!("wireless.olsr.{k}"), "must be greater than 0");
            }
        }
    }
    if w.routing != WirelessRouting::Static {
        if !cfg.link.is_empty() && w.routing == WirelessRouting::Dsr {
            return err(
                "wireless.routing",
                "with [[link]]s (wired-cum-wireless) the stations run \"dsdv\", \"aodv\", \"olsr\" or \"static\" (DSR's source routes cannot name wired nodes)",
            );
        }
        if let Some(a) = &w.aodv {
            for (k, v, lo, hi) in [
                ("net_diameter", a.net_diameter, 1, 255),
                ("ttl_start", a.ttl_start, 1, 255),
                ("ttl_increment", a.ttl_increment, 1, 255),
                ("ttl_threshold", a.ttl_threshold, 1, 255),
                ("buffer_len", a.buffer_len, 1, 1 << 20),
                ("rreq_retries", a.rreq_retries, 0, 100),
            ] {
                if let Some(x) = v {
                    if x < lo || x > hi {
                        return err(format!("wireless.aodv.{k}"), format!("must be {lo} .. {hi}, got {x}"));
                    }
                }
            }
            for (k, v) in [
                ("active_route_timeout", a.active_route_timeout),
                ("my_route_timeout", a.my_route_timeout),
                ("node_traversal_time", a.node_traversal_time),
                ("buffer_timeout", a.buffer_timeout),
                ("hello_interval", a.hello_interval),
            ] {
                if v.map(|d| d.0) == Some(0) {
                    return err(format!("wireless.aodv.{k}"), "must be greater than 0");
                }
            }
            if a.ns2_local_repair == Some(true) && !a.local_repair.unwrap_or(ns2(w)) {
                return err(
                    "wireless.aodv.ns2_local_repair",
                    "needs local_repair = true (it is how the repair is done)",
                );
            }
        }
    }
    let names = node_names(cfg);
    let linked = linked_nodes(cfg, &names);
    for (i, n) in cfg.node.iter().enumerate() {
        match n.position {
            Some(p) if !(p[0].is_finite() && p[1].is_finite()) => {
                return err(
                    format!("node[{i}].position"),
                    format!("must be two finite numbers (metres), got [{}, {}]", p[0], p[1]),
                );
            }
            None if !linked[i] => {
                return err(
                    format!("node[{i}].position"),
                    format!("node {:?} has neither a position on the radio channel nor a [[link]]", n.name),
                );
            }
            _ => {}
        }
    }
    validate_cells(cfg, w, &names, &linked)?;
    validate_mobility(cfg, w, &linked)
}

/// Each node's index by name.
fn node_names(cfg: &ScenarioCfg) -> HashMap<&str, usize> {
    cfg.node.iter().enumerate().map(|(i, n)| (n.name.as_str(), i)).collect()
}

/// Whether each node has a `[[link]]`.
fn linked_nodes(cfg: &ScenarioCfg, names: &HashMap<&str, usize>) -> Vec<bool> {
    let mut linked = vec![false; cfg.node.len()];
    for i in cfg.link.iter().flat_map(|l| &l.between).filter_map(|n| names.get(n.as_str())) {
        linked[*i] = true;
    }
    linked
}

/// `node[i].frame_error_rate`'s value: a probability.
fn frame_error_rate(i: usize, r: f64) -> R<()> {
    if !(r.is_finite() && (0.0..=1.0).contains(&r)) {
        return err(format!("node[{i}].frame_error_rate"), format!("must be a probability in [0, 1], got {r}"));
    }
    Ok(())
}

/// `[[node]] base_station` and `frame_error_rate`.
fn validate_cells(cfg: &ScenarioCfg, w: &WirelessCfg, index: &HashMap<&str, usize>, linked: &[bool]) -> R<()> {
    let wired_cum_wireless = w.routing != WirelessRouting::Static && !cfg.link.is_empty();
    for (i, n) in cfg.node.iter().enumerate() {
        if let Some(r) = n.frame_error_rate {
            frame_error_rate(i, r)?;
            if n.position.is_none() {
                return err(format!("node[{i}].frame_error_rate"), "needs a position (a station's radio loses frames)");
            }
        }
        let key = format!("node[{i}].base_station");
        match &n.base_station {
            Some(b) => {
                if !wired_cum_wireless {
                    return err(
                        key,
                        "cells need [[link]]s and wireless.routing = \"dsdv\", \"aodv\" or \"olsr\" (static routes take shortest paths over radio and links)",
                    );
                }
                if n.position.is_none() {
                    return err(key, "needs a position (a station in a base station's cell)");
                }
                if linked[i] {
                    return err(key, format!("{:?} has [[link]]s: it is a base station, its own", n.name));
                }
                match index.get(b.as_str()) {
                    None => return err(key, format!("unknown node {b:?}")),
                    Some(&j) if !(linked[j] && cfg.node[j].position.is_some()) => {
                        return err(key, format!("{b:?} is no base station: it needs a position and a [[link]]"));
                    }
                    Some(_) => {}
                }
            }
            None if wired_cum_wireless && n.position.is_some() && !linked[i] => {
                return err(
                    key,
                    format!(
                        "with [[link]]s and an ad hoc protocol every station without links names its base station; {:?} names none",
                        n.name
                    ),
                );
            }
            None => {}
        }
    }
    Ok(())
}

/// Wired-cum-wireless (an ad hoc protocol and [[link]]s): the base station
/// of every node; a base station (a position and links) is its own, wired
/// nodes have none. None for other networks.
pub fn cells(cfg: &ScenarioCfg) -> Option<Arc<[Option<NodeId>]>> {
    let w = cfg.wireless.as_ref()?;
    if w.routing == WirelessRouting::Static || cfg.link.is_empty() {
        return None;
    }
    let index = node_names(cfg);
    let linked = linked_nodes(cfg, &index);
    Some(
        cfg.node
            .iter()
            .enumerate()
            .map(|(i, n)| match &n.base_station {
                Some(b) => index.get(b.as_str()).map(|&j| j as NodeId),
                None if n.position.is_some() && linked[i] => Some(i as NodeId),
                None => None,
            })
            .collect(),
    )
}

/// Every station of a cell must reach its base station over the radio
/// (unless stations move: they may meet later); the message names the gap.
pub fn check_cells(cfg: &ScenarioCfg, radio: &Radio) -> R<()> {
    let Some(cells) = cells(cfg) else { return Ok(()) };
    if radio.mobility.as_ref().is_some_and(|m| m.moves()) {
        return Ok(());
    }
    let dirs: Vec<(NodeId, NodeId)> = radio.routing_dirs().into_iter().map(|(a, b, _)| (a, b)).collect();
    for (i, bs) in cells.iter().enumerate() {
        let Some(bs) = bs.filter(|&b| b as usize != i) else { continue };
        let reach = crate::net::routing::reachable_from(cfg.node.len(), &dirs, i as NodeId);
        if !reach[bs as usize] {
            let why = gap(cfg, radio, &reach).map(|w| format!(": {w}")).unwrap_or_default();
            return err(
                format!("node[{i}].base_station"),
                format!(
                    "{:?} has no radio path to its base station {:?}{why}",
                    cfg.node[i].name, cfg.node[bs as usize].name
                ),
            );
        }
    }
    Ok(())
}

/// `[wireless.mobility]` and the nodes' `waypoints`.
fn validate_mobility(cfg: &ScenarioCfg, w: &WirelessCfg, linked: &[bool]) -> R<()> {
    if w.setdest.is_some() {
        return err(
            "wireless.setdest",
            "a movement file is read by tcplab's Python layer (tcplab run, tcplab.run), which gives the nodes `position` and `waypoints`; the core takes those",
        );
    }
    if moving(cfg, w) && w.routing == WirelessRouting::Static {
        let key = if w.mobility.is_some() { "wireless.mobility".to_string() } else { waypoints_key(cfg) };
        return err(
            key,
            "moving stations need an ad hoc routing protocol (wireless.routing = \"aodv\", \"dsdv\", \"dsr\" or \"olsr\"): static routes are computed once, from the positions at the start",
        );
    }
    for (i, n) in cfg.node.iter().enumerate() {
        let Some(wp) = &n.waypoints else { continue };
        let key = format!("node[{i}].waypoints");
        if n.position.is_none() {
            return err(key, "needs the node's starting position (node.position)");
        }
        if linked[i] {
            return err(key, format!("node {:?} has [[link]]s: a base station stays where it is (tcplab does not model handoff between cells)", n.name));
        }
        let mut last = 0.0;
        for (j, c) in wp.iter().enumerate() {
            let [t, x, y, v] = *c;
            if !(t.is_finite() && x.is_finite() && y.is_finite() && v.is_finite() && t >= 0.0 && v >= 0.0) {
                return err(
                    format!("{key}[{j}]"),
                    format!(
                        "must be [time s >= 0, x m, y m, speed m/s >= 0], finite numbers, got [{t}, {x}, {y}, {v}]"
                    ),
                );
            }
            if t < last {
                return err(format!("{key}[{j}]"), format!("times must not decrease: {t} s after {last} s"));
            }
            last = t;
        }
    }
    let Some(m) = &w.mobility else { return Ok(()) };
    let [width, height] = m.area;
    if !(width.is_finite() && height.is_finite() && width > 0.0 && height > 0.0) {
        return err(
            "wireless.mobility.area",
            format!("must be [width, height] in metres, both > 0, got [{width}, {height}]"),
        );
    }
    let [lo, hi] = m.speed;
    if !(lo.is_finite() && hi.is_finite() && lo >= 0.0 && hi >= lo && hi > 0.0) {
        return err(
            "wireless.mobility.speed",
            format!("must be [min, max] in m/s with 0 <= min <= max and max > 0, got [{lo}, {hi}]"),
        );
    }
    // Bounded work: at most about a million legs per station (a leg is
    // some fraction of the area's longer side long).
    let legs = crate::engine::time::to_secs(cfg.sim.duration.0) * hi / (width.max(height) / 8.0);
    if legs > 1e6 {
        return err(
            "wireless.mobility.speed",
            format!("{hi} m/s across a {width} x {height} m area for the whole run is more than a million moves per station; use a larger area or lower speeds"),
        );
    }
    let mut named = std::collections::HashSet::new();
    for (j, name) in m.nodes.iter().flatten().enumerate() {
        if !named.insert(name) {
            return err(format!("wireless.mobility.nodes[{j}]"), format!("{name:?} is named twice"));
        }
        match cfg.node.iter().find(|n| &n.name == name) {
            None => return err(format!("wireless.mobility.nodes[{j}]"), format!("unknown node {name:?}")),
            Some(n) if n.position.is_none() => {
                return err(
                    format!("wireless.mobility.nodes[{j}]"),
                    format!("node {name:?} has no position on the radio channel"),
                )
            }
            Some(n) if n.waypoints.is_some() => {
                return err(format!("wireless.mobility.nodes[{j}]"), format!("node {name:?} has waypoints of its own"))
            }
            Some(_) if linked[cfg.node.iter().position(|n| &n.name == name).unwrap_or(0)] => {
                return err(
                    format!("wireless.mobility.nodes[{j}]"),
                    format!("node {name:?} has [[link]]s: a base station stays where it is (tcplab does not model handoff between cells)"),
                )
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether the scenario moves any station (random waypoint or waypoints).
fn moving(cfg: &ScenarioCfg, w: &WirelessCfg) -> bool {
    w.mobility.is_some() || cfg.node.iter().any(|n| n.waypoints.is_some())
}

fn waypoints_key(cfg: &ScenarioCfg) -> String {
    let i = cfg.node.iter().position(|n| n.waypoints.is_some()).unwrap_or(0);
    format!("node[{i}].waypoints")
}

/// The stations' movement, when any moves: a node with `waypoints` follows
/// them; `[wireless.mobility]` moves the others it names (by default every
/// station without links: base stations stay put).
fn mobility(cfg: &ScenarioCfg, w: &WirelessCfg, stations: &[Station]) -> Option<Arc<Mobility>> {
    if !moving(cfg, w) {
        return None;
    }
    let until = cfg.sim.duration.0;
    let linked = linked_nodes(cfg, &node_names(cfg));
    let tracks = stations
        .iter()
        .map(|s| {
            let n = &cfg.node[s.node as usize];
            if let Some(wp) = &n.waypoints {
                let mut t = Track { origin: s.pos, legs: Vec::new() };
                for &[at, x, y, v] in wp {
                    t.set_destination((at * SEC as f64).round() as Time, [x, y], v);
                }
                return Some(t);
            }
            let m = w.mobility.as_ref()?;
            let named = m.nodes.as_ref().map(|names| names.contains(&n.name));
            if named == Some(false) || linked[s.node as usize] {
                return None;
            }
            let pause = m.pause.map_or(0, |d| d.0);
            let mut rng = stream_rng(cfg.sim.seed, &format!("node{}.mobility", s.node));
            Some(random_waypoint(s.pos, m.area, m.speed, pause, until, &mut rng))
        })
        .collect();
    Some(Arc::new(Mobility::new(stations.to_vec(), tracks)))
}

/// The interface queue's kind: the one named, else ns-2.35's DSR's
/// CMUPriQueue under the ns2 profile (its DSR runs over no other), else
/// PriQueue.
fn ifq_kind(w: &WirelessCfg) -> IfqKind {
    match w.ifq.as_ref().and_then(|q| q.kind) {
        Some(IfqName::Cmupriqueue) => IfqKind::Cmu,
        Some(IfqName::Priqueue) => IfqKind::Pri,
        None if ns2(w) && w.routing == WirelessRouting::Dsr => IfqKind::Cmu,
        None => IfqKind::Pri,
    }
}

fn phy_params(w: &WirelessCfg) -> PhyParams {
    let mut phy = PhyParams::default();
    if let Some(p) = &w.phy {
        put(&mut phy.tx_power_w, p.tx_power_w);
        put(&mut phy.frequency_hz, p.frequency_hz);
        put(&mut phy.rx_threshold_w, p.rx_threshold_w);
        put(&mut phy.cs_threshold_w, p.cs_threshold_w);
        put(&mut phy.capture_threshold_db, p.capture_threshold_db);
        put(&mut phy.antenna_height_m, p.antenna_height_m);
        put(&mut phy.system_loss, p.system_loss);
    }
    phy
}

/// The radio channel of a validated scenario (None without `[wireless]`);
/// its devices are numbered from `first_dev`.
pub fn radio(cfg: &ScenarioCfg, first_dev: DevId) -> Option<Radio> {
    let w = cfg.wireless.as_ref()?;
    let phy = phy_params(w);
    let prop = match w.propagation {
        PropagationName::FreeSpace => Propagation::FreeSpace,
        PropagationName::TwoRayGround => Propagation::TwoRayGround,
        PropagationName::Shadowing => {
            let s = w.shadowing.unwrap_or_default();
            Propagation::Shadowing {
                path_loss_exponent: s.path_loss_exponent.unwrap_or(2.0),
                sigma_db: s.sigma_db.unwrap_or(4.0),
                reference_distance: s.reference_distance.unwrap_or(1.0),
            }
        }
    };
    let mut mac = MacParams {
        data_rate_bps: rate_of("", w.data_rate, 2e6).ok()?,
        basic_rate_bps: rate_of("", w.basic_rate, 1e6).ok()?,
        rts_threshold: match &w.rts_threshold {
            None => Some(0),
            Some(RtsThresholdCfg::Bytes(b)) => Some(*b as u32),
            Some(RtsThresholdCfg::Word(_)) => None,
        },
        ..MacParams::default()
    };
    if ns2(w) {
        mac.ns2_reception = true;
        mac.ns2_cts = true;
        mac.ns2_cts_wait = true;
        mac.ns2_eifs = true;
        mac.ns2_backoff = true;
        mac.ns2_arp = true;
        // ns-2.35's stations sense a frame as soon as it reaches them.
        mac.cca_time = 0;
        mac.data_header = crate::wireless::params::NS2_DATA_HDR;
        mac.timeout_slack = Some(crate::wireless::params::NS2_TIMEOUT_SLACK);
    }
    if let Some(m) = &w.mac {
        mac.cw_min = m.cw_min.unwrap_or(mac.cw_min);
        mac.cw_max = m.cw_max.unwrap_or(mac.cw_max);
        mac.slot = m.slot.map_or(mac.slot, |d| d.0);
        mac.sifs = m.sifs.map_or(mac.sifs, |d| d.0);
        mac.short_retry_limit = m.short_retry_limit.unwrap_or(mac.short_retry_limit);
        mac.long_retry_limit = m.long_retry_limit.unwrap_or(mac.long_retry_limit);
        mac.ns2_reception = m.ns2_reception.unwrap_or(mac.ns2_reception);
        mac.ns2_cts = m.ns2_cts.unwrap_or(mac.ns2_cts);
        mac.ns2_cts_wait = m.ns2_cts_wait.unwrap_or(mac.ns2_cts_wait);
        mac.ns2_eifs = m.ns2_eifs.unwrap_or(mac.ns2_eifs);
        mac.ns2_backoff = m.ns2_backoff.unwrap_or(mac.ns2_backoff);
        mac.ns2_arp = m.ns2_arp.unwrap_or(mac.ns2_arp);
        mac.cca_time = m.cca_time.map_or(mac.cca_time, |d| d.0);
        mac.data_header = m.data_header.unwrap_or(mac.data_header);
        mac.timeout_slack = m.timeout_slack.map(|d| d.0).or(mac.timeout_slack);
    }
    let ifq_limit = w.ifq.as_ref().and_then(|q| q.limit).unwrap_or(IFQ_LIMIT);
    let ifq_kind = ifq_kind(w);
    // The ns2 profile counts a PriQueue as ns-2.35 does (wireless/ifq.rs).
    let ifq_ns2_limits = w.ifq.as_ref().and_then(|q| q.ns2_limits).unwrap_or(ns2(w));
    let stations: Vec<Station> = cfg
        .node
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.position.map(|p| (i, p)))
        .enumerate()
        .map(|(k, (i, pos))| Station { node: i as NodeId, dev: first_dev + k as DevId, pos })
        .collect();
    let lists = neighbour_lists(&stations, &prop, &phy);
    let mobility = mobility(cfg, w, &stations);
    let frame_error = stations.iter().map(|s| cfg.node[s.node as usize].frame_error_rate.unwrap_or(0.0)).collect();
    Some(Radio { prop, phy, mac, ifq_kind, ifq_limit, ifq_ns2_limits, stations, lists, mobility, frame_error })
}

/// Why two nodes have no path, when the radio is to blame: the closest
/// pair of stations, one reachable from `from` and one not, their distance
/// and the receive range.
pub fn gap(cfg: &ScenarioCfg, radio: &Radio, reachable: &[bool]) -> Option<String> {
    let mut best: Option<(f64, usize, usize)> = None;
    for a in radio.stations.iter().filter(|s| reachable[s.node as usize]) {
        for b in radio.stations.iter().filter(|s| !reachable[s.node as usize]) {
            let d = distance(a.pos, b.pos);
            if best.is_none_or(|(bd, _, _)| d < bd) {
                best = Some((d, a.node as usize, b.node as usize));
            }
        }
    }
    let (d, a, b) = best?;
    Some(format!(
        "no radio path: the nearest gap is {:?} - {:?}, {:.1} m apart against a receive range of {:.1} m",
        cfg.node[a].name,
        cfg.node[b].name,
        d,
        radio.rx_range()
    ))
}

/// `[wireless] profile = "ns2"`.
fn ns2(w: &WirelessCfg) -> bool {
    w.profile == WirelessProfile::Ns2
}

/// A parameter takes the scenario's value when its key is given.
fn given<T>(dst: &mut T, v: Option<T>) {
    if let Some(x) = v {
        *dst = x;
    }
}

/// A duration key's value in nanoseconds.
fn dur(v: Option<super::units::Dur>) -> Option<crate::engine::Time> {
    v.map(|d| d.0)
}

/// AODV's parameters from `[wireless.aodv]` over ns-2.35's defaults.
pub fn aodv_params(w: &WirelessCfg) -> crate::net::routing::AodvParams {
    let mut p = crate::net::routing::AodvParams::default();
    if ns2(w) {
        // ns-2.35's aodv.cc: the first request for a destination never
        // reached goes network-wide (in effect), a failed discovery holds
        // it down for MAX_RREQ_TIMEOUT, breaks near the destination are
        // repaired locally (AODV_LOCAL_REPAIR), a request waits by the
        // last discoveries' latency (PerHopTime) and is repeated only at
        // the route table's 0.5 s purges or with a new packet, and the
        // local repair is its code's (ns2_local_repair), and so are its
        // route errors (ns2_route_errors) and route lifetimes
        // (ns2_lifetimes); a reply frees the buffered packets ARP_DELAY
        // (10 ms) apart; data leave their source with TTL NETWORK_DIAMETER
        // (ns2_data_ttl).
        p.new_destination_ring = false;
        p.discovery_hold_down = 10 * crate::engine::time::SEC;
        p.local_repair = true;
        p.ns2_per_hop_time = true;
        p.retry_ticks = 500 * crate::engine::time::MS;
        p.ns2_local_repair = true;
        p.ns2_route_errors = true;
        p.release_spacing = 10 * crate::engine::time::MS;
        p.ns2_lifetimes = true;
        p.ns2_data_ttl = true;
    }
    let Some(a) = &w.aodv else { return p };
    given(&mut p.net_diameter, a.net_diameter.map(|x| x as u8));
    given(&mut p.ttl_start, a.ttl_start.map(|x| x as u8));
    given(&mut p.ttl_increment, a.ttl_increment.map(|x| x as u8));
    given(&mut p.ttl_threshold, a.ttl_threshold.map(|x| x as u8));
    given(&mut p.rreq_retries, a.rreq_retries);
    given(&mut p.buffer_len, a.buffer_len.map(|x| x as usize));
    given(&mut p.hello, a.hello);
    given(&mut p.new_destination_ring, a.new_destination_ring);
    given(&mut p.local_repair, a.local_repair);
    given(&mut p.ns2_per_hop_time, a.ns2_per_hop_time);
    given(&mut p.retry_ticks, dur(a.retry_ticks));
    given(&mut p.ns2_local_repair, a.ns2_local_repair);
    given(&mut p.ns2_route_errors, a.ns2_route_errors);
    given(&mut p.ns2_lifetimes, a.ns2_lifetimes);
    given(&mut p.ns2_data_ttl, a.ns2_data_ttl);
    given(&mut p.active_route_timeout, dur(a.active_route_timeout));
    given(&mut p.my_route_timeout, dur(a.my_route_timeout));
    given(&mut p.node_traversal_time, dur(a.node_traversal_time));
    given(&mut p.buffer_timeout, dur(a.buffer_timeout));
    given(&mut p.jitter, dur(a.jitter));
    given(&mut p.hello_interval, dur(a.hello_interval));
    given(&mut p.discovery_hold_down, dur(a.discovery_hold_down));
    given(&mut p.release_spacing, dur(a.release_spacing));
    p
}

/// DSDV's parameters from `[wireless.dsdv]` over the defaults.
pub fn dsdv_params(w: &WirelessCfg) -> crate::net::routing::DsdvParams {
    let mut p = crate::net::routing::DsdvParams::default();
    if ns2(w) {
        // ns-2.35's dsdv.cc: use_mac_ 0, its rule for when a changed
        // route may be advertised, its size accounting and its queue of
        // five packets per destination without a timeout.
        p.use_mac_failures = false;
        p.ns2_advertising = true;
        p.ns2_ip_header = true;
        p.ns2_queue = true;
        p.ns2_gateway = true;
    }
    let Some(d) = &w.dsdv else { return p };
    given(&mut p.periodic_update_interval, dur(d.periodic_update_interval));
    given(&mut p.min_update_periods, d.min_update_periods);
    given(&mut p.use_mac_failures, d.use_mac_failures);
    given(&mut p.initial_settling_time, dur(d.initial_settling_time));
    given(&mut p.buffer_len, d.buffer_len.map(|x| x as usize));
    given(&mut p.buffer_timeout, dur(d.buffer_timeout));
    given(&mut p.startup_jitter, dur(d.startup_jitter));
    given(&mut p.ns2_advertising, d.ns2_advertising);
    given(&mut p.ns2_ip_header, d.ns2_ip_header);
    given(&mut p.ns2_queue, d.ns2_queue);
    given(&mut p.ns2_gateway, d.ns2_gateway);
    p
}

/// DSR's parameters from `[wireless.dsr]` over the defaults.
pub fn dsr_params(w: &WirelessCfg) -> crate::net::routing::DsrParams {
    let mut p = crate::net::routing::DsrParams {
        ns2_request_backoff: ns2(w),
        flow_state: ns2(w),
        release_spacing: if ns2(w) { 30 * crate::engine::time::MS } else { 0 },
        salvage_discovery: ns2(w),
        ns2_cache: ns2(w),
        grat_route_errors: ns2(w),
        buffer_check: if ns2(w) { 30 * crate::engine::time::MS } else { 0 },
        jitter_own: ns2(w),
        ns2_ip_header: ns2(w),
        ns2_request_size: ns2(w),
        ns2_reply_size: ns2(w),
        reply_to_every_copy: ns2(w),
        ..Default::default()
    };
    let Some(d) = &w.dsr else { return p };
    given(&mut p.max_route_len, d.max_route_len.map(|x| x as usize));
    given(&mut p.buffer_len, d.buffer_len.map(|x| x as usize));
    given(&mut p.buffer_timeout, dur(d.buffer_timeout));
    given(&mut p.max_salvage, d.max_salvage_count.map(|x| x as u8));
    given(&mut p.grat_replies, d.gratuitous_replies);
    given(&mut p.grat_holdoff, dur(d.grat_reply_holdoff));
    given(&mut p.rebuffer_own, d.rebuffer_own);
    given(&mut p.nonprop_timeout, dur(d.nonprop_timeout));
    given(&mut p.request_period, dur(d.request_period));
    given(&mut p.max_request_period, dur(d.max_request_period));
    given(&mut p.ns2_request_backoff, d.ns2_request_backoff);
    given(&mut p.flow_state, d.flow_state);
    given(&mut p.release_spacing, dur(d.release_spacing));
    given(&mut p.salvage_discovery, d.salvage_discovery);
    given(&mut p.ns2_cache, d.ns2_cache);
    given(&mut p.grat_route_errors, d.grat_route_errors);
    given(&mut p.buffer_check, dur(d.buffer_check));
    given(&mut p.jitter_own, d.jitter_own);
    given(&mut p.ns2_ip_header, d.ns2_ip_header);
    given(&mut p.ns2_request_size, d.ns2_request_size);
    given(&mut p.ns2_reply_size, d.ns2_reply_size);
    given(&mut p.reply_to_every_copy, d.reply_to_every_copy);
    p
}

/// OLSR's parameters from `[wireless.olsr]` over RFC 3626's defaults.
pub fn olsr_params(w: &WirelessCfg) -> crate::net::routing::OlsrParams {
    let mut p = crate::net::routing::OlsrParams::default();
    let Some(o) = &w.olsr else { return p };
    if let Some(x) = o.hello_interval {
        p.hello_interval = x.0;
        p.neighb_hold = 3 * x.0;
    }
    if let Some(x) = o.tc_interval {
        p.tc_interval = x.0;
        p.top_hold = 3 * x.0;
    }
    given(&mut p.buffer_len, o.buffer_len.map(|x| x as usize));
    given(&mut p.buffer_timeout, dur(o.buffer_timeout));
    given(&mut p.willingness, o.willingness.map(|x| x as u8));
    given(&mut p.hysteresis, o.hysteresis);
    given(&mut p.hyst_high, o.hyst_threshold_high);
    given(&mut p.hyst_low, o.hyst_threshold_low);
    given(&mut p.hyst_scaling, o.hyst_scaling);
    p
}

/// A node's OLSR willingness: its `node_willingness` entry, else the
/// parameters' (validated: 0 .. 7).
pub fn olsr_willingness(w: &WirelessCfg, node: &str, p: &crate::net::routing::OlsrParams) -> u8 {
    w.olsr
        .as_ref()
        .and_then(|o| o.node_willingness.as_ref())
        .and_then(|m| m.get(node))
        .map_or(p.willingness, |&x| x as u8)
}
