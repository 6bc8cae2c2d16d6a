"""fuse-host-qdq-softmaxes: a QDQ model's DequantizeLinear -> Softmax -> QuantizeLinear on the
host as one `cpu.qlinear_softmax`, computed as onnxruntime computes it.

onnxruntime's QDQ fusion runs that group as its QLinearSoftmax, whose arithmetic is not the
float Softmax's: a table of 256 exponentials, a float32 sum and a division by it (see
`cpu.qlinear_softmax`). The float group rounds a value to the other side of a half step now
and then, and in an int8 transformer that one step of an attention weight grows through the
layers after it to many steps of the output. So this pass, after `fuse-host-qdq-convs`, runs
the group in onnxruntime's arithmetic: both sides one scale and zero point, of one 8-bit type.
The DequantizeLinear stays while something else reads it. Ops inside `mrvl.subgraph`s are not
touched.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of
from mrvl_dialect.locations import fused_location
from mrvl.passes.lower_to_cpu import host_regions
from mrvl.passes.qdq_tensors import erase_if_unused, host_grid


class QuantizeSoftmaxToQLinearSoftmax(RewritePattern):
    """cpu.quantize(cpu.softmax(cpu.dequantize(x))) -> cpu.qlinear_softmax(x), matched at the
    QuantizeLinear."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.QuantizeOp) or not isinstance(softmax := op.input.owner, cpu.SoftmaxOp):
            return
        dequantize = softmax.input.owner
        if (softmax.log is not None or not softmax.output.has_one_use() or not isinstance(dequantize, cpu.DequantizeOp)
                or host_grid(dequantize) is None or host_grid(op) is None
                or element_type_of(dequantize.input) != element_type_of(op.output)):
            return
        fused = cpu.QLinearSoftmaxOp.build(operands=[dequantize.input, dequantize.scale, op.scale, op.zero_point],
                                           result_types=[op.output.type], properties={"axis": softmax.axis})
        fused.location = fused_location([softmax.location, dequantize.location, op.location])
        fused.results[0].name_hint = op.output.name_hint
        rewriter.replace(op, fused)
        rewriter.erase(softmax)
        erase_if_unused(dequantize, rewriter)


@dataclass(frozen=True)
class FuseHostQdqSoftmaxesPass(ModulePass):
    """Run a QDQ model's DequantizeLinear -> Softmax -> QuantizeLinear on the host as
    onnxruntime's QLinearSoftmax computes it (see the module docstring)."""

    name = "fuse-host-qdq-softmaxes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(QuantizeSoftmaxToQLinearSoftmax(), apply_recursively=False)
        for region in host_regions(op):
            walker.rewrite_region(region)
