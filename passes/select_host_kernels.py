"""select-host-kernels: the C kernel of every `cpu` op, chosen and recorded on the op, and the
forms the C kernels cannot run refused; `plan-host-memory` and the C emitter read the choice.

Rules, for each `func.func` (see `mrvl_dialect/cpu.py` for the properties):

- kernel choice: a `cpu.conv` gets `kernel = #cpu<conv_kernel K>`, K the kernel
  `host_kernels.conv_path` picks: `depthwise` or `depthwise_blocked` (one input channel per
  group; blocked where that measured faster), else of `pointwise` (1x1, stride 1, no padding),
  `winograd` (3x3, stride and dilation 1, one group, constant weights), `direct` and `flat` the
  cheapest by `host_kernels.conv_costs`, with the kernels' overheads
  of the host the target description names (`[host] name`; options `target_file`,
  `host_profile` as the cost model's everywhere);
  a `cpu.conv_transpose` gets `transpose`; a `cpu.resize` gets `#cpu<resize_kernel K>`:
  `nearest`, `taps` (linear and cubic, 2 and 4 taps) or `filtered` (with antialias or
  tf_crop_and_resize); a `cpu.elementwise` gets the loop its kernel runs (`loop` and `strides`,
  `host_kernels.elementwise_loop`: the result's dims merged so the innermost is as long as it
  can be, each input read contiguously or splatted along it);
- legality: an op no C kernel runs (an op of another dialect; an element type, rank or form
  outside its kernel family: see each `check_*`) is refused with one error naming its ONNX
  node, as `the C backend has no kernel for 'cpu.X' ...`;
- the function gets the unit attribute `cpu.kernels_selected`, which `plan-host-memory` and
  `-t c` require.

Choosing again replaces the kernels recorded before (`mrvl-host-pipeline` runs it, then
`plan-host-memory`).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import ComplexType, DenseArrayBase, ModuleOp, TensorType, UnitAttr, f32, f64, i1, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from mrvl_dialect import cpu
from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl.target.cost_model import CostModelOptions, HostTarget
from mrvl.target.host_kernels import (ELEMENTWISE_PREDICATES, ELEMENTWISE_SCALAR_OPS, NUMERIC_SUFFIXES, SPATIAL,
                                      conv_path, elementwise_loop, matmul_shapes)
from mrvl_dialect.locations import location_nodes

MAX_RANK = 8
"""The most dims the kernels over any rank take (mrvl_copy_nd, mrvl_broadcast, ...)."""
INTEGER_UNARY = frozenset({cpu.UnaryKind.RELU, cpu.UnaryKind.NEG, cpu.UnaryKind.ABS, cpu.UnaryKind.SIGN})
"""The `cpu.unary` kinds with an integer kernel."""
LOGICAL = frozenset({cpu.BinaryKind.AND, cpu.BinaryKind.OR, cpu.BinaryKind.XOR})
"""The `cpu.binary` kinds on booleans only."""
ALL_SUFFIXES = tuple(NUMERIC_SUFFIXES.values())


def _label(op: Operation) -> str:
    """What an error names `op` by: its ONNX node (the first, when fused) and op type."""
    nodes = location_nodes(op.location)
    if not nodes or not nodes[0].name:
        return f"'{op.name}'"
    return f"node '{nodes[0].name}' ({nodes[0].op_type or op.name})"


def unsupported(op: Operation, what: str) -> CompileError:
    return CompileError(_label(op), f"the C backend has no kernel for '{op.name}' {what}".rstrip())


def _element(value: SSAValue):
    return cpu.element_type_of(value)


def require_f32(op: Operation, what: str = "") -> None:
    for value in (*op.operands, *op.results):
        if _element(value) != f32:
            raise unsupported(op, f"{what}on {value.type} (float32 only)".strip())


def require_rank(op: Operation, rank: int) -> None:
    if rank > MAX_RANK:
        raise unsupported(op, f"of rank {rank} (at most {MAX_RANK})")


def require_suffix(op: Operation, value: SSAValue, suffixes: tuple[str, ...]) -> None:
    """`value`'s element type has a kernel among `suffixes` (NUMERIC_SUFFIXES)."""
    if NUMERIC_SUFFIXES.get(_element(value)) not in suffixes:
        types = ", ".join(BY_XDSL[t].numpy.name for t, k in NUMERIC_SUFFIXES.items() if k in suffixes)
        raise unsupported(op, f"on {value.type} ({types} only)")


def require_element_types(op: Operation) -> None:
    """Every tensor of `op` has a C element type."""
    for value in (*op.operands, *op.results):
        if not isinstance(value.type, TensorType):
            continue
        element = BY_XDSL.get(value.type.element_type)
        if element is None or element.numpy is None or isinstance(element.xdsl, ComplexType):
            raise CompileError(f"tensor of type {value.type}", "the C backend has no element type for it")


