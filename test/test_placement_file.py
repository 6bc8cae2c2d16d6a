"""The placement file (`mrvl_dialect/placement_file.py`, `schemas/placement.schema.json`): loading
and its error messages, which entry decides, saving and the save -> load round trip, and
the agreement of the Python validator with the JSON schema."""

import json
import os
import re
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.test import Test
from xdsl.parser import Parser

from mrvl_dialect import get_all_dialects
from mrvl_dialect.errors import CompileError
from mrvl_dialect import placement_file
from mrvl_dialect.placement_file import (
    ENTRY_KEYS,
    FORMAT,
    MATCH_KEYS,
    PLACES,
    REQUIRED_TOP_KEYS,
    TOP_KEYS,
    VERSION,
    load_placement,
    placed_nodes,
    save_placement,
)

SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "placement.schema.json"


def write(tmp_path: Path, document: object, name: str = "p.json") -> Path:
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return path


def placement_of(tmp_path: Path, *entries: dict) -> placement_file.Placement:
    return load_placement(write(tmp_path, {"format": FORMAT, "version": VERSION, "nodes": list(entries)}))


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, Test):
        ctx.load_dialect(dialect)
    for factory in get_all_dialects().values():
        ctx.load_dialect(factory())
    return Parser(ctx, text).parse_module()


# --- which entry decides ------------------------------------------------------------


def test_no_entry_matches(tmp_path):
    placement = placement_of(tmp_path, {"name": "conv1", "place": "host"})
    assert placement.decide("conv2", "Conv") is None


def test_each_matcher_alone(tmp_path):
    placement = placement_of(
        tmp_path,
        {"name": "conv1", "place": "host"},
        {"op_type": "Relu", "place": "host"},
        {"name_regex": "^/layer4/", "place": "mlip"},
    )
    assert placement.decide("conv1", "Conv") == "host"
    assert placement.decide("relu7", "Relu") == "host"
    assert placement.decide("/layer4/conv2/Conv", "Conv") == "mlip"
    assert placement.decide("/layer3/layer4/Conv", "Conv") is None  # anchored with ^


def test_all_given_fields_must_match(tmp_path):
    placement = placement_of(tmp_path, {"name": "conv1", "op_type": "Conv", "name_regex": "1$", "place": "host"})
    assert placement.decide("conv1", "Conv") == "host"
    assert placement.decide("conv1", "Relu") is None
    assert placement.decide("conv1", None) is None  # a fused layer's op type is unknown


def test_regex_is_searched_anywhere_in_the_name(tmp_path):
    placement = placement_of(tmp_path, {"name_regex": "attn/(q|k)_proj", "place": "host"})
    assert placement.decide("/model/layers.0/attn/q_proj/MatMul", "MatMul") == "host"
    assert placement.decide("/model/layers.0/attn/v_proj/MatMul", "MatMul") is None


def test_last_matching_entry_wins(tmp_path):
    placement = placement_of(
        tmp_path,
        {"name_regex": "^/layer4/", "place": "host"},
        {"name": "/layer4/conv2", "place": "mlip"},
        {"op_type": "Relu", "place": "host"},
    )
    assert placement.decide("/layer4/conv1", "Conv") == "host"
    assert placement.decide("/layer4/conv2", "Conv") == "mlip"  # the exception after the rule
    assert placement.decide("/layer4/conv2", "Relu") == "host"  # a later entry overrides it again
    assert placement.match("/layer4/conv2", "Conv").index == 1


def test_later_exact_name_beats_earlier_one(tmp_path):
    placement = placement_of(tmp_path, {"name": "a", "place": "host"}, {"op_type": "Conv", "place": "host"},
                             {"name": "a", "place": "mlip"})
    assert placement.decide("a", "Conv") == "mlip"
    assert placement.decide("b", "Conv") == "host"


def test_where_and_unmatched_entries(tmp_path):
    placement = placement_of(tmp_path, {"op_type": "Relu", "place": "host"}, {"name": "gone", "place": "host"})
    assert placement.where(placement.entries[1]) == f"{tmp_path / 'p.json'}: nodes[1]"
    assert placement.unmatched([("relu1", "Relu"), ("conv1", "Conv")]) == [placement.entries[1]]


def test_optional_keys_and_bom(tmp_path):
    text = json.dumps({"$schema": "../schemas/placement.schema.json", "format": FORMAT, "version": 1,
                       "comment": "hand-edited", "nodes": [{"name": "n", "place": "host", "comment": "slow"}]})
    placement = load_placement(write(tmp_path, "\ufeff" + text))
    assert placement.entries[0].comment == "slow"
    assert placement.decide("n", "Conv") == "host"


