"""The int8 Add `fuse-host-qdq-adds` leaves on the host (`cpu.qlinear_add`) against onnxruntime,
exactly: QDQ groups DequantizeLinear(a), DequantizeLinear(b) -> Add -> QuantizeLinear, which
onnxruntime fuses into QLinearAdd, of uint8 and of int8, each over every pair of 8-bit values
and 513 more (66049 elements, so the kernels' vector loops and their last, partial vectors
both run), for scale sets with ratios from 1/64 to 40 and zero points inside and at the ends of
the range. All groups are one model, built with -march=native, with -march=x86-64-v3, with the
baseline ISA and for -mcpu=neoverse-n2 run under qemu."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from test_c_backend import GCC, Bundle, assert_integers_as_onnxruntime, c_workdir, emit_model  # noqa: F401
from integer_kernel_paths import INTEGER_KERNEL_PATHS

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

ADDS = {
    # name: (type, (a scale, zero point), (b scale, zero point), (y scale, zero point))
    "u8_residual": (np.uint8, (0.031, 0), (0.047, 0), (0.061, 0)),
    "u8_offset": (np.uint8, (0.0123, 131), (0.0871, 7), (0.0457, 250)),
    "u8_small_ratio": (np.uint8, (0.0011, 255), (0.052, 64), (0.0703, 128)),
    # the constant part rounds otherwise if rb * zb, not ra * za, is the fused product
    "u8_fused_order": (np.uint8, (0.027, 214), (0.0051, 254), (0.0686, 121)),
    "i8_symmetric": (np.int8, (0.05, 0), (0.125, 0), (0.1, 0)),
    "i8_offset": (np.int8, (0.0219, -128), (0.0063, 91), (0.0171, -11)),
    "i8_large_ratio": (np.int8, (0.4, 127), (0.0137, -3), (0.01, 5)),
    "i8_fused_order": (np.int8, (0.0035, -126), (0.0139, 17), (0.0024, -57)),
}
SHAPE = [1, 1, 257, 257]


def _model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    nodes, inits, inputs, outputs, feeds = [], [], [], [], {}
    for name, (dtype, *grids) in ADDS.items():
        values = np.arange(*((0, 256) if dtype == np.uint8 else (-128, 128)))
        feeds[f"{name}_a"] = np.resize(np.repeat(values, 256), SHAPE).astype(dtype)
        feeds[f"{name}_b"] = np.resize(np.tile(values, 256), SHAPE).astype(dtype)
        for side, (scale, zero) in zip("aby", grids):
            inits += [numpy_helper.from_array(np.asarray(scale, np.float32), f"{name}_s{side}"),
                      numpy_helper.from_array(np.asarray(zero, dtype), f"{name}_z{side}")]
        element = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
        inputs += [helper.make_tensor_value_info(f"{name}_{side}", element, SHAPE) for side in "ab"]
        nodes += [helper.make_node("DequantizeLinear", [f"{name}_{side}", f"{name}_s{side}", f"{name}_z{side}"],
                                   [f"{name}_{side}f"]) for side in "ab"]
        nodes += [helper.make_node("Add", [f"{name}_af", f"{name}_bf"], [f"{name}_f"]),
                  helper.make_node("QuantizeLinear", [f"{name}_f", f"{name}_sy", f"{name}_zy"], [f"{name}_y"])]
        outputs.append(f"{name}_y")
    graph = helper.make_graph(nodes, "qdq_adds", inputs, [onnx.ValueInfoProto(name=o) for o in outputs], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), feeds


@pytest.mark.parametrize("label,flags,compiler,launcher", INTEGER_KERNEL_PATHS)
def test_matches_onnxruntime(label: str, flags: list[str], compiler: str | None, launcher: list[str] | None,
                             c_workdir: Path, tmp_path: Path) -> None:
    model, feeds = _model()
    bundle = Bundle(emit_model(model, c_workdir, name=f"qdq_adds_{label}"), f"qdq_adds_{label}")
    source = (bundle.dir / f"{bundle.model}.c").read_text()
    assert source.count("mrvl_qlinear_add_u8(") == 4 and source.count("mrvl_qlinear_add_i8(") == 4
    assert "mrvl_quantize_" not in source and "mrvl_dequantize_" not in source
    assert_integers_as_onnxruntime(bundle, model, feeds, tmp_path, flags, compiler, launcher)
