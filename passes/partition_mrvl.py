"""partition-mrvl: the ops `place-ops` put on MLIP -> `mrvl.subgraph`s called from the host.

Reads the placement protocol of `place-ops` on the ops of each `func.func`:
`"mrvl.place" = "mlip" | "host"`, on MLIP ops `"mrvl.group" = N` (the ops of one future
layer) and `"mrvl.pattern"` (its kind), on host ops `"mrvl.reasons"`. Then:

1. Regions. MLIP ops connected by SSA edges are merged into regions, fusion groups first
   and then op by op in IR order, unless a merge would create a cycle: a path that leaves
   the region through other ops (host ops or other regions) and comes back in. A region
   that is outlined must not depend on itself through the host. Any number of regions.
2. The batch. A region over MLIP's batch limit (`MAX_BATCH`) runs in chunks
   (`chunk-mrvl-batch`, after this pass) when it keeps the batch as dim 0 throughout;
   otherwise the layers that do not (a reshape that moves the batch; failing those, the
   layers over the limit) go back to the host with rule `batch.max`'s reason, whatever the
   policies, and the regions are formed again.
3. Policies (`POLICIES`, chosen by the `policies` option) send back to the host only what
   breaks them: the layers a policy names (a sum or concat that reads a subgraph input),
   after which the regions are formed again and checked again, or, for a policy about the
   region as a whole (no conv or fc in it; with `worth-the-call`, asked for by name, an MLIP
   estimate, every chunk's call counted, above the region's host time:
   `target/cost_model.py`), the region. Those ops get
   `"mrvl.place" = "host"`, a `"policy.<id>: ..."` reason appended to `"mrvl.reasons"`,
   and lose `"mrvl.group"`. A conv or fc layer is never evicted by a layer policy.
4. Outlining. Each remaining region, in IR order, becomes `mrvl.subgraph @<prefix><k>`
   after its function: arguments are the values it reads from outside (function
   arguments, host results, other subgraphs' results), results the values used outside,
   and the body holds the moved ops, with their attributes and locations, a clone of each
   `graph.constant` they read (weights stay with their layers) and `mrvl.yield`. The
   target options are the subgraph's properties. A `cpu.call_mlip` replaces the region
   where its last op was; host constants left unused are erased.

    %y = graph.Conv %x, %w {...} {"mrvl.place" = "mlip", "mrvl.group" = 0 : i64, ...}
    ->
    %y = cpu.call_mlip @mrvl_sg0(%x) : (tensor<...>) -> tensor<...>
    mrvl.subgraph @mrvl_sg0(%x: tensor<...>) -> tensor<...> attributes {mcpu = "cn10ka", ...} {
      %w = graph.constant dense_resource<w> : tensor<...>
      %y = graph.Conv %x, %w {...} {"mrvl.place" = "mlip", ...} : ...
      mrvl.yield %y : tensor<...>
    }

The cycle check follows TVM's intent; the policies are TVM's repartitioning rules
(apache/tvm `python/tvm/relay/op/contrib/mrvl.py`), with the leading-sum rule TVM meant
but never applied, and `no-trailing-reshape`: a region does not end in reshape-like layers
(reshape, batch_flatten, squeeze) whose result only the host reads; they go to the host,
where a reshape is an alias of its input (plan-host-memory), while on MLIP it is a layer.
TVM got there another way: Relay's reshape and batch_flatten have no layout inference, so its
ConvertLayout put an NHWC -> NCHW `layout_transform` in front of each, which no mrvl pattern
takes (only the FC's fused flatten does): the region ended before it, and a flatten left
alone after it was a region without compute, reverted. So SqueezeNet's closing
GlobalAveragePool -> Flatten ended TVM's subgraph at the pool. The NHWC -> NCHW transpose the
host then needs is a reshape where H = W = 1, as after a global pool (convert-layout).
"""

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from mrvl_dialect.cpu import CallMlipOp
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.mrvl import (
    GROUP_ATTR,
    PATTERN_ATTR,
    PLACE_ATTR,
    REASONS_ATTR,
    SubgraphOp,
    YieldOp,
)
from mrvl.target.cost_model import CostModel, CostModelOptions, MlipEstimate, duration, host_work, mlip_work
from mrvl_dialect.mrvl import MAX_BATCH
from mrvl.passes.chunk_mrvl_batch import batch_problem, chunking, largest_batch, over_limit, region_batch
from mrvl.passes.mlip_rules import RULES
from mrvl_dialect.graph_queries import node_label
from mrvl_dialect.locations import location_nodes
from mrvl.target.options import DEFAULT_TARGET, TargetOptions, TargetPassOptions

