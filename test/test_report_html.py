"""`report.html` (`backend/report_html.py`): every ONNX node drawn once with its placement,
a layered layout, nothing fetched at view time; rendered in headless chromium (skipped
where chromium is not installed, as the cross tests are without their tools)."""

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import onnx
import pytest
from ir_helpers import ZOO_INPUT_SHAPES

from mrvl.compile import compile_model
from mrvl.opt import main as mrvl_opt

MODELS = ["mobilenet_small", "resnet_small", "ocr_cls_stale", "yolov3_tiny"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class _Boxes(HTMLParser):
    """The `<g>` boxes of the picture (attributes) and the edges' end points."""

    def __init__(self) -> None:
        super().__init__()
        self.boxes: list[dict[str, str]] = []
        self.rects: list[tuple[float, float]] = []
        self.edges: list[tuple[float, float]] = []
        self.fetches: list[str] = []
        self.body: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "g":
            self.boxes.append(a)
        elif tag == "rect" and "y" in a:
            self.rects.append((float(a["x"]), float(a["y"])))
        elif tag == "path" and a.get("class") == "edge":
            numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", a["d"])]
            self.edges.append((numbers[1], numbers[-1]))
        elif tag == "body":
            self.body = a
        if tag in ("link", "img", "iframe") or "src" in a or "href" in a:
            self.fetches.append(tag)


def _parse(text: str) -> _Boxes:
    parser = _Boxes()
    parser.feed(text)
    return parser


@pytest.fixture(scope="module")
def bundles(zoo_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("html")
    for name in MODELS:
        compile_model(zoo_dir / f"{name}.onnx", out / name, input_shapes=ZOO_INPUT_SHAPES[name])
    return {name: out / name for name in MODELS}


def _expected(bundle: Path) -> dict[str, tuple[str, str]]:
    report = json.loads((bundle / "report.json").read_text())
    return {n["name"]: (n["place"], n["subgraph"] or "") for n in report["nodes"]}


def _check_nodes(boxes: _Boxes, bundle: Path, onnx_file: Path) -> None:
    nodes = [b for b in boxes.boxes if b.get("class") == "node"]
    names = [b["data-name"] for b in nodes]
    assert len(names) == len(set(names)), "a node drawn twice"
    expected = _expected(bundle)
    assert {b["data-name"]: (b["data-place"], b["data-subgraph"]) for b in nodes} == expected
    graph = onnx.load(onnx_file, load_external_data=False).graph
    assert set(names) <= {n.name for n in graph.node}


@pytest.mark.parametrize("name", MODELS)
def test_every_node_once_with_its_placement(bundles, zoo_dir, name):
    page = (bundles[name] / "report.html").read_text(encoding="utf-8")
    boxes = _parse(page)
    _check_nodes(boxes, bundles[name], zoo_dir / f"{name}.onnx")
    assert boxes.fetches == [] and not re.search(r"https?://(?!www\.w3\.org/2000/svg)", page)
    # Layers: every edge runs down from a box's bottom to a later layer's top.
    assert boxes.edges and all(y2 > y1 for y1, y2 in boxes.edges)
    assert len(set(boxes.rects)) == len(boxes.rects), "two boxes in one place"
    titles = re.findall(r'<g class="node"[^>]*><title>(.*?)</title>', page, re.S)
    assert len(titles) == len(_expected(bundles[name]))
    assert all("\nruns on " in t and "\nestimated " in t for t in titles)


def test_host_nodes_give_their_reason_on_hover(bundles):
    page = (bundles["mobilenet_small"] / "report.html").read_text(encoding="utf-8")
    title = re.search(r'data-name="p2o.HardSwish.0"[^>]*><title>(.*?)</title>', page, re.S)
    assert title is not None
    lines = title.group(1).splitlines()
    assert lines[:2] == ["p2o.HardSwish.0 (HardSwish)", "runs on host"]
    assert lines[2].startswith("unsupported: MLIP has no layer for HardSwish")
    assert re.fullmatch(r"estimated \S+ \S+ \(host kernel p2o\.HardSwish\.0 \(HardSwish\) \(cpu\.hard_swish\)\)",
                        lines[-1])


def test_mrvl_opt_target(tmp_path, zoo_dir, capsys):
    out = tmp_path / "r.html"
    assert mrvl_opt([str(zoo_dir / "mnist.onnx"), "-p", "mrvl-pipeline", "-t", "placement-report{format=html}",
                     "-o", str(out)]) == 0
    boxes = _parse(out.read_text(encoding="utf-8"))
    assert {b["data-place"] for b in boxes.boxes if b.get("class") == "node"} == {"mlip"}


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (make cross-tools installs it as root)")
@pytest.mark.parametrize("name", MODELS)
def test_renders_in_headless_chromium(bundles, zoo_dir, name, tmp_path):
    """The page as chromium lays it out: its script marks each box with its rendered size."""
    page = bundles[name] / "report.html"
    done = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    boxes = _parse(done.stdout)
    _check_nodes(boxes, bundles[name], zoo_dir / f"{name}.onnx")
    drawn = [b for b in boxes.boxes if b.get("class") in ("node", "io")]
    assert drawn and all(b.get("data-rendered") == "1" for b in drawn)
    assert boxes.body.get("data-nodes") == str(len(_expected(bundles[name])))
