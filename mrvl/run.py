"""`mrvl-run`: run a compiled bundle on this machine, like `tvmc run`.

    mrvl-run BUNDLE [--inputs in.npz | --fill-mode random] [--outputs out.npz]
             [--verify model.onnx] [--precision fp16|int8|fp32] [--simulator auto|reference|mlsim] [--cc CC]
             [--profile [--repeat N] [--profile-out profile.json]]
    mrvl-run PIPELINE.tar --frames F [--np N] [--hostfile H] [--inputs in.npz] [--outputs out.npz]

BUNDLE is the directory `mrvl-opt ... -t c -o DIR` writes, or a `.tar` of one. Its
`metadata.json` names the inputs, outputs, workspace and accelerator subgraphs.

- The host C is built with the bundle's own Makefile and the system C compiler (`--cc`, else
  `$CC`, else `cc`) into a cache keyed by the sources and compiler, so a bundle is built
  once per machine (`$MRVL_CACHE_DIR`, else `$XDG_CACHE_HOME/mrvl-xdsl`, else
  `~/.cache/mrvl-xdsl`).
- Each `cpu.call_mlip` (each chunk of one in chunks: a batch over MLIP's limit) reaches a
  runner installed through `M_set_mlip` (ctypes): it runs the subgraph's nodes/consts JSON
  on `mrvl-tmlc` + `mrvl-mlsim` when both are on PATH and the precision is fp16 (compiled
  for the tiles and options of its line in `tmlc-commands.txt`), on the reference simulator
  (`backend/mlip_simulator.py`) otherwise, in the arithmetic the subgraphs were compiled for
  (`quantize`: fp16 or int8), or in fp32 with `--precision fp32` (another is refused).
- `--verify model.onnx` runs onnxruntime (the `verify` extra) on the same inputs and prints
  each output's error relative to its largest magnitude; outputs off by more than the
  tolerance (`mrvl/numerics.py`: 1e-4 of scale in float32, 3% with accelerator subgraphs
  in fp16, 3 quantization steps of a QDQ model's output in int8) make the run fail.

- `--profile` builds the host C with per-op timing compiled in (`make PROFILE=1`, a build of
  its own in the cache), runs the model once to warm up and then `--repeat` times (20), and
  prints each op's mean time per run, slowest first, with the ONNX nodes it computes, as
  `tvmc run --profile` does; an accelerator call's time is the simulator's. Then the host
  time by kind (`host_kind`: layout transposes, element-wise ops, concat/split/slice and
  other copies, other kernels) beside the cost model's estimate of the same ops, each
  subgraph's estimated call, and the end-to-end estimate: the host time measured here plus
  the MLIP time estimated (`summarize_profile`; the estimates are the bundle's `report.json`).
  `--profile-out FILE` also writes it as JSON (`profile_document`): each op's time with the
  work the bundle's `report.json` estimated for it, what `mrvl-compile --host-profile FILE`
  calibrates the host's rates with, and the totals.
- `--threads N` builds the host C with its kernels over N threads (`make HOST_THREADS=N`;
  default: the bundle's, `mrvl-compile --host-threads`); the outputs are the same bits.

- A pipeline archive (`pipeline.json` at its top: `mrvl-compile --stages`) runs under `mpirun`,
  a stage a rank, over `--frames F` (`--np`, `--hostfile`): `mrvl/pipeline_run.py`.

`run_bundle(bundle, inputs)` is the same run from Python, `profile_bundle` the profile.
"""

import argparse
import ctypes
import hashlib
import importlib.util
import io
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from mrvl.backend.bundle import METADATA_FILE, METADATA_FORMAT
from mrvl.backend.mlip_simulator import PRECISIONS, load, load_quant, run_subgraph, simulate, uses_mlsim
from mrvl.backend.tmlc import COMMANDS_FILE, subgraph_targets
from mrvl.numerics import FP16_LAYERS, Comparison, compare
from mrvl.target.cost_model import CALL, PROFILE_FORMAT, PROFILE_VERSION, duration
from mrvl_dialect.errors import CompileError
from mrvl_dialect.files import write_atomically
from mrvl_dialect.locations import COMPILER_INSERTED
from mrvl.target.options import DEFAULT_TARGET, TargetOptions

RUN_MODES = TargetOptions.values("run_mode")
"""`--run-mode`, as TVM's mrvl target: accelerator subgraphs on a simulator, or on MLIP."""
SIMULATORS = {"auto": "auto", "reference": False, "mlsim": True}
"""`--simulator` choices, as `run_subgraph`'s `use_mlsim`."""
BUILD_SOURCES = (".c", ".h")
MLIP_RUN_FN = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)
)
"""`mrvl_mlip_run_fn` of mrvl_mlip.h."""
RUN_ERRORS = {
    -1: "bad argument", -2: "misaligned workspace", -3: "no weights loaded", -4: "weights file does not match",
    -5: "no accelerator runner", -6: "accelerator subgraph failed", -7: "a Gather index out of range",
    -8: "a sequence_lens value outside [0, seq_length]",
}
"""The `MRVL_ERR_*` codes of mrvl_kernels.h, for messages."""
MRVL_ERR_MLIP = -6


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype of a tensor's dtype as `metadata.json` names it."""
    # numpy has no bfloat16: its bits travel as uint16.
    return np.dtype(np.uint16) if name == "bfloat16" else np.dtype("bool" if name == "bool" else name)


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: np.dtype
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Subgraph:
    symbol: str
    nodes: Path
    consts: Path
    inputs: tuple[tuple[int, ...], ...]
    outputs: tuple[tuple[int, ...], ...]
    target: TargetOptions | None
    """What mrvl-tmlc compiles it for, from the bundle's `tmlc-commands.txt` (None if absent)."""


