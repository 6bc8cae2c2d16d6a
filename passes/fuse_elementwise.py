"""fuse-elementwise: chains and trees of elementwise float32 host ops as one `cpu.elementwise`,
whose kernel reads its inputs once and writes its result once, with no tensor in between:

    %s = cpu.unary sigmoid %x           ->    %y = cpu.elementwise %x : (...) -> ... {
    %y = cpu.binary mul %x, %s                ^bb0(%v: f32):
                                                %s = cpu.sigmoid %v : f32
                                                %m = arith.mulf %v, %s : f32
                                                cpu.yield %m : f32
                                              }

Rules, for each function outside the accelerator subgraphs:

- the ops a group takes (`SCALAR_BODIES`): `cpu.binary` add, sub, mul, div, max, min and
  prelu, `cpu.unary` relu, sigmoid, tanh, exp, neg and abs, `cpu.clip`, `cpu.leaky_relu`,
  `cpu.hard_sigmoid` and `cpu.hard_swish`, all on float32;
- a group grows from its last op up through the ops that compute its operands, taking one
  when its result has the group's result shape and every reader of it is in the group. An
  intermediate read elsewhere (or smaller than the result: a broadcast) is computed once into
  memory and read by the group as an input: nothing is computed twice (a sigmoid per element
  costs more than reading its result back);
- the group's inputs are the tensors its ops read from outside it, each once, in the order
  its ops first read them; they broadcast to the result (per-channel constants, scalars);
  a single-element float32 constant becomes an `arith.constant` in the body instead;
- a group of one op stays that op: its own kernel also reads and writes once;
- it runs after `fuse-cpu-epilogues`, so what a conv, transposed conv or matmul took into its
  epilogue is not here any more.

The fused op's location names every ONNX node of the group, in order; it keeps their
placement (`mrvl.place`) and every distinct reason they run on the host (`mrvl.reasons`: one
list for the op, which the placement report gives each of its nodes).
"""

import heapq
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, ModuleOp, f32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of, shape_of
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import fused_location
from mrvl_dialect.mrvl import REASONS_ATTR
from mrvl.passes.fuse_cpu_epilogues import scalar_constant
from mrvl.passes.lower_to_cpu import host_regions

Emit = Callable[[Operation], SSAValue]
"""Appends a scalar op to the body being built and gives its result."""


def _constant(emit: Emit, value: float) -> SSAValue:
    return emit(arith.ConstantOp(FloatAttr(value, f32)))


def _binary(emit: Emit, op: cpu.BinaryOp, a: SSAValue, b: SSAValue) -> SSAValue:
    kind = op.kind.data
    if kind == cpu.BinaryKind.PRELU:  # a < 0 ? a b : a (NaN kept: the comparison is false)
        negative = emit(arith.CmpfOp(a, _constant(emit, 0.0), "olt"))
        return emit(arith.SelectOp(negative, emit(arith.MulfOp(a, b)), a))
    scalar = {cpu.BinaryKind.ADD: arith.AddfOp, cpu.BinaryKind.SUB: arith.SubfOp,
              cpu.BinaryKind.MUL: arith.MulfOp, cpu.BinaryKind.DIV: arith.DivfOp,
              # the binary kernel's fmaxf and fminf: a NaN operand gives the other one
              cpu.BinaryKind.MAX: arith.MaxnumfOp, cpu.BinaryKind.MIN: arith.MinnumfOp}[kind]
    return emit(scalar(a, b))


def _unary(emit: Emit, op: cpu.UnaryOp, v: SSAValue) -> SSAValue:
    kind = op.kind.data
    if kind == cpu.UnaryKind.RELU:  # v > 0 ? v : 0, as the relu kernel (NaN gives 0)
        return emit(arith.MaxnumfOp(v, _constant(emit, 0.0)))
    if kind == cpu.UnaryKind.NEG:
        return emit(arith.NegfOp(v))
    scalar = {cpu.UnaryKind.SIGMOID: cpu.SigmoidOp, cpu.UnaryKind.TANH: math.TanhOp,
              cpu.UnaryKind.EXP: math.ExpOp, cpu.UnaryKind.ABS: math.AbsFOp}[kind]
    return emit(scalar(v))


def _clip(emit: Emit, op: cpu.ClipOp, v: SSAValue) -> SSAValue:
    """min(max(v, low), high), NaN kept, an infinite bound left out."""
    low, high = op.min.value.data, op.max.value.data
    if low != float("-inf"):
        v = emit(arith.MaximumfOp(v, _constant(emit, low)))
    if high != float("inf"):
        v = emit(arith.MinimumfOp(v, _constant(emit, high)))
    return v


def _hard_sigmoid(emit: Emit, v: SSAValue, alpha: float, beta: float) -> SSAValue:
    """max(0, min(1, alpha v + beta)), NaN kept."""
    t = emit(arith.AddfOp(emit(arith.MulfOp(v, _constant(emit, alpha))), _constant(emit, beta)))
    t = emit(arith.MaximumfOp(t, _constant(emit, 0.0)))
    return emit(arith.MinimumfOp(t, _constant(emit, 1.0)))


def _leaky_relu(emit: Emit, op: cpu.LeakyReluOp, v: SSAValue) -> SSAValue:
    """v < 0 ? alpha v : v (NaN kept: the comparison is false)."""
    negative = emit(arith.CmpfOp(v, _constant(emit, 0.0), "olt"))
    return emit(arith.SelectOp(negative, emit(arith.MulfOp(v, _constant(emit, op.alpha.value.data))), v))


