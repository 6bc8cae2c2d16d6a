"""Helpers for tests that print and parse `graph` IR."""

from io import StringIO

import numpy as np
import onnx
import zoo

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from mrvl_dialect.graph import Graph
from mrvl_dialect.weights import adopt_parsed_blobs

ZOO_INPUT_SHAPES = {name: zoo.INPUT_SHAPES.get(name, {}) for name in zoo.ZOO}



def graph_context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Graph):
        ctx.load_dialect(dialect)
    return ctx


def parse_ir(text: str) -> ModuleOp:
    module = Parser(graph_context(), text).parse_module()
    adopt_parsed_blobs(module)
    return module


def print_ir(module: ModuleOp, **options: bool) -> str:
    out = StringIO()
    Printer(stream=out, **options).print_op(module)
    return out.getvalue()


def random_input(rng: np.random.Generator, value: onnx.ValueInfoProto, shape: list[int]) -> np.ndarray:
    """A seeded input for graph input `value` of `shape`: standard normal floats; for an
    integer input (token ids, indices) values in [0, 16), which every table of the zoo has, or
    for an attention mask (Hugging Face names them so) ones with the last quarter 0, padding."""
    dtype = onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
    if np.issubdtype(dtype, np.integer) and value.name.endswith("attention_mask"):
        mask = np.ones(shape, dtype)
        mask[..., shape[-1] - shape[-1] // 4:] = 0
        return mask
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 16, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)
