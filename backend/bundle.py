"""The bundle: every file a lowered module deploys as, assembled in memory and written in one go.

`host_bundle(module)` assembles, for a model named M (the `name` option, else the
function's name):

- `M.h`, `M.c`, `M_weights.bin`: the host program (`c_emitter.print_c`);
- the hand-written runtime (`c_runtime/`: `mrvl_kernels.h/.c`, the kernel family files
  `mrvl_kernels_*.c/.h` it includes, `mrvl_quantize.c`, `mrvl_mlip.h`; the tile sizes'
  header is the target's, `mrvl.target.host_kernels`), and with accelerator subgraphs the
  board's runner (libmldpc), `mrvl_mlip_board.h/.c`, which loads the subgraphs `M_subgraphs`
  lists;
- `Makefile`: builds `libM.so` and `libM.a` with `$(CC)`;
- with accelerator subgraphs, their JSON files (`json_emitter`: nodes, consts, sourcemap,
  `tmlc-commands.txt`);
- `metadata.json` (`Bundle.metadata`): the interface again (inputs, outputs, workspace,
  accelerator subgraphs with their JSON files), for programs that load the bundle (`mrvl-run`).

A caller adds its own files (`mrvl-compile`: reports, `placement.json`) and metadata, then
`write_bundle` writes it all to a folder or a `.tar`, whole or not at all: mrvl-tmlc, when it
is on PATH, compiles the subgraphs into the bundle, and a cross compiler builds the
libraries. Without either, a `.tar` is written straight from memory. `-t c -o DIR`
(`CTarget`) writes the bundle of a module as `host_bundle` assembles it.
"""

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from mrvl.backend.bundle_archive import folder_files, write_tar
from mrvl.backend.c_emitter import C_TYPES, HostProgram, HostTensor, print_c
from mrvl.backend.json_emitter import emit_module as emit_json_files, subgraph_batch
from mrvl.backend.output_directory import Content, OutputDirectory, staged_directory, write_file
from mrvl.backend.tmlc import COMMANDS_FILE, TmlcResult, command_lines, compile_subgraphs
from mrvl.target.host_kernels import TILES_HEADER, tiles_header
from mrvl.target.options import TMLC
from mrvl_dialect import cpu
from mrvl_dialect.errors import CompileError
from mrvl_dialect.files import staging_prefix
from mrvl_dialect.mrvl import SubgraphOp

RUNTIME_DIR = Path(__file__).parent / "c_runtime"
KERNEL_FAMILY_FILES = ("mrvl_kernels_internal.h", "mrvl_kernels_tiles.h", "mrvl_kernels_threads.c",
                       "mrvl_kernels_math.c", "mrvl_kernels_gemm.c", "mrvl_kernels_conv.c",
                       "mrvl_kernels_conv_transpose.c", "mrvl_kernels_depthwise.c", "mrvl_kernels_pool.c", "mrvl_kernels_elementwise.c",
                       "mrvl_kernels_norm.c", "mrvl_kernels_data.c", "mrvl_kernels_resize.c",
                       "mrvl_kernels_recurrent.c", "mrvl_kernels_qgemm.c", "mrvl_kernels_qdepthwise.c",
                       "mrvl_kernels_winograd.c")
"""The kernels by family, which mrvl_kernels.c includes (one translation unit with `M.c`); the
tile sizes' header is the target's (`mrvl.target`), the rest are in `c_runtime/`."""
RUNTIME_FILES = ("mrvl_kernels.h", "mrvl_kernels.c", *KERNEL_FAMILY_FILES, "mrvl_quantize.c", "mrvl_mlip.h")
BOARD_FILES = ("mrvl_mlip_board.h", "mrvl_mlip_board.c")
"""The board's accelerator runner (libmldpc), in bundles with accelerator subgraphs."""

