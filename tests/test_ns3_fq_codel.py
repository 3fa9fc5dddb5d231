"""FQ-CoDel and CoDel beside ns-3.37's (validation/fq_codel_ns3.py):
constant-rate UDP flows through one 10 Mbit/s bottleneck, 20 s, the same
packet times in both simulators. Measured (docs/validation.md, "FQ-CoDel
and CoDel beside ns-3"): every flow's delivered packets equal under
FQ-CoDel, CoDel's drops and mean queue within 0.1 %; one difference, by
mechanism: at its packet limit ns-3 does not raise the fattest flow's
CoDel count by the packets its batch dropped, as Linux does (and tcplab),
so its queue stands 8 % longer there (with tcplab's bump taken out the two
agree to 0.1 packets)."""
import functools
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT))
from validation import fq_codel_ns3  # noqa: E402

pytestmark = pytest.mark.skipif(not fq_codel_ns3.available(),
                                reason="ns-3 not installed (apt-get install libns3-dev g++)")


@functools.cache
def run(case: str) -> dict:
    return fq_codel_ns3.compare(case)


def rel(a: float, b: float) -> float:
    return abs(a - b) / b


@pytest.mark.parametrize("case", ["fq-codel", "fq-codel-eight", "fq-codel-limit"])
def test_fq_codel_shares_as_ns3(case):
    """Each flow's delivered packets: measured equal or within two packets
    of ~3000-9500."""
    ours, theirs = run(case)["tcplab"], run(case)["ns3"]
    assert ours["tx"] == pytest.approx(theirs["tx"], abs=1)
    for i, (x, y) in enumerate(zip(ours["rx"], theirs["rx"])):
        assert abs(x - y) <= max(3, 0.001 * y), (case, i, x, y)


@pytest.mark.parametrize("case", ["fq-codel", "fq-codel-eight", "codel"])
def test_codel_drops_and_queue_as_ns3(case):
    """Drops within 0.2 % (measured 0.01-0.15 %), the time-average queue
    within 3 % (0.04-2.7 %: ns-3's device holds one packet more)."""
    ours, theirs = run(case)["tcplab"], run(case)["ns3"]
    assert rel(ours["drops"], theirs["drops"]) < 0.002, (ours, theirs)
    assert rel(ours["mean_queue"], theirs["mean_queue"]) < 0.03, (ours, theirs)


def test_one_codel_queue_shares_in_proportion_to_the_offered_rates():
    """One FIFO: the flows lose alike, so the three large ones' deliveries
    agree within 0.2 %; the sparse one's 250 packets lose 40-54 to where
    CoDel's drops fall (a binomial spread of about 6)."""
    ours, theirs = run("codel")["tcplab"], run("codel")["ns3"]
    for x, y in zip(ours["rx"][:3], theirs["rx"][:3]):
        assert rel(x, y) < 0.002, (x, y)
    assert abs(ours["rx"][3] - theirs["rx"][3]) < 20


def test_at_the_limit_linux_raises_the_fat_flows_codel_count_and_ns3_does_not():
    ours, theirs = run("fq-codel-limit")["tcplab"], run("fq-codel-limit")["ns3"]
    assert 0.05 < (theirs["mean_queue"] - ours["mean_queue"]) / theirs["mean_queue"] < 0.12, (ours, theirs)
    assert rel(ours["drops"], theirs["drops"]) < 0.02
