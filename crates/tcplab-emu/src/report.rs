//! Result tables with the simulator's columns (flows.csv, links.csv), filled
//! from what the kernel and the link model measured, plus the emulation's
//! own facts (release lateness, handshake times) for emulation.json.

use crate::path::LinkPath;
use crate::relay::Lateness;
use crate::workload::{FlowOutcome, FlowSpec};
use tcplab_core::engine::time::to_secs;
use tcplab_core::engine::Time;
use tcplab_core::output::{Column, Table};
use tcplab_core::sim::{LINUX_COUNTERS, SPLIT_COUNTERS};

/// Per-namespace TCP counters (TcpExt of /proc/net/netstat) that the
/// kernel keeps per host, not per connection.
#[derive(Clone, Debug, Default)]
pub struct HostCounters {
    pub timeouts: i64,
    pub recoveries: i64,
    /// TCPSpuriousRTOs; TCPLossUndo + TCPFullUndo + TCPPartialUndo +
    /// TCPDSACKUndo; TCPLossProbes; TCPLossProbeRecovery: flows.csv's
    /// `LINUX_COUNTERS`, in their order.
    pub linux: [i64; 4],
}

pub fn parse_netstat(text: &str) -> HostCounters {
    let mut lines = text.lines();
    let mut c = HostCounters::default();
    while let (Some(h), Some(v)) = (lines.next(), lines.next()) {
        if !h.starts_with("TcpExt:") {
            continue;
        }
        for (k, x) in h.split_whitespace().zip(v.split_whitespace()) {
            let x: i64 = x.parse().unwrap_or(0);
            match k {
                "TCPTimeouts" => c.timeouts += x,
                "TCPRenoRecovery" | "TCPSackRecovery" => c.recoveries += x,
                "TCPSpuriousRTOs" => c.linux[0] += x,
                "TCPLossUndo" | "TCPFullUndo" | "TCPPartialUndo" | "TCPDSACKUndo" => c.linux[1] += x,
                "TCPLossProbes" => c.linux[2] += x,
                "TCPLossProbeRecovery" => c.linux[3] += x,
                _ => {}
            }
        }
    }
    c
}

fn rate(bytes: u64, start: Time, end: Time) -> f64 {
    if end > start {
        bytes as f64 * 8.0 / to_secs(end - start)
    } else {
        0.0
    }
}

