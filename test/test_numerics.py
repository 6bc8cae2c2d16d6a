"""The one comparison rule (mrvl/numerics.py): it passes float32 reordering noise near zero,
and it still fails a wrong kernel, down to one perturbed element."""

import ml_dtypes
import numpy as np
import pytest

from numeric_asserts import assert_close
from mrvl.numerics import FLOAT16, FLOAT32, FP16_LAYERS, compare, default_precision


def reordered_sums(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A float32 matrix product summed in two orders: what two correct kernels give."""
    a = rng.standard_normal((64, 512)).astype(np.float32)
    b = rng.standard_normal((512, 48)).astype(np.float32)
    forward = np.zeros((64, 48), np.float32)
    backward = np.zeros((64, 48), np.float32)
    for k in range(512):
        forward += np.outer(a[:, k], b[k, :])
        backward += np.outer(a[:, 511 - k], b[511 - k, :])
    return forward, backward


def test_reordered_float32_sums_pass_where_per_element_rtol_fails():
    forward, backward = reordered_sums(np.random.default_rng(0))
    assert compare(forward, backward).ok
    # Elements near zero differ by many of their own ulps: a per-element check flags them.
    assert not np.allclose(forward, backward, rtol=1e-6, atol=0)


def test_one_perturbed_element_fails():
    forward, backward = reordered_sums(np.random.default_rng(1))
    broken = forward.copy()
    broken[3, 5] += 1e-3 * np.abs(backward).max()
    result = compare(broken, backward)
    assert not result.ok and result.relative > 5e-4
    with pytest.raises(AssertionError, match=r"out: .* worst at \(3, 5\)"):
        assert_close(broken, backward, what="out")


def test_wrong_kernels_fail():
    want = np.linspace(-3, 3, 100, dtype=np.float32).reshape(10, 10)
    assert not compare(np.maximum(want, 0), want).ok  # a missing negative half
    assert not compare(want.T, want).ok  # a transposed layout
    assert not compare(want.reshape(100), want).ok  # another shape
    assert not compare(want * np.float32(1.001), want).ok  # 0.1% off everywhere


def test_nan_and_infinity_places():
    want = np.array([1.0, np.nan, np.inf, -np.inf], np.float32)
    assert compare(want.copy(), want).ok
    assert not compare(np.array([1.0, 0.0, np.inf, -np.inf], np.float32), want).ok
    assert not compare(np.array([1.0, np.nan, -np.inf, -np.inf], np.float32), want).ok
    assert not compare(np.array([np.inf, np.nan, np.inf, -np.inf], np.float32), want).ok


def test_integers_and_bools_are_exact():
    want = np.arange(10, dtype=np.int64)
    assert compare(want.copy(), want).ok
    off = want.copy()
    off[4] += 1
    assert "1 of 10 elements differ" in compare(off, want).describe()
    assert not compare(want.astype(np.float32), want).ok
    assert not compare(np.array([True, False]), np.array([True, True])).ok


def test_precisions():
    want = np.array([100.0, 1.0], np.float64)
    assert compare(want + 1e-8, want).ok
    assert not compare(want + 1e-5, want).ok  # float64 is held to float64 rounding
    fp16 = np.array([100.0, 1.0], np.float32)
    assert compare(fp16 + np.float32(2.5), fp16, FP16_LAYERS).ok
    assert not compare(fp16 + np.float32(3.5), fp16, FP16_LAYERS).ok


def test_all_zero_reference_needs_zeros():
    want = np.zeros(4, np.float32)
    assert compare(np.zeros(4, np.float32), want).ok
    assert not compare(np.array([0, 0, 1e-6, 0], np.float32), want).ok


def test_narrow_floats_are_held_to_their_own_rounding():
    want = np.array([1.0, 0.5], np.float16)
    assert default_precision(want, want) == FLOAT16
    assert default_precision(np.zeros(2, np.float32), np.zeros(2, np.float64)) == FLOAT32
    assert compare(np.array([1.0, 0.5078125], np.float16), want).ok  # one float16 ulp at 0.5
    assert not compare(np.array([1.0, 0.53], np.float16), want).ok
    bf16 = np.array([1.0, 2.0], ml_dtypes.bfloat16)
    assert compare(np.array([1.0, 2.015625], ml_dtypes.bfloat16), bf16).ok
    assert not compare(np.array([1.0, 2.5], ml_dtypes.bfloat16), bf16).ok


def test_a_reference_states_its_own_accuracy():
    want = np.array([0.1511, 0.3572], np.float32)  # written to 4 decimals
    got = np.array([0.15105554, 0.35722223], np.float32)
    assert not compare(got, want).ok
    assert compare(got, want, tolerance=1e-3).ok
