"""Passes from the `graph` dialect to `mrvl` and `cpu`, registered in `mrvl-opt`."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Lazy factories of the project's passes, by pass name."""
    return {}
