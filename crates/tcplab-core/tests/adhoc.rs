//! Ad hoc routing over the 802.11 MAC: AODV converges to the shortest hop
//! routes on chains and grids, carries TCP, repairs a broken path, reaches
//! as far as its network diameter allows, and counts its messages. The
//! expectations come from the topology (hop counts, message sizes from RFC
//! 3561), never from earlier runs.

mod common;
use common::{col_sum, node_stat};

use tcplab_core::engine::time::SEC;
use tcplab_core::net::routing::{Aodv, AodvParams, Dsdv, Dsr, DsrParams, Olsr, OlsrParams};
use tcplab_core::sim::World;
use tcplab_core::wireless::Dcf;
use tcplab_core::{run_toml, RunResult, Scenario};

/// Station spacing: within two-ray ground's 250 m receive range, two
/// spacings beyond it (a node hears only its neighbours on a line and in
/// a square grid, whose diagonal is 283 m).
const SPACING: f64 = 200.0;

fn scenario(duration: &str, routing: &str, extra: &str, nodes: &[(String, f64, f64)], flows: &str) -> String {
    let mut s = format!(
        "[sim]\nduration = \"{duration}\"\nseed = 1\n[wireless]\npropagation = \"two_ray_ground\"\n\
         data_rate = \"2Mbps\"\nbasic_rate = \"1Mbps\"\nrts_threshold = 0\nrouting = \"{routing}\"\n\
         ifq = {{ kind = \"priqueue\", limit = 50 }}\n{extra}\n"
    );
    for (n, x, y) in nodes {
        s += &format!("[[node]]\nname = \"{n}\"\nposition = [{x:?}, {y:?}]\n");
    }
    s + flows
}

fn tcp(from: &str, to: &str) -> String {
    format!(
        "[[flow]]\nfrom = \"{from}\"\nto = \"{to}\"\ntransport = \"newreno\"\npacket_size = 1460\nwindow = 32\n\
         app = {{ kind = \"bulk\" }}\n"
    )
}

/// A light UDP flow (one 512-byte packet every 0.5 s from `start`): the
/// routes it asks for are found without the MAC losses of a loaded network.
fn probe(from: &str, to: &str, start: f64) -> String {
    format!(
        "[[flow]]\nfrom = \"{from}\"\nto = \"{to}\"\ntransport = \"udp\"\npacket_size = 512\n\
         app = {{ kind = \"cbr\", rate = \"8kbps\", start = {start:?} }}\n"
    )
}

fn chain_nodes(hops: usize) -> Vec<(String, f64, f64)> {
    (0..=hops).map(|i| (format!("n{i}"), SPACING * i as f64, 0.0)).collect()
}

/// A `w` x `h` grid, node `g{x}_{y}`.
fn grid_nodes(w: usize, h: usize) -> Vec<(String, f64, f64)> {
    let mut v = Vec::new();
    for y in 0..h {
        for x in 0..w {
            v.push((format!("g{x}_{y}"), SPACING * x as f64, SPACING * y as f64));
        }
    }
    v
}

fn chain(hops: usize, duration: &str, routing: &str, extra: &str) -> String {
    scenario(duration, routing, extra, &chain_nodes(hops), &tcp("n0", &format!("n{hops}")))
}

fn aodv(w: &World, n: usize) -> &Aodv {
    w.nodes[n].routing.as_dyn().as_any().downcast_ref::<Aodv>().expect("an AODV node")
}

/// (destination, next hop, hops) of the valid routes of node `n`,
/// whichever protocol it runs.
fn routes(w: &World, n: usize) -> Vec<(u32, u32, u8)> {
    let any = w.nodes[n].routing.as_dyn().as_any();
    if let Some(a) = any.downcast_ref::<Aodv>() {
        return a.routes();
    }
    if let Some(d) = any.downcast_ref::<Dsdv>() {
        return d.routes();
    }
    if let Some(d) = any.downcast_ref::<Dsr>() {
        return d.routes();
    }
    any.downcast_ref::<Olsr>().expect("an ad hoc routing protocol").routes()
}

fn build(text: &str) -> World {
    Scenario::from_toml_str(text).unwrap().build()
}

#[test]
fn aodv_finds_the_chain_route_on_demand_and_carries_tcp() {
    let hops = 7;
    let mut w = build(&scenario("5s", "aodv", "", &chain_nodes(hops), &probe("n0", "n7", 0.0)));
    w.run_until(3 * SEC);
    // Forward routes towards the destination and reverse routes towards the
    // source, at every node on the way: the chain's neighbours, with the
    // hop counts of the chain.
    for i in 0..hops {
        let r = aodv(&w, i).routes();
        let to_dst = r.iter().find(|e| e.0 == hops as u32).unwrap_or_else(|| panic!("n{i} has no route: {r:?}"));
        assert_eq!((to_dst.1, to_dst.2 as usize), (i as u32 + 1, hops - i), "n{i}");
    }
    for i in 1..=hops {
        let r = aodv(&w, i).routes();
        let to_src = r.iter().find(|e| e.0 == 0).unwrap_or_else(|| panic!("n{i} has no route back: {r:?}"));
        assert_eq!((to_src.1, to_src.2 as usize), (i as u32 - 1, i), "n{i}");
    }
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    // TCP over the same chain: a loaded chain loses frames at the MAC, which
    // AODV takes for broken links (false route failures) and repairs.
    let r = run_toml(&chain(hops, "30s", "aodv", "")).unwrap();
    let static_r = run_toml(&chain(hops, "30s", "static", "")).unwrap();
    let (gp, gp_static) = (col_sum(&r.flows, "goodput_bps"), col_sum(&static_r.flows, "goodput_bps"));
    println!(
        "7 hops: AODV goodput {gp:.0} bit/s (static {gp_static:.0}), retransmits {} (static {}), routing packets {}, \
         overhead {:.4}, route errors {}, false route failures {} of {} link failures",
        col_sum(&r.flows, "retransmits"),
        col_sum(&static_r.flows, "retransmits"),
        col_sum(&r.nodes, "routing_packets"),
        r.summary.routing_overhead.unwrap(),
        col_sum(&r.nodes, "route_errors"),
        col_sum(&r.nodes, "false_route_failures"),
        col_sum(&r.nodes, "link_failures"),
    );
    assert!(gp > 0.5 * gp_static, "AODV {gp} vs static {gp_static}");
    assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
    assert!(node_stat(&r, "n0", "route_discoveries") >= 1.0);
    // Every station is static, on, and routes only to its chain neighbours
    // (200 m, within the 250 m receive range): every link failure the MAC
    // reports is a collision loss, a false route failure.
    assert!(col_sum(&r.nodes, "link_failures") > 0.0, "the loaded chain has link failures");
    for i in 0..=hops {
        let n = format!("n{i}");
        assert_eq!(node_stat(&r, &n, "false_route_failures"), node_stat(&r, &n, "link_failures"), "{n}");
    }
    assert!(static_r.nodes.column("routing_packets").is_none(), "static routing keeps the 802.11 columns only");
    assert!(static_r.summary.routing_overhead.is_none());
}

#[test]
fn aodv_messages_have_their_rfc_sizes_and_are_counted() {
    let r = run_toml(&chain(3, "10s", "aodv", "")).unwrap();
    // IP 20 + UDP 8 + RFC 3561 message: RREQ 24, RREP 20.
    for n in ["n0", "n1", "n2", "n3"] {
        assert_eq!(node_stat(&r, n, "rreq_bytes"), 52.0 * node_stat(&r, n, "rreq_sent"), "{n}");
        assert_eq!(node_stat(&r, n, "rrep_bytes"), 48.0 * node_stat(&r, n, "rrep_sent"), "{n}");
        let by_type: f64 =
            ["rreq", "rrep", "rerr", "hello"].iter().map(|k| node_stat(&r, n, &format!("{k}_sent"))).sum();
        assert_eq!(node_stat(&r, n, "routing_packets"), by_type);
    }
    assert!(node_stat(&r, "n0", "rreq_sent") >= 1.0);
    assert!(node_stat(&r, "n3", "rrep_sent") >= 1.0, "the destination answers");
    let bytes = col_sum(&r.nodes, "routing_bytes");
    assert_eq!(r.summary.routing_bytes, Some(bytes as u64));
    let overhead = bytes / col_sum(&r.flows, "bytes_delivered");
    assert!((r.summary.routing_overhead.unwrap() - overhead).abs() < 1e-12);
    // Same seed, same bytes.
    let again = run_toml(&chain(3, "10s", "aodv", "")).unwrap();
    assert_eq!(r.nodes.to_csv(), again.nodes.to_csv());
    assert_eq!(r.flows.to_csv(), again.flows.to_csv());
}

#[test]
fn aodv_routes_on_a_grid_are_shortest_hop_paths() {
    let (gw, gh) = (4, 4);
    let nodes = grid_nodes(gw, gh);
    // The expanding ring bounds a discovered path to the ring's TTL (5, then
    // 7), and every path between two grid nodes has the parity of their
    // grid distance: for distances 5 and 6 a discovery that succeeds in its
    // first ring can only find a shortest path.
    let flows = probe("g0_0", "g3_3", 0.0) + &probe("g3_0", "g0_2", 1.0);
    let mut w = build(&scenario("4s", "aodv", "", &nodes, &flows));
    w.run_until(3 * SEC);
    let xy = |n: u32| ((n as usize) % gw, (n as usize) / gw);
    let manhattan = |a: u32, b: u32| {
        let ((ax, ay), (bx, by)) = (xy(a), xy(b));
        ax.abs_diff(bx) + ay.abs_diff(by)
    };
    let idx = |x: usize, y: usize| (y * gw + x) as u32;
    for (src, dst) in [(idx(0, 0), idx(3, 3)), (idx(3, 0), idx(0, 2)), (idx(3, 3), idx(0, 0))] {
        // Walk the route hop by hop: every step is to a grid neighbour one
        // hop closer, and the hop counts agree with the grid distance.
        let mut at = src;
        let mut steps = 0;
        while at != dst {
            let r = aodv(&w, at as usize).routes();
            let e = r.iter().find(|e| e.0 == dst).unwrap_or_else(|| panic!("{at} has no route to {dst}"));
            assert_eq!(e.2 as usize, manhattan(at, dst), "hop count at {at} towards {dst}");
            assert_eq!(manhattan(e.1, dst) + 1, manhattan(at, dst), "{at} -> {} towards {dst}", e.1);
            at = e.1;
            steps += 1;
            assert!(steps <= 2 * (gw + gh), "a loop");
        }
        assert_eq!(steps, manhattan(src, dst));
    }
    let r = w.run();
    assert_eq!(r.summary.drops_ttl, 0);
    for f in 0..2 {
        assert!(r.flows.get("bytes_delivered", f).unwrap() > 0.0, "flow {f}");
    }
    // Two TCP flows across the grid at once.
    let r = run_toml(&scenario("20s", "aodv", "", &nodes, &(tcp("g0_0", "g3_3") + &tcp("g3_0", "g0_2")))).unwrap();
    assert_eq!(r.summary.drops_ttl, 0);
    for f in 0..2 {
        assert!(r.flows.get("bytes_delivered", f).unwrap() > 50_000.0, "flow {f}");
    }
}

/// A 2 x 6 ladder, the flow from one end of the bottom row to the other;
/// the node after the second hop of its route is switched off at 15 s.
/// The upstream node's MAC gives up, AODV sends route errors, a new
/// discovery (by the source, or by the receiver for its ACKs, which gives
/// the source a route too) finds a path around the dead node, and TCP
/// carries on.
#[test]
fn aodv_repairs_a_route_through_a_node_switched_off() {
    let (gw, gh) = (6, 2);
    let nodes = grid_nodes(gw, gh);
    let sc = scenario("45s", "aodv", "", &nodes, &tcp("g0_0", "g5_0"));
    let dst = 5u32;
    let off_at = 15 * SEC;
    let next = |w: &World, at: u32| aodv(w, at as usize).routes().into_iter().find(|e| e.0 == dst).map(|e| e.1);
    let mut w = build(&sc);
    w.run_until(off_at - 1);
    let first = next(&w, 0).expect("a route");
    let victim = next(&w, first).expect("a route");
    assert_ne!(victim, dst);
    let dev = w.nodes[victim as usize].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
    w.run_until(44 * SEC);
    // The route at the end goes around the dead node.
    let mut path = vec![0u32];
    while *path.last().unwrap() != dst {
        let hop = next(&w, *path.last().unwrap()).unwrap_or_else(|| panic!("no route on from {path:?}"));
        assert!(path.len() < nodes.len(), "a loop: {path:?}");
        path.push(hop);
    }
    assert!(!path.contains(&victim), "{path:?} still through {victim}");
    let r = w.run();
    // The same run cut at 15 s (deterministic: the same first 15 s).
    let by_15 = run_toml(&sc.replace("duration = \"45s\"", "duration = \"15s\""))
        .unwrap()
        .flows
        .get("bytes_delivered", 0)
        .unwrap();
    let total = r.flows.get("bytes_delivered", 0).unwrap();
    let vname = &nodes[victim as usize].0;
    println!(
        "switched off {vname}: {by_15} bytes by 15 s, {total} by 45 s; route then {path:?}; route errors {}, \
         discoveries {}, link failures {}, false route failures {}",
        col_sum(&r.nodes, "route_errors"),
        col_sum(&r.nodes, "route_discoveries"),
        col_sum(&r.nodes, "link_failures"),
        col_sum(&r.nodes, "false_route_failures"),
    );
    assert!(by_15 > 100_000.0);
    assert!(total - by_15 > 200_000.0, "TCP recovers: {} bytes after the break", total - by_15);
    assert!(col_sum(&r.nodes, "route_errors") >= 1.0, "a route error");
    assert!(col_sum(&r.nodes, "route_discoveries") >= 2.0, "a new discovery after the break");
    assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
    // Failures towards the dead node are real ones, not false.
    assert!(col_sum(&r.nodes, "false_route_failures") < col_sum(&r.nodes, "link_failures"));
}

