"""Seeded CNN and MLP architectures for timing the host C against onnxruntime.

Their shapes differ on purpose from examples/zoo.py, whose shapes the kernels were first tuned
to: 3- and 16-channel stems on 224x224 planes, SqueezeNet fire modules joined by Concat with
ceil-mode pools, MobileNetV2 depthwise-separable blocks with ReLU6, tiny-YOLO with LeakyRelu,
SiLU and HardSwish nets, an FPN neck (Resize + Concat), ResNet-18/50 at 224, VGG at 64, a wide
MLP, an attention block, EfficientNet's squeeze-and-excite blocks with 5x5 depthwise convs,
YOLOv5's SPPF (chained 5x5 MaxPools), a BERT layer as exported below opset 17 (LayerNorm and
GELU written out), and batch-4 variants. Built with onnx.helper and numpy only; each model
is seeded, so the bytes are the same on every run.

    python benchmarks/cnn_models.py OUTDIR [NAME ...]   # write OUTDIR/<name>.onnx
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8  # the onnxruntime in the lock loads IR 8


class Net:
    """Nodes and initialisers of one model, with helpers for the usual layer stacks."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.n = 0

    def name(self, op: str) -> str:
        self.n += 1
        return f"{op.lower()}_{self.n}"

    def op(self, op: str, inputs: list[str], **attrs) -> str:
        out = self.name(op)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def const(self, array) -> str:
        out = self.name("w")
        self.inits.append(numpy_helper.from_array(np.asarray(array), out))
        return out

    def normal(self, shape, std: float) -> np.ndarray:
        return (self.rng.standard_normal(shape) * std).astype(np.float32)

    # -- layers -------------------------------------------------------------------
    def conv(self, x, cin, cout, k, stride=1, groups=1, pad=None, bias=True, bn=False) -> str:
        """Conv (He-initialised, so activations keep their scale through deep stacks), with a
        bias or a following BatchNormalization."""
        w = self.const(self.normal((cout, cin // groups, k, k), math.sqrt(2.0 / (cin // groups * k * k))))
        inputs = [x, w] + ([self.const(self.normal(cout, 0.05))] if bias and not bn else [])
        p = (k - 1) // 2 if pad is None else pad
        y = self.op("Conv", inputs, kernel_shape=[k, k], strides=[stride] * 2, pads=[p] * 4, group=groups)
        if bn:
            stats = [self.rng.uniform(0.8, 1.2, cout), self.normal(cout, 0.1), self.normal(cout, 0.1),
                     self.rng.uniform(0.5, 1.5, cout)]
            y = self.op("BatchNormalization", [y, *(self.const(s.astype(np.float32)) for s in stats)], epsilon=1e-5)
        return y

    def relu(self, x):
        return self.op("Relu", [x])

    def relu6(self, x):
        return self.op("Clip", [x, self.const(np.float32(0)), self.const(np.float32(6))])

    def leaky(self, x, alpha=0.1):
        return self.op("LeakyRelu", [x], alpha=alpha)

    def silu(self, x):
        return self.op("Mul", [x, self.op("Sigmoid", [x])])

    def hardswish(self, x):
        return self.op("HardSwish", [x])

    def maxpool(self, x, k, s, pad=0, ceil=0):
        return self.op("MaxPool", [x], kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4, ceil_mode=ceil)

    def gap(self, x):
        return self.op("GlobalAveragePool", [x])

    def fc(self, x, cin, cout):
        """Flatten + Gemm with a transposed weight, as torch.onnx writes nn.Linear."""
        w = self.const(self.normal((cout, cin), 1 / math.sqrt(cin)))
        return self.op("Gemm", [self.op("Flatten", [x]), w, self.const(self.normal(cout, 0.02))], transB=1)

    def linear(self, x, cin, cout):
        """MatMul + Add, as torch.onnx writes nn.Linear on a sequence."""
        return self.op("Add", [self.op("MatMul", [x, self.const(self.normal((cin, cout), 1 / math.sqrt(cin)))]),
                               self.const(self.normal(cout, 0.02))])

    def heads(self, x, batch, seq, heads, dh):
        """(batch, seq, heads * dh) -> (batch, heads, seq, dh): Reshape + Transpose."""
        x = self.op("Reshape", [x, self.const(np.array([batch, seq, heads, dh], np.int64))])
        return self.op("Transpose", [x], perm=[0, 2, 1, 3])

    def model(self, name: str, inputs: dict[str, list[int]], output: str | list[str]) -> onnx.ModelProto:
        outputs = [output] if isinstance(output, str) else output
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, d) for n, d in inputs.items()],
            [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs], self.inits)
        model = helper.make_model(graph, producer_name="mrvl-xdsl benchmarks", ir_version=IR_VERSION,
                                  opset_imports=[helper.make_opsetid("", OPSET)])
        return onnx.shape_inference.infer_shapes(model)


