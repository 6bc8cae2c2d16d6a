"""The int8 kernels `fold-host-qdq-pairs` leaves on the host against onnxruntime, exactly: a
DequantizeLinear -> QuantizeLinear between two grids (`cpu.rescale`, each of int8 and uint8 to each,
saturating), a Concat of DequantizeLinears quantized (one input on the output's grid, one rescaled),
and MaxPools of int8 and uint8 between a DequantizeLinear and a QuantizeLinear of one grid (strides
1, 2 and 3, padding, dilation, ceil_mode, rows of more than one vector of outputs, 64 bytes with
AVX-512; a stem's 3x3 window of stride 2 and padding 1). All cases are one model, built with
-march=native, with -march=x86-64-v3, with the baseline ISA and for -mcpu=neoverse-n2 run under
qemu."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from test_c_backend import GCC, Bundle, assert_integers_as_onnxruntime, c_workdir, emit_model  # noqa: F401
from integer_kernel_paths import INTEGER_KERNEL_PATHS
from test_c_kernels_sanitizers import SANITIZE, _sanitizers_link

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

RESCALES = {
    # name: (x type, scale, zero point, y type, scale, zero point)
    "u8_to_u8": (np.uint8, 0.05, 128, np.uint8, 0.031, 3),
    "u8_to_i8": (np.uint8, 0.05, 100, np.int8, 0.02, -7),
    "i8_to_u8": (np.int8, 0.013, -3, np.uint8, 0.04, 131),
    "i8_to_i8": (np.int8, 0.5, 0, np.int8, 0.125, 10),
}
POOLS = {
    # name: (type, zero point, input shape, attributes)
    "u8_3x3_s2_ceil": (np.uint8, 9, [1, 3, 37, 71], dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
    "i8_3x3_pad": (np.int8, -4, [2, 2, 9, 11], dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
    "i8_3x2_s2_dilated_pad": (np.int8, 5, [1, 2, 13, 150], dict(kernel_shape=[3, 2], strides=[2, 2], dilations=[1, 2],
                                                                pads=[1, 1, 0, 1])),
    "u8_3x3_s2_pad_stem": (np.uint8, 3, [1, 2, 12, 140], dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    "u8_2x3_s3_dilated": (np.uint8, 0, [1, 2, 20, 50], dict(kernel_shape=[2, 3], strides=[3, 3], dilations=[2, 2],
                                                             pads=[0, 2, 1, 2])),
}
SHAPE = [1, 4, 5, 6]


def _range(dtype) -> tuple[int, int]:
    return (0, 256) if dtype == np.uint8 else (-128, 128)


def _model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(3141)
    nodes, inits, inputs, outputs, feeds = [], [], [], [], {}

    def constant(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def graph_input(name: str, dtype, shape: list[int]) -> str:
        feeds[name] = rng.integers(*_range(dtype), shape).astype(dtype)
        inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape))
        return name

    for name, (tx, sx, zx, ty, sy, zy) in RESCALES.items():
        x = graph_input(f"{name}_x", tx, SHAPE)
        nodes += [helper.make_node("DequantizeLinear", [x, constant(f"{name}_sx", np.float32(sx)),
                                                        constant(f"{name}_zx", tx(zx))], [f"{name}_f"]),
                  helper.make_node("QuantizeLinear", [f"{name}_f", constant(f"{name}_sy", np.float32(sy)),
                                                      constant(f"{name}_zy", ty(zy))], [f"{name}_y"])]
        outputs.append(f"{name}_y")
    # a concat of two uint8 inputs: the first on the output's grid, the second rescaled
    s, z = constant("concat_s", np.float32(0.04)), constant("concat_z", np.uint8(2))
    a, b = graph_input("concat_a", np.uint8, SHAPE), graph_input("concat_b", np.uint8, SHAPE)
    nodes += [helper.make_node("DequantizeLinear", [a, s, z], ["concat_af"]),
              helper.make_node("DequantizeLinear", [b, constant("concat_sb", np.float32(0.03)), z], ["concat_bf"]),
              helper.make_node("Concat", ["concat_af", "concat_bf"], ["concat_f"], axis=1),
              helper.make_node("QuantizeLinear", ["concat_f", s, z], ["concat_y"])]
    outputs.append("concat_y")
    for name, (dtype, zero, shape, attrs) in POOLS.items():
        x = graph_input(f"{name}_x", dtype, shape)
        s, z = constant(f"{name}_s", np.float32(0.02)), constant(f"{name}_z", dtype(zero))
        nodes += [helper.make_node("DequantizeLinear", [x, s, z], [f"{name}_f"]),
                  helper.make_node("MaxPool", [f"{name}_f"], [f"{name}_p"], **attrs),
                  helper.make_node("QuantizeLinear", [f"{name}_p", s, z], [f"{name}_y"])]
        outputs.append(f"{name}_y")
    graph = helper.make_graph(nodes, "qdq_pairs", inputs, [onnx.ValueInfoProto(name=o) for o in outputs], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), feeds


def _check(tmp_path: Path, c_workdir: Path, suffix: str, flags: list[str], compiler: str | None,
           launcher: list[str] | None = ()) -> None:
    model, feeds = _model()
    bundle = Bundle(emit_model(model, c_workdir, name=f"qdq_pairs_{suffix}"), f"qdq_pairs_{suffix}")
    source = (bundle.dir / f"{bundle.model}.c").read_text()
    assert "mrvl_rescale_u8i8(" in source and "mrvl_max_pool_i8(" in source and "mrvl_quantize_" not in source
    assert_integers_as_onnxruntime(bundle, model, feeds, tmp_path, flags, compiler, launcher)


@pytest.mark.parametrize("label,flags,compiler,launcher", INTEGER_KERNEL_PATHS)
def test_matches_onnxruntime(label: str, flags: list[str], compiler: str | None, launcher: list[str] | None,
                             c_workdir: Path, tmp_path: Path) -> None:
    _check(tmp_path, c_workdir, label, flags, compiler, launcher)


def test_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    """The same model built for this machine's vector units with AddressSanitizer and
    UndefinedBehaviorSanitizer: the MaxPools' vectors, read in place from before a padded row's
    start and past its end, stay inside the input, and the results are still exact."""
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    _check(tmp_path, c_workdir, "asan", [*SANITIZE, "-march=native"], GCC)
