use tcplab_core::run_toml;

#[test]
fn two_nodes_udp() {
    let sc = r#"
[sim]
duration = "5s"
[wireless]
data_rate = "2Mbps"
rts_threshold = "off"
[[node]]
name = "a"
position = [0.0, 0.0]
[[node]]
name = "b"
position = [100.0, 0.0]
[[flow]]
from = "a"
to = "b"
transport = "udp"
packet_size = 1000
app = { kind = "cbr", rate = "3Mbps" }
"#;
    let r = run_toml(sc).unwrap();
    println!("{}", r.flows.to_csv());
    println!("{:?}", r.summary);
}
