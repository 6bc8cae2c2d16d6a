"""The JSON emitter (`backend/json_emitter.py`): key order, number formats, constants,
determinism, and the `-t json -o DIR` / `--to-json` contract of the tools."""

import base64
import json
import random
import shutil
import string
import subprocess
from pathlib import Path

import numpy as np
import pytest
from ir_helpers import ZOO_INPUT_SHAPES
from xdsl.context import Context

from mrvl.backend.json_emitter import _float_string, _min_max, emit_module, write_directory
from mrvl.backend.mlip_json.unordered_map import hash_bytes, iteration_order
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.opt import main as mrvl_opt
from mrvl.translate import main as mrvl_translate
from mrvl_dialect import mrvl
from mrvl_dialect.graph_queries import constant_value
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass

GOLDEN = Path(__file__).parent / "golden"
MODEL = GOLDEN / "conv_bias_bn_relu" / "model.onnx"


def _compiled(model, shapes=None, **options):
    module = import_onnx(model, shapes or {})
    MrvlPipelinePass(**options).apply(Context(), module)
    return module


# --- key order: libstdc++'s unordered_map -----------------------------------------------

_ORDER_CPP = r"""
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::unordered_map<std::string, int> m;
    std::istringstream words(line);
    std::string key;
    while (words >> key) m[key] = 0;
    const char* sep = "";
    for (const auto& kv : m) { std::cout << sep << kv.first << ':' << std::hash<std::string>{}(kv.first); sep = " "; }
    std::cout << "\n";
  }
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++ (libstdc++) to compare with")
def test_key_order_is_libstdcxx_unordered_map(tmp_path):
    """Random key sets (up to 125 keys, with repeated insertions) iterate in the same order
    as a real `std::unordered_map`, and every key hashes the same."""
    source, binary = tmp_path / "order.cpp", tmp_path / "order"
    source.write_text(_ORDER_CPP)
    subprocess.run(["g++", "-O1", "-o", str(binary), str(source)], check=True)
    rng = random.Random(4)
    alphabet = string.ascii_letters + string.digits + "_."
    cases = []
    for _ in range(500):
        keys = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(rng.randint(1, 120))]
        keys += rng.sample(keys, min(len(keys), 5))
        rng.shuffle(keys)
        cases.append(keys)
    output = subprocess.run([str(binary)], input="".join(" ".join(k) + "\n" for k in cases),
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for keys, line in zip(cases, output, strict=True):
        pairs = [entry.rsplit(":", 1) for entry in line.split()]
        assert list(iteration_order(keys)) == [k for k, _ in pairs]
        assert all(hash_bytes(k.encode()) == int(h) for k, h in pairs)


def test_key_order_of_a_tvm_layer():
    """The layout_transform of every golden, as TVM's C++ inserted its keys."""
    inserted = ["src_layout", "dst_layout", "layer_name", "func_node_name", "data_layout_shape", "from_tuple_idx",
                "data_layout", "out_layout_shape", "out_layout", "func_name", "shape", "dtype", "num_inputs",
                "num_outputs"]
    tvm = json.loads((GOLDEN / "conv_relu_maxpool_fc" / "tvmgen_mrvl_main_0-nodes.json").read_text())
    assert list(iteration_order(inserted)) == list(tvm["nodes"][1]["attrs"])[:len(inserted)]
    assert iteration_order(["shape", "dtype"]) == ("dtype", "shape")


# --- numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize("value, text", [
    (-1.0, "-1"), (1.25, "1.25"), (0.1, "0.10000000149011612"), (1e-5, "9.9999997473787516e-06"),
    (-0.99452298879623413, "-0.99452298879623413"), (3e38, "3.0000000054977558e+38"), (0.0, "0"),
    (1e-40, "9.9999461011147596e-41"), (123456789, "123456792"), (1e-4, "9.9999997473787516e-05"),
    (np.inf, "inf"), (-np.inf, "-inf"),
])
def test_floats_are_printed_as_cxx_does_at_precision_17(value, text):
    """The expected strings are what `std::ostringstream` at precision 17 prints (GCC 12)."""
    assert _float_string(np.float32(value)) == text