/// A link failure flushes every packet queued for the lost neighbour,
/// the one the MAC took from the queue in the failure's own event too (it
/// was queued when the failure came; ns-2.35 flushes before its MAC asks
/// for the next packet). n0 saturates its queue towards n1 over one hop;
/// n1 goes dark at 5 s: n0's MAC fails once, and the packets after that
/// wait for a route that never comes, so no second frame goes to n1.
#[test]
fn a_link_failure_flushes_the_frame_the_mac_just_took_too() {
    let nodes = chain_nodes(1);
    let flow = "[[flow]]\nfrom = \"n0\"\nto = \"n1\"\ntransport = \"udp\"\npacket_size = 1000\n\
                app = { kind = \"cbr\", rate = \"1.6Mbps\", start = 0.0 }\n";
    for routing in ["aodv", "dsr"] {
        let mut w = build(&scenario("10s", routing, "", &nodes, flow));
        w.run_until(5 * SEC - 1);
        let victim = w.nodes[1].devices[0];
        w.devices[victim as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = 5 * SEC;
        let r = w.run();
        let (failures, flushed) = (node_stat(&r, "n0", "link_failures"), node_stat(&r, "n0", "drops_link_broken"));
        println!("{routing}: n0 link failures {failures}, flushed {flushed}");
        assert_eq!(failures, 1.0, "{routing}: a second frame went to the dark neighbour");
        // The failure is towards a neighbour whose radio is off: not false.
        assert_eq!(node_stat(&r, "n0", "false_route_failures"), 0.0, "{routing}");
        if routing == "aodv" {
            // The queue was full (50 packets) when the MAC gave up.
            assert!(flushed >= 45.0, "{routing}: {flushed} packets flushed");
        }
    }
}

/// `false_route_failures` counts a link failure as false only when the
/// neighbour is within receive range by geometry (and its radio is on).
/// DSR's cache is the one place a route can name a node beyond range
/// while it is in use: s (0, 0) knows only s -> a -> d, with a at 400 m
/// (beyond two-ray ground's 250 m receive range, within its 550 m
/// carrier-sense range, so a station of s's radio) and d at 200 m. s's MAC
/// gives up on a; that is a real failure, not a false one; s then finds
/// s -> d. With a at 200 m, in range but switched off, the failure is not
/// false either; with a in range and on, there is none.
#[test]
fn false_route_failures_leave_out_a_neighbour_beyond_receive_range() {
    let run = |a: (f64, f64), a_off: bool| {
        let nodes = vec![("s".to_string(), 0.0, 0.0), ("a".to_string(), a.0, a.1), ("d".to_string(), 200.0, 0.0)];
        let flow = "[[flow]]\nfrom = \"s\"\nto = \"d\"\ntransport = \"udp\"\npacket_size = 512\n\
                    app = { kind = \"cbr\", rate = \"8kbps\", start = 0.5, stop = 4.5 }\n";
        let mut w = build(&scenario("5s", "dsr", "", &nodes, flow));
        dsr_mut(&mut w, 0).add_route(vec![0, 1, 2]);
        if a_off {
            let dev = w.nodes[1].devices[0];
            w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = 0;
        }
        let r = w.run();
        (node_stat(&r, "s", "link_failures"), node_stat(&r, "s", "false_route_failures"), r)
    };
    let (failures, false_failures, r) = run((0.0, 400.0), false);
    println!("DSR route through a node 400 m away: {failures} link failures at s, {false_failures} false");
    assert!(failures >= 1.0, "s's MAC gave up on a");
    assert_eq!(false_failures, 0.0);
    assert!(false_failures < failures);
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0, "s found s -> d");
    let (failures, false_failures, _) = run((100.0, 100.0), true);
    assert!(failures >= 1.0);
    assert_eq!(false_failures, 0.0);
    let (failures, _, r) = run((100.0, 100.0), false);
    assert_eq!(failures, 0.0);
    assert_eq!(col_sum(&r.nodes, "false_route_failures"), 0.0);
}

/// The route buffer (64 packets, 30 s, as ns-2's rqueue): n0 sends UDP to
/// n1, 200 m away, whose radio is off from the start, so no route to it
/// ever comes (DSDV and OLSR never hear of it; DSR's and AODV's requests go
/// unanswered). Every packet is held. Arrivals `start + k interval` within
/// `duration`, expected from the parameters:
/// with `buffer_len` x interval shorter than `buffer_timeout`, no packet
/// lives out its timeout, the first `buffer_len` fill the buffer and every
/// later one pushes out the oldest (drops_no_route_buffer_full = sent -
/// buffer_len, the first exactly when packet `buffer_len` + 1 comes); with
/// fewer than `buffer_len` arrivals in any `buffer_timeout`, none is
/// pushed out and every packet that has waited `buffer_timeout` by the end
/// is dropped (drops_no_route_timeout, the first exactly `buffer_timeout`
/// after the first packet). AODV gives up its discovery after about 18 s
/// and drops what it holds (a failed discovery): it is in the short runs only.
#[test]
fn route_buffer_limits_drop_with_their_causes() {
    let ms = SEC / 1000;
    // (routing, [wireless.<routing>] keys, buffer_len, buffer_timeout)
    let defaults = (AodvParams::default().buffer_len, AodvParams::default().buffer_timeout);
    assert_eq!(defaults, (64, 30 * SEC), "ns-2's rqueue");
    assert_eq!((DsrParams::default().buffer_len, DsrParams::default().buffer_timeout), defaults);
    assert_eq!((OlsrParams::default().buffer_len, OlsrParams::default().buffer_timeout), defaults);
    let dsdv_p = tcplab_core::net::routing::DsdvParams::default();
    assert_eq!((dsdv_p.buffer_len, dsdv_p.buffer_timeout), defaults);
    let stat = |w: &World| {
        let s = w.nodes[0].routing.as_dyn().stats().expect("routing counters");
        (s.drops_buffer_full, s.drops_buffer_timeout, s.drops_discovery_failed)
    };
    for (routing, keys) in [("dsdv", ""), ("olsr", ""), ("dsr", ""), ("aodv", "")]
        .into_iter()
        .chain(["dsdv", "olsr", "dsr", "aodv"].map(|r| (r, "buffer_len = 10\nbuffer_timeout = \"5s\"")))
    {
        let (len, timeout) = if keys.is_empty() { defaults } else { (10, 5 * SEC) };
        // (interval, duration): a fast flow for a full buffer, a slow one
        // (more than timeout / buffer_len apart) for timeouts.
        let cases: &[(u64, u64)] =
            if routing == "aodv" { &[(100 * ms, 10 * SEC)] } else { &[(100 * ms, 10 * SEC), (700 * ms, 100 * SEC)] };
        for &(interval, duration) in cases {
            let start = 50 * ms;
            let sent = (duration - start).div_ceil(interval);
            let arrival = |k: u64| start + k * interval;
            let (full, timed_out) = if len as u64 * interval < timeout {
                (sent.saturating_sub(len as u64), 0)
            } else {
                assert!(timeout / interval < len as u64, "a case between the two");
                (0, (0..sent).filter(|&k| arrival(k) + timeout < duration).count() as u64)
            };
            let flow = format!(
                "[[flow]]\nfrom = \"n0\"\nto = \"n1\"\ntransport = \"udp\"\npacket_size = 512\n\
                 app = {{ kind = \"cbr\", interval = \"{}ms\", start = \"{}ms\" }}\n",
                interval / ms,
                start / ms
            );
            let extra = if keys.is_empty() { String::new() } else { format!("[wireless.{routing}]\n{keys}") };
            let sc = scenario(&format!("{}s", duration / SEC), routing, &extra, &chain_nodes(1), &flow);
            let mut w = build(&sc);
            let dev = w.nodes[1].devices[0];
            w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = 0;
            let what = format!("{routing} {keys:?} every {} ms", interval / ms);
            // The first drop comes exactly with packet len + 1, or exactly
            // `timeout` after the first packet.
            if full > 0 {
                w.run_until(arrival(len as u64) - 1);
                assert_eq!(stat(&w), (0, 0, 0), "{what}: before packet {}", len + 1);
                w.run_until(arrival(len as u64));
                assert_eq!(stat(&w), (1, 0, 0), "{what}: at packet {}", len + 1);
            } else {
                w.run_until(start + timeout - 1);
                assert_eq!(stat(&w).1, 0, "{what}: before the first timeout");
                w.run_until(start + timeout);
                assert_eq!(stat(&w).1, 1, "{what}: the first timeout");
            }
            let r = w.run();
            println!(
                "{what}: sent {}, buffer full {}, timeout {} (expected {sent}, {full}, {timed_out})",
                r.flows.get("packets_sent", 0).unwrap(),
                node_stat(&r, "n0", "drops_no_route_buffer_full"),
                node_stat(&r, "n0", "drops_no_route_timeout"),
            );
            assert_eq!(r.flows.get("packets_sent", 0).unwrap(), sent as f64, "{what}");
            assert_eq!(r.flows.get("bytes_delivered", 0).unwrap(), 0.0, "{what}");
            assert_eq!(node_stat(&r, "n0", "drops_no_route_buffer_full"), full as f64, "{what}");
            assert_eq!(node_stat(&r, "n0", "drops_no_route_timeout"), timed_out as f64, "{what}");
            assert_eq!(node_stat(&r, "n0", "drops_no_route_discovery_failed"), 0.0, "{what}");
        }
    }
}

/// One 512-byte UDP packet at 8 kbit/s from n0 to the chain's last node.
fn slow_cbr_to_the_end(hops: usize) -> String {
    format!(
        "[[flow]]\nfrom = \"n0\"\nto = \"n{hops}\"\ntransport = \"udp\"\npacket_size = 512\n\
         app = {{ kind = \"cbr\", rate = \"8kbps\", start = 0.0 }}\n"
    )
}

/// ns-2.35's network diameter of 30 bounds how far a route request
/// travels: a 40-hop destination is never found; with 64 it is.
#[test]
fn aodv_net_diameter_bounds_the_reach_of_a_discovery() {
    let hops = 40;
    let nodes = chain_nodes(hops);
    let flow = slow_cbr_to_the_end(hops);
    let far = run_toml(&scenario("30s", "aodv", "[wireless.aodv]\nnet_diameter = 64", &nodes, &flow)).unwrap();
    let near = run_toml(&scenario("30s", "aodv", "", &nodes, &flow)).unwrap();
    let (got_far, got_near) =
        (far.flows.get("bytes_delivered", 0).unwrap(), near.flows.get("bytes_delivered", 0).unwrap());
    println!(
        "40 hops: net_diameter 64 delivers {got_far} bytes; 30 delivers {got_near}, drops after failed discoveries {}",
        node_stat(&near, "n0", "drops_no_route_discovery_failed")
    );
    assert!(got_far > 0.5 * 30.0 * 1000.0 * 0.5, "{got_far}");
    assert_eq!(got_near, 0.0);
    assert!(node_stat(&near, "n0", "drops_no_route_discovery_failed") > 0.0);
    assert_eq!(node_stat(&near, &format!("n{hops}"), "rrep_sent"), 0.0, "the request never got there");
    // Below TTL_THRESHOLD the expanding ring is capped too (a fresh user
    // found 6 hops reached with net_diameter = 3: rings of TTL 5 and 7).
    let six = slow_cbr_to_the_end(6);
    let capped = run_toml(&scenario("30s", "aodv", "[wireless.aodv]\nnet_diameter = 3", &chain_nodes(6), &six));
    let capped = capped.unwrap();
    assert_eq!(capped.flows.get("bytes_delivered", 0).unwrap(), 0.0);
    assert_eq!(node_stat(&capped, "n6", "rrep_sent"), 0.0, "a request went beyond net_diameter");
    let reach = run_toml(&scenario("30s", "aodv", "[wireless.aodv]\nnet_diameter = 6", &chain_nodes(6), &six));
    assert!(reach.unwrap().flows.get("bytes_delivered", 0).unwrap() > 0.0);
}

#[test]
fn aodv_keys_are_validated() {
    let bad = chain(2, "1s", "static", "[wireless.aodv]\nnet_diameter = 64");
    let Err(e) = Scenario::from_toml_str(&bad) else { panic!("aodv table without aodv routing") };
    assert!(e.to_string().contains("wireless.aodv"), "{e}");
    refused_keys(
        "aodv",
        &[
            ("net_diameter = 0", "wireless.aodv.net_diameter"),
            ("net_diamter = 64", "net_diamter"),
            ("ns2_per_hop_time = \"yes\"", "ns2_per_hop_time"),
            ("ns2_local_repair = true", "wireless.aodv.ns2_local_repair"),
            ("retry_ticks = \"soon\"", "retry_ticks"),
            ("ns2_route_errors = 1", "ns2_route_errors"),
            ("release_spacing = \"-1ms\"", "release_spacing"),
            ("ns2_lifetimes = \"on\"", "ns2_lifetimes"),
            ("ns2_data_ttl = 30", "ns2_data_ttl"),
        ],
    );
}

