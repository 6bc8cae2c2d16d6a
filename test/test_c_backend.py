"""The host C backend (`-t c`): compile generated C with gcc, run it through ctypes and
compare with onnxruntime, for the zoo (all host) and for single-op models."""

import ctypes
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from ir_helpers import ZOO_INPUT_SHAPES, random_input
from onnx import TensorProto, compose, helper

from numeric_asserts import assert_close
from mrvl.opt import main as mrvl_opt

GCC = shutil.which("gcc")
CFLAGS = ["-Werror", "-fPIC", "-shared"]
pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]


class Bundle:
    """A generated model's directory: its header macros and interface."""

    def __init__(self, directory: Path, model: str):
        self.dir, self.model = directory, model
        header = (directory / f"{model}.h").read_text()
        self.macros = dict(re.findall(r"#define (\w+) (.+?)(?: /\*.*)?$", header, re.M))

    def io(self, kind: str) -> list[tuple[str, tuple[int, ...], str]]:
        M = self.model.upper()
        count = int(self.macros[f"{M}_NUM_{kind}S"])
        entries = []
        for i in range(count):
            shape = tuple(int(d) for d in re.findall(r"-?\d+", self.macros[f"{M}_{kind}_{i}_SHAPE"]))
            name = self.macros[f"{M}_{kind}_{i}_NAME"].strip('"')
            dtype = self.macros[f"{M}_{kind}_{i}_DTYPE"].strip('"')
            entries.append((name, shape, ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype))
        return entries

    def by_name(self, outputs: list[np.ndarray]) -> dict[str, np.ndarray]:
        """A run's outputs under their names."""
        return {name: value for (name, _, _), value in zip(self.io("OUTPUT"), outputs, strict=True)}


class Built(Bundle):
    """A model built as the shared library `library`, loaded with its weights."""

    def __init__(self, directory: Path, model: str, library: Path):
        super().__init__(directory, model)
        self.library = library
        self.lib = ctypes.CDLL(str(library))
        assert self.lib[f"{model}_load_weights"](str(directory / f"{model}_weights.bin").encode()) == 0

    def run(self, inputs: dict[str, np.ndarray]) -> tuple[int, list[np.ndarray]]:
        M = self.model.upper()
        ins = [np.ascontiguousarray(inputs[name], dtype=dtype) for name, _, dtype in self.io("INPUT")]
        outs = [np.zeros(shape, dtype) for _, shape, dtype in self.io("OUTPUT")]
        size, align = int(self.macros[f"{M}_WORKSPACE_BYTES"]), int(self.macros[f"{M}_WORKSPACE_ALIGN"])
        raw = np.zeros(size + align, np.uint8)
        start = -raw.ctypes.data % align
        workspace = raw.ctypes.data + start
        in_struct = (ctypes.c_void_p * max(len(ins), 1))(*[a.ctypes.data for a in ins])
        out_struct = (ctypes.c_void_p * max(len(outs), 1))(*[a.ctypes.data for a in outs])
        rc = self.lib[f"{self.model}_run"](in_struct, out_struct, ctypes.c_void_p(workspace))
        return rc, outs


_CACHE: dict[Path, Built] = {}


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Holds an exclusive lock named after `path`: the pytest-xdist workers share the folder,
    and one makes what the other then reuses."""
    with open(path.parent / f"{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def gcc(args: list[str], cwd: Path, compiler: str | None = GCC) -> None:
    done = subprocess.run([compiler, *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{compiler} {' '.join(args)} in {cwd}:\n{done.stderr}"


def makefile_cflags(directory: Path) -> list[str]:
    """The generated Makefile's default CFLAGS, so tests build what users build (plus -Werror).
    Without its ARCH_FLAGS: the baseline ISA, the kernels' portable paths."""
    (line,) = [x for x in (directory / "Makefile").read_text().splitlines() if x.startswith("CFLAGS ?=")]
    return line.split("?=", 1)[1].split()


def emit_model(model: onnx.ModelProto, workdir: Path, shapes: dict[str, list[int]] | None = None,
               name: str = "m") -> Path:
    """The C bundle of `model` (all host), in a directory named by its content."""
    data = model.SerializeToString()
    key = hashlib.sha256(data + repr(sorted((shapes or {}).items())).encode() + name.encode()).hexdigest()[:16]
    out = workdir / key
    with locked(out):
        if not out.exists():
            source = workdir / f"{key}.onnx"
            source.write_bytes(data)
            args = [str(source), "-p", "mrvl-pipeline{offload=false},mrvl-host-pipeline", "-t", f"c{{model={name}}}",
                    "-o", str(out)]
            for input_name, dims in (shapes or {}).items():
                args += ["--input-shape", f"{input_name}={'x'.join(map(str, dims))}"]
            assert mrvl_opt(args) == 0
    return out


