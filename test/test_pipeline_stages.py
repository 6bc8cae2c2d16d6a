"""Pipeline stages (`mrvl-compile --stages`, issue 32): the split against brute force, the
pipeline model against its closed form, and stage bundles chained frame by frame against
the whole model's bundle, bit for bit."""

import itertools
import json
import math
import tarfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, settings, strategies as st
from onnx import TensorProto, helper, numpy_helper

import zoo
from mrvl.compile import Stages, compile_model, partition
from mrvl.passes.split_stages import TILE_SHARES, SplitStagesPass, StageCosts, best_split, stage_costs
from mrvl.run import run_bundle
from mrvl.target.cost_model import CostModel
from mrvl.target.pipeline_model import simulate
from mrvl.timing import Timing
from test_json_schema import validate

SCHEMA = json.loads((Path(__file__).parents[1] / "schemas" / "pipeline.schema.json").read_text())


# --- The split against brute force --------------------------------------------------------


@st.composite
def random_costs(draw) -> StageCosts:
    """Random ops: each a host kernel or an MLIP call (its time falling with the tiles, as
    the cost model's does), and random bytes live across each cut."""
    n = draw(st.integers(1, 7))
    tiles = draw(st.sampled_from(TILE_SHARES))
    seconds = st.floats(0.0, 10.0, allow_nan=False)
    on_mlip = [draw(st.booleans()) for _ in range(n)]
    host = np.concatenate([[0.0], np.cumsum([0.0 if m else draw(seconds) for m in on_mlip])])
    compute = [draw(seconds) if m else 0.0 for m in on_mlip]
    fixed = [draw(st.floats(0.0, 1.0)) if m else 0.0 for m in on_mlip]
    mlip = {s: np.concatenate([[0.0], np.cumsum([c / s + f for c, f in zip(compute, fixed)])])
            for s in TILE_SHARES if s <= tiles}
    calls = np.concatenate([[0], np.cumsum(on_mlip)])
    live = np.array([draw(st.integers(0, 1000)) for _ in range(n + 1)], dtype=np.float64)
    return StageCosts(host, mlip, calls, live, draw(st.sampled_from([100.0, 1000.0])), tiles)


def brute_force(costs: StageCosts, stages: int) -> float:
    """The least largest stage time over every cut and every share of the tiles."""
    best = math.inf
    for cuts in itertools.combinations(range(1, costs.ops), stages - 1):
        bounds = (0, *cuts, costs.ops)
        for shares in itertools.product((0, *costs.shares()), repeat=stages):
            if sum(shares) > costs.tiles:
                continue
            estimates = [costs.stage(bounds[k], bounds[k + 1], s) for k, s in enumerate(shares)]
            if all(e is not None for e in estimates):
                best = min(best, max(e.seconds for e in estimates))  # type: ignore[union-attr]
    return best


@settings(max_examples=150, deadline=None)
@given(random_costs(), st.integers(1, 7))
def test_split_is_the_least_largest_stage(costs: StageCosts, stages: int):
    stages = min(stages, costs.ops)
    split = best_split(costs, stages)
    expected = brute_force(costs, stages)
    if split is None:
        assert expected == math.inf
        return
    assert len(split.estimates) == stages and split.bounds[0] == 0 and split.bounds[-1] == costs.ops
    assert all(a < b for a, b in zip(split.bounds, split.bounds[1:]))
    assert sum(split.shares) <= costs.tiles
    assert max(e.seconds for e in split.estimates) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_resnet50_in_four_stages_is_balanced(tmp_path: Path):
    """At 4 stages the largest of ResNet-50's (all-host) is within 15% of a quarter of the whole."""
    model = tmp_path / "resnet50.onnx"
    onnx.save(zoo.resnet50_sized(), model)
    module = partition(model, Stages(Timing()), offload=False)
    whole = best_split(stage_costs(module, CostModel.load()), 1)
    split = SplitStagesPass(stages=4).split(module)
    assert whole is not None and len(split.estimates) == 4
    assert max(e.seconds for e in split.estimates) <= 1.15 * whole.estimates[0].seconds / 4


# --- The pipeline model -------------------------------------------------------------------


@pytest.mark.parametrize("replicas", [1, 3])
def test_copies_run_at_one_frame_per_slowest_stage(replicas: int):
    run = simulate([1e-3, 3e-3, 2e-3], [1e-4, 1e-4], replicas, 3000 * replicas)
    assert run.frames_per_s == pytest.approx(replicas / 3e-3, rel=2e-3)
    assert run.latency_s == pytest.approx(6e-3 + 2e-4)


def test_a_slow_link_is_the_bottleneck():
    run = simulate([1e-3, 1e-3], [5e-3], 2, 4000)
    assert run.frames_per_s == pytest.approx(2 / 5e-3, rel=2e-3)


# --- Stage bundles chained against the whole ----------------------------------------------


