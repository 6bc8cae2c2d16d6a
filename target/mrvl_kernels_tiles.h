/* mrvl_kernels_tiles.h: the tile and block sizes of the host kernels, per target.
 *
 * Integer macros, and MRVL_GEMM_PACK_FLOATS (the GEMM's scratch) made of them:
 * target/host_kernels.py reads the integer ones from this file to plan the kernels'
 * scratch and packed weights (over targets, the largest value), so what the C uses and what
 * the compiler plans for have one source. */
#ifndef MRVL_KERNELS_TILES_H
#define MRVL_KERNELS_TILES_H

/* --- Matrix products (mrvl_kernels_gemm.c) ------------------------------------------- */

/* The register tile of gemm_micro: MR rows of C by NR columns, held in vector registers for
 * a whole KC-deep product, so each loaded element of B feeds MR multiply-adds and each of A
 * feeds NR. Sized to the target's registers (accumulators plus B's row and a broadcast A):
 * AVX-512 12 of 32 zmm, AVX 12 of 16 ymm, NEON (and other 32-register ISAs) 16 of 32, SSE2
 * 8 of 16 xmm. Larger tiles spill and smaller ones leave the multiply-add units idle. */
#if defined(__AVX512F__)
#define MRVL_GEMM_MR 6
#define MRVL_GEMM_NR 32
#define MRVL_GEMM_VECTOR_FLOATS 16
#elif defined(__AVX__)
#define MRVL_GEMM_MR 6
#define MRVL_GEMM_NR 16
#define MRVL_GEMM_VECTOR_FLOATS 8
#elif defined(__x86_64__) || defined(__i386__)
#define MRVL_GEMM_MR 4
#define MRVL_GEMM_NR 8
#define MRVL_GEMM_VECTOR_FLOATS 4
#else
#define MRVL_GEMM_MR 4
#define MRVL_GEMM_NR 16
#define MRVL_GEMM_VECTOR_FLOATS 4
#endif
#define MRVL_GEMM_VECTORS (MRVL_GEMM_NR / MRVL_GEMM_VECTOR_FLOATS)
/* Sigmoid's and SiLU's e^-x from a table of 2^(k/K), K = 2^MRVL_EXP_TABLE_BITS, one vector
 * register looked up by a permute (one_plus_exp_minus_clamped), where the ISA has the permute:
 * a cubic in place of the degree-7 polynomial, 0.74x the time of either at AVX2 and AVX-512 on
 * a Zen 4; 0 elsewhere (NEON, SSE2): the polynomial. */
#if defined(__AVX512F__)
#define MRVL_EXP_TABLE_BITS 4
#elif defined(__AVX2__)
#define MRVL_EXP_TABLE_BITS 3
#else
#define MRVL_EXP_TABLE_BITS 0
#endif
/* The tile height of a product of few rows on B packed at compile time (gemm_panels): with
 * AVX-512's 32 registers 8 rows (16 sums) fit, and a batch of 8 is one tile (not tiles of 6
 * and 2); elsewhere MR. */
#if defined(__AVX512F__)
#define MRVL_GEMM_PANEL_MR 8
#else
#define MRVL_GEMM_PANEL_MR MRVL_GEMM_MR
#endif

/* How many rows of B ahead gemm_tile's short tiles ask the caches for the row they will
 * multiply: a fully connected layer on a few rows streams its weights from memory once,
 * faster than the hardware prefetchers fetch them (VGG's 4096 -> 512 on one row, weights not
 * cached: 32 rows took 0.86-0.88x the time of none, 16 and 64 1.02x of 32). */
#define MRVL_GEMM_PREFETCH_ROWS 32

/* Block sizes of gemm_acc_f32: a packed KC x NC block of B (at most 256 KiB) stays in L2, a
 * packed MC x KC block of A (at most 96 KiB) in L2 too, and one KC x NR panel of B in L1
 * while the MC rows of A pass over it. */
