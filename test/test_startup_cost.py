"""What keeps a compile and a tool's start cheap: shared attribute instances, and modules
imported only when needed (`docs/performance.md`)."""

import subprocess
import sys

from xdsl.dialects.builtin import DenseArrayBase, TensorType, f32, i64

from mrvl_dialect.shared_attributes import i64_array, tensor_type


def test_tensor_types_are_shared_and_equal_to_built_ones():
    first = tensor_type(f32, [1, 16, 8, 8])
    assert first == TensorType(f32, [1, 16, 8, 8])
    assert tensor_type(f32, (1, 16, 8, 8)) is first
    assert tensor_type(f32, [1, 8, 8, 16]) != first


def test_i64_arrays_are_shared_and_equal_to_built_ones():
    perm = i64_array((0, 2, 3, 1))
    assert perm == DenseArrayBase.from_list(i64, [0, 2, 3, 1])
    assert i64_array([0, 2, 3, 1]) is perm


def test_mrvl_opt_imports_no_emitter_report_or_onnx_evaluator():
    """A pass test (`mrvl-opt x.mlir -p pass`) should not pay for the C and JSON emitters,
    the reports, the compile driver or onnx.reference."""
    heavy = ["mrvl.backend.c_emitter", "mrvl.backend.json_emitter", "mrvl.backend.compile_report",
             "mrvl.compile", "mrvl_dialect.cpu", "onnx.reference"]
    script = f"import sys, mrvl.opt; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
