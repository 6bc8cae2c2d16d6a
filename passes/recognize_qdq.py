"""QDQ models (onnxruntime's `quantize_static` in QDQ format): their quantization recognised,
so that MLIP sees the float graph it runs and the host keeps the model's rounding.

Three passes, in `mrvl-pipeline`'s order:

- `recognize-qdq` (first): the patterns of `QDQ_PATTERNS`, in order.
  `fold-weight-dequantize`: a DequantizeLinear of a constant integer tensor (a weight or a
  bias) is computed now, exactly as ONNX's reference does, into a float constant.
  `absorb-fake-quantize`: a QuantizeLinear whose every user is a DequantizeLinear with the
  same per-tensor scale and zero point is a rounding of a float tensor to the int8 grid;
  the pair goes (its users read the float tensor) and the tensor's producer (the function,
  for a graph input) records it. A grid starting at zero (uint8, zero point 0) also clamps
  what it rounds: unless the tensor is nonnegative anyway, a Clip to the grid's range stays.
  Then every op next to a recorded tensor records, as a `#mrvl.quantized`
  (`mrvl.quantized`), how its input, weight and output were quantized.
  Placement and fusion so see the float model; with the target option `quantize=int8` the
  rule `quant.int8` (`mlip_rules`) keeps an op whose record is not symmetric int8 on the host.
- `restore-host-qdq` (after `partition-mrvl`): every recorded tensor the host reads (a
  graph input, a host op's result, an accelerator subgraph's output) gets its
  QuantizeLinear -> DequantizeLinear back, so host code rounds as the model does; between
  MLIP layers the pairs stay gone. Each subgraph keeps its ops' records by ONNX node.
- `annotate-quantized-layers` (after `convert-layout`): each MLIP layer gets the record of
  the nodes fused into it: the input of the first, the weight, the output of the last.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    f32,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect.cpu import CallMlipOp, element_type_of
from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_op, constant_value, node_name
from mrvl_dialect.locations import location_nodes, node_location
from mrvl_dialect.mrvl import (
    PLACE_ATTR,
    QUANTIZED_ATTR,
    REASONS_ATTR,
    QuantizedAttr,
    QuantParamsAttr,
    SubgraphOp,
)
from mrvl_dialect.weights import WeightStore

FAKE_QUANT_ATTR = "mrvl.fake_quant"
"""On an op (one entry per result) or a function argument: the QuantizeLinear ->
DequantizeLinear pair `absorb-fake-quantize` took off that tensor, as [params, Q node name,
DQ node name], or none."""
NODES_ATTR = "mrvl.quantized_nodes"
"""On a subgraph between `restore-host-qdq` and `annotate-quantized-layers`: its ops'
records by ONNX node name."""


# --- Reading Q/DQ operands ------------------------------------------------------------


def quant_params(op: g.QuantizeLinearOp | g.DequantizeLinearOp, integer: SSAValue) -> QuantParamsAttr | None:
    """The scale and zero point of `op` as recorded params; None when they are not constants
    or the quantization is blocked."""
    scale_value = op.operands[1]
    zero_value = op.operands[2] if len(op.operands) > 2 else None
    scale = constant_value(scale_value)
    zero = constant_value(zero_value) if zero_value is not None else np.zeros(1, np.int64)
    if scale is None or zero is None or op.block_size.value.data:
        return None
    assert isinstance(integer.type, TensorType) and isinstance(integer.type.element_type, IntegerType)
    rank = len(integer.type.get_shape())
    axis = op.axis.value.data % rank if scale.size > 1 else 0
    return QuantParamsAttr.of(integer.type.element_type, scale.reshape(-1).tolist(),
                              np.broadcast_to(zero.reshape(-1), scale.reshape(-1).shape).tolist(), axis)


def dequantized(op: g.DequantizeLinearOp, x: np.ndarray) -> np.ndarray:
    """DequantizeLinear of the constant `x`: (x - zero point) * scale in float32, each
    converted to float32 first, as ONNX's reference computes it."""
    scale = np.asarray(constant_value(op.x_scale), np.float32)
    zero = constant_value(op.x_zero_point) if op.x_zero_point is not None else np.zeros((), x.dtype)
    zero = np.asarray(zero).astype(np.float32)
    if scale.size > 1 or op.block_size.value.data:
        axis = op.axis.value.data % x.ndim
        if op.block_size.value.data:
            scale = np.repeat(scale, op.block_size.value.data, axis)[(slice(None),) * axis + (slice(0, x.shape[axis]),)]
            zero = np.repeat(zero, op.block_size.value.data, axis)[(slice(None),) * axis + (slice(0, x.shape[axis]),)]
        else:
            shape = [1] * x.ndim
            shape[axis] = -1
            scale, zero = scale.reshape(shape), zero.reshape(shape)
    return ((x.astype(np.float32) - zero) * scale).astype(np.float32)


