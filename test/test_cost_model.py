"""The cost model (`target/cost_model.py`): the target description and its defaults,
the ResNet-50 estimate against Marvell's published figure, host calibration from a real
`mrvl-run --profile --profile-out` output, and the decisions it takes on both sides of
their thresholds."""

import configparser
import json
import re
import shutil
from pathlib import Path

import pytest
import zoo
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context

from mrvl.compile import main as mrvl_compile
from mrvl.backend.report_model import build_report
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass
from mrvl.passes.partition_mrvl import DEFAULT_POLICIES, POLICIES
from mrvl.run import main as mrvl_run
from mrvl_dialect import mrvl
from mrvl.target.cost_model import DEFAULT_TARGET_INI, CostModel, MlipWork, host_rates, read_profile
from mrvl_dialect.errors import CompileError, CompileWarning
from mrvl.target.options import TargetOptions

DOCS = Path(__file__).parent.parent / "docs"
PUBLISHED_RESNET50_S = 5.674e-3
"""Marvell's simulator: ResNet-50 v1 (ONNX zoo), fp16, 8 tiles, 5,674,071 cycles at 1 GHz."""


def test_every_default_says_whether_it_is_published_measured_or_assumed():
    lines = DEFAULT_TARGET_INI.splitlines()
    keys = [i for i, line in enumerate(lines) if "=" in line and not line.startswith("#")]
    figures = [i for i in keys if not lines[i].startswith("name =")]  # [host] name chooses a set
    assert (len(keys), len(figures)) == (39, 38)
    for i in figures:
        comment = []
        j = i - 1
        while j >= 0 and lines[j].startswith("#"):
            comment.insert(0, lines[j])
            j -= 1
        assert re.match(r"# (published|measured|assumed)\b", comment[0]), lines[i]


def test_docs_hold_the_default_target_file():
    assert (DOCS / "target.ini").read_text(encoding="utf-8") == DEFAULT_TARGET_INI
    parser = configparser.ConfigParser()
    parser.read_string(DEFAULT_TARGET_INI)
    page = (DOCS / "cost-model.md").read_text(encoding="utf-8")
    for section in parser.sections():
        for key in parser.options(section):
            assert f"`{key}`" in page, key


def test_a_target_file_overrides_the_keys_it_sets(tmp_path):
    path = tmp_path / "board.ini"
    path.write_text("[mlip]\ncall_overhead_s = 2e-6  # measured\n[host]\nconv_macs_per_s = 1e10\n")
    model = CostModel.load(str(path))
    default = CostModel.load()
    assert model.mlip.call_overhead_s == 2e-6 and model.host.conv_macs_per_s == 1e10
    assert model.mlip.efficiency == default.mlip.efficiency == 0.332
    assert (model.source, model.host_source, default.host_source) == ("board.ini", "host from board.ini", "host assumed")


def test_a_target_file_sets_the_link_between_pipeline_stages(tmp_path):
    path = tmp_path / "mesh.ini"
    path.write_text("[pipeline]\nlink_bytes_per_s = 2.5e9\n")
    assert CostModel.load(str(path)).pipeline.link_bytes_per_s == 2.5e9
    assert CostModel.load().pipeline.link_bytes_per_s == 1.0e9


def test_the_host_the_target_names_gives_the_host_figures(tmp_path):
    """`[host] name` picks a `[host.NAME]` set; keys in `[host]` override it; a profile
    overrides the rates it measured whichever host is named."""
    sets = configparser.ConfigParser()
    sets.read_string(DEFAULT_TARGET_INI)
    assert [s for s in sets.sections() if s.startswith("host.")] == ["host.neoverse-n2", "host.x86-64"]
    assert CostModel.load().host.conv_macs_per_s == float(sets["host.neoverse-n2"]["conv_macs_per_s"])
    path = tmp_path / "x86.ini"
    path.write_text("[host]\nname = x86-64\nbytes_per_s = 1e9\n")
    x86 = CostModel.load(str(path)).host
    assert x86.conv_macs_per_s == float(sets["host.x86-64"]["conv_macs_per_s"]) != CostModel.load().host.conv_macs_per_s
    assert x86.bytes_per_s == 1e9
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"format": "mrvl-profile", "version": 1, "ops": [
        {"seconds": 1e-3, "kind": "conv", "macs": 10**6, "bytes": 0}]}))
    calibrated = CostModel.load(str(path), str(profile))
    assert calibrated.host.conv_macs_per_s == pytest.approx(1e9) and calibrated.host.bytes_per_s == 1e9
    assert calibrated.host_source == "host from profile.json"


