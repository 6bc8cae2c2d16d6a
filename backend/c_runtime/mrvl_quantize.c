/* mrvl_quantize.c: ONNX QuantizeLinear and DequantizeLinear on the host (cpu.quantize,
 * cpu.dequantize), float32 against int8, uint8, int16, uint16 and int32; DynamicQuantizeLinear
 * (cpu.dynamic_quantize), MatMulInteger (cpu.matmul_integer), ConvInteger (cpu.conv_integer)
 * and their requantization (cpu.requantize) on int8 and uint8; a tensor moved from one 8-bit
 * quantization to another (cpu.rescale); MaxPool on int8 and uint8; onnxruntime's QLinearAdd
 * (cpu.qlinear_add).
 *
 * Included by the generated `<model>.c` after mrvl_kernels.c (internal linkage, as there).
 * The tensor is viewed as (outer, axis, inner) around the quantization axis; element
 * (o, a, i) takes scale and zero point number
 *     o * scale_outer + (a / block) * scale_axis + i * scale_inner,
 * so one struct covers a scale per tensor (all strides 0), per axis (scale_axis 1) and per
 * block of `block` elements along the axis (the scale tensor's own strides).
 */
#include <float.h>
#include <math.h>
#if defined(__aarch64__)
#include <arm_neon.h>
#endif

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* a model calls only some kernels */
#endif

typedef struct {
    int64_t outer, axis, inner, block;
    int64_t scale_outer, scale_axis, scale_inner;
} mrvl_quant_params;

/* Runs BODY (a statement) on every element, `e` its index and `k` that of its scale and
 * zero point; with one scale (every stride 0), in one flat loop the compiler vectorises. */
#define MRVL_FOR_EACH_QUANTIZED(p, BODY)                                                         \
    do {                                                                                         \
        if (!(p)->scale_outer && !(p)->scale_axis && !(p)->scale_inner) {                        \
            const int64_t k = 0, count = (p)->outer * (p)->axis * (p)->inner;                    \
            for (int64_t e = 0; e < count; e++) BODY;                                            \
            break;                                                                               \
        }                                                                                        \
        for (int64_t o = 0; o < (p)->outer; o++)                                                 \
            for (int64_t a = 0; a < (p)->axis; a++) {                                            \
                const int64_t row = (o * (p)->axis + a) * (p)->inner;                            \
                const int64_t first = o * (p)->scale_outer + a / (p)->block * (p)->scale_axis;   \
                for (int64_t i = 0; i < (p)->inner; i++) {                                       \
                    const int64_t e = row + i, k = first + i * (p)->scale_inner;                 \
                    BODY;                                                                        \
                }                                                                                \
            }                                                                                    \
    } while (0)

/* round(x / scale) + zero_point, saturated to [LO, HI]: the division in float32 and halves
 * to even (rintf, in the default rounding mode), as ONNX's reference computes it; the sum in
 * type W: double, exact for every int32, or for 8- and 16-bit types float, exact wherever
 * it does not saturate (|sum| < 2^24) and vectorised. NaN quantizes to LO, as onnxruntime's
 * kernels give it (ONNX leaves it undefined). */
#define MRVL_DEFINE_QUANTIZE(SUFFIX, T, LO, HI, W)                                               \
    static T quantize_one_##SUFFIX(float x, float s, T z)                                        \
    {                                                                                            \
        W v = (W)rintf(x / s) + (W)z;                                                            \
        v = v >= (W)(LO) ? v : (W)(LO); /* NaN too; as selects, the flat loop vectorises */      \
        return (T)(v <= (W)(HI) ? v : (W)(HI));                                                  \
    }                                                                                            \
    static void mrvl_quantize_##SUFFIX(const mrvl_quant_params *p, const float *x,               \
                                       const float *scale, const T *zero_point, T *y)            \
    {                                                                                            \
        MRVL_FOR_EACH_QUANTIZED(p, y[e] = quantize_one_##SUFFIX(x[e], scale[k],                  \
                                                                zero_point ? zero_point[k] : 0)); \
    }

/* (x - zero_point) * scale, each of x and the zero point converted to float32 first, as
 * ONNX's reference computes it (exact for every 8- and 16-bit value). */
#define MRVL_DEFINE_DEQUANTIZE(SUFFIX, T)                                                        \
    static void mrvl_dequantize_##SUFFIX(const mrvl_quant_params *p, const T *x,                 \
                                         const float *scale, const T *zero_point, float *y)      \
    {                                                                                            \
        MRVL_FOR_EACH_QUANTIZED(p, y[e] = ((float)x[e] - (zero_point ? (float)zero_point[k] : 0.0f)) \
                                          * scale[k]);                                           \
    }

