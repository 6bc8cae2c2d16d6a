"""The host kernels' fast paths of issue 17, each against onnxruntime (mrvl/numerics.py): the
pools (max and average, 2x2/2, 3x3/2, ceil mode, padding counted or not, dilation, 1-d and 3-d;
in bands of rows over small planes, direct from the input for stride 2, two rows of small
planes to a vector pair, stride 1 over padded planes as one flat array, the bounds-checked loop
past MRVL_POOL_ROW columns); activations fused into each conv kernel (direct, flat, pointwise,
depthwise), after a residual and a clamp, and a per-channel scale and shift after them; the
flat conv's strides, dilations, groups, 1-d and 3-d planes and weights packed at run time;
convs writing their slices of an in-place concat (and a concat that must copy); softmax over
the last axis and layer normalisation, their rows reduced in 16 lanes; erf and the erf-form
GELU; a matmul's bias Add, clamp and activation fused into it; a fully connected layer's tiles
of dot products; GEMMs on weights packed at compile time (a few rows by column tiles, each tile
height, many rows in blocks, A transposed); transposes in blocks of 4 x 4 tiles. All the cases are built side
by side in one model: with the baseline ISA, -march=native and -march=x86-64-v3 (AVX2), once more with AddressSanitizer
and UBSan, and for aarch64 (-mcpu=neoverse-n2) run under qemu; each alone, as slow tests."""

import itertools
import os
import platform
import re
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from numeric_asserts import assert_close
from mrvl.backend.bundle import RUNTIME_DIR
from mrvl.target.host_kernels import CONV_TRANSPOSE_DOT_CHANNELS, CONV_TRANSPOSE_DOT_FLOATS, kernel_macro
from onnx import TensorProto, helper
from test_c_backend import (GCC, Built, Bundle, _w, assert_cases_close, build_program, c_workdir, check,  # noqa: F401
                            check_together, compile_model, emit_model, gcc, merged, merged_inputs, random_inputs,
                            makefile_cflags, reference, run_program, run_together,
                            single_op)
from test_c_kernels_sanitizers import SANITIZE, _sanitizers_link
from test_cross_compile import CROSS_CC, QEMU, TARGET_FLAGS

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]


def _pool(op: str, shape: list[int], **attrs) -> onnx.ModelProto:
    return single_op(op, [("x", shape)], **attrs)


