"""plan-host-memory: where every tensor of the host code lives, recorded on the `cpu` ops,
and constant conv and GEMM weights in the layout their kernel reads; the C emitter only
prints it. It plans functions whose kernels `select-host-kernels` chose (their
`cpu.kernels_selected`: `mrvl-host-pipeline` runs both) and reads each op's `kernel`.

Rules, for each `func.func` of `cpu` ops (see `mrvl_dialect/cpu.py` for the attributes):

- weight packing: a constant read as the weights of a conv on the `direct` or `flat` kernel,
  or as the B of a `cpu.gemm` or of a `cpu.matmul` with a (K, N) B (float32, N >= half a
  panel: fewer columns would mostly be padding), becomes a packed constant
  (`pack_conv_weights`, one per distinct group count; `pack_gemm_weights` of B', one per
  transposition; transformed for a `winograd` conv, `pack_winograd_weights`), in the weight
  store, right before it; the op gets `packed_weights` (conv) or `packed_b`, and the constant
  goes when nothing else reads it. A product of at most GEMM_DOT_ROWS rows (`reads_rows_of_b`:
  a fully connected layer on a sample or a few) reads B's (N, K) rows instead, one dot product
  each, streaming B from memory once: its (K, N) B becomes the transposed constant (a
  `cpu.gemm` gets trans_b, a `cpu.matmul` `transposed_b`) and a transposed B stays as it is.
  Weights the IR carries no data for stay (the C emitter names them); run-time weights of a
  `direct` or `flat` conv are packed into the front of its scratch (`packing_floats`); a
  `winograd` conv's must be constants with data (else an error); the int8 or uint8 weights of
  a `cpu.qlinear_conv` become int8 constants in its kernel's layout (`pack_qconv_weights`:
  panels with their row sums, or a depthwise conv's taps), the op recording `packed_weights`,
  `weights_shape` and, for uint8 weights, `w_shift`;
- outputs: a result of the function is written straight into the caller's buffer (offset -1);
- aliasing: a `cpu.reshape` whose result is not a result of the function shares its input's
  storage (`alias`), and its readers count as readers of that storage;
- concat in place: a `cpu.concat` that is not a result of the function, whose inputs are
  distinct results of `cpu.conv`s read by the concat only, each slice contiguous in the output
  (every dim before the axis 1) or, along the channels of a batch, each conv on a kernel that
  writes its images a batch stride apart (`STRIDED_CONV_KERNELS`; such a conv gets `y_batch`,
  the concat's image size), gets `in_place` (every input): each conv writes its result straight
  into its slice of the concat's output (its offset is the output's plus its first image's
  slice's, aligned to the element only), and the concat costs nothing; the output is live from
  the first conv;
- strided slices: otherwise (a channels-last concat: each input's rows are strided in the
  output), a concat input that a `cpu.elementwise` computes and only the concat reads is
  written by it into its slice, with the output's strides (`out_strides`, its loop recomputed;
  not when the innermost loop dim would be strided); so is a nearest `cpu.resize`'s, along the
  last dim (`out_strides`: the output's strides, its rows a row of the output apart).
  Consecutive inputs that are all the pieces of a `cpu.split` along the same axis, in order,
  of such a result (C2f) are too: that result is written into the concat's output, the split
  reads it there (`in_strides`) and writes only the pieces something else also reads (the
  others, in its `in_place`, lie in their slices). The concat's `in_place` lists the inputs it
  need not copy;
- elementwise in place: a `cpu.elementwise`, or a single elementwise op (`IN_PLACE_OPS`),
  whose result is not a result of the function or written into a concat's slice writes it
  over the first of its inputs of the result's type whose storage it reads last, a result of a
  host op or call (not an input of the function, a weight, a result of the function or a
  result lying in a concat's output): it gets `in_place` (that input's index) and its result
  shares that storage, as an aliasing reshape's does. Its kernel reads each element before it
  writes it, in the same step, so nothing it still needs is overwritten; and a cold output
  buffer would cost the caches a read of each line before the write;
- scratch: the workspace a kernel needs during its call (`host_kernels.scratch_bytes`), live
  for that op only (`scratch`);
- lifetimes: every other result lives in the workspace from its op to the op of its last
  reader (the end, for storage a result of the function aliases), placed by greedy first fit
  in op order (results before scratch), WORKSPACE_ALIGN-aligned; storage is free after the
  op of its last use, so no other op writes over an operand it reads (`offsets`);
- the function gets `cpu.workspace`: the size of the whole plan and its alignment.

The pass plans again from scratch when run twice; weights already packed stay packed.
"""

