"""The cost model: how long an MLIP subgraph and a host kernel take, from a target description.

The target description is a small INI file (`configparser`), as Arm's Vela reads `vela.ini`:
`[mlip]` the accelerator (tiles, peak fp16 MAC/s, efficiency, DMA, on-chip memory, the
fixed cost of one call); `[host.NAME]`, one set per host (`neoverse-n2`, `x86-64`), its
throughput per kernel class and its conv kernels' overheads; `[host]` names the host the
compile is for (`name`) and may override keys of its set. Its defaults are
`DEFAULT_TARGET_INI` (also `docs/target.ini`; `docs/cost-model.md` explains each value and
where it comes from); a file given with `target_file` / `--target-file` overrides the keys
it sets. `host_profile` / `--host-profile` replaces the host throughputs with those measured
by `mrvl-run --profile --profile-out FILE` on the machine that runs the bundle, and takes
the time of each kernel the profile timed as that kernel's estimate.

Estimates, per call and per kernel:

- an MLIP subgraph: `max(compute, weight DMA) + I/O DMA + call overhead`, where compute is
  dense MACs / (peak x efficiency) plus depthwise MACs / (peak x depthwise efficiency),
  peak scaled linearly from the description's `tiles` to the compile's `num_tiles`, weight
  DMA the device-format weights (fp16: 2 bytes an element) over the DMA rate, overlapped
  with compute as in Marvell's published run (skipped when `wb_pin_ocm=1` and they fit
  the OCM), and I/O the subgraph's inputs and outputs in the device format;
- a host kernel: its overhead plus its MACs over the class's MAC rate (`conv`, `matmul`),
  or, for every other kernel, the bytes it reads and writes over `bytes_per_s`; with a
  host profile, the kernel's own measured time when the profile timed the same kernel
  (`host_op_seconds`: the same ONNX nodes, op, class and MACs).

Partitioning (`partition-mrvl`'s `worth-the-call` policy) and legalisation
(`legalize-mrvl`) weigh these estimates, `select-host-kernels` the conv kernels' overheads;
the reports print them. The passes take the files as options (`CostModelOptions`).
"""

import configparser
import json
import math
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import cpu, mrvl
from mrvl_dialect.errors import CompileError, CompileWarning
from mrvl_dialect.graph import ConstantOp
from mrvl_dialect.locations import op_label
from mrvl_dialect.shared_attributes import tensor_shape
from mrvl.target.options import TargetOptions

