"""ONNX model -> `graph` dialect.

The model is read (weights memory-mapped), checked, upgraded to the dialect's opset and
made static (`static_shapes`); then each initializer becomes a `graph.constant`, each node
the `graph` op of its operator (or `graph.custom`), and the graph a `func.func`.
"""

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import AttributeProto
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from mrvl.frontend.model_file import (
    LoadedModel,
    from_proto,
    load_bytes,
    load_model,
    small_initializer_value,
)
from mrvl.frontend.onnx_graph import check_names, name_nodes, node_label, sort_topologically
from mrvl.frontend.static_shapes import make_static
from mrvl_dialect.element_types import BY_ONNX, onnx_type_name
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp, CustomOp, YieldOp
from mrvl_dialect.graph_base import OPERAND_SEGMENTS, RESULT_SEGMENTS, OnnxOp, f32_attr
from mrvl_dialect.graph_ops_gen import ONNX_OPS
from mrvl_dialect.limits import check_tensor_size
from mrvl_dialect.mrvl import QUANTIZED_HIDDEN_ATTR
from mrvl_dialect.locations import node_location, tensor_name_hint
from mrvl_dialect.shared_attributes import i64_array, i64_attr, tensor_type
from mrvl_dialect.weights import WeightStore

ARG_NAME = "graph.name"
"""Argument and result attribute holding a graph input's or output's ONNX name."""

_OPS: dict[str, type[OnnxOp]] = {op.onnx_op_type(): op for op in ONNX_OPS}


def import_onnx(
    source: str | Path | bytes | onnx.ModelProto,
    input_shapes: dict[str, list[int]] | None = None,
    *,
    text: bool | None = None,
) -> ModuleOp:
    """Import an ONNX model as a `graph` module.

    `source` is a `.onnx`/`.onnxtxt` path, a model's bytes or a ModelProto (not modified).
    `input_shapes` fixes the dims of named graph inputs; `text` says whether the file or
    bytes hold ONNX text syntax (default: a path's suffix decides; bytes are binary).
    Raises CompileError on bad input.
    """
    if isinstance(source, onnx.ModelProto):
        model = onnx.ModelProto()
        model.CopyFrom(source)
        loaded = from_proto(model)
    elif isinstance(source, bytes):
        loaded = load_bytes(source, text=bool(text))
    else:
        loaded = load_model(source, text=text)
    graph = loaded.model.graph
    check_names(graph)
    name_nodes(graph)
    sort_topologically(graph)
    types = make_static(loaded, input_shapes or {})
    return _Importer(loaded, types).module()


@dataclass
class _Scope:
    """Tensor names visible in one graph (its values shadow the enclosing graph's)."""

    values: dict[str, SSAValue] = field(default_factory=dict)
    parent: "_Scope | None" = None
    producers: dict[str, onnx.NodeProto] = field(default_factory=dict)
    allow_dynamic: bool = False
    """Subgraph bodies may keep dynamic dims: a loop's carried shapes can change."""

    def __getitem__(self, name: str) -> SSAValue:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.parent
        raise KeyError(name)


