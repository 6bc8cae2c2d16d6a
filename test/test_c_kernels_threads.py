"""The host kernels split over threads (`host_threads`, mrvl-compile --host-threads): every
parallel kernel (the direct conv, wide, short and narrow tiles, deep with its channel blocks
split, short last tiles and long ones; the flat conv, its input copy and tiles, strided, in place; convs writing
their images into a concat's output a batch stride apart; the pointwise conv and GEMM through
the row-split product; a fully connected layer's dot products; a GEMM on weights packed at
compile time, by column tiles and row-split; the pool, in bands, direct, in row pairs and in
grids; the depthwise conv in both layouts and on small planes, over its channels, and
channel-blocked, over its blocks; the transposed conv by output channels, and channels-last by output rows), on work large enough to be split,
gives the same output bits with 1 and 3 threads (an uneven split) and matches onnxruntime (mrvl/numerics.py);
the same models run clean under ThreadSanitizer, and built for aarch64 (-mcpu=neoverse-n2) under
qemu. The models are built side by side in one (each kernel compiled once); each alone, as
slow tests."""

import io
import os
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from mrvl.compile import main as compile_main
from mrvl.opt import main as mrvl_opt
from mrvl.target import host_kernels
from mrvl.target.host_kernels import kernel_macro
from onnx import TensorProto, helper
from test_c_backend import (GCC, Built, Bundle, _w, assert_cases_close, build_program, c_workdir, gcc,  # noqa: F401
                            makefile_cflags, merged, merged_inputs, random_inputs, run_program, single_op)
from test_c_kernels_fast_paths import _conv_transpose_then
from test_cross_compile import CROSS_CC, QEMU, TARGET_FLAGS

pytestmark = pytest.mark.skipif(GCC is None, reason="needs gcc")


