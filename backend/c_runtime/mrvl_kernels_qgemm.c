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
 * MRVL_QGEMM_MR output channels, each (K4, MR, 4): four consecutive k of one channel next to
 * each other, K = C/group * kh * kw in ONNX's order, zero-padded to K4 * 4 and to whole
 * panels, each panel followed by its rows' int32 sums; for the depthwise kernel, (M, kh * kw).
 * Activations are packed at run time, a tile of MRVL_QGEMM_NR output positions at a time, as
 * (K4, NR, 4), from K rows of bytes: the input's planes (a 1x1 conv of stride 1 without
 * padding), else the zero-padded planes split into stride phases, each tap's row a run of its
 * phase from the tap's offset (`qconv_phase_planes`).
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

/* One tile of int32 sums: tile[r * NR + p] = sum over K4 * 4 of w[.., r, ..] * a[.., p, ..],
 * w a panel (K4, MR, 4) of int8, a a tile (K4, NR, 4) of uint8. */
#if defined(MRVL_QGEMM_AVX512_VNNI)
/* The tile's sums in registers (once inlined): sum[r][v] for rows r, 16 positions per v. */
static MRVL_ALWAYS_INLINE void qgemm_sums(int64_t k4, const int8_t *w, const uint8_t *a,
                                          __m512i sum[MRVL_QGEMM_MR][2])
{
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) sum[r][0] = sum[r][1] = _mm512_setzero_si512();
    for (int64_t q = 0; q < k4; q++) {
        const __m512i a0 = _mm512_loadu_si512(a + q * 4 * MRVL_QGEMM_NR);
        const __m512i a1 = _mm512_loadu_si512(a + q * 4 * MRVL_QGEMM_NR + 64);
        MRVL_UNROLL
        for (int r = 0; r < MRVL_QGEMM_MR; r++) {
            int32_t quad;
            memcpy(&quad, w + (q * MRVL_QGEMM_MR + r) * 4, 4);
            const __m512i wb = _mm512_set1_epi32(quad);
            sum[r][0] = _mm512_dpbusd_epi32(sum[r][0], a0, wb);
            sum[r][1] = _mm512_dpbusd_epi32(sum[r][1], a1, wb);
        }
    }
}

static void qgemm_tile(int64_t k4, const int8_t *w, const uint8_t *a, int32_t *tile)
{
    __m512i sum[MRVL_QGEMM_MR][2];
    qgemm_sums(k4, w, a, sum);
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) {
        _mm512_storeu_si512(tile + r * MRVL_QGEMM_NR, sum[r][0]);
        _mm512_storeu_si512(tile + r * MRVL_QGEMM_NR + 16, sum[r][1]);
    }
}

/* qgemm_tile with the requantization (qconv_requantize's, without column sums) done on the
 * sums in registers, the first `count` positions of the first `height` rows stored a row_stride
 * apart (masked: a partial tile writes nothing past them): sum + add[r] in
 * float32 times multiplier[r], clamped, rounded by the default rounding mode (halves to
 * even), plus the zero point, narrowed to bytes. */
#define MRVL_QGEMM_FUSED_STORE 1
static void qgemm_tile_requantized(int64_t k4, const int8_t *w, const uint8_t *a, int64_t height, int64_t count,
                                   const int32_t *add, const float *multiplier, int32_t zero_point, int32_t lo,
                                   int32_t hi, uint8_t *y, int64_t row_stride)
{
    __m512i sum[MRVL_QGEMM_MR][2];
    qgemm_sums(k4, w, a, sum);
    const __m512 low = _mm512_set1_ps((float)(lo - zero_point)), high = _mm512_set1_ps((float)(hi - zero_point));
    const __m512i zp = _mm512_set1_epi32(zero_point);
    const __mmask16 stored[2] = {(__mmask16)(count >= 16 ? 0xffff : (1u << count) - 1),
                                 (__mmask16)(count >= 32 ? 0xffff : count <= 16 ? 0 : (1u << (count - 16)) - 1)};
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) {
        if (r >= height) break;
        const __m512i offset = _mm512_set1_epi32(add[r]);
        const __m512 scale = _mm512_set1_ps(multiplier[r]);
        MRVL_UNROLL
        for (int v = 0; v < 2; v++) {
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(sum[r][v], offset)), scale);
            f = _mm512_min_ps(_mm512_max_ps(f, low), high);
            const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
            _mm_mask_storeu_epi8(y + r * row_stride + 16 * v, stored[v], _mm512_cvtepi32_epi8(q));
        }
    }
}
#elif defined(MRVL_QGEMM_AVX_VNNI) || defined(MRVL_QGEMM_AVX2)
static void qgemm_tile(int64_t k4, const int8_t *w, const uint8_t *a, int32_t *tile)
{
    __m256i sum[MRVL_QGEMM_MR];
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) sum[r] = _mm256_setzero_si256();
#if defined(MRVL_QGEMM_AVX2)
    const __m256i low_bytes = _mm256_set1_epi16(0xff);
