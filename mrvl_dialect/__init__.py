"""The compiler's dialects: `graph` (ONNX as imported), `mrvl` (accelerator layers), `cpu` (host)."""

from collections.abc import Callable

from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Lazy factories of the project's dialects, by name, for registering in a Context."""

    def graph() -> Dialect:
        from mrvl_dialect.graph import Graph

        return Graph

    def mrvl() -> Dialect:
        from mrvl_dialect.mrvl import MRVL

        return MRVL

    def cpu() -> Dialect:
        from mrvl_dialect.cpu import CPU

        return CPU

    return {"graph": graph, "mrvl": mrvl, "cpu": cpu}
