"""A compiled zoo model, run as the board would run it: host ops by the reference
interpreter, each accelerator subgraph by the simulator from its nodes/consts JSON alone,
matches onnxruntime on the whole model (mrvl/numerics.py: fp32 1e-4, fp16 3% of the largest
output, the criterion Marvell's tools use)."""

import numpy as np
import onnxruntime as ort
import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context
from xdsl.passes import PassPipeline

from mrvl.backend.json_emitter import emit_subgraph
from mrvl.backend.mlip_simulator import simulate
from mrvl.backend.reference_interpreter import run
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.numerics import FP16_LAYERS, assert_close
from mrvl.passes import get_all_passes
from mrvl_dialect.mrvl import SubgraphOp

# The pipeline up to, not including, lower-to-cpu: the interpreter runs graph ops.
STAGES = "cleanup-graph,place-ops,partition-mrvl,fuse-mrvl,convert-layout"


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["mnist", "resnet_small", "mobilenet_small"])
def test_model_with_simulated_subgraphs_matches_onnxruntime(name, precision):
    model = zoo.ZOO[name]()
    shapes = ZOO_INPUT_SHAPES[name]
    module = import_onnx(model, shapes)
    PassPipeline.parse_spec(get_all_passes(), STAGES).apply(Context(), module)
    subgraphs = [op for op in module.body.block.ops if isinstance(op, SubgraphOp)]
    documents = {sg.sym_name.data: emit_subgraph(sg, module, k) for k, sg in enumerate(subgraphs)}
    assert documents, "the model must offload something"

    def from_json(symbol: str, values: list[np.ndarray]) -> list[np.ndarray]:
        emitted = documents[symbol]
        return simulate(emitted.nodes, emitted.consts, values, precision=precision)

    rng = np.random.default_rng(0)
    feeds = {}
    for i in model.graph.input:
        dims = shapes.get(i.name) or [d.dim_value for d in i.type.tensor_type.shape.dim]
        feeds[i.name] = rng.standard_normal(dims).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    actual = run(module, list(feeds.values()), run_subgraph=from_json)
    for want, got in zip(expected, actual):
        assert_close(got, want, FP16_LAYERS if precision == "fp16" else None)
