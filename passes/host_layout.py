"""The layout each group of layout-free host ops computes in (used by convert-layout).

A host op is *layout-free* when it computes the same elements whatever order the dims are
stored in, given its axis attributes remapped: element-wise ops (per-channel constants
broadcast by transposing the constant), Concat, Split, Slice, Pad, Softmax, a nearest Resize,
reductions that keep their dims; and, in NHWC only, pools, ConvTransposes and inference
BatchNormalizations, which become channels-last `cpu` ops at once (fuse-cpu-epilogues still
folds the batch norm, clamp and activation after a transposed conv into it). Connected
layout-free ops form a *region*. The values that enter a region from outside are its inputs;
its values read outside are its outputs.

A region may compute in any layout `q` (a permutation of its rank): each of its values `v`
is then held as `transpose(v, q)`. An input arrives through `transpose(input, q)`, which
composes with a transpose that produced it (an MLIP output's NHWC -> NCHW, undone when `q` is
NHWC); an output leaves through `transpose(output, inverse(q))`, which composes with the
transposes that read it, or is absorbed by the next subgraph's input `layout_transform`.

`choose_layout` counts, for each candidate layout (those that undo a transpose at the
region's edge), the elements the host transposes after the change against those it
transposes now, and keeps the layout that moves fewest; a tie keeps the model's layout. A
transpose that moves only dims of size 1 moves nothing (convert-layout makes it a Reshape).
"""

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, UnitAttr, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import cpu, mrvl
from mrvl_dialect.mrvl import LAYOUT_REASON_ATTR, PLACE_ATTR
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, node_label, op_type
from mrvl_dialect.locations import with_op_type
from mrvl_dialect.shared_attributes import i64_array, tensor_type
from mrvl_dialect.weights import WeightStore
from mrvl.passes.fuse_mrvl import TO_NCHW, TO_NHWC
from mrvl.passes.lower_to_cpu import conv_transpose_properties, pool_properties

Perm = tuple[int, ...]

ELEMENTWISE_UNARY = (
    g.ReluOp, g.ClipOp, g.HardSwishOp, g.HardSigmoidOp, g.SigmoidOp, g.TanhOp, g.LeakyReluOp, g.EluOp, g.SeluOp,
    g.GeluOp, g.SoftplusOp, g.ExpOp, g.LogOp, g.ErfOp, g.SqrtOp, g.ReciprocalOp, g.NegOp, g.AbsOp, g.SignOp,
    g.FloorOp, g.CeilOp, g.RoundOp, g.CastOp, g.NotOp,
)
"""Ops whose first operand is their only tensor read per element (Clip's bounds are scalars)."""
ELEMENTWISE_BROADCAST = (
    g.AddOp, g.SubOp, g.MulOp, g.DivOp, g.PowOp, g.MaxOp, g.MinOp, g.SumOp, g.MeanOp, g.PReluOp, g.WhereOp,
    g.EqualOp, g.LessOp, g.GreaterOp, g.LessOrEqualOp, g.GreaterOrEqualOp, g.AndOp, g.OrOp,
)
"""Ops of several tensors broadcast against each other, element by element."""


def perm_of(op: g.TransposeOp) -> Perm:
    if (perm := op.perm) is not None:
        return perm.get_values()
    return tuple(reversed(range(len(op.data.type.get_shape()))))  # type: ignore[attr-defined]


def inverse(perm: Perm) -> Perm:
    result = [0] * len(perm)
    for i, p in enumerate(perm):
        result[p] = i
    return tuple(result)


def compose(first: Perm, then: Perm) -> Perm:
    """The perm of transpose(transpose(x, first), then)."""
    return tuple(first[q] for q in then)


def is_identity(perm: Perm) -> bool:
    return perm == tuple(range(len(perm)))


