"""The whole flow on the model zoo: what goes to MLIP, how many subgraphs, and why the
rest stays on the host."""

import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from test_end_to_end_json import LEGALIZED_ZOO
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from mrvl_dialect.placement_file import placed_nodes
from mrvl.frontend.onnx_importer import import_onnx
from mrvl_dialect import mrvl
from mrvl.passes.mlip_rules import failed_rules
from mrvl.target.options import DEFAULT_TARGET
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass

EXPECTED_SUBGRAPHS = {"mnist": 1, "resnet_small": 1, "mobilenet_small": 9, "mobilenet_v2": 1, "squeezenet": 1,
                      "yolov3_tiny": 2, "transformer_block": 0, "paddle_ocr_rec": 1, "ocr_cls_stale": 2, "vad_if": 2,
                      "paddle_crnn": 1, "gru_kws": 1, "captcha_crnn_stale": 2, "face_pnet": 1,
                      "face_rnet_b16": 1, "keras_nhwc_cnn": 1, "lstm_speaker": 1,
                      "t5_encoder": 0}
"""mobilenet_small: its hard-swish activations, squeeze-excite products, upsampling decoder and
the residual sums and concat they feed (policies no-leading-sum/concat) cut it up;
mobilenet_v2 (ReLU6 legalised) and squeezenet (ceil_mode pools) run whole; yolov3_tiny
(LeakyRelu and its ZeroPad legalised) splits at the neck's Resize; transformer_block: its
MatMuls are batched (rank 3); ocr_cls_stale: the Reshape/Transpose/ReduceMean head runs on
the host between its convolution blocks and the Gemm; face_pnet (PRelu legalised) runs whole;
face_rnet_b16 (batch 16) runs whole in 2 chunks of 8, the transpose before keras' Flatten taken by the FC;
captcha_crnn_stale's Gemm of its 24 LSTM steps ([24, 64]) runs alone in 3 chunks of 8;
keras_nhwc_cnn runs whole, its transpose back to NHWC taken by the FC with the Flatten."""

ALL_CONVS_ON_MLIP = ["mnist", "resnet_small", "mobilenet_v2", "squeezenet", "yolov3_tiny", "face_pnet", "face_rnet_b16",
                     "keras_nhwc_cnn"]
"""CNNs every Conv and Gemm of which runs on MLIP, none left to a policy."""


def _compile(name: str, **options) -> tuple[ModuleOp, ModuleOp]:
    """The imported module (kept for reference) and the compiled one."""
    model = zoo.ZOO[name]()
    before = import_onnx(model, ZOO_INPUT_SHAPES[name])
    after = import_onnx(model, ZOO_INPUT_SHAPES[name])
    MrvlPipelinePass(**options).apply(Context(), after)
    return before, after


def _subgraphs(module: ModuleOp) -> list[mrvl.SubgraphOp]:
    return [op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)]


@pytest.mark.parametrize("name", EXPECTED_SUBGRAPHS)
def test_subgraph_count(name):
    _, module = _compile(name)
    module.verify()
    assert len(_subgraphs(module)) == EXPECTED_SUBGRAPHS[name]
    assert (mrvl.LEGALIZED_ATTR in module.attributes) == (name in LEGALIZED_ZOO)


@pytest.mark.parametrize("name", EXPECTED_SUBGRAPHS)
def test_every_allowed_conv_and_gemm_is_offloaded(name):
    before, module = _compile(name)
    rows = {row.name: row for row in placed_nodes(module)}
    for op in before.walk():
        if op.name in ("graph.Conv", "graph.Gemm") and not failed_rules(op, DEFAULT_TARGET):
            row = rows[op.location.desc.data]
            reasons = " ".join(row.reasons)
            assert row.place == "mlip" or "policy." in reasons, f"{row.name} stayed on the host: {reasons}"


@pytest.mark.parametrize("name", ALL_CONVS_ON_MLIP)
def test_every_conv_and_gemm_on_mlip(name):
    _, module = _compile(name)
    host = [row.name for row in placed_nodes(module) if row.op_type in ("Conv", "Gemm") and row.place != "mlip"]
    assert host == []


@pytest.mark.parametrize("name", EXPECTED_SUBGRAPHS)
def test_every_host_node_has_a_reason(name):
    _, module = _compile(name)
    for row in placed_nodes(module):
        assert row.place == "mlip" or row.reasons, f"{row.name} ({row.op_type}) is on the host without a reason"


def test_offload_false_keeps_everything_on_the_host():
    _, module = _compile("mnist", offload=False)
    assert not _subgraphs(module)
    assert all(row.place == "host" for row in placed_nodes(module))


def test_target_options_are_recorded_on_subgraphs():
    _, module = _compile("mnist", num_tiles=4, quantize="int8", wb_pin_ocm=1, run_mode="hw", mcpu="cnf10kb")
    (subgraph,) = _subgraphs(module)
    assert subgraph.num_tiles.value.data == 4
    assert (subgraph.quantize.data, subgraph.run_mode.data, subgraph.mcpu.data) == ("int8", "hw", "cnf10kb")
    assert subgraph.wb_pin_ocm.value.data == 1


def test_squeezenet_subgraph_ends_at_its_global_pool():
    """As TVM's codegen left SqueezeNet: the Flatten after the global pool runs on the host
    (policy no-trailing-reshape), so the subgraph's last layer is the pool, 31 layers for the
    zoo's six Fire modules (32 with the Flatten as a batch_flatten layer)."""
    _, module = _compile("squeezenet")
    (subgraph,) = _subgraphs(module)
    layers = [op.name for op in subgraph.body.block.ops if op.name.startswith("mrvl.") and op.name != "mrvl.yield"]
    assert (len(layers), layers[-1]) == (31, "mrvl.global_avgpool2d")
    flatten = next(row for row in placed_nodes(module) if row.op_type == "Flatten")
    assert flatten.place == "host" and flatten.reasons[-1].startswith("policy.no-trailing-reshape:")
