"""The Python API: partition_for_mrvl, compile_model and run_model, as the CLI uses them."""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from xdsl.dialects import func

import mrvl
from numeric_asserts import assert_close
from mrvl_dialect import cpu
from mrvl_dialect.mrvl import SubgraphOp


def test_partition_for_mrvl_returns_the_partitioned_module(zoo_dir: Path) -> None:
    model = onnx.load(zoo_dir / "mobilenet_small.onnx")
    module = mrvl.partition_for_mrvl(model, num_tiles=4, mattr="hw -wb_pin_ocm=1",
                                     input_shapes={"images": [1, 3, 96, 96]})
    subgraphs = [op for op in module.ops if isinstance(op, SubgraphOp)]
    assert len(subgraphs) == 9
    assert {(s.num_tiles.value.data, s.run_mode.data, s.wb_pin_ocm.value.data) for s in subgraphs} == {(4, "hw", 1)}
    main = next(op for op in module.ops if isinstance(op, func.FuncOp))
    assert sum(isinstance(op, cpu.CallMlipOp) for op in main.walk()) == 9


def test_partition_for_mrvl_rejects_bad_options(zoo_dir: Path) -> None:
    with pytest.raises(mrvl.CompileError, match="num_tiles must be one of 1, 2, 4, 8, got 3"):
        mrvl.partition_for_mrvl(zoo_dir / "mnist.onnx", num_tiles=3)


@pytest.mark.parametrize("output", ["bundle", "bundle.tar"])
def test_compile_then_run_matches_onnxruntime(zoo_dir: Path, tmp_path: Path, output: str) -> None:
    model = zoo_dir / "resnet_small.onnx"
    result = mrvl.compile_model(model, tmp_path / output, input_shapes={"input": [1, 3, 64, 64]}, num_tiles=2)
    assert result.output == tmp_path / output and result.metadata["options"]["num_tiles"] == 2
    assert result.report.totals["subgraphs"] >= 1
    x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
    got = mrvl.run_model(result.output, {"input": x}, precision="fp32")
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"input": x})
    (name,) = got
    assert_close(got[name], want)