class Bundle:
    """A bundle directory and its `metadata.json`."""

    def __init__(self, path: Path):
        self.path = path
        meta_path = path / METADATA_FILE
        if not meta_path.is_file():
            raise CompileError(METADATA_FILE, "missing: not a bundle written by mrvl-opt -t c or mrvl-compile")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            if meta.get("format") != METADATA_FORMAT:
                raise CompileError(METADATA_FILE, f"format is {meta.get('format')!r}, expected {METADATA_FORMAT!r}")
            self.model: str = meta["model"]
            self.library: str = meta["library"]
            self.weights = path / meta["weights"]
            self.inputs = [self._tensor(t) for t in meta["inputs"]]
            self.outputs = [self._tensor(t) for t in meta["outputs"]]
            self.workspace_bytes = int(meta["workspace"]["bytes"])
            self.workspace_align = int(meta["workspace"]["align"])
            targets = subgraph_targets(path)
            self.subgraphs = {
                s["symbol"]: Subgraph(s["symbol"], path / s["nodes"], path / s["consts"],
                                      _shapes(s["inputs"]), _shapes(s["outputs"]), targets.get(s["symbol"]))
                for s in meta["subgraphs"]
            }
        except (ValueError, KeyError, TypeError) as e:
            raise CompileError(METADATA_FILE, f"malformed: {type(e).__name__}: {e}") from None

    @staticmethod
    def _tensor(entry: dict) -> Tensor:
        return Tensor(entry["name"], numpy_dtype(entry["dtype"]), tuple(int(d) for d in entry["shape"]))

    def source_files(self) -> list[Path]:
        return sorted(p for p in self.path.iterdir() if p.suffix in BUILD_SOURCES or p.name == "Makefile")


def _shapes(entries: list[dict]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(d) for d in entry["shape"]) for entry in entries)


@contextmanager
def open_bundle(path: str | Path) -> Iterator[Bundle]:
    """The bundle at `path`: a directory, or a `.tar` unpacked into a temporary one."""
    path = Path(path)
    if path.is_dir():
        yield Bundle(path)
        return
    if not path.is_file():
        raise CompileError("", "no such bundle (a directory or .tar written by mrvl-compile / mrvl-opt -t c)")
    with tempfile.TemporaryDirectory(prefix="mrvl-run-") as tmp:
        try:
            with tarfile.open(path) as archive:
                archive.extractall(tmp, filter="data")  # refuses absolute paths, `..` and links out
        except (tarfile.TarError, OSError) as e:
            raise CompileError("", f"not a readable bundle archive: {e}") from None
        root = Path(tmp)
        entries = list(root.iterdir())
        # A tar of one folder, or of the bundle's files.
        yield Bundle(entries[0] if len(entries) == 1 and entries[0].is_dir() else root)


# --- Building -------------------------------------------------------------------------


