"""Running Marvell's backend compiler, mrvl-tmlc, on a bundle's subgraphs.

Each line of the bundle's `tmlc-commands.txt` (written by the JSON emitter) is one
`mrvl-tmlc -mn <symbol> -f1 <symbol>-nodes.json -f2 <symbol>-consts.json ... -b <batch>`
command, to run in the bundle folder, as TVM's `python/tvm/contrib/mrvl.py` ran it. When
mrvl-tmlc is on PATH, `compile_subgraphs` runs them there: as argument lists (never
through a shell), one at a time, each exit status checked and the model binary it must
write (`bin_<symbol>/<symbol>.bin`) checked too. Everything the tool prints goes to
`tmlc.log` in the bundle, after the command it belongs to. When mrvl-tmlc is absent the
commands are left to run later, and the result says so.
"""

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from mrvl.backend.json_emitter import COMMANDS_FILE
from mrvl_dialect.errors import CompileError
from mrvl.target.options import TMLC as TOOL, TargetOptions

LOG_FILE = "tmlc.log"


@dataclass(frozen=True)
class TmlcResult:
    """What became of the subgraphs: `compiled` (binaries in the bundle), `not-found`
    (mrvl-tmlc not on PATH: run the commands later) or `no-subgraphs`."""

    status: str
    commands: list[str] = field(default_factory=list)
    binaries: list[str] = field(default_factory=list)
    """The model binaries, relative to the bundle."""
    log: str | None = None

    @classmethod
    def not_run(cls, commands: list[str]) -> "TmlcResult":
        """The result when nothing runs: `no-subgraphs` without commands, else `not-found`."""
        return cls("not-found", commands) if commands else cls("no-subgraphs")

    def metadata(self) -> dict[str, object]:
        return {"status": self.status, "commands_file": COMMANDS_FILE if self.commands else None,
                "commands": self.commands, "binaries": self.binaries, "log": self.log}


def describe_tmlc(result: dict) -> str:
    """One line for the user about a `TmlcResult.metadata()`."""
    count = len(result["commands"])
    if result["status"] == "compiled":
        return f"{TOOL}: compiled {count} subgraph{'s' if count != 1 else ''} (log in {result['log']})"
    if result["status"] == "not-found":
        return f"{TOOL}: not on PATH; the bundle keeps the command lines in {COMMANDS_FILE} to run there later"
    return f"{TOOL}: no accelerator subgraphs to compile"


class TmlcError(CompileError):
    """mrvl-tmlc failed; `log` is everything it printed, to keep for the user."""

    def __init__(self, message: str, log: str):
        super().__init__(TOOL, message)
        self.log = log


def command_lines(text: str) -> list[str]:
    """The command lines of a `tmlc-commands.txt` holding `text`."""
    return [line for line in text.splitlines() if line.strip()]


def commands(folder: Path) -> list[str]:
    """The command lines of `folder/tmlc-commands.txt` (none without subgraphs)."""
    path = folder / COMMANDS_FILE
    if not path.is_file():
        return []
    return command_lines(path.read_text(encoding="utf-8"))


def parse_command(line: str) -> tuple[str, list[str]]:
    """The subgraph symbol and the arguments of one line of `tmlc-commands.txt`."""
    argv = shlex.split(line)
    if not argv or argv[0] != TOOL or "-mn" not in argv[:-1]:
        raise CompileError(COMMANDS_FILE, f"not a {TOOL} command line: {line!r}")
    return argv[argv.index("-mn") + 1], argv


def subgraph_targets(folder: Path) -> dict[str, TargetOptions]:
    """The target options each subgraph of the bundle `folder` is compiled with, by symbol,
    as its command line says."""
    return {symbol: TargetOptions.from_tmlc_command(f"{COMMANDS_FILE}: @{symbol}", argv)
            for symbol, argv in map(parse_command, commands(folder))}


def compile_subgraphs(folder: Path, tool: str | None = None) -> TmlcResult:
    """Run every command of `folder`'s `tmlc-commands.txt` in `folder` with mrvl-tmlc
    (`tool`, else the one on PATH); raise `TmlcError` when one fails."""
    lines = commands(folder)
    executable = (tool or shutil.which(TOOL)) if lines else None
    if executable is None:
        return TmlcResult.not_run(lines)
    log: list[str] = []
    binaries = []
    for line in lines:
        symbol, argv = parse_command(line)
        log.append(f"$ {line}\n")
        try:
            done = subprocess.run([executable, *argv[1:]], cwd=folder, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace", check=False,
                                  env=os.environ | {"LC_ALL": "C"})
        except OSError as e:
            log.append(f"cannot run {executable}: {e.strerror or e}\n")
            raise TmlcError(f"cannot run {executable}: {e.strerror or e}", "".join(log)) from None
        log.append(done.stdout if done.stdout.endswith("\n") or not done.stdout else done.stdout + "\n")
        log.append(f"exit status {done.returncode}\n\n")
        if done.returncode != 0:
            raise TmlcError(f"exited with status {done.returncode} compiling @{symbol}", "".join(log))
        binary = f"bin_{symbol}/{symbol}.bin"
        if not (folder / binary).is_file() or (folder / binary).stat().st_size == 0:
            raise TmlcError(f"exited with status 0 but wrote no model binary {binary} for @{symbol}", "".join(log))
        binaries.append(binary)
    (folder / LOG_FILE).write_text("".join(log), encoding="utf-8")
    return TmlcResult("compiled", lines, binaries, LOG_FILE)