METADATA_FILE = "metadata.json"
METADATA_FORMAT = "mrvl-bundle/1"
"""`metadata.json`'s `format`: readers refuse other formats rather than misread them."""
BUILD_LOG = "build.log"
TARGET_ARCH_FLAGS = "-mcpu=neoverse-n2"
"""The cores of OCTEON 10 (cn10ka and cnf10kb alike): the cross build's ARCH_FLAGS."""

BUNDLE_FILES = re.compile(r"[^/]+\.(c|h|bin|json|csv|txt|html|log|so|a)|Makefile|bin_[A-Za-z0-9_.]+/[^/]+")
BUNDLE_FOLDERS = re.compile(r"bin_[A-Za-z0-9_.]+")
"""What a bundle folder holds: a folder holding only these may be replaced by `write_bundle`."""


# --- Assembling ------------------------------------------------------------------------


@dataclass
class Bundle:
    """A bundle's files by name (`metadata.json` apart) and its metadata, before it is written."""

    files: dict[str, Content]
    metadata: dict


def makefile(model: str, host_threads: int, board: bool) -> str:
    """Builds the model's libraries; with accelerator subgraphs (`board`), the board's runner
    too (mrvl_mlip_board.c, which opens libmldpc with dlopen: -ldl)."""
    m = model
    objs = f"{m}.o mrvl_mlip_board.o" if board else f"{m}.o"
    board_rule = ("mrvl_mlip_board.o: mrvl_mlip_board.c mrvl_mlip_board.h mrvl_mlip.h mrvl_kernels.h\n"
                  "\t$(CC) $(CFLAGS) $(ARCH_FLAGS) -fPIC -c $< -o $@\n\n") if board else ""
    libs = "-lm -ldl -pthread" if board else "-lm -pthread"
    families = " \\\n".join("    " + " ".join(KERNEL_FAMILY_FILES[i:i + 4])
                            for i in range(0, len(KERNEL_FAMILY_FILES), 4))
    return (
        f"# Builds lib{m}.so and lib{m}.a from the generated sources (generated by mrvl-opt -t c).\n"
        "CC ?= cc\n"
        "CFLAGS ?= -std=c99 -O3 -ffp-contract=fast -Wall -Wextra\n"
        "# The vector units to compile for, apart from CFLAGS: the building machine's by default\n"
        "# (-march=native, when CC takes it: a cross compiler does not, and builds for its baseline);\n"
        "# a cross build names its target's (ARCH_FLAGS=-mcpu=neoverse-n2 for OCTEON 10), and\n"
        "# ARCH_FLAGS= builds for the baseline of the compiler's architecture.\n"
        "ARCH_FLAGS ?= $(shell $(CC) -march=native -E -x c /dev/null >/dev/null 2>&1 && echo -march=native)\n"
        "# make PROFILE=1 compiles per-op timing in (MRVL_PROFILE: the <model>_profile_* functions).\n"
        "PROFILE ?=\n"
        "# Threads the large kernels split their work over (a static pool of HOST_THREADS - 1\n"
        "# pthreads, started by the first run; the outputs are the same for any count).\n"
        f"HOST_THREADS ?= {host_threads}\n"
        f"OBJS = {objs}\n\n"
        f"all: lib{m}.so lib{m}.a\n\n"
        f"{m}.o: {m}.c {m}.h mrvl_kernels.c mrvl_quantize.c mrvl_kernels.h mrvl_mlip.h \\\n{families}\n"
        "\t$(CC) $(CFLAGS) $(ARCH_FLAGS) $(if $(PROFILE),-DMRVL_PROFILE) -DMRVL_HOST_THREADS=$(HOST_THREADS) "
        "-pthread -fPIC -c $< -o $@\n\n"
        f"{board_rule}"
        f"lib{m}.so: $(OBJS)\n"
        f"\t$(CC) -shared -o $@ $(OBJS) {libs}\n\n"
        f"lib{m}.a: $(OBJS)\n"
        "\t$(AR) rcs $@ $(OBJS)\n\n"
        "clean:\n"
        f"\trm -f $(OBJS) lib{m}.so lib{m}.a\n\n"
        ".PHONY: all clean\n"
    )