class _Importer:
    def __init__(self, loaded: LoadedModel, types: dict[str, onnx.TypeProto]):
        self.loaded = loaded
        self.types = types
        self.store = WeightStore()
        self.verified: set[tuple] = set()
        """The signatures of the ops without regions verified so far (`verify`)."""
        self.verified_objects: dict[tuple, tuple] = {}
        """The same by the ids of their types and properties, each with its signature, which
        keeps those objects alive (so that their ids are not reused)."""

    def module(self) -> ModuleOp:
        graph = self.loaded.model.graph
        initializers = {t.name for t in graph.initializer}
        inputs = [i for i in graph.input if i.name not in initializers]
        scope = _Scope(producers={o: n for n in graph.node for o in n.output})
        arg_types = [self.tensor_type(i.name, scope) for i in inputs]
        block = Block(arg_types=arg_types)
        for arg, i in zip(block.args, inputs):
            arg.name_hint = tensor_name_hint(i.name)
            scope.values[i.name] = arg
        self.add_graph_body(graph, block, scope)
        outputs = [scope[o.name] for o in graph.output]
        block.add_op(func.ReturnOp(*outputs))
        function = func.FuncOp(
            _symbol(graph.name),
            FunctionType.from_lists(arg_types, [v.type for v in outputs]),
            Region(block),
            arg_attrs=_name_attrs(i.name for i in inputs),
            res_attrs=_name_attrs(o.name for o in graph.output),
        )
        module = ModuleOp([function])
        self.store.attach(module)
        return module

    def add_graph_body(self, graph: onnx.GraphProto, block: Block, scope: _Scope) -> None:
        for tensor in graph.initializer:
            value = self.loaded.weights.get(tensor.name)
            if value is None:
                value = small_initializer_value(tensor)
            op = ConstantOp(self.tensor_attr(tensor.name, tensor.data_type, value))
            op.location = node_location(tensor.name)
            op.output.name_hint = tensor_name_hint(tensor.name)
            block.add_op(op)
            scope.values[tensor.name] = op.output
        for node in graph.node:
            op = self.node_op(node, scope)
            op.location = node_location(node.name)
            block.add_op(op)
            names = [name for name in node.output if name]
            for name, result in zip(names, op.results, strict=True):
                result.name_hint = tensor_name_hint(name)
                scope.values[name] = result

    def tensor_type(self, name: str, scope: _Scope) -> TensorType:
        producer = scope.producers.get(name)
        where = node_label(producer) if producer else f"graph input '{name}'"
        type_proto = self.types.get(name)
        if producer is None and (type_proto is None or not type_proto.WhichOneof("value")):
            raise CompileError(where, "declares no type")
        if type_proto is None or not type_proto.HasField("tensor_type"):
            if type_proto is not None and type_proto.WhichOneof("value"):
                raise CompileError(where, f"'{name}' is a {type_proto.WhichOneof('value')}; only tensors are supported")
            if _unruled(producer):
                raise CompileError(where, _no_shape_rule(producer, f"declare the type and static shape of '{name}'"))
            raise CompileError(
                where,
                f"the type of '{name}' is unknown: ONNX shape inference cannot see through "
                "this operator; declare it in the model's value_info",
            )
        tensor = type_proto.tensor_type
        element = BY_ONNX.get(tensor.elem_type)
        if element is None:
            raise CompileError(where, f"'{name}' has element type {onnx_type_name(tensor.elem_type)}, which is not supported")
        if not tensor.HasField("shape"):
            if _unruled(producer):
                raise CompileError(where, _no_shape_rule(producer, f"'{name}' is declared without a shape: declare it"))
            raise CompileError(where, f"the rank of '{name}' is unknown after shape inference")
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
        if any(d < 0 and tensor.shape.dim[i].HasField("dim_value") for i, d in enumerate(dims)):
            raise CompileError(where, f"'{name}' has a negative dim: {dims}")
        if -1 in dims and not scope.allow_dynamic:
            if _unruled(producer):
                declared = ", ".join(str(d.dim_value) if d.HasField("dim_value") else d.dim_param or "?"
                                     for d in tensor.shape.dim)
                request = f"'{name}' is declared [{declared}]: declare its static shape"
                raise CompileError(where, _no_shape_rule(producer, request))
            raise CompileError(where, self.dynamic_dim_message(name, tensor, producer is None))
        check_tensor_size(where, name, dims, element)
        return tensor_type(element.xdsl, dims)

    def dynamic_dim_message(self, name: str, tensor: onnx.TypeProto.Tensor, is_input: bool) -> str:
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
        i = dims.index(-1)
        param = tensor.shape.dim[i].dim_param
        dynamic = f"dim {i} of '{name}'" + (f" ('{param}')" if param and not param.startswith("unk__") else "")
        if is_input:
            suggestion = "x".join(str(d if d > 0 else 1) for d in dims)
            return f"{dynamic} is dynamic; fix it with --input-shape {name}={suggestion}"
        if all(d.HasField("dim_value") for i in self.loaded.model.graph.input for d in i.type.tensor_type.shape.dim):
            return f"{dynamic} is dynamic: it depends on the values of tensors, not only on their shapes"
        return f"{dynamic} is dynamic; fix the model's input dims with --input-shape"

    def tensor_attr(self, name: str, data_type: int, array: np.ndarray) -> DenseIntOrFPElementsAttr | DenseResourceAttr:
        element = BY_ONNX.get(data_type)
        if element is None or element.numpy is None:
            raise CompileError(f"tensor '{name}'", f"element type {onnx_type_name(data_type)} is not supported")
        return self.store.constant_attr(name, array, tensor_type(element.xdsl, array.shape))

    def attribute(self, a: AttributeProto, node: onnx.NodeProto) -> Attribute:
        match a.type:
            case AttributeProto.INT:
                return i64_attr(a.i)
            case AttributeProto.FLOAT:
                return f32_attr(a.f)
            case AttributeProto.STRING:
                return StringAttr(a.s.decode("utf-8", errors="replace"))
            case AttributeProto.INTS:
                return i64_array(a.ints)
            case AttributeProto.FLOATS:
                return DenseArrayBase.from_list(f32, list(a.floats))
            case AttributeProto.STRINGS:
                return ArrayAttr([StringAttr(s.decode("utf-8", errors="replace")) for s in a.strings])
            case AttributeProto.TENSOR:
                return self.tensor_attr(f"{node.name}.{a.name}", a.t.data_type, small_initializer_value(a.t))
            case AttributeProto.TENSORS:
                return ArrayAttr([
                    self.tensor_attr(f"{node.name}.{a.name}", t.data_type, small_initializer_value(t))
                    for t in a.tensors
                ])
            case AttributeProto.TYPE_PROTO if a.tp.HasField("tensor_type"):
                element = BY_ONNX.get(a.tp.tensor_type.elem_type)
                if element is not None:
                    dims = [d.dim_value if d.HasField("dim_value") else -1 for d in a.tp.tensor_type.shape.dim]
                    return TensorType(element.xdsl, dims)
        kind = AttributeProto.AttributeType.Name(a.type)
        raise CompileError(node_label(node), f"attribute '{a.name}' of kind {kind} is not supported")

    def node_op(self, node: onnx.NodeProto, scope: _Scope) -> Operation:
        if node.domain in ("", "ai.onnx") and node.op_type == "Constant":
            return self.constant_node(node)
        if node.domain not in ("", "ai.onnx") or node.op_type not in _OPS:
            return self.custom_op(node, scope)
        cls = _OPS[node.op_type]
        definition = cls.get_irdl_definition()
        operand_sizes, operands = _fill(cls.operand_kinds(), list(node.input), node, "inputs")
        result_sizes, results = _fill(cls.result_kinds(), list(node.output), node, "outputs")
        properties: dict[str, Attribute] = {}
        regions: dict[str, Region] = {}
        region_names = {name for name, _ in definition.regions}
        for a in node.attribute:
            if a.name in region_names and a.type == AttributeProto.GRAPH:
                regions[a.name] = self.subgraph_region(a.g, scope)
            elif a.name in definition.properties:
                properties[a.name] = self.attribute(a, node)
            else:
                raise CompileError(node_label(node), f"{node.op_type} has no attribute '{a.name}'")
        if OPERAND_SEGMENTS in definition.properties:
            properties[OPERAND_SEGMENTS] = DenseArrayBase.from_list(i32, operand_sizes)
        if RESULT_SEGMENTS in definition.properties:
            properties[RESULT_SEGMENTS] = DenseArrayBase.from_list(i32, result_sizes)
        op = cls.create(
            operands=[scope[name] for name in operands],
            result_types=[self.tensor_type(name, scope) for name in results],
            properties=properties,
            regions=[regions.get(name, Region()) for name, _ in definition.regions],
        )
        if not self.loaded.quantized_hidden.isdisjoint(node.output):
            op.attributes[QUANTIZED_HIDDEN_ATTR] = UnitAttr()
        self.verify(op, node)
        return op

    def verify(self, op: OnnxOp, node: onnx.NodeProto) -> None:
        """Check `op` against its definition, so that a model's wrong types are one error
        line naming `node`. Outside a block, an ONNX op without regions passes or fails by
        its class, operand and result types and properties alone (the ops have no verifier
        of their own), and a model repeats a few such signatures thousands of times: each
        is verified once."""
        signature = identity = None
        if not op.regions:
            # Types and most properties are shared instances (`shared_attributes`): a
            # signature of the same objects is found by their ids, without hashing them.
            types = (*(o.type for o in op.operands), None, *(r.type for r in op.results))
            identity = (type(op), *map(id, types), *op.properties.keys(), *map(id, op.properties.values()))
            if identity in self.verified_objects:
                return
            signature = (type(op), *types, *op.properties.items())
            if signature in self.verified:
                self.verified_objects[identity] = signature
                return
        try:
            op.verify()
        except VerifyException as e:
            raise CompileError(node_label(node), " ".join(str(e).split())) from None
        if signature is not None:
            self.verified.add(signature)
            self.verified_objects[identity] = signature

    def constant_node(self, node: onnx.NodeProto) -> ConstantOp:
        """A `Constant` node the folder did not reach (as in a subgraph)."""
        from onnx.reference import ReferenceEvaluator  # ~0.1 s to import: only when a model has one

        try:
            value = np.asarray(ReferenceEvaluator(node).run(None, {})[0])
        except Exception as e:  # the evaluator rejects malformed attributes in many ways
            raise CompileError(node_label(node), f"cannot read the constant: {e}") from None
        data_type = onnx.helper.np_dtype_to_tensor_dtype(value.dtype)
        return ConstantOp(self.tensor_attr(node.output[0], data_type, value))

    def custom_op(self, node: onnx.NodeProto, scope: _Scope) -> CustomOp:
        op = CustomOp(
            node.op_type,
            node.domain,
            [scope[name] for name in node.input if name],
            [self.tensor_type(name, scope) for name in node.output if name],
            {a.name: self.attribute(a, node) for a in node.attribute},
        )
        if "" in node.input:
            # Keep which ONNX input each operand was, as optional inputs may be skipped.
            positions = [i for i, name in enumerate(node.input) if name]
            op.properties["input_positions"] = DenseArrayBase.from_list(i64, positions)
        return op

    def subgraph_region(self, graph: onnx.GraphProto, outer: _Scope) -> Region:
        types = {v.name: v.type for v in (*graph.input, *graph.output, *graph.value_info)}
        saved, self.types = self.types, {**self.types, **types}
        try:
            scope = _Scope(
                parent=outer,
                producers={o: n for n in graph.node for o in n.output},
                allow_dynamic=True,
            )
            arg_types = [self.tensor_type(i.name, scope) for i in graph.input]
            block = Block(arg_types=arg_types)
            for arg, i in zip(block.args, graph.input):
                arg.name_hint = tensor_name_hint(i.name)
                scope.values[i.name] = arg
            self.add_graph_body(graph, block, scope)
            block.add_op(YieldOp.create(operands=[scope[o.name] for o in graph.output]))
        finally:
            self.types = saved
        return Region(block)