# -- architectures ------------------------------------------------------------------


def stem_224(batch: int = 1) -> onnx.ModelProto:
    """Small-channel convolutions on large planes: 3 -> 16 -> 16 channels at 224x224, then
    16 -> 32 at 112x112 and a classifier."""
    g = Net(11)
    x = g.relu(g.conv("x", 3, 16, 3, bn=True))
    x = g.relu(g.conv(x, 16, 16, 3, bn=True))
    x = g.maxpool(x, 2, 2)
    x = g.relu(g.conv(x, 16, 32, 3, bn=True))
    x = g.relu(g.conv(x, 32, 32, 3, 2, bn=True))
    return g.model("stem_224", {"x": [batch, 3, 224, 224]}, g.fc(g.gap(x), 32, 10))


def fire(g: Net, x, cin, squeeze, expand):
    s = g.relu(g.conv(x, cin, squeeze, 1))
    return g.op("Concat", [g.relu(g.conv(s, squeeze, expand, 1)), g.relu(g.conv(s, squeeze, expand, 3))], axis=1)


def squeezenet(batch: int = 1, size: int = 224) -> onnx.ModelProto:
    """SqueezeNet 1.1: fire modules (1x1 squeeze, 1x1 and 3x3 expand joined by Concat) between
    3x3/2 ceil-mode MaxPools, a 1x1 conv classifier and a global average pool."""
    g = Net(12)
    x = g.maxpool(g.relu(g.conv("x", 3, 64, 3, 2, pad=0)), 3, 2, ceil=1)
    x = fire(g, fire(g, x, 64, 16, 64), 128, 16, 64)
    x = g.maxpool(x, 3, 2, ceil=1)
    x = fire(g, fire(g, x, 128, 32, 128), 256, 32, 128)
    x = g.maxpool(x, 3, 2, ceil=1)
    for cin, sq, ex in [(256, 48, 192), (384, 48, 192), (384, 64, 256), (512, 64, 256)]:
        x = fire(g, x, cin, sq, ex)
    x = g.op("Flatten", [g.gap(g.relu(g.conv(x, 512, 100, 1)))])
    return g.model("squeezenet", {"x": [batch, 3, size, size]}, x)


def inverted_residual(g: Net, x, cin, cout, stride, expand, act):
    hidden = cin * expand
    y = act(g.conv(x, cin, hidden, 1, bn=True)) if expand != 1 else x
    y = act(g.conv(y, hidden, hidden, 3, stride, groups=hidden, bn=True))
    y = g.conv(y, hidden, cout, 1, bn=True)
    return g.op("Add", [x, y]) if stride == 1 and cin == cout else y


