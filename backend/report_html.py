"""`-t placement-report{format=html}` and the bundle's `report.html`: a picture of the partition.

One self-contained page (inline SVG and CSS, nothing fetched at view time): the ONNX graph,
each node a box coloured by the MLIP subgraph that runs it, or grey on the host; hovering a
box shows (SVG `<title>`) where it runs, why, and its estimated time. Below the picture,
the totals and the latency estimate (`estimate_report.py`).

Layout is a small layered (Sugiyama-style) one, no Graphviz needed: each node goes on the
layer after its deepest predecessor (longest path from the inputs), then a few sweeps order
each layer by the mean position of its neighbours on the layer before (down) and after
(up), the barycentric heuristic, which keeps edges short and rarely crossing.

Edges join ONNX nodes through what the IR computes: a value made by an op without a name
(a layout transpose), a subgraph argument or a `cpu.call_mlip` result leads back to the
nodes that made it.
"""

import html
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from mrvl.backend.estimate_report import estimate_text, host_op_label
from mrvl_dialect.cost_model import CostModel, ProgramEstimate, duration, host_work, mlip_work
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import location_nodes
from mrvl_dialect.mrvl import SubgraphOp, YieldOp
from mrvl_dialect.placement_file import PlacedNode

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 168, 30, 14, 26, 12
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7", "#9c755f", "#e15759",
           "#8cd17d", "#86bcb6", "#d4a6c8")
HOST_COLOUR = "#c8c8c8"
IO_COLOUR = "#ffffff"


@dataclass
class _Box:
    id: str
    label: str
    title: str
    colour: str
    place: str
    subgraph: str
    layer: int = 0
    order: float = 0.0


class _Edges:
    """The ONNX nodes (by name) that made each value, across subgraph boundaries."""

    def __init__(self, module: ModuleOp, carriers: dict[Operation, list[str]]):
        self.carriers = carriers
        self.through: dict[SSAValue, list[SSAValue]] = {}
        self.inputs: dict[SSAValue, str] = {}
        subgraphs = {op.sym_name.data: op for op in module.walk() if isinstance(op, SubgraphOp)}
        for op in module.walk():
            callee = next((a for a in (*op.properties.values(), *op.attributes.values())
                           if isinstance(a, SymbolRefAttr) and a.root_reference.data in subgraphs), None)
            if callee is None:
                continue
            block = subgraphs[callee.root_reference.data].body.block
            for arg, operand in zip(block.args, op.operands):
                self.through[arg] = [operand]
            terminator = block.last_op
            if isinstance(terminator, YieldOp):
                for result, value in zip(op.results, terminator.operands):
                    self.through[result] = [value]
        self.memo: dict[SSAValue, tuple[str, ...]] = {}

    def producers(self, value: SSAValue) -> tuple[str, ...]:
        """The node ids whose output `value` is (or passes through unnamed ops from)."""
        stack, found, seen = [value], {}, set()
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in self.memo:
                found.update(dict.fromkeys(self.memo[v]))
            elif v in self.through:
                stack.extend(self.through[v])
            elif isinstance(v, BlockArgument):
                parent = v.owner.parent_op()
                if isinstance(parent, func.FuncOp) and v.name_hint is not None:
                    found[f"input:{v.name_hint}"] = None
            elif isinstance(v.owner, ConstantOp):
                continue
            elif (names := self.carriers.get(v.owner)) is not None:
                found[names[-1]] = None
            else:
                stack.extend(v.owner.operands)
        result = tuple(found)
        self.memo[value] = result
        return result


def _carriers(module: ModuleOp, names: set[str]) -> dict[Operation, list[str]]:
    """Each op that stands for ONNX nodes of the report, with their names in order."""
    carriers = {}
    for op in module.walk():
        if isinstance(op, ConstantOp):
            continue
        found = [n.name for n in location_nodes(op.location) if n.name in names]
        if found:
            carriers[op] = list(dict.fromkeys(found))
    return carriers


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.walk() if isinstance(op, func.FuncOp)]


def _times(module: ModuleOp, carriers: dict[Operation, list[str]], model: CostModel,
           estimate: ProgramEstimate | None) -> dict[str, str]:
    """Each node's estimated time: its host kernel's (shared by the nodes fused into it), or
    its MLIP layer's compute."""
    times: dict[str, str] = {}
    by_op = {h.op: h.seconds for h in estimate.host_ops} if estimate is not None else {}
    for op, names in carriers.items():
        if op in by_op:
            seconds, where = by_op[op], f"host kernel {host_op_label(op)}"
        elif isinstance(_subgraph_of(op), SubgraphOp):
            seconds = model.mlip_estimate(mlip_work([op], (), (), ()), model.mlip.tiles).compute_s
            where = "MLIP layer compute"
        else:
            seconds, where = model.host_seconds(host_work(op)), "as a host kernel"
        shared = f", shared by {len(names)} nodes" if len(names) > 1 else ""
        for name in names:
            times.setdefault(name, f"estimated {duration(seconds)} ({where}{shared})")
    return times


