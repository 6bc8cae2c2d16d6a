"""`mrvl-run`: bundles of the model zoo built with the system C compiler and run end to end,
the accelerator subgraphs served by the reference simulator, checked against onnxruntime
(mrvl/numerics.py: all host and partitioned in fp32 within 1e-4 of each output's scale,
partitioned in fp16 within 3%); and its errors, one line each."""

import json
import shutil
import tarfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from ir_helpers import ZOO_INPUT_SHAPES, random_input
from onnx import TensorProto, helper

from numeric_asserts import assert_close
from mrvl.numerics import FP16_LAYERS
from mrvl.opt import main as mrvl_opt
from mrvl.compile import main as mrvl_compile
from mrvl.run import build, host_kind, main as mrvl_run, open_bundle, profile_bundle, run_bundle
from mrvl.target.cost_model import duration
from test_c_backend import ZOO_ALL_HOST, build_bundles, locked, merged, merged_inputs
from test_mlip_simulator import _calls, tools  # noqa: F401 (fixture: fake mrvl-tmlc and mrvl-mlsim on PATH)
from zoo import GLUE_MODELS

pytestmark = [pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None,
                                 reason="needs cc and make")]

MODELS = ["mnist", "resnet_small", "mobilenet_small", "mobilenet_v2", "squeezenet", "yolov3_tiny", "transformer_block",
          "paddle_ocr_rec", "ocr_cls_stale", "vad_if", "paddle_crnn", "gru_kws", "captcha_crnn_stale", "face_pnet",
          "face_rnet_b16", "keras_nhwc_cnn", "yolov8_det", "ppocr_det", "picodet_head", "mobilenet_v3", "lstm_speaker",
          "t5_encoder"]
SUBGRAPHS = {"mnist": 1, "resnet_small": 1, "mobilenet_small": 9, "mobilenet_v2": 1, "squeezenet": 1, "yolov3_tiny": 2,
             "transformer_block": 0, "paddle_ocr_rec": 1, "ocr_cls_stale": 2, "vad_if": 2, "paddle_crnn": 1, "gru_kws": 1,
             "captcha_crnn_stale": 2, "face_pnet": 1, "face_rnet_b16": 1,
             "keras_nhwc_cnn": 1, "yolov8_det": 57, "ppocr_det": 29, "picodet_head": 65, "mobilenet_v3": 35,
             "lstm_speaker": 1, "t5_encoder": 0}
"""Accelerator subgraphs under the default partitioning (transformer_block has no conv;
face_rnet_b16's batch of 16 runs in 2 chunks of 8, captcha_crnn_stale's Gemm of 24 rows in 3;
the detectors and mobilenet_v3 are cut at every SiLU, HardSwish, SE product and head op MLIP
has no layer for)."""


def _shape_flags(name: str) -> list[str]:
    return [a for k, v in ZOO_INPUT_SHAPES[name].items() for a in ("--input-shape", f"{k}={'x'.join(map(str, v))}")]


def _inputs(model_path: Path, name: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    graph = onnx.load(str(model_path), load_external_data=False).graph
    return {i.name: random_input(rng, i, ZOO_INPUT_SHAPES[name].get(i.name) or
                                 [d.dim_value for d in i.type.tensor_type.shape.dim]) for i in graph.input}


def _onnxruntime(model_path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(str(model_path))
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs)))


PIPELINES = {"host": "mrvl-pipeline{offload=false},mrvl-host-pipeline", "partitioned": "mrvl-pipeline,mrvl-host-pipeline"}


class ZooBundles:
    """(model, "host" | "partitioned") -> bundle directory, compiled on first use into a folder
    the pytest-xdist workers share (a bundle one compiled, the other reuses)."""

    def __init__(self, zoo_dir: Path, root: Path):
        self.zoo_dir, self.root = zoo_dir, root

    def __getitem__(self, key: tuple[str, str]) -> Path:
        name, mode = key
        out = self.root / f"{name}-{mode}"
        with locked(out):
            if not out.exists():
                assert mrvl_opt([str(self.zoo_dir / f"{name}.onnx"), *_shape_flags(name), "-p", PIPELINES[mode],
                                 "-t", "c", "-o", str(out)]) == 0
        return out


