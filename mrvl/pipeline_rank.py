"""One MPI rank of a pipeline run: `mpirun -np N python -m mrvl.pipeline_rank RUN_DIR`.

`mrvl/pipeline_run.py` prepares RUN_DIR and starts the ranks. Rank r loads stage r's bundle as
`mrvl-run` does (its host C from the build cache, its accelerator subgraphs on the reference
simulator or mrvl-mlsim, or on MLIP through libmldpc with `run_mode` hw) and runs it over the
frames: rank 0 reads the inputs, every other rank receives its inputs from rank r-1, every rank
but the last sends its outputs to rank r+1, and the last writes them, a leading axis of frames.

Transfers are persistent MPI requests over two buffers a side, made before the first frame:
the receive of frame k+1 is posted before frame k is computed, and frame k's send is waited
for only before its buffer is written again, at frame k+2. So stage r computes frame k+1
while stage r+1 computes frame k, and no frame allocates a buffer. A message's tag is the
tensor's position in the sender's outputs; MPI keeps the messages of one tag in order. A rank
waits by polling with short sleeps, not in MPI_Waitall, which spins and takes a core from
the stage computing beside it.

Each rank times, for `report.json`, its compute (the wall clock and the process's CPU time
of those calls), its waits for inputs and for its sends, and its whole loop. With `profile`
in the launch file it runs its bundle's profiling build and reports each op's time over the
frames after the first: the kernels timed as they run beside the other stages.

A rank that fails writes `error-<rank>.json` (its stage, frame and message) and calls
MPI_Abort, which ends every rank. `MRVL_PIPELINE_FAULT=STAGE:FRAME:raise|kill` makes a stage
fail at a frame, by an exception or by SIGKILL, to test that.
"""

import json
import math
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
from mpi4py import MPI

from mrvl.pipeline_run import FAULT_VARIABLE, LAUNCH_FILE, PROGRESS_FILE, REPORT_FILE, error_file
from mrvl.run import Bundle, HostProgram, accelerator, build, load_arrays, save_arrays
from mrvl_dialect.errors import CompileError
from mrvl_dialect.files import write_atomically

POLL_SECONDS = 50e-6
"""How long a waiting rank sleeps between polls: little beside a frame's compute."""


def _fault(rank: int) -> tuple[int, str] | None:
    """The frame and kind of the fault `MRVL_PIPELINE_FAULT` asks of this rank's stage, if any."""
    spec = os.environ.get(FAULT_VARIABLE)
    if not spec:
        return None
    stage, frame, kind = spec.split(":")
    return (int(frame), kind) if int(stage) == rank else None


def _wait(requests: list[MPI.Prequest]) -> None:
    """MPI_Waitall without holding a core while it waits (see the module doc)."""
    while not MPI.Request.Testall(requests):
        time.sleep(POLL_SECONDS)


