//! Turning the world's state into result tables: periodic samples during the
//! run and the per-flow / per-link summaries at the end.

use super::{TraceKind, World};
use crate::engine::time::to_secs;
use crate::engine::Time;
use crate::mechanisms::snoop::SnoopConn;
use crate::mechanisms::SnoopAgent;
use crate::net::routing::RoutingStats;
use crate::net::{Device, PointToPoint};
use crate::output::{Cell, ColType, Column, RowSink, RunResult, SinkOutput, StreamedTable, Summary, Table};
use crate::transport::app::App;
use crate::transport::socket::SocketKind;
use crate::wireless::Dcf;
use std::path::Path;

/// The sampled time series: one row per TCP flow and one per link direction
/// at every sampling instant (`output.sample_interval`).
pub struct Samples {
    flows: RowSink,
    queues: RowSink,
}

/// series.csv's columns (the emulator fills the same from the kernel).
pub const SERIES_SCHEMA: [(&str, ColType); 15] = [
    ("time_s", ColType::F64),
    ("flow", ColType::Str),
    ("cwnd_bytes", ColType::I64),
    // Empty while unset (Linux starts with an infinite ssthresh).
    ("ssthresh_bytes", ColType::OptI64),
    ("srtt_s", ColType::OptF64),
    ("rto_s", ColType::F64),
    ("snd_nxt", ColType::I64),
    ("snd_max", ColType::I64),
    ("snd_una", ColType::I64),
    ("bytes_delivered", ColType::I64),
    // The pacing rate: BBR's (or TCP-AP's); with Linux's TSO deferral on
    // (the linux profile) the rate Linux keeps for every socket,
    // tcp_update_pacing_rate()'s; empty otherwise. The bandwidth estimate,
    // least RTT and mode are BBR's (mode "none" for the others).
    ("pacing_rate_bps", ColType::OptF64),
    ("bw_estimate_bps", ColType::OptF64),
    ("min_rtt_s", ColType::OptF64),
    ("bbr_mode", ColType::Str),
    // Linux's congestion state (TcpSender::ca_state_name).
    ("ca_state", ColType::Str),
];

/// queues.csv's columns.
pub const QUEUES_SCHEMA: [(&str, ColType); 6] = [
    ("time_s", ColType::F64),
    ("link", ColType::I64),
    ("direction", ColType::Str),
    ("queue_packets", ColType::I64),
    ("queue_bytes", ColType::I64),
    ("red_avg", ColType::F64),
];

const TRACE_SCHEMA: [(&str, ColType); 5] = [
    ("time_s", ColType::F64),
    ("flow", ColType::Str),
    ("kind", ColType::Str),
    ("seq", ColType::I64),
    ("len", ColType::I64),
];

/// A sink for `schema`: in memory, or streamed to `dir/name.csv`.
fn sink(dir: Option<&Path>, name: &str, schema: &[(&str, ColType)]) -> std::io::Result<RowSink> {
    match dir {
        Some(d) => RowSink::file(&d.join(format!("{name}.csv")), schema),
        None => Ok(RowSink::memory(schema)),
    }
}

impl Samples {
    /// Sinks for the series; streamed into `dir` when the run samples and a
    /// directory is given (no empty files for runs that do not sample).
    pub fn new(dir: Option<&Path>, sampling: bool) -> std::io::Result<Self> {
        let dir = dir.filter(|_| sampling);
        Ok(Samples { flows: sink(dir, "series", &SERIES_SCHEMA)?, queues: sink(dir, "queues", &QUEUES_SCHEMA)? })
    }

    pub fn error(&self) -> Option<&std::io::Error> {
        self.flows.error().or_else(|| self.queues.error())
    }
}

impl Default for Samples {
    fn default() -> Self {
        Samples { flows: RowSink::memory(&SERIES_SCHEMA), queues: RowSink::memory(&QUEUES_SCHEMA) }
    }
}

/// The trace sink of a run that traces.
pub fn trace_sink(dir: Option<&Path>) -> std::io::Result<RowSink> {
    sink(dir, "trace", &TRACE_SCHEMA)
}

