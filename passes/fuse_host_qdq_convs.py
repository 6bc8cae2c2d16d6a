"""fuse-host-qdq-convs: a QDQ model's quantized conv on the host as one int8 kernel.

After `restore-host-qdq` and `lower-to-cpu`, a Conv that a QDQ model quantized runs on the
host as float32 between the Q/DQ kernels:

    cpu.quantize(cpu.conv(cpu.dequantize(xq, sx, zx), W, B) [{min, max}], sy, zy)

where `recognize-qdq` folded W and B from their DequantizeLinear nodes (the conv's
`mrvl.quantized` records W's grid) and `fuse-cpu-epilogues` a Relu or Clip into the conv.
onnxruntime's QDQ fusion runs such a group as QLinearConv, an int8 kernel, and so does this
pass:

    cpu.qlinear_conv(xq, sx, zx, Wq, sw, zw, sy, zy) bias Bq {min = Q(min), max = Q(max)}

with Wq and Bq the integers W and B came from: Wq = round(W / sw) + zw, Bq = round(B / (sx *
sw)) (the product in float32, as the quantizer scales the bias), each taken only when
dequantizing it gives W or B back exactly; a clamp to [min, max] becomes one to their
quantized values (Q is monotonic, so Q(clamp(v)) = clamp(Q(v))). The int8 result is the int32
sum requantized, as QLinearConv's, where the float group rounded a float32 sum: the two can
differ by one step, as onnxruntime's fused and unfused runs do.

A group is taken when the conv is 2-D, its only use the QuantizeLinear, its input the
DequantizeLinear of an int8 or uint8 tensor with one scale and zero point, its weights on
the recorded grid (int8 or uint8, per tensor or per output channel), with no residual,
activation, PRelu slope or per-channel scale fused into it (those stay float, as
onnxruntime leaves a group it does not fuse). Runs after `fuse-cpu-epilogues`; ops inside
`mrvl.subgraph`s are not touched.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseResourceAttr, IntegerAttr, IntegerType, ModuleOp, TensorType, f32, i32, i64
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of, shape_of
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, module_of
from mrvl_dialect.locations import fused_location
from mrvl_dialect.mrvl import QUANTIZED_ATTR, QuantizedAttr, QuantParamsAttr
from mrvl_dialect.weights import WeightStore
from mrvl.passes.lower_to_cpu import SUBGRAPH_OP


def _integers_of(values: np.ndarray, scale: np.ndarray, zero_point: np.ndarray, dtype: type) -> np.ndarray | None:
    """The integers q with (q - zero_point) * scale == values in float32, exactly; None when
    `values` are not on that grid or q leaves `dtype`."""
    q = np.rint(values / scale) + zero_point
    info = np.iinfo(dtype)
    if not np.all((q >= info.min) & (q <= info.max)):
        return None
    if not np.array_equal(((q - zero_point).astype(np.float32) * scale).astype(np.float32), values):
        return None
    return q.astype(dtype)


def _quantized_bound(bound: float, scale: float, zero_point: int, low: int, high: int) -> int:
    """QuantizeLinear of one value (the division in float32, halves to even, saturated)."""
    return int(min(max(float(np.rint(np.float32(bound) / np.float32(scale))) + zero_point, low), high))


def _weight_constant(store: WeightStore, hint: str, array: np.ndarray, element: Attribute) -> ConstantOp:
    """A `graph.constant` of `array` in the module's weight store, named `hint`."""
    constant = ConstantOp(DenseResourceAttr.from_params(store.add(hint, array), TensorType(element, array.shape)))
    constant.results[0].name_hint = hint
    return constant


