"""Evaluating one `graph` op on numpy arrays with ONNX's reference implementation."""

from functools import cache

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute

from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.graph_ops_gen import OPSET
from mrvl_dialect.graph_base import OPERAND_SEGMENTS, RESULT_SEGMENTS, OnnxOp, default_segments
from mrvl_dialect.graph_queries import op_type


class NotEvaluable(Exception):
    """The op has an attribute or structure this evaluator cannot hand to ONNX."""


def attribute_value(attr: Attribute):
    """A property as the Python value onnx.helper.make_attribute takes."""
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, DenseArrayBase):
        return list(attr.get_values())
    if isinstance(attr, ArrayAttr):
        return [attribute_value(a) for a in attr.data]
    if isinstance(attr, TensorType):
        return helper.make_tensor_type_proto(
            onnx.helper.np_dtype_to_tensor_dtype(BY_XDSL[attr.element_type].numpy), attr.get_shape()
        )
    raise NotEvaluable(f"attribute {attr}")


@cache
def _reads_pads_per_axis() -> bool:
    """Whether onnx.reference's 2-D MaxPool with unit strides and dilations reads `pads` as
    (top, bottom, left, right) instead of ONNX's (top, left, bottom, right), as onnx 1.23's
    does (its other MaxPool path and AveragePool read them right): one left pad must widen
    the output. Asked once, when a MaxPool is first evaluated."""
    from onnx.reference import ReferenceEvaluator  # ~0.1 s to import: only once something is evaluated

    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], pads=[0, 1, 0, 0])
    (y,) = ReferenceEvaluator(node).run(None, {"x": np.zeros((1, 1, 2, 3), np.float32)})
    return y.shape != (1, 1, 1, 3)


def reference_pads(kind: str, attributes: dict) -> list[int]:
    """The `pads` of an op with these ONNX attributes, in the order onnx.reference reads them."""
    pads = attributes["pads"]
    unit = all(set(attributes.get(k) or [1]) == {1} for k in ("strides", "dilations"))
    if kind == "MaxPool" and len(pads) == 4 and unit and _reads_pads_per_axis():
        top, left, bottom, right = pads
        return [top, bottom, left, right]
    return pads


def evaluate(op: OnnxOp, values: list[np.ndarray]) -> list[np.ndarray]:
    """The results of `op` on `values` (one array per operand, in order)."""
    if op.regions:
        raise NotEvaluable(f"'{op.name}' has regions")
    kinds = op.operand_kinds()
    segments = op.properties.get(OPERAND_SEGMENTS)
    sizes = list(segments.get_values()) if segments else default_segments(kinds, len(values))
    inputs: list[np.ndarray | None] = []
    remaining = iter(values)
    for kind, size in zip(kinds, sizes):
        taken = [next(remaining) for _ in range(size)]
        inputs.extend(taken if taken or kind == "variadic" else [None])
    while inputs and inputs[-1] is None:
        inputs.pop()
    # Defaults stay implicit: ONNX's evaluator may predate an attribute the schema has now.
    defaults = op.get_irdl_definition().properties
    attributes = {
        k: attribute_value(v) for k, v in op.properties.items()
        if k not in (OPERAND_SEGMENTS, RESULT_SEGMENTS) and v != defaults[k].default_value
    }
    if "pads" in attributes:
        attributes["pads"] = reference_pads(op_type(op), attributes)
    names = [f"i{k}" if x is not None else "" for k, x in enumerate(inputs)]
    outputs = [f"o{k}" for k in range(len(op.results))]
    node = helper.make_node(op_type(op), names, outputs, **attributes)
    feeds = {n: x for n, x in zip(names, inputs) if n}
    from onnx.reference import ReferenceEvaluator  # ~0.1 s to import: only once something is evaluated

    try:
        return ReferenceEvaluator(node, opsets={"": OPSET}).run(None, feeds)
    except Exception as e:  # onnx.reference raises whatever numpy raises
        raise NotEvaluable(f"'{op.name}': {e}") from None
