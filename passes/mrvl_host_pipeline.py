"""mrvl-host-pipeline: the host code made ready for `-t c`, after `mrvl-pipeline`.

    select-host-kernels -> plan-host-memory

`mrvl-opt model.onnx -p mrvl-pipeline,mrvl-host-pipeline -t c -o DIR` runs it; `-t c` and
`mrvl-translate --to-c` run no pass and refuse a function it has not been through.
Its options are the cost model's (`target_file`, `host_profile`), for `select-host-kernels`.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from mrvl.target.cost_model import CostModelOptions
from mrvl.passes.plan_host_memory import PlanHostMemoryPass
from mrvl.passes.select_host_kernels import SelectHostKernelsPass


@dataclass(frozen=True)
class MrvlHostPipelinePass(CostModelOptions, ModulePass):
    """Choose each host op's C kernel, then plan the host memory."""

    name = "mrvl-host-pipeline"

    def passes(self) -> tuple[ModulePass, ...]:
        return (SelectHostKernelsPass(**self.cost_model_options()), PlanHostMemoryPass())

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for stage in self.passes():
            stage.apply(ctx, op)
