"""place-ops: decide, for every `graph` op, whether it runs on MLIP or on the host.

Walking from the graph's outputs back, each op not yet claimed roots the first fusion
pattern (`mlip_patterns.PATTERNS`) whose match is free, whose anchor breaks no rule of the
registry (`mlip_rules`) and that the placement file does not keep on the host. The
members of a match form one group: one future MLIP layer. The decision is written on the
ops as discardable attributes, which `partition-mrvl`, `fuse-mrvl` and the placement
report read:

    "mrvl.place" = "mlip" | "host"
    "mrvl.group" = N : i64, "mrvl.pattern" = "conv2d"      (MLIP ops)
    "mrvl.reasons" = ["conv.groups: ... (group 2 ...)"]     (host ops: every reason)
"""

from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.graph_queries import node_name, op_type
from mrvl_dialect.mrvl import GROUP_ATTR, PATTERN_ATTR, PLACE_ATTR, REASONS_ATTR
from mrvl_dialect.shared_attributes import i64_attr, shared_string
from mrvl.passes.declarative_fusion import Pattern, fusable, match
from mrvl.passes.mlip_patterns import FUSED_ONLY, LAYER_KINDS, PATTERNS
from mrvl.passes.mlip_rules import failed_rules
from mrvl.target.options import DEFAULT_TARGET, TargetOptions, TargetPassOptions


def _format_failures(op: Operation, target: TargetOptions) -> list[str]:
    return [f"{r.id}: {r.text} ({observed})" for r, observed in failed_rules(op, target)]


@dataclass
class _Placer:
    placement: object | None
    """A `placement_file.Placement`, or None."""
    placement_path: str
    target: TargetOptions
    """The options the rules check ops on."""
    reasons: dict[Operation, list[str]] = field(default_factory=dict)
    group_of: dict[Operation, tuple[int, str]] = field(default_factory=dict)
    groups: int = 0
    """Groups claimed so far."""

    def decision(self, op: Operation) -> str | None:
        if self.placement is None:
            return None
        return self.placement.decide(node_name(op), op_type(op))

    def note(self, op: Operation, reason: str) -> None:
        reasons = self.reasons.setdefault(op, [])
        if reason not in reasons:
            reasons.append(reason)

    def try_claim(self, pattern: Pattern, root: Operation) -> bool:
        longest = match(pattern, root)
        if longest is None:
            return False
        if failures := _format_failures(longest.anchor, self.target):
            for reason in failures:
                self.note(longest.anchor, reason)
            return False
        found, rejected = fusable(pattern, root)
        kept = set(found.members()) if found is not None else {root}
        for candidate, why in rejected:
            # The members the failed, longer match would have fused are told why not.
            for op in [*(m for m in candidate.members() if m not in kept), root]:
                self.note(op, f"fuse.{pattern.name}: {why}")
        if found is None:
            return False
        members = found.members()
        if any(op in self.group_of for op in members):
            return False
        forced = [op for op in members if self.decision(op) == "host"]
        if forced:
            return False
        for op in members:
            self.group_of[op] = (self.groups, found.pattern.name)
        self.groups += 1
        return True

    def claim(self, ops: list[Operation]) -> None:
        """Group `ops` (one block's, in IR order) into matches, from the outputs back."""
        for root in reversed(ops):
            if root in self.group_of or not _can_root(type(root)):
                continue
            for pattern in PATTERNS:
                if self.try_claim(pattern, root):
                    break
        # Number groups in IR order (they were found from the outputs back).
        order: dict[int, int] = {}
        for op in ops:
            if op in self.group_of:
                group, pattern = self.group_of[op]
                self.group_of[op] = (order.setdefault(group, len(order)), pattern)

    def host_reasons(self, op: Operation) -> list[str]:
        kind = op_type(op)
        reasons = list(self.reasons.get(op, []))
        if self.decision(op) == "host":
            reasons.insert(0, f"placement.host: kept on the host by the placement file {self.placement_path}")
        elif kind in LAYER_KINDS:
            reasons += [r for r in _format_failures(op, self.target) if r not in reasons]
        if not reasons and kind in FUSED_ONLY:
            reasons.append(f"{kind.lower()}.fused-only: MLIP runs {kind} only {FUSED_ONLY[kind]}")
        if not reasons and kind not in LAYER_KINDS:
            reasons.append(f"unsupported: MLIP has no layer for {kind}")
        if not reasons:
            reasons.append(f"unfused: {kind} is part of no MLIP layer its neighbours allow")
        if self.decision(op) == "mlip":
            reasons.insert(0, "placement.refused: the placement file asks for MLIP, but the rules below keep it on the host")
        return reasons