def test_empty_nodes(tmp_path):
    assert placement_of(tmp_path).entries == ()


# --- invalid files: one message each --------------------------------------------------

HEADER = {"format": FORMAT, "version": VERSION}
INVALID_DOCUMENTS = [
    ([], "", "must be a JSON object with 'format', 'version' and 'nodes', got []"),
    ({"format": FORMAT, "nodes": []}, "", "missing key 'version'"),
    ({**HEADER}, "", "missing key 'nodes'"),
    ({**HEADER, "nodes": [], "node": []}, "", "unknown key 'node' (did you mean 'nodes'?)"),
    ({**HEADER, "nodes": [], "extra": 1}, "",
     "unknown key 'extra' (allowed: $schema, format, version, comment, nodes)"),
    ({"format": "onnx-mlir", "version": 1, "nodes": []}, ": format", 'must be "mrvl-placement", got "onnx-mlir"'),
    ({"format": FORMAT, "version": "1", "nodes": []}, ": version", 'must be the number 1, got "1"'),
    ({"format": FORMAT, "version": True, "nodes": []}, ": version", "must be the number 1, got true"),
    ({"format": FORMAT, "version": 2, "nodes": []}, ": version",
     "unsupported version 2 (this compiler reads version 1)"),
    ({**HEADER, "comment": 3, "nodes": []}, ": comment", "must be a string, got 3"),
    ({**HEADER, "nodes": {"conv1": "host"}}, ": nodes", 'must be an array of entries, got {"conv1": "host"}'),
    ({**HEADER, "nodes": ["conv1"]}, ": nodes[0]",
     'must be an object such as {"name": "conv1", "place": "host"}, got "conv1"'),
    ({**HEADER, "nodes": [{"name": "a", "place": "host"}, {"name": "b", "place": "host"}, {"name": "c", "place": "host"},
                          {"name": "d", "plase": "host"}]},
     ": nodes[3]", "unknown key 'plase' (did you mean 'place'?)"),
    ({**HEADER, "nodes": [{"onnx_node_name": "a", "place": "host"}]}, ": nodes[0]",
     "unknown key 'onnx_node_name' (did you mean 'name'?)"),
    ({**HEADER, "nodes": [{"name": "a", "device": "cpu"}]}, ": nodes[0]", "unknown key 'device' (did you mean 'place'?)"),
    ({**HEADER, "nodes": [{"name": "a"}]}, ": nodes[0]", "missing key 'place' (\"host\" or \"mlip\")"),
    ({**HEADER, "nodes": [{"place": "host"}]}, ": nodes[0]",
     "needs at least one of 'name', 'op_type' and 'name_regex' to say which nodes it places"),
    ({**HEADER, "nodes": [{"place": "host", "comment": "all"}]}, ": nodes[0]",
     "needs at least one of 'name', 'op_type' and 'name_regex' to say which nodes it places"),
    ({**HEADER, "nodes": [{"name": 7, "place": "host"}]}, ": nodes[0].name", "must be a string, got 7"),
    ({**HEADER, "nodes": [{"name": "", "place": "host"}]}, ": nodes[0].name", "must not be empty"),
    ({**HEADER, "nodes": [{"op_type": ["Relu"], "place": "host"}]}, ": nodes[0].op_type", 'must be a string, got ["Relu"]'),
    ({**HEADER, "nodes": [{"name_regex": "", "place": "host"}]}, ": nodes[0].name_regex", "must not be empty"),
    ({**HEADER, "nodes": [{"name": "a", "place": "host", "comment": None}]}, ": nodes[0].comment",
     "must be a string, got null"),
    ({**HEADER, "nodes": [{"name": "a", "place": "cpu"}]}, ": nodes[0].place",
     'must be "host" or "mlip", got "cpu" (did you mean "host"?)'),
    ({**HEADER, "nodes": [{"name": "a", "place": "MLIP"}]}, ": nodes[0].place",
     'must be "host" or "mlip", got "MLIP" (did you mean "mlip"?)'),
    ({**HEADER, "nodes": [{"name": "a", "place": "gpu"}]}, ": nodes[0].place", 'must be "host" or "mlip", got "gpu"'),
    ({**HEADER, "nodes": [{"name": "a", "place": None}]}, ": nodes[0].place", 'must be "host" or "mlip", got null'),
    ({**HEADER, "nodes": [{"op_type": "relu", "place": "host"}]}, ": nodes[0].op_type",
     "unknown op type 'relu' (did you mean 'Relu'? op types are case-sensitive)"),
    ({**HEADER, "nodes": [{"op_type": "onnx.Conv", "place": "host"}]}, ": nodes[0].op_type",
     "'onnx.Conv' is written 'Conv' (the ONNX op type, without a prefix)"),
    ({**HEADER, "nodes": [{"name_regex": "(conv", "place": "host"}]}, ": nodes[0].name_regex",
     "is not a regular expression: missing ), unterminated subpattern at position 0"),
]


