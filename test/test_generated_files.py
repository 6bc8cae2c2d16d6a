"""Generated files in the repository match their generators."""

import zoo

from mrvl_dialect import gen_graph_ops


def test_graph_ops_are_up_to_date():
    assert gen_graph_ops.main(["--check"]) == 0, "run: make regenerate"


def test_bundled_example_is_up_to_date():
    from pathlib import Path

    example = Path(zoo.__file__).with_name("mnist.onnx")
    assert example.read_bytes() == zoo.mnist_cnn().SerializeToString(), "run: make regenerate"


def test_supported_ops_page_is_up_to_date():
    import runpy
    from pathlib import Path

    generator = runpy.run_path(str(Path(__file__).resolve().parent.parent / "scripts" / "supported_ops_doc.py"))
    assert generator["main"](["--check"]) == 0, "run: make regenerate"