# --- Where a tensor's record lives ----------------------------------------------------


def _entries(value: SSAValue) -> tuple[Operation | None, list[Attribute]]:
    """The op or function holding `value`'s record and its entries (one per result/argument)."""
    if isinstance(value, OpResult):
        holder = value.op
        count = len(holder.results)
        current = holder.attributes.get(FAKE_QUANT_ATTR)
    else:
        assert isinstance(value, BlockArgument)
        holder = value.block.parent_op()
        if not isinstance(holder, func.FuncOp):
            return None, []
        count = len(value.block.args)
        current = holder.attributes.get(FAKE_QUANT_ATTR)
    entries = list(current.data) if isinstance(current, ArrayAttr) else [NoneAttr()] * count
    return holder, entries


def record(value: SSAValue) -> tuple[QuantParamsAttr, str, str] | None:
    """The pair recorded on `value`: params, Q node name, DQ node name."""
    holder, entries = _entries(value)
    if holder is None or not entries:
        return None
    entry = entries[value.index]
    if not isinstance(entry, ArrayAttr):
        return None
    params, q, dq = entry.data
    assert isinstance(params, QuantParamsAttr) and isinstance(q, StringAttr) and isinstance(dq, StringAttr)
    return params, q.data, dq.data


def set_record(value: SSAValue, params: QuantParamsAttr | None, q: str = "", dq: str = "") -> bool:
    holder, entries = _entries(value)
    if holder is None:
        return False
    entries[value.index] = ArrayAttr([params, StringAttr(q), StringAttr(dq)]) if params is not None else NoneAttr()
    if all(isinstance(e, NoneAttr) for e in entries):
        holder.attributes.pop(FAKE_QUANT_ATTR, None)
    else:
        holder.attributes[FAKE_QUANT_ATTR] = ArrayAttr(entries)
    return True


def weight_params(value: SSAValue) -> QuantParamsAttr | None:
    """How a folded weight was quantized (None: not a folded weight)."""
    recorded = record(value) if constant_op(value) is not None else None
    return recorded[0] if recorded else None


# --- recognize-qdq --------------------------------------------------------------------


@dataclass(frozen=True)
class QdqPattern:
    """One rewrite of `recognize-qdq`: a name (tests and docs), what it does, and the
    function applying it to one op (True when it rewrote)."""

    name: str
    text: str
    apply: Callable[[Operation, WeightStore], bool]


def fold_weight_dequantize(op: Operation, store: WeightStore) -> bool:
    if not isinstance(op, g.DequantizeLinearOp) or not _whole_bytes_integer(op.x) or element_type_of(op.y) != f32:
        return False
    x = constant_value(op.x)
    operands = [op.x_scale] + ([op.x_zero_point] if op.x_zero_point is not None else [])
    if x is None or any(constant_value(v) is None for v in operands):
        return False
    params = quant_params(op, op.x)
    array = dequantized(op, np.asarray(x))
    assert isinstance(op.y.type, TensorType)
    name = op.y.name_hint or node_name(op)
    constant = ConstantOp(store.constant_attr(name, array, op.y.type))
    constant.location = op.location
    constant.results[0].name_hint = op.y.name_hint
    Rewriter.replace_op(op, constant)
    if params is not None:
        set_record(constant.results[0], params, "", node_name(op))
    return True


def _whole_bytes_integer(value: SSAValue) -> bool:
    """An integer tensor of 8 bits or more (int4 and the float8s are not folded)."""
    element = value.type.element_type if isinstance(value.type, TensorType) else None
    return isinstance(element, IntegerType) and element.width.data >= 8


