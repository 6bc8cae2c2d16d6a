"""The MLIP reference simulator on small hand-written nodes/consts documents.

Each layer kind of docs/json-format.md is checked against a plain numpy computation
written here (loops over kernel taps or output cells: slow, obvious, independent of the
simulator's window views and of onnx.reference); malformed documents must fail with a
`CompileError` naming the node and the field; `run_subgraph` is checked with fake
`mrvl-tmlc`/`mrvl-mlsim` scripts put on PATH.
"""

import base64
import copy
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from mrvl.backend.mlip_simulator import load, run_subgraph, simulate
from numeric_asserts import assert_close
from mrvl_dialect.errors import CompileError
from mrvl.target.options import TargetOptions

REPO = Path(__file__).resolve().parents[1]
_rng = np.random.default_rng(11)


def rand(*shape: int) -> np.ndarray:
    return _rng.standard_normal(shape).astype(np.float32)


def encode(array: np.ndarray) -> dict:
    a = np.asarray(array, np.float32)
    return {
        "shape": list(a.shape), "dtype": "float32", "min": repr(float(a.min())), "max": repr(float(a.max())),
        "data_base64": base64.b64encode(a.astype("<f4").tobytes()).decode(),
    }


def _strings(value) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


class Doc:
    """A nodes/consts pair laid out as TVM wrote them (its names, ids and edges)."""

    def __init__(self, *input_shapes: tuple[int, ...]):
        self.nodes: list[dict] = [
            {"op": "input", "name": f"mrvl_0_i{k}",
             "attrs": {"shape": [list(s)], "dtype": ["float32"], "layer_name": ["input"],
                       "data_layout": ["NC" if len(s) == 2 else "NCHW"]},
             "inputs": [], "input_id": [str(k)]}
            for k, s in enumerate(input_shapes)
        ]
        self.consts: dict[str, dict] = {}
        self.count = 0

    def layer(self, kind: str, inputs: list[int], shape, consts: dict | None = None, **attrs) -> int:
        """Append a layer; keyword attributes are written as lists of strings."""
        name = f"tvmgen_mrvl_main_{self.count}"
        self.count += 1
        entry = {"num_inputs": str(len(inputs) + len(consts or {})), "num_outputs": "1", "layer_name": [kind]}
        entry |= {k: _strings(v) for k, v in attrs.items()}
        entry |= {"shape": [list(shape)], "dtype": ["float32"], "mrvl_nodes_idx": [self.count]}
        entry |= {f"{role}_const": {} for role in ("kernel", "bias", "beta", "gamma", "var", "mean")}
        for m, (role, array) in enumerate((consts or {}).items()):
            const = f"{name}_const_{m}"
            entry[f"{role}_const_name"] = [const]
            self.consts[const] = encode(array)
            # The layer's copy of the entry (ModifyConstNames), without the data.
            mirror = {"shape": self.consts[const]["shape"], "dtype": "float32"}
            if role == "input":
                mirror["shape"] = [int(d) for d in entry.get("input_const_shape", mirror["shape"])]
            if role in ("kernel", "bias", "input"):
                mirror |= {"min": self.consts[const]["min"], "max": self.consts[const]["max"]}
            entry[f"{role}_const"] = mirror | {"name": const}
        self.nodes.append({"op": "tvm_op", "name": name, "attrs": entry, "inputs": [[i, 0, 0] for i in inputs]})
        return len(self.nodes) - 1

    def document(self, heads: list[int] | None = None) -> dict:
        heads = heads if heads is not None else [len(self.nodes) - 1]
        inputs = sum(n["op"] == "input" for n in self.nodes)
        return {
            "symbol": "tvmgen_mrvl_main_0", "nodes": self.nodes, "arg_nodes": list(range(inputs)),
            "heads": [[h, 0, 0] for h in heads], "batch_size": str(self.nodes[0]["attrs"]["shape"][0][0]),
            "num_subgraph_inputs": str(inputs), "num_subgraph_outputs": str(len(heads)),
        }

    def run(self, *inputs: np.ndarray, heads: list[int] | None = None, precision: str = "fp32") -> list[np.ndarray]:
        return simulate(self.document(heads), self.consts, list(inputs), precision)

    def write(self, folder: Path, heads: list[int] | None = None) -> tuple[Path, Path]:
        nodes, consts = folder / "sg-nodes.json", folder / "sg-consts.json"
        nodes.write_text(json.dumps(self.document(heads), indent=2))
        consts.write_text(json.dumps(self.consts, indent=2))
        return nodes, consts


# -- plain numpy references ------------------------------------------------------------------