@pytest.fixture(scope="module")
def bundles(zoo_dir: Path, session_dir: Path) -> ZooBundles:
    root = session_dir / "mrvl_run_bundles"
    root.mkdir(exist_ok=True)
    return ZooBundles(zoo_dir, root)


def _run_once(bundle: Path, inputs: dict[str, np.ndarray], **options) -> dict[str, np.ndarray]:
    """`run_bundle`, its build made by one pytest-xdist worker while the other waits for it."""
    with locked(bundle):
        return run_bundle(bundle, inputs, **options)


ALL_HOST = [name for name in MODELS if name not in ZOO_ALL_HOST]
"""The zoo models that test_c_backend does not run all on the host (it builds the others at
the baseline ISA; these are built as mrvl-run builds, for this machine's vector units)."""


@pytest.fixture(scope="module")
def all_host(zoo_dir: Path, session_dir: Path) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """The zoo models side by side (`merged`, one bundle per opset), all host, each bundle built
    and run once: the models' inputs and the outputs by `merged` name."""
    root = session_dir / "mrvl_run_all_host"
    root.mkdir(exist_ok=True)
    models = {name: onnx.load(zoo_dir / f"{name}.onnx") for name in ALL_HOST}
    inputs = {name: _inputs(zoo_dir / f"{name}.onnx", name) for name in ALL_HOST}
    shapes, values = merged_inputs(ZOO_INPUT_SHAPES), merged_inputs(inputs)
    groups = merged(models)
    for group, model in groups.items():
        out = root / group
        names = [i.name for i in model.graph.input]
        with locked(out):
            if not out.exists():
                onnx.save_model(model, root / f"{group}.onnx")
                flags = [a for k in names if k in shapes for a in ("--input-shape", f"{k}={'x'.join(map(str, shapes[k]))}")]
                assert mrvl_opt([str(root / f"{group}.onnx"), *flags, "-p", PIPELINES["host"], "-t", "c",
                                 "-o", str(out)]) == 0
        assert json.loads((out / "metadata.json").read_text())["subgraphs"] == []
    build_bundles([root / group for group in groups])
    got = {}
    for group, model in groups.items():
        got |= _run_once(root / group, {i.name: values[i.name] for i in model.graph.input})
    return inputs, got


@pytest.mark.parametrize("name", ALL_HOST)
def test_all_host_matches_onnxruntime(all_host, zoo_dir, name):
    inputs, got = all_host
    for output, want in _onnxruntime(zoo_dir / f"{name}.onnx", inputs[name]).items():
        assert_close(got[f"{name}__{output}"], want, what=output)


PARTITIONED_RUNS = [pytest.param(name, precision, marks=[pytest.mark.slow] if precision == "fp16" and name in GLUE_MODELS
                                 else []) for name in MODELS for precision in ("fp16", "fp32")]
"""The glue models' fp16 runs (5 to 15 s each) are in `make test-slow`: their fp32 runs check
the same bundles exactly, and the fp16 simulation is the other models' too."""


@pytest.mark.parametrize(("name", "precision"), PARTITIONED_RUNS)
def test_partitioned_matches_onnxruntime(bundles, zoo_dir, name, precision):
    model = zoo_dir / f"{name}.onnx"
    inputs = _inputs(model, name)
    bundle = bundles[name, "partitioned"]
    assert len(json.loads((bundle / "metadata.json").read_text())["subgraphs"]) == SUBGRAPHS[name]
    got = _run_once(bundle, inputs, precision=precision, simulator="reference")
    for output, want in _onnxruntime(model, inputs).items():
        assert_close(got[output], want, FP16_LAYERS if precision == "fp16" else None, output)


