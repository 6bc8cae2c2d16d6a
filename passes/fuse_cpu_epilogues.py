"""fuse-cpu-epilogues: fold the host ops after a `cpu.conv` or `cpu.matmul` into it.

An epilogue is an op that reads a conv's result when that is all the result is used for; the
conv then does its work as it stores its output, which is written once instead of twice:

    cpu.batch_norm(cpu.conv(x, w, b))          -> cpu.conv(x, w', b')   (folded at compile time)
    cpu.binary add(cpu.conv(x, w, b), r)       -> cpu.conv(x, w, b) residual r
    cpu.unary relu / cpu.clip(cpu.conv(...))   -> cpu.conv(...) {min, max}
    leaky_relu / sigmoid / hard_sigmoid / hard_swish / gelu / mish(cpu.conv(...)),
    x * sigmoid(x), x * tanh(softplus(x)) with x = cpu.conv(...)
                                               -> cpu.conv(...) {activation, alpha, beta}
    cpu.binary prelu(cpu.conv(...), a), a constant per output channel (or a scalar)
                                               -> cpu.conv(...) slope a' {activation = prelu}
    cpu.conv(...) * s + t, s and t constants per output channel -> cpu.conv(...) scale s shift t

A transposed conv takes a batch norm, a clamp and an activation the same way (DBNet's and
U-Net's upsampling `relu(bn(conv_transpose(x)))`).

They fold in the order ONNX computes them (a batch norm, then a residual, then a clamp, then
an activation, then a per-channel scale and shift), so `relu(conv + r)` folds and
`relu(conv) + r` does not. A matmul takes a linear layer's bias and the same clamps and
activations, in that order:

    cpu.binary add(cpu.matmul(a, w), c), c constant along the last dim -> cpu.matmul(a, w) bias c
    cpu.unary relu / cpu.clip / activations (cpu.matmul(...)) -> cpu.matmul(...) {min, max, activation}
    cpu.binary prelu(cpu.matmul(...), a), a constant along the last dim -> cpu.matmul(...) slope a'

A PRelu is an activation whose slope is an operand, one per channel (the conv's and
transposed conv's dim 1, the matmul's last dim), in the weight store: a slope that varies
along another dim stays a `cpu.binary prelu` of its own.

A GELU written out (x * 0.5 * (1 + erf(x / sqrt(2))), as exported before ONNX had Gelu)
becomes one cpu.unary gelu first, which folds like any activation. The fused op's location
names every ONNX node it stands for.
Runs after `lower-to-cpu`; ops inside `mrvl.subgraph`s are not
touched. A new epilogue is one more pattern in `EPILOGUES`.
"""

from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseResourceAttr, ModuleOp, TensorType, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

import mrvl_dialect.cpu as cpu
from mrvl_dialect.cpu import element_type_of, shape_of
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, module_of
from mrvl_dialect.locations import fused_location
from mrvl_dialect.weights import WeightStore
from mrvl.passes.lower_to_cpu import float_attr, host_regions


def own_properties(op: Operation) -> dict[str, Attribute]:
    """The properties of `op` that define it (not its operand segments)."""
    return {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}


OpT = TypeVar("OpT", bound=Operation)


def fused_op(op: Operation, epilogue: Operation, fused: OpT) -> OpT:
    """`fused`, which does the work of `op` (a conv or matmul) and then `epilogue`, named after both."""
    fused.location = fused_location([op.location, epilogue.location])
    fused.attributes |= op.attributes
    return fused


def sole_use_conv(value: SSAValue, residual_ok: bool = False, clamp_ok: bool = False,
                  uses: int = 1) -> cpu.ConvOp | None:
    """The conv defining `value` when `value` has no more than `uses` uses and no activation
    (nor, unless `clamp_ok`, clamp; nor, unless `residual_ok`, residual) is fused into it yet:
    an epilogue fuses only after those."""
    conv = value.owner
    if (not isinstance(conv, cpu.ConvOp) or value.uses.get_length() != uses or conv.activation is not None
            or conv.S is not None or conv.T is not None):
        return None
    if conv.clamp() and not clamp_ok:
        return None
    return conv if residual_ok or conv.R is None else None