pub fn trace_row(t: &mut RowSink, flow: &str, now: Time, kind: TraceKind, seq: u64, len: u32) {
    t.push(&[
        Cell::F64(to_secs(now)),
        Cell::Str(flow),
        Cell::Str(kind.name()),
        Cell::I64(seq as i64),
        Cell::I64(len as i64),
    ]);
}

fn dir_name(forward: bool) -> String {
    dir_str(forward).to_string()
}

fn dir_str(forward: bool) -> &'static str {
    if forward {
        "forward"
    } else {
        "reverse"
    }
}

pub fn sample(w: &mut World, now: Time) {
    let s = &mut w.samples;
    let t = to_secs(now);
    // A split flow's second connection has its own rows (`<flow>/relay`),
    // with the destination's deliveries like the flow's.
    let senders = w.flows.iter().flat_map(|f| {
        let relay = f.split.as_ref().map(|sp| (sp.trace_name.as_str(), sp.tx, f.rx));
        std::iter::once((f.name.as_str(), f.tx, f.rx)).chain(relay)
    });
    for (name, tx, rx) in senders {
        if let (SocketKind::TcpSender(tx), SocketKind::TcpReceiver(rx)) =
            (&w.sockets[tx as usize].kind, &w.sockets[rx as usize].kind)
        {
            let rate = tx.rate_report();
            s.flows.push(&[
                Cell::F64(t),
                Cell::Str(name),
                Cell::I64(tx.w.cwnd as i64),
                Cell::OptI64(i64::try_from(tx.w.ssthresh).ok()),
                Cell::OptF64(tx.rto.srtt.map(to_secs)),
                Cell::F64(to_secs(tx.rto.rto())),
                Cell::I64(tx.snd_nxt as i64),
                Cell::I64(tx.snd_max as i64),
                Cell::I64(tx.snd_una as i64),
                Cell::I64(rx.delivered() as i64),
                Cell::OptF64(rate.map(|r| r.0 as f64 * 8.0)),
                Cell::OptF64(rate.and_then(|r| r.1).map(|b| b as f64 * 8.0)),
                Cell::OptF64(rate.and_then(|r| r.2).map(to_secs)),
                Cell::Str(rate.map_or("none", |r| r.3)),
                Cell::Str(tx.ca_state_name()),
            ]);
        }
    }
    queue_rows(point_to_points(&w.devices), t, &mut s.queues);
}

fn point_to_points(devices: &[Device]) -> impl Iterator<Item = &PointToPoint> {
    devices.iter().filter_map(|d| d.as_dyn().as_any().downcast_ref::<PointToPoint>())
}

impl World {
    /// queues.csv's rows for this world's point-to-point directions at
    /// `t` seconds (the emulator samples a network it carries with it).
    pub fn queue_rows(&self, t: f64, sink: &mut RowSink) {
        queue_rows(point_to_points(&self.devices), t, sink);
    }
}

/// queues.csv's rows at `t` seconds: one per point-to-point direction
/// (the emulator's link directions are the same devices).
pub fn queue_rows<'a>(devs: impl Iterator<Item = &'a PointToPoint>, t: f64, sink: &mut RowSink) {
    for d in devs {
        sink.push(&[
            Cell::F64(t),
            Cell::I64(d.link as i64),
            Cell::Str(dir_str(d.forward)),
            Cell::I64(d.queue.len() as i64),
            Cell::I64(d.queue.bytes() as i64),
            Cell::F64(d.queue.red_avg()),
        ]);
    }
}

/// The Snoop state of a flow's connection at every node that runs Snoop.
fn snoop_conns<'a>(w: &'a World, f: &super::Flow) -> Vec<&'a SnoopConn> {
    let key = f.conn_key(&w.sockets);
    w.nodes
        .iter()
        .flat_map(|n| n.agents.iter())
        .filter_map(|a| a.as_any().downcast_ref::<SnoopAgent>())
        .filter_map(|a| a.conn(&key))
        .collect()
}

