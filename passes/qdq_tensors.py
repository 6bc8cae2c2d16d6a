"""What the QDQ passes share: reading a QuantizeLinear's or DequantizeLinear's scale and zero
point (a graph op's, or a host `cpu.quantize`'s and `cpu.dequantize`'s), and the tensor-type
state of a rounded tensor.

`recognize-qdq` takes a QDQ model's activation QuantizeLinear -> DequantizeLinear pairs off
the graph and folds its weight DequantizeLinears; what each pair or fold did is carried on
the float tensor's type, as its encoding (`#mrvl.rounded`, like the element type of MLIR's
quant dialect). Every op reading or writing such a tensor records, as a `#mrvl.quantized`,
how its input, weight and output were quantized. `restore-host-qdq` ends the type state.
"""

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FunctionType,
    IntegerType,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

import mrvl_dialect.cpu as cpu
import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import constant_op, constant_value, module_of
from mrvl_dialect.locations import node_location
from mrvl_dialect.mrvl import QUANTIZED_ATTR, QuantizedAttr, QuantParamsAttr, RoundedAttr, SubgraphOp

# --- Reading Q/DQ operands ------------------------------------------------------------


def quant_params(op: g.QuantizeLinearOp | g.DequantizeLinearOp, integer: SSAValue) -> QuantParamsAttr | None:
    """The scale and zero point of `op` as recorded params; None when they are not constants
    or the quantization is blocked."""
    scale_value = op.operands[1]
    zero_value = op.operands[2] if len(op.operands) > 2 else None
    scale = constant_value(scale_value)
    zero = constant_value(zero_value) if zero_value is not None else np.zeros(1, np.int64)
    if scale is None or zero is None or op.block_size.value.data:
        return None
    assert isinstance(integer.type, TensorType) and isinstance(integer.type.element_type, IntegerType)
    rank = len(integer.type.get_shape())
    axis = op.axis.value.data % rank if scale.size > 1 else 0
    return QuantParamsAttr.of(integer.type.element_type, scale.reshape(-1).tolist(),
                              np.broadcast_to(zero.reshape(-1), scale.reshape(-1).shape).tolist(), axis)


def dequantized(op: g.DequantizeLinearOp, x: np.ndarray) -> np.ndarray:
    """DequantizeLinear of the constant `x`: (x - zero point) * scale in float32, each
    converted to float32 first, as ONNX's reference computes it."""
    scale = np.asarray(constant_value(op.x_scale), np.float32)
    zero = constant_value(op.x_zero_point) if op.x_zero_point is not None else np.zeros((), x.dtype)
    zero = np.asarray(zero).astype(np.float32)
    if scale.size > 1 or op.block_size.value.data:
        axis = op.axis.value.data % x.ndim
        if op.block_size.value.data:
            scale = np.repeat(scale, op.block_size.value.data, axis)[(slice(None),) * axis + (slice(0, x.shape[axis]),)]
            zero = np.repeat(zero, op.block_size.value.data, axis)[(slice(None),) * axis + (slice(0, x.shape[axis]),)]
        else:
            shape = [1] * x.ndim
            shape[axis] = -1
            scale, zero = scale.reshape(shape), zero.reshape(shape)
    return ((x.astype(np.float32) - zero) * scale).astype(np.float32)


def host_grid(op: cpu.QuantizeOp | cpu.DequantizeOp) -> tuple[np.float32, int] | None:
    """The one scale and zero point of a host quantize or dequantize whose integers are int8
    or uint8; None otherwise (a scale per axis or block, or operands not constant)."""
    if (op.zero_point is None or op.block_size.value.data != 0
            or cpu.element_type_of(op.quantized()) not in cpu.INTEGER_PRODUCT_TYPES):
        return None
    module = module_of(op)
    scale, zero_point = constant_value(op.scale, module), constant_value(op.zero_point, module)
    if scale is None or zero_point is None or scale.size != 1 or zero_point.size != 1:
        return None
    return np.float32(scale.reshape(())), int(zero_point.reshape(()))


def erase_if_unused(op: Operation | None, rewriter: PatternRewriter) -> None:
    """Erase `op` (a dequantize a fused group read) once nothing reads it."""
    if isinstance(op, Operation) and not any(r.uses for r in op.results):
        rewriter.erase(op)


def scalar_constant(value: float | int, element_type: Attribute, before: InsertPoint, name: str) -> SSAValue:
    """A rank-0 `graph.constant` of `value`, inserted at `before`, located at node `name`."""
    data = BytesAttr(np.asarray(value, BY_XDSL[element_type].numpy).tobytes())
    constant = ConstantOp(DenseIntOrFPElementsAttr(TensorType(element_type, []), data))
    constant.location = node_location(name)
    Rewriter.insert_op(constant, before)
    return constant.results[0]


