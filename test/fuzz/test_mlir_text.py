"""`.mlir` input mutated: the IR that `mrvl-opt` printed, damaged, read back by the tools.

Two seed texts (`conftest.seed_texts`), both printed by `mrvl-opt` with `--print-weights`
from the bundled MNIST model: the imported `graph` IR, and the IR after `mrvl-pipeline`
(`mrvl.subgraph`s, `cpu` ops, weights in a `dialect_resources` section). Mutated graph IR goes through the
pipeline; mutated pipeline IR is printed again and translated to JSON.
"""

import random

import pytest

from fuzz.search import corpus_seeds
from fuzz.contract import Cases, run_checked
from fuzz.text_mutations import mutate_text
from fuzz.tool_server import ToolServer

COMMANDS = {
    "graph": [("mrvl-opt", ["-p", "mrvl-pipeline"], "out.mlir"), ("mrvl-opt", [], "out.mlir")],
    "pipeline": [("mrvl-opt", ["--print-weights"], "out.mlir"), ("mrvl-translate", ["--to-json"], "json")],
}
"""What runs on a mutated seed text: (tool, arguments, what -o names), taken in turn."""
CORPUS = [(name, seed) for name in COMMANDS for seed in corpus_seeds(80)]


@pytest.mark.parametrize(("name", "seed"), CORPUS, ids=[f"{n}-{s}" for n, s in CORPUS])
def test_mutated_ir(name: str, seed: int, seed_texts: dict[str, str], server: ToolServer, cases: Cases):
    text, what = mutate_text(seed_texts[name], random.Random(f"{name}/{seed}"))
    tool, args, output = COMMANDS[name][seed % len(COMMANDS[name])]
    case = cases.new()
    source = case.write_input("in.mlir", text.encode("utf-8", errors="surrogateescape"))
    try:
        run_checked(server, "mlir-text", case, tool, args, source, output)
    except AssertionError as e:
        raise AssertionError(f"{name} text, mutation {seed}: {what}\n{e}") from None


def test_seed_texts_compile(seed_texts: dict[str, str], server: ToolServer, cases: Cases):
    """Unmutated, every command succeeds on its seed text."""
    for name, commands in COMMANDS.items():
        for tool, args, output in commands:
            case = cases.new()
            source = case.write_input("in.mlir", seed_texts[name])
            assert run_checked(server, "mlir-seed", case, tool, args, source, output).returncode == 0
