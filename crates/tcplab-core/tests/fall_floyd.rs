//! The drop scenarios of Fall & Floyd, "Simulation-based comparisons of
//! Tahoe, Reno and SACK TCP" (CCR 1996): one, two, three and four packets
//! dropped from one window of a single connection. The recovery each variant
//! shows is asserted from the simulation's own time-sequence trace.
//!
//! Topology as in the paper: sender -- 8 Mbit/s, 0.1 ms -- router --
//! 0.8 Mbit/s, 100 ms -- receiver; 1000-byte segments, receiver window 20
//! segments (large enough not to interfere), a router buffer that never
//! overflows, so the only losses are the listed ones.

use tcplab_core::{run_toml, RunResult};

const FIRST_DROP: u64 = 14; // a data packet of the fourth round trip

fn scenario(variant: &str, drops: u64) -> String {
    // "newreno-sbs": NewReno restarting its timer on every partial ACK, as
    // the NewReno of the paper; plain "newreno" is ns-2.35's Impatient one.
    let (variant, timer) = match variant {
        "newreno-sbs" => ("newreno", "slow-but-steady"),
        v => (v, "impatient"),
    };
    let list: Vec<String> = (0..drops).map(|i| (FIRST_DROP + i).to_string()).collect();
    format!(
        r#"
[sim]
duration = "8s"
[[node]]
name = "s"
[[node]]
name = "r"
[[node]]
name = "k"
[[link]]
between = ["s", "r"]
rate = "8Mbps"
delay = "0.1ms"
queue = {{ kind = "unlimited" }}
[[link]]
between = ["r", "k"]
rate = "0.8Mbps"
delay = "100ms"
queue = {{ kind = "unlimited" }}
error = {{ kind = "pattern", drop = [{}], packets = "data" }}
[[flow]]
from = "s"
to = "k"
transport = "{variant}"
packet_size = 1000
window = 20
app = {{ kind = "bulk" }}
tcp = {{ initial_window = 1, limited_transmit = false, newreno_timer = "{timer}" }}
[output]
trace = true
"#,
        list.join(", ")
    )
}

struct Recovery {
    /// (time, segment number) of every retransmission.
    rtx: Vec<(f64, u64)>,
    timeouts: f64,
    fast_retransmits: f64,
    delivered: f64,
}

fn recovery(variant: &str, drops: u64) -> Recovery {
    let r: RunResult = run_toml(&scenario(variant, drops)).unwrap();
    let t = &r.trace;
    let mut rtx = vec![];
    for i in 0..t.rows() {
        if let tcplab_core::output::Column::Str(k) = t.column("kind").unwrap() {
            if k[i] == "retransmit" {
                rtx.push((t.get("time_s", i).unwrap(), t.get("seq", i).unwrap() as u64 / 1000));
            }
        }
    }
    Recovery {
        rtx,
        timeouts: r.flows.get("timeouts", 0).unwrap(),
        fast_retransmits: r.flows.get("fast_retransmits", 0).unwrap(),
        delivered: r.flows.get("bytes_delivered", 0).unwrap(),
    }
}

/// Round-trip time of the path when the queue is short: 2 x 100.1 ms plus
/// serialisation.
const RTT: f64 = 0.21;

#[test]
fn one_drop_every_variant_fast_retransmits_once_without_timeout() {
    for v in ["tahoe", "reno", "newreno", "sack"] {
        let r = recovery(v, 1);
        assert_eq!(r.timeouts, 0.0, "{v}");
        assert_eq!(r.fast_retransmits, 1.0, "{v}");
        assert_eq!(r.rtx[0].1, FIRST_DROP - 1, "{v}: the dropped segment is resent first");
    }
}

#[test]
fn tahoe_recovers_by_slow_start_without_timeouts() {
    for n in 1..=4 {
        let r = recovery("tahoe", n);
        assert_eq!(r.timeouts, 0.0, "{n} drops");
        assert_eq!(r.fast_retransmits, 1.0, "{n} drops: one fast retransmit, then go-back-N");
        // Go-back-N resends the dropped segments and some that had arrived.
        assert!(r.rtx.len() as u64 >= n, "{n} drops");
    }
}

#[test]
fn reno_two_drops_halves_twice_three_drops_time_out() {
    let two = recovery("reno", 2);
    assert!(
        two.fast_retransmits == 2.0 || two.timeouts >= 1.0,
        "Reno with two drops leaves recovery after the first: {} fast retransmits, {} timeouts",
        two.fast_retransmits,
        two.timeouts
    );
    for n in [3, 4] {
        let r = recovery("reno", n);
        assert!(r.timeouts >= 1.0, "Reno with {n} drops must wait for the timer");
    }
}

#[test]
fn newreno_recovers_one_hole_per_round_trip_without_timeout() {
    for n in 2..=4 {
        let r = recovery("newreno-sbs", n);
        assert_eq!(r.timeouts, 0.0, "{n} drops");
        assert_eq!(r.fast_retransmits, 1.0, "{n} drops");
        let segs: Vec<u64> = r.rtx.iter().map(|x| x.1).collect();
        let expect: Vec<u64> = (0..n).map(|i| FIRST_DROP - 1 + i).collect();
        assert_eq!(segs, expect, "each hole resent once, in order");
        for w in r.rtx.windows(2) {
            let gap = w[1].0 - w[0].0;
            assert!(gap > 0.9 * RTT && gap < 1.6 * RTT, "{n} drops: partial ACKs one RTT apart, got {gap}");
        }
    }
}

#[test]
fn sack_recovers_all_holes_within_about_one_round_trip() {
    for n in 2..=4 {
        let r = recovery("sack", n);
        assert_eq!(r.timeouts, 0.0, "{n} drops");
        assert_eq!(r.fast_retransmits, 1.0, "{n} drops");
        let segs: Vec<u64> = r.rtx.iter().map(|x| x.1).collect();
        let expect: Vec<u64> = (0..n).map(|i| FIRST_DROP - 1 + i).collect();
        assert_eq!(segs, expect, "exactly the dropped segments are resent");
        let span = r.rtx.last().unwrap().0 - r.rtx[0].0;
        assert!(span < RTT, "{n} drops: all holes resent within one RTT, took {span}");
    }
}

/// ns-2.35's NewReno restarts the timer on the first partial ACK only
/// (RFC 6582's "Impatient" variant): three holes take three round trips and
/// the timer, armed once, expires first. ns-2.35 on the same scenario:
/// no timeout with one or two drops, one timeout with three or four.
#[test]
fn impatient_newreno_times_out_at_three_drops_like_ns2() {
    assert_eq!(recovery("newreno", 2).timeouts, 0.0);
    assert_eq!(recovery("newreno", 3).timeouts, 1.0);
    assert_eq!(recovery("newreno", 4).timeouts, 1.0);
}

/// With several drops, SACK keeps the most data flowing and Reno the least.
#[test]
fn sack_beats_newreno_beats_reno_with_several_drops() {
    for n in [3, 4] {
        let d: Vec<f64> = ["reno", "newreno-sbs", "sack"].iter().map(|v| recovery(v, n).delivered).collect();
        assert!(d[0] < d[1] && d[1] < d[2], "{n} drops: reno {} newreno {} sack {}", d[0], d[1], d[2]);
    }
}
