"""legalize-mrvl: ops MLIP has no layer for, rewritten exactly into ops it has.

Arm's Vela rewrites operators Ethos-U lacks into ones it has; this pass does the same for
MLIP's layer vocabulary (TVM's JSON layers: no new layer kinds). Each rewrite is one named
entry of `LEGALIZATIONS`. It applies only where the op joins or extends an MLIP region: its
input comes from a layer MLIP runs, or a layer MLIP runs reads its result. An op that would
stay alone on the host is left as it is: the rewrite costs layers and saves a host round
trip only next to MLIP layers. The ops it builds carry the legalised node's name and
operator type in their location (`loc("relu6"("Clip"))`), so reports and the placement file
still name that one node, and the module records what became of each node in
`mrvl.legalized = {relu6 = "clip-as-depthwise"}` for the placement report.

MLIP computes in fp16 (every layer's output and every constant is stored as fp16): a
rewrite must not subtract nearly equal layer outputs, or a small result loses its low bits
(`6 - fp16(6 - 0.01)` is 0.0078). Each form below rounds once per branch; the budget is 2
fp16 ulps of the exact result plus what storing the op's constants in fp16 changes
(test/test_legalize_fp16.py checks it on every fp16 input in a range).
The other rewrites are one layer in place of one op and subtract no layer outputs: their
fp16 error is the layer's own rounding and its constants'.

- `clip-as-depthwise`: `Clip(u, lo, hi)` is `u - relu(u - hi) + relu(lo - u)`: inside the
  bounds both Relus are 0 and the result is u itself. `relu(u - hi)` is a 1x1 depthwise conv
  (weight 1, bias -hi) with a Relu, negated by one of weight -1 and added by a sum (Relu is
  always a layer's last step, so the subtraction takes a layer); `relu(lo - u)` a conv of
  weight -1, bias lo and a Relu, and a sum. With lo = 0 the Clip is `min(relu(u), hi)`, its
  Relu fused into the conv before where it can be (ReLU6 after a conv: three layers). At a
  bound the result is exact while the bound is a multiple of ulp(u) (for ReLU6 |u| < 4096),
  beyond within ulp(u) / 2.
- `leaky-relu-as-depthwise`: `LeakyRelu(u, a)` with `0 <= a < 1` is `relu((1 - a) u) + a u`:
  two 1x1 depthwise convs of u (weights 1 - a with a Relu, and a) and their sum. Exact: for
  u >= 0 it is u, below a u; within one ulp in fp16 (two positive terms for u > 0).
- `prelu-as-depthwise`: `PRelu(u, a)` with a constant slope per channel (`[C, 1, 1]`,
  `[1, C, 1, 1]`) or scalar: as LeakyRelu when every slope is in [0, 1]; else (slopes above
  1 or negative) `relu(u) + (-a) relu(-u)`: convs of weight 1 and -1 with a Relu, a conv of
  weight -a of the second, and a sum, one rounding per branch.
- `hard-sigmoid-as-depthwise`: `HardSigmoid(u, a, b)` is `clip(a u + b, 0, 1)`: a 1x1
  depthwise conv (weight a, bias b) into which the Clip's Relu fuses, and the Clip's
  `x - relu(x - 1)`. Not for a gate only a Mul by u reads (HardSwish written out): that Mul
  is the host's, which then computes both in one kernel.
- `batch-norm-as-depthwise`: a `BatchNormalization` no conv feeds is a 1x1 depthwise conv of
  weight 1 in front of it, into which it then fuses (TVM's conv layer with BN constants).
- `pad-as-depthwise`: a zero `Pad` of H and W that no layer takes in as its own padding (the
  ZeroPad2d before YOLOv3-tiny's stride-1 MaxPool, of LeakyRelu results) is a 1x1 depthwise
  conv of weight 1 with that padding: a conv pads with zeros.
- `grouped-conv-as-dense`: a conv of 2 to 16 groups that is not depthwise (ShuffleNet, AlexNet,
  RegNet; MLIP takes plain and depthwise convs) is a plain conv whose weights are zero outside
  each group's block: group times the MACs, exact. Applied even alone: a conv is worth a call.
- `conv1d-as-conv2d`: a 1-D conv is a conv of kernel `[1, k]` on its input reshaped to
  `[N, C, 1, L]`, reshaped back after (the reshapes, unnamed, run on the host); elementwise
  ops after it move before the reshape back and this pass's reshape pairs cancel, so a chain
  of 1-D convs is one region. Applied even alone.
- `affine-as-depthwise`: `Mul`, `Add`, `Sub` or `Div` of a rank-4 tensor and a constant per
  channel (`[C, 1, 1]`, `[1, C, 1, 1]`) or scalar is a 1x1 depthwise conv: `x * c`, `x + c`,
  `x - c`, `c - x`, `x / c` as weight and bias.

Rewrites compose: the pass repeats until nothing changes (a 1-D conv of 2 groups becomes 2-D,
then dense; `Sub` then `Div` before the first conv go one after the other).

A rewrite is undone when the cost model (`target/cost_model.py`; options
`target_file`, `host_profile`) finds its layers slower on the target's MLIP (its target
options: `num_tiles` scales the compute) than what they save: the op
on the host and, between two MLIP layers, the transfers of its input and output and the
extra call its region would be split into.

Runs before place-ops in `mrvl-pipeline` (its `legalize` option turns it off; its placement
file is this pass's too, so a node the file keeps on the host is not rewritten); the rules
that decide placement see only layers MLIP has.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (DenseArrayBase, DenseResourceAttr, DictionaryAttr, IntegerAttr, ModuleOp,
                                   StringAttr, TensorType, f32, i64)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl.target.cost_model import CostModel, CostModelOptions, MlipWork, elements, host_work, mlip_work
from mrvl.target.options import TargetOptions, TargetPassOptions
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, int_property, ints_property, node_name, op_type, shape
from mrvl_dialect.locations import location_nodes, node_location
from mrvl_dialect.mrvl import LEGALIZED_ATTR, QUANTIZED_ATTR
from mrvl_dialect.placement_file import load_placement
from mrvl_dialect.weights import WeightStore
from mrvl.passes.mlip_patterns import LAYER_KINDS, pad_amounts, per_channel
from mrvl.passes.mlip_rules import failed_rules
from mrvl.passes.patterns_by_op_class import MatchingOpsWalker, PatternsByOpClass
from mrvl.passes.qdq_tensors import quantized_record, rounding, sync_signatures, with_encoding


@dataclass(frozen=True)
class Legalization:
    id: str
    """Stable: tests and reports refer to it."""
    text: str
    """What it becomes, as docs/supported-ops.md says it."""
    ops: tuple[type[Operation], ...]
    applies: Callable[[Operation, TargetOptions], bool]
    """Whether the op can be rewritten exactly (where it runs is asked separately)."""
    rewrite: Callable[[Operation, ModuleOp, TargetOptions], None]
    anywhere: bool = False
    """Applies even where no MLIP layer is next to the op: its layer is worth a call alone."""


# Where an op sits: next to layers MLIP runs, or not.

def _runs_on_mlip(op: Operation, target: TargetOptions) -> bool:
    return op_type(op) in LAYER_KINDS and not failed_rules(op, target)


def _layer_anchor(value: SSAValue, target: TargetOptions) -> Operation | None:
    """The op that anchors the layer computing `value`: `value`'s producer, or the conv,
    Gemm or sum before the Relu, BatchNormalization or bias Add that fuses into it."""
    op = value.owner
    if isinstance(op, g.ReluOp):
        anchor = _layer_anchor(op.X, target)
        return anchor if isinstance(anchor, g.ConvOp | g.GemmOp | g.MatMulOp | g.AddOp) else None
    if isinstance(op, g.BatchNormalizationOp):
        return op.X.owner if isinstance(op.X.owner, g.ConvOp) else None
    if isinstance(op, g.AddOp) and not _runs_on_mlip(op, target):
        data = [v for v in op.operands if constant_value(v) is None]
        fused = len(data) == 1 and isinstance(data[0].owner, g.ConvOp | g.GemmOp | g.MatMulOp)
        return data[0].owner if fused else None
    return op if isinstance(op, Operation) else None


def _from_mlip(value: SSAValue, target: TargetOptions) -> bool:
    """Whether `value` comes from a layer MLIP can run."""
    anchor = _layer_anchor(value, target)
    return anchor is not None and _runs_on_mlip(anchor, target)


def _to_mlip(value: SSAValue, target: TargetOptions) -> bool:
    """Whether a layer MLIP can run reads `value` (through a Pad that fuses into it)."""
    users = [use.operation for use in value.uses]
    return any(_runs_on_mlip(u, target) or (isinstance(u, g.PadOp) and _to_mlip(u.results[0], target)) for u in users)


def _joins_mlip(op: Operation, target: TargetOptions) -> bool:
    return _from_mlip(op.operands[0], target) or _to_mlip(op.results[0], target)


def _fuses_relu(value: SSAValue, target: TargetOptions) -> bool:
    """Whether a Relu of `value` fuses into the conv (through its BatchNormalization) or
    sum that computes it: nothing else reads it (the op being legalised, or nothing yet)."""
    if value.uses.get_length() > 1:
        return False
    producer = value.owner
    if isinstance(producer, g.BatchNormalizationOp):
        if producer.operands[0].uses.get_length() != 1:
            return False
        producer = producer.operands[0].owner
    return isinstance(producer, g.ConvOp | g.AddOp) and _runs_on_mlip(producer, target)


def _nchw_float(value: SSAValue) -> tuple[int, ...] | None:
    """The shape of a rank-4 float32 tensor of known size, else None (a batch over MLIP's limit
    runs in chunks: chunk-mrvl-batch)."""
    dims = shape(value)
    if dims is None or len(dims) != 4 or min(dims) < 1:
        return None
    return dims if isinstance(value.type, TensorType) and value.type.element_type == f32 else None


def _scalar(value: SSAValue | None) -> float | None:
    array = constant_value(value) if value is not None else None
    return float(array) if array is not None and array.size == 1 and np.isfinite(array) else None


# The ops a rewrite builds.


def _new_tensor_like(value: SSAValue) -> TensorType:
    """The type of a new tensor of `value`'s shape and element type: the encoding, a QDQ
    model's rounding of `value` (`#mrvl.rounded`), is not the new tensor's."""
    assert isinstance(value.type, TensorType)
    return TensorType(value.type.element_type, value.type.get_shape())


class _Builder:
    """Inserts the ops that replace `op` before it, each named after it, and its constants."""

    def __init__(self, op: Operation, module: ModuleOp, target: TargetOptions):
        self.op, self.module, self.store, self.target = op, module, WeightStore.of(module), target
        self.op_type = op_type(op)
        self.name = node_name(op) or self.op_type.lower()
        self.channels = shape(op.results[0])[1]
        self.constants: dict[str, SSAValue] = {}

    def insert(self, new: Operation) -> SSAValue:
        new.location = node_location(self.name, self.op_type)
        Rewriter.insert_op(new, InsertPoint.before(self.op))
        return new.results[0]

    def constant(self, suffix: str, array: np.ndarray) -> SSAValue:
        handle = self.store.add(f"{self.name}.{suffix}", np.ascontiguousarray(array, np.float32))
        return self.insert(ConstantOp(DenseResourceAttr.from_params(handle, TensorType(f32, array.shape))))

    def per_channel(self, suffix: str, values: float | np.ndarray, weight: bool = True) -> SSAValue:
        """A depthwise weight `[C, 1, 1, 1]` (or bias `[C]`) holding `values` per channel;
        one constant per suffix."""
        if suffix not in self.constants:
            array = np.broadcast_to(np.asarray(values, np.float32), (self.channels,))
            self.constants[suffix] = self.constant(suffix, array.reshape(self.channels, 1, 1, 1) if weight else array)
        return self.constants[suffix]

    def depthwise(self, x: SSAValue, weight: SSAValue, bias: SSAValue | None = None,
                  pads: list[int] | None = None) -> SSAValue:
        """A 1x1 depthwise conv: each channel times its weight, plus its bias; `pads` (ONNX
        order) add zero rows and columns."""
        properties = {"group": IntegerAttr(self.channels, i64), "kernel_shape": DenseArrayBase.from_list(i64, [1, 1])}
        result_type = _new_tensor_like(x)
        if pads is not None:
            properties["pads"] = DenseArrayBase.from_list(i64, pads)
            result_type = self.op.results[0].type
        return self.insert(g.ConvOp.create(
            operands=[x, weight, *([bias] if bias is not None else [])], result_types=[result_type],
            properties=properties))

    def reshape(self, x: SSAValue, dims: tuple[int, ...]) -> SSAValue:
        """A reshape the compiler adds, with no ONNX name (as a layout transpose): it is no node."""
        target = np.array(dims, np.int64)
        value = self.store.constant_attr(f"{self.name}.shape", target, TensorType(i64, [len(dims)]))
        reshape = g.ReshapeOp.create(operands=[x, self.insert(ConstantOp(value))], result_types=[TensorType(f32, dims)])
        Rewriter.insert_op(reshape, InsertPoint.before(self.op))
        return reshape.results[0]

    def relu(self, x: SSAValue) -> SSAValue:
        return self.insert(g.ReluOp.create(operands=[x], result_types=[_new_tensor_like(x)]))

    def negate(self, x: SSAValue) -> SSAValue:
        return self.depthwise(x, self.per_channel("negate", -1))

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.insert(g.AddOp.create(operands=[a, b], result_types=[_new_tensor_like(a)]))

    def clip(self, x: SSAValue, low: float | None, high: float | None) -> SSAValue:
        """`clip(x, low, high)` as `x - relu(x - high) + relu(low - x)` (see `clip-as-depthwise`):
        inside the bounds both Relus are 0 and the result is x itself."""
        if low == 0:  # relu(x) fuses into the layer before where it can
            x = self.relu(x if _fuses_relu(x, self.target) else self.depthwise(x, self.per_channel("one", 1)))
            low = None
        result = x
        if high is not None:
            above = self.relu(self.depthwise(x, self.per_channel("one", 1), self.per_channel("minus_high", -high, False)))
            result = self.add(result, self.negate(above))
        if low is not None:
            below = self.relu(self.depthwise(x, self.per_channel("negate", -1), self.per_channel("low", low, False)))
            result = self.add(result, below)
        return result

    def leaky_relu(self, x: SSAValue, slopes: np.ndarray) -> SSAValue:
        """`x` where x >= 0, `slope x` below, per channel (see `prelu-as-depthwise`)."""
        if np.all((slopes >= 0) & (slopes <= 1)):  # relu((1 - a) x) + a x
            positive, slope = self.per_channel("positive", 1 - slopes), self.per_channel("slope", slopes)
            return self.add(self.relu(self.depthwise(x, positive)), self.depthwise(x, slope))
        # relu(x) + (-a) relu(-x)
        positive = self.relu(self.depthwise(x, self.per_channel("one", 1)))
        negative = self.relu(self.negate(x))
        return self.add(positive, self.depthwise(negative, self.per_channel("minus_slope", -slopes)))

    def replace(self, result: SSAValue) -> None:
        old = self.op.results[0]
        if (rounded := rounding(old)) is not None and result.owner is not self.op and result not in self.op.operands:
            # The new result is the tensor the model rounds: it keeps the rounding, so the
            # host rounds it where it reads it and its layer records the output scale.
            result = with_encoding(result, rounded)
            assert isinstance(result.owner, Operation)
            result.owner.attributes[QUANTIZED_ATTR] = quantized_record(result.owner)
        old.replace_all_uses_with(result)
        Rewriter.erase_op(self.op)
        sync_signatures(self.module)


# The legalisations.


def _clip_bounds(clip: Operation) -> tuple[float | None, float | None] | None:
    """(low, high) of a Clip with constant scalar bounds, None for a missing one; None when
    a bound is computed or the bounds leave nothing to clip."""
    low = _scalar(clip.operands[1]) if len(clip.operands) > 1 and clip.min is not None else None
    high = _scalar(clip.max) if clip.max is not None else None
    if (clip.min is not None and low is None) or (clip.max is not None and high is None):
        return None
    if (low is None and high is None) or (low is not None and high is not None and low >= high):
        return None
    return low, high


def _clip_applies(clip: Operation, target: TargetOptions) -> bool:
    assert isinstance(clip, g.ClipOp)
    return _nchw_float(clip.input) is not None and _clip_bounds(clip) is not None


def _clip_rewrite(clip: Operation, module: ModuleOp, target: TargetOptions) -> None:
    assert isinstance(clip, g.ClipOp)
    b = _Builder(clip, module, target)
    b.replace(b.clip(clip.input, *_clip_bounds(clip)))


def _leaky_relu_applies(op: Operation, target: TargetOptions) -> bool:
    assert isinstance(op, g.LeakyReluOp)
    return _nchw_float(op.X) is not None and 0 <= op.alpha.value.data < 1


def _leaky_relu_rewrite(op: Operation, module: ModuleOp, target: TargetOptions) -> None:
    assert isinstance(op, g.LeakyReluOp)
    b = _Builder(op, module, target)
    b.replace(b.leaky_relu(op.X, np.full(b.channels, op.alpha.value.data, np.float32)))


def _prelu_slopes(op: g.PReluOp) -> np.ndarray | None:
    """The slope per channel of a PRelu of a rank-4 tensor whose slope is a finite constant,
    a scalar or one per channel (`[C, 1, 1]`, `[1, C, 1, 1]`), else None."""
    dims, array = _nchw_float(op.X), constant_value(op.slope)
    if dims is None or array is None:
        return None
    values = np.ravel(array) if array.size == 1 and array.dtype == np.float32 else per_channel(op, dims[1])
    if values is None or not np.all(np.isfinite(values)):
        return None
    return np.broadcast_to(values, (dims[1],)).astype(np.float32)


def _prelu_applies(op: Operation, target: TargetOptions) -> bool:
    assert isinstance(op, g.PReluOp)
    return _prelu_slopes(op) is not None


def _prelu_rewrite(op: Operation, module: ModuleOp, target: TargetOptions) -> None:
    assert isinstance(op, g.PReluOp)
    b = _Builder(op, module, target)
    b.replace(b.leaky_relu(op.X, _prelu_slopes(op)))


def _hard_sigmoid_applies(op: Operation, target: TargetOptions) -> bool:
    assert isinstance(op, g.HardSigmoidOp)
    return _nchw_float(op.X) is not None and not _gates_its_own_input(op)


def _gates_its_own_input(op: g.HardSigmoidOp) -> bool:
    """`x * HardSigmoid(x)`, HardSwish written out (as exporters before opset 14 write it): the
    Mul of two tensors runs on the host, so on MLIP the gate would only be sent back beside x
    for the host to read both; on the host the two are one kernel reading x once."""
    uses = list(op.results[0].uses)
    return bool(uses) and all(isinstance(u.operation, g.MulOp) and set(u.operation.operands) == {op.X, op.results[0]}
                              for u in uses)


def _hard_sigmoid_rewrite(op: Operation, module: ModuleOp, target: TargetOptions) -> None:
    assert isinstance(op, g.HardSigmoidOp)
    b = _Builder(op, module, target)
    affine = b.depthwise(op.X, b.per_channel("alpha", op.alpha.value.data), b.per_channel("beta", op.beta.value.data, False))
    b.replace(b.clip(affine, 0.0, 1.0))


def _batch_norm_applies(bn: Operation, target: TargetOptions) -> bool:
    assert isinstance(bn, g.BatchNormalizationOp)
    producer = bn.X.owner
    if isinstance(producer, g.AddOp) and not _runs_on_mlip(producer, target):
        producer = _layer_anchor(bn.X, target)  # a conv's bias Add: the BatchNormalization fuses after it
    feeds_from_conv = isinstance(producer, g.ConvOp) and bn.X.uses.get_length() == 1
    constants = all(constant_value(v) is not None for v in bn.operands[1:])
    inference = not int_property(bn, "training_mode") and len(bn.results) == 1
    return _nchw_float(bn.X) is not None and constants and inference and not feeds_from_conv


def _batch_norm_rewrite(bn: Operation, module: ModuleOp, target: TargetOptions) -> None:
    assert isinstance(bn, g.BatchNormalizationOp)
    b = _Builder(bn, module, target)
    bn.operands[0] = b.depthwise(bn.X, b.per_channel("identity", 1))
    bn.location = node_location(b.name, b.op_type)


def _pad_applies(pad: Operation, target: TargetOptions) -> bool:
    """A zero Pad of H and W that no layer after it takes in as its own padding: the conv
    pattern fuses one before a Conv, and one before a MaxPool of a Relu result."""
    if pad_amounts(pad) is None or _nchw_float(pad.operands[0]) is None or _nchw_float(pad.results[0]) is None:
        return False
    users = [use.operation for use in pad.results[0].uses]
    fused = len(users) == 1 and (isinstance(users[0], g.ConvOp) or (
        isinstance(users[0], g.MaxPoolOp) and isinstance(pad.operands[0].owner, g.ReluOp)))
    return not fused


def _pad_rewrite(pad: Operation, module: ModuleOp, target: TargetOptions) -> None:
    b = _Builder(pad, module, target)
    top, left, bottom, right = pad_amounts(pad)
    b.replace(b.depthwise(pad.operands[0], b.per_channel("identity", 1), pads=[top, left, bottom, right]))


MAX_GROUPS_AS_DENSE = 16
"""The most groups a grouped conv is made dense for: its MACs and weights grow by the group
count, still far cheaper on MLIP than on the host up to here."""


def _grouped_conv_applies(conv: Operation, target: TargetOptions) -> bool:
    """A conv of 2 to MAX_GROUPS_AS_DENSE groups that is not depthwise, of constant weights."""
    assert isinstance(conv, g.ConvOp)
    groups, dims = int_property(conv, "group", 1), _nchw_float(conv.X)
    if dims is None or not 1 < groups <= MAX_GROUPS_AS_DENSE or constant_value(conv.W) is None:
        return False
    out_channels = shape(conv.W)[0]
    return not (groups == dims[1] == out_channels) and (conv.B is None or constant_value(conv.B) is not None)


def _grouped_conv_rewrite(conv: Operation, module: ModuleOp, target: TargetOptions) -> None:
    assert isinstance(conv, g.ConvOp)
    weight, groups = constant_value(conv.W), int_property(conv, "group", 1)
    out_channels, in_per_group = weight.shape[0], weight.shape[1]
    out_per_group = out_channels // groups
    dense = np.zeros((out_channels, in_per_group * groups, *weight.shape[2:]), np.float32)
    for group in range(groups):
        rows, columns = slice(group * out_per_group, (group + 1) * out_per_group), slice(group * in_per_group, (group + 1) * in_per_group)
        dense[rows, columns] = weight[rows]
    b = _Builder(conv, module, target)
    conv.operands[1] = b.constant("dense_weight", dense)
    conv.properties["group"] = IntegerAttr(1, i64)
    conv.location = node_location(b.name, b.op_type)


def _conv1d_applies(conv: Operation, target: TargetOptions) -> bool:
    """A 1-D conv (rank-3 input) of constant weights and explicit padding."""
    assert isinstance(conv, g.ConvOp)
    dims = shape(conv.X)
    auto_pad = conv.properties.get("auto_pad")
    if dims is None or len(dims) != 3 or min(dims) < 1 or conv.X.type.element_type != f32:
        return False
    weights = [constant_value(v) for v in conv.operands[1:]]
    return all(w is not None for w in weights) and (auto_pad is None or auto_pad.data == "NOTSET")


def _conv1d_rewrite(conv: Operation, module: ModuleOp, target: TargetOptions) -> None:
    """`[N, C, L]` reshaped to `[N, C, 1, L]`, a conv of kernel `[1, k]`, reshaped back."""
    assert isinstance(conv, g.ConvOp)
    b = _Builder(conv, module, target)
    (n, c, length), (n, o, out_length) = shape(conv.X), shape(conv.results[0])
    weight = constant_value(conv.W)
    pads = ints_property(conv, "pads", [0, 0])
    properties = {
        "group": IntegerAttr(int_property(conv, "group", 1), i64),
        "kernel_shape": DenseArrayBase.from_list(i64, [1, weight.shape[2]]),
        "pads": DenseArrayBase.from_list(i64, [0, pads[0], 0, pads[1]]),
        "strides": DenseArrayBase.from_list(i64, [1, *ints_property(conv, "strides", [1])]),
        "dilations": DenseArrayBase.from_list(i64, [1, *ints_property(conv, "dilations", [1])]),
    }
    operands = [b.reshape(conv.X, (n, c, 1, length)), b.constant("weight_2d", weight[:, :, None, :]), *conv.operands[2:]]
    conv2d = b.insert(g.ConvOp.create(operands=operands, result_types=[TensorType(f32, (n, o, 1, out_length))],
                                      properties=properties))
    b.replace(b.reshape(conv2d, (n, o, out_length)))


_ELEMENTWISE = (g.ReluOp, g.LeakyReluOp, g.ClipOp, g.SigmoidOp, g.TanhOp, g.HardSigmoidOp, g.BatchNormalizationOp)
"""Ops that act per element (BatchNormalization per channel, axis 1) whatever the rank."""


class ElementwiseOfUnsqueezedRunsBeforeTheReshape(RewritePattern):
    """`op(reshape([N, C, 1, L] -> [N, C, L]))` is `reshape(op(x))`: a 1-D conv's activation
    moves next to its 2-D conv, where it fuses or is legalised."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _ELEMENTWISE) or not isinstance(reshape := op.operands[0].owner, g.ReshapeOp):
            return
        source, target = shape(reshape.data), shape(reshape.reshaped)
        if source is None or target is None or len(source) != 4 or source[2] != 1 or target != source[:2] + source[3:]:
            return
        if len(op.results) != 1 or any(constant_value(v) is None for v in op.operands[1:]):
            return
        lifted = type(op).create(operands=[reshape.data, *op.operands[1:]], result_types=[_new_tensor_like(reshape.data)],
                                 properties=dict(op.properties), attributes=dict(op.attributes))
        lifted.location = op.location
        rewriter.insert(lifted, InsertPoint.before(op))
        back = g.ReshapeOp.create(operands=[lifted.results[0], reshape.shape], result_types=[op.results[0].type])
        rewriter.replace(op, back)


