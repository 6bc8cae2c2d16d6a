"""The report model (`backend/report_model.py`): every report renders from the model alone,
with no module and no emitted file; the model's counts agree with what the emitters write;
node labels (`mrvl_dialect/locations.py`)."""

import csv
import io
import json
import math

import pytest
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects import test as test_dialect

from mrvl.backend.compile_report import REPORT_FILES, report_files, summary
from mrvl.backend.mlip_json.layers import const_elements, describe, is_layer
from mrvl.backend.report_model import (
    Estimate,
    Graph,
    Host,
    HostKernelEstimate,
    LayoutTranspose,
    Node,
    NodeEstimate,
    Output,
    Report,
    Subgraph,
    build_report,
)
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes.mrvl_host_pipeline import MrvlHostPipelinePass
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass
from mrvl.target.cost_model import CostModel, HostWork, MlipEstimate, MlipWork, SubgraphEstimate
from mrvl.target.options import TargetOptions
from mrvl_dialect.locations import OnnxNode, fused_location, node_location, op_label
from mrvl_dialect.mrvl import SubgraphOp

CONV_ESTIMATE = NodeEstimate(2e-6, "MLIP layer compute", 2)
REPORT = Report(
    nodes=(
        Node("conv1", "Conv", "mlip", "sg0", "conv2d", layer="tvmgen_mrvl_main_0", estimate=CONV_ESTIMATE),
        Node("relu1", "Relu", "mlip", "sg0", "conv2d", layer="tvmgen_mrvl_main_0", estimate=CONV_ESTIMATE),
        Node("sm", "Softmax", "host", reasons=("unsupported: MLIP has no layer for Softmax",),
             estimate=NodeEstimate(5e-6, "host kernel sm (Softmax) (cpu.softmax)", 1)),
    ),
    subgraphs=(Subgraph("sg0", 1, 1, 1, 3000, 1200, 4096, 1024, 1024, TargetOptions(num_tiles=4)),),
    host=Host(kernels=1, macs=0, weight_bytes=64, arena_bytes=2048,
              transposes=(LayoutTranspose("y_nchw", 1024, "the model output 'y' is NCHW"),)),
    estimate=Estimate(
        (SubgraphEstimate("sg0", MlipWork(3000, 0, 300, 512), MlipEstimate(1e-6, 2e-6, 3e-6, 4e-6), 1),),
        (HostKernelEstimate("sm (Softmax) (cpu.softmax)", HostWork("memory", 0, 2048), 5e-6),),
        "host assumed"),
    graph=Graph(inputs=("x",), outputs=(Output("output:main:0", "y"),),
                edges=(("input:x", "conv1"), ("conv1", "relu1"), ("relu1", "sm"), ("sm", "output:main:0"))),
)


