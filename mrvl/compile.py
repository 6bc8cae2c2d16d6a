"""`mrvl-compile`: one command from an ONNX model to a deployable bundle, like `tvmc compile`.

    mrvl-compile model.onnx -o model.tar [--num-tiles N] [--mcpu cn10ka]
                 [--mattr "hw -quantize=fp16 -wb_pin_ocm=1"] [--quantize fp16] [--run-mode hw]
                 [--no-offload] [--input-shape NAME=DIMS] [--placement FILE]
                 [--target-file board.ini] [--host-profile profile.json] [--cost-policy]
                 [--cross-compiler aarch64-linux-gnu-gcc] [--timing] [--print-ir-after-all]
                 [--dump-dir DIR] [-v] [--stages N | --stage-cuts T1,T2] [--replicas R]

In one process: import the model, run `mrvl-pipeline` and `mrvl-host-pipeline`, write the
MLIP subgraphs' JSON and the host C, and report. `-o` ending in `.tar` writes a reproducible archive, anything else
a directory; either appears whole or not at all, and nothing is written elsewhere (a
failing mrvl-tmlc leaves its log beside the output, `<output>.tmlc.log`). The bundle holds:

- per subgraph `<symbol>-nodes.json`, `-consts.json`, `-sourcemap.json`, and
  `tmlc-commands.txt`; with mrvl-tmlc on PATH also `bin_<symbol>/<symbol>.bin` and `tmlc.log`;
- the host program: `M.h`, `M.c`, `M_weights.bin`, the runtime sources and a `Makefile`
  (`make` for this machine's vector units, or `make CC=aarch64-linux-gnu-gcc
  ARCH_FLAGS=-mcpu=neoverse-n2`; `--cross-compiler` runs it, with those ARCH_FLAGS when the
  compiler takes them, and adds the libraries and `build.log`);
- `metadata.json` (`mrvl-bundle/1`: inputs, outputs, workspace, subgraphs; plus the
  resolved `options`, the `tool`, the `input_model` with its sha256, `tmlc` and `build`);
- `placement.json`, the placement actually used (a placement file; `--placement` it back);
- `report.txt`, `report.json`, `report-nodes.csv`, `report-subgraphs.csv`
  (`backend/compile_report.py`), whose summary is also printed, with the estimated latency
  (`--target-file`, `--host-profile`: `target/cost_model.py`), and `report.html`, a
  picture of the partition (`backend/report_html.py`), all rendered from one report
  model (`backend/report_model.py`).

`--stages N` (or `--stage-cuts`) cuts the partitioned model into pipeline stages
(`split-stages`), makes each a bundle as above (`outline_stages`, then `mrvl-host-pipeline`)
and writes them into one pipeline bundle with `pipeline.json` and the whole model's reports,
the whole bundle's with each node's stage (`backend/pipeline_bundle.py`); it prints each stage's estimate and, with `--replicas R`, that
of R copies (`target/pipeline_model.py`).

`--mattr` takes TVM's attribute string: `sim` or `hw`, `-quantize=fp16|int8` and
`-wb_pin_ocm=0|1`, separated by spaces or commas; `--quantize`, `--run-mode` and
`--wb-pin-ocm` set one attribute each and win over `--mattr`.
"""

import argparse
import functools
import gc
import hashlib
import shutil
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata as package_metadata
from io import StringIO
from pathlib import Path
from typing import IO, ParamSpec, TypeVar

import onnx
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.printer import Printer

from mrvl.backend.bundle import TARGET_ARCH_FLAGS, Bundle, host_bundle, write_bundle
from mrvl.backend.pipeline_bundle import PipelineStage, pipeline_document, write_pipeline
from mrvl.backend.compile_report import REPORT_FILES, report_files, summary
from mrvl.backend.report_model import Report, build_report
from mrvl.backend.tmlc import TmlcError, describe_tmlc
from mrvl.frontend.model_file import load_model
from mrvl.frontend.onnx_importer import import_onnx
from mrvl.opt import error_line, parse_input_shapes, printed_warnings, skip_exit_collection
from mrvl.timing import Timing
from mrvl.target.cost_model import CostModel, duration
from mrvl.target.pipeline_model import simulate
from mrvl_dialect.errors import CompileError
from mrvl_dialect.placement_file import format_placement, placement_entries
from mrvl.target.options import DEFAULT_TARGET, MATTR_OPTIONS, TargetOptions, parse_mattr
from mrvl.passes.mrvl_pipeline import MrvlPipelinePass
from mrvl.passes.partition_mrvl import DEFAULT_POLICIES
from mrvl.passes.mrvl_host_pipeline import MrvlHostPipelinePass
from mrvl.passes.outline_stages import outline_stages
from mrvl.passes.split_stages import NHWC_SUFFIX, Split, SplitStagesPass, recorded_split
from mrvl_dialect import cpu
from mrvl_dialect.locations import location_nodes, tensor_name_hint
from mrvl_dialect.mrvl import SubgraphOp