PASS_NAME = "partition-mrvl"
BATCH_RULE = next(r for r in RULES if r.id == "batch.max")

"""The placement attributes `place-ops` writes (see its module docstring)."""

# --- Policies ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """A region of MLIP ops that could become one subgraph."""

    ops: tuple[Operation, ...]
    """In IR order."""
    inputs: tuple[SSAValue, ...]
    """Values its ops read from outside, constants excepted: the future subgraph arguments."""
    model: CostModel | None = None
    """The cost model of the compile (None: no estimates, `worth-the-call` holds)."""
    target: TargetOptions = DEFAULT_TARGET

    def outputs(self) -> list[SSAValue]:
        """The values its ops compute that others read: the future subgraph results."""
        members = set(self.ops)
        return [r for op in self.ops for r in op.results
                if any(_top_level(use.operation, op.parent) not in members for use in r.uses)]

    def weights(self) -> list[SSAValue]:
        """The constants its ops read: the weights the subgraph holds."""
        return list(dict.fromkeys(v for op in self.ops for v in _operands(op) if isinstance(v.owner, ConstantOp)))

    def chunking(self) -> tuple[int, int]:
        """(images a call, calls a run): the chunks of a batch over MLIP's limit (`chunk-mrvl-batch`)."""
        batch, _ = region_batch(self.ops, self.inputs, self.outputs())
        return chunking(batch) if batch > MAX_BATCH else (batch, 1)

    def mlip_estimate(self, model: CostModel) -> MlipEstimate:
        """One call of the region on MLIP (of one chunk, when it runs in `chunking()`'s):
        compute, transfers and the call overhead."""
        work = mlip_work(self.ops, self.inputs, self.outputs(), self.weights())
        batch, _ = region_batch(self.ops, self.inputs, self.outputs())
        chunk, calls = self.chunking()
        if calls > 1:
            work = work.per_images(chunk, batch)
        return model.mlip_estimate(work, self.target)

    def host_seconds(self, model: CostModel) -> float:
        """The region's ops as host kernels."""
        return sum(model.host_seconds(host_work(op)) for op in self.ops)

    def patterns(self) -> list[str]:
        """The layer kinds of its ops (`mrvl.pattern`), in IR order, without repeats."""
        return list(dict.fromkeys(_string_attr(op, PATTERN_ATTR) for op in self.ops))

    def entry_ops(self) -> list[Operation]:
        """The ops that read an input directly."""
        inputs = set(self.inputs)
        return [op for op in self.ops if any(v in inputs for v in op.operands)]


@dataclass(frozen=True)
class Violation:
    """What a policy observed, and the ops that break it, each with what was observed of
    it: those go to the host and the regions are formed again; none named means the whole
    region breaks it."""

    observed: str
    culprits: tuple[tuple[Operation, str], ...] = ()


@dataclass(frozen=True)
class Policy:
    id: str
    """Stable: the `policies` option, reasons and tests refer to it."""
    text: str
    """The policy as a user reads it."""
    check: Callable[[Candidate], Violation | None]
    """None when the region may be offloaded."""


POLICIES: dict[str, Policy] = {}
"""The partition policies by id, in the order they are checked."""


def policy(id: str, text: str):
    """Register the decorated check as policy `id`."""

    def register(check: Callable[[Candidate], Violation | None]) -> Callable[[Candidate], Violation | None]:
        POLICIES[id] = Policy(id, text, check)
        return check

    return register


COMPUTE_PATTERNS = ("conv2d", "fc")
"""Layer kinds worth a trip to the accelerator: Conv, Gemm and MatMul."""
COMPUTE_OP_TYPES = ("Conv", "Gemm", "MatMul")


@policy(
    "compute-intensive",
    text=f"An MLIP subgraph must hold a {' or '.join(COMPUTE_PATTERNS)} layer; "
    "other layers alone are not worth the transfers.",
)
def _compute_intensive(region: Candidate) -> Violation | None:
    if any(_string_attr(op, PATTERN_ATTR) in COMPUTE_PATTERNS and _computes(op) for op in region.ops):
        return None
    legalized = any(_string_attr(op, PATTERN_ATTR) in COMPUTE_PATTERNS for op in region.ops)
    return Violation(f"its layers are {', '.join(k or '?' for k in region.patterns())}"
                     + ("; its convs are legalised activations" if legalized else ""))


