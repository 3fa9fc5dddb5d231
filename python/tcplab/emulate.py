"""Real-time emulation: the kernel's own TCP through the scenario's link
models (crates/tcplab-emu, reached through the compiled tcplab._core module,
so ``pip install .`` is all it needs). Needs root and /dev/net/tun; see
docs/emulator.md.

    import tcplab.emulate as emu
    # gsm9600's 200 ms delayed-ACK timer is not Linux's (40 ms); 10 KB of
    # the 100 KB transfer take about 15 s at 9600 bit/s (cubic's 10-segment
    # initial window overflows the 7-packet buffer: 10 retransmissions).
    res = emu.emulate("scenarios/gsm9600.toml", cc="cubic",
                      overrides=["flow[0].tcp.delack_timeout=40ms", "flow[0].app.bytes=10240"])
    res.flows, res.links, res.emulation["lateness_us"]
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import _core
from .errors import ScenarioError
from .result import Result

EmulatorUnavailable = _core.EmulatorUnavailable

#: SO_RCVBUFFORCE / SO_SNDBUFFORCE take a C int (the kernel doubles it,
#: taking at most 1 GiB; unlike SO_RCVBUF it does not cap it at
#: net.core.rmem_max / wmem_max).
MAX_SOCKBUF = 2**31 - 1


def unavailable_reason() -> str | None:
    """Why the emulator cannot run here, or None if it can."""
    if os.geteuid() != 0:
        return "the emulator needs root (CAP_NET_ADMIN) to create network namespaces and TUN devices"
    if not os.path.exists("/dev/net/tun"):
        return "no TUN device: /dev/net/tun does not exist (modprobe tun)"
    return None


class EmuResult(Result):
    """A Result whose tables come from the real stack; ``emulation`` holds
    the emulator's report (release lateness, handshake times, warnings)."""

    def __init__(self, raw: Mapping[str, Any], scenario=None):
        super().__init__(raw, scenario)
        self.emulation = json.loads(raw["emulation"])
        self.summary["emulated"] = True

    @property
    def warnings(self) -> list:
        return list(self.emulation.get("warnings", []))

    def write_files_into(self, stage, parquet: bool = False) -> list:
        """The run's files and emulation.json, into `stage`: `write` puts
        them in place together (emulation.json used to be written after
        the others were, and was left behind by a later run)."""
        written = super().write_files_into(stage, parquet=parquet)
        p = os.path.join(os.fspath(stage), "emulation.json")
        with open(p, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.emulation, indent=2, sort_keys=True) + "\n")
        return written + [p]


def _scenario(scenario):
    from .api import _as_scenario

    return _as_scenario(scenario)


def check(scenario, *, overrides: Iterable[str] = (), cc: str | None = None) -> None:
    """Raise ScenarioError if the emulator cannot run the scenario (one path
    between two ends, TCP knobs Linux has)."""
    sc = _scenario(scenario).with_overrides(overrides)
    try:
        _core.emulate_check_json(sc.to_json(), cc)
    except _core.CoreScenarioError as e:
        raise ScenarioError(e.args[0], e.args[1]) from None


def steal_note(m: Mapping[str, Any]) -> str:
    """The hypervisor's steal time during the run, for the summary line:
    on a busy host a virtual machine loses its CPUs for milliseconds, which
    delays the kernel's TCP without the relay being late."""
    steal = m.get("steal_ms")
    return "" if steal is None else f", hypervisor steal {steal:.0f} ms"


def emulate(scenario, *, seed: int | None = None, overrides: Iterable[str] = (), cc: str | None = None,
            rcvbuf: int | None = None, sndbuf: int | None = None, capture: bool = True, spin_us: int = 0,
            late_threshold_us: int = 1000) -> EmuResult:
    """Run a scenario (object, dict or TOML path) with the kernel's TCP in
    real time. ``cc`` picks the congestion control of every flow (default
    reno; e.g. cubic, bbr); ``rcvbuf``/``sndbuf`` set the socket buffers.
    Raises EmulatorUnavailable when not root or without TUN."""
    sc = _scenario(scenario).with_overrides(overrides, seed)
    for name, v in [("rcvbuf", rcvbuf), ("sndbuf", sndbuf)]:
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= MAX_SOCKBUF):
            raise ScenarioError(f"{name} must be a number of bytes from 1 to {MAX_SOCKBUF}, got {v!r}", name)
    if spin_us < 0 or late_threshold_us <= 0:
        raise ScenarioError("spin_us must be >= 0 and late_threshold_us > 0", "spin_us")
    try:
        raw = _core.emulate_json(sc.to_json(), cc, rcvbuf, sndbuf, capture, spin_us, late_threshold_us)
    except _core.CoreScenarioError as e:
        raise ScenarioError(e.args[0], e.args[1]) from None
    return EmuResult(raw, sc)


