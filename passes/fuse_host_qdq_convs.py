"""fuse-host-qdq-convs: a QDQ model's quantized conv (or Gemm) on the host as one int8 kernel.

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

A QDQ Gemm with constant weights, DequantizeLinear -> Gemm (alpha 1, beta 1, A not transposed)
-> QuantizeLinear, which onnxruntime runs as QGemm (the same integer sums and requantization),
becomes a 1x1 `cpu.qlinear_conv` of the integers viewed as (N, K, 1, 1), its result viewed back
as (N, M): B's rows (transposed) or columns are the conv's output channels.

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
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseResourceAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of, shape_of
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, module_of
from mrvl_dialect.locations import fused_location
from mrvl_dialect.mrvl import QUANTIZED_ATTR, QuantizedAttr, QuantParamsAttr
from mrvl_dialect.weights import WeightStore
from mrvl.passes.lower_to_cpu import host_regions


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


def _ints(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def _weight_constant(store: WeightStore, hint: str, array: np.ndarray, element: Attribute) -> ConstantOp:
    """A `graph.constant` of `array` in the module's weight store, named `hint`."""
    constant = ConstantOp(DenseResourceAttr.from_params(store.add(hint, array), TensorType(element, array.shape)))
    constant.results[0].name_hint = hint
    return constant


def _qlinear_conv(x: SSAValue, dequantize: cpu.DequantizeOp, quantize: cpu.QuantizeOp, w: np.ndarray,
                  b: np.ndarray | None, weight: QuantParamsAttr, weight_axis: int, clamp: tuple[float, float] | None,
                  properties: dict[str, Attribute], hints: tuple[str, str]
                  ) -> tuple[list[Operation], cpu.QLinearConvOp] | None:
    """The constants and the `cpu.qlinear_conv` of x (the integers `dequantize` reads, shaped as
    a conv's input) giving quantize(conv(dequantize(x), w, b)), for the float weights `w` (M, C,
    kh, kw) on the grid `weight` records (per tensor, or per output channel: along
    `weight_axis` of the model's weights) and the float bias `b` (M) on x_scale * w_scale; None
    when either is off its grid or a scale or zero point is not a constant of one value.
    `hints` name the weights and the bias."""
    y = quantize.output
    if (element_type_of(x) not in cpu.INTEGER_PRODUCT_TYPES or element_type_of(y) not in cpu.INTEGER_PRODUCT_TYPES
            or dequantize.zero_point is None or quantize.zero_point is None
            or any(np.prod(shape_of(v)) != 1 for v in (dequantize.scale, quantize.scale))):
        return None
    module = module_of(quantize)
    values = [constant_value(v, module) for v in (dequantize.scale, quantize.scale, quantize.zero_point)]
    if any(v is None for v in values):
        return None
    sx, sy, zy = values
    m = w.shape[0]
    scales, zero_points = np.float32(weight.scales()), np.int32(weight.zero_points())
    if len(scales) not in (1, m) or (len(scales) == m and weight.axis.data != weight_axis):
        return None
    per_channel = (-1, 1, 1, 1)
    unsigned = weight.bounds()[0] == 0
    w_type, numpy_type = (cpu.UI8, np.uint8) if unsigned else (IntegerType(8), np.int8)
    wq = _integers_of(np.asarray(w, np.float32), scales.reshape(per_channel), zero_points.reshape(per_channel),
                      numpy_type)
    if wq is None:
        return None
    bias_q = None
    if b is not None:
        bias_scale = (np.float32(sx.reshape(())) * scales).astype(np.float32)
        bias_q = _integers_of(np.asarray(b, np.float32).reshape(-1), bias_scale, np.int32(0), np.int32)
        if bias_q is None:
            return None
    low, high = (0, 255) if element_type_of(y) == cpu.UI8 else (-128, 127)
    properties = dict(properties)
    if clamp is not None:
        s, z = float(sy.reshape(())), int(zy.reshape(()))
        if clamp[0] != float("-inf"):
            properties["min"] = IntegerAttr(_quantized_bound(clamp[0], s, z, low, high), i64)
        if clamp[1] != float("inf"):
            properties["max"] = IntegerAttr(_quantized_bound(clamp[1], s, z, low, high), i64)
    per_tensor = () if len(scales) == 1 else scales.shape
    arrays = [(f"{hints[0]}_quantized", wq, w_type), (f"{hints[0]}_scale", scales.reshape(per_tensor), f32),
              (f"{hints[0]}_zero_point", zero_points.astype(numpy_type).reshape(per_tensor), w_type)]
    if bias_q is not None:
        arrays.append((f"{hints[1]}_quantized", bias_q, i32))
    constants = [_weight_constant(WeightStore.of(module), *entry) for entry in arrays]
    w_operands = [c.results[0] for c in constants]
    n, spatial = shape_of(x)[0], list(zip(shape_of(x)[2:], w.shape[2:]))
    strides, dilations, pads = (properties[key].get_values() for key in ("strides", "dilations", "pads"))
    out = [(size + pads[i] + pads[i + 2] - (k - 1) * dilations[i] - 1) // strides[i] + 1
           for i, (size, k) in enumerate(spatial)]
    qconv = cpu.QLinearConvOp.build(
        operands=[x, dequantize.scale, dequantize.zero_point, *w_operands[:3], quantize.scale, quantize.zero_point,
                  w_operands[3] if bias_q is not None else None],
        result_types=[TensorType(element_type_of(y), (n, m, *out))], properties=properties)
    return constants, qconv