def metadata(program: HostProgram, module: ModuleOp, subgraphs: list[SubgraphOp]) -> dict:
    """`metadata.json`: the bundle's interface, for programs that load it (`mrvl-run`)."""

    def tensor(t: HostTensor) -> dict:
        return {"name": t.name, "c_name": t.c_name, "dtype": t.dtype, "shape": list(t.shape), "bytes": t.bytes}

    def shapes(types) -> list[dict]:
        return [{"shape": list(t.get_shape()), "dtype": C_TYPES[t.element_type].onnx} for t in types]

    m = program.model
    calls = cpu.calls_per_run(module)  # a subgraph run in chunks says so
    return {
        "format": METADATA_FORMAT,
        "model": m,
        "header": program.header_file,
        "source": program.source_file,
        "library": f"lib{m}.so",
        "weights": program.weights_file,
        "inputs": [tensor(t) for t in program.inputs],
        "outputs": [tensor(t) for t in program.outputs],
        "workspace": {"bytes": program.workspace.size.data, "align": program.workspace.align.data},
        "subgraphs": [
            {"symbol": (s := op.sym_name.data), "nodes": f"{s}-nodes.json", "consts": f"{s}-consts.json",
             "inputs": shapes(op.function_type.inputs.data), "outputs": shapes(op.function_type.outputs.data),
             **({"batch": subgraph_batch(op), "calls": calls[s]} if calls.get(s, 1) > 1 else {})}
            for op in subgraphs
        ],
    }


def host_bundle(module: ModuleOp, name: str = "", host_threads: int = 1, deferred_data: bool = False) -> Bundle:
    """The bundle of a module `mrvl-host-pipeline` has prepared (see the module docstring);
    `deferred_data` defers the subgraph constants' base64 text to writing
    (`json_emitter.emit_subgraph`)."""
    program = print_c(module, name, host_threads)
    subgraphs = [op for op in module.walk() if isinstance(op, SubgraphOp)]
    files: dict[str, Content] = {**program.files(),
                                 "Makefile": makefile(program.model, host_threads, board=bool(subgraphs))}
    for file_name in RUNTIME_FILES + (BOARD_FILES if subgraphs else ()):
        files[file_name] = tiles_header() if file_name == TILES_HEADER else (RUNTIME_DIR / file_name).read_text()
    if subgraphs:
        files |= emit_json_files(module, deferred_data=deferred_data)
    return Bundle(files, metadata(program, module, subgraphs))


# --- Building with other tools -----------------------------------------------------------


def _archiver(compiler: str) -> str:
    """The `ar` of a cross compiler (`aarch64-linux-gnu-gcc` -> `aarch64-linux-gnu-ar`), if any."""
    prefix, sep, _ = compiler.rpartition("-")
    return f"{prefix}-ar" if sep and shutil.which(f"{prefix}-ar") else "ar"


def _arch_flags(compiler: str) -> str:
    """TARGET_ARCH_FLAGS if `compiler` takes them, else none: the baseline of its architecture
    (the Makefile's default, -march=native, names the building machine's vector units)."""
    try:
        done = subprocess.run([compiler, TARGET_ARCH_FLAGS, "-E", "-x", "c", "-"], input="", capture_output=True,
                              text=True, check=False)
    except OSError:
        return ""
    return TARGET_ARCH_FLAGS if done.returncode == 0 else ""


