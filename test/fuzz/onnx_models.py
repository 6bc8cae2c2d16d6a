"""Hypothesis strategies for ONNX models that are wrong in the ways real files are wrong.

A model is drawn node by node: operators from a list that covers shape computation
(Reshape, Expand, ConstantOfShape, Range, ...), layers and other domains; each input names
an earlier tensor, a later one (a cycle), nothing, or a name no one defines; outputs and
node names repeat; element types include unsupported and invalid ones; dims are zero,
negative, dynamic or huge (2^40 and 2^62: products that overflow int64); attributes have
wrong kinds and values; initializers have more, less or no data for their dims.
The models are serialized without onnx.checker, as a hostile file would be.
"""

import numpy as np
from hypothesis import strategies as st
from onnx import AttributeProto, TensorProto, helper

ELEMENT_TYPES = [
    *[TensorProto.FLOAT] * 8, *[TensorProto.INT64] * 3, TensorProto.INT32,
    TensorProto.FLOAT16, TensorProto.INT8, TensorProto.UINT8, TensorProto.BOOL, TensorProto.DOUBLE,
    TensorProto.STRING, TensorProto.COMPLEX64, TensorProto.FLOAT8E4M3FN, TensorProto.UNDEFINED, 77,
]
HUGE_DIMS = [1 << 31, 1 << 40, 1 << 62, (1 << 63) - 1]
DIMS = st.one_of(
    st.integers(1, 8), st.integers(1, 8), st.integers(1, 8),
    st.sampled_from([0, -1, -7, "batch", None, *HUGE_DIMS]),
)
OPSETS = st.sampled_from([*[17] * 6, 7, 9, 11, 13, 21, 28, 28, 0, 6, 29, 1000])

OPS = [
    "Relu", "Add", "Mul", "MatMul", "Gemm", "Conv", "MaxPool", "AveragePool", "GlobalAveragePool",
    "Reshape", "Flatten", "Transpose", "Concat", "Split", "Slice", "Gather", "Unsqueeze", "Squeeze",
    "Shape", "Size", "Cast", "Expand", "Tile", "ConstantOfShape", "Range", "Constant", "Pad",
    "Softmax", "Resize", "BatchNormalization", "Clip", "Identity", "Where", "ReduceMean", "TopK",
    "If", "NoSuchOp", "Foo",
]
ARITY = {
    "Relu": (1, 1), "Add": (2, 2), "Mul": (2, 2), "MatMul": (2, 2), "Gemm": (2, 3), "Conv": (2, 3),
    "MaxPool": (1, 1), "AveragePool": (1, 1), "GlobalAveragePool": (1, 1), "Reshape": (2, 2), "Flatten": (1, 1),
    "Transpose": (1, 1), "Concat": (1, 3), "Split": (1, 2), "Slice": (3, 5), "Gather": (2, 2),
    "Unsqueeze": (1, 2), "Squeeze": (1, 2), "Shape": (1, 1), "Size": (1, 1), "Cast": (1, 1), "Expand": (2, 2),
    "Tile": (2, 2), "ConstantOfShape": (1, 1), "Range": (3, 3), "Constant": (0, 0), "Pad": (2, 3),
    "Softmax": (1, 1), "Resize": (1, 4), "BatchNormalization": (5, 5), "Clip": (1, 3), "Identity": (1, 1),
    "Where": (3, 3), "ReduceMean": (1, 2), "TopK": (2, 2), "If": (1, 1),
}
"""How many inputs each operator takes (from, to); others take 1 to 3."""
INT_ATTRIBUTES = {
    "axis": st.integers(-6, 6), "keepdims": st.integers(-1, 2), "group": st.integers(-1, 4),
    "to": st.sampled_from(ELEMENT_TYPES), "transA": st.integers(0, 1), "ceil_mode": st.integers(0, 2),
}
INTS_ATTRIBUTES = ["perm", "kernel_shape", "strides", "pads", "dilations", "axes", "shape"]
ANY_INT = st.one_of(st.integers(-4, 8), st.sampled_from(HUGE_DIMS), st.sampled_from([-(1 << 63), (1 << 63) - 1]))


