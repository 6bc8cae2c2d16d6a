"""Structural checks and helpers on ONNX graphs: names, subgraphs, topological order."""

import heapq

import onnx
from onnx import AttributeProto

from mrvl_dialect.errors import CompileError


def node_label(node: onnx.NodeProto) -> str:
    """How messages name a node: `node 'conv1' (Conv)`."""
    op_type = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"
    return f"node '{node.name}' ({op_type})"


def subgraphs(node: onnx.NodeProto) -> list[onnx.GraphProto]:
    if not node.attribute:  # most nodes: no attribute to look at
        return []
    graphs = []
    for a in node.attribute:
        if a.type == AttributeProto.GRAPH:
            graphs.append(a.g)
        elif a.type == AttributeProto.GRAPHS:
            graphs.extend(a.graphs)
    return graphs


def graph_uses(graph: onnx.GraphProto) -> set[str]:
    """Every tensor name a graph reads from enclosing scopes (its own and nested graphs')."""
    used = {o.name for o in graph.output}
    for node in graph.node:
        used.update(node.input)
        for g in subgraphs(node):
            used |= graph_uses(g)
    local = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    local |= {out for n in graph.node for out in n.output}
    return used - local


def node_reads(node: onnx.NodeProto) -> list[str]:
    """Tensor names a node reads, through its inputs or from inside its subgraphs."""
    names = [name for name in node.input if name]
    for g in subgraphs(node):
        names.extend(sorted(graph_uses(g)))
    return names


def check_names(graph: onnx.GraphProto) -> None:
    """Refuse names that are not UTF-8 (protobuf does not check string fields on read)."""
    named = [("graph", graph.name)]
    kinds = (("graph input", graph.input), ("graph output", graph.output), ("initializer", graph.initializer))
    for kind, values in kinds:
        named += [(f"{kind} #{i}", value.name) for i, value in enumerate(values) if not isinstance(value.name, str)]
    for i, node in enumerate(graph.node):
        names = (node.name, node.op_type, node.domain, *node.input, *node.output, *(a.name for a in node.attribute))
        if not all(isinstance(name, str) for name in names):
            named += [(f"node #{i}", name) for name in names]
        for g in subgraphs(node):
            check_names(g)
    for where, name in named:
        if not isinstance(name, str):
            raise CompileError(where, f"name {name!r} is not valid UTF-8")


def name_nodes(graph: onnx.GraphProto) -> None:
    """Give unnamed nodes a name, `<op_type>_<index>`, so that every message can name them."""
    taken = {n.name for n in graph.node if n.name}
    for i, node in enumerate(graph.node):
        if not node.name:
            name = f"{node.op_type}_{i}"
            while name in taken:
                name += "_"
            node.name = name
            taken.add(name)
        for g in subgraphs(node):
            name_nodes(g)


def _cycle_error(graph: onnx.GraphProto, waiting_on: list[int], producer: dict[str, int]) -> CompileError:
    """Name a node on a cycle: walk back from a stuck node through stuck producers."""
    path: list[int] = []
    node = next(i for i, n in enumerate(waiting_on) if n > 0)
    while node not in path:
        path.append(node)
        node = next(
            producer[name]
            for name in node_reads(graph.node[node])
            if name in producer and waiting_on[producer[name]] > 0
        )
    cycle = path[path.index(node):][::-1]  # in data-flow order
    first = cycle.index(min(cycle))  # start at the node that comes first in the file
    cycle = cycle[first:] + cycle[:first]
    names = " -> ".join(f"'{graph.node[i].name}'" for i in [*cycle, cycle[0]])
    return CompileError(node_label(graph.node[cycle[0]]), f"the graph has a cycle: {names}")


def sort_topologically(graph: onnx.GraphProto, outer: set[str] = frozenset()) -> None:
    """Order the nodes so that each comes after its producers (stable for sorted graphs).

    Raises a CompileError naming a node whose input nothing defines, or one on a cycle.
    """
    initializers: set[str] = set()
    for t in graph.initializer:
        if t.name in initializers:
            raise CompileError(f"initializer '{t.name}'", "is defined twice")
        initializers.add(t.name)
    defined = {i.name for i in graph.input} | initializers | set(outer)
    producer: dict[str, int] = {}
    for i, node in enumerate(graph.node):
        for name in node.output:
            if not name:
                continue
            if name in producer or name in defined:
                first = node_label(graph.node[producer[name]]) if name in producer else "the graph"
                raise CompileError(node_label(node), f"output '{name}' is already defined by {first}")
            producer[name] = i
    waiting_on = [0] * len(graph.node)
    consumers: list[list[int]] = [[] for _ in graph.node]
    for i, node in enumerate(graph.node):
        for name in dict.fromkeys(node_reads(node)):
            if name in producer:
                waiting_on[i] += 1
                consumers[producer[name]].append(i)
            elif name not in defined:
                raise CompileError(
                    node_label(node),
                    f"input '{name}' is not a graph input, an initializer or any node's output",
                )
    for i, output in enumerate(graph.output):
        if not output.name:
            raise CompileError(f"graph output #{i}", "has no name")
        if output.name not in producer and output.name not in defined:
            raise CompileError(
                f"graph output '{output.name}'", "is not a graph input, an initializer or any node's output"
            )
    ready = [i for i, n in enumerate(waiting_on) if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for j in consumers[i]:
            waiting_on[j] -= 1
            if waiting_on[j] == 0:
                heapq.heappush(ready, j)
    if len(order) < len(graph.node):
        raise _cycle_error(graph, waiting_on, producer)
    if order != list(range(len(graph.node))):
        nodes = [graph.node[i] for i in order]
        copies = [onnx.NodeProto() for _ in nodes]
        for copy, node in zip(copies, nodes):
            copy.CopyFrom(node)
        del graph.node[:]
        graph.node.extend(copies)
    for node in graph.node:
        for g in subgraphs(node):
            sort_topologically(g, defined | set(producer))
