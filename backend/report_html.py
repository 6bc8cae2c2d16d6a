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
from mrvl.target.cost_model import CostModel, ProgramEstimate, duration, host_work, mlip_work
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import location_nodes
from mrvl_dialect.mrvl import SubgraphOp, YieldOp
from mrvl_dialect.placement_file import PlacedNode
from mrvl.target.options import TargetOptions

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 176, 36, 14, 24, 12
PALETTE = ("#8fbbe3", "#ffb26b", "#8fd18a", "#d6a5cf", "#f1d36b", "#86c9c2", "#ffb3be", "#d2b49f", "#f09a98",
           "#b8b8f0", "#c6e08a", "#9fd8f0")
"""Light fills, one a subgraph, under black text."""
HOST_COLOUR = "#e4e4e4"
IO_COLOUR = "#ffffff"


@dataclass
class _Box:
    id: str
    label: str
    detail: str
    """The second line: op type and estimated time."""
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
        if op.properties.get("alias") is not None:
            seconds, where = 0.0, "aliases its input: no code"
        elif op in by_op:
            seconds, where = by_op[op], f"host kernel {host_op_label(op)}"
        elif isinstance(subgraph := _subgraph_of(op), SubgraphOp):
            target = TargetOptions.of_subgraph(subgraph)  # the options it was compiled with
            seconds = model.mlip_estimate(mlip_work([op], (), (), ()), target).compute_s
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


def _layout(boxes: dict[str, _Box], edges: list[tuple[str, str]]) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Longest-path layers, then barycentric ordering sweeps (`_Box.layer`, `_Box.order`).

    An edge spanning several layers gets a placeholder on each layer it crosses, ordered
    like a box, so it runs beside the boxes rather than through them. Returns each such
    edge's placeholders as (layer, order), top to bottom."""
    preds: dict[object, list[object]] = {b: [] for b in boxes}
    succs: dict[object, list[object]] = {b: [] for b in boxes}
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    indegree = {b: len(p) for b, p in preds.items()}
    ready = [b for b in boxes if indegree[b] == 0]
    topological: list[object] = []
    while ready:
        b = ready.pop(0)
        topological.append(b)
        for s in succs[b]:
            indegree[s] -= 1
            if indegree[s] == 0:
                ready.append(s)
    placed = set(topological)
    topological += [b for b in boxes if b not in placed]  # a cycle (never in a valid module)
    layer: dict[object, int] = {}
    for b in topological:
        layer[b] = max((layer[p] + 1 for p in preds[b] if p in layer), default=0)
    # Placeholders: the edge a -> b becomes a -> (a, b, 1) -> ... -> b.
    routes: dict[tuple[str, str], list[object]] = {}
    items = list(topological)
    for a, b in edges:
        if layer[b] - layer[a] > 1:
            chain = [(a, b, k) for k in range(1, layer[b] - layer[a])]
            for k, d in enumerate(chain, 1):
                layer[d] = layer[a] + k
                items.append(d)
            routes[(a, b)] = chain
            hops = [a, *chain, b]
            succs[a].remove(b)
            preds[b].remove(a)
            for u, v in zip(hops, hops[1:]):
                succs.setdefault(u, []).append(v)
                preds.setdefault(v, []).append(u)
    layers: dict[int, list[object]] = {}
    for item in items:
        layers.setdefault(layer[item], []).append(item)
    order = {item: i for row in layers.values() for i, item in enumerate(row)}
    depth = max(layers, default=0)
    for sweep in range(6):
        down = sweep % 2 == 0
        neighbours = preds if down else succs
        for level in (range(1, depth + 1) if down else range(depth - 1, -1, -1)):
            row = layers[level]

            def centre(item: object) -> float:
                near = [order[n] for n in neighbours.get(item, ())]
                return sum(near) / len(near) if near else order[item]

            row.sort(key=centre)
            order.update((item, i) for i, item in enumerate(row))
    for name, box in boxes.items():
        box.layer, box.order = layer[name], order[name]
    return {edge: [(layer[d], order[d]) for d in chain] for edge, chain in routes.items()}


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
        time = times.get(row.name)
        detail = " · ".join(d for d in (row.op_type or "fused", time.split(" (")[0].removeprefix("estimated ")
                                        if time else "") if d)
        boxes[row.name] = _Box(row.name, row.name, detail, _title(row, time), colour, row.place, row.subgraph or "")
    edges: dict[tuple[str, str], None] = {}
    resolver = _Edges(module, carriers)
    for op, op_names in carriers.items():
        for a, b in zip(op_names, op_names[1:]):
            edges[(a, b)] = None
        for value in _operands(op):
            for producer in resolver.producers(value):
                if producer.startswith("input:") and producer not in boxes:
                    boxes[producer] = _Box(producer, producer.removeprefix("input:"), "input",
                                           f"graph input {producer[6:]}", IO_COLOUR, "input", "")
                if producer != op_names[0] and producer in boxes:
                    edges[(producer, op_names[0])] = None
    for function in _functions(module):
        terminator = function.body.block.last_op
        for i, value in enumerate(terminator.operands if terminator is not None else ()):
            out = f"output:{function.sym_name.data}:{i}"
            label = next((a.data for a in _result_names(function, i)), f"output {i}")
            boxes[out] = _Box(out, label, "output", f"graph output {label}", IO_COLOUR, "output", "")
            for producer in resolver.producers(value):
                if producer in boxes:
                    edges[(producer, out)] = None
    edge_list = [e for e in edges if e[0] in boxes and e[1] in boxes and e[0] != e[1]]
    routes = _layout(boxes, edge_list)
    return _page(boxes, edge_list, routes, rows, totals, colours, estimate)


