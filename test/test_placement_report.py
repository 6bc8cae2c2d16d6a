"""`-t placement-report` (`backend/placement_report.py`): the rows, and the text, JSON and
CSV renderings of one small placed module."""

import csv
import json
from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.test import Test
from xdsl.parser import Parser

from mrvl.backend.placement_report import COLUMNS, PlacementReportTarget
from mrvl.opt import main
from mrvl_dialect import get_all_dialects
from mrvl_dialect.errors import CompileError
from mrvl_dialect.placement_file import PlacedNode, placed_nodes

RELU_REASON = "relu.fused-only: Relu runs on MLIP only fused after a Conv, Gemm or Add"
MODULE = f"""
mrvl.subgraph @mrvl_sg0(%a: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> attributes {{mcpu = "cn10ka", num_tiles = 8 : i64, quantize = "fp16", wb_pin_ocm = 0 : i64, run_mode = "hw"}} {{
  %s = mrvl.sum %a, %a {{activation = #mrvl<activation relu>}} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc(fused["/blk/Add", "/blk/Relu"])
  mrvl.yield %s : tensor<1x8x8x4xf32>
}}
func.func @main(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {{
  %c = graph.Conv %x, %x {{"mrvl.place" = "mlip", "mrvl.group" = 7 : i64, "mrvl.pattern" = "conv2d"}} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x1x1xf32> loc("c")
  %y = graph.Relu %x {{"mrvl.place" = "host", "mrvl.reasons" = ["{RELU_REASON}", "x.two: second (got 2)"]}} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("relu_1")
  %z = "test.op"(%y) {{callee = @mrvl_sg0}} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %s = graph.Softmax %z {{"mrvl.place" = "host", "mrvl.reasons" = ["unsupported: MLIP has no layer for Softmax"]}} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> loc("sm, \\"x\\"")
  func.return %s : tensor<1x8x8x4xf32>
}}
"""

TEXT = f"""\
node       op type  runs on                 reasons
c          Conv     MLIP (layer 7, conv2d)
relu_1     Relu     host                    {RELU_REASON}
                                            x.two: second (got 2)
/blk/Add   -        MLIP (mrvl_sg0, sum)
/blk/Relu  -        MLIP (mrvl_sg0, sum)
sm, "x"    Softmax  host                    unsupported: MLIP has no layer for Softmax

nodes      5
  on MLIP  3   60.0%
  on host  2   40.0%
subgraphs  1
"""


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, Test):
        ctx.load_dialect(dialect)
    for factory in get_all_dialects().values():
        ctx.load_dialect(factory())
    return Parser(ctx, text).parse_module()


def emit(module: ModuleOp, format: str = "text") -> str:
    out = StringIO()
    PlacementReportTarget(format=format).emit(Context(), module, out)
    return out.getvalue()


def test_rows():
    rows = placed_nodes(parse(MODULE))
    assert rows == [
        PlacedNode("c", "Conv", "mlip", None, "conv2d", 7, ()),
        PlacedNode("relu_1", "Relu", "host", reasons=(RELU_REASON, "x.two: second (got 2)")),
        PlacedNode("/blk/Add", None, "mlip", "mrvl_sg0", "sum"),
        PlacedNode("/blk/Relu", None, "mlip", "mrvl_sg0", "sum"),
        PlacedNode('sm, "x"', "Softmax", "host", reasons=("unsupported: MLIP has no layer for Softmax",)),
    ]
    assert [row.runs_on for row in rows] == [
        "MLIP (layer 7, conv2d)", "host", "MLIP (mrvl_sg0, sum)", "MLIP (mrvl_sg0, sum)", "host"
    ]
    assert PlacedNode("n", "Relu", "mlip").runs_on == "MLIP"


def test_text():
    assert emit(parse(MODULE)) == TEXT


def test_text_of_a_module_without_nodes():
    assert emit(parse("func.func @f() {\n  func.return\n}")) == (
        "node  op type  runs on  reasons\n\nnodes      0\n  on MLIP  0\n  on host  0\nsubgraphs  0\n"
    )


def test_json():
    text = emit(parse(MODULE), "json")
    report = json.loads(text)
    assert list(report) == ["nodes", "totals"]
    assert report["totals"] == {"nodes": 5, "mlip": 3, "host": 2, "subgraphs": 1}
    assert [list(node) for node in report["nodes"]] == [list(COLUMNS)] * 5
    assert report["nodes"][1] == {
        "name": "relu_1", "op_type": "Relu", "place": "host", "subgraph": None, "pattern": None, "group": None,
        "legalized": None, "reasons": [RELU_REASON, "x.two: second (got 2)"],
    }
    assert report["nodes"][2]["subgraph"] == "mrvl_sg0"
    assert text.endswith("}\n") and emit(parse(MODULE), "json") == text


def test_json_without_nodes():
    report = json.loads(emit(parse("func.func @f() {\n  func.return\n}"), "json"))
    assert report == {"nodes": [], "totals": {"nodes": 0, "mlip": 0, "host": 0, "subgraphs": 0}}


def test_csv():
    rows = list(csv.reader(StringIO(emit(parse(MODULE), "csv"))))
    assert rows[0] == list(COLUMNS)
    assert rows[1] == ["c", "Conv", "mlip", "", "conv2d", "7", "", ""]
    assert rows[2] == ["relu_1", "Relu", "host", "", "", "", "", f"{RELU_REASON}; x.two: second (got 2)"]
    assert rows[5][0] == 'sm, "x"'
    assert len(rows) == 6


def test_unknown_format():
    with pytest.raises(CompileError, match="^-t placement-report: format must be text, json, csv or html, got 'svg'$"):
        PlacementReportTarget(format="svg")


def test_registered_in_mrvl_opt(tmp_path, capsys):
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    assert main([str(path), "-t", "placement-report"]) == 0
    assert capsys.readouterr().out == TEXT
    assert main([str(path), "-t", "placement-report{format=csv}"]) == 0
    assert capsys.readouterr().out.startswith("name,op_type,place,")
