//! Issue 10 on the Rust side: inputs that once passed validation and then
//! panicked or looped are refused with the key; streamed tables equal the
//! in-memory ones.

mod common;

use tcplab_core::output::RunOptions;
use tcplab_core::Scenario;

const LINK: &str = "rate = \"10Mbps\"\ndelay = \"5ms\"";

fn err_key(flow: &str, tail: &str) -> String {
    let text = common::path("2s", LINK, LINK, flow, tail);
    Scenario::from_toml_str(&text).expect_err("must be refused").key
}

#[test]
fn min_rto_against_max_rto_after_merging() {
    let tcp = "transport = \"reno\"\napp = { kind = \"bulk\" }\ntcp = { max_rto = \"100ms\" }";
    assert_eq!(err_key(tcp, ""), "flow[0].tcp.max_rto");
    let bulk = "transport = \"reno\"\napp = { kind = \"bulk\" }";
    assert_eq!(err_key(bulk, "[tcp]\nmin_rto = \"100s\""), "tcp.min_rto");
}

#[test]
fn cbr_faster_than_one_datagram_per_ns_is_refused() {
    let flow = "transport = \"udp\"\napp = { kind = \"cbr\", rate = 1e30 }";
    assert_eq!(err_key(flow, ""), "flow[0].app.rate");
}

#[test]
fn windows_beyond_tcps_largest_are_refused() {
    // RFC 7323's 2^30 bytes: SACK blocks are read back relative to the
    // cumulative ACK from 32-bit edges, exact below 2^31.
    let bulk = "transport = \"sack\"\napp = { kind = \"bulk\" }";
    assert_eq!(err_key(&format!("{bulk}\ntcp = {{ window_bytes = 1073741825 }}"), ""), "flow[0].tcp.window_bytes");
    assert_eq!(err_key(&format!("{bulk}\nwindow = 2000000\npacket_size = 1000"), ""), "flow[0].window");
    let ok = format!("{bulk}\nwindow = 1000000\npacket_size = 1000");
    assert!(Scenario::from_toml_str(&common::path("2s", LINK, LINK, &ok, "")).is_ok());
}

#[test]
fn control_characters_in_names_are_refused() {
    let flow = "name = \"a\\rb\"\ntransport = \"reno\"\napp = { kind = \"bulk\" }";
    assert_eq!(err_key(flow, ""), "flow[0].name");
}

/// A position that is not two numbers, and an 802.11 rate given as a bare
/// number (bit/s): the message says what was expected and shows the value
/// in the unit it was meant in.
#[test]
fn wireless_positions_and_rates_say_what_was_expected() {
    let scenario = |position: &str, rate: &str| {
        format!(
            "[sim]\nduration = \"1s\"\n[wireless]\ndata_rate = {rate}\n\
             [[node]]\nname = \"a\"\nposition = [0.0, 0.0]\n\
             [[node]]\nname = \"b\"\nposition = {position}\n\
             [[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"udp\"\napp = {{ kind = \"cbr\", rate = \"10kbps\" }}\n"
        )
    };
    let refused = |text: String| Scenario::from_toml_str(&text).expect_err("must be refused").to_string();
    assert!(Scenario::from_toml_str(&scenario("[100.0, 0.0]", "\"2Mbps\"")).is_ok());
    for (position, got) in [("[100.0, 0.0, 3.0]", "got 3 numbers"), ("[100.0]", "got 1 number")] {
        let e = refused(scenario(position, "\"2Mbps\""));
        assert!(e.starts_with("node[1].position: must be [x, y] in metres") && e.ends_with(got), "{e}");
    }
    let e = refused(scenario("[100.0, 0.0]", "\"2\""));
    assert!(e.starts_with("wireless.data_rate: unknown 802.11 rate 2 bit/s;"), "{e}");
}

