"""The `mrvl` dialect: layers of the Marvell MLIP accelerator, grouped into subgraphs.

One op per layer kind that Marvell's backend compiler `mrvl-tmlc` accepts in its
nodes JSON (`docs/json-format.md`): `mrvl.conv2d` (with fused pad,
bias, batch norm and relu), `mrvl.fc`, pools, `mrvl.sum`, `mrvl.concat`, `mrvl.reshape`,
`mrvl.batch_flatten`, `mrvl.squeeze` and `mrvl.layout_transform`. Activations are NHWC and
float32; conv weights are OHWI and FC weights `[out, in]`.

The verifiers hold MLIP's limits (float32, ranks, batch, NHWC shapes, concat on channels),
so invalid accelerator IR cannot be built: the placement rules keep such graph ops on the
host, and a verifier failure here is a compiler bug, never a user error.

A `mrvl.subgraph` is one accelerator program (one nodes/consts JSON pair): an isolated,
func-like symbol holding layers and the target options it is compiled with.
"""

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, Region, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

MAX_BATCH = 8
"""MLIP runs at most 8 images per inference (`-b` of mrvl-tmlc)."""

# Discardable attributes that place-ops sets on `graph` ops, before any layer exists.
PLACE_ATTR = "mrvl.place"
""""mlip" or "host"."""
GROUP_ATTR = "mrvl.group"
"""On MLIP ops: the ops fused into one layer share this i64."""
PATTERN_ATTR = "mrvl.pattern"
"""On MLIP ops: the layer kind their group becomes ("conv2d", ...)."""
REASONS_ATTR = "mrvl.reasons"
"""On host ops: every reason it stays there, as "<rule-id>: <text> (<observed>)"."""
LAYOUT_REASON_ATTR = "mrvl.layout_reason"
"""On the layout transposes convert-layout leaves on the host: why the layout changes there."""
LEGALIZED_ATTR = "mrvl.legalized"
"""On the module, set by legalize-mrvl: each legalised ONNX node's name and the rewrite that
made it MLIP layers (`{relu6 = "clip-as-depthwise"}`)."""


class Activation(StrEnum):
    """Activation a layer applies before writing its output."""

    NONE = "none"
    RELU = "relu"


@irdl_attr_definition
class ActivationAttr(EnumAttribute[Activation], SpacedOpaqueSyntaxAttribute):
    name = "mrvl.activation"


NO_ACTIVATION = ActivationAttr(Activation.NONE)
I64_ARRAY = DenseArrayBase.constr(i64)


def _shape(value: SSAValue, what: str) -> tuple[int, ...]:
    t = value.type
    if not isinstance(t, TensorType) or t.element_type != f32:
        raise VerifyException(f"{what} must be a float32 tensor, got {t}")
    return t.get_shape()


def _activation_map(shape: tuple[int, ...], what: str, ranks: Sequence[int] = (4,)) -> tuple[int, ...]:
    """Check an activation tensor's rank and batch; returns its shape."""
    if len(shape) not in ranks:
        raise VerifyException(f"{what} must have rank {' or '.join(map(str, ranks))}, got {len(shape)}")
    if not 1 <= shape[0] <= MAX_BATCH:
        raise VerifyException(f"{what} batch must be in [1, {MAX_BATCH}], got {shape[0]}")
    return shape


def _pairs(attr: DenseArrayBase, n: int, name: str, minimum: int) -> tuple[int, ...]:
    values = tuple(attr.get_values())
    if len(values) != n or any(v < minimum for v in values):
        raise VerifyException(f"'{name}' must be {n} values >= {minimum}, got {list(values)}")
    return values


