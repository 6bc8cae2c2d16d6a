"""Wall time per compile stage, reported like mlir-opt's `-mlir-timing`.

    ===-------------------------------------------------------------------------===
                             ... Execution time report ...
    ===-------------------------------------------------------------------------===
      Total Execution Time: 0.4121 seconds

      ----Wall Time----  ----Name----
        0.0612 ( 14.9%)  import-onnx
        0.1043 ( 25.3%)  mrvl-pipeline
        0.0102 (  2.5%)    cleanup-graph
        ...
        0.4121 (100.0%)  Total

A stage may hold stages (the pipeline holds its passes); they are listed indented below it.
"""

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_RULE = "===" + "-" * 73 + "==="


@dataclass
class Timing:
    """Stages in the order they started, each with its nesting depth and seconds."""

    stages: list[tuple[str, int, float]] = field(default_factory=list)
    clock: Callable[[], float] = time.perf_counter
    """Wall time; `time.process_time` gives this process's CPU time (steadier on a busy machine)."""
    _depth: int = 0
    _start: float = field(init=False)

    def __post_init__(self) -> None:
        self._start = self.clock()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        index = len(self.stages)
        self.stages.append((name, self._depth, 0.0))
        self._depth += 1
        begin = self.clock()
        try:
            yield
        finally:
            self._depth -= 1
            self.stages[index] = (name, self._depth, self.clock() - begin)

    @property
    def total(self) -> float:
        """Seconds since the timing began."""
        return self.clock() - self._start

    def seconds(self, name: str) -> float:
        return sum(seconds for stage, _, seconds in self.stages if stage == name)

    def report(self) -> str:
        total = self.total
        lines = [
            _RULE,
            "... Execution time report ...".center(len(_RULE)).rstrip(),
            _RULE,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, depth, seconds in self.stages:
            share = 100 * seconds / total if total else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {'  ' * depth}{name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"
