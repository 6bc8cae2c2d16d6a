"""Runs an MLIP subgraph from its nodes/consts JSON alone: the reference simulator.

`simulate(nodes, consts, inputs)` interprets the two documents that mrvl-tmlc reads
(the format of `docs/json-format.md`) with numpy, and never looks at our IR, so a
match with onnxruntime proves that the files carry everything the layers need. Input
nodes take the subgraph's inputs in their own layout (NCHW as their `shape` says); layers
run in id order, each reading its operands through its `[id, 0, 0]` edges and its
weights through its `*_const_name` keys; `heads` are returned as the layers computed
them (NHWC for 4-D layer outputs, as mrvl-mlsim writes them).

Layer semantics, per `layer_name` (§2.4): activations NHWC, conv weights OHWI, FC weights
`[out, in]`, `padding` as (top, left, bottom, right); Conv2D is conv, then bias, then batch
norm, then relu; an FC input that is 4-D is flattened, in NCHW order when
`weights_need_transform` is "yes" (the weights expect the NCHW flatten of the model) and
in its own NHWC order otherwise; max pooling never takes a padded value; Sum2D adds its
operands after padding them to 4-D as the JSON does (left-pad to the larger rank, then
append 1s; a constant operand takes `input_const_shape`); reshape, nn.batch_flatten and
squeeze reshape row-major to the layer's `shape` (the JSON keeps no target otherwise).
Every layer's result must have its declared `shape`, `data_layout_shape*` /
`out_layout_shape` must agree with the tensors, and a constant's `min`/`max` and the
layer's `*_const` copy of it must agree with the consts document, so a document whose
fields disagree fails with a `CompileError` naming the node and the field instead of
computing something else.

`precision="fp16"` models `-quantize=fp16`: inputs, every constant as stored and every
layer's output are rounded to float16; the arithmetic inside a layer stays float32. (How
mrvl-tmlc folds batch norm or accumulates is not known; this bounds the storage error.)

`precision="int8"` models `-quantize=int8` from the subgraph's quant document
(`<symbol>-quant.json`): a layer's input is rounded to its recorded int8 grid; a conv or FC
computes in integers (weights at their scale per output channel, the bias at input x weight
scale, exact int32 sums) and requantizes to its output scale as ONNX's QLinearConv does (a
float32 multiplier, halves to even, the zero point, Relu as a clamp there, saturation); any
other layer computes in float on those values and rounds its result to its output grid. This
is our model of the chip (docs/qdq.md), not a measurement of it.

`run_subgraph(nodes_path, consts_path, inputs, precision=...)` runs the same subgraph
through Marvell's tools when they are on PATH (mrvl-tmlc compiles the JSON, mrvl-mlsim
runs the binary on raw float32 files, §3.1/§3.3), and through `simulate` otherwise.
The convolution arithmetic is onnx.reference's Conv (vectorised im2col); pooling is done
here on strided window views, because onnx.reference pools loop over output elements.

    python -m mrvl.backend.mlip_simulator S-nodes.json S-consts.json [--inputs IN.npz] [--outputs OUT.npz]
        [--num-tiles N] [--wb-pin-ocm 0|1]
"""

import argparse
import base64
import dataclasses
import binascii
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from onnx import helper
from onnx.reference import ReferenceEvaluator

from mrvl_dialect.errors import CompileError
from mrvl.target.options import DEFAULT_TARGET, TargetOptions

PRECISIONS = ("fp32", "fp16", "int8")
"""fp32: float32 throughout; fp16: what `-quantize=fp16` stores (float16 at layer boundaries);
int8: what `-quantize=int8` computes (int8 tensors at the quant document's scales)."""

INTEGER_LIMITS = {"int8": (-128, 127), "uint8": (0, 255)}

CONST_DTYPES = {"float32": np.dtype("<f4"), "float16": np.dtype("<f2")}
"""Element types a consts entry may declare (`data_base64` is little-endian)."""

_SYMBOL = re.compile(r"[A-Za-z0-9_.-]+")
_MAX_STDERR = 2000


# -- reading the documents ---------------------------------------------------------------


def load(nodes_path: str | Path, consts_path: str | Path) -> tuple[dict, dict]:
    """The two JSON documents of one subgraph, parsed."""
    return _read_json(Path(nodes_path)), _read_json(Path(consts_path))


def load_quant(nodes_path: str | Path) -> dict | None:
    """The quant document beside `<symbol>-nodes.json` (`<symbol>-quant.json`, written under
    quantize=int8), parsed; None where there is none."""
    path = Path(nodes_path)
    quant = path.with_name(path.name.removesuffix("-nodes.json") + "-quant.json")
    return _read_json(quant) if quant.is_file() else None


