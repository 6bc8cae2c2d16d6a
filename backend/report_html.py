"""`-t placement-report{format=html}` and the bundle's `report.html`: a picture of the partition.

One self-contained page (inline SVG and CSS, nothing fetched at view time): the ONNX graph,
each node a box coloured by the MLIP subgraph that runs it, or grey on the host (by its
stage, in a module cut into pipeline stages: `mrvl-compile --stages`); hovering a box
shows (SVG `<title>`) where it runs, why, and its estimated time. Below the picture, the
totals and the latency estimate (`estimate_report.py`).

Layout is a small layered (Sugiyama-style) one, no Graphviz needed: each node goes on the
layer after its deepest predecessor (longest path from the inputs), then a few sweeps order
each layer by the mean position of its neighbours on the layer before (down) and after
(up), the barycentric heuristic, which keeps edges short and rarely crossing.

The page renders the report model (`report_model.py`), whose graph joins ONNX nodes through
what the IR computes: a value made by an op without a name (a layout transpose), a subgraph
argument or a `cpu.call_mlip` result leads back to the nodes that made it.
"""

import html
from collections import deque
from dataclasses import dataclass

from mrvl.backend.estimate_report import estimate_text
from mrvl.backend.report_model import Estimate, Node, Report
from mrvl.target.cost_model import duration

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
    ready = deque(b for b in boxes if indegree[b] == 0)
    topological: list[object] = []
    while ready:
        b = ready.popleft()
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


def _title(node: Node) -> str:
    stage = [f"stage {node.stage}"] if node.stage is not None else []
    lines = [f"{node.name} ({node.op_type or 'fused'})", f"runs on {node.runs_on}", *stage, *node.reasons]
    if node.estimate is not None:
        lines.append(node.estimate.describe())
    return "\n".join(lines)


def render_html(report: Report) -> str:
    """The page of `report` (see the module doc)."""
    symbols = list(dict.fromkeys(node.subgraph for node in report.nodes if node.subgraph is not None))
    colours = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(symbols)}
    stages = sorted({node.stage for node in report.nodes if node.stage is not None})
    if stages:  # a module cut into pipeline stages: coloured by stage
        colours = {f"stage {k}": PALETTE[k % len(PALETTE)] for k in stages}
    boxes: dict[str, _Box] = {}
    for node in report.nodes:
        colour = (colours[f"stage {node.stage}"] if node.stage is not None
                  else colours.get(node.subgraph or "", HOST_COLOUR if node.place == "host" else PALETTE[-1]))
        time = duration(node.estimate.seconds) if node.estimate is not None else ""
        detail = " · ".join(d for d in (node.op_type or "fused", time) if d)
        boxes[node.name] = _Box(node.name, node.name, detail, _title(node), colour, node.place, node.subgraph or "")
    graph = report.graph
    for name in graph.inputs:
        box_id = f"input:{name}"
        boxes[box_id] = _Box(box_id, name, "input", f"graph input {name}", IO_COLOUR, "input", "")
    for output in graph.outputs:
        boxes[output.id] = _Box(output.id, output.label, "output", f"graph output {output.label}", IO_COLOUR, "output",
                                "")
    edges = list(graph.edges)
    routes = _layout(boxes, edges)
    return _page(boxes, edges, routes, report.placement_totals, colours, report.estimate, bool(stages))


def _page(boxes: dict[str, _Box], edges: list[tuple[str, str]], routes: dict[tuple[str, str], list[tuple[int, int]]],
          totals: dict[str, int], colours: dict[str, str], estimate: Estimate | None, staged: bool) -> str:
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
    legend = [f'<span class="key"><i style="background:{c}"></i>{e(s)}{"" if staged else " (MLIP)"}</span>'
              for s, c in colours.items()]
    if not staged:
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