def _subgraph_of(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, (SubgraphOp, func.FuncOp)):
        parent = parent.parent_op()
    return parent


def _layout(boxes: dict[str, _Box], edges: list[tuple[str, str]]) -> None:
    """Longest-path layers, then barycentric ordering sweeps (`_Box.layer`, `_Box.order`)."""
    preds: dict[str, list[str]] = {b: [] for b in boxes}
    succs: dict[str, list[str]] = {b: [] for b in boxes}
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    indegree = {b: len(p) for b, p in preds.items()}
    ready = [b for b in boxes if indegree[b] == 0]
    order: list[str] = []
    while ready:
        b = ready.pop(0)
        order.append(b)
        for s in succs[b]:
            indegree[s] -= 1
            if indegree[s] == 0:
                ready.append(s)
    order += [b for b in boxes if b not in set(order)]  # a cycle (never in a valid module)
    for b in order:
        boxes[b].layer = max((boxes[p].layer + 1 for p in preds[b]), default=0)
    layers: dict[int, list[str]] = {}
    for b in order:
        layers.setdefault(boxes[b].layer, []).append(b)
    for row in layers.values():
        for i, b in enumerate(row):
            boxes[b].order = i
    depth = max(layers, default=0)
    for sweep in range(4):
        down = sweep % 2 == 0
        for level in (range(1, depth + 1) if down else range(depth - 1, -1, -1)):
            row = layers[level]
            neighbours = preds if down else succs

            def centre(b: str) -> float:
                near = [boxes[n].order for n in neighbours[b] if boxes[n].layer == level + (-1 if down else 1)]
                return sum(near) / len(near) if near else boxes[b].order

            row.sort(key=centre)
            for i, b in enumerate(row):
                boxes[b].order = i


def _title(row: PlacedNode, time: str | None) -> str:
    lines = [f"{row.name} ({row.op_type or 'fused'})", f"runs on {row.runs_on}", *row.reasons]
    if time:
        lines.append(time)
    return "\n".join(lines)


def write_html(module: ModuleOp, rows: list[PlacedNode], totals: dict[str, int], model: CostModel,
               estimate: ProgramEstimate | None) -> str:
    """The page (see the module doc)."""
    names = {row.name for row in rows}
    carriers = _carriers(module, names)
    times = _times(module, carriers, model, estimate)
    symbols = list(dict.fromkeys(row.subgraph for row in rows if row.subgraph is not None))
    colours = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(symbols)}
    boxes: dict[str, _Box] = {}
    for row in rows:
        colour = colours.get(row.subgraph or "", HOST_COLOUR if row.place == "host" else PALETTE[-1])
        boxes[row.name] = _Box(row.name, f"{row.name}", _title(row, times.get(row.name)), colour, row.place,
                               row.subgraph or "")
    edges: dict[tuple[str, str], None] = {}
    resolver = _Edges(module, carriers)
    for op, op_names in carriers.items():
        for a, b in zip(op_names, op_names[1:]):
            edges[(a, b)] = None
        for value in _operands(op):
            for producer in resolver.producers(value):
                if producer.startswith("input:") and producer not in boxes:
                    boxes[producer] = _Box(producer, producer.removeprefix("input:"), f"graph input {producer[6:]}",
                                           IO_COLOUR, "input", "")
                if producer != op_names[0] and producer in boxes:
                    edges[(producer, op_names[0])] = None
    for function in _functions(module):
        terminator = function.body.block.last_op
        for i, value in enumerate(terminator.operands if terminator is not None else ()):
            out = f"output:{function.sym_name.data}:{i}"
            label = next((a.data for a in _result_names(function, i)), f"output {i}")
            boxes[out] = _Box(out, label, f"graph output {label}", IO_COLOUR, "output", "")
            for producer in resolver.producers(value):
                if producer in boxes:
                    edges[(producer, out)] = None
    edge_list = [e for e in edges if e[0] in boxes and e[1] in boxes and e[0] != e[1]]
    _layout(boxes, edge_list)
    return _page(boxes, edge_list, rows, totals, colours, estimate)


def _result_names(function: func.FuncOp, index: int) -> Iterable:
    attrs = function.res_attrs
    if attrs is None or index >= len(attrs.data):
        return ()
    name = attrs.data[index].data.get("graph.name")
    return (name,) if name is not None else ()


