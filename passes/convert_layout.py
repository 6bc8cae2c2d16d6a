"""convert-layout: settle the NCHW <-> NHWC transposes that fuse-mrvl left around layers.

- Equal transposes of one value merge (the one kind of op fuse-mrvl duplicates);
- Transposes of transposes compose (and vanish when they cancel out);
- transposes of constants are done now, into the weight store;
- inside a `mrvl.subgraph`, an NCHW -> NHWC transpose of an input becomes an MLIP
  `mrvl.layout_transform` (as TVM's flow ran it);
- an NHWC -> NCHW transpose of a subgraph output moves to the host, after the
  `cpu.call_mlip` (MLIP has no NHWC -> NCHW layer): the subgraph then returns NHWC, and
  where the model transposes that output back to NHWC (keras2onnx, tf2onnx), the two cancel;
- on the host, a transpose sinks below the pad and slice of dim 0 around a call in chunks
  (chunk-mrvl-batch), and each region of host ops that do not care about the layout
  (element-wise ops, Concat, Split, Slice, Pad, Softmax, nearest Resize, reductions, pools,
  and the reshapes that move no element in the layout chosen: `host_layout.py`) computes in
  the layout that transposes least. An NHWC region's inputs
  from a subgraph and its outputs into the next subgraph need no transpose: the next
  subgraph takes NHWC (its `mrvl.layout_transform` goes), so a chain subgraph -> host glue
  -> subgraph passes NHWC through the host. An NHWC model input that the model transposes
  to NCHW (keras2onnx, tf2onnx) cancels the same way, and a host op that needs the NCHW
  tensor keeps its transpose;
- last, a transpose left on the host that moves only dims of size 1 (NHWC -> NCHW of a
  global pool's [N, 1, 1, C], read by the Flatten that partition-mrvl left on the host)
  becomes a Reshape: the same elements in the same order, an alias in plan-host-memory;
- each layout transpose left on the host records why (`mrvl.layout_reason`).
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, DenseResourceAttr, FunctionType, ModuleOp, TensorType, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import cpu, mrvl
from mrvl_dialect.cpu import CallMlipOp, chunked_type
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_ops_gen import TransposeOp
from mrvl_dialect.weights import WeightStore
from mrvl.passes.fuse_mrvl import TO_NCHW, TO_NHWC
from mrvl_dialect.graph_queries import constant_value, module_of
from mrvl_dialect.locations import location_nodes
from mrvl.passes.host_layout import (SWAPPED_SPATIAL, assign_host_layouts, calls_by_callee, compose, explain_transposes,
                                     is_identity, on_host, per_pixel, perm_of, reorders, transpose)
from mrvl.passes.patterns_by_op_class import MatchingOpsWalker, PatternsByOpClass


class TransposesCompose(RewritePattern):
    """transpose(transpose(x, p), q) -> transpose(x, p[q]), or x when that is the identity."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        inner = op.data.owner
        if not isinstance(inner, TransposeOp):
            return
        outer_perm, inner_perm = perm_of(op), perm_of(inner)
        composed = tuple(inner_perm[q] for q in outer_perm)
        if composed == tuple(range(len(composed))):
            rewriter.replace(op, [], [inner.data])
        else:
            new = transpose(inner.data, composed)
            model_own = next((t for t in (op, inner) if location_nodes(t.location)), None)
            if model_own is not None:  # the model's Transpose, composed with another
                new.location, new.attributes = model_own.location, dict(model_own.attributes)
            rewriter.replace(op, new)
        if not inner.transposed.uses:
            rewriter.erase(inner)


class TransposeOfConstantFolds(RewritePattern):
    """transpose(constant) -> a transposed constant, computed now."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        array = constant_value(op.data)
        if array is None or (module := module_of(op)) is None:
            return
        source = op.data.owner
        assert isinstance(source, ConstantOp)
        name = f"{source.value.resource_handle.data if isinstance(source.value, DenseResourceAttr) else 'constant'}.t"
        result = np.ascontiguousarray(np.transpose(array, perm_of(op)))
        handle = WeightStore.of(module).add(name, result)
        result_type = op.transposed.type
        rewriter.replace(op, ConstantOp(DenseResourceAttr.from_params(handle, result_type)))


class InputTransposeIsLayoutTransform(RewritePattern):
    """In a subgraph, NCHW -> NHWC of an input runs on MLIP as a layout_transform layer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op.parent_op(), mrvl.SubgraphOp) or perm_of(op) != TO_NHWC:
            return
        if op.data.owner is not op.parent_block():  # only block arguments: subgraph inputs
            return
        layer = mrvl.LayoutTransformOp.create(operands=[op.data], result_types=[op.transposed.type])
        layer.location = op.location
        rewriter.replace(op, layer)


