"""Writing the compiler's files: atomically, and generated files only when they changed."""

import difflib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path


def staging_prefix(path: Path) -> str:
    """The name prefix of the temporary siblings that writing `path` makes, `.NAME.PID.`;
    those of processes that no longer run (a killed compile) are removed first."""
    stale = re.compile(rf"\.{re.escape(path.name)}\.(\d+)\..*\.(tmp|old)")
    parent = path.parent if str(path.parent) else Path(".")
    if parent.is_dir():
        for sibling in parent.iterdir():
            if (m := stale.fullmatch(sibling.name)) and not _running(int(m[1])):
                if sibling.is_dir() and not sibling.is_symlink():
                    shutil.rmtree(sibling, ignore_errors=True)
                else:
                    sibling.unlink(missing_ok=True)
    return f".{path.name}.{os.getpid()}."


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # alive, someone else's
    return True


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write via a temporary file in the same folder, so `path` is never half written."""
    fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=staging_prefix(path), suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content.encode() if isinstance(content, str) else content)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def update_generated(path: Path, text: str, check: bool) -> bool:
    """Whether `path` already holds `text`; if not, rewrite it, or with `check` print a diff."""
    current = path.read_text() if path.exists() else ""
    if text == current:
        return True
    if check:
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True), str(path), "regenerated"))
    else:
        write_atomically(path, text)
    return False