@st.composite
def value_infos(draw, name: str, typed: bool = True):
    """A tensor's declared type: mostly float of rank 4 with small dims, else anything."""
    if draw(st.integers(0, 3)):
        elem = TensorProto.FLOAT
        dims = draw(st.lists(st.integers(1, 8), min_size=4, max_size=4))
    else:
        elem = draw(st.sampled_from(ELEMENT_TYPES))
        dims = [draw(DIMS) for _ in range(draw(st.integers(0, 5)))]
    if not typed or draw(st.integers(0, 19)) == 0:
        return helper.make_tensor_value_info(name, elem, None)  # no shape
    return helper.make_tensor_value_info(name, elem, dims)


@st.composite
def tensors(draw, name: str):
    """A tensor, one time in four with data that may not fit its dims (more, less, none,
    the wrong field, in a file elsewhere) or with huge dims."""
    if draw(st.integers(0, 3)):
        elem = draw(st.sampled_from([TensorProto.FLOAT, TensorProto.FLOAT, TensorProto.INT64]))
        dims = draw(st.lists(st.integers(1, 4), max_size=4))
        dtype = np.float32 if elem == TensorProto.FLOAT else np.int64
        count = int(np.prod(dims))
        return TensorProto(name=name, data_type=elem, dims=dims, raw_data=np.ones(count, dtype).tobytes())
    elem = draw(st.sampled_from(ELEMENT_TYPES[:-4]))
    dims = draw(st.lists(st.one_of(st.integers(0, 6), st.integers(1, 6), st.sampled_from([-1, *HUGE_DIMS])),
                         max_size=3))
    tensor = TensorProto(name=name, data_type=elem, dims=dims)
    try:
        count = int(np.prod(dims, dtype=object)) if dims else 1
    except OverflowError:
        count = 1
    count = min(max(count, 0), 4096)
    count += draw(st.sampled_from([0, 0, 1, -1, 5]))
    itemsize = {TensorProto.DOUBLE: 8, TensorProto.INT64: 8, TensorProto.FLOAT: 4, TensorProto.INT32: 4,
                TensorProto.FLOAT16: 2}.get(elem, 1)
    match draw(st.sampled_from(["raw"] * 4 + ["typed"] * 2 + ["none", "external"])):
        case "raw":
            tensor.raw_data = bytes(max(count, 0) * itemsize)
        case "typed":
            if elem in (TensorProto.INT64,):
                tensor.int64_data.extend(range(max(count, 0)))
            elif elem in (TensorProto.DOUBLE,):
                tensor.double_data.extend([0.5] * max(count, 0))
            elif elem == TensorProto.FLOAT:
                tensor.float_data.extend([0.5] * max(count, 0))
            else:
                tensor.int32_data.extend([1] * max(count, 0))
        case "external":
            tensor.data_location = TensorProto.EXTERNAL
            location = draw(st.sampled_from(["weights.bin", "/etc/passwd", "../weights.bin", "", "link.bin",
                                             "sub/../weights.bin", "missing.bin"]))
            tensor.external_data.add(key="location", value=location)
            for key in draw(st.lists(st.sampled_from(["offset", "length"]), unique=True)):
                tensor.external_data.add(key=key, value=str(draw(st.sampled_from([0, 4, -4, 1 << 62, 99999]))))
    return tensor


