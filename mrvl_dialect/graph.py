"""The `graph` dialect: an ONNX model as imported, before any lowering.

One op per ONNX default-domain operator (`graph.Conv`, `graph.Relu`, ...: generated into
`graph_ops_gen.py`, op names keep ONNX's spelling so a node maps to its op at a glance),
plus three hand-written ops:

- `graph.constant`: an initializer or folded constant. Large tensors are
  `dense_resource<handle>` into the module's `WeightStore`; small ones are inline `dense<>`.
- `graph.custom`: a node of another domain, or an operator this dialect does not know.
  Import never fails on one; a lowering that cannot handle it names the node.
- `graph.yield`: ends the body of a control-flow op's subgraph (`If`, `Loop`, `Scan`).

A model is a `func.func` whose arguments and results are the graph's inputs and outputs.
Every op's location is a `NameLoc` with its ONNX node name.
"""

from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    ParamAttrConstraint,
    VarConstraint,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import ConstantLike, HasParent, IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from mrvl_dialect.graph_ops_gen import ONNX_OPS, IfOp, LoopOp, ScanOp, SequenceMapOp


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A constant tensor: `graph.constant dense<[1, -1]> : tensor<2xi64>`.

    Initializers, ONNX `Constant` nodes and folded subgraphs all become this op.
    """

    name = "graph.constant"

    _T: ClassVar = VarConstraint("T", AnyAttr())
    value = prop_def(
        ParamAttrConstraint(DenseIntOrFPElementsAttr, (_T, AnyAttr()))
        | ParamAttrConstraint(DenseResourceAttr, (AnyAttr(), _T))
    )
    output = result_def(_T)

    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "$value attr-dict"

    def __init__(self, value: DenseIntOrFPElementsAttr | DenseResourceAttr):
        # Operation's own constructor: IRDL's first matches the arguments to the op's
        # definitions, which costs twice the op itself, and a model has a constant per weight.
        Operation.__init__(self, properties={"value": value}, result_types=[value.get_type()])


@irdl_op_definition
class CustomOp(IRDLOperation):
    """A node this dialect has no op for, kept verbatim.

    `%y = graph.custom "FusedConv" domain "com.microsoft" (%x, %w) {activation = "Relu"} : ...`
    where the first dictionary holds the node's ONNX attributes.
    """

    name = "graph.custom"

    op_type = prop_def(StringAttr)
    domain = opt_prop_def(StringAttr)
    """The node's operator domain; absent for the default domain."""
    onnx_attributes = prop_def(DictionaryAttr)
    input_positions = opt_prop_def(DenseArrayBase.constr(i64))
    """Which ONNX input each operand is; present only when the node skipped an input."""
    inputs = var_operand_def()
    outputs = var_result_def()

    traits = traits_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$op_type (`domain` $domain^)? `(` $inputs `)` $onnx_attributes attr-dict"
        " `:` functional-type($inputs, $outputs)"
    )

    def __init__(
        self,
        op_type: str,
        domain: str,
        inputs: list,
        result_types: list[Attribute],
        onnx_attributes: dict[str, Attribute],
    ):
        properties: dict[str, Attribute] = {
            "op_type": StringAttr(op_type),
            "onnx_attributes": DictionaryAttr(onnx_attributes),
        }
        if domain not in ("", "ai.onnx"):
            properties["domain"] = StringAttr(domain)
        super().__init__(operands=[inputs], result_types=[result_types], properties=properties)


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Returns a control-flow subgraph's outputs to its parent op."""

    name = "graph.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator(), Pure(), HasParent(IfOp, LoopOp, ScanOp, SequenceMapOp))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def verify_(self) -> None:
        parent = self.parent_op()
        if not isinstance(parent, IfOp):
            return
        results = parent.results
        if len(self.values) != len(results):
            raise VerifyException(f"an If branch yields {len(self.values)} values for {len(results)} results")
        for i, (value, result) in enumerate(zip(self.values, results)):
            if not (isinstance(value.type, TensorType) and isinstance(result.type, TensorType)
                    and value.type.element_type == result.type.element_type
                    and value.type.get_num_dims() == result.type.get_num_dims()):
                raise VerifyException(f"an If branch yields {value.type} for result {i} of type {result.type}")


Graph = Dialect("graph", [ConstantOp, CustomOp, YieldOp, *ONNX_OPS])
