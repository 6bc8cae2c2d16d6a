"""Each legalisation, run as MLIP runs it, is exact to fp16: on every fp16 value in a range.

The rewrites of `legalize-mrvl` are exact in real numbers; MLIP computes in fp16 (every
layer's output and every constant stored as fp16, the arithmetic inside a layer fp32: the
reference simulator's `precision="fp16"`), where a form that subtracts nearly equal layer
outputs loses a small result's low bits. Here a small model (the op between MLIP layers,
or alone where the rewrite applies anywhere) goes through the pipeline; its subgraph,
emitted to JSON and run by the simulator in fp16 on an input holding every finite fp16
value with |u| <= a limit in each of 4 channels (over 100k elements), must stay per element
within

    2 ulp(exact) + |op(u; constants) - op(u; constants rounded to fp16)|

of the op's exact result (float64) on the same fp16 input. ulp(r) is the spacing of fp16
numbers at r: 2^(floor(log2 |r|) - 10), and 2^-24 (the subnormal spacing) for |r| < 2^-14,
so an exact 0 allows only the two smallest subnormals. The second term is the error no
fp16 layer can avoid (a slope 0.1 is stored as 0.099976); convs add the bound of their own
fp32 accumulation. The limit keeps results finite and, for Clip, inside the range where its
bounds are multiples of ulp(u) (see `clip-as-depthwise`).
"""

from collections.abc import Callable

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import PassPipeline

from mrvl.backend.json_emitter import emit_subgraph
from mrvl.backend.mlip_simulator import simulate
from mrvl.backend.reference_interpreter import run
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes import get_all_passes
from mrvl_dialect.mrvl import LEGALIZED_ATTR, SubgraphOp

STAGES = "cleanup-graph,legalize-mrvl,place-ops,partition-mrvl,fuse-mrvl,convert-layout"
CHANNELS = 4
WIDTH = 256


def fp16_values(limit: float) -> np.ndarray:
    """Every finite fp16 value with |v| <= limit, negative and positive, subnormals and 0."""
    positive = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    positive = positive[positive <= limit]
    return np.concatenate([-positive[:0:-1], positive])


def fp16_input(limit: float) -> np.ndarray:
    """`fp16_values(limit)` in each of the channels of a `[1, CHANNELS, H, WIDTH]` tensor."""
    values = fp16_values(limit)
    height = -(-values.size // WIDTH)
    plane = np.resize(values, height * WIDTH).reshape(height, WIDTH)
    return np.broadcast_to(plane, (1, CHANNELS, height, WIDTH)).astype(np.float32)


def ulp(r: np.ndarray) -> np.ndarray:
    """The spacing of fp16 numbers at each |r|: the subnormal spacing below 2^-14."""
    magnitude = np.abs(r)
    exponent = np.floor(np.log2(np.where(magnitude >= 2.0**-14, magnitude, 1.0)))
    return np.where(magnitude >= 2.0**-14, 2.0 ** (exponent - 10), 2.0**-24)


def fp16(a) -> np.ndarray:
    return np.asarray(a, np.float32).astype(np.float16).astype(np.float64)


def per_channel(values) -> np.ndarray:
    """A constant's values as the `[1, C, 1, 1]` that broadcasts them to NCHW, float64."""
    return np.asarray(values, np.float32).astype(np.float64).reshape(1, -1, 1, 1)


def model(before: list[onnx.NodeProto], op: onnx.NodeProto, constants: dict[str, np.ndarray],
          input_shape: tuple[int, ...], conv_after: bool = True) -> onnx.ModelProto:
    """x -> `before` (reads x, writes u) -> `op` (reads u, writes the output y), and with
    `conv_after` a 1x1 depthwise conv of y as a second output z: a subgraph of layers that
    are only legalised ops and pools is not worth a call (policy.compute-intensive)."""
    inits = [numpy_helper.from_array(a if a.dtype == np.int64 else a.astype(np.float32), n) for n, a in constants.items()]
    after = []
    if conv_after:
        inits.append(numpy_helper.from_array(np.ones((CHANNELS, 1, 1, 1), np.float32), "after_ones"))
        after = [helper.make_node("Conv", ["y", "after_ones"], ["z"], group=CHANNELS, kernel_shape=[1, 1], name="after")]
    outputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ["y", "z"][:1 + conv_after]]
    graph = helper.make_graph([*before, op, *after], "legalized",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)], outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def identity_conv() -> tuple[list[onnx.NodeProto], dict[str, np.ndarray]]:
    """A 1x1 depthwise conv of weight 1: an MLIP layer whose fp16 output is its input."""
    conv = helper.make_node("Conv", ["x", "ones"], ["u"], group=CHANNELS, kernel_shape=[1, 1], name="conv")
    return [conv], {"ones": np.ones((CHANNELS, 1, 1, 1), np.float32)}


