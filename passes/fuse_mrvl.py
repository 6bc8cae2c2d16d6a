"""fuse-mrvl: chains of `graph` ops -> one `mrvl` layer each.

The patterns (`PATTERNS`, in priority order) are TVM's mrvl composites, with its defects
fixed: a bias may be the Conv/Gemm bias input, an Add of a per-channel constant, or both
(summed); a fused Pad adds to the op's own padding instead of replacing it; a Pad is fused
only with a zero pad value, and into a MaxPool only when its input cannot be negative.

Layers work in NHWC with OHWI conv weights: each built layer is wrapped in
`graph.Transpose`s to and from the NCHW graph around it, and weights are rearranged at
compile time into new entries of the weight store. `convert-layout` then cancels the
transposes between layers. The new op's location is a `FusedLoc` of the members' ONNX
names, each naming its operator type: `loc(fused["c1"("Conv"), "r1"("Relu")])`.
"""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseResourceAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker
from xdsl.rewriter import InsertPoint

from mrvl_dialect import mrvl
from mrvl_dialect.mrvl import GROUP_ATTR, PLACE_ATTR
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_base import f32_attr
from mrvl_dialect.graph_ops_gen import TransposeOp
from mrvl_dialect.locations import fused_location, node_location
from mrvl_dialect.weights import WeightStore
from mrvl.passes.declarative_fusion import ANY_OPERAND, FusionRewrite, Match, Member, Pattern
from mrvl_dialect.graph_queries import (
    constant_value,
    int_property,
    ints_property,
    module_of,
    node_name,
    op_type,
    required_constant_value,
    shape,
)
from mrvl.passes.mlip_rules import failed_rules

TO_NHWC = (0, 2, 3, 1)
TO_NCHW = (0, 3, 1, 2)
NCHW_TO_NHWC_AXIS = {0: 0, 1: 3, 2: 1, 3: 2}


def _nhwc_type(value_type: Attribute) -> TensorType:
    assert isinstance(value_type, TensorType)
    n, c, h, w = value_type.get_shape()
    return TensorType(value_type.element_type, [n, h, w, c])


# --- Member filters and checks --------------------------------------------------------


def _pad_amounts(pad: Operation) -> list[int] | None:
    """(top, left, bottom, right) of a constant, zero-valued Pad on H and W only."""
    if pad.properties.get("mode") is not None and pad.properties["mode"].data != "constant":
        return None
    pads = constant_value(pad.operands[1])
    value = constant_value(pad.operands[2]) if len(pad.operands) > 2 else np.zeros(())
    if pads is None or value is None or len(pads) != 8 or np.any(value != 0):
        return None
    if len(pad.operands) > 3 or any(pads[i] for i in (0, 1, 4, 5)) or np.any(pads < 0):
        return None
    return [int(pads[2]), int(pads[3]), int(pads[6]), int(pads[7])]


def _is_zero_pad(op: Operation) -> bool:
    return _pad_amounts(op) is not None


def _is_non_negative(value: SSAValue) -> bool:
    """Whether a value is a Relu result (so zero padding cannot win a max)."""
    return isinstance(value.owner, Operation) and op_type(value.owner) == "Relu"


def _per_channel(add: Operation, channels: int) -> np.ndarray | None:
    """The constant operand of an Add as a `[channels]` bias, if it adds one value per
    channel: `[C, 1, 1]` or `[1, C, 1, 1]` to an NCHW result, `[C]` or `[1, C]` to `[N, C]`
    (numpy broadcasting aligns a `[C]` with the last dim, so it is no conv bias)."""
    rank = len(shape(add.results[0]))
    allowed = {4: ((channels, 1, 1), (1, channels, 1, 1)), 2: ((channels,), (1, channels))}.get(rank, ())
    for value in add.operands:
        array = constant_value(value)
        if array is not None and array.dtype == np.float32 and array.shape in allowed:
            return array.reshape(channels)
    return None


def _bias_add_ok(add: Operation, channels: int) -> bool:
    return _per_channel(add, channels) is not None


