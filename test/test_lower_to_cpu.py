"""lower-to-cpu on whole models, and Slice's resolved parameters against ONNX's reference."""

import numpy as np
import onnx
import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES, graph_context
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from mrvl.frontend.onnx_importer import import_onnx
from mrvl_dialect.cpu import CPU, SliceOp
from mrvl.passes import get_all_passes
from mrvl.passes.lower_to_cpu import LowerToCpuPass

SMALL = [name for name in zoo.ZOO if name != "resnet50_sized"]


def lower(module):
    ctx = graph_context()
    ctx.load_dialect(CPU)
    LowerToCpuPass().apply(ctx, module)
    module.verify()
    return module


def graph_ops_left(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("graph.") and op.name != "graph.constant"]


def test_pass_is_registered():
    assert get_all_passes()["lower-to-cpu"]() is LowerToCpuPass


@pytest.mark.parametrize("name", SMALL)
def test_zoo_model_lowers_completely(zoo_dir, name):
    module = lower(import_onnx(zoo_dir / f"{name}.onnx", ZOO_INPUT_SHAPES[name]))
    assert graph_ops_left(module) == []
    assert any(op.name.startswith("cpu.") for op in module.walk())


@pytest.mark.slow
def test_resnet50_sized_lowers_completely():
    module = lower(import_onnx(zoo.resnet50_sized()))
    assert graph_ops_left(module) == []


# (dims, starts, ends, axes, steps): negative and out-of-range values of every kind.
SLICES = [
    ([4, 10], [1, -3], [1000, -1], None, None),
    ([4, 10], [-1], [-1000], [1], [-2]),
    ([4, 10], [-100], [2], [-2], None),
    ([4, 10], [2], [2**63 - 1], [1], None),
    ([4, 10], [5], [-(2**63)], [1], [-1]),
    ([4, 10], [20, 0], [-20, 3], [1, 0], [-3, 1]),
    ([3, 5, 6], [0, 4, -1], [3, -10, -7], None, [2, -2, -1]),
    ([3, 5, 6], [10], [11], [2], None),
    ([3, 0], [0], [5], [1], [-1]),
]


def slice_model(dims, starts, ends, axes, steps) -> onnx.ModelProto:
    inputs = ["x", "starts", "ends", "axes" if axes is not None else "", "steps" if steps is not None else ""]
    while not inputs[-1]:
        inputs.pop()
    initializers = [
        helper.make_tensor(name, TensorProto.INT64, [len(values)], values)
        for name, values in (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))
        if values is not None
    ]
    node = helper.make_node("Slice", inputs, ["y"])
    graph = helper.make_graph(
        [node],
        "slice",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("case", SLICES)
def test_slice_parameters_select_what_onnx_selects(case):
    model = slice_model(*case)
    x = np.arange(np.prod(case[0]), dtype=np.float32).reshape(case[0])
    (expected,) = ReferenceEvaluator(model).run(None, {"x": x})
    module = lower(import_onnx(model))
    (op,) = [op for op in module.walk() if isinstance(op, SliceOp)]
    starts, ends, steps = (list(a.get_values()) for a in (op.starts, op.ends, op.steps))
    # The cpu.slice contract: an end of -1 with a negative step runs through index 0.
    index = tuple(slice(s, None if e < 0 else e, st) for s, e, st in zip(starts, ends, steps))
    np.testing.assert_array_equal(x[index], expected)
