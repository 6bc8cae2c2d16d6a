"""mrvl-compile's use of other tools (a fake mrvl-tmlc, the C compiler), its diagnostics
(--timing, --print-ir-after-all, --dump-dir, -v) and its error contract."""

import gc
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from mrvl.compile import Stages, compile_model, main, target_options
from mrvl.timing import Timing
from mrvl_dialect.errors import CompileError
from mrvl.target.options import parse_mattr

FAKE_TMLC = """#!{python}
# A stand-in for Marvell's mrvl-tmlc: checks its arguments as TVM passed them, writes
# bin_<symbol>/<symbol>.bin (the digest of the two JSON files) and talks on both streams.
import hashlib, os, sys
args = sys.argv[1:]
symbol, nodes, consts = args[args.index("-mn") + 1], args[args.index("-f1") + 1], args[args.index("-f2") + 1]
assert "-b" in args and any(a.startswith("-num_tiles=") for a in args), args
print("tmlc: compiling", symbol, "from", nodes, "and", consts)
print("tmlc: a warning", file=sys.stderr)
status = int(os.environ.get("FAKE_TMLC_STATUS", "0"))
if status:
    print("tmlc: layer 3: unsupported", file=sys.stderr)
    sys.exit(status)
if os.environ.get("FAKE_TMLC_NO_BINARY"):
    sys.exit(0)
os.makedirs(f"bin_{{symbol}}", exist_ok=True)
digest = hashlib.sha256(open(nodes, "rb").read() + open(consts, "rb").read()).digest()
open(f"bin_{{symbol}}/{{symbol}}.bin", "wb").write(b"MLIP" + digest)
"""


