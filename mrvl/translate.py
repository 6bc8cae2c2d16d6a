"""`mrvl-translate`: convert between ONNX, mrvl IR and output artefacts, like mlir-translate.

    mrvl-translate --import-onnx model.onnx [-o out.mlir] [--input-shape NAME=DIMS ...]
    mrvl-translate --to-json in.mlir -o OUTDIR
    mrvl-translate --to-c in.mlir -o OUTDIR

Exactly one translation is named per call, and none runs a pass: `--to-c` takes IR that
`mrvl-host-pipeline` has been through.
"""

import argparse
from collections.abc import Sequence
from typing import ClassVar

from mrvl.opt import MrvlOptMain, run_tool

TRANSLATIONS = {
    "--import-onnx": "ONNX model (.onnx, or text syntax .onnxtxt) -> graph dialect",
    "--to-json": "mrvl IR (from mrvl-opt -p mrvl-pipeline --print-weights) -> nodes, consts "
    "and sourcemap JSON per mrvl.subgraph and tmlc-commands.txt, into the directory -o names",
    "--to-c": "lowered mrvl IR (from mrvl-opt -p mrvl-pipeline,mrvl-host-pipeline --print-weights "
    "--print-debuginfo) -> the host C bundle (sources, header, weights, Makefile, metadata.json and the "
    "subgraphs' JSON), into the directory -o names",
}


class MrvlTranslateMain(MrvlOptMain):
    """mrvl-opt without passes, driven by one translation flag."""

    version_format: ClassVar[str] = "mrvl-translate (mrvl-xdsl, xdsl {xdsl_version})"

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        translation = arg_parser.add_argument_group("translations (choose one)")
        group = translation.add_mutually_exclusive_group(required=True)
        for flag, help_text in TRANSLATIONS.items():
            group.add_argument(flag, action="store_true", help=help_text)

    def setup_pipeline(self):
        if self.args.passes:
            raise SystemExit("error: mrvl-translate runs no passes; use mrvl-opt -p")
        if self.args.import_onnx and self.args.frontend is None:
            input_file = self.args.input_file or ""
            self.args.frontend = "onnxtxt" if input_file.endswith((".onnxtxt", ".onnxtext")) else "onnx"
        if self.args.to_json:
            self.args.target = "json"
        if self.args.to_c:
            self.args.target = "c"
        super().setup_pipeline()


def main(args: Sequence[str] | None = None) -> int:
    return run_tool(MrvlTranslateMain, args, "mrvl-translate: " + "; ".join(TRANSLATIONS.values()))


if __name__ == "__main__":
    raise SystemExit(main())
