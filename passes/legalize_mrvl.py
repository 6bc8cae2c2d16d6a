"""legalize-mrvl: ops MLIP has no layer for, rewritten exactly into ops it has.

Arm's Vela rewrites operators Ethos-U lacks into ones it has; this pass does the same for
MLIP's layer vocabulary (TVM's JSON layers: no new layer kinds). Each rewrite is one named
entry of `LEGALIZATIONS`; it applies only where the op joins an MLIP region, so an op that
would stay alone on the host is left as it is (the rewrite costs layers and saves a host
round trip only between MLIP layers). The ops it builds carry the legalised node's name and
operator type in their location (`loc("relu6"("Clip"))`), so reports and the placement
file still name that one node.

- `clip-as-depthwise`: `Clip(u, 0, c)` with `c > 0` after a conv is `c - relu(c - relu(u))`:
  the inner Relu fuses into the conv before it, then two 1x1 depthwise convs, weights -1 and
  bias c, the first with a Relu. Exact: for u < 0 both give 0, in [0, c] u, above c c.

Runs before place-ops in `mrvl-pipeline` (its `legalize` option turns it off); the rules
that decide placement see only layers MLIP has.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DenseResourceAttr, IntegerAttr, ModuleOp, TensorType, f32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, shape
from mrvl_dialect.locations import location_name, node_location
from mrvl_dialect.weights import WeightStore
from mrvl.passes.mlip_rules import failed_rules


@dataclass(frozen=True)
class Legalization:
    id: str
    """Stable: tests and reports refer to it."""
    text: str
    """What it becomes and where, as docs/supported-ops.md says it."""
    op: type[Operation]
    applies: Callable[[Operation], bool]
    rewrite: Callable[[Operation, ModuleOp], None]


def _scalar(value: SSAValue | None) -> float | None:
    array = constant_value(value) if value is not None else None
    return float(array) if array is not None and array.size == 1 else None


def _after_mlip_conv(value: SSAValue) -> bool:
    """Whether `value` comes from a conv MLIP can run (possibly through the BatchNormalization
    it fuses) and nothing else reads it, so a Relu after it fuses into that layer."""
    if value.uses.get_length() != 1:
        return False
    producer = value.owner
    if isinstance(producer, g.BatchNormalizationOp):
        if producer.results[0].uses.get_length() != 1 or producer.operands[0].uses.get_length() != 1:
            return False
        producer = producer.operands[0].owner
    return isinstance(producer, g.ConvOp) and not failed_rules(producer)


def _clip_applies(clip: Operation) -> bool:
    assert isinstance(clip, g.ClipOp)
    dims = shape(clip.input)
    low, high = _scalar(clip.min), _scalar(clip.max)
    return (dims is not None and len(dims) == 4 and isinstance(clip.input.type, TensorType)
            and clip.input.type.element_type == f32 and low == 0 and high is not None and high > 0
            and _after_mlip_conv(clip.input))


def _clip_rewrite(clip: Operation, module: ModuleOp) -> None:
    assert isinstance(clip, g.ClipOp)
    channels = shape(clip.input)[1]
    high = _scalar(clip.max)
    name = location_name(clip.location) or "clip"
    store = WeightStore.of(module)

    def insert(op: Operation) -> SSAValue:
        op.location = node_location(name, "Clip")
        Rewriter.insert_op(op, InsertPoint.before(clip))
        return op.results[0]

    def constant(suffix: str, array: np.ndarray) -> SSAValue:
        handle = store.add(f"{name}.{suffix}", np.ascontiguousarray(array, np.float32))
        return insert(ConstantOp(DenseResourceAttr.from_params(handle, TensorType(f32, array.shape))))

    weight = constant("negate", np.full((channels, 1, 1, 1), -1, np.float32))
    bias = constant("bound", np.full(channels, high, np.float32))
    tensor = clip.input.type

    def depthwise(x: SSAValue) -> SSAValue:
        return insert(g.ConvOp.create(
            operands=[x, weight, bias], result_types=[tensor],
            properties={"group": IntegerAttr(channels, i64), "kernel_shape": DenseArrayBase.from_list(i64, [1, 1])}))

    def relu(x: SSAValue) -> SSAValue:
        return insert(g.ReluOp.create(operands=[x], result_types=[tensor]))

    result = depthwise(relu(depthwise(relu(clip.input))))
    clip.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(clip)


LEGALIZATIONS: tuple[Legalization, ...] = (
    Legalization("clip-as-depthwise", "Clip(0, c) after a conv: two 1x1 depthwise `mrvl.conv2d`", g.ClipOp,
                 _clip_applies, _clip_rewrite),
)


@dataclass(frozen=True)
class LegalizeMrvlPass(ModulePass):
    """Rewrite the ops of `LEGALIZATIONS` into MLIP layers where they join an MLIP region."""

    name = "legalize-mrvl"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for legalization in LEGALIZATIONS:
            for candidate in [o for o in op.walk() if isinstance(o, legalization.op)]:
                if legalization.applies(candidate):
                    legalization.rewrite(candidate, op)
