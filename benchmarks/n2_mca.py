"""fp32 multiply-adds per cycle of the host kernels' inner loops on an Arm Neoverse N2, from
llvm-mca's model of the core, without the chip; with `--x86`, on an AVX2 core instead.

    python benchmarks/n2_mca.py [--x86 [--mcpu CPU]] [--kernels PREFIX ...] [--cc CC] [--mca LLVM_MCA]
        [--keep DIR]

The bundle's kernel sources (`backend/c_runtime/`, the target's `mrvl_kernels_tiles.h`) are
compiled as a bundle's Makefile compiles them for OCTEON 10 (`-std=c99 -O3 -ffp-contract=fast
-mcpu=neoverse-n2`), with `-DMRVL_MCA` and `-S`: MRVL_MCA makes the hot kernels mark their
inner loops with `LLVM-MCA-BEGIN name` / `LLVM-MCA-END` assembly comments
(mrvl_kernels_internal.h's MRVL_MCA_BEGIN), each naming the kernel, its tile's shape and the
fp32 multiply-adds of one pass counted from that shape (`macs=`). A one-line driver takes the
address of every hot kernel, so that each is compiled whole. Of each marked region the script
keeps the steady-state loop, the innermost loop inside the markers from its label to its
backward branch (the loop's own counter and branch included), and runs
`llvm-mca-19 -mtriple=aarch64 -mcpu=neoverse-n2` on it: cycles per iteration are llvm-mca's
total cycles over its iterations.

One line per marked loop (of a loop inlined into several callers, the first copy): the
kernel and its shape (rows x columns of the register tile; for the depthwise convs the
kernel's height x width, for the channel-blocked one its taps x stride), fp32 MACs per
iteration, cycles per iteration, MACs per cycle and its share of N2's peak of 8 (two 128-bit
FP pipes of 4 lanes). MACs per iteration are the marked count, or, where gcc kept a loop
inside the marked pass (a depthwise conv's taps), the multiply-adds of that loop's body, as
the line notes. A pool's loop counts its max (or add) operations, against the same 8.

`--x86` runs the same regions as an AVX2 machine's build compiles them (x86_64-linux-gnu-gcc,
or this machine's gcc where it is x86-64, with `-march=x86-64-v3`: 256-bit vectors of 8 floats
in 16 registers) through `llvm-mca-19 -mtriple=x86_64 -mcpu=haswell` (`--mcpu`: another AVX2 core's
model, e.g. znver3 or alderlake), against a peak of 16 fp32 MACs a cycle (two 256-bit FMA
pipes of 8 lanes, as all of those cores have).

Where this machine is itself aarch64 (`uname -m`), `--native` also runs
benchmarks/host_c_vs_onnxruntime.py here, the chip's own timings beside llvm-mca's figures.
"""

import argparse
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from checkouts import ROOT, machine

from mrvl.backend.bundle import RUNTIME_DIR, RUNTIME_FILES, TARGET_ARCH_FLAGS
from mrvl.target.host_kernels import TILES_HEADER, tiles_header

CFLAGS = ["-std=c99", "-O3", "-ffp-contract=fast", "-DMRVL_HOST_THREADS=1", "-DMRVL_MCA"]
MCA_FLAGS = ["-iterations=1000", "-instruction-info=0", "-resource-pressure=0"]
HOT_KERNELS = ("mrvl_conv_f32", "mrvl_flat_conv_f32", "mrvl_pointwise_conv_f32", "mrvl_depthwise_conv_f32",
               "mrvl_depthwise_blocked_conv_f32", "mrvl_winograd_conv_f32", "mrvl_gemm_f32", "mrvl_matmul_f32",
               "mrvl_pool_f32")
"""The kernels whose inner loops are marked (directly or through the helpers they inline)."""
DRIVER = "n2_mca_kernels.c"



@dataclass(frozen=True)
class Target:
    """A core the table is for: how the kernels are compiled for it, llvm-mca's model of it, its
    peak of fp32 MACs a cycle, and how its assembly spells a branch and an fp32 operation."""

    arch_flags: str
    triple: str
    peak: int
    branch: re.Pattern
    fp_op: re.Pattern
    lanes: dict[str, int]
    """Lanes of an fp32 operation by what its operands name; 1 for none of them, or where
    fp_op matched a `scalar` group."""

    def fp32_lanes(self, body: list[str]) -> int:
        """The fp32 operations of `body`'s multiply-adds (and a pool's max, min and add)."""
        total = 0
        for instruction in body:
            if m := self.fp_op.match(instruction):
                vector = not m.groupdict().get("scalar")
                total += next((n for mark, n in self.lanes.items() if vector and mark in m["operands"]), 1)
        return total