#define MRVL_GEMM_NC 256
#define MRVL_GEMM_KC 256
#define MRVL_GEMM_MC 96

/* Floats of packing scratch gemm_acc_f32 needs for an (m, n, k) product, for any tile size
 * up to 8 x 32 (plan-host-memory reserves the same: target/host_kernels.py gemm_pack_floats); the
 * part after B's, for A, is not used when A's rows are contiguous (a_cs 1). */
#define MRVL_GEMM_PACK_FLOATS(m, n, k)                                                        \
    (min_i64((k), MRVL_GEMM_KC) * (min_i64((n), MRVL_GEMM_NC) + 31 + min_i64((m), MRVL_GEMM_MC) + 7))

/* Columns per panel of a constant B packed at compile time (target/host_kernels.py
 * pack_gemm_weights): a multiple of every target's MRVL_GEMM_NR, so one layout serves all. */
#define MRVL_GEMM_PANEL 32

/* Rows of A at most this many with a transposed B: dot products along B's rows beat
 * transposing B first (a fully connected layer on one sample is a matrix-vector product). */
#define MRVL_GEMM_DOT_ROWS 4

/* --- Integer convolution (mrvl_kernels_qgemm.c) ------------------------------------- */

/* The register tile of the int8 GEMM: MR output channels by NR output positions of int32
 * sums, each step taking four input channels (the depth of one dot-product instruction:
 * vpdpbusd, usdot). The weights are packed at compile time in panels of PANEL rows
 * (target/host_kernels.py pack_qconv_weights), one layout for every target: a panel's step is
 * one AVX-512 vector of 16 output channels (the channel tile's), and a tile of MR rows reads
 * half of it. NR fills the registers: AVX-512 with VNNI 16 sums of 2 zmm each; elsewhere 8
 * (AVX2: 8 ymm of 16; NEON: 16 of 32 q-registers, 4 positions each; the portable loops). */
#define MRVL_QGEMM_MR 8
#define MRVL_QGEMM_PANEL 16 /* not to be overridden: host_kernels.py reads it */
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define MRVL_QGEMM_NR 32
#else
#define MRVL_QGEMM_NR 8
#endif
/* The channel tile (small planes): MRVL_QGEMM_CHANNEL_POSITIONS output positions by
 * MRVL_QGEMM_CHANNEL_PANELS panels of weights, the output channels in the vector lanes and each
 * position's four bytes of a step broadcast: AVX-512 6 x 4 (24 zmm of sums, 4 of weights);
 * elsewhere 4 positions by one panel (AVX2: 8 ymm of sums; NEON: 16 q-registers). A conv takes
 * them when they compute at most MRVL_QGEMM_CHANNEL_PERCENT of the sums the tiles of positions
 * compute (qgemm_channel_tiles_pay): on AVX-512 97, where ResNet-50's 3x3 convs at 28x28 (91%
 * of the sums) took 0.92x the time on channel tiles (Zen 4), its 3x3 convs at 56x56 (96%) 0.98x,
 * SqueezeNet's at 55x55 (97%) the same, and its 1x1 convs at 28x28 and 56x56 (98-100%)
 * 1.04-1.12x; elsewhere 90, the tiles of positions narrow (8) and wasting little. */
#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define MRVL_QGEMM_CHANNEL_POSITIONS 6
#define MRVL_QGEMM_CHANNEL_PANELS 4
#define MRVL_QGEMM_CHANNEL_PERCENT 97
#else
#define MRVL_QGEMM_CHANNEL_POSITIONS 4
#define MRVL_QGEMM_CHANNEL_PANELS 1
#define MRVL_QGEMM_CHANNEL_PERCENT 90
#endif
/* Output positions every panel of weights passes over before the next block: a block's
 * activations stay in L1 over the panels, and a deep conv on a small plane (ResNet's last
 * stage: 63 positions, 2.4 MB of weights) reads its weights from memory once, not per tile. */
