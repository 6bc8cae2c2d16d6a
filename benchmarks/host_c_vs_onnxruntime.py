"""Run time of the all-host C against onnxruntime, on the same number of threads.

    python benchmarks/host_c_vs_onnxruntime.py [--repeat N] [--threads N] [--clock wall|cpu] [--models NAME ...]
        [--baseline] [--x86-64-v3] [--onnxruntime-avx2]

The models are the architectures of benchmarks/cnn_models.py (shapes unlike the zoo's) and
the zoo's own (`--models zoo` for those only, `--models all` for both; default: the wide set).
Each is compiled with `mrvl-pipeline{offload=false},mrvl-host-pipeline -t c` and built with its
generated Makefile as it stands (-O3 with ARCH_FLAGS=-march=native: this machine's vector units, as
onnxruntime's MLAS picks at run time); `--baseline` also builds it with `ARCH_FLAGS=` (the
compiler's baseline ISA, SSE2 on x86-64), `--x86-64-v3` with `ARCH_FLAGS=-march=x86-64-v3`
(AVX2 and FMA: an AVX2 machine's build on an AVX-512 one, where onnxruntime keeps AVX-512, so
that ratio is pessimistic). `--onnxruntime-avx2` runs the benchmark again with
benchmarks/cpuid_avx2.c preloaded: this process's CPUID then describes an AVX2 machine (no
AVX-512, AVX-VNNI or AMX; Linux's CPUID faulting), so onnxruntime's MLAS picks the kernels it
runs on an AVX2-only processor; with `--x86-64-v3` both sides run as on an AVX2 machine of this
one's clock and caches. The C `<model>_run` is called through ctypes on one
preallocated workspace; onnxruntime runs the same ONNX file in an InferenceSession with
intra_op_num_threads=N, inter_op_num_threads=1 and sequential execution, and the C is
generated with `host_threads=N` when N > 1. Both outputs are compared with mrvl.numerics
before timing, so a wrong build fails here instead of looking fast. A time is the median over
the samples of the mean of enough back-to-back runs to fill a few milliseconds; the samples of
onnxruntime and of the C alternate, so a change in the machine's load hits both. The table ends
with the geometric mean of the ratios and the machine (processor and widest vector
extension: figures of different ISAs do not compare). Target (issue 17): geometric mean <=
1.0x, no model above 1.3x.
"""

import argparse
import ctypes
import hashlib
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "examples"), str(ROOT / "test")]

import cnn_models  # noqa: E402
import zoo  # noqa: E402
from checkouts import machine  # noqa: E402
from ir_helpers import ZOO_INPUT_SHAPES  # noqa: E402

from mrvl.numerics import compare  # noqa: E402
from mrvl.opt import main as mrvl_opt  # noqa: E402

ZOO_MODELS = ["resnet_small", "mobilenet_small", "transformer_block", "resnet50_sized"]
BUILDERS = {**{name: zoo.ZOO[name] for name in ZOO_MODELS}, **cnn_models.MODELS}
GROUPS = {"wide": list(cnn_models.MODELS), "zoo": ZOO_MODELS, "all": list(BUILDERS)}
TARGET_MEAN, TARGET_MAX = 1.0, 1.3
SAMPLE_SECONDS = 0.005
CPUID_AVX2 = Path(__file__).resolve().with_name("cpuid_avx2.c")


def cpuid_masked() -> bool:
    """Whether benchmarks/cpuid_avx2.c is preloaded into this process (an error if it is but
    could not mask CPUID)."""
    try:
        masked = ctypes.CDLL(None).mrvl_cpuid_masked()
    except AttributeError:
        return False
    if not masked:
        raise SystemExit("error: --onnxruntime-avx2: no CPUID faulting here (it needs Linux on x86-64 with the "
                         "cpuid_fault flag)")
    return True


def rerun_with_avx2_cpuid(argv: list[str], script: Path = Path(__file__)) -> None:
    """Run `script` (this benchmark) again, in this process, with benchmarks/cpuid_avx2.c
    preloaded (built once into the temporary folder)."""
    digest = hashlib.sha256(CPUID_AVX2.read_bytes()).hexdigest()[:12]
    library = Path(tempfile.gettempdir()) / f"mrvl-cpuid-avx2-{digest}.so"
    if not library.exists():
        partial = library.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(partial), str(CPUID_AVX2)], check=True)
        partial.replace(library)
    before = os.environ.get("LD_PRELOAD", "")
    os.execve(sys.executable, [sys.executable, str(script.resolve()), *argv],
              dict(os.environ, LD_PRELOAD=" ".join(filter(None, [str(library), before])),
                   MRVL_CPUID_AVX2_PRELOAD=before))


