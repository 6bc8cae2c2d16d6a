"""`mrvl-run` of a pipeline archive under mpirun: a small net with a residual that skips a
stage, cut by hand (test/pipeline_stages.py: the runner alone) into 2 and 4 stages (4 ranks
oversubscribe this machine's cores), and as `mrvl-compile --stages 2` cuts it, gives every
frame's outputs bit for bit as the whole model's bundle does, all-host and with its convs on
the reference simulator (fp32), and with its ranks placed by a hostfile; so does the zoo's YOLOv8 as `--stages 4` cuts it, its neck's
skips forwarded (slow); a profile of the stages running side by side cuts them again; and each failure is one `error:` line with exit
status 1, a failing or killed stage stopping every rank."""

import io
import json
import shutil
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from pipeline_stages import write_pipeline
from zoo import yolov8_det

from mrvl.compile import compile_model
from mrvl.pipeline_run import FAULT_VARIABLE, MPIRUN_MISSING, RANK_MODULE
from mrvl.run import main as mrvl_run, run_bundle

pytestmark = [pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs mpirun (Open MPI: openmpi-bin)"),
              pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None,
                                 reason="needs cc and make")]

FRAMES = 5
CUTS = {2: ["b"], 4: ["a", "b", "s"]}
"""Stage cuts of `_skip_net`: with 4, `a` skips stage 1 (forwarded) and the model output `b`,
made by stage 1, is forwarded by stages 2 and 3."""
RUNS = [("host", 2, "fp16"), ("host", 4, "fp16"), ("partitioned", 4, "fp32")]
"""Placement, stages and accelerator precision of each run checked against the whole bundle."""


def _skip_net() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    nodes, weights = [], []

    def conv_relu(x: str, name: str) -> str:
        weight = (rng.standard_normal((8, 8, 3, 3)) * 0.2).astype(np.float32)
        weights.append(numpy_helper.from_array(weight, f"{name}_w"))
        nodes.append(helper.make_node("Conv", [x, f"{name}_w"], [f"{name}_conv"], name=f"{name}_conv", pads=[1] * 4))
        nodes.append(helper.make_node("Relu", [f"{name}_conv"], [name], name=name))
        return name

    a = conv_relu("x", "a")
    b = conv_relu(a, "b")
    nodes.append(helper.make_node("Add", [conv_relu(b, "c"), a], ["s"], name="s"))
    d = conv_relu("s", "d")
    shape = [1, 8, 16, 16]
    graph = helper.make_graph(nodes, "skip_net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info(d, TensorProto.FLOAT, shape),
                               helper.make_tensor_value_info(b, TensorProto.FLOAT, shape)], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.fixture(scope="module")
