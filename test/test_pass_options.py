"""The target options and the cost model reach every pass that estimates or decides:
`mrvl-pipeline` hands its own to each stage, `legalize-mrvl` estimates on the compile's
tiles, and report.html on the tiles each subgraph was compiled for."""

import re
from pathlib import Path

import onnx.parser
import pytest
from xdsl.context import Context

from mrvl.compile import compile_model
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass
from mrvl.target.cost_model import CostModelOptions
from mrvl.target.options import TargetOptions, TargetPassOptions
from mrvl_dialect.mrvl import LEGALIZED_ATTR

RELU6 = """<ir_version: 8, opset_import: ["" : 17]>
relu6 (float[1, 4, 8, 8] x) => (float[1, 4, 8, 8] y)
{
  w = Constant <value = float[4, 4, 1, 1] {1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1}> ()
  lo = Constant <value = float {0}> ()
  hi = Constant <value = float {6}> ()
  [c1] c = Conv (x, w)
  [clip6] r = Clip (c, lo, hi)
  [c2] y = Conv (r, w)
}"""
"""A ReLU6 between convs: legalising it adds two 1x1 depthwise convs (512 MACs) and saves
10.57 us (the Clip on the host, its transfers and a call)."""

NEAR_THE_THRESHOLD = "[mlip]\ndepthwise_efficiency = 3e-5\n"
"""An efficiency at which those convs take 8.5 us on 8 tiles and 17 us on 4."""


@pytest.fixture
def target_file(tmp_path: Path) -> str:
    path = tmp_path / "target.ini"
    path.write_text(NEAR_THE_THRESHOLD)
    return str(path)


def test_pipeline_hands_its_target_and_cost_model_to_every_stage_that_takes_them(target_file):
    pipeline = MrvlPipelinePass(num_tiles=4, quantize="int8", wb_pin_ocm=1, mcpu="cnf10kb", run_mode="hw",
                                target_file=target_file)
    stages = pipeline.passes()
    targeted = {s.name for s in stages if isinstance(s, TargetPassOptions)}
    costed = {s.name for s in stages if isinstance(s, CostModelOptions)}
    assert {"legalize-mrvl", "place-ops", "partition-mrvl", "fuse-mrvl"} <= targeted
    assert {"legalize-mrvl", "partition-mrvl"} <= costed
    for stage in stages:
        if isinstance(stage, TargetPassOptions):
            assert stage.target() == pipeline.target() == TargetOptions(
                "cnf10kb", 4, "int8", 1, "hw"), stage.name
        if isinstance(stage, CostModelOptions):
            assert stage.cost_model_options() == pipeline.cost_model_options(), stage.name


@pytest.mark.parametrize(("num_tiles", "legalized"), [(8, True), (4, False)])
def test_num_tiles_changes_the_legalize_decision_near_its_threshold(target_file, num_tiles, legalized):
    module = import_onnx(onnx.parser.parse_model(RELU6))
    MrvlPipelinePass(num_tiles=num_tiles, target_file=target_file).apply(Context(), module)
    assert (LEGALIZED_ATTR in module.attributes) == legalized
    clips = [op for op in module.walk() if op.name == "cpu.clip"]
    assert len(clips) == (0 if legalized else 1)


def test_report_html_estimates_on_the_compiles_tiles(tmp_path):
    model = tmp_path / "relu6.onnx"
    onnx.save(onnx.parser.parse_model(RELU6), model)
    times = {}
    for num_tiles in (8, 4):
        bundle = compile_model(model, tmp_path / f"tiles{num_tiles}", num_tiles=num_tiles).output
        page = (Path(bundle) / "report.html").read_text()
        title = re.search(r'data-name="c1"[^>]*><title>(.*?)</title>', page, re.S)
        assert title is not None
        found = re.search(r"estimated ([\d.]+) ns \(MLIP layer compute", title.group(1))
        assert found is not None, title.group(1)
        times[num_tiles] = float(found.group(1))
    assert times[4] == pytest.approx(2 * times[8], rel=0.01)
