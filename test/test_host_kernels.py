"""mrvl_dialect/host_kernels.py reads the kernels' tile constants from mrvl_kernels.c: checked
against what the C preprocessor makes of the same macros."""

import itertools
import shutil
import subprocess
from pathlib import Path

import pytest

from mrvl_dialect import host_kernels
from mrvl_dialect.host_kernels import gemm_pack_floats, kernel_macro

RUNTIME = Path(host_kernels.__file__).resolve().parents[1] / "backend" / "c_runtime"
GCC = shutil.which("gcc")
CONSTANTS = ("GEMM_NC", "GEMM_KC", "GEMM_MC", "GEMM_DOT_ROWS", "CONV_PANEL", "CONV_CHANNEL_ALIGN", "DEPTHWISE_TILE")
SIZES = (1, 7, 96, 97, 300)


@pytest.mark.skipif(GCC is None, reason="needs gcc")
def test_macros_match_the_c_preprocessor(tmp_path: Path) -> None:
    products = list(itertools.product(SIZES, repeat=3))
    lines = [f'printf("%lld\\n", (long long)MRVL_{name});' for name in CONSTANTS]
    lines += [f'printf("%lld\\n", (long long)MRVL_GEMM_PACK_FLOATS({m}, {n}, {k}));' for m, n, k in products]
    (tmp_path / "main.c").write_text('#include <stdio.h>\n#include "mrvl_kernels.c"\nint main(void)\n{\n    '
                                     + "\n    ".join(lines) + "\n    return 0;\n}\n")
    subprocess.run([GCC, "-std=c99", "-O0", "-w", f"-I{RUNTIME}", "main.c", "-o", "main", "-lm"], cwd=tmp_path,
                   check=True)
    values = [int(v) for v in subprocess.run([str(tmp_path / "main")], capture_output=True, text=True,
                                             check=True).stdout.split()]
    constants, packs = values[:len(CONSTANTS)], values[len(CONSTANTS):]
    for name, value in zip(CONSTANTS, constants):
        if name == "DEPTHWISE_TILE":  # this machine's vectors; Python sizes scratch for the widest
            assert kernel_macro(name) >= value
        else:
            assert kernel_macro(name) == value, name
    assert [gemm_pack_floats(m, n, k) for m, n, k in products] == packs


def test_integer_macros_only() -> None:
    with pytest.raises(KeyError, match="MRVL_NO_SUCH_MACRO"):
        kernel_macro("NO_SUCH_MACRO")
    assert kernel_macro("DEPTHWISE_TILE") == 2 * kernel_macro("GEMM_VECTOR_FLOATS") == 32
