"""Reading ONNX model files without copying their weights.

A binary `.onnx` file is memory-mapped. Before protobuf parses it, the raw data of its
large initializers is cut out of the message (protobuf offers no zero-copy parse and
would otherwise hold a second copy of every weight), and each weight becomes a
read-only numpy view of the mapped file. Weights in external data files are mapped the
same way, after checking that their paths stay inside the model's folder.
"""

import math
import mmap
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnx.parser
from google.protobuf.message import DecodeError
from onnx import TensorProto, numpy_helper

from mrvl.frontend.protobuf_wire import LEN, WireError, fields, len_field
from mrvl_dialect.element_types import BY_ONNX, ElementType, onnx_type_name
from mrvl_dialect.errors import CompileError
from mrvl_dialect.limits import check_tensor_size

TEXT_SUFFIXES = (".onnxtxt", ".onnxtext")
MAPPED_MIN_BYTES = 1024
"""Initializers with at least this much raw data are mapped; smaller ones (shapes, axes,
scalars) stay in the message, where shape inference can read them."""

# Protobuf field numbers (onnx/onnx.proto3).
_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_TENSOR_RAW_DATA = 9


@dataclass
class LoadedModel:
    model: onnx.ModelProto
    """The model; mapped initializers keep their dims and type but no data."""
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    """Data of the initializers that are not in `model`, by initializer name."""
    base_dir: Path | None = None
    """Where external data files are looked up."""
    quantized_hidden: set[str] = field(default_factory=set)
    """Outputs of the LSTMs that stand for onnxruntime's DynamicQuantizeLSTM (the importer
    marks those ops `mrvl.quantized_hidden`)."""


def load_model(path: str | Path, text: bool | None = None) -> LoadedModel:
    """Read a binary (`.onnx`) or text (`.onnxtxt`) ONNX model; `text` overrides the suffix."""
    path = Path(path)
    if path.is_dir():
        raise CompileError("", "is a directory, not an ONNX model")
    try:
        if path.suffix in TEXT_SUFFIXES if text is None else text:
            return from_proto(_parse_text(path.read_text()), base_dir=path.parent)
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                raise CompileError("", "is empty, not an ONNX model")
            buffer = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return from_proto(*_parse_binary(buffer), base_dir=path.parent)
    except FileNotFoundError:
        raise CompileError("", "no such file") from None
    except PermissionError:
        raise CompileError("", "permission denied") from None
    except UnicodeDecodeError:
        raise CompileError("", "is not ONNX text (not UTF-8)") from None


def load_bytes(data: bytes, text: bool = False) -> LoadedModel:
    """A model from memory (as read from stdin); external data cannot be resolved."""
    if text:
        try:
            return from_proto(_parse_text(data.decode()))
        except UnicodeDecodeError:
            raise CompileError("", "is not ONNX text (not UTF-8)") from None
    if not data:
        raise CompileError("", "is empty, not an ONNX model")
    return from_proto(*_parse_binary(memoryview(data)))


def from_proto(model: onnx.ModelProto, weights: dict[str, np.ndarray] | None = None,
               base_dir: Path | None = None) -> LoadedModel:
    loaded = LoadedModel(model, weights or {}, base_dir)
    _load_external_data(loaded)
    return loaded


def _parse_text(text: str) -> onnx.ModelProto:
    # Whole-line `//` comments let lit RUN and CHECK lines live in the model file.
    text = "\n".join("" if line.lstrip().startswith("//") else line for line in text.splitlines())
    try:
        return onnx.parser.parse_model(text)
    except onnx.parser.ParseError as e:
        raise CompileError("", f"not valid ONNX text: {_parse_error_message(e)}") from None


