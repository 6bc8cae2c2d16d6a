"""benchmarks/n2_mca.py: the llvm-mca table of the host kernels' inner loops on a Neoverse N2
(and with --x86 on an AVX2 core). The loop it keeps of a marked region, on made-up listings of
both; and, where the compiler and Debian's llvm-mca-19 are installed (`make cross-tools`), the
table's line of one kernel, parsed."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import n2_mca  # noqa: E402

LISTING = """\
\t// LLVM-MCA-BEGIN gemm_micro_2x8 macs=16
\tmovi\tv0.4s, 0
.L3:
\tldr\ts2, [x1], 4
.L4:
\tldp\tq4, q5, [x2]
\tfmla\tv0.4s, v4.4s, v2.s[0]
\tfmla\tv1.4s, v5.4s, v2.s[0]
\tcmp\tx3, x1
\tbne\t.L4
\tsubs\tx4, x4, 1
\tbne\t.L3
\t// LLVM-MCA-END gemm_micro_2x8
\t// LLVM-MCA-BEGIN pool_rows_1x4 macs=4
\tfmax\tv0.4s, v0.4s, v1.4s
\t// LLVM-MCA-END pool_rows_1x4
"""


def test_marked_loop_is_the_innermost() -> None:
    """Of a region, the innermost loop from its label to the branch back (not the outer one),
    its name, shape and MACs as marked; a region without a loop is left out."""
    [region] = n2_mca.marked_regions(LISTING)
    assert (region.name, region.macs) == ("gemm_micro_2x8", 16)
    assert region.body == ["ldp\tq4, q5, [x2]", "fmla\tv0.4s, v4.4s, v2.s[0]", "fmla\tv1.4s, v5.4s, v2.s[0]",
                           "cmp\tx3, x1", "bne\t.L4"]
    assert n2_mca.N2.fp32_lanes(region.body) == 8


X86_LISTING = """\
\t# LLVM-MCA-BEGIN conv_direct_2x16 macs=32
\tvxorps\t%xmm0, %xmm0, %xmm0
.L7:
\tvbroadcastss\t(%rdx), %ymm2
\tvfmadd231ps\t%ymm2, %ymm1, %ymm0
\tvfmadd231ps\t(%rax), %ymm2, %ymm3
\tvfmadd231ss\t%xmm2, %xmm1, %xmm4
\tvmaxps\t%xmm2, %xmm1, %xmm5
\tcmpq\t%rdi, %rsi
\tjne\t.L7
\tvmovups\t%ymm0, (%rcx)
\t# LLVM-MCA-END conv_direct_2x16
"""


def test_x86_loop_and_its_lanes() -> None:
    """On x86 assembly, the loop up to its conditional jump back; a 256-bit multiply-add counts
    8 fp32 operations (its operand in memory or not), a 128-bit max 4, a scalar one 1."""
    [region] = n2_mca.marked_regions(X86_LISTING, n2_mca.AVX2)
    assert (region.name, region.macs) == ("conv_direct_2x16", 32)
    assert region.body[0] == "vbroadcastss\t(%rdx), %ymm2" and region.body[-1] == "jne\t.L7"
    assert n2_mca.AVX2.fp32_lanes(region.body) == 8 + 8 + 1 + 4


@pytest.mark.parametrize("x86", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["n2", "x86"])  # suite time
def test_table_line_of_the_direct_conv(x86: bool) -> None:
    """The direct conv's loops each get a line: MACs, cycles and MACs per cycle above 0, and
    the share of the target's peak that those make."""
    target = n2_mca.AVX2 if x86 else n2_mca.N2
    if shutil.which(n2_mca.default_compiler(x86)) is None or shutil.which("llvm-mca-19") is None:
        pytest.skip(f"needs {n2_mca.default_compiler(x86)} and llvm-mca-19 (make cross-tools)")
    done = subprocess.run([sys.executable, str(BENCHMARKS / "n2_mca.py"), "--kernels", "conv_direct",
                           *(["--x86"] if x86 else [])], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("conv_direct_")]
    assert lines, done.stdout
    for line in lines:
        m = re.fullmatch(r"conv_direct_\d+x\d+ +(\d+) +([\d.]+) +([\d.]+)  (\d+)% of peak", line)
        assert m, line
        macs, cycles, rate, percent = int(m[1]), float(m[2]), float(m[3]), int(m[4])
        assert macs > 0 and cycles > 0 and rate > 0
        assert rate == pytest.approx(macs / cycles, abs=0.01)
        assert percent == round(100 * rate / target.peak)