def window_count(size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, dilation: int = 1,
                 ceil: bool = False) -> int:
    """How many windows a conv or pool places along one dim (its output size)."""
    span = size + pad_begin + pad_end - dilation * (kernel - 1) - 1
    if not ceil:
        return span // stride + 1
    out = -(-span // stride) + 1
    # ONNX's rule (as onnxruntime's and PyTorch's): a last window that would start in the end
    # padding is dropped.
    return out - 1 if (out - 1) * stride >= size + pad_begin else out


@irdl_custom_directive
class PresentOperandTypes(CustomDirective):
    """`(t1, t2, ...)`: the types of `mrvl.conv2d`'s operands that are present, in order.

    The declarative format cannot split one type list over several optional operands
    (`functional-type(operands, results)` refuses them); the operands, parsed first, say
    which are there."""

    input: TypeDirective
    weight: TypeDirective
    bias: TypeDirective
    bn_gamma: TypeDirective
    bn_beta: TypeDirective
    bn_mean: TypeDirective
    bn_var: TypeDirective

    def _operands(self) -> list[TypeDirective]:
        return [getattr(self, name) for name in self.parameters]

    def parse(self, parser: Parser, state: ParsingState) -> None:
        start = parser.pos
        types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
        present = [(d, len(state.operands[d.inner.index] or ())) for d in self._operands()]
        if sum(n for _, n in present) != len(types):
            parser.raise_error(f"expected {sum(n for _, n in present)} operand types, got {len(types)}", start)
        for directive, count in present:
            directive.set(state, types[:count])
            types = types[count:]

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        with printer.in_parens():
            printer.print_list((t for d in self._operands() for t in d.get(op)), printer.print_attribute)


class _LayerOp(IRDLOperation):
    """A layer with one NHWC input and one NHWC output."""

    traits = traits_def(Pure())

    def verify_nhwc(self, value: SSAValue, what: str, ranks: Sequence[int] = (4,)) -> tuple[int, ...]:
        return _activation_map(_shape(value, what), what, ranks)


# Pipeline stages (`split-stages`)

STAGE_ATTR = "mrvl.stage"
"""On a top-level op of a module cut into pipeline stages: its stage, an integer."""


# Quantization recorded from a QDQ model (`recognize-qdq`)

QUANTIZED_ATTR = "mrvl.quantized"
"""On a layer (and, before layers exist, on the `graph` op it comes from): a
`QuantizedAttr`, the scales and zero points of the QDQ model around it."""

QUANTIZED_HIDDEN_ATTR = "mrvl.quantized_hidden"
"""On a `graph.LSTM` imported from onnxruntime's DynamicQuantizeLSTM: the kernel rounds the
hidden state to the uint8 grid of its own range before each step's product, as that op
quantizes it at run time (cpu.recurrent's `quantized_hidden`)."""


@irdl_attr_definition
class QuantParamsAttr(ParametrizedAttribute):
    """How one tensor is quantized: its integer type, a scale and zero point per tensor (one
    each) or per slice along `axis`:

        #mrvl.qparams<i8, scale [0.0307], zero_point [0], axis 0>
    """

    name = "mrvl.qparams"

    dtype: IntegerType
    scale: ArrayAttr[FloatAttr]
    zero_point: ArrayAttr[IntegerAttr]
    axis: IntAttr

    @staticmethod
    def of(dtype: IntegerType, scales: Sequence[float], zero_points: Sequence[int], axis: int = 0) -> "QuantParamsAttr":
        return QuantParamsAttr(dtype, ArrayAttr([FloatAttr(float(v), f32) for v in scales]),
                               ArrayAttr([IntegerAttr(int(v), i64) for v in zero_points]), IntAttr(axis))

    def scales(self) -> list[float]:
        return [v.value.data for v in self.scale.data]

    def zero_points(self) -> list[int]:
        return [v.value.data for v in self.zero_point.data]

    def bounds(self) -> tuple[int, int]:
        """The smallest and largest value of the integer type."""
        width, signed = self.dtype.width.data, self.dtype.signedness.data != Signedness.UNSIGNED
        return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)

    def symmetric_int8(self) -> bool:
        """Signed 8-bit with every zero point 0: what MLIP's int8 layers take."""
        return self.dtype.width.data == 8 and self.bounds()[0] < 0 and not any(self.zero_points())

    def describe(self) -> str:
        """`int8 zero point 0` / `uint8 zero points 120..130`: for reasons users read."""
        signed = "int" if self.bounds()[0] < 0 else "uint"
        points = self.zero_points()
        low, high = min(points), max(points)
        return f"{signed}{self.dtype.width.data} zero point{'s' if low != high else ''} " + (
            f"{low}" if low == high else f"{low}..{high}")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.dtype)
        printer.print_string(", scale [" + ", ".join(f"{v:.9g}" for v in self.scales()) + "]")
        printer.print_string(", zero_point [" + ", ".join(str(v) for v in self.zero_points()) + "]")
        printer.print_string(f", axis {self.axis.data}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            dtype = parser.parse_type()
            parser.parse_punctuation(",")
            parser.parse_keyword("scale")
            # A whole scale prints as an integer (`scale [1]`).
            scales = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_number)
            parser.parse_punctuation(",")
            parser.parse_keyword("zero_point")
            points = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            parser.parse_punctuation(",")
            parser.parse_keyword("axis")
            axis = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attr = cls.of(dtype, scales, points, axis)  # type: ignore[arg-type]
        return list(attr.parameters)

    def verify(self) -> None:
        scales, points = self.scales(), self.zero_points()
        if not scales or len(scales) != len(points):
            raise VerifyException(f"a scale and a zero point per channel: got {len(scales)} and {len(points)}")
        if not all(v > 0 and math.isfinite(v) for v in scales):
            raise VerifyException("scales must be positive and finite")
        low, high = self.bounds()
        if not all(low <= v <= high for v in points):
            raise VerifyException(f"zero points must be in [{low}, {high}] for {self.dtype}")


