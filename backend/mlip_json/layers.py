"""One `mrvl` layer -> the attributes of its nodes-JSON entry, as TVM's mrvl codegen set them.

`describe(op, index, symbol)` mirrors apache/tvm@84141c4e7e
`src/relay/backend/contrib/mrvl/codegen.cc` and the post-processing of `python/tvm/contrib/mrvl.py`: for each layer kind it sets the same keys, in the same order, to
the same strings (the Relay attributes of the anchor op first, then the Marvell keys,
then `SetMrvlLayerCommonAttrs`). The order matters: it decides the order the keys end up
in (`unordered_map.py`). Values are written the way they reach the file, one list level
already unwrapped (`["1", "1"]`, `[[1, 8, 8, 4]]`).

Where TVM wrote a wrong value the record holds the right one in the same key; each such
place is marked `# Deliberate (Dn)` after its row in `docs/json-format.md`.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation, SSAValue

from mrvl_dialect import mrvl
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph_queries import constant_op
from mrvl_dialect.shared_attributes import tensor_shape

LAYER_PREFIX = "tvmgen_mrvl_main_"
"""Layers are named `tvmgen_mrvl_main_<j>` in every subgraph (TVM hard-coded it)."""

CONST_DICTS = ("kernel_const", "bias_const", "beta_const", "gamma_const", "var_const", "mean_const")
"""The dicts every layer carries (empty unless filled), in the order TVM added them."""


@dataclass(frozen=True)
class Const:
    """A constant a layer reads, and how the consts file writes it."""

    role: str
    """kernel, bias, gamma, beta, mean, var or input (the constant operand of a sum)."""
    value: SSAValue
    shape: tuple[int, ...]
    """As written: leading 1 for ranks 1 and 3 (TVM's `GetConstJSONString`), the padded
    `input_const_shape` for a sum's constant."""

    @property
    def name_key(self) -> str:
        return f"{self.role}_const_name"

    @property
    def dict_key(self) -> str:
        return f"{self.role}_const"


@dataclass
class Layer:
    """What the nodes file says about one layer, before key ordering and constant data."""

    op: Operation
    index: int
    """j: the layer's position (0, 1, ...); its name is `tvmgen_mrvl_main_<j>`."""
    attrs: dict[str, object] = field(default_factory=dict)
    """In the order the codegen set them (a second set keeps the first position)."""
    data: list[SSAValue] = field(default_factory=list)
    """The non-constant inputs, in operand order."""
    consts: list[Const] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{LAYER_PREFIX}{self.index}"

    def const_name(self, role: str) -> str:
        """`ModifyConstNames`: `_const_0` kernel (or a sum's constant), `_1` bias, then gamma,
        beta, mean, var (one lower without a bias)."""
        if role in ("kernel", "input"):
            return f"{self.name}_const_0"
        first = 1 + any(c.role == "bias" for c in self.consts)
        return f"{self.name}_const_{1 if role == 'bias' else first + BN_ROLES.index(role)}"

    def set(self, key: str, value: object) -> None:
        self.attrs[key] = value

    def read(self, role: str, value: SSAValue, shape: tuple[int, ...] | None = None) -> None:
        """A constant operand: listed for the consts file, named in `<role>_const_name`."""
        if constant_op(value) is None:
            raise CompileError(
                "JSON emitter", f"the {role} of '{self.op.name}' must be a graph.constant: "
                "mrvl-tmlc takes weights from the consts file only"
            )
        self.consts.append(Const(role, value, shape if shape is not None else _const_shape(_dims(value))))
        self.set(f"{role}_const_name", [self.const_name(role)])


BN_ROLES = ("gamma", "beta", "mean", "var")


def _dims(value: SSAValue) -> tuple[int, ...]:
    dims = tensor_shape(value.type)
    assert dims is not None
    return dims


def _strings(values) -> list[str]:
    return [str(int(v)) for v in values]


def _const_shape(dims: tuple[int, ...]) -> tuple[int, ...]:
    """TVM's consts shape: a leading 1 for rank 1 and 3."""
    return (1, *dims) if len(dims) in (1, 3) else dims


def _layout(rank: int) -> str:
    return "NHWC" if rank == 4 else "NC"


def _fp_string(value: float) -> str:
    """A double with max_digits10 (TVM's `Fp2String`, C++ `%.17g`)."""
    return "%.17g" % value


def _activation(layer: Layer, op: Operation) -> None:
    if op.activation.data == mrvl.Activation.RELU:
        layer.set("activation_type", ["relu"])


def _common(layer: Layer, layer_name: str, data_layout: str, kernel_layout: str, out_layout: str,
            composite: str | None, symbol: str) -> None:
    """`SetMrvlLayerCommonAttrs`."""
    layer.set("layer_name", [layer_name])
    layer.set("func_node_name", [symbol])
    if len(layer.data) > 1:
        for i, value in enumerate(layer.data):
            layer.set(f"data_layout_shape_{i}", _strings(_dims(value)))
            if i == 0:
                layer.set("data_layout_shape", _strings(_dims(value)))
    else:
        layer.set("data_layout_shape", _strings(_dims(layer.data[0])))
    layer.set("from_tuple_idx", ["-1"] * len(layer.data))
    if data_layout:
        layer.set("data_layout", [data_layout])
    layer.set("out_layout_shape", _strings(_dims(layer.op.results[0])))
    if kernel_layout:
        layer.set("kernel_layout", [kernel_layout])
    if out_layout:
        layer.set("out_layout", [out_layout])
    func_name = f"n{layer.index}_{layer_name}"
    if data_layout and out_layout:
        func_name += f"_{data_layout}" + (f"2{out_layout}" if data_layout != out_layout else "")
    layer.set("func_name", [func_name])
    if composite is not None:
        layer.set("composite_name", [composite])


def _conv2d(layer: Layer, op: mrvl.Conv2DOp, symbol: str) -> None:
    layer.data.append(op.input)
    o, kh, kw, _ = _dims(op.weight)
    # Relay's Conv2DAttrs, as ConvertLayout left them (NHWC data, OHWI kernel).
    layer.set("strides", _strings(op.strides.get_values()))
    # Deliberate (docs/json-format.md D1): a fused Pad is added to the conv's own padding
    # (TVM overwrote it).
    layer.set("padding", _strings(op.padding.get_values()))
    layer.set("dilation", _strings(op.dilations.get_values()))
    layer.set("groups", [str(op.groups.value.data)])
    layer.set("channels", [str(o)])
    layer.set("kernel_size", [str(kh), str(kw)])
    layer.set("data_layout", ["NHWC"])
    layer.set("kernel_layout", ["OHWI"])
    layer.set("out_layout", ["NHWC"])
    layer.set("out_dtype", [""])
    layer.read("kernel", op.weight)
    if op.bias is not None:
        # TVM's conv bias was the NHWC-broadcast tensor (1, 1, O): written [1, 1, 1, O].
        layer.read("bias", op.bias, (1, 1, 1, o))
        layer.set("bias_layout", ["---O"])
    if op.bn_gamma is not None:
        assert op.bn_epsilon is not None
        layer.set("axis", ["3"])
        layer.set("epsilon", [_fp_string(float(np.float32(op.bn_epsilon.value.data)))])
        layer.set("center", ["1"])
        layer.set("scale", ["1"])
        for role, value in zip(BN_ROLES, (op.bn_gamma, op.bn_beta, op.bn_mean, op.bn_var)):
            layer.read(role, value)
        for role in BN_ROLES:
            layer.set(f"{role}_layout", ["-O"])
    _activation(layer, op)
    _common(layer, "Conv2D", "NHWC", "", "NHWC", "mrvl.conv2d_nhwc2nhwc", symbol)


def _fc(layer: Layer, op: mrvl.FCOp, symbol: str) -> None:
    layer.data.append(op.input)
    layer.read("kernel", op.weight)
    # Relay's DenseAttrs. Deliberate (D3): `units` is always the output count (TVM wrote ""
    # for a dense made from MatMul) and `out_dtype` always "" (float32 either way).
    layer.set("units", [str(_dims(op.weight)[0])])
    layer.set("out_dtype", [""])
    if op.bias is not None:
        layer.read("bias", op.bias)
        layer.set("bias_layout", ["-O"])
    _activation(layer, op)
    data_layout = "NC"
    if op.weights_need_transform is not None:
        layer.set("weights_need_transform", ["yes"])
        data_layout = "NHWC"
    _common(layer, "FC", data_layout, "OI", "NC", "mrvl.fc_ni2no", symbol)


def _pool(layer_name: str, composite: str) -> Callable[[Layer, Operation, str], None]:
    def describe(layer: Layer, op: mrvl.MaxPool2DOp | mrvl.AvgPool2DOp, symbol: str) -> None:
        layer.data.append(op.input)
        kernel = _strings(op.kernel_shape.get_values())
        # Relay's MaxPool2DAttrs / AvgPool2DAttrs.
        layer.set("pool_size", kernel)
        layer.set("strides", _strings(op.strides.get_values()))
        layer.set("dilation", ["1", "1"])
        # Deliberate (D1): a fused Pad is added to the pool's own padding (TVM overwrote it).
        layer.set("padding", _strings(op.padding.get_values()))
        layer.set("layout", ["NHWC"])
        layer.set("out_layout", ["NHWC"])
        layer.set("ceil_mode", ["1" if op.ceil_mode is not None else "0"])
        if isinstance(op, mrvl.AvgPool2DOp):
            layer.set("count_include_pad", ["1" if op.count_include_pad is not None else "0"])
        layer.set("kernel_layout_shape", kernel)
        _common(layer, layer_name, "NHWC", "HW", "NHWC", composite, symbol)

    return describe


def _global_pool(layer_name: str, composite: str) -> Callable[[Layer, Operation, str], None]:
    def describe(layer: Layer, op: Operation, symbol: str) -> None:
        layer.data.append(op.operands[0])
        _, h, w, _ = _dims(op.operands[0])
        layer.set("layout", ["NHWC"])  # Relay's GlobalPool2DAttrs
        layer.set("out_layout", ["NHWC"])
        layer.set("kernel_layout_shape", [str(h), str(w)])
        _common(layer, layer_name, "NHWC", "HW", "NHWC", composite, symbol)

    return describe


def _sum(layer: Layer, op: mrvl.SumOp, symbol: str) -> None:
    constant = [constant_op(v) is not None for v in op.operands]
    if all(constant):
        raise CompileError("JSON emitter", "a mrvl.sum of two constants has no Sum2D form")
    layer.data.extend(v for v, c in zip(op.operands, constant) if not c)
    _activation(layer, op)
    _common(layer, "Sum2D", "", "", "", "mrvl.sum", symbol)
    # `resizeInputOutputLayoutTo4dim`: every shape again, padded to 4 dims with 1s.
    rank = max(len(_dims(v)) for v in op.operands)
    for i, (value, is_constant) in enumerate(zip(op.operands, constant)):
        if not is_constant:
            layer.set(f"data_layout_shape_{i}", _strings(_four(_dims(value))))
            if i == 0:
                layer.set("data_layout_shape", _strings(_four(_dims(value))))
    for value, is_constant in zip(op.operands, constant):
        if is_constant:
            # Left-padded with 1s to the inputs' rank, then right-padded to 4 dims.
            dims = _dims(value)
            padded = _four((1,) * (rank - len(dims)) + dims)
            layer.read("input", value, padded)
            layer.set("input_const_shape", _strings(padded))
    layer.set("out_layout_shape", _strings(_four(_dims(op.output))))
    layer.set("data_layout", ["NHWC"])
    layer.set("out_layout", ["NHWC"])


def _four(dims: tuple[int, ...]) -> tuple[int, ...]:
    return (*dims, *(1,) * (4 - len(dims)))


def _concat(layer: Layer, op: mrvl.ConcatOp, symbol: str) -> None:
    layer.data.extend(op.inputs)
    for value in op.inputs:
        if constant_op(value) is not None:
            raise CompileError("JSON emitter", "a mrvl.concat input cannot be a constant in the JSON format")
    layer.set("axis", [str(len(_dims(op.output)) - 1)])  # Relay's ConcatenateAttrs
    layout = _layout(len(_dims(op.inputs[0])))
    _common(layer, "Concat", layout, "", layout, "mrvl.concat", symbol)


def _reshape(layer: Layer, op: mrvl.ReshapeOp, symbol: str) -> None:
    layer.data.append(op.input)
    # Deliberate (D4): the target shape as Relay's ReshapeAttrs names it (TVM wrote no
    # attributes).
    layer.set("newshape", _strings(_dims(op.output)))
    _common(layer, "reshape", _layout(len(_dims(op.input))), "", _layout(len(_dims(op.output))),
            "mrvl.reshape", symbol)


def _batch_flatten(layer: Layer, op: mrvl.BatchFlattenOp, symbol: str) -> None:
    layer.data.append(op.input)
    _common(layer, "nn.batch_flatten", _layout(len(_dims(op.input))), "", "NC", "mrvl.batch_flatten", symbol)


def _squeeze(layer: Layer, op: mrvl.SqueezeOp, symbol: str) -> None:
    layer.data.append(op.input)
    # Deliberate (D4, D5): the axes as Relay's SqueezeAttrs names them (TVM wrote no
    # attributes), and the output layout from the output's rank (TVM always wrote NC).
    layer.set("axis", _strings(op.axes.get_values()))
    _common(layer, "squeeze", _layout(len(_dims(op.input))), "", _layout(len(_dims(op.output))),
            "mrvl.squeeze", symbol)


def _layout_transform(layer: Layer, op: mrvl.LayoutTransformOp, symbol: str) -> None:
    layer.data.append(op.input)
    src, dst = op.src_layout.data, op.dst_layout.data
    layer.set("src_layout", [src])  # Relay's LayoutTransformAttrs
    layer.set("dst_layout", [dst])
    # A bare Relay op in TVM, not a composite: no `composite_name`.
    _common(layer, "layout_transform", src, "", dst, None, symbol)


_DESCRIBE: dict[type[Operation], Callable[[Layer, Operation, str], None]] = {
    mrvl.Conv2DOp: _conv2d,
    mrvl.FCOp: _fc,
    mrvl.MaxPool2DOp: _pool("Maxpool2D", "mrvl.maxpool2d_nhwc2nhwc"),
    mrvl.AvgPool2DOp: _pool("Avgpool2D", "mrvl.avgpool2d_nhwc2nhwc"),
    mrvl.GlobalAvgPool2DOp: _global_pool("GlobalAvgpool2D", "mrvl.globalavgpool2d_nhwc2nhwc"),
    mrvl.GlobalMaxPool2DOp: _global_pool("GlobalMaxpool2D", "mrvl.globalmaxpool2d_nhwc2nhwc"),
    mrvl.SumOp: _sum,
    mrvl.ConcatOp: _concat,
    mrvl.ReshapeOp: _reshape,
    mrvl.BatchFlattenOp: _batch_flatten,
    mrvl.SqueezeOp: _squeeze,
    mrvl.LayoutTransformOp: _layout_transform,
}
assert set(_DESCRIBE) == set(mrvl.LAYER_OPS), "every mrvl layer kind needs a JSON record"


def is_layer(op: Operation) -> bool:
    return type(op) in _DESCRIBE


def const_elements(op: Operation) -> int:
    """The elements of the constants `describe(op, ...)` lists for the consts file, without
    describing `op`: a layer reads every constant operand, and pads shapes with 1s only."""
    return sum(math.prod(_dims(v)) for v in op.operands if constant_op(v) is not None)


def describe(op: Operation, index: int, symbol: str) -> Layer:
    """The record of layer `op`, the `index`-th layer of subgraph `symbol`, with the keys the
    C++ side added last (`AddNode`: shape, dtype; `Save`: input and output counts)."""
    if (describe_kind := _DESCRIBE.get(type(op))) is None:
        raise CompileError("JSON emitter", f"'{op.name}' is not an MLIP layer")
    layer = Layer(op, index)
    describe_kind(layer, op, symbol)
    layer.set("shape", [list(_dims(op.results[0]))])
    layer.set("dtype", ["float32"])
    layer.set("num_inputs", str(len(layer.data) + len(layer.consts)))
    layer.set("num_outputs", "1")
    return layer