DEFAULT_TARGET_INI = """\
# The target a compile estimates latency for (mrvl-xdsl cost model; docs/cost-model.md).
# Copy this file, edit it and give it to mrvl-compile --target-file FILE (or to the
# passes as target_file="FILE"); keys left out keep these defaults. "published" values
# are Marvell's simulator figures for ResNet-50 (fp16, 8 tiles); "measured" ones were
# timed as each says; "assumed" values are neither: measure them on your board and
# change them here.

[mlip]
# published: the tile count of the figures below; peak scales linearly to the compile's
# num_tiles (assumed).
tiles = 8
# published: 4.00 TFLOPS fp16 at 8 tiles, i.e. 2 T multiply-accumulates a second.
peak_fp16_macs_per_s = 2.0e12
# published: ResNet-50's convolutions reach 33.2% of peak.
efficiency = 0.332
# assumed: depthwise convolutions reuse no input across output channels; a guess
# between the published PE utilisation (2.76%) and a dense conv's 33.2%.
depthwise_efficiency = 0.05
# assumed: the published run moved 51.5 MB within 5.67 ms, overlapped with compute, so
# the link runs at 9.1 GB/s or more; taken as its rate.
dma_bytes_per_s = 9.1e9
# published: 8 MiB of on-chip memory used at 97.89% by 8 tiles (1 MiB a tile).
ocm_bytes = 8388608
# assumed: the fixed cost of one accelerator call (job submission through libmldpc,
# completion, cache maintenance, fp32 <-> fp16 conversion set-up on the host).
call_overhead_s = 10e-6

[pipeline]
# assumed: the bytes a second one link between two pipeline stages carries (mrvl-compile
# --stages), each way; a 10 GbE link carries about 1.2e9, a board's mesh link its own rate.
link_bytes_per_s = 1.0e9

[host]
# The host that runs the bundle's C code: the [host.NAME] section below whose figures the
# estimates and the choice of each conv's kernel use. A key of those sections given here
# overrides the named one's.
name = neoverse-n2

[host.neoverse-n2]
# One Neoverse N2 core of an OCTEON 10. No figure here is timed on an N2: calibrate the
# rates with --host-profile on the board. The multiply-add rates are the clock x the fp32
# MACs a cycle llvm-mca gives the kernels' inner loops as gcc compiles them for the N2
# (benchmarks/n2_mca.py; the N2's peak is 8: two 128-bit FMA pipes) x an efficiency.

# assumed: 2.5 GHz x 7.98 MACs/cycle (llvm-mca: the direct and flat conv tiles' loops,
# 4x16 and 8x12) x 0.4, the share of a conv's time in those loops (packing, the store
# and epilogue, partial tiles and memory stalls take the rest).
conv_macs_per_s = 8.0e9
# assumed: 2.5 GHz x 7.99 MACs/cycle (llvm-mca: the 4x16 GEMM tile's loop) x 0.4, as
# conv_macs_per_s.
matmul_macs_per_s = 8.0e9
# assumed: the bytes an elementwise, pooling or data-movement kernel reads and writes a
# second (one core streaming from DRAM).
bytes_per_s = 8.0e9
# assumed: the fixed cost of one host kernel call.
op_overhead_s = 0.2e-6

# The conv kernels' overheads, in multiply-adds of the kernel: select-host-kernels runs
# each conv on the cheapest of the flat, direct and pointwise kernels. Until they are
# timed on an N2, those of [host.x86-64] (the same C code), taken to rank the kernels alike.

# assumed: as on x86-64.
flat_copy_cost = 25
# assumed: as on x86-64.
flat_store_cost = 8
# assumed: as on x86-64.
flat_residual_cost = 4
# assumed: as on x86-64.
direct_copy_cost = 11
# assumed: as on x86-64.
direct_store_cost = 38
# assumed: as on x86-64.
direct_residual_cost = 45
# assumed: as on x86-64.
pointwise_pack_cost = 10
# assumed: as on x86-64.
pointwise_store_cost = 15
# assumed: as on x86-64.
pointwise_residual_cost = 12
# assumed: as on x86-64.
winograd_transform_cost = 7
# assumed: as on x86-64.
winograd_weights_cost = 15

[host.x86-64]
# One x86-64 core with AVX-512, where the kernels are developed and tested.

# measured, roughly: mrvl-run --profile of the zoo's resnet_small and mobilenet_small
# compiled with --no-offload, on a machine shared with other work (docs/cost-model.md).
conv_macs_per_s = 1.9e10
# assumed: as conv_macs_per_s (the profile timed one small Gemm only).
matmul_macs_per_s = 1.9e10
# measured, roughly: as conv_macs_per_s.
bytes_per_s = 3.6e9
# assumed: as on the N2.
op_overhead_s = 0.2e-6

# The conv kernels' overheads, in multiply-adds of the kernel: fitted (least squares on
# relative error) to 67 single convs with a Relu (stems, 3x3 convs of 16 to 512 channels
# at 7x7 to 224x224, 1x1 convs expanding and reducing, strided, with and without a
# residual, at batch 1 and 4: ResNet, MobileNet, SqueezeNet, tiny-YOLO and VGG shapes)
# timed with each kernel; their multiply-adds came out at one rate.

# measured: a float of the flat conv's input copy (strided into its phases; none when
# read in place).
flat_copy_cost = 25
# measured: an output of the flat conv (its epilogue and the runs stored).
flat_store_cost = 8
# measured: a float of the residual the flat conv reads (along its runs of outputs).
flat_residual_cost = 4
# measured: a float of the direct conv's padded input copy (rows copied whole).
direct_copy_cost = 11
# measured: an output of the direct conv (stored transposed, its epilogue run across
# channels).
direct_store_cost = 38
# measured: a float of the residual the direct conv reads (transposed: a short run per
# channel).
direct_residual_cost = 45
# measured: an input float of the pointwise conv's product, packed into panels.
pointwise_pack_cost = 10
# measured: an output of the pointwise conv (its bias filled in first, its epilogue a
# pass of its own).
pointwise_store_cost = 15
# measured: a float of the residual the pointwise conv reads (in its epilogue's pass, in
# order).
pointwise_residual_cost = 12
# measured (fitted to ResNet's 3x3 convs of 64 to 512 channels at 56x56 to 7x7, AVX2 on a
# Zen 4): a float of the Winograd conv's transformed input or products (V and M, 16 a tile
# and channel): the transforms, the products' stores and their columns past the tiles.
winograd_transform_cost = 7
# measured (the same fit): a float of the Winograd conv's transformed weights, read once a
# block of tiles.
winograd_weights_cost = 15
"""


