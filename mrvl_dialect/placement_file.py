"""The placement file: which ONNX nodes must run on the host, and which should run on MLIP.

A JSON file the user writes, or edits after `save_placement` wrote the compiler's choice
(schema: `schemas/placement.schema.json`):

    {
      "format": "mrvl-placement",
      "version": 1,
      "nodes": [
        {"op_type": "Softmax", "place": "host"},
        {"name_regex": "^/layer4/", "place": "host"},
        {"name": "/layer4/conv2/Conv", "op_type": "Conv", "place": "mlip"}
      ]
    }

Each entry of `nodes` matches ONNX nodes by any combination of `name` (the exact node
name), `op_type` (the exact ONNX operator, `Conv`; a custom-domain node's own type) and
`name_regex` (a Python regular expression searched anywhere in the name: anchor it with
`^` and `$`); a node matches when every field given matches. `place` is

- `"host"`: the node runs on the Arm host, whatever the rules allow;
- `"mlip"`: the node is asked for on the accelerator. The request is honoured only if the
  MLIP rules allow it; otherwise the node stays on the host and the placement report says
  the request was refused, and why.

**The last matching entry wins**, as in `.gitignore` or CSS: write general entries first and
their exceptions after them. Above, every node under `/layer4/` runs on the host except
`/layer4/conv2/Conv`. A node that no entry matches is placed by the compiler alone.
(onnx-mlir's device-placement files use the opposite rule, first match wins.)

An entry may carry a `comment` string, and the file a top-level `comment` and `$schema`
(for editors that validate against the schema); the compiler ignores all three.

`load_placement` validates strictly, against the schema's rules plus what JSON Schema
cannot say (duplicate keys, regular expressions that do not compile or that could take
exponential time to match, `relu` for `Relu`), and reports the first problem as a
`CompileError` located at the entry: `p.json: nodes[3]: unknown key 'plase' (did you mean
'place'?)`. `save_placement` writes one exact-name entry
per node with the place the compiler chose, so that loading it reproduces the placement.
`placed_nodes` lists a module's nodes and their places; the placement report uses it too.
"""

import difflib
import json
import os
import re
import re._constants as re_constants  # the parsed form of patterns, to find nested repeats
import re._parser as re_parser
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Operation

from mrvl_dialect.errors import CompileError
from mrvl_dialect.files import write_atomically
from mrvl_dialect.graph import ConstantOp, CustomOp, YieldOp
from mrvl_dialect.graph_ops_gen import ONNX_OPS
from mrvl_dialect.locations import OnnxNode, location_nodes
from mrvl_dialect.mrvl import (
    GROUP_ATTR,
    LAYER_OPS,
    LEGALIZED_ATTR,
    PATTERN_ATTR,
    PLACE_ATTR,
    REASONS_ATTR,
    SubgraphOp,
)

Place = Literal["host", "mlip"]

FORMAT = "mrvl-placement"
VERSION = 1
PLACES: tuple[Place, ...] = ("host", "mlip")
MATCH_KEYS = ("name", "op_type", "name_regex")
"""The keys that select nodes; an entry needs at least one."""
ENTRY_KEYS = (*MATCH_KEYS, "place", "stage", "comment")
"""`stage`: the pipeline stage a pipeline bundle's file says the node ran in (`mrvl-compile
--stages`); read as a comment is."""
TOP_KEYS = ("$schema", "format", "version", "comment", "nodes")
REQUIRED_TOP_KEYS = ("format", "version", "nodes")

# The attributes `place-ops` writes on each `graph` op.

_ONNX_OP_TYPES = {op.onnx_op_type().lower(): op.onnx_op_type() for op in ONNX_OPS}
_KEY_HINTS = {  # keys of onnx-mlir's placement files and other likely guesses
    "device": "place",
    "placement": "place",
    "node_type": "op_type",
    "type": "op_type",
    "op": "op_type",
    "onnx_node_name": "name",
    "node": "name",
    "regex": "name_regex",
}
_PLACE_HINTS = {"cpu": "host", "arm": "host", "npu": "mlip", "accelerator": "mlip", "nnpa": "mlip", "mrvl": "mlip"}


# Reading


@dataclass(frozen=True)
class PlacementEntry:
    """One entry of `nodes`: which nodes it matches (None: any) and where they go."""

    index: int
    """Position in `nodes`; a later entry wins over an earlier one."""
    place: Place
    name: str | None = None
    op_type: str | None = None
    name_regex: re.Pattern[str] | None = None
    comment: str | None = None

    def matches(self, name: str, op_type: str | None) -> bool:
        return (
            (self.name is None or self.name == name)
            and (self.op_type is None or self.op_type == op_type)
            and (self.name_regex is None or self.name_regex.search(name) is not None)
        )


