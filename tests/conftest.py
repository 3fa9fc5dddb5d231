import signal
import subprocess
import sys
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def scenario_error_key(sc: dict) -> str:
    """The key the ScenarioError of running `sc` names (it must raise)."""
    import tcplab

    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(sc)
    return e.value.key


def one_flow_toml(transport: str, profile: str | None = "ns2") -> str:
    """One bulk flow of `transport` over a 1 Mbit/s link (under `profile`)."""
    sim = '[sim]\nduration = "1s"\n' + (f'tcp_profile = "{profile}"\n' if profile else "")
    return (sim + '[[node]]\nname = "a"\n[[node]]\nname = "b"\n'
            '[[link]]\nbetween = ["a", "b"]\nrate = "1Mbps"\ndelay = "1ms"\n'
            f'[[flow]]\nfrom = "a"\nto = "b"\ntransport = "{transport}"\napp = {{ kind = "bulk" }}\n')


def cli_refusal(tmp_path: Path, text: str) -> str:
    """`tcplab run` on scenario `text`, its outputs to tmp_path / "o": it
    must exit 2 with one line on stderr and write nothing. Returns the line."""
    sc = tmp_path / "s.toml"
    sc.write_text(text)
    r = subprocess.run([sys.executable, "-m", "tcplab", "run", str(sc), "--out", str(tmp_path / "o"), "--quiet"],
                       capture_output=True, text=True)
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert not (tmp_path / "o").exists(), "nothing written for a bad scenario"
    return lines[0]

# A test run started in the background by a non-interactive shell
# (`bash .ci/run &`) inherits SIGINT ignored, and so would every process it
# starts: the Ctrl-C tests would fail without testing anything. With
# Python's own handler here, this process raises KeyboardInterrupt and the
# processes it starts begin with the default action (a caught signal is
# reset on exec, an ignored one is not).
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def small_scenario() -> dict:
    """A two-flow, three-node network that runs in milliseconds."""
    return {
        "sim": {"duration": "20s", "seed": 1},
        "node": [{"name": "a"}, {"name": "r"}, {"name": "b"}],
        "link": [
            {"between": ["a", "r"], "rate": "10Mbps", "delay": "1ms"},
            {"between": ["r", "b"], "rate": "1Mbps", "delay": "20ms",
             "error": {"kind": "uniform", "rate": 0.01}},
        ],
        "flow": [
            {"name": "f1", "from": "a", "to": "b", "transport": "newreno", "window": 20,
             "app": {"kind": "bulk"}},
            {"name": "f2", "from": "a", "to": "b", "transport": "tahoe", "window": 20,
             "app": {"kind": "transfer", "bytes": 50000, "write": 256, "start": "1s"}},
        ],
    }


def reproduce_quick(study: str, tmp_path_factory) -> Path:
    """Run `tcplab reproduce STUDY --quick` into a fresh directory (for a
    module-scoped fixture) and return it; the command must succeed."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp(study)
    r = subprocess.run([sys.executable, "-m", "tcplab", "reproduce", study, "--quick", "--out", str(out), "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def check_outputs_kept_when_drawing_stops(study, quick: Path, tmp_path: Path, monkeypatch, figure_fn: str,
                                          after: int = 0, patches: dict | None = None) -> dict:
    """Rerun `study` (a module with `run`) on a copy of its quick run (every
    run stored: the rerun only analyses and draws) with `figure_fn` raising
    KeyboardInterrupt on its call number `after` + 1, i.e. once other
    figures are in the making. The directory must keep the earlier set of
    tables and figures, not new tables beside old figures, and no temporary
    files; then a rerun without the fault must write the whole set into
    the directory and return paths there. Returns that rerun's result.

    For speed the figures are built but not rendered (saving them is most
    of a rerun's time; the quick run itself saved them for real), and
    `patches` ({name: replacement}) may stand in for other slow steps of
    the study's `run`."""
    import shutil

    from tcplab.studies import figures

    def save_unrendered(fig, out, name, written):
        for ext in ("png", "svg"):
            p = Path(out) / f"{name}.{ext}"
            p.write_bytes(b"new figure\n")
            written.append(p)
        figures.pyplot().close(fig)

    monkeypatch.setattr(figures, "save", save_unrendered)
    for name, replacement in (patches or {}).items():
        monkeypatch.setattr(study, name, replacement)

    out = tmp_path / "study"
    shutil.copytree(quick, out)
    outputs = sorted(p.name for p in out.iterdir() if p.is_file())
    assert outputs, "the quick run wrote its tables and figures"
    for name in outputs:
        (out / name).write_bytes(b"earlier set\n")

    real = getattr(study, figure_fn)
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) > after:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(study, figure_fn, interrupted)
    with pytest.raises(KeyboardInterrupt):
        study.run(out, quick=True, jobs=1, progress=False)
    assert calls, f"{figure_fn} was drawn"
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == outputs
    assert all((out / name).read_bytes() == b"earlier set\n" for name in outputs)
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")], "no temporary files left"

    monkeypatch.setattr(study, figure_fn, real)
    res = study.run(out, quick=True, jobs=1, progress=False)
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == outputs
    assert not [n for n in outputs if (out / n).read_bytes() == b"earlier set\n"], "every file replaced"
    assert res["figures"] and all(p.parent == out and p.exists() for p in res["figures"])
    assert {p.name for p in res["figures"]} == {n for n in outputs if n.endswith((".png", ".svg"))}
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]
    return res


