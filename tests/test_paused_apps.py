"""Applications that pause: a transfer's later writes (`more`) and the
messages app (exponential gaps, ns-2's Telnet). Their windows after a
pause are held packet by packet in idle_tests.rs and against ns-2's
golden outputs in test_ns2_suites.py (test-suite-tcp's quiescent* and
underutilized* tests); here: they run, their counts follow from their
keys, and a seed fixes them."""
import math
import tomllib

import tcplab

BASE = """
[sim]
duration = "{dur}"
seed = {seed}
tcp_profile = "{profile}"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
[[flow]]
name = "f"
from = "a"
to = "b"
transport = "newreno"
packet_size = 1000
app = {app}
"""


def run(app, dur="20s", seed=1, profile="ns2"):
    return tcplab.run(tomllib.loads(BASE.format(dur=dur, seed=seed, profile=profile, app=app)))


def test_messages_count_follows_the_mean_gap():
    # 1000-byte messages every 10 ms on average for 20 s on an idle 10 Mbit/s
    # link: about 2000 segments, each message one segment (Poisson count:
    # within five standard deviations).
    r = run('{ kind = "messages", interval = "10ms" }')
    sent = int(r.flows["packets_sent"][0])
    assert abs(sent - 2000) < 5 * math.sqrt(2000), sent
    assert int(r.flows["retransmits"][0]) == 0


def test_messages_mean_changes_and_stop():
    # 10 ms for 10 s, then 1 ms until the stop at 12 s: about 1000 + 2000.
    r = run('{ kind = "messages", interval = "10ms", stop = "12s", changes = [{ at = "10s", interval = "1ms" }] }')
    sent = int(r.flows["packets_sent"][0])
    assert abs(sent - 3000) < 5 * math.sqrt(3000), sent


def test_messages_same_seed_same_run_other_seed_other_run():
    app = '{ kind = "messages", interval = "10ms" }'
    a, b, c = run(app, seed=3), run(app, seed=3), run(app, seed=4)
    cols = ("packets_sent", "bytes_delivered", "final_srtt_s")
    assert [list(a.flows[k]) for k in cols] == [list(b.flows[k]) for k in cols]
    assert list(a.flows["packets_sent"]) != list(c.flows["packets_sent"])


def test_transfer_more_writes_and_completes_with_the_last():
    # 100 kB at 0, 50 kB more at 5 s and at 10 s: everything delivered, and
    # the completion time is the last write's (after 10 s).
    r = run('{ kind = "transfer", bytes = 100000, more = [{ at = "5s", bytes = 50000 }, { at = "10s", bytes = 50000 }] }')
    assert int(r.flows["bytes_delivered"][0]) == 200000
    assert 10.0 < float(r.flows["completion_s"][0]) < 11.0


def test_each_profile_restarts_its_own_way_after_a_pause():
    # The window left by a 1 MB transfer, then 5 s idle: the ns2 profile's
    # timer has set it to one segment, rfc's RFC 5681 restart to the
    # initial window (2), linux's decay to its initial window (10); the
    # last write's completion shows it (more round trips from one segment).
    app = '{ kind = "transfer", bytes = 1000000, more = [{ at = "10s", bytes = 100000 }] }'
    done = {p: float(run(app, profile=p).flows["completion_s"][0]) for p in ("ns2", "rfc", "linux")}
    assert done["ns2"] > done["rfc"] > done["linux"] > 10.0, done