def build(model_path: Path, name: str, shapes: dict[str, list[int]], out: Path, arch_flags: str | None,
          threads: int = 1, profile: bool = False) -> Path:
    """The model's all-host C library, built in `out`; with per-op timing when `profile`
    (`make PROFILE=1`)."""
    target = f"c{{model={name}" + (f" host_threads={threads}" if threads > 1 else "") + "}"
    args = [str(model_path), "-p", "mrvl-pipeline{offload=false},mrvl-host-pipeline", "-t", target, "-o", str(out)]
    for input_name, dims in shapes.items():
        args += ["--input-shape", f"{input_name}={'x'.join(map(str, dims))}"]
    if mrvl_opt(args) != 0:
        raise SystemExit(f"error: mrvl-opt failed on {model_path}")
    make = ["make", "-s", "-C", str(out), f"lib{name}.so", *(["PROFILE=1"] if profile else [])]
    if arch_flags is not None:
        make.append(f"ARCH_FLAGS={arch_flags}")
    subprocess.run(make, check=True)
    return out / f"lib{name}.so"


class CModel:
    """A built bundle, called through ctypes with buffers set up once."""

    def __init__(self, directory: Path, name: str, inputs: dict[str, np.ndarray]):
        self.lib = ctypes.CDLL(str(directory / f"lib{name}.so"))
        header = (directory / f"{name}.h").read_text()
        macros = dict(re.findall(r"#define (\w+) (.+?)(?: /\*.*)?$", header, re.M))
        M = name.upper()
        if self.lib[f"{name}_load_weights"](str(directory / f"{name}_weights.bin").encode()) != 0:
            raise SystemExit(f"error: {name}: the weights did not load")
        ins = [np.ascontiguousarray(inputs[macros[f"{M}_INPUT_{i}_NAME"].strip('"')], np.float32)
               for i in range(int(macros[f"{M}_NUM_INPUTS"]))]
        self.outputs = [np.zeros([int(d) for d in re.findall(r"\d+", macros[f"{M}_OUTPUT_{i}_SHAPE"])], np.float32)
                        for i in range(int(macros[f"{M}_NUM_OUTPUTS"]))]
        size, align = int(macros[f"{M}_WORKSPACE_BYTES"]), int(macros[f"{M}_WORKSPACE_ALIGN"])
        self.raw = np.zeros(size + align, np.uint8)
        workspace = self.raw.ctypes.data + (-self.raw.ctypes.data % align)
        self.keep = ins
        self.args = ((ctypes.c_void_p * max(len(ins), 1))(*[a.ctypes.data for a in ins]),
                     (ctypes.c_void_p * max(len(self.outputs), 1))(*[a.ctypes.data for a in self.outputs]),
                     ctypes.c_void_p(workspace))
        self.fn = self.lib[f"{name}_run"]

    def __call__(self) -> None:
        if self.fn(*self.args) != 0:
            raise SystemExit("error: the C run failed")


CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}
"""wall: elapsed time; cpu: the calling thread's CPU time, which other processes' load on a
shared machine hardly moves (one thread only: onnxruntime with one intra-op thread and the C
both run on the calling thread)."""


def median_seconds(runs: list, repeat: int, clock=time.perf_counter) -> list[float]:
    """The median time of each of `runs` by `clock`, their samples interleaved."""
    counts = []
    for run in runs:
        run()
        start, count = clock(), 0
        while clock() - start < SAMPLE_SECONDS:
            run()
            count += 1
        counts.append(count)
    samples: list[list[float]] = [[] for _ in runs]
    for _ in range(repeat):
        for run, count, times in zip(runs, counts, samples):
            start = clock()
            for _ in range(count):
                run()
            times.append((clock() - start) / count)
    return [statistics.median(times) for times in samples]


