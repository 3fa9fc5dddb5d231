//! Snoop at a base station on a whole network: wireless losses are repaired
//! locally, the fixed host sees no duplicate ACKs and does not cut its
//! window.

use tcplab_core::{run_toml, RunResult};

fn cell(snoop: bool, loss: f64, variant: &str) -> String {
    format!(
        r#"
[sim]
duration = "60s"
seed = 3
[[node]]
name = "fh"
[[node]]
name = "bs"
snoop = {snoop}
[[node]]
name = "mh"
[[link]]
between = ["fh", "bs"]
rate = "10Mbps"
delay = "20ms"
[[link]]
between = ["bs", "mh"]
rate = "2Mbps"
delay = "2ms"
error = {{ kind = "uniform", rate = {loss}, direction = "forward", packets = "data" }}
[[flow]]
from = "fh"
to = "mh"
transport = "{variant}"
window = 20
app = {{ kind = "bulk" }}
"#
    )
}

fn f(r: &RunResult, c: &str) -> f64 {
    r.flows.get(c, 0).unwrap()
}

#[test]
fn snoop_repairs_wireless_losses_locally() {
    for v in ["tahoe", "reno", "newreno", "vegas"] {
        let with = run_toml(&cell(true, 0.02, v)).unwrap();
        let without = run_toml(&cell(false, 0.02, v)).unwrap();
        assert!(f(&with, "snoop_local_retransmits") > 100.0, "{v}");
        assert!(f(&with, "snoop_suppressed_dupacks") > 100.0, "{v}");
        // The sender never learns of the losses: no fast retransmit, no
        // window cut, (almost) no retransmission of its own.
        assert_eq!(f(&with, "fast_retransmits"), 0.0, "{v}");
        assert!(f(&with, "retransmits") <= 2.0, "{v}: {} sender retransmissions", f(&with, "retransmits"));
        assert!(f(&without, "fast_retransmits") > 50.0, "{v}");
        // Snoop's gain at 2 % loss: 1.5-1.9x for the Reno family, 1.18x
        // for Vegas, whose plain sender (ns-2's rate arithmetic, the ns2
        // profile) keeps more of its window through random losses.
        let gain = if v == "vegas" { 1.1 } else { 1.2 };
        assert!(
            f(&with, "throughput_bps") > gain * f(&without, "throughput_bps"),
            "{v}: snoop {} plain {}",
            f(&with, "throughput_bps"),
            f(&without, "throughput_bps")
        );
    }
}

#[test]
fn snoop_without_losses_changes_nothing() {
    let with = run_toml(&cell(true, 0.0, "newreno")).unwrap();
    let without = run_toml(&cell(false, 0.0, "newreno")).unwrap();
    assert_eq!(with.flows.get("bytes_acked", 0), without.flows.get("bytes_acked", 0));
    assert_eq!(f(&with, "snoop_local_retransmits"), 0.0);
    assert!(f(&with, "snoop_max_cache") > 0.0);
}

/// Regression: a connection whose next expected segment Snoop never cached
/// (the queue had no room) must not spin the local timer at one instant.
/// Heavy loss with every variant, Snoop and ELN together, finishes and moves
/// data.
#[test]
fn heavy_loss_with_snoop_and_eln_terminates() {
    for v in ["tahoe", "reno", "newreno", "vegas"] {
        let text = cell(true, 0.1, v).replace("window = 20", "window = 20\neln = true");
        let r = run_toml(&text).unwrap();
        assert!(f(&r, "bytes_delivered") > 1e6, "{v}");
        assert!(r.summary.events < 2_000_000, "{v}: {} events", r.summary.events);
    }
}
