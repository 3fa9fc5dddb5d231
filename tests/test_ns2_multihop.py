"""validation/multihop_ns2.py: the multihop study's chain with ns-2.35's
Vegas and paced UDP put in. On a 2-hop chain (no routing repairs, nothing
lost) tcplab's ns2 profile and ns-2.35 carry the same within 0.5 % and hold
the same Vegas window; skipped when `ns` is absent."""
import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation.multihop_ns2 import parse_variant, run_ns2, run_tcplab  # noqa: E402

needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed")


@needs_ns2
@pytest.mark.parametrize("config,interval", [("vegas2", None), ("newreno", None), ("udp", 20.0)])
def test_two_hops_agree_with_ns2(config, interval):
    ns2 = run_ns2(2, 1, 20.0, config, interval)
    ours = run_tcplab(2, 1, 20.0, config, interval, parse_variant("ns2"))
    assert ours["goodput_bps"] == pytest.approx(ns2["goodput_bps"], rel=0.005)
    if config == "vegas2":
        # Both hold three whole packets in flight (ns-2's cwnd_ has fractions
        # its window() never uses).
        assert ours["avg_usable_pkts"] == pytest.approx(3.0, abs=0.05)
        assert ns2["avg_usable_pkts"] == pytest.approx(3.0, abs=0.05)


def test_variants_are_checked():
    assert parse_variant("study") == frozenset()
    assert parse_variant("ns2+d30") == {"ns2", "d30"}
    with pytest.raises(Exception, match="--variants"):
        parse_variant("ns3")