def absorb_fake_quantize(op: Operation, store: WeightStore) -> bool:
    # Only in a function's own body: restore-host-qdq puts pairs back there, not in If bodies.
    if not isinstance(op, g.QuantizeLinearOp) or not op.y.uses or not isinstance(op.parent_op(), func.FuncOp):
        return False
    if not _whole_bytes_integer(op.y) or not op.x.has_one_use():
        # Another reader of the float tensor (a graph output, a second QuantizeLinear of
        # other scales) reads it unrounded: restore-host-qdq could not tell it apart.
        return False
    params = quant_params(op, op.y)
    users = [use.operation for use in op.y.uses]
    if params is None or len(params.scales()) != 1 or element_type_of(op.x) != f32:
        return False
    for user in users:
        if not isinstance(user, g.DequantizeLinearOp) or user.x is not op.y or quant_params(user, user.x) != params:
            return False
    low, high = params.bounds()
    points = set(params.zero_points())
    if points == {high}:
        return False  # the grid ends at zero: a clamp to x <= 0 that no layer stands for
    rounded: SSAValue = op.x
    if points == {low} and not nonnegative(op.x):
        # The grid starts at zero: the pair also clamps to [0, its largest value], standing
        # for a Relu or Clip(0, 6) the quantizer dropped (uint8 after a Relu or ReLU6); the
        # clamp comes back as a Clip (a ReLU6 legalize-mrvl turns into MLIP layers).
        at = InsertPoint.before(op)
        bounds = [_scalar_constant(v, f32, at, f"{node_name(op)}.{k}")
                  for k, v in (("min", 0.0), ("max", (high - low) * params.scales()[0]))]
        clip = g.ClipOp.build(operands=[op.x, [bounds[0]], [bounds[1]]], result_types=[op.x.type])
        clip.location = node_location(node_name(op), "Clip")
        Rewriter.insert_op(clip, at)
        rounded = clip.results[0]
    if not set_record(rounded, params, node_name(op), node_name(users[0])):
        return False
    for user in users:
        user.y.replace_all_uses_with(rounded)
        Rewriter.erase_op(user)
    Rewriter.erase_op(op)
    return True


NONNEGATIVE_THROUGH = (g.MaxPoolOp, g.AveragePoolOp, g.GlobalAveragePoolOp, g.GlobalMaxPoolOp, g.ReshapeOp,
                       g.FlattenOp, g.SqueezeOp, g.UnsqueezeOp, g.TransposeOp)
"""Ops whose output is nonnegative where their (first) input is."""


def nonnegative(value: SSAValue) -> bool:
    """Whether `value` cannot be negative: a Relu's, a grid starting at zero's (recorded),
    or that passed through `NONNEGATIVE_THROUGH`."""
    recorded = record(value)
    if recorded is not None and set(recorded[0].zero_points()) == {recorded[0].bounds()[0]}:
        return True
    owner = value.owner
    if isinstance(owner, g.ReluOp):
        return True
    return isinstance(owner, NONNEGATIVE_THROUGH) and nonnegative(owner.operands[0])


QDQ_PATTERNS: tuple[QdqPattern, ...] = (
    QdqPattern("fold-weight-dequantize",
               "A DequantizeLinear of a constant integer tensor becomes the float constant it computes.",
               fold_weight_dequantize),
    QdqPattern("absorb-fake-quantize",
               "A QuantizeLinear read only by DequantizeLinears of its own scale and zero point goes; "
               "the tensor it rounded records the pair.",
               absorb_fake_quantize),
)


def quantized_record(op: Operation) -> QuantizedAttr | None:
    """How `op`'s input (operand 0), weight (a constant operand 1) and output were quantized."""
    if not op.operands or not op.results:
        return None
    input_record = record(op.operands[0])
    weight = weight_params(op.operands[1]) if len(op.operands) > 1 else None
    output_record = record(op.results[0])
    if input_record is None and weight is None and output_record is None:
        return None
    return QuantizedAttr(input_record[0] if input_record else NoneAttr(), weight or NoneAttr(),
                         output_record[0] if output_record else NoneAttr())