#define MRVL_QGEMM_BLOCK (2 * MRVL_QGEMM_NR)
/* A 1x1 conv of at most this many positions (a classifier's Gemm) runs as matrix-vector
 * products where the target has them (AVX-512: qgemv_panel). */
#define MRVL_QGEMM_VECTOR_POSITIONS 2

/* --- Convolution (mrvl_kernels_conv.c) ---------------------------------------------- */

/* Output positions per conv tile, and per narrow tile (below): with AVX-512's 32 registers,
 * 12 (24 sums of 2 x 12 vectors) beat 8 on ResNet's convs: fewer weights read from the
 * caches per multiply-add; the narrow tile keeps 16 rows (24 spill the row pointers). */
#if defined(__AVX512F__)
#define MRVL_CONV_MR 12
#define MRVL_CONV_SHORT_MR 8 /* for planes that 8s fill better than 12s (conv_short_tiles_pay) */
#define MRVL_CONV_NARROW_MR 16
#define MRVL_CONV_LONG_TILES 1
#else
#define MRVL_CONV_LONG_TILES 0
#define MRVL_CONV_MR MRVL_GEMM_MR
#define MRVL_CONV_SHORT_MR MRVL_GEMM_MR
#define MRVL_CONV_NARROW_MR (2 * MRVL_GEMM_MR)
#endif
/* Whether a plane one position past whole tiles ends in a tile of 3/4 of them and one of the
 * rest (mrvl_kernels_conv.c conv_tiles), not in a whole tile and a short one of 1, whose sums
 * wait on the multiply-adds' latency: AVX2, which has no registers for a long tile (a 7 x 7
 * plane is 7 tiles of 6, 1 of 4 and 1 of 3; on a Zen 4, ResNet-50's 2048 -> 512, 512 -> 2048 and
 * MobileNetV2's 960 -> 320 at 7x7 took 0.97x the time). */
#if defined(__AVX__) && !defined(__AVX512F__)
#define MRVL_CONV_SPLIT_LAST 1
#else
#define MRVL_CONV_SPLIT_LAST 0
#endif
/* Output positions at most of a 1x1 conv whose input the direct conv reads transposed
 * (mrvl_kernels_conv.c conv_transposes_input): with AVX2's tiles of 6 positions, 7 x 7 and
 * 8 x 8 planes (MobileNetV2's 320 -> 1280 at 7x7 0.83x the time); on up to
 * MRVL_CONV_TRANSPOSED_DEEP_PLANE positions (at least as many), a conv of at least
 * MRVL_CONV_TRANSPOSED_DEEP_WEIGHTS weights a group: ResNet-50's at 14 x 14 (a Zen 4, alone:
 * 512 -> 1024 at 28x28/2 0.9x the time, 1024 -> 512 0.97x, 256 -> 1024 0.95x, 1024 -> 256 the
 * same), where convs of fewer weights ran 1.03-1.2x slower so (MobileNetV2's 96 -> 576 and
 * 576 -> 96, SqueezeNet's 384 -> 64 and 256 -> 128 at 13x13: the transpose is more of their
 * time). AVX-512's tiles of 12 and 13 ran 1.01-1.09x slower so, and the N2 was not timed: none. */
#if defined(__AVX__) && !defined(__AVX512F__)
#define MRVL_CONV_TRANSPOSED_PLANE 64
#define MRVL_CONV_TRANSPOSED_DEEP_PLANE 196
#else
#define MRVL_CONV_TRANSPOSED_PLANE 0
#define MRVL_CONV_TRANSPOSED_DEEP_PLANE 0
#endif
#define MRVL_CONV_TRANSPOSED_DEEP_WEIGHTS 262144
/* Floats of padding after each position of such a transposed input (its channels): a tile's
 * rows of a deep conv's channels a multiple of 4 KiB apart fall in the same L1 sets (1024 and
 * 2048 channels, ResNet-50's 7 x 7 convs), and their lines evict each other while the tile
 * sums (AVX2's tile of 6 rows over 2048 channels, in L2: 51% of the peak, 98% padded). */
