"""Placement files, generated and damaged, given to `mrvl-pipeline{placement=...}`.

Documents are drawn close to the schema (`schemas/placement.schema.json`) so that most
reach the entry checks and the matching: real node names and op types of the bundled
MNIST model next to misspelt ones, regular expressions that do not compile or that
backtrack, places that are not `host`/`mlip`, keys that are missing, unknown or repeated,
values of the wrong JSON type. The text is then sometimes damaged: cut short, not UTF-8,
nested thousands deep, with a byte-order mark or non-standard numbers.
"""

import json

from hypothesis import given
from hypothesis import strategies as st

from fuzz.contract import MNIST, Cases, run_checked
from fuzz.search import fuzz_settings
from fuzz.tool_server import ToolServer

NODE_NAMES = ["Convolution28", "Plus30", "ReLU32", "Pooling66", "Times212", "Plus214", "nope"] * 3 + ["", "*"]
OP_TYPES = ["Conv", "Relu", "MaxPool", "MatMul", "Add", "Reshape", "FusedConv"] * 3 + [
    "relu", "onnx.Conv", "graph.Relu", ""]
REGEXES = ["^Conv", "Plus", "^(Plus|ReLU)", "[0-9]+$", ".*", "(?i)relu", "^([\\w.]++)+$"] * 3 + [
    "(", "[", "*a", "(?P<x", "\\", "a{2,1}", "^([\\w.]+)+!", "(a|aa)+$", "^(\\w+\\d*)*$", "\\d{99999}"]
"""Each list: good values, three times over, then bad ones (misspelt, not compiling, backtracking)."""
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 70), 1 << 70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=6,
)


@st.composite
def entries(draw):
    entry = {}
    for key, values in (("name", st.sampled_from(NODE_NAMES)), ("op_type", st.sampled_from(OP_TYPES)),
                        ("name_regex", st.sampled_from(REGEXES)), ("comment", st.text(max_size=10))):
        if draw(st.integers(0, 2)) == 0:
            entry[key] = draw(values)
    if draw(st.integers(0, 9)):
        entry["place"] = draw(st.sampled_from(["host", "mlip"] * 6 + ["cpu", "MLIP", "", "both"]))
    if draw(st.integers(0, 19)) == 0:
        entry[draw(st.sampled_from(["plase", "device", "type", "regex", "x"]))] = draw(JSON_VALUES)
    if draw(st.integers(0, 19)) == 0:
        entry[draw(st.sampled_from(list(entry) or ["name"]))] = draw(JSON_VALUES)  # a value of any JSON type
    return entry


@st.composite
def documents(draw) -> bytes:
    document = {"format": "mrvl-placement", "version": 1, "nodes": draw(st.lists(entries(), max_size=4))}
    if draw(st.integers(0, 4)) == 0:
        key = draw(st.sampled_from([*document, "$schema", "comment", "nodez"]))
        document[key] = draw(JSON_VALUES)
    if draw(st.integers(0, 9)) == 0:
        del document[draw(st.sampled_from(sorted(document)))]
    text = json.dumps(document, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 2])))
    match draw(st.sampled_from(["none"] * 14 + ["cut", "bom", "latin-1", "nested", "duplicate", "nan", "top"])):
        case "cut":
            text = text[: draw(st.integers(0, len(text) - 1))]
        case "bom":
            text = "\ufeff" + text
        case "latin-1":
            return text.replace('"mrvl-placement"', '"mrvl-placement\u00e9"').encode("latin-1", "replace")
        case "nested":
            depth = draw(st.sampled_from([100, 5000]))
            text = text[:-1] + ', "comment": ' + "[" * depth + "]" * depth + "}"
        case "duplicate":
            text = text.replace('"version": 1', '"version": 1, "version": 1', 1)
        case "nan":
            text = text.replace('"version": 1', '"version": ' + draw(st.sampled_from(["NaN", "Infinity", "1e999",
                                                                                     "1.0", "01"])), 1)
        case "top":
            text = draw(st.sampled_from(["[]", "null", "1", '"x"', ""]))
    return text.encode()


@fuzz_settings(examples=100)
@given(document=documents())
def test_placement_file(document: bytes, server: ToolServer, cases: Cases):
    case = cases.new()
    placement = case.write_input("p.json", document)
    run_checked(server, "placement", case, "mrvl-opt", ["-p", f'mrvl-pipeline{{placement="{placement}"}}'], MNIST)
