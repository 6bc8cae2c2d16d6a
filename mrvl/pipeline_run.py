"""`mrvl-run` of a pipeline archive: one stage per MPI rank, frames streaming through.

    mrvl-run NAME.tar --frames F [--np N] [--hostfile H] [--inputs X.npz] [--outputs Y.npz] [--threads N]
                      [--profile [--profile-out profile.json]]

A pipeline archive (`mrvl-compile --stages N`) holds `pipeline.json` and one complete bundle
per stage; stage k takes exactly what stage k-1 sends (a tensor that skips a stage passes
through it). This process checks that, builds every stage's host C (the cache of
`mrvl/run.py`, so the ranks find it built and do not race to compile), then starts `mpirun -np
N python -m mrvl.pipeline_rank RUN_DIR`, where rank r runs stage r over the F frames
(`mrvl/pipeline_rank.py`). It waits for mpirun, keeps mpirun's own output out of sight (on
failure in `NAME.tar.mpirun.log` beside the archive) and prints the frames per second, each
stage's busy time and the outputs.

The ranks read the stage bundles where this process unpacked them, and share with it
RUN_DIR: the run's options (`launch.json`) and inputs, each rank's current frame
(`progress.bin`, so the error line of a killed rank can name it), and what the ranks leave:
`report.json` and, without `--outputs`, `outputs.npz` from the last rank, `error-<rank>.json`
from a rank that failed. All are temporary folders under `TMPDIR`: with `--hostfile`, every host must see it at
the same path (a shared file system), and have the same Python environment.

`--profile` runs each stage's profiling build and prints each stage's ops by their time a
frame, over the frames after the first: the kernels as they run beside the other stages,
sharing the caches, memory and cores with them, which a bundle profiled alone does not show.
`--profile-out` writes that as one profile (each op with its stage), which `mrvl-compile
--stages N --host-profile` takes to cut the stages again on those times.

A stage that fails stops the whole pipeline (the rank calls MPI_Abort; a rank killed by a
signal makes mpirun end the others), and this reports it in one `error:` line naming the stage
and the frame.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mrvl.backend.bundle import METADATA_FILE
from mrvl.backend.pipeline_bundle import PIPELINE_FILE, PIPELINE_FORMAT, PIPELINE_VERSION
from mrvl.run import (Bundle, OpTime, Tensor, build, describe_array, fill_inputs, load_arrays, numpy_dtype,
                      open_bundle, profile_header, profile_ops, profile_summary, profile_table, report_error,
                      summarize_profile, summary_table)
from mrvl.target.cost_model import duration
from mrvl_dialect.errors import CompileError
from mrvl_dialect.files import write_atomically

LAUNCH_FILE, PROGRESS_FILE, REPORT_FILE, OUTPUTS_FILE = "launch.json", "progress.bin", "report.json", "outputs.npz"
RANK_MODULE = "mrvl.pipeline_rank"
FAULT_VARIABLE = "MRVL_PIPELINE_FAULT"
"""`STAGE:FRAME:raise|kill` makes that stage fail at that frame (mrvl/pipeline_rank.py), for tests."""
MPIRUN_MISSING = "mpirun not found: install Open MPI (Debian: openmpi-bin)"
MPI4PY_MISSING = "mpi4py not installed: pip install 'mrvl-xdsl[pipeline]'"
PASSED_ENVIRONMENT = ("MRVL_CACHE_DIR", "CFLAGS", "ARCH_FLAGS")
"""What the build cache's key reads from the environment, sent to ranks on other hosts too."""
KILLED = re.compile(r"process rank (\d+) with PID \d+ on node \S+ exited on signal (\d+)")
"""How mpirun reports a rank a signal ended."""


def error_file(rank: int) -> str:
    return f"error-{rank}.json"


@dataclass(frozen=True)
class Stage:
    index: int
    bundle: Bundle
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]


def is_pipeline(path: str | Path) -> bool:
    """Whether `path` is a pipeline archive: a folder or a tar with `pipeline.json` at its top."""
    path = Path(path)
    if path.is_dir():
        return (path / PIPELINE_FILE).is_file()
    try:
        with tarfile.open(path) as archive:
            return any(name == PIPELINE_FILE for name in archive.getnames())
    except (tarfile.TarError, OSError):
        return False


def _tensors(entries: list[dict]) -> tuple[Tensor, ...]:
    return tuple(Tensor(e["name"], numpy_dtype(e["dtype"]), tuple(int(d) for d in e["shape"])) for e in entries)


