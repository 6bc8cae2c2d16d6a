"""Host C kernels of operators inference models use beyond convolutions and elementwise
arithmetic: LogSoftmax and Hardmax, ArgMax and ArgMin, CumSum and CumProd, TopK,
RMSNormalization, GatherElements, Trilu, Range, Elu, Selu, Celu and ThresholdedRelu, and
binary arithmetic and comparisons on the 8-, 16-bit and unsigned integer types. One
single-op model each (the many-case tests build theirs side by side in one model,
test_c_backend.merged), built with gcc -Werror and compared with onnxruntime and ONNX's
reference evaluator, or with the reference alone where onnxruntime has no kernel (CumProd,
the narrow and unsigned integer types, NaN orderings it does not define). Every case is built
side by side with the others in one model per opset (`built`), so gcc compiles each kernel once."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
import itertools

from test_c_backend import GCC, c_workdir, compile_model, reference, run_together  # noqa: F401
from numeric_asserts import assert_close

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

MRVL_ERR_INDEX = -7


def node_model(op_type: str, inputs: dict[str, np.ndarray], constants: dict[str, np.ndarray] | None = None,
               outputs: int = 1, opset: int = 23, **attrs) -> onnx.ModelProto:
    """One node of `op_type` reading the graph inputs `inputs` (their dtypes and shapes), then
    the initializers `constants`; an empty name in `constants` is an absent optional input."""
    constants = constants or {}
    node = helper.make_node(op_type, [*inputs, *constants], [f"y{i}" for i in range(outputs)],
                            name=f"the_{op_type.lower()}", **attrs)
    graph = helper.make_graph(
        [node], op_type.lower(),
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in inputs.items()],
        [helper.make_tensor_value_info(f"y{i}", onnx.TensorProto.UNDEFINED, None) for i in range(outputs)],
        [onnx.numpy_helper.from_array(np.asarray(a), n) for n, a in constants.items() if n])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


Case = tuple[onnx.ModelProto, dict[str, np.ndarray], tuple[str, ...]]

CASES: dict[str, Case] = {}
"""Every model the tests below run (and do not expect to fail), by case name, with its inputs
and the references it is compared with."""

BOTH = ("onnxruntime", "onnx")


def case(name: str, model: onnx.ModelProto, inputs: dict[str, np.ndarray], references: tuple[str, ...] = BOTH) -> str:
    """Adds a case to CASES; its name."""
    assert name not in CASES, name
    CASES[name] = (model, inputs, references)
    return name


@pytest.fixture(scope="module")
def built(c_workdir: Path) -> dict[str, np.ndarray]:
    """CASES built side by side (test_c_backend.merged) and run: the outputs by `merged` name."""
    return run_together({n: m for n, (m, _, _) in CASES.items()}, c_workdir, {n: i for n, (_, i, _) in CASES.items()})


def check_against(built: dict[str, np.ndarray], name: str) -> list[np.ndarray]:
    """Compare every output of CASES[name] with each of its references (exactly for integers
    and booleans), and return the outputs."""
    model, inputs, references = CASES[name]
    got = [built[f"{name}__{o.name}"] for o in model.graph.output]
    compare_with(model, inputs, got, references)
    return got


def check_cases_against(built: dict[str, np.ndarray], names: list[str]) -> None:
    """`check_against` for each case; every case that differs is named."""
    failures = []
    for name in names:
        try:
            check_against(built, name)
        except AssertionError as error:
            failures.append(f"{name}: {error}")
    assert not failures, "\n".join(failures)


def compare_with(model: onnx.ModelProto, inputs: dict[str, np.ndarray], got: list[np.ndarray],
                 references: tuple[str, ...]) -> None:
    for name in references:
        expected = reference(model, inputs) if name == "onnxruntime" else ReferenceEvaluator(model).run(None, inputs)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            e = np.asarray(e)
            assert g.dtype == e.dtype, name
            if np.issubdtype(e.dtype, np.floating):
                assert_close(g, e.reshape(g.shape), what=name)
            else:
                np.testing.assert_array_equal(g, e.reshape(g.shape), err_msg=name)


def rng_values(shape: list[int], dtype, seed: int = 0, ties: bool = False) -> np.ndarray:
    """Random values of `dtype`: normal floats (rounded to few levels with `ties`), integers
    over a small range (so that ties happen)."""
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.floating):
        x = rng.standard_normal(shape) * 3
        return (np.round(x) if ties else x).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -20), min(info.max, 20), shape, endpoint=True).astype(dtype)


# --- LogSoftmax and Hardmax --------------------------------------------------------------------


def _log_softmax(axis: int, dtype: type) -> str:
    x = (np.random.default_rng(1).standard_normal([3, 4, 5]) * 20).astype(dtype)
    return case(f"log_softmax_{axis}_{np.dtype(dtype).name}".replace("-", "m"),
                node_model("LogSoftmax", {"x": x}, axis=axis), {"x": x})


LOG_SOFTMAX = {(axis, dtype): _log_softmax(axis, dtype) for axis in (-1, 0, 1, 2) for dtype in (np.float32, np.float64)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
def test_log_softmax(axis: int, dtype: type, built) -> None:
    """Along every axis; the values reach ±60, where float32's softmax underflows to 0 and its
    logarithm would be -inf, but log-softmax is finite."""
    check_against(built, LOG_SOFTMAX[axis, dtype])


_LARGE = np.array([[0, 1, 2, 3], [10000, 10001, 10002, 10003]], np.float32)
LOG_SOFTMAX_LARGE = case("log_softmax_large", node_model("LogSoftmax", {"x": _LARGE}), {"x": _LARGE})


def test_log_softmax_of_large_numbers(built) -> None:
    got = check_against(built, LOG_SOFTMAX_LARGE)
    assert_close(got[0][0], got[0][1])


_TIES = rng_values([4, 5, 6], np.float32, seed=2, ties=True)
HARDMAX = {axis: case(f"hardmax_{axis}".replace("-", "m"), node_model("Hardmax", {"x": _TIES}, axis=axis), {"x": _TIES})
           for axis in (-1, 0, 1)}


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_hardmax_first_maximum(axis: int, built) -> None:
    """With ties (values rounded), the first maximum along the axis gets the 1."""
    check_against(built, HARDMAX[axis])


# --- ArgMax and ArgMin ------------------------------------------------------------------------


_ARG_TIES = rng_values([3, 7, 4], np.float32, seed=3, ties=True)
ARG_WITH_TIES = [case(f"{op_type}_ties_{axis % 3}_{keepdims}_{last}",
                      node_model(op_type, {"x": _ARG_TIES}, axis=axis, keepdims=keepdims, select_last_index=last),
                      {"x": _ARG_TIES})
                 for op_type, axis, keepdims, last in itertools.product(["ArgMax", "ArgMin"], [0, -1, 1], [0, 1], [0, 1])]


def test_arg_max_min_with_ties(built) -> None:
    check_cases_against(built, ARG_WITH_TIES)


ARG_TYPES = [np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _arg_on_type(op_type: str, dtype: type) -> list[str]:
    x = rng_values([5, 6], dtype, seed=4)
    references = BOTH if dtype in (np.float64, np.int32, np.int64, np.int8, np.uint8) else ("onnx",)
    return [case(f"{op_type}_{np.dtype(dtype).name}_{last}",
                 node_model(op_type, {"x": x}, axis=1, keepdims=0, select_last_index=last), {"x": x}, references)
            for last in (0, 1)]


ARG_ON_TYPES = {(op_type, dtype): _arg_on_type(op_type, dtype) for op_type in ("ArgMax", "ArgMin") for dtype in ARG_TYPES}


@pytest.mark.parametrize("dtype", ARG_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_max_min_on_other_types(op_type: str, dtype: type, built) -> None:
    check_cases_against(built, ARG_ON_TYPES[op_type, dtype])


_ARG_NAN = np.array([[1, np.nan, 3, np.nan], [np.nan, 2, 2, 0], [1, 5, 5, -1]], np.float32)
ARG_NAN = {(op_type, last): case(f"{op_type}_nan_{last}", node_model(op_type, {"x": _ARG_NAN}, axis=1, keepdims=0,
                                                                     select_last_index=last), {"x": _ARG_NAN}, ("onnx",))
           for op_type in ("ArgMax", "ArgMin") for last in (0, 1)}


def test_arg_max_min_count_nan_as_the_extreme(built) -> None:
    """numpy's rule, which ONNX's reference follows: the first NaN (the last with
    select_last_index) is both the maximum and the minimum."""
    for (_, last), name in ARG_NAN.items():
        (got,) = check_against(built, name)
        assert got[0] == (3 if last else 1) and got[1] == 0


# --- CumSum and CumProd -----------------------------------------------------------------------


CUMULATIVE_TYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64]


_CUMSUM_X = rng_values([3, 5, 4], np.float32, seed=5)
CUMSUM = {(axis, exclusive, reverse): case(
    f"cumsum_{axis}_{exclusive}_{reverse}".replace("-", "m"),
    node_model("CumSum", {"x": _CUMSUM_X}, {"axis": np.array(axis, np.int64)}, exclusive=exclusive, reverse=reverse),
    {"x": _CUMSUM_X}) for axis in (0, 1, -1) for exclusive in (0, 1) for reverse in (0, 1)}


@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_cumsum(axis: int, exclusive: int, reverse: int, built) -> None:
    check_against(built, CUMSUM[axis, exclusive, reverse])


def _cumulative(op_type: str, dtype: type) -> list[str]:
    x = rng_values([2, 6, 3], dtype, seed=6)
    if op_type == "CumProd" and not np.issubdtype(dtype, np.floating):
        x = x % 4 + 1  # products that stay within every type
    references = ("onnx",) if op_type == "CumProd" or dtype in (np.uint32, np.uint64) else BOTH
    return [case(f"{op_type}_{np.dtype(dtype).name}_{exclusive}_{reverse}",
                 node_model(op_type, {"x": x}, {"axis": np.array(1, np.int32)}, opset=26, exclusive=exclusive,
                            reverse=reverse), {"x": x}, references)
            for exclusive, reverse in ((0, 0), (1, 0), (0, 1), (1, 1))]


CUMULATIVE = {(op_type, dtype): _cumulative(op_type, dtype) for op_type in ("CumSum", "CumProd")
              for dtype in CUMULATIVE_TYPES}


@pytest.mark.parametrize("dtype", CUMULATIVE_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("op_type", ["CumSum", "CumProd"])
def test_cumulative_on_every_type(op_type: str, dtype: type, built) -> None:
    """Both directions, inclusive and exclusive, along the middle axis; CumProd against ONNX's
    reference only (onnxruntime has no kernel for it)."""
    check_cases_against(built, CUMULATIVE[op_type, dtype])


# --- TopK -------------------------------------------------------------------------------------


TOP_K_AXES = [(-1, 3), (0, 2), (1, 5), (1, 0), (2, 9)]
_TOP_K_TIES = rng_values([5, 6, 9], np.float32, seed=7, ties=True)
TOP_K_TIES = {(axis, k, largest): case(
    f"top_k_ties_{axis}_{k}_{largest}".replace("-", "m"),
    node_model("TopK", {"x": _TOP_K_TIES}, {"k": np.array([k], np.int64)}, outputs=2, axis=axis, largest=largest),
    {"x": _TOP_K_TIES}) for axis, k in TOP_K_AXES for largest in (1, 0)}


@pytest.mark.parametrize("largest", [1, 0])
@pytest.mark.parametrize("axis,k", TOP_K_AXES)
def test_top_k_with_ties(axis: int, k: int, largest: int, built) -> None:
    """Values rounded to few levels, so equal elements must come in index order."""
    check_against(built, TOP_K_TIES[axis, k, largest])


def _top_k_on_type(dtype: type) -> list[str]:
    x = rng_values([4, 33], dtype, seed=8)
    references = BOTH if dtype in (np.float64, np.int32, np.int64) else ("onnx",)
    return [case(f"top_k_{np.dtype(dtype).name}_{largest}",
                 node_model("TopK", {"x": x}, {"k": np.array([7], np.int64)}, outputs=2, largest=largest), {"x": x},
                 references) for largest in (0, 1)]


TOP_K_ON_TYPES = {dtype: _top_k_on_type(dtype) for dtype in ARG_TYPES}


@pytest.mark.parametrize("dtype", ARG_TYPES, ids=lambda t: np.dtype(t).name)
def test_top_k_on_other_types(dtype: type, built) -> None:
    check_cases_against(built, TOP_K_ON_TYPES[dtype])


_TOP_K_NAN = np.array([[3, np.nan, 1, np.nan, 7, 2]], np.float32)
TOP_K_NAN = {largest: case(f"top_k_nan_{largest}", node_model("TopK", {"x": _TOP_K_NAN}, {"k": np.array([4], np.int64)},
                                                               outputs=2, largest=largest), {"x": _TOP_K_NAN}, ("onnx",))
             for largest in (0, 1)}


def test_top_k_nan_is_the_largest(built) -> None:
    for largest, name in TOP_K_NAN.items():
        _, indices = check_against(built, name)
        assert list(indices[0]) == ([1, 3, 4, 0] if largest else [2, 5, 0, 4])


# --- RMSNormalization -------------------------------------------------------------------------


RMS_SCALES = [(-1, [8]), (1, [5, 8]), (0, [4, 5, 8]), (1, [1, 8]), (-2, [5, 1])]
_RMS_X = rng_values([4, 5, 8], np.float32, seed=9)
RMS = {(axis, len(scale_shape), scale_shape[0]): case(
    f"rms_{axis}_{'x'.join(map(str, scale_shape))}".replace("-", "m"),
    node_model("RMSNormalization", {"x": _RMS_X},
               {"scale": np.random.default_rng(10).standard_normal(scale_shape).astype(np.float32)}, axis=axis,
               epsilon=1e-3), {"x": _RMS_X}) for axis, scale_shape in RMS_SCALES}


@pytest.mark.parametrize("axis,scale_shape", RMS_SCALES)
def test_rms_normalization(axis: int, scale_shape: list[int], built) -> None:
    """The normalised dims from `axis` on; a scale that broadcasts to them is expanded."""
    check_against(built, RMS[axis, len(scale_shape), scale_shape[0]])


# --- GatherElements ---------------------------------------------------------------------------


def _gather_elements(dtype: type, axis: int, index_type: type, smaller: bool) -> Case:
    data = rng_values([4, 5, 6], dtype, seed=11)
    shape = [3, 4, 5] if smaller else [4, 5, 6]
    dim = data.shape[axis]
    shape[axis] = 7
    indices = np.random.default_rng(12).integers(-dim, dim, shape).astype(index_type)
    model = node_model("GatherElements", {"x": data}, {"i": indices}, axis=axis)
    return model, {"x": data}, ("onnxruntime",) if smaller or axis < 0 else ("onnxruntime", "onnx")


GATHER_ELEMENTS = [
    case(f"gather_{np.dtype(dtype).name}_{axis}_{np.dtype(index_type).name}_{int(smaller)}".replace("-", "m"),
         *_gather_elements(dtype, axis, index_type, smaller))
    for dtype, axis, index_type, smaller in itertools.product([np.float32, np.int64, np.uint8], [0, 1, -1],
                                                              [np.int32, np.int64], [False, True])]


def test_gather_elements(built) -> None:
    """More indices than the axis is long, negative ones counting from the end; with
    `smaller`, the indices are also shorter than the data in the other dims, which the spec
    allows and onnxruntime takes (ONNX's reference does not, nor a negative axis)."""
    check_cases_against(built, GATHER_ELEMENTS)


def test_gather_elements_out_of_range_is_an_error(c_workdir: Path) -> None:
    data = rng_values([3, 4], np.float32)
    model = node_model("GatherElements", {"x": data}, {"i": np.array([[0, 4]], np.int64)}, axis=1)
    rc, _ = compile_model(model, c_workdir).run({"x": data})
    assert rc == MRVL_ERR_INDEX


# --- Trilu ------------------------------------------------------------------------------------


def _trilu(upper: int, k: int | None) -> list[str]:
    x = rng_values([2, 3, 4, 6], np.int64, seed=13)
    constants = {"k": np.array(k, np.int64)} if k is not None else {}
    return [case(f"trilu_{upper}_{k}_{np.dtype(v.dtype).name}".replace("-", "m"),
                 node_model("Trilu", {"x": v}, constants, upper=upper), {"x": v}) for v in (x, x.astype(np.float32))]


TRILU_K = [None, 0, 2, -1, -7, 9]
TRILU = {(upper, k): _trilu(upper, k) for upper in (1, 0) for k in TRILU_K}


@pytest.mark.parametrize("k", TRILU_K)
@pytest.mark.parametrize("upper", [1, 0])
def test_trilu(upper: int, k: int | None, built) -> None:
    """Both triangles of a batch of wide matrices, k inside and beyond them."""
    check_cases_against(built, TRILU[upper, k])


# --- Range ------------------------------------------------------------------------------------


RANGES = [(np.float32, 1.5, 20.0, 0.7), (np.float64, -3.0, 3.0, 0.25), (np.int32, 10, -7, -3), (np.int64, -5, 40, 6),
          (np.int16, 0, 9, 1)]


def _range(dtype: type, start, limit, delta) -> tuple[str, str]:
    """The Range from `start` and the same model run from start + 1 (no reference: compared
    with the first)."""
    count = max(int(np.ceil((limit - start) / delta)), 0)
    model = node_model("Range", {"start": np.array(start, dtype)},
                       {"limit": np.array(limit, dtype), "delta": np.array(delta, dtype)})
    model.graph.output[0].type.tensor_type.shape.dim[0].dim_value = count
    name = f"range_{np.dtype(dtype).name}"
    return (case(name, model, {"start": np.array(start, dtype)}),
            case(f"{name}_moved", model, {"start": np.array(start + 1, dtype)}, ()))


RANGE = {dtype: _range(dtype, *values) for dtype, *values in RANGES}


@pytest.mark.parametrize("dtype,start,limit,delta", RANGES, ids=lambda v: str(v))
def test_range_reads_start_and_delta_at_run_time(dtype: type, start, limit, delta, built) -> None:
    """start is a graph input, limit and delta initializers; the count is fixed at compile time
    (the output's shape, given), start can change at run time."""
    count = max(int(np.ceil((limit - start) / delta)), 0)
    first, moved = RANGE[dtype]
    got = check_against(built, first)
    assert got[0].shape == (count,)
    (moved_values,) = check_against(built, moved)
    assert_close(moved_values, got[0] + dtype(1))


# --- Elu, Selu, Celu, ThresholdedRelu ---------------------------------------------------------


ACTIVATIONS = [("Elu", {}), ("Elu", {"alpha": 0.3}), ("Selu", {}), ("Selu", {"alpha": 2.0, "gamma": 3.0}),
               ("Celu", {}), ("Celu", {"alpha": 0.4}), ("ThresholdedRelu", {}), ("ThresholdedRelu", {"alpha": -0.5})]


def _activation(index: int, dtype: type) -> str:
    op_type, attrs = ACTIVATIONS[index]
    x = rng_values([4, 50], dtype, seed=14)
    x[0, :3] = [0.0, -1e-7, 1e-7]
    # onnxruntime has no float64 kernel for these; near 0 it computes e^x - 1 as exp(x) - 1,
    # which cancels (off by 1e-7 at x = -1e-7), where the kernels take expm1.
    references = ("onnx",) if dtype == np.float64 else BOTH
    return case(f"activation_{index}_{np.dtype(dtype).name}", node_model(op_type, {"x": x}, **attrs), {"x": x},
                references)


ACTIVATION = {(index, dtype): _activation(index, dtype) for index in range(len(ACTIVATIONS))
              for dtype in (np.float32, np.float64)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("index", range(len(ACTIVATIONS)), ids=lambda i: str(ACTIVATIONS[i]))
def test_parametric_activation(index: int, dtype: type, built) -> None:
    check_against(built, ACTIVATION[index, dtype])


# --- Binary ops on the narrow and unsigned integer types -------------------------------------


NARROW_TYPES = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64]


def _narrow_binary(op_type: str, dtype: type) -> Case:
    rng = np.random.default_rng(15)
    signed = np.issubdtype(dtype, np.signedinteger)
    a = rng.integers(-40 if signed else 0, 40, [3, 4, 5]).astype(dtype)
    b = rng.integers(1, 9, [4, 5]).astype(dtype)
    if signed:
        b = (b * rng.choice([-1, 1], [4, 5])).astype(dtype)
    inputs = {"a": a, "b": b}
    return node_model(op_type, inputs, opset=19), inputs, ("onnx",)


NARROW_BINARY = [case(f"{op_type}_{np.dtype(dtype).name}", *_narrow_binary(op_type, dtype)) for op_type, dtype in
                 itertools.product(["Add", "Sub", "Mul", "Div", "Mod", "Max", "Min", "Equal", "Less", "LessOrEqual",
                                    "Greater", "GreaterOrEqual"], NARROW_TYPES)]


def test_binary_on_narrow_integer_types(built) -> None:
    """Against ONNX's reference (numpy); values that stay in range where the op would wrap, a
    broadcast rhs, divisors away from 0, both signs of the divisor for Mod. (ONNX's Pow takes
    no such base.)"""
    check_cases_against(built, NARROW_BINARY)


# --- ScatterElements and ScatterND ------------------------------------------------------------


REDUCTIONS = ["none", "add", "mul", "max", "min"]


def _scatter_elements(reduction: str, axis: int, dtype: type, index_type: type) -> Case:
    rng = np.random.default_rng(16)
    data = rng_values([4, 5, 6], dtype, seed=17)
    shape = [3, 4, 5]
    dim = data.shape[axis]
    if reduction == "none":  # distinct places along the axis: a permutation's first entries
        shape[axis] = 3
        order = np.argsort(rng.random([*shape[:axis % 3], dim, *shape[axis % 3 + 1:]]), axis=axis)
        indices = np.take(order, range(3), axis=axis) - rng.choice([0, dim], shape)
    else:
        shape[axis] = 7
        indices = rng.integers(-dim, dim, shape)
    updates = rng_values(shape, dtype, seed=18)
    model = node_model("ScatterElements", {"x": data}, {"i": indices.astype(index_type), "u": updates}, axis=axis,
                       reduction=reduction)
    return model, {"x": data}, BOTH


SCATTER_ELEMENTS = [
    case(f"scatter_{reduction}_{axis % 3}_{np.dtype(dtype).name}_{np.dtype(index_type).name}",
         *_scatter_elements(reduction, axis, dtype, index_type))
    for reduction, axis, (dtype, index_type) in itertools.product(
        REDUCTIONS, [0, 1, -1], [(np.float32, np.int64), (np.int64, np.int32), (np.float64, np.int64)])]


def test_scatter_elements(built) -> None:
    """Updates fewer than the data in every dim; with a reduction, several land on one place
    (all of them count); without, each place gets at most one (ONNX leaves duplicates open)."""
    check_cases_against(built, SCATTER_ELEMENTS)


def _scatter_nd(reduction: str, depth: int) -> str:
    rng = np.random.default_rng(19)
    data = rng_values([4, 4, 5], np.float32, seed=20)
    places = np.stack(np.unravel_index(rng.permutation(np.prod(data.shape[:depth]))[:3], data.shape[:depth]), -1)
    if reduction != "none":
        places = np.concatenate([places, places[:2]])
    indices = (places - rng.choice([0, 1], places.shape) * np.array(data.shape[:depth])).reshape(-1, 1, depth)
    updates = rng_values([*indices.shape[:-1], *data.shape[depth:]], np.float32, seed=21)
    model = node_model("ScatterND", {"x": data}, {"i": indices.astype(np.int64), "u": updates}, reduction=reduction)
    return case(f"scatter_nd_{reduction}_{depth}", model, {"x": data})


SCATTER_ND = {(reduction, depth): _scatter_nd(reduction, depth) for reduction in REDUCTIONS for depth in (1, 2, 3)}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_scatter_nd(reduction: str, depth: int, built) -> None:
    """Index tuples of 1 to 3 of the data's 3 dims (slices of 20, 5 and 1 elements), negative
    ones from the end, repeated places only with a reduction."""
    check_against(built, SCATTER_ND[reduction, depth])


def test_scatter_out_of_range_is_an_error(c_workdir: Path) -> None:
    data = rng_values([3, 4], np.float32)
    elements = node_model("ScatterElements", {"x": data},
                          {"i": np.array([[0, -5]], np.int64), "u": np.ones([1, 2], np.float32)}, axis=1)
    nd = node_model("ScatterND", {"x": data}, {"i": np.array([[1, 4]], np.int64), "u": np.ones([1], np.float32)})
    for model in (elements, nd):
        rc, _ = compile_model(model, c_workdir).run({"x": data})
        assert rc == MRVL_ERR_INDEX
