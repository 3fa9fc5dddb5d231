"""Moving stations (SPEC 5): waypoints as ns-2's setdest gives them, random
waypoint, what the routing protocols and the counters see, and bad input."""
import json

import pytest

import tcplab
from tcplab.api import prepare
from tcplab.errors import ScenarioError


def pair(waypoints, b_at=(200.0, 0.0), routing="aodv", duration="20s", seed=1) -> dict:
    """Station a fixed at the origin, station b starting at `b_at` and
    following `waypoints`; 10 UDP datagrams a second from a to b from 1 s."""
    return {
        "sim": {"duration": duration, "seed": seed},
        "wireless": {"routing": routing},
        "node": [{"name": "a", "position": [0.0, 0.0]},
                 {"name": "b", "position": list(b_at), "waypoints": waypoints}],
        "flow": [{"from": "a", "to": "b", "transport": "udp", "packet_size": 500,
                  "app": {"kind": "cbr", "interval": "100ms", "start": "1s"}}],
    }


@pytest.mark.parametrize("routing", ["aodv", "dsdv", "dsr", "olsr"])
def test_a_station_moving_away_is_lost_at_the_receive_range(routing):
    # b leaves at 10 m/s from 200 m: 250 m (the receive range of ns-2.35's
    # WaveLAN defaults) at exactly 5 s. Datagrams sent at 1.0 ... 5.0 s can
    # arrive, none after; the link failure that follows is a true one.
    res = tcplab.run(pair([[0.0, 1200.0, 0.0, 10.0]], routing=routing))
    delivered = res.flows.bytes_delivered[0] // 500
    assert delivered <= 41
    assert delivered >= (41 if routing == "aodv" else 30)  # the proactive ones first need a route
    assert res.nodes.false_route_failures.sum() == 0


def test_a_station_coming_closer_is_found():
    # b starts 400 m away (out of range) and stops at 100 m: in range from
    # 15 s; AODV finds the route once b can hear the requests.
    res = tcplab.run(pair([[10.0, 100.0, 0.0, 30.0]], b_at=(400.0, 0.0), duration="30s"))
    got = res.flows.bytes_delivered[0] // 500
    assert 100 < got <= 160  # about 15 s of 10 a second, less the discovery's wait


def test_exact_position_at_the_edge():
    # Positions are exact at the instant a frame starts: sent at 5.0 s the
    # datagram finds b at 250 m, on the receive threshold (inclusive); from
    # 1 cm further back it finds b at 250.01 m and is lost.
    on_edge = tcplab.run(pair([[0.0, 1200.0, 0.0, 10.0]]))
    beyond = tcplab.run(pair([[0.0, 1200.0, 0.0, 10.0]], b_at=(200.01, 0.0)))
    assert on_edge.flows.bytes_delivered[0] // 500 == 41
    assert beyond.flows.bytes_delivered[0] // 500 == 40


