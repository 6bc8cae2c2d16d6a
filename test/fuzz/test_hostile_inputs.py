"""Models written to hurt: each is refused with one error line naming what is wrong.

External data that escapes the model's folder (absolute, `..`, links), tensors whose
data does not match their dims, dims whose product overflows int64, and tensors that
would need terabytes (`mrvl_dialect.limits.MAX_TENSOR_BYTES`) are refused before
anything is read or allocated: every run has a 3 GiB address-space limit
(`tool_server.MEMORY_LIMIT`), so an attempt to allocate would fail as an internal error.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from fuzz.contract import Cases, run_checked
from fuzz.tool_server import ToolServer
from mrvl_dialect.limits import MAX_TENSOR_BYTES

FLOAT = TensorProto.FLOAT
TIB = 1 << 40


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


def _relu_of(tensor: TensorProto, shape=None) -> onnx.ModelProto:
    """y = Relu(w): the initializer `w` is used, so it must be read or checked."""
    return _model([helper.make_node("Relu", ["w"], ["y"], name="relu")], [],
                  [helper.make_tensor_value_info("y", tensor.data_type, shape)], [tensor])


def _external(location: str, offset: int | None = None, length: int | None = None, dims=(4, 256)) -> TensorProto:
    tensor = TensorProto(name="w", data_type=FLOAT, dims=list(dims), data_location=TensorProto.EXTERNAL)
    tensor.external_data.add(key="location", value=location)
    for key, value in (("offset", offset), ("length", length)):
        if value is not None:
            tensor.external_data.add(key=key, value=str(value))
    return tensor


@dataclass
class Hostile:
    name: str
    model: onnx.ModelProto
    words: list[str]
    """Words the error line must contain."""
    setup: Callable[[Path], None] = lambda folder: None
    """Puts files next to the model (its folder is `folder`)."""
    args: list[str] = field(default_factory=list)


def _weights_file(folder: Path, name: str = "weights.bin", size: int = 4096) -> Path:
    path = folder / name
    path.write_bytes(bytes(size))
    return path


def _outside_weights(folder: Path) -> None:
    _weights_file(folder.parent)


def _linked_file(folder: Path) -> None:
    _weights_file(folder.parent)
    os.symlink(folder.parent / "weights.bin", folder / "weights.bin")


def _linked_folder(folder: Path) -> None:
    (folder.parent / "data").mkdir()
    _weights_file(folder.parent / "data")
    os.symlink(folder.parent / "data", folder / "data")


def _hard_link(folder: Path) -> None:
    os.link(_weights_file(folder.parent), folder / "weights.bin")


def _sparse_terabyte(folder: Path) -> None:
    """A 2 TiB weights file that takes no disk space: mapping it would succeed."""
    with open(folder / "weights.bin", "wb") as f:
        f.truncate(2 * TIB)


HOSTILE = [
    # External data paths that leave the model's folder.
    Hostile("external-absolute", _relu_of(_external("/etc/passwd")), ["initializer 'w'", "relative path"]),
    Hostile("external-dotdot", _relu_of(_external("../weights.bin")), ["initializer 'w'", "'..'"],
            _outside_weights),
    Hostile("external-inner-dotdot", _relu_of(_external("sub/../../weights.bin")), ["'..'"], _outside_weights),
    Hostile("external-symlinked-file", _relu_of(_external("weights.bin")), ["symbolic link"], _linked_file),
    Hostile("external-symlinked-folder", _relu_of(_external("data/weights.bin")), ["symbolic link"],
            _linked_folder),
    Hostile("external-hard-link", _relu_of(_external("weights.bin")), ["hard link"], _hard_link),
    Hostile("external-empty-location", _relu_of(_external("")), ["relative path"]),
    # External data that does not fit its file or its dims.
    Hostile("external-past-end", _relu_of(_external("weights.bin", offset=4000, length=4096)),
            ["initializer 'w'", "outside 'weights.bin'"], _weights_file),
    Hostile("external-negative-offset", _relu_of(_external("weights.bin", offset=-4096)), ["outside"],
            _weights_file),
    Hostile("external-huge-offset", _relu_of(_external("weights.bin", offset=1 << 62, length=4096)), ["outside"],
            _weights_file),
    Hostile("external-offset-not-a-number", _relu_of(_external("weights.bin", offset="0x10")),  # type: ignore[arg-type]
            ["not a number"], _weights_file),
    Hostile("external-shorter-than-dims", _relu_of(_external("weights.bin", length=2048)),
            ["initializer 'w'", "2048", "4096"], _weights_file),
    # Data in the model that does not match its dims.
    Hostile("raw-data-short", _relu_of(TensorProto(name="w", data_type=FLOAT, dims=[4, 4], raw_data=bytes(60))),
            ["initializer 'w'", "60 bytes", "needs 64"]),
    Hostile("float-data-long", _relu_of(TensorProto(name="w", data_type=FLOAT, dims=[2, 2], float_data=[1.0] * 5)),
            ["initializer 'w'", "5 values", "needs 4"]),
    Hostile("int64-data-short", _relu_of(TensorProto(name="w", data_type=TensorProto.INT64, dims=[3],
                                                     int64_data=[1, 2])), ["2 values", "needs 3"]),
    # Dims whose product overflows int64, and tensors of terabytes.
    Hostile("initializer-overflowing-dims",
            _relu_of(TensorProto(name="w", data_type=FLOAT, dims=[1 << 62, 1 << 62, 16], raw_data=bytes(16))),
            ["initializer 'w'", "GiB"]),
    Hostile("initializer-terabytes-external", _relu_of(_external("weights.bin", dims=[TIB // 4])),
            ["initializer 'w'", "1,099,511,627,776 bytes", "GiB"], _sparse_terabyte),
    Hostile("input-terabytes",
            _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                   [helper.make_tensor_value_info("x", FLOAT, [1 << 20, 1 << 20, 1])],
                   [helper.make_tensor_value_info("y", FLOAT, None)]),
            ["graph input 'x'", "4,398,046,511,104 bytes"]),
    Hostile("input-overflowing-dims",
            _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                   [helper.make_tensor_value_info("x", FLOAT, [1 << 62, 1 << 62])],
                   [helper.make_tensor_value_info("y", FLOAT, None)]),
            ["graph input 'x'", "GiB"]),
    Hostile("input-shape-terabytes",
            _model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                   [helper.make_tensor_value_info("x", FLOAT, ["n", 1 << 20])],
                   [helper.make_tensor_value_info("y", FLOAT, None)]),
            ["graph input 'x'", "GiB"], args=["--input-shape", f"x={1 << 30}x{1 << 20}"]),
    Hostile("intermediate-terabytes",  # Expand to a constant shape: inference derives the dims
            _model([helper.make_node("Expand", ["x", "shape"], ["y"], name="expand")],
                   [helper.make_tensor_value_info("x", FLOAT, [1])],
                   [helper.make_tensor_value_info("y", FLOAT, None)],
                   [numpy_helper.from_array(np.array([1 << 20, 1 << 20, 1 << 10], np.int64), "shape")]),
            ["node 'expand' (Expand)", "GiB"]),
    Hostile("constant-of-shape-terabytes",
            _model([helper.make_node("ConstantOfShape", ["shape"], ["y"], name="fill")], [],
                   [helper.make_tensor_value_info("y", FLOAT, None)],
                   [numpy_helper.from_array(np.array([1 << 40], np.int64), "shape")]),
            ["node 'fill' (ConstantOfShape)", "GiB"]),
]


@pytest.mark.parametrize("case", HOSTILE, ids=[c.name for c in HOSTILE])
def test_hostile_model_is_refused(case: Hostile, server: ToolServer, cases: Cases):
    run_case = cases.new()
    folder = run_case.input_dir / "model"  # a folder of its own, so that its parent is outside it
    folder.mkdir()
    case.setup(folder)
    source = folder / "model.onnx"
    source.write_bytes(case.model.SerializeToString())
    run = run_checked(server, "hostile", run_case, "mrvl-opt", case.args, source)
    assert run.returncode == 1, run.report()
    for word in case.words:
        assert word in run.stderr, f"{word!r} not in the message\n" + run.report()


def test_limit_is_below_int64():
    """Sizes under the limit never wrap around in int64 arithmetic (numpy, C size_t)."""
    assert MAX_TENSOR_BYTES * 16 < 1 << 63


HUGE_IR = """builtin.module {
  func.func @main(%x: tensor<1048576x1048576x1024xf32>) -> tensor<1048576x1048576x1024xf32> {
    %y = graph.Relu %x : (tensor<1048576x1048576x1024xf32>) -> tensor<1048576x1048576x1024xf32>
    func.return %y : tensor<1048576x1048576x1024xf32>
  }
}
"""


def test_ir_asking_for_petabytes_is_refused(server: ToolServer, cases: Cases):
    """IR text is checked as ONNX models are: the host C bundle of this one declared a
    4 PiB workspace before the check."""
    case = cases.new()
    source = case.write_input("in.mlir", HUGE_IR)
    run = run_checked(server, "hostile", case, "mrvl-opt", ["-p", "mrvl-pipeline,mrvl-host-pipeline", "-t", "c{model=m}"], source, "c")
    assert run.returncode == 1, run.report()
    assert "'func.func': 'x' of shape 1048576x1048576x1024" in run.stderr and "GiB" in run.stderr, run.report()