class ReshapeOfItsSourceShapeIsTheSource(RewritePattern):
    """`reshape(reshape(x))` back to x's shape is x, where this pass made both (what the
    lifting leaves between two 1-D convs); a model's own reshapes stay."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: g.ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = op.data.owner
        made_here = not location_nodes(op.location) and not location_nodes(getattr(inner, "location", None))
        if isinstance(inner, g.ReshapeOp) and made_here and inner.data.type == op.reshaped.type:
            rewriter.replace(op, [], [inner.data])


_AFFINE_OPS = (g.MulOp, g.AddOp, g.SubOp, g.DivOp)


def _affine_operands(op: Operation) -> tuple[SSAValue, np.ndarray, bool] | None:
    """(x, per-channel constant c, whether c comes first) of `x op c` / `c op x`, where c
    is a finite scalar or one value per channel of x and the result has x's shape."""
    dims = _nchw_float(op.results[0])
    if dims is None:
        return None
    for first, (x, c) in ((False, op.operands), (True, reversed(op.operands))):
        array = constant_value(c)
        if array is None or constant_value(x) is not None or shape(x) != dims or array.dtype != np.float32:
            continue
        values = np.ravel(array) if array.size == 1 else per_channel(op, dims[1])
        if values is not None and np.all(np.isfinite(values)):
            return x, np.broadcast_to(values, (dims[1],)), first
    return None


