"""QDQ models as Marvell's tools make them (onnxruntime's quantize_static, scripts/quantize_zoo.py):
all on the host (their convs in int8, as onnxruntime's QDQ fusion runs them) they match
onnxruntime's optimised run of the same model within one quantization step of each output's
scale; so do a transformer block and a T5 encoder quantized so (their softmaxes as
onnxruntime's QLinearSoftmax)."""

import json
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

sys.path.append(str(Path(__file__).resolve().parents[1] / "scripts"))
import quantize_zoo  # noqa: E402

from mrvl import partition_for_mrvl  # noqa: E402
from mrvl.backend import json_emitter  # noqa: E402
from mrvl.backend.compile_report import subgraphs_csv  # noqa: E402
from mrvl_dialect.placement_file import placed_nodes  # noqa: E402
from mrvl.compile import compile_model  # noqa: E402
from numeric_asserts import assert_close
from mrvl.numerics import FP16_LAYERS, TOLERANCES, compare  # noqa: E402
from mrvl_dialect.mrvl import SubgraphOp  # noqa: E402
from test_c_backend import build_bundles, locked, merged, merged_inputs  # noqa: E402
from test_json_schema import validate  # noqa: E402

QUANT_SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "mrvl-quant.schema.json").read_text())
from mrvl.run import INT8_LAYER_STEPS, quantization_steps, run_bundle  # noqa: E402
from mrvl.run import main as mrvl_run  # noqa: E402

FIRST_MODELS = ("mnist", "resnet_small", "mobilenet_small")
MODELS = [(name, scheme) for name in quantize_zoo.MODELS for scheme in quantize_zoo.SCHEMES
          if name in FIRST_MODELS or scheme in ("int8", "uint8-per-channel")]
"""Every scheme on the first three models; the others (PyTorch's MobileNetV2, SqueezeNet,
YOLOv3-tiny) with MLIP's setting and the other extreme, to keep the suite's time."""


@pytest.fixture(scope="session")
def qdq_dir(session_dir: Path) -> Path:
    """The QDQ models, made once for the pytest-xdist workers."""
    folder = session_dir / "qdq"
    folder.mkdir(exist_ok=True)
    return folder


def qdq_model(folder: Path, name: str, scheme: str) -> Path:
    path = folder / f"{name}-{scheme}.onnx"
    with locked(path):
        return path if path.exists() else quantize_zoo.quantize_zoo(name, folder, scheme)


def onnxruntime_outputs(model: Path | onnx.ModelProto, inputs: dict[str, np.ndarray],
                        node_by_node: bool = True) -> dict[str, np.ndarray]:
    """onnxruntime's run of the QDQ model as written, node by node (as `mrvl-run --verify`
    runs one): its fused int8 kernels round an intermediate sum near a half step either way,
    and a value one step off early can move the output by several steps. With `node_by_node`
    False, its optimised run: the fused kernels, as the host's int8 convs compute
    (`fuse-host-qdq-convs`)."""
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if node_by_node:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
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


def case(name: str, scheme: str) -> str:
    return f"{name}_{scheme.replace('-', '_')}"


def all_host_outputs(folder: Path, models: dict[str, Path], tag: str) -> dict[str, np.ndarray]:
    """`models` all on the host, side by side in one bundle per opset (`merged`: the kernels
    compile once for all of them), built once for the pytest-xdist workers into `folder`
    (`tag`-named): the outputs by `merged` name."""
    inputs = merged_inputs({key: seeded_inputs(path) for key, path in models.items()})
    groups = merged({key: onnx.load(str(path)) for key, path in models.items()})
    bundles = {group: folder / f"{tag}-{group}" for group in groups}
    for group, model in groups.items():
        with locked(bundles[group]):
            if not bundles[group].exists():
                onnx.save_model(model, folder / f"{tag}-{group}.onnx")
                compile_model(folder / f"{tag}-{group}.onnx", bundles[group], offload=False)
    build_bundles(list(bundles.values()))
    got = {}
    for group, model in groups.items():
        got |= run_bundle(bundles[group], {i.name: inputs[i.name] for i in model.graph.input})
    return got


@pytest.fixture(scope="module")
def all_host(qdq_dir: Path) -> dict[str, np.ndarray]:
    """Every QDQ model all on the host (`all_host_outputs`)."""
    return all_host_outputs(qdq_dir, {case(name, scheme): qdq_model(qdq_dir, name, scheme)
                                      for name, scheme in MODELS}, "all-host")


@pytest.mark.parametrize("name,scheme", MODELS)
def test_all_host_matches_onnxruntime_within_one_step(all_host, qdq_dir, name, scheme):
    model = qdq_model(qdq_dir, name, scheme)
    want = onnxruntime_outputs(model, seeded_inputs(model), node_by_node=False)
    steps = quantization_steps(model)
    assert steps.keys() == want.keys()
    for output, expected in want.items():
        got = all_host[f"{case(name, scheme)}__{output}"]
        assert_close(got, expected, what=output, quantization_step=steps[output])


TRANSFORMERS = [("transformer_block", "uint8-per-channel"),
                pytest.param("t5_encoder", "uint8-per-channel", marks=pytest.mark.slow)]
