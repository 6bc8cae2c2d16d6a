"""Throughput of a model cut into pipeline stages under MPI, against its single bundle.

    python benchmarks/pipeline_throughput.py [--model resnet50 | MODEL.onnx] [--stages N | --cuts T1,T2,...]
                                             [--frames F] [--repeat R] [--offload] [--assumed-rates]
                                             [--rebalance] [--target-file FILE] [--out DIR]

In one run: the model (a name of benchmarks/cnn_models.py's MODELS, or an ONNX file) compiled whole
into one bundle (all-host unless `--offload`), profiled on this machine (`mrvl-run --profile
--profile-out`), and cut into N stages (`mrvl-compile --stages N --host-profile` that profile: the
split balances the kernels' measured times; `--assumed-rates` balances the target's assumed rates
instead; `--cuts` cuts where it says). `--rebalance` then runs those stages once with `mrvl-run
--profile` (each kernel timed as it runs beside the other stages) and cuts again on that profile
(`mrvl-compile --stages N --host-profile` the pipeline's profile). Then the whole bundle runs F
frames in a loop in this process, one thread, its buffers bound once (`HostProgram.bind`), and the
stages the same F frames under `mrvl-run`'s MPI runner (`mrvl.pipeline_run.run_pipeline`), a rank a
stage; the pair `--repeat` times, taking turns so that both see the same machine. Both times count
from the first frame to the last frame's outputs, after loading.

Printed: each stage's estimate and its share of the profiled whole; the median frames/s of
both and their ratio; for each stage of the median pipeline run, its busy time (compute over
wall), the CPU time of that compute (below 100% when other processes took the core), and its
time a frame waiting for inputs, waiting to send and in the loop's own work; the single
bundle's CPU time over the slowest stage's compute CPU time (the ratio an idle machine would
give, less the waits: CPU time is less sensitive to other processes than the wall clock);
whether every frame's outputs are the same bits; the processor and the load average, since
the cores are shared: with N ranks on N cores, anything else running comes off the
pipeline's throughput.

Target (issue 32): ResNet-50 all-host, 2 stages, 32 frames, on a 2-core machine: at least
1.7x the single bundle's frames/s.
"""

import argparse
import json
import os
import statistics
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

from mrvl.backend.pipeline_bundle import PIPELINE_FILE
from mrvl.compile import compile_model
from mrvl.target.cost_model import duration
from mrvl.pipeline_run import open_pipeline, pipeline_profile_document, run_pipeline
from mrvl.run import HostProgram, accelerator, build, open_bundle, profile_bundle, profile_document
from mrvl_dialect.files import write_atomically

import cnn_models
from checkouts import machine


def single_bundle(bundle_path: Path, frames: dict[str, np.ndarray],
                  count: int) -> tuple[float, float, dict[str, np.ndarray]]:
    """Seconds for `count` frames of the bundle in a loop, the CPU seconds of those, and the outputs of each frame."""
    with open_bundle(bundle_path) as bundle:
        program = HostProgram(bundle, build(bundle, threads=1))
        inputs = [np.ascontiguousarray(frames[t.name], t.dtype) for t in bundle.inputs]
        results = [np.empty((count, *t.shape), t.dtype) for t in bundle.outputs]
        runs = [program.bind([a[k] for a in inputs], [r[k] for r in results]) for k in range(count)]
        with accelerator(program, precision="fp32") as mlip:
            start, start_cpu = time.perf_counter(), time.process_time()
            for run in runs:
                run(mlip)
            seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
        return seconds, cpu_seconds, {t.name: r for t, r in zip(bundle.outputs, results)}


def profile(bundle_path: Path, inputs: dict[str, np.ndarray], repeat: int, path: Path) -> dict[str, float]:
    """Profile the bundle on `inputs` into `path` (what `mrvl-run --profile --profile-out` writes);
    each host kernel's time a run, by label."""
    _, times = profile_bundle(bundle_path, inputs, repeat=repeat, precision="fp32")
    with open_bundle(bundle_path) as bundle:
        document = profile_document(bundle, times, repeat)
    write_atomically(path, json.dumps(document, indent=1).encode() + b"\n")
    return {t.label: t.seconds for t in times}