def _affine_applies(op: Operation, target: TargetOptions) -> bool:
    found = _affine_operands(op)
    if found is None:
        return False
    x, c, first = found
    if isinstance(op, g.AddOp) and array_is_bias(op, x):
        return False  # a conv fuses it as its bias
    return not (isinstance(op, g.DivOp) and (first or np.any(c == 0)))


def array_is_bias(add: Operation, x: SSAValue) -> bool:
    """Whether `add` is the per-channel bias Add the conv pattern fuses into the conv before."""
    return isinstance(x.owner, g.ConvOp) and x.uses.get_length() == 1 and per_channel(add, shape(x)[1]) is not None


def _affine_rewrite(op: Operation, module: ModuleOp, target: TargetOptions) -> None:
    x, c, first = _affine_operands(op)
    weight, bias = {
        g.MulOp: (c, None),
        g.AddOp: (1, c),
        g.SubOp: (-1, c) if first else (1, -c),
        g.DivOp: (1 / c, None),
    }[type(op)]
    b = _Builder(op, module, target)
    bias_value = b.per_channel("bias", bias, False) if bias is not None else None
    b.replace(b.depthwise(x, b.per_channel("weight", weight), bias_value))


LEGALIZATIONS: tuple[Legalization, ...] = (
    Legalization("clip-as-depthwise", "`u - relu(u - hi) + relu(lo - u)` in 1x1 depthwise `mrvl.conv2d` and "
                 "`mrvl.sum` layers (three after a conv, as ReLU6 is; up to five with two nonzero bounds)",
                 (g.ClipOp,), _clip_applies, _clip_rewrite),
    Legalization("leaky-relu-as-depthwise", "two 1x1 depthwise `mrvl.conv2d` and a `mrvl.sum`", (g.LeakyReluOp,),
                 _leaky_relu_applies, _leaky_relu_rewrite),
    Legalization("prelu-as-depthwise", "two 1x1 depthwise `mrvl.conv2d` and a `mrvl.sum` for slopes in [0, 1], "
                 "else three and a `mrvl.sum`, when the slope is per channel or a scalar", (g.PReluOp,),
                 _prelu_applies, _prelu_rewrite),
    Legalization("hard-sigmoid-as-depthwise", "three 1x1 depthwise `mrvl.conv2d` and a `mrvl.sum`", (g.HardSigmoidOp,),
                 _hard_sigmoid_applies, _hard_sigmoid_rewrite),
    Legalization("batch-norm-as-depthwise", "a 1x1 depthwise `mrvl.conv2d` with the BatchNormalization fused",
                 (g.BatchNormalizationOp,), _batch_norm_applies, _batch_norm_rewrite),
    Legalization("pad-as-depthwise", "a 1x1 depthwise `mrvl.conv2d` of weight 1 padded as the Pad",
                 (g.PadOp,), _pad_applies, _pad_rewrite),
    Legalization("grouped-conv-as-dense", f"a plain `mrvl.conv2d` with block-diagonal weights (up to "
                 f"{MAX_GROUPS_AS_DENSE} groups)", (g.ConvOp,), _grouped_conv_applies, _grouped_conv_rewrite,
                 anywhere=True),
    Legalization("conv1d-as-conv2d", "a `mrvl.conv2d` of height 1, between reshapes on the host", (g.ConvOp,),
                 _conv1d_applies, _conv1d_rewrite, anywhere=True),
    Legalization("affine-as-depthwise", "a 1x1 depthwise `mrvl.conv2d`, when the constant is per channel or a scalar",
                 _AFFINE_OPS, _affine_applies, _affine_rewrite),
)

