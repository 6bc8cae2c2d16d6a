"""Writing a bundle: JSON text as `json.dumps(indent=2)` writes it, tar archives straight from
memory with the bytes `tarfile` gives the same files on disk, and `write_bundle` whole or not at all."""

import enum
import json
import os
import tarfile
from pathlib import Path

import pytest

from mrvl.backend.bundle import METADATA_FILE, Bundle, write_bundle
from mrvl.backend.bundle_archive import folder_files, write_tar
from mrvl.backend.json_text import DeferredText, json_text
from mrvl.backend.output_directory import write_file


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


DOCUMENTS = [
    1, -2.5, "text", None, True, [], {}, [[]], {"a": {}}, (1, (2, 3)),
    {"floats": [0.1, -0.0, 1e300, 5e-324, float("nan"), float("inf"), -float("inf")]},
    {"strings": ["é", "\n\t\"\\", "\x7f", "ü" * 100, "\"" + "A" * 100, "A" * 100 + "\x01", "B" * 100 + "\\",
                 "base64+/=" * 20]},
    {1: "int key", 2.5: "float key", False: "bool key", None: "null key", "ключ": "значение"},
    {"nested": [{"a": [1, [2, {"b": []}]]}, [], {}, [{"c": None}]], "after": 1},
    {"subclasses": [Level.HIGH, Name("name"), True, False], Name("key"): Level.HIGH},
    [{"x": 1}, 2, [3, [4]]],
]


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_json_text_is_what_json_dumps_writes(document: object) -> None:
    assert json_text(document) == json.dumps(document, indent=2)


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_json_text_keeps_unicode_as_json_dumps_does(document: object) -> None:
    assert json_text(document, ensure_ascii=False) == json.dumps(document, indent=2, ensure_ascii=False)


def test_deferred_text_is_computed_as_it_is_written() -> None:
    computed = []

    def compute(text: str) -> str:
        computed.append(text)
        return text

    document = {"a": DeferredText(lambda: compute("x" * 80)), "b": [DeferredText(lambda: compute("\"y\""))],
                "c": {"d": DeferredText(lambda: compute("QUJD").encode()), "e": "\0"},
                "f": DeferredText(lambda: compute("a\\b\x01").encode())}
    assert json_text(document) == json.dumps({"a": "x" * 80, "b": ["\"y\""], "c": {"d": "QUJD", "e": "\0"},
                                              "f": "a\\b\x01"}, indent=2)
    assert computed == ["x" * 80, "\"y\"", "QUJD", "a\\b\x01"]


def test_plain_deferred_text_is_written_unchecked() -> None:
    # The caller promises text that needs no escaping, so none is looked for: what is
    # computed is what is written, even a backslash.
    document = {"s": DeferredText(lambda: "QU\\JD", plain=True), "b": [DeferredText(lambda: b"QU\\JD", plain=True)]}
    assert json_text(document) == '{\n  "s": "QU\\JD",\n  "b": [\n    "QU\\JD"\n  ]\n}'


def test_json_text_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError, match="object is not JSON serializable"):
        json_text({"a": [object()]})
    with pytest.raises(TypeError, match="keys must be"):
        json_text({(1, 2): 3})


def _tarfile_archive(path: Path, folder: Path) -> None:
    """The archive `write_tar` promises, made with `tarfile` from files on disk."""
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as tar:
        for entry in sorted(folder.rglob("*"), key=lambda p: p.relative_to(folder).parts):
            info = tarfile.TarInfo(entry.relative_to(folder).as_posix())
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if entry.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size = entry.stat().st_size
                info.mode = 0o755 if os.access(entry, os.X_OK) else 0o644
                with open(entry, "rb") as data:
                    tar.addfile(info, data)


FILES = {
    "m.c": "int x;\n" * 100,
    "m_weights.bin": bytes(range(256)) * 3,
    "bin_a.json": {"name": "a", "data": DeferredText(lambda: "QUJD" * 200)},
    "bin_a/a.bin": b"\x01" * 513,
    "bin_a/z.txt": "",
    "bin_" + "a" * 60 + "/" + "b" * 60 + ".txt": "a long path, split into ustar's prefix and name\n",
    "Makefile": "all:\n",
}


def test_archive_from_memory_is_tarfiles_archive_of_the_files(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    (folder / "bin_a").mkdir(parents=True)
    (folder / ("bin_" + "a" * 60)).mkdir()
    for name, content in FILES.items():
        write_file(folder / name, content)
    (folder / "tool.sh").write_text("#!/bin/sh\n")
    (folder / "tool.sh").chmod(0o755)
    _tarfile_archive(tmp_path / "expected.tar", folder)

    write_tar(tmp_path / "disk.tar", folder_files(folder))
    assert (tmp_path / "disk.tar").read_bytes() == (tmp_path / "expected.tar").read_bytes()
    (folder / "tool.sh").unlink()
    _tarfile_archive(tmp_path / "expected.tar", folder)
    write_tar(tmp_path / "memory.tar", FILES)
    assert (tmp_path / "memory.tar").read_bytes() == (tmp_path / "expected.tar").read_bytes()


def test_archive_that_fails_leaves_the_old_one(tmp_path: Path) -> None:
    out = tmp_path / "b.tar"
    write_tar(out, {"a.txt": "first"})
    before = out.read_bytes()
    with pytest.raises(TypeError):
        write_tar(out, {"a.txt": "second", "b.json": {"bad": object()}})
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.tar"]


@pytest.fixture
def no_tmlc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_write_bundle_writes_one_bundle_per_call(tmp_path: Path, no_tmlc: None) -> None:
    """A tar without tools is written from memory; a folder holds the same files."""
    files = {"m.c": "int x;\n", "s-consts.json": {"w": DeferredText(lambda: "QUJD")},
             "tmlc-commands.txt": "mrvl-tmlc -mn s -f1 s-nodes.json -f2 s-consts.json -b 1\n"}
    for output in (tmp_path / "a.tar", tmp_path / "a"):
        write_bundle(output, Bundle(dict(files), {"model": "m"}))
    with tarfile.open(tmp_path / "a.tar") as tar:
        archived = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    assert archived == {p.name: p.read_bytes() for p in (tmp_path / "a").iterdir()}
    assert set(archived) == {*files, METADATA_FILE}
    assert json.loads(archived[METADATA_FILE])["tmlc"]["status"] == "not-found"


def test_write_bundle_that_fails_writes_nothing(tmp_path: Path, no_tmlc: None) -> None:
    for output in (tmp_path / "a.tar", tmp_path / "a"):
        with pytest.raises(TypeError):
            write_bundle(output, Bundle({"m.c": "int x;\n", "r.json": {"bad": object()}}, {"model": "m"}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty-bin"]
