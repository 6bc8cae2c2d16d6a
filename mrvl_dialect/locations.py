"""The ONNX nodes an op stands for, as its location records them.

The importer gives each `graph` op its node's name, `loc("conv1")`. An op that no longer
says which ONNX operator it came from (a `cpu` kernel, an `mrvl` layer) nests the
operator in the name, `loc("conv1"("Conv"))`; one that does the work of several nodes
lists them all, `loc(fused["c1"("Conv"), "r1"("Relu")])`. The placement report, the
nodes/consts JSON (`onnx_nodes`), the C comments and the profiles read them back here, and
name them here: `OnnxNode.label` and `OnnxNode.sourcemap_entry` name one node, `op_label` an
op as profiles and the reports list it.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects.builtin import ArrayAttr, FusedLoc, NameLoc, NoneAttr
from xdsl.ir import Attribute, Operation

from mrvl_dialect.cpu import CallMlipOp

from mrvl_dialect.shared_attributes import NONE, string_attr, unverified


@dataclass(frozen=True)
class OnnxNode:
    """One ONNX node: its name and, when the location says it, its operator type."""

    name: str
    op_type: str | None = None

    @property
    def label(self) -> str:
        """`conv1 (Conv)`, or `conv1` when the operator type is unknown."""
        return f"{self.name} ({self.op_type})" if self.op_type else self.name

    def sourcemap_entry(self) -> dict[str, str]:
        """The node in a sourcemap's `onnx_nodes`: `{"name": "conv1", "op_type": "Conv"}`."""
        return {"name": self.name} | ({"op_type": self.op_type} if self.op_type is not None else {})


# Locations are built unverified (`unverified`): their parameters are strings and
# locations by construction, and a compile builds several per ONNX node.


def node_location(name: str, op_type: str | None = None) -> NameLoc:
    """`loc("conv1")`, or `loc("conv1"("Conv"))` with the operator type."""
    return unverified(NameLoc, string_attr(name), _op_type_location(op_type) if op_type is not None else NONE)


@lru_cache(maxsize=1024)
def _op_type_location(op_type: str) -> NameLoc:
    return unverified(NameLoc, string_attr(op_type), NONE)


def with_op_type(location: Attribute, op_type: str) -> Attribute:
    """A single node's location with its operator type nested, for an op that no longer
    says it; any other location as it is."""
    if isinstance(location, NameLoc) and isinstance(location.location, NoneAttr):
        return unverified(NameLoc, location.desc, _op_type_location(op_type))
    return location


def fused_location(locations: Iterable[Attribute]) -> FusedLoc:
    """The location of an op doing the work of several: their nodes, in order (a fused
    location among them contributes its nodes). `locations` are ops' locations."""
    parts: list[Attribute] = []
    for location in locations:
        parts += location.locations.data if isinstance(location, FusedLoc) else [location]
    return unverified(FusedLoc, ArrayAttr(parts), NONE)


def location_nodes(location: Attribute) -> list[OnnxNode]:
    """The ONNX nodes a location names, in order: none for a location without names."""
    # Exact classes first: `isinstance` with an attribute class goes through ABCMeta, and
    # the reports ask this of every op.
    kind = type(location)
    if kind is FusedLoc or (kind is not NameLoc and isinstance(location, FusedLoc)):
        return [node for part in location.locations.data for node in location_nodes(part)]
    if kind is not NameLoc and not isinstance(location, NameLoc):
        return []
    nested = location.location
    op_type = nested.desc.data if type(nested) is NameLoc or isinstance(nested, NameLoc) else None
    return [OnnxNode(location.desc.data, op_type)]


def location_name(location: Attribute) -> str | None:
    """The node name of a single node's location (`loc("conv1")`), else None."""
    return location.desc.data if isinstance(location, NameLoc) else None


COMPILER_INSERTED = "inserted by the compiler"
"""The label of an op no ONNX node stands for (a layout transpose, a chunk's slice)."""


def op_label(op: Operation) -> str:
    """What profiles and the reports call an op: its ONNX nodes and the op,
    `conv1 (Conv), relu1 (Relu) (cpu.conv)`, or the subgraph a call runs,
    `@tvmgen_mrvl_main_0 (cpu.call_mlip)`."""
    if isinstance(op, CallMlipOp):
        return f"@{op.callee.root_reference.data} ({op.name})"
    nodes = ", ".join(node.label for node in location_nodes(op.location))
    return f"{nodes or COMPILER_INSERTED} ({op.name})"


_NOT_IN_HINTS = re.compile(r"[^\w.]")
"""The characters a name hint spells `_`: all but `.` and `\\w` (what `str.isalnum` takes, and `_`)."""
_NUMBERED = re.compile(r"(_\d+)+$")


def tensor_name_hint(name: str) -> str | None:
    """An SSA name close to the ONNX tensor name (the printer makes it unique). Every `_<n>`
    suffix goes (tf2onnx's `Relu__20:0`): xDSL drops one from each name it is given, so one
    left behind would go when the printed IR is parsed, and printing again would differ."""
    hint = _NOT_IN_HINTS.sub("_", name).strip("_.")
    hint = _NUMBERED.sub("", hint)
    if not hint or hint.isdigit():
        return None
    return hint if not hint[0].isdigit() else f"t{hint}"