/// AODV's HELLO option (`hello = true`, RFC 3561 6.9): every node
/// broadcasts a HELLO (an RREP about itself, TTL 1: IP 20 + UDP 8 + 20
/// bytes) every `hello_interval`, so about duration / interval of them per
/// node; none without the option. A neighbour not heard for
/// `allowed_hello_loss` intervals is gone, found without any data towards
/// it: on a chain n0 .. n3 a flow n0 -> n3 sets up the routes and stops at
/// 5 s; n2 goes dark at 6 s. n1 last heard n2 within an interval before
/// that, so it declares the link broken (route to n3 down, a route error to
/// its precursor n0) between (loss - 1) and loss intervals after 6 s,
/// long before the route's lifetime (10 s after its last use) ends.
/// Without HELLOs nothing tells n1: its route to n3 stays up and it sends
/// no route error.
#[test]
fn aodv_hellos_are_sent_every_interval_and_find_a_silent_neighbour() {
    let loss = AodvParams::default().allowed_hello_loss as u64;
    assert_eq!(loss, 3);
    let duration = 20u64;
    for (keys, interval) in [("hello = true", SEC), ("hello = true\nhello_interval = \"0.5s\"", SEC / 2), ("", 0)] {
        let r = run_toml(&scenario(
            &format!("{duration}s"),
            "aodv",
            &format!("[wireless.aodv]\n{keys}"),
            &chain_nodes(3),
            "",
        ))
        .unwrap();
        for i in 0..=3 {
            let n = format!("n{i}");
            let hellos = node_stat(&r, &n, "hello_sent");
            assert_eq!(node_stat(&r, &n, "hello_bytes"), 48.0 * hellos, "{keys:?} {n}");
            match (duration * SEC).checked_div(interval) {
                None => assert_eq!(hellos, 0.0, "no HELLOs without the option ({n})"),
                Some(expect) => {
                    let expect = expect as f64;
                    assert!((hellos - expect).abs() <= 1.0, "{keys:?} {n}: {hellos} HELLOs, expected {expect}");
                }
            }
        }
    }
    let flow = "[[flow]]\nfrom = \"n0\"\nto = \"n3\"\ntransport = \"udp\"\npacket_size = 512\n\
                app = { kind = \"cbr\", rate = \"8kbps\", start = 0.5, stop = 5.0 }\n";
    let off_at = 6 * SEC;
    let step = 10 * SEC / 1000;
    let watch = |keys: &str, until: u64| {
        let mut w = build(&scenario("20s", "aodv", keys, &chain_nodes(3), flow));
        w.run_until(off_at - 1);
        assert_eq!(aodv(&w, 1).valid(3, off_at - 1).map(|r| r.0), Some(2), "{keys:?}: n1's route to n3");
        assert_eq!(aodv(&w, 1).stats.route_errors, 0, "{keys:?}");
        let dev = w.nodes[2].devices[0];
        w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
        let mut t = off_at;
        while t < until {
            t += step;
            w.run_until(t);
            if aodv(&w, 1).stats.route_errors > 0 {
                return (Some(t), aodv(&w, 1).valid(3, t));
            }
        }
        (None, aodv(&w, 1).valid(3, t))
    };
    let hello = SEC;
    let (found, route) = watch("[wireless.aodv]\nhello = true", off_at + (loss + 1) * hello);
    let found = found.expect("n1 noticed the silent n2");
    println!("AODV HELLO: n1 declared n2 gone at {:.2} s (dark from 6 s)", found as f64 / SEC as f64);
    assert!(found > off_at + (loss - 1) * hello, "too early: {found}");
    assert!(found <= off_at + loss * hello + step, "too late: {found}");
    assert_eq!(route, None, "the route through n2 is down");
    let (found, route) = watch("", off_at + (loss + 1) * hello);
    assert_eq!(found, None, "without HELLOs n1 cannot know");
    assert_eq!(route.map(|r| r.0), Some(2), "its route to n3 is still up");
}

/// The interface queue each scenario gets: ns-2.35's DSR runs only over its
/// CMUPriQueue, so the ns2 profile gives DSR that queue unless the scenario
/// names one; everything else gets the PriQueue. A zero limit or an unknown
/// kind is refused naming the key.
#[test]
fn dsr_under_the_ns2_profile_gets_ns2s_cmu_queue_unless_one_is_named() {
    use tcplab_core::wireless::IfqKind;
    let queue_at = |text: String| {
        let w = build(&text);
        let dev = w.nodes[1].devices[0];
        let q = &w.devices[dev as usize].as_dyn().as_any().downcast_ref::<Dcf>().unwrap().queue;
        (q.kind(), q.ns2_limits())
    };
    let kind_at = |text: String| queue_at(text).0;
    let without_ifq = |routing: &str, extra: &str| {
        chain(2, "1s", routing, extra).replace("ifq = { kind = \"priqueue\", limit = 50 }\n", "")
    };
    assert_eq!(kind_at(without_ifq("dsr", "profile = \"ns2\"")), IfqKind::Cmu);
    assert_eq!(kind_at(without_ifq("dsr", "")), IfqKind::Pri);
    assert_eq!(kind_at(without_ifq("aodv", "profile = \"ns2\"")), IfqKind::Pri);
    assert_eq!(kind_at(chain(2, "1s", "dsr", "profile = \"ns2\"")), IfqKind::Pri, "a named queue wins");
    // ns-2's PriQueue counting comes with the profile, or by its key.
    assert!(queue_at(chain(2, "1s", "aodv", "profile = \"ns2\"")).1);
    assert!(!queue_at(chain(2, "1s", "aodv", "")).1);
    let counted = chain(2, "1s", "aodv", "").replace("limit = 50 }", "limit = 50, ns2_limits = true }");
    assert!(queue_at(counted).1);
    let cmu = chain(2, "1s", "aodv", "").replace("kind = \"priqueue\"", "kind = \"cmupriqueue\"");
    assert_eq!(kind_at(cmu.clone()), IfqKind::Cmu);
    // A bad value, an unknown kind, and a PriQueue key on the CMU queue:
    // one line naming the key.
    for (bad, good, key) in [
        ("limit = 50", "limit = 0", "wireless.ifq.limit"),
        ("kind = \"cmupriqueue\"", "kind = \"fifo\"", "wireless.ifq.kind"),
        ("limit = 50", "limit = 50, ns2_limits = true", "wireless.ifq.ns2_limits"),
    ] {
        let Err(e) = Scenario::from_toml_str(&cmu.replace(bad, good)) else { panic!("{good} accepted") };
        assert!(e.to_string().contains(key), "{e}");
    }
}

/// Each `[wireless.<routing>]` line is refused with an error naming `key`.
fn refused_keys(routing: &str, cases: &[(&str, &str)]) {
    for (extra, key) in cases {
        let bad = chain(2, "1s", routing, &format!("[wireless.{routing}]\n{extra}"));
        let Err(e) = Scenario::from_toml_str(&bad) else { panic!("{extra} accepted") };
        assert!(e.to_string().contains(key), "{extra}: {e}");
    }
}

/// The chains of validation/wifi_chain_ns2.py (250 m apart, the flow from
/// 1 s, 100 s measured) with AODV (or the protocol in TCPLAB_ROUTING), per
/// hop count and seed: the tcplab side of the ns-2.35 comparison in
/// docs/validation.md.
/// `cargo test --release --test adhoc chain_table -- --ignored --nocapture`
#[test]
#[ignore]
fn aodv_chain_table_for_the_ns2_comparison() {
    let routing = std::env::var("TCPLAB_ROUTING").unwrap_or_else(|_| "aodv".into());
    // More TOML for [wireless], e.g. "[wireless.dsdv]\nuse_mac_failures = false".
    let extra = std::env::var("TCPLAB_EXTRA").unwrap_or_default().replace("\\n", "\n");
    for hops in 1..=7 {
        for seed in 1..=3 {
            let nodes: Vec<(String, f64, f64)> = (0..=hops).map(|i| (format!("n{i}"), 250.0 * i as f64, 0.0)).collect();
            let flow = format!(
                "[[flow]]\nfrom = \"n0\"\nto = \"n{hops}\"\ntransport = \"newreno\"\npacket_size = 1460\nwindow = 32\n\
                 app = {{ kind = \"bulk\", start = 1.0 }}\n"
            );
            let sc = scenario("101s", &routing, &extra, &nodes, &flow).replace("seed = 1", &format!("seed = {seed}"));
            let r = run_toml(&sc).unwrap();
            println!(
                "hops {hops} seed {seed} goodput_bps {:.0} retransmits {} timeouts {} routing_packets {} mac_drops {} \
                 link_broken_drops {} wall_s {:.3}",
                r.flows.get("goodput_bps", 0).unwrap(),
                r.flows.get("retransmits", 0).unwrap(),
                r.flows.get("timeouts", 0).unwrap(),
                col_sum(&r.nodes, "routing_packets"),
                col_sum(&r.nodes, "drops_retry_limit"),
                col_sum(&r.nodes, "drops_link_broken"),
                r.summary.wall_s,
            );
        }
    }
}

// ---- DSDV ---------------------------------------------------------------

/// After the first full dumps have spread (each node dumps once in its
/// first 15 s, then every 11.25-15 s), every node of a 7-hop chain has a
/// route to every other along the chain, with the chain's hop counts, and
/// TCP runs over it.
#[test]
fn dsdv_converges_on_a_chain_after_its_periodic_updates() {
    let hops = 7;
    let mut w = build(&scenario("40s", "dsdv", "", &chain_nodes(hops), &probe("n0", "n7", 35.0)));
    w.run_until(35 * SEC);
    for i in 0..=hops {
        let r = routes(&w, i);
        assert_eq!(r.len(), hops, "n{i} knows every other node: {r:?}");
        for &(d, next, h) in &r {
            let d = d as usize;
            let expect_next = if d > i { i + 1 } else { i - 1 };
            assert_eq!((next as usize, h as usize), (expect_next, d.abs_diff(i)), "n{i} towards n{d}");
        }
    }
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    assert!(node_stat(&r, "n0", "dsdv_full_sent") >= 2.0);
    assert_eq!(node_stat(&r, "n0", "route_discoveries"), 0.0, "DSDV discovers nothing on demand");
    // TCP from the start: its first packets wait in the route buffer until
    // the dumps bring a route.
    let r = run_toml(&chain(hops, "60s", "dsdv", "")).unwrap();
    let gp = col_sum(&r.flows, "goodput_bps");
    println!(
        "7 hops DSDV: goodput {gp:.0} bit/s, routing packets {}, overhead {:.4}, \
         link failures {}, false route failures {}",
        col_sum(&r.nodes, "routing_packets"),
        r.summary.routing_overhead.unwrap(),
        col_sum(&r.nodes, "link_failures"),
        col_sum(&r.nodes, "false_route_failures"),
    );
    assert!(gp > 0.0, "{gp}");
    assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
}

/// When a 4-hop chain's source first has a route to the far end: by
/// default within a few seconds (every node dumps its table within ns-2's
/// 2 s startup jitter and a new route goes out at once); with
/// `ns2_advertising` (ns-2.35's rule) a newly heard destination is
/// advertised only 2 x 6 s after it was heard, at every hop, so not before
/// 36 s, and a route whose sequence number was refreshed is held back
/// again, even from full dumps. docs/validation.md ("ns-2's DSDV: why the
/// first route takes a minute") has ns-2.35's own times.
#[test]
fn dsdv_first_route_with_and_without_ns2_advertising() {
    let hops = 4;
    let first_route = |extra: &str| -> Option<u64> {
        let mut w = build(&scenario("150s", "dsdv", extra, &chain_nodes(hops), &probe("n0", "n4", 140.0)));
        (1..=150u64).find(|&t| {
            w.run_until(t * SEC);
            routes(&w, 0).iter().any(|&(d, next, h)| (d, next, h) == (hops as u32, 1, hops as u8))
        })
    };
    let plain = first_route("").expect("a route");
    assert!(plain <= 3, "default: the source's route after {plain} s");
    let gated = first_route("[wireless.dsdv]\nns2_advertising = true").expect("a route within 150 s");
    println!("4-hop chain, first route to the far end: {plain} s, with ns2_advertising {gated} s");
    assert!(gated > 36, "ns-2's rule holds a new route 12 s per hop: {gated} s");
    let bad = chain(2, "1s", "dsdv", "[wireless.dsdv]\nns2_advertising = 1");
    let Err(e) = Scenario::from_toml_str(&bad) else { panic!("ns2_advertising = 1 accepted") };
    assert!(e.to_string().contains("wireless.dsdv.ns2_advertising"), "{e}");
    let bad = chain(2, "1s", "dsdv", "[wireless.dsdv]\nns2_queue = \"yes\"");
    let Err(e) = Scenario::from_toml_str(&bad) else { panic!("ns2_queue = \"yes\" accepted") };
    assert!(e.to_string().contains("wireless.dsdv.ns2_queue"), "{e}");
}