@dataclass(frozen=True)
class RecognizeQdqPass(ModulePass):
    """Fold weight DequantizeLinears and take activation Q/DQ pairs off the graph, recording
    them (module doc); runs before `cleanup-graph`."""

    name = "recognize-qdq"

    absorb: bool = True
    """Take activation Q/DQ pairs off (False: only fold weights; all-host builds keep them
    anyway, through `restore-host-qdq`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        store = WeightStore.of(op)
        patterns = [p for p in QDQ_PATTERNS if self.absorb or p.name != "absorb-fake-quantize"]
        for function in (f for f in op.ops if isinstance(f, func.FuncOp)):
            for pattern in patterns:
                for nested in list(function.walk()):
                    if nested.parent is not None:
                        pattern.apply(nested, store)
            for nested in function.walk():
                if not isinstance(nested, ConstantOp) and (quantized := quantized_record(nested)) is not None:
                    nested.attributes[QUANTIZED_ATTR] = quantized


# --- restore-host-qdq -----------------------------------------------------------------


def _scalar_constant(value: float | int, element_type: Attribute, before: InsertPoint, name: str) -> SSAValue:
    data = BytesAttr(np.asarray(value, BY_XDSL[element_type].numpy).tobytes())
    constant = ConstantOp(DenseIntOrFPElementsAttr(TensorType(element_type, []), data))
    constant.location = node_location(name)
    Rewriter.insert_op(constant, before)
    return constant.results[0]


def restore_pair(value: SSAValue, at: InsertPoint, params: QuantParamsAttr, q_name: str, dq_name: str) -> None:
    """QuantizeLinear -> DequantizeLinear on `value` at `at`, read by every other user."""
    assert isinstance(value.type, TensorType)
    users = [use for use in value.uses]
    scale = _scalar_constant(params.scales()[0], f32, at, f"{q_name}.scale")
    zero = _scalar_constant(params.zero_points()[0], params.dtype, at, f"{q_name}.zero_point")
    integer = TensorType(params.dtype, value.type.get_shape())
    q = g.QuantizeLinearOp.create(operands=[value, scale, zero], result_types=[integer])
    dq = g.DequantizeLinearOp.create(operands=[q.results[0], scale, zero], result_types=[value.type])
    for new, name in ((q, q_name), (dq, dq_name)):
        new.location = node_location(name)
        # Placed as place-ops places an op MLIP has no layer for, for the reports.
        kind = new.name.removeprefix("graph.")
        new.attributes |= {PLACE_ATTR: StringAttr("host"),
                           REASONS_ATTR: ArrayAttr([StringAttr(f"unsupported: MLIP has no layer for {kind}")])}
    Rewriter.insert_op(q, at)
    Rewriter.insert_op(dq, InsertPoint.after(q))
    for use in users:
        use.operation.operands[use.index] = dq.results[0]


@dataclass(frozen=True)
class RestoreHostQdqPass(ModulePass):
    """Give every recorded tensor the host reads its Q/DQ pair back (module doc); runs after
    `partition-mrvl`."""

    name = "restore-host-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        subgraphs = {s.sym_name.data: s for s in op.ops if isinstance(s, SubgraphOp)}
        for subgraph in subgraphs.values():
            nodes = {node_name(n): n.attributes[QUANTIZED_ATTR] for n in subgraph.walk()
                     if QUANTIZED_ATTR in n.attributes}
            if nodes:
                subgraph.attributes[NODES_ATTR] = DictionaryAttr(nodes)
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            block = function.body.block
            for arg in block.args:
                if (recorded := record(arg)) is not None:
                    restore_pair(arg, InsertPoint.at_start(block), *recorded)
            for host_op in list(block.ops):
                if isinstance(host_op, ConstantOp):  # a folded weight: exact already
                    host_op.attributes.pop(FAKE_QUANT_ATTR, None)
                    continue
                if isinstance(host_op, CallMlipOp):
                    yielded = subgraphs[host_op.callee.root_reference.data].body.block.last_op
                    assert yielded is not None
                    for result, inner in zip(host_op.results, yielded.operands):
                        if (recorded := record(inner)) is not None:
                            restore_pair(result, InsertPoint.after(host_op), *recorded)
                    continue
                for result in host_op.results:
                    if (recorded := record(result)) is not None:
                        restore_pair(result, InsertPoint.after(host_op), *recorded)
                host_op.attributes.pop(FAKE_QUANT_ATTR, None)
            function.attributes.pop(FAKE_QUANT_ATTR, None)


# --- annotate-quantized-layers --------------------------------------------------------


def layer_record(layer: Operation, nodes: dict[str, QuantizedAttr]) -> QuantizedAttr | None:
    """The record of a layer from those of its ONNX nodes, in fusion order: the first input,
    the weight, the last output."""
    records = [nodes[n.name] for n in location_nodes(layer.location) if n.name in nodes]
    if not records:
        return None
    pick = {role: None for role in QuantizedAttr.ROLES}
    for i, role in enumerate(QuantizedAttr.ROLES):
        ordered = records if role != "output" else records[::-1]
        pick[role] = next((r.parameters[i] for r in ordered if not isinstance(r.parameters[i], NoneAttr)), NoneAttr())
    return QuantizedAttr(pick["input"], pick["weight"], pick["output"])


@dataclass(frozen=True)
class AnnotateQuantizedLayersPass(ModulePass):
    """Record on each MLIP layer how its QDQ nodes were quantized (module doc); runs after
    `convert-layout`."""

    name = "annotate-quantized-layers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for subgraph in [s for s in op.ops if isinstance(s, SubgraphOp)]:
            table = subgraph.attributes.pop(NODES_ATTR, None)
            if not isinstance(table, DictionaryAttr):
                continue
            nodes = {k: v for k, v in table.data.items() if isinstance(v, QuantizedAttr)}
            for layer in subgraph.body.block.ops:
                if (quantized := layer_record(layer, nodes)) is not None:
                    layer.attributes[QUANTIZED_ATTR] = quantized