def identity_pool() -> tuple[list[onnx.NodeProto], dict[str, np.ndarray]]:
    """A 1x1 MaxPool: an MLIP layer no Relu, bias or batch norm fuses into."""
    return [helper.make_node("MaxPool", ["x"], ["u"], kernel_shape=[1, 1], name="pool")], {}


def run_on_mlip(onnx_model: onnx.ModelProto, x: np.ndarray, legalization: str) -> np.ndarray:
    """The model compiled by the pipeline, its one subgraph run by the simulator in fp16
    from its JSON, checking that `legalization` rewrote the op."""
    module = import_onnx(onnx_model, {})
    PassPipeline.parse_spec(get_all_passes(), STAGES).apply(Context(), module)
    subgraphs = [op for op in module.body.block.ops if isinstance(op, SubgraphOp)]
    assert len(subgraphs) == 1
    assert set(module.attributes[LEGALIZED_ATTR].data.values()) == {StringAttr(legalization)}
    op_type = next(node.op_type for node in onnx_model.graph.node if "y" in node.output)
    assert not [op for op in module.walk() if op.name == f"graph.{op_type}"]
    emitted = emit_subgraph(subgraphs[0], module, 0)

    def from_json(symbol: str, values: list[np.ndarray]) -> list[np.ndarray]:
        return simulate(emitted.nodes, emitted.consts, values, precision="fp16")

    return np.asarray(run(module, [x], run_subgraph=from_json)[0], np.float64)


def assert_within_budget(got: np.ndarray, exact: np.ndarray, unavoidable: np.ndarray | float, u: np.ndarray) -> None:
    """|got - exact| <= 2 ulp(exact) + `unavoidable` per element; the failure names the worst
    element, its input `u` when `u` has the result's shape, and how many are beyond."""
    error = np.abs(got - exact)
    budget = 2 * ulp(exact) + unavoidable
    over = error > budget
    if over.any():
        worst = np.unravel_index(int(np.argmax(np.where(over, error / ulp(exact), 0))), error.shape)
        u_at = u[worst] if u.shape == error.shape else "-"
        raise AssertionError(
            f"{int(over.sum())} of {error.size} elements beyond 2 ulps (+ constant storage); worst: u = {u_at!r}, "
            f"got {got[worst]!r}, exact {exact[worst]!r} ({error[worst] / ulp(exact)[worst]:.3g} ulps)")


def check_elementwise(before, op: onnx.NodeProto, constants: dict[str, np.ndarray], limit: float, legalization: str,
                      exact: Callable[[np.ndarray, Callable], np.ndarray]) -> None:
    """`exact(u, c)` computes the op in float64 with its constants read through `c` (the
    model's float32 values, or those rounded to fp16)."""
    nodes, before_constants = before()
    x = fp16_input(limit)
    assert x.size >= 100_000
    got = run_on_mlip(model(nodes, op, {**before_constants, **constants}, x.shape), x, legalization)
    u = x.astype(np.float64)
    want = exact(u, lambda v: np.asarray(v, np.float32).astype(np.float64))
    stored = exact(u, fp16)
    assert_within_budget(got, want, np.abs(want - stored), u)


CLIPS = {
    # ReLU6 after a conv (torchvision MobileNetV2): its Relu fuses into the conv.
    "relu6-after-conv": (identity_conv, 0.0, 6.0, 2048.0),
    "relu6-after-pool": (identity_pool, 0.0, 6.0, 2048.0),
    "hardtanh": (identity_pool, -1.0, 1.5, 1024.0),
    "low-only": (identity_pool, -0.5, None, 1024.0),
    "high-only": (identity_pool, None, 0.5, 1024.0),
}