MRVL_DEFINE_QUANTIZE(i8, int8_t, -128.0, 127.0, float)
MRVL_DEFINE_QUANTIZE(u8, uint8_t, 0.0, 255.0, float)
MRVL_DEFINE_QUANTIZE(i16, int16_t, -32768.0, 32767.0, float)
MRVL_DEFINE_QUANTIZE(u16, uint16_t, 0.0, 65535.0, float)
MRVL_DEFINE_QUANTIZE(i32, int32_t, -2147483648.0, 2147483647.0, double)
MRVL_DEFINE_DEQUANTIZE(i8, int8_t)
MRVL_DEFINE_DEQUANTIZE(u8, uint8_t)
MRVL_DEFINE_DEQUANTIZE(i16, int16_t)
MRVL_DEFINE_DEQUANTIZE(u16, uint16_t)
MRVL_DEFINE_DEQUANTIZE(i32, int32_t)

/* ONNX DynamicQuantizeLinear, as onnxruntime computes it: x quantized as QuantizeLinear
 * does on the grid dynamic_u8_grid picks for its range. */
static void mrvl_dynamic_quantize_u8(int64_t count, const float *x, uint8_t *y, float *scale, uint8_t *zero_point)
{
    dynamic_u8_grid(count, x, scale, zero_point);
    for (int64_t e = 0; e < count; e++) y[e] = quantize_one_u8(x[e], *scale, *zero_point);
}

/* Softmax of 8-bit integers along an axis of `d` values (cpu.qlinear_softmax: onnxruntime's
 * QLinearSoftmax), over (outer, d, inner). A value x's term is exp((x - max) * x_scale) times
 * exp(shift * x_scale), taken from a table of exp((i - 255 + shift) * x_scale) for i = 255 - (max
 * - x), computed in double and rounded to float; shift = max(0, ln(FLT_MAX / d) - 5) / x_scale
 * keeps d terms' float sum finite. Each result is round(term * floor(1 / y_scale) / sum) plus
 * the zero point, in float32 (halves to even), clamped to T's top (it is never below the zero
 * point). */
#define MRVL_DEFINE_QLINEAR_SOFTMAX(SUFFIX, T, TOP)                                               \
    static void mrvl_qlinear_softmax_##SUFFIX(int64_t outer, int64_t d, int64_t inner, const T *x, \
                                              const float *x_scale, const float *y_scale,        \
                                              const T *y_zero, T *y)                             \
    {                                                                                            \
        float term[256];                                                                         \
        const double shift = fmax(0.0, log((double)(FLT_MAX / (float)d)) - 5.0) / (double)*x_scale; \
        for (int i = 0; i < 256; i++) term[i] = (float)exp(((double)i - 255.0 + shift) * (double)*x_scale); \
        const float y_steps = floorf(1.0f / *y_scale);                                           \
        for (int64_t o = 0; o < outer; o++)                                                      \
            for (int64_t i = 0; i < inner; i++) {                                                \
                const T *row = x + o * d * inner + i;                                            \
                T *out = y + o * d * inner + i;                                                  \
                T top = row[0];                                                                  \
                for (int64_t k = 1; k < d; k++) top = row[k * inner] > top ? row[k * inner] : top; \
                const float *shifted = term + 255 - (int32_t)top;                                \
                float sum = 0.0f;                                                                \
                for (int64_t k = 0; k < d; k++) sum += shifted[row[k * inner]];                  \
                for (int64_t k = 0; k < d; k++) {                                                \
                    const int32_t q = (int32_t)nearbyintf(shifted[row[k * inner]] * y_steps / sum) + *y_zero; \
                    out[k * inner] = (T)(q > TOP ? TOP : q);                                     \
                }                                                                                \
            }                                                                                    \
    }

MRVL_DEFINE_QLINEAR_SOFTMAX(u8, uint8_t, 255)
MRVL_DEFINE_QLINEAR_SOFTMAX(i8, int8_t, 127)

/* ONNX MatMulInteger: numpy's matmul of (A - a_zero_point) and (B - b_zero_point), summed
 * in int32. A zero point is one value, or one per row of A (a_zero_rows) or per column of B
 * (b_zero_columns); NULL is 0. Each row of the result gathers the rows of B, scaled by
 * the row of A, so the inner loop runs along B's row (vectorised). */