def _read_json(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CompileError(str(path), f"cannot read: {e}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise CompileError(str(path), f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    if not isinstance(document, dict):
        raise CompileError(str(path), f"must hold a JSON object, got {type(document).__name__}")
    return document


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(value: object) -> int | None:
    """An int from an int or a decimal string ("3", "-1"), else None."""
    if _is_int(value):
        return value  # type: ignore[return-value]
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value):
        return int(value)
    return None


def _shape_of(value: object) -> tuple[int, ...] | None:
    if isinstance(value, list) and all(_is_int(d) and d >= 0 for d in value):
        return tuple(value)
    return None


class _Attrs:
    """A node's `attrs`, read with errors that name the node and the field."""

    def __init__(self, where: str, attrs: dict):
        self.where = where
        self.attrs = attrs

    def error(self, key: str, message: str) -> CompileError:
        return CompileError(self.where, f"'{key}' {message}")

    def __contains__(self, key: str) -> bool:
        return key in self.attrs

    def strings(self, key: str) -> list[str]:
        value = self.attrs.get(key)
        if value is None:
            raise self.error(key, "is missing")
        if not isinstance(value, list) or not all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
            raise self.error(key, f"must be a list of strings, got {json.dumps(value)}")
        return [str(v) for v in value]

    def text(self, key: str, default: str | None = None) -> str:
        if key not in self.attrs and default is not None:
            return default
        values = self.strings(key)
        if len(values) != 1:
            raise self.error(key, f"must hold one string, got {json.dumps(self.attrs[key])}")
        return values[0]

    def ints(self, key: str, counts: Sequence[int] | None = None) -> list[int]:
        values = [_int(v) for v in self.strings(key)]
        if any(v is None for v in values) or (counts is not None and len(values) not in counts):
            what = f"{' or '.join(map(str, counts))} integers" if counts else "integers"
            raise self.error(key, f"must be {what}, got {json.dumps(self.attrs[key])}")
        return values  # type: ignore[return-value]

    def int(self, key: str, default: int | None = None) -> int:
        if key not in self.attrs and default is not None:
            return default
        return self.ints(key, (1,))[0]

    def number(self, key: str) -> float:
        text = self.text(key)
        try:
            return float(text)
        except ValueError:
            raise self.error(key, f"must be a number, got {text!r}") from None

    def flag(self, key: str, true: str, false: str, default: bool) -> bool:
        if key not in self.attrs:
            return default
        value = self.text(key)
        if value not in (true, false):
            raise self.error(key, f"must be {true!r} or {false!r}, got {value!r}")
        return value == true

    def shape(self) -> tuple[int, ...]:
        """The node's one output shape (`"shape": [[dims]]`)."""
        value = self.attrs.get("shape")
        if value is None:
            raise self.error("shape", "is missing")
        if not isinstance(value, list) or len(value) != 1 or _shape_of(value[0]) is None:
            raise self.error("shape", f"must be one list of dims, [[...]], got {json.dumps(value)}")
        return tuple(value[0])

    def dims(self, key: str) -> tuple[int, ...] | None:
        """A shape written as strings (`data_layout_shape`), or None when absent."""
        if key not in self.attrs:
            return None
        values = self.ints(key)
        if any(v < 0 for v in values):
            raise self.error(key, f"must be non-negative dims, got {json.dumps(self.attrs[key])}")
        return tuple(values)


# -- the graph ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Node:
    id: int
    name: str
    op: str
    attrs: _Attrs
    inputs: tuple[int, ...]

    @property
    def where(self) -> str:
        return f"node {self.id} '{self.name}'"


@dataclass(frozen=True)
class _Graph:
    inputs: tuple[_Node, ...]
    """Input nodes, in the order the subgraph takes its inputs (by `input_id`)."""
    layers: tuple[_Node, ...]
    """`tvm_op` nodes in id order (a topological order: edges point backwards)."""
    heads: tuple[int, ...]
    shapes: dict[int, tuple[int, ...]]
    """Every node's declared output shape."""


def _edge(where: str, field: str, entry: object, limit: int) -> int:
    """The node id of an `[id, 0, 0]` entry; ids must be below `limit`."""
    if not (isinstance(entry, list) and len(entry) == 3 and all(_is_int(v) for v in entry)):
        raise CompileError(where, f"'{field}' entries must be [id, 0, 0], got {json.dumps(entry)}")
    node, index, _ = entry
    if not 0 <= node < limit:
        rule = "a layer reads nodes before it: " if field == "inputs" else ""
        raise CompileError(where, f"'{field}' names node {node}; {rule}ids 0 to {limit - 1}")
    if index != 0:
        raise CompileError(where, f"'{field}' takes output {index} of node {node}; MLIP layers have one output")
    return node


def _parse(nodes: dict) -> _Graph:
    if not isinstance(nodes, dict):
        raise CompileError("nodes", f"the nodes document must be a JSON object, got {type(nodes).__name__}")
    entries = nodes.get("nodes")
    if not isinstance(entries, list):
        raise CompileError("nodes", "'nodes' must be a list of nodes")
    inputs: dict[int, _Node] = {}
    layers: list[_Node] = []
    shapes: dict[int, tuple[int, ...]] = {}
    for id, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise CompileError(f"node {id}", f"must be a JSON object, got {json.dumps(entry)[:40]}")
        name = entry.get("name")
        where = f"node {id} '{name}'" if isinstance(name, str) else f"node {id}"
        if not isinstance(name, str):
            raise CompileError(where, "'name' must be a string")
        attrs = entry.get("attrs")
        if not isinstance(attrs, dict):
            raise CompileError(where, "'attrs' must be a JSON object")
        edges = entry.get("inputs")
        if not isinstance(edges, list):
            raise CompileError(where, "'inputs' must be a list of [id, 0, 0]")
        sources = tuple(_edge(where, "inputs", e, id) for e in edges)
        node = _Node(id, name, entry.get("op"), _Attrs(where, attrs), sources)
        shapes[id] = node.attrs.shape()
        if node.op == "input":
            if node.inputs:
                raise CompileError(where, "an input node must have no 'inputs'")
            input_id = _input_id(node, entry)
            if input_id in inputs:
                raise CompileError(where, f"'input_id' {input_id} is also {inputs[input_id].where}")
            inputs[input_id] = node
        elif node.op == "tvm_op":
            layers.append(node)
        else:
            raise CompileError(where, f"'op' must be \"input\" or \"tvm_op\", got {json.dumps(node.op)}")
    if sorted(inputs) != list(range(len(inputs))):
        raise CompileError("nodes", f"input nodes' 'input_id's must be 0 to {len(inputs) - 1}, got {sorted(inputs)}")
    heads = nodes.get("heads")
    if not isinstance(heads, list) or not heads:
        raise CompileError("heads", "must be a non-empty list of [id, 0, 0]")
    graph = _Graph(
        tuple(inputs[k] for k in range(len(inputs))), tuple(layers),
        tuple(_edge("heads", "heads", h, len(entries)) for h in heads), shapes,
    )
    for key, count, what in (
        ("num_subgraph_inputs", len(graph.inputs), "input nodes"), ("num_subgraph_outputs", len(graph.heads), "heads"),
    ):
        if key in nodes and _int(nodes[key]) != count:
            raise CompileError(key, f"says {json.dumps(nodes[key])}, but the nodes document has {count} {what}")
    return graph


def _input_id(node: _Node, entry: dict) -> int:
    value = entry.get("input_id")
    if value is None:
        raise CompileError(node.where, "'input_id' is missing")
    if not (isinstance(value, list) and len(value) == 1 and _int(value[0]) is not None and _int(value[0]) >= 0):
        raise CompileError(node.where, f"'input_id' must be one index, [\"k\"], got {json.dumps(value)}")
    return _int(value[0])  # type: ignore[return-value]


# -- constants ---------------------------------------------------------------------------


def _decode(name: str, entry: object) -> np.ndarray:
    where = f"constant '{name}'"
    if not isinstance(entry, dict):
        raise CompileError(where, "must be a JSON object with shape, dtype and data_base64")
    shape = _shape_of(entry.get("shape"))
    if shape is None:
        raise CompileError(where, f"'shape' must be a list of dims, got {json.dumps(entry.get('shape'))}")
    dtype = CONST_DTYPES.get(entry.get("dtype"))  # type: ignore[arg-type]
    if dtype is None:
        allowed = ", ".join(CONST_DTYPES)
        raise CompileError(where, f"'dtype' must be one of {allowed}, got {json.dumps(entry.get('dtype'))}")
    data = entry.get("data_base64")
    if not isinstance(data, str):
        raise CompileError(where, "'data_base64' must be a string")
    try:
        raw = base64.b64decode(data, validate=True)
    except binascii.Error as e:
        raise CompileError(where, f"'data_base64' is not valid base64: {e}") from None
    if len(raw) != math.prod(shape) * dtype.itemsize:
        raise CompileError(
            where, f"'data_base64' holds {len(raw)} bytes; shape {list(shape)} of {entry['dtype']} needs "
            f"{math.prod(shape) * dtype.itemsize}",
        )
    value = np.frombuffer(raw, dtype).reshape(shape).astype(np.float32)
    for key, reduce in (("min", np.min), ("max", np.max)):
        if key in entry and value.size:
            written = _float(entry[key])
            if written is None or np.float32(written) != reduce(value):
                actual = float(reduce(value))
                raise CompileError(where, f"'{key}' is {json.dumps(entry[key])}, but the data's {key} is {actual!r}")
    return value


def _float(text: object) -> float | None:
    try:
        return float(text) if isinstance(text, str) else None
    except ValueError:
        return None


class _Constants:
    """The consts document, decoded on first use and rounded to the run's precision."""

    def __init__(self, consts: dict, rounding: Callable[[np.ndarray], np.ndarray]):
        if not isinstance(consts, dict):
            raise CompileError("consts", f"the consts document must be a JSON object, got {type(consts).__name__}")
        self.consts = consts
        self.rounding = rounding
        self.decoded: dict[str, np.ndarray] = {}

    def get(self, node: _Node, role: str) -> np.ndarray | None:
        key = f"{role}_const_name"
        if key not in node.attrs:
            return None
        name = node.attrs.text(key)
        if name not in self.decoded:
            if name not in self.consts:
                raise node.attrs.error(key, f"names '{name}', which the consts document does not hold")
            self.decoded[name] = self.rounding(_decode(name, self.consts[name]))
        self.check_mirror(node, role, name)
        return self.decoded[name]

    def check_mirror(self, node: _Node, role: str, name: str) -> None:
        """The layer's `<role>_const` dict, when filled, must repeat the consts entry (§2.1)."""
        mirror = node.attrs.attrs.get(f"{role}_const")
        if not mirror:
            return
        key = f"{role}_const"
        if not isinstance(mirror, dict):
            raise node.attrs.error(key, f"must be a JSON object, got {json.dumps(mirror)}")
        entry = self.consts[name]
        expected = {field: entry.get(field) for field in ("shape", "dtype", "min", "max")} | {"name": name}
        if role == "input":  # a sum constant's dict carries the layer's input_const_shape instead
            padded = node.attrs.dims("input_const_shape")
            expected["shape"] = list(padded) if padded is not None else mirror.get("shape")
        for field, value in expected.items():
            if field in mirror and mirror[field] != value:
                raise node.attrs.error(
                    key, f"says {field} {json.dumps(mirror[field])}, the consts document {json.dumps(value)}"
                )

    def require(self, node: _Node, role: str) -> np.ndarray:
        value = self.get(node, role)
        if value is None:
            kind = node.attrs.text("layer_name")
            raise node.attrs.error(f"{role}_const_name", f"is missing: a {kind} layer needs it")
        return value


# -- layers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layer:
    """One layer being run: its node, data operands and constants."""

    node: _Node
    args: list[np.ndarray]
    consts: _Constants

    @property
    def attrs(self) -> _Attrs:
        return self.node.attrs

    def error(self, message: str) -> CompileError:
        return CompileError(self.node.where, message)

    def one_input(self, ranks: Sequence[int] = (4,)) -> np.ndarray:
        if len(self.args) != 1:
            raise self.error(f"'inputs' must name 1 data input, got {len(self.args)}")
        x = self.args[0]
        if x.ndim not in ranks:
            raise self.error(f"input must have rank {' or '.join(map(str, ranks))}, got shape {list(x.shape)}")
        return x

    def layout(self, key: str, allowed: Sequence[str]) -> None:
        if key in self.attrs and self.attrs.text(key) not in allowed:
            raise self.attrs.error(key, f"must be {' or '.join(allowed)}, got {self.attrs.text(key)!r}")

    def activation(self, y: np.ndarray) -> np.ndarray:
        if "activation_type" not in self.attrs:
            return y
        kind = self.attrs.text("activation_type")
        if kind != "relu":
            raise self.attrs.error("activation_type", f"must be 'relu' (MLIP's only activation), got {kind!r}")
        return np.maximum(y, np.float32(0))

    def add_broadcast(self, y: np.ndarray, value: np.ndarray, key: str) -> np.ndarray:
        """`y + value` where `value` broadcasts to `y` without growing it."""
        try:
            fits = np.broadcast_shapes(y.shape, value.shape) == y.shape
        except ValueError:
            fits = False
        if not fits:
            raise self.attrs.error(
                key, f"constant of shape {list(value.shape)} does not broadcast to the output {list(y.shape)}"
            )
        return y + value

    def padding(self) -> list[int]:
        """(top, left, bottom, right); 1 or 2 values expand as Relay's get_pad_tuple2d does."""
        pads = self.attrs.ints("padding", (1, 2, 4))
        if any(p < 0 for p in pads):
            raise self.attrs.error("padding", f"must be non-negative, got {pads}")
        return pads * 4 if len(pads) == 1 else pads * 2 if len(pads) == 2 else pads

    def pair(self, key: str, minimum: int = 1) -> list[int]:
        values = self.attrs.ints(key, (2,))
        if any(v < minimum for v in values):
            raise self.attrs.error(key, f"must be 2 integers >= {minimum}, got {values}")
        return values


def _nchw(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def _onnx_conv(x: np.ndarray, w: np.ndarray, **attributes) -> np.ndarray:
    node = helper.make_node("Conv", ["x", "w"], ["y"], **attributes)
    (y,) = ReferenceEvaluator(node).run(None, {"x": x, "w": w})
    return y


def _conv2d(layer: _Layer) -> np.ndarray:
    y = _conv_products(layer, layer.one_input(), layer.consts.require(layer.node, "kernel")).astype(np.float32)
    bias = layer.consts.get(layer.node, "bias")
    if bias is not None:
        y = layer.add_broadcast(y, bias, "bias_const_name")
    y = _batch_norm(layer, y)
    return layer.activation(y)


def _conv_products(layer: _Layer, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The conv's sums of products, NHWC, in the operands' arithmetic."""
    attrs = layer.attrs
    layer.layout("data_layout", ["NHWC"])
    layer.layout("out_layout", ["NHWC"])
    layer.layout("kernel_layout", ["OHWI"])
    if w.ndim != 4:
        raise attrs.error("kernel_const_name", f"constant must be OHWI (rank 4), got shape {list(w.shape)}")
    out_channels, kh, kw, per_group = w.shape
    groups = attrs.int("groups")
    if groups < 1 or per_group * groups != x.shape[3] or out_channels % groups:
        raise attrs.error(
            "groups", f"is {groups}: the OHWI kernel {list(w.shape)} does not fit an input of "
            f"{x.shape[3]} channels",
        )
    if "channels" in attrs and attrs.text("channels") and attrs.int("channels") != out_channels:
        raise attrs.error("channels", f"says {attrs.int('channels')}, the kernel has {out_channels} filters")
    if "kernel_size" in attrs and attrs.ints("kernel_size", (2,)) != [kh, kw]:
        raise attrs.error("kernel_size", f"says {attrs.ints('kernel_size')}, the kernel is {kh}x{kw}")
    y = _onnx_conv(
        _nchw(x), np.ascontiguousarray(w.transpose(0, 3, 1, 2)), strides=layer.pair("strides"),
        pads=layer.padding(), dilations=layer.pair("dilation"), group=groups,
    )
    return _nhwc(y)


def _batch_norm(layer: _Layer, y: np.ndarray) -> np.ndarray:
    attrs = layer.attrs
    stats = {role: layer.consts.get(layer.node, role) for role in ("gamma", "beta", "mean", "var")}
    given = [role for role, v in stats.items() if v is not None]
    if not given:
        return y
    if len(given) != 4:
        missing = [f"{role}_const_name" for role, v in stats.items() if v is None]
        raise attrs.error(missing[0], "is missing: batch norm needs gamma, beta, mean and var")
    axis = attrs.int("axis", 3)
    if axis not in (3, -1):
        raise attrs.error("axis", f"must be 3 (NHWC channels), got {axis}")
    channels = y.shape[3]
    for role, value in stats.items():
        if value.size != channels:
            raise attrs.error(
                f"{role}_const_name", f"constant has {value.size} values, the output has {channels} channels"
            )
    gamma, beta, mean, var = (v.reshape(channels) for v in stats.values())  # type: ignore[union-attr]
    epsilon = np.float32(attrs.number("epsilon"))
    y = (y - mean) / np.sqrt(var + epsilon)
    if attrs.flag("scale", "1", "0", default=True):
        y = y * gamma
    if attrs.flag("center", "1", "0", default=True):
        y = y + beta
    return y


def _fc(layer: _Layer) -> np.ndarray:
    y = _fc_products(layer, layer.one_input(ranks=(2, 4)), layer.consts.require(layer.node, "kernel"))
    bias = layer.consts.get(layer.node, "bias")
    if bias is not None:
        y = layer.add_broadcast(y, bias, "bias_const_name")
    return layer.activation(y)


def _fc_products(layer: _Layer, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The FC's sums of products, [batch, out], in the operands' arithmetic."""
    attrs = layer.attrs
    layer.layout("kernel_layout", ["OI"])
    layer.layout("out_layout", ["NC"])
    transform = attrs.flag("weights_need_transform", "yes", "no", default=False)
    if x.ndim == 4:
        layer.layout("data_layout", ["NHWC"])
        # "yes": the weights expect the model's NCHW flatten of this NHWC tensor.
        x = (_nchw(x) if transform else x).reshape(x.shape[0], -1)
    elif transform:
        raise attrs.error("weights_need_transform", f"is 'yes', but the input is 2-D {list(x.shape)}, not NHWC")
    else:
        layer.layout("data_layout", ["NC"])
    if w.ndim != 2 or w.shape[1] != x.shape[1]:
        raise attrs.error("kernel_const_name", f"constant must be [out, {x.shape[1]}], got {list(w.shape)}")
    if "units" in attrs and attrs.text("units") and attrs.int("units") != w.shape[0]:
        raise attrs.error("units", f"says {attrs.int('units')}, the kernel has {w.shape[0]} rows")
    return x @ w.T


def _pool_extent(size: int, kernel: int, stride: int, dilation: int, begin: int, end: int, ceil: bool) -> int:
    span = size + begin + end - dilation * (kernel - 1) - 1
    if span < 0:
        return 0
    if not ceil:
        return span // stride + 1
    out = -(-span // stride) + 1
    # As ONNX Runtime and PyTorch: the last window must start inside the input or its begin padding.
    return out - 1 if (out - 1) * stride >= size + begin else out


def _pool(layer: _Layer) -> np.ndarray:
    attrs = layer.attrs
    x = layer.one_input()
    layer.layout("layout", ["NHWC"])
    layer.layout("out_layout", ["NHWC"])
    kernel = layer.pair("pool_size")
    if "kernel_layout_shape" in attrs and attrs.ints("kernel_layout_shape", (2,)) != kernel:
        raise attrs.error("kernel_layout_shape", f"says {attrs.ints('kernel_layout_shape')}, pool_size is {kernel}")
    strides, dilation = layer.pair("strides"), layer.pair("dilation")
    top, left, bottom, right = layer.padding()
    ceil = attrs.flag("ceil_mode", "1", "0", default=False)
    _, h, w, _ = x.shape
    out = [
        _pool_extent(h, kernel[0], strides[0], dilation[0], top, bottom, ceil),
        _pool_extent(w, kernel[1], strides[1], dilation[1], left, right, ceil),
    ]
    if min(out) < 1:
        raise attrs.error("pool_size", f"{kernel} (dilation {dilation}) is larger than the padded input {[h, w]}")
    span = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    # Cells below/right of the padding that the last ceil_mode window reaches.
    extra = [max(0, (out[0] - 1) * strides[0] + span[0] - (h + top + bottom)),
             max(0, (out[1] - 1) * strides[1] + span[1] - (w + left + right))]
    pads = ((0, 0), (top, bottom + extra[0]), (left, right + extra[1]), (0, 0))

    def windows(t: np.ndarray) -> np.ndarray:
        """[N, OH, OW, C, KH, KW] views of the padded tensor's pooling windows."""
        view = sliding_window_view(t, span, axis=(1, 2))
        return view[:, :: strides[0], :: strides[1], :, :: dilation[0], :: dilation[1]][:, : out[0], : out[1]]

    if attrs.text("layer_name") == "Maxpool2D":
        return windows(np.pad(x, pads, constant_values=-np.inf)).max(axis=(4, 5))
    if "count_include_pad" not in attrs:
        raise attrs.error("count_include_pad", "is missing: an Avgpool2D layer needs it")
    include_pad = attrs.flag("count_include_pad", "1", "0", default=False)
    # Divisor per window: its input elements, plus its padding with count_include_pad (never
    # the extra cells that ceil_mode appends).
    counted = np.zeros((1, h + top + bottom + extra[0], w + left + right + extra[1], 1), np.float32)
    if include_pad:
        counted[:, : h + top + bottom, : w + left + right] = 1
    else:
        counted[:, top : top + h, left : left + w] = 1
    total = windows(np.pad(x, pads)).sum(axis=(4, 5), dtype=np.float32)
    return total / windows(counted).sum(axis=(4, 5), dtype=np.float32)


def _global_pool(layer: _Layer) -> np.ndarray:
    x = layer.one_input()
    layer.layout("layout", ["NHWC"])
    layer.layout("out_layout", ["NHWC"])
    window = layer.attrs.ints("kernel_layout_shape", (2,)) if "kernel_layout_shape" in layer.attrs else None
    if window is not None and window != list(x.shape[1:3]):
        raise layer.attrs.error("kernel_layout_shape", f"says {window}, the input is {list(x.shape[1:3])} in H, W")
    if layer.attrs.text("layer_name") == "GlobalMaxpool2D":
        return x.max(axis=(1, 2), keepdims=True)
    return x.mean(axis=(1, 2), keepdims=True, dtype=np.float32)


def _to_4d(shape: Sequence[int], rank: int | None = None) -> tuple[int, ...]:
    """Sum2D's padding: left-pad with 1s to `rank`, then append 1s up to 4 dims."""
    shape = (1,) * ((rank or len(shape)) - len(shape)) + tuple(shape)
    return shape + (1,) * (4 - len(shape))


def _sum(layer: _Layer) -> np.ndarray:
    attrs = layer.attrs
    constant = layer.consts.get(layer.node, "input")
    expected = 1 if constant is not None else 2
    if len(layer.args) != expected:
        with_const = " and an input_const" if constant is not None else ""
        raise layer.error(f"'inputs' must name {expected} data input(s){with_const}, got {len(layer.args)}")
    if any(a.ndim > 4 for a in layer.args):
        raise layer.error(f"Sum2D takes tensors of rank <= 4, got {[list(a.shape) for a in layer.args]}")
    rank = max(a.ndim for a in layer.args)
    operands = [a.reshape(_to_4d(a.shape, rank)) for a in layer.args]
    if constant is not None:
        shape = attrs.dims("input_const_shape")
        if shape is None:
            raise attrs.error("input_const_shape", "is missing: a Sum2D with an input_const needs it")
        if len(shape) != 4 or math.prod(shape) != constant.size:
            raise attrs.error(
                "input_const_shape", f"must be 4 dims holding the constant's {constant.size} values, got {list(shape)}"
            )
        operands.append(constant.reshape(shape))
    try:
        y = operands[0] + operands[1]
    except ValueError:
        raise layer.error(f"Sum2D operands {[list(o.shape) for o in operands]} do not broadcast") from None
    declared = attrs.shape()
    if y.shape != _to_4d(declared):
        raise attrs.error("shape", f"is {list(declared)}, but the operands sum to {list(y.shape)} (in 4-D)")
    return layer.activation(y).reshape(declared)


def _concat(layer: _Layer) -> np.ndarray:
    axis = layer.attrs.int("axis")
    if not layer.args:
        raise layer.error("'inputs' must name the tensors to concatenate")
    try:
        return np.concatenate(layer.args, axis=axis)
    except (ValueError, np.exceptions.AxisError) as e:
        shapes = [list(a.shape) for a in layer.args]
        raise layer.attrs.error("axis", f"cannot concatenate {shapes} on axis {axis}: {e}") from None


def _layout_transform(layer: _Layer) -> np.ndarray:
    x = layer.one_input(ranks=range(1, 7))
    source, target = layer.attrs.text("src_layout"), layer.attrs.text("dst_layout")
    if sorted(source) != sorted(target) or len(set(source)) != len(source) or len(source) != x.ndim:
        raise layer.attrs.error(
            "dst_layout", f"{target!r} is not a permutation of src_layout {source!r} for a rank-{x.ndim} input"
        )
    return np.ascontiguousarray(x.transpose([source.index(c) for c in target]))


def _reshape(layer: _Layer) -> np.ndarray:
    x = layer.one_input(ranks=range(0, 7))
    target = layer.attrs.shape()
    if math.prod(target) != x.size:
        raise layer.attrs.error("shape", f"{list(target)} does not hold the input's {x.size} values {list(x.shape)}")
    return x.reshape(target)


def _squeeze(layer: _Layer) -> np.ndarray:
    x = layer.one_input(ranks=range(0, 7))
    target = layer.attrs.shape()
    kept = 0  # greedy: `target` must be `x.shape` with some size-1 dims left out
    for d in x.shape:
        if kept < len(target) and target[kept] == d:
            kept += 1
        elif d != 1:
            break
    else:
        if kept == len(target):
            return x.reshape(target)
    raise layer.attrs.error("shape", f"{list(target)} does not drop size-1 dims of the input {list(x.shape)}")


def _batch_flatten(layer: _Layer) -> np.ndarray:
    x = layer.one_input(ranks=(2, 4))
    target = layer.attrs.shape()
    if target != (x.shape[0], math.prod(x.shape[1:])):
        raise layer.attrs.error(
            "shape", f"must be [{x.shape[0]}, {math.prod(x.shape[1:])}] to flatten {list(x.shape)}, got {list(target)}"
        )
    return x.reshape(target)


LAYERS: dict[str, Callable[[_Layer], np.ndarray]] = {
    "layout_transform": _layout_transform,
    "Conv2D": _conv2d,
    "FC": _fc,
    "Maxpool2D": _pool,
    "Avgpool2D": _pool,
    "GlobalAvgpool2D": _global_pool,
    "GlobalMaxpool2D": _global_pool,
    "Sum2D": _sum,
    "Concat": _concat,
    "reshape": _reshape,
    "nn.batch_flatten": _batch_flatten,
    "squeeze": _squeeze,
}
"""`layer_name` -> the rule computing that layer's output."""


def _check_dims(node: _Node, key: str, declared: tuple[int, ...] | None, actual: tuple[int, ...]) -> None:
    if declared is not None and declared != actual:
        raise node.attrs.error(key, f"is {list(declared)}, but the tensor is {list(actual)}")


def _run_layer(node: _Node, args: list[np.ndarray], consts: _Constants) -> np.ndarray:
    kind = node.attrs.text("layer_name")
    rule = LAYERS.get(kind)
    if rule is None:
        raise node.attrs.error("layer_name", f"{kind!r} is not an MLIP layer kind ({', '.join(LAYERS)})")
    padded = _to_4d if kind == "Sum2D" else tuple  # Sum2D's shapes are written in 4-D
    if args:
        _check_dims(node, "data_layout_shape", node.attrs.dims("data_layout_shape"), padded(args[0].shape))
    if len(args) > 1:
        for i, a in enumerate(args):
            _check_dims(node, f"data_layout_shape_{i}", node.attrs.dims(f"data_layout_shape_{i}"), padded(a.shape))
    declared = node.attrs.shape()
    y = np.asarray(rule(_Layer(node, args, consts)), dtype=np.float32)
    _check_dims(node, "shape", declared, y.shape)
    _check_dims(node, "out_layout_shape", node.attrs.dims("out_layout_shape"), padded(declared))
    return y


# -- running -------------------------------------------------------------------------------


def _rounding(precision: str) -> Callable[[np.ndarray], np.ndarray]:
    if precision in ("fp32", "int8"):  # int8: rounded per layer by `_int8_layer`
        return lambda a: a
    if precision == "fp16":
        return lambda a: a.astype(np.float16).astype(np.float32)
    raise CompileError("precision", f"must be one of {', '.join(PRECISIONS)}, got {precision!r}")


def _check_inputs(graph: _Graph, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len(inputs) != len(graph.inputs):
        raise CompileError("inputs", f"the subgraph takes {len(graph.inputs)} input(s), got {len(inputs)}")
    arrays = []
    for node, value in zip(graph.inputs, inputs):
        array = np.asarray(value, dtype=np.float32)
        if array.shape != graph.shapes[node.id]:
            expected = list(graph.shapes[node.id])
            raise CompileError(node.where, f"input must have shape {expected}, got {list(array.shape)}")
        arrays.append(array)
    return arrays


def simulate(
    nodes: dict, consts: dict, inputs: Sequence[np.ndarray], precision: Literal["fp32", "fp16", "int8"] = "fp32",
    quant: dict | None = None,
) -> list[np.ndarray]:
    """Run the subgraph that `nodes` and `consts` describe on `inputs`; its outputs, per
    `heads`. `quant`: the subgraph's quant document, which precision int8 needs."""
    rounding = _rounding(precision)
    graph = _parse(nodes)
    records = _quant_records(quant) if precision == "int8" else None
    constants = _Constants(consts, rounding)
    values: dict[int, np.ndarray] = {
        node.id: rounding(x) for node, x in zip(graph.inputs, _check_inputs(graph, inputs))
    }
    for node in graph.layers:
        args = [values[i] for i in node.inputs]
        if records is None:
            values[node.id] = rounding(_run_layer(node, args, constants))
        else:
            values[node.id] = _int8_layer(node, args, constants, records.get(node.id, {}))
    return [values[h] for h in graph.heads]


# -- int8 ----------------------------------------------------------------------------------


def _quant_records(quant: dict | None) -> dict[int, dict]:
    """Each layer id's tensor records (`input`, `weight`, `output`) from a quant document."""
    if quant is None:
        raise CompileError("precision", "int8 needs the subgraph's -quant.json (a bundle compiled with quantize=int8)")
    try:
        return {int(entry["id"]): dict(entry["tensors"]) for entry in quant["layers"]}
    except (KeyError, TypeError, ValueError) as e:
        raise CompileError("quant", f"malformed quant document: {type(e).__name__}: {e}") from None


def _per_tensor(node: _Node, record: dict, role: str) -> tuple[np.float32, int, str]:
    scale, zero, dtype = record["scale"], record["zero_point"], record["dtype"]
    if len(scale) != 1 or len(zero) != 1 or dtype not in INTEGER_LIMITS:
        raise CompileError(node.where, f"the {role} must be quantized per tensor to int8 or uint8, got {record}")
    return np.float32(scale[0]), int(zero[0]), dtype


def _integers(x: np.ndarray, scale: np.float32, zero: int, dtype: str) -> np.ndarray:
    """x as ONNX's QuantizeLinear quantizes it (x / scale in float32, halves to even, plus
    the zero point, saturated), held in float64."""
    low, high = INTEGER_LIMITS[dtype]
    return np.clip(np.rint(np.asarray(x, np.float32) / scale) + zero, low, high).astype(np.float64)


def _on_grid(node: _Node, x: np.ndarray, record: dict, role: str) -> np.ndarray:
    """x rounded to the tensor's int8 grid, as the float values the integers stand for."""
    scale, zero, dtype = _per_tensor(node, record, role)
    return ((_integers(x, scale, zero, dtype) - zero) * scale).astype(np.float32)


def _int8_layer(node: _Node, args: list[np.ndarray], consts: _Constants, tensors: dict) -> np.ndarray:
    """One layer as the chip computes it under -quantize=int8 (our model of it): its one
    input at the recorded input scale, a conv or FC in integers (int8 weights at their scale
    per output channel, the bias at input x weight scale, exact int32 sums, then the
    requantization to the output scale: a float32 multiplier, halves to even, the zero point,
    Relu as a clamp at it, saturation); another layer in float on int8 values, its result
    rounded to the output scale. A layer without records computes in float."""
    if len(args) == 1 and "input" in tensors:
        args = [_on_grid(node, args[0], tensors["input"], "input")]
    kind = node.attrs.text("layer_name")
    if kind in ("Conv2D", "FC") and {"input", "weight", "output"} <= tensors.keys():
        y = _integer_layer(_Layer(node, args, consts), tensors)
        _check_dims(node, "shape", node.attrs.shape(), y.shape)
        return y
    y = _run_layer(node, args, consts)
    return _on_grid(node, y, tensors["output"], "output") if "output" in tensors else y


def _integer_layer(layer: _Layer, tensors: dict) -> np.ndarray:
    node = layer.node
    if any(layer.consts.get(node, role) is not None for role in ("gamma", "beta", "mean", "var")):
        raise layer.error("an int8 layer with a batch norm is not modelled (the quantizer folds it into the conv)")
    sx, zx, x_dtype = _per_tensor(node, tensors["input"], "input")
    sy, zy, y_dtype = _per_tensor(node, tensors["output"], "output")
    weight = tensors["weight"]
    if any(weight["zero_point"]) or weight["dtype"] != "int8":
        raise layer.error(f"int8 weights must be symmetric (zero point 0), got {weight}")
    w = layer.consts.require(node, "kernel")
    w_scale = np.asarray(weight["scale"], np.float32).reshape(-1, *[1] * (w.ndim - 1))
    x = _integers(layer.one_input(ranks=(2, 4)), sx, zx, x_dtype) - zx
    w_int = np.rint(w / w_scale).astype(np.float64)
    sums = (_conv_products if layer.attrs.text("layer_name") == "Conv2D" else _fc_products)(layer, x, w_int)
    product_scale = sx * w_scale.reshape(-1)  # float32, as the quantizer scales the bias
    bias = layer.consts.get(node, "bias")
    if bias is not None:
        sums = sums + np.rint(bias.reshape(-1) / product_scale)
    multiplier = (product_scale / sy).astype(np.float32).astype(np.float64)
    q = np.rint(sums * multiplier) + zy
    if "activation_type" in layer.attrs:
        layer.activation(np.zeros(1, np.float32))  # checks the kind: relu
        q = np.maximum(q, zy)
    low, high = INTEGER_LIMITS[y_dtype]
    return ((np.clip(q, low, high) - zy) * sy).astype(np.float32)


# -- Marvell's tools -----------------------------------------------------------------------


def _tools(use_mlsim: bool | str, precision: str) -> tuple[str, str] | None:
    """Paths of (mrvl-tmlc, mrvl-mlsim) when they are to be used, else None."""
    if use_mlsim is False:
        return None
    if use_mlsim not in (True, "auto"):
        raise CompileError("use_mlsim", f"must be True, False or 'auto', got {use_mlsim!r}")
    tmlc, mlsim = shutil.which("mrvl-tmlc"), shutil.which("mrvl-mlsim")
    if use_mlsim == "auto":
        return (tmlc, mlsim) if tmlc and mlsim and precision == "fp16" else None
    if precision != "fp16":
        raise CompileError(
            "mrvl-mlsim", f"MLIP computes in fp16 (-quantize=fp16); precision {precision!r} runs on the numpy "
            "simulator only",
        )
    for tool, path in (("mrvl-tmlc", tmlc), ("mrvl-mlsim", mlsim)):
        if path is None:
            raise CompileError(tool, "is not on PATH (use_mlsim=True needs mrvl-tmlc and mrvl-mlsim)")
    return tmlc, mlsim  # type: ignore[return-value]


def uses_mlsim(use_mlsim: bool | Literal["auto"], precision: str) -> bool:
    """Whether `run_subgraph` with these arguments runs Marvell's tools (else `simulate`)."""
    return _tools(use_mlsim, precision) is not None


def _call(tool: str, command: list[str], cwd: Path) -> None:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace", check=False)
    except OSError as e:
        raise CompileError(tool, f"cannot run {command[0]}: {e}") from None
    if done.returncode != 0:
        stderr = done.stderr.strip()[-_MAX_STDERR:] or "(no stderr)"
        raise CompileError(tool, f"exited with status {done.returncode}: {stderr}")


def _run_tools(
    tools: tuple[str, str], nodes_path: Path, consts_path: Path, nodes: dict, graph: _Graph,
    inputs: list[np.ndarray], precision: str, target: TargetOptions,
) -> list[np.ndarray]:
    symbol, batch = nodes.get("symbol"), nodes.get("batch_size")
    if not isinstance(symbol, str) or not _SYMBOL.fullmatch(symbol):
        raise CompileError("symbol", f"must be a file-name-safe subgraph symbol, got {json.dumps(symbol)}")
    if _int(batch) is None:
        raise CompileError("batch_size", f"must be an integer string, got {json.dumps(batch)}")
    tmlc, mlsim = tools
    with tempfile.TemporaryDirectory(prefix=f"mrvl-mlsim-{symbol}-") as tmp:
        work = Path(tmp)
        command = dataclasses.replace(target, quantize=precision).tmlc_command(
            symbol, str(nodes_path.resolve()), str(consts_path.resolve()), _int(batch))
        _call("mrvl-tmlc", [tmlc, *command[1:]], work)
        binary = work / f"bin_{symbol}" / f"{symbol}.bin"
        if not binary.is_file() or binary.stat().st_size == 0:
            raise CompileError("mrvl-tmlc", f"exited with status 0 but wrote no model binary bin_{symbol}/{symbol}.bin")
        data, prefix, run_dir = work / "input.bin", work / "mrvl_sim_out", work / f"mrvl_sw_sim_{symbol}"
        # All inputs, each flattened row-major in its own layout, back to back (§3.3).
        data.write_bytes(b"".join(np.ascontiguousarray(x, "<f4").tobytes() for x in inputs))
        run_dir.mkdir()
        _call("mrvl-mlsim", [mlsim, "-m", str(binary), "-d", str(data), "-o", str(prefix)], run_dir)
        outputs = []
        for i, head in enumerate(graph.heads):
            path, shape = work / f"{prefix.name}-{i}.bin", graph.shapes[head]
            if not path.is_file():
                raise CompileError("mrvl-mlsim", f"exited with status 0 but wrote no output file {path.name}")
            if path.stat().st_size != math.prod(shape) * 4:
                raise CompileError(
                    "mrvl-mlsim", f"output file {path.name} holds {path.stat().st_size} bytes; output {i} "
                    f"{list(shape)} needs {math.prod(shape) * 4} (float32)",
                )
            outputs.append(np.fromfile(path, "<f4").reshape(shape).astype(np.float32))
        return outputs


def run_subgraph(
    nodes_path: str | Path, consts_path: str | Path, inputs: Sequence[np.ndarray], *,
    precision: Literal["fp32", "fp16", "int8"], use_mlsim: bool | Literal["auto"] = "auto",
    target: TargetOptions = DEFAULT_TARGET,
) -> list[np.ndarray]:
    """Run one subgraph from its files: on mrvl-mlsim, or on `simulate`.

    `use_mlsim="auto"` runs Marvell's tools when mrvl-tmlc and mrvl-mlsim are both on PATH
    and `precision` is fp16 (MLIP has no fp32 mode); True insists on them; False never uses
    them. The tools run in a fresh temporary directory removed afterwards; mrvl-tmlc
    compiles for `target` (a bundle's subgraph: the options its command line records),
    in `precision`.
    """
    _rounding(precision)
    nodes_path, consts_path = Path(nodes_path), Path(consts_path)
    nodes, consts = load(nodes_path, consts_path)
    tools = _tools(use_mlsim, precision)
    if tools is None:
        return simulate(nodes, consts, inputs, precision, load_quant(nodes_path) if precision == "int8" else None)
    graph = _parse(nodes)
    arrays = _check_inputs(graph, inputs)
    return _run_tools(tools, nodes_path, consts_path, nodes, graph, arrays, precision, target)


# -- command line --------------------------------------------------------------------------


def _cli_inputs(path: Path | None, nodes_path: Path) -> list[np.ndarray]:
    """The arrays of an .npz in file order, or seeded standard-normal inputs of the right shapes."""
    if path is None:
        graph = _parse(_read_json(nodes_path))
        rng = np.random.default_rng(0)
        return [rng.standard_normal(graph.shapes[node.id]).astype(np.float32) for node in graph.inputs]
    try:
        with np.load(path) as arrays:
            return [arrays[name] for name in arrays.files]
    except (OSError, ValueError) as e:
        raise CompileError(str(path), f"cannot read the inputs (.npz): {e}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m mrvl.backend.mlip_simulator NODES CONSTS [--inputs IN.npz] [--outputs OUT.npz] [--num-tiles N]`."""
    parser = argparse.ArgumentParser(
        prog="python -m mrvl.backend.mlip_simulator",
        description="Run one MLIP subgraph from its nodes/consts JSON: on mrvl-tmlc + mrvl-mlsim when they "
        "are on PATH, else on the numpy simulator. Prints each output's shape and largest magnitude.",
    )
    parser.add_argument("nodes", type=Path, help="<symbol>-nodes.json")
    parser.add_argument("consts", type=Path, help="<symbol>-consts.json")
    parser.add_argument("--inputs", type=Path, help=".npz holding the subgraph's inputs in order, in the input "
                        "nodes' layout (default: seeded standard-normal values)")
    parser.add_argument("--outputs", type=Path, help="write the outputs to this .npz as output_0, output_1, ...")
    parser.add_argument("--precision", choices=PRECISIONS, default="fp16", help="default: fp16 (-quantize=fp16)")
    parser.add_argument("--mlsim", choices=("auto", "always", "never"), default="auto",
                        help="use mrvl-tmlc and mrvl-mlsim: when on PATH (auto, fp16 only), always or never")
    for name in ("num_tiles", "wb_pin_ocm"):  # what mrvl-tmlc compiles for
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, choices=TargetOptions.values(name),
                            default=getattr(DEFAULT_TARGET, name), help=TargetOptions.help(name))
    args = parser.parse_args(argv)
    try:
        inputs = _cli_inputs(args.inputs, args.nodes)
        use_mlsim = {"auto": "auto", "always": True, "never": False}[args.mlsim]
        target = TargetOptions(num_tiles=args.num_tiles, wb_pin_ocm=args.wb_pin_ocm)
        outputs = run_subgraph(args.nodes, args.consts, inputs, precision=args.precision, use_mlsim=use_mlsim,
                               target=target)
    except CompileError as e:
        files = {str(args.nodes), str(args.consts), str(args.inputs)}
        file = args.consts if e.where.startswith("constant ") else args.nodes
        print(f"error: {e}" if e.where in files else e.format(str(file)), file=sys.stderr)
        return 1
    for i, y in enumerate(outputs):
        print(f"output {i}: {list(y.shape)}, max |y| {float(np.abs(y).max()) if y.size else 0.0:.6g}")
    if args.outputs is not None:
        np.savez(args.outputs, **{f"output_{i}": y for i, y in enumerate(outputs)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
