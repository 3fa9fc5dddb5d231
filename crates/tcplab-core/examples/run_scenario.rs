//! Run a TOML scenario with the Rust core alone and print a JSON summary:
//! the benchmark uses it to measure the simulator without Python around it.
//!
//!     cargo run --release --example run_scenario -- scenarios/dumbbell.toml [repeats]
//!
//! `best_wall_s` is the core's own timing of the event loop (the run's
//! `wall_s`), `best_cpu_s` the CPU time of the whole run (`Sim::run`, the
//! world built before), each the least over the repeats.

#[path = "common/cpu.rs"]
mod cpu;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| {
        eprintln!("usage: run_scenario FILE.toml [repeats]");
        std::process::exit(2)
    });
    let repeats: usize = args.next().map(|s| s.parse().expect("repeats: a number")).unwrap_or(1);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let sc = tcplab_core::Scenario::from_toml_str(&text).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let sim = sc.build();
        let c0 = cpu::cpu_seconds();
        let r = sim.run();
        best_cpu = best_cpu.min(cpu::cpu_seconds() - c0);
        best = best.min(r.summary.wall_s);
        last = Some(r);
    }
    let r = last.unwrap();
    let thr: Vec<String> =
        (0..r.flows.rows()).map(|i| format!("{}", r.flows.get("throughput_bps", i).unwrap())).collect();
    // 802.11 frames put on the air (all kinds), for the cost per transmission.
    let frames: f64 = ["data_frames", "rts_frames", "cts_frames", "ack_frames", "broadcast_frames"]
        .iter()
        .flat_map(|c| (0..r.nodes.rows()).map(move |i| (c, i)))
        .map(|(c, i)| r.nodes.get(c, i).unwrap_or(0.0))
        .sum();
    println!(
        "{{\"events\": {}, \"best_wall_s\": {}, \"best_cpu_s\": {}, \"events_per_s\": {}, \"mac_frames\": {}, \"throughput_bps\": [{}]}}",
        r.summary.events,
        best,
        best_cpu,
        r.summary.events as f64 / best,
        frames,
        thr.join(", ")
    );
}
