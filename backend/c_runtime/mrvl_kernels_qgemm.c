/* mrvl_kernels_qgemm.c: int8 convolution (cpu.qlinear_conv: ONNX QLinearConv, and a host
 * DequantizeLinear -> Conv -> QuantizeLinear group) on an int8 x int8 -> int32 GEMM, with the
 * requantization fused into the store of each tile.
 *
 * Everything runs on uint8 activations and int8 weights, the operands of the dot-product
 * instructions (x86 vpdpbusd, Arm usdot): int8 activations are read flipped (x ^ 0x80 =
 * x + 128, with the zero point moved by 128 too) and uint8 weights are packed at compile
 * time as w - 128 (their zero point moved by -128). With u = x + shift and w' the packed
 * weights, zu and zw' the moved zero points, the sum ONNX defines is
 *     sum_k (u - zu)(w' - zw') = sum_k u w' - zu sum_k w' - zw' sum_k u + K zu zw',
 * the first term the GEMM's, the second and fourth constant per output channel, the third
 * (only with a nonzero zw') per output position. A padded position reads the input's zero
 * point, so it adds nothing, as ONNX's zero padding of x - x_zero_point does.
 *
 * The requantization is onnxruntime's (MLAS): the multiplier x_scale * w_scale / y_scale in
 * float32, the int32 sum (bias included) converted to float32 and times the multiplier,
 * clamped to the output range less the zero point, rounded halves to even, plus the zero
 * point. A fused Relu or Clip narrows the output range.
 *
 * Weights (target/host_kernels.py pack_qconv_weights): for the GEMM, per group, panels of
 * MRVL_QGEMM_PANEL output channels, each (K4, PANEL, 4) with K4 = quads * kh * kw: the input
 * channels in quads (the last completed with zeros), quad by quad the four channels of each
 * tap next to each other, the panels zero-padded to whole, each followed by its rows' int32
 * sums; for the depthwise kernel, (M, kh * kw). The activations are interleaved the same way
 * once per image and group, not per tile (`qconv_quad_planes`): four channels' bytes of a
 * position side by side, in the input's planes (a 1x1 conv of stride 1 without padding),
 * else in the zero-padded planes split into stride phases, so each tap reads one run of
 * positions from its offset, a tile of MRVL_QGEMM_NR positions a contiguous load.
 *
 * Two tile shapes: MRVL_QGEMM_MR rows of a panel by MRVL_QGEMM_NR positions, the positions in
 * the vector lanes and a weight's four bytes broadcast; on small planes (qgemm_channel_tiles_pay)
 * MRVL_QGEMM_CHANNEL_POSITIONS positions by whole panels, the output channels in the lanes and
 * a position's four bytes broadcast, so that only output positions are computed, not the
 * planes' padding columns nor a last tile's positions past the end.
 *
 * Included by mrvl_kernels.c after the float families (mrvl_kernels_internal.h: intrinsics,
 * MRVL_UNROLL). */

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define MRVL_QGEMM_AVX512_VNNI 1
#elif defined(__AVXVNNI__)
#define MRVL_QGEMM_AVX_VNNI 1
#elif defined(__AVX2__)
#define MRVL_QGEMM_AVX2 1
#elif defined(__aarch64__) && defined(__ARM_FEATURE_MATMUL_INT8)
#define MRVL_QGEMM_USDOT 1
#endif
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

typedef struct {
    int64_t n, c, h, w, m, kh, kw, oh, ow, group;
    int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
    int x_signed;        /* X (and its zero point) int8, else uint8 */
    int y_signed;        /* Y (and its zero point) int8, else uint8 */
    int w_shift;         /* 128 when W was uint8 (packed as w - 128), else 0 */
    int w_scale_channels; /* a weight scale per output channel, else one */
    int w_zero_channels; /* a weight zero point per output channel, else one */
    int depthwise;       /* one input and one output channel per group: weights (M, kh * kw) */
    int32_t y_min, y_max; /* the output range: the type's, narrowed by a fused Relu or Clip */
} mrvl_qconv_params;

/* One tile of int32 sums: tile[r * NR + p] = sum over the panel's K4 = runs * steps steps of
 * w[q, r, ..] * a[.., p, ..], w a panel (K4, MR, 4) of int8 and the activations read in place
 * from the quad planes (`qconv_quad_planes`): step q = run * steps + s reads NR positions of 4
 * bytes at a + run * run_stride + offset[s] (runs the quads and steps the taps, or for a conv
 * of one tap, one run whose steps are the quads). */
#if defined(MRVL_QGEMM_AVX512_VNNI)
/* The tile's sums in registers (once inlined): sum[r][v] for rows r, 16 positions per v, each
 * from start[r] (from 0 without `start`). */
static MRVL_ALWAYS_INLINE void qgemm_sums(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride,
                                          const int8_t *w, const uint8_t *a, const int32_t *start,
                                          __m512i sum[MRVL_QGEMM_MR][2])
{
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++)
        sum[r][0] = sum[r][1] = start ? _mm512_set1_epi32(start[r]) : _mm512_setzero_si512();
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL) {
            const __m512i a0 = _mm512_loadu_si512(a + offset[s]);
            const __m512i a1 = _mm512_loadu_si512(a + offset[s] + 64);
            /* the next run's bytes of this step, a plane away, which the prefetchers miss */
            _mm_prefetch((const char *)(a + run_stride + offset[s]), _MM_HINT_T0);
            _mm_prefetch((const char *)(a + run_stride + offset[s] + 64), _MM_HINT_T0);
            MRVL_UNROLL
            for (int r = 0; r < MRVL_QGEMM_MR; r++) {
                int32_t quad;
                memcpy(&quad, w + r * 4, 4);
                const __m512i wb = _mm512_set1_epi32(quad);
                sum[r][0] = _mm512_dpbusd_epi32(sum[r][0], a0, wb);
                sum[r][1] = _mm512_dpbusd_epi32(sum[r][1], a1, wb);
            }
        }
}

static void qgemm_tile(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                       const uint8_t *a, int32_t *tile)
{
    __m512i sum[MRVL_QGEMM_MR][2];
    qgemm_sums(runs, steps, offset, run_stride, w, a, NULL, sum);
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) {
        _mm512_storeu_si512(tile + r * MRVL_QGEMM_NR, sum[r][0]);
        _mm512_storeu_si512(tile + r * MRVL_QGEMM_NR + 16, sum[r][1]);
    }
}

/* qgemm_tile with the requantization (qconv_requantize's, without column sums) done on the
 * sums in registers, the first `count` positions of the first `height` rows stored a row_stride
 * apart (masked: a partial tile writes nothing past them): the sums from add[r], in float32
 * times multiplier[r], at most hi less the zero point (so no conversion overflows upwards; one
 * below int32 saturates downwards), rounded by the default rounding mode (halves to even),
 * plus the zero point and narrowed with saturation two rows at a time (mrvl_narrow64), at least
 * lo. Rounding and then clamping to the integer bounds equals clamping and then rounding. */
