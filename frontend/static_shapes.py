"""Make an ONNX model's tensor types static before import.

Exporters write dynamic batch dims and compute shapes at run time
(`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`, `ConstantOfShape`, `Cast` of
constants, `Constant` nodes as operands). Here the model is upgraded to the dialect's
opset, user-given input shapes are applied, and ONNX shape inference alternates with
folding every node whose inputs are known until nothing changes. Folding evaluates nodes
with ONNX's own reference implementation.

Shapes the model declares for tensors ONNX operators write (value_info, subgraph outputs,
the main graph's outputs) are forgotten first: where one contradicts inference, the
inferred shape is used after one warning, as onnxruntime runs such models.
"""

import re
import warnings
from collections.abc import Callable
from functools import lru_cache

import numpy as np
import onnx
import onnx.defs
import onnx.shape_inference
import onnx.version_converter
from onnx import TensorProto, numpy_helper
from xdsl.traits import Pure

from mrvl.frontend.contrib_ops import expand_contrib_ops
from mrvl.frontend.onnx_graph import graph_uses, node_label, subgraphs
from mrvl.frontend.qoperator import qoperator_as_qdq
from mrvl.frontend.model_file import MAPPED_MIN_BYTES, LoadedModel, small_initializer_value
from mrvl_dialect.element_types import onnx_type_name
from mrvl_dialect.errors import CompileError, CompileWarning
from mrvl_dialect.graph_ops_gen import OPSET
from mrvl_dialect.graph import Graph

OLDEST_OPSET = 7
OLDEST_IR_VERSION = 3
"""The first IR version with opset imports; ONNX's version converter needs one."""
_PASS_THROUGH_DOMAIN = "mrvl.unknown"
FOLD_MAX_ELEMENTS = 1 << 20
"""Nodes that compute (rather than move data) fold only up to this many input elements:
the reference evaluator is numpy, and a model must not turn compile time into run time."""
FOLD_MAX_RESULT_ELEMENTS = 1 << 26
"""Folded results are held in memory: larger ones stay nodes."""
_DATA_MOVEMENT = {
    "Cast", "CastLike", "Concat", "DequantizeLinear", "Expand", "Flatten", "Gather",
    "Identity", "Reshape", "Slice", "Split", "Squeeze", "Transpose", "Unsqueeze",
}
_FOLDABLE = ({
    op.name.removeprefix("graph.") for op in Graph.operations if op.has_trait(Pure)
} | {"Constant"}) - {"DequantizeLinear"}
"""DequantizeLinear is left to `recognize-qdq`, which folds a constant one and records how
the weight was quantized."""