def batch_norm_factors(bn: cpu.BatchNormOp, module: ModuleOp) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(s, mean, beta) of an inference BatchNormalization with constant statistics, s = scale /
    sqrt(var + epsilon) in float32: it computes (x - mean) * s + beta per channel."""
    stats = [constant_value(v, module) for v in (bn.scale, bn.B, bn.mean, bn.var)]
    if any(v is None for v in stats):
        return None
    scale, beta, mean, var = (np.asarray(v, np.float32) for v in stats)
    return scale / np.sqrt(var + np.float32(bn.epsilon.value.data)), mean, beta


def weight_constants(module: ModuleOp, named: list[tuple[str, np.ndarray]]) -> list[ConstantOp]:
    """A `graph.constant` in the module's weight store for each (name, array)."""
    store, constants = WeightStore.of(module), []
    for name, array in named:
        constant = ConstantOp(DenseResourceAttr.from_params(store.add(name, array), TensorType(f32, array.shape)))
        constant.results[0].name_hint = name
        constants.append(constant)
    return constants


class BatchNormIntoConv(RewritePattern):
    """A BatchNormalization of a conv's (or transposed conv's) result, when that is all the
    result is used for, is the conv with its weights and bias scaled and shifted per output
    channel (folded at compile time with numpy, as onnxruntime folds them).

    W'[m] = W[m] * s[m] and B'[m] = (B[m] - mean[m]) * s[m] + beta[m], s = scale / sqrt(var +
    epsilon), in float32 (a transposed conv's output channels are W's dim 1, per group). A
    channels-last batch norm folds into a channels-last transposed conv only. The new weights
    join the module's weight store."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.BatchNormOp):
            return
        conv = op.X.owner
        if isinstance(conv, cpu.ConvOp):
            if sole_use_conv(conv.Y) is None:
                return
        elif not isinstance(conv, cpu.ConvTransposeOp) or sole_use_conv_transpose(conv.Y) is None:
            return
        conv_channels_last = isinstance(conv, cpu.ConvTransposeOp) and conv.channels_last is not None
        if element_type_of(conv.Y) != f32 or (op.channels_last is not None) != conv_channels_last:
            return  # the batch norm's channels are another dim of the result than the conv's
        module = module_of(op)
        w = constant_value(conv.W, module)
        channels = shape_of(op.scale)[0]
        b = constant_value(conv.B, module) if conv.B is not None else np.zeros(channels, np.float32)
        if w is None or b is None or (factors := batch_norm_factors(op, module)) is None:
            return
        s, mean, beta = factors
        if isinstance(conv, cpu.ConvOp):
            w = w * s.reshape(-1, *[1] * (w.ndim - 1))
        else:  # (C, M / group, kernel...): group g's input channels feed its output channels
            group = conv.group.value.data
            w = (w.reshape(group, -1, *w.shape[1:]) * s.reshape(group, 1, -1, *[1] * (w.ndim - 2))).reshape(w.shape)
        b = ((b - mean) * s + beta).astype(np.float32)
        hints = [f"{value.name_hint or 'weight'}_bn" for value in (conv.W, conv.B if conv.B is not None else op.B)]
        constants = weight_constants(module, [(hints[0], w.astype(np.float32)), (hints[1], b)])
        operands = [conv.X, *(c.results[0] for c in constants)]
        if isinstance(conv, cpu.ConvOp):
            fused = cpu.ConvOp.of(*operands, op.Y.type, **own_properties(conv))
        else:
            fused = cpu.ConvTransposeOp.of(*operands, op.Y.type, **own_properties(conv))
        rewriter.insert([*constants, fused_op(conv, op, fused)], InsertPoint.before(conv))
        rewriter.replace(op, [], [fused.results[0]])
        rewriter.erase(conv)


class ResidualAddIntoConv(RewritePattern):
    """An Add of a conv's result and another tensor of the result's type, when the Add is all
    the conv's result is used for, is the conv with that tensor as its `residual`, added as
    the output is stored (a ResNet block's `bn(conv(x)) + identity`). The fused conv takes
    the Add's place, where the other tensor is defined."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.BinaryOp) or op.kind.data != cpu.BinaryKind.ADD:
            return
        if not op.lhs.type == op.rhs.type == op.result.type or element_type_of(op.result) != f32:
            return
        for value, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if (conv := sole_use_conv(value)) is not None:
                fused = cpu.ConvOp.of(conv.X, conv.W, conv.B, op.result.type, residual=other, **own_properties(conv))
                rewriter.replace(op, fused_op(conv, op, fused))
                rewriter.erase(conv)
                return


class ClampIntoConv(RewritePattern):
    """A Relu (clamp at 0 below) or Clip of a conv's result, when that is all the result is
    used for, is the conv clamping its output as it is stored."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (bounds := clamp_of(op)) is None or (conv := sole_use_conv(op.operands[0], residual_ok=True)) is None:
            return
        fused = cpu.ConvOp.of(conv.X, conv.W, conv.B, op.output.type, residual=conv.R,
                              **own_properties(conv), **bounds)
        rewriter.replace(op, fused_op(conv, op, fused))
        rewriter.erase(conv)


class ActivationIntoConv(RewritePattern):
    """A LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Gelu or Mish of a conv's result, or the
    SiLU `Mul(x, Sigmoid(x))` or the Mish `Mul(x, Tanh(Softplus(x)))` of it (as exporters before
    opset 18 write YOLOv4's), when that is all the result is used for, is the conv applying
    the function as its output is stored (after its residual and clamp), instead of another
    pass over memory."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (activation := activation_of(op)) is None:
            return
        kind, value, params, erase = activation
        readers = 1 + sum(value in dead.operands for dead in erase)  # the op and the erased ops reading x
        conv = sole_use_conv(value, residual_ok=True, clamp_ok=True, uses=readers)
        if conv is None:
            return
        result = op.results[0]
        properties = own_properties(conv) | {"activation": cpu.EpilogueKindAttr(kind)} | params
        fused = fused_op(conv, op, cpu.ConvOp.of(conv.X, conv.W, conv.B, result.type, residual=conv.R,
                                                 **properties))
        if erase:
            fused.location = fused_location([fused.location, *(dead.location for dead in erase)])
        rewriter.replace(op, fused)
        for dead in erase:
            rewriter.erase(dead)
        rewriter.erase(conv)


_UNARY_EPILOGUES = {cpu.UnaryKind.SIGMOID: cpu.EpilogueKind.SIGMOID, cpu.UnaryKind.GELU: cpu.EpilogueKind.GELU,
                    cpu.UnaryKind.GELU_TANH: cpu.EpilogueKind.GELU_TANH, cpu.UnaryKind.MISH: cpu.EpilogueKind.MISH}
"""The cpu.unary kinds an epilogue applies."""


def activation_of(op: Operation) -> tuple[cpu.EpilogueKind, SSAValue, dict[str, Attribute], list[Operation]] | None:
    """When `op` is a float32 activation an epilogue can apply (LeakyRelu, Sigmoid, HardSigmoid,
    HardSwish, Gelu, Mish, the SiLU `Mul(x, Sigmoid(x))` or the Mish `Mul(x, Tanh(Softplus(x)))`)
    whose result has its input's type: its kind, its input, its alpha and beta, and the other ops
    it takes the place of (the SiLU's Sigmoid, the Mish's Tanh and Softplus)."""
    params: dict[str, Attribute] = {}
    erase: list[Operation] = []
    if isinstance(op, cpu.LeakyReluOp):
        kind, value, params = cpu.EpilogueKind.LEAKY_RELU, op.input, {"alpha": op.alpha}
    elif isinstance(op, cpu.HardSigmoidOp):
        kind, value, params = cpu.EpilogueKind.HARD_SIGMOID, op.input, {"alpha": op.alpha, "beta": op.beta}
    elif isinstance(op, cpu.HardSwishOp):
        kind, value = cpu.EpilogueKind.HARD_SWISH, op.input
    elif isinstance(op, cpu.UnaryOp) and op.kind.data in _UNARY_EPILOGUES:
        kind, value = _UNARY_EPILOGUES[op.kind.data], op.input
    elif (silu := silu_input(op)) is not None:
        kind, value, erase = cpu.EpilogueKind.SILU, silu[0], [silu[1]]
    elif (mish := mish_input(op)) is not None:
        kind, value, erase = cpu.EpilogueKind.MISH, mish[0], list(mish[1:])
    else:
        return None
    if element_type_of(op.results[0]) != f32 or value.type != op.results[0].type:
        return None
    return kind, value, params, erase


def clamp_of(op: Operation) -> dict[str, Attribute] | None:
    """The `min` and `max` of a float32 Relu (min 0) or Clip `op`, or None."""
    if isinstance(op, cpu.UnaryOp) and op.kind.data == cpu.UnaryKind.RELU:
        bounds = {"min": float_attr(0.0)}
    elif isinstance(op, cpu.ClipOp):
        bounds = {"min": op.min, "max": op.max}
    else:
        return None
    return bounds if element_type_of(op.results[0]) == f32 else None


def sole_use_matmul(value: SSAValue, clamp_ok: bool = False, uses: int = 1) -> cpu.MatmulOp | None:
    """The float32 matmul defining `value` when `value` has no more than `uses` uses and no
    activation (nor, unless `clamp_ok`, clamp) is fused into it yet."""
    matmul = value.owner
    if (not isinstance(matmul, cpu.MatmulOp) or value.uses.get_length() != uses or matmul.activation is not None
            or element_type_of(value) != f32):
        return None
    return matmul if clamp_ok or matmul.clamp() is None else None


def sole_use_conv_transpose(value: SSAValue, clamp_ok: bool = False, uses: int = 1) -> cpu.ConvTransposeOp | None:
    """As `sole_use_matmul`, for a transposed conv (which takes a batch norm, a clamp and an
    activation)."""
    conv = value.owner
    if (not isinstance(conv, cpu.ConvTransposeOp) or value.uses.get_length() != uses or conv.activation is not None
            or element_type_of(value) != f32):
        return None
    return conv if clamp_ok or conv.clamp() is None else None


def with_epilogue(op: cpu.MatmulOp | cpu.ConvTransposeOp, result: Attribute, slope: SSAValue | None = None,
                  **properties: Attribute) -> cpu.MatmulOp | cpu.ConvTransposeOp:
    """`op` (its operands and properties) with the epilogue `properties` (and a PRelu's
    `slope`) added."""
    if isinstance(op, cpu.MatmulOp):
        return cpu.MatmulOp.of(op.A, op.B, result, bias=op.C, slope=slope, **own_properties(op), **properties)
    return cpu.ConvTransposeOp.of(op.X, op.W, op.B, result, slope=slope, **(own_properties(op) | properties))


def scalar_constant(value: SSAValue) -> float | None:
    """The one value of a float32 constant with a single element, or None."""
    array = constant_value(value)
    if array is None or element_type_of(value) != f32 or np.size(array) != 1:
        return None
    return float(np.asarray(array).reshape(()))


def binary_with_constant(value: SSAValue, kind: cpu.BinaryKind, constant: float) -> SSAValue | None:
    """x when `value`, used only once, is `kind`(x, c) or `kind`(c, x) (only x / c for a
    division) with c a scalar constant within 1e-6 of `constant`."""
    op = value.owner
    if not isinstance(op, cpu.BinaryOp) or op.kind.data != kind or not value.has_one_use():
        return None
    orders = ((op.lhs, op.rhs),) if kind == cpu.BinaryKind.DIV else ((op.lhs, op.rhs), (op.rhs, op.lhs))
    for x, c in orders:
        if (number := scalar_constant(c)) is not None and abs(number - constant) <= 1e-6 * abs(constant):
            return x
    return None


def erf_gelu_parts(value: SSAValue) -> tuple[SSAValue, list[Operation]] | None:
    """(x, its ops) when `value` (used only once) is 1 + erf(x / sqrt(2)) (or erf(x *
    (1 / sqrt(2))), either order of the Add)."""
    erf = binary_with_constant(value, cpu.BinaryKind.ADD, 1.0)
    if erf is None or not isinstance(unary := erf.owner, cpu.UnaryOp) or unary.kind.data != cpu.UnaryKind.ERF:
        return None
    if not erf.has_one_use():
        return None
    x = binary_with_constant(unary.input, cpu.BinaryKind.DIV, float(np.float32(np.sqrt(2))))
    if x is None:
        x = binary_with_constant(unary.input, cpu.BinaryKind.MUL, float(np.float32(1 / np.sqrt(2))))
    return None if x is None else (x, [value.owner, unary, unary.input.owner])


class ErfGeluToGelu(RewritePattern):
    """GELU written out as ONNX before opset 20 had Gelu (PyTorch's export): x * 0.5 * (1 +
    erf(x / sqrt(2))), the 0.5 applied to x, to the product or to (1 + erf(...)), is one
    cpu.unary gelu, which then folds into the conv or matmul before it like any activation."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.BinaryOp) or op.kind.data != cpu.BinaryKind.MUL or element_type_of(op.result) != f32:
            return
        mul = cpu.BinaryKind.MUL
        for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            # (x * (1 + erf(x / sqrt(2)))) * 0.5
            half = scalar_constant(b)
            if (half is not None and abs(half - 0.5) <= 5e-7 and a.has_one_use() and isinstance(a.owner, cpu.BinaryOp)
                    and a.owner.kind.data == mul):
                product = a.owner
                for x, gate in ((product.lhs, product.rhs), (product.rhs, product.lhs)):
                    if (parts := erf_gelu_parts(gate)) is not None and parts[0] == x:
                        self.replace(op, x, [product, *parts[1]], rewriter)
                        return
            # (x * 0.5) * (1 + erf(x / sqrt(2)))
            x = binary_with_constant(a, mul, 0.5)
            if x is not None and (parts := erf_gelu_parts(b)) is not None and parts[0] == x:
                self.replace(op, x, [a.owner, *parts[1]], rewriter)  # type: ignore[list-item]
                return
            # x * ((1 + erf(x / sqrt(2))) * 0.5)
            gate = binary_with_constant(b, mul, 0.5)
            if gate is not None and (parts := erf_gelu_parts(gate)) is not None and parts[0] == a:
                self.replace(op, a, [b.owner, *parts[1]], rewriter)  # type: ignore[list-item]
                return

    @staticmethod
    def replace(op: cpu.BinaryOp, x: SSAValue, dead: list[Operation], rewriter: PatternRewriter) -> None:
        gelu = cpu.UnaryOp.create(operands=[x], result_types=[op.result.type],
                                  properties={"kind": cpu.UnaryKindAttr(cpu.UnaryKind.GELU)})
        gelu.location = fused_location([op.location, *(d.location for d in dead)])
        rewriter.replace(op, gelu)
        for d in dead:
            rewriter.erase(d)


class BiasAddIntoMatmul(RewritePattern):
    """An Add of a matmul's result and a constant that varies along the last dim only (a
    linear layer's bias: shape (N), (1, N), ...), when that is all the result is used for, is
    the matmul with that constant (as (N)) as its `bias`, where its sums start (onnxruntime's
    MatMulAddFusion)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.BinaryOp) or op.kind.data != cpu.BinaryKind.ADD:
            return
        for value, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            matmul = sole_use_matmul(value)
            if matmul is None or matmul.C is not None or matmul.clamp() is not None or value.type != op.result.type:
                continue
            shape, n = shape_of(other), shape_of(value)[-1]
            array = constant_value(other)
            if (array is None or element_type_of(other) != f32 or len(shape) > len(shape_of(value))
                    or list(shape[-1:]) != [n] or any(d != 1 for d in shape[:-1])):
                continue
            new_ops: list[Operation] = []
            bias = other
            if len(shape) != 1:
                vector = np.ascontiguousarray(np.asarray(array, np.float32).reshape(n))
                constant = weight_vector(op, f"{matmul.Y.name_hint or 'matmul'}_bias", vector)
                new_ops.append(constant)
                bias = constant.results[0]
            fused = fused_op(matmul, op, cpu.MatmulOp.of(matmul.A, matmul.B, op.result.type, bias=bias,
                                                         **own_properties(matmul)))
            rewriter.insert(new_ops, InsertPoint.before(matmul))
            rewriter.replace(op, fused)
            rewriter.erase(matmul)
            return


class ClampIntoMatmulOrConvTranspose(RewritePattern):
    """A Relu or Clip of a matmul's (or transposed conv's) result, when that is all the result
    is used for, is the op clamping its result (after its bias)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (bounds := clamp_of(op)) is None:
            return
        value = op.operands[0]
        if (producer := sole_use_matmul(value) or sole_use_conv_transpose(value)) is None:
            return
        rewriter.replace(op, fused_op(producer, op, with_epilogue(producer, op.results[0].type, **bounds)))
        rewriter.erase(producer)


class ActivationIntoMatmulOrConvTranspose(RewritePattern):
    """An activation of a matmul's (or transposed conv's) result (as `ActivationIntoConv`
    takes them), when that is all the result is used for, is the op applying it (after its
    bias and clamp)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (activation := activation_of(op)) is None:
            return
        kind, value, params, erase = activation
        readers = 1 + sum(value in dead.operands for dead in erase)
        producer = (sole_use_matmul(value, clamp_ok=True, uses=readers)
                    or sole_use_conv_transpose(value, clamp_ok=True, uses=readers))
        if producer is None:
            return
        fused = fused_op(producer, op, with_epilogue(producer, op.results[0].type,
                                                     activation=cpu.EpilogueKindAttr(kind), **params))
        if erase:
            fused.location = fused_location([fused.location, erase[0].location])
        rewriter.replace(op, fused)
        for dead in erase:
            rewriter.erase(dead)
        rewriter.erase(producer)


