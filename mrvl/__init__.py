"""mrvl-xdsl: compile ONNX models for Marvell OCTEON 10 (MLIP accelerator + Arm host).

The public Python API; the command-line tools in this package are thin wrappers over it.
"""

from frontend.onnx_importer import import_onnx
from mrvl_dialect.errors import CompileError
from mrvl_dialect.weights import WeightStore

__all__ = ["CompileError", "WeightStore", "import_onnx"]