/// flows.csv. `host[e]` = counter increase in end e's namespace during the
/// run; timeouts, fast recoveries and the undo and probe counters go to a
/// flow only when it is the one sender of its namespace (else -1: the
/// kernel does not count per socket).
pub fn flows_table(
    specs: &[FlowSpec],
    outs: &[FlowOutcome],
    ends: &[String; 2],
    host: &[HostCounters; 2],
    end: Time,
) -> Table {
    let mut t = Table::new();
    let n = specs.len();
    let senders = |e: usize| specs.iter().filter(|s| s.from == e).count();
    let mut cols: Vec<Vec<f64>> = vec![Vec::new(); 3];
    let mut ints: Vec<Vec<i64>> = vec![Vec::new(); 13];
    let mut linux: [Vec<i64>; 4] = Default::default();
    let mut opt: Vec<Vec<Option<f64>>> = vec![Vec::new(); 4];
    let (mut name, mut src, mut dst, mut tr, mut aborted) = (vec![], vec![], vec![], vec![], vec![]);
    for (s, o) in specs.iter().zip(outs) {
        name.push(s.name.clone());
        src.push(ends[s.from].clone());
        dst.push(ends[1 - s.from].clone());
        tr.push(s.knobs.cc.clone());
        let stop = s.work.stop().map_or(end, |st| st.min(end));
        let info = o.info.clone().unwrap_or_default();
        let acked = info.bytes_acked;
        let done_end = o.completed_at.unwrap_or(stop);
        let rx_end = if o.completed_at.is_some() { o.last_delivery.unwrap_or(stop) } else { stop };
        cols[0].push(to_secs(s.start));
        cols[1].push(rate(acked, s.start, done_end));
        cols[2].push(rate(o.delivered, s.start, rx_end));
        let alone = senders(s.from) == 1;
        let (to, fr) = if alone { (host[s.from].timeouts, host[s.from].recoveries) } else { (-1, -1) };
        for (col, v) in linux.iter_mut().zip(host[s.from].linux) {
            col.push(if alone { v } else { -1 });
        }
        for (v, x) in ints.iter_mut().zip([
            acked as i64,
            o.delivered as i64,
            info.data_segs_out as i64,
            info.total_retrans as i64,
            to,
            fr,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ]) {
            v.push(x);
        }
        opt[0].push(o.completed_at.map(|t| to_secs(t.saturating_sub(s.start))));
        opt[1].push(o.first_bytes_at.map(|t| to_secs(t.saturating_sub(s.start))));
        opt[2].push(o.info.as_ref().map(|i| i.snd_cwnd as f64 * i.snd_mss as f64));
        opt[3].push(o.info.as_ref().map(|i| i.rtt_us as f64 / 1e6));
        aborted.push(o.error.is_some());
    }
    debug_assert_eq!(name.len(), n);
    t.push("flow", Column::Str(name));
    t.push("src", Column::Str(src));
    t.push("dst", Column::Str(dst));
    t.push("transport", Column::Str(tr));
    let [start, thr, good]: [Vec<f64>; 3] = cols.try_into().unwrap();
    t.push("start_s", Column::F64(start));
    t.push("throughput_bps", Column::F64(thr));
    t.push("goodput_bps", Column::F64(good));
    let names = [
        "bytes_acked",
        "bytes_delivered",
        "packets_sent",
        "retransmits",
        "timeouts",
        "fast_retransmits",
        "ecn_reductions",
        "eln_retransmits",
        "snoop_local_retransmits",
        "snoop_suppressed_dupacks",
        "snoop_max_cache",
    ];
    let rows = t.columns.first().map_or(0, |c| c.len());
    for (nm, v) in names.iter().zip(ints) {
        t.push(nm, Column::I64(v));
        if *nm == "fast_retransmits" {
            for (name, col) in LINUX_COUNTERS.iter().zip(std::mem::take(&mut linux)) {
                t.push(name, Column::I64(col));
            }
        }
    }
    // The emulator runs end-to-end connections only (it refuses `split`).
    for name in SPLIT_COUNTERS {
        t.push(name, Column::I64(vec![0; rows]));
    }
    let [comp, first, cwnd, srtt]: [Vec<Option<f64>>; 4] = opt.try_into().unwrap();
    t.push("completion_s", Column::OptF64(comp));
    t.push("first_bytes_s", Column::OptF64(first));
    t.push("aborted", Column::Bool(aborted));
    t.push("final_cwnd_bytes", Column::OptF64(cwnd));
    t.push("final_srtt_s", Column::OptF64(srtt));
    // The time averages of cwnd, ssthresh, srtt and rto: from TCP_INFO read
    // every millisecond over the sender's active time (workload.rs).
    let avg = |f: fn(&crate::workload::InfoAverages) -> Option<f64>| {
        Column::OptF64(outs.iter().map(|o| f(&o.averages)).collect())
    };
    t.push("mean_cwnd_bytes", avg(|a| a.cwnd_bytes));
    t.push("mean_ssthresh_bytes", avg(|a| a.ssthresh_bytes));
    t.push("mean_srtt_s", avg(|a| a.srtt_s));
    t.push("mean_rto_s", avg(|a| a.rto_s));
    t
}

/// CPU time the hypervisor gave to others while this machine's CPUs had
/// work ("steal", summed over the CPUs of /proc/stat), in the kernel's
/// USER_HZ ticks. A virtual machine on a busy host loses its CPUs for
/// milliseconds at a time: the relay notices when it is itself late, but
/// a stall of the CPU running the kernel's TCP only shows here.
pub fn parse_steal_ticks(stat: &str) -> Option<u64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    line.split_whitespace().nth(8)?.parse().ok()
}

/// links.csv, computed by the simulator's own function, over the run's
/// length `dur`.
pub fn links_table(path: &mut LinkPath, node_names: &[String], dur: Time) -> Table {
    tcplab_core::sim::link_dirs_table(path.dirs.iter_mut(), node_names, dur)
}