#define MRVL_QGEMM_FUSED_STORE 1
#if MRVL_QGEMM_MR % 2
#error "qgemm_tile_requantized narrows the tile's rows in pairs"
#endif
static void qgemm_tile_requantized(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride,
                                   const int8_t *w, const uint8_t *a, int64_t height, int64_t count,
                                   const int32_t *add, const float *multiplier, int32_t zero_point, int y_signed,
                                   int32_t lo, int32_t hi, uint8_t *y, int64_t row_stride)
{
    __m512i sum[MRVL_QGEMM_MR][2];
    qgemm_sums(runs, steps, offset, run_stride, w, a, add, sum);
    const __m512 high = _mm512_set1_ps((float)(hi - zero_point));
    const __m512i zp16 = _mm512_set1_epi16((int16_t)zero_point), low = _mm512_set1_epi8((char)lo);
    const __mmask32 stored = count >= 32 ? (__mmask32)0xffffffffu : (__mmask32)((1u << count) - 1);
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r += 2) {
        if (r >= height) break;
        __m512i q[4];
        MRVL_UNROLL
        for (int v = 0; v < 4; v++) {
            const __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(sum[r + v / 2][v % 2]),
                                           _mm512_set1_ps(multiplier[r + v / 2]));
            q[v] = _mm512_cvtps_epi32(_mm512_min_ps(high, f));
        }
        __m512i bytes = mrvl_narrow64(q[0], q[1], q[2], q[3], zp16, y_signed);
        bytes = y_signed ? _mm512_max_epi8(bytes, low) : _mm512_max_epu8(bytes, low);
        _mm256_mask_storeu_epi8(y + r * row_stride, stored, _mm512_castsi512_si256(bytes));
        if (r + 1 < height)
            _mm256_mask_storeu_epi8(y + (r + 1) * row_stride, stored, _mm512_extracti64x4_epi64(bytes, 1));
    }
}

/* The sums of a panel's rows at one position of a 1x1 conv, the quads of its K4 = `quads`
 * steps `quad_stride` apart from a: sum[r] = sum over q of w[q, r, ..] * a[q * quad_stride ..].
 * A tile of NR positions would leave all but a few of its lanes idle (a classifier on one
 * image has one position): here each vpdpbusd takes one step of the panel's 16 rows. */
#define MRVL_QGEMM_MATRIX_VECTOR 1
static void qgemv_panel(int64_t quads, int64_t quad_stride, const int8_t *w, const uint8_t *a,
                        int32_t sum[MRVL_QGEMM_PANEL])
{
    /* four chains of sums, so that each vpdpbusd waits on one four back */
    __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    int64_t q = 0;
    for (; q + 4 <= quads; q += 4, w += 16 * MRVL_QGEMM_PANEL)
        MRVL_UNROLL
        for (int j = 0; j < 4; j++) {
            int32_t quad;
            memcpy(&quad, a + (q + j) * quad_stride, 4);
            const __m512i wv = _mm512_loadu_si512(w + 4 * MRVL_QGEMM_PANEL * j);
            acc[j] = _mm512_dpbusd_epi32(acc[j], _mm512_set1_epi32(quad), wv);
        }
    for (; q < quads; q++, w += 4 * MRVL_QGEMM_PANEL) {
        int32_t quad;
        memcpy(&quad, a + q * quad_stride, 4);
        acc[0] = _mm512_dpbusd_epi32(acc[0], _mm512_set1_epi32(quad), _mm512_loadu_si512(w));
    }
    _mm512_storeu_si512(sum, _mm512_add_epi32(_mm512_add_epi32(acc[0], acc[1]), _mm512_add_epi32(acc[2], acc[3])));
}

/* The channel tile's sums in registers (once inlined): sum[j][v] for `positions` positions j
 * and the 16 rows of panel v, `panels` of them panel_bytes apart from w (both constants), each
 * from start[v]'s lanes. */
static MRVL_ALWAYS_INLINE void qgemm_channel_vectors(const int panels, const int positions, int64_t runs, int64_t steps,
                                                     const int64_t *offset, int64_t run_stride, const int8_t *w,
                                                     int64_t panel_bytes, const uint8_t *a, const int64_t *place,
                                                     const __m512i start[MRVL_QGEMM_CHANNEL_PANELS],
                                                     __m512i sum[][MRVL_QGEMM_CHANNEL_PANELS])
{
    MRVL_UNROLL
    for (int j = 0; j < positions; j++)
        MRVL_UNROLL
        for (int v = 0; v < panels; v++) sum[j][v] = start[v];
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL) {
            const uint8_t *step = a + offset[s];
            __m512i wv[MRVL_QGEMM_CHANNEL_PANELS];
            MRVL_UNROLL
            for (int v = 0; v < panels; v++) wv[v] = _mm512_loadu_si512(w + v * panel_bytes);
            MRVL_UNROLL
            for (int j = 0; j < positions; j++) {
                int32_t quad;
                memcpy(&quad, step + place[j], 4);
                const __m512i ab = _mm512_set1_epi32(quad);
                MRVL_UNROLL
                for (int v = 0; v < panels; v++) sum[j][v] = _mm512_dpbusd_epi32(sum[j][v], ab, wv[v]);
            }
        }
}

/* The first `height` of 16 rows of `count` (at most 8) bytes, row_stride apart at y, from the
 * bytes of positions 0, 2, 4, 6 (`even`, 16 rows each) and 1, 3, 5, 7 (`odd`): an 8 x 16
 * transpose of bytes. Interleaving the two gives each 128-bit lane L the pairs of positions
 * 2L and 2L + 1, row by row; one permutation of 16-bit pairs then puts a row's four pairs side
 * by side, rows 0-7 from the low halves of the lanes and rows 8-15 from the high ones. */
static MRVL_ALWAYS_INLINE void qgemm_channel_store(__m512i even, __m512i odd, int64_t count, int64_t height,
                                                   uint8_t *y, int64_t row_stride)
{
    const __m512i rows_of_pairs = _mm512_set_epi16(31, 23, 15, 7, 30, 22, 14, 6, 29, 21, 13, 5, 28, 20, 12, 4, 27, 19,
                                                   11, 3, 26, 18, 10, 2, 25, 17, 9, 1, 24, 16, 8, 0);
    const __m512i rows[2] = {_mm512_permutexvar_epi16(rows_of_pairs, _mm512_unpacklo_epi8(even, odd)),
                             _mm512_permutexvar_epi16(rows_of_pairs, _mm512_unpackhi_epi8(even, odd))};
    /* row l is the 8 bytes of rows[l / 8] at 8 * (l % 8); the odd ones stored from 8 bytes back */
    const __mmask16 stored = (__mmask16)((1u << count) - 1);
    const __m128i lanes[8] = {_mm512_castsi512_si128(rows[0]),         _mm512_extracti32x4_epi32(rows[0], 1),
                              _mm512_extracti32x4_epi32(rows[0], 2), _mm512_extracti32x4_epi32(rows[0], 3),
                              _mm512_castsi512_si128(rows[1]),         _mm512_extracti32x4_epi32(rows[1], 1),
                              _mm512_extracti32x4_epi32(rows[1], 2), _mm512_extracti32x4_epi32(rows[1], 3)};
    for (int l = 0; l < 16 && l < height; l += 2) {
        const __m128i two = lanes[l / 2];
        _mm_mask_storeu_epi8(y + l * row_stride, stored, two);
        if (l + 1 < height) _mm_mask_storeu_epi8(y + (l + 1) * row_stride - 8, (__mmask16)(stored << 8), two);
    }
}

/* A channel tile of `panels` panels by `positions` positions (constants) requantized: the
 * first `count` positions of its first `height` rows stored at y, row_stride apart
 * (qgemm_tile_requantized's arithmetic on a panel's 16 rows at once; with column sums, their
 * weight zero points' term). */