def transpose(value: SSAValue, perm: Perm) -> g.TransposeOp:
    source = value.type
    assert isinstance(source, TensorType)
    dims = source.get_shape()
    return g.TransposeOp.create(
        operands=[value],
        result_types=[tensor_type(source.element_type, [dims[p] for p in perm])],
        properties={"perm": i64_array(perm)},
    )


def _shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())  # type: ignore[attr-defined]


def _size(value: SSAValue) -> int:
    return math.prod(_shape(value))


def reorders(dims: tuple[int, ...], perm: Perm) -> bool:
    """Whether transposing a tensor of `dims` by `perm` changes the order of its elements: it
    moves a dim of size over 1 past another."""
    moved = [p for p in perm if dims[p] != 1]
    return moved != sorted(moved)


def _transposed_size(value: SSAValue, perm: Perm) -> int:
    """The elements a transpose of `value` by `perm`, or back, moves: none when it only reshapes."""
    return _size(value) if reorders(_shape(value), perm) else 0


LAYOUTS = {TO_NHWC: ("NCHW", "NHWC"), TO_NCHW: ("NHWC", "NCHW")}
"""The layout transposes: from which layout to which."""


def layout_name(name: str | None, perm: Perm) -> str | None:
    """`x` transposed by perm: `x_nhwc`, `x_nchw` or `x_t`."""
    return f"{name}_{LAYOUTS[perm][1].lower() if perm in LAYOUTS else 't'}" if name else None


def on_host(op: Operation) -> bool:
    return not isinstance(op.parent_op(), mrvl.SubgraphOp)


# How each layout-free op is rebuilt in layout q: the properties to change, and the constant
# operands to replace (index -> array), or None when it cannot compute in q.
Remap = tuple[dict[str, Attribute], dict[int, np.ndarray]]


def _axis(op: Operation, rank: int, q: Perm) -> Remap | None:
    attr = op.properties.get("axis")
    axis = attr.value.data if isinstance(attr, IntegerAttr) else (-1 if isinstance(op, g.SoftmaxOp) else 0)
    return {"axis": IntegerAttr(q.index(axis % rank), i64)}, {}


def _index(op: Operation, operand: SSAValue) -> int:
    """Where an optional operand is among the op's operands (those before it may be absent)."""
    return next(i for i, v in enumerate(op.operands) if i > 0 and v is operand)


def _begin_end(values: np.ndarray, q: Perm) -> np.ndarray:
    n = len(q)
    return np.concatenate([values[:n][list(q)], values[n:][list(q)]])


def _pad(op: Operation, rank: int, q: Perm) -> Remap | None:
    assert isinstance(op, g.PadOp)
    pads = constant_value(op.pads)
    if op.axes is not None or pads is None or pads.shape != (2 * rank,):
        return None
    return {}, {_index(op, op.pads): _begin_end(pads, q)}


def _slice(op: Operation, rank: int, q: Perm) -> Remap | None:
    assert isinstance(op, g.SliceOp)
    axes = constant_value(op.axes) if op.axes is not None else None
    if op.axes is None or axes is None:
        return None  # the axes a Slice without them cuts are named in the model's layout
    return {}, {_index(op, op.axes): np.array([q.index(int(a) % rank) for a in axes], axes.dtype)}


def _resize(op: Operation, rank: int, q: Perm) -> Remap | None:
    assert isinstance(op, g.ResizeOp)
    if op.axes is not None or (op.roi is not None and _size(op.roi) != 0):
        return None
    replaced: dict[int, np.ndarray] = {}
    for operand in (op.scales, op.sizes):
        if operand is None or _size(operand) == 0:
            continue
        values = constant_value(operand)
        if values is None or values.shape != (rank,):
            return None
        replaced[_index(op, operand)] = values[list(q)]
    # The linear and cubic kernels interpolate the last two dims only.
    changed = [i for i in range(rank) if _shape(op.X)[q[i]] != _shape(op.Y)[q[i]]]
    if op.mode.data != "nearest" and any(i < rank - 2 for i in changed):
        return None
    return {}, replaced