SCALAR_BODIES: dict[type[Operation], Callable[..., SSAValue]] = {
    cpu.BinaryOp: _binary,
    cpu.UnaryOp: _unary,
    cpu.ClipOp: _clip,
    cpu.LeakyReluOp: _leaky_relu,
    cpu.HardSigmoidOp: lambda emit, op, v: _hard_sigmoid(emit, v, op.alpha.value.data, op.beta.value.data),
    cpu.HardSwishOp: lambda emit, op, v: emit(arith.MulfOp(v, _hard_sigmoid(emit, v, 1.0 / 6.0, 0.5))),
}
"""How each op a group takes is written in scalar ops: (emit, the op, the scalars of its
operands) -> the scalar of its result."""
BINARY_KINDS = frozenset({cpu.BinaryKind.ADD, cpu.BinaryKind.SUB, cpu.BinaryKind.MUL, cpu.BinaryKind.DIV,
                          cpu.BinaryKind.MAX, cpu.BinaryKind.MIN, cpu.BinaryKind.PRELU})
UNARY_KINDS = frozenset({cpu.UnaryKind.RELU, cpu.UnaryKind.SIGMOID, cpu.UnaryKind.TANH, cpu.UnaryKind.EXP,
                         cpu.UnaryKind.NEG, cpu.UnaryKind.ABS})


def fusible(op: Operation) -> bool:
    """`op` is one a group takes (see `SCALAR_BODIES`)."""
    if type(op) not in SCALAR_BODIES or any(element_type_of(v) != f32 for v in (*op.operands, *op.results)):
        return False
    if isinstance(op, cpu.BinaryOp):
        return op.kind.data in BINARY_KINDS
    if isinstance(op, cpu.UnaryOp):
        return op.kind.data in UNARY_KINDS
    return True


def group_of(root: Operation, index: dict[Operation, int]) -> list[Operation]:
    """The ops of the group that ends at `root`, in program order. Producers are visited last
    first, so every reader of an op's result that can join the group has joined when the op is
    considered."""
    shape = shape_of(root.results[0])
    members = {root}
    pending: list[int] = []  # a heap of producers' negated indices: the last op first
    seen: dict[int, Operation] = {}

    def push_producers(op: Operation) -> None:
        for operand in op.operands:
            producer = operand.owner
            if isinstance(producer, Operation) and producer in index and index[producer] not in seen:
                seen[index[producer]] = producer
                heapq.heappush(pending, -index[producer])

    push_producers(root)
    while pending:
        producer = seen[-heapq.heappop(pending)]
        result = producer.results[0] if len(producer.results) == 1 else None
        if (result is None or not fusible(producer) or shape_of(result) != shape
                or any(use.operation not in members for use in result.uses)):
            continue
        members.add(producer)
        push_producers(producer)
    return sorted(members, key=index.__getitem__)


def fuse_group(group: list[Operation]) -> None:
    """Replace `group` (program order, its last op the root) with one `cpu.elementwise`."""
    root = group[-1]
    inside = {op.results[0] for op in group}
    inputs: list[SSAValue] = []
    constants: dict[SSAValue, float] = {}
    for op in group:
        for operand in op.operands:
            if operand in inside or operand in inputs or operand in constants:
                continue
            if (value := scalar_constant(operand)) is not None:
                constants[operand] = value
            else:
                inputs.append(operand)
    block = Block(arg_types=[f32] * len(inputs))

    def emit(op: Operation) -> SSAValue:
        block.add_op(op)
        return op.results[0]

    scalars: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for value, number in constants.items():
        scalars[value] = _constant(emit, number)
    for op in group:
        scalars[op.results[0]] = SCALAR_BODIES[type(op)](emit, op, *(scalars[v] for v in op.operands))
    block.add_op(cpu.YieldOp(scalars[root.results[0]]))

    fused = cpu.ElementwiseOp(inputs, root.results[0].type, Region(block))
    fused.location = fused_location(op.location for op in group)
    reasons: list[Attribute] = []
    for op in group:
        fused.attributes |= op.attributes
        if isinstance(why := op.attributes.get(REASONS_ATTR), ArrayAttr):
            reasons += [r for r in why.data if r not in reasons]
    if reasons:
        fused.attributes[REASONS_ATTR] = ArrayAttr(reasons)
    fused.output.name_hint = root.results[0].name_hint
    parent = root.parent_block()
    assert parent is not None
    parent.insert_op_before(fused, root)
    root.results[0].replace_all_uses_with(fused.output)
    for op in reversed(group):
        parent.erase_op(op)
    for value in constants:
        if isinstance(value.owner, ConstantOp) and not value.uses:
            parent.erase_op(value.owner)


def fuse_block(block: Block) -> None:
    ops = list(block.ops)
    index = {op: i for i, op in enumerate(ops)}
    taken: set[Operation] = set()
    groups: list[list[Operation]] = []
    for op in reversed(ops):
        if op in taken or not fusible(op):
            continue
        group = group_of(op, index)
        taken.update(group)
        if len(group) > 1:
            groups.append(group)
    for group in groups:
        fuse_group(group)


@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    """Fuse chains and trees of elementwise float32 host ops into one `cpu.elementwise` each
    (see the module docstring), after `fuse-cpu-epilogues`."""

    name = "fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for region in host_regions(op):
            for block in region.blocks:
                fuse_block(block)
