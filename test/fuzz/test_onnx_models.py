"""Generated ONNX models with wrong types, shapes, names, data and graphs, through the tools.

Each model is imported by `mrvl-opt` or `mrvl-translate --import-onnx`, or compiled by
`mrvl-opt -p mrvl-pipeline`; the model's folder holds a 64-byte `weights.bin` and a link
to it, for the external-data entries the models may carry.
"""

import os

from hypothesis import given
from hypothesis import strategies as st

from fuzz.search import fuzz_settings
from fuzz.contract import Cases, run_checked
from fuzz.onnx_models import models
from fuzz.tool_server import ToolServer

COMMANDS = {
    "import": ("mrvl-opt", []),
    "translate": ("mrvl-translate", ["--import-onnx"]),
    "pipeline": ("mrvl-opt", ["-p", "mrvl-pipeline"]),
}


@fuzz_settings(examples=120)
@given(model=models(), command=st.sampled_from(sorted(COMMANDS)))
def test_generated_model(model: tuple[bytes, str], command: str, server: ToolServer, cases: Cases):
    data, ops = model
    case = cases.new()
    source = case.write_input("model.onnx", data)
    case.write_input("weights.bin", bytes(range(64)))
    os.symlink("weights.bin", case.input_dir / "link.bin")
    tool, args = COMMANDS[command]
    run_checked(server, "onnx-generated", case, tool, args, source)
