"""`MatchingOpsWalker` does the rewrites `PatternRewriteWalker` does, visiting fewer ops."""

from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker

from ir_helpers import parse_ir, print_ir
from mrvl.passes.convert_layout import TransposesCompose
from mrvl.passes.patterns_by_op_class import MatchingOpsWalker, PatternsByOpClass
from mrvl_dialect.graph_ops_gen import TransposeOp

# A pair that cancels, a pair that composes, a Relu nothing reads, and a Relu read only by
# transposes that nothing reads: it is dead once they are erased.
IR = """
func.func @f(%x: tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x4x2x3xf32>) {
  %a = graph.Transpose %x {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %b = graph.Transpose %a {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  %unused = graph.Relu %x : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %e = graph.Relu %x : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %f = graph.Transpose %e {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %g = graph.Transpose %f {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x3x4x2xf32>) -> tensor<1x2x3x4xf32>
  %r = graph.Relu %b : (tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %c = graph.Transpose %r {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x2x3x4xf32>) -> tensor<1x3x4x2xf32>
  %d = graph.Transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x4x2xf32>) -> tensor<1x4x2x3xf32>
  func.return %b, %d : tensor<1x2x3x4xf32>, tensor<1x4x2x3xf32>
}
"""


class RecordedPatterns(PatternsByOpClass):
    """Records the names of the ops the walker visits (and does not erase as dead)."""

    def __init__(self, visited: list[str]):
        super().__init__([((TransposeOp,), TransposesCompose())])
        self.visited = visited

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.visited.append(op.name)
        super().match_and_rewrite(op, rewriter)


def patterns(visited: list[str]) -> PatternsByOpClass:
    return RecordedPatterns(visited)


def test_same_rewrites_as_the_walker():
    walked, matched = parse_ir(IR), parse_ir(IR)
    PatternRewriteWalker(GreedyRewritePatternApplier([patterns([])])).rewrite_module(walked)
    MatchingOpsWalker(patterns([])).rewrite_module(matched)
    assert print_ir(matched) == print_ir(walked)
    assert print_ir(matched).count("graph.Relu") == 1
    assert print_ir(matched).count("graph.Transpose") == 1


def test_visits_the_ops_the_patterns_match_and_what_rewrites_touch():
    walked: list[str] = []
    PatternRewriteWalker(GreedyRewritePatternApplier([patterns(walked)])).rewrite_module(parse_ir(IR))
    visited: list[str] = []
    MatchingOpsWalker(patterns(visited)).rewrite_module(parse_ir(IR))
    # Other ops are visited only when a rewrite changes what they read: the Relu and the
    # return of the pair that cancels.
    assert "func.func" in walked and "func.func" not in visited
    assert visited.count("graph.Relu") == 1 < walked.count("graph.Relu")
    assert len(visited) < len(walked)


def test_keeps_dead_ops_unless_asked():
    module = parse_ir(IR)
    MatchingOpsWalker(patterns([]), erase_dead=False).rewrite_module(module)
    assert print_ir(module).count("graph.Relu") == 3