@irdl_attr_definition
class RoundedAttr(ParametrizedAttribute):
    """The encoding of a float tensor that a QDQ model rounds to an integer grid: the grid
    (`params`) and the model's QuantizeLinear and DequantizeLinear nodes that round it (no
    QuantizeLinear for a folded weight: its values are on the grid already):

        tensor<1x8x8x8xf32, #mrvl.rounded<#mrvl.qparams<i8, scale [0.25], zero_point [0], axis 0>, "h_q", "h_dq">>

    Carried on the tensor's type, it stays on the value through every rewrite that keeps
    the value's type; `restore-host-qdq` turns it back into the two nodes, under their
    names, where the host reads the tensor.
    """

    name = "mrvl.rounded"

    params: QuantParamsAttr
    quantize_node: StringAttr
    dequantize_node: StringAttr


@irdl_attr_definition
class QuantizedAttr(ParametrizedAttribute):
    """A layer of a QDQ model: how its input, weight and output were quantized (`none` where
    the model did not quantize one):

        #mrvl.quantized<input #mrvl.qparams<...>, weight #mrvl.qparams<...>, output none>
    """

    name = "mrvl.quantized"
    ROLES: ClassVar[tuple[str, ...]] = ("input", "weight", "output")

    input: QuantParamsAttr | NoneAttr
    weight: QuantParamsAttr | NoneAttr
    output: QuantParamsAttr | NoneAttr

    def tensors(self) -> dict[str, QuantParamsAttr]:
        """The quantized ones, by role."""
        return {role: p for role, p in zip(self.ROLES, self.parameters) if isinstance(p, QuantParamsAttr)}

    def int8_problem(self) -> str | None:
        """None when every quantized tensor is symmetric int8 (MLIP's int8 layers), else the first that is not."""
        for role, params in self.tensors().items():
            if not params.symmetric_int8():
                return f"{role} {params.describe()}"
        return None

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for i, (role, params) in enumerate(zip(self.ROLES, self.parameters)):
            printer.print_string(f"{', ' if i else ''}{role} ")
            if isinstance(params, NoneAttr):
                printer.print_string("none")
            else:
                printer.print_attribute(params)
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        values: list[Attribute] = []
        with parser.in_angle_brackets():
            for i, role in enumerate(cls.ROLES):
                if i:
                    parser.parse_punctuation(",")
                parser.parse_keyword(role)
                values.append(NoneAttr() if parser.parse_optional_keyword("none") else parser.parse_attribute())
        return values


@lru_cache(maxsize=64)
def _segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    """An op's `operandSegmentSizes`: how many operands each definition takes."""
    return DenseArrayBase.from_list(i32, sizes)