def _result_names(function: func.FuncOp, index: int) -> Iterable:
    attrs = function.res_attrs
    if attrs is None or index >= len(attrs.data):
        return ()
    name = attrs.data[index].data.get("graph.name")
    return (name,) if name is not None else ()


def _operands(op: Operation) -> Iterable[SSAValue]:
    for inner in op.walk():
        yield from inner.operands


def _page(boxes: dict[str, _Box], edges: list[tuple[str, str]], routes: dict[tuple[str, str], list[tuple[int, int]]],
          rows: list[PlacedNode], totals: dict[str, int], colours: dict[str, str],
          estimate: ProgramEstimate | None) -> str:
    width = max([b.order for b in boxes.values()] + [o for route in routes.values() for _, o in route], default=0) + 1
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
        # Down from a's bottom, through each placeholder's slot, into b's top.
        points = [(x(p) + BOX_W / 2, y(p) + BOX_H)]
        for level, slot in routes.get((a, b), ()):
            cx, top = MARGIN + slot * (BOX_W + GAP_X) + BOX_W / 2, MARGIN + level * (BOX_H + GAP_Y)
            points += [(cx, top), (cx, top + BOX_H)]
        points.append((x(q) + BOX_W / 2, y(q)))
        d = [f"M{points[0][0]:.0f},{points[0][1]:.0f}"]
        for i, (x2, y2) in enumerate(points[1:], 1):
            x1, y1 = points[i - 1]
            if i % 2:  # between layers: a curve
                mid = (y1 + y2) / 2
                d.append(f"C{x1:.0f},{mid:.0f} {x2:.0f},{mid:.0f} {x2:.0f},{y2:.0f}")
            else:  # across a placeholder's layer: straight down
                d.append(f"L{x2:.0f},{y2:.0f}")
        parts.append(f'<path class="edge" d="{" ".join(d)}"/>')
    for i, b in enumerate(boxes.values()):
        kind = "node" if b.place in ("mlip", "host") else "io"
        label = b.label if len(b.label) <= 26 else f"{b.label[:12]}…{b.label[-12:]}"
        parts.append(
            f'<g class="{kind}" id="n{i}" data-name="{e(b.id)}" data-place="{e(b.place)}" '
            f'data-subgraph="{e(b.subgraph)}"><title>{e(b.title)}</title>'
            f'<rect x="{x(b):.0f}" y="{y(b):.0f}" width="{BOX_W}" height="{BOX_H}" rx="5" fill="{b.colour}"/>'
            f'<text x="{x(b) + BOX_W / 2:.0f}" y="{y(b) + 15:.0f}">{e(label)}</text>'
            f'<text class="detail" x="{x(b) + BOX_W / 2:.0f}" y="{y(b) + 29:.0f}">{e(b.detail)}</text></g>')
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
        '<div class="head"><h1>Placement report</h1>',
        f'<p class="summary">{e(summary)}{e(" · " + estimate.line()) if estimate is not None else ""}</p>',
        f'<p class="legend">{"".join(legend)}</p></div>',
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
    ".head{position:sticky;top:0;background:#fff;padding:4px 0;border-bottom:1px solid #ddd;z-index:1}"
    ".key{display:inline-block;margin-right:14px}"
    ".key i{display:inline-block;width:12px;height:12px;margin-right:4px;border:1px solid #555;vertical-align:-1px}"
    "pre{font-size:12px;background:#f6f6f6;padding:8px;overflow:auto}"
    ".graph{overflow:auto;border:1px solid #ddd}"
    ".edge{fill:none;stroke:#888;stroke-width:1.2}"
    "g rect{stroke:#555;stroke-width:1}"
    "g[data-place=host] rect{stroke-dasharray:5 2}"
    "g.io rect{stroke-dasharray:3 2}"
    "g:hover rect{stroke-width:3}"
    "text{font:11px system-ui,sans-serif;text-anchor:middle;pointer-events:none}"
    "text.detail{font-size:9.5px;fill:#333}"
)

# Marks each drawn box with its rendered size, so a headless browser's DOM dump shows that
# the page laid out (the test reads data-rendered).
_SCRIPT = (
    "for(const g of document.querySelectorAll('g.node,g.io')){"
    "const r=g.querySelector('rect').getBBox();g.setAttribute('data-rendered',r.width>0&&r.height>0?'1':'0');}"
    "document.body.setAttribute('data-nodes',document.querySelectorAll('g.node').length);"
)