@dataclass(frozen=True)
class MlipTarget:
    """`[mlip]`: the accelerator."""

    tiles: int
    peak_fp16_macs_per_s: float
    efficiency: float
    depthwise_efficiency: float
    dma_bytes_per_s: float
    ocm_bytes: int
    call_overhead_s: float


@dataclass(frozen=True)
class PipelineTarget:
    """`[pipeline]`: what links the stages of a pipeline (`mrvl-compile --stages`)."""

    link_bytes_per_s: float


@dataclass(frozen=True)
class HostTarget:
    """`[host.NAME]`, the host `[host] name` names: its kernels' rates, and the conv kernels'
    overheads in multiply-adds (`host_kernels.conv_costs`)."""

    conv_macs_per_s: float
    matmul_macs_per_s: float
    bytes_per_s: float
    op_overhead_s: float
    flat_copy_cost: int
    flat_store_cost: int
    flat_residual_cost: int
    direct_copy_cost: int
    direct_store_cost: int
    direct_residual_cost: int
    pointwise_pack_cost: int
    pointwise_store_cost: int
    pointwise_residual_cost: int
    winograd_transform_cost: int
    winograd_weights_cost: int


IGNORED_KEYS = {("mlip", "clock_hz"): "the cost model counts seconds, not cycles"}
"""Keys earlier target descriptions had and the model no longer reads: accepted, with a warning."""


HOST_KINDS = ("conv", "matmul", "memory")
"""Host kernel classes: MAC-bound convolutions and matrix products, everything else by bytes."""
CALL = "call"
"""The kind of a profiled `cpu.call_mlip` (timed on a simulator: never calibrates the host)."""


