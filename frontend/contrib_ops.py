"""onnxruntime's quantized contrib ops (domain com.microsoft) as the standard ONNX ops that
define them, before shape inference: their shapes then follow from ONNX's rules, and the rest
of the compiler sees only standard ops.

onnxruntime's quantizers write these (semantics from its ContribOperators.md):
- `MatMulIntegerToFloat`: MatMulInteger's int32 sums, as float, times a_scale * b_scale (b's
  per column), plus the bias;
- `DynamicQuantizeMatMul`: A quantized at run time (DynamicQuantizeLinear), then as above;
- `DynamicQuantizeLSTM`: an LSTM of int8 weights ([directions, rows, 4 * hidden], a scale per
  direction or per column) whose X and hidden state are quantized at run time, as an ONNX
  LSTM of the dequantized weights reading X through DynamicQuantizeLinear and
  DequantizeLinear; its hidden state's rounding is no ONNX op, so the LSTM's outputs are
  returned for the importer to mark (`mrvl.quantized_hidden`);
- `QGemm`, `QLinearAdd`, `QLinearMul`, `QLinearSigmoid`, `QLinearSoftmax`, `QLinearLeakyRelu`, `QLinearConcat`,
  `QLinearGlobalAveragePool`, `QLinearAveragePool` (QOperator format): each input
  dequantized, the float op, the result quantized (DequantizeLinear -> op -> QuantizeLinear),
  as a QDQ model computes it.

Other ops of the domain stay `graph.custom` ops, which no host kernel runs.
"""

from collections.abc import Callable

import onnx
from onnx import helper

from mrvl.frontend.onnx_graph import node_label, subgraphs
from mrvl_dialect.errors import CompileError

DOMAIN = "com.microsoft"


class Expansion:
    """The nodes that stand for one contrib node, named after it; `shapes`: the graph's
    initializers' shapes."""

    def __init__(self, node: onnx.NodeProto, shapes: dict[str, list[int]]):
        self.node = node
        self.shapes = shapes
        self.nodes: list[onnx.NodeProto] = []
        self.quantized_hidden: list[str] = []
        """Outputs of the recurrent nodes made whose hidden state is quantized at run time."""

    def input(self, i: int) -> str:
        return self.node.input[i] if i < len(self.node.input) else ""

    def add(self, op_type: str, inputs: list[str], outputs: list[str] | None = None, **attributes) -> list[str]:
        step = f"{self.node.name or self.node.output[0]}/{op_type}_{len(self.nodes)}"
        outputs = outputs or [f"{step}_out"]
        while inputs and not inputs[-1]:
            inputs = inputs[:-1]  # trailing optional inputs absent
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=step, **attributes))
        return outputs

    def add_main(self, op_type: str, inputs: list[str], **attributes) -> str:
        """The float op the node stands for, under the node's own name (reports and
        placement files name it as the model does)."""
        (result,) = self.add(op_type, inputs, **attributes)
        if self.node.name:
            self.nodes[-1].name = self.node.name
        return result

    def dequantized(self, x: int) -> str:
        """Input x (with its scale and zero point after it) as float."""
        return self.add("DequantizeLinear", [self.input(x), self.input(x + 1), self.input(x + 2)])[0]

    def quantized(self, value: str, scale: int) -> None:
        """`value` quantized with the scale and zero point at input `scale`, as the node's output."""
        self.add("QuantizeLinear", [value, self.input(scale), self.input(scale + 1)], [self.node.output[0]])


def attribute(node: onnx.NodeProto, name: str, default):
    found = next((a for a in node.attribute if a.name == name), None)
    return helper.get_attribute_value(found) if found is not None else default


def _scaled_sums(e: Expansion, a: str, b: str, a_scale: str, b_scale: str, a_zero: str, b_zero: str,
                 bias: str) -> None:
    sums = e.add("MatMulInteger", [a, b, a_zero, b_zero])[0]
    product = e.add("Mul", [e.add("Cast", [sums], to=onnx.TensorProto.FLOAT)[0], e.add("Mul", [a_scale, b_scale])[0]],
                    None if bias else [e.node.output[0]])[0]
    if bias:
        e.add("Add", [product, bias], [e.node.output[0]])


def _matmul_integer_to_float(e: Expansion) -> None:
    _scaled_sums(e, e.input(0), e.input(1), e.input(2), e.input(3), e.input(4), e.input(5), e.input(6))


