//! Whole-simulator tests: analytic limits, determinism, delivery invariants
//! under random loss, and scenario errors that name the key.

mod common;

use proptest::prelude::*;
use tcplab_core::engine::time::SEC;
use tcplab_core::{run_toml, RunResult, Scenario};

/// One sender, a fast access link and a bottleneck `rate` with optional
/// framing; `extra` is appended to the bottleneck link table.
fn two_hop(rate: &str, framing: &str, flow: &str, extra: &str, duration: &str) -> String {
    let bottleneck = format!(
        "rate = \"{rate}\"\ndelay = \"20ms\"\nframing = \"{framing}\"\nqueue = {{ kind = \"droptail\", limit = 100 }}\n{extra}"
    );
    common::path(duration, "rate = \"100Mbps\"\ndelay = \"1ms\"", &bottleneck, flow, "")
}

fn flow_value(r: &RunResult, col: &str) -> f64 {
    r.flows.get(col, 0).unwrap()
}

/// Error-free bottleneck: throughput = rate x payload / (payload + 40 + framing)
/// once the window covers the pipe (start-up excluded by a long run).
#[test]
fn error_free_bottleneck_reaches_line_rate() {
    for (rate, bps, framing, fbytes) in [("1Mbps", 1e6, "none", 0.0), ("9600bps", 9600.0, "ppp", 8.0)] {
        let text = two_hop(
            rate,
            framing,
            // Without ns-2's SYN: its 40-byte RTT sample would time out the
            // first 0.87 s data segments on the 9600 bit/s link.
            "transport = \"newreno\"\npacket_size = 1000\nwindow = 60\napp = { kind = \"bulk\" }\ntcp = { syn = false }",
            "",
            "2000s",
        );
        let r = run_toml(&text).unwrap();
        let limit = bps * 1000.0 / (1000.0 + 40.0 + fbytes);
        let thr = flow_value(&r, "throughput_bps");
        assert!(thr <= limit * 1.0001, "{rate}: {thr} above the limit {limit}");
        assert!(thr >= limit * 0.99, "{rate}: {thr} below 99% of {limit}");
        assert_eq!(flow_value(&r, "retransmits"), 0.0);
    }
}

/// A bulk flow that stops while its window waits in a long queue: its rates
/// count what had arrived by the stop (what arrives later would put them
/// above the link's rate over start..stop), and the byte counts everything.
#[test]
fn a_stopped_flow_is_measured_up_to_its_stop() {
    let flow = "transport = \"newreno\"\npacket_size = 1000\nwindow = 200\napp = { kind = \"bulk\", stop = \"3s\" }\ntcp = { syn = false }";
    let r = run_toml(&two_hop("2Mbps", "none", flow, "", "10s").replace("limit = 100", "limit = 1000")).unwrap();
    let limit = 2e6 * 1000.0 / 1040.0;
    for col in ["throughput_bps", "goodput_bps"] {
        let v = flow_value(&r, col);
        assert!(v <= limit * 1.0001 && v > 0.8 * limit, "{col} {v} against the line rate {limit}");
    }
    // Bytes delivered after the stop still count in the byte columns.
    assert!(flow_value(&r, "bytes_delivered") * 8.0 / 3.0 > limit * 1.05);
}

/// UDP at a fixed interval delivers exactly one datagram per interval.
#[test]
fn paced_udp_counts() {
    let text = two_hop(
        "1Mbps",
        "none",
        "transport = \"udp\"\npacket_size = 500\napp = { kind = \"cbr\", interval = \"10ms\", stop = \"10s\" }",
        "",
        "11s",
    );
    let r = run_toml(&text).unwrap();
    // Sends at 0, 10 ms, ..., 9.99 s; the stop at 10 s was scheduled first,
    // so it wins the tie with the send due at the same instant.
    let sent = flow_value(&r, "packets_sent");
    assert_eq!(sent, 1000.0);
    assert_eq!(flow_value(&r, "bytes_delivered"), sent * 500.0);
}

fn dumbbell() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/dumbbell.toml")).unwrap()
}

