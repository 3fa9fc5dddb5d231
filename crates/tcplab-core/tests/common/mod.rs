//! Scenario text shared by the integration tests.

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
