"""How long the fuzzing harness searches, and what its summary line counts.

`make test` runs a fixed corpus: seeded mutations (`corpus_seeds`) and hypothesis with
`derandomize=True`, so every run tries the same inputs. `make fuzz` sets `MRVL_FUZZ_SCALE`
(how many times more inputs) and a seed (`--hypothesis-seed`, and `MRVL_FUZZ_SEED` for the
mutation corpus), so that a long search tries new inputs each time it is given a new seed.
"""

import os

from hypothesis import HealthCheck, settings

from fuzz.contract import OUTCOMES, SECONDS, SLOWEST

SCALE = int(os.environ.get("MRVL_FUZZ_SCALE", "1"))
SEED = int(os.environ.get("MRVL_FUZZ_SEED", "0"))
"""Where the long search's mutation corpus starts; the fixed corpus starts at 0."""


def fuzz_settings(examples: int) -> settings:
    """Hypothesis settings for `examples` inputs (times SCALE), reproducible in `make test`."""
    return settings(
        max_examples=examples * SCALE,
        derandomize=SCALE == 1,
        deadline=None,  # each run has its own time limit (tool_server.TIMEOUT_S)
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True,
    )


def corpus_seeds(count: int) -> list[int]:
    """The seeds of a seeded mutation corpus of `count` inputs (times SCALE)."""
    return list(range(SEED, SEED + count * SCALE))


def counts() -> list[dict]:
    """This process's counts, to hand from a pytest-xdist worker to the controller."""
    return [dict(OUTCOMES), dict(SECONDS), dict(SLOWEST)]


def add_counts(outcomes: dict, seconds: dict, slowest: dict) -> None:
    OUTCOMES.update(outcomes)
    SECONDS.update(seconds)
    for target, longest in slowest.items():
        SLOWEST[target] = max(SLOWEST.get(target, 0.0), longest)


def summary() -> list[str]:
    """The lines the session ends with: inputs per target and outcome, and their time."""
    if not OUTCOMES:
        return []
    lines = [f"fuzz: {sum(OUTCOMES.values())} inputs, {sum(SECONDS.values()):.0f} s in the tools "
             f"(scale {SCALE}, mutation seeds from {SEED})"]
    for key in sorted(OUTCOMES):
        target = key.split(":")[0]
        lines.append(f"{key:30} {OUTCOMES[key]:6}   {target}: {SECONDS[target]:6.1f} s, "
                     f"slowest run {SLOWEST[target]:.2f} s")
    return lines
