"""End-to-end `mrvl-compile` of the ResNet-50-sized zoo model: time and peak memory.

    python benchmarks/compile_resnet50.py [--repeat N] [--against REF] [--clock wall|cpu]

Two measurements, each run in a fresh interpreter:

- the `mrvl-compile` command, wall clock from process start to exit (Python start-up,
  imports, import of the model, pipeline, JSON, C, reports, the .tar); with `--clock cpu`
  the CPU time (user and system) of that process instead, which other processes on a busy
  machine disturb less;
- `compile_model` in-process with its stage timing, and the peak RSS during it minus the RSS
  just before (Python and the compiler loaded): "extra memory". Linux only (it reads and
  resets /proc/self peak RSS).

`--against REF` times the command of the compiler at git ref REF too, the two taking turns
in the same run (`checkouts.py`), and reports the ratio.

Targets: at most 2.5x the weight bytes of extra memory (issue 6); process start to exit at
most 0.6x of main before issue 28 (`--against 840c1df`).
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "benchmarks")]

from checkouts import Versions, machine  # noqa: E402

COMMAND = "import sys; from mrvl.compile import main; sys.exit(main())"
"""`mrvl-compile` as its console script runs it."""

MEASURE = r"""
import json, sys
from mrvl.compile import Stages, compile_model
from mrvl.timing import Timing
from rss import reset_peak, status

baseline = reset_peak()
timing = Timing()
result = compile_model(sys.argv[1], sys.argv[2], stages=Stages(timing))
total = timing.total
print(json.dumps({
    "seconds": total, "extra_bytes": status("VmHWM") - baseline,
    "stages": [[name, depth, seconds] for name, depth, seconds in timing.stages],
}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the best time is reported")
    parser.add_argument("--against", metavar="REF", help="also time the compiler at this git ref, for a ratio")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the command by the wall clock or by its process's CPU time")
    args = parser.parse_args(argv)
    import onnx
    import zoo

    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp, "resnet50_sized.onnx")
        onnx.save_model(zoo.resnet50_sized(), model)
        weight_bytes = sum(init.ByteSize() for init in onnx.load(model).graph.initializer)
        versions = Versions(args.against)

        def command(version: str, i: int) -> float:
            begin, cpu = time.perf_counter(), _children_cpu()
            versions.run(version, COMMAND, str(model), "-o", str(Path(tmp, f"cli{i}.tar")))
            return _children_cpu() - cpu if args.clock == "cpu" else time.perf_counter() - begin

        try:
            commands = versions.alternate(args.repeat, command)
        finally:
            versions.close()
        runs = [
            json.loads(subprocess.run(
                [sys.executable, "-c", MEASURE, str(model), str(Path(tmp, f"api{i}.tar"))], check=True,
                capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": f"{ROOT}:{ROOT / 'benchmarks'}"},
            ).stdout)
            for i in range(args.repeat)
        ]
        archive = Path(tmp, "cli0.tar").stat().st_size
    best = min(runs, key=lambda r: r["seconds"])
    worst_memory = max(r["extra_bytes"] for r in runs)
    print(f"machine           {machine()}")
    print(f"model             resnet50_sized, {weight_bytes / 2**20:.1f} MiB of weights in the ONNX file")
    for version, seconds in commands.items():
        print(f"mrvl-compile      {min(seconds):.2f} s {'CPU' if args.clock == 'cpu' else 'wall clock'}, "
              f"process start to exit, {version} "
              f"(best of {len(seconds)})")
    if args.against:
        print(f"this / {args.against}   {min(commands['this']) / min(commands[args.against]):.2f}x "
              "(target: at most 0.6x of main before issue 28)")
    print(f"compile_model     {best['seconds']:.2f} s in-process (best of {len(runs)})")
    for name, depth, seconds in best["stages"]:
        print(f"  {'  ' * depth}{name:<{22 - 2 * depth}}{seconds:.3f} s")
    print(f"extra memory      {worst_memory / 2**20:.1f} MiB = {worst_memory / weight_bytes:.2f}x the weight bytes "
          "(worst run; target <= 2.5x)")
    print(f"bundle            {archive / 2**20:.1f} MiB .tar")
    return 0


def _children_cpu() -> float:
    """The user and system CPU seconds of the child processes waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
