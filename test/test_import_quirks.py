"""What real exporters write and onnxruntime accepts: Paddle2ONNX's -1 dims, stale
value_info and graph output declarations, PyTorch Ifs whose condition is constant once
inputs are fixed; and the one-line error for control flow that stays."""

import json
import shutil
from pathlib import Path

import onnx
import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from onnx import TensorProto, helper

from mrvl.compile import main as compile_main
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.run import main as run_main
from mrvl_dialect.errors import CompileError, CompileWarning


def test_paddle_minus_one_dims_ask_for_input_shape_then_import():
    model = zoo.paddle_ocr_rec()
    with pytest.raises(CompileError, match=r"^graph input 'x': dim 0 of 'x' is dynamic; fix it with "
                                           r"--input-shape x=1x3x1x1$"):
        import_onnx(model)
    function = import_onnx(model, {"x": [1, 3, 32, 100]}).body.block.first_op
    assert [str(t) for t in function.function_type.outputs] == ["tensor<1x25x37xf32>"]


def test_stale_value_info_is_one_python_warning():
    with pytest.warns(CompileWarning) as caught:
        import_onnx(zoo.ocr_cls_stale())
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "node '/head/Reshape' (Reshape): the model's value_info gives '/head/Reshape_output_0' shape [1, 4096], "
        "shape inference [1, 32, 128]; using the inferred shape")


def test_mrvl_compile_prints_the_warning_line_and_succeeds(zoo_dir: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    model = zoo_dir / "ocr_cls_stale.onnx"
    assert compile_main([str(model), "-o", str(tmp_path / "b")]) == 0
    lines = capsys.readouterr().err.splitlines()
    warnings = [line for line in lines if line.startswith("warning: ")]
    assert len(warnings) == 1 and warnings[0].startswith(f"warning: {model}: node '/head/Reshape' (Reshape): ")


CAPTCHA_WARNING = ("node '/Reshape_1' (Reshape): the model declares graph output 'output' with shape [1, seqlen], "
                   "shape inference gives [24, 1, 37]; using the inferred shape")


def test_stale_graph_output_is_one_python_warning():
    with pytest.warns(CompileWarning) as caught:
        function = import_onnx(zoo.captcha_crnn_stale()).body.block.first_op
    assert [str(w.message) for w in caught] == [CAPTCHA_WARNING]
    assert [str(t) for t in function.function_type.outputs] == ["tensor<24x1x37xf32>"]


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs cc and make")
def test_stale_graph_output_compiles_to_the_inferred_shape_and_verifies(
        zoo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model, bundle = zoo_dir / "captcha_crnn_stale.onnx", tmp_path / "b"
    assert compile_main([str(model), "-o", str(bundle)]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert warnings == [f"warning: {model}: {CAPTCHA_WARNING}"]
    meta = json.loads((bundle / "metadata.json").read_text())
    assert [(o["name"], o["shape"]) for o in meta["outputs"]] == [("output", [24, 1, 37])]
    assert "#define CAPTCHA_CRNN_STALE_OUTPUT_0_SHAPE {24, 1, 37}\n" in (bundle / "captcha_crnn_stale.h").read_text()
    for precision in ("fp16", "fp32"):
        assert run_main([str(bundle), "--verify", str(model), "--precision", precision]) == 0
        assert capsys.readouterr().out.rstrip().endswith(" ok")


def test_constant_ifs_leave_no_control_flow():
    module = import_onnx(zoo.vad_if(), ZOO_INPUT_SHAPES["vad_if"])
    names = [op.name for op in module.walk()]
    assert "graph.If" not in names and "graph.Shape" not in names
    assert names.count("graph.Conv") == 3


@pytest.mark.parametrize("op_type", ["Loop", "Scan"])
def test_control_flow_that_does_not_fold_is_one_error_line(op_type: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    body_in = [helper.make_tensor_value_info("v", TensorProto.FLOAT, [4])]
    if op_type == "Loop":
        body_in = [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                   helper.make_tensor_value_info("c", TensorProto.BOOL, []), *body_in]
    body_out = [helper.make_tensor_value_info("w", TensorProto.FLOAT, [4])]
    nodes = [helper.make_node("Neg", ["v"], ["w"], name="neg")]
    if op_type == "Loop":
        body_out.insert(0, helper.make_tensor_value_info("c_out", TensorProto.BOOL, []))
        nodes.append(helper.make_node("Identity", ["c"], ["c_out"], name="keep_going"))
    body = helper.make_graph(nodes, "body", body_in, body_out)
    inputs = ["n", "", "x"] if op_type == "Loop" else ["x"]
    attrs = {"body": body} if op_type == "Loop" else {"body": body, "num_scan_inputs": 0}
    node = helper.make_node(op_type, inputs, ["y"], name="the_loop", **attrs)
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])]
    if op_type == "Loop":
        graph_inputs.insert(0, helper.make_tensor_value_info("n", TensorProto.INT64, []))
    graph = helper.make_graph([node], "g", graph_inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), path)
    assert compile_main([str(path), "-o", str(tmp_path / "b")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {path}: node 'the_loop' ({op_type}): "), err
