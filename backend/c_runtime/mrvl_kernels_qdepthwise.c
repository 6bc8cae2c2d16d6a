/* mrvl_kernels_qdepthwise.c: int8 depthwise convolution (cpu.qlinear_conv with one input and
 * one output channel per group), called by mrvl_qlinear_conv (mrvl_kernels_qgemm.c describes
 * the operands, the weights' layout (M, kh * kw) and the requantization).
 *
 * One channel at a time. Its plane, flipped to uint8 and less the zero point (so in -255..255),
 * is widened to int16 into the zero-padded plane, `width` columns (the padded row rounded up
 * to a multiple of 2 * stride_w), its rows split into stride_h phases: phase a holds the padded
 * rows a, a + stride_h, ... Output row r, column c is then position r * width / stride_w + c
 * of one run over the plane (the columns past ow computed and dropped), and tap t reads for
 * position q the element stride_w * q + offset[t] (`qdw_offsets`), so every stride and
 * dilation runs one loop: 32 positions at a time, their int32 sums kept in registers over every
 * tap, started at the bias, requantized in registers into a row of bytes, from which the
 * output's rows are copied.
 *
 * On x86 (AVX-512 and AVX2), vpmaddwd (vpdpwssd with VNNI) multiplies pairs of adjacent
 * elements by pairs of weights without a shuffle: with a stride of 2, the 32-bit lane i of a
 * load holds the two elements output i reads at one offset pair (2i + 2L, 2i + 2L + 1), so
 * the taps whose offsets share L are one "term" with their weights in the halves of a pair;
 * with a stride of 1, lane i holds positions 2i and 2i + 1, and the even and the odd positions
 * are two such stride-2 sums (the odd ones' offsets one further), over the same loads. Each
 * |product| <= 255 * 255, so a pair's sum is exact. On Arm, smlal per tap (ld2 splits a stride
 * of 2). Strides of 3 or more take the plain loops. */

/* out[k] = (in[k] ^ flip) - zero for k < n: a row of the plane, from the input's bytes. The
 * vector loops read no byte past in[n - 1]: AVX-512 masks its loads, the others end on a vector
 * overlapping the one before. */
static MRVL_ALWAYS_INLINE void qdw_widen(int64_t n, const uint8_t *restrict in, uint8_t flip, int16_t zero,
                                         int16_t *restrict out)
{
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    const __m512i zero16 = _mm512_set1_epi16(zero);
    const __m256i f = _mm256_set1_epi8((char)flip);
    for (int64_t k = 0; k < n; k += 32) {
        const __mmask32 mask = n - k >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << (n - k)) - 1;
        const __m256i bytes = _mm256_xor_si256(_mm256_maskz_loadu_epi8(mask, in + k), f);
        _mm512_mask_storeu_epi16(out + k, mask, _mm512_sub_epi16(_mm512_cvtepu8_epi16(bytes), zero16));
    }
    return;
#elif defined(__AVX2__)
    if (n >= 16) {
        const __m256i zero16 = _mm256_set1_epi16(zero);
        const __m128i f = _mm_set1_epi8((char)flip);
        for (int64_t k = 0;; k += 16) {
            k = k + 16 <= n ? k : n - 16;
            const __m128i bytes = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(in + k)), f);
            _mm256_storeu_si256((__m256i *)(void *)(out + k), _mm256_sub_epi16(_mm256_cvtepu8_epi16(bytes), zero16));
            if (k + 16 == n) return;
        }
    }
#elif defined(__aarch64__)
    if (n >= 16) {
        const uint8x16_t f = vdupq_n_u8(flip);
        const int16x8_t zero16 = vdupq_n_s16(zero);
        for (int64_t k = 0;; k += 16) {
            k = k + 16 <= n ? k : n - 16;
            const uint8x16_t bytes = veorq_u8(vld1q_u8(in + k), f);
            vst1q_s16(out + k, vsubq_s16(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(bytes))), zero16));
            vst1q_s16(out + k + 8, vsubq_s16(vreinterpretq_s16_u16(vmovl_high_u8(bytes)), zero16));
            if (k + 16 == n) return;
        }
    }
#endif
    for (int64_t k = 0; k < n; k++) out[k] = (int16_t)((int16_t)(in[k] ^ flip) - zero);
}

