"""Seeded model zoo: small ONNX models that look like real exporter output.

The compiler has to cope with what exporters actually write -- scoped PyTorch names,
Shape/Gather/Unsqueeze/Concat/Reshape chains, Identity and Cast no-ops, Constant-node
operands, dynamic batch dims -- not only with textbook graphs. These builders use
onnx.helper + numpy only (no torch, no downloads) and are seeded, so the serialized
bytes are deterministic and the models can be regenerated instead of vendored.

    python examples/zoo.py OUTDIR [NAME ...]   # write OUTDIR/<name>.onnx
    python examples/zoo.py --example           # write examples/mnist.onnx
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import math
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 8  # the onnxruntime used in the tests cannot load newer IR versions
F32 = TensorProto.FLOAT


def vi(name: str, dims: list) -> onnx.ValueInfoProto:
    """Float tensor value info; string dims become dynamic (dim_param) dims."""
    return helper.make_tensor_value_info(name, F32, dims)


def torch_scope(path: str) -> str:
    """Module path to torch.onnx scope: "layer1.0.conv1" -> "/layer1/layer1.0/conv1"."""
    parts = path.split(".") if path else []
    return "".join(f"/{parts[i - 1]}.{p}" if p.isdigit() else f"/{p}" for i, p in enumerate(parts))


class Builder:
    """Accumulates nodes and initializers and hands out unique, exporter-style names."""

    def __init__(self, seed: int, out_fmt: str = "{name}_output_{i}"):
        self.rng = np.random.default_rng(seed)
        self.out_fmt = out_fmt  # default output name derived from the node name
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.used: set[str] = set()
        self.counts: dict[str, int] = {}
        self.seen: dict[bytes, str] = {}

    # -- names ---------------------------------------------------------------
    def count(self, key: str) -> int:
        """0, 1, 2, ... per key."""
        self.counts[key] = self.counts.get(key, -1) + 1
        return self.counts[key]

    def unique(self, base: str) -> str:
        """torch.onnx suffixes repeats within a scope: Add, Add_1, Add_2, ..."""
        name, i = base, 0
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return name

    def var(self, kind: str) -> str:
        """Paddle variable name: conv2d_0, conv2d_1, batch_norm_0, tmp_0, ..."""
        return f"{kind}_{self.count(kind)}"

    # -- nodes ---------------------------------------------------------------
    def node(self, op, inputs, name, outputs=None, n_out=1, **attrs):
        name = self.unique(name)
        if outputs is None:
            outputs = [self.out_fmt.format(name=name, i=i) for i in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def t(self, op, inputs, path="", outputs=None, n_out=1, **attrs):
        """A node named the way torch.onnx names it: "<scope>/<Op>"."""
        return self.node(op, inputs, f"{torch_scope(path)}/{op}", outputs, n_out, **attrs)

    def const(self, value, path="", dtype=np.int64):
        """torch.onnx writes small operands as Constant nodes, not initializers."""
        return self.t("Constant", [], path, value=numpy_helper.from_array(np.asarray(value, dtype)))

    def p(self, op, inputs, output, **attrs):
        """A node named the way Paddle2ONNX names it; tensors keep Paddle variable names
        (`output`: one name, or a list of them)."""
        outputs = output if isinstance(output, list) else [output]
        return self.node(op, inputs, f"p2o.{op}.{self.count('p2o.' + op)}", outputs, **attrs)

    def pconst(self, value, dtype=np.float32):
        out = f"p2o.helper.constant.{self.count('helper.constant')}"
        return self.p("Constant", [], out, value=numpy_helper.from_array(np.asarray(value, dtype)))

    # -- traced PyTorch shape arithmetic ---------------------------------------
    def size(self, x, dim, path=""):
        """x.size(dim) traced with a dynamic shape: Shape -> Gather(Constant dim)."""
        return self.t("Gather", [self.t("Shape", [x], path), self.const(dim, path)], path, axis=0)

    def view(self, x, dims, path=""):
        """x.view(*dims): traced sizes are Unsqueezed, literals become Constant [d], then Concat."""
        parts = [
            self.t("Unsqueeze", [d, self.const([0], path)], path) if isinstance(d, str) else self.const([d], path)
            for d in dims
        ]
        return self.t("Reshape", [x, self.t("Concat", parts, path, axis=0)], path)

    # -- weights -------------------------------------------------------------
    def normal(self, shape, std):
        return self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)

    def he(self, shape, fan_in):
        return self.normal(shape, math.sqrt(2.0 / fan_in))

    def uniform(self, lo, hi, shape):
        return self.rng.uniform(lo, hi, shape).astype(np.float32)

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def param(self, name, array):
        """torch.onnx deduplicates equal initializers; later copies become Identity nodes."""
        key = hashlib.sha1(np.ascontiguousarray(array)).digest() + str((array.dtype, array.shape)).encode()
        if key in self.seen:
            return self.node("Identity", [self.seen[key]], f"Identity_{self.count('Identity')}", [name])
        self.seen[key] = name
        return self.init(name, array)

    def model(self, graph_name, inputs, outputs, opset):
        graph = helper.make_graph(self.nodes, graph_name, inputs, outputs, self.inits)
        return helper.make_model(
            graph, producer_name="mrvl-xdsl zoo", ir_version=IR_VERSION, opset_imports=[helper.make_opsetid("", opset)]
        )


def bn_stats(g: Builder, c: int, unit_var: bool = False, gamma=(0.8, 1.2)):
    """scale, bias, mean, var -- trained-looking, var > 0 so eval-mode BN stays finite."""
    var = np.ones(c, np.float32) if unit_var else g.uniform(0.5, 1.5, c)
    return g.uniform(*gamma, c), g.normal(c, 0.1), g.normal(c, 0.1), var


# -- CNTK (ONNX zoo mnist-12) ----------------------------------------------------


def mnist_cnn() -> onnx.ModelProto:
    """CNTK export as in the ONNX zoo's mnist-12: bias-less Conv followed by a separate Add of a
    [C,1,1] initializer, ParameterNN / OpNN_Output_0 names, a Reshape with a constant shape
    initializer in front of the MatMul."""
    g = Builder(0, out_fmt="{name}_Output_{i}")
    x = "Input3"
    stages = [
        (1, 8, 2, "Convolution28 Parameter5 Plus30 Parameter6 ReLU32 Pooling66"),
        (8, 16, 3, "Convolution110 Parameter87 Plus112 Parameter88 ReLU114 Pooling160"),
    ]
    for cin, cout, pool, names in stages:
        conv, w, plus, b, relu, pooling = names.split()
        w = g.init(w, g.he((cout, cin, 5, 5), cin * 25))
        x = g.node("Conv", [x, w], conv, kernel_shape=[5, 5], strides=[1, 1], pads=[2] * 4, dilations=[1, 1], group=1)
        x = g.node("Add", [x, g.init(b, g.normal((cout, 1, 1), 0.1))], plus)
        x = g.node("Relu", [x], relu)
        x = g.node("MaxPool", [x], pooling, kernel_shape=[pool] * 2, strides=[pool] * 2, pads=[0] * 4)
    shape = g.init("Pooling160_Output_0_reshape0_shape", np.array([1, 256], np.int64))
    x = g.node("Reshape", [x, shape], "Times212_reshape0")
    x = g.node("MatMul", [x, g.init("Parameter193_reshape1", g.he((256, 10), 256))], "Times212")
    g.node("Add", [x, g.init("Parameter194", g.normal((1, 10), 0.1))], "Plus214")
    return g.model("CNTKGraph", [vi("Input3", [1, 1, 28, 28])], [vi("Plus214_Output_0", [1, 10])], 12)


# -- PyTorch (torchvision-style ResNets) -----------------------------------------------


def conv_bn(g: Builder, x, conv, bn, cin, cout, k, stride, unit_var, gamma=(0.8, 1.2)):
    """Bias-less Conv + BatchNormalization, as exported with do_constant_folding=False (BN kept)."""
    w = g.param(f"{conv}.weight", g.he((cout, cin, k, k), cin * k * k))
    attrs = dict(dilations=[1, 1], group=1, kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2)
    x = g.t("Conv", [x, w], conv, **attrs)
    names = ("weight", "bias", "running_mean", "running_var")
    stats = [g.param(f"{bn}.{n}", a) for n, a in zip(names, bn_stats(g, cout, unit_var, gamma))]
    return g.t("BatchNormalization", [x, *stats], bn, epsilon=1e-5, momentum=0.9)


def res_block(g: Builder, x, path, cin, width, stride, bottleneck, unit_var):
    """torchvision BasicBlock / Bottleneck (v1.5: stride on the 3x3). The block's single ReLU
    module is called repeatedly, hence the relu, relu_1, relu_2 scopes. The branch's last BN gets a
    small scale, as in trained ResNets, so activations do not double with every block."""
    if bottleneck:
        specs = [(1, 1, width), (3, stride, width), (1, 1, 4 * width)]  # (kernel, stride, out channels)
    else:
        specs = [(3, stride, width), (3, 1, width)]
    relu = ["relu"] + [f"relu_{i}" for i in range(1, len(specs))]
    y, c = x, cin
    for i, (k, s, cout) in enumerate(specs):
        gamma = (0.2, 0.4) if i == len(specs) - 1 else (0.8, 1.2)
        y = conv_bn(g, y, f"{path}.conv{i + 1}", f"{path}.bn{i + 1}", c, cout, k, s, unit_var, gamma)
        c = cout
        if i < len(specs) - 1:
            y = g.t("Relu", [y], f"{path}.{relu[i]}")
    if stride != 1 or cin != c:
        x = conv_bn(g, x, f"{path}.downsample.0", f"{path}.downsample.1", cin, c, 1, stride, unit_var)
    return g.t("Relu", [g.t("Add", [y, x], path)], f"{path}.{relu[-1]}"), c


def resnet(g: Builder, x, stem, stages, bottleneck, unit_var=False):
    """Stem, residual stages [(width, blocks)], global pool; returns (pooled tensor, channels)."""
    x = g.t("Relu", [conv_bn(g, x, "conv1", "bn1", 3, stem, 7, 2, unit_var)], "relu")
    x = g.t("MaxPool", [x], "maxpool", ceil_mode=0, dilations=[1, 1], kernel_shape=[3, 3], pads=[1] * 4, strides=[2, 2])
    c = stem
    for li, (width, blocks) in enumerate(stages, 1):
        for b in range(blocks):
            stride = 2 if b == 0 and li > 1 else 1
            x, c = res_block(g, x, f"layer{li}.{b}", c, width, stride, bottleneck, unit_var)
    return g.t("GlobalAveragePool", [x], "avgpool"), c


def fc(g: Builder, x, cin, classes):
    w, b = g.param("fc.weight", g.he((classes, cin), cin)), g.param("fc.bias", g.normal(classes, 0.01))
    return g.t("Gemm", [x, w, b], "fc", outputs=["output"], alpha=1.0, beta=1.0, transB=1)


def resnet_small() -> onnx.ModelProto:
    """PyTorch export of a small ResNet: "/layer1/layer1.0/conv1/Conv" node scopes, dotted weight
    names, dynamic "batch_size", Identity nodes from initializer dedup (the BN running_var buffers
    are all ones, as in a checkpoint exported before training), and x.view(x.size(0), -1) traced as
    Shape -> Gather -> Unsqueeze -> Concat(-1) -> Reshape instead of Flatten."""
    g = Builder(1)
    x, c = resnet(g, "input", 32, [(32, 2), (64, 2)], bottleneck=False, unit_var=True)
    fc(g, g.view(x, [g.size(x, 0), -1]), c, 10)
    return g.model("main_graph", [vi("input", ["batch_size", 3, 64, 64])], [vi("output", ["batch_size", 10])], 17)


def resnet50_sized() -> onnx.ModelProto:
    """torchvision resnet50 at full size (bottlenecks [3,4,6,3], ~25.6M parameters, random weights)
    with the same PyTorch naming as resnet_small; torch.flatten(x, 1) exported as Flatten."""
    g = Builder(4)
    x, c = resnet(g, "input", 64, [(64, 3), (128, 4), (256, 6), (512, 3)], bottleneck=True)
    fc(g, g.t("Flatten", [x], axis=1), c, 1000)
    return g.model("main_graph", [vi("input", [1, 3, 224, 224])], [vi("output", [1, 1000])], 17)


# -- Paddle2ONNX (MobileNetV2/V3-style segmenter) ----------------------------------------


def p_conv(g: Builder, x, cin, cout, k, stride=1, groups=1, bias=False):
    conv = g.var("conv2d")
    inputs = [x, g.init(f"{conv}.w_0", g.he((cout, cin // groups, k, k), cin // groups * k * k))]
    if bias:
        inputs.append(g.init(f"{conv}.b_0", g.normal(cout, 0.01)))
    attrs = dict(dilations=[1, 1], group=groups, kernel_shape=[k, k], pads=[(k - 1) // 2] * 4, strides=[stride] * 2)
    return g.p("Conv", inputs, f"{conv}.tmp_0", **attrs)


def p_bn(g: Builder, x, c):
    bn = g.var("batch_norm")
    stats = [g.init(f"{bn}.{s}", a) for s, a in zip(("w_0", "b_0", "w_1", "w_2"), bn_stats(g, c))]
    return g.p("BatchNormalization", [x, *stats], f"{bn}.tmp_2", epsilon=1e-5, momentum=0.9)


def relu6(g: Builder, x):
    """Paddle relu6 -> Clip whose bounds are Constant-node operands (opset >= 11 form)."""
    return g.p("Clip", [x, g.pconst(0.0), g.pconst(6.0)], f"{g.var('relu6')}.tmp_0")


def hardswish(g: Builder, x):
    return g.p("HardSwish", [x], f"{g.var('hardswish')}.tmp_0")


def squeeze_excite(g: Builder, x, c, reduction=4):
    """PaddleClas SEModule: pool -> 1x1 conv -> ReLU -> 1x1 conv -> hardsigmoid(0.2, 0.5) -> Mul."""
    s = g.p("GlobalAveragePool", [x], f"{g.var('pool2d')}.tmp_0")
    s = g.p("Relu", [p_conv(g, s, c, c // reduction, 1, bias=True)], f"{g.var('relu')}.tmp_0")
    s = p_conv(g, s, c // reduction, c, 1, bias=True)
    s = g.p("HardSigmoid", [s], f"{g.var('hardsigmoid')}.tmp_0", alpha=0.2, beta=0.5)
    return g.p("Mul", [x, s], g.var("tmp"))


def inverted_residual(g: Builder, x, cin, hidden, cout, k, stride, act, se=False):
    """1x1 expand (skipped when hidden == cin), depthwise kxk (group = channels), optional SE,
    linear 1x1 project, residual Add when shapes allow."""
    y = act(g, p_bn(g, p_conv(g, x, cin, hidden, 1), hidden)) if hidden != cin else x
    y = act(g, p_bn(g, p_conv(g, y, hidden, hidden, k, stride, groups=hidden), hidden))
    if se:
        y = squeeze_excite(g, y, hidden)
    y = p_bn(g, p_conv(g, y, hidden, cout, 1), cout)
    return g.p("Add", [x, y], g.var("tmp")) if stride == 1 and cin == cout else y


def mobilenet_small() -> onnx.ModelProto:
    """Paddle2ONNX export of a MobileNetV2/V3-style segmenter: p2o.<Op>.<n> node names, Paddle
    variable names (conv2d_3.w_0, batch_norm_3.w_2), Clip bounds as Constant nodes, a no-op Cast
    after the nearest Resize (scales input, empty roi), Identity for inference-mode dropout and for
    the trailing save_infer_model scale op."""
    g = Builder(2)
    stem = relu6(g, p_bn(g, p_conv(g, "images", 3, 16, 3, 2), 16))  # 48x48
    x = inverted_residual(g, stem, 16, 16, 16, 3, 1, relu6)  # 48x48
    x = inverted_residual(g, x, 16, 64, 24, 3, 2, relu6)  # 24x24
    x = inverted_residual(g, x, 24, 72, 24, 5, 1, hardswish, se=True)  # 24x24
    x = inverted_residual(g, x, 24, 96, 32, 3, 2, hardswish, se=True)  # 12x12
    # Decoder: learned 2x upsample, nearest 2x upsample, fuse with the stem features.
    up = g.var("conv2d_transpose")
    w = g.init(f"{up}.w_0", g.he((32, 16, 2, 2), 32))
    attrs = dict(dilations=[1, 1], group=1, kernel_shape=[2, 2], pads=[0] * 4, strides=[2, 2])
    x = g.p("ConvTranspose", [x, w], f"{up}.tmp_0", **attrs)  # 24x24
    x = g.p("Relu", [p_bn(g, x, 16)], f"{g.var('relu')}.tmp_0")
    scales = g.pconst([1.0, 1.0, 2.0, 2.0])
    resize = dict(coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor")
    x = g.p("Resize", [x, "", scales], f"{g.var('nearest_interp_v2')}.tmp_0", **resize)  # 48x48
    x = g.p("Cast", [x], f"{g.var('cast')}.tmp_0", to=F32)
    x = g.p("Concat", [x, stem], f"{g.var('concat')}.tmp_0", axis=1)
    x = g.p("Identity", [x], f"{g.var('dropout')}.tmp_0")
    x = p_conv(g, x, 32, 4, 1, bias=True)
    g.p("Identity", [x], "save_infer_model/scale_0.tmp_0")
    return g.model(
        "Paddle2ONNX", [vi("images", ["N", 3, 96, 96])], [vi("save_infer_model/scale_0.tmp_0", ["N", 4, 48, 48])], 17
    )


# -- PyTorch (torchvision MobileNetV2 and SqueezeNet 1.1, Ultralytics YOLOv3-tiny) --------------


def folded_conv(g: Builder, x, path, cin, cout, k, stride=1, groups=1, pads=None, trained_bn=False):
    """A Conv whose BatchNormalization torch.onnx folded in (do_constant_folding=True): an
    anonymous onnx::Conv_<n> weight and bias, scaled as trained weights are. `trained_bn`
    folds in a gain and shift per channel as trained MobileNetV2 layers hold them: gains
    log-normal around 0.3 (many channels small, a few large), shifts around -0.2 of the
    gain, so many ReLU6 outputs are small positive values (15% in (0, 0.1), 6% above 1)."""
    n = 500 + 2 * g.count("onnx::Conv")
    w = g.he((cout, cin // groups, k, k), cin // groups * k * k)
    b = g.normal(cout, 0.1)
    if trained_bn:
        gain = np.float32(0.3) * np.exp(g.normal(cout, 1.2))
        w, b = w * gain[:, None, None, None], (g.normal(cout, 0.5) - np.float32(0.2)) * gain
    w, b = g.init(f"onnx::Conv_{n}", w), g.init(f"onnx::Conv_{n + 1}", b)
    pads = [(k - 1) // 2] * 4 if pads is None else pads
    attrs = dict(dilations=[1, 1], group=groups, kernel_shape=[k, k], pads=pads, strides=[stride] * 2)
    return g.t("Conv", [x, w, b], path, **attrs)


def torch_relu6(g: Builder, x, path):
    """nn.ReLU6 -> Clip with its bounds as Constant nodes of the module's scope."""
    lo, hi = g.const(0.0, path, np.float32), g.const(6.0, path, np.float32)
    return g.t("Clip", [x, lo, hi], path)


