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
transposes that read it, or is absorbed by the next subgraph's input `layout_transform` (for
q NHWC, or NHWC with H and W swapped when the subgraph's layers are all per pixel).

`choose_layout` counts, for each candidate layout (those that undo a transpose at the
region's edge), the elements the host transposes after the change against those it
transposes now, and keeps the layout that moves fewest; a tie keeps the model's layout. A
transpose that moves only dims of size 1 moves nothing (convert-layout makes it a Reshape).

A second round takes the reshapes (Reshape, Flatten, Squeeze, Unsqueeze) into the regions,
starting from the layouts the first chose. A reshape that merges or splits only dims its
input's layout holds together and in order moves no element in that layout: its result is
held in the layout `reshaped_layout` gives (a Detect head's [1, C, H, W] -> [1, C, H*W] from
NHWC is [1, H*W, C]), so a region's values may differ in rank and layout, each one decided
by the region's. A reshape no layout of the candidate lets through rules the candidate out.
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
from mrvl_dialect.locations import location_nodes, with_op_type
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

RESHAPES = (g.ReshapeOp, g.FlattenOp, g.SqueezeOp, g.UnsqueezeOp)
"""Ops that keep the elements in order and change only the dims (static result types)."""

_ONE_DATA_OPERAND = (g.PadOp, g.SliceOp, g.ResizeOp, g.SplitOp, g.ConvTransposeOp, g.BatchNormalizationOp,
                     *REDUCTIONS, *RESHAPES)
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


def _dim_groups(source: tuple[int, ...], target: tuple[int, ...]) -> list[tuple[range, range]] | None:
    """The dims of `source` and `target` (of one size) in the fewest runs of equal products:
    a reshape merges or splits the dims within each run and moves no element across runs."""
    groups, i, j = [], 0, 0
    while i < len(source) or j < len(target):
        start_i, start_j = i, j
        left = right = 1
        if i < len(source):
            left, i = source[i], i + 1
        if j < len(target):
            right, j = target[j], j + 1
        while left != right:
            if left < right and i < len(source):
                left, i = left * source[i], i + 1
            elif right < left and j < len(target):
                right, j = right * target[j], j + 1
            else:
                return None
        groups.append((range(start_i, i), range(start_j, j)))
    return groups


def reshaped_layout(source: tuple[int, ...], target: tuple[int, ...], p: Perm) -> Perm | None:
    """The layout of a reshape's result when its input is held in layout p, so that the
    reshape moves no element; None when no layout does (the reshape mixes dims that p
    separates, or orders differently: [N, C, H, W] -> [N, C*H*W] from NHWC).

    Each run of dims the reshape merges or splits must be held together and in order (dims
    of size 1 may be anywhere); the result holds the runs in p's order."""
    groups = _dim_groups(source, target)
    if groups is None:
        return None
    group_of = {d: k for k, (dims, _) in enumerate(groups) for d in dims}
    held = [d for d in p if source[d] != 1]  # the dims that order elements, as held
    order: list[int] = []
    for position, d in enumerate(held):
        k = group_of[d]
        if position == 0 or group_of[held[position - 1]] != k:
            if k in order:
                return None  # the run is split by another
            order.append(k)
        elif d < held[position - 1]:
            return None  # the run is held in another order
    # Runs of size-1 dims only stay where they are; the others fill their places in p's order.
    placed = iter(order)
    runs = [k if all(source[d] == 1 for d in dims) else next(placed) for k, (dims, _) in enumerate(groups)]
    return tuple(d for k in runs for d in groups[k][1])


def _same_order(shape: tuple[int, ...], p: Perm, q: Perm) -> bool:
    """Whether layouts p and q hold a tensor of this shape's elements in the same order."""
    return [d for d in p if shape[d] != 1] == [d for d in q if shape[d] != 1]


def _rank_at(op: Operation, value: SSAValue, ranks: dict[Operation, int]) -> int:
    """The rank op reads or writes `value` at: a reshape's own, otherwise the op's one rank."""
    return len(_shape(value)) if isinstance(op, RESHAPES) else ranks[op]


def _is_host_reshape(op: Operation) -> bool:
    return isinstance(op, RESHAPES) and on_host(op) and all(d > 0 for v in (*op.operands[:1], *op.results)
                                                           for d in _shape(v))


def _data_read(op: Operation, ranks: dict[Operation, int]) -> list[SSAValue]:
    """The tensors op reads element by element in its own layout (not lower-rank constants,
    which are transposed for each reader)."""
    return [v for v in _data_operands(op) if len(_shape(v)) == _rank_at(op, v, ranks)]


@dataclass
class Region:
    ops: list[Operation]
    """In block order."""
    ranks: dict[Operation, int]
    """Each op's rank (a reshape's: its result's)."""

    def __post_init__(self) -> None:
        self.members = set(self.ops)
        self.readers: dict[SSAValue, list[Operation]] = {}
        for op in self.ops:
            for operand in _data_read(op, self.ranks):
                self.readers.setdefault(operand, []).append(op)

    def inputs(self) -> list[SSAValue]:
        """Values read by the region that come from outside it and are not constants or scalars."""
        found: dict[SSAValue, None] = {}
        for op in self.ops:
            for operand in _data_read(op, self.ranks):
                if (operand.owner not in self.members and not isinstance(operand.owner, ConstantOp)
                        and _size(operand) != 1):
                    found[operand] = None
        return list(found)

    def layouts(self, value: SSAValue, perm: Perm) -> dict[SSAValue, Perm] | None:
        """Each value's layout (its inputs' and results') when `value` is held in `perm`; None
        when a reshape cannot follow."""
        held = {value: perm}
        pending = [value]
        while pending:
            v = pending.pop()
            ops = list(self.readers.get(v, ()))
            if v.owner in self.members:
                ops.append(v.owner)  # type: ignore[arg-type]
            for op in ops:
                if isinstance(op, RESHAPES):
                    source, target = op.operands[0], op.results[0]
                    other, p = (target, reshaped_layout(_shape(source), _shape(target), held[v])) if v is source else (
                        source, reshaped_layout(_shape(target), _shape(source), held[v]))
                    if p is not None and other in held and _same_order(_shape(other), held[other], p):
                        continue  # the way back may place the dims of size 1 elsewhere
                    related = [(other, p)]
                else:
                    related = [(w, held[v]) for w in (*_data_read(op, self.ranks), *op.results)]
                for w, p in related:
                    if p is None or held.get(w, p) != p:
                        return None
                    if w not in held:
                        held[w] = p
                        pending.append(w)
        return held

    def outputs(self) -> list[tuple[SSAValue, list[Operation]]]:
        """Results read outside the region, each with the ops that read it there."""
        found = []
        for op in self.ops:
            for result in op.results:
                readers = list(dict.fromkeys(u.operation for u in result.uses if u.operation not in self.members))
                if readers:
                    found.append((result, readers))
        return found


def host_regions(block_ops: Iterable[Operation], reshapes: bool = False) -> list[Region]:
    """The groups of layout-free ops connected by the values they read, of one rank, in
    block order; with `reshapes`, also through the reshapes among them (see `reshaped_layout`)."""
    ranks: dict[Operation, int] = {}
    for op in block_ops:
        if (rank := _rank(op)) is not None:
            ranks[op] = rank
        elif reshapes and _is_host_reshape(op):
            ranks[op] = len(_shape(op.results[0]))
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
        for operand in _data_read(op, ranks):
            # An op joins the op it reads, and the others that read the same value: that
            # value's layout is one decision.
            for other in (operand.owner, readers.setdefault(operand, op)):
                if other in ranks:
                    parent[root(index[op])] = root(index[other])
    groups: dict[int, list[Operation]] = {}
    for op in ops:
        groups.setdefault(root(index[op]), []).append(op)
    return [Region(members, {op: ranks[op] for op in members}) for members in groups.values()]


def absorbed_by_subgraph(subgraph: mrvl.SubgraphOp | None, operand_index: int, calls: int) -> bool:
    """Whether a subgraph called once only converts this input to NHWC first (its
    `layout_transform`), so that an NHWC value can be passed instead (convert-layout's absorb step)."""
    if subgraph is None or calls != 1:
        return False
    uses = list(subgraph.body.block.args[operand_index].uses)
    return len(uses) == 1 and isinstance(uses[0].operation, mrvl.LayoutTransformOp)


SWAPPED_SPATIAL = (0, 2, 1, 3)
"""NHWC with H and W swapped."""


def _per_pixel_layer(op: Operation) -> bool:
    if isinstance(op, mrvl.Conv2DOp):
        kernel = _shape(op.weight)[1:3]
        return kernel == (1, 1) and tuple(op.strides.get_values()) == (1, 1) and not any(op.padding.get_values())
    if isinstance(op, mrvl.SumOp):
        return not isinstance(op.rhs.owner, ConstantOp)
    return isinstance(op, mrvl.ConcatOp | mrvl.LayoutTransformOp | mrvl.YieldOp | ConstantOp)


def per_pixel(subgraph: mrvl.SubgraphOp) -> bool:
    """Whether every layer of the subgraph computes each pixel from the same pixel of its
    inputs (1x1 convs of stride 1, sums, channel concats), over rank-4 tensors: then it
    computes the same with H and W swapped in all its tensors."""
    block = subgraph.body.block
    return all(_per_pixel_layer(op) for op in block.ops) and all(
        len(_shape(v)) == 4 for v in (*block.args, *block.last_op.operands))  # type: ignore[union-attr]


def nhwc_from(q: Perm) -> Perm:
    """The transpose from a value held in layout q to its NHWC."""
    return compose(inverse(q), TO_NHWC)


def absorbed_layout(subgraph: mrvl.SubgraphOp | None, operand_index: int, calls: int, q: Perm) -> bool:
    """Whether a subgraph called once takes input `operand_index` held in layout q with no
    transpose: NHWC when it converts the input to NHWC first (`absorbed_by_subgraph`), and NHWC
    with H and W swapped too when its layers are `per_pixel` (convert-layout then swaps them
    in the subgraph)."""
    if len(q) != 4 or not absorbed_by_subgraph(subgraph, operand_index, calls):
        return False
    change = nhwc_from(q)
    return is_identity(change) or change == SWAPPED_SPATIAL and per_pixel(subgraph)  # type: ignore[arg-type]


Layouts = dict[SSAValue, Perm]
"""The layout each value of a region (its inputs' and results') is held in."""


def moved_elements(region: Region, held: Layouts, absorbs: Callable[[Operation, int, Perm], bool]) -> int:
    """How many more elements the host transposes if `region` holds its values as `held` says
    (negative: fewer). `absorbs(call, i, q)`: a value held in layout q passed as the call's
    operand i needs no transpose."""
    change = 0
    for value in region.inputs():
        q = held[value]
        if is_identity(q):
            continue
        source = value.owner
        if isinstance(source, g.TransposeOp) and on_host(source):
            only_here = all(u.operation in region.members for u in value.uses)
            change += (0 if is_identity(compose(perm_of(source), q)) else _size(value)) - (
                _size(value) if only_here else 0)
        else:
            change += _transposed_size(value, q)
    for value, readers in region.outputs():
        q = held[value]
        if is_identity(q):
            continue
        back = False
        for reader in readers:
            if isinstance(reader, g.TransposeOp) and on_host(reader):
                perm = compose(inverse(q), perm_of(reader))
                change += _transposed(reader, perm, absorbs) - _transposed(reader, perm_of(reader), absorbs)
            elif reader.name == "cpu.call_mlip" and all(
                    absorbs(reader, i, q) for i, v in enumerate(reader.operands) if v is value):
                continue
            else:
                back = True
        change += _transposed_size(value, q) if back else 0
    return change


def _transposed(op: g.TransposeOp, perm: Perm, absorbs: Callable[[Operation, int, Perm], bool]) -> int:
    """The elements `op` moves with this perm: none when it is the identity, or when only
    subgraphs read it that take its input as it is (convert-layout's absorb step)."""
    if is_identity(perm):
        return 0
    uses = list(op.transposed.uses)
    if uses and all(u.operation.name == "cpu.call_mlip" and absorbs(u.operation, u.index, inverse(perm)) for u in uses):
        return 0
    return _transposed_size(op.data, perm)


def candidate_layouts(region: Region) -> list[Layouts]:
    """The layouts that undo a transpose at the region's edge (and that its reshapes follow)."""
    seeds: dict[tuple[SSAValue, Perm], None] = {}
    for value in region.inputs():
        if isinstance(value.owner, g.TransposeOp):
            seeds[value, inverse(perm_of(value.owner))] = None
    for value, readers in region.outputs():
        for reader in readers:
            if isinstance(reader, g.TransposeOp):
                seeds[value, perm_of(reader)] = None
    found: list[Layouts] = []
    for value, q in seeds:
        held = region.layouts(value, q)
        if held is not None and held not in found and not all(is_identity(p) for p in held.values()):
            found.append(held)
    return found


def _remap(op: Operation, held: Layouts) -> Remap | None:
    q = held[op.results[0]]
    return ({}, {}) if isinstance(op, RESHAPES) else REMAPS[type(op)](op, len(q), q)


def choose_layout(region: Region, absorbs: Callable[[Operation, int, Perm], bool]) -> Layouts | None:
    """The candidate layouts that move fewest elements, if they move fewer than now."""
    best, saved = None, 0
    for held in candidate_layouts(region):
        if all(_remap(op, held) is not None for op in region.ops):
            change = moved_elements(region, held, absorbs)
            if change < saved:
                best, saved = held, change
    return best


def _constant(module: ModuleOp, array: np.ndarray, element_type: Attribute, name: str) -> ConstantOp:
    value = WeightStore.of(module).constant_attr(name, np.ascontiguousarray(array),
                                                 TensorType(element_type, array.shape))
    return ConstantOp(value)


def rewrite_in_layout(region: Region, held: Layouts, module: ModuleOp) -> None:
    """Rebuild the region's ops to hold their values as `held` says, with transposes at its edge."""
    moved: dict[SSAValue, SSAValue] = {}  # a region value, or an input, -> itself in its layout
    entered: list[g.TransposeOp] = []  # transposes that produced inputs: dead once the region moves
    for op in region.ops:
        q = held[op.results[0]]
        rank = len(q)
        properties, replaced = _remap(op, held)  # type: ignore[misc]
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
                moved[operand] = _entering(operand, held[operand], op, entered)
                operands.append(moved[operand])
                continue
            new.results[0].name_hint = layout_name(operand.name_hint, q)
            Rewriter.insert_op(new, InsertPoint.before(op))
            operands.append(new.results[0])
        result_types = [tensor_type(r.type.element_type, [_shape(r)[p] for p in held[r]])  # type: ignore[attr-defined]
                        for r in op.results]
        if isinstance(op, _CHANNELS_LAST_KERNELS):
            rebuilt = _channels_last_kernel(op, operands, result_types[0])
            rebuilt.attributes |= op.attributes
            rebuilt.location = with_op_type(op.location, op_type(op))
        elif isinstance(op, RESHAPES):
            dims = np.array(_shape(op.results[0]), np.int64)[list(q)]
            shape = _constant(module, dims, i64, f"{op.results[0].name_hint or 'reshape'}.shape")
            shape.results[0].name_hint = f"{op.results[0].name_hint}_shape" if op.results[0].name_hint else None
            Rewriter.insert_op(shape, InsertPoint.before(op))
            rebuilt = g.ReshapeOp.create(operands=[operands[0], shape.results[0]], result_types=result_types,
                                         attributes=dict(op.attributes))
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
            _leaving(old, moved[old], inverse(held[old]), region.members)
    for op in reversed(region.ops):
        Rewriter.erase_op(op)
    for source in entered:
        if not source.transposed.uses:
            Rewriter.erase_op(source)


def _entering(value: SSAValue, q: Perm, user: Operation, entered: list[g.TransposeOp]) -> SSAValue:
    """`value` in layout q, before `user`: a transpose of it, composed with the transpose that
    produced it (none at all when they cancel: an MLIP output's NHWC, for q NHWC)."""
    if is_identity(q):
        return value
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
    if location_nodes(source.location):  # the model's own Transpose, composed
        new.location, new.attributes = source.location, dict(source.attributes)
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
        if is_identity(back):
            reader.operands[use.index] = new
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

    def absorbs(call: Operation, index: int, q: Perm) -> bool:
        callee = call.properties["callee"].root_reference.data  # type: ignore[union-attr]
        return absorbed_layout(subgraphs.get(callee), index, calls[callee], q)

    changed = False
    for function in functions:
        for block in function.body.blocks:
            # Then again through reshapes, from the layouts chosen (a region's inputs may have
            # become transposes another layout cancels).
            for reshapes in (False, True):
                for region in host_regions(block.ops, reshapes):
                    if (held := choose_layout(region, absorbs)) is not None:
                        rewrite_in_layout(region, held, module)
                        changed = True
    return changed


def _reader_label(op: Operation) -> str:
    if op.name == "cpu.call_mlip":
        return f"subgraph @{op.properties['callee'].root_reference.data}"  # type: ignore[union-attr]
    return node_label(op)


def _layout_names(perm: Perm) -> tuple[str, str]:
    """The layouts a transpose by perm converts from and to, as the reasons name them."""
    return LAYOUTS.get(perm, ("another dim order", f"dim order {list(perm)}"))


def layout_reason(op: g.TransposeOp, output_names: dict[SSAValue, str]) -> str:
    """Why a transpose stays on the host: the model's input or output, or the op on its other
    side that reads or writes only that layout."""
    source, target = _layout_names(perm_of(op))
    readers = list(dict.fromkeys(use.operation for use in op.transposed.uses))
    if PLACE_ATTR in op.attributes or location_nodes(op.location):
        return f"the model's own {node_label(op)}"
    if isinstance(op.data.owner, Block):
        order = source if perm_of(op) in LAYOUTS else "in the model's dim order"
        return f"the model input '{op.data.name_hint}' is {order}"
    if readers and all(isinstance(r, func.ReturnOp) for r in readers):
        names = ", ".join(f"'{output_names[v]}'" for v in [op.transposed] if output_names.get(v))
        output = f"the model output {names}" if names else "a model output"
        order = target if perm_of(op) in LAYOUTS else "in the model's dim order"
        return f"{output} is {order}"
    producer = op.data.owner
    while _stays_with_producer(producer):
        producer = producer.operands[0].owner
    if producer.name != "cpu.call_mlip" and _rank(producer) is None and not _is_host_reshape(producer):
        return f"{_reader_label(producer)} writes {source}"
    fixed = [r for r in readers if not isinstance(r, func.ReturnOp) and _rank(r) is None and not _is_host_reshape(r)]
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
                if isinstance(op, g.TransposeOp) and (perm_of(op) in LAYOUTS or not location_nodes(op.location)):
                    op.attributes[LAYOUT_REASON_ATTR] = StringAttr(layout_reason(op, names))
