"""The compile report: where each ONNX node runs and why, what each MLIP subgraph costs,
and the totals, the way Arm's Vela reports a compile (its per-layer and summary reports).

    subgraph            layers  batch  calls      MACs   weights  activations
    tvmgen_mrvl_main_0       6      1      1  786.56 k  23.4 KiB     50.0 KiB
    host (0 kernels)         -      -      -         0      64 B    arena 0 B
    nodes 11: 11 on MLIP (100.0%), 0 on host; MACs 786.56 k, 100.0% on MLIP; 1 subgraph; host arena 0 B

`report_files(report)` renders the bundle's reports from the report model
(`report_model.build_report`, on the lowered module): `report.txt` (`summary`, the
placement table and the estimate), `report.json`, `report-nodes.csv`,
`report-subgraphs.csv` and `report.html` (`report_html.py`). `summary` is also what
`mrvl-compile` prints.
"""

import csv
import io

from mrvl.backend.estimate_report import count, estimate_json, estimate_text
from mrvl.backend.json_text import json_text
from mrvl.backend.placement_report import write_table
from mrvl.backend.report_html import render_html
from mrvl.backend.report_model import HOST_PRECISION, LayoutTranspose, Report
from mrvl_dialect.errors import one_line

NODE_COLUMNS = ("name", "op_type", "place", "subgraph", "layer", "pattern", "legalized", "quantized", "reasons")
SUBGRAPH_COLUMNS = ("symbol", "layers", "batch", "calls", "macs", "weight_bytes", "activation_bytes", "input_bytes",
                    "output_bytes", "precision")
HOST_COLUMNS = ("kernels", "macs", "weight_bytes", "arena_bytes")
REPORT_FILES = ("report.txt", "report.json", "report-nodes.csv", "report-subgraphs.csv", "report.html")


def report_files(report: Report) -> dict[str, str]:
    """The report as the bundle holds it: text, JSON, two CSV tables and the HTML picture."""
    return {
        "report.txt": report_text(report),
        "report.json": json_text(report_json(report), ensure_ascii=False) + "\n",
        "report-nodes.csv": nodes_csv(report),
        "report-subgraphs.csv": subgraphs_csv(report),
        "report.html": render_html(report),
    }


def _staged(report: Report) -> bool:
    """Is the report's module cut into pipeline stages? Its nodes then say their stage."""
    return any(n.stage is not None for n in report.nodes)


def _node_fields(report: Report) -> list[dict[str, object]]:
    """Each node's `NODE_COLUMNS`, its reasons on one line each, and its stage in a module
    cut into stages."""
    stage = _staged(report)
    return [{"name": n.name, "op_type": n.op_type, "place": n.place, "subgraph": n.subgraph, "layer": n.layer,
             "pattern": n.pattern, "legalized": n.legalized, "reasons": [one_line(r) for r in n.reasons],
             "quantized": n.quantized, **({"stage": n.stage} if stage else {})} for n in report.nodes]


def report_json(report: Report) -> dict:
    """`report.json`: totals, host, subgraphs, nodes and, once lowered, the estimate."""
    estimate = {"estimate": estimate_json(report.estimate)} if report.estimate is not None else {}
    return {
        "totals": report.totals,
        "host": {**{key: getattr(report.host, key) for key in HOST_COLUMNS},
                 "layout_transposes": [{"label": t.label, "elements": t.elements, "reason": t.reason}
                                       for t in report.host.transposes]},
        "subgraphs": [{key: getattr(s, key) for key in SUBGRAPH_COLUMNS} for s in report.subgraphs],
        "nodes": _node_fields(report),
        **estimate,
    }


def nodes_csv(report: Report) -> str:
    """`report-nodes.csv`: one row a node, its reasons joined by `; `."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = (*NODE_COLUMNS, "stage") if _staged(report) else NODE_COLUMNS
    writer.writerow(columns)
    for values in _node_fields(report):
        values["reasons"] = "; ".join(values["reasons"])  # type: ignore[arg-type]
        writer.writerow("" if values[key] is None else values[key] for key in columns)
    return out.getvalue()


def subgraphs_csv(report: Report) -> str:
    """`report-subgraphs.csv`: one row a subgraph, then the host's."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SUBGRAPH_COLUMNS)
    for subgraph in report.subgraphs:
        writer.writerow(getattr(subgraph, key) for key in SUBGRAPH_COLUMNS)
    host = report.host
    writer.writerow(("host", host.kernels, "", "", host.macs, host.weight_bytes, host.arena_bytes, "", "",
                     HOST_PRECISION))
    return out.getvalue()


def summary(report: Report) -> str:
    """The short table printed after every compile: one row per subgraph, the host, totals."""
    rows = [("subgraph", "layers", "batch", "calls", "MACs", "weights", "activations")]
    for s in report.subgraphs:
        rows.append((s.symbol, str(s.layers), str(s.batch), str(s.calls), count(s.macs), size(s.weight_bytes),
                     size(s.activation_bytes)))
    host = report.host
    kernels = f"host ({host.kernels} kernel{'s' if host.kernels != 1 else ''})"
    rows.append((kernels, "-", "-", "-", count(host.macs), size(host.weight_bytes), f"arena {size(host.arena_bytes)}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in rows
    ]
    t = report.totals
    lines.append(
        f"nodes {t['nodes']}: {t['mlip_nodes']} on MLIP ({percent(t['mlip_nodes'], t['nodes'])}), "
        f"{t['host_nodes']} on host; MACs {count(t['macs'])}, {percent(t['mlip_macs'], t['macs'])} on MLIP; "
        f"{t['subgraphs']} subgraph{'s' if t['subgraphs'] != 1 else ''}; host arena {size(t['host_arena_bytes'])}"
    )
    return "\n".join(lines) + "\n"


def report_text(report: Report) -> str:
    """`report.txt`: the summary, then every node with where it runs and why, then the estimate."""
    out = io.StringIO()
    out.write(summary(report))
    out.write("\n")
    if report.host.transposes:
        out.write(layout_transposes_text(report.host.transposes))
        out.write("\n")
    write_table(report.nodes, report.placement_totals, out)
    if report.estimate is not None:
        out.write("\n")
        out.write(estimate_text(report.estimate))
    return out.getvalue()


def layout_transposes_text(transposes: tuple[LayoutTranspose, ...]) -> str:
    """The layout transposes left on the host, each with why it is there."""
    total = sum(t.elements for t in transposes)
    lines = [f"layout transposes on the host: {len(transposes)}, {count(total)} elements"]
    lines += [f"  {t.label}: {count(t.elements)} elements; {t.reason}" for t in transposes]
    return "\n".join(lines) + "\n"


def size(n: int) -> str:
    """`21.9 KiB`: bytes in binary units."""
    value = float(n)
    for unit in ("B", "KiB", "MiB"):
        if value < 1024:
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"