#endif
    for (int64_t q = 0; q < k4; q++) {
        const __m256i av = _mm256_loadu_si256((const __m256i *)(const void *)(a + q * 4 * MRVL_QGEMM_NR));
#if defined(MRVL_QGEMM_AVX2)
        /* Without VNNI, exactly: pmaddwd on 16-bit halves (vpmaddubsw's int16 sums of two
         * u8 x s8 products would saturate). Even k of each quad in the low byte of each
         * 16-bit lane, odd k in the high byte. */
        const __m256i a_even = _mm256_and_si256(av, low_bytes), a_odd = _mm256_srli_epi16(av, 8);
#endif
        MRVL_UNROLL
        for (int r = 0; r < MRVL_QGEMM_MR; r++) {
            int32_t quad;
            memcpy(&quad, w + (q * MRVL_QGEMM_MR + r) * 4, 4);
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
#elif defined(MRVL_QGEMM_USDOT)
/* usdot by lane: each of the two weight vectors holds the quads of four channels. */
#define MRVL_QGEMM_USDOT_ROW(r, wv, lane)                                                        \
    sum[r][0] = vusdotq_laneq_s32(sum[r][0], a0, wv, lane);                                     \
    sum[r][1] = vusdotq_laneq_s32(sum[r][1], a1, wv, lane)
static void qgemm_tile(int64_t k4, const int8_t *w, const uint8_t *a, int32_t *tile)
{
    int32x4_t sum[MRVL_QGEMM_MR][2];
    MRVL_UNROLL
    for (int r = 0; r < MRVL_QGEMM_MR; r++) sum[r][0] = sum[r][1] = vdupq_n_s32(0);
    for (int64_t q = 0; q < k4; q++) {
        const uint8x16_t a0 = vld1q_u8(a + q * 4 * MRVL_QGEMM_NR), a1 = vld1q_u8(a + q * 4 * MRVL_QGEMM_NR + 16);
        const int8x16_t w0 = vld1q_s8(w + q * 4 * MRVL_QGEMM_MR), w1 = vld1q_s8(w + q * 4 * MRVL_QGEMM_MR + 16);
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
#else
static void qgemm_tile(int64_t k4, const int8_t *w, const uint8_t *a, int32_t *tile)
{
    int32_t sum[MRVL_QGEMM_MR][MRVL_QGEMM_NR] = {{0}};
    for (int64_t q = 0; q < k4; q++)
        for (int r = 0; r < MRVL_QGEMM_MR; r++)
            for (int p = 0; p < MRVL_QGEMM_NR; p++)
                for (int j = 0; j < 4; j++)
                    sum[r][p] += (int32_t)w[(q * MRVL_QGEMM_MR + r) * 4 + j] *
                                 (int32_t)a[(q * MRVL_QGEMM_NR + p) * 4 + j];
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

/* Four rows of 8 bytes, flipped by `flip`, interleaved: out[4 p + j] = row j's byte p. */
static MRVL_ALWAYS_INLINE void qconv_interleave8(const uint8_t *r0, const uint8_t *r1, const uint8_t *r2,
                                                 const uint8_t *r3, uint8_t flip, uint8_t *out)
{
#if defined(__SSE2__)
    const __m128i f = _mm_set1_epi8((char)flip);
    const __m128i a = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(const void *)r0), f);
    const __m128i b = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(const void *)r1), f);
    const __m128i c = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(const void *)r2), f);
    const __m128i d = _mm_xor_si128(_mm_loadl_epi64((const __m128i *)(const void *)r3), f);
    const __m128i ab = _mm_unpacklo_epi8(a, b), cd = _mm_unpacklo_epi8(c, d);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_unpacklo_epi16(ab, cd));
    _mm_storeu_si128((__m128i *)(void *)(out + 16), _mm_unpackhi_epi16(ab, cd));
