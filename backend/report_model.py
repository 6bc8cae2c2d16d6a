"""The report model: what the reports say about a module, built from the IR once.

`build_report(module, cost_model)` reads a module at any stage after `place-ops` (the whole
of it once `mrvl-pipeline` and `mrvl-host-pipeline` have run, as `mrvl-compile` does) into
frozen dataclasses, which the reports render and nothing else reads:

- `Node`: every ONNX node, where it runs and why (`placement_file.placed_nodes`), with its
  layer in the subgraph's nodes JSON, the arithmetic a QDQ model's node ran in, and its
  estimated time;
- `Subgraph`: what each MLIP subgraph's JSON holds and what one run computes on it;
- `Host`: the host's kernels, its weights file and its workspace;
- `Estimate`: the latency of one run (`target/cost_model.py`), once lowered;
- `Graph`: the edges between nodes, and the graph's inputs and outputs, for the picture.

The renderers: `compile_report.py` (`report.txt`, `report.json`, the CSV tables and the
summary `mrvl-compile` prints), `placement_report.py` (`-t placement-report`),
`estimate_report.py` (the estimate's table) and `report_html.py` (`report.html`).

Counts are taken from the IR the JSON emitter serialises, so a subgraph's `layers` is the
number of `tvm_op` nodes in its nodes file and `weight_bytes` the float32 bytes of its
consts file (a constant two layers read counts twice, as the file holds it twice). A
subgraph runs `batch` images a call and `calls` calls a run: more than one when the
model's batch is over MLIP's limit and runs in chunks (`chunk-mrvl-batch`); its MACs count
every call, its bytes one call's.

MACs (multiply-accumulates) count what convolutions and matrix products compute: a conv
output element costs its kernel volume times its input channels per group, a matrix
product element its inner dimension; pools, sums and data movement count 0.
`activation_bytes` is the float32 bytes of a subgraph's inputs and of every tensor its
layers produce: the feature-map memory MLIP reads and writes in one run.
"""

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue

from mrvl.backend.c_emitter import weight_constants, weights_file_bytes
from mrvl.backend.json_emitter import layers_in_visit_order, subgraph_batch
from mrvl.backend.mlip_json.layers import LAYER_PREFIX, const_elements, is_layer
from mrvl.target.cost_model import (
    CostModel,
    HostWork,
    SubgraphEstimate,
    duration,
    elements,
    estimate_program,
    host_work,
    macs,
    mlip_work,
)
from mrvl.target.options import TargetOptions
from mrvl_dialect import cpu, mrvl
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import location_nodes, op_label
from mrvl_dialect.mrvl import LAYOUT_REASON_ATTR, SubgraphOp, YieldOp
from mrvl_dialect.placement_file import PlacedNode, placed_nodes

FLOAT32_BYTES = 4
"""MLIP subgraphs exchange and store float32 (the JSON's dtype)."""
HOST_PRECISION = "fp32"
"""The host kernels' arithmetic."""
HOST_INT8_PRECISION = "int8"
"""The arithmetic of the host's int8 conv kernel (`cpu.qlinear_conv`)."""


@dataclass(frozen=True)
class NodeEstimate:
    """A node's estimated time: its host kernel's, shared by the nodes fused into it, or its
    MLIP layer's compute."""

    seconds: float
    basis: str
    """What the time is of: `host kernel <label>`, `MLIP layer compute`, ..."""
    shared_by: int
    """The nodes the op that does this node's work stands for (1 unless fused)."""

    def describe(self) -> str:
        """`estimated 1.2 us (host kernel conv1 (Conv) (cpu.conv), shared by 2 nodes)`."""
        shared = f", shared by {self.shared_by} nodes" if self.shared_by > 1 else ""
        return f"estimated {duration(self.seconds)} ({self.basis}{shared})"


