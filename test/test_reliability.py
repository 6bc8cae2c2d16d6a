"""Determinism and no lost output, with `mrvl-compile` in its own process as users run it:

- the same model and options give byte-identical bundles (`.tar` and folder), also across
  interpreter hash seeds, for every zoo model;
- a compile killed with SIGKILL at any moment leaves the previous complete bundle or the new
  one at the output path (never a half one); the next run succeeds and clears the killed
  run's temporary files.
"""

import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from ir_helpers import ZOO_INPUT_SHAPES

from mrvl_dialect.files import staging_prefix

MODELS = ["mnist", "resnet_small", "mobilenet_small", "transformer_block"]
SLOW = {"mnist", "mobilenet_small"}  # suite time: a CNN and a transformer stay in it


def _command(model: Path, name: str, output: Path) -> list[str]:
    shapes = [a for k, v in ZOO_INPUT_SHAPES[name].items() for a in ("--input-shape", f"{k}={'x'.join(map(str, v))}")]
    return [sys.executable, "-m", "mrvl.compile", str(model), "-o", str(output), *shapes]


def _env(seed: int, tmp_path: Path) -> dict[str, str]:
    # mrvl-tmlc absent (its output would be the fake's), a fixed hash seed per run.
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return dict(os.environ, PYTHONHASHSEED=str(seed), PATH=f"{empty}{os.pathsep}{Path(sys.executable).parent}")


def _compile(model: Path, name: str, output: Path, seed: int, tmp_path: Path) -> None:
    done = subprocess.run(_command(model, name, output), env=_env(seed, tmp_path), capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in MODELS])
def test_same_input_same_bundle(name: str, zoo_dir: Path, tmp_path: Path) -> None:
    model = zoo_dir / f"{name}.onnx"
    _compile(model, name, tmp_path / "a.tar", 1, tmp_path)
    _compile(model, name, tmp_path / "b.tar", 2, tmp_path)
    _compile(model, name, tmp_path / "a", 3, tmp_path)
    assert (tmp_path / "a.tar").read_bytes() == (tmp_path / "b.tar").read_bytes()
    with tarfile.open(tmp_path / "a.tar") as tar:
        assert {m.name: tar.extractfile(m).read() for m in tar.getmembers()} == _files(tmp_path / "a")


def _complete_tar(path: Path, reference: dict[str, bytes]) -> bool:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()} == reference


@pytest.mark.parametrize("kind", ["tar", pytest.param("folder", marks=pytest.mark.slow)])  # suite time
def test_killed_compile_leaves_no_half_bundle(kind: str, zoo_dir: Path, tmp_path: Path) -> None:
    """SIGKILL at spread-out moments of a compile over an earlier bundle of another model:
    the output path holds, every time, one of the two complete bundles."""
    output = tmp_path / ("out.tar" if kind == "tar" else "out")
    reference = tmp_path / "reference"
    _compile(zoo_dir / "mobilenet_small.onnx", "mobilenet_small", reference, 0, tmp_path)
    new = _files(reference)
    start = time.monotonic()
    _compile(zoo_dir / "mnist.onnx", "mnist", output, 0, tmp_path)
    old_path = tmp_path / "old"
    _compile(zoo_dir / "mnist.onnx", "mnist", old_path, 0, tmp_path)
    old = _files(old_path)
    duration = (time.monotonic() - start) / 2
    outcomes = set()
    for i in range(5):
        process = subprocess.Popen(_command(zoo_dir / "mobilenet_small.onnx", "mobilenet_small", output),
                                   env=_env(0, tmp_path), cwd=tmp_path, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        time.sleep(duration * (0.3 + 0.25 * i))
        process.send_signal(signal.SIGKILL)
        process.wait()
        if kind == "tar":
            state = "new" if _complete_tar(output, new) else "old" if _complete_tar(output, old) else "broken"
        else:
            state = "new" if _files(output) == new else "old" if _files(output) == old else "broken"
        assert state != "broken", f"kill {i}: the output is neither bundle"
        outcomes.add(state)
        if state == "new":  # start over from the old bundle
            _compile(zoo_dir / "mnist.onnx", "mnist", output, 0, tmp_path)
    assert "old" in outcomes, "no kill landed before the end of the compile"
    _compile(zoo_dir / "mobilenet_small.onnx", "mobilenet_small", output, 0, tmp_path)  # a re-run succeeds
    assert (_complete_tar(output, new) if kind == "tar" else _files(output) == new)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(f".{output.name}.")] == [], \
        "the killed runs' temporary files are cleared by the next run"


def test_stale_staging_of_dead_processes_is_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale_dir, stale_file = tmp_path / f".out.{dead.pid}.x1.tmp", tmp_path / f".out.{dead.pid}.x2.old"
    live = tmp_path / f".out.{os.getpid()}.x3.tmp"
    other = tmp_path / f".other.{dead.pid}.x4.tmp"
    stale_dir.mkdir()
    (stale_dir / "half.c").write_text("")
    for path in (stale_file, live, other):
        path.write_text("")
    assert staging_prefix(tmp_path / "out") == f".out.{os.getpid()}."
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])
