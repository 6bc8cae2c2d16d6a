"""onnxruntime's quantized contrib ops (com.microsoft), expanded into standard ops at import
(`frontend/contrib_ops.py`), against onnxruntime's own kernels: quantized outputs within one
quantization step (onnxruntime's fixed-point and lookup-table kernels round differently from
the float definition), float outputs within a float32 rounding; DynamicQuantizeLSTM's within 2% of each output's
scale. All cases are one model."""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from mrvl.opt import main as mrvl_opt
from mrvl.run import run_bundle
from numeric_asserts import assert_close
from test_c_backend import GCC, c_workdir, emit_model, locked  # noqa: F401 (c_workdir: fixture)

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

RNG = np.random.default_rng(33)
INPUTS = {
    "a": RNG.integers(0, 256, (1, 4, 5, 5), dtype=np.uint8),
    "b": RNG.integers(0, 256, (1, 4, 5, 5), dtype=np.uint8),
    "c": RNG.integers(0, 256, (1, 4, 5, 5), dtype=np.uint8),
    "f": RNG.normal(0, 1, (3, 8)).astype(np.float32),
    "q": RNG.integers(0, 256, (3, 8), dtype=np.uint8),
    "seq": RNG.normal(0, 1, (5, 2, 8)).astype(np.float32),
}
HIDDEN = 6
QUANTIZED = ["add", "mul", "sigmoid", "leaky", "concat", "gap", "avg", "avg_nhwc", "qgemm", "softmax",
             "softmax_2d"]
FLOATS = ["dqmm", "mmf", "qgemm_f"]
RECURRENT = ["lstm_y", "lstm_h", "lstm_c"]


