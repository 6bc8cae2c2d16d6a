"""The tests' assertion on numbers: `mrvl.numerics.compare`, failing with what and where."""

import numpy as np

from mrvl.numerics import compare, is_float


def assert_close(got: np.ndarray, want: np.ndarray, precision: str | None = None, what: str = "",
                 quantization_step: float | None = None) -> None:
    """`compare`, failing with an AssertionError that names `what` and the worst element."""
    result = compare(got, want, precision, quantization_step=quantization_step)
    if result.ok:
        return
    where = ""
    got_a, want_a = np.asarray(got), np.asarray(want)
    if got_a.shape == want_a.shape and want_a.size and is_float(got_a.dtype) and is_float(want_a.dtype):
        diff = np.abs(np.nan_to_num(got_a.astype(np.float64) - want_a.astype(np.float64), nan=np.inf))
        index = np.unravel_index(int(np.argmax(diff)), diff.shape)
        where = f"; worst at {tuple(int(i) for i in index)}: {got_a[index]!r} vs {want_a[index]!r}"
    raise AssertionError(f"{what + ': ' if what else ''}{result.describe()}{where}")
