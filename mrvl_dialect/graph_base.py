"""Shared syntax and constraints of the `graph` dialect's ONNX operator ops.

Every ONNX operator op prints in one custom form that mirrors an ONNX node:

    %y = graph.Conv %x, %w {kernel_shape = array<i64: 3, 3>} : (tensor<...>, tensor<...>) -> tensor<...>

Absent optional operands are dropped. Where dropping them makes the operand-to-input
mapping ambiguous (an absent optional before a present one, as in `Resize(x, "", "", sizes)`),
`operandSegmentSizes` is printed in the attribute dictionary, as MLIR's generic form does;
likewise `resultSegmentSizes`. Properties equal to the ONNX default are not printed.
The ONNX node name is the op's location: `--print-debuginfo` shows it as `loc("conv1")`.
"""

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrConstraint,
    BaseAttr,
    AttrSetConstraint,
    IRDLOperation,
    OptionalDef,
    ParamAttrConstraint,
    VariadicDef,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

OPERAND_SEGMENTS = "operandSegmentSizes"
RESULT_SEGMENTS = "resultSegmentSizes"


def elements(*element_types: Attribute) -> AttrConstraint:
    """An element type among `element_types`."""
    return AttrSetConstraint(frozenset(element_types))


def tensor_of(element: AttrConstraint) -> AttrConstraint:
    """A ranked tensor whose element type satisfies `element` (a `VarConstraint` ties
    several operands and results to one element type, like an ONNX type parameter)."""
    return ParamAttrConstraint(TensorType, (BaseAttr(Attribute), element, BaseAttr(Attribute)))


def f32_attr(value: float) -> FloatAttr:
    """An ONNX FLOAT attribute: the value rounded to float32, as ONNX stores it."""
    return FloatAttr(float(np.float32(value)), f32)


def default_segments(kinds: Sequence[str], count: int) -> list[int] | None:
    """Sizes of definition segments when `count` values fill `kinds` left to right.

    `kinds` holds "single", "optional" or "variadic" per definition. Present optionals are
    taken to come first, as ONNX writes them, and a variadic takes what is left.
    Returns None when `count` values cannot fill the definitions.
    """
    extra = count - kinds.count("single")
    if extra < 0:
        return None
    sizes: list[int] = []
    for kind in kinds:
        if kind == "single":
            sizes.append(1)
        elif kind == "optional":
            sizes.append(min(extra, 1))
            extra -= sizes[-1]
        else:
            sizes.append(extra)
            extra = 0
    return sizes if extra == 0 else None


def _kind(definition: object) -> str:
    if isinstance(definition, OptionalDef):
        return "optional"
    if isinstance(definition, VariadicDef):
        return "variadic"
    return "single"


class OnnxOp(IRDLOperation):
    """One ONNX operator of the default domain, with the ONNX schema's signature."""

    SINCE_VERSION: ClassVar[int]
    """The opset version of the schema the op was generated from."""

    @classmethod
    def onnx_op_type(cls) -> str:
        return cls.name.removeprefix("graph.")

    @classmethod
    def operand_kinds(cls) -> list[str]:
        return [_kind(d) for _, d in cls.get_irdl_definition().operands]

    @classmethod
    def result_kinds(cls) -> list[str]:
        return [_kind(d) for _, d in cls.get_irdl_definition().results]

    @classmethod
    def parse(cls, parser: Parser) -> "OnnxOp":
        start = parser.pos
        operands: list[UnresolvedOperand] = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        regions = []
        if cls.get_irdl_definition().regions:
            regions = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_region
            )
        entries = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        function_type = parser.parse_function_type()
        values = parser.resolve_operands(operands, function_type.inputs.data, start)

        property_names = cls.get_irdl_definition().properties.keys()
        for name in entries:
            # Discardable attributes carry a dialect prefix; a bare name is a typo.
            if name not in property_names and "." not in name:
                parser.raise_error(f"'{cls.name}' has no attribute '{name}'", start, parser.pos)
        properties = {k: v for k, v in entries.items() if k in property_names}
        attributes = {k: v for k, v in entries.items() if k not in property_names}
        for name, kinds, count in (
            (OPERAND_SEGMENTS, cls.operand_kinds(), len(values)),
            (RESULT_SEGMENTS, cls.result_kinds(), len(function_type.outputs.data)),
        ):
            if name in property_names and name not in properties:
                sizes = default_segments(kinds, count)
                if sizes is None:
                    parser.raise_error(
                        f"'{cls.name}' cannot take {count} "
                        f"{'operands' if name == OPERAND_SEGMENTS else 'results'}",
                        start,
                        parser.pos,
                    )
                properties[name] = DenseArrayBase.from_list(i32, sizes)
        return cls.create(
            operands=values,
            result_types=function_type.outputs.data,
            properties=properties,
            attributes=attributes,
            regions=regions,
        )

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        if self.regions:
            printer.print_string(" ")
            with printer.in_parens():
                printer.print_list(self.regions, printer.print_region)
        printer.print_op_attributes(
            dict(sorted((self.printed_properties() | self.attributes).items()))
        )
        printer.print_string(" : ")
        printer.print_function_type(
            (o.type for o in self.operands), (r.type for r in self.results)
        )

    def printed_properties(self) -> dict[str, Attribute]:
        """Properties that differ from their defaults and segment sizes that are needed."""
        definitions = self.get_irdl_definition().properties
        printed: dict[str, Attribute] = {}
        for name, value in self.properties.items():
            definition = definitions.get(name)
            if definition is not None and definition.default_value == value:
                continue
            if name == OPERAND_SEGMENTS and self._segments_implied(
                value, self.operand_kinds(), len(self.operands)
            ):
                continue
            if name == RESULT_SEGMENTS and self._segments_implied(
                value, self.result_kinds(), len(self.results)
            ):
                continue
            printed[name] = value
        return printed

    @staticmethod
    def _segments_implied(value: Attribute, kinds: list[str], count: int) -> bool:
        assert isinstance(value, DenseArrayBase)
        return default_segments(kinds, count) == list(value.get_values())