def _dynamic_quantize_matmul(e: Expansion) -> None:
    out = e.node.output[0]
    q, scale, zero = e.add("DynamicQuantizeLinear", [e.input(0)], [f"{out}/a_q", f"{out}/a_scale", f"{out}/a_zero"])
    _scaled_sums(e, q, e.input(1), scale, e.input(2), zero, e.input(3), e.input(4))


def _binary(op_type: str) -> Callable[[Expansion], None]:
    def expand(e: Expansion) -> None:
        e.quantized(e.add_main(op_type, [e.dequantized(0), e.dequantized(3)]), 6)
    return expand


def _unary(op_type: str, **attributes) -> Callable[[Expansion], None]:
    def expand(e: Expansion) -> None:
        given = {name: attribute(e.node, name, default) for name, default in attributes.items()}
        e.quantized(e.add_main(op_type, [e.dequantized(0)], **given), 3)
    return expand


def _concat(e: Expansion) -> None:
    inputs = [e.dequantized(i) for i in range(2, len(e.node.input), 3)]
    joined = e.add_main("Concat", inputs, axis=attribute(e.node, "axis", 0))
    e.add("QuantizeLinear", [joined, e.input(0), e.input(1)], [e.node.output[0]])


def _qgemm(e: Expansion) -> None:
    """Y = alpha * A' B' + C, C int32 at a_scale * b_scale; quantized when y_scale is given,
    else float. B's 1-D scale is per column of B' (its rows when transB)."""
    per_column = len(e.shapes.get(e.input(4), [])) == 1 and e.shapes[e.input(4)][0] > 1
    trans_b = attribute(e.node, "transB", 0)
    b_inputs = [e.input(3), e.input(4), e.input(5)]
    b = e.add("DequantizeLinear", b_inputs, axis=0 if trans_b else 1)[0] if per_column else \
        e.add("DequantizeLinear", b_inputs)[0]
    inputs = [e.dequantized(0), b]
    if e.input(6):
        bias = [e.input(6), e.add("Mul", [e.input(1), e.input(4)])[0]]
        inputs.append(e.add("DequantizeLinear", bias, axis=0)[0] if per_column else
                      e.add("DequantizeLinear", bias)[0])
    given = {"alpha": attribute(e.node, "alpha", 1.0), "transA": attribute(e.node, "transA", 0), "transB": trans_b}
    if e.input(7):
        e.quantized(e.add_main("Gemm", inputs, **given), 7)
    else:
        e.add("Gemm", inputs, [e.node.output[0]], **given)
        if e.node.name:
            e.nodes[-1].name = e.node.name


def _softmax(e: Expansion) -> None:
    """Softmax of the dequantized input, with the semantics of the opset the node names: from
    13, along `axis`; before, over the input flattened to 2-D at `axis`."""
    x, axis = e.dequantized(0), attribute(e.node, "axis", -1)
    if attribute(e.node, "opset", 13) >= 13:
        e.quantized(e.add_main("Softmax", [x], axis=axis), 3)
        return
    rows = e.add_main("Softmax", [e.add("Flatten", [x], axis=axis)[0]], axis=1)
    e.quantized(e.add("Reshape", [rows, e.add("Shape", [x])[0]])[0], 3)


_POOL_ATTRIBUTES = ("auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides")


def _pool(op_type: str) -> Callable[[Expansion], None]:
    def expand(e: Expansion) -> None:
        x = e.dequantized(0)
        channels_last = attribute(e.node, "channels_last", 0)
        if channels_last:
            x = e.add("Transpose", [x], perm=[0, 3, 1, 2])[0]
        given = {a.name: helper.get_attribute_value(a) for a in e.node.attribute if a.name in _POOL_ATTRIBUTES}
        y = e.add_main(op_type, [x], **given)
        if channels_last:
            y = e.add("Transpose", [y], perm=[0, 2, 3, 1])[0]
        e.quantized(y, 3)
    return expand


_RECURRENT_ATTRIBUTES = ("activation_alpha", "activation_beta", "activations", "clip", "direction", "hidden_size",
                         "input_forget")


