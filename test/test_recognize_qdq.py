"""recognize-qdq folds a DequantizeLinear of a constant exactly as ONNX's reference computes
it, per tensor, per axis and per block, for every integer type it takes."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.context import Context

from mrvl.frontend.onnx_importer import import_onnx
from numeric_asserts import assert_close
from mrvl.passes.recognize_qdq import RecognizeQdqPass
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value

RNG = np.random.default_rng(3)


def dequantize_model(x: np.ndarray, scale: np.ndarray, zero: np.ndarray | None, **attributes):
    inits = [numpy_helper.from_array(x, "x"), numpy_helper.from_array(scale, "s")]
    inputs = ["x", "s"]
    if zero is not None:
        inits.append(numpy_helper.from_array(zero, "z"))
        inputs.append("z")
    node = helper.make_node("DequantizeLinear", inputs, ["y"], name="dq", **attributes)
    graph = helper.make_graph([node], "fold", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


def ints(dtype, shape):
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


CASES = {
    "per-tensor-int8": (ints(np.int8, (4, 3)), np.array(0.37, np.float32), np.array(-3, np.int8), {}),
    "per-axis-uint8": (ints(np.uint8, (4, 3)), np.array([0.5, 0.01, 3.0], np.float32), ints(np.uint8, (3,)),
                       {"axis": 1}),
    "blocked-int16": (ints(np.int16, (2, 5)), np.array([[0.25, 0.5, 2.0], [1.5, 0.125, 0.3]], np.float32),
                      ints(np.int16, (2, 3)), {"axis": 1, "block_size": 2}),
    "per-tensor-int32-bias": (ints(np.int32, (6,)) // 1000, np.array(1e-4, np.float32), None, {}),
}


@pytest.mark.parametrize("name", CASES)
def test_folded_weight_equals_onnx_reference(name):
    x, scale, zero, attributes = CASES[name]
    model = dequantize_model(x, scale, zero, **attributes)
    (want,) = ReferenceEvaluator(model).run(None, {})
    module = import_onnx(model)
    RecognizeQdqPass().apply(Context(), module)
    assert not [op for op in module.walk() if op.name == "graph.DequantizeLinear"]
    (folded,) = [op for op in module.walk() if isinstance(op, ConstantOp) and op.results[0].name_hint == "y"]
    got = constant_value(folded.results[0])
    assert_close(got, want)
    # Exact, too: the same float32 operations in the same order.
    assert got.dtype == np.float32 and np.array_equal(got, want)


def test_pair_on_a_tensor_read_elsewhere_stays():
    """A tensor both rounded (Q -> DQ -> Relu) and read as it is (a graph output): the pair
    stays, and the graph output is the unrounded tensor."""
    nodes = [helper.make_node("Relu", ["x"], ["t"], name="relu0"),
             helper.make_node("QuantizeLinear", ["t", "s", "z"], ["q"], name="q"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"], name="dq"),
             helper.make_node("Relu", ["d"], ["y"], name="relu1")]
    graph = helper.make_graph(nodes, "shared", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("t", "y")],
                              [numpy_helper.from_array(np.array(0.5, np.float32), "s"),
                               numpy_helper.from_array(np.array(0, np.int8), "z")])
    module = import_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10))
    RecognizeQdqPass().apply(Context(), module)
    kept = [op.name for op in module.walk() if op.name in ("graph.QuantizeLinear", "graph.DequantizeLinear")]
    assert kept == ["graph.QuantizeLinear", "graph.DequantizeLinear"]


def test_float16_dequantize_is_not_folded():
    model = dequantize_model(ints(np.int8, (3,)), np.array(0.5, np.float16), None)
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.FLOAT16
    module = import_onnx(model)
    RecognizeQdqPass().apply(Context(), module)
    assert [op.name for op in module.walk() if op.name == "graph.DequantizeLinear"]