/* The plane's geometry (see the file's comment): `width` columns, `height` rows per phase.
 * The padded row is rounded up to a multiple of stride_w; a stride of 1 rounds it to even (the
 * taps then share the x86 loops' pair loads row after row) unless that takes one more chunk. */
static int64_t qdw_width(const mrvl_qconv_params *p)
{
    const int64_t sw = p->stride_w, cols = (p->ow - 1) * sw + (p->kw - 1) * p->dilation_w + 1;
    const int64_t width = (cols + sw - 1) / sw * sw;
    const int64_t chunks = (p->oh * width + MRVL_QDW_CHUNK - 1) / MRVL_QDW_CHUNK;
    if (sw == 1 && width % 2 && (p->oh * (width + 1) + MRVL_QDW_CHUNK - 1) / MRVL_QDW_CHUNK == chunks)
        return width + 1;
    return width;
}

static int64_t qdw_height(const mrvl_qconv_params *p)
{
    return ((p->oh - 1) * p->stride_h + (p->kh - 1) * p->dilation_h + p->stride_h) / p->stride_h;
}

/* The element tap t = u * kw + v reads for position 0 */
static void qdw_offsets(const mrvl_qconv_params *p, int64_t width, int64_t height, int64_t *offset)
{
    for (int64_t u = 0; u < p->kh; u++)
        for (int64_t v = 0; v < p->kw; v++) {
            const int64_t down = u * p->dilation_h;
            offset[u * p->kw + v] =
                (down % p->stride_h * height + down / p->stride_h) * width + v * p->dilation_w;
        }
}

/* Where qdw_plane writes the input's rows: row ih of the input (the first `count` rows that
 * some tap reads) at element destination[ih] of the phases, from its column 0. */
static int64_t qdw_rows(const mrvl_qconv_params *p, int64_t width, int64_t height, int64_t *destination)
{
    const int64_t sh = p->stride_h;
    int64_t count = 0;
    for (int64_t ih = 0; ih < p->h; ih++) {
        const int64_t i = ih + p->pad_top; /* the padded row */
        if (i >= height * sh) break;
        destination[ih] = qconv_phase_used(i % sh, sh, p->kh, p->dilation_h)
                              ? (i % sh * height + i / sh) * width + p->pad_left : -1;
        count = ih + 1;
    }
    return count;
}

/* The phases of one channel's plane: its rows (qdw_rows) widened, each up to the padded row's
 * end. Only the input's part is written: the padding is where every channel has it, zeroed
 * once by the caller. */
static void qdw_plane(const mrvl_qconv_params *p, const uint8_t *plane, uint8_t flip, int16_t zu, int64_t width,
                      int64_t rows, const int64_t *destination, int16_t *phases)
{
    const int64_t columns = width - p->pad_left < p->w ? width - p->pad_left : p->w;
#if defined(__AVX512BW__) && defined(__AVX512VL__)
    if (columns <= 32) { /* a row in one masked vector: no loop per row (small planes) */
        const __mmask32 mask = columns >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << columns) - 1;
        const __m512i zero16 = _mm512_set1_epi16(zu);
        const __m256i f = _mm256_set1_epi8((char)flip);
        for (int64_t ih = 0; ih < rows; ih++)
            if (destination[ih] >= 0) {
                const __m256i bytes = _mm256_xor_si256(_mm256_maskz_loadu_epi8(mask, plane + ih * p->w), f);
                _mm512_mask_storeu_epi16(phases + destination[ih], mask,
                                         _mm512_sub_epi16(_mm512_cvtepu8_epi16(bytes), zero16));
            }
        return;
    }
#endif
    for (int64_t ih = 0; ih < rows; ih++)
        if (destination[ih] >= 0) qdw_widen(columns, plane + ih * p->w, flip, zu, phases + destination[ih]);
}

#if defined(__AVX512BW__) || defined(__AVX2__)
#define MRVL_QDW_PAIRS 1
#define MRVL_QDW_PAIR_TAPS 128 /* up to 11x11 */
/* The terms of the x86 loops (see the file's comment): term k loads at element 2 * lane[k] from
 * a chunk's first; in group g (stride 1: the even and the odd positions; stride 2: the chunk's
 * two halves, one list) its pair of weights is tap tap[g][k][0]'s and tap[g][k][1]'s, the taps
 * numbered from 0, `none` (the count of taps) standing for a zero weight. */