@irdl_op_definition
class Conv2DOp(_LayerOp):
    """2-D convolution as one MLIP layer, with pad, bias, batch norm and relu fused.

    `%y = mrvl.conv2d %x, %w bias %b bn(%g, %beta, %m, %v) {padding = ..., strides = ...} : (...) -> ...`
    Input and output NHWC, weight OHWI (`[O, KH, KW, I / groups]`), bias `[O]`; `padding`
    is (top, left, bottom, right). Batch-norm operands `[O]` each, applied after the bias.
    Built by fuse-mrvl from Conv[+Add bias][+BatchNormalization][+Relu]; one Conv2D layer.
    """

    name = "mrvl.conv2d"

    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    bn_gamma = opt_operand_def(TensorType)
    bn_beta = opt_operand_def(TensorType)
    bn_mean = opt_operand_def(TensorType)
    bn_var = opt_operand_def(TensorType)
    output = result_def(TensorType)

    strides = prop_def(I64_ARRAY)
    """(stride_h, stride_w)."""
    padding = prop_def(I64_ARRAY)
    """(top, left, bottom, right)."""
    dilations = prop_def(I64_ARRAY, DenseArrayBase.from_list(i64, [1, 1]))
    groups = prop_def(IntegerAttr, IntegerAttr(1, i64))
    activation = prop_def(ActivationAttr, NO_ACTIVATION)
    bn_epsilon = opt_prop_def(FloatAttr)
    """Batch-norm epsilon; present exactly when the batch-norm operands are."""

    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    custom_directives = (PresentOperandTypes,)
    assembly_format = (
        "$input `,` $weight (`bias` $bias^)? (`bn` `` `(` $bn_gamma^ `,` $bn_beta `,` $bn_mean `,` $bn_var `)`)? "
        "attr-dict `:` custom<PresentOperandTypes>(type($input), type($weight), type($bias), type($bn_gamma), "
        "type($bn_beta), type($bn_mean), type($bn_var)) `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue,
        result_type: Attribute,
        *,
        bias: SSAValue | None = None,
        bn: Sequence[SSAValue] = (),
        **properties: Attribute,
    ):
        """`bn` is (gamma, beta, mean, var), or empty; `properties` the op's properties."""
        optional = [bias] if bias is not None else []
        # Sorted, so that the attribute dictionary prints in the same order however it was built.
        built = dict(sorted(properties.items()))
        built[AttrSizedOperandSegments.attribute_name] = _segment_sizes((1, 1, len(optional), *[min(len(bn), 1)] * 4))
        # Operation's own constructor, with the segment sizes IRDL's would add: IRDL's first
        # matches the arguments to the op's definitions, several times the cost of the op,
        # and fuse-mrvl builds one per conv.
        Operation.__init__(self, operands=[input, weight, *optional, *bn], result_types=[result_type], properties=built)

    def verify_(self) -> None:
        n, h, w, c = self.verify_nhwc(self.input, "conv2d input")
        weight = _shape(self.weight, "conv2d weight")
        if len(weight) != 4:
            raise VerifyException(f"conv2d weight must be OHWI (rank 4), got rank {len(weight)}")
        o, kh, kw, ci = weight
        groups = self.groups.value.data
        if groups != 1 and not (groups == c == o and ci == 1):
            raise VerifyException(f"conv2d groups must be 1 or depthwise (groups = channels = {c}), got {groups}")
        if ci * groups != c:
            raise VerifyException(f"conv2d weight takes {ci * groups} input channels, the input has {c}")
        stride = _pairs(self.strides, 2, "strides", 1)
        pad = _pairs(self.padding, 4, "padding", 0)
        dilation = _pairs(self.dilations, 2, "dilations", 1)
        expected = (n, window_count(h, kh, stride[0], pad[0], pad[2], dilation[0]),
                    window_count(w, kw, stride[1], pad[1], pad[3], dilation[1]), o)
        if self.verify_nhwc(self.output, "conv2d output") != expected:
            raise VerifyException(f"conv2d output must be {list(expected)}, got {list(_shape(self.output, 'y'))}")
        for name in ("bias", "bn_gamma", "bn_beta", "bn_mean", "bn_var"):
            value = getattr(self, name)
            if value is not None and _shape(value, f"conv2d {name}") != (o,):
                raise VerifyException(f"conv2d {name} must be [{o}], got {list(_shape(value, name))}")
        if (self.bn_gamma is None) != (self.bn_epsilon is None):
            raise VerifyException("conv2d 'bn_epsilon' must be given exactly with the batch-norm operands")


