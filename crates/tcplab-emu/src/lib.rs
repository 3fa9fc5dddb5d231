//! tcplab-emu: the machine's own TCP stack through tcplab's link models, in
//! real time (SPEC 6).
//!
//! Two unnamed network namespaces, one per end of the scenario's path, each
//! with a TUN device; a relay thread reads the IP packets each kernel sends,
//! carries them through the scenario's link directions (the core's
//! `LinkDir`: queue, transmission at the link rate, propagation delay, error
//! decision at the far end) and writes them into the other namespace when
//! the model says they arrive. A TTCP-like workload runs each flow's sender
//! and receiver on threads inside the namespaces. See docs/emulator.md.

pub mod appendbuf;
pub mod ippkt;
pub mod links;
pub mod linux;
pub mod netns;
pub mod network;
pub mod path;
pub mod relay;
pub mod report;
pub mod series;
pub mod tun;
pub mod workload;

use links::LinkCarrier;
use netns::Netns;
use network::NetworkCarrier;
use path::LinkPath;
use relay::{Carrier, Relay, Timing};
use report::{EmuReport, HostCounters};
use std::fmt;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tcplab_core::engine::time::to_secs;
use tcplab_core::output::{RunResult, Summary, Table};
use tcplab_core::{Scenario, ScenarioError};
use workload::Clock;

/// Name of the TUN device in each namespace. The namespaces are the
/// emulator's own and unnamed, so the name never meets another interface.
pub const TUN_NAME: &str = "tlemu0";
/// Addresses of end 0 and end 1 (a point-to-point pair).
pub const ADDRS: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 77, 0, 1), Ipv4Addr::new(10, 77, 0, 2)];

#[derive(Debug)]
pub enum EmuError {
    Scenario(ScenarioError),
    NotRoot(String),
    NoTun(String),
    Setup(String),
    Interrupted,
}

impl fmt::Display for EmuError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            EmuError::Scenario(e) => write!(f, "{e}"),
            EmuError::NotRoot(m) => write!(f, "the emulator needs root (CAP_NET_ADMIN): {m}"),
            EmuError::NoTun(m) => write!(f, "no TUN device: {m}"),
            EmuError::Setup(m) => write!(f, "emulator setup failed: {m}"),
            EmuError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl std::error::Error for EmuError {}

impl From<ScenarioError> for EmuError {
    fn from(e: ScenarioError) -> Self {
        EmuError::Scenario(e)
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub knobs: linux::Knobs,
    /// Capture both TUN devices (pcaps named tun-<node>).
    pub capture: bool,
    /// Busy-poll when the next event is this close instead of sleeping.
    pub spin_us: u64,
    /// A packet released later than this after its due time counts as late.
    pub late_threshold_us: u64,
    /// Run the relay thread at SCHED_FIFO priority (falls back silently).
    pub realtime: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { knobs: Default::default(), capture: true, spin_us: 0, late_threshold_us: 1000, realtime: true }
    }
}

pub struct Emulation {
    pub result: RunResult,
    pub report: EmuReport,
}

/// Check the scenario for what the emulator can run, without running it.
pub fn check(sc: &Scenario, opts: &Options) -> Result<(), EmuError> {
    plan(sc, opts).map(|_| ())
}

fn plan(sc: &Scenario, opts: &Options) -> Result<(Carrier, Vec<workload::FlowSpec>, linux::HostSettings), EmuError> {
    let cfg = &sc.cfg;
    if cfg.output.trace {
        return Err(ScenarioError::new("output.trace", "the emulator has no segment trace; use its pcaps").into());
    }
    if let Some(iv) = cfg.output.sample_interval.filter(|iv| iv.0 < series::MIN_INTERVAL) {
        return Err(ScenarioError::new(
            "output.sample_interval",
            format!(
                "{} ms is shorter than the emulator samples the kernel's state (at least {} ms)",
                iv.0 as f64 / 1e6,
                series::MIN_INTERVAL / 1_000_000
            ),
        )
        .into());
    }
    if !cfg.pcap.is_empty() {
        return Err(
            ScenarioError::new("pcap", "the emulator captures its two TUN devices itself; remove [[pcap]]").into()
        );
    }
    for (i, n) in cfg.node.iter().enumerate() {
        if n.snoop {
            return Err(ScenarioError::new(
                format!("node[{i}].snoop"),
                "Snoop is a simulated agent; the emulator has none",
            )
            .into());
        }
    }
    // With a radio channel the whole simulated network carries the packets
    // (`network.rs`); otherwise the chain of links (`links.rs`).
    let carrier = if cfg.wireless.is_some() {
        Carrier::Network(Box::new(NetworkCarrier::new(sc)?))
    } else {
        Carrier::Links(LinkCarrier::new(LinkPath::new(cfg)?))
    };
    let ends = carrier.ends();
    let (flows, host) = linux::plan(cfg, &opts.knobs, |n| usize::from(ends[1] == n))?;
    Ok((carrier, flows, host))
}