def conv_ref(x, w, strides=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """NHWC x, OHWI w; one matmul per kernel tap and group."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    top, left, bottom, right = pads
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    o, kh, kw, ci = w.shape
    oh = (xp.shape[1] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[2] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    y = np.zeros((x.shape[0], oh, ow, o))
    per = o // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                r, c = i * dilation[0], j * dilation[1]
                patch = xp[:, r: r + strides[0] * (oh - 1) + 1: strides[0],
                           c: c + strides[1] * (ow - 1) + 1: strides[1], g * ci: (g + 1) * ci]
                y[..., g * per: (g + 1) * per] += patch @ w[g * per: (g + 1) * per, i, j, :].T
    return y


def pool_ref(x, kernel, strides, pads, kind, include_pad=False):
    """NHWC pooling, one output cell at a time, over the real input cells of each window."""
    n, h, w, c = x.shape
    top, left, bottom, right = pads
    oh = (h + top + bottom - kernel[0]) // strides[0] + 1
    ow = (w + left + right - kernel[1]) // strides[1] + 1
    y = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * strides[0] - top, j * strides[1] - left
            rows = slice(max(r0, 0), min(r0 + kernel[0], h))
            cols = slice(max(c0, 0), min(c0 + kernel[1], w))
            window = x[:, rows, cols, :].astype(np.float64)
            if kind == "max":
                y[:, i, j] = window.max(axis=(1, 2))
            else:
                rows_in_pad = min(r0 + kernel[0], h + bottom) - max(r0, -top)
                area = rows_in_pad * (min(c0 + kernel[1], w + right) - max(c0, -left))
                y[:, i, j] = window.sum(axis=(1, 2)) / (area if include_pad else window.shape[1] * window.shape[2])
    return y


def nhwc(x):
    return x.transpose(0, 2, 3, 1)




# -- layers ----------------------------------------------------------------------------------


def test_layout_transform_is_nchw_to_nhwc():
    doc = Doc((2, 3, 4, 5))
    doc.layer("layout_transform", [0], (2, 4, 5, 3), src_layout="NCHW", dst_layout="NHWC",
              data_layout_shape=[2, 3, 4, 5], out_layout_shape=[2, 4, 5, 3])
    x = rand(2, 3, 4, 5)
    (y,) = doc.run(x)
    np.testing.assert_array_equal(y, nhwc(x))


CONV_CASES = {
    "plain": dict(x=(1, 5, 5, 3), w=(4, 3, 3, 3), strides=(1, 1), pads=(0, 0, 0, 0)),
    "stride2-asymmetric-pad": dict(x=(2, 7, 6, 2), w=(3, 3, 2, 2), strides=(2, 2), pads=(1, 0, 2, 1)),
    "pad-top-left-only": dict(x=(1, 5, 5, 2), w=(2, 3, 3, 2), strides=(1, 2), pads=(2, 1, 0, 0)),
    "dilation": dict(x=(1, 9, 8, 2), w=(3, 3, 3, 2), strides=(1, 1), pads=(1, 1, 1, 1), dilation=(2, 3)),
    "depthwise": dict(x=(1, 6, 6, 4), w=(4, 3, 3, 1), strides=(1, 1), pads=(1, 1, 1, 1), groups=4),
    "pointwise": dict(x=(1, 4, 4, 6), w=(5, 1, 1, 6), strides=(1, 1), pads=(0, 0, 0, 0)),
}


@pytest.mark.parametrize("case", CONV_CASES, ids=list(CONV_CASES))
def test_conv2d(case):
    c = dict(CONV_CASES[case])
    x, w = rand(*c.pop("x")), rand(*c.pop("w"))
    want = conv_ref(x, w, **c)
    doc = Doc(x.shape)
    doc.layer("Conv2D", [0], want.shape, {"kernel": w}, strides=c["strides"], padding=c["pads"],
              dilation=c.get("dilation", (1, 1)), groups=c.get("groups", 1), channels=w.shape[0],
              kernel_size=w.shape[1:3], data_layout="NHWC", kernel_layout="OHWI", out_layout="NHWC")
    (y,) = doc.run(nhwc(x.transpose(0, 3, 1, 2)))
    assert_close(y, want)


def test_conv2d_bias_batch_norm_relu():
    x, w, b = rand(1, 6, 6, 3), rand(4, 3, 3, 3), rand(1, 1, 1, 4)
    gamma, beta, mean = rand(1, 4), rand(1, 4), rand(1, 4)
    var = _rng.uniform(0.5, 2, (1, 4)).astype(np.float32)
    eps = 1e-3
    doc = Doc(x.shape)
    consts = {"kernel": w, "bias": b, "gamma": gamma, "beta": beta, "mean": mean, "var": var}
    doc.layer("Conv2D", [0], (1, 6, 6, 4), consts,
              strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], groups=1, axis=3, epsilon=eps, center=1,
              scale=1, activation_type="relu", bias_layout="---O", gamma_layout="-O")
    (y,) = doc.run(x)
    want = (conv_ref(x, w, pads=(1, 1, 1, 1)) + b - mean) / np.sqrt(var + eps) * gamma + beta
    assert_close(y, np.maximum(want, 0))
    assert (y == 0).any() and (y > 0).any()


def test_conv2d_batch_norm_without_scale_and_center():
    x, w = rand(1, 4, 4, 2), rand(2, 1, 1, 2)
    mean, var = rand(1, 2), np.full((1, 2), 4.0, np.float32)
    doc = Doc(x.shape)
    consts = {"kernel": w, "gamma": rand(1, 2), "beta": rand(1, 2), "mean": mean, "var": var}
    doc.layer("Conv2D", [0], (1, 4, 4, 2), consts,
              strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, epsilon=0, center=0, scale=0)
    (y,) = doc.run(x)
    assert_close(y, (conv_ref(x, w) - mean) / 2)


def test_conv2d_full_tensor_bias():
    """TVM's sum_const_batch2: a [1, H, W, C] "bias" broadcast over the batch."""
    x, w, b = rand(2, 4, 4, 3), rand(2, 3, 3, 3), rand(1, 4, 4, 2)
    doc = Doc(x.shape)
    doc.layer("Conv2D", [0], (2, 4, 4, 2), {"kernel": w, "bias": b}, strides=[1, 1], padding=[1, 1, 1, 1],
              dilation=[1, 1], groups=1)
    (y,) = doc.run(x)
    assert_close(y, conv_ref(x, w, pads=(1, 1, 1, 1)) + b)


def test_fc_bias_relu():
    x, w, b = rand(3, 8), rand(5, 8), rand(1, 5)
    doc = Doc(x.shape)
    doc.layer("FC", [0], (3, 5), {"kernel": w, "bias": b}, units=5, activation_type="relu", data_layout="NC",
              out_layout="NC", kernel_layout="OI", bias_layout="-O")
    (y,) = doc.run(x)
    assert_close(y, np.maximum(x @ w.T + b, 0))


@pytest.mark.parametrize("transform", [True, False], ids=["weights_need_transform", "nhwc-order"])
def test_fc_flattens_nhwc_input(transform):
    """weights_need_transform: the weights expect the NCHW flatten of the NHWC input."""
    x, w = rand(2, 3, 2, 4), rand(6, 24)
    doc = Doc(x.shape)
    attrs = {"weights_need_transform": "yes"} if transform else {}
    doc.layer("FC", [0], (2, 6), {"kernel": w}, units="", data_layout="NHWC", **attrs)
    (y,) = doc.run(x)
    flat = x.transpose(0, 3, 1, 2).reshape(2, -1) if transform else x.reshape(2, -1)
    assert_close(y, flat @ w.T)


POOL_CASES = {
    "max": dict(kind="max", kernel=(2, 2), strides=(2, 2), pads=(0, 0, 0, 0)),
    "max-pad-asymmetric": dict(kind="max", kernel=(3, 3), strides=(2, 1), pads=(1, 0, 2, 1)),
    "avg-exclude-pad": dict(kind="avg", kernel=(3, 3), strides=(1, 1), pads=(1, 1, 1, 1)),
    "avg-include-pad": dict(kind="avg", kernel=(3, 2), strides=(2, 1), pads=(1, 0, 1, 1), include_pad=True),
}


@pytest.mark.parametrize("case", POOL_CASES, ids=list(POOL_CASES))
def test_pool(case):
    c = dict(POOL_CASES[case])
    x = rand(1, 7, 6, 3) - 3  # mostly negative: a zero from the padding would win a max
    want = pool_ref(x, **c)
    doc = Doc(x.shape)
    kind = "Maxpool2D" if c["kind"] == "max" else "Avgpool2D"
    extra = {} if kind == "Maxpool2D" else {"count_include_pad": int(c.get("include_pad", False))}
    doc.layer(kind, [0], want.shape, pool_size=c["kernel"], strides=c["strides"], padding=c["pads"],
              dilation=[1, 1], ceil_mode=0, layout="NHWC", out_layout="NHWC", kernel_layout_shape=c["kernel"], **extra)
    (y,) = doc.run(x)
    assert_close(y, want)


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("include_pad", [0, 1])
def test_pool_ceil_mode_matches_onnxruntime(op, include_pad):
    x = rand(1, 3, 7, 8)
    attrs = dict(kernel_shape=[3, 2], strides=[2, 3], pads=[1, 0, 0, 1], ceil_mode=1)
    if op == "AveragePool":
        attrs["count_include_pad"] = include_pad
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=8)
    (want,) = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})
    doc = Doc((1, 7, 8, 3))
    doc.layer("Maxpool2D" if op == "MaxPool" else "Avgpool2D", [0], nhwc(want).shape, pool_size=[3, 2],
              strides=[2, 3], padding=[1, 0, 0, 1], dilation=[1, 1], ceil_mode=1, count_include_pad=include_pad)
    (y,) = doc.run(nhwc(x))
    assert_close(y, nhwc(want))


