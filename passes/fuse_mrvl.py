"""fuse-mrvl: each group of `graph` ops that `place-ops` put on MLIP -> one `mrvl` layer.

`place-ops` matched the patterns (`mlip_patterns.PATTERNS`) and recorded each group on its
ops (`mrvl.group`, `mrvl.pattern`); this pass reads the groups back and builds their layers,
without matching again. On IR that `place-ops` has not seen it finds the same groups itself.

Layers work in NHWC with OHWI conv weights: each built layer is wrapped in
`graph.Transpose`s to and from the NCHW graph around it, and weights are rearranged at
compile time into new entries of the weight store. `convert-layout` then cancels the
transposes between layers. The new op's location is a `FusedLoc` of the members' ONNX
names, each naming its operator type: `loc(fused["c1"("Conv"), "r1"("Relu")])`. In a QDQ
model, the layer records the quantization of the first member's input, the weight and the
last member's output (`#mrvl.quantized`, from the members' records: `recognize-qdq`).
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import mrvl
from mrvl_dialect.mrvl import GROUP_ATTR, PATTERN_ATTR, PLACE_ATTR, QUANTIZED_ATTR
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_base import f32_attr
from mrvl_dialect.locations import fused_location, location_nodes, node_location
from mrvl_dialect.shared_attributes import i64_array, i64_attr, resource_attr, tensor_type
from mrvl_dialect.weights import WeightStore
from mrvl.passes.chunk_mrvl_batch import over_limit
from mrvl.passes.declarative_fusion import Match, Pattern, match_members
from mrvl_dialect.graph_queries import (
    constant_value,
    int_property,
    ints_property,
    node_name,
    op_type,
    required_constant_value,
    shape,
)
from mrvl.passes.mlip_patterns import BY_NAME, conv_padding, pad_amounts, per_channel
from mrvl.passes.place_ops import mlip_groups
from mrvl.passes.qdq_tensors import layer_record
from mrvl.target.options import TargetOptions, TargetPassOptions

TO_NHWC = (0, 2, 3, 1)
TO_NCHW = (0, 3, 1, 2)
NCHW_TO_NHWC_AXIS = {0: 0, 1: 3, 2: 1, 3: 2}


def _nhwc_type(value_type: Attribute) -> TensorType:
    assert isinstance(value_type, TensorType)
    n, c, h, w = value_type.get_shape()
    return tensor_type(value_type.element_type, [n, h, w, c])


# --- Building layers ------------------------------------------------------------------


@dataclass
class _Builder:
    """Inserts ops before the match's root and rewires its result."""

    match: Match
    module: ModuleOp

    def __post_init__(self):
        self.root = self.match.root
        """The op the layer replaces; the layer's ops go before it, in its block."""

    def insert(self, op: Operation) -> Operation:
        block = self.root.parent_block()
        assert block is not None
        block.insert_op_before(op, self.root)
        return op

    def transpose(self, value: SSAValue, perm: tuple[int, ...]) -> SSAValue:
        source = value.type
        assert isinstance(source, TensorType)
        dims = source.get_shape()
        result = tensor_type(source.element_type, [dims[p] for p in perm])
        op = g.TransposeOp.create(operands=[value], result_types=[result], properties={"perm": i64_array(perm)}
        )
        return self.insert(op).results[0]

    def constant(self, name: str, array: np.ndarray) -> SSAValue:
        array = np.ascontiguousarray(array, np.float32)
        handle = WeightStore.of(self.module).add(name, array)
        op = ConstantOp(resource_attr(handle, tensor_type(f32, array.shape)))
        op.location = node_location(name)
        return self.insert(op).results[0]

    def finish(self, layer: Operation, nchw_output: bool = True) -> None:
        """Insert `layer`, hand its result to the root's users, erase the members."""
        # The fused ONNX nodes, each with its operator type as a nested name (an op that
        # already names the operator it stands for, legalised, keeps it).
        members = self.match.members()
        layer.location = fused_location(
            op.location if any(n.op_type for n in location_nodes(op.location)) else node_location(node_name(op), op_type(op))
            for op in members)
        if (quantized := layer_record(members)) is not None:
            layer.attributes[QUANTIZED_ATTR] = quantized
        self.insert(layer)
        result = layer.results[0]
        name_hint = self.root.results[0].name_hint
        result.name_hint = name_hint
        if nchw_output and len(shape(result)) == 4:
            result = self.transpose(result, TO_NCHW)
        result.name_hint = name_hint
        self.root.results[0].replace_all_uses_with(result)
        for op in reversed(members):
            Rewriter.erase_op(op)


def _layer_name(match: Match) -> str:
    return node_name(match.anchor) or match.pattern.name


