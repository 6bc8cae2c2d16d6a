"""`mrvl-opt`: xdsl-opt with the mrvl dialects, passes and ONNX input.

    mrvl-opt model.onnx                          # import and print the graph dialect
    mrvl-opt in.mlir -p 'canonicalize,cse' -o out.mlir
    mrvl-opt model.onnxtxt --input-shape x=1x3x32x32 --print-weights
    mrvl-opt model.onnx -p mrvl-pipeline -t json -o out/   # nodes/consts JSON per subgraph
    mrvl-opt model.onnx -p mrvl-pipeline,mrvl-host-pipeline -t c -o out/   # the host C bundle

`.onnx` (binary) and `.onnxtxt` (ONNX text syntax) inputs are imported on the fly; `.mlir`
is parsed, and any `dialect_resources` blobs in it become the module's weights.
"""

import argparse
import atexit
import functools
import gc
import os
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import import_module
from io import StringIO
from pathlib import Path
from typing import IO, ClassVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from mrvl.mlir_lexer_fix import use_linear_string_literals
from mrvl.passes import get_all_passes
from mrvl_dialect import get_all_dialects
from mrvl_dialect.errors import CompileError, CompileWarning
from mrvl_dialect.files import write_atomically
from mrvl_dialect.limits import check_module_tensor_sizes
from mrvl_dialect.weights import adopt_parsed_blobs, resources_section


def parse_input_shapes(texts: Sequence[str]) -> dict[str, list[int]]:
    """`["NAME=1x3x224x224", ...]` -> {"NAME": [1, 3, 224, 224], ...}."""
    shapes = {}
    for text in texts:
        name, sep, dims = text.rpartition("=")
        try:
            shape = [int(d) for d in dims.lower().split("x")]
        except ValueError:
            shape = []
        if not sep or not name or not shape:
            raise CompileError("--input-shape", f"'{text}' is not NAME=DIMS, as in input=1x3x224x224")
        shapes[name] = shape
    return shapes


TARGETS: dict[str, tuple[str, str]] = {
    "summary": ("mrvl.backend.summary", "SummaryTarget"),
    "placement-report": ("mrvl.backend.placement_report", "PlacementReportTarget"),
    "json": ("mrvl.backend.json_emitter", "JsonTarget"),
    "c": ("mrvl.backend.bundle", "CTarget"),
}
"""Target name -> (module, class), imported only when `-t` names the target."""
DIRECTORY_TARGETS = ("json", "c")
"""Targets whose output is a directory of files (`-o DIR`), written whole or not at all."""


def target_class(name: str) -> type[Target]:
    """The class of one of `TARGETS`."""
    module, cls = TARGETS[name]
    return getattr(import_module(module), cls)


class MrvlOptMain(xDSLOptMain):
    version_format: ClassVar[str] = "mrvl-opt (mrvl-xdsl, xdsl {xdsl_version})"

    def register_all_dialects(self):
        super().register_all_dialects()
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        for name in TARGETS:
            self.available_targets[name] = functools.partial(target_class, name)

    def register_all_frontends(self):
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            use_linear_string_literals()
            try:
                text = io.read().decode()
            except UnicodeDecodeError:
                raise CompileError("", "is not UTF-8 text") from None
            module = Parser(self.ctx, text, self.get_input_name()).parse_module(
                not self.args.no_implicit_module
            )
            check_module_tensor_sizes(module)
            adopt_parsed_blobs(module)
            return module

        def onnx_frontend(text: bool):
            def parse_onnx(io: IO[bytes]) -> ModuleOp:
                self.ctx.get_dialect("builtin")  # the MLIR printer expects it loaded
                if self.args.input_file is not None and not self.args.split_input_file:
                    source = Path(self.args.input_file)  # mapped, with its external data
                else:
                    source = io.read()
                from mrvl.frontend.onnx_importer import import_onnx  # onnx and the graph ops: for ONNX input only

                return import_onnx(source, self.input_shapes, text=text)

            return parse_onnx

        self.available_frontends["mlir"] = parse_mlir
        self.available_frontends["onnx"] = onnx_frontend(text=False)
        self.available_frontends["onnxtxt"] = onnx_frontend(text=True)
        self.available_frontends["onnxtext"] = onnx_frontend(text=True)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--input-shape",
            action="append",
            default=[],
            metavar="NAME=DIMS",
            help="fix the shape of an ONNX graph input, as in input=1x3x224x224 (repeatable)",
        )
        arg_parser.add_argument(
            "--print-weights",
            action="store_true",
            help="also print the weights (a dialect_resources section), so that the "
            "output can be read back with its data",
        )

    def setup_pipeline(self):
        # Option errors surface in run(), once the tool knows which file it reads.
        try:
            super().setup_pipeline()
            self.pipeline_error: Exception | None = None
        except (CompileError, ValueError, ArgSpecParseError) as e:
            self.pipeline_error = e

    def run(self):
        if self.pipeline_error is not None:
            raise self.pipeline_error
        self.ctx.get_dialect("builtin")  # passes may add dense_resource weights; the printer needs it
        self.input_shapes = parse_input_shapes(self.args.input_shape)
        super().run()

    def output_resulting_program(self, prog: ModuleOp) -> str:
        spec = parse_spec(self.args.target)
        if spec.name in DIRECTORY_TARGETS:
            # A directory of files, not a stream: the files go to the pending directory.
            target_class(spec.name).from_spec(spec).emit(self.ctx, prog, self.pending_output)
            return ""
        text = super().output_resulting_program(prog)
        if self.args.print_weights and parse_spec(self.args.target).name == "mlir":
            text = text.rstrip("\n") + "\n" + resources_section(prog)
        return text

    def prepare_output(self) -> IO[str]:
        if (target := parse_spec(self.args.target).name) in DIRECTORY_TARGETS:
            if self.args.output_file is None:
                raise CompileError(f"-t {target}", "writes a directory of files: name it with -o DIR")
            if self.args.split_input_file:
                raise CompileError(f"-t {target}", "writes one directory per input: --split-input-file is not supported")
            self.pending_output = target_class(target).output_directory(Path(self.args.output_file))
            return self.pending_output
        if self.args.output_file is None:
            return sys.stdout
        self.pending_output = PendingOutput(Path(self.args.output_file))
        return self.pending_output


