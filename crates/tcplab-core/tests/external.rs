//! Packets from outside the simulation (`sim/external.rs`, the emulator's
//! way through simulated 802.11 networks): handed in at a node, carried by
//! the MAC and routing as any packet, handed out at their destination at
//! the time the model says, and nothing else about the run changes.

use tcplab_core::engine::time::SEC;
use tcplab_core::output::{Column, RunOptions};
use tcplab_core::sim::external::ExternalPacket;
use tcplab_core::sim::World;
use tcplab_core::Scenario;

const US: f64 = 1e-6;

fn stations(extra: &str) -> Scenario {
    Scenario::from_toml_str(&format!(
        "[sim]\nduration = \"10s\"\n[wireless]\ndata_rate = \"2Mbps\"\nbasic_rate = \"1Mbps\"\n{extra}\n\
         [[node]]\nname = \"a\"\nposition = [0.0, 0.0]\n\
         [[node]]\nname = \"r\"\nposition = [200.0, 0.0]\n\
         [[node]]\nname = \"b\"\nposition = [400.0, 0.0]\n\
         [[flow]]\nfrom = \"a\"\nto = \"b\"\ntransport = \"newreno\"\napp = {{ kind = \"bulk\" }}\n"
    ))
    .unwrap()
}

/// The world with the flows' ends outside (`RunOptions::external`).
fn world(sc: &Scenario) -> World {
    sc.build_with(&RunOptions { external: true, ..Default::default() }).unwrap()
}

fn packet(src: u32, dst: u32) -> ExternalPacket {
    ExternalPacket { src, dst, size: 1040, payload: 1000, sport: 40000, dport: 5001, ect: false }
}

fn nodes_col(t: &tcplab_core::output::Table, name: &str) -> Vec<i64> {
    match t.column(name) {
        Some(Column::I64(v)) => v.clone(),
        _ => panic!("no column {name}"),
    }
}

/// One packet over two hops on an idle channel (no RTS at 1040 bytes):
/// each hop is DIFS, a backoff of at most 31 slots, the frame at 2 Mbit/s
/// behind its PLCP preamble, SIFS and the ACK at 1 Mbit/s; the packet comes
/// out at `b` once, in that window, and the MAC counts two data frames.
#[test]
fn a_packet_crosses_two_hops_in_the_dcf_time_and_comes_out_once() {
    let mut w = world(&stations(""));
    let uid = w.inject(SEC, packet(0, 2));
    w.step_until(2 * SEC);
    let out = w.take_delivered();
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!((out[0].uid, out[0].ce), (uid, false));
    let hop_min = 50.0 * US + 192.0 * US + (1040.0 + 28.0) * 8.0 / 2e6;
    let hop_max = hop_min + 31.0 * 20.0 * US + 10.0 * US + 192.0 * US + 14.0 * 8.0 / 1e6;
    let took = (out[0].at - SEC) as f64 / 1e9;
    assert!(took > 2.0 * hop_min && took < 2.0 * hop_max + 1e-3, "{took}");
    assert!(w.take_delivered().is_empty(), "handed out once");
    let r = w.report_at(2 * SEC, 0.0).unwrap();
    assert_eq!(nodes_col(&r.nodes, "data_frames"), vec![1, 1, 0]);
    assert_eq!(r.summary.packets_delivered, 1);
}

/// In a simulated run such a packet is one without a socket: dropped at
/// its destination and counted there; and the external world has no
/// simulated flows (its report's flows table is empty).
#[test]
fn only_the_external_world_hands_packets_out() {
    let mut w = stations("").build();
    w.inject(SEC, packet(0, 2));
    w.step_until(2 * SEC);
    assert!(w.take_delivered().is_empty());
    assert_eq!(w.report_at(2 * SEC, 0.0).unwrap().summary.drops_no_socket, 1);
    let mut w = world(&stations(""));
    w.step_until(5 * SEC);
    let r = w.report_at(5 * SEC, 0.0).unwrap();
    assert_eq!(r.flows.rows(), 0);
    assert_eq!(nodes_col(&r.nodes, "data_frames"), vec![0, 0, 0], "no application sent anything");
}

/// Many packets both ways at once saturate the channel: every one comes out
/// (or is counted as dropped by the interface queues), in time order, and
/// the same injections give the same deliveries (the model is the
/// simulator's, seeded).
#[test]
fn contention_both_ways_is_deterministic() {
    let run = || {
        let mut w = world(&stations("routing = \"aodv\""));
        // (b's packets 1 ms after a's: the route requests of two ends
        // sending at the same nanosecond collide at the relay every time.)
        for k in 0..200u64 {
            let t = SEC + k * 2_000_000;
            w.step_until(t);
            w.inject(t, packet(0, 2));
            w.step_until(t + 1_000_000);
            w.inject(t + 1_000_000, packet(2, 0));
        }
        w.step_until(9 * SEC);
        let out = w.take_delivered();
        let r = w.report_at(9 * SEC, 0.0).unwrap();
        let drops: i64 = nodes_col(&r.nodes, "drops_ifq").iter().sum::<i64>()
            + nodes_col(&r.nodes, "drops_retry_limit").iter().sum::<i64>();
        (out, drops)
    };
    let (a, drops) = run();
    assert!(a.windows(2).all(|p| p[0].at <= p[1].at));
    assert!(a.len() > 100 && a.len() as i64 + drops >= 400 - 10, "{} delivered, {drops} dropped", a.len());
    assert_eq!(run().0, a);
}
