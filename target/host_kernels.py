"""The host C kernels' ABI (`backend/c_runtime/mrvl_kernels*.c`): what they need around a call, for
`plan-host-memory` and the C emitter: their tile constants, which conv kernel runs a
`cpu.conv`, the workspace scratch each kernel needs, and the packed conv and GEMM weight
layouts.

The tile constants are read from the kernels' own `#define`s (`mrvl_kernels_tiles.h`), so the C
header is their one source; the formulas below mirror the C functions named in each docstring.
"""

import ast
import math
import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, f32, f64
from xdsl.ir import Operation

from mrvl_dialect import cpu
from mrvl_dialect.graph_queries import constant_value
from mrvl.target.cost_model import HostTarget

SPATIAL = 3
"""Spatial dims of the conv and pool kernels (depth, height, width)."""
TILES_HEADER = "mrvl_kernels_tiles.h"
"""This package's C header of the kernels' tile sizes, whose `#define`s `kernel_macro` reads
and which the bundle ships beside the kernels."""
NUMERIC_SUFFIXES = {
    f32: "f32", f64: "f64",
    **{IntegerType(w): f"i{w}" for w in (8, 16, 32, 64)},
    **{IntegerType(w, Signedness.UNSIGNED): f"u{w}" for w in (8, 16, 32, 64)},
}
"""Element type -> the suffix of its kernel in the kernel families defined for many types
(mrvl_binary_<suffix>, mrvl_arg_reduce_<suffix>, ...); each family has a subset."""


@cache
def _definitions() -> dict[str, list[str]]:
    """Every object-like `#define NAME value` of the kernels, by name: several values where
    preprocessor branches define a name once per target."""
    text = tiles_header()
    found: dict[str, list[str]] = {}
    for name, value in re.findall(r"^#define (MRVL_\w+)[ \t]+(.+)$", text, re.M):
        found.setdefault(name, []).append(re.sub(r"/\*.*?\*/|//.*", "", value).strip())
    return found


@cache
def tiles_header() -> str:
    """The text of `mrvl_kernels_tiles.h`."""
    return files(__package__).joinpath(TILES_HEADER).read_text()


@cache
def kernel_macro(name: str) -> int:
    """The value of the integer macro `MRVL_<name>`; over targets, the largest (scratch sized
    by it must fit every target)."""
    values = _definitions().get(f"MRVL_{name}")
    if not values:
        raise KeyError(f"mrvl_kernels_tiles.h defines no integer macro MRVL_{name}")
    return max(_evaluate(ast.parse(value, mode="eval").body) for value in values)


