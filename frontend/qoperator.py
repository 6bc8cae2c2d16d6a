"""A QOperator model (onnxruntime's `quantize_static` with `QuantFormat.QOperator`) as its QDQ
twin, before shape inference: the rest of the compiler, `recognize-qdq` and placement first,
sees the same graph for both formats, so the same layers go to MLIP.

- `QLinearConv` with constant weights becomes DequantizeLinear -> Conv -> QuantizeLinear, the weight dequantized
  per tensor or per output channel, the int32 bias at x_scale * w_scale as the QDQ format
  writes it. (The com.microsoft QGemm and QLinear ops are expanded alike by `contrib_ops`.)
  `QLinearMatMul` stays: the quantizer writes it for products of two activations (attention),
  which no MLIP layer takes, and on the host it runs in integers, exact.
- The ops the quantizer leaves on int8 tensors because they only move or compare values
  (`DIRECT_OPS`: MaxPool, Reshape, Transpose, ...) read the dequantized tensor and quantize
  their result at the same scale and zero point, as the QDQ format writes them (a Pad's value
  dequantized too). This is exact: the op commutes with the dequantization.

Runs after the opset upgrade (per-axis DequantizeLinear needs opset 13).
"""

import onnx

from mrvl.frontend.contrib_ops import Expansion, attribute
from mrvl.frontend.onnx_graph import subgraphs

_CONV_ATTRIBUTES = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")

DIRECT_OPS = frozenset({
    "DepthToSpace", "Expand", "Flatten", "Gather", "Identity", "MaxPool", "Pad", "Reshape", "Resize", "Slice",
    "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose", "Unsqueeze",
})
"""Ops whose result on a quantized tensor is the quantized result on its dequantized one."""


def _per_axis(e: Expansion, scale: int) -> bool:
    """Whether the scale at input `scale` is 1-D with more than one element (per axis)."""
    shape = e.shapes.get(e.input(scale))
    return shape is not None and len(shape) == 1 and shape[0] > 1


def _dequantized(e: Expansion, x: int, axis: int) -> str:
    """Input x dequantized with the scale and zero point after it, along `axis` if per axis."""
    inputs = [e.input(x), e.input(x + 1), e.input(x + 2)]
    if _per_axis(e, x + 1):
        return e.add("DequantizeLinear", inputs, axis=axis)[0]
    return e.add("DequantizeLinear", inputs)[0]


def _qlinear_conv(e: Expansion) -> None:
    x, w = _dequantized(e, 0, 1), _dequantized(e, 3, 0)
    inputs = [x, w]
    if e.input(8):
        bias_scale = e.add("Mul", [e.input(1), e.input(4)])[0]
        bias = [e.input(8), bias_scale]
        inputs.append(e.add("DequantizeLinear", bias, axis=0)[0] if _per_axis(e, 4) else
                      e.add("DequantizeLinear", bias)[0])
    given = {name: attribute(e.node, name, None) for name in _CONV_ATTRIBUTES}
    y = e.add_main("Conv", inputs, **{name: value for name, value in given.items() if value is not None})
    e.quantized(y, 6)


EXPANSIONS = {"QLinearConv": _qlinear_conv}


GRID_PRESERVING = (DIRECT_OPS - {"Pad", "Resize"}) | {"Relu"}
"""Ops whose result on a rounded tensor lies on the same grid (a Pad's value need not)."""


class _Twin:
    """What the rewrite of one graph knows of its tensors, as it walks the nodes in order."""

    def __init__(self, graph: onnx.GraphProto):
        self.shapes = {t.name: list(t.dims) for t in graph.initializer}
        self.readers: dict[str, list[onnx.NodeProto]] = {}
        for node in graph.node:
            for name in node.input:
                self.readers.setdefault(name, []).append(node)
        self.outputs = {o.name for o in graph.output}
        self.quantized: dict[str, tuple[str, str]] = {}
        """Each integer tensor's QuantizeLinear (scale, zero point)."""
        self.rounded: dict[str, tuple[str, str]] = {}
        """Each float tensor dequantized per tensor, with its (scale, zero point)."""

    def record(self, node: onnx.NodeProto) -> None:
        if node.op_type == "QuantizeLinear" and len(node.input) > 2:
            self.quantized[node.output[0]] = (node.input[1], node.input[2])
        elif node.op_type == "DequantizeLinear" and len(node.input) > 2 and self._per_tensor(node.input[1]):
            self.rounded[node.output[0]] = (node.input[1], node.input[2])

    def _per_tensor(self, scale: str) -> bool:
        shape = self.shapes.get(scale)
        return shape is not None and len(shape) <= 1 and all(d == 1 for d in shape)

    def quantized_by_its_reader(self, node: onnx.NodeProto) -> tuple[str, str] | None:
        """The (scale, zero point) of the one QuantizeLinear reading a float monotone direct
        op's result (QOperator leaves a MaxPool float between a float Relu and a
        QuantizeLinear; QDQ rounds its input: the same values)."""
        if node.op_type not in DIRECT_OPS or len(node.output) != 1 or node.output[0] in self.outputs:
            return None
        if node.op_type == "Resize" and attribute(node, "mode", b"nearest") != b"nearest":
            return None
        users = self.readers.get(node.output[0], [])
        if len(users) != 1 or users[0].op_type != "QuantizeLinear" or len(users[0].input) < 3:
            return None
        return users[0].input[1], users[0].input[2]

    def unquantized_on_grid(self, node: onnx.NodeProto) -> tuple[str, str] | None:
        """The grid of a grid-preserving op's rounded input when nothing quantizes its result
        (QOperator leaves a Relu after QLinearAdd float; QDQ rounds its result at the same
        scale: the same values)."""
        if node.op_type not in GRID_PRESERVING or len(node.output) != 1 or node.output[0] in self.outputs:
            return None
        users = self.readers.get(node.output[0], [])
        if not node.input or node.input[0] not in self.rounded or not users or \
                all(u.op_type == "QuantizeLinear" for u in users):
            return None
        return self.rounded[node.input[0]]