def _parse_error_message(error: Exception) -> str:
    """`line L, column C: what` from onnx.parser's bytes-valued, multi-line message."""
    raw = error.args[0] if error.args else str(error)
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else str(raw)
    position = re.search(r"line: (\d+) column: (\d+)", text)
    reason = text.strip().splitlines()[-1] if text.strip() else "syntax error"
    if position is None:
        return " ".join(text.split())
    return f"line {position[1]}, column {position[2]}: {reason.strip()}"


def _parse_binary(buffer: mmap.mmap | memoryview) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The model without its large initializers' data, and that data as views of `buffer`."""
    try:
        stripped, spans = _strip_large_raw_data(memoryview(buffer))
        model = onnx.ModelProto.FromString(stripped)
    except (DecodeError, WireError, RuntimeError) as e:
        raise CompileError("", f"is not an ONNX model, or is truncated ({e})") from None
    if not model.HasField("graph"):
        raise CompileError("", "is not an ONNX model: it has no graph")
    weights = {}
    for tensor, span in zip(model.graph.initializer, spans, strict=True):
        if span is not None:
            weights[tensor.name] = _view(buffer, span[0], span[1], tensor)
    return model, weights


def _view(buffer: mmap.mmap | np.ndarray, offset: int, length: int, tensor: TensorProto) -> np.ndarray:
    """A read-only array over `length` bytes at `offset`, checked against the tensor's type."""
    dtype, count = _declared_data(tensor)
    _check_data_size(tensor, length, count * dtype.itemsize, "bytes")
    return np.frombuffer(buffer, dtype, count, offset).reshape(tuple(tensor.dims))


def _declared_data(tensor: TensorProto) -> tuple[np.dtype, int]:
    """The dtype and element count of a tensor held as raw bytes; its element type must
    have whole bytes (not STRING, INT4, FLOAT8)."""
    element = BY_ONNX.get(tensor.data_type)
    if element is None or element.numpy is None:
        raise CompileError(
            f"initializer '{tensor.name}'",
            f"element type {onnx_type_name(tensor.data_type)} is not supported",
        )
    return element.numpy, _declared_count(tensor, element)


def _declared_count(tensor: TensorProto, element: ElementType) -> int:
    """The number of elements the tensor's dims declare; negative dims and tensors over
    the size limit are refused here, before any data is looked at."""
    where = f"initializer '{tensor.name}'"
    if any(d < 0 for d in tensor.dims):
        raise CompileError(where, f"negative dimension in {list(tensor.dims)}")
    check_tensor_size(where, tensor.name, list(tensor.dims), element)
    return math.prod(tensor.dims)


def _check_data_size(tensor: TensorProto, found: int, expected: int, unit: str) -> None:
    if found != expected:
        raise CompileError(
            f"initializer '{tensor.name}'",
            f"has {found} {unit} of data, but shape {list(tensor.dims)} of "
            f"{onnx_type_name(tensor.data_type)} needs {expected}",
        )


def _strip_large_raw_data(data: memoryview) -> tuple[bytes, list[tuple[int, int] | None]]:
    """The model message without large initializer data, and where that data lies.

    Returns the stripped message and, per initializer of the main graph in order, the
    (offset, length) of its raw data in `data`, or None where it was left in place.
    """
    spans: list[tuple[int, int] | None] = []
    model = bytearray()
    for number, wire, first, start, end in fields(data, 0, len(data)):
        if number == _MODEL_GRAPH and wire == LEN:
            graph = bytearray()
            for g_number, g_wire, g_first, g_start, g_end in fields(data, start, end):
                if g_number == _GRAPH_INITIALIZER and g_wire == LEN:
                    tensor = bytearray()
                    span = None
                    for t_number, t_wire, t_first, t_start, t_end in fields(data, g_start, g_end):
                        if (t_number == _TENSOR_RAW_DATA and t_wire == LEN
                                and t_end - t_start >= MAPPED_MIN_BYTES):
                            span = (t_start, t_end - t_start)
                        else:
                            tensor += data[t_first:t_end]
                    spans.append(span)
                    graph += len_field(_GRAPH_INITIALIZER, bytes(tensor))
                else:
                    graph += data[g_first:g_end]
            model += len_field(_MODEL_GRAPH, bytes(graph))
        else:
            model += data[first:end]
    return bytes(model), spans


