"""`-t json` / `mrvl-translate --to-json`: each `mrvl.subgraph` -> the JSON files mrvl-tmlc reads.

For every subgraph `@S` of a module, in module order:

- `S-nodes.json`: its inputs and layers (`docs/json-format.md`),
- `S-consts.json`: the weights of its layers, by layer,
- `S-sourcemap.json`: ours, which ONNX nodes each node id of `S-nodes.json` came from,
- `S-quant.json` (with quantize=int8): ours, the scales and zero points of a QDQ model's
  layers by node id (`quant_document`, `schemas/mrvl-quant.schema.json`),

and one `tmlc-commands.txt` with the mrvl-tmlc command line of each subgraph (§3.1).

The files are what Apache TVM's mrvl codegen wrote (apache/tvm@84141c4e7e), byte for byte
where its values were right: symbols and names, key order, string-encoded counts, `[id, 0, 0]`
edges, list-of-string attributes, per-layer constant names, leading-1 constant shapes,
`%.17g` minima and maxima, base64 data. `test/golden/` holds files TVM wrote and
`test/test_json_golden.py` compares; `docs/json-format.md` lists every deliberate difference.

The printer is pure: it reads the IR and the weight store and changes neither. It builds
each document as dicts and serialises it once; weights go through numpy and base64 whole.
"""

import base64
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.utils.target import Target

from mrvl.backend import output_directory
from mrvl.backend.json_text import DeferredText
from mrvl.backend.output_directory import OutputDirectory
from mrvl.backend.mlip_json.layers import CONST_DICTS, Const, Layer, describe, is_layer
from mrvl.backend.mlip_json.unordered_map import iteration_order
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import location_nodes
from mrvl_dialect.element_types import BY_XDSL
from mrvl_dialect.mrvl import QUANTIZED_ATTR, LayoutTransformOp, QuantizedAttr, QuantParamsAttr, SubgraphOp, YieldOp
from mrvl.target.options import TargetOptions
from mrvl_dialect.graph_queries import constant_value

COMMANDS_FILE = "tmlc-commands.txt"
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_FULL_CONST_KEYS = ("kernel", "bias", "input")
"""Roles whose `*_const` dict carries min and max (the batch-norm ones do not)."""


@dataclass(frozen=True)
class SubgraphJson:
    """The documents of one subgraph."""

    symbol: str
    nodes: dict
    consts: dict
    sourcemap: dict
    batch_size: int
    target: TargetOptions
    quant: dict | None = None
    """`<symbol>-quant.json` (`quant_document`), with quantize=int8."""

    def files(self) -> dict[str, dict]:
        """The documents by file name (`write_directory` serialises them)."""
        files = {
            f"{self.symbol}-nodes.json": self.nodes,
            f"{self.symbol}-consts.json": self.consts,
            f"{self.symbol}-sourcemap.json": self.sourcemap,
        }
        if self.quant is not None:
            files[f"{self.symbol}-quant.json"] = self.quant
        return files

    def tmlc_command(self) -> str:
        """The mrvl-tmlc command line, run in the output directory (§3.1); the scales file
        goes with it only under a flag Marvell documents (`TMLC_QUANT_FLAG`)."""
        s = self.symbol
        command = self.target.tmlc_command(s, f"{s}-nodes.json", f"{s}-consts.json", self.batch_size)
        if self.quant is not None and TMLC_QUANT_FLAG:
            command += [TMLC_QUANT_FLAG, f"{s}-quant.json"]
        return shlex.join(command)


QUANT_FORMAT = "mrvl-quant/1"
"""`<symbol>-quant.json`'s `format` (schemas/mrvl-quant.schema.json)."""
TMLC_QUANT_FLAG: str | None = None
"""The mrvl-tmlc option that reads `<symbol>-quant.json`. None: no public document names
one (the int8 JSON mrvl-tmlc reads is not public), so the command lines do not pass it;
set it from Marvell's documentation to compile int8 subgraphs with the model's scales."""