#define MRVL_CONV_TRANSPOSED_SKEW 16
/* Whether a strided 1x1 conv's input is subsampled into planes of its output's extent before
 * the direct conv's tiles (mrvl_kernels_conv.c conv_subsamples_input): on AVX2, whose tiles of
 * 6 positions read lines of the input of which a stride-2 conv uses half, once per block of 16
 * channels (512 -> 1024 at 28x28/2 0.71x the time, 256 -> 512 at 56x56/2 0.95x). AVX-512's
 * tiles of 12 positions by 32 channels ran 1.0-1.05x slower so, and the N2 was not timed. */
#if defined(__AVX__) && !defined(__AVX512F__)
#define MRVL_CONV_SUBSAMPLED 1
#else
#define MRVL_CONV_SUBSAMPLED 0
#endif
/* Output channels per panel of packed weights: a multiple of every target's vector width. */
#define MRVL_CONV_PANEL 16
/* How many rows of a weight panel (a 64-byte line each) conv_micro asks the caches for ahead
 * of the row it multiplies: a deep conv on a small plane (ResNet's last stages) streams its
 * weights from memory, once per channel block, faster than the hardware prefetchers fetch
 * them (64 rows beat 8, 32 and 128). */
#define MRVL_CONV_PREFETCH_ROWS 64
/* Whether the position tiles of a channel-major conv fetch their shares of the next channel
 * block's weights (mrvl_kernels_conv.c conv_next_block_step): a pointer more in the inner
 * loop, for which AVX-512's tile of 12 row pointers has no register left (its loop spilled
 * and ran 3-14% slower); elsewhere a block's first tile fetches its weights alone. */
#if defined(__AVX512F__)
#define MRVL_CONV_NEXT_BLOCK_PREFETCH 0
#else
#define MRVL_CONV_NEXT_BLOCK_PREFETCH 1
#endif
/* Packed output channels are rounded up to a multiple of this (zeros), the widest tile. */
#define MRVL_CONV_CHANNEL_ALIGN 32

/* The flat conv's tile (mrvl_flat_conv_f32): MRVL_FLAT_MR channels by MRVL_FLAT_TILE flat
 * positions. */
#if defined(__AVX512F__) || !(defined(__x86_64__) || defined(__i386__))
#define MRVL_FLAT_MR 8 /* 32 vector registers (AVX-512, NEON): 24 sums, 3 input vectors */
#else
#define MRVL_FLAT_MR 4 /* 16 (AVX, SSE2): 12 sums, 3 input vectors and a broadcast */
#endif
#define MRVL_FLAT_VECTORS 3
/* Whether the tile's weights load as vectors and feed the multiply-adds from their lanes:
 * AArch64 multiplies by a vector's lane (fmla by element), so 8 weights take 2 registers, not
 * 8 (24 sums, 3 inputs and 8 broadcasts do not fit in 32: the N2's loop spilled, at 83% of
 * its peak in llvm-mca). x86 broadcasts from memory instead. */
#if defined(__aarch64__)
#define MRVL_FLAT_WEIGHT_LANES 1
#else
#define MRVL_FLAT_WEIGHT_LANES 0
#endif
#define MRVL_FLAT_TILE (MRVL_FLAT_VECTORS * MRVL_GEMM_VECTOR_FLOATS)
/* The widest target's MRVL_FLAT_TILE (AVX-512's): whether the flat conv reads a padded conv's
 * input in place by rows depends on it, not on the target's own tile, so that the scratch
 * plan-host-memory reserves (for the widest tile) is the kernel's on every target. */
