"""target/host_kernels.py reads the kernels' tile constants from mrvl_kernels.c: checked
against what the C preprocessor makes of the same macros."""

import itertools
import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from ir_helpers import graph_context
from onnx import TensorProto, helper, numpy_helper

from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes.fuse_cpu_epilogues import FuseCpuEpiloguesPass
from mrvl.passes.lower_to_cpu import LowerToCpuPass
from mrvl.target import host_kernels
from mrvl.target.cost_model import CostModel
from mrvl_dialect.cpu import CPU, ConvOp, shape_of
from mrvl.target.host_kernels import (conv_path, depthwise_blocked_scratch_floats, depthwise_is_blocked,
                                      depthwise_scratch_floats, gemm_pack_floats, kernel_macro)

RUNTIME = Path(host_kernels.__file__).resolve().parents[1] / "backend" / "c_runtime"
TARGET = Path(host_kernels.__file__).resolve().parent
GCC = shutil.which("gcc")
CONSTANTS = ("GEMM_NC", "GEMM_KC", "GEMM_MC", "GEMM_DOT_ROWS", "CONV_PANEL", "CONV_CHANNEL_ALIGN", "DEPTHWISE_TILE",
             "DEPTHWISE_BLOCK", "DEPTHWISE_BLOCK_TILE", "WINOGRAD_PANEL", "WINOGRAD_BLOCK_FLOATS", "WINOGRAD_SLOTS")
SIZES = (1, 7, 96, 97, 300)
HOST = CostModel.load().host
"""The default host's conv kernel costs: the fit on x86-64 AVX-512 (docs/target.ini)."""


@pytest.mark.skipif(GCC is None, reason="needs gcc")
def test_macros_match_the_c_preprocessor(tmp_path: Path) -> None:
    products = list(itertools.product(SIZES, repeat=3))
    lines = [f'printf("%lld\\n", (long long)MRVL_{name});' for name in CONSTANTS]
    lines += [f'printf("%lld\\n", (long long)MRVL_GEMM_PACK_FLOATS({m}, {n}, {k}));' for m, n, k in products]
    (tmp_path / "main.c").write_text('#include <stdio.h>\n#include "mrvl_kernels.c"\nint main(void)\n{\n    '
                                     + "\n    ".join(lines) + "\n    return 0;\n}\n")
    subprocess.run([GCC, "-std=c99", "-O0", "-w", f"-I{RUNTIME}", f"-I{TARGET}", "main.c", "-o", "main", "-lm"], cwd=tmp_path,
                   check=True)
    values = [int(v) for v in subprocess.run([str(tmp_path / "main")], capture_output=True, text=True,
                                             check=True).stdout.split()]
    constants, packs = values[:len(CONSTANTS)], values[len(CONSTANTS):]
    for name, value in zip(CONSTANTS, constants):
        if name in ("DEPTHWISE_TILE", "DEPTHWISE_BLOCK_TILE"):  # this machine's vectors; Python's the widest
            assert kernel_macro(name) >= value
        else:
            assert kernel_macro(name) == value, name
    assert [gemm_pack_floats(m, n, k) for m, n, k in products] == packs


def test_integer_macros_only() -> None:
    with pytest.raises(KeyError, match="MRVL_NO_SUCH_MACRO"):
        kernel_macro("NO_SUCH_MACRO")
    assert kernel_macro("DEPTHWISE_TILE") == 4 * kernel_macro("GEMM_VECTOR_FLOATS") == 64