def _conv_padding(conv: Operation) -> list[int] | None:
    """The conv/pool's own (top, left, bottom, right), auto_pad resolved."""
    auto_pad = conv.properties.get("auto_pad")
    mode = auto_pad.data if auto_pad is not None else "NOTSET"
    if mode == "VALID":
        return [0, 0, 0, 0]
    if mode == "NOTSET":
        pads = ints_property(conv, "pads", [0, 0, 0, 0])
        return [pads[0], pads[1], pads[2], pads[3]]
    x, y = shape(conv.operands[0]), shape(conv.results[0])
    kernel = ints_property(conv, "kernel_shape", list(shape(conv.operands[1])[2:]) if len(conv.operands) > 1 else [1, 1])
    strides, dilations = ints_property(conv, "strides", [1, 1]), ints_property(conv, "dilations", [1, 1])
    total = [max((y[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - x[2 + i], 0) for i in range(2)]
    small = [t // 2 for t in total]
    big = [t - s for t, s in zip(total, small)]
    begin, end = (small, big) if mode == "SAME_UPPER" else (big, small)
    return [begin[0], begin[1], end[0], end[1]]


def _check_conv(match: Match) -> str | None:
    conv = match["conv"]
    channels = shape(conv.results[0])[1]
    if (add := match.get("bias")) is not None and not _bias_add_ok(add, channels):
        return "the Add after the Conv does not add a per-channel constant"
    if (bn := match.get("bn")) is not None:
        if any(constant_value(v) is None for v in bn.operands[1:]) or int_property(bn, "training_mode"):
            return "BatchNormalization needs constant parameters, in inference mode"
    return None


def _check_pool(match: Match) -> str | None:
    pool, pad = match["pool"], match.get("pad")
    if pad is None:
        return None
    kernel = ints_property(pool, "kernel_shape", [1, 1])
    padding = [p + q for p, q in zip(_conv_padding(pool), _pad_amounts(pad))]
    if any(p >= kernel[i % 2] for i, p in enumerate(padding)):
        return f"the Pad would make the pool's padding {padding} reach its kernel {kernel}"
    if op_type(pool) == "MaxPool" and not _is_non_negative(pad.operands[0]):
        return "a zero Pad before a MaxPool is fused only when its input is a Relu result"
    if op_type(pool) == "AveragePool" and any(_conv_padding(pool)) and not int_property(pool, "count_include_pad"):
        return "a Pad before an AveragePool that excludes its own padding cannot be fused"
    return None


def _check_fc(match: Match) -> str | None:
    fc = match["fc"]
    outputs = shape(fc.results[0])[-1]
    if (add := match.get("bias")) is not None and _per_channel(add, outputs) is None:
        return "the Add after the Gemm/MatMul does not add a constant vector"
    if (flatten := match.get("flatten")) is not None:
        source, target = shape(flatten.operands[0]), shape(flatten.results[0])
        if len(source) not in (2, 4) or len(target) != 2 or target[0] != source[0]:
            return f"the reshape before the Gemm/MatMul is not a flatten ({source} -> {target})"
    if op_type(fc) == "Gemm" and len(fc.operands) > 2:
        c = constant_value(fc.operands[2])
        if c is None or c.shape not in ((outputs,), (1, outputs)):
            return "Gemm's C input is not a constant bias vector"
    return None


# --- Building layers ------------------------------------------------------------------


@dataclass
class _Builder:
    """Inserts ops before the match's root and rewires its result."""

    match: Match
    rewriter: PatternRewriter

    @property
    def module(self) -> ModuleOp:
        module = module_of(self.match.root)
        assert module is not None
        return module

    def insert(self, op: Operation) -> Operation:
        self.rewriter.insert(op, InsertPoint.before(self.match.root))
        return op

    def transpose(self, value: SSAValue, perm: tuple[int, ...]) -> SSAValue:
        source = value.type
        assert isinstance(source, TensorType)
        dims = source.get_shape()
        result = TensorType(source.element_type, [dims[p] for p in perm])
        op = TransposeOp.create(
            operands=[value], result_types=[result], properties={"perm": DenseArrayBase.from_list(i64, perm)}
        )
        return self.insert(op).results[0]

    def constant(self, name: str, array: np.ndarray) -> SSAValue:
        array = np.ascontiguousarray(array, np.float32)
        handle = WeightStore.of(self.module).add(name, array)
        op = ConstantOp(DenseResourceAttr.from_params(handle, TensorType(f32, array.shape)))
        op.location = node_location(name)
        return self.insert(op).results[0]

    def finish(self, layer: Operation, nchw_output: bool = True) -> None:
        """Insert `layer`, hand its result to the root's users, erase the members."""
        # The fused ONNX nodes, each with its operator type as a nested name.
        layer.location = fused_location(node_location(node_name(op), op_type(op)) for op in self.match.members())
        self.insert(layer)
        result = layer.results[0]
        result.name_hint = self.match.root.results[0].name_hint
        if nchw_output and len(shape(result)) == 4:
            result = self.transpose(result, TO_NCHW)
        root = self.match.root
        result.name_hint = root.results[0].name_hint
        self.rewriter.replace_all_uses_with(root.results[0], result)
        for op in reversed(self.match.members()):
            self.rewriter.erase(op)


def _layer_name(match: Match) -> str:
    return node_name(match.anchor) or match.pattern.name


def _activation(match: Match) -> dict[str, Attribute]:
    return {"activation": mrvl.ActivationAttr(mrvl.Activation.RELU)} if match.get("relu") else {}


def build_conv2d(match: Match, rewriter: PatternRewriter) -> None:
    b = _Builder(match, rewriter)
    conv, pad = match["conv"], match.get("pad")
    source = pad.operands[0] if pad is not None else conv.operands[0]
    weight = required_constant_value(conv.operands[1], conv)
    out_channels = weight.shape[0]
    padding = _conv_padding(conv)
    if pad is not None:
        padding = [p + q for p, q in zip(padding, _pad_amounts(pad))]
    bias = np.zeros(out_channels, np.float32)
    has_bias = False
    if len(conv.operands) > 2:
        bias = bias + required_constant_value(conv.operands[2], conv)
        has_bias = True
    if (add := match.get("bias")) is not None:
        bias = bias + _per_channel(add, out_channels)
        has_bias = True
    name = _layer_name(match)
    operands = [b.transpose(source, TO_NHWC), b.constant(f"{name}.weight_ohwi", weight.transpose(0, 2, 3, 1))]
    sizes = [1, 1, 0, 0, 0, 0, 0]
    properties: dict[str, Attribute] = {
        "strides": DenseArrayBase.from_list(i64, ints_property(conv, "strides", [1, 1])),
        "padding": DenseArrayBase.from_list(i64, padding),
        "dilations": DenseArrayBase.from_list(i64, ints_property(conv, "dilations", [1, 1])),
        "groups": IntegerAttr(int_property(conv, "group", 1), i64),
        **_activation(match),
    }
    if has_bias:
        operands.append(b.constant(f"{name}.bias", bias))
        sizes[2] = 1
    if (bn := match.get("bn")) is not None:
        for role, value in zip(("gamma", "beta", "mean", "var"), bn.operands[1:]):
            operands.append(b.constant(f"{name}.bn_{role}", required_constant_value(value, bn)))
        sizes[3:] = [1, 1, 1, 1]
        properties["bn_epsilon"] = f32_attr(bn.properties["epsilon"].value.data)
    properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, sizes)
    layer = mrvl.Conv2DOp.create(
        operands=operands, result_types=[_nhwc_type(match.root.results[0].type)], properties=properties
    )
    b.finish(layer)


def build_fc(match: Match, rewriter: PatternRewriter) -> None:
    b = _Builder(match, rewriter)
    fc, flatten = match["fc"], match.get("flatten")
    weight = required_constant_value(fc.operands[1], fc)
    if op_type(fc) == "MatMul" or not int_property(fc, "transB"):
        weight = weight.T
    outputs = weight.shape[0]
    bias, has_bias = np.zeros(outputs, np.float32), False
    if op_type(fc) == "Gemm" and len(fc.operands) > 2:
        bias, has_bias = bias + required_constant_value(fc.operands[2], fc).reshape(outputs), True
    if (add := match.get("bias")) is not None:
        bias, has_bias = bias + _per_channel(add, outputs), True
    properties: dict[str, Attribute] = dict(_activation(match))
    source = fc.operands[0]
    if flatten is not None:
        source = flatten.operands[0]
        if len(shape(source)) == 4:
            source = b.transpose(source, TO_NHWC)
            properties["weights_need_transform"] = UnitAttr()
    name = _layer_name(match)
    operands = [source, b.constant(f"{name}.weight", weight)]
    if has_bias:
        operands.append(b.constant(f"{name}.bias", bias))
    layer = mrvl.FCOp.create(operands=operands, result_types=[match.root.results[0].type], properties=properties)
    b.finish(layer)


def _build_pool(layer_class: type[Operation]):
    def build(match: Match, rewriter: PatternRewriter) -> None:
        b = _Builder(match, rewriter)
        pool, pad = match["pool"], match.get("pad")
        source = pad.operands[0] if pad is not None else pool.operands[0]
        padding = _conv_padding(pool)
        properties: dict[str, Attribute] = {}
        if pad is not None:
            padding = [p + q for p, q in zip(padding, _pad_amounts(pad))]
            if op_type(pool) == "AveragePool":
                properties["count_include_pad"] = UnitAttr()
        elif int_property(pool, "count_include_pad"):
            properties["count_include_pad"] = UnitAttr()
        properties |= {
            "kernel_shape": DenseArrayBase.from_list(i64, ints_property(pool, "kernel_shape", [1, 1])),
            "strides": DenseArrayBase.from_list(i64, ints_property(pool, "strides", [1, 1])),
            "padding": DenseArrayBase.from_list(i64, padding),
        }
        layer = layer_class.create(
            operands=[b.transpose(source, TO_NHWC)],
            result_types=[_nhwc_type(pool.results[0].type)],
            properties=properties,
        )
        b.finish(layer)

    return build


def _build_unary_nhwc(layer_class: type[Operation]):
    def build(match: Match, rewriter: PatternRewriter) -> None:
        b = _Builder(match, rewriter)
        op = match.anchor
        layer = layer_class.create(
            operands=[b.transpose(op.operands[0], TO_NHWC)], result_types=[_nhwc_type(op.results[0].type)]
        )
        b.finish(layer)

    return build


def build_sum(match: Match, rewriter: PatternRewriter) -> None:
    b = _Builder(match, rewriter)
    add = match["add"]
    operands = [b.transpose(v, TO_NHWC) for v in add.operands]
    layer = mrvl.SumOp.create(
        operands=operands, result_types=[_nhwc_type(match.root.results[0].type)], properties=_activation(match)
    )
    b.finish(layer)


def build_concat(match: Match, rewriter: PatternRewriter) -> None:
    b = _Builder(match, rewriter)
    concat = match["concat"]
    operands = [b.transpose(v, TO_NHWC) for v in concat.operands]
    layer = mrvl.ConcatOp.create(operands=operands, result_types=[_nhwc_type(concat.results[0].type)])
    b.finish(layer)


def _build_reshape_like(layer_class: type[Operation]):
    """Layout-free reshapes (rank 2, or rank 4 with H = W = 1): NHWC on the 4-D side."""

    def build(match: Match, rewriter: PatternRewriter) -> None:
        b = _Builder(match, rewriter)
        op = match.anchor
        source = op.operands[0]
        if len(shape(source)) == 4:
            source = b.transpose(source, TO_NHWC)
        result_type = op.results[0].type
        if len(shape(op.results[0])) == 4:
            result_type = _nhwc_type(result_type)
        properties = {}
        if layer_class is mrvl.SqueezeOp:
            rank = len(shape(op.operands[0]))
            axes = [a % rank for a in constant_value(op.operands[1]).tolist()]
            if rank == 4:
                axes = sorted(NCHW_TO_NHWC_AXIS[a] for a in axes)
            properties["axes"] = DenseArrayBase.from_list(i64, axes)
        layer = layer_class.create(operands=[source], result_types=[result_type], properties=properties)
        b.finish(layer)

    return build


_RELU = Member("relu", ("Relu",), optional=True)
_PAD = Member("pad", ("Pad",), optional=True, when=_is_zero_pad)

PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "conv2d",
        (_PAD, Member("conv", ("Conv",)),
         Member("bias", ("Add",), optional=True, link=ANY_OPERAND),
         Member("bn", ("BatchNormalization",), optional=True), _RELU),
        anchor="conv", build=build_conv2d, check=_check_conv,
    ),
    Pattern(
        "fc",
        (Member("flatten", ("Flatten", "Reshape"), optional=True), Member("fc", ("Gemm", "MatMul")),
         Member("bias", ("Add",), optional=True, link=ANY_OPERAND), _RELU),
        anchor="fc", build=build_fc, check=_check_fc,
    ),
    Pattern("maxpool2d", (_PAD, Member("pool", ("MaxPool",))), anchor="pool",
            build=_build_pool(mrvl.MaxPool2DOp), check=_check_pool),
    Pattern("avgpool2d", (_PAD, Member("pool", ("AveragePool",))), anchor="pool",
            build=_build_pool(mrvl.AvgPool2DOp), check=_check_pool),
    Pattern("global_avgpool2d", (Member("pool", ("GlobalAveragePool",)),), anchor="pool",
            build=_build_unary_nhwc(mrvl.GlobalAvgPool2DOp)),
    Pattern("global_maxpool2d", (Member("pool", ("GlobalMaxPool",)),), anchor="pool",
            build=_build_unary_nhwc(mrvl.GlobalMaxPool2DOp)),
    Pattern("sum", (Member("add", ("Add",)), _RELU), anchor="add", build=build_sum),
    Pattern("concat", (Member("concat", ("Concat",)),), anchor="concat", build=build_concat),
    Pattern("reshape", (Member("reshape", ("Reshape",)),), anchor="reshape",
            build=_build_reshape_like(mrvl.ReshapeOp)),
    Pattern("batch_flatten", (Member("flatten", ("Flatten",)),), anchor="flatten",
            build=_build_reshape_like(mrvl.BatchFlattenOp)),
    Pattern("squeeze", (Member("squeeze", ("Squeeze",)),), anchor="squeeze",
            build=_build_reshape_like(mrvl.SqueezeOp)),
)
"""In match priority: a chain is claimed by the first pattern that takes it."""


def placed_group(match: Match) -> bool:
    """Whether `match` is exactly one group `place-ops` put on MLIP (or nothing was placed)."""
    members = match.members()
    groups = {op.attributes.get(GROUP_ATTR) for op in members}
    if len(groups) != 1:
        return False
    (group,) = groups
    if group is None:
        return all(PLACE_ATTR not in op.attributes for op in members) and not failed_rules(match.anchor)
    # Every op of the group must be in the match: none may be left behind unfused.
    block = members[0].parent_block()
    assert block is not None
    return sum(op.attributes.get(GROUP_ATTR) == group for op in block.ops) == len(members)


@dataclass(frozen=True)
class FuseMrvlPass(ModulePass):
    """Rewrite `graph` op chains into `mrvl` layers (NHWC, wrapped in transposes).

    After `place-ops`, only the groups it put on MLIP are fused; on IR without placement
    attributes every chain the patterns accept is.
    """

    name = "fuse-mrvl"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrites = [FusionRewrite(p, placed_group) for p in PATTERNS]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(rewrites), walk_reverse=True, apply_recursively=False
        ).rewrite_module(op)