def yolo_style_detector() -> onnx.ModelProto:
    """A backbone of SiLU convs to three scales, an FPN neck (upsample, concat with the
    backbone's features: skips across stages) and a head per scale."""
    rng = np.random.default_rng(5)
    nodes, inits = [], []

    def conv(x: str, cin: int, cout: int, name: str, stride: int = 1) -> str:
        w = numpy_helper.from_array((rng.standard_normal((cout, cin, 3, 3)) * (2 / (9 * cin)) ** 0.5)
                                    .astype(np.float32), f"{name}.w")
        b = numpy_helper.from_array(rng.standard_normal(cout).astype(np.float32) * 0.1, f"{name}.b")
        inits.extend([w, b])
        nodes.append(helper.make_node("Conv", [x, w.name, b.name], [f"{name}.conv"], name=f"{name}.conv",
                                      pads=[1, 1, 1, 1], strides=[stride, stride]))
        nodes.append(helper.make_node("Sigmoid", [f"{name}.conv"], [f"{name}.sig"], name=f"{name}.sig"))
        nodes.append(helper.make_node("Mul", [f"{name}.conv", f"{name}.sig"], [name], name=f"{name}.mul"))
        return name

    def up_concat(small: str, skip: str, name: str) -> str:
        inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), f"{name}.scales"))
        nodes.append(helper.make_node("Resize", [small, "", f"{name}.scales"], [f"{name}.up"], name=f"{name}.up",
                                      mode="nearest"))
        nodes.append(helper.make_node("Concat", [f"{name}.up", skip], [f"{name}.cat"], name=f"{name}.cat", axis=1))
        return f"{name}.cat"

    p3 = conv(conv(conv("images", 3, 8, "b0", 2), 8, 8, "b1", 2), 8, 16, "b2", 2)
    p4 = conv(p3, 16, 16, "b3", 2)
    p5 = conv(conv(p4, 16, 24, "b4", 2), 24, 24, "b5")
    n4 = conv(up_concat(p5, p4, "n4"), 40, 16, "n4c")
    n3 = conv(up_concat(n4, p3, "n3"), 32, 16, "n3c")
    heads = [conv(n3, 16, 8, "h3"), conv(n4, 16, 8, "h4"), conv(p5, 24, 8, "h5")]
    graph = helper.make_graph(nodes, "detector", [helper.make_tensor_value_info("images", TensorProto.FLOAT,
                                                                                [1, 3, 64, 64])],
                              [helper.make_tensor_value_info(h, TensorProto.FLOAT, None) for h in heads], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def chain_matches_whole(model: Path, tmp_path: Path, stages: int, **options) -> dict:
    """Compile `model` whole and in `stages` stages, run the stage bundles one after the
    other on two frames, and check every output bit for bit, and the archive's report
    against the whole bundle's; the manifest."""
    whole = compile_model(model, tmp_path / "whole.tar", **options).output
    pipeline = compile_model(model, tmp_path / "pipeline.tar", pipeline_stages=stages, **options).output
    folder = tmp_path / "pipeline"
    with tarfile.open(pipeline) as archive:
        archive.extractall(folder)
    document = json.loads((folder / "pipeline.json").read_text())
    assert not validate(document, SCHEMA)
    assert len(document["stages"]) == stages
    # The archive's report is the whole model's: its host part lowered as the whole bundle's.
    whole_report = json.loads(tarfile.open(whole).extractfile("report.json").read())  # type: ignore[union-attr]
    assert json.loads((folder / "report.json").read_text())["host"] == whole_report["host"]
    rng = np.random.default_rng(0)
    for _ in range(2):
        frame = {t["name"]: rng.standard_normal(t["shape"]).astype(np.float32) for t in document["inputs"]}
        expected = run_bundle(whole, frame, precision="fp32", simulator="reference")
        tensors = frame
        for stage in document["stages"]:
            bundle = folder / stage["bundle"]
            metadata = json.loads(tarfile.open(bundle).extractfile("metadata.json").read())  # type: ignore[union-attr]
            assert [t["name"] for t in metadata["inputs"]] == [t["name"] for t in stage["inputs"]]
            assert [t["name"] for t in metadata["outputs"]] == [t["name"] for t in stage["outputs"]]
            tensors = run_bundle(bundle, {t["name"]: tensors[t["name"]] for t in stage["inputs"]},
                                 precision="fp32", simulator="reference")
        for output in document["outputs"]:
            assert np.array_equal(tensors[output["name"]], expected[output["name"]]), output["name"]
    return document


@pytest.fixture
def quick_builds(monkeypatch):
    """The bundles built at -O1: bit-identity holds at any level, and -O3 takes seconds a bundle."""
    monkeypatch.setenv("CFLAGS", "-std=c99 -O1 -ffp-contract=fast")


def test_resnet_in_two_stages_matches_the_whole(tmp_path: Path, quick_builds):
    model = tmp_path / "resnet_small.onnx"
    onnx.save(zoo.resnet_small(), model)
    chain_matches_whole(model, tmp_path, 2, offload=False, input_shapes={"input": [1, 3, 64, 64]})


@pytest.mark.parametrize("offload", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["all-host", "partitioned"])
def test_detector_in_four_stages_matches_the_whole(tmp_path: Path, quick_builds, offload: bool):
    model = tmp_path / "detector.onnx"
    onnx.save(yolo_style_detector(), model)
    document = chain_matches_whole(model, tmp_path, 4, offload=offload)
    forwarded = [t["name"] for s in document["stages"] for t in s["outputs"] if t["forwarded"]]
    assert forwarded, "the neck's skips cross more than one stage"
    if offload:
        assert any(s["mlip_tiles"] for s in document["stages"])
        assert sum(s["mlip_tiles"] for s in document["stages"]) <= document["tiles"]