class PendingOutput(StringIO):
    """Collects a tool's output; `commit()` writes it to its file once the run succeeded."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path

    def close(self) -> None:
        """Kept open: xDSL closes its output stream whether or not the run failed."""

    def commit(self) -> None:
        write_atomically(self.path, self.getvalue())


def skip_exit_collection() -> None:
    """Have the collector skip every object when the process exits (`gc.freeze` at exit):
    a tool's IR is cycles of parent and child pointers, and the interpreter's last
    collections walk them all before the OS takes the memory back anyway. Registered once,
    however often it is called; an in-process caller (a test) is unaffected until its own
    exit."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


def run_tool(main: type[xDSLOptMain], args: Sequence[str] | None, description: str) -> int:
    """Run an xdsl-opt-style tool; user errors become one `error:` line and exit code 1."""
    skip_exit_collection()
    input_name = "<stdin>"
    try:
        # Passes are built with the tool (a pass loading its target description may warn),
        # before the input's name is known: their warnings are shown with the run's.
        with warnings.catch_warnings(record=True) as early:
            warnings.simplefilter("always", CompileWarning)
            tool = main(description=description, args=args)
        input_name = tool.args.input_file or "<stdin>"
        if tool.args.input_file is not None and not os.path.isfile(tool.args.input_file):
            reason = "is a directory" if os.path.isdir(tool.args.input_file) else "no such file"
            raise CompileError("", reason)
        with printed_warnings(input_name):
            for w in early:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
            tool.run()
    except (Exception, ArgSpecParseError) as e:  # xDSL's spec parse error is not an Exception
        print(error_line(e, input_name), file=sys.stderr)
        return 1
    if (pending := getattr(tool, "pending_output", None)) is not None:
        try:
            pending.commit()
        except OSError as e:
            print(f"error: {input_name}: cannot write '{pending.path}': {e.strerror}", file=sys.stderr)
            return 1
    return 0


@contextmanager
def printed_warnings(input_name: str) -> Iterator[None]:
    """Inside, each CompileWarning is printed as one `warning: <file>: <where>: <what>` line
    on stderr as it happens; other warnings are shown as usual."""
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if isinstance(message, CompileWarning):
            print(message.format(input_name), file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", CompileWarning)
        warnings.showwarning = show
        yield


def error_line(error: BaseException, input_name: str) -> str:
    """The one `error: <file>: <where>: <what>` line a tool prints for `error`; any other
    exception is an internal error (re-raised with `MRVL_TRACEBACK=1` set)."""
    if isinstance(error, CompileError):
        return error.format(input_name)
    if isinstance(error, ParseError):
        location = error.span.get_location()
        message = " ".join(error.msg.split())
        return f"error: {input_name}: {location.line}:{location.col}: {message}"
    if isinstance(error, DiagnosticException):
        return f"error: {input_name}: {_diagnostic_message(error)}"
    if isinstance(error, ArgSpecParseError):
        return f"error: {input_name}: {_spec_message(error)}"
    if isinstance(error, ValueError | OSError):
        return f"error: {input_name}: {' '.join(str(error).split())}"
    if os.environ.get("MRVL_TRACEBACK"):
        raise error
    return (
        f"error: {input_name}: internal compiler error: {type(error).__name__}: {error} "
        "(set MRVL_TRACEBACK=1 for the traceback, and please report it)"
    )


def _spec_message(error: ArgSpecParseError) -> str:
    """A pass pipeline or target spec that does not parse: the spec, the column and why."""
    lines = str(error).rstrip("\n").splitlines()
    if len(lines) >= 5 and (position := re.fullmatch(r"[\w-]+:(\d+):(\d+)", lines[1])):
        return f"in '{lines[2]}' at column {position[2]}: {lines[-1].strip()}"
    return " ".join(str(error).split())


def _diagnostic_message(error: DiagnosticException) -> str:
    """xDSL's verifier message, on one line, after the op it is about."""
    message = " ".join(str(error).split("\n\n")[0].split())
    for note in getattr(error, "__notes__", ()):
        lines = note.splitlines()
        for line, marker in zip(lines, lines[1:]):
            if re.match(r"\s*\^{3}", marker) and (op := re.search(r'"?([a-z_]+\.[\w.]+)"?[ (]', line)):
                return f"'{op[1]}': {message}"
    return message


def main(args: Sequence[str] | None = None) -> int:
    return run_tool(MrvlOptMain, args, "mrvl-opt: read ONNX or mrvl IR, run passes, print IR")


if __name__ == "__main__":
    raise SystemExit(main())
