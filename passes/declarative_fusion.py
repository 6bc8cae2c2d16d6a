"""Fusion patterns as data: a chain of op classes, and the matchers that read it.

A `Pattern` is a chain of `Member`s in data-flow order (producer first, root last), some
optional, exactly one of them the anchor whose operator gives the layer kind; the pattern
builds one `layer` op. Each member after the first consumes the previous one's result,
which must have no other use (fusing must not hide a value someone else reads). A
pattern-level `check` vets a whole match. `match(pattern, root)` finds the longest chain
ending at `root`, `fusable` the longest that passes the check, and `match_members` reads
ops already chosen (a group `place-ops` recorded) as a match.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.ir import Operation

ANY_OPERAND = -1


@dataclass(frozen=True)
class Member:
    role: str
    """How builders and checks refer to the matched op ("conv", "bias", ...)."""
    ops: tuple[type[Operation], ...]
    """The `graph` op classes that can fill this member."""
    optional: bool = False
    link: int = 0
    """Which operand of this op is the previous member's result (ANY_OPERAND: either)."""
    when: Callable[[Operation], bool] | None = None
    """A cheap structural filter on the op alone."""

    @property
    def op_types(self) -> tuple[str, ...]:
        """The ONNX operators that can fill this member (`Conv` for `graph.Conv`)."""
        return tuple(cls.name.removeprefix("graph.") for cls in self.ops)

    def accepts(self, op: Operation) -> bool:
        return isinstance(op, self.ops) and (self.when is None or self.when(op))

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
    layer: type[Operation]
    """The layer op a match becomes (`mrvl.Conv2DOp`, ...)."""
    chain: tuple[Member, ...]
    anchor: str
    """Role of the member whose operator anchors the layer."""
    check: Callable[[Match], str | None] = lambda match: None
    """None when the match can be fused, else why not."""

    @property
    def name(self) -> str:
        """The layer kind (`conv2d` for `mrvl.conv2d`): what placement records and reports."""
        return self.layer.name.removeprefix("mrvl.")

    @property
    def anchor_member(self) -> Member:
        return next(m for m in self.chain if m.role == self.anchor)


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


def match_members(pattern: Pattern, ops: Sequence[Operation]) -> Match | None:
    """`ops`, in data-flow order, as a match of `pattern`: each fills the next member that
    accepts it and consumes the one before; None when they are no such chain (or lack the
    anchor). Members left out must be optional."""
    roles: dict[str, Operation] = {}
    chain, i, previous = pattern.chain, 0, None
    for op in ops:
        while i < len(chain) and not chain[i].accepts(op):
            if not chain[i].optional:
                return None
            i += 1
        if i == len(chain) or (previous is not None and previous not in chain[i].producers(op)):
            return None
        roles[chain[i].role] = previous = op
        i += 1
    if pattern.anchor not in roles or not all(m.optional for m in chain[i:]):
        return None
    return Match(pattern, roles)
