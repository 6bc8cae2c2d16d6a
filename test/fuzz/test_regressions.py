"""Inputs the fuzzers found that broke the contract, kept so that they stay fixed.

Each test rebuilds its input from a seed text or a small model built here (no opaque
files), runs the tool as the fuzzers do and checks the one error line it now gives.
"""

import inspect
import json
import re

import xdsl.utils.mlir_lexer
from onnx import TensorProto, helper

from fuzz.contract import Cases, run_checked
from fuzz.tool_server import ToolServer
from mrvl.mlir_lexer_fix import XDSL_STRING_LITERAL


def _refused(server: ToolServer, cases: Cases, text: str, args: list[str], words: list[str]) -> None:
    case = cases.new()
    source = case.write_input("in.mlir", text)
    run = run_checked(server, "regression", case, "mrvl-opt", args, source)
    assert run.returncode == 1, run.report()
    assert run.seconds < 5, f"took {run.seconds:.1f} s\n" + run.report()
    for word in words:
        assert word in run.stderr, f"{word!r} not in the message\n" + run.report()


def _blob(text: str, handle: str) -> re.Match[str]:
    found = re.search(rf'^\s*{re.escape(handle)}: "(0x[0-9A-F]+)"', text, re.MULTILINE)
    assert found is not None, f"no blob {handle} in the seed text"
    return found


def test_ir_cut_inside_a_weight_blob_is_refused_at_once(seed_texts, server: ToolServer, cases: Cases):
    """Found by test_mlir_text (graph, "cut at 3945"): xDSL's string-literal pattern
    backtracks exponentially on a string without its closing quote; mrvl-opt hung."""
    blob = _blob(seed_texts["graph"], "Parameter5")
    text = seed_texts["graph"][: blob.start(1) + 2000]
    _refused(server, cases, text, [], ["closing string literal"])


def test_ir_with_a_stray_quote_is_refused_at_once(seed_texts, server: ToolServer, cases: Cases):
    """Found by test_mlir_text (graph, "'>' -> '\"'"): the same backtracking, from a quote
    that opens a string the line never closes, followed by a long blob line."""
    text = seed_texts["graph"].replace("tensor<8x1x5x5xf32>", 'tensor<8x1x5x5xf32"', 1)
    _refused(server, cases, text, [], [])


def test_xdsl_string_literal_pattern_is_the_one_replaced():
    """mrvl.mlir_lexer_fix replaces this pattern of xDSL's; an xDSL upgrade that changes
    it has to be looked at (fixed upstream, or still exponential)."""
    assert XDSL_STRING_LITERAL in inspect.getsource(xdsl.utils.mlir_lexer)


def test_pipeline_on_ir_without_a_layers_weights_names_them(seed_texts, server: ToolServer, cases: Cases):
    """Found by test_mlir_text (graph, "line 32 dropped"): fuse-mrvl read the missing weights
    of a MatMul as None and failed with an internal AttributeError."""
    text = seed_texts["graph"]
    blob = _blob(text, "Parameter193_reshape1")
    line_start = text.rindex("\n", 0, blob.start()) + 1
    line_end = text.index("\n", blob.end())
    text = text[:line_start] + text[line_end + 1:]
    _refused(server, cases, text, ["-p", "mrvl-pipeline"],
             ["(MatMul)", "'Parameter193_reshape1'", "--print-weights"])


def test_weight_blob_of_the_wrong_size_is_refused(seed_texts, server: ToolServer, cases: Cases):
    blob = _blob(seed_texts["graph"], "Parameter194")
    text = seed_texts["graph"][: blob.end(1)] + "00" + seed_texts["graph"][blob.end(1):]
    _refused(server, cases, text, [], ["dialect_resources 'Parameter194'", "41 bytes", "needs 40"])


def test_weight_blob_for_a_type_without_bytes_is_refused(server: ToolServer, cases: Cases):
    text = """builtin.module {
  func.func @main() -> tensor<2xf8E4M3FN> {
    %w = graph.constant dense_resource<w> : tensor<2xf8E4M3FN>
    func.return %w : tensor<2xf8E4M3FN>
  }
}
{-#
  dialect_resources: { builtin: { w: "0x010000000102" } }
#-}
"""
    _refused(server, cases, text, [], ["dialect_resources 'w'", "cannot be read"])


def _long_named_relu() -> bytes:
    """y = Relu(x), in a node named like a deep exporter scope (40 characters)."""
    node = helper.make_node("Relu", ["x"], ["y"], name="/encoder/layers.11/self_attn/k_proj/Relu")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _placement_run(server: ToolServer, cases: Cases, document: str | bytes):
    case = cases.new()
    model = case.write_input("model.onnx", _long_named_relu())
    placement = case.write_input("p.json", document)
    return run_checked(server, "regression", case, "mrvl-opt", ["-p", f'mrvl-pipeline{{placement="{placement}"}}'],
                       model)


def _placement(regex: str) -> str:
    return json.dumps({"format": "mrvl-placement", "version": 1, "nodes": [{"name_regex": regex, "place": "host"}]})


def test_placement_regex_with_nested_repeats_is_refused(server: ToolServer, cases: Cases):
    """Python's regex engine takes exponential time to fail `^([\\w/.]+)+!` on a 40-character
    node name (hours): the compiler hung on such a placement file."""
    run = _placement_run(server, cases, _placement(r"^([\w/.]+)+!"))
    assert run.returncode == 1 and run.seconds < 5, run.report()
    assert "nodes[0].name_regex" in run.stderr and "repeat inside a repeat" in run.stderr, run.report()


def test_placement_regex_with_a_possessive_inner_repeat_is_accepted(server: ToolServer, cases: Cases):
    run = _placement_run(server, cases, _placement(r"^([\w/.]++)+$"))
    assert run.returncode == 0, run.report()


def test_placement_file_nested_thousands_deep_is_one_error(server: ToolServer, cases: Cases):
    """Found by test_placement_file ("nested"): json's decoder recursed past Python's limit,
    an internal RecursionError."""
    document = _placement("^x")[:-1] + ', "comment": ' + "[" * 5000 + "]" * 5000 + "}"
    run = _placement_run(server, cases, document)
    assert run.returncode == 1 and "nested too deeply" in run.stderr, run.report()


def test_model_without_ir_version_names_it(server: ToolServer, cases: Cases):
    """Found by test_onnx_models: ONNX's version converter refused a model without an IR
    version with an assertion message from its C++ sources."""
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, ir_version=0, opset_imports=[helper.make_opsetid("", 17)])
    case = cases.new()
    source = case.write_input("model.onnx", model.SerializeToString())
    run = run_checked(server, "regression", case, "mrvl-opt", [], source)
    assert run.returncode == 1 and "ir_version: IR version 0" in run.stderr and ".cc:" not in run.stderr, run.report()
