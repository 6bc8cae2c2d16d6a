"""Quantized versions of zoo models, made with onnxruntime's tools: `quantize_static` in QDQ
format, as Marvell's tools make int8 models for MLIP (`quant_pre_process`, then a seeded
calibration reader), or in QOperator format; or `quantize_dynamic` (`SEQUENCE_MODELS`: a
transformer encoder block, a GRU, an LSTM).

    python scripts/quantize_zoo.py OUTDIR [NAME ...] [--scheme int8|int8-per-channel|uint8|uint8-per-channel]
                                   [--format qdq|qoperator|dynamic]

Schemes (`SCHEMES`): int8 is symmetric int8 activations and weights (MLIP's setting),
uint8 asymmetric uint8 activations and weights; `-per-channel` quantizes Conv/Gemm weights
per output channel. Dynamic input dims are fixed first (the zoo's `INPUT_SHAPES`), so the QDQ model
compiles without `--input-shape`. Tests import `quantize_model`/`quantize_zoo` and write
into temporary folders: nothing generated is committed.
"""

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnx.version_converter
from onnx import numpy_helper

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "examples") not in sys.path:
    sys.path.append(str(ROOT / "examples"))

MIN_OPSET = 13
"""Per-axis QuantizeLinear/DequantizeLinear (per-channel weights) came with opset 13; an
older model (CNTK's mnist is opset 8) is converted first, as the quantizer does not."""
MODELS = ("mnist", "resnet_small", "mobilenet_small", "mobilenet_v2", "squeezenet", "yolov3_tiny")
"""The zoo's convolutional models, the ones MLIP runs in int8."""
SEQUENCE_MODELS = ("transformer_block", "gru_kws", "lstm_speaker")
"""A transformer encoder block, a GRU and an LSTM: what `quantize_dynamic` is for."""


@dataclass(frozen=True)
class Scheme:
    """One set of `quantize_static` settings."""

    dtype: str
    """int8 or uint8, for activations and weights alike."""
    per_channel: bool = False

    @property
    def symmetric(self) -> bool:
        # int8 symmetric is MLIP's setting; uint8 is onnxruntime's default asymmetric one.
        return self.dtype == "int8"


SCHEMES = {
    "int8": Scheme("int8"),
    "int8-per-channel": Scheme("int8", per_channel=True),
    "uint8": Scheme("uint8"),
    "uint8-per-channel": Scheme("uint8", per_channel=True),
}


def fix_input_shapes(model: onnx.ModelProto, shapes: dict[str, list[int]]) -> onnx.ModelProto:
    """`model` with the named graph inputs' dims set to `shapes` (a copy)."""
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    for value in fixed.graph.input:
        if value.name in shapes:
            dims = value.type.tensor_type.shape.dim
            for dim, size in zip(dims, shapes[value.name], strict=True):
                dim.Clear()
                dim.dim_value = size
    return fixed


def input_specs(model: onnx.ModelProto) -> dict[str, tuple[list[int], np.dtype]]:
    """Each graph input (not an initializer) with its static shape and numpy dtype."""
    initializers = {t.name for t in model.graph.initializer}
    specs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dims = [d.dim_value for d in tensor.shape.dim]
        if any(d <= 0 for d in dims):
            raise ValueError(f"input '{value.name}' has a dynamic dim; give its shape")
        specs[value.name] = (dims, onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type))
    return specs


def calibration_inputs(model: onnx.ModelProto, samples: int, seed: int) -> list[dict[str, np.ndarray]]:
    """`samples` seeded standard-normal feeds for `model`'s inputs."""
    rng = np.random.default_rng(seed)
    specs = input_specs(model)
    return [{name: rng.standard_normal(dims).astype(dtype) for name, (dims, dtype) in specs.items()}
            for _ in range(samples)]