static MRVL_ALWAYS_INLINE void qgemm_channel_tile_panels(const int panels, const int positions, int64_t runs,
                                                         int64_t steps, const int64_t *offset, int64_t run_stride,
                                                         const int8_t *w, int64_t panel_bytes, const uint8_t *a,
                                                         const int64_t *place, const int32_t *column_sums,
                                                         int64_t height, int64_t count, const int32_t *add,
                                                         const int32_t *zw, const float *multiplier,
                                                         int32_t zero_point, int y_signed, int32_t lo, int32_t hi,
                                                         uint8_t *y, int64_t row_stride)
{
    __mmask16 valid[MRVL_QGEMM_CHANNEL_PANELS];
    __m512i start[MRVL_QGEMM_CHANNEL_PANELS];
    MRVL_UNROLL
    for (int v = 0; v < panels; v++) {
        const int64_t rows = height - 16 * v;
        valid[v] = (__mmask16)(rows >= 16 ? 0xffff : rows <= 0 ? 0 : (1u << rows) - 1);
        start[v] = _mm512_maskz_loadu_epi32(valid[v], add + 16 * v);
    }
    __m512i sum[MRVL_QGEMM_CHANNEL_POSITIONS][MRVL_QGEMM_CHANNEL_PANELS];
    qgemm_channel_vectors(panels, positions, runs, steps, offset, run_stride, w, panel_bytes, a, place, start, sum);
    const __m512 high = _mm512_set1_ps((float)(hi - zero_point));
    const __m512i zp16 = _mm512_set1_epi16((int16_t)zero_point), low = _mm512_set1_epi8((char)lo);
    MRVL_UNROLL
    for (int v = 0; v < panels; v++) {
        if (16 * v >= height) break;
        const __m512i zw_v = _mm512_maskz_loadu_epi32(valid[v], zw + 16 * v);
        const __m512 scale = _mm512_maskz_loadu_ps(valid[v], multiplier + 16 * v);
        __m512i q[8];
        MRVL_UNROLL
        for (int j = 0; j < positions; j++) {
            __m512i total = sum[j][v];
            if (column_sums)
                total = _mm512_sub_epi32(total, _mm512_mullo_epi32(zw_v, _mm512_set1_epi32(column_sums[j])));
            q[j] = _mm512_cvtps_epi32(_mm512_min_ps(high, _mm512_mul_ps(_mm512_cvtepi32_ps(total), scale)));
        }
        for (int j = positions; j < 8; j++) q[j] = q[0];
        __m512i even = mrvl_narrow64(q[0], q[2], q[4], q[6], zp16, y_signed);
        __m512i odd = mrvl_narrow64(q[1], q[3], q[5], q[7], zp16, y_signed);
        even = y_signed ? _mm512_max_epi8(even, low) : _mm512_max_epu8(even, low);
        odd = y_signed ? _mm512_max_epi8(odd, low) : _mm512_max_epu8(odd, low);
        qgemm_channel_store(even, odd, count, height - 16 * v, y + 16 * v * row_stride, row_stride);
    }
}

/* qgemm_channel_tile_panels for 1 to MRVL_QGEMM_CHANNEL_PANELS panels; a last tile of fewer
 * positions on 2 or 4 of them, not 6 (a 7x7 plane's last tile has one position: its sums were
 * a ninth of the conv's). */
#define MRVL_QGEMM_CHANNEL_FUSED 1
#if MRVL_QGEMM_CHANNEL_POSITIONS != 6 || MRVL_QGEMM_CHANNEL_PANELS != 4
#error "qgemm_channel_tile_requantized takes tiles of 2, 4 and 6 positions by 1 to 4 panels"
#endif
static void qgemm_channel_tile_requantized(int64_t panels, int64_t runs, int64_t steps, const int64_t *offset,
                                           int64_t run_stride, const int8_t *w, int64_t panel_bytes, const uint8_t *a,
                                           const int64_t *place, const int32_t *column_sums, int64_t height,
                                           int64_t count, const int32_t *add, const int32_t *zw,
                                           const float *multiplier, int32_t zero_point, int y_signed, int32_t lo,
                                           int32_t hi, uint8_t *y, int64_t row_stride)
{
#define MRVL_QGEMM_CHANNEL_TILE(n, positions)                                                                   \
    qgemm_channel_tile_panels(n, positions, runs, steps, offset, run_stride, w, panel_bytes, a, place,         \
                              column_sums, height, count, add, zw, multiplier, zero_point, y_signed, lo, hi, y,  \
                              row_stride)
#define MRVL_QGEMM_CHANNEL_CASE(n)                                                                              \
    case n:                                                                                                     \
        if (count <= 2)                                                                                         \
            MRVL_QGEMM_CHANNEL_TILE(n, 2);                                                                      \
        else if (count <= 4)                                                                                    \
            MRVL_QGEMM_CHANNEL_TILE(n, 4);                                                                      \
        else                                                                                                    \
            MRVL_QGEMM_CHANNEL_TILE(n, 6);                                                                      \
        break
    switch (panels) {
        MRVL_QGEMM_CHANNEL_CASE(1);
        MRVL_QGEMM_CHANNEL_CASE(2);
        MRVL_QGEMM_CHANNEL_CASE(3);
        default:
            MRVL_QGEMM_CHANNEL_CASE(4);
    }
#undef MRVL_QGEMM_CHANNEL_CASE
#undef MRVL_QGEMM_CHANNEL_TILE
}
#elif defined(MRVL_QGEMM_AVX_VNNI) || defined(MRVL_QGEMM_AVX2)
static void qgemm_tile(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                       const uint8_t *a, int32_t *tile)
{
    __m256i sum[MRVL_QGEMM_MR];
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) sum[r] = _mm256_setzero_si256();
#if defined(MRVL_QGEMM_AVX2)
    const __m256i low_bytes = _mm256_set1_epi16(0xff);
#endif
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL) {
            const __m256i av = _mm256_loadu_si256((const __m256i *)(const void *)(a + offset[s]));
#if defined(MRVL_QGEMM_AVX2)
            /* Without VNNI, exactly: pmaddwd on 16-bit halves (vpmaddubsw's int16 sums of two
             * u8 x s8 products would saturate). Even k of each quad in the low byte of each
             * 16-bit lane, odd k in the high byte. */
            const __m256i a_even = _mm256_and_si256(av, low_bytes), a_odd = _mm256_srli_epi16(av, 8);
#endif
            MRVL_UNROLL
            for (int r = 0; r < MRVL_QGEMM_MR; r++) {
                int32_t quad;
                memcpy(&quad, w + r * 4, 4);
                const __m256i wb = _mm256_set1_epi32(quad);
#if defined(MRVL_QGEMM_AVX_VNNI)
                sum[r] = _mm256_dpbusd_avx_epi32(sum[r], av, wb);
#else
                const __m256i w_even = _mm256_srai_epi16(_mm256_slli_epi16(wb, 8), 8), w_odd = _mm256_srai_epi16(wb, 8);
                sum[r] = _mm256_add_epi32(sum[r], _mm256_add_epi32(_mm256_madd_epi16(a_even, w_even),
                                                                   _mm256_madd_epi16(a_odd, w_odd)));
#endif
            }
        }
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) _mm256_storeu_si256((__m256i *)(void *)(tile + r * MRVL_QGEMM_NR), sum[r]);
}

/* The channel tile's sums (see the channel tile of AVX-512): tile[j * MRVL_QGEMM_PANEL + r] for
 * positions j and the panel's rows r, 8 rows a vector. */