/// A finished sink as a table in memory, or an empty table plus the file.
fn close(sink: RowSink, name: &str, streamed: &mut Vec<(String, StreamedTable)>) -> std::io::Result<Table> {
    Ok(match sink.finish()? {
        SinkOutput::Memory(t) => t,
        SinkOutput::File(f) => {
            let t =
                Table { names: f.names.clone(), columns: f.types.iter().map(|_| Column::F64(Vec::new())).collect() };
            streamed.push((name.to_string(), f));
            t
        }
    })
}

/// Bits per second over [start, end]; 0 for an empty interval.
fn rate(bytes: u64, start: Time, end: Time) -> f64 {
    if end > start {
        bytes as f64 * 8.0 / to_secs(end - start)
    } else {
        0.0
    }
}

#[derive(Default)]
struct FlowCols {
    name: Vec<String>,
    src: Vec<String>,
    dst: Vec<String>,
    transport: Vec<String>,
    start: Vec<f64>,
    thr: Vec<f64>,
    good: Vec<f64>,
    acked: Vec<i64>,
    delivered: Vec<i64>,
    sent: Vec<i64>,
    rtx: Vec<i64>,
    to: Vec<i64>,
    fr: Vec<i64>,
    /// Linux's undo counters (`undo`, `frto`, `tlp`): spurious timeouts,
    /// reductions undone, loss probes, and losses the probes repaired.
    linux: [Vec<i64>; 4],
    ecn: Vec<i64>,
    eln: Vec<i64>,
    snoop_rtx: Vec<i64>,
    snoop_supp: Vec<i64>,
    snoop_cache: Vec<i64>,
    /// A split flow's second connection: retransmissions, timeouts, and
    /// the most bytes its node held.
    split: [Vec<i64>; 3],
    completion: Vec<Option<f64>>,
    first_bytes: Vec<Option<f64>>,
    aborted: Vec<bool>,
    cwnd: Vec<Option<f64>>,
    srtt: Vec<Option<f64>>,
    /// Time averages over the active time: cwnd, ssthresh, srtt, rto.
    mean: [Vec<Option<f64>>; 4],
}

/// flows.csv's columns of Linux's own counters, in order (the emulator
/// fills them from the kernel's: docs/emulator.md).
pub const LINUX_COUNTERS: [&str; 4] = ["spurious_rtos", "undos", "loss_probes", "loss_probe_recoveries"];

/// flows.csv's columns of a split flow's second connection (0 for other
/// flows).
pub const SPLIT_COUNTERS: [&str; 3] = ["split_retransmits", "split_timeouts", "split_max_held_bytes"];