@dataclass(frozen=True)
class Node(PlacedNode):
    """One ONNX node: where it runs and why, and what the compile made of it."""

    layer: str | None = None
    """The node's layer in `<subgraph>-nodes.json` (`tvmgen_mrvl_main_3`)."""
    quantized: str | None = None
    """For a node the QDQ model quantized, the arithmetic it ran in: int8 (an int8 MLIP
    layer, with the model's scales), fp16 (an fp16 MLIP layer) or fp32 (on the host, between
    QuantizeLinear and DequantizeLinear kernels); None for a node the model left float."""
    estimate: NodeEstimate | None = None
    stage: int | None = None
    """The pipeline stage that runs the node, in a module cut into stages (`split-stages`)."""


@dataclass(frozen=True)
class Subgraph:
    """One MLIP subgraph: what its JSON holds, what one run of the model computes on it
    (`macs`, every call) and what one call moves (the bytes)."""

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
    target: TargetOptions
    """The options it is compiled with (`mrvl-tmlc`'s)."""

    @property
    def precision(self) -> str:
        """The arithmetic of its layers: the `quantize` option, fp16 or int8."""
        return self.target.quantize


@dataclass(frozen=True)
class LayoutTranspose:
    """A layout transpose left on the host, and why convert-layout left it there."""

    label: str
    """The name of the value it gives (compiler-made: no ONNX node to name it by)."""
    elements: int
    reason: str


@dataclass(frozen=True)
class Host:
    """The Arm host's part: its kernels, their MACs, its weights file, its workspace and the
    layout transposes among its kernels."""

    kernels: int
    macs: int
    weight_bytes: int
    arena_bytes: int
    transposes: tuple[LayoutTranspose, ...] = ()


@dataclass(frozen=True)
class HostKernelEstimate:
    """One host kernel's estimated time, named as `mrvl-run --profile` names it."""

    label: str
    work: HostWork
    seconds: float


@dataclass(frozen=True)
class Estimate:
    """One run's estimated latency: each subgraph (times its calls) and each host kernel."""

    subgraphs: tuple[SubgraphEstimate, ...]
    kernels: tuple[HostKernelEstimate, ...]
    host_source: str
    """Where the host rates come from: `host assumed`, `host from profile.json`, ..."""

    @property
    def mlip_seconds(self) -> float:
        return sum(s.estimate.seconds * s.calls for s in self.subgraphs)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.subgraphs)

    @property
    def host_seconds(self) -> float:
        return sum(k.seconds for k in self.kernels)

    def line(self) -> str:
        """`estimated 8.1 ms: MLIP 5.2 ms in 3 calls, host 2.9 ms (host from profile.json)`."""
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        return (f"estimated {duration(self.mlip_seconds + self.host_seconds)}: MLIP {duration(self.mlip_seconds)} "
                f"in {calls}, host {duration(self.host_seconds)} ({self.host_source})")


@dataclass(frozen=True)
class Output:
    """A result of a function: its picture's box and the ONNX name it has."""

    id: str
    """`output:<function>:<index>`."""
    label: str


@dataclass(frozen=True)
class Graph:
    """How the nodes connect, through whatever the IR computes between them (layout
    transposes, subgraph arguments, calls): edges between node names, `input:<name>` and
    `output:...` ids."""

    inputs: tuple[str, ...]
    """The graph inputs that feed nodes, in the order found."""
    outputs: tuple[Output, ...]
    edges: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Report:
    """Everything the reports say about one module (see the module doc)."""

    nodes: tuple[Node, ...]
    subgraphs: tuple[Subgraph, ...]
    host: Host
    estimate: Estimate | None
    """None before `lower-to-cpu`: only `cpu` kernels have an estimate."""
    graph: Graph

    @property
    def placement_totals(self) -> dict[str, int]:
        """Node counts by place, and the number of MLIP subgraphs."""
        return {
            "nodes": len(self.nodes),
            "mlip": sum(node.place == "mlip" for node in self.nodes),
            "host": sum(node.place == "host" for node in self.nodes),
            "subgraphs": len(self.subgraphs),
        }

    @property
    def totals(self) -> dict[str, object]:
        """The compile's totals: nodes by place, MACs, layers and bytes."""
        placement = self.placement_totals
        mlip_macs = sum(s.macs for s in self.subgraphs)
        all_macs = mlip_macs + self.host.macs
        return {
            "nodes": placement["nodes"],
            "mlip_nodes": placement["mlip"],
            "host_nodes": placement["host"],
            "subgraphs": placement["subgraphs"],
            "macs": all_macs,
            "mlip_macs": mlip_macs,
            "mlip_macs_percent": round(100 * mlip_macs / all_macs, 2) if all_macs else None,
            "mlip_layers": sum(s.layers for s in self.subgraphs),
            "mlip_weight_bytes": sum(s.weight_bytes for s in self.subgraphs),
            "host_weight_bytes": self.host.weight_bytes,
            "host_arena_bytes": self.host.arena_bytes,
        }