TOOL = "mrvl-compile"
PLACEMENT_FILE = "placement.json"


# --- Options ---------------------------------------------------------------------------


def target_options(
    num_tiles: int = DEFAULT_TARGET.num_tiles, mcpu: str = DEFAULT_TARGET.mcpu, mattr: str = "",
    quantize: str | None = None, wb_pin_ocm: int | None = None, run_mode: str | None = None,
) -> dict[str, object]:
    """The target options of a compile: defaults, then `mattr`, then the single options
    (checked by `mrvl-pipeline`)."""
    options = TargetOptions(mcpu=mcpu, num_tiles=num_tiles).as_dict()
    options |= parse_mattr(mattr)
    given = {"quantize": quantize, "wb_pin_ocm": wb_pin_ocm, "run_mode": run_mode}
    options |= {key: value for key, value in given.items() if value is not None}
    return options


# --- Stages ----------------------------------------------------------------------------


@dataclass
class Stages:
    """Runs a compile's stages: times them, shows progress and keeps the IR after each."""

    timing: Timing
    progress: IO[str] | None = None
    """Where `-v` reports each stage as it starts."""
    print_ir: IO[str] | None = None
    """Where `--print-ir-after-all` prints the IR after each pass."""
    dump_dir: Path | None = None
    """Where `--dump-dir` writes `NN-<pass>.mlir` after each pass."""
    dumped: int = 0

    def stage(self, name: str):
        if self.progress is not None:
            print(f"{TOOL}: [{self.timing.total:6.2f} s] {name}", file=self.progress, flush=True)
        return self.timing.stage(name)

    def after(self, name: str, module: ModuleOp) -> None:
        if self.print_ir is None and self.dump_dir is None:
            return
        text = StringIO()
        Printer(stream=text).print_op(module)
        text.write("\n")
        if self.print_ir is not None:
            print(f"// -----// IR Dump After {name} //----- //", file=self.print_ir)
            self.print_ir.write(text.getvalue())
        if self.dump_dir is not None:
            self.dump_dir.mkdir(parents=True, exist_ok=True)
            (self.dump_dir / f"{self.dumped:02d}-{name}.mlir").write_text(text.getvalue(), encoding="utf-8")
            self.dumped += 1


def partition(
    model: str | Path | bytes | onnx.ModelProto, stages: Stages, *, input_shapes: Mapping[str, list[int]] | None = None,
    offload: bool = True, placement: str | None = None, target_file: str = "", host_profile: str = "",
    cost_policy: bool = False, imported: Callable[[ModuleOp], None] | None = None, **options: object,
) -> ModuleOp:
    """Import `model` and run `mrvl-pipeline` on it, stage by stage, with `options` as
    `target_options` takes them; `cost_policy` adds the `worth-the-call` policy;
    `imported` sees the module as imported."""
    policies = (*DEFAULT_POLICIES, *(("worth-the-call",) if cost_policy else ()))
    pipeline = MrvlPipelinePass(offload=offload, placement=str(placement or ""), target_file=target_file,  # type: ignore[arg-type]
                                host_profile=host_profile, policies=policies, **target_options(**options))
    with stages.stage("import-onnx"):
        module = import_onnx(model, dict(input_shapes or {}))
    stages.after("import-onnx", module)
    if imported is not None:
        imported(module)
    ctx = Context()
    with stages.stage(pipeline.name):
        for stage in pipeline.passes():
            with stages.stage(stage.name):
                stage.apply(ctx, module)
            stages.after(stage.name, module)
    return module


# --- The bundle --------------------------------------------------------------------------