static void qgemm_channel_sums(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                               const uint8_t *a, const int64_t *place, int32_t *tile)
{
    __m256i sum[MRVL_QGEMM_CHANNEL_POSITIONS][2];
    MRVL_UNROLL
    for (int j = 0; j < MRVL_QGEMM_CHANNEL_POSITIONS; j++) sum[j][0] = sum[j][1] = _mm256_setzero_si256();
#if defined(MRVL_QGEMM_AVX2)
    const __m256i low_bytes = _mm256_set1_epi16(0xff);
#endif
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL) {
            const uint8_t *step = a + offset[s];
            __m256i wv[2];
            MRVL_UNROLL
            for (int v = 0; v < 2; v++) wv[v] = _mm256_loadu_si256((const __m256i *)(const void *)(w + 32 * v));
#if defined(MRVL_QGEMM_AVX2)
            /* qgemm_tile's pmaddwd on 16-bit halves */
            __m256i w_even[2], w_odd[2];
            MRVL_UNROLL
            for (int v = 0; v < 2; v++) {
                w_even[v] = _mm256_srai_epi16(_mm256_slli_epi16(wv[v], 8), 8);
                w_odd[v] = _mm256_srai_epi16(wv[v], 8);
            }
#endif
            MRVL_UNROLL
            for (int j = 0; j < MRVL_QGEMM_CHANNEL_POSITIONS; j++) {
                int32_t quad;
                memcpy(&quad, step + place[j], 4);
                const __m256i ab = _mm256_set1_epi32(quad);
#if defined(MRVL_QGEMM_AVX_VNNI)
                MRVL_UNROLL
                for (int v = 0; v < 2; v++) sum[j][v] = _mm256_dpbusd_avx_epi32(sum[j][v], ab, wv[v]);
#else
                const __m256i a_even = _mm256_and_si256(ab, low_bytes), a_odd = _mm256_srli_epi16(ab, 8);
                MRVL_UNROLL
                for (int v = 0; v < 2; v++)
                    sum[j][v] = _mm256_add_epi32(sum[j][v], _mm256_add_epi32(_mm256_madd_epi16(a_even, w_even[v]),
                                                                             _mm256_madd_epi16(a_odd, w_odd[v])));
#endif
            }
        }
    MRVL_UNROLL
    for (int j = 0; j < MRVL_QGEMM_CHANNEL_POSITIONS; j++)
        MRVL_UNROLL
        for (int v = 0; v < 2; v++)
            _mm256_storeu_si256((__m256i *)(void *)(tile + j * MRVL_QGEMM_PANEL + 8 * v), sum[j][v]);
}
#elif defined(MRVL_QGEMM_USDOT)
/* usdot by lane: each of the two weight vectors holds the quads of four channels. */
#define MRVL_QGEMM_USDOT_ROW(r, wv, lane)                                                        \
    sum[r][0] = vusdotq_laneq_s32(sum[r][0], a0, wv, lane);                                     \
    sum[r][1] = vusdotq_laneq_s32(sum[r][1], a1, wv, lane)
static void qgemm_tile(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                       const uint8_t *a, int32_t *tile)
{
    int32x4_t sum[MRVL_QGEMM_MR][2];
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) sum[r][0] = sum[r][1] = vdupq_n_s32(0);
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL) {
            const uint8x16_t a0 = vld1q_u8(a + offset[s]), a1 = vld1q_u8(a + offset[s] + 16);
            const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + 16);
            MRVL_QGEMM_USDOT_ROW(0, w0, 0);
            MRVL_QGEMM_USDOT_ROW(1, w0, 1);
            MRVL_QGEMM_USDOT_ROW(2, w0, 2);
            MRVL_QGEMM_USDOT_ROW(3, w0, 3);
            MRVL_QGEMM_USDOT_ROW(4, w1, 0);
            MRVL_QGEMM_USDOT_ROW(5, w1, 1);
            MRVL_QGEMM_USDOT_ROW(6, w1, 2);
            MRVL_QGEMM_USDOT_ROW(7, w1, 3);
        }
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) {
        vst1q_s32(tile + r * MRVL_QGEMM_NR, sum[r][0]);
        vst1q_s32(tile + r * MRVL_QGEMM_NR + 4, sum[r][1]);
    }
}
#undef MRVL_QGEMM_USDOT_ROW

/* The channel tile's sums (see the channel tile of AVX-512): tile[j * MRVL_QGEMM_PANEL + r] for
 * positions j and the panel's rows r, 4 rows a vector; the four positions' quads in the lanes of
 * one vector, each multiplied by sudot by lane. */
#if MRVL_QGEMM_CHANNEL_POSITIONS != 4
#error "qgemm_channel_sums takes the quads of four positions, the lanes of one vector"
#endif
#define MRVL_QGEMM_SUDOT_POSITION(j)                                                                    \
    MRVL_UNROLL                                                                                         \
    for (int v = 0; v < 4; v++) sum[j][v] = vsudotq_laneq_s32(sum[j][v], wv[v], ab, j)
static void qgemm_channel_sums(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                               const uint8_t *a, const int64_t *place, int32_t *tile)
{
    int32x4_t sum[4][4];
    MRVL_UNROLL
    for (int j = 0; j < 4; j++)
        MRVL_UNROLL
        for (int v = 0; v < 4; v++) sum[j][v] = vdupq_n_s32(0);
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL) {
            const uint8_t *step = a + offset[s];
            int8x16_t wv[4];
            MRVL_UNROLL
            for (int v = 0; v < 4; v++) wv[v] = vld1q_s8(w + 16 * v);
            uint32_t quads[4];
            MRVL_UNROLL
            for (int j = 0; j < 4; j++) memcpy(&quads[j], step + place[j], 4);
            const uint8x16_t ab = vreinterpretq_u8_u32(vld1q_u32(quads));
            MRVL_QGEMM_SUDOT_POSITION(0);
            MRVL_QGEMM_SUDOT_POSITION(1);
            MRVL_QGEMM_SUDOT_POSITION(2);
            MRVL_QGEMM_SUDOT_POSITION(3);
        }
    MRVL_UNROLL
    for (int j = 0; j < 4; j++)
        MRVL_UNROLL
        for (int v = 0; v < 4; v++) vst1q_s32(tile + j * MRVL_QGEMM_PANEL + 4 * v, sum[j][v]);
}
#undef MRVL_QGEMM_SUDOT_POSITION
#else
static void qgemm_tile(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                       const uint8_t *a, int32_t *tile)
{
    int32_t sum[MRVL_QGEMM_MR][MRVL_QGEMM_NR] = {{0}};
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL)
            for (int r = 0; r < MRVL_QGEMM_MR; r++)
                for (int p = 0; p < MRVL_QGEMM_NR; p++)
                    for (int j = 0; j < 4; j++)
                        sum[r][p] += (int32_t)w[r * 4 + j] * (int32_t)a[offset[s] + p * 4 + j];
    memcpy(tile, sum, sizeof sum);
}

/* The channel tile's sums (see the channel tile of AVX-512): tile[j * MRVL_QGEMM_PANEL + r] for
 * positions j and the panel's rows r. */
static void qgemm_channel_sums(int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride, const int8_t *w,
                               const uint8_t *a, const int64_t *place, int32_t *tile)
{
    int32_t sum[MRVL_QGEMM_CHANNEL_POSITIONS][MRVL_QGEMM_PANEL] = {{0}};
    for (int64_t run = 0; run < runs; run++, a += run_stride)
        for (int64_t s = 0; s < steps; s++, w += 4 * MRVL_QGEMM_PANEL)
            for (int j = 0; j < MRVL_QGEMM_CHANNEL_POSITIONS; j++)
                for (int r = 0; r < MRVL_QGEMM_PANEL; r++)
                    for (int k = 0; k < 4; k++)
                        sum[j][r] += (int32_t)w[r * 4 + k] * (int32_t)a[offset[s] + place[j] + k];
    memcpy(tile, sum, sizeof sum);
}
#endif
/* Requantizes `count` sums of one output channel into y (see the file's comment): `add` is the
 * channel's constant term (bias and zero-point terms), `zw` times column_sums[i] (when given)
 * the position's. */