def test_a_target_file_with_clock_hz_loads_with_one_warning(tmp_path):
    """`[mlip] clock_hz` was never read by an estimate: old copies of the file still load."""
    path = tmp_path / "old.ini"
    path.write_text("[mlip]\nclock_hz = 1.0e9\n")
    with pytest.warns(CompileWarning, match=r"\[mlip\] clock_hz: ignored") as warned:
        first, second = CostModel.load(str(path)), CostModel.load(str(path))
    assert len(warned) == 1
    assert (first.mlip, first.host) == (second.mlip, second.host) == (CostModel.load().mlip, CostModel.load().host)


@pytest.mark.parametrize("text, message", [
    ("[mlip]\ntiles = eight\n", r"\[mlip\] tiles: must be a number, got 'eight'"),
    ("[mlip]\nefficiency = -0.3\n", r"\[mlip\] efficiency: must be a positive number, got '-0.3'"),
    ("[mlip]\nefficency = 0.3\n", r"\[mlip\]: unknown key 'efficency' \(known: tiles, "),
    ("[gpu]\nx = 1\n", r"unknown section \[gpu\] \(expected \[mlip\], \[pipeline\], \[host\], \[host.neoverse-n2\], \[host.x86-64\]\)"),
    ("[host]\nname = m1\n", r"\[host\] name: unknown host 'm1' \(known: neoverse-n2, x86-64\)"),
    ("[host]\nconv_mac_per_s = 1\n", r"\[host\]: unknown key 'conv_mac_per_s' \(known: name, conv_macs_per_s, "),
    ("call_overhead_s = 1\n", r"not a target description: File contains no section headers"),
])
def test_bad_target_files(tmp_path, text, message):
    path = tmp_path / "t.ini"
    path.write_text(text)
    with pytest.raises(CompileError, match=message) as e:
        CostModel.load(str(path))
    assert "\n" not in str(e.value)
    with pytest.raises(CompileError, match="no such file"):
        CostModel.load(str(tmp_path / "missing.ini"))


def test_mlip_estimate_scales_with_tiles_and_pins_weights_that_fit():
    model = CostModel.load()
    work = MlipWork(macs=10**9, weight_elements=10**6, io_elements=10**5)
    eight, four = model.mlip_estimate(work, TargetOptions(num_tiles=8)), model.mlip_estimate(work, TargetOptions(num_tiles=4))
    assert four.compute_s == pytest.approx(2 * eight.compute_s)
    assert eight.weights_s == pytest.approx(2e6 / 9.1e9) and eight.io_s == pytest.approx(2e5 / 9.1e9)
    assert model.mlip_estimate(work, TargetOptions(num_tiles=8, wb_pin_ocm=1)).weights_s == 0  # 2 MB of fp16 weights fit 8 MiB
    big = MlipWork(weight_elements=10**7)
    assert model.mlip_estimate(big, TargetOptions(num_tiles=8, wb_pin_ocm=1)).weights_s > 0


