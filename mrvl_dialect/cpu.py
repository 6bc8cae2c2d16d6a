"""The `cpu` dialect: the host's share of a model, one op per C kernel call.

`lower-to-cpu` turns every `graph` op that is not inside an accelerator subgraph
(`mrvl.subgraph`) into a `cpu` op, and `cpu.call_mlip` runs such a subgraph. The C emitter
prints each op as one call of its kernel, so the ops are made for a plain printer:

- operands and results are ranked tensors with static shapes, in ONNX's own layout
  (NCHW for images, OIHW for conv weights), and every result type is explicit;
- every parameter is a resolved property: no defaults, no negative axes, no `auto_pad`,
  no constant operands standing for parameters (a Slice's starts, a Clip's bounds, ...);
- ops with a `kind` or `mode` (`cpu.binary add`, `cpu.pool max`, `cpu.pad reflect`, ...)
  are one kernel family; the kind names the kernel.

Syntax: the kind or mode (if any) comes first as a keyword, operands next, the other
properties in the attribute dictionary, then the function type:

    %y = cpu.pool max %x {kernel = array<i64: 2, 2>, ...} : (tensor<...>) -> tensor<...>

The host memory plan (`plan-host-memory`, for the C emitter) is part of the IR: each op's
`offsets` (the workspace offset of each result, -1 for one written into the caller's output
buffer) and `scratch` (`#cpu.scratch<520 bytes at 0>`: the workspace its kernel uses during the
call), `alias` on a `cpu.reshape` that shares its input's storage, `packed_weights` on a
`cpu.conv` or `cpu.qlinear_conv` and `packed_b` on a `cpu.gemm` or `cpu.matmul` whose weights
constant is in the kernel's packed layout, `packing_floats` and `y_batch` on a `cpu.conv` (run-time weights packed
into its scratch; its images written a batch stride apart), `in_place` on a `cpu.elementwise`
or a single elementwise op (the input whose storage its result takes over), on a
`cpu.concat` (the inputs their producers wrote into its output) and on a `cpu.split` (the
results it need not write), `out_strides` on a `cpu.elementwise` or `cpu.resize` and
`in_strides` on a `cpu.split` that write or read a slice of a concat's output in place, and
on the function the discardable attribute `cpu.workspace = #cpu.workspace<2048 bytes, align
64>`. Before it,
`select-host-kernels` records the C kernel of a `cpu.conv`, `cpu.conv_transpose` and
`cpu.resize` (`kernel = #cpu<conv_kernel flat>`) and the loop of a `cpu.elementwise` (`loop`,
`strides`), and marks the function `cpu.kernels_selected`.

`cpu.elementwise` (`fuse-elementwise`) is the one op with a body: scalar `arith` and `math`
ops, `cpu.sigmoid`, and `cpu.yield` of the result's scalar.

Verifiers hold structural invariants (counts, ranges, shapes that follow from the
parameters). `lower-to-cpu` never builds an op that breaks one, so a verifier error is a
compiler bug, not a problem with the user's model.
"""

import math
from collections.abc import Sequence
from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyTensorTypeConstr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    FunctionType,
    I64,
    IntAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    SymbolRefAttr,
    TensorType,
    f32,
    i1,
    i32,
    i64,
    UnitAttr,
)
from xdsl.dialects.utils import AbstractYieldOperation, EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSetConstraint,
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

_FUNCTIONAL = "attr-dict `:` functional-type(operands, results)"
"""The tail of every op's format except `cpu.call_mlip`."""


# Kinds


class BinaryKind(StrEnum):
    """The elementwise function of `cpu.binary`; lhs and rhs broadcast as in numpy."""

    ADD = auto()
    SUB = auto()
    MUL = auto()
    DIV = auto()
    """Integer division truncates toward zero, as ONNX Div does."""
    POW = auto()
    MAX = auto()
    MIN = auto()
    MOD = auto()
    """Integer modulo with the sign of the divisor (Python's %); ONNX Mod with fmod=0."""
    FMOD = auto()
    """C's fmod: the sign of the dividend; ONNX Mod with fmod=1."""
    PRELU = auto()
    """lhs < 0 ? lhs * rhs : lhs (rhs is the slope)."""
    AND = auto()
    OR = auto()
    XOR = auto()
    EQUAL = auto()
    LESS = auto()
    LESS_OR_EQUAL = auto()
    GREATER = auto()
    GREATER_OR_EQUAL = auto()


_COMPARISONS = frozenset(
    {BinaryKind.EQUAL, BinaryKind.LESS, BinaryKind.LESS_OR_EQUAL, BinaryKind.GREATER, BinaryKind.GREATER_OR_EQUAL}
)
_LOGICAL_BINARY = frozenset({BinaryKind.AND, BinaryKind.OR, BinaryKind.XOR})


class UnaryKind(StrEnum):
    """The elementwise function of `cpu.unary`; input and result have one type."""

    RELU = auto()
    SIGMOID = auto()
    TANH = auto()
    SQRT = auto()
    EXP = auto()
    LOG = auto()
    ERF = auto()
    NEG = auto()
    ABS = auto()
    RECIPROCAL = auto()
    FLOOR = auto()
    CEIL = auto()
    ROUND = auto()
    """Halfway cases to even, as ONNX Round (C's nearbyint in the default mode)."""
    SIGN = auto()
    SIN = auto()
    COS = auto()
    TAN = auto()
    ASIN = auto()
    ACOS = auto()
    ATAN = auto()
    SINH = auto()
    COSH = auto()
    ASINH = auto()
    ACOSH = auto()
    ATANH = auto()
    NOT = auto()
    """Logical not, on i1 tensors only."""
    IDENTITY = auto()
    """A copy."""
    SOFTPLUS = auto()
    """log(1 + exp(x))."""
    SOFTSIGN = auto()
    """x / (1 + |x|)."""
    GELU = auto()
    """x * 0.5 * (1 + erf(x / sqrt(2))): ONNX Gelu with approximate = "none"."""
    GELU_TANH = auto()
    """x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))): approximate = "tanh"."""
    MISH = auto()
    """x * tanh(softplus(x))."""


class PoolKind(StrEnum):
    """What `cpu.pool` and `cpu.global_pool` compute over a window."""

    MAX = auto()
    AVERAGE = auto()


class ReduceKind(StrEnum):
    """What `cpu.reduce` computes over the reduced axes (ONNX ReduceX)."""

    SUM = auto()
    MEAN = auto()
    MAX = auto()
    MIN = auto()
    PROD = auto()
    L1 = auto()
    """Sum of absolute values."""
    L2 = auto()
    """Square root of the sum of squares."""
    LOG_SUM = auto()
    LOG_SUM_EXP = auto()
    SUM_SQUARE = auto()


class PadMode(StrEnum):
    """How `cpu.pad` fills the border (ONNX Pad's modes)."""

    CONSTANT = auto()
    """The `value` property."""
    REFLECT = auto()
    """Mirrored without repeating the edge element."""
    EDGE = auto()
    """The edge element repeated."""
    WRAP = auto()
    """The opposite side's elements (circular)."""


class ResizeMode(StrEnum):
    """The interpolation of `cpu.resize`."""

    NEAREST = auto()
    LINEAR = auto()
    CUBIC = auto()


class CoordinateTransformationMode(StrEnum):
    """How `cpu.resize` maps an output coordinate to an input one (ONNX's names and formulas)."""

    HALF_PIXEL = auto()
    HALF_PIXEL_SYMMETRIC = auto()
    PYTORCH_HALF_PIXEL = auto()
    ALIGN_CORNERS = auto()
    ASYMMETRIC = auto()
    TF_CROP_AND_RESIZE = auto()
    """Samples the region of interest `roi` of the input; outside the input the result is
    `extrapolation_value`."""


class NearestMode(StrEnum):
    """How `cpu.resize` in nearest mode rounds an input coordinate."""

    ROUND_PREFER_FLOOR = auto()
    ROUND_PREFER_CEIL = auto()
    FLOOR = auto()
    CEIL = auto()


class DepthToSpaceMode(StrEnum):
    """The channel order `cpu.depth_to_space` reads: depth-column-row or column-row-depth."""

    DCR = "DCR"
    CRD = "CRD"


class ArgReduceKind(StrEnum):
    """Which extreme `cpu.arg_reduce` finds the index of (ONNX ArgMax, ArgMin)."""

    MAX = auto()
    MIN = auto()


class CumulativeKind(StrEnum):
    """What `cpu.cumulative` accumulates along its axis (ONNX CumSum, CumProd)."""

    SUM = auto()
    PROD = auto()


class ScatterReduction(StrEnum):
    """How `cpu.scatter_elements` and `cpu.scatter_nd` combine an update with the element it
    lands on (ONNX's reduction attribute): none replaces it."""

    NONE = auto()
    ADD = auto()
    MUL = auto()
    MAX = auto()
    MIN = auto()


class ActivationKind(StrEnum):
    """The elementwise function of `cpu.activation`, each with ONNX's parameters."""

    ELU = auto()
    """x < 0 ? alpha * (exp(x) - 1) : x."""
    SELU = auto()
    """gamma * (x <= 0 ? alpha * (exp(x) - 1) : x)."""
    CELU = auto()
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    THRESHOLDED_RELU = auto()
    """x > alpha ? x : 0."""


class EpilogueKind(StrEnum):
    """An activation `cpu.conv` (or `cpu.matmul`) applies to its output as it stores it (after
    the residual and the clamp), with ONNX's `alpha` and `beta` where the function has them."""

    LEAKY_RELU = auto()
    """x < 0 ? alpha * x : x."""
    SIGMOID = auto()
    """1 / (1 + exp(-x))."""
    SILU = auto()
    """x * sigmoid(x) (ONNX's Mul(x, Sigmoid(x)))."""
    HARD_SIGMOID = auto()
    """max(0, min(1, alpha * x + beta))."""
    HARD_SWISH = auto()
    """x * max(0, min(1, x / 6 + 0.5))."""
    GELU = auto()
    """x * 0.5 * (1 + erf(x / sqrt(2))) (ONNX Gelu)."""
    GELU_TANH = auto()
    """ONNX Gelu with approximate = "tanh"."""
    MISH = auto()
    """x * tanh(softplus(x)) (ONNX's Mish, or Mul(x, Tanh(Softplus(x))))."""
    PRELU = auto()
    """x < 0 ? slope[c] * x : x, c the output channel (ONNX's PRelu): the op's `slope` operand."""


class ConvKernel(StrEnum):
    """The C kernel that runs a `cpu.conv` or `cpu.conv_transpose` (`select-host-kernels`)."""

    DEPTHWISE = auto()
    """mrvl_depthwise_conv_f32: one input channel per group, on flat planes."""
    DEPTHWISE_BLOCKED = auto()
    """mrvl_depthwise_blocked_conv_f32: the same, channel-blocked."""
    POINTWISE = auto()
    """mrvl_pointwise_conv_f32: 1x1, stride 1, no padding, a matrix product with the input as B."""
    DIRECT = auto()
    """mrvl_conv_f32: the implicit matrix product on packed weights."""
    FLAT = auto()
    """mrvl_flat_conv_f32: the same product the other way round, on the same packed weights."""
    WINOGRAD = auto()
    """mrvl_winograd_conv_f32: a 3x3 stride-1 conv by F(2x2, 3x3), on weights transformed at
    compile time."""
    TRANSPOSE = auto()
    """mrvl_conv_transpose_f32, or mrvl_conv_transpose_nhwc_f32 when `channels_last`
    (`cpu.conv_transpose` only)."""


class ResizeKernel(StrEnum):
    """The C kernel that runs a `cpu.resize` (`select-host-kernels`)."""

    NEAREST = auto()
    """mrvl_resize_nearest."""
    TAPS = auto()
    """mrvl_resize_f32: linear or cubic, fixed 2 and 4 taps."""
    FILTERED = auto()
    """mrvl_resize_filtered_f32: linear or cubic with antialias or tf_crop_and_resize."""


class RecurrentKind(StrEnum):
    """The layer of `cpu.recurrent` (ONNX LSTM, GRU, RNN); its gates, in ONNX's order: i, o,
    f, c; z, r, h; one."""

    LSTM = auto()
    GRU = auto()
    RNN = auto()

    @property
    def gates(self) -> int:
        return {RecurrentKind.LSTM: 4, RecurrentKind.GRU: 3, RecurrentKind.RNN: 1}[self]

    @property
    def activations(self) -> int:
        """Activation functions per direction: f, g, h; f, g; f."""
        return {RecurrentKind.LSTM: 3, RecurrentKind.GRU: 2, RecurrentKind.RNN: 1}[self]


class RecurrentDirection(StrEnum):
    """Which way `cpu.recurrent` runs over the sequence (ONNX's direction)."""

    FORWARD = auto()
    REVERSE = auto()
    BIDIRECTIONAL = auto()


class RecurrentActivation(StrEnum):
    """An activation function of `cpu.recurrent`, as ONNX's recurrent ops list them, with
    their `alpha` and `beta`."""

    SIGMOID = auto()
    TANH = auto()
    RELU = auto()
    AFFINE = auto()
    """alpha * x + beta."""
    LEAKY_RELU = auto()
    """x < 0 ? alpha * x : x."""
    THRESHOLDED_RELU = auto()
    """x > alpha ? x : 0."""
    SCALED_TANH = auto()
    """alpha * tanh(beta * x)."""
    HARD_SIGMOID = auto()
    """min(max(alpha * x + beta, 0), 1)."""
    ELU = auto()
    """x < 0 ? alpha * (exp(x) - 1) : x."""
    SOFTSIGN = auto()
    SOFTPLUS = auto()


