//! 802.11 on a shared channel: DCF timing, Bianchi's saturation model,
//! hidden terminals, carrier sense, TCP over multi-hop chains, scenario
//! validation and determinism. Expected values come from the standard's
//! timing and from analytic models, never from earlier runs.

mod common;
use common::node_stat;

use tcplab_core::engine::time::SEC;
use tcplab_core::output::Table;
use tcplab_core::{run_toml, RunResult, Scenario};

const US: f64 = 1e-6;
const SLOT: f64 = 20.0 * US;
const SIFS: f64 = 10.0 * US;
const DIFS: f64 = SIFS + 2.0 * SLOT;
const PLCP: f64 = 192.0 * US;
/// MAC header + FCS of a data frame (bytes).
const DATA_HDR: f64 = 28.0;

fn ctrl_air(len: f64) -> f64 {
    PLCP + len * 8.0 / 1e6
}

fn data_air(ip_bytes: f64, rate: f64) -> f64 {
    data_air_with(DATA_HDR, ip_bytes, rate)
}

/// `data_air` with a MAC header and FCS of `header` bytes.
fn data_air_with(header: f64, ip_bytes: f64, rate: f64) -> f64 {
    PLCP + (header + ip_bytes) * 8.0 / rate
}

fn col(t: &Table, name: &str) -> Vec<f64> {
    (0..t.rows()).map(|i| t.get(name, i).unwrap_or_else(|| panic!("column {name}"))).collect()
}

fn total_goodput(r: &RunResult) -> f64 {
    col(&r.flows, "goodput_bps").iter().sum()
}

/// Nodes (name, x, y) and the [wireless] lines.
fn wifi(duration: &str, wireless: &str, nodes: &[(&str, f64, f64)], flows: &str) -> String {
    let mut s = format!("[sim]\nduration = \"{duration}\"\nseed = 1\n[wireless]\n{wireless}\n");
    for (n, x, y) in nodes {
        s += &format!("[[node]]\nname = \"{n}\"\nposition = [{x:?}, {y:?}]\n");
    }
    s + flows
}

fn udp(from: &str, to: &str, rate: &str, payload: u32, start: f64) -> String {
    format!(
        "[[flow]]\nfrom = \"{from}\"\nto = \"{to}\"\ntransport = \"udp\"\npacket_size = {payload}\n\
         app = {{ kind = \"cbr\", rate = \"{rate}\", start = {start} }}\n"
    )
}

/// One saturated sender, one receiver 100 m away: the DCF cycle per frame is
/// DIFS + mean backoff (CWmin / 2 slots) + [RTS + SIFS + CTS + SIFS] + DATA
/// + SIFS + ACK, plus a propagation delay per frame.
#[test]
fn one_hop_saturation_matches_the_dcf_timing_formula() {
    let payload = 1000.0;
    let ip = payload + 28.0;
    let prop = 100.0 / 299_792_458.0;
    for rate_mbps in [1.0, 2.0, 11.0] {
        for rts in [false, true] {
            let rate = rate_mbps * 1e6;
            let mut cycle = DIFS + 15.5 * SLOT + data_air(ip, rate) + SIFS + ctrl_air(14.0) + 2.0 * prop;
            if rts {
                cycle += ctrl_air(20.0) + SIFS + ctrl_air(14.0) + SIFS + 2.0 * prop;
            }
            let expect = payload * 8.0 / cycle;
            let sc = wifi(
                "30s",
                &format!(
                    "data_rate = \"{rate_mbps}Mbps\"\nbasic_rate = \"1Mbps\"\nrts_threshold = {}",
                    if rts { "0" } else { "\"off\"" }
                ),
                &[("a", 0.0, 0.0), ("b", 100.0, 0.0)],
                &udp("a", "b", "12Mbps", payload as u32, 0.0),
            );
            let r = run_toml(&sc).unwrap();
            let got = total_goodput(&r);
            let err = got / expect - 1.0;
            println!(
                "{rate_mbps} Mbit/s rts={rts}: formula {expect:.0} bit/s, simulated {got:.0} ({:+.2} %)",
                err * 100.0
            );
            assert!(err.abs() < 0.01, "{rate_mbps} Mbit/s rts={rts}: {got} vs {expect}");
            assert_eq!(node_stat(&r, "a", "retries"), 0.0);
            assert_eq!(node_stat(&r, "b", "collisions"), 0.0);
            assert_eq!(node_stat(&r, "a", "rts_frames") > 0.0, rts);
        }
    }
}

/// `[wireless.mac] data_header` lengthens every data frame by its bytes at
/// the data rate, and the `ns2` profile sets ns-2.35's 34 (its header
/// struct's fourth address and sequence control, and the FCS) and draws
/// backoffs from [0, CW - 1], a mean of 15 slots: the one-hop saturation
/// cycle of the DCF timing formula with ns-2's numbers, RTS/CTS on.
#[test]
fn data_header_and_ns2_profile_set_the_data_frames_airtime() {
    let payload = 1000.0;
    let ip = payload + 28.0;
    let prop = 100.0 / 299_792_458.0;
    let rate = 2e6;
    for (line, header, mean_slots) in [
        ("mac = { data_header = 34 }", 34.0, 15.5),
        ("mac = { data_header = 60 }", 60.0, 15.5),
        ("profile = \"ns2\"", 34.0, 15.0),
    ] {
        let cycle = DIFS
            + mean_slots * SLOT
            + ctrl_air(20.0)
            + SIFS
            + ctrl_air(14.0)
            + SIFS
            + data_air_with(header, ip, rate)
            + SIFS
            + ctrl_air(14.0)
            + 4.0 * prop;
        let expect = payload * 8.0 / cycle;
        let sc = wifi(
            "30s",
            &format!("data_rate = \"2Mbps\"\nbasic_rate = \"1Mbps\"\nrts_threshold = 0\n{line}"),
            &[("a", 0.0, 0.0), ("b", 100.0, 0.0)],
            &udp("a", "b", "12Mbps", payload as u32, 0.0),
        );
        let got = total_goodput(&run_toml(&sc).unwrap());
        let err = got / expect - 1.0;
        println!("{line}: formula {expect:.0} bit/s, simulated {got:.0} ({:+.2} %)", err * 100.0);
        assert!(err.abs() < 0.01, "{line}: {got} vs {expect}");
    }
    // The 34 bytes cost 6 bytes at 2 Mbit/s per frame against the default.
    let default = wifi(
        "30s",
        "data_rate = \"2Mbps\"\nbasic_rate = \"1Mbps\"\nrts_threshold = 0",
        &[("a", 0.0, 0.0), ("b", 100.0, 0.0)],
        &udp("a", "b", "12Mbps", payload as u32, 0.0),
    );
    let longer = default.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { data_header = 34 }");
    assert!(total_goodput(&run_toml(&longer).unwrap()) < total_goodput(&run_toml(&default).unwrap()));
}