def _computes(op: Operation) -> bool:
    """Whether a conv/fc layer's op does an ONNX node's real work: not one of the 1x1
    depthwise convs legalize-mrvl builds for an activation (named after its Clip, ...)."""
    return all(node.op_type in (None, *COMPUTE_OP_TYPES) for node in location_nodes(op.location))


@policy(
    "no-leading-concat",
    text="An MLIP subgraph must not start with a concat: no concat may read a subgraph input.",
)
def _no_leading_concat(region: Candidate) -> Violation | None:
    return _leading(region, "concat")


@policy(
    "no-leading-sum",
    text="An MLIP subgraph must not start with a sum: no sum may read a subgraph input.",
)
def _no_leading_sum(region: Candidate) -> Violation | None:
    return _leading(region, "sum")


RESHAPE_PATTERNS = ("reshape", "batch_flatten", "squeeze")
"""Layer kinds that only relabel the dims of a tensor."""


@policy(
    "no-trailing-reshape",
    text="An MLIP subgraph must not end in a reshape, batch_flatten or squeeze that only the host reads: "
    "on the host it costs nothing, on MLIP a layer.",
)
def _no_trailing_reshape(region: Candidate) -> Violation | None:
    members = set(region.ops)
    trailing = {op: f"only the host reads {node_label(op)}" for op in region.ops
                if _string_attr(op, PATTERN_ATTR) in RESHAPE_PATTERNS
                and all(_top_level(use.operation, op.parent) not in members for r in op.results for use in r.uses)}
    if not trailing:
        return None
    return Violation("; ".join(trailing.values()), tuple(trailing.items()))


@policy(
    "worth-the-call",
    text="An MLIP subgraph must take less time than its layers take on the host, counting its "
    "transfers and the call's fixed cost (the cost model's estimates: target_file, host_profile).",
)
def _worth_the_call(region: Candidate) -> Violation | None:
    if region.model is None:
        return None
    mlip, host = region.mlip_estimate(region.model), region.host_seconds(region.model)
    _, calls = region.chunking()
    if mlip.seconds * calls <= host:
        return None
    per_call = f"{calls} calls of {duration(mlip.seconds)}" if calls > 1 else duration(mlip.seconds)
    return Violation(f"MLIP {per_call}: {mlip.describe()}; host {duration(host)}, {region.model.host_source}")


DEFAULT_POLICIES = ("compute-intensive", "no-leading-concat", "no-leading-sum", "no-trailing-reshape")
"""The policies on by default. `worth-the-call` is asked for by name (`mrvl-compile
--cost-policy`): with the default target it would send the zoo's one-Gemm subgraphs and
squeeze-excite blocks to the host (docs/cost-model.md gives the thresholds)."""


def _leading(region: Candidate, kind: str) -> Violation | None:
    """The `kind` layers that read a subgraph input: each with its whole fusion group."""
    leading = {op: f"{node_label(op)} reads a subgraph input"
               for op in region.entry_ops() if _string_attr(op, PATTERN_ATTR) == kind}
    if not leading:
        return None
    by_group = {_group(op): observed for op, observed in leading.items() if _group(op) is not None}
    culprits = tuple((op, leading.get(op) or by_group[_group(op)])
                     for op in region.ops if op in leading or _group(op) in by_group)
    return Violation("; ".join(leading.values()), culprits)


def _string_attr(op: Operation, name: str) -> str:
    attr = op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else ""


# --- Regions ----------------------------------------------------------------------------


