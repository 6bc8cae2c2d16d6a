"""Host C kernels of LSTM, GRU and RNN (cpu.recurrent): every direction and layout, the
optional inputs (B, sequence_lens, initial_h, initial_c, P) present or absent, each output
read or not, every activation with its alpha and beta, clip, input_forget and
linear_before_reset. One single-node model each, compared with onnxruntime; every test's
models are built side by side in one (test_c_backend.merged: each kernel compiled once) with
gcc -Werror; onnxruntime has no kernel for layout 1 (batch first), so such a model is
compared with onnxruntime on the same layer in layout 0, its inputs and outputs transposed."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper
from test_c_backend import GCC, assert_cases_close, c_workdir, compile_model, reference, run_together  # noqa: F401

pytestmark = [pytest.mark.skipif(GCC is None, reason="needs gcc")]

MRVL_ERR_SEQUENCE_LENS = -8
GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
OUTPUTS = {"LSTM": ("Y", "Y_h", "Y_c"), "GRU": ("Y", "Y_h"), "RNN": ("Y", "Y_h")}
DIRECTIONS = ("forward", "reverse", "bidirectional")


def recurrent_case(op_type: str, *, seq: int = 5, batch: int = 3, size: int = 4, hidden: int = 6,
                   direction: str = "forward", layout: int = 0, optional: tuple[str, ...] = ("B",),
                   outputs: tuple[str, ...] | None = None, lens: list[int] | None = None, seed: int = 0,
                   **attrs) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node model of `op_type` with X as its graph input and weights as initializers:
    the `optional` inputs (B, sequence_lens, initial_h, initial_c, P) present, the others
    absent, and the `outputs` (default all) graph outputs, the others unnamed."""
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    gates = GATES[op_type] * hidden

    def values(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.5).astype(np.float32)

    x = values(seq, batch, size)
    initializers = {"W": values(dirs, gates, size), "R": values(dirs, gates, hidden), "B": values(dirs, 2 * gates),
                    "sequence_lens": np.array(lens if lens is not None else [seq] * batch, np.int32),
                    "initial_h": values(dirs, batch, hidden), "initial_c": values(dirs, batch, hidden),
                    "P": values(dirs, 3 * hidden)}
    if layout:
        x = x.transpose(1, 0, 2).copy()
        for name in ("initial_h", "initial_c"):
            initializers[name] = initializers[name].transpose(1, 0, 2).copy()
    names = ["X", "W", "R", "B", "sequence_lens", "initial_h"] + (["initial_c", "P"] if op_type == "LSTM" else [])
    inputs = [n if n in ("X", "W", "R") or n in optional else "" for n in names]
    while not inputs[-1]:
        inputs.pop()
    outputs = OUTPUTS[op_type] if outputs is None else outputs
    node = helper.make_node(op_type, inputs, [n if n in outputs else "" for n in OUTPUTS[op_type]],
                            name=f"the_{op_type.lower()}", hidden_size=hidden, direction=direction, layout=layout,
                            **attrs)
    graph = helper.make_graph(
        [node], op_type.lower(), [helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, None) for n in outputs],
        [onnx.numpy_helper.from_array(a, n) for n, a in initializers.items() if n in inputs and n != "X"])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)], ir_version=10)
    return onnx.shape_inference.infer_shapes(model, strict_mode=True), {"X": x}


