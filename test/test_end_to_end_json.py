"""A compiled zoo model (and small models of ceil_mode pools and of each legalisation), run as the board would run it: host ops by the reference
interpreter, each accelerator subgraph by the simulator from its nodes/consts JSON alone,
matches onnxruntime on the whole model (mrvl/numerics.py: fp32 1e-4, fp16 3% of the largest
output, the criterion Marvell's tools use)."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import PassPipeline

from mrvl.backend.json_emitter import emit_subgraph
from mrvl.backend.mlip_simulator import simulate
from mrvl.backend.reference_interpreter import run
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.numerics import FP16_LAYERS, Comparison, compare
from mrvl.passes import get_all_passes
from mrvl_dialect import mrvl
from mrvl_dialect.mrvl import LEGALIZED_ATTR, SubgraphOp

# The pipeline up to, not including, lower-to-cpu: the interpreter runs graph ops (and the
# pad and slice around a call in chunks, and the channels-last pools, transposed convs and
# batch norms of the host glue: ppocr_det's DB head).
STAGES = "cleanup-graph,legalize-mrvl,place-ops,partition-mrvl,chunk-mrvl-batch,fuse-mrvl,convert-layout"


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("name", ["mnist", "resnet_small", "mobilenet_small", "mobilenet_v2", "squeezenet", "yolov3_tiny",
                                  "face_pnet", "face_rnet_b16", "keras_nhwc_cnn", "ppocr_det"])
def test_model_with_simulated_subgraphs_matches_onnxruntime(name, precision):
    check_simulated_model(zoo.ZOO[name](), ZOO_INPUT_SHAPES[name], precision)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_keras_nhwc_model_at_batch_2_reads_its_nhwc_input_directly(precision):
    """keras2onnx's NHWC input goes to the subgraph as it is: its JSON input node says NHWC,
    the first layer is the conv, and the simulator fed the model's tensor matches onnxruntime."""
    module = check_simulated_model(zoo.keras_nhwc_cnn(), {"input_1": [2, 24, 24, 3]}, precision)
    (subgraph,) = [op for op in module.body.block.ops if isinstance(op, SubgraphOp)]
    nodes = emit_subgraph(subgraph, module, 0).nodes["nodes"]
    assert nodes[0]["attrs"]["shape"] == [[2, 24, 24, 3]] and nodes[0]["attrs"]["data_layout"] == ["NHWC"]
    assert [n["attrs"]["layer_name"][0] for n in nodes[1:]] == ["Conv2D", "Maxpool2D", "Conv2D", "FC"]


def ceil_pools() -> onnx.ModelProto:
    """A conv, then ceil_mode pools: MaxPool, and AveragePool excluding its padding, both with
    a last window past the input (14 wide, kernel 3, stride 2: 7 windows where floor mode
    places 6)."""
    rng = np.random.default_rng(3)
    w = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("MaxPool", ["c"], ["m"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1, name="max"),
             helper.make_node("AveragePool", ["c"], ["a"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 0],
                              ceil_mode=1, name="avg")]
    graph = helper.make_graph(nodes, "ceil_pools", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 14, 14])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, 8, 7, 7]) for o in "ma"], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_ceil_mode_pools_simulated_match_onnxruntime(precision):
    module = check_simulated_model(ceil_pools(), {}, precision)
    pools = [op for op in module.walk() if isinstance(op, mrvl.MaxPool2DOp | mrvl.AvgPool2DOp)]
    assert len(pools) == 2 and all(op.ceil_mode is not None for op in pools)