static void qconv_requantize(int64_t count, const int32_t *restrict sums, int32_t add, int32_t zw,
                             const int32_t *restrict column_sums, float multiplier, int32_t zero_point,
                             int32_t lo, int32_t hi, uint8_t *restrict y)
{
    const float low = (float)(lo - zero_point), high = (float)(hi - zero_point);
    if (column_sums && zw) {
        for (int64_t i = 0; i < count; i++) {
            float v = (float)(sums[i] + add - zw * column_sums[i]) * multiplier;
            v = v < low ? low : v;
            v = v > high ? high : v;
            y[i] = (uint8_t)((int32_t)rintf(v) + zero_point);
        }
        return;
    }
    for (int64_t i = 0; i < count; i++) {
        float v = (float)(sums[i] + add) * multiplier;
        v = v < low ? low : v;
        v = v > high ? high : v;
        y[i] = (uint8_t)((int32_t)rintf(v) + zero_point);
    }
}

#if !defined(MRVL_QGEMM_CHANNEL_FUSED)
#if MRVL_QGEMM_CHANNEL_PANELS != 1 || MRVL_QGEMM_CHANNEL_POSITIONS * MRVL_QGEMM_PANEL > MRVL_QGEMM_MR * MRVL_QGEMM_NR
#error "qgemm_channel_sums sums one panel into the scratch's tile of MRVL_QGEMM_MR x MRVL_QGEMM_NR sums"
#endif
/* A channel tile's sums (qgemm_channel_sums) requantized: the first `count` positions of its
 * first `height` rows stored at y, row_stride apart; column_sums (when given) the positions'. */
static void qgemm_channel_requantize(const int32_t *tile, const int32_t *column_sums, int64_t height, int64_t count,
                                     const int32_t *add, const int32_t *zw, const float *multiplier,
                                     int32_t zero_point, int32_t lo, int32_t hi, uint8_t *y, int64_t row_stride)
{
    for (int64_t r = 0; r < height; r++)
        for (int64_t j = 0; j < count; j++)
            qconv_requantize(1, tile + j * MRVL_QGEMM_PANEL + r, add[r], zw[r], column_sums ? column_sums + j : NULL,
                             multiplier[r], zero_point, lo, hi, y + r * row_stride + j);
}
#endif

/* Four rows of 16 bytes, flipped by `flip`, interleaved: out[4 p + j] = row j's byte p. */
static MRVL_ALWAYS_INLINE void qconv_interleave16(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                                  const uint8_t *r3, uint8_t flip, uint8_t *out)
{
#if defined(__SSE2__)
    const __m128i f = _mm_set1_epi8((char)flip);
    const __m128i a = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)r0), f);
    const __m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)r1), f);
    const __m128i c = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)r2), f);
    const __m128i d = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)r3), f);
    const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
    const __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_unpacklo_epi16(ab_lo, cd_lo));
    _mm_storeu_si128((__m128i *)(void *)(out + 16), _mm_unpackhi_epi16(ab_lo, cd_lo));
    _mm_storeu_si128((__m128i *)(void *)(out + 32), _mm_unpacklo_epi16(ab_hi, cd_hi));
    _mm_storeu_si128((__m128i *)(void *)(out + 48), _mm_unpackhi_epi16(ab_hi, cd_hi));
#elif defined(__aarch64__)
    const uint8x16_t f = vdupq_n_u8(flip);
    uint8x16x4_t rows;
    rows.val[0] = veorq_u8(vld1q_u8(r0), f);
    rows.val[1] = veorq_u8(vld1q_u8(r1), f);
    rows.val[2] = veorq_u8(vld1q_u8(r2), f);
    rows.val[3] = veorq_u8(vld1q_u8(r3), f);
    vst4q_u8(out, rows);
#else
    for (int p = 0; p < 16; p++) {
        out[4 * p] = r0[p] ^ flip;
        out[4 * p + 1] = r1[p] ^ flip;
        out[4 * p + 2] = r2[p] ^ flip;
        out[4 * p + 3] = r3[p] ^ flip;
    }
#endif
}

/* Four runs of n bytes, flipped by `flip`, interleaved: out[4 p + j] = run j's byte p. */
static void qconv_interleave(int64_t n, const uint8_t *r0, const uint8_t *r1, const uint8_t *r2, const uint8_t *r3,
                             uint8_t flip, uint8_t *out)
{
    int64_t p = 0;
    for (; p + 16 <= n; p += 16) qconv_interleave16(r0 + p, r1 + p, r2 + p, r3 + p, flip, out + 4 * p);
    for (; p < n; p++) {
        out[4 * p] = r0[p] ^ flip;
        out[4 * p + 1] = r1[p] ^ flip;
        out[4 * p + 2] = r2[p] ^ flip;
        out[4 * p + 3] = r3[p] ^ flip;
    }
}

/* n four-byte positions from every second of src's: out[4 j + k] = src[8 j + k]. The vectors
 * read one position past the last (2 n - 1). */