def _dequantized_weights(e: Expansion, w: int, scale: int, name: str) -> str:
    """Input w, int8 or uint8 [directions, rows, 4 * hidden], with the scale and zero point at
    inputs `scale` and `scale` + 1 (per direction [D], or per column [D, 4 * hidden]: a static
    shape, an initializer's or a graph input's), as the float weights of an ONNX LSTM:
    [directions, 4 * hidden, rows], named `name` after the node."""
    scale_shape = e.shapes.get(e.input(scale))
    if scale_shape is None:
        raise CompileError(node_label(e.node), f"the scale '{e.input(scale)}' must have a static shape")
    broadcast = helper.make_tensor("shape", onnx.TensorProto.INT64, [3],
                                   [scale_shape[0], 1, scale_shape[1] if len(scale_shape) > 1 else 1])
    shape = e.add("Constant", [], value=broadcast)[0]
    values = e.add("Cast", [e.input(w)], to=onnx.TensorProto.FLOAT)[0]
    if e.input(scale + 1):
        zero = e.add("Cast", [e.input(scale + 1)], to=onnx.TensorProto.FLOAT)[0]
        values = e.add("Sub", [values, e.add("Reshape", [zero, shape])[0]])[0]
    scaled = e.add("Mul", [values, e.add("Reshape", [e.input(scale), shape])[0]])[0]
    return e.add("Transpose", [scaled], [f"{e.node.name or e.node.output[0]}/{name}"], perm=[0, 2, 1])[0]


def _dynamic_quantize_lstm(e: Expansion) -> None:
    """An LSTM of the dequantized weights, its products rounded as onnxruntime's kernel
    quantizes their left operands at run time: X once for all steps, on the uint8 grid
    DynamicQuantizeLinear picks for its range (exact as ONNX ops), and the hidden state before
    each step's product, on the grid of its own range (marked for the importer). With
    `sequence_lens` onnxruntime takes X's range over the longest sequence's steps only."""
    w, r = _dequantized_weights(e, 1, 8, "W"), _dequantized_weights(e, 2, 10, "R")
    prefix = e.node.name or e.node.output[0]
    x = e.add("DequantizeLinear", e.add("DynamicQuantizeLinear", [e.input(0)], [
        f"{prefix}/x_quantized", f"{prefix}/x_scale", f"{prefix}/x_zero_point"]), [f"{prefix}/x_rounded"])[0]
    given = {a.name: helper.get_attribute_value(a) for a in e.node.attribute if a.name in _RECURRENT_ATTRIBUTES}
    e.add("LSTM", [x, w, r, *[e.input(i) for i in range(3, 8)]], list(e.node.output), **given)
    if e.node.name:
        e.nodes[-1].name = e.node.name
    e.quantized_hidden.extend(o for o in e.node.output if o)


EXPANSIONS: dict[str, Callable[[Expansion], None]] = {
    "DynamicQuantizeLSTM": _dynamic_quantize_lstm,
    "MatMulIntegerToFloat": _matmul_integer_to_float,
    "DynamicQuantizeMatMul": _dynamic_quantize_matmul,
    "QGemm": _qgemm,
    "QLinearAdd": _binary("Add"),
    "QLinearMul": _binary("Mul"),
    "QLinearSigmoid": _unary("Sigmoid"),
    "QLinearSoftmax": _softmax,
    "QLinearLeakyRelu": _unary("LeakyRelu", alpha=0.01),
    "QLinearConcat": _concat,
    "QLinearGlobalAveragePool": _pool("GlobalAveragePool"),
    "QLinearAveragePool": _pool("AveragePool"),
}
"""How each contrib op expands."""


def expand_contrib_ops(graph: onnx.GraphProto) -> set[str]:
    """Replace the contrib ops of `EXPANSIONS` in `graph` (and its subgraphs) by their
    standard definitions, in place; returns the outputs of the recurrent nodes made whose
    hidden state is quantized at run time."""
    shapes = {t.name: list(t.dims) for t in graph.initializer}
    for value in graph.input:
        dims = value.type.tensor_type.shape.dim
        if value.name not in shapes and all(d.HasField("dim_value") for d in dims):
            shapes[value.name] = [d.dim_value for d in dims]
    nodes: list[onnx.NodeProto] = []
    quantized_hidden: set[str] = set()
    changed = False
    for node in graph.node:
        for sub in subgraphs(node):
            quantized_hidden |= expand_contrib_ops(sub)
        expand = EXPANSIONS.get(node.op_type) if node.domain == DOMAIN else None
        if expand is None:
            nodes.append(node)
            continue
        e = Expansion(node, shapes)
        expand(e)
        nodes.extend(e.nodes)
        quantized_hidden.update(e.quantized_hidden)
        changed = True
    if changed:
        del graph.node[:]
        graph.node.extend(nodes)
    return quantized_hidden