@dataclass(frozen=True)
class CompileResult:
    """What `compile_model` wrote and found."""

    output: Path
    metadata: dict
    report: Report
    """What the reports say (`backend/report_model.py`); `summary(report)` is what mrvl-compile prints."""
    timing: Timing
    pipeline: "PipelineResult | None" = None
    """The stages of a pipeline bundle."""


class _FileDigest:
    """The sha256 of a file, read and hashed in a thread of its own while the compile goes
    on: reading and hashing let other threads run, so with a second core a large model's
    digest adds nothing to the compile's time."""

    def __init__(self, path: Path):
        self._digest = hashlib.sha256()
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._hash, args=(path,), daemon=True)
        self._thread.start()

    def _hash(self, path: Path) -> None:
        try:
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    self._digest.update(chunk)
        except OSError as e:
            self._error = e

    def hexdigest(self) -> str:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._digest.hexdigest()


def _tool_versions() -> dict[str, str]:
    """This compiler's version and those of the packages that decide its output."""
    versions = {"name": TOOL}
    for key, package in (("version", "mrvl-xdsl"), ("xdsl", "xdsl"), ("onnx", "onnx"), ("numpy", "numpy")):
        try:
            versions[key] = package_metadata.version(package)
        except package_metadata.PackageNotFoundError:
            versions[key] = "unknown"
    return versions


def _model_name(model: Path) -> str:
    name = model.name
    for suffix in (".onnxtxt", ".onnxtext", ".onnx"):
        name = name.removesuffix(suffix)
    return name


P = ParamSpec("P")
R = TypeVar("R")