static void qconv_every_second(int64_t n, const uint8_t *src, uint8_t *out)
{
    int64_t j = 0;
#if defined(__SSE2__)
    for (; j + 4 <= n; j += 4) {
        const __m128 a = _mm_loadu_ps((const float *)(const void *)(src + 8 * j));
        const __m128 b = _mm_loadu_ps((const float *)(const void *)(src + 8 * j + 16));
        _mm_storeu_ps((float *)(void *)(out + 4 * j), _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
    }
#elif defined(__aarch64__)
    for (; j + 4 <= n; j += 4)
        vst1q_u32((uint32_t *)(void *)(out + 4 * j), vld2q_u32((const uint32_t *)(const void *)(src + 8 * j)).val[0]);
#endif
    for (; j < n; j++) memcpy(out + 4 * j, src + 8 * j, 4);
}

/* Whether some tap of a conv's window (kernel taps `dilation` apart) lands on phase `phase` of
 * `stride`: only those phases are built. */
static int qconv_phase_used(int64_t phase, int64_t stride, int64_t kernel, int64_t dilation)
{
    for (int64_t t = 0; t < kernel && t < stride; t++)
        if (t * dilation % stride == phase) return 1;
    return 0;
}

/* The quad planes of one image and group, the GEMM's activations read in place: the input
 * channels in quads (the last one completed with zeros), each quad's four planes interleaved
 * and flipped, quad cq's byte 4 i + j channel 4 cq + j's byte i, at cq * 4 * area. The planes
 * are the input's (`direct`), else the zero-padded planes (the zero point's byte) split into
 * stride phases: phase (a, b) holds the padded plane's rows a, a + stride_h, ... and columns
 * b, b + stride_w, ..., `height` rows of `width` positions, at (a * stride_w + b) * height *
 * width, so that tap (u, v) reads, for the output positions r * width + col, one run: its
 * phase from row u * dilation_h / stride_h, column v * dilation_w / stride_w (the positions
 * with col >= ow are computed and dropped). Four consecutive k of the packed weights (four
 * channels at one tap) then meet four bytes of one position, and each tap of a tile reads
 * one contiguous run: nothing is packed per tile. `fill` holds a missing channel's plane
 * (`area` bytes for a direct conv), else first a quad's four planes interleaved (4 h w bytes,
 * the plane after them what qconv_every_second reads past their end). */
static void qconv_quad_planes(const mrvl_qconv_params *p, const uint8_t *planes, int direct, uint8_t pad, uint8_t flip,
                              int64_t width, int64_t height, int64_t area, uint8_t *quad_planes, uint8_t *fill)
{
    const int64_t cg = p->c / p->group, quads = (cg + 3) / 4, sh = p->stride_h, sw = p->stride_w;
    if (direct) {
        if (cg % 4) memset(fill, flip, (size_t)area); /* flipped to zero */
        for (int64_t cq = 0; cq < quads; cq++) {
            const uint8_t *src[4];
            for (int64_t k = 0; k < 4; k++) src[k] = 4 * cq + k < cg ? planes + (4 * cq + k) * area : fill;
            qconv_interleave(area, src[0], src[1], src[2], src[3], flip, quad_planes + cq * 4 * area);
        }
        return;
    }
    /* per quad its four planes interleaved as they are, then copied a position (four bytes) at
     * a time into the phases' rows, the padding columns and rows the zero point's bytes */
    const int64_t plane = p->h * p->w;
    uint8_t *interleaved = fill, *missing = fill + 4 * plane;
    if (cg % 4) memset(missing, flip, (size_t)plane); /* flipped to zero */
    for (int64_t cq = 0; cq < quads; cq++) {
        const uint8_t *src[4];
        uint8_t edge[4];
        for (int64_t k = 0; k < 4; k++) {
            src[k] = 4 * cq + k < cg ? planes + (4 * cq + k) * plane : missing;
            edge[k] = 4 * cq + k < cg ? (uint8_t)(pad ^ flip) : 0;
        }
        qconv_interleave(plane, src[0], src[1], src[2], src[3], flip, interleaved);
        for (int64_t a = 0; a < sh; a++)
            for (int64_t b = 0; b < sw; b++) {
                if (!qconv_phase_used(a, sh, p->kh, p->dilation_h) || !qconv_phase_used(b, sw, p->kw, p->dilation_w))
                    continue;
                /* the phase's columns j in [first, end) read the row's column j * sw + b - pad_left */
                const int64_t first = min_i64(width, p->pad_left > b ? (p->pad_left - b + sw - 1) / sw : 0);
                const int64_t last_column = p->w - 1 + p->pad_left - b; /* the row's last, from phase column 0 */
                const int64_t end = last_column < 0 ? first : min_i64(width, last_column / sw + 1);
                const int64_t inner = end > first ? end - first : 0;
                for (int64_t r = 0; r < height; r++) {
                    const int64_t ih = r * sh + a - p->pad_top;
                    uint8_t *dst = quad_planes + 4 * (cq * area + ((a * sw + b) * height + r) * width);
                    const int inside = ih >= 0 && ih < p->h;
                    for (int64_t j = 0; j < (inside ? first : width); j++) memcpy(dst + 4 * j, edge, 4);
                    if (!inside) continue;
                    const uint8_t *from = interleaved + 4 * (ih * p->w + first * sw + b - p->pad_left);
                    if (sw == 1)
                        memcpy(dst + 4 * first, from, (size_t)(4 * inner));
                    else if (sw == 2)
                        qconv_every_second(inner, from, dst + 4 * first);
                    else
                        for (int64_t j = 0; j < inner; j++) memcpy(dst + 4 * (first + j), from + 4 * j * sw, 4);
                    for (int64_t j = first + inner; j < width; j++) memcpy(dst + 4 * j, edge, 4);
                }
            }
    }
}

/* n bytes split into `stride` column phases span apart: out[b * span + j] = src[j * stride + b]. */
static void qconv_split_columns(int64_t n, int64_t stride, int64_t span, const uint8_t *src, uint8_t *out)
{
    if (stride == 1) {
        memcpy(out, src, (size_t)n);
        return;
    }
    int64_t j = 0; /* pairs split in vectors */
#if defined(__SSE2__)
    const __m128i low = _mm_set1_epi16(0xff);
    for (; stride == 2 && 2 * j + 32 <= n; j += 16) {
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * j));
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * j + 16));
        _mm_storeu_si128((__m128i *)(void *)(out + j), _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)));
        _mm_storeu_si128((__m128i *)(void *)(out + span + j),
                         _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
    }
#elif defined(__aarch64__)
    for (; stride == 2 && 2 * j + 32 <= n; j += 16) {
        const uint8x16x2_t pairs = vld2q_u8(src + 2 * j);
        vst1q_u8(out + j, pairs.val[0]);
        vst1q_u8(out + span + j, pairs.val[1]);
    }
#endif
    for (int64_t i = j * stride; i < n; i++) out[i % stride * span + i / stride] = src[i];
}

/* The quad planes of one image and group of a conv by columns (fewer than four input channels
 * per group where that takes fewer steps, host_kernels.py qconv_by_columns): the GEMM runs it
 * as a conv of cg * kw channels (c, v), channel c seen from kernel column v (its plane's
 * columns j * stride_w + v * dilation_w, padded), with a kernel of kh x 1 and stride
 * (stride_h, 1), so that a quad holds
 * four real taps where a stem's three channels left every fourth byte zero (a 7x7 stem: 42
 * steps of 4 bytes for its 147 taps, not 49), and no padding columns are computed. The planes
 * are qconv_quad_planes' for that conv (`height` rows of ow positions per row phase, `area`
 * bytes apart), built a row at a time: each input channel's zero-padded row split into its
 * stride_w column phases, from which every channel (c, v) reads one run, four runs interleaved.
 * `fill` holds a row of the missing channels, a padded row and the column phases. */
static void qconv_column_planes(const mrvl_qconv_params *p, const uint8_t *planes, uint8_t pad, uint8_t flip,
                                int64_t height, int64_t area, uint8_t *quad_planes, uint8_t *fill)
{
    const int64_t cg = p->c / p->group, channels = cg * p->kw, quads = (channels + 3) / 4;
    const int64_t sh = p->stride_h, sw = p->stride_w, width = p->ow;
    const int64_t padded = (p->ow - 1) * sw + (p->kw - 1) * p->dilation_w + 1, span = (padded + sw - 1) / sw;
    const int64_t first = min_i64(p->pad_left, padded), end = min_i64(p->pad_left + p->w, padded);
    uint8_t *zeros = fill, *row = fill + width, *split = row + padded;
    memset(zeros, flip, (size_t)width); /* flipped to zero */
    for (int64_t a = 0; a < sh; a++) {
        if (!qconv_phase_used(a, sh, p->kh, p->dilation_h)) continue;
        for (int64_t r = 0; r < height; r++) {
            const int64_t ih = r * sh + a - p->pad_top;
            for (int64_t c = 0; c < cg; c++) {
                memset(row, pad, (size_t)padded);
                if (ih >= 0 && ih < p->h && end > first)
                    memcpy(row + first, planes + (c * p->h + ih) * p->w + first - p->pad_left, (size_t)(end - first));
                qconv_split_columns(padded, sw, span, row, split + c * sw * span);
            }
            for (int64_t cq = 0; cq < quads; cq++) {
                const uint8_t *src[4];
                for (int64_t k = 0; k < 4; k++) {
                    const int64_t e = 4 * cq + k, column = e % p->kw * p->dilation_w;
                    src[k] = e < channels ? split + (e / p->kw * sw + column % sw) * span + column / sw : zeros;
                }
                qconv_interleave(width, src[0], src[1], src[2], src[3], flip,
                                 quad_planes + 4 * (cq * area + (a * height + r) * width));
            }
        }
    }
}

/* The sum of each of `count` positions' K bytes in the quad planes, read as the GEMM reads
 * them (the position's term of a nonzero weight zero point). */
static void qconv_column_sums(int64_t count, int64_t runs, int64_t steps, const int64_t *offset, int64_t run_stride,
                              const uint8_t *a, int32_t *column_sums)
{
    for (int64_t i = 0; i < count; i++) {
        int32_t sum = 0;
        for (int64_t run = 0; run < runs; run++)
            for (int64_t s = 0; s < steps; s++)
                for (int j = 0; j < 4; j++) sum += a[run * run_stride + offset[s] + 4 * i + j];
        column_sums[i] = sum;
    }
}

