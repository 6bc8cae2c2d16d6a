"""convert-layout: settle the NCHW <-> NHWC transposes that fuse-mrvl left around layers.

- Equal transposes of one value merge (common subexpression elimination);
- Transposes of transposes compose (and vanish when they cancel out);
- transposes of constants are done now, into the weight store;
- inside a `mrvl.subgraph`, an NCHW -> NHWC transpose of an input becomes an MLIP
  `mrvl.layout_transform` (as TVM's flow ran it);
- an NHWC -> NCHW transpose of a subgraph output moves to the host, after the
  `cpu.call_mlip` (MLIP has no NHWC -> NCHW layer): the subgraph then returns NHWC.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DenseResourceAttr, FunctionType, ModuleOp, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from mrvl_dialect import mrvl
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_ops_gen import TransposeOp
from mrvl_dialect.weights import WeightStore
from passes.fuse_mrvl import TO_NCHW, TO_NHWC
from passes.graph_queries import constant_value, module_of


def _perm(op: TransposeOp) -> tuple[int, ...]:
    rank = len(op.data.type.get_shape())
    return tuple(op.perm.get_values()) if op.perm is not None else tuple(reversed(range(rank)))


def transpose(value: SSAValue, perm: tuple[int, ...]) -> TransposeOp:
    source = value.type
    assert isinstance(source, TensorType)
    dims = source.get_shape()
    return TransposeOp.create(
        operands=[value],
        result_types=[TensorType(source.element_type, [dims[p] for p in perm])],
        properties={"perm": DenseArrayBase.from_list(i64, perm)},
    )


class TransposesCompose(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, p[q]), or x when that is the identity."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.data.owner
        if not isinstance(inner, TransposeOp):
            return
        outer_perm, inner_perm = _perm(op), _perm(inner)
        composed = tuple(inner_perm[q] for q in outer_perm)
        if composed == tuple(range(len(composed))):
            rewriter.replace(op, [], [inner.data])
        else:
            rewriter.replace(op, transpose(inner.data, composed))


class TransposeOfConstantFolds(RewritePattern):
    """transpose(constant) -> a transposed constant, computed now."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        array = constant_value(op.data)
        module = module_of(op)
        if array is None or module is None:
            return
        source = op.data.owner
        assert isinstance(source, ConstantOp)
        name = f"{source.value.resource_handle.data if isinstance(source.value, DenseResourceAttr) else 'constant'}.t"
        result = np.ascontiguousarray(np.transpose(array, _perm(op)))
        handle = WeightStore.of(module).add(name, result)
        result_type = op.transposed.type
        rewriter.replace(op, ConstantOp(DenseResourceAttr.from_params(handle, result_type)))


class InputTransposeIsLayoutTransform(RewritePattern):
    """In a subgraph, NCHW -> NHWC of an input runs on MLIP as a layout_transform layer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.parent_op(), mrvl.SubgraphOp) or _perm(op) != TO_NHWC:
            return
        if op.data.owner is not op.parent_block():  # only block arguments: subgraph inputs
            return
        layer = mrvl.LayoutTransformOp.create(operands=[op.data], result_types=[op.transposed.type])
        layer.location = op.location
        rewriter.replace(op, layer)


def move_output_transposes_to_host(module: ModuleOp) -> None:
    """Subgraph outputs produced by NHWC -> NCHW transposes are returned NHWC instead, and
    the transposes run on the host after every call of the subgraph."""
    calls: dict[str, list[Operation]] = {}
    for op in module.walk():
        if op.name == "cpu.call_mlip":
            calls.setdefault(op.properties["callee"].root_reference.data, []).append(op)
    for subgraph in [op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)]:
        yield_op = subgraph.body.block.last_op
        assert isinstance(yield_op, mrvl.YieldOp)
        moved: dict[int, tuple[int, ...]] = {}
        for i, value in enumerate(yield_op.values):
            producer = value.owner
            if isinstance(producer, TransposeOp) and _perm(producer) == TO_NCHW:
                yield_op.operands[i] = producer.data
                moved[i] = TO_NCHW
                if not producer.transposed.uses:
                    Rewriter.erase_op(producer)
        if not moved:
            continue
        outputs = [v.type for v in yield_op.values]
        subgraph.properties["function_type"] = FunctionType.from_lists(
            subgraph.function_type.inputs.data, outputs
        )
        for call in calls.get(subgraph.sym_name.data, []):
            _retarget_call(call, outputs, moved)


def _retarget_call(call: Operation, outputs: list, moved: dict[int, tuple[int, ...]]) -> None:
    new_call = type(call).create(
        operands=call.operands, result_types=outputs, properties=dict(call.properties),
        attributes=dict(call.attributes),
    )
    new_call.location = call.location
    Rewriter.insert_op(new_call, InsertPoint.before(call))
    last: Operation = new_call
    for i, old in enumerate(call.results):
        new = new_call.results[i]
        if i in moved:
            back = transpose(new, moved[i])
            Rewriter.insert_op(back, InsertPoint.after(last))
            last = back
            new = back.transposed
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    Rewriter.erase_op(call)


@dataclass(frozen=True)
class ConvertLayoutPass(ModulePass):
    """Cancel, fold and place the layout transposes around MLIP layers (module docstring)."""

    name = "convert-layout"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # fuse-mrvl transposes a value once per layer that reads it: one is enough.
        CommonSubexpressionElimination().apply(ctx, op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [TransposesCompose(), TransposeOfConstantFolds(), InputTransposeIsLayoutTransform()]
            )
        ).rewrite_module(op)
        move_output_transposes_to_host(op)
        PatternRewriteWalker(TransposesCompose()).rewrite_module(op)
