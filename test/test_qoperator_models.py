"""QOperator models (onnxruntime's quantize_static with QuantFormat.QOperator: QLinearConv,
QLinearMatMul and com.microsoft's QGemm and QLinear ops; scripts/quantize_zoo.py --format
qoperator) are imported as their QDQ twins: the same layers go to MLIP with the same
quantization, and partitioned in int8 or all on the host they match onnxruntime's integer
kernels."""

import json
from pathlib import Path

import onnx
import onnxruntime as ort
import pytest

from mrvl import partition_for_mrvl
from mrvl.compile import compile_model
from mrvl.run import INT8_LAYER_STEPS, quantization_steps, run_bundle
from numeric_asserts import assert_close
from test_c_backend import GCC, locked
from test_qdq_models import all_host_outputs, onnxruntime_outputs, qdq_model, quantize_zoo, seeded_inputs, subgraph_nodes

MODELS = ("resnet_small", "mobilenet_v2", "squeezenet", "yolov3_tiny")
"""A residual net (QLinearAdd, QGemm), depthwise convs with ReLU6, Fire modules (QLinearConcat)
and a detector (QLinearLeakyRelu, MaxPool and Pad on int8 tensors, Resize, Reshape, Transpose)."""


@pytest.fixture(scope="session")
def qop_dir(session_dir: Path) -> Path:
    folder = session_dir / "qoperator"
    folder.mkdir(exist_ok=True)
    return folder


def qoperator_model(folder: Path, name: str, scheme: str = "int8") -> Path:
    path = folder / f"{name}-{scheme}-qoperator.onnx"
    with locked(path):
        return path if path.exists() else quantize_zoo.quantize_zoo(name, folder, scheme, quant_format="qoperator")


def test_generator_writes_qoperator_ops(qop_dir):
    ops = {(n.domain, n.op_type) for n in onnx.load(str(qoperator_model(qop_dir, "resnet_small"))).graph.node}
    assert {("", "QLinearConv"), ("com.microsoft", "QLinearAdd"), ("com.microsoft", "QGemm")} <= ops
    assert ("", "Conv") not in ops


def _quant_layers(bundle: Path) -> list[dict]:
    """Each MLIP layer's quantization (scales, zero points, dtypes), in order, without names."""
    return [entry["tensors"] for path in sorted(bundle.glob("*-quant.json"))
            for entry in json.loads(path.read_text())["layers"]]


@pytest.mark.parametrize("name", [name if name in ("resnet_small", "yolov3_tiny") else
                                  pytest.param(name, marks=pytest.mark.slow) for name in MODELS])
def test_same_mlip_layers_as_the_qdq_twin_and_int8_matches(qop_dir, tmp_path, name):
    twins = {"qdq": qdq_model(qop_dir, name, "int8"), "qoperator": qoperator_model(qop_dir, name)}
    modules = {form: partition_for_mrvl(str(path), quantize="int8") for form, path in twins.items()}
    assert subgraph_nodes(modules["qoperator"]) == subgraph_nodes(modules["qdq"]) != []
    bundles = {form: compile_model(path, tmp_path / form, quantize="int8").output for form, path in twins.items()}
    layers = list(zip(_quant_layers(bundles["qoperator"]), _quant_layers(bundles["qdq"]), strict=True))
    # Every conv and fc is quantized alike. The QOperator format leaves a few tensors float
    # that QDQ rounds (a Clip's result before a pool, a classifier's output): what it does
    # record is the same.
    assert [q for q, _ in layers if "weight" in q] == [d for _, d in layers if "weight" in d] != []
    assert all(d[tensor] == record for q, d in layers for tensor, record in q.items())
    # Partitioned, int8 layers simulated: as onnxruntime's integer QOperator kernels compute.
    inputs = seeded_inputs(twins["qoperator"])
    got = run_bundle(bundles["qoperator"], inputs)
    session = ort.InferenceSession(str(twins["qoperator"]), providers=["CPUExecutionProvider"])
    steps = quantization_steps(twins["qoperator"])
    for output, expected in zip([o.name for o in session.get_outputs()], session.run(None, inputs)):
        step = steps.get(output)
        assert_close(got[output], expected, what=output,
                     quantization_step=None if step is None else INT8_LAYER_STEPS * step)


def _check(got: dict, model: Path, prefix: str) -> None:
    want = onnxruntime_outputs(model, seeded_inputs(model))
    steps = quantization_steps(model)
    for output, expected in want.items():  # a float output (squeezenet's pool) at float32 rounding
        assert_close(got[f"{prefix}__{output}"], expected, what=output, quantization_step=steps.get(output))


@pytest.fixture(scope="module")
def all_host(qop_dir: Path) -> dict:
    return all_host_outputs(qop_dir, {name: qoperator_model(qop_dir, name) for name in MODELS}, "all-host")


@pytest.mark.skipif(GCC is None, reason="needs gcc")
@pytest.mark.parametrize("name", MODELS)
def test_all_host_matches_onnxruntime_within_one_step(all_host, qop_dir, name):
    _check(all_host, qoperator_model(qop_dir, name), name)


SEQUENCES = [(name, form) for name in quantize_zoo.SEQUENCE_MODELS for form in ("qdq", "qoperator")]
"""The transformer encoder block, GRU and LSTM, statically quantized in both formats."""


def sequence_model(folder: Path, name: str, form: str) -> Path:
    return qdq_model(folder, name, "int8") if form == "qdq" else qoperator_model(folder, name)


@pytest.fixture(scope="module")
def sequences_all_host(qop_dir: Path) -> dict:
    models = {f"{name}_{form}": sequence_model(qop_dir, name, form) for name, form in SEQUENCES}
    return all_host_outputs(qop_dir, models, "sequences")


@pytest.mark.slow
@pytest.mark.skipif(GCC is None, reason="needs gcc")
@pytest.mark.parametrize("name,form", SEQUENCES)
def test_static_sequence_models_match_onnxruntime_within_one_step(sequences_all_host, qop_dir, name, form):
    _check(sequences_all_host, sequence_model(qop_dir, name, form), f"{name}_{form}")
