//! Scenario text and checks shared by the integration tests (each test
//! crate uses part of them).
#![allow(dead_code)]

use tcplab_core::engine::time::Time;
use tcplab_core::output::{Column, Table};
use tcplab_core::{RunResult, Scenario};

/// The three-node path most tests use: a --access-- r --bottleneck-- b, one
/// flow from a to b. `access` and `bottleneck` are the lines of the two link
/// tables after `between`, `flow` the lines of the flow table after
/// `from`/`to`, and `tail` is appended (e.g. an `[output]` table).
pub fn path(duration: &str, access: &str, bottleneck: &str, flow: &str, tail: &str) -> String {
    format!(
        r#"
[sim]
duration = "{duration}"
seed = 1
[[node]]
name = "a"
[[node]]
name = "r"
[[node]]
name = "b"
[[link]]
between = ["a", "r"]
{access}
[[link]]
between = ["r", "b"]
{bottleneck}
[[flow]]
from = "a"
to = "b"
{flow}
{tail}
"#
    )
}

/// Run `text` (a scenario that lasts `end` and has more than 1024 events
/// pending by half time, so that the run loop prefetches and takes up the
/// event queue's next bucket early: `EventQueue::ready_next`) as a plain
/// run, and stepped by `run_until`, which does neither; both results, for
/// the caller to compare. Panics unless the stepped run prefetches at half
/// time.
pub fn run_and_stepped_run(text: &str, end: Time) -> (RunResult, RunResult) {
    let sc = Scenario::from_toml_str(text).unwrap();
    let mut stepped = sc.build();
    stepped.run_until(end / 2);
    assert!(stepped.q.prefetching(), "{} pending: the run must prefetch", stepped.q.len());
    stepped.run_until(end);
    (sc.build().run(), stepped.run())
}

/// One node's value of a nodes-table column (802.11 and routing counters).
pub fn node_stat(r: &RunResult, node: &str, stat: &str) -> f64 {
    let Some(Column::Str(names)) = r.nodes.column("node") else { panic!("nodes table without names") };
    let i = names.iter().position(|n| n == node).unwrap_or_else(|| panic!("no node {node}"));
    r.nodes.get(stat, i).unwrap_or_else(|| panic!("no column {stat}"))
}

/// The sum of a numeric column over a table's rows.
pub fn col_sum(t: &Table, name: &str) -> f64 {
    (0..t.rows()).map(|i| t.get(name, i).unwrap_or_else(|| panic!("column {name}"))).sum()
}