def _collect_less_often(function: Callable[P, R]) -> Callable[P, R]:
    """Run `function` with the cyclic garbage collector's youngest generation collected
    every 10,000 allocations instead of 700, and the middle one after 1,000 of those
    instead of 10. A compile allocates millions of IR objects that live until it ends, and
    every collection that reaches the old generation walks them all: with the defaults
    that took a fifth of a 4,500-node compile, growing faster than the model
    (benchmarks/conv_chain.py). The middle generation's collections walk every object that
    survived a young one, and find little garbage there."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        thresholds = gc.get_threshold()
        gc.set_threshold(10_000, 1_000, thresholds[2])
        try:
            return function(*args, **kwargs)
        finally:
            gc.set_threshold(*thresholds)

    return run


def _lower_and_bundle(module: ModuleOp, name: str, host_threads: int, cost_model: CostModel,
                      costs: dict[str, str], stages: Stages, prefix: str = "") -> tuple[Bundle, Report]:
    """Run `mrvl-host-pipeline` on `module`, then assemble its bundle with the reports and
    the placement file (`prefix` names the stages timed, as `stage1: emit-c-and-json`)."""
    for stage in MrvlHostPipelinePass(**costs).passes():
        with stages.stage(prefix + stage.name):
            stage.apply(Context(), module)
        stages.after(prefix + stage.name, module)
    with stages.stage(prefix + "emit-c-and-json"):
        bundle = host_bundle(module, name, host_threads, deferred_data=True)
    with stages.stage(prefix + "report"):
        report = build_report(module, cost_model)
        bundle.files |= report_files(report)
        bundle.files[PLACEMENT_FILE] = format_placement(placement_entries(report.nodes))
    return bundle, report


@dataclass(frozen=True)
class PipelineResult:
    """What `compile_model` split a model into (`pipeline_stages`, `stage_cuts`)."""

    split: Split
    document: dict
    """`pipeline.json`."""


@_collect_less_often
def compile_model(
    model: str | Path, output: str | Path, *, num_tiles: int = DEFAULT_TARGET.num_tiles,
    mcpu: str = DEFAULT_TARGET.mcpu, mattr: str = "",
    quantize: str | None = None, wb_pin_ocm: int | None = None, run_mode: str | None = None, offload: bool = True,
    input_shapes: Mapping[str, list[int]] | None = None, placement: str | Path | None = None,
    cross_compiler: str | None = None, name: str | None = None, stages: Stages | None = None,
    host_threads: int = 1,
    target_file: str | Path | None = None, host_profile: str | Path | None = None, cost_policy: bool = False,
    pipeline_stages: int = 0, stage_cuts: Sequence[str] = (),
) -> CompileResult:
    """Compile the ONNX file `model` into the bundle `output` (a `.tar`, else a folder);
    with `pipeline_stages` > 0 or `stage_cuts`, into a pipeline bundle of that many stages,
    or of stages ending at those tensors (`backend/pipeline_bundle.py`).

    Raises `CompileError` on bad input or a failing tool; then `output` is left as it was."""
    model, output = Path(model), Path(output)
    stages = stages or Stages(Timing())
    if not model.is_file():
        raise CompileError("", "is a directory" if model.is_dir() else "no such file")
    if not output.parent.is_dir():
        raise CompileError(str(output), f"cannot write: no folder {str(output.parent)!r}")
    if host_threads < 1:
        raise CompileError("--host-threads", f"must be at least 1, got {host_threads}")
    if cross_compiler is not None and shutil.which(cross_compiler) is None:
        raise CompileError("--cross-compiler", f"'{cross_compiler}' not found on PATH")
    if pipeline_stages and stage_cuts:
        raise CompileError("--stages", "and --stage-cuts both split the model: give one")
    if pipeline_stages < 0:
        raise CompileError("--stages", f"must be at least 1, got {pipeline_stages}")
    model_digest = _FileDigest(model)
    options = target_options(num_tiles, mcpu, mattr, quantize, wb_pin_ocm, run_mode)
    costs = {"target_file": str(target_file or ""), "host_profile": str(host_profile or "")}
    cost_model = CostModel.load(**costs)
    naming = OnnxTensors(model) if pipeline_stages or stage_cuts else None
    module = partition(model, stages, input_shapes=input_shapes, offload=offload, placement=placement,
                       cost_policy=cost_policy, imported=naming.imported if naming is not None else None,
                       **costs, **options)
    name = name or _model_name(model)

    def metadata() -> dict:
        """What the compile adds to a bundle's metadata (the model's digest done by now)."""
        return {
            "options": {**options, "offload": offload,
                        "input_shapes": {k: list(v) for k, v in (input_shapes or {}).items()},
                        "placement": str(placement) if placement else None, "cross_compiler": cross_compiler,
                        "host_threads": host_threads, "target_file": str(target_file) if target_file else None,
                        "host_profile": str(host_profile) if host_profile else None, "cost_policy": cost_policy},
            "tool": _tool_versions(),
            "input_model": {"file": model.name, "sha256": model_digest.hexdigest()},
            "placement": PLACEMENT_FILE,
            "reports": list(REPORT_FILES),
            "build": {"native": "make",
                      "cross": f"make CC={cross_compiler or 'aarch64-linux-gnu-gcc'} ARCH_FLAGS={TARGET_ARCH_FLAGS}"},
        }

    if naming is not None:
        split_pass = SplitStagesPass(stages=pipeline_stages or 1, cuts=",".join(stage_cuts), **costs)
        return _compile_pipeline(naming, module, output, name, metadata, host_threads, cost_model, costs, stages,
                                 cross_compiler, split_pass, int(options["num_tiles"]))  # type: ignore[call-overload]
    bundle, report = _lower_and_bundle(module, name, host_threads, cost_model, costs, stages)
    bundle.metadata |= metadata()
    with _writing(output), stages.stage("write-bundle"):
        write_bundle(output, bundle, cross_compiler, stage=stages.stage)
    return CompileResult(output, bundle.metadata, report, stages.timing)


class OnnxTensors:
    """The ONNX name and layout of a value of the partitioned IR: the output of the ONNX
    node its op's location names whose name the value's name hint spells (by result
    index among several, as a Split's), else the only node output with that hint; "NHWC"
    when the value's shape is the imported one's (`imported`, by name hint) in MLIP's
    layout. A stage's interface is named with them (`TensorNaming`)."""

    def __init__(self, model: Path):
        self.outputs: dict[str, list[str]] = {}
        by_hint: dict[str, set[str]] = {}
        for node in load_model(model).model.graph.node:
            self.outputs[node.name] = list(node.output)
            for name in node.output:
                if name and (hint := tensor_name_hint(name)) is not None:
                    by_hint.setdefault(hint, set()).add(name)
        self.unique = {hint: names.pop() for hint, names in by_hint.items() if len(names) == 1}
        self.shapes: dict[str, tuple[int, ...]] = {}

    def imported(self, module: ModuleOp) -> None:
        """Record the shapes of the values of `module`, as imported."""
        for op in module.walk():
            for result in op.results:
                if result.name_hint is not None and isinstance(result.type, TensorType):
                    self.shapes.setdefault(result.name_hint, tuple(result.type.get_shape()))

    def __call__(self, value: SSAValue) -> tuple[str | None, str | None]:
        if value.name_hint is None:
            return None, None
        hint = value.name_hint.removesuffix(NHWC_SUFFIX)
        name = self.unique.get(hint)
        if isinstance(owner := value.owner, Operation):
            for node in reversed(location_nodes(owner.location)):
                candidates = [n for n in self.outputs.get(node.name, ()) if tensor_name_hint(n) == hint]
                if len(candidates) == 1 or len(candidates) == len(owner.results) > 1:
                    name = candidates[list(owner.results).index(value) if len(candidates) > 1 else 0]
                    break
        shape, onnx_shape = tuple(value.type.get_shape()), self.shapes.get(hint)  # type: ignore[attr-defined]
        # Host glue moved to MLIP's layout keeps its names: its shape tells, unless C = H = W.
        nhwc = hint != value.name_hint or (onnx_shape is not None and len(shape) == 4 and shape != onnx_shape
                                           and shape == (onnx_shape[0], onnx_shape[2], onnx_shape[3], onnx_shape[1]))
        return (name + NHWC_SUFFIX if nhwc and name else name), ("NHWC" if nhwc else None)


def _with_stage(entry: dict[str, str], stage_of: Mapping[str, int]) -> dict:
    """A placement entry with its node's stage after its place."""
    if entry["name"] not in stage_of:
        return entry
    keys = list(entry)
    at = keys.index("place") + 1
    return {**{k: entry[k] for k in keys[:at]}, "stage": stage_of[entry["name"]], **{k: entry[k] for k in keys[at:]}}


def _compile_pipeline(naming: "OnnxTensors", module: ModuleOp, output: Path, name: str,
                      metadata: Callable[[], dict], host_threads: int, cost_model: CostModel, costs: dict[str, str],
                      stages: Stages, cross_compiler: str | None, split_pass: SplitStagesPass,
                      tiles: int) -> CompileResult:
    """Split the partitioned `module` into stages, make each a bundle, and write the pipeline bundle."""
    with stages.stage(split_pass.name):
        split_pass.apply(Context(), module)
    stages.after(split_pass.name, module)
    split = recorded_split(module, cost_model)
    with stages.stage("outline-stages"):
        stage_modules = outline_stages(module, naming)
    subgraph_nodes = {op.sym_name.data: [n.name for inner in op.body.block.ops for n in location_nodes(inner.location)]
                      for op in module.ops if isinstance(op, SubgraphOp)}

    def nodes(ops) -> list[str]:
        names: dict[str, None] = {}
        for op in ops:
            found = (subgraph_nodes[op.callee.root_reference.data] if isinstance(op, cpu.CallMlipOp)
                     else [n.name for n in location_nodes(op.location)])
            names |= dict.fromkeys(found)
        return list(names)

    producer: dict[str, str | int] = {n: "input" for n in stage_modules[0].inputs}
    pipeline_stages = []
    for k, stage_module in enumerate(stage_modules):
        bundle, _ = _lower_and_bundle(stage_module.module, f"{name}_stage{k}", host_threads, cost_model, costs,
                                      stages, prefix=f"stage{k}: ")
        estimate = split.estimates[k]
        pipeline_stages.append(PipelineStage(bundle, nodes(stage_module.ops), stage_module.forwarded,
                                             [producer[n] for n in stage_module.inputs], stage_module.layouts,
                                             estimate.mlip_s, estimate.host_s, estimate.link_s, split.shares[k]))
        producer = {n: producer[n] if forwarded else k for n, forwarded in zip(stage_module.outputs,
                                                                               stage_module.forwarded)}
    meta = metadata()
    for pipeline_stage in pipeline_stages:
        pipeline_stage.bundle.metadata |= meta
    document = pipeline_document(meta["input_model"]["file"], meta["input_model"]["sha256"],
                                 cost_model.pipeline.link_bytes_per_s, tiles, pipeline_stages)
    # The whole model's report, as a whole bundle's: its kernels chosen, its weights packed, its workspace planned.
    for host_pass in MrvlHostPipelinePass(**costs).passes():
        with stages.stage(host_pass.name):
            host_pass.apply(Context(), module)
        stages.after(host_pass.name, module)
    with stages.stage("report"):
        report = build_report(module, cost_model)
        files = report_files(report)
        stage_of = {node.name: node.stage for node in report.nodes if node.stage is not None}
        files[PLACEMENT_FILE] = format_placement([_with_stage(e, stage_of) for e in placement_entries(report.nodes)])
    with _writing(output), stages.stage("write-bundle"):
        write_pipeline(output, document, pipeline_stages, files, cross_compiler, stages.stage)
    return CompileResult(output, {**meta, "pipeline": document}, report, stages.timing, PipelineResult(split, document))


@contextmanager
def _writing(output: Path) -> Iterator[None]:
    """Writing `output`: a failing mrvl-tmlc leaves its log beside it; both errors become `CompileError`s."""
    try:
        yield
    except TmlcError as e:
        log = output.with_name(f"{output.name}.tmlc.log")
        log.write_text(e.log, encoding="utf-8")
        raise CompileError(e.where, f"{e.message} (its output: {log})") from None
    except OSError as e:
        raise CompileError(str(output), f"cannot write: {e.strerror or e}") from None


# --- Command line --------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=TOOL, description="Compile an ONNX model for OCTEON 10 (MLIP + Arm host) into a deployable bundle.")
    parser.add_argument("model", help="the ONNX model (.onnx, or text syntax .onnxtxt)")
    parser.add_argument("-o", "--output", required=True, help="the bundle: NAME.tar for an archive, else a folder")
    target = parser.add_argument_group("target (as tvmc's --target-mrvl-*)")
    for name in ("num_tiles", "mcpu"):
        target.add_argument(f"--{name.replace('_', '-')}", type=type(getattr(DEFAULT_TARGET, name)),
                            choices=TargetOptions.values(name), default=getattr(DEFAULT_TARGET, name),
                            help=TargetOptions.help(name))
    target.add_argument("--mattr", default="", help='TVM\'s attribute string, as in "hw -quantize=fp16 -wb_pin_ocm=1"')
    for name in MATTR_OPTIONS:  # no default: they override --mattr when given
        target.add_argument(f"--{name.replace('_', '-')}", type=type(getattr(DEFAULT_TARGET, name)),
                            choices=TargetOptions.values(name), help=TargetOptions.help(name))
    target.add_argument("--no-offload", action="store_true", help="run every node on the host")
    model = parser.add_argument_group("model")
    model.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                       help="fix the shape of a graph input, as in input=1x3x224x224 (repeatable)")
    model.add_argument("--placement", metavar="FILE", help="a placement file (the bundle's placement.json is one)")
    model.add_argument("--name", help="the model's name in the C files (default: the file's name)")
    cost = parser.add_argument_group("cost model (docs/cost-model.md)")
    cost.add_argument("--target-file", metavar="FILE", help="a target description (INI) for the latency estimate; "
                      "keys it leaves out keep the defaults")
    cost.add_argument("--host-profile", metavar="FILE", help="host rates measured by mrvl-run BUNDLE --profile "
                      "--profile-out FILE on the machine that will run the bundle")
    cost.add_argument("--cost-policy", action="store_true", help="keep on the host the subgraphs whose estimate, "
                      "transfers and call included, exceeds their layers' host time (policy worth-the-call)")
    pipeline = parser.add_argument_group("pipeline stages (docs/usage.md#pipeline-stages)")
    pipeline.add_argument("--stages", type=int, default=0, metavar="N",
                       help="cut the model into N consecutive stages of balanced estimated time, each a bundle "
                       "of its own, in one pipeline bundle")
    pipeline.add_argument("--stage-cuts", metavar="T1,T2,...", help="cut the model into stages that end at these "
                       "ONNX tensors")
    pipeline.add_argument("--replicas", type=int, metavar="R", help="also estimate R copies of the pipeline on "
                          "R x N processing elements (a discrete-event simulation)")
    build = parser.add_argument_group("build")
    build.add_argument("--host-threads", type=int, default=1, metavar="N",
                       help="threads the host kernels split their work over (default 1; the Makefile's HOST_THREADS)")
    build.add_argument("--cross-compiler", metavar="CC", help="also build the host libraries with this C compiler, "
                       "as in aarch64-linux-gnu-gcc")
    debug = parser.add_argument_group("diagnostics")
    debug.add_argument("--timing", action="store_true", help="print the time of each stage and pass")
    debug.add_argument("--print-ir-after-all", action="store_true", help="print the IR after each pass (stderr)")
    debug.add_argument("--dump-dir", type=Path, metavar="DIR", help="write the IR after each pass into DIR")
    debug.add_argument("-v", "--verbose", action="store_true", help="report each stage as it starts (stderr)")
    return parser