def _resized_batch(op: Operation) -> bool:
    """A `cpu.pad` (zeros) or `cpu.slice` that only adds or drops images at the end of dim 0:
    what chunk-mrvl-batch puts around a call in chunks."""
    dims = cpu.shape_of(op.operands[0])
    if isinstance(op, cpu.PadOp):
        pads = list(op.pads.get_values())
        return (op.mode.data == cpu.PadMode.CONSTANT and op.value.value.data == 0 and pads[0] == 0
                and not any(pads[1:len(dims)]) and not any(pads[len(dims) + 1:]))
    if isinstance(op, cpu.SliceOp):
        return (not any(op.starts.get_values()) and set(op.steps.get_values()) == {1}
                and list(op.ends.get_values())[1:] == list(dims[1:]))
    return False


class TransposeSinksBelowBatchResize(RewritePattern):
    """resize_batch(transpose(x, p)) -> transpose(resize_batch(x), p) when p keeps dim 0 first
    (`_resized_batch`: the pad or slice of a call in chunks): the transposes either side of
    the call then meet the others, compose and cancel, as they do around a call of one chunk."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        source = op.operands[0].owner if op.operands else None
        if (not isinstance(op, cpu.PadOp | cpu.SliceOp) or not isinstance(source, TransposeOp)
                or not op.operands[0].has_one_use() or perm_of(source)[0] != 0 or not _resized_batch(op)):
            return
        x = source.data
        dims = list(x.type.get_shape())  # type: ignore[attr-defined]
        dims[0] = cpu.shape_of(op.results[0])[0]
        properties = dict(op.properties)
        if isinstance(op, cpu.SliceOp):
            properties["ends"] = DenseArrayBase.from_list(i64, dims)
        inner = type(op).create(operands=[x], result_types=[TensorType(x.type.element_type, dims)],  # type: ignore
                                properties=properties, attributes=dict(op.attributes))
        inner.location = op.location
        inner.results[0].name_hint = op.results[0].name_hint
        outer = transpose(inner.results[0], perm_of(source))
        rewriter.replace_op(op, [inner, outer], [outer.transposed])
        rewriter.erase(source)


class TransposeOfUnitDimsIsReshape(RewritePattern):
    """On the host, a transpose that moves only dims of size 1 (NHWC -> NCHW of an
    [N, 1, 1, C] global pool result) keeps the elements in order: it becomes a Reshape,
    which plan-host-memory makes an alias of its input, not a copy."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        if not on_host(op) or reorders(op.data.type.get_shape(), perm_of(op)) or (module := module_of(op)) is None:
            return
        result, name = op.transposed.type, op.transposed.name_hint
        shape = np.array(result.get_shape(), np.int64)
        value = WeightStore.of(module).constant_attr(f"{name or 'transpose'}.shape", shape, TensorType(i64, [len(shape)]))
        target = ConstantOp(value)
        target.results[0].name_hint = f"{name}_shape" if name else None
        reshape = g.ReshapeOp.create(operands=[op.data, target.results[0]], result_types=[result])
        rewriter.replace(op, [target, reshape])


def merge_equal_transposes(module: ModuleOp) -> None:
    """Transposes of one value by one perm (and with the same attributes) in one block
    become the first of them: fuse-mrvl transposes a value once per layer that reads it."""
    kept: dict[tuple, TransposeOp] = {}
    duplicates: list[tuple[TransposeOp, TransposeOp]] = []
    for op in module.walk():
        if isinstance(op, TransposeOp) and not op.data.has_one_use():
            key = (op.parent, op.data, perm_of(op), frozenset(op.attributes.items()))
            first = kept.setdefault(key, op)
            if first is not op:
                duplicates.append((op, first))
    for op, first in duplicates:
        op.transposed.replace_all_uses_with(first.transposed)
        Rewriter.erase_op(op)