def test_pool_dilation():
    x = rand(1, 9, 9, 2)
    doc = Doc(x.shape)
    doc.layer("Maxpool2D", [0], (1, 5, 5, 2), pool_size=[2, 2], strides=[1, 1], padding=[0, 0, 0, 0],
              dilation=[4, 4], ceil_mode=0)
    (y,) = doc.run(x)
    want = np.maximum.reduce([x[:, i: i + 5, j: j + 5] for i in (0, 4) for j in (0, 4)])
    assert_close(y, want)


@pytest.mark.parametrize("kind", ["GlobalAvgpool2D", "GlobalMaxpool2D"])
def test_global_pools(kind):
    x = rand(2, 5, 3, 4)
    doc = Doc(x.shape)
    doc.layer(kind, [0], (2, 1, 1, 4), layout="NHWC", out_layout="NHWC", kernel_layout_shape=[5, 3])
    (y,) = doc.run(x)
    assert_close(y, x.mean(axis=(1, 2), keepdims=True) if kind == "GlobalAvgpool2D" else x.max(axis=(1, 2), keepdims=True))


def test_sum2d_two_inputs_relu():
    a, b = rand(1, 3, 3, 4), rand(1, 3, 3, 4)
    doc = Doc(a.shape, b.shape)
    doc.layer("Sum2D", [0, 1], a.shape, activation_type="relu", data_layout_shape_0=a.shape,
              data_layout_shape_1=b.shape, out_layout_shape=a.shape)
    (y,) = doc.run(a, b)
    assert_close(y, np.maximum(a + b, 0))