def mobilenet_v2() -> onnx.ModelProto:
    """torchvision mobilenet_v2 (width 0.5, six inverted-residual stages) as torch.onnx
    exports it: BatchNormalization folded into the convs, ReLU6 as Clip with Constant-node
    bounds, "/features/features.3/conv/conv.0/conv.0.0/Conv" scopes, residual Adds, the
    pooled features flattened into the classifier's Gemm (its Dropout gone in eval). Its
    folded batch norms are trained-looking (`trained_bn`): many ReLU6 outputs are small,
    where a ReLU6 computed in fp16 as 6 - (6 - x) loses them."""
    trained_conv = functools.partial(folded_conv, trained_bn=True)
    g = Builder(11)
    x = torch_relu6(g, trained_conv(g, "input", "features.0.0", 3, 16, 3, 2), "features.0.2")  # 48x48
    # (expansion, out channels, repeats, first stride), torchvision's table at width 0.5
    settings = [(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2), (6, 24, 2, 2), (6, 48, 1, 1)]
    cin, index = 16, 1
    for t, cout, repeats, first_stride in settings:
        for r in range(repeats):
            stride, path, hidden = first_stride if r == 0 else 1, f"features.{index}.conv", cin * t
            y, layer = x, 0
            if t != 1:
                y = torch_relu6(g, trained_conv(g, y, f"{path}.0.0", cin, hidden, 1), f"{path}.0.2")
                layer = 1
            y = torch_relu6(g, trained_conv(g, y, f"{path}.{layer}.0", hidden, hidden, 3, stride, hidden), f"{path}.{layer}.2")
            y = trained_conv(g, y, f"{path}.{layer + 1}", hidden, cout, 1)
            x = g.t("Add", [x, y], f"features.{index}") if stride == 1 and cin == cout else y
            cin, index = cout, index + 1
    x = torch_relu6(g, trained_conv(g, x, f"features.{index}.0", cin, 160, 1), f"features.{index}.2")
    x = g.t("Flatten", [g.t("GlobalAveragePool", [x], "")], "", axis=1)
    w, b = g.param("classifier.1.weight", g.he((10, 160), 160)), g.param("classifier.1.bias", g.normal(10, 0.01))
    g.t("Gemm", [x, w, b], "classifier.classifier.1", outputs=["output"], alpha=1.0, beta=1.0, transB=1)
    return g.model("main_graph", [vi("input", ["batch_size", 3, 96, 96])], [vi("output", ["batch_size", 10])], 17)