N2 = Target(TARGET_ARCH_FLAGS, "aarch64", 8,
            re.compile(r"^\s+(?:b\.?(?:eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?|cbn?z\s+\w+,"
                       r"|tbn?z\s+\w+,\s*#?\d+,)\s+(?P<label>\.L\w+)\s*$"),
            re.compile(r"(?:fmla|fmls|fmadd|fmsub|fmax|fmaxnm|fmin|fminnm|fadd)\s+(?P<operands>.*)"),
            {".4s": 4, ".2s": 2})
"""Neoverse N2: two FP/SIMD pipes, each a 4-lane fp32 multiply-add per cycle."""
AVX2 = Target("-march=x86-64-v3", "x86_64", 16, re.compile(r"^\s+j[a-z]+\s+(?P<label>\.L\w+)\s*$"),
              re.compile(r"v(?:fn?m(?:add|sub)\d{3}|max|min|add)(?:ps|(?P<scalar>ss))\s+(?P<operands>.*)"),
              {"%ymm": 8, "%xmm": 4})
"""An AVX2 core: two FMA pipes, each an 8-lane fp32 multiply-add per cycle."""

BEGIN = re.compile(r"LLVM-MCA-BEGIN (?P<name>\w+?)_(?P<rows>\d+)x(?P<cols>\d+) macs=(?P<macs>\d+)")
END = re.compile(r"LLVM-MCA-END (?P<name>\w+)")
LABEL = re.compile(r"^(?P<label>[.\w]+):")


@dataclass
class Region:
    """A marked loop: its name and shape, the MACs of one pass and its instructions."""

    kernel: str
    rows: int
    cols: int
    macs: int
    body: list[str]

    @property
    def name(self) -> str:
        return f"{self.kernel}_{self.rows}x{self.cols}"


def is_instruction(line: str) -> bool:
    text = line.strip()
    return bool(text) and not text.startswith((".", "//", "#")) and not LABEL.match(text)


def innermost_loop(lines: list[str], target: Target) -> list[str] | None:
    """The instructions of the innermost loop in `lines` (a label, then a branch back to it),
    of several the one with the most fp32 operations; None without a loop."""
    labels = {m["label"]: i for i, line in enumerate(lines) if (m := LABEL.match(line))}
    loops = [(labels[m["label"]], i) for i, line in enumerate(lines)
             if (m := target.branch.match(line)) and labels.get(m["label"], len(lines)) < i]
    inner = [[line.strip() for line in lines[a:b + 1] if is_instruction(line)]
             for a, b in loops if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in loops)]
    return max(inner, key=target.fp32_lanes, default=None)


def marked_regions(assembly: str, target: Target = N2) -> list[Region]:
    """Each marked loop of `assembly`, once per name (the first copy)."""
    lines = assembly.splitlines()
    regions: dict[str, Region] = {}
    open_regions: dict[str, tuple[int, re.Match]] = {}
    for i, line in enumerate(lines):
        if m := BEGIN.search(line):
            open_regions[f"{m['name']}_{m['rows']}x{m['cols']}"] = (i, m)
        elif (m := END.search(line)) and m["name"] in open_regions:
            start, begin = open_regions.pop(m["name"])
            body = innermost_loop(lines[start + 1:i], target)
            if body and m["name"] not in regions:
                regions[m["name"]] = Region(begin["name"], int(begin["rows"]), int(begin["cols"]), int(begin["macs"]),
                                            body)
    return list(regions.values())


def compile_kernels(cc: str, target: Target, directory: Path) -> str:
    """The assembly of the bundle's kernels, compiled for the target with their loops marked."""
    for file_name in RUNTIME_FILES:
        text = tiles_header() if file_name == TILES_HEADER else (RUNTIME_DIR / file_name).read_text()
        (directory / file_name).write_text(text)
    addresses = ", ".join(f"(void *){kernel}" for kernel in HOT_KERNELS)
    (directory / DRIVER).write_text(f'#include "mrvl_kernels.c"\nvoid *const n2_mca_kernels[] = {{{addresses}}};\n')
    done = subprocess.run([cc, *CFLAGS, target.arch_flags, "-S", DRIVER, "-o", "kernels.s"], cwd=directory,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"error: {cc} failed on the kernels: {done.stderr.strip()}")
    return (directory / "kernels.s").read_text()