def compile_model(model: onnx.ModelProto, workdir: Path, shapes: dict[str, list[int]] | None = None,
                  name: str = "m", native: bool = False) -> Built:
    """Emit C for `model` (all host) and build it with -Werror, for this machine's vector units
    too when `native` (-march=native, the Makefile's default ARCH_FLAGS where cc takes it); the
    same sources are built once."""
    out = emit_model(model, workdir, shapes, name)
    library = out / f"lib{name}{'_native' if native else ''}.so"
    if library not in _CACHE:
        with locked(library):
            if not library.exists():
                arch = ["-march=native"] if native else []
                gcc([*makefile_cflags(out), *arch, *CFLAGS, f"{name}.c", "-o", f"{library.name}.tmp", "-lm"], out)
                os.rename(out / f"{library.name}.tmp", library)
        _CACHE[library] = Built(out, name, library)
    return _CACHE[library]


@pytest.fixture(scope="session")
def c_workdir(session_dir: Path) -> Path:
    """The bundles and libraries of this session's tests, keyed by content: one folder that
    every test module and pytest-xdist worker shares, so a build is made once."""
    folder = session_dir / "c_backend"
    folder.mkdir(exist_ok=True)
    return folder


def reference(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def check(model: onnx.ModelProto, workdir: Path, inputs: dict[str, np.ndarray],
          shapes: dict[str, list[int]] | None = None, name: str = "m", native: bool = False) -> None:
    built = compile_model(model, workdir, shapes, name, native)
    rc, got = built.run(inputs)
    assert rc == 0
    expected = reference(model, inputs)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_close(g, e.reshape(g.shape))


def _other_domains(models: list[onnx.ModelProto]) -> list[onnx.OperatorSetIdProto]:
    """The models' opset imports of domains other than ONNX's (com.microsoft), the newest of each."""
    versions: dict[str, int] = {}
    for model in models:
        for o in model.opset_import:
            if o.domain not in ("", "ai.onnx"):
                versions[o.domain] = max(versions.get(o.domain, 0), o.version)
    return [helper.make_opsetid(domain, version) for domain, version in sorted(versions.items())]


def merged(cases: Mapping[str, onnx.ModelProto]) -> dict[str, onnx.ModelProto]:
    """The cases side by side in one model per opset they use (named "opsetN"), every name
    prefixed by its case's ("case__x"). One build compiles each kernel once for all of them:
    gcc takes about a second per build of a kernel, which made most of the suite's time."""
    groups: dict[int, list[onnx.ModelProto]] = defaultdict(list)
    for name, model in cases.items():
        (opset,) = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
        groups[opset].append(compose.add_prefix(model, f"{name}__"))
    return {f"opset{opset}": helper.make_model(
        helper.make_graph([n for m in models for n in m.graph.node], f"opset{opset}",
                          [i for m in models for i in m.graph.input], [o for m in models for o in m.graph.output],
                          [t for m in models for t in m.graph.initializer]),
        opset_imports=[helper.make_opsetid("", opset), *_other_domains(models)],
        ir_version=max(m.ir_version for m in models))
        for opset, models in sorted(groups.items())}


def merged_inputs(inputs: Mapping[str, Mapping]) -> dict:
    """Each case's inputs (or their shapes) under their names in `merged`."""
    return {f"{case}__{name}": value for case, values in inputs.items() for name, value in values.items()}


def run_together(cases: Mapping[str, onnx.ModelProto], workdir: Path, inputs: Mapping[str, dict[str, np.ndarray]],
                 native: bool = False, shapes: Mapping[str, dict[str, list[int]]] | None = None) -> dict[str, np.ndarray]:
    """The outputs, by their `merged` names, of one build (per opset) of the cases; `shapes`
    gives a case's input shapes where its model leaves them open. The C is emitted one group
    after the other and compiled side by side, a gcc per core."""
    merged_shapes = merged_inputs(shapes or {})
    groups = {}
    for group, model in merged(cases).items():
        group_inputs = {i.name for i in model.graph.input}
        group_shapes = {k: v for k, v in merged_shapes.items() if k in group_inputs}
        name = f"{group}_{'native' if native else 'baseline'}"
        emit_model(model, workdir, group_shapes, name)
        groups[group] = (model, group_shapes, name)

    def build(group: str) -> Built:
        model, group_shapes, name = groups[group]
        return compile_model(model, workdir, group_shapes, name, native)
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        built = list(pool.map(build, groups))
    got = {}
    for b in built:
        rc, outputs = b.run(merged_inputs(inputs))
        assert rc == 0
        got |= b.by_name(outputs)
    return got


def build_bundles(bundles: list[Path]) -> None:
    """Builds each bundle's library into mrvl-run's cache, as `mrvl-run` would, a gcc per core
    (a merged build is one bundle per opset); a pytest-xdist worker waits for the other's
    build of a bundle."""
    from mrvl.run import build, open_bundle

    def build_one(path: Path) -> None:
        with locked(path), open_bundle(path) as bundle:
            build(bundle)
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(build_one, bundles))


