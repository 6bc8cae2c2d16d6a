"""Zoo models mutated: one wrong type, dim, name or edge; one protobuf field; raw bytes;
one token of their ONNX text syntax.

A seeded corpus: input `seed` of a mutation kind is the same on every run, and a failure
names the model, the kind, the seed and what was mutated, so that it can be replayed with
`mutated_model(...)`. The tools alternate between `mrvl-opt` and `mrvl-translate`.
"""

import random
from functools import cache

import onnx
import onnx.printer
import pytest
import zoo

from fuzz.search import corpus_seeds
from fuzz.contract import Cases, run_checked
from fuzz.tool_server import ToolServer
from fuzz.model_mutations import mutate_model
from fuzz.text_mutations import mutate_text
from fuzz.wire import mutate_bytes, mutate_field

SEED_MODELS = {
    "mnist": None,
    "mobilenet_small": "images=1x3x96x96",
    "transformer_block": "x=1x16x64",
}
"""The zoo models mutations start from, and the --input-shape their dynamic batch needs."""


@cache
def seed_model(name: str) -> bytes:
    return zoo.ZOO[name]().SerializeToString()


def mutated_model(name: str, kind: str, seed: int) -> tuple[bytes, str]:
    """Zoo model `name` after mutation `kind` number `seed`."""
    rng = random.Random(f"{name}/{kind}/{seed}")
    return MUTATIONS[kind](seed_model(name), rng)


def mutate_onnx_text(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """The model in ONNX text syntax (`.onnxtxt`), one token or line changed."""
    text, what = mutate_text(onnx.printer.to_text(onnx.ModelProto.FromString(data)), rng)
    return text.encode(), what


MUTATIONS = {"model": mutate_model, "field": mutate_field, "bytes": mutate_bytes, "text": mutate_onnx_text}
"""Meaning (one wrong type, dim, name, edge, ...), one protobuf field, raw bytes, text syntax."""


def tool_args(seed: int, input_shape: str | None) -> tuple[str, list[str]]:
    shape = ["--input-shape", input_shape] if input_shape else []
    if seed % 2:
        return "mrvl-translate", ["--import-onnx", *shape]
    return "mrvl-opt", shape


CORPUS = [
    (name, kind, seed)
    for kind, count in (("model", 50), ("field", 30), ("bytes", 12), ("text", 8))
    for name in SEED_MODELS
    for seed in corpus_seeds(count)
]


@pytest.mark.parametrize(("name", "kind", "seed"), CORPUS, ids=[f"{n}-{k}-{s}" for n, k, s in CORPUS])
def test_mutated_model(name: str, kind: str, seed: int, server: ToolServer, cases: Cases):
    data, what = mutated_model(name, kind, seed)
    case = cases.new()
    source = case.write_input("model.onnxtxt" if kind == "text" else "model.onnx", data)
    tool, args = tool_args(seed, SEED_MODELS[name])
    try:
        run_checked(server, f"zoo-{kind}", case, tool, args, source)
    except AssertionError as e:
        raise AssertionError(f"{name}, {kind} mutation {seed}: {what}\n{e}") from None


def test_seed_models_compile(server: ToolServer, cases: Cases):
    """Unmutated, every seed model imports: the mutations start from working inputs."""
    for name, shape in SEED_MODELS.items():
        case = cases.new()
        source = case.write_input("model.onnx", seed_model(name))
        tool, args = tool_args(0, shape)
        assert run_checked(server, "zoo-seed", case, tool, args, source).returncode == 0


def test_field_mutations_change_one_field():
    """The mutator keeps the framing: most mutants still parse as ModelProto."""
    parsed = 0
    for seed in range(50):
        data, _ = mutated_model("mnist", "field", seed)
        try:
            onnx.ModelProto.FromString(data)
            parsed += 1
        except Exception:
            pass
    assert parsed >= 25, f"only {parsed} of 50 field mutants parse: the mutator breaks framing"
