"""The packages depend one way: mrvl_dialect <- target <- frontend, passes, backend <- mrvl.

`mrvl_dialect` (the dialects and the helpers every stage shares) imports none of the
others; `target` (the target description: options, cost model, kernel ABI) imports only
the dialects; `frontend` imports only `mrvl_dialect`; `passes` and `backend` import the
dialects and the target, not each other; the `mrvl` package (command-line tools and the
Python API) may import everything. Checked on the import statements of every module,
those inside functions included, and on the files a module reads from a package
(`importlib.resources.files(...)`, or a path built from `__file__`), read with `ast`.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FOLDERS = {"mrvl_dialect": "mrvl_dialect", "target": "target", "frontend": "frontend", "passes": "passes",
           "backend": "backend", "mrvl": "mrvl"}
"""Repository folder -> its layer (the folders are installed as mrvl_dialect, mrvl.frontend, ...)."""
ALLOWED = {
    "mrvl_dialect": {"mrvl_dialect"},
    "target": {"mrvl_dialect", "target"},
    "frontend": {"mrvl_dialect", "frontend"},
    "passes": {"mrvl_dialect", "target", "passes"},
    "backend": {"mrvl_dialect", "target", "backend"},
    "mrvl": {"mrvl_dialect", "target", "frontend", "passes", "backend", "mrvl"},
}
"""The layers each layer may import."""


def layer_of(module: str) -> str | None:
    """The layer of an imported module name; None for anything outside the project."""
    parts = module.split(".")
    if parts[0] == "mrvl_dialect":
        return "mrvl_dialect"
    if parts[0] != "mrvl":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in ("target", "frontend", "passes", "backend") else "mrvl"


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


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def resource_loads(source: str) -> list[tuple[int, str]]:
    """(line, layer) of every package resource `source` reads: `files("mrvl.backend")`
    reads from mrvl.backend's layer, and a path built from `__file__` that names a
    repository folder (`Path(__file__).parent.parent / "backend"`) from that folder's."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "files":
            found += [(node.lineno, layer) for arg in node.args[:1] for s in _strings(arg) if (layer := layer_of(s))]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and any(
                isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(node)):
            found += [(node.lineno, FOLDERS[s]) for s in _strings(node) if s in FOLDERS]
    return sorted(set(found))


def violations(layer: str, source: str) -> list[str]:
    """The imports and resource reads in `source`, a module of `layer`, that reach a layer it
    may not import."""
    imports = [
        f"line {line}: imports {module} ({target})"
        for line, module in imported_modules(source)
        if (target := layer_of(module)) is not None and target not in ALLOWED[layer]
    ]
    return imports + [f"line {line}: reads a resource of {target}" for line, target in resource_loads(source)
                      if target not in ALLOWED[layer]]


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
    ("mrvl", "from mrvl.backend.bundle import host_bundle\nfrom mrvl.passes import get_all_passes\n", []),
    ("target", "from mrvl.passes.fuse_mrvl import PATTERNS\n", ["line 1: imports mrvl.passes.fuse_mrvl.PATTERNS (passes)"]),
    ("passes", "from mrvl.target.cost_model import CostModel\n", []),
    ("frontend", "from mrvl.target.options import TargetOptions\n", ["line 1: imports mrvl.target.options.TargetOptions (target)"]),
    ("target", "from importlib.resources import files\nfiles('mrvl.backend').joinpath('c_runtime/x.h')\n",
     ["line 2: reads a resource of backend"]),
    ("mrvl_dialect", "from pathlib import Path\nP = Path(__file__).parent.parent / 'backend' / 'c_runtime'\n",
     ["line 2: reads a resource of backend"]),
    ("target", "from importlib.resources import files\nfiles(__package__).joinpath('tiles.h')\n", []),
    ("backend", "from importlib.resources import files\nfiles('mrvl.target').joinpath('tiles.h')\n", []),
])
def test_a_forbidden_import_is_found(layer, source, expected):
    assert violations(layer, source) == expected
