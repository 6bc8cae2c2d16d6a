"""chunk-mrvl-batch: a subgraph whose batch is over MLIP's limit runs in chunks MLIP takes.

MLIP runs at most `MAX_BATCH` images a call. A subgraph whose every layer keeps the batch
as dim 0 (`region_batch`: every tensor its layers read from each other, from the host or
write has the same dim 0, and no elementwise layer adds a constant that differs per
image) computes each image alone, so it computes as well on consecutive slices of the
batch. Such a subgraph of batch N is compiled for `chunk` images and called `calls` times
(`chunking`): the fewest calls MLIP allows, balanced, chunk = ceil(N / ceil(N / MAX_BATCH))
(16 -> 2 x 8, 9 -> 2 x 5, 17 -> 3 x 6), so one subgraph (one binary, its weights once)
serves every call and at most calls - 1 padding images are computed. On the host, the
inputs are zero-padded along dim 0 to calls x chunk images when N is not a multiple, the
call gets `chunks` (the C code loops over the chunks: no copies, the slices of a leading
dim being contiguous) and the results are cut back to N:

    %y = cpu.call_mlip @sg(%x) : (tensor<17x3x24x24xf32>) -> tensor<17x10xf32>
    mrvl.subgraph @sg(%x: tensor<17x3x24x24xf32>) -> tensor<17x10xf32> {...}
    ->
    %x_padded = cpu.pad constant %x {pads = array<i64: 0, 0, 0, 0, 1, 0, 0, 0>, value = 0.0 : f32}
                  : (tensor<17x3x24x24xf32>) -> tensor<18x3x24x24xf32>
    %y_padded = cpu.call_mlip @sg(%x_padded) {chunks = 3 : i64} : (tensor<18x3x24x24xf32>) -> tensor<18x10xf32>
    %y = cpu.slice %y_padded {starts = array<i64: 0, 0>, ends = array<i64: 17, 10>, ...} : (...) -> tensor<17x10xf32>
    mrvl.subgraph @sg(%x: tensor<6x3x24x24xf32>) -> tensor<6x10xf32> {...}

Inside the subgraph every tensor of dim 0 N gets dim 0 `chunk`, and a Reshape's constant
shape that spells N out spells `chunk`. Runs after `partition-mrvl` (which sends to the
host, under rule `batch.max`, the layers of a region over the limit that does not keep
the batch) and before `fuse-mrvl` (whose layers verify the batch).
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, FunctionType, IntegerAttr, ModuleOp, TensorType, f32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import cpu
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_op, constant_value, node_label, shape
from mrvl_dialect.mrvl import MAX_BATCH, SubgraphOp
from mrvl_dialect.weights import WeightStore

PASS_NAME = "chunk-mrvl-batch"

WEIGHT_OPERANDS = {"Conv": (1, 2), "Gemm": (1,), "MatMul": (1,), "BatchNormalization": (1, 2, 3, 4)}
"""Operands that are a layer's weights, whatever their shape (not a tensor per image)."""