def test_sum2d_constant_operand():
    a, c = rand(2, 3, 3, 4), rand(1, 3, 3, 4)
    doc = Doc(a.shape)
    doc.layer("Sum2D", [0], a.shape, {"input": c}, input_const_shape=c.shape)
    (y,) = doc.run(a)
    assert_close(y, a + c)


def test_sum2d_rank3_padded_to_4d():
    """[1, 6, 8] + a constant (8,): shapes written as [1, 6, 8, 1] and [1, 1, 8, 1] (§2.4)."""
    a, c = rand(1, 6, 8), rand(8)
    doc = Doc(a.shape)
    doc.layer("Sum2D", [0], a.shape, {"input": c.reshape(1, 8)}, input_const_shape=[1, 1, 8, 1],
              data_layout_shape=[1, 6, 8, 1], out_layout_shape=[1, 6, 8, 1], activation_type="relu")
    (y,) = doc.run(a)
    assert y.shape == (1, 6, 8)
    assert_close(y, np.maximum(a + c, 0))


def test_concat_on_channels():
    xs = [rand(1, 2, 3, c) for c in (1, 4, 2)]
    doc = Doc(*(x.shape for x in xs))
    shapes = {f"data_layout_shape_{i}": x.shape for i, x in enumerate(xs)}
    doc.layer("Concat", [0, 1, 2], (1, 2, 3, 7), axis=3, **shapes)
    (y,) = doc.run(*xs)
    np.testing.assert_array_equal(y, np.concatenate(xs, axis=3))


@pytest.mark.parametrize(("kind", "source", "target"), [
    ("reshape", (1, 1, 1, 8), (1, 8)),
    ("reshape", (2, 12), (2, 3, 2, 2)),
    ("nn.batch_flatten", (2, 3, 2, 2), (2, 12)),
    ("squeeze", (1, 1, 1, 8), (1, 8)),
    ("squeeze", (1, 5, 1, 1), (5,)),
])
def test_reshape_like_layers_are_row_major(kind, source, target):
    x = rand(*source)
    doc = Doc(source)
    doc.layer(kind, [0], target)
    (y,) = doc.run(x)
    np.testing.assert_array_equal(y, x.reshape(target))


def test_graph_with_two_inputs_and_two_heads():
    """Inputs by input_id, edges [id, 0, 0], one output per head, in order."""
    a, b = rand(1, 2, 3, 3), rand(1, 1, 3, 3)
    doc = Doc(a.shape, b.shape)
    ta = doc.layer("layout_transform", [0], (1, 3, 3, 2), src_layout="NCHW", dst_layout="NHWC")
    tb = doc.layer("layout_transform", [1], (1, 3, 3, 1), src_layout="NCHW", dst_layout="NHWC")
    cat = doc.layer("Concat", [tb, ta], (1, 3, 3, 3), axis=3)
    y_cat, y_b = doc.run(a, b, heads=[cat, tb])
    np.testing.assert_array_equal(y_cat, np.concatenate([nhwc(b), nhwc(a)], axis=3))
    np.testing.assert_array_equal(y_b, nhwc(b))


def test_fp16_rounds_inputs_weights_and_layer_outputs():
    near_one = np.float32(1 + 2**-12)  # not a float16: rounds to 1
    doc = Doc((1, 1))
    doc.layer("FC", [0], (1, 1), {"kernel": np.array([[near_one]])})
    doc.layer("FC", [1], (1, 1), {"kernel": np.array([[1 / 3]], np.float32)})
    x = np.array([[near_one]], np.float32)
    (fp32,) = doc.run(x)
    (fp16,) = doc.run(x, precision="fp16")
    assert fp32[0, 0] == np.float32(near_one * near_one * np.float32(1 / 3))
    assert fp16[0, 0] == np.float32(np.float16(np.float16(1 / 3)))
    assert fp16.dtype == np.float32


def test_fp16_outputs_are_float16_values():
    x, w = rand(1, 5, 5, 3), rand(4, 3, 3, 3)
    doc = Doc(x.shape)
    doc.layer("Conv2D", [0], (1, 5, 5, 4), {"kernel": w}, strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1],
              groups=1)
    (y,) = doc.run(x, precision="fp16")
    np.testing.assert_array_equal(y, y.astype(np.float16).astype(np.float32))
    want = conv_ref(x.astype(np.float16), w.astype(np.float16), pads=(1, 1, 1, 1))
    assert np.abs(y - want).max() <= 1e-3 * np.abs(want).max()


def test_load_reads_both_files(tmp_path):
    doc = Doc((1, 4))
    doc.layer("FC", [0], (1, 2), {"kernel": rand(2, 4)})
    nodes, consts = load(*doc.write(tmp_path))
    assert nodes == doc.document() and consts == doc.consts


# -- malformed documents -------------------------------------------------------------------


