"""fuse-host-qdq-adds: a QDQ model's quantized Add on the host as one int8 kernel.

After `lower-to-cpu` a residual Add that a QDQ model quantized (or a QOperator model's
QLinearAdd, imported as its QDQ twin) runs on the host as float32 between Q/DQ kernels:

    cpu.quantize(cpu.binary add(cpu.dequantize(aq, sa, za), cpu.dequantize(bq, sb, zb)), sy, zy)

onnxruntime's QDQ fusion runs the group as QLinearAdd, and so does this pass:

    cpu.qlinear_add(aq, sa, za, bq, sb, zb, sy, zy)

computing what onnxruntime's kernel computes (see `cpu.QLinearAddOp`), which can round a
value to the other neighbour of the float group's result: the same difference as between
onnxruntime's fused and node-by-node runs.

A group is taken when aq, bq and the result are int8, or all uint8, of one shape (no
broadcast), every scale and zero point one value, and the sum read only by the
QuantizeLinear; the Add's first operand is QLinearAdd's A. Runs after `lower-to-cpu`, before
`fuse-elementwise`; ops inside `mrvl.subgraph`s are not touched.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of, shape_of
from mrvl_dialect.locations import fused_location
from mrvl.passes.lower_to_cpu import host_regions
from mrvl.passes.qdq_tensors import erase_if_unused, host_grid


class DequantizeAddQuantizeToQLinearAdd(RewritePattern):
    """cpu.quantize(cpu.binary add(cpu.dequantize(aq), cpu.dequantize(bq))) -> cpu.qlinear_add
    (see the module docstring), matched at the QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp) or not isinstance(add := op.input.owner, cpu.BinaryOp):
            return
        a, b = add.lhs.owner, add.rhs.owner
        element, shape = element_type_of(op.output), shape_of(op.output)
        if (add.kind.data != cpu.BinaryKind.ADD or not add.result.has_one_use()
                or not isinstance(a, cpu.DequantizeOp) or not isinstance(b, cpu.DequantizeOp)
                or element not in cpu.INTEGER_PRODUCT_TYPES
                or any(element_type_of(d.input) != element or shape_of(d.input) != shape for d in (a, b))
                or any(host_grid(q) is None for q in (a, b, op))):
            return
        qadd = cpu.QLinearAddOp.build(
            operands=[a.input, a.scale, a.zero_point, b.input, b.scale, b.zero_point, op.scale, op.zero_point],
            result_types=[op.output.type])
        # The Add first: the kernel's C function and reports are named after it.
        qadd.location = fused_location([add.location, a.location, b.location, op.location])
        qadd.attributes |= add.attributes
        qadd.results[0].name_hint = op.output.name_hint
        rewriter.replace(op, qadd)
        rewriter.erase(add)
        for dequantize in dict.fromkeys((a, b)):
            erase_if_unused(dequantize, rewriter)


@dataclass(frozen=True)
class FuseHostQdqAddsPass(ModulePass):
    """Run each QDQ group DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear on
    the host as one `cpu.qlinear_add` (see the module docstring)."""

    name = "fuse-host-qdq-adds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(DequantizeAddQuantizeToQLinearAdd(), apply_recursively=False)
        for region in host_regions(op):
            walker.rewrite_region(region)