REDUCTIONS = (g.ReduceMeanOp, g.ReduceSumOp, g.ReduceMaxOp, g.ReduceMinOp, g.ReduceProdOp, g.ReduceL1Op,
              g.ReduceL2Op, g.ReduceSumSquareOp, g.ReduceLogSumOp, g.ReduceLogSumExpOp)


def _reduce(op: Operation, rank: int, q: Perm) -> Remap | None:
    """A reduction that keeps its dims, over constant axes (all dims when none are given)."""
    axes_operand = op.operands[1] if len(op.operands) > 1 else None
    if axes_operand is None or _size(axes_operand) == 0:
        return ({}, {}) if not op.properties["noop_with_empty_axes"].value.data else None  # type: ignore[union-attr]
    axes = constant_value(axes_operand)
    if axes is None:
        return None
    return {}, {1: np.array(sorted(q.index(int(a) % rank) for a in axes), axes.dtype)}


def _no_change(op: Operation, rank: int, q: Perm) -> Remap | None:
    return {}, {}


def channels_last(rank: int) -> Perm:
    """(N, C, spatial...) -> (N, spatial..., C)."""
    return (0, *range(2, rank), 1)


def _channels_last_only(op: Operation, rank: int, q: Perm) -> Remap | None:
    return ({}, {}) if q == channels_last(rank) else None


_POOLS = (g.MaxPoolOp, g.AveragePoolOp, g.GlobalAveragePoolOp, g.GlobalMaxPoolOp)
_CHANNELS_LAST_KERNELS = (*_POOLS, g.ConvTransposeOp, g.BatchNormalizationOp)
"""Ops that compute in NHWC only, as a `cpu` op with `channels_last`."""


def _channels_last_kernel(op: Operation, operands: list[SSAValue], result: Attribute) -> Operation:
    """The host kernel of a pool, ConvTranspose or BatchNormalization in NHWC, reading `operands`
    (X in NHWC, the rest as they were): graph ops read NCHW, so it is a `cpu` op at once."""
    nhwc = {"channels_last": UnitAttr()}
    if isinstance(op, g.ConvTransposeOp):
        x, w, *bias = operands
        return cpu.ConvTransposeOp.of(x, w, bias[0] if bias else None, result, **conv_transpose_properties(op), **nhwc)
    if isinstance(op, g.BatchNormalizationOp):
        return cpu.BatchNormOp.create(operands=operands, result_types=[result],
                                      properties={"epsilon": op.epsilon, **nhwc})
    if isinstance(op, g.MaxPoolOp | g.AveragePoolOp):
        properties = {**pool_properties(op), **nhwc}
        return cpu.PoolOp.create(operands=operands[:1], result_types=[result], properties=properties)
    kind = cpu.PoolKind.AVERAGE if isinstance(op, g.GlobalAveragePoolOp) else cpu.PoolKind.MAX
    return cpu.GlobalPoolOp.create(operands=operands[:1], result_types=[result],
                                   properties={"kind": cpu.PoolKindAttr(kind), **nhwc})


REMAPS: dict[type[Operation], Callable[[Operation, int, Perm], Remap | None]] = {
    **{kind: _no_change for kind in ELEMENTWISE_UNARY + ELEMENTWISE_BROADCAST},
    g.QuantizeLinearOp: _no_change,
    g.DequantizeLinearOp: _no_change,
    g.ConcatOp: _axis,
    g.SplitOp: _axis,
    g.SoftmaxOp: _axis,
    g.LogSoftmaxOp: _axis,
    g.PadOp: _pad,
    g.SliceOp: _slice,
    g.ResizeOp: _resize,
    **{kind: _channels_last_only for kind in _CHANNELS_LAST_KERNELS},
    **{kind: _reduce for kind in REDUCTIONS},
}
"""The layout-free ops and how each is rebuilt in another layout."""

