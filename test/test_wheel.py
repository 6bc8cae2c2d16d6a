"""The wheel works on its own: built from the project's files alone, installed into a new venv
outside the checkout with the locked versions of what it declares it needs, it compiles and
runs the example with `mrvl-compile` and `mrvl-run`; `--verify` asks for the `verify` extra
until onnxruntime is there, then passes. Its import names are the project's own."""

import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_lock import LOCK

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["pyproject.toml", "README.md", "mrvl", "mrvl_dialect", "target", "frontend", "passes", "backend"]
TOP_LEVEL = {"mrvl", "mrvl_dialect"}


def requirement_closure(requirements: list[str], extras: set[str]) -> set[str]:
    """The distributions `requirements` need, transitively, as this venv (made from the
    lock) resolves them."""
    names, todo = set(), [Requirement(r) for r in requirements]
    while todo:
        requirement = todo.pop()
        environments = [dict(default_environment(), extra=e) for e in extras | {""}]
        if requirement.marker and not any(requirement.marker.evaluate(env) for env in environments):
            continue
        name = canonicalize_name(requirement.name)
        if name in names:
            continue
        names.add(name)
        todo += [Requirement(r) for r in metadata.requires(name) or [] if "extra ==" not in r]
    return names


def locked_lines(names: set[str]) -> str:
    """The lock's entries (with their hashes) for `names`."""
    entries = LOCK.read_text().replace("\\\n", "\x00").splitlines()
    kept = [e for e in entries if e and not e.startswith(("#", " ")) and canonicalize_name(
        Requirement(e.split("\x00")[0].split(" --hash")[0].strip()).name) in names]
    return "\n".join(e.replace("\x00", "\\\n") for e in kept) + "\n"


def run(command: list, cwd: Path, env: dict, ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if ok:
        assert done.returncode == 0, f"{' '.join(map(str, command))}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(path, source / name)
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", out, source],
        source, dict(os.environ))
    (built,) = out.glob("mrvl_xdsl-*.whl")
    return built


def test_wheel_holds_the_runtime_under_the_projects_names(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == TOP_LEVEL
    runtime = sorted(p.name for p in (ROOT / "backend" / "c_runtime").iterdir())
    assert {"mrvl_kernels.c", "mrvl_kernels_internal.h", "mrvl_mlip_board.c"} <= set(runtime)
    for name in runtime:  # every file of the C runtime, the kernel families' too
        assert f"mrvl/backend/c_runtime/{name}" in names
    assert "mrvl/target/mrvl_kernels_tiles.h" in names
    assert {"mrvl/passes/__init__.py", "mrvl/frontend/onnx_importer.py", "mrvl/target/cost_model.py", "mrvl_dialect/cpu.py"} <= set(names)


def test_installed_wheel_compiles_runs_and_verifies(wheel, tmp_path):
    venv, work = tmp_path / "venv", tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(MRVL_CACHE_DIR=str(tmp_path / "cache"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    run([sys.executable, "-m", "venv", venv], work, env)
    python, bin_dir = venv / "bin" / "python", venv / "bin"

    def install(requirements: list[str], extras: set[str]) -> None:
        (work / "req.txt").write_text(locked_lines(requirement_closure(requirements, extras)))
        run([python, "-m", "pip", "install", "--quiet", "--require-hashes", "--no-deps", "-r", "req.txt"], work, env)

    wanted = metadata.requires("mrvl-xdsl") or []
    install([r for r in wanted if "extra ==" not in r], set())
    run([python, "-m", "pip", "install", "--quiet", "--no-deps", wheel], work, env)
    run([python, "-m", "pip", "check"], work, env)  # everything the wheel declares is there

    shutil.copy(ROOT / "examples" / "mnist.onnx", work)
    where = run([python, "-c", "import mrvl.backend, sys; print(mrvl.backend.__file__)"], work, env).stdout
    assert Path(where.strip()).is_relative_to(venv)
    assert run([python, "-c", "import backend"], work, env, ok=False).returncode != 0

    run([bin_dir / "mrvl-compile", "mnist.onnx", "-o", "m.tar"], work, env)
    ran = run([bin_dir / "mrvl-run", "m.tar", "--outputs", "out.npz"], work, env)
    assert "ran mnist" in ran.stdout and (work / "out.npz").is_file()
    refused = run([bin_dir / "mrvl-run", "m.tar", "--verify", "mnist.onnx"], work, env, ok=False)
    assert refused.returncode == 1
    assert refused.stderr.strip().splitlines() == [
        "error: m.tar: --verify: needs onnxruntime, the 'verify' extra: pip install 'mrvl-xdsl[verify]'"]

    install(["onnxruntime"], set())
    verified = run([bin_dir / "mrvl-run", "m.tar", "--verify", "mnist.onnx"], work, env)
    assert "verify against onnxruntime" in verified.stdout and "FAILED" not in verified.stdout