def _conv(x: list[int], w: list[int], act: str | None = None, op: str = "Conv", **attrs) -> onnx.ModelProto:
    """`op` (Conv, ConvTranspose) with a bias, then `act` (a PRelu by a constant slope per channel)."""
    m = w[0] if op == "Conv" else w[1] * attrs.get("group", 1)
    nodes = [helper.make_node(op, ["x", "w", "b"], ["c" if act else "y"], **attrs)]
    inits = [_w("w", w), _w("b", [m], 2)]
    if act == "PRelu":
        inits.append(onnx.numpy_helper.from_array(
            np.random.default_rng(3).uniform(-0.5, 1.5, [m, 1, 1]).astype(np.float32), "slope"))
    if act:
        nodes.append(helper.make_node(act, ["c", "slope"] if act == "PRelu" else ["c"], ["y"]))
    graph = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _joined(x: list[int], first: list[int], second: list[int]) -> onnx.ModelProto:
    """Two convs of x joined along the channels in place: each writes its images a batch stride apart."""
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["x", "w2"], ["c2"]), helper.make_node("Concat", ["c1", "c2"], ["j"], axis=1),
             helper.make_node("Sigmoid", ["j"], ["y"])]
    graph = helper.make_graph(nodes, "joined", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [_w("w1", first), _w("w2", second, 2)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


MODELS = {
    # dilated: 3x3 convs of stride and dilation 1 take the Winograd kernel
    "direct_wide": _conv([2, 24, 6, 7], [40, 24, 3, 3], "Relu", pads=[2, 2, 2, 2], dilations=[2, 2]),
    "direct_narrow": _conv([1, 32, 7, 9], [12, 32, 3, 3], "Sigmoid", pads=[2, 2, 2, 2], dilations=[2, 2]),
    "direct_deep": _conv([1, 128, 5, 7], [64, 128, 3, 3], "Relu", pads=[2, 2, 2, 2], dilations=[2, 2]),
    "direct_short": _conv([2, 128, 4, 4], [64, 128, 3, 3], "Relu", pads=[2, 2, 2, 2], dilations=[2, 2]),
    "direct_long_tiles": _conv([2, 128, 7, 7], [64, 128, 3, 3], "Relu", pads=[2, 2, 2, 2], dilations=[2, 2]),
    # 3 blocks of tile rows an image: 6 over the slots
    "winograd": _conv([2, 32, 44, 41], [40, 32, 3, 3], "Relu", pads=[1, 1, 1, 1]),
    "flat": _conv([2, 3, 40, 50], [19, 3, 3, 3], "Relu", pads=[1, 1, 1, 1]),
    "flat_strided": _conv([1, 8, 41, 50], [20, 8, 3, 3], "Sigmoid", strides=[2, 2], pads=[1, 1, 1, 1]),
    "flat_in_place": _conv([1, 32, 20, 21], [45, 32, 1, 1], "Relu"),
    "flat_in_place_last_vector": _conv([1, 32, 14, 14], [45, 32, 1, 1], "Relu"),
    # in depth chunks (AVX2): 24 tiles by 18 blocks, a thread's items ending inside a group of blocks
    "flat_in_place_depth_chunks": _conv([1, 136, 23, 25], [72, 136, 1, 1], "Relu"),
    "pointwise": _conv([1, 96, 8, 8], [90, 96, 1, 1]),
    "concat_in_place": _joined([2, 8, 30, 40], [16, 8, 3, 3], [24, 8, 1, 1]),
    "pool": single_op("MaxPool", [("x", [2, 33, 40, 41])], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
    "pool_direct": single_op("MaxPool", [("x", [2, 33, 40, 41])], kernel_shape=[3, 3], strides=[2, 2]),
    "pool_direct_edges": single_op("MaxPool", [("x", [2, 33, 40, 41])], kernel_shape=[3, 3], strides=[2, 2],
                                   pads=[1, 1, 1, 1]),
    "pool_pairs": single_op("MaxPool", [("x", [3, 300, 11, 11])], kernel_shape=[3, 3], strides=[2, 2]),
    "pool_grid": single_op("AveragePool", [("x", [2, 300, 13, 13])], kernel_shape=[3, 3], strides=[1, 1],
                           pads=[1, 1, 1, 1]),
    # weights that are inputs (packed at run time; dots on B's rows), constants packed at compile time
    "gemm": single_op("Gemm", [("x", [67, 256]), ("w", [256, 131])]),
    "gemm_dots": single_op("Gemm", [("x", [3, 512]), ("w", [301, 512])], transB=1),
    "gemm_packed_columns": single_op("Gemm", [("x", [11, 300])], initializers=[_w("w", [131, 300])], transB=1),
    "gemm_packed_rows": single_op("Gemm", [("x", [130, 64])], initializers=[_w("w", [64, 45])]),
    "depthwise_rows": single_op("Conv", [("x", [2, 48, 40, 15])], initializers=[_w("w", [48, 1, 3, 3])], group=48,
                                pads=[1, 2, 1, 0]),  # (not small planes': its pads)
    # the rows layout's column copies in the next two channels' layouts: 2 groups of 3 channels
    # over 3 threads, the last group with the seventh
    "depthwise_rows_groups": single_op("Conv", [("x", [1, 7, 240, 15])], initializers=[_w("w", [7, 1, 3, 3])],
                                       group=7, pads=[1, 2, 1, 0]),
    "depthwise_epilogue": _conv([1, 36, 20, 21], [72, 1, 3, 3], "Sigmoid", group=36, pads=[1, 1, 1, 1]),
    "depthwise_phases": single_op("Conv", [("x", [1, 40, 45, 45])], initializers=[_w("w", [40, 1, 3, 3])],
                                  group=40, pads=[1, 2, 1, 0]),
    # small planes (3x3 padded by 1): copied a channel ahead (14x14) by each thread, stride 2
    # from the channel-blocked kernel with an epilogue, and a plane copied as it is computed
    "depthwise_small": _conv([1, 200, 14, 14], [200, 1, 3, 3], "Relu", group=200, pads=[1, 1, 1, 1]),
    "depthwise_small_stride2": _conv([1, 480, 14, 14], [480, 1, 3, 3], "Sigmoid", group=480, pads=[1, 1, 1, 1],
                                     strides=[2, 2]),
    "depthwise_small_wide": single_op("Conv", [("x", [1, 120, 28, 28])], initializers=[_w("w", [120, 1, 3, 3])],
                                      group=120, pads=[1, 1, 1, 1], strides=[2, 2]),
    # channel-blocked: 3 blocks of channels (the last of 8), batch 2
    "depthwise_blocked": _conv([2, 40, 45, 45], [40, 1, 5, 5], "Relu", group=40, pads=[2, 2, 2, 2], strides=[2, 2]),
    "conv_transpose_rows": single_op("ConvTranspose", [("x", [2, 16, 20, 21])],
                                     initializers=[_w("w", [16, 24, 4, 4]), _w("b", [24], 2)], strides=[2, 2],
                                     pads=[1, 1, 1, 1]),
    # a PRelu per channel fused into the kernels split over threads: each group's channels and
    # tiles from their own slopes
    "direct_grouped_prelu": _conv([2, 128, 7, 7], [64, 64, 3, 3], "PRelu", group=2, pads=[1, 1, 1, 1]),
    "flat_prelu": _conv([2, 3, 40, 50], [19, 3, 3, 3], "PRelu", pads=[1, 1, 1, 1]),
    "pointwise_prelu": _conv([1, 96, 8, 8], [90, 96, 1, 1], "PRelu"),
    "depthwise_prelu": _conv([1, 36, 20, 21], [72, 1, 3, 3], "PRelu", group=36, pads=[1, 1, 1, 1]),
    "depthwise_blocked_prelu": _conv([2, 40, 45, 45], [40, 1, 5, 5], "PRelu", group=40, pads=[2, 2, 2, 2],
                                     strides=[2, 2]),
    "conv_transpose_rows_grouped_prelu": _conv([2, 16, 20, 21], [16, 12, 4, 4], "PRelu", op="ConvTranspose",
                                               group=2, strides=[2, 2], pads=[1, 1, 1, 1]),
    # channels-last, by output rows of both images: GEMM tiles, and the dot products of one channel
    "conv_transpose_nhwc_bn_relu": _conv_transpose_then([2, 16, 20, 21], [16, 24, 4, 4], ["bn", "Relu"],
                                                        channels_last=True, strides=[2, 2], pads=[1, 1, 1, 1]),
    "conv_transpose_nhwc_one_channel": _conv_transpose_then([1, 16, 40, 40], [16, 1, 2, 2], ["Sigmoid"],
                                                            channels_last=True, strides=[2, 2]),
}
THREADS = (1, 3)


def emit(model: onnx.ModelProto, workdir: Path, name: str, threads: int) -> Path:
    out = workdir / f"{name}_t{threads}"
    if not out.exists():
        source = workdir / f"{name}.onnx"
        source.write_bytes(model.SerializeToString())
        target = f"c{{model={name}_t{threads} host_threads={threads}}}"
        assert mrvl_opt([str(source), "-p", "mrvl-pipeline{offload=false},mrvl-host-pipeline", "-t", target, "-o", str(out)]) == 0
    return out


def _same_bits(models: dict[str, onnx.ModelProto], c_workdir: Path, tag: str) -> None:
    """The models `merged`, built natively for each thread count: the same bits, and each
    model's outputs match onnxruntime."""
    inputs = {name: random_inputs(model, 4) for name, model in models.items()}
    results = []
    for threads in THREADS:
        got = {}
        for group, model in merged(models).items():
            out = emit(model, c_workdir, f"{tag}_{group}", threads)
            model_name = f"{tag}_{group}_t{threads}"
            gcc([*makefile_cflags(out), "-march=native", "-Werror", "-fPIC", "-shared", "-pthread", f"{model_name}.c",
                 "-o", f"lib{model_name}.so", "-lm"], out)
            built = Built(out, model_name, out / f"lib{model_name}.so")
            rc, outputs = built.run(merged_inputs(inputs))
            assert rc == 0
            got |= built.by_name(outputs)
        results.append(got)
    for got in results[1:]:
        changed = [name for name, value in got.items() if not np.array_equal(value, results[0][name])]
        assert not changed, f"the output bits depend on the thread count: {', '.join(changed)}"
    assert_cases_close(models, inputs, results[0])


def test_threads_give_the_same_bits(c_workdir: Path) -> None:
    """Every model in one build per thread count (each kernel compiled once)."""
    _same_bits(MODELS, c_workdir, "all")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MODELS))
def test_threads_alone_give_the_same_bits(name: str, c_workdir: Path) -> None:
    """Each model in a build of its own (as a model with one large kernel is)."""
    _same_bits({name: MODELS[name]}, c_workdir, name)


def test_the_models_split_their_work(c_workdir: Path) -> None:
    """The generated code asks for the threads, and each model is large enough to be split."""
    for name, model in MODELS.items():
        text = (emit(model, c_workdir, name, 2) / f"{name}_t2.c").read_text()
        assert "#define MRVL_HOST_THREADS 2" in text
    source = (emit(MODELS["gemm"], c_workdir, "gemm", 2) / "mrvl_kernels_threads.c").read_text()
    limit = int(source.split("#define MRVL_PARALLEL_MACS ")[1].split()[0])
    assert 90 * 64 * 96 > limit
    assert 20 * 21 * 45 * 32 > limit and 67 * 256 * 131 > limit and 2 * 33 * 40 * 41 * 9 > limit
    assert 3 * 301 * 512 > limit and 42 * 40 * 24 * 9 > limit and 63 * 12 * 32 * 9 > limit
    assert 11 * 131 * 300 > limit and 130 * 64 * 45 > limit
    assert 40 * 50 * 19 * 27 > limit and 21 * 25 * 20 * 72 > limit and 35 * 64 * 128 * 9 > limit
    assert 16 * 64 * 128 * 9 > limit and 1200 * 16 * 72 > limit and 1200 * 24 * 8 > limit
    assert 49 * 32 * 64 * 9 > limit  # direct_grouped_prelu, per group
    assert 200 * 196 * 9 > limit and 480 * 49 * 9 > limit and 120 * 196 * 9 > limit  # the small planes
    assert "in place: its inputs were written" in (emit(MODELS["concat_in_place"], c_workdir, "concat_in_place", 2)
                                                   / "concat_in_place_t2.c").read_text()
    kernels = {"direct_wide": "mrvl_conv_f32", "direct_narrow": "mrvl_conv_f32", "direct_deep": "mrvl_conv_f32",
               "direct_short": "mrvl_conv_f32", "direct_long_tiles": "mrvl_conv_f32",
               "winograd": "mrvl_winograd_conv_f32",
               "flat": "mrvl_flat_conv_f32", "flat_strided": "mrvl_flat_conv_f32",
               "flat_in_place": "mrvl_flat_conv_f32", "flat_in_place_last_vector": "mrvl_flat_conv_f32",
               "flat_in_place_depth_chunks": "mrvl_flat_conv_f32", "pointwise": "mrvl_pointwise_conv_f32",
               "direct_grouped_prelu": "mrvl_conv_f32", "flat_prelu": "mrvl_flat_conv_f32",
               "pointwise_prelu": "mrvl_pointwise_conv_f32", "depthwise_prelu": "mrvl_depthwise_conv_f32",
               "depthwise_rows_groups": "mrvl_depthwise_conv_f32",
               "depthwise_blocked_prelu": "mrvl_depthwise_blocked_conv_f32"}
    for name, kernel in kernels.items():
        assert f"{kernel}(&p" in (emit(MODELS[name], c_workdir, name, 2) / f"{name}_t2.c").read_text()
    assert 48 * 640 * 9 > limit and 40 * 23 * 24 * 25 > limit and 7 * 3600 * 9 > limit  # channels x flat grid x taps
    assert 575 * 72 * 136 > limit
    for name in ("gemm_packed_columns", "gemm_packed_rows"):
        assert ".packed_b = 1" in (emit(MODELS[name], c_workdir, name, 2) / f"{name}_t2.c").read_text()
    assert 130 > kernel_macro("GEMM_MC") >= 11  # the row-split product and the column tiles


def _run_all(tmp_path: Path, c_workdir: Path, flags: list[str], compiler: str | None, launcher: list[str] = (),
             env: dict[str, str] | None = None) -> None:
    """Every model at 2 threads, `merged` into one program, run once; each matches onnxruntime."""
    built = [Bundle(emit(model, c_workdir, f"all_{group}", 2), f"all_{group}_t2")
             for group, model in merged(MODELS).items()]
    inputs = {name: random_inputs(model, 5) for name, model in MODELS.items()}
    program = build_program(built, tmp_path, [*flags, "-pthread"], compiler=compiler)
    outputs = run_program(program, built, [merged_inputs(inputs)] * len(built), env=env, launcher=launcher)
    assert_cases_close(MODELS, inputs, {name: value for b, values in zip(built, outputs, strict=True)
                                        for name, value in b.by_name(values).items()})


def _tsan_links(tmp_path: Path) -> bool:
    (tmp_path / "probe.c").write_text("int main(void) { return 0; }\n")
    done = subprocess.run([GCC, "-fsanitize=thread", str(tmp_path / "probe.c"), "-o", str(tmp_path / "probe")],
                          capture_output=True)
    return done.returncode == 0 and subprocess.run([str(tmp_path / "probe")], capture_output=True).returncode == 0


def test_threads_are_clean_under_thread_sanitizer(c_workdir: Path, tmp_path: Path) -> None:
    if not _tsan_links(tmp_path):
        pytest.skip("gcc cannot build and run -fsanitize=thread here")
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=1:exitcode=66")
    _run_all(tmp_path, c_workdir, ["-fsanitize=thread", "-g", "-O1"], GCC, env=env)


RUNTIME = Path(host_kernels.__file__).resolve().parents[1] / "backend" / "c_runtime"
TARGET = Path(host_kernels.__file__).resolve().parent
POOL_STRESS = r"""
#include <stdio.h>
#include "mrvl_kernels.c"
static int runs[64];
static void mark(const void *ctx, int64_t begin, int64_t end)
{
    (void)ctx;
    for (int64_t i = begin; i < end; i++) __atomic_add_fetch(&runs[i], 1, __ATOMIC_RELAXED);
}
int main(void)
{
    for (int call = 0; call < CALLS; call++) {
        int64_t count = 2 + call % 62;
        mrvl_parallel(count, mark, NULL);
        for (int64_t i = 0; i < 64; i++) {
            if (runs[i] != (i < count)) {
                printf("call %d of %lld items: item %lld ran %d times\n", call, (long long)count, (long long)i, runs[i]);
                return 1;
            }
            runs[i] = 0;
        }
    }
    return 0;
}
"""


@pytest.mark.parametrize("sanitizer", ["none", "thread"])
def test_the_pool_runs_each_item_once(sanitizer: str, tmp_path: Path) -> None:
    """Back-to-back parallel calls of every size up to 64 items on 3 threads: every item of each
    call runs exactly once, however the chunks are claimed (a worker that wakes late must not run
    a chunk of a call that has ended), and the pool is clean under ThreadSanitizer."""
    flags = ["-O2"]
    if sanitizer == "thread":
        if not _tsan_links(tmp_path):
            pytest.skip("gcc cannot build and run -fsanitize=thread here")
        flags = ["-O1", "-g", "-fsanitize=thread"]
    (tmp_path / "pool.c").write_text(POOL_STRESS)
    calls = 20000 if sanitizer == "thread" else 200000
    subprocess.run([GCC, "-std=c11", "-w", *flags, "-DMRVL_HOST_THREADS=3", f"-DCALLS={calls}", f"-I{RUNTIME}", f"-I{TARGET}",
                    "pool.c", "-o", "pool", "-pthread", "-lm"], cwd=tmp_path, check=True)
    done = subprocess.run([str(tmp_path / "pool")], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, TSAN_OPTIONS="halt_on_error=1:exitcode=66"))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # threads are checked natively (test_threads_give_the_same_bits), the kernels on AArch64 by the zoo program
@pytest.mark.skipif(CROSS_CC is None, reason="needs aarch64-linux-gnu-gcc")
def test_threads_run_on_aarch64(c_workdir: Path, tmp_path: Path) -> None:
    if QEMU is None:
        pytest.skip("qemu-aarch64 is not installed")
    _run_all(tmp_path, c_workdir, [*TARGET_FLAGS, "-static"], CROSS_CC, launcher=[QEMU])


def test_mrvl_compile_host_threads_sets_the_makefile(tmp_path: Path) -> None:
    source = tmp_path / "pool.onnx"
    source.write_bytes(MODELS["pool"].SerializeToString())
    assert compile_main([str(source), "--no-offload", "--host-threads", "3", "-o", str(tmp_path / "b")],
                        stdout=io.StringIO()) == 0
    assert "HOST_THREADS ?= 3" in (tmp_path / "b" / "Makefile").read_text()
    assert compile_main([str(source), "--no-offload", "--host-threads", "0", "-o", str(tmp_path / "c")],
                        stdout=io.StringIO()) == 1
    assert not (tmp_path / "c").exists()
