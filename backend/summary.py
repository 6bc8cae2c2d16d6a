"""`-t summary`: a one-screen overview of a module: per function and MLIP subgraph, its
interface, ops by type and constants."""

from collections import Counter
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DenseResourceAttr, ModuleOp, TensorType
from xdsl.utils.target import Target

from mrvl_dialect.graph import ConstantOp, CustomOp, YieldOp
from mrvl_dialect.mrvl import SubgraphOp
from mrvl_dialect.mrvl import YieldOp as MrvlYieldOp


def _shape(t: object) -> str:
    if isinstance(t, TensorType):
        dims = "x".join("?" if d < 0 else str(d) for d in t.get_shape())
        return f"{dims or 'scalar'} {t.element_type}"
    return str(t)


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


@dataclass(frozen=True)
class SummaryTarget(Target):
    """Prints each function's inputs and outputs, its ops by type and its constants."""

    name = "summary"

    top: int = 0
    """List only the `top` most frequent op types (0: all)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        for function in module.walk():
            if isinstance(function, func.FuncOp | SubgraphOp):
                self.emit_function(function, output)

    def emit_function(self, function: func.FuncOp | SubgraphOp, output: IO[str]) -> None:
        names = function.arg_attrs.data if isinstance(function, func.FuncOp) and function.arg_attrs else ()
        out_names = function.res_attrs.data if isinstance(function, func.FuncOp) and function.res_attrs else ()
        kind = "function" if isinstance(function, func.FuncOp) else "mlip subgraph"
        print(f"{kind} @{function.sym_name.data}", file=output)
        for kind, types, attrs in (
            ("input ", function.function_type.inputs.data, names),
            ("output", function.function_type.outputs.data, out_names),
        ):
            for i, t in enumerate(types):
                label = attrs[i].data.get("graph.name") if i < len(attrs) else None
                name = label.data if label is not None else f"#{i}"
                print(f"  {kind}  {name:<24} {_shape(t)}", file=output)

        ops: Counter[str] = Counter()
        parameters = constant_bytes = constants = 0
        for op in function.body.walk():
            if isinstance(op, ConstantOp):
                constants += 1
                value = op.value
                tensor = value.get_type() if isinstance(value, DenseResourceAttr) else value.type
                if isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
                    count = tensor.element_count()
                    parameters += count
                    constant_bytes += count * max(tensor.element_type.bitwidth, 8) // 8
            elif isinstance(op, CustomOp):
                ops[f"custom {op.op_type.data}"] += 1
            elif op is not function and not isinstance(op, func.ReturnOp | YieldOp | MrvlYieldOp):
                ops[op.name] += 1
        total = sum(ops.values())
        print(f"  ops      {total} in {len(ops)} kinds", file=output)
        for name, count in ops.most_common(self.top or None):
            print(f"    {count:>6}  {name}", file=output)
        print(
            f"  constants {constants}: {parameters:,} elements, {_bytes(constant_bytes)}",
            file=output,
        )