#define MRVL_DEFINE_MATMUL_INTEGER(SUFFIX, TA, TB)                                               \
    static void mrvl_matmul_integer_##SUFFIX(const mrvl_matmul_params *p, const TA *a, const TB *b, \
                                             const TA *a_zero, int a_zero_rows, const TB *b_zero, \
                                             int b_zero_columns, int32_t *y)                     \
    {                                                                                            \
        int64_t idx[MRVL_MAX_RANK] = {0}, batches = 1, ao = 0, bo = 0;                           \
        for (int d = 0; d < p->batch_rank; d++) batches *= p->batch[d];                          \
        for (int64_t t = 0; t < batches; t++) {                                                  \
            int32_t *out = y + t * p->m * p->n;                                                  \
            for (int64_t i = 0; i < p->m; i++) {                                                 \
                const int32_t za = a_zero ? a_zero[a_zero_rows ? i : 0] : 0;                     \
                int32_t *row = out + i * p->n;                                                   \
                for (int64_t j = 0; j < p->n; j++) row[j] = 0;                                   \
                for (int64_t q = 0; q < p->k; q++) {                                             \
                    const int32_t av = (int32_t)a[ao + i * p->k + q] - za;                       \
                    const TB *brow = b + bo + q * p->n;                                          \
                    if (b_zero)                                                                  \
                        for (int64_t j = 0; j < p->n; j++)                                       \
                            row[j] += av * ((int32_t)brow[j] - b_zero[b_zero_columns ? j : 0]);  \
                    else                                                                         \
                        for (int64_t j = 0; j < p->n; j++) row[j] += av * (int32_t)brow[j];      \
                }                                                                                \
            }                                                                                    \
            for (int d = p->batch_rank - 1; d >= 0; d--) {                                       \
                idx[d]++;                                                                        \
                ao += p->a_batch_stride[d];                                                      \
                bo += p->b_batch_stride[d];                                                      \
                if (idx[d] < p->batch[d]) break;                                                 \
                ao -= p->a_batch_stride[d] * p->batch[d];                                        \
                bo -= p->b_batch_stride[d] * p->batch[d];                                        \
                idx[d] = 0;                                                                      \
            }                                                                                    \
        }                                                                                        \
    }

/* The sums of a quantized product, requantized as ONNX QLinearMatMul does: the multiplier
 * a_scale * b_scale / y_scale in float32 (a scale per row of each matrix when a_rows, per
 * column when b_columns), the sum times it in double, rounded (halves to even), plus the zero
 * point, saturated. */
#define MRVL_DEFINE_REQUANTIZE(SUFFIX, T, LO, HI)                                                \
    static void mrvl_requantize_##SUFFIX(int64_t matrices, int64_t m, int64_t n, const int32_t *sums, \
                                         const float *a_scale, int a_rows, const float *b_scale, \
                                         int b_columns, const float *y_scale, const T *y_zero, T *y) \
    {                                                                                            \
        for (int64_t t = 0; t < matrices; t++)                                                   \
            for (int64_t i = 0; i < m; i++)                                                      \
                for (int64_t j = 0; j < n; j++) {                                                \
                    const float multiplier = a_scale[a_rows ? i : 0] * b_scale[b_columns ? j : 0] / *y_scale; \
                    const int64_t e = (t * m + i) * n + j;                                       \
                    const double v = rint((double)sums[e] * (double)multiplier) + (double)*y_zero; \
                    y[e] = (T)(v < (LO) ? (LO) : v > (HI) ? (HI) : v);                           \
                }                                                                                \
    }

MRVL_DEFINE_REQUANTIZE(i8, int8_t, -128.0, 127.0)
MRVL_DEFINE_REQUANTIZE(u8, uint8_t, 0.0, 255.0)

/* ONNX ConvInteger in 2-D, NCHW: (X - x_zero) convolved with (W - w_zero), int32 sums, plus
 * bias (per output channel, may be NULL). w_zero per output channel when w_zero_channels. A
 * padded position reads x_zero (it contributes nothing), as the zero-padded difference does. */
typedef struct {
    int64_t n, c, h, w, m, kh, kw, oh, ow, group;
    int64_t stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
} mrvl_conv_integer_params;

#define MRVL_DEFINE_CONV_INTEGER(SUFFIX, TX, TW)                                                 \
    static void mrvl_conv_integer_##SUFFIX(const mrvl_conv_integer_params *p, const TX *x, const TW *w, \
                                           const TX *x_zero, const TW *w_zero, int w_zero_channels, \
                                           const int32_t *bias, int32_t *y)                      \
    {                                                                                            \
        const int64_t cg = p->c / p->group, mg = p->m / p->group;                                \
        const int32_t zx = x_zero ? *x_zero : 0;                                                 \
        for (int64_t b = 0; b < p->n; b++)                                                       \
            for (int64_t o = 0; o < p->m; o++) {                                                 \
                const int32_t zw = w_zero ? w_zero[w_zero_channels ? o : 0] : 0;                 \
                const int64_t first = o / mg * cg;                                               \
                int32_t *out = y + (b * p->m + o) * p->oh * p->ow;                               \
                for (int64_t i = 0; i < p->oh * p->ow; i++) out[i] = bias ? bias[o] : 0;         \
                for (int64_t ci = 0; ci < cg; ci++)                                              \
                    for (int64_t u = 0; u < p->kh; u++)                                          \
                        for (int64_t v = 0; v < p->kw; v++) {                                    \
                            const int32_t wv = (int32_t)w[((o * cg + ci) * p->kh + u) * p->kw + v] - zw; \
                            const TX *plane = x + (b * p->c + first + ci) * p->h * p->w;         \
                            for (int64_t r = 0; r < p->oh; r++) {                                \
                                const int64_t ih = r * p->stride_h + u * p->dilation_h - p->pad_top; \
                                if (ih < 0 || ih >= p->h) continue;                              \
                                for (int64_t s = 0; s < p->ow; s++) {                            \
                                    const int64_t iw = s * p->stride_w + v * p->dilation_w - p->pad_left; \
                                    if (iw >= 0 && iw < p->w)                                    \
                                        out[r * p->ow + s] += wv * ((int32_t)plane[ih * p->w + iw] - zx); \
                                }                                                                \
                            }                                                                    \
                        }                                                                        \
            }                                                                                    \
    }

