"""Weights in external data files, and in the model file itself, are memory-mapped.

A model saved with its weights in `weights.bin` imports with the weights as read-only
views of that file (no copies), and external data entries that point anywhere but a
plain file in the model's folder, or at bytes that do not fit the tensor, are refused
with a CompileError naming the initializer.
"""

import mmap
import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import DenseResourceAttr, ModuleOp

from mrvl.frontend.onnx_importer import import_onnx
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.weights import WeightStore

FLOAT = TensorProto.FLOAT
W1 = np.random.default_rng(0).standard_normal((4, 256)).astype(np.float32)  # 4 KiB
W2 = np.arange(256, dtype=np.float32)  # 1 KiB
WEIGHTS = {"w1": W1, "w2": W2}


def _model() -> onnx.ModelProto:
    """y = (x + w1) * w2."""
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w1"], ["a"], name="add"), helper.make_node("Mul", ["a", "w2"], ["y"], name="mul")],
        "g",
        [helper.make_tensor_value_info("x", FLOAT, [4, 256])],
        [helper.make_tensor_value_info("y", FLOAT, [4, 256])],
        [numpy_helper.from_array(array, name) for name, array in WEIGHTS.items()],
    )
    return helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


def _save_external(model: onnx.ModelProto, folder: Path) -> Path:
    path = folder / "model.onnx"
    onnx.save_model(
        model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin", size_threshold=0
    )
    assert (folder / "weights.bin").is_file()
    return path


@pytest.fixture
def external(tmp_path: Path) -> Path:
    """`model.onnx` with both weights in `weights.bin`, in a folder of its own."""
    folder = tmp_path / "model"
    folder.mkdir()
    return _save_external(_model(), folder)


def _constants(module: ModuleOp) -> dict[str, np.ndarray]:
    """The array behind each `dense_resource` graph.constant, by its handle."""
    store = WeightStore.of(module)
    found = {}
    for op in module.walk():
        if isinstance(op, ConstantOp) and isinstance(op.value, DenseResourceAttr):
            found[op.value.resource_handle.data] = store.value(op.value)
    return found


def _mapping(array: np.ndarray) -> mmap.mmap | None:
    """The mmap at the end of the array's chain of bases, if any."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return base if isinstance(base, mmap.mmap) else None


def _assert_mapped_view(array: np.ndarray, expected: np.ndarray, file: Path) -> None:
    np.testing.assert_array_equal(array, expected)
    assert array.dtype == expected.dtype and array.shape == expected.shape
    assert array.flags.writeable is False
    with pytest.raises(ValueError):
        array.flat[0] = 1.0
    mapping = _mapping(array)
    assert mapping is not None, "not a view of a memory-mapped file (a copy?)"
    # External data maps only the pages that hold the tensor: the file may be far larger.
    assert array.nbytes <= len(mapping) <= file.stat().st_size, "mapped something other than the file"
    assert bytes(np.ascontiguousarray(array).data) in mapping[:]


def test_external_weights_are_read_only_views_of_the_mapped_file(external: Path):
    module = import_onnx(external)
    constants = _constants(module)
    assert sorted(constants) == ["w1", "w2"]
    store = WeightStore.of(module)
    assert sorted(store) == ["w1", "w2"]
    for name, expected in WEIGHTS.items():
        assert constants[name] is store[name]
        _assert_mapped_view(constants[name], expected, external.parent / "weights.bin")


def test_external_weights_outlive_the_file_handle(external: Path):
    """The mapping stays valid after import, even once the file is deleted."""
    module = import_onnx(external)
    (external.parent / "weights.bin").unlink()
    np.testing.assert_array_equal(_constants(module)["w1"], W1)


def test_embedded_large_initializer_is_a_view_of_the_mapped_model_file(tmp_path: Path):
    path = tmp_path / "model.onnx"
    onnx.save_model(_model(), path)
    module = import_onnx(path)
    constants = _constants(module)
    for name, expected in WEIGHTS.items():
        _assert_mapped_view(constants[name], expected, path)


def test_model_folder_may_be_reached_through_a_symlink(external: Path, tmp_path: Path):
    """Only the location inside the folder is checked for links, not the folder itself."""
    link = tmp_path / "link"
    link.symlink_to(external.parent, target_is_directory=True)
    module = import_onnx(link / "model.onnx")
    np.testing.assert_array_equal(_constants(module)["w1"], W1)


def test_small_external_initializer_can_be_a_shape(tmp_path: Path):
    """With size_threshold=0 even a Reshape's 2-element shape is external; shape inference
    and folding still need its value."""
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        "g",
        [helper.make_tensor_value_info("x", FLOAT, [4, 256])],
        [helper.make_tensor_value_info("y", FLOAT, None)],
        [numpy_helper.from_array(np.array([2, 512], np.int64), "shape")],
    )
    model = helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])
    module = import_onnx(_save_external(model, tmp_path))
    assert "tensor<2x512xf32>" in str(module)


def test_external_data_needs_a_model_file(external: Path):
    model = onnx.load_model(external, load_external_data=False)
    with pytest.raises(CompileError) as error:
        import_onnx(model)
    assert "'w1'" in str(error.value) and "external data" in str(error.value)


# --- hostile external data entries ------------------------------------------------


def _rewrite(model_path: Path, tensor: str = "w1", **entries: str | None) -> None:
    """Change (or with None, remove) the external_data entries of one initializer."""
    model = onnx.load_model(model_path, load_external_data=False)
    (t,) = [t for t in model.graph.initializer if t.name == tensor]
    info = {e.key: e.value for e in t.external_data}
    for key, value in entries.items():
        if value is None:
            info.pop(key, None)
        else:
            info[key] = value
    del t.external_data[:]
    for key, value in info.items():
        t.external_data.add(key=key, value=value)
    onnx.save_model(model, model_path)


def _absolute(path: Path) -> dict:
    _rewrite(path, location=str(path.parent / "weights.bin"))
    return {"words": ["relative", str(path.parent / "weights.bin")]}


def _absolute_elsewhere(path: Path) -> dict:
    _rewrite(path, location="/etc/hostname", offset="0", length="4096")
    return {"words": ["relative", "/etc/hostname"]}


def _parent(path: Path) -> dict:
    """The weights one folder up, reached with `../`."""
    (path.parent / "weights.bin").rename(path.parent.parent / "weights.bin")
    _rewrite(path, location="../weights.bin")
    return {"words": ["'..'", "../weights.bin"]}


def _parent_inside(path: Path) -> dict:
    """`sub/../weights.bin` stays in the folder, but `..` is refused all the same."""
    (path.parent / "sub").mkdir()
    _rewrite(path, location="sub/../weights.bin")
    return {"words": ["'..'"]}


def _parent_backslash(path: Path) -> dict:
    _rewrite(path, location="..\\weights.bin")
    return {"words": ["'..'"]}


def _symlink(path: Path) -> dict:
    (path.parent / "link.bin").symlink_to("weights.bin")
    _rewrite(path, location="link.bin")
    return {"words": ["symbolic link", "link.bin"]}


def _symlink_outside(path: Path) -> dict:
    """A link in the folder to a file outside it."""
    outside = path.parent.parent / "elsewhere.bin"
    (path.parent / "weights.bin").rename(outside)
    (path.parent / "weights.bin").symlink_to(outside)
    return {"words": ["symbolic link", "weights.bin"]}


def _symlinked_folder(path: Path) -> dict:
    (path.parent / "sub").symlink_to(".", target_is_directory=True)
    _rewrite(path, location="sub/weights.bin")
    return {"words": ["symbolic link", "sub/weights.bin"]}


def _hard_link(path: Path) -> dict:
    os.link(path.parent / "weights.bin", path.parent / "hard.bin")
    _rewrite(path, location="hard.bin")
    return {"words": ["hard link", "hard.bin"]}


def _past_end(path: Path) -> dict:
    size = (path.parent / "weights.bin").stat().st_size
    _rewrite(path, offset=str(size - 2048), length="4096")
    return {"words": ["outside", "weights.bin", str(size)]}


def _offset_past_end(path: Path) -> dict:
    size = (path.parent / "weights.bin").stat().st_size
    _rewrite(path, offset=str(size + 4096), length=None)
    return {"words": ["outside", "weights.bin"]}


def _huge_offset(path: Path) -> dict:
    _rewrite(path, offset=str(1 << 70))
    return {"words": ["outside"]}


def _negative_offset(path: Path) -> dict:
    _rewrite(path, offset="-4")
    return {"words": ["outside"]}


def _not_a_number(path: Path) -> dict:
    _rewrite(path, length="4 KiB")
    return {"words": ["not a number"]}


def _length_too_short(path: Path) -> dict:
    _rewrite(path, length="4000")
    return {"words": ["4000", "4096", "[4, 256]"]}


def _length_too_long(path: Path) -> dict:
    _rewrite(path, length="5120")
    return {"words": ["5120", "4096"]}


def _no_length_rest_of_file(path: Path) -> dict:
    """Without `length`, the data runs to the end of the file: more than w1's 4096 bytes."""
    _rewrite(path, length=None)
    return {"words": ["4096"]}