typedef struct {
    int64_t count;
    int64_t lane[2 * MRVL_QDW_PAIR_TAPS];
    int16_t tap[2][2 * MRVL_QDW_PAIR_TAPS][2];
} qdw_terms;

static void qdw_terms_add(qdw_terms *terms, int g, int64_t t, int64_t element, int16_t none)
{
    int64_t k = 0;
    while (k < terms->count && terms->lane[k] != element / 2) k++;
    if (k == terms->count) {
        terms->lane[terms->count++] = element / 2;
        terms->tap[0][k][0] = terms->tap[0][k][1] = terms->tap[1][k][0] = terms->tap[1][k][1] = none;
    }
    terms->tap[g][k][element % 2] = (int16_t)t;
}

/* Whether the pair loops take a conv: strides of 1 or 2, at most MRVL_QDW_PAIR_TAPS taps */
static int qdw_terms_of(const mrvl_qconv_params *p, const int64_t *offset, qdw_terms *terms)
{
    const int64_t taps = p->kh * p->kw;
    terms->count = 0;
    if (p->stride_w > 2 || taps > MRVL_QDW_PAIR_TAPS) return 0;
    for (int64_t t = 0; t < taps; t++) {
        qdw_terms_add(terms, 0, t, offset[t], (int16_t)taps);
        qdw_terms_add(terms, 1, t, offset[t] + (p->stride_w == 1), (int16_t)taps);
    }
    return 1;
}

/* The sums of the chunks from `base` on, requantized into results: sum * multiplier, clamped to
 * lo..hi less the zero point, rounded halves to even (the default rounding mode), plus the zero
 * point, its low byte. `w` holds the taps' weights less the zero point, and a zero (qdw_terms). */
static MRVL_ALWAYS_INLINE void qdw_pair_chunks(int64_t sw, int64_t count, int64_t positions, const int16_t *base,
                                               const qdw_terms *terms, const int16_t *w, int32_t add,
                                               float multiplier, int32_t zy, int32_t lo, int32_t hi,
                                               uint8_t *results)
{
    const float low = (float)(lo - zy), high = (float)(hi - zy);
    /* term k's pairs of weights, its taps' (w[none] = 0): in registers once the loops unroll */
    int32_t pair[2][count];
    MRVL_UNROLL
    for (int64_t k = 0; k < count; k++) {
        MRVL_UNROLL
        for (int g = 0; g < 2; g++)
            pair[g][k] = (int32_t)((uint32_t)(uint16_t)w[terms->tap[g][k][1]] << 16 | (uint16_t)w[terms->tap[g][k][0]]);
    }
    const int32_t *second = sw == 1 ? pair[1] : pair[0]; /* stride 2: one list */
#if defined(__AVX512BW__)
    const __m512 scale = _mm512_set1_ps(multiplier), low_v = _mm512_set1_ps(low), high_v = _mm512_set1_ps(high);
    const __m512i zero_point = _mm512_set1_epi32(zy), low_byte = _mm512_set1_epi32(0xff);
    for (int64_t s = 0; s < positions; s += MRVL_QDW_CHUNK) {
        const int16_t *at = base + sw * s;
        __m512i sum[2] = {_mm512_set1_epi32(add), _mm512_set1_epi32(add)};
        MRVL_UNROLL
        for (int64_t k = 0; k < count; k++) {
            const __m512i a0 = _mm512_loadu_si512(at + 2 * terms->lane[k]);
            const __m512i a1 = sw == 1 ? a0 : _mm512_loadu_si512(at + 2 * terms->lane[k] + 32);
#if defined(__AVX512VNNI__)
            sum[0] = _mm512_dpwssd_epi32(sum[0], a0, _mm512_set1_epi32(pair[0][k]));
            sum[1] = _mm512_dpwssd_epi32(sum[1], a1, _mm512_set1_epi32(second[k]));
#else
            sum[0] = _mm512_add_epi32(sum[0], _mm512_madd_epi16(a0, _mm512_set1_epi32(pair[0][k])));
            sum[1] = _mm512_add_epi32(sum[1], _mm512_madd_epi16(a1, _mm512_set1_epi32(second[k])));
#endif
        }
        __m512i q[2];
        MRVL_UNROLL
        for (int g = 0; g < 2; g++) {
            __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(sum[g]), scale);
            f = _mm512_min_ps(_mm512_max_ps(f, low_v), high_v);
            q[g] = _mm512_add_epi32(_mm512_cvtps_epi32(f), zero_point);
        }
        if (sw == 1) { /* even and odd positions: two bytes per lane, then each lane's low half */
            const __m512i both = _mm512_or_si512(_mm512_and_si512(q[0], low_byte), _mm512_slli_epi32(q[1], 8));
            _mm256_storeu_si256((__m256i *)(void *)(results + s), _mm512_cvtepi32_epi16(both));
        } else {
            _mm_storeu_si128((__m128i *)(void *)(results + s), _mm512_cvtepi32_epi8(q[0]));
            _mm_storeu_si128((__m128i *)(void *)(results + s + 16), _mm512_cvtepi32_epi8(q[1]));
        }
    }
