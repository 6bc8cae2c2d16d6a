"""The generated C builds for the real target, an Arm Neoverse-N2 Linux host: each all-host
zoo model cross-compiled with `aarch64-linux-gnu-gcc -mcpu=neoverse-n2` (-Werror), once
through the bundle's own Makefile and once linked with a test driver (the models side by side)
into a static program that runs under `qemu-aarch64` and matches onnxruntime
(mrvl/numerics.py); so do LSTM, GRU and RNN layers.

`make test` installs the cross compiler and qemu-user from Debian's packages where it can
(the `cross-tools` target); without them these tests are skipped.
"""

import shutil
import subprocess
from pathlib import Path

import onnx
import pytest
from ir_helpers import ZOO_INPUT_SHAPES
from test_c_backend import (Bundle, assert_cases_close, build_program, c_workdir, emit_merged,  # noqa: F401
                            emit_model, run_merged, run_program, zoo_inputs)
from test_c_kernels_recurrent import mixed_cases, onnxruntime_outputs
from numeric_asserts import assert_close

CROSS_CC = shutil.which("aarch64-linux-gnu-gcc")
QEMU = shutil.which("qemu-aarch64")
TARGET_FLAGS = ["-mcpu=neoverse-n2"]
EM_AARCH64 = 183
"""ELF e_machine of AArch64."""
pytestmark = pytest.mark.skipif(CROSS_CC is None, reason="needs aarch64-linux-gnu-gcc (make cross-tools)")
MODELS = ["mnist", "resnet_small", "mobilenet_small", "transformer_block"]


def _elf_machine(path: Path) -> int:
    header = path.read_bytes()[:20]
    assert header[:4] == b"\x7fELF", f"{path} is not an ELF file"
    return int.from_bytes(header[18:20], "little")


def test_bundle_makefile_cross_compiles(zoo_dir: Path, c_workdir: Path, tmp_path: Path) -> None:
    """`make CC=aarch64-linux-gnu-gcc` in a bundle builds both libraries for AArch64."""
    bundle = tmp_path / "bundle"
    shutil.copytree(emit_model(onnx.load(zoo_dir / "mnist.onnx"), c_workdir, name="mnist_arm"), bundle)
    done = subprocess.run(["make", "-s", f"CC={CROSS_CC}", "AR=aarch64-linux-gnu-ar"], cwd=bundle,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _elf_machine(bundle / "libmnist_arm.so") == EM_AARCH64
    assert (bundle / "libmnist_arm.a").stat().st_size > 0


def test_board_runner_cross_compiles(zoo_dir: Path, tmp_path: Path) -> None:
    """A partitioned bundle's Makefile builds the board's accelerator runner (libmldpc through
    dlopen) into the AArch64 libraries, warning-free for -mcpu=neoverse-n2."""
    from mrvl.opt import main as mrvl_opt

    bundle = tmp_path / "bundle"
    assert mrvl_opt([str(zoo_dir / "mnist.onnx"), "-p", "mrvl-pipeline,mrvl-host-pipeline", "-t", "c{model=mnist_board}",
                     "-o", str(bundle)]) == 0
    done = subprocess.run(["make", "-s", f"CC={CROSS_CC}", "AR=aarch64-linux-gnu-ar", "ARCH_FLAGS=-mcpu=neoverse-n2",
                           "CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror"], cwd=bundle, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _elf_machine(bundle / "libmnist_board.so") == EM_AARCH64
    assert b"mrvl_mlip_board_open" in (bundle / "libmnist_board.so").read_bytes()


@pytest.fixture(scope="module")
def zoo_on_aarch64(zoo_dir: Path, c_workdir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, dict]:
    """The zoo models side by side (`merged`, one model per opset) in one static AArch64
    program, run once under qemu: the models, their inputs and the outputs by `merged` name."""
    models = {name: onnx.load(zoo_dir / f"{name}.onnx") for name in MODELS}
    inputs = {name: zoo_inputs(model, ZOO_INPUT_SHAPES[name], 2) for name, model in models.items()}
    built = emit_merged(models, c_workdir, ZOO_INPUT_SHAPES, "arm")
    program = build_program(built, tmp_path_factory.mktemp("zoo_arm"), [*TARGET_FLAGS, "-static"], compiler=CROSS_CC)
    assert _elf_machine(program) == EM_AARCH64
    if QEMU is None:
        pytest.skip("built for aarch64; qemu-aarch64 is not installed to run it")
    got = run_merged(program, built, inputs, launcher=[QEMU])
    return models, inputs, got


@pytest.mark.parametrize("name", MODELS)
def test_zoo_model_runs_on_aarch64(name: str, zoo_on_aarch64) -> None:
    models, inputs, got = zoo_on_aarch64
    assert_cases_close({name: models[name]}, inputs, got)


def test_recurrent_layers_run_on_aarch64(c_workdir: Path, tmp_path: Path) -> None:
    """LSTM, GRU and RNN over every path of mrvl_recurrent_f32, with the NEON GEMM tile, built
    into one static AArch64 program that matches onnxruntime under qemu."""
    cases = mixed_cases()
    built = [Bundle(emit_model(m, c_workdir, name=f"{name}_arm"), f"{name}_arm") for name, (m, _) in cases.items()]
    program = build_program(built, tmp_path, [*TARGET_FLAGS, "-static"], compiler=CROSS_CC)
    assert _elf_machine(program) == EM_AARCH64
    if QEMU is None:
        pytest.skip("built for aarch64; qemu-aarch64 is not installed to run it")
    outputs = run_program(program, built, [values for _, values in cases.values()], launcher=[QEMU])
    for (model, values), got in zip(cases.values(), outputs):
        for g, expected in zip(got, onnxruntime_outputs(model, values), strict=True):
            assert_close(g, expected.reshape(g.shape))