def _activation(match: Match) -> dict[str, Attribute]:
    return {"activation": mrvl.ActivationAttr(mrvl.Activation.RELU)} if match.get("relu") else {}


def build_conv2d(b: _Builder) -> None:
    match = b.match
    conv, pad = match["conv"], match.get("pad")
    source = pad.operands[0] if pad is not None else conv.operands[0]
    weight = required_constant_value(conv.operands[1], conv)
    out_channels = weight.shape[0]
    padding = conv_padding(conv)
    if pad is not None:
        padding = [p + q for p, q in zip(padding, pad_amounts(pad))]
    bias = np.zeros(out_channels, np.float32)
    has_bias = False
    if len(conv.operands) > 2:
        bias = bias + required_constant_value(conv.operands[2], conv)
        has_bias = True
    if (add := match.get("bias")) is not None:
        bias = bias + per_channel(add, out_channels)
        has_bias = True
    name = _layer_name(match)
    x, w = b.transpose(source, TO_NHWC), b.constant(f"{name}.weight_ohwi", weight.transpose(0, 2, 3, 1))
    properties: dict[str, Attribute] = {
        "strides": i64_array(ints_property(conv, "strides", [1, 1])),
        "padding": i64_array(padding),
        "dilations": i64_array(ints_property(conv, "dilations", [1, 1])),
        "groups": i64_attr(int_property(conv, "group", 1)),
        **_activation(match),
    }
    bias_value = b.constant(f"{name}.bias", bias) if has_bias else None
    bn_values = []
    if (bn := match.get("bn")) is not None:
        for role, value in zip(("gamma", "beta", "mean", "var"), bn.operands[1:]):
            bn_values.append(b.constant(f"{name}.bn_{role}", required_constant_value(value, bn)))
        properties["bn_epsilon"] = f32_attr(bn.properties["epsilon"].value.data)
    layer = mrvl.Conv2DOp(
        x, w, _nhwc_type(match.root.results[0].type), bias=bias_value, bn=bn_values, **properties
    )
    b.finish(layer)


def build_fc(b: _Builder) -> None:
    match = b.match
    fc, flatten = match["fc"], match.get("flatten")
    weight = required_constant_value(fc.operands[1], fc)
    if isinstance(fc, g.MatMulOp) or not int_property(fc, "transB"):
        weight = weight.T
    outputs = weight.shape[0]
    bias, has_bias = np.zeros(outputs, np.float32), False
    if isinstance(fc, g.GemmOp) and len(fc.operands) > 2:
        bias, has_bias = bias + required_constant_value(fc.operands[2], fc).reshape(outputs), True
    if (add := match.get("bias")) is not None:
        bias, has_bias = bias + per_channel(add, outputs), True
    properties: dict[str, Attribute] = dict(_activation(match))
    source = fc.operands[0]
    if flatten is not None:
        source = flatten.operands[0]
        if (nhwc := match.get("nhwc")) is not None:
            # The model flattens NHWC data (Keras): its weight columns are in NHWC order, put
            # in the NCHW order that `weights_need_transform` announces for the layer's input.
            source = nhwc.operands[0]
            _, channels, height, width = shape(source)
            weight = weight.reshape(outputs, height, width, channels).transpose(0, 3, 1, 2).reshape(outputs, -1)
        if len(shape(source)) == 4:
            source = b.transpose(source, TO_NHWC)
            properties["weights_need_transform"] = UnitAttr()
    name = _layer_name(match)
    operands = [source, b.constant(f"{name}.weight", weight)]
    if has_bias:
        operands.append(b.constant(f"{name}.bias", bias))
    layer = mrvl.FCOp.create(operands=operands, result_types=[match.root.results[0].type], properties=properties)
    b.finish(layer)


def build_pool(b: _Builder) -> None:
    match = b.match
    pool, pad = match["pool"], match.get("pad")
    source = pad.operands[0] if pad is not None else pool.operands[0]
    padding = conv_padding(pool)
    properties: dict[str, Attribute] = {}
    if pad is not None:
        padding = [p + q for p, q in zip(padding, pad_amounts(pad))]
        if isinstance(pool, g.AveragePoolOp):
            properties["count_include_pad"] = UnitAttr()
    elif int_property(pool, "count_include_pad"):
        properties["count_include_pad"] = UnitAttr()
    if int_property(pool, "ceil_mode"):
        properties["ceil_mode"] = UnitAttr()
    properties |= {
        "kernel_shape": i64_array(ints_property(pool, "kernel_shape", [1, 1])),
        "strides": i64_array(ints_property(pool, "strides", [1, 1])),
        "padding": i64_array(padding),
    }
    layer = match.pattern.layer.create(
        operands=[b.transpose(source, TO_NHWC)],
        result_types=[_nhwc_type(pool.results[0].type)],
        properties=properties,
    )
    b.finish(layer)