fn setup_end(ns: &Netns, i: usize, host: &linux::HostSettings) -> Result<(), EmuError> {
    let (me, peer) = (ADDRS[i].to_string(), ADDRS[1 - i].to_string());
    for (k, v) in host.sysctls() {
        ns.sysctl(k, &v)?;
    }
    ns.ip(&["link", "set", "lo", "up"])?;
    ns.ip(&["link", "set", TUN_NAME, "mtu", &host.mtu.to_string(), "up"])?;
    ns.ip(&["addr", "add", &me, "peer", &peer, "dev", TUN_NAME])?;
    let mut args: Vec<String> =
        ["route", "replace", &peer, "dev", TUN_NAME, "src", &me].iter().map(|s| s.to_string()).collect();
    args.extend(host.route_attrs());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ns.ip(&args)
}

/// The congestion controls the kernel has loaded, space-separated.
fn cc_available() -> String {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Steal time (all CPUs) above this fraction of the run's length makes the
/// run suspect. On this VM a quiet host takes 0-4 % of a run (results
/// within 2 ms of the simulation); a busy one 20-30 % (release lateness
/// p50 0.4-0.9 ms, a 122 ms transfer 10-23 ms late).
const STEAL_WARN_FRACTION: f64 = 0.10;
/// Below three ticks of /proc/stat's 10 ms the count is its rounding.
const STEAL_WARN_MIN_MS: f64 = 30.0;

/// The warning for `steal_ms` of steal during a run of `duration_s`, if
/// it is enough to distort the kernel's timing.
fn steal_warning(steal_ms: f64, duration_s: f64) -> Option<String> {
    (steal_ms >= STEAL_WARN_MIN_MS && steal_ms > STEAL_WARN_FRACTION * duration_s * 1e3).then(|| {
        format!(
            "the hypervisor took {steal_ms:.0} ms of CPU time from this machine during the {duration_s:.1} s run: the kernel's timers and the relay ran late and the results may be distorted"
        )
    })
}

fn steal_ticks() -> Option<u64> {
    report::parse_steal_ticks(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// USER_HZ, the unit of /proc/stat's times.
fn clock_ticks_per_s() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as f64
    } else {
        100.0
    }
}

fn counters(ns: &Netns) -> HostCounters {
    ns.read_proc_net("netstat").map(|t| report::parse_netstat(&t)).unwrap_or_default()
}

/// Timer slack 1 ns and SCHED_FIFO priority 20 for the calling thread
/// (false when not allowed).
pub(crate) fn set_realtime() -> bool {
    // SAFETY: plain syscalls on the calling thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
        let p = libc::sched_param { sched_priority: 20 };
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0
    }
}

