"""mrvl-xdsl: compile ONNX models for Marvell OCTEON 10 (MLIP accelerator + Arm host).

The public Python API; the command-line tools in this package are thin wrappers over it.

    from mrvl import partition_for_mrvl, compile_model, run_model
    module = partition_for_mrvl("model.onnx", num_tiles=4)      # the partitioned IR
    result = compile_model("model.onnx", "model.tar", num_tiles=4, mattr="hw -wb_pin_ocm=1")
    print(result.report.totals)                                 # what the reports say
    outputs = run_model("model.tar", {"input": x})              # what mrvl-run does
"""

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import onnx
from xdsl.dialects.builtin import ModuleOp

from mrvl.frontend.onnx_importer import import_onnx
from mrvl.compile import CompileResult, Stages, compile_model, partition
from mrvl.timing import Timing
from mrvl_dialect.errors import CompileError
from mrvl_dialect.weights import WeightStore


def partition_for_mrvl(model: str | Path | bytes | onnx.ModelProto, **options: object) -> ModuleOp:
    """Import `model` (a path, its bytes or a ModelProto) and partition it between MLIP and
    the host, as TVM's `partition_for_mrvl` did: `mrvl.subgraph`s for the accelerator and
    `cpu` ops for the host. Options are `compile_model`'s: `num_tiles`, `mcpu`, `mattr`,
    `quantize`, `wb_pin_ocm`, `run_mode`, `offload`, `input_shapes`, `placement`."""
    return partition(model, Stages(Timing()), **options)  # type: ignore[arg-type]


def run_model(
    bundle: str | Path, inputs: Mapping[str, np.ndarray], *, precision: str = "fp16", cc: str | None = None,
) -> dict[str, np.ndarray]:
    """Run a bundle `compile_model` wrote (a folder or `.tar`) on `inputs` by name, as
    `mrvl-run` does: its outputs by name."""
    from mrvl.run import run_bundle  # builds C: only needed when running

    return run_bundle(bundle, inputs, precision=precision, cc=cc)


__all__ = [
    "CompileError", "CompileResult", "WeightStore", "compile_model", "import_onnx", "partition_for_mrvl", "run_model",
]