def _evaluate(node: ast.expr) -> int:
    """A macro's integer expression: literals, other macros, + - * / and parentheses."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and node.id.startswith("MRVL_"):
        return kernel_macro(node.id.removeprefix("MRVL_"))
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left), _evaluate(node.right)
        operations = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
        if type(node.op) in operations:
            return operations[type(node.op)]
        if isinstance(node.op, ast.Div):
            return a // b
    raise ValueError(f"mrvl_kernels_tiles.h: cannot evaluate the macro expression '{ast.unparse(node)}'")


def gemm_pack_floats(m: int, n: int, k: int, contiguous_a: bool = False, packed_b: bool = False) -> int:
    """MRVL_GEMM_PACK_FLOATS(m, n, k): the packing scratch of an (m, n, k) product, blocks of
    B then of A, each with room for a register tile of any target; A with contiguous rows is
    not packed, nor B packed at compile time (gemm_prepacked's `apack` only)."""
    tile_rows = 8  # the tallest tile MRVL_GEMM_PACK_FLOATS has room for (its + 7), >= every GEMM_MR
    b_part = 0 if packed_b else min(n, kernel_macro("GEMM_NC")) + kernel_macro("GEMM_NR") - 1
    a_part = 0 if contiguous_a else min(m, kernel_macro("GEMM_MC")) + tile_rows - 1
    return min(k, kernel_macro("GEMM_KC")) * (b_part + a_part)


def reads_rows_of_b(op: cpu.GemmOp | cpu.MatmulOp) -> bool:
    """Whether the product is at most GEMM_DOT_ROWS rows of A, each dotted with B's (N, K)
    rows (gemm_dots): a fully connected layer on a few samples, whose B, larger than the
    caches, is then streamed from memory once, where the packed GEMM would wait on a tile's
    few sums. A cpu.gemm must read A untransposed; a cpu.matmul's B must be one matrix."""
    rows = kernel_macro("GEMM_DOT_ROWS")
    if isinstance(op, cpu.GemmOp):
        return not op.trans_a.value.data and cpu.shape_of(op.Y)[0] <= rows
    a, b = cpu.shape_of(op.A), op.weights_shape()
    return len(b) == 2 and math.prod(a[:-1]) <= rows


# --- Convolutions ---------------------------------------------------------------------


def conv_path(op: cpu.ConvOp | cpu.ConvTransposeOp, host: HostTarget) -> str:
    """The conv kernel for `op` on `host`, which `select-host-kernels` records as the op's `kernel`:
    `depthwise` (one input channel per group), `depthwise_blocked` (the same, channel-blocked:
    `depthwise_is_blocked`), `pointwise` (1x1, stride 1, no padding: a matrix product with the
    input as B), `direct` (the implicit matrix product of mrvl_conv_f32, on packed weights),
    `flat` (the same product the other way round, mrvl_flat_conv_f32, on the same packed
    weights), `winograd` (3x3, stride 1, F(2x2, 3x3): mrvl_winograd_conv_f32, on weights
    transformed at compile time) or `transpose`. Of pointwise and winograd (where they apply),
    direct and flat, the one `conv_costs` finds cheapest."""
    if isinstance(op, cpu.ConvTransposeOp):
        return "transpose"
    xs = cpu.shape_of(op.X)
    group = op.group.value.data
    if group > 1 and xs[1] == group:
        return "depthwise_blocked" if depthwise_is_blocked(op) else "depthwise"
    if op.winograd_weights():  # chosen again after plan-host-memory transformed its weights
        return "winograd"
    costs = conv_costs(op, host)
    return min(costs, key=costs.__getitem__)


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def conv_costs(op: cpu.ConvOp, host: HostTarget) -> dict[str, int]:
    """What each kernel that can run `op` costs, in multiply-adds: those it computes,
    dropped ones included (tiles and channel blocks rounded up; the flat grid's columns past
    an output row), plus its copies and stores (the host's `*_cost`s, per float or output).
    The flat conv favours wide planes and little depth (stems; 1x1 convs with stride 1, whose
    input it reads in place); the direct one small planes and deep convs (no dropped columns,
    its weights read once per block of positions); the pointwise one (1x1, stride 1, no
    padding) small planes, which its narrower tiles of positions fit better than the flat's."""
    xs, ws, ys = cpu.shape_of(op.X), op.weights_shape(), cpu.shape_of(op.Y)
    group = op.group.value.data
    cg, mg, depth = xs[1] // group, ys[1] // group, xs[1] // group * math.prod(ws[2:])
    positions = math.prod(ys[2:])
    # copied, unless read in place: the phases some tap reads (only the first along a dim the
    # kernel is 1 wide: flat_copy)
    q, lead = flat_layout(op)[0], [1] * (SPATIAL - (len(xs) - 2))
    read_phases = math.prod(s if k > 1 else 1 for s, k in zip(lead + list(op.strides.get_values()),
                                                                lead + list(ws[2:])))
    channel_floats = 0 if flat_in_place(op) else read_phases * math.prod(q)
    count = flat_count(op)
    narrow = mg <= kernel_macro("GEMM_NR") // 2
    width = kernel_macro("GEMM_NR") // 2 if narrow else kernel_macro("GEMM_NR")
    padded = conv_copy(op)[0]
    residual = mg * positions if op.R is not None else 0
    costs = {
        "flat": (depth * _round_up(count, kernel_macro("FLAT_TILE")) * _round_up(mg, kernel_macro("FLAT_MR"))
                 + host.flat_store_cost * positions * mg + host.flat_copy_cost * cg * channel_floats
                 + host.flat_residual_cost * residual),
        # A short tile of positions is computed in shorter parts: none dropped.
        "direct": (depth * positions * _round_up(mg, width) + host.direct_store_cost * positions * mg
                   + host.direct_copy_cost * padded + host.direct_residual_cost * residual),
    }
    if winograd_applies(op):
        tile_rows, tile_cols, block_rows = winograd_blocks(op)
        tiles, products = tile_rows * tile_cols, WINOGRAD_ELEMENTS * cg * _round_up(mg, kernel_macro("FLAT_MR"))
        costs["winograd"] = (products * tiles + host.winograd_transform_cost * WINOGRAD_ELEMENTS * (cg + mg) * tiles
                             + host.winograd_weights_cost * products * -(-tile_rows // block_rows)
                             + host.flat_residual_cost * residual)
    if (all(k == 1 for k in ws[2:]) and all(v == 1 for v in op.strides.get_values())
            and not any(op.pads.get_values()) and xs[2:] == ys[2:]):
        costs["pointwise"] = (cg * _round_up(mg, kernel_macro("GEMM_MR"))
                              * _round_up(positions, kernel_macro("GEMM_NR"))
                              + host.pointwise_pack_cost * cg * positions
                              + host.pointwise_store_cost * mg * positions + host.pointwise_residual_cost * residual)
    return costs


WINOGRAD_ELEMENTS = 16
"""The elements of a transformed 4x4 tile of F(2x2, 3x3) (mrvl_kernels_winograd.c)."""
WINOGRAD_G = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0]])
"""G of F(2x2, 3x3): a 3x3 kernel g is multiplied as the 4x4 G g G'."""


def winograd_applies(op: cpu.ConvOp) -> bool:
    """Whether mrvl_winograd_conv_f32 runs `op`: a 2-d float32 conv of one group with a 3x3
    kernel, strides and dilations 1, and constant weights with data (transformed at compile
    time, `pack_winograd_weights`)."""
    xs, ws = cpu.shape_of(op.X), op.weights_shape()
    return (len(xs) == 4 and op.group.value.data == 1 and tuple(ws[2:]) == (3, 3)
            and cpu.element_type_of(op.X) == f32 and op.packed_weights is None
            and all(v == 1 for v in (*op.strides.get_values(), *op.dilations.get_values()))
            and constant_value(op.W) is not None)


