"""`cpu.qlinear_softmax` (a host DequantizeLinear -> Softmax -> QuantizeLinear, as
`fuse-host-qdq-softmaxes` rewrites it) against onnxruntime's QLinearSoftmax, exactly: uint8 and
int8, along the last axis and another, rows of 5 to 300 values, input scales from narrow to
wide (terms that underflow), and output grids whose top saturates.
All cases are one model, built on every path of `integer_kernel_paths.py`."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from test_c_backend import GCC, Bundle, assert_integers_as_onnxruntime, c_workdir, emit_model  # noqa: F401
from integer_kernel_paths import INTEGER_KERNEL_PATHS

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

SOFTMAXES = {
    # name: (type, shape, axis, x scale, x zero point, y scale, y zero point)
    "u8_attention": (np.uint8, [2, 4, 16, 64], -1, 0.09, 131, 1 / 255, 0),
    "u8_axis1": (np.uint8, [3, 5, 7], 1, 0.5, 0, 1 / 256, 0),
    "u8_wide_row": (np.uint8, [2, 300], -1, 0.031, 17, 0.0021, 3),
    "i8_attention": (np.int8, [1, 2, 12, 12], -1, 0.12, -3, 1 / 256, -128),
    "i8_narrow": (np.int8, [4, 33], -1, 0.004, 0, 1 / 255, -128),
    "i8_axis0": (np.int8, [9, 6], 0, 0.7, 5, 0.0039, -120),
}


def _model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(2718)
    nodes, inits, inputs, feeds = [], [], [], {}
    for name, (dtype, shape, axis, sx, zx, sy, zy) in SOFTMAXES.items():
        low, high = (0, 256) if dtype == np.uint8 else (-128, 128)
        feeds[name] = rng.integers(low, high, shape).astype(dtype)
        inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape))
        inits += [numpy_helper.from_array(np.float32(sx), f"{name}_sx"), numpy_helper.from_array(dtype(zx), f"{name}_zx"),
                  numpy_helper.from_array(np.float32(sy), f"{name}_sy"), numpy_helper.from_array(dtype(zy), f"{name}_zy")]
        nodes += [helper.make_node("DequantizeLinear", [name, f"{name}_sx", f"{name}_zx"], [f"{name}_f"]),
                  helper.make_node("Softmax", [f"{name}_f"], [f"{name}_p"], axis=axis),
                  helper.make_node("QuantizeLinear", [f"{name}_p", f"{name}_sy", f"{name}_zy"], [f"{name}_y"])]
    graph = helper.make_graph(nodes, "qdq_softmax", inputs,
                              [onnx.ValueInfoProto(name=f"{name}_y") for name in SOFTMAXES], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), feeds


@pytest.mark.parametrize("label,flags,compiler,launcher", INTEGER_KERNEL_PATHS)
def test_matches_onnxruntime(label: str, flags: list[str], compiler: str | None, launcher: list[str] | None,
                             c_workdir: Path, tmp_path: Path) -> None:
    model, feeds = _model()
    bundle = Bundle(emit_model(model, c_workdir, name=f"qdq_softmax_{label}"), f"qdq_softmax_{label}")
    source = (bundle.dir / f"{bundle.model}.c").read_text()
    assert "mrvl_qlinear_softmax_u8(" in source and "mrvl_qlinear_softmax_i8(" in source
    assert "mrvl_softmax_f32(" not in source
    assert_integers_as_onnxruntime(bundle, model, feeds, tmp_path, flags, compiler, launcher)