def skip_net(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The net's file, per-frame inputs, and per placement its whole bundle and 2- and 4-stage archives."""
    folder = tmp_path_factory.mktemp("pipeline")
    model = folder / "skip_net.onnx"
    onnx.save(_skip_net(), model)
    inputs = folder / "frames.npz"
    np.savez(inputs, x=np.random.default_rng(0).standard_normal((FRAMES, 1, 8, 16, 16)).astype(np.float32))
    built = {"model": model, "inputs": inputs}
    for place, stages, _ in RUNS:
        offload = place == "partitioned"
        if (place, 1) not in built:
            built[place, 1] = compile_model(model, folder / f"{place}.tar", offload=offload).output
        built[place, stages] = write_pipeline(model, CUTS[stages], folder / f"{place}-{stages}.tar", offload=offload)
    return built


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    status = mrvl_run([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("place, stages, precision", [
    pytest.param(*run, marks=pytest.mark.slow) if run == ("host", 4, "fp16") else run  # suite time
    for run in RUNS])
def test_frames_match_the_whole_bundle(skip_net, place, stages, precision, tmp_path, capsys):
    outputs = tmp_path / "outputs.npz"
    status, out, err = _run([skip_net[place, stages], "--frames", FRAMES, "--inputs", skip_net["inputs"],
                             "--outputs", outputs, "--precision", precision], capsys)
    assert (status, err) == (0, "")
    assert f"{stages} stages on {stages} MPI ranks, {FRAMES} frames in " in out
    assert all(f"  stage {k:<3} busy " in out for k in range(stages))
    with np.load(skip_net["inputs"]) as given, np.load(outputs) as got:
        assert sorted(got.files) == ["b", "d"]
        for k in range(FRAMES):
            want = run_bundle(skip_net[place, 1], {"x": given["x"][k]}, precision=precision)
            for name, array in want.items():
                assert np.array_equal(got[name][k], array), f"frame {k}, output {name}"


def test_mrvl_compile_stages_run_as_the_whole_bundle(skip_net, tmp_path, capsys):
    """The archive `mrvl-compile --stages 2` writes (the split its cost model chooses)."""
    archive = compile_model(skip_net["model"], tmp_path / "split.tar", offload=False, pipeline_stages=2).output
    status, out, err = _run([archive, "--frames", FRAMES, "--inputs", skip_net["inputs"], "--outputs",
                             tmp_path / "out.npz"], capsys)
    assert (status, err) == (0, "") and "2 stages on 2 MPI ranks" in out
    with np.load(skip_net["inputs"]) as given, np.load(tmp_path / "out.npz") as got:
        for k in range(FRAMES):
            for name, array in run_bundle(skip_net["host", 1], {"x": given["x"][k]}).items():
                assert np.array_equal(got[name][k], array), f"frame {k}, output {name}"


def test_a_hostfile_places_the_ranks(skip_net, tmp_path, capsys):
    """`--hostfile` goes to mpirun, which then places the ranks on the hosts it lists and no
    more (no `--oversubscribe`): this machine alone, as Open MPI's hostfile names it, runs
    the 2 stages in its 2 slots, and refuses them in 1."""
    hosts = tmp_path / "hosts"
    hosts.write_text("localhost slots=2\n")
    outputs = tmp_path / "outputs.npz"
    status, out, err = _run([skip_net["host", 2], "--frames", FRAMES, "--inputs", skip_net["inputs"],
                             "--outputs", outputs, "--hostfile", hosts], capsys)
    assert (status, err) == (0, "") and "2 stages on 2 MPI ranks" in out
    with np.load(skip_net["inputs"]) as given, np.load(outputs) as got:
        for k in range(FRAMES):
            for name, array in run_bundle(skip_net["host", 1], {"x": given["x"][k]}).items():
                assert np.array_equal(got[name][k], array), f"frame {k}, output {name}"

    hosts.write_text("localhost slots=1\n")
    status, out, err = _run([skip_net["host", 2], "--frames", FRAMES, "--hostfile", hosts], capsys)
    assert status == 1 and out == ""
    assert err == (f"error: {skip_net['host', 2]}: mpirun: failed (exit status 1): There are not enough slots "
                   "available in the system to satisfy the 2 slots that were requested by the application\n")


@pytest.mark.slow
@pytest.mark.parametrize("place", ["host", "partitioned"])
def test_detector_in_four_stages(place, tmp_path, capsys):
    """The zoo's YOLOv8 as `mrvl-compile --stages 4` cuts it: p3, p4 and p5 cross stages."""
    model = tmp_path / "yolov8_det.onnx"
    onnx.save(yolov8_det(), model)
    offload = place == "partitioned"
    whole = compile_model(model, tmp_path / "whole.tar", offload=offload).output
    archive = compile_model(model, tmp_path / "stages.tar", offload=offload, pipeline_stages=4).output
    frames = np.random.default_rng(1).standard_normal((3, 1, 3, 320, 320)).astype(np.float32)
    np.savez(tmp_path / "frames.npz", images=frames)
    status, _, err = _run([archive, "--frames", 3, "--inputs", tmp_path / "frames.npz", "--outputs",
                           tmp_path / "out.npz", "--precision", "fp32"], capsys)
    assert (status, err) == (0, "")
    with np.load(tmp_path / "out.npz") as got:
        for k in range(3):
            want = run_bundle(whole, {"images": frames[k]}, precision="fp32")["output0"]
            assert np.array_equal(got["output0"][k], want), f"frame {k}"


def _rank_processes(marker: str) -> list[str]:
    """Command lines of running pipeline ranks that mention `marker`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if RANK_MODULE in text and marker in text:
            found.append(text)
    return found


@pytest.mark.parametrize("fault, message", [("raise", "RuntimeError: fault injected by MRVL_PIPELINE_FAULT"),
                                            ("kill", "its process was ended by SIGKILL")])
def test_a_failing_stage_stops_the_pipeline(skip_net, fault, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(FAULT_VARIABLE, f"1:3:{fault}")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the run's folder, named in the ranks' command lines
    status, out, err = _run([skip_net["host", 4], "--frames", FRAMES], capsys)
    assert (status, out) == (1, "")
    assert err == f"error: {skip_net['host', 4]}: stage 1, frame 3: {message}\n"
    assert _rank_processes(str(tmp_path)) == []


def test_ranks_must_match_stages(skip_net, capsys):
    status, _, err = _run([skip_net["host", 4], "--frames", 2, "--np", 2], capsys)
    assert (status, err) == (1, f"error: {skip_net['host', 4]}: --np: is 2; the pipeline has 4 stages, one rank each\n")


def test_missing_mpirun(skip_net, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    status, _, err = _run([skip_net["host", 2], "--frames", 2], capsys)
    assert (status, err) == (1, f"error: {skip_net['host', 2]}: {MPIRUN_MISSING}\n")


def _edited_archive(original_path: Path, archive: Path, edit) -> Path:
    """`original_path` with its pipeline.json changed by `edit(manifest)`."""
    with tarfile.open(original_path) as original, tarfile.open(archive, "w") as edited:
        for member in original.getmembers():
            data = original.extractfile(member).read()
            if member.name == "pipeline.json":
                manifest = json.loads(data)
                edit(manifest)
                data = json.dumps(manifest).encode()
                member.size = len(data)
            edited.addfile(member, io.BytesIO(data))
    return archive


def test_manifest_must_match_the_bundles(skip_net, tmp_path, capsys):
    def drop_the_residual(manifest: dict) -> None:  # stage 1's bundle still forwards `a`
        manifest["stages"][1]["outputs"] = [t for t in manifest["stages"][1]["outputs"] if t["name"] != "a"]

    archive = _edited_archive(skip_net["host", 4], tmp_path / "edited.tar", drop_the_residual)
    status, _, err = _run([archive, "--frames", 2], capsys)
    assert (status, err) == (1, f"error: {archive}: stage 1: its bundle's inputs and outputs (metadata.json) "
                                "differ from pipeline.json's\n")


def test_stages_must_chain(skip_net, tmp_path, capsys):
    def skip_stage_1(manifest: dict) -> None:  # stage 2 takes `b`, which stage 0 does not send
        stages = manifest["stages"]
        manifest["stages"] = [stages[0], stages[2] | {"stage": 1}, stages[3] | {"stage": 2}]

    archive = _edited_archive(skip_net["host", 4], tmp_path / "edited.tar", skip_stage_1)
    status, _, err = _run([archive, "--frames", 2], capsys)
    assert (status, err) == (1, f"error: {archive}: pipeline.json: stage 1's inputs are not what comes before "
                                "them (differ in: b)\n")


def test_a_pipeline_profile_cuts_the_stages_again(skip_net, tmp_path, capsys):
    """`--profile` times every stage's kernels as they run beside each other, over the frames
    after the first; `--profile-out` writes them as one profile that `mrvl-compile --stages
    --host-profile` reads: each kernel's estimate is then its time in the pipeline."""
    profile = tmp_path / "profile.json"
    status, out, err = _run([skip_net["host", 2], "--frames", 3, "--profile", "--profile-out", profile], capsys)
    assert (status, err) == (0, "")
    assert "stage 0 (" in out and "stage 1 (" in out and out.count("profile over 2 run(s), slowest first:") == 2
    ops = json.loads(profile.read_text())["ops"]
    assert [op["stage"] for op in ops if op["label"].startswith(("a_conv", "d_conv"))] == [0, 1]
    assert all(op["kind"] in ("conv", "memory") and op["seconds"] > 0 for op in ops)

    archive = compile_model(skip_net["model"], tmp_path / "again.tar", offload=False, pipeline_stages=2,
                            host_profile=profile).output
    with tarfile.open(archive) as members:
        stages = json.load(members.extractfile("pipeline.json"))["stages"]
    assert sum(s["estimate"]["host_s"] for s in stages) == pytest.approx(sum(op["seconds"] for op in ops))


@pytest.mark.parametrize("args, message", [
    (["--frames", 1, "--profile"], "--profile: times the frames after the first: give --frames 2 or more, not 1"),
    (["--frames", 3, "--profile", "--repeat", 3],
     "--repeat: is a single bundle's: a pipeline's profile is over its frames after the first"),
])
def test_a_pipeline_profile_is_over_its_frames(skip_net, args, message, capsys):
    status, out, err = _run([skip_net["host", 2], *args], capsys)
    assert (status, out, err) == (1, "", f"error: {skip_net['host', 2]}: {message}\n")