def cross_compile(folder: Path, compiler: str, model: str) -> dict[str, object]:
    """Build the host libraries in `folder` with its Makefile and `compiler`; `build.log` keeps the output."""
    archiver = _archiver(compiler)
    targets = [f"lib{model}.so", f"lib{model}.a"]
    arch_flags = _arch_flags(compiler)
    command = ["make", f"CC={compiler}", f"AR={archiver}", f"ARCH_FLAGS={arch_flags}", *targets]
    try:
        done = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", check=False)
    except OSError as e:
        raise CompileError("--cross-compiler", f"cannot run make: {e.strerror or e}") from None
    (folder / BUILD_LOG).write_text(f"$ {' '.join(command)}\n{done.stdout}exit status {done.returncode}\n",
                                    encoding="utf-8")
    for obj in folder.glob("*.o"):
        obj.unlink()
    if done.returncode != 0:
        lines = [line for line in done.stdout.splitlines() if "error" in line] or done.stdout.splitlines()
        raise CompileError(compiler, f"building the host C failed: {lines[0] if lines else 'no output'}")
    return {"compiler": compiler, "ar": archiver, "arch_flags": arch_flags, "libraries": targets, "log": BUILD_LOG}


# --- Writing ---------------------------------------------------------------------------


def _no_stage(name: str) -> AbstractContextManager:
    return nullcontext()


def write_bundle(
    output: Path, bundle: Bundle, cross_compiler: str | None = None,
    stage: Callable[[str], AbstractContextManager] = _no_stage,
) -> None:
    """Write `bundle` to `output` (a `.tar`, else a folder), whole or not at all, and its
    metadata as `metadata.json`, with `tmlc` (`TmlcResult.metadata`) added and, with a
    `cross_compiler`, `build` extended. `stage(name)` times the tools' steps ("mrvl-tmlc",
    "cross-compile").

    Raises `TmlcError` when mrvl-tmlc fails, `CompileError` when the cross build does, and
    `OSError` when writing does; `output` is then left as it was."""
    output = Path(output)
    commands = command_lines(str(bundle.files.get(COMMANDS_FILE, "")))
    tmlc = shutil.which(TMLC) if commands else None
    if output.suffix == ".tar" and tmlc is None and cross_compiler is None:
        with stage("mrvl-tmlc"):
            bundle.metadata["tmlc"] = TmlcResult.not_run(commands).metadata()
        write_tar(output, {**bundle.files, METADATA_FILE: bundle.metadata})
        return

    def fill(folder: Path) -> None:
        """Write the bundle into `folder`, running the tools that add to it."""
        for file_name, content in bundle.files.items():
            write_file(folder / file_name, content)
        with stage("mrvl-tmlc"):
            bundle.metadata["tmlc"] = compile_subgraphs(folder, tmlc).metadata()
        if cross_compiler is not None:
            with stage("cross-compile"):
                built = cross_compile(folder, cross_compiler, bundle.metadata["model"])
                bundle.metadata["build"] = {**bundle.metadata.get("build", {}), **built}
        write_file(folder / METADATA_FILE, bundle.metadata)

    if output.suffix == ".tar":
        with tempfile.TemporaryDirectory(dir=output.parent, prefix=staging_prefix(output), suffix=".tmp") as tmp:
            fill(Path(tmp))
            write_tar(output, folder_files(Path(tmp)))
    else:
        with staged_directory(output, BUNDLE_FILES, "a bundle", BUNDLE_FOLDERS) as folder:
            fill(folder)


# --- -t c ------------------------------------------------------------------------------

OUR_FILES = re.compile(r".+\.(c|h|bin|json|o|so|a)|Makefile|tmlc-commands\.txt")


@dataclass(frozen=True)
class CTarget(Target):
    """`-t c -o DIR`: the bundle of a module `mrvl-host-pipeline` has prepared, as
    `host_bundle` assembles it (see the module docstring)."""

    name = "c"

    model: str = ""
    """The model's name in file names and C identifiers (default: the function's name)."""

    host_threads: int = 1
    """Threads the large kernels split their work over (a static pthread pool; 1: none)."""

    @staticmethod
    def output_directory(path: Path) -> OutputDirectory:
        """What `-o DIR` collects the files in."""
        return OutputDirectory(path, OUR_FILES, "C output")

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if not isinstance(output, OutputDirectory):
            raise CompileError("-t c", "writes a directory of files: name it with -o DIR")
        bundle = host_bundle(module, self.model, self.host_threads)
        output.add({**bundle.files, METADATA_FILE: bundle.metadata})
