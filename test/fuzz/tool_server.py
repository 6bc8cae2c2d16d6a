"""Runs `mrvl-opt` / `mrvl-translate` on fuzzed inputs, each run a process of its own.

A fuzzed model can crash native code (protobuf, ONNX's C++ shape inference and version
converter), hang, or try to allocate terabytes; none of that may take the test run down
with it. Importing the tools costs about a second, so one server process imports them
once and forks a child per run (`tool_child.run_job`): a process of its own, with its own
exit code, stdout, stderr and address-space limit, killed at the time limit. A run costs
the fork plus the tool's own work.

The protocol is one JSON line per request on the server's stdin and one per answer on
its stdout.
"""

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

MEMORY_LIMIT = 3 << 30
"""Address space of each run: far more than any fuzzed input needs, far less than the
machine has, so that an attempt to allocate what a model declares fails inside the run."""
TIMEOUT_S = 30
"""Wall-clock bound of each run; a run still going then has hung."""

_SERVER = r"""
import json, os, signal, sys
from importlib.metadata import entry_points

limit, timeout, test_dir = json.loads(sys.argv[1])
sys.path.insert(0, test_dir)
from tool_child import run_job

mains = {e.name: e.load() for e in entry_points(group="console_scripts") if e.name.startswith("mrvl-")}
answers = os.fdopen(os.dup(1), "w")

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        run_job(job, mains[job["tool"]], limit)
    def kill(signum, frame, pid=pid):
        os.kill(pid, signal.SIGKILL)
    signal.signal(signal.SIGALRM, kill)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    _, status = os.waitpid(pid, 0)
    remaining, _ = signal.setitimer(signal.ITIMER_REAL, 0)
    answers.write(json.dumps([os.waitstatus_to_exitcode(status), timeout - remaining]) + "\n")
    answers.flush()
"""


@dataclass
class Run:
    """What one run of a tool did."""

    argv: list[str]
    returncode: int
    """The exit code, or minus the signal that ended the run (-9: killed at the time limit)."""
    stdout: str
    stderr: str
    seconds: float

    def report(self) -> str:
        return (
            f"$ {' '.join(self.argv)}\nexit code {self.returncode} after {self.seconds:.1f}s\n"
            f"stderr:\n{self.stderr[-3000:]}\nstdout:\n{self.stdout[:1000]}"
        )


class ToolServer:
    """A server process that runs the tools, one forked child per `run`."""

    def __init__(self, memory_limit: int = MEMORY_LIMIT, timeout_s: float = TIMEOUT_S):
        env = {k: v for k, v in os.environ.items() if k != "MRVL_TRACEBACK"}
        self.timeout_s = timeout_s
        self.process = subprocess.Popen(
            [sys.executable, "-c", _SERVER, json.dumps([memory_limit, timeout_s, str(Path(__file__).parents[1])])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )

    def run(self, tool: str, args: list[str], cwd: Path) -> Run:
        """Run `tool` with `args` in `cwd`; its stdout and stderr go to files there."""
        job = {
            "tool": tool,
            "args": [str(a) for a in args],
            "cwd": str(cwd),
            "stdout": str(cwd / ".stdout"),
            "stderr": str(cwd / ".stderr"),
        }
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"the tool server died (exit code {self.process.wait()})")
        returncode, seconds = json.loads(answer)
        outputs = [Path(job[name]).read_text(errors="replace") for name in ("stdout", "stderr")]
        for name in ("stdout", "stderr"):
            Path(job[name]).unlink()
        return Run([tool, *job["args"]], returncode, *outputs, seconds)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            self.process.wait(timeout=self.timeout_s)
