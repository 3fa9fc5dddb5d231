//! Split connections (I-TCP) on whole networks: the split node acknowledges
//! the source itself, relays every byte in order, holds at most its buffer,
//! throttles the source by its window when the second connection is the
//! slower, and the source's persist timer gets it going again when window
//! updates are lost.

use tcplab_core::output::Column;
use tcplab_core::{run_toml, RunResult};

/// fh --10 Mbit/s, 20 ms-- bs --`radio`, 2 ms, `loss` forward-- mh, one
/// flow split at bs (when `split` is a table's body) or not.
fn cell(split: Option<&str>, radio: &str, loss: f64, app: &str, extra: &str) -> String {
    let split = split.map(|s| format!("split = {{ {s} }}")).unwrap_or_default();
    format!(
        r#"
[sim]
duration = "60s"
seed = 5
[[node]]
name = "fh"
[[node]]
name = "bs"
[[node]]
name = "mh"
[[link]]
between = ["fh", "bs"]
rate = "10Mbps"
delay = "20ms"
{extra}
[[link]]
between = ["bs", "mh"]
rate = "{radio}"
delay = "2ms"
error = {{ kind = "uniform", rate = {loss}, direction = "forward", packets = "data" }}
[[flow]]
name = "f"
from = "fh"
to = "mh"
transport = "newreno"
window = 20
app = {app}
{split}
"#
    )
}

const BULK: &str = r#"{ kind = "bulk" }"#;

fn f(r: &RunResult, c: &str) -> f64 {
    r.flows.get(c, 0).unwrap()
}

/// Trace rows of `flow` of this kind.
fn rows(r: &RunResult, flow: &str, kind: &str) -> usize {
    let t = &r.trace;
    let (Some(Column::Str(names)), Some(Column::Str(kinds))) = (t.column("flow"), t.column("kind")) else {
        panic!("no trace")
    };
    names.iter().zip(kinds).filter(|(n, k)| n.as_str() == flow && k.as_str() == kind).count()
}

fn traced(toml: &str) -> RunResult {
    run_toml(&toml.replace("seed = 5", "seed = 5\n[output]\ntrace = true")).unwrap()
}

#[test]
fn a_transfer_arrives_whole_and_in_order_through_the_split() {
    let app = r#"{ kind = "transfer", bytes = 1000000 }"#;
    let r = run_toml(&cell(Some(r#"node = "bs""#), "2Mbps", 0.02, app, "")).unwrap();
    assert_eq!(f(&r, "bytes_delivered"), 1e6);
    assert_eq!(f(&r, "bytes_acked"), 1e6);
    // The wireless losses are the second connection's to repair: the
    // source never retransmits.
    assert_eq!(f(&r, "retransmits"), 0.0);
    assert!(f(&r, "split_retransmits") > 5.0, "{}", f(&r, "split_retransmits"));
    // Done when the destination has it all: later than the source's last
    // ACK, and bounded by what the radio can carry.
    let done = f(&r, "completion_s");
    assert!(done > 8e6 / 2e6, "{done}");
    assert!(done < 20.0, "{done}");
}

#[test]
fn the_split_hides_wireless_losses_from_the_source() {
    let plain = run_toml(&cell(None, "2Mbps", 0.05, BULK, "")).unwrap();
    let split = run_toml(&cell(Some(r#"node = "bs""#), "2Mbps", 0.05, BULK, "")).unwrap();
    assert!(f(&plain, "retransmits") > 100.0);
    assert_eq!(f(&split, "retransmits"), 0.0);
    assert_eq!(f(&split, "timeouts"), 0.0);
    assert_eq!(f(&plain, "split_retransmits"), 0.0);
    // The second connection's short round trip repairs the losses sooner:
    // more goodput than end to end.
    assert!(
        f(&split, "goodput_bps") > 1.2 * f(&plain, "goodput_bps"),
        "split {} plain {}",
        f(&split, "goodput_bps"),
        f(&plain, "goodput_bps")
    );
}

#[test]
fn the_buffer_bounds_what_the_node_holds_and_throttles_the_source() {
    // A 200 kbit/s radio behind a 10 Mbit/s wired path: the source could
    // go 50 times faster; the relay's window holds it to the radio's rate.
    let r = traced(&cell(Some(r#"node = "bs", buffer = 4"#), "200kbps", 0.0, BULK, ""));
    assert!(f(&r, "split_max_held_bytes") <= 4000.0, "{}", f(&r, "split_max_held_bytes"));
    assert_eq!(f(&r, "split_max_held_bytes"), 4000.0);
    let (acked, delivered) = (f(&r, "bytes_acked"), f(&r, "bytes_delivered"));
    assert!(acked >= delivered && acked - delivered <= 4000.0, "acked {acked} delivered {delivered}");
    // Near the radio's rate (1000-byte payloads in 1040-byte packets).
    let good = f(&r, "goodput_bps");
    assert!(good > 0.9 * 200e3 * 1000.0 / 1040.0, "{good}");
    assert!(rows(&r, "f", "window_update") > 100);
    assert!(rows(&r, "f/relay", "send") > 1000);
    // Nothing is lost, so the source needs no probe.
    assert_eq!(rows(&r, "f", "window_probe"), 0);
}

#[test]
fn lost_window_updates_are_recovered_by_window_probes() {
    // The reverse direction of the wired link drops a third of the split
    // node's ACKs, window updates among them: without the persist timer
    // the source would wait for ever once its window closed.
    let lossy_acks = r#"reverse = { error = { kind = "uniform", rate = 0.3 } }"#;
    let app = r#"{ kind = "transfer", bytes = 300000 }"#;
    let r = traced(&cell(Some(r#"node = "bs", buffer = 2"#), "200kbps", 0.0, app, lossy_acks));
    assert_eq!(f(&r, "bytes_delivered"), 3e5);
    assert!(rows(&r, "f", "window_probe") > 0);
    assert!(f(&r, "split_max_held_bytes") <= 2000.0);
}

#[test]
fn same_seed_same_results() {
    // (That flows without `split` run as before is the golden outputs'
    // test: they were recorded before split connections existed.)
    let s1 = run_toml(&cell(Some(r#"node = "bs""#), "2Mbps", 0.02, BULK, "")).unwrap();
    let s2 = run_toml(&cell(Some(r#"node = "bs""#), "2Mbps", 0.02, BULK, "")).unwrap();
    assert_eq!(s1.flows, s2.flows, "same seed, same results");
}

#[test]
fn an_initial_window_larger_than_the_buffer_is_held_to_it() {
    // Linux's initial window of ten segments against a 3-segment buffer:
    // the source knows the split node's first window from the start (as
    // from its SYN-ACK), so even its first flight stays within it.
    let toml = cell(Some(r#"node = "bs", buffer = 3"#), "200kbps", 0.0, BULK, "")
        .replace("seed = 5", "seed = 5\ntcp_profile = \"linux\"");
    let r = run_toml(&toml).unwrap();
    let mss = 1448.0;
    assert_eq!(f(&r, "split_max_held_bytes"), 3.0 * mss);
}
