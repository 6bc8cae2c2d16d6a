"""What the MLIP accelerator can run: one registry of rules, per ONNX operator.

Each rule is a check of an op on the compile's target options (`TargetOptions`: `quant.int8`
reads `quantize`) with a stable id and a user-facing sentence built from the same
constants the check uses. The registry drives placement (`place-ops`), the reasons in
the placement report, and `docs/supported-ops.md`. A rule returns None when satisfied,
else what it observed. Rules apply to an op as the *anchor* of an accelerator layer;
operators MLIP runs only inside another layer (Relu, BatchNormalization, Pad) say so.

The limits follow TVM's mrvl legality checks (apache/tvm `python/tvm/relay/op/contrib/mrvl.py`).
"""

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import f32
from xdsl.ir import Operation

from mrvl_dialect.mrvl import MAX_BATCH, QUANTIZED_ATTR, QuantizedAttr
from mrvl_dialect.graph_queries import constant_op, element_type, int_property, op_type, shape
from mrvl.passes.chunk_mrvl_batch import batch_problem
from mrvl.passes.mlip_patterns import LAYER_KINDS, ceil_adds_window
from mrvl.target.options import TargetOptions

@dataclass(frozen=True)
class Rule:
    id: str
    """Stable: tests, reports and docs refer to it."""
    op_types: tuple[str, ...]
    text: str
    """The rule as a user reads it."""
    check: Callable[[Operation, TargetOptions], str | None]
    """None when the op satisfies the rule on the target, else what was observed."""


RULES: list[Rule] = []


def rule(id: str, *op_types: str, text: str):
    """Register the decorated check as rule `id` for `op_types`."""

    def register(check: Callable[[Operation, TargetOptions], str | None]) -> Callable[[Operation, TargetOptions], str | None]:
        RULES.append(Rule(id, op_types, text, check))
        return check

    return register


def failed_rules(op: Operation, target: TargetOptions) -> list[tuple[Rule, str]]:
    """Every rule `op` breaks on `target`, with what was observed, in registry order."""
    kind = op_type(op)
    failed = []
    for r in RULES:
        if kind in r.op_types and (observed := r.check(op, target)) is not None:
            failed.append((r, observed))
    return failed


def _shape_text(s: tuple[int, ...] | None) -> str:
    return "x".join(map(str, s)) if s else "scalar"


def _rank4(op: Operation) -> str | None:
    s = shape(op.operands[0])
    return None if s is not None and len(s) == 4 else f"input has shape {_shape_text(s)}"


def _batch(limit: int) -> Callable[[Operation], str | None]:
    def check(op: Operation) -> str | None:
        s = shape(op.operands[0])
        return None if s and 1 <= s[0] <= limit else f"batch {s[0] if s else '?'}"

    return check


ALL_LAYERS = tuple(LAYER_KINDS)


@rule("any.float32", *ALL_LAYERS, text="MLIP computes on float32 tensors (quantized by mrvl-tmlc).")
def _float32(op: Operation, target: TargetOptions) -> str | None:
    others = [element_type(v) for v in (*op.operands, *op.results) if element_type(v) != f32]
    if op_type(op) in ("Reshape", "Squeeze"):  # their shape/axes operand is int64
        others = [element_type(v) for v in (op.operands[0], *op.results) if element_type(v) != f32]
    return None if not others else f"element type {others[0]}"


@rule("quant.int8", *ALL_LAYERS,
      text="With quantize=int8, a layer of a QDQ model must be quantized symmetric int8 (zero points 0).")
def _quantized_int8(op: Operation, target: TargetOptions) -> str | None:
    quantized = op.attributes.get(QUANTIZED_ATTR)
    if not isinstance(quantized, QuantizedAttr) or target.quantize != "int8":
        return None
    return quantized.int8_problem()


@rule("conv.rank", "Conv", text="Conv must be 2-D: a rank-4 NCHW input.")
def _conv_rank(op: Operation, target: TargetOptions) -> str | None:
    return _rank4(op)


@rule("batch.max", "Conv", "Gemm", "MatMul", "MaxPool", "GlobalMaxPool", "Add",
      text=f"The batch must be at most {MAX_BATCH}, or run in chunks of at most {MAX_BATCH}: then the layer, "
           "and every layer of its subgraph, must keep the batch as dim 0.")
def _batch_max(op: Operation, target: TargetOptions) -> str | None:
    if (observed := _batch(MAX_BATCH)(op)) is None:
        return None
    # Over the limit, the subgraph runs in chunks (chunk-mrvl-batch) if it keeps the batch
    # throughout; partition-mrvl checks the subgraph as a whole.
    dims = shape(op.operands[0])
    if not dims or dims[0] < 1:
        return observed
    problem = batch_problem(op)
    return None if problem is None else f"{observed}: {problem}"


@rule("batch.one", "AveragePool", "GlobalAveragePool", "Concat", text="The batch must be 1.")
def _batch_one(op: Operation, target: TargetOptions) -> str | None:
    return _batch(1)(op)


@rule("conv.constant-weights", "Conv", text="Conv weights and bias must be constants.")
def _conv_constant(op: Operation, target: TargetOptions) -> str | None:
    for i, value in enumerate(op.operands[1:], 1):
        if constant_op(value) is None:
            return f"input {i} is computed at run time"
    return None