"""Attention in static QDQ: onnxruntime runs its Softmax as QLinearSoftmax, and a float
Softmax one step off in one attention weight moved these outputs by 3-5% of their scale."""


@pytest.mark.parametrize("name,scheme", TRANSFORMERS)
def test_all_host_transformers_match_onnxruntime(qdq_dir, name, scheme):
    models = {case(name, scheme): qdq_model(qdq_dir, name, scheme)}
    got = all_host_outputs(qdq_dir, models, f"all-host-{name}")
    model = models[case(name, scheme)]
    want = onnxruntime_outputs(model, seeded_inputs(model), node_by_node=False)
    steps = quantization_steps(model)
    for output, expected in want.items():
        assert_close(got[f"{case(name, scheme)}__{output}"], expected, what=output, quantization_step=steps[output])


def mlip_convs(module) -> set[str]:
    """The ONNX Conv nodes that run in accelerator subgraphs."""
    return {row.name for row in placed_nodes(module) if row.op_type == "Conv" and row.place == "mlip"}


@pytest.mark.parametrize("name,scheme", MODELS)
def test_partitioned_has_the_float_models_convs_on_mlip(qdq_dir, name, scheme):
    model = qdq_model(qdq_dir, name, scheme)
    quantized = partition_for_mrvl(str(model))
    original = partition_for_mrvl(quantize_zoo.float_model(name))
    assert mlip_convs(quantized) == mlip_convs(original) != set()


def subgraph_nodes(module) -> list[str]:
    """The layers of every subgraph and their result types (not the constants: the
    quantizer's pre-processing folds a BatchNormalization into its Conv's bias)."""
    layers = []
    for subgraph in (op for op in module.ops if isinstance(op, SubgraphOp)):
        layers += [(op.name, [str(r.type) for r in op.results]) for op in subgraph.body.block.ops
                   if op.name != "graph.constant"]
    return layers


@pytest.mark.parametrize("name", ["mnist", "resnet_small"])  # the models wholly on MLIP
def test_qdq_pairs_between_layers_vanish(qdq_dir, name):
    quantized = partition_for_mrvl(str(qdq_model(qdq_dir, name, "int8")))
    original = partition_for_mrvl(quantize_zoo.float_model(name))
    assert subgraph_nodes(quantized) == subgraph_nodes(original)


@pytest.mark.parametrize("name,scheme", [  # suite time: MLIP's scheme and the other extreme
    (name, scheme) if scheme in ("int8", "uint8-per-channel") else pytest.param(name, scheme, marks=pytest.mark.slow)
    for name, scheme in MODELS])
def test_partitioned_fp16_matches_onnxruntime(qdq_dir, tmp_path, name, scheme):
    """Within 3% of scale (fp16 layers), where the model's own quantization noise allows:
    MLIP runs the layers in float, without the rounding to the int8 grid between them, so
    the result may be as far from the QDQ model as the QDQ model is from its float original
    (mobilenet_small's int8 outputs are 10-20% of their scale from the float model's)."""
    model = qdq_model(qdq_dir, name, scheme)
    bundle = compile_model(model, tmp_path / "bundle.tar").output
    inputs = seeded_inputs(model)
    got = run_bundle(bundle, inputs, precision="fp16")
    want = onnxruntime_outputs(model, inputs)
    floats = onnxruntime_outputs(quantize_zoo.float_model(name), inputs)
    for output, expected in want.items():
        noise = compare(expected, floats[output]).relative
        if noise < TOLERANCES[FP16_LAYERS]:
            assert_close(got[output], expected, FP16_LAYERS, what=output)
        else:
            assert compare(got[output], expected).relative <= 1.5 * noise, output


@pytest.mark.parametrize("name,scheme", [
    (name, scheme) if name in FIRST_MODELS and scheme == "int8" else pytest.param(name, scheme, marks=pytest.mark.slow)
    for name, scheme in MODELS if scheme.startswith("int8")])
def test_partitioned_int8_matches_onnxruntime(qdq_dir, tmp_path, name, scheme):
    """MLIP's layers simulated in int8 (the bundle's quantize): within 3 quantization steps of
    each output, or as far as onnxruntime's own fused int8 kernels are from its run of the
    model as written, where that is more (a sum near a half step rounds either way, and a
    squeeze-excite gate spreads it)."""
    model = qdq_model(qdq_dir, name, scheme)
    compiled = compile_model(model, tmp_path / "bundle.tar", quantize="int8")
    assert {s.precision for s in compiled.report.subgraphs} == {"int8"}
    inputs = seeded_inputs(model)
    got = run_bundle(compiled.output, inputs)
    want = onnxruntime_outputs(model, inputs)
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    fused = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs)))
    steps = quantization_steps(model)
    for output, expected in want.items():
        spread = float(np.abs(fused[output] - expected).max()) / steps[output]
        allowed = max(INT8_LAYER_STEPS, round(spread)) * steps[output]
        assert float(np.abs(got[output] - expected).max()) <= allowed * (1 + 1e-6), output


