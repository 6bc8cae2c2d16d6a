"""Passes keep the model's meaning: the IR after each stage, run by the reference
interpreter, matches onnxruntime on the zoo models (within 1e-4 of each output's scale, mrvl/numerics.py)."""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context
from xdsl.passes import PassPipeline

from mrvl.backend.reference_interpreter import run
from mrvl.frontend.onnx_importer import import_onnx
from numeric_asserts import assert_close
from mrvl.passes import get_all_passes

STAGES = [
    "",
    "place-ops,fuse-mrvl",
    "place-ops,fuse-mrvl,convert-layout",
    "cleanup-graph,place-ops,partition-mrvl,fuse-mrvl,convert-layout",
]
MODELS = ["mnist", "resnet_small", "mobilenet_small", "transformer_block", "paddle_ocr_rec", "ocr_cls_stale", "vad_if",
          "paddle_crnn", "gru_kws", "captcha_crnn_stale", "face_rnet_b16",
          "keras_nhwc_cnn"]


def _inputs(model, shapes: dict[str, list[int]]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    feeds = {}
    for i in model.graph.input:
        dims = shapes.get(i.name) or [d.dim_value for d in i.type.tensor_type.shape.dim]
        feeds[i.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds


@pytest.mark.parametrize("pipeline", STAGES, ids=["import", "fused", "layout", "partitioned"])
@pytest.mark.parametrize("name", MODELS)
def test_stage_matches_onnxruntime(name, pipeline):
    model = zoo.ZOO[name]()
    shapes = ZOO_INPUT_SHAPES[name]
    module = import_onnx(model, shapes)
    if pipeline:
        PassPipeline.parse_spec(get_all_passes(), pipeline).apply(Context(), module)
    feeds = _inputs(model, shapes)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    actual = run(module, list(feeds.values()))
    assert len(actual) == len(expected)
    for want, got in zip(expected, actual):
        assert_close(got, want)


LAYOUT_CASES = sorted((Path(__file__).parent / "filecheck" / "passes").glob("convert-layout-host-*.onnxtxt"))


@pytest.mark.parametrize("path", LAYOUT_CASES, ids=[p.stem for p in LAYOUT_CASES])
def test_host_ops_between_subgraphs_in_nhwc(path):
    """The convert-layout cases whose host activations, products and sums run in NHWC between
    subgraphs (and the ones kept NCHW) compute what onnxruntime does, partitioned."""
    text = path.read_text()
    model = onnx.parser.parse_model(text[text.index("<ir_version"):])
    module = import_onnx(model, {})
    pipeline = "cleanup-graph,place-ops,partition-mrvl{policies=compute-intensive},fuse-mrvl,convert-layout"
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(Context(), module)
    feeds = _inputs(model, {})
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    for want, got in zip(expected, run(module, list(feeds.values())), strict=True):
        assert_close(got, want)