# --- Kernel choice --------------------------------------------------------------------


def select_conv(op: cpu.ConvOp | cpu.ConvTransposeOp, host: HostTarget) -> None:
    require_f32(op)
    rank = len(cpu.shape_of(op.X)) - 2
    if rank > SPATIAL:
        raise unsupported(op, f"with {rank} spatial dims (at most {SPATIAL})")
    op.kernel = cpu.ConvKernelAttr(cpu.ConvKernel(conv_path(op, host)))


def select_resize(op: cpu.ResizeOp) -> None:
    s, out, mode = cpu.shape_of(op.input), cpu.shape_of(op.output), op.mode.data
    if len(s) > MAX_RANK or not s:
        raise unsupported(op, f"of rank {len(s)}")
    if mode != cpu.ResizeMode.NEAREST:
        require_f32(op, f"{mode} ")
        if s[:-2] != out[:-2] or len(s) < 2:
            raise unsupported(op, f"{mode} over other than the last two dims")
    elif op.roi is not None:
        raise unsupported(op, "nearest with tf_crop_and_resize")
    if op.roi is not None:
        roi = list(op.roi.get_values())
        if any(a != 0.0 or b != 1.0 for a, b in zip(roi[:len(s) - 2], roi[len(s):-2])):
            raise unsupported(op, "tf_crop_and_resize cropping other than the last two dims")
    if mode == cpu.ResizeMode.NEAREST:
        kernel = cpu.ResizeKernel.NEAREST
    elif op.antialias.value.data or op.roi is not None:
        kernel = cpu.ResizeKernel.FILTERED
    else:
        kernel = cpu.ResizeKernel.TAPS
    op.kernel = cpu.ResizeKernelAttr(kernel)


def select_elementwise(op: cpu.ElementwiseOp) -> None:
    require_rank(op, len(cpu.shape_of(op.output)))
    for scalar in op.body.block.ops:
        if scalar.name not in ELEMENTWISE_SCALAR_OPS:
            raise unsupported(op, f"with '{scalar.name}' in its body")
        if isinstance(scalar, arith.CmpfOp):
            predicate = arith.CMPF_COMPARISON_OPERATIONS[scalar.predicate.value.data]
            if predicate not in ELEMENTWISE_PREDICATES:
                raise unsupported(op, f"with the comparison '{predicate}' in its body")
    loop, strides = elementwise_loop(cpu.shape_of(op.output), [cpu.shape_of(v) for v in op.inputs])
    op.loop = DenseArrayBase.from_list(i64, loop)
    op.strides = DenseArrayBase.from_list(i64, [s for input_strides in strides for s in input_strides])


# --- Legality of the other ops ----------------------------------------------------------


def check_matmul(op: cpu.MatmulOp) -> None:
    require_f32(op)
    batch = matmul_shapes(op)[2]
    if len(batch) > MAX_RANK:
        raise unsupported(op, f"with {len(batch)} batch dims (at most {MAX_RANK})")


def check_binary(op: cpu.BinaryOp) -> None:
    kind, element = op.kind.data, _element(op.lhs)
    require_rank(op, len(cpu.shape_of(op.result)))
    numeric = element in NUMERIC_SUFFIXES and kind not in LOGICAL
    boolean = element == i1 and (kind in LOGICAL or kind == cpu.BinaryKind.EQUAL)
    if not (numeric or boolean):
        raise unsupported(op, f"{kind} on {op.lhs.type}")


def check_unary(op: cpu.UnaryOp) -> None:
    kind, element = op.kind.data, _element(op.input)
    if kind in (cpu.UnaryKind.NOT, cpu.UnaryKind.IDENTITY) or element in (f32, f64):
        return
    if NUMERIC_SUFFIXES.get(element) in ("i32", "i64") and kind in INTEGER_UNARY:
        return
    raise unsupported(op, f"{kind} on {op.input.type}")


def check_float32_input(op: cpu.DropoutOp | cpu.RecurrentOp) -> None:
    value = op.input if isinstance(op, cpu.DropoutOp) else op.X
    if _element(value) != f32:
        raise unsupported(op, f"on {value.type} (float32 only)")


def check_softmax(op: cpu.SoftmaxOp) -> None:
    if op.log is not None:
        require_suffix(op, op.input, ("f32", "f64"))
    else:
        require_f32(op)


def check_pool(op: cpu.PoolOp) -> None:
    eight_bit = (op.kind.data == cpu.PoolKind.MAX and op.indices is None and op.channels_last is None
                 and _element(op.input) in cpu.INTEGER_PRODUCT_TYPES)
    for value in (op.input, op.output):
        if _element(value) != f32 and not eight_bit:
            raise unsupported(op, f"on {value.type} (float32 only; max of int8 and uint8)")
    rank = len(cpu.shape_of(op.input)) - 2
    if rank > SPATIAL:
        raise unsupported(op, f"with {rank} spatial dims (at most {SPATIAL})")


