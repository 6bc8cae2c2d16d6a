"""Rewrite patterns tried only on the ops they can match, by the op's class.

A `GreedyRewritePatternApplier` tries every pattern on every op the walker visits, and a
pattern that declines still pays for its own type checks (`isinstance` against `graph` op
classes goes through `ABCMeta`). `PatternsByOpClass` looks up which patterns can match an
op's class once per class, and tries only those, in their order: the walker does the same
rewrites.

A `PatternRewriteWalker` still visits every op, each visit a worklist push and pop, an
insertion point and a dead-code check, and walks the whole module once more after any
change. `MatchingOpsWalker` is that walker with walks that put on its worklist only the
ops the patterns can match by class, and the dead ops it erases: visiting any other op
does nothing. What a rewrite creates or changes is queued as the walker queues it.
"""

from collections.abc import Sequence
from enum import Enum, auto

from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.traits import IsTerminator, MemoryEffect, SymbolOpInterface


class PatternsByOpClass(RewritePattern):
    """`patterns`, each with the op classes it matches, tried in order on an op of one of
    those classes (or a subclass) until one rewrites it."""

    def __init__(self, patterns: Sequence[tuple[tuple[type[Operation], ...], RewritePattern]]):
        self.patterns = tuple(patterns)
        self.by_class: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def candidates(self, cls: type[Operation]) -> tuple[RewritePattern, ...]:
        """The patterns that can match an op of class `cls`, in order."""
        if (found := self.by_class.get(cls)) is None:
            found = self.by_class[cls] = tuple(p for ops, p in self.patterns if issubclass(cls, ops))
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for pattern in self.candidates(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


class _Visit(Enum):
    """Which ops of a class a walk puts on the worklist."""

    ALWAYS = auto()
    IF_DEAD = auto()
    NEVER = auto()


class MatchingOpsWalker(PatternRewriteWalker):
    """Applies `patterns` as `PatternRewriteWalker` does, erasing dead ops first when
    `erase_dead` (as a `GreedyRewritePatternApplier`), with each walk visiting only the ops
    that a pattern can match by class or that are dead (it overrides the walker's
    `_populate_worklist`, as the locked xdsl version has it)."""

    def __init__(self, patterns: PatternsByOpClass, *, erase_dead: bool = True):
        super().__init__(GreedyRewritePatternApplier([patterns]) if erase_dead else patterns)
        self.patterns_by_op_class = patterns
        self.erase_dead = erase_dead
        self.visits: dict[type[Operation], _Visit] = {}

    def _visit(self, op: Operation) -> _Visit:
        """Whether a walk visits ops of `op`'s class: the traits that make an op never
        dead (a terminator, a symbol, no declared memory effects) are its class's."""
        if self.patterns_by_op_class.candidates(type(op)):
            return _Visit.ALWAYS
        if (self.erase_dead and not op.has_trait(IsTerminator, value_if_unregistered=False)
                and not op.has_trait(SymbolOpInterface, value_if_unregistered=False)
                and op.get_traits_of_type(MemoryEffect)):
            return _Visit.IF_DEAD
        return _Visit.NEVER

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        if not isinstance(op, Region) or self.walk_reverse or self.walk_regions_first:
            raise NotImplementedError("MatchingOpsWalker walks regions forwards, each op before its regions")
        self._push_matching(op)

    def _push_matching(self, region: Region) -> None:
        """Push the ops of `region` that a walk visits in reverse walk order (the worklist is
        a stack): each op after the ops in its regions. xDSL's `walk` makes a generator per op."""
        visits, push = self.visits, self._worklist.push
        for block in reversed(region.blocks):
            op = block.last_op
            while op is not None:
                for nested in reversed(op.regions):
                    self._push_matching(nested)
                if (visit := visits.get(type(op))) is None:
                    visit = visits[type(op)] = self._visit(op)
                # An op with unused results has its effects checked when it is visited.
                if visit is _Visit.ALWAYS or (visit is _Visit.IF_DEAD and _unused(op)):
                    push(op)
                op = op.prev_op


def _unused(op: Operation) -> bool:
    results = op.results
    return not results or (results[0].first_use is None and all(r.first_use is None for r in results[1:]))