/// DSDV's order of routes: a newer sequence number wins, then a smaller
/// metric (sequence numbers compared with wrap-around, as the protocol).
fn dsdv_newer(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

fn dsdv(w: &World, n: usize) -> &Dsdv {
    w.nodes[n].routing.as_dyn().as_any().downcast_ref::<Dsdv>().expect("a DSDV node")
}

/// On a grid every node learns a route to every other, following the next
/// hops from any node reaches the destination without a loop, and every
/// route is the shortest hop path unless DSDV's rules keep a longer one for
/// now. A destination's new sequence number is taken at once over
/// whatever path it arrives first (the settling time delays advertising a
/// route, not using it), and a node's new number travels one hop per full
/// dump of each relay; so a route can be longer than the shortest while no
/// neighbour on a shorter path has yet dumped that number. Traced at 1 ms
/// with seed 1: at 45 s g1_2 (9) goes 4 hops to g1_0 (1) with g1_0's number
/// 8, which g2_2 dumped at 43.35 s; g1_1 (5), one hop from g1_0, got 8 at
/// 39.58 s, 0.1 s after its own dump, and dumps next after 45 s. The check
/// is the protocol's rule itself: the whole run is followed at 1 ms, and
/// at 45 s every route must be at least as good (newer number, or the same
/// number and a metric no larger) as what each neighbour advertised in a
/// full dump made after its entry last changed; every longer route must
/// be one of those the shorter neighbours have not advertised yet.
#[test]
fn dsdv_routes_on_a_grid_reach_every_node_without_loops() {
    let (gw, gh) = (4, 4);
    let n = gw * gh;
    let nodes = grid_nodes(gw, gh);
    let mut w = build(&scenario("50s", "dsdv", "", &nodes, &probe("g0_0", "g3_3", 45.0)));
    let xy = |a: usize| (a % gw, a / gw);
    let dist = |a: usize, b: usize| {
        let ((ax, ay), (bx, by)) = (xy(a), xy(b));
        ax.abs_diff(bx) + ay.abs_diff(by)
    };
    // Per node, the ms of its last full dump; per (node, destination), its
    // entry and the ms it took that value.
    let end_ms = 45_000u64;
    let mut dumps = vec![0u64; n];
    let mut dumped_at = vec![0u64; n];
    type Since = (Option<(u32, u8, u32)>, u64);
    let mut since: Vec<Vec<Since>> = vec![vec![(None, 0); n]; n];
    for ms in 1..=end_ms {
        w.run_until(ms * SEC / 1000);
        for x in 0..n {
            let d = dsdv(&w, x);
            if d.stats.sent[0] != dumps[x] {
                dumps[x] = d.stats.sent[0];
                dumped_at[x] = ms;
            }
            for (y, s) in since[x].iter_mut().enumerate() {
                let e = d.entry(y as u32);
                if e != s.0 {
                    *s = (e, ms);
                }
            }
        }
    }
    // What neighbour z last advertised about d in a full dump (its own
    // entry at metric 0), if that dump came after the entry took its value
    // and long enough before the end to have been heard.
    let advertised = |z: usize, d: usize| -> Option<(u32, u8)> {
        if dumped_at[z] == 0 || dumped_at[z] + 50 > end_ms {
            return None;
        }
        if z == d {
            return Some((dsdv(&w, z).own_seq(), 0));
        }
        match since[z][d] {
            (Some((_, m, s)), at) if at < dumped_at[z] => Some((s, m)),
            _ => None,
        }
    };
    let (mut pairs, mut shortest) = (0, 0);
    for a in 0..n {
        let r = routes(&w, a);
        assert_eq!(r.len(), n - 1, "node {a}: {r:?}");
        for &(d, next, h) in &r {
            let d = d as usize;
            let (_, _, seq) = dsdv(&w, a).entry(d as u32).expect("an entry");
            // DSDV's rule against every neighbour's last full dump.
            let mut unadvertised_shorter = true;
            for z in (0..n).filter(|&z| dist(a, z) == 1) {
                let Some((zs, zm)) = advertised(z, d) else { continue };
                let at_least_as_good = dsdv_newer(seq, zs) || (seq == zs && h <= zm.saturating_add(1));
                assert!(
                    at_least_as_good,
                    "{a} -> {d}: {h} hops with number {seq}, but {z} dumped {zm} hops with number {zs}"
                );
                if dist(z, d) + 1 == dist(a, d) && (zs, zm as usize + 1) == (seq, dist(a, d)) {
                    unadvertised_shorter = false;
                }
            }
            if h as usize != dist(a, d) {
                assert!(
                    h as usize > dist(a, d) && unadvertised_shorter,
                    "{a} -> {d}: {h} hops (next {next}) with number {seq}, grid distance {}",
                    dist(a, d)
                );
            }
            // Walk it.
            let mut at = a;
            let mut steps = 0;
            while at != d {
                at = routes(&w, at).iter().find(|e| e.0 as usize == d).expect("a route on").1 as usize;
                steps += 1;
                assert!(steps <= n, "a loop from {a} towards {d}");
            }
            pairs += 1;
            shortest += usize::from(steps == dist(a, d) && h as usize == dist(a, d));
        }
    }
    println!("DSDV grid at 45 s: {shortest} of {pairs} routes are shortest hop paths");
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    assert_eq!(r.summary.drops_ttl, 0);
}

/// tcplab's side of docs/validation.md's table "ns-2's DSDV: why the first
/// route takes a minute": on the chains of validation/wifi_chain_ns2.py
/// (TCP from 1 s, seeds 1-3) with MAC failures ignored and ns-2.35's
/// advertising rule, when the source first has a route to the destination
/// and the destination one back (to 0.1 s), per hop count.
/// `cargo test --release -p tcplab-core --test adhoc dsdv_first_route_table -- --ignored --nocapture`
#[test]
#[ignore]
fn dsdv_first_route_table() {
    let extra = "[wireless.dsdv]\nuse_mac_failures = false\nns2_advertising = true";
    for hops in 1..=7usize {
        let mut row = Vec::new();
        for seed in 1..=3 {
            let flow = format!(
                "[[flow]]\nfrom = \"n0\"\nto = \"n{hops}\"\ntransport = \"newreno\"\npacket_size = 1460\nwindow = 32\n\
                 app = {{ kind = \"bulk\", start = 1.0 }}\n"
            );
            let sc = scenario("101s", "dsdv", extra, &chain_nodes(hops), &flow)
                .replace("seed = 1", &format!("seed = {seed}"));
            let mut w = build(&sc);
            let has = |w: &World, from: usize, to: usize| routes(w, from).iter().any(|e| e.0 == to as u32);
            let (mut fwd, mut back) = (None, None);
            for tenth in 1..=1010u64 {
                w.run_until(tenth * SEC / 10);
                fwd = fwd.or(has(&w, 0, hops).then_some(tenth as f64 / 10.0));
                back = back.or(has(&w, hops, 0).then_some(tenth as f64 / 10.0));
                if fwd.is_some() && back.is_some() {
                    break;
                }
            }
            row.push(format!("seed {seed}: {fwd:?} / {back:?}"));
        }
        println!("hops {hops}: first route source -> destination / back (s): {}", row.join(", "));
    }
}

/// The node at the end of the route's second hop goes dark at 40 s: with MAC
/// failures in use the upstream node advertises the broken route (odd
/// sequence number) at once, the next dumps bring a way around it, and TCP
/// carries on.
#[test]
fn dsdv_repairs_a_route_through_a_node_switched_off() {
    let (gw, gh) = (6, 2);
    let nodes = grid_nodes(gw, gh);
    let dst = 5u32;
    let off_at = 40 * SEC;
    let outcome = |extra: &str| {
        let sc = scenario("120s", "dsdv", extra, &nodes, &tcp("g0_0", "g5_0"));
        let next = |w: &World, at: u32| routes(w, at as usize).into_iter().find(|e| e.0 == dst).map(|e| e.1);
        let mut w = build(&sc);
        // The route's second hop as last seen before the switch-off (with
        // MAC failures a false route failure can leave the source without
        // a route for a few seconds at any given moment).
        let mut seen = None;
        for tenth in 300..400 {
            w.run_until(tenth * SEC / 10);
            if let Some(first) = next(&w, 0) {
                seen = next(&w, first).or(seen);
            }
        }
        w.run_until(off_at - 1);
        let victim = seen.expect("a route before the switch-off");
        assert_ne!(victim, dst);
        let dev = w.nodes[victim as usize].devices[0];
        w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
        w.run_until(119 * SEC);
        // The route at the end, if there is one at this instant, goes around.
        let mut path = vec![0u32];
        while let Some(hop) = next(&w, *path.last().unwrap()) {
            path.push(hop);
            if hop == dst {
                break;
            }
            assert!(path.len() <= nodes.len(), "a loop: {path:?}");
        }
        assert!(!path.contains(&victim), "{path:?} still through {victim}");
        let r = w.run();
        let by_off = run_toml(&sc.replace("duration = \"120s\"", "duration = \"40s\""))
            .unwrap()
            .flows
            .get("bytes_delivered", 0)
            .unwrap();
        let after = r.flows.get("bytes_delivered", 0).unwrap() - by_off;
        println!(
            "DSDV {extra:?}: {by_off} bytes by 40 s, {after} after; route then {path:?}; triggered updates {}",
            col_sum(&r.nodes, "dsdv_incremental_sent")
        );
        assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
        (by_off, after)
    };
    let (before, after) = outcome("");
    assert!(before > 100_000.0);
    assert!(after > 500_000.0, "TCP recovers: {after} bytes after the break");
    // ns-2.35's default: the dead neighbour is given up after three silent
    // periodic intervals instead, and the flow still recovers.
    let (_, after_slow) = outcome("[wireless.dsdv]\nuse_mac_failures = false");
    assert!(after_slow > 100_000.0, "{after_slow}");
}

/// A broken route is advertised with an infinite metric and the next (odd)
/// sequence number, which only the destination's next even number
/// overrides. A 6 x 2 ladder carries a light UDP flow g0_0 -> g5_0; the
/// node after the source's first hop goes dark at 40 s. The node sending
/// the flow to it (the upstream neighbour: the first hop, or whichever
/// relay the route has moved to) has its MAC give up on the next packet:
/// every entry it had through the dark node becomes infinite with its even
/// number + 1, a triggered update goes out at once, and each of its
/// neighbours that knew an older number takes the broken route from it.
/// Later the destination's next even number brings the source a finite
/// route around the dark node; the dark node's own route stays broken (no
/// one can give it a newer number).
#[test]
fn dsdv_advertises_a_broken_route_with_an_odd_number_until_a_newer_even_one() {
    use tcplab_core::net::routing::dsdv::INFINITY;
    let (gw, gh) = (6, 2);
    let nodes = grid_nodes(gw, gh);
    let n = nodes.len();
    let dst = 5u32;
    let off_at = 40 * SEC;
    let ms = SEC / 1000;
    let mut w = build(&scenario("80s", "dsdv", "", &nodes, &probe("g0_0", "g5_0", 1.0)));
    w.run_until(off_at - 1);
    let first = dsdv(&w, 0).entry(dst).expect("a route").0 as usize;
    let victim = dsdv(&w, first).entry(dst).expect("a route").0;
    assert_ne!(victim, dst);
    let dev = w.nodes[victim as usize].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
    let tables = |w: &World| -> Vec<Vec<Option<(u32, u8, u32)>>> {
        (0..n).map(|a| (0..n as u32).map(|d| dsdv(w, a).entry(d)).collect()).collect()
    };
    let mac_failures = |w: &World, a: usize| {
        let dev = w.nodes[a].devices[0];
        w.devices[dev as usize].as_dyn().as_any().downcast_ref::<Dcf>().unwrap().stats.link_failures
    };
    let dist = |a: usize, b: usize| (a % gw).abs_diff(b % gw) + (a / gw).abs_diff(b / gw);
    // Step 1 ms at a time until a node breaks its own link to the dark
    // node; keep every table of the step before.
    let mut before = tables(&w);
    let mut failures: Vec<u64> = (0..n).map(|a| mac_failures(&w, a)).collect();
    let mut incrementals: Vec<u64> = (0..n).map(|a| dsdv(&w, a).stats.sent[1]).collect();
    let mut t = off_at;
    let up = loop {
        t += ms;
        assert!(t < off_at + 2 * SEC, "no break within 2 s of the switch-off");
        w.run_until(t);
        if let Some(a) = (0..n).find(|&a| dsdv(&w, a).entry(victim).is_some_and(|e| e.0 == victim && e.1 >= INFINITY)) {
            break a;
        }
        before = tables(&w);
        failures = (0..n).map(|a| mac_failures(&w, a)).collect();
        incrementals = (0..n).map(|a| dsdv(&w, a).stats.sent[1]).collect();
    };
    let broke_at = t;
    assert!(mac_failures(&w, up) > failures[up], "{up}'s MAC reported the failure");
    let broken: Vec<u32> =
        (0..n as u32).filter(|&d| before[up][d as usize].is_some_and(|e| e.0 == victim && e.1 < INFINITY)).collect();
    assert!(broken.contains(&victim) && broken.contains(&dst), "{broken:?}");
    let mut odd = vec![0u32; n];
    for &d in &broken {
        let was = before[up][d as usize].unwrap();
        let now = dsdv(&w, up).entry(d).unwrap();
        assert_eq!(was.2 % 2, 0, "{up} -> {d} was {was:?}");
        assert_eq!(now, (victim, INFINITY, was.2 + 1), "{up} -> {d} after the break (was {was:?})");
        odd[d as usize] = was.2 + 1;
    }
    // Its triggered update (after at most 10 ms of jitter) reaches its
    // neighbours, followed at 1 ms for 50 ms: a neighbour's first change
    // to each broken destination it knew with an older number than the odd
    // one is to take the broken route from `up`, unless the destination's
    // next even number reaches it first (which the odd one cannot
    // override). The dark node gives no newer number: that one must go.
    let receivers: Vec<usize> = (0..n).filter(|&r| dist(r, up) == 1 && r != victim as usize).collect();
    let mut seen: Vec<Vec<Vec<(u32, u8, u32)>>> = vec![vec![Vec::new(); n]; n];
    for step in 0..=50 {
        w.run_until(broke_at + step * ms);
        for &r in &receivers {
            for &d in &broken {
                seen[r][d as usize].push(dsdv(&w, r).entry(d).unwrap());
            }
        }
    }
    assert!(dsdv(&w, up).stats.sent[1] > incrementals[up], "a triggered update from {up}");
    let mut taken = Vec::new();
    for &r in &receivers {
        for &d in &broken {
            let Some(was) = before[r][d as usize] else { continue };
            let change = seen[r][d as usize].iter().find(|&&e| e != was).copied();
            if dsdv_newer(odd[d as usize], was.2) {
                let change = change.unwrap_or_else(|| panic!("{r} -> {d}: kept {was:?}"));
                if change == (up as u32, INFINITY, odd[d as usize]) {
                    taken.push((r, d));
                } else {
                    assert!(
                        d != victim && dsdv_newer(change.2, odd[d as usize]),
                        "{r} -> {d}: {was:?} became {change:?}"
                    );
                }
            } else {
                assert!(change.is_none_or(|e| e.2 != odd[d as usize]), "{r} -> {d}: a broken route over {was:?}");
            }
        }
    }
    println!(
        "DSDV: {victim} dark at 40 s, {up} broke {broken:?} at {:.3} s; its neighbours took (node, destination) \
         {taken:?} as broken",
        broke_at as f64 / SEC as f64
    );
    assert!(receivers.iter().any(|&r| taken.contains(&(r, victim))), "{taken:?}");
    // The source: broken until the destination's next even number, then a
    // finite route with it, around the dark node.
    let mut t = broke_at;
    let repaired = loop {
        t += SEC / 10;
        assert!(t < 75 * SEC, "no new route to {dst} by 75 s");
        w.run_until(t);
        let e = dsdv(&w, 0).entry(dst).unwrap();
        if e.1 < INFINITY && dsdv_newer(e.2, odd[dst as usize]) {
            break e;
        }
    };
    assert_eq!(repaired.2 % 2, 0, "{repaired:?}");
    let mut at = 0u32;
    let mut path = vec![0u32];
    while at != dst {
        at = dsdv(&w, at as usize).entry(dst).filter(|e| e.1 < INFINITY).expect("a route on").0;
        path.push(at);
        assert!(path.len() <= n, "a loop: {path:?}");
    }
    assert!(!path.contains(&victim), "{path:?}");
    w.run_until(75 * SEC);
    let dark = dsdv(&w, 0).entry(victim).unwrap();
    assert!(dark.1 >= INFINITY && dark.2 % 2 == 1, "the dark node's route stays broken: {dark:?}");
}

/// The AODV example scenario parses, validates and runs.
#[test]
fn aodv_example_scenario_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let text = std::fs::read_to_string(dir.join("aodv-chain.toml")).unwrap();
    let r = run_toml(&text.replace("duration = \"100s\"", "duration = \"10s\"")).unwrap();
    assert!(col_sum(&r.flows, "goodput_bps") > 50_000.0, "{}", r.flows.to_csv());
    assert_eq!(r.nodes.rows(), 8);
    assert!(col_sum(&r.nodes, "rreq_sent") >= 1.0);
}

