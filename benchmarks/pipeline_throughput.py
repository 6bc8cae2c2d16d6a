"""Throughput of a model cut into pipeline stages under MPI, against its single bundle.

    python benchmarks/pipeline_throughput.py [--model resnet50 | MODEL.onnx] [--stages N | --cuts T1,T2,...]
                                             [--frames F] [--offload] [--out DIR]

In one run: the model (a name of benchmarks/cnn_models.py's MODELS, or an ONNX file) compiled whole
into one bundle (all-host unless `--offload`) runs F frames in a loop in this process, one
thread, its buffers bound once (`HostProgram.bind`); then the same model cut into N stages
(`mrvl-compile --stages N`, or `--stage-cuts`) runs the same F
frames under `mrvl-run`'s MPI runner (`mrvl.pipeline_run.run_pipeline`), a rank a stage; the
pair `--repeat` times, taking turns so that both see the same machine. Both times count from
the first frame to the last frame's outputs, after loading. Printed: the median frames/s of
both and their ratio, each stage's busy time (its compute over its wall time) in the median
pipeline run, whether every frame's outputs are the same bits, the processor, and the load
average, since the cores are shared: with N ranks on N cores, anything else running comes off
the pipeline's throughput.

The cuts (`--cuts`: ONNX tensors, each ending a stage) default to `split-stages`' choice,
the one minimising the largest stage's estimate. Target (issue 32): ResNet-50 all-host, 2 stages, 32 frames,
on a 2-core machine: at least 1.7x the single bundle's frames/s.
"""

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

from mrvl.compile import compile_model
from mrvl.pipeline_run import run_pipeline
from mrvl.run import HostProgram, accelerator, build, open_bundle

import cnn_models
from checkouts import machine


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
        model = onnx.load(str(model_path), load_external_data=False)
        whole = compile_model(model_path, out / "whole.tar", offload=options.offload)
        cuts = options.cuts.split(",") if options.cuts else []
        archive = compile_model(model_path, out / "pipeline.tar", offload=options.offload,
                                pipeline_stages=0 if cuts else options.stages, stage_cuts=cuts).output

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
          f"median of {options.repeat}; cuts {'after ' + ', '.join(cuts) if cuts else 'by mrvl-compile --stages'}")
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
