"""One wrong thing in a working model: the mutations that keep the rest of it valid.

Where `wire.py` changes bytes, these change meaning through the protobuf API: an
element type, a dim (zero, negative, huge, dynamic), a rank, an initializer's data
length, an edge that closes a cycle, a name used twice, an attribute's value, an opset.
Starting from a zoo model, everything but the one mutation is what exporters write, so
the input gets past the first checks and reaches shape inference, folding and import.
"""

import random

import onnx
from onnx import AttributeProto

from fuzz.onnx_models import ELEMENT_TYPES, HUGE_DIMS

SMALL_DIMS = [0, 1, 2, 3, 5, 7, -1, -3]


def _tensor_types(model: onnx.ModelProto) -> list[onnx.TypeProto.Tensor]:
    graph = model.graph
    return [v.type.tensor_type for v in (*graph.input, *graph.output, *graph.value_info)]


def _set_dims(dims, rng: random.Random) -> None:
    """Change one dim of a repeated field of dims (a shape's or an initializer's)."""
    if not dims:
        return
    i = rng.randrange(len(dims))
    value = rng.choice([*SMALL_DIMS, *HUGE_DIMS])
    if hasattr(dims[i], "dim_value"):
        if rng.random() < 0.2:
            dims[i].dim_param = rng.choice(["batch", "", "N"])
        else:
            dims[i].dim_value = value
    else:
        dims[i] = value


def mutate_model(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """`data` (a serialized zoo model) with one semantic mutation, and what it was."""
    model = onnx.ModelProto.FromString(data)
    graph = model.graph
    kind = rng.choice([
        "element-type", "dim", "rank", "initializer-dims", "initializer-data", "initializer-type",
        "cycle", "duplicate-output", "duplicate-node-name", "duplicate-initializer", "drop-node",
        "attribute", "opset", "input-rename", "graph-output",
    ])
    node = rng.choice(graph.node)
    tensor = rng.choice(graph.initializer) if graph.initializer else None
    if kind == "element-type":
        rng.choice(_tensor_types(model)).elem_type = rng.choice(ELEMENT_TYPES)
    elif kind == "dim":
        _set_dims(rng.choice(_tensor_types(model)).shape.dim, rng)
    elif kind == "rank":
        dims = rng.choice(_tensor_types(model)).shape.dim
        if dims and rng.random() < 0.5:
            del dims[rng.randrange(len(dims))]
        else:
            dims.add().dim_value = rng.choice([1, 2, 3])
    elif kind == "initializer-dims" and tensor is not None:
        if rng.random() < 0.7:
            _set_dims(tensor.dims, rng)
        else:
            tensor.dims.append(rng.choice([1, 2, *HUGE_DIMS]))
    elif kind == "initializer-data" and tensor is not None:
        if tensor.raw_data:
            cut = rng.choice([1, 2, 4, len(tensor.raw_data)])
            tensor.raw_data = tensor.raw_data[:-cut] if rng.random() < 0.5 else tensor.raw_data + bytes(cut)
        else:
            tensor.int64_data.append(7)
            tensor.float_data.append(0.5)
    elif kind == "initializer-type" and tensor is not None:
        tensor.data_type = rng.choice(ELEMENT_TYPES)
    elif kind == "cycle":
        later = graph.node[rng.randrange(list(graph.node).index(node), len(graph.node))]
        if node.input:
            node.input[rng.randrange(len(node.input))] = later.output[0]
        else:
            node.input.append(later.output[0])
    elif kind == "duplicate-output":
        node.output[0] = rng.choice([*[n.output[0] for n in graph.node], *[i.name for i in graph.input]])
    elif kind == "duplicate-node-name":
        node.name = rng.choice(graph.node).name
    elif kind == "duplicate-initializer" and tensor is not None:
        graph.initializer.add().CopyFrom(tensor)
    elif kind == "drop-node":
        graph.node.remove(node)
    elif kind == "attribute" and node.attribute:
        attribute = rng.choice(node.attribute)
        if attribute.type == AttributeProto.INT:
            attribute.i = rng.choice([-1, 0, 2, 1 << 40, -(1 << 63)])
        elif attribute.type == AttributeProto.INTS and attribute.ints:
            attribute.ints[rng.randrange(len(attribute.ints))] = rng.choice([-1, 0, 9, 1 << 40])
        elif attribute.type == AttributeProto.FLOAT:
            attribute.f = rng.choice([float("nan"), float("inf"), -1.0, 0.0])
        else:
            attribute.type = rng.choice([AttributeProto.INT, AttributeProto.FLOATS, AttributeProto.STRING])
    elif kind == "opset":
        model.opset_import[0].version = rng.choice([1, 7, 9, 10, 11, 13, 29])
    elif kind == "input-rename" and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice(["", "ghost", graph.input[0].name])
    elif kind == "graph-output":
        graph.output[0].name = rng.choice(["", "ghost", graph.input[0].name, node.output[0]])
    else:
        kind = "none"
    return model.SerializeToString(), f"{kind} at node '{node.name}'"

