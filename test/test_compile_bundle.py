"""mrvl-compile on the model zoo: bundle contents, metadata, and reports consistent with the JSON."""

import base64
import csv
import hashlib
import io
import json
import math
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import numpy as np
import onnx
import pytest
from ir_helpers import ZOO_INPUT_SHAPES

from mrvl.backend.bundle import RUNTIME_FILES
from mrvl.compile import main
from mrvl_dialect.placement_file import load_placement

ZOO_MODELS = [name for name in ZOO_INPUT_SHAPES if name != "resnet50_sized"]
HOST_FILES = {"Makefile", *RUNTIME_FILES}
BOARD_FILES = {"mrvl_mlip_board.c", "mrvl_mlip_board.h"}
"""The board's accelerator runner, in bundles with accelerator subgraphs."""
REPORTS = {"report.txt", "report.json", "report-nodes.csv", "report-subgraphs.csv", "report.html"}


def shape_flags(name: str) -> list[str]:
    return [f"--input-shape={k}={'x'.join(map(str, v))}" for k, v in ZOO_INPUT_SHAPES[name].items()]


@pytest.fixture
def no_tmlc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PATH on which mrvl-tmlc cannot be found."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def compile_zoo(zoo_dir: Path, name: str, output: Path, *flags: str, capsys=None) -> str:
    rc = main([str(zoo_dir / f"{name}.onnx"), "-o", str(output), *shape_flags(name), *flags])
    captured = capsys.readouterr() if capsys is not None else None
    assert rc == 0, captured.err if captured else ""
    return captured.out if captured else ""