// ---- DSR ----------------------------------------------------------------

/// The source finds the chain route on demand and every packet follows it;
/// TCP runs over it.
#[test]
fn dsr_finds_the_chain_route_on_demand_and_carries_tcp() {
    let hops = 7;
    let mut w = build(&scenario("5s", "dsr", "", &chain_nodes(hops), &probe("n0", "n7", 0.0)));
    w.run_until(3 * SEC);
    let r = routes(&w, 0);
    let to_dst = r.iter().find(|e| e.0 == hops as u32).unwrap_or_else(|| panic!("no route: {r:?}"));
    assert_eq!((to_dst.1, to_dst.2 as usize), (1, hops));
    let back = routes(&w, hops);
    assert!(back.iter().any(|e| e.0 == 0 && e.1 == hops as u32 - 1 && e.2 as usize == hops), "{back:?}");
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    assert!(node_stat(&r, "n0", "route_discoveries") >= 1.0);
    let r = run_toml(&chain(hops, "30s", "dsr", "")).unwrap();
    let gp = col_sum(&r.flows, "goodput_bps");
    println!(
        "7 hops DSR: goodput {gp:.0} bit/s, retransmits {}, routing packets {}, overhead {:.4}, route errors {}, \
         false route failures {}",
        col_sum(&r.flows, "retransmits"),
        col_sum(&r.nodes, "routing_packets"),
        r.summary.routing_overhead.unwrap(),
        col_sum(&r.nodes, "route_errors"),
        col_sum(&r.nodes, "false_route_failures"),
    );
    assert!(gp > 0.0);
    assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
}

/// Routes longer than `max_route_len` nodes are never found.
#[test]
fn dsr_max_route_len_bounds_the_route() {
    let nodes = chain_nodes(6);
    let flow = probe("n0", "n6", 0.0);
    let ok = run_toml(&scenario("10s", "dsr", "[wireless.dsr]\nmax_route_len = 7", &nodes, &flow)).unwrap();
    let short = run_toml(&scenario("10s", "dsr", "[wireless.dsr]\nmax_route_len = 6", &nodes, &flow)).unwrap();
    assert!(ok.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    assert_eq!(short.flows.get("bytes_delivered", 0).unwrap(), 0.0);
}

/// A destination no route can reach (max_route_len too short): RFC 4728's
/// schedule repeats the propagating request after 0.5, 1, 2, 4, 8 s
/// (requests at 0, 0.03, 0.53, 1.53, 3.53, 7.53 and 15.53 s in 21 s);
/// ns-2.35's (BackOffTest) starts a cycle of a non-propagating and a
/// propagating request at 0, 2, 10 and 20 s.
#[test]
fn dsr_request_schedules() {
    let nodes = chain_nodes(6);
    let flow = probe("n0", "n6", 0.0);
    let run = |ns2: bool| {
        let extra = format!("[wireless.dsr]\nmax_route_len = 6\nns2_request_backoff = {ns2}");
        run_toml(&scenario("21s", "dsr", &extra, &nodes, &flow)).unwrap()
    };
    let (rfc, ns2) = (run(false), run(true));
    assert_eq!(node_stat(&rfc, "n0", "dsr_rreq_sent"), 7.0);
    assert_eq!(node_stat(&ns2, "n0", "dsr_rreq_sent"), 8.0);
    assert_eq!(node_stat(&ns2, "n0", "route_discoveries"), 1.0);
    // `[wireless] profile = "ns2"` chooses ns-2's schedule; the key wins.
    let with_profile = |extra: &str| {
        let sc = scenario("21s", "dsr", &format!("[wireless.dsr]\nmax_route_len = 6\n{extra}"), &nodes, &flow)
            .replace("routing = \"dsr\"", "routing = \"dsr\"\nprofile = \"ns2\"");
        node_stat(&run_toml(&sc).unwrap(), "n0", "dsr_rreq_sent")
    };
    assert_eq!(with_profile(""), 8.0);
    assert_eq!(with_profile("ns2_request_backoff = false"), 7.0);
}

/// `[wireless] profile = "ns2"` is the same run as ns-2.35's switches set
/// one by one: AODV (no ring for new destinations, 10 s hold-down, local
/// repair as ns-2.35 codes it, waits by the discoveries' latency, retries
/// at 0.5 s purges), DSDV (no MAC failures, ns-2's advertising) and DSR (request
/// schedule, flow state, 30 ms between released packets, discoveries for
/// salvaged packets, cache learning, gratuitous route errors, send-buffer
/// checks, jitter of its own requests and replies), with the
/// MAC's rules (reception, CTS and the wait after it, EIFS, backoff, no CCA delay, the data
/// frame's 34-byte header, the 4 us response-timeout slack, ARP) and the
/// PriQueue's counting.
#[test]
fn ns2_profile_is_the_ns2_switches_together() {
    let mac =
        "mac = { ns2_reception = true, ns2_cts = true, ns2_cts_wait = true, ns2_eifs = true, ns2_backoff = true, \
         cca_time = \"0s\", \
         data_header = 34, timeout_slack = \"4us\", ns2_arp = true }\n";
    let cases = [
        (
            "aodv",
            "[wireless.aodv]\nnew_destination_ring = false\ndiscovery_hold_down = \"10s\"\nlocal_repair = true\n\
             ns2_per_hop_time = true\nretry_ticks = \"0.5s\"\nns2_local_repair = true\nns2_route_errors = true\n\
             release_spacing = \"10ms\"\nns2_lifetimes = true\nns2_data_ttl = true",
        ),
        (
            "dsdv",
            "[wireless.dsdv]\nuse_mac_failures = false\nns2_advertising = true\nns2_ip_header = true\nns2_queue = true\n\
             ns2_gateway = true",
        ),
        (
            "dsr",
            "[wireless.dsr]\nns2_request_backoff = true\nflow_state = true\nrelease_spacing = \"30ms\"\n\
             salvage_discovery = true\nns2_cache = true\ngrat_route_errors = true\nbuffer_check = \"30ms\"\n\
             jitter_own = true\nns2_ip_header = true\nns2_request_size = true\nns2_reply_size = true\nreply_to_every_copy = true",
        ),
    ];
    for (routing, keys) in cases {
        let by_profile = run_toml(&chain(4, "30s", routing, "profile = \"ns2\"")).unwrap();
        let by_keys = run_toml(
            &chain(4, "30s", routing, &format!("{mac}{keys}"))
                .replace("limit = 50 }", "limit = 50, ns2_limits = true }"),
        )
        .unwrap();
        let standard = run_toml(&chain(4, "30s", routing, "")).unwrap();
        assert_eq!(by_profile.flows.to_csv(), by_keys.flows.to_csv(), "{routing}");
        assert_eq!(by_profile.nodes.to_csv(), by_keys.nodes.to_csv(), "{routing}");
        assert_ne!(by_profile.nodes.to_csv(), standard.nodes.to_csv(), "{routing}");
    }
}

/// A node on the route goes dark: route errors, salvaging or a new
/// discovery, and TCP carries on around it; with flow state too (the
/// source's flow over the broken link ends, and a new one is set up).
#[test]
fn dsr_repairs_a_route_through_a_node_switched_off() {
    for extra in ["", "[wireless.dsr]\nflow_state = true"] {
        dsr_repairs_around(extra);
    }
}

fn dsr_repairs_around(extra: &str) {
    let (gw, gh) = (6, 2);
    let nodes = grid_nodes(gw, gh);
    let sc = scenario("45s", "dsr", extra, &nodes, &tcp("g0_0", "g5_0"));
    let dst = 5u32;
    let off_at = 15 * SEC;
    let mut w = build(&sc);
    w.run_until(off_at - 1);
    let r0 = routes(&w, 0);
    let first = r0.iter().find(|e| e.0 == dst).expect("a route").1;
    // The node after the first hop on the source's route.
    let Some(path) = w.nodes[0].routing.as_dyn().as_any().downcast_ref::<Dsr>().unwrap().cached(dst) else {
        panic!("no cached route")
    };
    assert_eq!(path[1], first);
    let victim = path[2];
    assert_ne!(victim, dst);
    let dev = w.nodes[victim as usize].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
    let r = w.run();
    let by_15 = run_toml(&sc.replace("duration = \"45s\"", "duration = \"15s\""))
        .unwrap()
        .flows
        .get("bytes_delivered", 0)
        .unwrap();
    let total = r.flows.get("bytes_delivered", 0).unwrap();
    println!(
        "DSR ({extra:?}) switched off {}: {by_15} bytes by 15 s, {total} by 45 s; route errors {}, discoveries {}",
        nodes[victim as usize].0,
        col_sum(&r.nodes, "route_errors"),
        col_sum(&r.nodes, "route_discoveries"),
    );
    assert!(by_15 > 100_000.0);
    assert!(total - by_15 > 200_000.0, "TCP recovers: {} bytes after the break", total - by_15);
    assert!(col_sum(&r.nodes, "route_errors") >= 1.0);
    assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
}

// ---- OLSR ---------------------------------------------------------------

/// After its HELLOs and TCs have gone round, every node's table holds the
/// shortest hop path to every other node: on a chain and on a grid (OLSR
/// computes shortest paths over the links it knows, and MPR links are
/// enough for them).
#[test]
fn olsr_converges_to_shortest_paths_on_a_chain_and_a_grid() {
    let hops = 7;
    let mut w = build(&scenario("35s", "olsr", "", &chain_nodes(hops), &probe("n0", "n7", 30.0)));
    w.run_until(30 * SEC);
    for i in 0..=hops {
        let r = routes(&w, i);
        assert_eq!(r.len(), hops, "n{i}: {r:?}");
        for &(d, next, h) in &r {
            let d = d as usize;
            let expect_next = if d > i { i + 1 } else { i - 1 };
            assert_eq!((next as usize, h as usize), (expect_next, d.abs_diff(i)), "n{i} towards n{d}");
        }
    }
    assert!(w.run().flows.get("bytes_delivered", 0).unwrap() > 0.0);
    let (gw, gh) = (4, 4);
    let mut w = build(&scenario("35s", "olsr", "", &grid_nodes(gw, gh), &probe("g0_0", "g3_3", 30.0)));
    w.run_until(30 * SEC);
    let xy = |n: usize| (n % gw, n / gw);
    let dist = |a: usize, b: usize| {
        let ((ax, ay), (bx, by)) = (xy(a), xy(b));
        ax.abs_diff(bx) + ay.abs_diff(by)
    };
    for n in 0..gw * gh {
        let r = routes(&w, n);
        assert_eq!(r.len(), gw * gh - 1, "node {n}: {r:?}");
        for &(d, next, h) in &r {
            assert_eq!(h as usize, dist(n, d as usize), "hops {n} -> {d}");
            assert_eq!(dist(next as usize, d as usize) + 1, dist(n, d as usize), "{n} -> {next} towards {d}");
        }
    }
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    assert!(col_sum(&r.nodes, "olsr_tc_sent") > 0.0);
}

#[test]
fn olsr_carries_tcp_and_repairs_a_route_through_a_node_switched_off() {
    let r = run_toml(&chain(7, "30s", "olsr", "")).unwrap();
    let gp = col_sum(&r.flows, "goodput_bps");
    println!(
        "7 hops OLSR: goodput {gp:.0} bit/s, retransmits {}, routing packets {}, overhead {:.4}",
        col_sum(&r.flows, "retransmits"),
        col_sum(&r.nodes, "routing_packets"),
        r.summary.routing_overhead.unwrap(),
    );
    assert!(gp > 0.0);
    assert_eq!(r.summary.drops_ttl, 0);
    let (gw, gh) = (6, 2);
    let nodes = grid_nodes(gw, gh);
    let sc = scenario("60s", "olsr", "", &nodes, &tcp("g0_0", "g5_0"));
    let dst = 5u32;
    let off_at = 20 * SEC;
    let next = |w: &World, at: u32| routes(w, at as usize).into_iter().find(|e| e.0 == dst).map(|e| e.1);
    let mut w = build(&sc);
    w.run_until(off_at - 1);
    let first = next(&w, 0).expect("a route");
    let victim = next(&w, first).expect("a route");
    assert_ne!(victim, dst);
    let dev = w.nodes[victim as usize].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
    // The link to the dark node times out at the first hop: symmetric until
    // its last HELLO plus the hold time (RFC 3626: 3 HELLO intervals), so
    // no later than the hold time after it went dark, and (its HELLOs come
    // at most one interval apart) not before the hold time minus one
    // interval. Followed every 10 ms.
    let (hold, hello) = (OlsrParams::default().neighb_hold, OlsrParams::default().hello_interval);
    let first = first as usize;
    let mut t = off_at;
    let mut until = olsr(&w, first).link(victim).expect("a link to the victim").1;
    let lost_at = loop {
        t += 10 * SEC / 1000;
        assert!(t <= off_at + hold + hello, "{first} still holds a link to {victim}: {until}");
        w.run_until(t);
        match olsr(&w, first).link(victim) {
            Some((_, sym)) if sym > t => until = sym,
            _ => break t,
        }
    };
    println!(
        "OLSR: {first}'s link to {victim} symmetric until {:.3} s (dark from 20 s), seen lost at {:.2} s",
        until as f64 / SEC as f64,
        lost_at as f64 / SEC as f64
    );
    assert!(until <= off_at + hold, "heard after going dark? symmetric until {until}");
    assert!(until > off_at + hold - hello, "expired early: symmetric until {until}");
    assert!(lost_at >= until && lost_at < until + 10 * SEC / 1000);
    // Its routes follow at its next recomputation (its own HELLO at the
    // latest): none has the dark node as next hop (a route to it over
    // other nodes' TCs may stay for their hold time).
    w.run_until(until + hello);
    let r = routes(&w, first);
    assert!(r.iter().all(|e| e.1 != victim), "{first}: {r:?}");
    // Then the way around, followed every 0.5 s from 30 s to 59 s. Under
    // the TCP flow's load HELLOs and TCs collide and a route can drop out
    // for a few seconds (on 2026-12-06, after the MAC's response timeout
    // became the standard's: node 0 from 33.5 to 36 s, node 1 at 59 s), so
    // the test asks for a whole path, never through the dark node, at
    // three samples in four, and looks at the last one found.
    let path_now = |w: &World| {
        let mut path = vec![0u32];
        while *path.last().unwrap() != dst {
            path.push(next(w, *path.last().unwrap())?);
            if path.len() > nodes.len() {
                return None; // a loop, while TCs travel
            }
        }
        Some(path)
    };
    let (mut found, mut samples, mut last) = (0, 0, None);
    let mut t = 30 * SEC;
    while t <= 59 * SEC {
        w.run_until(t);
        samples += 1;
        if let Some(p) = path_now(&w) {
            assert!(!p.contains(&victim), "{p:?} still through {victim} at {t}");
            found += 1;
            last = Some(p);
        }
        t += SEC / 2;
    }
    assert!(4 * found >= 3 * samples, "a whole path at {found} of {samples} samples");
    let path = last.expect("a path");
    // Around a dead node of the bottom row: up, along, down: 5 + 2 hops.
    if victim < gw as u32 {
        assert_eq!(path.len() - 1, 7, "the shortest way around: {path:?}");
    }
    let r = w.run();
    let by_off = run_toml(&sc.replace("duration = \"60s\"", "duration = \"20s\""))
        .unwrap()
        .flows
        .get("bytes_delivered", 0)
        .unwrap();
    let after = r.flows.get("bytes_delivered", 0).unwrap() - by_off;
    println!(
        "OLSR switched off {}: {by_off} bytes by 20 s, {after} after; route then {path:?}",
        nodes[victim as usize].0
    );
    assert!(by_off > 100_000.0);
    assert!(after > 200_000.0, "TCP recovers: {after} bytes after the break");
    assert_eq!(r.summary.drops_ttl, 0, "no routing loop");
}

/// DSR on a grid: both flows' sources find routes on demand, every cached
/// route followed hop by hop reaches its destination without a loop and is
/// a shortest hop path (as long as the grid distance), and the data
/// arrives.
#[test]
fn dsr_finds_routes_on_a_grid() {
    let (gw, gh) = (4, 4);
    let nodes = grid_nodes(gw, gh);
    let flows = probe("g0_0", "g3_3", 0.0) + &probe("g3_0", "g0_2", 1.0);
    let mut w = build(&scenario("4s", "dsr", "", &nodes, &flows));
    w.run_until(3 * SEC);
    let dist = |a: usize, b: usize| (a % gw).abs_diff(b % gw) + (a / gw).abs_diff(b / gw);
    for (src, dst) in [(0usize, 15usize), (3, 8)] {
        let dsr = w.nodes[src].routing.as_dyn().as_any().downcast_ref::<Dsr>().unwrap();
        let path = dsr.cached(dst as u32).unwrap_or_else(|| panic!("{src} has no route to {dst}"));
        assert_eq!(path.len() - 1, dist(src, dst), "the shortest hop path: {path:?}");
        for pair in path.windows(2) {
            assert_eq!(dist(pair[0] as usize, pair[1] as usize), 1, "{path:?} hops between grid neighbours");
        }
        let mut sorted = path.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), path.len(), "a loop: {path:?}");
        println!("DSR grid route {src} -> {dst}: {path:?} (grid distance {})", dist(src, dst));
    }
    let r = w.run();
    for f in 0..2 {
        assert!(r.flows.get("bytes_delivered", f).unwrap() > 0.0, "flow {f}");
    }
    assert_eq!(r.summary.drops_ttl, 0);
}

