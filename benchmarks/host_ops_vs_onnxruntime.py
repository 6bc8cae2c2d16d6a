"""Where the all-host C loses to onnxruntime: each host op's time beside onnxruntime's nodes
for the same ONNX nodes, the fastest of many runs on each side.

    python benchmarks/host_ops_vs_onnxruntime.py MODEL [--runs N] [--top K] [--x86-64-v3] [--onnxruntime-avx2]
        [--quantized qdq|qoperator]

MODEL is one of host_c_vs_onnxruntime.py's; with `--quantized`, its int8 model as
host_int8_vs_onnxruntime.py quantizes it (both sides run the same int8 model). The C is built as that benchmark builds it, with
per-op timing (`make PROFILE=1`, as `mrvl-run --profile`); onnxruntime runs one intra-op
thread with its node profiler on. Outputs are compared first. Each side runs N times and each
op keeps its fastest run: on a shared machine a median per op still carries the load, and
the whole-model ratio of host_c_vs_onnxruntime.py cannot say which op to look at.

onnxruntime names a fused node after one of the ONNX nodes it fused (`clip_10_nchwc` for
Conv, BatchNormalization and Clip), and a host op's label lists its ONNX nodes, so a host op
is set beside every onnxruntime node named after one of its own. Where the two fuse
differently (onnxruntime puts an Add into its Conv, the C keeps it apart) the time lands on
the op that holds the name; the totals hold either way. onnxruntime's nodes named after no
ONNX node (its layout reorders) are summed apart. The table is ordered by what each op costs
over onnxruntime's time, largest first; `--x86-64-v3 --onnxruntime-avx2` compares both sides as
they run on an AVX2 machine (see host_c_vs_onnxruntime.py).
"""

import argparse
import ctypes
import json
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
import onnx

from host_c_vs_onnxruntime import (BUILDERS, ZOO_MODELS, CModel, build, cpuid_masked, onnxruntime_session,
                                   rerun_with_avx2_cpuid)
from host_int8_vs_onnxruntime import FORMATS, allowed_difference, quantized_model
from checkouts import machine
from ir_helpers import ZOO_INPUT_SHAPES

from mrvl.numerics import compare

_NODE = re.compile(r"(\S+) \([\w.]+\)(?:, |$)")
"""One ONNX node of a host op's label, `conv1 (Conv)`: its name."""
_KERNEL_TIME = "_kernel_time"


def label_nodes(label: str) -> list[str]:
    """The ONNX node names of a host op's label, `conv1 (Conv), relu1 (Relu) (cpu.conv)`."""
    nodes = label.rsplit(" (", 1)[0]
    return [m.group(1) for m in _NODE.finditer(nodes)]


def onnx_node_of(name: str, onnx_names: set[str]) -> str | None:
    """The ONNX node an onnxruntime node is named after: its own name (its last word: `fused
    gemm_40`), or the longest ONNX name that starts it followed by `_` or `/` (onnxruntime's
    suffixes: `_nchwc`, `_token_12`, `/QuickGeluFusion/`)."""
    name = name.split(" ")[-1]
    if name in onnx_names:
        return name
    prefixes = [n for n in onnx_names if name.startswith((n + "_", n + "/"))]
    return max(prefixes, key=len) if prefixes else None


def fastest_c_ops(model: CModel, name: str, runs: int) -> tuple[list[str], list[float]]:
    """Each profiled op's label and its fastest time in seconds over `runs` runs."""
    label, ns, reset = (model.lib[f"{name}_profile_{f}"] for f in ("label", "ns", "reset"))
    label.restype, ns.restype = ctypes.c_char_p, ctypes.c_uint64
    labels = [label(i).decode() for i in range(model.lib[f"{name}_profile_ops"]())]
    fastest = [float("inf")] * len(labels)
    for _ in range(runs):
        reset()
        model()
        fastest = [min(f, ns(i) / 1e9) for i, f in enumerate(fastest)]
    return labels, fastest


