"""Fixtures of the fuzzing harness, and how long it searches.

`make test` runs a fixed corpus: seeded mutations (`corpus_seeds`) and hypothesis with
`derandomize=True`, so every run tries the same inputs. `make fuzz` sets `MRVL_FUZZ_SCALE`
(how many times more inputs) and a seed (`--hypothesis-seed`, and `MRVL_FUZZ_SEED` for the
mutation corpus), so that a long search tries new inputs each time it is given a new seed.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from fuzz.contract import OUTCOMES, SECONDS, SLOWEST, Cases, run_checked
from fuzz.tool_server import ToolServer

SCALE = int(os.environ.get("MRVL_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("MRVL_FUZZ_SEED", "0"))
"""Where the long search's mutation corpus starts; the fixed corpus starts at 0."""


def fuzz_settings(examples: int) -> settings:
    """Hypothesis settings for `examples` inputs (times SCALE), reproducible in `make test`."""
    return settings(
        max_examples=examples * SCALE,
        derandomize=SCALE == 1,
        deadline=None,  # each run has its own time limit (tool_server.TIMEOUT_S)
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True,
    )


def corpus_seeds(count: int) -> list[int]:
    """The seeds of a seeded mutation corpus of `count` inputs (times SCALE)."""
    return list(range(SEED, SEED + count * SCALE))


@pytest.fixture(scope="session")
def server():
    tool_server = ToolServer()
    yield tool_server
    tool_server.close()


@pytest.fixture(scope="session")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Cases:
    return Cases(tmp_path_factory.mktemp("fuzz"))


MNIST = Path(__file__).resolve().parents[2] / "examples" / "mnist.onnx"
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


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its counts go to the controller
        workeroutput["fuzz"] = [dict(OUTCOMES), dict(SECONDS), dict(SLOWEST)]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """pytest-xdist's controller: add up the counts of a worker that finished."""
    outcomes, seconds, slowest = getattr(node, "workeroutput", {}).get("fuzz", ({}, {}, {}))
    OUTCOMES.update(outcomes)
    SECONDS.update(seconds)
    for target, longest in slowest.items():
        SLOWEST[target] = max(SLOWEST.get(target, 0.0), longest)


def pytest_terminal_summary(terminalreporter) -> None:
    if not OUTCOMES:
        return
    total = sum(OUTCOMES.values())
    seconds = sum(SECONDS.values())
    terminalreporter.write_sep("-", f"fuzz: {total} inputs, {seconds:.0f} s in the tools "
                                    f"(scale {SCALE}, mutation seeds from {SEED})")
    for key in sorted(OUTCOMES):
        target = key.split(":")[0]
        terminalreporter.write_line(f"{key:30} {OUTCOMES[key]:6}   {target}: {SECONDS[target]:6.1f} s, "
                                    f"slowest run {SLOWEST[target]:.2f} s")
