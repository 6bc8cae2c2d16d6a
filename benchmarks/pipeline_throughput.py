"""Throughput of a model cut into pipeline stages under MPI, against its single bundle.

    python benchmarks/pipeline_throughput.py [--model resnet50 | MODEL.onnx] [--stages N | --cuts T1,T2,...]
                                             [--frames F] [--offload] [--out DIR]

In one run: the model (a name of benchmarks/cnn_models.py's MODELS, or an ONNX file) compiled whole
into one bundle (all-host unless `--offload`) runs F frames in a loop in this process, one
thread, its buffers bound once (`HostProgram.bind`); then the same model cut into N stages
(test/pipeline_stages.py, until `mrvl-compile --stages` writes the archive) runs the same F
frames under `mrvl-run`'s MPI runner (`mrvl.pipeline_run.run_pipeline`), a rank a stage; the
pair `--repeat` times, taking turns so that both see the same machine. Both times count from
the first frame to the last frame's outputs, after loading. Printed: the median frames/s of
both and their ratio, each stage's busy time (its compute over its wall time) in the median
pipeline run, whether every frame's outputs are the same bits, the processor, and the load
average, since the cores are shared: with N ranks on N cores, anything else running comes off
the pipeline's throughput.

The cuts (`--cuts`: ONNX tensors, each ending a stage) default to those that split the cost
model's estimate of the whole bundle's nodes most evenly into `--stages` parts, between
kernels (`balanced_cuts`). Target (issue 32): ResNet-50 all-host, 2 stages, 32 frames,
on a 2-core machine: at least 1.7x the single bundle's frames/s.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

from checkouts import ROOT, machine

sys.path[:0] = [str(ROOT / "test")]

import cnn_models  # noqa: E402
from pipeline_stages import write_pipeline  # noqa: E402

from mrvl.compile import compile_model  # noqa: E402
from mrvl.pipeline_run import run_pipeline  # noqa: E402
from mrvl.run import HostProgram, accelerator, build, open_bundle  # noqa: E402

def balanced_cuts(model: onnx.ModelProto, report_nodes: list, stages: int) -> list[str]:
    """Where to cut `model` into `stages` parts of the most even estimated time (the report's
    per-node estimates, a kernel's time shared by the nodes fused into it): after a node no
    host kernel or MLIP layer spans, so that each stage computes what the whole bundle does;
    each cut named by the node's output. Tensors that cross a cut besides it are forwarded."""
    nodes = model.graph.node
    position = {node.name: n for n, node in enumerate(nodes)}
    seconds = np.zeros(len(nodes))
    spans: dict[object, list[int]] = {}
    for node in report_nodes:
        if node.estimate is not None and node.name in position:
            seconds[position[node.name]] = node.estimate.seconds / node.estimate.shared_by
            # an MLIP layer, or a host kernel
            kernel = (node.subgraph, node.layer) if node.layer else node.estimate.basis
            spans.setdefault(kernel, []).append(position[node.name])
    inside = np.zeros(len(nodes), bool)  # cutting after node n would split a kernel
    for members in spans.values():
        inside[min(members):max(members)] = True
    times = np.cumsum(seconds)
    candidates = [n for n in range(len(nodes) - 1) if not inside[n]]
    cuts = []
    for k in range(1, stages):
        n = min(candidates, key=lambda c: abs(times[c] - times[-1] * k / stages))
        cuts.append(nodes[n].output[0])
        candidates = [c for c in candidates if c > n]
    return cuts


def single_bundle(bundle_path: Path, frames: dict[str, np.ndarray], count: int) -> tuple[float, dict[str, np.ndarray]]:
    """Seconds for `count` frames of the bundle in a loop, and the outputs of each frame."""
    with open_bundle(bundle_path) as bundle:
        program = HostProgram(bundle, build(bundle, threads=1))
        inputs = [np.ascontiguousarray(frames[t.name], t.dtype) for t in bundle.inputs]
        results = [np.empty((count, *t.shape), t.dtype) for t in bundle.outputs]
        runs = [program.bind([a[k] for a in inputs], [r[k] for r in results]) for k in range(count)]
        with accelerator(program, precision="fp32") as mlip:
            start = time.perf_counter()
            for run in runs:
                run(mlip)
            seconds = time.perf_counter() - start
        return seconds, {t.name: r for t, r in zip(bundle.outputs, results)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="resnet50", help="a model of benchmarks/cnn_models.py, or an .onnx file")
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--cuts", help="tensors ending each stage but the last, comma-separated")
    parser.add_argument("--frames", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs, single bundle then pipeline (3)")
    parser.add_argument("--offload", action="store_true", help="compile with MLIP subgraphs (run on the simulator)")
    parser.add_argument("--out", type=Path, help="keep the bundles here (default: a temporary folder)")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pipeline-bench-") as tmp:
        out = options.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        model_path = Path(options.model) if options.model.endswith(".onnx") else out / f"{options.model}.onnx"
        if not model_path.is_file():
            onnx.save(cnn_models.MODELS[options.model](), model_path)
        model = onnx.shape_inference.infer_shapes(onnx.load(str(model_path)))
        whole = compile_model(model_path, out / "whole.tar", offload=options.offload)
        cuts = options.cuts.split(",") if options.cuts else balanced_cuts(model, whole.report.nodes, options.stages)
        archive = write_pipeline(model_path, cuts, out / f"pipeline-{len(cuts) + 1}.tar", offload=options.offload)

        rng = np.random.default_rng(0)
        frames = {i.name: rng.standard_normal((options.frames, *(d.dim_value for d in i.type.tensor_type.shape.dim)))
                  .astype(np.float32) for i in model.graph.input}
        loads, singles, pipelines, same = [os.getloadavg()[0]], [], [], True
        for _ in range(options.repeat):
            single_seconds, single_outputs = single_bundle(whole.output, frames, options.frames)
            singles.append(options.frames / single_seconds)
            pipelines.append(run_pipeline(archive, options.frames, frames, threads=1, precision="fp32"))
            same &= all(np.array_equal(single_outputs[name], a) for name, a in pipelines[-1].outputs.items())
            loads.append(os.getloadavg()[0])

    single_fps = statistics.median(singles)
    pipeline = sorted(pipelines, key=lambda p: p.frames_per_second)[len(pipelines) // 2]
    print(f"{model_path.stem}, {'partitioned' if options.offload else 'all-host'}, {options.frames} frames, "
          f"median of {options.repeat}; cuts after {', '.join(cuts)}")
    stages = len(pipeline.stages)
    print(f"  {'single bundle, 1 thread:':<28}{single_fps:8.2f} frames/s")
    print(f"  {f'{stages} stages, {stages} MPI ranks:':<28}{pipeline.frames_per_second:8.2f} frames/s"
          f"  ({pipeline.frames_per_second / single_fps:.2f}x)")
    for index, stage in enumerate(pipeline.stages):
        print(f"    stage {index}: busy {stage.busy:6.1%}")
    print(f"  each run (single, pipeline): "
          + ", ".join(f"{s:.2f} {p.frames_per_second:.2f}" for s, p in zip(singles, pipelines)))
    print(f"  outputs of every frame bit-identical: {'yes' if same else 'NO'}")
    print(f"  machine: {machine()}; 1-minute load average {', '.join(f'{x:.2f}' for x in loads)} "
          "(before and after each pair: the cores are shared)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