def mobilenet_v2(batch: int = 1, size: int = 224, act_name: str = "relu6") -> onnx.ModelProto:
    """MobileNetV2 (width 1.0; each stage one block shorter than the paper's, to keep the
    benchmark quick): depthwise-separable inverted residuals with ReLU6 as Clip(0, 6), or
    HardSwish for the MobileNetV3-flavoured variant."""
    g = Net(13 if act_name == "relu6" else 14)
    act = g.relu6 if act_name == "relu6" else g.hardswish
    x = act(g.conv("x", 3, 32, 3, 2, bn=True))
    cin = 32
    for expand, cout, repeats, stride in [(1, 16, 1, 1), (6, 24, 1, 2), (6, 32, 2, 2), (6, 64, 3, 2),
                                          (6, 96, 2, 1), (6, 160, 2, 2), (6, 320, 1, 1)]:
        for i in range(repeats):
            x = inverted_residual(g, x, cin, cout, stride if i == 0 else 1, expand, act)
            cin = cout
    x = act(g.conv(x, cin, 1280, 1, bn=True))
    return g.model(f"mobilenet_v2_{act_name}", {"x": [batch, 3, size, size]}, g.fc(g.gap(x), 1280, 1000))


def tiny_yolo(batch: int = 1, size: int = 256) -> onnx.ModelProto:
    """tiny-YOLOv2: conv-BN-LeakyRelu(0.1) with 2x2/2 MaxPools, the last one 2x2/1 with a
    one-pixel pad, and a 1x1 detection head."""
    g = Net(15)
    x, cin = "x", 3
    for i, cout in enumerate([16, 32, 64, 128, 256, 512]):
        x = g.leaky(g.conv(x, cin, cout, 3, bn=True))
        x = g.maxpool(x, 2, 2) if i < 5 else g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[1, 1],
                                                     pads=[0, 0, 1, 1])
        cin = cout
    x = g.leaky(g.conv(x, 512, 512, 3, bn=True))
    x = g.leaky(g.conv(x, 512, 256, 3, bn=True))
    return g.model("tiny_yolo", {"x": [batch, 3, size, size]}, g.conv(x, 256, 125, 1))


