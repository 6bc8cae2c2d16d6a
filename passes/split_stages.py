"""split-stages: cut a partitioned model into consecutive pipeline stages of balanced cost.

Runs after `mrvl-pipeline`, on its top-level ops (host kernels and `cpu.call_mlip`s, in
the function's order; constants are copied to every stage that reads them): fusion is
final there, so a cut between two of them never separates a conv from its folded batch
norm or epilogue, and each stage computes the bits the whole model computes. An MLIP
subgraph's call is one op, never cut inside.

A cut after position p of the order is valid whatever p is: every value live across it
was produced before and is read after. Those values are the stage's outputs and the next
stage's inputs; one that skips a stage (a residual, an FPN branch, a model input read
late, a model output produced early) is passed through it. A stage's estimated time is

    its subgraphs' MLIP estimate at its share of the tiles + its host kernels' estimate
    + (bytes of its inputs + bytes of its outputs) / [pipeline] link_bytes_per_s

where a host kernel's estimate is its measured time when a `host_profile` timed it
(`CostModel.host_op_seconds`), so a split on a profile from the machine that runs the
stages balances what they take there.

and the split minimises the largest (`best_split`: dynamic programming over the cut
positions and the tile shares, exact). The tile group, the `num_tiles` the subgraphs were
partitioned for, is shared out among the stages with MLIP work in shares of 1, 2, 4 or 8.

The split is recorded in the IR: every top-level op gets its stage (`mrvl.stage`) and
every subgraph its stage's share (`num_tiles`). `outline_stages` then makes one module
of each stage.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from mrvl.target.cost_model import CostModel, CostModelOptions, subgraph_work
from mrvl.target.options import TargetOptions
from mrvl_dialect import cpu
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import tensor_name_hint
from mrvl_dialect.mrvl import STAGE_ATTR, SubgraphOp

PASS_NAME = "split-stages"
ARG_NAME = "graph.name"
"""The ONNX name of a function's argument or result, as the importer records it."""
TILE_SHARES = (1, 2, 4, 8)


# --- The ops and what they cost -------------------------------------------------------


def main_function(module: ModuleOp) -> func.FuncOp:
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if len(functions) != 1:
        raise CompileError(PASS_NAME, f"expects a module of one function, got {len(functions)}")
    return functions[0]


def stage_ops(function: func.FuncOp) -> list[Operation]:
    """The ops a split orders: the function's, apart from constants and the return."""
    return [op for op in function.body.block.ops if not isinstance(op, (ConstantOp, func.ReturnOp))]


