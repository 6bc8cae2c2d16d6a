"""The mrvl tools for lit, started warm: each run a process of its own, without the import.

    python warm_tools.py serve SOCKET          # imports the tools once, then serves runs
                                               # until its stdin (a pipe) closes
    python -S warm_tools.py SOCKET TOOL ARGS... # one run of TOOL, as if TOOL ARGS... ran

Starting a tool costs about half a second of importing (xDSL, numpy, onnx, the dialects),
and the lit suite starts some four hundred. The server imports every module of the tools
once and forks a child per run; the client hands the child its own stdin, stdout and stderr
(SCM_RIGHTS), working directory, environment and arguments, and exits with the child's exit
code. So a RUN line sees what it would of the tool itself: the same streams, files, exit
code and messages (argv[0] is the tool's path). Only the start-up differs, which
test/test_startup_cost.py checks on the real console scripts.
"""

import json
import os
import socket
import sys

TOOLS = ("mrvl-opt", "mrvl-translate", "mrvl-run", "mrvl-compile")


def serve(path: str) -> None:
    import atexit
    import importlib
    import pkgutil
    import select
    import shutil
    import signal
    import traceback
    from importlib.metadata import entry_points

    import mrvl

    mains = {e.name: e.load() for e in entry_points(group="console_scripts") if e.name in TOOLS}
    # What the tools import on first use (passes, emitters, reports) is imported here too.
    for module in pkgutil.walk_packages(mrvl.__path__, "mrvl."):
        importlib.import_module(module.name)
    paths = {tool: shutil.which(tool) or tool for tool in TOOLS}

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # the client sees the socket once it accepts
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    while True:
        # stdin is a pipe from the process that started the server: at its end of file, that
        # process has gone (lit killed, say), and so does the server.
        ready, _, _ = select.select([listener, 0], [], [])
        if 0 in ready:
            os._exit(0)
        connection, _ = listener.accept()
        if os.fork():
            connection.close()
            continue
        listener.close()
        message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
        request = json.loads(message)
        for fd, stream in zip(fds, (0, 1, 2), strict=True):
            os.dup2(fd, stream)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [paths[request["tool"]], *request["args"]]
        try:
            code = mains[request["tool"]]()
        except SystemExit as e:
            code = e.code
        except BaseException:
            traceback.print_exc()
            code = 1
        if isinstance(code, str):  # sys.exit("message"), as the interpreter prints it
            print(code, file=sys.stderr)
            code = 1
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        connection.send(str(code or 0).encode())
        os._exit(code or 0)


def run(path: str, tool: str, args: list[str]) -> int:
    client = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    client.connect(path)
    request = {"tool": tool, "args": args, "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(client, [json.dumps(request).encode()], [0, 1, 2])
    answer = client.recv(16)
    if not answer:
        print(f"warm_tools: the run of {tool} ended without an exit code (killed?)", file=sys.stderr)
        return 1
    return int(answer)


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(run(sys.argv[1], sys.argv[2], sys.argv[3:]))
