//! Vegas on an error-free bottleneck: once settled it keeps between alpha and
//! beta segments queued at the bottleneck, and its window is the pipe
//! (rate x BaseRTT) plus those queued segments.

mod common;

use tcplab_core::output::Column;
use tcplab_core::run_toml;

fn scenario(alpha: f64, beta: f64) -> String {
    common::path(
        "60s",
        "rate = \"100Mbps\"\ndelay = \"1ms\"",
        "rate = \"1Mbps\"\ndelay = \"20ms\"\nqueue = { kind = \"droptail\", limit = 100 }",
        &format!(
            "transport = \"vegas\"\npacket_size = 1000\nwindow = 100\napp = {{ kind = \"bulk\" }}\nvegas = {{ alpha = {alpha}, beta = {beta}, gamma = 1 }}"
        ),
        "[output]\nsample_interval = \"10ms\"",
    )
}

/// Serialisation at 1 Mbit/s of a 1040-byte data packet and a 40-byte ACK,
/// plus the 100 Mbit/s hop both ways, plus 2 x 21 ms of propagation.
fn base_rtt() -> f64 {
    2.0 * 0.021 + 1040.0 * 8.0 / 1e6 + 40.0 * 8.0 / 1e6 + (1040.0 + 40.0) * 8.0 / 100e6
}

fn settled(alpha: f64, beta: f64) -> (f64, f64, f64) {
    let r = run_toml(&scenario(alpha, beta)).unwrap();
    let q = &r.queues;
    let (mut qsum, mut qn) = (0.0, 0.0);
    let Column::Str(dir) = q.column("direction").unwrap() else { panic!() };
    for (i, d) in dir.iter().enumerate().take(q.rows()) {
        let t = q.get("time_s", i).unwrap();
        if t >= 30.0 && q.get("link", i).unwrap() == 1.0 && d == "forward" {
            qsum += q.get("queue_packets", i).unwrap();
            qn += 1.0;
        }
    }
    let s = &r.series;
    let (mut csum, mut cn) = (0.0, 0.0);
    for i in 0..s.rows() {
        if s.get("time_s", i).unwrap() >= 30.0 {
            csum += s.get("cwnd_bytes", i).unwrap() / 1000.0;
            cn += 1.0;
        }
    }
    (qsum / qn, csum / cn, r.flows.get("retransmits", 0).unwrap())
}

#[test]
fn vegas_keeps_alpha_to_beta_segments_queued() {
    for (alpha, beta) in [(1.0, 3.0), (2.0, 2.0), (3.0, 5.0)] {
        let (queue, cwnd, rtx) = settled(alpha, beta);
        assert_eq!(rtx, 0.0, "no loss, no retransmission");
        // diff is rounded to whole segments: the queue may sit half a
        // segment outside [alpha, beta].
        assert!(
            queue >= alpha - 0.5 && queue <= beta + 0.5,
            "alpha {alpha} beta {beta}: mean queue {queue:.2} segments"
        );
        let pipe = 1e6 * base_rtt() / (1040.0 * 8.0);
        assert!(
            (cwnd - (pipe + queue)).abs() <= 1.5,
            "alpha {alpha} beta {beta}: cwnd {cwnd:.2} vs pipe {pipe:.2} + queue {queue:.2}"
        );
    }
}

#[test]
fn vegas_fills_the_bottleneck() {
    let r = run_toml(&scenario(1.0, 3.0)).unwrap();
    let thr = r.flows.get("throughput_bps", 0).unwrap();
    let limit = 1e6 * 1000.0 / 1040.0;
    assert!(thr > 0.97 * limit, "{thr} vs line rate {limit}");
}