MRVL_DEFINE_CONV_INTEGER(i8i8, int8_t, int8_t)
MRVL_DEFINE_CONV_INTEGER(i8u8, int8_t, uint8_t)
MRVL_DEFINE_CONV_INTEGER(u8i8, uint8_t, int8_t)
MRVL_DEFINE_CONV_INTEGER(u8u8, uint8_t, uint8_t)

MRVL_DEFINE_MATMUL_INTEGER(i8i8, int8_t, int8_t)
MRVL_DEFINE_MATMUL_INTEGER(i8u8, int8_t, uint8_t)
MRVL_DEFINE_MATMUL_INTEGER(u8i8, uint8_t, int8_t)
MRVL_DEFINE_MATMUL_INTEGER(u8u8, uint8_t, uint8_t)

/* A max pool's output row of stride 2 over `rows` input rows, in vectors: y[s] = max over
 * rows r and taps c of in[r][2 s + c * dilation]. A vector of 16-bit lanes loaded at
 * in[r] + 2 s + o holds in[r][2 s + o] in each lane's low byte, so the bytewise max over the
 * loads holds each output in a low byte (the high bytes are discarded), and two such vectors
 * pack into one of outputs. */
#if defined(__AVX512BW__)
#define MRVL_MAX_POOL_VECTOR 64
typedef __m512i mrvl_max_pool_vector;
#define mrvl_max_pool_load(p) _mm512_loadu_si512((const void *)(p))
#define mrvl_max_pool_max_u8 _mm512_max_epu8
#define mrvl_max_pool_max_i8 _mm512_max_epi8
static inline void mrvl_max_pool_store_low_bytes(void *y, __m512i a, __m512i b)
{
    const __m512i low = _mm512_set1_epi16(0xff);
    const __m512i packed = _mm512_packus_epi16(_mm512_and_si512(a, low), _mm512_and_si512(b, low));
    _mm512_storeu_si512(y, _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), packed));
}
#elif defined(__AVX2__)
#define MRVL_MAX_POOL_VECTOR 32
typedef __m256i mrvl_max_pool_vector;
#define mrvl_max_pool_load(p) _mm256_loadu_si256((const __m256i *)(p))
#define mrvl_max_pool_max_u8 _mm256_max_epu8
#define mrvl_max_pool_max_i8 _mm256_max_epi8
static inline void mrvl_max_pool_store_low_bytes(void *y, __m256i a, __m256i b)
{
    const __m256i low = _mm256_set1_epi16(0xff);
    const __m256i packed = _mm256_packus_epi16(_mm256_and_si256(a, low), _mm256_and_si256(b, low));
    _mm256_storeu_si256((__m256i *)y, _mm256_permute4x64_epi64(packed, 0xd8));
}
#elif defined(__SSE2__)
#define MRVL_MAX_POOL_VECTOR 16
typedef __m128i mrvl_max_pool_vector;
#define mrvl_max_pool_load(p) _mm_loadu_si128((const __m128i *)(p))
#define mrvl_max_pool_max_u8 _mm_max_epu8
#if defined(__SSE4_1__)
#define mrvl_max_pool_max_i8 _mm_max_epi8
#else
/* SSE2 compares bytes unsigned only: the signed max of a and b is that of a + 128 and b + 128, less 128. */
static inline __m128i mrvl_max_pool_max_i8(__m128i a, __m128i b)
{
    const __m128i bias = _mm_set1_epi8(-128);
    return _mm_xor_si128(_mm_max_epu8(_mm_xor_si128(a, bias), _mm_xor_si128(b, bias)), bias);
}
#endif
static inline void mrvl_max_pool_store_low_bytes(void *y, __m128i a, __m128i b)
{
    const __m128i low = _mm_set1_epi16(0xff);
    _mm_storeu_si128((__m128i *)y, _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)));
}
#elif defined(__aarch64__)
/* vld2q de-interleaves: its first vector holds the even bytes. */
#define MRVL_MAX_POOL_VECTOR 16
#endif

