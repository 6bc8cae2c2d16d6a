"""How a computed tensor is compared with a reference (onnxruntime, ONNX's reference, numpy).

One rule, used by `mrvl-run --verify` and by every test that checks numbers:

- Shapes must be equal, integer, bool and string tensors exactly equal, and NaN and
  infinities must stand at the same places with the same signs.
- Every finite element may differ by at most `tolerance x scale`, where `scale` is the
  largest magnitude in the reference tensor. The tolerance depends on the precision the
  result was computed in: 1e-4 for float32, 1e-9 for float64, 1e-2 for float16 and
  bfloat16 results, 0.25 for the 8-bit floats (a few of their ulps), 3% for tensors that
  passed through MLIP's fp16 layers. The dequantized output of a QDQ model may differ by
  one quantization step more (`quantization_step`).

Why relative to the tensor's scale and not per element: two correct float32 kernels sum
their products in different orders, so each element's error is a small multiple of the
rounding of the *terms* that made it, which are about as large as the tensor's largest
values, not as large as that element. An output element near zero that comes out of a
large cancelling sum can differ by many of its own ulps between onnxruntime releases,
and `rtol` with a small `atol` fails on it while nothing is wrong. The float32 bound,
1e-4 of scale, is about 800 float32 ulps of the largest value: above what reordered
sums of deep networks reach (a few 1e-6 measured), far below what a wrong kernel gives
(a wrong tap, index or activation moves elements by a large part of the scale); a
perturbed element fails it (test/test_numerics.py shows this).
"""

import math
from dataclasses import dataclass

import numpy as np

FLOAT8 = "float8"
FLOAT16 = "float16"
FLOAT32 = "float32"
FLOAT64 = "float64"
FP16_LAYERS = "fp16"
TOLERANCES = {FLOAT8: 0.25, FLOAT16: 1e-2, FLOAT32: 1e-4, FLOAT64: 1e-9, FP16_LAYERS: 0.03}
"""Largest allowed difference, as a fraction of the reference tensor's largest magnitude."""


@dataclass(frozen=True)
class Comparison:
    """How far `got` is from `want`: `max_abs` difference, the reference's `scale`, the
    `tolerance` (a fraction of the scale), and `ok`; `problem` says why when not ok."""

    max_abs: float
    scale: float
    tolerance: float
    ok: bool
    problem: str = ""

    @property
    def relative(self) -> float:
        """The difference as a fraction of the scale (what `tolerance` bounds)."""
        return self.max_abs / self.scale if self.scale else (0.0 if self.max_abs == 0 else math.inf)

    def describe(self) -> str:
        if self.problem:
            return self.problem
        return (f"max |difference| {self.max_abs:.3g} = {self.relative:.3g} of scale {self.scale:.3g} "
                f"(allowed {self.tolerance:g})")


def is_float(dtype: np.dtype) -> bool:
    """numpy's floats and ml_dtypes' (bfloat16, float8s), which numpy sees as kind 'V'."""
    return dtype.kind in "fc" or dtype.name.startswith(("bfloat", "float"))


def default_precision(got: np.ndarray, want: np.ndarray) -> str:
    """The rounding of the narrower of the two float types: a float32 result against a
    float64 reference is held to float32 rounding."""
    size = min(got.dtype.itemsize // (2 if got.dtype.kind == "c" else 1),
               want.dtype.itemsize // (2 if want.dtype.kind == "c" else 1))
    return {1: FLOAT8, 2: FLOAT16, 4: FLOAT32}.get(size, FLOAT64)


def compare(got: np.ndarray, want: np.ndarray, precision: str | None = None,
            tolerance: float | None = None, quantization_step: float | None = None) -> Comparison:
    """Compare `got` with the reference `want` by the module's rule; `precision` is one of
    `TOLERANCES` (default: by the dtypes, `default_precision`). A reference known to be
    less precise than that (ONNX's node test cases state their own) passes its own
    `tolerance`, which then bounds the difference as a fraction of the scale too.

    `quantization_step`: the tensor is the dequantized output of a QDQ model whose last
    QuantizeLinear has this scale. Two correct runs may then round one value to neighbouring
    integers (onnxruntime's int8 kernels accumulate exactly, a float kernel does not, and a
    sum that falls near a half step goes either way), so one step more is allowed."""
    got, want = np.asarray(got), np.asarray(want)
    if tolerance is None:
        tolerance = TOLERANCES[precision or default_precision(got, want)]
    if quantization_step is not None and want.size:
        scale = float(np.abs(np.asarray(want, np.float64)[np.isfinite(want)]).max(initial=0.0))
        if scale:
            tolerance += quantization_step / scale
    if got.shape != want.shape:
        return Comparison(math.inf, math.nan, tolerance, False, f"shape {list(got.shape)}, expected {list(want.shape)}")
    floats = is_float(want.dtype)
    if floats != is_float(got.dtype):
        return Comparison(math.inf, math.nan, tolerance, False, f"dtype {got.dtype}, expected {want.dtype}")
    if not floats:
        wrong = int(want.size - np.count_nonzero(got == want))
        problem = f"{wrong} of {want.size} elements differ (compared exactly)" if wrong else ""
        return Comparison(math.inf if wrong else 0.0, 0.0, 0.0, not wrong, problem)
    g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
    w = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    finite = np.isfinite(w)
    if not np.array_equal(np.isnan(g), np.isnan(w)):
        return Comparison(math.nan, math.nan, tolerance, False, "NaN at other places than the reference's")
    infinite = ~finite & ~np.isnan(w)
    if not np.array_equal(g[infinite], w[infinite]) or not np.isfinite(g[finite]).all():
        return Comparison(math.inf, math.nan, tolerance, False, "infinities at other places than the reference's")
    scale = float(np.abs(w[finite]).max()) if finite.any() else 0.0
    max_abs = float(np.abs(g[finite] - w[finite]).max()) if finite.any() else 0.0
    return Comparison(max_abs, scale, tolerance, max_abs <= tolerance * scale)