class ContractedGraph:
    """A DAG whose nodes can be merged (contracted) as long as it stays acyclic.

    Nodes are 0..n-1, edges given by each node's predecessors. `rank` is a topological
    order of the contracted graph; merging x and y (rank x < rank y) creates a cycle iff a
    path of two or more edges leads from x to y, and every node on such a path has a rank
    between theirs. So the check searches only that window, forward from x and backward
    from y at once, and stops when they meet (a cycle) or either runs out (none). The
    order is then repaired as Pearce and Kelly's dynamic topological sort does ("A dynamic
    topological sort algorithm for directed acyclic graphs", JEA 2007).

    Cost: a merge with one side of the window empty, as when an op joins its only
    producer, looks at the edges at that end only. Otherwise the repair visits both sides
    of the window, so contrived graphs (a long region whose every op also feeds a host
    dead end and reads a host chain) cost quadratic time: 0.7 s for 5,000 ops.
    """

    def __init__(self, preds: list[list[int]]):
        n = len(preds)
        self.parent = list(range(n))
        self.rank = list(range(n))
        self.pred: list[dict[int, None]] = [dict.fromkeys(p) for p in preds]
        self.succ: list[dict[int, None]] = [{} for _ in range(n)]
        for node, ps in enumerate(preds):
            for p in ps:
                self.succ[p][node] = None
        for node, ps in enumerate(preds):
            if any(p >= node for p in ps):
                raise ValueError("ContractedGraph: nodes must be numbered in a topological order")

    def find(self, node: int) -> int:
        """The node that `node` has been merged into."""
        parent = self.parent
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def merge(self, a: int, b: int) -> bool:
        """Contract the nodes of `a` and `b` into one, unless that makes a cycle."""
        a, b = self.find(a), self.find(b)
        if a == b:
            return True
        rank = self.rank
        x, y = (a, b) if rank[a] < rank[b] else (b, a)
        lo, hi = rank[x], rank[y]
        forward = _WindowSearch(self.succ, rank, lo, hi)
        backward = _WindowSearch(self.pred, rank, lo, hi)
        # The side with fewer edges at its end goes first. Often it is empty, which settles
        # the merge without a look at the other side: an op joining its only producer.
        if len(self.pred[y]) <= len(self.succ[x]):
            first, first_end, second, second_end = backward, y, forward, x
        else:
            first, first_end, second, second_end = forward, x, backward, y
        first.start(first_end)
        empty: _WindowSearch | None = first
        if first.seen:
            second.start(second_end)
            if first.meets(second):
                return False  # x -> v -> y
            empty = second
            if second.seen:
                while first.stack and second.stack:
                    if first.step(second) or second.step(first):
                        return False
                # One side is complete without meeting the other: no path from x to y.
                forward.finish()
                backward.finish()
                empty = None
        if empty is forward:
            new_rank: int | None = hi  # nothing x leads to comes before y: stand at y
        elif empty is backward:
            new_rank = lo  # nothing leading to y comes after x: stand at x
        else:
            new_rank = None
        keep, gone = (x, y) if self._degree(x) >= self._degree(y) else (y, x)
        self._absorb(keep, gone)
        if new_rank is not None:
            rank[keep] = new_rank
        else:
            # Pearce-Kelly: what leads to y, then the merged node, then what x leads to,
            # on the ranks they held (hi, the largest, is left free).
            before = sorted(backward.seen, key=rank.__getitem__)
            after = sorted(forward.seen, key=rank.__getitem__)
            ranks = sorted([lo, hi, *(rank[v] for v in before), *(rank[v] for v in after)])
            for node, r in zip([*before, keep, *after], ranks):
                rank[node] = r
        return True

    def _degree(self, node: int) -> int:
        return len(self.pred[node]) + len(self.succ[node])

    def _absorb(self, keep: int, gone: int) -> None:
        """Merge `gone` into `keep`; the edges of `gone` (the smaller node) move."""
        pred, succ = self.pred, self.succ
        for s in succ[gone]:
            del pred[s][gone]
            if s != keep:
                pred[s][keep] = None
                succ[keep][s] = None
        for p in pred[gone]:
            del succ[p][gone]
            if p != keep:
                succ[p][keep] = None
                pred[keep][p] = None
        succ[gone] = {}
        pred[gone] = {}
        self.parent[gone] = keep