#if defined(MRVL_MAX_POOL_VECTOR) && !defined(__aarch64__)
#define MRVL_DEFINE_MAX_TAPS_STRIDE2(SUFFIX, T, NEON)                                            \
    static MRVL_ALWAYS_INLINE void mrvl_max_taps_stride2_##SUFFIX(int64_t count, int64_t taps, int64_t dilation, \
                                                                  int64_t rows, const T *const *in, T *y) \
    {                                                                                            \
        const int64_t half = MRVL_MAX_POOL_VECTOR / 2;                                           \
        for (int64_t s = 0; s < count; s += MRVL_MAX_POOL_VECTOR) {                              \
            mrvl_max_pool_vector first = mrvl_max_pool_load(in[0] + 2 * s);                      \
            mrvl_max_pool_vector second = mrvl_max_pool_load(in[0] + 2 * s + 2 * half);          \
            for (int64_t r = 0; r < rows; r++)                                                   \
                for (int64_t c = r == 0; c < taps; c++) {                                        \
                    const T *at = in[r] + 2 * s + c * dilation;                                  \
                    first = mrvl_max_pool_max_##SUFFIX(first, mrvl_max_pool_load(at));           \
                    second = mrvl_max_pool_max_##SUFFIX(second, mrvl_max_pool_load(at + 2 * half)); \
                }                                                                                \
            mrvl_max_pool_store_low_bytes(y + s, first, second);                                 \
        }                                                                                        \
    }
#elif defined(__aarch64__)
#define MRVL_DEFINE_MAX_TAPS_STRIDE2(SUFFIX, T, NEON)                                            \
    static MRVL_ALWAYS_INLINE void mrvl_max_taps_stride2_##SUFFIX(int64_t count, int64_t taps, int64_t dilation, \
                                                                  int64_t rows, const T *const *in, T *y) \
    {                                                                                            \
        for (int64_t s = 0; s < count; s += MRVL_MAX_POOL_VECTOR) {                              \
            __typeof__(vld2q_##NEON(in[0]).val[0]) acc = vld2q_##NEON(in[0] + 2 * s).val[0];     \
            for (int64_t r = 0; r < rows; r++)                                                   \
                for (int64_t c = r == 0; c < taps; c++)                                          \
                    acc = vmaxq_##NEON(acc, vld2q_##NEON(in[r] + 2 * s + c * dilation).val[0]);  \
            vst1q_##NEON(y + s, acc);                                                            \
        }                                                                                        \
    }
#else
#define MRVL_MAX_POOL_VECTOR 1
#define MRVL_DEFINE_MAX_TAPS_STRIDE2(SUFFIX, T, NEON)                                            \
    static MRVL_ALWAYS_INLINE void mrvl_max_taps_stride2_##SUFFIX(int64_t count, int64_t taps, int64_t dilation, \
                                                                  int64_t rows, const T *const *in, T *y) \
    {                                                                                            \
        for (int64_t s = 0; s < count; s++) {                                                    \
            T m = in[0][2 * s];                                                                  \
            for (int64_t r = 0; r < rows; r++)                                                   \
                for (int64_t c = r == 0; c < taps; c++)                                          \
                    m = in[r][2 * s + c * dilation] > m ? in[r][2 * s + c * dilation] : m;       \
            y[s] = m;                                                                            \
        }                                                                                        \
    }
#endif

/* ONNX MaxPool on 8-bit integers (a QOperator model pools its uint8 or int8 tensors as they
 * are, and a QDQ model's DequantizeLinear -> MaxPool -> QuantizeLinear runs so): NCHW, up to
 * MRVL_SPATIAL spatial dims, padded positions skipped (a window wholly in the padding gives
 * the type's lowest value). With stride 2 and no output's window past its row's end, an
 * output row is the max over the window's input rows and column taps in vectors (above),
 * read where they are: no store is read back, so no load waits for one to forward (the few
 * outputs whose windows reach into the left padding are taken again over the row). Otherwise
 * the max over the window's rows first (`column`, the row padded with the lowest value,
 * which changes no max), then over each column tap: with stride 2 in vectors, else a
 * vectorised run per tap. The row is computed in whole vectors of outputs, straight into y
 * while the vector's excess lands on rows not computed yet, through `row` at the end of y. */
static int64_t mrvl_round_up_max_pool(int64_t count)
{
    return (count + MRVL_MAX_POOL_VECTOR - 1) / MRVL_MAX_POOL_VECTOR * MRVL_MAX_POOL_VECTOR;
}