def onnxruntime_session(path: Path, threads: int, profile_prefix: str | None = None) -> ort.InferenceSession:
    """A session on `threads` intra-op threads; profiling each node into a JSON file named
    after `profile_prefix` when given (`end_profiling` returns its path)."""
    options = ort.SessionOptions()
    if profile_prefix is not None:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # onnxruntime's workers spin after each run; interleaved with the C's samples they would
    # take the cores the C's threads need.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="samples per timing (median)")
    parser.add_argument("--threads", type=int, default=1, help="C host threads and onnxruntime intra-op threads")
    parser.add_argument("--models", nargs="+", default=["wide"], choices=[*GROUPS, *BUILDERS],
                        help="models, or a group: wide (benchmarks/cnn_models.py), zoo, all")
    parser.add_argument("--baseline", action="store_true", help="also build with ARCH_FLAGS= (baseline ISA)")
    parser.add_argument("--x86-64-v3", action="store_true", help="also build with ARCH_FLAGS=-march=x86-64-v3 (AVX2, FMA)")
    parser.add_argument("--clock", choices=CLOCKS, default="wall",
                        help="wall (default) or cpu: the calling thread's CPU time (1 thread only)")
    parser.add_argument("--onnxruntime-avx2", action="store_true",
                        help="onnxruntime on the kernels it picks on an AVX2 machine (CPUID masked)")
    args = parser.parse_args(argv)
    if args.clock == "cpu" and args.threads != 1:
        parser.error("--clock cpu measures one thread: use it with --threads 1")
    if args.onnxruntime_avx2 and not cpuid_masked():
        rerun_with_avx2_cpuid(sys.argv[1:] if argv is None else argv)
    names = [n for m in args.models for n in GROUPS.get(m, [m])]

    builds = [("native", None)]
    if args.baseline:
        builds.append(("baseline", ""))
    if args.x86_64_v3:
        builds.append(("x86-64-v3", "-march=x86-64-v3"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            path = Path(tmp) / f"{name}.onnx"
            onnx.save(BUILDERS[name](), path)
            shapes = ZOO_INPUT_SHAPES.get(name, {}) if name in ZOO_MODELS else {}
            session = onnxruntime_session(path, args.threads)
            rng = np.random.default_rng(0)
            inputs = {}
            for i in session.get_inputs():
                dims = shapes.get(i.name) or i.shape
                inputs[i.name] = rng.standard_normal(dims).astype(np.float32)
            expected = session.run(None, inputs)
            models = []
            for label, arch_flags in builds:
                out = Path(tmp) / f"{name}-{label}"
                build(path, name, shapes, out, arch_flags, args.threads)
                model = CModel(out, name, inputs)
                model()
                for got, want in zip(model.outputs, expected):
                    if not (result := compare(got, want.reshape(got.shape))).ok:
                        raise SystemExit(f"error: {name} ({label}): {result.describe()}")
                models.append(model)
            ort_s, *c_times = median_seconds([lambda: session.run(None, inputs), *models], args.repeat,
                                             CLOCKS[args.clock])
            rows.append([name, ort_s, *c_times])
            print(f"{name}: {ort_s * 1e3:.3f} ms onnxruntime, C " + ", ".join(f"{t / ort_s:.2f}x" for t in c_times),
                  file=sys.stderr, flush=True)

    head = f"{'model':<20} {'onnxruntime':>12}" + "".join(f" {label + ' C':>14} {'ratio':>6}" for label, _ in builds)
    print(head)
    for name, ort_s, *c_times in rows:
        line = f"{name:<20} {ort_s * 1e3:>9.3f} ms"
        line += "".join(f" {t * 1e3:>11.3f} ms {t / ort_s:>5.2f}x" for t in c_times)
        print(line)
    means = [math.exp(statistics.fmean(math.log(row[2 + b] / row[1]) for row in rows)) for b in range(len(builds))]
    print(f"{'geometric mean':<35}" + "".join(f" {'':>14} {m:>5.2f}x" for m in means))
    seen = "; onnxruntime's CPUID masked to AVX2" if args.onnxruntime_avx2 else ""
    print(f"({machine()}{seen}; {args.threads} thread(s) each; {args.clock} clock; median of {args.repeat}; "
          f"ratio = C time / onnxruntime time; target: geometric mean <= {TARGET_MEAN}x, every model <= {TARGET_MAX}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