class Placement:
    """A loaded placement file: `decide` says where a node was asked to run."""

    def __init__(self, path: str, entries: Iterable[PlacementEntry]):
        self.path = path
        self.entries = tuple(entries)
        # Exact-name entries are looked up by name, so that a saved file of thousands of
        # entries costs a dict lookup per node rather than a scan.
        self._by_name: dict[str, list[PlacementEntry]] = {}
        self._unnamed: list[PlacementEntry] = []
        for entry in self.entries:
            if entry.name is not None:
                self._by_name.setdefault(entry.name, []).append(entry)
            else:
                self._unnamed.append(entry)

    def match(self, name: str, op_type: str | None) -> PlacementEntry | None:
        """The entry that decides node `name` of type `op_type`: the last one matching it."""
        best = next((e for e in reversed(self._by_name.get(name, ())) if e.matches(name, op_type)), None)
        for entry in reversed(self._unnamed):
            if best is not None and entry.index < best.index:
                break
            if entry.matches(name, op_type):
                return entry
        return best

    def decide(self, name: str, op_type: str | None) -> Place | None:
        """"host" (forced onto the host), "mlip" (requested), or None when no entry matches."""
        entry = self.match(name, op_type)
        return entry.place if entry is not None else None

    def where(self, entry: PlacementEntry) -> str:
        """How messages locate an entry: `p.json: nodes[3]`."""
        return f"{self.path}: nodes[{entry.index}]"

    def unmatched(self, nodes: Iterable[tuple[str, str | None]]) -> list[PlacementEntry]:
        """The entries that match none of `nodes` ((name, op_type) pairs): likely typos."""
        nodes = list(nodes)
        return [e for e in self.entries if not any(e.matches(n, t) for n, t in nodes)]