def assert_cases_close(cases: Mapping[str, onnx.ModelProto], inputs: Mapping[str, dict[str, np.ndarray]],
                       got: Mapping[str, np.ndarray], references=None) -> None:
    """The outputs of a `merged` build (by name) against `references(model, inputs)` on each
    case alone (default: onnxruntime); every case that differs is named."""
    failures = []
    for case, model in cases.items():
        for output, want in zip(model.graph.output, (references or reference)(model, inputs[case]), strict=True):
            value = got[f"{case}__{output.name}"]
            try:
                assert np.size(want) == value.size, f"{case} {output.name}: shape {value.shape}, not {np.shape(want)}"
                assert_close(value, np.reshape(want, value.shape), what=f"{case} {output.name}")
            except AssertionError as error:
                failures.append(str(error))
    assert not failures, "\n".join(failures)


def check_together(cases: Mapping[str, onnx.ModelProto], workdir: Path, inputs: Mapping[str, dict[str, np.ndarray]],
                   native: bool = False, references=None) -> None:
    """`check` for many models, built `merged`."""
    assert_cases_close(cases, inputs, run_together(cases, workdir, inputs, native), references)


# --- The zoo, all host -------------------------------------------------------------------


ZOO_ALL_HOST = ["mnist", "resnet_small", "mobilenet_small", "transformer_block", "paddle_ocr_rec", "ocr_cls_stale",
                "vad_if", "paddle_crnn", "gru_kws", "captcha_crnn_stale"]


def zoo_inputs(model: onnx.ModelProto, shapes: dict[str, list[int]], seed: int) -> dict[str, np.ndarray]:
    """Seeded values for the graph inputs (`random_input`), of `shapes` where the model's are open."""
    rng = np.random.default_rng(seed)
    return {i.name: random_input(rng, i, shapes.get(i.name) or [d.dim_value for d in i.type.tensor_type.shape.dim])
            for i in model.graph.input}


@pytest.fixture(scope="module")
def zoo_all_host(zoo_dir: Path, c_workdir: Path) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """The zoo models (all host) built side by side (`merged`) and run once: the models,
    their inputs and the outputs by `merged` name."""
    models = {name: onnx.load(zoo_dir / f"{name}.onnx") for name in ZOO_ALL_HOST}
    inputs = {name: zoo_inputs(model, ZOO_INPUT_SHAPES[name], 0) for name, model in models.items()}
    return models, inputs, run_together(models, c_workdir, inputs, shapes=ZOO_INPUT_SHAPES)


@pytest.mark.parametrize("name", ZOO_ALL_HOST)
def test_zoo_matches_onnxruntime(name: str, zoo_all_host) -> None:
    models, inputs, got = zoo_all_host
    assert_cases_close({name: models[name]}, inputs, got)


# --- Single ops --------------------------------------------------------------------------


def single_op(op_type: str, inputs: list[tuple[str, list[int]]], output_shape: list[int] | None = None,
              initializers: list[onnx.TensorProto] = (), outputs: int = 1, **attrs) -> onnx.ModelProto:
    node = helper.make_node(op_type, [n for n, _ in inputs] + [t.name for t in initializers],
                            [f"y{i}" for i in range(outputs)], name=f"the_{op_type.lower()}", **attrs)
    graph = helper.make_graph(
        [node], op_type.lower(), [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None) for i in range(outputs)],
        list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _w(name: str, shape: list[int], seed: int = 1, dtype=np.float32) -> onnx.TensorProto:
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype) if dtype == np.float32 else \
        np.asarray(shape, dtype)
    return onnx.numpy_helper.from_array(data, name)


def _i64(name: str, values: list[int]) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(np.asarray(values, np.int64), name)