def read_stages(root: Path, stack: ExitStack) -> list[Stage]:
    """The stages of the pipeline archive unpacked at `root`, each bundle opened for as long
    as `stack`, checked against `pipeline.json` and against each other: stage k takes exactly
    what stage k-1 sends."""
    try:
        manifest = json.loads((root / PIPELINE_FILE).read_text(encoding="utf-8"))
        if (manifest.get("format"), manifest.get("version")) != (PIPELINE_FORMAT, PIPELINE_VERSION):
            raise CompileError(PIPELINE_FILE, f"format {manifest.get('format')!r} version {manifest.get('version')!r}, "
                               f"expected {PIPELINE_FORMAT!r} version {PIPELINE_VERSION}")
        model_inputs, model_outputs = _tensors(manifest["inputs"]), _tensors(manifest["outputs"])
        entries = manifest["stages"]
        stages = []
        for index, entry in enumerate(entries):
            if entry["stage"] != index:
                raise CompileError(PIPELINE_FILE, f"stage {entry['stage']} listed at position {index}")
            bundle_path = root / entry["bundle"]
            if not bundle_path.resolve().is_relative_to(root.resolve()):
                raise CompileError(PIPELINE_FILE, f"stage {index}'s bundle {entry['bundle']!r} is outside the archive")
            bundle = stack.enter_context(open_bundle(bundle_path))
            stages.append(Stage(index, bundle, _tensors(entry["inputs"]), _tensors(entry["outputs"])))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise CompileError(PIPELINE_FILE, f"malformed: {type(e).__name__}: {e}") from None
    if not stages:
        raise CompileError(PIPELINE_FILE, "lists no stages")
    for stage in stages:
        where = f"stage {stage.index}"
        if (list(stage.inputs), list(stage.outputs)) != (stage.bundle.inputs, stage.bundle.outputs):
            raise CompileError(where, f"its bundle's inputs and outputs ({METADATA_FILE}) differ from {PIPELINE_FILE}'s")
    for sent, taken, where in [(model_inputs, stages[0].inputs, "stage 0's inputs"),
                               (stages[-1].outputs, model_outputs, "the model's outputs")] + [
            (a.outputs, b.inputs, f"stage {b.index}'s inputs") for a, b in zip(stages, stages[1:])]:
        if sorted(sent, key=lambda t: t.name) != sorted(taken, key=lambda t: t.name):
            names = ", ".join(sorted({t.name for t in sent} ^ {t.name for t in taken})) or "shapes or dtypes"
            raise CompileError(PIPELINE_FILE, f"{where} are not what comes before them (differ in: {names})")
    return stages


@contextmanager
def open_pipeline(path: Path) -> Iterator[list[Stage]]:
    """The stages of the pipeline archive at `path` (a folder or a tar), unpacked into
    temporary folders while the context lasts."""
    with ExitStack() as stack:
        root = path
        if not path.is_dir():
            root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mrvl-pipeline-")))
            try:
                with tarfile.open(path) as archive:
                    archive.extractall(root, filter="data")
            except (tarfile.TarError, OSError) as e:
                raise CompileError("", f"not a readable pipeline archive: {e}") from None
        yield read_stages(root, stack)


@dataclass(frozen=True)
class StageTime:
    """Where a rank's time went, from the first frame to its last send: computing (wall
    clock, and the CPU time of those calls: less when other processes take the core),
    waiting for its inputs, waiting for the next stage to take its outputs, and the rest,
    the loop's own work (`overhead_seconds`)."""

    compute_seconds: float
    compute_cpu_seconds: float
    waiting_inputs_seconds: float
    waiting_outputs_seconds: float
    wall_seconds: float

    @property
    def busy(self) -> float:
        return self.compute_seconds / self.wall_seconds if self.wall_seconds else 0.0

    @property
    def overhead_seconds(self) -> float:
        return self.wall_seconds - self.compute_seconds - self.waiting_inputs_seconds - self.waiting_outputs_seconds


@dataclass(frozen=True)
class PipelineRun:
    """What a run measured, and the outputs (each with a leading axis of frames)."""

    frames: int
    seconds: float
    """From the start of the first frame to the last frame's outputs, at the last rank."""
    stages: list[StageTime]
    outputs: dict[str, np.ndarray]
    profiles: list[list[OpTime]] | None = None
    """With `profile`: each stage's ops and their time a frame, over the frames after the first."""

    @property
    def frames_per_second(self) -> float:
        return self.frames / self.seconds


def _frame_inputs(stage: Stage, inputs: dict[str, np.ndarray], frames: int) -> None:
    """Checks that `inputs` has each of the stage's inputs, of its shape (used for every
    frame) or with a leading axis of `frames`, of a dtype that converts to its own."""
    for t in stage.inputs:
        if t.name not in inputs:
            raise CompileError(f"input '{t.name}'", f"not given (inputs given: {', '.join(sorted(inputs)) or 'none'})")
        array = inputs[t.name]
        if array.shape not in (t.shape, (frames, *t.shape)):
            raise CompileError(f"input '{t.name}'", f"has shape {list(array.shape)}; the pipeline takes "
                               f"{list(t.shape)}, or {[frames, *t.shape]} for a different one each frame")
        if not np.can_cast(array.dtype, t.dtype, "same_kind"):
            raise CompileError(f"input '{t.name}'", f"is {array.dtype}; the pipeline takes {t.dtype}")