def cache_dir() -> Path:
    if env := os.environ.get("MRVL_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mrvl-xdsl"


def _cpu_model() -> str:
    """The processor's model name (Linux), so a shared cache keeps -march=native builds apart."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            return next((line for line in info if line.startswith("model name")), "")
    except OSError:
        return ""


def build(bundle: Bundle, cc: str | None = None, profile: bool = False, threads: int | None = None) -> Path:
    """The bundle's shared library, built with its Makefile unless the cache has it; with
    per-op timing compiled in when `profile`; its kernels over `threads` threads (default: the
    Makefile's HOST_THREADS, as compiled)."""
    if threads is not None and threads < 1:
        raise CompileError("--threads", f"must be at least 1, got {threads}")
    compiler = cc or os.environ.get("CC") or "cc"
    if shutil.which(compiler) is None:
        raise CompileError(compiler, "C compiler not found (name one with --cc or $CC)")
    if shutil.which("make") is None:
        raise CompileError("make", "not found: the bundle is built with its Makefile")
    sources = bundle.source_files()
    key = hashlib.sha256()
    # The Makefile's ARCH_FLAGS default to -march=native: a library built on one machine is
    # for that machine's vector units, so its kind is part of the key.
    for part in (compiler, os.environ.get("CFLAGS", ""), os.environ.get("ARCH_FLAGS", "-march=native"),
                 platform.machine(), _cpu_model(), "profile" if profile else "", f"threads {threads}"):
        key.update(part.encode() + b"\0")
    for source in sources:
        key.update(source.name.encode() + b"\0" + hashlib.sha256(source.read_bytes()).digest())
    target = cache_dir() / "builds" / key.hexdigest()[:24]
    library = target / bundle.library
    if library.is_file():
        return library
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        work = Path(tmp) / "src"
        work.mkdir()
        for source in sources:
            shutil.copyfile(source, work / source.name)
        make = ["make", "-s", f"CC={compiler}", *(["PROFILE=1"] if profile else []),
                *([f"HOST_THREADS={threads}"] if threads else []), bundle.library]
        done = subprocess.run(make, cwd=work,
                              capture_output=True, text=True, errors="replace", check=False)
        if done.returncode != 0 or not (work / bundle.library).is_file():
            lines = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines()
            raise CompileError(compiler, f"building the host C failed: {lines[0] if lines else 'no output'}")
        try:
            os.rename(work, target)  # atomic: a concurrent build of the same key wins or loses whole
        except OSError:
            if not library.is_file():
                raise
    return library


# --- Running --------------------------------------------------------------------------


class MlipRunner:
    """Serves `cpu.call_mlip` for one run: mrvl-mlsim or the reference simulator."""

    def __init__(self, bundle: Bundle, precision: str, use_mlsim: bool | Literal["auto"]):
        self.bundle, self.precision, self.use_mlsim = bundle, precision, use_mlsim
        self.mlsim = uses_mlsim(use_mlsim, precision)
        self.documents: dict[str, tuple[dict, dict, dict | None]] = {}
        self.error: BaseException | None = None
        self.callback = MLIP_RUN_FN(self._serve)  # kept alive as long as the runner

    def subgraph(self, symbol: str) -> Subgraph:
        if symbol not in self.bundle.subgraphs:
            raise CompileError(symbol, f"the host program called a subgraph {METADATA_FILE} does not list")
        return self.bundle.subgraphs[symbol]

    def __call__(self, subgraph: Subgraph, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if self.mlsim:
            if subgraph.target is None:
                raise CompileError(COMMANDS_FILE, f"has no mrvl-tmlc command line for @{subgraph.symbol}: "
                                   "what to compile it for is unknown")
            return run_subgraph(subgraph.nodes, subgraph.consts, inputs, precision=self.precision,  # type: ignore[arg-type]
                                use_mlsim=self.use_mlsim, target=subgraph.target)
        if subgraph.symbol not in self.documents:
            quant = load_quant(subgraph.nodes) if self.precision == "int8" else None
            self.documents[subgraph.symbol] = (*load(subgraph.nodes, subgraph.consts), quant)
        nodes, consts, quant = self.documents[subgraph.symbol]
        return simulate(nodes, consts, inputs, self.precision, quant)  # type: ignore[arg-type]

    def install(self) -> tuple[ctypes.c_void_p, ctypes.c_void_p | None]:
        """The runner function and context for `<model>_set_mlip`."""
        return ctypes.cast(self.callback, ctypes.c_void_p), None

    def explain(self) -> str:
        return ""

    def _serve(self, _context, symbol_bytes, input_pointers, output_pointers) -> int:
        # An exception cannot cross the C frames: keep it for `run` to raise.
        try:
            subgraph = self.subgraph(symbol_bytes.decode())
            inputs = [_view(input_pointers[i], shape, np.float32).copy() for i, shape in enumerate(subgraph.inputs)]
            outputs = self(subgraph, inputs)
            for i, (shape, result) in enumerate(zip(subgraph.outputs, outputs, strict=True)):
                np.copyto(_view(output_pointers[i], shape, np.float32), result.reshape(shape), casting="same_kind")
            return 0
        except BaseException as e:  # noqa: BLE001 - re-raised by HostProgram.run
            self.error = e
            return 1


class BoardRunner:
    """Serves `cpu.call_mlip` on the board: the bundle's mrvl_mlip_board runner, which loads each
    subgraph's mrvl-tmlc binary into Marvell's ML library (libmldpc: `library`, else
    $MRVL_LIBMLDPC_PATH, else /usr/lib/libmldpc.so) and runs it on MLIP. Close it after use."""

    error: BaseException | None = None
    mlsim = False

    def __init__(self, program: "HostProgram", library: str | None = None):
        lib, m, count = program.lib, program.bundle.model, len(program.bundle.subgraphs)
        self.precision = simulation_precision(program.bundle, None)  # what the chip runs
        try:
            self._open, self._run, self._close = (lib[f"mrvl_mlip_board_{f}"] for f in ("open", "run", "close"))
            self._error = lib["mrvl_mlip_board_error"]
            table = ctypes.addressof(ctypes.c_char.in_dll(lib, f"{m}_subgraphs"))
        except (AttributeError, ValueError):
            raise CompileError(f"{m}.c", "has no board runner: it was generated before --run-mode hw existed; "
                               "compile the model again") from None
        self._error.restype = ctypes.c_char_p
        self._open.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
                               ctypes.c_int]
        self._close.argtypes = [ctypes.c_void_p]
        self.board = ctypes.c_void_p()
        rc = self._open(ctypes.byref(self.board), str(program.bundle.path).encode(),
                        library.encode() if library else None, table, count)
        if rc != 0:
            raise CompileError("--run-mode hw", self._error().decode(errors="replace"))

    def install(self) -> tuple[ctypes.c_void_p, ctypes.c_void_p | None]:
        return ctypes.cast(self._run, ctypes.c_void_p), self.board

    def explain(self) -> str:
        return f": {self._error().decode(errors='replace')}"

    def close(self) -> None:
        if self.board:
            self._close(self.board)
            self.board = ctypes.c_void_p()

    def __enter__(self) -> "BoardRunner":
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def _view(pointer: int | None, shape: tuple[int, ...], dtype: np.dtype | type) -> np.ndarray:
    count = math.prod(shape)
    if count == 0:
        return np.zeros(shape, dtype)
    buffer = (ctypes.c_byte * (count * np.dtype(dtype).itemsize)).from_address(pointer or 0)
    return np.frombuffer(buffer, dtype).reshape(shape)


class HostProgram:
    """A built bundle loaded into this process."""

    def __init__(self, bundle: Bundle, library: Path):
        self.bundle = bundle
        self.workspace: np.ndarray | None = None
        """Aligned, allocated by the first `bind` and shared by every run (one at a time)."""
        self.lib = ctypes.CDLL(str(library))
        m = bundle.model
        self.run_fn = self.lib[f"{m}_run"]
        self.run_fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.set_mlip = self.lib[f"{m}_set_mlip"]
        self.set_mlip.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.set_mlip.restype = None
        load_weights = self.lib[f"{m}_load_weights"]
        load_weights.argtypes = [ctypes.c_char_p]
        rc = load_weights(str(bundle.weights).encode())
        if rc != 0:
            raise CompileError(bundle.weights.name, f"not loaded: {RUN_ERRORS.get(rc, f'error {rc}')}")

    def _profile_function(self, name: str, restype) -> ctypes._CFuncPtr:  # type: ignore[name-defined]
        try:
            function = self.lib[f"{self.bundle.model}_profile_{name}"]
        except AttributeError:
            raise CompileError(f"{self.bundle.model}.c", "has no per-op timing: it was generated before "
                               "mrvl-run --profile existed; compile the model again") from None
        function.restype = restype
        return function

    def profile(self) -> list[tuple[str, int]]:
        """Each op's label and total nanoseconds since `profile_reset` (a profiling build)."""
        label, ns = self._profile_function("label", ctypes.c_char_p), self._profile_function("ns", ctypes.c_uint64)
        return [(label(i).decode(), ns(i)) for i in range(self._profile_function("ops", ctypes.c_int)())]

    def profile_reset(self) -> None:
        self._profile_function("reset", None)()

    def run(self, inputs: Mapping[str, np.ndarray], mlip: "MlipRunner | BoardRunner") -> dict[str, np.ndarray]:
        results = [np.zeros(t.shape, t.dtype) for t in self.bundle.outputs]
        self.bind([_input_array(t, inputs) for t in self.bundle.inputs], results)(mlip)
        return {t.name: r for t, r in zip(self.bundle.outputs, results)}

    def bind(self, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]) -> "BoundRun":
        """A run that reads `inputs` and writes `outputs` (contiguous arrays of the bundle's
        dtypes and shapes, in its order) each time it is called, allocating nothing."""
        for role, tensors, arrays in (("input", self.bundle.inputs, inputs), ("output", self.bundle.outputs, outputs)):
            for t, a in zip(tensors, arrays, strict=True):
                if a.shape != t.shape or a.dtype != t.dtype or not a.flags.c_contiguous:
                    raise CompileError(f"{role} '{t.name}'", f"bound to a {a.dtype} array of shape {list(a.shape)}; "
                                       f"the bundle takes a contiguous {t.dtype} array of shape {list(t.shape)}")
        if self.workspace is None:
            raw = np.zeros(self.bundle.workspace_bytes + self.bundle.workspace_align, np.uint8)
            self.workspace = raw[-raw.ctypes.data % self.bundle.workspace_align:]
        return BoundRun(self, inputs, outputs)


class BoundRun:
    """`HostProgram.bind`: the pointer tables of one set of input and output arrays."""

    def __init__(self, program: HostProgram, inputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray]):
        self.program = program
        self.arrays = (*inputs, *outputs)  # kept alive as long as the pointers to them
        self.in_struct = (ctypes.c_void_p * max(len(inputs), 1))(*[a.ctypes.data for a in inputs])
        self.out_struct = (ctypes.c_void_p * max(len(outputs), 1))(*[a.ctypes.data for a in outputs])

    def __call__(self, mlip: "MlipRunner | BoardRunner") -> None:
        program = self.program
        program.set_mlip(*mlip.install())
        try:
            rc = program.run_fn(self.in_struct, self.out_struct, program.workspace.ctypes.data)
        finally:
            program.set_mlip(None, None)
        if mlip.error is not None:
            raise mlip.error
        if rc != 0:
            why = mlip.explain() if rc == MRVL_ERR_MLIP else ""
            raise CompileError(f"{program.bundle.model}_run",
                               f"returned {rc} ({RUN_ERRORS.get(rc, 'unknown error')}){why}")


