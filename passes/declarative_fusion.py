"""Fusion patterns as data: a chain of op kinds, turned into matchers and rewrite patterns.

A `Pattern` is a chain of `Member`s in data-flow order (producer first, root last), some
optional, exactly one of them the anchor whose operator gives the layer kind. Each member
after the first consumes the previous one's result, which must have no other use (fusing
must not hide a value someone else reads). A pattern-level `check` vets a whole match, and
`build` rewrites it. `match(pattern, root)` finds the longest chain ending at `root`, `fusable` the longest
that passes the check; `FusionRewrite(pattern)` is the xDSL rewrite pattern.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from mrvl_dialect.graph_queries import op_type

ANY_OPERAND = -1


@dataclass(frozen=True)
class Member:
    role: str
    """How builders and checks refer to the matched op ("conv", "bias", ...)."""
    op_types: tuple[str, ...]
    """ONNX operators that can fill this member."""
    optional: bool = False
    link: int = 0
    """Which operand of this op is the previous member's result (ANY_OPERAND: either)."""
    when: Callable[[Operation], bool] | None = None
    """A cheap structural filter on the op alone."""

    def accepts(self, op: Operation) -> bool:
        return op_type(op) in self.op_types and (self.when is None or self.when(op))

    def producers(self, op: Operation) -> list[Operation]:
        """Ops whose single-use result this member's op consumes through its link."""
        operands = op.operands if self.link == ANY_OPERAND else op.operands[self.link: self.link + 1]
        found = []
        for value in operands:
            owner = value.owner
            if isinstance(owner, Operation) and value.has_one_use() and len(owner.results) == 1:
                found.append(owner)
        return found


@dataclass
class Match:
    pattern: "Pattern"
    ops: dict[str, Operation] = field(default_factory=dict)
    """Matched ops by member role."""

    def __getitem__(self, role: str) -> Operation:
        return self.ops[role]

    def get(self, role: str) -> Operation | None:
        return self.ops.get(role)

    @property
    def anchor(self) -> Operation:
        return self.ops[self.pattern.anchor]

    @property
    def root(self) -> Operation:
        return next(self.ops[m.role] for m in reversed(self.pattern.chain) if m.role in self.ops)

    def members(self) -> list[Operation]:
        """The matched ops in data-flow order."""
        return [self.ops[m.role] for m in self.pattern.chain if m.role in self.ops]


@dataclass(frozen=True)
class Pattern:
    name: str
    """The layer kind it builds (`conv2d`, `fc`, ...)."""
    chain: tuple[Member, ...]
    anchor: str
    """Role of the member whose operator anchors the layer."""
    build: Callable[[Match, PatternRewriter], None]
    check: Callable[[Match], str | None] = lambda match: None
    """None when the match can be fused, else why not."""


def match(pattern: Pattern, root: Operation) -> Match | None:
    """The longest match of `pattern` whose last matched member is `root`."""
    ops = _match_back(pattern.chain, len(pattern.chain) - 1, root)
    if ops is None or pattern.anchor not in ops:
        return None
    return Match(pattern, ops)


def candidates(pattern: Pattern, root: Operation) -> list[Match]:
    """Matches rooted at `root`, longest first: the longest, then the same without its
    optional members before the anchor, one at a time (a Pad that cannot be fused leaves
    the pool it feeds fusable on its own)."""
    found = match(pattern, root)
    if found is None:
        return []
    result = [found]
    for member in pattern.chain:
        if member.role == pattern.anchor:
            break
        if member.optional and member.role in found.ops:
            found = Match(pattern, {k: v for k, v in found.ops.items() if k != member.role})
            result.append(found)
    return result


def fusable(pattern: Pattern, root: Operation) -> tuple[Match | None, list[tuple[Match, str]]]:
    """The longest candidate whose check passes, and the longer ones with why they failed."""
    failures = []
    for candidate in candidates(pattern, root):
        if (why := pattern.check(candidate)) is None:
            return candidate, failures
        failures.append((candidate, why))
    return None, failures


def _match_back(chain: tuple[Member, ...], i: int, op: Operation) -> dict[str, Operation] | None:
    """Members chain[..i] matched so that the last matched one is `op`."""
    if i < 0:
        return None
    member = chain[i]
    if member.accepts(op):
        for producer in member.producers(op) if i > 0 else ():
            earlier = _match_back(chain, i - 1, producer)
            if earlier is not None:
                return earlier | {member.role: op}
        if all(m.optional for m in chain[:i]):
            return {member.role: op}
    if member.optional:
        return _match_back(chain, i - 1, op)
    return None


@dataclass
class FusionRewrite(RewritePattern):
    """Rewrites matches of `pattern` rooted at any op that `select` accepts."""

    pattern: Pattern
    select: Callable[[Match], bool] = lambda match: True

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for candidate in candidates(self.pattern, op):
            if self.select(candidate) and self.pattern.check(candidate) is None:
                self.pattern.build(candidate, rewriter)
                return
