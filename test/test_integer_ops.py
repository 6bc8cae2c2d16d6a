"""Integer ops on the host against onnxruntime: DynamicQuantizeLinear (NaN and infinities too),
QuantizeLinear of NaN and infinities, MatMulInteger,
QLinearMatMul, ConvInteger, QLinearConv and MaxPool of uint8, alone and as `quantize_dynamic`
chains them (the activations quantized at run time, int8 weights, int32 sums rescaled to
float). Integer
outputs must be equal; float ones within a float32 rounding. All cases are one model: gcc
builds the bundle once."""

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

RNG = np.random.default_rng(31)
INPUTS = {
    "x": RNG.normal(0, 2, (4, 8)).astype(np.float32),
    "negative": -np.abs(RNG.normal(0, 1, (3, 5))).astype(np.float32),
    "positive": np.abs(RNG.normal(0, 1, (3, 5))).astype(np.float32),
    "zeros": np.zeros((2, 3), np.float32),
    "a_u8": RNG.integers(0, 256, (2, 3, 8), dtype=np.uint8),
    "a_i8": RNG.integers(-128, 128, (5, 8), dtype=np.int8),
    "h": RNG.normal(0, 1, (2, 6, 8)).astype(np.float32),
    "image": RNG.integers(0, 256, (1, 4, 7, 7), dtype=np.uint8),
    # NaN is left out of a dynamic range and quantizes to the type's lowest value; an
    # infinite range gives an infinite scale
    "with_nan": np.array([1, np.nan, -2, 3, 0.5, 2], np.float32),
    "minus_inf": np.array([1, -np.inf, 2, 3, 4, 5], np.float32),
    "plus_inf": np.array([1, np.inf, -2, 3, 0.5, 2], np.float32),
    # over several vectors of each target's quantize loop, and a tail
    "specials": np.tile(np.array([np.nan, 1, -np.nan, np.inf, -np.inf, 0, 2, np.nan, -3], np.float32), 5),
}


