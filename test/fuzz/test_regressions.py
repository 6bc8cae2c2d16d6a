"""Inputs the fuzzers found that broke the contract, kept so that they stay fixed.

Each test rebuilds its input from a seed text or model (no opaque files), runs the tool
as the fuzzers do and checks the one error line it now gives.
"""

import inspect
import re

import xdsl.utils.mlir_lexer

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