def _operands(op: Operation) -> Iterable[SSAValue]:
    for inner in op.walk():
        yield from inner.operands


def _page(boxes: dict[str, _Box], edges: list[tuple[str, str]], rows: list[PlacedNode], totals: dict[str, int],
          colours: dict[str, str], estimate: ProgramEstimate | None) -> str:
    width = max((b.order for b in boxes.values()), default=0) + 1
    depth = max((b.layer for b in boxes.values()), default=0) + 1
    svg_w = int(2 * MARGIN + width * (BOX_W + GAP_X))
    svg_h = int(2 * MARGIN + depth * (BOX_H + GAP_Y))

    def x(b: _Box) -> float:
        return MARGIN + b.order * (BOX_W + GAP_X)

    def y(b: _Box) -> float:
        return MARGIN + b.layer * (BOX_H + GAP_Y)

    e = html.escape
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{svg_w}" height="{svg_h}" '
             f'viewBox="0 0 {svg_w} {svg_h}" role="img" aria-label="partition graph">']
    for a, b in edges:
        p, q = boxes[a], boxes[b]
        x1, y1, x2, y2 = x(p) + BOX_W / 2, y(p) + BOX_H, x(q) + BOX_W / 2, y(q)
        mid = (y1 + y2) / 2
        parts.append(f'<path class="edge" d="M{x1:.0f},{y1:.0f} C{x1:.0f},{mid:.0f} {x2:.0f},{mid:.0f} '
                     f'{x2:.0f},{y2:.0f}"/>')
    for b in boxes.values():
        kind = "node" if b.place in ("mlip", "host") else "io"
        label = b.label if len(b.label) <= 24 else f"{b.label[:11]}…{b.label[-11:]}"
        parts.append(
            f'<g class="{kind}" data-name="{e(b.id)}" data-place="{e(b.place)}" data-subgraph="{e(b.subgraph)}">'
            f'<title>{e(b.title)}</title>'
            f'<rect x="{x(b):.0f}" y="{y(b):.0f}" width="{BOX_W}" height="{BOX_H}" rx="5" fill="{b.colour}"/>'
            f'<text x="{x(b) + BOX_W / 2:.0f}" y="{y(b) + BOX_H / 2 + 4:.0f}">{e(label)}</text></g>')
    parts.append("</svg>")
    legend = [f'<span class="key"><i style="background:{c}"></i>{e(s)} (MLIP)</span>' for s, c in colours.items()]
    legend.append(f'<span class="key"><i style="background:{HOST_COLOUR}"></i>host</span>')
    count = totals["nodes"]
    summary = (f"{count} nodes: {totals['mlip']} on MLIP, {totals['host']} on host; "
               f"{totals['subgraphs']} subgraph{'s' if totals['subgraphs'] != 1 else ''}")
    estimate_block = f"<pre>{e(estimate_text(estimate))}</pre>" if estimate is not None else ""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>mrvl placement report</title>',
        f"<style>{_CSS}</style></head><body>",
        "<h1>Placement report</h1>",
        f'<p class="summary">{e(summary)}</p>',
        f'<p class="legend">{"".join(legend)}</p>',
        '<p class="hint">Hover a node for where it runs, why, and its estimated time.</p>',
        f'<div class="graph">{"".join(parts)}</div>',
        estimate_block,
        f"<script>{_SCRIPT}</script>",
        "</body></html>",
        "",
    ])


_CSS = (
    "body{font:14px system-ui,sans-serif;margin:16px;color:#222}"
    "h1{font-size:18px;margin:0 0 8px}"
    ".key{display:inline-block;margin-right:14px}"
    ".key i{display:inline-block;width:12px;height:12px;margin-right:4px;border:1px solid #555;vertical-align:-1px}"
    "pre{font-size:12px;background:#f6f6f6;padding:8px;overflow:auto}"
    ".graph{overflow:auto;border:1px solid #ddd}"
    ".edge{fill:none;stroke:#888;stroke-width:1.2}"
    "g rect{stroke:#333;stroke-width:1}"
    "g.io rect{stroke-dasharray:3 2}"
    "g:hover rect{stroke-width:3}"
    "text{font:11px system-ui,sans-serif;text-anchor:middle;pointer-events:none}"
)

# Marks each drawn box with its rendered size, so a headless browser's DOM dump shows that
# the page laid out (the test reads data-rendered).
_SCRIPT = (
    "for(const g of document.querySelectorAll('g.node,g.io')){"
    "const r=g.querySelector('rect').getBBox();g.setAttribute('data-rendered',r.width>0&&r.height>0?'1':'0');}"
    "document.body.setAttribute('data-nodes',document.querySelectorAll('g.node').length);"
)
