"""One node test case through one path of the compiler, and what came of it.

Paths:

- `host`: every op on the Arm host (`mrvl-pipeline{offload=false}`), the C built and run.
- `mlip`: default partitioning, for the cases of operators that anchor an MLIP layer, with
  the subgraphs run by the reference simulator in fp32. The partition policies are off:
  they judge whether a region of a real model is worth the trip to the accelerator, and a
  node test is one node, which would never be. The case passes only if its node really
  went to an accelerator subgraph (named in a subgraph's sourcemap) and the outputs match.

The suite gives every input as a graph input. A static-shape compiler needs the values of
shapes, axes, pads, scales and bounds at compile time, and MLIP layers need constant
weights, as exporters write them (onnx-mlir's constant-input mode does the same). So the
harness keeps the first input a graph input and makes the later tensor inputs initializers:
on the `host` path always, on the `mlip` path for the operators whose MLIP rules require
constant operands (`CONSTANT_OPERAND_RULES`); the other `mlip` cases (Add, Concat, ...) keep
the suite's graph inputs, as those layers read tensors computed at run time. The node still
runs at run time on its first input, with the case's values.

Outputs must have the expected shape and dtype, and match by the project's one comparison
rule (`mrvl/numerics.py`: within a fraction of each tensor's largest magnitude, integers
exactly), the fraction being the case's own `rtol` (onnx's 1e-3 unless the case says
otherwise: some expected outputs are written to 4 decimals). onnx's per-element form,
`|got - expected| <= atol + rtol * |expected|` with `atol` 1e-7, is not used: it flags
reordered float32 sums near zero, where two correct kernels differ.
"""

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

from conformance.cases import DATA_SET, NodeCase, Value
from mrvl.numerics import compare as compare_tensors
from mrvl.opt import main as mrvl_opt
from mrvl.run import run_bundle
from mrvl_dialect.errors import CompileError
from mrvl.passes.mlip_patterns import LAYER_KINDS
from mrvl.passes.mlip_rules import RULES

PIPELINES = {
    "host": "mrvl-pipeline{offload=false}",
    "mlip": "mrvl-pipeline{policies}",
}
PATHS = tuple(PIPELINES)

CONSTANT_OPERAND_RULES = ("conv.constant-weights", "fc.constant-weights", "squeeze.constant-axes")
"""MLIP rules that need a node's later inputs constant: their ops' cases get initializers."""
CONSTANT_OPERAND_OPS = {op for r in RULES if r.id in CONSTANT_OPERAND_RULES for op in r.op_types}
assert {r.id for r in RULES} >= set(CONSTANT_OPERAND_RULES), "a rule of CONSTANT_OPERAND_RULES was renamed"

NODE_NAME = "node_under_test"
"""The name a one-node case's node gets, to find it in sourcemaps and reports."""

CRASH_STAGES = ("internal compiler error", "exception", "build")
"""Failure stages that are bugs whatever the case (a crash, a traceback, C that does not
build): they never go on the expected-failure list."""


def runs_on(case: NodeCase, path: str) -> bool:
    """Whether `case` is run on `path`: all on `host`; on `mlip` those of MLIP layer operators
    (not `_expanded` ones, which run the operator's function body instead)."""
    return path == "host" or (case.domain == "" and case.op_type in LAYER_KINDS and not case.expanded)


@dataclass(frozen=True)
class Outcome:
    passed: bool
    stage: str = ""
    """Where it failed: compile, internal compiler error, build, run, host (not offloaded),
    mismatch, exception."""
    detail: str = ""

    @property
    def reason(self) -> str:
        return f"{self.stage}: {self.detail}" if self.stage else "passed"

    @property
    def crashed(self) -> bool:
        return self.stage in CRASH_STAGES


def prepared_model(case: NodeCase, path: str) -> onnx.ModelProto:
    """The case's model as the path compiles it: later inputs as initializers (module doc)."""
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    graph = model.graph
    if len(graph.node) == 1:
        graph.node[0].name = NODE_NAME
    if path == "host" or case.op_type in CONSTANT_OPERAND_OPS:
        keep = []
        for i, value in enumerate(graph.input):
            if i == 0 or value.type.WhichOneof("value") != "tensor_type":
                keep.append(value)
                continue
            tensor = onnx.TensorProto.FromString((case.folder / DATA_SET / f"input_{i}.pb").read_bytes())
            tensor.name = value.name
            graph.initializer.append(tensor)
        if len(keep) < len(graph.input):
            del graph.input[:]
            graph.input.extend(keep)
            # Before IR version 4 every initializer had to be a graph input too.
            model.ir_version = max(model.ir_version, 4)
    return model


