"""The child side of the test drivers that fork a process per tool run.

A driver imports the tools once and forks; the child calls `run_job`, which makes it a
process of its own for one run: an address-space limit, the job's folder, stdout and
stderr in files, the tool's console-script entry point called with the job's argv (as
`sys.exit(main())` would), and the tool's exit code as the process's. Used by
`test_cli_errors.py` and by the fuzzing harness's `fuzz/tool_server.py`.
"""

import os
import resource
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn


def run_job(job: dict, main: Callable[[], object], memory_limit: int) -> NoReturn:
    """Run `main` as the tool `job["tool"]` with `job["args"]`, in `job["cwd"]`; never returns."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    os.chdir(job["cwd"])
    for fd, name in ((1, job["stdout"]), (2, job["stderr"])):
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(f, fd)
        os.close(f)
    sys.argv = [job["tool"], *job["args"]]
    try:
        code = main()
    except SystemExit as e:
        code = e.code
    except BaseException:
        traceback.print_exc()
        code = 1
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code or 0)
