"""cleanup-graph: remove exporter noise and compute what is constant.

- `Identity`, inference-mode `Dropout` and a `Cast` to the type it already has are their
  input;
- an op whose operands are all constants is evaluated now (ONNX's reference
  implementation) when its results are small enough to keep: weight transposes,
  reshapes and casts, and any shape computation the importer did not already fold.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import Pure

from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_base import OnnxOp
from mrvl_dialect.graph_ops_gen import CastOp, DropoutOp, IdentityOp
from mrvl_dialect.weights import WeightStore
from mrvl_dialect.graph_eval import NotEvaluable, evaluate
from mrvl.passes.patterns_by_op_class import MatchingOpsWalker, PatternsByOpClass
from mrvl_dialect.graph_queries import constant_op, constant_value, module_of, node_name

FOLD_MAX_ELEMENTS = 1 << 24
"""Folded results larger than this stay ops (they would be held in memory)."""


class IdentityIsItsInput(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IdentityOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.input])


class DropoutIsItsInput(RewritePattern):
    """At inference a Dropout passes its data through (when nothing reads its mask)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DropoutOp, rewriter: PatternRewriter) -> None:
        if op.mask is not None and op.mask.uses:
            return
        if op.training_mode is not None:
            training = constant_value(op.training_mode)
            if training is None or bool(training):
                return
        rewriter.replace(op, [], [op.data] + ([None] if op.mask is not None else []))


class CastToItsOwnTypeIsItsInput(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        if op.input.type == op.output.type:
            rewriter.replace(op, [], [op.input])


class ConstantOperandsFold(RewritePattern):
    """An op of constants is evaluated now."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.operands or any(constant_op(v) is None for v in op.operands):
            return
        if not isinstance(op, OnnxOp) or not op.has_trait(Pure) or op.regions:
            return
        module = module_of(op)
        values = [constant_value(v, module) for v in op.operands]
        if module is None or any(v is None for v in values):
            return
        if any(not isinstance(r.type, TensorType) or r.type.element_count() > FOLD_MAX_ELEMENTS for r in op.results):
            return
        try:
            results = evaluate(op, values)
        except NotEvaluable:
            return
        replacements = []
        for result, array in zip(op.results, results):
            name = result.name_hint or node_name(op) or "folded"
            array = np.asarray(array, BY_XDSL[result.type.element_type].numpy)
            folded = ConstantOp(WeightStore.of(module).constant_attr(name, array, result.type))
            folded.location = op.location
            replacements.append(folded)
        rewriter.replace(op, replacements, [c.output for c in replacements])


@dataclass(frozen=True)
class CleanupGraphPass(ModulePass):
    """Drop Identity/Dropout/no-op Cast and fold constant computations."""

    name = "cleanup-graph"

    fold_constants: bool = True
    """False keeps computations on constants as ops."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[tuple[tuple[type[Operation], ...], RewritePattern]] = [
            ((IdentityOp,), IdentityIsItsInput()), ((DropoutOp,), DropoutIsItsInput()),
            ((CastOp,), CastToItsOwnTypeIsItsInput())]
        if self.fold_constants:
            patterns.append(((OnnxOp,), ConstantOperandsFold()))
        MatchingOpsWalker(PatternsByOpClass(patterns)).rewrite_module(op)
