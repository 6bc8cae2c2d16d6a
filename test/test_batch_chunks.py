"""Batches over MLIP's limit run on MLIP in chunks (chunk-mrvl-batch): the chunk sizes, an
R-Net-sized CNN at batches 9, 16 and 17 compiled with mrvl-compile and run with mrvl-run's
semantics (host C calling the reference simulator once per chunk) against onnxruntime in
fp32 and fp16, the IR run by the reference interpreter, and the reports' calls."""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.passes import PassPipeline

from mrvl.backend.reference_interpreter import run
from mrvl.compile import main as mrvl_compile
from mrvl.frontend.onnx_importer import import_onnx
from numeric_asserts import assert_close
from mrvl.numerics import FP16_LAYERS
from mrvl.passes import get_all_passes
from mrvl.passes.chunk_mrvl_batch import chunking
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass
from mrvl.run import run_bundle
from mrvl_dialect import cpu, mrvl

IR_VERSION = 8


@pytest.mark.parametrize(("batch", "expected"), [
    (1, (1, 1)), (8, (8, 1)), (9, (5, 2)), (16, (8, 2)), (17, (6, 3)), (24, (8, 3)), (25, (7, 4)), (65, (8, 9)),
])
def test_chunks_are_the_fewest_calls_balanced(batch, expected):
    chunk, calls = chunking(batch)
    assert (chunk, calls) == expected
    assert chunk <= mrvl.MAX_BATCH and chunk * calls >= batch and chunk * (calls - 1) < batch


def small_rnet(batch: int) -> onnx.ModelProto:
    """MTCNN R-Net's shape of network: conv + batch norm + relu, max pool, conv + relu,
    flatten, gemm + relu, gemm; input 3x24x24."""
    rng = np.random.default_rng(batch)

    def init(name, shape, scale=0.2):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)

    inits = [init("w1", (16, 3, 3, 3)), init("b1", (16,), 0.1), init("gamma", (16,), 0.1),
             init("beta", (16,), 0.1), init("mean", (16,), 0.1),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, 16).astype(np.float32), "var"),
             init("w2", (32, 16, 3, 3), 0.1), init("b2", (32,), 0.1),
             init("fc1", (64, 32 * 9 * 9), 0.05), init("fc1_b", (64,), 0.1), init("fc2", (4, 64)), init("fc2_b", (4,))]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "gamma", "beta", "mean", "var"], ["n1"], name="bn1"),
        helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[3, 3], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Flatten", ["r2"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc1", "fc1_b"], ["g1"], name="fc1", transB=1),
        helper.make_node("Relu", ["g1"], ["r3"], name="relu3"),
        helper.make_node("Gemm", ["r3", "fc2", "fc2_b"], ["y"], name="fc2", transB=1),
    ]
    graph = helper.make_graph(nodes, "small_rnet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 24, 24])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4])], inits)
    return helper.make_model(graph, ir_version=IR_VERSION, opset_imports=[helper.make_opsetid("", 17)])


def _inputs(batch: int) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(0).standard_normal((batch, 3, 24, 24)).astype(np.float32)}


def _onnxruntime(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> np.ndarray:
    return ort.InferenceSession(model.SerializeToString()).run(None, inputs)[0]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory) -> dict[int, tuple[onnx.ModelProto, Path]]:
    """batch -> (model, bundle mrvl-compile wrote, mrvl-tmlc absent)."""
    root = tmp_path_factory.mktemp("chunks")
    built = {}
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("PATH", str(root))
    try:
        for batch in (9, 16, 17):
            model = small_rnet(batch)
            onnx.save_model(model, root / f"rnet{batch}.onnx")
            assert mrvl_compile([str(root / f"rnet{batch}.onnx"), "-o", str(root / f"b{batch}")]) == 0
            built[batch] = model, root / f"b{batch}"
    finally:
        monkeypatch.undo()
    return built


@pytest.mark.parametrize("batch", [9, 16, 17])
def test_every_conv_on_mlip_in_chunks(bundles, batch):
    _, bundle = bundles[batch]
    report = json.loads((bundle / "report.json").read_text())
    placed = {n["name"]: n["place"] for n in report["nodes"]}
    assert {name: placed[name] for name in ("conv1", "conv2", "fc1", "fc2")} == dict.fromkeys(
        ("conv1", "conv2", "fc1", "fc2"), "mlip")
    chunk, calls = chunking(batch)
    (subgraph,) = report["subgraphs"]
    assert (subgraph["batch"], subgraph["calls"]) == (chunk, calls)
    assert report["estimate"]["calls"] == calls
    (entry,) = json.loads((bundle / "metadata.json").read_text())["subgraphs"]
    assert (entry["batch"], entry["calls"], entry["inputs"][0]["shape"][0]) == (chunk, calls, chunk)
    nodes = json.loads((bundle / f"{entry['symbol']}-nodes.json").read_text())
    assert nodes["batch_size"] == str(chunk)  # TVM writes it as a string


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs cc and make")
@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("batch", [9, 16, 17])
def test_chunks_match_onnxruntime(bundles, batch, precision):
    model, bundle = bundles[batch]
    inputs = _inputs(batch)
    got = run_bundle(bundle, inputs, precision=precision, simulator="reference")
    assert_close(got["y"], _onnxruntime(model, inputs), FP16_LAYERS if precision == "fp16" else None, "y")


@pytest.mark.parametrize("batch", [9, 17])
def test_padded_chunks_in_the_ir(batch):
    """The reference interpreter runs the chunked IR (pad, call per chunk, slice) to the model's values."""
    model = small_rnet(batch)
    module = import_onnx(model, {})
    pipeline = "place-ops,partition-mrvl,chunk-mrvl-batch,fuse-mrvl,convert-layout"
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(Context(), module)
    (call,) = [op for op in module.walk() if isinstance(op, cpu.CallMlipOp)]
    assert call.chunk_count() == chunking(batch)[1]
    assert any(isinstance(op, cpu.PadOp) for op in module.walk())
    assert_close(run(module, [_inputs(batch)["x"]])[0], _onnxruntime(model, _inputs(batch)))


def test_within_the_limit_nothing_changes():
    """At batch 8 the subgraph is called once, with no chunks, pad or slice."""
    module = import_onnx(small_rnet(8), {})
    MrvlPipelinePass().apply(Context(), module)
    (call,) = [op for op in module.walk() if isinstance(op, cpu.CallMlipOp)]
    assert call.chunks is None
    assert not any(isinstance(op, cpu.PadOp | cpu.SliceOp) for op in module.walk())


def test_worth_the_call_counts_every_chunk():
    """The policy weighs a region in chunks by all its calls, and says so in the reason."""
    rng = np.random.default_rng(1)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w"], ["y"], name="fc", transB=1)], "tiny_fc",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16, 3])],
        [numpy_helper.from_array(rng.standard_normal((3, 4)).astype(np.float32), "w")])
    model = helper.make_model(graph, ir_version=IR_VERSION, opset_imports=[helper.make_opsetid("", 17)])
    module = import_onnx(model, {})
    pipeline = "place-ops,partition-mrvl{policies=compute-intensive,worth-the-call}"
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(Context(), module)
    (gemm,) = [op for op in module.walk() if op.name == "graph.Gemm"]
    (reason,) = [r.data for r in gemm.attributes["mrvl.reasons"].data if r.data.startswith("policy.worth-the-call")]
    assert re.search(r"\(MLIP 2 calls of 10(\.\d+)? us: compute", reason), reason  # the call overhead, twice