def _unruled(producer: onnx.NodeProto | None) -> bool:
    """Whether `producer` is an op without a shape rule: what the model declares is all
    there is for its outputs (asked only on the way to an error)."""
    if producer is None:
        return False
    return not onnx.defs.has(producer.op_type, "" if producer.domain == "ai.onnx" else producer.domain)


def _no_shape_rule(node: onnx.NodeProto, request: str) -> str:
    """Why an op's output type is not known, and what to `request` of the model."""
    if node.domain in ("", "ai.onnx"):
        domain = "ONNX's default domain has no such operator"
    else:
        domain = f"domain {node.domain}"
    return f"no shape inference rule for this op ({domain}); {request} in the model's value_info"


def _fill(kinds: list[str], names: list[str], node: onnx.NodeProto, what: str) -> tuple[list[int], list[str]]:
    """Segment sizes and the present names when ONNX input/output `names` fill `kinds`."""
    sizes, present, i = [], [], 0
    for kind in kinds:
        if kind == "variadic":
            taken = [name for name in names[i:] if name]
            i = len(names)
        else:
            name = names[i] if i < len(names) else ""
            i += 1
            if kind == "single" and not name:
                raise CompileError(node_label(node), f"required {what[:-1]} {i - 1} is missing")
            taken = [name] if name else []
        sizes.append(len(taken))
        present.extend(taken)
    if i < len(names) and any(names[i:]):
        raise CompileError(node_label(node), f"has {len(names)} {what}; {node.op_type} takes at most {i}")
    return sizes, present


def _symbol(name: str) -> str:
    """The function's symbol: the graph name made an identifier, or `main`."""
    symbol = "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_")
    if not symbol:
        return "main"
    return f"graph_{symbol}" if symbol[0].isdigit() else symbol


def _name_attrs(names) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({ARG_NAME: StringAttr(n)}) for n in names])