def test_every_report_renders_from_the_model_alone():
    files = report_files(REPORT)
    assert tuple(files) == REPORT_FILES
    assert summary(REPORT) == (
        "subgraph         layers  batch  calls    MACs  weights    activations\n"
        "sg0                   1      1      1  3.00 k  1.2 KiB        4.0 KiB\n"
        "host (1 kernel)       -      -      -       0     64 B  arena 2.0 KiB\n"
        "nodes 3: 2 on MLIP (66.7%), 1 on host; MACs 3.00 k, 100.0% on MLIP; 1 subgraph; host arena 2.0 KiB\n"
    )
    text = files["report.txt"]
    assert text.startswith(summary(REPORT) + "\n")
    assert "sm     Softmax  host                unsupported: MLIP has no layer for Softmax\n" in text
    assert text.endswith("host: sm (Softmax) (cpu.softmax)  5 us  memory, 2.05 k bytes\n")
    assert "estimated 14 us: MLIP 9 us in 1 call, host 5 us (host assumed)\n" in text
    assert ("layout transposes on the host: 1, 1.02 k elements\n"
            "  y_nchw: 1.02 k elements; the model output 'y' is NCHW\n") in text

    report = json.loads(files["report.json"])
    assert report["totals"] == {
        "nodes": 3, "mlip_nodes": 2, "host_nodes": 1, "subgraphs": 1, "macs": 3000, "mlip_macs": 3000,
        "mlip_macs_percent": 100.0, "mlip_layers": 1, "mlip_weight_bytes": 1200, "host_weight_bytes": 64,
        "host_arena_bytes": 2048,
    }
    assert report["host"]["layout_transposes"] == [
        {"label": "y_nchw", "elements": 1024, "reason": "the model output 'y' is NCHW"}]
    assert report["subgraphs"][0]["precision"] == "fp16" and "target" not in report["subgraphs"][0]
    assert report["nodes"][2]["reasons"] == ["unsupported: MLIP has no layer for Softmax"]
    assert report["estimate"]["host_ops"] == [
        {"label": "sm (Softmax) (cpu.softmax)", "kind": "memory", "macs": 0, "bytes": 2048, "seconds": 5e-6}]

    nodes = list(csv.DictReader(io.StringIO(files["report-nodes.csv"])))
    assert [(n["name"], n["layer"], n["quantized"]) for n in nodes] == [
        ("conv1", "tvmgen_mrvl_main_0", ""), ("relu1", "tvmgen_mrvl_main_0", ""), ("sm", "", "")]
    assert files["report-subgraphs.csv"].splitlines()[1:] == [
        "sg0,1,1,1,3000,1200,4096,1024,1024,fp16", "host,1,,,0,64,2048,,,fp32"]

    page = files["report.html"]
    assert page.count('<g class="node"') == 3 and page.count('<g class="io"') == 2
    assert page.count('<path class="edge"') == 4
    assert "estimated 2 us (MLIP layer compute, shared by 2 nodes)" in page


def test_a_module_without_nodes_has_an_empty_report():
    report = build_report(ModuleOp([]), CostModel.load())
    assert report.nodes == () and report.subgraphs == () and report.estimate is None
    assert report.host == Host(0, 0, 64, 0) and report.graph == Graph((), (), ())


@pytest.fixture(scope="module")
def lowered(zoo_dir):
    modules = {}
    for name in ("mobilenet_small", "resnet_small", "yolov3_tiny", "mnist"):
        module = import_onnx(zoo_dir / f"{name}.onnx", ZOO_INPUT_SHAPES[name])
        MrvlPipelinePass().apply(Context(), module)
        MrvlHostPipelinePass().apply(Context(), module)
        modules[name] = module
    return modules


def test_const_elements_counts_what_describe_lists(lowered):
    checked = 0
    for module in lowered.values():
        for subgraph in (op for op in module.walk() if isinstance(op, SubgraphOp)):
            for j, op in enumerate(op for op in subgraph.body.block.ops if is_layer(op)):
                listed = sum(math.prod(c.shape) for c in describe(op, j, subgraph.sym_name.data).consts)
                assert const_elements(op) == listed, op.name
                checked += listed > 0
    assert checked > 20


def test_model_of_a_lowered_module(lowered):
    report = build_report(lowered["mobilenet_small"], CostModel.load())
    assert report.estimate is not None and 0 < len(report.estimate.kernels) <= report.host.kernels
    assert {node.name for node in report.nodes if node.place == "mlip"} == {
        node.name for node in report.nodes if node.layer is not None}
    assert [(t.label, t.reason) for t in report.host.transposes] == [
        ("conv2d_16.tmp", "the model output 'save_infer_model/scale_0.tmp_0' is NCHW")]
    drawn = {node.name for node in report.nodes} | {f"input:{name}" for name in report.graph.inputs} | {
        output.id for output in report.graph.outputs}
    assert report.graph.edges and all(a in drawn and b in drawn and a != b for a, b in report.graph.edges)


def test_labels():
    assert OnnxNode("conv1", "Conv").label == "conv1 (Conv)" and OnnxNode("conv1").label == "conv1"
    assert OnnxNode("c", "Conv").sourcemap_entry() == {"name": "c", "op_type": "Conv"}
    assert OnnxNode("c").sourcemap_entry() == {"name": "c"}
    op = test_dialect.TestOp()
    assert op_label(op) == "inserted by the compiler (test.op)"
    op = test_dialect.TestOp()
    op.location = fused_location([node_location("c1", "Conv"), node_location("r1")])
    assert op_label(op) == "c1 (Conv), r1 (test.op)"