fn flows_table(w: &World) -> Table {
    let mut c = FlowCols::default();
    let dur = w.duration;
    for f in &w.flows {
        let start = f.app.start();
        let end_active = f.app.stop().unwrap_or(dur).min(dur);
        c.name.push(f.name.clone());
        c.src.push(w.nodes[f.src as usize].name.clone());
        c.dst.push(w.nodes[f.dst as usize].name.clone());
        c.transport.push(f.transport.clone());
        c.start.push(to_secs(start));
        c.first_bytes.push(f.first_bytes_at.map(|t| to_secs(t.saturating_sub(start))));
        let snoop = snoop_conns(w, f);
        let sum =
            |g: fn(&crate::mechanisms::snoop::SnoopStats) -> u64| snoop.iter().map(|s| g(&s.stats)).sum::<u64>() as i64;
        c.snoop_rtx.push(sum(|s| s.local_retransmits));
        c.snoop_supp.push(sum(|s| s.suppressed_dupacks));
        c.snoop_cache.push(snoop.iter().map(|s| s.stats.max_cache).max().unwrap_or(0) as i64);
        let relay = f.split.as_ref().and_then(|sp| match &w.sockets[sp.tx as usize].kind {
            SocketKind::TcpSender(tx) => Some([tx.stats.retransmits, tx.stats.timeouts, sp.max_held]),
            _ => None,
        });
        for (col, v) in c.split.iter_mut().zip(relay.unwrap_or_default()) {
            col.push(v as i64);
        }
        match (&w.sockets[f.tx as usize].kind, &w.sockets[f.rx as usize].kind) {
            (SocketKind::TcpSender(tx), SocketKind::TcpReceiver(rx)) => {
                let acked = tx.snd_una;
                let done = match &f.app {
                    // Split: when the destination has all the source wrote
                    // (the source had it acknowledged earlier, by the
                    // split node).
                    App::Transfer { .. } if f.split.is_some() => {
                        tx.completed_at.and(rx.last_delivery.into()).filter(|_| rx.delivered() >= tx.snd_una)
                    }
                    App::Transfer { .. } => tx.completed_at,
                    _ => None,
                };
                let end = done.unwrap_or(end_active);
                let rx_end = if done.is_some() { rx.last_delivery } else { end_active };
                // A stopped flow's rates: what had arrived by its stop.
                let (by_end_acked, by_end_delivered) = match (done, f.at_stop) {
                    (None, Some(at)) => at,
                    _ => (acked, rx.delivered()),
                };
                c.thr.push(rate(by_end_acked, start, end));
                c.good.push(rate(by_end_delivered, start, rx_end));
                c.acked.push(acked as i64);
                c.delivered.push(rx.delivered() as i64);
                c.sent.push(tx.stats.segments_sent as i64);
                c.rtx.push(tx.stats.retransmits as i64);
                c.to.push(tx.stats.timeouts as i64);
                c.fr.push(tx.stats.fast_retransmits as i64);
                let ((undos, spurious), (probes, repaired)) = (tx.undos(), tx.loss_probes());
                for (col, v) in c.linux.iter_mut().zip([spurious, undos, probes, repaired]) {
                    col.push(v as i64);
                }
                c.ecn.push(tx.stats.ecn_reductions as i64);
                c.eln.push(tx.stats.eln_retransmits as i64);
                c.completion.push(done.map(|t| to_secs(t - start)));
                c.aborted.push(tx.aborted);
                c.cwnd.push(Some(tx.w.cwnd as f64));
                c.srtt.push(tx.rto.srtt.map(to_secs));
                let a = tx.window_averages(start, end);
                for (col, v) in c.mean.iter_mut().zip([a.cwnd_bytes, a.ssthresh_bytes, a.srtt_s, a.rto_s]) {
                    col.push(v);
                }
            }
            (SocketKind::UdpSender(u), SocketKind::UdpSink(sink)) => {
                let received = f.at_stop.map_or(sink.stats.bytes_received, |(_, r)| r);
                let r = rate(received, start, end_active);
                c.thr.push(r);
                c.good.push(r);
                c.acked.push(0);
                c.delivered.push(sink.stats.bytes_received as i64);
                c.sent.push(u.stats.packets_sent as i64);
                c.rtx.push(0);
                c.to.push(0);
                c.fr.push(0);
                for col in c.linux.iter_mut() {
                    col.push(0);
                }
                c.ecn.push(0);
                c.eln.push(0);
                c.completion.push(None);
                c.aborted.push(false);
                c.cwnd.push(None);
                c.srtt.push(None);
                for col in c.mean.iter_mut() {
                    col.push(None);
                }
            }
            _ => unreachable!("a flow's sockets are of one transport"),
        }
    }
    let mut t = Table::new();
    t.push("flow", Column::Str(c.name));
    t.push("src", Column::Str(c.src));
    t.push("dst", Column::Str(c.dst));
    t.push("transport", Column::Str(c.transport));
    t.push("start_s", Column::F64(c.start));
    t.push("throughput_bps", Column::F64(c.thr));
    t.push("goodput_bps", Column::F64(c.good));
    t.push("bytes_acked", Column::I64(c.acked));
    t.push("bytes_delivered", Column::I64(c.delivered));
    t.push("packets_sent", Column::I64(c.sent));
    t.push("retransmits", Column::I64(c.rtx));
    t.push("timeouts", Column::I64(c.to));
    t.push("fast_retransmits", Column::I64(c.fr));
    for (name, col) in LINUX_COUNTERS.iter().zip(c.linux) {
        t.push(name, Column::I64(col));
    }
    t.push("ecn_reductions", Column::I64(c.ecn));
    t.push("eln_retransmits", Column::I64(c.eln));
    t.push("snoop_local_retransmits", Column::I64(c.snoop_rtx));
    t.push("snoop_suppressed_dupacks", Column::I64(c.snoop_supp));
    t.push("snoop_max_cache", Column::I64(c.snoop_cache));
    for (name, col) in SPLIT_COUNTERS.iter().zip(c.split) {
        t.push(name, Column::I64(col));
    }
    t.push("completion_s", Column::OptF64(c.completion));
    t.push("first_bytes_s", Column::OptF64(c.first_bytes));
    t.push("aborted", Column::Bool(c.aborted));
    t.push("final_cwnd_bytes", Column::OptF64(c.cwnd));
    t.push("final_srtt_s", Column::OptF64(c.srtt));
    let [cwnd, ssthresh, srtt, rto] = c.mean;
    t.push("mean_cwnd_bytes", Column::OptF64(cwnd));
    t.push("mean_ssthresh_bytes", Column::OptF64(ssthresh));
    t.push("mean_srtt_s", Column::OptF64(srtt));
    t.push("mean_rto_s", Column::OptF64(rto));
    t
}