#elif defined(__aarch64__)
    const uint8x8_t f = vdup_n_u8(flip);
    uint8x8x4_t rows;
    rows.val[0] = veor_u8(vld1_u8(r0), f);
    rows.val[1] = veor_u8(vld1_u8(r1), f);
    rows.val[2] = veor_u8(vld1_u8(r2), f);
    rows.val[3] = veor_u8(vld1_u8(r3), f);
    vst4_u8(out, rows);
#else
    for (int p = 0; p < 8; p++) {
        out[4 * p] = r0[p] ^ flip;
        out[4 * p + 1] = r1[p] ^ flip;
        out[4 * p + 2] = r2[p] ^ flip;
        out[4 * p + 3] = r3[p] ^ flip;
    }
#endif
}

/* A tile of `count` (<= NR) output positions from K rows of bytes, row k at base + rows[k],
 * starting at each row's `first`: (K4, NR, 4), flipped by `flip`, zero beyond K and count;
 * with column_sums, the sum of each position's K bytes. */
static void qconv_pack_tile(const uint8_t *base, const int64_t *rows, int64_t k, int64_t first, int64_t count,
                            uint8_t flip, uint8_t *tile, int32_t *column_sums)
{
    const int64_t k4 = (k + 3) / 4;
    for (int64_t q = 0; q < k4; q++) {
        const uint8_t *src[4];
        for (int j = 0; j < 4; j++) src[j] = 4 * q + j < k ? base + rows[4 * q + j] + first : NULL;
        uint8_t *dst = tile + q * 4 * MRVL_QGEMM_NR;
        if (count == MRVL_QGEMM_NR && src[3]) {
#if MRVL_QGEMM_NR % 16 == 0
            for (int p = 0; p < MRVL_QGEMM_NR; p += 16)
                qconv_interleave16(src[0] + p, src[1] + p, src[2] + p, src[3] + p, flip, dst + 4 * p);
#else
            for (int p = 0; p < MRVL_QGEMM_NR; p += 8)
                qconv_interleave8(src[0] + p, src[1] + p, src[2] + p, src[3] + p, flip, dst + 4 * p);
#endif
            continue;
        }
        for (int j = 0; j < 4; j++)
            for (int64_t p = 0; p < MRVL_QGEMM_NR; p++) dst[4 * p + j] = src[j] && p < count ? src[j][p] ^ flip : 0;
    }
    if (!column_sums) return;
    for (int64_t p = 0; p < MRVL_QGEMM_NR; p++) column_sums[p] = 0;
    for (int64_t q = 0; q < k4; q++)
        for (int64_t p = 0; p < MRVL_QGEMM_NR; p++)
            for (int j = 0; j < 4; j++) column_sums[p] += tile[(q * MRVL_QGEMM_NR + p) * 4 + j];
}

/* Whether some tap of a conv's window (kernel taps `dilation` apart) lands on phase `phase` of
 * `stride`: only those phases are built. */
static int qconv_phase_used(int64_t phase, int64_t stride, int64_t kernel, int64_t dilation)
{
    for (int64_t t = 0; t < kernel && t < stride; t++)
        if (t * dilation % stride == phase) return 1;
    return 0;
}

/* The planes of one image and group zero-padded (the zero point's byte) and split into stride
 * phases: phase (a, b) of channel ci holds the padded plane's rows a, a + stride_h, ... and
 * columns b, b + stride_w, ..., `height` rows of `width` bytes, at ((ci * stride_h + a) *
 * stride_w + b) * height * width (`qconv_phase_extent`). Tap (u, v) then reads, for the output
 * positions r * width + col, one run of bytes: its phase from row u * dilation_h / stride_h,
 * column v * dilation_w / stride_w (the positions with col >= ow are computed and dropped).
 * `line` holds a padded row before a stride of 2 or more splits it. */
