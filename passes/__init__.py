"""Passes from the `graph` dialect to `mrvl` and `cpu`, registered in `mrvl-opt`."""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

PASSES: dict[str, tuple[str, str]] = {
    "chunk-mrvl-batch": ("mrvl.passes.chunk_mrvl_batch", "ChunkMrvlBatchPass"),
    "cleanup-graph": ("mrvl.passes.cleanup_graph", "CleanupGraphPass"),
    "convert-layout": ("mrvl.passes.convert_layout", "ConvertLayoutPass"),
    "fold-host-qdq-pairs": ("mrvl.passes.fold_host_qdq_pairs", "FoldHostQdqPairsPass"),
    "fuse-cpu-epilogues": ("mrvl.passes.fuse_cpu_epilogues", "FuseCpuEpiloguesPass"),
    "fuse-elementwise": ("mrvl.passes.fuse_elementwise", "FuseElementwisePass"),
    "fuse-host-qdq-adds": ("mrvl.passes.fuse_host_qdq_adds", "FuseHostQdqAddsPass"),
    "fuse-host-qdq-convs": ("mrvl.passes.fuse_host_qdq_convs", "FuseHostQdqConvsPass"),
    "fuse-host-qdq-softmaxes": ("mrvl.passes.fuse_host_qdq_softmaxes", "FuseHostQdqSoftmaxesPass"),
    "fuse-mrvl": ("mrvl.passes.fuse_mrvl", "FuseMrvlPass"),
    "legalize-mrvl": ("mrvl.passes.legalize_mrvl", "LegalizeMrvlPass"),
    "lower-to-cpu": ("mrvl.passes.lower_to_cpu", "LowerToCpuPass"),
    "mrvl-host-pipeline": ("mrvl.passes.mrvl_host_pipeline", "MrvlHostPipelinePass"),
    "mrvl-pipeline": ("mrvl.passes.mrvl_pipeline", "MrvlPipelinePass"),
    "partition-mrvl": ("mrvl.passes.partition_mrvl", "PartitionMrvlPass"),
    "plan-host-memory": ("mrvl.passes.plan_host_memory", "PlanHostMemoryPass"),
    "place-ops": ("mrvl.passes.place_ops", "PlaceOpsPass"),
    "recognize-qdq": ("mrvl.passes.recognize_qdq", "RecognizeQdqPass"),
    "restore-host-qdq": ("mrvl.passes.restore_host_qdq", "RestoreHostQdqPass"),
    "split-stages": ("mrvl.passes.split_stages", "SplitStagesPass"),
    "select-host-kernels": ("mrvl.passes.select_host_kernels", "SelectHostKernelsPass"),
}
"""Pass name -> (module, class), imported only when a pipeline names the pass."""


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Lazy factories of the project's passes, by pass name."""

    def factory(module: str, cls: str) -> Callable[[], type[ModulePass]]:
        return lambda: getattr(import_module(module), cls)

    return {name: factory(*where) for name, where in PASSES.items()}