def _missing_file(path: Path) -> dict:
    _rewrite(path, location="missing.bin")
    return {"words": ["not found", "missing.bin"]}


def _no_location(path: Path) -> dict:
    _rewrite(path, location=None)
    return {"words": ["location"]}


def _folder(path: Path) -> dict:
    (path.parent / "data").mkdir()
    _rewrite(path, location="data")
    return {"words": ["data"]}


def _name_too_long(path: Path) -> dict:
    _rewrite(path, location="w" * 300 + ".bin")
    return {"words": ["www"]}


HOSTILE = {
    "absolute-path": _absolute,
    "absolute-path-elsewhere": _absolute_elsewhere,
    "dot-dot": _parent,
    "dot-dot-inside": _parent_inside,
    "dot-dot-backslash": _parent_backslash,
    "symlink": _symlink,
    "symlink-to-outside": _symlink_outside,
    "symlinked-folder": _symlinked_folder,
    "hard-link": _hard_link,
    "range-past-end": _past_end,
    "offset-past-end": _offset_past_end,
    "huge-offset": _huge_offset,
    "negative-offset": _negative_offset,
    "length-not-a-number": _not_a_number,
    "length-too-short-for-dims": _length_too_short,
    "length-too-long-for-dims": _length_too_long,
    "no-length-rest-of-file": _no_length_rest_of_file,
    "missing-file": _missing_file,
    "no-location": _no_location,
    "location-is-a-folder": _folder,
    "location-name-too-long": _name_too_long,
}


@pytest.mark.parametrize("spoil", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_external_data_is_refused(external: Path, spoil):
    expected = spoil(external)
    with pytest.raises(CompileError) as error:
        import_onnx(external)
    message = str(error.value)
    assert error.value.where == "initializer 'w1'", message
    assert "\n" not in message
    for word in expected["words"]:
        assert word in message, f"{word!r} not in {message!r}"


def test_only_the_spoiled_initializer_is_named(external: Path):
    """w2's entry is the broken one; w1 (first) is fine and must not be blamed."""
    _rewrite(external, "w2", location="../weights.bin")
    with pytest.raises(CompileError) as error:
        import_onnx(external)
    assert error.value.where == "initializer 'w2'"
