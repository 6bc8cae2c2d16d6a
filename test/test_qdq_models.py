"""QDQ models as Marvell's tools make them (onnxruntime's quantize_static, scripts/quantize_zoo.py):
all on the host they match onnxruntime's run of the same model within one quantization step
of each output's scale."""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "scripts"))
import quantize_zoo  # noqa: E402

from mrvl.compile import compile_model  # noqa: E402
from mrvl.numerics import assert_close  # noqa: E402
from mrvl.run import quantization_steps, run_bundle  # noqa: E402

MODELS = [(name, scheme) for name in quantize_zoo.MODELS for scheme in quantize_zoo.SCHEMES]


@pytest.fixture(scope="session")
def qdq_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("qdq")


def qdq_model(folder: Path, name: str, scheme: str) -> Path:
    path = folder / f"{name}-{scheme}.onnx"
    return path if path.exists() else quantize_zoo.quantize_zoo(name, folder, scheme)


def onnxruntime_outputs(model: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """onnxruntime's run of the QDQ model as written, node by node (as `mrvl-run --verify`
    runs one): its fused int8 kernels round an intermediate sum near a half step either way,
    and a value one step off early can move the output by several steps."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs)))


def seeded_inputs(model: Path, seed: int = 1) -> dict[str, np.ndarray]:
    (feeds,) = quantize_zoo.calibration_inputs(onnx.load(str(model), load_external_data=False), 1, seed)
    return feeds


def test_generator_writes_qdq_models_of_each_scheme(qdq_dir):
    for scheme, (activation, per_channel) in {"int8": (onnx.TensorProto.INT8, False),
                                              "uint8-per-channel": (onnx.TensorProto.UINT8, True)}.items():
        graph = onnx.load(str(qdq_model(qdq_dir, "mnist", scheme))).graph
        ops = [n.op_type for n in graph.node]
        assert ops.count("QuantizeLinear") >= 3 and ops.count("DequantizeLinear") >= 5
        zero_points = {t.name: t for t in graph.initializer if t.name.endswith("zero_point")}
        # Biases are int32 whatever the scheme.
        assert {t.data_type for t in zero_points.values()} - {onnx.TensorProto.INT32} == {activation}
        conv = next(n for n in graph.node if n.op_type == "Conv")
        weight_dq = next(n for n in graph.node if n.output[0] == conv.input[1])
        scale = next(t for t in graph.initializer if t.name == weight_dq.input[1])
        assert (len(scale.dims) == 1 and scale.dims[0] > 1) == per_channel


def test_generator_is_seeded(qdq_dir, tmp_path):
    again = quantize_zoo.quantize_zoo("mnist", tmp_path, "int8")
    assert again.read_bytes() == qdq_model(qdq_dir, "mnist", "int8").read_bytes()
    other = quantize_zoo.quantize_zoo("mnist", tmp_path / "other", "int8", seed=5)
    assert other.read_bytes() != again.read_bytes()


@pytest.mark.parametrize("name,scheme", MODELS)
def test_all_host_matches_onnxruntime_within_one_step(qdq_dir, tmp_path, name, scheme):
    model = qdq_model(qdq_dir, name, scheme)
    bundle = compile_model(model, tmp_path / "bundle.tar", offload=False).output
    inputs = seeded_inputs(model)
    got = run_bundle(bundle, inputs)
    want = onnxruntime_outputs(model, inputs)
    steps = quantization_steps(model)
    assert steps.keys() == want.keys()
    for output, expected in want.items():
        assert_close(got[output], expected, what=output, quantization_step=steps[output])
