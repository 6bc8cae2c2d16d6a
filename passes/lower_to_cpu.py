"""`graph` ops that run on the host -> `cpu` ops, one C kernel call each.

Every `graph` op outside an accelerator subgraph (`mrvl.subgraph`) becomes the `cpu` op of
its family, with each parameter resolved: defaults filled in, negative axes made
non-negative, `auto_pad` turned into pads, and constant operands that are parameters
(Slice starts/ends/axes/steps, Pad pads/value, Resize scales/sizes/roi, Clip min/max,
ReduceX axes, Dropout ratio/training_mode) read from their `graph.constant` into
properties. Operands that only restate the static result type (Reshape's shape,
Squeeze/Unsqueeze axes, Expand's shape, Split's split) are dropped unread. `graph.constant`
stays; Identity and inference-mode Dropout become their input. `fuse-cpu-epilogues` then
folds the ops after a conv into it.

Errors name the ONNX node, as `node 'topk1' (TopK): no host kernel for TopK`.
"""

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BoolAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    f32,
    i1,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

import mrvl_dialect.cpu as cpu
import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect.cpu import (
    BinaryKind,
    PoolKind,
    ReduceKind,
    UnaryKind,
    broadcast_shapes,
    element_type_of,
    shape_of,
)
from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp, CustomOp
from mrvl_dialect.locations import with_op_type
from mrvl_dialect.mrvl import QUANTIZED_HIDDEN_ATTR
from mrvl_dialect.shared_attributes import i64_array, i64_attr
from mrvl_dialect.graph_queries import constant_op, constant_value, node_name, op_type

SUBGRAPH_OP = "mrvl.subgraph"
"""Ops inside an op of this name run on the accelerator and are left alone."""


def host_regions(module: ModuleOp) -> Iterator[Region]:
    """The regions of `module`'s top-level ops other than accelerator subgraphs: where the host
    ops a host pass rewrites live."""
    for top in list(module.body.block.ops):
        if top.name != SUBGRAPH_OP:
            yield from top.regions


KEPT_GRAPH_OPS = frozenset({"graph.constant", "graph.yield"})
"""`graph` ops the host keeps: constants (the C emitter's data) and region terminators."""


# Where an op is, what it is called, and the errors about it


def on_host(op: Operation) -> bool:
    """Whether `op` is outside every accelerator subgraph."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name == SUBGRAPH_OP:
            return False
        parent = parent.parent_op()
    return True


def node_error(op: Operation, message: str) -> CompileError:
    """A CompileError located at `op`'s ONNX node: `node 'conv1' (Conv): <message>`."""
    return CompileError(f"node '{node_name(op)}' ({op_type(op)})", message)


def no_host_kernel(op: Operation, what: str = "") -> CompileError:
    """The error for an op (or a variant of it, `what`) that no host kernel implements."""
    domain = f" of domain '{op.domain.data}'" if isinstance(op, CustomOp) and op.domain else ""
    return node_error(op, f"no host kernel for {op_type(op)}{domain}{what}")


# Constant operands


def constant_operand(op: Operation, value: SSAValue | None, what: str) -> np.ndarray | None:
    """The value of `op`'s operand `value` (ONNX input `what`), None when it is absent.

    It must be a `graph.constant`: inline `dense<>`, or `dense_resource<>` in the module's
    weight store.
    """
    if value is None:
        return None
    producer = constant_op(value)
    if producer is None:
        owner = value.owner
        source = f"the output of node '{node_name(owner)}'" if isinstance(owner, Operation) else "a graph input"
        raise node_error(op, f"input '{what}' must be a constant, got {source}")
    array = constant_value(value)
    if array is None:
        handle = producer.value.resource_handle.data
        raise node_error(op, f"input '{what}' is the weight '{handle}', and the IR carries no data for it")
    return np.asarray(array)


def constant_ints(op: Operation, value: SSAValue | None, what: str) -> list[int] | None:
    array = constant_operand(op, value, what)
    return None if array is None else [int(v) for v in array.reshape(-1)]


def constant_scalar(op: Operation, value: SSAValue | None, what: str) -> float | None:
    array = constant_operand(op, value, what)
    if array is None or array.size == 0:
        return None
    if array.size != 1:
        raise node_error(op, f"input '{what}' must be a scalar, got shape {list(array.shape)}")
    return float(array.reshape(-1)[0])


# Property values


def ints(values: Sequence[int]) -> DenseArrayBase:
    return i64_array(values)


def int_attr(value: int) -> IntegerAttr:
    return i64_attr(value)


def float_attr(value: float) -> FloatAttr:
    return FloatAttr(float(np.float32(value)), f32)


def bool_attr(value: int | bool) -> BoolAttr:
    return BoolAttr.from_bool(bool(value))


def optional_ints(attr: DenseArrayBase | None, default: Sequence[int]) -> list[int]:
    return list(default) if attr is None else [int(v) for v in attr.get_values()]


def enum_property(op: Operation, attr: type[EnumAttribute], name: str) -> EnumAttribute:
    """`op`'s ONNX string attribute `name` as a cpu enum `attr`; no host kernel for other values."""
    value = op.properties[name].data  # type: ignore[union-attr]
    try:
        return attr(attr.enum_type(value))
    except ValueError:
        raise no_host_kernel(op, f" with {name} '{value}'") from None


def normalized_axis(op: Operation, axis: int, rank: int, what: str = "axis") -> int:
    """`axis` (negative: from the end) as a dim index of a rank-`rank` tensor."""
    if not -rank <= axis < rank:
        raise node_error(op, f"'{what}' {axis} is out of range for a rank-{rank} input")
    return axis % rank


def intermediate(op: Operation, new: Operation, role: str) -> SSAValue:
    """The result of `new`, a helper op of `op`'s lowering, named after `op`'s result and `role`."""
    if hint := op.results[0].name_hint:
        new.results[0].name_hint = f"{hint}_{role}"
    return new.results[0]


def create(
    cls: type[cpu.CpuOp], operands: Sequence[SSAValue], results: Sequence[Attribute], **properties: Attribute
) -> Operation:
    return cls.create(operands=list(operands), result_types=list(results), properties=properties)


# Windows of convolutions and pools


