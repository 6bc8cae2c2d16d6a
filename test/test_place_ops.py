"""The rule registry (`passes/mlip_rules.py`) and place-ops: one tiny model per rule and
operator, whose anchor op breaks exactly that rule; `failed_rules` names only it, and
place-ops keeps the op on the host with that rule's reason.

Models are built with onnx.helper (ir_version 8, opset 17) and imported as users' models
are. The node under test is always named `op`.
"""

from dataclasses import dataclass, field

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import PassPipeline

from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes import get_all_passes
from mrvl_dialect.graph_queries import node_name
from mrvl.passes.mlip_rules import RULES, failed_rules
from mrvl.target.options import DEFAULT_TARGET, TargetOptions

F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


@dataclass
class Case:
    """A one-node model `y = op_type(inputs...)`; inputs named in `initializers` are constants."""

    op_type: str
    inputs: dict[str, tuple[int, list[int]]]
    """Graph inputs and initializers: name -> (element type, shape)."""
    output: tuple[int, list[int]]
    attributes: dict = field(default_factory=dict)
    initializers: dict[str, np.ndarray] = field(default_factory=dict)

    def model(self):
        graph_inputs = [
            helper.make_tensor_value_info(name, elem, shape)
            for name, (elem, shape) in self.inputs.items()
            if name not in self.initializers
        ]
        node = helper.make_node(self.op_type, list(self.inputs), ["y"], name="op", **self.attributes)
        graph = helper.make_graph(
            [node],
            f"rule_{self.op_type.lower()}",
            graph_inputs,
            [helper.make_tensor_value_info("y", *self.output)],
            [numpy_helper.from_array(v, k) for k, v in self.initializers.items()],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@dataclass
class QdqCase(Case):
    """A Case whose graph input `x` goes through QuantizeLinear -> DequantizeLinear of
    `zero_point` (its type the quantized one) first, placed after `recognize-qdq` with the
    target option `quantize`."""

    zero_point: np.ndarray = field(default_factory=lambda: np.array(0, np.int8))
    quantize: str = "int8"

    def model(self):
        model = super().model()
        graph = model.graph
        graph.node[0].input[0] = "x_dq"
        graph.initializer.extend([numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
                                  numpy_helper.from_array(self.zero_point, "x_zero")])
        graph.node.insert(0, helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero"], ["x_dq"], name="dq"))
        graph.node.insert(0, helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["x_q"], name="q"))
        return model


def f32(*shape: int) -> tuple[int, list[int]]:
    return (F32, list(shape))


def weights(*shape: int, dtype=np.float32) -> np.ndarray:
    return np.arange(np.prod(shape), dtype=dtype).reshape(shape) / 10


def conv(x: list[int], w: list[int], y: list[int], elem: int = F32, constant_weight: bool = True, **attributes) -> Case:
    dtype = np.float16 if elem == F16 else np.float32
    return Case(
        "Conv",
        {"x": (elem, x), "w": (elem, w)},
        (elem, y),
        attributes,
        {"w": weights(*w, dtype=dtype)} if constant_weight else {},
    )


# rule id -> cases that break exactly that rule (several when a rule covers several operators).
CASES: dict[str, list[Case]] = {
    "any.float32": [
        conv([1, 2, 4, 4], [4, 2, 1, 1], [1, 4, 4, 4], elem=F16),
        Case("MaxPool", {"x": (F16, [1, 2, 4, 4])}, (F16, [1, 2, 2, 2]), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ],
    "quant.int8": [
        QdqCase("Conv", {"x": f32(1, 2, 4, 4), "w": f32(4, 2, 1, 1)}, f32(1, 4, 4, 4),
                initializers={"w": weights(4, 2, 1, 1)}, zero_point=np.array(128, np.uint8)),
        QdqCase("MaxPool", {"x": f32(1, 2, 4, 4)}, f32(1, 2, 2, 2), {"kernel_shape": [2, 2], "strides": [2, 2]},
                zero_point=np.array(3, np.int8)),
    ],
    "conv.rank": [conv([1, 2, 8], [4, 2, 3], [1, 4, 6])],
    "batch.max": [  # over the limit and not computing each image alone: a constant per image
        Case("Add", {"a": f32(9, 2, 4, 4), "b": f32(9, 2, 4, 4)}, f32(9, 2, 4, 4), initializers={"b": weights(9, 2, 4, 4)}),
        Case("Gemm", {"x": f32(16, 4), "w": f32(3, 4), "c": f32(16, 3)}, f32(16, 3), {"transB": 1},
             {"w": weights(3, 4), "c": weights(16, 3)}),
    ],
    "batch.one": [
        Case("AveragePool", {"x": f32(2, 2, 4, 4)}, f32(2, 2, 2, 2), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        Case("GlobalAveragePool", {"x": f32(2, 2, 4, 4)}, f32(2, 2, 1, 1)),
        Case("Concat", {"a": f32(2, 2, 4, 4), "b": f32(2, 3, 4, 4)}, f32(2, 5, 4, 4), {"axis": 1}),
    ],
    "conv.constant-weights": [conv([1, 2, 4, 4], [4, 2, 1, 1], [1, 4, 4, 4], constant_weight=False)],
    "conv.groups": [conv([1, 8, 4, 4], [8, 4, 1, 1], [1, 8, 4, 4], group=2)],
    "fc.rank": [
        Case("MatMul", {"x": f32(1, 2, 4), "w": f32(4, 3)}, f32(1, 2, 3), initializers={"w": weights(4, 3)}),
    ],
    "fc.constant-weights": [
        Case("MatMul", {"x": f32(1, 4), "w": f32(4, 3)}, f32(1, 3)),
        Case("Gemm", {"x": f32(1, 4), "w": f32(3, 4), "c": f32(3)}, f32(1, 3), {"transB": 1}, {"w": weights(3, 4)}),
    ],
    "gemm.plain": [
        Case("Gemm", {"x": f32(1, 4), "w": f32(4, 3)}, f32(1, 3), {"alpha": 2.0}, {"w": weights(4, 3)}),
        Case("Gemm", {"x": f32(4, 1), "w": f32(4, 3)}, f32(1, 3), {"transA": 1}, {"w": weights(4, 3)}),
    ],
    "pool.rank": [
        Case("MaxPool", {"x": f32(1, 2, 8)}, f32(1, 2, 4), {"kernel_shape": [2], "strides": [2]}),
        Case("AveragePool", {"x": f32(1, 2, 8)}, f32(1, 2, 4), {"kernel_shape": [2], "strides": [2]}),
        Case("GlobalAveragePool", {"x": f32(1, 2, 8)}, f32(1, 2, 1)),
        Case("GlobalMaxPool", {"x": f32(1, 2, 8)}, f32(1, 2, 1)),
    ],
    "pool.plain": [
        Case("AveragePool", {"x": f32(1, 2, 6, 6)}, f32(1, 2, 4, 4),
             {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1, "count_include_pad": 1}),
        Case("MaxPool", {"x": f32(1, 2, 5, 5)}, f32(1, 2, 3, 3), {"kernel_shape": [2, 2], "dilations": [2, 2]}),
        Case("AveragePool", {"x": f32(1, 2, 5, 5)}, f32(1, 2, 3, 3),
             {"kernel_shape": [2, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER", "ceil_mode": 1}),
    ],
    "sum.same-shape": [
        Case("Add", {"a": f32(1, 2, 4, 4), "b": f32(1, 2, 1, 1)}, f32(1, 2, 4, 4)),
        Case("Add", {"a": f32(1, 2, 4), "b": f32(1, 2, 4)}, f32(1, 2, 4)),
    ],
    "concat.channels": [
        Case("Concat", {"a": f32(1, 2, 4, 4), "b": f32(1, 2, 3, 4)}, f32(1, 2, 7, 4), {"axis": 2}),
    ],
    "concat.inputs": [
        Case("Concat", {"a": f32(1, 2, 4, 4), "k": f32(1, 1, 4, 4)}, f32(1, 3, 4, 4), {"axis": 1},
             {"k": weights(1, 1, 4, 4)}),
        Case("Concat", {"a": f32(1, 2, 4, 4)}, f32(1, 2, 4, 4), {"axis": 1}),
    ],
    "reshape.layout": [
        Case("Reshape", {"x": f32(1, 2, 4, 4), "s": (TensorProto.INT64, [2])}, f32(1, 32),
             initializers={"s": np.array([1, 32], np.int64)}),
        Case("Flatten", {"x": f32(1, 2, 4, 4)}, f32(1, 32)),
        Case("Squeeze", {"x": f32(1, 2, 1, 4), "axes": (TensorProto.INT64, [1])}, f32(1, 2, 4),
             initializers={"axes": np.array([2], np.int64)}),
    ],
    "flatten.axis": [Case("Flatten", {"x": f32(2, 8, 1, 1)}, f32(1, 16), {"axis": 0})],
    "squeeze.constant-axes": [Case("Squeeze", {"x": f32(1, 2, 1, 1), "axes": (TensorProto.INT64, [2])}, f32(1, 2))],
}

PARAMS = [
    pytest.param(rule_id, case, id=f"{rule_id}-{case.op_type}-{i}")
    for rule_id, cases in CASES.items()
    for i, case in enumerate(cases)
]


def placed(case: Case) -> tuple[ModuleOp, Operation]:
    module = import_onnx(case.model())
    passes = f"recognize-qdq,place-ops{{quantize={case.quantize}}}" if isinstance(case, QdqCase) else "place-ops"
    PassPipeline.parse_spec(get_all_passes(), passes).apply(Context(), module)
    (op,) = [op for op in module.walk() if node_name(op) == "op" and op.name.startswith("graph.")]
    return module, op


def target_of(case: Case) -> TargetOptions:
    """The target options `placed` places `case` with."""
    return TargetOptions(quantize=case.quantize) if isinstance(case, QdqCase) else DEFAULT_TARGET


def reasons(op: Operation) -> list[str]:
    attr = op.attributes.get("mrvl.reasons")
    assert isinstance(attr, ArrayAttr)
    return [r.data for r in attr.data if isinstance(r, StringAttr)]


def test_every_rule_has_a_case():
    """A new rule needs a case here (and each rule's operators are all covered)."""
    assert set(CASES) == {r.id for r in RULES}
    for r in RULES:
        assert {c.op_type for c in CASES[r.id]} <= set(r.op_types), r.id


@pytest.mark.parametrize("rule_id, case", PARAMS)
def test_op_breaks_exactly_one_rule(rule_id: str, case: Case):
    _, op = placed(case)
    assert [r.id for r, _ in failed_rules(op, target_of(case))] == [rule_id]


@pytest.mark.parametrize("rule_id, case", PARAMS)
def test_place_ops_records_the_rule(rule_id: str, case: Case):
    _, op = placed(case)
    assert op.attributes["mrvl.place"] == StringAttr("host")
    (rule,) = [r for r in RULES if r.id == rule_id]
    (observed,) = [seen for r, seen in failed_rules(op, target_of(case)) if r.id == rule_id]
    assert reasons(op) == [f"{rule_id}: {rule.text} ({observed})"]


@pytest.mark.parametrize(
    "case",
    [
        conv([1, 2, 4, 4], [4, 2, 1, 1], [1, 4, 4, 4]),
        conv([1, 4, 4, 4], [4, 1, 3, 3], [1, 4, 4, 4], group=4, pads=[1, 1, 1, 1]),
        conv([8, 2, 4, 4], [4, 2, 1, 1], [8, 4, 4, 4]),
        Case("AveragePool", {"x": f32(1, 2, 4, 4)}, f32(1, 2, 2, 2), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        Case("Gemm", {"x": f32(2, 4), "w": f32(3, 4), "c": f32(3)}, f32(2, 3), {"transB": 1},
             {"w": weights(3, 4), "c": weights(3)}),
        Case("Concat", {"a": f32(1, 2, 4, 4), "b": f32(1, 3, 4, 4)}, f32(1, 5, 4, 4), {"axis": -3}),
        Case("Squeeze", {"x": f32(1, 2, 1, 1), "axes": (TensorProto.INT64, [2])}, f32(1, 2),
             initializers={"axes": np.array([2, 3], np.int64)}),
        QdqCase("Conv", {"x": f32(1, 2, 4, 4), "w": f32(4, 2, 1, 1)}, f32(1, 4, 4, 4),
                initializers={"w": weights(4, 2, 1, 1)}),
        QdqCase("Conv", {"x": f32(1, 2, 4, 4), "w": f32(4, 2, 1, 1)}, f32(1, 4, 4, 4),
                initializers={"w": weights(4, 2, 1, 1)}, zero_point=np.array(128, np.uint8), quantize="fp16"),
    ],
    ids=["conv", "depthwise", "conv-batch-8", "avgpool", "gemm", "concat-axis-minus-3", "squeeze-1x1",
         "qdq-conv-symmetric-int8", "qdq-conv-uint8-in-fp16"],
)
def test_op_that_breaks_no_rule_is_placed_on_mlip(case: Case):
    _, op = placed(case)
    assert failed_rules(op, target_of(case)) == []
    assert op.attributes["mrvl.place"] == StringAttr("mlip")
    assert "mrvl.reasons" not in op.attributes


OVER_THE_LIMIT = [
    conv([9, 2, 4, 4], [4, 2, 1, 1], [9, 4, 4, 4]),
    Case("MaxPool", {"x": f32(9, 2, 4, 4)}, f32(9, 2, 2, 2), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    Case("Add", {"a": f32(9, 2, 4, 4), "b": f32(9, 2, 4, 4)}, f32(9, 2, 4, 4)),
    Case("GlobalMaxPool", {"x": f32(9, 2, 4, 4)}, f32(9, 2, 1, 1)),
    Case("Gemm", {"x": f32(16, 4), "w": f32(3, 4)}, f32(16, 3), {"transB": 1}, {"w": weights(3, 4)}),
    Case("MatMul", {"x": f32(9, 4), "w": f32(4, 3)}, f32(9, 3), initializers={"w": weights(4, 3)}),
]
"""Layers over the batch limit that compute each image alone: MLIP runs them in chunks."""


@pytest.mark.parametrize("case", OVER_THE_LIMIT, ids=[c.op_type for c in OVER_THE_LIMIT])
def test_batch_over_8_that_keeps_the_batch_is_placed_on_mlip(case: Case):
    _, op = placed(case)
    assert failed_rules(op, target_of(case)) == []
    assert op.attributes["mrvl.place"] == StringAttr("mlip")


@pytest.mark.parametrize("case", OVER_THE_LIMIT + CASES["batch.max"],
                         ids=[c.op_type for c in OVER_THE_LIMIT + CASES["batch.max"]])
def test_batch_over_8_is_never_fused(case: Case):
    """The layers' verifiers limit the batch to 8 (fc and global_maxpool2d included): fuse-mrvl
    builds no layer over the limit (chunk-mrvl-batch compiles a subgraph for a chunk first),
    what place-ops keeps on the host it leaves alone, and the module still verifies."""
    module, _ = placed(case)
    PassPipeline.parse_spec(get_all_passes(), "fuse-mrvl").apply(Context(), module)
    module.verify()
    assert not [op for op in module.walk() if op.name.startswith("mrvl.")]


def test_offload_false_keeps_every_op_on_the_host():
    module = import_onnx(conv([1, 2, 4, 4], [4, 2, 1, 1], [1, 4, 4, 4]).model())
    PassPipeline.parse_spec(get_all_passes(), "place-ops{offload=false}").apply(Context(), module)
    (op,) = [op for op in module.walk() if node_name(op) == "op"]
    assert reasons(op) == ["offload.disabled: offload=false keeps every op on the host"]