class _WindowSearch:
    """Depth-first search along `edges` through nodes ranked strictly between lo and hi."""

    def __init__(self, edges: list[dict[int, None]], rank: list[int], lo: int, hi: int):
        self.edges, self.rank, self.lo, self.hi = edges, rank, lo, hi
        self.seen: dict[int, None] = {}
        self.stack: list[int] = []

    def start(self, node: int) -> None:
        self._push(self.edges[node])

    def _push(self, nodes: Iterable[int]) -> list[int]:
        rank, lo, hi, seen = self.rank, self.lo, self.hi, self.seen
        pushed = [v for v in nodes if lo < rank[v] < hi and v not in seen]
        for v in pushed:
            seen[v] = None
        self.stack += pushed
        return pushed

    def meets(self, other: "_WindowSearch") -> bool:
        """Whether the two searches have seen a common node."""
        return any(v in other.seen for v in self.seen)

    def step(self, other: "_WindowSearch") -> bool:
        """Expand one node; whether the search reached a node the other side has seen."""
        pushed = self._push(self.edges[self.stack.pop()])
        return any(v in other.seen for v in pushed)

    def finish(self) -> None:
        while self.stack:
            self._push(self.edges[self.stack.pop()])


def _top_level(op: Operation | None, block: Block) -> Operation | None:
    """The op of `block` that is or contains `op`."""
    while op is not None and op.parent is not block:
        op = op.parent_op()
    return op


def _definer(value: SSAValue, block: Block) -> Operation | None:
    """The op of `block` that defines or contains the definition of `value`."""
    owner = value.owner
    return _top_level(owner if isinstance(owner, Operation) else owner.parent_op(), block)


def _operands(op: Operation) -> Iterator[SSAValue]:
    """The operands of `op` and of the ops nested in it."""
    if not op.regions:
        yield from op.operands
        return
    for inner in op.walk():
        yield from inner.operands


def _producers(op: Operation, block: Block) -> list[Operation]:
    """The other ops of `block` whose results `op` (or an op nested in it) reads."""
    found: dict[Operation, None] = {}
    for value in _operands(op):
        definer = _definer(value, block)
        if definer is not None and definer is not op:
            found[definer] = None
    return list(found)


def _is_mlip(op: Operation) -> bool:
    return not isinstance(op, ConstantOp) and _string_attr(op, PLACE_ATTR) == "mlip"