def squeezenet() -> onnx.ModelProto:
    """torchvision squeezenet1_1 (channels halved) as torch.onnx exports it: ceil_mode
    MaxPools, Fire modules whose 1x1 and 3x3 expand convs a Concat joins, the classifier's
    1x1 conv, Relu and global pool, then Flatten. At 98x98 every ceil_mode pool adds a last
    window that floor mode would not."""
    g = Builder(12)

    def pool(x, path):
        attrs = dict(ceil_mode=1, dilations=[1, 1], kernel_shape=[3, 3], pads=[0] * 4, strides=[2, 2])
        return g.t("MaxPool", [x], path, **attrs)

    def conv_relu(x, path, act, cin, cout, k, stride=1):
        w = g.param(f"{path}.weight", g.he((cout, cin, k, k), cin * k * k))
        b = g.param(f"{path}.bias", g.normal(cout, 0.05))
        attrs = dict(dilations=[1, 1], group=1, kernel_shape=[k, k], pads=[k // 2 if stride == 1 else 0] * 4,
                     strides=[stride] * 2)
        return g.t("Relu", [g.t("Conv", [x, w, b], path, **attrs)], act)

    def fire(x, index, cin, squeeze, expand):
        path = f"features.{index}"
        s = conv_relu(x, f"{path}.squeeze", f"{path}.squeeze_activation", cin, squeeze, 1)
        e1 = conv_relu(s, f"{path}.expand1x1", f"{path}.expand1x1_activation", squeeze, expand, 1)
        e3 = conv_relu(s, f"{path}.expand3x3", f"{path}.expand3x3_activation", squeeze, expand, 3)
        return g.t("Concat", [e1, e3], path, axis=1)

    x = conv_relu("input", "features.0", "features.1", 3, 32, 3, 2)  # 48x48
    x = fire(fire(pool(x, "features.2"), 3, 32, 8, 16), 4, 32, 8, 16)  # 24x24
    x = fire(fire(pool(x, "features.5"), 6, 32, 16, 32), 7, 64, 16, 32)  # 12x12
    x = pool(x, "features.8")  # 6x6
    x = fire(fire(x, 9, 64, 24, 48), 10, 96, 24, 48)
    x = conv_relu(x, "classifier.1", "classifier.2", 96, 10, 1)
    x = g.t("GlobalAveragePool", [x], "classifier.3")
    g.t("Flatten", [x], "", outputs=["output"], axis=1)
    return g.model("main_graph", [vi("input", ["batch_size", 3, 98, 98])], [vi("output", ["batch_size", 10])], 17)


YOLO_ANCHORS, YOLO_CLASSES = 3, 4


def yolov3_tiny() -> onnx.ModelProto:
    """Ultralytics YOLOv3-tiny (channels quartered, 4 classes) as torch.onnx exports it:
    Conv (BatchNormalization folded) + LeakyRelu(0.1) blocks, 2x2 MaxPools, the ZeroPad2d
    before the last, stride-1 MaxPool as a Pad, a neck that upsamples (Resize, scales as a
    Constant node) and concatenates the stride-16 route; two detection heads, each reshaped and
    permuted to [batch, anchors, H, W, 5 + classes] with traced Shape arithmetic."""
    g = Builder(13)

    def block(x, index, cin, cout, k):
        path = f"model.{index}"
        return g.t("LeakyRelu", [folded_conv(g, x, f"{path}.conv", cin, cout, k)], f"{path}.act", alpha=0.1)

    def maxpool(x, index):
        return g.t("MaxPool", [x], f"model.{index}", ceil_mode=0, kernel_shape=[2, 2], pads=[0] * 4, strides=[2, 2])

    def head(x, index, cin):
        outputs = YOLO_ANCHORS * (5 + YOLO_CLASSES)
        path = f"model.{index}.m.0"
        y = folded_conv(g, x, path, cin, outputs, 1)
        dims = [g.size(y, 0, f"model.{index}"), YOLO_ANCHORS, 5 + YOLO_CLASSES, g.size(y, 2, f"model.{index}"),
                g.size(y, 3, f"model.{index}")]
        y = g.view(y, dims, f"model.{index}")
        return g.t("Transpose", [y], f"model.{index}", perm=[0, 1, 3, 4, 2])

    x = "images"
    for index, (cin, cout) in enumerate([(3, 4), (4, 8), (8, 16), (16, 32)]):
        x = maxpool(block(x, 2 * index, cin, cout, 3), 2 * index + 1)  # 128 -> 8
    route = block(x, 8, 32, 64, 3)  # stride 16
    x = maxpool(route, 9)
    x = block(x, 10, 64, 128, 3)
    pads = g.const([0, 0, 0, 0, 0, 0, 1, 1], "model.11")
    x = g.t("Pad", [x, pads], "model.11", mode="constant")  # ZeroPad2d((0, 1, 0, 1))
    x = g.t("MaxPool", [x], "model.12", ceil_mode=0, kernel_shape=[2, 2], pads=[0] * 4, strides=[1, 1])
    x = block(x, 13, 128, 256, 3)
    neck = block(x, 14, 256, 64, 1)
    large = head(block(neck, 15, 64, 128, 3), 22, 128)
    up = block(neck, 16, 64, 32, 1)
    scales = g.const([1.0, 1.0, 2.0, 2.0], "model.17", np.float32)
    up = g.t("Resize", [up, "", scales], "model.17", coordinate_transformation_mode="asymmetric", mode="nearest",
             nearest_mode="floor")
    x = g.t("Concat", [up, route], "model.18", axis=1)
    small = head(block(x, 19, 96, 64, 3), 23, 64)
    outputs = [g.t("Identity", [t], f"output{i}", outputs=[f"output{i}"]) for i, t in enumerate((large, small))]
    dims = [["batch", YOLO_ANCHORS, h, h, 5 + YOLO_CLASSES] for h in (4, 8)]
    return g.model("main_graph", [vi("images", ["batch", 3, 128, 128])], [vi(o, d) for o, d in zip(outputs, dims)], 17)


# -- PyTorch (pre-LN transformer encoder block) ----------------------------------------

D_MODEL, SEQ, HEADS, D_FF = 64, 16, 4, 256


def linear(g: Builder, x, path, cin, cout):
    """nn.Linear on a 3-D input: MatMul with the pre-transposed weight (an anonymous
    onnx::MatMul_<n> initializer), then Add with the bias as the *first* operand."""
    w = g.init(f"onnx::MatMul_{301 + g.count('onnx::MatMul')}", g.normal((cin, cout), 1 / math.sqrt(cin)))
    return g.t("Add", [g.param(f"{path}.bias", g.normal(cout, 0.02)), g.t("MatMul", [x, w], path)], path)


def layer_norm(g: Builder, x, path):
    scale = g.param(f"{path}.weight", g.uniform(0.8, 1.2, D_MODEL))
    bias = g.param(f"{path}.bias", g.normal(D_MODEL, 0.02))
    return g.t("LayerNormalization", [x, scale, bias], path, axis=-1, epsilon=1e-5)


def gelu(g: Builder, x, path):
    """nn.GELU() as torch.onnx writes it before opset 20: x * (1 + erf(x / sqrt 2)) * 0.5."""
    erf = g.t("Erf", [g.t("Div", [x, g.const(math.sqrt(2), path, np.float32)], path)], path)
    x = g.t("Mul", [x, g.t("Add", [erf, g.const(1.0, path, np.float32)], path)], path)
    return g.t("Mul", [x, g.const(0.5, path, np.float32)], path)


def transformer_block() -> onnx.ModelProto:
    """PyTorch export of one pre-LN encoder block with a dynamic batch: traced x.size() as
    Shape/Gather, view() as Unsqueeze/Concat/Reshape with Constant nodes, pos_embed[:, :T] as a
    Slice with a traced end, Linear as MatMul + Add(bias, .), GEGLU MLP (Split, Erf-form GELU), and
    y[:, 0] as a Gather feeding a second "cls" output."""
    g = Builder(3)
    pos = g.param("pos_embed", g.normal((1, 32, D_MODEL), 0.02))  # longer than SEQ, as for max_len
    end = g.t("Unsqueeze", [g.size("x", 1), g.const([0])])
    x = g.t("Add", ["x", g.t("Slice", [pos, g.const([0]), end, g.const([1]), g.const([1])])])

    h, dh = layer_norm(g, x, "norm1"), D_MODEL // HEADS
    batch, seq = g.size(h, 0, "attn"), g.size(h, 1, "attn")

    def split_heads(n):  # self.{n}_proj(h).view(B, T, heads, dh).transpose(1, 2)
        t = g.view(linear(g, h, f"attn.{n}_proj", D_MODEL, D_MODEL), [batch, seq, HEADS, dh], "attn")
        return g.t("Transpose", [t], "attn", perm=[0, 2, 1, 3])

    q, k, v = (split_heads(n) for n in "qkv")
    scores = g.t("MatMul", [q, g.t("Transpose", [k], "attn", perm=[0, 1, 3, 2])], "attn")
    scores = g.t("Div", [scores, g.const(math.sqrt(dh), "attn", np.float32)], "attn")
    o = g.t("MatMul", [g.t("Softmax", [scores], "attn", axis=-1), v], "attn")
    o = g.view(g.t("Transpose", [o], "attn", perm=[0, 2, 1, 3]), [batch, seq, D_MODEL], "attn")
    x = g.t("Add", [x, linear(g, o, "attn.out_proj", D_MODEL, D_MODEL)])

    h = linear(g, layer_norm(g, x, "norm2"), "mlp.fc1", D_MODEL, 2 * D_FF)
    a, gate = g.t("Split", [h, g.const([D_FF, D_FF], "mlp")], "mlp", n_out=2, axis=-1)
    h = g.t("Mul", [a, gelu(g, gate, "mlp.act")], "mlp")
    y = g.t("Add", [x, linear(g, h, "mlp.fc2", D_FF, D_MODEL)], outputs=["y"])
    g.t("Gather", [y, g.const(0)], outputs=["cls"], axis=1)
    outputs = [vi("y", ["batch", SEQ, D_MODEL]), vi("cls", ["batch", D_MODEL])]
    return g.model("main_graph", [vi("x", ["batch", SEQ, D_MODEL])], outputs, 17)


# -- Hugging Face (a T5 encoder, as flan-t5 exports) ----------------------------------------

T5_VOCAB, T5_SEQ, T5_MODEL, T5_HEADS, T5_FF, T5_BUCKETS, T5_MAX_DISTANCE = 96, 12, 32, 4, 64, 32, 128


def t5_norm(g: Builder, x, path):
    """T5LayerNorm (RMS, no mean, no bias): x * rsqrt(mean(x^2) + eps) * weight."""
    variance = g.t("ReduceMean", [g.t("Pow", [x, g.const(2.0, path, np.float32)], path)], path, axes=[-1], keepdims=1)
    scale = g.t("Sqrt", [g.t("Add", [variance, g.const(1e-6, path, np.float32)], path)], path)
    x = g.t("Mul", [x, g.t("Reciprocal", [scale], path)], path)
    return g.t("Mul", [g.param(f"{path}.weight", g.uniform(0.8, 1.2, T5_MODEL)), x], path)


def t5_relative_buckets(g: Builder, seq, path):
    """T5's bidirectional relative position buckets of a [seq, seq] grid, traced from the
    input's length: half the buckets by sign, exact below max_exact, logarithmic above."""
    positions = g.t("Range", [g.const(0, path), seq, g.const(1, path)], path)
    relative = g.t("Sub", [g.t("Unsqueeze", [positions, g.const([0], path)], path),
                           g.t("Unsqueeze", [positions, g.const([1], path)], path)], path)
    half, exact = T5_BUCKETS // 2, T5_BUCKETS // 4
    sign = g.t("Mul", [g.t("Cast", [g.t("Greater", [relative, g.const(0, path)], path)], path, to=7),
                       g.const(half, path)], path)
    distance = g.t("Abs", [relative], path)
    log_ratio = g.t("Div", [g.t("Log", [g.t("Div", [g.t("Cast", [distance], path, to=1),
                                                     g.const(float(exact), path, np.float32)], path)], path),
                            g.const(math.log(T5_MAX_DISTANCE / exact), path, np.float32)], path)
    large = g.t("Add", [g.const(exact, path), g.t("Cast", [g.t("Mul", [log_ratio, g.const(float(half - exact), path,
                                                                                      np.float32)], path)], path, to=7)], path)
    large = g.t("Min", [large, g.const(half - 1, path)], path)
    bucket = g.t("Where", [g.t("Less", [distance, g.const(exact, path)], path), distance, large], path)
    return g.t("Add", [sign, bucket], path)


def t5_matmul_weight(g: Builder, rows: int, columns: int) -> str:
    """A bias-free linear layer's weight, as torch.onnx names the transposed copy it writes."""
    return g.init(f"onnx::MatMul_{401 + g.count('onnx::MatMul')}", g.normal((rows, columns), 0.2))


def t5_attention(g: Builder, x, h, kv, bias, path):
    """x + T5Attention(h): queries from h, keys and values from kv (h itself, or the encoder's
    states), no 1/sqrt(d) scaling, `bias` (position bias and mask) added to the scores."""
    dh = T5_MODEL // T5_HEADS
    batch = g.size(h, 0, f"{path}.attn")

    def heads(n, source):
        w = t5_matmul_weight(g, T5_MODEL, T5_MODEL)
        t = g.view(g.t("MatMul", [source, w], f"{path}.attn.{n}"), [batch, -1, T5_HEADS, dh], f"{path}.attn")
        return g.t("Transpose", [t], f"{path}.attn", perm=[0, 2, 1, 3])

    q, k, v = heads("q", h), heads("k", kv), heads("v", kv)
    scores = g.t("MatMul", [q, g.t("Transpose", [k], f"{path}.attn", perm=[0, 1, 3, 2])], f"{path}.attn")
    weights = g.t("Softmax", [g.t("Add", [scores, bias], f"{path}.attn")], f"{path}.attn", axis=-1)
    o = g.t("Transpose", [g.t("MatMul", [weights, v], f"{path}.attn")], f"{path}.attn", perm=[0, 2, 1, 3])
    o = g.view(o, [batch, -1, T5_MODEL], f"{path}.attn")
    return g.t("Add", [x, g.t("MatMul", [o, t5_matmul_weight(g, T5_MODEL, T5_MODEL)], f"{path}.attn.o")], path)


def t5_feed_forward(g: Builder, x, h, path):
    """x + the gated-GELU (tanh form) feed-forward of h."""
    wi0, wi1, wo = (t5_matmul_weight(g, *shape) for shape in ((T5_MODEL, T5_FF), (T5_MODEL, T5_FF), (T5_FF, T5_MODEL)))
    gate = g.t("MatMul", [h, wi0], f"{path}.ff.wi_0")
    cube = g.t("Mul", [g.t("Pow", [gate, g.const(3.0, f"{path}.ff", np.float32)], f"{path}.ff"),
                       g.const(0.044715, f"{path}.ff", np.float32)], f"{path}.ff")
    inner = g.t("Mul", [g.t("Add", [gate, cube], f"{path}.ff"),
                        g.const(math.sqrt(2 / math.pi), f"{path}.ff", np.float32)], f"{path}.ff")
    gelu = g.t("Mul", [g.t("Mul", [gate, g.const(0.5, f"{path}.ff", np.float32)], f"{path}.ff"),
                       g.t("Add", [g.t("Tanh", [inner], f"{path}.ff"), g.const(1.0, f"{path}.ff", np.float32)],
                           f"{path}.ff")], f"{path}.ff")
    h = g.t("Mul", [gelu, g.t("MatMul", [h, wi1], f"{path}.ff.wi_1")], f"{path}.ff")
    return g.t("Add", [x, g.t("MatMul", [h, wo], f"{path}.ff.wo")], path)


def t5_encoder() -> onnx.ModelProto:
    """Hugging Face's export of a T5 encoder (flan-t5's layout, two blocks): token embeddings
    gathered from int64 ids with a dynamic batch and length, RMS norms, attention without
    biases or 1/sqrt(d) whose position bias the first block computes from traced relative
    buckets and the second reuses, a gated-GELU (tanh form) feed-forward, and a final norm."""
    g = Builder(13)
    x = g.t("Gather", [g.param("shared.weight", g.normal((T5_VOCAB, T5_MODEL), 1.0)), "input_ids"], "embed")
    seq = g.size("input_ids", 1, "embed")
    buckets = t5_relative_buckets(g, seq, "block.0.attn.bias")
    table = g.param("block.0.attn.relative_attention_bias.weight", g.normal((T5_BUCKETS, T5_HEADS), 0.5))
    bias = g.t("Unsqueeze", [g.t("Transpose", [g.t("Gather", [table, buckets], "bias")], "bias", perm=[2, 0, 1]),
                             g.const([0], "bias")], "bias")
    for block in range(2):
        path = f"block.{block}"
        h = t5_norm(g, x, f"{path}.norm1")
        x = t5_attention(g, x, h, h, bias, path)
        x = t5_feed_forward(g, x, t5_norm(g, x, f"{path}.norm2"), path)
    t5_norm(g, x, "final_norm")
    g.nodes[-1].output[0] = "last_hidden_state"
    inputs = [helper.make_tensor_value_info("input_ids", onnx.TensorProto.INT64, ["batch", "sequence"])]
    return g.model("main_graph", inputs, [vi("last_hidden_state", ["batch", "sequence", T5_MODEL])], 17)


def t5_causal_buckets(g: Builder, seq, path):
    """T5's unidirectional relative position buckets of a [seq, seq] grid (a decoder's): the
    distance back to each earlier key, exact below max_exact, logarithmic above, later keys 0."""
    positions = g.t("Range", [g.const(0, path), seq, g.const(1, path)], path)
    relative = g.t("Sub", [g.t("Unsqueeze", [positions, g.const([0], path)], path),
                           g.t("Unsqueeze", [positions, g.const([1], path)], path)], path)
    distance = g.t("Neg", [g.t("Min", [relative, g.t("ConstantOfShape", [g.t("Shape", [relative], path)], path,
                                                         value=numpy_helper.from_array(np.zeros(1, np.int64)))],
                                  path)], path)
    exact = T5_BUCKETS // 2
    log_ratio = g.t("Div", [g.t("Log", [g.t("Div", [g.t("Cast", [distance], path, to=1),
                                                     g.const(float(exact), path, np.float32)], path)], path),
                            g.const(math.log(T5_MAX_DISTANCE / exact), path, np.float32)], path)
    large = g.t("Add", [g.const(exact, path), g.t("Cast", [g.t("Mul", [log_ratio, g.const(float(T5_BUCKETS - exact),
                                                                                      path, np.float32)], path)],
                                                   path, to=7)], path)
    large = g.t("Min", [large, g.t("Expand", [g.const(T5_BUCKETS - 1, path), g.t("Shape", [large], path)], path)],
                path)
    return g.t("Where", [g.t("Less", [distance, g.const(exact, path)], path), distance, large], path)


def t5_extended_mask(g: Builder, mask, path):
    """(1 - mask) * float32's lowest: 0 where attended, a large negative score elsewhere."""
    return g.t("Mul", [g.t("Sub", [g.const(1.0, path, np.float32), g.t("Cast", [mask], path, to=1)], path),
                       g.const(np.finfo(np.float32).min, path, np.float32)], path)


def t5_decoder() -> onnx.ModelProto:
    """Hugging Face's export of a T5 decoder without past keys (flan-t5's decoder_model.onnx
    layout, two blocks): causal self-attention whose mask compares traced positions (Range,
    Tile, LessOrEqual) and whose position bias comes from unidirectional buckets, cross
    attention over the encoder's states under its attention mask, the gated-GELU
    feed-forward, a final norm and an untied LM head to the vocabulary's logits."""
    g = Builder(13)
    x = g.t("Gather", [g.param("shared.weight", g.normal((T5_VOCAB, T5_MODEL), 1.0)), "input_ids"], "embed")
    batch, seq = g.size("input_ids", 0, "embed"), g.size("input_ids", 1, "embed")
    # self-attention: causal mask [batch, 1, seq, seq] plus the bucketed position bias
    positions = g.t("Range", [g.const(0, "mask"), seq, g.const(1, "mask")], "mask")
    rows = g.t("Unsqueeze", [positions, g.const([0, 1], "mask")], "mask")
    repeats = g.t("Concat", [g.t("Unsqueeze", [batch, g.const([0], "mask")], "mask"),
                             g.t("Unsqueeze", [seq, g.const([0], "mask")], "mask"), g.const([1], "mask")], "mask",
                  axis=0)
    causal = g.t("LessOrEqual", [g.t("Tile", [rows, repeats], "mask"),
                                 g.t("Unsqueeze", [positions, g.const([0, 2], "mask")], "mask")], "mask")
    self_mask = t5_extended_mask(g, g.t("Unsqueeze", [causal, g.const([1], "mask")], "mask"), "mask")
    buckets = t5_causal_buckets(g, seq, "block.0.attn.bias")
    table = g.param("block.0.attn.relative_attention_bias.weight", g.normal((T5_BUCKETS, T5_HEADS), 0.5))
    position = g.t("Unsqueeze", [g.t("Transpose", [g.t("Gather", [table, buckets], "bias")], "bias", perm=[2, 0, 1]),
                                 g.const([0], "bias")], "bias")
    self_bias = g.t("Add", [position, self_mask], "bias")
    cross_bias = t5_extended_mask(g, g.t("Unsqueeze", ["encoder_attention_mask", g.const([1, 2], "cross_mask")],
                                         "cross_mask"), "cross_mask")
    for block in range(2):
        path = f"block.{block}"
        h = t5_norm(g, x, f"{path}.norm1")
        x = t5_attention(g, x, h, h, self_bias, path)
        x = t5_attention(g, x, t5_norm(g, x, f"{path}.norm2"), "encoder_hidden_states", cross_bias, f"{path}.cross")
        x = t5_feed_forward(g, x, t5_norm(g, x, f"{path}.norm3"), path)
    h = t5_norm(g, x, "final_norm")
    g.t("MatMul", [h, t5_matmul_weight(g, T5_MODEL, T5_VOCAB)], "lm_head", outputs=["logits"])
    inputs = [helper.make_tensor_value_info("input_ids", onnx.TensorProto.INT64, ["batch", "decoder_sequence"]),
              helper.make_tensor_value_info("encoder_attention_mask", onnx.TensorProto.INT64,
                                            ["batch", "encoder_sequence"]),
              vi("encoder_hidden_states", ["batch", "encoder_sequence", T5_MODEL])]
    return g.model("main_graph", inputs, [vi("logits", ["batch", "decoder_sequence", T5_VOCAB])], 17)


# -- Paddle2ONNX (PaddleOCR text recognition) ---------------------------------------------

OCR_CLASSES = 37  # blank + 0-9 + a-z, PaddleOCR's en dictionary without symbols


def p_pool(g: Builder, x, kernel, stride):
    attrs = dict(kernel_shape=kernel, strides=stride, pads=[0] * 4, ceil_mode=0)
    return g.p("MaxPool", [x], f"{g.var('pool2d')}.tmp_0", **attrs)


def ocr_backbone(g: Builder, x):
    """A CRNN-style conv backbone that takes the 32-pixel text line to height 1:
    [N, 3, 32, W] -> [N, 64, 1, W/4], conv-BN-ReLU stages with 2x2 then 2x1 pools."""
    stages = [(3, 16, [2, 2]), (16, 32, [2, 2]), (32, 48, [2, 1]), (48, 64, [4, 1])]
    for cin, cout, pool in stages:
        x = g.p("Relu", [p_bn(g, p_conv(g, x, cin, cout, 3), cout)], f"{g.var('relu')}.tmp_0")
        x = p_pool(g, x, pool, pool)
    return x, stages[-1][1]


def im2seq(g: Builder, x, c):
    """PaddleOCR's Im2Seq: reshape(x, [0, C, -1]) (0 copies the batch dim) then
    transpose([0, 2, 1]) -> [N, W, C]."""
    x = g.p("Reshape", [x, g.pconst([0, c, -1], np.int64)], f"{g.var('reshape2')}.tmp_0")
    return g.p("Transpose", [x], f"{g.var('transpose')}.tmp_0", perm=[0, 2, 1])


def ctc_head(g: Builder, x, cin):
    """paddle.nn.Linear as MatMul + Add of the fc weights, then softmax over the classes."""
    fc = g.var("linear")
    x = g.p("MatMul", [x, g.init(f"{fc}.w_0", g.normal((cin, OCR_CLASSES), 1 / math.sqrt(cin)))], g.var("tmp"))
    x = g.p("Add", [x, g.init(f"{fc}.b_0", g.normal(OCR_CLASSES, 0.1))], g.var("tmp"))
    return g.p("Softmax", [x], "softmax_0.tmp_0", axis=2)


def paddle_ocr_rec() -> onnx.ModelProto:
    """Paddle2ONNX export of a PaddleOCR-style text recognizer (conv backbone, Im2Seq, CTC
    head): every dynamic dim written as `dim_value: -1` (no dim_param), on the input and the
    output alike, and Reshape with a 0 (copy) dim."""
    g = Builder(5)
    x, c = ocr_backbone(g, "x")
    ctc_head(g, im2seq(g, x, c), c)
    outputs = [helper.make_tensor_value_info("softmax_0.tmp_0", F32, [-1, -1, OCR_CLASSES])]
    return g.model("Paddle2ONNX", [vi("x", [-1, 3, -1, -1])], outputs, 14)


def paddle_crnn() -> onnx.ModelProto:
    """Paddle2ONNX export of PaddleOCR's CRNN: the same backbone and Im2Seq, then a
    bidirectional LSTM (SequenceEncoder "rnn"): transposed to [T, N, C], ONNX LSTM with both
    directions, Y [T, 2, N, H] transposed and reshaped back to [N, T, 2H], then the CTC head.
    """
    g, hidden = Builder(6), 48
    x, c = ocr_backbone(g, "x")
    x = g.p("Transpose", [im2seq(g, x, c)], f"{g.var('transpose')}.tmp_0", perm=[1, 0, 2])  # [T, N, C]
    lstm = g.var("lstm")
    w = g.init(f"{lstm}.w_0", g.normal((2, 4 * hidden, c), 1 / math.sqrt(c)))
    r = g.init(f"{lstm}.w_1", g.normal((2, 4 * hidden, hidden), 1 / math.sqrt(hidden)))
    b = g.init(f"{lstm}.b_0", g.normal((2, 8 * hidden), 0.1))
    name = g.unique(f"p2o.LSTM.{g.count('p2o.LSTM')}")
    y = f"{lstm}.tmp_0"
    g.nodes.append(helper.make_node("LSTM", [x, w, r, b], [y], name=name, direction="bidirectional",
                                    hidden_size=hidden))
    y = g.p("Transpose", [y], f"{g.var('transpose')}.tmp_0", perm=[0, 2, 1, 3])  # [T, N, 2, H]
    y = g.p("Reshape", [y, g.pconst([0, 0, -1], np.int64)], f"{g.var('reshape2')}.tmp_0")  # [T, N, 2H]
    y = g.p("Transpose", [y], f"{g.var('transpose')}.tmp_0", perm=[1, 0, 2])  # [N, T, 2H]
    ctc_head(g, y, 2 * hidden)
    outputs = [helper.make_tensor_value_info("softmax_0.tmp_0", F32, [-1, -1, OCR_CLASSES])]
    return g.model("Paddle2ONNX", [vi("x", [-1, 3, -1, -1])], outputs, 14)


# -- PyTorch (OCR text-direction classifier, value_info recorded before a later edit) -----


def ocr_cls_stale() -> onnx.ModelProto:
    """PyTorch export of a small text-line direction classifier whose value_info (written by
    running shape inference on the export) is stale for one tensor: the model was edited
    afterwards (features.view(B, C, -1) in place of a flatten), and the record for that
    Reshape's output still has rank 2. onnxruntime re-infers and runs it."""
    g = Builder(7)
    x, c = g.t("Relu", [conv_bn(g, "x", "stem.conv", "stem.bn", 3, 16, 3, 2, False)], "stem.act"), 16
    x = g.t("MaxPool", [x], "stem.pool", kernel_shape=[2, 2], strides=[2, 2], pads=[0] * 4)  # 8x16
    x = g.t("Relu", [conv_bn(g, x, "block.conv", "block.bn", c, 32, 3, 1, False)], "block.act")
    seq = g.view(x, [1, 32, -1], "head")  # [1, 32, 128]
    x = g.t("ReduceMean", [g.t("Transpose", [seq], "head", perm=[0, 2, 1])], "head", axes=[1], keepdims=0)
    w, b = g.param("fc.weight", g.he((2, 32), 32)), g.param("fc.bias", g.normal(2, 0.01))
    g.t("Softmax", [g.t("Gemm", [x, w, b], "fc", transB=1)], "softmax", outputs=["output"], axis=1)
    model = g.model("main_graph", [vi("x", [1, 3, 32, 64])], [vi("output", [1, 2])], 17)
    recorded = onnx.shape_inference.infer_shapes(model).graph.value_info
    model.graph.value_info.extend(recorded)
    stale = next(v for v in model.graph.value_info if v.name == seq)
    stale.CopyFrom(vi(seq, [1, 32 * 8 * 16]))
    return model


# -- PyTorch (voice activity detector with traced sample-rate branches) --------------------


def torch_branch(g: Builder, name: str, body: Callable[[], str]) -> onnx.GraphProto:
    """An If branch as torch.onnx writes it: its own node list, no inputs, one output whose
    shape is left to inference."""
    saved, g.nodes = g.nodes, []
    out = body()
    nodes, g.nodes = g.nodes, saved
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, F32, None)])