def _model(per_row: bool = True) -> onnx.ModelProto:
    """The cases; `per_row` adds the one onnxruntime refuses (A's zero point per row)."""
    rng = np.random.default_rng(32)
    inits = [
        numpy_helper.from_array(rng.integers(-128, 128, (8, 6), dtype=np.int8), "w_i8"),
        numpy_helper.from_array(rng.integers(-3, 4, 6).astype(np.int8), "w_zero_columns"),
        numpy_helper.from_array(rng.integers(0, 256, (8, 6), dtype=np.uint8), "w_u8"),
        numpy_helper.from_array(np.uint8(128), "w_zero_u8"),
        numpy_helper.from_array(rng.integers(-4, 5, 5).astype(np.int8), "a_zero_rows"),
        numpy_helper.from_array(np.int8(-3), "a_zero_i8"),
        numpy_helper.from_array(np.float32(0.02), "w_scale"),
        numpy_helper.from_array(np.float32(0.05), "q_a_scale"),
        numpy_helper.from_array(np.uint8(120), "q_a_zero"),
        numpy_helper.from_array(np.float32(0.5), "q_y_scale"),
        numpy_helper.from_array(np.uint8(100), "q_y_zero"),
        numpy_helper.from_array(np.int8(0), "q_w_zero"),
        numpy_helper.from_array(np.int8(-5), "q_y_zero_i8"),
        numpy_helper.from_array(rng.integers(0, 256, (6, 4, 3, 3), dtype=np.uint8), "k_u8"),
        numpy_helper.from_array(np.uint8(131), "k_zero_u8"),
        numpy_helper.from_array(rng.integers(-128, 128, (6, 2, 3, 3), dtype=np.int8), "k_i8"),
        numpy_helper.from_array(np.linspace(0.002, 0.01, 6, dtype=np.float32), "k_scales"),
        numpy_helper.from_array(np.zeros(6, np.int8), "k_zeros"),
        numpy_helper.from_array(rng.integers(-2000, 2000, 6).astype(np.int32), "k_bias"),
        numpy_helper.from_array(np.float32(0.25), "c_y_scale"),
    ]
    node = helper.make_node
    nodes = [
        node("DynamicQuantizeLinear", ["x"], ["x_q", "x_scale", "x_zero"], name="dq_x"),
        node("DynamicQuantizeLinear", ["negative"], ["n_q", "n_scale", "n_zero"], name="dq_negative"),
        node("DynamicQuantizeLinear", ["positive"], ["p_q", "p_scale", "p_zero"], name="dq_positive"),
        node("DynamicQuantizeLinear", ["zeros"], ["z_q", "z_scale", "z_zero"], name="dq_zeros"),
        node("DynamicQuantizeLinear", ["with_nan"], ["nan_q", "nan_scale", "nan_zero"], name="dq_with_nan"),
        node("DynamicQuantizeLinear", ["minus_inf"], ["mi_q", "mi_scale", "mi_zero"], name="dq_minus_inf"),
        node("DynamicQuantizeLinear", ["plus_inf"], ["pi_q", "pi_scale", "pi_zero"], name="dq_plus_inf"),
        node("QuantizeLinear", ["specials", "q_a_scale", "q_a_zero"], ["specials_u8"], name="specials_u8"),
        node("QuantizeLinear", ["specials", "q_a_scale", "q_y_zero_i8"], ["specials_i8"], name="specials_i8"),
        # uint8 x int8, zero points per tensor and per column; a batch of A against one B
        node("MatMulInteger", ["a_u8", "w_i8", "", "w_zero_columns"], ["u8_i8"], name="u8_i8"),
        # int8 x uint8, zero points per tensor
        node("MatMulInteger", ["a_i8", "w_u8", "a_zero_i8", "w_zero_u8"], ["i8_u8"], name="i8_u8"),
        # quantize_dynamic's MatMul: DynamicQuantizeLinear, MatMulInteger, the scales' product
        node("DynamicQuantizeLinear", ["h"], ["h_q", "h_scale", "h_zero"], name="dq_h"),
        node("MatMulInteger", ["h_q", "w_i8", "h_zero"], ["h_sums"], name="h_matmul"),
        node("Cast", ["h_sums"], ["h_float"], name="h_cast", to=TensorProto.FLOAT),
        node("Mul", ["h_scale", "w_scale"], ["hw_scale"], name="hw_scale"),
        node("Mul", ["h_float", "hw_scale"], ["h_out"], name="h_out"),
    ]
    nodes += [
        # QOperator's QLinearMatMul: uint8 activations, int8 weights, uint8 result
        node("QLinearMatMul", ["a_u8", "q_a_scale", "q_a_zero", "w_i8", "w_scale", "q_w_zero", "q_y_scale", "q_y_zero"],
             ["qlinear_u8"], name="qlinear_u8"),
        # int8 throughout
        node("QLinearMatMul", ["a_i8", "q_a_scale", "a_zero_i8", "w_i8", "w_scale", "q_w_zero", "q_y_scale",
                               "q_y_zero_i8"], ["qlinear_i8"], name="qlinear_i8"),
    ]
    nodes += [
        # ConvInteger: uint8 image and kernel, zero points per tensor, padded
        node("ConvInteger", ["image", "k_u8", "q_y_zero", "k_zero_u8"], ["conv_sums"], name="conv_sums",
             pads=[1, 1, 1, 1]),
        # QOperator's QLinearConv: int8 weights with a scale per output channel, int32 bias,
        # stride 2, two groups
        node("QLinearConv", ["image", "q_a_scale", "q_a_zero", "k_i8", "k_scales", "k_zeros", "c_y_scale", "q_y_zero",
                             "k_bias"], ["qlinear_conv"], name="qlinear_conv", pads=[1, 0, 1, 0], strides=[2, 2],
             group=2),
    ]
    # MaxPool of uint8 (between a QOperator model's QLinear ops), padded, strided
    nodes.append(node("MaxPool", ["image"], ["pooled"], name="pooled", kernel_shape=[3, 3], strides=[2, 2],
                      pads=[1, 1, 1, 1]))
    if per_row:  # ONNX allows it, onnxruntime does not: checked against numpy
        nodes.append(node("MatMulInteger", ["a_i8", "w_i8", "a_zero_rows"], ["i8_rows"], name="i8_rows"))
    inputs = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
              for name, a in INPUTS.items()]
    outputs = [onnx.ValueInfoProto(name=name) for name in (
        "x_q", "x_scale", "x_zero", "n_q", "n_scale", "n_zero", "p_q", "p_scale", "p_zero", "z_q", "z_scale",
        "z_zero", "nan_q", "nan_scale", "nan_zero", "mi_q", "mi_scale", "mi_zero", "pi_q", "pi_scale", "pi_zero",
        "specials_u8", "specials_i8", "u8_i8", "i8_u8", "h_out", "qlinear_u8", "qlinear_i8", "conv_sums", "qlinear_conv", "pooled",
        *(["i8_rows"] if per_row else []))]
    graph = helper.make_graph(nodes, "integer_ops", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.fixture(scope="module")
def bundle(c_workdir: Path) -> Path:
    return emit_model(_model(), c_workdir, name="integer_ops")


def test_matches_onnxruntime(bundle: Path) -> None:
    checked = _model(per_row=False)
    session = ort.InferenceSession(checked.SerializeToString(), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, INPUTS)))
    inits = {t.name: numpy_helper.to_array(t) for t in checked.graph.initializer}
    a = INPUTS["a_i8"].astype(np.int32) - inits["a_zero_rows"].astype(np.int32)[:, None]
    want["i8_rows"] = a @ inits["w_i8"].astype(np.int32)
    with locked(bundle):
        got = run_bundle(bundle, INPUTS)
    for name, expected in want.items():
        assert got[name].dtype == expected.dtype, name
        if np.issubdtype(expected.dtype, np.integer):
            np.testing.assert_array_equal(got[name], expected, err_msg=name)
        else:
            assert_close(got[name], expected, None, name)