def fastest_onnxruntime_nodes(path: Path, inputs: dict[str, np.ndarray], runs: int,
                              prefix: str) -> tuple[list[np.ndarray], dict[str, float]]:
    """onnxruntime's outputs and each node's fastest time in seconds over `runs` profiled runs."""
    session = onnxruntime_session(path, 1, profile_prefix=prefix)
    outputs = session.run(None, inputs)
    for _ in range(runs):
        session.run(None, inputs)
    fastest: dict[str, float] = {}
    for event in json.loads(Path(session.end_profiling()).read_text()):
        if event.get("cat") == "Node" and event["name"].endswith(_KERNEL_TIME):
            node = event["name"][: -len(_KERNEL_TIME)]
            fastest[node] = min(fastest.get(node, float("inf")), event["dur"] / 1e6)
    return outputs, fastest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=BUILDERS)
    parser.add_argument("--runs", type=int, default=40, help="runs of each side; each op keeps its fastest")
    parser.add_argument("--top", type=int, default=20, help="rows to print (0: every op)")
    parser.add_argument("--x86-64-v3", action="store_true", help="build the C with ARCH_FLAGS=-march=x86-64-v3")
    parser.add_argument("--onnxruntime-avx2", action="store_true",
                        help="onnxruntime on the kernels it picks on an AVX2 machine (CPUID masked)")
    parser.add_argument("--quantized", choices=FORMATS, help="the model quantized to int8 in this format")
    args = parser.parse_args(argv)
    if args.onnxruntime_avx2 and not cpuid_masked():
        rerun_with_avx2_cpuid(sys.argv[1:] if argv is None else argv, Path(__file__))
    name = args.model if args.quantized is None else f"{args.model}_{args.quantized}"

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, f"{name}.onnx")
        model_proto = BUILDERS[args.model]()
        if args.quantized is not None:
            model_proto = onnx.load(quantized_model(model_proto, path, args.quantized))
        onnx.save(model_proto, path)
        shapes = ZOO_INPUT_SHAPES.get(name, {}) if name in ZOO_MODELS else {}
        session = onnxruntime_session(path, 1)
        rng = np.random.default_rng(0)
        inputs = {i.name: rng.standard_normal(shapes.get(i.name) or i.shape).astype(np.float32)
                  for i in session.get_inputs()}
        expected, ort_nodes = fastest_onnxruntime_nodes(path, inputs, args.runs, str(Path(tmp, "onnxruntime")))
        out = Path(tmp, "c")
        build(path, name, shapes, out, "-march=x86-64-v3" if args.x86_64_v3 else None, profile=True)
        program = CModel(out, name, inputs)
        program()
        for got, want in zip(program.outputs, expected):
            want = want.reshape(got.shape)
            if args.quantized is not None:
                allowed = allowed_difference(model_proto, want)
                if (off := float(np.max(np.abs(got - want)))) > allowed * (1 + 1e-6):
                    raise SystemExit(f"error: {name}: max |difference| {off:.4g} (allowed {allowed:.4g})")
            elif not (result := compare(got, want)).ok:
                raise SystemExit(f"error: {name}: {result.describe()}")
        labels, c_times = fastest_c_ops(program, name, args.runs)

    onnx_names = {node.name for node in model_proto.graph.node if node.name}
    op_of_node = {}
    for i, label in enumerate(labels):
        for node in label_nodes(label):
            op_of_node.setdefault(node, i)
    ort_times: dict[int, float] = defaultdict(float)
    elsewhere: dict[str, float] = defaultdict(float)
    for node, seconds in ort_nodes.items():
        onnx_node = onnx_node_of(node, onnx_names)
        if onnx_node in op_of_node:
            ort_times[op_of_node[onnx_node]] += seconds
        else:
            elsewhere[node] += seconds

    rows = sorted(range(len(labels)), key=lambda i: ort_times[i] - c_times[i])
    shown = rows[: args.top] if args.top else rows
    print(f"{'C us':>9} {'ort us':>9} {'ratio':>6} {'over us':>8}  host op (its ONNX nodes)")
    for i in shown:
        ort_s = ort_times[i]
        ratio = f"{c_times[i] / ort_s:5.2f}x" if ort_s else "     -"
        print(f"{c_times[i] * 1e6:9.1f} {ort_s * 1e6:9.1f} {ratio} {(c_times[i] - ort_s) * 1e6:8.1f}  {labels[i]}")
    c_total, ort_total = sum(c_times), sum(ort_times.values()) + sum(elsewhere.values())
    print(f"{'':>36}  ({len(rows) - len(shown)} more ops)" if len(shown) < len(rows) else "", end="")
    print(f"\nonnxruntime nodes named after no host op: {sum(elsewhere.values()) * 1e6:.1f} us "
          f"({', '.join(sorted(elsewhere)[:6])}{', ...' if len(elsewhere) > 6 else ''})")
    print(f"sum of fastest ops: C {c_total * 1e3:.3f} ms, onnxruntime {ort_total * 1e3:.3f} ms, "
          f"{c_total / ort_total:.2f}x")
    seen = "; onnxruntime's CPUID masked to AVX2" if args.onnxruntime_avx2 else ""
    build_flags = "-march=x86-64-v3" if args.x86_64_v3 else "-march=native"
    model = f"{args.model}, int8 {args.quantized}" if args.quantized else args.model
    print(f"({model}; {machine()}{seen}; C built with {build_flags}; 1 thread each; fastest of {args.runs} runs per op)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
