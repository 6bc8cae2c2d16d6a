"""`mrvl-compile -o model.tar`: a bundle folder as a reproducible tar archive.

The same folder always gives the same bytes: members sorted by path, folders before their
contents, every timestamp `MTIME`, owner 0:0 with empty names, mode 0644 (0755 for
folders and executables), no extended headers (POSIX ustar, so paths are at most 255
characters, which bundle names are). The archive is written through a temporary file beside
`path` and renamed, so `path` is never half written; file contents are streamed from disk.
"""

import os
import tarfile
import tempfile
from pathlib import Path

from mrvl_dialect.files import staging_prefix

MTIME = 0
"""Every member's modification time (the epoch): a build's time is no part of its output."""


def _member(root: Path, path: Path) -> tarfile.TarInfo:
    info = tarfile.TarInfo(path.relative_to(root).as_posix())
    info.mtime = MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if path.is_dir():
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    else:
        info.size = path.stat().st_size
        info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
    return info


def _paths(folder: Path) -> list[Path]:
    """Every file and folder below `folder`, sorted, each folder before its contents."""
    found = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.is_symlink():
            raise OSError(40, f"a bundle holds no links: {entry}")
        found.append(entry)
        if entry.is_dir():
            found.extend(_paths(entry))
    return found


def write_tar(path: Path, folder: Path) -> None:
    """Make `path` a reproducible tar of `folder`'s contents (paths relative to `folder`)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=staging_prefix(path), suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for entry in _paths(folder):
                info = _member(folder, entry)
                if entry.is_dir():
                    tar.addfile(info)
                else:
                    with open(entry, "rb") as data:
                        tar.addfile(info, data)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