/// Same seed, same bytes, for every protocol (their jitter comes from
/// per-node streams of the run seed); another seed, another run.
#[test]
fn every_protocol_is_deterministic() {
    for routing in ["aodv", "dsdv", "dsr", "olsr"] {
        let sc = chain(3, "20s", routing, "");
        let a = run_toml(&sc).unwrap();
        let b = run_toml(&sc).unwrap();
        assert_eq!(a.nodes.to_csv(), b.nodes.to_csv(), "{routing}");
        assert_eq!(a.flows.to_csv(), b.flows.to_csv(), "{routing}");
        let c = run_toml(&sc.replace("seed = 1", "seed = 2")).unwrap();
        assert_ne!(a.nodes.to_csv(), c.nodes.to_csv(), "{routing}: the seed matters");
    }
}

// ---- DSR: route shortening and salvaging ---------------------------------

fn dsr(w: &World, n: usize) -> &Dsr {
    w.nodes[n].routing.as_dyn().as_any().downcast_ref::<Dsr>().expect("a DSR node")
}

fn dsr_mut(w: &mut World, n: usize) -> &mut Dsr {
    w.nodes[n].routing.as_dyn_mut().as_any_mut().downcast_mut::<Dsr>().expect("a DSR node")
}

/// A line of four stations 120 m apart (each hears the stations up to two
/// places away: 240 m, not 360 m), and a source that knows only the route
/// through every station (3 hops): n2 overhears n0's frames to n1, and n3
/// overhears n1's frames to n2; each is later in the route than the frame's
/// next hop, so each sends the source a gratuitous reply with the hop cut
/// out, and the source's route shrinks to 2 hops, the shortest (n0 does not
/// hear n3). With gratuitous replies off it keeps the long route.
#[test]
fn dsr_gratuitous_replies_shorten_a_long_route() {
    let nodes: Vec<(String, f64, f64)> = (0..=3).map(|i| (format!("n{i}"), 120.0 * i as f64, 0.0)).collect();
    let flow = "[[flow]]\nfrom = \"n0\"\nto = \"n3\"\ntransport = \"udp\"\npacket_size = 512\n\
                app = { kind = \"cbr\", rate = \"40kbps\", start = 0.5, stop = 9.5 }\n";
    let run = |extra: &str| {
        let mut w = build(&scenario("10s", "dsr", extra, &nodes, flow));
        let long: Vec<u32> = (0..=3).collect();
        dsr_mut(&mut w, 0).add_route(long.clone());
        assert_eq!(dsr(&w, 0).cached(3), Some(long));
        w.run_until(9 * SEC);
        let route = dsr(&w, 0).cached(3).expect("a route");
        (route, w.run())
    };
    let (route, r) = run("");
    let grat = col_sum(&r.nodes, "dsr_gratuitous_replies");
    println!("DSR route shortening: n0's route {route:?}, {grat} gratuitous replies");
    assert_eq!(route.len(), 3, "2 hops, the shortest: {route:?}");
    assert!(route.windows(2).all(|w| w[0].abs_diff(w[1]) <= 2), "hops no longer than 240 m: {route:?}");
    // Only stations that overhear a hop they may skip send them, one each
    // (the route is short before their hold-off of 1 s is over).
    assert_eq!(node_stat(&r, "n2", "dsr_gratuitous_replies"), 1.0);
    assert_eq!(node_stat(&r, "n3", "dsr_gratuitous_replies"), 1.0);
    assert_eq!(grat, 2.0);
    assert_eq!(col_sum(&r.nodes, "route_discoveries"), 0.0, "no discovery was needed");
    let sent = r.flows.get("packets_sent", 0).unwrap();
    assert_eq!(r.flows.get("bytes_delivered", 0).unwrap(), 512.0 * sent, "every packet arrives");
    let (route, r) = run("[wireless.dsr]\ngratuitous_replies = false");
    assert_eq!(route, (0..=3).collect::<Vec<u32>>(), "without them the route stays long");
    assert_eq!(col_sum(&r.nodes, "dsr_gratuitous_replies"), 0.0);
    // Same seed, same run.
    let (_, again) = run("");
    assert_eq!(again.nodes.to_csv(), run("").1.nodes.to_csv());
}

/// S -> X -> A -> D, with B a second way from X to D; A goes dark at
/// 5.25 s. One 512-byte UDP packet every 0.5 s from 0.5 s to `stop`; each
/// node's cache starts with `routes` (node, path).
fn salvage_diamond(extra: &str, routes: &[(usize, Vec<u32>)], stop: f64) -> RunResult {
    let nodes = vec![
        ("s".to_string(), 0.0, 0.0),
        ("x".to_string(), 200.0, 0.0),
        ("a".to_string(), 400.0, 100.0),
        ("b".to_string(), 400.0, -100.0),
        ("d".to_string(), 600.0, 0.0),
    ];
    let flow = format!(
        "[[flow]]\nfrom = \"s\"\nto = \"d\"\ntransport = \"udp\"\npacket_size = 512\n\
         app = {{ kind = \"cbr\", rate = \"8kbps\", start = 0.5, stop = {stop:?} }}\n"
    );
    let mut w = build(&scenario("10s", "dsr", extra, &nodes, &flow));
    for (n, path) in routes {
        dsr_mut(&mut w, *n).add_route(path.clone());
    }
    let dev = w.nodes[2].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = 5 * SEC + SEC / 4;
    w.run()
}

/// The frame the MAC gives up on is salvaged: S -> X -> A -> D with a
/// second way X -> B -> D in X's cache; A goes dark, X's MAC fails on the
/// next packet, and X sends that very packet on through B (its salvage
/// count raised) while S learns of the break from the route error. With
/// `max_salvage_count = 0` that packet is lost.
#[test]
fn dsr_salvages_the_frame_whose_transmission_failed() {
    let routes = [(0, vec![0, 1, 2, 4]), (1, vec![1, 2, 4]), (1, vec![1, 3, 4])];
    let run = |extra: &str| salvage_diamond(extra, &routes, 9.0);
    let r = run("");
    let sent = r.flows.get("packets_sent", 0).unwrap();
    let got = r.flows.get("bytes_delivered", 0).unwrap();
    println!(
        "DSR salvage: {got} of {} bytes; x salvaged {}, x MAC drops {}, route errors {}",
        512.0 * sent,
        node_stat(&r, "x", "dsr_salvaged"),
        node_stat(&r, "x", "drops_retry_limit"),
        col_sum(&r.nodes, "route_errors")
    );
    assert!(node_stat(&r, "x", "drops_retry_limit") >= 1.0, "x's MAC gave up on a frame for a");
    assert!(node_stat(&r, "x", "dsr_salvaged") >= 1.0);
    assert!(node_stat(&r, "x", "route_errors") >= 1.0, "the source hears of the break");
    assert_eq!(got, 512.0 * sent, "every packet arrives, the failed one through b");
    let r = run("[wireless.dsr]\nmax_salvage_count = 0");
    assert_eq!(node_stat(&r, "x", "dsr_salvaged"), 0.0);
    assert!(r.flows.get("bytes_delivered", 0).unwrap() < 512.0 * sent, "without salvaging the failed frame is lost");
}

/// ns-2.35's NEW_SALVAGE_LOGIC (`salvage_discovery`): S -> X -> A -> D,
/// A goes dark and X knows no other way; X keeps the failed packet and
/// asks its neighbours with a non-propagating request, B (which knows
/// B -> D) answers from its cache, and the packet goes on through B.
/// Without the switch X drops it. With it but nobody able to answer, the
/// packet waits for the next cycle (ns-2's 2 s) and is then dropped, with
/// no propagating request.
#[test]
fn dsr_salvage_discovery_asks_the_neighbours_for_a_packet_it_cannot_salvage() {
    let run = |extra: &str, b_knows: bool| {
        let mut routes = vec![(0, vec![0, 1, 2, 4]), (1, vec![1, 2, 4])];
        if b_knows {
            routes.push((3, vec![3, 4]));
        }
        salvage_diamond(extra, &routes, 5.4)
    };
    let on = "[wireless.dsr]\nsalvage_discovery = true\nns2_request_backoff = true";
    let r = run(on, true);
    let sent = r.flows.get("packets_sent", 0).unwrap();
    println!(
        "DSR salvage discovery: {} of {} bytes; x requests {}, x discoveries {}",
        r.flows.get("bytes_delivered", 0).unwrap(),
        512.0 * sent,
        node_stat(&r, "x", "dsr_rreq_sent"),
        node_stat(&r, "x", "route_discoveries")
    );
    assert!(node_stat(&r, "x", "drops_retry_limit") >= 1.0, "x's MAC gave up on a frame for a");
    assert_eq!(node_stat(&r, "x", "route_discoveries"), 1.0);
    assert_eq!(node_stat(&r, "x", "dsr_rreq_sent"), 1.0, "one non-propagating request");
    assert_eq!(
        r.flows.get("bytes_delivered", 0).unwrap(),
        512.0 * sent,
        "every packet arrives, the failed one through b"
    );
    let r = run("[wireless.dsr]\nns2_request_backoff = true", true);
    assert_eq!(node_stat(&r, "x", "route_discoveries"), 0.0);
    assert!(r.flows.get("bytes_delivered", 0).unwrap() < 512.0 * sent, "without it the failed packet is lost");
    let r = run(on, false);
    assert_eq!(node_stat(&r, "x", "dsr_rreq_sent"), 1.0, "no propagating request for another's packet");
    assert_eq!(node_stat(&r, "x", "drops_no_route_discovery_failed"), 1.0, "dropped when the next cycle is due");
}

#[test]
fn dsr_keys_are_validated() {
    refused_keys(
        "dsr",
        &[
            ("max_salvage_count = 16", "wireless.dsr.max_salvage_count"),
            ("grat_reply_holdoff = \"0s\"", "wireless.dsr.grat_reply_holdoff"),
            ("request_period = \"0s\"", "wireless.dsr.request_period"),
            ("request_period = \"20s\"", "wireless.dsr.max_request_period"),
            ("rebuffer_own = 1", "rebuffer_own"),
            ("flow_state = \"on\"", "flow_state"),
            ("release_spacing = \"soon\"", "release_spacing"),
            ("salvage_discovery = 0", "salvage_discovery"),
            ("ns2_cache = \"yes\"", "ns2_cache"),
            ("grat_route_errors = 1", "grat_route_errors"),
            ("buffer_check = \"often\"", "buffer_check"),
            ("jitter_own = \"yes\"", "jitter_own"),
            ("gratuitous_replys = true", "gratuitous_replys"),
        ],
    );
}