_ONE_DATA_OPERAND = (g.PadOp, g.SliceOp, g.ResizeOp, g.SplitOp, g.ConvTransposeOp, g.BatchNormalizationOp,
                     *REDUCTIONS)
"""Ops whose other operands are not data (pads, indices, scales, sizes, weights, statistics):
kept or remapped."""


def _data_operands(op: Operation) -> list[SSAValue]:
    return [op.operands[0]] if isinstance(op, _ONE_DATA_OPERAND) else list(op.operands)


_EPILOGUES = frozenset((*ELEMENTWISE_UNARY, g.BatchNormalizationOp))
"""Ops of one data operand that fuse-cpu-epilogues may fold into the host kernel they read."""


def _stays_with_producer(op: Operation) -> bool:
    """A unary op or batch norm that alone reads a host kernel which needs the model's layout
    stays in that layout: a transpose after it moves as many elements as one before it, and
    fuse-cpu-epilogues can then fold it into the kernel (a batch norm and Relu after a host Conv)."""
    if type(op) not in _EPILOGUES or not op.operands[0].has_one_use():
        return False
    source = op.operands[0].owner
    return (isinstance(source, Operation) and type(source) not in (ConstantOp, g.TransposeOp)
            and source.name != "cpu.call_mlip" and on_host(source) and _rank(source) is None)


def _rank(op: Operation) -> int | None:
    """The one rank of a layout-free op's data, or None if it is not layout-free here."""
    if type(op) not in REMAPS or not op.results or not on_host(op) or _stays_with_producer(op):
        return None
    if isinstance(op, g.QuantizeLinearOp | g.DequantizeLinearOp) and _size(op.operands[1]) != 1:
        return None  # a scale per channel reads the layout
    if isinstance(op, g.MaxPoolOp) and op.Indices is not None and op.Indices.uses:
        return None  # indices count in NCHW order
    if isinstance(op, REDUCTIONS) and not op.properties["keepdims"].value.data:  # type: ignore[union-attr]
        return None  # the dims it drops are named in the model's layout
    if isinstance(op, g.BatchNormalizationOp) and op.training_mode.value.data:
        return None  # it reduces over the batch and spatial dims too
    ranks = {len(_shape(r)) for r in op.results}
    if len(ranks) != 1:
        return None
    rank = ranks.pop()
    for operand in _data_operands(op):
        dims = _shape(operand)
        if len(dims) != rank and math.prod(dims) != 1 and constant_value(operand) is None:
            return None  # a lower-rank tensor broadcast along the trailing dims of the model's layout
    return rank


@dataclass
class Region:
    ops: list[Operation]
    """In block order."""
    rank: int

    def __post_init__(self) -> None:
        self.members = set(self.ops)

    def inputs(self) -> list[SSAValue]:
        """Values read by the region that come from outside it and are not constants or scalars."""
        found: dict[SSAValue, None] = {}
        for op in self.ops:
            for operand in _data_operands(op):
                if (operand.owner not in self.members and len(_shape(operand)) == self.rank
                        and not isinstance(operand.owner, ConstantOp) and _size(operand) != 1):
                    found[operand] = None
        return list(found)

    def outputs(self) -> list[tuple[SSAValue, list[Operation]]]:
        """Results read outside the region, each with the ops that read it there."""
        found = []
        for op in self.ops:
            for result in op.results:
                readers = list(dict.fromkeys(u.operation for u in result.uses if u.operation not in self.members))
                if readers:
                    found.append((result, readers))
        return found


