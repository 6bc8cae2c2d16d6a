"""Two versions of the compiler measured in the same run: this working tree and a git ref.

Seconds do not carry between machines (the same compile took 3.95 s on one and 13 s on
another), so compile-time targets are ratios to main before a change, measured here and now.
`Versions(ref)` installs this working tree (uncommitted changes included) and `git archive
REF` side by side, each non-editable into its own folder under `build/bench-checkouts/`
(kept per tree hash or commit, so a second run reuses them), and runs a measurement script
under each in a fresh interpreter started in a scratch folder, so neither version's sources
on `sys.path` can shadow the other's. `alternate` interleaves the runs (this, ref, this,
ref, ...) so that load on a shared machine falls on both alike.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "bench-checkouts"
SOURCES = ("pyproject.toml", "README.md", "mrvl", "mrvl_dialect", "target", "frontend", "passes", "backend")
"""What the package is built from (as test/test_wheel.py builds it); an older ref lacks some folders."""


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def _install(source: Path, into: Path) -> None:
    """`pip install --target` of a source tree, built outside it, written whole or not at all."""
    partial = into.with_name(into.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with tempfile.TemporaryDirectory() as build:
        tree = Path(build, "src")
        tree.mkdir()
        for name in SOURCES:
            item = source / name
            if not item.exists():
                continue
            (shutil.copytree if item.is_dir() else shutil.copy2)(item, tree / name)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--target", str(partial), str(tree)], check=True, cwd=build)
    partial.rename(into)


def working_tree() -> Path:
    """This checkout installed as it is now (keyed by the hash of its package sources)."""
    digest = hashlib.sha256()
    for name in SOURCES:
        paths = [ROOT / name] if (ROOT / name).is_file() else sorted((ROOT / name).rglob("*"))
        for path in paths:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    into = CACHE / f"tree-{digest.hexdigest()[:16]}"
    if not into.exists():
        _install(ROOT, into)
    return into


def git_ref(ref: str) -> Path:
    """The commit `ref` names, installed from `git archive` (keyed by the commit)."""
    commit = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    into = CACHE / f"commit-{commit[:16]}"
    if not into.exists():
        with tempfile.TemporaryDirectory() as tmp:
            archive = Path(tmp, "src.tar")
            _git("archive", "--format=tar", "-o", str(archive), commit)
            with tarfile.open(archive) as tar:
                tar.extractall(Path(tmp, "src"), filter="data")
            _install(Path(tmp, "src"), into)
    return into


class Versions:
    """This working tree (`"this"`) and, when `ref` is given, that commit (`ref` itself)."""

    def __init__(self, ref: str | None):
        self.sites = {"this": working_tree()}
        if ref:
            self.sites[ref] = git_ref(ref)
        self.scratch = Path(tempfile.mkdtemp(prefix="bench-run-"))

    def run(self, version: str, script: str, *args: str) -> str:
        """`python -c script args` importing `version`; its standard output."""
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(self.sites[version]), str(ROOT / "benchmarks")])}
        done = subprocess.run([sys.executable, "-c", script, *args], cwd=self.scratch, env=env,
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"error: {version}: the measurement failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def alternate(self, repeat: int, measure: Callable[[str, int], object]) -> dict[str, list]:
        """`measure(version, i)` `repeat` times per version, the versions taking turns."""
        results: dict[str, list] = {v: [] for v in self.sites}
        for i in range(repeat):
            for version in self.sites:
                results[version].append(measure(version, i))
        return results

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)


def machine() -> str:
    """The processor and its widest vector extension, to record with every figure."""
    flags, model = set(), "unknown processor"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("flags", "Features"):
                flags = set(value.split())
            elif key.strip() == "model name":
                model = value.strip()
    except OSError:
        pass
    isa = next((name for flag, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("sve2", "SVE2"), ("asimd", "NEON"))
                if flag in flags), "baseline")
    return f"{model}, {isa}, {os.cpu_count()} cores"
