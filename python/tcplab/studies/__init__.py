"""Reproductions of the classic studies (SPEC section 9): each module has
`run(out, quick, jobs)` that runs its sweep and writes its tables and figures."""

STUDIES = {
    "basestation": "tcplab.studies.basestation",
    "gsmlink": "tcplab.studies.gsmlink",
    "multihop": "tcplab.studies.multihop",
    "routing": "tcplab.studies.routing",
    "wifi-bs": "tcplab.studies.wifibs",
}


#: `[wireless] profile` values a study may run with.
WIRELESS_PROFILES = ["standard", "ns2"]


def check_choice(name: str, value, allowed) -> None:
    """ValueError naming the argument unless `value` is one of `allowed`."""
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(map(str, allowed))}, got {value!r}")


def check_whole(name: str, value, low: int, high: int | None = None) -> None:
    """ValueError naming the argument unless `value` is a whole number in
    [low, high] (no upper bound when `high` is None)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"from {low} to {high}"
        raise ValueError(f"{name}: expected a whole number {bound}, got {value!r}")


def wireless_profile(profile: str | None, default: str) -> str:
    """A study's `[wireless] profile`: `profile`, or the module's default
    when None; checked."""
    profile = default if profile is None else profile
    check_choice("profile", profile, WIRELESS_PROFILES)
    return profile


def get(name: str):
    import importlib

    return importlib.import_module(STUDIES[name])