# --- Building --------------------------------------------------------------------------------


def build_report(module: ModuleOp, cost_model: CostModel) -> Report:
    """The report of `module` (see the module doc), its estimates from `cost_model`."""
    placed = placed_nodes(module)
    names = {node.name for node in placed}
    subgraphs: list[SubgraphOp] = []
    functions: list[func.FuncOp] = []
    cpu_ops: list[cpu.CpuOp] = []
    carriers: dict[Operation, list[str]] = {}
    quantized: dict[str, str] = {}
    callers: list[tuple[Operation, str]] = []
    for op in module.walk():
        if isinstance(op, SubgraphOp):
            subgraphs.append(op)
        elif isinstance(op, func.FuncOp):
            functions.append(op)
        elif isinstance(op, cpu.CpuOp):
            cpu_ops.append(op)
        nodes = location_nodes(op.location)
        if mrvl.QUANTIZED_ATTR in op.attributes and not isinstance(op, SubgraphOp):
            subgraph = op.parent_op()
            precision = (subgraph.quantize.data if isinstance(subgraph, SubgraphOp)
                         else HOST_INT8_PRECISION if isinstance(op, cpu.QLinearConvOp) else HOST_PRECISION)
            for node in nodes:
                quantized.setdefault(node.name, precision)
        if isinstance(op, ConstantOp):
            continue
        if found := [node.name for node in nodes if node.name in names]:
            carriers[op] = list(dict.fromkeys(found))
        callers += [(op, attr.root_reference.data) for attr in (*op.properties.values(), *op.attributes.values())
                    if isinstance(attr, SymbolRefAttr)]

    program = estimate_program(cpu_ops, subgraphs, cost_model) if cpu_ops else None
    estimate = None if program is None else Estimate(
        tuple(program.subgraphs),
        tuple(HostKernelEstimate(op_label(h.op), h.work, h.seconds) for h in program.host_ops),
        program.host_source)
    kernel_seconds = {h.op: h.seconds for h in program.host_ops} if program is not None else {}
    times = _node_estimates(carriers, kernel_seconds, cost_model)

    estimated = {s.symbol: s for s in program.subgraphs} if program is not None else {}
    layers: dict[tuple[str, str], str] = {}
    for subgraph in subgraphs:
        layers |= _layers_by_node(subgraph)
    stages = _stages(carriers, callers)
    report_nodes = tuple(
        Node(**vars(node),
             layer=layers.get((node.subgraph, node.name)) if node.subgraph is not None else None,
             quantized=quantized.get(node.name), estimate=times.get(node.name),
             stage=stages.get(node.subgraph or "", stages.get(node.name)))
        for node in placed)
    host_ops = [op for op in cpu_ops if not isinstance(op, cpu.CallMlipOp)]
    host = Host(len(host_ops), sum(macs(op) for op in host_ops), _weights_file_bytes(functions),
                sum(_workspace_bytes(function) for function in functions),
                tuple(LayoutTranspose(op.results[0].name_hint or op_label(op), elements(op.results[0]), reason.data)
                      for op in host_ops
                      if isinstance(reason := op.attributes.get(LAYOUT_REASON_ATTR), StringAttr)))
    graph = _graph(placed, functions, subgraphs, carriers, callers)
    return Report(report_nodes, tuple(_subgraph(op, estimated.get(op.sym_name.data)) for op in subgraphs), host,
                  estimate, graph)


