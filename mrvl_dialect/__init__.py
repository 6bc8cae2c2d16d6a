"""The compiler's dialects: `graph` (ONNX as imported); `mrvl` and `cpu` follow."""

from collections.abc import Callable

from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Lazy factories of the project's dialects, by name, for registering in a Context."""

    def graph() -> Dialect:
        from mrvl_dialect.graph import Graph

        return Graph

    return {"graph": graph}
