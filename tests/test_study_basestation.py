"""The basestation study: the study's own set-up unchanged, its open keys,
the added experiments and the mechanism analyses of `--quick`."""

import pandas as pd
import pytest
from conftest import check_outputs_kept_when_drawing_stops, reproduce_quick

from tcplab.studies import basestation as bs


def test_default_scenario_is_the_studys():
    sc = bs.scenario("vegas", "snoop", 0.01).data
    assert [f["app"]["start"] for f in sc["flow"]] == ["0.0s", "0.1s", "0.2s", "0.3s", "0.4s"]
    assert sc["link"][7]["queue"] == {"kind": "droptail", "limit": 50}
    assert all(f["window"] == 10 for f in sc["flow"])
    assert [link["delay"] for link in sc["link"][:5]] == ["1ms"] * 5


def test_keys_change_the_scenario():
    sc = bs.scenario("reno", "plain", 0.0, queue=10, window=20, starts=bs.jitter_starts(3),
                     access_delays=bs.RTT_ACCESS_DELAYS).data
    assert sc["link"][7]["queue"]["limit"] == 10
    assert all(f["window"] == 20 for f in sc["flow"])
    starts = [float(f["app"]["start"][:-1]) for f in sc["flow"]]
    assert all(0 <= s < bs.JITTER for s in starts) and len(set(starts)) == 5
    assert bs.jitter_starts(3) == bs.jitter_starts(3) != bs.jitter_starts(4)
    assert [link["delay"] for link in sc["link"][:5]] == ["1ms", "11ms", "21ms", "31ms", "41ms"]


def test_eln_runs_ask_for_the_papers_eln_sender():
    """The study's ELN and Snoop + ELN runs ask for ELN as published, for
    every variant (the ns2 profile's own `tcp.eln_sender` is ns-2.35's, and
    its Vegas ignores the bit: `tcp.eln_all_variants`); the others keep the
    profile's."""
    import tcplab

    for v, mech in (("vegas", "eln"), ("vegas", "snoop+eln"), ("reno", "eln"), ("tahoe", "snoop+eln")):
        assert bs.scenario(v, mech, 0.01).data["tcp"] == {"eln_sender": "paper", "eln_all_variants": True}
    for v, mech in (("vegas", "plain"), ("vegas", "snoop"), ("reno", "plain"), ("newreno", "snoop")):
        assert "tcp" not in bs.scenario(v, mech, 0.01).data
    # The bit acts: Vegas resends for ELN at 5 % errors (seed 1, 20 s).
    f = tcplab.run(bs.scenario("vegas", "eln", 0.05, "20s")).columns("flows")
    assert sum(f["eln_retransmits"]) > 0


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return reproduce_quick("basestation", tmp_path_factory)


def test_quick_mode_writes_every_file(quick):
    figs = ["throughput_by_mechanism", "throughput_by_variant", "unfairness", "rtt_flows"] + [
        f"{e}_{k}" for e in bs.EXPERIMENTS for k in ("throughput", "unfairness")]
    for name in ["runs.csv", "throughput.csv", "unfairness.csv", "experiments.csv", "experiments_runs.csv",
                 "vegas_unfairness.csv", "snoop_eln.csv", "snoop_eln_episodes.csv"] + [
            f"{f}.{e}" for f in figs for e in ("png", "svg")]:
        assert (quick / name).stat().st_size > 0, name
    unf = pd.read_csv(quick / "unfairness.csv")
    # Unfairness for every variant with all four mechanisms, ELN and Snoop + ELN included.
    assert set(zip(unf.variant, unf.mechanism)) == {(v, m) for v in bs.VARIANTS for m in bs.MECHANISMS}
    assert set(pd.read_csv(quick / "experiments.csv").experiment) == set(bs.EXPERIMENTS)


def test_congested_variant_has_congestion_losses(quick):
    e = pd.read_csv(quick / "experiments.csv")
    clean = e[e.error_rate == 0]
    # With a 50-packet queue the five 10-packet windows never overflow it;
    # with a 10-packet queue they do: losses without any corruption.
    assert (clean[clean.experiment == "same-start"].retransmits == 0).all()
    assert (clean[clean.experiment == "congested"].retransmits > 0).all()
    # Aggregate never above the 2 Mbit/s hop.
    assert (e.throughput_bps * bs.N_FLOWS <= 2e6).all()


def test_different_rtts_make_reno_unfair(quick):
    e = pd.read_csv(quick / "experiments.csv")
    at0 = e[(e.error_rate == 0) & (e.variant == "reno") & (e.mechanism == "plain")].set_index("experiment")
    assert at0.loc["rtt", "unfairness"] > 10 * at0.loc["same-start", "unfairness"]
    # The shortest-RTT flow gets the most.
    row = at0.loc["rtt"]
    assert row["throughput_1_bps"] > row["throughput_5_bps"]