@pytest.mark.parametrize("values, expected", [
    ([3, -2, 0.5], ("-2", "3")),
    ([np.nan, 1, -1], ("-1", "1")),  # NaN never wins a comparison in TVM's loop
    ([np.nan, np.nan], ("inf", "-inf")),
    ([], ("inf", "-inf")),
    ([np.inf, -np.inf], ("-inf", "inf")),
])
def test_min_max_follow_tvms_loop(values, expected):
    assert _min_max(np.array(values, np.float32)) == expected


# --- constants --------------------------------------------------------------------------


def _decode(entry: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(entry["data_base64"], validate=True), "<f4").reshape(entry["shape"])


@pytest.mark.parametrize("name", ["mnist", "resnet_small", "mobilenet_small"])
def test_consts_hold_the_layers_weights(name, zoo_dir):
    """Every constant decodes to the array its layer reads (OHWI kernels, [out, in] FC
    weights, biases and batch-norm vectors with their leading 1s), and its min and max."""
    module = _compiled(zoo_dir / f"{name}.onnx", ZOO_INPUT_SHAPES[name])
    files = emit_module(module)
    subgraphs = [op for op in module.walk() if isinstance(op, mrvl.SubgraphOp)]
    for subgraph in subgraphs:
        symbol = subgraph.sym_name.data
        nodes, consts = files[f"{symbol}-nodes.json"], files[f"{symbol}-consts.json"]
        layers = {n["name"]: n for n in nodes["nodes"] if n["op"] == "tvm_op"}
        named = {}
        for layer in layers.values():
            for key, value in layer["attrs"].items():
                if key.endswith("_const_name"):
                    named[value[0]] = (layer, key.removesuffix("_name"))
        assert list(named) == list(consts), "one entry per named constant, in naming order"
        ops = [op for op in subgraph.body.block.ops if type(op) in mrvl.LAYER_OPS]
        by_kind = {}
        for op in ops:
            by_kind.setdefault(op.name, []).append(op)
        for const_name, (layer, role) in named.items():
            entry = consts[const_name]
            data = _decode(entry)
            assert layer["attrs"][role]["name"] == const_name
            assert layer["attrs"][role]["shape"] == entry["shape"]
            if data.size:
                assert entry["min"] == _float_string(data.min()) and entry["max"] == _float_string(data.max())
        # The kernels, in layer order, are the IR's weights.
        kernels = [_decode(consts[n]) for n, (_, role) in named.items() if role == "kernel_const"]
        weights = [constant_value(op.weight, module) for op in ops if isinstance(op, mrvl.Conv2DOp | mrvl.FCOp)]
        assert sorted(k.tobytes() for k in kernels) == sorted(w.astype("<f4").tobytes() for w in weights)


def test_conv_bias_is_written_as_tvms_nhwc_bias():
    module = _compiled(MODEL)
    consts = emit_module(module)["tvmgen_mrvl_main_0-consts.json"]
    (conv,) = [op for op in module.walk() if isinstance(op, mrvl.Conv2DOp)]
    bias = consts["tvmgen_mrvl_main_1_const_1"]
    assert bias["shape"] == [1, 1, 1, 8]
    np.testing.assert_array_equal(_decode(bias).reshape(8), constant_value(conv.bias, module))
    assert consts["tvmgen_mrvl_main_1_const_2"]["shape"] == [1, 8]  # gamma


# --- determinism and the tools ----------------------------------------------------------