SIMULATED_FRAMES = 10_000
"""Frames `--replicas` simulates a copy running: enough that starting up costs under 0.1%."""


def describe_pipeline(document: dict, replicas: int | None) -> str:
    """What mrvl-compile prints of a pipeline bundle: a line per stage, the pipeline's
    estimate, and with `replicas` that of R copies (`target/pipeline_model.py`)."""
    lines = []
    for stage in document["stages"]:
        e = stage["estimate"]
        nodes = len(stage["nodes"])
        lines.append(f"stage {stage['stage']}: {nodes} node{'' if nodes == 1 else 's'}, {duration(e['seconds'])} "
                     f"(MLIP {duration(e['mlip_s'])}, host {duration(e['host_s'])}, link {duration(e['link_s'])}), "
                     f"{stage['mlip_tiles']} tiles")
    estimate = document["estimate"]
    lines.append(f"pipeline of {len(document['stages'])} stages: estimated {estimate['frames_per_s']:.4g} frames/s "
                 f"(stage {estimate['bottleneck_stage']} the slowest), latency {duration(estimate['latency_s'])}")
    if replicas is not None:
        stages = document["stages"]
        compute = [s["estimate"]["mlip_s"] + s["estimate"]["host_s"] for s in stages]
        link = [sum(t["bytes"] for t in s["outputs"]) / document["link_bytes_per_s"] for s in stages[:-1]]
        run = simulate(compute, link, replicas, SIMULATED_FRAMES * replicas)
        lines.append(f"{replicas} copies on {replicas * len(stages)} PEs: estimated {run.frames_per_s:.4g} frames/s "
                     f"(simulated {run.frames} frames, sends overlapping compute)")
    return "".join(line + "\n" for line in lines)