def sack_blocks(options: bytes) -> list:
    """The (left, right) edges of a TCP header's SACK option, if any."""
    i = 0
    while i < len(options) and options[i] != 0:
        if options[i] == 1:
            i += 1
            continue
        kind, length = options[i], options[i + 1]
        if kind == 5:
            return [struct.unpack(">II", options[j:j + 8]) for j in range(i + 2, i + length, 8)]
        i += length
    return []


def read_pcap(data: bytes) -> list:
    """(time s, src, dst, ip length, tcp payload, seq, flags, ack, SACK
    blocks) of every IPv4/TCP packet."""
    magic = struct.unpack("<I", data[:4])[0]
    scale = 1e-9 if magic == 0xA1B23C4D else 1e-6
    off, out = 24, []
    while off + 16 <= len(data):
        s, frac, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        off += 16
        p = data[off:off + incl]
        off += incl
        ihl = (p[0] & 15) * 4
        total = struct.unpack(">H", p[2:4])[0]
        tcp = p[ihl:]
        hl = (tcp[12] >> 4) * 4
        out.append((s + frac * scale, ".".join(map(str, p[12:16])), ".".join(map(str, p[16:20])), total,
                    total - ihl - hl, struct.unpack(">I", tcp[4:8])[0], tcp[13], struct.unpack(">I", tcp[8:12])[0],
                    sack_blocks(tcp[20:hl])))
    return out


def ooo_acked_share(packets: list, sender: str) -> float:
    """From the receiver's capture: of the data segments that arrive above
    the first hole (each one beyond the highest seen so far, from the one
    that opens the hole until an ACK passes it), the share the receiver
    answers with an ACK before the next segment comes."""
    first = next(p[5] for p in packets if p[1] == sender and p[4] > 0)
    top, hole, ooo, answered, waiting = 0, None, 0, 0, False
    for p in packets:
        rel = ((p[5] if p[1] == sender else p[7]) - first) % 2**32
        if rel > 10**9:
            continue
        if p[1] == sender and p[4] > 0:
            waiting = False
            if rel > top and hole is None:
                hole = top
            if hole is not None and rel >= top:
                ooo += 1
                waiting = True
            top = max(top, rel + p[4])
        elif p[1] != sender and p[6] & 0x10:
            if hole is not None and rel > hole:
                break
            answered += waiting
            waiting = False
    return answered / max(ooo, 1)


def linux_flow(app: dict, limit: int, duration: str = "60s", tcp: dict | None = None,
               pcap: str | None = None) -> dict:
    """One linux-profile NewReno flow a -> b, 1000-byte segments, a window
    of 1000 segments, over 10 Mbit/s and 10 ms each way through a DropTail
    queue of `limit` packets (the kernel comparisons' path), with `tcp`
    keys and a capture at node `pcap` if given."""
    sc = {"sim": {"duration": duration, "tcp_profile": "linux"},
          "node": [{"name": "a"}, {"name": "b"}],
          "link": [{"between": ["a", "b"], "rate": "10Mbps", "delay": "10ms",
                    "queue": {"kind": "droptail", "limit": limit}}],
          "tcp": dict(tcp or {}),
          "flow": [{"name": "f", "from": "a", "to": "b", "transport": "newreno", "packet_size": 1000,
                    "window": 1000, "app": app}]}
    if pcap:
        sc["pcap"] = [{"node": pcap}]
    return sc