def test_cli_inputs_outputs_verify(bundles, zoo_dir, tmp_path, capsys):
    model = zoo_dir / "mnist.onnx"
    inputs = _inputs(model, "mnist")
    np.savez(tmp_path / "in.npz", **inputs)
    assert mrvl_run([str(bundles["mnist", "partitioned"]), "--inputs", str(tmp_path / "in.npz"),
                     "--outputs", str(tmp_path / "out.npz"), "--verify", str(model)]) == 0
    out = capsys.readouterr().out
    assert "1 accelerator subgraph(s) on the reference simulator (fp16)" in out
    assert "(allowed 0.03) ok" in out
    with np.load(tmp_path / "out.npz") as saved:
        got = dict(saved)
    assert list(got) == ["Plus214_Output_0"]
    want = _onnxruntime(model, inputs)["Plus214_Output_0"]
    assert_close(got["Plus214_Output_0"], want, FP16_LAYERS)


def test_tar_bundle(bundles, zoo_dir, tmp_path):
    bundle = bundles["mnist", "partitioned"]
    archive = tmp_path / "mnist.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(bundle, arcname="mnist")
    inputs = _inputs(zoo_dir / "mnist.onnx", "mnist")
    from_tar = run_bundle(archive, inputs, precision="fp32")
    from_dir = run_bundle(bundle, inputs, precision="fp32")
    np.testing.assert_array_equal(from_tar["Plus214_Output_0"], from_dir["Plus214_Output_0"])


def test_build_is_cached(bundles):
    with open_bundle(bundles["mnist", "host"]) as bundle:
        first = build(bundle)
        stamp = first.stat().st_mtime_ns
        assert build(bundle) == first and first.stat().st_mtime_ns == stamp


def test_verify_failure_is_an_error(bundles, zoo_dir, tmp_path, capsys):
    """Verifying against a different model (other weights, same interface) fails the run."""
    model = onnx.load(zoo_dir / "mnist.onnx")
    for initializer in model.graph.initializer:
        if initializer.data_type == TensorProto.FLOAT and initializer.dims:
            array = onnx.numpy_helper.to_array(initializer) * 1.5
            initializer.CopyFrom(onnx.numpy_helper.from_array(array.astype(np.float32), initializer.name))
    onnx.save_model(model, tmp_path / "other.onnx")
    assert mrvl_run([str(bundles["mnist", "host"]), "--verify", str(tmp_path / "other.onnx")]) == 1
    captured = capsys.readouterr()
    assert "FAILED" in captured.out
    assert captured.err.splitlines() == [
        f"error: {bundles['mnist', 'host']}: --verify: 1 output(s) differ from onnxruntime: Plus214_Output_0"]


def _error(args: list[str], capsys) -> str:
    assert mrvl_run(args) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def test_errors_are_one_line(bundles, tmp_path, capsys):
    bundle = str(bundles["mnist", "host"])
    np.savez(tmp_path / "wrong_name.npz", x=np.zeros((1, 1, 28, 28), np.float32))
    np.savez(tmp_path / "wrong_shape.npz", Input3=np.zeros((1, 28, 28), np.float32))
    (tmp_path / "not.npz").write_text("nope")
    assert "input 'Input3': not given (inputs given: x)" in _error([bundle, "--inputs", str(tmp_path / "wrong_name.npz")], capsys)
    assert "has shape [1, 28, 28]; the bundle was compiled for [1, 1, 28, 28]" in _error(
        [bundle, "--inputs", str(tmp_path / "wrong_shape.npz")], capsys)
    assert "not a readable .npz file" in _error([bundle, "--inputs", str(tmp_path / "not.npz")], capsys)
    assert "no such bundle" in _error([str(tmp_path / "missing")], capsys)
    assert "metadata.json: missing" in _error([str(tmp_path)], capsys)
    assert "no-such-cc: C compiler not found" in _error([bundle, "--cc", "no-such-cc"], capsys)
    (tmp_path / "bad.tar").write_bytes(b"\0" * 10)
    assert "not a readable bundle archive" in _error([str(tmp_path / "bad.tar")], capsys)


