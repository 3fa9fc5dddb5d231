//! Golden outputs: every example scenario and every run of both studies'
//! quick modes, recorded by `scripts/make_golden.py`, must come out byte for
//! byte the same (flows and links tables in full, and the nodes table of
//! 802.11 scenarios; trace, series, queues and captures by SHA-256). A
//! refactoring that changes a byte here changes results; an intended change
//! re-records the files in its own commit.

use sha2::{Digest, Sha256};
use std::path::Path;
use tcplab_core::Scenario;

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_golden_case_is_reproduced_exactly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cases");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden cases")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".json") && !p.to_string_lossy().ends_with(".expect.json"))
        .collect();
    cases.sort();
    assert!(cases.len() > 200, "golden cases missing: {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case).unwrap();
        let expect_path = case.with_extension("expect.json");
        let expect: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&expect_path).unwrap()).unwrap();
        let r = Scenario::from_json_str(&text).unwrap().build().run();
        let name = case.file_stem().unwrap().to_string_lossy().to_string();
        let mut check = |what: &str, got: String| {
            if expect[what].as_str() != Some(got.as_str()) {
                failures.push(format!("{name}: {what}"));
            }
        };
        check("flows", r.flows.to_csv());
        check("links", r.links.to_csv());
        if expect.get("nodes").is_some() {
            check("nodes", r.nodes.to_csv());
        }
        check("trace_sha256", hex(r.trace.to_csv().as_bytes()));
        check("series_sha256", hex(r.series.to_csv().as_bytes()));
        check("queues_sha256", hex(r.queues.to_csv().as_bytes()));
        let pcaps = &expect["pcaps_sha256"];
        let want = pcaps.as_object().map_or(0, |m| m.len());
        if want != r.pcaps.len() {
            failures.push(format!("{name}: {} captures, expected {want}", r.pcaps.len()));
        }
        for (cap, bytes) in &r.pcaps {
            if pcaps[cap].as_str() != Some(hex(bytes).as_str()) {
                failures.push(format!("{name}: pcap {cap}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden checks differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The point-to-point device and static routing have fast paths in the
/// world; the same objects driven through the `NetDevice` and `Routing`
/// traits (as any other device or protocol is) give the same bytes.
#[test]
fn trait_paths_equal_fast_paths() {
    use tcplab_core::net::routing::Router;
    use tcplab_core::net::Device;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/cases");
    let mut checked = 0;
    for name in ["scenario-basestation", "scenario-eln_wireless", "scenario-red_ecn", "scenario-gsm9600"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let sc = Scenario::from_json_str(&text).unwrap();
        let fast = sc.build().run();
        let mut w = sc.build();
        w.devices = w
            .devices
            .into_iter()
            .map(|d| match d {
                Device::P2p(p) => Device::Other(Box::new(p)),
                other => other,
            })
            .collect();
        for n in w.nodes.iter_mut() {
            let r = std::mem::replace(
                &mut n.routing,
                Router::Other(Box::new(tcplab_core::net::routing::StaticRouting::new(vec![]))),
            );
            n.routing = match r {
                Router::Static(s) => Router::Other(Box::new(s)),
                other => other,
            };
        }
        let slow = w.run();
        assert_eq!(fast.flows.to_csv(), slow.flows.to_csv(), "{name}: flows");
        assert_eq!(fast.links.to_csv(), slow.links.to_csv(), "{name}: links");
        assert_eq!(fast.trace.to_csv(), slow.trace.to_csv(), "{name}: trace");
        assert_eq!(fast.pcaps, slow.pcaps, "{name}: captures");
        checked += 1;
    }
    assert_eq!(checked, 4);
}
