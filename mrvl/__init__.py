"""mrvl-xdsl: compile ONNX models for Marvell OCTEON 10 (MLIP accelerator + Arm host).

The public Python API; the command-line tools in this package are thin wrappers over it.

    from mrvl import partition_for_mrvl, compile_model, run_model
    module = partition_for_mrvl("model.onnx", num_tiles=4)      # the partitioned IR
    result = compile_model("model.onnx", "model.tar", num_tiles=4, mattr="hw -wb_pin_ocm=1")
    print(result.report.totals)                                 # what the reports say
    outputs = run_model("model.tar", {"input": x})              # what mrvl-run does
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    import numpy as np
    import onnx
    from xdsl.dialects.builtin import ModuleOp

_API = {
    "CompileError": "mrvl_dialect.errors",
    "CompileResult": "mrvl.compile",
    "WeightStore": "mrvl_dialect.weights",
    "compile_model": "mrvl.compile",
    "import_onnx": "mrvl.frontend.onnx_importer",
}
"""Where each public name is defined: imported when first asked for, so that a tool or
pass importing `mrvl.<module>` does not load the whole compiler."""


def __getattr__(name: str) -> object:
    if name not in _API:
        raise AttributeError(f"module 'mrvl' has no attribute '{name}'")
    value = getattr(import_module(_API[name]), name)
    globals()[name] = value
    return value


def partition_for_mrvl(model: str | Path | bytes | onnx.ModelProto, **options: object) -> ModuleOp:
    """Import `model` (a path, its bytes or a ModelProto) and partition it between MLIP and
    the host, as TVM's `partition_for_mrvl` did: `mrvl.subgraph`s for the accelerator and
    `cpu` ops for the host. Options are `compile_model`'s: `num_tiles`, `mcpu`, `mattr`,
    `quantize`, `wb_pin_ocm`, `run_mode`, `offload`, `input_shapes`, `placement`."""
    from mrvl.compile import Stages, partition
    from mrvl.timing import Timing

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
