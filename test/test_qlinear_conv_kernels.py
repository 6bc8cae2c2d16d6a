"""The int8 convolution kernel (`cpu.qlinear_conv`, mrvl_kernels_qgemm.c) against onnxruntime's
QLinearConv, exactly: uint8 and int8 activations, outputs and weights (uint8 weights packed as int8
by -128), scales and zero points per tensor and per output channel, bias, input channels not a
multiple of four, output channels not a multiple of a panel, positions not a multiple of a tile,
padding, strides (a 1x1 conv of stride 2, stride 3 with a dilation), dilations, groups, several
images, the 1x1 conv read straight from its input, convs of fewer than four input channels by kernel
columns (strides 1, 2 and 3, groups, a weight zero point, dilation), small planes on channel tiles (several panels,
the last partly filled, groups, a weight zero point, last tiles of 1, 2 and 3 positions), rows wide
enough for the vector loops that build the quad planes (strides 1 and 2, either side of the
padding), a 1x1 conv of one or two positions (a classifier: matrix-vector products on AVX-512; K not
a multiple of four quads, a weight zero point), and the depthwise kernel (mrvl_kernels_qdepthwise.c:
strides 1, 2 and 3 and mixed, dilations, 3x3, 5x5, 9x9 and 13x13 windows (on x86 more than 128 taps
take the plain loops), padding of either parity and asymmetric, rows narrower and wider than a
vector, small planes of odd width, several images). All cases are one model, built with
-march=native (here AVX-512 VNNI), with -march=x86-64-v3 (AVX2 without VNNI), with -march=x86-64-v3
-mavxvnni (AVX-VNNI), with the baseline ISA (the portable loops) and for -mcpu=neoverse-n2 (usdot,
sudot; the depthwise kernel's smlal) run under qemu."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from test_c_backend import GCC, Bundle, assert_integers_as_onnxruntime, c_workdir, emit_model  # noqa: F401
from integer_kernel_paths import INTEGER_KERNEL_PATHS
from test_c_kernels_sanitizers import SANITIZE, _sanitizers_link

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

CASES = {
    # name: (x type, w type, y type, x shape, w shape, attributes, per channel, weight zero point)
    "u8_3x3_pad": (np.uint8, np.int8, np.uint8, [1, 16, 9, 9], [24, 16, 3, 3], dict(pads=[1, 1, 1, 1]), False, 0),
    "i8_1x1_per_channel": (np.int8, np.int8, np.int8, [1, 13, 7, 7], [10, 13, 1, 1], {}, True, 0),
    "u8w_groups_stride": (np.uint8, np.uint8, np.uint8, [1, 6, 11, 9], [6, 3, 3, 3],
                          dict(pads=[1, 0, 1, 0], strides=[2, 2], group=2), False, 131),
    "depthwise_u8": (np.uint8, np.int8, np.uint8, [1, 12, 10, 11], [12, 1, 3, 3], dict(pads=[1, 1, 1, 1], group=12),
                     True, 0),
    "depthwise_u8w_stride": (np.uint8, np.uint8, np.uint8, [2, 5, 13, 13], [5, 1, 5, 5],
                                dict(pads=[2, 2, 2, 2], strides=[2, 2], group=5), False, 120),
    "depthwise_9x9": (np.uint8, np.int8, np.uint8, [1, 3, 12, 12], [3, 1, 9, 9], dict(pads=[4, 4, 4, 4], group=3),
                      False, 0),
    "i8_dilated_two_images": (np.int8, np.int8, np.int8, [2, 8, 12, 10], [9, 8, 3, 3],
                              dict(dilations=[2, 2], pads=[2, 1, 2, 1]), True, 0),
    "u8_stem_7x7": (np.uint8, np.int8, np.uint8, [1, 3, 20, 20], [16, 3, 7, 7], dict(strides=[2, 2], pads=[3, 3, 3, 3]),
                    True, 0),
    # convs by columns (fewer than four input channels: cg * kw channels, a kernel kh x 1), the
    # rows' column phases split in vectors (stride 2, rows of 32 bytes and more), copied (stride
    # 1) and one by one (stride 3); groups, a weight zero point, dilation, asymmetric padding
    "u8w_columns_groups": (np.uint8, np.uint8, np.uint8, [1, 4, 13, 40], [6, 2, 3, 5],
                           dict(strides=[2, 2], pads=[2, 1, 1, 3], dilations=[1, 2], group=2), False, 120),
    "i8_columns_stride1": (np.int8, np.int8, np.int8, [1, 1, 9, 70], [5, 1, 3, 3], dict(pads=[1, 1, 1, 1]), True, 0),
    "i8_columns_stride3_two_images": (np.int8, np.int8, np.int8, [2, 3, 12, 50], [7, 3, 2, 7],
                                      dict(strides=[1, 3], pads=[0, 3, 1, 3]), True, 0),
    "u8w_1x1_wide": (np.uint8, np.uint8, np.uint8, [1, 40, 6, 6], [33, 40, 1, 1], {}, False, 100),
    "depthwise_i8_stride2_pad1": (np.int8, np.int8, np.int8, [1, 6, 15, 14], [6, 1, 3, 3],
                                  dict(pads=[1, 1, 1, 1], strides=[2, 2], group=6), True, 0),
    "depthwise_stride3": (np.uint8, np.int8, np.uint8, [1, 4, 13, 17], [4, 1, 3, 3],
                          dict(pads=[0, 1, 2, 0], strides=[3, 3], group=4), False, 0),
    "u8_1x1_stride2": (np.uint8, np.int8, np.uint8, [1, 8, 9, 9], [12, 8, 1, 1], dict(strides=[2, 2]), True, 0),
    "i8_stride3_dilated": (np.int8, np.int8, np.int8, [1, 5, 14, 13], [7, 5, 3, 3],
                           dict(strides=[3, 2], dilations=[2, 1], pads=[1, 2, 0, 1]), False, 0),
    "u8_wide_stride2": (np.uint8, np.int8, np.uint8, [1, 5, 6, 70], [6, 5, 3, 3], dict(strides=[2, 2], pads=[1, 1, 1, 1]),
                        True, 0),
    "i8_wide_pad2": (np.int8, np.int8, np.int8, [1, 6, 4, 45], [5, 6, 3, 3], dict(pads=[1, 2, 1, 2]), False, 0),
    "i8_classifier": (np.int8, np.int8, np.int8, [2, 37, 1, 1], [19, 37, 1, 1], {}, True, 0),
    "u8w_classifier": (np.uint8, np.uint8, np.uint8, [1, 70, 1, 1], [12, 70, 1, 1], {}, False, 125),
    "u8_two_positions": (np.uint8, np.int8, np.uint8, [1, 16, 1, 2], [9, 16, 1, 1], {}, True, 0),
    "depthwise_i8_5x5_asymmetric": (np.int8, np.int8, np.int8, [1, 7, 19, 37], [7, 1, 5, 5],
                                    dict(pads=[2, 1, 1, 3], group=7), True, 0),
    "depthwise_u8w_5x5_stride2": (np.uint8, np.uint8, np.uint8, [1, 4, 21, 45], [4, 1, 5, 5],
                                  dict(pads=[2, 2, 2, 2], strides=[2, 2], group=4), True, 117),
    "depthwise_dilated_stride2x1": (np.uint8, np.int8, np.uint8, [1, 5, 17, 70], [5, 1, 3, 3],
                                    dict(strides=[2, 1], dilations=[2, 2], pads=[2, 0, 1, 2], group=5), False, 0),
    "depthwise_i8_stride1x2_dilated": (np.int8, np.int8, np.int8, [1, 5, 20, 71], [5, 1, 3, 3],
                                       dict(strides=[1, 2], dilations=[1, 2], pads=[1, 0, 1, 2], group=5), True, 0),
    "depthwise_7x7_two_images": (np.uint8, np.int8, np.uint8, [2, 20, 7, 7], [20, 1, 3, 3],
                                 dict(pads=[1, 1, 1, 1], group=20), True, 0),
    "depthwise_stride2_wide_odd_pad": (np.uint8, np.int8, np.uint8, [1, 3, 14, 130], [3, 1, 3, 3],
                                       dict(pads=[0, 1, 1, 0], strides=[2, 2], group=3), False, 0),
    "u8_groups_channel_tiles": (np.uint8, np.int8, np.uint8, [1, 16, 7, 7], [32, 8, 3, 3],
                                dict(pads=[1, 1, 1, 1], group=2), True, 0),
    "u8w_channel_tiles_many_panels": (np.uint8, np.uint8, np.uint8, [1, 20, 7, 7], [90, 20, 3, 3],
                                      dict(pads=[1, 1, 1, 1]), True, 7),
    "depthwise_13x13": (np.uint8, np.int8, np.uint8, [1, 2, 15, 15], [2, 1, 13, 13], dict(pads=[6, 6, 6, 6], group=2),
                        False, 0),
    "i8_channel_tiles_last_two": (np.int8, np.int8, np.int8, [1, 12, 8, 7], [20, 12, 3, 3], dict(pads=[1, 1, 1, 1]),
                                  True, 0),
}

# QDQ groups DequantizeLinear -> Conv -> Relu -> QuantizeLinear, whose Relu clamps the output
# to its zero point, above the type's lowest value: name: (x and y type, x shape, w shape,
# attributes, y zero point); int8 weights per output channel, with a bias.
RELU_CASES = {
    "u8_relu_3x3": (np.uint8, [1, 8, 12, 12], [11, 8, 3, 3], dict(pads=[1, 1, 1, 1]), 90),
    "i8_relu_1x1": (np.int8, [1, 12, 10, 10], [19, 12, 1, 1], {}, 0),
    "u8_relu_channel_tiles": (np.uint8, [1, 16, 7, 7], [40, 16, 3, 3], dict(pads=[1, 1, 1, 1]), 70),
    "i8_relu_channel_tiles": (np.int8, [1, 8, 5, 5], [21, 8, 3, 3], dict(pads=[1, 1, 1, 1]), -20),
}


def _range(dtype) -> tuple[int, int]:
    return (0, 256) if dtype == np.uint8 else (-128, 128)


def _model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    rng = np.random.default_rng(3131)
    nodes, inits, inputs, outputs, feeds = [], [], [], [], {}
    for name, (tx, tw, ty, xs, ws, attrs, per_channel, w_zero) in CASES.items():
        m = ws[0]
        feeds[f"{name}_x"] = rng.integers(*_range(tx), xs).astype(tx)
        scales = rng.uniform(0.002, 0.02, m if per_channel else 1).astype(np.float32)
        values = {
            "x_scale": np.float32(rng.uniform(0.01, 0.05)),
            "x_zero": tx(rng.integers(*_range(tx))),
            "w": rng.integers(*_range(tw), ws).astype(tw),
            "w_scale": scales if per_channel else scales.reshape(()),
            "w_zero": np.full(m, w_zero, tw) if per_channel else tw(w_zero),
            "y_scale": np.float32(rng.uniform(0.05, 0.3)),
            "y_zero": ty(rng.integers(*_range(ty)) // 2),
            "bias": rng.integers(-5000, 5000, m).astype(np.int32),
        }
        inits += [numpy_helper.from_array(v, f"{name}_{k}") for k, v in values.items()]
        inputs.append(helper.make_tensor_value_info(f"{name}_x", helper.np_dtype_to_tensor_dtype(np.dtype(tx)), xs))
        outputs.append(onnx.ValueInfoProto(name=f"{name}_y"))
        operands = [f"{name}_{k}" for k in ("x", "x_scale", "x_zero", "w", "w_scale", "w_zero", "y_scale", "y_zero",
                                            "bias")]
        nodes.append(helper.make_node("QLinearConv", operands, [f"{name}_y"], name=name, **attrs))
    for name, (tx, xs, ws, attrs, y_zero) in RELU_CASES.items():
        m = ws[0]
        feeds[f"{name}_x"] = rng.integers(*_range(tx), xs).astype(tx)
        x_scale, w_scale = np.float32(rng.uniform(0.01, 0.05)), rng.uniform(0.002, 0.02, m).astype(np.float32)
        values = {
            "x_scale": x_scale,
            "x_zero": tx(rng.integers(*_range(tx))),
            "w": rng.integers(-128, 128, ws).astype(np.int8),
            "w_scale": w_scale,
            "w_zero": np.zeros(m, np.int8),
            "bias": rng.integers(-5000, 5000, m).astype(np.int32),
            "bias_scale": (x_scale * w_scale).astype(np.float32),
            "bias_zero": np.zeros(m, np.int32),
            "y_scale": np.float32(rng.uniform(0.05, 0.3)),
            "y_zero": tx(y_zero),
        }
        inits += [numpy_helper.from_array(v, f"{name}_{k}") for k, v in values.items()]
        inputs.append(helper.make_tensor_value_info(f"{name}_x", helper.np_dtype_to_tensor_dtype(np.dtype(tx)), xs))
        outputs.append(onnx.ValueInfoProto(name=f"{name}_y"))
        nodes += [
            helper.make_node("DequantizeLinear", [f"{name}_{k}" for k in ("x", "x_scale", "x_zero")], [f"{name}_xf"]),
            helper.make_node("DequantizeLinear", [f"{name}_{k}" for k in ("w", "w_scale", "w_zero")], [f"{name}_wf"],
                             axis=0),
            helper.make_node("DequantizeLinear", [f"{name}_{k}" for k in ("bias", "bias_scale", "bias_zero")],
                             [f"{name}_bf"], axis=0),
            helper.make_node("Conv", [f"{name}_xf", f"{name}_wf", f"{name}_bf"], [f"{name}_c"], name=name, **attrs),
            helper.make_node("Relu", [f"{name}_c"], [f"{name}_r"]),
            helper.make_node("QuantizeLinear", [f"{name}_r", f"{name}_y_scale", f"{name}_y_zero"], [f"{name}_y"]),
        ]
    graph = helper.make_graph(nodes, "qlinear_convs", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), feeds


def _check(tmp_path: Path, c_workdir: Path, suffix: str, flags: list[str], compiler: str | None,
           launcher: list[str] | None = ()) -> None:
    model, feeds = _model()
    bundle = Bundle(emit_model(model, c_workdir, name=f"qconv_{suffix}"), f"qconv_{suffix}")
    assert "mrvl_qlinear_conv(&p" in (bundle.dir / f"{bundle.model}.c").read_text()
    assert_integers_as_onnxruntime(bundle, model, feeds, tmp_path, flags, compiler, launcher)


@pytest.mark.parametrize("label,flags,compiler,launcher", INTEGER_KERNEL_PATHS)
def test_matches_onnxruntime(label: str, flags: list[str], compiler: str | None, launcher: list[str] | None,
                             c_workdir: Path, tmp_path: Path) -> None:
    _check(tmp_path, c_workdir, label, flags, compiler, launcher)


def test_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    """The same model built for this machine's vector units with AddressSanitizer and
    UndefinedBehaviorSanitizer: no kernel reads or writes past its tensors (the depthwise
    kernel's masked loads, and its copies out 16 bytes at a time short of the output's end),
    nor does undefined behaviour, and the results are still exact."""
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    _check(tmp_path, c_workdir, "asan", [*SANITIZE, "-march=native"], GCC)
