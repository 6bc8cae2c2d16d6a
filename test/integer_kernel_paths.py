"""The builds each int8 kernel is checked on, bit for bit against onnxruntime: this machine's
vector units, AVX2 (x86-64-v3), AVX-VNNI without AVX-512, the compiler's baseline, and the
Neoverse N2 under qemu (slow). Parameters (label, flags, compiler, launcher) of
`test_c_backend.assert_integers_as_onnxruntime`."""

import re
from pathlib import Path

import pytest

from test_c_backend import GCC
from test_c_kernels_fast_paths import _runs_avx2
from test_cross_compile import CROSS_CC, QEMU, TARGET_FLAGS


def _runs_avx_vnni() -> bool:
    """Whether this machine runs AVX-VNNI code (vpdpbusd on ymm without AVX-512)."""
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return _runs_avx2() and re.search(r"^flags\s*:.*\bavx_vnni\b", flags, re.M) is not None


INTEGER_KERNEL_PATHS = [
    pytest.param("native", ["-march=native"], GCC, (), id="native"),
    pytest.param("avx2", ["-march=x86-64-v3"], GCC, (), id="avx2",
                 marks=pytest.mark.skipif(not _runs_avx2(), reason="needs an x86-64 machine with AVX2 and FMA")),
    pytest.param("avx_vnni", ["-march=x86-64-v3", "-mavxvnni"], GCC, (), id="avx_vnni",
                 marks=pytest.mark.skipif(not _runs_avx_vnni(), reason="needs an x86-64 machine with AVX-VNNI")),
    pytest.param("portable", ["-march=x86-64"] if _runs_avx2() else [], GCC, (), id="portable"),
    pytest.param("arm", [*TARGET_FLAGS, "-static"], CROSS_CC, [QEMU] if QEMU else None, id="neoverse_n2",
                 marks=[pytest.mark.slow,
                        pytest.mark.skipif(CROSS_CC is None, reason="needs aarch64-linux-gnu-gcc")]),
]
