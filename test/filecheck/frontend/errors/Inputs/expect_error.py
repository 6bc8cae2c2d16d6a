"""Run a tool that must reject its input, and check the error contract.

    %python %S/Inputs/expect_error.py TOOL ARGS... 2>&1 | filecheck %s

Prints the tool's stdout and stderr (merged) unchanged for filecheck to match. Then, if
the tool did not exit with code 1, printed anything but exactly one line starting with
`error: `, printed a traceback, or (given `-o PATH`) left PATH or any new file in PATH's
folder, prints why on extra `expect_error:` lines and exits 1, failing the RUN line.
"""

import os
import subprocess
import sys


def main(argv: list[str]) -> int:
    output = None
    for i, arg in enumerate(argv):
        if arg == "-o" and i + 1 < len(argv):
            output = argv[i + 1]
        elif arg.startswith("--output-file="):
            output = arg.split("=", 1)[1]
    folder = os.path.dirname(os.path.abspath(output)) if output else None
    before = set(os.listdir(folder)) if folder and os.path.isdir(folder) else set()
    existed = output is not None and os.path.lexists(output)

    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = run.stdout.decode("utf-8", errors="replace")
    sys.stdout.write(text)
    sys.stdout.flush()

    problems = []
    if run.returncode != 1:
        problems.append(f"exit code {run.returncode}, expected 1")
    lines = text.splitlines()
    if len(lines) != 1 or not lines[0].startswith("error: "):
        problems.append(f"{len(lines)} lines of output, expected one line starting with 'error: '")
    if "Traceback" in text:
        problems.append("a traceback was printed")
    if output is not None:
        if os.path.lexists(output) and not existed:
            problems.append(f"output file '{output}' was written")
        if folder and os.path.isdir(folder):
            left = sorted(set(os.listdir(folder)) - before - {os.path.basename(output)})
            if left:
                problems.append(f"files left in the output folder: {left}")
    for problem in problems:
        print(f"expect_error: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
