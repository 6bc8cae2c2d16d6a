"""The compile report: where each ONNX node runs and why, what each MLIP subgraph costs,
and the totals, the way Arm's Vela reports a compile (its per-layer and summary reports).

    subgraph            layers  batch  calls      MACs   weights  activations
    tvmgen_mrvl_main_0       6      1      1  786.56 k  23.4 KiB     50.0 KiB
    host (0 kernels)         -      -      -         0      64 B    arena 0 B
    nodes 11: 11 on MLIP (100.0%), 0 on host; MACs 786.56 k, 100.0% on MLIP; 1 subgraph; host arena 0 B

`compile_report(module, files, weights_file, arena_bytes)` reads the lowered module
(`mrvl-pipeline` has run), the bundle's files (`emit_c`: the sourcemaps name each node's
JSON layer; the weights blob gives its size) and the host workspace size (`metadata.json`). Counts are taken from the IR the JSON emitter
serialises, so a subgraph's `layers` is the number of `tvm_op` nodes in its nodes file and
`weight_bytes` the float32 bytes of its consts file (a constant two layers read counts twice,
as the file holds it twice).

A subgraph runs `batch` images a call and `calls` calls a run: more than one when the model's
batch is over MLIP's limit and runs in chunks (`chunk-mrvl-batch`); its MACs count every
call, its bytes one call's.

MACs (multiply-accumulates) count what convolutions and matrix products compute: a conv
output element costs its kernel volume times its input channels per group, a matrix
product element its inner dimension; pools, sums and data movement count 0.
`activation_bytes` is the float32 bytes of a subgraph's inputs and of every tensor its
layers produce: the feature-map memory MLIP reads and writes in one run.
"""

import csv
import io
import json
import math
from dataclasses import asdict, dataclass, field

from xdsl.dialects.builtin import ModuleOp

from mrvl.backend.estimate_report import count, estimate_json, estimate_text, program_estimate
from mrvl.backend.json_emitter import subgraph_batch
from mrvl.backend.mlip_json.layers import describe, is_layer
from mrvl.backend.placement_report import Row, placement_rows, placement_totals, write_table
from mrvl.backend.report_html import write_html
from mrvl_dialect import cpu, mrvl
from mrvl.target.cost_model import CostModel, ProgramEstimate, elements, macs
from mrvl_dialect.errors import one_line
from mrvl_dialect.locations import location_nodes
from mrvl_dialect.mrvl import SubgraphOp

FLOAT32_BYTES = 4
"""MLIP subgraphs exchange and store float32 (the JSON's dtype)."""

NODE_COLUMNS = ("name", "op_type", "place", "subgraph", "layer", "pattern", "legalized", "quantized", "reasons")
SUBGRAPH_COLUMNS = ("symbol", "layers", "batch", "calls", "macs", "weight_bytes", "activation_bytes", "input_bytes",
                    "output_bytes", "precision")
HOST_PRECISION = "fp32"


@dataclass(frozen=True)
class SubgraphCost:
    """One MLIP subgraph: what its JSON holds, what one run of the model computes on it (`macs`,
    every call) and what one call moves (the bytes)."""

    symbol: str
    layers: int
    batch: int
    """The images one call runs (the JSON's `batch_size`)."""
    calls: int
    """The calls one run makes: more than one for a batch over MLIP's limit, run in chunks."""
    macs: int
    weight_bytes: int
    activation_bytes: int
    input_bytes: int
    output_bytes: int
    precision: str = ""
    """The arithmetic of its layers: the `quantize` option, fp16 or int8."""


def subgraph_cost(subgraph: SubgraphOp, calls: int) -> SubgraphCost:
    """`subgraph`'s cost when one run calls it `calls` times."""
    symbol = subgraph.sym_name.data
    block = subgraph.body.block
    layers = [op for op in block.ops if is_layer(op)]
    weights = sum(
        math.prod(const.shape) * FLOAT32_BYTES for j, op in enumerate(layers) for const in describe(op, j, symbol).consts
    )
    inputs = sum(elements(arg) for arg in block.args) * FLOAT32_BYTES
    produced = sum(elements(op.results[0]) for op in layers) * FLOAT32_BYTES
    terminator = block.last_op
    assert isinstance(terminator, mrvl.YieldOp)
    outputs = sum(elements(v) for v in terminator.values) * FLOAT32_BYTES
    return SubgraphCost(symbol, len(layers), subgraph_batch(subgraph), calls, calls * sum(macs(op) for op in layers),
                        weights, inputs + produced, inputs, outputs, subgraph.quantize.data)


