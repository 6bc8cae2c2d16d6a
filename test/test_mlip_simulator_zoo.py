"""Our JSON carries the subgraphs' meaning: on the model zoo, every `mrvl.subgraph`,
emitted by `-t json` and run by the MLIP simulator from its files alone, matches the
reference interpreter running the same subgraph's IR (mrvl/numerics.py: fp32 1e-4, fp16 3% of
the output's largest magnitude, the criterion of Marvell's tools).

The subgraphs get the tensors they take in the compiled model: the reference interpreter
runs the module compiled up to `lower-to-cpu` (it has no rules for the `cpu` dialect; the
subgraphs are the same as after the whole pipeline) on a seeded input and records each
`cpu.call_mlip`'s arguments and results.
"""

from pathlib import Path

import numpy as np
import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from mrvl.backend import reference_interpreter
from mrvl.backend.json_emitter import JsonTarget, write_directory
from mrvl.backend.mlip_simulator import run_subgraph
from mrvl.frontend.onnx_importer import import_onnx
from numeric_asserts import assert_close
from mrvl.numerics import FP16_LAYERS
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass
from mrvl_dialect import mrvl

MODELS = [
    "mnist", "resnet_small", "mobilenet_small", "transformer_block",
    pytest.param("resnet50_sized", marks=pytest.mark.slow),
]


class _Recorder(reference_interpreter._Interpreter):
    """The reference interpreter, keeping each subgraph call's inputs and outputs."""

    def __init__(self, module: ModuleOp):
        super().__init__(module)
        self.calls: list[tuple[str, list[np.ndarray], list[np.ndarray]]] = []

    def op(self, op: Operation, values: list[np.ndarray]) -> list[np.ndarray]:
        results = super().op(op, values)
        if op.name == "cpu.call_mlip":
            self.calls.append((op.properties["callee"].root_reference.data, values, results))
        return results


def _compile(name: str, until: str | None = None) -> ModuleOp:
    """`name` through mrvl-pipeline, or through its passes before the one named `until`."""
    module = import_onnx(zoo.ZOO[name](), ZOO_INPUT_SHAPES[name])
    for stage in MrvlPipelinePass().passes():
        if stage.name == until:
            break
        stage.apply(Context(), module)
    return module


def _subgraphs(module: ModuleOp) -> dict[str, str]:
    return {op.sym_name.data: str(op) for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)}


def _subgraph_calls(module: ModuleOp) -> list[tuple[str, list[np.ndarray], list[np.ndarray]]]:
    main = next(op for op in module.body.block.ops if op.name == "func.func")
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(arg.type.get_shape()).astype(np.float32) for arg in main.body.block.args]
    recorder = _Recorder(module)
    recorder.block(main.body.block, inputs)
    return recorder.calls


@pytest.fixture(scope="module", params=MODELS)
def compiled(request, tmp_path_factory) -> tuple[str, Path, list]:
    """(model name, directory of its JSON files, the subgraph calls of one reference run)."""
    module, before_lowering = _compile(request.param), _compile(request.param, until="lower-to-cpu")
    assert _subgraphs(before_lowering) == _subgraphs(module)
    folder = tmp_path_factory.mktemp(request.param) / "json"
    write_directory(folder, JsonTarget().files(module))
    calls = _subgraph_calls(before_lowering)
    assert sorted(symbol for symbol, _, _ in calls) == sorted(_subgraphs(module)), "each subgraph runs once"
    return request.param, folder, calls


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_subgraphs_from_json_match_reference_interpreter(compiled, precision):
    name, folder, calls = compiled
    if not calls:
        pytest.skip(f"{name} compiles to no MLIP subgraph")
    for symbol, inputs, expected in calls:
        outputs = run_subgraph(folder / f"{symbol}-nodes.json", folder / f"{symbol}-consts.json", inputs,
                               precision=precision, use_mlsim=False)
        assert len(outputs) == len(expected), symbol
        for i, (got, want) in enumerate(zip(outputs, expected)):
            assert got.shape == want.shape, f"{symbol} output {i}"
            assert_close(got, want, FP16_LAYERS if precision == "fp16" else None, f"{symbol} output {i}")
