"""mrvl-pipeline: the whole flow from the `graph` dialect to MLIP subgraphs and host code.

    recognize-qdq -> cleanup-graph -> legalize-mrvl -> place-ops -> partition-mrvl -> chunk-mrvl-batch
    -> restore-host-qdq -> fuse-mrvl -> convert-layout -> lower-to-cpu -> fuse-cpu-epilogues
    -> fuse-host-qdq-convs -> fuse-host-qdq-adds -> fold-host-qdq-pairs -> fuse-elementwise

`mrvl-opt model.onnx -p 'mrvl-pipeline{num_tiles=4 quantize=fp16}'` runs it;
`MrvlPipelinePass(...).passes()` lists the stages with their options, so any stage of a
compile can be replayed alone (`pipeline_spec()` prints them for `mrvl-opt -p`).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mrvl.target.cost_model import CostModelOptions
from mrvl_dialect.errors import CompileError
from mrvl.target.options import TargetPassOptions
from mrvl.passes.chunk_mrvl_batch import ChunkMrvlBatchPass
from mrvl.passes.cleanup_graph import CleanupGraphPass
from mrvl.passes.convert_layout import ConvertLayoutPass
from mrvl.passes.fold_host_qdq_pairs import FoldHostQdqPairsPass
from mrvl.passes.fuse_cpu_epilogues import FuseCpuEpiloguesPass
from mrvl.passes.fuse_host_qdq_adds import FuseHostQdqAddsPass
from mrvl.passes.fuse_host_qdq_convs import FuseHostQdqConvsPass
from mrvl.passes.fuse_host_qdq_softmaxes import FuseHostQdqSoftmaxesPass
from mrvl.passes.fuse_elementwise import FuseElementwisePass
from mrvl.passes.fuse_mrvl import FuseMrvlPass
from mrvl.passes.legalize_mrvl import LegalizeMrvlPass
from mrvl.passes.lower_to_cpu import LowerToCpuPass
from mrvl.passes.partition_mrvl import DEFAULT_POLICIES, POLICIES, PartitionMrvlPass
from mrvl.passes.place_ops import PlaceOpsPass
from mrvl.passes.recognize_qdq import RecognizeQdqPass
from mrvl.passes.restore_host_qdq import RestoreHostQdqPass


@dataclass(frozen=True)
class MrvlPipelinePass(TargetPassOptions, CostModelOptions, ModulePass):
    """Partition a model between MLIP and the Arm host, with the target's options
    (`TargetPassOptions`) and cost model (`CostModelOptions`): every stage that estimates or
    decides gets both."""

    name = "mrvl-pipeline"

    offload: bool = True
    """False keeps every op on the host (debugging, or comparing with an all-host build)."""
    legalize: bool = True
    """Rewrite ops MLIP has no layer for into layers it has, between MLIP layers (legalize-mrvl)."""
    placement: str = ""
    """A placement file forcing nodes onto the host or asking for MLIP."""
    policies: tuple[str, ...] = DEFAULT_POLICIES
    """Partition policies to apply (see partition-mrvl); `policies` alone turns all off."""

    def __post_init__(self) -> None:
        self.target()
        self.cost_model()
        for id in self.policies:
            if id not in POLICIES:
                raise CompileError(self.name, f"policies must be among {', '.join(POLICIES)}, got {id!r}")

    def passes(self) -> tuple[ModulePass, ...]:
        target, costs = self.target().as_dict(), self.cost_model_options()
        legalize = ((LegalizeMrvlPass(placement=self.placement, **target, **costs),)
                    if self.legalize and self.offload else ())
        return (
            RecognizeQdqPass(absorb=self.offload),
            CleanupGraphPass(),
            *legalize,
            PlaceOpsPass(placement=self.placement, offload=self.offload, **target),
            PartitionMrvlPass(policies=self.policies, **target, **costs),
            ChunkMrvlBatchPass(),
            RestoreHostQdqPass(),
            FuseMrvlPass(**target),
            ConvertLayoutPass(),
            LowerToCpuPass(),
            FuseCpuEpiloguesPass(),
            FuseHostQdqConvsPass(),
            FuseHostQdqSoftmaxesPass(),
            FuseHostQdqAddsPass(),
            FoldHostQdqPairsPass(),
            FuseElementwisePass(),
        )

    def pipeline_spec(self) -> str:
        """The stages as an `mrvl-opt -p` pipeline."""
        return ",".join(str(p.pipeline_pass_spec()) for p in self.passes())

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for stage in self.passes():
            stage.apply(ctx, op)