def test_mrvl_run_simulates_the_quantize_the_bundle_was_compiled_with(qdq_dir, tmp_path, capsys):
    model = qdq_model(qdq_dir, "mnist", "int8")
    bundles = {quantize: compile_model(model, tmp_path / f"{quantize}.tar", quantize=quantize).output
               for quantize in ("int8", "fp16")}
    capsys.readouterr()
    assert mrvl_run([str(bundles["int8"]), "--verify", str(model)]) == 0
    assert "on the reference simulator (int8)" in capsys.readouterr().out
    assert mrvl_run([str(bundles["int8"]), "--precision", "fp32"]) == 0  # the float reference
    assert "on the reference simulator (fp32)" in capsys.readouterr().out
    for bundle, other in ((bundles["int8"], "fp16"), (bundles["fp16"], "int8")):
        assert mrvl_run([str(bundle), "--precision", other]) == 1
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("error: ") and f"--precision: {other}: the bundle's subgraphs were compiled" in line


def _quant_files(folder: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in folder.glob("*-quant.json")}


@pytest.mark.parametrize("scheme", ["int8", "int8-per-channel"])
@pytest.mark.parametrize("name", FIRST_MODELS)
def test_int8_quant_file_validates_and_lists_every_layer(qdq_dir, tmp_path, name, scheme):
    bundle = compile_model(qdq_model(qdq_dir, name, scheme), tmp_path / "bundle", quantize="int8").output
    files = _quant_files(bundle)
    assert files and len(files) == len(list(bundle.glob("*-nodes.json")))
    for file_name, document in files.items():
        assert not validate(document, QUANT_SCHEMA), file_name
        nodes = json.loads((bundle / file_name.replace("-quant", "-nodes")).read_text())["nodes"]
        layers = [(k, n["name"]) for k, n in enumerate(nodes) if n["op"] == "tvm_op"]
        assert [(entry["id"], entry["name"]) for entry in document["layers"]] == layers
        weighted = [entry for entry in document["layers"] if "weight" in entry["tensors"]]
        assert weighted, file_name
        for entry in weighted:  # every conv and fc: scales of all three tensors, symmetric int8
            assert set(entry["tensors"]) == {"input", "weight", "output"}, entry
            assert all(t["dtype"] == "int8" and not any(t["zero_point"]) for t in entry["tensors"].values()), entry
        per_channel = [len(entry["tensors"]["weight"]["scale"]) > 1 for entry in weighted]
        assert any(per_channel) == scheme.endswith("per-channel")
    assert "-quant.json" not in (bundle / "tmlc-commands.txt").read_text()  # no documented flag takes it


def test_quant_schema_refuses_a_wrong_document(qdq_dir, tmp_path):
    bundle = compile_model(qdq_model(qdq_dir, "mnist", "int8"), tmp_path / "bundle", quantize="int8").output
    (document,) = _quant_files(bundle).values()
    document["layers"][1]["tensors"]["input"].pop("scale")
    assert validate(document, QUANT_SCHEMA)


def test_no_quant_file_with_fp16(qdq_dir, tmp_path):
    bundle = compile_model(qdq_model(qdq_dir, "mnist", "int8"), tmp_path / "bundle").output
    assert not _quant_files(bundle)
    nodes = {p.name for p in bundle.glob("*-nodes.json")}
    assert nodes


def test_uint8_model_stays_on_the_host_with_int8(qdq_dir, tmp_path):
    result = compile_model(qdq_model(qdq_dir, "mnist", "uint8"), tmp_path / "bundle", quantize="int8")
    rows = [row for row in result.report.nodes if row.op_type == "Conv"]
    assert rows and all(row.place == "host" and "quant.int8" in " ".join(row.reasons) for row in rows)


def test_quant_file_goes_to_tmlc_under_a_documented_flag(qdq_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(json_emitter, "TMLC_QUANT_FLAG", "-scales")
    bundle = compile_model(qdq_model(qdq_dir, "mnist", "int8"), tmp_path / "bundle", quantize="int8").output
    (symbol,) = [p.name.removesuffix("-quant.json") for p in bundle.glob("*-quant.json")]
    assert f"-scales {symbol}-quant.json" in (bundle / "tmlc-commands.txt").read_text()


@pytest.mark.parametrize("options,precision,quantized", [({"quantize": "int8"}, "int8", "int8"),
                                                         ({}, "fp16", "fp16"),
                                                         ({"offload": False}, None, "int8")])
def test_report_says_what_each_quantized_node_ran_in(qdq_dir, tmp_path, options, precision, quantized):
    report = compile_model(qdq_model(qdq_dir, "mnist", "int8"), tmp_path / "bundle.tar", **options).report
    assert [s.precision for s in report.subgraphs] == ([precision] if precision else [])
    convs = [row for row in report.nodes if row.op_type == "Conv"]
    assert convs and {row.quantized for row in convs} == {quantized}
    assert "precision" in subgraphs_csv(report).splitlines()[0]
    float_report = compile_model(examples_mnist(), tmp_path / "f.tar", **options).report
    assert {row.quantized for row in float_report.nodes} == {None}


def examples_mnist() -> Path:
    return Path(__file__).resolve().parents[1] / "examples" / "mnist.onnx"
