"""Run time of int8 CNNs compiled all-host against onnxruntime on the same int8 model, and
against our own float32 build of the float network.

    python benchmarks/host_int8_vs_onnxruntime.py [--repeat N] [--models NAME ...] [--formats qdq qoperator]

Each network of benchmarks/cnn_models.py named (default resnet18, mobilenet_v2, squeezenet) is
quantized with onnxruntime's `quantize_static` (`quantized_model`: `quant_pre_process`, then
uint8 activations and int8 weights per output channel, calibrated on seeded standard-normal
inputs) in QDQ and in QOperator format (the classifier a com.microsoft QGemm). Each int8 model is compiled with
`mrvl-pipeline{offload=false},mrvl-host-pipeline -t c` and built with its Makefile
(-march=native), as benchmarks/host_c_vs_onnxruntime.py builds the float one. Outputs are
checked against onnxruntime's run of the same int8 model first (`allowed_difference`), then
timed on one thread (median of interleaved samples): our int8 build, onnxruntime (intra_op_num_threads=1) on the int8 model,
our float32 build of the float network. The table gives ours / onnxruntime's time and our
float32 time / our int8 time, then the machine (processor and widest vector extension).
Targets (issue 31): int8 at most 1.0x onnxruntime's time, and at least 1.5x faster than float32.
"""

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "test")]

import cnn_models  # noqa: E402
from checkouts import machine  # noqa: E402
from host_c_vs_onnxruntime import CLOCKS, CModel, build, median_seconds, onnxruntime_session  # noqa: E402

MODELS = ("resnet18", "mobilenet_v2", "squeezenet")
FORMATS = ("qdq", "qoperator")
STEPS = 3
"""Quantization steps of the output's scale an int8 build may differ from onnxruntime by."""
FLOAT_OUTPUT = 0.03
"""The same for a float output, as a fraction of its largest magnitude."""
CALIBRATION_SAMPLES, SEED = 4, 0


def quantized_model(model: onnx.ModelProto, out: Path, quant_format: str) -> Path:
    """`model` quantized by onnxruntime's `quantize_static` in `quant_format` ("qdq" or
    "qoperator"), written to `out`: uint8 activations, int8 weights per output channel,
    calibrated on `CALIBRATION_SAMPLES` standard-normal inputs from `SEED`."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    rng = np.random.default_rng(SEED)
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    feeds = iter([{name: rng.standard_normal(dims).astype(np.float32) for name, dims in shapes.items()}
                  for _ in range(CALIBRATION_SAMPLES)])

    class Reader(CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(feeds, None)

    with tempfile.TemporaryDirectory() as tmp:
        raw, prepared = Path(tmp) / "float.onnx", Path(tmp) / "prepared.onnx"
        onnx.save(model, raw)
        quant_pre_process(str(raw), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(out), Reader(),
                        quant_format=QuantFormat.QDQ if quant_format == "qdq" else QuantFormat.QOperator,
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    return out


def allowed_difference(model: onnx.ModelProto, expected: np.ndarray) -> float:
    """`STEPS` steps of the scale the graph's (first) output is dequantized from; for an
    output a float op computes (a QOperator model's float classifier), `FLOAT_OUTPUT`
    of its largest magnitude."""
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    output = model.graph.output[0].name
    node = next(n for n in model.graph.node if output in n.output)
    if node.op_type == "DequantizeLinear":
        return STEPS * float(inits[node.input[1]].reshape(-1)[0])
    return FLOAT_OUTPUT * float(np.max(np.abs(expected)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=11, help="samples per timing (median)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(cnn_models.MODELS))
    parser.add_argument("--formats", nargs="+", default=list(FORMATS), choices=FORMATS)
    parser.add_argument("--clock", choices=CLOCKS, default="cpu",
                        help="cpu (default): the calling thread's CPU time; wall: elapsed time")
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            float_path = Path(tmp) / f"{name}.onnx"
            onnx.save(cnn_models.MODELS[name](), float_path)
            float_session = onnxruntime_session(float_path, 1)
            rng = np.random.default_rng(1)
            inputs = {i.name: rng.standard_normal(i.shape).astype(np.float32) for i in float_session.get_inputs()}
            float_c = CModel(build(float_path, name, {}, Path(tmp) / f"{name}-float", None).parent, name, inputs)
            for quant_format in args.formats:
                label = f"{name}_{quant_format}"
                path = quantized_model(onnx.load(float_path), Path(tmp) / f"{label}.onnx", quant_format)
                session = onnxruntime_session(path, 1)
                expected = session.run(None, inputs)
                int8_c = CModel(build(path, label, {}, Path(tmp) / label, None).parent, label, inputs)
                int8_c()
                allowed = allowed_difference(onnx.load(path), expected[0])
                difference = float(np.max(np.abs(int8_c.outputs[0] - expected[0].reshape(int8_c.outputs[0].shape))))
                if difference > allowed * (1 + 1e-6):
                    raise SystemExit(f"error: {label}: max |difference| {difference:.4g} (allowed {allowed:.4g})")
                ours, theirs, ours_float = median_seconds([int8_c, lambda: session.run(None, inputs), float_c],
                                                          args.repeat, clock)
                rows.append((label, ours, theirs, ours_float, difference / allowed))
                print(f"{label}: int8 {ours * 1e3:.3f} ms, onnxruntime {theirs * 1e3:.3f} ms, float32 "
                      f"{ours_float * 1e3:.3f} ms", file=sys.stderr, flush=True)
    print(f"{'model':<26} {'ours int8':>10} {'ort int8':>10} {'ours fp32':>10} {'int8/ort':>9} {'fp32/int8':>9} "
          f"{'off/allowed':>11}")
    for label, ours, theirs, ours_float, off in rows:
        print(f"{label:<26} {ours * 1e3:>7.3f} ms {theirs * 1e3:>7.3f} ms {ours_float * 1e3:>7.3f} ms "
              f"{ours / theirs:>8.2f}x {ours_float / ours:>8.2f}x {off:>11.2f}")
    if rows:
        geo = statistics.geometric_mean([r[1] / r[2] for r in rows])
        speedup = statistics.geometric_mean([r[3] / r[1] for r in rows])
        print(f"geometric mean int8/ort {geo:.2f}x, fp32/int8 {speedup:.2f}x")
    print(f"({machine()}; 1 thread each; {args.clock} clock; median of {args.repeat}; targets: int8/ort <= 1.0x, "
          f"fp32/int8 >= 1.5x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
