"""Host C kernels beyond 2-d float32: 3-d conv, conv_transpose and pools, MaxPool's Indices,
cubic resize (every coordinate transformation mode, cubic_coeff_a, exclude_outside),
antialiased and cropping (tf_crop_and_resize) resize, casts between the float types (round
to nearest even), arithmetic on int32, int64 and float64, float64 reductions and seeded
training-mode Dropout; one single-op model each, built with gcc -Werror and compared with
onnxruntime. Where onnxruntime has no kernel or differs from ONNX's reference (3-d cubic and
linear resize, cubic tf_crop_and_resize, PRelu and Erf on these types, int64 Relu, any
bfloat16 tensor at its Python interface, Dropout's random mask) the reference is ONNX's own
evaluator, or numpy for casts and the mask."""

from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from numeric_asserts import assert_close
from mrvl.numerics import FLOAT32
from test_c_backend import (GCC, _i64, _w, c_workdir, random_inputs, reference, run_together,  # noqa: F401
                            single_op)

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

X3 = [("x", [2, 4, 5, 6, 7])]
ROI = onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi")


def _scales(values: list[float]) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(np.array(values, np.float32), "sc")


FLOAT_OPS = {
    "conv3d": single_op("Conv", X3, initializers=[_w("w", [6, 2, 3, 2, 3]), _w("b", [6])], group=2,
                        pads=[1, 0, 2, 0, 1, 1], strides=[2, 1, 2], dilations=[1, 2, 1]),
    "conv3d_pointwise": single_op("Conv", X3, initializers=[_w("w", [3, 4, 1, 1, 1])]),
    "conv3d_depthwise": single_op("Conv", X3, initializers=[_w("w", [8, 1, 3, 3, 3]), _w("b", [8])], group=4,
                                  pads=[1, 1, 1, 1, 1, 1], strides=[1, 2, 1]),
    "conv_transpose3d": single_op("ConvTranspose", X3, initializers=[_w("w", [4, 3, 2, 3, 2]), _w("b", [3])],
                                  strides=[2, 1, 2], pads=[1, 0, 0, 0, 1, 1], output_padding=[1, 0, 0]),
    "conv_transpose3d_grouped": single_op("ConvTranspose", X3, initializers=[_w("w", [4, 1, 3, 3, 3])], group=2,
                                          dilations=[2, 1, 1]),
    "max_pool3d": single_op("MaxPool", X3, kernel_shape=[2, 3, 3], strides=[2, 2, 1], pads=[1, 1, 0, 0, 1, 1],
                            ceil_mode=1),
    "avg_pool3d": single_op("AveragePool", X3, kernel_shape=[3, 3, 2], strides=[1, 2, 2], pads=[1, 1, 1, 1, 1, 1]),
    "avg_pool3d_include_pad": single_op("AveragePool", X3, kernel_shape=[3, 2, 3], strides=[2, 2, 2],
                                        pads=[1, 0, 1, 1, 1, 0], count_include_pad=1),
    "resize_cubic": single_op("Resize", [("x", [2, 3, 5, 7])], initializers=[ROI, _scales([1, 1, 2.0, 1.5])],
                              mode="cubic"),
    "resize_cubic_down": single_op("Resize", [("x", [1, 2, 9, 8])], initializers=[ROI, _scales([1, 1, 0.6, 0.5])],
                                   mode="cubic"),
    "resize_cubic_a_exclude": single_op("Resize", [("x", [2, 3, 5, 7])], initializers=[ROI, _scales([1, 1, 1.7, 2.5])],
                                        mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1),
    "resize_cubic_3d": single_op("Resize", [("x", [3, 4, 6])], initializers=[ROI, _scales([1, 2.0, 0.75])],
                                 mode="cubic", coordinate_transformation_mode="asymmetric"),
}
for _mode in ("align_corners", "asymmetric", "pytorch_half_pixel", "half_pixel_symmetric"):
    FLOAT_OPS[f"resize_cubic_{_mode}"] = single_op(
        "Resize", [("x", [1, 2, 6, 5])], initializers=[ROI, _scales([1, 1, 1.5, 2.2])], mode="cubic",
        coordinate_transformation_mode=_mode, exclude_outside=int(_mode == "asymmetric"))