def _mpirun_command(ranks: int, hostfile: Path | None, run_dir: Path) -> list[str]:
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise CompileError("", MPIRUN_MISSING)
    # Open MPI finds its installation from the path it was started by: /usr/bin's, not /bin's.
    command = [os.path.realpath(mpirun), "-np", str(ranks)]
    if os.geteuid() == 0:
        command.append("--allow-run-as-root")
    # On this machine alone, more stages than cores still run (slower, each waiting its turn).
    command += ["--hostfile", str(hostfile)] if hostfile else ["--oversubscribe"]
    for name in PASSED_ENVIRONMENT:
        if name in os.environ:
            command += ["-x", name]
    return [*command, sys.executable, "-m", RANK_MODULE, str(run_dir)]


def _failure(run_dir: Path, ranks: int, frames: int, returncode: int, log: str) -> CompileError:
    """The one error of a failed run: a rank's own report, else the rank a signal ended, else mpirun's."""
    for rank in range(ranks):
        path = run_dir / error_file(rank)
        if path.is_file():
            failed = json.loads(path.read_text(encoding="utf-8"))
            return CompileError(_at(failed["stage"], failed["frame"], frames), failed["message"])
    progress = np.fromfile(run_dir / PROGRESS_FILE, np.int64)
    if killed := KILLED.search(log):
        rank, number = int(killed[1]), int(killed[2])
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return CompileError(_at(rank, int(progress[rank]), frames), f"its process was ended by {name}")
    # mpirun's own message: its first paragraph (wrapped over lines, between rules of dashes)
    paragraphs = [" ".join(text.split()).rstrip(":") for text in
                  re.split(r"\n\s*\n|^-+$", log, flags=re.M) if text.strip()]
    return CompileError("mpirun", f"failed (exit status {returncode}){': ' + paragraphs[0] if paragraphs else ''}")


def _at(stage: int, frame: int, frames: int) -> str:
    """Where a stage failed: `frame` is the one it was at, -1 before the first, `frames` after the last."""
    when = "before its first frame" if frame < 0 else "after its last frame" if frame >= frames else f"frame {frame}"
    return f"stage {stage}, {when}"


def run_pipeline(
    archive: str | Path, frames: int, inputs: dict[str, np.ndarray] | None = None, *, ranks: int | None = None,
    hostfile: Path | None = None, cc: str | None = None, threads: int | None = None, precision: str = "fp16",
    simulator: str = "auto", run_mode: str = "sim", fill_mode: str = "random", outputs: Path | None = None,
    log: Path | None = None, profile: bool = False,
) -> PipelineRun:
    """Run the pipeline archive `archive` over `frames` frames under mpirun, `ranks` ranks
    (default and only choice: one per stage). `inputs` by name, each of its input's shape or
    with a leading axis of `frames` (default: filled as `fill_mode` says, as mrvl-run does);
    the last rank writes the outputs to `outputs` (.npz) if given; `log` keeps mpirun's output
    when the run fails; `profile` times each stage's ops (see the module doc). Raises
    `CompileError` on bad input and on a stage that failed."""
    archive = Path(archive)
    if frames < 1:
        raise CompileError("--frames", f"must be at least 1, got {frames}")
    if profile and frames < 2:
        raise CompileError("--profile", f"times the frames after the first: give --frames 2 or more, not {frames}")
    if shutil.which("mpirun") is None:
        raise CompileError("", MPIRUN_MISSING)
    if importlib.util.find_spec("mpi4py") is None:
        raise CompileError("", MPI4PY_MISSING)
    if hostfile is not None and not hostfile.is_file():
        raise CompileError("--hostfile", f"no such file: {hostfile}")
    if outputs is not None and not outputs.parent.is_dir():
        raise CompileError("--outputs", f"cannot write {outputs}: no folder {str(outputs.parent)!r}")
    with open_pipeline(archive) as stages, tempfile.TemporaryDirectory(prefix="mrvl-pipeline-run-") as tmp:
        if ranks is not None and ranks != len(stages):
            raise CompileError("--np", f"is {ranks}; the pipeline has {len(stages)} stages, one rank each")
        inputs = dict(inputs) if inputs is not None else fill_inputs(stages[0].bundle, fill_mode)
        _frame_inputs(stages[0], inputs, frames)
        for stage in stages:
            build(stage.bundle, cc, profile=profile, threads=threads)
        run_dir = Path(tmp)
        np.savez(run_dir / "inputs.npz", **inputs)  # type: ignore[arg-type]
        outputs = (outputs or run_dir / OUTPUTS_FILE).absolute()
        launch = {"stages": [str(s.bundle.path) for s in stages], "frames": frames, "inputs": "inputs.npz",
                  "outputs": str(outputs), "cc": cc, "threads": threads, "precision": precision,
                  "simulator": simulator, "run_mode": run_mode, "profile": profile}
        (run_dir / LAUNCH_FILE).write_text(json.dumps(launch), encoding="utf-8")
        np.full(len(stages), -1, np.int64).tofile(run_dir / PROGRESS_FILE)
        done = subprocess.run(_mpirun_command(len(stages), hostfile, run_dir), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                              check=False)
        if done.returncode != 0 or not (run_dir / REPORT_FILE).is_file():
            error = _failure(run_dir, len(stages), frames, done.returncode, done.stdout)
            if log is not None:
                try:
                    log.write_text(done.stdout, encoding="utf-8")
                except OSError:
                    pass  # the error line matters more than the log
            raise error
        report = json.loads((run_dir / REPORT_FILE).read_text(encoding="utf-8"))
        results = load_arrays(outputs)
    timed = [s.pop("profile") for s in report["stages"]]
    profiles = [[OpTime(i, label, ns / 1e9 / (frames - 1)) for i, (label, ns) in enumerate(ops)]
                for ops in timed] if profile else None
    return PipelineRun(frames, report["seconds"], [StageTime(**s) for s in report["stages"]],
                       {t.name: results[t.name] for t in stages[-1].outputs}, profiles)


