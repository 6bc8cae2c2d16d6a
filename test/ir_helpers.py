"""Helpers for tests that print and parse `graph` IR."""

from io import StringIO

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