@dataclass(frozen=True)
class LegalizeMrvlPass(TargetPassOptions, CostModelOptions, ModulePass):
    """Rewrite the ops of `LEGALIZATIONS` into MLIP layers where they join or extend an
    MLIP region, until none is left to rewrite (one rewrite can put the next op next to
    MLIP: `Sub` then `Div` before the first conv)."""

    name = "legalize-mrvl"

    placement: str = ""
    """A placement file (as place-ops takes): the nodes it keeps on the host stay as they are."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        placement = load_placement(self.placement) if self.placement else None
        target, model = self.target(), self.cost_model()
        refused: set[Operation] = set()
        legalized: dict[str, str] = {}
        by_class: dict[type[Operation], tuple[Legalization, ...]] = {}
        cleanup = MatchingOpsWalker(PatternsByOpClass([
            (_ELEMENTWISE, ElementwiseOfUnsqueezedRunsBeforeTheReshape()),
            ((g.ReshapeOp,), ReshapeOfItsSourceShapeIsTheSource())]))
        changed = True
        while changed:
            changed = False
            for candidate in [o for f in op.ops if isinstance(f, func.FuncOp) for o in f.body.block.ops]:
                if (kinds := by_class.get(type(candidate))) is None:
                    kinds = by_class[type(candidate)] = tuple(x for x in LEGALIZATIONS if issubclass(type(candidate), x.ops))
                if not kinds or candidate in refused or (
                        placement is not None and placement.decide(node_name(candidate), op_type(candidate)) == "host"):
                    continue
                legalization = next((x for x in kinds if x.applies(candidate, target)
                                     and (x.anywhere or _joins_mlip(candidate, target))), None)
                if legalization is None:
                    continue
                name = node_name(candidate) or op_type(candidate).lower()
                if (kept := _rewrite_if_it_pays(legalization, candidate, op, target, model)) is not None:
                    refused.add(kept)
                    continue
                # A node two rewrites took (a 1-D conv of 2 groups) lists both.
                legalized[name] = "+".join(filter(None, (legalized.get(name), legalization.id)))
                changed = True
            changed |= cleanup.rewrite_module(op)
        if legalized:
            old = op.attributes.get(LEGALIZED_ATTR)
            entries = dict(old.data) if isinstance(old, DictionaryAttr) else {}
            op.attributes[LEGALIZED_ATTR] = DictionaryAttr(entries | {n: StringAttr(i) for n, i in legalized.items()})


def _rewrite_if_it_pays(legalization: Legalization, op: Operation, module: ModuleOp, target: TargetOptions,
                        model: CostModel) -> Operation | None:
    """Rewrite `op`, then undo it when the layers it added take `target`'s MLIP longer than what they
    save: `op` on the host and, between two MLIP layers, the transfers of its input and
    output and the extra call its region would be split into. Returns the op put back."""
    block = op.parent
    assert block is not None
    saved = model.host_seconds(host_work(op))
    if _from_mlip(op.operands[0], target) and _to_mlip(op.results[0], target):
        round_trip = MlipWork(io_elements=elements(op.operands[0]) + elements(op.results[0]))
        saved += model.mlip_estimate(round_trip, target).io_s + model.mlip.call_overhead_s
    # A copy to put back, holding no uses meanwhile: rewrites check who reads a value.
    operands, original, before = list(op.operands), op.clone(), set(block.ops)
    original.operands = ()
    legalization.rewrite(op, module, target)
    new = [o for o in block.ops if o not in before]
    in_place = op.parent is block  # a BatchNormalization behind its new conv, a grouped conv made dense
    layers = [o for o in new if not isinstance(o, ConstantOp)] + ([op] if in_place else [])
    weights = [o.results[0] for o in new if isinstance(o, ConstantOp)]
    if model.mlip_estimate(mlip_work(layers, (), (), weights), target).compute_s <= saved:
        original.erase()
        return None
    if in_place:
        op.operands = operands
        op.location = original.location
        op.properties.clear()
        op.properties.update(original.properties)
        original.erase()
        restored = op
    else:
        original.operands = operands
        Rewriter.insert_op(original, InsertPoint.after(new[-1]))
        new[-1].results[0].replace_all_uses_with(original.results[0])
        restored = original
    for o in reversed(new):
        Rewriter.erase_op(o)
    return restored

