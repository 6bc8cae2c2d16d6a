"""The board's accelerator runner (mrvl_mlip_board.c, `mrvl-run --run-mode hw`) against a
stand-in for Marvell's libmldpc (test/fake_mldpc.c) whose model runs are computed by the
reference simulator: the outputs match onnxruntime, libmldpc is driven as TVM's runtime drove
it (init once, one model and four buffers per subgraph, quantize / run with the compiled batch
/ dequantize per call, several inputs or outputs through one buffer, everything freed and
finished at the end), and every failure is one error line naming its cause."""

import ctypes
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from ir_helpers import ZOO_INPUT_SHAPES
from onnx import TensorProto, helper

from mrvl.backend.mlip_simulator import load, simulate
from numeric_asserts import assert_close
from mrvl.opt import main as mrvl_opt
from mrvl.run import main as mrvl_run, run_bundle
from mrvl_dialect.errors import CompileError

pytestmark = pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None,
                                reason="needs cc and make")

BACKEND = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_float),
                           ctypes.POINTER(ctypes.c_float), ctypes.c_int)


class FakeLibmldpc:
    """The stand-in library, loaded here too (the runner's dlopen of the same path shares it),
    computing each subgraph of `bundle` with the reference simulator in fp32."""

    def __init__(self, path: Path):
        self.path = path
        self.lib = ctypes.CDLL(str(path))
        self.lib.fake_mldpc_log.restype = ctypes.c_char_p
        self.bundle: Path | None = None
        self.batches: list[int] = []
        self.backend = BACKEND(self._run)  # kept alive with the object
        self.lib.fake_mldpc_set_backend(self.backend)

    def serve(self, bundle: Path) -> None:
        self.bundle = bundle
        self.lib.fake_mldpc_reset()

    def log(self) -> list[str]:
        return self.lib.fake_mldpc_log().decode().splitlines()

    def _run(self, symbol: bytes, inputs, outputs, batches: int) -> int:
        try:
            assert self.bundle is not None
            name = symbol.decode()
            meta = json.loads((self.bundle / "metadata.json").read_text())
            entry = next(s for s in meta["subgraphs"] if s["symbol"] == name)
            arrays, at = [], 0
            for tensor in entry["inputs"]:
                count = int(np.prod(tensor["shape"]))
                arrays.append(np.ctypeslib.as_array(inputs, (at + count,))[at:].reshape(tensor["shape"]).copy())
                at += count
            results = simulate(*load(self.bundle / entry["nodes"], self.bundle / entry["consts"]), arrays, "fp32")
            flat = np.concatenate([np.asarray(r, np.float32).ravel() for r in results])
            np.ctypeslib.as_array(outputs, (flat.size,))[:] = flat
            return 0
        except Exception:  # noqa: BLE001 - reported to the runner as a failed run
            return 1


@pytest.fixture(scope="module")
def fake_libmldpc(tmp_path_factory) -> FakeLibmldpc:
    out = tmp_path_factory.mktemp("mldpc") / "libfake_mldpc.so"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", str(out),
                    str(Path(__file__).parent / "fake_mldpc.c")], check=True)
    return FakeLibmldpc(out)


def _write_binaries(bundle: Path) -> None:
    """What mrvl-tmlc would leave in the bundle: bin_<symbol>/<symbol>.bin, here fake ones."""
    meta = json.loads((bundle / "metadata.json").read_text())
    for s in meta["subgraphs"]:
        floats = [sum(int(np.prod(t["shape"])) for t in s[kind]) for kind in ("inputs", "outputs")]
        folder = bundle / f"bin_{s['symbol']}"
        folder.mkdir(exist_ok=True)
        (folder / f"{s['symbol']}.bin").write_text(f"FAKEMLIP {s['symbol']} {floats[0]} {floats[1]}")


def _compile(model_path: Path, out: Path, shapes: dict[str, list[int]]) -> Path:
    flags = [a for k, v in shapes.items() for a in ("--input-shape", f"{k}={'x'.join(map(str, v))}")]
    assert mrvl_opt([str(model_path), *flags, "-p", "mrvl-pipeline,mrvl-host-pipeline", "-t", "c", "-o", str(out)]) == 0
    _write_binaries(out)
    return out