def upgrade_opset(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model at the dialect's opset, converted by ONNX's version converter if older."""
    versions = {o.domain: o.version for o in model.opset_import}
    version = versions.get("", versions.get("ai.onnx"))
    if version is None:
        if any(n.domain in ("", "ai.onnx") for n in model.graph.node):
            raise CompileError("opset_import", "the model imports no opset of the default ONNX domain")
        return model
    if version < OLDEST_OPSET:
        raise CompileError("opset_import", f"ONNX opset {version} is not supported (oldest: {OLDEST_OPSET})")
    if version > OPSET:
        raise CompileError("opset_import", f"ONNX opset {version} is newer than the newest supported ({OPSET})")
    if version == OPSET:
        return model
    if model.ir_version < OLDEST_IR_VERSION:
        # ONNX's converter fails on these with an assertion from its C++ sources.
        raise CompileError(
            "ir_version",
            f"IR version {model.ir_version} cannot be upgraded from opset {version} "
            f"(oldest IR version: {OLDEST_IR_VERSION})",
        )
    # The converter asserts on operators it has no schema for; they pass through it in a
    # domain of their own and come back unchanged.
    unknown = [n for n in _all_nodes(model.graph) if n.domain in ("", "ai.onnx")
               and not _has_schema(n.op_type, n.domain)]
    for node in unknown:
        node.domain = _PASS_THROUGH_DOMAIN
    if unknown:
        model.opset_import.add(domain=_PASS_THROUGH_DOMAIN, version=1)
    try:
        converted = onnx.version_converter.convert_version(model, OPSET)
    except Exception as e:  # the converter raises bare RuntimeErrors and ValueErrors
        message = " ".join(str(e).split())
        raise CompileError("opset_import", f"cannot upgrade from opset {version} to {OPSET}: {message}") from None
    for node in _all_nodes(converted.graph):
        if node.domain == _PASS_THROUGH_DOMAIN:
            node.domain = ""
        elif node.op_type == "Resize" and version < 11:
            _keep_resize_10_semantics(node)
    kept = [o for o in converted.opset_import if o.domain != _PASS_THROUGH_DOMAIN]
    del converted.opset_import[:]
    converted.opset_import.extend(kept)
    return converted


@lru_cache(maxsize=1024)
def _has_schema(op_type: str, domain: str) -> bool:
    return onnx.defs.has(op_type, domain)


def _keep_resize_10_semantics(node: onnx.NodeProto) -> None:
    """Spell out how Resize-10 and Upsample mapped coordinates, which Resize-11 changed.

    ONNX's converter leaves the attributes out, so the upgraded node would silently take
    Resize-11's defaults (half_pixel, round_prefer_floor) and compute something else.
    """
    present = {a.name for a in node.attribute}
    if "coordinate_transformation_mode" not in present:
        node.attribute.append(onnx.helper.make_attribute("coordinate_transformation_mode", "asymmetric"))
    mode = next((a.s for a in node.attribute if a.name == "mode"), b"nearest")
    if mode == b"nearest" and "nearest_mode" not in present:
        node.attribute.append(onnx.helper.make_attribute("nearest_mode", "floor"))


def _all_nodes(graph: onnx.GraphProto):
    for node in graph.node:
        yield node
        for g in subgraphs(node):
            yield from _all_nodes(g)


def clear_unknown_dims(graph: onnx.GraphProto) -> None:
    """Make the dims exporters write as numbers but mean as unknown dynamic dims.

    Paddle2ONNX writes a dynamic dim as `dim_value: -1` and some exporters write 0 for an
    unknown size in value_info and outputs; onnxruntime takes both as dynamic. A graph
    input's 0 is a real (empty) size and stays.
    """
    declared = [(v, -1) for v in graph.input] + [(v, 0) for v in (*graph.output, *graph.value_info)]
    for value, largest_unknown in declared:
        if value.type.HasField("tensor_type"):
            for dim in value.type.tensor_type.shape.dim:
                if dim.HasField("dim_value") and dim.dim_value <= largest_unknown:
                    dim.Clear()
    for node in graph.node:
        for g in subgraphs(node):
            clear_unknown_dims(g)


def apply_input_shapes(model: onnx.ModelProto, shapes: dict[str, list[int]]) -> None:
    inputs = {i.name: i for i in model.graph.input}
    for name, shape in shapes.items():
        where = f"--input-shape {name}"
        if name not in inputs:
            known = ", ".join(sorted(inputs)) or "none"
            raise CompileError(where, f"the model has no input '{name}' (inputs: {known})")
        tensor_type = inputs[name].type.tensor_type
        dims = tensor_type.shape.dim
        if tensor_type.HasField("shape") and len(dims) != len(shape):
            raise CompileError(where, f"input '{name}' has rank {len(dims)}, not {len(shape)}")
        if any(d <= 0 for d in shape):
            raise CompileError(where, "dimensions must be positive")
        for i, (dim, size) in enumerate(zip(dims, shape)):
            if dim.HasField("dim_value") and dim.dim_value != size:
                raise CompileError(where, f"dim {i} of input '{name}' is fixed at {dim.dim_value}, not {size}")
        tensor_type.shape.Clear()
        for size in shape:
            tensor_type.shape.dim.add().dim_value = size


def infer_types(model: onnx.ModelProto, strict: bool = True) -> tuple[onnx.ModelProto, dict[str, onnx.TypeProto]]:
    """The model with inferred value_info (subgraphs too), and the main graph's tensor types.

    Not `strict`, inference skips what it cannot infer instead of failing."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=strict, data_prop=True)
    except onnx.shape_inference.InferenceError as e:
        raise _inference_error(" ".join(str(e).split())) from None
    graph = inferred.graph
    types = {v.name: v.type for v in (*graph.value_info, *graph.input, *graph.output)}
    for t in graph.initializer:
        types[t.name] = onnx.helper.make_tensor_type_proto(t.data_type, list(t.dims))
    return inferred, types


def _inference_error(message: str) -> CompileError:
    """ONNX's inference message, re-located at the node it names."""
    found = re.search(r"\(op_type:([^,]+), node name: ([^)]*)\): (.*)", message)
    if found is None:
        return CompileError("shape inference", message)
    op_type, node, detail = found.groups()
    detail = detail.replace("[ShapeInferenceError] ", "").replace("[TypeInferenceError] ", "")
    return CompileError(f"node '{node}' ({op_type})", f"shape inference failed: {detail}")


def static_shape(tensor_type: onnx.TypeProto) -> list[int] | None:
    if not tensor_type.HasField("tensor_type") or not tensor_type.tensor_type.HasField("shape"):
        return None
    dims = tensor_type.tensor_type.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


class _Folder:
    """Folds nodes with known inputs into constants, one pass over the graph."""

    def __init__(self, loaded: LoadedModel, opset: int):
        self.loaded = loaded
        self.opset = opset
        graph = loaded.model.graph
        self.constants: dict[str, np.ndarray | None] = {
            t.name: None for t in graph.initializer
        }  # values are read on demand: most weights are never needed here
        self.initializers = {t.name: t for t in graph.initializer}

    def value(self, name: str) -> np.ndarray:
        if (array := self.constants[name]) is None:
            if name in self.loaded.weights:
                array = self.loaded.weights[name]
            else:
                array = small_initializer_value(self.initializers[name])
            self.constants[name] = array
        return array

    def run(self, types: dict[str, onnx.TypeProto]) -> bool:
        graph = self.loaded.model.graph
        kept, folded, inlined = [], [], False
        taken = {n.name for n in graph.node}
        for node in graph.node:
            if (branch := self._taken_branch(node)) is not None:
                kept.extend(self._inline(node, branch, taken))
                inlined = True
                continue
            outputs = self._fold(node, types)
            if outputs is None:
                kept.append(node)
                continue
            for name, array in zip(node.output, outputs):
                if name:
                    self.constants[name] = array
                    folded.append((name, array))
        if not folded and not inlined:
            return False
        del graph.node[:]
        graph.node.extend(kept)
        for name, array in folded:
            self._add_initializer(name, array)
        return True

    def _taken_branch(self, node: onnx.NodeProto) -> onnx.GraphProto | None:
        """The branch an `If` takes when its condition is known (exporters trace Python
        `if`s on shapes or flags into Ifs that are constant once inputs are fixed)."""
        if node.domain not in ("", "ai.onnx") or node.op_type != "If" or node.input[0] not in self.constants:
            return None
        condition = self.value(node.input[0])
        if condition.size != 1:
            return None  # ONNX's If refuses it at run time; the importer keeps the node
        name = "then_branch" if bool(condition.reshape(-1)[0]) else "else_branch"
        return next((a.g for a in node.attribute if a.name == name), None)

    def _inline(self, node: onnx.NodeProto, branch: onnx.GraphProto, taken: set[str]) -> list[onnx.NodeProto]:
        """The branch's nodes in place of the If, writing the If's outputs.

        A branch output a branch node writes is renamed to the If's output; one the branch
        only passes through (an outer tensor or an initializer), or that a nested subgraph
        reads by name, gets an Identity.
        """
        produced = {out for n in branch.node for out in n.output if out}
        produced -= {name for n in branch.node for g in subgraphs(n) for name in graph_uses(g)}
        renamed = {b.name: out for b, out in zip(branch.output, node.output) if b.name in produced and out}
        nodes = []
        for inner in branch.node:
            copy = onnx.NodeProto()
            copy.CopyFrom(inner)
            copy.input[:] = [renamed.get(name, name) for name in inner.input]
            copy.output[:] = [renamed.get(name, name) for name in inner.output]
            if copy.name in taken:
                copy.name = f"{node.name}/{copy.name}"
            taken.add(copy.name)
            nodes.append(copy)
        for b, out in zip(branch.output, node.output):
            if out and b.name not in renamed:
                name = f"{node.name}/Identity_{out}"
                nodes.append(onnx.helper.make_node("Identity", [b.name], [out], name=name))
                taken.add(name)
        for value in branch.value_info:  # left by drop_inferable_value_info: other domains' outputs
            kept = self.loaded.model.graph.value_info.add()
            kept.CopyFrom(value)
            kept.name = renamed.get(value.name, value.name)
        for tensor in branch.initializer:
            self.loaded.model.graph.initializer.append(tensor)
            self.initializers[tensor.name] = tensor
            self.constants[tensor.name] = None
        return nodes

    def _fold(self, node: onnx.NodeProto, types: dict[str, onnx.TypeProto]) -> list[np.ndarray] | None:
        if node.domain not in ("", "ai.onnx") or node.op_type not in _FOLDABLE or subgraphs(node):
            return None
        if node.op_type in ("Shape", "Size"):
            shape = static_shape(types.get(node.input[0], onnx.TypeProto()))
            if shape is None:
                return None
            if node.op_type == "Size":
                return [np.array(int(np.prod(shape)), np.int64)]
            attrs = {a.name: a.i for a in node.attribute}
            return [np.array(shape[slice(attrs.get("start"), attrs.get("end"))], np.int64)]
        inputs = [name for name in node.input if name]
        if not all(name in self.constants for name in inputs):
            return None
        if node.op_type not in _DATA_MOVEMENT:
            sizes = [static_shape(types.get(name, onnx.TypeProto())) for name in inputs]
            if any(s is None or np.prod(s, dtype=object) > FOLD_MAX_ELEMENTS for s in sizes):
                return None
        # Results are allocated: their size must be sane (ConstantOfShape, Expand or Tile can
        # ask for terabytes) and known first, unless the op cannot make more data than it got.
        for name in node.output:
            shape = static_shape(types.get(name, onnx.TypeProto())) if name else []
            if shape is None and node.op_type in _DATA_MOVEMENT and node.op_type != "Expand":
                continue
            if shape is None or np.prod(shape, dtype=object) > FOLD_MAX_RESULT_ELEMENTS:
                return None
        from onnx.reference import ReferenceEvaluator  # ~0.1 s to import: only once something is evaluated

        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                evaluator = ReferenceEvaluator(node, opsets={"": self.opset})
                results = evaluator.run(None, {name: self.value(name) for name in inputs})
        except Exception:  # left for run time, where the same input fails the same way
            return None
        return [np.asarray(r) for r in results]

    def _add_initializer(self, name: str, array: np.ndarray) -> None:
        if array.nbytes < MAPPED_MIN_BYTES:
            tensor = numpy_helper.from_array(array, name)
        else:
            # Keep big data out of the message: inference needs only its type.
            data_type = onnx.helper.np_dtype_to_tensor_dtype(array.dtype)
            tensor = TensorProto(name=name, data_type=data_type, dims=array.shape)
            self.loaded.weights[name] = array
        self.loaded.model.graph.initializer.append(tensor)
        self.initializers[name] = tensor


def remove_unused_initializers(loaded: LoadedModel) -> None:
    graph = loaded.model.graph
    used = {name for node in graph.node for name in node.input} | {o.name for o in graph.output}
    for node in graph.node:
        for g in subgraphs(node):
            used |= graph_uses(g)
    kept = [t for t in graph.initializer if t.name in used]
    for t in graph.initializer:
        if t.name not in used:
            loaded.weights.pop(t.name, None)
    del graph.initializer[:]
    graph.initializer.extend(kept)


def _inferable_producers(graph: onnx.GraphProto) -> dict[str, onnx.NodeProto]:
    """The nodes ONNX shape inference has a rule for, by the tensors they write."""
    return {
        name: node for node in graph.node if node.domain in ("", "ai.onnx") and onnx.defs.has(node.op_type)
        for name in node.output
    }


def drop_inferable_value_info(
    graph: onnx.GraphProto, subgraph: bool = False,
) -> dict[str, tuple[onnx.NodeProto, onnx.TypeProto]]:
    """Forget the recorded types of tensors that shape inference derives itself (subgraphs too).

    Exporters and the version converter record them with dynamic dims, and inference
    keeps a recorded dim_param rather than the size `--input-shape` now implies; some are
    stale (an exporter's pass changed the graph after recording them). A subgraph's
    output shapes are recorded the same way (traced, for one input size) and are
    forgotten too; the main graph's declared outputs are `forget_declared_outputs`'
    business. Outputs of operators ONNX does not know stay: nothing else gives their
    types. Returns what was forgotten, by tensor name, with the node producing it.
    """
    producers = _inferable_producers(graph)
    forgotten = {v.name: (producers[v.name], v.type) for v in graph.value_info if v.name in producers}
    kept = [v for v in graph.value_info if v.name not in producers]
    del graph.value_info[:]
    graph.value_info.extend(kept)
    for output in graph.output if subgraph else []:
        if output.name in producers and output.type.HasField("tensor_type"):
            recorded = onnx.TypeProto()
            recorded.CopyFrom(output.type)
            forgotten[output.name] = (producers[output.name], recorded)
            output.type.tensor_type.ClearField("shape")
    for node in graph.node:
        for g in subgraphs(node):
            forgotten |= drop_inferable_value_info(g, subgraph=True)
    return forgotten


def warn_contradicted_value_info(
    recorded: dict[str, tuple[onnx.NodeProto, onnx.TypeProto]], graph: onnx.GraphProto,
) -> None:
    """One warning when a forgotten recorded shape contradicts the inferred one.

    onnxruntime runs such models (it re-infers too); the warning says why the model's
    own value_info was not believed. Dynamic recorded dims contradict nothing.
    """
    if not recorded:
        return
    inferred = _written_types(graph)
    contradicted = [
        (node, name, recorded_type, inferred[name]) for name, (node, recorded_type) in recorded.items()
        if name in inferred and recorded_type != inferred[name] and _contradicts(recorded_type, inferred[name])
    ]
    if not contradicted:
        return
    _warn_stale(contradicted, "value_info entries",
                lambda name, got, want: f"the model's value_info gives '{name}' shape {got}, shape inference {want}")


def _warn_stale(stale: list, kind: str, says: Callable[[str, str, str], str]) -> None:
    """One warning for the (node, name, recorded, inferred) declarations in `stale`: what
    `says` of the first, and how many more `kind` there are; the inferred shapes are used."""
    node, name, got, want = stale[0]
    more = f" (and {len(stale) - 1} more {kind})" if len(stale) > 1 else ""
    warnings.warn(CompileWarning(
        node_label(node), f"{says(name, _shape_text(got), _shape_text(want))}; using the inferred shape{more}",
    ), stacklevel=3)


def forget_declared_outputs(graph: onnx.GraphProto) -> dict[str, tuple[onnx.NodeProto, onnx.TypeProto]]:
    """Forget, until `restore_declared_outputs`, the main graph's declared output types that
    shape inference derives itself.

    Exporters write them from what the user passed (a CRNN's output declared `[1, seqlen]`
    where its last Reshape gives `[T, N, classes]`), and inference refuses a declaration
    that contradicts it; onnxruntime warns and runs the model with the shape the graph
    gives. Returns the declarations, by output name, with the node producing each.
    """
    producers = _inferable_producers(graph)
    declared = {}
    for output in graph.output:
        if output.name in producers and output.type.HasField("tensor_type"):
            recorded = onnx.TypeProto()
            recorded.CopyFrom(output.type)
            declared[output.name] = (producers[output.name], recorded)
            output.ClearField("type")
    return declared


def restore_declared_outputs(
    declared: dict[str, tuple[onnx.NodeProto, onnx.TypeProto]], inferred: onnx.GraphProto, graph: onnx.GraphProto,
) -> bool:
    """Put the declarations that agree with the `inferred` graph back into `graph`'s outputs.

    A declaration of another rank or another static dim is stale: it stays forgotten, and
    one warning names the first such output and both shapes. A declaration of another
    element type is an error, as in onnxruntime. Only declarations that tell inference
    something go back (a dim it left unknown); returns whether any did.
    """
    inferred_types = {v.name: v.type for v in inferred.output}
    outputs = {v.name: v for v in graph.output}
    stale, restored = [], False
    for name, (node, declared_type) in declared.items():
        inferred_type = inferred_types.get(name, onnx.TypeProto())
        if not inferred_type.HasField("tensor_type"):
            continue
        got, want = declared_type.tensor_type.elem_type, inferred_type.tensor_type.elem_type
        if got and want and got != want:
            raise CompileError(
                node_label(node),
                f"the model declares graph output '{name}' as {onnx_type_name(got)}, shape inference "
                f"gives {onnx_type_name(want)}; onnxruntime refuses this model too",
            )
        if _contradicts(declared_type, inferred_type):
            stale.append((node, name, declared_type, inferred_type))
        elif _adds_dims(declared_type, inferred_type):
            outputs[name].type.CopyFrom(declared_type)
            restored = True
    if stale:
        _warn_stale(stale, "graph outputs", lambda name, got, want:
                    f"the model declares graph output '{name}' with shape {got}, shape inference gives {want}")
    return restored


def _contradicts(recorded: onnx.TypeProto, inferred: onnx.TypeProto) -> bool:
    """Whether a recorded shape has another rank or another static dim than the inferred one."""
    got, want = _dims(recorded), _dims(inferred)
    if got is None or want is None:
        return False
    return len(got) != len(want) or any(g is not None and w is not None and g != w for g, w in zip(got, want))


def _adds_dims(declared: onnx.TypeProto, inferred: onnx.TypeProto) -> bool:
    """Whether a declaration names a dim (a size or a dim_param) that inference left unknown."""
    if _dims(inferred) is None:
        return _dims(declared) is not None
    pairs = zip(declared.tensor_type.shape.dim, inferred.tensor_type.shape.dim)
    return any(not i.HasField("dim_value") and d.WhichOneof("value") is not None for d, i in pairs)


def _written_types(graph: onnx.GraphProto) -> dict[str, onnx.TypeProto]:
    """The types of the tensors inference gave a type (subgraphs too); not the initializers."""
    types = {v.name: v.type for v in (*graph.value_info, *graph.input, *graph.output)}
    for node in graph.node:
        for g in subgraphs(node):
            types |= _written_types(g)
    return types


def _dims(type_proto: onnx.TypeProto) -> list[int | None] | None:
    """A tensor type's dims (None: dynamic), or None when its rank is unknown."""
    if not type_proto.HasField("tensor_type") or not type_proto.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in type_proto.tensor_type.shape.dim]


