"""`mrvl-compile -o model.tar`: a bundle's files as a reproducible tar archive.

The same files always give the same bytes: members sorted by path, folders before their
contents, every timestamp `MTIME`, owner 0:0 with empty names, mode 0644 (0755 for
folders and executables), no extended headers (POSIX ustar, so paths are at most 255
characters, which bundle names are). The archive is written through a temporary file beside
`path` and renamed, so `path` is never half written.

The members are written straight from memory (`output_directory.Content`: a JSON document is
serialised as it is written, and its header, which holds the size, is filled in after it), or
from files on disk (`folder_files`: a bundle a tool has added to).
"""

import os
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from mrvl.backend.output_directory import Content, content_chunks
from mrvl_dialect.files import staging_prefix

MTIME = 0
"""Every member's modification time (the epoch): a build's time is no part of its output."""
ENCODING = "utf-8"


def _header(name: str, size: int, directory: bool = False, executable: bool = False) -> bytes:
    info = tarfile.TarInfo(name)
    info.mtime = MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if directory:
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size = size
        info.mode = 0o755 if executable else 0o644
    return info.tobuf(tarfile.USTAR_FORMAT, ENCODING, "surrogateescape")


def _members(names: Iterable[str]) -> list[tuple[str, bool]]:
    """Every file and the folders that hold them, as `(path, is_folder)`, sorted by path
    component, each folder before its contents."""
    folders = {"/".join(parts[:i]) for parts in (name.split("/") for name in names) for i in range(1, len(parts))}
    members = [(name, False) for name in names] + [(folder, True) for folder in folders]
    return sorted(members, key=lambda member: member[0].split("/"))


def _file_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as data:
        yield from iter(lambda: data.read(1 << 20), b"")


def _write_member(out: BinaryIO, name: str, chunks: Iterable[bytes], executable: bool) -> None:
    """One file: a header to fill in once the size is known, the data, and its padding."""
    start = out.tell()
    out.write(bytes(tarfile.BLOCKSIZE))
    size = 0
    for chunk in chunks:
        out.write(chunk)
        size += len(chunk)
    out.write(bytes(-size % tarfile.BLOCKSIZE))
    end = out.tell()
    out.seek(start)
    out.write(_header(name, size, executable=executable))
    out.seek(end)


def write_tar(path: Path, files: Mapping[str, "Content | Path"]) -> None:
    """Make `path` a reproducible tar of `files` (`folder/name` paths; a `Path` is a file on
    disk, archived with its executable bit)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=staging_prefix(path), suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        with os.fdopen(fd, "wb") as out:
            for name, is_folder in _members(files):
                if is_folder:
                    out.write(_header(name, 0, directory=True))
                    continue
                content = files[name]
                if isinstance(content, Path):
                    _write_member(out, name, _file_chunks(content), os.access(content, os.X_OK))
                else:
                    _write_member(out, name, content_chunks(content), False)
            # The end of the archive, as tarfile closes one: two empty blocks, then zeros to a
            # whole record.
            out.write(bytes(2 * tarfile.BLOCKSIZE))
            out.write(bytes(-out.tell() % tarfile.RECORDSIZE))
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def folder_files(folder: Path) -> dict[str, Path]:
    """Every file below `folder`, by its path relative to `folder`."""
    found = {}
    for entry in sorted(Path(folder).rglob("*")):
        if entry.is_symlink():
            raise OSError(40, f"a bundle holds no links: {entry}")
        if entry.is_file():
            found[entry.relative_to(folder).as_posix()] = entry
    return found