def stage_shares(archive: Path, measured: dict[str, float]) -> list[tuple[float, float]]:
    """Each stage's estimate (pipeline.json) and its kernels' share of the profiled time of the whole."""
    with tarfile.open(archive) as members:
        estimates = [s["estimate"]["seconds"] for s in json.load(members.extractfile(PIPELINE_FILE))["stages"]]
    with open_pipeline(archive) as stages:
        labels = [[op["label"] for op in json.loads((s.bundle.path / "report.json").read_text())["estimate"]["host_ops"]]
                  for s in stages]
    total = sum(measured.values())
    return [(e, sum(measured.get(label, 0.0) for label in ls) / total) for e, ls in zip(estimates, labels)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="resnet50", help="a model of benchmarks/cnn_models.py, or an .onnx file")
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--cuts", help="tensors ending each stage but the last, comma-separated")
    parser.add_argument("--frames", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3, help="pairs of runs, single bundle then pipeline (3)")
    parser.add_argument("--offload", action="store_true", help="compile with MLIP subgraphs (run on the simulator)")
    parser.add_argument("--assumed-rates", action="store_true",
                        help="split on the target's assumed host rates, not on this machine's profile")
    parser.add_argument("--rebalance", action="store_true",
                        help="cut again on a profile of the first cut's pipeline run (its kernels beside each other)")
    parser.add_argument("--profile-repeat", type=int, default=10, help="runs the profile averages over (10)")
    parser.add_argument("--target-file", help="the cost model's target description (mrvl-compile --target-file)")
    parser.add_argument("--out", type=Path, help="keep the bundles here (default: a temporary folder)")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pipeline-bench-") as tmp:
        out = options.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        model_path = Path(options.model) if options.model.endswith(".onnx") else out / f"{options.model}.onnx"
        if not model_path.is_file():
            onnx.save(cnn_models.MODELS[options.model](), model_path)
        model = onnx.load(str(model_path), load_external_data=False)
        rng = np.random.default_rng(0)
        frames = {i.name: rng.standard_normal((options.frames, *(d.dim_value for d in i.type.tensor_type.shape.dim)))
                  .astype(np.float32) for i in model.graph.input}

        whole = compile_model(model_path, out / "whole.tar", offload=options.offload, target_file=options.target_file)
        profile_path = out / "profile.json"
        measured = profile(whole.output, {name: a[0] for name, a in frames.items()}, options.profile_repeat,
                           profile_path)
        cuts = options.cuts.split(",") if options.cuts else []
        archive = compile_model(model_path, out / "pipeline.tar", offload=options.offload,
                                pipeline_stages=0 if cuts else options.stages, stage_cuts=cuts,
                                target_file=options.target_file,
                                host_profile=None if options.assumed_rates else profile_path).output
        if options.rebalance and not cuts:
            first = run_pipeline(archive, options.frames, frames, threads=1, precision="fp32", profile=True)
            assert first.profiles is not None
            with open_pipeline(archive) as stages:
                document = pipeline_profile_document("pipeline", stages, first.profiles, options.frames - 1)
            profile_path = out / "pipeline-profile.json"
            write_atomically(profile_path, json.dumps(document, indent=1).encode() + b"\n")
            measured = {t.label: t.seconds for times in first.profiles for t in times}
            archive = compile_model(model_path, out / "rebalanced.tar", offload=options.offload,
                                    pipeline_stages=options.stages, target_file=options.target_file,
                                    host_profile=profile_path).output
        shares = stage_shares(archive, measured)
        loads, singles, single_cpus, pipelines, same = [os.getloadavg()[0]], [], [], [], True
        for _ in range(options.repeat):
            single_seconds, single_cpu, single_outputs = single_bundle(whole.output, frames, options.frames)
            singles.append(options.frames / single_seconds)
            single_cpus.append(single_cpu)
            pipelines.append(run_pipeline(archive, options.frames, frames, threads=1, precision="fp32"))
            same &= all(np.array_equal(single_outputs[name], a) for name, a in pipelines[-1].outputs.items())
            loads.append(os.getloadavg()[0])

    single_fps = statistics.median(singles)
    pipeline = sorted(pipelines, key=lambda p: p.frames_per_second)[len(pipelines) // 2]
    split = ("after " + ", ".join(cuts) if cuts else "by mrvl-compile --stages on " + (
        "the first cut's pipeline profile" if options.rebalance else
        "assumed host rates" if options.assumed_rates else "this profile"))
    print(f"{model_path.stem}, {'partitioned' if options.offload else 'all-host'}, {options.frames} frames, "
          f"median of {options.repeat}; cuts {split}")
    for index, (estimate, share) in enumerate(shares):
        print(f"  stage {index}: estimated {duration(estimate)}, {share:.1%} of the profiled host time")
    stages = len(pipeline.stages)
    print(f"  {'single bundle, 1 thread:':<28}{single_fps:8.2f} frames/s")
    print(f"  {f'{stages} stages, {stages} MPI ranks:':<28}{pipeline.frames_per_second:8.2f} frames/s"
          f"  ({pipeline.frames_per_second / single_fps:.2f}x)")
    for index, stage in enumerate(pipeline.stages):
        per_frame = 1e3 / options.frames
        print(f"    stage {index}: busy {stage.busy:6.1%}, its compute {stage.compute_cpu_seconds / stage.compute_seconds:6.1%} "
              f"on the CPU; a frame: waiting {stage.waiting_inputs_seconds * per_frame:.2f} ms for inputs, "
              f"{stage.waiting_outputs_seconds * per_frame:.2f} ms to send, {stage.overhead_seconds * per_frame:.3f} ms "
              "in the loop")
    # What an idle machine would give, less the waits: the CPU time of the single bundle's frames
    # against the slowest stage's.
    cpu_ratio = statistics.median(single_cpus) / max(stage.compute_cpu_seconds for stage in pipeline.stages)
    print(f"  on the CPU time alone (compute, not waits or other processes): {cpu_ratio:.2f}x")
    print(f"  each run (single, pipeline): "
          + ", ".join(f"{s:.2f} {p.frames_per_second:.2f}" for s, p in zip(singles, pipelines)))
    print(f"  outputs of every frame bit-identical: {'yes' if same else 'NO'}")
    print(f"  machine: {machine()}; 1-minute load average {', '.join(f'{x:.2f}' for x in loads)} "
          "(before and after each pair: the cores are shared)")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
