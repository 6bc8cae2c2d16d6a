"""mrvl-pipeline: the whole flow from the `graph` dialect to MLIP subgraphs and host code.

    cleanup-graph -> place-ops -> partition-mrvl -> fuse-mrvl -> convert-layout -> lower-to-cpu

`mrvl-opt model.onnx -p 'mrvl-pipeline{num_tiles=4 quantize=fp16}'` runs it;
`MrvlPipelinePass(...).passes()` lists the stages with their options, so any stage of a
compile can be replayed alone (`pipeline_spec()` prints them for `mrvl-opt -p`).
"""

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mrvl_dialect.errors import CompileError
from mrvl.passes.cleanup_graph import CleanupGraphPass
from mrvl.passes.convert_layout import ConvertLayoutPass
from mrvl.passes.fuse_mrvl import FuseMrvlPass
from mrvl.passes.lower_to_cpu import LowerToCpuPass
from mrvl.passes.partition_mrvl import POLICIES, PartitionMrvlPass, check_target_options
from mrvl.passes.place_ops import PlaceOpsPass


@dataclass(frozen=True)
class MrvlPipelinePass(ModulePass):
    """Partition a model between MLIP and the Arm host, with the target's options."""

    name = "mrvl-pipeline"

    num_tiles: int = 8
    """MLIP tiles to use: 1, 2, 4 or 8."""
    mcpu: str = "cn10ka"
    """OCTEON 10 part: cn10ka or cnf10kb."""
    quantize: str = "fp16"
    """MLIP arithmetic mrvl-tmlc compiles for: fp16 or int8."""
    wb_pin_ocm: int = 0
    """1 preloads weights and biases into on-chip memory."""
    run_mode: str = "sim"
    """sim (mrvl-mlsim) or hw (the board)."""
    offload: bool = True
    """False keeps every op on the host (debugging, or comparing with an all-host build)."""
    placement: str = ""
    """A placement file forcing nodes onto the host or asking for MLIP."""
    policies: tuple[str, ...] = field(default_factory=lambda: tuple(POLICIES))
    """Partition policies to apply (see partition-mrvl); `policies` alone turns all off."""

    def __post_init__(self) -> None:
        check_target_options(self.name, self.target_options())
        for id in self.policies:
            if id not in POLICIES:
                raise CompileError(self.name, f"policies must be among {', '.join(POLICIES)}, got {id!r}")

    def target_options(self) -> dict[str, object]:
        return {
            "mcpu": self.mcpu, "num_tiles": self.num_tiles, "quantize": self.quantize,
            "wb_pin_ocm": self.wb_pin_ocm, "run_mode": self.run_mode,
        }

    def passes(self) -> tuple[ModulePass, ...]:
        return (
            CleanupGraphPass(),
            PlaceOpsPass(placement=self.placement, offload=self.offload),
            PartitionMrvlPass(policies=self.policies, **self.target_options()),
            FuseMrvlPass(),
            ConvertLayoutPass(),
            LowerToCpuPass(),
        )

    def pipeline_spec(self) -> str:
        """The stages as an `mrvl-opt -p` pipeline."""
        return ",".join(str(p.pipeline_pass_spec()) for p in self.passes())

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for stage in self.passes():
            stage.apply(ctx, op)