FLOAT_OPS["resize_cubic_half_pixel_symmetric"].opset_import[0].version = 19


ONNX_REFERENCE_ONLY = {"resize_cubic_3d"}
"""onnxruntime's cubic Resize takes 2-d or 4-d inputs only."""

CASES: dict[str, tuple[onnx.ModelProto, dict[str, np.ndarray]]] = {}
"""Every model this file's tests run, by case name, with its inputs: `built` builds them side by
side (test_c_backend.merged), so gcc compiles each kernel once for all of them."""


@pytest.fixture(scope="module")
def built(c_workdir: Path) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """CASES built and run twice (a run draws no new random numbers): the outputs of each run
    by `merged` name."""
    models, inputs = {n: m for n, (m, _) in CASES.items()}, {n: i for n, (_, i) in CASES.items()}
    return run_together(models, c_workdir, inputs), run_together(models, c_workdir, inputs)


def outputs(built, case: str) -> list[np.ndarray]:
    """The outputs of CASES[case] in the first run."""
    return [built[0][f"{case}__{o.name}"] for o in CASES[case][0].graph.output]


for _name, _model in FLOAT_OPS.items():
    CASES[_name] = (_model, random_inputs(_model, 11))


@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_float_kernel_matches_onnxruntime(name: str, built) -> None:
    model, inputs = CASES[name]
    (got,) = outputs(built, name)
    (expected,) = (ReferenceEvaluator(model).run(None, inputs) if name in ONNX_REFERENCE_ONLY
                   else reference(model, inputs))
    assert_close(got, expected.reshape(got.shape))


# --- Typed single ops --------------------------------------------------------------------------

ONNX_TYPES = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.float16: TensorProto.FLOAT16,
              ml_dtypes.bfloat16: TensorProto.BFLOAT16, np.int32: TensorProto.INT32, np.int64: TensorProto.INT64,
              np.bool_: TensorProto.BOOL}