def _two_input_model() -> onnx.ModelProto:
    """One subgraph with two inputs (the graph's) and two outputs: two convs, their sum, and
    a pool of it."""
    rng = np.random.default_rng(4)
    weights = [onnx.numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3, f"w{i}")
               for i in range(2)]
    nodes = [helper.make_node("Conv", ["a", "w0"], ["ca"], name="conv_a", pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["b", "w1"], ["cb"], name="conv_b", pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["ca", "cb"], ["y"], name="sum"),
             helper.make_node("MaxPool", ["y"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2])]
    graph = helper.make_graph(nodes, "two_inputs", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 3, 8, 8])
                                                    for n in "ab"],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8]),
                               helper.make_tensor_value_info("p", TensorProto.FLOAT, [1, 4, 4, 4])], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _onnxruntime(model_path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(str(model_path))
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs)))


def _random_inputs(model_path: Path, shapes: dict[str, list[int]]) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    session = ort.InferenceSession(str(model_path))
    return {i.name: rng.standard_normal(shapes.get(i.name) or i.shape).astype(np.float32) for i in session.get_inputs()}


def test_zoo_model_runs_through_libmldpc(fake_libmldpc, zoo_dir, tmp_path, monkeypatch):
    """mobilenet_small's subgraphs (one with two outputs) on the stand-in match onnxruntime,
    and libmldpc sees TVM's call sequence."""
    shapes = ZOO_INPUT_SHAPES["mobilenet_small"]
    bundle = _compile(zoo_dir / "mobilenet_small.onnx", tmp_path / "b", shapes)
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(fake_libmldpc.path))
    fake_libmldpc.serve(bundle)
    inputs = _random_inputs(zoo_dir / "mobilenet_small.onnx", shapes)
    got = run_bundle(bundle, inputs, run_mode="hw")
    for name, want in _onnxruntime(zoo_dir / "mobilenet_small.onnx", inputs).items():
        assert_close(got[name], want)

    log = fake_libmldpc.log()
    symbols = [s["symbol"] for s in json.loads((bundle / "metadata.json").read_text())["subgraphs"]]
    assert log[0] == "init 1 mrvl-xdsl" and log[-1] == "finish" and log.count("init 1 mrvl-xdsl") == 1
    for symbol in symbols:
        assert log.count(f"load {symbol}") == 1 and log.count(f"unload {symbol}") == 1
        assert [log.count(f"{verb} {symbol} {w}") for verb in ("alloc", "free") for w in range(4)] == [1] * 8
        calls = [line for line in log if line.split()[1:2] == [symbol] and line.split()[0] in
                 ("quantize", "run", "dequantize")]
        assert calls == [f"quantize {symbol}", f"run {symbol} 1", f"dequantize {symbol}"]
    # Every model is loaded before the first run, and unloaded after the last.
    assert max(log.index(f"load {s}") for s in symbols) < min(i for i, line in enumerate(log) if line.startswith("run"))


def test_batch_in_chunks_runs_each_chunk_on_the_board(fake_libmldpc, zoo_dir, tmp_path, monkeypatch):
    """face_rnet_b16 (batch 16, over MLIP's 8): each subgraph's model is loaded once and run
    twice with its compiled batch of 8, and the outputs match onnxruntime."""
    model = zoo_dir / "face_rnet_b16.onnx"
    bundle = _compile(model, tmp_path / "b", {})
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(fake_libmldpc.path))
    fake_libmldpc.serve(bundle)
    inputs = _random_inputs(model, {})
    got = run_bundle(bundle, inputs, run_mode="hw")
    for name, want in _onnxruntime(model, inputs).items():
        assert_close(got[name], want)
    log = fake_libmldpc.log()
    for entry in json.loads((bundle / "metadata.json").read_text())["subgraphs"]:
        symbol = entry["symbol"]
        assert (entry["batch"], entry["calls"]) == (8, 2)
        assert log.count(f"load {symbol}") == 1 and log.count(f"run {symbol} 8") == 2


def test_several_inputs_and_outputs_share_one_buffer(fake_libmldpc, tmp_path, monkeypatch):
    path = tmp_path / "two.onnx"
    onnx.save(_two_input_model(), path)
    bundle = _compile(path, tmp_path / "b", {})
    meta = json.loads((bundle / "metadata.json").read_text())
    assert [(len(s["inputs"]), len(s["outputs"])) for s in meta["subgraphs"]] == [(2, 2)]
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(fake_libmldpc.path))
    fake_libmldpc.serve(bundle)
    inputs = _random_inputs(path, {})
    got = run_bundle(bundle, inputs, run_mode="hw")
    for name, want in _onnxruntime(path, inputs).items():
        assert_close(got[name], want)