# --- The tensor-type state ------------------------------------------------------------


def rounding(value: SSAValue) -> RoundedAttr | None:
    """How the QDQ model rounds `value`, from its type; None for a tensor it does not."""
    encoding = value.type.encoding if isinstance(value.type, TensorType) else None
    return encoding if isinstance(encoding, RoundedAttr) else None


def with_encoding(value: SSAValue, encoding: Attribute) -> SSAValue:
    """`value` retyped with `encoding` (NoneAttr: none) and returned; a constant's value
    follows its type. Function signatures follow with `sync_signatures`."""
    assert isinstance(value.type, TensorType)
    new_type = TensorType(value.type.element_type, value.type.get_shape(), encoding)
    if new_type == value.type:
        return value
    if isinstance(constant := value.owner, ConstantOp):
        attr = constant.value
        constant.properties["value"] = (
            DenseResourceAttr.from_params(attr.resource_handle.data, new_type) if isinstance(attr, DenseResourceAttr)
            else DenseIntOrFPElementsAttr(new_type, attr.data))
    return Rewriter.replace_value_with_new_type(value, new_type)


def sync_signatures(root: Operation) -> None:
    """Every function and subgraph under `root` typed as its arguments and returned values
    now are."""
    for function in root.walk():
        if isinstance(function, func.FuncOp | SubgraphOp) and function.body.blocks:
            block = function.body.block
            returned = block.last_op.operands if block.last_op is not None else ()
            inputs, outputs = tuple(a.type for a in block.args), tuple(v.type for v in returned)
            signature = function.properties["function_type"]
            assert isinstance(signature, FunctionType)
            if signature.inputs.data != inputs or signature.outputs.data != outputs:
                function.properties["function_type"] = FunctionType.from_lists(inputs, outputs)


def end_rounding_state(root: Operation) -> None:
    """Every tensor under `root` typed without its `#mrvl.rounded`."""
    for op in list(root.walk()):
        for value in [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]:
            if rounding(value) is not None:
                with_encoding(value, NoneAttr())
    sync_signatures(root)


# --- What an op reads and writes ------------------------------------------------------


def weight_params(value: SSAValue) -> QuantParamsAttr | None:
    """How a folded weight was quantized (None: not a folded weight)."""
    rounded = rounding(value) if constant_op(value) is not None else None
    return rounded.params if rounded is not None else None


def quantized_record(op: Operation) -> QuantizedAttr | None:
    """How `op`'s input (operand 0), weight (a constant operand 1) and output were quantized."""
    if not op.operands or not op.results:
        return None
    input_rounding = rounding(op.operands[0])
    weight = weight_params(op.operands[1]) if len(op.operands) > 1 else None
    output_rounding = rounding(op.results[0])
    if input_rounding is None and weight is None and output_rounding is None:
        return None
    return QuantizedAttr(input_rounding.params if input_rounding else NoneAttr(), weight or NoneAttr(),
                         output_rounding.params if output_rounding else NoneAttr())


NONNEGATIVE_THROUGH = (g.MaxPoolOp, g.AveragePoolOp, g.GlobalAveragePoolOp, g.GlobalMaxPoolOp, g.ReshapeOp,
                       g.FlattenOp, g.SqueezeOp, g.UnsqueezeOp, g.TransposeOp)
"""Ops whose output is nonnegative where their (first) input is."""


def nonnegative(value: SSAValue) -> bool:
    """Whether `value` cannot be negative: a Relu's, a grid starting at zero's, or that
    passed through `NONNEGATIVE_THROUGH`."""
    rounded = rounding(value)
    if rounded is not None and set(rounded.params.zero_points()) == {rounded.params.bounds()[0]}:
        return True
    owner = value.owner
    if isinstance(owner, g.ReluOp):
        return True
    return isinstance(owner, NONNEGATIVE_THROUGH) and nonnegative(owner.operands[0])



def layer_record(members: list[Operation]) -> QuantizedAttr | None:
    """The record of a layer from those of the ops fused into it, in fusion order: the
    first input, a weight, the last output."""
    records = [r for m in members if isinstance(r := m.attributes.get(QUANTIZED_ATTR), QuantizedAttr)]
    if not records:
        return None
    picked = []
    for i, role in enumerate(QuantizedAttr.ROLES):
        ordered = records if role != "output" else records[::-1]
        picked.append(next((r.parameters[i] for r in ordered if not isinstance(r.parameters[i], NoneAttr)), NoneAttr()))
    return QuantizedAttr(*picked)
