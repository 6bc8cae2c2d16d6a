"""The packages depend one way: mrvl_dialect <- frontend, passes <- backend <- mrvl.

`mrvl_dialect` (the dialects and the helpers every stage shares) imports none of the
others; `frontend` and `passes` import only `mrvl_dialect` and themselves, not each other;
`backend` imports only `mrvl_dialect` and itself; the `mrvl` package (command-line tools
and the Python API) may import everything. Checked on the import statements of every
module, those inside functions included, read with `ast`.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FOLDERS = {"mrvl_dialect": "mrvl_dialect", "frontend": "frontend", "passes": "passes", "backend": "backend",
           "mrvl": "mrvl"}
"""Repository folder -> its layer (the folders are installed as mrvl_dialect, mrvl.frontend, ...)."""
ALLOWED = {
    "mrvl_dialect": {"mrvl_dialect"},
    "frontend": {"mrvl_dialect", "frontend"},
    "passes": {"mrvl_dialect", "passes"},
    "backend": {"mrvl_dialect", "backend"},
    "mrvl": {"mrvl_dialect", "frontend", "passes", "backend", "mrvl"},
}
"""The layers each layer may import."""


def layer_of(module: str) -> str | None:
    """The layer of an imported module name; None for anything outside the project."""
    parts = module.split(".")
    if parts[0] == "mrvl_dialect":
        return "mrvl_dialect"
    if parts[0] != "mrvl":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in ("frontend", "passes", "backend") else "mrvl"


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import in `source`; `from mrvl import passes` counts as
    importing `mrvl.passes`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"line {node.lineno}: relative import"
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def violations(layer: str, source: str) -> list[str]:
    """The imports in `source`, a module of `layer`, that reach a layer it may not import."""
    return [
        f"line {line}: imports {module} ({target})"
        for line, module in imported_modules(source)
        if (target := layer_of(module)) is not None and target not in ALLOWED[layer]
    ]


def project_modules() -> list[tuple[str, Path]]:
    return [(layer, path) for folder, layer in FOLDERS.items() for path in sorted((ROOT / folder).rglob("*.py"))]


def test_every_layer_is_checked():
    counts = {layer: sum(1 for lay, _ in project_modules() if lay == layer) for layer in ALLOWED}
    assert all(counts.values()), counts


@pytest.mark.parametrize(("layer", "path"), project_modules(), ids=lambda p: str(p.relative_to(ROOT)) if isinstance(p, Path) else p)
def test_module_imports_only_earlier_layers(layer, path):
    assert violations(layer, path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(("layer", "source", "expected"), [
    ("backend", "from mrvl.passes.graph_queries import op_type\n", ["line 1: imports mrvl.passes.graph_queries.op_type (passes)"]),
    ("backend", "def f():\n    from mrvl import frontend\n", ["line 2: imports mrvl.frontend (frontend)"]),
    ("mrvl_dialect", "import mrvl.backend.tmlc\n", ["line 1: imports mrvl.backend.tmlc (backend)"]),
    ("mrvl_dialect", "from mrvl.compile import main\n", ["line 1: imports mrvl.compile.main (mrvl)"]),
    ("passes", "from mrvl.frontend.onnx_graph import node_label\n", ["line 1: imports mrvl.frontend.onnx_graph.node_label (frontend)"]),
    ("frontend", "from mrvl.passes import get_all_passes\n", ["line 1: imports mrvl.passes.get_all_passes (passes)"]),
    ("passes", "import numpy\nfrom mrvl_dialect.locations import location_nodes\nfrom mrvl.passes.fuse_mrvl import PATTERNS\n", []),
    ("mrvl", "from mrvl.backend.c_emitter import emit_c\nfrom mrvl.passes import get_all_passes\n", []),
])
def test_a_forbidden_import_is_found(layer, source, expected):
    assert violations(layer, source) == expected