def host_regions(block_ops: Iterable[Operation]) -> list[Region]:
    """The groups of layout-free ops of one rank connected by the values they read, in block order."""
    ranks = {op: rank for op in block_ops if (rank := _rank(op)) is not None}
    ops = list(ranks)
    index = {op: i for i, op in enumerate(ops)}
    parent = list(range(len(ops)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    readers: dict[SSAValue, Operation] = {}
    for op in ops:
        for operand in _data_operands(op):
            # An op joins the op it reads, and the others that read the same value: that
            # value's layout is one decision.
            for other in (operand.owner, readers.setdefault(operand, op)):
                if ranks.get(other) == ranks[op]:
                    parent[root(index[op])] = root(index[other])
    groups: dict[int, list[Operation]] = {}
    for op in ops:
        groups.setdefault(root(index[op]), []).append(op)
    return [Region(members, ranks[members[0]]) for members in groups.values()]


def absorbed_by_subgraph(subgraph: mrvl.SubgraphOp | None, operand_index: int, calls: int) -> bool:
    """Whether a subgraph called once only converts this input to NHWC first (its
    `layout_transform`), so that an NHWC value can be passed instead (convert-layout's absorb step)."""
    if subgraph is None or calls != 1:
        return False
    uses = list(subgraph.body.block.args[operand_index].uses)
    return len(uses) == 1 and isinstance(uses[0].operation, mrvl.LayoutTransformOp)


def moved_elements(region: Region, q: Perm, absorbs: Callable[[Operation, int], bool]) -> int:
    """How many more elements the host transposes if `region` computes in layout q (negative:
    fewer). `absorbs(call, i)`: an NHWC value passed as the call's operand i needs no transpose."""
    change = 0
    for value in region.inputs():
        source = value.owner
        if isinstance(source, g.TransposeOp) and on_host(source):
            only_here = all(u.operation in region.members for u in value.uses)
            change += (0 if is_identity(compose(perm_of(source), q)) else _size(value)) - (
                _size(value) if only_here else 0)
        else:
            change += _transposed_size(value, q)
    nhwc = q == TO_NHWC
    for value, readers in region.outputs():
        back = False
        for reader in readers:
            if isinstance(reader, g.TransposeOp) and on_host(reader):
                if is_identity(compose(inverse(q), perm_of(reader))):
                    change -= _size(value)
            elif reader.name == "cpu.call_mlip" and nhwc and all(
                    absorbs(reader, i) for i, v in enumerate(reader.operands) if v is value):
                continue
            else:
                back = True
        change += _transposed_size(value, q) if back else 0
    return change


def candidate_layouts(region: Region) -> list[Perm]:
    """The layouts that undo a transpose at the region's edge."""
    found: dict[Perm, None] = {}
    for value in region.inputs():
        if isinstance(value.owner, g.TransposeOp):
            found[inverse(perm_of(value.owner))] = None
    for _, readers in region.outputs():
        for reader in readers:
            if isinstance(reader, g.TransposeOp):
                found[perm_of(reader)] = None
    return [q for q in found if len(q) == region.rank and not is_identity(q)]


def choose_layout(region: Region, absorbs: Callable[[Operation, int], bool]) -> Perm | None:
    """The candidate layout that moves fewest elements, if it moves fewer than now."""
    best, saved = None, 0
    for q in candidate_layouts(region):
        if all(REMAPS[type(op)](op, region.rank, q) is not None for op in region.ops):
            change = moved_elements(region, q, absorbs)
            if change < saved:
                best, saved = q, change
    return best


def _constant(module: ModuleOp, array: np.ndarray, element_type: Attribute, name: str) -> ConstantOp:
    value = WeightStore.of(module).constant_attr(name, np.ascontiguousarray(array),
                                                 TensorType(element_type, array.shape))
    return ConstantOp(value)


def rewrite_in_layout(region: Region, q: Perm, module: ModuleOp) -> None:
    """Rebuild the region's ops to compute in layout q, with transposes at its edge."""
    rank, back = region.rank, inverse(q)
    moved: dict[SSAValue, SSAValue] = {}  # a region value, or an input, -> itself in layout q
    entered: list[g.TransposeOp] = []  # transposes that produced inputs: dead once the region moves
    for op in region.ops:
        properties, replaced = REMAPS[type(op)](op, rank, q)  # type: ignore[misc]
        data = set(_data_operands(op))
        operands: list[SSAValue] = []
        for i, operand in enumerate(op.operands):
            if i in replaced:
                new: Operation = _constant(module, replaced[i], operand.type.element_type,  # type: ignore[attr-defined]
                                           f"{operand.name_hint or 'constant'}.remapped")
            elif operand in moved:
                operands.append(moved[operand])
                continue
            elif operand not in data or _size(operand) == 1 and len(_shape(operand)) <= rank:
                operands.append(operand)
                continue
            elif (array := constant_value(operand)) is not None:
                full = array.reshape((1,) * (rank - array.ndim) + array.shape)
                new = _constant(module, np.transpose(full, q), operand.type.element_type,  # type: ignore[attr-defined]
                                f"{operand.name_hint or 'constant'}.t")
            else:
                moved[operand] = _entering(operand, q, op, entered)
                operands.append(moved[operand])
                continue
            new.results[0].name_hint = layout_name(operand.name_hint, q)
            Rewriter.insert_op(new, InsertPoint.before(op))
            operands.append(new.results[0])
        result_types = [tensor_type(r.type.element_type, [_shape(r)[p] for p in q])  # type: ignore[attr-defined]
                        for r in op.results]
        if isinstance(op, _CHANNELS_LAST_KERNELS):
            rebuilt = _channels_last_kernel(op, operands, result_types[0])
            rebuilt.attributes |= op.attributes
            rebuilt.location = with_op_type(op.location, op_type(op))
        else:
            rebuilt = type(op).create(operands=operands, result_types=result_types,
                                      properties={**op.properties, **properties}, attributes=dict(op.attributes))
            rebuilt.location = op.location
        Rewriter.insert_op(rebuilt, InsertPoint.before(op))
        for old, new in zip(op.results, rebuilt.results):
            new.name_hint = old.name_hint
            moved[old] = new
    for op in reversed(region.ops):
        for old in op.results:
            _leaving(old, moved[old], back, region.members)
    for op in reversed(region.ops):
        Rewriter.erase_op(op)
    for source in entered:
        if not source.transposed.uses:
            Rewriter.erase_op(source)


def _entering(value: SSAValue, q: Perm, user: Operation, entered: list[g.TransposeOp]) -> SSAValue:
    """`value` in layout q, before `user`: a transpose of it, composed with the transpose that
    produced it (none at all when they cancel: an MLIP output's NHWC, for q NHWC)."""
    source = value.owner
    if not isinstance(source, g.TransposeOp) or not on_host(source):
        new = transpose(value, q)
        new.transposed.name_hint = layout_name(value.name_hint, q)
        Rewriter.insert_op(new, InsertPoint.before(user))
        return new.transposed
    entered.append(source)
    perm = compose(perm_of(source), q)
    if is_identity(perm):
        if not source.data.name_hint:
            source.data.name_hint = layout_name(value.name_hint, q)
        return source.data
    new = transpose(source.data, perm)
    new.transposed.name_hint = layout_name(value.name_hint, q)
    Rewriter.insert_op(new, InsertPoint.before(user))
    return new.transposed


def _leaving(old: SSAValue, new: SSAValue, back: Perm, members: set[Operation]) -> None:
    """Readers of `old` outside the region read `new` (old in another layout) through
    transpose(new, back): composed into the transposes among them, one shared by the others."""
    restore: g.TransposeOp | None = None
    for use in [u for u in old.uses if u.operation not in members]:
        reader = use.operation
        if isinstance(reader, g.TransposeOp) and on_host(reader):
            perm = compose(back, perm_of(reader))
            if is_identity(perm):
                reader.transposed.replace_all_uses_with(new)
                if not new.name_hint:
                    new.name_hint = reader.transposed.name_hint
                Rewriter.erase_op(reader)
            else:
                reader.operands[0] = new
                reader.properties["perm"] = i64_array(perm)
            continue
        if restore is None:
            restore = transpose(new, back)
            restore.transposed.name_hint = layout_name(old.name_hint, back)
            Rewriter.insert_op(restore, InsertPoint.after(new.owner))  # type: ignore[arg-type]
        reader.operands[use.index] = restore.transposed


def calls_by_callee(module: ModuleOp) -> dict[str, list[Operation]]:
    """The `cpu.call_mlip`s of each subgraph, in IR order (none is inside a subgraph)."""
    calls: dict[str, list[Operation]] = {}
    for top in module.body.block.ops:
        for op in top.walk() if not isinstance(top, mrvl.SubgraphOp) else ():
            if op.name == "cpu.call_mlip":
                calls.setdefault(op.properties["callee"].root_reference.data, []).append(op)
    return calls


def assign_host_layouts(module: ModuleOp) -> bool:
    """Move each region of host ops to the layout that transposes least. Returns whether any moved."""
    subgraphs = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)}
    functions = [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]
    calls = {callee: len(sites) for callee, sites in calls_by_callee(module).items()}

    def absorbs(call: Operation, index: int) -> bool:
        callee = call.properties["callee"].root_reference.data  # type: ignore[union-attr]
        return absorbed_by_subgraph(subgraphs.get(callee), index, calls[callee])

    changed = False
    for function in functions:
        for block in function.body.blocks:
            for region in host_regions(block.ops):
                q = choose_layout(region, absorbs)
                if q is not None:
                    rewrite_in_layout(region, q, module)
                    changed = True
    return changed