def _input_array(tensor: Tensor, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    if tensor.name not in inputs:
        raise CompileError(f"input '{tensor.name}'", f"not given (inputs given: {', '.join(sorted(inputs)) or 'none'})")
    array = np.asarray(inputs[tensor.name])
    if array.shape != tensor.shape:
        raise CompileError(f"input '{tensor.name}'", f"has shape {list(array.shape)}; the bundle was compiled "
                           f"for {list(tensor.shape)}")
    if not np.can_cast(array.dtype, tensor.dtype, "same_kind"):
        raise CompileError(f"input '{tensor.name}'", f"is {array.dtype}; the bundle takes {tensor.dtype}")
    return np.asarray(array, tensor.dtype, order="C")  # ascontiguousarray would make a scalar 1-D


def simulation_precision(bundle: Bundle, precision: str | None) -> str:
    """The arithmetic to simulate the bundle's subgraphs in: the `quantize` they were compiled
    with (fp16 or int8), or fp32, the float reference; another one is refused, not silently
    simulated (an fp16 run of an int8 bundle would not be what the chip computes)."""
    compiled = sorted({s.target.quantize for s in bundle.subgraphs.values() if s.target is not None}) or ["fp16"]
    if precision is None:
        if len(compiled) > 1:
            raise CompileError("--precision", f"the subgraphs were compiled with {' and '.join(compiled)}: give one")
        return compiled[0]
    if precision not in PRECISIONS:
        raise CompileError("--precision", f"must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    if precision != "fp32" and bundle.subgraphs and compiled != [precision]:
        raise CompileError("--precision", f"{precision}: the bundle's subgraphs were compiled with quantize="
                           f"{' and '.join(compiled)}; simulate that (the default) or fp32 (the float reference)")
    return precision


@contextmanager
def accelerator(program: HostProgram, run_mode: str = DEFAULT_TARGET.run_mode, precision: str | None = None,
                simulator: str = "auto") -> Iterator["MlipRunner | BoardRunner"]:
    """What serves the program's accelerator calls: on the board (`run_mode` hw) libmldpc
    through the bundle's runner, else a simulator (`precision`: `simulation_precision`;
    `simulator`: see the module doc)."""
    if run_mode not in RUN_MODES:
        raise CompileError("--run-mode", f"must be one of {', '.join(RUN_MODES)}, got {run_mode!r}")
    precision = simulation_precision(program.bundle, precision)
    if simulator not in SIMULATORS:
        raise CompileError("--simulator", f"must be one of {', '.join(SIMULATORS)}, got {simulator!r}")
    if run_mode == "hw" and program.bundle.subgraphs:
        with BoardRunner(program) as board:
            yield board
    else:
        yield MlipRunner(program.bundle, precision, SIMULATORS[simulator])  # type: ignore[arg-type]


def run_bundle(
    bundle: str | Path, inputs: Mapping[str, np.ndarray], *, precision: str | None = None,
    simulator: str = "auto", cc: str | None = None, run_mode: str = DEFAULT_TARGET.run_mode,
) -> dict[str, np.ndarray]:
    """Build (cached) and run the bundle at `bundle` on `inputs`; its outputs by name.

    `run_mode` hw runs the accelerator subgraphs on MLIP (on the board, libmldpc); sim on a
    simulator: `precision` is their arithmetic (default: the bundle's quantize, fp16 or int8 as
    MLIP computes it; or fp32 on the reference simulator), `simulator` auto, reference or
    mlsim (see the module doc)."""
    with open_bundle(bundle) as opened:
        program = HostProgram(opened, build(opened, cc))
        with accelerator(program, run_mode, precision, simulator) as mlip:
            return program.run(inputs, mlip)


PROFILE_REPEAT = 20
"""Runs a bundle's profile averages over unless told (`--repeat`)."""


@dataclass(frozen=True)
class OpTime:
    """One op of a profile: its place in `M_run`, what it computes, its mean time per run."""

    index: int
    label: str
    seconds: float


def profile_bundle(
    bundle: str | Path, inputs: Mapping[str, np.ndarray], *, repeat: int = PROFILE_REPEAT, precision: str | None = None,
    simulator: str = "auto", cc: str | None = None, run_mode: str = DEFAULT_TARGET.run_mode,
) -> tuple[dict[str, np.ndarray], list[OpTime]]:
    """Build the bundle with per-op timing (cached apart), run it once to warm up, then
    `repeat` times; the last run's outputs and each op's mean time, in run order."""
    with open_bundle(bundle) as opened:
        program = HostProgram(opened, build(opened, cc, profile=True))
        with accelerator(program, run_mode, precision, simulator) as mlip:
            return _profile(program, inputs, mlip, repeat)


def _profile(program: "HostProgram", inputs: Mapping[str, np.ndarray], mlip: "MlipRunner | BoardRunner",
             repeat: int) -> tuple[dict[str, np.ndarray], list[OpTime]]:
    if repeat < 1:
        raise CompileError("--repeat", f"must be at least 1, got {repeat}")
    program.profile_reset()  # also checks, before running, that the build can profile
    outputs = program.run(inputs, mlip)
    program.profile_reset()
    for _ in range(repeat):
        outputs = program.run(inputs, mlip)
    return outputs, [OpTime(i, label, ns / 1e9 / repeat) for i, (label, ns) in enumerate(program.profile())]


CALL_MLIP = "cpu.call_mlip"
LAYOUT_TRANSPOSES, ELEMENTWISE, DATA_MOVEMENT, OTHER_KERNELS = (
    "layout transposes", "element-wise", "concat/split/slice/copies", "other host kernels")
HOST_KINDS_SHOWN = (LAYOUT_TRANSPOSES, ELEMENTWISE, DATA_MOVEMENT, OTHER_KERNELS)
"""The kinds of host time a profile sums, in the order it prints them."""
GLUE_KINDS = {
    **dict.fromkeys(("cpu.binary", "cpu.unary", "cpu.clip", "cpu.leaky_relu", "cpu.hard_sigmoid", "cpu.hard_swish",
                     "cpu.activation", "cpu.where", "cpu.cast", "cpu.dropout", "cpu.elementwise"), ELEMENTWISE),
    **dict.fromkeys(("cpu.concat", "cpu.split", "cpu.slice", "cpu.reshape", "cpu.transpose", "cpu.pad", "cpu.expand",
                     "cpu.depth_to_space", "cpu.gather"), DATA_MOVEMENT),
}
"""The host ops that only reshape, copy or map values one by one, by the kind of glue they are;
every other host op is a kernel of its own (OTHER_KERNELS)."""


def host_kind(label: str) -> str | None:
    """The kind of host time of a profiled op, from its label (`op_label`): a transpose the
    compiler inserted is a layout transpose (a model's own Transpose moves data as it asks);
    None for an accelerator call."""
    op = label[label.rfind("(") + 1:-1] if label.endswith(")") else ""
    if op == CALL_MLIP:
        return None
    if op == "cpu.transpose" and label.startswith(f"{COMPILER_INSERTED} ("):
        return LAYOUT_TRANSPOSES
    return GLUE_KINDS.get(op, OTHER_KERNELS)


def _report_estimate(bundle: Bundle) -> dict | None:
    """The `estimate` of the bundle's `report.json` (mrvl-compile writes it; mrvl-opt -t c does not)."""
    try:
        estimate = json.loads((bundle.path / "report.json").read_text(encoding="utf-8")).get("estimate")
    except (OSError, ValueError, AttributeError):
        return None
    return estimate if isinstance(estimate, dict) else None


def estimated_host_ops(labels: list[str], estimate: dict | None) -> list[dict | None]:
    """For each profiled op (by label), its entry in the `host_ops` of a report.json
    `estimate` (kind, MACs, bytes, seconds), paired by label in run order; None for an
    accelerator call or an op the estimate does not list."""
    estimated = estimate.get("host_ops", []) if estimate else []
    pending = iter(estimated)
    found_ops: list[dict | None] = []
    for label in labels:
        found = None
        if host_kind(label) is not None:
            found = next((e for e in pending if e.get("label") == label), None)
            if found is None:
                pending = iter(estimated)
        found_ops.append(found)
    return found_ops


@dataclass(frozen=True)
class HostKindTime:
    """The host ops of one kind in a profile: how many, their measured time per run, and
    the cost model's estimate for the same ops (None without the bundle's report.json)."""

    kind: str
    ops: int
    seconds: float
    estimated_seconds: float | None


@dataclass(frozen=True)
class SubgraphTime:
    """An accelerator subgraph in a profile: its calls a run (chunks count one each), the time
    they took here (a simulator's, not MLIP's), and the cost model's estimate of one call."""

    symbol: str
    calls: int
    measured_seconds: float
    estimated_seconds_per_call: float | None


@dataclass(frozen=True)
class ProfileSummary:
    """A profile by kind of host op, beside the cost model's estimate of the accelerator."""

    host: list[HostKindTime]
    subgraphs: list[SubgraphTime]
    host_source: str | None
    """Where the estimate's host rates come from ("host assumed", ...); None without an estimate."""

    @property
    def host_seconds(self) -> float:
        return sum(k.seconds for k in self.host)

    @property
    def host_estimated_seconds(self) -> float | None:
        return None if self.host_source is None else sum(k.estimated_seconds or 0.0 for k in self.host)

    @property
    def mlip_estimated_seconds(self) -> float | None:
        if self.host_source is None:
            return None
        return sum((s.estimated_seconds_per_call or 0.0) * s.calls for s in self.subgraphs)

    @property
    def end_to_end_seconds(self) -> float | None:
        """Measured host time plus estimated MLIP time: a run on the board, as far as this machine can tell."""
        mlip = self.mlip_estimated_seconds
        return None if mlip is None else self.host_seconds + mlip


def summarize_profile(bundle: Bundle, times: list[OpTime]) -> ProfileSummary:
    """`times` by kind of host op, and by accelerator subgraph, with the estimates of the
    bundle's `report.json`."""
    estimate = _report_estimate(bundle)
    per_subgraph = {s.get("symbol"): s for s in estimate.get("subgraphs", [])} if estimate else {}
    host = {kind: [0, 0.0, 0.0] for kind in HOST_KINDS_SHOWN}
    calls: dict[str, list] = {}
    for t, found in zip(times, estimated_host_ops([t.label for t in times], estimate), strict=True):
        kind = host_kind(t.label)
        if kind is None:
            symbol = t.label.split(" ", 1)[0].removeprefix("@")
            entry = calls.setdefault(symbol, [0, 0.0])
            entry[0] += 1
            entry[1] += t.seconds
            continue
        totals = host[kind]
        totals[0] += 1
        totals[1] += t.seconds
        totals[2] += found["seconds"] if found is not None else 0.0
    subgraphs = []
    for symbol, (ops, seconds) in calls.items():
        # a call in chunks is one op of the profile and a call a chunk in the estimate
        sub = per_subgraph.get(symbol)
        subgraphs.append(SubgraphTime(symbol, ops, seconds, None) if sub is None
                         else SubgraphTime(symbol, sub["calls"], seconds, sub["seconds"]))
    source = estimate.get("host_source", "") if estimate else None
    kinds = [HostKindTime(kind, n, s, e if estimate else None) for kind, (n, s, e) in host.items()]
    return ProfileSummary(kinds, subgraphs, source)


def profile_document(bundle: Bundle, times: list[OpTime], repeat: int) -> dict:
    """A profile as `--profile-out` writes it (`target/cost_model.py` reads it): each op
    (`profile_ops`) and the `summarize_profile` totals (`profile_summary`)."""
    return profile_header(bundle.model, repeat) | {"ops": profile_ops(bundle, times),
                                                   "summary": profile_summary(bundle, times)}


def profile_header(model: str, repeat: int) -> dict:
    """What a profile document says of itself: its format, the model, the runs it averages
    and the machine that ran them."""
    return {"format": PROFILE_FORMAT, "version": PROFILE_VERSION, "model": model, "repeat": repeat,
            "machine": platform.machine(), "cpu": " ".join(_cpu_model().partition(":")[2].split())}


def profile_ops(bundle: Bundle, times: list[OpTime]) -> list[dict]:
    """Each profiled op with its kind of host time (`host_kind`; "mlip call" for an
    accelerator call) and its kernel class, MACs, bytes and estimated seconds from the
    bundle's `report.json`, paired by label in run order (an op the report does not list
    has no work and calibrates nothing)."""
    ops = []
    for t, found in zip(times, estimated_host_ops([t.label for t in times], _report_estimate(bundle)), strict=True):
        kind = host_kind(t.label)
        if kind is None:
            work = {"kind": CALL, "macs": 0, "bytes": 0, "estimated_seconds": None}
        elif found is not None:
            work = {"kind": found["kind"], "macs": found["macs"], "bytes": found["bytes"],
                    "estimated_seconds": found["seconds"]}
        else:
            work = {"kind": "memory", "macs": 0, "bytes": 0, "estimated_seconds": None}
        ops.append({"index": t.index, "label": t.label, "seconds": t.seconds, "host_kind": kind or "mlip call", **work})
    return ops


def profile_summary(bundle: Bundle, times: list[OpTime]) -> dict:
    """The `summarize_profile` totals of a profile, as a profile document holds them."""
    summary = summarize_profile(bundle, times)
    return {
        "host": [vars(k) for k in summary.host],
        "host_seconds": summary.host_seconds,
        "host_estimated_seconds": summary.host_estimated_seconds,
        "host_source": summary.host_source,
        "subgraphs": [vars(s) for s in summary.subgraphs],
        "mlip_estimated_seconds": summary.mlip_estimated_seconds,
        "end_to_end_seconds": summary.end_to_end_seconds,
    }


def summary_table(summary: ProfileSummary) -> list[str]:
    def estimated(seconds: float | None) -> str:
        return f"{duration(seconds):>10}" if seconds is not None else f"{'-':>10}"

    where = (f"the cost model's, report.json ({summary.host_source})" if summary.host_source is not None
             else "none: the bundle has no report.json (mrvl-compile writes one)")
    lines = [f"host time by kind, measured; estimated: {where}",
             f"  {'kind':<26} {'ops':>5} {'measured':>10} {'estimated':>10}"]
    for k in summary.host:
        lines.append(f"  {k.kind:<26} {k.ops:>5} {duration(k.seconds):>10} {estimated(k.estimated_seconds)}")
    ops = sum(k.ops for k in summary.host)
    lines.append(f"  {'host':<26} {ops:>5} {duration(summary.host_seconds):>10} "
                 f"{estimated(summary.host_estimated_seconds)}")
    if not summary.subgraphs:
        return lines
    lines += ["MLIP, estimated by the cost model (the time measured here is a simulator's):",
              f"  {'subgraph':<26} {'calls':>5} {'measured':>10} {'estimated':>10} a call"]
    for s in summary.subgraphs:
        lines.append(f"  {'@' + s.symbol:<26} {s.calls:>5} {duration(s.measured_seconds):>10} "
                     f"{estimated(s.estimated_seconds_per_call)}")
    mlip = summary.mlip_estimated_seconds
    calls = sum(s.calls for s in summary.subgraphs)
    lines.append(f"  {'MLIP':<26} {calls:>5} {'':>10} {estimated(mlip)}")
    if mlip is not None:
        lines.append(f"end to end, estimated: {duration(summary.host_seconds + mlip)} = host "
                     f"{duration(summary.host_seconds)} measured + MLIP {duration(mlip)} estimated")
    return lines


def profile_table(times: list[OpTime], repeat: int) -> list[str]:
    total = sum(t.seconds for t in times)
    lines = [f"profile over {repeat} run(s), slowest first:", f"  {'op':>4} {'time/run':>12} {'share':>6}  nodes"]
    for t in sorted(times, key=lambda t: (-t.seconds, t.index)):
        share = t.seconds / total if total else 0.0
        lines.append(f"  {t.index:>4} {t.seconds * 1e6:>9.2f} us {share:>6.1%}  {t.label}")
    lines.append(f"  {'':>4} {total * 1e6:>9.2f} us {1 if total else 0:>6.1%}  total")
    return lines


# --- Verification ---------------------------------------------------------------------

VERIFY_NEEDS = "needs onnxruntime, the 'verify' extra: pip install 'mrvl-xdsl[verify]'"


@dataclass(frozen=True)
class OutputCheck:
    name: str
    shape: tuple[int, ...]
    comparison: Comparison


INT8_LAYER_STEPS = 3
"""Quantization steps an output of int8 MLIP layers may be from onnxruntime's run of the QDQ
model: a sum near a half step rounds either way, in each layer."""


def verify(model: Path, inputs: Mapping[str, np.ndarray], outputs: Mapping[str, np.ndarray],
           precision: str | None) -> list[OutputCheck]:
    """Compare `outputs` with onnxruntime's on `model` (see the module doc for tolerances)."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise CompileError("--verify", VERIFY_NEEDS) from None
    options = ort.SessionOptions()
    options.log_severity_level = 3
    steps = quantization_steps(model)
    if steps and precision is not None:
        # Accelerator layers against the QDQ model as written, node by node: onnxruntime's fused
        # int8 kernels may round an intermediate value to the other neighbour, and later layers
        # spread that out. All on the host, the int8 convs compute what those fused kernels do.
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        feeds = {i.name: inputs[i.name] for i in session.get_inputs() if i.name in inputs}
        expected = dict(zip(names, session.run(names, feeds)))
    except Exception as e:  # onnxruntime raises its own exception types
        raise CompileError("onnxruntime", " ".join(str(e).split())[:300]) from None
    layers = FP16_LAYERS if precision == "fp16" else None
    steps_allowed = INT8_LAYER_STEPS if precision == "int8" else 1
    rows = []
    for name, got in outputs.items():
        if name not in expected:
            raise CompileError(f"output '{name}'", f"is not an output of {model.name}")
        step = steps.get(name)
        comparison = compare(got, np.asarray(expected[name]), layers,
                             quantization_step=None if step is None else steps_allowed * step)
        rows.append(OutputCheck(name, got.shape, comparison))
    return rows


def quantization_steps(model: Path) -> dict[str, float]:
    """The graph outputs of `model` that a DequantizeLinear with one constant scale writes
    (a QDQ model's), with that scale: one quantization step, which `compare` allows more."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(model), load_external_data=False).graph
    scales = {t.name: t for t in graph.initializer if not t.external_data}
    outputs = {o.name for o in graph.output}
    steps = {}
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.domain in ("", "ai.onnx") and node.output[0] in outputs:
            scale = scales.get(node.input[1])
            if scale is not None and math.prod(scale.dims) == 1:
                steps[node.output[0]] = float(numpy_helper.to_array(scale).reshape(-1)[0])
    return steps


# --- Command line ---------------------------------------------------------------------


def fill_inputs(bundle: Bundle, mode: str) -> dict[str, np.ndarray]:
    """Inputs for the bundle as `--fill-mode` says: zeros, ones, or random (seed 0)."""
    rng = np.random.default_rng(0)
    filled = {}
    for t in bundle.inputs:
        if mode == "random":
            values = rng.standard_normal(t.shape) if t.dtype.kind == "f" else rng.integers(0, 2, t.shape)
        else:
            values = np.full(t.shape, 1 if mode == "ones" else 0)
        filled[t.name] = values.astype(t.dtype)
    return filled


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of the .npz file at `path`, by name."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError) as e:
        raise CompileError(str(path), f"not a readable .npz file: {e}") from None


def save_arrays(path: Path, outputs: Mapping[str, np.ndarray]) -> None:
    """Write `outputs` to the .npz file at `path`, whole or not at all."""
    buffer = io.BytesIO()
    np.savez(buffer, **outputs)  # type: ignore[arg-type]
    write_atomically(path, buffer.getvalue())


def describe_array(name: str, array: np.ndarray) -> str:
    """The line mrvl-run prints for an output: its shape and value range."""
    shape = "x".join(map(str, array.shape)) or "scalar"
    if array.size and array.dtype.kind in "fiu":
        a = array.astype(np.float64)
        return f"  {name:<24} {shape:<14} min {a.min():<11.4g} max {a.max():<11.4g} mean {a.mean():.4g}"
    return f"  {name:<24} {shape}"


def main(args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mrvl-run", description=__doc__.split("\n")[0])
    parser.add_argument("bundle", help="bundle directory or .tar (mrvl-compile, mrvl-opt -t c -o DIR)")
    parser.add_argument("--inputs", type=Path, help=".npz with one array per model input, by name")
    parser.add_argument("--fill-mode", choices=("zeros", "ones", "random"), default="random",
                        help="inputs to use without --inputs (random: standard normal, seed 0)")
    parser.add_argument("--outputs", type=Path, help=".npz to write the outputs to, by name")
    parser.add_argument("--verify", type=Path, metavar="MODEL.onnx", help="compare with onnxruntime on this model")
    parser.add_argument("--precision", choices=PRECISIONS,
                        help="accelerator arithmetic: the bundle's quantize, fp16 or int8 (default), or fp32")
    parser.add_argument("--simulator", choices=tuple(SIMULATORS), default="auto",
                        help="what runs accelerator subgraphs: mrvl-mlsim if on PATH (auto), or always one")
    parser.add_argument("--cc", help="C compiler (default $CC, else cc)")
    parser.add_argument("--run-mode", choices=RUN_MODES, default=DEFAULT_TARGET.run_mode,
                        help="sim: accelerator subgraphs on a simulator; hw: on MLIP through libmldpc (the board)")
    parser.add_argument("--profile", action="store_true", help="time every host op (a build with timing compiled in)")
    parser.add_argument("--repeat", type=int, metavar="N",
                        help=f"runs to average a profile over ({PROFILE_REPEAT}; a pipeline's: its frames after the first)")
    parser.add_argument("--profile-out", type=Path, metavar="FILE",
                        help="also write the profile as JSON (for mrvl-compile --host-profile)")
    parser.add_argument("--threads", type=int, metavar="N",
                        help="host kernel threads (default: the bundle's, mrvl-compile --host-threads)")
    pipeline = parser.add_argument_group("a pipeline archive (mrvl-compile --stages), one MPI rank a stage")
    pipeline.add_argument("--frames", type=int, default=1, metavar="F", help="frames to stream through it (1)")
    pipeline.add_argument("--np", type=int, metavar="N", help="MPI ranks: the number of stages, the default")
    pipeline.add_argument("--hostfile", type=Path, metavar="H", help="mpirun's hostfile: the hosts to run on")
    options = parser.parse_args(args)
    if options.profile_out and not options.profile:
        parser.error("--profile-out needs --profile")
    if options.repeat is not None and not options.profile:
        parser.error("--repeat needs --profile")
    from mrvl import pipeline_run  # it runs stage bundles with this module's machinery

    if pipeline_run.is_pipeline(options.bundle):
        return pipeline_run.main(options)
    if options.np is not None or options.hostfile is not None or options.frames != 1:
        parser.error("--frames, --np and --hostfile run a pipeline archive (mrvl-compile --stages)")
    repeat = PROFILE_REPEAT if options.repeat is None else options.repeat
    try:
        if options.verify and importlib.util.find_spec("onnxruntime") is None:
            raise CompileError("--verify", VERIFY_NEEDS)
        with open_bundle(options.bundle) as bundle:
            inputs = load_arrays(options.inputs) if options.inputs else fill_inputs(bundle, options.fill_mode)
            program = HostProgram(bundle, build(bundle, options.cc, profile=options.profile, threads=options.threads))
            with accelerator(program, options.run_mode, options.precision, options.simulator) as mlip:
                if options.profile:
                    outputs, times = _profile(program, inputs, mlip, repeat)
                else:
                    outputs = program.run(inputs, mlip)
            where = ("MLIP (libmldpc)" if options.run_mode == "hw" else "mrvl-mlsim" if mlip.mlsim
                     else f"the reference simulator ({mlip.precision})")
            served = f"; {len(bundle.subgraphs)} accelerator subgraph(s) on {where}" if bundle.subgraphs else ""
            print(f"ran {bundle.model}{served}")
            for name, array in outputs.items():
                print(describe_array(name, array))
            if options.profile:
                print("\n".join(profile_table(times, repeat)))
                if options.profile_out:
                    document = profile_document(bundle, times, repeat)
                    write_atomically(options.profile_out, json.dumps(document, indent=1).encode() + b"\n")
                if bundle.subgraphs and options.run_mode == "sim":
                    print(f"(cpu.call_mlip: the time of {where}, not of MLIP)")
                print("\n".join(summary_table(summarize_profile(bundle, times))))
            if options.outputs:
                save_arrays(options.outputs, outputs)
            if options.verify:
                rows = verify(options.verify, inputs, outputs, mlip.precision if bundle.subgraphs else None)
                print(f"verify against onnxruntime ({options.verify.name}):")
                for row in rows:
                    print(f"  {row.name:<24} {row.comparison.describe()} {'ok' if row.comparison.ok else 'FAILED'}")
                failed = [row.name for row in rows if not row.comparison.ok]
                if failed:
                    raise CompileError("--verify", f"{len(failed)} output(s) differ from onnxruntime: {', '.join(failed)}")
    except (CompileError, OSError) as e:
        return report_error(options.bundle, e)
    return 0


def report_error(bundle: str, error: CompileError | OSError) -> int:
    """Print `error` as mrvl-run's one `error:` line about `bundle`; the exit status, 1."""
    if isinstance(error, CompileError):
        print(error.format(bundle), file=sys.stderr)
    else:
        print(f"error: {bundle}: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