static void qconv_phase_planes(const mrvl_qconv_params *p, const uint8_t *planes, uint8_t pad, int64_t width,
                               int64_t height, uint8_t *phases, uint8_t *line)
{
    const int64_t cg = p->c / p->group, sh = p->stride_h, sw = p->stride_w, span = sw * width;
    const int64_t first = p->pad_left < span ? p->pad_left : span;
    const int64_t last = p->pad_left + p->w < span ? p->pad_left + p->w : span;
    const int odd_used = sw == 2 && qconv_phase_used(1, 2, p->kw, p->dilation_w);
    for (int64_t ci = 0; ci < cg; ci++)
        for (int64_t i = 0; i < height * sh; i++) {
            const int64_t a = i % sh;
            if (!qconv_phase_used(a, sh, p->kh, p->dilation_h)) continue;
            uint8_t *row = phases + (ci * sh + a) * sw * height * width + (i / sh) * width;
            uint8_t *full = sw == 1 ? row : line;
            const int64_t ih = i - p->pad_top;
            if (ih < 0 || ih >= p->h) {
                memset(full, pad, (size_t)span);
            } else {
                memset(full, pad, (size_t)first);
                memcpy(full + first, planes + (ci * p->h + ih) * p->w, (size_t)(last - first));
                memset(full + last, pad, (size_t)(span - last));
            }
            const int64_t phase_bytes = height * width;
            if (sw == 2) {
                uint8_t *even = row, *odd = row + phase_bytes;
                if (!odd_used)
                    for (int64_t j = 0; j < width; j++) even[j] = line[2 * j];
                else
                    for (int64_t j = 0; j < width; j++) {
                        even[j] = line[2 * j];
                        odd[j] = line[2 * j + 1];
                    }
            } else if (sw > 2) {
                for (int64_t b = 0; b < sw; b++)
                    if (qconv_phase_used(b, sw, p->kw, p->dilation_w))
                        for (int64_t j = 0; j < width; j++) row[b * phase_bytes + j] = line[j * sw + b];
            }
        }
}

static int32_t qconv_zero(const void *zero_point, int is_signed, int64_t i)
{
    if (!zero_point) return 0;
    return is_signed ? (int32_t)((const int8_t *)zero_point)[i] : (int32_t)((const uint8_t *)zero_point)[i];
}

/* The depthwise conv, in mrvl_kernels_qdepthwise.c (included after this file). */
static void qconv_depthwise(const mrvl_qconv_params *p, const uint8_t *x, uint8_t flip, int32_t zu, const int8_t *w,
                            const int32_t *zw, const int32_t *add, const float *multiplier, int32_t zy, uint8_t *y,
                            unsigned char *scratch);

/* ONNX QLinearConv in 2-D, NCHW, as the file's comment describes. `scratch` holds, 64-byte
 * aligned, per output channel the multiplier, constant term and moved weight zero point;
 * then for the depthwise kernel its row of results and phases, for the GEMM the column
 * sums, a tile of sums, a packed tile, the rows' offsets and (unless the conv is 1x1 of stride
 * 1 without padding) the planes split into phases, a padded row and a buffer of results
 * (target/host_kernels.py qconv_scratch_bytes). A GEMM panel of
 * packed weights is followed by the int32 sums of its rows' (packed) weights. */
