"""The node test cases as parameters: every case on every path it runs on (`runner.runs_on`).

The cases outside a fixed subset (per operator and path, the first case by name) are marked
`slow`: `make test` runs the subset, `make conformance` all of them (`-m ''`, over 2 cores).
With `MRVL_CONFORMANCE_RESULTS=FILE` each case's outcome is appended to FILE as a JSON line,
which `update.py` turns into the expected-failure list and the coverage counts.
"""

import pytest

from conformance.cases import NodeCase, case_folder, load_cases
from conformance.runner import PATHS, runs_on


def subset(cases: list[NodeCase]) -> set[tuple[str, str]]:
    """(case, path) of the first case by name of each operator on each path."""
    firsts: dict[tuple[str, str, str], str] = {}
    for case in sorted(cases, key=lambda c: c.name):
        for path in PATHS:
            if runs_on(case, path):
                firsts.setdefault((case.domain, case.op_type, path), case.name)
    return {(name, path) for (_, _, path), name in firsts.items()}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "node_case" not in metafunc.fixturenames:
        return
    cases = load_cases(case_folder(metafunc.config.rootpath))
    chosen = subset(cases)
    params = [
        pytest.param(case, path, id=f"{path}-{case.name}",
                     marks=() if (case.name, path) in chosen else pytest.mark.slow)
        for case in cases for path in PATHS if runs_on(case, path)
    ]
    metafunc.parametrize(("node_case", "path"), params)