def main(args: Sequence[str] | None = None, stdout: IO[str] | None = None) -> int:
    skip_exit_collection()
    options = _parser().parse_args(args)
    out = stdout or sys.stdout
    if options.replicas is not None and not (options.stages or options.stage_cuts):
        print(f"error: --replicas: estimates copies of a pipeline: give --stages or --stage-cuts", file=sys.stderr)
        return 1
    if options.replicas is not None and options.replicas < 1:
        print(f"error: --replicas: must be at least 1, got {options.replicas}", file=sys.stderr)
        return 1
    stages = Stages(Timing(), progress=sys.stderr if options.verbose else None,
                    print_ir=sys.stderr if options.print_ir_after_all else None, dump_dir=options.dump_dir)
    try:
        with printed_warnings(options.model):
            result = compile_model(
                options.model, options.output, num_tiles=options.num_tiles, mcpu=options.mcpu, mattr=options.mattr,
                quantize=options.quantize, wb_pin_ocm=options.wb_pin_ocm, run_mode=options.run_mode,
                offload=not options.no_offload, input_shapes=parse_input_shapes(options.input_shape),
                placement=options.placement, cross_compiler=options.cross_compiler, name=options.name, stages=stages,
                host_threads=options.host_threads,
                target_file=options.target_file, host_profile=options.host_profile, cost_policy=options.cost_policy,
                pipeline_stages=options.stages,
                stage_cuts=[t.strip() for t in options.stage_cuts.split(",")] if options.stage_cuts else (),
            )
    except Exception as e:
        print(error_line(e, options.model), file=sys.stderr)
        return 1
    out.write(summary(result.report))
    if result.report.estimate is not None:
        out.write(result.report.estimate.line() + "\n")
    if result.pipeline is not None:
        out.write(describe_pipeline(result.pipeline.document, options.replicas))
    else:
        out.write(describe_tmlc(result.metadata["tmlc"]) + "\n")
    out.write(f"wrote {result.output}\n")
    if options.timing:
        out.write(result.timing.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
