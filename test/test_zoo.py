"""The seeded model zoo (examples/zoo.py) builds valid, runnable, deterministic ONNX models."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import zoo
from ir_helpers import random_input

SMALL = [name for name in zoo.ZOO if name != "resnet50_sized"]
BUILDERS = zoo.ZOO
ALL_SMALL = SMALL
SIZES = {"paddle_ocr_rec": [2, 3, 32, 100], "paddle_crnn": [2, 3, 32, 100], "face_pnet": [2, 3, 60, 80],
         "ppocr_det": [2, 3, 64, 96]}
"""Inputs whose dynamic dims are not only the batch (Paddle's -1 height and width, P-Net's image size)."""


def random_feeds(model: onnx.ModelProto, rng: np.random.Generator, name: str) -> dict[str, np.ndarray]:
    """One seeded input per graph input (`random_input`); dynamic dims (the batch) are fixed to 2."""
    feeds = {}
    for inp in model.graph.input:
        shape = SIZES.get(name) or [d.dim_value if d.dim_value > 0 else 2 for d in inp.type.tensor_type.shape.dim]
        feeds[inp.name] = random_input(rng, inp, shape)
    return feeds


@pytest.mark.parametrize("name", ALL_SMALL)
def test_model_is_valid(name):
    model = BUILDERS[name]()
    onnx.checker.check_model(model, full_check=name not in zoo.FAILS_FULL_CHECK)
    assert model.ir_version == 8
    assert model.producer_name == "mrvl-xdsl zoo"
    assert model.graph.name
    names = [node.name for node in model.graph.node]
    assert all(names) and len(set(names)) == len(names)


@pytest.mark.parametrize("name", ALL_SMALL)
def test_model_runs_with_sane_numerics(name):
    model = BUILDERS[name]()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    outputs = session.run(None, random_feeds(model, np.random.default_rng(0), name))
    assert len(outputs) == len(model.graph.output)
    for out in outputs:
        assert np.isfinite(out).all()
        assert np.ptp(out) > 0, "output is constant"


@pytest.mark.parametrize("name", ALL_SMALL)
def test_model_bytes_are_deterministic(name):
    assert BUILDERS[name]().SerializeToString() == BUILDERS[name]().SerializeToString()


def test_full_check_exemptions_are_needed():
    """Each model exempt from ONNX's full check does fail it (the exemption hides nothing else)."""
    for name in zoo.FAILS_FULL_CHECK:
        with pytest.raises(onnx.shape_inference.InferenceError):
            onnx.checker.check_model(BUILDERS[name](), full_check=True)


def test_cli_writes_named_models(tmp_path):
    assert zoo.main([str(tmp_path), "mnist", "transformer_block"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mnist.onnx", "transformer_block.onnx"]
    assert (tmp_path / "mnist.onnx").read_bytes() == zoo.mnist_cnn().SerializeToString()


@pytest.mark.slow
def test_resnet50_sized_parameter_count():
    model = zoo.resnet50_sized()
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer if t.data_type == onnx.TensorProto.FLOAT)
    assert 24_000_000 < params < 27_000_000