def quantize_model(model: onnx.ModelProto, out: Path, scheme: Scheme | str = "int8",
                   samples: int = 4, seed: int = 0, quant_format: str = "qdq") -> Path:
    """Write the QDQ (or, with `quant_format` "qoperator", the QOperator) version of `model`
    (static input shapes) to `out`; returns `out`."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    scheme = SCHEMES[scheme] if isinstance(scheme, str) else scheme
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < MIN_OPSET:
        model = onnx.version_converter.convert_version(model, MIN_OPSET)
    feeds = calibration_inputs(model, samples, seed)

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.pending = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(self.pending, None)

    qtype = QuantType.QInt8 if scheme.dtype == "int8" else QuantType.QUInt8
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw, prepared = Path(tmp) / "float.onnx", Path(tmp) / "prepared.onnx"
        onnx.save_model(model, raw)
        # No symbolic shape inference: it needs sympy, and the shapes are static already.
        quant_pre_process(str(raw), str(prepared), skip_symbolic_shape=True)
        onnx.save_model(flatten_gemm_biases(onnx.load(str(prepared))), prepared)
        quantize_static(
            str(prepared), str(out), Reader(), quant_format=FORMATS[quant_format](QuantFormat), per_channel=scheme.per_channel,
            activation_type=qtype, weight_type=qtype,
            extra_options={"ActivationSymmetric": scheme.symmetric, "WeightSymmetric": scheme.symmetric})
    return out


FORMATS = {"qdq": lambda f: f.QDQ, "qoperator": lambda f: f.QOperator}
"""`quantize_static`'s formats: QuantizeLinear -> DequantizeLinear pairs around float ops, or
QLinearConv, QLinearMatMul and com.microsoft's QLinear ops."""


def quantize_dynamic_model(model: onnx.ModelProto, out: Path) -> Path:
    """Write `model` as onnxruntime's `quantize_dynamic` writes it to `out` (int8 weights; the
    activations quantized at run time: DynamicQuantizeLinear, MatMulInteger, ConvInteger,
    com.microsoft's DynamicQuantizeLSTM); returns `out`."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "float.onnx"
        onnx.save_model(model, raw)
        quantize_dynamic(raw, out, weight_type=QuantType.QInt8,
                         extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    return out


def flatten_gemm_biases(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with each Gemm's constant (1, N) bias made 1-D. onnxruntime 1.32's quantizer
    quantizes a 2-D bias per channel along the wrong axis (an invalid DequantizeLinear) and
    fails widening per-channel weight scales for it; quant_pre_process writes such biases
    when it fuses MatMul + Add (CNTK's mnist)."""
    initializers = {t.name: t for t in model.graph.initializer}
    users: dict[str, int] = {}
    for node in model.graph.node:
        for name in node.input:
            users[name] = users.get(name, 0) + 1
    for node in model.graph.node:
        bias = initializers.get(node.input[2]) if node.op_type == "Gemm" and len(node.input) > 2 else None
        if bias is not None and len(bias.dims) == 2 and bias.dims[0] == 1 and users[bias.name] == 1:
            bias.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(bias).reshape(-1), bias.name))
    return model


def float_model(name: str) -> onnx.ModelProto:
    """The zoo model `name` with its dynamic input dims fixed (the zoo's `INPUT_SHAPES`)."""
    import zoo

    return fix_input_shapes(zoo.ZOO[name](), zoo.INPUT_SHAPES.get(name, {}))


def quantize_zoo(name: str, out_dir: Path, scheme: str = "int8", seed: int = 0, quant_format: str = "qdq") -> Path:
    """Write `out_dir/<name>-<scheme>.onnx` (QDQ), `<name>-<scheme>-qoperator.onnx` or
    `<name>-dynamic.onnx` (`quant_format` "dynamic": no scheme, no calibration), the quantized
    version of the zoo model `name`."""
    if quant_format == "dynamic":
        return quantize_dynamic_model(float_model(name), out_dir / f"{name}-dynamic.onnx")
    suffix = "" if quant_format == "qdq" else f"-{quant_format}"
    return quantize_model(float_model(name), out_dir / f"{name}-{scheme}{suffix}.onnx", scheme, seed=seed,
                          quant_format=quant_format)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write QDQ versions of zoo models.")
    parser.add_argument("outdir", type=Path, metavar="OUTDIR")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"default: {', '.join(MODELS)}")
    parser.add_argument("--scheme", choices=SCHEMES, default="int8")
    parser.add_argument("--format", choices=[*FORMATS, "dynamic"], default="qdq", dest="quant_format",
                        help="quantize_static's QDQ or QOperator format, or quantize_dynamic")
    parser.add_argument("--seed", type=int, default=0, help="seed of the calibration inputs")
    args = parser.parse_args(argv)
    for name in args.names or MODELS:
        print(quantize_zoo(name, args.outdir, args.scheme, args.seed, args.quant_format))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