@rule("conv.groups", "Conv", text="Conv must be plain (group 1) or depthwise (group = input channels = output channels).")
def _conv_groups(op: Operation, target: TargetOptions) -> str | None:
    group = int_property(op, "group", 1)
    x, w = shape(op.operands[0]), shape(op.operands[1])
    if group == 1 or (x and w and group == x[1] == w[0]):
        return None
    return f"group {group} with {x[1] if x else '?'} input and {w[0] if w else '?'} output channels"


@rule("fc.rank", "Gemm", "MatMul", text="Gemm and MatMul must multiply a rank-2 input by a rank-2 weight.")
def _fc_rank(op: Operation, target: TargetOptions) -> str | None:
    a, b = shape(op.operands[0]), shape(op.operands[1])
    return None if a and b and len(a) == 2 and len(b) == 2 else f"shapes {_shape_text(a)} and {_shape_text(b)}"


@rule("fc.constant-weights", "Gemm", "MatMul", text="The weight (and Gemm's bias) must be constants.")
def _fc_constant(op: Operation, target: TargetOptions) -> str | None:
    for i, value in enumerate(op.operands[1:], 1):
        if constant_op(value) is None:
            return f"input {i} is computed at run time"
    return None


@rule("gemm.plain", "Gemm", text="Gemm must have alpha = beta = 1 and transA = 0.")
def _gemm_plain(op: Operation, target: TargetOptions) -> str | None:
    alpha = op.properties["alpha"].value.data
    beta = op.properties["beta"].value.data
    trans_a = int_property(op, "transA")
    if alpha == 1 and beta == 1 and trans_a == 0:
        return None
    return f"alpha {alpha:g}, beta {beta:g}, transA {trans_a}"


@rule("pool.rank", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
      text="Pools must be 2-D: a rank-4 NCHW input.")
def _pool_rank(op: Operation, target: TargetOptions) -> str | None:
    return _rank4(op)


@rule("pool.plain", "MaxPool", "AveragePool",
      text="Pools must have dilation 1, no auto_pad in ceil_mode and (MaxPool) no Indices output; an AveragePool "
           "in ceil_mode whose extra window reaches past its padding must exclude the padding from its divisor.")
def _pool_plain(op: Operation, target: TargetOptions) -> str | None:
    dilations = op.properties.get("dilations")
    if dilations is not None and set(dilations.get_values()) != {1}:
        return f"dilations {list(dilations.get_values())}"
    if op_type(op) == "AveragePool" and int_property(op, "count_include_pad") and ceil_adds_window(op):
        # Whether the padding cells past the input count in the divisor of that last window
        # differs between frameworks: only the window's input elements are defined exactly.
        return "ceil_mode 1 with count_include_pad 1 and a last window past the padding"
    if (auto_pad := op.properties.get("auto_pad")) is not None and auto_pad.data != "NOTSET" and int_property(op, "ceil_mode"):
        # The padding is resolved from the output size (conv_padding), which ceil_mode does not fix.
        return f"auto_pad {auto_pad.data} with ceil_mode 1"
    if len(op.results) > 1:
        return "Indices output is used"
    return None


@rule("sum.same-shape", "Add", text="Add must add two rank-4 tensors of one shape (no broadcasting).")
def _sum_shape(op: Operation, target: TargetOptions) -> str | None:
    a, b = shape(op.operands[0]), shape(op.operands[1])
    return None if a == b and a is not None and len(a) == 4 else f"shapes {_shape_text(a)} and {_shape_text(b)}"


@rule("concat.channels", "Concat", text="Concat must join rank-4 tensors on channels (axis 1).")
def _concat_channels(op: Operation, target: TargetOptions) -> str | None:
    if _rank4(op):
        return _rank4(op)
    axis = int_property(op, "axis")
    return None if axis in (1, -3) else f"axis {axis}"


@rule("concat.inputs", "Concat", text="Concat must join at least two tensors computed at run time.")
def _concat_inputs(op: Operation, target: TargetOptions) -> str | None:
    constants = sum(constant_op(v) is not None for v in op.operands)
    if len(op.operands) < 2 or constants:
        return f"{len(op.operands)} inputs, {constants} constant"
    return None


def _layout_free(s: tuple[int, ...] | None) -> bool:
    """Rank 2, or rank 4 with H = W = 1: NCHW and NHWC order the data alike."""
    return s is not None and (len(s) == 2 or (len(s) == 4 and s[2] == s[3] == 1))


@rule("reshape.layout", "Reshape", "Flatten", "Squeeze",
      text="A standalone reshape must not depend on the layout: ranks 2 or 4, and any rank-4 side 1x1 "
           "in H and W (Flatten into a Gemm is fused instead).")
def _reshape_layout(op: Operation, target: TargetOptions) -> str | None:
    source, reshaped = shape(op.operands[0]), shape(op.results[0])
    if _layout_free(source) and _layout_free(reshaped):
        return None
    return f"{_shape_text(source)} -> {_shape_text(reshaped)}"


@rule("flatten.axis", "Flatten", text="Flatten must keep the batch: axis 1.")
def _flatten_axis(op: Operation, target: TargetOptions) -> str | None:
    axis = int_property(op, "axis", 1)
    return None if axis in (1, 1 - len(shape(op.operands[0]) or ())) else f"axis {axis}"


@rule("squeeze.constant-axes", "Squeeze", text="Squeeze axes must be a constant.")
def _squeeze_axes(op: Operation, target: TargetOptions) -> str | None:
    if len(op.operands) > 1 and constant_op(op.operands[1]) is None:
        return "axes are computed at run time"
    return None
