"""What MLIP fuses into one layer: the pattern table, its checks, and what follows from it.

The patterns (`PATTERNS`, in priority order) are TVM's mrvl composites, with its defects
fixed: a bias may be the Conv/Gemm bias input, an Add of a per-channel constant, or both
(summed); a fused Pad adds to the op's own padding instead of replacing it; a Pad is fused
only with a zero pad value, and into a MaxPool only when its input cannot be negative.
Like TVM's `mrvl.fc_ni2no`, which took Relay's NHWC -> NCHW `layout_transform` before a
flatten, the FC pattern takes the NCHW -> NHWC `Transpose` that Keras models (keras2onnx,
tf2onnx) put before their Flatten: the FC then reads the NHWC tensor of the layers before it.
`place-ops` matches them and records the groups; `fuse-mrvl` builds each group's layer.
Which operators anchor a layer (`LAYER_KINDS`) and which MLIP runs only fused into another
(`FUSED_ONLY`) are read off the table.
"""

import numpy as np
from xdsl.ir import Operation, SSAValue

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import mrvl
from mrvl_dialect.graph_queries import constant_value, int_property, ints_property, shape
from mrvl_dialect.mrvl import window_count
from mrvl.passes.declarative_fusion import ANY_OPERAND, Match, Member, Pattern


def pad_amounts(pad: Operation) -> list[int] | None:
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
    return pad_amounts(op) is not None


def _is_non_negative(value: SSAValue) -> bool:
    """Whether a value is a Relu result (so zero padding cannot win a max)."""
    return isinstance(value.owner, g.ReluOp)


def per_channel(add: Operation, channels: int) -> np.ndarray | None:
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
    return per_channel(add, channels) is not None


def ceil_adds_window(pool: Operation) -> bool:
    """Whether the pool's ceil_mode places a last window that floor mode would not."""
    if not int_property(pool, "ceil_mode"):
        return False
    size, padding = shape(pool.operands[0]), conv_padding(pool)
    kernel, strides = ints_property(pool, "kernel_shape", [1, 1]), ints_property(pool, "strides", [1, 1])
    return any(window_count(size[2 + i], kernel[i], strides[i], padding[i], padding[2 + i], ceil=True)
               != window_count(size[2 + i], kernel[i], strides[i], padding[i], padding[2 + i]) for i in range(2))


def conv_padding(conv: Operation) -> list[int] | None:
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
    if int_property(pool, "ceil_mode"):
        # The Pad's cells are input to the pool: where its last window may start would change.
        return "a Pad before a ceil_mode pool is not fused"
    kernel = ints_property(pool, "kernel_shape", [1, 1])
    padding = [p + q for p, q in zip(conv_padding(pool), pad_amounts(pad))]
    if any(p >= kernel[i % 2] for i, p in enumerate(padding)):
        return f"the Pad would make the pool's padding {padding} reach its kernel {kernel}"
    if isinstance(pool, g.MaxPoolOp) and not _is_non_negative(pad.operands[0]):
        return "a zero Pad before a MaxPool is fused only when its input is a Relu result"
    if isinstance(pool, g.AveragePoolOp) and any(conv_padding(pool)) and not int_property(pool, "count_include_pad"):
        return "a Pad before an AveragePool that excludes its own padding cannot be fused"
    return None


TO_NHWC_PERM = (0, 2, 3, 1)


def _is_to_nhwc(op: Operation) -> bool:
    """A Transpose of an NCHW tensor to NHWC."""
    perm = op.properties.get("perm")
    return perm is not None and tuple(perm.get_values()) == TO_NHWC_PERM  # type: ignore[attr-defined]