@st.composite
def attributes(draw, op: str):
    found = []
    names = draw(st.lists(st.sampled_from([*INT_ATTRIBUTES, *INTS_ATTRIBUTES, "value", "mode", "then_branch"]),
                          max_size=draw(st.sampled_from([0, 0, 1, 2])), unique=True))
    for name in names:
        if name in INT_ATTRIBUTES:
            found.append(helper.make_attribute(name, draw(INT_ATTRIBUTES[name])))
        elif name in INTS_ATTRIBUTES:
            ints = draw(st.lists(ANY_INT, max_size=5))
            found.append(helper.make_attribute(name, ints, attr_type=AttributeProto.INTS))
        elif name == "value":
            found.append(helper.make_attribute(name, draw(tensors("value"))))
        elif name == "mode":
            found.append(helper.make_attribute(name, draw(st.sampled_from(["constant", "linear", "", "nope"]))))
        else:  # a graph, on any op: the wrong kind of attribute
            body = helper.make_graph([helper.make_node("Relu", ["x"], ["b"])], "body", [],
                                     [helper.make_tensor_value_info("b", TensorProto.FLOAT, [1])])
            found.append(helper.make_attribute(name, body))
    if draw(st.integers(0, 19)) == 0:  # an attribute of the wrong kind under a known name
        found.append(AttributeProto(name="axis", type=AttributeProto.FLOATS, floats=[1.5]))
    return found


DEFECTS = ["cycle", "duplicate-output", "duplicate-node-name", "undefined-input", "skipped-input",
           "graph-output-missing", "input-shadows-initializer"]
"""Graph defects; a drawn model has one of them at most, so that the others let it get far."""


@st.composite
def models(draw):
    """A serialized ModelProto, and a short description of it for failure messages."""
    defect = draw(st.sampled_from([None] * 7 + DEFECTS))
    inputs = [draw(value_infos(f"in{i}")) for i in range(draw(st.integers(1, 2)))]
    initializers = [draw(tensors(f"w{i}")) for i in range(draw(st.integers(0, 2)))]
    names = [v.name for v in inputs] + [t.name for t in initializers]
    if defect == "input-shadows-initializer" and initializers:
        inputs.append(draw(value_infos(initializers[0].name)))
    node_count = draw(st.integers(1, 6))
    nodes = []
    for i in range(node_count):
        op = draw(st.sampled_from(OPS))
        arity = draw(st.integers(*ARITY.get(op, (1, 3))))
        node = helper.make_node(op, [draw(st.sampled_from(names)) for _ in range(arity)], [f"t{i}"], name=f"n{i}",
                                domain="com.acme" if op == "Foo" else "")
        node.attribute.extend(draw(attributes(op)))
        nodes.append(node)
        names.append(f"t{i}")
    victim = draw(st.sampled_from(nodes))
    if defect == "cycle":
        victim.input.append(f"t{draw(st.integers(nodes.index(victim), node_count - 1))}")
    elif defect == "duplicate-output":
        victim.output[0] = draw(st.sampled_from(names))
    elif defect == "duplicate-node-name":
        victim.name = nodes[0].name
    elif defect == "undefined-input":
        victim.input.append("ghost")
    elif defect == "skipped-input":
        victim.input.insert(draw(st.integers(0, len(victim.input))), "")
    outputs = [draw(value_infos(nodes[-1].output[0], typed=draw(st.booleans())))]
    if draw(st.booleans()):
        outputs.append(draw(value_infos(draw(st.sampled_from(names)), typed=False)))
    if defect == "graph-output-missing":
        outputs.append(draw(value_infos("ghost")))
    value_info = [draw(value_infos(n.output[0])) for n in nodes if draw(st.integers(0, 9)) == 0]
    graph = helper.make_graph(nodes, draw(st.sampled_from(["g", "", "7up", "g\u00e9"])), inputs, outputs,
                              initializers, value_info=value_info)
    opsets = [helper.make_opsetid("", draw(OPSETS)), helper.make_opsetid("com.acme", 1)]
    model = helper.make_model(graph, ir_version=draw(st.sampled_from([8, 8, 8, 3, 10, 0])), opset_imports=opsets)
    return model.SerializeToString(), f"{defect}: {[n.op_type for n in nodes]}"
