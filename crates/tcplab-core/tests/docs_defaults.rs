//! docs/scenarios.md's `[tcp]` table states each TCP option's default in
//! the ns2 and linux profiles (the rfc profile: the ns2 column above `syn`,
//! the other column from `syn` down, `syn` itself on). Each documented
//! default is given back to the parser as an explicit `[tcp]` value: the
//! resolved TCP configuration must be the one the profile gives without it.
//! A default changed in `TcpConfig::profile` or `Ns2Rules` without the
//! page, or the page without the code, fails here.

use tcplab_core::scenario::build::tcp_config;
use tcplab_core::transport::tcp::TcpConfig;
use tcplab_core::Scenario;

const DOC: &str = include_str!("../../../docs/scenarios.md");

/// Rows whose defaults are not values a key takes ("the advertised window",
/// "unbounded", "—", "this host's"); every other row must convert. (The
/// receive buffer's keys have no ns2 value: they belong to Linux's
/// window; `linux_rwnd.rs`'s constants hold the linux column.)
const NOT_VALUES: [&str; 7] =
    ["initial_ssthresh", "window_bytes", "clock_phase", "jiffies_start", "rcvbuf", "rcvbuf_max", "rcv_truesize"];

/// Keys whose rfc-profile default is neither column's (the row's meaning
/// names it).
const RFC_OWN: [(&str, &str); 16] = [
    ("idle_restart", "\"rfc5681\""),
    ("cwnd_increase", "\"per-ack\""),
    ("push_ack", "false"),
    ("prr", "false"),
    ("rack", "false"),
    ("tlp", "false"),
    ("tso_defer", "false"),
    ("undo", "false"),
    ("dsack", "false"),
    ("frto", "false"),
    ("loss_window", "\"flight\""),
    ("quick_acks", "0"),
    ("comp_sack_nr", "0"),
    ("cwnd_limited", "false"),
    ("rtt_estimator", "\"rfc6298\""),
    ("rtt_timing", "\"karn\""),
];

fn scenario(profile: &str, tcp: &str) -> TcpConfig {
    let text = format!(
        "[sim]\nduration = \"5s\"\ntcp_profile = \"{profile}\"\n\n[tcp]\n{tcp}\n\n\
         [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\n\
         [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\n\
         [[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"reno\"\napp = {{ kind = \"bulk\" }}\n"
    );
    let sc = Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{profile}, [tcp] {tcp}: {e}"));
    tcp_config(&sc.cfg, &sc.cfg.flow[0])
}

/// A table cell as a TOML value: `2`, `false`, `[2, 5, 9]`, `"ns2"`, `200ms`
/// (a duration, quoted), `0 (never)` (the value before the note).
fn value(cell: &str) -> Option<String> {
    let v = cell.split(" (").next().unwrap_or("").trim();
    let is_dur = |s: &str| {
        let n = s.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let unit = &s[n.len()..];
        !n.is_empty() && n.parse::<f64>().is_ok() && ["ns", "us", "ms", "s"].contains(&unit)
    };
    if v.parse::<i64>().is_ok() || v == "true" || v == "false" || v.starts_with('[') || v.starts_with('"') {
        Some(v.to_string())
    } else if is_dur(v) {
        Some(format!("\"{v}\""))
    } else {
        None
    }
}

/// The rows of the `[tcp]` table: key, ns2 column, linux column.
fn rows() -> Vec<(String, String, String)> {
    let start = DOC.find("## `[tcp]`").expect("docs/scenarios.md has a [tcp] section");
    let section = &DOC[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut out = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert!(cells.len() >= 4, "a [tcp] row with key, ns2, linux, meaning: {line}");
        out.push((cells[0].trim_matches('`').to_string(), cells[1].to_string(), cells[2].to_string()));
    }
    assert!(out.len() > 30, "the [tcp] table's rows: found {}", out.len());
    out
}

#[test]
fn the_documented_tcp_defaults_are_the_profiles() {
    let rows = rows();
    let syn = rows.iter().position(|r| r.0 == "syn").expect("a `syn` row");
    let mut checked = 0;
    for (i, (key, ns2, linux)) in rows.iter().enumerate() {
        // The rfc profile: ns-2.35's values above `syn`, the RFCs' rules
        // (the other column) from `syn` down, with the SYN on.
        let rfc = if let Some(&(_, v)) = RFC_OWN.iter().find(|(k, _)| k == key) {
            v.to_string()
        } else if i < syn {
            ns2.clone()
        } else if key == "syn" {
            "true".into()
        } else {
            linux.clone()
        };
        for (profile, cell) in [("ns2", ns2), ("linux", linux), ("rfc", &rfc)] {
            let Some(v) = value(cell) else {
                assert!(NOT_VALUES.contains(&key.as_str()), "[tcp] {key}: the {profile} default {cell:?} is no value");
                continue;
            };
            let with = scenario(profile, &format!("{key} = {v}"));
            assert_eq!(
                with,
                scenario(profile, ""),
                "docs/scenarios.md: [tcp] {key} = {v} is documented as the {profile} profile's default, but setting it changes the resolved TCP configuration"
            );
            checked += 1;
        }
    }
    assert!(checked >= 3 * 30, "only {checked} documented defaults checked");
}