#define MRVL_FLAT_WIDEST_TILE 48
/* A group's input of more floats than this (twice the L2 of the Zen 4 it was timed on) the flat
 * conv reads in place by rows where it can, not copied: its copy goes through memory (stem_224,
 * whose 16 -> 16 3x3 conv at 224 x 224 reads 3.2 MB: the whole model 0.89-0.97x the time at
 * x86-64-v3, 0.79-0.92x natively). Copies that stay in L2 cost less than reading in place, whose masked tiles and rows
 * read across channel planes cost 1.03-1.09x (tiny-YOLO's 3x3 convs of 3 to 32 channels at 256
 * to 64 wide, ResNet-18's 64 -> 64 at 56 x 56). */
#define MRVL_FLAT_ROWS_FLOATS 524288
/* Whether the flat conv reads such inputs in place by rows at all (1). On the N2 the masks'
 * ands share the two FP pipes with the multiply-adds and the masked tile spills (8x12: 46% of
 * its peak in llvm-mca, against 100% unmasked), and no timing says it gains there. The scratch
 * is planned for both ways. A build may set it. */
#ifndef MRVL_FLAT_ROWS
#if defined(__aarch64__)
#define MRVL_FLAT_ROWS 0
#else
#define MRVL_FLAT_ROWS 1
#endif
#endif
/* Input channels a whole tile of a deep 1x1 conv sums at a time over a group of
 * MRVL_FLAT_CHUNK_BLOCKS channel blocks (mrvl_kernels_conv.c flat_depth_chunks), its partial sums
 * kept in memory between chunks, or 0: every block over the whole depth. With AVX2's tiles of
 * 4 channels by 24 positions, a tile of 256 input channels (two lines each) left L1 before the
 * next block read it again: in chunks of 32 over 16 blocks, ResNet-50's 256 -> 64 at 56x56 and
 * 512 -> 128 at 28x28 took 0.77-0.82x the time (chunks of 16 as fast, 64 0.85-0.93x, 128 slower
 * than none; groups of 8 or 32 blocks 0.85-0.95x), from 4 chunks on (mrvl_flat_conv_f32).
 * AVX-512's tiles of 8 channels by 48 positions ran at 95% of the peak as they are, and the
 * N2 was not timed. */
#if defined(__AVX__) && !defined(__AVX512F__)
#define MRVL_FLAT_DEPTH_CHUNK 32
#define MRVL_FLAT_CHUNK_BLOCKS 16
#else
#define MRVL_FLAT_DEPTH_CHUNK 0
#define MRVL_FLAT_CHUNK_BLOCKS 1
#endif

/* Whether the flat conv's tiles stored from the registers ask the caches for the next tile's
 * lines of their residual and output, position-major (mrvl_kernels_conv.c flat_tiles): each
 * tile reads and writes a run of every output plane, more streams than the hardware
 * prefetchers follow. On x86 (an AMD Zen 4, x86-64-v3), ResNet-50's 64 -> 256 convs at 56x56
 * with their residual took 0.64-0.75x the time in the model, its 128 -> 512 at 28x28 0.87-0.95x;
 * the N2 was not timed. */
#if defined(__x86_64__) || defined(__i386__)
#define MRVL_FLAT_PREFETCH_NEXT_TILE 1
#else
#define MRVL_FLAT_PREFETCH_NEXT_TILE 0
#endif
/* The most input channels of an expanding 1x1 flat conv that takes its items channel block
 * after channel block (mrvl_kernels_conv.c mrvl_flat_conv_f32), reading its whole input again
 * per block. On x86 (an AMD Zen 4), each tile's runs from 64 input planes read again per
 * block of 4 channels waited on L2: ResNet-50's 64 -> 256 at 56x56 took 0.73x the time
 * position-major (with its residual 0.55-0.72x; AVX-512 0.97x), 32 -> 192 at 56x56 0.9x
 * (AVX-512 1.0x); MobileNetV2's 16 -> 96 at 112x112 ran 0.97-0.98x channel-major. The N2 was
 * not timed: any depth, as before. */
