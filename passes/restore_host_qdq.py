"""restore-host-qdq: a QDQ model's QuantizeLinear -> DequantizeLinear pairs back where the
host reads a rounded tensor, and the end of the tensor-type state of `recognize-qdq`.

After `partition-mrvl`, every tensor whose type is `#mrvl.rounded` and that the host reads
(a graph input, a host op's result, an MLIP subgraph's output) gets its pair back, under
the model's node names, so host code rounds as the model does; between MLIP layers the
pairs stay gone. Then no type keeps its `#mrvl.rounded`: the ops that read or wrote those
tensors hold their `#mrvl.quantized` records, which `fuse-mrvl` carries onto the layers.

    %y = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (...) -> tensor<1x4x4x2xf32, #mrvl.rounded<#mrvl.qparams<i8, ...>, "y_q", "y_dq">>
becomes
    %y = cpu.call_mlip @tvmgen_mrvl_main_0(%x) : (...) -> tensor<1x4x4x2xf32>
    %q = graph.QuantizeLinear %y, %s, %z : (...) -> tensor<1x4x4x2xi8>      loc("y_q")
    %d = graph.DequantizeLinear %q, %s, %z : (...) -> tensor<1x4x4x2xf32>   loc("y_dq")
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import node_location
from mrvl_dialect.mrvl import RoundedAttr
from mrvl.passes.place_ops import place_alone
from mrvl.passes.qdq_tensors import end_rounding_state, rounding, scalar_constant


def restore_pair(value: SSAValue, at: InsertPoint, rounded: RoundedAttr) -> None:
    """QuantizeLinear -> DequantizeLinear on `value` at `at`, read by every other user."""
    assert isinstance(value.type, TensorType)
    users = list(value.uses)
    params, q_name, dq_name = rounded.params, rounded.quantize_node.data, rounded.dequantize_node.data
    scale = scalar_constant(params.scales()[0], f32, at, f"{q_name}.scale")
    zero = scalar_constant(params.zero_points()[0], params.dtype, at, f"{q_name}.zero_point")
    shape = value.type.get_shape()
    q = g.QuantizeLinearOp.create(operands=[value, scale, zero], result_types=[TensorType(params.dtype, shape)])
    dq = g.DequantizeLinearOp.create(operands=[q.results[0], scale, zero], result_types=[TensorType(f32, shape)])
    for new, name in ((q, q_name), (dq, dq_name)):
        new.location = node_location(name)
        place_alone(new)
    Rewriter.insert_op(q, at)
    Rewriter.insert_op(dq, InsertPoint.after(q))
    for use in users:
        use.operation.operands[use.index] = dq.results[0]


@dataclass(frozen=True)
class RestoreHostQdqPass(ModulePass):
    """Give every rounded tensor the host reads its Q/DQ pair back, and drop `#mrvl.rounded`
    from every type (module doc); runs after `partition-mrvl`."""

    name = "restore-host-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            block = function.body.block
            for arg in block.args:
                if (rounded := rounding(arg)) is not None:
                    restore_pair(arg, InsertPoint.at_start(block), rounded)
            for host_op in list(block.ops):
                if isinstance(host_op, ConstantOp):  # a folded weight: exact already
                    continue
                for result in host_op.results:
                    if (rounded := rounding(result)) is not None:
                        restore_pair(result, InsertPoint.after(host_op), rounded)
        end_rounding_state(op)