def channel_vector(value: SSAValue, result: SSAValue, axis: int = 1) -> np.ndarray | None:
    """The float32 constant `value` as one value per channel (dim `axis`) of `result`, when it
    broadcasts to `result` varying along that dim only (shapes (M, 1, 1), (1, M, 1, 1), (1), ...)."""
    array = constant_value(value)
    shape = shape_of(result)
    if array is None or element_type_of(value) != f32 or np.ndim(array) > len(shape) or len(shape) < 2:
        return None
    axis %= len(shape)
    array = np.asarray(array, np.float32).reshape((1,) * (len(shape) - np.ndim(array)) + np.shape(array))
    if any(d != 1 for i, d in enumerate(array.shape) if i != axis) or array.shape[axis] not in (1, shape[axis]):
        return None
    return np.ascontiguousarray(np.broadcast_to(array.reshape(-1), (shape[axis],)))


def weight_vector(op: Operation, name: str, vector: np.ndarray) -> ConstantOp:
    """A `graph.constant` of `vector` named `name` in the weight store of `op`'s module."""
    constant = ConstantOp(DenseResourceAttr.from_params(WeightStore.of(module_of(op)).add(name, vector),
                                                        TensorType(f32, vector.shape)))
    constant.results[0].name_hint = name
    return constant