static void mrvl_qlinear_conv(const mrvl_qconv_params *p, const void *x, const float *x_scale, const void *x_zero,
                              const int8_t *w, const float *w_scale, const void *w_zero, const float *y_scale,
                              const void *y_zero, const int32_t *bias, void *y, void *scratch)
{
    const int64_t cg = p->c / p->group, mg = p->m / p->group, taps = p->kh * p->kw, k = cg * taps;
    const int64_t k4 = (k + 3) / 4, panels = (mg + MRVL_QGEMM_MR - 1) / MRVL_QGEMM_MR, ohw = p->oh * p->ow;
    const int64_t panel_bytes = (k4 * 4 + 4) * MRVL_QGEMM_MR;
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
            memcpy(&w_sum, w + (g * panels + row / MRVL_QGEMM_MR) * panel_bytes + k4 * 4 * MRVL_QGEMM_MR +
                               4 * (row % MRVL_QGEMM_MR), 4);
            add[o] += -zu * w_sum + (int32_t)k * zu * zw[o];
        }
    }
    uint8_t *out = y;
    if (p->depthwise) { /* mrvl_kernels_qdepthwise.c */
        qconv_depthwise(p, x, flip, zu, w, zw, add, multiplier, zy, out, at);
        return;
    }
    int32_t *column_sums = (int32_t *)(void *)at;
    at += (MRVL_QGEMM_NR * 4 + 63) / 64 * 64;
    int32_t *tile = (int32_t *)(void *)at;
    at += (MRVL_QGEMM_MR * MRVL_QGEMM_NR * 4 + 63) / 64 * 64;
    uint8_t *packed = at;
    at += (k4 * 4 * MRVL_QGEMM_NR + 63) / 64 * 64;
    int64_t *rows = (int64_t *)(void *)at;
    at += (k * 8 + 63) / 64 * 64;
    /* How the im2col rows are read: the input's planes (a 1x1 conv of stride 1 without
     * padding), or the zero-padded planes split into stride phases (`qconv_phase_planes`): rows
     * of `width` positions, the results of the positions past ow dropped from a buffer when
     * there are any. */
    const int direct = p->kh == 1 && p->kw == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 &&
                       p->pad_left == 0 && p->oh == p->h && p->ow == p->w;
    const int64_t sh = p->stride_h, sw = p->stride_w;
    const int64_t width = direct ? p->ow : ((p->ow - 1) * sw + (p->kw - 1) * p->dilation_w + sw) / sw;
    const int64_t phase_rows = ((p->oh - 1) * sh + (p->kh - 1) * p->dilation_h + sh) / sh;
    const int64_t positions = p->oh * width, phase_bytes = phase_rows * width;
    const int staged = width != p->ow;
    uint8_t *phases = at;
    uint8_t *line = at + (cg * sh * sw * phase_bytes + width + MRVL_QGEMM_NR + 63) / 64 * 64;
    uint8_t *results = line + (sw * width + 63) / 64 * 64;
    if (direct) {
        for (int64_t i = 0; i < k; i++) rows[i] = i * ohw;
    } else {
        for (int64_t ci = 0; ci < cg; ci++)
            for (int64_t u = 0; u < p->kh; u++)
                for (int64_t v = 0; v < p->kw; v++) {
                    const int64_t down = u * p->dilation_h, across = v * p->dilation_w;
                    rows[(ci * p->kh + u) * p->kw + v] = ((ci * sh + down % sh) * sw + across % sw) * phase_bytes +
                                                         down / sh * width + across / sw;
                }
    }
    for (int64_t b = 0; b < p->n; b++)
        for (int64_t g = 0; g < p->group; g++) {
            const uint8_t *planes = (const uint8_t *)x + (b * p->c + g * cg) * p->h * p->w;
            const uint8_t *base = planes;
            if (!direct) {
                qconv_phase_planes(p, planes, pad, width, phase_rows, phases, line);
                base = phases;
            }
            /* the group's channel o's result for position i: at dst + o * stride + i */
            uint8_t *dst = staged ? results : out + (b * p->m + g * mg) * ohw;
            const int64_t stride = staged ? positions : ohw;
            for (int64_t first = 0; first < positions; first += MRVL_QGEMM_NR) {
                const int64_t count = positions - first < MRVL_QGEMM_NR ? positions - first : MRVL_QGEMM_NR;
                qconv_pack_tile(base, rows, k, first, count, flip, packed, any_zw ? column_sums : NULL);
                for (int64_t panel = 0; panel < panels; panel++) {
                    const int64_t height = mg - panel * MRVL_QGEMM_MR < MRVL_QGEMM_MR ? mg - panel * MRVL_QGEMM_MR
                                                                                     : MRVL_QGEMM_MR;
                    const int64_t local = panel * MRVL_QGEMM_MR, o = g * mg + local;
                    uint8_t *y_tile = dst + local * stride + first;
#if defined(MRVL_QGEMM_FUSED_STORE)
                    if (!any_zw) {
                        qgemm_tile_requantized(k4, w + (g * panels + panel) * panel_bytes, packed, height, count,
                                               add + o, multiplier + o, zy, p->y_min, p->y_max, y_tile, stride);
                        continue;
                    }
#endif
                    qgemm_tile(k4, w + (g * panels + panel) * panel_bytes, packed, tile);
                    for (int64_t r = 0; r < height; r++)
                        qconv_requantize(count, tile + r * MRVL_QGEMM_NR, add[o + r], zw[o + r],
                                         any_zw ? column_sums : NULL, multiplier[o + r], zy, p->y_min, p->y_max,
                                         y_tile + r * stride);
                }
            }
            if (staged)
                for (int64_t o = 0; o < mg; o++)
                    for (int64_t r = 0; r < p->oh; r++)
                        memcpy(out + (b * p->m + g * mg + o) * ohw + r * p->ow, results + o * positions + r * width,
                               (size_t)p->ow);
        }
}
