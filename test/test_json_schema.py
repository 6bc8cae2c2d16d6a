"""Every nodes and consts file we write validates against `schemas/mrvl-{nodes,consts}.schema.json`,
and so do the files TVM wrote (`test/golden/`): the schemas describe the format, not only us.

`jsonschema` is not a dependency, so `validate` below implements the part of JSON Schema
draft 2020-12 the two schemas use (types, properties, patternProperties,
additionalProperties, required, items, prefixItems, min/maxItems, maxProperties, enum,
const, pattern, minimum, local `$ref`, allOf/anyOf/oneOf/not, if/then). It refuses any
other keyword, so a schema cannot silently rely on one it ignores.
"""

import json
import re
from pathlib import Path

import pytest
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context

from mrvl.backend.json_emitter import emit_module
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass

ROOT = Path(__file__).parents[1]
SCHEMAS = {
    kind: json.loads((ROOT / "schemas" / f"mrvl-{kind}.schema.json").read_text()) for kind in ("nodes", "consts")
}
GOLDEN = ROOT / "test" / "golden"

_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "$defs"}
_TYPES = {
    "object": dict, "array": list, "string": str, "boolean": bool, "null": type(None),
    "integer": int, "number": (int, float),
}


def _is(value, type_name: str) -> bool:
    if type_name in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[type_name])


def _equal(a, b) -> bool:
    """JSON equality: 1 and 1.0 are equal, 1 and true are not."""
    if _is(a, "number") and _is(b, "number"):
        return a == b
    return type(a) is type(b) and a == b


def validate(instance, schema: dict, root: dict | None = None, path: str = "") -> list[str]:
    """Errors of `instance` against `schema` (empty when valid), each as `path: problem`."""
    root = root if root is not None else schema
    if "$ref" in schema:
        ref = schema["$ref"]
        assert ref.startswith("#/"), f"only local references are supported: {ref}"
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        return validate(instance, target, root, path)
    unknown = set(schema) - _ANNOTATIONS - set(_KEYWORDS)
    assert not unknown, f"schema keyword(s) {sorted(unknown)} not supported by this validator"
    errors: list[str] = []
    for keyword, argument in schema.items():
        if keyword in _KEYWORDS:
            errors += _KEYWORDS[keyword](instance, argument, schema, root, path)
    return errors


def _type(instance, argument, schema, root, path):
    names = argument if isinstance(argument, list) else [argument]
    return [] if any(_is(instance, n) for n in names) else [f"{path}: not of type {argument}"]


def _properties(instance, argument, schema, root, path):
    if not isinstance(instance, dict):
        return []
    return [e for k, sub in argument.items() if k in instance for e in validate(instance[k], sub, root, f"{path}/{k}")]


def _pattern_properties(instance, argument, schema, root, path):
    if not isinstance(instance, dict):
        return []
    return [e for k, v in instance.items() for p, sub in argument.items() if re.search(p, k)
            for e in validate(v, sub, root, f"{path}/{k}")]


