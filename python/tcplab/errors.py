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