def test_broken_bundles(bundles, tmp_path, capsys):
    """A bundle whose files were edited fails cleanly: weights of another build refused,
    subgraph JSON checked, C compiler errors reported."""
    weights = tmp_path / "weights"
    shutil.copytree(bundles["mnist", "host"], weights)
    blob = next(weights.glob("*_weights.bin"))
    shutil.copyfile(next(bundles["resnet_small", "host"].glob("*_weights.bin")), blob)
    assert "_weights.bin: not loaded: weights file does not match" in _error([str(weights)], capsys)
    data = bytearray(next(bundles["mnist", "host"].glob("*_weights.bin")).read_bytes())
    data[16] ^= 0xFF  # the checksum of another build of the same size
    blob.write_bytes(bytes(data))
    assert "_weights.bin: not loaded: weights file does not match" in _error([str(weights)], capsys)

    nodes = tmp_path / "nodes"
    shutil.copytree(bundles["mnist", "partitioned"], nodes)
    (nodes / "tvmgen_mrvl_main_0-nodes.json").write_text("{")
    assert "tvmgen_mrvl_main_0-nodes.json" in _error([str(nodes), "--simulator", "reference"], capsys)

    source = tmp_path / "source"
    shutil.copytree(bundles["mnist", "host"], source)
    c_file = next(p for p in source.glob("*.c") if not p.name.startswith("mrvl_"))
    c_file.write_text(c_file.read_text() + "\nthis is not C;\n")
    assert "building the host C failed" in _error([str(source)], capsys)


def test_scalar_inputs_run(tmp_path):
    """A graph input of rank 0 (Range's bounds) is given and bound as a 0-d array."""
    scalars = [helper.make_tensor_value_info(n, TensorProto.FLOAT, []) for n in ("start", "limit", "delta")]
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Range", ["start", "limit", "delta"], ["y"], name="r")], "g", scalars, [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save_model(model, tmp_path / "m.onnx")
    assert mrvl_compile([str(tmp_path / "m.onnx"), "-o", str(tmp_path / "b.tar")]) == 0
    got = run_bundle(tmp_path / "b.tar", {"start": np.float32(1), "limit": np.float32(3), "delta": np.float32(0.5)})
    np.testing.assert_array_equal(got["y"], [1, 1.5, 2, 2.5])


