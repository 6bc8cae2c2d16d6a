"""Bad binary ONNX models given to the command-line tools.

The contract: on bad input, `mrvl-opt` / `mrvl-translate` print exactly one line to
stderr, `error: <file>: <where>: <what>`, exit with code 1, print no traceback and write
no output file (with `-o out`, `out` does not exist afterwards and no temporary file is
left in its folder).

Every case runs the tool in a process of its own with a 3 GiB address-space limit, so
that a model declaring terabytes of weights fails instead of allocating them, and a time
limit. To stay fast, one driver process imports the tools once and forks a child per
case that runs the console-script entry point; a few cases, and the success cases, also
go through the installed `mrvl-opt` / `mrvl-translate` scripts.
"""

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
MEMORY_LIMIT = 3 << 30
TIMEOUT_S = 60
PARALLEL = max(2, min(8, os.cpu_count() or 1))

_BIN = Path(sys.executable).parent


def _tool(name: str) -> list[str]:
    script = _BIN / name
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", {"mrvl-opt": "mrvl.opt", "mrvl-translate": "mrvl.translate"}[name]]


# Runs the tool under an address-space limit (exec keeps the tool's exit code).
_LIMITED = (
    "import os, resource, sys; "
    f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
    "os.execv(sys.argv[1], sys.argv[1:])"
)


# --- models -----------------------------------------------------------------------


