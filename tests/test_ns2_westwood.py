"""Westwood+ and NewReno beside ns-2.35's Linux agent on the cases where
the two agree (validation/westwood_ns2.py; docs/validation.md, "Westwood+
beside ns-2.35", explains the two that do not). Skipped without ns-2."""
from __future__ import annotations

import pytest

from validation import ns2, westwood_ns2

pytestmark = pytest.mark.skipif(not ns2.available(), reason="ns-2 (ns) not installed")


@pytest.mark.parametrize("transport,limit,loss,tolerance", [
    ("newreno", 20, 0.0, 0.02),
    ("westwood", 200, 0.0, 0.05),
    ("westwood", 200, 0.001, 0.06),
    ("westwood", 20, 0.01, 0.15),
])
def test_goodput_agrees_with_ns2(transport, limit, loss, tolerance):
    r = westwood_ns2.compare(transport, limit=limit, loss=loss, seeds=3, duration=60.0)
    assert abs(r["diff_pct"]) <= 100 * tolerance, r
