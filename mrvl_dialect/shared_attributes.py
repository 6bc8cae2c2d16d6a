"""One instance of each of the attributes a compile builds over and over, and attributes
built from parameters that are valid by construction.

xDSL verifies an attribute's parameters every time one is constructed (a `TensorType` of
rank 4 is six attributes and tens of microseconds); attributes are immutable and compare
by value, so the passes and the importer share one object per distinct value instead. The
caches are bounded: a model has few distinct tensor types and short integer arrays.

Attributes that are new each time (a node's location, a weight's `dense_resource` handle)
cannot be shared: `unverified` builds them without checking parameters whose kinds the
caller already knows (a `NameLoc` of a `StringAttr`: 11 -> 1.3 us).
"""

from collections.abc import Iterable
from functools import lru_cache
from typing import TypeVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseResourceAttr,
    IntegerAttr,
    NoneAttr,
    ShapedType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute

_Parametrized = TypeVar("_Parametrized", bound=ParametrizedAttribute)

NONE = NoneAttr()
"""The attribute that stands for no value (a location without a child)."""

_CACHED = 4096


@lru_cache(maxsize=_CACHED)
def _tensor_type(element: Attribute, dims: tuple[int, ...]) -> TensorType:
    return TensorType(element, dims)


def tensor_type(element: Attribute, dims: Iterable[int]) -> TensorType:
    """`tensor<dims x element>`."""
    return _tensor_type(element, tuple(map(int, dims)))


_shapes: dict[int, tuple[TensorType, tuple[int, ...]]] = {}
"""Tensor types' dims by the type's id, with the type itself: kept alive, no other object can take its id."""


def tensor_shape(value_type: Attribute) -> tuple[int, ...] | None:
    """The dims of a tensor type, else None. Types are mostly shared instances (`tensor_type`)
    and a pass asks for the same ones over and over: found by identity, the dims are not
    rebuilt from the type's parameters each time (1 us -> 0.2 us)."""
    entry = _shapes.get(id(value_type))
    if entry is not None:
        return entry[1]
    if not isinstance(value_type, TensorType):
        return None
    if len(_shapes) >= _CACHED:
        _shapes.clear()
    dims = value_type.get_shape()
    _shapes[id(value_type)] = (value_type, dims)
    return dims


@lru_cache(maxsize=_CACHED)
def _i64_array(values: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def i64_array(values: Iterable[int]) -> DenseArrayBase:
    """`array<i64: values>`."""
    return _i64_array(tuple(map(int, values)))


@lru_cache(maxsize=_CACHED)
def _i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def i64_attr(value: int) -> IntegerAttr:
    """`value : i64`."""
    return _i64_attr(int(value))


@lru_cache(maxsize=_CACHED)
def shared_string(text: str) -> StringAttr:
    """`"text"`, for strings a compile repeats (placements, pattern names)."""
    return string_attr(text)


def unverified(kind: type[_Parametrized], *parameters: Attribute) -> _Parametrized:
    """`kind(*parameters)`, its parameters set as they are, without the verification (and
    the converters) of its constructor: only for parameters of the kinds its definition
    requires (the IR verifier still checks the ops that hold it)."""
    attribute = kind.__new__(kind)
    for (name, _), parameter in zip(kind.get_irdl_definition().parameters, parameters, strict=True):
        object.__setattr__(attribute, name, parameter)
    return attribute


def string_attr(text: str) -> StringAttr:
    """`StringAttr(text)` without checking that `text` is a `str`."""
    attribute = StringAttr.__new__(StringAttr)
    object.__setattr__(attribute, "data", text)
    return attribute


def resource_attr(handle: str, shaped_type: ShapedType) -> DenseResourceAttr:
    """`dense_resource<handle> : shaped_type`."""
    return unverified(DenseResourceAttr, string_attr(handle), shaped_type)
