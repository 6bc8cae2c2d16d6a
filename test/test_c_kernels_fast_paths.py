"""The host kernels' fast paths of issue 17, each against onnxruntime (mrvl/numerics.py):
the separable pools (max and average, 2x2/2, 3x3/2, ceil mode, padding counted or not,
dilation, 1-d and 3-d, the bounds-checked loop past MRVL_POOL_ROW columns); built with the
baseline ISA and -march=native, once more with AddressSanitizer and UBSan, and for aarch64
(-mcpu=neoverse-n2) run under qemu."""

import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from mrvl.numerics import assert_close
from test_c_backend import (GCC, Bundle, build_program, c_workdir, check, emit_model,  # noqa: F401
                            random_inputs, reference, run_program, single_op)
from test_c_kernels_sanitizers import SANITIZE, _sanitizers_link
from test_cross_compile import CROSS_CC, QEMU, TARGET_FLAGS

pytestmark = pytest.mark.skipif(GCC is None, reason="needs gcc")


def _pool(op: str, shape: list[int], **attrs) -> onnx.ModelProto:
    return single_op(op, [("x", shape)], **attrs)


CASES = {
    "max_3x3s2_ceil": _pool("MaxPool", [2, 5, 17, 19], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "max_2x2s2": _pool("MaxPool", [1, 3, 16, 22], kernel_shape=[2, 2], strides=[2, 2]),
    "max_2x2s1_pad_end": _pool("MaxPool", [1, 4, 9, 9], kernel_shape=[2, 2], strides=[1, 1], pads=[0, 0, 1, 1]),
    "max_3x3s1_pad": _pool("MaxPool", [1, 3, 10, 12], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
    "max_3x3s2_pad": _pool("MaxPool", [1, 8, 15, 15], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "max_dilated": _pool("MaxPool", [1, 2, 13, 14], kernel_shape=[3, 2], strides=[2, 3], dilations=[2, 2],
                         pads=[1, 1, 0, 1]),
    "max_1d_ceil": _pool("MaxPool", [2, 3, 31], kernel_shape=[4], strides=[3], ceil_mode=1),
    "max_wide_row": _pool("MaxPool", [1, 2, 3, 4200], kernel_shape=[2, 2], strides=[1, 2]),
    "avg_3x3s2_ceil": _pool("AveragePool", [1, 4, 14, 17], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "avg_3x3s2_ceil_include_pad": _pool("AveragePool", [1, 4, 14, 17], kernel_shape=[3, 3], strides=[2, 2],
                                        pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1),
    "avg_2x2s2": _pool("AveragePool", [3, 2, 12, 10], kernel_shape=[2, 2], strides=[2, 2]),
    "avg_5x5_pad": _pool("AveragePool", [1, 3, 11, 9], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]),
    "avg_3d_include_pad": _pool("AveragePool", [1, 2, 5, 6, 7], kernel_shape=[2, 3, 3], strides=[1, 2, 2],
                                pads=[1, 1, 1, 0, 1, 1], count_include_pad=1),
}
"""Single ops (and chains) whose kernels take the fast paths, by name."""


@pytest.mark.parametrize("native", [False, True], ids=["baseline", "native"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_path_matches_onnxruntime(name: str, native: bool, c_workdir: Path) -> None:
    model = CASES[name]
    check(model, c_workdir, random_inputs(model, 7), name="native" if native else "m", native=native)


def _program_outputs(tmp_path: Path, c_workdir: Path, suffix: str, flags: list[str], compiler: str | None,
                     launcher: list[str] = (), env: dict[str, str] | None = None) -> None:
    """Every case linked into one program (its own build of each), run once; matches onnxruntime."""
    built = [Bundle(emit_model(m, c_workdir, name=f"{name}_{suffix}"), f"{name}_{suffix}") for name, m in CASES.items()]
    inputs = [random_inputs(m, 3) for m in CASES.values()]
    program = build_program(built, tmp_path, flags, compiler=compiler)
    if launcher is None:
        pytest.skip("built; qemu-aarch64 is not installed to run it")
    outputs = run_program(program, built, inputs, env=env, launcher=launcher)
    for model, values, got in zip(CASES.values(), inputs, outputs):
        for g, expected in zip(got, reference(model, values), strict=True):
            assert_close(g, expected.reshape(g.shape))


def test_fast_paths_are_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    _program_outputs(tmp_path, c_workdir, "asan", SANITIZE, GCC, env=env)


@pytest.mark.skipif(CROSS_CC is None, reason="needs aarch64-linux-gnu-gcc")
def test_fast_paths_run_on_aarch64(c_workdir: Path, tmp_path: Path) -> None:
    _program_outputs(tmp_path, c_workdir, "arm", [*TARGET_FLAGS, "-static"], CROSS_CC,
                     launcher=[QEMU] if QEMU else None)


def test_the_row_limit_is_where_the_kernel_says(c_workdir: Path) -> None:
    """max_wide_row is wider than MRVL_POOL_ROW, so it checks the bounds-checked loop."""
    source = (emit_model(CASES["max_wide_row"], c_workdir) / "mrvl_kernels.c").read_text()
    limit = int(source.split("#define MRVL_POOL_ROW ")[1].split()[0])
    assert 4200 // 2 > limit and 17 < limit
