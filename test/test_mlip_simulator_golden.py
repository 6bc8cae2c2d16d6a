"""TVM's own nodes/consts JSON, run by the MLIP simulator, reproduces onnxruntime.

The eight golden examples hold the files that TVM's Marvell codegen wrote for small ONNX
networks (test/golden/README.md). Simulated
from those files alone, each subgraph must match onnxruntime on the same subgraph:
fp32 within 1e-4, fp16 within 3% of the output's largest magnitude (the criterion of
Marvell's tools). Where TVM left part of the model on the host, onnxruntime computes that
part and the simulator gets the tensor the subgraph takes.
"""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from mrvl.backend.mlip_simulator import load, simulate
from numeric_asserts import assert_close
from mrvl.numerics import FP16_LAYERS

REPO = Path(__file__).resolve().parents[1]
LOCATIONS = (REPO / "test" / "golden", REPO.parent / "shared" / "reference" / "tvm-golden")
"""Copies in the repository first; the shared reference beside the clone otherwise."""
CASES = (
    "concat_reshape_matmul", "conv_bias_bn_relu", "conv_relu_maxpool_fc", "depthwise_pointwise",
    "pad_conv_pad_maxpool", "pools_concat", "residual_sum_relu", "sum_const_batch2",
)
FILES = ("model.onnx", "inputs.npz", "tvmgen_mrvl_main_0-nodes.json", "tvmgen_mrvl_main_0-consts.json")
SUBGRAPH_INPUTS = {"pad_conv_pad_maxpool": ["px"]}
"""ONNX tensors the subgraph takes where TVM kept the ops before it on the host (the first Pad)."""


def golden_dir(case: str) -> Path:
    for location in LOCATIONS:
        if all((location / case / f).is_file() for f in FILES):
            return location / case
    pytest.skip(f"golden example {case} is in neither {' nor '.join(map(str, LOCATIONS))}")


def onnxruntime_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], extra: list[str]) -> list[np.ndarray]:
    """The model's outputs, then the intermediate tensors named in `extra`."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    model.graph.output.extend(onnx.helper.make_empty_tensor_value_info(name) for name in extra)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options).run(None, feeds)


def as_model_layout(y: np.ndarray) -> np.ndarray:
    """Heads are NHWC where 4-D; the ONNX model's outputs are NCHW."""
    return y.transpose(0, 3, 1, 2) if y.ndim == 4 else y


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("case", CASES)
def test_tvm_json_matches_onnxruntime(case, precision):
    folder = golden_dir(case)
    nodes, consts = load(folder / FILES[2], folder / FILES[3])
    model = onnx.load(folder / "model.onnx")
    feeds = dict(np.load(folder / "inputs.npz"))
    extra = SUBGRAPH_INPUTS.get(case, [])
    results = onnxruntime_run(model, feeds, extra)
    expected, host = results[: len(model.graph.output)], results[len(model.graph.output):]
    inputs = host if extra else [feeds[i.name] for i in model.graph.input]

    outputs = simulate(nodes, consts, inputs, precision)

    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        got = as_model_layout(got)
        assert got.shape == want.shape
        assert_close(got, want, FP16_LAYERS if precision == "fp16" else None)
