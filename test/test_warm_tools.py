"""lit's warm tools (test/warm_tools.py) behave as the console scripts do: the same stdout,
stderr, exit code and files, with stdin from a pipe, in the caller's working directory."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
WARM_TOOLS = HERE / "warm_tools.py"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("warm") / "tools"
    process = subprocess.Popen([sys.executable, str(WARM_TOOLS), "serve", str(path)], stdin=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not path.exists():
        assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield path
    process.stdin.close()  # the server ends with its stdin
    assert process.wait(timeout=30) == 0


GRAPH_OPS = HERE / "filecheck" / "dialects" / "graph" / "ops.mlir"
CASES = {
    "stdin from a pipe": (["mrvl-opt", "--split-input-file"], GRAPH_OPS, 0),
    "an error line": (["mrvl-opt", "no-such-file.mlir", "-o", "out.mlir"], None, 1),
    "usage (argv[0] is the tool)": (["mrvl-translate", "--no-such-flag"], None, 2),
    "an output file": (["mrvl-opt", str(GRAPH_OPS), "--split-input-file", "-o", "out.mlir"], None, 0),
}


@pytest.mark.parametrize("case", CASES)
def test_warm_run_is_the_tool_run(case: str, server: Path, tmp_path: Path) -> None:
    argv, stdin, code = CASES[case]
    runs = []
    for kind, command in (("cold", [str(BIN / argv[0])]), ("warm", [sys.executable, "-S", str(WARM_TOOLS), str(server), argv[0]])):
        cwd = tmp_path / kind
        cwd.mkdir()
        with open(stdin or os.devnull, "rb") as source:
            done = subprocess.run([*command, *argv[1:]], stdin=source, capture_output=True, cwd=cwd)
        files = {p.name: p.read_bytes() for p in cwd.iterdir()}
        runs.append((done.returncode, done.stdout, done.stderr, files))
    assert runs[0][0] == code
    assert runs[1] == runs[0]