def _shape_text(type_proto: onnx.TypeProto) -> str:
    """A tensor type's shape as messages show it: sizes, dim_params by name, `?` otherwise."""
    dims = type_proto.tensor_type.shape.dim
    return "[" + ", ".join(str(d.dim_value) if d.HasField("dim_value") else d.dim_param or "?" for d in dims) + "]"


def _infer_while_folding(model: onnx.ModelProto) -> tuple[onnx.ModelProto, dict[str, onnx.TypeProto], bool]:
    """Types for the folder, and whether inference was strict.

    An If's untaken branch may not fit the input sizes now fixed (it was traced for
    others); inference fails on it until its condition folds and the If goes. Meanwhile
    what inference can infer still drives folding; the last inference is strict.
    """
    try:
        return *infer_types(model), True
    except CompileError:
        if not any(n.op_type == "If" and n.domain in ("", "ai.onnx") for n in model.graph.node):
            raise
        return *infer_types(model, strict=False), False


def _settle(model: onnx.ModelProto, folder: _Folder) -> tuple[onnx.ModelProto, dict[str, onnx.TypeProto]]:
    """Infer and fold `model` until nothing changes; the inferred model and its types."""
    inferred, types, strict = _infer_while_folding(model)
    while folder.run(types):
        inferred, types, strict = _infer_while_folding(model)
    if not strict:
        inferred, types = infer_types(model)
    return inferred, types


def make_static(loaded: LoadedModel, input_shapes: dict[str, list[int]]) -> dict[str, onnx.TypeProto]:
    """Upgrade, apply input shapes, and fold until shapes settle; returns the final types."""
    clear_unknown_dims(loaded.model.graph)
    loaded.quantized_hidden = expand_contrib_ops(loaded.model.graph)
    loaded.model = upgrade_opset(loaded.model)
    qoperator_as_qdq(loaded.model.graph)
    apply_input_shapes(loaded.model, input_shapes)
    recorded = drop_inferable_value_info(loaded.model.graph)
    declared = forget_declared_outputs(loaded.model.graph)
    folder = _Folder(loaded, OPSET)
    inferred, types = _settle(loaded.model, folder)
    if restore_declared_outputs(declared, inferred.graph, loaded.model.graph):
        # A declared size inference could not derive may let more of the graph fold.
        inferred, types = _settle(loaded.model, folder)
    loaded.model = inferred
    warn_contradicted_value_info(recorded, inferred.graph)
    remove_unused_initializers(loaded)
    return types
