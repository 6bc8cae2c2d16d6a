"""The ONNX backend node test cases, generated from onnx's own case generators.

The onnx wheel ships the generators (`onnx.backend.test.case.node`), not the data files, so
the cases are written once, in the suite's own layout (`<case>/model.onnx`,
`<case>/test_data_set_0/{input,output}_<i>.pb`), into a cache folder keyed by the onnx
version (`case_folder`), with an index (`cases.json`: per case its operator, stated accuracy and element types).
Generating takes ~20 s; concurrent processes (pytest-xdist workers) wait for the first.
"""

import fcntl
import json
import re
import shutil
import tempfile
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

INDEX = "cases.json"
FORMAT = 2
"""Of the cache; a new one regenerates the cases."""
DATA_SET = "test_data_set_0"
EXPANDED = re.compile(r"_expanded(_ver\d+)?$")
"""Suffix of the cases that run an operator's function body instead of the operator."""

INDEX_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
"""Element types a float32 case may have besides float32."""

Value = np.ndarray | list | None
"""A case's input or output: a tensor, a sequence of tensors, or an optional one."""


@dataclass(frozen=True)
class NodeCase:
    """One node test case in the cache."""

    name: str
    op_type: str
    """The operator under test; an `_expanded` case runs its function body."""
    domain: str
    rtol: float
    """The case's stated accuracy of its expected outputs (onnx's default 1e-3; some are
    written to 4 decimals)."""
    element_types: tuple[str, ...]
    """Element types of the inputs and outputs: `TensorProto.DataType` names in lower case
    (float, double, int64, ...), `sequence(float)` or `optional(...)` for those types."""
    folder: Path

    @property
    def expanded(self) -> bool:
        return EXPANDED.search(self.name) is not None

    @property
    def float32(self) -> bool:
        """Computes on float32: its inputs and outputs are float32 tensors, but for integer or
        bool tensors (indices, shapes, masks)."""
        types = set(self.element_types)
        return "float" in types and types <= {"float", *INDEX_TYPES}

    @cached_property
    def model(self) -> onnx.ModelProto:
        return onnx.load_model(self.folder / "model.onnx")

    def inputs(self) -> list[Value]:
        return [_read(self.folder / DATA_SET / f"input_{i}.pb", v.type)
                for i, v in enumerate(self.model.graph.input)]

    def outputs(self) -> list[Value]:
        return [_read(self.folder / DATA_SET / f"output_{i}.pb", v.type)
                for i, v in enumerate(self.model.graph.output)]




def case_folder(root: Path) -> Path:
    """Where the cases of the repository at `root` are generated: pytest's cache folder."""
    return root / ".pytest_cache" / "d" / "onnx-node-tests"


def load_cases(cache: Path) -> list[NodeCase]:
    """Every node test case of the installed onnx, generated into `cache` the first time."""
    root = cache / f"onnx-{onnx.__version__}-{FORMAT}"
    with _locked(cache):
        if not (root / INDEX).is_file():
            _generate(root)
    index = json.loads((root / INDEX).read_text())
    return [NodeCase(folder=root / entry["name"], **{k: v for k, v in entry.items() if k != "element_types"},
                     element_types=tuple(entry["element_types"])) for entry in index]


@contextmanager
def _locked(cache: Path):
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _generate(root: Path) -> None:
    """Write every case and the index into `root`, whole or not at all."""
    import warnings

    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():  # the generators overflow casts on purpose
        warnings.simplefilter("ignore")
        cases = collect_testcases()
    ops = {c.name: (c.model.graph.node[0].op_type, c.model.graph.node[0].domain)
           for c in cases if not EXPANDED.search(c.name)}
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root.parent, prefix=".cases-") as tmp:
        work = Path(tmp) / "cases"
        index = []
        for case in cases:
            op_type, domain = ops[EXPANDED.sub("", case.name)]
            (inputs, outputs), = case.data_sets
            folder = work / case.name / DATA_SET
            folder.mkdir(parents=True)
            (work / case.name / "model.onnx").write_bytes(case.model.SerializeToString())
            graph = case.model.graph
            for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
                for i, (value, info) in enumerate(zip(values, infos, strict=True)):
                    (folder / f"{kind}_{i}.pb").write_bytes(_proto(value, info).SerializeToString())
            index.append({
                "name": case.name, "op_type": op_type, "domain": domain, "rtol": case.rtol,
                "element_types": [_element_type(v.type) for v in (*graph.input, *graph.output)],
            })
        (work / INDEX).write_text(json.dumps(index, indent=0))
        shutil.rmtree(root, ignore_errors=True)
        work.rename(root)


def _proto(value: Any, info: onnx.ValueInfoProto):
    kind = info.type.WhichOneof("value")
    if kind == "sequence_type":
        return numpy_helper.from_list(value, info.name)
    if kind == "optional_type":
        return numpy_helper.from_optional(value, info.name)
    if kind == "map_type":
        return numpy_helper.from_dict(value, info.name)
    if isinstance(value, onnx.TensorProto):
        return value
    return numpy_helper.from_array(np.asarray(value), info.name)


def _read(path: Path, type_proto: onnx.TypeProto) -> Value:
    kind = type_proto.WhichOneof("value")
    data = path.read_bytes()
    if kind == "sequence_type":
        return numpy_helper.to_list(onnx.SequenceProto.FromString(data))
    if kind == "optional_type":
        return numpy_helper.to_optional(onnx.OptionalProto.FromString(data))
    if kind == "map_type":
        return numpy_helper.to_dict(onnx.MapProto.FromString(data))
    return numpy_helper.to_array(onnx.TensorProto.FromString(data))


def _element_type(type_proto: onnx.TypeProto) -> str:
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        elem = type_proto.tensor_type.elem_type
        return onnx.TensorProto.DataType.Name(elem).lower() if elem else ""
    if kind == "sequence_type":
        return f"sequence({_element_type(type_proto.sequence_type.elem_type)})"
    if kind == "optional_type":
        return f"optional({_element_type(type_proto.optional_type.elem_type)})"
    return kind or ""


def by_op(cases: Sequence[NodeCase]) -> dict[str, list[NodeCase]]:
    """Cases per operator, in name order."""
    grouped: dict[str, list[NodeCase]] = {}
    for case in sorted(cases, key=lambda c: c.name):
        grouped.setdefault(case.op_type, []).append(case)
    return grouped