#if defined(__x86_64__) || defined(__i386__)
#define MRVL_FLAT_CHANNEL_MAJOR_DEPTH 24
#else
#define MRVL_FLAT_CHANNEL_MAJOR_DEPTH (1 << 30)
#endif
/* The deepest copied flat conv (a stem of few input channels and a small kernel: its flat input
 * stays in L2 for every channel block to read again) that takes its items channel-major when it
 * writes at least MRVL_FLAT_CHANNEL_MAJOR_PLANES planes and more than
 * MRVL_FLAT_CHANNEL_MAJOR_FLOATS floats over its images; 0: none. Position-major, each tile
 * writes a run into every plane, more streams than the hardware prefetchers follow, and a
 * shallow tile's sums do not hide its stores' misses. On x86 (an AMD Zen 4, x86-64-v3),
 * SqueezeNet's 3 -> 64 3x3/2 at 224 (depth 27) and at 112 in a batch of 4 took 0.68-0.72x the
 * time from cold caches, 1.03x warm; ResNet's 7x7/2 (depth 147) 1.02x and 1.03x: not it. The
 * N2 was not timed. */
#if defined(__x86_64__) || defined(__i386__)
#define MRVL_FLAT_CHANNEL_MAJOR_STEM_DEPTH 36
#else
#define MRVL_FLAT_CHANNEL_MAJOR_STEM_DEPTH 0
#endif

/* --- Depthwise convolution (mrvl_kernels_depthwise.c) -------------------------------- */

/* Floats of a flat depthwise tile: vectors summed at once along the output grid, each sum a
 * chain of multiply-adds over the taps. At least as many as the multiply-add's latency times
 * the pipes (4 x 2 on the N2, and on AVX-512's Intel and AMD cores) keep the pipes full: with
 * AArch64's 4-float vectors 8 (4 left the N2's 5x5 loop latency-bound, at 50% of its peak
 * in llvm-mca); with wider ones 4, on which AVX-512 was tuned. TILE is given per target, not
 * as VECTORS x vector floats, so that host_kernels.py's largest value over targets is the
 * widest target's. */
#if defined(__aarch64__)
#define MRVL_DEPTHWISE_VECTORS 8
#define MRVL_DEPTHWISE_TILE 32
#else
#define MRVL_DEPTHWISE_VECTORS 4
#define MRVL_DEPTHWISE_TILE (4 * MRVL_GEMM_VECTOR_FLOATS)
#endif
/* The rows layout serves planes at most this many times (the kernel's width - 1) x the stride
 * wide: its masks cost a bitwise and per tap (and at stride s, (s - 1) / s of its grid is
 * junk), the phases layout's junk columns a multiply-add per tap and each of its rows a few
 * instructions of copying. On AVX-512, at stride 1 a 3x3 conv 14 wide runs faster on rows,
 * 28 wide on phases, a 5x5 28 wide on rows; at stride 2 a 3x3 28 wide faster on rows
 * (shorter than a pair of vectors, the phases' rows split one float at a time), 56 and 112
 * wide slower. */
#define MRVL_DEPTHWISE_ROWS_PER_COLUMN 8 /* not to be overridden: host_kernels.py reads it */
/* Whether the rows layout's kernel columns that read across an edge read copies of the plane
 * with those columns zeroed (1), or mask their lanes in every multiply-add (0). On the N2 the
 * masks' ands share the two FP pipes with the multiply-adds (3x3: 40% of its peak in
 * llvm-mca, 75% on the copies); on x86 the copies cost more than the ands they save (a chain
 * of 3x3 convs at 14x14x384: 1.3-1.5x the time with AVX-512 and AVX2). A build may set it. */
#ifndef MRVL_DEPTHWISE_COLUMN_COPIES
#if defined(__aarch64__)
#define MRVL_DEPTHWISE_COLUMN_COPIES 1
#else
#define MRVL_DEPTHWISE_COLUMN_COPIES 0
#endif
#endif