@irdl_op_definition
class FCOp(_LayerOp):
    """Fully connected layer: `y = x @ weight.T + bias`, relu fused.

    Weight `[out, in]`. The input is `[N, in]`, or an NHWC tensor `[N, H, W, C]` flattened
    in NCHW order on the accelerator, which `weights_need_transform` announces to mrvl-tmlc
    (the flatten of an NCHW model after NHWC layers). One FC layer.
    """

    name = "mrvl.fc"

    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)

    activation = prop_def(ActivationAttr, NO_ACTIVATION)
    weights_need_transform = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input `,` $weight (`bias` $bias^)? attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        shape = self.verify_nhwc(self.input, "fc input", ranks=(2, 4))
        if (len(shape) == 4) != (self.weights_need_transform is not None):
            raise VerifyException("fc takes a rank-4 input exactly when 'weights_need_transform' is set")
        features = math.prod(shape[1:])
        weight = _shape(self.weight, "fc weight")
        if len(weight) != 2 or weight[1] != features:
            raise VerifyException(f"fc weight must be [out, {features}], got {list(weight)}")
        if self.bias is not None and _shape(self.bias, "fc bias") != (weight[0],):
            raise VerifyException(f"fc bias must be [{weight[0]}], got {list(_shape(self.bias, 'b'))}")
        if _shape(self.output, "fc output") != (shape[0], weight[0]):
            raise VerifyException(f"fc output must be [{shape[0]}, {weight[0]}]")


class _Pool2DOp(_LayerOp):
    input = operand_def(TensorType)
    output = result_def(TensorType)

    kernel_shape = prop_def(I64_ARRAY)
    strides = prop_def(I64_ARRAY)
    padding = prop_def(I64_ARRAY)
    """(top, left, bottom, right)."""
    ceil_mode = opt_prop_def(UnitAttr)
    """Output size rounded up: a last, partial window past the end padding (ONNX ceil_mode)."""

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    MAX_INPUT_BATCH: ClassVar[int] = MAX_BATCH

    def verify_(self) -> None:
        n, h, w, c = self.verify_nhwc(self.input, f"{self.name} input")
        if n > self.MAX_INPUT_BATCH:
            raise VerifyException(f"{self.name} batch must be at most {self.MAX_INPUT_BATCH}, got {n}")
        kernel = _pairs(self.kernel_shape, 2, "kernel_shape", 1)
        stride = _pairs(self.strides, 2, "strides", 1)
        pad = _pairs(self.padding, 4, "padding", 0)
        if any(p >= kernel[i % 2] for i, p in enumerate(pad)):
            raise VerifyException(f"{self.name} padding {list(pad)} must be smaller than the kernel {list(kernel)}")
        ceil = self.ceil_mode is not None
        expected = (n, window_count(h, kernel[0], stride[0], pad[0], pad[2], ceil=ceil),
                    window_count(w, kernel[1], stride[1], pad[1], pad[3], ceil=ceil), c)
        if _shape(self.output, "pool output") != expected:
            raise VerifyException(f"{self.name} output must be {list(expected)}")


@irdl_op_definition
class MaxPool2DOp(_Pool2DOp):
    """Max pooling, NHWC, pad fused (padding never wins the max), ceil_mode as ONNX's. One
    Maxpool2D layer."""

    name = "mrvl.maxpool2d"


@irdl_op_definition
class AvgPool2DOp(_Pool2DOp):
    """Average pooling, NHWC, batch 1, pad fused. One Avgpool2D layer."""

    name = "mrvl.avgpool2d"

    count_include_pad = opt_prop_def(UnitAttr)
    MAX_INPUT_BATCH: ClassVar[int] = 1


class _GlobalPool2DOp(_LayerOp):
    input = operand_def(TensorType)
    output = result_def(TensorType)

    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    MAX_INPUT_BATCH: ClassVar[int] = MAX_BATCH

    def verify_(self) -> None:
        n, _, _, c = self.verify_nhwc(self.input, f"{self.name} input")
        if n > self.MAX_INPUT_BATCH:
            raise VerifyException(f"{self.name} batch must be at most {self.MAX_INPUT_BATCH}, got {n}")
        if _shape(self.output, "pool output") != (n, 1, 1, c):
            raise VerifyException(f"{self.name} output must be [{n}, 1, 1, {c}]")