# ---- `tcplab emulate` ---------------------------------------------------



def _sockbuf(option: str):
    """An argparse type: a socket buffer size, refused in one line naming `option`."""
    import argparse

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = 0
        if not 0 < v <= MAX_SOCKBUF:
            raise argparse.ArgumentTypeError(f"{option} must be a number of bytes from 1 to {MAX_SOCKBUF}, "
                                             f"got {text!r}")
        return v

    return parse


def add_subcommand(sub) -> None:
    from .cli import positive_int

    e = sub.add_parser("emulate", help="run a scenario's flows with the kernel's TCP through the emulated path "
                                       "(real time, needs root)")
    e.add_argument("scenario", help="scenario file (TOML) with one path of links between two end nodes")
    e.add_argument("--out", help="output directory (default: results/<scenario name>-emu)")
    e.add_argument("--seed", type=int, help="run seed (replaces sim.seed; seeds the error models)")
    e.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override a scenario value (repeatable)")
    e.add_argument("--cc", help="congestion control of every flow, one of net.ipv4.tcp_available_congestion_control "
                                "(default: reno)")
    e.add_argument("--rcvbuf", type=_sockbuf("--rcvbuf"),
                   help="SO_RCVBUF of the receivers (bytes; not capped at net.core.rmem_max)")
    e.add_argument("--sndbuf", type=_sockbuf("--sndbuf"),
                   help="SO_SNDBUF of the senders (bytes; not capped at net.core.wmem_max)")
    e.add_argument("--no-pcap", action="store_true", help="do not capture the two TUN devices")
    e.add_argument("--late-threshold-us", type=positive_int("--late-threshold-us"), default=1000, metavar="US",
                   help="a packet released more than US microseconds after its due time counts as late; "
                        "late packets make the run warn (default: 1000)")
    e.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    e.set_defaults(func=cmd_emulate)


def cmd_emulate(a) -> int:
    import sys

    from .io import check_out_dir
    from .scenario import load_scenario

    sc = load_scenario(a.scenario)
    # The output directory is checked (and an empty --out refused, as by
    # tcplab run) before the real-time run, not found unusable after it.
    shown = a.out if a.out is not None else os.path.join("results", f"{Path(a.scenario).stem}-emu")
    out = check_out_dir(shown)
    try:
        res = emulate(sc, seed=a.seed, overrides=a.overrides, cc=a.cc, rcvbuf=a.rcvbuf, sndbuf=a.sndbuf,
                      capture=not a.no_pcap, late_threshold_us=a.late_threshold_us)
    except EmulatorUnavailable as e:
        print(f"tcplab: error: {e}", file=sys.stderr)
        return 1
    res.write(out)
    m = res.emulation
    if not a.quiet:
        from .cli import say

        c = res.columns("flows")
        for i, name in enumerate(c["flow"]):
            comp = c["completion_s"][i]
            say(f"{name:<12} {c['transport'][i]:<6} {c['throughput_bps'][i] / 8:>10.1f} B/s  "
                f"completion {comp if comp is not None else float('nan'):.3f} s  rtx {c['retransmits'][i]}")
        lat = m["lateness_us"]
        say(f"{m['duration_s']:.1f} s emulated; release lateness p50 {lat['p50']:.0f} us, p99 {lat['p99']:.0f} us, "
            f"max {lat['max']:.0f} us ({m['late_packets']} of {m['packets_released']} packets later than "
            f"{m['late_threshold_us']} us){steal_note(m)}; tables in {shown}/")
    for w in m.get("warnings", []):
        print(f"tcplab: warning: {w}", file=sys.stderr)
    return 0
