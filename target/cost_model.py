"""The cost model: how long an MLIP subgraph and a host kernel take, from a target description.

The target description is a small INI file (`configparser`), as Arm's Vela reads `vela.ini`:
`[mlip]` the accelerator (clock, tiles, peak fp16 MAC/s, efficiency, DMA, on-chip memory,
the fixed cost of one call), `[host]` the Arm host's throughput per kernel class. Its
defaults are `DEFAULT_TARGET_INI` (also `docs/target.ini`; `docs/cost-model.md` explains
each value and where it comes from); a file given with `target_file` / `--target-file`
overrides the keys it sets. `host_profile` / `--host-profile` replaces the host
throughputs with those measured by `mrvl-run --profile --profile-out FILE` on the machine
that runs the bundle.

Estimates, per call and per kernel:

- an MLIP subgraph: `max(compute, weight DMA) + I/O DMA + call overhead`, where compute is
  dense MACs / (peak x efficiency) plus depthwise MACs / (peak x depthwise efficiency),
  peak scaled linearly from the description's `tiles` to the compile's `num_tiles`, weight
  DMA the device-format weights (fp16: 2 bytes an element) over the DMA rate, overlapped
  with compute as in Marvell's published run (skipped when `wb_pin_ocm=1` and they fit
  the OCM), and I/O the subgraph's inputs and outputs in the device format;
- a host kernel: its overhead plus its MACs over the class's MAC rate (`conv`, `matmul`),
  or, for every other kernel, the bytes it reads and writes over `bytes_per_s`.

Partitioning (`partition-mrvl`'s `worth-the-call` policy) and legalisation
(`legalize-mrvl`) weigh these estimates; the reports print them.
"""

import configparser
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

import mrvl_dialect.graph_ops_gen as g
from mrvl_dialect import cpu, mrvl
from mrvl_dialect.errors import CompileError
from mrvl_dialect.graph import ConstantOp
from mrvl.target.options import TargetOptions

DEFAULT_TARGET_INI = """\
# The target a compile estimates latency for (mrvl-xdsl cost model; docs/cost-model.md).
# Copy this file, edit it and give it to mrvl-compile --target-file FILE (or to the
# passes as target_file="FILE"); keys left out keep these defaults. "published" values
# are Marvell's simulator figures for ResNet-50 (fp16, 8 tiles); "assumed" values are
# not published: measure them on your board and change them here.

[mlip]
# published: 5,674,071 cycles in 5,674.07 us.
clock_hz = 1.0e9
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

[host]
# assumed: one Neoverse N2 core (two 128-bit FMA pipes, 2.5 GHz: 20 G fp32 MAC/s peak)
# at 40% of peak in the C kernels. Calibrate with --host-profile.
conv_macs_per_s = 8.0e9
# assumed: as conv_macs_per_s (the same packed micro-kernel).
matmul_macs_per_s = 8.0e9
# assumed: the bytes an elementwise, pooling or data-movement kernel reads and writes a
# second (one core streaming from DRAM).
bytes_per_s = 8.0e9
# assumed: the fixed cost of one host kernel call.
op_overhead_s = 0.2e-6
"""


@dataclass(frozen=True)
class MlipTarget:
    """`[mlip]`: the accelerator."""

    clock_hz: float
    tiles: int
    peak_fp16_macs_per_s: float
    efficiency: float
    depthwise_efficiency: float
    dma_bytes_per_s: float
    ocm_bytes: int
    call_overhead_s: float