def legalized_model(middle: list[onnx.NodeProto], constants: dict[str, np.ndarray]) -> onnx.ModelProto:
    """x -> Conv (values well beyond -6 .. 6) -> `middle` (reads `c`, writes `m`) -> 1x1 Conv -> y,
    on 8 channels of 12x12."""
    rng = np.random.default_rng(4)
    arrays = {"w1": 2.5 * rng.standard_normal((8, 3, 3, 3)), "w2": 0.3 * rng.standard_normal((4, 8, 1, 1)), **constants}
    inits = [numpy_helper.from_array(a if np.asarray(a).dtype == np.int64 else np.asarray(a, np.float32), n)
             for n, a in arrays.items()]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1], name="conv1"), *middle,
             helper.make_node("Conv", ["m", "w2"], ["y"], name="conv2")]
    graph = helper.make_graph(nodes, "legalized", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


_BN = {"scale": np.linspace(0.5, 1.5, 8), "shift": np.linspace(-1, 1, 8), "mean": np.linspace(-0.3, 0.3, 8),
       "var": np.linspace(0.5, 1.5, 8)}
_POOL = helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2], name="pool")
LEGALIZED_CASES = {
    # MobileNetV2's block: Conv -> BatchNormalization -> ReLU6.
    "relu6-after-conv-bn": ("clip-as-depthwise", [
        helper.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["b"], name="bn"),
        helper.make_node("Clip", ["b", "lo", "hi"], ["m"], name="relu6")], {**_BN, "lo": 0.0, "hi": 6.0}),
    "clip-after-pool": ("clip-as-depthwise", [_POOL, helper.make_node("Clip", ["p", "lo", "hi"], ["m"], name="clip")],
                        {"lo": -1.0, "hi": 1.5}),
    "clip-low-only": ("clip-as-depthwise", [_POOL, helper.make_node("Clip", ["p", "lo"], ["m"], name="clip")],
                      {"lo": -0.5}),
    "clip-high-only": ("clip-as-depthwise", [_POOL, helper.make_node("Clip", ["p", "", "hi"], ["m"], name="clip")],
                       {"hi": 0.5}),
    # tiny-YOLO's block.
    "leaky-relu": ("leaky-relu-as-depthwise", [helper.make_node("LeakyRelu", ["c"], ["m"], alpha=0.1, name="leaky")], {}),
    "hard-sigmoid": ("hard-sigmoid-as-depthwise",
                     [helper.make_node("HardSigmoid", ["c"], ["m"], alpha=0.2, beta=0.5, name="hsig")], {}),
    # Pre-activation blocks: a BatchNormalization after a pool or a sum.
    "batch-norm-after-pool": ("batch-norm-as-depthwise", [
        _POOL, helper.make_node("BatchNormalization", ["p", "scale", "shift", "mean", "var"], ["m"], name="bn")], _BN),
    # YOLOv3-tiny's ZeroPad2d((0, 1, 0, 1)) and stride-1 MaxPool, of values that may be negative.
    "zero-pad-before-pool": ("pad-as-depthwise", [
        helper.make_node("Pad", ["c", "pads"], ["p"], name="zeropad"),
        helper.make_node("MaxPool", ["p"], ["m"], kernel_shape=[2, 2], strides=[1, 1], name="pool")],
        {"pads": np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64)}),
    # ShuffleNet's and AlexNet's grouped convs (2 and 4 groups, 3x3, with a bias).
    "grouped-conv-2": ("grouped-conv-as-dense", [
        helper.make_node("Conv", ["c", "gw2", "gb"], ["m"], group=2, pads=[1, 1, 1, 1], name="grouped")],
        {"gw2": 0.3 * np.random.default_rng(6).standard_normal((8, 4, 3, 3)), "gb": np.linspace(-1, 1, 8)}),
    "grouped-conv-4-stride-2": ("grouped-conv-as-dense", [
        helper.make_node("Conv", ["c", "gw4"], ["m"], group=4, strides=[2, 2], name="grouped")],
        {"gw4": 0.3 * np.random.default_rng(7).standard_normal((8, 2, 1, 1))}),
    "scale-shift-after-pool": ("affine-as-depthwise", [
        _POOL, helper.make_node("Mul", ["p", "gain"], ["q"], name="gain"),
        helper.make_node("Sub", ["q", "half"], ["r"], name="shift"), helper.make_node("Sub", ["half", "r"], ["s"], name="flip"),
        helper.make_node("Add", ["three", "s"], ["t"], name="offset"), helper.make_node("Div", ["t", "three"], ["m"], name="div")],
        {"gain": np.linspace(-2, 2, 8).reshape(1, 8, 1, 1), "half": 0.5, "three": 3.0}),
}


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
@pytest.mark.parametrize("case", LEGALIZED_CASES)
def test_legalized_simulated_matches_onnxruntime(case, precision):
    """Each legalisation, between two convs, runs as one subgraph and matches onnxruntime."""
    legalization, middle, constants = LEGALIZED_CASES[case]
    module = check_simulated_model(legalized_model(middle, constants), {}, precision)
    assert len([op for op in module.ops if isinstance(op, SubgraphOp)]) == 1
    assert set(module.attributes[LEGALIZED_ATTR].data.values()) == {StringAttr(legalization)}
    kinds = {f"graph.{node.op_type}" for node in middle}
    assert not [op for op in module.walk() if op.name in kinds]


def conv1d_chain() -> onnx.ModelProto:
    """A Silero-VAD-like encoder: 1-D convs (stride 2, dilation 2, 2 groups) with Relu, a
    BatchNormalization and a LeakyRelu between them, a graph output taken mid-chain."""
    rng = np.random.default_rng(8)
    arrays = {"w1": rng.standard_normal((8, 4, 5)), "b1": rng.standard_normal(8), "w2": 0.4 * rng.standard_normal((8, 4, 3)),
              "w3": 0.3 * rng.standard_normal((6, 8, 3)), **_BN}
    inits = [numpy_helper.from_array(np.asarray(a, np.float32), n) for n, a in arrays.items()]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[2, 2], strides=[2], name="conv1"),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[2, 2], dilations=[2], group=2, name="conv2"),
             helper.make_node("BatchNormalization", ["c2", "scale", "shift", "mean", "var"], ["b2"], name="bn2"),
             helper.make_node("LeakyRelu", ["b2"], ["l2"], alpha=0.2, name="leaky2"),
             helper.make_node("Conv", ["l2", "w3"], ["y"], pads=[1, 0], name="conv3")]
    graph = helper.make_graph(nodes, "conv1d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 64])],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y", "r1")], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_conv1d_chain_simulated_matches_onnxruntime(precision):
    """conv1d-as-conv2d: the whole chain runs as one subgraph; only reshapes stay on the host."""
    module = check_simulated_model(conv1d_chain(), {}, precision)
    assert len([op for op in module.ops if isinstance(op, SubgraphOp)]) == 1
    legalized = {k: v.data for k, v in module.attributes[LEGALIZED_ATTR].data.items()}
    assert legalized == {"conv1": "conv1d-as-conv2d", "conv2": "conv1d-as-conv2d+grouped-conv-as-dense",
                         "conv3": "conv1d-as-conv2d",
                         "leaky2": "leaky-relu-as-depthwise"}