def cycles_per_iteration(mca: str, mca_flags: list[str], region: Region, directory: Path) -> float:
    """llvm-mca's cycles per iteration of the region's loop."""
    source = directory / f"{region.name}.s"
    source.write_text("\n".join([f"# LLVM-MCA-BEGIN {region.name}", *region.body, "# LLVM-MCA-END", ""]))
    done = subprocess.run([mca, *mca_flags, *MCA_FLAGS, str(source)], capture_output=True, text=True)
    iterations = re.search(r"^Iterations:\s+(\d+)", done.stdout, re.M)
    cycles = re.search(r"^Total Cycles:\s+(\d+)", done.stdout, re.M)
    if done.returncode != 0 or not iterations or not cycles:
        raise SystemExit(f"error: {mca} failed on {region.name}: {done.stderr.strip()}")
    return int(cycles[1]) / int(iterations[1])


def tool_version(tool: str) -> str:
    done = subprocess.run([tool, "--version"], capture_output=True, text=True)
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    return next((line for line in lines if re.search(r"version|\d+\.\d+", line)), tool)


def default_compiler(x86: bool) -> str:
    """aarch64-linux-gnu-gcc (x86_64-linux-gnu-gcc for --x86), or this machine's gcc where
    it is itself of that architecture."""
    arch = "x86_64" if x86 else "aarch64"
    if shutil.which(f"{arch}-linux-gnu-gcc"):
        return f"{arch}-linux-gnu-gcc"
    return "gcc" if platform.machine() == arch else f"{arch}-linux-gnu-gcc"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", nargs="+", default=[], metavar="PREFIX",
                        help="only the loops whose names start so (default: all)")
    parser.add_argument("--x86", action="store_true", help="an AVX2 core (x86-64-v3) instead of the N2")
    parser.add_argument("--mcpu", default="haswell", help="with --x86: llvm-mca's model of the core (default haswell)")
    parser.add_argument("--cc", help="the C compiler (default: aarch64-linux-gnu-gcc, or x86_64's for --x86)")
    parser.add_argument("--mca", default="llvm-mca-19", help="llvm-mca (Debian's llvm-19)")
    parser.add_argument("--keep", type=Path, help="write the assembly and each loop's llvm-mca input here")
    parser.add_argument("--native", action="store_true",
                        help="on an aarch64 machine, also run benchmarks/host_c_vs_onnxruntime.py")
    args = parser.parse_args(argv)
    target = AVX2 if args.x86 else N2
    mca_flags = [f"-mtriple={target.triple}", f"-mcpu={args.mcpu if args.x86 else 'neoverse-n2'}"]
    args.cc = args.cc or default_compiler(args.x86)
    for tool in (args.cc, args.mca):
        if shutil.which(tool) is None:
            print(f"error: {tool} not found (make cross-tools installs it)", file=sys.stderr)
            return 1
    with tempfile.TemporaryDirectory(prefix="n2_mca_") as scratch:
        directory = args.keep or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        regions = [region for region in marked_regions(compile_kernels(args.cc, target, directory), target)
                   if not args.kernels or region.name.startswith(tuple(args.kernels))]
        if not regions:
            print(f"error: no marked loop matches {' '.join(args.kernels) or 'any name'}", file=sys.stderr)
            return 1
        print(f"# {tool_version(args.cc)} {' '.join(CFLAGS)} {target.arch_flags}; {tool_version(args.mca)} "
              f"{' '.join(mca_flags)}")
        print(f"# built on: {machine()}; peak {target.peak} fp32 MACs/cycle")
        print(f"{'kernel':<28} {'MACs/iter':>9} {'cycles/iter':>11} {'MACs/cycle':>10}  of peak")
        for region in sorted(regions, key=lambda r: r.name):
            cycles = cycles_per_iteration(args.mca, mca_flags, region, directory)
            macs, note = region.macs, ""
            if target.fp32_lanes(region.body) != macs:
                macs, note = target.fp32_lanes(region.body), f"  (a loop inside the {region.macs}-MAC pass)"
            rate = macs / cycles
            print(f"{region.name:<28} {macs:>9} {cycles:>11.2f} {rate:>10.2f}  "
                  f"{100 * rate / target.peak:.0f}% of peak{note}")
    if args.native:
        if platform.machine() != "aarch64":
            print("note: not an aarch64 machine; --native runs nothing", file=sys.stderr)
        else:
            return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "host_c_vs_onnxruntime.py"),
                                   "--models", "all"]).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