def _stages(carriers: dict[Operation, list[str]], callers: list[tuple[Operation, str]]) -> dict[str, int]:
    """The stage of each node and subgraph symbol, in a module cut into stages: that of
    the op carrying the node, or calling the subgraph."""
    stages: dict[str, int] = {}
    for op, names in [*carriers.items(), *((op, [symbol]) for op, symbol in callers)]:
        if isinstance(stage := op.attributes.get(mrvl.STAGE_ATTR), IntegerAttr):
            stages |= dict.fromkeys(names, stage.value.data)
    return stages


def _subgraph(subgraph: SubgraphOp, estimated: SubgraphEstimate | None) -> Subgraph:
    """`subgraph`'s entry; `estimated` says how often one run calls it (none: not called)
    and what one call computes."""
    symbol = subgraph.sym_name.data
    block = subgraph.body.block
    layers: list[Operation] = []
    others = 0
    for op in block.ops:
        if is_layer(op):
            layers.append(op)
        elif not isinstance(op, ConstantOp):
            others += 1
    calls = estimated.calls if estimated is not None else 0
    if estimated is not None and others == 1:  # only the terminator: the estimate's work is the layers'
        layer_macs = estimated.work.macs + estimated.work.depthwise_macs
    else:
        layer_macs = sum(macs(op) for op in layers)
    weights = sum(const_elements(op) for op in layers) * FLOAT32_BYTES
    inputs = sum(elements(arg) for arg in block.args) * FLOAT32_BYTES
    produced = sum(elements(op.results[0]) for op in layers) * FLOAT32_BYTES
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    outputs = sum(elements(v) for v in terminator.values) * FLOAT32_BYTES
    return Subgraph(symbol, len(layers), subgraph_batch(subgraph), calls, calls * layer_macs,
                    weights, inputs + produced, inputs, outputs, TargetOptions.of_subgraph(subgraph))


def _layers_by_node(subgraph: SubgraphOp) -> dict[tuple[str, str], str]:
    """(subgraph, ONNX node name) -> the nodes JSON layer it is part of (the first, for a node
    several layers stand for); none before `fuse-mrvl` has made every op a layer."""
    block = subgraph.body.block
    if not all(is_layer(op) for op in block.ops if not isinstance(op, ConstantOp | YieldOp)):
        return {}
    symbol = subgraph.sym_name.data
    found: dict[tuple[str, str], str] = {}
    for j, op in enumerate(layers_in_visit_order(block)):
        for node in location_nodes(op.location):
            found.setdefault((symbol, node.name), f"{LAYER_PREFIX}{j}")
    return found


def _weights_file_bytes(functions: list[func.FuncOp]) -> int:
    """The size of the host's weights file: every constant a function reads."""
    return weights_file_bytes(_bytes(c.output) for function in functions for c in weight_constants(function.body.block))