def _placeable(block_ops: list[Operation]) -> list[Operation]:
    """The graph ops to place (layers already built, or host ops, are placed already)."""
    return [op for op in block_ops if op.name.startswith("graph.") and not isinstance(op, ConstantOp)]


@dataclass(frozen=True)
class PlaceOpsPass(TargetPassOptions, ModulePass):
    """Decide where every graph op runs and record why (see the module docstring); the rules
    check each op on the target options."""

    name = "place-ops"

    placement: str = ""
    """A placement file (`schemas/placement.schema.json`) forcing nodes onto the host or
    asking for MLIP; empty: none."""
    offload: bool = True
    """False keeps every op on the host (for debugging, or to compare with an all-host build)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        placement = None
        if self.placement:
            from mrvl_dialect.placement_file import load_placement

            placement = load_placement(self.placement)
        placer = _Placer(placement, self.placement, self.target())
        for function in op.body.block.ops:
            if not isinstance(function, func.FuncOp):
                continue
            ops = _placeable(list(function.body.block.ops))
            if self.offload:
                placer.claim(ops)
            for graph_op in ops:
                self.annotate(graph_op, placer)
            for nested in function.body.walk():
                if nested.parent_op() is not function and not isinstance(nested, ConstantOp):
                    if nested.name.startswith("graph.") and nested.name != "graph.yield":
                        _set_host(nested, ["control-flow: ops inside If, Loop and Scan bodies run on the host"])

    def annotate(self, op: Operation, placer: _Placer) -> None:
        for name in (PLACE_ATTR, GROUP_ATTR, PATTERN_ATTR, REASONS_ATTR):
            op.attributes.pop(name, None)
        if op in placer.group_of:
            group, pattern = placer.group_of[op]
            op.attributes[PLACE_ATTR] = shared_string("mlip")
            op.attributes[GROUP_ATTR] = i64_attr(group)
            op.attributes[PATTERN_ATTR] = shared_string(pattern)
        elif not self.offload:
            _set_host(op, ["offload.disabled: offload=false keeps every op on the host"])
        else:
            _set_host(op, placer.host_reasons(op))


def _set_host(op: Operation, reasons: list[str]) -> None:
    op.attributes[PLACE_ATTR] = shared_string("host")
    op.attributes[REASONS_ATTR] = ArrayAttr([StringAttr(r) for r in reasons])


def mlip_groups(block_ops: list[Operation], target: TargetOptions) -> dict[Operation, tuple[int, str]]:
    """The groups place-ops (without a placement file) makes of one block's ops on `target`:
    each grouped op's group number and pattern name. Nothing is recorded on the ops."""
    placer = _Placer(None, "", target)
    placer.claim(_placeable(block_ops))
    return placer.group_of


_ROOT_TYPES = tuple({cls for p in PATTERNS for m in p.chain for cls in m.ops})
"""Op classes that can end a pattern's chain (anything else cannot root a match)."""


@lru_cache(maxsize=None)
def _can_root(cls: type[Operation]) -> bool:
    """Whether an op of `cls` can root a match (once per class, not `isinstance` against
    each of `_ROOT_TYPES` per op)."""
    return issubclass(cls, _ROOT_TYPES)


def place_alone(op: Operation) -> None:
    """Place `op`, added after `place-ops` ran, as `place-ops` places an op that is part of
    no MLIP group: on the host, with its reasons. `op` is of no MLIP layer kind (a restored
    QuantizeLinear), so no target option changes its reasons."""
    assert op_type(op) not in LAYER_KINDS, op.name
    _set_host(op, _Placer(None, "", DEFAULT_TARGET).host_reasons(op))
