"""The expected-failure list (`expected_failures.json`), the outcomes of a run, and the
coverage counts derived from the list (`docs/conformance-results.json`, which
`scripts/supported_ops_doc.py` renders).

`expected_failures.json` maps each path to {case name: the one-line reason it fails}, one
entry a line. The harness checks it both ways, so with the case index it says exactly which
cases pass: the counts are computed from the two, never typed in.
"""

import json
import os
from collections.abc import Iterable
from pathlib import Path

import onnx

from conformance.cases import NodeCase, by_op
from conformance.runner import PATHS, Outcome, runs_on

EXPECTED_FAILURES = Path(__file__).with_name("expected_failures.json")
RESULTS_ENV = "MRVL_CONFORMANCE_RESULTS"
"""A file the test appends each outcome to, for update.py."""
RESULTS = Path(__file__).resolve().parents[2] / "docs" / "conformance-results.json"


def load_expected_failures(path: Path = EXPECTED_FAILURES) -> dict[str, dict[str, str]]:
    listed = json.loads(path.read_text()) if path.is_file() else {}
    return {p: dict(listed.get(p, {})) for p in PATHS}


def render_expected_failures(failures: dict[str, dict[str, str]]) -> str:
    """The list as committed: paths in order, cases sorted, one entry a line."""
    blocks = []
    for path in PATHS:
        entries = ",\n".join(f"    {json.dumps(name)}: {json.dumps(reason)}"
                             for name, reason in sorted(failures.get(path, {}).items()))
        blocks.append(f'  "{path}": {{\n{entries}\n  }}' if entries else f'  "{path}": {{}}')
    return "{\n" + ",\n".join(blocks) + "\n}\n"


def op_key(case: NodeCase) -> str:
    """The operator as the counts name it: `Abs`, or `ai.onnx.ml.LabelEncoder` in another domain."""
    return f"{case.domain}.{case.op_type}" if case.domain else case.op_type


def coverage(cases: Iterable[NodeCase], failures: dict[str, dict[str, str]]) -> dict:
    """Per operator, how many node test cases run and pass on each path (float32 ones apart)."""
    ops = {}
    totals = {"cases": 0, **{f"{p}_{k}": 0 for p in PATHS for k in ("cases", "passed")}}
    grouped: dict[str, list[NodeCase]] = {}
    for op_cases in by_op(list(cases)).values():
        for case in op_cases:
            grouped.setdefault(op_key(case), []).append(case)
    for key in sorted(grouped):
        counts = {"cases": len(grouped[key])}
        for path in PATHS:
            ran = [c for c in grouped[key] if runs_on(c, path)]
            if not ran:
                continue
            passed = [c for c in ran if c.name not in failures[path]]
            counts[f"{path}_cases"] = len(ran)
            counts[f"{path}_passed"] = len(passed)
            counts[f"{path}_float32_cases"] = sum(c.float32 for c in ran)
            counts[f"{path}_float32_passed"] = sum(c.float32 for c in passed)
            totals[f"{path}_cases"] += len(ran)
            totals[f"{path}_passed"] += len(passed)
        totals["cases"] += len(grouped[key])
        ops[key] = counts
    return {"onnx": onnx.__version__, "totals": totals, "ops": ops}


def render_results(results: dict) -> str:
    """`docs/conformance-results.json` as committed: one operator a line."""
    lines = ",\n".join(f"    {json.dumps(op)}: {json.dumps(counts)}" for op, counts in results["ops"].items())
    return (f'{{\n  "onnx": {json.dumps(results["onnx"])},\n  "totals": {json.dumps(results["totals"])},\n'
            f'  "ops": {{\n{lines}\n  }}\n}}\n')


def record(case: NodeCase, path: str, outcome: Outcome) -> None:
    """Append the outcome to $MRVL_CONFORMANCE_RESULTS (one line, so concurrent workers' appends
    do not interleave)."""
    if not (target := os.environ.get(RESULTS_ENV)):
        return
    line = json.dumps({"case": case.name, "path": path, "passed": outcome.passed, "crashed": outcome.crashed,
                       "reason": outcome.reason[:500]}) + "\n"
    fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