def _bytes(value: SSAValue) -> int:
    assert isinstance(value.type, TensorType)
    return value.type.element_count() * max(1, value.type.element_type.bitwidth // 8)


def _workspace_bytes(function: func.FuncOp) -> int:
    workspace = function.attributes.get(cpu.WORKSPACE)
    return workspace.size.data if isinstance(workspace, cpu.WorkspaceAttr) else 0


def _node_estimates(carriers: dict[Operation, list[str]], kernel_seconds: dict[Operation, float],
                    cost_model: CostModel) -> dict[str, NodeEstimate]:
    """Each node's estimated time: the first op that stands for it decides."""
    times: dict[str, NodeEstimate] = {}
    targets: dict[Operation, TargetOptions] = {}
    for op, names in carriers.items():
        if op.properties.get("alias") is not None:
            seconds, basis = 0.0, "aliases its input: no code"
        elif op in kernel_seconds:
            seconds, basis = kernel_seconds[op], f"host kernel {op_label(op)}"
        elif isinstance(subgraph := _enclosing(op), SubgraphOp):
            if (target := targets.get(subgraph)) is None:  # the options it was compiled with
                target = targets[subgraph] = TargetOptions.of_subgraph(subgraph)
            seconds = cost_model.mlip_estimate(mlip_work([op], (), (), ()), target).compute_s
            basis = "MLIP layer compute"
        else:
            seconds, basis = cost_model.host_seconds(host_work(op)), "as a host kernel"
        for name in names:
            times.setdefault(name, NodeEstimate(seconds, basis, len(names)))
    return times


def _enclosing(op: Operation) -> Operation | None:
    """The subgraph or function `op` is in."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, (SubgraphOp, func.FuncOp)):
        parent = parent.parent_op()
    return parent


# --- The graph ---------------------------------------------------------------------------------


class _Producers:
    """The nodes (by name, or `input:<name>`) that made each value, across subgraph boundaries:
    through ops without a node of their own, subgraph arguments and call results."""

    def __init__(self, subgraphs: list[SubgraphOp], carriers: dict[Operation, list[str]],
                 callers: list[tuple[Operation, str]]):
        self.carriers = carriers
        self.through: dict[SSAValue, list[SSAValue]] = {}
        by_symbol = {op.sym_name.data: op for op in subgraphs}
        called: set[Operation] = set()
        for op, symbol in callers:
            if symbol not in by_symbol or op in called:
                continue
            called.add(op)
            block = by_symbol[symbol].body.block
            for arg, operand in zip(block.args, op.operands):
                self.through[arg] = [operand]
            terminator = block.last_op
            if isinstance(terminator, YieldOp):
                for result, value in zip(op.results, terminator.operands):
                    self.through[result] = [value]
        self.memo: dict[SSAValue, tuple[str, ...]] = {}

    def __call__(self, value: SSAValue) -> tuple[str, ...]:
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


def _graph(placed: list[PlacedNode], functions: list[func.FuncOp], subgraphs: list[SubgraphOp],
           carriers: dict[Operation, list[str]], callers: list[tuple[Operation, str]]) -> Graph:
    """The edges between the nodes that `carriers` (each op standing for nodes, with their
    names in order) connect, and the graph's inputs and outputs."""
    drawn = {node.name for node in placed}
    inputs: dict[str, None] = {}
    edges: dict[tuple[str, str], None] = {}
    producers = _Producers(subgraphs, carriers, callers)
    for op, op_names in carriers.items():
        for a, b in zip(op_names, op_names[1:]):
            edges[(a, b)] = None
        for value in _operands(op):
            for producer in producers(value):
                if producer.startswith("input:") and producer not in drawn:
                    drawn.add(producer)
                    inputs[producer] = None
                if producer != op_names[0] and producer in drawn:
                    edges[(producer, op_names[0])] = None
    outputs = []
    for function in functions:
        terminator = function.body.block.last_op
        for i, value in enumerate(terminator.operands if terminator is not None else ()):
            name = _result_name(function, i)
            output = Output(f"output:{function.sym_name.data}:{i}", name if name is not None else f"output {i}")
            drawn.add(output.id)
            outputs.append(output)
            for producer in producers(value):
                if producer in drawn:
                    edges[(producer, output.id)] = None
    kept = tuple(e for e in edges if e[0] in drawn and e[1] in drawn and e[0] != e[1])
    return Graph(tuple(name.removeprefix("input:") for name in inputs), tuple(outputs), kept)


def _result_name(function: func.FuncOp, index: int) -> str | None:
    attrs = function.res_attrs
    if attrs is None or index >= len(attrs.data):
        return None
    name = attrs.data[index].data.get("graph.name")
    return name.data if name is not None else None


def _operands(op: Operation) -> Iterator[SSAValue]:
    for inner in op.walk():
        yield from inner.operands