@pytest.fixture(scope="module")
def bundles(zoo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every small zoo model compiled once into a folder (mrvl-tmlc absent)."""
    root = tmp_path_factory.mktemp("bundles")
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setenv("PATH", str(root))
    try:
        for name in ZOO_MODELS:
            compile_zoo(zoo_dir, name, root / name)
    finally:
        monkeypatch.undo()
    return {name: root / name for name in ZOO_MODELS}


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_bundle_holds_every_file(bundles: dict[str, Path], name: str) -> None:
    folder = bundles[name]
    meta = read_json(folder / "metadata.json")
    model = meta["model"]
    assert model == name
    expected = HOST_FILES | REPORTS | {"metadata.json", "placement.json", f"{model}.h", f"{model}.c",
                                       f"{model}_weights.bin"}
    for subgraph in meta["subgraphs"]:
        symbol = subgraph["symbol"]
        expected |= {f"{symbol}-nodes.json", f"{symbol}-consts.json", f"{symbol}-sourcemap.json"}
    if meta["subgraphs"]:
        expected |= {"tmlc-commands.txt", *BOARD_FILES}
    assert {p.name for p in folder.iterdir()} == expected


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_model_object_depends_on_every_runtime_file(bundles: dict[str, Path], tmp_path: Path) -> None:
    """M.c includes the whole runtime (through mrvl_kernels.c, the kernel family files): the Makefile
    rebuilds M.o when any of them is newer (`make -q`: 0 up to date, 1 out of date)."""
    folder = tmp_path / "bundle"
    shutil.copytree(bundles[ZOO_MODELS[0]], folder)
    model = read_json(folder / "metadata.json")["model"]
    target = folder / f"{model}.o"
    target.touch()

    def up_to_date() -> bool:
        done = subprocess.run(["make", "-q", target.name], cwd=folder, capture_output=True)
        assert done.returncode in (0, 1), done.stderr
        return done.returncode == 0

    for name in RUNTIME_FILES:
        for path in folder.iterdir():
            os.utime(path, (1_000_000, 1_000_000))
        os.utime(target, (2_000_000, 2_000_000))
        assert up_to_date()
        os.utime(folder / name, (3_000_000, 3_000_000))
        assert not up_to_date(), f"{target.name} does not depend on {name}"


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_metadata_describes_the_model(bundles: dict[str, Path], zoo_dir: Path, name: str) -> None:
    meta = read_json(bundles[name] / "metadata.json")
    graph = onnx.load(zoo_dir / f"{name}.onnx", load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    assert [t["name"] for t in meta["inputs"]] == [i.name for i in inputs]
    for entry, value in zip(meta["inputs"], inputs):
        fixed = ZOO_INPUT_SHAPES[name].get(value.name)
        dims = fixed or [d.dim_value for d in value.type.tensor_type.shape.dim]
        assert entry["shape"] == list(dims)
        dtype = onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        assert entry["dtype"] == dtype.name
        assert entry["bytes"] == math.prod(dims) * dtype.itemsize
    assert [t["name"] for t in meta["outputs"]] == [o.name for o in graph.output]
    assert meta["input_model"] == {
        "file": f"{name}.onnx", "sha256": hashlib.sha256((zoo_dir / f"{name}.onnx").read_bytes()).hexdigest()}
    assert meta["options"] | {"input_shapes": {}} == {
        "mcpu": "cn10ka", "num_tiles": 8, "quantize": "fp16", "wb_pin_ocm": 0, "run_mode": "sim", "offload": True,
        "input_shapes": {}, "placement": None, "cross_compiler": None, "host_threads": 1, "target_file": None,
        "host_profile": None, "cost_policy": False}
    assert meta["options"]["input_shapes"] == ZOO_INPUT_SHAPES[name]
    assert meta["tool"]["name"] == "mrvl-compile" and meta["tool"]["xdsl"] == "0.74.0"
    assert meta["tmlc"]["status"] == ("not-found" if meta["subgraphs"] else "no-subgraphs")
    folder = bundles[name]
    for subgraph in meta["subgraphs"]:
        nodes = read_json(folder / subgraph["nodes"])
        assert nodes["symbol"] == subgraph["symbol"]
        assert [n["attrs"]["shape"][0] for n in nodes["nodes"] if n["op"] == "input"] == \
            [s["shape"] for s in subgraph["inputs"]]
    commands = (folder / "tmlc-commands.txt").read_text().splitlines() if meta["subgraphs"] else []
    assert meta["tmlc"]["commands"] == commands


def json_layer_costs(folder: Path, symbol: str) -> tuple[int, int, int]:
    """(layers, MACs, weight bytes) of a subgraph counted from its nodes and consts files alone."""
    nodes = read_json(folder / f"{symbol}-nodes.json")
    consts = read_json(folder / f"{symbol}-consts.json")
    layers = [n for n in nodes["nodes"] if n["op"] == "tvm_op"]
    macs = 0
    for layer in layers:
        kernel = layer["attrs"]["kernel_const"].get("shape")
        if kernel:  # conv2d (OHWI) and fc ([out, in]): each output element costs the rest of the kernel
            macs += math.prod(layer["attrs"]["shape"][0]) * math.prod(kernel[1:])
    weight_bytes = sum(len(base64.b64decode(c["data_base64"])) for c in consts.values())
    return len(layers), macs, weight_bytes


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_report_totals_match_the_bundle(bundles: dict[str, Path], name: str) -> None:
    folder = bundles[name]
    meta = read_json(folder / "metadata.json")
    report = read_json(folder / "report.json")
    totals = report["totals"]
    assert [s["symbol"] for s in report["subgraphs"]] == [s["symbol"] for s in meta["subgraphs"]]
    for cost in report["subgraphs"]:
        layers, macs, weight_bytes = json_layer_costs(folder, cost["symbol"])
        assert (cost["layers"], cost["macs"], cost["weight_bytes"]) == (layers, macs * cost["calls"], weight_bytes)
    assert totals["subgraphs"] == len(meta["subgraphs"])
    assert totals["mlip_layers"] == sum(s["layers"] for s in report["subgraphs"])
    assert totals["host_arena_bytes"] == meta["workspace"]["bytes"]
    assert totals["host_weight_bytes"] == (folder / meta["weights"]).stat().st_size
    assert totals["nodes"] == totals["mlip_nodes"] + totals["host_nodes"] == len(report["nodes"])
    assert totals["macs"] == totals["mlip_macs"] + report["host"]["macs"]
    if totals["macs"]:
        assert totals["mlip_macs_percent"] == round(100 * totals["mlip_macs"] / totals["macs"], 2)

    # Every MLIP node is in its subgraph's sourcemap, at the layer the report names.
    mapped = {}
    for subgraph in meta["subgraphs"]:
        sourcemap = read_json(folder / f"{subgraph['symbol']}-sourcemap.json")
        for node in sourcemap["nodes"]:
            for onnx_node in node["onnx_nodes"]:
                mapped.setdefault((subgraph["symbol"], onnx_node["name"]), node["name"])
    for node in report["nodes"]:
        if node["place"] == "mlip":
            assert mapped[(node["subgraph"], node["name"])] == node["layer"]
        else:
            assert node["subgraph"] is None and node["layer"] is None
    assert len(mapped) == totals["mlip_nodes"] or name == "mnist"

    rows = list(csv.DictReader(io.StringIO((folder / "report-nodes.csv").read_text())))
    assert [r["name"] for r in rows] == [n["name"] for n in report["nodes"]]
    assert [r["reasons"] for r in rows] == ["; ".join(n["reasons"]) for n in report["nodes"]]
    subgraph_rows = list(csv.DictReader(io.StringIO((folder / "report-subgraphs.csv").read_text())))
    assert [int(r["macs"]) for r in subgraph_rows] == [s["macs"] for s in report["subgraphs"]] + [report["host"]["macs"]]
    text = (folder / "report.txt").read_text()
    assert f"nodes {totals['nodes']}: {totals['mlip_nodes']} on MLIP" in text


def test_printed_summary(zoo_dir: Path, tmp_path: Path, no_tmlc: None, capsys: pytest.CaptureFixture[str]) -> None:
    out = compile_zoo(zoo_dir, "mobilenet_small", tmp_path / "m", capsys=capsys)
    lines = out.splitlines()
    assert lines[0].split() == ["subgraph", "layers", "batch", "calls", "MACs", "weights", "activations"]
    assert sum(line.startswith("tvmgen_mrvl_main_") for line in lines) == 9
    # 4 BatchNormalizations and 3 epilogues (Clip, Relu, residual Add) folded into convs, the
    # decoder's BatchNormalization and Relu into its transposed conv, 7 of the 10 transposes
    # between subgraphs gone (the host activations and the decoder run in NHWC), and the two squeeze-excite
    # HardSigmoids legalised onto MLIP
    assert any(line.startswith("host (11 kernels)") for line in lines)
    assert "nodes 52: 40 on MLIP (76.9%), 12 on host" in out
    assert "mrvl-tmlc: not on PATH; the bundle keeps the command lines in tmlc-commands.txt" in out
    assert lines[-1] == f"wrote {tmp_path / 'm'}"
    assert (tmp_path / "m" / "report.txt").read_text().startswith("\n".join(lines[:11]))


def test_no_offload_keeps_everything_on_the_host(zoo_dir: Path, tmp_path: Path, no_tmlc: None) -> None:
    compile_zoo(zoo_dir, "resnet_small", tmp_path / "r", "--no-offload")
    report = read_json(tmp_path / "r" / "report.json")
    assert report["totals"]["subgraphs"] == report["totals"]["mlip_nodes"] == report["totals"]["mlip_macs"] == 0
    assert report["totals"]["mlip_macs_percent"] == 0.0
    assert report["host"]["macs"] > 0
    assert not list((tmp_path / "r").glob("*-nodes.json"))


def test_placement_file_round_trips(bundles: dict[str, Path], zoo_dir: Path, tmp_path: Path, no_tmlc: None) -> None:
    """The bundle's placement.json, given back with --placement, reproduces the placement."""
    placement = bundles["mobilenet_small"] / "placement.json"
    entries = load_placement(placement).entries
    assert len(entries) == read_json(bundles["mobilenet_small"] / "report.json")["totals"]["nodes"]
    compile_zoo(zoo_dir, "mobilenet_small", tmp_path / "again", f"--placement={placement}")
    again = tmp_path / "again"

    def places(folder: Path) -> list[tuple]:
        return [(n["name"], n["place"], n["subgraph"], n["layer"]) for n in read_json(folder / "report.json")["nodes"]]

    assert places(again) == places(bundles["mobilenet_small"])
    assert read_json(again / "metadata.json")["options"]["placement"] == str(placement)


def tar_members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def test_tar_is_reproducible_and_holds_the_folder(
    zoo_dir: Path, tmp_path: Path, bundles: dict[str, Path], no_tmlc: None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    compile_zoo(zoo_dir, "resnet_small", Path("a.tar"))
    compile_zoo(zoo_dir, "resnet_small", Path("b.tar"))
    assert sorted(p.name for p in work.iterdir()) == ["a.tar", "b.tar"]  # nothing else left behind
    assert (work / "a.tar").read_bytes() == (work / "b.tar").read_bytes()
    with tarfile.open(work / "a.tar") as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert all(m.mtime == 0 and m.uid == m.gid == 0 and m.uname == m.gname == "" and m.mode == 0o644
               for m in members)
    folder = bundles["resnet_small"]
    assert tar_members(work / "a.tar") == {p.name: p.read_bytes() for p in folder.iterdir()}


def test_directory_output_replaces_an_earlier_bundle_only(
    zoo_dir: Path, tmp_path: Path, no_tmlc: None, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "bundle"
    compile_zoo(zoo_dir, "mnist", out)
    compile_zoo(zoo_dir, "resnet_small", out)  # a bundle is replaced whole
    assert read_json(out / "metadata.json")["model"] == "resnet_small"
    assert not (out / "mnist.c").exists()
    (out / "notes.md").write_text("mine")
    rc = main([str(zoo_dir / "mnist.onnx"), "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and "holds other files than a bundle (notes.md)" in err
    assert read_json(out / "metadata.json")["model"] == "resnet_small"


def test_target_options_reach_metadata_and_commands(
    zoo_dir: Path, tmp_path: Path, no_tmlc: None,
) -> None:
    compile_zoo(zoo_dir, "mnist", tmp_path / "m", "--num-tiles=4", "--mattr=hw -quantize=int8 -wb_pin_ocm=1",
                "--quantize=fp16")
    meta = read_json(tmp_path / "m" / "metadata.json")
    assert {k: meta["options"][k] for k in ("num_tiles", "run_mode", "quantize", "wb_pin_ocm")} == {
        "num_tiles": 4, "run_mode": "hw", "quantize": "fp16", "wb_pin_ocm": 1}
    command = (tmp_path / "m" / "tmlc-commands.txt").read_text()
    assert "-quantize=fp16 -wb_pin_ocm=1 -num_tiles=4" in command


def test_weights_in_the_consts_file_are_the_models(bundles: dict[str, Path], zoo_dir: Path) -> None:
    """The deferred base64 text decodes to the model's weights (mnist's first conv, OHWI)."""
    folder = bundles["mnist"]
    consts = read_json(folder / "tvmgen_mrvl_main_0-consts.json")
    model = onnx.load(zoo_dir / "mnist.onnx")
    weights = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    conv = next(n for n in model.graph.node if n.op_type == "Conv")
    expected = weights[conv.input[1]].transpose(0, 2, 3, 1)
    entry = consts["tvmgen_mrvl_main_1_const_0"]
    got = np.frombuffer(base64.b64decode(entry["data_base64"]), "<f4").reshape(entry["shape"])
    np.testing.assert_array_equal(got, expected)


@pytest.mark.slow
def test_resnet50_sized_compiles_to_one_subgraph(tmp_path: Path, no_tmlc: None) -> None:
    import zoo

    model = tmp_path / "resnet50_sized.onnx"
    onnx.save_model(zoo.resnet50_sized(), model)
    assert main([str(model), "-o", str(tmp_path / "r.tar")]) == 0
    with tarfile.open(tmp_path / "r.tar") as tar:
        report = json.load(tar.extractfile("report.json"))
    totals = report["totals"]
    assert totals["subgraphs"] == 1 and totals["host_nodes"] == 0 and totals["mlip_macs_percent"] == 100.0
    assert totals["mlip_macs"] > 4e9  # torchvision's resnet50 at 224x224: about 4.1 G
