"""fuse-cpu-epilogues: fold the host ops after a `cpu.conv` into it.

An epilogue is an op that reads a conv's result when that is all the result is used for; the
conv then does its work as it stores its output, which is written once instead of twice:

    cpu.batch_norm(cpu.conv(x, w, b))          -> cpu.conv(x, w', b')   (folded at compile time)
    cpu.binary add(cpu.conv(x, w, b), r)       -> cpu.conv(x, w, b) residual r
    cpu.unary relu / cpu.clip(cpu.conv(...))   -> cpu.conv(...) {min, max}
    leaky_relu / sigmoid / hard_sigmoid / hard_swish / mish(cpu.conv(...)),
    x * sigmoid(x), x * tanh(softplus(x)) with x = cpu.conv(...)
                                               -> cpu.conv(...) {activation, alpha, beta}
    cpu.conv(...) * s + t, s and t constants per output channel -> cpu.conv(...) scale s shift t

They fold in the order ONNX computes them (a batch norm, then a residual, then a clamp, then
an activation, then a per-channel scale and shift), so `relu(conv + r)` folds and
`relu(conv) + r` does not. The fused conv's location names every ONNX node it stands for.
Runs after `lower-to-cpu`; ops inside `mrvl.subgraph`s are not
touched. A new epilogue is one more pattern in `EPILOGUES`.
"""

from dataclasses import dataclass

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
from mrvl.passes.lower_to_cpu import SUBGRAPH_OP, float_attr


def conv_properties(conv: cpu.ConvOp) -> dict[str, Attribute]:
    """The properties of `conv` that define it (not its operand segments)."""
    return {k: v for k, v in conv.properties.items() if k != "operandSegmentSizes"}


def fused_conv(conv: cpu.ConvOp, epilogue: Operation, fused: cpu.ConvOp) -> cpu.ConvOp:
    """`fused`, which does the work of `conv` and then `epilogue`, named after both."""
    fused.location = fused_location([conv.location, epilogue.location])
    fused.attributes |= conv.attributes
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


class BatchNormIntoConv(RewritePattern):
    """A BatchNormalization of a conv's result, when that is all the result is used for, is
    the conv with its weights and bias scaled and shifted per output channel (folded at compile
    time with numpy, as onnxruntime folds them).

    W'[m] = W[m] * s[m] and B'[m] = (B[m] - mean[m]) * s[m] + beta[m], s = scale / sqrt(var +
    epsilon), in float32. The new weights join the module's weight store."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, cpu.BatchNormOp) or not isinstance(conv := op.X.owner, cpu.ConvOp):
            return
        if sole_use_conv(conv.Y) is None or element_type_of(conv.Y) != f32:
            return
        module = module_of(op)
        w = constant_value(conv.W, module)
        b = constant_value(conv.B, module) if conv.B is not None else np.zeros(shape_of(conv.W)[0], np.float32)
        stats = [constant_value(v, module) for v in (op.scale, op.B, op.mean, op.var)]
        if w is None or b is None or any(v is None for v in stats):
            return
        scale, beta, mean, var = (np.asarray(v, np.float32) for v in stats)
        s = scale / np.sqrt(var + np.float32(op.epsilon.value.data))
        w = (w * s.reshape(-1, *[1] * (w.ndim - 1))).astype(np.float32)
        b = ((b - mean) * s + beta).astype(np.float32)
        store = WeightStore.of(module)
        new_ops: list[Operation] = []
        operands = [conv.X]
        for array, value in ((w, conv.W), (b, conv.B if conv.B is not None else op.B)):
            constant = ConstantOp(DenseResourceAttr.from_params(
                store.add(f"{value.name_hint or 'weight'}_bn", array), TensorType(f32, array.shape)))
            constant.results[0].name_hint = f"{value.name_hint or 'weight'}_bn"
            new_ops.append(constant)
            operands.append(constant.results[0])
        new_ops.append(fused_conv(conv, op, cpu.ConvOp.of(*operands, op.Y.type, **conv_properties(conv))))
        rewriter.insert(new_ops, InsertPoint.before(conv))
        rewriter.replace(op, [], [new_ops[-1].results[0]])
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
                fused = cpu.ConvOp.of(conv.X, conv.W, conv.B, op.result.type, residual=other, **conv_properties(conv))
                rewriter.replace(op, fused_conv(conv, op, fused))
                rewriter.erase(conv)
                return


class ClampIntoConv(RewritePattern):
    """A Relu (clamp at 0 below) or Clip of a conv's result, when that is all the result is
    used for, is the conv clamping its output as it is stored."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, cpu.UnaryOp) and op.kind.data == cpu.UnaryKind.RELU:
            bounds = {"min": float_attr(0.0)}
        elif isinstance(op, cpu.ClipOp):
            bounds = {"min": op.min, "max": op.max}
        else:
            return
        if element_type_of(op.output) != f32 or (conv := sole_use_conv(op.input, residual_ok=True)) is None:
            return
        fused = cpu.ConvOp.of(conv.X, conv.W, conv.B, op.output.type, residual=conv.R,
                              **conv_properties(conv), **bounds)
        rewriter.replace(op, fused_conv(conv, op, fused))
        rewriter.erase(conv)


