"""recognize-qdq: a QDQ model (onnxruntime's `quantize_static` in QDQ format) seen as the
float model MLIP runs, its rounding carried on the tensors' types.

The patterns of `QDQ_PATTERNS`, in order:

- `fold-weight-dequantize`: a DequantizeLinear of a constant integer tensor (a weight or a
  bias) is computed now, exactly as ONNX's reference does, into a float constant whose type
  records the quantization (`#mrvl.rounded`, no QuantizeLinear).
- `absorb-fake-quantize`: a QuantizeLinear whose every user is a DequantizeLinear with the
  same per-tensor scale and zero point is a rounding of a float tensor to the int8 grid;
  the pair goes (its users read the float tensor), and the tensor's type records it. A grid
  starting at zero (uint8, zero point 0) also clamps what it rounds: unless the tensor is
  nonnegative anyway, a Clip to the grid's range stays, and its result is the rounded tensor.

Then every op reading or writing a rounded tensor records, as a `#mrvl.quantized`
(`mrvl.quantized`), how its input, weight and output were quantized: rule `quant.int8`
(`mlip_rules`) reads it with the target option `quantize=int8`, and `fuse-mrvl` gives each layer the record
of its nodes. Placement and fusion so see the float model; `restore-host-qdq` ends the type
state after partitioning.

    %h = graph.Relu %c : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.25], zero_point [0], axis 0>, "h_q", "h_dq">>
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp, StringAttr, TensorType, f32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect.cpu import element_type_of
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_value, node_name
from mrvl_dialect.locations import node_location
from mrvl_dialect.mrvl import QUANTIZED_ATTR, RoundedAttr
from mrvl_dialect.weights import WeightStore
from mrvl.passes.qdq_tensors import (
    dequantized,
    nonnegative,
    quant_params,
    quantized_record,
    scalar_constant,
    sync_signatures,
    with_encoding,
)


@dataclass(frozen=True)
class QdqPattern:
    """One rewrite of `recognize-qdq`: a name (tests and docs), what it does, and the
    function applying it to one op (True when it rewrote)."""

    name: str
    text: str
    apply: Callable[[Operation, WeightStore], bool]


def fold_weight_dequantize(op: Operation, store: WeightStore) -> bool:
    if not isinstance(op, g.DequantizeLinearOp) or not _whole_bytes_integer(op.x) or element_type_of(op.y) != f32:
        return False
    x = constant_value(op.x)
    operands = [op.x_scale] + ([op.x_zero_point] if op.x_zero_point is not None else [])
    if x is None or any(constant_value(v) is None for v in operands):
        return False
    params = quant_params(op, op.x)
    array = dequantized(op, np.asarray(x))
    assert isinstance(op.y.type, TensorType)
    tensor_type = op.y.type
    if params is not None:
        tensor_type = TensorType(f32, tensor_type.get_shape(), RoundedAttr(params, StringAttr(""), StringAttr(node_name(op))))
    name = op.y.name_hint or node_name(op)
    constant = ConstantOp(store.constant_attr(name, array, tensor_type))
    constant.location = op.location
    constant.results[0].name_hint = op.y.name_hint
    Rewriter.replace_op(op, constant)
    return True


def _whole_bytes_integer(value: SSAValue) -> bool:
    """An integer tensor of 8 bits or more (int4 and the float8s are not folded)."""
    element = value.type.element_type if isinstance(value.type, TensorType) else None
    return isinstance(element, IntegerType) and element.width.data >= 8


def absorb_fake_quantize(op: Operation, store: WeightStore) -> bool:
    # Only in a function's own body: restore-host-qdq puts pairs back there, not in If bodies.
    if not isinstance(op, g.QuantizeLinearOp) or not op.y.uses or not isinstance(op.parent_op(), func.FuncOp):
        return False
    if not _whole_bytes_integer(op.y) or not op.x.has_one_use():
        # Another reader of the float tensor (a graph output, a second QuantizeLinear of
        # other scales) reads it unrounded: restore-host-qdq could not tell it apart.
        return False
    params = quant_params(op, op.y)
    users = [use.operation for use in op.y.uses]
    if params is None or len(params.scales()) != 1 or element_type_of(op.x) != f32:
        return False
    for user in users:
        if not isinstance(user, g.DequantizeLinearOp) or user.x is not op.y or quant_params(user, user.x) != params:
            return False
    low, high = params.bounds()
    points = set(params.zero_points())
    if points == {high}:
        return False  # the grid ends at zero: a clamp to x <= 0 that no layer stands for
    rounded: SSAValue = op.x
    if points == {low} and not nonnegative(op.x):
        # The grid starts at zero: the pair also clamps to [0, its largest value], standing
        # for a Relu or Clip(0, 6) the quantizer dropped (uint8 after a Relu or ReLU6); the
        # clamp comes back as a Clip (a ReLU6 legalize-mrvl turns into MLIP layers).
        at = InsertPoint.before(op)
        bounds = [scalar_constant(v, f32, at, f"{node_name(op)}.{k}")
                  for k, v in (("min", 0.0), ("max", (high - low) * params.scales()[0]))]
        clip = g.ClipOp.build(operands=[op.x, [bounds[0]], [bounds[1]]], result_types=[op.x.type])
        clip.location = node_location(node_name(op), "Clip")
        Rewriter.insert_op(clip, at)
        rounded = clip.results[0]
    rounded = with_encoding(rounded, RoundedAttr(params, StringAttr(node_name(op)), StringAttr(node_name(users[0]))))
    for user in users:
        user.y.replace_all_uses_with(rounded)
        Rewriter.erase_op(user)
    Rewriter.erase_op(op)
    return True


QDQ_PATTERNS: tuple[QdqPattern, ...] = (
    QdqPattern("fold-weight-dequantize",
               "A DequantizeLinear of a constant integer tensor becomes the float constant it computes.",
               fold_weight_dequantize),
    QdqPattern("absorb-fake-quantize",
               "A QuantizeLinear read only by DequantizeLinears of its own scale and zero point goes; "
               "the type of the tensor it rounded records the pair.",
               absorb_fake_quantize),
)


@dataclass(frozen=True)
class RecognizeQdqPass(ModulePass):
    """Fold weight DequantizeLinears and take activation Q/DQ pairs off the graph, recording
    them on the tensors' types (module doc); runs before `cleanup-graph`."""

    name = "recognize-qdq"

    absorb: bool = True
    """Take activation Q/DQ pairs off (False: only fold weights; all-host builds keep them
    anyway, through `restore-host-qdq`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        store = WeightStore.of(op)
        patterns = [p for p in QDQ_PATTERNS if self.absorb or p.name != "absorb-fake-quantize"]
        for function in (f for f in op.ops if isinstance(f, func.FuncOp)):
            for pattern in patterns:
                for nested in list(function.walk()):
                    if nested.parent is not None:
                        pattern.apply(nested, store)
            sync_signatures(function)
            for nested in function.walk():
                if not isinstance(nested, ConstantOp) and (quantized := quantized_record(nested)) is not None:
                    nested.attributes[QUANTIZED_ATTR] = quantized