def test_vegas_unfairness_mechanisms(quick):
    v = pd.read_csv(quick / "vegas_unfairness.csv")
    vegas = v[v.variant == "vegas"]
    # Vegas's queue share Diff = W (1 - BaseRTT / RTT) with each flow's own
    # BaseRTT. ns-2's Vegas (the ns2 profile) rounds Diff to the nearest
    # segment before comparing it with [alpha, beta] = [1, 3], so a window is
    # left alone while the measured Diff is in [0.5, 3.5).
    diff = vegas.mean_cwnd_segments * (1 - vegas.base_rtt_ms / vegas.mean_rtt_ms)
    assert diff.between(0.5, 3.5, inclusive="left").all(), diff
    propagation = vegas.base_rtt_ms.min()

    # Staggered starts: the last starter (0.4 s) finds the queue of the four
    # earlier flows already built, takes its delay for propagation delay
    # (BaseRTT overestimated) and settles at a larger window.
    st = vegas[vegas.starts.str.startswith("staggered")].sort_values("start_s")
    first, last, others = st.iloc[0], st.iloc[-1], st.iloc[:-1]
    assert first.base_rtt_ms == pytest.approx(propagation, abs=0.5)
    assert last.base_rtt_ms > first.base_rtt_ms + 10
    assert last.mean_cwnd_segments > others.mean_cwnd_segments.max() + 2
    assert last.throughput_kbps > 1.4 * others.throughput_kbps.max()
    # Against the true propagation delay its queue share is beyond beta:
    # only the wrong BaseRTT keeps it there.
    assert last.mean_cwnd_segments * (1 - propagation / last.mean_rtt_ms) > 3.5
    assert st.throughput_kbps.max() / st.throughput_kbps.min() - 1 > 0.5

    # Same start: every flow measures the true BaseRTT, and the windows end one
    # segment apart, both inside the band: the throughputs differ as the
    # windows do (one RTT for all).
    same = vegas[vegas.starts.str.startswith("same")]
    assert (same.base_rtt_ms - propagation).abs().max() < 0.5
    w = same.mean_cwnd_segments
    assert 0.8 < w.max() - w.min() < 1.2
    assert same.mean_rtt_ms.max() / same.mean_rtt_ms.min() < 1.01
    ratio = same.throughput_kbps.max() / same.throughput_kbps.min()
    assert ratio == pytest.approx(w.max() / w.min(), rel=0.03)
    assert ratio - 1 < 0.5 * (st.throughput_kbps.max() / st.throughput_kbps.min() - 1)

    reno = v[v.variant == "reno"]
    assert (reno.groupby("starts").throughput_kbps.agg(lambda x: x.max() / x.min()) < 1.05).all()


def test_snoop_leaves_eln_nothing_to_mark(quick):
    s = pd.read_csv(quick / "snoop_eln.csv")
    for (variant, rate), g in s.groupby(["variant", "error_rate"]):
        g = g.set_index("mechanism")
        # Snoop + ELN within 1 % of Snoop alone ...
        assert g.loc["snoop+eln", "throughput_kbps"] == pytest.approx(g.loc["snoop", "throughput_kbps"], rel=0.01)
        # ... because the sender's remaining recoveries are timeouts with
        # few duplicate ACKs reaching it: Snoop suppresses them, and ELN
        # rides on duplicate ACKs. (Since Snoop's timer restarts at each new
        # ACK, a lost local copy waits a little longer and a few more
        # duplicates reach the sender: ELN resends 5-13 % of the sender's
        # retransmissions in the quick and full runs, 0-5 % before;
        # docs/studies.md.)
        assert g.loc["snoop+eln", "fast_retransmits"] <= 1
        assert g.loc["snoop+eln", "eln_retransmits"] <= 0.2 * max(g.loc["snoop+eln", "sender_retransmits"], 10)


def test_interrupted_while_drawing_leaves_the_earlier_outputs_whole(quick, tmp_path, monkeypatch):
    """Ctrl-C while the figures are drawn (four made, the fifth stops): the
    directory keeps the earlier set of tables and figures (they were
    written one by one into it, new tables beside old figures)."""
    # The trace analyses (most of the rerun's time) give the quick run's
    # tables.
    vegas = pd.read_csv(quick / "vegas_unfairness.csv")
    snoop_eln = pd.read_csv(quick / "snoop_eln.csv"), pd.read_csv(quick / "snoop_eln_episodes.csv")
    check_outputs_kept_when_drawing_stops(bs, quick, tmp_path, monkeypatch, "_panels", after=1, patches={
        "vegas_analysis": lambda duration: vegas, "snoop_eln_analysis": lambda duration: snoop_eln})