/// A link's rate below 1 bit/s was rounded up to 1 bit/s without a word.
#[test]
fn link_rates_below_one_bit_per_second_are_refused() {
    let bulk = "transport = \"reno\"\napp = { kind = \"bulk\" }";
    let refused = |bottleneck: &str| {
        let text = common::path("2s", LINK, bottleneck, bulk, "");
        Scenario::from_toml_str(&text).expect_err("must be refused").to_string()
    };
    for rate in ["\"0.4bps\"", "0.4", "0.999"] {
        let e = refused(&format!("rate = {rate}\ndelay = \"5ms\""));
        assert!(e.starts_with("link[1].rate: must be at least 1 bit/s") && e.contains("got 0."), "{e}");
    }
    let e = refused("rate = \"1Mbps\"\ndelay = \"5ms\"\nreverse = { rate = 0.5 }");
    assert!(e.starts_with("link[1].reverse.rate: must be at least 1 bit/s"), "{e}");
    let ok = common::path("2s", LINK, "rate = 1\ndelay = \"5ms\"", bulk, "");
    assert!(Scenario::from_toml_str(&ok).is_ok());
}

/// The radio's node keys in a network without `[wireless]`: a bad value is
/// refused by its value, any other by what it would need, never ignored.
#[test]
fn radio_node_keys_in_a_wired_network_are_refused() {
    let bulk = "transport = \"reno\"\napp = { kind = \"bulk\" }";
    let refused = |node: &str| {
        let text =
            common::path("2s", LINK, LINK, bulk, "").replacen("name = \"r\"\n", &format!("name = \"r\"\n{node}\n"), 1);
        Scenario::from_toml_str(&text).expect_err("must be refused").to_string()
    };
    let e = refused("frame_error_rate = 5.0");
    assert_eq!(e, "node[1].frame_error_rate: must be a probability in [0, 1], got 5");
    let e = refused("frame_error_rate = 0.1");
    assert!(
        e.starts_with("node[1].frame_error_rate: only a station on a radio channel") && e.contains("[wireless]"),
        "{e}"
    );
    for name in ["nonexistent", "a"] {
        let e = refused(&format!("base_station = \"{name}\""));
        assert!(e.starts_with("node[1].base_station: cells are on a radio channel") && e.contains("[wireless]"), "{e}");
    }
    assert!(Scenario::from_toml_str(&common::path("2s", LINK, LINK, bulk, "")).is_ok());
}