CASES = {
    "max_3x3s2_ceil": _pool("MaxPool", [2, 5, 17, 19], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "max_2x2s2": _pool("MaxPool", [1, 3, 16, 22], kernel_shape=[2, 2], strides=[2, 2]),
    # pool_direct_planes: several vectors a row, the last rows of x a window at a time
    "max_3x3s2_direct": _pool("MaxPool", [2, 3, 23, 77], kernel_shape=[3, 3], strides=[2, 2]),
    "avg_3x3s2_direct": _pool("AveragePool", [1, 3, 9, 41], kernel_shape=[3, 3], strides=[2, 2]),
    # pool_direct_planes over rows shorter than a vector: each row's last vector spills into the next
    "max_3x3s2_direct_short_rows": _pool("MaxPool", [2, 5, 27, 27], kernel_shape=[3, 3], strides=[2, 2]),
    # pool_direct_planes with edges: padding (ResNet's 3x3/2 pad 1), ceil mode windows past the
    # end, averages counting the padding or not, padding on one side only
    "max_3x3s2_pad_wide": _pool("MaxPool", [1, 3, 20, 70], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "avg_3x3s2_pad_include_wide": _pool("AveragePool", [2, 3, 9, 40], kernel_shape=[3, 3], strides=[2, 2],
                                        pads=[1, 1, 1, 1], count_include_pad=1),
    "avg_3x3s2_pad_top_left": _pool("AveragePool", [1, 2, 10, 36], kernel_shape=[3, 3], strides=[2, 2],
                                    pads=[1, 1, 0, 0]),
    "max_2x2s2_ceil_wide": _pool("MaxPool", [1, 4, 9, 37], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
    # pool_pair_planes: two rows of small planes to a vector pair (here 6 outputs, and for the
    # 4-float vectors of the baseline and aarch64 builds 2), an odd row out, the last window
    # rows loaded through a buffer
    "max_pairs_3x3s2": _pool("MaxPool", [2, 7, 13, 13], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "max_pairs_2x2s2_odd_rows": _pool("MaxPool", [1, 5, 5, 4], kernel_shape=[2, 2], strides=[2, 2]),
    "avg_pairs_2x2s2_odd_rows": _pool("AveragePool", [3, 5, 5, 4], kernel_shape=[2, 2], strides=[2, 2]),
    "avg_pairs_3x3s2": _pool("AveragePool", [1, 3, 11, 11], kernel_shape=[3, 3], strides=[2, 2]),
    # pool_grid_planes: stride 1, several padded planes reduced as one flat array (tiny-YOLO's
    # 2x2 pool padded at the end, YOLOv5's SPPF 5x5, Inception's 3x3 pools)
    "max_grid_2x2s1_pad_end": _pool("MaxPool", [2, 5, 8, 18], kernel_shape=[2, 2], strides=[1, 1], pads=[0, 0, 1, 1]),
    "max_grid_5x5s1_pad": _pool("MaxPool", [1, 6, 8, 9], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]),
    "avg_grid_3x3s1_pad": _pool("AveragePool", [2, 3, 7, 19], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
    "avg_grid_3x2s1_include_pad": _pool("AveragePool", [1, 4, 6, 5], kernel_shape=[3, 2], strides=[1, 1],
                                        pads=[2, 0, 1, 1], count_include_pad=1),
    # pool_small_planes: a max at stride 1 over rows at most a vector wide, each output row one
    # vector (tiny-YOLO's 2x2 pool padded at the end on 8x8 planes; AVX2's 8 lanes, AVX-512's 16
    # with a 2x2 window; the last plane's rows loaded through a buffer, the last row stored in
    # part); 4 wide for the 4-float vectors of the baseline and aarch64 builds; padding before
    # (the first plane's rows through a buffer)
    "max_small_2x2s1_pad_end": _pool("MaxPool", [2, 5, 8, 8], kernel_shape=[2, 2], strides=[1, 1], pads=[0, 0, 1, 1]),
    "max_small_2x2s1_pad_begin": _pool("MaxPool", [1, 5, 7, 7], kernel_shape=[2, 2], strides=[1, 1],
                                       pads=[1, 1, 0, 0]),
    "max_small_3x3s1_pad": _pool("MaxPool", [2, 7, 9, 6], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
    "max_small_2x2s1": _pool("MaxPool", [2, 4, 9, 9], kernel_shape=[2, 2], strides=[1, 1]),
    "max_small_2x2s1_4_wide": _pool("MaxPool", [1, 3, 5, 4], kernel_shape=[2, 2], strides=[1, 1], pads=[0, 0, 1, 1]),
    # bands of rows spanning many small planes
    "max_3x3s2_small_planes": _pool("MaxPool", [4, 24, 13, 13], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    "max_5x5s1_pad": _pool("MaxPool", [1, 8, 20, 20], kernel_shape=[5, 5], strides=[1, 1], pads=[2, 2, 2, 2]),
    # 3-d with a kernel depth of 1: not the 2-d direct path; each depth its own rows
    "max_3d_depth_1": _pool("MaxPool", [1, 2, 3, 8, 10], kernel_shape=[1, 2, 2], strides=[1, 2, 2]),
    "avg_3d_depth_1_pad": _pool("AveragePool", [1, 2, 3, 7, 9], kernel_shape=[1, 3, 3], strides=[1, 1, 1],
                                pads=[0, 1, 1, 0, 1, 1], count_include_pad=1),
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


def _conv_then(act: list[onnx.NodeProto], shape: list[int], w: list[int], residual: bool = False,
               clip: bool = False, **conv) -> onnx.ModelProto:
    """Conv (+ residual Add, + Clip) then the `act` nodes, which read "a" and write "y"."""
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], **conv)]
    out = [shape[0], w[0], *shape[2:]] if not conv.get("strides") else None
    inputs = [("x", shape)]
    last = "c"
    if residual:
        nodes.append(helper.make_node("Add", ["c", "residual"], ["with_residual"]))
        inputs.append(("residual", out))
        last = "with_residual"
    if clip:
        nodes.append(helper.make_node("Clip", [last, "lo", "hi"], ["k"]))
        last = "k"
    nodes += [helper.make_node("Identity", [last], ["a"]), *act]
    inits = [_w("w", w), _w("b", [w[0]], seed=2), onnx.numpy_helper.from_array(np.float32(-2.5), "lo"),
             onnx.numpy_helper.from_array(np.float32(3.0), "hi")]
    graph = helper.make_graph(nodes, "conv_act", [helper.make_tensor_value_info(n, TensorProto.FLOAT, d)
                                                  for n, d in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              inits if clip else inits[:2])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


_n = helper.make_node
ACTIVATIONS = {
    "leaky_relu": [_n("LeakyRelu", ["a"], ["y"], alpha=0.1)],
    "sigmoid": [_n("Sigmoid", ["a"], ["y"])],
    "silu": [_n("Sigmoid", ["a"], ["g"]), _n("Mul", ["a", "g"], ["y"])],
    "silu_swapped": [_n("Sigmoid", ["a"], ["g"]), _n("Mul", ["g", "a"], ["y"])],
    "hard_sigmoid": [_n("HardSigmoid", ["a"], ["y"], alpha=0.3, beta=0.4)],
    "hard_swish": [_n("HardSwish", ["a"], ["y"])],
    "mish": [_n("Softplus", ["a"], ["sp"]), _n("Tanh", ["sp"], ["t"]), _n("Mul", ["t", "a"], ["y"])],
}
CONVS = {  # the direct (tiled), flat, pointwise, depthwise and channel-blocked depthwise kernels, on ragged tiles
    # dilated (the Winograd conv takes 3x3 stride-1 convs), padded to keep the planes' size
    "direct": dict(shape=[2, 24, 6, 7], w=[37, 24, 3, 3], pads=[2, 2, 2, 2], dilations=[2, 2]),
    "flat": dict(shape=[2, 3, 13, 37], w=[19, 3, 3, 3], pads=[1, 1, 1, 1]),
    "pointwise": dict(shape=[1, 32, 7, 8], w=[35, 32, 1, 1]),  # 7 x 8: the flat tile would waste 40%
    # odd output rows and columns (a tile's second row and column dropped), channels past a panel
    "winograd": dict(shape=[2, 32, 13, 19], w=[21, 32, 3, 3], pads=[1, 1, 1, 1]),
    "depthwise": dict(shape=[1, 6, 12, 19], w=[6, 1, 3, 3], pads=[1, 2, 1, 0], group=6),  # not small (its pads)
    "blocked": dict(shape=[1, 20, 9, 11], w=[20, 1, 3, 3], pads=[1, 2, 1, 0], group=20),  # a block and 4 channels
}
for _act, _nodes in ACTIVATIONS.items():
    for _conv, _attrs in CONVS.items():
        CASES[f"{_conv}_{_act}"] = _conv_then(_nodes, **_attrs)


def _affine(conv: dict, channels: int, scale_shape: list[int], shift: bool = True,
            act: str = "Relu") -> onnx.ModelProto:
    """Conv, `act`, then Mul (and Add) by constants per output channel (an affine after the activation)."""
    nodes = [_n(act, ["a"], ["r"]), _n("Mul", ["r", "s"] if shift else ["s", "r"], ["m" if shift else "y"])]
    if shift:
        nodes.append(_n("Add", ["t", "m"], ["y"]))
    model = _conv_then(nodes, **conv)
    rng = np.random.default_rng(9)
    model.graph.initializer.extend([
        onnx.numpy_helper.from_array(rng.uniform(0.5, 2, scale_shape).astype(np.float32), "s"),
        onnx.numpy_helper.from_array(rng.standard_normal([channels, 1, 1]).astype(np.float32), "t")])
    return model


CASES["direct_relu_affine"] = _affine(CONVS["direct"], 37, [37, 1, 1])
CASES["direct_grouped_narrow_relu_affine"] = _affine(dict(shape=[1, 64, 4, 4], w=[6, 32, 3, 3], pads=[1, 1, 1, 1],
                                                          group=2), 6, [1, 6, 1, 1])
# Deep convs on small planes: the weights read once (channel-major), short tiles in parts.
CASES["direct_deep_hard_swish"] = _conv_then(ACTIVATIONS["hard_swish"], shape=[2, 64, 2, 11], w=[40, 64, 3, 3],
                                             pads=[1, 1, 1, 1])
CASES["direct_deep_narrow_sigmoid"] = _conv_then(ACTIVATIONS["sigmoid"], shape=[1, 64, 2, 11], w=[12, 64, 3, 3],
                                                 residual=True, pads=[1, 1, 1, 1])
# Channel-major, each tile after a block's first fetches its share of the next block's
# weights: a plane of two tiles of 6 positions (AVX2), three blocks of 16 channels.
CASES["direct_deep_two_tiles_next_block"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 96, 3, 4],
                                                       w=[48, 96, 3, 3], pads=[1, 1, 1, 1])
CASES["direct_short_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[2, 96, 4, 4], w=[40, 96, 3, 3],
                                              pads=[1, 1, 1, 1])  # 4 x 4: two tiles of 8 positions on AVX-512
# Planes a few positions past whole tiles of 12 (16 narrow) on AVX-512, the last tiles a position
# longer: 7 x 7 (3 tiles of 12, 1 of 13; narrow, 2 of 16, 1 of 17), 14 x 14 (12 of 12, 4 of 13).
# Dilated, as CONVS["direct"].
CASES["direct_deep_long_tiles_residual_sigmoid"] = _conv_then(ACTIVATIONS["sigmoid"], shape=[2, 48, 7, 7],
                                                              w=[40, 48, 3, 3], residual=True, pads=[2, 2, 2, 2],
                                                              dilations=[2, 2])
CASES["direct_deep_long_tiles_narrow_silu"] = _conv_then(ACTIVATIONS["silu"], shape=[1, 64, 7, 7], w=[12, 64, 3, 3],
                                                         pads=[1, 1, 1, 1])
CASES["direct_deep_long_tiles_14x14"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 64, 14, 14],
                                                   w=[64, 64, 3, 3], pads=[2, 2, 2, 2], dilations=[2, 2])
# A plane a position past whole tiles (AVX2: MRVL_CONV_SPLIT_LAST): 7 x 7 in narrow tiles, 3 of
# 12, 1 of 9 and 1 of 4 positions (not 4 of 12 and 1 of 1). Dilated, as CONVS["direct"].
CASES["direct_narrow_split_last_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 24, 7, 7],
                                                          w=[6, 24, 3, 3], pads=[2, 2, 2, 2], dilations=[2, 2])
# 1x1 convs on planes of at most MRVL_CONV_TRANSPOSED_PLANE positions, their input read
# transposed (AVX2): 7 x 7 (8 tiles of 6 positions and 1 of 1), and stride 2 on 8 x 8 (60
# channels: 7 blocks of 8 and 4 transposed one at a time).
CASES["direct_1x1_transposed_residual_clip_sigmoid"] = _conv_then(ACTIVATIONS["sigmoid"], shape=[2, 192, 7, 7],
                                                                  w=[96, 192, 1, 1], residual=True, clip=True)
CASES["direct_1x1_stride2_transposed_silu"] = _conv_then(ACTIVATIONS["silu"], shape=[1, 60, 8, 8],
                                                         w=[48, 60, 1, 1], strides=[2, 2])
# Deep 1x1 convs on planes of up to MRVL_CONV_TRANSPOSED_DEEP_PLANE positions (AVX2): 13 x 15,
# 260 channels (32 blocks of 8 and 4 transposed one at a time) onto 1010; stride 2 onto 14 x 14.
CASES["direct_1x1_deep_transposed_clip_sigmoid"] = _conv_then(ACTIVATIONS["sigmoid"], shape=[1, 260, 13, 15],
                                                              w=[1010, 260, 1, 1], clip=True)
CASES["direct_1x1_deep_stride2_transposed_14x14"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 256, 28, 28],
                                                               w=[1024, 256, 1, 1], strides=[2, 2])
# Strided 1x1 convs, their input copied at the output positions (AVX2): on an output plane
# too large to read transposed, subsampled (strides 2 and 3 onto 7 x 11, the input's last row
# unread, batch 2, two groups); 14 x 13 at stride 2 onto 7 x 7, transposed.
CASES["direct_1x1_strided_subsampled_relu_affine"] = _affine(dict(shape=[2, 128, 14, 31], w=[64, 64, 1, 1],
                                                                  strides=[2, 3], group=2), 64, [64, 1, 1])
CASES["direct_1x1_stride2_transposed_7x7_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[2, 40, 14, 13],
                                                                   w=[24, 40, 1, 1], strides=[2, 2])
# 1x1 in place on 14 x 14: the last tile 4 positions (1 vector summed, read from the tail copy)
CASES["flat_in_place_last_vector_silu"] = _conv_then(ACTIVATIONS["silu"], shape=[1, 32, 14, 14], w=[40, 32, 1, 1],
                                                     residual=True)
# An expanding 1x1 in place of more than MRVL_FLAT_CHANNEL_MAJOR_PLANES planes whose output
# (67 x 89 x 89 floats an image) outgrows MRVL_FLAT_CHANNEL_MAJOR_FLOATS: channel block after
# channel block, the last block 3 channels
CASES["flat_in_place_channel_major_residual_hard_swish"] = _conv_then(ACTIVATIONS["hard_swish"], shape=[2, 8, 89, 89],
                                                                      w=[67, 8, 1, 1], residual=True)
# 1x1 in place, tiles of one run stored from the registers: the residual, the clip and the LeakyRelu
CASES["flat_in_place_residual_clip_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 16, 24, 24],
                                                             w=[20, 16, 1, 1], residual=True, clip=True)
# ... and a HardSwish after the clip (its own copy of the loop; the clip first, as ONNX orders them)
CASES["flat_in_place_residual_clip_hard_swish"] = _conv_then(ACTIVATIONS["hard_swish"], shape=[1, 16, 24, 24],
                                                             w=[20, 16, 1, 1], residual=True, clip=True)
# 1x1 in place, deep enough for depth chunks (AVX2: 32 input channels at a time over groups of
# 16 blocks, from 128 channels on): 136 channels (a short last chunk), 18 blocks (a group of 2
# after one of 16), the last tile 23 positions from the tail copy in one pass; stored from the
# registers, and through the tile in memory for a scale and shift
CASES["flat_in_place_depth_chunks_residual_clip_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"],
                                                                          shape=[1, 136, 23, 25], w=[72, 136, 1, 1],
                                                                          residual=True, clip=True)
CASES["flat_in_place_depth_chunks_relu_affine"] = _affine(dict(shape=[2, 130, 14, 15], w=[40, 130, 1, 1]), 40,
                                                          [40, 1, 1])
# Strided convs with a kernel 1 wide along a dim: only phase 0 of that dim copied. A 1x1 at
# stride 2 (deep enough for depth chunks on AVX2, the last tile 8 positions), and a 1x3 at
# stride 2 (the rows' phase 0, both column phases)
CASES["flat_1x1_stride2_one_phase_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 128, 40, 44],
                                                             w=[40, 128, 1, 1], strides=[2, 2])
CASES["flat_1x3_stride2_row_phase_sigmoid"] = _conv_then(ACTIVATIONS["sigmoid"], shape=[2, 6, 21, 30],
                                                         w=[16, 6, 1, 3], strides=[2, 2], pads=[0, 1, 0, 1])
CASES["flat_relu_affine"] = _affine(CONVS["flat"], 19, [19, 1, 1])
CASES["flat_residual_clip_silu"] = _conv_then(ACTIVATIONS["silu"], residual=True, clip=True, **CONVS["flat"])
CASES["pointwise_relu_scale"] = _affine(CONVS["pointwise"], 35, [35, 1, 1], shift=False)
CASES["pointwise_sigmoid_affine"] = _affine(CONVS["pointwise"], 35, [35, 1, 1], act="Sigmoid")  # no clamp
CASES["flat_sigmoid_affine"] = _affine(CONVS["flat"], 19, [19, 1, 1], act="Sigmoid")
CASES["direct_sigmoid_affine"] = _affine(CONVS["direct"], 37, [37, 1, 1], act="Sigmoid")
CASES["depthwise_sigmoid_affine"] = _affine(CONVS["depthwise"], 6, [6, 1, 1], act="Sigmoid")
CASES["depthwise_relu_affine"] = _affine(CONVS["depthwise"], 6, [6, 1, 1])
# the epilogue (residual, activation, per-channel affine) every few planes: 48 planes of 144
CASES["depthwise_residual_affine_planes"] = _affine(dict(shape=[2, 24, 12, 12], w=[48, 1, 3, 3], pads=[1, 1, 1, 1],
                                                         group=24, residual=True), 48, [48, 1, 1], act="LeakyRelu")
# an activation that is no clamp, then the affine (each conv kernel's epilogue order)
for _conv in CONVS:
    CASES[f"{_conv}_leaky_relu_affine"] = _affine(CONVS[_conv], CONVS[_conv]["w"][0], [CONVS[_conv]["w"][0], 1, 1],
                                                  act="LeakyRelu")
_gelu = _conv_then([_n("Gelu", ["a"], ["y"])], **CONVS["pointwise"])
_gelu.opset_import[0].version = 20
CASES["pointwise_gelu"] = _gelu
CASES["direct_residual_clip_silu"] = _conv_then(ACTIVATIONS["silu"], residual=True, clip=True, **CONVS["direct"])
CASES["depthwise_residual_hard_swish"] = _conv_then(ACTIVATIONS["hard_swish"], residual=True, **CONVS["depthwise"])
CASES["depthwise_residual_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], residual=True, clip=True,
                                              **CONVS["depthwise"])
# a clamp alone: each row clamped as it is copied out of the grid (phases, rows, stride 2)
CASES["depthwise_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], clip=True, **CONVS["depthwise"])
CASES["depthwise_rows_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], clip=True, shape=[1, 5, 15, 16],
                                          w=[5, 1, 3, 3], pads=[1, 2, 1, 0], group=5)
CASES["depthwise_stride2_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], clip=True, shape=[2, 5, 40, 45],
                                             w=[5, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=5)
CASES["blocked_relu_affine"] = _affine(CONVS["blocked"], 20, [20, 1, 1])
CASES["blocked_residual_hard_swish"] = _conv_then(ACTIVATIONS["hard_swish"], residual=True, **CONVS["blocked"])
CASES["blocked_residual_clip_silu"] = _conv_then(ACTIVATIONS["silu"], residual=True, clip=True, **CONVS["blocked"])
# ResNet's blocks: the residual, the clamp (or none) and the transposed store in one pass.
CASES["direct_residual_relu"] = _conv_then([_n("Relu", ["a"], ["y"])], residual=True, **CONVS["direct"])
CASES["direct_residual"] = _conv_then([_n("Identity", ["a"], ["y"])], residual=True, **CONVS["direct"])

# The depthwise conv's two layouts (mrvl_kernels.c depthwise_layout), on planes smaller and
# larger than one tile of the flat grid, each large enough (or with a channel multiplier) that
# the channel-blocked kernel does not take it (host_kernels.py depthwise_is_blocked): "rows"
# (stride 1, output as large as the input: masked kernel columns; 3x3, 5x5 with a channel
# multiplier, dilated, a 3x7 kernel through the generic loop, a 1-D conv; stride 2 and 3, column
# phases, batch 2) and "phases" (an odd width or a wide plane at stride 2, stride 3 dilated,
# asymmetric and no padding, 1-D wide).
DEPTHWISE = {
    "rows_5x5_multiplier": dict(shape=[1, 4, 9, 13], w=[8, 1, 5, 5], pads=[2, 2, 2, 2], group=4),
    "rows_narrow_plane": dict(shape=[1, 5, 15, 16], w=[5, 1, 3, 3], pads=[1, 2, 1, 0], group=5),
    "rows_dilated": dict(shape=[1, 3, 17, 12], w=[3, 1, 3, 3], pads=[2, 2, 2, 2], dilations=[2, 2], group=3),
    "rows_3x7": dict(shape=[1, 5, 10, 21], w=[5, 1, 3, 7], pads=[1, 3, 1, 3], group=5),
    "rows_1d_multiplier": dict(shape=[1, 4, 29], w=[8, 1, 5], pads=[2, 2], group=4),
    "phases_1d_wide": dict(shape=[1, 3, 250], w=[3, 1, 3], pads=[1, 1], group=3),
    "rows_stride2": dict(shape=[2, 5, 140, 30], w=[5, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=5),
    "rows_stride2_5x5_uneven_pads": dict(shape=[1, 4, 11, 12], w=[8, 1, 5, 5], pads=[2, 1, 1, 2], strides=[2, 2],
                                         group=4),
    "rows_stride3": dict(shape=[1, 3, 150, 30], w=[3, 1, 3, 3], pads=[1, 1, 1, 1], strides=[3, 3], group=3),
    # its rows split in pairs of vectors, the last pair overlapping, the last float alone
    "phases_stride2_odd_width": dict(shape=[1, 5, 40, 45], w=[5, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2],
                                     group=5),
    "phases_stride2_wide": dict(shape=[1, 2, 60, 70], w=[2, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=2),
    "phases_stride2_5x5": dict(shape=[1, 6, 17, 17], w=[12, 1, 5, 5], pads=[2, 2, 2, 2], strides=[2, 2], group=6),
    "phases_valid": dict(shape=[1, 4, 20, 20], w=[4, 1, 3, 3], group=4),
    "phases_rows_of_100": dict(shape=[1, 3, 6, 100], w=[3, 1, 3, 3], pads=[1, 1, 1, 1], group=3),  # copied inline
    # stride 2 across, each input row split by column parity: the last column unread (2x2, pad
    # before only), stride 1 down, a depth dim
    "phases_stride2_last_column_unread": dict(shape=[1, 3, 110, 40], w=[3, 1, 2, 2], pads=[1, 1, 0, 0],
                                              strides=[2, 2], group=3),
    "phases_strides_1x2": dict(shape=[1, 3, 11, 40], w=[3, 1, 3, 3], pads=[1, 1, 1, 1], strides=[1, 2], group=3),
    "phases_stride2_3d": dict(shape=[1, 2, 4, 7, 37], w=[2, 1, 3, 3, 3], pads=[1, 1, 1, 1, 1, 1], strides=[1, 2, 2],
                              group=2),
    "phases_stride3_dilated": dict(shape=[1, 3, 220, 19], w=[3, 1, 3, 3], pads=[2, 1, 0, 2], strides=[3, 3],
                                   dilations=[2, 2], group=3),
}
for (_name, _attrs), _act in zip(DEPTHWISE.items(), itertools.cycle(ACTIVATIONS)):
    CASES[f"depthwise_{_name}_{_act}"] = _conv_then(ACTIVATIONS[_act], **_attrs)

# Stride 2 read in place (mrvl_kernels.c depthwise_pairs_rows) where the output rows are whole
# vectors or nearly (on every x86 target; 64 wide for AVX-512's 16 floats): an odd width (the
# last pair past the row's end) and height (a last row alone), batch 2, a 5x5 kernel with a
# channel multiplier, no padding before (a pad the generic loop takes), a ReLU6 clamped as
# rows are stored.
PAIRS = {
    "batch2": dict(shape=[2, 3, 34, 64], w=[3, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=3),
    "odd_width": dict(shape=[1, 4, 21, 95], w=[4, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=4),
    "5x5_multiplier": dict(shape=[1, 3, 19, 64], w=[6, 1, 5, 5], pads=[2, 2, 2, 2], strides=[2, 2], group=3),
    "pad_after": dict(shape=[1, 3, 16, 64], w=[3, 1, 3, 3], pads=[0, 0, 1, 1], strides=[2, 2], group=3),
}
for (_name, _attrs), _act in zip(PAIRS.items(), itertools.cycle(ACTIVATIONS)):
    CASES[f"depthwise_pairs_{_name}_{_act}"] = _conv_then(ACTIVATIONS[_act], **_attrs)
CASES["depthwise_pairs_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], clip=True, **PAIRS["batch2"])

# Small planes (mrvl_kernels.c depthwise_small_conv_f32: 3x3 padded by 1, contiguous output
# vectors, the last overlapping), from the flat kernel (planes of more than 10x10 outputs) and
# from the channel-blocked one (host_kernels.py depthwise_is_blocked): stride 1 on a plane
# narrower and one wider than a vector, batch 2; stride 2 split into parity phases through
# the plane's column halves (rows narrower than a pair of vectors on every target) and row by
# row (128 wide); a ReLU6 clamped as vectors are stored, alone and after a residual.
SMALL = {
    "9x23": dict(shape=[1, 6, 9, 23], w=[6, 1, 3, 3], pads=[1, 1, 1, 1], group=6),
    "stride2_wide": dict(shape=[1, 4, 12, 128], w=[4, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=4),
    "stride2_narrow": dict(shape=[2, 10, 40, 14], w=[10, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=10),
}
SMALL_BLOCKED = {
    "7x7_batch2": dict(shape=[2, 33, 7, 7], w=[33, 1, 3, 3], pads=[1, 1, 1, 1], group=33),
    "stride2": dict(shape=[2, 10, 14, 12], w=[10, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=10),
}
for (_name, _attrs), _act in zip(SMALL.items(), itertools.cycle(ACTIVATIONS)):
    CASES[f"depthwise_small_{_name}_{_act}"] = _conv_then(ACTIVATIONS[_act], **_attrs)
for (_name, _attrs), _act in zip(SMALL_BLOCKED.items(), itertools.cycle(ACTIVATIONS)):
    CASES[f"blocked_small_{_name}_{_act}"] = _conv_then(ACTIVATIONS[_act], **_attrs)
CASES["depthwise_small_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], clip=True, **SMALL["stride2_narrow"])
CASES["depthwise_small_residual_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], residual=True, clip=True,
                                                    **SMALL["9x23"])
CASES["blocked_small_residual_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], residual=True, clip=True,
                                                  **SMALL_BLOCKED["7x7_batch2"])

# The channel-blocked depthwise kernel (mrvl_kernels.c depthwise_blocked_layout): channel
# counts not a multiple of the block, 3x3 and 5x5 at strides 1, 2 and 3, even and odd widths,
# uneven, no and dilated padding (along the rows only: a row's loads still shared), the last
# column unread, a 3x7 kernel and 1-D convs through the generic loop, batch 2, planes
# transposed in and out in several batches and in one (7x7), planes narrower than a vector and a
# tile.
BLOCKED = {
    "7x7_batch2": dict(shape=[2, 33, 7, 7], w=[33, 1, 5, 5], pads=[2, 2, 2, 2], group=33),
    "5x5_many_batches": dict(shape=[1, 18, 20, 23], w=[18, 1, 5, 5], pads=[2, 2, 2, 2], group=18),
    "5x5_stride2_uneven_pads": dict(shape=[1, 17, 17, 16], w=[17, 1, 5, 5], pads=[2, 1, 1, 2], strides=[2, 2],
                                    group=17),
    "stride2_odd_width": dict(shape=[1, 24, 18, 17], w=[24, 1, 3, 3], pads=[1, 1, 1, 1], strides=[2, 2], group=24),
    "stride3": dict(shape=[1, 16, 13, 15], w=[16, 1, 3, 3], pads=[1, 1, 1, 1], strides=[3, 3], group=16),
    "dilated": dict(shape=[1, 16, 9, 10], w=[16, 1, 3, 3], pads=[2, 2, 2, 2], dilations=[2, 2], group=16),
    "dilated_rows": dict(shape=[1, 16, 11, 10], w=[16, 1, 5, 5], pads=[4, 2, 4, 2], dilations=[2, 1], group=16),
    "valid": dict(shape=[1, 7, 12, 12], w=[7, 1, 3, 3], group=7),
    "last_column_unread": dict(shape=[1, 3, 10, 40], w=[3, 1, 2, 2], pads=[1, 1, 0, 0], strides=[2, 2], group=3),
    "3x7": dict(shape=[1, 5, 6, 15], w=[5, 1, 3, 7], pads=[1, 3, 1, 3], group=5),
    "1d_5": dict(shape=[1, 20, 29], w=[20, 1, 5], pads=[2, 2], group=20),
    "1d_stride2": dict(shape=[1, 9, 70], w=[9, 1, 3], pads=[1, 1], strides=[2], group=9),
    "narrow_plane": dict(shape=[1, 19, 3, 2], w=[19, 1, 3, 3], pads=[1, 1, 1, 1], group=19),
}
for (_name, _attrs), _act in zip(BLOCKED.items(), itertools.cycle(ACTIVATIONS)):
    CASES[f"blocked_{_name}_{_act}"] = _conv_then(ACTIVATIONS[_act], **_attrs)
CASES["blocked_7x7_residual_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], residual=True, clip=True,
                                                **BLOCKED["7x7_batch2"])


def _with_slope(model: onnx.ModelProto, shape: list[int], name: str = "slope") -> onnx.ModelProto:
    """`model` with a constant PRelu slope `name` of `shape`: slopes in (-0.5, 1.5), as keras2onnx's
    MTCNN has them mostly in (0, 0.5), and any value is legal (negative, above 1)."""
    slope = np.random.default_rng(12).uniform(-0.5, 1.5, shape).astype(np.float32)
    model.graph.initializer.append(onnx.numpy_helper.from_array(slope, name))
    return model


def _conv_prelu(slope: list[int], after: list[onnx.NodeProto] = (), residual: bool = False, clip: bool = False,
                **conv) -> onnx.ModelProto:
    """Conv (+ residual Add, + Clip), PRelu by a constant slope of shape `slope`, then the `after`
    nodes (which read "p" and write "y")."""
    nodes = [_n("PRelu", ["a", "slope"], ["p" if after else "y"]), *after]
    return _with_slope(_conv_then(nodes, residual=residual, clip=clip, **conv), slope)


# A PRelu with a slope per output channel, fused into each conv kernel's epilogue (as keras2onnx
# writes it, (M, 1, 1); (1, M, 1, 1); a scalar), after a residual and a clamp, before a per-channel
# scale and shift; over groups (each group's channels from its own first), ragged and long last
# tiles, the flat conv in place, each depthwise layout, batch 2.
for _conv, _attrs in CONVS.items():
    CASES[f"{_conv}_prelu"] = _conv_prelu([_attrs["w"][0], 1, 1], **_attrs)
CASES["direct_residual_clip_prelu"] = _conv_prelu([37, 1, 1], residual=True, clip=True, **CONVS["direct"])
CASES["direct_grouped_narrow_prelu"] = _conv_prelu([1, 6, 1, 1], shape=[2, 64, 4, 4], w=[6, 32, 3, 3],
                                                   pads=[1, 1, 1, 1], group=2)
CASES["direct_deep_long_tiles_prelu"] = _conv_prelu([40, 1, 1], shape=[2, 48, 7, 7], w=[40, 48, 3, 3],
                                                    pads=[2, 2, 2, 2], dilations=[2, 2])
CASES["flat_scalar_prelu"] = _conv_prelu([1], **CONVS["flat"])
CASES["flat_grouped_residual_prelu"] = _conv_prelu([12, 1, 1], residual=True, shape=[2, 8, 12, 40], w=[12, 4, 3, 3],
                                                   group=2, pads=[1, 1, 1, 1])
CASES["flat_in_place_last_vector_prelu"] = _conv_prelu([40, 1, 1], shape=[1, 32, 14, 14], w=[40, 32, 1, 1])
CASES["pointwise_residual_prelu"] = _conv_prelu([1, 35, 1, 1], residual=True, **CONVS["pointwise"])
CASES["depthwise_residual_clip_prelu"] = _conv_prelu([6, 1, 1], residual=True, clip=True, **CONVS["depthwise"])
CASES["depthwise_rows_stride2_prelu"] = _conv_prelu([5, 1, 1], **DEPTHWISE["rows_stride2"])
CASES["depthwise_rows_5x5_multiplier_prelu"] = _conv_prelu([8, 1, 1], **DEPTHWISE["rows_5x5_multiplier"])
CASES["depthwise_phases_stride2_odd_width_prelu"] = _conv_prelu([5, 1, 1], **DEPTHWISE["phases_stride2_odd_width"])
CASES["depthwise_small_stride2_prelu"] = _conv_prelu([10, 1, 1], **SMALL["stride2_narrow"])
CASES["blocked_7x7_batch2_residual_prelu"] = _conv_prelu([33, 1, 1], residual=True, **BLOCKED["7x7_batch2"])
CASES["blocked_stride2_odd_width_prelu"] = _conv_prelu([1], **BLOCKED["stride2_odd_width"])
# the Winograd conv: pads on one side of each dim; blocks of tile rows over several slots
CASES["winograd_asymmetric_pads_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 32, 40, 37],
                                                          w=[64, 32, 3, 3], pads=[0, 1, 2, 0])
CASES["winograd_blocks_residual_clip_silu"] = _conv_then(ACTIVATIONS["silu"], residual=True, clip=True,
                                                         shape=[2, 32, 70, 70], w=[32, 32, 3, 3], pads=[1, 1, 1, 1])
CASES["winograd_no_pads_relu_affine"] = _affine(dict(shape=[1, 48, 11, 30], w=[33, 48, 3, 3]), 33, [33, 1, 1])
for _conv in ("direct", "flat", "depthwise", "blocked", "winograd"):
    _m = CONVS[_conv]["w"][0]
    CASES[f"{_conv}_prelu_affine"] = _conv_prelu([_m, 1, 1], [_n("Mul", ["p", "s"], ["q"]),
                                                              _n("Add", ["q", "t"], ["y"])], **CONVS[_conv])
    CASES[f"{_conv}_prelu_affine"].graph.initializer.extend(
        [_w("s", [_m, 1, 1], seed=3), _w("t", [1, _m, 1, 1], seed=4)])


def _fire(batch: int) -> onnx.ModelProto:
    """A SqueezeNet fire module (1x1 squeeze; 1x1 and 3x3 expand joined by Concat) whose concat
    goes in place (both kernels write their slices, a batch stride apart at batch 4: pointwise,
    flat, with a LeakyRelu), then a depthwise conv and a copying concat of a conv and a graph
    input."""
    nodes = [_n("Conv", ["x", "ws"], ["s"]), _n("Relu", ["s"], ["sr"]),
             _n("Conv", ["sr", "we1"], ["e1"]), _n("Conv", ["sr", "we3"], ["e3"], pads=[1, 1, 1, 1]),
             _n("LeakyRelu", ["e3"], ["e3r"], alpha=0.2), _n("Concat", ["e1", "e3r"], ["c"], axis=1),
             _n("Conv", ["c", "wd"], ["d"], pads=[1, 1, 1, 1], group=14), _n("Concat", ["d", "x"], ["y"], axis=1)]
    shape = [batch, 6, 9, 11]
    graph = helper.make_graph(nodes, "fire", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [_w("ws", [4, 6, 1, 1]), _w("we1", [5, 4, 1, 1], 2), _w("we3", [9, 4, 3, 3], 3),
                               _w("wd", [14, 1, 3, 3], 4)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _linear(act: list[onnx.NodeProto], shape: list[int], n: int, bias: list[int]) -> onnx.ModelProto:
    """MatMul by constant weights, Add of a constant bias (shape `bias`), then the `act` nodes
    (which read "a" and write "y"): one matmul with its bias and epilogue fused."""
    nodes = [_n("MatMul", ["x", "w"], ["m"]), _n("Add", ["m", "b"], ["a" if act else "y"]), *act]
    graph = helper.make_graph(nodes, "linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [_w("w", [shape[-1], n]), _w("b", bias, seed=2)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


LINEARS = {
    "matmul_bias": _linear([], [2, 9, 24], 37, [37]),
    "matmul_bias_row_relu": _linear([_n("Relu", ["a"], ["y"])], [1, 70, 33], 20, [1, 20]),
    "matmul_bias_clip": _linear([_n("Clip", ["a", "lo", "hi"], ["y"])], [5, 16], 8, [8]),
    "matmul_bias_silu": _linear(ACTIVATIONS["silu"], [1, 40, 32], 64, [64]),
    "matmul_bias_leaky_relu": _linear(ACTIVATIONS["leaky_relu"], [3, 4, 8], 5, [5]),
    "matmul_bias_hard_sigmoid": _linear(ACTIVATIONS["hard_sigmoid"], [6, 10], 12, [12]),
    # a dense layer's PRelu, its slope per column ((N), as keras2onnx's MTCNN; (1, N)), after a clamp
    "matmul_bias_prelu": _with_slope(_linear([_n("PRelu", ["a", "slope"], ["y"])], [3, 48], 37, [37]), [37]),
    "matmul_bias_clip_prelu": _with_slope(_linear([_n("Clip", ["a", "lo", "hi"], ["c"]),
                                                   _n("PRelu", ["c", "slope"], ["y"])], [2, 5, 16], 20, [20]),
                                          [1, 20]),
}
LINEARS["matmul_bias_clip_prelu"].graph.initializer.extend([onnx.numpy_helper.from_array(np.float32(-0.5), "lo"),
                                                            onnx.numpy_helper.from_array(np.float32(0.75), "hi")])
for _approximate in ("none", "tanh"):  # ONNX Gelu is opset 20
    _gelu = _linear([_n("Gelu", ["a"], ["y"], approximate=_approximate)], [2, 24, 40], 48, [48])
    _gelu.opset_import[0].version = 20
    LINEARS[f"matmul_bias_gelu_{_approximate}"] = _gelu
# GELU written out (PyTorch's export before opset 20), its 0.5 in each of three places
_SQRT2 = onnx.numpy_helper.from_array(np.float32(np.sqrt(2)), "sqrt2")
_CONSTANTS = [_SQRT2, onnx.numpy_helper.from_array(np.float32(1), "one"),
              onnx.numpy_helper.from_array(np.float32(0.5), "half")]
_ERF = [_n("Div", ["a", "sqrt2"], ["d"]), _n("Erf", ["d"], ["e"]), _n("Add", ["one", "e"], ["g"])]
ERF_GELUS = {
    "product_halved": [*_ERF, _n("Mul", ["a", "g"], ["p"]), _n("Mul", ["p", "half"], ["y"])],
    "x_halved": [_n("Mul", ["half", "a"], ["h"]), *_ERF, _n("Mul", ["h", "g"], ["y"])],
    "gate_halved": [*_ERF, _n("Mul", ["g", "half"], ["q"]), _n("Mul", ["a", "q"], ["y"])],
}
for _form, _nodes in ERF_GELUS.items():
    LINEARS[f"matmul_bias_erf_gelu_{_form}"] = _linear(_nodes, [1, 20, 24], 40, [40])
    LINEARS[f"matmul_bias_erf_gelu_{_form}"].graph.initializer.extend(_CONSTANTS)
LINEARS["matmul_bias_clip"].graph.initializer.extend([onnx.numpy_helper.from_array(np.float32(-0.5), "lo"),
                                                      onnx.numpy_helper.from_array(np.float32(0.75), "hi")])
CASES |= LINEARS

# a fully connected layer on 1 to 4 rows (gemm_dots, fewer than 16 columns: its weights are not
# packed): tiles of B's rows with a ragged last one, a depth with a tail past the vectors
for _rows, (_n_out, _depth) in {1: (15, 37), 2: (13, 100), 3: (11, 21), 4: (10, 64)}.items():
    CASES[f"gemm_dots_{_rows}_rows"] = single_op("Gemm", [("x", [_rows, _depth])], transB=1,
                                                 initializers=[_w("w", [_n_out, _depth]), _w("c", [_n_out], seed=2)])
# the same from a (K, N) B, which plan-host-memory stores transposed: a Gemm without transB, a
# MatMul of a vector and of 1, 2 (a batch of 1-row matrices, stacked) and 4 rows with its bias
# and Relu fused
CASES["gemm_dots_b_transposed"] = single_op("Gemm", [("x", [3, 45])],
                                            initializers=[_w("w", [45, 70]), _w("c", [70], seed=2)])
CASES["matmul_dots_vector"] = single_op("MatMul", [("x", [50])], initializers=[_w("w", [50, 33])])
for _rows, _shape in {1: [1, 1, 40], 2: [2, 1, 33], 4: [1, 4, 100]}.items():
    CASES[f"matmul_dots_{_rows}_rows"] = _linear([_n("Relu", ["a"], ["y"])], _shape, 70, [70])

# weights packed at compile time: few rows by column tiles (5, 7, 13 and 14 rows: each tile
# height of every target, a short last row tile), a ragged last panel, a depth past
# MRVL_GEMM_KC with a ragged block; more rows than MRVL_GEMM_MC in blocks; A transposed (packed
# at run time)
for _rows in (5, 7, 13, 14):
    CASES[f"gemm_packed_rows_{_rows}"] = single_op("Gemm", [("x", [_rows, 300])], transB=1,
                                                   initializers=[_w("w", [70, 300]), _w("c", [70], seed=2)])
CASES["gemm_packed_tall"] = single_op("Gemm", [("x", [100, 40])], initializers=[_w("w", [40, 50]), _w("c", [50], 2)])
CASES["gemm_packed_trans_a"] = single_op("Gemm", [("x", [30, 7])], transA=1, alpha=0.5, beta=2.0,
                                         initializers=[_w("w", [30, 33]), _w("c", [7, 33], seed=2)])

# transposes in blocks: ragged blocks, the contiguous dim in the middle or first
CASES["transpose_heads"] = single_op("Transpose", [("x", [2, 37, 5, 19])], perm=[0, 2, 3, 1])
CASES["transpose_matrix"] = single_op("Transpose", [("x", [45, 33])], perm=[1, 0])
# 4 x 4 tiles through registers, H and W merged into one dim, ragged on both sides of a block
CASES["transpose_nhwc_to_nchw"] = single_op("Transpose", [("x", [1, 9, 10, 23])], perm=[0, 3, 1, 2])
CASES["transpose_nchw_to_nhwc"] = single_op("Transpose", [("x", [2, 18, 3, 7])], perm=[0, 2, 3, 1])

# 2-D transposed convs by output rows (phase rows, one store per output): overlapping taps
# cropped by padding, stride = kernel, strides 2x3 with dilation and output_padding, groups, 1-d
CASES["conv_transpose_k4s2_pad"] = single_op("ConvTranspose", [("x", [1, 6, 9, 11])], strides=[2, 2], pads=[1, 1, 1, 1],
                                             initializers=[_w("w", [6, 5, 4, 4]), _w("b", [5], 2)])
CASES["conv_transpose_k2s2_odd"] = single_op("ConvTranspose", [("x", [2, 8, 7, 5])], strides=[2, 2], pads=[0, 0, 0, 1],
                                             initializers=[_w("w", [8, 4, 2, 2])])
CASES["conv_transpose_s2x3_dilated"] = single_op("ConvTranspose", [("x", [1, 3, 5, 6])], strides=[2, 3],
                                                 dilations=[2, 1], output_padding=[1, 2],
                                                 initializers=[_w("w", [3, 4, 3, 2]), _w("b", [4], 2)])
CASES["conv_transpose_grouped"] = single_op("ConvTranspose", [("x", [1, 4, 6, 6])], group=2, pads=[1, 0, 1, 2],
                                            initializers=[_w("w", [4, 3, 3, 3]), _w("b", [6], 2)])
CASES["conv_transpose_1d"] = single_op("ConvTranspose", [("x", [1, 5, 17])], strides=[3], pads=[2, 1],
                                       initializers=[_w("w", [5, 2, 5])])


def _conv_transpose_then(x: list[int], w: list[int], after: list[str], bias: bool = True,
                         channels_last: bool = False, **attrs) -> onnx.ModelProto:
    """A transposed conv with a bias (or none), then a BatchNormalization ("bn") and/or
    activations, which fuse into it (a PRelu reads a constant "slope", which the caller adds).
    With `channels_last`, the input x (N, C, spatial...) is given channels last and the model
    transposes it to NCHW and its result back, as around host glue between MLIP calls: the
    transposes cancel and the transposed conv runs channels-last."""
    m, rank = w[1] * attrs.get("group", 1), len(x)
    first, inits = "x", [_w("w", w), *([_w("b", [m], 2)] if bias else [])]
    nodes = []
    if channels_last:
        nodes.append(helper.make_node("Transpose", ["x"], ["x_nchw"], perm=[0, rank - 1, *range(1, rank - 1)]))
        first, x = "x_nchw", [x[0], *x[2:], x[1]]
    nodes.append(helper.make_node("ConvTranspose", [first, "w", *(["b"] if bias else [])], ["t"], **attrs))
    last = "t"
    for i, op in enumerate(after):
        out = f"a{i}"
        if op == "bn":
            stats = [onnx.numpy_helper.from_array(np.random.default_rng(10 + j).uniform(0.5, 1.5, m).astype(np.float32),
                                                  f"bn{j}") for j in range(4)]
            inits += stats
            nodes.append(helper.make_node("BatchNormalization", [last, *(t.name for t in stats)], [out]))
        else:
            nodes.append(helper.make_node(op, [last, "slope"] if op == "PRelu" else [last], [out]))
        last = out
    if channels_last:
        nodes.append(helper.make_node("Transpose", [last], ["nhwc"], perm=[0, *range(2, rank), 1]))
    nodes[-1].output[0] = "y"
    graph = helper.make_graph(nodes, "conv_transpose_then", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


# a batch norm (per group's output channels), a Relu and a Sigmoid fused into transposed convs
CASES["conv_transpose_bn_relu_grouped"] = _conv_transpose_then([1, 6, 7, 9], [6, 2, 2, 2], ["bn", "Relu"], group=3,
                                                               strides=[2, 2])
CASES["conv_transpose_3d_sigmoid"] = _conv_transpose_then([1, 3, 3, 4, 5], [3, 2, 2, 3, 3], ["Sigmoid"],
                                                          strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1])
# a PRelu per output channel fused into transposed convs: by output rows, grouped (each group's
# channels from its own first), and tap by tap (3-d)
for _name, (_x, _w_shape, _attrs) in {
        "grouped": ([1, 6, 7, 9], [6, 2, 2, 2], dict(group=3, strides=[2, 2])),
        "3d": ([1, 3, 3, 4, 5], [3, 2, 2, 3, 3], dict(group=1, strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1]))}.items():
    CASES[f"conv_transpose_{_name}_prelu"] = _conv_transpose_then(_x, _w_shape, ["bn", "PRelu"], **_attrs)
    _with_slope(CASES[f"conv_transpose_{_name}_prelu"], [_w_shape[1] * _attrs["group"], 1, 1] + [1] * (len(_x) - 4))

# channels-last transposed convs (mrvl_conv_transpose_nhwc_f32), each between the model's own
# transposes from and to NHWC: a GEMM per tap and input row, added into every stride-th output
# (over 4 output channels a group), or dot products (up to 4: a DB head's probability map);
# overlapping taps cropped by padding, stride = kernel over two images without a bias, strides
# 2x3 with dilation and output_padding, groups, 1-d and 3-d, more output channels than a GEMM
# tile; a batch norm, clamp, activation and PRelu folded in
NHWC_CONV_TRANSPOSES = {
    "k4s2_pad": ([1, 6, 9, 11], [6, 5, 4, 4], [], dict(strides=[2, 2], pads=[1, 1, 1, 1])),
    "k2s2_batch2_no_bias": ([2, 8, 7, 5], [8, 6, 2, 2], [], dict(bias=False, strides=[2, 2], pads=[0, 0, 0, 1])),
    "s2x3_dilated": ([1, 3, 5, 6], [3, 4, 3, 2], [], dict(strides=[2, 3], dilations=[2, 1], output_padding=[1, 2])),
    "grouped_bn_relu": ([1, 6, 7, 9], [6, 2, 2, 2], ["bn", "Relu"], dict(group=3, strides=[2, 2])),
    "grouped_pad": ([1, 4, 6, 6], [4, 6, 3, 3], [], dict(group=2, pads=[1, 0, 1, 2])),
    "1d": ([1, 5, 17], [5, 2, 5], [], dict(strides=[3], pads=[2, 1])),
    "3d_sigmoid": ([1, 3, 3, 4, 5], [3, 5, 2, 3, 3], ["Sigmoid"], dict(strides=[1, 2, 2], pads=[0, 1, 1, 0, 1, 1])),
    "wide_bn_relu": ([1, 24, 5, 40], [24, 40, 2, 2], ["bn", "Relu"], dict(strides=[2, 2])),
    "one_channel_sigmoid": ([1, 16, 9, 13], [16, 1, 2, 2], ["Sigmoid"], dict(strides=[2, 2])),
    "two_channels_grouped": ([2, 6, 5, 7], [6, 2, 3, 3], [], dict(group=2, strides=[2, 2], pads=[1, 1, 1, 1])),
    "grouped_prelu": ([1, 6, 7, 9], [6, 2, 2, 2], ["bn", "PRelu"], dict(group=3, strides=[2, 2])),
}
for _name, (_x, _w_shape, _after, _attrs) in NHWC_CONV_TRANSPOSES.items():
    CASES[f"conv_transpose_nhwc_{_name}"] = _conv_transpose_then(_x, _w_shape, _after, channels_last=True, **_attrs)
    if "PRelu" in _after:
        _with_slope(CASES[f"conv_transpose_nhwc_{_name}"], [_w_shape[1] * _attrs["group"], 1, 1])

# linear resize: input rows interpolated once along a block of output columns, kept for the
# next output rows; 300 output columns take two blocks; upsampling (rows shared), downsampling
# (none shared), align_corners
def _resize(shape: list[int], scales: list[float], **attrs) -> onnx.ModelProto:
    return single_op("Resize", [("x", shape)], initializers=[
        onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
        onnx.numpy_helper.from_array(np.array(scales, np.float32), "sc")], mode="linear", **attrs)


CASES["resize_linear_up_two_blocks"] = _resize([1, 2, 5, 150], [1, 1, 4, 2])
# nearest resize: an upsampled row copied from the row before (also across channels upsampled:
# a plane's first row repeats the last plane's when both read one source plane), in two
# column blocks, their columns doubled by shuffles and a tail; downsampling, where no row repeats
for _name, (_shape, _scales) in {"up_two_blocks": ([1, 2, 5, 150], [1, 1, 2, 2]),
                                 "up_channels": ([1, 2, 3, 4], [1, 2, 3, 1]),
                                 "down": ([2, 3, 17, 23], [1, 1, 0.5, 0.6])}.items():
    CASES[f"resize_nearest_{_name}"] = single_op("Resize", [("x", _shape)], initializers=[
        onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
        onnx.numpy_helper.from_array(np.array(_scales, np.float32), "sc")], mode="nearest",
        coordinate_transformation_mode="asymmetric", nearest_mode="floor")
# a 2x nearest upsample in ONNX's default modes (half_pixel, round_prefer_floor) doubles its
# columns too: 26 of them, three shuffled runs of 8 and a tail of 2
CASES["resize_nearest_up_half_pixel"] = single_op("Resize", [("x", [1, 3, 4, 13])], initializers=[
    onnx.numpy_helper.from_array(np.zeros(0, np.float32), "roi"),
    onnx.numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "sc")], mode="nearest")
CASES["resize_linear_down"] = _resize([2, 3, 17, 23], [1, 1, 0.6, 0.5])
CASES["resize_linear_align_corners"] = _resize([1, 2, 6, 7], [1, 1, 2.5, 3],
                                               coordinate_transformation_mode="align_corners")
# rows reduced in 16 lanes and a tail
CASES["softmax_last_axis"] = single_op("Softmax", [("x", [3, 5, 37])], axis=-1)
# short rows (a DFL's bins held innermost): a vector of rows at a time through a transposed tile,
# and the rows left over one by one
CASES["softmax_short_rows"] = single_op("Softmax", [("x", [37, 16])], axis=-1)
# a channel softmax (segmentation heads, YOLOv8's DFL): columns of positions in vectors, and a tail
CASES["softmax_channels"] = single_op("Softmax", [("x", [2, 7, 5, 9])], axis=1)
CASES["layer_norm_rows"] = single_op("LayerNormalization", [("x", [6, 53])], initializers=[_w("s", [53]), _w("b", [53])],
                                     axis=-1)

# tanh without libm (standard normal inputs take both of its branches: |x| < 0.3 and above).
CASES["tanh"] = single_op("Tanh", [("x", [3, 7, 41])])
CASES["exp"] = single_op("Exp", [("x", [3, 7, 41])])
# erf without libm, alone and in the erf-form GELU (a unary op of its own, not an epilogue),
# each in its own loop (standard normal inputs, doubled, take both branches: |x| < 1 and above)
CASES["erf"] = single_op("Erf", [("x", [3, 7, 41])])
_erf_gelu = helper.make_graph([_n("Add", ["x", "x"], ["a"]), *ERF_GELUS["product_halved"]], "erf_gelu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 300])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], _CONSTANTS)
CASES["erf_gelu"] = helper.make_model(_erf_gelu, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)

def _stem(x: list[int], w: list[int], weights_input: bool = False, **attrs) -> onnx.ModelProto:
    """One conv with a bias (its weights a graph input with `weights_input`: packed at run time)."""
    inputs = [("x", x), ("w", w)] if weights_input else [("x", x)]
    inits = [_w("b", [w[0]], seed=2)] if weights_input else [_w("w", w), _w("b", [w[0]], seed=2)]
    return single_op("Conv", inputs, initializers=inits, **attrs)


# The flat conv's geometry: stride phases, dilation, groups, 1-d and 3-d, weights packed at run time.
CASES["stem_stride2"] = _stem([1, 3, 17, 61], [16, 3, 3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
CASES["stem_stride3_dilated"] = _stem([1, 2, 19, 71], [16, 2, 3, 5], strides=[3, 2], dilations=[2, 3],
                                      pads=[2, 1, 0, 3])
CASES["stem_grouped"] = _stem([2, 8, 12, 40], [12, 4, 3, 3], group=2, pads=[1, 1, 1, 1])
CASES["stem_1d"] = _stem([1, 4, 200], [6, 4, 5], pads=[2, 2])
CASES["stem_3d"] = _stem([1, 2, 5, 8, 20], [4, 2, 3, 3, 3], pads=[1, 1, 1, 1, 1, 1])
# A kernel 1 wide leaves no junk columns: a run of outputs goes on past its row (6x6 planes of
# SqueezeNet's expand convs at batch 4; strided).
CASES["stem_1x1_small_planes"] = _stem([4, 48, 6, 6], [192, 48, 1, 1])
# A 1x1 conv with stride 1 reads its input in place; the last tile reads a copy of the tail.
CASES["stem_1x1_in_place_residual_relu"] = _conv_then([_n("Relu", ["a"], ["y"])], shape=[2, 10, 9, 23],
                                                      w=[21, 10, 1, 1], residual=True)
CASES["stem_1x1_in_place_grouped"] = _stem([2, 8, 10, 11], [12, 4, 1, 1], group=2)
CASES["stem_1x1_strided"] = _stem([1, 4, 30, 41], [24, 4, 1, 1], strides=[2, 2])
# Rows wider than a tile: tiles that are one run of outputs are clamped as they are stored.
CASES["stem_wide_rows_clip"] = _conv_then([_n("Identity", ["a"], ["y"])], shape=[2, 3, 9, 100], w=[19, 3, 3, 3],
                                          clip=True, pads=[1, 1, 1, 1])
CASES["stem_runtime_weights"] = _stem([1, 3, 20, 30], [16, 3, 3, 3], weights_input=True, strides=[2, 2],
                                      pads=[1, 1, 1, 1])
# Convs of stride 1 whose output is their input's size, of a group's input over
# MRVL_FLAT_ROWS_FLOATS, read it in place by rows: the first and the last tiles from copies, the
# lanes whose kernel columns reach across a row's end masked. Tiles of one run stored from the
# registers with their masks (a residual, a LeakyRelu; the last tile 2 vectors on AVX2); a kernel
# 5 wide dilated, its pads uneven (3 left, 5 right), a SiLU after (the tiles' sums stored first;
# the last tile 1 vector on AVX2); a smaller input, copied. Kernels 5 tall, where 3x3 ones would
# take the Winograd conv.
CASES["stem_rows_residual_leaky_relu"] = _conv_then(ACTIVATIONS["leaky_relu"], shape=[1, 3, 420, 421],
                                                    w=[9, 3, 5, 3], residual=True, pads=[2, 1, 2, 1])
CASES["stem_rows_dilated_uneven_pads_silu"] = _conv_then(ACTIVATIONS["silu"], shape=[1, 8, 256, 257],
                                                         w=[5, 8, 3, 5], dilations=[1, 2], pads=[1, 3, 1, 5])
CASES["stem_rows_input_too_small"] = _stem([1, 8, 256, 255], [5, 8, 5, 3], pads=[2, 1, 2, 1])
# A shallow stem of many planes whose output over its images outgrows the caches: channel
# block after channel block on x86 (MRVL_FLAT_CHANNEL_MAJOR_STEM_DEPTH), stride 2, a ReLU
CASES["stem_channel_major_batch2"] = _conv_then([_n("Relu", ["a"], ["y"])], shape=[2, 3, 129, 143],
                                                w=[64, 3, 3, 3], strides=[2, 2])

def _two_convs_joined(x: list[int], first: list[int], second: list[int]) -> onnx.ModelProto:
    """Two padded convs of x (their weights shaped `first` and `second`) joined along the channels, then a Relu."""
    nodes = [_n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             _n("Conv", ["x", "w2"], ["c2"], pads=[1, 1, 1, 1]), _n("Concat", ["c1", "c2"], ["j"], axis=1),
             _n("Relu", ["j"], ["y"])]  # (a concat that is the model's output is copied)
    graph = helper.make_graph(nodes, "joined", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [_w("w1", first), _w("b1", [first[0]], 2), _w("w2", second, 3)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


CASES["concat_in_place_flat_batch2"] = _two_convs_joined([2, 3, 12, 40], [8, 3, 3, 3], [16, 3, 3, 3])
CASES["concat_in_place_fire"] = _fire(1)
CASES["concat_in_place_fire_batch4"] = _fire(4)


def _mtcnn() -> onnx.ModelProto:
    """MTCNN's P-Net body as keras2onnx exports it (3x3 convs 3 -> 10 -> 16 -> 32, a PRelu after
    each, its slope (10, 1, 1), (1, 16, 1, 1) and a scalar; a 2x2 max pool after the first),
    then R-Net's dense layer (MatMul, Add, PRelu with a slope (32)) on the flattened output."""
    nodes = [_n("Conv", ["x", "w1", "b1"], ["c1"]), _n("PRelu", ["c1", "a1"], ["p1"]),
             _n("MaxPool", ["p1"], ["m1"], kernel_shape=[2, 2], strides=[2, 2]),
             _n("Conv", ["m1", "w2", "b2"], ["c2"]), _n("PRelu", ["c2", "a2"], ["p2"]),
             _n("Conv", ["p2", "w3", "b3"], ["c3"]), _n("PRelu", ["c3", "a3"], ["p3"]),
             _n("Flatten", ["p3"], ["f"]), _n("MatMul", ["f", "w4"], ["d"]), _n("Add", ["d", "b4"], ["e"]),
             _n("PRelu", ["e", "a4"], ["y"])]
    rng = np.random.default_rng(13)
    slopes = [onnx.numpy_helper.from_array(rng.uniform(0.0, 0.5, shape).astype(np.float32), name)
              for name, shape in (("a1", [10, 1, 1]), ("a2", [1, 16, 1, 1]), ("a3", [1]), ("a4", [32]))]
    graph = helper.make_graph(nodes, "mtcnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [_w("w1", [10, 3, 3, 3]), _w("b1", [10], 2), _w("w2", [16, 10, 3, 3], 3),
                               _w("b2", [16], 4), _w("w3", [32, 16, 3, 3], 5), _w("b3", [32], 6),
                               _w("w4", [32 * 3 * 3, 32], 7), _w("b4", [32], 8), *slopes])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


CASES["mtcnn_pnet"] = _mtcnn()
del _n
"""Single ops (and chains) whose kernels take the fast paths, by name."""


@pytest.mark.parametrize("name", [n for n in CASES if n.split("_")[0] in CONVS])
def test_activations_fuse_into_the_conv(name: str, c_workdir: Path) -> None:
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    assert text.count("static int op_") == 1, "the epilogue was not fused into the conv"
    if "affine" in name or "scale" in name:
        assert "p.scale = x" in text and ("p.shift = x" in text) == ("affine" in name)
    elif name.startswith("depthwise") and name.endswith("_clip") and "residual" not in name:  # a clamp alone
        assert ".clamp = 1" in text and ".activation" not in text
    elif name in ("direct_residual", "direct_residual_relu", "depthwise_residual_clip",
                  "blocked_7x7_residual_clip", "depthwise_small_residual_clip",
                  "blocked_small_residual_clip"):  # no activation
        assert "x2, x3, y0" in text and (".clamp = 1" in text) == name.endswith(("relu", "clip"))
    else:
        assert ".activation = MRVL_EPILOGUE_" in text


# Every case runs in each build (native, baseline ISA, sanitizers, aarch64) `merged` into one
# model per opset: gcc compiles each kernel once for all of them, where a build per case took
# it a second or so each. Alone, in a model of its own (where gcc may inline the kernel into
# its one call), each case is a slow test, to tell which one fails.
@pytest.mark.parametrize("native", [pytest.param(False, marks=pytest.mark.slow), True],  # suite time: AVX2 and
                         ids=["baseline", "native"])  # aarch64 (test_cross_compile) stay
def test_fast_paths_match_onnxruntime(native: bool, c_workdir: Path) -> None:
    check_together(CASES, c_workdir, {name: random_inputs(model, 7) for name, model in CASES.items()}, native)


# The largest function a build of every fast path may hold: a forced unroll (MRVL_UNROLL) over a
# loop of unknown count once made one 2.2 MB of code, and gcc took 70 s a build that held it.
FUNCTION_BYTES = 128 * 1024


@pytest.mark.skipif(GCC is None, reason="needs gcc")
def test_no_kernel_function_is_huge(c_workdir: Path) -> None:
    """The native build of every case (test_fast_paths_match_onnxruntime's), function by function."""
    for group, model in merged(CASES).items():
        library = compile_model(model, c_workdir, name=f"{group}_native", native=True).library
        listing = subprocess.run(["nm", "--size-sort", "-S", "--defined-only", str(library)], capture_output=True,
                                 text=True, check=True).stdout
        sizes = {fields[3]: int(fields[1], 16) for fields in (line.split() for line in listing.splitlines())
                 if len(fields) == 4 and fields[2] in "tT"}
        name, size = max(sizes.items(), key=lambda item: item[1])
        assert size <= FUNCTION_BYTES, f"{name} is {size} bytes of code in {library.name}"


@pytest.mark.slow
@pytest.mark.parametrize("native", [False, True], ids=["baseline", "native"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_path_alone_matches_onnxruntime(name: str, native: bool, c_workdir: Path) -> None:
    model = CASES[name]
    check(model, c_workdir, random_inputs(model, 7), name="native" if native else "m", native=native)


def _program_outputs(tmp_path: Path, c_workdir: Path, suffix: str, flags: list[str], compiler: str | None,
                     launcher: list[str] | None = (), env: dict[str, str] | None = None) -> None:
    """Every case, `merged`, linked into one program and run once; each matches onnxruntime."""
    built = [Bundle(emit_model(model, c_workdir, name=f"{group}_{suffix}"), f"{group}_{suffix}")
             for group, model in merged(CASES).items()]
    inputs = {name: random_inputs(model, 3) for name, model in CASES.items()}
    program = build_program(built, tmp_path, flags, compiler=compiler)
    if launcher is None:
        pytest.skip("built; qemu-aarch64 is not installed to run it")
    outputs = run_program(program, built, [merged_inputs(inputs)] * len(built), env=env, launcher=launcher)
    assert_cases_close(CASES, inputs, {name: value for b, values in zip(built, outputs, strict=True)
                                       for name, value in b.by_name(values).items()})


@pytest.mark.slow  # suite time; the int8 kernels' sanitizer build (test_qlinear_conv_kernels) stays in the suite
def test_fast_paths_are_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    _program_outputs(tmp_path, c_workdir, "asan", SANITIZE, GCC, env=env)


def _runs_avx2() -> bool:
    """Whether this machine runs x86-64-v3 code (AVX2 and FMA)."""
    if platform.machine() != "x86_64":
        return False
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return all(re.search(rf"^flags\s*:.*\b{flag}\b", flags, re.M) for flag in ("avx2", "fma", "bmi2", "movbe"))


@pytest.mark.skipif(not _runs_avx2(), reason="needs an x86-64 machine with AVX2 and FMA")
def test_fast_paths_match_onnxruntime_on_avx2(c_workdir: Path, tmp_path: Path) -> None:
    """Every case built for an AVX2 machine (ARCH_FLAGS=-march=x86-64-v3: the kernels' __AVX__
    tiles, 8-float vectors in 16 registers), which neither the baseline build nor -march=native
    on an AVX-512 machine compiles."""
    _program_outputs(tmp_path, c_workdir, "avx2", ["-march=x86-64-v3"], GCC)


@pytest.mark.slow  # suite time; the AArch64 zoo program (test_cross_compile) reads the copies in the fast suite
def test_depthwise_column_copies_match_onnxruntime(c_workdir: Path, tmp_path: Path) -> None:
    """Every case built with the rows layout's column copies (MRVL_DEPTHWISE_COLUMN_COPIES, by
    default AArch64's only): the rows cases of enough channels read the copies, the others
    still mask."""
    _program_outputs(tmp_path, c_workdir, "copies", ["-DMRVL_DEPTHWISE_COLUMN_COPIES=1"], GCC)


@pytest.mark.slow  # the AArch64 zoo program (test_cross_compile) runs the same kernels in the fast suite
@pytest.mark.skipif(CROSS_CC is None, reason="needs aarch64-linux-gnu-gcc")
def test_fast_paths_run_on_aarch64(c_workdir: Path, tmp_path: Path) -> None:
    _program_outputs(tmp_path, c_workdir, "arm", [*TARGET_FLAGS, "-static"], CROSS_CC,
                     launcher=[QEMU] if QEMU else None)


KERNELS = {"direct": "mrvl_conv_f32", "flat": "mrvl_flat_conv_f32", "pointwise": "mrvl_pointwise_conv_f32",
           "winograd": "mrvl_winograd_conv_f32",
           "depthwise": "mrvl_depthwise_conv_f32", "blocked": "mrvl_depthwise_blocked_conv_f32",
           "stem": "mrvl_flat_conv_f32"}


@pytest.mark.parametrize("name", [n for n in CASES if n.split("_")[0] in KERNELS])
def test_each_conv_takes_its_kernel(name: str, c_workdir: Path) -> None:
    """The cases named after a conv kernel run on it (host_kernels.conv_path's cost model)."""
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    assert f"{KERNELS[name.split('_')[0]]}(&p" in text


STEMS = [n for n in CASES if n.startswith("stem_")]


def _conv_params(text: str) -> str:
    return re.search(r"static const mrvl_conv_params p = \{.*?\};", text, re.S).group(0)


@pytest.fixture(scope="module")
def flat_scratch(c_workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, int, int, int]]:
    """For each STEMS case, mrvl_kernels.c's flat_scratch_floats of its conv, MRVL_FLAT_TILE, the
    tiles the conv keeps in place and whether it reads its input in place by rows: one program
    (the kernels built once) prints them all."""
    blocks, out = [], None
    for name in STEMS:
        out = emit_model(CASES[name], c_workdir)
        blocks.append("{\n" + _conv_params((out / "m.c").read_text()) + "\n"
                      "int64_t q[MRVL_SPATIAL], phases, floats;\nflat_layout(&p, q, &phases, &floats);\n"
                      'printf("%lld %d %lld %d\\n", (long long)flat_scratch_floats(&p), MRVL_FLAT_TILE,\n'
                      "       (long long)(flat_rows_fit(&p) ? 4 * p.c / p.group + 1\n"
                      "                   : flat_in_place(&p, q) ? 2 * p.c / p.group : 1),\n"
                      "       flat_rows_in_place(&p));\n}\n")
    folder = tmp_path_factory.mktemp("flat_scratch")
    (folder / "main.c").write_text('#include <stdio.h>\n#include "mrvl_kernels.c"\nint main(void)\n{\n'
                                   + "".join(blocks) + "}\n")
    gcc(["-std=c99", "-w", f"-I{out}", "main.c", "-o", "main", "-lm"], folder)
    lines = subprocess.run([str(folder / "main")], capture_output=True, text=True, check=True).stdout.splitlines()
    return {name: tuple(map(int, line.split())) for name, line in zip(STEMS, lines, strict=True)}


@pytest.mark.parametrize("name", STEMS)
def test_flat_scratch_is_what_the_kernel_takes(name: str, c_workdir: Path, flat_scratch) -> None:
    """plan-host-memory's scratch for a flat conv (host_kernels.py) is flat_scratch_floats of
    mrvl_kernels.c with the widest vectors' tile (more on this machine's narrower ones: a tile
    per input channel twice in place, one more and four a channel where it can read in place by
    rows), plus the weights it packs at run time."""
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    planned = int(re.search(r"scratch \((\d+) bytes\)", text).group(1))
    packing = int(m.group(1)) if (m := re.search(r"scratch \+ (\d+)\)", text)) else 0
    floats, tile, tiles, _ = flat_scratch[name]
    assert planned == 4 * (packing + floats + (kernel_macro("FLAT_TILE") - tile) * tiles)


def test_flat_rows_cases_read_in_place_by_rows(flat_scratch) -> None:
    """The stem_rows cases take the rows layout (flat_rows_in_place), but the input too small."""
    rows = {name: flat_scratch[name][3] for name in STEMS if name.startswith("stem_rows_")}
    assert rows == {name: int(name != "stem_rows_input_too_small") for name in rows}


def test_the_row_limit_is_where_the_kernel_says(c_workdir: Path) -> None:
    """max_wide_row is wider than MRVL_POOL_ROW, so it checks the bounds-checked loop."""
    source = (emit_model(CASES["max_wide_row"], c_workdir) / "mrvl_kernels_pool.c").read_text()
    limit = int(source.split("#define MRVL_POOL_ROW ")[1].split()[0])
    assert 4200 // 2 > limit and 17 < limit


def test_conv_transpose_dot_limits_are_the_kernels() -> None:
    """plan-host-memory sizes the channels-last transposed conv's packed weights (dot products
    or GEMM panels) by the limits the kernel decides by."""
    source = (RUNTIME_DIR / "mrvl_kernels_conv_transpose.c").read_text()
    defined = dict(re.findall(r"#define MRVL_CONV_TRANSPOSE_(DOT_\w+) (\d+)", source))
    assert int(defined["DOT_CHANNELS"]) == CONV_TRANSPOSE_DOT_CHANNELS
    assert int(defined["DOT_FLOATS"]) == CONV_TRANSPOSE_DOT_FLOATS


@pytest.mark.parametrize("name", sorted(LINEARS))
def test_bias_and_activation_fuse_into_the_matmul(name: str, c_workdir: Path) -> None:
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    assert text.count("static int op_") == 1, "the bias and epilogue were not fused into the matmul"
    call = next(line for line in text.splitlines() if "mrvl_matmul_f32(&p" in line)
    assert call.split(", ")[3] != "NULL", "the matmul has no bias"
    assert (".clamp = 1" in text or ".activation = MRVL_EPILOGUE_" in text) == (name != "matmul_bias")


@pytest.mark.parametrize("name", ["gemm_dots_b_transposed", *(n for n in CASES if n.startswith("matmul_dots_"))])
def test_few_rows_dot_b_transposed(name: str, c_workdir: Path) -> None:
    """A product of at most MRVL_GEMM_DOT_ROWS rows with a (K, N) constant B reads B's
    transpose, stored so at compile time, not packed panels."""
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    transposed = ".transposed_b = 1" if "mrvl_matmul_f32(&p" in text else ".trans_b = 1,"
    assert transposed in text and ".packed_b = 0" in text


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("conv_transpose_nhwc_")])
def test_transposed_conv_between_nhwc_transposes_runs_channels_last(name: str, c_workdir: Path) -> None:
    """The model's transposes around the transposed conv cancel: it is one channels-last kernel
    call, its batch norm and activations folded in."""
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    assert text.count("static int op_") == 1 and "mrvl_conv_transpose_nhwc_f32(&p" in text


@pytest.mark.parametrize("name", [n for n in CASES if "prelu" in n])
def test_prelu_fuses_with_its_slope(name: str, c_workdir: Path) -> None:
    """Each PRelu case is one kernel call, its slope per channel read from the weights."""
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    assert text.count("static int op_") == 1, "the PRelu was not fused"
    assert ".activation = MRVL_EPILOGUE_PRELU" in text and re.search(r"p\.slope = x\d+;", text)


def test_mtcnn_prelus_all_fuse(c_workdir: Path) -> None:
    """Every PRelu of the MTCNN-shaped model goes into the conv or matmul before it: no PRelu
    kernel of its own."""
    text = (emit_model(CASES["mtcnn_pnet"], c_workdir) / "m.c").read_text()
    assert text.count(".activation = MRVL_EPILOGUE_PRELU") == 4 and "MRVL_PRELU" not in text


NAN_PRELUS = ["direct_residual_clip_prelu", "flat_scalar_prelu", "pointwise_prelu", "depthwise_rows_stride2_prelu",
              "blocked_7x7_batch2_residual_prelu", "conv_transpose_grouped_prelu", "matmul_bias_prelu"]


def _prelu_nan_inputs(name: str) -> dict[str, np.ndarray]:
    inputs = random_inputs(CASES[name], 6)
    flat = inputs["x"].reshape(-1)
    flat[::11] = np.nan
    flat[3::13] = -np.inf
    flat[5::17] = np.inf
    return inputs


@pytest.fixture(scope="module")
def prelu_nans(c_workdir: Path) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """The NAN_PRELUS cases on inputs with NaN and infinities, built natively side by side and
    run: their inputs and the outputs by `merged` name."""
    inputs = {name: _prelu_nan_inputs(name) for name in NAN_PRELUS}
    return inputs, run_together({name: CASES[name] for name in NAN_PRELUS}, c_workdir, inputs, native=True)


@pytest.mark.parametrize("name", NAN_PRELUS)
def test_fused_prelu_keeps_nans(name: str, prelu_nans) -> None:
    """The fused PRelu (a select on x < 0) keeps a NaN a NaN and scales -inf by its channel's
    slope, as onnxruntime's PRelu does."""
    inputs, got = prelu_nans
    assert_cases_close({name: CASES[name]}, inputs, got)


@pytest.mark.parametrize("name", [n for n in CASES if n.startswith("gemm_")])
def test_constant_gemm_weights_are_packed_at_compile_time(name: str, c_workdir: Path) -> None:
    """The gemm_packed cases read their weights packed at compile time; the gemm_dots ones, of
    at most GEMM_DOT_ROWS rows, as dot products with B's rows."""
    text = (emit_model(CASES[name], c_workdir) / "m.c").read_text()
    assert (".packed_b = 1" in text) == name.startswith("gemm_packed")
    assert name.startswith("gemm_packed") or int(re.search(r"\.m = (\d+)", text).group(1)) <= kernel_macro("GEMM_DOT_ROWS")


def test_fire_concat_is_in_place(c_workdir: Path) -> None:
    """The fire module's concat is no code, at batch 1 and at batch 4 (each conv writes its
    images the concat's image apart); the concat of a depthwise conv and a graph input copies."""
    one = (emit_model(CASES["concat_in_place_fire"], c_workdir) / "m.c").read_text()
    four = (emit_model(CASES["concat_in_place_fire_batch4"], c_workdir) / "m.c").read_text()
    for text in (one, four):
        assert text.count("in place: its inputs were written") == 1 and text.count("static int op_Concat") == 1
    assert "y_batch" not in one and four.count(".y_batch = 1386") == 2  # (5 + 9) x 9 x 11 per image
    flat = (emit_model(CASES["concat_in_place_flat_batch2"], c_workdir) / "m.c").read_text()
    assert flat.count("in place: its inputs were written") == 1 and flat.count(".y_batch = 11520") == 2
    assert flat.count("mrvl_flat_conv_f32(&p") == 2


def test_flat_rows_keep_infinities_out_of_the_next_row(c_workdir: Path) -> None:
    """The flat conv read in place by rows: a lane whose kernel column reaches across the left
    or right edge reads the neighbouring row's end, masked off bitwise. An infinity there (or in
    the first or last row, which the copies read) must not turn the lane into a NaN."""
    case = "stem_rows_residual_leaky_relu"
    model = CASES[case]
    inputs = random_inputs(model, 5)
    inputs["x"][0, :, 2, -1] = np.inf
    inputs["x"][0, :, 4, 0] = -np.inf
    inputs["x"][0, :, 0, 7] = np.inf
    inputs["x"][0, :, -1, -1] = -np.inf
    check(model, c_workdir, inputs, name=f"inf_{case}", native=True)


@pytest.mark.parametrize("case", ["rows_narrow_plane", "rows_5x5_multiplier", "small_9x23", "small_clip"])
def test_depthwise_rows_keep_infinities_out_of_the_next_row(case: str, c_workdir: Path) -> None:
    """In the rows layout a tap across the left or right edge would read the neighbouring row's
    end: masked off bitwise (x86), or on AArch64 its kernel column reads a copy with that column
    zeroed (3x3, 5 channels) unless the conv has fewer channels than copies (5x5, 4 channels);
    on small planes each kernel column's sum is masked. An infinity there must not turn the
    lane into a NaN."""
    model = next(m for n, m in CASES.items() if n.startswith(f"depthwise_{case}"))
    inputs = random_inputs(model, 5)
    inputs["x"][0, :, 2, -1] = np.inf
    inputs["x"][0, :, 4, 0] = -np.inf
    check(model, c_workdir, inputs, name=f"inf_{case}", native=True)


def test_blocked_depthwise_keeps_infinities_in_their_windows(c_workdir: Path) -> None:
    """The channel-blocked layout: a tile's junk positions past a row's end read the next row,
    and the lanes past the last channel zeros: an infinity or a NaN at a row's ends or in the
    last channel must reach only the outputs whose windows hold it."""
    model = next(m for n, m in CASES.items() if n.startswith("blocked_7x7_batch2"))
    inputs = random_inputs(model, 5)
    inputs["x"][0, :, 2, -1] = np.inf
    inputs["x"][0, :, 4, 0] = -np.inf
    inputs["x"][1, -1, 3, 3] = np.nan
    check(model, c_workdir, inputs, name="inf_blocked", native=True)


CLAMP_NANS = ["depthwise_residual_clip", "blocked_7x7_residual_clip", "depthwise_clip", "depthwise_stride2_clip",
              "depthwise_pairs_clip", "depthwise_small_clip", "depthwise_small_residual_clip",
              "blocked_small_residual_clip"]


def _clamp_nan_inputs(name: str) -> dict[str, np.ndarray]:
    inputs = random_inputs(CASES[name], 6)
    inputs["x"][0, 0, 1, 1] = np.nan
    inputs["x"][0, 1, 2, 2] = np.inf
    inputs["x"][0, 2, 5, 5] = -np.inf
    if "residual" in inputs:
        inputs["residual"][0, 2, 3, 3] = -np.inf
        inputs["residual"][0, 3, 0, 0] = np.nan
    return inputs


NAN_POOLS = ["max_3x3s2_direct", "max_pairs_3x3s2", "max_grid_5x5s1_pad", "max_3x3s2_pad", "max_3x3s2_ceil",
             "max_wide_row", "max_small_2x2s1", "max_small_3x3s1_pad", "max_2x2s2"]


def _pool_nan_inputs(name: str) -> dict[str, np.ndarray]:
    inputs = random_inputs(CASES[name], 5)
    inputs["x"].reshape(-1)[::7] = np.nan
    return inputs


SOFTMAX_WIDTHS = [8, 16, 53]


def _masked_softmax(width: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    model = single_op("Softmax", [("x", [4, width])], axis=-1)
    inputs = random_inputs(model, 3)
    inputs["x"] *= 30.0
    inputs["x"][:, ::3] = -np.inf
    return model, inputs


REDUCE_OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
              "ReduceLogSumExp", "ReduceSumSquare"]
REDUCE_AXES = {"last_reduced": [1, 3], "last_kept": [0, 2]}


def _reduction(op_type: str, axes: list[int]) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    node = helper.make_node(op_type, ["x", "axes"], ["y"], keepdims=0)
    graph = helper.make_graph([node], "reduce", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 3, 37])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [onnx.numpy_helper.from_array(np.array(axes, np.int64), "axes")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    x = np.random.default_rng(4).uniform(0.8, 1.25, [2, 5, 3, 37]).astype(np.float32)
    x *= np.where(np.arange(37) % 3 == 0, -1.0, 1.0).astype(np.float32)  # signs for max/min/L1
    if op_type == "ReduceLogSum":
        x = np.abs(x)
    return model, {"x": x}


@pytest.fixture(scope="module")
def special_values(c_workdir: Path) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """The cases of the tests below (NaN and infinities through the depthwise clamps and the max
    pools, masked softmax rows, reductions by rows) built natively side by side and run once:
    the models and inputs by case name and the outputs by `merged` name."""
    models = {f"clamp_{name}": CASES[name] for name in CLAMP_NANS} | {f"pool_{name}": CASES[name] for name in NAN_POOLS}
    inputs = {f"clamp_{name}": _clamp_nan_inputs(name) for name in CLAMP_NANS} | {
        f"pool_{name}": _pool_nan_inputs(name) for name in NAN_POOLS}
    for width in SOFTMAX_WIDTHS:
        models[f"softmax_{width}"], inputs[f"softmax_{width}"] = _masked_softmax(width)
    for op_type in REDUCE_OPS:
        for axes_id, axes in REDUCE_AXES.items():
            models[f"{op_type}_{axes_id}"], inputs[f"{op_type}_{axes_id}"] = _reduction(op_type, axes)
    return models, inputs, run_together(models, c_workdir, inputs, native=True)


def _check_special(case: str, special_values) -> None:
    models, inputs, got = special_values
    assert_cases_close({case: models[case]}, inputs, got)


@pytest.mark.parametrize("name", CLAMP_NANS)
def test_depthwise_clamps_keep_nans(name: str, special_values) -> None:
    """The depthwise kernels' clamp (a max, then a min; alone, as rows are copied) keeps a NaN,
    and clamps infinities."""
    _check_special(f"clamp_{name}", special_values)


@pytest.mark.parametrize("name", NAN_POOLS)
def test_nan_never_wins_a_max_pool(name: str, special_values) -> None:
    """Each max pool path (direct, pairs, small, grid, row bands, the bounds-checked loop) takes a
    NaN for -inf wherever it lies in a window: the largest number wins. (onnxruntime's
    answer depends on where the NaN lies, so the reference is its answer with -inf there.)"""
    _, inputs, got = special_values
    case = f"pool_{name}"
    expected = reference(CASES[name], {"x": np.nan_to_num(inputs[case]["x"], nan=-np.inf)})
    value = got[f"{case}__{CASES[name].graph.output[0].name}"]
    assert_close(value, expected[0].reshape(value.shape))


@pytest.mark.parametrize("width", SOFTMAX_WIDTHS)
def test_softmax_rows_with_masked_entries(width: int, special_values) -> None:
    """Rows shorter than, exactly, and not a whole number of vectors, with -inf entries (an
    attention mask) and large values: e^-inf adds nothing, nothing overflows."""
    _check_special(f"softmax_{width}", special_values)


@pytest.mark.parametrize("axes", list(REDUCE_AXES))
@pytest.mark.parametrize("op_type", REDUCE_OPS)
def test_float_reductions_by_rows(op_type: str, axes: str, special_values) -> None:
    """Every float reduction, row by row of the last dim: reduced (16 lanes and a tail of 5)
    or kept (the rows folded elementwise into the result)."""
    _check_special(f"{op_type}_{axes}", special_values)


SIGMOIDS = {"sigmoid": single_op("Sigmoid", [("x", [1, 1, 4, 5001])]),
            "silu": helper.make_model(helper.make_graph(
                [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Sigmoid", ["c"], ["s"]),
                 helper.make_node("Mul", ["c", "s"], ["y"])], "silu",
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 5001])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 5001])],
                [helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 1, 1], [1.0])]),
                opset_imports=[helper.make_opsetid("", 17)])}
"""Sigmoid alone, and SiLU as a conv's epilogue (a 1x1 conv by 1: its input unchanged)."""
SIGMOID_ISAS = {"baseline": [], "native": ["-march=native"], "avx2": ["-march=x86-64-v3"]}


@pytest.mark.parametrize("isa", list(SIGMOID_ISAS))
@pytest.mark.parametrize("op", list(SIGMOIDS))
def test_sigmoid_and_silu_over_float_range(op: str, isa: str, c_workdir: Path) -> None:
    """Sigmoid and SiLU (x Sigmoid(x), a conv's epilogue) in vectors over float's range,
    on each ISA's e^-x (AVX2's and AVX-512's tables, the polynomial elsewhere): within 3e-7 of
    float64 where the result is above 1e-30 (|x| up to 100), below 1e-35 past x = -87 (where
    the clamp holds e^-x), subnormal inputs and results kept, infinities and NaN as before."""
    if isa == "avx2" and not _runs_avx2():
        pytest.skip("needs an x86-64 machine with AVX2 and FMA")
    out = emit_model(SIGMOIDS[op], c_workdir, name=op)
    if op == "silu":
        assert "MRVL_EPILOGUE_SILU" in (out / f"{op}.c").read_text()
    library = out / f"lib{op}_{isa}.so"
    gcc([*makefile_cflags(out), *SIGMOID_ISAS[isa], "-Werror", "-fPIC", "-shared", f"{op}.c", "-o", library.name,
         "-lm"], out)
    x = np.concatenate([np.linspace(-100.0, 100.0, 20001), np.linspace(-88.0, -86.0, 3)]).astype(np.float32)
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-40, 3e38, -3e38, 1e-30, -1e-30], np.float32)
    x = np.concatenate([special, x])[:4 * 5001].reshape(1, 1, 4, 5001)
    rc, got = Built(out, op, library).run({"x": x})
    assert rc == 0
    got, v = got[0].astype(np.float64), x.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = 1.0 / (1.0 + np.exp(-v))
        if op == "silu":
            expected = v * expected
    expected[np.isnan(v)] = np.nan
    kept = np.isfinite(v) & (np.abs(expected) >= 1e-30)
    np.testing.assert_allclose(got[kept], expected[kept], rtol=3e-7, atol=0)
    assert np.all(np.abs(got[np.isfinite(v) & (v < -87)]) < 1e-35 * np.maximum(1, np.abs(v[np.isfinite(v) & (v < -87)])))
    assert np.array_equal(np.isnan(got), np.isnan(v))
    at = {value: got.flat[i] for i, value in enumerate(special[1:5], 1)}
    assert at[np.inf] == (np.inf if op == "silu" else 1.0) and 0 <= at[-np.inf] * (1 if op == "sigmoid" else -1)
    assert abs(got.flat[5] - (v.flat[5] / 2 if op == "silu" else 0.5)) <= 2e-45


def test_exp_over_float_range(c_workdir: Path) -> None:
    """Exp in vectors over float's whole range: overflow to infinity past 88.7, subnormal
    results below -87.3 and 0 below -103.9, NaN kept."""
    model = single_op("Exp", [("x", [2, 300])])
    x = np.linspace(-110.0, 95.0, 600, dtype=np.float32).reshape(2, 300)
    x[0, :5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    rc, got = compile_model(model, c_workdir, name="exp_range", native=True).run({"x": x})
    assert rc == 0
    with np.errstate(over="ignore"):  # e^95 is infinite in float32
        expected = np.exp(x.astype(np.float64)).astype(np.float32)
    normal = np.isfinite(expected) & (expected > np.finfo(np.float32).tiny)
    np.testing.assert_allclose(got[0][normal], expected[normal], rtol=4e-7)
    assert np.array_equal(np.isnan(got[0]), np.isnan(expected)) and np.array_equal(np.isinf(got[0]), np.isinf(expected))
    assert np.all(np.abs(got[0][~normal & np.isfinite(expected)] - expected[~normal & np.isfinite(expected)]) < 1e-40)