/* Whether stride-2 depthwise convs with output rows at least a vector wide read their input
 * planes in place, de-interleaving pairs of vectors in registers (1), rather than copying
 * each plane into column phases first (0). On x86 that took 0.65-0.9x the time; on the N2 the
 * shuffles share the two FP pipes with the multiply-adds (3x3: 36% of its peak in llvm-mca),
 * and no timing says it gains there. A build may set it. */
#ifndef MRVL_DEPTHWISE_PAIRS
#if defined(__aarch64__)
#define MRVL_DEPTHWISE_PAIRS 0
#else
#define MRVL_DEPTHWISE_PAIRS 1
#endif
#endif

/* Whether 3x3 depthwise convs padded by 1 at stride 1 (or 2, on small planes) compute each
 * output plane as contiguous vectors from a copy of the input plane (or its parity phases),
 * two masks a vector (1), rather than in the flat or channel-blocked layouts (0), whichever
 * of the two kernels host_kernels.py picks. On x86 that took 0.45-0.75x the time on MobileNets'
 * planes (7x7 to 112x112, both strides; the channel-blocked layout's transposes and the flat
 * one's per-plane calls and copies cost more than the multiply-adds there). On the N2 its masks,
 * sums of columns and NaN-keeping clamp share the two FP pipes with the multiply-adds (3x3
 * with ReLU6 at stride 1: 43% of its peak in llvm-mca), and no timing says it gains there.
 * A build may set it. */
#ifndef MRVL_DEPTHWISE_SMALL
#if defined(__aarch64__)
#define MRVL_DEPTHWISE_SMALL 0
#else
#define MRVL_DEPTHWISE_SMALL 1
#endif
#endif
/* Floats of the small planes' vectors: with AVX-512 half vectors too, which Zen 4 runs at
 * the same multiply-adds a cycle: MobileNets' 7x7 planes fill 49 of 56 lanes, not of 64, and
 * their per-vector masks and sums cost less (AVX-512, ReLU6: 7x7 0.8x the time, 10x10 0.85x,
 * 14x14 1.2x, where twice the loads a multiply-add tell). */
#if defined(__AVX__)
#define MRVL_DEPTHWISE_SMALL_FLOATS 8
#else
#define MRVL_DEPTHWISE_SMALL_FLOATS 4 /* the vector of SSE and NEON */
#endif
/* Input floats a plane up to which the small planes' path copies each plane a channel ahead
 * of the one it computes (x86: 14x14 planes 0.7x the time, 56x56 1.05x). */
#define MRVL_DEPTHWISE_SMALL_AHEAD_FLOATS 512
/* Output positions up to which a 3x3 depthwise conv at stride 2 runs on small planes
 * (mrvl_kernels_depthwise.c depthwise_small_fits; at stride 1 any plane does): splitting each
 * plane into its four parity phases costs more than reading it in place (depthwise_pairs)
 * on larger ones (x86-64-v3: 28x28 outputs 0.9x the time, 56x56 1.3x). A build may set it. */
#ifndef MRVL_DEPTHWISE_SMALL_POSITIONS
#define MRVL_DEPTHWISE_SMALL_POSITIONS 1024
#endif

/* Channels of a block of the channel-blocked depthwise conv: a layout the planned scratch
 * shares over targets, so a multiple of every target's vector (1 AVX-512 vector, 2 AVX, 4
 * NEON ones a position), not a register tile. */
#define MRVL_DEPTHWISE_BLOCK 16 /* not to be overridden: host_kernels.py reads it */
/* Output positions a tile of the channel-blocked conv sums at once: a vector of the block's
 * channels each, (MRVL_DEPTHWISE_BLOCK / vector floats) registers; about half the registers. */