def _reader_label(op: Operation) -> str:
    if op.name == "cpu.call_mlip":
        return f"subgraph @{op.properties['callee'].root_reference.data}"  # type: ignore[union-attr]
    return node_label(op)


def layout_reason(op: g.TransposeOp, output_names: dict[SSAValue, str]) -> str:
    """Why a transpose stays on the host: the model's input or output, or the op on its other
    side that reads or writes only that layout."""
    source, target = LAYOUTS[perm_of(op)]
    readers = list(dict.fromkeys(use.operation for use in op.transposed.uses))
    if PLACE_ATTR in op.attributes:
        return f"the model's own {node_label(op)}"
    if isinstance(op.data.owner, Block):
        return f"the model input '{op.data.name_hint}' is {source}"
    if readers and all(isinstance(r, func.ReturnOp) for r in readers):
        names = ", ".join(f"'{output_names[v]}'" for v in [op.transposed] if v in output_names)
        return f"the model output {names} is {target}"
    producer = op.data.owner
    while _stays_with_producer(producer):
        producer = producer.operands[0].owner
    if producer.name != "cpu.call_mlip" and _rank(producer) is None:
        return f"{_reader_label(producer)} writes {source}"
    fixed = [r for r in readers if not isinstance(r, func.ReturnOp) and _rank(r) is None]
    if fixed:
        return f"{_reader_label(fixed[0])} reads {target}"
    return f"{_reader_label(readers[0])} and the ops it joins move fewer elements in {target}"


def explain_transposes(module: ModuleOp) -> None:
    """Record on each layout transpose left on the host why it is there (`mrvl.layout_reason`)."""
    for function in [op for op in module.body.block.ops if isinstance(op, func.FuncOp)]:
        names: dict[SSAValue, str] = {}
        for block in function.body.blocks:
            terminator = block.last_op
            if isinstance(terminator, func.ReturnOp) and function.res_attrs is not None:
                for value, attrs in zip(terminator.operands, function.res_attrs.data):
                    name = attrs.data.get("graph.name")
                    names.setdefault(value, name.data if isinstance(name, StringAttr) else value.name_hint or "")
            for op in block.ops:
                if isinstance(op, g.TransposeOp) and perm_of(op) in LAYOUTS:
                    op.attributes[LAYOUT_REASON_ATTR] = StringAttr(layout_reason(op, names))