@irdl_attr_definition
class BinaryKindAttr(EnumAttribute[BinaryKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.binary_kind"


@irdl_attr_definition
class UnaryKindAttr(EnumAttribute[UnaryKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.unary_kind"


@irdl_attr_definition
class PoolKindAttr(EnumAttribute[PoolKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.pool_kind"


@irdl_attr_definition
class ReduceKindAttr(EnumAttribute[ReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.reduce_kind"


@irdl_attr_definition
class PadModeAttr(EnumAttribute[PadMode], SpacedOpaqueSyntaxAttribute):
    name = "cpu.pad_mode"


@irdl_attr_definition
class ResizeModeAttr(EnumAttribute[ResizeMode], SpacedOpaqueSyntaxAttribute):
    name = "cpu.resize_mode"


@irdl_attr_definition
class CoordinateTransformationModeAttr(EnumAttribute[CoordinateTransformationMode], SpacedOpaqueSyntaxAttribute):
    name = "cpu.coordinate_transformation_mode"


@irdl_attr_definition
class NearestModeAttr(EnumAttribute[NearestMode], SpacedOpaqueSyntaxAttribute):
    name = "cpu.nearest_mode"


@irdl_attr_definition
class DepthToSpaceModeAttr(EnumAttribute[DepthToSpaceMode], SpacedOpaqueSyntaxAttribute):
    name = "cpu.depth_to_space_mode"


@irdl_attr_definition
class ArgReduceKindAttr(EnumAttribute[ArgReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.arg_reduce_kind"


@irdl_attr_definition
class CumulativeKindAttr(EnumAttribute[CumulativeKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.cumulative_kind"


@irdl_attr_definition
class ScatterReductionAttr(EnumAttribute[ScatterReduction], SpacedOpaqueSyntaxAttribute):
    name = "cpu.scatter_reduction"


@irdl_attr_definition
class ActivationKindAttr(EnumAttribute[ActivationKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.activation_kind"


@irdl_attr_definition
class EpilogueKindAttr(EnumAttribute[EpilogueKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.epilogue_kind"


@irdl_attr_definition
class ConvKernelAttr(EnumAttribute[ConvKernel], SpacedOpaqueSyntaxAttribute):
    name = "cpu.conv_kernel"


@irdl_attr_definition
class ResizeKernelAttr(EnumAttribute[ResizeKernel], SpacedOpaqueSyntaxAttribute):
    name = "cpu.resize_kernel"


@irdl_attr_definition
class RecurrentKindAttr(EnumAttribute[RecurrentKind], SpacedOpaqueSyntaxAttribute):
    name = "cpu.recurrent_kind"


@irdl_attr_definition
class RecurrentDirectionAttr(EnumAttribute[RecurrentDirection], SpacedOpaqueSyntaxAttribute):
    name = "cpu.recurrent_direction"


@irdl_attr_definition
class RecurrentActivationAttr(EnumAttribute[RecurrentActivation], SpacedOpaqueSyntaxAttribute):
    name = "cpu.recurrent_activation"


# The host memory plan


class _BytesAttr(ParametrizedAttribute):
    """A size in bytes and one more number, as `<size bytes JOINT number>` (JOINT: a
    subclass's words and commas)."""

    JOINT: ClassVar[str]

    def __init__(self, size: int, number: int):
        super().__init__(IntAttr(size), IntAttr(number))

    def print_parameters(self, printer: Printer) -> None:
        size, number = (p.data for p in self.parameters)  # type: ignore[attr-defined]
        printer.print_string(f"<{size} bytes{self.JOINT}{number}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            size = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_keyword("bytes")
            for token in cls.JOINT.replace(",", " , ").split():
                parser.parse_punctuation(",") if token == "," else parser.parse_keyword(token)
            number = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return [IntAttr(size), IntAttr(number)]


@irdl_attr_definition
class ScratchAttr(_BytesAttr):
    """Workspace an op's kernel uses during its call: `#cpu.scratch<520 bytes at 0>` (size,
    then offset in bytes)."""

    name = "cpu.scratch"
    JOINT = " at "

    size: IntAttr
    offset: IntAttr


@irdl_attr_definition
class WorkspaceAttr(_BytesAttr):
    """A function's workspace: `#cpu.workspace<2048 bytes, align 64>`, the size and alignment
    (bytes) of the memory its caller provides for every intermediate tensor and scratch area."""

    name = "cpu.workspace"
    JOINT = ", align "

    size: IntAttr
    align: IntAttr


WORKSPACE = "cpu.workspace"
"""The function attribute (a `WorkspaceAttr`) `plan-host-memory` sets: the function is planned."""
KERNELS_SELECTED = "cpu.kernels_selected"
"""The function attribute (a unit) `select-host-kernels` sets: every op has a C kernel, chosen."""


# Property constraints and shape rules

_INTS = DenseArrayBase.constr(i64)
_FLOATS = DenseArrayBase.constr(f32)
_INT = IntegerAttr[I64]
_FLOAT = FloatAttr[Float32Type]


def shape_of(value: SSAValue) -> tuple[int, ...]:
    """The static shape of a ranked tensor value."""
    assert isinstance(value.type, TensorType)
    return value.type.get_shape()


def element_type_of(value: SSAValue) -> Attribute:
    """The element type of a ranked tensor value."""
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def _values(array: DenseArrayBase) -> tuple[int, ...]:
    return tuple(array.get_values())  # type: ignore[arg-type]


def _check_count(name: str, values: Sequence[object], count: int, what: str) -> None:
    if len(values) != count:
        raise VerifyException(f"'{name}' must have {count} values ({what}), got {len(values)}: {list(values)}")


def _check_at_least(name: str, values: Sequence[int], low: int) -> None:
    if any(v < low for v in values):
        raise VerifyException(f"'{name}' values must be >= {low}, got {list(values)}")


def _check_axis(name: str, axis: int, rank: int) -> None:
    if not 0 <= axis < rank:
        raise VerifyException(f"'{name}' must be in [0, {rank}) for a rank-{rank} input, got {axis}")


def _check_shape(what: str, actual: Sequence[int], expected: Sequence[int]) -> None:
    if tuple(actual) != tuple(expected):
        raise VerifyException(f"{what} must have shape {list(expected)}, got {list(actual)}")


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...] | None:
    """The numpy broadcast of `shapes`, or None when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for i in range(rank):
        dims = {s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0} - {1}
        if len(dims) > 1:
            return None
        result.append(dims.pop() if dims else 1)
    return tuple(result)


def _check_broadcast(what: str, shapes: Sequence[Sequence[int]], result: Sequence[int]) -> None:
    if broadcast_shapes(*shapes, result) != tuple(result):
        raise VerifyException(
            f"{what} {[list(s) for s in shapes]} must broadcast to the result shape {list(result)}"
        )


def _window_extent(kernel: int, dilation: int) -> int:
    return dilation * (kernel - 1) + 1


class CpuOp(IRDLOperation):
    """A host op: pure, static shapes everywhere; `verify_params` holds the op's own rules."""

    offsets = opt_prop_def(_INTS)
    """The memory plan: the workspace offset (bytes) of each result, -1 for a result written
    into the caller's output buffer (a result of the function)."""
    scratch = opt_prop_def(ScratchAttr)
    """The memory plan: the workspace the op's kernel uses during its call."""

    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        for value in (*self.operands, *self.results):
            if isinstance(value.type, TensorType) and any(d < 0 for d in value.type.get_shape()):
                raise VerifyException(f"every tensor of a cpu op must have a static shape, got {value.type}")
        if self.offsets is not None and len(self.offsets) != len(self.results):
            raise VerifyException(f"'offsets' must have one value per result ({len(self.results)}), "
                                  f"got {len(self.offsets)}")
        self.verify_params()

    def verify_params(self) -> None:
        pass


class _SameTypeOp(CpuOp):
    """An elementwise op of one input whose result has the input's type."""

    _T: ClassVar = VarConstraint("T", AnyTensorTypeConstr)
    input = operand_def(_T)
    output = result_def(_T)

    assembly_format = "$input " + _FUNCTIONAL


class _MapOp(_SameTypeOp):
    """An op of one input whose result element i depends on input element i only, so its kernel
    may write the result over the input (`in_place`, 0: the plan's choice)."""

    in_place = opt_prop_def(_INT)

    def verify_params(self) -> None:
        if self.in_place is not None and self.in_place.value.data != 0:
            raise VerifyException(f"'in_place' must name the input (0), got {self.in_place.value.data}")


class _SameElementTypeOp(CpuOp):
    """An op of one input whose result has the input's element type (any shape)."""

    _T: ClassVar = VarConstraint("T", AnyAttr())
    input = operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))

    assembly_format = "$input " + _FUNCTIONAL


# Accelerator calls


class CallMlipSymbolUser(SymbolUserOpInterface):
    """The callee is defined in the nearest symbol table and has the call's signature (with
    `chunks`, each operand and result dim 0 `chunks` times the callee's).

    Any func-like op with a `function_type` property can be the callee (`mrvl.subgraph`).
    """

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallMlipOp)
        try:
            callee = SymbolTable.lookup_symbol(op, op.callee)
        except ValueError:  # no symbol table encloses the op
            callee = None
        if callee is None:
            raise VerifyException(f"'callee' {op.callee} is not defined in the enclosing symbol table")
        function_type = callee.properties.get("function_type")
        if not isinstance(function_type, FunctionType):
            raise VerifyException(f"'callee' {op.callee} is a '{callee.name}', which has no 'function_type'")
        chunks = op.chunk_count()
        for what, expected, actual in (
            ("operand", [chunked_type(t, chunks) for t in function_type.inputs.data], [a.type for a in op.args]),
            ("result", [chunked_type(t, chunks) for t in function_type.outputs.data], [r.type for r in op.res]),
        ):
            if list(expected) != list(actual):
                raise VerifyException(
                    f"{what} types of the call to {op.callee} must be the callee's "
                    f"({', '.join(map(str, expected))}), got ({', '.join(map(str, actual))})"
                )


@irdl_op_definition
class CallMlipOp(CpuOp):
    """Runs the accelerator subgraph `@callee` on the MLIP and waits for its results.

        %y = cpu.call_mlip @tvmgen_mrvl_main_0(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
    """

    name = "cpu.call_mlip"

    callee = prop_def(SymbolRefAttr)
    args = var_operand_def(AnyTensorTypeConstr)
    res = var_result_def(AnyTensorTypeConstr)
    chunks = opt_prop_def(_INT)
    """Call the subgraph this many times (at least 2), each on the next `dim 0 / chunks`
    images of every operand and result (`chunk-mrvl-batch`): a batch over MLIP's limit."""

    traits = traits_def(CallMlipSymbolUser())
    """Not pure: the MLIP is a device the call drives."""
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"

    def chunk_count(self) -> int:
        """How many times one run calls the subgraph (1 without `chunks`)."""
        return self.chunks.value.data if self.chunks is not None else 1

    def verify_params(self) -> None:
        if self.chunks is None:
            return
        if (chunks := self.chunk_count()) < 2:
            raise VerifyException(f"'chunks' must be at least 2, got {chunks}")
        for value in (*self.args, *self.res):
            dims = shape_of(value)
            if not dims or dims[0] % chunks:
                raise VerifyException(f"with 'chunks' {chunks}, every operand and result must have a dim 0 "
                                      f"that {chunks} divides, got {value.type}")


def calls_per_run(module: Operation) -> dict[str, int]:
    """How many times one run calls each subgraph: every `cpu.call_mlip`, `chunks` times."""
    calls: dict[str, int] = {}
    for op in module.walk():
        if isinstance(op, CallMlipOp):
            symbol = op.callee.root_reference.data
            calls[symbol] = calls.get(symbol, 0) + op.chunk_count()
    return calls


def chunked_type(callee_type: Attribute, chunks: int) -> Attribute:
    """The type a call of `chunks` chunks passes for a callee's `callee_type`: dim 0 `chunks` times."""
    if chunks == 1 or not isinstance(callee_type, TensorType) or not callee_type.get_shape():
        return callee_type
    n, *rest = callee_type.get_shape()
    return TensorType(callee_type.element_type, [n * chunks, *rest], callee_type.encoding)


# Convolution and matrix products


def _clamp_of(op: Operation) -> tuple[float, float] | None:
    """The bounds of the clamp fused into `op` (its `min` and `max`; an unset side is -inf or
    +inf), or None."""
    low, high = op.properties.get("min"), op.properties.get("max")
    if low is None and high is None:
        return None
    return (low.value.data if low is not None else -math.inf,  # type: ignore[attr-defined]
            high.value.data if high is not None else math.inf)  # type: ignore[attr-defined]


def _check_epilogue(op: Operation, channel_dim: int = 1) -> None:
    """The fused clamp's bounds are numbers, the `activation` has exactly its `alpha` and
    `beta`, and a PRelu its `slope`, one per channel (the result's dim `channel_dim`) (the
    epilogue of `cpu.conv`, `cpu.conv_transpose` and `cpu.matmul`)."""
    for name in ("min", "max"):
        bound = op.properties.get(name)
        if bound is not None and math.isnan(bound.value.data):  # type: ignore[attr-defined]
            raise VerifyException("'min' and 'max' must be numbers, got NaN")
    activation = op.properties.get("activation")
    kind = activation.data if isinstance(activation, EpilogueKindAttr) else None
    wants = {EpilogueKind.LEAKY_RELU: ("alpha",), EpilogueKind.HARD_SIGMOID: ("alpha", "beta")}.get(kind, ())
    given = tuple(name for name in ("alpha", "beta") if op.properties.get(name) is not None)
    if given != wants:
        raise VerifyException(f"activation {kind or 'none'} takes {' and '.join(wants) or 'no alpha or beta'}, "
                              f"got {' and '.join(given) or 'none'}")
    slope: SSAValue | None = op.slope  # type: ignore[attr-defined]
    if (kind == EpilogueKind.PRELU) != (slope is not None):
        raise VerifyException("a 'slope' goes with activation prelu, and activation prelu takes one")
    if slope is not None:
        _check_shape("'slope'", shape_of(slope), [shape_of(op.results[0])[channel_dim]])


class _ConvLike(CpuOp):
    """The operands, properties and shared checks of `cpu.conv` and `cpu.conv_transpose`."""

    _T: ClassVar = VarConstraint("T", AnyAttr())
    X = operand_def(TensorType.constr(_T))
    W = operand_def(TensorType.constr(_T))
    B = opt_operand_def(TensorType.constr(_T))
    Y = result_def(TensorType.constr(_T))
    strides = prop_def(_INTS)
    dilations = prop_def(_INTS)
    pads = prop_def(_INTS)
    """Padding at the beginning of each spatial dim, then at the end (for conv_transpose:
    output elements cropped there)."""
    group = prop_def(_INT)
    kernel = opt_prop_def(ConvKernelAttr)
    """The C kernel that runs the op (`select-host-kernels`)."""

    assembly_format = "$X `,` $W (`,` $B^)? " + _FUNCTIONAL

    def weights_shape(self) -> tuple[int, ...]:
        """The shape of the weights in ONNX's layout, however 'W' holds them."""
        return shape_of(self.W)

    def x_shape(self) -> tuple[int, ...]:
        """The shape of X as (N, C, spatial...), whichever layout the op reads."""
        return shape_of(self.X)

    def check_conv_params(self, *arrays: str) -> tuple[int, dict[str, tuple[int, ...]]]:
        """The number of spatial dims and the values of the named properties, checked."""
        x, w = self.x_shape(), self.weights_shape()
        n = len(x) - 2
        if n < 1:
            raise VerifyException(f"'X' must be (N, C, spatial...) with a spatial dim, got shape {list(x)}")
        if len(w) != len(x):
            raise VerifyException(f"'W' must have the rank of 'X' ({len(x)}), got shape {list(w)}")
        values = {name: _values(self.properties[name]) for name in arrays}  # type: ignore[arg-type]
        for name, vals in values.items():
            if name == "pads":
                _check_count(name, vals, 2 * n, "begin then end per spatial dim")
                _check_at_least(name, vals, 0)
            else:
                _check_count(name, vals, n, "one per spatial dim")
                _check_at_least(name, vals, 0 if name == "output_padding" else 1)
        if self.group.value.data < 1:
            raise VerifyException(f"'group' must be >= 1, got {self.group.value.data}")
        return n, values


@irdl_op_definition
class ConvOp(_ConvLike):
    """N-d convolution of X (N, C, spatial...) with W (M, C/group, kernel...), plus bias B (M);
    then, fused into the store of its output, plus a `residual` R of the result's shape (a
    residual Add), then clamped to [min, max] (a Relu: min 0; a Clip), then the `activation`
    (an `EpilogueKind`, with its `alpha` and `beta`; a PRelu with its `slope` (M), one per
    output channel), then times `scale` S (M) and plus `shift` T (M), per output channel (a Mul
    and an Add by per-channel constants).

        %y = cpu.conv %x, %w, %b {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
               pads = array<i64: 1, 1, 1, 1>, group = 1 : i64}
               : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
        %z = cpu.conv %y, %w2 residual %y {..., group = 1 : i64, min = 0.0 : f32}
               : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) residual tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
    """

    name = "cpu.conv"

    # Redeclared so that R follows them in the operand order.
    X = operand_def(TensorType.constr(_ConvLike._T))
    W = operand_def(TensorType.constr(_ConvLike._T))
    B = opt_operand_def(TensorType.constr(_ConvLike._T))
    R = opt_operand_def(TensorType.constr(_ConvLike._T))
    slope = opt_operand_def(TensorType.constr(_ConvLike._T))
    """The PRelu's slope per output channel (activation prelu)."""
    S = opt_operand_def(TensorType.constr(_ConvLike._T))
    T = opt_operand_def(TensorType.constr(_ConvLike._T))
    min = opt_prop_def(_FLOAT)
    max = opt_prop_def(_FLOAT)
    activation = opt_prop_def(EpilogueKindAttr)
    alpha = opt_prop_def(_FLOAT)
    beta = opt_prop_def(_FLOAT)
    packed_weights = opt_prop_def(UnitAttr)
    """W is in the packed layout of the conv kernel (`plan-host-memory`): (group, panels,
    C/group, kernel..., panel width), the output channels of each group in panels; for the
    `winograd` kernel, transformed: (16, panels, C, panel width)."""
    packing_floats = opt_prop_def(_INT)
    """Floats at the front of the scratch that run-time weights are packed into before a
    `direct` or `flat` kernel reads them (`plan-host-memory`)."""
    y_batch = opt_prop_def(_INT)
    """Floats between the starts of two images of Y, when it is written into a slice of an
    in-place concat's output (`plan-host-memory`); else the images are dense."""

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$X `,` $W (`,` $B^)? (`residual` $R^)? (`slope` $slope^)? (`scale` $S^)? (`shift` $T^)? attr-dict "
        "`:` `(` type($X) `,` type($W) (`,` type($B)^)? `)` (`residual` type($R)^)? (`slope` type($slope)^)? "
        "(`scale` type($S)^)? (`shift` type($T)^)? `->` type($Y)"
    )

    @classmethod
    def of(cls, x: SSAValue, w: SSAValue, b: SSAValue | None, result: Attribute, *, residual: SSAValue | None = None,
           slope: SSAValue | None = None, scale: SSAValue | None = None, shift: SSAValue | None = None,
           **properties: Attribute) -> "ConvOp":
        return cls.build(operands=[x, w, b, residual, slope, scale, shift], result_types=[result],
                         properties=properties)

    def clamp(self) -> tuple[float, float] | None:
        """The fused clamp's bounds (an unset side is -inf or +inf), or None."""
        return _clamp_of(self)

    def winograd_weights(self) -> bool:
        """Whether W holds weights transformed for the `winograd` kernel."""
        return self.packed_weights is not None and self.kernel is not None and self.kernel.data == ConvKernel.WINOGRAD

    def weights_shape(self) -> tuple[int, ...]:
        w = shape_of(self.W)
        if self.packed_weights is None:
            return w
        if self.winograd_weights():
            return (shape_of(self.Y)[1], w[2], 3, 3)
        return (shape_of(self.Y)[1], *w[2:-1])

    def verify_params(self) -> None:
        if self.R is not None and self.R.type != self.Y.type:
            raise VerifyException(f"'R' must have the result's type {self.Y.type}, got {self.R.type}")
        _check_epilogue(self)
        if self.winograd_weights():
            w, m = shape_of(self.W), shape_of(self.Y)[1]
            if len(w) != 4 or w[0] != 16 or w[1] * w[3] < m or self.group.value.data != 1:
                raise VerifyException(f"'W' transformed for the winograd kernel must be (16, panels, C, panel) with "
                                      f"room for {m} output channels, one group, got shape {list(w)}")
        elif self.packed_weights is not None:
            x, w, m, group = shape_of(self.X), shape_of(self.W), shape_of(self.Y)[1], self.group.value.data
            if len(w) != len(x) + 2 or w[0] != group or w[1] * w[-1] < m // group:
                raise VerifyException(f"packed 'W' must be (group, panels, C/group, kernel..., panel) with "
                                      f"room for {m // group} output channels per group, got shape {list(w)}")
        n, p = self.check_conv_params("strides", "dilations", "pads")
        x, w = shape_of(self.X), self.weights_shape()
        group = self.group.value.data
        if w[1] * group != x[1]:
            raise VerifyException(
                f"'W' dim 1 times 'group' must be the input channels {x[1]}, got {w[1]} x {group}"
            )
        if w[0] % group:
            raise VerifyException(f"'W' dim 0 (output channels) must be a multiple of 'group' ({group}), got {w[0]}")
        for name, operand in (("'B'", self.B), ("'S'", self.S), ("'T'", self.T)):
            if operand is not None:
                _check_shape(name, shape_of(operand), [w[0]])
        spatial = [
            (x[2 + i] + p["pads"][i] + p["pads"][n + i] - _window_extent(w[2 + i], p["dilations"][i]))
            // p["strides"][i]
            + 1
            for i in range(n)
        ]
        _check_shape("the result", shape_of(self.Y), [x[0], w[0], *spatial])


@irdl_op_definition
class ConvTransposeOp(_ConvLike):
    """N-d transposed convolution of X (N, C, spatial...) with W (C, M/group, kernel...), plus B (M);
    then, fused into the store of its output, clamped to [min, max] (a Relu, a Clip), then
    the `activation` (an `EpilogueKind`, with its `alpha` and `beta`; a PRelu with its `slope`
    (M)), as `cpu.conv`'s.

    Output size per spatial dim: stride * (in - 1) + output_padding + dilation * (kernel - 1)
    + 1 - pad_begin - pad_end.

        %y = cpu.conv_transpose %x, %w {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>,
               pads = array<i64: 0, 0, 0, 0>, output_padding = array<i64: 0, 0>, group = 1 : i64, min = 0.0 : f32}
               : (tensor<1x32x12x12xf32>, tensor<32x16x2x2xf32>) -> tensor<1x16x24x24xf32>

    With `channels_last`, X and the result are (N, spatial..., C) and (N, spatial..., M); W
    keeps ONNX's layout:

        %y = cpu.conv_transpose %x, %w {..., channels_last} : (tensor<1x12x12x32xf32>, tensor<32x16x2x2xf32>)
               -> tensor<1x24x24x16xf32>
    """

    name = "cpu.conv_transpose"

    # Redeclared so that the slope follows them in the operand order.
    X = operand_def(TensorType.constr(_ConvLike._T))
    W = operand_def(TensorType.constr(_ConvLike._T))
    B = opt_operand_def(TensorType.constr(_ConvLike._T))
    slope = opt_operand_def(TensorType.constr(_ConvLike._T))
    """The PRelu's slope per output channel (activation prelu)."""
    output_padding = prop_def(_INTS)
    """Extra output size at the end of each spatial dim (ONNX's output_padding)."""
    min = opt_prop_def(_FLOAT)
    max = opt_prop_def(_FLOAT)
    activation = opt_prop_def(EpilogueKindAttr)
    alpha = opt_prop_def(_FLOAT)
    beta = opt_prop_def(_FLOAT)
    channels_last = opt_prop_def(UnitAttr)
    """X and the result are (N, spatial..., C): the host glue between MLIP calls in NHWC."""

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = ("$X `,` $W (`,` $B^)? (`slope` $slope^)? attr-dict `:` `(` type($X) `,` type($W) "
                       "(`,` type($B)^)? `)` (`slope` type($slope)^)? `->` type($Y)")

    @classmethod
    def of(cls, x: SSAValue, w: SSAValue, b: SSAValue | None, result: Attribute, *, slope: SSAValue | None = None,
           **properties: Attribute) -> "ConvTransposeOp":
        return cls.build(operands=[x, w, b, slope], result_types=[result], properties=properties)

    def clamp(self) -> tuple[float, float] | None:
        """The fused clamp's bounds (an unset side is -inf or +inf), or None."""
        return _clamp_of(self)

    def x_shape(self) -> tuple[int, ...]:
        return tuple(channels_first(self, shape_of(self.X)))

    def verify_params(self) -> None:
        _check_epilogue(self, channel_dim=-1 if self.channels_last is not None else 1)
        n, p = self.check_conv_params("strides", "dilations", "pads", "output_padding")
        x, w = self.x_shape(), shape_of(self.W)
        group = self.group.value.data
        if w[0] != x[1] or x[1] % group:
            raise VerifyException(
                f"'W' dim 0 must be the input channels {x[1]}, a multiple of 'group' ({group}), got {w[0]}"
            )
        if self.B is not None:
            _check_shape("'B'", shape_of(self.B), [w[1] * group])
        spatial = [
            p["strides"][i] * (x[2 + i] - 1)
            + p["output_padding"][i]
            + _window_extent(w[2 + i], p["dilations"][i])
            - p["pads"][i]
            - p["pads"][n + i]
            for i in range(n)
        ]
        m = w[1] * group
        expected = [x[0], *spatial, m] if self.channels_last is not None else [x[0], m, *spatial]
        _check_shape("the result", shape_of(self.Y), expected)


@irdl_op_definition
class GemmOp(CpuOp):
    """Y = alpha * A' * B' + beta * C, where A' is A or its transpose (trans_a), likewise B'.

    C (optional) broadcasts to Y as in numpy.

        %y = cpu.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
               : (tensor<1x512xf32>, tensor<10x512xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    """

    name = "cpu.gemm"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    A = operand_def(TensorType.constr(_T))
    B = operand_def(TensorType.constr(_T))
    C = opt_operand_def(TensorType.constr(_T))
    Y = result_def(TensorType.constr(_T))
    alpha = prop_def(_FLOAT)
    beta = prop_def(_FLOAT)
    trans_a = prop_def(BoolAttr)
    trans_b = prop_def(BoolAttr)
    packed_b = opt_prop_def(UnitAttr)
    """B holds B' (K, N) in the packed layout of the GEMM kernel (`plan-host-memory`): (panels,
    K, panel width), N's columns in panels."""

    assembly_format = "$A `,` $B (`,` $C^)? " + _FUNCTIONAL

    def weights_shape(self) -> tuple[int, ...]:
        """The shape of B in ONNX's layout (transposed with trans_b), however 'B' holds it."""
        return _unpacked_b_shape(self, self.trans_b.value.data)

    def verify_params(self) -> None:
        _check_packed_b(self)
        a, b = shape_of(self.A), self.weights_shape()
        if len(a) != 2 or len(b) != 2:
            raise VerifyException(f"'A' and 'B' must be matrices, got shapes {list(a)} and {list(b)}")
        m, k = a[::-1] if self.trans_a.value.data else a
        k2, n = b[::-1] if self.trans_b.value.data else b
        if k != k2:
            raise VerifyException(f"the inner dims of A' and B' must agree, got {k} and {k2}")
        _check_shape("the result", shape_of(self.Y), [m, n])
        if self.C is not None:
            _check_broadcast("'C'", [shape_of(self.C)], [m, n])


def _unpacked_b_shape(op: "GemmOp | MatmulOp", transposed: bool = False) -> tuple[int, ...]:
    """B's shape as the op's kernel would read it unpacked: (K, N), or (N, K) `transposed`."""
    b = shape_of(op.B)
    if isinstance(op, MatmulOp) and op.transposed_b is not None:
        return b[::-1]
    if op.packed_b is None:
        return b
    k, n = b[1], shape_of(op.Y)[-1]
    return (n, k) if transposed else (k, n)


def _check_packed_b(op: "GemmOp | MatmulOp") -> None:
    """A packed B is (panels, K, panel width) with room for the result's N columns."""
    if op.packed_b is None:
        return
    b, n = shape_of(op.B), shape_of(op.Y)[-1]
    if len(b) != 3 or b[0] * b[2] < n:
        raise VerifyException(f"packed 'B' must be (panels, K, panel) with room for {n} columns, got shape {list(b)}")


def matmul_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """The shape of numpy's `matmul(a, b)`, or None when the shapes do not fit."""
    if not a or not b:
        return None
    a2 = [1, *a] if len(a) == 1 else list(a)
    b2 = [*b, 1] if len(b) == 1 else list(b)
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    if batch is None or a2[-1] != b2[-2]:
        return None
    return (*batch, *([a2[-2]] if len(a) > 1 else []), *([b2[-1]] if len(b) > 1 else []))


@irdl_op_definition
class MatmulOp(CpuOp):
    """Matrix product with numpy's `matmul` semantics: batch dims broadcast, 1-d operands promoted;
    then, fused into the product, plus a `bias` C (N) along the last dim (a MatMul's bias Add),
    then clamped to [min, max] (a Relu: min 0; a Clip), then the `activation` (an
    `EpilogueKind`, with its `alpha` and `beta`; a PRelu with its `slope` (N), one per column
    of the last dim), as `cpu.conv` has them.

        %y = cpu.matmul %a, %b : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
        %z = cpu.matmul %h, %w bias %c {activation = #cpu<epilogue_kind silu>}
               : (tensor<1x128x256xf32>, tensor<256x1024xf32>) bias tensor<1024xf32> -> tensor<1x128x1024xf32>
    """

    name = "cpu.matmul"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    A = operand_def(TensorType.constr(_T))
    B = operand_def(TensorType.constr(_T))
    C = opt_operand_def(TensorType.constr(_T))
    slope = opt_operand_def(TensorType.constr(_T))
    """The PRelu's slope per column (activation prelu)."""
    Y = result_def(TensorType.constr(_T))
    min = opt_prop_def(_FLOAT)
    max = opt_prop_def(_FLOAT)
    activation = opt_prop_def(EpilogueKindAttr)
    alpha = opt_prop_def(_FLOAT)
    beta = opt_prop_def(_FLOAT)
    packed_b = opt_prop_def(UnitAttr)
    """B is a (K, N) matrix in the packed layout of the GEMM kernel (`plan-host-memory`), as
    `cpu.gemm`'s `packed_b`."""
    transposed_b = opt_prop_def(UnitAttr)
    """B holds the transpose (N, K) of a (K, N) matrix, for a product of a few rows that dots
    them with B's rows (`plan-host-memory`)."""

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = ("$A `,` $B (`bias` $C^)? (`slope` $slope^)? attr-dict `:` `(` type($A) `,` type($B) `)` "
                       "(`bias` type($C)^)? (`slope` type($slope)^)? `->` type($Y)")

    @classmethod
    def of(cls, a: SSAValue, b: SSAValue, result: Attribute, *, bias: SSAValue | None = None,
           slope: SSAValue | None = None, **properties: Attribute) -> "MatmulOp":
        return cls.build(operands=[a, b, bias, slope], result_types=[result], properties=properties)

    def clamp(self) -> tuple[float, float] | None:
        """The fused clamp's bounds (an unset side is -inf or +inf), or None."""
        return _clamp_of(self)

    def weights_shape(self) -> tuple[int, ...]:
        """The shape of B in ONNX's layout, however 'B' holds it."""
        return _unpacked_b_shape(self)

    def verify_params(self) -> None:
        _check_packed_b(self)
        if self.transposed_b is not None and (self.packed_b is not None or len(shape_of(self.B)) != 2):
            raise VerifyException("a transposed 'B' must be one matrix, not packed")
        a, b = shape_of(self.A), self.weights_shape()
        expected = matmul_shape(a, b)
        if expected is None:
            raise VerifyException(f"'A' {list(a)} and 'B' {list(b)} do not fit numpy's matmul")
        _check_shape("the result", shape_of(self.Y), expected)
        if self.C is not None:
            _check_shape("'C'", shape_of(self.C), expected[-1:])
        _check_epilogue(self, -1)


# Elementwise


@irdl_op_definition
class BinaryOp(CpuOp):
    """Elementwise `kind` of lhs and rhs, broadcast as in numpy to the result's shape.

    Comparisons give i1; and/or/xor take and give i1; the others keep the operands' type.

        %y = cpu.binary add %a, %b : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
    """

    name = "cpu.binary"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    kind = prop_def(BinaryKindAttr)
    lhs = operand_def(TensorType.constr(_T))
    rhs = operand_def(TensorType.constr(_T))
    result = result_def(AnyTensorTypeConstr)
    in_place = opt_prop_def(_INT)
    """The memory plan: the operand (0 lhs, 1 rhs, of the result's type) whose storage the
    result is written over."""

    assembly_format = "$kind $lhs `,` $rhs " + _FUNCTIONAL

    def verify_params(self) -> None:
        if self.in_place is not None:
            k = self.in_place.value.data
            if k not in (0, 1) or self.operands[k].type != self.result.type:
                raise VerifyException(f"'in_place' must name an operand of the result's type, got {k}")
        kind = self.kind.data
        operands = element_type_of(self.lhs)
        expected = i1 if kind in _COMPARISONS else operands
        if kind in _LOGICAL_BINARY and operands != i1:
            raise VerifyException(f"'{kind}' takes i1 operands, got {operands}")
        if element_type_of(self.result) != expected:
            raise VerifyException(f"'{kind}' must give {expected} elements, got {element_type_of(self.result)}")
        _check_broadcast("the operand shapes", [shape_of(self.lhs), shape_of(self.rhs)], shape_of(self.result))


@irdl_op_definition
class UnaryOp(_MapOp):
    """Elementwise `kind` of the input.

        %y = cpu.unary relu %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    """

    name = "cpu.unary"

    kind = prop_def(UnaryKindAttr)

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        super().verify_params()
        if self.kind.data == UnaryKind.NOT and element_type_of(self.input) != i1:
            raise VerifyException(f"'not' takes i1 elements, got {element_type_of(self.input)}")


@irdl_op_definition
class ClipOp(_MapOp):
    """min(max(x, min), max) elementwise; an unbounded side is -inf or +inf.

        %y = cpu.clip %x {min = 0.0 : f32, max = 6.0 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    """

    name = "cpu.clip"

    min = prop_def(_FLOAT)
    max = prop_def(_FLOAT)

    def verify_params(self) -> None:
        super().verify_params()
        low, high = self.min.value.data, self.max.value.data
        if math.isnan(low) or math.isnan(high):
            raise VerifyException(f"'min' and 'max' must be numbers, got {low} and {high}")


@irdl_op_definition
class LeakyReluOp(_MapOp):
    """x < 0 ? alpha * x : x elementwise.

        %y = cpu.leaky_relu %x {alpha = 0.01 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    """

    name = "cpu.leaky_relu"

    alpha = prop_def(_FLOAT)


@irdl_op_definition
class HardSigmoidOp(_MapOp):
    """max(0, min(1, alpha * x + beta)) elementwise.

        %y = cpu.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    """

    name = "cpu.hard_sigmoid"

    alpha = prop_def(_FLOAT)
    beta = prop_def(_FLOAT)


@irdl_op_definition
class HardSwishOp(_MapOp):
    """x * max(0, min(1, x / 6 + 0.5)) elementwise.

        %y = cpu.hard_swish %x : (tensor<1x16xf32>) -> tensor<1x16xf32>
    """

    name = "cpu.hard_swish"


# Fused elementwise chains


@irdl_op_definition
class ElementwiseOp(CpuOp):
    """A chain or tree of elementwise float32 ops computed in one pass over memory, in the
    spirit of `linalg.generic`: the inputs broadcast as in numpy to the result's shape, and
    the body maps one scalar of each input (its block arguments, in order) to the result's
    scalar (`cpu.yield`). The body holds scalar ops of `arith` and `math` and `cpu.sigmoid`.

        %y = cpu.elementwise %x : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
        ^bb0(%v: f32):
          %s = cpu.sigmoid %v : f32
          %m = arith.mulf %v, %s : f32
          cpu.yield %m : f32
        }

    `select-host-kernels` records the loop its kernel runs (`loop`: the iteration shape with
    size-1 dims dropped and dims merged, `strides`: each input's element strides over it,
    input after input; the innermost is 0 or 1), `plan-host-memory` the input whose storage
    the result takes over (`in_place`) or, for a result written into its slice of a concat's
    output, the result's element strides over the loop (`out_strides`, the innermost 1;
    absent, the result is contiguous).
    """

    name = "cpu.elementwise"

    inputs = var_operand_def(TensorType.constr(f32))
    output = result_def(TensorType.constr(f32))
    body = region_def("single_block")
    loop = opt_prop_def(_INTS)
    strides = opt_prop_def(_INTS)
    in_place = opt_prop_def(_INT)
    out_strides = opt_prop_def(_INTS)

    assembly_format = "$inputs attr-dict `:` functional-type($inputs, $output) $body"

    def __init__(self, inputs: Sequence[SSAValue], result_type: Attribute, body: Region):
        super().__init__(operands=[inputs], result_types=[result_type], regions=[body])

    def verify_params(self) -> None:
        block = self.body.block
        if len(block.args) != len(self.inputs):
            raise VerifyException(f"the body must take one scalar per input ({len(self.inputs)}), "
                                  f"got {len(block.args)}")
        for n, arg in enumerate(block.args):
            if arg.type != f32:
                raise VerifyException(f"body argument {n} must be f32 (its input's element type), got {arg.type}")
        if not isinstance(block.last_op, YieldOp) or len(block.last_op.arguments) != 1:
            raise VerifyException("the body must end with a cpu.yield of one value")
        if block.last_op.arguments[0].type != f32:
            raise VerifyException(f"the body must yield f32 (the result's element type), "
                                  f"got {block.last_op.arguments[0].type}")
        _check_broadcast("the input shapes", [shape_of(v) for v in self.inputs], shape_of(self.output))
        if (self.loop is None) != (self.strides is None):
            raise VerifyException("'loop' and 'strides' must be given together")
        if self.loop is not None and self.strides is not None:
            _check_count("strides", _values(self.strides), len(self.loop) * len(self.inputs),
                         "one per loop dim and input")
        if self.in_place is not None:
            k = self.in_place.value.data
            if not 0 <= k < len(self.inputs) or self.inputs[k].type != self.output.type:
                raise VerifyException(f"'in_place' must name an input of the result's type, got {k}")
        if self.out_strides is not None:
            if self.loop is None or len(_values(self.out_strides)) != len(_values(self.loop)):
                raise VerifyException("'out_strides' must give one stride per loop dim")
            if self.in_place is not None:
                raise VerifyException("'out_strides' and 'in_place' exclude each other")
            if _values(self.out_strides)[-1] != 1:
                raise VerifyException("'out_strides' must be 1 along the innermost loop dim")


@irdl_op_definition
class YieldOp(AbstractYieldOperation[Attribute]):
    """The scalar result of a `cpu.elementwise` body."""

    name = "cpu.yield"

    traits = traits_def(IsTerminator(), HasParent(ElementwiseOp))


@irdl_op_definition
class SigmoidOp(IRDLOperation):
    """1 / (1 + e^-x) of one float scalar, in a `cpu.elementwise` body (where `arith` and `math`
    have no such op).

        %s = cpu.sigmoid %v : f32
    """

    name = "cpu.sigmoid"

    _T: ClassVar = VarConstraint("T", base(Float32Type))
    input = operand_def(_T)
    output = result_def(_T)

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


@irdl_op_definition
class DropoutOp(CpuOp):
    """Training-mode Dropout: each element kept with probability 1 - `ratio` and scaled by
    1 / (1 - ratio), or zeroed; the optional `mask` says which were kept.

    The mask is drawn as ONNX's reference draws it: numpy's legacy generator (MT19937 seeded
    with `seed`), one uniform double in [0, 1) per element in row-major order, the element
    kept when it is >= ratio. The same seed gives the same mask on every run.

        %y, %mask = cpu.dropout %x {ratio = 5.000000e-01 : f32, seed = 0 : i64}
               : (tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xi1>)
    """

    name = "cpu.dropout"

    _T: ClassVar = VarConstraint("T", AnyTensorTypeConstr)
    input = operand_def(_T)
    output = result_def(_T)
    mask = opt_result_def(TensorType.constr(i1))
    ratio = prop_def(_FLOAT)
    seed = prop_def(_INT)

    assembly_format = "$input " + _FUNCTIONAL

    def verify_params(self) -> None:
        if self.mask is not None:
            _check_shape("'mask'", shape_of(self.mask), shape_of(self.input))
        ratio, seed = self.ratio.value.data, self.seed.value.data
        if not 0.0 <= ratio < 1.0:
            raise VerifyException(f"'ratio' must be in [0, 1), got {ratio}")
        if not 0 <= seed < 2**32:
            raise VerifyException(f"'seed' must be in [0, 2^32), got {seed}")


@irdl_op_definition
class WhereOp(CpuOp):
    """condition ? X : Y elementwise, all three broadcast as in numpy to the result's shape.

        %z = cpu.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    """

    name = "cpu.where"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    condition = operand_def(TensorType.constr(i1))
    X = operand_def(TensorType.constr(_T))
    Y = operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))

    assembly_format = "$condition `,` $X `,` $Y " + _FUNCTIONAL

    def verify_params(self) -> None:
        shapes = [shape_of(self.condition), shape_of(self.X), shape_of(self.Y)]
        _check_broadcast("the operand shapes", shapes, shape_of(self.output))


@irdl_op_definition
class CastOp(CpuOp):
    """Converts each element to the result's element type (ONNX Cast, saturating float8 aside).

        %y = cpu.cast %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
    """

    name = "cpu.cast"

    input = operand_def(AnyTensorTypeConstr)
    output = result_def(AnyTensorTypeConstr)

    assembly_format = "$input " + _FUNCTIONAL

    def verify_params(self) -> None:
        _check_shape("the result", shape_of(self.output), shape_of(self.input))


# Normalisation and softmax


@irdl_op_definition
class SoftmaxOp(_SameTypeOp):
    """exp(x) / sum(exp(x)) along `axis`; with `log`, its logarithm (ONNX LogSoftmax),
    computed as x - max - log(sum(exp(x - max))) so that it stays finite where the softmax
    underflows.

        %y = cpu.softmax %x {axis = 3 : i64} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
        %z = cpu.softmax %x {axis = 1 : i64, log} : (tensor<2x10xf32>) -> tensor<2x10xf32>
    """

    name = "cpu.softmax"

    axis = prop_def(_INT)
    log = opt_prop_def(UnitAttr)

    def verify_params(self) -> None:
        _check_axis("axis", self.axis.value.data, len(shape_of(self.input)))


@irdl_op_definition
class LayerNormOp(CpuOp):
    """Normalises X over the dims from `axis` on, then scales by Scale and adds B.

    Scale and B have the shape of those dims, X.shape[axis:].

        %y = cpu.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32}
               : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
    """

    name = "cpu.layer_norm"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    X = operand_def(TensorType.constr(_T))
    Scale = operand_def(TensorType.constr(_T))
    B = opt_operand_def(TensorType.constr(_T))
    Y = result_def(TensorType.constr(_T))
    axis = prop_def(_INT)
    epsilon = prop_def(_FLOAT)

    assembly_format = "$X `,` $Scale (`,` $B^)? " + _FUNCTIONAL

    def verify_params(self) -> None:
        x = shape_of(self.X)
        axis = self.axis.value.data
        _check_axis("axis", axis, len(x))
        for name, value in (("Scale", self.Scale), ("B", self.B)):
            if value is not None:
                _check_shape(f"'{name}'", shape_of(value), x[axis:])
        _check_shape("the result", shape_of(self.Y), x)


@irdl_op_definition
class BatchNormOp(CpuOp):
    """Inference batch norm: (X - mean) / sqrt(var + epsilon) * scale + B, per channel (dim 1;
    the last dim with `channels_last`).

        %y = cpu.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
               : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
               -> tensor<1x16x8x8xf32>
    """

    name = "cpu.batch_norm"

    _T: ClassVar = VarConstraint("T", AnyTensorTypeConstr)
    _P: ClassVar = VarConstraint("P", AnyTensorTypeConstr)
    X = operand_def(_T)
    scale = operand_def(_P)
    B = operand_def(_P)
    mean = operand_def(_P)
    var = operand_def(_P)
    Y = result_def(_T)
    epsilon = prop_def(_FLOAT)
    channels_last = opt_prop_def(UnitAttr)
    """X and the result are (N, spatial..., C): the host glue between MLIP calls in NHWC."""

    assembly_format = "$X `,` $scale `,` $B `,` $mean `,` $var " + _FUNCTIONAL

    def verify_params(self) -> None:
        x = shape_of(self.X)
        if len(x) < 2:
            raise VerifyException(f"'X' must be (N, C, ...), got shape {list(x)}")
        _check_shape("'scale', 'B', 'mean' and 'var'", shape_of(self.scale),
                     [x[-1] if self.channels_last is not None else x[1]])


# Pooling


@irdl_op_definition
class PoolOp(CpuOp):
    """Max or average over windows of X (N, C, spatial...) per channel.

    The result type holds the output size, so ONNX's ceil_mode is already applied: a last
    window may run past the padded input, and only elements inside it count. An average
    divides by the number of input elements in the window, padding included when
    `count_include_pad` is true.

    A max pool may have a second result, `indices` (ONNX MaxPool's Indices): where each
    maximum is, flattened over the whole input (N, C, spatial...), the spatial dims in
    row-major order, or column-major with `storage_order` 1. `storage_order` is there exactly
    when `indices` is.

        %y = cpu.pool max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
               pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad = false}
               : (tensor<1x8x28x28xf32>) -> tensor<1x8x14x14xf32>
        %y, %i = cpu.pool max %x {..., storage_order = 0 : i64}
               : (tensor<1x8x28x28xf32>) -> (tensor<1x8x14x14xf32>, tensor<1x8x14x14xi64>)

    With `channels_last`, X and the result are (N, spatial..., C), with no `indices`:

        %y = cpu.pool max %x {kernel = ..., channels_last} : (tensor<1x28x28x8xf32>) -> tensor<1x14x14x8xf32>
    """

    name = "cpu.pool"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    input = operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))
    indices = opt_result_def(TensorType.constr(i64))
    kind = prop_def(PoolKindAttr)
    kernel = prop_def(_INTS)
    strides = prop_def(_INTS)
    pads = prop_def(_INTS)
    """Padding at the beginning of each spatial dim, then at the end."""
    dilations = prop_def(_INTS)
    count_include_pad = prop_def(BoolAttr)
    storage_order = opt_prop_def(_INT)
    """0: `indices` row-major over the spatial dims, 1: column-major."""
    channels_last = opt_prop_def(UnitAttr)
    """X and the result are (N, spatial..., C): the host glue between MLIP calls in NHWC."""

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, y = channels_first(self, shape_of(self.input)), channels_first(self, shape_of(self.output))
        if self.channels_last is not None and self.indices is not None:
            raise VerifyException("a channels_last pool has no 'indices' result")
        if (self.indices is None) != (self.storage_order is None):
            raise VerifyException("'storage_order' must be given exactly when there is an 'indices' result")
        if self.indices is not None:
            if self.kind.data != PoolKind.MAX:
                raise VerifyException(f"only a max pool has an 'indices' result, got kind '{self.kind.data}'")
            _check_shape("'indices'", shape_of(self.indices), y)
            order = self.storage_order.value.data  # type: ignore[union-attr]
            if order not in (0, 1):
                raise VerifyException(f"'storage_order' must be 0 or 1, got {order}")
        n = len(x) - 2
        if n < 1:
            raise VerifyException(f"'X' must be (N, C, spatial...) with a spatial dim, got shape {list(x)}")
        kernel, strides, dilations, pads = (
            _values(self.kernel), _values(self.strides), _values(self.dilations), _values(self.pads)
        )
        for name, vals in (("kernel", kernel), ("strides", strides), ("dilations", dilations)):
            _check_count(name, vals, n, "one per spatial dim")
            _check_at_least(name, vals, 1)
        _check_count("pads", pads, 2 * n, "begin then end per spatial dim")
        _check_at_least("pads", pads, 0)
        if len(y) != len(x) or y[:2] != x[:2]:
            raise VerifyException(f"the result must be (N, C, spatial...) of 'X' {list(x)}, got {list(y)}")
        for i in range(n):
            span = x[2 + i] + pads[i] + pads[n + i] - _window_extent(kernel[i], dilations[i])
            floor, ceil = span // strides[i] + 1, -(-span // strides[i]) + 1
            if y[2 + i] not in (floor, ceil):
                raise VerifyException(
                    f"spatial dim {i} of the result must be {floor} (or {ceil} with ceil_mode), got {y[2 + i]}"
                )


@irdl_op_definition
class GlobalPoolOp(_SameElementTypeOp):
    """Max or average over all spatial positions of X (N, C, spatial...), per channel.

        %y = cpu.global_pool average %x : (tensor<1x72x24x24xf32>) -> tensor<1x72x1x1xf32>
        %z = cpu.global_pool average %x {channels_last} : (tensor<1x24x24x72xf32>) -> tensor<1x1x1x72xf32>
    """

    name = "cpu.global_pool"

    kind = prop_def(PoolKindAttr)
    channels_last = opt_prop_def(UnitAttr)
    """X and the result are (N, spatial..., C)."""

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x = shape_of(self.input)
        if len(x) < 3:
            raise VerifyException(f"'X' must be (N, C, spatial...) with a spatial dim, got shape {list(x)}")
        spatial = [1] * (len(x) - 2)
        expected = [x[0], *spatial, x[-1]] if self.channels_last is not None else [*x[:2], *spatial]
        _check_shape("the result", shape_of(self.output), expected)


def channels_first(op: "PoolOp | GlobalPoolOp | ConvTransposeOp | BatchNormOp", dims: Sequence[int]) -> list[int]:
    """(N, C, spatial...) of the X or result of an op with `channels_last`, whichever layout it reads."""
    dims = list(dims)
    return [dims[0], dims[-1], *dims[1:-1]] if op.channels_last is not None and len(dims) > 1 else dims


@irdl_op_definition
class ReduceOp(_SameElementTypeOp):
    """Reduces X over `axes` (sorted, distinct, non-negative) with `kind`.

    Reduced dims stay as 1s when `keepdims` is true and are dropped otherwise.

        %y = cpu.reduce mean %x {axes = array<i64: 2, 3>, keepdims = true}
               : (tensor<1x8x4x4xf32>) -> tensor<1x8x1x1xf32>
    """

    name = "cpu.reduce"

    kind = prop_def(ReduceKindAttr)
    axes = prop_def(_INTS)
    keepdims = prop_def(BoolAttr)

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x = shape_of(self.input)
        axes = _values(self.axes)
        if not axes or list(axes) != sorted(set(axes)) or axes[0] < 0 or axes[-1] >= len(x):
            raise VerifyException(
                f"'axes' must be distinct, increasing and in [0, {len(x)}), got {list(axes)}"
            )
        keep = self.keepdims.value.data
        expected = [1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes]
        _check_shape("the result", shape_of(self.output), expected)


# Data movement


@irdl_op_definition
class ConcatOp(CpuOp):
    """Joins the inputs along `axis`; the other dims agree.

        %y = cpu.concat %a, %b {axis = 1 : i64} : (tensor<1x16x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x24x4x4xf32>
    """

    name = "cpu.concat"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    inputs = var_operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))
    axis = prop_def(_INT)
    in_place = opt_prop_def(_INTS)
    """The memory plan: the inputs whose producers wrote them into their slices of the output;
    the concat copies the others (none left: no code)."""

    assembly_format = "$inputs " + _FUNCTIONAL

    def verify_params(self) -> None:
        if not self.inputs:
            raise VerifyException("'inputs' must not be empty")
        shapes = [shape_of(v) for v in self.inputs]
        axis = self.axis.value.data
        _check_axis("axis", axis, len(shapes[0]))
        for s in shapes:
            if len(s) != len(shapes[0]) or s[:axis] + s[axis + 1 :] != shapes[0][:axis] + shapes[0][axis + 1 :]:
                raise VerifyException(
                    f"the inputs must agree on all dims but 'axis' ({axis}), got {[list(s) for s in shapes]}"
                )
        expected = list(shapes[0])
        expected[axis] = sum(s[axis] for s in shapes)
        _check_shape("the result", shape_of(self.output), expected)


@irdl_op_definition
class ReshapeOp(_SameElementTypeOp):
    """The same elements in the same (row-major) order, with the result's shape.

    ONNX Reshape, Flatten, Squeeze and Unsqueeze all become this op; it may alias its input.

        %y = cpu.reshape %x : (tensor<1x16x4x4xf32>) -> tensor<1x256xf32>
    """

    name = "cpu.reshape"

    alias = opt_prop_def(UnitAttr)
    """The memory plan: the result shares its input's storage (no copy)."""

    def verify_params(self) -> None:
        x, y = shape_of(self.input), shape_of(self.output)
        if math.prod(x) != math.prod(y):
            raise VerifyException(
                f"the result must have the input's element count {math.prod(x)}, got {math.prod(y)} ({list(y)})"
            )


@irdl_op_definition
class TransposeOp(_SameElementTypeOp):
    """Permutes the dims: result dim i is input dim perm[i].

        %y = cpu.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
    """

    name = "cpu.transpose"

    perm = prop_def(_INTS)

    def verify_params(self) -> None:
        x, perm = shape_of(self.input), _values(self.perm)
        if sorted(perm) != list(range(len(x))):
            raise VerifyException(f"'perm' must be a permutation of [0, {len(x)}), got {list(perm)}")
        _check_shape("the result", shape_of(self.output), [x[p] for p in perm])


def slice_length(start: int, end: int, step: int) -> int:
    """How many indices start, start + step, ... lie before `end` (in the step's direction)."""
    return max(0, -(-(end - start) // step))


@irdl_op_definition
class SliceOp(_SameElementTypeOp):
    """Takes indices starts[i], starts[i] + steps[i], ... before ends[i] along every dim i.

    Values are normalised and clamped as ONNX Slice does them: for a positive step,
    0 <= start <= dim and 0 <= end <= dim; for a negative one, 0 <= start <= dim - 1 and
    -1 <= end <= dim - 1 (-1 meaning: through index 0). A dim of size 0 has start 0,
    end 0 and step 1.

        %y = cpu.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 2, 7>, steps = array<i64: 1, 2>}
               : (tensor<2x8xf32>) -> tensor<2x3xf32>
    """

    name = "cpu.slice"

    starts = prop_def(_INTS)
    ends = prop_def(_INTS)
    steps = prop_def(_INTS)

    def verify_params(self) -> None:
        x = shape_of(self.input)
        starts, ends, steps = _values(self.starts), _values(self.ends), _values(self.steps)
        for name, vals in (("starts", starts), ("ends", ends), ("steps", steps)):
            _check_count(name, vals, len(x), "one per input dim")
        for i, (dim, start, end, step) in enumerate(zip(x, starts, ends, steps)):
            if step == 0:
                raise VerifyException(f"'steps' must not be 0, got {list(steps)}")
            start_low, start_high = 0, dim if step > 0 else dim - 1
            end_low, end_high = (0, dim) if step > 0 else (-1, dim - 1)
            if not (start_low <= start <= start_high and end_low <= end <= end_high):
                raise VerifyException(
                    f"dim {i} (size {dim}, step {step}) needs a start in [{start_low}, {start_high}] "
                    f"and an end in [{end_low}, {end_high}], got {start} and {end}"
                )
        expected = [slice_length(*s) for s in zip(starts, ends, steps)]
        _check_shape("the result", shape_of(self.output), expected)


@irdl_op_definition
class SplitOp(CpuOp):
    """Cuts the input along `axis` into consecutive pieces of `sizes`, one per result.

        %a, %b = cpu.split %x {axis = 2 : i64, sizes = array<i64: 256, 256>}
                   : (tensor<2x16x512xf32>) -> (tensor<2x16x256xf32>, tensor<2x16x256xf32>)
    """

    name = "cpu.split"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    input = operand_def(TensorType.constr(_T))
    outputs = var_result_def(TensorType.constr(_T))
    axis = prop_def(_INT)
    sizes = prop_def(_INTS)
    in_place = opt_prop_def(_INTS)
    """The memory plan: the results not written, read only by a concat that has them in its
    output already (the input was written there)."""
    in_strides = opt_prop_def(_INTS)
    """The memory plan: the input's element strides where it lies, a slice of a concat's
    output (absent: contiguous)."""

    assembly_format = "$input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, sizes, axis = shape_of(self.input), _values(self.sizes), self.axis.value.data
        if self.in_strides is not None:
            _check_count("in_strides", _values(self.in_strides), len(x), "one per input dim")
        _check_axis("axis", axis, len(x))
        _check_count("sizes", sizes, len(self.outputs), "one per result")
        _check_at_least("sizes", sizes, 0)
        if sum(sizes) != x[axis]:
            raise VerifyException(f"'sizes' must add up to dim {axis} of the input ({x[axis]}), got {list(sizes)}")
        for size, result in zip(sizes, self.outputs):
            _check_shape("each result", shape_of(result), [*x[:axis], size, *x[axis + 1 :]])


@irdl_op_definition
class GatherOp(CpuOp):
    """Picks entries of data along `axis` at `indices` (negative indices count from the end).

        %y = cpu.gather %x, %i {axis = 1 : i64} : (tensor<2x16x64xf32>, tensor<i64>) -> tensor<2x64xf32>
    """

    name = "cpu.gather"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    data = operand_def(TensorType.constr(_T))
    indices = operand_def(TensorType.constr(AttrSetConstraint(frozenset({i32, i64}))))
    output = result_def(TensorType.constr(_T))
    axis = prop_def(_INT)

    assembly_format = "$data `,` $indices " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, axis = shape_of(self.data), self.axis.value.data
        _check_axis("axis", axis, len(x))
        _check_shape("the result", shape_of(self.output), [*x[:axis], *shape_of(self.indices), *x[axis + 1 :]])


@irdl_op_definition
class PadOp(_SameElementTypeOp):
    """Pads every dim by pads[i] before and pads[rank + i] after (negative: crops), filling by `mode`.

        %y = cpu.pad constant %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0 : f32}
               : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
    """

    name = "cpu.pad"

    pads = prop_def(_INTS)
    mode = prop_def(PadModeAttr)
    value = prop_def(_FLOAT)
    """The fill value in constant mode, converted to the element type."""

    assembly_format = "$mode $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, pads = shape_of(self.input), _values(self.pads)
        _check_count("pads", pads, 2 * len(x), "begin then end per input dim")
        _check_shape("the result", shape_of(self.output), [d + pads[i] + pads[len(x) + i] for i, d in enumerate(x)])


@irdl_op_definition
class ResizeOp(_SameElementTypeOp):
    """Resamples X to the result's shape; `scales` (output over input, per dim) drive the
    coordinate mapping, as in ONNX Resize.

    `antialias` (linear and cubic only) stretches the filter by 1/scale where a dim shrinks.
    `roi` (starts of every dim, then ends, as fractions of the input) is there exactly with
    coordinate_transformation_mode tf_crop_and_resize.

        %y = cpu.resize nearest %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>,
               coordinate_transformation_mode = #cpu<coordinate_transformation_mode asymmetric>,
               nearest_mode = #cpu<nearest_mode floor>, cubic_coeff_a = -0.75 : f32,
               exclude_outside = false, extrapolation_value = 0.0 : f32, antialias = false}
               : (tensor<1x16x24x24xf32>) -> tensor<1x16x48x48xf32>
    """

    name = "cpu.resize"

    scales = prop_def(_FLOATS)
    mode = prop_def(ResizeModeAttr)
    coordinate_transformation_mode = prop_def(CoordinateTransformationModeAttr)
    nearest_mode = prop_def(NearestModeAttr)
    cubic_coeff_a = prop_def(_FLOAT)
    exclude_outside = prop_def(BoolAttr)
    extrapolation_value = prop_def(_FLOAT)
    antialias = prop_def(BoolAttr)
    roi = opt_prop_def(_FLOATS)
    kernel = opt_prop_def(ResizeKernelAttr)
    """The C kernel that runs the op (`select-host-kernels`)."""
    out_strides = opt_prop_def(_INTS)
    """The memory plan: the result's element strides, its rows of the last dim a slice of a
    concat's output (nearest only; absent: contiguous)."""

    assembly_format = "$mode $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, y = shape_of(self.input), shape_of(self.output)
        if self.out_strides is not None:
            _check_count("out_strides", _values(self.out_strides), len(y), "one per result dim")
            if self.kernel is None or self.kernel.data != ResizeKernel.NEAREST or _values(self.out_strides)[-1] != 1:
                raise VerifyException("'out_strides' needs the nearest kernel and a contiguous last dim")
        scales = self.scales.get_values()
        _check_count("scales", scales, len(x), "one per input dim")
        if not all(s > 0 for s in scales):
            raise VerifyException(f"'scales' must be positive, got {list(scales)}")
        if self.antialias.value.data and self.mode.data == ResizeMode.NEAREST:
            raise VerifyException("'antialias' needs mode linear or cubic, got nearest")
        cropping = self.coordinate_transformation_mode.data == CoordinateTransformationMode.TF_CROP_AND_RESIZE
        if cropping != (self.roi is not None):
            raise VerifyException("'roi' must be given exactly with coordinate_transformation_mode tf_crop_and_resize")
        if self.roi is not None:
            _check_count("roi", self.roi.get_values(), 2 * len(x), "starts then ends, per input dim")
        if len(y) != len(x):
            raise VerifyException(f"the result must have the input's rank {len(x)}, got {list(y)}")


@irdl_op_definition
class DepthToSpaceOp(_SameElementTypeOp):
    """Moves blocks of channels of X (N, C, H, W) into blocksize x blocksize spatial tiles.

        %y = cpu.depth_to_space DCR %x {blocksize = 2 : i64}
               : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    """

    name = "cpu.depth_to_space"

    blocksize = prop_def(_INT)
    mode = prop_def(DepthToSpaceModeAttr)

    assembly_format = "$mode $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, b = shape_of(self.input), self.blocksize.value.data
        if b < 1:
            raise VerifyException(f"'blocksize' must be >= 1, got {b}")
        if len(x) != 4 or x[1] % (b * b):
            raise VerifyException(f"the input must be (N, C, H, W) with C a multiple of {b * b}, got {list(x)}")
        _check_shape("the result", shape_of(self.output), [x[0], x[1] // (b * b), x[2] * b, x[3] * b])


@irdl_op_definition
class ExpandOp(_SameElementTypeOp):
    """Broadcasts the input as in numpy to the result's shape.

        %y = cpu.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
    """

    name = "cpu.expand"

    def verify_params(self) -> None:
        _check_broadcast("the input shape", [shape_of(self.input)], shape_of(self.output))


# Along one axis, and other index computations


def _kept_shape(x: Sequence[int], axis: int, keepdims: bool) -> list[int]:
    """`x`'s shape reduced over `axis`: a 1 there with `keepdims`, else the dim dropped."""
    return [1 if i == axis else d for i, d in enumerate(x) if keepdims or i != axis]


@irdl_op_definition
class ArgReduceOp(CpuOp):
    """The index along `axis` of each maximum (or minimum) of X, as int64 (ONNX ArgMax, ArgMin).

    Of equal extremes the first wins, or the last with `select_last_index`; a NaN counts as
    the extreme (numpy's argmax and argmin, ONNX's reference). The reduced dim stays as a 1
    with `keepdims` and is dropped otherwise.

        %i = cpu.arg_reduce max %x {axis = 1 : i64, keepdims = false, select_last_index = false}
               : (tensor<2x10xf32>) -> tensor<2xi64>
    """

    name = "cpu.arg_reduce"

    kind = prop_def(ArgReduceKindAttr)
    input = operand_def(AnyTensorTypeConstr)
    output = result_def(TensorType.constr(i64))
    axis = prop_def(_INT)
    keepdims = prop_def(BoolAttr)
    select_last_index = prop_def(BoolAttr)

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, axis = shape_of(self.input), self.axis.value.data
        _check_axis("axis", axis, len(x))
        if x[axis] == 0:
            raise VerifyException(f"dim {axis} of the input must not be empty: it has no extreme")
        _check_shape("the result", shape_of(self.output), _kept_shape(x, axis, self.keepdims.value.data))


@irdl_op_definition
class HardmaxOp(_SameTypeOp):
    """1 at the first maximum of X along `axis`, 0 elsewhere (ONNX Hardmax).

        %y = cpu.hardmax %x {axis = 1 : i64} : (tensor<2x10xf32>) -> tensor<2x10xf32>
    """

    name = "cpu.hardmax"

    axis = prop_def(_INT)

    def verify_params(self) -> None:
        _check_axis("axis", self.axis.value.data, len(shape_of(self.input)))


@irdl_op_definition
class CumulativeOp(_SameTypeOp):
    """Running sums (or products) of X along `axis` (ONNX CumSum, CumProd).

    `exclusive`: element i accumulates the elements before i only (the first is 0, or 1 for
    a product); `reverse`: the accumulation runs from the end of the axis.

        %y = cpu.cumulative sum %x {axis = 0 : i64, exclusive = false, reverse = true}
               : (tensor<5xf64>) -> tensor<5xf64>
    """

    name = "cpu.cumulative"

    kind = prop_def(CumulativeKindAttr)
    axis = prop_def(_INT)
    exclusive = prop_def(BoolAttr)
    reverse = prop_def(BoolAttr)

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        _check_axis("axis", self.axis.value.data, len(shape_of(self.input)))


@irdl_op_definition
class TopKOp(CpuOp):
    """The `k` largest (or, without `largest`, smallest) elements of X along `axis`, in that
    order, and their indices along the axis (ONNX TopK).

    Of equal elements the one with the lower index comes first; a NaN counts as larger than
    every number (numpy's sort order, ONNX's reference). The results are always sorted, which
    is also a valid answer for ONNX's sorted = 0.

        %v, %i = cpu.top_k %x {axis = 1 : i64, k = 3 : i64, largest = true}
               : (tensor<3x4xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
    """

    name = "cpu.top_k"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    input = operand_def(TensorType.constr(_T))
    values = result_def(TensorType.constr(_T))
    indices = result_def(TensorType.constr(i64))
    axis = prop_def(_INT)
    k = prop_def(_INT)
    largest = prop_def(BoolAttr)

    assembly_format = "$input " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, axis, k = shape_of(self.input), self.axis.value.data, self.k.value.data
        _check_axis("axis", axis, len(x))
        if not 0 <= k <= x[axis]:
            raise VerifyException(f"'k' must be in [0, {x[axis]}] (dim {axis} of the input), got {k}")
        expected = [k if i == axis else d for i, d in enumerate(x)]
        _check_shape("'values'", shape_of(self.values), expected)
        _check_shape("'indices'", shape_of(self.indices), expected)


@irdl_op_definition
class RmsNormOp(CpuOp):
    """Divides X by the root mean square of the dims from `axis` on (plus `epsilon` under the
    root), then scales by Scale of those dims' shape, X.shape[axis:] (ONNX RMSNormalization).

        %y = cpu.rms_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32}
               : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
    """

    name = "cpu.rms_norm"

    _T: ClassVar = VarConstraint("T", AnyTensorTypeConstr)
    X = operand_def(_T)
    Scale = operand_def(AnyTensorTypeConstr)
    Y = result_def(_T)
    axis = prop_def(_INT)
    epsilon = prop_def(_FLOAT)

    assembly_format = "$X `,` $Scale " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, axis = shape_of(self.X), self.axis.value.data
        _check_axis("axis", axis, len(x))
        if element_type_of(self.Scale) != element_type_of(self.X):
            raise VerifyException(f"'Scale' must have the element type of 'X' ({element_type_of(self.X)}), "
                                  f"got {element_type_of(self.Scale)}")
        _check_shape("'Scale'", shape_of(self.Scale), x[axis:])


@irdl_op_definition
class GatherElementsOp(CpuOp):
    """result[i...] = data[i...] but along `axis`, where it is indices[i...] (negative: from
    the end); the result has the shape of `indices` (ONNX GatherElements).

        %y = cpu.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x3xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    """

    name = "cpu.gather_elements"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    data = operand_def(TensorType.constr(_T))
    indices = operand_def(TensorType.constr(AttrSetConstraint(frozenset({i32, i64}))))
    output = result_def(TensorType.constr(_T))
    axis = prop_def(_INT)

    assembly_format = "$data `,` $indices " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, idx, axis = shape_of(self.data), shape_of(self.indices), self.axis.value.data
        _check_axis("axis", axis, len(x))
        if len(idx) != len(x) or any(n > d for i, (n, d) in enumerate(zip(idx, x)) if i != axis):
            raise VerifyException(
                f"'indices' must have the rank of 'data' {list(x)} and no larger dim but 'axis' ({axis}), "
                f"got {list(idx)}")
        if x[axis] == 0 and math.prod(idx):
            raise VerifyException(f"dim {axis} of 'data' is empty: there is nothing to gather")
        _check_shape("the result", shape_of(self.output), idx)


@irdl_op_definition
class TriluOp(_SameTypeOp):
    """The upper (`upper`) or lower triangle of each matrix in the last two dims of X, the
    rest zeros: element (i, j) is kept when j - i >= k (upper) or j - i <= k (lower) (ONNX
    Trilu).

        %y = cpu.trilu %x {upper = true, k = 1 : i64} : (tensor<2x4x5xi64>) -> tensor<2x4x5xi64>
    """

    name = "cpu.trilu"

    upper = prop_def(BoolAttr)
    k = prop_def(_INT)

    def verify_params(self) -> None:
        x = shape_of(self.input)
        if len(x) < 2:
            raise VerifyException(f"the input must have a rank of at least 2, got {list(x)}")


@irdl_op_definition
class RangeOp(CpuOp):
    """start, start + delta, start + 2 delta, ...: as many as the result has (ONNX Range;
    its limit fixed the result's static size).

        %y = cpu.range %start, %delta : (tensor<f32>, tensor<f32>) -> tensor<5xf32>
    """

    name = "cpu.range"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    start = operand_def(TensorType.constr(_T))
    delta = operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))

    assembly_format = "$start `,` $delta " + _FUNCTIONAL

    def verify_params(self) -> None:
        for name, value in (("start", self.start), ("delta", self.delta)):
            if shape_of(value):
                raise VerifyException(f"'{name}' must be a scalar (rank 0), got shape {list(shape_of(value))}")
        if len(shape_of(self.output)) != 1:
            raise VerifyException(f"the result must have rank 1, got shape {list(shape_of(self.output))}")


@irdl_op_definition
class ActivationOp(_MapOp):
    """Elementwise `kind` with ONNX's parameters: `alpha` for every kind, `gamma` for selu
    (there exactly).

        %y = cpu.activation selu %x {alpha = 1.67326319 : f32, gamma = 1.05070102 : f32}
               : (tensor<3x4xf32>) -> tensor<3x4xf32>
    """

    name = "cpu.activation"

    kind = prop_def(ActivationKindAttr)
    alpha = prop_def(_FLOAT)
    gamma = opt_prop_def(_FLOAT)

    assembly_format = "$kind $input " + _FUNCTIONAL

    def verify_params(self) -> None:
        super().verify_params()
        selu = self.kind.data == ActivationKind.SELU
        if selu != (self.gamma is not None):
            raise VerifyException("'gamma' must be given exactly for kind selu")
        if self.kind.data == ActivationKind.CELU and self.alpha.value.data == 0.0:
            raise VerifyException("'alpha' of celu must not be 0: it divides by it")


@irdl_op_definition
class ScatterElementsOp(CpuOp):
    """The data, with each update written (or combined by `reduction`) where its position in
    `updates` points, but along `axis` at indices[position] (negative: from the end); indices
    and updates have one shape (ONNX ScatterElements). Updates apply in row-major order, so of
    two to one place the later wins without a reduction.

        %y = cpu.scatter_elements add %x, %i, %u {axis = 1 : i64}
               : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
    """

    name = "cpu.scatter_elements"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    reduction = prop_def(ScatterReductionAttr)
    data = operand_def(TensorType.constr(_T))
    indices = operand_def(TensorType.constr(AttrSetConstraint(frozenset({i32, i64}))))
    updates = operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))
    axis = prop_def(_INT)

    assembly_format = "$reduction $data `,` $indices `,` $updates " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, idx, axis = shape_of(self.data), shape_of(self.indices), self.axis.value.data
        _check_axis("axis", axis, len(x))
        if len(idx) != len(x) or any(n > d for i, (n, d) in enumerate(zip(idx, x)) if i != axis):
            raise VerifyException(
                f"'indices' must have the rank of 'data' {list(x)} and no larger dim but 'axis' ({axis}), "
                f"got {list(idx)}")
        _check_shape("'updates'", shape_of(self.updates), idx)
        _check_shape("the result", shape_of(self.output), x)


@irdl_op_definition
class ScatterNdOp(CpuOp):
    """The data, with each slice updates[i...] written (or combined by `reduction`) at the
    position indices[i..., :] names in the data's leading dims (negative: from the end); the
    updates have the shape indices.shape[:-1] + data.shape[k:], k = indices.shape[-1] (ONNX
    ScatterND). Updates apply in row-major order.

        %y = cpu.scatter_nd none %x, %i, %u
               : (tensor<4x4x4xf32>, tensor<2x1xi64>, tensor<2x4x4xf32>) -> tensor<4x4x4xf32>
    """

    name = "cpu.scatter_nd"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    reduction = prop_def(ScatterReductionAttr)
    data = operand_def(TensorType.constr(_T))
    indices = operand_def(TensorType.constr(i64))
    updates = operand_def(TensorType.constr(_T))
    output = result_def(TensorType.constr(_T))

    assembly_format = "$reduction $data `,` $indices `,` $updates " + _FUNCTIONAL

    def verify_params(self) -> None:
        x, idx = shape_of(self.data), shape_of(self.indices)
        if not idx or not 1 <= idx[-1] <= len(x):
            raise VerifyException(
                f"'indices' must have a last dim in [1, {len(x)}] (the rank of 'data'), got shape {list(idx)}")
        _check_shape("'updates'", shape_of(self.updates), [*idx[:-1], *x[idx[-1]:]])
        _check_shape("the result", shape_of(self.output), x)


# Recurrent layers


@irdl_op_definition
class RecurrentOp(CpuOp):
    """One ONNX LSTM, GRU or RNN layer (`kind`), every parameter resolved: `activations`
    lists each direction's functions in full (defaults filled in) with one `alphas` and
    `betas` value each; `clip` (when set) bounds every activation's input; `input_forget`
    (LSTM) and `linear_before_reset` (GRU) as ONNX's; `quantized_hidden` (LSTM) rounds each
    sample's hidden state to the uint8 grid of its own range (DynamicQuantizeLinear's) before
    each step's product, as onnxruntime's DynamicQuantizeLSTM quantizes it. Optional inputs follow
    keywords, and each result the model reads (Y, Y_h, Y_c) is named by its keyword.

        %y, %yh = cpu.recurrent lstm %x, %w, %r bias %b {direction = #cpu<recurrent_direction forward>,
               layout = 0 : i64, activations = [...], alphas = array<f32: ...>, betas = array<f32: ...>}
               : (tensor<5x2x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>) bias tensor<1x32xf32>
               -> Y tensor<5x1x2x4xf32> Y_h tensor<1x2x4xf32>
    """

    name = "cpu.recurrent"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    kind = prop_def(RecurrentKindAttr)
    X = operand_def(TensorType.constr(_T))
    W = operand_def(TensorType.constr(_T))
    R = operand_def(TensorType.constr(_T))
    B = opt_operand_def(TensorType.constr(_T))
    sequence_lens = opt_operand_def(TensorType.constr(i32))
    initial_h = opt_operand_def(TensorType.constr(_T))
    initial_c = opt_operand_def(TensorType.constr(_T))
    P = opt_operand_def(TensorType.constr(_T))
    Y = opt_result_def(TensorType.constr(_T))
    Y_h = opt_result_def(TensorType.constr(_T))
    Y_c = opt_result_def(TensorType.constr(_T))
    direction = prop_def(RecurrentDirectionAttr)
    layout = prop_def(_INT)
    activations = prop_def(ArrayAttr[RecurrentActivationAttr])
    alphas = prop_def(_FLOATS)
    betas = prop_def(_FLOATS)
    clip = opt_prop_def(_FLOAT)
    input_forget = opt_prop_def(UnitAttr)
    linear_before_reset = opt_prop_def(UnitAttr)
    quantized_hidden = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True),
                    AttrSizedResultSegments(as_property=True))
    assembly_format = (
        "$kind $X `,` $W `,` $R (`bias` $B^)? (`sequence_lens` $sequence_lens^)? (`initial_h` $initial_h^)? "
        "(`initial_c` $initial_c^)? (`peepholes` $P^)? attr-dict "
        "`:` `(` type($X) `,` type($W) `,` type($R) `)` (`bias` type($B)^)? "
        "(`sequence_lens` type($sequence_lens)^)? (`initial_h` type($initial_h)^)? "
        "(`initial_c` type($initial_c)^)? (`peepholes` type($P)^)? "
        "`->` (`Y` type($Y)^)? (`Y_h` type($Y_h)^)? (`Y_c` type($Y_c)^)?"
    )

    def directions(self) -> int:
        return 2 if self.direction.data == RecurrentDirection.BIDIRECTIONAL else 1

    def sizes(self) -> tuple[int, int, int, int]:
        """(seq_length, batch, input size, hidden size)."""
        x = shape_of(self.X)
        seq, batch = (x[1], x[0]) if self.layout.value.data else (x[0], x[1])
        return seq, batch, x[2], shape_of(self.R)[-1]

    def verify_params(self) -> None:
        kind = self.kind.data
        if self.layout.value.data not in (0, 1):
            raise VerifyException(f"'layout' must be 0 or 1, got {self.layout.value.data}")
        if len(shape_of(self.X)) != 3:
            raise VerifyException(f"'X' must have rank 3, got shape {list(shape_of(self.X))}")
        seq, batch, size, hidden = self.sizes()
        dirs, gates = self.directions(), kind.gates * hidden
        _check_shape(f"'R' (hidden size {hidden}: its last dim)", shape_of(self.R), [dirs, gates, hidden])
        _check_shape("'W'", shape_of(self.W), [dirs, gates, size])
        if self.B is not None:
            _check_shape("'B'", shape_of(self.B), [dirs, 2 * gates])
        if self.sequence_lens is not None:
            _check_shape("'sequence_lens'", shape_of(self.sequence_lens), [batch])
        if kind != RecurrentKind.LSTM and (self.initial_c, self.P, self.Y_c, self.input_forget,
                                           self.quantized_hidden) != (None,) * 5:
            raise VerifyException("'initial_c', 'P', 'Y_c', 'input_forget' and 'quantized_hidden' are for kind "
                                  "lstm only")
        if kind != RecurrentKind.GRU and self.linear_before_reset is not None:
            raise VerifyException("'linear_before_reset' is for kind gru only")
        state = [batch, dirs, hidden] if self.layout.value.data else [dirs, batch, hidden]
        for name, value in (("initial_h", self.initial_h), ("initial_c", self.initial_c), ("Y_h", self.Y_h),
                            ("Y_c", self.Y_c)):
            if value is not None:
                _check_shape(f"'{name}'", shape_of(value), state)
        if self.P is not None:
            _check_shape("'P'", shape_of(self.P), [dirs, 3 * hidden])
        if self.Y is not None:
            y = [batch, seq, dirs, hidden] if self.layout.value.data else [seq, dirs, batch, hidden]
            _check_shape("'Y'", shape_of(self.Y), y)
        count = kind.activations * dirs
        for name, values in (("activations", [a.data.value for a in self.activations.data]),
                             ("alphas", _values(self.alphas)),
                             ("betas", _values(self.betas))):
            _check_count(name, values, count, f"{kind.activations} per direction")
        if self.clip is not None and not self.clip.value.data > 0:
            raise VerifyException(f"'clip' must be positive, got {self.clip.value.data}")

# Linear quantization


class _LinearQuantizationOp(CpuOp):
    """What QuantizeLinear and DequantizeLinear share: a scale (and optional zero point) per
    tensor (one element), per slice along `axis` (1-D, the axis's length) or per block of
    `block_size` elements along `axis` (the input's rank, that dim ceil(length / block_size)).
    """

    scale = operand_def(TensorType.constr(f32))
    zero_point = opt_operand_def(AnyTensorTypeConstr)
    axis = prop_def(_INT)
    block_size = prop_def(_INT)

    def quantized(self) -> SSAValue:
        """The integer side: the result of a quantize, the input of a dequantize."""
        raise NotImplementedError

    def float_side(self) -> SSAValue:
        raise NotImplementedError

    def verify_params(self) -> None:
        shape = shape_of(self.float_side())
        _check_shape("the result", shape_of(self.results[0]), shape)
        scale, axis, block = shape_of(self.scale), self.axis.value.data, self.block_size.value.data
        if shape:
            _check_axis("axis", axis, len(shape))
        if block < 0:
            raise VerifyException(f"'block_size' must not be negative, got {block}")
        if block:
            blocks = [-(-d // block) if i == axis else d for i, d in enumerate(shape)]
            _check_shape("'scale' of a blocked quantization", scale, blocks)
        elif math.prod(scale) != 1:
            _check_shape("'scale' of a per-axis quantization", scale, [shape[axis]] if shape else [1])
        if self.zero_point is not None:
            _check_shape("'zero_point'", shape_of(self.zero_point), scale)
            if self.zero_point.type.element_type != self.quantized().type.element_type:  # type: ignore
                raise VerifyException("'zero_point' must have the quantized tensor's element type")


@irdl_op_definition
class QuantizeOp(_LinearQuantizationOp):
    """y = saturate(round(x / scale) + zero_point), rounding halves to even (ONNX
    QuantizeLinear); the result's element type is the quantized type.

        %y = cpu.quantize %x, %s, %z {axis = 1 : i64, block_size = 0 : i64}
               : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
    """

    name = "cpu.quantize"

    input = operand_def(TensorType.constr(f32))
    output = result_def(AnyTensorTypeConstr)

    assembly_format = "$input `,` $scale (`,` $zero_point^)? " + _FUNCTIONAL

    def quantized(self) -> SSAValue:
        return self.output

    def float_side(self) -> SSAValue:
        return self.input


@irdl_op_definition
class DequantizeOp(_LinearQuantizationOp):
    """y = (x - zero_point) * scale (ONNX DequantizeLinear), in float32.

        %y = cpu.dequantize %x, %s {axis = 0 : i64, block_size = 0 : i64}
               : (tensor<8x3x3x3xi8>, tensor<8xf32>) -> tensor<8x3x3x3xf32>
    """

    name = "cpu.dequantize"

    input = operand_def(AnyTensorTypeConstr)
    output = result_def(TensorType.constr(f32))

    assembly_format = "$input `,` $scale (`,` $zero_point^)? " + _FUNCTIONAL

    def quantized(self) -> SSAValue:
        return self.input

    def float_side(self) -> SSAValue:
        return self.output


UI8 = IntegerType(8, Signedness.UNSIGNED)
INTEGER_PRODUCT_TYPES = (IntegerType(8), UI8)
"""The element types of a `cpu.matmul_integer`'s operands."""


@irdl_op_definition
class DynamicQuantizeOp(CpuOp):
    """ONNX DynamicQuantizeLinear: a uint8 quantization of x whose range covers x and 0.
    With lo = min(min(x), 0) and hi = max(max(x), 0): scale = (hi - lo) / 255, the zero point
    round(-lo / scale) and y = saturate(round(x / scale) + zero point), rounding halves to even
    and saturating to [0, 255]; all zeros (hi = lo) quantize to 0 with scale 0.

        %y, %s, %z = cpu.dynamic_quantize %x : (tensor<4x8xf32>) -> (tensor<4x8xui8>, tensor<f32>, tensor<ui8>)
    """

    name = "cpu.dynamic_quantize"

    input = operand_def(TensorType.constr(f32))
    output = result_def(TensorType.constr(UI8))
    scale = result_def(TensorType.constr(f32))
    zero_point = result_def(TensorType.constr(UI8))

    assembly_format = "$input " + _FUNCTIONAL

    def verify_params(self) -> None:
        _check_shape("the result", shape_of(self.output), shape_of(self.input))
        for name, value in (("the scale", self.scale), ("the zero point", self.zero_point)):
            _check_shape(name, shape_of(value), [])


@irdl_op_definition
class MatmulIntegerOp(CpuOp):
    """ONNX MatMulInteger: (A - a_zero_point) times (B - b_zero_point) with numpy's `matmul`
    semantics, summed in int32. A and B are int8 or uint8 each; a zero point is one value, or
    one per row of A (a_zero_point, A's second-last dim) or per column of B (b_zero_point, B's
    last dim), of its operand's type.

        %y = cpu.matmul_integer %a, %b a_zero_point %za b_zero_point %zb : (tensor<4x8xui8>, tensor<8x16xi8>)
               a_zero_point tensor<ui8> b_zero_point tensor<16xi8> -> tensor<4x16xi32>
    """

    name = "cpu.matmul_integer"

    A = operand_def(TensorType)
    B = operand_def(TensorType)
    a_zero_point = opt_operand_def(TensorType)
    b_zero_point = opt_operand_def(TensorType)
    Y = result_def(TensorType.constr(i32))

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = ("$A `,` $B (`a_zero_point` $a_zero_point^)? (`b_zero_point` $b_zero_point^)? attr-dict `:` "
                       "`(` type($A) `,` type($B) `)` (`a_zero_point` type($a_zero_point)^)? "
                       "(`b_zero_point` type($b_zero_point)^)? `->` type($Y)")

    def verify_params(self) -> None:
        a, b = shape_of(self.A), shape_of(self.B)
        for name, value in (("'A'", self.A), ("'B'", self.B)):
            if element_type_of(value) not in INTEGER_PRODUCT_TYPES:
                raise VerifyException(f"{name} must be int8 or uint8, got {element_type_of(value)}")
        expected = matmul_shape(a, b)
        if expected is None:
            raise VerifyException(f"'A' {list(a)} and 'B' {list(b)} do not fit numpy's matmul")
        _check_shape("the result", shape_of(self.Y), expected)
        for name, point, operand, per in (("'a_zero_point'", self.a_zero_point, self.A, a[-2] if len(a) > 1 else 1),
                                          ("'b_zero_point'", self.b_zero_point, self.B, b[-1] if len(b) > 1 else 1)):
            if point is None:
                continue
            if element_type_of(point) != element_type_of(operand):
                raise VerifyException(f"{name} must have its operand's element type")
            if math.prod(shape_of(point)) not in (1, per) or len(shape_of(point)) > 1:
                raise VerifyException(f"{name} must be one value or {per} (a vector), got {list(shape_of(point))}")


def _check_integer_conv_2d(op: "ConvIntegerOp | QLinearConvOp", x: tuple[str, Sequence[int]],
                           w: tuple[str, Sequence[int]], y: Sequence[int]) -> None:
    """A 2-D integer conv's input `x` and weights `w` (each its name and shape) fit in the op's
    groups, and `y` is the shape its strides, dilations and pads give."""
    (x_name, x), (w_name, w) = x, w
    if len(x) != 4 or len(w) != 4:
        raise VerifyException(f"{x_name} and {w_name} must have rank 4, got {len(x)} and {len(w)}")
    group = op.group.value.data
    if group < 1 or x[1] != w[1] * group or w[0] % group:
        raise VerifyException(f"{w_name} {list(w)} does not fit {x_name} {list(x)} in {group} groups")
    strides, dilations, pads = (list(a.get_values()) for a in (op.strides, op.dilations, op.pads))
    sizes = [(x[2 + i] + pads[i] + pads[2 + i] - dilations[i] * (w[2 + i] - 1) - 1) // strides[i] + 1
             for i in range(2)]
    _check_shape("the result", y, [x[0], w[0], *sizes])


@irdl_op_definition
class ConvIntegerOp(CpuOp):
    """ONNX ConvInteger in 2-D: (X - x_zero_point) convolved with (W - w_zero_point), summed in
    int32, plus an int32 `bias` per output channel (QLinearConv's). X and W are int8 or
    uint8 each; x_zero_point is one value, w_zero_point one or one per output channel. Pads
    begin-then-end, as cpu.conv's.

        %y = cpu.conv_integer %x, %w x_zero_point %zx {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
               pads = array<i64: 1, 1, 1, 1>, group = 1 : i64}
               : (tensor<1x3x8x8xui8>, tensor<4x3x3x3xi8>) x_zero_point tensor<ui8> -> tensor<1x4x8x8xi32>
    """

    name = "cpu.conv_integer"

    X = operand_def(TensorType)
    W = operand_def(TensorType)
    x_zero_point = opt_operand_def(TensorType)
    w_zero_point = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType.constr(i32))
    Y = result_def(TensorType.constr(i32))
    strides = prop_def(_INTS)
    dilations = prop_def(_INTS)
    pads = prop_def(_INTS)
    group = prop_def(_INT)

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = ("$X `,` $W (`x_zero_point` $x_zero_point^)? (`w_zero_point` $w_zero_point^)? "
                       "(`bias` $bias^)? attr-dict `:` `(` type($X) `,` type($W) `)` "
                       "(`x_zero_point` type($x_zero_point)^)? (`w_zero_point` type($w_zero_point)^)? "
                       "(`bias` type($bias)^)? `->` type($Y)")

    def verify_params(self) -> None:
        x, w, y = shape_of(self.X), shape_of(self.W), shape_of(self.Y)
        for name, value in (("'X'", self.X), ("'W'", self.W)):
            if element_type_of(value) not in INTEGER_PRODUCT_TYPES:
                raise VerifyException(f"{name} must be int8 or uint8, got {element_type_of(value)}")
        _check_integer_conv_2d(self, ("'X'", x), ("'W'", w), y)
        if self.x_zero_point is not None and math.prod(shape_of(self.x_zero_point)) != 1:
            raise VerifyException(f"'x_zero_point' must be one value, got {list(shape_of(self.x_zero_point))}")
        if self.w_zero_point is not None and math.prod(shape_of(self.w_zero_point)) not in (1, w[0]):
            raise VerifyException(
                f"'w_zero_point' must be one value or {w[0]}, got {list(shape_of(self.w_zero_point))}")
        if self.bias is not None:
            _check_shape("'bias'", shape_of(self.bias), [w[0]])


@irdl_op_definition
class RequantizeOp(CpuOp):
    """int32 sums of a product of quantized tensors (a `cpu.matmul_integer`'s, a
    `cpu.conv_integer`'s viewed as [N, C, H * W]) to the output's quantization, as ONNX
    QLinearMatMul and QLinearConv define it: with the multiplier
    row_scale * column_scale / y_scale in float32 (each scale one value, or one per row or per
    column of the last two dims), y = saturate(rint(sum * multiplier) + y_zero_point), the
    product in double, rounding halves to even.

        %y = cpu.requantize %sums, %sa, %sb, %sy, %zy
               : (tensor<4x16xi32>, tensor<f32>, tensor<16xf32>, tensor<f32>, tensor<ui8>) -> tensor<4x16xui8>
    """

    name = "cpu.requantize"

    input = operand_def(TensorType.constr(i32))
    row_scale = operand_def(TensorType.constr(f32))
    column_scale = operand_def(TensorType.constr(f32))
    y_scale = operand_def(TensorType.constr(f32))
    y_zero_point = operand_def(TensorType)
    output = result_def(TensorType)

    assembly_format = "$input `,` $row_scale `,` $column_scale `,` $y_scale `,` $y_zero_point " + _FUNCTIONAL

    def verify_params(self) -> None:
        shape = shape_of(self.input)
        _check_shape("the result", shape_of(self.output), shape)
        if element_type_of(self.output) not in INTEGER_PRODUCT_TYPES:
            raise VerifyException(f"the result must be int8 or uint8, got {element_type_of(self.output)}")
        if element_type_of(self.y_zero_point) != element_type_of(self.output):
            raise VerifyException("'y_zero_point' must have the result's element type")
        rows, columns = (shape[-2] if len(shape) > 1 else 1), (shape[-1] if shape else 1)
        for name, value, per in (("'row_scale'", self.row_scale, rows), ("'column_scale'", self.column_scale, columns),
                                 ("'y_scale'", self.y_scale, 1), ("'y_zero_point'", self.y_zero_point, 1)):
            if math.prod(shape_of(value)) not in (1, per):
                raise VerifyException(f"{name} must be one value or {per}, got {list(shape_of(value))}")


@irdl_op_definition
class RescaleOp(CpuOp):
    """An int8 or uint8 tensor moved to another quantization, as ONNX
    QuantizeLinear(DequantizeLinear(x, x_scale, x_zero_point), y_scale, y_zero_point) computes
    it (x less its zero point times x_scale in float32, divided by y_scale in float32, rounded
    halves to even, plus y_zero_point, saturated), each scale and zero point one value: a QDQ
    model's DequantizeLinear -> QuantizeLinear between two int8 ops, one table lookup per
    element.

        %y = cpu.rescale %x, %sx, %zx, %sy, %zy
               : (tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xui8>
    """

    name = "cpu.rescale"

    input = operand_def(TensorType)
    x_scale = operand_def(TensorType.constr(f32))
    x_zero_point = operand_def(TensorType)
    y_scale = operand_def(TensorType.constr(f32))
    y_zero_point = operand_def(TensorType)
    output = result_def(TensorType)

    assembly_format = "$input `,` $x_scale `,` $x_zero_point `,` $y_scale `,` $y_zero_point " + _FUNCTIONAL

    def verify_params(self) -> None:
        _check_shape("the result", shape_of(self.output), shape_of(self.input))
        for side, value, zero_point, scale in (("input", self.input, self.x_zero_point, self.x_scale),
                                                ("result", self.output, self.y_zero_point, self.y_scale)):
            if element_type_of(value) not in INTEGER_PRODUCT_TYPES:
                raise VerifyException(f"the {side} must be int8 or uint8, got {element_type_of(value)}")
            if element_type_of(zero_point) != element_type_of(value):
                raise VerifyException(f"the {side}'s zero point must have its element type")
            if math.prod(shape_of(scale)) != 1 or math.prod(shape_of(zero_point)) != 1:
                raise VerifyException(f"the {side}'s scale and zero point must be one value each")


@irdl_op_definition
class QLinearSoftmaxOp(CpuOp):
    """Softmax of an int8 or uint8 tensor along `axis` into the same type, as onnxruntime's
    QLinearSoftmax computes it (a QDQ model's DequantizeLinear -> Softmax -> QuantizeLinear,
    which its QDQ fusion runs so): each value's term exp((x - max) * x_scale) scaled by
    exp(shift * x_scale), from a table of 256 float32 values made in double (shift = max(0,
    ln(FLT_MAX / D) - 5) / x_scale for D values along the axis, so that their sum stays
    finite), summed along the axis in float32; the result round(term * floor(1 / y_scale) /
    sum) + y_zero_point, in float32, halves to even, clamped to the type's top (it is never
    below the zero point). The input's zero point cancels.

        %y = cpu.qlinear_softmax %x, %sx, %sy, %zy {axis = 3 : i64}
               : (tensor<2x4x16x16xui8>, tensor<f32>, tensor<f32>, tensor<ui8>) -> tensor<2x4x16x16xui8>
    """

    name = "cpu.qlinear_softmax"

    input = operand_def(TensorType)
    x_scale = operand_def(TensorType.constr(f32))
    y_scale = operand_def(TensorType.constr(f32))
    y_zero_point = operand_def(TensorType)
    output = result_def(TensorType)

    axis = prop_def(_INT)

    assembly_format = "$input `,` $x_scale `,` $y_scale `,` $y_zero_point " + _FUNCTIONAL

    def verify_params(self) -> None:
        _check_shape("the result", shape_of(self.output), shape_of(self.input))
        _check_axis("axis", self.axis.value.data, len(shape_of(self.input)))
        if element_type_of(self.input) not in INTEGER_PRODUCT_TYPES:
            raise VerifyException(f"the input must be int8 or uint8, got {element_type_of(self.input)}")
        for value, what in ((self.output, "result"), (self.y_zero_point, "result's zero point")):
            if element_type_of(value) != element_type_of(self.input):
                raise VerifyException(f"the {what} must have the input's element type")
        if math.prod(shape_of(self.x_scale)) != 1 or math.prod(shape_of(self.y_scale)) != 1 or \
                math.prod(shape_of(self.y_zero_point)) != 1:
            raise VerifyException("the scales and the zero point must be one value each")


@irdl_op_definition
class QLinearAddOp(CpuOp):
    """onnxruntime's QLinearAdd of two int8 or uint8 tensors of one shape and type, each
    scale and zero point one value, as its AVX2 kernel (MLAS) computes it: with the ratios
    ra = a_scale / y_scale and rb = b_scale / y_scale and the constant
    c = y_zero_point - fma(ra, a_zero_point, rb * b_zero_point), all in float32,
    y = saturate(rint(fma(a, ra, fma(b, rb, c)))), rounding halves to even. A QDQ model's
    DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear on the host, which
    onnxruntime fuses into this op.

        %y = cpu.qlinear_add %a, %sa, %za, %b, %sb, %zb, %sy, %zy
               : (tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<1x8x4x4xui8>, tensor<f32>, tensor<ui8>,
                  tensor<f32>, tensor<ui8>) -> tensor<1x8x4x4xui8>
    """

    name = "cpu.qlinear_add"

    a = operand_def(TensorType)
    a_scale = operand_def(TensorType.constr(f32))
    a_zero_point = operand_def(TensorType)
    b = operand_def(TensorType)
    b_scale = operand_def(TensorType.constr(f32))
    b_zero_point = operand_def(TensorType)
    y_scale = operand_def(TensorType.constr(f32))
    y_zero_point = operand_def(TensorType)
    output = result_def(TensorType)

    assembly_format = ("$a `,` $a_scale `,` $a_zero_point `,` $b `,` $b_scale `,` $b_zero_point `,` $y_scale `,` "
                       "$y_zero_point " + _FUNCTIONAL)

    def verify_params(self) -> None:
        element = element_type_of(self.output)
        if element not in INTEGER_PRODUCT_TYPES:
            raise VerifyException(f"the result must be int8 or uint8, got {element}")
        for side, value, scale, zero_point in (("'a'", self.a, self.a_scale, self.a_zero_point),
                                                ("'b'", self.b, self.b_scale, self.b_zero_point),
                                                ("the result", self.output, self.y_scale, self.y_zero_point)):
            _check_shape(side, shape_of(value), shape_of(self.output))
            if element_type_of(value) != element or element_type_of(zero_point) != element:
                raise VerifyException(f"{side} and its zero point must have the result's element type {element}")
            if math.prod(shape_of(scale)) != 1 or math.prod(shape_of(zero_point)) != 1:
                raise VerifyException(f"{side}'s scale and zero point must be one value each")


@irdl_op_definition
class QLinearConvOp(CpuOp):
    """ONNX QLinearConv in 2-D, NCHW, in one int8 kernel: (x - x_zero_point) convolved with
    (w - w_zero_point), summed in int32 with the int32 bias B, requantized with the
    multiplier x_scale * w_scale / y_scale in float32 (the sum converted to float32, rounded
    halves to even, plus y_zero_point, saturated), as onnxruntime computes it. x and y are int8
    or uint8 each, w too; w_scale and w_zero_point are one value or one per output channel.
    `min` and `max` narrow the output range (a fused Relu or Clip, on the quantized grid).

        %y = cpu.qlinear_conv %x, %sx, %zx, %w, %sw, %zw, %sy, %zy bias %b {strides = array<i64: 1, 1>,
               dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, group = 1 : i64}
               : (tensor<1x8x8x8xui8>, tensor<f32>, tensor<ui8>, tensor<16x8x3x3xi8>, tensor<16xf32>,
                  tensor<16xi8>, tensor<f32>, tensor<ui8>) bias tensor<16xi32> -> tensor<1x16x8x8xui8>

    With `packed_weights` (`plan-host-memory`), w is int8 in the kernel's layout
    (`host_kernels.pack_qconv_weights`: panels of output channels for the GEMM, (M, kh * kw)
    for a depthwise conv, uint8 weights moved to int8 by -128) and `w_shift` is 128 for
    weights that were uint8.
    """

    name = "cpu.qlinear_conv"

    x = operand_def(TensorType)
    x_scale = operand_def(TensorType.constr(f32))
    x_zero_point = operand_def(TensorType)
    w = operand_def(TensorType)
    w_scale = operand_def(TensorType.constr(f32))
    w_zero_point = operand_def(TensorType)
    y_scale = operand_def(TensorType.constr(f32))
    y_zero_point = operand_def(TensorType)
    B = opt_operand_def(TensorType.constr(i32))
    y = result_def(TensorType)
    strides = prop_def(_INTS)
    dilations = prop_def(_INTS)
    pads = prop_def(_INTS)
    group = prop_def(_INT)
    min = opt_prop_def(_INT)
    max = opt_prop_def(_INT)
    packed_weights = opt_prop_def(UnitAttr)
    w_shift = opt_prop_def(_INT)
    """128 when packed weights were uint8, else absent."""
    weights_shape_ = opt_prop_def(_INTS, prop_name="weights_shape")
    """The weights' shape in ONNX's layout (M, C/group, kh, kw), once packed."""

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = ("$x `,` $x_scale `,` $x_zero_point `,` $w `,` $w_scale `,` $w_zero_point `,` $y_scale `,` "
                       "$y_zero_point (`bias` $B^)? attr-dict `:` `(` type($x) `,` type($x_scale) `,` "
                       "type($x_zero_point) `,` type($w) `,` type($w_scale) `,` type($w_zero_point) `,` "
                       "type($y_scale) `,` type($y_zero_point) `)` (`bias` type($B)^)? `->` type($y)")

    def weights_shape(self) -> tuple[int, ...]:
        """W's shape in ONNX's layout, however W holds it."""
        if self.weights_shape_ is not None:
            return tuple(self.weights_shape_.get_values())
        return shape_of(self.w)

    def is_depthwise(self) -> bool:
        """One input and one output channel per group: the depthwise kernel."""
        m, cg = self.weights_shape()[:2]
        return cg == 1 and self.group.value.data == m == shape_of(self.x)[1]

    def verify_params(self) -> None:
        x, w, y = shape_of(self.x), self.weights_shape(), shape_of(self.y)
        for name, value in (("'x'", self.x), ("'y'", self.y)):
            if element_type_of(value) not in INTEGER_PRODUCT_TYPES:
                raise VerifyException(f"{name} must be int8 or uint8, got {element_type_of(value)}")
        if self.packed_weights is None:
            if element_type_of(self.w) not in INTEGER_PRODUCT_TYPES:
                raise VerifyException(f"'w' must be int8 or uint8, got {element_type_of(self.w)}")
        elif element_type_of(self.w) != IntegerType(8) or self.weights_shape_ is None:
            raise VerifyException("packed 'w' must be int8 and the op must have 'weights_shape'")
        for name, zero_point, value in (("'x_zero_point'", self.x_zero_point, self.x),
                                        ("'y_zero_point'", self.y_zero_point, self.y)):
            if element_type_of(zero_point) != element_type_of(value) or math.prod(shape_of(zero_point)) != 1:
                raise VerifyException(f"{name} must be one value of its tensor's element type")
        _check_integer_conv_2d(self, ("'x'", x), ("'w'", w), y)
        for name, value in (("'w_scale'", self.w_scale), ("'w_zero_point'", self.w_zero_point)):
            if math.prod(shape_of(value)) not in (1, w[0]):
                raise VerifyException(f"{name} must be one value or {w[0]}, got {list(shape_of(value))}")
        for name, value in (("'x_scale'", self.x_scale), ("'y_scale'", self.y_scale)):
            if math.prod(shape_of(value)) != 1:
                raise VerifyException(f"{name} must be one value, got {list(shape_of(value))}")
        if self.B is not None:
            _check_shape("'B'", shape_of(self.B), [w[0]])


CPU = Dialect(
    "cpu",
    [
        CallMlipOp,
        ConvOp,
        ConvTransposeOp,
        GemmOp,
        MatmulOp,
        BinaryOp,
        UnaryOp,
        ClipOp,
        LeakyReluOp,
        HardSigmoidOp,
        HardSwishOp,
        ElementwiseOp,
        YieldOp,
        SigmoidOp,
        DropoutOp,
        WhereOp,
        CastOp,
        SoftmaxOp,
        LayerNormOp,
        BatchNormOp,
        PoolOp,
        GlobalPoolOp,
        ReduceOp,
        ConcatOp,
        ReshapeOp,
        TransposeOp,
        SliceOp,
        SplitOp,
        GatherOp,
        PadOp,
        ResizeOp,
        DepthToSpaceOp,
        ExpandOp,
        ArgReduceOp,
        HardmaxOp,
        CumulativeOp,
        TopKOp,
        RmsNormOp,
        GatherElementsOp,
        TriluOp,
        RangeOp,
        ActivationOp,
        ScatterElementsOp,
        ScatterNdOp,
        RecurrentOp,
        QuantizeOp,
        DequantizeOp,
        DynamicQuantizeOp,
        MatmulIntegerOp,
        ConvIntegerOp,
        RequantizeOp,
        RescaleOp,
        QLinearSoftmaxOp,
        QLinearAddOp,
        QLinearConvOp,
    ],
    [
        BinaryKindAttr,
        UnaryKindAttr,
        PoolKindAttr,
        ReduceKindAttr,
        PadModeAttr,
        ResizeModeAttr,
        CoordinateTransformationModeAttr,
        NearestModeAttr,
        DepthToSpaceModeAttr,
        ArgReduceKindAttr,
        CumulativeKindAttr,
        ActivationKindAttr,
        EpilogueKindAttr,
        ConvKernelAttr,
        ResizeKernelAttr,
        ScatterReductionAttr,
        RecurrentKindAttr,
        RecurrentDirectionAttr,
        RecurrentActivationAttr,
        ScratchAttr,
        WorkspaceAttr,
    ],
)