def test_no_mlip_runner_is_reported(tmp_path):
    """The same bundle without a runner: the C entry point reports MRVL_ERR_NO_MLIP."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])
    w = onnx.numpy_helper.from_array(np.ones((2, 3, 1, 1), np.float32), "w")
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="c")], "g", [x], [y], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save_model(model, tmp_path / "m.onnx")
    assert mrvl_opt([str(tmp_path / "m.onnx"), "-p", "mrvl-pipeline,mrvl-host-pipeline", "-t", "c", "-o", str(tmp_path / "b")]) == 0
    from mrvl.run import Bundle, HostProgram

    program = HostProgram(Bundle(tmp_path / "b"), build(Bundle(tmp_path / "b")))
    assert program.set_mlip(None, None) is None
    from mrvl_dialect.errors import CompileError

    class NoRunner:
        error = None

        def install(self):
            return None, None

        def explain(self):
            return ""

    with pytest.raises(CompileError, match=r"returned -5 \(no accelerator runner\)"):
        program.run({"x": np.zeros((1, 3, 4, 4), np.float32)}, NoRunner())  # type: ignore[arg-type]


def test_mlsim_serves_subgraphs_when_on_path(bundles, zoo_dir, tools, monkeypatch, capsys):
    """With mrvl-tmlc and mrvl-mlsim on PATH (stand-ins running our simulator on the raw
    files), each subgraph call goes through them; their failure is one error line."""
    bundle = str(bundles["mnist", "partitioned"])
    inputs = _inputs(zoo_dir / "mnist.onnx", "mnist")
    got = run_bundle(bundle, inputs)
    assert [call[0] for call in _calls(tools)] == ["mrvl-tmlc", "mrvl-mlsim"]
    want = _onnxruntime(zoo_dir / "mnist.onnx", inputs)["Plus214_Output_0"]
    assert_close(got["Plus214_Output_0"], want, FP16_LAYERS)
    assert mrvl_run([bundle]) == 0
    assert "1 accelerator subgraph(s) on mrvl-mlsim" in capsys.readouterr().out
    assert mrvl_run([bundle, "--simulator", "reference"]) == 0
    assert "on the reference simulator (fp16)" in capsys.readouterr().out
    monkeypatch.setenv("FAKE_MLSIM_MODE", "fail")
    assert "mrvl-mlsim: exited with status 3: mlsim: out of simulated DDR" in _error([bundle], capsys)


def test_mlsim_compiles_for_the_bundles_tiles(zoo_dir, tools, tmp_path):
    """A bundle compiled for 4 tiles is simulated with 4: mrvl-tmlc gets the options of the
    subgraph's line in tmlc-commands.txt, not defaults."""
    bundle = tmp_path / "mnist-4tiles"
    assert mrvl_opt([str(zoo_dir / "mnist.onnx"), "-p", "mrvl-pipeline{num_tiles=4 wb_pin_ocm=1},mrvl-host-pipeline",
                     "-t", "c", "-o", str(bundle)]) == 0
    assert "-num_tiles=4" in (bundle / "tmlc-commands.txt").read_text()
    run_bundle(bundle, _inputs(zoo_dir / "mnist.onnx", "mnist"))
    tmlc = [call for call in _calls(tools) if call[0] == "mrvl-tmlc"]
    assert len(tmlc) == 1
    assert tmlc[0][-6:] == ["-arch=mlip", "-quantize=fp16", "-wb_pin_ocm=1", "-num_tiles=4", "-b", "1"]


def test_mlsim_needs_the_subgraphs_command_line(bundles, zoo_dir, tools, tmp_path, capsys):
    bundle = tmp_path / "bundle"
    shutil.copytree(bundles["mnist", "partitioned"], bundle)
    (bundle / "tmlc-commands.txt").write_text("")
    assert _error([str(bundle)], capsys) == (f"error: {bundle}: tmlc-commands.txt: has no mrvl-tmlc command line "
                                             "for @tvmgen_mrvl_main_0: what to compile it for is unknown")
    assert _calls(tools) == []


def test_profile_times_every_host_op(bundles, zoo_dir, capsys):
    """--profile: one entry per op call of M_run, in run order, naming its ONNX nodes (the
    accelerator calls too); the outputs are those of a plain run; the timed build compiles
    warning-free."""
    bundle = bundles["mobilenet_small", "partitioned"]
    inputs = _inputs(zoo_dir / "mobilenet_small.onnx", "mobilenet_small")
    outputs, times = profile_bundle(bundle, inputs, repeat=3, precision="fp32")
    plain = run_bundle(bundle, inputs, precision="fp32")
    assert outputs.keys() == plain.keys()
    for name in plain:
        np.testing.assert_array_equal(outputs[name], plain[name])
    source = (bundle / json.loads((bundle / "metadata.json").read_text())["source"]).read_text()
    assert len(times) == source.count("    rc = op_") and [t.index for t in times] == list(range(len(times)))
    assert sum(t.label.endswith("(cpu.call_mlip)") for t in times) == SUBGRAPHS["mobilenet_small"]
    # the decoder's transposed conv with its batch norm and Relu folded in
    assert any(t.label.startswith("p2o.ConvTranspose.0 (ConvTranspose), ") and t.label.endswith("(cpu.conv_transpose)")
               for t in times)
    assert all(t.seconds >= 0 for t in times) and sum(t.seconds for t in times) > 0

    assert mrvl_run([str(bundle), "--profile", "--repeat", "2", "--precision", "fp32"]) == 0
    out = capsys.readouterr().out
    assert "profile over 2 run(s), slowest first:" in out and "100.0%  total\n" in out
    assert "100.0%  total\n(cpu.call_mlip: the time of the reference simulator (fp32), not of MLIP)\n" in out
    # a bundle of mrvl-opt -t c has no report.json: no estimate, no end-to-end figure
    assert "estimated: none: the bundle has no report.json (mrvl-compile writes one)" in out
    assert "end to end" not in out