def typed_op(op_type: str, inputs: list[tuple[str, type]], output: type, shape: list[int], opset: int = 19,
             **attrs) -> onnx.ModelProto:
    node = helper.make_node(op_type, [n for n, _ in inputs], ["y"], name=f"the_{op_type.lower()}", **attrs)
    graph = helper.make_graph(
        [node], op_type.lower(), [helper.make_tensor_value_info(n, ONNX_TYPES[t], shape) for n, t in inputs],
        [helper.make_tensor_value_info("y", ONNX_TYPES[output], shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def run_typed(built, case: str, onnxruntime: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The C result of CASES[case] and the reference: onnxruntime's, or ONNX's evaluator's."""
    model, inputs = CASES[case]
    (got,) = outputs(built, case)
    (expected,) = reference(model, inputs) if onnxruntime else ReferenceEvaluator(model).run(None, inputs)
    return got, expected


FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]


def cast_input(dtype: type) -> np.ndarray:
    """Values over every range the float types have: normal, subnormal in f16, past f16's
    largest, halfway cases, signed zeros, infinities and NaN (as `dtype`)."""
    rng = np.random.default_rng(5)
    values = np.concatenate([
        rng.standard_normal(64) * 10.0 ** rng.integers(-9, 7, 64),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.0, 65520.0, 1e6, 6.1e-5, 3e-8, -2.98e-8, 5.96e-8,
         1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -8, 3.0e38, -1.5e-39],
    ])
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def _cast_case(source: type, target: type) -> str:
    return f"cast_{np.dtype(source).name}_{np.dtype(target).name}"


for _source in FLOATS:
    for _target in FLOATS:
        if _source is not _target:
            _x = cast_input(_source)
            CASES[_cast_case(_source, _target)] = (
                typed_op("Cast", [("x", _source)], _target, [len(_x)], to=ONNX_TYPES[_target]), {"x": _x})


@pytest.mark.parametrize("source", FLOATS, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("target", FLOATS, ids=lambda t: np.dtype(t).name)
def test_cast_between_float_types(source: type, target: type, built) -> None:
    if source is target:
        pytest.skip("a cast to the same type is no op")
    case = _cast_case(source, target)
    model, inputs = CASES[case]
    x = inputs["x"]
    (got,) = outputs(built, case)
    # Round to nearest even straight from the source type, as numpy and ml_dtypes do.
    with np.errstate(over="ignore"):
        direct = x.astype(target)
    references = [direct]
    if ml_dtypes.bfloat16 not in (source, target):
        references += reference(model, {"x": x})
    for expected in references:
        nan = np.isnan(expected.astype(np.float64))
        np.testing.assert_array_equal(np.isnan(got.astype(np.float64)), nan)
        np.testing.assert_array_equal(got[~nan].view(np.uint8), expected[~nan].view(np.uint8))


INT_BINARY = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Mod", "Pow"]


BINARY_TYPES = [np.int32, np.int64, np.float64]
BINARY_OPS = [*INT_BINARY, "ModF", "PRelu", "Less", "Equal", "GreaterOrEqual"]


def _binary_case(op_type: str, dtype: type) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(2)
    shape = [3, 4, 5]
    a = rng.integers(-50, 50, shape).astype(dtype)
    b = rng.integers(1, 9, shape[1:]).astype(dtype) * rng.choice([-1, 1], shape[1:]).astype(dtype)
    attrs = {}
    if op_type == "ModF":
        op_type, attrs = "Mod", {"fmod": 1}
    elif op_type == "Mod" and dtype == np.float64:
        attrs = {"fmod": 1}  # onnxruntime needs fmod=1 for floating Mod
    if op_type == "Pow":
        a, b = a % 7, np.abs(b) % 4  # exact in every type
    if op_type == "Div" and dtype == np.float64:
        b = b + 0.5
    comparison = op_type in ("Less", "Equal", "GreaterOrEqual")
    node = helper.make_node(op_type, ["a", "b"], ["y"], name="the_op", **attrs)
    graph = helper.make_graph([node], "binary", [helper.make_tensor_value_info("a", ONNX_TYPES[dtype], shape),
                                                 helper.make_tensor_value_info("b", ONNX_TYPES[dtype], shape[1:])],
                              [helper.make_tensor_value_info("y", ONNX_TYPES[np.bool_ if comparison else dtype],
                                                             shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)
    return model, {"a": a, "b": b}


for _op in BINARY_OPS:
    for _dtype in BINARY_TYPES:
        CASES[f"binary_{_op}_{np.dtype(_dtype).name}"] = _binary_case(_op, _dtype)


@pytest.mark.parametrize("dtype", BINARY_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op_type", BINARY_OPS)
def test_binary_on_other_types(op_type: str, dtype: type, built) -> None:
    got, expected = run_typed(built, f"binary_{op_type}_{np.dtype(dtype).name}", onnxruntime=op_type != "PRelu")
    assert got.dtype == expected.dtype
    assert_close(got, expected)


UNARY = [*[(op, t) for op in ("Relu", "Neg", "Abs", "Sign") for t in (np.int32, np.int64)],
         *[(op, np.float64) for op in ("Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Floor", "Erf", "Sign", "Sin")]]
for _op, _dtype in UNARY:
    _x = (np.random.default_rng(4).standard_normal([4, 6]) * 20).astype(_dtype)
    CASES[f"unary_{_op}_{np.dtype(_dtype).name}"] = (typed_op(_op, [("x", _dtype)], _dtype, [4, 6]), {"x": _x})


@pytest.mark.parametrize("op_type,dtype", UNARY, ids=str)
def test_unary_on_other_types(op_type: str, dtype: type, built) -> None:
    ort_kernel = (op_type, dtype) not in (("Relu", np.int64), ("Erf", np.float64))
    got, expected = run_typed(built, f"unary_{op_type}_{np.dtype(dtype).name}", onnxruntime=ort_kernel)
    # onnxruntime's double Tanh and the evaluator's Erf are only float-accurate.
    assert_close(got, expected, FLOAT32 if op_type in ("Tanh", "Erf") else None)


# --- MaxPool's Indices -------------------------------------------------------------------------


def max_pool_with_indices(shape: list[int], **attrs) -> onnx.ModelProto:
    """A MaxPool whose Values and Indices are both graph outputs."""
    node = helper.make_node("MaxPool", ["x"], ["y", "indices"], name="the_maxpool", **attrs)
    graph = helper.make_graph([node], "maxpool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("indices", TensorProto.INT64, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)], ir_version=8)


MAX_POOL_INDICES = {
    "2d": ([2, 3, 7, 6], dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1])),
    "2d_column_major": ([2, 3, 7, 6], dict(kernel_shape=[3, 2], strides=[2, 1], pads=[1, 0, 1, 1], storage_order=1)),
    "2d_dilations_ceil": ([1, 2, 9, 8], dict(kernel_shape=[2, 3], strides=[2, 2], dilations=[2, 1], ceil_mode=1)),
    "1d": ([2, 2, 11], dict(kernel_shape=[3], strides=[2], pads=[1, 1])),
    "3d": ([2, 2, 5, 4, 6], dict(kernel_shape=[2, 3, 2], strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 1])),
    "3d_column_major": ([2, 2, 5, 4, 6], dict(kernel_shape=[2, 2, 3], strides=[1, 2, 2], pads=[0, 1, 1, 1, 0, 1],
                                              storage_order=1)),
}


for _name, (_shape, _attrs) in MAX_POOL_INDICES.items():
    for _ties in (False, True):
        _x = np.random.default_rng(3).standard_normal(_shape).astype(np.float32)
        CASES[f"pool_indices_{_name}_{_ties}"] = (max_pool_with_indices(_shape, **_attrs),
                                                   {"x": np.round(_x).astype(np.float32) if _ties else _x})


@pytest.mark.parametrize("ties", [False, True], ids=["distinct", "ties"])
@pytest.mark.parametrize("name", sorted(MAX_POOL_INDICES))
def test_max_pool_indices_match_onnxruntime(name: str, ties: bool, built) -> None:
    """Indices flattened over the whole input (so batch and channel count), in either storage
    order; with ties (values rounded to a few levels) the first maximum of a window wins."""
    attrs = MAX_POOL_INDICES[name][1]
    case = f"pool_indices_{name}_{ties}"
    model, inputs = CASES[case]
    x = inputs["x"]
    values, indices = outputs(built, case)
    expected_values, expected_indices = reference(model, {"x": x})
    np.testing.assert_array_equal(values, expected_values)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices, expected_indices)
    if not attrs.get("storage_order"):
        np.testing.assert_array_equal(x.reshape(-1)[indices], values)


# --- float64 reductions ------------------------------------------------------------------------

REDUCE_OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]


def float64_reduce(op_type: str, keepdims: int) -> tuple[onnx.ModelProto, np.ndarray]:
    """A reduction of a (3, 4, 5) double over axes 0 and 2, and an input whose float32 sums
    would be off by far more than the tolerance (a 1e8 offset and small parts)."""
    rng = np.random.default_rng(6)
    x = rng.uniform(0.5, 2.0, [3, 4, 5]) + (1e8 if op_type in ("ReduceSum", "ReduceMean", "ReduceMax") else 0.0)
    if op_type == "ReduceLogSumExp":
        x = x + 700.0  # exp beyond float32's range, within double's
    node = helper.make_node(op_type, ["x", "axes"], ["y"], name="the_reduce", keepdims=keepdims)
    graph = helper.make_graph([node], "reduce", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, [3, 4, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, None)],
                              [onnx.numpy_helper.from_array(np.array([0, 2], np.int64), "axes")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8), x


for _op in REDUCE_OPS:
    for _keepdims in (0, 1):
        _model, _x = float64_reduce(_op, _keepdims)
        CASES[f"reduce_f64_{_op}_{_keepdims}"] = (_model, {"x": _x})


@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("op_type", REDUCE_OPS)
def test_float64_reduce_matches_onnxruntime(op_type: str, keepdims: int, built) -> None:
    """Every reduction on doubles, in double precision."""
    got, expected = run_typed(built, f"reduce_f64_{op_type}_{keepdims}")
    assert got.dtype == np.float64
    assert_close(got, expected)


# --- Antialiased and cropping Resize -----------------------------------------------------------


def resize_model(shape: list[int], roi: list[float] | None = None, scales: list[float] | None = None,
                 sizes: list[int] | None = None, **attrs) -> onnx.ModelProto:
    """A Resize (opset 19) of a graph input with constant roi, scales or sizes."""
    initializers = [onnx.numpy_helper.from_array(np.array(roi or [], np.float32), "roi")]
    names = ["x", "roi", ""]
    if scales is not None:
        initializers.append(_scales(scales))
        names[2] = "sc"
    if sizes is not None:
        initializers.append(_i64("sz", sizes))
        names.append("sz")
    node = helper.make_node("Resize", names, ["y"], name="the_resize", **attrs)
    graph = helper.make_graph([node], "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)


CROP = dict(coordinate_transformation_mode="tf_crop_and_resize")
FILTERED_RESIZES = {
    "antialias_linear": resize_model([2, 3, 9, 11], scales=[1, 1, 0.6, 0.35], mode="linear", antialias=1),
    "antialias_linear_up_down": resize_model([1, 2, 6, 13], scales=[1, 1, 1.5, 0.4], mode="linear", antialias=1),
    "antialias_linear_align_corners": resize_model([1, 2, 10, 9], sizes=[1, 2, 4, 5], mode="linear", antialias=1,
                                                   coordinate_transformation_mode="align_corners"),
    "antialias_linear_asymmetric": resize_model([1, 2, 10, 9], scales=[1, 1, 0.5, 0.25], mode="linear", antialias=1,
                                                coordinate_transformation_mode="asymmetric"),
    "antialias_cubic": resize_model([2, 3, 9, 11], scales=[1, 1, 0.45, 0.7], mode="cubic", antialias=1),
    "antialias_cubic_a_exclude": resize_model([1, 2, 12, 10], scales=[1, 1, 0.3, 0.8], mode="cubic", antialias=1,
                                              cubic_coeff_a=-0.5, exclude_outside=1),
    "antialias_cubic_pytorch_to_1": resize_model([1, 2, 12, 10], sizes=[1, 2, 5, 1], mode="cubic", antialias=1,
                                                 coordinate_transformation_mode="pytorch_half_pixel"),
    "crop_linear": resize_model([2, 3, 7, 8], roi=[0, 0, 0.1, 0.3, 1, 1, 0.8, 0.9], sizes=[2, 3, 5, 6],
                                mode="linear", **CROP),
    "crop_linear_extrapolated": resize_model([2, 3, 7, 8], roi=[0, 0, -0.2, 0.5, 1, 1, 0.7, 1.4], sizes=[2, 3, 6, 4],
                                             mode="linear", extrapolation_value=-3.5, **CROP),
    "crop_cubic_extrapolated": resize_model([1, 2, 9, 8], roi=[0, 0, 0.2, -0.1, 1, 1, 0.9, 1.2],
                                            scales=[1, 1, 1.5, 0.75], mode="cubic", extrapolation_value=2.0, **CROP),
    "crop_axes_reversed": resize_model([1, 2, 9, 8], roi=[0.6, 0.1, 0.2, 0.95], sizes=[4, 7], axes=[3, 2],
                                       mode="linear", **CROP),
    "crop_to_one_row": resize_model([1, 2, 9, 8], roi=[0, 0, 0.2, 0.4, 1, 1, 0.8, 0.6], sizes=[1, 2, 1, 3],
                                    mode="linear", **CROP),
    "crop_antialias": resize_model([1, 2, 12, 13], roi=[0, 0, 0.1, 0.2, 1, 1, 0.9, 0.7], sizes=[1, 2, 4, 3],
                                   mode="linear", antialias=1, **CROP),
    "crop_3d": resize_model([3, 9, 8], roi=[0, 0.2, 0.4, 1, 0.8, 0.6], sizes=[3, 4, 5], mode="linear", **CROP),
}
ONE_REFERENCE = {
    "antialias_cubic_pytorch_to_1": ("onnxruntime", "ONNX's reference maps an output of size 1 to -0.5, the spec "
                                                    "and onnxruntime to 0"),
    "crop_cubic_extrapolated": ("onnx", "onnxruntime's cubic tf_crop_and_resize differs from ONNX's reference"),
    "crop_3d": ("onnx", "onnxruntime's linear Resize takes 2-d and 4-d inputs"),
}
"""Cases checked against one reference only, and why."""


for _name, _model in FILTERED_RESIZES.items():
    CASES[f"resize_{_name}"] = (_model, random_inputs(_model, 13))


@pytest.mark.parametrize("name", sorted(FILTERED_RESIZES))
def test_filtered_resize_matches(name: str, built) -> None:
    """Antialias (the filter stretched over every input element a shrinking dim covers) and
    tf_crop_and_resize (roi, extrapolation_value) against onnxruntime and ONNX's reference."""
    model, inputs = CASES[f"resize_{name}"]
    (got,) = outputs(built, f"resize_{name}")
    only = ONE_REFERENCE.get(name, ("",))[0]
    if only != "onnxruntime":
        (expected,) = ReferenceEvaluator(model).run(None, inputs)
        assert_close(got, expected)
    if only != "onnx":
        (expected,) = reference(model, inputs)
        assert_close(got, expected)


# --- Training-mode Dropout ---------------------------------------------------------------------


def training_dropout(shape: list[int], ratio: float, seed: int, with_mask: bool) -> onnx.ModelProto:
    """A training-mode Dropout (ratio and training_mode constant) with a seed."""
    outputs = ["y", "mask"] if with_mask else ["y"]
    node = helper.make_node("Dropout", ["x", "ratio", "training"], outputs, name="the_dropout", seed=seed)
    graph = helper.make_graph(
        [node], "dropout", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
        + ([helper.make_tensor_value_info("mask", TensorProto.BOOL, None)] if with_mask else []),
        [onnx.numpy_helper.from_array(np.array(ratio, np.float32), "ratio"),
         onnx.numpy_helper.from_array(np.array(True), "training")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


DROPOUTS = [(0.5, 0, True), (0.75, 0, False), (0.1, 12345, True), (0.3, 2**32 - 1, True), (0.9, 7, False)]
for _ratio, _seed, _with_mask in DROPOUTS:
    CASES[f"dropout_{_ratio}_{_seed}_{_with_mask}".replace(".", "_")] = (
        training_dropout([7, 11, 13], _ratio, _seed, _with_mask),
        {"x": np.random.default_rng(8).standard_normal([7, 11, 13]).astype(np.float32)})


@pytest.mark.parametrize("ratio,seed,with_mask", DROPOUTS)
def test_seeded_training_dropout_matches_onnx_reference(ratio: float, seed: int, with_mask: bool, built) -> None:
    """The mask is numpy's legacy MT19937 stream for the seed (np.random.RandomState(seed)
    .uniform(0, 1, shape) >= ratio), as ONNX's reference draws it, over enough elements for
    several twists of the generator's state (312 elements each); the kept elements are scaled
    by 1 / (1 - ratio); every run draws the same mask."""
    shape = [7, 11, 13]
    case = f"dropout_{ratio}_{seed}_{with_mask}".replace(".", "_")
    model, inputs = CASES[case]
    x = inputs["x"]
    got = outputs(built, case)
    expected = ReferenceEvaluator(model).run(None, {"x": x})
    mask = np.random.RandomState(seed).uniform(0, 1, shape) >= np.float32(ratio)
    assert_close(got[0], expected[0])
    assert_close(got[0], np.where(mask, x / np.float32(1 - ratio), 0))
    if with_mask:
        assert got[1].dtype == np.bool_
        np.testing.assert_array_equal(got[1], expected[1])
        np.testing.assert_array_equal(got[1], mask)
    np.testing.assert_array_equal(built[1][f"{case}__y"], got[0])
