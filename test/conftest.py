"""Shared fixtures: the model zoo, built once per session into a temporary folder; a build
cache for `mrvl-run` of the test session's own (never the user's ~/.cache)."""

import os
from pathlib import Path

import onnx
import pytest
import zoo


@pytest.fixture(scope="session")
def zoo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("zoo")
    for name, build in zoo.ZOO.items():
        if name != "resnet50_sized":
            onnx.save_model(build(), folder / f"{name}.onnx")
    return folder


@pytest.fixture(scope="session", autouse=True)
def mrvl_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mrvl-cache")
    previous = os.environ.get("MRVL_CACHE_DIR")
    os.environ["MRVL_CACHE_DIR"] = str(folder)
    yield folder
    if previous is None:
        del os.environ["MRVL_CACHE_DIR"]
    else:
        os.environ["MRVL_CACHE_DIR"] = previous
