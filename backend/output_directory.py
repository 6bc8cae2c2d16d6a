"""Output directories (`-t json -o DIR`, `-t c -o DIR`): written whole, or not at all.

The files go into a new sibling directory that is renamed to DIR once complete. An
existing DIR is replaced only when it holds nothing but files the target itself writes,
so a mistaken `-o` never deletes anything else.
"""

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from pathlib import Path

from mrvl.backend.json_text import iter_json
from mrvl_dialect.files import staging_prefix

Content = dict | list | str | bytes
"""A JSON document (written as `json.dumps(indent=2)` writes it), text, or raw bytes."""


def content_chunks(content: Content) -> Iterator[bytes]:
    """The bytes of a file, in pieces: a JSON document is serialised as it is written, so no
    second copy of its data is built, and each `DeferredText` in it is computed as it is
    written."""
    if isinstance(content, bytes):
        yield content
    elif isinstance(content, str):
        yield content.encode("utf-8")
    else:
        for chunk in iter_json(content):
            yield chunk.encode("ascii") if isinstance(chunk, str) else chunk


def write_file(path: Path, content: Content) -> None:
    """Write one file (see `content_chunks`)."""
    with open(path, "wb") as f:
        for chunk in content_chunks(content):
            f.write(chunk)


def write_directory(path: Path, files: dict[str, Content], ours: re.Pattern[str], what: str) -> None:
    """Make `path` a directory holding exactly `files`, never a partial one; an existing
    directory is replaced only when every file in it matches `ours` (`what` names them)."""
    with staged_directory(path, ours, what) as staging:
        for name, content in files.items():
            write_file(staging / name, content)


def _foreign(path: Path, ours: re.Pattern[str], our_folders: re.Pattern[str] | None) -> list[str]:
    """The entries of `path` a target did not write: files not matching `ours`, and folders
    unless their name matches `our_folders` and they hold only files matching `ours` as
    `folder/name`."""
    foreign = []
    for entry in path.iterdir():
        if entry.is_file() and not entry.is_symlink():
            mine = bool(ours.fullmatch(entry.name))
        else:
            mine = (
                our_folders is not None and entry.is_dir() and not entry.is_symlink()
                and bool(our_folders.fullmatch(entry.name))
                and all(f.is_file() and not f.is_symlink() and ours.fullmatch(f"{entry.name}/{f.name}")
                        for f in entry.iterdir())
            )
        if not mine:
            foreign.append(entry.name)
    return sorted(foreign)


@contextmanager
def staged_directory(
    path: Path, ours: re.Pattern[str], what: str, our_folders: re.Pattern[str] | None = None,
) -> Iterator[Path]:
    """A new empty folder beside `path` to fill; when the block ends without an exception it
    becomes `path` (replacing a directory that holds only `ours` files, and `our_folders`
    of them), else it is removed. `path` is never seen half written."""
    path = Path(path)
    parent = path.parent
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise OSError(17, "exists and is not a directory")
    if path.is_dir() and (foreign := _foreign(path, ours, our_folders)):
        raise OSError(39, f"the directory holds other files than {what} ({foreign[0]})")
    umask = os.umask(0)
    os.umask(umask)
    staging = Path(tempfile.mkdtemp(dir=parent, prefix=staging_prefix(path), suffix=".tmp"))
    old: Path | None = None
    try:
        yield staging
        os.chmod(staging, 0o777 & ~umask)
        if path.is_dir():
            old = Path(tempfile.mkdtemp(dir=parent, prefix=staging_prefix(path), suffix=".old"))
            os.rename(path, old / "previous")
        os.rename(staging, path)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if old is not None and (old / "previous").exists() and not path.exists():
            os.rename(old / "previous", path)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


class OutputDirectory(StringIO):
    """`-o DIR` of a directory target: collects the files; `commit()` writes them all or none."""

    def __init__(self, path: Path, ours: re.Pattern[str], what: str):
        super().__init__()
        self.path = path
        self.ours = ours
        self.what = what
        self.files: dict[str, Content] = {}

    def close(self) -> None:
        """Kept open: xDSL closes its output stream whether or not the run failed."""

    def add(self, files: dict[str, Content]) -> None:
        self.files |= files

    def commit(self) -> None:
        write_directory(self.path, self.files, self.ours, self.what)