@dataclass(frozen=True)
class HostCost:
    """The Arm host's part: its kernels, their MACs, its weights file and its arena."""

    kernels: int
    macs: int
    weight_bytes: int
    arena_bytes: int


@dataclass(frozen=True)
class NodeRow:
    """One ONNX node: where it runs (with its JSON layer when on MLIP) and why."""

    name: str
    op_type: str | None
    place: str
    subgraph: str | None
    layer: str | None
    """The node's layer in `<subgraph>-nodes.json` (`tvmgen_mrvl_main_3`)."""
    pattern: str | None
    legalized: str | None
    """The legalize-mrvl rewrite that made the node MLIP layers."""
    reasons: tuple[str, ...]
    quantized: str | None = None
    """For a node the QDQ model quantized, the arithmetic it ran in: int8 (an int8 MLIP
    layer, with the model's scales), fp16 (an fp16 MLIP layer) or fp32 (on the host, between
    QuantizeLinear and DequantizeLinear kernels); None for a node the model left float."""


def quantized_nodes(module: ModuleOp) -> dict[str, str]:
    """ONNX node name -> the arithmetic it ran in, for the nodes that carry the QDQ model's
    quantization (`mrvl.quantized`, on MLIP layers and host kernels alike)."""
    found = {}
    for op in module.walk():
        if mrvl.QUANTIZED_ATTR in op.attributes and not isinstance(op, SubgraphOp):
            subgraph = op.parent_op()
            precision = subgraph.quantize.data if isinstance(subgraph, SubgraphOp) else HOST_PRECISION
            for node in location_nodes(op.location):
                found.setdefault(node.name, precision)
    return found


@dataclass(frozen=True)
class CompileReport:
    nodes: list[NodeRow]
    subgraphs: list[SubgraphCost]
    host: HostCost
    totals: dict[str, object]
    placement_rows: list[Row] = field(repr=False)
    """The placement report's rows and totals, for `text()`."""
    placement_totals: dict[str, int] = field(repr=False)
    estimate: ProgramEstimate | None = field(default=None, repr=False)
    """Estimated latency of one run (`target/cost_model.py`)."""
    html: str = field(default="", repr=False)
    """`report.html`: the picture of the partition (`report_html.py`)."""

    def to_json(self) -> dict:
        estimate = {"estimate": estimate_json(self.estimate)} if self.estimate is not None else {}
        return {
            "totals": self.totals,
            "host": asdict(self.host),
            "subgraphs": [asdict(s) for s in self.subgraphs],
            "nodes": [{**asdict(n), "reasons": list(n.reasons)} for n in self.nodes],
            **estimate,
        }

    def nodes_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(NODE_COLUMNS)
        for node in self.nodes:
            values = asdict(node) | {"reasons": "; ".join(node.reasons)}
            writer.writerow("" if values[key] is None else values[key] for key in NODE_COLUMNS)
        return out.getvalue()

    def subgraphs_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SUBGRAPH_COLUMNS)
        for cost in self.subgraphs:
            writer.writerow(getattr(cost, key) for key in SUBGRAPH_COLUMNS)
        host = self.host
        writer.writerow(("host", host.kernels, "", "", host.macs, host.weight_bytes, host.arena_bytes, "", "",
                         HOST_PRECISION))
        return out.getvalue()

    def summary(self) -> str:
        """The short table printed after every compile: one row per subgraph, the host, totals."""
        rows = [("subgraph", "layers", "batch", "calls", "MACs", "weights", "activations")]
        for s in self.subgraphs:
            rows.append((s.symbol, str(s.layers), str(s.batch), str(s.calls), count(s.macs), size(s.weight_bytes),
                         size(s.activation_bytes)))
        host = self.host
        kernels = f"host ({host.kernels} kernel{'s' if host.kernels != 1 else ''})"
        rows.append((kernels, "-", "-", "-", count(host.macs), size(host.weight_bytes), f"arena {size(host.arena_bytes)}"))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
            for row in rows
        ]
        t = self.totals
        lines.append(
            f"nodes {t['nodes']}: {t['mlip_nodes']} on MLIP ({percent(t['mlip_nodes'], t['nodes'])}), "
            f"{t['host_nodes']} on host; MACs {count(t['macs'])}, {percent(t['mlip_macs'], t['macs'])} on MLIP; "
            f"{t['subgraphs']} subgraph{'s' if t['subgraphs'] != 1 else ''}; host arena {size(t['host_arena_bytes'])}"
        )
        return "\n".join(lines) + "\n"

    def text(self) -> str:
        """`report.txt`: the summary, then every node with where it runs and why."""
        out = io.StringIO()
        out.write(self.summary())
        out.write("\n")
        write_table(self.placement_rows, self.placement_totals, out)
        if self.estimate is not None:
            out.write("\n")
            out.write(estimate_text(self.estimate))
        return out.getvalue()


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