def _group(op: Operation) -> int | None:
    attr = op.attributes.get(GROUP_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def form_regions(block: Block) -> list[list[Operation]]:
    """The MLIP ops of `block` in regions that can be outlined together, in IR order.

    Fusion groups are contracted first; then each MLIP op, in IR order, joins the region
    of each MLIP producer it can join without a cycle. A fusion group that cannot be one
    node of an acyclic graph (place-ops should never make one) goes back to the host.
    """
    while True:
        regions, broken = _try_form_regions(block)
        if not broken:
            return regions
        for op in broken:
            _send_to_host(
                op,
                f"partition.group-cycle: The ops of a fused layer must form one subgraph. "
                f"(group {_group(op)} reaches itself through other ops)",
            )


def _try_form_regions(block: Block) -> tuple[list[list[Operation]], list[Operation]]:
    ops = [op for op in block.ops if not isinstance(op, ConstantOp)]
    index = {op: i for i, op in enumerate(ops)}
    preds = [[index[p] for p in _producers(op, block) if p in index] for op in ops]
    graph = ContractedGraph(preds)
    mlip = [i for i, op in enumerate(ops) if _is_mlip(op)]

    groups: dict[int, list[int]] = {}
    for i in mlip:
        if (group := _group(ops[i])) is not None:
            groups.setdefault(group, []).append(i)
    for members in groups.values():
        if not all(graph.merge(members[0], m) for m in members[1:]):
            return [], [ops[i] for i in members]

    is_mlip = set(mlip)
    for i in mlip:
        for p in preds[i]:
            if p in is_mlip:
                graph.merge(p, i)

    regions: dict[int, list[Operation]] = {}
    for i in mlip:
        regions.setdefault(graph.find(i), []).append(ops[i])
    return list(regions.values()), []


def _region_inputs(ops: list[Operation], block: Block) -> list[SSAValue]:
    """What `ops` read from outside them, constants excepted, in order of first use."""
    members = set(ops)
    inputs: dict[SSAValue, None] = {}
    for op in ops:
        for value in _operands(op):
            definer = _definer(value, block)
            if definer not in members and not (isinstance(definer, ConstantOp) and value.owner is definer):
                inputs[value] = None
    return list(inputs)


def _batch_culprits(region: Candidate) -> list[tuple[Operation, str]]:
    """What goes to the host from a region over MLIP's batch limit that cannot run in chunks
    (rule `batch.max`), each with its fusion group: the layers that do not keep the batch as
    dim 0 (a reshape that moves it), so that what is left can run in chunks; failing those,
    the layers over the limit."""
    if largest_batch(region.ops, region.inputs, region.outputs()) <= MAX_BATCH:
        return []
    batch, problem = region_batch(region.ops, region.inputs, region.outputs())
    if problem is None:
        return []
    culprits = [op for op in region.ops if batch_problem(op) is not None] or over_limit(region.ops)
    groups = {_group(op) for op in culprits} - {None}
    return [(op, f"batch {batch}: the subgraph cannot run in chunks: {problem}")
            for op in region.ops if op in culprits or _group(op) in groups]


def _apply_policies(block: Block, policies: list[Policy], model: CostModel | None = None,
                    target: TargetOptions = DEFAULT_TARGET) -> list[list[Operation]]:
    """The regions of `block` that keep every policy, after sending to the host what breaks
    one: a policy's culprits first (then the regions are formed again, as evicting a layer
    can split or shrink its region), a region as a whole only when no culprit is left.
    Before any policy, the layers of a region that is over MLIP's batch limit and cannot run
    in chunks go (`_batch_culprits`), whatever the policies."""
    while True:
        accepted, evicted = [], False
        for ops in form_regions(block):
            candidate = Candidate(tuple(ops), tuple(_region_inputs(ops, block)), model, target)
            if culprits := _batch_culprits(candidate):
                for culprit, observed in culprits:
                    _send_to_host(culprit, f"{BATCH_RULE.id}: {BATCH_RULE.text} ({observed})")
                evicted = True
                continue
            violations = [(p, v) for p in policies if (v := p.check(candidate)) is not None]
            named = [(p, v) for p, v in violations if v.culprits]
            for p, v in named:
                for culprit, observed in v.culprits:
                    _send_to_host(culprit, f"policy.{p.id}: {p.text} ({observed})")
            if named:
                evicted = True
            elif violations:
                for member in ops:
                    for p, v in violations:
                        _send_to_host(member, f"policy.{p.id}: {p.text} ({v.observed})")
            else:
                accepted.append(ops)
        if not evicted:
            return accepted


def _send_to_host(op: Operation, reason: str) -> None:
    reasons = op.attributes.get(REASONS_ATTR)
    old = list(reasons.data) if isinstance(reasons, ArrayAttr) else []
    op.attributes[PLACE_ATTR] = StringAttr("host")
    op.attributes[REASONS_ATTR] = ArrayAttr([*old, StringAttr(reason)])
    op.attributes.pop(GROUP_ATTR, None)


# --- Outlining --------------------------------------------------------------------------


def outline(
    block: Block, ops: list[Operation], name: str, options: dict[str, Attribute]
) -> tuple[SubgraphOp, list[ConstantOp]]:
    """Move `ops` (a region of `block`, in IR order) into a new `mrvl.subgraph @name` and
    call it from their place, with the constants of `block` they read (moved when only they
    read one). Returns the subgraph, not yet inserted anywhere, and the constants of `block`
    it cloned."""
    members = set(ops)
    inputs = _region_inputs(ops, block)
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = {}
    for value, arg in zip(inputs, body.args):
        arg.name_hint = value.name_hint
        mapping[value] = arg
    constants: list[ConstantOp] = []
    for op in ops:
        for value in _operands(op):
            owner = value.owner
            if isinstance(owner, ConstantOp) and owner.parent is block and value not in mapping:
                if all(_top_level(use.operation, block) in members for use in value.uses):
                    owner.detach()  # read by the region alone: moved, not cloned
                    body.add_op(owner)
                    continue
                clone = owner.clone_without_regions()  # a constant has none: no walk of them
                body.add_op(clone)
                mapping[value] = clone.results[0]
                constants.append(owner)

    outputs = [
        r for op in ops for r in op.results
        if any(_top_level(use.operation, block) not in members for use in r.uses)
    ]
    call = CallMlipOp.create(
        operands=inputs,
        result_types=[r.type for r in outputs],
        properties={"callee": SymbolRefAttr(name)},
    )
    block.insert_op_after(call, ops[-1])
    for old, new in zip(outputs, call.results):
        new.name_hint = old.name_hint
        for use in tuple(old.uses):
            if _top_level(use.operation, block) not in members:
                use.operation.operands[use.index] = new

    for op in ops:
        op.detach()
        body.add_op(op)
        for inner in op.walk() if op.regions else (op,):
            for i, value in enumerate(inner.operands):
                if (new := mapping.get(value)) is not None:
                    inner.operands[i] = new
    body.add_op(YieldOp.create(operands=outputs))
    function_type = FunctionType.from_lists([v.type for v in inputs], [r.type for r in outputs])
    return SubgraphOp(name, function_type, Region(body), options), constants


def restore_dominance(block: Block) -> None:
    """Reorder `block` so every op follows the ops it reads from, if one does not.

    Outlining puts each call where its region's last op was. A host op between two ops of
    one region that reads the first, or a region whose input a later op computes, then
    needs moving: an op needed before it stands moves up, with what it needs in turn, to
    just before its first user; the other ops keep their order.
    """
    ops = list(block.ops)
    position = {op: i for i, op in enumerate(ops)}
    producers = {op: [p for p in _producers(op, block) if p in position] for op in ops}
    if all(position[p] < position[op] for op in ops for p in producers[op]):
        return
    placed: dict[Operation, bool] = {}
    """True once placed; False while its producers are being placed."""
    order: list[Operation] = []
    for root in ops:
        if root in placed:
            continue
        placed[root] = False
        stack = [(root, iter(producers[root]))]
        while stack:
            op, waiting = stack[-1]
            for producer in waiting:
                state = placed.get(producer)
                if state is None:
                    placed[producer] = False
                    stack.append((producer, iter(producers[producer])))
                    break
                if state is False:
                    raise RuntimeError(f"{PASS_NAME}: the outlined IR has a cycle through '{producer.name}'")
            else:
                placed[op] = True
                order.append(op)
                stack.pop()
    for op in order:
        op.detach()
        block.add_op(op)


# --- The pass ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PartitionMrvlPass(TargetPassOptions, CostModelOptions, ModulePass):
    """Outline the ops placed on MLIP into `mrvl.subgraph`s, called by `cpu.call_mlip`.

    Runs after `place-ops`, before `fuse-mrvl` and `lower-to-cpu`.
    """

    name = PASS_NAME

    policies: tuple[str, ...] = DEFAULT_POLICIES
    """Ids of the policies that may send a region back to the host (`POLICIES`);
    `DEFAULT_POLICIES` by default. `policies=compute-intensive` keeps one, `{policies}` none."""
    prefix: str = "tvmgen_mrvl_main_"
    """Subgraphs are named `<prefix>0`, `<prefix>1`, ... in IR order. The target options
    (`TargetPassOptions`) are those the subgraphs are compiled with and record; the cost
    model's (`CostModelOptions`) are `worth-the-call`'s."""

    def __post_init__(self) -> None:
        self.target()
        self.cost_model()
        for id in self.policies:
            if id not in POLICIES:
                raise CompileError(self.name, f"policies must be among {', '.join(POLICIES)}, got {id!r}")
        if not isinstance(self.prefix, str) or not self.prefix:
            raise CompileError(self.name, f"prefix must be a non-empty name, got {self.prefix!r}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        options = self.target().properties()
        policies = [POLICIES[id] for id in dict.fromkeys(self.policies)]
        taken = {
            o.properties["sym_name"].data
            for o in op.ops
            if isinstance(o.properties.get("sym_name"), StringAttr)
        }
        names = (n for k in itertools.count() if (n := f"{self.prefix}{k}") not in taken)
        for function in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            anchor: Operation = function
            for block in function.body.blocks:
                for subgraph in self._partition(block, policies, names, options):
                    op.body.block.insert_op_after(subgraph, anchor)
                    anchor = subgraph

    def _partition(
        self, block: Block, policies: list[Policy], names: Iterator[str], options: dict[str, Attribute]
    ) -> list[SubgraphOp]:
        """Form, check and outline the regions of `block`; returns the new subgraphs."""
        accepted = _apply_policies(block, policies, self.cost_model(), self.target())

        subgraphs: list[SubgraphOp] = []
        cloned: dict[ConstantOp, None] = {}
        for ops in accepted:
            subgraph, constants = outline(block, ops, next(names), options)
            subgraphs.append(subgraph)
            cloned.update(dict.fromkeys(constants))
        for constant in cloned:
            if not constant.results[0].uses:
                constant.detach()
                constant.erase()
        if subgraphs:
            restore_dominance(block)
        return subgraphs