@pytest.fixture
def fake_tmlc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake mrvl-tmlc first on PATH (the rest of PATH stays: make and cc are needed)."""
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    tool = bin_dir / "mrvl-tmlc"
    tool.write_text(FAKE_TMLC.format(python=sys.executable))
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tool


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(args)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_fake_tmlc_compiles_every_subgraph(
    zoo_dir: Path, tmp_path: Path, fake_tmlc: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "m.tar"
    rc, stdout, err = run([str(zoo_dir / "mobilenet_small.onnx"), "--input-shape", "images=1x3x96x96", "-o", str(out)],
                          capsys)
    assert rc == 0, err
    assert "mrvl-tmlc: compiled 9 subgraphs (log in tmlc.log)" in stdout
    with tarfile.open(out) as tar:
        names = tar.getnames()
        meta = json.load(tar.extractfile("metadata.json"))
        log = tar.extractfile("tmlc.log").read().decode()
        binary = tar.extractfile("bin_tvmgen_mrvl_main_0/tvmgen_mrvl_main_0.bin").read()
    symbols = [s["symbol"] for s in meta["subgraphs"]]
    assert meta["tmlc"]["status"] == "compiled"
    assert meta["tmlc"]["binaries"] == [f"bin_{s}/{s}.bin" for s in symbols]
    assert all(f"bin_{s}/{s}.bin" in names and f"bin_{s}" in names for s in symbols)
    assert binary.startswith(b"MLIP") and len(binary) == 36
    # The log: each command as run (relative file names: it ran in the bundle), then both streams.
    for command in meta["tmlc"]["commands"]:
        assert f"$ {command}\n" in log
    assert "tmlc: compiling tvmgen_mrvl_main_0 from tvmgen_mrvl_main_0-nodes.json" in log
    assert log.count("tmlc: a warning") == 9 and log.count("exit status 0") == 9
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-bin", "m.tar"]


def test_fake_tmlc_output_is_reproducible(
    zoo_dir: Path, tmp_path: Path, fake_tmlc: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("a.tar", "b.tar"):
        assert run([str(zoo_dir / "mnist.onnx"), "-o", str(tmp_path / name)], capsys)[0] == 0
    assert (tmp_path / "a.tar").read_bytes() == (tmp_path / "b.tar").read_bytes()


def test_failing_tmlc_is_one_error_and_keeps_its_log(
    zoo_dir: Path, tmp_path: Path, fake_tmlc: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_TMLC_STATUS", "3")
    out = tmp_path / "m"
    model = str(zoo_dir / "mnist.onnx")
    rc, stdout, err = run([model, "-o", str(out)], capsys)
    log = tmp_path / "m.tmlc.log"
    assert rc == 1 and stdout == ""
    assert err == (f"error: {model}: mrvl-tmlc: exited with status 3 compiling @tvmgen_mrvl_main_0 "
                   f"(its output: {log})\n")
    assert not out.exists()
    text = log.read_text()
    assert text.startswith("$ mrvl-tmlc -mn tvmgen_mrvl_main_0 -f1 tvmgen_mrvl_main_0-nodes.json")
    assert "tmlc: layer 3: unsupported" in text and text.endswith("exit status 3\n\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-bin", "m.tmlc.log"]


def test_tmlc_without_a_binary_is_an_error(
    zoo_dir: Path, tmp_path: Path, fake_tmlc: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("FAKE_TMLC_NO_BINARY", "1")
    rc, _, err = run([str(zoo_dir / "mnist.onnx"), "-o", str(tmp_path / "m.tar")], capsys)
    assert rc == 1
    assert "mrvl-tmlc: exited with status 0 but wrote no model binary bin_tvmgen_mrvl_main_0/" in err
    assert not (tmp_path / "m.tar").exists()


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs cc and make")
def test_cross_compiler_builds_the_libraries_into_the_bundle(
    zoo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """`--cross-compiler` runs the bundle's Makefile with that compiler (the native cc
    stands in for aarch64-linux-gnu-gcc here)."""
    out = tmp_path / "r"
    rc, _, err = run([str(zoo_dir / "resnet_small.onnx"), "--input-shape", "input=1x3x64x64", "--no-offload",
                      "--cross-compiler", "cc", "-o", str(out)], capsys)
    assert rc == 0, err
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["build"]["compiler"] == "cc" and meta["build"]["libraries"] == ["libresnet_small.so",
                                                                                "libresnet_small.a"]
    assert (out / "libresnet_small.so").stat().st_size > 0 and (out / "libresnet_small.a").is_file()
    assert not list(out.glob("*.o"))
    assert (out / "build.log").read_text().startswith("$ make CC=cc AR=ar ARCH_FLAGS= libresnet_small.so libresnet_small.a\n")


def test_missing_cross_compiler_is_an_error(zoo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = str(zoo_dir / "mnist.onnx")
    rc, _, err = run([model, "--cross-compiler", "no-such-gcc", "-o", str(tmp_path / "m.tar")], capsys)
    assert (rc, err) == (1, f"error: {model}: --cross-compiler: 'no-such-gcc' not found on PATH\n")


def test_compile_collects_young_objects_less_often_and_restores_the_collector(zoo_dir: Path, tmp_path: Path) -> None:
    class Thresholds(io.StringIO):
        """Progress output that notes the collector's thresholds as each stage starts."""

        seen: list[tuple[int, ...]] = []

        def write(self, text: str) -> int:
            self.seen.append(gc.get_threshold())
            return super().write(text)

    before = gc.get_threshold()
    compile_model(zoo_dir / "mnist.onnx", tmp_path / "m", stages=Stages(Timing(), progress=Thresholds()))
    assert gc.get_threshold() == before != (10_000, 1_000, before[2])
    assert Thresholds.seen and set(Thresholds.seen) == {(10_000, 1_000, before[2])}


