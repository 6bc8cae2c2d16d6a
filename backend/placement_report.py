"""`-t placement-report`: where every ONNX node runs, and why a node stays on the host.

    $ mrvl-opt model.onnx -p place-ops -t placement-report
    node   op type  runs on                 reasons
    conv1  Conv     MLIP (layer 0, conv2d)
    relu1  Relu     MLIP (layer 0, conv2d)
    sm     Softmax  host                    unsupported: MLIP has no layer for Softmax

    nodes      3
      on MLIP  2   66.7%
      on host  1   33.3%
    subgraphs  0

One row per node in program order (`report_model.Node`): its ONNX name, op type
(`-` once `fuse-mrvl` has made the node part of an `mrvl` layer), where it runs and, for a
host node, every reason, one per line. `{format="json"}` gives
`{"nodes": [...], "totals": {...}}` and `{format="csv"}` a table with a header row, for
scripts and spreadsheets; both hold the same fields and keep their key order. Once the
module is lowered (`cpu` kernels), text and JSON end with the latency estimate
(`estimate_report.py`; options `target_file`, `host_profile`). `{format=html}` draws the
graph coloured by placement (`report_html.py`). Every format renders the report model
(`report_model.py`), as the compile's reports do.
"""

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from mrvl.backend.estimate_report import estimate_json, estimate_text
from mrvl.backend.report_html import render_html
from mrvl.backend.report_model import Estimate, Node, build_report
from mrvl.target.cost_model import CostModel
from mrvl_dialect.errors import CompileError, one_line

FORMATS = ("text", "json", "csv", "html")
COLUMNS = ("name", "op_type", "place", "subgraph", "pattern", "group", "legalized", "reasons")
"""The fields of a row, in the order JSON objects and CSV columns give them."""


def row_dict(node: Node) -> dict[str, object]:
    return {key: list(node.reasons) if key == "reasons" else getattr(node, key) for key in COLUMNS}


@dataclass(frozen=True)
class PlacementReportTarget(Target):
    """Lists each ONNX node, where it runs (MLIP subgraph and layer kind, or host) and why."""

    name = "placement-report"

    format: str = "text"
    """`text` (an aligned table with totals), `json`, `csv` or `html` (a picture: report_html.py)."""
    target_file: str = ""
    """The target description of the latency estimate (`target/cost_model.py`)."""
    host_profile: str = ""
    """A profile from `mrvl-run --profile --profile-out` calibrating the host's rates."""

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise CompileError(
                f"-t {self.name}", f"format must be {', '.join(FORMATS[:-1])} or {FORMATS[-1]}, got '{self.format}'"
            )

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        report = build_report(module, CostModel.load(self.target_file, self.host_profile))
        if self.format == "html":
            output.write(render_html(report))
        elif self.format == "json":
            write_json(report.nodes, report.placement_totals, output, report.estimate)
        elif self.format == "csv":
            writer = csv.writer(output, lineterminator="\n")
            writer.writerow(COLUMNS)
            for node in report.nodes:
                values = row_dict(node)
                values["reasons"] = "; ".join(node.reasons)
                writer.writerow("" if v is None else v for v in values.values())
        else:
            write_table(report.nodes, report.placement_totals, output)
            if report.estimate is not None:
                print(file=output)
                output.write(estimate_text(report.estimate))


def legalized_as(node: Node) -> list[str]:
    """`legalized.<id>: ...` for a node legalize-mrvl rewrote, else nothing."""
    if node.legalized is None:
        return []
    return [f"legalized.{node.legalized}: rewritten exactly into MLIP layers (docs/supported-ops.md says how)"]


def write_json(nodes: Sequence[Node], totals: dict[str, int], output: IO[str],
               estimate: Estimate | None = None) -> None:
    """`{"nodes": [...], "totals": {...}}`, one node per line; `"estimate"` once lowered."""
    lines = ",\n".join(f"    {json.dumps(row_dict(node), ensure_ascii=False)}" for node in nodes)
    print("{", file=output)
    print(f'  "nodes": [\n{lines}\n  ],' if nodes else '  "nodes": [],', file=output)
    print(f'  "totals": {json.dumps(totals)}{"," if estimate is not None else ""}', file=output)
    if estimate is not None:
        print(f'  "estimate": {json.dumps(estimate_json(estimate))}', file=output)
    print("}", file=output)


def write_table(nodes: Sequence[Node], totals: dict[str, int], output: IO[str]) -> None:
    """The text report: one line per node (and per further reason), then the totals."""
    staged = any(getattr(node, "stage", None) is not None for node in nodes)  # a module cut into stages
    lines = [("node", "op type", "runs on", *(("stage",) if staged else ()), "reasons")]
    for node in nodes:
        reasons = [*legalized_as(node), *(one_line(r) for r in node.reasons)] or [""]
        stage = (str(getattr(node, "stage", "")),) if staged else ()
        lines.append((one_line(node.name), node.op_type or "-", node.runs_on, *stage, reasons[0]))
        lines.extend(("", "", "", *("",) * staged, reason) for reason in reasons[1:])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]) - 1)]
    for line in lines:
        text = "  ".join(cell.ljust(width) for cell, width in zip(line, widths))
        print(f"{text}  {line[-1]}".rstrip(), file=output)
    print(file=output)
    count = totals["nodes"]
    width = len(str(max(totals.values())))
    print(f"nodes      {count:>{width}}", file=output)
    for place, label in (("mlip", "on MLIP"), ("host", "on host")):
        share = f"  {100 * totals[place] / count:5.1f}%" if count else ""
        print(f"  {label}  {totals[place]:>{width}}{share}", file=output)
    print(f"subgraphs  {totals['subgraphs']:>{width}}", file=output)