def onnxruntime_outputs(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime's outputs of the recurrent node of `model`; of a layout-1 node through the
    same node in layout 0 (X and the initial states transposed there, the outputs back)."""
    node = model.graph.node[0]
    layout = next((a.i for a in node.attribute if a.name == "layout"), 0)
    if not layout:
        return [np.asarray(e) for e in reference(model, inputs)]
    model = onnx.ModelProto.FromString(model.SerializeToString())
    node = model.graph.node[0]
    next(a for a in node.attribute if a.name == "layout").i = 0
    for tensor in model.graph.initializer:
        if tensor.name in ("initial_h", "initial_c"):
            tensor.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(tensor).transpose(1, 0, 2).copy(),
                                                         tensor.name))
    del model.graph.value_info[:]
    x = inputs["X"].transpose(1, 0, 2).copy()
    model.graph.input[0].CopyFrom(helper.make_tensor_value_info("X", onnx.TensorProto.FLOAT, x.shape))
    outputs = reference(model, {"X": x})
    names = [o.name for o in model.graph.output]
    return [np.asarray(e).transpose(2, 0, 1, 3) if node.output[0] == n else np.asarray(e).transpose(1, 0, 2)
            for n, e in zip(names, outputs)]


def mixed_cases() -> dict[str, tuple[onnx.ModelProto, dict[str, np.ndarray]]]:
    """Recurrent layers that between them take every kernel path, for the sanitizer and
    cross-compiled runs: both directions with every input and sequence_lens, batch-first
    GRUs before and after reset with Y unread, a clipped reverse RNN, and an LSTM wider than
    one GEMM block."""
    every = ("B", "sequence_lens", "initial_h", "initial_c", "P")
    return {
        "lstm_all": recurrent_case("LSTM", direction="bidirectional", optional=every, lens=[5, 2, 0]),
        "gru_reset": recurrent_case("GRU", layout=1, optional=("B", "initial_h"), outputs=("Y_h",),
                                    linear_before_reset=1, direction="bidirectional"),
        "gru_lens": recurrent_case("GRU", direction="reverse", optional=every[:3], lens=[3, 5, 1]),
        "rnn_clip": recurrent_case("RNN", direction="reverse", optional=("B",), clip=0.5,
                                   activations=["Softplus"]),
        "lstm_wide": recurrent_case("LSTM", seq=3, batch=7, size=260, hidden=70, optional=("B", "P"),
                                    input_forget=1),
    }


Cases = dict[str, tuple[onnx.ModelProto, dict[str, np.ndarray]]]
GROUPS: dict[str, Cases] = {}
"""Each test's cases (name: model and inputs), by test."""


@pytest.fixture(scope="module")
def built(c_workdir: Path) -> dict[str, np.ndarray]:
    """Every test's cases in one build, run once: the outputs by `merged` name (a case's name
    prefixed by its group's)."""
    cases = {f"{group}_{name}": case for group, group_cases in GROUPS.items() for name, case in group_cases.items()}
    return run_together({n: m for n, (m, _) in cases.items()}, c_workdir, {n: i for n, (_, i) in cases.items()})


def check(built: dict[str, np.ndarray], group: str) -> None:
    """The cases of GROUPS[group], each against onnxruntime."""
    cases = {f"{group}_{name}": case for name, case in GROUPS[group].items()}
    assert_cases_close({n: m for n, (m, _) in cases.items()}, {n: i for n, (_, i) in cases.items()}, built,
                       references=onnxruntime_outputs)


_EVERY = ("B", "sequence_lens", "initial_h", "initial_c", "P")
GROUPS["layouts"] = {f"{op_type}_{direction}_{layout}": recurrent_case(op_type, direction=direction, layout=layout,
                                                                       optional=_EVERY)
                     for op_type in GATES for direction in DIRECTIONS for layout in (0, 1)}


def test_directions_and_layouts(built) -> None:
    """Every input given, every output read."""
    check(built, "layouts")


OPTIONAL_SETS = [(), ("B",), ("initial_h",), ("B", "sequence_lens"), ("initial_c",), ("P",), ("initial_h", "P")]
LSTM_ONLY = {"initial_c", "P", "Y_c"}


def per_op_type(subsets: list[tuple[str, ...]]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(case name, op type, subset) for each op type and each subset it has (initial_c, P and
    Y_c are LSTM's only)."""
    return [(f"{op_type}_{'_'.join(subset) or 'none'}", op_type, subset)
            for op_type in GATES for subset in subsets if op_type == "LSTM" or not LSTM_ONLY & set(subset)]


GROUPS["optional"] = {name: recurrent_case(op_type, direction="bidirectional", optional=optional)
                      for name, op_type, optional in per_op_type(OPTIONAL_SETS)}


def test_optional_inputs(built) -> None:
    """Each optional input absent or given."""
    check(built, "optional")


GROUPS["unread"] = {name: recurrent_case(op_type, outputs=outputs, optional=("B", "initial_h"), layout=1)
                    for name, op_type, outputs in per_op_type([("Y",), ("Y_h",), ("Y_c",), ("Y", "Y_c"), ("Y_h", "Y_c")])}


def test_unread_outputs(built) -> None:
    """Only some outputs named: the kernel writes those alone."""
    check(built, "unread")


ACTIVATIONS = ["Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
               "Elu", "Softsign", "Softplus"]


def _activations_case(op_type: str, activation: str, given: bool) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    count = {"LSTM": 3, "GRU": 2, "RNN": 1}[op_type] * 2
    names = [activation if i % 2 else "Tanh" for i in range(count)] if op_type != "RNN" else ["Tanh", activation]
    names[0] = activation
    attrs = dict(activation_alpha=[0.7, 0.3, 1.5, 0.2, 0.9, 0.4], activation_beta=[0.1, 0.6, 0.3, 0.8, 0.2, 0.5]) \
        if given else {}
    return recurrent_case(op_type, direction="bidirectional", activations=names, **attrs)


GROUPS["activations"] = {
    f"{op_type}_{activation}_{'given' if given else 'defaults'}": _activations_case(op_type, activation, given)
    for op_type in GATES for activation in ACTIVATIONS for given in (False, True)}


def test_activations(built) -> None:
    """Each activation in every slot of both directions (f, g, h of an LSTM): with its
    default alpha and beta, or with activation_alpha and activation_beta, which the
    activations that take them consume in order."""
    check(built, "activations")


def _clip_case(op_type: str) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    model, inputs = recurrent_case(op_type, direction="bidirectional", optional=("B", "initial_h", "initial_c"), clip=0.4)
    return model, {"X": inputs["X"] * 8}


GROUPS["clip"] = {op_type: _clip_case(op_type) for op_type in GATES}


def test_clip(built) -> None:
    """Every activation's input clipped to [-clip, clip]; the values reach well beyond it."""
    check(built, "clip")


GROUPS["input_forget"] = {direction: recurrent_case("LSTM", direction=direction, optional=("B", "initial_c", "P"),
                                                    input_forget=1) for direction in ("forward", "bidirectional")}


def test_lstm_input_forget(built) -> None:
    """The forget gate is 1 - the input gate; peepholes given."""
    check(built, "input_forget")


GROUPS["linear_before_reset"] = {
    f"{direction}_{'_'.join(optional) or 'none'}": recurrent_case("GRU", direction=direction, optional=optional,
                                                                  linear_before_reset=1)
    for direction in DIRECTIONS for optional in [(), ("B",), ("B", "initial_h")]}


def test_gru_linear_before_reset(built) -> None:
    """r multiplies H·Rh^T + Rbh (and the bias absent too)."""
    check(built, "linear_before_reset")


GROUPS["sequence_lens"] = {
    f"{op_type}_{direction}_{layout}": recurrent_case(op_type, batch=4, direction=direction, layout=layout,
                                                      optional=("B", "sequence_lens", "initial_h", "initial_c"),
                                                      lens=[5, 2, 4, 0])
    for op_type in GATES for direction in DIRECTIONS for layout in (0, 1)}


def test_sequence_lens(built) -> None:
    """Samples of 5, 2 and 4 steps of 5, and one of none: Y is zero past a sample's end, Y_h
    its state at its last step (zero without steps), and the reverse direction starts there."""
    check(built, "sequence_lens")


def test_sequence_lens_out_of_range(c_workdir: Path) -> None:
    """A length beyond the sequence is an error code from the run, not a read past X."""
    model, inputs = recurrent_case("GRU", optional=("sequence_lens",), lens=[5, 6, 1])
    rc, _ = compile_model(model, c_workdir).run(inputs)
    assert rc == MRVL_ERR_SEQUENCE_LENS


GROUPS["wide"] = {"lstm": recurrent_case("LSTM", seq=7, batch=5, size=300, hidden=70, direction="bidirectional",
                                         optional=("B", "initial_h", "initial_c", "P"))}


def test_long_sequence_wide_layer(built) -> None:
    """Sizes past one GEMM block (KC = 256 deep, NC = 256 wide) and an odd hidden size."""
    check(built, "wide")