/// Per flow: what the simulator's tables have no column for.
#[derive(Clone, Debug, Default)]
pub struct FlowFacts {
    pub name: String,
    /// Time connect() took: the handshake (the simulator has none).
    pub connect_s: Option<f64>,
    /// The kernel's minimum RTT sample (tcpi_min_rtt).
    pub min_rtt_s: Option<f64>,
    /// SO_RCVBUF / SO_SNDBUF as the kernel holds them (`--rcvbuf`/`--sndbuf`
    /// doubled), None when not set.
    pub rcvbuf: Option<u32>,
    pub sndbuf: Option<u32>,
    pub error: Option<String>,
}

/// The emulation's own report (emulation.json).
#[derive(Clone, Debug, Default)]
pub struct EmuReport {
    pub duration_s: f64,
    pub packets_released: usize,
    pub late_threshold_us: u64,
    pub late_p50_us: f64,
    pub late_p90_us: f64,
    pub late_p99_us: f64,
    pub late_p999_us: f64,
    pub late_max_us: f64,
    pub late_count: usize,
    pub realtime_priority: bool,
    pub ignored_packets: u64,
    pub write_errors: u64,
    pub cc_available: String,
    pub kernel: String,
    /// Largest delay of a series.csv reading after its sampling instant.
    pub series_late_max_us: f64,
    /// CPU time stolen by the hypervisor during the run, all CPUs
    /// (None where /proc/stat has no steal column).
    pub steal_ms: Option<f64>,
    pub flows: Vec<FlowFacts>,
    pub warnings: Vec<String>,
}

impl EmuReport {
    pub fn from_lateness(l: &Lateness, threshold_ns: u64) -> EmuReport {
        let us = |x: u64| x as f64 / 1e3;
        EmuReport {
            packets_released: l.samples.len(),
            late_threshold_us: threshold_ns / 1000,
            late_p50_us: us(l.quantile(0.5)),
            late_p90_us: us(l.quantile(0.9)),
            late_p99_us: us(l.quantile(0.99)),
            late_p999_us: us(l.quantile(0.999)),
            late_max_us: us(l.max()),
            late_count: l.count_above(threshold_ns),
            ..Default::default()
        }
    }

    pub fn to_json(&self) -> String {
        let flows: Vec<serde_json::Value> = self
            .flows
            .iter()
            .map(|f| {
                serde_json::json!({"flow": f.name, "connect_s": f.connect_s, "min_rtt_s": f.min_rtt_s,
                "rcvbuf_bytes": f.rcvbuf, "sndbuf_bytes": f.sndbuf, "error": f.error})
            })
            .collect();
        let v = serde_json::json!({
            "duration_s": self.duration_s,
            "packets_released": self.packets_released,
            "late_threshold_us": self.late_threshold_us,
            "lateness_us": {
                "p50": self.late_p50_us, "p90": self.late_p90_us, "p99": self.late_p99_us,
                "p99.9": self.late_p999_us, "max": self.late_max_us,
            },
            "late_packets": self.late_count,
            "realtime_priority": self.realtime_priority,
            "ignored_packets": self.ignored_packets,
            "write_errors": self.write_errors,
            "cc_available": self.cc_available,
            "kernel": self.kernel,
            "series_late_max_us": self.series_late_max_us,
            "steal_ms": self.steal_ms,
            "flows": flows,
            "warnings": self.warnings,
        });
        serde_json::to_string_pretty(&v).expect("plain values") + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netstat_counters() {
        let text = "TcpExt: SyncookiesSent TCPTimeouts TCPRenoRecovery TCPSackRecovery TCPLossUndo TCPFullUndo \
                    TCPSpuriousRTOs TCPPartialUndo TCPDSACKUndo TCPLossProbes TCPLossProbeRecovery\n\
                    TcpExt: 0 3 1 2 4 5 6 7 8 9 10\nIpExt: InNoRoutes\nIpExt: 0\n";
        let c = parse_netstat(text);
        assert_eq!((c.timeouts, c.recoveries), (3, 3));
        assert_eq!(c.linux, [6, 4 + 5 + 7 + 8, 9, 10], "spurious RTOs, undos, probes, probe recoveries");
    }

    #[test]
    fn steal_is_the_eighth_count_of_the_cpu_line() {
        let stat = "cpu  5368609 113015 474601 7046655 12978 0 7255 54333 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(parse_steal_ticks(stat), Some(54333));
        assert_eq!(parse_steal_ticks("cpu  1 2 3 4\n"), None, "kernels before 2.6.11 have no steal column");
    }
}