def _additional(instance, argument, schema, root, path):
    if not isinstance(instance, dict):
        return []
    known = set(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    extra = [k for k in instance if k not in known and not any(re.search(p, k) for p in patterns)]
    if argument is False:
        return [f"{path}: unexpected key {k!r}" for k in extra]
    return [e for k in extra for e in validate(instance[k], argument, root, f"{path}/{k}")]


def _required(instance, argument, schema, root, path):
    if not isinstance(instance, dict):
        return []
    return [f"{path}: missing key {k!r}" for k in argument if k not in instance]


def _items(instance, argument, schema, root, path):
    if not isinstance(instance, list):
        return []
    start = len(schema.get("prefixItems", []))
    return [e for i, v in enumerate(instance[start:], start) for e in validate(v, argument, root, f"{path}/{i}")]


def _prefix_items(instance, argument, schema, root, path):
    if not isinstance(instance, list):
        return []
    return [e for i, (v, sub) in enumerate(zip(instance, argument)) for e in validate(v, sub, root, f"{path}/{i}")]


def _count(kind: str, compare):
    def check(instance, argument, schema, root, path):
        if not isinstance(instance, (list, dict)) or (kind == "items") != isinstance(instance, list):
            return []
        return [] if compare(len(instance), argument) else [f"{path}: {len(instance)} {kind}, limit {argument}"]

    return check


def _enum(instance, argument, schema, root, path):
    return [] if any(_equal(instance, a) for a in argument) else [f"{path}: {instance!r} not in {argument}"]


def _const(instance, argument, schema, root, path):
    return [] if _equal(instance, argument) else [f"{path}: {instance!r} is not {argument!r}"]


def _pattern(instance, argument, schema, root, path):
    if not isinstance(instance, str) or re.search(argument, instance):
        return []
    return [f"{path}: {instance!r} does not match {argument}"]


def _minimum(instance, argument, schema, root, path):
    if not _is(instance, "number") or instance >= argument:
        return []
    return [f"{path}: {instance} < {argument}"]


def _all_of(instance, argument, schema, root, path):
    return [e for sub in argument for e in validate(instance, sub, root, path)]


def _any_of(instance, argument, schema, root, path):
    results = [validate(instance, sub, root, path) for sub in argument]
    return [] if any(not r for r in results) else [f"{path}: matches none of anyOf"] + results[0]


def _one_of(instance, argument, schema, root, path):
    results = [validate(instance, sub, root, path) for sub in argument]
    matches = sum(not r for r in results)
    if matches == 1:
        return []
    return [f"{path}: matches {matches} of oneOf"] + min(results, key=len)


def _not(instance, argument, schema, root, path):
    return [f"{path}: matches a 'not' schema"] if not validate(instance, argument, root, path) else []


def _if(instance, argument, schema, root, path):
    branch = "then" if not validate(instance, argument, root, path) else "else"
    return validate(instance, schema[branch], root, path) if branch in schema else []


def _handled_by_if(instance, argument, schema, root, path):
    return []


_KEYWORDS = {
    "type": _type, "properties": _properties, "patternProperties": _pattern_properties,
    "additionalProperties": _additional, "required": _required, "items": _items, "prefixItems": _prefix_items,
    "minItems": _count("items", lambda n, a: n >= a), "maxItems": _count("items", lambda n, a: n <= a),
    "maxProperties": _count("properties", lambda n, a: n <= a), "enum": _enum, "const": _const,
    "pattern": _pattern, "minimum": _minimum, "allOf": _all_of, "anyOf": _any_of, "oneOf": _one_of,
    "not": _not, "if": _if, "then": _handled_by_if, "else": _handled_by_if,
}


def assert_valid(document, kind: str) -> None:
    errors = validate(document, SCHEMAS[kind])
    assert not errors, "\n".join(errors[:20])


def check_files(files: dict) -> int:
    """Validate every nodes and consts document of an emitted set; returns how many."""
    checked = 0
    for name, document in files.items():
        for kind in ("nodes", "consts"):
            if name.endswith(f"-{kind}.json"):
                assert_valid(document, kind)
                checked += 1
    return checked


# --- the validator itself ---------------------------------------------------------------


def test_validator_reports_what_is_wrong():
    schema = {"type": "object", "required": ["a"], "additionalProperties": False,
              "properties": {"a": {"type": "array", "items": {"type": "string", "pattern": "^[0-9]+$"}, "maxItems": 2}}}
    assert validate({"a": ["1", "2"]}, schema) == []
    errors = validate({"a": ["1", "x", "3"]}, schema)
    assert sorted(errors) == ["/a/1: 'x' does not match ^[0-9]+$", "/a: 3 items, limit 2"]
    assert validate({"b": 1}, schema) == [": missing key 'a'", ": unexpected key 'b'"]
    assert validate(True, {"type": "integer"}) == [": not of type integer"]
    assert validate(1, {"const": True}) == [": 1 is not True"]


def test_validator_refuses_keywords_it_does_not_implement():
    with pytest.raises(AssertionError, match="uniqueItems"):
        validate([1], {"uniqueItems": True})


def test_schemas_are_draft_2020_12():
    for schema in SCHEMAS.values():
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# --- TVM's files and ours ---------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(p.name for p in GOLDEN.iterdir() if p.is_dir()))
def test_tvm_golden_files_validate(example):
    for kind in ("nodes", "consts"):
        assert_valid(json.loads((GOLDEN / example / f"tvmgen_mrvl_main_0-{kind}.json").read_text()), kind)


def test_schemas_reject_unknown_keys_and_bad_values():
    nodes = json.loads((GOLDEN / "conv_relu_maxpool_fc" / "tvmgen_mrvl_main_0-nodes.json").read_text())
    nodes["nodes"][2]["attrs"]["onnx_node"] = ["Conv_0"]
    nodes["nodes"][1]["attrs"]["num_inputs"] = 1
    errors = validate(nodes, SCHEMAS["nodes"])
    assert any("unexpected key 'onnx_node'" in e for e in errors)
    assert any("/nodes/1/attrs/num_inputs: not of type string" in e for e in errors)
    consts = json.loads((GOLDEN / "conv_relu_maxpool_fc" / "tvmgen_mrvl_main_0-consts.json").read_text())
    consts["tvmgen_mrvl_main_1_const_0"]["min"] = -1.25
    consts["tvmgen_mrvl_main_3_const_0"]["data_base64"] += "A"
    errors = validate(consts, SCHEMAS["consts"])
    assert any("const_0/min: not of type string" in e for e in errors)
    assert any("const_0/data_base64" in e for e in errors)


def test_zoo_files_validate(zoo_dir):
    """Every subgraph of the model zoo (mobilenet_small has nine)."""
    checked = 0
    for model in sorted(zoo_dir.glob("*.onnx")):
        module = import_onnx(model, ZOO_INPUT_SHAPES[model.stem])
        MrvlPipelinePass().apply(Context(), module)
        checked += check_files(emit_module(module))
    assert checked >= 2 * 11
