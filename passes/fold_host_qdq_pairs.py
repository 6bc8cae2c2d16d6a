"""fold-host-qdq-pairs: a QDQ model's DequantizeLinear -> QuantizeLinear pairs between int8
kernels on the host folded into the integers, through the ops that only move values.

After `fuse-host-qdq-convs` the host runs a QDQ model's convs in int8, but the Concats and
MaxPools between them still run in float32 between Q/DQ kernels, and a DequantizeLinear
feeding a QuantizeLinear round-trips through float. onnxruntime's QDQ fusion runs those
groups on the integers (QLinearConcat, MaxPool of uint8), and so does this pass, exactly:

- `cpu.quantize(cpu.dequantize(x))` is the identity when the two have one scale and zero point
  and the same integer type (QuantizeLinear gives each value back), else a `cpu.rescale`
  (the same two roundings, one table lookup per element);
- `cpu.quantize(cpu.concat(cpu.dequantize(x_i), ...))` is `cpu.concat` of each x_i
  quantized so (a concat moves values, and a QuantizeLinear of one grid is elementwise), as
  onnxruntime's QLinearConcat copies an input of the output's grid and looks the others up;
- `cpu.quantize(cpu.pool max (cpu.dequantize(x)))` is the max pool of x quantized so:
  DequantizeLinear and QuantizeLinear never decrease, so the max of the rounded values is the
  rounded max (padding is skipped, as the float kernel skips it).

Each DequantizeLinear and QuantizeLinear must have one scale and one zero point, the integers
int8 or uint8, and the concat's or pool's float result no other reader. Runs after
`fuse-host-qdq-convs`; ops inside `mrvl.subgraph`s are not touched.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of
from mrvl_dialect.locations import fused_location
from mrvl.passes.lower_to_cpu import host_regions
from mrvl.passes.qdq_tensors import erase_if_unused, host_grid


def _rescaled_values(x_type, x_grid: tuple[np.float32, int], y_type, y_grid: tuple[np.float32, int]) -> np.ndarray:
    """QuantizeLinear(DequantizeLinear(v)) of every value v of `x_type`, in float32 as the two
    kernels compute it (halves to even, saturated to `y_type`)."""
    low, high = (0, 255) if x_type == cpu.UI8 else (-128, 127)
    y_low, y_high = (0, 255) if y_type == cpu.UI8 else (-128, 127)
    values = np.arange(low, high + 1)
    dequantized = (values.astype(np.float32) - np.float32(x_grid[1])) * x_grid[0]
    return np.clip(np.rint(dequantized / y_grid[0]) + y_grid[1], y_low, y_high)


def _requantized(dequantize: cpu.DequantizeOp, quantize: cpu.QuantizeOp, rewriter: PatternRewriter,
                 before: Operation) -> SSAValue | None:
    """`dequantize`'s integers quantized as `quantize` quantizes: themselves when that gives
    each value back, else a `cpu.rescale` inserted before `before`; None when either op has no
    single 8-bit grid."""
    x_grid, y_grid = host_grid(dequantize), host_grid(quantize)
    if x_grid is None or y_grid is None:
        return None
    x, x_type, y_type = dequantize.input, element_type_of(dequantize.input), element_type_of(quantize.output)
    low = 0 if x_type == cpu.UI8 else -128
    if x_type == y_type and np.array_equal(_rescaled_values(x_type, x_grid, y_type, y_grid), low + np.arange(256)):
        return x
    rescale = cpu.RescaleOp.build(
        operands=[x, dequantize.scale, dequantize.zero_point, quantize.scale, quantize.zero_point],
        result_types=[TensorType(y_type, cpu.shape_of(x))])
    rescale.location = fused_location([dequantize.location, quantize.location])
    rescale.results[0].name_hint = f"{x.name_hint or 'x'}_rescaled"
    rewriter.insert(rescale, InsertPoint.before(before))
    return rescale.results[0]


class DequantizeQuantizeToRescale(RewritePattern):
    """cpu.quantize(cpu.dequantize(x)) -> x or cpu.rescale(x), matched at the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp) or not isinstance(dequantize := op.input.owner, cpu.DequantizeOp):
            return
        value = _requantized(dequantize, op, rewriter, op)
        if value is None:
            return
        if value is not dequantize.input:
            value.name_hint = op.output.name_hint
        rewriter.replace(op, [], [value])
        erase_if_unused(dequantize, rewriter)


class QuantizeConcatToConcatOfQuantized(RewritePattern):
    """cpu.quantize(cpu.concat(cpu.dequantize(x_i), ...)) -> cpu.concat(x_i requantized, ...),
    matched at the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp) or not isinstance(concat := op.input.owner, cpu.ConcatOp):
            return
        dequantizes = [v.owner for v in concat.inputs]
        if (not concat.output.has_one_use() or concat.in_place is not None
                or not all(isinstance(d, cpu.DequantizeOp) for d in dequantizes)
                or any(host_grid(d) is None for d in dequantizes) or host_grid(op) is None):
            return
        inputs = [_requantized(d, op, rewriter, concat) for d in dequantizes]
        joined = cpu.ConcatOp.build(operands=[inputs], result_types=[op.output.type],
                                    properties={"axis": concat.axis})
        joined.location = fused_location([concat.location, op.location])
        joined.attributes |= concat.attributes
        joined.results[0].name_hint = op.output.name_hint
        rewriter.replace(op, joined)
        rewriter.erase(concat)
        for dequantize in dict.fromkeys(dequantizes):
            erase_if_unused(dequantize, rewriter)


class QuantizeMaxPoolToMaxPoolOfQuantized(RewritePattern):
    """cpu.quantize(cpu.pool max (cpu.dequantize(x))) -> cpu.pool max (x requantized), matched
    at the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp) or not isinstance(pool := op.input.owner, cpu.PoolOp):
            return
        dequantize = pool.input.owner
        if (pool.kind.data != cpu.PoolKind.MAX or pool.indices is not None or pool.channels_last is not None
                or not pool.output.has_one_use() or not isinstance(dequantize, cpu.DequantizeOp)
                or host_grid(dequantize) is None or host_grid(op) is None):
            return
        x = _requantized(dequantize, op, rewriter, pool)
        pooled = cpu.PoolOp.build(operands=[x], result_types=[op.output.type, None], properties=dict(pool.properties))
        pooled.location = fused_location([pool.location, dequantize.location, op.location])
        pooled.attributes |= pool.attributes
        pooled.results[0].name_hint = op.output.name_hint
        rewriter.replace(op, pooled, [pooled.output])
        rewriter.erase(pool)
        erase_if_unused(dequantize, rewriter)


@dataclass(frozen=True)
class FoldHostQdqPairsPass(ModulePass):
    """Run a QDQ model's DequantizeLinear -> [Concat | MaxPool ->] QuantizeLinear on the host
    on the integers (see the module docstring)."""

    name = "fold-host-qdq-pairs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier([
            QuantizeConcatToConcatOfQuantized(), QuantizeMaxPoolToMaxPoolOfQuantized(),
            DequantizeQuantizeToRescale()], dce_enabled=False))
        for region in host_regions(op):
            walker.rewrite_region(region)