def _layers_by_node(files: dict) -> dict[tuple[str, str], str]:
    """(subgraph, ONNX node name) -> the JSON layer it is part of, from the sourcemaps."""
    layers = {}
    for name, document in files.items():
        if name.endswith("-sourcemap.json") and isinstance(document, dict):
            for node in document["nodes"]:
                for onnx_node in node["onnx_nodes"]:
                    layers.setdefault((document["symbol"], onnx_node["name"]), node["name"])
    return layers


def compile_report(module: ModuleOp, files: dict, weights_file: str, arena_bytes: int,
                   model: CostModel | None = None) -> CompileReport:
    """The report of a lowered `module` whose bundle holds `files` (see the module doc);
    `weights_file` names the host weights blob in `files`, `arena_bytes` the host workspace,
    `model` the cost model of its estimate (the default target without)."""
    placed = placement_rows(module)
    layers = _layers_by_node(files)
    quantized = quantized_nodes(module)
    nodes = [
        NodeRow(row.name, row.op_type, row.place, row.subgraph,
                layers.get((row.subgraph, row.name)) if row.subgraph is not None else None,
                row.pattern, row.legalized, tuple(one_line(r) for r in row.reasons), quantized.get(row.name))
        for row in placed
    ]
    calls = cpu.calls_per_run(module)
    subgraphs = [subgraph_cost(op, calls.get(op.sym_name.data, 0)) for op in module.walk() if isinstance(op, SubgraphOp)]
    host_ops = [op for op in module.walk() if isinstance(op, cpu.CpuOp) and not isinstance(op, cpu.CallMlipOp)]
    host = HostCost(len(host_ops), sum(macs(op) for op in host_ops), len(files.get(weights_file, b"")), arena_bytes)
    placement = placement_totals(module, placed)
    mlip_macs = sum(s.macs for s in subgraphs)
    totals = {
        "nodes": placement["nodes"],
        "mlip_nodes": placement["mlip"],
        "host_nodes": placement["host"],
        "subgraphs": len(subgraphs),
        "macs": mlip_macs + host.macs,
        "mlip_macs": mlip_macs,
        "mlip_macs_percent": round(100 * mlip_macs / (mlip_macs + host.macs), 2) if mlip_macs + host.macs else None,
        "mlip_layers": sum(s.layers for s in subgraphs),
        "mlip_weight_bytes": sum(s.weight_bytes for s in subgraphs),
        "host_weight_bytes": host.weight_bytes,
        "host_arena_bytes": host.arena_bytes,
    }
    model = model or CostModel.load()
    estimate = program_estimate(module, model)
    page = write_html(module, placed, placement, model, estimate)
    return CompileReport(nodes, subgraphs, host, totals, placed, placement, estimate, page)


REPORT_FILES = ("report.txt", "report.json", "report-nodes.csv", "report-subgraphs.csv", "report.html")


def report_files(report: CompileReport) -> dict[str, str]:
    """The report as the bundle holds it: text, JSON, two CSV tables and the HTML picture."""
    return {
        "report.txt": report.text(),
        "report.json": json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n",
        "report-nodes.csv": report.nodes_csv(),
        "report-subgraphs.csv": report.subgraphs_csv(),
        "report.html": report.html,
    }