def qoperator_as_qdq(graph: onnx.GraphProto) -> None:
    """Rewrite `graph`'s QOperator ops (and those of its subgraphs) into their QDQ twins, in
    place. Nodes must be in topological order."""
    twin = _Twin(graph)
    nodes: list[onnx.NodeProto] = []
    changed = False
    for node in graph.node:
        for sub in subgraphs(node):
            qoperator_as_qdq(sub)
        expand = EXPANSIONS.get(node.op_type) if node.domain in ("", "ai.onnx") else None
        if expand is not None and node.input[3] not in twin.shapes:
            expand = None  # run-time weights: no MLIP layer takes them; the host's integer conv does
        if expand is not None:
            e = Expansion(node, twin.shapes)
            expand(e)
            replacement = e.nodes
        elif node.op_type in DIRECT_OPS and node.input and node.input[0] in twin.quantized:
            replacement = _around_direct_op(node, twin.quantized[node.input[0]])
        elif (params := twin.unquantized_on_grid(node)) is not None:
            replacement = _rounded_after(node, params)
        elif node.input and node.input[0] not in twin.rounded and \
                (params := twin.quantized_by_its_reader(node)) is not None:
            replacement = _rounded_before(node, params)
        else:
            replacement = [node]
        for new in replacement:
            twin.record(new)
        nodes.extend(replacement)
        changed = changed or replacement != [node]
    if changed:
        del graph.node[:]
        graph.node.extend(nodes)


def _rounding(x: str, params: tuple[str, str], out: str, name: str) -> list[onnx.NodeProto]:
    """QuantizeLinear -> DequantizeLinear of `x` at `params`, into `out`."""
    scale, zero = params
    return [onnx.helper.make_node("QuantizeLinear", [x, scale, zero], [f"{name}/quantized"],
                                  name=f"{name}/QuantizeLinear"),
            onnx.helper.make_node("DequantizeLinear", [f"{name}/quantized", scale, zero], [out],
                                  name=f"{name}/DequantizeLinear")]


def _rounded_before(node: onnx.NodeProto, params: tuple[str, str]) -> list[onnx.NodeProto]:
    """`node` reading its first input rounded at `params`."""
    name = node.name or node.output[0]
    rounded = onnx.NodeProto()
    rounded.CopyFrom(node)
    rounded.input[0] = f"{name}/input_rounded"
    return [*_rounding(node.input[0], params, rounded.input[0], f"{name}/input"), rounded]


def _rounded_after(node: onnx.NodeProto, params: tuple[str, str]) -> list[onnx.NodeProto]:
    """`node` with its result rounded at `params`."""
    name = node.name or node.output[0]
    unrounded = onnx.NodeProto()
    unrounded.CopyFrom(node)
    unrounded.output[0] = f"{node.output[0]}/unrounded"
    return [unrounded, *_rounding(unrounded.output[0], params, node.output[0], f"{name}/output")]


def _around_direct_op(node: onnx.NodeProto, params: tuple[str, str]) -> list[onnx.NodeProto]:
    """`node` on the dequantized first input, each result quantized at `params`."""
    scale, zero = params
    name = node.name or node.output[0]
    floats = onnx.NodeProto()
    floats.CopyFrom(node)
    dequantized = f"{name}/dequantized"
    floats.input[0] = dequantized
    padding = []
    if node.op_type == "Pad" and len(node.input) > 2 and node.input[2]:
        # The pad value is quantized too (the quantizer writes the zero point).
        floats.input[2] = f"{name}/constant_value"
        padding = [onnx.helper.make_node("DequantizeLinear", [node.input[2], scale, zero], [floats.input[2]],
                                         name=f"{name}/DequantizeLinear_constant_value")]
    results = [f"{out}/float" if out else "" for out in node.output]
    del floats.output[:]
    floats.output.extend(results)
    before = onnx.helper.make_node("DequantizeLinear", [node.input[0], scale, zero], [dequantized],
                                   name=f"{name}/DequantizeLinear")
    after = [onnx.helper.make_node("QuantizeLinear", [result, scale, zero], [out], name=f"{out}/QuantizeLinear")
             for result, out in zip(results, node.output, strict=True) if out]
    return [before, *padding, floats, *after]