#if MRVL_GEMM_VECTOR_FLOATS == 16
#define MRVL_DEPTHWISE_BLOCK_TILE 8
#elif MRVL_GEMM_VECTOR_FLOATS == 8 || defined(__aarch64__)
#define MRVL_DEPTHWISE_BLOCK_TILE 4
#else
#define MRVL_DEPTHWISE_BLOCK_TILE 2
#endif
/* Floats ahead in each of its 16 input planes at which the channel-blocked conv's transpose in
 * (depthwise_blocked_in) asks for the lines it reads next, one a line (0: none): 16 streams,
 * more than the hardware prefetchers follow, and the input is mostly in L3 (the expanding 1x1
 * conv before wrote it). On x86 (an AMD Zen 4), EfficientNet's 5x5/2 on 144 x 56 x 56 took
 * 0.91-0.92x the time at x86-64-v3 (0.98x natively), its 5x5s on 672 x 14 x 14 and 480 x 14 x 14
 * 0.94-0.97x; the N2 was not timed. */
#if defined(__x86_64__) || defined(__i386__)
#define MRVL_DEPTHWISE_BLOCKED_PREFETCH 128
#else
#define MRVL_DEPTHWISE_BLOCKED_PREFETCH 0
#endif
/* The largest stride at which a tile of the channel-blocked conv loads each input position of a
 * kernel row once for all its windows (depthwise_blocked_tile_rows; 0: never). Measured on a
 * Zen 4 (5x5 on 240 x 28 x 28: 221 -> 190 us native, 236 -> 193 us at AVX2; 5x5/2 on
 * 144 x 56 x 56 at AVX2 237 -> 214 us, but native 223 -> 293 us); N2's llvm-mca gives the
 * one-load-a-tap loop 100% of its peak and this one 75-83%. */
#if defined(__AVX512F__)
#define MRVL_DEPTHWISE_BLOCKED_SHARED_STRIDE 1
#elif defined(__AVX2__)
#define MRVL_DEPTHWISE_BLOCKED_SHARED_STRIDE 2
#else
#define MRVL_DEPTHWISE_BLOCKED_SHARED_STRIDE 0
#endif

/* --- Winograd convolution (mrvl_kernels_winograd.c) ------------------------------------ */

/* Output channels of a panel of the transformed weights: the widest MRVL_FLAT_MR, the same on
 * every target since they are packed at compile time (a 4-row tile reads half a panel). */
#define MRVL_WINOGRAD_PANEL 8 /* not to be overridden: host_kernels.py reads it */
/* The floats of a block's V and M (16 x (input + output channels) a tile) at most, unless a
 * block is one tile row: three quarters of the Zen 4's L2, where a block stays from transform
 * to transform. The transformed weights are read once a block: fewer tiles a block cost more
 * (ResNet's 3x3 convs at AVX2: 128 channels at 28 x 28 1710 us in blocks of 28 tiles, 1558 us
 * of 42; but 256 at 14 x 14 2600 us in blocks of 35 tiles, 1980 us of 21, past the L2). */
#define MRVL_WINOGRAD_BLOCK_FLOATS 196608
/* Floats past each element's V and M in a block, so that the 16 rows a transform writes (or
 * reads) at once lie in different cache sets: V of 64 channels is 24 KiB an element, and 16 rows
 * that far apart share one set of the L1 (8 ways). */
#define MRVL_WINOGRAD_SKEW 16
/* Slots of scratch, each a block's: the tasks a conv is split into at most. */
#define MRVL_WINOGRAD_SLOTS 8

/* --- Integer depthwise convolution (mrvl_kernels_qdepthwise.c) ----------------------- */

/* Output positions summed at once: a target's registers of int32 sums (2 zmm; AVX2 twice 2
 * ymm; NEON 8 q-registers), the same on every target since the scratch is sized for whole
 * chunks (host_kernels.py qconv_scratch_bytes). */
#define MRVL_QDW_CHUNK 32

#endif
