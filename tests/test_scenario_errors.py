"""Bad values in scenario files: `tcplab run` prints one line naming the key
(with its table path) and what is allowed, in a scenario author's words,
never a Rust type ("expected u32", "struct LinkCfg", "untagged enum
InitialWindow", "unknown variant"); exit status 2; nothing written."""
import re
import subprocess
import sys

import pytest

from conftest import cli_refusal

WIRED = """
[sim]
duration = "5s"
{sim}
[[node]]
name = "a"
{node}
[[node]]
name = "b"

[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "10ms"
{link}
[[flow]]
from = "a"
to = "b"
transport = "reno"
app = {{ kind = "bulk" }}
{flow}
"""

WIFI = """
[sim]
duration = "5s"

[[node]]
name = "a"
position = [0, 0]
{node}
[[node]]
name = "b"
position = [100, 0]

[wireless]
{wireless}
[[flow]]
from = "a"
to = "b"
transport = "reno"
app = {{ kind = "bulk" }}
"""


def wired(sim="", node="", link="", flow="", extra=""):
    return WIRED.format(sim=sim, node=node, link=link, flow=flow) + extra


def wifi(node="", wireless="", extra=""):
    return WIFI.format(node=node, wireless=wireless) + extra


# Serde's wording that means nothing to a scenario author.
RUST = re.compile(r"\b(u8|u16|u32|u64|i32|i64|f64|usize|struct|enum|variant|untagged)\b|Cfg\b|TcpOptions"
                  r"|string or map|trailing characters|there are no fields|expected value")

