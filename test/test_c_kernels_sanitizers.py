"""The generated C of every all-host zoo model (ResNet-50-sized aside) built with
AddressSanitizer and UndefinedBehaviorSanitizer, run once in its own process: any
out-of-bounds access, use of uninitialised workspace through a bad plan, overflow or other
undefined behaviour ends the run with an error, and the outputs still match onnxruntime."""

import os
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from ir_helpers import ZOO_INPUT_SHAPES
from onnx.reference import ReferenceEvaluator
from numeric_asserts import assert_close
from test_c_backend import (GCC, SINGLE_OPS, ZOO_ALL_HOST, Bundle, assert_cases_close, build_program,  # noqa: F401
                            c_workdir, emit_merged, emit_model, locked, random_inputs,
                            run_merged, run_program, zoo_inputs)
from test_c_kernels_coverage import (FILTERED_RESIZES, MAX_POOL_INDICES, float64_reduce, max_pool_with_indices,
                                     training_dropout)
from test_c_kernels_recurrent import mixed_cases, onnxruntime_outputs

# -O1 after the Makefile's -O3, as AddressSanitizer's docs advise: the same code paths checked, each
# object compiled in about half the time.
SANITIZE = ["-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"]
pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]


def _sanitizers_link(tmp_path: Path) -> bool:
    (tmp_path / "probe.c").write_text("int main(void) { return 0; }\n")
    return os.system(f"{GCC} {' '.join(SANITIZE)} {tmp_path / 'probe.c'} -o {tmp_path / 'probe'} 2>/dev/null") == 0


@pytest.fixture(scope="module")
def zoo_under_sanitizers(zoo_dir: Path, c_workdir: Path, session_dir: Path) -> tuple[dict, dict, dict[str, np.ndarray]]:
    """The zoo models (all host) side by side (`merged`, one model per opset) in one sanitized
    program, run once: the models, their inputs and the outputs by `merged` name. The program
    is in the session's shared folder: one pytest-xdist worker builds it, the other reuses it."""
    folder = session_dir / "sanitized_zoo"
    folder.mkdir(exist_ok=True)
    models = {name: onnx.load(zoo_dir / f"{name}.onnx") for name in ZOO_ALL_HOST}
    inputs = {name: zoo_inputs(model, ZOO_INPUT_SHAPES[name], 1) for name, model in models.items()}
    built = emit_merged(models, c_workdir, ZOO_INPUT_SHAPES, "asan")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    with locked(folder):
        if not _sanitizers_link(folder):
            pytest.skip("gcc cannot link -fsanitize=address,undefined here")
        program = folder / "program"
        if not program.exists():
            build_program(built, folder, SANITIZE)
        got = run_merged(program, built, inputs, env=env)
    return models, inputs, got


@pytest.mark.slow  # the kernels' own sanitizer tests (fast paths, fused chains, new kernels) are in the fast suite
@pytest.mark.parametrize("name", ZOO_ALL_HOST)
def test_zoo_model_is_clean_under_sanitizers(name: str, zoo_under_sanitizers) -> None:
    models, inputs, got = zoo_under_sanitizers
    assert_cases_close({name: models[name]}, inputs, got)


def test_new_kernels_are_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    """MaxPool's Indices, the filtered Resize (its tap tables and row plane in scratch),
    float64 reductions and seeded training-mode Dropout, linked into one sanitized program,
    match ONNX's reference."""
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    reduce_model, reduce_input = float64_reduce("ReduceLogSumExp", 0)
    models = {"pool_indices": max_pool_with_indices(*MAX_POOL_INDICES["3d_column_major"][:1],
                                                    **MAX_POOL_INDICES["3d_column_major"][1]),
              "reduce_f64": reduce_model,
              "dropout": training_dropout([7, 11, 13], 0.5, 9, with_mask=True),
              **{name: FILTERED_RESIZES[name] for name in
                 ("antialias_cubic_a_exclude", "crop_cubic_extrapolated", "crop_antialias", "crop_3d")}}
    built = [Bundle(emit_model(m, c_workdir, name=f"{name}_asan"), f"{name}_asan") for name, m in models.items()]
    inputs = [random_inputs(m, 2) for m in models.values()]
    inputs[1] = {"x": reduce_input}
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    outputs = run_program(build_program(built, tmp_path, SANITIZE), built, inputs, env=env)
    for model, values, got in zip(models.values(), inputs, outputs):
        for g, expected in zip(got, ReferenceEvaluator(model).run(None, values)):
            assert_close(g, expected.reshape(g.shape))


def test_recurrent_kernels_are_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    """LSTM, GRU and RNN layers over every path of mrvl_recurrent_f32 (sequence_lens, both
    directions, batch-first, outputs unread, the input projection past one GEMM block),
    linked into one sanitized program, match onnxruntime."""
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    cases = mixed_cases()
    built = [Bundle(emit_model(m, c_workdir, name=f"{name}_asan"), f"{name}_asan") for name, (m, _) in cases.items()]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    inputs = [values for _, values in cases.values()]
    outputs = run_program(build_program(built, tmp_path, SANITIZE), built, inputs, env=env)
    for (model, values), got in zip(cases.values(), outputs):
        for g, expected in zip(got, onnxruntime_outputs(model, values), strict=True):
            assert_close(g, expected.reshape(g.shape))


def test_sanitizers_catch_an_overrun(c_workdir: Path, tmp_path: Path) -> None:
    """The harness fails when the C misbehaves: a workspace half as large as the header says
    (the conv's scratch: its padded input and tap table, all of which it touches) is reported."""
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    built = Bundle(emit_model(SINGLE_OPS["conv"], c_workdir, name="short_ws"), "short_ws")
    program_dir = tmp_path / "short"
    program_dir.mkdir()
    shutil.copytree(built.dir, program_dir / "bundle")
    header = program_dir / "bundle" / "short_ws.h"
    text = header.read_text()
    size = int(built.macros["SHORT_WS_WORKSPACE_BYTES"])
    header.write_text(text.replace(f"#define SHORT_WS_WORKSPACE_BYTES {size}", f"#define SHORT_WS_WORKSPACE_BYTES {size // 2}"))
    short = Bundle(program_dir / "bundle", "short_ws")
    program = build_program([short], program_dir, SANITIZE)
    with pytest.raises(AssertionError, match="AddressSanitizer"):
        run_program(program, [short], [{"x": np.zeros([2, 4, 7, 6], np.float32)}])