static int32_t qconv_zero(const void *zero_point, int is_signed, int64_t i)
{
    if (!zero_point) return 0;
    return is_signed ? (int32_t)((const int8_t *)zero_point)[i] : (int32_t)((const uint8_t *)zero_point)[i];
}

/* Whether a conv of `rows` output channels (per group) and `ohw` output positions, `positions`
 * in its quad planes (with the planes' padding columns), runs on channel tiles (positions
 * broadcast, output channels in the lanes), not on tiles of MRVL_QGEMM_NR positions (positions
 * in the lanes): a choice of tile shape inside this kernel, by the sums each computes, when the
 * channel tiles' are at most MRVL_QGEMM_CHANNEL_PERCENT of the others'. On small planes the
 * planes' padding columns and a whole last tile of NR positions are most of the waste
 * (AVX-512, 3x3 convs: 64 positions computed for 49 at 7x7, 224 for 196 at 14x14, 864 for 784
 * at 28x28), which channel tiles, a few positions each and only output positions, avoid; where
 * the two compute nearly the same sums the tiles of positions run faster (1x1 convs at 28x28,
 * 56x56 on AVX-512: they read a weight per 32 sums, a channel tile reads 4 vectors of them per
 * 24). */
static int qgemm_channel_tiles_pay(int64_t rows, int64_t positions, int64_t ohw)
{
    const int64_t mr = MRVL_QGEMM_MR, nr = MRVL_QGEMM_NR, panel = MRVL_QGEMM_PANEL, pc = MRVL_QGEMM_CHANNEL_POSITIONS;
    const int64_t channel_sums = (rows + panel - 1) / panel * panel * ((ohw + pc - 1) / pc * pc);
    const int64_t position_sums = (rows + mr - 1) / mr * mr * ((positions + nr - 1) / nr * nr);
    return channel_sums * 100 <= position_sums * MRVL_QGEMM_CHANNEL_PERCENT;
}

/* The depthwise conv, in mrvl_kernels_qdepthwise.c (included after this file). */
static void qconv_depthwise(const mrvl_qconv_params *p, const uint8_t *x, uint8_t flip, int32_t zu, const int8_t *w,
                            const int32_t *zw, const int32_t *add, const float *multiplier, int32_t zy, uint8_t *y,
                            unsigned char *scratch);

/* ONNX QLinearConv in 2-D, NCHW, as the file's comment describes. `scratch` holds, 64-byte
 * aligned, per output channel the multiplier, constant term and moved weight zero point;
 * then for the depthwise kernel its row of results and phases, for the GEMM a tile of sums,
 * the offsets of its steps, the column sums, the quad planes, the bytes of missing channels and
 * padding rows and a buffer of results (target/host_kernels.py qconv_scratch_bytes). A GEMM
 * panel of packed weights is followed by the int32 sums of its rows' (packed) weights. */
