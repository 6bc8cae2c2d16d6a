"""Helpers for tests that print and parse `graph` IR."""

from io import StringIO

import numpy as np
import onnx

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from mrvl_dialect.graph import Graph
from mrvl_dialect.weights import adopt_parsed_blobs

# Exporters leave batch dims dynamic; the zoo's inputs are fixed like this in tests.
ZOO_INPUT_SHAPES = {
    "mnist": {},
    "resnet_small": {"input": [1, 3, 64, 64]},
    "mobilenet_small": {"images": [1, 3, 96, 96]},
    "mobilenet_v2": {"input": [1, 3, 96, 96]},
    "squeezenet": {"input": [1, 3, 98, 98]},
    "yolov3_tiny": {"images": [1, 3, 128, 128]},
    "transformer_block": {"x": [2, 16, 64]},
    "paddle_ocr_rec": {"x": [1, 3, 32, 100]},
    "ocr_cls_stale": {},
    "vad_if": {"input": [1, 512]},
    "paddle_crnn": {"x": [1, 3, 32, 100]},
    "gru_kws": {"mfcc": [1, 49, 10]},
    "lstm_speaker": {"mels": [1, 50, 40]},
    "t5_encoder": {"input_ids": [1, 12]},
    "captcha_crnn_stale": {},
    "face_pnet": {"input_1": [1, 3, 60, 80]},
    "face_rnet_b16": {},
    "keras_nhwc_cnn": {"input_1": [1, 24, 24, 3]},
    "yolov8_det": {},
    "ppocr_det": {"x": [1, 3, 320, 320]},
    "picodet_head": {},
    "mobilenet_v3": {"input": [1, 3, 96, 96]},
    "resnet50_sized": {},
}



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
    """A seeded input for graph input `value` of `shape`: standard normal floats, or for an
    integer input (token ids, indices) values in [0, 16), which every table of the zoo has."""
    dtype = onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 16, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)
