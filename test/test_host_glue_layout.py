"""Host glue between MLIP calls in NHWC (convert-layout): each case is a host op, or a short
chain, between two MLIP convs. Partitioned, the host function keeps no layout transpose but
those of the model's outputs, and the bundle's C (its NHWC pools and transposed convs, axes
remapped, per-channel constants transposed) matches onnxruntime with MLIP simulated in fp32 and in fp16. All cases
are one model: gcc builds the bundle once."""

import re
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from mrvl.numerics import FP16_LAYERS
from mrvl.opt import main as mrvl_opt
from mrvl.run import run_bundle
from numeric_asserts import assert_close
from test_c_backend import GCC, locked

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

C = 8
PIPELINE = "mrvl-pipeline,mrvl-host-pipeline"


class Glue:
    """x -> conv -> (a case's host ops) -> conv -> output, one branch per case."""

    def __init__(self) -> None:
        self.rng = np.random.default_rng(29)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.outputs: list[str] = []

    def const(self, name: str, array) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], name: str, outputs: int = 1, **attrs) -> list[str]:
        names = [f"{name}_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, names, name=name, **attrs))
        return names

    def conv(self, x: str, name: str, cin: int = C, cout: int = C) -> str:
        w = self.const(f"{name}.w", self.rng.normal(0, 0.5, (cout, cin, 1, 1)).astype(np.float32))
        b = self.const(f"{name}.b", self.rng.normal(0, 0.1, cout).astype(np.float32))
        return self.op("Conv", [x, w, b], name)[0]

    def case(self, name: str, glue, cout: int = C) -> None:
        """glue(self, a) -> (the tensor the second conv reads, its channels)."""
        a = self.conv("x", f"{name}_in")
        y, channels = glue(self, a)
        self.outputs.append(self.conv(y, f"{name}_out", channels, cout))

    def model(self) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "glue", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, 10, 10])],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in self.outputs], self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _silu(g: Glue, a: str):
    return g.op("Mul", [a, g.op("Sigmoid", [a], "silu_sigmoid")[0]], "silu")[0], C


def _hardswish_written_out(g: Glue, a: str):
    """x * HardSigmoid(x), as exporters before opset 14 write HardSwish: one host kernel."""
    gate = g.op("HardSigmoid", [a], "hsig_gate", alpha=1 / 6, beta=0.5)[0]
    return g.op("Mul", [a, gate], "hsig_mul")[0], C


def _hardswish_affine(g: Glue, a: str):
    """(hardswish(x) - a) / b with per-channel constants, of rank 3 and 4."""
    shift = g.const("affine.shift", np.linspace(-1, 1, C, dtype=np.float32).reshape(C, 1, 1))
    scale = g.const("affine.scale", np.linspace(0.5, 1.5, C, dtype=np.float32).reshape(1, C, 1, 1))
    y = g.op("Div", [g.op("Sub", [g.op("HardSwish", [a], "hswish")[0], shift], "affine_sub")[0], scale], "affine_div")
    return y[0], C


def _pools(g: Glue, a: str):
    """Pools between host ops (Tanh): alone, they are not worth an MLIP call."""
    a = g.op("Tanh", [a], "pools_tanh")[0]
    m1 = g.op("MaxPool", [a], "max_k3s2", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])[0]
    m2 = g.op("MaxPool", [a], "max_ceil", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)[0]
    a1 = g.op("AveragePool", [m1], "avg_excl", kernel_shape=[3, 3], pads=[1, 1, 1, 1])[0]
    a2 = g.op("AveragePool", [m2], "avg_incl", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)[0]
    return g.op("Tanh", [g.op("Concat", [a1, a2], "pools_concat", axis=1)[0]], "pools_tanh_after")[0], 2 * C


def _sppf(g: Glue, a: str):
    """YOLO's SPPF: three chained 5x5 stride-1 max pools joined by a Concat."""
    pools = [g.op("Mul", [a, g.op("Sigmoid", [a], "sppf_sigmoid")[0]], "sppf_silu")[0]]
    for i in range(3):
        pools.append(g.op("MaxPool", [pools[-1]], f"sppf_pool{i}", kernel_shape=[5, 5], pads=[2, 2, 2, 2])[0])
    return g.op("Concat", pools, "sppf_concat", axis=1)[0], 4 * C