def _quant_tensor(params: QuantParamsAttr) -> dict:
    return {"dtype": BY_XDSL[params.dtype].onnx_name, "axis": params.axis.data,
            "scale": params.scales(), "zero_point": params.zero_points()}


def quant_document(symbol: str, layers: list[tuple[int, str, Operation]]) -> dict:
    """The scales of a QDQ model's layers (`mrvl.quantized`), per JSON node id of the nodes
    file and per tensor (input, weight, output); a layer the model did not quantize has none."""
    entries = []
    for node_id, name, op in layers:
        quantized = op.attributes.get(QUANTIZED_ATTR)
        tensors = quantized.tensors() if isinstance(quantized, QuantizedAttr) else {}
        entries.append({"id": node_id, "name": name, "tensors": {k: _quant_tensor(v) for k, v in tensors.items()}})
    return {"format": QUANT_FORMAT, "symbol": symbol, "layers": entries}


# --- Graph order ------------------------------------------------------------------------


def layers_in_visit_order(block: Block) -> list[Operation]:
    """The layers in the order TVM's serializer visited them: post-order from the outputs,
    operands left to right, each once; then any layer no output depends on, in IR order."""
    order: list[Operation] = []
    seen: set[Operation] = set()
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    roots = [v.owner for v in terminator.values if isinstance(v.owner, Operation)]
    roots += [op for op in block.ops if op is not terminator and not isinstance(op, ConstantOp)]
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[Operation, Iterator[SSAValue]]] = [(root, iter(root.operands))]
        while stack:
            op, operands = stack[-1]
            for value in operands:
                producer = value.owner
                if isinstance(producer, Operation) and not isinstance(producer, ConstantOp) and producer not in seen:
                    seen.add(producer)
                    stack.append((producer, iter(producer.operands)))
                    break
            else:
                stack.pop()
                if not is_layer(op):
                    raise CompileError(
                        "JSON emitter", f"'{op.name}' in mrvl.subgraph is not an MLIP layer "
                        "(run the whole mrvl-pipeline first)"
                    )
                order.append(op)
    return order


def _input_layout(arg: BlockArgument) -> str:
    """NC for rank 2; NHWC for a rank-4 input the layers read as it is; else NCHW (TVM
    wrote NCHW for every input of another rank)."""
    rank = len(_dims(arg))
    if rank == 2:
        return "NC"
    if rank == 4 and any(not isinstance(use.operation, LayoutTransformOp | YieldOp) for use in arg.uses):
        return "NHWC"  # Deliberate (docs/json-format.md D6): TVM wrote NCHW here too.
    return "NCHW"