def check_reduce(op: cpu.ReduceOp) -> None:
    if _element(op.input) not in (f32, f64):
        raise unsupported(op, f"on {op.input.type} (float32 and float64 only)")


def check_slice(op: cpu.SliceOp) -> None:
    out = cpu.shape_of(op.output)
    if math.prod(out):  # an empty result is no copy
        require_rank(op, len(out))


def check_pad(op: cpu.PadOp) -> None:
    s = cpu.shape_of(op.input)
    require_rank(op, len(s))
    if math.prod(cpu.shape_of(op.output)) and op.mode.data != cpu.PadMode.CONSTANT and math.prod(s) == 0:
        raise unsupported(op, f"{op.mode.data} of an empty input")


def check_scatter(op: cpu.ScatterElementsOp | cpu.ScatterNdOp) -> None:
    require_suffix(op, op.data, ALL_SUFFIXES)
    require_rank(op, len(cpu.shape_of(op.data)))


def _suffixes(value: Callable[[Operation], SSAValue], suffixes: tuple[str, ...]) -> Callable[[Operation], None]:
    return lambda op: require_suffix(op, value(op), suffixes)


def _rank(value: Callable[[Operation], SSAValue]) -> Callable[[Operation], None]:
    return lambda op: require_rank(op, len(cpu.shape_of(value(op))))


RULES: dict[type[Operation], Callable] = {
    cpu.ResizeOp: select_resize,
    cpu.ElementwiseOp: select_elementwise,
    cpu.GemmOp: require_f32,
    cpu.MatmulOp: check_matmul,
    cpu.BinaryOp: check_binary,
    cpu.WhereOp: _rank(lambda op: op.output),
    cpu.UnaryOp: check_unary,
    cpu.ClipOp: require_f32,
    cpu.LeakyReluOp: require_f32,
    cpu.HardSigmoidOp: require_f32,
    cpu.HardSwishOp: require_f32,
    cpu.DropoutOp: check_float32_input,
    cpu.SoftmaxOp: check_softmax,
    cpu.LayerNormOp: require_f32,
    cpu.BatchNormOp: require_f32,
    cpu.PoolOp: check_pool,
    cpu.GlobalPoolOp: require_f32,
    cpu.ReduceOp: check_reduce,
    cpu.ConcatOp: _rank(lambda op: op.output),
    cpu.TransposeOp: _rank(lambda op: op.output),
    cpu.SliceOp: check_slice,
    cpu.SplitOp: _rank(lambda op: op.input),
    cpu.ExpandOp: _rank(lambda op: op.output),
    cpu.PadOp: check_pad,
    cpu.ArgReduceOp: _suffixes(lambda op: op.input, ALL_SUFFIXES),
    cpu.HardmaxOp: _suffixes(lambda op: op.input, ("f32", "f64")),
    cpu.CumulativeOp: _suffixes(lambda op: op.input, ("f32", "f64", "i32", "i64", "u32", "u64")),
    cpu.TopKOp: _suffixes(lambda op: op.input, ALL_SUFFIXES),
    cpu.RmsNormOp: require_f32,
    cpu.GatherElementsOp: _rank(lambda op: op.data),
    cpu.RangeOp: _suffixes(lambda op: op.output, ("f32", "f64", "i16", "i32", "i64")),
    cpu.ActivationOp: _suffixes(lambda op: op.input, ("f32", "f64")),
    cpu.ScatterElementsOp: check_scatter,
    cpu.ScatterNdOp: check_scatter,
    cpu.RecurrentOp: check_float32_input,
}
"""What each op other than a conv (`select_conv`) needs checked or chosen; ops not named
here have a kernel for every form."""


def select_function(function: func.FuncOp, host: HostTarget) -> None:
    for op in function.body.block.ops:
        if isinstance(op, ConstantOp | func.ReturnOp):
            continue
        if not isinstance(op, cpu.CpuOp):
            raise CompileError(_label(op), f"the C backend has no kernel for '{op.name}' (lower it to cpu first)")
        require_element_types(op)
        if isinstance(op, cpu.ConvOp | cpu.ConvTransposeOp):
            select_conv(op, host)
        elif (rule := RULES.get(type(op))) is not None:
            rule(op)
    function.attributes[cpu.KERNELS_SELECTED] = UnitAttr()


@dataclass(frozen=True)
class SelectHostKernelsPass(CostModelOptions, ModulePass):
    """Choose and record each host op's C kernel, refusing forms no kernel runs (see the
    module docstring); a conv's kernel by the costs of the host the target description names."""

    name = "select-host-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        host = self.cost_model().host
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                select_function(function, host)
