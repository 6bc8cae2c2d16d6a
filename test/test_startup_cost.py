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


def test_tools_leave_their_objects_uncollected_at_exit():
    """A garbage cycle left at exit is not collected (its finalizer never runs) once a tool
    has asked to skip the exit's collections; without that, the exit collects it."""
    script = """if True:
        import gc, sys
        from mrvl.opt import skip_exit_collection
        if sys.argv[1] == "skip":
            skip_exit_collection()
            skip_exit_collection()
        gc.disable()
        class Cycle:
            def __del__(self):
                print("collected")
        cycle = Cycle()
        cycle.me = cycle
        del cycle
    """
    for mode, expected in (("skip", ""), ("collect", "collected")):
        done = subprocess.run([sys.executable, "-c", script, mode], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == expected


def test_attributes_built_unverified_equal_built_ones():
    """Locations and resource handles skip xDSL's verification, not its equality or hash."""
    from xdsl.dialects.builtin import ArrayAttr, DenseResourceAttr, FusedLoc, NameLoc, NoneAttr, StringAttr

    from mrvl_dialect.locations import fused_location, node_location, with_op_type
    from mrvl_dialect.shared_attributes import resource_attr

    conv = NameLoc(StringAttr("conv1"), NameLoc(StringAttr("Conv"), NoneAttr()))
    relu = NameLoc(StringAttr("relu1"), NoneAttr())
    built = [node_location("conv1", "Conv"), with_op_type(node_location("conv1"), "Conv"), node_location("relu1"),
             fused_location([node_location("conv1", "Conv"), node_location("relu1")]),
             resource_attr("w", tensor_type(f32, [2]))]
    expected = [conv, conv, relu, FusedLoc(ArrayAttr([conv, relu]), NoneAttr()),
                DenseResourceAttr.from_params("w", TensorType(f32, [2]))]
    assert built == expected
    assert [hash(a) for a in built] == [hash(a) for a in expected]
    assert [str(a) for a in built] == [str(a) for a in expected]


def test_tensor_shapes_are_their_types_dims():
    from mrvl_dialect.shared_attributes import tensor_shape

    shared = tensor_type(f32, [1, 16, 8, 8])
    assert tensor_shape(shared) == (1, 16, 8, 8)
    assert tensor_shape(shared) == (1, 16, 8, 8)  # found again by identity
    assert tensor_shape(TensorType(f32, [2, 3])) == (2, 3)
    assert tensor_shape(f32) is None
