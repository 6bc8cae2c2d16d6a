"""mrvl-pipeline: the whole flow from the `graph` dialect to MLIP subgraphs and host code.

    recognize-qdq -> cleanup-graph -> legalize-mrvl -> place-ops -> partition-mrvl -> chunk-mrvl-batch
    -> restore-host-qdq -> fuse-mrvl -> convert-layout -> lower-to-cpu -> fuse-cpu-epilogues

`mrvl-opt model.onnx -p 'mrvl-pipeline{num_tiles=4 quantize=fp16}'` runs it;
`MrvlPipelinePass(...).passes()` lists the stages with their options, so any stage of a
compile can be replayed alone (`pipeline_spec()` prints them for `mrvl-opt -p`).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mrvl.target.cost_model import CostModel
from mrvl_dialect.errors import CompileError
from mrvl.target.options import DEFAULT_TARGET, TargetOptions
from mrvl.passes.chunk_mrvl_batch import ChunkMrvlBatchPass
from mrvl.passes.cleanup_graph import CleanupGraphPass
from mrvl.passes.convert_layout import ConvertLayoutPass
from mrvl.passes.fuse_cpu_epilogues import FuseCpuEpiloguesPass
from mrvl.passes.fuse_mrvl import FuseMrvlPass
from mrvl.passes.legalize_mrvl import LegalizeMrvlPass
from mrvl.passes.lower_to_cpu import LowerToCpuPass
from mrvl.passes.partition_mrvl import DEFAULT_POLICIES, POLICIES, PartitionMrvlPass
from mrvl.passes.place_ops import PlaceOpsPass
from mrvl.passes.recognize_qdq import RecognizeQdqPass
from mrvl.passes.restore_host_qdq import RestoreHostQdqPass


@dataclass(frozen=True)
class MrvlPipelinePass(ModulePass):
    """Partition a model between MLIP and the Arm host, with the target's options."""

    name = "mrvl-pipeline"

    num_tiles: int = DEFAULT_TARGET.num_tiles
    mcpu: str = DEFAULT_TARGET.mcpu
    quantize: str = DEFAULT_TARGET.quantize
    wb_pin_ocm: int = DEFAULT_TARGET.wb_pin_ocm
    run_mode: str = DEFAULT_TARGET.run_mode
    """The target options (`TargetOptions`: their values and meaning)."""
    offload: bool = True
    """False keeps every op on the host (debugging, or comparing with an all-host build)."""
    legalize: bool = True
    """Rewrite ops MLIP has no layer for into layers it has, between MLIP layers (legalize-mrvl)."""
    placement: str = ""
    """A placement file forcing nodes onto the host or asking for MLIP."""
    policies: tuple[str, ...] = DEFAULT_POLICIES
    """Partition policies to apply (see partition-mrvl); `policies` alone turns all off."""
    target_file: str = ""
    """A target description for the cost model (`target/cost_model.py`); the defaults without."""
    host_profile: str = ""
    """A profile from `mrvl-run --profile --profile-out` calibrating the host's rates."""

    def __post_init__(self) -> None:
        self.target_options()
        CostModel.load(self.target_file, self.host_profile)
        for id in self.policies:
            if id not in POLICIES:
                raise CompileError(self.name, f"policies must be among {', '.join(POLICIES)}, got {id!r}")

    def target_options(self) -> TargetOptions:
        """The target options, checked."""
        return TargetOptions.of_fields(self.name, self)

    def passes(self) -> tuple[ModulePass, ...]:
        costs = {"target_file": self.target_file, "host_profile": self.host_profile}
        legalize = (LegalizeMrvlPass(placement=self.placement, **costs),) if self.legalize and self.offload else ()
        return (
            RecognizeQdqPass(quantize=self.quantize, absorb=self.offload),
            CleanupGraphPass(),
            *legalize,
            PlaceOpsPass(placement=self.placement, offload=self.offload),
            PartitionMrvlPass(policies=self.policies, **costs, **self.target_options().as_dict()),
            ChunkMrvlBatchPass(),
            RestoreHostQdqPass(),
            FuseMrvlPass(),
            ConvertLayoutPass(),
            LowerToCpuPass(),
            FuseCpuEpiloguesPass(),
        )

    def pipeline_spec(self) -> str:
        """The stages as an `mrvl-opt -p` pipeline."""
        return ",".join(str(p.pipeline_pass_spec()) for p in self.passes())

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for stage in self.passes():
            stage.apply(ctx, op)