def test_cli_run_mode_hw(fake_libmldpc, zoo_dir, tmp_path, monkeypatch, capsys):
    bundle = _compile(zoo_dir / "mnist.onnx", tmp_path / "b", ZOO_INPUT_SHAPES["mnist"])
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(fake_libmldpc.path))
    fake_libmldpc.serve(bundle)
    assert mrvl_run([str(bundle), "--run-mode", "hw", "--verify", str(zoo_dir / "mnist.onnx")]) == 0
    out = capsys.readouterr().out
    assert "1 accelerator subgraph(s) on MLIP (libmldpc)" in out and "ok" in out.splitlines()[-1]


@pytest.mark.parametrize("case, message", [
    ("no-library", "cannot open libmldpc {missing}"),
    ("no-binary", "@tvmgen_mrvl_main_0: cannot read {bundle}/bin_tvmgen_mrvl_main_0/tvmgen_mrvl_main_0.bin "
                  "(run mrvl-tmlc on the bundle first: tmlc-commands.txt)"),
    ("other-binary", "@tvmgen_mrvl_main_0: the model's buffer 1 holds 12 bytes, its tensors 3136: "
                     "a binary of another model?"),
    ("run-fails", "returned -6 (accelerator subgraph failed): @tvmgen_mrvl_main_0: mrvl_ml_model_run failed"),
])
def test_failures_are_one_line(fake_libmldpc, zoo_dir, tmp_path, monkeypatch, capsys, case, message):
    bundle = _compile(zoo_dir / "mnist.onnx", tmp_path / "b", ZOO_INPUT_SHAPES["mnist"])
    missing = tmp_path / "nowhere" / "libmldpc.so"
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(missing if case == "no-library" else fake_libmldpc.path))
    fake_libmldpc.serve(bundle)
    binary = bundle / "bin_tvmgen_mrvl_main_0" / "tvmgen_mrvl_main_0.bin"
    if case == "no-binary":
        binary.unlink()
    elif case == "other-binary":
        binary.write_text("FAKEMLIP tvmgen_mrvl_main_0 3 10")
    elif case == "run-fails":
        fake_libmldpc.lib.fake_mldpc_fail(b"run")
    assert mrvl_run([str(bundle), "--run-mode", "hw"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ")
    assert message.format(missing=missing, bundle=bundle) in err[0]
    if case != "no-library":  # what was loaded is released, and the library finished
        log = fake_libmldpc.log()
        assert log[-1] == "finish" and log.count("load tvmgen_mrvl_main_0") == log.count("unload tvmgen_mrvl_main_0")


def test_all_host_bundle_needs_no_library(zoo_dir, tmp_path, monkeypatch):
    """No subgraph, no board runner: --run-mode hw runs without opening libmldpc."""
    out = tmp_path / "b"
    assert mrvl_opt([str(zoo_dir / "mnist.onnx"), "-p", "mrvl-pipeline{offload=false},mrvl-host-pipeline", "-t", "c", "-o", str(out)]) == 0
    assert not (out / "mrvl_mlip_board.c").exists()
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(tmp_path / "absent.so"))
    inputs = _random_inputs(zoo_dir / "mnist.onnx", {})
    got = run_bundle(out, inputs, run_mode="hw")
    want = _onnxruntime(zoo_dir / "mnist.onnx", inputs)
    assert_close(got["Plus214_Output_0"], want["Plus214_Output_0"])


def test_bundle_without_runner_is_refused(fake_libmldpc, zoo_dir, tmp_path, monkeypatch):
    """A bundle generated before the runner existed: its library has none."""
    bundle = _compile(zoo_dir / "mnist.onnx", tmp_path / "b", ZOO_INPUT_SHAPES["mnist"])
    makefile = bundle / "Makefile"
    makefile.write_text(makefile.read_text().replace(" mrvl_mlip_board.o\n", "\n", 1))
    (bundle / "mrvl_mlip_board.c").write_text("/* removed */\n")
    monkeypatch.setenv("MRVL_LIBMLDPC_PATH", str(fake_libmldpc.path))
    with pytest.raises(CompileError, match="has no board runner"):
        run_bundle(bundle, _random_inputs(zoo_dir / "mnist.onnx", {}), run_mode="hw")