#define MRVL_DEFINE_MAX_POOL(SUFFIX, T, LOWEST, NEON)                                            \
    MRVL_DEFINE_MAX_TAPS_STRIDE2(SUFFIX, T, NEON)                                                \
    static void mrvl_max_run_##SUFFIX(int64_t count, int64_t stride, const T *restrict in,       \
                                      T *restrict y)                                             \
    {                                                                                            \
        if (stride == 1) {                                                                       \
            for (int64_t k = 0; k < count; k++) y[k] = in[k] > y[k] ? in[k] : y[k];              \
        } else {                                                                                 \
            for (int64_t k = 0; k < count; k++) y[k] = in[k * stride] > y[k] ? in[k * stride] : y[k]; \
        }                                                                                        \
    }                                                                                            \
    static void mrvl_max_pool_##SUFFIX(const mrvl_pool_params *p, const T *x, T *y)              \
    {                                                                                            \
        const int64_t plane = p->in[0] * p->in[1] * p->in[2], width = p->in[2], ow = p->out[2];  \
        const int64_t sw = p->stride[2], taps = p->kernel[2], dw = p->dilation[2];               \
        const int64_t chunks = mrvl_round_up_max_pool(ow), span = chunks * sw + (taps - 1) * dw + 1; \
        const int64_t first = p->pad_begin[2] < span ? p->pad_begin[2] : span;                   \
        const int64_t last = p->pad_begin[2] + width < span ? p->pad_begin[2] + width : span;    \
        const int64_t inside = last - first, whole = mrvl_round_up_max_pool(inside);             \
        const int64_t right = (ow - 1) * sw + (taps - 1) * dw + 1; /* what the outputs read */   \
        const T *const x_end = x + p->n * p->c * plane;                                          \
        T *const y_end = y + p->n * p->c * p->out[0] * p->out[1] * ow;                           \
        /* with stride 2 and no output's window past its row's end, the rows are read where they \
         * are, from pad_left before their start (reach: how far the vectors read from there);   \
         * the first `lead` outputs, whose windows reach into the left padding, are then taken   \
         * again over their columns inside the row */                                           \
        const int64_t pad_left = p->pad_begin[2];                                                \
        const int inside_row = right <= pad_left + width;                                        \
        const int64_t reach = 2 * chunks + (taps - 1) * dw;                                      \
        const int64_t lead = (pad_left + 1) / 2 < ow ? (pad_left + 1) / 2 : ow;                  \
        const T *const x_begin = x;                                                              \
        T column[span > first + whole ? span : first + whole], row[chunks];                      \
        const T *in[p->kernel[0] * p->kernel[1]];                                                \
        for (int64_t j = 0; j < span; j++) column[j] = LOWEST;                                   \
        for (int64_t nc = 0; nc < p->n * p->c; nc++, x += plane)                                 \
            for (int64_t od = 0; od < p->out[0]; od++)                                           \
                for (int64_t oh = 0; oh < p->out[1]; oh++, y += ow) {                            \
                    int64_t rows = 0;                                                            \
                    for (int64_t a = 0; a < p->kernel[0]; a++) {                                 \
                        const int64_t id = od * p->stride[0] + a * p->dilation[0] - p->pad_begin[0]; \
                        if (id < 0 || id >= p->in[0]) continue;                                  \
                        for (int64_t b = 0; b < p->kernel[1]; b++) {                             \
                            const int64_t ih = oh * p->stride[1] + b * p->dilation[1] - p->pad_begin[1]; \
                            if (ih >= 0 && ih < p->in[1]) in[rows++] = x + (id * p->in[1] + ih) * width; \
                        }                                                                        \
                    }                                                                            \
                    T *out = y_end - y >= chunks ? y : row;                                      \
                    if (sw == 2 && inside_row && rows > 0 && in[0] - x_begin >= pad_left &&     \
                        x_end - in[rows - 1] + pad_left >= reach) {                              \
                        for (int64_t r = 0; r < rows; r++) in[r] -= pad_left;                    \
                        if (taps == 3 && dw == 1 && rows == 3) /* the common window, unrolled */ \
                            mrvl_max_taps_stride2_##SUFFIX(chunks, 3, 1, 3, in, out);            \
                        else                                                                     \
                            mrvl_max_taps_stride2_##SUFFIX(chunks, taps, dw, rows, in, out);     \
                        for (int64_t s = 0; s < lead; s++) {                                     \
                            T m = LOWEST;                                                        \
                            for (int64_t c = 0; c < taps; c++)                                   \
                                if (2 * s + c * dw >= pad_left)                                  \
                                    for (int64_t r = 0; r < rows; r++)                           \
                                        m = in[r][2 * s + c * dw] > m ? in[r][2 * s + c * dw] : m; \
                            out[s] = m;                                                          \
                        }                                                                        \
                    } else {                                                                     \
                        for (int64_t r = 0; r < rows && inside > 0; r++) {                       \
                            const int64_t count = x_end - in[r] >= whole ? whole : inside;       \
                            T *restrict to = column + first;                                     \
                            if (r == 0)                                                          \
                                for (int64_t j = 0; j < count; j++) to[j] = in[r][j];            \
                            else                                                                 \
                                for (int64_t j = 0; j < count; j++) to[j] = in[r][j] > to[j] ? in[r][j] : to[j]; \
                        }                                                                        \
                        if (rows == 0)                                                           \
                            for (int64_t j = first; j < last; j++) column[j] = LOWEST;           \
                        for (int64_t j = last; j < right; j++) column[j] = LOWEST;               \
                        if (sw == 2) {                                                           \
                            const T *padded = column;                                            \
                            mrvl_max_taps_stride2_##SUFFIX(chunks, taps, dw, 1, &padded, out);   \
                        } else {                                                                 \
                            for (int64_t s = 0; s < chunks; s++) out[s] = LOWEST;                \
                            for (int64_t c = 0; c < taps; c++)                                   \
                                mrvl_max_run_##SUFFIX(chunks, sw, column + c * dw, out);         \
                        }                                                                        \
                    }                                                                            \
                    if (out == row) memcpy(y, row, (size_t)ow * sizeof *y);                      \
                }                                                                                \
    }

