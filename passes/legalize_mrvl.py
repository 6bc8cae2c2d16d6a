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
- `leaky-relu-as-depthwise`: `LeakyRelu(u, a)` with `0 <= a < 1` after a conv is
  `relu((1 - a) u) + a u`: two 1x1 depthwise convs of u (weights 1 - a with a Relu, and a)
  and their sum. Exact: for u >= 0 it is u, below a u.

A rewrite is undone when the cost model (`mrvl_dialect/cost_model.py`; options
`target_file`, `host_profile`) finds its layers slower on MLIP than what they save: the op
on the host, the transfers of its input and output and the extra call its region would be
split into.

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
from mrvl_dialect.cost_model import CostModel, MlipWork, elements, host_work, mlip_work
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


def _float4(value: SSAValue) -> bool:
    dims = shape(value)
    return dims is not None and len(dims) == 4 and isinstance(value.type, TensorType) and value.type.element_type == f32


def _clip_applies(clip: Operation) -> bool:
    assert isinstance(clip, g.ClipOp)
    low, high = _scalar(clip.min), _scalar(clip.max)
    return _float4(clip.input) and low == 0 and high is not None and high > 0 and _after_mlip_conv(clip.input)


class _Builder:
    """Inserts the ops that replace `op` before it, each named after it, and its constants."""

    def __init__(self, op: Operation, op_type: str, module: ModuleOp):
        self.op, self.op_type, self.store = op, op_type, WeightStore.of(module)
        self.name = location_name(op.location) or op_type.lower()

    def insert(self, new: Operation) -> SSAValue:
        new.location = node_location(self.name, self.op_type)
        Rewriter.insert_op(new, InsertPoint.before(self.op))
        return new.results[0]

    def constant(self, suffix: str, array: np.ndarray) -> SSAValue:
        handle = self.store.add(f"{self.name}.{suffix}", np.ascontiguousarray(array, np.float32))
        return self.insert(ConstantOp(DenseResourceAttr.from_params(handle, TensorType(f32, array.shape))))

    def depthwise(self, x: SSAValue, weight: SSAValue, bias: SSAValue | None = None) -> SSAValue:
        """A 1x1 depthwise conv: each channel times its weight, plus its bias."""
        assert isinstance(x.type, TensorType)
        channels = x.type.get_shape()[1]
        return self.insert(g.ConvOp.create(
            operands=[x, weight, *([bias] if bias is not None else [])], result_types=[x.type],
            properties={"group": IntegerAttr(channels, i64), "kernel_shape": DenseArrayBase.from_list(i64, [1, 1])}))

    def relu(self, x: SSAValue) -> SSAValue:
        return self.insert(g.ReluOp.create(operands=[x], result_types=[x.type]))

    def replace(self, result: SSAValue) -> None:
        self.op.results[0].replace_all_uses_with(result)
        Rewriter.erase_op(self.op)


def _clip_rewrite(clip: Operation, module: ModuleOp) -> None:
    assert isinstance(clip, g.ClipOp)
    b = _Builder(clip, "Clip", module)
    channels = shape(clip.input)[1]
    weight = b.constant("negate", np.full((channels, 1, 1, 1), -1, np.float32))
    bias = b.constant("bound", np.full(channels, _scalar(clip.max), np.float32))
    b.replace(b.depthwise(b.relu(b.depthwise(b.relu(clip.input), weight, bias)), weight, bias))


def _leaky_relu_applies(op: Operation) -> bool:
    assert isinstance(op, g.LeakyReluOp)
    return _float4(op.X) and 0 <= op.alpha.value.data < 1 and _after_mlip_conv(op.X)


def _leaky_relu_rewrite(op: Operation, module: ModuleOp) -> None:
    assert isinstance(op, g.LeakyReluOp)
    b = _Builder(op, "LeakyRelu", module)
    channels, alpha = shape(op.X)[1], op.alpha.value.data
    positive = b.constant("positive", np.full((channels, 1, 1, 1), 1 - alpha, np.float32))
    slope = b.constant("slope", np.full((channels, 1, 1, 1), alpha, np.float32))
    scaled = b.relu(b.depthwise(op.X, positive))
    b.replace(b.insert(g.AddOp.create(operands=[scaled, b.depthwise(op.X, slope)], result_types=[op.X.type])))


LEGALIZATIONS: tuple[Legalization, ...] = (
    Legalization("clip-as-depthwise", "Clip(0, c) after a conv: two 1x1 depthwise `mrvl.conv2d`", g.ClipOp,
                 _clip_applies, _clip_rewrite),
    Legalization("leaky-relu-as-depthwise", "after a conv: two 1x1 depthwise `mrvl.conv2d` and a `mrvl.sum`",
                 g.LeakyReluOp, _leaky_relu_applies, _leaky_relu_rewrite),
)


@dataclass(frozen=True)
class LegalizeMrvlPass(ModulePass):
    """Rewrite the ops of `LEGALIZATIONS` into MLIP layers where they join an MLIP region,
    unless the cost model finds the layers slower than what they save (`_undo_if_costly`)."""

    name = "legalize-mrvl"

    target_file: str = ""
    """A target description for the cost model (`mrvl_dialect/cost_model.py`); the defaults without."""
    host_profile: str = ""
    """A profile from `mrvl-run --profile --profile-out` calibrating the host's rates."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        model = CostModel.load(self.target_file, self.host_profile)
        for legalization in LEGALIZATIONS:
            for candidate in [o for o in op.walk() if isinstance(o, legalization.op)]:
                if legalization.applies(candidate):
                    kept, after, original = candidate.prev_op, candidate.next_op, candidate.clone()
                    legalization.rewrite(candidate, op)
                    _undo_if_costly(original, kept, after, model)


def _undo_if_costly(original: Operation, kept: Operation | None, after: Operation | None, model: CostModel) -> None:
    """Put `original` back in place of the ops its rewrite inserted after `kept` (before
    `after`) when those layers take MLIP longer than what they save: the op on the host, the
    transfers of its input and output, and the extra call its region would be split into."""
    block = (after or kept).parent
    assert block is not None
    first = kept.next_op if kept is not None else block.first_op
    new = []
    while first is not None and first is not after:
        new.append(first)
        first = first.next_op
    layers = [o for o in new if not isinstance(o, ConstantOp)]
    weights = [o.results[0] for o in new if isinstance(o, ConstantOp)]
    cost = model.mlip_estimate(mlip_work(layers, (), (), weights), model.mlip.tiles).compute_s
    round_trip = MlipWork(io_elements=elements(original.operands[0]) + elements(original.results[0]))
    saved = (model.host_seconds(host_work(original))
             + model.mlip_estimate(round_trip, model.mlip.tiles).io_s + model.mlip.call_overhead_s)
    if cost <= saved:
        original.erase()
        return
    Rewriter.insert_op(original, InsertPoint.before(after) if after is not None else InsertPoint.at_end(block))
    new[-1].results[0].replace_all_uses_with(original.results[0])
    for o in reversed(new):
        Rewriter.erase_op(o)