def test_output_is_byte_identical_across_runs(tmp_path):
    for run in ("a", "b"):
        assert mrvl_opt([str(GOLDEN / "pools_concat" / "model.onnx"), "-p", "mrvl-pipeline", "-t", "json",
                         "-o", str(tmp_path / run)]) == 0
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    assert names == ["tmlc-commands.txt", "tvmgen_mrvl_main_0-consts.json", "tvmgen_mrvl_main_0-nodes.json",
                     "tvmgen_mrvl_main_0-sourcemap.json"]
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_translate_to_json_writes_what_opt_writes(tmp_path):
    ir = tmp_path / "m.mlir"
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "--print-weights", "--print-debuginfo", "-o", str(ir)]) == 0
    assert mrvl_translate(["--to-json", str(ir), "-o", str(tmp_path / "t")]) == 0
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-t", "json", "-o", str(tmp_path / "o")]) == 0
    for path in (tmp_path / "o").iterdir():
        assert (tmp_path / "t" / path.name).read_bytes() == path.read_bytes(), path.name


def test_sourcemap_is_optional(tmp_path):
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-t", "json{sourcemap=false}", "-o", str(tmp_path / "o")]) == 0
    assert not list((tmp_path / "o").glob("*-sourcemap.json"))


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_missing_output_directory_is_an_error(tmp_path, capsys):
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-t", "json"]) == 1
    assert capsys.readouterr().err == (
        f"error: {MODEL}: -t json: writes a directory of files: name it with -o DIR\n")


def test_a_failed_run_writes_nothing(tmp_path, capsys):
    """IR printed without its weights: one error line, no directory, no staging left."""
    ir = tmp_path / "m.mlir"
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-o", str(ir)]) == 0
    assert mrvl_translate(["--to-json", str(ir), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no data: print the IR with --print-weights" in err
    assert not (tmp_path / "out").exists() and _leftovers(tmp_path) == []


def test_previous_output_is_replaced_whole(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "tvmgen_mrvl_main_7-nodes.json").write_text("{}")
    (out / "tmlc-commands.txt").write_text("old")
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-t", "json", "-o", str(out)]) == 0
    assert not (out / "tvmgen_mrvl_main_7-nodes.json").exists()
    assert (out / "tmlc-commands.txt").read_text().startswith("mrvl-tmlc -mn tvmgen_mrvl_main_0 ")
    assert _leftovers(tmp_path) == []


def test_a_directory_with_other_files_is_left_alone(tmp_path, capsys):
    out = tmp_path / "project"
    out.mkdir()
    (out / "model.onnx").write_text("keep me")
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-t", "json", "-o", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"error: {MODEL}: cannot write '{out}': the directory holds other files than JSON output (model.onnx)\n")
    assert [p.name for p in out.iterdir()] == ["model.onnx"] and _leftovers(tmp_path) == []


def test_an_output_that_is_a_file_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    out.write_text("x")
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline", "-t", "json", "-o", str(out)]) == 1
    assert "cannot write" in capsys.readouterr().err and out.read_text() == "x"


def test_write_directory_keeps_the_old_output_when_writing_fails(tmp_path):
    out = tmp_path / "out"
    write_directory(out, {"tmlc-commands.txt": "first\n"})
    with pytest.raises(TypeError):
        write_directory(out, {"a-nodes.json": {"bad": object()}})
    assert (out / "tmlc-commands.txt").read_text() == "first\n" and _leftovers(tmp_path) == []


def test_split_input_file_is_refused(tmp_path, capsys):
    assert mrvl_opt([str(MODEL), "--split-input-file", "-t", "json", "-o", str(tmp_path / "o")]) == 1
    assert "--split-input-file is not supported" in capsys.readouterr().err


def test_a_module_without_subgraphs_gives_an_empty_command_file(tmp_path):
    assert mrvl_opt([str(MODEL), "-p", "mrvl-pipeline{offload=false}", "-t", "json", "-o", str(tmp_path / "o")]) == 0
    assert [p.name for p in (tmp_path / "o").iterdir()] == ["tmlc-commands.txt"]
    assert (tmp_path / "o" / "tmlc-commands.txt").read_text() == ""