def _load_external_data(loaded: LoadedModel) -> None:
    for tensor in loaded.model.graph.initializer:
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        info = {entry.key: entry.value for entry in tensor.external_data}
        where = f"initializer '{tensor.name}'"
        location = info.get("location", "")
        if loaded.base_dir is None:
            raise CompileError(where, "has external data, but the model was not read from a file")
        try:
            path = _safe_external_path(loaded.base_dir, location, where)
            offset = int(info.get("offset", "0"))
            size = path.stat().st_size
            length = int(info["length"]) if "length" in info else size - offset
        except ValueError:
            raise CompileError(where, "external data offset or length is not a number") from None
        except OSError as e:
            raise CompileError(where, f"external data file '{location}' cannot be read: {e.strerror}") from None
        if offset < 0 or length < 0 or offset + length > size:
            raise CompileError(
                where, f"external data [{offset}, {offset + length}) lies outside '{location}' ({size} bytes)"
            )
        dtype, count = _declared_data(tensor)
        _check_data_size(tensor, length, count * dtype.itemsize, "bytes")
        # Map only the tensor's bytes (from a page boundary): the file may be far larger.
        start = offset - offset % mmap.ALLOCATIONGRANULARITY
        with open(path, "rb") as f:
            buffer = (mmap.mmap(f.fileno(), offset + length - start, access=mmap.ACCESS_READ, offset=start)
                      if length else np.empty(0, np.uint8))
        view = _view(buffer, offset - start, length, tensor)
        tensor.ClearField("external_data")
        tensor.data_location = TensorProto.DEFAULT
        if length < MAPPED_MIN_BYTES:
            tensor.raw_data = view.tobytes()  # small: shape inference may need its value
        else:
            loaded.weights[tensor.name] = view


def _safe_external_path(base_dir: Path, location: str, where: str) -> Path:
    """`location` inside `base_dir`: never absolute, never through `..` or a link."""
    relative = Path(location)
    if not location or relative.is_absolute() or location.startswith(("/", "\\")):
        raise CompileError(where, f"external data location '{location}' must be a relative path")
    if ".." in relative.parts or ".." in location.replace("\\", "/").split("/"):
        raise CompileError(where, f"external data location '{location}' must not contain '..'")
    path = base_dir / relative
    current = base_dir
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            raise CompileError(where, f"external data location '{location}' goes through a symbolic link")
    if not path.is_file():
        raise CompileError(where, f"external data file '{location}' not found next to the model")
    if path.stat().st_nlink > 1:
        raise CompileError(where, f"external data file '{location}' is a hard link")
    return path


_TYPED_FIELDS = ("float_data", "int32_data", "int64_data", "double_data", "uint64_data")
"""The fields other than raw_data that hold numbers; a tensor uses one of them."""


def small_initializer_value(tensor: TensorProto) -> np.ndarray:
    """The value of an initializer still held in the message, its size checked first."""
    element = BY_ONNX.get(tensor.data_type)
    if element is not None and element.numpy is not None:
        count = _declared_count(tensor, element)
        if tensor.HasField("raw_data"):
            _check_data_size(tensor, len(tensor.raw_data), count * element.numpy.itemsize, "bytes")
        else:
            per_element = 2 if element.numpy.kind == "c" else 1  # complex: real and imaginary parts
            found = sum(len(getattr(tensor, f)) for f in _TYPED_FIELDS)
            _check_data_size(tensor, found // per_element, count, "values")
    try:
        return numpy_helper.to_array(tensor)
    except (ValueError, TypeError) as e:
        raise CompileError(f"initializer '{tensor.name}'", f"cannot be read: {e}") from None