def _dims(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return value.type.get_shape()


# --- Constants --------------------------------------------------------------------------


def _float_string(value: np.floating) -> str:
    """A float32 as C++ streams it at precision 17 (`%.17g` of the value as a double)."""
    return "%.17g" % float(value)


def _min_max(data: np.ndarray) -> tuple[str, str]:
    """TVM's loop: NaNs never win a comparison, and no value leaves (inf, -inf)."""
    if data.size:
        low, high = data.min(), data.max()
        if not np.isnan(low):
            return _float_string(low), _float_string(high)
        if not np.isnan(data).all():
            return _float_string(np.nanmin(data)), _float_string(np.nanmax(data))
    return "inf", "-inf"


def _base64(data: np.ndarray) -> bytes:
    return base64.b64encode(data.data)


def _const_data(const: Const, module: ModuleOp) -> np.ndarray:
    array = constant_value(const.value, module)
    if array is None:
        owner = const.value.owner
        handle = getattr(getattr(owner, "value", None), "resource_handle", None)
        what = f"dense_resource<{handle.data}>" if handle is not None else "a constant"
        raise CompileError(what, "has no data: print the IR with --print-weights to keep the weights")
    return np.ascontiguousarray(array, dtype="<f4")


# --- Documents --------------------------------------------------------------------------


def subgraph_batch(subgraph: SubgraphOp) -> int:
    """The batch a subgraph is compiled and run for (`batch_size`, mrvl-tmlc -b): as TVM, dim 0
    of its last input."""
    args = subgraph.body.block.args
    return _dims(args[-1])[0] if args and _dims(args[-1]) else 1


def emit_subgraph(subgraph: SubgraphOp, module: ModuleOp, region: int, deferred_data: bool = False) -> SubgraphJson:
    """The documents of `subgraph`; its inputs are named `mrvl_<region>_i<k>`. With
    `deferred_data` each constant's `data_base64` is a `DeferredText`, encoded only as
    `write_file` writes the consts document."""
    symbol = subgraph.sym_name.data
    if not _SYMBOL.fullmatch(symbol):
        raise CompileError(f"@{symbol}", "a subgraph symbol names files: use letters, digits, '_' and '.' only")
    block = subgraph.body.block
    ids: dict[SSAValue, int] = {arg: k for k, arg in enumerate(block.args)}
    inputs = []
    for k, arg in enumerate(block.args):
        if not isinstance(arg.type, TensorType) or arg.type.element_type != f32:
            raise CompileError("JSON emitter", f"input {k} of @{symbol} must be a float32 tensor, got {arg.type}")
        shape, dtype = [list(_dims(arg))], ["float32"]
        attrs = {key: {"shape": shape, "dtype": dtype}[key] for key in iteration_order(("shape", "dtype"))}
        attrs |= {"layer_name": ["input"], "data_layout": [_input_layout(arg)]}
        name = f"mrvl_{region}_i{k}"
        inputs.append({"op": "input", "name": name, "attrs": attrs, "inputs": [], "input_id": [str(k)]})
    source_nodes = [{"id": k, "name": node["name"], "onnx_nodes": []} for k, node in enumerate(inputs)]

    layer_nodes, consts, quantized = [], {}, []
    for j, op in enumerate(layers_in_visit_order(block)):
        layer = describe(op, j, symbol)
        ids[op.results[0]] = len(block.args) + j
        quantized.append((ids[op.results[0]], layer.name, op))
        node = _layer_node(layer, ids, module, consts, deferred_data)
        layer_nodes.append(node)
        source_nodes.append({"id": ids[op.results[0]], "name": layer.name, "layer_name": node["attrs"]["layer_name"][0],
                             "op": op.name,
                             "onnx_nodes": [n.sourcemap_entry() for n in location_nodes(op.location)]})

    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    for value in terminator.values:
        if value not in ids:
            raise CompileError("JSON emitter", f"an output of @{symbol} is neither an input nor a layer result")
    nodes = inputs + layer_nodes
    batch = subgraph_batch(subgraph)
    document = {
        "symbol": symbol,
        "nodes": nodes,
        "arg_nodes": list(range(len(inputs))),
        "heads": [[ids[v], 0, 0] for v in terminator.values],  # Deliberate (D9): TVM dropped id 0
        "batch_size": str(batch),
        "num_subgraph_inputs": str(len(inputs)),
        "num_subgraph_outputs": str(len(terminator.values)),
        "attrs": {
            "shape": ["list_shape", [n["attrs"]["shape"][0] for n in nodes]],
            "dltype": ["list_str", [n["attrs"]["dtype"][0] for n in nodes]],
        },
    }
    sourcemap = {"symbol": symbol, "nodes": source_nodes}
    target = TargetOptions.of_subgraph(subgraph)
    quant = quant_document(symbol, quantized) if target.quantize == "int8" else None
    return SubgraphJson(symbol, document, consts, sourcemap, batch, target, quant)


def _layer_node(layer: Layer, ids: dict[SSAValue, int], module: ModuleOp, consts: dict,
                deferred_data: bool = False) -> dict:
    """The nodes-file entry of `layer`; adds its constants to `consts` in TVM's order."""
    attrs = {key: layer.attrs[key] for key in iteration_order(list(layer.attrs))}
    attrs["mrvl_nodes_idx"] = [layer.index + 1]
    attrs |= {key: {} for key in CONST_DICTS}
    by_name_key = {c.name_key: c for c in layer.consts}
    # ModifyConstNames walks the keys in order and moves each constant it names to the end.
    for key in [k for k in attrs if k in by_name_key]:
        const = by_name_key[key]
        name = layer.const_name(const.role)
        data = _const_data(const, module)
        low, high = _min_max(data)
        # Deliberate (D10): named by its layer, so a constant two layers read is written twice.
        consts[name] = {"shape": list(const.shape), "dtype": "float32", "min": low, "max": high,
                        "data_base64": DeferredText(partial(_base64, data), plain=True) if deferred_data
                        else _base64(data).decode("ascii")}
        mirror = {"shape": list(const.shape), "dtype": "float32"}
        if const.role in _FULL_CONST_KEYS:
            mirror |= {"min": low, "max": high}
        attrs[const.dict_key] = mirror | {"name": name}
    for value in layer.data:
        if value not in ids:
            raise CompileError(
                "JSON emitter", f"an input of '{layer.op.name}' is neither a subgraph input nor a layer result"
            )
    return {"op": "tvm_op", "name": layer.name, "attrs": attrs, "inputs": [[ids[v], 0, 0] for v in layer.data]}


Files = dict[str, "dict | str"]
"""File name -> a JSON document, or text."""


def emit_module(module: ModuleOp, sourcemap: bool = True, deferred_data: bool = False) -> Files:
    """Every file of `module`'s subgraphs, by name, in a fixed order (`deferred_data`: see
    `emit_subgraph`)."""
    files: Files = {}
    commands = []
    subgraphs = [op for op in module.walk() if isinstance(op, SubgraphOp)]
    for position, subgraph in enumerate(subgraphs):
        suffix = re.search(r"(\d+)$", subgraph.sym_name.data)
        emitted = emit_subgraph(subgraph, module, int(suffix[1]) if suffix else position, deferred_data)
        for name, document in emitted.files().items():
            if name in files:
                raise CompileError(f"@{emitted.symbol}", f"two subgraphs would write {name}")
            if sourcemap or not name.endswith("-sourcemap.json"):
                files[name] = document
        commands.append(emitted.tmlc_command() + "\n")
    files[COMMANDS_FILE] = "".join(commands)
    return files


# --- Output directory -------------------------------------------------------------------


OUR_FILES = re.compile(r".+-(nodes|consts|sourcemap|quant)\.json|" + re.escape(COMMANDS_FILE))
"""The files `-t json` writes: a directory holding only these may be replaced."""


def write_directory(path: Path, files: Files) -> None:
    """Make `path` the JSON output directory holding exactly `files`."""
    output_directory.write_directory(path, files, OUR_FILES, "JSON output")


@dataclass(frozen=True)
class JsonTarget(Target):
    """`-t json -o DIR`: the nodes, consts and sourcemap JSON of every subgraph, and
    `tmlc-commands.txt`, written into DIR."""

    name = "json"

    sourcemap: bool = True
    """Also write `<symbol>-sourcemap.json` (node id -> ONNX nodes)."""

    @staticmethod
    def output_directory(path: Path) -> OutputDirectory:
        """What `-o DIR` collects the files in."""
        return OutputDirectory(path, OUR_FILES, "JSON output")

    def files(self, module: ModuleOp) -> Files:
        return emit_module(module, sourcemap=self.sourcemap)

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if not isinstance(output, OutputDirectory):
            raise CompileError("-t json", "writes a directory of files: name it with -o DIR")
        output.add(self.files(module))
