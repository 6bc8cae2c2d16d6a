"""Every fusion pattern variant keeps the model's meaning and builds the layers it should.

Each case is a small ONNX model (onnx.helper, ir_version 8, opset 17). After
`place-ops,fuse-mrvl,convert-layout` (and after `fuse-mrvl` alone, which fuses without
placement attributes) the reference interpreter's result must match onnxruntime (fp32:
rtol 1e-4, atol 1e-5), and the module must hold exactly the expected `mrvl` layers, so a
test fails when fusion silently did not happen. onnxruntime runs with its graph
optimizations off: the oracle is the model as written (ORT's own Pad fusion rejects some
valid models).
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import PassPipeline

from mrvl.backend.reference_interpreter import run
from mrvl.frontend.onnx_importer import import_onnx
from numeric_asserts import assert_close
from mrvl.passes import get_all_passes
from mrvl_dialect import mrvl
from mrvl_dialect.graph_queries import constant_value

PIPELINES = {"placed": "place-ops,fuse-mrvl,convert-layout", "unplaced": "fuse-mrvl"}

_rng = np.random.default_rng(7)


def w(*shape: int) -> np.ndarray:
    """Seeded float32 weights."""
    return _rng.standard_normal(shape).astype(np.float32)


def positive(*shape: int) -> np.ndarray:
    return _rng.uniform(0.5, 2.0, shape).astype(np.float32)


def i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


@dataclass
class Case:
    nodes: list
    """(op_type, inputs, outputs, attributes); node i is named after its first output."""
    inputs: dict[str, list[int]]
    outputs: dict[str, list[int]]
    initializers: dict[str, np.ndarray] = field(default_factory=dict)
    layers: dict[str, int] | None = field(default_factory=dict)
    """Expected count of each `mrvl` op after the pipeline (exactly these, no others);
    None: not checked."""
    kept: tuple[str, ...] = ()
    """`graph` ops that must still be there (not fused)."""

    def model(self):
        nodes = [
            helper.make_node(op, list(ins), list(outs), name=f"{outs[0]}_node", **attrs)
            for op, ins, outs, attrs in self.nodes
        ]
        graph = helper.make_graph(
            nodes,
            "case",
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in self.inputs.items()],
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in self.outputs.items()],
            [numpy_helper.from_array(v, k) for k, v in self.initializers.items()],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def n(op: str, inputs: str, outputs: str, **attributes) -> tuple:
    return op, inputs.split(), outputs.split(), attributes


X = {"x": [1, 2, 6, 6]}
Y4 = {"y": [1, 4, 6, 6]}

CASES: dict[str, Case] = {
    # --- conv2d ---------------------------------------------------------------------
    "conv": Case([n("Conv", "x w", "y", kernel_shape=[3, 3], pads=[1, 1, 1, 1])], X, Y4,
                 {"w": w(4, 2, 3, 3)}, {"mrvl.conv2d": 1}),
    "conv-bias": Case([n("Conv", "x w b", "y", kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])],
                      X, {"y": [1, 4, 3, 3]}, {"w": w(4, 2, 3, 3), "b": w(4)}, {"mrvl.conv2d": 1}),
    "conv-add-bias": Case([n("Conv", "x w", "c"), n("Add", "c b", "y")], X, Y4,
                          {"w": w(4, 2, 1, 1), "b": w(4, 1, 1)}, {"mrvl.conv2d": 1}),
    # PyTorch exports a bias as Add(bias, x).
    "conv-add-bias-first": Case([n("Conv", "x w", "c"), n("Add", "b c", "y")], X, Y4,
                                {"w": w(4, 2, 1, 1), "b": w(1, 4, 1, 1)}, {"mrvl.conv2d": 1}),
    "conv-bias-and-add": Case([n("Conv", "x w b", "c"), n("Add", "c b2", "y")], X, Y4,
                              {"w": w(4, 2, 1, 1), "b": w(4), "b2": w(4, 1, 1)}, {"mrvl.conv2d": 1}),
    "conv-bn": Case([n("Conv", "x w", "c"), n("BatchNormalization", "c s t m v", "y", epsilon=1e-3)], X, Y4,
                    {"w": w(4, 2, 1, 1), "s": w(4), "t": w(4), "m": w(4), "v": positive(4)}, {"mrvl.conv2d": 1}),
    "conv-relu": Case([n("Conv", "x w", "c"), n("Relu", "c", "y")], X, Y4, {"w": w(4, 2, 1, 1)},
                      {"mrvl.conv2d": 1}),
    "conv-bn-relu": Case([n("Conv", "x w b", "c"), n("BatchNormalization", "c s t m v", "d"), n("Relu", "d", "y")],
                         X, Y4, {"w": w(4, 2, 1, 1), "b": w(4), "s": w(4), "t": w(4), "m": w(4), "v": positive(4)},
                         {"mrvl.conv2d": 1}),
    "conv-add-bn-relu": Case(
        [n("Conv", "x w", "c"), n("Add", "b c", "a"), n("BatchNormalization", "a s t m v", "d"), n("Relu", "d", "y")],
        X, Y4, {"w": w(4, 2, 1, 1), "b": w(4, 1, 1), "s": w(4), "t": w(4), "m": w(4), "v": positive(4)},
        {"mrvl.conv2d": 1}),
    # keras2onnx's MTCNN: a PRelu after every conv, its slope per channel (4, 1, 1), negative and
    # above 1 too. The conv fuses; the PRelu stays a graph op of its own (the host's).
    "conv-prelu": Case([n("Conv", "x w b", "c", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), n("PRelu", "c a", "y")],
                       X, Y4, {"w": w(4, 2, 3, 3), "b": w(4), "a": np.array([0.25, -0.5, 1.5, 0.0], np.float32)
                               .reshape(4, 1, 1)}, {"mrvl.conv2d": 1}, kept=("graph.PRelu",)),
    # Pad (top 1, left 2, bottom 2, right 1) adds to the conv's own pads (1, 1, 0, 1).
    "pad-conv": Case([n("Pad", "x pads", "p"), n("Conv", "p w", "y", kernel_shape=[3, 3], pads=[1, 1, 0, 1])],
                     X, {"y": [1, 4, 8, 9]}, {"w": w(4, 2, 3, 3), "pads": i64(0, 0, 1, 2, 0, 0, 2, 1)},
                     {"mrvl.conv2d": 1}),
    "pad-nonzero-conv": Case([n("Pad", "x pads one", "p"), n("Conv", "p w", "y", kernel_shape=[3, 3])], X, Y4,
                             {"w": w(4, 2, 3, 3), "pads": i64(0, 0, 1, 1, 0, 0, 1, 1), "one": np.ones((), np.float32)},
                             {"mrvl.conv2d": 1}, kept=("graph.Pad",)),
    "pad-reflect-conv": Case([n("Pad", "x pads", "p", mode="reflect"), n("Conv", "p w", "y", kernel_shape=[3, 3])],
                             X, Y4, {"w": w(4, 2, 3, 3), "pads": i64(0, 0, 1, 1, 0, 0, 1, 1)},
                             {"mrvl.conv2d": 1}, kept=("graph.Pad",)),
    "depthwise": Case([n("Conv", "x w", "y", kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=4)],
                      {"x": [1, 4, 6, 6]}, Y4, {"w": w(4, 1, 3, 3)}, {"mrvl.conv2d": 1}),
    "grouped": Case([n("Conv", "x w", "y", group=2)], {"x": [1, 8, 6, 6]}, {"y": [1, 8, 6, 6]},
                    {"w": w(8, 4, 1, 1)}, {}, kept=("graph.Conv",)),
    "conv-same-upper": Case([n("Conv", "x w", "y", kernel_shape=[4, 4], strides=[2, 2], auto_pad="SAME_UPPER")],
                            {"x": [1, 2, 7, 7]}, {"y": [1, 4, 4, 4]}, {"w": w(4, 2, 4, 4)}, {"mrvl.conv2d": 1}),
    "conv-same-lower": Case([n("Conv", "x w", "y", kernel_shape=[4, 4], strides=[2, 2], auto_pad="SAME_LOWER")],
                            {"x": [1, 2, 7, 7]}, {"y": [1, 4, 4, 4]}, {"w": w(4, 2, 4, 4)}, {"mrvl.conv2d": 1}),
    # Darknet's size-2 stride-1 maxpool as Keras/tf2onnx write it (tiny-YOLOv3).
    "maxpool-same-upper": Case([n("MaxPool", "x", "y", kernel_shape=[2, 2], strides=[1, 1], auto_pad="SAME_UPPER")],
                               {"x": [1, 2, 7, 7]}, {"y": [1, 2, 7, 7]}, {}, {"mrvl.maxpool2d": 1}),
    "avgpool-same-lower": Case([n("AveragePool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], auto_pad="SAME_LOWER")],
                               {"x": [1, 2, 6, 6]}, {"y": [1, 2, 3, 3]}, {}, {"mrvl.avgpool2d": 1}),
    "conv-dilated-batch-2": Case([n("Conv", "x w", "y", kernel_shape=[3, 3], dilations=[2, 2], pads=[2, 1, 2, 1])],
                                 {"x": [2, 2, 6, 6]}, {"y": [2, 4, 6, 4]}, {"w": w(4, 2, 3, 3)}, {"mrvl.conv2d": 1}),
    # --- fc -------------------------------------------------------------------------
    "gemm-transb-bias": Case([n("Gemm", "x w c", "y", transB=1)], {"x": [2, 4]}, {"y": [2, 3]},
                             {"w": w(3, 4), "c": w(3)}, {"mrvl.fc": 1}),
    "gemm-row-bias": Case([n("Gemm", "x w c", "y")], {"x": [2, 4]}, {"y": [2, 3]},
                          {"w": w(4, 3), "c": w(1, 3)}, {"mrvl.fc": 1}),
    "matmul-add": Case([n("MatMul", "x w", "m"), n("Add", "m b", "y")], {"x": [2, 4]}, {"y": [2, 3]},
                       {"w": w(4, 3), "b": w(3)}, {"mrvl.fc": 1}),
    "matmul-add-bias-first": Case([n("MatMul", "x w", "m"), n("Add", "b m", "y")], {"x": [2, 4]}, {"y": [2, 3]},
                                  {"w": w(4, 3), "b": w(1, 3)}, {"mrvl.fc": 1}),
    "flatten-gemm": Case([n("Flatten", "x", "f"), n("Gemm", "f w c", "y", transB=1)], {"x": [1, 2, 3, 3]},
                         {"y": [1, 5]}, {"w": w(5, 18), "c": w(5)}, {"mrvl.fc": 1}),
    "reshape-matmul": Case([n("Reshape", "x s", "r"), n("MatMul", "r w", "y")], {"x": [2, 2, 3, 3]},
                           {"y": [2, 5]}, {"w": w(18, 5), "s": i64(2, 18)}, {"mrvl.fc": 1}),
    # Keras' Flatten: NCHW -> NHWC, then flattened into weights in NHWC order.
    "nhwc-reshape-matmul": Case([n("Transpose", "x", "t", perm=[0, 2, 3, 1]), n("Reshape", "t s", "r"),
                                 n("MatMul", "r w", "y")], {"x": [2, 2, 3, 4]}, {"y": [2, 5]},
                                {"w": w(24, 5), "s": i64(-1, 24)}, {"mrvl.fc": 1}),
    "nhwc-flatten-gemm-relu": Case([n("Transpose", "x", "t", perm=[0, 2, 3, 1]), n("Flatten", "t", "f"),
                                    n("Gemm", "f w c", "g", transB=1), n("Relu", "g", "y")], {"x": [1, 3, 2, 2]},
                                   {"y": [1, 5]}, {"w": w(5, 12), "c": w(5)}, {"mrvl.fc": 1}),
    "other-transpose-reshape-matmul": Case([n("Transpose", "x", "t", perm=[0, 3, 2, 1]), n("Reshape", "t s", "r"),
                                            n("MatMul", "r w", "y")], {"x": [2, 2, 3, 4]}, {"y": [2, 5]},
                                           {"w": w(24, 5), "s": i64(-1, 24)}, {"mrvl.fc": 1},
                                           kept=("graph.Transpose",)),
    "gemm-relu": Case([n("Gemm", "x w c", "g"), n("Relu", "g", "y")], {"x": [2, 4]}, {"y": [2, 3]},
                      {"w": w(4, 3), "c": w(3)}, {"mrvl.fc": 1}),
    "matmul-add-relu": Case([n("MatMul", "x w", "m"), n("Add", "m b", "a"), n("Relu", "a", "y")], {"x": [2, 4]},
                            {"y": [2, 3]}, {"w": w(4, 3), "b": w(3)}, {"mrvl.fc": 1}),
    # --- pools ----------------------------------------------------------------------
    "maxpool": Case([n("MaxPool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 0])],
                    {"x": [2, 3, 8, 8]}, {"y": [2, 3, 4, 4]}, {}, {"mrvl.maxpool2d": 1}),
    "avgpool-exclude-pad": Case([n("AveragePool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
                                {"x": [1, 3, 8, 8]}, {"y": [1, 3, 4, 4]}, {}, {"mrvl.avgpool2d": 1}),
    "avgpool-include-pad": Case([n("AveragePool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                   count_include_pad=1)],
                                {"x": [1, 3, 8, 8]}, {"y": [1, 3, 4, 4]}, {}, {"mrvl.avgpool2d": 1}),
    # ceil_mode: 14 wide, kernel 3, stride 2 is 7 windows (floor mode: 6).
    "maxpool-ceil": Case([n("MaxPool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)],
                         {"x": [2, 3, 14, 14]}, {"y": [2, 3, 7, 7]}, {}, {"mrvl.maxpool2d": 1}),
    "avgpool-ceil-exclude-pad": Case([n("AveragePool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 0],
                                        ceil_mode=1)],
                                     {"x": [1, 3, 14, 14]}, {"y": [1, 3, 7, 7]}, {}, {"mrvl.avgpool2d": 1}),
    "avgpool-ceil-include-pad-no-extra-window": Case(
        [n("AveragePool", "x", "y", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1, count_include_pad=1)],
        {"x": [1, 3, 14, 14]}, {"y": [1, 3, 7, 7]}, {}, {"mrvl.avgpool2d": 1}),
    "avgpool-ceil-include-pad-extra-window": Case(
        [n("AveragePool", "x", "y", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1,
           count_include_pad=1)],
        {"x": [1, 3, 14, 14]}, {"y": [1, 3, 8, 8]}, {}, None, kept=("graph.AveragePool",)),
    "relu-pad-maxpool": Case([n("Relu", "x", "r"), n("Pad", "r pads", "p"),
                              n("MaxPool", "p", "y", kernel_shape=[2, 2], strides=[2, 2])],
                             {"x": [1, 3, 8, 8]}, {"y": [1, 3, 5, 5]}, {"pads": i64(0, 0, 1, 1, 0, 0, 1, 1)},
                             {"mrvl.maxpool2d": 1}, kept=("graph.Relu",)),
    "conv-relu-pad-maxpool": Case([n("Conv", "x w", "c"), n("Relu", "c", "r"), n("Pad", "r pads", "p"),
                                   n("MaxPool", "p", "y", kernel_shape=[3, 3], strides=[2, 2])],
                                  X, {"y": [1, 4, 3, 3]}, {"w": w(4, 2, 1, 1), "pads": i64(0, 0, 1, 1, 0, 0, 1, 1)},
                                  {"mrvl.conv2d": 1, "mrvl.maxpool2d": 1}),
    # A zero Pad could win the max over negative values: not fused. (The MaxPool stays
    # too: a failing check of the longest match keeps its root on the host.)
    "tanh-pad-maxpool": Case([n("Tanh", "x", "s"), n("Pad", "s pads", "p"),
                                 n("MaxPool", "p", "y", kernel_shape=[2, 2], strides=[2, 2])],
                                {"x": [1, 3, 8, 8]}, {"y": [1, 3, 5, 5]}, {"pads": i64(0, 0, 1, 1, 0, 0, 1, 1)},
                                {"mrvl.maxpool2d": 1}, kept=("graph.Pad",)),
    "pad-avgpool": Case([n("Pad", "x pads", "p"), n("AveragePool", "p", "y", kernel_shape=[2, 2], strides=[2, 2])],
                        {"x": [1, 3, 8, 8]}, {"y": [1, 3, 5, 5]}, {"pads": i64(0, 0, 1, 1, 0, 0, 1, 1)},
                        {"mrvl.avgpool2d": 1}),
    "pad-avgpool-own-pads-excluded": Case(
        [n("Pad", "x pads", "p"), n("AveragePool", "p", "y", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
        {"x": [1, 3, 8, 8]}, {"y": [1, 3, 5, 5]}, {"pads": i64(0, 0, 1, 1, 0, 0, 1, 1)},
        {"mrvl.avgpool2d": 1}, kept=("graph.Pad",)),
    "global-avgpool": Case([n("GlobalAveragePool", "x", "y")], {"x": [1, 3, 8, 8]}, {"y": [1, 3, 1, 1]}, {},
                           {"mrvl.global_avgpool2d": 1}),
    "global-maxpool": Case([n("GlobalMaxPool", "x", "y")], {"x": [2, 3, 8, 8]}, {"y": [2, 3, 1, 1]}, {},
                           {"mrvl.global_maxpool2d": 1}),
    # --- sum ------------------------------------------------------------------------
    "sum-of-convs-relu": Case([n("Conv", "x w", "a"), n("Conv", "x v", "b"), n("Add", "a b", "s"), n("Relu", "s", "y")],
                              X, Y4, {"w": w(4, 2, 1, 1), "v": w(4, 2, 1, 1)},
                              {"mrvl.conv2d": 2, "mrvl.sum": 1}),
    "residual": Case([n("Conv", "x w", "c"), n("Relu", "c", "r"), n("Conv", "r v", "d"), n("Add", "d x", "y")],
                     {"x": [1, 4, 6, 6]}, Y4, {"w": w(4, 4, 1, 1), "v": w(4, 4, 1, 1)},
                     {"mrvl.conv2d": 2, "mrvl.sum": 1}),
    "sum-constant": Case([n("Add", "x k", "y")], X, {"y": [1, 2, 6, 6]}, {"k": w(1, 2, 6, 6)}, {"mrvl.sum": 1}),
    "sum-constant-first": Case([n("Add", "k x", "y")], X, {"y": [1, 2, 6, 6]}, {"k": w(1, 2, 6, 6)},
                               {"mrvl.sum": 1}),
    "sum-broadcast": Case([n("Add", "x k", "y")], X, {"y": [1, 2, 6, 6]}, {"k": w(1, 2, 1, 6)}, {},
                          kept=("graph.Add",)),
    # A [C] or [1, C] constant broadcasts along W (ONNX aligns trailing dims), not along the
    # channels: no conv bias, even when W = C. A [C, 1, 1] after a MatMul is no fc bias.
    "conv-add-vector-along-w": Case([n("Conv", "x w", "c"), n("Add", "c b", "y")], {"x": [1, 2, 4, 4]},
                                    {"y": [1, 4, 4, 4]}, {"w": w(4, 2, 1, 1), "b": w(4)}, {"mrvl.conv2d": 1},
                                    kept=("graph.Add",)),
    "conv-add-row-along-w": Case([n("Conv", "x w", "c"), n("Add", "b c", "y")], {"x": [1, 2, 4, 4]},
                                 {"y": [1, 4, 4, 4]}, {"w": w(4, 2, 1, 1), "b": w(1, 4)}, {"mrvl.conv2d": 1},
                                 kept=("graph.Add",)),
    "matmul-add-channel-column": Case([n("MatMul", "x w", "m"), n("Add", "m b", "y")], {"x": [1, 4]},
                                      {"y": [3, 1, 3]}, {"w": w(4, 3), "b": w(3, 1, 1)}, {"mrvl.fc": 1},
                                      kept=("graph.Add",)),
    # --- concat ---------------------------------------------------------------------
    "concat-channels": Case([n("Concat", "a b c", "y", axis=1)],
                            {"a": [1, 2, 4, 4], "b": [1, 3, 4, 4], "c": [1, 1, 4, 4]}, {"y": [1, 6, 4, 4]}, {},
                            {"mrvl.concat": 1}),
    "concat-of-convs": Case([n("Conv", "x w", "a"), n("Conv", "x v", "b"), n("Concat", "a b", "y", axis=-3)],
                            X, {"y": [1, 7, 6, 6]}, {"w": w(4, 2, 1, 1), "v": w(3, 2, 1, 1)},
                            {"mrvl.conv2d": 2, "mrvl.concat": 1}),
    "concat-axis-2": Case([n("Concat", "a b", "y", axis=2)], {"a": [1, 2, 4, 4], "b": [1, 2, 3, 4]},
                          {"y": [1, 2, 7, 4]}, {}, {}, kept=("graph.Concat",)),
    # --- reshape, flatten, squeeze ----------------------------------------------------
    "reshape-1x1": Case([n("Reshape", "x s", "y")], {"x": [1, 8, 1, 1]}, {"y": [1, 8]}, {"s": i64(1, 8)},
                        {"mrvl.reshape": 1}),
    "reshape-to-1x1": Case([n("Reshape", "x s", "y")], {"x": [2, 8]}, {"y": [2, 8, 1, 1]}, {"s": i64(2, 8, 1, 1)},
                           {"mrvl.reshape": 1}),
    "flatten-1x1": Case([n("Flatten", "x", "y")], {"x": [2, 8, 1, 1]}, {"y": [2, 8]}, {}, {"mrvl.batch_flatten": 1}),
    "squeeze-1x1": Case([n("Squeeze", "x axes", "y")], {"x": [1, 8, 1, 1]}, {"y": [1, 8]}, {"axes": i64(-1, 2)},
                        {"mrvl.squeeze": 1}),
    "reshape-4x4": Case([n("Reshape", "x s", "y")], {"x": [1, 2, 4, 4]}, {"y": [1, 32]}, {"s": i64(1, 32)}, {},
                        kept=("graph.Reshape",)),
    "flatten-4x4": Case([n("Flatten", "x", "y")], {"x": [1, 2, 4, 4]}, {"y": [1, 32]}, {}, {},
                        kept=("graph.Flatten",)),
    "squeeze-4x4": Case([n("Squeeze", "x axes", "y")], {"x": [1, 1, 4, 4]}, {"y": [1, 4, 4]}, {"axes": i64(1)}, {},
                        kept=("graph.Squeeze",)),
    # --- a small network: transposes between layers cancel ----------------------------
    "small-cnn": Case(
        [n("Conv", "x w1 b1", "c1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
         n("BatchNormalization", "c1 s t m v", "n1"), n("Relu", "n1", "r1"),
         n("MaxPool", "r1", "p1", kernel_shape=[2, 2], strides=[2, 2]),
         n("Conv", "p1 w2", "c2", kernel_shape=[3, 3], pads=[1, 1, 1, 1]), n("Relu", "c2", "r2"),
         n("Conv", "r2 w3", "c3"), n("Add", "c3 p1", "a"), n("Relu", "a", "r3"),
         n("GlobalAveragePool", "r3", "g"), n("Flatten", "g", "f"),
         n("Gemm", "f w4 b4", "h", transB=1), n("Relu", "h", "r4"), n("MatMul", "r4 w5", "y")],
        {"x": [1, 3, 8, 8]}, {"y": [1, 5]},
        {"w1": w(4, 3, 3, 3), "b1": w(4), "s": w(4), "t": w(4), "m": w(4), "v": positive(4),
         "w2": w(4, 4, 3, 3), "w3": w(4, 4, 1, 1), "w4": w(6, 4), "b4": w(6), "w5": w(6, 5)},
        {"mrvl.conv2d": 3, "mrvl.maxpool2d": 1, "mrvl.sum": 1, "mrvl.global_avgpool2d": 1, "mrvl.fc": 2}),
}

# Known bugs: these fail until fixed. A Gemm's C of shape [M, 1] adds one value per row,
# not per output, so it is no fc bias (with M = out features it has the bias's size).
# Flatten with axis != 1 of a layout-free tensor is no batch flatten ([N, rest]): the
# layer it builds does not verify (a reshape, or the host, would do).
BUGS: dict[str, Case] = {
    "gemm-c-column": Case([n("Gemm", "x w c", "y")], {"x": [3, 4]}, {"y": [3, 3]},
                          {"w": w(4, 3), "c": w(3, 1)}, {}, kept=("graph.Gemm",)),
    "flatten-axis-0": Case([n("Flatten", "x", "y", axis=0)], {"x": [2, 8, 1, 1]}, {"y": [1, 16]}, {}, None),
    "flatten-axis-2": Case([n("Flatten", "x", "y", axis=2)], {"x": [1, 8, 1, 1]}, {"y": [8, 1]}, {}, None),
}


def compile_case(case: Case, pipeline: str) -> ModuleOp:
    module = import_onnx(case.model())
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(Context(), module)
    return module


def onnxruntime(case: Case, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(case.model().SerializeToString(), options).run(None, feeds)


def check(case: Case, pipeline: str) -> ModuleOp:
    module = compile_case(case, pipeline)
    module.verify()
    built = Counter(op.name for op in module.walk() if op.name.startswith("mrvl."))
    if case.layers is not None:
        assert dict(built) == case.layers
    names = Counter(op.name for op in module.walk())
    for kept in case.kept:
        assert names[kept] >= 1, f"{kept} was fused"
    unfused = [op.name for op in module.walk() if op.attributes.get("mrvl.place") == StringAttr("mlip")]
    assert unfused == [], "ops placed on MLIP were left unfused"
    rng = np.random.default_rng(0)
    feeds = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in case.inputs.items()}
    expected = onnxruntime(case, feeds)
    actual = run(module, list(feeds.values()))
    assert len(actual) == len(expected)
    for want, got in zip(expected, actual):
        assert got.shape == want.shape
        assert_close(got, want)
    return module


@pytest.mark.parametrize("pipeline", PIPELINES.values(), ids=PIPELINES.keys())
@pytest.mark.parametrize("name", CASES)
def test_fused_model_matches_onnxruntime(name: str, pipeline: str):
    check(CASES[name], pipeline)


@pytest.mark.parametrize("pipeline", PIPELINES.values(), ids=PIPELINES.keys())
@pytest.mark.parametrize("name", BUGS)
def test_open_bug_case_matches_onnxruntime(name: str, pipeline: str):
    """Fails until the bug named in BUGS is fixed."""
    check(BUGS[name], pipeline)


def layer(module: ModuleOp, kind: type):
    (op,) = [op for op in module.walk() if isinstance(op, kind)]
    return op


def test_conv_weights_are_ohwi_and_biases_summed():
    case = CASES["conv-bias-and-add"]
    conv = layer(compile_case(case, PIPELINES["placed"]), mrvl.Conv2DOp)
    init = case.initializers
    np.testing.assert_array_equal(constant_value(conv.weight), init["w"].transpose(0, 2, 3, 1))
    assert_close(constant_value(conv.bias), init["b"] + init["b2"].reshape(4))


def test_conv_batch_norm_operands_are_the_model_constants():
    case = CASES["conv-bn-relu"]
    conv = layer(compile_case(case, PIPELINES["placed"]), mrvl.Conv2DOp)
    init = case.initializers
    for operand, name in zip((conv.bn_gamma, conv.bn_beta, conv.bn_mean, conv.bn_var), "stmv"):
        np.testing.assert_array_equal(constant_value(operand), init[name])
    np.testing.assert_array_equal(constant_value(conv.bias), init["b"])
    assert conv.bn_epsilon.value.data == pytest.approx(1e-5)
    assert conv.activation.data == mrvl.Activation.RELU


def test_pad_adds_to_the_conv_padding():
    conv = layer(compile_case(CASES["pad-conv"], PIPELINES["placed"]), mrvl.Conv2DOp)
    assert tuple(conv.padding.get_values()) == (2, 3, 2, 2)


def test_fc_weight_is_out_by_in():
    case = CASES["matmul-add"]
    fc = layer(compile_case(case, PIPELINES["placed"]), mrvl.FCOp)
    np.testing.assert_array_equal(constant_value(fc.weight), case.initializers["w"].T)
    np.testing.assert_array_equal(constant_value(fc.bias), case.initializers["b"])
    assert fc.weights_need_transform is None


def test_flatten_into_gemm_needs_weight_transform():
    fc = layer(compile_case(CASES["flatten-gemm"], PIPELINES["placed"]), mrvl.FCOp)
    assert fc.weights_need_transform is not None
    assert fc.input.type.get_shape() == (1, 3, 3, 2)


def test_transposes_between_layers_cancel():
    """Only the model input's NCHW -> NHWC transpose is left in a network of layers."""
    module = compile_case(CASES["small-cnn"], PIPELINES["placed"])
    transposes = [op for op in module.walk() if op.name == "graph.Transpose"]
    assert [tuple(t.perm.get_values()) for t in transposes] == [(0, 2, 3, 1)]
