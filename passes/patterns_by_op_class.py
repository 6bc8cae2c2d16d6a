"""Rewrite patterns tried only on the ops they can match, by the op's class.

A `GreedyRewritePatternApplier` tries every pattern on every op the walker visits, and a
pattern that declines still pays for its own type checks (`isinstance` against `graph` op
classes goes through `ABCMeta`). `PatternsByOpClass` looks up which patterns can match an
op's class once per class, and tries only those, in their order: the walker does the same
rewrites.
"""

from collections.abc import Sequence

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern


class PatternsByOpClass(RewritePattern):
    """`patterns`, each with the op classes it matches, tried in order on an op of one of
    those classes (or a subclass) until one rewrites it."""

    def __init__(self, patterns: Sequence[tuple[tuple[type[Operation], ...], RewritePattern]]):
        self.patterns = tuple(patterns)
        self.by_class: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        cls = type(op)
        if (candidates := self.by_class.get(cls)) is None:
            candidates = self.by_class[cls] = tuple(p for ops, p in self.patterns if issubclass(cls, ops))
        for pattern in candidates:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return