X = [("x", [2, 4, 7, 6])]
SINGLE_OPS = {
    "conv": single_op("Conv", X, initializers=[_w("w", [6, 2, 3, 3]), _w("b", [6])], group=2, pads=[1, 0, 2, 1],
                      strides=[2, 1], dilations=[1, 2]),
    "conv1d": single_op("Conv", [("x", [1, 3, 11])], initializers=[_w("w", [4, 3, 3])], pads=[1, 1]),
    "conv_transpose": single_op("ConvTranspose", X, initializers=[_w("w", [4, 3, 3, 3]), _w("b", [3])],
                                strides=[2, 2], pads=[1, 0, 0, 1], output_padding=[1, 1]),
    "gemm": single_op("Gemm", [("x", [3, 5])], initializers=[_w("w", [4, 5]), _w("c", [4])], transB=1,
                      alpha=0.5, beta=2.0),
    "matmul_batched": single_op("MatMul", [("x", [2, 1, 3, 5])], initializers=[_w("w", [3, 5, 4])]),
    "matmul_vector": single_op("MatMul", [("x", [5])], initializers=[_w("w", [2, 5, 4])]),
    "add_broadcast": single_op("Add", X, initializers=[_w("c", [4, 1, 6])]),
    "div": single_op("Div", X, initializers=[_w("c", [6])]),
    "pow": single_op("Pow", [("x", [3, 4])], initializers=[_w("c", [4]).__class__()] and [
        onnx.numpy_helper.from_array(np.array([2.0, 3.0, 1.0, 0.5], np.float32), "c")]),
    "prelu": single_op("PRelu", X, initializers=[_w("s", [4, 1, 1])]),
    "max": single_op("Max", X, initializers=[_w("c", [7, 1])]),
    "sigmoid": single_op("Sigmoid", X),
    "tanh": single_op("Tanh", X),
    "erf": single_op("Erf", X),
    "exp": single_op("Exp", X),
    "clip": single_op("Clip", X, initializers=[onnx.numpy_helper.from_array(np.float32(-0.5), "lo"),
                                                onnx.numpy_helper.from_array(np.float32(0.7), "hi")]),
    "clip_run_time_min": single_op("Clip", [*X, ("lo", [])]),  # a bound that is a graph input
    "leaky_relu": single_op("LeakyRelu", X, alpha=0.1),
    "hard_sigmoid": single_op("HardSigmoid", X, alpha=0.3, beta=0.4),
    "hard_swish": single_op("HardSwish", X),
    "softmax": single_op("Softmax", X, axis=1),
    "layer_norm": single_op("LayerNormalization", X, initializers=[_w("s", [7, 6]), _w("b", [7, 6])], axis=2),
    "batch_norm": single_op("BatchNormalization", X, initializers=[
        _w("s", [4]), _w("b", [4]), _w("m", [4]),
        onnx.numpy_helper.from_array(np.array([0.5, 1, 2, 3], np.float32), "v")]),
    "max_pool_ceil": single_op("MaxPool", X, kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 0], ceil_mode=1),
    "avg_pool_pad": single_op("AveragePool", X, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                              count_include_pad=1, ceil_mode=1),
    "avg_pool": single_op("AveragePool", X, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "global_avg_pool": single_op("GlobalAveragePool", X),
    "global_max_pool": single_op("GlobalMaxPool", X),
    "concat": single_op("Concat", [("x", [2, 4, 7, 6]), ("z", [2, 3, 7, 6])], axis=1),
    "reshape": single_op("Reshape", X, initializers=[_i64("s", [2, 42, 4])]),
    "transpose": single_op("Transpose", X, perm=[0, 2, 3, 1]),
    "slice_negative_step": single_op("Slice", X, initializers=[
        _i64("st", [-1, 1]), _i64("en", [-100, 7]), _i64("ax", [3, 2]), _i64("sp", [-2, 3])]),
    "split": single_op("Split", X, initializers=[_i64("sz", [2, 5])], outputs=2, axis=2),
    "gather": single_op("Gather", X, initializers=[_i64("i", [[0, -1], [2, 1]])], axis=2),
    "pad_reflect": single_op("Pad", X, initializers=[_i64("p", [0, 0, 2, 1, 0, 0, 1, 3])], mode="reflect"),
    "pad_crop": single_op("Pad", X, initializers=[_i64("p", [0, 0, -1, 2, 0, 1, 1, -2]),
                                                   onnx.numpy_helper.from_array(np.float32(1.5), "v")]),
    "resize_nearest": single_op("Resize", X, initializers=[
        onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
        onnx.numpy_helper.from_array(np.array([1, 1, 2, 1.5], np.float32), "sc")]),
    "resize_linear": single_op("Resize", X, initializers=[
        onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
        onnx.numpy_helper.from_array(np.array([1, 1, 1.5, 2], np.float32), "sc")], mode="linear"),
    "resize_linear_align": single_op("Resize", X, initializers=[
        onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
        onnx.numpy_helper.from_array(np.array([1, 1, 2, 0.5], np.float32), "sc")], mode="linear",
        coordinate_transformation_mode="align_corners"),
    "reduce_mean": single_op("ReduceMean", X, axes=[1, 3], keepdims=0),
    "depth_to_space": single_op("DepthToSpace", X, blocksize=2),
    "depth_to_space_crd": single_op("DepthToSpace", X, blocksize=2, mode="CRD"),
    "expand": single_op("Expand", [("x", [4, 1, 6])], initializers=[_i64("s", [2, 4, 7, 6])]),
}