def _model() -> onnx.ModelProto:
    rng = np.random.default_rng(34)
    inits = [numpy_helper.from_array(np.float32(v), n) for n, v in
             (("sa", 0.05), ("sb", 0.03), ("sc", 0.08), ("sy", 0.02), ("sq", 0.04))]
    inits += [numpy_helper.from_array(np.uint8(v), n) for n, v in (("za", 120), ("zb", 131), ("zc", 128), ("zy", 100))]
    inits += [numpy_helper.from_array(rng.integers(-128, 128, (8, 6), dtype=np.int8), "w"),
              numpy_helper.from_array(np.linspace(0.01, 0.03, 6, dtype=np.float32), "sw"),
              numpy_helper.from_array(np.int8(0), "zw"),
              numpy_helper.from_array(rng.normal(0, 1, 6).astype(np.float32), "bias"),
              numpy_helper.from_array(rng.integers(-128, 128, (6, 8), dtype=np.int8), "wt"),
              numpy_helper.from_array(np.zeros(6, np.int8), "zw6"),
              numpy_helper.from_array(rng.integers(-3000, 3000, 6).astype(np.int32), "bias_i32")]
    # quantize_dynamic's LSTM: int8 weights [directions, rows, 4 * hidden], a scale per column
    for name, rows in (("lw", 8), ("lr", HIDDEN)):
        weights = rng.normal(0, 0.4, (2, rows, 4 * HIDDEN)).astype(np.float32)
        scale = np.abs(weights).max(axis=1) / 127
        inits += [numpy_helper.from_array(np.round(weights / scale[:, None]).astype(np.int8), name),
                  numpy_helper.from_array(scale.astype(np.float32), f"{name}_scale"),
                  numpy_helper.from_array(np.zeros(scale.shape, np.int8), f"{name}_zero")]
    inits.append(numpy_helper.from_array(rng.normal(0, 0.1, (2, 8 * HIDDEN)).astype(np.float32), "lb"))
    ms = {"domain": "com.microsoft"}
    node = helper.make_node
    nodes = [
        node("QLinearAdd", ["a", "sa", "za", "b", "sb", "zb", "sc", "zc"], ["add"], name="add", **ms),
        node("QLinearMul", ["a", "sa", "za", "b", "sb", "zb", "sc", "zc"], ["mul"], name="mul", **ms),
        node("QLinearSigmoid", ["a", "sa", "za", "sy", "zy"], ["sigmoid"], name="sigmoid", **ms),
        # over the last axis (opset 13), and over the input flattened at axis 2 (opset 11's)
        node("QLinearSoftmax", ["a", "sa", "za", "sy", "zy"], ["softmax"], name="softmax", axis=-1, opset=13, **ms),
        node("QLinearSoftmax", ["a", "sa", "za", "sy", "zy"], ["softmax_2d"], name="softmax_2d", axis=2, opset=11,
             **ms),
        node("QLinearLeakyRelu", ["a", "sa", "za", "sc", "zc"], ["leaky"], name="leaky", alpha=0.1, **ms),
        node("QLinearConcat", ["sc", "zc", "a", "sa", "za", "b", "sb", "zb", "c", "sc", "zc"], ["concat"],
             name="concat", axis=1, **ms),
        node("QLinearGlobalAveragePool", ["a", "sa", "za", "sy", "zy"], ["gap"], name="gap", **ms),
        node("QLinearAveragePool", ["a", "sa", "za", "sy", "zy"], ["avg"], name="avg", kernel_shape=[3, 3],
             pads=[1, 1, 1, 1], strides=[2, 2], **ms),
        node("QLinearAveragePool", ["b", "sb", "zb", "sy", "zy"], ["avg_nhwc"], name="avg_nhwc", kernel_shape=[2, 2],
             channels_last=1, **ms),
        node("DynamicQuantizeMatMul", ["f", "w", "sw", "zw", "bias"], ["dqmm"], name="dqmm", **ms),
        # QOperator's Gemm: B transposed with a scale per column of B', an int32 bias; and a
        # float result (no y_scale), alpha scaling the product
        node("QGemm", ["q", "sq", "zc", "wt", "sw", "zw6", "bias_i32", "sy", "zy"], ["qgemm"], name="qgemm", transB=1,
             **ms),
        node("QGemm", ["q", "sq", "zc", "w", "sa", "zw"], ["qgemm_f"], name="qgemm_f", alpha=0.5, **ms),
        node("MatMulIntegerToFloat", ["q", "w", "sq", "sw", "zy", "zw"], ["mmf"], name="mmf", **ms),
        node("DynamicQuantizeLSTM", ["seq", "lw", "lr", "lb", "", "", "", "", "lw_scale", "lw_zero", "lr_scale",
                                     "lr_zero"], RECURRENT, name="lstm", hidden_size=HIDDEN, direction="bidirectional",
             **ms),
    ]
    inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
              for n, a in INPUTS.items()]
    outputs = [onnx.ValueInfoProto(name=n) for n in QUANTIZED + FLOATS + RECURRENT]
    graph = helper.make_graph(nodes, "contrib", inputs, outputs, inits)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


@pytest.fixture(scope="module")
def bundle(c_workdir: Path) -> Path:
    return emit_model(_model(), c_workdir, name="contrib")


def test_matches_onnxruntime(bundle: Path) -> None:
    # A thread per sample: onnxruntime's DynamicQuantizeLSTM then quantizes each sample's
    # hidden state on its own grid, as the host kernel does.
    options = ort.SessionOptions()
    options.intra_op_num_threads = INPUTS["seq"].shape[1]
    session = ort.InferenceSession(_model().SerializeToString(), options, providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, INPUTS)))
    with locked(bundle):
        got = run_bundle(bundle, INPUTS)
    for name in QUANTIZED:
        assert got[name].dtype == want[name].dtype, name
        steps = np.abs(got[name].astype(np.int32) - want[name].astype(np.int32))
        assert steps.max() <= 1, f"{name}: {steps.max()} quantization steps from onnxruntime"
    # DynamicQuantizeLSTM's X and hidden state rounded as onnxruntime quantizes them (within
    # float32 rounding while no value lies within it of a rounding boundary)
    for name in FLOATS + RECURRENT:
        assert_close(got[name], want[name], None, name)