def _erase_unused(ops: list[Operation | None], rewriter: PatternRewriter) -> None:
    for op in ops:
        if isinstance(op, Operation) and not any(r.uses for r in op.results):
            rewriter.erase(op)


def _recorded_int8_operands(
    compute: Operation, x: SSAValue, w: SSAValue, b: SSAValue | None
) -> tuple[cpu.DequantizeOp, QuantParamsAttr, np.ndarray, np.ndarray | None] | None:
    """For a host conv or Gemm whose grids recognize-qdq recorded: the DequantizeLinear that
    gives its input `x`, its weights' recorded grid, and the values of its constant weights `w`
    and bias `b` (None when absent); None when one of them is missing."""
    dequantize, recorded = x.owner, compute.attributes.get(QUANTIZED_ATTR)
    if (not isinstance(dequantize, cpu.DequantizeOp) or not isinstance(recorded, QuantizedAttr)
            or not isinstance(recorded.weight, QuantParamsAttr)):
        return None
    module = module_of(compute)
    weights, bias = constant_value(w, module), constant_value(b, module) if b is not None else None
    if weights is None or (b is not None and bias is None):
        return None
    return dequantize, recorded.weight, weights, bias


class DequantizeConvQuantizeToQLinearConv(RewritePattern):
    """cpu.quantize(cpu.conv(cpu.dequantize(xq), W, B)) -> cpu.qlinear_conv (see the module
    docstring), matched at the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp):
            return
        conv = op.input.owner
        if (not isinstance(conv, cpu.ConvOp) or op.input.uses.get_length() != 1 or len(shape_of(conv.X)) != 4
                or conv.R is not None or conv.slope is not None or conv.S is not None or conv.T is not None
                or conv.activation is not None or conv.packed_weights is not None):
            return
        if (found := _recorded_int8_operands(conv, conv.X, conv.W, conv.B)) is None:
            return
        dequantize, weight, w, b = found
        properties = {k: v for k, v in conv.properties.items() if k in ("strides", "dilations", "pads", "group")}
        hints = (conv.W.name_hint or "weight", conv.B.name_hint if conv.B is not None and conv.B.name_hint else "bias")
        built = _qlinear_conv(dequantize.input, dequantize, op, w, b, weight, 0, conv.clamp(), properties, hints)
        if built is None:
            return
        constants, qconv = built
        # The conv first: the kernel's C function and reports are named after it.
        qconv.location = fused_location([conv.location, dequantize.location, op.location])
        qconv.attributes |= conv.attributes
        qconv.results[0].name_hint = op.output.name_hint
        rewriter.insert(constants, InsertPoint.before(conv))
        rewriter.replace(op, qconv)
        floats = [v.owner for v in (conv.W, conv.B) if v is not None]
        rewriter.erase(conv)
        _erase_unused([dequantize, *floats], rewriter)


class DequantizeGemmQuantizeToQLinearConv(RewritePattern):
    """cpu.quantize(cpu.gemm(cpu.dequantize(xq), W, C)) -> cpu.qlinear_conv of 1x1 on xq
    reshaped to (N, K, 1, 1), its result reshaped back (see the module docstring), matched at
    the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp):
            return
        gemm = op.input.owner
        if (not isinstance(gemm, cpu.GemmOp) or op.input.uses.get_length() != 1 or gemm.packed_b is not None
                or gemm.trans_a.value.data or gemm.alpha.value.data != 1.0
                or (gemm.C is not None and gemm.beta.value.data != 1.0)):
            return
        if (found := _recorded_int8_operands(gemm, gemm.A, gemm.B, gemm.C)) is None:
            return
        dequantize, weight, w, c = found
        (n, k), m = shape_of(gemm.A), shape_of(gemm.Y)[1]
        trans_b = bool(gemm.trans_b.value.data)
        if c is not None and (c.size != m or shape_of(gemm.C)[-1] != m):
            return
        weights = (np.asarray(w) if trans_b else np.asarray(w).T).reshape(m, k, 1, 1)
        properties = {"strides": _ints([1, 1]), "dilations": _ints([1, 1]), "pads": _ints([0, 0, 0, 0]),
                      "group": IntegerAttr(1, i64)}
        hints = (gemm.B.name_hint or "weight", gemm.C.name_hint if gemm.C is not None and gemm.C.name_hint else "bias")
        x4 = cpu.ReshapeOp.build(operands=[dequantize.input],
                                 result_types=[TensorType(element_type_of(dequantize.input), (n, k, 1, 1))])
        x4.results[0].name_hint = f"{dequantize.input.name_hint or 'x'}_planes"
        # the recorded axis is B's: its output channels are B's rows when transposed, else its columns
        built = _qlinear_conv(x4.results[0], dequantize, op, weights, c, weight, 0 if trans_b else 1, None, properties,
                              hints)
        if built is None:
            x4.erase()
            return
        x4.attributes |= {key: value for key, value in gemm.attributes.items() if key != QUANTIZED_ATTR}
        rewriter.insert(x4, InsertPoint.before(gemm))
        constants, qconv = built
        qconv.location = fused_location([gemm.location, dequantize.location, op.location])
        qconv.attributes |= gemm.attributes
        qconv.results[0].name_hint = f"{op.output.name_hint or 'y'}_planes"
        back = cpu.ReshapeOp.build(operands=[qconv.results[0]], result_types=[op.output.type])
        back.attributes |= x4.attributes
        back.results[0].name_hint = op.output.name_hint
        rewriter.insert([*constants, qconv], InsertPoint.before(gemm))
        rewriter.replace(op, back)
        floats = [v.owner for v in (gemm.B, gemm.C) if v is not None]
        rewriter.erase(gemm)
        _erase_unused([dequantize, *floats], rewriter)


@dataclass(frozen=True)
class FuseHostQdqConvsPass(ModulePass):
    """Run each QDQ group DequantizeLinear -> Conv [-> Relu/Clip] -> QuantizeLinear, and each
    DequantizeLinear -> Gemm -> QuantizeLinear, on the host as one `cpu.qlinear_conv` (see the
    module docstring)."""

    name = "fuse-host-qdq-convs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier([DequantizeConvQuantizeToQLinearConv(),
                                                                   DequantizeGemmQuantizeToQLinearConv()],
                                                                  dce_enabled=False))
        for region in host_regions(op):
            walker.rewrite_region(region)