@pytest.mark.parametrize("case", CLIPS)
def test_clip_is_exact_in_fp16(case):
    before, low, high, limit = CLIPS[case]
    constants = {k: np.array(v, np.float32) for k, v in (("lo", low), ("hi", high)) if v is not None}
    op = helper.make_node("Clip", ["u", "lo" if low is not None else "", *(["hi"] if high is not None else [])], ["y"],
                          name="clip")

    def exact(u, c):
        return np.clip(u, c(low) if low is not None else -np.inf, c(high) if high is not None else np.inf)

    check_elementwise(before, op, constants, limit, "clip-as-depthwise", exact)


@pytest.mark.parametrize("alpha", [0.1, 0.01, 0.2, 0.9])
def test_leaky_relu_is_exact_in_fp16(alpha):
    op = helper.make_node("LeakyRelu", ["u"], ["y"], alpha=alpha, name="leaky")
    check_elementwise(identity_conv, op, {}, 16384.0, "leaky-relu-as-depthwise",
                      lambda u, c: np.where(u >= 0, u, c(alpha) * u))


PRELU_SLOPES = {
    "in-0-1": np.array([0.25, 0.1, 0.0, 1.0]),
    # Trained slopes: most in (0, 0.5), a few above 1 or negative.
    "mixed": np.array([0.21, 1.37, -0.42, 0.05]),
    "steep": np.array([2.7, -2.0, 1.01, 0.3]),
}


@pytest.mark.parametrize("case", PRELU_SLOPES)
@pytest.mark.parametrize("slope_shape", [(CHANNELS, 1, 1), (1, CHANNELS, 1, 1)])
def test_prelu_is_exact_in_fp16(case, slope_shape):
    slopes = PRELU_SLOPES[case]
    op = helper.make_node("PRelu", ["u", "slope"], ["y"], name="prelu")
    check_elementwise(identity_conv, op, {"slope": slopes.reshape(slope_shape)}, 16384.0, "prelu-as-depthwise",
                      lambda u, c: np.where(u >= 0, u, c(slopes).reshape(1, -1, 1, 1) * u))


def test_prelu_scalar_slope_is_exact_in_fp16():
    op = helper.make_node("PRelu", ["u", "slope"], ["y"], name="prelu")
    check_elementwise(identity_conv, op, {"slope": np.array([0.3])}, 16384.0, "prelu-as-depthwise",
                      lambda u, c: np.where(u >= 0, u, c(0.3) * u))


@pytest.mark.parametrize(("alpha", "beta"), [(0.2, 0.5), (1 / 6, 0.5)])
def test_hard_sigmoid_is_exact_in_fp16(alpha, beta):
    op = helper.make_node("HardSigmoid", ["u"], ["y"], alpha=alpha, beta=beta, name="hsig")
    check_elementwise(identity_conv, op, {}, 1024.0, "hard-sigmoid-as-depthwise",
                      lambda u, c: np.clip(c(alpha) * u + c(beta), 0, 1))


AFFINE = {
    "mul": ("Mul", False, lambda u, k: u * k),
    "add": ("Add", False, lambda u, k: u + k),
    "sub": ("Sub", False, lambda u, k: u - k),
    "sub-from-constant": ("Sub", True, lambda u, k: k - u),
    "div": ("Div", False, lambda u, k: u / k),
}


@pytest.mark.parametrize("case", AFFINE)
def test_affine_is_exact_in_fp16(case):
    op_type, constant_first, compute = AFFINE[case]
    k = np.array([0.485, -1.7, 3.0, 0.229])  # ImageNet-style means and scales, and exact ones
    op = helper.make_node(op_type, ["k", "u"] if constant_first else ["u", "k"], ["y"], name="affine")
    check_elementwise(identity_pool, op, {"k": k.reshape(1, CHANNELS, 1, 1)}, 1024.0, "affine-as-depthwise",
                      lambda u, c: compute(u, per_channel(c(k))))