def base_doc() -> tuple[Doc, np.ndarray]:
    """input 1x2x4x4 -> layout_transform -> Conv2D (relu) -> Maxpool2D -> FC."""
    doc = Doc((1, 2, 4, 4))
    doc.layer("layout_transform", [0], (1, 4, 4, 2), src_layout="NCHW", dst_layout="NHWC",
              data_layout_shape=[1, 2, 4, 4], out_layout_shape=[1, 4, 4, 2])
    doc.layer("Conv2D", [1], (1, 4, 4, 3), {"kernel": rand(3, 3, 3, 2)}, strides=[1, 1], padding=[1, 1, 1, 1],
              dilation=[1, 1], groups=1, activation_type="relu", data_layout_shape=[1, 4, 4, 2])
    doc.layer("Maxpool2D", [2], (1, 2, 2, 3), pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0],
              dilation=[1, 1], ceil_mode=0)
    doc.layer("FC", [3], (1, 5), {"kernel": rand(5, 12), "bias": rand(1, 5)}, weights_need_transform="yes")
    return doc, rand(1, 2, 4, 4)


def test_base_doc_runs():
    doc, x = base_doc()
    (y,) = doc.run(x)
    def const(name: str) -> np.ndarray:
        entry = doc.consts[name]
        return np.frombuffer(base64.b64decode(entry["data_base64"]), "<f4").reshape(entry["shape"])

    conv = np.maximum(conv_ref(nhwc(x), const("tvmgen_mrvl_main_1_const_0"), pads=(1, 1, 1, 1)), 0)
    pooled = pool_ref(conv, (2, 2), (2, 2), (0, 0, 0, 0), "max")
    fc = pooled.transpose(0, 3, 1, 2).reshape(1, -1) @ const("tvmgen_mrvl_main_3_const_0").T
    assert_close(y, fc + const("tvmgen_mrvl_main_3_const_1"))


def _attrs(nodes, consts, id):
    return nodes["nodes"][id]["attrs"]