#else
    /* AVX2: a chunk as two halves of 16 positions, 8 lanes a vector */
    const __m256 scale = _mm256_set1_ps(multiplier), low_v = _mm256_set1_ps(low), high_v = _mm256_set1_ps(high);
    const __m256i zero_point = _mm256_set1_epi32(zy), low_byte = _mm256_set1_epi32(0xff);
    const __m256i byte_pairs = _mm256_set1_epi32(0xffff), low_bytes = _mm256_set1_epi16(0xff);
    for (int64_t s = 0; s < positions; s += MRVL_QDW_CHUNK)
        for (int64_t h = s; h < s + MRVL_QDW_CHUNK; h += 16) {
            const int16_t *at = base + sw * h;
            __m256i sum[2] = {_mm256_set1_epi32(add), _mm256_set1_epi32(add)};
            MRVL_UNROLL
            for (int64_t k = 0; k < count; k++) {
                const __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)(at + 2 * terms->lane[k]));
                const __m256i a1 =
                    sw == 1 ? a0 : _mm256_loadu_si256((const __m256i *)(const void *)(at + 2 * terms->lane[k] + 16));
#if defined(__AVXVNNI__)
                sum[0] = _mm256_dpwssd_avx_epi32(sum[0], a0, _mm256_set1_epi32(pair[0][k]));
                sum[1] = _mm256_dpwssd_avx_epi32(sum[1], a1, _mm256_set1_epi32(second[k]));
#else
                sum[0] = _mm256_add_epi32(sum[0], _mm256_madd_epi16(a0, _mm256_set1_epi32(pair[0][k])));
                sum[1] = _mm256_add_epi32(sum[1], _mm256_madd_epi16(a1, _mm256_set1_epi32(second[k])));
#endif
            }
            __m256i q[2];
            for (int g = 0; g < 2; g++) {
                __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(sum[g]), scale);
                f = _mm256_min_ps(_mm256_max_ps(f, low_v), high_v);
                q[g] = _mm256_add_epi32(_mm256_cvtps_epi32(f), zero_point);
            }
            __m128i bytes;
            if (sw == 1) { /* even and odd positions: two bytes per lane, the lanes packed */
                const __m256i both = _mm256_and_si256(
                    _mm256_or_si256(_mm256_and_si256(q[0], low_byte), _mm256_slli_epi32(q[1], 8)), byte_pairs);
                bytes = _mm_packus_epi32(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
            } else { /* each result in a byte's range: its low byte, kept through two packs */
                const __m256i halves =
                    _mm256_and_si256(_mm256_permute4x64_epi64(_mm256_packs_epi32(q[0], q[1]), 0xd8), low_bytes);
                bytes = _mm_packus_epi16(_mm256_castsi256_si128(halves), _mm256_extracti128_si256(halves, 1));
            }
            _mm_storeu_si128((__m128i *)(void *)(results + h), bytes);
        }
#endif
}

/* qdw_pair_chunks, its loop over the terms unrolled for the common counts: 6 (3x3 of stride 1
 * or 2), 7 (3x3 of stride 1 on rows of odd width) and 15 (5x5) */
