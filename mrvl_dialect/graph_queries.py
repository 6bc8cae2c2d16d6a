"""Small questions passes and emitters ask about `graph` ops: names, shapes, constant values."""

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp, CustomOp
from mrvl_dialect.locations import location_name
from mrvl_dialect.shared_attributes import tensor_shape
from mrvl_dialect.weights import WeightStore


def node_name(op: Operation) -> str:
    """The ONNX node name an op was imported from (its `NameLoc`); for IR without
    locations, its first result's name, else ""."""
    name = location_name(op.location)
    if name is not None:
        return name
    return next((r.name_hint for r in op.results if r.name_hint), "")


def op_type(op: Operation) -> str:
    """The ONNX operator an op stands for: `Conv` for `graph.Conv`."""
    if isinstance(op, CustomOp):
        return op.op_type.data
    return op.name.removeprefix("graph.")


def node_label(op: Operation) -> str:
    """How messages name an op: `node 'conv1' (Conv)`."""
    return f"node '{node_name(op)}' ({op_type(op)})"


def int_property(op: Operation, name: str, default: int = 0) -> int:
    """An integer ONNX attribute of a graph op, or its default when absent."""
    attr = op.properties.get(name)
    return attr.value.data if attr is not None else default


def ints_property(op: Operation, name: str, default: list[int]) -> list[int]:
    """An integer-list ONNX attribute of a graph op, or `default` when absent."""
    attr = op.properties.get(name)
    return list(attr.get_values()) if attr is not None else default


def shape(value: SSAValue) -> tuple[int, ...] | None:
    return tensor_shape(value.type)


def element_type(value: SSAValue):
    t = value.type
    return t.element_type if isinstance(t, TensorType) else None


def constant_op(value: SSAValue | None) -> ConstantOp | None:
    if value is None:
        return None
    owner = value.owner
    return owner if isinstance(owner, ConstantOp) else None


def constant_value(value: SSAValue | None, module: ModuleOp | None = None) -> np.ndarray | None:
    """The value of a `graph.constant` result; None if it is not one, or its data is absent
    (IR read without its weights)."""
    op = constant_op(value)
    if op is None:
        return None
    attr = op.value
    tensor = attr.get_type() if isinstance(attr, DenseResourceAttr) else attr.type
    dtype = BY_XDSL[tensor.element_type].numpy
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return np.frombuffer(attr.data.data, dtype).reshape(tensor.get_shape())
    root = module if module is not None else module_of(op)
    if root is None:
        return None
    store = WeightStore.of(root)
    handle = attr.resource_handle.data
    return store[handle] if handle in store else None


def required_constant_value(value: SSAValue, user: Operation) -> np.ndarray:
    """The value of a constant that `user` cannot do without (a layer's weights); a
    CompileError naming both when the IR was printed without its weights."""
    array = constant_value(value)
    if array is None:
        op = constant_op(value)
        attr = op.value if op is not None else None
        what = f"'{attr.resource_handle.data}'" if isinstance(attr, DenseResourceAttr) else "a constant"
        raise CompileError(node_label(user), f"needs the data of {what}, and the IR carries none: "
                                             "print it with --print-weights to keep the weights")
    return array


def module_of(op: Operation) -> ModuleOp | None:
    """The module an op belongs to (None while it is detached)."""
    while op.parent_op() is not None:
        op = op.parent_op()
    return op if isinstance(op, ModuleOp) else None