def random_inputs(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    """Standard normal float32 values for every (static) graph input."""
    rng = np.random.default_rng(seed)
    return {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
            for i in model.graph.input}


CLIP_BOUNDS = {"clip_run_time_bounds": (-0.5, 0.7), "clip_run_time_bounds_crossed": (0.3, -0.2)}
"""Bounds that are graph inputs (as Paddle exports some clips), min > max included."""


@pytest.fixture(scope="module")
def single_ops(c_workdir: Path) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """SINGLE_OPS and the Clips of CLIP_BOUNDS built side by side (`merged`) and run once:
    the models, their inputs and the outputs by `merged` name."""
    models = dict(SINGLE_OPS)
    inputs = {name: random_inputs(model, 7) for name, model in models.items()}
    for name, (low, high) in CLIP_BOUNDS.items():
        models[name] = single_op("Clip", [*X, ("lo", []), ("hi", [])])
        inputs[name] = random_inputs(models[name], 7) | {"lo": np.array(low, np.float32),
                                                         "hi": np.array(high, np.float32)}
    return models, inputs, run_together(models, c_workdir, inputs)


@pytest.mark.parametrize("name", sorted(SINGLE_OPS))
def test_single_op_matches_onnxruntime(name: str, single_ops) -> None:
    models, inputs, got = single_ops
    assert_cases_close({name: models[name]}, inputs, got)


@pytest.mark.parametrize("name", list(CLIP_BOUNDS))
def test_clip_with_run_time_bounds_matches_onnxruntime(name: str, single_ops) -> None:
    models, inputs, got = single_ops
    assert_cases_close({name: models[name]}, inputs, got)


# Products larger than the GEMM's blocks (MC 96 rows, KC 256 deep, NC 256 columns) and
# register tiles, with ragged edges everywhere; inputs scaled so sums of hundreds of terms stay
# within the tolerance of a different summation order.
BLOCKED_OPS = {
    "conv_3x3": single_op("Conv", [("x", [1, 40, 13, 11])], initializers=[_w("w", [70, 40, 3, 3]), _w("b", [70])],
                          pads=[1, 1, 1, 1]),
    "conv_pointwise": single_op("Conv", [("x", [1, 300, 17, 16])], initializers=[_w("w", [100, 300, 1, 1])]),
    # Groups of 16 output channels (half the widest tile), two images, strides, dilation and
    # uneven pads; and weights that are a graph input, packed at run time.
    "conv_grouped": single_op("Conv", [("x", [2, 12, 15, 14])], initializers=[_w("w", [48, 4, 3, 3]), _w("b", [48])],
                              group=3, strides=[2, 2], dilations=[2, 1], pads=[2, 1, 1, 2]),
    "conv_runtime_weights": single_op("Conv", [("x", [1, 8, 9, 10]), ("w", [40, 4, 3, 3])], group=2,
                                      pads=[1, 2, 0, 1], strides=[2, 1]),
    "gemm_trans_b": single_op("Gemm", [("x", [100, 300])], initializers=[_w("w", [270, 300]), _w("c", [270])],
                              transB=1),
    "gemm_trans_a": single_op("Gemm", [("x", [300, 100])], initializers=[_w("w", [300, 270])], transA=1),
    "matmul": single_op("MatMul", [("x", [2, 50, 300])], initializers=[_w("w", [300, 270])]),
}


BLOCKED_INPUTS = {name: {i.name: 0.05 * np.random.default_rng(3).standard_normal(
    [d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32) for i in model.graph.input}
    for name, model in BLOCKED_OPS.items()}


@pytest.fixture(scope="module")
def blocked_products(c_workdir: Path) -> dict[bool, dict[str, np.ndarray]]:
    """BLOCKED_OPS built side by side for the baseline ISA (False) and natively (True), and
    run: the outputs by `merged` name."""
    return {native: run_together(BLOCKED_OPS, c_workdir, BLOCKED_INPUTS, native) for native in (False, True)}


@pytest.mark.parametrize("native", [False, True], ids=["baseline", "native"])
@pytest.mark.parametrize("name", list(BLOCKED_OPS))
def test_blocked_products_match_onnxruntime(name: str, native: bool, blocked_products) -> None:
    assert_cases_close({name: BLOCKED_OPS[name]}, BLOCKED_INPUTS, blocked_products[native])


def _chain(nodes: list[onnx.NodeProto], inputs: list[tuple[str, list[int]]],
           initializers: list[onnx.TensorProto]) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _clip_bounds(low: float, high: float) -> list[onnx.TensorProto]:
    return [onnx.numpy_helper.from_array(np.float32(low), "low"), onnx.numpy_helper.from_array(np.float32(high), "high")]


n = helper.make_node
# Convs of each kernel path with their epilogues fused (fuse-cpu-epilogues): a residual Add and a
# Relu or Clip, on ragged tiles (positions, channels, groups).
EPILOGUES = {
    "direct_residual_relu": _chain(
        [n("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], group=2), n("Add", ["r", "c"], ["a"]),
         n("Relu", ["a"], ["y"])],
        [("x", [2, 6, 7, 9]), ("r", [2, 38, 7, 9])], [_w("w", [38, 3, 3, 3]), _w("b", [38])]),
    "direct_clip_strided": _chain(
        [n("Conv", ["x", "w"], ["c"], pads=[0, 1, 1, 0], strides=[2, 2]), n("Clip", ["c", "low", "high"], ["y"])],
        [("x", [1, 5, 11, 10])], [_w("w", [20, 5, 3, 3]), *_clip_bounds(-0.5, 1.0)]),
    "depthwise_clip": _chain(
        [n("Conv", ["x", "w", "b"], ["c"], pads=[2, 2, 2, 2], strides=[2, 1], group=6),
         n("Clip", ["c", "low", "high"], ["y"])],
        [("x", [1, 6, 13, 37])], [_w("w", [12, 1, 5, 5]), _w("b", [12]), *_clip_bounds(0.0, 6.0)]),
    "pointwise_residual_relu": _chain(
        [n("Conv", ["x", "w"], ["c"]), n("Add", ["c", "x"], ["a"]), n("Relu", ["a"], ["y"])],
        [("x", [1, 24, 9, 11])], [_w("w", [24, 24, 1, 1])]),
}
del n


EPILOGUE_INPUTS = {name: random_inputs(model, 5) for name, model in EPILOGUES.items()}


@pytest.fixture(scope="module")
def fused_epilogues(c_workdir: Path) -> dict[bool, dict[str, np.ndarray]]:
    """EPILOGUES built side by side for the baseline ISA (False) and natively (True), and
    run: the outputs by `merged` name."""
    return {native: run_together(EPILOGUES, c_workdir, EPILOGUE_INPUTS, native) for native in (False, True)}


@pytest.mark.parametrize("name", list(EPILOGUES))
def test_epilogues_fuse_into_the_conv(name: str, c_workdir: Path) -> None:
    text = (emit_model(EPILOGUES[name], c_workdir) / "m.c").read_text()
    assert text.count("static int op_") == 1, "the epilogue ops were not fused into the conv"


@pytest.mark.parametrize("native", [False, True], ids=["baseline", "native"])
@pytest.mark.parametrize("name", list(EPILOGUES))
def test_fused_epilogues_match_onnxruntime(name: str, native: bool, fused_epilogues) -> None:
    assert_cases_close({name: EPILOGUES[name]}, EPILOGUE_INPUTS, fused_epilogues[native])


def _polynomial_input(op_type: str) -> np.ndarray:
    """Both branches of erf (|x| < 1 and above, to where it is 1 in float), infinities and NaN;
    for softmax, rows spanning e^0 to e^-100 (each row's maximum is subtracted first), one with -inf."""
    if op_type == "Erf":
        x = np.concatenate([np.linspace(-6, 6, 4001), [-100.0, 100.0, np.inf, -np.inf, np.nan, 0.0]])[None]
    else:
        x = np.linspace(0, -100, 40 * 41).reshape(40, 41) * np.linspace(0.05, 1, 40)[:, None]
        x[3, 5] = -np.inf
    return x.astype(np.float32)


POLYNOMIAL_INPUTS = {op_type: {"x": _polynomial_input(op_type)} for op_type in ("Erf", "Softmax")}
POLYNOMIALS = {op_type: single_op(op_type, [("x", list(inputs["x"].shape))])
               for op_type, inputs in POLYNOMIAL_INPUTS.items()}


@pytest.fixture(scope="module")
def polynomials(c_workdir: Path) -> dict[bool, dict[str, np.ndarray]]:
    """POLYNOMIALS built side by side for the baseline ISA (False) and natively (True), and run."""
    return {native: run_together(POLYNOMIALS, c_workdir, POLYNOMIAL_INPUTS, native) for native in (False, True)}


@pytest.mark.parametrize("native", [False, True], ids=["baseline", "native"])
@pytest.mark.parametrize("op_type", list(POLYNOMIALS))
def test_polynomial_erf_and_exp_match_onnxruntime(op_type: str, native: bool, polynomials) -> None:
    """erf and softmax's exp are the kernels' own polynomials: both branches of erf, exp down
    to its flush to 0, infinities and NaN."""
    assert_cases_close({op_type: POLYNOMIALS[op_type]}, POLYNOMIAL_INPUTS, polynomials[native])


def test_run_checks_its_arguments(c_workdir: Path) -> None:
    built = compile_model(SINGLE_OPS["sigmoid"], c_workdir)
    run = built.lib["m_run"]
    assert run(None, None, None) == -1  # MRVL_ERR_ARGUMENT
    x, y = np.zeros((2, 4, 7, 6), np.float32), np.zeros((2, 4, 7, 6), np.float32)
    ins, outs = (ctypes.c_void_p * 1)(x.ctypes.data), (ctypes.c_void_p * 1)(y.ctypes.data)
    raw = np.zeros(64 * 40, np.uint8)
    misaligned = raw.ctypes.data + (1 if raw.ctypes.data % 64 else 65)
    if int(built.macros["M_WORKSPACE_BYTES"]) > 0:
        assert run(ins, outs, ctypes.c_void_p(misaligned)) == -2  # MRVL_ERR_ALIGNMENT


def test_weights_of_another_build_are_rejected(c_workdir: Path) -> None:
    built = compile_model(SINGLE_OPS["conv"], c_workdir)
    other = compile_model(SINGLE_OPS["gemm"], c_workdir)
    load = built.lib["m_load_weights"]
    assert load(str(other.dir / "m_weights.bin").encode()) == -4  # MRVL_ERR_WEIGHTS
    assert load(str(built.dir / "missing.bin").encode()) == -4
    assert load(str(built.dir / "m_weights.bin").encode()) == 0


# --- Programs: generated models linked with a small C driver -------------------------------


def driver_source(models: list[Bundle]) -> str:
    """A C program that runs each of `models` once. Per model, three arguments: its weights
    file, a file with every input's bytes in order, and the file to write every output's
    bytes to. Exit status: 0, or 1 + the index of the model that failed."""
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", ""]
    lines += [f'#include "{b.model}.h"' for b in models]
    lines += ["", "/* Reads `count` buffers of the given sizes from `path` (or writes them to it). */",
              "static int transfer(const char *path, int writing, void **buffers, const size_t *sizes, int count)",
              "{",
              "    FILE *f = fopen(path, writing ? \"wb\" : \"rb\");",
              "    int ok = f != NULL;",
              "    for (int i = 0; ok && i < count; i++)",
              "        ok = (writing ? fwrite(buffers[i], 1, sizes[i], f) : fread(buffers[i], 1, sizes[i], f)) == sizes[i];",
              "    if (f) fclose(f);",
              "    return ok;",
              "}", ""]
    for b in models:
        m, M = b.model, b.model.upper()
        ins, outs = len(b.io("INPUT")), len(b.io("OUTPUT"))
        lines += [f"static int run_{m}(char **arg)", "{",
                  f"    size_t in_sizes[] = {{{', '.join(f'{M}_INPUT_{i}_BYTES' for i in range(ins)) or '0'}}};",
                  f"    size_t out_sizes[] = {{{', '.join(f'{M}_OUTPUT_{i}_BYTES' for i in range(outs)) or '0'}}};",
                  f"    void *x[{max(ins, 1)}], *y[{max(outs, 1)}];",
                  f"    unsigned char *raw = malloc({M}_WORKSPACE_BYTES + {M}_WORKSPACE_ALIGN);",
                  f"    void *ws = raw + (-(uintptr_t)raw % {M}_WORKSPACE_ALIGN);",
                  "    int rc;",
                  f"    for (int i = 0; i < {ins}; i++) x[i] = malloc(in_sizes[i]);",
                  f"    for (int i = 0; i < {outs}; i++) y[i] = malloc(out_sizes[i]);",
                  f"    if ({m}_load_weights(arg[0]) != MRVL_OK || !transfer(arg[1], 0, x, in_sizes, {ins})) return 0;",
                  f"    {m}_inputs in = {{{', '.join(f'x[{i}]' for i in range(ins)) or '0'}}};",
                  f"    {m}_outputs out = {{{', '.join(f'y[{i}]' for i in range(outs)) or '0'}}};",
                  f"    rc = {m}_run(&in, &out, ws) == MRVL_OK && transfer(arg[2], 1, y, out_sizes, {outs});",
                  f"    for (int i = 0; i < {ins}; i++) free(x[i]);",
                  f"    for (int i = 0; i < {outs}; i++) free(y[i]);",
                  "    free(raw);",
                  "    return rc;",
                  "}", ""]
    lines += ["int main(int argc, char **argv)", "{",
              f"    if (argc != {1 + 3 * len(models)}) return 2;"]
    lines += [f"    if (!run_{b.model}(argv + {1 + 3 * i})) return {1 + i};" for i, b in enumerate(models)]
    lines += ["    return 0;", "}", ""]
    return "\n".join(lines)


def build_program(models: list[Bundle], workdir: Path, extra_flags: list[str] = (), compiler: str | None = GCC) -> Path:
    """`models` compiled each to its own object (on every core: a sanitizer build of fifty
    takes minutes) and linked with their driver into one program."""
    objects = [str(workdir / f"{b.model}.o") for b in models]

    def compile_one(b: Bundle, obj: str) -> None:
        gcc([*makefile_cflags(b.dir), "-Werror", *extra_flags, "-c", str(b.dir / f"{b.model}.c"), "-o", obj], workdir,
            compiler)
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(compile_one, models, objects))
    (workdir / "main.c").write_text(driver_source(models))
    program = workdir / "program"
    includes = [f"-I{b.dir}" for b in models]
    gcc([*makefile_cflags(models[0].dir), "-Werror", *extra_flags, *includes, "main.c", *objects, "-o", str(program),
         "-lm"], workdir, compiler)
    return program


def emit_merged(cases: Mapping[str, onnx.ModelProto], workdir: Path, shapes: Mapping[str, dict[str, list[int]]],
                suffix: str) -> list[Bundle]:
    """The cases `merged`, each group's C (all host) emitted as the model `<group>_<suffix>`;
    `shapes` gives a case's input shapes where its model leaves them open."""
    merged_shapes = merged_inputs(shapes)
    built = []
    for group, model in merged(cases).items():
        group_shapes = {i.name: merged_shapes[i.name] for i in model.graph.input if i.name in merged_shapes}
        built.append(Bundle(emit_model(model, workdir, group_shapes, name=f"{group}_{suffix}"), f"{group}_{suffix}"))
    return built


def run_merged(program: Path, built: list[Bundle], inputs: Mapping[str, dict[str, np.ndarray]],
               **options) -> dict[str, np.ndarray]:
    """One run of the `program` of `emit_merged`'s bundles on the cases' `inputs` (options as
    `run_program` takes them): the outputs by `merged` name."""
    outputs = run_program(program, built, [merged_inputs(inputs)] * len(built), **options)
    got = {}
    for bundle, values in zip(built, outputs, strict=True):
        got |= bundle.by_name(values)
    return got


def run_program(program: Path, models: list[Bundle], inputs: list[dict[str, np.ndarray]],
                env: dict[str, str] | None = None, launcher: list[str] = ()) -> list[list[np.ndarray]]:
    """Runs `program` once on `inputs` (one dict per model; under `launcher`, e.g. an
    emulator); every model's outputs."""
    args = []
    for i, (b, values) in enumerate(zip(models, inputs)):
        data = b"".join(np.ascontiguousarray(values[name], dtype).tobytes() for name, _, dtype in b.io("INPUT"))
        (program.parent / f"in{i}.bin").write_bytes(data)
        args += [str(b.dir / f"{b.model}_weights.bin"), str(program.parent / f"in{i}.bin"),
                 str(program.parent / f"out{i}.bin")]
    done = subprocess.run([*launcher, str(program), *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, f"{program} exited with {done.returncode}:\n{done.stderr[-4000:]}"
    results = []
    for i, b in enumerate(models):
        data, position, outs = (program.parent / f"out{i}.bin").read_bytes(), 0, []
        for _, shape, dtype in b.io("OUTPUT"):
            count = int(np.prod(shape))
            outs.append(np.frombuffer(data, dtype, count, position).reshape(shape))
            position += count * np.dtype(dtype).itemsize
        results.append(outs)
    return results


def assert_integers_as_onnxruntime(bundle: Bundle, model: onnx.ModelProto, feeds: dict[str, np.ndarray],
                                   workdir: Path, flags: list[str], compiler: str | None,
                                   launcher: list[str] | None = ()) -> None:
    """`bundle` of `model`, built with `flags` by `compiler` and run on `feeds` (under
    `launcher`; None: the emulator is absent, so only built), gives onnxruntime's integers bit
    for bit."""
    program = build_program([bundle], workdir, flags, compiler=compiler)
    if launcher is None:
        pytest.skip("built; qemu-aarch64 is not installed to run it")
    (outputs,) = run_program(program, [bundle], [feeds], launcher=launcher)
    got = bundle.by_name(outputs)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for name, expected in zip([o.name for o in session.get_outputs()], session.run(None, feeds)):
        assert got[name].dtype == expected.dtype, name
        np.testing.assert_array_equal(got[name], expected, err_msg=name)


def test_two_models_link_into_one_program(c_workdir: Path, tmp_path: Path) -> None:
    """Two bundles, each with its own copy of the kernels, in one executable: no symbol
    clash, and each model runs with its own weights."""
    models = [compile_model(SINGLE_OPS["conv"], c_workdir, name="first"),
              compile_model(SINGLE_OPS["gemm"], c_workdir, name="second")]
    rng = np.random.default_rng(3)
    inputs = [{"x": rng.standard_normal(shape).astype(np.float32)} for shape in ([2, 4, 7, 6], [3, 5])]
    program = build_program(models, tmp_path)
    for got, model, values in zip(run_program(program, models, inputs), ("conv", "gemm"), inputs):
        (expected,) = reference(SINGLE_OPS[model], values)
        assert_close(got[0], expected)


def test_c_names_number_collisions_in_order():
    """A name taken is numbered from its base's last number: the same names as counting from 1."""
    from mrvl.backend.c_emitter import Names

    names = Names()
    assert [names(n) for n in ("a", "a", "a_1", "a", "a_2", "a", "if", "1x", "")] == \
        ["a", "a_1", "a_1_1", "a_2", "a_2_1", "a_3", "if_", "t_1x", "t_"]
