"""Errors the front ends turn into one-line messages with exit status 2."""


class ScenarioError(ValueError):
    """A scenario (file, --set override or API argument) is invalid.

    ``key`` is the path of the offending entry, e.g. ``link[2].rate``.
    """

    def __init__(self, message: str, key: str = ""):
        super().__init__(message)
        self.key = key
