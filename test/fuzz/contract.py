"""The contract every input is held to, and the case folders runs happen in.

Every input either compiles (exit code 0, the `-o` output written) or fails with exactly
one line on stderr, `error: <input>: ...`, and exit code 1: no traceback, no internal
compiler error, no hang, nothing on stdout and no output file (nor a temporary one) left
behind. Before either, stderr may hold `warning: <input>: ...` lines, one per thing the
import worked around (a stale shape declaration), and nothing else.
"""

import os
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from fuzz.tool_server import Run, ToolServer

MNIST = Path(__file__).resolve().parents[2] / "examples" / "mnist.onnx"
"""The bundled example model, which several targets start from."""
OUTCOMES: Counter[str] = Counter()
"""Runs per target and outcome (`onnx-bytes: refused`), for the session's summary line."""
SLOWEST: dict[str, float] = {}
"""The longest run per target, in seconds."""
SECONDS: Counter[str] = Counter()
"""The time of all runs per target, in seconds."""


@dataclass
class Case:
    """A folder for one run: the input goes into `in/`, `-o` points into `out/`."""

    root: Path

    @property
    def input_dir(self) -> Path:
        return self.root / "in"

    @property
    def output_dir(self) -> Path:
        return self.root / "out"

    def write_input(self, name: str, data: bytes | str) -> Path:
        path = self.input_dir / name
        if isinstance(data, str):
            data = data.encode()
        path.write_bytes(data)
        return path


class Cases:
    """Makes an empty case folder per run, reusing one folder so that disk use stays flat."""

    def __init__(self, root: Path):
        self.root = root

    def new(self) -> Case:
        case = Case(self.root / "case")
        shutil.rmtree(case.root, ignore_errors=True)
        case.input_dir.mkdir(parents=True)
        case.output_dir.mkdir()
        return case


def run_checked(server: ToolServer, target: str, case: Case, tool: str, args: list[str], source: Path,
                output: str = "out.mlir") -> Run:
    """Run `tool args source -o out/<output>` in `case` and check the contract."""
    inputs_before = sorted(os.listdir(case.input_dir))
    output_path = case.output_dir / output
    run = server.run(tool, [*args, source, "-o", output_path], case.root)
    check_contract(run, source, output_path)
    assert sorted(os.listdir(case.input_dir)) == inputs_before, "files appeared next to the input\n" + run.report()
    if log := os.environ.get("MRVL_FUZZ_LOG"):  # every message, to read what the inputs reached
        with open(log, "a") as f:
            f.write(f"{target}\t{run.returncode}\t{run.stderr.strip()}\n")
    OUTCOMES[f"{target}: {'compiled' if run.returncode == 0 else 'refused'}"] += 1
    SLOWEST[target] = max(SLOWEST.get(target, 0.0), run.seconds)
    SECONDS[target] += run.seconds
    return run


def check_contract(run: Run, source: Path, output: Path) -> None:
    report = run.report()
    assert run.returncode >= 0, f"killed by signal {-run.returncode} (9: the time limit)\n" + report
    assert "Traceback" not in run.stderr + run.stdout, report
    assert run.returncode in (0, 1), report
    assert run.stdout == "", report
    left = sorted(os.listdir(output.parent))
    assert run.stderr == "" or run.stderr.endswith("\n"), report
    lines = run.stderr.splitlines()
    while lines and lines[0].startswith(f"warning: {source}: "):
        lines.pop(0)
    if run.returncode == 0:
        assert lines == [], report
        assert output.exists(), f"{output} was not written\n" + report
        assert left == [output.name], f"left in the output folder: {left}\n" + report
        return
    assert len(lines) == 1, "expected exactly one error line\n" + report
    assert lines[0].startswith(f"error: {source}: "), report
    assert "internal compiler error" not in lines[0], report
    assert not os.path.lexists(output), f"{output} was written\n" + report
    assert left == [], f"left in the output folder: {left}\n" + report