def run_case(case: NodeCase, path: str, workdir: Path) -> Outcome:
    """Compile, build and run `case` on `path` in `workdir`; never raises for the case's sake."""
    model = prepared_model(case, path)
    source = workdir / "model.onnx"
    source.write_bytes(model.SerializeToString())
    bundle = workdir / "bundle"
    failure = _compile(source, path, bundle)
    if failure is not None:
        return failure
    if path == "mlip" and not _offloaded(bundle, NODE_NAME):
        return Outcome(False, "host", _host_reasons(source, NODE_NAME))
    names = [v.name for v in model.graph.input]
    all_inputs = dict(zip((v.name for v in case.model.graph.input), case.inputs()))
    try:
        got = run_bundle(bundle, {n: _bits(all_inputs[n]) for n in names}, precision="fp32")
    except CompileError as e:
        stage = "build" if "building the host C failed" in str(e) else "run"
        return Outcome(False, stage, str(e))
    except Exception as e:  # noqa: BLE001 - a traceback is a bug to report, not to crash the sweep on
        return Outcome(False, "exception", f"{type(e).__name__}: {' '.join(str(e).split())}")
    expected = dict(zip((v.name for v in model.graph.output), case.outputs()))
    mismatch = compare(expected, got, case.rtol)
    return Outcome(False, "mismatch", mismatch) if mismatch else Outcome(True)


def _compile(source: Path, path: str, bundle: Path) -> Outcome | None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = mrvl_opt([str(source), "-p", f"{PIPELINES[path]},mrvl-host-pipeline", "-t", "c", "-o", str(bundle)])
    if rc == 0:
        return None
    line = next((x for x in err.getvalue().splitlines() if x.startswith("error:")), err.getvalue().strip())
    message = line.removeprefix("error: ").removeprefix(f"{source}: ")
    if "internal compiler error" in message:
        return Outcome(False, "internal compiler error", message.split("internal compiler error: ", 1)[-1])
    return Outcome(False, "compile", message)


def _offloaded(bundle: Path, node: str) -> bool:
    """Whether a subgraph's sourcemap names `node`."""
    for sourcemap in bundle.glob("*-sourcemap.json"):
        if node in json.dumps(json.loads(sourcemap.read_text())["nodes"]):
            return True
    return False


def _host_reasons(source: Path, node: str) -> str:
    """Why `node` stayed on the host, from the placement report."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        mrvl_opt([str(source), "-p", PIPELINES["mlip"], "-t", "placement-report{format=json}"])
    try:
        report = json.loads(out.getvalue())
    except ValueError:
        return "not in any accelerator subgraph"
    for entry in report.get("nodes", []):
        if entry.get("name") == node and entry.get("reasons"):
            return "; ".join(entry["reasons"])
    return "not in any accelerator subgraph"


def _bits(value: Value) -> Value:
    """bfloat16 travels as its uint16 bits (numpy has no bfloat16; run_bundle's convention)."""
    return value.view(np.uint16) if isinstance(value, np.ndarray) and value.dtype.name == "bfloat16" else value


def compare(expected: dict[str, Value], got: dict[str, np.ndarray], rtol: float) -> str | None:
    """None when `got` matches `expected` (`mrvl.numerics.compare`), else what differs (one line)."""
    for name, want in expected.items():
        if not isinstance(want, np.ndarray):
            return f"output '{name}' is a {type(want).__name__}, not a tensor"
        if name not in got:
            return f"output '{name}' missing"
        have = got[name]
        if want.dtype.name == "bfloat16" and have.dtype == np.uint16:
            have = have.view(want.dtype)
        if have.shape != want.shape:
            return f"output '{name}' has shape {list(have.shape)}, expected {list(want.shape)}"
        if have.dtype != want.dtype:
            return f"output '{name}' is {have.dtype}, expected {want.dtype}"
        result = compare_tensors(have, want, tolerance=rtol)
        if not result.ok:
            return f"output '{name}': {result.describe()}"
    return None