def check_simulated_model(model: onnx.ModelProto, shapes: dict, precision: str) -> ModuleOp:
    """Compile `model`, run it with each subgraph simulated from its JSON, compare with
    onnxruntime; the compiled module."""
    module, comparisons = simulated_comparisons(model, shapes, precision)
    for comparison in comparisons:
        assert comparison.ok, comparison.describe()
    return module


def simulated_comparisons(model: onnx.ModelProto, shapes: dict, precision: str,
                          stages: str = STAGES) -> tuple[ModuleOp, list[Comparison]]:
    """The module `stages` compile `model` into, and how far each of its outputs, run with
    each subgraph simulated from its JSON, is from onnxruntime's."""
    module = import_onnx(model, shapes)
    PassPipeline.parse_spec(get_all_passes(), stages).apply(Context(), module)
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
    return module, [compare(got, want, FP16_LAYERS if precision == "fp16" else None)
                    for want, got in zip(expected, actual, strict=True)]


LEGALIZED_ZOO = ["mobilenet_small", "mobilenet_v2", "yolov3_tiny", "vad_if", "face_pnet"]
"""The zoo models legalize-mrvl changes (test_zoo_partition checks the list)."""

_MORE_FP16 = {
    "yolov3_tiny": ("LeakyRelu's constants in fp16 in every layer (0.1 is stored as 0.099976; 0.9 and 0.1 sum to 0.99988): "
                    "0.137% of scale against 0.092% (1.48x)"),
    "vad_if": "its 1-D convs themselves run on MLIP in fp16 (on the host without): 0.018% against 0.0096% (1.9x)",
}
"""Models whose fp16 error legalising raises by more than 1.25x, though within tolerance, for
reasons no form avoids (no cancellation: test_legalize_fp16 bounds every form per element)."""


def _with_and_without_legalizing(name: str) -> list[tuple[Comparison, Comparison]]:
    model, shapes = zoo.ZOO[name](), ZOO_INPUT_SHAPES[name]
    module, legalized = simulated_comparisons(model, shapes, "fp16")
    _, kept = simulated_comparisons(model, shapes, "fp16", STAGES.replace("legalize-mrvl,", ""))
    assert LEGALIZED_ATTR in module.attributes
    return list(zip(legalized, kept, strict=True))


@pytest.mark.parametrize("name", LEGALIZED_ZOO)
def test_legalized_zoo_model_in_fp16_within_tolerance(name):
    """Every zoo model legalize-mrvl changes, run with MLIP simulated in fp16, is within the
    fp16 tolerance of onnxruntime."""
    for on, _ in _with_and_without_legalizing(name):
        assert on.ok, on.describe()


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=_MORE_FP16[n], strict=True))
                                  if n in _MORE_FP16 else n for n in LEGALIZED_ZOO])
def test_legalized_zoo_model_in_fp16_is_as_close_as_without_legalizing(name):
    """... and within 1.25x of its error with the legalised ops left on the host (in float32):
    the rewrites add no fp16 error of their own worth the name. (With Clip's old, cancelling
    form mobilenet_v2 was 2.96x: 0.159% of scale against 0.054%.)"""
    for on, off in _with_and_without_legalizing(name):
        assert on.relative <= 1.25 * off.relative, f"{on.describe()}; without legalize-mrvl {off.describe()}"


@pytest.mark.parametrize(("name", "subgraphs"), [("mobilenet_v2", 1), ("face_pnet", 1)])
def test_legalized_zoo_model_runs_in_fewer_subgraphs(name, subgraphs):
    """MobileNetV2 (ReLU6 as Clip) runs as one subgraph, as does the face detector's P-Net
    (a PRelu after every conv), each of which left alone splits it at every activation."""
    model, shapes = zoo.ZOO[name](), ZOO_INPUT_SHAPES[name]
    counts = []
    for stages in (STAGES, STAGES.replace("legalize-mrvl,", "")):
        module = import_onnx(model, shapes)
        PassPipeline.parse_spec(get_all_passes(), stages).apply(Context(), module)
        counts.append(len([op for op in module.body.block.ops if isinstance(op, SubgraphOp)]))
    assert counts[0] == subgraphs < counts[1]