def prelu_of(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    """(x, slope) when `op` is a float32 PRelu whose result has x's type."""
    if (not isinstance(op, cpu.BinaryOp) or op.kind.data != cpu.BinaryKind.PRELU
            or element_type_of(op.result) != f32 or op.lhs.type != op.result.type):
        return None
    return op.lhs, op.rhs


class PReluIntoConv(RewritePattern):
    """A PRelu of a conv's result whose slope is a constant per output channel (shapes (M, 1,
    1), (1, M, 1, 1), (1), a scalar: keras2onnx's MTCNN), when that is all the result is used
    for, is the conv applying it where an activation goes (after its residual and clamp,
    before its scale and shift): the slope becomes an (M) vector in the weight store. A slope
    that varies along other dims, or is not a constant, stays a `cpu.binary prelu`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (prelu := prelu_of(op)) is None:
            return
        x, slope = prelu
        conv = sole_use_conv(x, residual_ok=True, clamp_ok=True)
        if conv is None or (vector := channel_vector(slope, x)) is None:
            return
        constant = weight_vector(op, f"{conv.Y.name_hint or 'conv'}_slope", vector)
        properties = own_properties(conv) | {"activation": cpu.EpilogueKindAttr(cpu.EpilogueKind.PRELU)}
        fused = fused_op(conv, op, cpu.ConvOp.of(conv.X, conv.W, conv.B, op.results[0].type, residual=conv.R,
                                                 slope=constant.results[0], **properties))
        rewriter.insert(constant, InsertPoint.before(conv))
        rewriter.replace(op, fused)
        rewriter.erase(conv)


class PReluIntoMatmulOrConvTranspose(RewritePattern):
    """A PRelu of a matmul's result whose slope is a constant per column of its last dim
    (shapes (N), (1, N), a scalar: a dense layer's PRelu), or of a transposed conv's result
    whose slope is a constant per output channel, when that is all the result is used for, is
    the op applying it (after its bias and clamp), as `PReluIntoConv`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (prelu := prelu_of(op)) is None:
            return
        x, slope = prelu
        if (producer := sole_use_matmul(x, clamp_ok=True) or sole_use_conv_transpose(x, clamp_ok=True)) is None:
            return
        channel_dim = -1 if isinstance(producer, cpu.MatmulOp) or producer.channels_last is not None else 1
        if (vector := channel_vector(slope, x, channel_dim)) is None:
            return
        constant = weight_vector(op, f"{producer.Y.name_hint or producer.name.split('.')[-1]}_slope", vector)
        fused = fused_op(producer, op, with_epilogue(producer, op.results[0].type, slope=constant.results[0],
                                                     activation=cpu.EpilogueKindAttr(cpu.EpilogueKind.PRELU)))
        rewriter.insert(constant, InsertPoint.before(producer))
        rewriter.replace(op, fused)
        rewriter.erase(producer)


class AffineIntoConv(RewritePattern):
    """A Mul (then an Add) of a conv's result by a constant per output channel, when that is
    all the result is used for, is the conv scaling (shifting) each channel as it stores its
    output, after its activation: the constants become (M) vectors in the weight store. A Mul
    after the shift does not fold (the conv computes `act(...) * scale + shift`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.BinaryOp) or op.kind.data not in (cpu.BinaryKind.MUL, cpu.BinaryKind.ADD):
            return
        is_mul = op.kind.data == cpu.BinaryKind.MUL
        for value, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            conv = value.owner
            if (not isinstance(conv, cpu.ConvOp) or not value.has_one_use() or value.type != op.result.type
                    or element_type_of(value) != f32 or conv.T is not None or (is_mul and conv.S is not None)):
                continue
            if (vector := channel_vector(other, value)) is None:
                continue
            constant = weight_vector(op, f"{conv.Y.name_hint or 'conv'}_{'scale' if is_mul else 'shift'}", vector)
            scale, shift = (constant.results[0], None) if is_mul else (conv.S, constant.results[0])
            fused = fused_op(conv, op, cpu.ConvOp.of(conv.X, conv.W, conv.B, op.result.type, residual=conv.R,
                                                     slope=conv.slope, scale=scale, shift=shift,
                                                     **own_properties(conv)))
            rewriter.insert(constant, InsertPoint.before(conv))
            rewriter.replace(op, fused)
            rewriter.erase(conv)
            return


def silu_input(op: Operation) -> tuple[SSAValue, Operation] | None:
    """(x, the Sigmoid) when `op` is Mul(x, Sigmoid(x)) (either order) and the Sigmoid has
    no other use."""
    if not isinstance(op, cpu.BinaryOp) or op.kind.data != cpu.BinaryKind.MUL:
        return None
    for x, s in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        sigmoid = s.owner
        if (isinstance(sigmoid, cpu.UnaryOp) and sigmoid.kind.data == cpu.UnaryKind.SIGMOID
                and sigmoid.input == x and s.has_one_use()):
            return x, sigmoid
    return None


def mish_input(op: Operation) -> tuple[SSAValue, Operation, Operation] | None:
    """(x, the Tanh, the Softplus) when `op` is Mul(x, Tanh(Softplus(x))) (either order) and
    the Tanh and Softplus have no other use."""
    if not isinstance(op, cpu.BinaryOp) or op.kind.data != cpu.BinaryKind.MUL:
        return None
    for x, t in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        tanh = t.owner
        if not (isinstance(tanh, cpu.UnaryOp) and tanh.kind.data == cpu.UnaryKind.TANH and t.has_one_use()):
            continue
        softplus = tanh.input.owner
        if (isinstance(softplus, cpu.UnaryOp) and softplus.kind.data == cpu.UnaryKind.SOFTPLUS
                and softplus.input == x and tanh.input.has_one_use()):
            return x, tanh, softplus
    return None


EPILOGUES: tuple[RewritePattern, ...] = (ErfGeluToGelu(), BatchNormIntoConv(), ResidualAddIntoConv(),
                                         ClampIntoConv(), ActivationIntoConv(), PReluIntoConv(), AffineIntoConv(),
                                         BiasAddIntoMatmul(), ClampIntoMatmulOrConvTranspose(),
                                         ActivationIntoMatmulOrConvTranspose(), PReluIntoMatmulOrConvTranspose())
"""The epilogue patterns, applied together until none matches."""


@dataclass(frozen=True)
class FuseCpuEpiloguesPass(ModulePass):
    """Fold batch norms, residual Adds, Relu/Clip clamps, activations (LeakyRelu, Sigmoid,
    SiLU, HardSigmoid, HardSwish, Gelu, Mish, PRelu with a slope per channel) and per-channel
    scales and shifts into the `cpu.conv` before them, bias Adds, clamps and activations into
    the `cpu.matmul` before them, and batch norms, clamps and activations into the
    `cpu.conv_transpose` before them."""

    name = "fuse-cpu-epilogues"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(EPILOGUES)))
        for region in host_regions(op):
            walker.rewrite_region(region)