@pytest.mark.parametrize(("document", "where", "message"), INVALID_DOCUMENTS)
def test_invalid_document(tmp_path, document, where, message):
    path = write(tmp_path, document)
    with pytest.raises(CompileError) as error:
        load_placement(path)
    assert (error.value.where, error.value.message) == (f"{path}{where}", message)


INVALID_TEXTS = [
    ('{"format": "mrvl-placement", "version": 1, "nodes": [\n  {"name": "a", "place": "host"},\n]}', ":3:1",
     "invalid JSON: Expecting value"),
    ('{"format": "mrvl-placement", "version": NaN, "nodes": []}', "", "invalid JSON: NaN is not a JSON number"),
    ('{"format": "mrvl-placement", "version": 1, "nodes": [{"name": "a", "place": "host", "place": "mlip"}]}',
     ": nodes[0]", "duplicate key 'place'"),
    ('{"format": "mrvl-placement", "version": 1, "nodes": [], "nodes": []}', "", "duplicate key 'nodes'"),
]


@pytest.mark.parametrize(("text", "where", "message"), INVALID_TEXTS)
def test_invalid_text(tmp_path, text, where, message):
    path = write(tmp_path, text)
    with pytest.raises(CompileError) as error:
        load_placement(path)
    assert (error.value.where, error.value.message) == (f"{path}{where}", message)


def test_unreadable_files(tmp_path):
    for path, message in (
        (tmp_path / "missing.json", "no such file"),
        (tmp_path, "is a directory"),
    ):
        with pytest.raises(CompileError, match=f"^{re.escape(str(path))}: {message}$"):
            load_placement(path)
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"format": "mrvl-placement", "version": 1, "nodes": [{"name": "b\xe9", "place": "host"}]}')
    with pytest.raises(CompileError, match="latin1.json: is not UTF-8 text$"):
        load_placement(latin1)


# --- the schema says the same as the validator ------------------------------------------