class DequantizeConvQuantizeToQLinearConv(RewritePattern):
    """cpu.quantize(cpu.conv(cpu.dequantize(xq), W, B)) -> cpu.qlinear_conv (see the module
    docstring), matched at the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp) or op.zero_point is None:
            return
        conv = op.input.owner
        if (not isinstance(conv, cpu.ConvOp) or op.input.uses.get_length() != 1 or len(shape_of(conv.X)) != 4
                or conv.R is not None or conv.slope is not None or conv.S is not None or conv.T is not None
                or conv.activation is not None or conv.packed_weights is not None):
            return
        dequantize = conv.X.owner
        if not isinstance(dequantize, cpu.DequantizeOp) or dequantize.zero_point is None:
            return
        x, y = dequantize.input, op.output
        if (element_type_of(x) not in cpu.INTEGER_PRODUCT_TYPES or element_type_of(y) not in cpu.INTEGER_PRODUCT_TYPES
                or any(np.prod(shape_of(v)) != 1 for v in (dequantize.scale, op.scale))):
            return
        recorded = conv.attributes.get(QUANTIZED_ATTR)
        if not isinstance(recorded, QuantizedAttr) or not isinstance(weight := recorded.weight, QuantParamsAttr):
            return
        module = module_of(op)
        values = [constant_value(v, module) for v in (conv.W, dequantize.scale, op.scale, op.zero_point)]
        if any(v is None for v in values) or (conv.B is not None and constant_value(conv.B, module) is None):
            return
        w, sx, sy, zy = values
        m = shape_of(conv.W)[0]
        scales, zero_points = np.float32(weight.scales()), np.int32(weight.zero_points())
        if len(scales) not in (1, m) or (len(scales) == m and weight.axis.data != 0):
            return
        per_channel = (-1, 1, 1, 1)
        unsigned = weight.bounds()[0] == 0
        w_type, numpy_type = (cpu.UI8, np.uint8) if unsigned else (IntegerType(8), np.int8)
        wq = _integers_of(np.asarray(w, np.float32), scales.reshape(per_channel), zero_points.reshape(per_channel),
                          numpy_type)
        if wq is None:
            return
        bias_q = None
        if conv.B is not None:
            bias_scale = (np.float32(sx.reshape(())) * scales).astype(np.float32)
            bias_q = _integers_of(np.asarray(constant_value(conv.B, module), np.float32), bias_scale, np.int32(0),
                                  np.int32)
            if bias_q is None:
                return
        low, high = (0, 255) if element_type_of(y) == cpu.UI8 else (-128, 127)
        properties = {k: v for k, v in conv.properties.items() if k in ("strides", "dilations", "pads", "group")}
        if (clamp := conv.clamp()) is not None:
            s, z = float(sy.reshape(())), int(zy.reshape(()))
            if clamp[0] != float("-inf"):
                properties["min"] = IntegerAttr(_quantized_bound(clamp[0], s, z, low, high), i64)
            if clamp[1] != float("inf"):
                properties["max"] = IntegerAttr(_quantized_bound(clamp[1], s, z, low, high), i64)
        name, per_tensor = conv.W.name_hint or "weight", () if len(scales) == 1 else scales.shape
        arrays = [(f"{name}_quantized", wq, w_type), (f"{name}_scale", scales.reshape(per_tensor), f32),
                  (f"{name}_zero_point", zero_points.astype(numpy_type).reshape(per_tensor), w_type)]
        if bias_q is not None:
            arrays.append((f"{conv.B.name_hint or 'bias'}_quantized", bias_q, i32))
        constants = [_weight_constant(WeightStore.of(module), *entry) for entry in arrays]
        w_operands = [c.results[0] for c in constants]
        qconv = cpu.QLinearConvOp.build(
            operands=[x, dequantize.scale, dequantize.zero_point, *w_operands[:3], op.scale, op.zero_point,
                      w_operands[3] if bias_q is not None else None],
            result_types=[y.type], properties=properties)
        # The conv first: the kernel's C function and reports are named after it.
        qconv.location = fused_location([conv.location, dequantize.location, op.location])
        qconv.attributes |= conv.attributes
        qconv.results[0].name_hint = y.name_hint
        rewriter.insert(constants, InsertPoint.before(conv))
        rewriter.replace(op, qconv)
        floats = [v.owner for v in (conv.W, conv.B) if v is not None]
        rewriter.erase(conv)
        for dead in (dequantize, *floats):
            if isinstance(dead, Operation) and not any(r.uses for r in dead.results):
                rewriter.erase(dead)


@dataclass(frozen=True)
class FuseHostQdqConvsPass(ModulePass):
    """Run each QDQ group DequantizeLinear -> Conv [-> Relu/Clip] -> QuantizeLinear on the host
    as one `cpu.qlinear_conv` (see the module docstring)."""

    name = "fuse-host-qdq-convs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(DequantizeConvQuantizeToQLinearConv())
        for top in list(op.body.block.ops):
            if top.name != SUBGRAPH_OP:
                for region in top.regions:
                    walker.rewrite_region(region)
