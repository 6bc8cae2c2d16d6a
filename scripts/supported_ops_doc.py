"""Generate `docs/supported-ops.md` from the rule registry, the fusion patterns and the
conformance counts (`docs/conformance-results.json`, written by test/conformance/update.py).

    python scripts/supported_ops_doc.py           # rewrite the page
    python scripts/supported_ops_doc.py --check   # exit 1 with a diff when it is stale
"""

import argparse
import json
from pathlib import Path

from mrvl_dialect.files import update_generated
from mrvl_dialect.graph_ops_gen import ONNX_OPS
from mrvl.passes.lower_to_cpu import host_kernel_op_types
from mrvl.passes.legalize_mrvl import LEGALIZATIONS
from mrvl.passes.mlip_patterns import FUSED_ONLY, LAYER_KINDS, PATTERNS
from mrvl.passes.mlip_rules import RULES

DOCS = Path(__file__).resolve().parent.parent / "docs"
OUTPUT = DOCS / "supported-ops.md"
CONFORMANCE = DOCS / "conformance-results.json"


def conformance_cell(counts: dict | None, path: str) -> str:
    """`passed/cases` of an operator's node test cases on `path`, or a dash if none ran there."""
    if not counts or f"{path}_cases" not in counts:
        return "–"
    return f"{counts[f'{path}_passed']}/{counts[f'{path}_cases']}"


def render() -> str:
    host = host_kernel_op_types()
    conformance = json.loads(CONFORMANCE.read_text()) if CONFORMANCE.is_file() else {"ops": {}, "totals": {}}
    lines = [
        "# Supported operators",
        "",
        "Where each ONNX operator runs. Generated from `passes/mlip_rules.py` (the rules),",
        "`passes/fuse_mrvl.py` (the fusion patterns) and `passes/lower_to_cpu.py` (the host",
        "kernels); do not edit: run `make regenerate`.",
        "",
        "An operator runs on the MLIP accelerator when it anchors a layer whose rules it meets,",
        "or is fused into one; otherwise on the Arm host, if there is a host kernel for it.",
        "`mrvl-opt model.onnx -p place-ops -t placement-report` says, per node, where it runs",
        "and which rule kept it on the host. Some operators MLIP has no layer for are legalised",
        "(`passes/legalize_mrvl.py`): rewritten into layers it has, in forms that MLIP's fp16",
        "arithmetic keeps within 2 fp16 ulps of the operator plus the rounding of its constants",
        "(none subtracts nearly equal layer outputs; `test/test_legalize_fp16.py` checks each).",
        "",
        "## MLIP layers and their patterns",
        "",
        "| layer | ONNX chain (optional members in brackets) |",
        "| --- | --- |",
    ]
    for pattern in PATTERNS:
        chain = " → ".join(
            ("[" if m.optional else "") + " \\| ".join(m.op_types) + ("]" if m.optional else "")
            for m in pattern.chain
        )
        lines.append(f"| `mrvl.{pattern.name}` | {chain} |")
    lines += ["", "## Rules", "", "| rule | applies to | requirement |", "| --- | --- | --- |"]
    for rule in RULES:
        lines.append(f"| `{rule.id}` | {', '.join(rule.op_types)} | {rule.text} |")
    totals = conformance["totals"]
    lines += [
        "",
        "## Operators",
        "",
        "The last two columns count the operator's cases of the ONNX backend node test suite",
        f"(onnx {conformance.get('onnx', '?')}, `_expanded` variants included) that pass, of those run:",
        "all on the host, and with default partitioning through the MLIP simulator (fp32), for the",
        "operators that anchor an MLIP layer; there a case passes only if its node went to MLIP.",
        "`make conformance` runs them; `test/conformance/expected_failures.json` says why each",
        f"other case fails. In all: host {totals.get('host_passed', 0)}/{totals.get('host_cases', 0)},"
        f" MLIP {totals.get('mlip_passed', 0)}/{totals.get('mlip_cases', 0)}.",
        "",
        "| ONNX operator | MLIP | host kernel | node tests, host | node tests, MLIP |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op in ONNX_OPS:
        name = op.onnx_op_type()
        if name in LAYER_KINDS:
            ids = ", ".join(f"`{r.id}`" for r in RULES if name in r.op_types)
            mlip = [f"`mrvl.{LAYER_KINDS[name]}` ({ids})"]
        elif name in FUSED_ONLY:
            mlip = [f"fused only: {FUSED_ONLY[name]}"]
        else:
            mlip = []
        mlip += [f"legalised{'' if x.anywhere else ' next to MLIP layers'}: {x.text} (`{x.id}`)" for x in LEGALIZATIONS
                 if any(op.onnx_op_type() == name for op in x.ops)]
        mlip = "; ".join(mlip) or "no"
        counts = conformance["ops"].get(name)
        lines.append(f"| {name} | {mlip} | {'yes' if name in host else 'no'} | {conformance_cell(counts, 'host')} "
                     f"| {conformance_cell(counts, 'mlip')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only report whether the page is stale")
    args = parser.parse_args(argv)
    fresh = update_generated(OUTPUT, render(), args.check)
    return 0 if fresh or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