/// Run the scenario with the kernel's TCP. `interrupted` is polled every
/// 20 ms (Ctrl-C in the caller); on true the run stops and returns
/// `EmuError::Interrupted`.
pub fn emulate(sc: &Scenario, opts: &Options, interrupted: &dyn Fn() -> bool) -> Result<Emulation, EmuError> {
    let (carrier, specs, host) = plan(sc, opts)?;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Err(EmuError::NotRoot("run it as root".into()));
    }
    if !std::path::Path::new("/dev/net/tun").exists() {
        return Err(EmuError::NoTun("/dev/net/tun does not exist: load the tun module (modprobe tun)".into()));
    }
    // A congestion control the kernel cannot run is bad input, refused
    // before anything runs (not a run of zeros with a warning).
    for (i, s) in specs.iter().enumerate() {
        if !s.knobs.cc.is_empty() {
            if let Err(e) = workload::cc_usable(&s.knobs.cc) {
                let key = if opts.knobs.cc.is_some() { "--cc".to_string() } else { format!("flow[{i}].transport") };
                let msg = format!(
                    "this kernel cannot run congestion control {:?} ({e}); available now: {}",
                    s.knobs.cc,
                    cc_available()
                );
                return Err(ScenarioError::new(key, msg).into());
            }
        }
    }
    let wall = Instant::now();
    let steal_before = steal_ticks();
    let nets = [Arc::new(Netns::new()?), Arc::new(Netns::new()?)];
    let tuns = [tun::Tun::create(&nets[0], TUN_NAME)?, tun::Tun::create(&nets[1], TUN_NAME)?];
    for (i, ns) in nets.iter().enumerate() {
        setup_end(ns, i, &host)?;
    }
    let mut listeners = Vec::new();
    for s in &specs {
        listeners.push(workload::listen(&nets[1 - s.from], ADDRS[1 - s.from], s).map_err(EmuError::Setup)?);
    }
    let before = [counters(&nets[0]), counters(&nets[1])];
    let end = sc.cfg.sim.duration.0;
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let clock = Arc::new(Clock { t0 });
    let timing = Timing { spin_ns: opts.spin_us * 1000 };
    let mut relay = Relay::new(carrier, tuns, t0, timing, opts.capture);
    relay.queues = sc.cfg.output.sample_interval.map(|iv| relay::QueueSamples::new(iv.0));
    // Set (before `stop`) when the run ends because its flows are done:
    // the relay then delivers what is still on the path before it ends.
    let drain = Arc::new(AtomicBool::new(false));
    let (rt_wanted, stop_r, drain_r) = (opts.realtime, stop.clone(), drain.clone());
    let relay_thread = std::thread::spawn(move || {
        let rt = rt_wanted && set_realtime();
        let mut ended = relay.run(&stop_r, end);
        if drain_r.load(Ordering::Acquire) {
            ended = relay.drain(ended, end, &drain_r);
        }
        (relay, ended, rt)
    });
    let handles: Vec<_> = specs
        .iter()
        .cloned()
        .zip(listeners)
        .map(|(s, l)| workload::run_flow(nets.clone(), ADDRS, l, s, clock.clone(), stop.clone(), opts.realtime))
        .collect();
    let mut was_interrupted = false;
    while !handles.iter().all(|h| h.is_finished()) && !relay_thread.is_finished() {
        if interrupted() {
            was_interrupted = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if !was_interrupted {
        drain.store(true, Ordering::Release);
    }
    stop.store(true, Ordering::Release);
    let outs: Vec<_> = handles.into_iter().map(|h| h.join().unwrap_or_default()).collect();
    // The relay may be draining the path: Ctrl-C still stops it.
    while !relay_thread.is_finished() {
        if !was_interrupted && interrupted() {
            was_interrupted = true;
            drain.store(false, Ordering::Release);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (mut relay, ended, rt) = relay_thread.join().map_err(|_| EmuError::Setup("relay thread panicked".into()))?;
    if was_interrupted {
        return Err(EmuError::Interrupted);
    }
    relay.sample_through(ended);
    let after = [counters(&nets[0]), counters(&nets[1])];
    let host_delta = [0, 1].map(|e| HostCounters {
        timeouts: after[e].timeouts - before[e].timeouts,
        recoveries: after[e].recoveries - before[e].recoveries,
        linux: std::array::from_fn(|k| after[e].linux[k] - before[e].linux[k]),
    });
    let ends = relay.carrier.ends();
    let node_names: Vec<String> = sc.cfg.node.iter().map(|n| n.name.clone()).collect();
    let flows = report::flows_table(&specs, &outs, &ends, &host_delta, ended);
    let held = relay.held();
    // The links' (and a network's nodes') tables over the length of the run.
    let (links, nodes) = match std::mem::replace(&mut relay.carrier, Carrier::Links(LinkCarrier::default())) {
        Carrier::Links(mut c) => (report::links_table(&mut c.path, &node_names, ended), Table::new()),
        Carrier::Network(c) => {
            let r = c.world.report_at(ended, 0.0).map_err(|e| EmuError::Setup(e.to_string()))?;
            (r.links, r.nodes)
        }
    };
    let mut rep = EmuReport::from_lateness(&relay.lateness, opts.late_threshold_us * 1000);
    rep.duration_s = to_secs(ended);
    rep.realtime_priority = rt;
    rep.ignored_packets = relay.ignored;
    rep.write_errors = relay.write_errors;
    rep.cc_available = cc_available();
    rep.kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string();
    rep.steal_ms = steal_before.zip(steal_ticks()).map(|(a, b)| b.saturating_sub(a) as f64 * 1e3 / clock_ticks_per_s());
    rep.series_late_max_us = outs.iter().map(|o| o.series_late_max).max().unwrap_or(0) as f64 / 1e3;
    let missed: u64 = outs.iter().map(|o| o.series_missed).sum();
    if missed > 0 {
        rep.warnings.push(format!(
            "series.csv lacks {missed} sampling instants: the sampler woke after the next one was due (the machine fell behind)"
        ));
    }
    for (s, o) in specs.iter().zip(&outs) {
        rep.flows.push(report::FlowFacts {
            name: s.name.clone(),
            connect_s: o.connect_ns.map(to_secs),
            min_rtt_s: o.info.as_ref().map(|i| i.min_rtt_us as f64 / 1e6),
            rcvbuf: o.rcvbuf,
            sndbuf: o.sndbuf,
            error: o.error.clone(),
        });
        if let Some(e) = &o.error {
            rep.warnings.push(e.clone());
        }
        if matches!(s.work, workload::Work::Transfer { .. }) && o.completed_at.is_none() && o.error.is_none() {
            rep.warnings.push(format!("flow {}: the transfer did not complete within sim.duration", s.name));
        }
    }
    if let Some(w) = rep.steal_ms.and_then(|s| steal_warning(s, rep.duration_s)) {
        rep.warnings.push(w);
    }
    if rep.late_count > 0 {
        rep.warnings.push(format!(
            "{} of {} packets were released more than {} us late (max {:.0} us): the machine fell behind real time and the results may be distorted",
            rep.late_count, rep.packets_released, rep.late_threshold_us, rep.late_max_us
        ));
    }
    // The relay's packets, end to end as the simulator counts them: taken
    // in, released to the far end, or still held when the run ended (with
    // the links' drops, each packet dropped on one link, they add up).
    // Not links.csv's packets_delivered, which counts a packet once per
    // link it crosses.
    let mut pcaps = Vec::new();
    if let Some([a, b]) = relay.pcaps.take() {
        pcaps.push((format!("tun-{}", ends[0]), a.to_vec()));
        pcaps.push((format!("tun-{}", ends[1]), b.to_vec()));
    }
    let (unfairness, jain) = tcplab_core::output::flows_fairness(&flows);
    let result = RunResult {
        flows,
        links,
        nodes,
        series: if sc.cfg.output.sample_interval.is_some() {
            let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
            let readings: Vec<&[series::Reading]> = outs.iter().map(|o| o.series.as_slice()).collect();
            series::table(&names, &readings)
        } else {
            Table::new()
        },
        queues: match relay.queues.take().map(|q| q.rows.finish()) {
            Some(Ok(tcplab_core::output::SinkOutput::Memory(t))) => t,
            _ => Table::new(),
        },
        trace: Table::new(),
        pcaps,
        pcap_files: Vec::new(),
        summary: Summary {
            seed: sc.cfg.sim.seed,
            duration_s: to_secs(ended),
            events: relay.lateness.samples.len() as u64,
            wall_s: wall.elapsed().as_secs_f64(),
            packets_created: relay.packets_in,
            packets_delivered: relay.packets_out,
            packets_in_flight: held,
            unfairness,
            jain,
            ..Default::default()
        },
        streamed: Vec::new(),
    };
    Ok(Emulation { result, report: rep })
}

#[cfg(test)]
mod tests {
    use super::steal_warning;

    #[test]
    fn steal_warns_from_a_tenth_of_the_run_and_three_ticks() {
        assert!(steal_warning(60.0, 1.4).is_none(), "a quiet host: 4 % of the run");
        assert!(steal_warning(20.0, 0.1).is_none(), "two ticks are the counter's rounding");
        assert!(steal_warning(30.0, 0.1).is_some());
        let w = steal_warning(700.0, 3.0).expect("a busy host: 23 % of the run");
        assert!(w.starts_with("the hypervisor took 700 ms of CPU time") && w.contains("3.0 s run"), "{w}");
    }
}