def test_schema_matches_the_validator_constants():
    schema = json.loads(SCHEMA_PATH.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["version"]["const"] == VERSION
    assert schema["properties"]["format"]["const"] == FORMAT
    assert tuple(schema["required"]) == REQUIRED_TOP_KEYS
    assert tuple(schema["properties"]) == TOP_KEYS
    entry = schema["$defs"]["entry"]
    assert tuple(entry["properties"]) == ENTRY_KEYS
    assert tuple(entry["properties"]["place"]["enum"]) == PLACES
    assert entry["required"] == ["place"]
    assert [alternative["required"] for alternative in entry["anyOf"]] == [[key] for key in MATCH_KEYS]
    assert "last matching entry wins" in schema["description"].lower()
    assert "last matching entry wins" in placement_file.__doc__.lower()


def schema_errors(schema: dict, value: object, root: dict | None = None) -> bool:
    """Whether `value` breaks `schema`: the JSON Schema keywords our schema uses, no more
    (an unknown keyword fails, so that this cannot silently ignore part of the schema)."""
    root = root or schema
    annotations = {"$schema", "$id", "title", "description", "$comment", "examples", "format", "$defs"}
    for keyword, arg in schema.items():
        if keyword in annotations:
            continue
        if keyword == "$ref":
            assert arg.startswith("#/$defs/")
            bad = schema_errors(root["$defs"][arg.removeprefix("#/$defs/")], value, root)
        elif keyword == "type":
            kinds = {"object": dict, "array": list, "string": str}
            bad = not isinstance(value, kinds[arg])
        elif keyword == "const":
            bad = type(value) is bool or value != arg  # JSON true is not 1
        elif keyword == "enum":
            bad = value not in arg
        elif keyword == "minLength":
            bad = isinstance(value, str) and len(value) < arg
        elif keyword == "required":
            bad = isinstance(value, dict) and any(k not in value for k in arg)
        elif keyword == "properties":
            bad = isinstance(value, dict) and any(schema_errors(arg[k], v, root) for k, v in value.items() if k in arg)
        elif keyword == "additionalProperties":
            assert arg is False
            bad = isinstance(value, dict) and any(k not in schema["properties"] for k in value)
        elif keyword == "items":
            bad = isinstance(value, list) and any(schema_errors(arg, item, root) for item in value)
        elif keyword == "anyOf":
            bad = all(schema_errors(alternative, value, root) for alternative in arg)
        else:
            raise AssertionError(f"the test's schema evaluator does not know '{keyword}'")
        if bad:
            return True
    return False


VALID_DOCUMENTS = [
    {**HEADER, "nodes": []},
    {**HEADER, "nodes": [{"name": "conv1", "op_type": "Conv", "place": "host"}, {"op_type": "Relu", "place": "host"},
                         {"name_regex": "^/layer4/.*", "place": "mlip", "comment": "try"}]},
    {"$schema": "placement.schema.json", **HEADER, "comment": "c", "nodes": [{"op_type": "FusedConv", "place": "host"}]},
    {"format": FORMAT, "version": 1.0, "nodes": []},  # JSON has one number type
]
# Problems JSON Schema cannot express: the schema accepts these, the compiler does not.
PYTHON_ONLY_INVALID = [
    {**HEADER, "nodes": [{"op_type": "relu", "place": "host"}]},
    {**HEADER, "nodes": [{"op_type": "onnx.Conv", "place": "host"}]},
    {**HEADER, "nodes": [{"name_regex": "(conv", "place": "host"}]},
]


def test_schema_and_validator_agree(tmp_path):
    schema = json.loads(SCHEMA_PATH.read_text())
    for example in schema["examples"]:
        assert not schema_errors(schema, example)
        load_placement(write(tmp_path, example))
    for document in VALID_DOCUMENTS:
        assert not schema_errors(schema, document), document
        load_placement(write(tmp_path, document))
    for document, _, _ in INVALID_DOCUMENTS:
        if document in PYTHON_ONLY_INVALID:
            continue
        assert schema_errors(schema, document), document
    for document in PYTHON_ONLY_INVALID:
        assert not schema_errors(schema, document)
        with pytest.raises(CompileError):
            load_placement(write(tmp_path, document))


def test_every_python_only_case_is_tested():
    invalid = [document for document, _, _ in INVALID_DOCUMENTS]
    assert all(document in invalid for document in PYTHON_ONLY_INVALID)


# --- saving ----------------------------------------------------------------------------

PLACED = """
mrvl.subgraph @mrvl_sg0(%a: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> attributes {mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "hw"} {
  %s = mrvl.sum %a, %a {activation = #mrvl<activation relu>} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc(fused["add1", "relu2"])
  mrvl.yield %s : tensor<1x4x8x8xf32>
}
func.func @main(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %c = graph.constant dense<1.0> : tensor<1x4x8x8xf32> loc("w")
  %y = graph.Relu %x {"mrvl.place" = "host", "mrvl.reasons" = ["relu.standalone: Relu runs on MLIP only fused after a Conv, Gemm or Add", "r.two: second"]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("relu1")
  %t = graph.Transpose %y {perm = array<i64: 0, 1, 2, 3>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %z = "test.op"(%t) {callee = @mrvl_sg0} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %m = graph.Add %z, %c {"mrvl.place" = "mlip", "mrvl.group" = 3 : i64, "mrvl.pattern" = "sum"} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("add3")
  %g = graph.custom "FastGelu" domain "com.microsoft" (%m) {} {"mrvl.place" = "host", "mrvl.reasons" = ["unsupported: MLIP has no layer for FastGelu"]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> loc("gelu")
  func.return %g : tensor<1x4x8x8xf32>
}
"""

SAVED = """\
{
  "format": "mrvl-placement",
  "version": 1,
  "nodes": [
    {"name": "relu1", "op_type": "Relu", "place": "host", "comment": "relu.standalone: Relu runs on MLIP only fused after a Conv, Gemm or Add; r.two: second"},
    {"name": "add1", "place": "mlip"},
    {"name": "relu2", "place": "mlip"},
    {"name": "add3", "op_type": "Add", "place": "mlip"},
    {"name": "gelu", "op_type": "FastGelu", "place": "host", "comment": "unsupported: MLIP has no layer for FastGelu"}
  ]
}
"""


def test_save_writes_one_entry_per_node_in_program_order(tmp_path):
    path = tmp_path / "saved.json"
    save_placement(parse(PLACED), path)
    assert path.read_text() == SAVED
    assert os.listdir(tmp_path) == ["saved.json"]  # no temporary file left


def test_saved_file_reproduces_the_placement(tmp_path):
    module = parse(PLACED)
    path = tmp_path / "saved.json"
    save_placement(module, path)
    placement = load_placement(path)
    nodes = placed_nodes(module)
    assert [placement.decide(n.name, n.op_type) for n in nodes] == [n.place for n in nodes]
    save_placement(module, path)
    assert path.read_text() == SAVED  # deterministic


def test_save_without_nodes(tmp_path):
    path = tmp_path / "empty.json"
    save_placement(parse("func.func @f() {\n  func.return\n}"), path)
    assert path.read_text() == '{\n  "format": "mrvl-placement",\n  "version": 1,\n  "nodes": []\n}\n'
    assert load_placement(path).entries == ()


def test_save_of_an_unplaced_module_fails_and_keeps_the_old_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("old")
    unplaced = parse(
        'func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n'
        '  %y = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32> loc("relu1")\n'
        "  func.return %y : tensor<2xf32>\n}"
    )
    with pytest.raises(CompileError, match=r"^node 'relu1': has no placement \('mrvl.place'\); run place-ops first$"):
        save_placement(unplaced, path)
    assert path.read_text() == "old"
    with pytest.raises(CompileError, match="nope/p.json: cannot write: No such file or directory$"):
        save_placement(parse(PLACED), tmp_path / "nope" / "p.json")
    assert sorted(os.listdir(tmp_path)) == ["p.json"]


def test_nodes_in_control_flow_bodies_are_listed():
    module = parse(
        'func.func @f(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {\n'
        '  %y = graph.If %c ({\n'
        '    %a = graph.Relu %x : (tensor<2xf32>) -> tensor<2xf32> loc("then_relu")\n'
        '    graph.yield %a : tensor<2xf32>\n'
        '  }, {\n'
        '    %b = graph.Neg %x {"mrvl.place" = "host", "mrvl.reasons" = ["control-flow: inside If"]} : (tensor<2xf32>) -> tensor<2xf32> loc("else_neg")\n'
        '    graph.yield %b : tensor<2xf32>\n'
        '  }) {"mrvl.place" = "host", "mrvl.reasons" = ["unsupported: MLIP has no layer for If"]} : (tensor<i1>) -> tensor<2xf32> loc("if1")\n'
        "  func.return %y : tensor<2xf32>\n}"
    )
    assert [(n.name, n.op_type, n.place, n.reasons) for n in placed_nodes(module)] == [
        ("if1", "If", "host", ("unsupported: MLIP has no layer for If",)),
        ("then_relu", "Relu", "host", ()),  # no attribute: runs where its If runs
        ("else_neg", "Neg", "host", ("control-flow: inside If",)),
    ]


# --- with place-ops: compiling again with the saved file gives the same placement ----------


@pytest.mark.parametrize("model", ["mnist", "mobilenet_small", "resnet_small"])
def test_round_trip_through_place_ops(tmp_path, zoo_dir, model):
    place_ops = pytest.importorskip("mrvl.passes.place_ops")
    from mrvl.frontend.onnx_importer import import_onnx
    from ir_helpers import ZOO_INPUT_SHAPES

    def compile_(placement: str = "") -> tuple[ModuleOp, list[placement_file.PlacedNode]]:
        module = import_onnx(zoo_dir / f"{model}.onnx", ZOO_INPUT_SHAPES[model])
        place_ops.PlaceOpsPass(placement=placement).apply(Context(), module)
        return module, placed_nodes(module)

    module, first = compile_()
    path = tmp_path / "p.json"
    save_placement(module, path)
    _, second = compile_(str(path))
    if model == "mobilenet_small":
        assert {n.place for n in first} == {"host", "mlip"}
    assert [(n.name, n.place, n.group, n.pattern) for n in second] == [
        (n.name, n.place, n.group, n.pattern) for n in first
    ]


def test_a_node_lowered_to_several_cpu_ops_is_one_entry():
    """Sum of three lowers to two cpu.binary ops; only the last carries the placement. (In
    float64: fuse-elementwise leaves them two ops.)"""
    pipeline = pytest.importorskip("mrvl.passes.mrvl_pipeline")
    from mrvl.frontend.onnx_importer import import_onnx
    from onnx import TensorProto, helper

    inputs = [helper.make_tensor_value_info(n, TensorProto.DOUBLE, [4]) for n in "abc"]
    node = helper.make_node("Sum", ["a", "b", "c"], ["y"], name="sum3")
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [4])])
    module = import_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8))
    pipeline.MrvlPipelinePass().apply(Context(), module)
    assert [op.name for op in module.walk() if op.name == "cpu.binary"] == ["cpu.binary"] * 2
    assert [(n.name, n.op_type, n.place) for n in placed_nodes(module)] == [("sum3", "Sum", "host")]