fn links_table(w: &mut World) -> Table {
    let names: Vec<String> = w.nodes.iter().map(|n| n.name.clone()).collect();
    let dirs = w.devices.iter_mut().filter_map(|d| d.as_dyn_mut().as_any_mut().downcast_mut::<PointToPoint>());
    link_dirs_table(dirs, &names, w.duration)
}

/// The links table (one row per link direction) over a run of length `dur`:
/// the simulator's, and the emulator's for the same link model.
pub fn link_dirs_table<'a>(
    dirs: impl Iterator<Item = &'a mut PointToPoint>,
    node_names: &[String],
    dur: Time,
) -> Table {
    let mut t = Table::new();
    let mut cols: (Vec<i64>, Vec<String>, Vec<String>, Vec<String>) = Default::default();
    let mut num: Vec<Vec<f64>> = vec![Vec::new(); 2];
    let mut ints: Vec<Vec<i64>> = vec![Vec::new(); 10];
    for d in dirs {
        d.note_queue(dur);
        cols.0.push(d.link as i64);
        cols.1.push(dir_name(d.forward));
        cols.2.push(node_names[d.from as usize].clone());
        cols.3.push(node_names[d.to as usize].clone());
        let s = &d.stats;
        for (v, x) in ints.iter_mut().zip([
            s.packets_sent,
            s.bytes_sent,
            s.packets_delivered,
            s.drops_overflow,
            s.drops_red,
            s.drops_soft,
            s.drops_codel,
            s.drops_corruption,
            s.ecn_marks,
            s.max_queue,
        ]) {
            v.push(x as i64);
        }
        num[0].push(if dur > 0 { d.busy_ns().min(dur) as f64 / dur as f64 } else { 0.0 });
        num[1].push(if dur > 0 { s.queue_area / dur as f64 } else { 0.0 });
    }
    t.push("link", Column::I64(cols.0));
    t.push("direction", Column::Str(cols.1));
    t.push("from", Column::Str(cols.2));
    t.push("to", Column::Str(cols.3));
    let names = [
        "packets_sent",
        "bytes_sent",
        "packets_delivered",
        "drops_overflow",
        "drops_red",
        "drops_soft",
        "drops_codel",
        "drops_corruption",
        "ecn_marks",
        "max_queue",
    ];
    for (n, v) in names.iter().zip(ints) {
        t.push(n, Column::I64(v));
    }
    let [util, meanq]: [Vec<f64>; 2] = num.try_into().unwrap();
    t.push("utilization", Column::F64(util));
    t.push("mean_queue", Column::F64(meanq));
    t
}

