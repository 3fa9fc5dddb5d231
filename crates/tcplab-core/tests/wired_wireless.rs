//! Wired-cum-wireless networks (base stations with links and a radio,
//! stations in their cells, DSDV, AODV or OLSR over the radio) and the 802.11 frame error
//! model. Expectations come from the topology and from the models' rules
//! (which path a packet must take, which frames must be retried), never
//! from earlier runs.

mod common;
use common::{col_sum, node_stat};

use tcplab_core::mechanisms::SnoopAgent;
use tcplab_core::net::routing::Dsdv;
use tcplab_core::sim::World;
use tcplab_core::{run_toml, RunResult, Scenario};

/// Two base stations 400 m apart (they sense but cannot decode each
/// other), each with one station 180 m away; the two stations are 100 m
/// apart, within each other's receive range. bs0 - w0 - w1 - bs1 by links.
fn network(extra_wireless: &str, nodes_extra: [&str; 2], flows: &str) -> String {
    format!(
        "[sim]\nduration = \"30s\"\nseed = 3\n\
         [wireless]\nrouting = \"dsdv\"\n{extra_wireless}\n\
         [[node]]\nname = \"w0\"\n[[node]]\nname = \"w1\"\n\
         [[node]]\nname = \"bs0\"\nposition = [0.0, 0.0]\nsnoop = true\n\
         [[node]]\nname = \"bs1\"\nposition = [400.0, 0.0]\nsnoop = true\n\
         [[node]]\nname = \"m0\"\nposition = [150.0, 100.0]\nbase_station = \"bs0\"\n{}\n\
         [[node]]\nname = \"m1\"\nposition = [250.0, 100.0]\nbase_station = \"bs1\"\n{}\n\
         [[link]]\nbetween = [\"bs0\", \"w0\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
         [[link]]\nbetween = [\"w0\", \"w1\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[link]]\nbetween = [\"w1\", \"bs1\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n{flows}",
        nodes_extra[0], nodes_extra[1]
    )
}

fn tcp(from: &str, to: &str, start: f64) -> String {
    format!(
        "[[flow]]\nfrom = \"{from}\"\nto = \"{to}\"\ntransport = \"newreno\"\n\
         app = {{ kind = \"bulk\", start = {start:?} }}\n"
    )
}

fn flow_stat(r: &RunResult, i: usize, stat: &str) -> f64 {
    r.flows.get(stat, i).unwrap_or_else(|| panic!("no column {stat}"))
}

fn build(text: &str) -> World {
    Scenario::from_toml_str(text).unwrap_or_else(|e| panic!("{e}")).build()
}

fn refused(text: &str) -> String {
    match Scenario::from_toml_str(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Every pair of ends talks: a station to a wired host and back, and a
/// station to a station of the other cell. The cross-cell flow's data go
/// through both base stations and every link even though its two stations
/// hear each other: a station sends whatever leaves its cell to its base
/// station, as an IP host sends off-subnet traffic to its gateway. The
/// same with each protocol that runs in cells.
#[test]
fn stations_reach_wired_hosts_and_other_cells_through_their_base_stations() {
    for proto in ["dsdv", "aodv", "olsr"] {
        let flows = tcp("m0", "w1", 6.0) + &tcp("w0", "m1", 6.0) + &tcp("m0", "m1", 6.0);
        let text = network("", ["", ""], &flows).replace("routing = \"dsdv\"", &format!("routing = \"{proto}\""));
        through_base_stations(&run_toml(&text).unwrap(), proto);
    }
}

fn through_base_stations(r: &RunResult, proto: &str) {
    for i in 0..3 {
        let g = flow_stat(r, i, "goodput_bps");
        assert!(g > 20e3, "{proto}, flow {i}: {g}");
    }
    let delivered = |i: usize| flow_stat(r, i, "bytes_delivered") / 1000.0;
    // Link 0 forward (bs0 -> w0) carries flows 0 and 2; link 2 forward
    // (w1 -> bs1) carries flows 1 and 2: at least every segment delivered.
    let link_sent = |row: usize| r.links.get("packets_sent", row).unwrap();
    assert!(link_sent(0) >= delivered(0) + delivered(2), "{proto}: {} < {}", link_sent(0), delivered(0) + delivered(2));
    assert!(link_sent(4) >= delivered(1) + delivered(2), "{proto}: {} < {}", link_sent(4), delivered(1) + delivered(2));
    // The two stations never exchange a data frame: each one's frames go
    // to its base station (m0's data and m1's ACKs alike).
    assert_eq!(r.summary.drops_ttl, 0, "{proto}");
}

/// One cell in a line: bs (0) - relay (200) - far (400) m, bs linked to a
/// wired host w. `relay_cell`: the relay's base station (`bs`, or `bs1` at
/// 600 m, linked to w too, whose cell the relay then belongs to).
fn line_cell(proto: &str, relay_cell: &str, flows: &str) -> String {
    format!(
        "[sim]\nduration = \"30s\"\nseed = 5\n[wireless]\nrouting = \"{proto}\"\n\
         [[node]]\nname = \"w\"\n\
         [[node]]\nname = \"bs\"\nposition = [0.0, 0.0]\n\
         [[node]]\nname = \"relay\"\nposition = [200.0, 0.0]\nbase_station = \"{relay_cell}\"\n\
         [[node]]\nname = \"far\"\nposition = [400.0, 0.0]\nbase_station = \"bs\"\n\
         [[node]]\nname = \"bs1\"\nposition = [600.0, 0.0]\n\
         [[link]]\nbetween = [\"bs\", \"w\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
         [[link]]\nbetween = [\"bs1\", \"w\"]\nrate = \"10Mbps\"\ndelay = \"1ms\"\n{flows}"
    )
}

/// far -> w and w -> far through `line_cell`, each flow carrying over
/// 100 kbit/s.
fn both_ways_through_line_cell(proto: &str, relay_cell: &str) -> RunResult {
    let r = run_toml(&line_cell(proto, relay_cell, &(tcp("far", "w", 6.0) + &tcp("w", "far", 6.0)))).unwrap();
    for i in 0..2 {
        let g = flow_stat(&r, i, "goodput_bps");
        assert!(g > 100e3, "{proto}, relay in {relay_cell}'s cell, flow {i}: {g}");
    }
    r
}

/// A station two hops from its base station reaches the wired host and is
/// reached from it: its packets leave the cell through the relay to the
/// base station (AODV: a discovery for the base station; DSDV, OLSR: the
/// route to it), and the base station takes the wired host's packets on
/// over the radio (AODV: it discovers the station for them). bs1's cell is
/// empty, so nothing of the flows crosses its link.
#[test]
fn a_station_two_hops_from_its_base_station_reaches_the_wired_side_both_ways() {
    for proto in ["dsdv", "aodv", "olsr"] {
        let r = both_ways_through_line_cell(proto, "bs");
        // Every data packet and ACK between far and bs went through the relay.
        let delivered = flow_stat(&r, 0, "bytes_delivered") / 1000.0;
        let forwarded = node_stat(&r, "relay", "data_acked");
        assert!(
            forwarded >= delivered,
            "{proto}: the relay had {forwarded} data frames acknowledged for {delivered} segments"
        );
        let link_sent = |row: usize| r.links.get("packets_sent", row).unwrap();
        assert_eq!((link_sent(2), link_sent(3)), (0.0, 0.0), "{proto}: bs1's link carried packets");
        assert_eq!(r.summary.drops_ttl, 0, "{proto}");
    }
}

/// A relay of another cell (bs1's) between bs and its station far. On the
/// way out it passes far's packets on towards far's base station (AODV:
/// the route far's discovery for bs gave it), not to its own; on the way in
/// it passes bs's packets for far on to far, not back to a base station.
/// Nothing goes over bs1's link, and nothing is dropped for want of a
/// route, with each protocol.
#[test]
fn a_relay_of_another_cell_passes_packets_on_towards_the_sources_base_station() {
    for proto in ["dsdv", "aodv", "olsr"] {
        let r = both_ways_through_line_cell(proto, "bs1");
        let link_sent = |row: usize| r.links.get("packets_sent", row).unwrap();
        assert_eq!((link_sent(2), link_sent(3)), (0.0, 0.0), "{proto}: bs1's link carried packets");
        assert_eq!(node_stat(&r, "relay", "drops_no_route_forwarding"), 0.0, "{proto}");
        assert_eq!(r.summary.drops_ttl, 0, "{proto}");
    }
}

/// A fresh user's case (2026-11-30): bs1 at (0, 0) and bs2 at (200, 200),
/// both linked to a host; s1 (bs1's cell) at (200, 0); x (bs2's cell) at
/// (400, 0) reaches bs2 only through s1. s1 sent bs2's packets for x to its
/// own base station, which sent them back over the links to bs2: a loop
/// (with DSDV and OLSR) until each packet vanished as a MAC duplicate.
/// Both ways now work with every protocol, with no TTL expiry.
#[test]
fn a_station_reached_through_another_cell_gets_its_downlink() {
    for proto in ["dsdv", "aodv", "olsr"] {
        let text = format!(
            "[sim]\nduration = \"40s\"\nseed = 1\n[wireless]\nrouting = \"{proto}\"\n\
             [[node]]\nname = \"host\"\n\
             [[node]]\nname = \"bs1\"\nposition = [0.0, 0.0]\n\
             [[node]]\nname = \"bs2\"\nposition = [200.0, 200.0]\n\
             [[node]]\nname = \"s1\"\nposition = [200.0, 0.0]\nbase_station = \"bs1\"\n\
             [[node]]\nname = \"x\"\nposition = [400.0, 0.0]\nbase_station = \"bs2\"\n\
             [[link]]\nbetween = [\"host\", \"bs1\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
             [[link]]\nbetween = [\"host\", \"bs2\"]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n{}{}",
            tcp("host", "x", 2.0),
            tcp("x", "host", 2.0)
        );
        let r = run_toml(&text).unwrap();
        for i in 0..2 {
            let g = flow_stat(&r, i, "goodput_bps");
            assert!(g > 100e3, "{proto}, flow {i}: {g}");
        }
        assert_eq!(r.summary.drops_ttl, 0, "{proto}");
    }
}

/// With ns-2.35's rule (`ns2_gateway`) a station sends a packet for
/// another cell straight to it when DSDV knows a route: the two stations
/// hear each other, so once DSDV has converged the links carry nothing of
/// the flow. Without a route to its base station either, ns-2 drops.
#[test]
fn ns2_gateway_goes_straight_to_another_cell_when_dsdv_has_a_route() {
    let flows = tcp("m0", "m1", 10.0);
    let r = run_toml(&network("[wireless.dsdv]\nns2_gateway = true", ["", ""], &flows)).unwrap();
    assert!(flow_stat(&r, 0, "goodput_bps") > 100e3, "{}", flow_stat(&r, 0, "goodput_bps"));
    assert_eq!(col_sum(&r.links, "packets_sent"), 0.0, "the links carried the flow");
    let strict = run_toml(&network("", ["", ""], &flows)).unwrap();
    assert!(col_sum(&strict.links, "packets_sent") > 100.0);
    // The station's DSDV table has the other cell's station as a one-hop
    // neighbour (the rule has a route to use).
    let mut w = build(&network("[wireless.dsdv]\nns2_gateway = true", ["", ""], &flows));
    w.run_until(9 * tcplab_core::engine::time::SEC);
    let m0 = w.nodes.iter().position(|n| n.name == "m0").unwrap();
    let m1 = w.nodes.iter().position(|n| n.name == "m1").unwrap() as u32;
    let d = w.nodes[m0].routing.as_dyn().as_any().downcast_ref::<Dsdv>().expect("a DSDV station");
    assert!(d.routes().iter().any(|&(dst, hop, hops)| (dst, hop, hops) == (m1, m1, 1)), "{:?}", d.routes());
}

/// Snoop at a base station watches the connections whose data leave on
/// its radio (its cell's downlink), not those its stations send out.
#[test]
fn snoop_at_a_base_station_watches_only_its_downlink() {
    let flows = tcp("m0", "m1", 6.0);
    let mut w = build(&network("", ["", ""], &flows));
    w.run_until(20 * tcplab_core::engine::time::SEC);
    let conns = |name: &str| {
        let n = w.nodes.iter().position(|n| n.name == name).unwrap();
        let a = w.nodes[n].agents.iter().find_map(|a| a.as_any().downcast_ref::<SnoopAgent>()).unwrap();
        a.conns.len()
    };
    assert_eq!(conns("bs0"), 0, "bs0 snooped its uplink");
    assert_eq!(conns("bs1"), 1, "bs1 did not snoop its downlink");
}

/// A cell whose station cannot reach its base station over the radio, and
/// every malformed cell, is refused with the key named.
#[test]
fn bad_cells_are_refused_with_the_key_named() {
    let flows = tcp("m0", "m1", 1.0);
    let far = network("", ["", ""], &flows).replace("position = [250.0, 100.0]", "position = [900.0, 100.0]");
    let e = refused(&far);
    assert!(e.contains("node[5].base_station") && e.contains("no radio path to its base station"), "{e}");
    let e = refused(&network("", ["", ""], &flows).replace("base_station = \"bs1\"\n", ""));
    assert!(e.contains("node[5].base_station") && e.contains("names none"), "{e}");
    let e = refused(&network("", ["", ""], &flows).replace("base_station = \"bs1\"", "base_station = \"w1\""));
    assert!(e.contains("node[5].base_station") && e.contains("is no base station"), "{e}");
    let e = refused(&network("", ["", ""], &flows).replace("base_station = \"bs1\"", "base_station = \"nope\""));
    assert!(e.contains("node[5].base_station") && e.contains("unknown node"), "{e}");
    let e = refused(&network("", ["", ""], &flows).replace("routing = \"dsdv\"", "routing = \"dsr\""));
    assert!(e.contains("wireless.routing") && e.contains("DSR's source routes"), "{e}");
    let e = refused(&network("", ["", ""], &flows).replace("routing = \"dsdv\"", "routing = \"static\""));
    assert!(e.contains("node[4].base_station") && e.contains("cells need"), "{e}");
    let e = refused(&network("", ["frame_error_rate = 1.5", ""], &flows));
    assert!(e.contains("node[4].frame_error_rate") && e.contains("[0, 1]"), "{e}");
    let e =
        refused(&network("", ["", ""], &flows).replace("name = \"w0\"\n", "name = \"w0\"\nframe_error_rate = 0.1\n"));
    assert!(e.contains("node[0].frame_error_rate") && e.contains("position"), "{e}");
}

/// One station saturating another over one hop, basic access (no RTS):
/// each data frame the receiver's error model corrupts goes unacknowledged
/// and is retried, so the sender's retries equal the receiver's frame
/// errors (nothing else is lost on an otherwise empty channel), and the
/// share of corrupted frames is the rate within three standard errors.
#[test]
fn frame_errors_at_a_receiver_are_retried_frame_for_frame() {
    for rate in [0.05, 0.2] {
        let text = format!(
            "[sim]\nduration = \"20s\"\nseed = 7\n[wireless]\nrts_threshold = \"off\"\n\
             [[node]]\nname = \"a\"\nposition = [0.0, 0.0]\n\
             [[node]]\nname = \"b\"\nposition = [200.0, 0.0]\nframe_error_rate = {rate}\n\
             [[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"udp\"\npacket_size = 1000\n\
             app = {{ kind = \"cbr\", rate = \"3Mbps\" }}\n"
        );
        let r = run_toml(&text).unwrap();
        let errors = node_stat(&r, "b", "frame_errors");
        let decoded = node_stat(&r, "b", "frames_received");
        assert_eq!(node_stat(&r, "a", "retries"), errors, "rate {rate}");
        assert_eq!(node_stat(&r, "a", "frame_errors"), 0.0);
        let n = errors + decoded;
        let share = errors / n;
        let se = (rate * (1.0 - rate) / n).sqrt();
        assert!((share - rate).abs() < 3.0 * se, "rate {rate}: share {share:.4} over {n} frames (se {se:.4})");
        // A frame dropped after the retry limit is rate^5 likely: rare, counted.
        assert!(node_stat(&r, "a", "drops_retry_limit") <= 0.01 * n);
    }
}

/// Same seed, same run, cells and frame errors included.
#[test]
fn wired_cum_wireless_runs_are_reproducible() {
    let flows = tcp("m0", "m1", 6.0) + &tcp("w0", "m0", 6.0);
    let text = network("", ["frame_error_rate = 0.05", "frame_error_rate = 0.05"], &flows);
    let (a, b) = (run_toml(&text).unwrap(), run_toml(&text).unwrap());
    assert_eq!(a.flows.to_csv(), b.flows.to_csv());
    assert_eq!(a.nodes.to_csv(), b.nodes.to_csv());
    assert!(node_stat(&a, "m0", "frame_errors") > 0.0);
}

#[test]
fn random_waypoint_moves_the_stations_not_the_base_stations() {
    let text = network(
        "[wireless.mobility]\nmodel = \"random_waypoint\"\narea = [600.0, 600.0]\nspeed = [5.0, 10.0]",
        ["", ""],
        "",
    );
    let sc = Scenario::from_toml_str(&text).unwrap();
    let radio = tcplab_core::scenario::wireless::radio(&sc.cfg, 0).expect("a radio");
    let m = radio.mobility.expect("stations move");
    let moves: Vec<(&str, bool)> = m
        .stations
        .iter()
        .zip(&m.tracks)
        .map(|(s, t)| (sc.cfg.node[s.node as usize].name.as_str(), t.is_some()))
        .collect();
    assert_eq!(moves, [("bs0", false), ("bs1", false), ("m0", true), ("m1", true)]);
}

/// ELN over a base station's radio: a data frame the base station gives up
/// at the retry limit (frame errors at the station, retried until the
/// limit) is a loss on the wireless hop, so the ACKs that report it carry
/// the ELN bit and the sender repairs it without a congestion response.
/// Without `eln` nothing is marked; with it, no more holes are repaired
/// that way than the base station gave frames up.
#[test]
fn eln_reports_frames_a_base_station_gives_up_at_the_retry_limit() {
    let text = |eln: bool| {
        format!(
            "[sim]\nduration = \"60s\"\nseed = 5\n[wireless]\nrouting = \"dsdv\"\n\
             [[node]]\nname = \"h\"\n\
             [[node]]\nname = \"bs\"\nposition = [0.0, 0.0]\n\
             [[node]]\nname = \"m\"\nposition = [150.0, 0.0]\nbase_station = \"bs\"\nframe_error_rate = 0.25\n\
             [[link]]\nbetween = [\"h\", \"bs\"]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             [[flow]]\nfrom = \"h\"\nto = \"m\"\ntransport = \"newreno\"\neln = {eln}\n\
             app = {{ kind = \"bulk\", start = 5.0 }}\n"
        )
    };
    let (plain, eln) = (run_toml(&text(false)).unwrap(), run_toml(&text(true)).unwrap());
    assert_eq!(flow_stat(&plain, 0, "eln_retransmits"), 0.0);
    let given_up = node_stat(&eln, "bs", "drops_retry_limit");
    let repaired = flow_stat(&eln, 0, "eln_retransmits");
    assert!(repaired >= 5.0, "{repaired} ELN repairs, {given_up} frames given up");
    assert!(repaired <= given_up, "{repaired} ELN repairs, {given_up} frames given up");
}