def _squeeze_excite(g: Glue, a: str):
    """Global pools of a host op's result (a Tanh): a gate that scales the feature map."""
    a = g.op("Tanh", [a], "se_tanh")[0]
    pooled = g.op("GlobalAveragePool", [a], "se_pool")[0]
    gate = g.op("HardSigmoid", [pooled], "se_gate")[0]
    peak = g.op("GlobalMaxPool", [a], "se_peak")[0]
    return g.op("Add", [g.op("Mul", [a, gate], "se_scale")[0], peak], "se_add")[0], C


def _split_resize(g: Glue, a: str):
    """C2f's Split, an FPN's nearest 2x Resize, a Slice of channels, a Pad and a Softmax."""
    left, right = g.op("Split", [a, g.const("halves", np.array([C // 2, C // 2]))], "split", outputs=2, axis=1)
    up = g.op("Resize", [left, "", g.const("up.scales", np.array([1, 1, 2, 2], np.float32))], "up",
              mode="nearest")[0]
    down = g.op("MaxPool", [up], "down", kernel_shape=[2, 2], strides=[2, 2])[0]
    tail = g.op("Slice", [right, g.const("s.starts", np.array([1])), g.const("s.ends", np.array([C // 2])),
                          g.const("s.axes", np.array([1]))], "slice")[0]
    soft = g.op("Softmax", [tail], "softmax", axis=1)[0]
    padded = g.op("Pad", [soft, g.const("p.pads", np.array([0, 0, 1, 1, 0, 0, 1, 1])), g.const("p.value", np.float32(0.5))],
                  "pad")[0]
    cropped = g.op("Slice", [padded, g.const("c.starts", np.array([1, 1])), g.const("c.ends", np.array([11, 11])),
                             g.const("c.axes", np.array([2, 3]))], "crop")[0]
    return g.op("Concat", [down, cropped], "split_concat", axis=1)[0], C - 1


def _spatial_attention(g: Glue, a: str):
    """CBAM's spatial gate: a mean and a max over the channels (kept as a dim of 1) scale the map."""
    t = g.op("Tanh", [a], "sa_tanh")[0]
    mean = g.op("ReduceMean", [t], "sa_mean", axes=[1])[0]
    peak = g.op("ReduceMax", [t], "sa_max", axes=[1])[0]
    gate = g.op("Sigmoid", [g.op("Add", [mean, peak], "sa_add")[0]], "sa_gate")[0]
    return g.op("Mul", [t, gate], "sa_scale")[0], C


def _c2f(g: Glue, a: str):
    """YOLOv8's C2f: a SiLU split into halves, a bottleneck (an MLIP conv, a SiLU and the
    shortcut Add) on the second, and the Concat of both halves and the bottleneck's result."""
    x = g.op("Mul", [a, g.op("Sigmoid", [a], "c2f_sigmoid")[0]], "c2f_silu")[0]
    left, right = g.op("Split", [x, g.const("c2f.halves", np.array([C // 2, C // 2]))], "c2f_split", outputs=2, axis=1)
    inner = g.conv(right, "c2f_m", C // 2, C // 2)
    m = g.op("Add", [right, g.op("Mul", [inner, g.op("Sigmoid", [inner], "c2f_m_sigmoid")[0]], "c2f_m_silu")[0]],
             "c2f_add")[0]
    return g.op("Concat", [left, right, m], "c2f_concat", axis=1)[0], C + C // 2


def _fpn_concat(g: Glue, a: str):
    """A DB head's concat of upsampled pyramid levels beside the finest level: each nearest
    Resize writes into the Concat's channels."""
    a = g.op("Tanh", [a], "fpn_tanh")[0]
    levels = [a]
    for factor in (2, 5):
        pooled = g.op("MaxPool", [a], f"fpn_pool{factor}", kernel_shape=[factor, factor], strides=[factor, factor])[0]
        levels.append(g.op("Resize", [pooled, "", g.const(f"fpn.scales{factor}", np.array([1, 1, factor, factor], np.float32))],
                           f"fpn_up{factor}", mode="nearest")[0])
    return g.op("Concat", levels[::-1], "fpn_concat", axis=1)[0], 3 * C


def _detect_head(g: Glue, a: str):
    """A YOLO Detect head's flattening: H and W merged, the channels split into box bins and
    classes, a Softmax over the bins (between the model's Transposes), a Sigmoid, the Concat,
    and the map restored for the next conv."""
    flat = g.op("Reshape", [a, g.const("head.flat", np.array([1, C, 100]))], "head_flat")[0]
    box, cls = g.op("Split", [flat, g.const("head.split", np.array([C // 2, C // 2]))], "head_split", outputs=2, axis=1)
    bins = g.op("Reshape", [box, g.const("head.bins", np.array([1, 2, C // 4, 100]))], "head_bins")[0]
    swapped = g.op("Transpose", [bins], "head_swap", perm=[0, 2, 1, 3])[0]
    soft = g.op("Softmax", [swapped], "head_softmax", axis=1)[0]
    back = g.op("Transpose", [soft], "head_unswap", perm=[0, 2, 1, 3])[0]
    box = g.op("Reshape", [back, g.const("head.box", np.array([1, C // 2, 100]))], "head_box")[0]
    joined = g.op("Concat", [box, g.op("Sigmoid", [cls], "head_sigmoid")[0]], "head_concat", axis=1)[0]
    return g.op("Reshape", [joined, g.const("head.map", np.array([1, C, 10, 10]))], "head_map")[0], C


def _db_head(g: Glue, a: str):
    """PP-OCR's DB head: a 2x2 stride-2 ConvTranspose, BatchNormalization and Relu, then one to a
    single channel and a Sigmoid: channels-last kernels, the rest folded into them."""
    w1 = g.const("db.w1", g.rng.normal(0, 0.3, (C, C, 2, 2)).astype(np.float32))
    stats = [g.const(f"db.bn{i}", g.rng.uniform(0.5, 1.5, C).astype(np.float32)) for i in range(4)]
    up = g.op("ConvTranspose", [a, w1], "db_up1", strides=[2, 2])[0]
    r = g.op("Relu", [g.op("BatchNormalization", [up, *stats], "db_bn")[0]], "db_relu")[0]
    w2 = g.const("db.w2", g.rng.normal(0, 0.3, (C, 1, 2, 2)).astype(np.float32))
    b2 = g.const("db.b2", np.array([0.1], np.float32))
    return g.op("Sigmoid", [g.op("ConvTranspose", [r, w2, b2], "db_up2", strides=[2, 2])[0]], "db_sigmoid")[0], 1


def _conv_transpose_grouped(g: Glue, a: str):
    """A grouped, padded ConvTranspose with output padding after a Tanh, and a HardSwish after it."""
    t = g.op("Tanh", [a], "ctg_tanh")[0]
    w = g.const("ctg.w", g.rng.normal(0, 0.3, (C, 3, 3, 3)).astype(np.float32))
    b = g.const("ctg.b", g.rng.normal(0, 0.1, 2 * 3).astype(np.float32))
    up = g.op("ConvTranspose", [t, w, b], "ctg_up", group=2, strides=[2, 2], pads=[1, 1, 1, 1],
              output_padding=[1, 1])[0]
    return g.op("HardSwish", [up], "ctg_hardswish")[0], 6


CASES = {"silu": _silu, "detect_head": _detect_head, "c2f": _c2f, "fpn_concat": _fpn_concat,
         "hardswish_written_out": _hardswish_written_out, "hardswish_affine": _hardswish_affine, "pools": _pools,
         "sppf": _sppf, "squeeze_excite": _squeeze_excite, "split_resize": _split_resize,
         "spatial_attention": _spatial_attention, "db_head": _db_head, "conv_transpose_grouped": _conv_transpose_grouped}


@pytest.fixture(scope="module")
def glue(session_dir: Path) -> tuple[Path, Path, str]:
    """The model, its partitioned bundle and the bundle's IR."""
    g = Glue()
    for name, build in CASES.items():
        g.case(name, build)
    root = session_dir / "host_glue_layout"
    root.mkdir(exist_ok=True)
    model, bundle, ir = root / "glue.onnx", root / "bundle", root / "glue.mlir"
    with locked(bundle):
        if not bundle.exists():
            onnx.save_model(g.model(), model)
            assert mrvl_opt([str(model), "-p", PIPELINE, "-o", str(ir)]) == 0
            assert mrvl_opt([str(model), "-p", PIPELINE, "-t", "c", "-o", str(bundle)]) == 0
    return model, bundle, ir.read_text()


def test_only_the_outputs_are_transposed(glue) -> None:
    _, _, ir = glue
    host = ir[ir.index("func.func"):ir.index("mrvl.subgraph")]
    transposes = re.findall(r"^ *(%\S+) = cpu\.transpose", host, re.M)
    returned = re.search(r"func\.return (.*) :", host).group(1).split(", ")  # type: ignore[union-attr]
    assert transposes and set(transposes) <= set(returned)
    assert "channels_last" in host  # the pools run in NHWC


def test_conv_transposes_run_channels_last(glue) -> None:
    """Each ConvTranspose is one channels-last kernel, the DB head's BatchNormalization, Relu
    and Sigmoid and the HardSwish folded in (each kernel takes the last folded op's name)."""
    _, _, ir = glue
    host = ir[ir.index("func.func"):ir.index("mrvl.subgraph")]
    kernels = dict(re.findall(r"^ *%(\S+) = cpu\.conv_transpose (.*)$", host, re.M))
    assert sorted(kernels) == ["ctg_hardswish", "db_relu", "db_sigmoid"]
    assert all("channels_last" in k for k in kernels.values())


def test_c2f_concat_is_written_in_place(glue) -> None:
    """The SiLU writes into the Concat's first channels and the bottleneck's Add into its
    last; the Split copies only the half the MLIP conv reads."""
    _, _, ir = glue
    concat = re.search(r"^ *%c2f_concat\S* = cpu\.concat .*$", ir, re.M).group(0)  # type: ignore[union-attr]
    assert "in_place = array<i64: 0, 1, 2>" in concat
    split = re.search(r"^ *%c2f_split\S*, %\S+ = cpu\.split .*$", ir, re.M).group(0)  # type: ignore[union-attr]
    assert "in_place = array<i64: 0>" in split and "in_strides" in split


def test_fpn_resizes_write_into_the_concat(glue) -> None:
    _, _, ir = glue
    concat = re.search(r"^ *%fpn_concat\S* = cpu\.concat .*$", ir, re.M).group(0)  # type: ignore[union-attr]
    assert "in_place = array<i64: 0, 1>" in concat
    assert len(re.findall(r"= cpu\.resize nearest %fpn_pool\S* \{[^}]*out_strides = array<i64: 2400, 240, 24, 1>", ir)) == 2


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_matches_onnxruntime(glue, precision: str) -> None:
    model, bundle, _ = glue
    x = np.random.default_rng(0).normal(0, 1, (1, C, 10, 10)).astype(np.float32)
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, {"x": x})))
    with locked(bundle):
        got = run_bundle(bundle, {"x": x}, precision=precision, simulator="reference")
    for name, expected in want.items():
        assert_close(got[name], expected, FP16_LAYERS if precision == "fp16" else None, name)


def test_per_pixel_subgraph_takes_its_input_with_h_and_w_swapped(session_dir: Path) -> None:
    """An NWHC model input (W before H) read by 1x1 convs only: the subgraph takes it as it
    is, with its tensors' H and W swapped, and the host transposes only the output."""
    rng = np.random.default_rng(30)
    w1, w2 = (numpy_helper.from_array(rng.normal(0, 0.5, shape).astype(np.float32), name)
              for name, shape in (("w1", (6, 3, 1, 1)), ("w2", (4, 6, 1, 1))))
    nodes = [helper.make_node("Transpose", ["x"], ["t"], name="to_nchw", perm=[0, 3, 2, 1]),
             helper.make_node("Conv", ["t", "w1"], ["c"], name="conv1"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Conv", ["r", "w2"], ["y"], name="conv2")]
    graph = helper.make_graph(nodes, "nwhc", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 7, 5, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 7])], [w1, w2])
    root = session_dir / "per_pixel_swapped"
    root.mkdir(exist_ok=True)
    model, bundle, ir = root / "nwhc.onnx", root / "bundle", root / "nwhc.mlir"
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), model)
    assert mrvl_opt([str(model), "-p", PIPELINE, "-o", str(ir)]) == 0
    host = ir.read_text()
    assert "mrvl.layout_transform" not in host and "(tensor<1x7x5x3xf32>) -> tensor<1x7x5x4xf32>" in host
    assert len(re.findall(r"= cpu\.transpose", host)) == 1
    assert mrvl_opt([str(model), "-p", PIPELINE, "-t", "c", "-o", str(bundle)]) == 0
    x = rng.normal(0, 1, (1, 7, 5, 3)).astype(np.float32)
    want = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    for precision in ("fp32", "fp16"):
        got = run_bundle(bundle, {"x": x}, precision=precision, simulator="reference")
        assert_close(got["y"], want, FP16_LAYERS if precision == "fp16" else None, f"y ({precision})")