def silu_glue_model() -> onnx.ModelProto:
    """Two convs (MLIP) with a SiLU between them (host: Sigmoid, Mul), then a Concat of the
    second conv and the SiLU and the model's own Transpose to NHWC (host)."""
    rng = np.random.default_rng(0)
    weights = [onnx.numpy_helper.from_array(rng.standard_normal((8, c, 3, 3)).astype(np.float32) * 0.3, f"w{i}")
               for i, c in enumerate((4, 8))]
    nodes = [helper.make_node("Conv", ["x", "w0"], ["a"], name="conv_a", pads=[1] * 4),
             helper.make_node("Sigmoid", ["a"], ["s"], name="sigmoid"),
             helper.make_node("Mul", ["a", "s"], ["m"], name="mul"),
             helper.make_node("Conv", ["m", "w1"], ["b"], name="conv_b", pads=[1] * 4),
             helper.make_node("Concat", ["b", "m"], ["c"], name="concat", axis=1),
             helper.make_node("Transpose", ["c"], ["y"], name="to_nhwc", perm=[0, 2, 3, 1])]
    graph = helper.make_graph(nodes, "glue", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 12, 12, 16])], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_profile_sums_host_glue_beside_the_mlip_estimate(tmp_path, capsys):
    """--profile of a partitioned bundle mrvl-compile wrote: the host ops' measured time by
    kind (each op counted once, by its label), beside report.json's estimate of the same ops;
    each subgraph's estimated call; the end-to-end estimate, measured host + estimated MLIP;
    the same in --profile-out's JSON."""
    onnx.save_model(silu_glue_model(), tmp_path / "glue.onnx")
    assert mrvl_compile([str(tmp_path / "glue.onnx"), "-o", str(tmp_path / "glue")]) == 0
    capsys.readouterr()
    assert mrvl_run([str(tmp_path / "glue"), "--profile", "--repeat", "1", "--profile-out",
                     str(tmp_path / "profile.json")]) == 0
    out = capsys.readouterr().out
    document = json.loads((tmp_path / "profile.json").read_text())
    estimate = json.loads((tmp_path / "glue" / "report.json").read_text())["estimate"]
    ops, summary = document["ops"], document["summary"]

    def kinds_of(node: str) -> list[str]:  # the kinds of the ops computing an ONNX node (alone or fused)
        return [op["host_kind"] for op in ops if f"{node} (" in op["label"]]

    assert kinds_of("sigmoid") == kinds_of("mul") == ["element-wise"]
    assert kinds_of("concat") == ["concat/split/slice/copies"]
    assert kinds_of("to_nhwc") == []  # the glue runs in NHWC: the model's own transpose to NHWC cancels
    assert [op["host_kind"] for op in ops if op["label"] == "inserted by the compiler (cpu.transpose)"] == \
        ["layout transposes"] * sum(op["label"] == "inserted by the compiler (cpu.transpose)" for op in ops)
    assert [op["host_kind"] for op in ops if op["label"].endswith("(cpu.call_mlip)")] == ["mlip call"] * 2
    for row in summary["host"]:
        mine = [op for op in ops if op["host_kind"] == row["kind"]]
        assert row["ops"] == len(mine)
        assert row["seconds"] == pytest.approx(sum(op["seconds"] for op in mine))
        assert row["estimated_seconds"] == pytest.approx(sum(op["estimated_seconds"] for op in mine))
    assert [row["kind"] for row in summary["host"]] == ["layout transposes", "element-wise",
                                                         "concat/split/slice/copies", "other host kernels"]
    assert summary["host_estimated_seconds"] == pytest.approx(estimate["host_seconds"])
    assert summary["mlip_estimated_seconds"] == pytest.approx(estimate["mlip_seconds"])
    per_call = {s["symbol"]: s["seconds"] for s in estimate["subgraphs"]}
    assert {s["symbol"]: s["estimated_seconds_per_call"] for s in summary["subgraphs"]} == per_call
    assert summary["end_to_end_seconds"] == pytest.approx(summary["host_seconds"] + estimate["mlip_seconds"])
    assert summary["host_seconds"] == pytest.approx(sum(op["seconds"] for op in ops if op["host_kind"] != "mlip call"))

    assert f"host time by kind, measured; estimated: the cost model's, report.json ({estimate['host_source']})" in out
    element_wise = next(row for row in summary["host"] if row["kind"] == "element-wise")
    assert f"  {'element-wise':<26} {element_wise['ops']:>5} {duration(element_wise['seconds']):>10} " \
           f"{duration(element_wise['estimated_seconds']):>10}\n" in out
    assert out.rstrip().endswith(
        f"end to end, estimated: {duration(summary['end_to_end_seconds'])} = host {duration(summary['host_seconds'])} "
        f"measured + MLIP {duration(estimate['mlip_seconds'])} estimated")


