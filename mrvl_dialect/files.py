"""Writing the compiler's files: atomically, and generated files only when they changed."""

import difflib
import os
import sys
import tempfile
from pathlib import Path


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write via a temporary file in the same folder, so `path` is never half written."""
    fd, tmp = tempfile.mkstemp(dir=path.parent or Path("."), prefix=f".{path.name}.", suffix=".tmp")
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