#[test]
fn same_seed_same_bytes_different_seed_different_run() {
    let text = dumbbell();
    let a = run_toml(&text).unwrap();
    let b = run_toml(&text).unwrap();
    assert_eq!(a.flows.to_csv(), b.flows.to_csv());
    assert_eq!(a.links.to_csv(), b.links.to_csv());
    assert_eq!(a.summary.events, b.summary.events);
    let c = run_toml(&text.replace("seed = 1", "seed = 2")).unwrap();
    assert_ne!(a.flows.to_csv(), c.flows.to_csv());
}

/// Adding a flow elsewhere does not change the loss process of a link
/// (each error model has its own stream): the first packets of the lossy
/// link see the same drop decisions.
#[test]
fn streams_are_per_component() {
    // Adding nodes, a link and a flow elsewhere (a disjoint pair) must not
    // shift the random streams of the existing links: every original flow
    // and link row stays the same, byte for byte.
    let text = dumbbell();
    let extra = "\n[[node]]\nname = \"x\"\n[[node]]\nname = \"y\"\n\n[[link]]\nbetween = [\"x\", \"y\"]\nrate = \"1Mbps\"\ndelay = \"5ms\"\nerror = { kind = \"uniform\", rate = 0.05 }\n\n[[flow]]\nname = \"extra\"\nfrom = \"x\"\nto = \"y\"\ntransport = \"reno\"\napp = { kind = \"bulk\" }\n";
    let a = run_toml(&text).unwrap();
    let b = run_toml(&format!("{text}{extra}")).unwrap();
    let (fa, fb) = (a.flows.to_csv(), b.flows.to_csv());
    let (la, lb) = (a.links.to_csv(), b.links.to_csv());
    let rows = |t: &str| t.lines().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(rows(&fb)[..rows(&fa).len()], rows(&fa)[..], "original flows changed");
    assert_eq!(rows(&lb)[..rows(&la).len()], rows(&la)[..], "original links changed");
    assert!(rows(&fb).len() == rows(&fa).len() + 1 && rows(&lb).len() == rows(&la).len() + 2);
    // The comparison can fail: another seed changes the lossy links' rows.
    let c = run_toml(&text.replace("seed = 1", "seed = 2")).unwrap();
    assert_ne!(c.links.to_csv(), la);
}

fn lossy_transfer(variant: &str, loss: f64, seed: u64, bytes: u64, acks: &str) -> RunResult {
    let flow = format!(
        "transport = \"{variant}\"\npacket_size = 500\nwindow = 16\napp = {{ kind = \"transfer\", bytes = {bytes} }}\ntcp = {{ {acks} }}"
    );
    let extra = format!("error = {{ kind = \"uniform\", rate = {loss}, direction = \"both\" }}");
    let text = two_hop("2Mbps", "none", &flow, &extra, "5000s").replace("seed = 1", &format!("seed = {seed}"));
    run_toml(&text).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// Whatever the losses, every byte written is delivered once and in order
    /// (the receiver's in-order count equals the transfer size exactly) and
    /// the sender sees it all acknowledged.
    #[test]
    fn every_byte_delivered_once_in_order(
        v in prop::sample::select(vec!["tahoe", "reno", "newreno", "sack", "vegas"]),
        loss in 0.0f64..0.2,
        seed in 0u64..1000,
        bytes in 1u64..60_000,
        acks in prop::sample::select(vec![
            "delayed_ack = false",
            "delayed_ack = true",
            "ack_thinning = true",
            "delayed_ack = true, timestamps = true",
            "timestamps = true, sack = true",
        ]),
    ) {
        let r = lossy_transfer(v, loss, seed, bytes, acks);
        prop_assert_eq!(flow_value(&r, "bytes_delivered"), bytes as f64);
        prop_assert_eq!(flow_value(&r, "bytes_acked"), bytes as f64);
        prop_assert!(r.flows.get("completion_s", 0).is_some());
    }
}

#[test]
fn loss_causes_recovery_in_every_variant() {
    for v in ["tahoe", "reno", "newreno", "sack", "vegas"] {
        let r = lossy_transfer(v, 0.02, 7, 400_000, "");
        assert!(flow_value(&r, "fast_retransmits") > 0.0, "{v}");
        assert_eq!(flow_value(&r, "bytes_delivered"), 400_000.0, "{v}");
    }
}