CASES = {
    # wrong nesting: a table where an array of tables belongs and back
    "sim_array": (wired().replace("[sim]", "[[sim]]"), "sim: invalid type: array, expected a table"),
    "node_table": (wired().replace("[[node]]\nname = \"b\"", "[node]\nname = \"b\"").replace(
        "[[node]]\nname = \"a\"\n", ""), "node: invalid type: table, expected an array"),
    "tcp_array": (wired(extra="[[tcp]]\ndelayed_ack = true\n"), "tcp: invalid type: array, expected a table"),
    "wireless_array": (wifi().replace("[wireless]", "[[wireless]]"),
                       "wireless: invalid type: array, expected a table"),
    "link_queue_array": (wired(extra="[[link.queue]]\nkind = \"droptail\"\n"),
                         "link[0].queue: invalid type: array, expected a table"),
    "flow_tcp_number": (wired(flow="tcp = 5"), "flow[0].tcp: invalid type: integer `5`, expected a table"),
    "flow_app_string": (wired().replace('app = { kind = "bulk" }', 'app = "bulk"'),
                        'flow[0].app: invalid type: string "bulk", expected a table'),
    "wireless_ifq_number": (wifi(wireless="ifq = 50"), "wireless.ifq: invalid type: integer `50`, expected a table"),
    "mobility_number": (wifi(wireless="mobility = 5"), "wireless.mobility: invalid type: integer `5`, expected a table"),
    # names: unknown ones and other types
    "transport": (wired().replace('transport = "reno"', 'transport = "quic"'),
                  "flow[0].transport: unknown name `quic`, expected one of `tahoe`, `reno`, `newreno`"),
    "queue_kind": (wired(link='queue = { kind = "fifo" }'),
                   "link[0].queue.kind: unknown name `fifo`, expected one of `droptail`, `unlimited`, `red`, "
                   "`dual-threshold`"),
    "error_direction_number": (wired(link='error = { kind = "uniform", rate = 0.1, direction = 1 }'),
                               "link[0].error.direction: expected a name, one of `forward`, `reverse`, `both`; got 1"),
    "error_packets_array": (wired(link='error = { kind = "uniform", rate = 0.1, packets = ["data"] }'),
                            'link[0].error.packets: expected a name, one of `all`, `data`, `acks`; got ["data"]'),
    "error_direction_table": (wired(link='error = { kind = "uniform", rate = 0.1, direction = { up = 1 } }'),
                              "link[0].error.direction: expected a name, one of `forward`, `reverse`, `both`; got"),
    "error_action_name": (wired(link='error = { kind = "pattern", drop = [3], action = "corrupt" }'),
                          "link[0].error.action: unknown name `corrupt`, expected one of `drop`, `mark`, `delay`"),
    "error_action_delay_uniform": (wired(link='error = { kind = "uniform", rate = 0.1, action = "delay" }'),
                                   'link[0].error.action: "delay" is for kind = "pattern" only'),
    "red_generator_skips_disagree": (
        wired(link='queue = { kind = "red", min_th = 5, max_th = 15, generator = "ns2", generator_skip = 2 }\n'
                   'reverse = { queue = { kind = "red", min_th = 5, max_th = 15, generator = "ns2" } }'),
        "link[0].reverse.queue.generator_skip: is 0 but link[0].queue.generator_skip is 2: RED queues on ns-2's "
        "generator draw from its one stream, so their skips must agree"),
    "red_mark_p_without_use_mark_p": (
        wired(link='queue = { kind = "red", min_th = 5, max_th = 15, use_mark_p = false, mark_p = 0.1 }'),
        "link[0].queue.mark_p: is read only with use_mark_p (ns-2's mark_p_ with use_mark_p_ true); "
        "use_mark_p = false marks every early hit"),
    "red_queue_in_bytes_not_a_bool": (
        wired(link='queue = { kind = "red", min_th = 5, max_th = 15, queue_in_bytes = 1 }'),
        "link[0].queue.queue_in_bytes"),
    "red_mark_p_zero": (wired(link='queue = { kind = "red", min_th = 5, max_th = 15, mark_p = 0 }'),
                        "link[0].queue.mark_p: must be a number above 0, got 0"),
    "error_flow_unknown": (wired(link='error = { kind = "pattern", drop = [3], flow = "nosuch" }'),
                           'link[0].error.flow: no flow named "nosuch"; the flows are ["flow0"]'),
    "error_action_number": (wired(link='error = { kind = "pattern", drop = [3], action = 3 }'),
                            "link[0].error.action: expected a name, one of `drop`, `mark`, `delay`; got 3"),
    "tcp_syn_immediate_ack": (wired(flow='tcp = { syn_immediate_ack = "no" }'),
                              "flow[0].tcp.syn_immediate_ack: invalid type: string \"no\", expected true or false"),
    "routing": (wifi(wireless='routing = "rip"'),
                "wireless.routing: unknown name `rip`, expected one of `static`, `aodv`, `dsdv`, `dsr`, `olsr`"),
    "ifq_kind": (wifi(wireless='ifq = { kind = "fifo" }'),
                 "wireless.ifq.kind: unknown name `fifo`, expected `priqueue` or `cmupriqueue`"),
    "transfer_more_before_start": (
        wired().replace('app = { kind = "bulk" }',
                        'app = { kind = "transfer", bytes = 1000, start = "1s", more = [{ at = "0.5s", bytes = 10 }] }'),
        "flow[0].app.more[0].at: must not be before the transfer's start"),
    "transfer_more_zero": (
        wired().replace('app = { kind = "bulk" }',
                        'app = { kind = "transfer", bytes = 1000, more = [{ at = "2s", bytes = 0 }] }'),
        "flow[0].app.more[0].bytes: must be at least 1"),
    "messages_interval_zero": (
        wired().replace('app = { kind = "bulk" }', 'app = { kind = "messages", interval = "0s" }'),
        "flow[0].app.interval: must be above 0"),
    "messages_skip_without_ns2": (
        wired().replace('app = { kind = "bulk" }', 'app = { kind = "messages", interval = "1s", generator_skip = 2 }'),
        'flow[0].app.generator_skip: is for generator = "ns2" only'),
    "messages_change_before_start": (
        wired().replace('app = { kind = "bulk" }', 'app = { kind = "messages", interval = "1s", start = "2s", '
                        'changes = [{ at = "1s", interval = "2s" }] }'),
        "flow[0].app.changes[0].at: must not be before start"),
    "tcp_idle_restart": (wired(extra='[tcp]\nidle_restart = "never"\n'),
                         "tcp.idle_restart: unknown name `never`, expected one of `ns2-timer`, `rfc5681`, `linux`, `off`"),
    "tcp_cwnd_increase": (wired(extra='[tcp]\ncwnd_increase = "per-packet"\n'),
                          "tcp.cwnd_increase: unknown name `per-packet`, expected `per-ack` or `per-segment`"),
    "tcp_loss_window": (wired(extra='[tcp]\nloss_window = "half"\n'),
                        "tcp.loss_window: unknown name `half`, expected `cwnd` or `flight`"),
    "unlimited_limit": (wired(link='queue = { kind = "unlimited", limit = 5 }'),
                        "link[0].queue.limit: unknown field `limit`, this kind takes no other keys"),
    # a number of segments or a word
    "initial_window_word": (wired(extra='[tcp]\ninitial_window = "three"\n'),
                            'tcp.initial_window: must be 1..64 segments or "rfc3390", got "three"'),
    "initial_window_bool": (wired(flow="tcp = { initial_window = true }"),
                            'flow[0].tcp.initial_window: must be 1..64 segments or "rfc3390", got true'),
    "initial_window_fraction": (wired(extra="[tcp]\ninitial_window = 2.5\n"),
                                'tcp.initial_window: must be 1..64 segments or "rfc3390", got 2.5'),
    "rts_threshold_bool": (wifi(wireless="rts_threshold = true"),
                           'wireless.rts_threshold: must be a whole number of bytes >= 0 or "off", got true'),
    # fixed-length lists
    "between_three": (wired().replace('between = ["a", "b"]', 'between = ["a", "b", "a"]'),
                      "link[0].between: must be [a, b], two node names, got 3 values"),
    "between_numbers": (wired().replace('between = ["a", "b"]', "between = [1, 2]"),
                        "link[0].between[0]: invalid type: integer `1`, expected a string"),
    "waypoint_five": (wifi(node="waypoints = [[1, 2, 3, 4, 5]]", wireless='routing = "aodv"'),
                      "node[0].waypoints[0]: must be [time s, x m, y m, speed m/s], got 5 values"),
    "mobility_area": (wifi(wireless='routing = "aodv"\nmobility = { model = "random_waypoint", area = [1, 2, 3], '
                                    "speed = [1, 2] }"),
                      "wireless.mobility.area: must be [width, height] in metres, got 3 values"),
    "mobility_speed": (wifi(wireless='routing = "aodv"\nmobility = { model = "random_waypoint", area = [1, 2], '
                                     "speed = [1] }"),
                       "wireless.mobility.speed: must be [min, max] in m/s, got 1 value"),
    "thinning": (wired(extra="[tcp]\nthinning_thresholds = [1, 2, 3, 4]\n"),
                 "tcp.thinning_thresholds: must be [d2, d3, d4], three segment numbers, got 4 values"),
    # a tick phase of a whole tick or more, set globally or per flow
    "clock_phase_tick": (wired(extra='[tcp]\nclock_phase = "10ms"\n'),
                         "tcp.clock_phase: must be below the tick (granularity 0.01 s) for flow[0], got 0.01 s"),
    "clock_phase_flow": (wired(flow='tcp = { clock_phase = "2ms", granularity = "1ms" }'),
                         "flow[0].tcp.clock_phase: must be below the tick (granularity 0.001 s) for flow[0], got 0.002 s"),
    # a pattern model that delays needs its delay, and only it takes one
    "pattern_delay_missing": (wired(link='error = { kind = "pattern", drop = [3], action = "delay" }'),
                              'link[0].error.delay: required with action = "delay"'),
    "pattern_delay_with_drop": (wired(link='error = { kind = "pattern", drop = [3], delay = "50ms" }'),
                                'link[0].error.delay: only with action = "delay"'),
    # plain types, for comparison (already so before)
    "limit_string": (wired(link='queue = { kind = "droptail", limit = "ten" }'),
                     'link[0].queue.limit: invalid type: string "ten", expected a whole number >= 0'),
    # an interval that leaves only the sample at 0 s (docs/scenarios.md, [output])
    "sample_interval_long": (wired(extra='[output]\nsample_interval = "100s"\n'),
                             "output.sample_interval: 100 s is longer than the run (sim.duration = 5 s)"),
    # a key's own range, not its type's ("a whole number >= 0 (below 2^32)")
    "packet_size_string": (wired(flow='packet_size = "1500B"'),
                           'flow[0].packet_size: invalid type: string "1500B", expected a whole number of bytes, '
                           '1..65000'),
    "transfer_bytes_negative": (wired().replace('app = { kind = "bulk" }', 'app = { kind = "transfer", bytes = -5 }'),
                                "flow[0].app.bytes: invalid value: integer `-5`, expected a whole number of bytes >= 1"),
    # 1e9 s is not "above 1e9 s", and is refused: the range excludes it
    "duration_1e9": (wired().replace('duration = "5s"', "duration = 1e9"),
                     "sim.duration: invalid duration 1000000000: a duration cannot be negative and must be below "
                     "1e9 s"),
    # the closest key, and a short line instead of [tcp]'s ~100 keys
    "tcp_key_misspelled": (wired(extra="[tcp]\ndelayed_acks = true\n"),
                           "tcp.delayed_acks: unknown field `delayed_acks`; did you mean `delayed_ack`? (the "),
    "flow_tcp_key_unknown": (wired(flow="tcp = { zzzz = true }"),
                             "flow[0].tcp.zzzz: unknown field `zzzz` (the "),
    "link_key_misspelled": (wired(link='rates = "1Mbps"'),
                            "link[0].rates: unknown field `rates`, expected one of `between`, `rate`"),
    # a jitter that lets a seed start every flow after the end, as app.start there is
    "start_jitter_past_the_end": (wired(flow='start_jitter = "100s"'),
                                  "flow[0].start_jitter: app.start + start_jitter (100 s) reaches past the end of "
                                  "the run (sim.duration = 5 s)"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_scenario_file_names_key_and_allowed_values(case, tmp_path):
    text, expect = CASES[case]
    line = cli_refusal(tmp_path, text)
    assert line.startswith("tcplab: error: ") and expect in line, line
    assert not RUST.search(line), line


def test_unknown_keys_get_the_closest_and_a_short_line(tmp_path):
    line = cli_refusal(tmp_path, wired(extra="[tcp]\ndelayed_acks = true\n"))
    assert len(line) < 160 and "keys of [tcp] are listed in docs/scenarios.md" in line, line
    line = cli_refusal(tmp_path, wired(link='rates = "1Mbps"'))
    assert line.endswith("; did you mean `rate`?"), line


def test_a_sweep_file_given_to_run_says_so(tmp_path):
    from conftest import SCENARIOS

    line = cli_refusal(tmp_path, (SCENARIOS / "sweeps" / "dumbbell-loss.toml").read_text())
    assert line.startswith("tcplab: error: scenario: unknown field `scenario`"), line
    assert line.endswith("(a sweep file? use tcplab sweep)"), line


def test_base_scenarios_are_good(tmp_path):
    """The cases above fail for their own change, not for the base."""
    for name, text in [("wired", wired()), ("wifi", wifi())]:
        f = tmp_path / f"{name}.toml"
        f.write_text(text)
        r = subprocess.run([sys.executable, "-m", "tcplab", "validate", str(f)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_sample_interval_up_to_the_duration_samples_start_and_end():
    """An interval equal to the duration is allowed: samples at 0 s and at the end."""
    import tcplab

    sc = {"sim": {"duration": "5s"}, "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "1Mbps", "delay": "10ms"}],
          "flow": [{"from": "a", "to": "b", "transport": "reno", "app": {"kind": "bulk"}}]}
    assert tcplab.run(sc, sample_interval="5s").series.time_s.tolist() == [0.0, 5.0]
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc, sample_interval=1e8)
    assert e.value.key == "output.sample_interval"