@pytest.mark.parametrize(("label", "kind"), [
    ("inserted by the compiler (cpu.transpose)", "layout transposes"),
    ("p2o.Transpose.0 (Transpose) (cpu.transpose)", "concat/split/slice/copies"),
    ("/model.0/act/Sigmoid (Sigmoid) (cpu.unary)", "element-wise"),
    ("p2o.HardSwish.0 (HardSwish) (cpu.hard_swish)", "element-wise"),
    ("/model.0/act/Sigmoid (Sigmoid), /model.0/act/Mul (Mul) (cpu.elementwise)", "element-wise"),
    ("inserted by the compiler (cpu.slice)", "concat/split/slice/copies"),
    ("/conv1/Conv (Conv), /relu/Relu (Relu) (cpu.conv)", "other host kernels"),
    ("@tvmgen_mrvl_main_3 (cpu.call_mlip)", None),
])
def test_host_kind_of_a_profiled_op(label, kind):
    assert host_kind(label) == kind


def test_profile_build_is_warning_free(bundles, monkeypatch, tmp_path):
    monkeypatch.setenv("MRVL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CFLAGS", "-std=c99 -O2 -Wall -Wextra -Werror")
    with open_bundle(bundles["mnist", "host"]) as opened:
        assert build(opened, profile=True).is_file()


def test_profile_errors(tmp_path, capsys):
    """A bad --repeat; a bundle whose C has no per-op timing (one conv, all host: the check
    needs a build of its own)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])
    w = onnx.numpy_helper.from_array(np.ones((2, 3, 1, 1), np.float32), "w")
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="c")], "g", [x], [y], [w])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8),
                    tmp_path / "m.onnx")
    bundle = tmp_path / "b"
    assert mrvl_opt([str(tmp_path / "m.onnx"), "-p", PIPELINES["host"], "-t", "c", "-o", str(bundle)]) == 0
    assert mrvl_run([str(bundle), "--profile", "--repeat", "0"]) == 1
    assert capsys.readouterr().err.strip().endswith("--repeat: must be at least 1, got 0")
    # A bundle generated before profiling existed: its C has no profile functions.
    old = tmp_path / "old"
    shutil.copytree(bundle, old)
    source = old / json.loads((old / "metadata.json").read_text())["source"]
    text = source.read_text()
    start, end = text.index("#ifdef MRVL_PROFILE"), text.index("#endif", text.index("#else")) + len("#endif")
    source.write_text(text[:start] + "#define MRVL_PROFILE_START() ((void)0)\n#define MRVL_PROFILE_MARK(i) ((void)0)"
                      + text[end:])
    assert mrvl_run([str(old), "--profile"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(f"{source.name}: has no per-op timing: it was generated before "
                                             "mrvl-run --profile existed; compile the model again")
