"""One instance of each of the attributes a compile builds over and over.

xDSL verifies an attribute's parameters every time one is constructed (a `TensorType` of
rank 4 is six attributes and tens of microseconds); attributes are immutable and compare
by value, so the passes and the importer share one object per distinct value instead. The
caches are bounded: a model has few distinct tensor types and short integer arrays.
"""

from collections.abc import Iterable
from functools import lru_cache

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, NoneAttr, TensorType, i64
from xdsl.ir import Attribute

NONE = NoneAttr()
"""The attribute that stands for no value (a location without a child)."""

_CACHED = 4096


@lru_cache(maxsize=_CACHED)
def _tensor_type(element: Attribute, dims: tuple[int, ...]) -> TensorType:
    return TensorType(element, dims)


def tensor_type(element: Attribute, dims: Iterable[int]) -> TensorType:
    """`tensor<dims x element>`."""
    return _tensor_type(element, tuple(int(d) for d in dims))


@lru_cache(maxsize=_CACHED)
def _i64_array(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def i64_array(values: Iterable[int]) -> DenseArrayBase:
    """`array<i64: values>`."""
    return _i64_array(tuple(int(v) for v in values))


@lru_cache(maxsize=_CACHED)
def _i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def i64_attr(value: int) -> IntegerAttr:
    """`value : i64`."""
    return _i64_attr(int(value))
