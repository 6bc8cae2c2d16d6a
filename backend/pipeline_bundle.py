"""The pipeline bundle: a model cut into stages (`mrvl-compile --stages N`), one archive.

    NAME.tar
      pipeline.json     the manifest (`pipeline_document`, schemas/pipeline.schema.json)
      stage0.tar ...    each stage a complete bundle (`bundle.write_bundle`), run alone by mrvl-run
      report.txt, report.html, placement.json, ...   the whole model's, with each node's stage

Stage k receives all its inputs from stage k - 1 (stage 0: the model's inputs) and sends
all its outputs to stage k + 1 (the last stage's are the model's outputs, in order); a
tensor that skips a stage is passed through it, listed in its inputs and its outputs. A
stage bundle's `metadata.json` lists its inputs and outputs in the manifest's order, by
the same names. Written like a bundle: a folder, or a reproducible `.tar`, whole or not
at all.
"""

import re
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from mrvl.backend.bundle import Bundle, write_bundle
from mrvl.backend.bundle_archive import folder_files, write_tar
from mrvl.backend.output_directory import Content, staged_directory, write_file
from mrvl_dialect.files import staging_prefix

PIPELINE_FILE = "pipeline.json"
PIPELINE_FORMAT = "mrvl-pipeline"
PIPELINE_VERSION = 1
PIPELINE_FILES = re.compile(r"[^/]+\.(json|csv|txt|html)|stage\d+\.tar")
"""What a pipeline folder holds: a folder holding only these may be replaced."""


def stage_bundle_file(stage: int) -> str:
    return f"stage{stage}.tar"


@dataclass(frozen=True)
class PipelineStage:
    """What the manifest says of one stage."""

    bundle: Bundle
    nodes: list[str]
    """The ONNX nodes it computes."""
    forwarded: list[bool]
    """For each output: an input passed through?"""
    producers: list[str | int]
    """For each input: "input" (a model input) or the stage that computes it."""
    layouts: dict[str, str]
    """The layout of a tensor not in its ONNX shape's order ("NHWC"), by name."""
    mlip_s: float
    host_s: float
    link_s: float
    mlip_tiles: int


def _tensor(entry: dict, layouts: dict[str, str] | None = None) -> dict:
    layout = {"layout": layouts[entry["name"]]} if layouts and entry["name"] in layouts else {}
    return {"name": entry["name"], "shape": entry["shape"], "dtype": entry["dtype"], "bytes": entry["bytes"], **layout}


def pipeline_document(model_file: str, sha256: str, link_bytes_per_s: float, tiles: int,
                      stages: Sequence[PipelineStage]) -> dict:
    """`pipeline.json`: the stages in order, their tensors, estimates, cores and tiles."""
    seconds = [s.mlip_s + s.host_s + s.link_s for s in stages]
    bottleneck = seconds.index(max(seconds))
    first, last = stages[0].bundle.metadata, stages[-1].bundle.metadata
    return {
        "format": PIPELINE_FORMAT,
        "version": PIPELINE_VERSION,
        "model": {"file": model_file, "sha256": sha256},
        "inputs": [_tensor(t) for t in first["inputs"]],
        "outputs": [_tensor(t) for t in last["outputs"]],
        "link_bytes_per_s": link_bytes_per_s,
        "tiles": tiles,
        "estimate": {"frames_per_s": 1.0 / seconds[bottleneck], "bottleneck_stage": bottleneck,
                     "latency_s": sum(seconds)},
        "stages": [
            {
                "stage": k,
                "bundle": stage_bundle_file(k),
                "inputs": [_tensor(t, stage.layouts) | {"producer": producer}
                           for t, producer in zip(stage.bundle.metadata["inputs"], stage.producers)],
                "outputs": [_tensor(t, stage.layouts) | {"forwarded": forwarded}
                            for t, forwarded in zip(stage.bundle.metadata["outputs"], stage.forwarded)],
                "nodes": stage.nodes,
                "estimate": {"seconds": seconds[k], "mlip_s": stage.mlip_s, "host_s": stage.host_s,
                             "link_s": stage.link_s},
                "host_cores": 1,
                "mlip_tiles": stage.mlip_tiles,
            }
            for k, stage in enumerate(stages)
        ],
    }


def write_pipeline(output: Path, document: dict, stages: Sequence[PipelineStage], files: dict[str, Content],
                   cross_compiler: str | None, stage: Callable[[str], AbstractContextManager]) -> None:
    """Write the pipeline bundle to `output` (a `.tar`, else a folder), whole or not at all:
    `pipeline.json`, each stage's bundle (`write_bundle`: mrvl-tmlc and the cross compiler
    run on it as on any bundle) and `files`. Raises as `write_bundle` does."""
    output = Path(output)

    def fill(folder: Path) -> None:
        for k, pipeline_stage in enumerate(stages):
            write_bundle(folder / stage_bundle_file(k), pipeline_stage.bundle, cross_compiler, stage=stage)
        for name, content in files.items():
            write_file(folder / name, content)
        write_file(folder / PIPELINE_FILE, document)

    if output.suffix == ".tar":
        with tempfile.TemporaryDirectory(dir=output.parent, prefix=staging_prefix(output), suffix=".tmp") as tmp:
            fill(Path(tmp))
            write_tar(output, folder_files(Path(tmp)))
    else:
        with staged_directory(output, PIPELINE_FILES, "a pipeline bundle") as folder:
            fill(folder)
