"""ONNX element types and their xDSL and numpy counterparts.

ONNX's signed integers map to signless MLIR integers (as in MLIR's onnx and tosa dialects),
unsigned ones to `ui<N>`, and `bool` to `i1`.
"""

from dataclasses import dataclass

import numpy as np
from onnx import TensorProto
from xdsl.dialects.builtin import (
    ComplexType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    IntegerType,
    Signedness,
    bf16,
    f16,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute


@dataclass(frozen=True)
class ElementType:
    onnx: int
    """The `TensorProto.DataType` value."""
    onnx_name: str
    """The name ONNX schemas use in type strings, as in `tensor(float)`."""
    xdsl: Attribute
    numpy: np.dtype | None
    """The little-endian numpy dtype of its raw data (bfloat16: the raw bits as uint16),
    or None where one element is not a whole number of bytes or numpy has no match."""


def _int(width: int, signed: bool = True) -> IntegerType:
    return IntegerType(width, Signedness.SIGNLESS if signed else Signedness.UNSIGNED)


ELEMENT_TYPES: tuple[ElementType, ...] = (
    ElementType(TensorProto.FLOAT, "float", f32, np.dtype("<f4")),
    ElementType(TensorProto.FLOAT16, "float16", f16, np.dtype("<f2")),
    ElementType(TensorProto.BFLOAT16, "bfloat16", bf16, np.dtype("<u2")),
    ElementType(TensorProto.DOUBLE, "double", f64, np.dtype("<f8")),
    ElementType(TensorProto.INT8, "int8", _int(8), np.dtype("i1")),
    ElementType(TensorProto.INT16, "int16", _int(16), np.dtype("<i2")),
    ElementType(TensorProto.INT32, "int32", _int(32), np.dtype("<i4")),
    ElementType(TensorProto.INT64, "int64", _int(64), np.dtype("<i8")),
    ElementType(TensorProto.UINT8, "uint8", _int(8, False), np.dtype("u1")),
    ElementType(TensorProto.UINT16, "uint16", _int(16, False), np.dtype("<u2")),
    ElementType(TensorProto.UINT32, "uint32", _int(32, False), np.dtype("<u4")),
    ElementType(TensorProto.UINT64, "uint64", _int(64, False), np.dtype("<u8")),
    ElementType(TensorProto.BOOL, "bool", i1, np.dtype("?")),
    ElementType(TensorProto.INT4, "int4", _int(4), None),
    ElementType(TensorProto.UINT4, "uint4", _int(4, False), None),
    ElementType(TensorProto.COMPLEX64, "complex64", ComplexType(f32), np.dtype("<c8")),
    ElementType(TensorProto.COMPLEX128, "complex128", ComplexType(f64), np.dtype("<c16")),
    ElementType(TensorProto.FLOAT8E4M3FN, "float8e4m3fn", Float8E4M3FNType(), None),
    ElementType(TensorProto.FLOAT8E4M3FNUZ, "float8e4m3fnuz", Float8E4M3FNUZType(), None),
    ElementType(TensorProto.FLOAT8E5M2, "float8e5m2", Float8E5M2Type(), None),
    ElementType(TensorProto.FLOAT8E5M2FNUZ, "float8e5m2fnuz", Float8E5M2FNUZType(), None),
)

BY_ONNX = {t.onnx: t for t in ELEMENT_TYPES}
BY_ONNX_NAME = {t.onnx_name: t for t in ELEMENT_TYPES}
BY_XDSL = {t.xdsl: t for t in ELEMENT_TYPES}


def onnx_type_name(data_type: int) -> str:
    """`TensorProto.DataType` as ONNX spells it in messages (`FLOAT`, `STRING`, ...)."""
    try:
        return TensorProto.DataType.Name(data_type)
    except ValueError:
        return f"<unknown element type {data_type}>"