def run_stage(comm: MPI.Intracomm, run_dir: Path, progress: np.ndarray) -> None:
    """Run this rank's stage over the frames (see the module doc), its current frame in `progress`."""
    rank, size = comm.Get_rank(), comm.Get_size()
    first, last = rank == 0, rank == size - 1
    launch = json.loads((run_dir / LAUNCH_FILE).read_text(encoding="utf-8"))
    frames = launch["frames"]
    bundles = [Bundle(Path(p)) for p in launch["stages"]]
    bundle = bundles[rank]
    profile = launch["profile"]
    program = HostProgram(bundle, build(bundle, launch["cc"], profile=profile, threads=launch["threads"]))
    with accelerator(program, launch["run_mode"], launch["precision"], launch["simulator"]) as mlip:
        # Inputs: rank 0's from the file, one set per frame (views) or one for all; the others' two receive buffers.
        if first:
            given = load_arrays(run_dir / launch["inputs"])
            arrays = [np.ascontiguousarray(given[t.name], t.dtype) for t in bundle.inputs]
            per_frame = any(a.shape != t.shape for a, t in zip(arrays, bundle.inputs))
            input_sets = [[a[k] if a.shape != t.shape else a for a, t in zip(arrays, bundle.inputs)]
                          for k in range(frames if per_frame else 1)]
        else:
            input_sets = [[np.empty(t.shape, t.dtype) for t in bundle.inputs] for _ in range(2)]
            sent = [t.name for t in bundles[rank - 1].outputs]
            receives = [[comm.Recv_init(a.reshape(-1).view(np.uint8), rank - 1, sent.index(t.name))
                         for a, t in zip(buffers, bundle.inputs)] for buffers in input_sets]
        # Outputs: the last rank's into the results, a frame each; the others' two send buffers.
        if last:
            results = [np.empty((frames, *t.shape), t.dtype) for t in bundle.outputs]
            output_sets = [[r[k] for r in results] for k in range(frames)]
        else:
            output_sets = [[np.empty(t.shape, t.dtype) for t in bundle.outputs] for _ in range(2)]
            sends = [[comm.Send_init(a.reshape(-1).view(np.uint8), rank + 1, tag) for tag, a in enumerate(buffers)]
                     for buffers in output_sets]
        period = min(frames, math.lcm(len(input_sets), len(output_sets)))
        runs = [program.bind(input_sets[k % len(input_sets)], output_sets[k % len(output_sets)]) for k in range(period)]
        fault = _fault(rank)

        comm.Barrier()
        start = time.perf_counter()
        computing = computing_cpu = waiting_inputs = waiting_outputs = 0.0
        if not first:
            MPI.Prequest.Startall(receives[0])
        for k in range(frames):
            progress[rank] = k
            side = k % 2
            if not first:
                waiting_inputs -= time.perf_counter()
                _wait(receives[side])
                waiting_inputs += time.perf_counter()
                if k + 1 < frames:
                    MPI.Prequest.Startall(receives[1 - side])
            if not last:
                waiting_outputs -= time.perf_counter()
                _wait(sends[side])  # frame k-2's, from this buffer
                waiting_outputs += time.perf_counter()
            if fault is not None and fault[0] == k:
                if fault[1] == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                raise RuntimeError(f"fault injected by {FAULT_VARIABLE}")
            began, began_cpu = time.perf_counter(), time.process_time()
            runs[k % period](mlip)
            computing += time.perf_counter() - began
            computing_cpu += time.process_time() - began_cpu
            if profile and k == 0:
                program.profile_reset()  # the first frame warms up
            if not last:
                MPI.Prequest.Startall(sends[side])
        if not last:
            waiting_outputs -= time.perf_counter()
            _wait(sends[0] + sends[1])
            waiting_outputs += time.perf_counter()
        wall = time.perf_counter() - start
    progress[rank] = frames
    times = comm.gather({"compute_seconds": computing, "compute_cpu_seconds": computing_cpu,
                         "waiting_inputs_seconds": waiting_inputs, "waiting_outputs_seconds": waiting_outputs,
                         "wall_seconds": wall, "profile": program.profile() if profile else None}, root=size - 1)
    if last:
        save_arrays(Path(launch["outputs"]), {t.name: r for t, r in zip(bundle.outputs, results)})
        report = {"seconds": wall, "stages": times}
        write_atomically(run_dir / REPORT_FILE, json.dumps(report).encode())


def main(argv: list[str]) -> int:
    run_dir = Path(argv[0])
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    progress = np.memmap(run_dir / PROGRESS_FILE, np.int64, mode="r+")
    try:
        run_stage(comm, run_dir, progress)
    except Exception as e:  # noqa: BLE001 - any failure of a stage ends the pipeline, reported in one line
        message = str(e) if isinstance(e, CompileError) else f"{type(e).__name__}: {e}"
        failed = {"stage": rank, "frame": int(progress[rank]), "message": message}
        write_atomically(run_dir / error_file(rank), json.dumps(failed).encode())
        comm.Abort(1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