def load_placement(path: str | os.PathLike[str]) -> Placement:
    """Read and validate a placement file; any problem is a `CompileError` naming it."""
    where = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise CompileError(where, "no such file") from None
    except IsADirectoryError:
        raise CompileError(where, "is a directory") from None
    except OSError as e:
        raise CompileError(where, f"cannot read: {e.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CompileError(where, "is not UTF-8 text") from None
    try:
        document = json.loads(text, object_pairs_hook=_JsonObject, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise CompileError(f"{where}:{e.lineno}:{e.colno}", f"invalid JSON: {e.msg}") from None
    except ValueError as e:  # NaN or Infinity
        raise CompileError(where, f"invalid JSON: {e}") from None
    except RecursionError:  # json recurses per nesting level
        raise CompileError(where, "invalid JSON: arrays or objects nested too deeply") from None
    return Placement(where, _validate(document, where))


class _JsonObject(dict[str, object]):
    """A JSON object that remembers the keys it had more than once (json keeps the last)."""

    def __init__(self, pairs: list[tuple[str, object]]):
        super().__init__(pairs)
        seen: set[str] = set()
        self.duplicates = [k for k, _ in pairs if k in seen or seen.add(k)]


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _show(value: object) -> str:
    """A JSON value as the file spells it, shortened."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _check_keys(obj: dict[str, object], allowed: tuple[str, ...], where: str) -> None:
    if isinstance(obj, _JsonObject) and obj.duplicates:
        raise CompileError(where, f"duplicate key '{obj.duplicates[0]}'")
    for key in obj:
        if key not in allowed:
            hint = _KEY_HINTS.get(key)
            close = hint if hint in allowed else next(iter(difflib.get_close_matches(key, allowed, n=1)), None)
            hint = f" (did you mean '{close}'?)" if close else f" (allowed: {', '.join(allowed)})"
            raise CompileError(where, f"unknown key '{key}'{hint}")


def _validate(document: object, path: str) -> list[PlacementEntry]:
    if not isinstance(document, dict):
        raise CompileError(path, f"must be a JSON object with 'format', 'version' and 'nodes', got {_show(document)}")
    _check_keys(document, TOP_KEYS, path)
    for key in REQUIRED_TOP_KEYS:
        if key not in document:
            raise CompileError(path, f"missing key '{key}'")
    if document["format"] != FORMAT:
        raise CompileError(f"{path}: format", f"must be \"{FORMAT}\", got {_show(document['format'])}")
    version = document["version"]
    if isinstance(version, bool) or not isinstance(version, int | float):
        raise CompileError(f"{path}: version", f"must be the number {VERSION}, got {_show(version)}")
    if version != VERSION:
        raise CompileError(f"{path}: version", f"unsupported version {_show(version)} (this compiler reads version {VERSION})")
    for key in ("$schema", "comment"):
        if key in document and not isinstance(document[key], str):
            raise CompileError(f"{path}: {key}", f"must be a string, got {_show(document[key])}")
    nodes = document["nodes"]
    if not isinstance(nodes, list):
        raise CompileError(f"{path}: nodes", f"must be an array of entries, got {_show(nodes)}")
    return [_entry(item, i, f"{path}: nodes[{i}]") for i, item in enumerate(nodes)]


def _entry(item: object, index: int, where: str) -> PlacementEntry:
    if not isinstance(item, dict):
        raise CompileError(where, f"must be an object such as {{\"name\": \"conv1\", \"place\": \"host\"}}, got {_show(item)}")
    _check_keys(item, ENTRY_KEYS, where)
    if not any(key in item for key in MATCH_KEYS):
        raise CompileError(where, "needs at least one of 'name', 'op_type' and 'name_regex' to say which nodes it places")
    if "place" not in item:
        raise CompileError(where, "missing key 'place' (\"host\" or \"mlip\")")
    for key in ("name", "op_type", "name_regex", "comment"):
        value = item.get(key)
        if key in item and not isinstance(value, str):
            raise CompileError(f"{where}.{key}", f"must be a string, got {_show(value)}")
        if key in MATCH_KEYS and value == "":
            raise CompileError(f"{where}.{key}", "must not be empty")
    if "stage" in item and (not isinstance(item["stage"], int) or isinstance(item["stage"], bool) or item["stage"] < 0):
        raise CompileError(f"{where}.stage", f"must be a stage's index, got {_show(item['stage'])}")
    place = item["place"]
    if place not in PLACES:
        hint = _PLACE_HINTS.get(place.lower(), place.lower()) if isinstance(place, str) else None
        suggestion = f" (did you mean \"{hint}\"?)" if hint in PLACES else ""
        raise CompileError(f"{where}.place", f"must be \"host\" or \"mlip\", got {_show(place)}{suggestion}")
    op_type = item.get("op_type")
    if op_type is not None:
        _check_op_type(op_type, f"{where}.op_type")
    regex = None
    if "name_regex" in item:
        try:
            regex = re.compile(item["name_regex"])
        except re.error as e:
            raise CompileError(f"{where}.name_regex", f"is not a regular expression: {e}") from None
        if _nested_repeat(re_parser.parse(item["name_regex"])):
            raise CompileError(
                f"{where}.name_regex",
                "has a repeat inside a repeat, as in '(\\w+/?)+': matching it can take exponential time "
                "on a long node name; make the inner repeat possessive ('\\w++' for '\\w+')",
            )
    return PlacementEntry(index, place, item.get("name"), op_type, regex, item.get("comment"))


def _nested_repeat(pattern: re_parser.SubPattern, inside: bool = False) -> bool:
    """Whether a pattern repeats something inside an unbounded repeat, as `(\\w+/?)+` does.

    Python's regex engine backtracks through every way of splitting a name between the
    two repeats before a match fails, which takes exponential time in the name's length:
    a careless placement file would hang the compiler. A possessive inner repeat (`\\w++`)
    never gives characters back, and is allowed.
    """
    for op, arg in pattern:
        if op in (re_constants.MAX_REPEAT, re_constants.MIN_REPEAT):
            _, high, body = arg
            if inside and high > 1:
                return True
            children = [(body, inside or high == re_constants.MAXREPEAT)]
        elif op == re_constants.POSSESSIVE_REPEAT:
            children = [(arg[2], False)]
        elif op == re_constants.SUBPATTERN:
            children = [(arg[3], inside)]
        elif op == re_constants.BRANCH:
            children = [(branch, inside) for branch in arg[1]]
        elif op == re_constants.ATOMIC_GROUP:
            children = [(arg, inside)]
        elif op in (re_constants.ASSERT, re_constants.ASSERT_NOT):
            children = [(arg[1], inside)]
        else:
            children = []
        if any(_nested_repeat(child, child_inside) for child, child_inside in children):
            return True
    return False


def _check_op_type(op_type: str, where: str) -> None:
    """Catch op types that can never match: `relu` for `Relu`, `onnx.Conv` for `Conv`."""
    for prefix in ("onnx.", "graph.", "ai.onnx."):
        if op_type.startswith(prefix) and op_type[len(prefix):].lower() in _ONNX_OP_TYPES:
            raise CompileError(where, f"'{op_type}' is written '{op_type[len(prefix):]}' (the ONNX op type, without a prefix)")
    known = _ONNX_OP_TYPES.get(op_type.lower())
    if known is not None and known != op_type:
        raise CompileError(where, f"unknown op type '{op_type}' (did you mean '{known}'? op types are case-sensitive)")


# The placement a module carries


@dataclass(frozen=True)
class PlacedNode:
    """Where one ONNX node runs, as the IR says after `place-ops` (and `partition-mrvl`)."""

    name: str
    op_type: str | None
    """The ONNX op type; None when the op stands for several nodes (a fused `mrvl` layer)."""
    place: Place
    subgraph: str | None = None
    """The `mrvl.subgraph` that holds the node, once partitioned."""
    pattern: str | None = None
    """The MLIP layer kind: `conv2d`, `fc`, ..."""
    group: int | None = None
    """Nodes fused into one MLIP layer share a group."""
    reasons: tuple[str, ...] = ()
    """Why the node is on the host: `<rule-id>: <text> (<observed>)`, every rule that failed."""
    legalized: str | None = None
    """The legalize-mrvl rewrite that made the node MLIP layers (`clip-as-depthwise`)."""

    @property
    def runs_on(self) -> str:
        """`MLIP (mrvl_sg0, conv2d)`, `MLIP (layer 3, conv2d)` before partitioning, or `host`."""
        if self.place == "host":
            return "host"
        where = self.subgraph if self.subgraph is not None else (
            f"layer {self.group}" if self.group is not None else None
        )
        details = [d for d in (where, self.pattern) if d is not None]
        return f"MLIP ({', '.join(details)})" if details else "MLIP"


@lru_cache(maxsize=None)
def _is_layer_class(cls: type[Operation]) -> bool:
    """Whether ops of `cls` are MLIP layers (looked up once per class: `isinstance` against
    op classes goes through ABCMeta, once for each class of the tuple)."""
    return issubclass(cls, LAYER_OPS)


def _is_node(op: Operation) -> bool:
    if _is_layer_class(type(op)):
        return True
    if op.name.startswith("cpu.") and op.name != "cpu.call_mlip":
        # A node lowered to several cpu ops keeps its placement on the last; the others
        # are its helpers (cpu ops exist only after place-ops has run).
        return PLACE_ATTR in op.attributes
    return op.name.startswith("graph.") and not isinstance(op, ConstantOp | YieldOp)


def placed_nodes(module: ModuleOp) -> list[PlacedNode]:
    """Every ONNX node of `module` and where it runs, in program order.

    Nodes are the `graph` ops (but constants) of each function, including those nested in
    `If`/`Loop`/`Scan` bodies, and the `graph` ops and `mrvl` layers of each
    `mrvl.subgraph`, listed where the host first calls the subgraph (a subgraph nobody
    calls comes last). A layer fused from several nodes (`loc(fused["conv1", "relu1"])`)
    gives one entry per name. Ops without an ONNX name were added by the compiler (layout
    transposes) and are not nodes. A named `graph` op outside subgraphs without a
    `mrvl.place` attribute is a `CompileError`: `place-ops` has not run.
    """
    tops: list[Operation] = []
    pending = [module]
    while pending:
        for op in pending.pop(0).body.block.ops:
            (pending.append if isinstance(op, ModuleOp) else tops.append)(op)
    subgraphs = {op.sym_name.data: op for op in tops if isinstance(op, SubgraphOp)}
    visited: set[str] = set()
    nodes: list[PlacedNode] = []
    legalized_attr = module.attributes.get(LEGALIZED_ATTR)
    legalized = {k: v.data for k, v in legalized_attr.data.items()} if isinstance(legalized_attr, DictionaryAttr) else {}
    listed: set[tuple[str, str | None]] = set()

    def visit_subgraph(name: str) -> None:
        visited.add(name)
        for op in subgraphs[name].body.block.ops:
            visit(op, name, None)

    def visit(op: Operation, subgraph: str | None, enclosing: Place | None) -> None:
        for attr in (*op.properties.values(), *op.attributes.values()):
            if isinstance(attr, SymbolRefAttr) and not attr.nested_references.data:
                callee = attr.root_reference.data
                if callee in subgraphs and callee not in visited:
                    visit_subgraph(callee)
        place = enclosing
        if _is_node(op) and (onnx_nodes := location_nodes(op.location)):
            place = _place(op, onnx_nodes[0].name, subgraph, enclosing)
            for node in onnx_nodes:
                entry = _node(op, node, place, subgraph, len(onnx_nodes) == 1, legalized.get(node.name))
                # A node several ops or layers stand for (a legalised one) is listed once.
                if (entry.name, entry.op_type) not in listed:
                    listed.add((entry.name, entry.op_type))
                    nodes.append(entry)
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    visit(nested, subgraph, place)

    for op in tops:
        if isinstance(op, func.FuncOp):
            for block in op.body.blocks:
                for body_op in block.ops:
                    visit(body_op, None, None)
    for name in subgraphs:
        if name not in visited:
            visit_subgraph(name)
    return nodes


def _place(op: Operation, name: str, subgraph: str | None, enclosing: Place | None) -> Place:
    if subgraph is not None or isinstance(op, LAYER_OPS):
        return "mlip"
    attr = op.attributes.get(PLACE_ATTR)
    if attr is None and enclosing is not None:
        return enclosing  # a node in an If/Loop body runs where the If/Loop runs
    if not isinstance(attr, StringAttr):
        raise CompileError(f"node '{name}'", "has no placement ('mrvl.place'); run place-ops first")
    if attr.data not in PLACES:
        raise CompileError(f"node '{name}'", f"'mrvl.place' must be \"host\" or \"mlip\", got {_show(attr.data)}")
    return attr.data  # type: ignore[return-value]


def _node(op: Operation, node: OnnxNode, place: Place, subgraph: str | None, single: bool,
          legalized: str | None) -> PlacedNode:
    if isinstance(op, LAYER_OPS):
        op_type, pattern = node.op_type, op.name.removeprefix("mrvl.")
    elif node.op_type is not None:  # a cpu op names the ONNX operator it came from
        op_type = node.op_type
        pattern_attr = op.attributes.get(PATTERN_ATTR)
        pattern = pattern_attr.data if isinstance(pattern_attr, StringAttr) else None
    else:
        op_type = (op.op_type.data if isinstance(op, CustomOp) else op.name.removeprefix("graph.")) if single else None
        pattern_attr = op.attributes.get(PATTERN_ATTR)
        pattern = pattern_attr.data if isinstance(pattern_attr, StringAttr) else None
    group_attr = op.attributes.get(GROUP_ATTR)
    reasons_attr = op.attributes.get(REASONS_ATTR)
    reasons = tuple(r.data for r in reasons_attr.data if isinstance(r, StringAttr)) if isinstance(reasons_attr, ArrayAttr) else ()
    return PlacedNode(
        name=node.name,
        op_type=op_type,
        place=place,
        subgraph=subgraph,
        pattern=pattern if place == "mlip" else None,
        group=group_attr.value.data if isinstance(group_attr, IntegerAttr) and place == "mlip" else None,
        reasons=reasons,
        legalized=legalized,
    )


# Writing


def placement_entries(nodes: Iterable[PlacedNode]) -> list[dict[str, str]]:
    """The entries `save_placement` writes for `nodes` (`placed_nodes`): one per node, by
    exact name, in program order.

    A host node's reasons go into its `comment`, to read while editing. A node listed
    twice with one place (a node split over two ops) is written once.
    """
    entries: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for node in nodes:
        if (node.name, node.place) in seen:
            continue
        seen.add((node.name, node.place))
        entry = {"name": node.name}
        if node.op_type is not None:
            entry["op_type"] = node.op_type
        entry["place"] = node.place
        if node.place == "host" and node.reasons:
            entry["comment"] = "; ".join(node.reasons)
        entries.append(entry)
    return entries


def format_placement(entries: Iterable[dict[str, str]]) -> str:
    """A placement file's text: one entry per line, keys in a fixed order, final newline."""
    lines = [json.dumps(entry, ensure_ascii=False) for entry in entries]
    body = ",\n".join(f"    {line}" for line in lines)
    return (
        "{\n"
        f'  "format": "{FORMAT}",\n'
        f'  "version": {VERSION},\n'
        + ('  "nodes": [\n' + body + "\n  ]\n" if lines else '  "nodes": []\n')
        + "}\n"
    )


def save_placement(module: ModuleOp, path: str | os.PathLike[str]) -> None:
    """Write the placement `module` carries to `path`, through a temporary file in the same
    folder, so that `path` is never half written and a failed call leaves it as it was."""
    text = format_placement(placement_entries(placed_nodes(module)))
    target = Path(path)
    try:
        write_atomically(target, text)
    except OSError as e:
        raise CompileError(str(path), f"cannot write: {e.strerror or e}") from None