def test_timing_and_ir_dumps(zoo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "ir"
    rc, stdout, err = run([str(zoo_dir / "mnist.onnx"), "-o", str(tmp_path / "m"), "--timing",
                           "--print-ir-after-all", "--dump-dir", str(dump), "-v"], capsys)
    assert rc == 0
    passes = ["recognize-qdq", "cleanup-graph", "legalize-mrvl", "place-ops", "partition-mrvl", "chunk-mrvl-batch",
              "restore-host-qdq", "fuse-mrvl", "convert-layout", "lower-to-cpu", "fuse-cpu-epilogues",
              "fuse-host-qdq-convs", "fuse-host-qdq-softmaxes", "fuse-host-qdq-adds", "fold-host-qdq-pairs",
              "fuse-elementwise"]
    report = stdout[stdout.index("... Execution time report ..."):]
    assert "Total Execution Time:" in report and report.rstrip().endswith("(100.0%)  Total")
    for name in ["import-onnx", "mrvl-pipeline", *passes, "select-host-kernels", "plan-host-memory", "emit-c-and-json", "report",
                 "write-bundle", "mrvl-tmlc"]:
        assert f"  {name}\n" in report
    dumps = [f"{i:02d}-{name}.mlir" for i, name in enumerate(["import-onnx", *passes, "select-host-kernels",
                                                             "plan-host-memory"])]
    assert [p.name for p in sorted(dump.iterdir())] == dumps
    assert "cpu.workspace = #cpu.workspace<" in (dump / dumps[-1]).read_text()
    assert "mrvl.subgraph @tvmgen_mrvl_main_0" in (dump / "10-lower-to-cpu.mlir").read_text()
    assert "graph.Conv" in (dump / "00-import-onnx.mlir").read_text()
    for name in ["import-onnx", *passes, "select-host-kernels", "plan-host-memory"]:
        assert f"// -----// IR Dump After {name} //----- //" in err
        assert f"] {name}\n" in err  # -v progress


@pytest.mark.parametrize("mattr, expected", [
    ("hw -quantize=fp16 -wb_pin_ocm=1", {"run_mode": "hw", "quantize": "fp16", "wb_pin_ocm": 1}),
    ("wb_pin_ocm=1,quantize=int8", {"wb_pin_ocm": 1, "quantize": "int8"}),
    ("sim", {"run_mode": "sim"}),
    ("", {}),
])
def test_mattr(mattr: str, expected: dict) -> None:
    assert parse_mattr(mattr) == expected


def test_single_options_win_over_mattr() -> None:
    options = target_options(num_tiles=2, mattr="hw -quantize=int8", quantize="fp16")
    assert options == {"mcpu": "cn10ka", "num_tiles": 2, "quantize": "fp16", "wb_pin_ocm": 0, "run_mode": "hw"}


@pytest.mark.parametrize("args, message", [
    (["--mattr", "fast"], "--mattr: unknown attribute 'fast' (expected sim or hw, -quantize=fp16|int8, -wb_pin_ocm=0|1)"),
    (["--mattr=-quantize=fp8"], "mrvl-pipeline: quantize must be one of fp16, int8, got 'fp8'"),
    (["--input-shape", "Input3"], "--input-shape: 'Input3' is not NAME=DIMS, as in input=1x3x224x224"),
    (["--placement", "/nonexistent/p.json"], "/nonexistent/p.json"),
])
def test_bad_options_are_one_error_line(
    args: list[str], message: str, zoo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    model = str(zoo_dir / "mnist.onnx")
    rc, stdout, err = run([model, "-o", str(tmp_path / "m.tar"), *args], capsys)
    assert rc == 1 and stdout == ""
    assert err.startswith(f"error: {model}: ") and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_bad_model_is_one_error_line_and_no_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage")
    for model, reason in ((bad, ""), (tmp_path / "missing.onnx", "no such file"), (tmp_path, "is a directory")):
        rc, stdout, err = run([str(model), "-o", str(tmp_path / "out.tar")], capsys)
        assert rc == 1 and stdout == "" and err.startswith(f"error: {model}: ") and err.count("\n") == 1
        assert reason in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.onnx"]


def test_output_in_a_missing_folder(zoo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no" / "m.tar"
    rc, _, err = run([str(zoo_dir / "mnist.onnx"), "-o", str(out)], capsys)
    assert rc == 1 and f"{out}: cannot write: no folder" in err


def test_console_script(zoo_dir: Path, tmp_path: Path) -> None:
    """The installed command: usage errors exit 2, bad input exits 1 without a traceback."""
    tool = Path(sys.executable).parent / "mrvl-compile"
    done = subprocess.run([tool, str(zoo_dir / "mnist.onnx")], capture_output=True, text=True)
    assert done.returncode == 2 and "-o/--output" in done.stderr
    done = subprocess.run([tool, str(tmp_path / "x.onnx"), "-o", str(tmp_path / "x.tar")], capture_output=True,
                          text=True)
    assert (done.returncode, done.stderr) == (1, f"error: {tmp_path / 'x.onnx'}: no such file\n")


def test_compile_error_type() -> None:
    with pytest.raises(CompileError, match="unknown attribute"):
        parse_mattr("hw turbo")