def test_resnet50_sized_at_8_tiles_is_within_the_published_order_of_magnitude():
    """The defaults reproduce Marvell's figure: 4.09 G MACs at 33.2% of 2 TMAC/s take
    6.16 ms, the 51 MB of fp16 weights stream in 5.6 ms alongside, and the input, output
    and one call add 0.04 ms: 6.2 ms against the published 5.67 ms (whose model counts
    3.86 G MACs)."""
    module = import_onnx(zoo.resnet50_sized(), {})
    MrvlPipelinePass(num_tiles=8).apply(Context(), module)
    estimate = build_report(module, CostModel.load()).estimate
    assert estimate is not None and estimate.calls == 1 and estimate.host_seconds == 0
    assert PUBLISHED_RESNET50_S / 10 < estimate.mlip_seconds < PUBLISHED_RESNET50_S * 10
    assert estimate.mlip_seconds == pytest.approx(PUBLISHED_RESNET50_S, rel=0.15)
    assert estimate.line().startswith("estimated 6.2 ms: MLIP 6.2 ms in 1 call, host 0 ns (host assumed)")


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs cc and make")
def test_host_calibration_from_a_real_profile(zoo_dir, tmp_path, capsys):
    """mrvl-run --profile --profile-out on an all-host bundle gives each kernel class's rate
    and each kernel's time; the same model's host estimate with that profile is then its
    measured time."""
    model = zoo_dir / "resnet_small.onnx"
    shape = ["--input-shape", "input=1x3x64x64"]
    assert mrvl_compile([str(model), *shape, "--no-offload", "-o", str(tmp_path / "host.tar")]) == 0
    assert "(host assumed)" in capsys.readouterr().out
    profile = tmp_path / "profile.json"
    assert mrvl_run([str(tmp_path / "host.tar"), "--profile", "--repeat", "5", "--profile-out", str(profile)]) == 0
    capsys.readouterr()
    document = json.loads(profile.read_text())
    assert document["format"] == "mrvl-profile" and document["model"] == "resnet_small"
    ops = read_profile(str(profile))
    assert {op["kind"] for op in ops} == {"conv", "matmul", "memory"}
    assert all(op["macs"] > 0 for op in ops if op["kind"] == "conv")
    rates = host_rates(ops)
    conv = [op for op in ops if op["kind"] == "conv"]
    assert rates["conv"] == pytest.approx(sum(op["macs"] for op in conv) / sum(op["seconds"] for op in conv))

    calibrated = CostModel.load(host_profile=str(profile))
    assert calibrated.host.conv_macs_per_s == pytest.approx(rates["conv"])
    assert calibrated.host_source == "host from profile.json"
    again = import_onnx(model, {"input": [1, 3, 64, 64]})
    MrvlPipelinePass(offload=False).apply(Context(), again)
    estimate = build_report(again, calibrated).estimate
    measured = sum(op["seconds"] for op in ops)
    assert estimate is not None and estimate.host_seconds == pytest.approx(measured, rel=0.25)
    # Each kernel the profile timed is estimated at its own time, not at its class's rate.
    timed = {op["label"]: op["seconds"] for op in ops}
    kernels = [k for k in estimate.kernels if k.label in timed]
    assert len(kernels) == len(timed) and all(k.seconds == timed[k.label] for k in kernels)

    assert mrvl_compile([str(model), *shape, "--host-profile", str(profile), "-o", str(tmp_path / "mlip.tar")]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("estimated"))
    assert re.fullmatch(r"estimated \S+ \S+: MLIP \S+ \S+ in 1 call, host 0 ns \(host from profile\.json\)", line)


def test_profile_errors(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"format": "other"}')
    with pytest.raises(CompileError, match="not a profile: expected"):
        CostModel.load(host_profile=str(path))
    path.write_text('{"format": "mrvl-profile", "version": 1, "ops": [{"seconds": 1e-6, "kind": "memory", '
                    '"macs": 0, "bytes": 0}]}')
    with pytest.raises(CompileError, match="no host kernel with known work"):
        CostModel.load(host_profile=str(path))


def _subgraphs(name: str, **options) -> list[mrvl.SubgraphOp]:
    module = import_onnx(zoo.ZOO[name](), ZOO_INPUT_SHAPES[name])
    MrvlPipelinePass(**options).apply(Context(), module)
    return [op for op in module.body.block.ops if isinstance(op, mrvl.SubgraphOp)]


def test_worth_the_call_is_asked_for_by_name():
    """Off by default (the zoo's partitions stay as they are); asked for, it sends the
    one-Gemm subgraph of gru_kws (0.3 us on the host, a 10 us call) to the host."""
    assert "worth-the-call" in POLICIES and "worth-the-call" not in DEFAULT_POLICIES
    assert len(_subgraphs("gru_kws")) == 1
    assert _subgraphs("gru_kws", policies=(*DEFAULT_POLICIES, "worth-the-call")) == []
    assert len(_subgraphs("resnet_small", policies=(*DEFAULT_POLICIES, "worth-the-call"))) == 1


def test_command_line_errors(zoo_dir, tmp_path, capsys):
    bad = tmp_path / "board.ini"
    bad.write_text("[mlip]\ntiles = many\n")
    out = tmp_path / "m.tar"
    assert mrvl_compile([str(zoo_dir / "mnist.onnx"), "--target-file", str(bad), "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith(f"{bad}: [mlip] tiles: must be a number, got 'many'")
    assert mrvl_compile([str(zoo_dir / "mnist.onnx"), "--host-profile", str(tmp_path / "none.json"), "-o",
                         str(out)]) == 1
    assert capsys.readouterr().err.strip().endswith("none.json: no such file")
    assert not out.exists()
    with pytest.raises(SystemExit) as e:
        mrvl_run([str(out), "--profile-out", str(tmp_path / "p.json")])
    assert e.value.code == 2 and "--profile-out needs --profile" in capsys.readouterr().err
