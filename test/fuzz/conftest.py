"""Fixtures of the fuzzing harness: the tool server, case folders and seed texts."""

import pytest

from fuzz.contract import MNIST, Cases, run_checked
from fuzz.tool_server import ToolServer


@pytest.fixture(scope="session")
def server():
    tool_server = ToolServer()
    yield tool_server
    tool_server.close()


@pytest.fixture(scope="session")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Cases:
    return Cases(tmp_path_factory.mktemp("fuzz"))


SEED_TEXTS = {
    "graph": ["--print-weights"],
    "pipeline": ["-p", "mrvl-pipeline", "--print-weights"],
}
"""IR texts mutations start from: `mrvl-opt mnist.onnx` with these arguments."""


@pytest.fixture(scope="session")
def seed_texts(server: ToolServer, cases: Cases) -> dict[str, str]:
    """The IR `mrvl-opt` prints for the bundled MNIST model, with its weights: imported
    (`graph`), and after `mrvl-pipeline` (`pipeline`)."""
    texts = {}
    for name, args in SEED_TEXTS.items():
        case = cases.new()
        run_checked(server, "mlir-seed", case, "mrvl-opt", args, MNIST)
        texts[name] = (case.output_dir / "out.mlir").read_text()
    return texts
