"""The weight store: tensor data that IR refers to by `dense_resource<handle>`.

Weights never enter the IR text or xDSL's process-global blob storage. A `WeightStore`
maps handles to numpy arrays (read-only views of the model file where possible) and
belongs to one module: `WeightStore.of(module)`. The MLIR printer writes them as a
`dialect_resources` section only when asked, and reading such a section moves the blobs
into the parsed module's store.
"""

import re
import weakref
from collections.abc import Iterator

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface

from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.errors import CompileError
from mrvl_dialect.limits import check_tensor_size
from mrvl_dialect.shared_attributes import resource_attr

INLINE_MAX_ELEMENTS = 16
_HANDLE_CHARS = re.compile(r"[^A-Za-z0-9_.$]")
_stores: "weakref.WeakKeyDictionary[ModuleOp, WeightStore]" = weakref.WeakKeyDictionary()


class WeightStore:
    """Named arrays behind a module's `dense_resource` handles."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}
        self._last_number: dict[str, int] = {}

    @staticmethod
    def of(module: ModuleOp) -> "WeightStore":
        """The store of `module`, created empty on first use."""
        if (store := _stores.get(module)) is None:
            store = _stores[module] = WeightStore()
        return store

    def attach(self, module: ModuleOp) -> None:
        _stores[module] = self

    def add(self, name: str, array: np.ndarray) -> str:
        """Store `array` under a fresh handle derived from `name`; returns the handle."""
        base = _HANDLE_CHARS.sub("_", name) or "weight"
        if not (base[0].isalpha() or base[0] == "_"):
            base = f"_{base}"
        # Numbered from the last number `base` took (never freed), not from 1: adding many
        # arrays of one name stays linear.
        n = self._last_number.get(base, 0)
        handle = base if n == 0 else f"{base}_{n}"
        while handle in self._arrays:
            n += 1
            handle = f"{base}_{n}"
        self._last_number[base] = n
        self._arrays[handle] = array
        return handle

    def put(self, handle: str, array: np.ndarray) -> None:
        """Set the array behind an existing handle (as parsed from IR text)."""
        self._arrays[handle] = array

    def __getitem__(self, handle: str) -> np.ndarray:
        return self._arrays[handle]

    def __contains__(self, handle: str) -> bool:
        return handle in self._arrays

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self._arrays.values())

    def constant_attr(self, name: str, array: np.ndarray, tensor_type: TensorType) -> DenseIntOrFPElementsAttr | DenseResourceAttr:
        """`array` as a constant's value: inline `dense<>` for integer tensors of up to
        INLINE_MAX_ELEMENTS and scalars (shapes, axes, indices passes read), else a new
        `dense_resource` handle in this store."""
        if array.size <= 1 or (array.dtype.kind in "iub" and array.size <= INLINE_MAX_ELEMENTS):
            data = np.ascontiguousarray(array, BY_XDSL[tensor_type.element_type].numpy).tobytes()
            return DenseIntOrFPElementsAttr(tensor_type, BytesAttr(data))
        return resource_attr(self.add(name, array), tensor_type)

    def value(self, attr: DenseResourceAttr) -> np.ndarray:
        """The array behind `attr`; KeyError when the IR came without its weights."""
        return self._arrays[attr.resource_handle.data]


def resource_handles(module: ModuleOp) -> list[DenseResourceAttr]:
    """The `dense_resource` attributes on the module's ops, in IR order, each once."""
    found: dict[str, DenseResourceAttr] = {}

    def visit(attr: Attribute) -> None:
        if isinstance(attr, DenseResourceAttr):
            found.setdefault(attr.resource_handle.data, attr)
        elif isinstance(attr, ArrayAttr):
            for element in attr.data:
                visit(element)
        elif isinstance(attr, DictionaryAttr):
            for element in attr.data.values():
                visit(element)

    for op in module.walk():
        for attr in (*op.properties.values(), *op.attributes.values()):
            visit(attr)
    return list(found.values())


def resources_section(module: ModuleOp) -> str:
    """The module's weights as an MLIR `dialect_resources` section ("" if none)."""
    store = WeightStore.of(module)
    entries = []
    for attr in resource_handles(module):
        handle = attr.resource_handle.data
        if handle in store:
            array = np.ascontiguousarray(store[handle])
            # MLIR blobs start with their alignment as a little-endian u32.
            alignment = max(array.dtype.itemsize, 1).to_bytes(4, "little")
            entries.append(f'      {handle}: "0x{alignment.hex().upper()}{array.tobytes().hex().upper()}"')
    if not entries:
        return ""
    body = ",\n".join(entries)
    return f"\n{{-#\n  dialect_resources: {{\n    builtin: {{\n{body}\n    }}\n  }}\n#-}}\n"


def adopt_parsed_blobs(module: ModuleOp) -> None:
    """Move blobs the parser left in xDSL's global builtin storage into the module's store.

    Handles without a blob (IR printed without weights) stay empty in the store. Blobs
    nothing refers to are dropped, so that no later parse sees them.
    """
    storage = Builtin.get_interface(OpAsmDialectInterface)._blob_storage
    blobs = dict(storage)
    storage.clear()
    store = WeightStore.of(module)
    for attr in resource_handles(module):
        blob = blobs.get(attr.resource_handle.data, "")
        if blob:
            store.put(attr.resource_handle.data, _blob_array(attr, blob))


def _blob_array(attr: DenseResourceAttr, blob: str) -> np.ndarray:
    """The array a parsed blob holds, checked against the type the IR gives it (the text
    may have been edited: a blob cut short, a type changed)."""
    handle = attr.resource_handle.data
    where = f"dialect_resources '{handle}'"
    tensor_type = attr.type
    element = BY_XDSL.get(tensor_type.element_type) if isinstance(tensor_type, TensorType) else None
    if element is None or element.numpy is None:
        raise CompileError(where, f"the weights of {tensor_type} cannot be read")
    dims = tensor_type.get_shape()
    if any(d < 0 for d in dims):
        raise CompileError(where, f"the weights of {tensor_type} need a static shape")
    check_tensor_size(where, handle, dims, element)
    try:
        data = bytes.fromhex(blob[2 + 8 :])  # "0x" and the alignment word
    except ValueError:
        raise CompileError(where, "is not a blob of hexadecimal digits") from None
    expected = int(np.prod(dims, dtype=object)) * element.numpy.itemsize
    if len(data) != expected:
        raise CompileError(where, f"has {len(data)} bytes of data, but {tensor_type} needs {expected}")
    return np.frombuffer(data, element.numpy).reshape(dims)
