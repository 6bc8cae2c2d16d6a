"""Pipeline archives cut by hand, for the MPI runner's tests and benchmark until
`mrvl-compile --stages` writes them: a model's nodes, in their (topological) order, cut after
the node that computes each cut tensor; each piece compiled into a bundle with mrvl-compile's
Python API; `pipeline.json` as docs/pipeline-format.md lays it out.

Between two stages flows every tensor computed or given before the cut and read after it (or
a model output): a residual that skips a stage is one of its inputs and one of its outputs
too, the same ONNX tensor, which its bundle copies (forwarded)."""

import hashlib
import io
import json
import tarfile
from pathlib import Path

import onnx
from onnx import helper

from mrvl.compile import compile_model
from mrvl.run import numpy_dtype

LINK_BYTES_PER_S = 1.0e9


def _crossing(model: onnx.ModelProto, cut_after: list[int]) -> list[list[str]]:
    """For each cut (after node index i), the tensors that cross it, in the order they are made."""
    graph = model.graph
    made = [i.name for i in graph.input] + [o for node in graph.node for o in node.output]
    made_at = {name: -1 for name in (i.name for i in graph.input)}
    made_at |= {o: n for n, node in enumerate(graph.node) for o in node.output}
    last_read = {}
    for n, node in enumerate(graph.node):
        for name in node.input:
            last_read[name] = n
    for o in graph.output:
        last_read[o.name] = len(graph.node)
    return [[t for t in made if made_at[t] <= cut < last_read.get(t, -1)] for cut in cut_after]


def cut_model(model: onnx.ModelProto, cuts: list[str]) -> list[tuple[onnx.ModelProto, list[str]]]:
    """`model` (shapes inferred) cut after the nodes computing `cuts`: each stage's model and nodes."""
    graph = model.graph
    producer = {o: n for n, node in enumerate(graph.node) for o in node.output}
    cut_after = sorted(producer[c] for c in cuts)
    boundaries = [[i.name for i in graph.input], *_crossing(model, cut_after), [o.name for o in graph.output]]
    types = _value_types(model)
    weights = {w.name: w for w in graph.initializer}
    starts = [0, *(c + 1 for c in cut_after)]
    ends = [*(c + 1 for c in cut_after), len(graph.node)]
    stages = []
    for k, (start, end) in enumerate(zip(starts, ends)):
        nodes = list(graph.node[start:end])
        used = {name for node in nodes for name in node.input}
        stage_graph = helper.make_graph(
            nodes, f"stage{k}", [types[t] for t in boundaries[k]], [types[t] for t in boundaries[k + 1]],
            [weights[name] for name in sorted(used & weights.keys())])
        stage = helper.make_model(stage_graph, opset_imports=model.opset_import, ir_version=model.ir_version)
        stages.append((stage, [node.name for node in nodes]))
    return stages


def _value_types(model: onnx.ModelProto) -> dict[str, onnx.ValueInfoProto]:
    """Each tensor's type, a graph output's from shape inference when the model leaves its shape out."""
    graph = model.graph
    return {v.name: v for v in [*graph.output, *graph.value_info, *graph.input]}


def _tensor(value: onnx.ValueInfoProto) -> dict:
    dtype = numpy_dtype(helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type).name)
    shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
    count = 1
    for d in shape:
        count *= d
    return {"name": value.name, "shape": shape, "dtype": dtype.name, "bytes": count * dtype.itemsize}


def write_pipeline(model_path: Path, cuts: list[str], output: Path, **compile_options) -> Path:
    """The model at `model_path` cut after `cuts` into the pipeline archive `output` (a .tar)."""
    model = onnx.shape_inference.infer_shapes(onnx.load(str(model_path)))
    folder = output.with_suffix(".stages")
    folder.mkdir(parents=True, exist_ok=True)
    entries, producer = [], {i.name: "input" for i in model.graph.input}
    for k, (stage, nodes) in enumerate(cut_model(model, cuts)):
        onnx.save(stage, folder / f"stage{k}.onnx")
        result = compile_model(folder / f"stage{k}.onnx", folder / f"stage{k}.tar", **compile_options)
        estimate = result.report.estimate
        inputs = [i.name for i in stage.graph.input]
        entries.append({
            "stage": k, "bundle": f"stage{k}.tar",
            "inputs": [_tensor(i) | {"producer": producer[i.name]} for i in stage.graph.input],
            "outputs": [_tensor(o) | {"forwarded": o.name in inputs} for o in stage.graph.output],
            "nodes": nodes,
            "estimate": {"seconds": estimate.mlip_seconds + estimate.host_seconds, "mlip_s": estimate.mlip_seconds,
                         "host_s": estimate.host_seconds, "link_s": 0.0},
            "host_cores": 1,
            "mlip_tiles": result.metadata["options"]["num_tiles"] if result.metadata["subgraphs"] else 0,
        })
        producer |= {o.name: k for o in stage.graph.output if o.name not in inputs}
    seconds = [e["estimate"]["seconds"] for e in entries]
    manifest = {
        "format": "mrvl-pipeline", "version": 1,
        "model": {"file": model_path.name, "sha256": hashlib.sha256(model_path.read_bytes()).hexdigest()},
        "inputs": [_tensor(i) for i in model.graph.input],
        "outputs": [_tensor(_value_types(model)[o.name]) for o in model.graph.output],
        "link_bytes_per_s": LINK_BYTES_PER_S, "tiles": 8,
        "estimate": {"frames_per_s": 1 / max(seconds), "bottleneck_stage": seconds.index(max(seconds)),
                     "latency_s": sum(seconds)},
        "stages": entries,
    }
    with tarfile.open(output, "w") as archive:
        text = json.dumps(manifest, indent=1).encode()
        info = tarfile.TarInfo("pipeline.json")
        info.size = len(text)
        archive.addfile(info, io.BytesIO(text))
        for k in range(len(entries)):
            archive.add(folder / f"stage{k}.tar", f"stage{k}.tar")
    return output
