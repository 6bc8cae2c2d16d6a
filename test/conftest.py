"""Shared fixtures: the model zoo, built once per session into a temporary folder; a folder
the session's pytest-xdist workers share, and in it a build cache for `mrvl-run` of the test
session's own (never the user's ~/.cache)."""

import os
from pathlib import Path

import onnx
import pytest
import zoo

from fuzz import search


@pytest.fixture(scope="session")
def zoo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("zoo")
    for name, build in zoo.ZOO.items():
        if name != "resnet50_sized":
            onnx.save_model(build(), folder / f"{name}.onnx")
    return folder


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of this test session's that all its pytest-xdist workers share: what is made
    there, keyed by content, one worker makes and the other reuses."""
    base = tmp_path_factory.getbasetemp()
    # A worker's base folder is in the session's (pytest-xdist names it after the worker).
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session", autouse=True)
def mrvl_cache_dir(session_dir: Path) -> Path:
    folder = session_dir / "mrvl-cache"
    folder.mkdir(exist_ok=True)
    previous = os.environ.get("MRVL_CACHE_DIR")
    os.environ["MRVL_CACHE_DIR"] = str(folder)
    yield folder
    if previous is None:
        del os.environ["MRVL_CACHE_DIR"]
    else:
        os.environ["MRVL_CACHE_DIR"] = previous


# The fuzzing harness's summary (test/fuzz/search.py). Here, not in test/fuzz/conftest.py:
# under pytest-xdist the controller, which prints it, loads only this conftest.


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its counts go to the controller
        workeroutput["fuzz"] = search.counts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist's controller: add up the counts of a worker that finished."""
    if "fuzz" in getattr(node, "workeroutput", {}):
        search.add_counts(*node.workeroutput["fuzz"])


def pytest_terminal_summary(terminalreporter) -> None:
    if lines := search.summary():
        terminalreporter.write_sep("-", lines[0])
        for line in lines[1:]:
            terminalreporter.write_line(line)