import heapq
import math
from bisect import insort
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    DenseResourceAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    f32,
    i8,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from mrvl_dialect import cpu
from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.weights import WeightStore
from mrvl_dialect.graph_queries import constant_value
from mrvl_dialect.locations import op_label
from mrvl.target.host_kernels import (contiguous_strides, elementwise_loop_into, kernel_macro, pack_conv_weights,
                                      pack_gemm_weights, pack_qconv_weights, pack_winograd_weights,
                                      packed_weights_floats, reads_rows_of_b, scratch_bytes)

WORKSPACE_ALIGN = 64
"""Alignment (bytes) of the workspace and of every tensor and scratch area in it."""
PLAN_PROPERTIES = ("offsets", "scratch", "alias", "in_place", "packing_floats", "y_batch", "out_strides", "in_strides")
PACKED_CONV_KERNELS = (cpu.ConvKernel.DIRECT, cpu.ConvKernel.FLAT)
"""The conv kernels that read their weights packed (`pack_conv_weights`)."""


def align(n: int) -> int:
    return -(-n // WORKSPACE_ALIGN) * WORKSPACE_ALIGN


def element_bytes(value: SSAValue) -> int:
    """The bytes of one element of a tensor value in host memory."""
    assert isinstance(value.type, TensorType)
    element = BY_XDSL.get(value.type.element_type)
    if element is None or element.numpy is None or isinstance(element.xdsl, ComplexType):
        raise CompileError(f"tensor of type {value.type}", "the C backend has no element type for it")
    return element.numpy.itemsize


def tensor_bytes(value: SSAValue) -> int:
    """The bytes of a tensor value in host memory."""
    return math.prod(cpu.shape_of(value)) * element_bytes(value)


def packed_layout(op: Operation, operand: int) -> tuple[str, int] | None:
    """The packed layout operand `operand` of `op` is read in when it is the float32 weights of
    a kernel that reads them packed, and not packed yet: ("conv", group count) or ("gemm",
    1 when B is transposed, else 0); ("winograd", 1) for those of a `winograd` conv
    (`pack_winograd_weights`); ("rows", 0) for the (K, N) B of a product that dots a
    few rows of A with B's rows (`reads_rows_of_b`), which reads B transposed; ("qconv", group
    count) for the int8 weights of a `cpu.qlinear_conv`; None otherwise."""
    if isinstance(op, cpu.QLinearConvOp):
        if operand != 3 or op.packed_weights is not None:
            return None
        return ("qconv", op.group.value.data)
    if operand != 1 or cpu.element_type_of(op.operands[1]) != f32:
        return None
    if isinstance(op, cpu.ConvOp):
        if op.packed_weights is not None:
            return None
        if _kernel(op) == cpu.ConvKernel.WINOGRAD:
            return ("winograd", 1)
        return ("conv", op.group.value.data) if _kernel(op) in PACKED_CONV_KERNELS else None
    if not isinstance(op, cpu.GemmOp | cpu.MatmulOp) or op.packed_b is not None:
        return None
    if isinstance(op, cpu.MatmulOp) and op.transposed_b is not None:
        return None
    if reads_rows_of_b(op):
        return None if isinstance(op, cpu.GemmOp) and op.trans_b.value.data else ("rows", 0)
    if len(cpu.shape_of(op.B)) != 2 or len(cpu.shape_of(op.A)) < 2:
        return None
    if 2 * cpu.shape_of(op.Y)[-1] < kernel_macro("GEMM_PANEL"):
        return None
    return ("gemm", int(isinstance(op, cpu.GemmOp) and op.trans_b.value.data))


def _kernel(op: cpu.ConvOp) -> cpu.ConvKernel:
    """The kernel `select-host-kernels` recorded on `op`."""
    assert op.kernel is not None, "plan-host-memory plans functions whose kernels are selected"
    return op.kernel.data


def packed_constant(array: np.ndarray, layout: tuple[str, int]) -> np.ndarray:
    """`array` packed in `layout` (`packed_layout`)."""
    kind, parameter = layout
    if kind == "qconv":
        depthwise = array.shape[1] == 1 and parameter == array.shape[0]
        return pack_qconv_weights(array, parameter, depthwise)
    if kind == "conv":
        return pack_conv_weights(array, parameter)
    if kind == "winograd":
        return pack_winograd_weights(array)
    if kind == "rows":
        return np.ascontiguousarray(array.T)
    return pack_gemm_weights(array.T if parameter else array)


def pack_weights(block: Block, module: ModuleOp) -> None:
    """The weight packing rule (see the module docstring)."""
    store = WeightStore.of(module)
    for constant in [op for op in block.ops if isinstance(op, ConstantOp)]:
        value = constant.output
        readers: dict[tuple[str, int], list[Operation]] = defaultdict(list)
        for use in list(value.uses):
            if (layout := packed_layout(use.operation, use.index)) is not None:
                readers[layout].append(use.operation)
        if not readers or (array := constant_value(value, module)) is None:
            continue
        for layout in sorted(readers):
            name = f"{value.name_hint or 'weight'}_{'transposed' if layout[0] == 'rows' else 'packed'}"
            packed = packed_constant(array, layout)
            element = i8 if layout[0] == "qconv" else f32
            attr = DenseResourceAttr.from_params(store.add(name, packed), TensorType(element, packed.shape))
            replacement = ConstantOp(attr)
            replacement.location = constant.location
            replacement.output.name_hint = name
            block.insert_op_before(replacement, constant)
            for op in readers[layout]:
                if layout[0] == "qconv":
                    op.operands[3] = replacement.output
                    op.properties["packed_weights"] = UnitAttr()
                    op.properties["weights_shape"] = DenseArrayBase.from_list(i64, array.shape)
                    if array.dtype == np.uint8:
                        op.properties["w_shift"] = IntegerAttr(128, i64)
                    continue
                op.operands[1] = replacement.output
                if layout[0] == "rows" and isinstance(op, cpu.GemmOp):
                    op.properties["trans_b"] = BoolAttr.from_bool(True)
                elif layout[0] == "rows":
                    op.properties["transposed_b"] = UnitAttr()
                else:
                    op.properties["packed_weights" if layout[0] in ("conv", "winograd") else "packed_b"] = UnitAttr()
        if not value.uses:
            block.erase_op(constant)


def first_fit(buffers: list[tuple[object, int, int, int]]) -> tuple[dict[object, int], int]:
    """Offsets for `(key, bytes, first op index, last use index)` in definition order, and the
    total: each at the lowest offset where it fits between the buffers still live. A buffer
    is live through the op of its last use."""
    offsets: dict[object, int] = {}
    total = 0
    live: list[tuple[int, int, int]] = []  # (offset, size, id), by offset
    ends: list[tuple[int, int, int, int]] = []  # (last use, id, offset, size): a heap
    for n, (key, size, start, end) in enumerate(buffers):
        while ends and ends[0][0] < start:
            _, done, done_offset, done_size = heapq.heappop(ends)
            live.remove((done_offset, done_size, done))
        size = align(max(size, 1))
        offset = 0
        for live_offset, live_size, _ in live:
            if offset + size <= live_offset:
                break
            offset = max(offset, live_offset + live_size)
        insort(live, (offset, size, n))
        heapq.heappush(ends, (end, n, offset, size))
        offsets[key] = offset
        total = max(total, offset + size)
    return offsets, total


STRIDED_CONV_KERNELS = (cpu.ConvKernel.DIRECT, cpu.ConvKernel.FLAT, cpu.ConvKernel.POINTWISE, cpu.ConvKernel.WINOGRAD)
"""The conv kernels that write their images a batch stride apart (mrvl_conv_params.y_batch)."""


def in_place_concats(ops: list[Operation], returned: set[SSAValue]) -> dict[SSAValue, tuple[SSAValue, int]]:
    """The concat-in-place rules (see the module docstring): each result written into (or,
    for a split's result not written, lying in) a concat's output, mapped to (that output, the
    byte offset of its first element, or of its first image's slice for a conv)."""
    slices: dict[SSAValue, tuple[SSAValue, int]] = {}
    for op in ops:
        if not isinstance(op, cpu.ConcatOp) or op.output in returned:
            continue
        inputs, axis = list(op.inputs), op.axis.value.data
        if len(set(inputs)) != len(inputs):
            continue
        outer = math.prod(cpu.shape_of(op.output)[:axis])
        if (all(isinstance(v.owner, cpu.ConvOp) and v.has_one_use() and v not in returned for v in inputs)
                and (outer == 1 or (axis == 1 and all(_kernel(v.owner) in STRIDED_CONV_KERNELS for v in inputs)))):
            offset = 0
            for value in inputs:
                slices[value] = (op.output, offset)
                offset += tensor_bytes(value) // outer
                if cpu.shape_of(value)[0] > 1:  # its images are slices of the concat's images: that far apart
                    value.owner.properties["y_batch"] = IntegerAttr(math.prod(cpu.shape_of(op.output)[1:]), i64)
            op.properties["in_place"] = DenseArrayBase.from_list(i64, list(range(len(inputs))))
            continue
        if written := written_slices(op, returned, slices):
            op.properties["in_place"] = DenseArrayBase.from_list(i64, written)
    return slices


def _writes_slice(value: SSAValue, axis: int, returned: set[SSAValue],
                  slices: dict[SSAValue, tuple[SSAValue, int]]) -> bool:
    """Whether `value`'s producer can write it into a slice along `axis` of a concat's output:
    a `cpu.elementwise` result, or a nearest `cpu.resize` one when the slice is of the last dim
    (its rows strided), read once, by the concat or split that the slice is for."""
    op = value.owner
    writes = isinstance(op, cpu.ElementwiseOp) or (
        isinstance(op, cpu.ResizeOp) and op.kernel is not None and op.kernel.data == cpu.ResizeKernel.NEAREST
        and axis == len(cpu.shape_of(value)) - 1 >= 1)
    return writes and value.has_one_use() and value not in returned and value not in slices


def written_slices(concat: cpu.ConcatOp, returned: set[SSAValue], slices: dict[SSAValue, tuple[SSAValue, int]]) -> list[int]:
    """The strided slices rule (see the module docstring) on `concat`: its inputs written in
    place, their producers' `out_strides` and splits' `in_strides` and `in_place` set, and
    `slices` updated."""
    inputs, axis, whole = list(concat.inputs), concat.axis.value.data, concat.output
    whole_strides = contiguous_strides(cpu.shape_of(whole))
    starts = [0]
    for value in inputs:
        starts.append(starts[-1] + cpu.shape_of(value)[axis])
    step = whole_strides[axis] * element_bytes(whole)  # bytes per index along the axis
    written: list[int] = []
    i = 0
    while i < len(inputs):
        value = inputs[i]
        split = value.owner
        if isinstance(split, cpu.SplitOp) and split.axis.value.data == axis and value is split.outputs[0]:
            pieces = list(split.outputs)
            if (inputs[i:i + len(pieces)] == pieces and _writes_slice(split.input, axis, returned, slices)
                    and _write_strided(split.input.owner, whole_strides)):
                slices[split.input] = (whole, starts[i] * step)
                split.properties["in_strides"] = DenseArrayBase.from_list(i64, whole_strides)
                unwritten = [k for k, piece in enumerate(pieces) if piece.has_one_use()]
                for k in unwritten:
                    slices[pieces[k]] = (whole, starts[i + k] * step)
                if unwritten:
                    split.properties["in_place"] = DenseArrayBase.from_list(i64, unwritten)
                written += range(i, i + len(pieces))
                i += len(pieces)
                continue
        if _writes_slice(value, axis, returned, slices) and _write_strided(value.owner, whole_strides):
            slices[value] = (whole, starts[i] * step)
            written.append(i)
        i += 1
    return written


def _write_strided(op: Operation, strides: list[int]) -> bool:
    """Records on `op` (`_writes_slice`) that it writes its result with element `strides`: a
    resize's `out_strides`; an elementwise's loop with the result's strides over it, if its
    kernel can (whole vectors along a contiguous innermost dim)."""
    if isinstance(op, cpu.ResizeOp):
        op.properties["out_strides"] = DenseArrayBase.from_list(i64, strides)
        return True
    assert isinstance(op, cpu.ElementwiseOp)
    found = elementwise_loop_into(cpu.shape_of(op.output), [cpu.shape_of(v) for v in op.inputs], strides)
    if found is None:
        return False
    loop, inputs, out = found
    op.properties["loop"] = DenseArrayBase.from_list(i64, loop)
    op.properties["strides"] = DenseArrayBase.from_list(i64, [s for steps in inputs for s in steps])
    op.properties["out_strides"] = DenseArrayBase.from_list(i64, out)
    return True


IN_PLACE_OPS = (cpu.ElementwiseOp, cpu.BinaryOp, cpu.UnaryOp, cpu.ClipOp, cpu.LeakyReluOp, cpu.HardSigmoidOp,
                cpu.HardSwishOp, cpu.ActivationOp)
"""The ops whose result element i depends on their inputs' element i (and on broadcast
elements) only: their kernels may write the result over an input of its type."""


def in_place_elementwise(ops: list[Operation], index: dict[Operation, int], returned: set[SSAValue],
                         storage: dict[SSAValue, SSAValue], last_use: dict[SSAValue, int],
                         slices: dict[SSAValue, tuple[SSAValue, int]]) -> None:
    """The elementwise-in-place rule (see the module docstring): each op of `IN_PLACE_OPS`
    that takes over an input's storage gets `in_place` (that input's index), its result maps to
    the storage in `storage`, and the storage lives as long as the result's readers need it."""
    sharing: dict[SSAValue, list[SSAValue]] = defaultdict(list)  # storage -> the values that share it
    for value, shared in storage.items():
        sharing[shared].append(value)
    for op in ops:
        if not isinstance(op, IN_PLACE_OPS):
            continue
        result = op.results[0]
        if result in returned or result in slices:
            continue
        i = index[op]
        for k, value in enumerate(op.operands):
            root = storage.get(value, value)
            if (value.type != result.type or last_use.get(root) != i or not isinstance(root.owner, cpu.CpuOp)
                    or root in slices or root in returned):
                continue
            for other in sharing.pop(result, []):  # reshapes of the result share the input's storage too
                storage[other] = root
                sharing[root].append(other)
            storage[result] = root
            sharing[root].append(result)
            last_use[root] = last_use.pop(result, i)
            op.properties["in_place"] = IntegerAttr(k, i64)
            break


def plan_function(function: func.FuncOp, module: ModuleOp) -> None:
    block = function.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    ops = [op for op in block.ops if not isinstance(op, ConstantOp | func.ReturnOp)]
    for op in ops:
        if not isinstance(op, cpu.CpuOp):
            raise CompileError(f"'{op.name}'", "plan-host-memory plans cpu ops only: lower it to cpu first")
        for key in PLAN_PROPERTIES:
            op.properties.pop(key, None)
    if cpu.KERNELS_SELECTED not in function.attributes:
        raise CompileError(f"@{function.sym_name.data}", "has no host kernels chosen: run select-host-kernels first "
                           "(mrvl-host-pipeline runs both)")
    pack_weights(block, module)
    for op in ops:
        if isinstance(op, cpu.ConvOp) and op.packed_weights is None and _kernel(op) in PACKED_CONV_KERNELS:
            op.properties["packing_floats"] = IntegerAttr(packed_weights_floats(op), i64)
        if isinstance(op, cpu.ConvOp) and op.packed_weights is None and _kernel(op) == cpu.ConvKernel.WINOGRAD:
            raise CompileError(op_label(op), "the winograd kernel needs constant weights with data, transformed "
                                             "at compile time: choose its kernel again (select-host-kernels)")
    index = {op: i for i, op in enumerate(ops)}
    returned = set(ret.arguments)

    storage: dict[SSAValue, SSAValue] = {}  # an aliasing reshape's result -> the storage it shares
    for op in ops:
        if isinstance(op, cpu.ReshapeOp) and op.output not in returned:
            storage[op.output] = storage.get(op.input, op.input)
            op.properties["alias"] = UnitAttr()
    last_use: dict[SSAValue, int] = {}
    for op in ops:
        for operand in op.operands:
            last_use[storage.get(operand, operand)] = index[op]
    for value in ret.arguments:
        last_use[storage.get(value, value)] = len(ops)

    slices = in_place_concats(ops, returned)
    in_place_elementwise(ops, index, returned, storage, last_use, slices)
    first_writer: dict[SSAValue, int] = {}  # an in-place concat's output -> the op of its first slice
    for value, (whole, _) in slices.items():
        first_writer[whole] = min(first_writer.get(whole, len(ops)), index[value.owner])  # type: ignore[index]

    buffers: list[tuple[object, int, int, int]] = []
    scratch: dict[Operation, int] = {}
    for op in ops:
        i = index[op]
        for r in op.results:
            whole = slices[r][0] if r in slices else None
            if whole is not None and first_writer[whole] == i:  # the concat's output, live from here
                buffers.append((whole, tensor_bytes(whole), i, last_use.get(whole, i)))
            elif r not in returned and r not in storage and r not in slices and r not in first_writer:
                buffers.append((r, tensor_bytes(r), i, last_use.get(r, i)))
        if size := scratch_bytes(op):
            scratch[op] = size
            buffers.append((op, size, i, i))
    offsets, total = first_fit(buffers)
    for op in ops:
        if isinstance(op, IN_PLACE_OPS) and op.in_place is not None:
            op.properties["offsets"] = DenseArrayBase.from_list(i64, [offsets[storage[op.results[0]]]])
        elif op.results and op.results[0] not in storage:
            op.properties["offsets"] = DenseArrayBase.from_list(i64, [
                offsets[slices[r][0]] + slices[r][1] if r in slices else offsets.get(r, -1) for r in op.results])
        if op in scratch:
            op.properties["scratch"] = cpu.ScratchAttr(scratch[op], offsets[op])
    function.attributes[cpu.WORKSPACE] = cpu.WorkspaceAttr(total, WORKSPACE_ALIGN)


@dataclass(frozen=True)
class PlanHostMemoryPass(ModulePass):
    """Plan the host code's workspace and pack constant conv weights (see the module
    docstring), after `select-host-kernels`."""

    name = "plan-host-memory"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                plan_function(function, op)