def vad_if() -> onnx.ModelProto:
    """PyTorch (scripted) export of a Silero-style voice activity detector: `if self.sample_rate
    == 16000:` on a constant buffer, and inside it `if x.size(1) == 512:` on the traced input
    size, both kept as If nodes; the frames feed a Conv1d encoder and x.view(x.size(0), -1)
    reads the size of the If's output. Both conditions are constant once the input is fixed."""
    g = Builder(8)
    sr = g.t("Equal", [g.const(16000, "sample_rate"), g.const(16000, "sample_rate")], "sample_rate")

    def frames_16k():
        full = g.t("Equal", [g.size("input", 1, "frames"), g.const(512, "frames")], "frames")
        whole = torch_branch(g, "torch_jit_2", lambda: g.t("Unsqueeze", ["input", g.const([1], "frames")], "frames"))

        def cut():
            first = g.t("Slice", ["input", g.const([0]), g.const([512]), g.const([1])], "frames")
            return g.t("Unsqueeze", [first, g.const([1], "frames")], "frames")

        return g.t("If", [full], "frames", then_branch=whole, else_branch=torch_branch(g, "torch_jit_3", cut))

    def frames_8k():  # 8 kHz audio is repeated to the 16 kHz frame length
        return g.t("Unsqueeze", [g.t("Concat", ["input", "input"], "frames_8k", axis=1), g.const([1])], "frames_8k")

    x = g.t("If", [sr], then_branch=torch_branch(g, "torch_jit_0", frames_16k),
            else_branch=torch_branch(g, "torch_jit_1", frames_8k))
    c = 1
    for i, (cout, k, stride) in enumerate([(16, 8, 4), (32, 3, 2), (32, 3, 2)]):
        w = g.param(f"encoder.{i}.conv.weight", g.he((cout, c, k), c * k))
        b = g.param(f"encoder.{i}.conv.bias", g.normal(cout, 0.05))
        conv = g.t("Conv", [x, w, b], f"encoder.{i}.conv", kernel_shape=[k], strides=[stride], pads=[k // 2 - 1 + k % 2] * 2)
        x, c = g.t("Relu", [conv], f"encoder.{i}.act"), cout
    x = g.t("ReduceMean", [x], "pool", axes=[2], keepdims=1)
    x = g.view(x, [g.size(x, 0, "head"), -1], "head")
    w, b = g.param("head.weight", g.he((1, c), c)), g.param("head.bias", g.normal(1, 0.1))
    g.t("Sigmoid", [g.t("Gemm", [x, w, b], "head", transB=1)], "head", outputs=["output"])
    return g.model("main_graph", [vi("input", ["batch", "samples"])], [vi("output", ["batch", 1])], 17)


# -- PyTorch (GRU keyword spotter) -----------------------------------------------------------

KWS_FRAMES, KWS_MFCC, KWS_HIDDEN, KWS_WORDS = 49, 10, 64, 12


def gru_kws() -> onnx.ModelProto:
    """PyTorch export of a GRU keyword spotter on MFCC frames: batch_first input transposed to
    [T, N, F], nn.GRU as ONNX GRU with linear_before_reset=1 (PyTorch's formulation), the last
    hidden state squeezed and classified."""
    g = Builder(9)
    x = g.t("Transpose", ["mfcc"], perm=[1, 0, 2])
    w = g.init("onnx::GRU_101", g.normal((1, 3 * KWS_HIDDEN, KWS_MFCC), 1 / math.sqrt(KWS_MFCC)))
    r = g.init("onnx::GRU_102", g.normal((1, 3 * KWS_HIDDEN, KWS_HIDDEN), 1 / math.sqrt(KWS_HIDDEN)))
    b = g.init("onnx::GRU_103", g.normal((1, 6 * KWS_HIDDEN), 0.1))
    _, h = g.t("GRU", [x, w, r, b], "gru", n_out=2, hidden_size=KWS_HIDDEN, linear_before_reset=1)
    h = g.t("Squeeze", [h, g.const([0])])
    w, bias = g.param("fc.weight", g.he((KWS_WORDS, KWS_HIDDEN), KWS_HIDDEN)), g.param("fc.bias", g.normal(KWS_WORDS, 0.01))
    g.t("Softmax", [g.t("Gemm", [h, w, bias], "fc", transB=1)], outputs=["output"], axis=1)
    inputs = [vi("mfcc", ["batch", KWS_FRAMES, KWS_MFCC])]
    return g.model("main_graph", inputs, [vi("output", ["batch", KWS_WORDS])], 17)


# -- PyTorch (LSTM speaker embedding) --------------------------------------------------------

SPK_FRAMES, SPK_MELS, SPK_HIDDEN, SPK_EMBED = 50, 40, 64, 32


def lstm_speaker() -> onnx.ModelProto:
    """PyTorch export of a speaker-embedding net (a d-vector): batch_first mel frames
    transposed to [T, N, F], a 2-layer nn.LSTM as two ONNX LSTMs (the gates already in ONNX's
    order), the last layer's final hidden state projected and L2-normalised as
    F.normalize writes it (x / max(||x||, eps))."""
    g = Builder(11)
    x, h = g.t("Transpose", ["mels"], perm=[1, 0, 2]), ""
    for layer, size in enumerate((SPK_MELS, SPK_HIDDEN)):
        w = g.init(f"onnx::LSTM_{201 + 3 * layer}", g.normal((1, 4 * SPK_HIDDEN, size), 1 / math.sqrt(size)))
        r = g.init(f"onnx::LSTM_{202 + 3 * layer}",
                   g.normal((1, 4 * SPK_HIDDEN, SPK_HIDDEN), 1 / math.sqrt(SPK_HIDDEN)))
        b = g.init(f"onnx::LSTM_{203 + 3 * layer}", g.normal((1, 8 * SPK_HIDDEN), 0.1))
        y, h, _ = g.t("LSTM", [x, w, r, b], "lstm", n_out=3, hidden_size=SPK_HIDDEN)
        x = g.t("Squeeze", [y, g.const([1])], "lstm")
    h = g.t("Squeeze", [h, g.const([0])])
    w, bias = g.param("proj.weight", g.he((SPK_EMBED, SPK_HIDDEN), SPK_HIDDEN)), g.param("proj.bias", g.normal(SPK_EMBED, 0.01))
    e = g.t("Gemm", [h, w, bias], "proj", transB=1)
    norm = g.t("Clip", [g.t("ReduceL2", [e], axes=[1], keepdims=1), g.const(1e-12, dtype=np.float32)])
    g.t("Div", [e, norm], outputs=["embedding"])
    inputs = [vi("mels", ["batch", SPK_FRAMES, SPK_MELS])]
    return g.model("main_graph", inputs, [vi("embedding", ["batch", SPK_EMBED])], 17)


# -- PyTorch (captcha recogniser whose declared output is stale) -----------------------------

CAPTCHA_HIDDEN, CAPTCHA_CLASSES = 32, 37


def captcha_crnn_stale() -> onnx.ModelProto:
    """PyTorch export of a CNN + BiLSTM captcha recogniser (crnn.pytorch's layout) whose graph
    output is declared rank 2, `[1, seqlen]` (dynamic_axes written for another head), while
    its last Reshape gives [T, N, classes] = [24, 1, 37]; onnxruntime warns and runs it.
    Conv/ReLU/pool backbone to height 1, conv.squeeze(2).permute(2, 0, 1) to [T, N, C], a
    bidirectional nn.LSTM whose zero initial state is built from the traced batch, then
    BidirectionalLSTM's recurrent.view(T * b, h) -> Linear -> view(T, b, -1)."""
    g = Builder(10)
    x, c = "input", 1
    for i, (cout, k, pad, pool) in enumerate([(16, [3, 3], 1, [2, 2]), (32, [3, 3], 1, [2, 2]),
                                              (64, [3, 3], 1, [2, 1]), (64, [4, 1], 0, None)]):
        w = g.param(f"cnn.conv{i}.weight", g.he((cout, c, *k), c * k[0] * k[1]))
        b = g.param(f"cnn.conv{i}.bias", g.normal(cout, 0.05))
        x = g.t("Conv", [x, w, b], f"cnn.conv{i}", kernel_shape=k, pads=[pad] * 4, strides=[1, 1], dilations=[1, 1],
                group=1)
        x, c = g.t("Relu", [x], f"cnn.relu{i}"), cout
        if pool:
            x = g.t("MaxPool", [x], f"cnn.pooling{i}", kernel_shape=pool, strides=pool, pads=[0] * 4, ceil_mode=0)
    seq = g.t("Transpose", [g.t("Squeeze", [x, g.const([2])])], perm=[2, 0, 1])  # [T, N, C]
    shape = g.t("Concat", [g.const([2], "rnn"), g.t("Unsqueeze", [g.size(seq, 1, "rnn"), g.const([0], "rnn")], "rnn"),
                           g.const([CAPTCHA_HIDDEN], "rnn")], "rnn", axis=0)
    zeros = g.t("ConstantOfShape", [shape], "rnn", value=numpy_helper.from_array(np.zeros(1, np.float32)))
    w = g.init("onnx::LSTM_201", g.normal((2, 4 * CAPTCHA_HIDDEN, c), 1 / math.sqrt(c)))
    r = g.init("onnx::LSTM_202", g.normal((2, 4 * CAPTCHA_HIDDEN, CAPTCHA_HIDDEN), 1 / math.sqrt(CAPTCHA_HIDDEN)))
    b = g.init("onnx::LSTM_203", g.normal((2, 8 * CAPTCHA_HIDDEN), 0.1))
    y, _, _ = g.t("LSTM", [seq, w, r, b, "", zeros, zeros], "rnn", n_out=3, direction="bidirectional",
                  hidden_size=CAPTCHA_HIDDEN)
    y = g.t("Transpose", [y], "rnn", perm=[0, 2, 1, 3])  # [T, N, 2, H]
    rec = g.t("Reshape", [y, g.const([0, 0, -1], "rnn")], "rnn")  # [T, N, 2H]
    steps, batch, features = (g.size(rec, i) for i in range(3))
    flat = g.view(rec, [g.t("Mul", [steps, batch]), features])  # [T * b, 2H]
    w = g.param("embedding.weight", g.he((CAPTCHA_CLASSES, 2 * CAPTCHA_HIDDEN), 2 * CAPTCHA_HIDDEN))
    logits = g.t("Gemm", [flat, w, g.param("embedding.bias", g.normal(CAPTCHA_CLASSES, 0.1))], "embedding",
                 alpha=1.0, beta=1.0, transB=1)
    dims = [g.t("Unsqueeze", [d, g.const([0])]) for d in (steps, batch)] + [g.const([-1])]
    g.t("Reshape", [logits, g.t("Concat", dims, axis=0)], outputs=["output"])  # [T, N, classes]
    return g.model("main_graph", [vi("input", [1, 1, 32, 96])], [vi("output", [1, "seqlen"])], 17)


# -- keras2onnx (MTCNN face detector's proposal net) ---------------------------------------------


def keras_prelu(g: Builder, x, name, c, slope_shape):
    """Keras PReLU(shared_axes=[1, 2]) -> PRelu with one trained slope per channel: most in
    (0, 0.5), one above 1 and one negative (trained MTCNN nets hold such channels)."""
    slopes = g.uniform(0.05, 0.45, c)
    slopes[g.rng.choice(c, 2, replace=False)] = (1.3, -0.25)
    return g.node("PRelu", [x, g.init(f"{name}/alpha:0", slopes.reshape(slope_shape))], name, [f"{name}/add:0"])


def keras_conv(g: Builder, x, name, cin, cout, k, output=None):
    """A valid Keras Conv2D; `output` names a model output (keras2onnx names it after the layer)."""
    w, b = g.init(f"{name}/kernel:0", g.he((cout, cin, k, k), cin * k * k)), g.init(f"{name}/bias:0", g.normal(cout, 0.1))
    return g.node("Conv", [x, w, b], name, [output or f"{name}/BiasAdd:0"], dilations=[1, 1], group=1,
                  kernel_shape=[k, k], pads=[0, 0, 0, 0], strides=[1, 1])


def face_pnet() -> onnx.ModelProto:
    """MTCNN's P-Net as keras2onnx writes the Keras model (NCHW here, batch 1): valid 3x3
    convs, each followed by a PRelu with a slope per channel ([C, 1, 1], the last
    [1, C, 1, 1]), a 2x2 MaxPool, then a 1x1 face/non-face head under a Softmax over the
    channels and a 1x1 box-regression head. Its input is one level of the image pyramid."""
    g = Builder(13)
    x = keras_prelu(g, keras_conv(g, "input_1", "conv1", 3, 10, 3), "prelu1", 10, (10, 1, 1))
    x = g.node("MaxPool", [x], "pool1", ["pool1/MaxPool:0"], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 0, 0])
    x = keras_prelu(g, keras_conv(g, x, "conv2", 10, 16, 3), "prelu2", 16, (16, 1, 1))
    x = keras_prelu(g, keras_conv(g, x, "conv3", 16, 32, 3), "prelu3", 32, (1, 32, 1, 1))
    g.node("Softmax", [keras_conv(g, x, "conv4-1", 32, 2, 1)], "softmax", ["softmax"], axis=1)
    keras_conv(g, x, "conv4-2", 32, 4, 1, output="conv4-2")
    outputs = [vi("softmax", ["N", 2, "H_out", "W_out"]), vi("conv4-2", ["N", 4, "H_out", "W_out"])]
    return g.model("pnet", [vi("input_1", ["N", 3, "H", "W"])], outputs, 13)
# -- Keras (keras2onnx: a face-detection cascade's second stage) ---------------------------

RNET_BATCH = 16
"""Face proposals the cascade's first stage hands to R-Net at once."""


def face_rnet_b16() -> onnx.ModelProto:
    """keras2onnx export of MTCNN's R-Net (the refinement stage) on 16 face proposals at once:
    NHWC input transposed to NCHW, convs with bias (PReLU replaced by Relu), keras 'same'
    pooling as explicit pads, the NCHW features transposed back to NHWC for keras' Flatten,
    then Dense layers as Gemm: a face score (Softmax) and a box regression. Keras names
    (conv2d_1, max_pooling2d_1, dense_1, ...), TensorFlow tensor names (conv2d_1/BiasAdd:0)
    and a fixed batch of 16: over MLIP's 8."""
    g = Builder(11)
    tf_ops = {"Conv": "BiasAdd", "Gemm": "BiasAdd", "Flatten": "Reshape", "Transpose": "transpose"}

    def node(op, inputs, name, outputs=None, **attrs):
        return g.node(op, inputs, name, outputs or [f"{name}/{tf_ops.get(op, op)}:0"], **attrs)

    x = node("Transpose", ["input_1"], "input_1_transpose", perm=[0, 3, 1, 2])
    convs = [(3, 28, 3, (3, 2, [0, 0, 1, 1])), (28, 48, 3, (3, 2, [0, 0, 0, 0])), (48, 64, 2, None)]
    for k, (cin, cout, kernel, pool) in enumerate(convs, 1):
        w = g.init(f"conv2d_{k}/kernel:0", g.he((cout, cin, kernel, kernel), cin * kernel * kernel))
        b = g.init(f"conv2d_{k}/bias:0", g.normal(cout, 0.05))
        x = node("Conv", [x, w, b], f"conv2d_{k}", kernel_shape=[kernel] * 2, strides=[1, 1], pads=[0] * 4,
                 dilations=[1, 1], group=1)
        x = node("Relu", [x], f"re_lu_{k}")
        if pool is not None:
            size, stride, pads = pool
            x = node("MaxPool", [x], f"max_pooling2d_{k}", kernel_shape=[size] * 2, strides=[stride] * 2, pads=pads)
    x = node("Transpose", [x], "flatten_1_transpose", perm=[0, 2, 3, 1])
    x = node("Flatten", [x], "flatten_1", axis=1)
    dense = {"dense_1": (576, 128), "dense_2": (128, 2), "dense_3": (128, 4)}
    weights = {name: (g.init(f"{name}/kernel:0", g.he(size, size[0])), g.init(f"{name}/bias:0", g.normal(size[1], 0.05)))
               for name, size in dense.items()}
    x = node("Relu", [node("Gemm", [x, *weights["dense_1"]], "dense_1")], "re_lu_4")
    node("Softmax", [node("Gemm", [x, *weights["dense_2"]], "dense_2")], "softmax_1", ["softmax_1"], axis=1)
    node("Gemm", [x, *weights["dense_3"]], "dense_3", ["dense_3"])
    outputs = [vi("softmax_1", [RNET_BATCH, 2]), vi("dense_3", [RNET_BATCH, 4])]
    return g.model("face_rnet", [vi("input_1", [RNET_BATCH, 24, 24, 3])], outputs, 13)
# -- keras2onnx / tf2onnx (a Keras CNN in NHWC) ----------------------------------------------


def keras_nhwc_cnn() -> onnx.ModelProto:
    """keras2onnx export of a small Keras Sequential CNN: the NHWC input transposed to NCHW
    by a `Transpose` (perm 0,3,1,2) before the first Conv, Conv (BiasAdd folded) + BatchNormalization
    + Relu, MaxPool, Conv + Relu, a `Transpose` (perm 0,2,3,1) back to NHWC before Keras'
    Flatten (a Reshape to [-1, H*W*C], so the Dense weights are in NHWC order), then Dense as
    MatMul + Add and Softmax. Names are TensorFlow's: scoped op names, `:0` tensors and
    `__<n>` suffixes on the transposes the converter inserted."""
    g = Builder(14, out_fmt="{name}:0")
    size, channels = 24, (3, 16, 32)

    def conv(x, scope, cin, cout):
        w = g.init(f"{scope}/Conv2D/ReadVariableOp:0", g.he((cout, cin, 3, 3), cin * 9))
        b = g.init(f"{scope}/BiasAdd/ReadVariableOp:0", g.normal(cout, 0.05))
        return g.node("Conv", [x, w, b], f"{scope}/BiasAdd", dilations=[1, 1], group=1, kernel_shape=[3, 3],
                      pads=[1, 1, 1, 1], strides=[1, 1])

    x = g.node("Transpose", ["input_1"], "sequential/conv2d/BiasAdd__6", perm=[0, 3, 1, 2])
    x = conv(x, "sequential/conv2d", channels[0], channels[1])
    scope = "sequential/batch_normalization"
    stats = [g.init(f"{scope}/{n}:0", a) for n, a in zip(
        ("ReadVariableOp", "ReadVariableOp_1", "FusedBatchNormV3/ReadVariableOp", "FusedBatchNormV3/ReadVariableOp_1"),
        bn_stats(g, channels[1]))]
    x = g.node("BatchNormalization", [x, *stats], f"{scope}/FusedBatchNormV3", epsilon=0.001, momentum=0.99)
    x = g.node("Relu", [x], "sequential/re_lu/Relu")
    x = g.node("MaxPool", [x], "sequential/max_pooling2d/MaxPool", kernel_shape=[2, 2], strides=[2, 2])
    x = g.node("Relu", [conv(x, "sequential/conv2d_1", channels[1], channels[2])], "sequential/conv2d_1/Relu")
    x = g.node("Transpose", [x], "sequential/conv2d_1/Relu__20", perm=[0, 2, 3, 1])
    features = (size // 2) ** 2 * channels[2]
    x = g.node("Reshape", [x, g.init("const_fold_opt__31", np.array([-1, features], np.int64))],
               "sequential/flatten/Reshape")
    x = g.node("MatMul", [x, g.init("sequential/dense/MatMul/ReadVariableOp:0", g.he((features, 10), features))],
               "sequential/dense/MatMul")
    x = g.node("Add", [x, g.init("sequential/dense/BiasAdd/ReadVariableOp:0", g.normal(10, 0.05))],
               "sequential/dense/BiasAdd")
    g.node("Softmax", [x], "sequential/dense/Softmax", outputs=["dense"], axis=-1)
    return g.model("sequential", [vi("input_1", ["N", size, size, channels[0]])], [vi("dense", ["N", 10])], 13)


# -- Ultralytics (YOLOv8 detector) ----------------------------------------------------------

YOLOV8_SIZE, YOLOV8_CLASSES, YOLOV8_REG_MAX = 320, 8, 16
YOLOV8_STRIDES = (8, 16, 32)


def ultralytics_scope(path: str) -> str:
    """Ultralytics' layers sit in a Sequential named after its index: "model.2.m.0.cv1" ->
    "/model.2/m.0/cv1" (torch.onnx joins an index to the name before it)."""
    parts: list[str] = []
    for p in path.split("."):
        if p.isdigit() and parts:
            parts[-1] += f".{p}"
        else:
            parts.append(p)
    return "".join(f"/{p}" for p in parts)


def yolo_node(g: Builder, op, inputs, path, outputs=None, n_out=1, **attrs):
    """A node named as torch.onnx names an Ultralytics model's: "/model.2/m.0/cv1/conv/Conv"."""
    return g.node(op, inputs, f"{ultralytics_scope(path)}/{op}", outputs, n_out, **attrs)


def yolo_const(g: Builder, value, path, dtype=np.int64):
    return yolo_node(g, "Constant", [], path, value=numpy_helper.from_array(np.asarray(value, dtype)))


def conv_attrs(k: int, stride: int = 1) -> dict:
    """A square conv's attributes as torch.onnx writes them, padded to keep the size at stride 1."""
    return dict(dilations=[1, 1], group=1, kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2)


def yolo_conv(g: Builder, x, path, cin, cout, k=1, stride=1):
    """Ultralytics' Conv after model.fuse(): the BatchNorm folded into the conv's weight and
    bias, then nn.SiLU as torch.onnx writes it: Sigmoid, Mul."""
    w = g.init(f"{path}.conv.weight", g.he((cout, cin, k, k), cin * k * k))
    b = g.init(f"{path}.conv.bias", g.normal(cout, 0.1))
    x = yolo_node(g, "Conv", [x, w, b], f"{path}.conv", **conv_attrs(k, stride))
    return yolo_node(g, "Mul", [x, yolo_node(g, "Sigmoid", [x], f"{path}.act")], f"{path}.act")


def c2f(g: Builder, x, path, cin, cout, n, shortcut):
    """C2f: a 1x1 conv, Split in two halves, n Bottlenecks (two 3x3 convs, a residual Add
    when `shortcut`) each on the last part, all parts concatenated, a 1x1 conv."""
    c = cout // 2
    y = yolo_conv(g, x, f"{path}.cv1", cin, 2 * c)
    parts = list(yolo_node(g, "Split", [y, yolo_const(g, [c, c], path)], path, n_out=2, axis=1))
    for i in range(n):
        z = yolo_conv(g, yolo_conv(g, parts[-1], f"{path}.m.{i}.cv1", c, c, 3), f"{path}.m.{i}.cv2", c, c, 3)
        parts.append(yolo_node(g, "Add", [parts[-1], z], f"{path}.m.{i}") if shortcut else z)
    return yolo_conv(g, yolo_node(g, "Concat", parts, path, axis=1), f"{path}.cv2", (2 + n) * c, cout)


def sppf(g: Builder, x, path, cin, cout):
    """SPPF: a 1x1 conv, three chained 5x5 stride-1 MaxPools, the four concatenated, a 1x1 conv."""
    c = cin // 2
    pools = [yolo_conv(g, x, f"{path}.cv1", cin, c)]
    for _ in range(3):
        pools.append(yolo_node(g, "MaxPool", [pools[-1]], f"{path}.m", ceil_mode=0, dilations=[1, 1],
                               kernel_shape=[5, 5], pads=[2] * 4, strides=[1, 1]))
    return yolo_conv(g, yolo_node(g, "Concat", pools, path, axis=1), f"{path}.cv2", 4 * c, cout)


def upsample(g: Builder, x, path):
    """nn.Upsample(scale_factor=2, mode="nearest"): Resize with its scales a Constant node."""
    scales = yolo_const(g, [1.0, 1.0, 2.0, 2.0], path, np.float32)
    return yolo_node(g, "Resize", [x, "", scales], path, coordinate_transformation_mode="asymmetric",
                     cubic_coeff_a=-0.75, mode="nearest", nearest_mode="floor")


def anchor_points(sizes, strides, offset=0.5):
    """Ultralytics' make_anchors: the cell centres of every level, in grid units, and the
    stride of each, concatenated over the levels."""
    points, stride_of = [], []
    for (h, w), s in zip(sizes, strides):
        sy, sx = np.meshgrid(np.arange(h) + offset, np.arange(w) + offset, indexing="ij")
        points.append(np.stack([sx.ravel(), sy.ravel()], axis=1))
        stride_of.append(np.full(h * w, s))
    return np.concatenate(points).astype(np.float32), np.concatenate(stride_of).astype(np.float32)


def yolo_detect(g: Builder, features, channels, path):
    """Detect: per level a box branch (cv2: two 3x3 convs, a 1x1 to 4 x reg_max) and a class
    branch (cv3: to the classes), concatenated and flattened, the levels concatenated; DFL
    (Reshape, Transpose, Softmax over the bins, a fixed 1x1 conv with weights 0..reg_max-1),
    the distances decoded into boxes around the anchors (x1y1 = a - lt, x2y2 = a + rb,
    centre and size, times the stride), and the Sigmoid of the class scores."""
    nc, reg = YOLOV8_CLASSES, YOLOV8_REG_MAX
    c2, c3 = max(16, channels[0] // 4, 4 * reg), max(channels[0], min(nc, 100))
    flat, sizes = [], []
    for i, (x, c) in enumerate(zip(features, channels)):
        box = yolo_conv(g, yolo_conv(g, x, f"{path}.cv2.{i}.0", c, c2, 3), f"{path}.cv2.{i}.1", c2, c2, 3)
        w = g.init(f"{path}.cv2.{i}.2.weight", g.he((4 * reg, c2, 1, 1), c2))
        b = g.init(f"{path}.cv2.{i}.2.bias", g.normal(4 * reg, 0.5))
        box = yolo_node(g, "Conv", [box, w, b], f"{path}.cv2.{i}.2", **conv_attrs(1))
        cls = yolo_conv(g, yolo_conv(g, x, f"{path}.cv3.{i}.0", c, c3, 3), f"{path}.cv3.{i}.1", c3, c3, 3)
        w = g.init(f"{path}.cv3.{i}.2.weight", g.he((nc, c3, 1, 1), c3))
        b = g.init(f"{path}.cv3.{i}.2.bias", g.normal(nc, 0.5) - 2)
        cls = yolo_node(g, "Conv", [cls, w, b], f"{path}.cv3.{i}.2", **conv_attrs(1))
        y = yolo_node(g, "Concat", [box, cls], path, axis=1)
        flat.append(yolo_node(g, "Reshape", [y, yolo_const(g, [1, 4 * reg + nc, -1], path)], path))
        sizes.append((YOLOV8_SIZE // YOLOV8_STRIDES[i],) * 2)
    anchors, strides = anchor_points(sizes, YOLOV8_STRIDES)
    a = len(anchors)
    levels = yolo_node(g, "Concat", flat, path, axis=2)
    box, cls = yolo_node(g, "Split", [levels, yolo_const(g, [4 * reg, nc], path)], path, n_out=2, axis=1)
    d = yolo_node(g, "Reshape", [box, yolo_const(g, [1, 4, reg, a], f"{path}.dfl")], f"{path}.dfl")
    d = yolo_node(g, "Transpose", [d], f"{path}.dfl", perm=[0, 2, 1, 3])
    d = yolo_node(g, "Softmax", [d], f"{path}.dfl", axis=1)
    proj = g.init(f"{path}.dfl.conv.weight", np.arange(reg, dtype=np.float32).reshape(1, reg, 1, 1))
    d = yolo_node(g, "Conv", [d, proj], f"{path}.dfl.conv", **conv_attrs(1))
    d = yolo_node(g, "Reshape", [d, yolo_const(g, [1, 4, a], f"{path}.dfl")], f"{path}.dfl")
    lt, rb = yolo_node(g, "Split", [d, yolo_const(g, [2, 2], path)], path, n_out=2, axis=1)
    anchor = g.init(f"{ultralytics_scope(path)}/Constant_9_output_0", anchors.T[None].copy())
    x1y1, x2y2 = yolo_node(g, "Sub", [anchor, lt], path), yolo_node(g, "Add", [anchor, rb], path)
    corners = yolo_node(g, "Add", [x1y1, x2y2], path)
    centre = yolo_node(g, "Div", [corners, yolo_const(g, 2.0, path, np.float32)], path)
    boxes = yolo_node(g, "Concat", [centre, yolo_node(g, "Sub", [x2y2, x1y1], path)], path, axis=1)
    stride = g.init(f"{ultralytics_scope(path)}/Constant_12_output_0", strides[None])
    boxes = yolo_node(g, "Mul", [boxes, stride], path)
    return yolo_node(g, "Concat", [boxes, yolo_node(g, "Sigmoid", [cls], path)], path, outputs=["output0"], axis=1), a


def yolov8_det() -> onnx.ModelProto:
    """An Ultralytics YOLOv8n-style detector (widths halved, one Bottleneck a C2f, 8
    classes) as `yolo export format=onnx` writes it: "/model.2/m.0/cv1/conv/Conv" scopes,
    every Conv's BatchNorm folded, SiLU as Sigmoid and Mul, C2f blocks, SPPF, the PAN neck
    (nearest Resize by 2, Concat, stride-2 convs) and the Detect head with DFL, anchors and
    strides as initializers; one output [1, 4 + classes, anchors]."""
    g = Builder(15)
    w = (8, 16, 32, 64, 128)
    x = yolo_conv(g, "images", "model.0", 3, w[0], 3, 2)  # 160
    x = c2f(g, yolo_conv(g, x, "model.1", w[0], w[1], 3, 2), "model.2", w[1], w[1], 1, True)  # 80
    p3 = c2f(g, yolo_conv(g, x, "model.3", w[1], w[2], 3, 2), "model.4", w[2], w[2], 1, True)  # 40
    p4 = c2f(g, yolo_conv(g, p3, "model.5", w[2], w[3], 3, 2), "model.6", w[3], w[3], 1, True)  # 20
    x = c2f(g, yolo_conv(g, p4, "model.7", w[3], w[4], 3, 2), "model.8", w[4], w[4], 1, True)  # 10
    p5 = sppf(g, x, "model.9", w[4], w[4])
    x = yolo_node(g, "Concat", [upsample(g, p5, "model.10"), p4], "model.11", axis=1)
    n4 = c2f(g, x, "model.12", w[4] + w[3], w[3], 1, False)
    x = yolo_node(g, "Concat", [upsample(g, n4, "model.13"), p3], "model.14", axis=1)
    out3 = c2f(g, x, "model.15", w[3] + w[2], w[2], 1, False)
    x = yolo_node(g, "Concat", [yolo_conv(g, out3, "model.16", w[2], w[2], 3, 2), n4], "model.17", axis=1)
    out4 = c2f(g, x, "model.18", w[2] + w[3], w[3], 1, False)
    x = yolo_node(g, "Concat", [yolo_conv(g, out4, "model.19", w[3], w[3], 3, 2), p5], "model.20", axis=1)
    out5 = c2f(g, x, "model.21", w[3] + w[4], w[4], 1, False)
    _, anchors = yolo_detect(g, [out3, out4, out5], [w[2], w[3], w[4]], "model.22")
    inputs = [vi("images", [1, 3, YOLOV8_SIZE, YOLOV8_SIZE])]
    return g.model("main_graph", inputs, [vi("output0", [1, 4 + YOLOV8_CLASSES, anchors])], 17)


# -- Paddle2ONNX (PP-OCRv4-style text detector, PicoDet-style object detector) ---------------

PPOCR_DET_SIZE = 320


def depthwise_separable(g: Builder, x, cin, cout, k, stride, se=False):
    """PP-LCNet's DepthwiseSeparable: a kxk depthwise conv, BN, HardSwish, optional SE
    (HardSigmoid gate), a 1x1 conv, BN, HardSwish."""
    x = hardswish(g, p_bn(g, p_conv(g, x, cin, cin, k, stride, groups=cin), cin))
    if se:
        x = squeeze_excite(g, x, cin)
    return hardswish(g, p_bn(g, p_conv(g, x, cin, cout, 1), cout))


def lcnet(g: Builder, x, stem, blocks):
    """PP-LCNet: a 3x3 stride-2 conv stem, then stages of DepthwiseSeparable blocks
    [(kernel, out channels, stride, se)]; each stage's output, in order."""
    x, c = hardswish(g, p_bn(g, p_conv(g, x, 3, stem, 3, 2), stem)), stem
    features = []
    for stage in blocks:
        for k, cout, stride, se in stage:
            x, c = depthwise_separable(g, x, c, cout, k, stride, se), cout
        features.append(x)
    return features


def p_upsample(g: Builder, x, scale):
    """F.upsample(x, scale_factor=scale, mode="nearest"): Resize with Constant scales."""
    scales = g.pconst([1.0, 1.0, float(scale), float(scale)])
    return g.p("Resize", [x, "", scales], f"{g.var('nearest_interp_v2')}.tmp_0",
               coordinate_transformation_mode="asymmetric", mode="nearest", nearest_mode="floor")


def ppocr_det() -> onnx.ModelProto:
    """A PP-OCRv4-det-style text detector (channels reduced) as Paddle2ONNX writes it: a
    PP-LCNet backbone (HardSwish, SE with HardSigmoid in the last stage), the DB-FPN neck
    (1x1 convs, nearest Resize and Add top-down, 3x3 convs, Resize to stride 4, Concat) and
    the DB head (3x3 conv-BN-ReLU, two 2x2 stride-2 ConvTransposes, BN-ReLU between them,
    Sigmoid). Dynamic N, H and W as p2o.DynamicDimension dims; the probability map at the
    input's size."""
    g = Builder(16)
    stages = [[(3, 16, 1, False), (3, 24, 2, False), (3, 24, 1, False)],  # stride 4
              [(3, 48, 2, False), (3, 48, 1, False)],  # 8
              [(3, 96, 2, False), (5, 96, 1, False)],  # 16
              [(5, 192, 2, True), (5, 192, 1, True)]]  # 32
    c2, c3, c4, c5 = lcnet(g, "x", 8, stages)
    chans, out = [24, 48, 96, 192], 64
    in2, in3, in4, in5 = (p_conv(g, f, c, out, 1) for f, c in zip((c2, c3, c4, c5), chans))
    out4 = g.p("Add", [in4, p_upsample(g, in5, 2)], g.var("tmp"))
    out3 = g.p("Add", [in3, p_upsample(g, out4, 2)], g.var("tmp"))
    out2 = g.p("Add", [in2, p_upsample(g, out3, 2)], g.var("tmp"))
    p5, p4, p3, p2 = (p_conv(g, f, out, out // 4, 3) for f in (in5, out4, out3, out2))
    fuse = g.p("Concat", [p_upsample(g, p5, 8), p_upsample(g, p4, 4), p_upsample(g, p3, 2), p2],
               f"{g.var('concat')}.tmp_0", axis=1)
    x = g.p("Relu", [p_bn(g, p_conv(g, fuse, out, out // 4, 3), out // 4)], f"{g.var('relu')}.tmp_0")
    for cout in (out // 4, 1):
        up = g.var("conv2d_transpose")
        w, b = g.init(f"{up}.w_0", g.he((out // 4, cout, 2, 2), out // 4)), g.init(f"{up}.b_0", g.normal(cout, 0.1))
        x = g.p("ConvTranspose", [x, w, b], f"{up}.tmp_1", dilations=[1, 1], group=1, kernel_shape=[2, 2],
                pads=[0] * 4, strides=[2, 2])
        if cout > 1:
            x = g.p("Relu", [p_bn(g, x, cout)], f"{g.var('relu')}.tmp_0")
    g.p("Sigmoid", [x], "sigmoid_0.tmp_0")
    dynamic = [f"p2o.DynamicDimension.{i}" for i in range(6)]
    inputs = [vi("x", [dynamic[0], 3, dynamic[1], dynamic[2]])]
    return g.model("Paddle2ONNX", inputs, [vi("sigmoid_0.tmp_0", [dynamic[3], 1, dynamic[4], dynamic[5]])], 14)


PICODET_SIZE, PICODET_CLASSES, PICODET_REG_MAX = 320, 4, 7
PICODET_STRIDES = (8, 16, 32)


def csp_layer(g: Builder, x, cin, cout, k):
    """CSP-PAN's CSPLayer: a 1x1 main branch through a bottleneck (1x1 conv, kxk depthwise
    separable conv), a 1x1 short branch, both concatenated, a 1x1 conv."""
    mid = cout // 2
    main = hardswish(g, p_bn(g, p_conv(g, x, cin, mid, 1), mid))
    short = hardswish(g, p_bn(g, p_conv(g, x, cin, mid, 1), mid))
    main = hardswish(g, p_bn(g, p_conv(g, main, mid, mid, 1), mid))
    main = depthwise_separable(g, main, mid, mid, k, 1)
    x = g.p("Concat", [main, short], f"{g.var('concat')}.tmp_0", axis=1)
    return hardswish(g, p_bn(g, p_conv(g, x, 2 * mid, cout, 1), cout))


def picodet_head() -> onnx.ModelProto:
    """A PicoDet-style detector (PaddleDetection, exported by Paddle2ONNX without its NMS):
    an LCNet backbone, the CSP-PAN neck (1x1 convs to one width, nearest Resize and Concat
    top-down, stride-2 depthwise separable convs and Concat bottom-up, CSP layers), and a
    GFL head per level: a conv tower the class and box outputs share, one 1x1 conv split into
    class logits (Sigmoid, flattened to [1, cells, classes]) and box distributions (Softmax
    over reg_max + 1 bins, MatMul with 0..reg_max, times the stride, decoded around the cell
    centres); scores and boxes concatenated over the levels."""
    g = Builder(17)
    stages = [[(3, 16, 1, False), (3, 24, 2, False)],  # stride 4
              [(3, 32, 2, False), (3, 32, 1, False)],  # 8
              [(3, 64, 2, False), (5, 64, 1, False)],  # 16
              [(5, 128, 2, True), (5, 128, 1, True)]]  # 32
    _, c3, c4, c5 = lcnet(g, "image", 8, stages)
    width = 48
    feats = [hardswish(g, p_bn(g, p_conv(g, f, c, width, 1), width)) for f, c in zip((c3, c4, c5), (32, 64, 128))]
    # top-down
    inner = [feats[2]]
    for low in (feats[1], feats[0]):
        x = g.p("Concat", [p_upsample(g, inner[0], 2), low], f"{g.var('concat')}.tmp_0", axis=1)
        inner.insert(0, csp_layer(g, x, 2 * width, width, 5))
    # bottom-up
    outs = [inner[0]]
    for high in inner[1:]:
        down = depthwise_separable(g, outs[-1], width, width, 5, 2)
        x = g.p("Concat", [down, high], f"{g.var('concat')}.tmp_0", axis=1)
        outs.append(csp_layer(g, x, 2 * width, width, 5))
    nc, bins = PICODET_CLASSES, PICODET_REG_MAX + 1
    project = g.init("head.distribution_project.project", np.arange(bins, dtype=np.float32))
    scores, boxes, points = [], [], []
    for feat, stride in zip(outs, PICODET_STRIDES):
        size = PICODET_SIZE // stride
        x = depthwise_separable(g, depthwise_separable(g, feat, width, width, 5, 1), width, width, 5, 1)
        x = p_conv(g, x, width, nc + 4 * bins, 1, bias=True)
        split = g.var("split")
        cls, reg = g.p("Split", [x, g.pconst([nc, 4 * bins], np.int64)], [f"{split}.tmp_0", f"{split}.tmp_1"], axis=1)
        cls = g.p("Sigmoid", [cls], f"{g.var('sigmoid')}.tmp_0")
        cls = g.p("Reshape", [cls, g.pconst([1, nc, size * size], np.int64)], f"{g.var('reshape2')}.tmp_0")
        scores.append(g.p("Transpose", [cls], f"{g.var('transpose')}.tmp_0", perm=[0, 2, 1]))
        reg = g.p("Transpose", [reg], f"{g.var('transpose')}.tmp_0", perm=[0, 2, 3, 1])
        reg = g.p("Reshape", [reg, g.pconst([-1, bins], np.int64)], f"{g.var('reshape2')}.tmp_0")
        reg = g.p("Softmax", [reg], f"{g.var('softmax')}.tmp_0", axis=1)
        reg = g.p("MatMul", [reg, project], f"{g.var('linear')}.tmp_0")
        reg = g.p("Reshape", [reg, g.pconst([-1, 4], np.int64)], f"{g.var('reshape2')}.tmp_0")
        boxes.append(g.p("Mul", [reg, g.pconst(float(stride))], g.var("tmp")))
        centres, _ = anchor_points([(size, size)], [stride], offset=0.0)
        points.append(centres * np.float32(stride))
    dist = g.p("Concat", boxes, f"{g.var('concat')}.tmp_0", axis=0)
    split = g.var("split")
    lt, rb = g.p("Split", [dist, g.pconst([2, 2], np.int64)], [f"{split}.tmp_0", f"{split}.tmp_1"], axis=-1)
    centres = g.init("head.anchor_points", np.concatenate(points))
    corners = [g.p("Sub", [centres, lt], g.var("tmp")), g.p("Add", [centres, rb], g.var("tmp"))]
    x = g.p("Concat", corners, f"{g.var('concat')}.tmp_0", axis=-1)
    g.p("Unsqueeze", [x, g.pconst([0], np.int64)], "save_infer_model/scale_1.tmp_0")
    g.p("Concat", scores, "save_infer_model/scale_0.tmp_0", axis=1)
    cells = sum((PICODET_SIZE // s) ** 2 for s in PICODET_STRIDES)
    outputs = [vi("save_infer_model/scale_0.tmp_0", [1, cells, nc]),
               vi("save_infer_model/scale_1.tmp_0", [1, cells, 4])]
    return g.model("Paddle2ONNX", [vi("image", [1, 3, PICODET_SIZE, PICODET_SIZE])], outputs, 14)


# -- PyTorch (torchvision MobileNetV3-Small) -----------------------------------------------


def make_divisible(v: float, divisor: int = 8) -> int:
    """torchvision's _make_divisible: to a multiple of 8, not below 90% of `v`."""
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def mobilenet_v3() -> onnx.ModelProto:
    """torchvision mobilenet_v3_small (width 0.5, 10 classes) as torch.onnx exports it:
    BatchNormalization folded into the convs, HardSwish and ReLU activations, squeeze-excite
    blocks (GlobalAveragePool, 1x1 convs fc1/fc2, ReLU, HardSigmoid(1/6, 0.5), Mul),
    residual Adds, then the pooled features Flattened into the classifier's Gemm, HardSwish,
    Gemm (Dropout gone in eval)."""
    g = Builder(18)

    def act(x, path, hs):
        return g.t("HardSwish" if hs else "Relu", [x], path)

    def se(x, path, c):
        s = g.t("GlobalAveragePool", [x], f"{path}.avgpool")
        squeeze = make_divisible(c // 4)
        w1, b1 = g.param(f"{path}.fc1.weight", g.he((squeeze, c, 1, 1), c)), g.param(f"{path}.fc1.bias",
                                                                                      g.normal(squeeze, 0.1))
        s = g.t("Relu", [g.t("Conv", [s, w1, b1], f"{path}.fc1", **conv_attrs(1))], f"{path}.activation")
        w2, b2 = g.param(f"{path}.fc2.weight", g.he((c, squeeze, 1, 1), squeeze)), g.param(f"{path}.fc2.bias",
                                                                                           g.normal(c, 0.1))
        s = g.t("HardSigmoid", [g.t("Conv", [s, w2, b2], f"{path}.fc2", **conv_attrs(1))], f"{path}.scale_activation",
                alpha=1 / 6, beta=0.5)
        return g.t("Mul", [s, x], path)

    # (kernel, expanded, out, SE, HardSwish, stride): torchvision's small table
    table = [(3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2), (3, 88, 24, False, False, 1),
             (5, 96, 40, True, True, 2), (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
             (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1), (5, 288, 96, True, True, 2),
             (5, 576, 96, True, True, 1), (5, 576, 96, True, True, 1)]
    cin = make_divisible(16 * 0.5)
    x = act(folded_conv(g, "input", "features.0.0", 3, cin, 3, 2), "features.0.2", True)
    for i, (k, exp, out, use_se, hs, stride) in enumerate(table, 1):
        exp, out = make_divisible(exp * 0.5), make_divisible(out * 0.5)
        path, j, y = f"features.{i}.block", 0, x
        if exp != cin:
            y = act(folded_conv(g, y, f"{path}.0.0", cin, exp, 1), f"{path}.0.2", hs)
            j = 1
        y = act(folded_conv(g, y, f"{path}.{j}.0", exp, exp, k, stride, exp), f"{path}.{j}.2", hs)
        if use_se:
            j += 1
            y = se(y, f"{path}.{j}", exp)
        y = folded_conv(g, y, f"{path}.{j + 1}.0", exp, out, 1)
        x = g.t("Add", [y, x], f"features.{i}") if stride == 1 and cin == out else y
        cin = out
    last = 6 * cin
    x = act(folded_conv(g, x, f"features.{len(table) + 1}.0", cin, last, 1), f"features.{len(table) + 1}.2", True)
    x = g.t("Flatten", [g.t("GlobalAveragePool", [x], "avgpool")], "", axis=1)
    hidden = make_divisible(1024 * 0.5)
    w, b = g.param("classifier.0.weight", g.he((hidden, last), last)), g.param("classifier.0.bias",
                                                                               g.normal(hidden, 0.01))
    x = g.t("HardSwish", [g.t("Gemm", [x, w, b], "classifier.classifier.0", alpha=1.0, beta=1.0, transB=1)],
            "classifier.classifier.1")
    w, b = g.param("classifier.3.weight", g.he((10, hidden), hidden)), g.param("classifier.3.bias",
                                                                               g.normal(10, 0.01))
    g.t("Gemm", [x, w, b], "classifier.classifier.3", outputs=["output"], alpha=1.0, beta=1.0, transB=1)
    return g.model("main_graph", [vi("input", ["batch_size", 3, 96, 96])], [vi("output", ["batch_size", 10])], 17)


ZOO: dict[str, Callable[[], onnx.ModelProto]] = {
    "mnist": mnist_cnn,
    "resnet_small": resnet_small,
    "mobilenet_small": mobilenet_small,
    "mobilenet_v2": mobilenet_v2,
    "squeezenet": squeezenet,
    "yolov3_tiny": yolov3_tiny,
    "transformer_block": transformer_block,
    "paddle_ocr_rec": paddle_ocr_rec,
    "ocr_cls_stale": ocr_cls_stale,
    "vad_if": vad_if,
    "paddle_crnn": paddle_crnn,
    "gru_kws": gru_kws,
    "lstm_speaker": lstm_speaker,
    "t5_encoder": t5_encoder,
    "t5_decoder": t5_decoder,
    "captcha_crnn_stale": captcha_crnn_stale,
    "face_pnet": face_pnet,
    "face_rnet_b16": face_rnet_b16,
    "keras_nhwc_cnn": keras_nhwc_cnn,
    "yolov8_det": yolov8_det,
    "ppocr_det": ppocr_det,
    "picodet_head": picodet_head,
    "mobilenet_v3": mobilenet_v3,
    "resnet50_sized": resnet50_sized,
}
INPUT_SHAPES: dict[str, dict[str, list[int]]] = {
    "resnet_small": {"input": [1, 3, 64, 64]},
    "mobilenet_small": {"images": [1, 3, 96, 96]},
    "mobilenet_v2": {"input": [1, 3, 96, 96]},
    "squeezenet": {"input": [1, 3, 98, 98]},
    "yolov3_tiny": {"images": [1, 3, 128, 128]},
    "transformer_block": {"x": [2, 16, 64]},
    "paddle_ocr_rec": {"x": [1, 3, 32, 100]},
    "vad_if": {"input": [1, 512]},
    "paddle_crnn": {"x": [1, 3, 32, 100]},
    "gru_kws": {"mfcc": [1, 49, 10]},
    "lstm_speaker": {"mels": [1, 50, 40]},
    "t5_encoder": {"input_ids": [1, 12]},
    "t5_decoder": {"input_ids": [1, 5], "encoder_attention_mask": [1, 12], "encoder_hidden_states": [1, 12, 32]},
    "face_pnet": {"input_1": [1, 3, 60, 80]},
    "keras_nhwc_cnn": {"input_1": [1, 24, 24, 3]},
    "ppocr_det": {"x": [1, 3, 320, 320]},
    "mobilenet_v3": {"input": [1, 3, 96, 96]},
}
"""Exporters leave batch and sequence dims dynamic; tests and tools fix them like this."""
GLUE_MODELS = ["yolov8_det", "ppocr_det", "picodet_head", "mobilenet_v3"]
"""Detectors and a classifier MLIP runs nearly all of, partitioned into dozens of calls: the
host glue between them is what benchmarks/host_glue.py times."""
FAILS_FULL_CHECK = {"paddle_ocr_rec", "ocr_cls_stale", "paddle_crnn", "captcha_crnn_stale"}
"""Models ONNX's full check refuses as exported, on purpose: -1 dims (which it reads as sizes)
and value_info or graph outputs that contradict shape inference. onnxruntime runs them."""
DEFAULT = [n for n in ZOO if n != "resnet50_sized"]  # ~100 MB; written only when named


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write seeded zoo models as ONNX files.")
    parser.add_argument("outdir", nargs="?", type=Path, metavar="OUTDIR")
    builders = ZOO
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"{', '.join(builders)} (default: {', '.join(DEFAULT)})")
    parser.add_argument("--example", action="store_true", help="write the bundled example model examples/mnist.onnx")
    args = parser.parse_args(argv)
    if args.example:
        if args.outdir or args.names:
            parser.error("--example takes no OUTDIR or NAME")
        targets = {"mnist": Path(__file__).resolve().with_name("mnist.onnx")}
    else:
        if args.outdir is None:
            parser.error("OUTDIR is required unless --example is given")
        unknown = [n for n in args.names if n not in builders]
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(builders)}")
        args.outdir.mkdir(parents=True, exist_ok=True)
        targets = {n: args.outdir / f"{n}.onnx" for n in args.names or DEFAULT}
    for name, path in targets.items():
        onnx.save(builders[name](), path)
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