@irdl_op_definition
class GlobalAvgPool2DOp(_GlobalPool2DOp):
    """Mean over H and W, NHWC, batch 1. One GlobalAvgpool2D layer."""

    name = "mrvl.global_avgpool2d"
    MAX_INPUT_BATCH: ClassVar[int] = 1


@irdl_op_definition
class GlobalMaxPool2DOp(_GlobalPool2DOp):
    """Max over H and W, NHWC. One GlobalMaxpool2D layer."""

    name = "mrvl.global_maxpool2d"


@irdl_op_definition
class SumOp(_LayerOp):
    """Element-wise sum of two tensors of one shape (the second may be a constant), relu
    fused. Rank 3 or 4. One Sum2D layer."""

    name = "mrvl.sum"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)

    activation = prop_def(ActivationAttr, NO_ACTIVATION)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        shape = self.verify_nhwc(self.lhs, "sum lhs", ranks=(3, 4))
        if _shape(self.rhs, "sum rhs") != shape or _shape(self.output, "sum output") != shape:
            raise VerifyException(f"sum operands and result must all be {list(shape)}")


@irdl_op_definition
class ConcatOp(_LayerOp):
    """Concatenation along channels (NHWC axis 3) of rank-4, batch-1 tensors. One Concat layer."""

    name = "mrvl.concat"

    inputs = var_operand_def(TensorType)
    output = result_def(TensorType)

    assembly_format = "$inputs attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        if len(self.inputs) < 2:
            raise VerifyException(f"concat needs at least 2 inputs, got {len(self.inputs)}")
        shapes = [self.verify_nhwc(v, "concat input") for v in self.inputs]
        if any(s[0] != 1 for s in shapes):
            raise VerifyException("concat inputs must have batch 1")
        if len({s[:3] for s in shapes}) != 1:
            raise VerifyException("concat inputs must agree in N, H and W (concatenation is on channels)")
        expected = (*shapes[0][:3], sum(s[3] for s in shapes))
        if _shape(self.output, "concat output") != expected:
            raise VerifyException(f"concat output must be {list(expected)}")


