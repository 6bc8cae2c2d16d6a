"""The ONNX backend node test suite through the compiler (`runner` says how), checked against
the expected-failure list both ways: a case not listed must pass, a listed case must still
fail (it shows as xfailed; once it passes, take it off with `make conformance-update`). A
crash (internal compiler error, a traceback out of a run) fails whether listed or not."""

from pathlib import Path

import pytest

from conformance.cases import NodeCase
from conformance.results import load_expected_failures, record
from conformance.runner import run_case

EXPECTED = load_expected_failures()


def test_node_case(node_case: NodeCase, path: str, tmp_path: Path) -> None:
    outcome = run_case(node_case, path, tmp_path)
    record(node_case, path, outcome)
    assert not outcome.crashed, f"{node_case.name} on {path}: {outcome.reason}"
    listed = EXPECTED[path].get(node_case.name)
    if listed is None:
        assert outcome.passed, f"{node_case.name} on {path}: {outcome.reason}"
    elif outcome.passed:
        pytest.fail(f"{node_case.name} passes on {path} now, but the expected-failure list has it "
                    f"({listed}): run make conformance-update")
    else:
        pytest.xfail(outcome.reason)