def winograd_packed_shape(m: int, c: int) -> tuple[int, int, int, int]:
    """The layout of transformed weights for m output and c input channels as a tensor shape:
    (16 elements, panels, c, MRVL_WINOGRAD_PANEL), the output channels in panels, zeros past m."""
    panel = kernel_macro("WINOGRAD_PANEL")
    return (WINOGRAD_ELEMENTS, -(-m // panel), c, panel)


def pack_winograd_weights(w: np.ndarray) -> np.ndarray:
    """3x3 conv weights (M, C, 3, 3) transformed (G g G', in float64, rounded once) into
    mrvl_winograd_conv_f32's layout (`winograd_packed_shape`)."""
    m, c = w.shape[:2]
    shape = winograd_packed_shape(m, c)
    u = np.einsum("ai,mcij,bj->abmc", WINOGRAD_G, w.astype(np.float64), WINOGRAD_G)
    padded = np.zeros((WINOGRAD_ELEMENTS, shape[1] * shape[3], c))
    padded[:, :m] = u.reshape(WINOGRAD_ELEMENTS, m, c)
    panels = padded.reshape(WINOGRAD_ELEMENTS, shape[1], shape[3], c).transpose(0, 1, 3, 2)
    return np.ascontiguousarray(panels, dtype=np.float32)


def winograd_blocks(op: cpu.ConvOp) -> tuple[int, int, int]:
    """winograd_layout of mrvl_kernels_winograd.c: (tile rows, tile columns, tile rows a block)."""
    c, m = cpu.shape_of(op.X)[1], cpu.shape_of(op.Y)[1]
    tile_rows, tile_cols = (-(-o // 2) for o in cpu.shape_of(op.Y)[2:])
    mp = _round_up(m, kernel_macro("WINOGRAD_PANEL"))
    block = kernel_macro("WINOGRAD_BLOCK_FLOATS") // (WINOGRAD_ELEMENTS * (c + mp) * tile_cols)
    return tile_rows, tile_cols, min(tile_rows, max(1, block))


def winograd_scratch_floats(op: cpu.ConvOp) -> int:
    """MRVL_WINOGRAD_SLOTS slots of winograd_layout of mrvl_kernels_winograd.c (for the widest
    vector): a block's V and M, its tiles rounded up to whole vectors plus one, a skew an
    element, and its input rows' buffers."""
    c, m, vf = cpu.shape_of(op.X)[1], cpu.shape_of(op.Y)[1], kernel_macro("GEMM_VECTOR_FLOATS")
    _, tile_cols, block_rows = winograd_blocks(op)
    mp = _round_up(m, kernel_macro("WINOGRAD_PANEL"))
    pitch = _round_up(block_rows * tile_cols, vf) + vf
    edge = _round_up(tile_cols, vf) + vf
    elements = WINOGRAD_ELEMENTS * ((c + mp) * pitch + 2 * kernel_macro("WINOGRAD_SKEW"))
    return kernel_macro("WINOGRAD_SLOTS") * (elements + (2 * block_rows + 4) * 2 * edge)


def packed_channels(mg: int) -> int:
    """A group's output channels in packed conv weights: rounded up to MRVL_CONV_CHANNEL_ALIGN."""
    align = kernel_macro("CONV_CHANNEL_ALIGN")
    return -(-mg // align) * align


def packed_weights_shape(weights_shape: tuple[int, ...], group: int) -> tuple[int, ...]:
    """The packed layout of conv weights (M, C/group, kernel...) as a tensor shape: (group,
    panels, C/group, kernel..., MRVL_CONV_PANEL), one panel per MRVL_CONV_PANEL output
    channels of a group rounded up by `packed_channels`."""
    panel = kernel_macro("CONV_PANEL")
    return (group, packed_channels(weights_shape[0] // group) // panel, *weights_shape[1:], panel)


def pack_conv_weights(w: np.ndarray, group: int) -> np.ndarray:
    """Conv weights (M, C/group, kernel...) in mrvl_conv_pack_weights_f32's layout
    (`packed_weights_shape`): per group, the output channels padded with zeros, each panel
    (C/group * taps) rows of MRVL_CONV_PANEL floats."""
    mg, depth = w.shape[0] // group, math.prod(w.shape[1:])
    shape = packed_weights_shape(w.shape, group)
    padded = np.zeros((group, packed_channels(mg), depth), np.float32)
    padded[:, :mg] = w.reshape(group, mg, depth)
    panels = padded.reshape(group, shape[1], shape[-1], depth).transpose(0, 1, 3, 2)
    return np.ascontiguousarray(panels).reshape(shape)


def packed_gemm_shape(k: int, n: int) -> tuple[int, int, int]:
    """The packed layout of a GEMM's B (k, n) as a tensor shape: (panels, k, MRVL_GEMM_PANEL),
    n rounded up to whole panels."""
    panel = kernel_macro("GEMM_PANEL")
    return (-(-n // panel), k, panel)


def pack_gemm_weights(b: np.ndarray) -> np.ndarray:
    """B (k, n) in gemm_prepacked's layout (`packed_gemm_shape`): each panel of
    MRVL_GEMM_PANEL columns k rows, zeros past column n."""
    k, n = b.shape
    panels, _, panel = packed_gemm_shape(k, n)
    padded = np.zeros((k, panels * panel), np.float32)
    padded[:, :n] = b
    return np.ascontiguousarray(padded.reshape(k, panels, panel).transpose(1, 0, 2))


def qconv_by_columns(weights_shape) -> bool:
    """Whether mrvl_qlinear_conv runs a (non-depthwise) conv of weights (M, C/group, kh, kw) as
    one of C/group * kw channels, the input channels seen from each kernel column, with a
    kernel of kh x 1 (`qconv_column_planes`): with fewer than four input channels (a stem),
    whose quads would otherwise hold zeros, where that takes fewer steps of four bytes (a 7x7
    stem of three channels: 6 quads of (c, v) by 7 rows, not 49 taps of one quad)."""
    cg, kh, kw = weights_shape[1:4]
    return cg < 4 and -(-cg * kw // 4) < kw


def pack_qconv_weights(w: np.ndarray, group: int, depthwise: bool) -> np.ndarray:
    """int8 or uint8 conv weights (M, C/group, kh, kw) in mrvl_qlinear_conv's layout, as int8
    bytes (uint8 weights moved by -128): for a depthwise conv (M, kh * kw); else, per group,
    panels of MRVL_QGEMM_PANEL output channels, each (K4, PANEL, 4) with K4 = quads * kh * kw: the
    input channels in quads (the last completed with zeros), quad by quad each tap's four
    channels side by side (the order of the kernel's quad planes), the output channels padded
    with zeros to whole panels, and after each panel the MR int32 sums of its rows (little
    endian, the byte order of both hosts): (group * panels, (K4 * 4 + 4) * PANEL)."""
    values = w.astype(np.int16) - (128 if w.dtype == np.uint8 else 0)
    if depthwise:
        return values.reshape(w.shape[0], -1).astype(np.int8)
    if qconv_by_columns(w.shape):  # as a conv of C/group * kw channels (c, v) with kernel (kh, 1)
        values = values.transpose(0, 1, 3, 2).reshape(w.shape[0], -1, w.shape[2], 1)
    m, cg, taps = values.shape[0], values.shape[1], math.prod(values.shape[2:])
    mr, mg, quads = kernel_macro("QGEMM_PANEL"), m // group, -(-cg // 4)
    panels, k4 = -(-mg // mr), quads * taps
    padded = np.zeros((group, panels * mr, quads * 4, taps), np.int8)
    padded[:, :mg, :cg] = values.reshape(group, mg, cg, taps)
    quads_of_taps = padded.reshape(group * panels, mr, quads, 4, taps).transpose(0, 2, 4, 1, 3)
    sums = padded.astype(np.int32).sum(axis=(2, 3)).reshape(group * panels, mr).astype("<i4")
    return np.ascontiguousarray(np.concatenate([quads_of_taps.reshape(group * panels, k4 * mr * 4),
                                                sums.view(np.int8)], axis=1))


def qconv_scratch_bytes(op: cpu.QLinearConvOp) -> int:
    """Bytes of mrvl_qlinear_conv's scratch: per output channel a multiplier, a constant and a
    zero point; then two rows of results and the zero-padded int16 plane, its rows split into
    stride phases, with what a chunk reads past it (depthwise); or a tile of sums,
    the offsets of the GEMM's steps (the taps, or a 1x1 conv's quads), the column sums, the
    quad planes (with room for a tile and a row read past their end), a missing channel's plane
    (and for a conv that is not direct first a quad's planes interleaved) and, when the planes'
    rows are wider than the output's, a buffer of results. The planes are the input's for a 1x1
    conv of stride 1 without padding, else its zero-padded planes split into stride phases; for
    a conv by columns (`qconv_by_columns`), those of the conv the kernel runs, built through rows
    of the input's (`qconv_column_planes`)."""

    def aligned(n: int) -> int:
        return -(-n // 64) * 64

    (n, c, h, w), (m, cg, kh, kw), (_, _, oh, ow) = cpu.shape_of(op.x), op.weights_shape(), cpu.shape_of(op.y)
    strides, dilations, pads = (list(a.get_values()) for a in (op.strides, op.dilations, op.pads))
    per_channel = 3 * aligned(4 * m)
    if op.is_depthwise():  # qconv_depthwise and qdw_width of mrvl_kernels_qdepthwise.c
        (sh, sw), (dh, dw), chunk = strides, dilations, kernel_macro("QDW_CHUNK")
        width = -(-((ow - 1) * sw + (kw - 1) * dw + 1) // sw) * sw
        if sw == 1 and width % 2 and -(-oh * (width + 1) // chunk) == -(-oh * width // chunk):
            width += 1
        height = -(-((oh - 1) * sh + (kh - 1) * dh + 1) // sh)
        positions = -(-oh * width // sw // chunk) * chunk
        return per_channel + 2 * aligned(positions + 16) + 2 * (sh * height * width + width + (chunk + 1) * sw + 32)
    mr, nr = kernel_macro("QGEMM_MR"), kernel_macro("QGEMM_NR")
    (sh, sw), (dh, dw) = strides, dilations
    columns = qconv_by_columns((m, cg, kh, kw))
    if columns:  # a row of missing channels, a padded input row, its column phases per input channel
        padded = (ow - 1) * sw + (kw - 1) * dw + 1
        fill = ow + padded + cg * (padded + sw)
        cg, w, kw, sw, dw = cg * kw, ow, 1, 1, 1  # the conv the kernel runs: kernel (kh, 1), stride (sh, 1)
    if kh == kw == 1 and (sh, sw) == (1, 1) and pads[:2] == [0, 0] and (oh, ow) == (h, w) and not columns:
        width, area = ow, h * w
        fill = area  # a plane of the missing channels
    else:
        width, height = -(-((ow - 1) * sw + (kw - 1) * dw + 1) // sw), -(-((oh - 1) * sh + (kh - 1) * dh + 1) // sh)
        area = sh * sw * height * width
        if not columns:
            fill = 5 * h * w  # a quad's planes interleaved, a missing channel's plane
    quads = -(-cg // 4)
    steps = quads if kh * kw == 1 else kh * kw  # the offsets of the GEMM's inner loop
    quad_planes = 4 * quads * area + 4 * (width + nr)
    return (per_channel + aligned(4 * mr * nr) + aligned(8 * steps) + aligned(4 * oh * width) + aligned(quad_planes)
            + aligned(fill) + (m // op.group.value.data * oh * width if width != ow else 0))


def packed_weights_floats(op: cpu.ConvOp) -> int:
    """Floats of `op`'s weights packed (at run time, into the front of its scratch)."""
    ws, group = op.weights_shape(), op.group.value.data
    return group * packed_channels(ws[0] // group) * math.prod(ws[1:])


def conv_copy(op: cpu.ConvOp) -> tuple[int, int]:
    """The floats of input mrvl_conv_f32 copies for one group, and the floats of scratch the copy
    takes: the padded input (when the conv pads or its windows reach past the input), or a 1x1
    conv's input at its output positions: transposed (an output plane of at most
    MRVL_CONV_TRANSPOSED_PLANE positions, or MRVL_CONV_TRANSPOSED_DEEP_PLANE with at least
    MRVL_CONV_TRANSPOSED_DEEP_WEIGHTS weights a group, on a target that has them; each
    position's channels followed by MRVL_CONV_TRANSPOSED_SKEW floats, conv_transposed_pitch) or
    subsampled (strided, on a target that does)."""
    xs, ws, ys = cpu.shape_of(op.X), op.weights_shape(), cpu.shape_of(op.Y)
    rank, group = len(xs) - 2, op.group.value.data
    strides, dilations, pads = op.strides.get_values(), op.dilations.get_values(), op.pads.get_values()[:rank]
    extent = [(o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(ys[2:], strides, ws[2:], dilations)]
    padded = any(pads) or any(e > i for e, i in zip(extent, xs[2:]))
    cg, positions = xs[1] // group, math.prod(ys[2:])
    plane = (kernel_macro("CONV_TRANSPOSED_DEEP_PLANE")
             if cg * (ys[1] // group) >= kernel_macro("CONV_TRANSPOSED_DEEP_WEIGHTS")
             else kernel_macro("CONV_TRANSPOSED_PLANE"))
    transposed = math.prod(ws[2:]) == 1 and positions <= plane
    subsampled = kernel_macro("CONV_SUBSAMPLED") and math.prod(ws[2:]) == 1 and positions < math.prod(xs[2:])
    if padded:
        return cg * math.prod(extent), cg * math.prod(extent)
    if transposed:
        return cg * positions, (cg + kernel_macro("CONV_TRANSPOSED_SKEW")) * positions
    if subsampled:
        return cg * positions, cg * positions
    return 0, 0


def conv_scratch_floats(op: cpu.ConvOp) -> int:
    """conv_scratch_floats of mrvl_kernels_conv.c: the copy of one group's input (conv_copy) and
    the table of tap offsets."""
    cg = cpu.shape_of(op.X)[1] // op.group.value.data
    return conv_copy(op)[1] + cg * math.prod(op.weights_shape()[2:])


def flat_layout(op: cpu.ConvOp) -> tuple[list[int], int]:
    """flat_layout of mrvl_kernels_conv.c: the extent of each stride phase of the flat conv's
    input per spatial dim (depth, height, width), and the floats of one input channel."""
    xs, ws, ys = cpu.shape_of(op.X), op.weights_shape(), cpu.shape_of(op.Y)
    lead = [1] * (SPATIAL - (len(xs) - 2))
    out, kernel = lead + list(ys[2:]), lead + list(ws[2:])
    strides, dilations = lead + list(op.strides.get_values()), lead + list(op.dilations.get_values())
    q = [-(-((o - 1) * s + (k - 1) * d + 1) // s) for o, s, k, d in zip(out, strides, kernel, dilations)]
    return q, math.prod(strides) * math.prod(q)


def flat_in_place(op: cpu.ConvOp) -> bool:
    """flat_in_place of mrvl_kernels_conv.c: whether the flat layout is the input itself (stride 1,
    no padding), which the flat conv reads in place."""
    q, _ = flat_layout(op)
    ins = [1] * (SPATIAL - (len(cpu.shape_of(op.X)) - 2)) + list(cpu.shape_of(op.X)[2:])
    return (all(s == 1 for s in op.strides.get_values()) and not any(op.pads.get_values()) and q == ins)


def flat_count(op: cpu.ConvOp) -> int:
    """flat_count of mrvl_kernels_conv.c: the flat positions of `op` (junk columns and rows between
    output rows included)."""
    q, _ = flat_layout(op)
    out = [1] * (SPATIAL - (len(cpu.shape_of(op.Y)) - 2)) + list(cpu.shape_of(op.Y)[2:])
    return ((out[0] - 1) * q[1] + out[1] - 1) * q[2] + out[2]


def flat_rows_reach(op: cpu.ConvOp) -> tuple[int, int]:
    """flat_rows_reach of mrvl_kernels_conv.c: the flat offsets from an output position to the
    first and the last input its window reads, in a conv read in place by rows."""
    inp, _, kernel, _, dilations, pads = _depthwise_dims(op)
    return (-pads[1] * inp[2] - pads[2],
            ((kernel[1] - 1) * dilations[1] - pads[1]) * inp[2] + (kernel[2] - 1) * dilations[2] - pads[2])


def flat_rows_fit(op: cpu.ConvOp) -> bool:
    """flat_rows_fit of mrvl_kernels_conv.c: whether the flat conv can read a padded conv's
    input in place by rows (a conv of one depth slice, stride 1, whose output is its input's
    size, its group's input more than MRVL_FLAT_ROWS_FLOATS, on a plane large enough next to
    the kernel's reach and MRVL_FLAT_WIDEST_TILE)."""
    inp, out, kernel, strides, _, pads = _depthwise_dims(op)
    cg = cpu.shape_of(op.X)[1] // op.group.value.data
    if (inp[0] != 1 or out != inp or kernel[0] != 1 or strides[1:] != [1, 1] or (pads[1] == 0 and pads[2] == 0)
            or cg * inp[1] * inp[2] <= kernel_macro("FLAT_ROWS_FLOATS")):
        return False
    nearest, farthest = flat_rows_reach(op)
    return inp[1] * inp[2] >= farthest - nearest + 2 * kernel_macro("FLAT_WIDEST_TILE")


def flat_scratch_floats(op: cpu.ConvOp) -> int:
    """flat_scratch_floats of mrvl_kernels_conv.c: a group's input in the flat layout, a tile of
    zeros after it (MRVL_FLAT_TILE of the widest vectors) and the tap table; in place, each
    input channel's tail (flat_tail_floats) and two tap tables. Where it can read in place by
    rows, as much more for that (whether the target does or not): each input channel's head and
    tail (flat_rows_edge_floats), three tap tables and the masks."""
    xs, ws = cpu.shape_of(op.X), op.weights_shape()
    cg, taps = xs[1] // op.group.value.data, math.prod(ws[2:])
    rows = 0
    if flat_rows_fit(op):
        nearest, farthest = flat_rows_reach(op)
        edge = 2 * (farthest - nearest) + 2 * kernel_macro("FLAT_TILE")
        width, kernel_width = _depthwise_dims(op)[0][2], ws[-1]
        rows = 2 * cg * edge + 3 * cg * taps + kernel_width * (width + kernel_macro("FLAT_WIDEST_TILE"))
    if flat_in_place(op):
        tail = math.prod(xs[2:]) - flat_count(op) + 2 * kernel_macro("FLAT_TILE")
        return cg * tail + 2 * cg * taps
    return rows + cg * flat_layout(op)[1] + kernel_macro("FLAT_TILE") + cg * taps


def _depthwise_dims(op: cpu.ConvOp) -> tuple[list[int], ...]:
    """A depthwise conv's input, output, kernel, strides, dilations and leading pads as
    (depth, height, width), leading 1s (0s) for the dims it lacks."""
    xs, ws, ys = cpu.shape_of(op.X), op.weights_shape(), cpu.shape_of(op.Y)
    lead = [1] * (SPATIAL - (len(xs) - 2))
    inp, out, kernel = lead + list(xs[2:]), lead + list(ys[2:]), lead + list(ws[2:])
    strides, dilations = lead + list(op.strides.get_values()), lead + list(op.dilations.get_values())
    pads = [0] * len(lead) + list(op.pads.get_values()[:len(xs) - 2])
    return inp, out, kernel, strides, dilations, pads


def depthwise_small_shape(op: cpu.ConvOp) -> bool:
    """depthwise_small_shape of mrvl_kernels_depthwise.c: a 3x3 depthwise conv (channel
    multiplier 1, no depth dim) padded by 1, at stride 1 with an output as large as its input
    or at stride 2 with half of it (even sides), which either depthwise kernel hands to its
    small planes' path where the target takes it."""
    xs, ys = cpu.shape_of(op.X), cpu.shape_of(op.Y)
    inp, out, kernel, strides, dilations, pads = _depthwise_dims(op)
    return (ys[1] == xs[1] and inp[0] == 1 and kernel == [1, 3, 3] and dilations[1:] == [1, 1]
            and pads[1:] == [1, 1] and strides[1] == strides[2]
            and ((strides[1] == 1 and out == inp) or (strides[1] == 2 and [2 * o for o in out[1:]] == inp[1:])))


def depthwise_small_scratch_floats(op: cpu.ConvOp) -> int:
    """depthwise_small_scratch_floats of mrvl_kernels_depthwise.c, which both depthwise
    kernels' scratch holds: for a `depthwise_small_shape` conv, two masks per output vector and
    per channel the plane with a zero row and float before and after it (stride 1) or its four
    parity phases, each after a zero row and float and before a vector's gap, and two vectors
    for the plane's last rows on their way in (stride 2); 0 for any other."""
    if not depthwise_small_shape(op):
        return 0
    xs = cpu.shape_of(op.X)
    inp, out, _, strides, _, _ = _depthwise_dims(op)
    vector, lanes = kernel_macro("GEMM_VECTOR_FLOATS"), kernel_macro("DEPTHWISE_SMALL_FLOATS")
    phase = out[2] + 1 + out[1] * out[2] + vector
    channel = inp[1] * inp[2] + 2 * (inp[2] + 1) if strides[1] == 1 else 4 * phase + 2 * vector
    return 2 * _round_up(out[1] * out[2], lanes) + xs[1] * channel


def depthwise_is_blocked(op: cpu.ConvOp) -> bool:
    """Whether a depthwise conv (one input channel per group) runs channel-blocked,
    mrvl_depthwise_blocked_conv_f32 (channel multiplier 1, no depth dim), rather than on flat
    planes: where that measured faster on AVX-512 (3x3 and 5x5, 7x7 to 112x112, ReLU6): with
    25 taps or more (5x5: 0.6x to 0.9x the time) and on output planes of at most 10x10
    positions (3x3: 0.85x at 7x7, the same at 14x14). Elsewhere its transposes in and out cost
    more than the flat layouts' copies (3x3 at 28x28 and up: 1.2x to 1.4x)."""
    xs, ys = cpu.shape_of(op.X), cpu.shape_of(op.Y)
    inp, out, kernel, _, _, _ = _depthwise_dims(op)
    if ys[1] != xs[1] or inp[0] != 1 or kernel[0] != 1:
        return False
    return math.prod(kernel) >= 25 or out[1] * out[2] <= 10 * 10


def depthwise_blocked_scratch_floats(op: cpu.ConvOp) -> int:
    """depthwise_blocked_scratch_floats of mrvl_kernels_depthwise.c (depthwise_blocked_layout): per block
    of channels, its padded input position-major (as far as the windows read, and the slack
    the last tiles read), the output grid (rows rounded up to whole tiles), the weights and
    the bias; the tap offsets. Or, if more, the small planes' (`depthwise_small_scratch_floats`)."""
    xs = cpu.shape_of(op.X)
    _, out, kernel, strides, dilations, _ = _depthwise_dims(op)
    block, tile = kernel_macro("DEPTHWISE_BLOCK"), kernel_macro("DEPTHWISE_BLOCK_TILE")
    h, w = ((o - 1) * s + (k - 1) * d + 1 for o, s, k, d in zip(out[1:], strides[1:], kernel[1:], dilations[1:]))
    pitch = -(-out[2] // tile) * tile
    layout = h * w + strides[2] * (pitch - out[2]) + out[1] * pitch + math.prod(kernel) + 1
    return max(-(-xs[1] // block) * block * layout + math.prod(kernel), depthwise_small_scratch_floats(op))


def depthwise_scratch_floats(op: cpu.ConvOp) -> int:
    """depthwise_scratch_floats of mrvl_kernels_depthwise.c (depthwise_layout): per input channel, its
    plane in the rows layout (equal strides dividing the width, one slice, padding at most the
    kernel's, a narrow plane: split into column phases) or in the phases layout, the slack the
    last tile's junk reads, and the grid unless the conv writes it in place; the rows layout's
    column masks; the tap offsets. Or, if more, the small planes' (`depthwise_small_scratch_floats`)."""
    xs = cpu.shape_of(op.X)
    inp, out, kernel, strides, dilations, pads = _depthwise_dims(op)
    reach = [(k - 1) * d for k, d in zip(kernel, dilations)]
    rows_layout = (kernel[0] == 1 and inp[0] == 1 and strides[1] == strides[2] and inp[2] % strides[2] == 0
                   and all(s * (o - 1) < i for s, o, i in zip(strides, out, inp))
                   and all(p <= r for p, r in zip(pads[1:], reach[1:]))
                   and inp[2] <= kernel_macro("DEPTHWISE_ROWS_PER_COLUMN") * (kernel[2] - 1) * strides[2])
    direct = rows_layout and strides[2] == 1 and out[1:] == inp[1:]
    if rows_layout:
        before, w, pitch = reach[2], inp[2] // strides[2], inp[2]
        data = strides[2] * (inp[1] + reach[1] + strides[1]) * w
    else:
        depth, rows, cols = (s * (o - 1) + r + 1 for s, o, r in zip(strides, out, reach))
        before, w = 0, -(-cols // strides[2])
        pitch, data = w, strides[1] * strides[2] * depth * -(-rows // strides[1]) * w
    tile = kernel_macro("DEPTHWISE_TILE")
    flat = -(-out[1] * pitch // tile) * tile
    channel = 2 * before + data + tile + w + (0 if direct else flat)
    return max(xs[1] * channel + (kernel[2] * flat if rows_layout else 0) + math.prod(kernel),
               depthwise_small_scratch_floats(op))


CONV_TRANSPOSE_DOT_CHANNELS = 4
"""MRVL_CONV_TRANSPOSE_DOT_CHANNELS of mrvl_kernels_conv_transpose.c: output channels per group up
to which the channels-last transposed conv sums dot products, not GEMM tiles."""
CONV_TRANSPOSE_DOT_FLOATS = 4096
"""MRVL_CONV_TRANSPOSE_DOT_FLOATS of mrvl_kernels_conv_transpose.c: its dot products' buffer,
which holds a column of the input channels of a group, or more."""


def conv_transpose_nhwc_block(cg: int, mg: int) -> int:
    """conv_transpose_nhwc_block of mrvl_kernels_conv_transpose.c: the floats of one tap's and
    group's packed weights, for cg input and mg output channels per group: mg rows of cg for its
    dot products (conv_transpose_nhwc_dots), else GEMM panels of MRVL_GEMM_NR columns."""
    dots = mg <= CONV_TRANSPOSE_DOT_CHANNELS and cg <= CONV_TRANSPOSE_DOT_FLOATS
    return cg * (mg if dots else _round_up(mg, kernel_macro("GEMM_NR")))


def conv_scratch(op: cpu.ConvOp | cpu.ConvTransposeOp) -> int:
    """Scratch floats of `op`'s kernel: the column matrix and the GEMM's packing of a
    transposed conv (in NHWC its weights packed per tap, `conv_transpose_nhwc_block`), the
    padded input plane of a depthwise one, the packed input of a pointwise one, or the padded
    (flat) input and tap table of a direct (flat) one, after its weights when they are packed
    at run time."""
    xs, ws = op.x_shape(), op.weights_shape()
    group = op.group.value.data
    taps, cg = math.prod(ws[2:]), xs[1] // group
    mg = ws[1] if isinstance(op, cpu.ConvTransposeOp) else ws[0] // group  # (C, M/group, ...) or (M, C/group, ...)
    assert op.kernel is not None, "select-host-kernels chooses the kernel first"
    path = op.kernel.data
    if isinstance(op, cpu.ConvTransposeOp) and op.channels_last is not None:
        return taps * group * conv_transpose_nhwc_block(cg, mg)
    if path == cpu.ConvKernel.TRANSPOSE:
        rows, positions = mg * taps, math.prod(xs[2:])
        return rows * positions + gemm_pack_floats(rows, positions, cg)
    assert isinstance(op, cpu.ConvOp)
    if path == cpu.ConvKernel.DEPTHWISE:
        return depthwise_scratch_floats(op)
    if path == cpu.ConvKernel.DEPTHWISE_BLOCKED:
        return depthwise_blocked_scratch_floats(op)
    if path == cpu.ConvKernel.POINTWISE:
        return gemm_pack_floats(mg, math.prod(cpu.shape_of(op.Y)[2:]), cg, contiguous_a=True)
    if path == cpu.ConvKernel.WINOGRAD:
        return winograd_scratch_floats(op)
    packing = op.packing_floats.value.data if op.packing_floats is not None else 0
    return packing + (flat_scratch_floats(op) if path == cpu.ConvKernel.FLAT else conv_scratch_floats(op))


# --- Other kernels --------------------------------------------------------------------


def matmul_shapes(op: cpu.MatmulOp | cpu.MatmulIntegerOp) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A's and B's shapes as matrices with batch dims, and the broadcast batch dims."""
    a, b = cpu.shape_of(op.A), op.weights_shape() if isinstance(op, cpu.MatmulOp) else cpu.shape_of(op.B)
    a2 = (1, *a) if len(a) == 1 else a
    b2 = (*b, 1) if len(b) == 1 else b
    batch = cpu.broadcast_shapes(a2[:-2], b2[:-2])
    assert batch is not None
    return a2, b2, tuple(batch)


def resize_filter_taps(op: cpu.ResizeOp, scale: float) -> int:
    """Taps per output element along a dim of `scale` in mrvl_resize_filtered_f32
    (resize_filter_start of mrvl_kernels_resize.c): the filter's support, 1 linear or 2 cubic,
    stretched by 1/scale on a shrinking dim with antialias, on both sides."""
    support = 2.0 if op.mode.data == cpu.ResizeMode.CUBIC else 1.0
    stretch = scale if op.antialias.value.data and scale < 1.0 else 1.0
    return 2 - 2 * (math.floor(-support / stretch) + 1)


def recurrent_scratch_floats(op: cpu.RecurrentOp) -> int:
    """recurrent_scratch_floats of mrvl_kernels_recurrent.c, for the widest register tile: one
    direction's input projection, R^T packed in panels (a GRU's h gate apart), a step's gates,
    the states and one more row per sample, then the input projection's GEMM packing."""
    seq, batch, size, hidden = op.sizes()
    gates = op.kind.data.gates * hidden
    nr = kernel_macro("GEMM_NR")

    def panels(columns: int) -> int:
        return -(-columns // nr) * nr

    gru = op.kind.data == cpu.RecurrentKind.GRU
    packed = hidden * (panels(2 * hidden) + panels(hidden) if gru else panels(gates))
    return (seq * batch * gates + packed + batch * (gates + 3 * hidden)
            + gemm_pack_floats(seq * batch, gates, size, contiguous_a=True))


def scratch_bytes(op: Operation) -> int:
    """Workspace bytes `op`'s kernel needs besides its operands and results, for the length
    of the call (0: none): a conv's (`conv_scratch`), the GEMM's packed blocks, the merge
    sort's index arrays of TopK, the filter tables and row buffer of a filtered resize, a
    recurrent layer's projections, packed weights and states, a channels-last batch norm's
    factors."""
    if isinstance(op, cpu.ConvOp | cpu.ConvTransposeOp):
        return 4 * conv_scratch(op)
    if isinstance(op, cpu.QLinearConvOp):
        return qconv_scratch_bytes(op)
    if isinstance(op, cpu.GemmOp):
        m, n = cpu.shape_of(op.Y)
        trans_a, trans_b = op.trans_a.value.data, op.trans_b.value.data
        k = cpu.shape_of(op.A)[0 if trans_a else 1]
        if op.packed_b is not None:
            return 4 * gemm_pack_floats(m, n, k, packed_b=True) if trans_a else 0
        if not (reads_rows_of_b(op) and trans_b):
            return 4 * gemm_pack_floats(m, n, k, contiguous_a=not trans_a)
    if isinstance(op, cpu.MatmulOp) and op.packed_b is None and op.transposed_b is None:
        a2, b2, batch = matmul_shapes(op)
        return 4 * gemm_pack_floats(a2[-2] * math.prod(batch), b2[-1], a2[-1], contiguous_a=True)
    if isinstance(op, cpu.TopKOp):  # two index arrays, one line at a time
        return 16 * max(cpu.shape_of(op.input)[op.axis.value.data], 1)
    if isinstance(op, cpu.RecurrentOp):
        return 4 * recurrent_scratch_floats(op)
    if isinstance(op, cpu.BatchNormOp) and op.channels_last is not None:  # each channel's factors
        return 8 * cpu.shape_of(op.X)[-1]
    if isinstance(op, cpu.ResizeOp) and op.kernel == cpu.ResizeKernelAttr(cpu.ResizeKernel.FILTERED):
        w, (oh, ow) = cpu.shape_of(op.input)[-1], cpu.shape_of(op.output)[-2:]
        scales = list(op.scales.get_values())[-2:]
        taps_h, taps_w = (resize_filter_taps(op, scale) for scale in scales)
        return 4 * (3 * (oh * taps_h + ow * taps_w) + oh * w)
    return 0


ELEMENTWISE_SCALAR_OPS = frozenset({
    "arith.constant", "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
    "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf",
    "arith.cmpf", "arith.select", "math.exp", "math.tanh", "math.absf", "cpu.sigmoid", "cpu.yield",
})
"""The scalar ops of a `cpu.elementwise` body the C printer writes in vectors (exp, tanh and
sigmoid as the kernels' own `exp_vec`, `tanh_vec` and `sigmoid_vec`)."""
ELEMENTWISE_PREDICATES = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}
"""The `arith.cmpf` predicates of a `cpu.elementwise` body, as C's comparisons of vectors (each
false where an operand is NaN but `une`, true there: C's own rules)."""


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    """Element strides of a dense row-major `shape`."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return strides[::-1]


def broadcast_strides(shape: Sequence[int], target: Sequence[int]) -> list[int]:
    """Strides of a dense `shape` over `target` (numpy broadcasting): 0 on broadcast dims."""
    own = contiguous_strides(shape)
    pad = len(target) - len(shape)
    return [0 if i < pad or shape[i - pad] == 1 else own[i - pad] for i in range(len(target))]


def merge_dims(shape: Sequence[int], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """The same iteration with fewer dims: size-1 dims dropped, and a dim merged into the next
    when every operand steps over both as over one (contiguous, or broadcast on both), so
    the kernel's innermost rows are as long as they can be."""
    keep = [i for i, d in enumerate(shape) if d != 1]
    merged, strides = [shape[i] for i in keep], [[s[i] for i in keep] for s in strides]
    i = len(merged) - 2
    while i >= 0:
        if all(s[i] == s[i + 1] * merged[i + 1] for s in strides):
            merged[i:i + 2] = [merged[i] * merged[i + 1]]
            for s in strides:
                s[i:i + 2] = [s[i + 1]]
        i -= 1
    return merged, strides


def elementwise_loop(result: tuple[int, ...], inputs: list[tuple[int, ...]]) -> tuple[list[int], list[list[int]]]:
    """The loop nest of a `cpu.elementwise` kernel: the result's shape with size-1 dims dropped
    and each dim merged into the next where every input steps over both as over one, and each
    input's element strides over it (0 along a dim it is broadcast on). The innermost dim is
    then as long as it can be, and every input's stride along it is 0 or 1: the kernel splats a
    value broadcast along a row once and reads the others contiguously."""
    loop, strides = merge_dims(result, [broadcast_strides(shape, result) for shape in inputs])
    if not loop:
        return [1], [[0] for _ in inputs]
    return loop, strides


def elementwise_loop_into(result: tuple[int, ...], inputs: list[tuple[int, ...]],
                          out_strides: Sequence[int]) -> tuple[list[int], list[list[int]], list[int]] | None:
    """`elementwise_loop` for a result written with element strides `out_strides` (a slice of
    a larger tensor), and the result's strides over the loop; None when the result's innermost
    loop dim is not contiguous (the kernel stores whole vectors along it)."""
    loop, strides = merge_dims(result, [*(broadcast_strides(shape, result) for shape in inputs), list(out_strides)])
    if not loop or strides[-1][-1] != 1:
        return None
    return loop, strides[:-1], strides[-1]