static void qdw_pair_dispatch(int64_t sw, int64_t positions, const int16_t *base, const qdw_terms *terms,
                              const int16_t *w, int32_t add, float multiplier, int32_t zy, int32_t lo, int32_t hi,
                              uint8_t *results)
{
    if (sw == 1 && terms->count == 6)
        qdw_pair_chunks(1, 6, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
    else if (sw == 1 && terms->count == 7)
        qdw_pair_chunks(1, 7, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
    else if (sw == 1 && terms->count == 15)
        qdw_pair_chunks(1, 15, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
    else if (sw == 1)
        qdw_pair_chunks(1, terms->count, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
    else if (terms->count == 6)
        qdw_pair_chunks(2, 6, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
    else if (terms->count == 15)
        qdw_pair_chunks(2, 15, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
    else
        qdw_pair_chunks(2, terms->count, positions, base, terms, w, add, multiplier, zy, lo, hi, results);
}
#endif

/* As qdw_pair_chunks, a tap at a time from each tap's offset and (less its zero point) weight:
 * Arm's loops for strides of 1 and 2, and the plain ones. */
static MRVL_ALWAYS_INLINE void qdw_tap_chunks(int64_t sw, int64_t taps, int64_t positions, const int16_t *base,
                                              const int64_t *offset, const int16_t *w, int32_t add,
                                              float multiplier, int32_t zy, int32_t lo, int32_t hi,
                                              uint8_t *results)
{
    const float low = (float)(lo - zy), high = (float)(hi - zy);
#if defined(__aarch64__)
    if (sw <= 2) {
        const float32x4_t low_v = vdupq_n_f32(low), high_v = vdupq_n_f32(high);
        const int32x4_t zero_point = vdupq_n_s32(zy);
        for (int64_t s = 0; s < positions; s += MRVL_QDW_CHUNK) {
            int32x4_t sum[8];
            MRVL_UNROLL
            for (int v = 0; v < 8; v++) sum[v] = vdupq_n_s32(add);
            for (int64_t t = 0; t < taps; t++) {
                const int16_t *in = base + sw * s + offset[t];
                MRVL_UNROLL
                for (int v = 0; v < 4; v++) {
                    const int16x8_t a = sw == 1 ? vld1q_s16(in + 8 * v) : vld2q_s16(in + 16 * v).val[0];
                    sum[2 * v] = vmlal_n_s16(sum[2 * v], vget_low_s16(a), w[t]);
                    sum[2 * v + 1] = vmlal_high_n_s16(sum[2 * v + 1], a, w[t]);
                }
            }
            int16x4_t narrow[8];
            MRVL_UNROLL
            for (int v = 0; v < 8; v++) {
                float32x4_t f = vmulq_n_f32(vcvtq_f32_s32(sum[v]), multiplier);
                f = vminq_f32(vmaxq_f32(f, low_v), high_v);
                narrow[v] = vmovn_s32(vaddq_s32(vcvtnq_s32_f32(f), zero_point));
            }
            MRVL_UNROLL
            for (int v = 0; v < 4; v++) /* each result in a byte's range: its low byte */
                vst1_u8(results + s + 8 * v,
                        vreinterpret_u8_s8(vmovn_s16(vcombine_s16(narrow[2 * v], narrow[2 * v + 1]))));
        }
        return;
    }
#endif
    for (int64_t s = 0; s < positions; s += MRVL_QDW_CHUNK) {
        int32_t sum[MRVL_QDW_CHUNK];
        for (int j = 0; j < MRVL_QDW_CHUNK; j++) sum[j] = add;
        for (int64_t t = 0; t < taps; t++)
            for (int j = 0; j < MRVL_QDW_CHUNK; j++) sum[j] += (int32_t)w[t] * base[sw * (s + j) + offset[t]];
        for (int j = 0; j < MRVL_QDW_CHUNK; j++) {
            float f = (float)sum[j] * multiplier;
            f = f < low ? low : f;
            f = f > high ? high : f;
            results[s + j] = (uint8_t)((int32_t)rintf(f) + zy);
        }
    }
}

/* A channel's output rows (oh of ow bytes) from its row of results (rows `row` apart), 16 bytes
 * at a time: an overrun lands on a later row (of this channel or the next), written after it;
 * the reads stay in the row of results. Rows of at most 16 (small planes) in one copy each, when
 * the last one's overrun is in bounds (before `end`). */
static void qdw_rows_out(const mrvl_qconv_params *p, const uint8_t *results, int64_t row, uint8_t *out,
                         const uint8_t *end)
{
    if (p->ow <= 16 && out + (p->oh - 1) * p->ow + 16 <= end) {
        for (int64_t r = 0; r < p->oh; r++) memcpy(out + r * p->ow, results + r * row, 16);
        return;
    }
    for (int64_t r = 0; r < p->oh; r++) {
        const uint8_t *from = results + r * row;
        uint8_t *to = out + r * p->ow;
        int64_t j = 0;
        for (; j < p->ow && to + j + 16 <= end; j += 16) memcpy(to + j, from + j, 16);
        for (; j < p->ow; j++) to[j] = from[j];
    }
}

/* The depthwise conv of mrvl_qlinear_conv: x as uint8 after `flip`, its zero point zu; per
 * output channel o the weight zero point zw[o], the bias add[o] and multiplier[o]. `scratch`
 * holds two rows of results and the plane (target/host_kernels.py qconv_scratch_bytes): a
 * channel's rows are copied out after the next channel's sums, from the other row, so that the
 * copy's loads do not wait on the sums' stores (loads across two of them are not forwarded: a
 * 7x7 plane's copy took a fifth of its channel's time). */
static void qconv_depthwise(const mrvl_qconv_params *p, const uint8_t *x, uint8_t flip, int32_t zu, const int8_t *w,
                            const int32_t *zw, const int32_t *add, const float *multiplier, int32_t zy, uint8_t *y,
                            unsigned char *scratch)
{
    const int64_t sw = p->stride_w, taps = p->kh * p->kw, ohw = p->oh * p->ow;
    const int64_t width = qdw_width(p), height = qdw_height(p), row = width / sw;
    const int64_t positions = (p->oh * row + MRVL_QDW_CHUNK - 1) / MRVL_QDW_CHUNK * MRVL_QDW_CHUNK;
    const int64_t results_bytes = (positions + 16 + 63) / 64 * 64;
    int16_t *phases = (int16_t *)(void *)(scratch + 2 * results_bytes);
    /* the padding, and what a chunk past the last position reads past the plane (dropped) */
    memset(phases, 0, (size_t)(p->stride_h * height * width + width + (MRVL_QDW_CHUNK + 1) * sw + 32) * sizeof *phases);
    int64_t offset[taps], destination[p->h];
    qdw_offsets(p, width, height, offset);
    const int64_t rows = qdw_rows(p, width, height, destination);
#if defined(MRVL_QDW_PAIRS)
    qdw_terms terms;
    const int pairs = qdw_terms_of(p, offset, &terms);
#endif
    int16_t weights[taps + 1]; /* and a zero, a term's missing tap */
    weights[taps] = 0;
    const uint8_t *end = y + p->n * p->m * ohw;
    for (int64_t b = 0; b < p->n; b++)
        for (int64_t o = 0; o < p->m; o++) {
            const int64_t plane = b * p->m + o;
            uint8_t *results = scratch + plane % 2 * results_bytes;
            qdw_plane(p, x + (b * p->c + o) * p->h * p->w, flip, (int16_t)zu, width, rows, destination, phases);
            for (int64_t t = 0; t < taps; t++) weights[t] = (int16_t)(w[o * taps + t] - zw[o]);
#if defined(MRVL_QDW_PAIRS)
            if (pairs) {
                qdw_pair_dispatch(sw, positions, phases, &terms, weights, add[o], multiplier[o], zy, p->y_min,
                                  p->y_max, results);
            } else
#endif
            if (sw == 1)
                qdw_tap_chunks(1, taps, positions, phases, offset, weights, add[o], multiplier[o], zy, p->y_min,
                               p->y_max, results);
            else if (sw == 2)
                qdw_tap_chunks(2, taps, positions, phases, offset, weights, add[o], multiplier[o], zy, p->y_min,
                               p->y_max, results);
            else
                qdw_tap_chunks(sw, taps, positions, phases, offset, weights, add[o], multiplier[o], zy, p->y_min,
                               p->y_max, results);
            if (plane > 0) /* the channel before's rows */
                qdw_rows_out(p, scratch + (plane - 1) % 2 * results_bytes, row, y + (plane - 1) * ohw, end);
        }
    const int64_t last = p->n * p->m - 1;
    qdw_rows_out(p, scratch + last % 2 * results_bytes, row, y + last * ohw, end);
}
