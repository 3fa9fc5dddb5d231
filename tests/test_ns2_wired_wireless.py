"""validation/wired_wireless_ns2.py: wired-cum-wireless networks (base
stations, stations in their cells, DSDV over the radio) in tcplab's ns2
profile and in ns-2.35, in the script's quick form (its `--quick` seeds
and duration); skipped when `ns` is absent.

Agreement means |tcplab - ns-2| <= 3 standard errors of the difference
(from the seeds' spread on both sides) + 0.2 % of the larger mean. The
0.2 % is the residual docs/validation.md already lists for one- and
two-hop 802.11 exchanges (+0.08 to +0.15 %: the idle time between
exchanges; here from an ACK to the next RTS 517.20 us in tcplab against
519.15 in ns-2, measured on the one-cell uplink), not a margin fitted to
these runs.

Every row must agree. Two of them agree only through a rule of ns-2.35's
MAC that tcplab's ns2 profile got from this comparison (`mac.ns2_cts_wait`):
a station with frame errors (0.05 and 0.2) sending full-size data to its
base station. ns-2.35's base station, after sending a CTS, refuses every
RTS (DROP_MAC_BUSY) until the data it cleared arrives or the whole data
frame's time has passed; when the station lost that CTS to its error model
it retries into that refusal. A test checks that without the rule tcplab
carries more there (docs/validation.md, "Wired-cum-wireless").
"""
import math
import shutil
import statistics
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation.wired_wireless_ns2 import (CASES, QUICK_DURATION, QUICK_SEEDS, run_all,  # noqa: E402
                                           scenario)

needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed")
RESIDUAL = 0.002
# The rows where ns-2.35's wait after a CTS (`mac.ns2_cts_wait`, in the
# ns2 profile) decides the result (module docstring).
BUSY_AFTER_CTS = {c.label for c in CASES if c.error_rate and c.flows[0][1] == "W0"}
MEASURES = ["goodput_bps", "data_frames", "mac_retries", "retransmits"]


@pytest.fixture(scope="module")
def quick():
    seeds = list(range(1, QUICK_SEEDS + 1))
    return {c.label: (ours, theirs) for c, ours, theirs in run_all(CASES, seeds, QUICK_DURATION, jobs=2)}


def gap(ours: list, theirs: list, key: str) -> tuple:
    """The difference of the means and what agreement allows for it."""
    a, b = [r[key] for r in ours], [r[key] for r in theirs]
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    d = statistics.mean(a) - statistics.mean(b)
    return d, 3 * se + RESIDUAL * max(abs(statistics.mean(a)), abs(statistics.mean(b)))


def agrees(ours: list, theirs: list) -> list:
    bad = []
    for key in MEASURES:
        d, allowed = gap(ours, theirs, key)
        if abs(d) > allowed:
            bad.append(f"{key}: tcplab - ns-2 = {d:.1f}, allowed {allowed:.1f}")
    return bad


@needs_ns2
@pytest.mark.parametrize("label", [c.label for c in CASES])
def test_agrees_with_ns2(quick, label):
    ours, theirs = quick[label]
    assert agrees(ours, theirs) == []


@needs_ns2
def test_the_wait_after_a_cts_is_ns2s_rule_that_matters_here(quick):
    """Where a station loses the CTS it asked for (frame errors at the
    station sending data), ns-2.35's trace shows its base station refusing
    the retried RTSs as busy; ns-2 refuses none where nothing is lost (one
    cell, no frame errors) and none on the downlink with frame errors,
    where the station's frames after a lost CTS are TCP ACKs, shorter than
    the retry's backoff. Without the rule (`mac.ns2_cts_wait = false`)
    tcplab carries more on those rows: the comparison above fails there
    without it (it did before the rule was modelled)."""
    import tcplab

    for c in CASES:
        ours, theirs = quick[c.label]
        busy = statistics.mean(r["rts_busy"] for r in theirs)
        if c.label in BUSY_AFTER_CTS:
            assert busy > 100, (c.label, busy)
            without = []
            for seed in range(1, QUICK_SEEDS + 1):
                sc = scenario(c, seed, QUICK_DURATION)
                sc["wireless"].setdefault("mac", {})["ns2_cts_wait"] = False
                without.append({"goodput_bps": sum(tcplab.run(sc).flows.throughput_bps)})
            d, allowed = gap(without, ours, "goodput_bps")
            assert d > allowed, (c.label, d, allowed)
        elif c.key in ("1", "4"):
            assert busy == 0, (c.label, busy)


@needs_ns2
def test_near_cells_go_straight_over_the_air(quick):
    """Case 3: every station hears the other cell's, so ns-2.35's DSDV
    (dsdv.cc forwardPacket) and tcplab's ns2 profile send straight to the
    destination: no TCP packet on a wired link on either side. In the far
    cells both go through the base stations and the links."""
    near = next(c.label for c in CASES if c.key == "3")
    far = next(c.label for c in CASES if c.key == "2")
    ours, theirs = quick[near]
    assert [r["wired_pkts"] for r in ours + theirs] == [0] * (2 * QUICK_SEEDS)
    ours, theirs = quick[far]
    assert min(r["wired_pkts"] for r in ours + theirs) > 1000


def test_both_sides_build_the_same_network():
    """tcplab's scenario has every node, link, cell and flow of the case,
    and ns-2's queue limit is tcplab's + 1 (tcplab counts waiting packets)."""
    for c in CASES:
        sc = scenario(c, 1, 10.0)
        names = {n["name"] for n in sc["node"]}
        stations = {s for s, _, _ in c.net.stations()}
        assert names == set(c.net.wired) | {bs for bs, _, _ in c.net.cells} | stations
        assert {n["name"]: n["base_station"] for n in sc["node"] if "base_station" in n} == \
            {s: bs for s, _, bs in c.net.stations()}
        assert [tuple(l["between"]) for l in sc["link"]] == list(c.net.links)
        assert all(l["queue"]["limit"] == 49 for l in sc["link"])
        assert sc["wireless"]["profile"] == "ns2" and sc["wireless"]["routing"] == "dsdv"
        assert {n.get("frame_error_rate", 0.0) for n in sc["node"] if n.get("base_station")} == {c.error_rate}
