"""The target options an MLIP subgraph is compiled with, and the mrvl-tmlc command line.

TVM's mrvl target names them (`mcpu`, `num_tiles`, and in `mattr`: `sim`/`hw`,
`-quantize`, `-wb_pin_ocm`). Every stage reads their values, defaults and help here: the
options of the passes that estimate or decide (`TargetPassOptions`), `mrvl-compile`'s flags
and `--mattr`, the `mrvl.subgraph` properties that record them, the `tmlc-commands.txt` line
of each subgraph, and the mrvl-tmlc run of `mrvl-run`, which reads them back from that line.
"""

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Self

from xdsl.dialects.builtin import IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute
from xdsl.utils.arg_spec import ArgSpec

from mrvl_dialect.errors import CompileError
from mrvl_dialect.mrvl import SubgraphOp

TMLC = "mrvl-tmlc"
TMLC_ARCH = "-arch=mlip"
TMLC_OPTIONS = ("quantize", "wb_pin_ocm", "num_tiles")
"""The options mrvl-tmlc takes, in the order of its command line (`-quantize=fp16 ...`)."""
MATTR_OPTIONS = ("quantize", "wb_pin_ocm", "run_mode")
"""The options TVM's `mattr` string sets."""


def _option(default: str | int, values: tuple[str, ...] | tuple[int, ...], help: str):
    return field(default=default, metadata={"values": values, "help": help})


@dataclass(frozen=True)
class TargetOptionFields:
    """The target options as fields, each with its allowed `values` and `help` (metadata): the
    fields of a `TargetOptions` value and the options of a pass that takes them (`TargetPassOptions`)."""

    mcpu: str = _option("cn10ka", ("cn10ka", "cnf10kb"), "OCTEON 10 part")
    num_tiles: int = _option(8, (1, 2, 4, 8), "MLIP tiles")
    quantize: str = _option("fp16", ("fp16", "int8"), "MLIP arithmetic")
    wb_pin_ocm: int = _option(0, (0, 1), "1 preloads weights and biases into on-chip memory")
    run_mode: str = _option("sim", ("sim", "hw"), "where subgraphs run: sim (simulator) or hw (MLIP)")


@dataclass(frozen=True)
class TargetOptions(TargetOptionFields):
    """The options of one compile."""

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(TargetOptions))

    @staticmethod
    def values(name: str) -> tuple[str, ...] | tuple[int, ...]:
        """The values option `name` may take."""
        return TargetOptions.__dataclass_fields__[name].metadata["values"]

    @staticmethod
    def help(name: str) -> str:
        """What option `name` sets, and its default: `MLIP tiles (default 8)`."""
        option = TargetOptions.__dataclass_fields__[name]
        return f"{option.metadata['help']} (default {option.default})"

    @staticmethod
    def check(where: str, name: str, value: object) -> None:
        """Raise a `CompileError` at `where` unless `value` is allowed for option `name`."""
        allowed = TargetOptions.values(name)
        if type(value) is not type(allowed[0]) or value not in allowed:
            raise CompileError(where, f"{name} must be one of {', '.join(map(str, allowed))}, got {value!r}")

    @classmethod
    def checked(cls, where: str, **options: object) -> Self:
        """The options given (the others at their defaults), each checked."""
        for name in cls.names():
            if name in options:
                cls.check(where, name, options[name])
        return cls(**options)  # type: ignore[arg-type]

    @classmethod
    def of_fields(cls, where: str, source: object) -> Self:
        """The options an object holds as fields of the same names (a pass's), checked."""
        return cls.checked(where, **{name: getattr(source, name) for name in cls.names()})

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)

    # The IR

    def properties(self) -> dict[str, Attribute]:
        """The options as `mrvl.subgraph` properties."""
        return {name: IntegerAttr(value, i64) if isinstance(value, int) else StringAttr(value)
                for name, value in self.as_dict().items()}

    @classmethod
    def of_subgraph(cls, subgraph: SubgraphOp) -> Self:
        """The options a subgraph records."""
        attrs = {name: getattr(subgraph, name) for name in cls.names()}
        return cls(**{name: a.data if isinstance(a, StringAttr) else a.value.data for name, a in attrs.items()})

    # mrvl-tmlc's command line

    def tmlc_command(self, symbol: str, nodes: str, consts: str, batch: int) -> list[str]:
        """The mrvl-tmlc command line compiling one subgraph's nodes/consts JSON."""
        options = [f"-{name}={getattr(self, name)}" for name in TMLC_OPTIONS]
        return [TMLC, "-mn", symbol, "-f1", nodes, "-f2", consts, TMLC_ARCH, *options, "-b", str(batch)]

    @classmethod
    def from_tmlc_command(cls, where: str, argv: list[str]) -> Self:
        """The options of an mrvl-tmlc command line (`tmlc_command`'s), the others at their defaults."""
        given: dict[str, object] = {}
        for arg in argv:
            key, sep, value = arg.lstrip("-").partition("=")
            if sep and key in TMLC_OPTIONS:
                given[key] = int(value) if key != "quantize" and value.isdigit() else value
        return cls.checked(where, **given)


DEFAULT_TARGET = TargetOptions()


@dataclass(frozen=True)
class TargetPassOptions(TargetOptionFields):
    """The target options of a pass that estimates or decides. The pass lists this class
    before `ModulePass` among its bases, so it takes them as its own flat options
    (`legalize-mrvl{num_tiles=4}`), and reads them as one checked value, `target()`; a
    pipeline hands its value on to its stages as `**target().as_dict()`."""

    name: ClassVar[str]

    def target(self) -> TargetOptions:
        """The target options, checked."""
        return TargetOptions.of_fields(self.name, self)

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> Self:
        """ModulePass's, with a target option of the wrong type reported as a wrong value."""
        given = spec.normalize_parameter_names().parameters
        for name in TargetOptions.names():
            if (values := given.get(name)) is not None:
                TargetOptions.check(cls.name, name, values[0] if len(values) == 1 else values)
        return super().from_spec(spec)  # type: ignore[misc]


def parse_mattr(text: str) -> dict[str, object]:
    """TVM's `mattr` string (`"hw -quantize=fp16 -wb_pin_ocm=1"`) -> the options it sets.

    TVM passed the string to mrvl-tmlc as it was and looked for `sim` or `hw` anywhere in
    it; here each attribute is read and recorded, and an unknown one is an error."""
    options: dict[str, object] = {}
    for token in text.replace(",", " ").split():
        key, sep, value = token.lstrip("-").partition("=")
        if not sep and key in TargetOptions.values("run_mode"):
            key, value = "run_mode", key
        elif key not in MATTR_OPTIONS or not value:
            raise CompileError("--mattr", f"unknown attribute '{token}' (expected sim or hw, -quantize=fp16|int8, "
                               "-wb_pin_ocm=0|1)")
        options[key] = int(value) if key == "wb_pin_ocm" and value.isdigit() else value
    return options