@dataclass(frozen=True)
class HostTarget:
    """`[host]`: the Arm host's kernels."""

    conv_macs_per_s: float
    matmul_macs_per_s: float
    bytes_per_s: float
    op_overhead_s: float


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
    source: str = "target defaults"
    host_source: str = "host assumed"

    @classmethod
    def load(cls, target_file: str = "", host_profile: str = "") -> "CostModel":
        """The defaults, then `target_file`'s keys, then the host rates of `host_profile`."""
        parser = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
        parser.read_string(DEFAULT_TARGET_INI, "defaults")
        source, host_source = "target defaults", "host assumed"
        if target_file:
            text = _read(target_file)
            given = configparser.ConfigParser(inline_comment_prefixes=("#", ";"))
            try:
                given.read_string(text, target_file)
            except configparser.Error as e:
                raise CompileError(target_file, f"not a target description: {' '.join(str(e).split())}") from None
            for section in given.sections():
                if not parser.has_section(section):
                    raise CompileError(target_file, f"unknown section [{section}] (expected [mlip] or [host])")
                for key, value in given.items(section):
                    if not parser.has_option(section, key):
                        known = ", ".join(parser.options(section))
                        raise CompileError(f"{target_file}: [{section}]", f"unknown key '{key}' (known: {known})")
                    parser.set(section, key, value)
            source = Path(target_file).name
            if given.has_section("host"):
                host_source = f"host from {source}"
        where = target_file or "target defaults"
        model = cls(_section(parser, "mlip", MlipTarget, where), _section(parser, "host", HostTarget, where), source,
                    host_source)
        return model.calibrated(host_profile) if host_profile else model

    def calibrated(self, profile: str) -> "CostModel":
        """The host rates measured in `profile` (`mrvl-run --profile-out`) for each class it
        timed; the others, and the overhead, as before."""
        rates = host_rates(read_profile(profile))
        if not rates:
            raise CompileError(profile, "no host kernel with known work: profile a bundle mrvl-compile wrote "
                               "(its report.json holds each kernel's work)")
        names = {"conv": "conv_macs_per_s", "matmul": "matmul_macs_per_s", "memory": "bytes_per_s"}
        host = replace(self.host, **{names[kind]: rate for kind, rate in rates.items()})
        return replace(self, host=host, host_source=f"host from {Path(profile).name}")

    # Estimates

    def mlip_estimate(self, work: MlipWork, num_tiles: int, quantize: str = "fp16",
                      wb_pin_ocm: int = 0) -> MlipEstimate:
        m = self.mlip
        peak = m.peak_fp16_macs_per_s * num_tiles / m.tiles
        compute = work.macs / (peak * m.efficiency) + work.depthwise_macs / (peak * m.depthwise_efficiency)
        element = DEVICE_BYTES.get(quantize, 2)
        weight_bytes = work.weight_elements * element
        pinned = wb_pin_ocm and weight_bytes <= m.ocm_bytes * num_tiles / m.tiles
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


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompileError(path, "no such file") from None
    except IsADirectoryError:
        raise CompileError(path, "is a directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CompileError(path, f"cannot read: {getattr(e, 'strerror', None) or e}") from None


def _section(parser: configparser.ConfigParser, name: str, kind: type, where: str):
    values = {}
    for f in fields(kind):
        text = parser.get(name, f.name)
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


# --- Work of IR ops ---------------------------------------------------------------------


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return value.type.get_shape()


def elements(value: SSAValue) -> int:
    return math.prod(_shape(value)) if isinstance(value.type, TensorType) else 0


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

    @property
    def mlip_s(self) -> float:
        return sum(s.estimate.seconds * s.calls for s in self.subgraphs)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.subgraphs)

    @property
    def host_s(self) -> float:
        return sum(h.seconds for h in self.host_ops)

    def line(self) -> str:
        """`estimated 8.1 ms: MLIP 5.2 ms in 3 calls, host 2.9 ms (host from profile.json)`."""
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        return (f"estimated {duration(self.mlip_s + self.host_s)}: MLIP {duration(self.mlip_s)} in {calls}, "
                f"host {duration(self.host_s)} ({self.host_source})")


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
            work = host_work(op)
            host.append(HostOpEstimate(op, work, model.host_seconds(work)))
    estimates = []
    for subgraph in subgraphs:
        target = TargetOptions.of_subgraph(subgraph)
        work = subgraph_work(subgraph)
        estimate = model.mlip_estimate(work, target.num_tiles, target.quantize, target.wb_pin_ocm)
        estimates.append(SubgraphEstimate(subgraph.sym_name.data, work, estimate, calls.get(subgraph.sym_name.data, 0)))
    return ProgramEstimate(estimates, host, model.host_source)