MRVL_DEFINE_MAX_POOL(u8, uint8_t, 0, u8)
MRVL_DEFINE_MAX_POOL(i8, int8_t, -128, s8)

/* y[e] = table[x[e]] over bytes: with AVX-512 VBMI 64 lookups in two two-register byte
 * permutes (index bits 0-6) and a blend on bit 7; on Arm 16 in four four-register tbl/tbx. */
static void mrvl_lookup_bytes(int64_t count, const uint8_t *table, const uint8_t *x, uint8_t *y)
{
    int64_t e = 0;
#if defined(__AVX512VBMI__) && defined(__AVX512BW__)
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    for (; e < count; e += 64) {
        const __mmask64 in = count - e >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (count - e)) - 1;
        const __m512i v = _mm512_maskz_loadu_epi8(in, x + e);
        const __m512i low = _mm512_permutex2var_epi8(t0, v, t1), high = _mm512_permutex2var_epi8(t2, v, t3);
        _mm512_mask_storeu_epi8(y + e, in, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high));
    }
#elif defined(__aarch64__)
    const uint8x16x4_t t0 = vld1q_u8_x4(table), t1 = vld1q_u8_x4(table + 64);
    const uint8x16x4_t t2 = vld1q_u8_x4(table + 128), t3 = vld1q_u8_x4(table + 192);
    const uint8x16_t quarter = vdupq_n_u8(64);
    for (; e + 16 <= count; e += 16) {
        /* tbl gives 0 and tbx keeps the lane for an index past 63 */
        const uint8x16_t v = vld1q_u8(x + e), v1 = vsubq_u8(v, quarter), v2 = vsubq_u8(v1, quarter);
        uint8x16_t r = vqtbl4q_u8(t0, v);
        r = vqtbx4q_u8(r, t1, v1);
        r = vqtbx4q_u8(r, t2, v2);
        vst1q_u8(y + e, vqtbx4q_u8(r, t3, vsubq_u8(v2, quarter)));
    }
#endif
    for (; e < count; e++) y[e] = table[x[e]];
}

/* QuantizeLinear(DequantizeLinear(x)) of 8-bit integers, one scale and zero point each
 * (cpu.rescale): the results of the 256 inputs in a table, computed as the two kernels above
 * compute them, then one lookup per element. */
#define MRVL_DEFINE_RESCALE(SUFFIX, TX, X_LO, X_HI, TY, Y_SUFFIX)                                \
    static void mrvl_rescale_##SUFFIX(int64_t count, const TX *x, const float *x_scale,          \
                                      const TX *x_zero, const float *y_scale, const TY *y_zero,  \
                                      TY *y)                                                     \
    {                                                                                            \
        TY table[256];                                                                           \
        for (int v = X_LO; v <= X_HI; v++)                                                       \
            table[(uint8_t)v] = quantize_one_##Y_SUFFIX(((float)v - (float)*x_zero) * *x_scale,  \
                                                        *y_scale, *y_zero);                      \
        mrvl_lookup_bytes(count, (const uint8_t *)table, (const uint8_t *)x, (uint8_t *)y);      \
    }

MRVL_DEFINE_RESCALE(i8i8, int8_t, -128, 127, int8_t, i8)
MRVL_DEFINE_RESCALE(i8u8, int8_t, -128, 127, uint8_t, u8)
MRVL_DEFINE_RESCALE(u8i8, uint8_t, 0, 255, int8_t, i8)
MRVL_DEFINE_RESCALE(u8u8, uint8_t, 0, 255, uint8_t, u8)

#if defined(__AVX512F__) && defined(__AVX512BW__)
/* 16 elements of qlinear_add (below) in float32: the fused multiply-adds of the scalar loop,
 * at most hi, rounded by the default rounding mode (halves to even, as rintf), as int32; a
 * value below int32's range converts to its lowest, so that a saturating narrowing or a max
 * does the low clamp. */
