//! `tcplab-emu SCENARIO [--out DIR]`: run a scenario's flows with the
//! kernel's TCP through the emulated path. The Python CLI (`tcplab emulate`)
//! runs the same code through the tcplab._core module; this binary is for
//! use without Python. Bad input: one line, exit status 2.

use clap::Parser;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use tcplab_core::Scenario;
use tcplab_emu::{emulate, linux::Knobs, EmuError, Options};

#[derive(Parser)]
#[command(name = "tcplab-emu", about = "The kernel's TCP through tcplab's link models, in real time (needs root)")]
struct Args {
    /// Scenario file (TOML, or JSON if it ends in .json).
    scenario: PathBuf,
    /// Output directory (default results/<scenario name>-emu).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Congestion control of every flow (e.g. reno, cubic, bbr).
    #[arg(long)]
    cc: Option<String>,
    /// SO_RCVBUF of the receivers (bytes; set with SO_RCVBUFFORCE, not capped at net.core.rmem_max).
    #[arg(long, value_parser = sockbuf())]
    rcvbuf: Option<u32>,
    /// SO_SNDBUF of the senders (bytes; set with SO_SNDBUFFORCE, not capped at net.core.wmem_max).
    #[arg(long, value_parser = sockbuf())]
    sndbuf: Option<u32>,
    /// Do not write pcaps of the two TUN devices.
    #[arg(long)]
    no_pcap: bool,
    /// Busy-poll for the last N microseconds before each event.
    #[arg(long, default_value_t = 0)]
    spin_us: u64,
    /// Release lateness above which a packet counts as late (microseconds).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    late_threshold_us: u64,
    /// Do not ask for SCHED_FIFO for the relay thread.
    #[arg(long)]
    no_realtime: bool,
    #[arg(long, short)]
    quiet: bool,
}

/// A socket buffer size: 1..=i32::MAX bytes, as `tcplab emulate` takes
/// (the option is a C int: a larger u32 went to the kernel negative, and 0
/// gave the kernel's minimum buffer, a transfer at 45 kbit/s on 10 Mbit/s).
fn sockbuf() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=i32::MAX as i64)
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Release);
}

fn fail(msg: impl std::fmt::Display, code: u8) -> ExitCode {
    eprintln!("tcplab-emu: error: {msg}");
    ExitCode::from(code)
}

fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp-emu");
    std::fs::write(&tmp, data)?;
    std::fs::rename(&tmp, path)
}

fn main() -> ExitCode {
    let a = match Args::try_parse() {
        Ok(a) => a,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            return fail(e.to_string().lines().next().unwrap_or("bad arguments").trim_start_matches("error: "), 2)
        }
    };
    let text = match std::fs::read_to_string(&a.scenario) {
        Ok(t) => t,
        Err(e) => return fail(format!("{}: {e}", a.scenario.display()), 2),
    };
    let parsed = if a.scenario.extension().is_some_and(|x| x == "json") {
        Scenario::from_json_str(&text)
    } else {
        Scenario::from_toml_str(&text)
    };
    let sc = match parsed {
        Ok(s) => s,
        Err(e) => return fail(e, 2),
    };
    let opts = Options {
        knobs: Knobs { cc: a.cc, rcvbuf: a.rcvbuf, sndbuf: a.sndbuf },
        capture: !a.no_pcap,
        spin_us: a.spin_us,
        late_threshold_us: a.late_threshold_us,
        realtime: !a.no_realtime,
    };
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let em = match emulate(&sc, &opts, &|| INTERRUPTED.load(Ordering::Acquire)) {
        Ok(e) => e,
        Err(EmuError::Scenario(e)) => return fail(e, 2),
        Err(EmuError::Interrupted) => return fail("interrupted; nothing written", 130),
        Err(e) => return fail(e, 1),
    };
    let stem = a.scenario.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let out = a.out.unwrap_or_else(|| PathBuf::from("results").join(format!("{stem}-emu")));
    let r = &em.result;
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("flows.csv".into(), r.flows.to_csv().into_bytes()),
        ("links.csv".into(), r.links.to_csv().into_bytes()),
        ("emulation.json".into(), em.report.to_json().into_bytes()),
    ];
    // The sampled tables, when the scenario samples.
    for (n, t) in [("series.csv", &r.series), ("queues.csv", &r.queues)] {
        if !t.names.is_empty() {
            files.push((n.into(), t.to_csv().into_bytes()));
        }
    }
    for (n, b) in &r.pcaps {
        files.push((format!("{n}.pcap"), b.clone()));
    }
    if let Err(e) = std::fs::create_dir_all(&out) {
        return fail(format!("--out {}: {e}", out.display()), 1);
    }
    for (n, b) in files {
        if let Err(e) = write_atomic(&out.join(&n), &b) {
            return fail(format!("--out {}: cannot write {n}: {e}", out.display()), 1);
        }
    }
    let rep = &em.report;
    if !a.quiet {
        print!("{}", r.flows.to_csv());
        println!(
            "{:.1} s emulated; release lateness p50 {:.0} us, p99 {:.0} us, max {:.0} us ({} of {} packets later than {} us){}; results in {}/",
            rep.duration_s,
            rep.late_p50_us,
            rep.late_p99_us,
            rep.late_max_us,
            rep.late_count,
            rep.packets_released,
            rep.late_threshold_us,
            rep.steal_ms.map(|s| format!(", hypervisor steal {s:.0} ms")).unwrap_or_default(),
            out.display()
        );
    }
    for w in &rep.warnings {
        eprintln!("tcplab-emu: warning: {w}");
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_buffers_and_threshold_are_checked() {
        let parse = |extra: &[&str]| Args::try_parse_from([&["tcplab-emu", "x.toml"], extra].concat());
        for bad in [
            &["--rcvbuf", "0"][..],
            &["--sndbuf", "0"],
            &["--rcvbuf", "2147483648"],
            &["--sndbuf", "3000000000"],
            &["--late-threshold-us", "0"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
        let a = parse(&["--rcvbuf", "1", "--sndbuf", "2147483647"]).unwrap();
        assert_eq!((a.rcvbuf, a.sndbuf), (Some(1), Some(2147483647)));
    }
}