# Depthwise convs in both of the kernel's layouts (rows: stride 1, output as large as the
# input; phases: any other) and on small planes, 1-D to 3-D: input shape, weights shape, conv
# attributes.
DEPTHWISE = [
    ([1, 6, 7, 7], [6, 1, 3, 3], dict(pads=[1, 1, 1, 1])),
    ([2, 4, 9, 13], [8, 1, 5, 5], dict(pads=[2, 2, 2, 2])),
    ([1, 3, 11, 12], [3, 1, 3, 3], dict(pads=[2, 2, 2, 2], dilations=[2, 2])),
    ([1, 4, 29], [4, 1, 5], dict(pads=[2, 2])),
    ([1, 4, 37], [4, 1, 5], dict(pads=[2, 2])),
    ([1, 8, 28, 28], [8, 1, 3, 3], dict(pads=[1, 1, 1, 1])),
    ([1, 5, 15, 14], [5, 1, 3, 3], dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ([1, 6, 13, 15], [6, 1, 3, 3], dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ([1, 6, 12, 12], [6, 1, 5, 5], dict(pads=[2, 1, 1, 2], strides=[3, 3])),
    ([1, 3, 20, 19], [3, 1, 3, 3], dict(pads=[2, 1, 0, 2], strides=[3, 3], dilations=[2, 2])),
    ([1, 4, 5, 6, 7], [8, 1, 3, 3, 3], dict(pads=[1, 1, 1, 1, 1, 1], strides=[1, 2, 2])),
    ([1, 20, 56, 56], [20, 1, 3, 3], dict(pads=[1, 1, 1, 1], strides=[2, 2])),
    ([1, 33, 14, 15], [33, 1, 5, 5], dict(pads=[4, 4, 4, 4], dilations=[2, 2])),
    ([2, 5, 14, 12], [5, 1, 3, 3], dict(pads=[1, 1, 1, 1], strides=[2, 2])),  # small planes, at stride 2 too
    ([1, 7, 40, 14], [7, 1, 3, 3], dict(pads=[1, 1, 1, 1], strides=[2, 2])),
]


@pytest.mark.skipif(GCC is None, reason="needs gcc")
def test_depthwise_scratch_matches_the_c(tmp_path: Path) -> None:
    """plan-host-memory reserves what mrvl_depthwise_conv_f32 and
    mrvl_depthwise_blocked_conv_f32 use: their *_scratch_floats in Python and in C agree on
    each layout (C on this machine's vectors, Python on the widest: at least as much; equal
    when this machine has AVX-512), whichever of the two conv_path picks."""
    lines, expected = [], []
    for i, (x, w, attrs) in enumerate(DEPTHWISE):
        node = helper.make_node("Conv", ["x", "w"], ["y"], group=x[1], **attrs)
        graph = helper.make_graph([node], "dw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(np.ones(w, np.float32), "w")])
        path = tmp_path / f"dw{i}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
        ctx = graph_context()
        ctx.load_dialect(CPU)
        module = import_onnx(path)
        LowerToCpuPass().apply(ctx, module)
        conv = next(op for op in module.walk() if isinstance(op, ConvOp))
        assert conv_path(conv, HOST) == ("depthwise_blocked" if depthwise_is_blocked(conv) else "depthwise")
        rank, ys = len(x) - 2, list(shape_of(conv.Y))
        # Each kernel's scratch where it applies (blocked: channel multiplier 1, no depth dim).
        kernels = {"depthwise_scratch_floats": depthwise_scratch_floats(conv)}
        if w[0] == x[1] and rank <= 2:
            kernels["depthwise_blocked_scratch_floats"] = depthwise_blocked_scratch_floats(conv)
        expected += kernels.values()

        def dims(values, fill=1):
            return "{" + ", ".join(map(str, [fill] * (3 - rank) + list(values))) + "}"
        lines.append(f"{{ mrvl_conv_params p = {{.n = {x[0]}, .c = {x[1]}, .m = {w[0]}, .group = {x[1]}, "
                     f".in = {dims(x[2:])}, .out = {dims(ys[2:])}, .kernel = {dims(w[2:])}, "
                     f".stride = {dims(attrs.get('strides', [1] * rank))}, "
                     f".dilation = {dims(attrs.get('dilations', [1] * rank))}, "
                     f".pad = {dims(attrs.get('pads', [0] * 2 * rank)[:rank], 0)}}}; "
                     + " ".join(f'printf("%lld\\n", (long long){kernel}(&p));' for kernel in kernels) + " }")
    (tmp_path / "main.c").write_text('#include <stdio.h>\n#include "mrvl_kernels.c"\nint main(void)\n{\n    '
                                     + "\n    ".join(lines) + "\n    return 0;\n}\n")
    subprocess.run([GCC, "-std=c99", "-O0", "-w", "-march=native", f"-I{RUNTIME}", f"-I{TARGET}", "main.c", "-o", "main", "-lm"],
                   cwd=tmp_path, check=True)
    got = [int(v) for v in subprocess.run([str(tmp_path / "main")], capture_output=True, text=True,
                                          check=True).stdout.split()]
    for c_floats, python_floats in zip(got, expected, strict=True):
        assert python_floats >= c_floats
    if "avx512f" in Path("/proc/cpuinfo").read_text():  # the widest vectors: the same tile
        assert got == expected


def _conv_relu(tmp_path: Path, x: list[int], w: list[int], residual: bool) -> ConvOp:
    """The cpu.conv of a 1x1 Conv on x (+ a residual Add) + Relu, its epilogues fused."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Relu", ["c"], ["y"])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)]
    if residual:
        nodes.insert(1, helper.make_node("Add", ["c", "r"], ["s"]))
        nodes[2].input[0] = "s"
        inputs.append(helper.make_tensor_value_info("r", TensorProto.FLOAT, [x[0], w[0], *x[2:]]))
    graph = helper.make_graph(nodes, "conv", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(np.ones(w, np.float32), "w")])
    path = tmp_path / "conv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    ctx = graph_context()
    ctx.load_dialect(CPU)
    module = import_onnx(path)
    LowerToCpuPass().apply(ctx, module)
    FuseCpuEpiloguesPass().apply(ctx, module)
    conv = next(op for op in module.walk() if isinstance(op, ConvOp))
    assert (conv.R is not None) == residual
    return conv


# 1x1 convs, each with the kernel measured fastest on it (AVX-512, one thread): input shape,
# output channels, a residual Add, the kernel.
POINTWISE_CONVS = [
    ([1, 16, 55, 55], 64, False, "flat"),  # SqueezeNet's expand: read in place, 52 -> 34 us
    ([1, 32, 112, 112], 16, False, "flat"),  # MobileNetV2's projection: 124 (pointwise) -> 69 us
    ([1, 64, 56, 56], 256, True, "flat"),  # ResNet-50's expansion with its residual, 605 -> 486 us
    ([1, 96, 14, 14], 576, False, "flat"),
    ([1, 256, 14, 14], 1024, False, "direct"),
    ([1, 256, 14, 14], 1024, True, "pointwise"),  # the direct conv reads the residual transposed
    ([1, 512, 7, 7], 2048, True, "direct"),  # 7 x 7 fills the flat tile badly
]


@pytest.mark.parametrize(("x", "m", "residual", "kernel"), POINTWISE_CONVS)
def test_the_fastest_kernel_runs_a_1x1_conv(tmp_path: Path, x: list[int], m: int, residual: bool,
                                            kernel: str) -> None:
    """conv_costs picks the kernel measured fastest: the flat one for few input channels on
    large planes (no copy, its outputs stored in runs), the direct or pointwise one on small
    planes."""
    assert conv_path(_conv_relu(tmp_path, x, [m, x[1], 1, 1], residual), HOST) == kernel