static MRVL_ALWAYS_INLINE __m512i mrvl_qlinear_add16(__m512i a, __m512i b, __m512 ra, __m512 rb, __m512 constant,
                                                     __m512 hi)
{
    const __m512 v = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a), ra,
                                     _mm512_fmadd_ps(_mm512_cvtepi32_ps(b), rb, constant));
    return _mm512_cvtps_epi32(_mm512_min_ps(hi, v)); /* a NaN (of infinite ratios) stays one: the lowest */
}
/* Bytes widened straight from memory (the compiler's vectorisation of the scalar loop widened
 * in three steps and clamped through compares and blends: 1.4x onnxruntime's time on
 * ResNet-50's 56x56 Adds), 64 at a time narrowed with saturation by packs (mrvl_narrow64),
 * then the last ones 16 at a time, masked. */
#define MRVL_QLINEAR_ADD_VECTORS(WIDEN, LO, HI, IS_SIGNED)                                       \
    do {                                                                                         \
        const __m512 ra_v = _mm512_set1_ps(ra), rb_v = _mm512_set1_ps(rb);                       \
        const __m512 constant_v = _mm512_set1_ps(constant), hi_v = _mm512_set1_ps(HI);           \
        const __m512i lo_v = _mm512_set1_epi32((int32_t)(LO));                                   \
        for (; e + 64 <= count; e += 64) {                                                       \
            __m512i q[4];                                                                        \
            for (int i = 0; i < 4; i++) {                                                        \
                const __m128i *at = (const __m128i *)(const void *)(a + e + 16 * i);             \
                const __m128i *bt = (const __m128i *)(const void *)(b + e + 16 * i);             \
                q[i] = mrvl_qlinear_add16(WIDEN(_mm_loadu_si128(at)), WIDEN(_mm_loadu_si128(bt)), ra_v, rb_v, \
                                          constant_v, hi_v);                                     \
            }                                                                                    \
            const __m512i bytes = mrvl_narrow64(q[0], q[1], q[2], q[3], _mm512_setzero_si512(), IS_SIGNED); \
            _mm512_storeu_si512(y + e, bytes);                                                   \
        }                                                                                        \
        for (; e < count; e += 16) {                                                             \
            const __mmask16 in = count - e >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (count - e)) - 1); \
            const __m512i av = WIDEN(_mm_maskz_loadu_epi8(in, a + e));                           \
            const __m512i bv = WIDEN(_mm_maskz_loadu_epi8(in, b + e));                           \
            const __m512i q = mrvl_qlinear_add16(av, bv, ra_v, rb_v, constant_v, hi_v);          \
            _mm_mask_storeu_epi8(y + e, in, _mm512_cvtepi32_epi8(_mm512_max_epi32(q, lo_v)));    \
        }                                                                                        \
    } while (0)
#else
#define MRVL_QLINEAR_ADD_VECTORS(WIDEN, LO, HI, IS_SIGNED) ((void)0)
#endif

/* onnxruntime's QLinearAdd of two 8-bit tensors of one shape (cpu.qlinear_add), as its AVX2
 * kernel computes it: the ratios of the inputs' scales to the output's and the constant part
 * in float32, each value converted to float32 and multiplied in with a fused multiply-add
 * (one rounding, so every target gives the same bytes), rounded halves to even, saturated. */
#define MRVL_DEFINE_QLINEAR_ADD(SUFFIX, T, LO, HI, WIDEN, IS_SIGNED)                             \
    static void mrvl_qlinear_add_##SUFFIX(int64_t count, const T *a, const float *a_scale,       \
                                          const T *a_zero, const T *b, const float *b_scale,     \
                                          const T *b_zero, const float *y_scale, const T *y_zero, \
                                          T *restrict y)                                         \
    {                                                                                            \
        const float ra = *a_scale / *y_scale, rb = *b_scale / *y_scale;                          \
        const float constant = (float)*y_zero - fmaf(ra, (float)*a_zero, rb * (float)*b_zero);   \
        int64_t e = 0;                                                                           \
        MRVL_QLINEAR_ADD_VECTORS(WIDEN, LO, HI, IS_SIGNED);                                      \
        for (; e < count; e++) {                                                                 \
            const float v = fmaf((float)a[e], ra, fmaf((float)b[e], rb, constant));              \
            y[e] = (T)(int32_t)rintf(v < (LO) ? (LO) : v > (HI) ? (HI) : v);                     \
        }                                                                                        \
    }

MRVL_DEFINE_QLINEAR_ADD(u8, uint8_t, 0.0f, 255.0f, _mm512_cvtepu8_epi32, 0)
MRVL_DEFINE_QLINEAR_ADD(i8, int8_t, -128.0f, 127.0f, _mm512_cvtepi8_epi32, 1)

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