def _check_fc(match: Match) -> str | None:
    fc = match["fc"]
    outputs = shape(fc.results[0])[-1]
    if (add := match.get("bias")) is not None and per_channel(add, outputs) is None:
        return "the Add after the Gemm/MatMul does not add a constant vector"
    flatten = match.get("flatten")
    if match.get("nhwc") is not None and flatten is None:
        return "a Transpose to NHWC is fused into an FC only with the flatten after it"
    if flatten is not None:
        source, target = shape(flatten.operands[0]), shape(flatten.results[0])
        if len(source) not in (2, 4) or len(target) != 2 or target[0] != source[0]:
            return f"the reshape before the Gemm/MatMul is not a flatten ({source} -> {target})"
    if isinstance(fc, g.GemmOp) and len(fc.operands) > 2:
        c = constant_value(fc.operands[2])
        if c is None or c.shape not in ((outputs,), (1, outputs)):
            return "Gemm's C input is not a constant bias vector"
    return None


_RELU = Member("relu", (g.ReluOp,), optional=True)
_PAD = Member("pad", (g.PadOp,), optional=True, when=_is_zero_pad)

PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        mrvl.Conv2DOp,
        (_PAD, Member("conv", (g.ConvOp,)),
         Member("bias", (g.AddOp,), optional=True, link=ANY_OPERAND),
         Member("bn", (g.BatchNormalizationOp,), optional=True), _RELU),
        anchor="conv", check=_check_conv,
    ),
    Pattern(
        mrvl.FCOp,
        (Member("nhwc", (g.TransposeOp,), optional=True, when=_is_to_nhwc),
         Member("flatten", (g.FlattenOp, g.ReshapeOp), optional=True), Member("fc", (g.GemmOp, g.MatMulOp)),
         Member("bias", (g.AddOp,), optional=True, link=ANY_OPERAND), _RELU),
        anchor="fc", check=_check_fc,
    ),
    Pattern(mrvl.MaxPool2DOp, (_PAD, Member("pool", (g.MaxPoolOp,))), anchor="pool", check=_check_pool),
    Pattern(mrvl.AvgPool2DOp, (_PAD, Member("pool", (g.AveragePoolOp,))), anchor="pool", check=_check_pool),
    Pattern(mrvl.GlobalAvgPool2DOp, (Member("pool", (g.GlobalAveragePoolOp,)),), anchor="pool"),
    Pattern(mrvl.GlobalMaxPool2DOp, (Member("pool", (g.GlobalMaxPoolOp,)),), anchor="pool"),
    Pattern(mrvl.SumOp, (Member("add", (g.AddOp,)), _RELU), anchor="add"),
    Pattern(mrvl.ConcatOp, (Member("concat", (g.ConcatOp,)),), anchor="concat"),
    Pattern(mrvl.ReshapeOp, (Member("reshape", (g.ReshapeOp,)),), anchor="reshape"),
    Pattern(mrvl.BatchFlattenOp, (Member("flatten", (g.FlattenOp,)),), anchor="flatten"),
    Pattern(mrvl.SqueezeOp, (Member("squeeze", (g.SqueezeOp,)),), anchor="squeeze"),
)
"""In match priority: a chain is claimed by the first pattern that takes it."""

BY_NAME: dict[str, Pattern] = {p.name: p for p in PATTERNS}
"""Patterns by layer kind, as `place-ops` records it (`mrvl.pattern`)."""


LAYER_KINDS: dict[str, str] = {t: p.name for p in PATTERNS for t in p.anchor_member.op_types}
"""ONNX operators that anchor an MLIP layer, and the layer kind they become."""


def _fused_only() -> dict[str, str]:
    """Operators that fill only members other than the anchor, and where they fuse."""
    side: dict[str, str] = {}
    anchors: dict[str, list[str]] = {}
    for pattern in PATTERNS:
        position = pattern.chain.index(pattern.anchor_member)
        for i, member in enumerate(pattern.chain):
            for kind in member.op_types if i != position else ():
                if kind not in LAYER_KINDS:
                    side[kind] = "before" if i < position else "after"
                    known = anchors.setdefault(kind, [])
                    known += [t for t in pattern.anchor_member.op_types if t not in known]
    return {kind: f"fused {side[kind]} a {_or_list(names)}" for kind, names in anchors.items()}


def _or_list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


FUSED_ONLY: dict[str, str] = _fused_only()
"""ONNX operators MLIP runs only as part of another layer, and where."""