// ---- OLSR willingness -----------------------------------------------------

fn olsr(w: &World, n: usize) -> &Olsr {
    w.nodes[n].routing.as_dyn().as_any().downcast_ref::<Olsr>().expect("an OLSR node")
}

/// On a 4 x 4 grid, a node with WILL_NEVER (g1_1) is nobody's MPR, and a
/// node with WILL_ALWAYS (g2_2) is every neighbour's. Every node still has
/// a route to every other, the unwilling node included, of the shortest
/// length that does not relay through the unwilling node (it carries no
/// traffic for others, RFC 3626 10), and data flows.
#[test]
fn olsr_willingness_steers_mpr_selection() {
    let (gw, gh) = (4, 4);
    let (never, always) = (gw + 1, 2 * gw + 2);
    let extra = "[wireless.olsr]\nnode_willingness = { g1_1 = 0, g2_2 = 7 }";
    let mut w = build(&scenario("35s", "olsr", extra, &grid_nodes(gw, gh), &probe("g0_0", "g3_3", 30.0)));
    w.run_until(30 * SEC);
    let xy = |n: usize| (n % gw, n / gw);
    let dist = |a: usize, b: usize| {
        let ((ax, ay), (bx, by)) = (xy(a), xy(b));
        ax.abs_diff(bx) + ay.abs_diff(by)
    };
    let mut chose_always = 0;
    for n in 0..gw * gh {
        let mprs = olsr(&w, n).mprs();
        assert!(!mprs.contains(&(never as u32)), "node {n} chose the unwilling node: {mprs:?}");
        if dist(n, always) == 1 {
            assert!(mprs.contains(&(always as u32)), "node {n} did not choose the willing node: {mprs:?}");
            chose_always += 1;
        }
        // Hop counts on the grid without relaying through `never`.
        let mut hops = vec![usize::MAX; gw * gh];
        hops[n] = 0;
        let mut frontier = vec![n];
        while let Some(a) = frontier.pop() {
            if a == never && a != n {
                continue;
            }
            for b in (0..gw * gh).filter(|&b| dist(a, b) == 1) {
                if hops[a] + 1 < hops[b] {
                    hops[b] = hops[a] + 1;
                    frontier.push(b);
                }
            }
        }
        let r = routes(&w, n);
        assert_eq!(r.len(), gw * gh - 1, "node {n}: {r:?}");
        for &(d, next, h) in &r {
            assert_eq!(h as usize, hops[d as usize], "hops {n} -> {d}");
            assert!(next as usize != never || d as usize == never, "{n} relays through {never} towards {d}");
        }
    }
    assert_eq!(chose_always, 4);
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > 0.0);
    // The global key, and bad values named.
    let all_never = "[wireless.olsr]\nwillingness = 0";
    let mut w = build(&scenario("12s", "olsr", all_never, &grid_nodes(gw, gh), ""));
    w.run_until(12 * SEC);
    assert!((0..gw * gh).all(|n| olsr(&w, n).mprs().is_empty()), "nobody relays");
    for (extra, key) in [
        ("willingness = 8", "wireless.olsr.willingness"),
        ("node_willingness = { g9_9 = 1 }", "wireless.olsr.node_willingness.g9_9"),
        ("node_willingness = { g0_0 = 9 }", "wireless.olsr.node_willingness.g0_0"),
    ] {
        let text = scenario("1s", "olsr", &format!("[wireless.olsr]\n{extra}"), &grid_nodes(2, 2), "");
        let Err(e) = Scenario::from_toml_str(&text) else { panic!("{extra} accepted") };
        assert!(e.to_string().contains(key), "{extra}: {e}");
    }
}

/// A source whose own packet fails and that knows no other route keeps
/// it in its send buffer and discovers a new route (as ns-2.35's DSR):
/// s -> a -> d with a going dark, s finds s -> b -> d and the packet
/// arrives; with `rebuffer_own = false` it is lost.
#[test]
fn dsr_source_rebuffers_its_failed_packet_for_a_new_discovery() {
    let nodes = vec![
        ("s".to_string(), 0.0, 0.0),
        ("a".to_string(), 200.0, 100.0),
        ("b".to_string(), 200.0, -100.0),
        ("d".to_string(), 400.0, 0.0),
    ];
    let flow = "[[flow]]\nfrom = \"s\"\nto = \"d\"\ntransport = \"udp\"\npacket_size = 512\n\
                app = { kind = \"cbr\", rate = \"8kbps\", start = 0.5, stop = 9.0 }\n";
    let run = |extra: &str| {
        let mut w = build(&scenario("10s", "dsr", extra, &nodes, flow));
        dsr_mut(&mut w, 0).add_route(vec![0, 1, 3]);
        let dev = w.nodes[1].devices[0];
        w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = 5 * SEC + SEC / 4;
        w.run_until(9 * SEC);
        let route = dsr(&w, 0).cached(3);
        (w.run(), route)
    };
    let (r, route) = run("");
    let sent = r.flows.get("packets_sent", 0).unwrap();
    assert!(node_stat(&r, "s", "drops_retry_limit") >= 1.0, "s's MAC gave up on a frame for a");
    assert!(node_stat(&r, "s", "route_discoveries") >= 1.0);
    assert_eq!(route, Some(vec![0, 2, 3]), "the new route through b");
    assert_eq!(r.flows.get("bytes_delivered", 0).unwrap(), 512.0 * sent, "every packet arrives");
    let (r, _) = run("[wireless.dsr]\nrebuffer_own = false");
    assert!(r.flows.get("bytes_delivered", 0).unwrap() < 512.0 * sent, "the failed packet is lost");
}

/// Link hysteresis (RFC 3626 14): a link is used only once its quality is
/// above 0.8 (three HELLOs from nothing: 0.5, 0.75, 0.875), so routes come
/// later than without it, but they come, and are the shortest; a node that
/// goes dark is dropped after two missed HELLOs (0.875 -> 0.44 -> 0.22,
/// below 0.3). Off by default: the default run has no link qualities.
#[test]
fn olsr_link_hysteresis_delays_and_drops_links_by_quality() {
    let hops = 4;
    let sc = |extra: &str| scenario("40s", "olsr", extra, &chain_nodes(hops), &probe("n0", "n4", 30.0));
    let first_route = |extra: &str| {
        let mut w = build(&sc(extra));
        let mut t = 0;
        while t < 30 * SEC {
            t += SEC / 10;
            w.run_until(t);
            if let Some(q) = olsr(&w, 0).link_quality(1) {
                // Usable only above the high threshold.
                if routes(&w, 0).iter().any(|e| e.1 == 1) {
                    assert!(q.quality > 0.8 || !q.pending, "{q:?}");
                }
            }
            if routes(&w, 0).iter().any(|e| e.0 == hops as u32) {
                return (t, w);
            }
        }
        panic!("no route to n{hops} by 30 s ({extra})");
    };
    let (plain, w) = first_route("");
    assert!(olsr(&w, 0).link_quality(1).is_none(), "no hysteresis by default");
    let (hyst, mut w) = first_route("[wireless.olsr]\nhysteresis = true");
    println!("OLSR first route to n{hops}: {plain} ns without hysteresis, {hyst} ns with it");
    assert!(hyst > plain, "hysteresis delays the first route: {hyst} vs {plain}");
    w.run_until(30 * SEC);
    for (d, next, h) in routes(&w, 0) {
        assert_eq!((next, h as u32), (1, d), "shortest routes along the chain");
    }
    assert!(olsr(&w, 0).link_quality(1).unwrap().quality > 0.8);
    // n1 goes dark at 30 s: n0 drops it after two missed HELLOs (each
    // missed when none came within 2.5 s), by 30 + 2 + 2 x 2.5 s.
    let dev = w.nodes[1].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = 30 * SEC;
    w.run_until(37 * SEC);
    let q = olsr(&w, 0).link_quality(1);
    assert!(q.is_none_or(|q| q.pending), "{q:?}");
    assert!(routes(&w, 0).is_empty(), "{:?}", routes(&w, 0));
    for (extra, key) in [
        ("hyst_threshold_high = 1.5", "wireless.olsr.hyst_threshold_high"),
        ("hyst_threshold_low = 0.9", "wireless.olsr.hyst_threshold_low"),
        ("hyst_scaling = 1.0", "wireless.olsr.hyst_scaling"),
    ] {
        let text = scenario("1s", "olsr", &format!("[wireless.olsr]\n{extra}"), &chain_nodes(1), "");
        let Err(e) = Scenario::from_toml_str(&text) else { panic!("{extra} accepted") };
        assert!(e.to_string().contains(key), "{extra}: {e}");
    }
}

/// RFC 3626 9.3, 9.5: a node whose MPR selector set becomes empty goes on
/// sending (empty) TCs, under a new ANSN, for TOP_HOLD_TIME after the set
/// emptied, then stops; the others drop its topology tuples at the first
/// one instead of keeping them for TOP_HOLD_TIME. Chain n0-n1-n2-n3: n1 is
/// the MPR of n0 and n2; n0 goes dark at 20 s, so n1 loses both selectors
/// (n0's when its time runs out, n2's when n2 no longer needs n1 to reach
/// n0). Followed every 100 ms.
#[test]
fn olsr_sends_empty_tcs_for_the_hold_time_after_its_selectors_vanish() {
    let hops = 3;
    let p = OlsrParams::default();
    let mut w = build(&scenario("60s", "olsr", "", &chain_nodes(hops), ""));
    let off_at = 20 * SEC;
    w.run_until(off_at - 1);
    assert!(olsr(&w, 2).mprs().contains(&1), "n2 chose n1 as MPR before");
    let before: Vec<u32> = olsr(&w, 1).mpr_selectors().keys().copied().collect();
    assert_eq!(before, [0, 2], "n1's MPR selectors before");
    let ansn_before = olsr(&w, 3).topology_of(1).expect("n3 has n1's TC").0;
    assert!(routes(&w, 3).iter().any(|e| e.0 == 0), "n3 has a route to n0 before");
    let dev = w.nodes[0].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
    // TC messages n1 sends (its own: once it has no selectors it forwards
    // none).
    let tc_sent = |w: &World| olsr(w, 1).stats.sent[1];
    let mut sent = tc_sent(&w);
    let (mut t, mut empty_at, mut tcs_after, mut n3_cleared_at) = (off_at, None, Vec::new(), None);
    while t < 58 * SEC {
        t += SEC / 10;
        w.run_until(t);
        if empty_at.is_none() && olsr(&w, 1).mpr_selectors().is_empty() {
            empty_at = Some(t);
        }
        let s = tc_sent(&w);
        if s > sent && empty_at.is_some() {
            tcs_after.push(t);
        }
        sent = s;
        let n3_has = olsr(&w, 3).topology_of(1).map(|(ansn, dests)| (ansn, !dests.is_empty()));
        if empty_at.is_some() && n3_cleared_at.is_none() && n3_has.is_none_or(|h| !h.1) {
            // By n1's empty TC under a new ANSN, not by expiry.
            let (ansn, _) = n3_has.expect("n3 keeps n1's empty TC");
            assert_ne!(ansn, ansn_before);
            n3_cleared_at = Some(t);
        }
    }
    let empty_at = empty_at.expect("n1 loses its selectors");
    let secs = |x: u64| x as f64 / SEC as f64;
    println!(
        "n1 without selectors from {:.1} s; its TCs after: {:?} s; n3 without n1's topology tuples from {:?} s",
        secs(empty_at),
        tcs_after.iter().map(|&x| secs(x)).collect::<Vec<_>>(),
        n3_cleared_at.map(secs)
    );
    // Empty TCs every TC interval (less up to MAXJITTER) while the hold
    // time after the set emptied lasts, none after it.
    assert!(tcs_after.len() >= 2, "n1 sent {} (empty) TCs after its selectors vanished", tcs_after.len());
    let last = *tcs_after.last().unwrap();
    assert!(last + p.tc_interval + SEC / 10 >= empty_at + p.top_hold, "empty TCs stopped early: {last}");
    assert!(last <= empty_at + p.top_hold + SEC / 10, "empty TCs went on too long: {last}");
    // n3 takes the first one (through n2, after up to MAXJITTER) as the
    // end of n1's tuples.
    let cleared = n3_cleared_at.expect("n3 drops n1's topology tuples");
    assert!(cleared <= tcs_after[0] + SEC * 6 / 10, "n3 kept n1's tuples until {:.1} s", secs(cleared));
    assert!(!routes(&w, 3).iter().any(|e| e.0 == 0), "n3 has no route to the dark n0");
}

/// ns-2.35 never uses AODV's expanding ring for a destination it has not
/// reached (its entry's last hop count starts at INFINITY2):
/// `new_destination_ring = false` does the same. On a 31-hop chain, with a
/// diameter of 30, the destination is never found; every request is
/// network-wide, one discovery being 1 + 3 floods of 30 sends each (the
/// originator and 29 nodes that pass it on), as ns-2's trace shows (330
/// routing packets in 100 s: 11 floods of 30). With the ring (the default)
/// each discovery first sends the 5- and 7-hop rings: 5 + 7 + 4 x 30.
#[test]
fn aodv_without_the_ring_for_new_destinations_floods_as_ns2() {
    let hops = 31;
    let nodes = chain_nodes(hops);
    let flow = format!(
        "[[flow]]\nfrom = \"n0\"\nto = \"n{hops}\"\ntransport = \"udp\"\npacket_size = 512\n\
         app = {{ kind = \"cbr\", rate = \"8kbps\", start = 0.0, stop = 0.1 }}\n"
    );
    let one_discovery = |extra: &str| {
        let r = run_toml(&scenario("25s", "aodv", extra, &nodes, &flow)).unwrap();
        assert_eq!(node_stat(&r, "n0", "route_discoveries"), 1.0);
        assert_eq!(r.flows.get("bytes_delivered", 0).unwrap(), 0.0);
        (node_stat(&r, "n0", "rreq_sent"), col_sum(&r.nodes, "rreq_sent"))
    };
    assert_eq!(one_discovery("[wireless.aodv]\nnew_destination_ring = false"), (4.0, 4.0 * 30.0));
    assert_eq!(one_discovery(""), (6.0, 5.0 + 7.0 + 4.0 * 30.0));
}