fn error_of(text: &str) -> String {
    Scenario::from_toml_str(text).unwrap_err().to_string()
}

#[test]
fn bad_scenarios_name_the_key() {
    let ok = two_hop("1Mbps", "none", "transport = \"reno\"\napp = { kind = \"bulk\" }", "", "10s");
    assert!(Scenario::from_toml_str(&ok).is_ok());
    let cases: Vec<(String, &str)> = vec![
        (ok.replace("rate = \"1Mbps\"", "rate = \"1MBps\""), "link[1].rate"),
        (ok.replace("transport = \"reno\"", "transport = \"quic\""), "flow[0].transport"),
        (ok.replace("delay = \"20ms\"", "delay = \"20 parsecs\""), "link[1].delay"),
        (ok.replace("[sim]", "[sim]\nspeed = 3"), "sim"),
        (ok.replace("to = \"b\"", "to = \"zz\""), "flow[0].to"),
        (ok.replace("limit = 100", "limit = 0"), "link[1].queue.limit"),
        (ok.replace("limit = 100", "limit = -3"), "link[1].queue.limit"),
        (ok.replace("duration = \"10s\"", "duration = \"0s\""), "sim.duration"),
        (ok.replace("framing = \"none\"", "framing = \"atm\""), "link[1].framing"),
        (ok.replace("{ kind = \"bulk\" }", "{ kind = \"bulk\", stat = 1 }"), "flow[0].app"),
        (ok.replace("{ kind = \"bulk\" }", "{ kind = \"bulk\", start = \"soon\" }"), "flow[0].app.start"),
        (ok.replace("kind = \"droptail\"", "kind = \"pie\""), "link[1].queue.kind"),
        (
            ok.replace("framing = \"none\"", "framing = \"none\"\nerror = { kind = \"uniform\", rate = 1.5 }"),
            "link[1].error.rate",
        ),
        (
            ok.replace("framing = \"none\"", "framing = \"none\"\nerror = { kind = \"uniform\", rate = \"x\" }"),
            "link[1].error.rate",
        ),
        (ok.replace("[sim]", "[sim\n"), "invalid TOML"),
    ];
    for (text, key) in cases {
        let e = error_of(&text);
        assert!(e.starts_with(key), "expected an error naming {key}, got: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }
    let e = error_of(&ok.replace("transport = \"reno\"", "transport = \"quic\""));
    assert!(e.contains("newreno"), "lists the allowed values: {e}");
}

/// `first_bytes`: the time until the receiving application has that many
/// bytes, never after the whole transfer completes; on a 9600 bit/s PPP link
/// at least the serialisation time of those bytes.
#[test]
fn time_to_first_bytes() {
    let text = two_hop(
        "9600bps",
        "ppp",
        "transport = \"newreno\"\npacket_size = 256\nwindow = 60\nfirst_bytes = 15360\napp = { kind = \"transfer\", bytes = 30720 }",
        "",
        "300s",
    );
    let r = run_toml(&text).unwrap();
    let first = r.flows.get("first_bytes_s", 0).unwrap();
    let done = r.flows.get("completion_s", 0).unwrap();
    let serialisation = 60.0 * (256.0 + 48.0) * 8.0 / 9600.0;
    assert!(first >= serialisation && first < done, "{first} {done}");
}

/// Routers decrement the TTL of what they forward: a segment from `a`
/// arrives at `b` through one router with TTL 63, and `a` sees the ACKs
/// with 63 too; what a node sends itself leaves with 64.
#[test]
fn ttl_is_decremented_per_forwarding_hop() {
    let text = common::path(
        "1s",
        "rate = \"10Mbps\"\ndelay = \"1ms\"",
        "rate = \"10Mbps\"\ndelay = \"1ms\"",
        "transport = \"reno\"\napp = { kind = \"transfer\", bytes = 5000 }",
        "[[pcap]]\nnode = \"b\"\n[[pcap]]\nnode = \"a\"",
    );
    let r = run_toml(&text).unwrap();
    // libpcap: 24-byte file header, then 16-byte record header + raw IPv4.
    let ttls = |pcap: &[u8]| -> Vec<(u8, u8)> {
        let mut out = vec![];
        let mut i = 24;
        while i + 16 <= pcap.len() {
            let caplen = u32::from_le_bytes(pcap[i + 8..i + 12].try_into().unwrap()) as usize;
            let ip = &pcap[i + 16..i + 16 + caplen];
            out.push((ip[15], ip[8])); // (last byte of the source address, TTL)
            i += 16 + caplen;
        }
        out
    };
    let at = |name: &str| ttls(&r.pcaps.iter().find(|(n, _)| n == name).unwrap().1);
    // Node addresses are 10.0.0.(index + 1): a = 1, r = 2, b = 3.
    let b = at("node-b");
    assert!(b.iter().any(|&(src, ttl)| src == 1 && ttl == 63), "data at b: {b:?}");
    assert!(b.iter().any(|&(src, ttl)| src == 3 && ttl == 64), "ACKs leaving b: {b:?}");
    assert!(b.iter().all(|&(src, ttl)| (src == 1 && ttl == 63) || (src == 3 && ttl == 64)));
    let a = at("node-a");
    assert!(a.iter().all(|&(src, ttl)| (src == 1 && ttl == 64) || (src == 3 && ttl == 63)), "{a:?}");
}

/// Routing set-up grows with nodes x destinations, not nodes x nodes: a
/// 20 000-node chain with one flow validates, builds and runs (its table
/// holds two columns; all-pairs it would be 400 million entries). Its
/// datagrams die of old age after 63 forwarding hops, counted as TTL drops.
#[test]
fn a_20000_node_chain_builds_and_ttl_ends_its_packets() {
    let n = 20_000;
    let mut t = String::from("[sim]\nduration = \"1s\"\nseed = 1\n");
    for i in 0..n {
        t += &format!("[[node]]\nname = \"n{i}\"\n");
    }
    for i in 0..n - 1 {
        t += &format!("[[link]]\nbetween = [\"n{i}\", \"n{}\"]\nrate = \"100Mbps\"\ndelay = \"10us\"\n", i + 1);
    }
    t += &format!(
        "[[flow]]\nfrom = \"n0\"\nto = \"n{}\"\ntransport = \"udp\"\npacket_size = 500\napp = {{ kind = \"cbr\", interval = \"10ms\" }}\n",
        n - 1
    );
    let r = run_toml(&t).unwrap();
    // Sent at 0, 10 ms, ..., 1 s; the one sent at the end is still on its way.
    assert_eq!(flow_value(&r, "packets_sent"), 101.0);
    assert_eq!(flow_value(&r, "bytes_delivered"), 0.0);
    assert_eq!(r.summary.drops_ttl, 100, "every datagram ends after 63 forwarding hops");
    assert_eq!(r.summary.packets_in_flight, 1);
}

/// The send times of a cbr flow on one 10 Mbit/s link, read by running the
/// world in 1 ms steps (each send counted at the step it falls in).
fn cbr_send_times(app: &str, seed: u64) -> Vec<u64> {
    use tcplab_core::transport::socket::SocketKind;
    let flow = format!("transport = \"udp\"\npacket_size = 512\napp = {app}");
    let text =
        common::path("60s", "rate = \"10Mbps\"\ndelay = \"1ms\"", "rate = \"10Mbps\"\ndelay = \"1ms\"", &flow, "")
            .replace("seed = 1", &format!("seed = {seed}"));
    let mut w = Scenario::from_toml_str(&text).unwrap().build();
    let ms = 1_000_000;
    let (mut times, mut sent) = (Vec::new(), 0);
    for t in (0..60_000).map(|k| k * ms) {
        w.run_until(t);
        let SocketKind::UdpSender(u) = &w.sockets[w.flows[0].tx as usize].kind else { unreachable!() };
        for _ in sent..u.stats.packets_sent {
            times.push(t);
        }
        sent = u.stats.packets_sent;
    }
    times
}

/// `random = true` (ns-2's CBR `random_ 1`): every gap between two sends
/// is the interval times U(0.5, 1.5), so gaps spread over that whole range
/// with the interval as their mean; the same seed gives the same times,
/// another seed others. Without it every gap is the interval.
#[test]
fn a_random_cbr_draws_each_gap_from_half_to_one_and_a_half_intervals() {
    let ms = 1_000_000u64;
    let plain = cbr_send_times("{ kind = \"cbr\", interval = \"100ms\", start = \"1s\" }", 1);
    assert!(plain.windows(2).all(|w| w[1] - w[0] == 100 * ms), "a plain cbr's gaps are the interval");
    let random = "{ kind = \"cbr\", interval = \"100ms\", start = \"1s\", random = true }";
    let times = cbr_send_times(random, 1);
    assert_eq!(times[0], 1000 * ms, "the first datagram goes at the start");
    let gaps: Vec<f64> = times.windows(2).map(|w| (w[1] - w[0]) as f64 / ms as f64).collect();
    // Send times are read to the millisecond: a gap is within 1 ms of its draw.
    assert!(gaps.iter().all(|&g| (49.0..=151.0).contains(&g)), "{gaps:?}");
    let (lo, hi) = gaps.iter().fold((f64::MAX, 0.0f64), |(l, h), &g| (l.min(g), h.max(g)));
    assert!(lo < 55.0 && hi > 145.0, "gaps fill [50, 150] ms: {lo} .. {hi}");
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    // About 590 gaps of standard deviation 100 / sqrt(12) ms: 1.2 ms of
    // standard error.
    assert!((mean - 100.0).abs() < 5.0, "mean gap {mean} ms");
    assert_eq!(cbr_send_times(random, 1), times, "same seed, same send times");
    assert_ne!(cbr_send_times(random, 2), times, "another seed, other send times");
}

/// A dumbbell of `n` NewReno flows through an `n` Mbit/s bottleneck with
/// 1 % loss (the scaling benchmark's shape, benchmarks/scaling.py).
fn many_flows(n: usize, duration: &str) -> String {
    let mut t = format!("[sim]\nduration = \"{duration}\"\nseed = 1\ntcp_profile = \"ns2\"\n\n");
    t += "[[node]]\nname = \"r1\"\n[[node]]\nname = \"r2\"\n";
    for i in 0..n {
        t += &format!("[[node]]\nname = \"s{i}\"\n[[node]]\nname = \"d{i}\"\n");
    }
    t += &format!("[[link]]\nbetween = [\"r1\", \"r2\"]\nrate = \"{n}Mbps\"\ndelay = \"20ms\"\n");
    t += "queue = { kind = \"droptail\", limit = 1000 }\n";
    t += "error = { kind = \"uniform\", rate = 0.01, direction = \"forward\" }\n";
    for i in 0..n {
        for (a, b) in [(format!("s{i}"), "r1".to_string()), ("r2".to_string(), format!("d{i}"))] {
            t += &format!("[[link]]\nbetween = [\"{a}\", \"{b}\"]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n");
        }
        t += &format!("[[flow]]\nname = \"f{i}\"\nfrom = \"s{i}\"\nto = \"d{i}\"\ntransport = \"newreno\"\n");
        t += &format!("packet_size = 1000\nwindow = 20\napp = {{ kind = \"bulk\", start = \"{}ms\" }}\n", i % 97);
    }
    t
}

/// With more than 1024 events pending the run loop prefetches and takes
/// up each next bucket of the event queue early (`EventQueue::ready_next`):
/// the run's outputs are those of the same run stepped by `run_until`,
/// which does neither.
#[test]
fn a_run_that_prefetches_gives_the_outputs_of_one_that_does_not() {
    let (a, b) = common::run_and_stepped_run(&many_flows(300, "2s"), 2 * SEC);
    assert_eq!(a.summary.events, b.summary.events);
    assert_eq!(a.flows.to_csv(), b.flows.to_csv());
    assert_eq!(a.links.to_csv(), b.links.to_csv());
}

/// `scenario::build::message_writes` (what the emulator replays) is the
/// simulator's own schedule: on an idle path with the window open, each
/// message leaves as one segment the moment it is written, so the sender's
/// sends are the writes, to the nanosecond. Changes at the start (after
/// the first draw) and in the middle, a stop, and ns-2's generator.
#[test]
fn message_writes_are_the_simulators_messages() {
    for generator in ["", "generator = \"ns2\", generator_skip = 3,"] {
        let flow = format!(
            "transport = \"newreno\"\npacket_size = 500\nwindow = 100\napp = {{ kind = \"messages\", start = \"0.5s\", \
             stop = \"25s\", interval = \"300ms\", {generator} changes = [{{ at = \"0.5s\", interval = \"200ms\" }}, \
             {{ at = \"10s\", interval = \"1s\" }}] }}"
        );
        let text = common::path(
            "30s",
            "rate = \"100Mbps\"\ndelay = \"1ms\"",
            "rate = \"100Mbps\"\ndelay = \"1ms\"",
            &flow,
            "[tcp]\nsyn = false\ndelayed_ack = false\n[output]\ntrace = true",
        );
        let sc = Scenario::from_toml_str(&text).unwrap();
        let writes = tcplab_core::scenario::build::message_writes(&sc.cfg, 0, 30 * SEC);
        let r = sc.build().run();
        let t = &r.trace;
        let tcplab_core::output::Column::Str(kind) = t.column("kind").unwrap() else { panic!() };
        let sends: Vec<f64> = (0..t.rows())
            .filter(|&i| kind[i] == "send" && t.get("len", i) > Some(0.0))
            .map(|i| t.get("time_s", i).unwrap())
            .collect();
        assert!(writes.len() > 30, "{} writes", writes.len());
        assert!(writes.iter().all(|&(at, bytes)| at < 25 * SEC && bytes == 500));
        assert_eq!(sends.len(), writes.len(), "{generator}");
        // A message written within a round trip (4.2 ms) of the one before
        // can wait for its ACK (the window restarts at one segment after
        // an idle period); every other leaves at its write.
        let mut prev = 0;
        for (s, &(w, _)) in sends.iter().zip(&writes) {
            let at = w as f64 / 1e9;
            if w - prev > 5_000_000 {
                assert!((s - at).abs() < 1e-9, "send at {s} s, write at {w} ns");
            } else {
                assert!(*s >= at - 1e-9 && *s < at + 0.005, "send at {s} s, write at {w} ns");
            }
            prev = w;
        }
    }
}

/// Each direction of a link can have its own error model
/// (`forward.error`, `reverse.error`), in place of the link's `error` for
/// that direction: a pattern on the data's way and a uniform loss on the
/// ACKs' at once, and a direction's own model beside the link's shorthand.
/// A direction's model names no `direction`, and its keys are checked
/// under its own path.
#[test]
fn each_direction_of_a_link_has_its_own_error_model() {
    let flow = "transport = \"newreno\"\nwindow = 20\napp = { kind = \"bulk\" }";
    let corrupted = |extra: &str| {
        let r = run_toml(&two_hop("1Mbps", "none", flow, extra, "60s")).unwrap();
        // Rows 2 and 3: the bottleneck's forward (data) and reverse (ACKs).
        (r.links.get("drops_corruption", 2).unwrap(), r.links.get("drops_corruption", 3).unwrap())
    };
    let sides = "forward = { error = { kind = \"pattern\", drop = [3, 7, 300] } }\n\
                 reverse = { error = { kind = \"uniform\", rate = 0.05 } }";
    let (data, acks) = corrupted(sides);
    assert_eq!(data, 3.0);
    assert!(acks > 100.0, "{acks} ACKs lost");
    // The link's model acts where no direction has its own.
    let (data, acks) = corrupted(
        "error = { kind = \"uniform\", rate = 0.05, direction = \"both\" }\n\
         forward = { error = { kind = \"pattern\", drop = [3, 7, 300] } }",
    );
    assert_eq!(data, 3.0);
    assert!(acks > 100.0, "{acks} ACKs lost");
    assert_eq!(corrupted(""), (0.0, 0.0));
    for (extra, key, message) in [
        (
            "reverse = { error = { kind = \"uniform\", rate = 0.05, direction = \"forward\" } }",
            "link[1].reverse.error.direction",
            "not allowed in a direction's own error model, which acts on the reverse direction",
        ),
        ("forward = { error = { kind = \"uniform\", rate = 2.0 } }", "link[1].forward.error.rate", "must be"),
        (
            "forward = { error = { kind = \"uniform\", rate = 0.1, flow = \"x\" } }",
            "link[1].forward.error.flow",
            "no flow named",
        ),
        ("forward = { error = { kind = \"uniformish\", rate = 0.1 } }", "link[1].forward.error.kind", "unknown"),
    ] {
        let e = Scenario::from_toml_str(&two_hop("1Mbps", "none", flow, extra, "1s")).expect_err(extra);
        assert_eq!(e.key, key, "{e}");
        assert!(e.message.contains(message), "{e}");
    }
}

/// `start_jitter`: each flow's application starts later than `app.start`
/// by a draw in [0, start_jitter) from its own stream: the same starts for
/// the same seed, others for another, every one in range and the flows'
/// draws independent; without the key the start is the key's. A jitter
/// that could carry the start past the application's stop is refused.
#[test]
fn start_jitter_draws_each_flows_start_from_its_own_stream() {
    let text = |seed: u64, jitter: &str| {
        let mut t = format!(
            "[sim]\nduration = \"3s\"\nseed = {seed}\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
             [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n"
        );
        for _ in 0..8 {
            t += &format!(
                "[[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"newreno\"\n{jitter}\n\
                 app = {{ kind = \"bulk\", start = 1.0, stop = 2.0 }}\n"
            );
        }
        t
    };
    let starts = |seed: u64, jitter: &str| {
        let r = run_toml(&text(seed, jitter)).unwrap();
        (0..8).map(|i| r.flows.get("start_s", i).unwrap()).collect::<Vec<f64>>()
    };
    let a = starts(1, "start_jitter = \"100ms\"");
    assert!(a.iter().all(|&s| (1.0..1.1).contains(&s)), "{a:?}");
    let distinct: std::collections::BTreeSet<u64> = a.iter().map(|s| s.to_bits()).collect();
    assert_eq!(distinct.len(), 8, "{a:?}");
    assert_eq!(starts(1, "start_jitter = \"100ms\""), a);
    assert_ne!(starts(2, "start_jitter = \"100ms\""), a);
    assert_eq!(starts(1, ""), vec![1.0; 8]);
    assert_eq!(starts(1, "start_jitter = \"0s\""), vec![1.0; 8]);
    let e = Scenario::from_toml_str(&text(1, "start_jitter = \"1.5s\"")).expect_err("past the stop");
    assert_eq!(e.key, "flow[0].start_jitter", "{e}");
    assert!(e.message.contains("after app.stop"), "{e}");
}

/// A `start_jitter` that lets a seed draw every flow's start at or after
/// the end of the run is refused at validation, as an `app.start` there
/// is ("no flow starts before the end"), whatever this seed draws: the
/// run would measure nothing (0 events, summary unfairness infinite, Jain
/// NaN). A jitter that ends exactly at the end, or one flow sure to
/// start, is fine.
#[test]
fn a_start_jitter_past_the_end_for_every_flow_is_refused() {
    let text = |jitters: &[&str]| {
        let mut t = "[sim]\nduration = \"10s\"\n[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n\
                     [[link]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n"
            .to_string();
        for j in jitters {
            t += &format!(
                "[[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"newreno\"\nstart_jitter = \"{j}\"\n\
                 app = {{ kind = \"bulk\", start = 2.0 }}\n"
            );
        }
        t
    };
    let e = Scenario::from_toml_str(&text(&["100s"])).expect_err("every start can be after the end");
    assert_eq!(e.key, "flow[0].start_jitter", "{e}");
    assert!(e.message.contains("(102 s) reaches past the end of the run (sim.duration = 10 s)"), "{e}");
    assert!(e.message.ends_with("at most 8 s here"), "{e}");
    // Named: the flow whose latest start is earliest.
    let e = Scenario::from_toml_str(&text(&["100s", "9s"])).expect_err("both can start after the end");
    assert_eq!(e.key, "flow[1].start_jitter", "{e}");
    assert!(Scenario::from_toml_str(&text(&["8s"])).is_ok(), "the latest start is 1 ns before the end");
    assert!(Scenario::from_toml_str(&text(&["100s", "1s"])).is_ok(), "flow[1] starts by 3 s");
}