def pipeline_profile_document(name: str, stages: list[Stage], profiles: list[list[OpTime]], frames: int) -> dict:
    """A pipeline run's profile as `--profile-out` writes it: every stage's ops (`profile_ops`,
    each with its `stage`) in one list, as `mrvl-compile --host-profile` reads them, and each
    stage's totals; `frames` the frames the times average over."""
    ops = [op | {"stage": stage.index} for stage, times in zip(stages, profiles, strict=True)
           for op in profile_ops(stage.bundle, times)]
    return profile_header(name, frames) | {
        "ops": ops, "summary": {"stages": [profile_summary(s.bundle, t) for s, t in zip(stages, profiles)]}}


def main(options: argparse.Namespace) -> int:
    """`mrvl-run` on a pipeline archive, with mrvl-run's parsed `options`."""
    archive = Path(options.bundle)
    try:
        if options.verify:
            raise CompileError("--verify", "runs a single bundle: give it a stage's bundle, not the pipeline archive")
        if options.repeat is not None:
            raise CompileError("--repeat", "is a single bundle's: a pipeline's profile is over its frames after the first")
        inputs = load_arrays(options.inputs) if options.inputs else None
        result = run_pipeline(archive, options.frames, inputs, ranks=options.np, hostfile=options.hostfile,
                              cc=options.cc, threads=options.threads, precision=options.precision,
                              simulator=options.simulator, run_mode=options.run_mode, fill_mode=options.fill_mode,
                              outputs=options.outputs, log=archive.with_name(f"{archive.name}.mpirun.log"),
                              profile=options.profile)
        print(f"ran {archive.name}: {len(result.stages)} stages on {len(result.stages)} MPI ranks, "
              f"{result.frames} frames in {duration(result.seconds)}: {result.frames_per_second:.2f} frames/s")
        for index, stage in enumerate(result.stages):
            print(f"  stage {index:<3} busy {stage.busy:6.1%}  (computing {duration(stage.compute_seconds)} "
                  f"of {duration(stage.wall_seconds)}, {duration(stage.compute_cpu_seconds)} of it on the CPU; "
                  f"waiting {duration(stage.waiting_inputs_seconds)} for inputs, "
                  f"{duration(stage.waiting_outputs_seconds)} to send)")
        for name, array in result.outputs.items():
            print(describe_array(name, array))
        if result.profiles is not None:
            _print_profiles(archive, result, options.profile_out)
    except (CompileError, OSError) as e:
        return report_error(options.bundle, e)
    return 0


def _print_profiles(archive: Path, result: PipelineRun, out: Path | None) -> None:
    """Each stage's profile and totals (`mrvl-run --profile`'s tables), and the document to `out`."""
    assert result.profiles is not None
    with open_pipeline(archive) as stages:
        for stage, times in zip(stages, result.profiles, strict=True):
            print(f"stage {stage.index} ({stage.bundle.model}):")
            lines = profile_table(times, result.frames - 1) + summary_table(summarize_profile(stage.bundle, times))
            print("\n".join(f"  {line}" for line in lines))
        if out is not None:
            name = archive.name.removesuffix(".tar")
            document = pipeline_profile_document(name, stages, result.profiles, result.frames - 1)
            write_atomically(out, json.dumps(document, indent=1).encode() + b"\n")
