"""Errors the front ends turn into one-line messages with exit status 2."""


class ScenarioError(ValueError):
    """A scenario (file, --set override or API argument) is invalid.

    ``key`` is the path of the offending entry, e.g. ``link[2].rate``.
    """

    def __init__(self, message: str, key: str = ""):
        super().__init__(message)
        self.key = key


class ScenarioWarning(UserWarning):
    """A valid scenario asks for something it will not get (a setting the
    resolved ns-2 rules make inert, e.g. ``ecn = true`` on a Vegas flow
    under the ns2 profile). Issued through :mod:`warnings`, once per
    message; ``tcplab`` prints it as one line, ``tcplab: warning: ...``."""


#: An unknown key's message lists the table's keys up to this many; beyond
#: ([tcp] has about a hundred, a 2000-character line) it names the closest
#: and refers to docs/scenarios.md, where every table's keys are listed.
LIST_AT_MOST = 12

#: A sweep file's own keys (docs/sweeps.md), given to `tcplab run`.
_SWEEP_KEYS = ("scenario", "grid", "seeds")


def core_error(message: str, key: str) -> ScenarioError:
    """The core's CoreScenarioError (message, key) as a ScenarioError, an
    unknown key's message put in a scenario author's terms: the closest
    key ("did you mean"), the list shortened, a sweep file recognised. The
    core's own message keeps the whole list (tests/test_scenario_keys.py
    reads the accepted keys from it)."""
    return ScenarioError(_unknown_key(message, key), key)


def _unknown_key(message: str, key: str) -> str:
    import re

    m = re.search(r"unknown field `([^`]*)`, expected (?:one of )?(`.*)$", message)
    if m is None:
        return message
    given = m.group(1)
    names = re.findall(r"`([^`]*)`", m.group(2))
    parent = key[: -len(given) - 1] if key.endswith("." + given) else ""
    if not parent and given in _SWEEP_KEYS:
        return f"{message} (a sweep file? use tcplab sweep)"
    import difflib

    close = difflib.get_close_matches(given, names, n=1, cutoff=0.6)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    if len(names) <= LIST_AT_MOST:
        return message + hint
    return (f"{message[:m.start()]}unknown field `{given}`{hint} (the {len(names)} keys of {_table(parent)} are "
            f"listed in docs/scenarios.md)")


def _table(parent: str) -> str:
    """The docs/scenarios.md section of the table at `parent` (`flow[0].tcp`)."""
    parts = [p.split("[")[0] for p in parent.split(".")] if parent else []
    if parts and parts[-1] == "tcp":
        return "[tcp]"
    top = parts[0] if parts else ""
    return {"node": "[[node]]", "link": "[[link]]", "flow": "[[flow]]", "pcap": "[[pcap]]"}.get(
        top, f"[{top}]" if top else "a scenario")