def waypoint_field(seed=1, routing="aodv") -> dict:
    nodes = [{"name": f"m{i}", "position": [150.0 * (i % 5), 150.0 * (i // 5)]} for i in range(10)]
    return {
        "sim": {"duration": "60s", "seed": seed},
        "wireless": {"routing": routing,
                     "mobility": {"model": "random_waypoint", "area": [800.0, 300.0], "speed": [1.0, 19.0],
                                  "pause": "1s"}},
        "node": nodes,
        "flow": [{"from": "m0", "to": "m9", "transport": "newreno", "packet_size": 1460, "window": 8,
                  "app": {"kind": "bulk", "start": "1s"}}],
    }


def test_random_waypoint_is_the_same_for_the_same_seed():
    a = tcplab.run(waypoint_field(1))
    b = tcplab.run(waypoint_field(1))
    c = tcplab.run(waypoint_field(2))
    assert a.flows.equals(b.flows) and a.nodes.equals(b.nodes)
    assert a.summary["events"] == b.summary["events"]
    assert a.summary["events"] != c.summary["events"]


def test_only_named_stations_move():
    sc = waypoint_field(1)
    sc["wireless"]["mobility"]["nodes"] = ["m3"]
    moving = tcplab.run(sc)
    still = waypoint_field(1)
    del still["wireless"]["mobility"]
    assert moving.summary["events"] != tcplab.run(still).summary["events"]


@pytest.mark.parametrize("edit,key", [
    (lambda s: s["wireless"].update(routing="static"), "wireless.mobility"),
    (lambda s: s["wireless"]["mobility"].update(area=[0.0, 300.0]), "wireless.mobility.area"),
    (lambda s: s["wireless"]["mobility"].update(speed=[5.0, 2.0]), "wireless.mobility.speed"),
    (lambda s: s["wireless"]["mobility"].update(speed=[0.0, 0.0]), "wireless.mobility.speed"),
    (lambda s: s["wireless"]["mobility"].update(model="gauss_markov"), "wireless.mobility.model"),
    (lambda s: s["wireless"]["mobility"].update(nodes=["nobody"]), "wireless.mobility.nodes[0]"),
    (lambda s: s["node"][1].update(waypoints=[[5.0, 0.0, 0.0, 1.0], [4.0, 0.0, 0.0, 1.0]]), "node[1].waypoints[1]"),
    (lambda s: s["node"][1].update(waypoints=[[1.0, 0.0, 0.0, -1.0]]), "node[1].waypoints[0]"),
])
def test_bad_mobility_names_the_key(edit, key):
    sc = waypoint_field()
    edit(sc)
    with pytest.raises(ScenarioError) as e:
        prepare(sc)
    assert e.value.key == key, str(e.value)


def test_waypoints_with_static_routing_are_refused():
    with pytest.raises(ScenarioError) as e:
        prepare(pair([[0.0, 1200.0, 0.0, 10.0]], routing="static"))
    assert e.value.key == "node[1].waypoints"


SCEN_3 = """set god_ [God instance]
$ns_ at 50.000000000000 "$node_(2) setdest 369.463244915743 170.519203111152 3.371785899154"
$ns_ at 51.000000000000 "$node_(1) setdest 221.826585497093 80.855495003839 14.909259208114"
$ns_ at 33.000000000000 "$node_(0) setdest 89.663708107313 283.494644426442 19.153832288917"
$god_ set-dist 1 2 2
$node_(2) set Z_ 0.000000000000
$node_(2) set Y_ 199.373306816804
$node_(2) set X_ 591.256560093833
$node_(1) set Y_ 345.357731779204
$node_(1) set X_ 257.046298323157
$node_(0) set Y_ 239.438009831261
$node_(0) set X_ 83.364418416244
"""


def test_setdest_files_give_positions_and_waypoints(tmp_path):
    # The form of ns-2's own scen-3-test (ns2-examples, tcl/mobility/scene).
    from tcplab.setdest import read_setdest

    (tmp_path / "scen").write_text(SCEN_3)
    moves = read_setdest(str(tmp_path / "scen"))
    assert moves[0]["position"] == [83.364418416244, 239.438009831261]
    assert moves[2]["waypoints"] == [[50.0, 369.463244915743, 170.519203111152, 3.371785899154]]
    scenario = tmp_path / "s.toml"
    scenario.write_text('[sim]\nduration = "60s"\n[wireless]\nrouting = "aodv"\nsetdest = "scen"\n'
                        + "".join(f'[[node]]\nname = "n{i}"\n' for i in range(3))
                        + '[[flow]]\nfrom = "n0"\nto = "n1"\ntransport = "udp"\n'
                          'app = { kind = "cbr", interval = "1s" }\n')
    sc = tcplab.load_scenario(scenario)
    # Read when the scenario goes to the core, so that overrides can name
    # another file or give a node its own position.
    assert sc.data["wireless"]["setdest"] == "scen"
    core = json.loads(sc.to_json())
    assert "setdest" not in core["wireless"]
    assert core["node"][1]["position"] == [257.046298323157, 345.357731779204]
    assert core["node"][1]["waypoints"] == [[51.0, 221.826585497093, 80.855495003839, 14.909259208114]]
    tcplab.run(sc)  # the moved scenario is valid and runs


@pytest.mark.parametrize("text,what", [
    ("$node_(0) set X_ 1.0\n", "no starting position"),
    ("$node_(0) set X_ 1.0\n$node_(0) set Y_ nan\n", "not a finite number"),
    ("$node_(5) set X_ 1.0\n$node_(5) set Y_ 1.0\n", "moves node 5, but the scenario has 3 nodes"),
    ('$node_(0) set X_ 1.0\n$node_(0) set Y_ 1.0\n$ns_ at 5.0 "$node_(0) setdest 1 2 -3"\n', r"scen:3: time and speed"),
    ('$node_(0) set X_ 1.0\n$node_(0) set Y_ 1.0\n$ns_ at -1 "$node_(0) setdest 1 2 3"\n', r"scen:3: time and speed"),
])
def test_bad_setdest_files_name_the_key(tmp_path, text, what):
    (tmp_path / "scen").write_text(text)
    scenario = tmp_path / "s.toml"
    scenario.write_text('[sim]\nduration = "1s"\n[wireless]\nrouting = "aodv"\nsetdest = "scen"\n'
                        + "".join(f'[[node]]\nname = "n{i}"\nposition = [0.0, 0.0]\n' for i in range(3)))
    with pytest.raises(ScenarioError, match=what) as e:
        tcplab.load_scenario(scenario).validate()
    assert e.value.key == "wireless.setdest"


def test_far_receivers_of_a_moving_sender_get_their_frames():
    # Free space with a huge transmit power: b and c hear a from 200 km,
    # 667 us away, longer than the gap between a's frames; d jumps away
    # between two of them. Each arrival names its receiver, so a's next
    # neighbour list cannot misdirect the ones still on their way (found
    # by review: a panic, "a receiver of the frame").
    sc = {
        "sim": {"duration": "4s", "seed": 1},
        "wireless": {"routing": "aodv", "propagation": "free_space", "phy": {"tx_power_w": 1e6}},
        "node": [{"name": "a", "position": [0.0, 0.0]}, {"name": "e", "position": [50.0, 0.0]},
                 {"name": "b", "position": [200e3, 0.0]}, {"name": "c", "position": [-200e3, 0.0]},
                 {"name": "d", "position": [100.0, 0.0], "waypoints": [[2.0, 1e9, 0.0, 1e12]]}],
        "flow": [{"from": "a", "to": "e", "transport": "udp", "packet_size": 500,
                  "app": {"kind": "cbr", "interval": "5ms", "start": "1s"}}],
    }
    res = tcplab.run(sc)
    assert res.flows.bytes_delivered[0] > 500 * 500


def test_nothing_moving_keeps_the_reachability_check():
    sc = pair([], b_at=(5000.0, 0.0))
    with pytest.raises(ScenarioError, match="no route") as e:
        prepare(sc)
    assert e.value.key == "flow[0].to"


def test_waypoints_need_the_radio_channel():
    sc = {"sim": {"duration": "1s"}, "node": [{"name": "a", "waypoints": [[0.0, 1.0, 1.0, 1.0]]}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "1ms"}]}
    with pytest.raises(ScenarioError) as e:
        prepare(sc)
    assert e.value.key == "node[0].waypoints"


@pytest.mark.parametrize("mobility", [
    {"area": [1e-9, 1e-9], "speed": [1.0, 1.0]},     # legs of no length
    {"area": [1e-3, 1e-3], "speed": [1e9, 1e9]},     # legs of no time
])
def test_random_waypoint_with_endless_legs_is_refused(mobility):
    sc = waypoint_field()
    sc["wireless"]["mobility"].update(mobility)
    with pytest.raises(ScenarioError, match="million moves") as e:
        prepare(sc)
    assert e.value.key == "wireless.mobility.speed"


def test_a_node_named_twice_to_move_is_refused():
    sc = waypoint_field()
    sc["wireless"]["mobility"]["nodes"] = ["m1", "m1"]
    with pytest.raises(ScenarioError, match="named twice") as e:
        prepare(sc)
    assert e.value.key == "wireless.mobility.nodes[1]"


def test_setdest_comments_and_other_timed_commands(tmp_path):
    from tcplab.setdest import read_setdest

    (tmp_path / "ok").write_text('$node_(0) set X_ 1.0\n$node_(0) set Y_ 2.0\n'
                                 '$ns_ at 4.0 "$node_(0) setdest 10.0 20.0 3.0" ;# a comment\n')
    assert read_setdest(str(tmp_path / "ok"))[0]["waypoints"] == [[4.0, 10.0, 20.0, 3.0]]
    (tmp_path / "bad").write_text('$node_(0) set X_ 1.0\n$node_(0) set Y_ 2.0\n$ns_ at 4.0 "$node_(0) set X_ 100.0"\n')
    with pytest.raises(ScenarioError, match="only `setdest` commands"):
        read_setdest(str(tmp_path / "bad"))


def test_setdest_in_a_dict_scenario(tmp_path):
    (tmp_path / "scen").write_text(SCEN_3)
    sc = {"sim": {"duration": "10s"}, "wireless": {"routing": "aodv", "setdest": str(tmp_path / "scen")},
          "node": [{"name": f"n{i}"} for i in range(3)],
          "flow": [{"from": "n0", "to": "n1", "transport": "udp", "app": {"kind": "cbr", "interval": "1s"}}]}
    assert tcplab.run(sc).flows.bytes_delivered[0] > 0


MOVES_AWAY = ('$node_(0) set X_ 0.0\n$node_(0) set Y_ 0.0\n$node_(1) set X_ 100.0\n$node_(1) set Y_ 0.0\n'
              '$ns_ at 2.0 "$node_(1) setdest 1000.0 0.0 50.0"\n')
STAYS = '$node_(0) set X_ 0.0\n$node_(0) set Y_ 0.0\n$node_(1) set X_ 100.0\n$node_(1) set Y_ 0.0\n'
PAIR = ('[sim]\nduration = "6s"\n[wireless]\nrouting = "aodv"\nsetdest = "away.tcl"\n'
        '[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
        '[[flow]]\nfrom = "a"\nto = "b"\ntransport = "udp"\napp = { kind = "cbr", interval = "100ms" }\n')


@pytest.fixture
def moving_pair(tmp_path):
    (tmp_path / "away.tcl").write_text(MOVES_AWAY)
    (tmp_path / "stays.tcl").write_text(STAYS)
    (tmp_path / "s.toml").write_text(PAIR)
    return tmp_path


def _delivered(res) -> int:
    return int(res.flows.bytes_delivered[0]) // 1000


def test_an_override_of_the_movement_file_replaces_it(moving_pair):
    # b leaves at 2 s at 50 m/s and is out of range 3 s later; the other
    # file keeps it still. The override must not mix the two files.
    s = moving_pair / "s.toml"
    away, stays = tcplab.run(s), tcplab.run(s, overrides=["wireless.setdest=stays.tcl"])
    assert _delivered(away) < _delivered(stays) == 60


def test_a_nodes_own_position_wins_over_the_movement_file_from_a_file_or_a_dict(moving_pair):
    # Given by --set (or in the scenario), a node's position is the user's:
    # 300 m is out of range, so the flow is refused, whether the scenario
    # comes as a path or as a dict.
    import tomllib

    s = moving_pair / "s.toml"
    as_dict = tomllib.loads(PAIR)
    as_dict["wireless"]["setdest"] = str(moving_pair / "stays.tcl")
    for sc in (s, as_dict):
        with pytest.raises(ScenarioError, match="no radio path") as e:
            tcplab.run(sc, overrides=["wireless.setdest=stays.tcl" if sc is s else "sim.seed=1",
                                      "node[1].position=[300.0, 0.0]"])
        assert e.value.key == "flow[0].to"


def test_a_sweep_over_movement_files(moving_pair):
    runs = tcplab.sweep(str(moving_pair / "s.toml"), grid={"wireless.setdest": ["away.tcl", "stays.tcl"]},
                        metrics=["throughput_bps"], out=moving_pair / "sweep", jobs=1, progress=False).runs
    by_file = dict(zip(runs["wireless.setdest"], runs["throughput_bps"]))
    assert by_file["away.tcl"] < by_file["stays.tcl"]


def test_an_error_in_what_the_movement_file_gives_names_the_file(moving_pair):
    # Static routing cannot move stations: the waypoints came from the
    # file, so the error says so instead of naming a key the user never wrote.
    with pytest.raises(ScenarioError, match=r"away.tcl gives node 1 its waypoints: moving stations need") as e:
        tcplab.run(moving_pair / "s.toml", overrides=["wireless.routing=static"])
    assert e.value.key == "wireless.setdest"


def test_base_stations_stay_where_they_are():
    # Random waypoint moves the stations, not the base stations (nodes with
    # [[link]]s): naming one, or giving it waypoints, is refused.
    cells = tcplab.load_scenario("scenarios/wifi-cells.toml")
    moving = ["wireless.mobility={model=\"random_waypoint\", area=[600.0, 600.0], speed=[1.0, 2.0]}"]
    tcplab.run(cells, overrides=moving + ["sim.duration=9s"])
    with pytest.raises(ScenarioError, match="a base station stays where it is") as e:
        tcplab.run(cells, overrides=moving + ['wireless.mobility.nodes=["bs1"]'])
    assert e.value.key == "wireless.mobility.nodes[0]"
    with pytest.raises(ScenarioError, match="a base station stays where it is") as e:
        tcplab.run(cells, overrides=["node[2].waypoints=[[1.0, 0.0, 0.0, 5.0]]"])
    assert e.value.key == "node[2].waypoints"