# (mutation of (nodes, consts), expected `where`, text expected in the message)
MALFORMED = {
    "missing-kernel": (lambda n, c: _attrs(n, c, 2).pop("kernel_const_name"),
                       "node 2 'tvmgen_mrvl_main_1'", "'kernel_const_name' is missing"),
    "unknown-const": (lambda n, c: c.pop("tvmgen_mrvl_main_1_const_0"),
                      "node 2 'tvmgen_mrvl_main_1'", "'kernel_const_name' names 'tvmgen_mrvl_main_1_const_0', which"),
    "bad-base64": (lambda n, c: c["tvmgen_mrvl_main_1_const_0"].update(data_base64="not base64!"),
                   "constant 'tvmgen_mrvl_main_1_const_0'", "'data_base64' is not valid base64"),
    "short-data": (lambda n, c: c["tvmgen_mrvl_main_1_const_0"].update(shape=[3, 3, 3, 3]),
                   "constant 'tvmgen_mrvl_main_1_const_0'", "'data_base64' holds 216 bytes; shape [3, 3, 3, 3]"),
    "const-dtype": (lambda n, c: c["tvmgen_mrvl_main_1_const_0"].update(dtype="float8"),
                    "constant 'tvmgen_mrvl_main_1_const_0'", "'dtype' must be one of float32, float16, got \"float8\""),
    "layer-kind": (lambda n, c: _attrs(n, c, 3).update(layer_name=["Upsample2D"]),
                   "node 3 'tvmgen_mrvl_main_2'", "'layer_name' 'Upsample2D' is not an MLIP layer kind"),
    "padding-count": (lambda n, c: _attrs(n, c, 2).update(padding=["1", "1", "1"]),
                      "node 2 'tvmgen_mrvl_main_1'", "'padding' must be 1 or 2 or 4 integers, got [\"1\", \"1\","),
    "strides-text": (lambda n, c: _attrs(n, c, 2).update(strides=["one", "1"]),
                     "node 2 'tvmgen_mrvl_main_1'", "'strides' must be 2 integers"),
    "missing-strides": (lambda n, c: _attrs(n, c, 3).pop("strides"),
                        "node 3 'tvmgen_mrvl_main_2'", "'strides' is missing"),
    "forward-edge": (lambda n, c: n["nodes"][2].update(inputs=[[3, 0, 0]]),
                     "node 2 'tvmgen_mrvl_main_1'", "'inputs' names node 3; a layer reads nodes before it: ids 0 to 1"),
    "output-index": (lambda n, c: n["nodes"][2].update(inputs=[[1, 1, 0]]),
                     "node 2 'tvmgen_mrvl_main_1'", "takes output 1 of node 1"),
    "edge-form": (lambda n, c: n["nodes"][2].update(inputs=[1]),
                  "node 2 'tvmgen_mrvl_main_1'", "'inputs' entries must be [id, 0, 0], got 1"),
    "head": (lambda n, c: n.update(heads=[[9, 0, 0]]), "heads", "'heads' names node 9; ids 0 to 4"),
    "no-heads": (lambda n, c: n.update(heads=[]), "heads", "must be a non-empty list"),
    "declared-shape": (lambda n, c: _attrs(n, c, 3).update(shape=[[1, 3, 3, 3]]),
                       "node 3 'tvmgen_mrvl_main_2'", "'shape' is [1, 3, 3, 3], but the tensor is [1, 2, 2, 3]"),
    "shape-form": (lambda n, c: _attrs(n, c, 3).update(shape=[1, 2, 2, 3]),
                   "node 3 'tvmgen_mrvl_main_2'", "'shape' must be one list of dims"),
    "data-layout-shape": (lambda n, c: _attrs(n, c, 2).update(data_layout_shape=["1", "2", "4", "4"]),
                          "node 2 'tvmgen_mrvl_main_1'",
                          "'data_layout_shape' is [1, 2, 4, 4], but the tensor is [1, 4, 4, 2]"),
    "activation": (lambda n, c: _attrs(n, c, 2).update(activation_type=["sigmoid"]),
                   "node 2 'tvmgen_mrvl_main_1'", "'activation_type' must be 'relu'"),
    "groups": (lambda n, c: _attrs(n, c, 2).update(groups=["2"]),
               "node 2 'tvmgen_mrvl_main_1'", "'groups' is 2: the OHWI kernel [3, 3, 3, 2] does not fit"),
    "kernel-layout": (lambda n, c: _attrs(n, c, 2).update(kernel_layout=["OIHW"]),
                      "node 2 'tvmgen_mrvl_main_1'", "'kernel_layout' must be OHWI, got 'OIHW'"),
    "fc-weights": (lambda n, c: [d.update(shape=[12, 5]) for d in (c["tvmgen_mrvl_main_3_const_0"],
                                                                   _attrs(n, c, 4)["kernel_const"])],
                   "node 4 'tvmgen_mrvl_main_3'", "'kernel_const_name' constant must be [out, 12], got [12, 5]"),
    "transform-flag": (lambda n, c: _attrs(n, c, 4).update(weights_need_transform=["maybe"]),
                       "node 4 'tvmgen_mrvl_main_3'", "'weights_need_transform' must be 'yes' or 'no'"),
    "bias-shape": (lambda n, c: [d.update(shape=[5, 1]) for d in (c["tvmgen_mrvl_main_3_const_1"],
                                                                  _attrs(n, c, 4)["bias_const"])],
                   "node 4 'tvmgen_mrvl_main_3'", "'bias_const_name' constant of shape [5, 1] does not broadcast"),
    "const-max": (lambda n, c: c["tvmgen_mrvl_main_1_const_0"].update(max="7.5"),
                  "constant 'tvmgen_mrvl_main_1_const_0'", "'max' is \"7.5\", but the data's max is "),
    "const-mirror": (lambda n, c: _attrs(n, c, 4)["kernel_const"].update(shape=[12, 5]),
                     "node 4 'tvmgen_mrvl_main_3'", "'kernel_const' says shape [12, 5], the consts document [5, 12]"),
    "const-mirror-name": (lambda n, c: _attrs(n, c, 4)["bias_const"].update(name="tvmgen_mrvl_main_3_const_0"),
                          "node 4 'tvmgen_mrvl_main_3'", "'bias_const' says name \"tvmgen_mrvl_main_3_const_0\", the "
                          "consts document \"tvmgen_mrvl_main_3_const_1\""),
    "op": (lambda n, c: n["nodes"][1].update(op="kernel"), "node 1 'tvmgen_mrvl_main_0'", "'op' must be"),
    "input-id": (lambda n, c: n["nodes"][0].update(input_id=["1"]), "nodes", "'input_id's must be 0 to 0, got [1]"),
    "attrs": (lambda n, c: n["nodes"][3].pop("attrs"), "node 3 'tvmgen_mrvl_main_2'", "'attrs' must be a JSON object"),
    "layout-transform": (lambda n, c: _attrs(n, c, 1).update(dst_layout=["NHWD"]),
                         "node 1 'tvmgen_mrvl_main_0'", "'dst_layout' 'NHWD' is not a permutation of src_layout"),
    "subgraph-inputs": (lambda n, c: n.update(num_subgraph_inputs="2"),
                        "num_subgraph_inputs", "says \"2\", but the nodes document has 1 input nodes"),
    "nodes": (lambda n, c: n.pop("nodes"), "nodes", "'nodes' must be a list"),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_malformed_document_names_node_and_field(case):
    mutate, where, text = MALFORMED[case]
    doc, x = base_doc()
    nodes, consts = copy.deepcopy(doc.document()), copy.deepcopy(doc.consts)
    mutate(nodes, consts)
    with pytest.raises(CompileError) as info:
        simulate(nodes, consts, [x])
    assert info.value.where == where
    assert text in info.value.message


def test_sum2d_constant_needs_its_shape():
    doc = Doc((1, 2, 2, 3))
    doc.layer("Sum2D", [0], (1, 2, 2, 3), {"input": rand(1, 1, 1, 3)})
    with pytest.raises(CompileError, match="'input_const_shape' is missing"):
        doc.run(rand(1, 2, 2, 3))


def test_sum2d_input_count():
    doc = Doc((1, 2, 2, 3))
    doc.layer("Sum2D", [0], (1, 2, 2, 3))
    with pytest.raises(CompileError, match=r"'inputs' must name 2 data input\(s\), got 1"):
        doc.run(rand(1, 2, 2, 3))


def test_batch_norm_needs_all_four_statistics():
    doc = Doc((1, 2, 2, 1))
    doc.layer("Conv2D", [0], (1, 2, 2, 1), {"kernel": rand(1, 1, 1, 1), "gamma": rand(1, 1)}, strides=[1, 1],
              padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, epsilon=1e-5)
    with pytest.raises(CompileError, match="'beta_const_name' is missing: batch norm needs gamma, beta, mean and var"):
        doc.run(rand(1, 2, 2, 1))


@pytest.mark.parametrize(("inputs", "where", "text"), [
    ([], "inputs", "the subgraph takes 1 input(s), got 0"),
    ([np.zeros((1, 4, 4, 2), np.float32)], "node 0 'mrvl_0_i0'",
     "input must have shape [1, 2, 4, 4], got [1, 4, 4, 2]"),
])
def test_wrong_inputs(inputs, where, text):
    doc, _ = base_doc()
    with pytest.raises(CompileError) as info:
        doc.run(*inputs)
    assert (info.value.where, info.value.message) == (where, text)


def test_unknown_precision():
    doc, x = base_doc()
    with pytest.raises(CompileError, match="precision: must be one of fp32, fp16, int8, got 'bf16'"):
        doc.run(x, precision="bf16")


@pytest.mark.parametrize(("content", "text"), [
    (None, "cannot read"),
    ("{\"nodes\": [", "not valid JSON: Expecting value at line 1 column 12"),
    ("[1, 2]", "must hold a JSON object, got list"),
])
def test_load_errors_name_the_file(tmp_path, content, text):
    path = tmp_path / "x-nodes.json"
    if content is not None:
        path.write_text(content)
    (tmp_path / "x-consts.json").write_text("{}")
    with pytest.raises(CompileError) as info:
        load(path, tmp_path / "x-consts.json")
    assert info.value.where == str(path) and text in info.value.message


# -- run_subgraph and Marvell's tools ---------------------------------------------------------

FAKE_TMLC = """#!{python}
# A stand-in for mrvl-tmlc: its "model binary" names the two JSON files.
import json, os, pathlib, sys
args = sys.argv[1:]
with open(os.environ["FAKE_TOOLS_LOG"], "a") as log:
    log.write(json.dumps(["mrvl-tmlc", os.getcwd(), *args]) + "\\n")
mode = os.environ.get("FAKE_TMLC_MODE", "")
if mode == "fail":
    sys.stderr.write("tmlc: unsupported layer Upsample2D\\n")
    sys.exit(2)
symbol = args[args.index("-mn") + 1]
if mode != "no-binary":
    folder = pathlib.Path("bin_" + symbol)
    folder.mkdir()
    model = {{"nodes": args[args.index("-f1") + 1], "consts": args[args.index("-f2") + 1]}}
    (folder / (symbol + ".bin")).write_text(json.dumps(model))
"""

FAKE_MLSIM = """#!{python}
# A stand-in for mrvl-mlsim: runs the numpy simulator on the raw float32 input file.
import json, math, os, pathlib, sys
sys.path.insert(0, {repo!r})
import numpy as np
from mrvl.backend.mlip_simulator import load, simulate
args = sys.argv[1:]
with open(os.environ["FAKE_TOOLS_LOG"], "a") as log:
    log.write(json.dumps(["mrvl-mlsim", os.getcwd(), *args]) + "\\n")
mode = os.environ.get("FAKE_MLSIM_MODE", "")
if mode == "fail":
    sys.stderr.write("mlsim: out of simulated DDR\\n")
    sys.exit(3)
model = json.loads(pathlib.Path(args[args.index("-m") + 1]).read_text())
nodes, consts = load(model["nodes"], model["consts"])
data = np.fromfile(args[args.index("-d") + 1], "<f4")
inputs, offset = [], 0
for node in nodes["nodes"]:
    if node["op"] == "input":
        shape = node["attrs"]["shape"][0]
        inputs.append(data[offset: offset + math.prod(shape)].reshape(shape))
        offset += math.prod(shape)
assert offset == data.size, "input.bin size"
prefix = args[args.index("-o") + 1]
for i, out in enumerate(simulate(nodes, consts, inputs, "fp16")):
    if mode == "no-output":
        break
    (out[..., :1] if mode == "short" else out).astype("<f4").tofile(f"{{prefix}}-{{i}}.bin")
"""


@pytest.fixture
def tools(tmp_path, monkeypatch) -> Path:
    """Fake mrvl-tmlc and mrvl-mlsim first on PATH; returns the log of their command lines."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("mrvl-tmlc", FAKE_TMLC), ("mrvl-mlsim", FAKE_MLSIM)):
        script = bin_dir / name
        script.write_text(text.format(python=sys.executable, repo=str(REPO)))
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "tools.log"
    log.write_text("")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_TOOLS_LOG", str(log))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def two_input_doc() -> tuple[Doc, list[int], list[np.ndarray]]:
    """Two inputs of different shapes and two heads, so input.bin's order and output files matter."""
    doc = Doc((1, 2, 3, 3), (1, 1, 3, 3))
    ta = doc.layer("layout_transform", [0], (1, 3, 3, 2), src_layout="NCHW", dst_layout="NHWC")
    tb = doc.layer("layout_transform", [1], (1, 3, 3, 1), src_layout="NCHW", dst_layout="NHWC")
    cat = doc.layer("Concat", [tb, ta], (1, 3, 3, 3), axis=3)
    conv = doc.layer("Conv2D", [cat], (1, 3, 3, 2), {"kernel": rand(2, 3, 3, 3)}, strides=[1, 1],
                     padding=[1, 1, 1, 1], dilation=[1, 1], groups=1)
    return doc, [conv, cat], [rand(1, 2, 3, 3), rand(1, 1, 3, 3)]


def test_runner_runs_mrvl_tools_when_on_path(tools, tmp_path):
    doc, heads, inputs = two_input_doc()
    nodes, consts = doc.write(tmp_path, heads)
    got = run_subgraph(nodes, consts, inputs, precision="fp16")
    want = doc.run(*inputs, heads=heads, precision="fp16")
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    tmlc, mlsim = _calls(tools)
    work = Path(tmlc[1])
    assert tmlc[2:] == ["-mn", "tvmgen_mrvl_main_0", "-f1", str(nodes.resolve()), "-f2", str(consts.resolve()),
                        "-arch=mlip", "-quantize=fp16", "-wb_pin_ocm=0", "-num_tiles=8", "-b", "1"]
    assert mlsim[1] == str(work / "mrvl_sw_sim_tvmgen_mrvl_main_0")
    assert mlsim[2:] == ["-m", str(work / "bin_tvmgen_mrvl_main_0" / "tvmgen_mrvl_main_0.bin"),
                         "-d", str(work / "input.bin"), "-o", str(work / "mrvl_sim_out")]
    assert work.parent == Path(tempfile.tempdir) and not work.exists()


def test_runner_compiles_for_the_target(tools, tmp_path):
    """mrvl-tmlc compiles for the subgraph's target options; the precision run is its -quantize."""
    doc, heads, inputs = two_input_doc()
    run_subgraph(*doc.write(tmp_path, heads), inputs, precision="fp16", use_mlsim=True,
                 target=TargetOptions(num_tiles=2, wb_pin_ocm=1, quantize="int8"))
    assert _calls(tools)[0][-6:] == ["-arch=mlip", "-quantize=fp16", "-wb_pin_ocm=1", "-num_tiles=2", "-b", "1"]


@pytest.mark.parametrize(("use_mlsim", "precision"), [(False, "fp16"), ("auto", "fp32"), (False, "fp32")])
def test_runner_uses_numpy_simulator(tools, tmp_path, use_mlsim, precision):
    doc, heads, inputs = two_input_doc()
    got = run_subgraph(*doc.write(tmp_path, heads), inputs, precision=precision, use_mlsim=use_mlsim)
    for g, w in zip(got, doc.run(*inputs, heads=heads, precision=precision), strict=True):
        np.testing.assert_array_equal(g, w)
    assert _calls(tools) == []


def test_runner_without_tools_on_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    doc, heads, inputs = two_input_doc()
    files = doc.write(tmp_path, heads)
    got = run_subgraph(*files, inputs, precision="fp16")
    np.testing.assert_array_equal(got[0], doc.run(*inputs, heads=heads, precision="fp16")[0])
    with pytest.raises(CompileError, match="mrvl-tmlc: is not on PATH"):
        run_subgraph(*files, inputs, precision="fp16", use_mlsim=True)


def test_runner_tools_have_no_fp32(tools, tmp_path):
    doc, heads, inputs = two_input_doc()
    with pytest.raises(CompileError, match="precision 'fp32' runs on the numpy simulator only"):
        run_subgraph(*doc.write(tmp_path, heads), inputs, precision="fp32", use_mlsim=True)


@pytest.mark.parametrize(("variable", "mode", "text"), [
    ("FAKE_TMLC_MODE", "fail", "mrvl-tmlc: exited with status 2: tmlc: unsupported layer Upsample2D"),
    ("FAKE_TMLC_MODE", "no-binary", "mrvl-tmlc: exited with status 0 but wrote no model binary "
                                    "bin_tvmgen_mrvl_main_0/tvmgen_mrvl_main_0.bin"),
    ("FAKE_MLSIM_MODE", "fail", "mrvl-mlsim: exited with status 3: mlsim: out of simulated DDR"),
    ("FAKE_MLSIM_MODE", "no-output", "mrvl-mlsim: exited with status 0 but wrote no output file mrvl_sim_out-0.bin"),
    ("FAKE_MLSIM_MODE", "short", "mrvl-mlsim: output file mrvl_sim_out-0.bin holds 36 bytes; output 0 [1, 3, 3, 2] "
                                 "needs 72 (float32)"),
], ids=["tmlc-fails", "tmlc-no-binary", "mlsim-fails", "mlsim-no-output", "mlsim-short-output"])
def test_runner_reports_tool_failures(tools, tmp_path, monkeypatch, variable, mode, text):
    monkeypatch.setenv(variable, mode)
    doc, heads, inputs = two_input_doc()
    with pytest.raises(CompileError) as info:
        run_subgraph(*doc.write(tmp_path, heads), inputs, precision="fp16")
    assert str(info.value) == text
    assert list(Path(tempfile.tempdir).iterdir()) == []


def test_runner_checks_inputs_and_symbol_before_running_tools(tools, tmp_path):
    doc, heads, inputs = two_input_doc()
    files = doc.write(tmp_path, heads)
    with pytest.raises(CompileError, match="input must have shape"):
        run_subgraph(*files, inputs[::-1], precision="fp16")
    nodes = json.loads(files[0].read_text())
    files[0].write_text(json.dumps(nodes | {"symbol": "../escape"}))
    with pytest.raises(CompileError, match="symbol: must be a file-name-safe subgraph symbol"):
        run_subgraph(*files, inputs, precision="fp16")
    assert _calls(tools) == []