static void mrvl_qlinear_conv(const mrvl_qconv_params *conv, const void *x, const float *x_scale, const void *x_zero,
                              const int8_t *w, const float *w_scale, const void *w_zero, const float *y_scale,
                              const void *y_zero, const int32_t *bias, void *y, void *scratch)
{
    /* p: the conv the GEMM runs, for a conv by columns (qconv_column_planes: host_kernels.py
     * qconv_by_columns) one of cg * kw channels with a kernel of kh x 1 on planes ow wide */
    const int64_t cg_of_conv = conv->c / conv->group;
    const int columns = !conv->depthwise && cg_of_conv < 4 && (cg_of_conv * conv->kw + 3) / 4 < conv->kw;
    mrvl_qconv_params by_columns = *conv;
    if (columns) {
        by_columns.c = conv->c * conv->kw;
        by_columns.w = conv->ow;
        by_columns.kw = by_columns.stride_w = by_columns.dilation_w = 1;
        by_columns.pad_left = 0;
    }
    const mrvl_qconv_params *p = columns ? &by_columns : conv;
    const int64_t cg = p->c / p->group, mg = p->m / p->group, taps = p->kh * p->kw, k = cg * taps;
    const int64_t quads = (cg + 3) / 4, panels = (mg + MRVL_QGEMM_PANEL - 1) / MRVL_QGEMM_PANEL, ohw = p->oh * p->ow;
    const int64_t panel_bytes = (quads * taps * 4 + 4) * MRVL_QGEMM_PANEL;
    const uint8_t flip = p->x_signed ? 0x80 : 0;
    const int32_t zx = qconv_zero(x_zero, p->x_signed, 0), zu = zx + (p->x_signed ? 128 : 0);
    const int32_t zy = qconv_zero(y_zero, p->y_signed, 0);
    const uint8_t pad = (uint8_t)zx; /* the raw byte of x's zero point, flipped with the rest */
    unsigned char *at = scratch;
    float *multiplier = (float *)(void *)at;
    at += (p->m * 4 + 63) / 64 * 64;
    int32_t *add = (int32_t *)(void *)at;
    at += (p->m * 4 + 63) / 64 * 64;
    int32_t *zw = (int32_t *)(void *)at;
    at += (p->m * 4 + 63) / 64 * 64;
    int any_zw = 0;
    for (int64_t o = 0; o < p->m; o++) {
        multiplier[o] = *x_scale * w_scale[p->w_scale_channels ? o : 0] / *y_scale;
        zw[o] = qconv_zero(w_zero, !p->w_shift, p->w_zero_channels ? o : 0) - p->w_shift;
        any_zw |= zw[o] != 0;
        add[o] = bias ? bias[o] : 0;
        if (!p->depthwise) { /* the zero-point terms; the depthwise kernel subtracts the zero points */
            const int64_t g = o / mg, row = o % mg;
            int32_t w_sum;
            memcpy(&w_sum, w + (g * panels + row / MRVL_QGEMM_PANEL) * panel_bytes +
                               quads * taps * 4 * MRVL_QGEMM_PANEL + 4 * (row % MRVL_QGEMM_PANEL), 4);
            add[o] += -zu * w_sum + (int32_t)k * zu * zw[o];
        }
    }
    uint8_t *out = y;
    if (p->depthwise) { /* mrvl_kernels_qdepthwise.c */
        qconv_depthwise(p, x, flip, zu, w, zw, add, multiplier, zy, out, at);
        return;
    }
    /* How the GEMM reads its activations (`qconv_quad_planes`): from planes of `area` bytes,
     * the input's (a 1x1 conv of stride 1 without padding), or its zero-padded planes split
     * into stride phases, rows of `width` positions, the results of the positions past ow
     * dropped from a buffer when there are any. */
    const int direct = !columns && p->kh == 1 && p->kw == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                       p->pad_top == 0 && p->pad_left == 0 && p->oh == p->h && p->ow == p->w;
    const int64_t sh = p->stride_h, sw = p->stride_w;
    const int64_t width = direct ? p->ow : ((p->ow - 1) * sw + (p->kw - 1) * p->dilation_w + sw) / sw;
    const int64_t phase_rows = ((p->oh - 1) * sh + (p->kh - 1) * p->dilation_h + sh) / sh;
    const int64_t area = direct ? p->h * p->w : sh * sw * phase_rows * width, positions = p->oh * width;
    const int64_t quad_stride = 4 * area, plane = conv->h * conv->w;
    /* the GEMM's steps: quads (runs) of taps (steps), or for a conv of one tap its quads as the
     * steps of one run (the inner loop over all of K) */
    const int64_t runs = taps == 1 ? 1 : quads, steps = taps == 1 ? quads : taps;
    const int staged = width != p->ow;
    const int channel_tiles = qgemm_channel_tiles_pay(mg, positions, ohw);
    int32_t *tile = (int32_t *)(void *)at;
    at += (MRVL_QGEMM_MR * MRVL_QGEMM_NR * 4 + 63) / 64 * 64;
    int64_t *offset = (int64_t *)(void *)at;
    at += (steps * 8 + 63) / 64 * 64;
    int32_t *column_sums = (int32_t *)(void *)at;
    at += (positions * 4 + 63) / 64 * 64;
    /* a tile reads up to NR positions past the last, and a tap up to a row further */
    uint8_t *quad_planes = at;
    at += (quads * quad_stride + 4 * (width + MRVL_QGEMM_NR) + 63) / 64 * 64;
    uint8_t *fill = at;
    uint8_t *results = fill + ((direct ? area : 5 * p->h * p->w) + 63) / 64 * 64;
    for (int64_t u = 0; u < p->kh; u++)
        for (int64_t v = 0; v < p->kw; v++) {
            const int64_t down = u * p->dilation_h, across = v * p->dilation_w;
            offset[u * p->kw + v] = 4 * ((down % sh * sw + across % sw) * phase_rows * width + down / sh * width +
                                         across / sw);
        }
    if (taps == 1)
        for (int64_t cq = 1; cq < quads; cq++) offset[cq] = offset[0] + cq * quad_stride;
    for (int64_t b = 0; b < p->n; b++)
        for (int64_t g = 0; g < p->group; g++) {
            if (columns) /* from the input's planes of this image and group */
                qconv_column_planes(conv, (const uint8_t *)x + (b * conv->group + g) * (conv->c / conv->group) * plane,
                                    pad, flip, phase_rows, area, quad_planes, fill);
            else
                qconv_quad_planes(p, (const uint8_t *)x + (b * p->c + g * cg) * p->h * p->w, direct, pad, flip, width,
                                  phase_rows, area, quad_planes, fill);
            if (any_zw) qconv_column_sums(positions, runs, steps, offset, quad_stride, quad_planes, column_sums);
            /* the group's channel o's result for position i: at dst + o * stride + i */
            uint8_t *dst = staged ? results : out + (b * p->m + g * mg) * ohw;
            const int64_t stride = staged ? positions : ohw;
#if defined(MRVL_QGEMM_MATRIX_VECTOR)
            if (direct && positions <= MRVL_QGEMM_VECTOR_POSITIONS) {
                for (int64_t panel = 0; panel < panels; panel++) {
                    const int64_t local = panel * MRVL_QGEMM_PANEL, o = g * mg + local;
                    const int64_t height = mg - local < MRVL_QGEMM_PANEL ? mg - local : MRVL_QGEMM_PANEL;
                    for (int64_t i = 0; i < positions; i++) {
                        int32_t sum[MRVL_QGEMM_PANEL];
                        qgemv_panel(quads, quad_stride, w + (g * panels + panel) * panel_bytes, quad_planes + 4 * i,
                                    sum);
                        for (int64_t r = 0; r < height; r++)
                            qconv_requantize(1, sum + r, add[o + r], zw[o + r], any_zw ? column_sums + i : NULL,
                                             multiplier[o + r], zy, p->y_min, p->y_max, dst + (local + r) * stride + i);
                    }
                }
                continue;
            }
#endif
            if (channel_tiles) { /* output positions only: stored in place, not staged */
                uint8_t *y_group = out + (b * p->m + g * mg) * ohw;
                for (int64_t panel = 0; panel < panels; panel += MRVL_QGEMM_CHANNEL_PANELS) {
                    const int64_t count_panels = min_i64(panels - panel, MRVL_QGEMM_CHANNEL_PANELS);
                    const int64_t local = panel * MRVL_QGEMM_PANEL, o = g * mg + local;
                    const int64_t height = min_i64(mg - local, count_panels * MRVL_QGEMM_PANEL);
                    const int8_t *w_panels = w + (g * panels + panel) * panel_bytes;
                    for (int64_t first = 0; first < ohw; first += MRVL_QGEMM_CHANNEL_POSITIONS) {
                        uint8_t *y_tile = y_group + local * ohw + first;
                        const int64_t count = min_i64(ohw - first, MRVL_QGEMM_CHANNEL_POSITIONS);
                        /* the tile's positions in the quad planes (past the last, the last again) */
                        int64_t place[MRVL_QGEMM_CHANNEL_POSITIONS];
                        int32_t place_sums[MRVL_QGEMM_CHANNEL_POSITIONS];
                        for (int64_t j = 0; j < MRVL_QGEMM_CHANNEL_POSITIONS; j++) {
                            const int64_t i = first + (j < count ? j : count - 1);
                            place[j] = i / p->ow * width + i % p->ow;
                            place_sums[j] = any_zw ? column_sums[place[j]] : 0;
                            place[j] *= 4;
                        }
#if defined(MRVL_QGEMM_CHANNEL_FUSED)
                        qgemm_channel_tile_requantized(count_panels, runs, steps, offset, quad_stride, w_panels,
                                                       panel_bytes, quad_planes, place, any_zw ? place_sums : NULL,
                                                       height, count, add + o, zw + o, multiplier + o, zy,
                                                       p->y_signed, p->y_min, p->y_max, y_tile, ohw);
#else
                        qgemm_channel_sums(runs, steps, offset, quad_stride, w_panels, quad_planes, place, tile);
                        qgemm_channel_requantize(tile, any_zw ? place_sums : NULL, height, count, add + o, zw + o,
                                                 multiplier + o, zy, p->y_min, p->y_max, y_tile, ohw);
#endif
                    }
                }
                continue;
            }
            for (int64_t block = 0; block < positions; block += MRVL_QGEMM_BLOCK) {
                const int64_t end = positions - block < MRVL_QGEMM_BLOCK ? positions : block + MRVL_QGEMM_BLOCK;
                /* MR rows at a time: a panel's rows in tiles, each reading its rows' part of
                 * every step of the panel */
                for (int64_t local = 0; local < mg; local += MRVL_QGEMM_MR) {
                    const int64_t height = mg - local < MRVL_QGEMM_MR ? mg - local : MRVL_QGEMM_MR, o = g * mg + local;
                    const int8_t *w_panel = w + (g * panels + local / MRVL_QGEMM_PANEL) * panel_bytes +
                                            4 * (local % MRVL_QGEMM_PANEL);
                    for (int64_t first = block; first < end; first += MRVL_QGEMM_NR) {
                        const int64_t count = end - first < MRVL_QGEMM_NR ? end - first : MRVL_QGEMM_NR;
                        const uint8_t *a = quad_planes + 4 * first;
                        uint8_t *y_tile = dst + local * stride + first;
#if defined(MRVL_QGEMM_FUSED_STORE)
                        if (!any_zw) {
                            qgemm_tile_requantized(runs, steps, offset, quad_stride, w_panel, a, height, count,
                                                   add + o, multiplier + o, zy, p->y_signed, p->y_min, p->y_max,
                                                   y_tile, stride);
                            continue;
                        }
#endif
                        qgemm_tile(runs, steps, offset, quad_stride, w_panel, a, tile);
                        for (int64_t r = 0; r < height; r++)
                            qconv_requantize(count, tile + r * MRVL_QGEMM_NR, add[o + r], zw[o + r],
                                             any_zw ? column_sums + first : NULL, multiplier[o + r], zy, p->y_min,
                                             p->y_max, y_tile + r * stride);
                    }
                }
            }
            if (staged)
                for (int64_t o = 0; o < mg; o++)
                    for (int64_t r = 0; r < p->oh; r++)
                        memcpy(out + (b * p->m + g * mg + o) * ohw + r * p->ow, results + o * positions + r * width,
                               (size_t)p->ow);
        }
}