class _ReshapeLikeOp(_LayerOp):
    input = operand_def(TensorType)
    output = result_def(TensorType)

    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def verify_count(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        source, target = _shape(self.input, "input"), _shape(self.output, "output")
        if math.prod(source) != math.prod(target):
            raise VerifyException(f"{self.name} cannot turn {list(source)} into {list(target)}")
        return source, target


@irdl_op_definition
class ReshapeOp(_ReshapeLikeOp):
    """Reshape between ranks 2 and 4 (row-major, as ONNX Reshape). One Reshape layer."""

    name = "mrvl.reshape"

    def verify_(self) -> None:
        source, target = self.verify_count()
        if len(source) not in (2, 4) or len(target) not in (2, 4):
            raise VerifyException(f"reshape goes between ranks 2 and 4, got {len(source)} -> {len(target)}")


@irdl_op_definition
class BatchFlattenOp(_ReshapeLikeOp):
    """`[N, ...] -> [N, rest]` for rank-2 or rank-4 inputs. One BatchFlatten layer."""

    name = "mrvl.batch_flatten"

    def verify_(self) -> None:
        source, target = self.verify_count()
        if len(source) not in (2, 4) or len(target) != 2 or target[0] != source[0]:
            raise VerifyException(f"batch_flatten turns [N, ...] into [N, rest], got {list(source)} -> {list(target)}")


@irdl_op_definition
class SqueezeOp(_ReshapeLikeOp):
    """Drops the size-1 dims listed in `axes`. One Squeeze layer."""

    name = "mrvl.squeeze"

    axes = prop_def(I64_ARRAY)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        source, target = self.verify_count()
        axes = set(self.axes.get_values())
        if any(not 0 <= a < len(source) or source[a] != 1 for a in axes):
            raise VerifyException(f"squeeze axes {sorted(axes)} must name size-1 dims of {list(source)}")
        if tuple(d for i, d in enumerate(source) if i not in axes) != target:
            raise VerifyException(f"squeeze of {list(source)} on {sorted(axes)} is not {list(target)}")


@irdl_op_definition
class LayoutTransformOp(_LayerOp):
    """NCHW -> NHWC transpose of a model input, run on MLIP. One layout_transform layer."""

    name = "mrvl.layout_transform"

    input = operand_def(TensorType)
    output = result_def(TensorType)

    src_layout = prop_def(StringAttr, StringAttr("NCHW"))
    dst_layout = prop_def(StringAttr, StringAttr("NHWC"))

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$input attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        if (self.src_layout.data, self.dst_layout.data) != ("NCHW", "NHWC"):
            raise VerifyException(
                f"MLIP transforms NCHW to NHWC only, got {self.src_layout.data} to {self.dst_layout.data}"
            )
        n, c, h, w = _activation_map(_shape(self.input, "layout_transform input"), "layout_transform input")
        if _shape(self.output, "layout_transform output") != (n, h, w, c):
            raise VerifyException(f"layout_transform output must be {[n, h, w, c]}")


@irdl_op_definition
class SubgraphOp(IRDLOperation):
    """One accelerator program: its layers, inputs, outputs and target options.

    `mrvl.subgraph @tvmgen_mrvl_main_0(%x: tensor<...>) -> tensor<...> attributes {mcpu = "cn10ka", ...} {...}`
    Called from the host through `cpu.call_mlip @tvmgen_mrvl_main_0(...)`; one nodes/consts JSON pair.
    """

    name = "mrvl.subgraph"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    # The target options (`target.TargetOptions`), one property each.
    mcpu = prop_def(StringAttr)
    num_tiles = prop_def(IntegerAttr)
    quantize = prop_def(StringAttr)
    wb_pin_ocm = prop_def(IntegerAttr)
    run_mode = prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        body: Region,
        options: dict[str, Attribute],
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_type": function_type, **options},
            attributes=attributes or {},
            regions=[body],
        )

    @classmethod
    def parse(cls, parser: Parser) -> "SubgraphOp":
        name, inputs, outputs, region, extra, _, _ = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type")
        )
        entries = dict(extra.data) if extra is not None else {}
        known = cls.get_irdl_definition().properties
        options = {k: v for k, v in entries.items() if k in known}
        others = {k: v for k, v in entries.items() if k not in known}
        return cls(name, FunctionType.from_lists(inputs, outputs), region, options, others)

    def print(self, printer: Printer) -> None:
        options = {k: v for k, v in self.properties.items() if k not in ("sym_name", "function_type")}
        print_func_op_like(
            printer, self.sym_name, self.function_type, self.body, options | self.attributes,
            reserved_attr_names=("sym_name", "function_type"),
        )

    def verify_(self) -> None:
        block = self.body.block
        if tuple(a.type for a in block.args) != self.function_type.inputs.data:
            raise VerifyException("mrvl.subgraph block arguments must match its function type")
        terminator = block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("mrvl.subgraph must end with mrvl.yield")
        if tuple(v.type for v in terminator.values) != self.function_type.outputs.data:
            raise VerifyException("mrvl.yield types must match the subgraph's results")
        for layer in block.ops:
            quantized = layer.attributes.get(QUANTIZED_ATTR)
            if quantized is None:
                continue
            if not isinstance(quantized, QuantizedAttr):
                raise VerifyException(f"'{QUANTIZED_ATTR}' must be a #mrvl.quantized, got {quantized}")
            if self.quantize.data == "int8" and (problem := quantized.int8_problem()) is not None:
                raise VerifyException(f"an int8 subgraph takes symmetric int8 layers only: {layer.name} has {problem}")


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Returns a subgraph's outputs."""

    name = "mrvl.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator(), HasParent(SubgraphOp), Pure())
    assembly_format = "($values^ `:` type($values))? attr-dict"


LAYER_OPS = (
    Conv2DOp, FCOp, MaxPool2DOp, AvgPool2DOp, GlobalAvgPool2DOp, GlobalMaxPool2DOp, SumOp,
    ConcatOp, ReshapeOp, BatchFlattenOp, SqueezeOp, LayoutTransformOp,
)

MRVL = Dialect("mrvl", [*LAYER_OPS, SubgraphOp, YieldOp], [ActivationAttr, QuantParamsAttr, RoundedAttr, QuantizedAttr])
