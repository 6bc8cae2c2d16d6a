"""Our nodes/consts JSON against the files TVM's mrvl codegen wrote (`test/golden/`).

Each golden model is compiled through `mrvl-opt ... -t json -o DIR` and compared with TVM's
files as parsed JSON, values and key order. Every difference must be a row of the table in
`docs/json-format.md` (which gives its reason), every row must still be a difference, and
files without a listed difference must be byte-identical to TVM's.
"""

import fnmatch
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from mrvl.opt import main as mrvl_opt

ROOT = Path(__file__).parents[1]
GOLDEN = ROOT / "test" / "golden"
DOC = ROOT / "docs" / "json-format.md"
EXAMPLES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())
PIPELINE = "mrvl-pipeline{policies=compute-intensive,no-leading-concat}"
"""TVM's effective repartitioning rules, and one layout_transform per input (see the doc)."""
SYMBOL = "tvmgen_mrvl_main_0"
KEY_ORDER = "(key order)"


@dataclass(frozen=True)
class Row:
    golden: str
    file: str
    path: str
    tvm: str
    ours: str
    id: str


def documented_rows() -> list[Row]:
    """The rows of the golden-differences table of the doc."""
    text = DOC.read_text()
    marker = text.index("<!-- golden-differences")
    rows = []
    for line in text[marker:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if cells[0] in ("golden", "---"):
            continue
        assert len(cells) == 6, f"a golden-differences row needs 6 cells: {line}"
        golden, file, path, tvm, ours, id = cells
        rows.append(Row(golden, file, path.strip("`"), tvm, ours, id))
    return rows


def deliberate_ids() -> set[str]:
    return set(re.findall(r"^\| (D\d+) \|", DOC.read_text(), re.MULTILINE))


@cache
def compiled(example: str, tmp: Path) -> Path:
    out = tmp / example
    assert mrvl_opt([str(GOLDEN / example / "model.onnx"), "-p", PIPELINE, "-t", "json", "-o", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("golden-json")


def differences(ours, theirs, path: str = "") -> list[str]:
    """JSON Pointers where `ours` and `theirs` differ: a dict's keys (and their order), a
    list's elements when both have the same length and hold containers, else the value."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        found = []
        if [k for k in theirs if k in ours] != [k for k in ours if k in theirs]:
            found.append(f"{path}/{KEY_ORDER}")
        for key in [*theirs, *(k for k in ours if k not in theirs)]:
            if key in ours and key in theirs:
                found += differences(ours[key], theirs[key], f"{path}/{key}")
            else:
                found.append(f"{path}/{key}")
        return found
    lists = isinstance(ours, list) and isinstance(theirs, list)
    if lists and len(ours) == len(theirs) and any(isinstance(v, (dict, list)) for v in [*ours, *theirs]):
        return [d for i, (a, b) in enumerate(zip(ours, theirs)) for d in differences(a, b, f"{path}/{i}")]
    same = json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True)
    return [] if same else [path]


_ABSENT = object()


def lookup(document, pointer: str):
    for part in pointer.strip("/").split("/") if pointer.strip("/") else []:
        if isinstance(document, list) and part.isdigit() and int(part) < len(document):
            document = document[int(part)]
        elif isinstance(document, dict) and part in document:
            document = document[part]
        else:
            return _ABSENT
    return document


def check_cell(cell: str, value, where: str) -> None:
    """A backticked JSON cell must equal the value; `absent` must be absent; prose is free."""
    if cell == "absent":
        assert value is _ABSENT, f"{where}: documented as absent, but is {value!r}"
    elif cell.startswith("`") and cell.endswith("`"):
        assert value is not _ABSENT and value == json.loads(cell[1:-1]), f"{where}: documented {cell}, got {value!r}"


# --- the doc's table --------------------------------------------------------------------


def test_doc_rows_name_goldens_files_and_reasons():
    rows = documented_rows()
    assert rows, "docs/json-format.md has no golden-differences table"
    ids = deliberate_ids()
    for row in rows:
        assert row.golden in EXAMPLES, row
        assert row.file in ("nodes", "consts"), row
        assert row.id in ids, f"{row}: {row.id} is not in the table of deliberate differences"


# --- each golden ------------------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("kind", ["nodes", "consts"])
def test_differences_are_exactly_the_documented_ones(example, kind, out_dir):
    ours_text = (compiled(example, out_dir) / f"{SYMBOL}-{kind}.json").read_text()
    theirs_text = (GOLDEN / example / f"{SYMBOL}-{kind}.json").read_text()
    ours, theirs = json.loads(ours_text), json.loads(theirs_text)
    found = differences(ours, theirs)
    rows = [r for r in documented_rows() if r.golden == example and r.file == kind]
    unexplained = [d for d in found if not any(fnmatch.fnmatchcase(d, r.path) for r in rows)]
    assert not unexplained, f"differences from TVM not listed in docs/json-format.md: {unexplained}"
    for row in rows:
        matched = [d for d in found if fnmatch.fnmatchcase(d, row.path)]
        assert matched, f"documented difference {row.path} of {example} is gone: remove the row"
        if "*" not in row.path:
            check_cell(row.tvm, lookup(theirs, row.path), f"{example} TVM {row.path}")
            check_cell(row.ours, lookup(ours, row.path), f"{example} ours {row.path}")
    if not rows:
        assert ours_text == theirs_text, "same JSON as TVM's, but not the same bytes"


@pytest.mark.parametrize("example", EXAMPLES)
def test_tmlc_command_is_tvms(example, out_dir):
    ours = (compiled(example, out_dir) / "tmlc-commands.txt").read_text().splitlines()
    theirs = (GOLDEN / example / "tmlc-command.txt").read_text().strip()
    assert ours == [f"mrvl-tmlc {theirs}"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_sourcemap_names_every_node(example, out_dir):
    folder = compiled(example, out_dir)
    nodes = json.loads((folder / f"{SYMBOL}-nodes.json").read_text())["nodes"]
    sourcemap = json.loads((folder / f"{SYMBOL}-sourcemap.json").read_text())
    assert [(e["id"], e["name"]) for e in sourcemap["nodes"]] == [(i, n["name"]) for i, n in enumerate(nodes)]
    for entry, node in zip(sourcemap["nodes"], nodes):
        if node["op"] == "tvm_op" and node["attrs"]["layer_name"] != ["layout_transform"]:
            assert entry["onnx_nodes"], f"{node['name']} has no ONNX nodes"
            assert all(set(n) == {"name", "op_type"} for n in entry["onnx_nodes"])


def test_differences_finder():
    assert differences({"a": [1, 2], "b": {"c": 1}}, {"b": {"c": 2}, "a": [1, 3]}) == [
        f"/{KEY_ORDER}", "/b/c", "/a"]
    assert differences({"n": [[1, 2], [3]]}, {"n": [[1, 2], [4]]}) == ["/n/1"]
    assert differences({"n": [[1]]}, {"n": [[1], [2]]}) == ["/n"]
    assert differences({"x": 1}, {"y": 1}) == ["/y", "/x"]
    assert differences({"x": 1}, {"x": True}) == ["/x"]