def test_batch_norm_is_exact_in_fp16():
    stats = {"scale": np.array([0.8, 1.2, -0.3, 1.0]), "shift": np.array([0.1, -0.4, 0.0, 2.5]),
             "mean": np.array([-0.2, 0.3, 1.5, 0.0]), "var": np.array([0.6, 1.4, 0.9, 1.0])}
    op = helper.make_node("BatchNormalization", ["u", "scale", "shift", "mean", "var"], ["y"], epsilon=1e-5, name="bn")

    def exact(u, c):
        scale, shift, mean, var = (per_channel(c(stats[k])) for k in ("scale", "shift", "mean", "var"))
        return (u - mean) / np.sqrt(var + np.float32(1e-5)) * scale + shift

    check_elementwise(identity_pool, op, stats, 1024.0, "batch-norm-as-depthwise", exact)


def test_pad_is_exact_in_fp16():
    x = fp16_input(16384.0)
    nodes, constants = identity_conv()
    op = helper.make_node("Pad", ["u", "pads"], ["y"], name="zeropad")
    constants["pads"] = np.array([0, 0, 1, 0, 0, 0, 0, 1], np.int64)
    got = run_on_mlip(model(nodes, op, constants, x.shape), x, "pad-as-depthwise")
    want = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (1, 0), (0, 1)])
    assert_within_budget(got, want, 0.0, want)


def conv_exact(x: np.ndarray, w: np.ndarray, group: int, strides: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 2-D conv of `x` (no padding) in float64 with the float32 weights, with those rounded
    to fp16, and the sum of its terms' magnitudes (what fp32 accumulation errs by a fraction of)."""
    def conv(inputs, weights):
        n, c, h, width = inputs.shape
        out, per_group, kh, kw = weights.shape
        rows, columns = (h - kh) // strides + 1, (width - kw) // strides + 1
        y = np.zeros((n, out, rows, columns))
        for o in range(out):
            first = (o // (out // group)) * per_group
            for i in range(per_group):
                for dy in range(kh):
                    for dx in range(kw):
                        y[:, o] += weights[o, i, dy, dx] * inputs[:, first + i, dy:dy + strides * rows:strides,
                                                                  dx:dx + strides * columns:strides]
        return y
    w32 = w.astype(np.float32).astype(np.float64)
    return conv(x, w32), conv(x, fp16(w)), conv(np.abs(x), np.abs(fp16(w)))


@pytest.mark.parametrize(("group", "strides"), [(2, 1), (4, 2)])
def test_grouped_conv_is_exact_in_fp16(group, strides):
    """grouped-conv-as-dense adds only zero terms: the layer's fp32 accumulation is its error."""
    x = fp16_input(64.0)
    w = 0.3 * np.random.default_rng(6).standard_normal((2 * CHANNELS, CHANNELS // group, 3, 3))
    op = helper.make_node("Conv", ["x", "w"], ["y"], group=group, strides=[strides, strides], name="grouped")
    got = run_on_mlip(model([], op, {"w": w}, x.shape, conv_after=False), x, "grouped-conv-as-dense")
    want, stored, magnitude = conv_exact(x.astype(np.float64), w, group, strides)
    terms = CHANNELS // group * 9
    assert_within_budget(got, want, np.abs(want - stored) + terms * 2.0**-24 * magnitude, want)


def test_conv1d_is_exact_in_fp16():
    """conv1d-as-conv2d only reshapes: the layer's fp32 accumulation is its error."""
    x = fp16_input(64.0).reshape(1, CHANNELS, -1)
    w = 0.3 * np.random.default_rng(8).standard_normal((CHANNELS, CHANNELS, 3))
    op = helper.make_node("Conv", ["x", "w"], ["y"], name="conv1d")
    got = run_on_mlip(model([], op, {"w": w}, x.shape, conv_after=False), x, "conv1d-as-conv2d")
    want, stored, magnitude = conv_exact(x.astype(np.float64)[:, :, None, :], w[:, :, None, :], 1, 1)
    budget = np.abs(want - stored) + CHANNELS * 3 * 2.0**-24 * magnitude
    assert_within_budget(got, want[:, :, 0], budget[:, :, 0], want[:, :, 0])
