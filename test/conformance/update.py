"""Regenerate the expected-failure list and the coverage counts from a run of the full sweep.

    python test/conformance/update.py                  # run every case (pytest -n 2), then rewrite
    python test/conformance/update.py --results FILE   # rewrite from a run recorded earlier

A run is `pytest test/conformance -m '' ` with MRVL_CONFORMANCE_RESULTS=FILE (`make
conformance-update` does it). Rewrites `test/conformance/expected_failures.json` (every case
that failed, with its reason), `docs/conformance-results.json` (the counts per operator) and
`docs/supported-ops.md` (which shows them). Crashes are not listed: they are bugs to fix, and
the script exits 1 naming them.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "test"), str(ROOT), str(ROOT / "scripts")]

from conformance.cases import case_folder, load_cases  # noqa: E402
from conformance.results import (  # noqa: E402
    EXPECTED_FAILURES, RESULTS, RESULTS_ENV, coverage, render_expected_failures, render_results,
)
from conformance.runner import PATHS, runs_on  # noqa: E402
from mrvl_dialect.files import write_atomically  # noqa: E402


def run_sweep(results: Path, workers: int) -> None:
    """Run every case through pytest, recording outcomes into `results`."""
    env = dict(os.environ, **{RESULTS_ENV: str(results)})
    command = [sys.executable, "-m", "pytest", "test/conformance", "-q", "-m", "", "-n", str(workers),
               "-p", "no:randomly", "--no-header", "-rN", "--tb=no"]
    subprocess.run(command, cwd=ROOT, env=env, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, help="outcomes recorded by an earlier run (JSON lines)")
    parser.add_argument("-n", "--workers", type=int, default=2, help="pytest-xdist workers (default 2)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        results = args.results or Path(tmp) / "results.jsonl"
        if args.results is None:
            run_sweep(results, args.workers)
        records = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    outcomes = {(r["case"], r["path"]): r for r in records}
    cases = load_cases(case_folder(ROOT))
    wanted = {(c.name, p) for c in cases for p in PATHS if runs_on(c, p)}
    if missing := sorted(wanted - outcomes.keys()):
        print(f"error: {len(missing)} cases have no outcome (a worker died?), first: {missing[:5]}", file=sys.stderr)
        return 1
    failures: dict[str, dict[str, str]] = {p: {} for p in PATHS}
    crashes = []
    for (name, path), outcome in sorted(outcomes.items()):
        if (name, path) not in wanted or outcome["passed"]:
            continue
        if outcome["crashed"]:
            crashes.append(f"{name} on {path}: {outcome['reason']}")
        else:
            failures[path][name] = outcome["reason"]
    write_atomically(EXPECTED_FAILURES, render_expected_failures(failures))
    counts = coverage(cases, failures)
    write_atomically(RESULTS, render_results(counts))
    import supported_ops_doc

    supported_ops_doc.main([])
    totals = counts["totals"]
    for path in PATHS:
        print(f"{path}: {totals[f'{path}_passed']} of {totals[f'{path}_cases']} cases pass")
    for crash in crashes:
        print(f"crash: {crash}", file=sys.stderr)
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