def split_padding(totals: Sequence[int], upper: bool) -> list[int]:
    """Begin-then-end pads sharing each total; the odd one goes at the end when `upper`."""
    small = [t // 2 for t in totals]
    large = [t - t // 2 for t in totals]
    return small + large if upper else large + small


def window_params(
    op: g.ConvOp | g.ConvIntegerOp | g.QLinearConvOp | g.MaxPoolOp | g.AveragePoolOp, kernel: Sequence[int],
    sizes: Sequence[int]
) -> tuple[list[int], list[int], list[int]]:
    """Strides, dilations and begin-then-end pads of a Conv or pool, `auto_pad` resolved."""
    n = len(kernel)
    strides = optional_ints(op.strides, [1] * n)
    dilations = optional_ints(op.dilations, [1] * n)
    auto_pad = op.auto_pad.data
    if auto_pad == "NOTSET":
        pads = optional_ints(op.pads, [0] * 2 * n)
    elif auto_pad == "VALID":
        pads = [0] * 2 * n
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        totals = [
            max(0, (-(-size // s) - 1) * s + d * (k - 1) + 1 - size)
            for size, k, s, d in zip(sizes, kernel, strides, dilations)
        ]
        pads = split_padding(totals, upper=auto_pad == "SAME_UPPER")
    else:
        raise no_host_kernel(op, f" with auto_pad '{auto_pad}'")
    return strides, dilations, pads


# Patterns


class GraphOpLowering(RewritePattern):
    """Lowers the graph ops of the classes in `ops` that run on the host.

    `lower` either replaces the op or raises a CompileError; it never declines, so an op
    left over after the walk has no host kernel.
    """

    ops: ClassVar[tuple[type[Operation], ...]]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, self.ops) and on_host(op):
            self.lower(op, rewriter)

    def lower(self, op, rewriter: PatternRewriter) -> None:
        """Replace `op`, an instance of one of `ops`; each subclass narrows its type."""
        raise NotImplementedError

    @staticmethod
    def replace(
        op: Operation,
        rewriter: PatternRewriter,
        new_ops: Sequence[Operation],
        results: Sequence[SSAValue | None] | None = None,
    ) -> None:
        """Replace `op` by `new_ops` (its results by `results`, default: the last op's).

        The new ops keep the op's location; the rewriter gives their results the op's
        result names where they have none. A result replaced by None must be unused: no
        host kernel computes it.
        """
        results = list(new_ops[-1].results if results is None else results)
        results += [None] * (len(op.results) - len(results))
        # The node's name, with its ONNX operator nested: the cpu op no longer says it.
        location = with_op_type(op.location, op_type(op))
        for new in new_ops:
            new.location = location
        # Where the op was placed, and why, stays readable for the placement report.
        if new_ops:
            new_ops[-1].attributes |= {k: v for k, v in op.attributes.items() if k.startswith("mrvl.")}
        for old, new in zip(op.results, results, strict=True):
            if new is None and old.uses:
                raise no_host_kernel(op, f" computing its output '{old.name_hint or old.index}'")
        rewriter.replace(op, list(new_ops), results)


class IdentityLikeIsItsInput(GraphOpLowering):
    """Identity, and Dropout at inference (or with ratio 0), pass their input on; Dropout's
    mask is then all true. A training-mode Dropout with a seed -> cpu.dropout, whose mask is
    the one ONNX's reference draws (numpy's generator with that seed); without a seed the
    mask would be random, and there is no host kernel for it."""

    ops = (g.IdentityOp, g.DropoutOp)

    def lower(self, op: g.IdentityOp | g.DropoutOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op, g.DropoutOp):
            self.replace(op, rewriter, [], [op.operands[0]])
            return
        training = any(constant_ints(op, op.training_mode, "training_mode") or [])
        ratio = constant_scalar(op, op.ratio, "ratio")
        ratio = 0.5 if ratio is None else ratio
        if training and ratio != 0:
            if op.seed is None:
                raise no_host_kernel(op, " in training mode without a 'seed' (its mask would be random)")
            seed = op.seed.value.data
            if not 0 <= seed < 2**32:
                raise node_error(op, f"'seed' must be in [0, 2^32) (numpy's generator takes no other), got {seed}")
            if not 0 <= ratio < 1:
                raise node_error(op, f"'ratio' must be in [0, 1), got {ratio}")
            results = [op.output.type] + ([op.mask.type] if op.mask is not None and op.mask.uses else [])
            dropout = create(cpu.DropoutOp, [op.data], results, ratio=float_attr(ratio), seed=int_attr(seed))
            self.replace(op, rewriter, [dropout], list(dropout.results))
            return
        new_ops: list[Operation] = []
        if op.mask is not None and op.mask.uses:
            new_ops.append(scalar_constant(True, i1))
            new_ops.append(create(cpu.ExpandOp, [new_ops[-1].results[0]], [op.mask.type]))
        self.replace(op, rewriter, new_ops, [op.data, *(o.results[0] for o in new_ops[-1:])])


class CastToCpuCast(GraphOpLowering):
    """Cast and CastLike -> cpu.cast; a cast to the input's own type is its input."""

    ops = (g.CastOp, g.CastLikeOp)

    def lower(self, op: g.CastOp | g.CastLikeOp, rewriter: PatternRewriter) -> None:
        if op.input.type == op.output.type:
            self.replace(op, rewriter, [], [op.input])
        else:
            self.replace(op, rewriter, [create(cpu.CastOp, [op.input], [op.output.type])])


class DirectlyMappedToCpuOp(GraphOpLowering):
    """Ops whose cpu op takes their first operands and the same-named properties.

    `TABLE`: graph op -> (cpu op, how many leading operands it takes, properties copied).
    """

    TABLE: ClassVar[dict[type[Operation], tuple[type[cpu.CpuOp], int, tuple[str, ...]]]] = {
        g.WhereOp: (cpu.WhereOp, 3, ()),
        g.ExpandOp: (cpu.ExpandOp, 1, ()),
        g.LeakyReluOp: (cpu.LeakyReluOp, 1, ("alpha",)),
        g.HardSigmoidOp: (cpu.HardSigmoidOp, 1, ("alpha", "beta")),
        g.HardSwishOp: (cpu.HardSwishOp, 1, ()),
    }
    ops = tuple(TABLE)

    def lower(self, op: Operation, rewriter: PatternRewriter) -> None:
        cls, count, names = self.TABLE[type(op)]
        properties = {name: op.properties[name] for name in names}
        self.replace(op, rewriter, [create(cls, op.operands[:count], [op.results[0].type], **properties)])


class ReshapeLikeToCpuReshape(DirectlyMappedToCpuOp):
    """Reshape, Flatten, Squeeze and Unsqueeze -> cpu.reshape: the static result type says
    it all, so the shape or axes operand is not read."""

    TABLE = {cls: (cpu.ReshapeOp, 1, ()) for cls in (g.ReshapeOp, g.FlattenOp, g.SqueezeOp, g.UnsqueezeOp)}
    ops = tuple(TABLE)


class MatMulToCpuMatmul(GraphOpLowering):
    """MatMul -> cpu.matmul (its epilogue, if any, fused later by fuse-cpu-epilogues)."""

    ops = (g.MatMulOp,)

    def lower(self, op: g.MatMulOp, rewriter: PatternRewriter) -> None:
        self.replace(op, rewriter, [cpu.MatmulOp.of(op.operands[0], op.operands[1], op.results[0].type)])


class ConvToCpuConv(GraphOpLowering):
    """Conv -> cpu.conv, strides/dilations defaulted and auto_pad resolved into pads."""

    ops = (g.ConvOp,)

    def lower(self, op: g.ConvOp, rewriter: PatternRewriter) -> None:
        strides, dilations, pads = window_params(op, shape_of(op.W)[2:], shape_of(op.X)[2:])
        conv = cpu.ConvOp.of(op.X, op.W, op.B, op.Y.type, strides=ints(strides), dilations=ints(dilations),
                             pads=ints(pads), group=op.group)
        self.replace(op, rewriter, [conv])


class ConvTransposeToCpuConvTranspose(GraphOpLowering):
    """ConvTranspose -> cpu.conv_transpose, pads resolved from auto_pad or output_shape."""

    ops = (g.ConvTransposeOp,)

    def lower(self, op: g.ConvTransposeOp, rewriter: PatternRewriter) -> None:
        conv = cpu.ConvTransposeOp.of(op.X, op.W, op.B, op.Y.type, **conv_transpose_properties(op))
        self.replace(op, rewriter, [conv])


def conv_transpose_properties(op: g.ConvTransposeOp) -> dict[str, Attribute]:
    """`cpu.conv_transpose`'s strides, dilations, pads, output padding and group for a
    ConvTranspose, the pads resolved from auto_pad or output_shape."""
    sizes, kernel = shape_of(op.X)[2:], shape_of(op.W)[2:]
    n = len(kernel)
    strides = optional_ints(op.strides, [1] * n)
    dilations = optional_ints(op.dilations, [1] * n)
    output_padding = optional_ints(op.output_padding, [0] * n)
    auto_pad = op.auto_pad.data
    if auto_pad not in ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"):
        raise no_host_kernel(op, f" with auto_pad '{auto_pad}'")
    if op.output_shape is not None or auto_pad.startswith("SAME"):
        targets = optional_ints(op.output_shape, [size * s for size, s in zip(sizes, strides)])[-n:]
        totals = [
            s * (size - 1) + extra + d * (k - 1) + 1 - target
            for size, k, s, d, extra, target in zip(sizes, kernel, strides, dilations, output_padding, targets)
        ]
        pads = split_padding(totals, upper=auto_pad == "SAME_UPPER")
        output_padding = list(output_padding)
        for i in range(n):
            if pads[n + i] < 0 <= pads[i]:  # grown past the full output at the end: output padding
                output_padding[i] -= pads[n + i]
                pads[n + i] = 0
        if any(p < 0 for p in pads):
            raise no_host_kernel(op, f" with an output_shape {targets} that grows its full output at the start")
    elif auto_pad == "VALID":
        pads = [0] * 2 * n
    else:
        pads = optional_ints(op.pads, [0] * 2 * n)
    return dict(strides=ints(strides), dilations=ints(dilations), pads=ints(pads),
                output_padding=ints(output_padding), group=op.group)


class GemmToCpuGemm(GraphOpLowering):
    """Gemm -> cpu.gemm with alpha, beta and the transposes spelled out."""

    ops = (g.GemmOp,)

    def lower(self, op: g.GemmOp, rewriter: PatternRewriter) -> None:
        gemm = create(
            cpu.GemmOp, op.operands, [op.Y.type],
            alpha=op.alpha, beta=op.beta,
            trans_a=bool_attr(op.transA.value.data), trans_b=bool_attr(op.transB.value.data),
        )
        self.replace(op, rewriter, [gemm])


_BINARY: dict[type[Operation], BinaryKind] = {
    g.AddOp: BinaryKind.ADD,
    g.SubOp: BinaryKind.SUB,
    g.MulOp: BinaryKind.MUL,
    g.DivOp: BinaryKind.DIV,
    g.PowOp: BinaryKind.POW,
    g.ModOp: BinaryKind.MOD,
    g.PReluOp: BinaryKind.PRELU,
    g.AndOp: BinaryKind.AND,
    g.OrOp: BinaryKind.OR,
    g.XorOp: BinaryKind.XOR,
    g.EqualOp: BinaryKind.EQUAL,
    g.LessOp: BinaryKind.LESS,
    g.LessOrEqualOp: BinaryKind.LESS_OR_EQUAL,
    g.GreaterOp: BinaryKind.GREATER,
    g.GreaterOrEqualOp: BinaryKind.GREATER_OR_EQUAL,
}


def binary(kind: BinaryKind, lhs: SSAValue, rhs: SSAValue, result_type: Attribute) -> Operation:
    return create(cpu.BinaryOp, [lhs, rhs], [result_type], kind=cpu.BinaryKindAttr(kind))


def scalar_constant(value: float, element_type: Attribute) -> Operation:
    """A rank-0 `graph.constant` of `element_type` holding `value`."""
    data = np.array(value, BY_XDSL[element_type].numpy).tobytes()
    return ConstantOp(DenseIntOrFPElementsAttr(TensorType(element_type, []), BytesAttr(data)))


def is_squaring(op: Operation) -> bool:
    """A float Pow by a constant 2 that broadcasts nothing (a variance's square, written out):
    x * x is exactly what pow rounds to, without pow's cost."""
    base, exponent = op.operands
    value = constant_value(exponent)
    return (isinstance(op, g.PowOp) and isinstance(element_type_of(base), AnyFloat) and value is not None
            and value.size == 1 and float(value.reshape(-1)[0]) == 2.0 and shape_of(op.results[0]) == shape_of(base))


class ElementwiseBinaryToCpuBinary(GraphOpLowering):
    """Add, Sub, Mul, Div, Pow, Mod, PRelu, logic and comparisons -> cpu.binary <kind>.

    A float Pow by a constant 2 is x * x; a Pow exponent of another element type is cast to
    the base's type first.
    """

    ops = tuple(_BINARY)

    def lower(self, op: Operation, rewriter: PatternRewriter) -> None:
        kind = _BINARY[type(op)]
        if isinstance(op, g.ModOp) and op.fmod.value.data:
            kind = BinaryKind.FMOD
        lhs, rhs = op.operands
        if is_squaring(op):
            self.replace(op, rewriter, [binary(BinaryKind.MUL, lhs, lhs, op.results[0].type)])
            return
        new_ops: list[Operation] = []
        if element_type_of(rhs) != element_type_of(lhs):
            new_ops.append(create(cpu.CastOp, [rhs], [TensorType(element_type_of(lhs), shape_of(rhs))]))
            rhs = intermediate(op, new_ops[-1], "rhs")
        new_ops.append(binary(kind, lhs, rhs, op.results[0].type))
        self.replace(op, rewriter, new_ops)


_VARIADIC: dict[type[Operation], BinaryKind] = {
    g.SumOp: BinaryKind.ADD,
    g.MeanOp: BinaryKind.ADD,
    g.MaxOp: BinaryKind.MAX,
    g.MinOp: BinaryKind.MIN,
}


class VariadicElementwiseToCpuBinaryChain(GraphOpLowering):
    """Sum, Mean, Max and Min of n inputs -> n - 1 cpu.binary ops (Mean: then a division
    by n); of one input -> that input."""

    ops = tuple(_VARIADIC)

    def lower(self, op: Operation, rewriter: PatternRewriter) -> None:
        inputs, result = list(op.operands), op.results[0]
        if len(inputs) == 1:
            self.replace(op, rewriter, [], [inputs[0]])
            return
        new_ops: list[Operation] = []
        total = inputs[0]
        for i, value in enumerate(inputs[1:], 2):
            last = i == len(inputs) and not isinstance(op, g.MeanOp)
            partial = TensorType(element_type_of(result), broadcast_shapes(shape_of(total), shape_of(value)) or [])
            new_ops.append(binary(_VARIADIC[type(op)], total, value, result.type if last else partial))
            total = new_ops[-1].results[0] if last else intermediate(op, new_ops[-1], f"partial{i - 1}")
        if isinstance(op, g.MeanOp):
            new_ops.append(scalar_constant(len(inputs), element_type_of(result)))
            new_ops.append(binary(BinaryKind.DIV, total, intermediate(op, new_ops[-1], "count"), result.type))
        self.replace(op, rewriter, new_ops)


_UNARY: dict[type[Operation], UnaryKind] = {
    g.ReluOp: UnaryKind.RELU,
    g.SigmoidOp: UnaryKind.SIGMOID,
    g.TanhOp: UnaryKind.TANH,
    g.SqrtOp: UnaryKind.SQRT,
    g.ExpOp: UnaryKind.EXP,
    g.LogOp: UnaryKind.LOG,
    g.ErfOp: UnaryKind.ERF,
    g.NegOp: UnaryKind.NEG,
    g.AbsOp: UnaryKind.ABS,
    g.ReciprocalOp: UnaryKind.RECIPROCAL,
    g.FloorOp: UnaryKind.FLOOR,
    g.CeilOp: UnaryKind.CEIL,
    g.RoundOp: UnaryKind.ROUND,
    g.SignOp: UnaryKind.SIGN,
    g.SinOp: UnaryKind.SIN,
    g.CosOp: UnaryKind.COS,
    g.TanOp: UnaryKind.TAN,
    g.AsinOp: UnaryKind.ASIN,
    g.AcosOp: UnaryKind.ACOS,
    g.AtanOp: UnaryKind.ATAN,
    g.SinhOp: UnaryKind.SINH,
    g.CoshOp: UnaryKind.COSH,
    g.AsinhOp: UnaryKind.ASINH,
    g.AcoshOp: UnaryKind.ACOSH,
    g.AtanhOp: UnaryKind.ATANH,
    g.NotOp: UnaryKind.NOT,
    g.SoftplusOp: UnaryKind.SOFTPLUS,
    g.SoftsignOp: UnaryKind.SOFTSIGN,
    g.GeluOp: UnaryKind.GELU,
    g.MishOp: UnaryKind.MISH,
}
_GELU_APPROXIMATIONS = {"none": UnaryKind.GELU, "tanh": UnaryKind.GELU_TANH}


class ElementwiseUnaryToCpuUnary(GraphOpLowering):
    """Relu, Sigmoid, Sqrt, ..., Gelu -> cpu.unary <kind> (Gelu's approximation picks the kind)."""

    ops = tuple(_UNARY)

    def lower(self, op: Operation, rewriter: PatternRewriter) -> None:
        kind = _UNARY[type(op)]
        if isinstance(op, g.GeluOp):
            approximate = op.approximate.data
            if approximate not in _GELU_APPROXIMATIONS:
                raise no_host_kernel(op, f" with approximate '{approximate}'")
            kind = _GELU_APPROXIMATIONS[approximate]
        unary = create(cpu.UnaryOp, [op.operands[0]], [op.results[0].type], kind=cpu.UnaryKindAttr(kind))
        self.replace(op, rewriter, [unary])


class ClipToCpuClip(GraphOpLowering):
    """Clip -> cpu.clip, bounds read from the constant min/max inputs (absent: -inf/+inf).

    Bounds known only at run time (graph inputs, computed scalars) make a cpu.binary max
    with `min`, then a cpu.binary min with `max`: min(max(x, lo), hi), which is `hi`
    where lo > hi, as ONNX asks.
    """

    ops = (g.ClipOp,)

    def lower(self, op: g.ClipOp, rewriter: PatternRewriter) -> None:
        if any(b is not None and constant_op(b) is None for b in (op.min, op.max)):
            self.lower_run_time_bounds(op, rewriter)
            return
        low = constant_scalar(op, op.min, "min")
        high = constant_scalar(op, op.max, "max")
        clip = create(
            cpu.ClipOp, [op.input], [op.output.type],
            min=float_attr(-math.inf if low is None else low),
            max=float_attr(math.inf if high is None else high),
        )
        self.replace(op, rewriter, [clip])

    def lower_run_time_bounds(self, op: g.ClipOp, rewriter: PatternRewriter) -> None:
        new_ops: list[Operation] = []
        value = op.input
        bounds = [(b, kind, role) for b, kind, role in ((op.min, BinaryKind.MAX, "min"), (op.max, BinaryKind.MIN, "max"))
                  if b is not None]
        for i, (bound, kind, role) in enumerate(bounds):
            if math.prod(shape_of(bound)) != 1:
                raise node_error(op, f"input '{role}' must be a scalar, got shape {list(shape_of(bound))}")
            new_ops.append(binary(kind, value, bound, op.output.type))
            if i < len(bounds) - 1:
                value = intermediate(op, new_ops[-1], f"above_{role}")
        self.replace(op, rewriter, new_ops)


class AxisOpToCpuOp(GraphOpLowering):
    """Softmax, Concat and Gather -> their cpu op, with a non-negative axis."""

    TABLE: ClassVar[dict[type[Operation], type[cpu.CpuOp]]] = {
        g.SoftmaxOp: cpu.SoftmaxOp,
        g.ConcatOp: cpu.ConcatOp,
        g.GatherOp: cpu.GatherOp,
    }
    ops = tuple(TABLE)

    def lower(self, op: g.SoftmaxOp | g.ConcatOp | g.GatherOp, rewriter: PatternRewriter) -> None:
        axis = normalized_axis(op, op.axis.value.data, len(shape_of(op.operands[0])))
        new = create(self.TABLE[type(op)], op.operands, [op.results[0].type], axis=int_attr(axis))
        self.replace(op, rewriter, [new])


def moments(op: Operation, x: SSAValue, axes: Sequence[int], new_ops: list[Operation]) -> tuple[SSAValue, SSAValue]:
    """The mean and the (population) variance of `x` over `axes`, kept as 1s: appends the ops
    computing them to `new_ops`."""
    dims, element = shape_of(x), element_type_of(x)
    kept = TensorType(element, [1 if i in axes else d for i, d in enumerate(dims)])

    def mean_of(value: SSAValue, role: str) -> SSAValue:
        new_ops.append(create(cpu.ReduceOp, [value], [kept], kind=cpu.ReduceKindAttr(ReduceKind.MEAN),
                              axes=ints(axes), keepdims=bool_attr(True)))
        return intermediate(op, new_ops[-1], role)

    mean = mean_of(x, "mean")
    new_ops.append(binary(BinaryKind.SUB, x, mean, x.type))
    centered = intermediate(op, new_ops[-1], "centered")
    new_ops.append(binary(BinaryKind.MUL, centered, centered, x.type))
    return mean, mean_of(intermediate(op, new_ops[-1], "squared"), "variance")


class LayerNormalizationToCpuLayerNorm(GraphOpLowering):
    """LayerNormalization -> cpu.layer_norm; its Mean and InvStdDev, when read, from
    cpu.reduce and elementwise ops."""

    ops = (g.LayerNormalizationOp,)

    def lower(self, op: g.LayerNormalizationOp, rewriter: PatternRewriter) -> None:
        x = shape_of(op.X)
        axis = normalized_axis(op, op.axis.value.data, len(x))
        for name, value in (("Scale", op.Scale), ("B", op.B)):
            if value is not None and shape_of(value) != x[axis:]:
                raise no_host_kernel(op, f" with a {name} of shape {list(shape_of(value))}, not {list(x[axis:])}")
        new_ops: list[Operation] = []
        results: list[SSAValue] = []
        if any(r is not None and r.uses for r in (op.Mean, op.InvStdDev)):
            mean, variance = moments(op, op.X, range(axis, len(x)), new_ops)
            new_ops.append(scalar_constant(op.epsilon.value.data, element_type_of(op.X)))
            new_ops.append(binary(BinaryKind.ADD, variance, new_ops[-1].results[0], variance.type))
            new_ops.append(create(cpu.UnaryOp, [intermediate(op, new_ops[-1], "shifted")], [variance.type],
                                  kind=cpu.UnaryKindAttr(UnaryKind.SQRT)))
            new_ops.append(create(cpu.UnaryOp, [intermediate(op, new_ops[-1], "std")], [variance.type],
                                  kind=cpu.UnaryKindAttr(UnaryKind.RECIPROCAL)))
            results = [mean, new_ops[-1].results[0]]
        norm = create(cpu.LayerNormOp, op.operands, [op.Y.type], axis=int_attr(axis), epsilon=op.epsilon)
        self.replace(op, rewriter, [*new_ops, norm], [norm.results[0], *results])


class BatchNormalizationToCpuBatchNorm(GraphOpLowering):
    """BatchNormalization -> cpu.batch_norm; in training mode with the batch's own statistics
    (cpu.reduce and elementwise ops), which also update the running mean and variance."""

    ops = (g.BatchNormalizationOp,)

    def lower(self, op: g.BatchNormalizationOp, rewriter: PatternRewriter) -> None:
        if not op.training_mode.value.data:
            norm = create(cpu.BatchNormOp, op.operands, [op.Y.type], epsilon=op.epsilon)
            self.replace(op, rewriter, [norm])
            return
        new_ops: list[Operation] = []
        rank = len(shape_of(op.X))
        batch_mean, batch_variance = moments(op, op.X, [0, *range(2, rank)], new_ops)
        statistics = []
        for value, role in ((batch_mean, "batch_mean"), (batch_variance, "batch_variance")):
            new_ops.append(create(cpu.ReshapeOp, [value], [op.input_mean.type]))
            statistics.append(intermediate(op, new_ops[-1], role))
        norm = create(cpu.BatchNormOp, [op.X, op.scale, op.B, *statistics], [op.Y.type], epsilon=op.epsilon)
        new_ops.append(norm)
        # running = input * momentum + batch * (1 - momentum)
        momentum = op.momentum.value.data
        element = element_type_of(op.X)
        running = []
        for given, batch, result in ((op.input_mean, statistics[0], op.running_mean),
                                     (op.input_var, statistics[1], op.running_var)):
            if result is None or not result.uses:
                running.append(None)
                continue
            new_ops += [scalar_constant(momentum, element), scalar_constant(1 - momentum, element)]
            kept, taken = new_ops[-2].results[0], new_ops[-1].results[0]
            new_ops.append(binary(BinaryKind.MUL, given, kept, given.type))
            old_part = new_ops[-1].results[0]
            new_ops.append(binary(BinaryKind.MUL, batch, taken, given.type))
            new_ops.append(binary(BinaryKind.ADD, old_part, new_ops[-1].results[0], result.type))
            running.append(new_ops[-1].results[0])
        self.replace(op, rewriter, new_ops, [norm.results[0], *running])


class PoolToCpuPool(GraphOpLowering):
    """MaxPool and AveragePool -> cpu.pool <kind>; a MaxPool whose Indices are used gets the
    `indices` result and its storage_order."""

    ops = (g.MaxPoolOp, g.AveragePoolOp)

    def lower(self, op: g.MaxPoolOp | g.AveragePoolOp, rewriter: PatternRewriter) -> None:
        results, extra = [op.Y.type], {}
        if isinstance(op, g.MaxPoolOp) and op.Indices is not None and op.Indices.uses:
            order = op.storage_order.value.data
            if order not in (0, 1):
                raise node_error(op, f"'storage_order' must be 0 (row-major) or 1 (column-major), got {order}")
            results.append(op.Indices.type)
            extra["storage_order"] = int_attr(order)
        pool = create(cpu.PoolOp, [op.X], results, **pool_properties(op), **extra)
        self.replace(op, rewriter, [pool], list(pool.results))


def pool_properties(op: g.MaxPoolOp | g.AveragePoolOp) -> dict[str, Attribute]:
    """`cpu.pool`'s kind and windows for a MaxPool or AveragePool, auto_pad resolved."""
    kernel = optional_ints(op.kernel_shape, [])
    strides, dilations, pads = window_params(op, kernel, shape_of(op.X)[2:])
    average = isinstance(op, g.AveragePoolOp)
    return dict(kind=cpu.PoolKindAttr(PoolKind.AVERAGE if average else PoolKind.MAX),
                kernel=ints(kernel), strides=ints(strides), pads=ints(pads), dilations=ints(dilations),
                count_include_pad=bool_attr(average and op.count_include_pad.value.data))


class GlobalPoolToCpuGlobalPool(GraphOpLowering):
    """GlobalAveragePool and GlobalMaxPool -> cpu.global_pool <kind>."""

    ops = (g.GlobalAveragePoolOp, g.GlobalMaxPoolOp)

    def lower(self, op: g.GlobalAveragePoolOp | g.GlobalMaxPoolOp, rewriter: PatternRewriter) -> None:
        kind = PoolKind.AVERAGE if isinstance(op, g.GlobalAveragePoolOp) else PoolKind.MAX
        pool = create(cpu.GlobalPoolOp, [op.X], [op.Y.type], kind=cpu.PoolKindAttr(kind))
        self.replace(op, rewriter, [pool])


_REDUCE: dict[type[Operation], ReduceKind] = {
    g.ReduceSumOp: ReduceKind.SUM,
    g.ReduceMeanOp: ReduceKind.MEAN,
    g.ReduceMaxOp: ReduceKind.MAX,
    g.ReduceMinOp: ReduceKind.MIN,
    g.ReduceProdOp: ReduceKind.PROD,
    g.ReduceL1Op: ReduceKind.L1,
    g.ReduceL2Op: ReduceKind.L2,
    g.ReduceLogSumOp: ReduceKind.LOG_SUM,
    g.ReduceLogSumExpOp: ReduceKind.LOG_SUM_EXP,
    g.ReduceSumSquareOp: ReduceKind.SUM_SQUARE,
}


class ReduceToCpuReduce(GraphOpLowering):
    """ReduceX -> cpu.reduce <kind> over the constant axes, sorted and non-negative.

    No axes means all axes, or no reduction at all (the input) with noop_with_empty_axes.
    """

    ops = tuple(_REDUCE)

    def lower(self, op: Operation, rewriter: PatternRewriter) -> None:
        data, result = op.operands[0], op.results[0]
        rank = len(shape_of(data))
        axes = constant_ints(op, op.operands[1] if len(op.operands) > 1 else None, "axes") or []
        if not axes and (op.noop_with_empty_axes.value.data or rank == 0):
            self.replace(op, rewriter, [], [data])
            return
        axes = sorted({normalized_axis(op, a, rank, "axes") for a in axes}) or list(range(rank))
        reduce = create(
            cpu.ReduceOp, [data], [result.type],
            kind=cpu.ReduceKindAttr(_REDUCE[type(op)]),
            axes=ints(axes),
            keepdims=bool_attr(op.keepdims.value.data),
        )
        self.replace(op, rewriter, [reduce])


class TransposeToCpuTranspose(GraphOpLowering):
    """Transpose -> cpu.transpose, the default permutation (reversed dims) spelled out."""

    ops = (g.TransposeOp,)

    def lower(self, op: g.TransposeOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.data))
        perm = optional_ints(op.perm, range(rank - 1, -1, -1))
        transpose = create(cpu.TransposeOp, [op.data], [op.transposed.type], perm=ints(perm))
        self.replace(op, rewriter, [transpose])


class SliceToCpuSlice(GraphOpLowering):
    """Slice -> cpu.slice with a start, end and step for every input dim, normalised and
    clamped as ONNX specifies."""

    ops = (g.SliceOp,)

    def lower(self, op: g.SliceOp, rewriter: PatternRewriter) -> None:
        dims = shape_of(op.data)
        given_starts = constant_ints(op, op.starts, "starts") or []
        given_ends = constant_ints(op, op.ends, "ends") or []
        given_axes = constant_ints(op, op.axes, "axes") or list(range(len(given_starts)))
        given_steps = constant_ints(op, op.steps, "steps") or [1] * len(given_starts)
        if not len(given_starts) == len(given_ends) == len(given_axes) == len(given_steps):
            raise node_error(
                op,
                f"starts, ends, axes and steps must have one value per sliced axis, got "
                f"{given_starts}, {given_ends}, {given_axes} and {given_steps}",
            )
        starts, ends, steps = [0] * len(dims), list(dims), [1] * len(dims)
        for axis, start, end, step in zip(given_axes, given_starts, given_ends, given_steps):
            axis = normalized_axis(op, axis, len(dims), "axes")
            dim = dims[axis]
            if step == 0:
                raise node_error(op, f"'steps' must not be 0, got {given_steps}")
            start, end = start + dim if start < 0 else start, end + dim if end < 0 else end
            low, high = (0, dim) if step > 0 else (-1, dim - 1)
            starts[axis] = min(max(start, 0), high)
            ends[axis] = min(max(end, low), high)
            steps[axis] = step
            if dim == 0:
                starts[axis], ends[axis], steps[axis] = 0, 0, 1
        slice_op = create(
            cpu.SliceOp, [op.data], [op.output.type], starts=ints(starts), ends=ints(ends), steps=ints(steps)
        )
        self.replace(op, rewriter, [slice_op])


class SplitToCpuSplit(GraphOpLowering):
    """Split -> cpu.split; the piece sizes are the results' sizes along the axis."""

    ops = (g.SplitOp,)

    def lower(self, op: g.SplitOp, rewriter: PatternRewriter) -> None:
        axis = normalized_axis(op, op.axis.value.data, len(shape_of(op.input)))
        sizes = [shape_of(r)[axis] for r in op.outputs]
        split = create(
            cpu.SplitOp, [op.input], [r.type for r in op.outputs], axis=int_attr(axis), sizes=ints(sizes)
        )
        self.replace(op, rewriter, [split])


class PadToCpuPad(GraphOpLowering):
    """Pad -> cpu.pad <mode>: pads for every dim (from the constant pads and axes) and the
    constant fill value (default 0)."""

    ops = (g.PadOp,)

    def lower(self, op: g.PadOp, rewriter: PatternRewriter) -> None:
        dims = shape_of(op.data)
        given = constant_ints(op, op.pads, "pads") or []
        given_axes = constant_ints(op, op.axes, "axes") or range(len(dims))
        axes = [normalized_axis(op, a, len(dims), "axes") for a in given_axes]
        if len(given) != 2 * len(axes):
            raise node_error(op, f"'pads' must have 2 values per padded axis ({2 * len(axes)}), got {given}")
        pads = [0] * 2 * len(dims)
        for i, axis in enumerate(axes):
            pads[axis], pads[len(dims) + axis] = given[i], given[len(axes) + i]
        value = constant_scalar(op, op.constant_value, "constant_value") or 0.0
        pad = create(
            cpu.PadOp, [op.data], [op.output.type],
            pads=ints(pads), mode=enum_property(op, cpu.PadModeAttr, "mode"), value=float_attr(value),
        )
        self.replace(op, rewriter, [pad])


class ResizeToCpuResize(GraphOpLowering):
    """Resize -> cpu.resize <mode> with one scale per dim, from the constant scales, or
    computed from the constant sizes (output over input, with keep_aspect_ratio_policy); with
    tf_crop_and_resize, the region of interest of every dim from the constant roi (0 to 1 on
    the dims `axes` leaves out). antialias is for linear and cubic only, as ONNX's
    reference and onnxruntime have it."""

    ops = (g.ResizeOp,)

    def lower(self, op: g.ResizeOp, rewriter: PatternRewriter) -> None:
        if op.antialias.value.data and op.mode.data not in ("linear", "cubic"):
            raise node_error(op, f"antialias needs mode 'linear' or 'cubic', got '{op.mode.data}'")
        dims = shape_of(op.X)
        axes = [normalized_axis(op, a, len(dims), "axes") for a in optional_ints(op.axes, range(len(dims)))]
        given_scales = constant_operand(op, op.scales, "scales")
        given_sizes = constant_ints(op, op.sizes, "sizes")
        if given_scales is not None and given_scales.size:
            ratios = [float(s) for s in given_scales.reshape(-1)]
        elif given_sizes:
            ratios = [np.float32(size) / np.float32(dims[a]) for a, size in zip(axes, given_sizes)]
            policy = op.keep_aspect_ratio_policy.data
            if policy in ("not_larger", "not_smaller"):
                ratios = [(min if policy == "not_larger" else max)(ratios)] * len(axes)
        else:
            raise node_error(op, "needs a 'scales' or a 'sizes' input")
        if len(ratios) != len(axes):
            raise node_error(
                op, f"'scales' or 'sizes' must have one value per resized axis ({len(axes)}), got {len(ratios)}"
            )
        scales = [1.0] * len(dims)
        for axis, ratio in zip(axes, ratios):
            scales[axis] = float(np.float32(ratio))
        mode = enum_property(op, cpu.ResizeModeAttr, "mode")
        coordinate_mode = enum_property(op, cpu.CoordinateTransformationModeAttr, "coordinate_transformation_mode")
        extra = {}
        if coordinate_mode.data == cpu.CoordinateTransformationMode.TF_CROP_AND_RESIZE:
            given_roi = constant_operand(op, op.roi, "roi")
            if given_roi is None or given_roi.size != 2 * len(axes):
                count = 0 if given_roi is None else given_roi.size
                raise node_error(
                    op, f"'roi' must have 2 values per resized axis ({2 * len(axes)}) with "
                        f"tf_crop_and_resize, got {count}")
            values = [float(v) for v in given_roi.reshape(-1)]
            roi = [0.0] * len(dims) + [1.0] * len(dims)
            for i, axis in enumerate(axes):
                roi[axis], roi[len(dims) + axis] = values[i], values[len(axes) + i]
            extra["roi"] = DenseArrayBase.from_list(f32, roi)
        resize = create(
            cpu.ResizeOp, [op.X], [op.Y.type],
            scales=DenseArrayBase.from_list(f32, scales),
            mode=mode,
            coordinate_transformation_mode=coordinate_mode,
            nearest_mode=enum_property(op, cpu.NearestModeAttr, "nearest_mode"),
            cubic_coeff_a=op.cubic_coeff_a,
            exclude_outside=bool_attr(op.exclude_outside.value.data),
            extrapolation_value=op.extrapolation_value,
            antialias=bool_attr(op.antialias.value.data),
            **extra,
        )
        self.replace(op, rewriter, [resize])


class DepthToSpaceToCpuDepthToSpace(GraphOpLowering):
    """DepthToSpace -> cpu.depth_to_space <mode>."""

    ops = (g.DepthToSpaceOp,)

    def lower(self, op: g.DepthToSpaceOp, rewriter: PatternRewriter) -> None:
        mode = enum_property(op, cpu.DepthToSpaceModeAttr, "mode")
        d2s = create(cpu.DepthToSpaceOp, [op.input], [op.output.type], blocksize=op.blocksize, mode=mode)
        self.replace(op, rewriter, [d2s])


class LogSoftmaxToCpuSoftmax(GraphOpLowering):
    """LogSoftmax -> cpu.softmax with `log`, its axis non-negative."""

    ops = (g.LogSoftmaxOp,)

    def lower(self, op: g.LogSoftmaxOp, rewriter: PatternRewriter) -> None:
        axis = normalized_axis(op, op.axis.value.data, len(shape_of(op.input)))
        softmax = create(cpu.SoftmaxOp, [op.input], [op.output.type], axis=int_attr(axis), log=UnitAttr())
        self.replace(op, rewriter, [softmax])


class HardmaxToCpuHardmax(GraphOpLowering):
    """Hardmax -> cpu.hardmax, its axis non-negative."""

    ops = (g.HardmaxOp,)

    def lower(self, op: g.HardmaxOp, rewriter: PatternRewriter) -> None:
        axis = normalized_axis(op, op.axis.value.data, len(shape_of(op.input)))
        self.replace(op, rewriter, [create(cpu.HardmaxOp, [op.input], [op.output.type], axis=int_attr(axis))])


class ArgMaxMinToCpuArgReduce(GraphOpLowering):
    """ArgMax and ArgMin -> cpu.arg_reduce max|min with axis, keepdims and select_last_index."""

    ops = (g.ArgMaxOp, g.ArgMinOp)

    def lower(self, op: g.ArgMaxOp | g.ArgMinOp, rewriter: PatternRewriter) -> None:
        dims = shape_of(op.data)
        axis = normalized_axis(op, op.axis.value.data, len(dims))
        if dims[axis] == 0:
            raise node_error(op, f"dim {axis} of the input is empty: it has no extreme")
        kind = cpu.ArgReduceKind.MAX if isinstance(op, g.ArgMaxOp) else cpu.ArgReduceKind.MIN
        arg = create(cpu.ArgReduceOp, [op.data], [op.reduced.type], kind=cpu.ArgReduceKindAttr(kind),
                     axis=int_attr(axis), keepdims=bool_attr(op.keepdims.value.data),
                     select_last_index=bool_attr(op.select_last_index.value.data))
        self.replace(op, rewriter, [arg])


class CumulativeToCpuCumulative(GraphOpLowering):
    """CumSum and CumProd -> cpu.cumulative sum|prod, the axis read from its constant input."""

    ops = (g.CumSumOp, g.CumProdOp)

    def lower(self, op: g.CumSumOp | g.CumProdOp, rewriter: PatternRewriter) -> None:
        given = constant_ints(op, op.axis, "axis") or []
        if len(given) != 1:
            raise node_error(op, f"'axis' must be one value, got {given}")
        axis = normalized_axis(op, given[0], len(shape_of(op.x)))
        kind = cpu.CumulativeKind.SUM if isinstance(op, g.CumSumOp) else cpu.CumulativeKind.PROD
        cumulative = create(cpu.CumulativeOp, [op.x], [op.y.type], kind=cpu.CumulativeKindAttr(kind),
                            axis=int_attr(axis), exclusive=bool_attr(op.exclusive.value.data),
                            reverse=bool_attr(op.reverse.value.data))
        self.replace(op, rewriter, [cumulative])


class TopKToCpuTopK(GraphOpLowering):
    """TopK -> cpu.top_k, k read from its constant input; the results are always sorted
    (which ONNX allows for sorted = 0 too)."""

    ops = (g.TopKOp,)

    def lower(self, op: g.TopKOp, rewriter: PatternRewriter) -> None:
        dims = shape_of(op.X)
        axis = normalized_axis(op, op.axis.value.data, len(dims))
        given = constant_ints(op, op.K, "K") or []
        if len(given) != 1 or not 0 <= given[0] <= dims[axis]:
            raise node_error(op, f"'K' must be one value in [0, {dims[axis]}] (dim {axis} of the input), got {given}")
        top_k = create(cpu.TopKOp, [op.X], [op.Values.type, op.Indices.type], axis=int_attr(axis),
                       k=int_attr(given[0]), largest=bool_attr(op.largest.value.data))
        self.replace(op, rewriter, [top_k], list(top_k.results))


class RmsNormalizationToCpuRmsNorm(GraphOpLowering):
    """RMSNormalization -> cpu.rms_norm; a Scale that broadcasts to the normalised dims is
    expanded to them first (cpu.expand). Only stash_type 1 (float32 statistics) has a kernel."""

    ops = (g.RMSNormalizationOp,)

    def lower(self, op: g.RMSNormalizationOp, rewriter: PatternRewriter) -> None:
        dims = shape_of(op.X)
        axis = normalized_axis(op, op.axis.value.data, len(dims))
        if (stash := op.stash_type.value.data) != 1:
            raise no_host_kernel(op, f" with stash_type {stash} (1 only: float32 statistics)")
        normalized, scale_shape = list(dims[axis:]), shape_of(op.scale)
        new_ops: list[Operation] = []
        scale = op.scale
        if list(scale_shape) != normalized:
            if len(scale_shape) > len(normalized) or broadcast_shapes(scale_shape, normalized) != tuple(normalized):
                raise no_host_kernel(op, f" with a scale of shape {list(scale_shape)}, which does not broadcast "
                                         f"to the normalised dims {normalized}")
            new_ops.append(create(cpu.ExpandOp, [scale], [TensorType(element_type_of(scale), normalized)]))
            scale = intermediate(op, new_ops[-1], "scale")
        if element_type_of(scale) != element_type_of(op.X):
            new_ops.append(create(cpu.CastOp, [scale], [TensorType(element_type_of(op.X), normalized)]))
            scale = intermediate(op, new_ops[-1], "scale_cast")
        new_ops.append(create(cpu.RmsNormOp, [op.X, scale], [op.Y.type], axis=int_attr(axis), epsilon=op.epsilon))
        self.replace(op, rewriter, new_ops)


class GatherElementsToCpuGatherElements(GraphOpLowering):
    """GatherElements -> cpu.gather_elements, its axis non-negative."""

    ops = (g.GatherElementsOp,)

    def lower(self, op: g.GatherElementsOp, rewriter: PatternRewriter) -> None:
        axis = normalized_axis(op, op.axis.value.data, len(shape_of(op.data)))
        gather = create(cpu.GatherElementsOp, [op.data, op.indices], [op.output.type], axis=int_attr(axis))
        self.replace(op, rewriter, [gather])


class TriluToCpuTrilu(GraphOpLowering):
    """Trilu -> cpu.trilu, k read from its constant input (default 0)."""

    ops = (g.TriluOp,)

    def lower(self, op: g.TriluOp, rewriter: PatternRewriter) -> None:
        given = constant_ints(op, op.k, "k")
        if given is not None and len(given) != 1:
            raise node_error(op, f"'k' must be one value, got {given}")
        trilu = create(cpu.TriluOp, [op.input], [op.output.type], upper=bool_attr(op.upper.value.data),
                       k=int_attr(given[0] if given else 0))
        self.replace(op, rewriter, [trilu])


class RangeToCpuRange(GraphOpLowering):
    """Range -> cpu.range of start and delta (read at run time); the static result type holds
    the count its limit gave."""

    ops = (g.RangeOp,)

    def lower(self, op: g.RangeOp, rewriter: PatternRewriter) -> None:
        for name, value in (("start", op.start), ("delta", op.delta)):
            if shape_of(value):
                raise node_error(op, f"'{name}' must be a scalar, got shape {list(shape_of(value))}")
        self.replace(op, rewriter, [create(cpu.RangeOp, [op.start, op.delta], [op.output.type])])


_ACTIVATIONS: dict[type[Operation], cpu.ActivationKind] = {
    g.EluOp: cpu.ActivationKind.ELU,
    g.SeluOp: cpu.ActivationKind.SELU,
    g.CeluOp: cpu.ActivationKind.CELU,
    g.ThresholdedReluOp: cpu.ActivationKind.THRESHOLDED_RELU,
}


class ActivationToCpuActivation(GraphOpLowering):
    """Elu, Selu, Celu and ThresholdedRelu -> cpu.activation <kind> with alpha (and Selu's gamma)."""

    ops = tuple(_ACTIVATIONS)

    def lower(self, op: g.EluOp | g.SeluOp | g.CeluOp | g.ThresholdedReluOp, rewriter: PatternRewriter) -> None:
        extra = {"gamma": op.gamma} if isinstance(op, g.SeluOp) else {}
        if isinstance(op, g.CeluOp) and op.alpha.value.data == 0.0:
            raise node_error(op, "'alpha' must not be 0: Celu divides by it")
        activation = create(cpu.ActivationOp, [op.X], [op.Y.type],
                            kind=cpu.ActivationKindAttr(_ACTIVATIONS[type(op)]), alpha=op.alpha, **extra)
        self.replace(op, rewriter, [activation])


class ScatterToCpuScatter(GraphOpLowering):
    """ScatterElements -> cpu.scatter_elements (axis non-negative) and ScatterND ->
    cpu.scatter_nd, each with its reduction."""

    ops = (g.ScatterElementsOp, g.ScatterNDOp)

    def lower(self, op: g.ScatterElementsOp | g.ScatterNDOp, rewriter: PatternRewriter) -> None:
        reduction = enum_property(op, cpu.ScatterReductionAttr, "reduction")
        if isinstance(op, g.ScatterElementsOp):
            axis = normalized_axis(op, op.axis.value.data, len(shape_of(op.data)))
            scatter = create(cpu.ScatterElementsOp, op.operands, [op.output.type], reduction=reduction,
                             axis=int_attr(axis))
        else:
            scatter = create(cpu.ScatterNdOp, op.operands, [op.output.type], reduction=reduction)
        self.replace(op, rewriter, [scatter])


_RECURRENT_ACTIVATIONS = {activation.replace("_", ""): cpu.RecurrentActivation(activation)
                          for activation in cpu.RecurrentActivation}
"""ONNX's activation names, lower-cased (onnxruntime takes any case), to the kernel's."""
_RECURRENT_DEFAULTS: dict[cpu.RecurrentKind, tuple[str, ...]] = {
    cpu.RecurrentKind.LSTM: ("sigmoid", "tanh", "tanh"),
    cpu.RecurrentKind.GRU: ("sigmoid", "tanh"),
    cpu.RecurrentKind.RNN: ("tanh",),
}
_RECURRENT_ALPHA: dict[cpu.RecurrentActivation, float] = {
    cpu.RecurrentActivation.AFFINE: 0.0,
    cpu.RecurrentActivation.LEAKY_RELU: 0.01,
    cpu.RecurrentActivation.THRESHOLDED_RELU: 0.0,
    cpu.RecurrentActivation.SCALED_TANH: 0.0,
    cpu.RecurrentActivation.HARD_SIGMOID: 0.2,
    cpu.RecurrentActivation.ELU: 1.0,
}
"""The activations that take an alpha, with its default: onnxruntime's, which is 0 for
Affine, ThresholdedRelu and ScaledTanh (not the 1.0 of the former ONNX operators)."""
_RECURRENT_BETA: dict[cpu.RecurrentActivation, float] = {
    cpu.RecurrentActivation.AFFINE: 0.0,
    cpu.RecurrentActivation.SCALED_TANH: 0.0,
    cpu.RecurrentActivation.HARD_SIGMOID: 0.5,
}


def recurrent_activations(
    op: g.LSTMOp | g.GRUOp | g.RNNOp, kind: cpu.RecurrentKind, directions: int
) -> tuple[list[cpu.RecurrentActivation], list[float], list[float]]:
    """Every direction's activations with an alpha and a beta each. As onnxruntime reads them,
    activation_alpha and activation_beta are consumed in order by the activations that take
    one (the rest get the default), one direction's list serves both directions, and a
    forward RNN takes the first of two."""
    names = [a.data for a in op.activations.data] if op.activations is not None else []
    names = names or list(_RECURRENT_DEFAULTS[kind]) * directions
    if len(names) == kind.activations and directions == 2:
        names *= 2
    if kind == cpu.RecurrentKind.RNN and directions == 1 and len(names) == 2:
        names = names[:1]  # RNN's schema default is [Tanh, Tanh], for two directions
    if len(names) != kind.activations * directions:
        raise node_error(op, f"'activations' must name {kind.activations * directions} functions "
                             f"({kind.activations} per direction), got {len(names)}")
    activations = []
    for name in names:
        if name.lower() not in _RECURRENT_ACTIVATIONS:
            raise no_host_kernel(op, f" with the activation '{name}'")
        activations.append(_RECURRENT_ACTIVATIONS[name.lower()])
    given_alphas = list(op.activation_alpha.get_values()) if op.activation_alpha is not None else []
    given_betas = list(op.activation_beta.get_values()) if op.activation_beta is not None else []
    alphas, betas = [], []
    for activation in activations:
        alpha, beta = _RECURRENT_ALPHA.get(activation), _RECURRENT_BETA.get(activation)
        alphas.append(0.0 if alpha is None else given_alphas.pop(0) if given_alphas else alpha)
        betas.append(0.0 if beta is None else given_betas.pop(0) if given_betas else beta)
    return activations, alphas, betas


class RecurrentToCpuRecurrent(GraphOpLowering):
    """LSTM, GRU and RNN -> cpu.recurrent <kind>, activations resolved
    (`recurrent_activations`); only the results the model reads are computed."""

    ops = (g.LSTMOp, g.GRUOp, g.RNNOp)

    def lower(self, op: g.LSTMOp | g.GRUOp | g.RNNOp, rewriter: PatternRewriter) -> None:
        kind = {g.LSTMOp: cpu.RecurrentKind.LSTM, g.GRUOp: cpu.RecurrentKind.GRU,
                g.RNNOp: cpu.RecurrentKind.RNN}[type(op)]
        direction = enum_property(op, cpu.RecurrentDirectionAttr, "direction")
        directions = 2 if direction.data == cpu.RecurrentDirection.BIDIRECTIONAL else 1
        hidden = shape_of(op.R)[-1]
        if op.hidden_size is not None and op.hidden_size.value.data != hidden:
            raise node_error(op, f"'hidden_size' is {op.hidden_size.value.data}, but 'R' has {hidden} columns")
        if (layout := op.layout.value.data) not in (0, 1):
            raise node_error(op, f"'layout' must be 0 or 1, got {layout}")
        activations, alphas, betas = recurrent_activations(op, kind, directions)
        properties: dict[str, Attribute] = dict(
            kind=cpu.RecurrentKindAttr(kind), direction=direction, layout=int_attr(layout),
            activations=ArrayAttr([cpu.RecurrentActivationAttr(a) for a in activations]),
            alphas=DenseArrayBase.from_list(f32, alphas), betas=DenseArrayBase.from_list(f32, betas))
        if op.clip is not None:
            if not op.clip.value.data > 0:
                raise node_error(op, f"'clip' must be positive, got {op.clip.value.data}")
            properties["clip"] = float_attr(op.clip.value.data)
        if isinstance(op, g.LSTMOp) and op.input_forget.value.data:
            properties["input_forget"] = UnitAttr()
        if isinstance(op, g.GRUOp) and op.linear_before_reset.value.data:
            properties["linear_before_reset"] = UnitAttr()
        if isinstance(op, g.LSTMOp) and QUANTIZED_HIDDEN_ATTR in op.attributes:
            properties["quantized_hidden"] = UnitAttr()
        lstm = isinstance(op, g.LSTMOp)
        operands = [op.X, op.W, op.R, op.B, op.sequence_lens, op.initial_h,
                    op.initial_c if lstm else None, op.P if lstm else None]
        outputs = [op.Y, op.Y_h, op.Y_c if lstm else None]
        kept = [result if result is not None and result.uses else None for result in outputs]
        recurrent = cpu.RecurrentOp.build(operands=[[v] if v is not None else [] for v in operands],
                                          result_types=[[r.type] if r is not None else [] for r in kept],
                                          properties=properties)
        new = dict(zip([r for r in kept if r is not None], recurrent.results))
        self.replace(op, rewriter, [recurrent], [new.get(result) for result in op.results])

QUANTIZED_TYPES = frozenset({"int8", "uint8", "int16", "uint16", "int32"})
"""The integer types (ONNX names) the host's QuantizeLinear and DequantizeLinear kernels take."""


class LinearQuantizationToCpu(GraphOpLowering):
    """QuantizeLinear -> cpu.quantize, DequantizeLinear -> cpu.dequantize: float32 on the
    float side, an integer of `QUANTIZED_TYPES` on the other; per tensor, per axis or per
    block. The axis of a one-element scale means nothing and becomes 0."""

    ops = (g.QuantizeLinearOp, g.DequantizeLinearOp)

    def lower(self, op: g.QuantizeLinearOp | g.DequantizeLinearOp, rewriter: PatternRewriter) -> None:
        quantize = isinstance(op, g.QuantizeLinearOp)
        x, scale = op.operands[0], op.operands[1]
        zero_point = op.y_zero_point if isinstance(op, g.QuantizeLinearOp) else op.x_zero_point
        integer, real = (op.y, x) if quantize else (x, op.y)
        name = BY_XDSL[element_type_of(integer)].onnx_name
        if name not in QUANTIZED_TYPES:
            raise no_host_kernel(op, f" of {name}")
        for value in (real, scale):
            if element_type_of(value) != f32:
                raise no_host_kernel(op, f" with {BY_XDSL[element_type_of(value)].onnx_name} (float only)")
        if quantize and op.precision.value.data not in (0, 1):  # 1: FLOAT, the scale's own type
            raise no_host_kernel(op, f" with 'precision' {op.precision.value.data} (float only)")
        rank, block = len(shape_of(x)), op.block_size.value.data
        if math.prod(shape_of(scale)) == 1 and not block:
            axis = 0
        else:
            axis = normalized_axis(op, op.axis.value.data, rank)
        cls = cpu.QuantizeOp if quantize else cpu.DequantizeOp
        operands = [x, scale] + ([zero_point] if zero_point is not None else [])
        new = create(cls, operands, [op.y.type], axis=int_attr(axis), block_size=int_attr(block))
        self.replace(op, rewriter, [new])


class DynamicQuantizeLinearToCpu(GraphOpLowering):
    """DynamicQuantizeLinear -> cpu.dynamic_quantize (uint8, as ONNX defines it)."""

    ops = (g.DynamicQuantizeLinearOp,)

    def lower(self, op: g.DynamicQuantizeLinearOp, rewriter: PatternRewriter) -> None:
        if element_type_of(op.x) != f32 or element_type_of(op.y) != cpu.UI8:
            raise no_host_kernel(op, " other than float to uint8")
        new = create(cpu.DynamicQuantizeOp, [op.x], [r.type for r in op.results])
        self.replace(op, rewriter, [new], list(new.results))


def _check_int8(op: Operation, values: Sequence[SSAValue]) -> None:
    """The integer kernels take int8 and uint8 tensors only."""
    for value in values:
        if element_type_of(value) not in cpu.INTEGER_PRODUCT_TYPES:
            raise no_host_kernel(op, f" of {BY_XDSL[element_type_of(value)].onnx_name}")


class MatMulIntegerToCpu(GraphOpLowering):
    """MatMulInteger -> cpu.matmul_integer: int8 or uint8 operands, int32 sums."""

    ops = (g.MatMulIntegerOp,)

    def lower(self, op: g.MatMulIntegerOp, rewriter: PatternRewriter) -> None:
        _check_int8(op, (op.A, op.B))
        new = cpu.MatmulIntegerOp.build(operands=[op.A, op.B, op.a_zero_point, op.b_zero_point],
                                        result_types=[op.Y.type])
        self.replace(op, rewriter, [new])


def _conv_integer(op: g.ConvIntegerOp | g.QLinearConvOp, bias: SSAValue | None) -> list[Operation]:
    """The cpu.conv_integer of a ConvInteger or QLinearConv (int8 or uint8), its int32 sums
    the last op's result, in the model's shape. A 1-D conv is the 2-D one of H 1: its X and W
    viewed with a dim of 1 before the last, and its result viewed back."""
    _check_int8(op, (op.x, op.w))
    rank = len(shape_of(op.x))
    if rank not in (3, 4):
        raise no_host_kernel(op, f" in {rank - 2}-D (1-D and 2-D only)")
    strides, dilations, pads = window_params(op, shape_of(op.w)[2:], shape_of(op.x)[2:])
    y = list(shape_of(op.y))
    ops: list[Operation] = []
    x, w = op.x, op.w
    if rank == 3:
        strides, dilations, pads = [1, *strides], [1, *dilations], [0, pads[0], 0, pads[1]]
        for value in (op.x, op.w):
            dims = shape_of(value)
            ops.append(create(cpu.ReshapeOp, [value], [TensorType(element_type_of(value), [*dims[:2], 1, dims[2]])]))
        x, w = ops[0].results[0], ops[1].results[0]
        y = [*y[:2], 1, y[2]]
    ops.append(cpu.ConvIntegerOp.build(operands=[x, w, op.x_zero_point, op.w_zero_point, bias],
                                       result_types=[TensorType(i32, y)], properties=dict(
                                           strides=ints(strides), dilations=ints(dilations), pads=ints(pads),
                                           group=op.group)))
    if rank == 3:
        ops.append(create(cpu.ReshapeOp, [ops[-1].results[0]], [TensorType(i32, shape_of(op.y))]))
        if op.y.name_hint:
            for value, suffix in zip((o.results[0] for o in ops), ("x", "w", "sums_2d")):
                value.name_hint = f"{op.y.name_hint}_{suffix}"
    return ops


class ConvIntegerToCpu(GraphOpLowering):
    """ConvInteger -> cpu.conv_integer (1-D or 2-D, int32 sums)."""

    ops = (g.ConvIntegerOp,)

    def lower(self, op: g.ConvIntegerOp, rewriter: PatternRewriter) -> None:
        self.replace(op, rewriter, _conv_integer(op, None))


class QLinearConvToCpu(GraphOpLowering):
    """QLinearConv (the import makes one with constant weights its QDQ twin, which
    `fuse-host-qdq-convs` runs as one `cpu.qlinear_conv`: this is one with run-time weights) ->
    cpu.conv_integer (int32 sums and bias), then cpu.requantize of the sums viewed as
    [N, C, spatial]: w_scale per row (an output channel), x_scale the same for all."""

    ops = (g.QLinearConvOp,)

    def lower(self, op: g.QLinearConvOp, rewriter: PatternRewriter) -> None:
        _check_int8(op, (op.y,))
        y = shape_of(op.y)
        convolved = _conv_integer(op, op.B)
        sums = convolved[-1].results[0]
        rows = create(cpu.ReshapeOp, [sums], [TensorType(i32, [y[0], y[1], math.prod(y[2:])])])
        requantize = create(cpu.RequantizeOp, [rows.results[0], op.w_scale, op.x_scale, op.y_scale, op.y_zero_point],
                            [TensorType(element_type_of(op.y), shape_of(rows.results[0]))])
        back = create(cpu.ReshapeOp, [requantize.results[0]], [op.y.type])
        if op.y.name_hint:
            for value, suffix in ((sums, "sums"), (rows.results[0], "rows"), (requantize.results[0], "rows_q")):
                value.name_hint = f"{op.y.name_hint}_{suffix}"
        self.replace(op, rewriter, [*convolved, rows, requantize, back])


class QLinearMatMulToCpu(GraphOpLowering):
    """QLinearMatMul -> cpu.matmul_integer (int32 sums), then cpu.requantize to y's scale and
    zero point, as ONNX defines it. float16 and bfloat16 scales (opset 21) are widened to float32
    first: each is exact there, and the requantization multiplier is formed in float32."""

    ops = (g.QLinearMatMulOp,)

    def lower(self, op: g.QLinearMatMulOp, rewriter: PatternRewriter) -> None:
        _check_int8(op, (op.a, op.b, op.y))
        ops: list[Operation] = []
        scales = []
        for value in (op.a_scale, op.b_scale, op.y_scale):
            if element_type_of(value) != f32:
                ops.append(create(cpu.CastOp, [value], [TensorType(f32, shape_of(value))]))
                widened = ops[-1].results[0]
                widened.name_hint = f"{value.name_hint}_f32" if value.name_hint else None
                value = widened
            scales.append(value)
        y = shape_of(op.y)
        sums = cpu.MatmulIntegerOp.build(operands=[op.a, op.b, op.a_zero_point, op.b_zero_point],
                                         result_types=[TensorType(i32, y)])
        sums.results[0].name_hint = f"{op.y.name_hint}_sums" if op.y.name_hint else None
        a_scale, b_scale, y_scale = scales
        requantize = create(cpu.RequantizeOp, [sums.results[0], a_scale, b_scale, y_scale, op.y_zero_point],
                            [op.y.type])
        self.replace(op, rewriter, [*ops, sums, requantize])


def host_kernel_op_types() -> set[str]:
    """The ONNX operators some pattern lowers to a host kernel."""
    return {cls.name.removeprefix("graph.") for pattern in PATTERNS for cls in pattern.ops}


class LoweringsByOpClass(RewritePattern):
    """`lowerings` tried in order, as a greedy applier would, but each op only on those
    whose `ops` it is among: dozens of lowerings, most of them for one or two classes."""

    def __init__(self, lowerings: list[GraphOpLowering]):
        self.lowerings = lowerings
        self.by_class: dict[type[Operation], list[GraphOpLowering]] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        cls = type(op)
        if (candidates := self.by_class.get(cls)) is None:
            candidates = self.by_class[cls] = [p for p in self.lowerings if issubclass(cls, p.ops)]
        for lowering in candidates:
            lowering.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


PATTERNS: tuple[type[GraphOpLowering], ...] = (
    IdentityLikeIsItsInput,
    CastToCpuCast,
    DirectlyMappedToCpuOp,
    ReshapeLikeToCpuReshape,
    MatMulToCpuMatmul,
    ConvToCpuConv,
    ConvTransposeToCpuConvTranspose,
    GemmToCpuGemm,
    ElementwiseBinaryToCpuBinary,
    VariadicElementwiseToCpuBinaryChain,
    ElementwiseUnaryToCpuUnary,
    ClipToCpuClip,
    AxisOpToCpuOp,
    LayerNormalizationToCpuLayerNorm,
    BatchNormalizationToCpuBatchNorm,
    PoolToCpuPool,
    GlobalPoolToCpuGlobalPool,
    ReduceToCpuReduce,
    TransposeToCpuTranspose,
    SliceToCpuSlice,
    SplitToCpuSplit,
    PadToCpuPad,
    ResizeToCpuResize,
    DepthToSpaceToCpuDepthToSpace,
    LogSoftmaxToCpuSoftmax,
    HardmaxToCpuHardmax,
    ArgMaxMinToCpuArgReduce,
    CumulativeToCpuCumulative,
    TopKToCpuTopK,
    RmsNormalizationToCpuRmsNorm,
    GatherElementsToCpuGatherElements,
    TriluToCpuTrilu,
    RangeToCpuRange,
    ActivationToCpuActivation,
    ScatterToCpuScatter,
    RecurrentToCpuRecurrent,
    LinearQuantizationToCpu,
    DynamicQuantizeLinearToCpu,
    MatMulIntegerToCpu,
    QLinearMatMulToCpu,
    ConvIntegerToCpu,
    QLinearConvToCpu,
)


@dataclass(frozen=True)
class LowerToCpuPass(ModulePass):
    """Lower every host `graph` op to the `cpu` dialect; runs after partitioning.

    Ops inside `mrvl.subgraph`s are not touched. Unused host ops are erased on the way
    (the rewrite driver removes dead pure ops). A `graph` op with no host kernel
    (TopK, graph.custom, ...) is an error naming its node.
    """

    name = "lower-to-cpu"

    allow_unsupported: bool = False
    """Keep graph ops that have no host kernel instead of failing (for inspecting partial
    lowerings; the C emitter rejects the result)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier([LoweringsByOpClass([p() for p in PATTERNS])]))
        for region in host_regions(op):
            walker.rewrite_region(region)
        if self.allow_unsupported:
            return
        for nested in op.walk():
            if nested.name.startswith("graph.") and nested.name not in KEPT_GRAPH_OPS and on_host(nested):
                raise no_host_kernel(nested)