def build_global_pool(b: _Builder) -> None:
    op = b.match.anchor
    layer = b.match.pattern.layer.create(
        operands=[b.transpose(op.operands[0], TO_NHWC)], result_types=[_nhwc_type(op.results[0].type)]
    )
    b.finish(layer)


def build_sum(b: _Builder) -> None:
    match = b.match
    add = match["add"]
    operands = [b.transpose(v, TO_NHWC) for v in add.operands]
    layer = mrvl.SumOp.create(
        operands=operands, result_types=[_nhwc_type(match.root.results[0].type)], properties=_activation(match)
    )
    b.finish(layer)


def build_concat(b: _Builder) -> None:
    concat = b.match["concat"]
    operands = [b.transpose(v, TO_NHWC) for v in concat.operands]
    layer = mrvl.ConcatOp.create(operands=operands, result_types=[_nhwc_type(concat.results[0].type)])
    b.finish(layer)


def build_reshape_like(b: _Builder) -> None:
    """Layout-free reshapes (rank 2, or rank 4 with H = W = 1): NHWC on the 4-D side."""
    layer_class = b.match.pattern.layer
    op = b.match.anchor
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
        properties["axes"] = i64_array(axes)
    layer = layer_class.create(operands=[source], result_types=[result_type], properties=properties)
    b.finish(layer)


BUILDERS: dict[type[Operation], Callable[[_Builder], None]] = {
    mrvl.Conv2DOp: build_conv2d,
    mrvl.FCOp: build_fc,
    mrvl.MaxPool2DOp: build_pool,
    mrvl.AvgPool2DOp: build_pool,
    mrvl.GlobalAvgPool2DOp: build_global_pool,
    mrvl.GlobalMaxPool2DOp: build_global_pool,
    mrvl.SumOp: build_sum,
    mrvl.ConcatOp: build_concat,
    mrvl.ReshapeOp: build_reshape_like,
    mrvl.BatchFlattenOp: build_reshape_like,
    mrvl.SqueezeOp: build_reshape_like,
}
"""How each pattern's layer is built from its match."""


def recorded_groups(module: ModuleOp) -> list[tuple[Pattern, list[Operation]]]:
    """The groups `place-ops` recorded, each with its ops in IR order, in the order of
    their last op."""
    groups: dict[tuple[Block | None, int], tuple[Pattern | None, list[Operation]]] = {}
    order: dict[Operation, int] = {}
    for op in module.walk():
        order[op] = len(order)
        group, kind = op.attributes.get(GROUP_ATTR), op.attributes.get(PATTERN_ATTR)
        if isinstance(group, IntegerAttr) and isinstance(kind, StringAttr):
            pattern = BY_NAME.get(kind.data)
            groups.setdefault((op.parent_block(), group.value.data), (pattern, []))[1].append(op)
    found = [(pattern, ops) for pattern, ops in groups.values() if pattern is not None]
    return sorted(found, key=lambda group: order[group[1][-1]])


def computed_groups(module: ModuleOp, target: TargetOptions) -> list[tuple[Pattern, list[Operation]]]:
    """The groups `place-ops` would record on `target` (without a placement file), in the
    order of their last op."""
    found: list[tuple[Pattern, list[Operation]]] = []
    for function in module.body.block.ops:
        if isinstance(function, func.FuncOp):
            groups: dict[int, tuple[Pattern, list[Operation]]] = {}
            for op, (group, kind) in mlip_groups(list(function.body.block.ops), target).items():
                groups.setdefault(group, (BY_NAME[kind], []))[1].append(op)
            order = {op: i for i, op in enumerate(function.body.block.ops)}
            found += sorted(groups.values(), key=lambda group: order[group[1][-1]])
    return found


@dataclass(frozen=True)
class FuseMrvlPass(TargetPassOptions, ModulePass):
    """Build one `mrvl` layer (NHWC, wrapped in transposes) from each group of `graph` ops
    placed on MLIP.

    After `place-ops`, exactly the groups it recorded are built; on IR without placement
    attributes, the groups `place-ops` would record with the same target options. A group that is no match of its
    pattern (IR edited by hand) is left as it is, and so is a group over MLIP's batch limit
    (no layer takes it: `chunk-mrvl-batch` first compiles its subgraph for a chunk).
    """

    name = "fuse-mrvl"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        placed = any(PLACE_ATTR in nested.attributes for nested in op.walk())
        groups = recorded_groups(op) if placed else computed_groups(op, self.target())
        # From the last group back, as the layers were always built: weight handles that
        # collide are numbered in that order.
        for pattern, members in reversed(groups):
            match = match_members(pattern, members)
            if match is not None and pattern.check(match) is None and not over_limit(members):
                BUILDERS[pattern.layer](_Builder(match, op))
