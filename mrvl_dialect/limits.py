"""How large a tensor the compiler accepts.

A model file can declare any dims: an input of 1048576x1048576x1048576 floats, or an
initializer whose dims multiply past 2^63. Such a tensor cannot run on the board, and a
compiler that believes the dims allocates (folding, layout changes, arena planning) or
computes sizes that wrap around in int64. Every tensor type the importers create is
checked here first, in Python integers, which do not overflow.
"""

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp, TensorType

from mrvl_dialect.element_types import BY_XDSL, ElementType
from mrvl_dialect.errors import CompileError

MAX_TENSOR_BYTES = 1 << 34
"""16 GiB: the most one tensor may hold. OCTEON 10 boards carry tens of GiB of DDR shared
by the host program, its arena and the accelerator's weights, so a single larger tensor
is a broken or hostile model, not one that could run."""


def element_bits(element: ElementType) -> int:
    if element.numpy is not None:
        return element.numpy.itemsize * 8
    return element.xdsl.bitwidth  # int4, float8: no numpy dtype


def tensor_bytes(dims: Sequence[int], element: ElementType) -> int:
    """The bytes a tensor of `dims` needs (dims assumed non-negative; dynamic ones as 1)."""
    count = 1
    for d in dims:
        count *= d if d >= 0 else 1
    return (count * element_bits(element) + 7) // 8


def check_tensor_size(where: str, name: str, dims: Sequence[int], element: ElementType) -> None:
    """Refuse a tensor `name` of `dims` bigger than MAX_TENSOR_BYTES, before anything holds it."""
    size = tensor_bytes(dims, element)
    if size > MAX_TENSOR_BYTES:
        shape = "x".join(str(d) for d in dims)
        raise CompileError(
            where,
            f"'{name}' of shape {shape} {element.onnx_name} needs {size:,} bytes, more than the "
            f"{MAX_TENSOR_BYTES >> 30} GiB one tensor may hold",
        )


def check_module_tensor_sizes(module: ModuleOp) -> None:
    """Refuse IR read from text whose values include a tensor bigger than MAX_TENSOR_BYTES
    (the importer checks ONNX models as it builds their IR)."""
    for op in module.walk():
        arguments = [arg for region in op.regions for block in region.blocks for arg in block.args]
        for value in (*arguments, *op.results):
            if isinstance(value.type, TensorType) and (element := BY_XDSL.get(value.type.element_type)):
                check_tensor_size(f"'{op.name}'", value.name_hint or "a value", value.type.get_shape(), element)