@dataclass(frozen=True)
class MlipWork:
    """What one MLIP call computes and moves."""

    macs: int = 0
    depthwise_macs: int = 0
    weight_elements: int = 0
    io_elements: int = 0
    """Its inputs and outputs: what DMA moves between DRAM and OCM on every call."""

    def per_images(self, images: int, batch: int) -> "MlipWork":
        """The work of `images` of the `batch` images this work computes, each image computed
        alone (a chunk's call: `chunk-mrvl-batch`); the weights stay whole."""
        return MlipWork(self.macs * images // batch, self.depthwise_macs * images // batch, self.weight_elements,
                        self.io_elements * images // batch)


@dataclass(frozen=True)
class HostWork:
    """What one host kernel computes (`macs`, for `conv` and `matmul`) and moves (`bytes`)."""

    kind: str
    macs: int
    bytes: int


@dataclass(frozen=True)
class MeasuredHostOp:
    """A host kernel a profile timed: its class and MACs as the profile recorded them, its time a run."""

    kind: str
    macs: int
    seconds: float


@dataclass(frozen=True)
class MlipEstimate:
    compute_s: float
    weights_s: float
    io_s: float
    call_s: float

    @property
    def seconds(self) -> float:
        return max(self.compute_s, self.weights_s) + self.io_s + self.call_s

    def describe(self) -> str:
        return (f"compute {duration(self.compute_s)}, weights DMA {duration(self.weights_s)} (overlapped), "
                f"I/O {duration(self.io_s)}, call {duration(self.call_s)}")


DEVICE_BYTES = {"fp16": 2, "int8": 1}
"""Bytes of one element in the MLIP's arithmetic (`quantize`)."""


@dataclass(frozen=True)
class CostModel:
    """A target description, and where its host figures come from (`host_source`)."""

    mlip: MlipTarget
    host: HostTarget
    pipeline: PipelineTarget
    source: str = "target defaults"
    host_source: str = "host assumed"
    measured_host_ops: Mapping[str, MeasuredHostOp] = field(default_factory=dict)
    """The host kernels the calibrating profile timed, by label (`op_label`)."""

    @classmethod
    def load(cls, target_file: str = "", host_profile: str = "") -> "CostModel":
        """The defaults, then `target_file`'s keys, then the host rates of `host_profile`."""
        parser = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
        parser.read_string(DEFAULT_TARGET_INI, "defaults")
        source, host_source = "target defaults", "host assumed"
        if target_file:
            given = _parse(target_file, _read(target_file))
            for section in given.sections():
                if not parser.has_section(section):
                    expected = ", ".join(f"[{s}]" for s in parser.sections())
                    raise CompileError(target_file, f"unknown section [{section}] (expected {expected})")
                known = parser.options(section) + (HOST_KEYS if section == "host" else [])
                for key, value in given.items(section):
                    if (section, key) in IGNORED_KEYS:
                        _warn_once(f"{target_file}: [{section}] {key}",
                                   f"ignored: {IGNORED_KEYS[section, key]} (remove it)")
                    elif key not in known:
                        raise CompileError(f"{target_file}: [{section}]",
                                           f"unknown key '{key}' (known: {', '.join(known)})")
                    else:
                        parser.set(section, key, value)
            source = Path(target_file).name
            if any(s == "host" or s.startswith("host.") for s in given.sections()):
                host_source = f"host from {source}"
        where = target_file or "target defaults"
        model = cls(_values(parser["mlip"], "mlip", MlipTarget, where), _host(parser, where),
                    _values(parser["pipeline"], "pipeline", PipelineTarget, where), source, host_source)
        return model.calibrated(host_profile) if host_profile else model

    def calibrated(self, profile: str) -> "CostModel":
        """The host rates measured in `profile` (`mrvl-run --profile-out`) for each class it
        timed, and the time of each kernel it timed (`host_op_seconds`); the other rates,
        and the overhead, as before."""
        ops = read_profile(profile)
        rates = host_rates(ops)
        if not rates:
            raise CompileError(profile, "no host kernel with known work: profile a bundle mrvl-compile wrote "
                               "(its report.json holds each kernel's work)")
        names = {"conv": "conv_macs_per_s", "matmul": "matmul_macs_per_s", "memory": "bytes_per_s"}
        host = replace(self.host, **{names[kind]: rate for kind, rate in rates.items()})
        return replace(self, host=host, host_source=f"host from {Path(profile).name}",
                       measured_host_ops=measured_host_ops(ops))

    # Estimates

    def mlip_estimate(self, work: MlipWork, target: TargetOptions) -> MlipEstimate:
        """One call of `work` on the MLIP of `target` (its tiles, arithmetic and weight pinning)."""
        m = self.mlip
        peak = m.peak_fp16_macs_per_s * target.num_tiles / m.tiles
        compute = work.macs / (peak * m.efficiency) + work.depthwise_macs / (peak * m.depthwise_efficiency)
        element = DEVICE_BYTES[target.quantize]
        weight_bytes = work.weight_elements * element
        pinned = target.wb_pin_ocm and weight_bytes <= m.ocm_bytes * target.num_tiles / m.tiles
        weights = 0.0 if pinned else weight_bytes / m.dma_bytes_per_s
        io = work.io_elements * element / m.dma_bytes_per_s
        return MlipEstimate(compute, weights, io, m.call_overhead_s)

    def host_seconds(self, work: HostWork) -> float:
        h = self.host
        if work.kind == "conv" and work.macs:
            return h.op_overhead_s + work.macs / h.conv_macs_per_s
        if work.kind == "matmul" and work.macs:
            return h.op_overhead_s + work.macs / h.matmul_macs_per_s
        return h.op_overhead_s + work.bytes / h.bytes_per_s

    def host_op_seconds(self, op: Operation) -> float:
        """`op`'s time as a host kernel: what the calibrating profile measured when it timed
        the same kernel (its label, class and MACs), else `host_seconds` of its work. One
        rate per class cannot tell a 7x7 stem conv from a 1x1 one, nor a kernel whose
        weights stay in cache from one streaming them: a split of a model into pipeline
        stages balances on what each kernel took."""
        work = host_work(op)
        measured = self.measured_host_ops.get(op_label(op))
        if measured is not None and (measured.kind, measured.macs) == (work.kind, work.macs):
            return measured.seconds
        return self.host_seconds(work)


@dataclass(frozen=True)
class CostModelOptions:
    """The cost model's files as the options of a pass that estimates: the pass lists this
    class before `ModulePass` among its bases and loads them with `cost_model()`; a pipeline
    hands them on to its stages as `**cost_model_options()`."""

    target_file: str = ""
    """A target description (`target/cost_model.py`); the defaults without."""
    host_profile: str = ""
    """A profile from `mrvl-run --profile --profile-out` calibrating the host's rates."""

    def cost_model(self) -> CostModel:
        return CostModel.load(self.target_file, self.host_profile)

    def cost_model_options(self) -> dict[str, str]:
        return {"target_file": self.target_file, "host_profile": self.host_profile}


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompileError(path, "no such file") from None
    except IsADirectoryError:
        raise CompileError(path, "is a directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CompileError(path, f"cannot read: {getattr(e, 'strerror', None) or e}") from None


def _parse(path: str, text: str) -> configparser.ConfigParser:
    given = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
    try:
        given.read_string(text, path)
    except configparser.Error as e:
        raise CompileError(path, f"not a target description: {' '.join(str(e).split())}") from None
    return given


@cache
def _warn_once(where: str, message: str) -> None:
    """A compile loads its target description in several passes: one warning will do."""
    warnings.warn(CompileWarning(where, message), stacklevel=4)


HOST_KEYS = [f.name for f in fields(HostTarget)]


def _host(parser: configparser.ConfigParser, where: str) -> HostTarget:
    """The host `[host] name` names, with the keys `[host]` gives over its own."""
    name = parser.get("host", "name")
    hosts = [s.removeprefix("host.") for s in parser.sections() if s.startswith("host.")]
    if name not in hosts:
        raise CompileError(f"{where}: [host] name", f"unknown host '{name}' (known: {', '.join(hosts)})")
    values = dict(parser[f"host.{name}"]) | {k: v for k, v in parser["host"].items() if k != "name"}
    return _values(values, f"host.{name}", HostTarget, where)


def _values(section: Mapping[str, str], name: str, kind: type, where: str):
    """The fields of `kind` from the text of `section`, each a positive number."""
    values = {}
    for f in fields(kind):
        text = section[f.name]
        try:
            value = f.type(float(text)) if f.type is int else f.type(text)
        except ValueError:
            raise CompileError(f"{where}: [{name}] {f.name}", f"must be a number, got '{text}'") from None
        if not (math.isfinite(value) and value > 0) and not (f.name.endswith("overhead_s") and value == 0):
            raise CompileError(f"{where}: [{name}] {f.name}", f"must be a positive number, got '{text}'")
        values[f.name] = value
    return kind(**values)


# --- Host profiles ----------------------------------------------------------------------

PROFILE_FORMAT = "mrvl-profile"
PROFILE_VERSION = 1


def read_profile(path: str) -> list[dict]:
    """The ops of a profile written by `mrvl-run --profile --profile-out`."""
    try:
        document = json.loads(_read(path))
    except json.JSONDecodeError as e:
        raise CompileError(f"{path}:{e.lineno}:{e.colno}", f"invalid JSON: {e.msg}") from None
    if not isinstance(document, dict) or document.get("format") != PROFILE_FORMAT:
        raise CompileError(path, f"not a profile: expected \"format\": \"{PROFILE_FORMAT}\" "
                           "(mrvl-run BUNDLE --profile --profile-out FILE writes one)")
    if document.get("version") != PROFILE_VERSION:
        raise CompileError(path, f"profile version {document.get('version')!r} is not {PROFILE_VERSION}")
    ops = document.get("ops")
    if not isinstance(ops, list) or not all(
        isinstance(op, dict) and isinstance(op.get("seconds"), (int, float)) and op.get("kind") in (*HOST_KINDS, CALL)
        and isinstance(op.get("macs"), int) and isinstance(op.get("bytes"), int) for op in ops
    ):
        raise CompileError(path, "ops: each needs seconds, kind, macs and bytes")
    if not any(op["kind"] in HOST_KINDS for op in ops):
        raise CompileError(path, "times no host kernel: nothing to calibrate the host with")
    return ops


def host_rates(ops: Iterable[dict]) -> dict[str, float]:
    """Each class's rate over the profiled ops of that class: total work / total time."""
    work: dict[str, float] = {}
    time: dict[str, float] = {}
    for op in ops:
        kind = op["kind"]
        amount = op["macs"] if kind in ("conv", "matmul") else op["bytes"] if kind == "memory" else 0
        if amount > 0 and op["seconds"] > 0:
            work[kind] = work.get(kind, 0) + amount
            time[kind] = time.get(kind, 0.0) + op["seconds"]
    return {kind: work[kind] / time[kind] for kind in work}


def measured_host_ops(ops: Iterable[dict]) -> dict[str, MeasuredHostOp]:
    """The host kernels of profiled `ops` by label, those whose label names one kernel of
    the profile (a label several share, as the compiler's own transposes do, names none)."""
    labelled = [op for op in ops if isinstance(op.get("label"), str)]
    counts = Counter(op["label"] for op in labelled)
    return {op["label"]: MeasuredHostOp(op["kind"], op["macs"], op["seconds"]) for op in labelled
            if op["kind"] in HOST_KINDS and op["seconds"] > 0 and counts[op["label"]] == 1}


# --- Work of IR ops ---------------------------------------------------------------------


def _shape(value: SSAValue) -> tuple[int, ...]:
    dims = tensor_shape(value.type)
    assert dims is not None
    return dims


def elements(value: SSAValue) -> int:
    dims = tensor_shape(value.type)
    return math.prod(dims) if dims is not None else 0


def _bytes(value: SSAValue) -> int:
    t = value.type
    if not isinstance(t, TensorType):
        return 0
    width = getattr(t.element_type, "bitwidth", 32)
    return math.prod(t.get_shape()) * max(1, width // 8)


def macs(op: Operation) -> int:
    """Multiply-accumulates of one graph op, MLIP layer or host kernel (0 for ops that do none)."""
    if isinstance(op, mrvl.Conv2DOp):
        _, kh, kw, ci = _shape(op.weight)  # OHWI, I per group
        return elements(op.output) * kh * kw * ci
    if isinstance(op, mrvl.FCOp):
        return elements(op.output) * _shape(op.weight)[1]
    if isinstance(op, cpu.ConvOp):
        return elements(op.Y) * math.prod(op.weights_shape()[1:])  # (M, C/group, kernel...), even packed
    if isinstance(op, cpu.ConvTransposeOp):
        return elements(op.X) * math.prod(_shape(op.W)[1:])  # each input element: (M/group, kernel...)
    if isinstance(op, cpu.GemmOp):
        a = _shape(op.A)
        return elements(op.Y) * (a[0] if op.trans_a.value.data else a[1])
    if isinstance(op, cpu.MatmulOp):
        return elements(op.Y) * _shape(op.A)[-1]
    if isinstance(op, g.ConvOp):
        return elements(op.results[0]) * math.prod(_shape(op.operands[1])[1:])
    if isinstance(op, g.ConvTransposeOp):
        return elements(op.operands[0]) * math.prod(_shape(op.operands[1])[1:])
    if isinstance(op, g.GemmOp):
        a = _shape(op.operands[0])
        trans = op.properties.get("transA")
        return elements(op.results[0]) * (a[0] if trans is not None and trans.value.data else a[1])
    if isinstance(op, g.MatMulOp):
        return elements(op.results[0]) * _shape(op.operands[0])[-1]
    return 0


def is_depthwise(op: Operation) -> bool:
    """A grouped conv with one input channel a group, as MLIP's depthwise layers run."""
    if isinstance(op, mrvl.Conv2DOp):
        return op.groups.value.data > 1 and _shape(op.weight)[3] == 1
    if isinstance(op, g.ConvOp):
        group = op.properties.get("group")
        return group is not None and group.value.data > 1 and _shape(op.operands[1])[1] == 1
    return False


_CONV_KERNELS = (cpu.ConvOp, cpu.ConvTransposeOp, g.ConvOp, g.ConvTransposeOp)
_MATMUL_KERNELS = (cpu.GemmOp, cpu.MatmulOp, g.GemmOp, g.MatMulOp)


def host_work(op: Operation) -> HostWork:
    """What `op` (a `cpu` kernel, or a `graph` op the host would run) costs the host."""
    if isinstance(op, cpu.CallMlipOp):
        return HostWork(CALL, 0, 0)
    kind = "conv" if isinstance(op, _CONV_KERNELS) else "matmul" if isinstance(op, _MATMUL_KERNELS) else "memory"
    moved = sum(_bytes(v) for v in (*op.operands, *op.results))
    return HostWork(kind, macs(op), moved)


def mlip_work(ops: Sequence[Operation], inputs: Iterable[SSAValue], outputs: Iterable[SSAValue],
              weights: Iterable[SSAValue]) -> MlipWork:
    """What a region or subgraph of MLIP `ops` (graph ops or mrvl layers) computes and moves."""
    dense = depthwise = 0
    for op in ops:
        if is_depthwise(op):
            depthwise += macs(op)
        else:
            dense += macs(op)
    io = sum(elements(v) for v in inputs) + sum(elements(v) for v in outputs)
    return MlipWork(dense, depthwise, sum(elements(v) for v in weights), io)


def subgraph_work(subgraph: mrvl.SubgraphOp) -> MlipWork:
    """What one call of an `mrvl.subgraph` computes and moves."""
    block = subgraph.body.block
    terminator = block.last_op
    outputs = terminator.operands if terminator is not None else ()
    ops = [op for op in block.ops if not isinstance(op, ConstantOp)]
    weights = [op.results[0] for op in block.ops if isinstance(op, ConstantOp)]
    return mlip_work(ops, block.args, outputs, weights)


def duration(seconds: float) -> str:
    """`5.67 ms`, `12.3 us`: three significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


# --- A whole program ----------------------------------------------------------------------


@dataclass(frozen=True)
class SubgraphEstimate:
    symbol: str
    work: MlipWork
    estimate: MlipEstimate
    calls: int


@dataclass(frozen=True)
class HostOpEstimate:
    op: Operation
    work: HostWork
    seconds: float


@dataclass(frozen=True)
class ProgramEstimate:
    """One run of a lowered module: each subgraph (times its calls) and each host kernel."""

    subgraphs: list[SubgraphEstimate]
    host_ops: list[HostOpEstimate]
    host_source: str


def estimate_program(ops: Iterable[Operation], subgraphs: Iterable[mrvl.SubgraphOp],
                     model: CostModel) -> ProgramEstimate:
    """The estimate of a program whose host part is `ops` (`cpu` kernels and calls, in run
    order) calling `subgraphs`."""
    host: list[HostOpEstimate] = []
    calls: dict[str, int] = {}
    for op in ops:
        if isinstance(op, cpu.CallMlipOp):
            callee = op.callee.root_reference.data
            calls[callee] = calls.get(callee, 0) + op.chunk_count()
        elif isinstance(op, cpu.CpuOp) and op.properties.get("alias") is None:  # an alias runs no code
            host.append(HostOpEstimate(op, host_work(op), model.host_op_seconds(op)))
    estimates = []
    for subgraph in subgraphs:
        work = subgraph_work(subgraph)
        estimate = model.mlip_estimate(work, TargetOptions.of_subgraph(subgraph))
        estimates.append(SubgraphEstimate(subgraph.sym_name.data, work, estimate, calls.get(subgraph.sym_name.data, 0)))
    return ProgramEstimate(estimates, host, model.host_source)