def _vi(name: str, shape=(4, 256), elem=FLOAT) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, initializers=(), opset=17, graph_name="g") -> onnx.ModelProto:
    graph = helper.make_graph(nodes, graph_name, inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", opset), helper.make_opsetid("com.acme", 1)]
    return helper.make_model(graph, ir_version=8, opset_imports=opsets)


def _weights(n: int = 1024) -> np.ndarray:
    return np.arange(n, dtype=np.float32).reshape(4, n // 4)


def _add_model() -> onnx.ModelProto:
    """y = x + w, with w a 4 KiB initializer (large enough to be memory-mapped)."""
    return _model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [_vi("x")],
        [_vi("y")],
        [numpy_helper.from_array(_weights(), "w")],
    )


def _with_initializer(tensor: TensorProto, op: str = "Identity", out_elem: int = FLOAT) -> onnx.ModelProto:
    """y = op(w): the bad initializer `w` is used, so it must be read or checked."""
    return _model([helper.make_node(op, ["w"], ["y"], name="n")], [], [_vi("y", None, out_elem)], [tensor])


def _raw(dims, nbytes: int, data_type: int = FLOAT) -> TensorProto:
    return TensorProto(name="w", data_type=data_type, dims=list(dims), raw_data=bytes(nbytes))


def _unruled_op_model(domain: str, op_type: str, declared) -> onnx.ModelProto:
    """y = Relu(op(x)) with an op ONNX has no shape inference rule for; `declared` is the
    shape value_info gives its output (None: no value_info entry)."""
    node = helper.make_node(op_type, ["x"], ["t"], name="op", domain=domain)
    model = _model([node, helper.make_node("Relu", ["t"], ["y"], name="relu")], [_vi("x", [6, 1, 4])],
                   [_vi("y", None)])
    if declared is not None:
        model.graph.value_info.append(_vi("t", declared))
    if domain != "com.acme":
        model.opset_import.append(helper.make_opsetid(domain, 1))
    return model


def _save(model: onnx.ModelProto) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        path = folder / "model.onnx"
        onnx.save_model(model, path)
        return path

    return build


def _write(data: bytes, name: str = "model.onnx") -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path

    return build


def _truncated(folder: Path) -> Path:
    data = _add_model().SerializeToString()
    return _write(data[: len(data) // 2])(folder)


def _directory(folder: Path) -> Path:
    path = folder / "model.onnx"
    path.mkdir()
    return path


def _missing(folder: Path) -> Path:
    return folder / "missing.onnx"


def _bad_utf8_graph_name(folder: Path) -> Path:
    """The graph's name is not UTF-8 (protobuf string fields are not checked on read)."""
    data = _model([helper.make_node("Relu", ["x"], ["y"], name="a")], [_vi("x")], [_vi("y")],
                  graph_name="graph\u00ff").SerializeToString()
    assert data.count("graph\u00ff".encode()) == 1
    return _write(data.replace("graph\u00ff".encode(), b"graph\xff\xfe"))(folder)


def _bad_utf8_node_name(folder: Path) -> Path:
    data = _model([helper.make_node("Relu", ["x"], ["y"], name="node\u00ff")], [_vi("x")],
                  [_vi("y")]).SerializeToString()
    assert data.count("node\u00ff".encode()) == 1
    return _write(data.replace("node\u00ff".encode(), b"node\xff\xfe"))(folder)


# --- cases ------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    build: Callable[[Path], Path]
    """Writes the input into the given folder and returns its path."""
    words: list[str] = field(default_factory=list)
    """Words the error line must contain (besides `error: <file>: `)."""
    tool: str = "mrvl-opt"
    args: list[str] = field(default_factory=list)
    """More arguments for the tool."""
    output: str = "out.mlir"
    """Where `-o` points, relative to the case's (empty) output folder ("x/": a folder)."""


CASES = [
    Case("truncated", _truncated, ["truncated"]),
    Case("truncated-translate", _truncated, ["truncated"], tool="mrvl-translate"),
    Case("random-bytes", _write(np.random.default_rng(0).bytes(4096)), ["not an ONNX model"]),
    Case("text-file", _write(b"ir_version: 8\ngraph { name: 'g' }\n"), ["not an ONNX model"]),
    Case("empty-file", _write(b""), ["empty"]),
    Case("directory", _directory, ["directory"]),
    Case("missing-file", _missing, ["no such file"]),
    Case(
        "cycle",
        _save(_model(
            [
                helper.make_node("Relu", ["u"], ["t"], name="a"),
                helper.make_node("Relu", ["t"], ["u"], name="b"),
                helper.make_node("Add", ["x", "u"], ["y"], name="c"),
            ],
            [_vi("x")],
            [_vi("y")],
        )),
        ["cycle", "node 'a' (Relu)"],
    ),
    Case(
        "cycle-translate",
        _save(_model([helper.make_node("Relu", ["y"], ["y"], name="self")], [], [_vi("y")])),
        ["cycle", "node 'self' (Relu)"],
        tool="mrvl-translate",
    ),
    Case(
        "undefined-input",
        _save(_model([helper.make_node("Add", ["x", "nope"], ["y"], name="add")], [_vi("x")], [_vi("y")])),
        ["node 'add' (Add)", "'nope'"],
    ),
    Case(
        "undefined-graph-output",
        _save(_model([helper.make_node("Relu", ["x"], ["y"], name="a")], [_vi("x")], [_vi("y"), _vi("z")])),
        ["graph output 'z'"],
    ),
    Case(
        "undefined-graph-output-opset-28",
        _save(_model([helper.make_node("Relu", ["x"], ["y"], name="a")], [_vi("x")], [_vi("y"), _vi("z")],
                     opset=28)),
        ["graph output 'z'"],
    ),
    Case(
        "unnamed-graph-output",
        _save(_model([helper.make_node("Relu", ["x"], ["y"], name="a")], [_vi("x")], [_vi("")])),
        ["graph output"],
    ),
    Case(
        "duplicate-initializer",
        _save(_model(
            [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
            [_vi("x")],
            [_vi("y")],
            [numpy_helper.from_array(_weights(), "w"), numpy_helper.from_array(-_weights(), "w")],
        )),
        ["'w'"],
    ),
    Case(
        "string-initializer",
        _save(_model(
            [helper.make_node("Tokenize", ["w"], ["y"], name="n", domain="com.acme")],
            [],
            [_vi("y", [2])],
            [helper.make_tensor("w", TensorProto.STRING, [2], [b"a", b"b"])],
        )),
        ["'w'", "STRING"],
    ),
    Case(
        "no-shape-rule-com-microsoft",
        _save(_unruled_op_model("com.microsoft", "AttnLSTM", None)),
        ["node 'op' (com.microsoft.AttnLSTM): no shape inference rule for this op (domain com.microsoft); "
         "declare the type and static shape of 't'"],
    ),
    Case(
        "no-shape-rule-com-microsoft-dynamic",
        _save(_unruled_op_model("com.microsoft", "AttnLSTM", ["seq", 1, 1, 8])),
        ["node 'op' (com.microsoft.AttnLSTM): no shape inference rule for this op (domain com.microsoft); "
         "'t' is declared [seq, 1, 1, 8]: declare its static shape"],
    ),
    Case(
        "no-shape-rule-custom-domain-dynamic",
        _save(_unruled_op_model("com.acme", "Frobnicate", [None, 4])),
        ["node 'op' (com.acme.Frobnicate): no shape inference rule for this op (domain com.acme); "
         "'t' is declared [?, 4]: declare its static shape"],
    ),
    Case(
        "float8-initializer-mapped",
        _save(_with_initializer(_raw([2048], 2048, TensorProto.FLOAT8E4M3FN), out_elem=TensorProto.FLOAT8E4M3FN)),
        ["'w'", "FLOAT8E4M3FN"],
    ),
    Case("raw-data-too-short-mapped", _save(_with_initializer(_raw([4, 256], 2000), op="Relu")),
         ["initializer 'w'", "2000", "4096"]),
    Case("raw-data-too-long-mapped", _save(_with_initializer(_raw([4, 256], 8192), op="Relu")),
         ["initializer 'w'", "8192", "4096"]),
    Case("raw-data-too-short-small", _save(_with_initializer(_raw([4, 256], 12), op="Relu")),
         ["initializer 'w'"]),
    Case("raw-data-too-long-small", _save(_with_initializer(_raw([2], 12), op="Relu")),
         ["initializer 'w'"]),
    Case("no-data", _save(_with_initializer(TensorProto(name="w", data_type=FLOAT, dims=[4, 256]), op="Relu")),
         ["initializer 'w'"]),
    # Dims that declare terabytes, or whose product does not fit in 64 bits: refused by
    # comparing sizes, never by trying to allocate them (the memory limit would turn an
    # attempt into an internal error).
    Case("terabytes-mapped", _save(_with_initializer(_raw([1 << 20, 1 << 20], 4096))), ["initializer 'w'"]),
    Case("terabytes-small", _save(_with_initializer(_raw([1 << 20, 1 << 20], 16))), ["initializer 'w'"]),
    Case("8-gib-small", _save(_with_initializer(_raw([1 << 31], 16))), ["initializer 'w'"]),
    Case("overflowing-dims-mapped", _save(_with_initializer(_raw([1 << 62, 1 << 62, 16], 4096))),
         ["initializer 'w'"]),
    Case("overflowing-dims-small", _save(_with_initializer(_raw([1 << 62, 1 << 62, 16], 16))),
         ["initializer 'w'"]),
    Case("negative-dim-mapped", _save(_with_initializer(_raw([-1, 1024], 4096))), ["initializer 'w'"]),
    Case(
        "newline-in-node-name",
        _save(_model([helper.make_node("Add", ["x", "nope"], ["y"], name="first\nsecond")], [_vi("x")],
                     [_vi("y")])),
        ["'nope'"],
    ),
    Case("output-folder-missing", _save(_add_model()), ["out.mlir"], output="missing/out.mlir"),
    Case("output-is-a-folder", _save(_add_model()), ["out.mlir"], output="out.mlir/"),
]


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    input: Path
    output: Path
    out_dir: Path
    out_dir_entries: list[str]
    in_dir_entries_before: list[str]
    in_dir_entries_after: list[str]


# One Python process imports the tools once, then forks a child per job: the child is a
# process of its own (exit code, stdout, stderr, memory limit, time limit) that runs the
# tool's console-script entry point with its argv, as `sys.exit(main())` would. This
# keeps ~35 runs within a few seconds; `REAL` cases below go through the real scripts.
_DRIVER = r"""
import json, os, signal, sys, time
from importlib.metadata import entry_points

sys.path.insert(0, sys.argv[1])
from tool_child import run_job

jobs, parallel, limit, timeout = json.loads(sys.stdin.read())
mains = {e.name: e for e in entry_points(group="console_scripts") if e.name.startswith("mrvl-")}
for e in mains.values():
    e.load()
sys.stdout.flush(); sys.stderr.flush()

def child(job):
    signal.alarm(timeout)
    run_job(job, mains[job["tool"]].load(), limit)

running, done, queue = {}, {}, list(enumerate(jobs))
while queue or running:
    while queue and len(running) < parallel:
        i, job = queue.pop(0)
        pid = os.fork()
        if pid == 0:
            child(job)
        running[pid] = (i, time.monotonic())
    pid, status = os.waitpid(-1, 0)
    i, started = running.pop(pid)
    done[i] = [os.waitstatus_to_exitcode(status), time.monotonic() - started]
print(json.dumps([done[i] for i in range(len(jobs))]))
"""


def _tool_args(case: Case, source: Path, out_dir: Path) -> list[str]:
    args = ["--import-onnx"] if case.tool == "mrvl-translate" else []
    return [*args, *case.args, str(source), "-o", str(out_dir / case.output)]


def _run_all(
    cases: list[Case], root: Path, prepare: Callable[[Case, Path], None] | None = None, real: bool = False
) -> dict[str, Result]:
    """Run each case's tool on its input, in a fresh folder per case; collect the results."""
    jobs, info = [], []
    for case in cases:
        case_dir = root / case.name
        in_dir, out_dir = case_dir / "in", case_dir / "out"
        in_dir.mkdir(parents=True)
        out_dir.mkdir()
        source = case.build(in_dir)
        output = out_dir / case.output.rstrip("/")
        if case.output.endswith("/"):
            output.mkdir()
        if prepare:
            prepare(case, out_dir)
        jobs.append({
            "tool": case.tool,
            "args": _tool_args(case, source, out_dir),
            "cwd": str(case_dir),
            "stdout": str(case_dir / "stdout.txt"),
            "stderr": str(case_dir / "stderr.txt"),
        })
        info.append((case, source, in_dir, out_dir, output, sorted(os.listdir(in_dir))))

    env = {k: v for k, v in os.environ.items() if k != "MRVL_TRACEBACK"}
    if real:
        statuses = []
        for job in jobs:  # few: one after the other
            started = time.monotonic()
            with open(job["stdout"], "wb") as out, open(job["stderr"], "wb") as err:
                process = subprocess.run(
                    [sys.executable, "-c", _LIMITED, *_tool(job["tool"]), *job["args"]],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=job["cwd"], env=env,
                    timeout=TIMEOUT_S,
                )
            statuses.append([process.returncode, time.monotonic() - started])
    else:
        driver = subprocess.run(
            [sys.executable, "-c", _DRIVER, str(Path(__file__).parent)],
            input=json.dumps([jobs, PARALLEL, MEMORY_LIMIT, TIMEOUT_S]),
            capture_output=True, text=True, env=env, timeout=10 * TIMEOUT_S,
        )
        assert driver.returncode == 0, driver.stderr
        statuses = json.loads(driver.stdout.splitlines()[-1])

    results = {}
    for job, (case, source, in_dir, out_dir, output, before), (code, seconds) in zip(jobs, info, statuses):
        results[case.name] = Result(
            returncode=code,
            stdout=Path(job["stdout"]).read_text(errors="replace"),
            stderr=Path(job["stderr"]).read_text(errors="replace"),
            seconds=seconds,
            input=source,
            output=output,
            out_dir=out_dir,
            out_dir_entries=sorted(os.listdir(out_dir)),
            in_dir_entries_before=before,
            in_dir_entries_after=sorted(os.listdir(in_dir)),
        )
    return results


def _check_one_error_line(case: Case, r: Result) -> None:
    report = f"exit code {r.returncode} after {r.seconds:.1f}s\nstderr:\n{r.stderr}\nstdout:\n{r.stdout[:2000]}"
    assert r.seconds < TIMEOUT_S and r.returncode >= 0, "did not fail fast, or was killed\n" + report
    assert "Traceback" not in r.stderr + r.stdout, report
    assert r.returncode == 1, report
    assert r.stdout == "", report
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and r.stderr.endswith("\n"), "expected exactly one line\n" + report
    line = lines[0]
    if case.output == "out.mlir":
        assert line.startswith(f"error: {r.input}: "), report
    else:  # the output cannot be written: the message may name either file
        assert line.startswith("error: "), report
    assert "internal compiler error" not in line, report
    for word in case.words:
        assert word in line, f"{word!r} not in the message\n" + report
    # No output, and no temporary file, anywhere near it.
    if case.output.endswith("/"):
        assert r.out_dir_entries == [r.output.name], f"left in the output folder: {r.out_dir_entries}"
        assert os.listdir(r.output) == [], "the folder named by -o was written into"
    else:
        assert not os.path.lexists(r.output), f"{r.output} was written\n" + report
        assert r.out_dir_entries == [], f"left in the output folder: {r.out_dir_entries}\n" + report
    assert r.in_dir_entries_after == r.in_dir_entries_before, "files appeared next to the input"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    return _run_all(CASES, tmp_path_factory.mktemp("cli_errors"))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_one_error_line(case: Case, results: dict[str, Result]):
    _check_one_error_line(case, results[case.name])


# Names that are not UTF-8 (protobuf does not check string fields on read) may be
# refused with one error line, or imported with the bad bytes replaced; never a crash,
# also not when the names are printed as locations.
NON_UTF8 = [
    Case("non-utf8-graph-name", _bad_utf8_graph_name, args=["--print-debuginfo"]),
    Case("non-utf8-node-name", _bad_utf8_node_name, args=["--print-debuginfo"]),
]


@pytest.fixture(scope="module")
def non_utf8_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    return _run_all(NON_UTF8, tmp_path_factory.mktemp("cli_non_utf8"))


@pytest.mark.parametrize("case", NON_UTF8, ids=[c.name for c in NON_UTF8])
def test_non_utf8_names_are_refused_or_replaced(case: Case, non_utf8_results: dict[str, Result]):
    r = non_utf8_results[case.name]
    if r.returncode == 0:
        assert r.stderr == "" and r.stdout == ""
        text = r.output.read_text(encoding="utf-8")
        assert "func.func @" in text and "graph.Relu" in text
        assert r.out_dir_entries == [r.output.name]
    else:
        _check_one_error_line(case, r)


REAL = [c for c in CASES if c.name in ("truncated", "cycle-translate", "output-folder-missing")]


@pytest.fixture(scope="module")
def real_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    return _run_all(REAL, tmp_path_factory.mktemp("cli_errors_real"), real=True)


@pytest.mark.parametrize("case", REAL, ids=[c.name for c in REAL])
def test_console_script_is_one_error_line(case: Case, real_results: dict[str, Result]):
    """The same contract through the installed console scripts themselves."""
    _check_one_error_line(case, real_results[case.name])


# --- success --------------------------------------------------------------------------

GOOD = [
    Case("mapped-weights", _save(_add_model())),
    Case("mapped-weights-translate", _save(_add_model()), tool="mrvl-translate"),
    Case("replaces-existing-output", _save(_add_model())),
    Case("output-in-subfolder", _save(_add_model()), output="sub/out.mlir"),
]


def _prepare_good(case: Case, out_dir: Path) -> None:
    if case.name == "replaces-existing-output":
        (out_dir / "out.mlir").write_text("old contents\n")
    if case.output.startswith("sub/"):
        (out_dir / "sub").mkdir()


@pytest.fixture(scope="module")
def good_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    return _run_all(GOOD, tmp_path_factory.mktemp("cli_ok"), _prepare_good, real=True)


@pytest.mark.parametrize("case", GOOD, ids=[c.name for c in GOOD])
def test_output_file_is_written_without_temporary_files(case: Case, good_results: dict[str, Result]):
    r = good_results[case.name]
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert r.stdout == ""
    text = r.output.read_text()
    assert "func.func @g(" in text and "graph.Add" in text and "dense_resource<w>" in text
    assert text.endswith("\n")
    folder = r.output.parent
    assert sorted(os.listdir(folder)) == [r.output.name], "temporary files left behind"
    if folder != r.out_dir:
        assert sorted(os.listdir(r.out_dir)) == [folder.name]
    mode = r.output.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask, f"output mode {oct(mode)}: a temp file's 0o600 leaked"