/// The nodes table: one row per node with an 802.11 device, its MAC's
/// frames by type, retries, losses and drops.
fn nodes_table(w: &World) -> Table {
    const INTS: [&str; 15] = [
        "data_frames",
        "rts_frames",
        "cts_frames",
        "ack_frames",
        "broadcast_frames",
        "retries",
        "collisions",
        "frame_errors",
        "drops_ifq",
        "drops_retry_limit",
        "link_failures",
        "data_offered",
        "data_acked",
        "duplicates",
        "frames_received",
    ];
    let mut names = Vec::new();
    let mut ints: Vec<Vec<i64>> = vec![Vec::new(); INTS.len()];
    let mut prob = Vec::new();
    let (mut max_q, mut mean_q) = (Vec::new(), Vec::new());
    for d in w.devices.iter().filter_map(|d| d.as_dyn().as_any().downcast_ref::<Dcf>()) {
        let s = &d.stats;
        names.push(w.nodes[d.node as usize].name.clone());
        for (v, x) in ints.iter_mut().zip([
            s.data_sent,
            s.rts_sent,
            s.cts_sent,
            s.ack_sent,
            s.broadcast_sent,
            s.retries,
            s.collisions,
            s.rx_errors,
            s.drops_ifq,
            s.drops_retry,
            s.link_failures,
            s.data_offered,
            s.data_acked,
            s.duplicates,
            s.frames_received,
        ]) {
            v.push(x as i64);
        }
        prob.push(s.drop_probability());
        let q = &d.queue;
        max_q.push(q.occupancy.max() as i64);
        mean_q.push(q.occupancy.mean(w.duration, q.len()));
    }
    let mut t = Table::new();
    t.push("node", Column::Str(names));
    for (n, v) in INTS.iter().zip(ints) {
        t.push(n, Column::I64(v));
    }
    t.push("drop_probability", Column::F64(prob));
    t.push("max_queue", Column::I64(max_q));
    t.push("mean_queue", Column::F64(mean_q));
    // With an ad hoc routing protocol: its counters per node (static
    // routing sends nothing, and its tables keep their columns).
    let routed: Vec<(Option<&RoutingStats>, [u64; 2])> = w
        .devices
        .iter()
        .filter_map(|d| d.as_dyn().as_any().downcast_ref::<Dcf>())
        .map(|d| {
            let n = &w.nodes[d.node as usize];
            (n.routing.as_dyn().stats(), [n.stats.false_link_failures, n.stats.drops_link_broken])
        })
        .collect();
    let Some(kinds) = routed.iter().find_map(|r| r.0.map(|s| s.kinds)) else { return t };
    let get = |f: &dyn Fn(&RoutingStats) -> u64| -> Column {
        Column::I64(routed.iter().map(|r| r.0.map_or(0, f) as i64).collect())
    };
    t.push("routing_packets", get(&|s| s.control_packets()));
    t.push("routing_bytes", get(&|s| s.control_bytes()));
    for (k, name) in kinds.iter().enumerate() {
        t.push(&format!("{name}_sent"), get(&|s| s.sent.get(k).copied().unwrap_or(0)));
        t.push(&format!("{name}_bytes"), get(&|s| s.bytes.get(k).copied().unwrap_or(0)));
    }
    t.push("route_discoveries", get(&|s| s.discoveries));
    t.push("route_errors", get(&|s| s.route_errors));
    t.push("drops_no_route_buffer_full", get(&|s| s.drops_buffer_full));
    t.push("drops_no_route_timeout", get(&|s| s.drops_buffer_timeout));
    t.push("drops_no_route_discovery_failed", get(&|s| s.drops_discovery_failed));
    t.push("drops_no_route_forwarding", get(&|s| s.drops_no_route));
    t.push("drops_link_broken", Column::I64(routed.iter().map(|r| r.1[1] as i64).collect()));
    t.push("false_route_failures", Column::I64(routed.iter().map(|r| r.1[0] as i64).collect()));
    // The protocol's own counters (DSR: salvaged packets, gratuitous replies).
    if let Some(extra) = routed.iter().find_map(|r| r.0.map(|s| s.extra_kinds)) {
        for (k, name) in extra.iter().enumerate() {
            t.push(name, get(&|s| s.extra.get(k).copied().unwrap_or(0)));
        }
    }
    t
}