/// Bianchi (2000): the saturation throughput of n stations in one cell,
/// basic access, W = CWmin + 1 = 32, m = 5 doubling stages (CWmax 1023),
/// unlimited retries. The attempt probability per slot is Bianchi's
/// tau(p) = 2(1-2p) / ((1-2p)(W+1) + pW(1-(2p)^m)), written as the
/// equivalent renewal ratio A / (A + B) (A: mean attempts per frame, B:
/// mean backoff slots per frame, Kumar et al. 2007) because the closed form
/// is 0/0 at p = 1/2, which is where the n = 50 solution lies.
///
/// The collision time is DATA + EIFS (RTS + EIFS with RTS/CTS): the
/// standard makes the stations that were not transmitting wait EIFS after
/// the undecodable frames (Bianchi's paper uses DIFS; the colliding stations
/// themselves resume 92 us sooner, after their ACK or CTS timeout, SIFS +
/// a slot + the PLCP header, and a DIFS, which the model does not
/// capture).
fn bianchi(n: usize, ip: f64, payload: f64, rate: f64, rts: bool) -> f64 {
    let (w, m) = (32.0f64, 5i32);
    let tau_of = |p: f64| {
        let (mut a, mut b, mut pi) = (0.0, 0.0, 1.0);
        for i in 0..2000 {
            let wi = w * 2f64.powi(i.min(m));
            a += pi;
            b += pi * (wi - 1.0) / 2.0;
            pi *= p;
        }
        a / (a + b)
    };
    // p = 1 - (1 - tau(p))^(n-1): bisection on the monotone difference.
    let (mut lo, mut hi) = (1e-9, 0.99);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        let f = mid - (1.0 - (1.0 - tau_of(mid)).powi(n as i32 - 1));
        if f > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let tau = tau_of(0.5 * (lo + hi));
    println!("Bianchi n = {n}: p = {:.4}, tau = {tau:.5}", 0.5 * (lo + hi));
    let nf = n as f64;
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = nf * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    let delta = 5.0 / 299_792_458.0;
    let eifs = SIFS + ctrl_air(14.0) + DIFS;
    let (rts_air, cts_air) = (ctrl_air(20.0), ctrl_air(14.0));
    let mut ts = data_air(ip, rate) + SIFS + delta + ctrl_air(14.0) + DIFS + delta;
    let mut tc = data_air(ip, rate) + eifs + delta;
    if rts {
        // RTS/CTS: only the RTS frames collide.
        ts += rts_air + SIFS + delta + cts_air + SIFS + delta;
        tc = rts_air + eifs + delta;
    }
    ps * ptr * payload * 8.0 / ((1.0 - ptr) * SLOT + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

#[test]
fn saturation_throughput_matches_bianchi() {
    let payload = 1000.0;
    for rts in [false, true] {
        for n in [5usize, 10, 20, 50] {
            // n senders on a 5 m circle around the sink, all in range of all.
            let mut nodes = vec![("sink".to_string(), 0.0, 0.0)];
            let mut flows = String::new();
            for i in 0..n {
                let a = i as f64 / n as f64 * std::f64::consts::TAU;
                nodes.push((format!("s{i}"), 5.0 * a.cos(), 5.0 * a.sin()));
                flows += &udp(&format!("s{i}"), "sink", "2Mbps", payload as u32, 0.0);
            }
            let refs: Vec<(&str, f64, f64)> = nodes.iter().map(|(n, x, y)| (n.as_str(), *x, *y)).collect();
            let wl = format!(
                "data_rate = \"2Mbps\"\nbasic_rate = \"1Mbps\"\nrts_threshold = {}",
                if rts { "0" } else { "\"off\"" }
            );
            let r = run_toml(&wifi("60s", &wl, &refs, &flows)).unwrap();
            let sum = |c: &str| col(&r.nodes, c).iter().sum::<f64>();
            let attempts = if rts { sum("rts_frames") } else { sum("data_frames") };
            println!(
                "rts = {rts}, n = {n}: simulated attempts {attempts}, delivered {}, p = {:.4}, retry-limit drops {}",
                sum("data_acked"),
                1.0 - sum("data_acked") / attempts,
                sum("drops_retry_limit")
            );
            let got = total_goodput(&r);
            let expect = bianchi(n, payload + 28.0, payload, 2e6, rts);
            let err = got / expect - 1.0;
            println!("rts = {rts}, n = {n}: Bianchi {expect:.0} bit/s, simulated {got:.0} ({:+.2} %)", err * 100.0);
            assert!(err.abs() < 0.03, "rts = {rts}, n = {n}: {got} vs Bianchi {expect}");
        }
    }
}

/// A -> B <- C with A and C outside each other's carrier-sense range (the
/// sensing threshold raised to the receive threshold, so sensing reaches
/// 250 m): without RTS/CTS their data frames collide at B; with it only the
/// short RTS frames can, and the CTS silences the other sender.
#[test]
fn hidden_terminals_collide_without_rts_far_less_with() {
    let run = |rts: &str| {
        let sc = wifi(
            "30s",
            &format!("rts_threshold = {rts}\nphy = {{ cs_threshold_w = 3.652e-10 }}"),
            &[("A", 0.0, 0.0), ("B", 200.0, 0.0), ("C", 400.0, 0.0)],
            &(udp("A", "B", "2Mbps", 1000, 0.0) + &udp("C", "B", "2Mbps", 1000, 0.0)),
        );
        run_toml(&sc).unwrap()
    };
    let (off, on) = (run("\"off\""), run("0"));
    let (c_off, c_on) = (node_stat(&off, "B", "collisions"), node_stat(&on, "B", "collisions"));
    let (g_off, g_on) = (total_goodput(&off), total_goodput(&on));
    println!("collisions at B: {c_off} without RTS/CTS, {c_on} with; goodput {g_off:.0} vs {g_on:.0} bit/s");
    assert!(c_off > 1000.0, "{c_off}");
    // Only the short RTS frames (352 us against 4.4 ms of data) remain
    // exposed to the hidden sender.
    assert!(c_on * 3.0 < c_off, "{c_on} vs {c_off}");
    assert!(g_on > 2.0 * g_off, "{g_on} vs {g_off}");
}

/// B hears A from 100 m and senses C, 460 m away and hidden from A (560 m),
/// which sends to D. With the issue's reception rule B decodes A's frames
/// through C's (26 dB stronger: capture); with ns-2.35's (`ns2_reception`)
/// a frame of A that begins while B senses one of C's is lost.
/// A sends to B 100 m away; C, 460 m from B and hidden from A, sends to D.
fn sensed_sender(wireless: &str) -> RunResult {
    let sc = wifi(
        "20s",
        wireless,
        &[("A", -100.0, 0.0), ("B", 0.0, 0.0), ("C", 460.0, 0.0), ("D", 700.0, 0.0)],
        &(udp("A", "B", "400kbps", 1000, 0.0) + &udp("C", "D", "1Mbps", 1000, 0.0)),
    );
    run_toml(&sc).unwrap()
}

#[test]
fn ns2_reception_locks_onto_the_first_frame_sensed() {
    let run = |ns2: bool| sensed_sender(&format!("rts_threshold = \"off\"\nmac = {{ ns2_reception = {ns2} }}"));
    let (issue, ns2) = (run(false), run(true));
    let (r_issue, r_ns2) = (node_stat(&issue, "A", "retries"), node_stat(&ns2, "A", "retries"));
    println!("A's retries: {r_issue} with the issue's rule, {r_ns2} with ns-2's");
    assert_eq!(r_issue, 0.0, "A's frames capture B through C's");
    assert!(r_ns2 > 200.0, "{r_ns2}");
    // C's frames reach D either way.
    assert_eq!(node_stat(&issue, "D", "collisions"), node_stat(&ns2, "D", "collisions"));
}

/// `[wireless] profile = "ns2"` turns the MAC switches on; a key set
/// explicitly wins.
#[test]
fn ns2_profile_sets_the_mac_switches_unless_told_otherwise() {
    let retries = |w: &str| node_stat(&sensed_sender(&format!("rts_threshold = \"off\"\n{w}")), "A", "retries");
    assert!(retries("profile = \"ns2\"") > 200.0);
    assert_eq!(retries("profile = \"ns2\"\nmac = { ns2_reception = false }"), 0.0);
    assert_eq!(retries("profile = \"standard\""), 0.0);
}

/// The same stations with RTS/CTS: B decodes A's RTSs through C's frames;
/// the standard's B answers each (its NAV is clear: it cannot decode C's
/// frames), ns-2.35's (`ns2_cts`) withholds the CTS when a frame is
/// arriving, or an EIFS runs, a SIFS after the RTS.
/// ns-2.35's ARP (`ns2_arp`, in the ns2 profile): a slow flow over one hop
/// costs one broadcast request and one unicast reply, and every packet
/// arrives; a saturating source over two hops makes the forwarder drop
/// the packets that displaced each other while its next hop was being
/// resolved (without ARP its queue never overflows); and a next hop that
/// never answers fails the held packet and the new one after three
/// requests (the link failure ns-2's callback reports).
#[test]
fn ns2_arp_resolves_each_next_hop_once_and_fails_after_three_requests() {
    let base = "routing = \"static\"\nrts_threshold = 0";
    let one = [("n0", 0.0, 0.0), ("n1", 200.0, 0.0)];
    let slow = udp("n0", "n1", "8kbps", 512, 1.0);
    let mut delivered = Vec::new();
    for arp in [false, true] {
        let r = run_toml(&wifi("10s", &format!("{base}\nmac = {{ ns2_arp = {arp} }}"), &one, &slow)).unwrap();
        let (bc, replies) = (node_stat(&r, "n0", "broadcast_frames"), node_stat(&r, "n1", "data_frames"));
        assert_eq!((bc, replies), if arp { (1.0, 1.0) } else { (0.0, 0.0) }, "arp {arp}");
        delivered.push(col(&r.flows, "bytes_delivered")[0]);
    }
    assert!(delivered[0] > 0.0 && delivered[0] == delivered[1], "every packet arrives: {delivered:?}");
    let two = [("n0", 0.0, 0.0), ("n1", 200.0, 0.0), ("n2", 400.0, 0.0)];
    let flood = udp("n0", "n2", "2Mbps", 1000, 1.0);
    let forwarder_drops = |arp: bool| {
        let r = run_toml(&wifi("3s", &format!("{base}\nmac = {{ ns2_arp = {arp} }}"), &two, &flood)).unwrap();
        node_stat(&r, "n1", "drops_ifq")
    };
    assert_eq!(forwarder_drops(false), 0.0);
    assert!(forwarder_drops(true) > 0.0, "packets displaced while n2 was resolved");
    // n1's radio is off: the requests go unanswered.
    let text = wifi("5s", &format!("{base}\nmac = {{ ns2_arp = true }}"), &one, &udp("n0", "n1", "16kbps", 512, 1.0));
    let mut w = Scenario::from_toml_str(&text).unwrap().build();
    let victim = w.nodes[1].devices[0];
    w.devices[victim as usize]
        .as_dyn_mut()
        .as_any_mut()
        .downcast_mut::<tcplab_core::wireless::Dcf>()
        .unwrap()
        .off_from = 0;
    let r = w.run();
    assert_eq!(node_stat(&r, "n0", "data_frames"), 0.0, "nothing goes unresolved");
    assert!(node_stat(&r, "n0", "broadcast_frames") >= 3.0);
    assert!(node_stat(&r, "n0", "link_failures") >= 2.0, "the held packet and the fourth fail");
}

#[test]
fn ns2_cts_is_sent_only_on_an_idle_medium() {
    let run = |ns2: bool| sensed_sender(&format!("rts_threshold = 0\nmac = {{ ns2_cts = {ns2} }}"));
    let (std, ns2) = (run(false), run(true));
    let unanswered = |r: &RunResult| node_stat(r, "A", "rts_frames") - node_stat(r, "B", "cts_frames");
    let (u_std, u_ns2) = (unanswered(&std), unanswered(&ns2));
    println!("A's RTSs without a CTS: {u_std} (standard), {u_ns2} (ns-2)");
    assert_eq!(u_std, 0.0, "every RTS decoded and answered");
    assert!(u_ns2 > 100.0, "{u_ns2}");
}

/// Times (s) and frame-control bytes of the frames in a station capture
/// that `tx` (a node index) sent, and of the ACKs in it (any sender).
fn capture_frames(bytes: &[u8], tx: u8) -> (Vec<f64>, Vec<f64>) {
    let (mut own, mut acks) = (Vec::new(), Vec::new());
    for (t, frame) in pcap_records(bytes) {
        match frame[0] {
            0xd4 => acks.push(t),
            0x08 if frame[15] == tx + 1 => own.push(t),
            _ => {}
        }
    }
    (own, acks)
}

/// (time in s, frame bytes) of each record of a pcap file.
fn pcap_records(bytes: &[u8]) -> Vec<(f64, &[u8])> {
    let nano = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) == 0xa1b2_3c4d;
    let (mut off, mut out) = (24, Vec::new());
    while off + 16 <= bytes.len() {
        let word = |i: usize| u32::from_le_bytes(bytes[off + i..off + i + 4].try_into().unwrap()) as f64;
        let t = word(0) + word(4) * if nano { 1e-9 } else { 1e-6 };
        let incl = word(8) as usize;
        out.push((t, &bytes[off + 16..off + 16 + incl]));
        off += 16 + incl;
    }
    out
}

/// ns-2.35's EIFS (`ns2_eifs`): S saturates R 100 m away; I, 400 m from S
/// (sensed, not decoded), sends to J beyond S's range. When S's backoff
/// resumes after one of I's frames, the standard's S waits EIFS before
/// counting, ns-2's EIFS + DIFS: the shortest gap from the end of one of
/// I's frames to S's next frame (nothing else in between) is a DIFS longer
/// with ns-2's rule.
#[test]
fn ns2_eifs_adds_a_difs_after_a_frame_sensed_but_not_decoded() {
    let eifs = SIFS + ctrl_air(14.0) + DIFS;
    let i_air = data_air(1028.0, 2e6);
    let shortest_gap = |ns2: bool| {
        let sc = wifi(
            "20s",
            &format!("rts_threshold = \"off\"\nmac = {{ ns2_eifs = {ns2} }}"),
            &[("R", -100.0, 0.0), ("S", 0.0, 0.0), ("I", 400.0, 0.0), ("J", 600.0, 0.0)],
            &(udp("S", "R", "3Mbps", 1000, 0.0) + &udp("I", "J", "600kbps", 1000, 0.0)),
        ) + "[[pcap]]\nnode = \"S\"\n[[pcap]]\nnode = \"I\"\n";
        let r = run_toml(&sc).unwrap();
        let (s_frames, s_acks) = capture_frames(&r.pcaps[0].1, 1);
        let (i_frames, _) = capture_frames(&r.pcaps[1].1, 2);
        let s_air = data_air(1028.0, 2e6);
        let mut gaps = Vec::new();
        for w in s_frames.windows(2) {
            let (prev_end, start) = (w[0] + s_air, w[1]);
            // The last thing S heard or sent before `start` is one of I's frames.
            let Some(i_end) = i_frames.iter().map(|t| t + i_air).filter(|&e| e < start).reduce(f64::max) else {
                continue;
            };
            let ack = s_acks.iter().copied().filter(|&a| a < start).reduce(f64::max).unwrap_or(0.0);
            if i_end > prev_end && i_end > ack {
                gaps.push(start - i_end);
            }
        }
        assert!(gaps.len() > 100, "{} gaps", gaps.len());
        gaps.into_iter().reduce(f64::min).unwrap()
    };
    let (std, ns2) = (shortest_gap(false), shortest_gap(true));
    println!(
        "shortest wait after I's frame: {:.1} us standard, {:.1} us ns-2 (EIFS {:.1} us)",
        std / US,
        ns2 / US,
        eifs / US
    );
    // A backoff frozen by I's frame has at least one slot left (at zero
    // S would have sent), and I's frame reaches S 1.3 us after it leaves:
    // EIFS + a slot + the propagation delay; ns-2's waits a DIFS more.
    assert!(std > eifs && std < eifs + SLOT + 3.0 * US, "{std}");
    assert!((ns2 - std - DIFS).abs() < 1.0 * US, "{ns2} - {std}");
}

/// ns-2.35's backoff (`ns2_backoff`): S sends a datagram every 20 ms to R
/// and nothing else is on the air, so every datagram finds the medium idle
/// (the last exchange and its post-backoff long over). The standard sends
/// each at once; ns-2.35 (`bugFix_timer_`) waits DIFS plus a backoff drawn
/// from [0, CW - 1] slots, so every frame leaves exactly DIFS + k slots
/// later than the standard's, k from 0 to 30 and never 31.
#[test]
fn ns2_backoff_waits_difs_and_a_backoff_on_an_idle_medium() {
    let frames = |ns2: bool| {
        let sc = wifi(
            "21s",
            &format!("rts_threshold = \"off\"\nmac = {{ ns2_backoff = {ns2} }}"),
            &[("R", -100.0, 0.0), ("S", 0.0, 0.0)],
            &udp("S", "R", "400kbps", 1000, 0.5),
        ) + "[[pcap]]\nnode = \"S\"\n";
        let r = run_toml(&sc).unwrap();
        capture_frames(&r.pcaps[0].1, 1).0
    };
    let (std, ns2) = (frames(false), frames(true));
    assert!(std.len() > 900 && std.len() == ns2.len(), "{} {}", std.len(), ns2.len());
    let interval = std[1] - std[0];
    for (k, t) in std.iter().enumerate() {
        assert!((t - std[0] - k as f64 * interval).abs() < 0.01 * US, "standard frame {k} at {t}");
    }
    let slots: Vec<f64> = std.iter().zip(&ns2).map(|(s, n)| (n - s - DIFS) / SLOT).collect();
    for (k, j) in slots.iter().enumerate() {
        assert!((j - j.round()).abs() < 1e-3 && *j > -0.5 && *j < 30.5, "frame {k}: {j} slots");
    }
    let (lo, hi) = slots.iter().fold((f64::MAX, f64::MIN), |(a, b), &j| (a.min(j), b.max(j)));
    let mean = slots.iter().sum::<f64>() / slots.len() as f64;
    println!("ns-2's wait on an idle medium: DIFS + {}..{} slots, mean {mean:.2}", lo.round().abs(), hi.round());
    assert_eq!((lo.round(), hi.round()), (0.0, 30.0));
    assert!((mean - 15.0).abs() < 1.0, "{mean}");
}

/// Two senders, each with its receiver 100 m away on the far side: at 549 m
/// they sense each other and share the medium; at 551 m they do not and
/// both send at full speed.
#[test]
fn carrier_sense_reaches_549_m_not_551_m() {
    let run = |d: f64| {
        let sc = wifi(
            "20s",
            "rts_threshold = \"off\"",
            &[("r1", -100.0, 0.0), ("s1", 0.0, 0.0), ("s2", d, 0.0), ("r2", d + 100.0, 0.0)],
            &(udp("s1", "r1", "3Mbps", 1000, 0.0) + &udp("s2", "r2", "3Mbps", 1000, 0.0)),
        );
        run_toml(&sc).unwrap()
    };
    let (near, far) = (run(549.0), run(551.0));
    let one = 1000.0 * 8.0 / (DIFS + 15.5 * SLOT + data_air(1028.0, 2e6) + SIFS + ctrl_air(14.0));
    let (gn, gf) = (total_goodput(&near), total_goodput(&far));
    println!("549 m: {gn:.0} bit/s, 551 m: {gf:.0} bit/s; one sender alone {one:.0}");
    assert!(gn < 1.15 * one, "sharing at 549 m: {gn} vs {one}");
    assert!(gf > 1.95 * one, "independent at 551 m: {gf} vs {one}");
    assert_eq!(node_stat(&far, "r1", "collisions"), 0.0);
}

fn chain(hops: usize, duration: &str) -> String {
    let nodes: Vec<(String, f64, f64)> = (0..=hops).map(|i| (format!("n{i}"), 250.0 * i as f64, 0.0)).collect();
    let refs: Vec<(&str, f64, f64)> = nodes.iter().map(|(n, x, y)| (n.as_str(), *x, *y)).collect();
    let flow = format!(
        "[[flow]]\nfrom = \"n0\"\nto = \"n{hops}\"\ntransport = \"newreno\"\npacket_size = 1460\nwindow = 32\n\
         app = {{ kind = \"bulk\" }}\n"
    );
    wifi(
        duration,
        "propagation = \"two_ray_ground\"\ndata_rate = \"2Mbps\"\nbasic_rate = \"1Mbps\"\nrts_threshold = 0\n\
         routing = \"static\"\nifq = { kind = \"priqueue\", limit = 50 }",
        &refs,
        &flow,
    )
}

#[test]
fn tcp_goodput_falls_with_the_hop_count() {
    let mut g = Vec::new();
    for hops in 1..=7 {
        let r = run_toml(&chain(hops, "60s")).unwrap();
        let gp = total_goodput(&r);
        let rtx = r.flows.get("retransmits", 0).unwrap();
        println!("{hops} hops: goodput {gp:.0} bit/s, retransmits {rtx}");
        g.push(gp);
    }
    assert!(g[0] > 1.0e6, "one hop: {}", g[0]);
    for h in 1..g.len() {
        assert!(g[h] < g[h - 1] * 1.05, "{} hops {} vs {} hops {}", h + 1, g[h], h, g[h - 1]);
    }
    assert!(g[6] < g[0] / 3.0, "{g:?}");
}

#[test]
fn same_seed_same_bytes() {
    let sc = chain(4, "20s");
    let (a, b) = (run_toml(&sc).unwrap(), run_toml(&sc).unwrap());
    assert_eq!(a.flows.to_csv(), b.flows.to_csv());
    assert_eq!(a.nodes.to_csv(), b.nodes.to_csv());
    assert_eq!(a.summary.events, b.summary.events);
    let other = run_toml(&sc.replace("seed = 1", "seed = 2")).unwrap();
    assert_ne!(a.nodes.to_csv(), other.nodes.to_csv(), "the seed drives the backoff");
}

fn error_of(sc: &str) -> String {
    match Scenario::from_toml_str(sc) {
        Ok(_) => panic!("accepted:\n{sc}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_wireless_input_is_one_line_naming_the_key() {
    let base = chain(2, "1s");
    let cases = [
        (base.replace("position = [250.0, 0.0]\n", ""), "node[1].position"),
        (base.replace("position = [250.0, 0.0]", "position = [nan, 0.0]"), "node[1].position"),
        (base.replace("data_rate = \"2Mbps\"", "data_rate = \"3Mbps\""), "wireless.data_rate"),
        (base.replace("basic_rate = \"1Mbps\"", "basic_rate = \"7Mbps\""), "wireless.basic_rate"),
        (base.replace("rts_threshold = 0", "rts_threshold = -1"), "wireless.rts_threshold"),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nphy = { rx_threshold_w = -1e-10 }"),
            "wireless.phy.rx_threshold_w",
        ),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nphy = { cs_threshold_w = -1.0 }"),
            "wireless.phy.cs_threshold_w",
        ),
        (base.replace("propagation = \"two_ray_ground\"", "propagation = \"ray_tracing\""), "wireless.propagation"),
        (base.replace("rts_threshold = 0", "rts_threshold = 0\nprofile = \"ns3\""), "wireless.profile"),
        (base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { ns2_eifs = 1 }"), "wireless.mac.ns2_eifs"),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { ns2_backoff = \"yes\" }"),
            "wireless.mac.ns2_backoff",
        ),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { cca_time = \"20us\" }"),
            "wireless.mac.cca_time",
        ),
        (base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { data_header = 8 }"), "wireless.mac.data_header"),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { data_header = -2 }"),
            "wireless.mac.data_header",
        ),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { timeout_slack = \"0s\" }"),
            "wireless.mac.timeout_slack",
        ),
        (
            base.replace("rts_threshold = 0", "rts_threshold = 0\nmac = { timeout_slack = \"51us\" }"),
            "wireless.mac.timeout_slack",
        ),
        (base.replace("position = [500.0, 0.0]", "position = [560.0, 0.0]"), "flow[0].to"),
    ];
    for (sc, key) in cases {
        let e = error_of(&sc);
        println!("{e}");
        assert!(e.starts_with(&format!("{key}:")), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let gap = error_of(&base.replace("position = [500.0, 0.0]", "position = [560.0, 0.0]"));
    assert!(gap.contains("\"n1\" - \"n2\", 310.0 m apart") && gap.contains("receive range of 250.0 m"), "{gap}");
}

#[test]
fn wired_links_and_radio_together() {
    // A wired host behind base station n0 reaching the far end of a 2-hop chain.
    let sc = chain(2, "10s")
        .replace("from = \"n0\"", "from = \"host\"")
        .replace("[[flow]]", "[[node]]\nname = \"host\"\n[[link]]\nbetween = [\"host\", \"n0\"]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n[[flow]]");
    let r = run_toml(&sc).unwrap();
    assert!(total_goodput(&r) > 2e5, "{}", r.flows.to_csv());
    assert_eq!(r.links.rows(), 2);
    assert_eq!(r.nodes.rows(), 3);
}

/// The example scenarios parse, validate and run.
#[test]
fn example_scenarios_run() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for name in ["wifi-chain.toml", "hidden-terminal.toml"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let text = text.replace("duration = \"100s\"", "duration = \"10s\"");
        let r = run_toml(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(total_goodput(&r) > 1e5, "{name}: {}", r.flows.to_csv());
        assert!(r.nodes.rows() >= 3);
    }
}

/// A capture at a station holds its 802.11 frames (link type 105): RTS,
/// CTS, data and ACK, each readable by tshark when it is installed.
#[test]
fn station_capture_holds_80211_frames() {
    let sc = chain(2, "2s") + "[[pcap]]\nnode = \"n1\"\n";
    let r = run_toml(&sc).unwrap();
    let (name, bytes) = &r.pcaps[0];
    assert_eq!(name, "node-n1");
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 105);
    // frame-control byte of every record: count by type
    let mut kinds = std::collections::BTreeMap::new();
    for (_, frame) in pcap_records(bytes) {
        *kinds.entry(frame[0]).or_insert(0u32) += 1;
    }
    for fc in [0x08u8, 0xb4, 0xc4, 0xd4] {
        assert!(kinds.get(&fc).copied().unwrap_or(0) > 10, "frame control {fc:#x}: {kinds:?}");
    }
    if let Ok(out) = std::process::Command::new("tshark").arg("-v").output() {
        if out.status.success() {
            let dir = std::env::temp_dir().join(format!("tcplab-wifi-pcap-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("n1.pcap");
            std::fs::write(&path, bytes).unwrap();
            let out = std::process::Command::new("tshark")
                .args([
                    "-r",
                    path.to_str().unwrap(),
                    "-T",
                    "fields",
                    "-e",
                    "wlan.fc.type_subtype",
                    "-e",
                    "ip.src",
                    "-e",
                    "_ws.malformed",
                ])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            std::fs::remove_dir_all(&dir).ok();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let lines: Vec<&str> = text.lines().collect();
            assert!(lines.iter().all(|l| l.split('\t').nth(2).is_none_or(|m| m.is_empty())), "malformed frames");
            for t in ["0x001b", "0x001c", "0x001d", "0x0020"] {
                assert!(lines.iter().any(|l| l.starts_with(t)), "no frame of type {t} decoded: {:?}", &lines[..5]);
            }
            assert!(lines.iter().any(|l| l.starts_with("0x0020\t10.0.0.1")), "IP inside data frames");
        }
    }
}

/// Log-distance shadowing with beta = 2, d0 = 1 m and sigma = 0 is Friis
/// free space exactly; with sigma = 6 dB frames fade in and out, links beyond
/// the mean receive range sometimes work, and the run is still deterministic.
#[test]
fn shadowing_without_variance_is_free_space() {
    let base = chain(3, "10s").replace("two_ray_ground", "free_space");
    // Free-space ranges are longer: spread the chain so that it stays 3 hops.
    let base = base
        .replace("250.0, 0.0", "600.0, 0.0")
        .replace("500.0, 0.0", "1200.0, 0.0")
        .replace("750.0, 0.0", "1800.0, 0.0");
    let fs = run_toml(&base).unwrap();
    let sh0 = run_toml(&base.replace(
        "propagation = \"free_space\"",
        "propagation = \"shadowing\"\nshadowing = { path_loss_exponent = 2.0, sigma_db = 0.0, reference_distance = 1.0 }",
    ))
    .unwrap();
    assert_eq!(fs.flows.to_csv(), sh0.flows.to_csv());
    assert_eq!(fs.nodes.to_csv(), sh0.nodes.to_csv());
    let faded = base.replace(
        "propagation = \"free_space\"",
        "propagation = \"shadowing\"\nshadowing = { path_loss_exponent = 2.0, sigma_db = 6.0, reference_distance = 1.0 }",
    );
    let (a, b) = (run_toml(&faded).unwrap(), run_toml(&faded).unwrap());
    assert_eq!(a.nodes.to_csv(), b.nodes.to_csv());
    assert_ne!(a.nodes.to_csv(), fs.nodes.to_csv());
    assert!(total_goodput(&a) > 0.0);
}

/// Random static networks: every run finishes, frames are accounted for
/// (acknowledged + dropped <= offered per station; few packets left in
/// flight) and a rerun gives the same bytes.
#[test]
fn random_networks_run_and_account() {
    let mut rng = tcplab_core::engine::stream_rng(7, "wifi-random-networks");
    let mut ran = 0;
    for case in 0..12 {
        let n = 3 + (rng.next_u64() % 18) as usize;
        let side = 200.0 + rng.uniform() * 800.0;
        let prop = ["free_space", "two_ray_ground", "shadowing"][(rng.next_u64() % 3) as usize];
        let rts = ["0", "\"off\"", "500"][(rng.next_u64() % 3) as usize];
        let rate = ["1Mbps", "2Mbps", "5.5Mbps", "11Mbps"][(rng.next_u64() % 4) as usize];
        let mut s = format!(
            "[sim]\nduration = \"5s\"\nseed = {case}\n[wireless]\npropagation = \"{prop}\"\ndata_rate = \"{rate}\"\nrts_threshold = {rts}\nifq = {{ kind = \"priqueue\", limit = {} }}\n",
            5 + rng.next_u64() % 50
        );
        // a connected chain backbone plus random extra nodes near it
        for i in 0..n {
            let (x, y) =
                if i < 3 { (200.0 * i as f64, 0.0) } else { (rng.uniform() * side, rng.uniform() * side / 4.0) };
            s += &format!("[[node]]\nname = \"n{i}\"\nposition = [{x:?}, {y:?}]\n");
        }
        s += "[[flow]]\nfrom = \"n0\"\nto = \"n2\"\ntransport = \"newreno\"\napp = { kind = \"bulk\" }\n";
        for f in 0..(rng.next_u64() % 4) {
            let (a, b) = (rng.next_u64() % n as u64, rng.next_u64() % n as u64);
            if a != b {
                s += &format!(
                    "[[flow]]\nname = \"u{f}\"\nfrom = \"n{a}\"\nto = \"n{b}\"\ntransport = \"udp\"\napp = {{ kind = \"cbr\", rate = \"500kbps\" }}\n"
                );
            }
        }
        let sc = match Scenario::from_toml_str(&s) {
            Ok(sc) => sc,
            // a random flow between nodes the radio does not connect
            Err(e) => {
                assert!(e.to_string().contains("no radio path"), "case {case}: {e}");
                continue;
            }
        };
        let r = sc.build().run();
        for i in 0..r.nodes.rows() {
            let g = |c: &str| r.nodes.get(c, i).unwrap();
            assert!(g("data_acked") + g("drops_retry_limit") <= g("data_offered"), "case {case}\n{}", r.nodes.to_csv());
        }
        assert!(r.summary.packets_in_flight <= (n as u64) * 60, "case {case}: {:?}", r.summary);
        assert_eq!(r.nodes.to_csv(), sc.build().run().nodes.to_csv(), "case {case}");
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} of 12 random networks were connected");
}

/// Stations far from everyone (300 of them, 1000 km away) change nothing in a network:
/// the same events, the same flows, the same per-station counters, and no
/// frame sent or heard out there. With the benchmark's timing of the same
/// grid with and without them (benchmarks/wifi.py), this is how "the cost of
/// a transmission depends on its neighbourhood, not on the node count" is
/// shown: nothing a frame does visits every station.
#[test]
fn isolated_stations_change_nothing() {
    let side = 5;
    let grid: Vec<(String, f64, f64)> =
        (0..side * side).map(|i| (format!("g{i}"), 200.0 * (i % side) as f64, 200.0 * (i / side) as f64)).collect();
    let far: Vec<(String, f64, f64)> =
        (0..300).map(|i| (format!("z{i}"), 1.0e6 + 200.0 * (i % 15) as f64, 200.0 * (i / 15) as f64)).collect();
    let flows: String = [(0, 1), (7, 8), (12, 17), (23, 18)]
        .iter()
        .map(|(a, b)| udp(&format!("g{a}"), &format!("g{b}"), "200kbps", 1000, 0.1))
        .collect();
    let scenario = |nodes: &[(String, f64, f64)]| {
        let nodes: Vec<(&str, f64, f64)> = nodes.iter().map(|(n, x, y)| (n.as_str(), *x, *y)).collect();
        wifi("5s", "rts_threshold = 0", &nodes, &flows)
    };
    let alone = run_toml(&scenario(&grid)).unwrap();
    let with_far = run_toml(&scenario(&[grid.clone(), far].concat())).unwrap();
    assert_eq!(alone.summary.events, with_far.summary.events);
    assert_eq!(alone.flows.to_csv(), with_far.flows.to_csv());
    let (a, b) = (alone.nodes.to_csv(), with_far.nodes.to_csv());
    let (a_lines, b_lines): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(a_lines, b_lines[..a_lines.len()], "the grid's stations count the same");
    assert!(total_goodput(&alone) > 500_000.0, "{}", total_goodput(&alone));
    for i in 0..300 {
        for stat in ["data_frames", "rts_frames", "cts_frames", "ack_frames", "broadcast_frames", "collisions"] {
            assert_eq!(node_stat(&with_far, &format!("z{i}"), stat), 0.0, "z{i} {stat}");
        }
    }
}

/// Switch node `node`'s radio off from the start: it hears nothing, and
/// answers nothing (the switch `ns2_arp_resolves_...` uses).
fn radio_off(w: &mut tcplab_core::sim::World, node: usize) {
    let dev = w.nodes[node].devices[0];
    w.devices[dev as usize].as_dyn_mut().as_any_mut().downcast_mut::<tcplab_core::wireless::Dcf>().unwrap().off_from =
        0;
}

/// A UDP flow of one `payload`-byte datagram every `interval`, from
/// `start` to `stop`.
fn udp_every(from: &str, to: &str, interval: &str, payload: u32, start: &str, stop: &str) -> String {
    format!(
        "[[flow]]\nfrom = \"{from}\"\nto = \"{to}\"\ntransport = \"udp\"\npacket_size = {payload}\n\
         app = {{ kind = \"cbr\", interval = \"{interval}\", start = \"{start}\", stop = \"{stop}\" }}\n"
    )
}

/// The retry limits (issue: short 7, long 4; then the frame is dropped and
/// routing told the link failed). n0 sends a datagram every 250 ms to n1,
/// 200 m away, whose radio is off: no CTS, no ACK ever. With RTS/CTS every
/// packet costs exactly `short_retry_limit` RTS frames and no data frame;
/// without, that many data frames. Every packet is dropped at the limit and
/// reported as a link failure; 6 of the 7 attempts are retries. The
/// datagrams stop 5 s before the end, far more than a packet's 7 attempts
/// with their backoffs take, so none is left half-tried. A smaller
/// `[wireless.mac] short_retry_limit` is honoured the same way.
#[test]
fn a_silent_next_hop_costs_short_retry_limit_attempts_per_packet() {
    let default_limit = tcplab_core::wireless::MacParams::default().short_retry_limit;
    assert_eq!(default_limit, 7, "the issue's dot11ShortRetryLimit");
    for (limit_line, limit) in [("", default_limit), ("\nmac = { short_retry_limit = 3 }", 3)] {
        for rts in [true, false] {
            let text = wifi(
                "10s",
                &format!("routing = \"static\"\nrts_threshold = {}{limit_line}", if rts { "0" } else { "\"off\"" }),
                &[("n0", 0.0, 0.0), ("n1", 200.0, 0.0)],
                &udp_every("n0", "n1", "250ms", 512, "1s", "5s"),
            );
            let mut w = Scenario::from_toml_str(&text).unwrap().build();
            radio_off(&mut w, 1);
            let r = w.run();
            let packets = col(&r.flows, "packets_sent")[0];
            let case = format!("rts {rts}, limit {limit}");
            assert!(packets >= 15.0, "{case}: {packets} packets");
            let s = |stat: &str| node_stat(&r, "n0", stat);
            let per = limit as f64;
            assert_eq!(s("data_offered"), packets, "{case}");
            assert_eq!(s("drops_retry_limit"), packets, "{case}");
            assert_eq!(s("link_failures"), packets, "{case}");
            assert_eq!(s("data_acked"), 0.0, "{case}");
            assert_eq!(s("retries"), (per - 1.0) * packets, "{case}");
            assert_eq!(s("rts_frames"), if rts { per * packets } else { 0.0 }, "{case}");
            assert_eq!(s("data_frames"), if rts { 0.0 } else { per * packets }, "{case}");
            assert_eq!(s("drop_probability"), 1.0, "{case}");
            for stat in ["frames_received", "cts_frames", "ack_frames", "data_frames", "collisions"] {
                assert_eq!(node_stat(&r, "n1", stat), 0.0, "{case}: n1 {stat}");
            }
            assert_eq!(col(&r.flows, "bytes_delivered")[0], 0.0, "{case}");
        }
    }
}

/// The long retry limit on the air: A sends to B, 240 m away, with
/// RTS/CTS. C, 400 m beyond B (640 m from A: A senses none of its frames,
/// nor those of D behind it), sends to D; B senses C's frames but cannot
/// decode them (beyond 250 m), and they are only 8.9 dB weaker than A's
/// there, so each of A's frames that overlaps one is lost at B. B's CTS
/// and ACK always reach A. A short RTS often gets through, a 4.4 ms data
/// frame often does not: many packets see their data frame fail after a
/// CTS. A's capture shows each of A's data frames (the IP id names the
/// packet) and the ACKs A decoded: no packet's data frame goes more than
/// `long_retry_limit` (4) times, the retry flag is set on all but the
/// first, and many packets go exactly 4 times without an ACK (the
/// frames dropped at the long limit; they are among A's retry-limit
/// drops).
#[test]
fn a_data_frame_after_rts_cts_goes_at_most_long_retry_limit_times() {
    let long = tcplab_core::wireless::MacParams::default().long_retry_limit;
    assert_eq!(long, 4, "the issue's dot11LongRetryLimit");
    let sc = wifi(
        "20s",
        "rts_threshold = 0",
        &[("A", 0.0, 0.0), ("B", 240.0, 0.0), ("C", 640.0, 0.0), ("D", 740.0, 0.0)],
        &(udp("A", "B", "400kbps", 1000, 0.0) + &udp("C", "D", "700kbps", 1000, 0.0)),
    ) + "[[pcap]]\nnode = \"A\"\n";
    let r = run_toml(&sc).unwrap();
    let a_air = data_air(1028.0, 2e6);
    let ack_after = SIFS + ctrl_air(14.0);
    // Per packet (IP id): its data frames' (start, retry flag).
    let mut tries: std::collections::BTreeMap<u16, Vec<(f64, bool)>> = Default::default();
    let mut acks = Vec::new();
    for (t, f) in pcap_records(&r.pcaps[0].1) {
        match f[0] {
            0x08 if f[15] == 1 => {
                tries.entry(u16::from_be_bytes([f[36], f[37]])).or_default().push((t, f[1] & 0x08 != 0))
            }
            0xd4 => acks.push(t),
            _ => {}
        }
    }
    // An ACK ends SIFS + its airtime (+ 2 x 0.8 us of propagation) after
    // the data frame's end.
    let acked =
        |t: f64| acks.iter().any(|&e| e - (t + a_air + ack_after) > 0.0 && e - (t + a_air + ack_after) < 3.0 * US);
    let (mut at_limit_unacked, mut at_limit) = (0, 0);
    for (id, v) in &tries {
        assert!(v.len() <= long as usize, "packet {id}: {} data frames", v.len());
        for (k, (_, retry)) in v.iter().enumerate() {
            assert_eq!(*retry, k > 0, "packet {id}, data frame {k}");
        }
        // Only the last data frame of a packet can have been acknowledged.
        for (t, _) in &v[..v.len() - 1] {
            assert!(!acked(*t), "packet {id}: a data frame acknowledged and sent again");
        }
        if v.len() == long as usize {
            at_limit += 1;
            if !acked(v[v.len() - 1].0) {
                at_limit_unacked += 1;
            }
        }
    }
    let s = |stat: &str| node_stat(&r, "A", stat);
    let frames: usize = tries.values().map(Vec::len).sum();
    println!(
        "A: {} packets on the air, {frames} data frames, {at_limit} at the long limit ({at_limit_unacked} never acknowledged), \
         {} acknowledged, {} retry-limit drops",
        tries.len(),
        s("data_acked"),
        s("drops_retry_limit")
    );
    assert_eq!(frames as f64, s("data_frames"));
    assert!(at_limit_unacked >= 20, "{at_limit_unacked} packets dropped at the long limit");
    assert!(s("drops_retry_limit") >= at_limit_unacked as f64);
    assert!(s("data_acked") > 50.0);
    assert_eq!(s("link_failures"), s("drops_retry_limit"));
}

/// nodes.csv's `drop_probability` is the share of the unicast data frames
/// a station's MAC took on that it dropped at the retry limit. Hidden
/// terminals without RTS/CTS (A -> B <- C, sensing reaching 250 m only)
/// lose data frames at the limit: the column equals drops_retry_limit /
/// data_offered, and that share agrees with what the flows table says
/// independently (offered = delivered to B + dropped, give or take the one
/// frame under way at the end: every ACK of B reaches its sender, which
/// hears no one else). B sends no data: 0. One sender alone with its
/// receiver drops nothing: 0, with hundreds of frames offered.
#[test]
fn drop_probability_is_the_share_of_offered_frames_dropped_at_the_retry_limit() {
    let sc = wifi(
        "30s",
        "rts_threshold = \"off\"\nphy = { cs_threshold_w = 3.652e-10 }",
        &[("A", 0.0, 0.0), ("B", 200.0, 0.0), ("C", 400.0, 0.0)],
        &(udp("A", "B", "2Mbps", 1000, 0.0) + &udp("C", "B", "2Mbps", 1000, 0.0)),
    );
    let r = run_toml(&sc).unwrap();
    let short = tcplab_core::wireless::MacParams::default().short_retry_limit as f64;
    for (flow, node) in [(0, "A"), (1, "C")] {
        let s = |stat: &str| node_stat(&r, node, stat);
        let (offered, drops, acked, p) =
            (s("data_offered"), s("drops_retry_limit"), s("data_acked"), s("drop_probability"));
        let delivered = col(&r.flows, "bytes_delivered")[flow] / 1000.0;
        println!("{node}: offered {offered}, acknowledged {acked}, delivered {delivered}, dropped {drops}, p = {p:.4}");
        assert!(drops > 10.0 && p > 0.0 && p < 1.0, "{node}: {drops} drops, p {p}");
        assert_eq!(p, drops / offered, "{node}");
        let unaccounted = offered - delivered - drops;
        assert!((0.0..=1.0).contains(&unaccounted), "{node}: offered {offered} delivered {delivered} dropped {drops}");
        assert!((0.0..=1.0).contains(&(offered - acked - drops)), "{node}");
        // (One frame apart at most; the margin is for the rounding of
        // the two quotients when it is exactly one.)
        assert!((p - (offered - delivered) / offered).abs() <= 1.0 / offered + 1e-12, "{node}");
        // Each dropped frame went `short` times, each delivered at least once.
        assert!(s("data_frames") >= short * drops + acked, "{node}");
    }
    assert_eq!((node_stat(&r, "B", "data_offered"), node_stat(&r, "B", "drop_probability")), (0.0, 0.0));
    let alone = run_toml(&wifi(
        "10s",
        "rts_threshold = \"off\"",
        &[("A", 0.0, 0.0), ("B", 200.0, 0.0)],
        &udp("A", "B", "500kbps", 1000, 0.0),
    ))
    .unwrap();
    assert!(node_stat(&alone, "A", "data_offered") > 500.0);
    assert_eq!(node_stat(&alone, "A", "drops_retry_limit"), 0.0);
    assert_eq!(node_stat(&alone, "A", "drop_probability"), 0.0);
}

/// Each station's fan-out (the stations its frames are scheduled at) is
/// exactly the stations within carrier-sense range of it, each after its
/// propagation delay: the range from the default thresholds and the model
/// (`Propagation::range`, 550 m for two-ray ground; for shadowing the
/// reach of a draw 5 sigma above the mean), checked by brute force over
/// all pairs for 60 stations scattered over a square three ranges wide
/// around the origin (negative coordinates included, no pair within 0.5 m
/// of the range),
/// alone and with 300 stations 1000 ranges away, which leave every list of
/// the 60 as it was. With a flow among the 60, the run's events are the
/// same with and without the far stations.
#[test]
fn fan_out_reaches_exactly_the_stations_within_carrier_sense_range() {
    use tcplab_core::wireless::{PhyParams, Propagation};
    let phy = PhyParams::default();
    let shadowing = Propagation::Shadowing { path_loss_exponent: 2.7, sigma_db: 4.0, reference_distance: 1.0 };
    let models = [
        ("two_ray_ground", "", Propagation::TwoRayGround),
        ("free_space", "", Propagation::FreeSpace),
        (
            "shadowing",
            "\nshadowing = { path_loss_exponent = 2.7, sigma_db = 4.0, reference_distance = 1.0 }",
            shadowing,
        ),
    ];
    let two_ray_range = Propagation::TwoRayGround.range(&phy, phy.cs_threshold_w);
    assert!((two_ray_range - 550.0).abs() < 1.0, "{two_ray_range}");
    for (name, extra, prop) in models {
        let range = prop.reach(&phy);
        let mut rng = tcplab_core::engine::stream_rng(3, name);
        // The flow's two stations well within receive range of each other.
        let hop = 0.3 * prop.range(&phy, phy.rx_threshold_w);
        let mut near: Vec<(String, f64, f64)> = vec![("s0".into(), 0.0, 0.0), ("s1".into(), hop, 0.0)];
        while near.len() < 60 {
            let (x, y) = ((rng.uniform() - 0.5) * 3.0 * range, (rng.uniform() - 0.5) * 3.0 * range);
            let d = |o: &(String, f64, f64)| ((o.1 - x).powi(2) + (o.2 - y).powi(2)).sqrt();
            if near.iter().all(|o| (d(o) - range).abs() > 0.5) {
                near.push((format!("s{}", near.len()), x, y));
            }
        }
        let far: Vec<(String, f64, f64)> = (0..300)
            .map(|i| (format!("z{i}"), 1000.0 * range + 0.3 * range * (i % 20) as f64, 0.3 * range * (i / 20) as f64))
            .collect();
        let flows = udp("s0", "s1", "100kbps", 500, 0.1);
        let build = |nodes: &[(String, f64, f64)]| {
            let refs: Vec<(&str, f64, f64)> = nodes.iter().map(|(n, x, y)| (n.as_str(), *x, *y)).collect();
            let text = wifi("2s", &format!("propagation = \"{name}\"{extra}\nrouting = \"static\""), &refs, &flows);
            Scenario::from_toml_str(&text).unwrap_or_else(|e| panic!("{name}: {e}")).build()
        };
        // For each station: its fan-out as (node, delay ns), in rank order.
        let fans = |w: &tcplab_core::sim::World| -> Vec<Vec<(u32, u64)>> {
            w.nodes
                .iter()
                .map(|n| {
                    let dev = w.devices[n.devices[0] as usize].as_dyn();
                    let mut f: Vec<_> = dev.fan_targets().to_vec();
                    for pair in f.windows(2) {
                        assert!(
                            (pair[0].delay, pair[0].rank) < (pair[1].delay, pair[1].rank),
                            "sorted by (delay, rank)"
                        );
                    }
                    f.sort_by_key(|t| t.rank);
                    assert!(f.iter().enumerate().all(|(i, t)| t.rank == i as u32), "ranks 0..n");
                    f.iter().map(|t| (w.devices[t.dev as usize].as_dyn().node(), t.delay)).collect()
                })
                .collect()
        };
        let all = [near.clone(), far.clone()].concat();
        let (w_near, w_all) = (build(&near), build(&all));
        let (f_near, f_all) = (fans(&w_near), fans(&w_all));
        for (i, (_, x, y)) in all.iter().enumerate() {
            let want: Vec<(u32, u64)> = all
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .filter_map(|(j, (_, ox, oy))| {
                    let d = ((ox - x).powi(2) + (oy - y).powi(2)).sqrt();
                    (d < range).then(|| (j as u32, Propagation::delay_ns(d)))
                })
                .collect();
            assert_eq!(f_all[i], want, "{name}: station {i}");
            if i < near.len() {
                assert_eq!(f_near[i], want, "{name}: station {i} without the far stations");
            }
        }
        let sizes: Vec<usize> = f_near.iter().map(Vec::len).collect();
        println!(
            "{name}: range {range:.1} m, fan-out of 60 stations {}..{} (mean {:.1})",
            sizes.iter().min().unwrap(),
            sizes.iter().max().unwrap(),
            sizes.iter().sum::<usize>() as f64 / 60.0
        );
        assert!(sizes.iter().any(|&n| n >= 5) && sizes.iter().any(|&n| n < 59), "{name}: {sizes:?}");
        let (a, b) = (w_near.run(), w_all.run());
        assert!(total_goodput(&a) > 0.0, "{name}");
        assert_eq!(a.summary.events, b.summary.events, "{name}");
        assert_eq!(a.flows.to_csv(), b.flows.to_csv(), "{name}");
    }
}

/// A 25 x 25 grid of stations 200 m apart carrying 500 NewReno flows
/// between pairs drawn from a fixed stream: busy enough that more than
/// 1024 events are pending, so the run loop prefetches and takes up the
/// event queue's next bucket early (`EventQueue::ready_next`) while frames'
/// arrivals and reception ends carry insertion numbers reserved ahead.
/// The run's outputs are those of the same run stepped by `run_until`,
/// which does neither.
#[test]
fn a_busy_grid_that_prefetches_gives_the_outputs_of_one_that_does_not() {
    let n = 25;
    let mut rng = tcplab_core::engine::stream_rng(5, "wifi-busy-grid");
    let mut t =
        String::from("[sim]\nduration = \"0.5s\"\nseed = 1\n[wireless]\nrts_threshold = 0\nrouting = \"static\"\n");
    for i in 0..n * n {
        t += &format!("[[node]]\nname = \"g{i}\"\nposition = [{}.0, {}.0]\n", (i % n) * 200, (i / n) * 200);
    }
    for f in 0..500 {
        let a = rng.next_u64() as usize % (n * n);
        let b = (a + 1 + rng.next_u64() as usize % (n * n - 1)) % (n * n);
        t += &format!("[[flow]]\nname = \"f{f}\"\nfrom = \"g{a}\"\nto = \"g{b}\"\ntransport = \"newreno\"\n");
        t += &format!("packet_size = 512\napp = {{ kind = \"bulk\", start = \"{}ms\" }}\n", f % 100);
    }
    let (a, b) = common::run_and_stepped_run(&t, SEC / 2);
    assert_eq!(a.summary.events, b.summary.events);
    assert!(a.summary.events > 1_000_000, "{} events", a.summary.events);
    assert_eq!(a.flows.to_csv(), b.flows.to_csv());
    assert_eq!(a.nodes.to_csv(), b.nodes.to_csv());
}

/// The nodes table's interface-queue lengths (`max_queue`, and `mean_queue`
/// over the run, as links report theirs): a sender offered 6x what the
/// 2 Mbit/s channel carries keeps its queue full from the first
/// milliseconds on, at `limit` packets (`limit` - 1 counted as ns-2.35's)
/// but for the wait for the next packet after each frame the MAC takes;
/// one offered a tenth of it finds the MAC idle for every packet, which
/// waits no time; a receiver queues nothing.
#[test]
fn nodes_report_their_interface_queue_lengths() {
    let nodes = [("a", 0.0, 0.0), ("b", 100.0, 0.0)];
    for (ns2, held) in [(false, 10.0), (true, 9.0)] {
        let wireless = format!("data_rate = \"2Mbps\"\nifq = {{ limit = 10, ns2_limits = {ns2} }}");
        let r = run_toml(&wifi("10s", &wireless, &nodes, &udp("a", "b", "12Mbps", 1000, 0.0))).unwrap();
        assert!(node_stat(&r, "a", "drops_ifq") > 1000.0);
        assert_eq!(node_stat(&r, "a", "max_queue"), held);
        // After each frame the MAC takes, the queue is one short until the
        // next CBR packet: half the CBR interval on average, once a DCF
        // cycle (the time a frame takes, from the goodput).
        let cycle = 1000.0 * 8.0 / total_goodput(&r);
        let want = held - (1000.0 * 8.0 / 12e6) / 2.0 / cycle;
        let mean = node_stat(&r, "a", "mean_queue");
        // (Within 0.01: the first milliseconds, while the queue fills, are
        // about 0.004 of it.)
        assert!((mean - want).abs() < 0.01, "ns2_limits {ns2}: mean {mean}, expected {want}");
        assert_eq!((node_stat(&r, "b", "max_queue"), node_stat(&r, "b", "mean_queue")), (0.0, 0.0));
    }
    let light = run_toml(&wifi("10s", "data_rate = \"2Mbps\"", &nodes, &udp("a", "b", "200kbps", 1000, 0.0))).unwrap();
    assert_eq!(node_stat(&light, "a", "drops_ifq"), 0.0);
    assert_eq!(node_stat(&light, "a", "max_queue"), 1.0, "each packet passes through the queue");
    assert_eq!(node_stat(&light, "a", "mean_queue"), 0.0, "and leaves it at once");
}
