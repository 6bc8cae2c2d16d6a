"""Fused elementwise chains (`fuse-elementwise`, `cpu.elementwise`) against onnxruntime.

All host, test_c_kernels-style: chains whose rows end in a part of a vector (odd lengths),
inputs broadcast per channel in NCHW (constant over the H*W row) and in NHWC (along the
innermost dim), scalars folded into the body, and results written in place over an input; each
built for the baseline ISA and natively, side by side (`merged`). Partitioned: SiLU, HardSwish,
an affine chain and the Add of two MLIP outputs with its SiLU between accelerator subgraphs,
the subgraphs on the reference simulator in fp32 and fp16 (mrvl/numerics.py)."""

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from mrvl.numerics import FP16_LAYERS
from mrvl.opt import main as mrvl_opt
from mrvl.run import run_bundle
from numeric_asserts import assert_close
from test_c_backend import (GCC, _w, assert_cases_close, build_program, c_workdir, emit_merged,  # noqa: F401
                            emit_model, locked, random_inputs, reference, run_merged, run_together)
from test_c_kernels_sanitizers import SANITIZE, _sanitizers_link

n = helper.make_node


def _model(nodes: list[onnx.NodeProto], inputs: list[tuple[str, list[int]]],
           initializers: list[onnx.TensorProto] = ()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info(k, TensorProto.FLOAT, s) for k, s in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _scalar(name: str, value: float) -> onnx.TensorProto:
    return onnx.numpy_helper.from_array(np.float32(value), name)


def _between_kernels(nodes: list[onnx.NodeProto], inputs: list[tuple[str, list[int]]],
                     initializers: list[onnx.TensorProto] = ()) -> onnx.ModelProto:
    """The chain `nodes` (from "a" or "e" to "r") between two Softsigns, which no group takes:
    the chain reads a host result its kernel may overwrite (in place), and its result is not
    the model's (written into the caller's buffer)."""
    return _model([*nodes, n("Softsign", ["r"], ["y"])], inputs, initializers)


HOST_CHAINS = {
    # 3 x 37 x 11: rows of 407 floats, a part of a vector at the end of each
    "silu_odd": _between_kernels([n("Softsign", ["x"], ["a"]), n("Sigmoid", ["a"], ["s"]), n("Mul", ["a", "s"], ["r"])],
                       [("x", [3, 37, 11])]),
    "hard_swish_written_out": _between_kernels([n("Softsign", ["x"], ["a"]), n("Sub", ["a", "k"], ["b"]),
                                      n("HardSigmoid", ["b"], ["h"]), n("Mul", ["b", "h"], ["r"])],
                                     [("x", [1, 5, 9, 13])], [_scalar("k", 1.0)]),
    # (x - mean) * scale + shift per channel in NCHW: a row of H*W = 63 per channel
    "affine_nchw": _between_kernels([n("Softsign", ["x"], ["a"]), n("Sub", ["a", "m"], ["b"]), n("Mul", ["b", "s"], ["c"]),
                           n("Add", ["c", "t"], ["r"])],
                          [("x", [2, 6, 7, 9])], [_w("m", [6, 1, 1], 2), _w("s", [6, 1, 1], 3), _w("t", [6, 1, 1], 4)]),
    # per channel along the innermost dim (NHWC), 19 channels: rows shorter than some vectors
    "affine_nhwc": _between_kernels([n("Softsign", ["x"], ["a"]), n("Mul", ["a", "s"], ["c"]), n("Add", ["c", "t"], ["d"]),
                           n("Relu", ["d"], ["r"])],
                          [("x", [1, 5, 3, 19])], [_w("s", [19], 5), _w("t", [19], 6)]),
    # two full inputs (one a graph input, never overwritten), a clip, an exp and a tanh
    "add_clip_tanh": _between_kernels([n("Softsign", ["x"], ["e"]), n("Add", ["e", "z"], ["a"]), n("Clip", ["a", "lo", "hi"], ["c"]),
                             n("Exp", ["c"], ["f"]), n("Tanh", ["f"], ["r"])],
                            [("x", [4, 33]), ("z", [4, 33])], [_scalar("lo", -0.5), _scalar("hi", 2.0)]),
    # a LeakyRelu as a compare and a select
    "add_leaky_relu": _between_kernels([n("Softsign", ["x"], ["a"]), n("Add", ["a", "z"], ["b"]),
                                        n("LeakyRelu", ["b"], ["r"], alpha=0.1)], [("x", [2, 5, 21]), ("z", [5, 21])]),
    # Max, Min (NaN operands give the other one, as fmaxf and fminf) and a PRelu of a slope per channel
    "max_min_prelu": _between_kernels([n("Softsign", ["x"], ["a"]), n("Max", ["a", "z"], ["b"]), n("Min", ["b", "h"], ["c"]),
                                       n("PRelu", ["c", "s"], ["r"])],
                                      [("x", [1, 6, 2, 9]), ("z", [1, 6, 2, 9])], [_w("s", [6, 1, 1], 7), _scalar("h", 0.4)]),
    # a scalar tensor input broadcast over everything, and a division
    "scalar_input": _between_kernels([n("Softsign", ["x"], ["a"]), n("Div", ["a", "d"], ["b"]), n("Sigmoid", ["b"], ["r"])],
                           [("x", [2, 3, 17]), ("d", [])]),
}
HOST_INPUTS = {name: random_inputs(model, 11) for name, model in HOST_CHAINS.items()}
FUSED_OPS = {"silu_odd": 2, "hard_swish_written_out": 3, "affine_nchw": 3, "affine_nhwc": 3, "add_clip_tanh": 4,
             "add_leaky_relu": 2, "max_min_prelu": 3, "scalar_input": 2}
"""How many ONNX nodes each chain's cpu.elementwise stands for."""


@pytest.fixture(scope="module")
def host_chains(c_workdir: Path) -> Callable[[bool], dict[str, np.ndarray]]:
    """HOST_CHAINS built side by side for the baseline ISA (False) or natively (True), and run;
    each build once."""
    built: dict[bool, dict[str, np.ndarray]] = {}

    def outputs(native: bool) -> dict[str, np.ndarray]:
        if native not in built:
            built[native] = run_together(HOST_CHAINS, c_workdir, HOST_INPUTS, native)
        return built[native]
    return outputs


@pytest.mark.skipif(GCC is None, reason="needs gcc")
@pytest.mark.parametrize("native", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["baseline", "native"])
@pytest.mark.parametrize("name", list(HOST_CHAINS))
def test_host_chain_matches_onnxruntime(name: str, native: bool, host_chains) -> None:
    assert_cases_close({name: HOST_CHAINS[name]}, HOST_INPUTS, host_chains(native))


@pytest.mark.parametrize("name", list(HOST_CHAINS))
def test_host_chain_is_one_kernel(name: str, c_workdir: Path) -> None:
    text = (emit_model(HOST_CHAINS[name], c_workdir) / "m.c").read_text()
    (fused,) = re.findall(r"/\* nodes (.*): cpu\.elementwise \*/\nstatic int", text)
    assert fused.count("' (") == FUSED_OPS[name]
    assert text.count("static int op_") == 3


def test_in_place_over_a_host_result(c_workdir: Path) -> None:
    text = (emit_model(HOST_CHAINS["affine_nchw"], c_workdir) / "m.c").read_text()
    assert "in place over x0" in text
    text = (emit_model(HOST_CHAINS["add_clip_tanh"], c_workdir) / "m.c").read_text()
    assert "in place over x0" in text  # over the Exp's result, not the graph input z


# --- Partitioned: between MLIP calls -------------------------------------------------------

# legalize-mrvl would run a HardSigmoid and the per-channel Mul and Add as MLIP layers: off, so
# that the chains stay on the host between the subgraphs.
PARTITION = "mrvl-pipeline{legalize=false},mrvl-host-pipeline"

PARTITIONED = {
    "silu": _model([n("Conv", ["x", "w"], ["a"]), n("Sigmoid", ["a"], ["s"]), n("Mul", ["a", "s"], ["b"]),
                    n("Conv", ["b", "v"], ["y"])], [("x", [1, 3, 10, 11])], [_w("w", [8, 3, 3, 3]), _w("v", [4, 8, 1, 1])]),
    "hard_swish": _model([n("Conv", ["x", "w"], ["a"]), n("HardSigmoid", ["a"], ["h"], alpha=1 / 6, beta=0.5),
                          n("Mul", ["a", "h"], ["b"]), n("Conv", ["b", "v"], ["y"])],
                         [("x", [1, 3, 10, 11])], [_w("w", [8, 3, 3, 3]), _w("v", [4, 8, 1, 1])]),
    "add_silu": _model([n("Conv", ["x", "w"], ["a"]), n("Conv", ["x", "u"], ["c"]), n("Add", ["a", "c"], ["d"]),
                        n("Sigmoid", ["d"], ["s"]), n("Mul", ["d", "s"], ["e"]), n("Conv", ["e", "v"], ["y"])],
                       [("x", [1, 3, 10, 11])], [_w("w", [8, 3, 3, 3]), _w("u", [8, 3, 3, 3], 2), _w("v", [4, 8, 1, 1])]),
    "affine_tanh": _model([n("Conv", ["x", "w"], ["a"]), n("Tanh", ["a"], ["e"]), n("Mul", ["e", "s"], ["b"]),
                          n("Add", ["b", "t"], ["c"]), n("Conv", ["c", "v"], ["y"])],
                         [("x", [1, 3, 10, 11])], [_w("w", [8, 3, 3, 3]), _w("s", [8, 1, 1], 3), _w("t", [8, 1, 1], 4),
                                                   _w("v", [4, 8, 1, 1])]),
}


@pytest.fixture(scope="module")
def partitioned(session_dir: Path) -> dict[str, Path]:
    root = session_dir / "fused_elementwise"
    root.mkdir(exist_ok=True)
    bundles = {}
    for name, model in PARTITIONED.items():
        out = root / name
        with locked(out):
            if not out.exists():
                onnx.save_model(model, root / f"{name}.onnx")
                assert mrvl_opt([str(root / f"{name}.onnx"), "-p", PARTITION, "-t", "c",
                                 "-o", str(out)]) == 0
        bundles[name] = out
    return bundles


@pytest.mark.skipif(shutil.which("cc") is None or shutil.which("make") is None, reason="needs cc and make")
@pytest.mark.parametrize("precision", ["fp16", "fp32"])
@pytest.mark.parametrize("name", list(PARTITIONED))
def test_partitioned_chain_matches_onnxruntime(name: str, precision: str, partitioned) -> None:
    bundle = partitioned[name]
    text = (bundle / "chain.c").read_text()
    assert text.count(": cpu.elementwise */\nstatic int") == 1
    assert text.count("cpu.call_mlip") >= 2
    inputs = random_inputs(PARTITIONED[name], 3)
    got = run_bundle(bundle, inputs, precision=precision, simulator="reference")
    (want,) = reference(PARTITIONED[name], inputs)
    assert_close(got["y"], want, FP16_LAYERS if precision == "fp16" else None, "y")


@pytest.mark.skipif(GCC is None, reason="needs gcc")
def test_host_chains_are_clean_under_sanitizers(c_workdir: Path, tmp_path: Path) -> None:
    """HOST_CHAINS in one program built with AddressSanitizer and UBSan: no access past a row's
    end (the buffered last part of each), and the outputs still match onnxruntime."""
    if not _sanitizers_link(tmp_path):
        pytest.skip("gcc cannot link -fsanitize=address,undefined here")
    built = emit_merged(HOST_CHAINS, c_workdir, {}, "asan_chains")
    program = build_program(built, tmp_path, SANITIZE)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    assert_cases_close(HOST_CHAINS, HOST_INPUTS, run_merged(program, built, HOST_INPUTS, env=env))