def silu_net(batch: int = 1, size: int = 160) -> onnx.ModelProto:
    """YOLOv5-style backbone: conv-BN-SiLU (x * Sigmoid(x)) with stride-2 downsampling and a
    CSP-like bottleneck with a residual Add."""
    g = Net(16)

    def cbs(x, cin, cout, k, s=1):
        return g.silu(g.conv(x, cin, cout, k, s, bn=True))

    x = cbs("x", 3, 16, 3, 2)
    cin = 16
    for cout in [32, 64, 128, 256]:
        x = cbs(x, cin, cout, 3, 2)
        y = cbs(cbs(x, cout, cout // 2, 1), cout // 2, cout, 3)
        x = g.op("Add", [x, y])
        cin = cout
    return g.model("silu_net", {"x": [batch, 3, size, size]}, g.fc(g.gap(x), 256, 80))


def mbconv(g: Net, x, cin, cout, k, stride, expand):
    """EfficientNet's MBConv: 1x1 expand, k x k depthwise, squeeze-and-excite (global pool,
    1x1 reduce, SiLU, 1x1 expand, Sigmoid, Mul), 1x1 project, residual when shapes allow."""
    hidden = cin * expand
    y = g.silu(g.conv(x, cin, hidden, 1, bn=True)) if expand != 1 else x
    y = g.silu(g.conv(y, hidden, hidden, k, stride, groups=hidden, bn=True))
    squeeze = max(1, cin // 4)
    e = g.op("Sigmoid", [g.conv(g.silu(g.conv(g.gap(y), hidden, squeeze, 1)), squeeze, hidden, 1)])
    y = g.conv(g.op("Mul", [y, e]), hidden, cout, 1, bn=True)
    return g.op("Add", [x, y]) if stride == 1 and cin == cout else y


def efficientnet(batch: int = 1, size: int = 224) -> onnx.ModelProto:
    """EfficientNet-B0-shaped (one block a stage): SiLU, 3x3 and 5x5 depthwise convs at
    stride 1 and 2, a squeeze-and-excite in every block (1x1 convs on a 1x1 plane and a
    broadcast Mul)."""
    g = Net(22)
    x = g.silu(g.conv("x", 3, 32, 3, 2, bn=True))
    cin = 32
    for expand, cout, k, stride in [(1, 16, 3, 1), (6, 24, 3, 2), (6, 40, 5, 2), (6, 80, 3, 2), (6, 112, 5, 1),
                                    (6, 192, 5, 2), (6, 320, 3, 1)]:
        x, cin = mbconv(g, x, cin, cout, k, stride, expand), cout
    x = g.silu(g.conv(x, cin, 1280, 1, bn=True))
    return g.model("efficientnet", {"x": [batch, 3, size, size]}, g.fc(g.gap(x), 1280, 1000))


def yolo_sppf(batch: int = 1, size: int = 256) -> onnx.ModelProto:
    """YOLOv5n-shaped: a SiLU backbone down to stride 32, SPPF (three chained 5x5/1 MaxPools
    joined by Concat), an upsample + Concat neck and two 1x1 detection heads."""
    g = Net(23)

    def cbs(x, cin, cout, k, s=1):
        return g.silu(g.conv(x, cin, cout, k, s, bn=True))

    x = cbs("x", 3, 16, 6, 2)
    levels, cin = [], 16
    for cout in [32, 64, 128, 256]:
        x = cbs(x, cin, cout, 3, 2)
        x = g.op("Add", [x, cbs(cbs(x, cout, cout // 2, 1), cout // 2, cout, 3)])
        levels.append(x)
        cin = cout
    y = cbs(x, 256, 128, 1)
    pools = [y]
    for _ in range(3):
        pools.append(g.maxpool(pools[-1], 5, 1, pad=2))
    p5 = cbs(g.op("Concat", pools, axis=1), 512, 256, 1)
    up = g.op("Resize", [cbs(p5, 256, 128, 1), "", g.const(np.array([1, 1, 2, 2], np.float32))], mode="nearest")
    p4 = cbs(g.op("Concat", [up, levels[2]], axis=1), 256, 128, 3)
    return g.model("yolo_sppf", {"x": [batch, 3, size, size]}, [g.conv(p4, 128, 255, 1), g.conv(p5, 256, 255, 1)])


def fpn_neck(batch: int = 1) -> onnx.ModelProto:
    """FPN/YOLO neck over three backbone levels (given as inputs): 1x1 lateral convs, nearest
    2x Resize upsampling, Concat with the next level, 3x3 smoothing convs with LeakyRelu."""
    g = Net(17)
    c3, c4, c5 = "c3", "c4", "c5"
    scales = g.const(np.array([1, 1, 2, 2], np.float32))

    def up(x):
        return g.op("Resize", [x, "", scales], mode="nearest", coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor")

    p5 = g.leaky(g.conv(c5, 256, 128, 1))
    p4 = g.op("Concat", [up(p5), c4], axis=1)
    p4 = g.leaky(g.conv(g.leaky(g.conv(p4, 256, 128, 1)), 128, 128, 3))
    p3 = g.op("Concat", [up(g.leaky(g.conv(p4, 128, 64, 1))), c3], axis=1)
    p3 = g.leaky(g.conv(g.leaky(g.conv(p3, 128, 64, 1)), 64, 64, 3))
    outs = [g.conv(p3, 64, 85, 1), g.conv(p4, 128, 85, 1)]
    return g.model("fpn_neck", {"c3": [batch, 64, 52, 52], "c4": [batch, 128, 26, 26], "c5": [batch, 256, 13, 13]},
                   outs)


def basic_block(g: Net, x, cin, cout, stride):
    y = g.conv(g.relu(g.conv(x, cin, cout, 3, stride, bn=True)), cout, cout, 3, bn=True)
    short = g.conv(x, cin, cout, 1, stride, pad=0, bn=True) if stride != 1 or cin != cout else x
    return g.relu(g.op("Add", [y, short]))


def bottleneck(g: Net, x, cin, width, stride):
    cout = width * 4
    y = g.relu(g.conv(x, cin, width, 1, bn=True))
    y = g.relu(g.conv(y, width, width, 3, stride, bn=True))
    y = g.conv(y, width, cout, 1, bn=True)
    short = g.conv(x, cin, cout, 1, stride, pad=0, bn=True) if stride != 1 or cin != cout else x
    return g.relu(g.op("Add", [y, short]))


def resnet(depth: int, batch: int = 1, size: int = 224) -> onnx.ModelProto:
    """ResNet-18 (basic blocks) or ResNet-50 (bottlenecks), torchvision's layout."""
    g = Net(18 if depth == 18 else 50)
    x = g.maxpool(g.relu(g.conv("x", 3, 64, 7, 2, bn=True)), 3, 2, pad=1)
    cin = 64
    blocks = [2, 2, 2, 2] if depth == 18 else [3, 4, 6, 3]
    for stage, n in enumerate(blocks):
        width = 64 << stage
        for i in range(n):
            stride = 2 if i == 0 and stage > 0 else 1
            if depth == 18:
                x, cin = basic_block(g, x, cin, width, stride), width
            else:
                x, cin = bottleneck(g, x, cin, width, stride), width * 4
    return g.model(f"resnet{depth}", {"x": [batch, 3, size, size]}, g.fc(g.gap(x), cin, 1000))


def vgg_64(batch: int = 1) -> onnx.ModelProto:
    """VGG-style at 64x64: pairs of 3x3 conv-ReLU with 2x2/2 MaxPools, two FC layers."""
    g = Net(19)
    x, cin = "x", 3
    for cout in [32, 64, 128, 256]:
        x = g.relu(g.conv(g.relu(g.conv(x, cin, cout, 3)), cout, cout, 3))
        x = g.maxpool(x, 2, 2)
        cin = cout
    x = g.relu(g.fc(x, 256 * 4 * 4, 512))
    return g.model("vgg_64", {"x": [batch, 3, 64, 64]}, g.fc(x, 512, 100))


def wide_mlp(batch: int = 4) -> onnx.ModelProto:
    """A wide MLP: 1024 -> 2048 -> 2048 -> 1000 with ReLU."""
    g = Net(20)
    x = g.relu(g.fc("x", 1024, 2048))
    x = g.relu(g.fc(x, 2048, 2048))
    return g.model("wide_mlp", {"x": [batch, 1024]}, g.fc(x, 2048, 1000))


def small_mlp(batch: int = 1) -> onnx.ModelProto:
    """An MNIST-sized MLP on one sample, 784 -> 512 -> 256 -> 10 with ReLU: microseconds of
    work, so each call's overhead counts."""
    g = Net(23)
    x = g.relu(g.fc("x", 784, 512))
    x = g.relu(g.fc(x, 512, 256))
    return g.model("small_mlp", {"x": [batch, 784]}, g.fc(x, 256, 10))


def attention(batch: int = 1, seq: int = 128, d: int = 256, heads: int = 4) -> onnx.ModelProto:
    """One multi-head self-attention block with a residual, LayerNorm and a 4x SiLU MLP."""
    g = Net(21)
    dh = d // heads

    def norm(x):
        return g.op("LayerNormalization", [x, g.const(np.ones(d, np.float32)), g.const(np.zeros(d, np.float32))],
                    axis=-1, epsilon=1e-5)

    h = norm("x")
    q, k, v = (g.heads(g.linear(h, d, d), batch, seq, heads, dh) for _ in range(3))
    s = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
    s = g.op("Mul", [s, g.const(np.float32(1 / math.sqrt(dh)))])
    o = g.op("MatMul", [g.op("Softmax", [s], axis=-1), v])
    o = g.op("Reshape", [g.op("Transpose", [o], perm=[0, 2, 1, 3]), g.const(np.array([batch, seq, d], np.int64))])
    x = g.op("Add", ["x", g.linear(o, d, d)])
    y = g.linear(g.silu(g.linear(norm(x), d, 4 * d)), 4 * d, d)
    return g.model("attention", {"x": [batch, seq, d]}, g.op("Add", [x, y]))


def bert_block(batch: int = 1, seq: int = 128, d: int = 256, heads: int = 4) -> onnx.ModelProto:
    """A BERT encoder layer as PyTorch exports it below opset 17: LayerNorm written out
    (ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul, Add), GELU written out
    (Div by sqrt 2, Erf, Add 1, Mul, Mul 0.5), the scores scaled by a Div and an additive
    attention mask, post-norm residuals."""
    g = Net(22)
    dh = d // heads

    def norm(x):
        centred = g.op("Sub", [x, g.op("ReduceMean", [x], axes=[-1])])
        variance = g.op("ReduceMean", [g.op("Pow", [centred, g.const(np.float32(2.0))])], axes=[-1])
        std = g.op("Sqrt", [g.op("Add", [variance, g.const(np.float32(1e-12))])])
        scaled = g.op("Mul", [g.op("Div", [centred, std]), g.const(1 + g.normal(d, 0.1))])
        return g.op("Add", [scaled, g.const(g.normal(d, 0.1))])

    def gelu(x):
        erf = g.op("Erf", [g.op("Div", [x, g.const(np.float32(math.sqrt(2.0)))])])
        return g.op("Mul", [g.op("Mul", [x, g.op("Add", [erf, g.const(np.float32(1.0))])]),
                            g.const(np.float32(0.5))])

    mask = np.zeros((batch, 1, 1, seq), np.float32)
    mask[..., seq - seq // 8:] = -10000.0  # padding tokens
    q, k, v = (g.heads(g.linear("x", d, d), batch, seq, heads, dh) for _ in range(3))
    s = g.op("Div", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]), g.const(np.float32(math.sqrt(dh)))])
    o = g.op("MatMul", [g.op("Softmax", [g.op("Add", [s, g.const(mask)])], axis=-1), v])
    o = g.op("Reshape", [g.op("Transpose", [o], perm=[0, 2, 1, 3]), g.const(np.array([batch, seq, d], np.int64))])
    x = norm(g.op("Add", ["x", g.linear(o, d, d)]))
    y = g.linear(gelu(g.linear(x, d, 4 * d)), 4 * d, d)
    return g.model("bert_block", {"x": [batch, seq, d]}, norm(g.op("Add", [x, y])))


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "stem_224": stem_224,
    "squeezenet": squeezenet,
    "squeezenet_b4": lambda: squeezenet(batch=4, size=112),
    "mobilenet_v2": mobilenet_v2,
    "mobilenet_hswish": lambda: mobilenet_v2(size=160, act_name="hardswish"),
    "tiny_yolo": tiny_yolo,
    "silu_net": silu_net,
    "fpn_neck": fpn_neck,
    "resnet18": lambda: resnet(18),
    "resnet18_b4": lambda: resnet(18, batch=4, size=112),
    "resnet50": lambda: resnet(50),
    "vgg_64": vgg_64,
    "wide_mlp": wide_mlp,
    "small_mlp": small_mlp,
    "attention": attention,
    "vit_block": lambda: attention(seq=197, d=384, heads=6),  # ViT-S/16's tokens and width
    "efficientnet": efficientnet,
    "yolo_sppf": yolo_sppf,
    "bert_block": bert_block,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("names", nargs="*", help=f"default: all of {', '.join(MODELS)}")
    args = parser.parse_args(argv)
    unknown = set(args.names) - set(MODELS)
    if unknown:
        parser.error(f"unknown model(s): {', '.join(sorted(unknown))}")
    args.outdir.mkdir(parents=True, exist_ok=True)
    for name in args.names or MODELS:
        onnx.save(MODELS[name](), args.outdir / f"{name}.onnx")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
