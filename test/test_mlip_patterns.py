"""The pattern table and what is derived from it: layer kinds, fused-only operators, builders."""

from mrvl.passes.fuse_mrvl import BUILDERS
from mrvl.passes.mlip_patterns import FUSED_ONLY, LAYER_KINDS, PATTERNS


def test_layer_kinds_are_the_anchors_of_the_patterns():
    assert LAYER_KINDS == {
        "Conv": "conv2d", "Gemm": "fc", "MatMul": "fc", "MaxPool": "maxpool2d", "AveragePool": "avgpool2d",
        "GlobalAveragePool": "global_avgpool2d", "GlobalMaxPool": "global_maxpool2d", "Add": "sum",
        "Concat": "concat", "Reshape": "reshape", "Flatten": "batch_flatten", "Squeeze": "squeeze",
    }


def test_fused_only_operators_say_where_they_fuse():
    assert FUSED_ONLY == {
        "Relu": "fused after a Conv, Gemm, MatMul or Add",
        "BatchNormalization": "fused after a Conv",
        "Pad": "fused before a Conv, MaxPool or AveragePool",
        "Transpose": "fused before a Gemm or MatMul",  # Keras' NCHW -> NHWC before its Flatten
    }


def test_every_pattern_has_a_builder():
    assert set(BUILDERS) == {p.layer for p in PATTERNS}
