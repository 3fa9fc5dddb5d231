"""validation/routing_ns2.py: the routing study's 8-station string in
ns-2.35 with each protocol's connection put in. Two hops with AODV and
DSDV, NewReno and SACK: tcplab's ns2 profile carries what ns-2.35 carries
within 1 %; skipped when `ns` is absent."""
import shutil
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation.routing_ns2 import run_ns2, run_tcplab  # noqa: E402


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 not installed")
@pytest.mark.parametrize("protocol,variant", [("aodv", "newreno"), ("aodv", "sack"), ("dsr", "newreno")])
def test_two_hops_agree_with_ns2(protocol, variant):
    ns2 = run_ns2(protocol, variant, 2, 1, 20.0)
    ours = run_tcplab(protocol, variant, 2, 1, 20.0, "ns2")
    assert ours["throughput_bps"] == pytest.approx(ns2["throughput_bps"], rel=0.01)