def chunking(batch: int) -> tuple[int, int]:
    """(chunk, calls) for a batch: the fewest calls of at most MAX_BATCH images, balanced."""
    calls = -(-batch // MAX_BATCH)
    return -(-batch // calls), calls


def _batch_of(value: SSAValue) -> int | None:
    dims = shape(value)
    return dims[0] if dims else None


def _per_image_values(op: Operation) -> list[SSAValue]:
    """The tensors of `op` that hold one entry per image: its results and the operands that
    are not constants."""
    return [*(v for v in op.operands if constant_op(v) is None), *op.results]


def batch_problem(op: Operation) -> str | None:
    """Why `op` does not compute each image of its batch alone, or None when it does: every
    tensor it reads (constants aside) or writes has the same dim 0, and a constant it
    combines with them (not its weights) has batch 1 or a lower rank."""
    values = _per_image_values(op)
    batches = list(dict.fromkeys(_batch_of(v) for v in values))
    if len(batches) != 1 or batches[0] is None:
        return f"dim 0 goes {' -> '.join('?' if b is None else str(b) for b in batches)}"
    rank = len(shape(op.results[0]) or ()) if op.results else 0
    weights = WEIGHT_OPERANDS.get(op.name.removeprefix("graph."), ())
    for i, value in enumerate(op.operands):
        dims = shape(value)
        if i not in weights and constant_op(value) is not None and dims and len(dims) == rank and dims[0] != 1:
            return f"constant input {i} has batch {dims[0]}"
    return None


def largest_batch(ops: Sequence[Operation], inputs: Iterable[SSAValue], outputs: Iterable[SSAValue]) -> int:
    """The largest batch of a region (subgraph): `region_batch`'s first half, for a caller
    that needs why only when it is over MLIP's limit."""
    values = [*inputs, *outputs, *(v for op in ops for v in _per_image_values(op))]
    return max((b for v in values if (b := _batch_of(v)) is not None), default=1)


def region_batch(ops: Sequence[Operation], inputs: Iterable[SSAValue], outputs: Iterable[SSAValue]) -> tuple[int, str | None]:
    """The largest batch of a region (subgraph) and, when it does not keep one batch as dim 0
    throughout (see the module docstring), why not."""
    values = [*inputs, *outputs, *(v for op in ops for v in _per_image_values(op))]
    batches = sorted({b for v in values if (b := _batch_of(v)) is not None})
    largest = batches[-1] if batches else 1
    for op in ops:
        if (problem := batch_problem(op)) is not None:
            return largest, f"{node_label(op)}: {problem}"
    if len(batches) > 1 or any(_batch_of(v) is None for v in values):
        return largest, f"its tensors have batches {', '.join(map(str, batches))}"
    return largest, None


def over_limit(ops: Sequence[Operation]) -> list[Operation]:
    """The ops of `ops` with a tensor of batch over MAX_BATCH."""
    return [op for op in ops if any((_batch_of(v) or 0) > MAX_BATCH for v in _per_image_values(op))]


# --- The rewrite ---------------------------------------------------------------------------


def _with_batch(value_type, batch: int) -> TensorType:
    assert isinstance(value_type, TensorType)
    return TensorType(value_type.element_type, [batch, *value_type.get_shape()[1:]], value_type.encoding)


def compile_for_chunk(subgraph: SubgraphOp, batch: int, chunk: int, store: WeightStore) -> None:
    """Retype the subgraph's tensors of dim 0 `batch` to `chunk`, Reshape shapes included."""
    block = subgraph.body.block
    for arg in list(block.args):
        Rewriter.replace_value_with_new_type(arg, _with_batch(arg.type, chunk))
    for op in list(block.ops):
        if isinstance(op, g.ReshapeOp):
            _respell_shape(op, batch, chunk, store)
        if isinstance(op, ConstantOp):
            continue
        for result in list(op.results):
            if _batch_of(result) == batch:
                Rewriter.replace_value_with_new_type(result, _with_batch(result.type, chunk))
    yielded = block.last_op
    assert yielded is not None
    subgraph.properties["function_type"] = FunctionType.from_lists(
        [a.type for a in block.args], [v.type for v in yielded.operands])


def _respell_shape(reshape: Operation, batch: int, chunk: int, store: WeightStore) -> None:
    """A Reshape whose constant shape spells the batch out gets a shape that spells `chunk`."""
    target = constant_value(reshape.operands[1])
    if target is None or not target.size or target[0] != batch:
        return
    respelled = np.array([chunk, *target[1:]], np.int64)
    constant = ConstantOp(store.constant_attr(f"{reshape.operands[1].name_hint or 'shape'}_chunk", respelled,
                                              reshape.operands[1].type))
    constant.results[0].name_hint = reshape.operands[1].name_hint
    Rewriter.insert_op(constant, InsertPoint.before(reshape))
    old = reshape.operands[1]
    reshape.operands[1] = constant.results[0]
    if not old.uses:
        Rewriter.erase_op(old.owner)  # type: ignore[arg-type]


def call_in_chunks(call: cpu.CallMlipOp, batch: int, chunk: int, calls: int) -> None:
    """`call` (of a subgraph now compiled for `chunk`) -> the inputs padded to calls x chunk
    images, one call in `calls` chunks, the results cut back to `batch` images."""
    padded = chunk * calls
    operands = []
    for value in call.args:
        if padded == batch:
            operands.append(value)
            continue
        rank = len(cpu.shape_of(value))
        pad = cpu.PadOp.create(
            operands=[value], result_types=[_with_batch(value.type, padded)],
            properties={"pads": DenseArrayBase.from_list(i64, [0] * rank + [padded - batch] + [0] * (rank - 1)),
                        "mode": cpu.PadModeAttr(cpu.PadMode.CONSTANT), "value": FloatAttr(0.0, f32)})
        pad.location = call.location
        pad.results[0].name_hint = f"{value.name_hint}_padded" if value.name_hint else None
        Rewriter.insert_op(pad, InsertPoint.before(call))
        operands.append(pad.results[0])
    chunked = cpu.CallMlipOp.create(
        operands=operands, result_types=[_with_batch(r.type, padded) for r in call.res],
        properties={**call.properties, "chunks": IntegerAttr(calls, i64)}, attributes=dict(call.attributes))
    chunked.location = call.location
    Rewriter.insert_op(chunked, InsertPoint.before(call))
    last: Operation = chunked
    for old, new in zip(call.res, chunked.res):
        new.name_hint = old.name_hint
        if padded != batch:
            dims = cpu.shape_of(old)
            cut = cpu.SliceOp.create(
                operands=[new], result_types=[old.type],
                properties={"starts": DenseArrayBase.from_list(i64, [0] * len(dims)),
                            "ends": DenseArrayBase.from_list(i64, list(dims)),
                            "steps": DenseArrayBase.from_list(i64, [1] * len(dims))})
            cut.location = call.location
            new.name_hint = f"{old.name_hint}_padded" if old.name_hint else None
            cut.results[0].name_hint = old.name_hint
            Rewriter.insert_op(cut, InsertPoint.after(last))
            last = cut
            new = cut.results[0]
        old.replace_all_uses_with(new)
    Rewriter.erase_op(call)


@dataclass(frozen=True)
class ChunkMrvlBatchPass(ModulePass):
    """Compile each subgraph of a batch over MLIP's limit for a chunk of it and call it once
    per chunk (see the module docstring). No options: the chunks are the fewest MLIP allows."""

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        calls_of: dict[str, list[cpu.CallMlipOp]] = {}
        for nested in op.walk():
            if isinstance(nested, cpu.CallMlipOp):
                calls_of.setdefault(nested.callee.root_reference.data, []).append(nested)
        for subgraph in [s for s in op.ops if isinstance(s, SubgraphOp)]:
            block = subgraph.body.block
            yielded = block.last_op
            assert yielded is not None
            ops = [o for o in block.ops if not isinstance(o, ConstantOp) and o is not yielded]
            if largest_batch(ops, block.args, yielded.operands) <= MAX_BATCH:
                continue
            batch, problem = region_batch(ops, block.args, yielded.operands)
            symbol = subgraph.sym_name.data
            if problem is not None:
                raise CompileError(f"@{symbol}", f"batch {batch} is over MLIP's limit of {MAX_BATCH} and the "
                                   f"subgraph cannot run in chunks ({problem}): partition-mrvl keeps such layers "
                                   "on the host")
            sites = calls_of.get(symbol, [])
            if any(c.chunks is not None for c in sites):
                raise CompileError(f"@{symbol}", "is called in chunks already")
            chunk, calls = chunking(batch)
            compile_for_chunk(subgraph, batch, chunk, WeightStore.of(op))
            for call in sites:
                call_in_chunks(call, batch, chunk, calls)