/// Control bytes of the nodes' routing protocols (None: static routing).
fn routing_bytes(w: &World) -> Option<u64> {
    let mut any = false;
    let mut sum = 0;
    for n in &w.nodes {
        if let Some(s) = n.routing.as_dyn().stats() {
            any = true;
            sum += s.control_bytes();
        }
    }
    any.then_some(sum)
}

pub fn build(w: &mut World, wall: f64) -> std::io::Result<RunResult> {
    let flows = flows_table(w);
    let links = links_table(w);
    let nodes = nodes_table(w);
    let routing_bytes = routing_bytes(w);
    let data_bytes: f64 = (0..flows.rows()).filter_map(|i| flows.get("bytes_delivered", i)).sum();
    let (unfairness, jain) = crate::output::flows_fairness(&flows);
    let mut streamed = Vec::new();
    let Samples { flows: fs, queues: qs } = std::mem::take(&mut w.samples);
    let series = close(fs, "series", &mut streamed)?;
    let queues = close(qs, "queues", &mut streamed)?;
    let (mut pcaps, mut pcap_files) = (Vec::new(), Vec::new());
    for c in w.captures.iter_mut() {
        match c.writer.finish()? {
            Some(path) => pcap_files.push((c.name.clone(), path)),
            None => pcaps.push((c.name.clone(), std::mem::take(&mut c.writer.buf))),
        }
    }
    let trace = match w.trace.take() {
        Some(t) => close(t, "trace", &mut streamed)?,
        None => close(RowSink::memory(&TRACE_SCHEMA), "trace", &mut streamed)?,
    };
    Ok(RunResult {
        flows,
        links,
        nodes,
        series,
        queues,
        trace,
        pcaps,
        pcap_files,
        summary: Summary {
            seed: w.seed,
            duration_s: to_secs(w.duration),
            events: w.events(),
            wall_s: wall,
            packets_created: w.pool.created(),
            packets_delivered: w.delivered,
            packets_consumed: w.consumed,
            drops_no_route: w.nodes.iter().map(|n| n.stats.drops_no_route).sum(),
            drops_ttl: w.nodes.iter().map(|n| n.stats.drops_ttl).sum(),
            drops_no_socket: w.nodes.iter().map(|n| n.stats.drops_no_socket).sum(),
            packets_in_flight: packets_in_flight(w),
            retry_drops_received: w
                .devices
                .iter()
                .any(|d| matches!(d, Device::Wifi(_)))
                .then_some(w.retry_drops_received),
            routing_bytes,
            routing_overhead: routing_bytes
                .map(|b| if data_bytes > 0.0 { b as f64 / data_bytes } else { f64::INFINITY }),
            unfairness,
            jain,
        },
        streamed,
    })
}

/// IP packets alive at the end, each once: on 802.11 a frame's sender keeps
/// its copy until the ACK while the receiver holds its own (or has handed it
/// on or to its socket), and the MAC's own frames (RTS, CTS, ACK, ARP) are
/// not packets. On wired networks every slot in use is a packet of its own.
fn packets_in_flight(w: &World) -> u64 {
    let decoded: std::collections::HashSet<crate::packet::PktId> = w
        .devices
        .iter()
        .filter_map(|d| match d {
            Device::Wifi(s) => s.current_unicast().map(|(pkt, to)| (s.node, pkt, to)),
            _ => None,
        })
        .filter(|&(me, pkt, to)| w.next_hop_decoded(me, to, pkt))
        .map(|(_, pkt, _)| pkt)
        .collect();
    let uids: std::collections::HashSet<u64> = w
        .pool
        .alive()
        .filter(|(id, p)| !decoded.contains(id) && !crate::wireless::is_link_frame(p))
        .map(|(_, p)| p.uid)
        .collect();
    uids.len() as u64
}