/// ns-2.35 holds a destination down for MAX_RREQ_TIMEOUT (10 s) after a
/// discovery gives up: `discovery_hold_down = "10s"` does the same. A
/// 31-hop chain (diameter 30: the destination is never found), one 540-byte
/// packet (512 + UDP/IP headers at 8 kbit/s) every 0.54 s from 0 s, every request network-wide: a discovery
/// waits 1.8 + 3.6 + 5.4 + 7.2 s (2 x 30 hops x 30 ms times the attempt)
/// and gives up at 18 s. Without the hold-down (the default, RFC 3561) the
/// next packet (18.36 s) starts the second discovery; with it the packets
/// sent from 18.36 s wait in the buffer and the second discovery starts
/// when the hold-down ends, at 28 s, and finds them still there.
#[test]
fn aodv_discovery_hold_down_after_a_failed_discovery_as_ns2() {
    let hops = 31;
    let nodes = chain_nodes(hops);
    let flow = slow_cbr_to_the_end(hops);
    let discoveries = |extra: &str, at: &[f64]| -> Vec<(u64, f64, f64)> {
        let text = format!("[wireless.aodv]\nnew_destination_ring = false\n{extra}");
        let mut w = build(&scenario("40s", "aodv", &text, &nodes, &flow));
        at.iter()
            .map(|&t| {
                w.run_until((t * SEC as f64) as u64);
                let s = &aodv(&w, 0).stats;
                (s.discoveries, s.drops_discovery_failed as f64, s.sent[0] as f64)
            })
            .collect()
    };
    let at = [17.9, 18.5, 27.9, 28.1, 39.9];
    // Without: the second discovery with the packet of 18.36 s, the third
    // with the first packet after 36.36 s (18 s later).
    let plain = discoveries("", &at);
    assert_eq!(plain.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 2, 2, 2, 3]);
    // With: nothing new between 18 and 28 s, then one discovery; the packets
    // held meanwhile were not dropped at the give-up.
    let held = discoveries("discovery_hold_down = \"10s\"", &at);
    assert_eq!(held.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 1, 1, 2, 2]);
    // Requests sent by n0: 4 per discovery; none during the hold-down.
    assert_eq!(held[1].2, 4.0);
    assert_eq!(held[2].2, 4.0);
    assert_eq!(held[3].2, 5.0);
    // Both give up at 18 s with the 34 packets sent before (0 .. 17.82 s).
    assert_eq!(plain[1].1, 34.0);
    assert_eq!(held[1].1, 34.0);
    // The 18 packets held down from 18.36 s went into the second discovery
    // (still buffered at 28.1 s, not dropped).
    assert_eq!(held[3].1, 34.0);
    let text = scenario("1s", "aodv", "[wireless.aodv]\ndiscovery_hold_down = \"10s\"", &chain_nodes(1), "");
    assert_eq!(Scenario::from_toml_str(&text).unwrap().build().nodes.len(), 2);
}

/// A 6-hop chain n0..n6 carrying a light UDP flow n0 -> n6, with a spare
/// node beside n5 (within range of n4 and n6, and of n5, only): the route
/// goes through n5 or the spare, and switching that relay off at 10 s
/// breaks the link n4 -> relay for a packet that has come 4 hops and has
/// 2 left. `spare`: whether the spare node is there (else the repair
/// cannot succeed). Returns the world run to 20 s, the relay switched off
/// and the bytes delivered by 10 s.
fn aodv_break_near_the_destination(extra: &str, spare: bool) -> (World, u32, f64) {
    let mut nodes = chain_nodes(6);
    if spare {
        nodes.push(("s".into(), 5.0 * SPACING, 100.0));
    }
    let sc = scenario("20s", "aodv", extra, &nodes, &probe("n0", "n6", 1.0));
    let mut w = build(&sc);
    let off_at = 10 * SEC;
    w.run_until(off_at - 1);
    let victim = aodv(&w, 4).routes().into_iter().find(|e| e.0 == 6).expect("n4 has a route to n6").1;
    assert!(victim == 5 || victim == 7, "n4's next hop to n6 is {victim}");
    let dev = w.nodes[victim as usize].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<Dcf>().unwrap().off_from = off_at;
    let by_10 = run_toml(&sc.replace("duration = \"20s\"", "duration = \"10s\""))
        .unwrap()
        .flows
        .get("bytes_delivered", 0)
        .unwrap();
    w.run_until(20 * SEC - 1);
    (w, victim, by_10)
}

/// RFC 3561 6.12 local repair (`local_repair = true`, ns-2.35's build): n4
/// searches for n6 itself with TTL max(2 hops left, 4 hops come / 2) + 2 =
/// 4, finds it through the other relay, and sends on the packet it held;
/// no route error is sent and n0 makes no new discovery. Without it (the
/// default) n4's route error reaches n0, which discovers the route again.
#[test]
fn aodv_local_repair_of_a_break_near_the_destination() {
    let rerrs = |w: &World| (0..w.nodes.len()).map(|n| aodv(w, n).stats.route_errors).sum::<u64>();
    let (w, victim, by_10) = aodv_break_near_the_destination("[wireless.aodv]\nlocal_repair = true", true);
    let repairs = &aodv(&w, 4).local_repairs;
    println!("local repair: victim {victim}, repairs at n4 {repairs:?}, by 10 s {by_10} bytes");
    assert_eq!(repairs.len(), 1, "{repairs:?}");
    let r = repairs[0];
    assert_eq!((r.dst, r.last_hops, r.ttl, r.repaired), (6, 2, 4, Some(true)));
    assert!(r.at >= 10 * SEC && r.at < 11 * SEC, "{r:?}");
    for n in 0..w.nodes.len() {
        if n != 4 {
            assert!(aodv(&w, n).local_repairs.is_empty(), "n{n} repaired too");
        }
    }
    assert_eq!(rerrs(&w), 0, "no route error");
    assert_eq!(aodv(&w, 0).stats.discoveries, 1, "no new discovery at the source");
    assert_eq!(aodv(&w, 4).stats.drops_discovery_failed, 0);
    // The route goes around the dead relay and the packets go on: every
    // packet sent but the last one or two in flight at 20 s, none lost.
    let around = aodv(&w, 4).routes().into_iter().find(|e| e.0 == 6).expect("a route to n6").1;
    assert_eq!(around, 12 - victim, "through the other relay");
    let r = w.run();
    let sent = r.flows.get("packets_sent", 0).unwrap() * 512.0;
    let got = r.flows.get("bytes_delivered", 0).unwrap();
    println!("local repair: sent {sent}, delivered {got}");
    assert!(got > by_10 + 15.0 * 512.0, "the flow goes on after the break: {by_10} -> {got}");
    assert!(sent - got <= 2.0 * 512.0, "no packet lost: sent {sent}, delivered {got}");

    // Without local repair: the route error travels back to n0, which
    // finds the route again with a new discovery.
    let (w, _, _) = aodv_break_near_the_destination("", true);
    assert!(aodv(&w, 4).local_repairs.is_empty());
    assert!(aodv(&w, 4).stats.route_errors >= 1, "n4 sends a route error");
    assert!(aodv(&w, 1).stats.route_errors >= 1, "it reaches n0's neighbour, which passes it on");
    assert!(aodv(&w, 0).stats.discoveries >= 2, "n0 discovers the route again");
    let r = w.run();
    assert!(r.flows.get("bytes_delivered", 0).unwrap() > by_10 + 15.0 * 512.0, "the flow goes on");
}

/// A local repair that finds nothing (the chain has no way round the dead
/// relay) ends as a break: after its wait (2 x 4 hops x 30 ms), a route
/// error from n4 to its precursors and the held packets dropped (counted
/// as a failed discovery); n0 then learns it and discovers anew.
#[test]
fn aodv_failed_local_repair_ends_in_a_route_error_and_drops() {
    let (w, victim, _) = aodv_break_near_the_destination("[wireless.aodv]\nlocal_repair = true", false);
    assert_eq!(victim, 5);
    let a4 = aodv(&w, 4);
    println!("failed repair: {:?}, n4 stats {:?}", a4.local_repairs, a4.stats);
    let r = a4.local_repairs[0];
    assert_eq!((r.dst, r.last_hops, r.ttl, r.repaired), (6, 2, 4, Some(false)));
    assert!(a4.stats.route_errors >= 1, "n4 sends a route error");
    assert!(a4.stats.drops_discovery_failed >= 1, "n4 drops what it held");
    assert!(aodv(&w, 1).stats.route_errors >= 1, "the error goes back towards n0");
    assert!(aodv(&w, 0).stats.discoveries >= 2, "n0 discovers anew");
    // The repair request went no farther than its TTL: n0 .. n3 heard it
    // (4 hops back), n0 from 4 hops away.
    assert!(aodv(&w, 0).routes().iter().all(|e| e.0 != 4 || e.2 == 4));
}

/// Local repair on the long chains of the ns-2.35 comparison (16 and 30
/// hops, 250 m apart, NewReno from n0 from 1 s, 100 s, seeds 1-3): routing
/// packets with and without `local_repair`, and the repairs by outcome and
/// direction (towards the TCP receiver: data; towards n0: ACKs).
/// `cargo test --release --test adhoc local_repair_on_long_chains -- --ignored --nocapture`
#[test]
#[ignore]
fn aodv_local_repair_on_long_chains() {
    for hops in [16usize, 30] {
        for lr in [false, true] {
            for seed in 1..=3 {
                let nodes: Vec<(String, f64, f64)> =
                    (0..=hops).map(|i| (format!("n{i}"), 250.0 * i as f64, 0.0)).collect();
                let flow = format!(
                    "[[flow]]\nfrom = \"n0\"\nto = \"n{hops}\"\ntransport = \"newreno\"\npacket_size = 1460\n\
                     window = 32\napp = {{ kind = \"bulk\", start = 1.0 }}\n"
                );
                let extra = if lr { "[wireless.aodv]\nlocal_repair = true" } else { "" };
                let sc = scenario("101s", "aodv", extra, &nodes, &flow).replace("seed = 1", &format!("seed = {seed}"));
                let mut w = build(&sc);
                w.run_until(101 * SEC - 1);
                let reps: Vec<_> = (0..=hops).flat_map(|n| aodv(&w, n).local_repairs.clone()).collect();
                let ok = reps.iter().filter(|r| r.repaired == Some(true)).count();
                let to_dst = reps.iter().filter(|r| r.dst as usize == hops).count();
                let r = w.run();
                println!(
                    "hops {hops} local_repair {lr} seed {seed}: routing packets {} (rreq {} rrep {} rerr {}), \
                     goodput {:.0}, repairs {} ({ok} repaired; {to_dst} towards n{hops}), \
                     drops after a failed repair or discovery {}",
                    col_sum(&r.nodes, "routing_packets"),
                    col_sum(&r.nodes, "rreq_sent"),
                    col_sum(&r.nodes, "rrep_sent"),
                    col_sum(&r.nodes, "rerr_sent"),
                    r.flows.get("goodput_bps", 0).unwrap(),
                    reps.len(),
                    col_sum(&r.nodes, "drops_no_route_discovery_failed"),
                );
            }
        }
    }
}

/// DSDV under ns-2.35's advertising rule in a 50-node field like that of
/// ns-2's wireless test suites (670 m square, 20 light CBR flows with
/// ns-2's random intervals): every node keeps its periodic full dumps
/// going for the whole run (one every 11.25-15 s), and the flows are
/// delivered. A triggered update re-armed inside its jitter window once
/// gave the world a deadline already past, which stopped the node's
/// routing timer for good: 26 of 50 nodes sent their last full dump in
/// the first minute and 30 % of the packets found no route
/// (docs/validation.md, "50 nodes, 20 CBR flows").
#[test]
fn dsdv_nodes_keep_their_periodic_dumps_in_a_50_node_field() {
    // A fixed pseudo-random placement and choice of flows (an LCG), so the
    // test does not depend on ns2-examples' scene files.
    let mut state = 12345u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as f64 / (1u64 << 31) as f64
    };
    let nodes: Vec<(String, f64, f64)> =
        (0..50).map(|i| (format!("n{i}"), (next() * 670.0).round(), (next() * 670.0).round())).collect();
    let mut flows = String::new();
    for k in 0..20 {
        let src = (next() * 50.0) as usize;
        let dst = (src + 1 + (next() * 49.0) as usize) % 50;
        let start = 20.0 + next() * 160.0;
        flows += &format!(
            "[[flow]]\nname = \"cbr{k}\"\nfrom = \"n{src}\"\nto = \"n{dst}\"\ntransport = \"udp\"\npacket_size = 504\n\
             app = {{ kind = \"cbr\", interval = \"4s\", start = \"{start:.3}s\", random = true }}\n"
        );
    }
    let duration = 300u64;
    let r = run_toml(&scenario(&format!("{duration}s"), "dsdv", "profile = \"ns2\"", &nodes, &flows)).unwrap();
    let period = tcplab_core::net::routing::DsdvParams::default().periodic_update_interval;
    // Dumps every 0.75-1 period (and earlier when a triggered update turns
    // into a full dump): at least duration / period of them, less the
    // start-up jitter's first.
    let least = (duration * SEC / period) as f64 - 1.0;
    for (n, ..) in &nodes {
        let dumps = node_stat(&r, n, "dsdv_full_sent");
        assert!(dumps >= least, "{n}: {dumps} full dumps in {duration} s (at least {least})");
    }
    let sent = col_sum(&r.flows, "packets_sent");
    let delivered = col_sum(&r.flows, "bytes_delivered") / 504.0;
    println!("{delivered} of {sent} packets delivered");
    assert!(delivered >= 0.95 * sent, "{delivered} of {sent} delivered");
}
