"""Host time of elementwise chains, fused (`fuse-elementwise`) or not: this tree against a git ref.

    python benchmarks/fused_elementwise.py [--against main] [--repeat N] [--runs N]

The models, generated here at YOLOv8n-320 and MobileNetV3 sizes:

- `silu_between_calls`: a 3x3/2 conv to 16 x 160 x 160, SiLU (Sigmoid, Mul), a 3x3/2 conv; the
  convs run on MLIP (the default partitioning), the SiLU on the host between the two calls;
- `hard_swish_between_calls`: the same with HardSwish written as x * HardSigmoid(x), as
  PyTorch exports it before opset 14, at 32 x 80 x 80; legalize-mrvl is off, so that the
  HardSigmoid stays on the host instead of running as an MLIP layer;
- `all_host_concat_silu`: all host, two 1x1 convs to 32 x 80 x 80 each, their Concat, a SiLU of
  it (no conv epilogue can take it: it follows the Concat), a 1x1 conv.

Each is compiled by both versions (`checkouts.py`), built with `mrvl-run`'s profiling build
(-O3, -march=native) and profiled with the accelerator calls on the reference simulator (fp32);
it reports the time per run of the elementwise ops (fused or not) and of all host ops (the
calls left out: layout transposes and convs included), each the least over `--runs` profiles
of `--repeat` runs (load on a shared machine only adds time), the versions taking turns.
"""

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from checkouts import Versions, machine

MEASURE = r"""
import json, os, sys
import numpy as np
from mrvl.opt import main as mrvl_opt
from mrvl.run import profile_bundle

model, out, pipeline, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if not os.path.exists(out):
    assert mrvl_opt([model, "-p", pipeline, "-t", "c", "-o", out]) == 0
x = np.random.default_rng(0).standard_normal(json.loads(sys.argv[5])).astype(np.float32)
_, times = profile_bundle(out, {"x": x}, repeat=repeat, precision="fp32", simulator="reference")
print(json.dumps([[t.label, t.seconds] for t in times if not t.label.endswith("(cpu.call_mlip)")]))
"""

PARTITIONED = "mrvl-pipeline,mrvl-host-pipeline"
ELEMENTWISE = ("(cpu.elementwise)", "(cpu.unary)", "(cpu.binary)", "(cpu.hard_sigmoid)", "(cpu.hard_swish)", "(cpu.clip)")
"""The profile labels of the elementwise kernels (a label ends with its op's name)."""


def _conv(rng, name: str, x: str, y: str, m: int, c: int, k: int, stride: int) -> tuple:
    w = numpy_helper.from_array((rng.standard_normal((m, c, k, k)) * 0.2).astype(np.float32), f"{name}_w")
    node = helper.make_node("Conv", [x, w.name], [y], name=name, pads=[k // 2] * 4, strides=[stride, stride])
    return node, w


def _model(name: str, nodes: list, initializers: list, shape: list[int]) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def silu_between_calls() -> onnx.ModelProto:
    rng = np.random.default_rng(1)
    (c1, w1), (c2, w2) = _conv(rng, "conv1", "x", "a", 16, 3, 3, 2), _conv(rng, "conv2", "b", "y", 32, 16, 3, 2)
    silu = [helper.make_node("Sigmoid", ["a"], ["s"], name="sigmoid"), helper.make_node("Mul", ["a", "s"], ["b"], name="mul")]
    return _model("silu_between_calls", [c1, *silu, c2], [w1, w2], [1, 3, 320, 320])


def hard_swish_between_calls() -> onnx.ModelProto:
    rng = np.random.default_rng(2)
    (c1, w1), (c2, w2) = _conv(rng, "conv1", "x", "a", 32, 16, 3, 2), _conv(rng, "conv2", "b", "y", 32, 32, 1, 1)
    swish = [helper.make_node("HardSigmoid", ["a"], ["h"], name="hard_sigmoid", alpha=1 / 6, beta=0.5),
             helper.make_node("Mul", ["a", "h"], ["b"], name="mul")]
    return _model("hard_swish_between_calls", [c1, *swish, c2], [w1, w2], [1, 16, 160, 160])


def all_host_concat_silu() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    (c1, w1), (c2, w2) = _conv(rng, "conv1", "x", "a", 32, 16, 1, 1), _conv(rng, "conv2", "x", "b", 32, 16, 1, 1)
    (c3, w3) = _conv(rng, "conv3", "m", "y", 32, 64, 1, 1)
    nodes = [c1, c2, helper.make_node("Concat", ["a", "b"], ["c"], name="concat", axis=1),
             helper.make_node("Sigmoid", ["c"], ["s"], name="sigmoid"), helper.make_node("Mul", ["c", "s"], ["m"], name="mul"),
             c3]
    return _model("all_host_concat_silu", nodes, [w1, w2, w3], [1, 16, 80, 80])


MODELS = {
    "silu_between_calls": (silu_between_calls, PARTITIONED),
    "hard_swish_between_calls": (hard_swish_between_calls, "mrvl-pipeline{legalize=false},mrvl-host-pipeline"),
    "all_host_concat_silu": (all_host_concat_silu, "mrvl-pipeline{offload=false},mrvl-host-pipeline"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", default="main", help="the git ref to compare with")
    parser.add_argument("--repeat", type=int, default=50, help="runs per profile")
    parser.add_argument("--runs", type=int, default=5, help="profiles per version and model; the least is reported")
    args = parser.parse_args(argv)
    versions = Versions(args.against)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, (build, pipeline) in MODELS.items():
                proto = build()
                path = Path(tmp, f"{name}.onnx")
                onnx.save_model(proto, path)
                shape = [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim]
                samples = versions.alternate(args.runs, lambda version, i: json.loads(versions.run(
                    version, MEASURE, str(path), str(Path(tmp, f"{name}-{version.replace('/', '_')}")), pipeline,
                    str(args.repeat), json.dumps(shape))))
                host = {v: min(sum(s for _, s in ops) for ops in runs) for v, runs in samples.items()}
                chain = {v: min(sum(s for label, s in ops if label.endswith(ELEMENTWISE)) for ops in runs)
                         for v, runs in samples.items()}
                kernels = {v: sum(label.endswith(ELEMENTWISE) for label, _ in runs[0]) for v, runs in samples.items()}
                rows.append((name, chain, host, kernels))
    finally:
        versions.close()
    ref = args.against
    print(f"time per run (least of {args.runs} profiles of {args.repeat} runs); {machine()}")
    print(f"{'model':<26}{'elementwise: this':>18}{ref:>10}{'ratio':>7}{'kernels':>9}"
          f"{'all host: this':>16}{ref:>10}{'ratio':>7}")
    for name, chain, host, kernels in rows:
        print(f"{name:<26}{chain['this'] * 1e6:>15.1f} us{chain[ref] * 1e6:>7.1f} us{chain['this'] / chain[ref]:>6.2f}x"
              f"{kernels['this']:>5} / {kernels[ref]}{host['this'] * 1e6:>13.1f} us{host[ref] * 1e6:>7.1f} us"
              f"{host['this'] / host[ref]:>6.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