class ActivationIntoConv(RewritePattern):
    """A LeakyRelu, Sigmoid, HardSigmoid, HardSwish or Mish of a conv's result, or the SiLU
    `Mul(x, Sigmoid(x))` or the Mish `Mul(x, Tanh(Softplus(x)))` of it (as exporters before
    opset 18 write YOLOv4's), when that is all the result is used for, is the conv applying
    the function as its output is stored (after its residual and clamp), instead of another
    pass over memory."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        params: dict[str, Attribute] = {}
        erase: list[Operation] = []
        if isinstance(op, cpu.LeakyReluOp):
            kind, value, params = cpu.EpilogueKind.LEAKY_RELU, op.input, {"alpha": op.alpha}
        elif isinstance(op, cpu.HardSigmoidOp):
            kind, value, params = cpu.EpilogueKind.HARD_SIGMOID, op.input, {"alpha": op.alpha, "beta": op.beta}
        elif isinstance(op, cpu.HardSwishOp):
            kind, value = cpu.EpilogueKind.HARD_SWISH, op.input
        elif isinstance(op, cpu.UnaryOp) and op.kind.data == cpu.UnaryKind.SIGMOID:
            kind, value = cpu.EpilogueKind.SIGMOID, op.input
        elif isinstance(op, cpu.UnaryOp) and op.kind.data == cpu.UnaryKind.MISH:
            kind, value = cpu.EpilogueKind.MISH, op.input
        elif (silu := silu_input(op)) is not None:
            kind, value, erase = cpu.EpilogueKind.SILU, silu[0], [silu[1]]
        elif (mish := mish_input(op)) is not None:
            kind, value, erase = cpu.EpilogueKind.MISH, mish[0], list(mish[1:])
        else:
            return
        result = op.results[0]
        if element_type_of(result) != f32 or value.type != result.type:
            return
        readers = 1 + sum(value in dead.operands for dead in erase)  # the op and the erased ops reading x
        conv = sole_use_conv(value, residual_ok=True, clamp_ok=True, uses=readers)
        if conv is None:
            return
        properties = conv_properties(conv) | {"activation": cpu.EpilogueKindAttr(kind)} | params
        fused = fused_conv(conv, op, cpu.ConvOp.of(conv.X, conv.W, conv.B, result.type, residual=conv.R,
                                                   **properties))
        if erase:
            fused.location = fused_location([fused.location, *(dead.location for dead in erase)])
        rewriter.replace(op, fused)
        for dead in erase:
            rewriter.erase(dead)
        rewriter.erase(conv)


def channel_vector(value: SSAValue, result: SSAValue) -> np.ndarray | None:
    """The float32 constant `value` as one value per channel (dim 1) of `result`, when it
    broadcasts to `result` varying along that dim only (shapes (M, 1, 1), (1, M, 1, 1), (1), ...)."""
    array = constant_value(value)
    shape = shape_of(result)
    if array is None or element_type_of(value) != f32 or np.ndim(array) > len(shape) or len(shape) < 2:
        return None
    array = np.asarray(array, np.float32).reshape((1,) * (len(shape) - np.ndim(array)) + np.shape(array))
    if any(d != 1 for i, d in enumerate(array.shape) if i != 1) or array.shape[1] not in (1, shape[1]):
        return None
    return np.ascontiguousarray(np.broadcast_to(array.reshape(-1), (shape[1],)))


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
            name = f"{conv.Y.name_hint or 'conv'}_{'scale' if is_mul else 'shift'}"
            constant = ConstantOp(DenseResourceAttr.from_params(
                WeightStore.of(module_of(op)).add(name, vector), TensorType(f32, vector.shape)))
            constant.results[0].name_hint = name
            scale, shift = (constant.results[0], None) if is_mul else (conv.S, constant.results[0])
            fused = fused_conv(conv, op, cpu.ConvOp.of(conv.X, conv.W, conv.B, op.result.type, residual=conv.R,
                                                       scale=scale, shift=shift, **conv_properties(conv)))
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


EPILOGUES: tuple[RewritePattern, ...] = (BatchNormIntoConv(), ResidualAddIntoConv(), ClampIntoConv(),
                                         ActivationIntoConv(), AffineIntoConv())
"""The epilogue patterns, applied together until none matches."""


@dataclass(frozen=True)
class FuseCpuEpiloguesPass(ModulePass):
    """Fold batch norms, residual Adds, Relu/Clip clamps, activations (LeakyRelu, Sigmoid,
    SiLU, HardSigmoid, HardSwish, Mish) and per-channel scales and shifts into the `cpu.conv`
    before them."""

    name = "fuse-cpu-epilogues"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(EPILOGUES)))
        for top in list(op.body.block.ops):
            if top.name != SUBGRAPH_OP:
                for region in top.regions:
                    walker.rewrite_region(region)