/// A run that streams its trace and series to files writes exactly the CSV
/// text the in-memory run produces.
#[test]
fn streamed_tables_equal_in_memory_ones() {
    let flow = "transport = \"newreno\"\napp = { kind = \"bulk\" }";
    let text = common::path("5s", LINK, LINK, flow, "[output]\ntrace = true\nsample_interval = \"10ms\"");
    let sc = Scenario::from_toml_str(&text).unwrap();
    let mem = sc.build().run();
    let dir = std::env::temp_dir().join(format!("tcplab-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let opts = RunOptions { stream_dir: Some(dir.clone()), ..Default::default() };
    let streamed = sc.build_with(&opts).unwrap().run_with(|_| false).unwrap();
    assert_eq!(streamed.streamed.len(), 3);
    for (name, t) in &streamed.streamed {
        let want = match name.as_str() {
            "trace" => mem.trace.to_csv(),
            "series" => mem.series.to_csv(),
            "queues" => mem.queues.to_csv(),
            _ => unreachable!(),
        };
        assert!(t.rows > 0);
        assert_eq!(std::fs::read_to_string(&t.path).unwrap(), want, "{name}");
    }
    assert_eq!(streamed.flows, mem.flows);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interruption_stops_the_run() {
    let flow = "transport = \"newreno\"\napp = { kind = \"bulk\" }";
    let text = common::path("100000s", LINK, LINK, flow, "");
    let sc = Scenario::from_toml_str(&text).unwrap();
    let mut asked = 0;
    let mut told = Vec::new();
    let r = sc.build().run_with(|now| {
        asked += 1;
        told.push(now);
        asked == 3
    });
    assert!(told.windows(2).all(|w| w[0] < w[1]) && told[0] > 0, "told the simulated time reached: {told:?}");
    assert!(matches!(r, Err(tcplab_core::output::RunError::Interrupted)));
    assert_eq!(asked, 3);
}

/// A flow whose ends do not reach each other is refused with its key: wired
/// nodes on separate links, and 802.11 stations out of range (then the
/// message names the nearest gap between what the source reaches and the
/// rest, from whichever end cannot reach the other).
#[test]
fn flows_between_unconnected_nodes_are_refused() {
    let wired = "[sim]\nduration = \"1s\"\n\
                 [[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n[[node]]\nname = \"c\"\n[[node]]\nname = \"d\"\n\
                 [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                 [[link]]\nbetween = [\"c\", \"d\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
                 [[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"reno\"\napp = { kind = \"bulk\" }\n\
                 [[flow]]\nfrom = \"b\"\nto = \"c\"\ntransport = \"reno\"\napp = { kind = \"bulk\" }\n";
    let e = Scenario::from_toml_str(wired).expect_err("must be refused");
    assert_eq!(e.key, "flow[1].to");
    assert!(e.to_string().contains("no route between \"b\" and \"c\""), "{e}");
    let radio = |x: f64| {
        format!(
            "[sim]\nduration = \"1s\"\n[wireless]\nrouting = \"static\"\n\
             [[node]]\nname = \"a\"\nposition = [0.0, 0.0]\n\
             [[node]]\nname = \"b\"\nposition = [200.0, 0.0]\n\
             [[node]]\nname = \"c\"\nposition = [{x}, 0.0]\n\
             [[flow]]\nfrom = \"a\"\nto = \"c\"\ntransport = \"udp\"\napp = {{ kind = \"cbr\", rate = \"10kbps\" }}\n"
        )
    };
    if let Err(e) = Scenario::from_toml_str(&radio(400.0)) {
        panic!("a - b - c in range, hop by hop: {e}");
    }
    let e = Scenario::from_toml_str(&radio(1000.0)).expect_err("must be refused");
    assert_eq!(e.key, "flow[0].to");
    assert!(e.to_string().contains("the nearest gap is \"b\" - \"c\", 800.0 m apart"), "{e}");
}

/// Found by a fresh user's review (2026-11-30): a run whose flows all start
/// at or after its end, a link capture "both" ways (the message must not
/// offer it), and a negative duration (the message must not say zero is
/// allowed where the key refuses it).
#[test]
fn review_inputs_get_consistent_one_line_errors() {
    let late = "transport = \"udp\"\napp = { kind = \"cbr\", rate = \"1Mbps\", start = \"2s\" }";
    let text = common::path("2s", LINK, LINK, late, "");
    let e = Scenario::from_toml_str(&text).expect_err("must be refused");
    assert_eq!(e.key, "flow[0].app.start");
    assert!(e.to_string().contains("no flow starts before the end of the run (sim.duration = 2 s)"), "{e}");
    let early = late.replace("\"2s\"", "\"1.9s\"");
    assert!(Scenario::from_toml_str(&common::path("2s", LINK, LINK, &early, "")).is_ok());
    // One flow late among others that start: a look at the early part.
    let two = common::path("2s", LINK, LINK, &early, &format!("[[flow]]\nfrom = \"a\"\nto = \"b\"\n{late}"));
    assert!(Scenario::from_toml_str(&two).is_ok());

    let bulk = "transport = \"reno\"\napp = { kind = \"bulk\" }";
    let both = common::path("2s", LINK, LINK, bulk, "[[pcap]]\nlink = 0\ndirection = \"both\"");
    let e = Scenario::from_toml_str(&both).expect_err("must be refused").to_string();
    assert!(e.starts_with("pcap[0].direction") && e.ends_with("expected `forward` or `reverse`"), "{e}");

    let e = Scenario::from_toml_str(&common::path("-1s", LINK, LINK, bulk, "")).expect_err("must be refused");
    assert_eq!(e.key, "sim.duration");
    assert!(e.to_string().contains("cannot be negative") && !e.to_string().contains("zero"), "{e}");
}

#[test]
fn a_name_given_as_another_type_lists_the_names() {
    let base = serde_json::json!({
        "sim": {"duration": "1s"},
        "wireless": {"routing": "aodv"},
        "node": [{"name": "a", "position": [0.0, 0.0]}, {"name": "b", "position": [100.0, 0.0]}],
        "flow": [{"from": "a", "to": "b", "transport": "udp", "app": {"kind": "cbr", "interval": "1s"}}]
    });
    for (path, bad) in [
        ("/wireless/routing", serde_json::json!(5)),
        ("/wireless/routing", serde_json::json!({"a": 1})),
        ("/flow/0/transport", serde_json::json!(true)),
    ] {
        let mut doc = base.clone();
        *doc.pointer_mut(path).unwrap() = bad.clone();
        let e = Scenario::from_json_str(&doc.to_string()).expect_err("must be refused");
        let key = path[1..].replace("/0/", "[0].").replace('/', ".");
        assert_eq!(e.key, key);
        assert!(
            e.message.starts_with("expected a name, one of `") && e.message.ends_with(&format!("got {bad}")),
            "{e}"
        );
    }
    // Every key of the interface queue may be left out.
    let mut doc = base.clone();
    doc["wireless"]["ifq"] = serde_json::json!({"limit": 10});
    assert!(Scenario::from_json_str(&doc.to_string()).is_ok());
}

/// serde's own wording names Rust types and enum variants ("expected struct
/// TcpOptions", "untagged enum InitialWindow", "unknown variant", "trailing
/// characters"); a scenario author gets the key and what it takes, from the
/// TOML parser and the JSON one (what the Python layer sends) alike.
#[test]
fn serde_errors_name_the_key_and_what_it_takes_not_rust_types() {
    let bulk = "transport = \"reno\"\napp = { kind = \"bulk\" }";
    let rust = ["u32", "u64", "f64", "struct", "enum", "variant", "Cfg", "TcpOptions", "string or map", "trailing"];
    for (flow, tail, key, message) in [
        (bulk, "[tcp]\ninitial_window = true", "tcp.initial_window", "must be 1..64 segments or \"rfc3390\", got true"),
        (
            bulk,
            "[tcp]\ninitial_window = \"x\"",
            "tcp.initial_window",
            "must be 1..64 segments or \"rfc3390\", got \"x\"",
        ),
        (
            bulk,
            "[tcp]\nthinning_thresholds = [1]",
            "tcp.thinning_thresholds",
            "must be [d2, d3, d4], three segment numbers, got 1 value",
        ),
        (bulk, "[output]\ntrace = true\n[[tcp]]\nsack = true", "tcp", "invalid type: array, expected a table"),
        (
            "transport = \"reno\"\napp = { kind = \"bulk\" }\ntcp = 5",
            "",
            "flow[0].tcp",
            "invalid type: integer `5`, expected a table",
        ),
        (
            "transport = \"quic\"\napp = { kind = \"bulk\" }",
            "",
            "flow[0].transport",
            "unknown name `quic`, expected one of `tahoe`",
        ),
        (
            bulk,
            "[[link]]\nbetween = [\"a\", \"b\", \"r\"]\nrate = 1\ndelay = 1",
            "link[2].between",
            "must be [a, b], two node names, got 3 values",
        ),
        (
            bulk,
            "[[link]]\nbetween = [\"a\", \"b\"]\nrate = 1\ndelay = 1\nqueue = { kind = \"unlimited\", limit = 1 }",
            "link[2].queue.limit",
            "unknown field `limit`, this kind takes no other keys",
        ),
    ] {
        let text = common::path("2s", LINK, LINK, flow, tail);
        let toml_err = Scenario::from_toml_str(&text).expect_err("must be refused");
        let doc: serde_json::Value = toml::from_str(&text).unwrap();
        let json_err = Scenario::from_json_str(&doc.to_string()).expect_err("must be refused");
        for e in [&json_err, &toml_err] {
            assert_eq!(e.key, key, "{e}");
            assert!(e.message.starts_with(message), "{e}");
            assert!(!rust.iter().any(|r| e.message.contains(r)), "{e}");
        }
    }
    let base = serde_json::json!({
        "sim": {"duration": "1s"},
        "node": [{"name": "a", "position": [0.0, 0.0]}, {"name": "b", "position": [100.0, 0.0]}],
        "wireless": {"routing": "aodv"},
        "flow": [{"from": "a", "to": "b", "transport": "udp", "app": {"kind": "cbr", "interval": "1s"}}]
    });
    for (path, bad, key, message) in [
        (
            "/wireless/rts_threshold",
            serde_json::json!([1]),
            "wireless.rts_threshold",
            "must be a whole number of bytes >= 0 or \"off\", got [1]",
        ),
        ("/wireless/mac", serde_json::json!([1]), "wireless.mac", "invalid type: array, expected a table"),
        (
            "/node/0/waypoints",
            serde_json::json!([[1, 2, 3]]),
            "node[0].waypoints[0]",
            "must be [time s, x m, y m, speed m/s], got 3 values",
        ),
    ] {
        let mut doc = base.clone();
        // Added where absent (`pointer_mut` finds only existing entries).
        let mut v = &mut doc;
        for part in path[1..].split('/') {
            v = match part.parse::<usize>() {
                Ok(i) => &mut v[i],
                Err(_) => &mut v[part],
            };
        }
        *v = bad;
        let e = Scenario::from_json_str(&doc.to_string()).expect_err("must be refused");
        assert_eq!(e.key, key, "{e}");
        assert!(e.message.starts_with(message), "{e}");
    }
    let mut doc = base.clone();
    doc["link"] = serde_json::json!([{"between": ["a", "b"], "rate": 1, "delay": 1,
        "error": {"kind": "uniform", "rate": 0.1, "direction": 1}}]);
    let e = Scenario::from_json_str(&doc.to_string()).expect_err("must be refused");
    assert_eq!(e.to_string(), "link[0].error.direction: expected a name, one of `forward`, `reverse`, `both`; got 1");
}

/// serde reads a table from an array of its keys' values in order, without
/// an error: `sim = ["5s"]` passed as a duration and `[[link]]`'s `queue =
/// ["droptail"]` as a kind. Refused, naming the key, from TOML and JSON
/// alike; arrays where arrays belong (positions, `between`) still load.
#[test]
fn an_array_where_a_table_belongs_is_refused_even_when_serde_would_read_it() {
    let base = serde_json::json!({
        "sim": {"duration": "1s"},
        "node": [{"name": "a"}, {"name": "b"}],
        "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "1ms"}],
        "flow": [{"from": "a", "to": "b", "transport": "reno", "app": {"kind": "bulk"}}]
    });
    assert!(Scenario::from_json_str(&base.to_string()).is_ok());
    let mut sim = base.clone();
    sim["sim"] = serde_json::json!(["5s"]);
    let mut app = base.clone();
    app["flow"][0]["tcp"] = serde_json::json!([true]);
    for (doc, key) in [(sim, "sim"), (app, "flow[0].tcp")] {
        let e = Scenario::from_json_str(&doc.to_string()).expect_err("must be refused");
        assert_eq!(e.to_string(), format!("{key}: invalid type: array, expected a table"));
        let text = toml::to_string(&doc).unwrap();
        let e = Scenario::from_toml_str(&text).expect_err("must be refused from TOML too");
        assert_eq!(e.key, key, "{e}");
    }
}
