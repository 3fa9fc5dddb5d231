//! Packet conservation on random topologies: every packet created is handed
//! to a socket, consumed by an agent, dropped with a counted cause, or still
//! in flight when the run ends. Nothing vanishes uncounted.

use proptest::prelude::*;
use tcplab_core::{run_toml, RunResult};

fn col_sum(r: &RunResult, col: &str) -> u64 {
    (0..r.links.rows()).map(|i| r.links.get(col, i).unwrap() as u64).sum()
}

/// A connected random graph: a random tree over `n` nodes plus extra edges,
/// random rates, delays, queues and loss, and random flows between nodes.
fn scenario(
    n: usize,
    parents: &[usize],
    extra: &[(usize, usize)],
    links: &[(u32, u32, u32, f64, usize)],
    flows: &[(usize, usize, usize)],
    snoop: usize,
    eln: bool,
) -> String {
    let mut t = String::from("[sim]\nduration = \"20s\"\nseed = 3\n");
    for i in 0..n {
        t += &format!("[[node]]\nname = \"n{i}\"\nsnoop = {}\n", i == snoop);
    }
    let mut edges: Vec<(usize, usize)> = (1..n).map(|i| (parents[i - 1] % i, i)).collect();
    edges.extend(extra.iter().filter(|(a, b)| a % n != b % n).map(|(a, b)| (a % n, b % n)));
    for (k, (a, b)) in edges.iter().enumerate() {
        let (rate, delay, limit, loss, queue) = links[k % links.len()];
        // Drop-tail, or a discipline that drops from other packets than
        // the arrival (DRR, FQ-CoDel's batches) or as packets leave (CoDel).
        let queue = match queue {
            0 => format!("{{ kind = \"droptail\", limit = {limit} }}"),
            1 => format!("{{ kind = \"drr\", blimit = {}, buckets = 4 }}", limit * 1100),
            2 => format!("{{ kind = \"codel\", limit = {limit}, target = \"2ms\", interval = \"20ms\" }}"),
            _ => format!("{{ kind = \"fq-codel\", limit = {limit}, flows = 8, drop_batch = 3, target = \"2ms\", interval = \"20ms\" }}"),
        };
        t += &format!(
            "[[link]]\nbetween = [\"n{a}\", \"n{b}\"]\nrate = \"{rate}kbps\"\ndelay = \"{delay}ms\"\nqueue = {queue}\nerror = {{ kind = \"uniform\", rate = {loss}, direction = \"both\" }}\n"
        );
    }
    let kinds = ["tahoe", "reno", "newreno", "sack", "vegas", "udp"];
    for (k, &(a, b, kind)) in flows.iter().enumerate() {
        let (a, b) = (a % n, b % n);
        if a == b {
            continue;
        }
        let kind = kinds[kind % kinds.len()];
        let app = if kind == "udp" { "{ kind = \"cbr\", interval = \"30ms\" }" } else { "{ kind = \"bulk\" }" };
        let eln = if kind != "udp" && eln { "eln = true\n" } else { "" };
        t += &format!(
            "[[flow]]\nname = \"f{k}\"\nfrom = \"n{a}\"\nto = \"n{b}\"\ntransport = \"{kind}\"\n{eln}app = {app}\n"
        );
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn every_packet_is_accounted_for(
        n in 2usize..9,
        parents in prop::collection::vec(0usize..100, 8),
        extra in prop::collection::vec((0usize..100, 0usize..100), 0..4),
        links in prop::collection::vec((prop::sample::select(vec![64u32, 256, 1000, 10000]), 1u32..40, 1u32..30, prop::sample::select(vec![0.0, 0.01, 0.05]), 0usize..4), 1..6),
        flows in prop::collection::vec((0usize..100, 0usize..100, 0usize..6), 1..5),
        snoop in 0usize..12,
        eln in any::<bool>(),
    ) {
        let text = scenario(n, &parents, &extra, &links, &flows, snoop, eln);
        let r = run_toml(&text).unwrap();
        let s = &r.summary;
        let dropped = col_sum(&r, "drops_overflow") + col_sum(&r, "drops_red") + col_sum(&r, "drops_soft") + col_sum(&r, "drops_codel")
            + col_sum(&r, "drops_corruption") + s.drops_no_route + s.drops_ttl + s.drops_no_socket;
        prop_assert_eq!(
            s.packets_created,
            s.packets_delivered + s.packets_consumed + dropped + s.packets_in_flight,
            "delivered {} consumed {} dropped {} in flight {}\n{}", s.packets_delivered, s.packets_consumed, dropped, s.packets_in_flight, text
        );
        prop_assert!(s.packets_delivered > 0 || r.flows.rows() == 0);
    }
}

fn node_sum(r: &RunResult, col: &str) -> u64 {
    (0..r.nodes.rows()).map(|i| r.nodes.get(col, i).unwrap() as u64).sum()
}

/// Static 802.11 stations at random places along a line (now and then out
/// of each other's range, often hidden from each other), random flows and frame
/// errors, and a run that ends at a random instant: frames are then caught
/// between a sender that still holds its copy for the ACK and a receiver
/// that holds its own, and RTS, CTS and ARP frames are on the air. Each IP
/// packet still counts once.
fn wireless_scenario(xs: &[u32], flows: &[(usize, usize, usize)], rts: bool, fer: f64, end_us: u32) -> String {
    let mut t = format!(
        "[sim]\nduration = \"{end_us}us\"\nseed = 5\n[wireless]\nrts_threshold = {}\nifq = {{ kind = \"priqueue\", limit = 5 }}\n",
        if rts { "0" } else { "\"off\"" }
    );
    for (i, x) in xs.iter().enumerate() {
        t += &format!("[[node]]\nname = \"n{i}\"\nposition = [{x}.0, 0.0]\nframe_error_rate = {fer}\n");
    }
    let kinds = ["newreno", "sack", "udp"];
    for (k, &(a, b, kind)) in flows.iter().enumerate() {
        let (a, b) = (a % xs.len(), b % xs.len());
        if a == b {
            continue;
        }
        let kind = kinds[kind % kinds.len()];
        let app = if kind == "udp" { "{ kind = \"cbr\", interval = \"3ms\" }" } else { "{ kind = \"bulk\" }" };
        t += &format!(
            "[[flow]]\nname = \"f{k}\"\nfrom = \"n{a}\"\nto = \"n{b}\"\ntransport = \"{kind}\"\napp = {app}\n"
        );
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, .. ProptestConfig::default() })]

    #[test]
    fn every_packet_on_a_static_radio_network_is_accounted_for(
        gaps in prop::collection::vec(0u32..260, 1..6),
        flows in prop::collection::vec((0usize..100, 0usize..100, 0usize..3), 1..4),
        rts in any::<bool>(),
        fer in prop::sample::select(vec![0.0, 0.05, 0.3]),
        end_us in 200_000u32..3_000_000,
    ) {
        // Neighbours mostly within range (250 m), now and then not; two
        // hops apart hidden from each other or not.
        let xs: Vec<u32> = std::iter::once(0).chain(gaps.iter().scan(0, |x, g| { *x += g; Some(*x) })).collect();
        let text = wireless_scenario(&xs, &flows, rts, fer, end_us);
        let r = match run_toml(&text) {
            Ok(r) => r,
            // Every flow's ends out of each other's reach: refused, with its key.
            Err(e) => { prop_assert!(e.to_string().contains("route"), "{}\n{}", e, text); return Ok(()); }
        };
        let s = &r.summary;
        // A frame given up at the retry limit after its next hop decoded it
        // (every ACK lost) is counted as a MAC drop, yet its packet went on.
        let received = s.retry_drops_received.expect("a radio network reports it");
        let dropped = node_sum(&r, "drops_ifq") + node_sum(&r, "drops_retry_limit") - received
            + s.drops_no_route + s.drops_ttl + s.drops_no_socket;
        prop_assert_eq!(
            s.packets_created,
            s.packets_delivered + s.packets_consumed + dropped + s.packets_in_flight,
            "delivered {} consumed {} dropped {} in flight {}\n{}", s.packets_delivered, s.packets_consumed, dropped, s.packets_in_flight, text
        );
        // Not vacuous: the flows sent. (Delivering need not happen: with
        // 30 % frame errors both SYNs of a 200 ms run can die at the retry
        // limit, the next try 3 s later; proptest found such a case, kept in
        // conservation.proptest-regressions.)
        prop_assert!(s.packets_created > 0 || r.flows.rows() == 0);
    }
}