def absorb_input_transposes(module: ModuleOp) -> bool:
    """An NHWC -> NCHW transpose on the host that feeds a subgraph input which the subgraph
    only transposes back (its `mrvl.layout_transform`) cancels: the subgraph takes NHWC.
    For subgraphs called once. A subgraph of one input whose layers are all per pixel
    (`per_pixel`) takes NHWC with H and W swapped the same way: its tensors are swapped, and
    its results swapped back on the host (where they compose with the transposes that read
    them). Returns whether anything changed."""
    calls = calls_by_callee(module)
    changed = False
    for subgraph in [op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)]:
        sites = calls.get(subgraph.sym_name.data, [])
        if len(sites) != 1:
            continue
        call, block = sites[0], subgraph.body.block
        for i, operand in enumerate(call.operands):
            source, arg = operand.owner, block.args[i]
            uses = list(arg.uses)
            if not isinstance(source, TransposeOp) or len(uses) != 1:
                continue
            layer = uses[0].operation
            if not isinstance(layer, mrvl.LayoutTransformOp):
                continue
            change = compose(perm_of(source), TO_NHWC)
            swapped = (change == SWAPPED_SPATIAL and len(block.args) == 1 and call.chunk_count() == 1
                       and per_pixel(subgraph))
            if not is_identity(change) and not swapped:
                continue
            # a chunk's type, if the call chunks
            Rewriter.replace_value_with_new_type(arg, source.data.type if swapped else layer.results[0].type
                                                 ).name_hint = source.data.name_hint
            layer.results[0].replace_all_uses_with(block.args[i])
            Rewriter.erase_op(layer)
            call.operands[i] = source.data
            if not source.transposed.uses:
                Rewriter.erase_op(source)
            if swapped:
                call = _swap_spatial_dims(subgraph, call)
            subgraph.properties["function_type"] = FunctionType.from_lists(
                [a.type for a in block.args], [v.type for v in block.last_op.operands])  # type: ignore[union-attr]
            changed = True
    return changed


def _swap_spatial_dims(subgraph: mrvl.SubgraphOp, call: Operation) -> Operation:
    """Swap H and W in the results of a per-pixel subgraph's layers; its call returns them so,
    and transposes on the host swap them back. Returns the new call."""
    for op in subgraph.body.block.ops:
        if not isinstance(op, ConstantOp | mrvl.YieldOp):
            for result in op.results:
                dims = list(result.type.get_shape())  # type: ignore[attr-defined]
                Rewriter.replace_value_with_new_type(result, TensorType(
                    result.type.element_type, [dims[p] for p in SWAPPED_SPATIAL]))  # type: ignore[attr-defined]
    outputs = [v.type for v in subgraph.body.block.last_op.operands]  # type: ignore[union-attr]
    return _retarget_call(call, outputs, dict.fromkeys(range(len(outputs)), SWAPPED_SPATIAL))


def move_output_transposes_to_host(module: ModuleOp) -> None:
    """Subgraph outputs produced by NHWC -> NCHW transposes are returned NHWC instead, and
    the transposes run on the host after every call of the subgraph."""
    calls = calls_by_callee(module)
    for subgraph in [op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)]:
        yield_op = subgraph.body.block.last_op
        assert isinstance(yield_op, mrvl.YieldOp)
        moved: dict[int, tuple[int, ...]] = {}
        for i, value in enumerate(yield_op.values):
            producer = value.owner
            if isinstance(producer, TransposeOp) and perm_of(producer) == TO_NCHW:
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


def _retarget_call(call: Operation, outputs: list, moved: dict[int, tuple[int, ...]]) -> Operation:
    """`call` with these result types; result i in `moved` is transposed by its perm after it,
    for the readers of the old result. Returns the new call."""
    assert isinstance(call, CallMlipOp)
    new_call = type(call).create(
        operands=call.operands, result_types=[chunked_type(t, call.chunk_count()) for t in outputs],
        properties=dict(call.properties),
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
    return new_call


@dataclass(frozen=True)
class ConvertLayoutPass(ModulePass):
    """Cancel, fold and place the layout transposes around MLIP layers (module docstring)."""

    name = "convert-layout"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        merge_equal_transposes(op)
        transposes = (TransposeOp,)
        MatchingOpsWalker(PatternsByOpClass([
            (transposes, TransposesCompose()), (transposes, TransposeOfConstantFolds()),
            (transposes, InputTransposeIsLayoutTransform())])).rewrite_module(op)
        move_output_transposes_to_host(op)
        MatchingOpsWalker(PatternsByOpClass([
            (transposes, TransposesCompose()),
            ((cpu.PadOp, cpu.SliceOp), TransposeSinksBelowBatchResize()),
            (transposes, TransposeOfConstantFolds())])).rewrite_module(op)
        # The regions' costs count the transposes the next subgraphs absorb: one round decides.
        assign_host_layouts(op)
        absorb_input_transposes(op)
        # Last: a transpose that is a reshape might still have sunk or cancelled, or met the
        # one swapping back a subgraph's spatial dims.
        MatchingOpsWalker(PatternsByOpClass([
            (transposes, TransposesCompose()), (transposes, TransposeOfUnitDimsIsReshape())]),
            erase_dead=False).rewrite_module(op)
        explain_transposes(op)
