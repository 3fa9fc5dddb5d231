"""Reproductions of the classic studies (SPEC section 9): each module has
`run(out, quick, jobs)` that runs its sweep and writes its tables and figures."""

STUDIES = {
    "basestation": "tcplab.studies.basestation",
    "gsmlink": "tcplab.studies.gsmlink",
    "multihop": "tcplab.studies.multihop",
    "routing": "tcplab.studies.routing",
}


def get(name: str):
    import importlib

    return importlib.import_module(STUDIES[name])
