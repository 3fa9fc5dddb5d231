"""FQ-CoDel and CoDel beside ns-3's (ns-3.37's FqCoDelQueueDisc and
CoDelQueueDisc, Debian's libns3-dev; ns-2.35 has neither). Both are ports
of Linux's sch_fq_codel and codel, as tcplab's are.

Open-loop traffic, so that the queues alone are compared: UDP flows at
constant rates (1000-byte payloads) from their own sources through one
10 Mbit/s, 20 ms bottleneck with the discipline under test, 20 s. The
flows' packet times are the same in both simulators (intervals and starts
in whole ns); nothing is random, so each case is one run per simulator.
ns-3's side is validation/ns3/codel_udp.cc (its links' rates raised to
hide ns-3's 2-byte PPP header; its devices hold one packet besides the
queue disc, the least ns-3 allows).

    python validation/fq_codel_ns3.py [--case NAME]

prints, per flow, the packets delivered in each, and per case the
bottleneck's time-average queue and drops. `compare` is what
tests/test_ns3_fq_codel.py uses.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import tcplab  # noqa: E402

SOURCE = ROOT / "validation" / "ns3" / "codel_udp.cc"
BUILD = ROOT / "target" / "ns3"
NS3_LIBS = ["traffic-control", "network", "stats", "core", "internet", "point-to-point", "applications",
            "flow-monitor", "bridge"]
SIZE = 1000
DURATION = 20


def available() -> bool:
    """ns-3's headers (libns3-dev) and a C++ compiler are here."""
    return (shutil.which("g++") is not None and shutil.which("pkg-config") is not None
            and Path("/usr/include/ns3/fq-codel-queue-disc.h").exists())


def program() -> Path:
    """validation/ns3/codel_udp.cc built against the system's ns-3 (once
    per change of the source)."""
    exe = BUILD / "codel_udp"
    if exe.exists() and exe.stat().st_mtime >= SOURCE.stat().st_mtime:
        return exe
    BUILD.mkdir(parents=True, exist_ok=True)
    cflags = subprocess.run(["pkg-config", "--cflags", "ns3-core"], capture_output=True, text=True).stdout.split()
    # The libraries by name, not pkg-config's --libs: Debian's .pc files
    # name libgsl.so, which only libgsl-dev installs; ns-3 registers its
    # types from the libraries' initialisers, so none may be dropped.
    libs = ["-Wl,--no-as-needed"] + [f"-lns3-{lib}" for lib in NS3_LIBS]
    tmp = exe.with_suffix(".tmp")
    subprocess.run(["g++", "-O2", "-std=c++17", str(SOURCE), "-o", str(tmp), *cflags, *libs], check=True)
    tmp.replace(exe)
    return exe


#: Payload rates (Mbit/s) of the flows, with the queue under test.
CASES = {
    # Four flows into FQ-CoDel: two above their fair share (kept to it),
    # one below (untouched), one sparse.
    "fq-codel": dict(rates=[6, 4, 2, 0.1], queue={"kind": "fq-codel"}),
    # The same into one CoDel queue: shares in proportion to the offered
    # rates.
    "codel": dict(rates=[6, 4, 2, 0.1], queue={"kind": "codel", "limit": 10240}),
    # FQ-CoDel with a 200-packet limit: batch drops from the fattest flow.
    "fq-codel-limit": dict(rates=[6, 4, 2, 0.1], queue={"kind": "fq-codel", "limit": 200}),
    # Eight flows at 2 Mbit/s each into 10: five ways over the fair share.
    "fq-codel-eight": dict(rates=[2] * 8, queue={"kind": "fq-codel"}),
}


def timing(rates: list) -> tuple[list, list]:
    """Each flow's packet interval and start in whole ns (the same numbers
    go to both simulators)."""
    return ([round(SIZE * 8 / (r * 1e6) * 1e9) for r in rates], [i * 1_370_000 for i in range(len(rates))])


def scenario(rates: list, queue: dict) -> dict:
    gaps, starts = timing(rates)
    n = len(rates)
    nodes = [{"name": f"s{i}"} for i in range(n)] + [{"name": "r1"}, {"name": "r2"}, {"name": "d"}]
    links = [{"between": [f"s{i}", "r1"], "rate": "100Mbps", "delay": "1ms"} for i in range(n)]
    links += [{"between": ["r1", "r2"], "rate": "10Mbps", "delay": "20ms", "queue": dict(queue)},
              {"between": ["r2", "d"], "rate": "100Mbps", "delay": "1ms"}]
    flows = [{"name": f"f{i}", "from": f"s{i}", "to": "d", "transport": "udp", "packet_size": SIZE,
              "app": {"kind": "cbr", "interval": f"{gaps[i]}ns", "start": f"{starts[i]}ns"}} for i in range(n)]
    return {"sim": {"duration": f"{DURATION}s", "seed": 1}, "node": nodes, "link": links, "flow": flows}


def run_ns3(rates: list, queue: dict) -> dict:
    gaps, starts = timing(rates)
    args = [str(program()), f"--intervals={','.join(map(str, gaps))}", f"--starts={','.join(map(str, starts))}",
            f"--size={SIZE}", f"--duration={DURATION}", f"--qdisc={queue['kind']}",
            f"--limit={queue.get('limit', 10240)}", f"--quantum={queue.get('quantum', 1514)}",
            f"--mtu={queue.get('mtu', 1514)}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    res = {"rx": [0] * len(rates), "tx": [0] * len(rates)}
    for line in out.splitlines():
        w = line.split()
        if w[0] == "flow":
            res["tx"][int(w[1])], res["rx"][int(w[1])] = int(w[2]), int(w[3])
        elif w[0] == "queue":
            res["mean_queue"], res["drops"] = float(w[1]), int(w[2]) + int(w[3])
    return res


def run_tcplab(rates: list, queue: dict) -> dict:
    r = tcplab.run(scenario(rates, queue))
    f, ln = r.columns("flows"), r.columns("links")
    i = next(k for k in range(len(ln["link"])) if (ln["from"][k], ln["to"][k]) == ("r1", "r2"))
    return {"rx": [round(b / SIZE) for b in f["bytes_delivered"]], "tx": list(f["packets_sent"]),
            "mean_queue": ln["mean_queue"][i],
            "drops": ln["drops_overflow"][i] + ln["drops_codel"][i]}


def compare(case: str) -> dict:
    spec = CASES[case]
    return {"tcplab": run_tcplab(**spec), "ns3": run_ns3(**spec)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", action="append", choices=sorted(CASES))
    a = ap.parse_args()
    if not available():
        print("ns-3 is not installed (apt-get install libns3-dev g++)")
        return 1
    for case in a.case or CASES:
        res = compare(case)
        ours, theirs = res["tcplab"], res["ns3"]
        for i, (x, y) in enumerate(zip(ours["rx"], theirs["rx"])):
            print(f"{case:<15} f{i:<2} delivered {x:6d} / {y:6d} ({100 * (x - y) / y:+.2f} %)")
        print(f"{case:<15} mean queue {ours['mean_queue']:.1f} / {theirs['mean_queue']:.1f} packets, "
              f"drops {ours['drops']} / {theirs['drops']}  (tcplab / ns-3)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
