"""Shared fixtures: the model zoo, built once per session into a temporary folder."""

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