def value_bytes(value: SSAValue) -> int:
    t = value.type
    assert isinstance(t, TensorType)
    return math.prod(t.get_shape()) * max(1, getattr(t.element_type, "bitwidth", 32) // 8)


def live_values(function: func.FuncOp, ops: Sequence[Operation]) -> list[list[SSAValue]]:
    """For each cut position p (0 to len(ops)), the values live across it: the function's
    arguments and ops' results defined before p and read at or after p (the return reads at
    len(ops)), in the order they are defined. Every argument is live across 0."""
    block = function.body.block
    position = {op: i for i, op in enumerate(ops)}
    end = len(ops)

    def top_level(op: Operation) -> Operation:
        while op.parent_op() is not function:
            parent = op.parent_op()
            assert parent is not None
            op = parent
        return op

    def last_use(value: SSAValue) -> int:
        last = -1
        for use in value.uses:
            user = top_level(use.operation)
            last = max(last, end if isinstance(user, func.ReturnOp) else position[user])
        return last

    intervals: list[tuple[int, int, SSAValue]] = [(0, max(last_use(arg), 0), arg) for arg in block.args]
    for i, op in enumerate(ops):
        intervals += [(i + 1, last_use(result), result) for result in op.results]
    live: list[list[SSAValue]] = [[] for _ in range(end + 1)]
    for first, last, value in intervals:
        for p in range(first, last + 1):
            live[p].append(value)
    return live


@dataclass(frozen=True)
class StageEstimate:
    """One stage's estimated time: MLIP, host, and sending its inputs and outputs."""

    mlip_s: float
    host_s: float
    link_s: float

    @property
    def seconds(self) -> float:
        return self.mlip_s + self.host_s + self.link_s


@dataclass(frozen=True)
class StageCosts:
    """What ops [i, j) of the order cost as a stage, from prefix sums over the order."""

    host: np.ndarray
    """host[p]: the host seconds of ops [0, p)."""
    mlip: dict[int, np.ndarray]
    """mlip[share][p]: the MLIP seconds of the calls among ops [0, p) at `share` tiles."""
    mlip_calls: np.ndarray
    """mlip_calls[p]: the MLIP calls among ops [0, p)."""
    live_bytes: np.ndarray
    """live_bytes[p]: the bytes live across cut p."""
    link_bytes_per_s: float
    tiles: int
    """The tile group the stages with MLIP work share."""

    @property
    def ops(self) -> int:
        return len(self.host) - 1

    def shares(self) -> tuple[int, ...]:
        return tuple(s for s in TILE_SHARES if s <= self.tiles)

    def stage(self, i: int, j: int, share: int) -> StageEstimate | None:
        """Ops [i, j) as a stage at `share` tiles; None when the share does not fit (0 tiles
        for MLIP work, or tiles for none)."""
        if (self.mlip_calls[j] > self.mlip_calls[i]) != (share > 0):
            return None
        mlip = float(self.mlip[share][j] - self.mlip[share][i]) if share else 0.0
        link = float(self.live_bytes[i] + self.live_bytes[j]) / self.link_bytes_per_s
        return StageEstimate(mlip, float(self.host[j] - self.host[i]), link)

    def column(self, j: int, share: int) -> np.ndarray:
        """`stage(i, j, share).seconds` for every i < j (infinite where None)."""
        seconds = (self.host[j] - self.host[:j]) + (self.live_bytes[:j] + self.live_bytes[j]) / self.link_bytes_per_s
        if share:
            seconds = seconds + (self.mlip[share][j] - self.mlip[share][:j])
        fits = (self.mlip_calls[j] > self.mlip_calls[:j]) == (share > 0)
        return np.where(fits, seconds, np.inf)


def stage_costs(module: ModuleOp, model: CostModel) -> StageCosts:
    """The costs of `module`'s top-level ops (`stage_ops`) for `best_split`."""
    function = main_function(module)
    ops = stage_ops(function)
    subgraphs = {op.sym_name.data: op for op in module.ops if isinstance(op, SubgraphOp)}
    tiles = max((sg.num_tiles.value.data for sg in subgraphs.values()), default=TargetOptions().num_tiles)
    shares = tuple(s for s in TILE_SHARES if s <= tiles)
    host = np.zeros(len(ops) + 1)
    mlip = {s: np.zeros(len(ops) + 1) for s in shares}
    calls = np.zeros(len(ops) + 1, dtype=np.int64)
    for i, op in enumerate(ops):
        host[i + 1] = host[i]
        calls[i + 1] = calls[i]
        for s in mlip:
            mlip[s][i + 1] = mlip[s][i]
        if isinstance(op, cpu.CallMlipOp):
            subgraph = subgraphs[op.callee.root_reference.data]
            work = subgraph_work(subgraph)
            target = TargetOptions.of_subgraph(subgraph)
            calls[i + 1] += 1
            for s in shares:
                mlip[s][i + 1] += model.mlip_estimate(work, replace(target, num_tiles=s)).seconds * op.chunk_count()
        else:
            host[i + 1] += model.host_op_seconds(op)
    live = live_values(function, ops)
    live_bytes = np.array([sum(value_bytes(v) for v in values) for values in live], dtype=np.float64)
    return StageCosts(host, mlip, calls, live_bytes, model.pipeline.link_bytes_per_s, tiles)


# --- The split --------------------------------------------------------------------------


@dataclass(frozen=True)
class Split:
    """Stage k runs ops [bounds[k], bounds[k + 1]) at `shares[k]` tiles."""

    bounds: tuple[int, ...]
    shares: tuple[int, ...]
    estimates: tuple[StageEstimate, ...]


def best_split(costs: StageCosts, stages: int, cuts: Sequence[int] | None = None) -> Split | None:
    """The split of the ops into `stages` non-empty stages, with their tile shares, whose
    largest stage time is least; `cuts` fixes the cut positions. None when no split fits
    (more stages with MLIP work than the tiles allow).

    Dynamic programming: best[k][j][t] is the least largest time of ops [0, j) as k stages
    using t tiles, the minimum over i < j and the share s of the last stage of
    max(best[k-1][i][t-s], stage(i, j, s)): O(stages x tiles x shares x ops^2)."""
    n, tiles = costs.ops, costs.tiles
    allowed = np.ones(n + 1, dtype=bool)
    if cuts is not None:
        allowed[:] = False
        allowed[[0, *cuts, n]] = True
    shares = (0, *costs.shares())
    best = np.full((n + 1, tiles + 1), np.inf)
    best[0, 0] = 0.0
    choices: list[np.ndarray] = []  # per stage: (j, t) -> (i, share)
    for _ in range(stages):
        following = np.full((n + 1, tiles + 1), np.inf)
        choice = np.zeros((n + 1, tiles + 1, 2), dtype=np.int64)
        for j in range(1, n + 1):
            if not allowed[j]:
                continue
            for s in shares:
                column = np.where(allowed[:j], costs.column(j, s), np.inf)
                for t in range(s, tiles + 1):
                    candidates = np.maximum(best[:j, t - s], column)
                    i = int(np.argmin(candidates))
                    if candidates[i] < following[j, t]:
                        following[j, t] = candidates[i]
                        choice[j, t] = (i, s)
        best = following
        choices.append(choice)
    t = int(np.argmin(best[n]))
    if not math.isfinite(best[n, t]):
        return None
    bounds, split_shares = [n], []
    j = n
    for choice in reversed(choices):
        i, s = (int(x) for x in choice[j, t])
        bounds.append(i)
        split_shares.append(s)
        j, t = i, t - s
    bounds.reverse()
    split_shares.reverse()
    return _spread_tiles(costs, tuple(bounds), split_shares)


def _spread_tiles(costs: StageCosts, bounds: tuple[int, ...], shares: list[int]) -> Split:
    """The split with the tiles left over given out, doubling the share of the slowest
    stage with MLIP work while the group allows: no stage gets slower."""
    while True:
        estimates = [costs.stage(bounds[k], bounds[k + 1], s) for k, s in enumerate(shares)]
        growable = [k for k, s in enumerate(shares)
                    if 0 < s and 2 * s in TILE_SHARES and sum(shares) + s <= costs.tiles]
        if not growable:
            return Split(bounds, tuple(shares), tuple(e for e in estimates if e is not None))
        slowest = max(growable, key=lambda k: (estimates[k].seconds, -k))  # type: ignore[union-attr]
        shares[slowest] *= 2


# --- The pass ---------------------------------------------------------------------------


def cut_positions(module: ModuleOp, tensors: Sequence[str]) -> list[int]:
    """The cut position after each named tensor's producer, in increasing order."""
    function = main_function(module)
    ops = stage_ops(function)
    position = {op: i for i, op in enumerate(ops)}
    arg_names = [a.data[ARG_NAME].data for a in function.arg_attrs.data] if function.arg_attrs else []
    by_hint: dict[str, list[SSAValue]] = {}
    for op in ops:
        for result in op.results:
            if result.name_hint is not None:
                by_hint.setdefault(result.name_hint, []).append(result)
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    res_names = [a.data[ARG_NAME].data for a in function.res_attrs.data] if function.res_attrs else []
    by_output = dict(zip(res_names, returned.arguments))
    positions: list[int] = []
    for previous, name in zip(("", *tensors), tensors):
        if name in arg_names:
            raise CompileError(f"{PASS_NAME}: cut '{name}'", "is a model input: no stage would come before it")
        value = by_output.get(name)
        if value is None:
            found = by_hint.get(tensor_name_hint(name) or "", [])
            if len({v.owner for v in found}) != 1:  # outputs of one op (a Split's) cut alike
                raise CompileError(f"{PASS_NAME}: cut '{name}'",
                                   "is no tensor between fused groups: not a tensor of the model, or one "
                                   "computed inside a fused group or an MLIP subgraph"
                                   if not found else "names several tensors")
            value = found[0]
        if isinstance(value, BlockArgument):
            raise CompileError(f"{PASS_NAME}: cut '{name}'", "is a model input: no stage would come before it")
        owner = value.owner
        assert isinstance(owner, Operation)
        p = position[owner] + 1
        if p == len(ops):
            raise CompileError(f"{PASS_NAME}: cut '{name}'", "is computed last: no stage would come after it")
        if positions and p <= positions[-1]:
            raise CompileError(f"{PASS_NAME}: cut '{name}'", "does not cut the graph into consecutive stages: "
                               f"it is computed {'by the op computing' if p == positions[-1] else 'before'} "
                               f"'{previous}', the cut before it")
        positions.append(p)
    return positions


@dataclass(frozen=True)
class SplitStagesPass(CostModelOptions, ModulePass):
    """Cut the partitioned model (after `mrvl-pipeline`) into consecutive pipeline stages:
    each top-level op gets its stage (`mrvl.stage`), each subgraph its stage's share of the
    tiles (`num_tiles`). The split minimises the largest stage's estimated time, with the
    cost model (`CostModelOptions`; the link rate is the target file's `[pipeline]
    link_bytes_per_s`)."""

    name = "split-stages"

    stages: int = 1
    """How many stages; with `cuts`, one more than the cuts (or 1, the default)."""
    cuts: str = ""
    """The cuts, comma-separated ONNX tensor names, in order: a stage ends after each one's producer."""

    def split(self, module: ModuleOp) -> Split:
        """The split this pass records."""
        costs = stage_costs(module, self.cost_model())
        if self.cuts:
            tensors = [t.strip() for t in self.cuts.split(",")]
            if self.stages not in (1, len(tensors) + 1):
                raise CompileError(self.name, f"stages={self.stages} with {len(tensors)} cuts: give one or the other")
            positions = cut_positions(module, tensors)
            stages = len(positions) + 1
        else:
            positions = None
            stages = self.stages
            if stages < 1:
                raise CompileError(self.name, f"stages must be at least 1, got {stages}")
            if stages > costs.ops:
                plural = "s" if costs.ops != 1 else ""
                raise CompileError(self.name, f"stages={stages}: the model has {costs.ops} op{plural} between fused "
                                   f"groups (an MLIP subgraph is one), so {costs.ops - 1} possible cuts and at most "
                                   f"{costs.ops} stage{plural}")
        split = best_split(costs, stages, positions)
        if split is None:
            raise CompileError(self.name, f"{stages} stages: the {costs.tiles} MLIP tiles cannot be shared among "
                               "the stages with MLIP work (1, 2, 4 or 8 each)")
        return split

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        split = self.split(op)
        ops = stage_ops(main_function(op))
        subgraphs = {s.sym_name.data: s for s in op.ops if isinstance(s, SubgraphOp)}
        for k in range(len(split.shares)):
            for stage_op in ops[split.bounds[k]:split.bounds[k + 1]]:
                stage_op.attributes[STAGE_ATTR] = IntegerAttr(k, i64)
                if isinstance(stage_op, cpu.CallMlipOp):
                    subgraphs[stage_op.callee.root_reference.data].num_tiles = IntegerAttr(split.shares[k], i64)


def stage_bounds(ops: Sequence[Operation]) -> list[int]:
    """Where each stage `split-stages` recorded on `ops` (`stage_ops`) starts, and their end."""
    stage_of = [_stage(op) for op in ops]
    return [0] + [i for i in range(1, len(ops)) if stage_of[i] != stage_of[i - 1]] + [len(ops)]


def recorded_split(module: ModuleOp, model: CostModel) -> Split:
    """The split `split-stages` recorded in `module`, with its estimates."""
    ops = stage_ops(main_function(module))
    bounds = stage_bounds(ops)
    subgraphs = {s.sym_name.data: s for s in module.ops if isinstance(s, SubgraphOp)}
    shares = []
    for k in range(len(bounds) - 1):
        calls = [op for op in ops[bounds[k]:bounds[k + 1]] if isinstance(op, cpu.CallMlipOp)]
        shares.append(subgraphs[calls[0].callee.root_reference.data].num_tiles.value.data if calls else 0)
    costs = stage_costs(module, model)
    estimates = tuple(costs.stage(bounds[k], bounds[k + 1], s) for k, s in enumerate(shares))
    assert all(e is not None for e in estimates)
    return Split(tuple(bounds), tuple(shares), estimates)  # type: ignore[arg-type]


def _stage(op: Operation) -> int:
    attr = op.attributes.get(STAGE_ATTR)
    if not isinstance(attr, IntegerAttr):
        raise CompileError(op.name, "has no stage: run split-stages first")
    return attr.value.data


NHWC_SUFFIX = "_nhwc"
"""What names a tensor in MLIP's layout: `convert-layout`'s suffix."""

TensorNaming = Callable[[SSAValue], tuple[str | None, str | None]]
"""A value's ONNX tensor name and its layout when not the ONNX shape's order ("NHWC"),
each None when not known."""


def stage_names(function: func.FuncOp, live: Sequence[Sequence[SSAValue]],
                naming: TensorNaming | None = None) -> tuple[dict[SSAValue, str], dict[SSAValue, str]]:
    """The name of every value crossing a cut, and the layout of those not in their ONNX
    shape's order: a model input's or output's ONNX name; else the ONNX name `naming`
    gives, or the value's name hint (the ONNX name made an identifier); made unique."""
    names: dict[SSAValue, str] = {}
    layouts: dict[SSAValue, str] = {}
    if function.arg_attrs:
        names |= {arg: a.data[ARG_NAME].data for arg, a in zip(function.body.block.args, function.arg_attrs.data)
                  if ARG_NAME in a.data}
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    if function.res_attrs:
        for value, a in zip(returned.arguments, function.res_attrs.data):
            if ARG_NAME in a.data and value not in names:
                names[value] = a.data[ARG_NAME].data
    taken = set(names.values())
    for values in live:
        for value in values:
            if value in names:
                continue
            onnx_name, layout = naming(value) if naming is not None else (None, None)
            if layout is not None:
                layouts[value] = layout
            base = onnx_name or value.name_hint or "tensor"
            name, n = base, 1
            while name in taken:
                n += 1
                name = f"{base}_{n}"
            taken.add(name)
            names[value] = name
    return names, layouts
