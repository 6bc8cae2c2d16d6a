/* mrvl_kernels.c: plain-loop C99 host kernels (see mrvl_kernels.h). */
#include "mrvl_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* --- Convolution, pooling, matrix products ---------------------------------------- */

/* The output range [lo, hi) whose input index o * stride - pad + k lies in [0, size). */
static void valid_range(int64_t out, int64_t size, int64_t stride, int64_t offset, int64_t *lo, int64_t *hi)
{
    /* i = o * stride + offset, 0 <= i < size */
    int64_t a = -offset, b = size - 1 - offset;
    int64_t l = a <= 0 ? 0 : (a + stride - 1) / stride;
    int64_t h = b < 0 ? 0 : b / stride + 1;
    *lo = l;
    *hi = h < out ? h : out;
    if (*hi < *lo) *hi = *lo;
}

void mrvl_conv2d_f32(const mrvl_conv2d_params *p, const float *x, const float *w, const float *b, float *y)
{
    int64_t cg = p->c / p->group, mg = p->m / p->group, plane = p->oh * p->ow;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t m = 0; m < p->m; m++) {
            float *out = y + (n * p->m + m) * plane;
            float bias = b ? b[m] : 0.0f;
            for (int64_t i = 0; i < plane; i++) out[i] = bias;
            int64_t g = m / mg;
            for (int64_t c = 0; c < cg; c++) {
                const float *in = x + (n * p->c + g * cg + c) * p->h * p->w;
                for (int64_t kh = 0; kh < p->kh; kh++) {
                    int64_t oh0, oh1;
                    valid_range(p->oh, p->h, p->stride_h, kh * p->dilation_h - p->pad_top, &oh0, &oh1);
                    for (int64_t kw = 0; kw < p->kw; kw++) {
                        float wv = w[((m * cg + c) * p->kh + kh) * p->kw + kw];
                        int64_t ow0, ow1, off_w = kw * p->dilation_w - p->pad_left;
                        valid_range(p->ow, p->w, p->stride_w, off_w, &ow0, &ow1);
                        for (int64_t oh = oh0; oh < oh1; oh++) {
                            const float *row = in + (oh * p->stride_h + kh * p->dilation_h - p->pad_top) * p->w;
                            float *o = out + oh * p->ow;
                            if (p->stride_w == 1) {
                                const float *r = row + off_w;
                                for (int64_t ow = ow0; ow < ow1; ow++) o[ow] += wv * r[ow];
                            } else {
                                for (int64_t ow = ow0; ow < ow1; ow++) o[ow] += wv * row[ow * p->stride_w + off_w];
                            }
                        }
                    }
                }
            }
        }
    }
}

void mrvl_conv_transpose2d_f32(const mrvl_conv2d_params *p, const float *x, const float *w, const float *b,
                               float *y)
{
    int64_t cg = p->c / p->group, mg = p->m / p->group, plane = p->oh * p->ow;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t m = 0; m < p->m; m++) {
            float bias = b ? b[m] : 0.0f;
            float *out = y + (n * p->m + m) * plane;
            for (int64_t i = 0; i < plane; i++) out[i] = bias;
        }
        for (int64_t c = 0; c < p->c; c++) {
            int64_t g = c / cg;
            const float *in = x + (n * p->c + c) * p->h * p->w;
            for (int64_t ml = 0; ml < mg; ml++) {
                int64_t m = g * mg + ml;
                float *out = y + (n * p->m + m) * plane;
                for (int64_t kh = 0; kh < p->kh; kh++) {
                    for (int64_t kw = 0; kw < p->kw; kw++) {
                        float wv = w[((c * mg + ml) * p->kh + kh) * p->kw + kw];
                        for (int64_t ih = 0; ih < p->h; ih++) {
                            int64_t oh = ih * p->stride_h + kh * p->dilation_h - p->pad_top;
                            if (oh < 0 || oh >= p->oh) continue;
                            for (int64_t iw = 0; iw < p->w; iw++) {
                                int64_t ow = iw * p->stride_w + kw * p->dilation_w - p->pad_left;
                                if (ow < 0 || ow >= p->ow) continue;
                                out[oh * p->ow + ow] += wv * in[ih * p->w + iw];
                            }
                        }
                    }
                }
            }
        }
    }
}

void mrvl_pool2d_f32(const mrvl_pool2d_params *p, const float *x, float *y)
{
    for (int64_t nc = 0; nc < p->n * p->c; nc++) {
        const float *in = x + nc * p->h * p->w;
        float *out = y + nc * p->oh * p->ow;
        for (int64_t oh = 0; oh < p->oh; oh++) {
            for (int64_t ow = 0; ow < p->ow; ow++) {
                float acc = p->is_max ? -INFINITY : 0.0f;
                int64_t valid = 0, padded = 0;
                for (int64_t kh = 0; kh < p->kh; kh++) {
                    int64_t ih = oh * p->stride_h - p->pad_top + kh * p->dilation_h;
                    int in_h = ih >= 0 && ih < p->h;
                    int pad_h = ih >= -p->pad_top && ih < p->h + p->pad_bottom;
                    for (int64_t kw = 0; kw < p->kw; kw++) {
                        int64_t iw = ow * p->stride_w - p->pad_left + kw * p->dilation_w;
                        if (pad_h && iw >= -p->pad_left && iw < p->w + p->pad_right) padded++;
                        if (!in_h || iw < 0 || iw >= p->w) continue;
                        float v = in[ih * p->w + iw];
                        valid++;
                        if (p->is_max) acc = v > acc ? v : acc;
                        else acc += v;
                    }
                }
                if (!p->is_max) {
                    int64_t count = p->count_include_pad ? padded : valid;
                    acc = count ? acc / (float)count : 0.0f;
                }
                out[oh * p->ow + ow] = acc;
            }
        }
    }
}

void mrvl_global_pool_f32(int is_max, int64_t rows, int64_t size, const float *x, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *in = x + r * size;
        double acc = is_max ? -INFINITY : 0.0; /* a double sum: exact enough for large planes */
        for (int64_t i = 0; i < size; i++) acc = is_max ? (in[i] > acc ? in[i] : acc) : acc + in[i];
        y[r] = is_max ? (float)acc : (float)(acc / (double)size);
    }
}

void mrvl_gemm_f32(const mrvl_gemm_params *p, const float *a, const float *b, const float *c, float *y)
{
    /* a (m, k) or (k, m); b (k, n) or (n, k) */
    int64_t a_rs = p->trans_a ? 1 : p->k, a_ks = p->trans_a ? p->m : 1;
    int64_t b_ks = p->trans_b ? 1 : p->n, b_cs = p->trans_b ? p->k : 1;
    for (int64_t i = 0; i < p->m; i++) {
        float *out = y + i * p->n;
        for (int64_t j = 0; j < p->n; j++) out[j] = 0.0f;
        for (int64_t kk = 0; kk < p->k; kk++) {
            float av = a[i * a_rs + kk * a_ks];
            const float *brow = b + kk * b_ks;
            if (b_cs == 1) {
                for (int64_t j = 0; j < p->n; j++) out[j] += av * brow[j];
            } else {
                for (int64_t j = 0; j < p->n; j++) out[j] += av * brow[j * b_cs];
            }
        }
        for (int64_t j = 0; j < p->n; j++) {
            float v = p->alpha * out[j];
            if (c) v += p->beta * c[i * p->c_row_stride + j * p->c_col_stride];
            out[j] = v;
        }
    }
}

void mrvl_matmul_f32(const mrvl_matmul_params *p, const float *a, const float *b, float *y)
{
    int64_t idx[MRVL_MAX_RANK] = {0}, batches = 1, ao = 0, bo = 0;
    for (int d = 0; d < p->batch_rank; d++) batches *= p->batch[d];
    for (int64_t t = 0; t < batches; t++) {
        const float *A = a + ao, *B = b + bo;
        float *Y = y + t * p->m * p->n;
        for (int64_t i = 0; i < p->m; i++) {
            float *out = Y + i * p->n;
            for (int64_t j = 0; j < p->n; j++) out[j] = 0.0f;
            for (int64_t kk = 0; kk < p->k; kk++) {
                float av = A[i * p->k + kk];
                const float *brow = B + kk * p->n;
                for (int64_t j = 0; j < p->n; j++) out[j] += av * brow[j];
            }
        }
        for (int d = p->batch_rank - 1; d >= 0; d--) {
            idx[d]++;
            ao += p->a_batch_stride[d];
            bo += p->b_batch_stride[d];
            if (idx[d] < p->batch[d]) break;
            ao -= p->a_batch_stride[d] * p->batch[d];
            bo -= p->b_batch_stride[d] * p->batch[d];
            idx[d] = 0;
        }
    }
}

/* --- Elementwise ------------------------------------------------------------------ */

/* Runs BODY for every element of p's shape with `o` the result offset and `ia`, `ib`, `ic`
 * the operands' offsets: rows of the last dim, the outer dims by an odometer. */
#define MRVL_BROADCAST_LOOP(p, BODY)                                                          \
    do {                                                                                      \
        int rank_ = (p)->rank;                                                                \
        int64_t last_ = rank_ ? (p)->shape[rank_ - 1] : 1;                                    \
        int64_t as_ = rank_ ? (p)->a_stride[rank_ - 1] : 0;                                   \
        int64_t bs_ = rank_ ? (p)->b_stride[rank_ - 1] : 0;                                   \
        int64_t cs_ = rank_ ? (p)->c_stride[rank_ - 1] : 0;                                   \
        int64_t rows_ = 1, idx_[MRVL_MAX_RANK] = {0}, ra_ = 0, rb_ = 0, rc_ = 0;              \
        for (int d_ = 0; d_ + 1 < rank_; d_++) rows_ *= (p)->shape[d_];                       \
        for (int64_t r_ = 0; r_ < rows_; r_++) {                                              \
            for (int64_t j_ = 0; j_ < last_; j_++) {                                          \
                int64_t o = r_ * last_ + j_, ia = ra_ + j_ * as_, ib = rb_ + j_ * bs_;        \
                int64_t ic = rc_ + j_ * cs_;                                                  \
                (void)ic;                                                                     \
                BODY;                                                                         \
            }                                                                                 \
            for (int d_ = rank_ - 2; d_ >= 0; d_--) {                                         \
                idx_[d_]++;                                                                   \
                ra_ += (p)->a_stride[d_];                                                     \
                rb_ += (p)->b_stride[d_];                                                     \
                rc_ += (p)->c_stride[d_];                                                     \
                if (idx_[d_] < (p)->shape[d_]) break;                                         \
                ra_ -= (p)->a_stride[d_] * (p)->shape[d_];                                    \
                rb_ -= (p)->b_stride[d_] * (p)->shape[d_];                                    \
                rc_ -= (p)->c_stride[d_] * (p)->shape[d_];                                    \
                idx_[d_] = 0;                                                                 \
            }                                                                                 \
        }                                                                                     \
    } while (0)

static float py_mod(float a, float b)
{
    float r = fmodf(a, b);
    if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b;
    return r;
}

void mrvl_binary_f32(int kind, const mrvl_broadcast *p, const float *a, const float *b, void *y)
{
    float *f = (float *)y;
    uint8_t *u = (uint8_t *)y;
    switch (kind) {
    case MRVL_ADD: MRVL_BROADCAST_LOOP(p, f[o] = a[ia] + b[ib]); break;
    case MRVL_SUB: MRVL_BROADCAST_LOOP(p, f[o] = a[ia] - b[ib]); break;
    case MRVL_MUL: MRVL_BROADCAST_LOOP(p, f[o] = a[ia] * b[ib]); break;
    case MRVL_DIV: MRVL_BROADCAST_LOOP(p, f[o] = a[ia] / b[ib]); break;
    case MRVL_POW: MRVL_BROADCAST_LOOP(p, f[o] = powf(a[ia], b[ib])); break;
    case MRVL_MAX: MRVL_BROADCAST_LOOP(p, f[o] = fmaxf(a[ia], b[ib])); break;
    case MRVL_MIN: MRVL_BROADCAST_LOOP(p, f[o] = fminf(a[ia], b[ib])); break;
    case MRVL_MOD: MRVL_BROADCAST_LOOP(p, f[o] = py_mod(a[ia], b[ib])); break;
    case MRVL_FMOD: MRVL_BROADCAST_LOOP(p, f[o] = fmodf(a[ia], b[ib])); break;
    case MRVL_PRELU: MRVL_BROADCAST_LOOP(p, f[o] = a[ia] < 0.0f ? a[ia] * b[ib] : a[ia]); break;
    case MRVL_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] == b[ib]); break;
    case MRVL_LESS: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] < b[ib]); break;
    case MRVL_LESS_OR_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] <= b[ib]); break;
    case MRVL_GREATER: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] > b[ib]); break;
    case MRVL_GREATER_OR_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] >= b[ib]); break;
    default: break; /* the emitter only passes the kinds above */
    }
}

void mrvl_binary_bool(int kind, const mrvl_broadcast *p, const uint8_t *a, const uint8_t *b, uint8_t *y)
{
    switch (kind) {
    case MRVL_AND: MRVL_BROADCAST_LOOP(p, y[o] = a[ia] && b[ib]); break;
    case MRVL_OR: MRVL_BROADCAST_LOOP(p, y[o] = a[ia] || b[ib]); break;
    case MRVL_XOR: MRVL_BROADCAST_LOOP(p, y[o] = (a[ia] != 0) != (b[ib] != 0)); break;
    case MRVL_EQUAL: MRVL_BROADCAST_LOOP(p, y[o] = (a[ia] != 0) == (b[ib] != 0)); break;
    default: break;
    }
}

void mrvl_where(const mrvl_broadcast *p, const uint8_t *cond, const void *a, const void *b, void *y, size_t elem)
{
    const char *ca = (const char *)a, *cb = (const char *)b;
    char *cy = (char *)y;
    MRVL_BROADCAST_LOOP(p, memcpy(cy + o * elem, cond[ia] ? ca + ib * elem : cb + ic * elem, elem));
}

static float erf_gelu(float x) { return x * 0.5f * (1.0f + erff(x * 0.70710678118654752f)); }

static float tanh_gelu(float x)
{
    return x * 0.5f * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}

void mrvl_unary_f32(int kind, int64_t count, const float *x, float *y)
{
    int64_t i;
#define MRVL_UNARY(EXPR) for (i = 0; i < count; i++) { float v = x[i]; y[i] = (EXPR); } break
    switch (kind) {
    case MRVL_RELU: MRVL_UNARY(v > 0.0f ? v : 0.0f);
    case MRVL_SIGMOID: MRVL_UNARY(1.0f / (1.0f + expf(-v)));
    case MRVL_TANH: MRVL_UNARY(tanhf(v));
    case MRVL_SQRT: MRVL_UNARY(sqrtf(v));
    case MRVL_EXP: MRVL_UNARY(expf(v));
    case MRVL_LOG: MRVL_UNARY(logf(v));
    case MRVL_ERF: MRVL_UNARY(erff(v));
    case MRVL_NEG: MRVL_UNARY(-v);
    case MRVL_ABS: MRVL_UNARY(fabsf(v));
    case MRVL_RECIPROCAL: MRVL_UNARY(1.0f / v);
    case MRVL_FLOOR: MRVL_UNARY(floorf(v));
    case MRVL_CEIL: MRVL_UNARY(ceilf(v));
    case MRVL_ROUND: MRVL_UNARY(nearbyintf(v));
    case MRVL_SIGN: MRVL_UNARY(v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : v));
    case MRVL_SIN: MRVL_UNARY(sinf(v));
    case MRVL_COS: MRVL_UNARY(cosf(v));
    case MRVL_TAN: MRVL_UNARY(tanf(v));
    case MRVL_ASIN: MRVL_UNARY(asinf(v));
    case MRVL_ACOS: MRVL_UNARY(acosf(v));
    case MRVL_ATAN: MRVL_UNARY(atanf(v));
    case MRVL_SINH: MRVL_UNARY(sinhf(v));
    case MRVL_COSH: MRVL_UNARY(coshf(v));
    case MRVL_ASINH: MRVL_UNARY(asinhf(v));
    case MRVL_ACOSH: MRVL_UNARY(acoshf(v));
    case MRVL_ATANH: MRVL_UNARY(atanhf(v));
    case MRVL_IDENTITY: MRVL_UNARY(v);
    case MRVL_SOFTPLUS: MRVL_UNARY(v > 20.0f ? v : log1pf(expf(v)));
    case MRVL_SOFTSIGN: MRVL_UNARY(v / (1.0f + fabsf(v)));
    case MRVL_GELU: MRVL_UNARY(erf_gelu(v));
    case MRVL_GELU_TANH: MRVL_UNARY(tanh_gelu(v));
    default: break;
    }
#undef MRVL_UNARY
}

void mrvl_not(int64_t count, const uint8_t *x, uint8_t *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = !x[i];
}

void mrvl_clip_f32(int64_t count, float low, float high, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) {
        float v = x[i] < low ? low : x[i];
        y[i] = v > high ? high : v;
    }
}

void mrvl_leaky_relu_f32(int64_t count, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
}

void mrvl_hard_sigmoid_f32(int64_t count, float alpha, float beta, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) {
        float v = alpha * x[i] + beta;
        y[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
}

void mrvl_hard_swish_f32(int64_t count, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) {
        float v = x[i] / 6.0f + 0.5f;
        y[i] = x[i] * (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v));
    }
}

/* IEEE half and bfloat16 <-> float, round to nearest even. */
static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    float f;
    if (exp == 0) {
        f = ldexpf((float)man, -24);
        return sign ? -f : f;
    }
    bits = exp == 31 ? (sign | 0x7f800000u | (man << 13)) : (sign | ((exp + 112u) << 23) | (man << 13));
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    float a = fabsf(f);
    if (a != a) return (uint16_t)(sign | 0x7e00u);
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7c00u);
    if (a < 6.103515625e-05f) { /* subnormal: multiples of 2^-24 */
        return (uint16_t)(sign | (uint16_t)nearbyintf(a * 16777216.0f));
    }
    uint32_t e = ((bits >> 23) & 0xffu) - 112u, m = bits & 0x7fffffu;
    uint32_t h = (e << 10) | (m >> 13), rest = m & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if (f != f) return (uint16_t)((bits >> 16) | 0x40u);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

static double load_element(int type, const void *x, int64_t i)
{
    switch (type) {
    case MRVL_F32: return ((const float *)x)[i];
    case MRVL_F64: return ((const double *)x)[i];
    case MRVL_F16: return half_to_float(((const uint16_t *)x)[i]);
    case MRVL_BF16: return bf16_to_float(((const uint16_t *)x)[i]);
    case MRVL_I8: return ((const int8_t *)x)[i];
    case MRVL_I16: return ((const int16_t *)x)[i];
    case MRVL_I32: return ((const int32_t *)x)[i];
    case MRVL_I64: return (double)((const int64_t *)x)[i];
    case MRVL_U8: return ((const uint8_t *)x)[i];
    case MRVL_U16: return ((const uint16_t *)x)[i];
    case MRVL_U32: return ((const uint32_t *)x)[i];
    case MRVL_U64: return (double)((const uint64_t *)x)[i];
    case MRVL_BOOL: return ((const uint8_t *)x)[i] != 0;
    default: return 0.0;
    }
}

static void store_element(int type, void *y, int64_t i, double v)
{
    switch (type) {
    case MRVL_F32: ((float *)y)[i] = (float)v; break;
    case MRVL_F64: ((double *)y)[i] = v; break;
    case MRVL_F16: ((uint16_t *)y)[i] = float_to_half((float)v); break;
    case MRVL_BF16: ((uint16_t *)y)[i] = float_to_bf16((float)v); break;
    case MRVL_I8: ((int8_t *)y)[i] = (int8_t)v; break;
    case MRVL_I16: ((int16_t *)y)[i] = (int16_t)v; break;
    case MRVL_I32: ((int32_t *)y)[i] = (int32_t)v; break;
    case MRVL_I64: ((int64_t *)y)[i] = (int64_t)v; break;
    case MRVL_U8: ((uint8_t *)y)[i] = (uint8_t)v; break;
    case MRVL_U16: ((uint16_t *)y)[i] = (uint16_t)v; break;
    case MRVL_U32: ((uint32_t *)y)[i] = (uint32_t)v; break;
    case MRVL_U64: ((uint64_t *)y)[i] = (uint64_t)v; break;
    case MRVL_BOOL: ((uint8_t *)y)[i] = v != 0.0; break;
    default: break;
    }
}

void mrvl_cast(int64_t count, int from, const void *x, int to, void *y)
{
    /* Through double: exact for every type but 64-bit integers beyond 2^53. */
    if (from == MRVL_I64 && to == MRVL_I32) {
        for (int64_t i = 0; i < count; i++) ((int32_t *)y)[i] = (int32_t)((const int64_t *)x)[i];
        return;
    }
    if (from == MRVL_I32 && to == MRVL_I64) {
        for (int64_t i = 0; i < count; i++) ((int64_t *)y)[i] = ((const int32_t *)x)[i];
        return;
    }
    for (int64_t i = 0; i < count; i++) store_element(to, y, i, load_element(from, x, i));
}

/* --- Normalisation ---------------------------------------------------------------- */

void mrvl_softmax_f32(int64_t outer, int64_t axis, int64_t inner, const float *x, float *y)
{
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            const float *in = x + o * axis * inner + i;
            float *out = y + o * axis * inner + i;
            float max = -INFINITY, sum = 0.0f;
            for (int64_t a = 0; a < axis; a++) max = in[a * inner] > max ? in[a * inner] : max;
            for (int64_t a = 0; a < axis; a++) {
                out[a * inner] = expf(in[a * inner] - max);
                sum += out[a * inner];
            }
            for (int64_t a = 0; a < axis; a++) out[a * inner] /= sum;
        }
    }
}

void mrvl_layer_norm_f32(int64_t rows, int64_t size, float epsilon, const float *x, const float *scale,
                         const float *b, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *in = x + r * size;
        float *out = y + r * size;
        double sum = 0.0, sq = 0.0;
        for (int64_t i = 0; i < size; i++) sum += in[i];
        float mean = (float)(sum / (double)size);
        for (int64_t i = 0; i < size; i++) sq += (double)(in[i] - mean) * (in[i] - mean);
        float inv = (float)(1.0 / sqrt(sq / (double)size + epsilon));
        for (int64_t i = 0; i < size; i++) out[i] = (in[i] - mean) * inv * scale[i] + (b ? b[i] : 0.0f);
    }
}

void mrvl_batch_norm_f32(int64_t n, int64_t c, int64_t spatial, float epsilon, const float *x,
                         const float *scale, const float *b, const float *mean, const float *var, float *y)
{
    for (int64_t k = 0; k < c; k++) {
        float mul = scale[k] / sqrtf(var[k] + epsilon), add = b[k] - mean[k] * mul;
        for (int64_t i = 0; i < n; i++) {
            const float *in = x + (i * c + k) * spatial;
            float *out = y + (i * c + k) * spatial;
            for (int64_t s = 0; s < spatial; s++) out[s] = in[s] * mul + add;
        }
    }
}

void mrvl_reduce_f32(int kind, int rank, const int64_t *shape, const int64_t *out_stride, int64_t out_count,
                     int64_t count, const float *x, float *y)
{
    float init = kind == MRVL_REDUCE_MAX ? -INFINITY
                 : kind == MRVL_REDUCE_MIN ? INFINITY
                 : kind == MRVL_REDUCE_PROD ? 1.0f : 0.0f;
    int64_t idx[MRVL_MAX_RANK] = {0}, total = 1, o = 0;
    for (int64_t i = 0; i < out_count; i++) y[i] = init;
    for (int d = 0; d < rank; d++) total *= shape[d];
    for (int64_t i = 0; i < total; i++) {
        float v = x[i], acc = y[o];
        switch (kind) {
        case MRVL_REDUCE_MAX: acc = v > acc ? v : acc; break;
        case MRVL_REDUCE_MIN: acc = v < acc ? v : acc; break;
        case MRVL_REDUCE_PROD: acc *= v; break;
        case MRVL_REDUCE_L1: acc += fabsf(v); break;
        case MRVL_REDUCE_L2: case MRVL_REDUCE_SUM_SQUARE: acc += v * v; break;
        case MRVL_REDUCE_LOG_SUM_EXP: acc += expf(v); break;
        default: acc += v; break;
        }
        y[o] = acc;
        for (int d = rank - 1; d >= 0; d--) {
            idx[d]++;
            o += out_stride[d];
            if (idx[d] < shape[d]) break;
            o -= out_stride[d] * shape[d];
            idx[d] = 0;
        }
    }
    for (int64_t i = 0; i < out_count; i++) {
        switch (kind) {
        case MRVL_REDUCE_MEAN: y[i] /= (float)count; break;
        case MRVL_REDUCE_L2: y[i] = sqrtf(y[i]); break;
        case MRVL_REDUCE_LOG_SUM: case MRVL_REDUCE_LOG_SUM_EXP: y[i] = logf(y[i]); break;
        default: break;
        }
    }
}

/* --- Data movement ---------------------------------------------------------------- */

void mrvl_copy_nd(int rank, const int64_t *shape, const void *src, const int64_t *src_stride, void *dst,
                  const int64_t *dst_stride, size_t elem)
{
    const char *s = (const char *)src;
    char *t = (char *)dst;
    int64_t idx[MRVL_MAX_RANK] = {0}, total = 1, so = 0, to = 0;
    for (int d = 0; d < rank; d++) total *= shape[d];
    if (rank == 0) {
        if (total) memcpy(t, s, elem);
        return;
    }
    int64_t last = shape[rank - 1], ss = src_stride[rank - 1], ts = dst_stride[rank - 1];
    if (last == 0) return;
    for (int64_t r = 0; r < total / last; r++) {
        if (ss == 1 && ts == 1) {
            memcpy(t + to * (int64_t)elem, s + so * (int64_t)elem, (size_t)last * elem);
        } else if (elem == 4) {
            const float *sf = (const float *)(const void *)(s + so * 4);
            float *tf = (float *)(void *)(t + to * 4);
            for (int64_t j = 0; j < last; j++) tf[j * ts] = sf[j * ss];
        } else {
            for (int64_t j = 0; j < last; j++) memcpy(t + (to + j * ts) * (int64_t)elem, s + (so + j * ss) * (int64_t)elem, elem);
        }
        for (int d = rank - 2; d >= 0; d--) {
            idx[d]++;
            so += src_stride[d];
            to += dst_stride[d];
            if (idx[d] < shape[d]) break;
            so -= src_stride[d] * shape[d];
            to -= dst_stride[d] * shape[d];
            idx[d] = 0;
        }
    }
}

int mrvl_gather(int64_t outer, int64_t dim, int64_t inner, const void *data, int64_t count,
                const void *indices, int indices_are_i64, void *y, size_t elem)
{
    const char *d = (const char *)data;
    char *out = (char *)y;
    size_t row = (size_t)inner * elem;
    for (int64_t i = 0; i < count; i++) {
        int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
        if (k < 0) k += dim;
        if (k < 0 || k >= dim) return MRVL_ERR_INDEX;
    }
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < count; i++) {
            int64_t k = indices_are_i64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
            if (k < 0) k += dim;
            memcpy(out + (o * count + i) * (int64_t)row, d + (o * dim + k) * (int64_t)row, row);
        }
    }
    return MRVL_OK;
}

/* The input index of output index `o` along a dim of `size` padded by `before`, or -1. */
static int64_t pad_source(int mode, int64_t o, int64_t before, int64_t size)
{
    int64_t i = o - before;
    if (i >= 0 && i < size) return i;
    switch (mode) {
    case MRVL_PAD_EDGE: return i < 0 ? 0 : size - 1;
    case MRVL_PAD_WRAP: i %= size; return i < 0 ? i + size : i;
    case MRVL_PAD_REFLECT:
        if (size == 1) return 0;
        {
            int64_t period = 2 * (size - 1);
            i %= period;
            if (i < 0) i += period;
            return i < size ? i : period - i;
        }
    default: return -1;
    }
}

void mrvl_pad(int mode, int rank, const int64_t *in_shape, const int64_t *out_shape, const int64_t *pads,
              const void *fill, const void *x, void *y, size_t elem)
{
    const char *in = (const char *)x;
    char *out = (char *)y;
    int64_t idx[MRVL_MAX_RANK] = {0}, in_stride[MRVL_MAX_RANK], total = 1;
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        in_stride[d] = s;
        s *= in_shape[d];
    }
    for (int d = 0; d < rank; d++) total *= out_shape[d];
    for (int64_t o = 0; o < total; o++) {
        int64_t src = 0;
        for (int d = 0; d < rank && src >= 0; d++) {
            int64_t i = pad_source(mode, idx[d], pads[d], in_shape[d]);
            src = i < 0 ? -1 : src + i * in_stride[d];
        }
        memcpy(out + o * (int64_t)elem, src < 0 ? (const char *)fill : in + src * (int64_t)elem, elem);
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < out_shape[d]) break;
            idx[d] = 0;
        }
    }
}

/* ONNX Resize's coordinate transformation: the input coordinate of output index o. */
static float resize_coordinate(int mode, int64_t o, float scale, int64_t in, int64_t out)
{
    float x = (float)o;
    switch (mode) {
    case MRVL_HALF_PIXEL: return (x + 0.5f) / scale - 0.5f;
    case MRVL_HALF_PIXEL_SYMMETRIC: {
        float adjustment = (float)out / (scale * (float)in);
        float center = (float)in / 2.0f;
        return center * (1.0f - adjustment) + (x + 0.5f) / scale - 0.5f;
    }
    case MRVL_PYTORCH_HALF_PIXEL: return out > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case MRVL_ALIGN_CORNERS: return out == 1 ? 0.0f : x * (float)(in - 1) / (float)(out - 1);
    default: return x / scale;
    }
}

static int64_t nearest_index(int mode, float x, int64_t in)
{
    int64_t i;
    switch (mode) {
    case MRVL_ROUND_PREFER_FLOOR: i = x == floorf(x) + 0.5f ? (int64_t)floorf(x) : (int64_t)roundf(x); break;
    case MRVL_ROUND_PREFER_CEIL: i = (int64_t)roundf(x); break;
    case MRVL_NEAREST_FLOOR: i = (int64_t)floorf(x); break;
    default: i = (int64_t)ceilf(x); break;
    }
    return i < 0 ? 0 : (i >= in ? in - 1 : i);
}

void mrvl_resize_nearest(const mrvl_resize_params *p, const void *x, void *y, size_t elem)
{
    const char *in = (const char *)x;
    char *out = (char *)y;
    int64_t idx[MRVL_MAX_RANK] = {0}, stride[MRVL_MAX_RANK], total = 1;
    int64_t s = 1;
    for (int d = p->rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= p->in_shape[d];
    }
    for (int d = 0; d < p->rank; d++) total *= p->out_shape[d];
    for (int64_t o = 0; o < total; o++) {
        int64_t src = 0;
        for (int d = 0; d < p->rank; d++) {
            float c = resize_coordinate(p->coordinate_mode, idx[d], p->scale[d], p->in_shape[d], p->out_shape[d]);
            src += nearest_index(p->nearest_mode, c, p->in_shape[d]) * stride[d];
        }
        memcpy(out + o * (int64_t)elem, in + src * (int64_t)elem, elem);
        for (int d = p->rank - 1; d >= 0; d--) {
            if (++idx[d] < p->out_shape[d]) break;
            idx[d] = 0;
        }
    }
}

/* Linear weights along one dim: input indices i0, i1 and the weight of i1. */
static void linear_taps(int mode, int64_t o, float scale, int64_t in, int64_t out, int64_t *i0, int64_t *i1,
                        float *t)
{
    float c = resize_coordinate(mode, o, scale, in, out);
    if (c < 0.0f) c = 0.0f;
    if (c > (float)(in - 1)) c = (float)(in - 1);
    *i0 = (int64_t)floorf(c);
    *i1 = *i0 + 1 < in ? *i0 + 1 : in - 1;
    *t = c - (float)*i0;
}

void mrvl_resize_f32(const mrvl_resize_params *p, const float *x, float *y)
{
    if (!p->linear) {
        mrvl_resize_nearest(p, x, y, sizeof(float));
        return;
    }
    int r = p->rank;
    int64_t h = r >= 2 ? p->in_shape[r - 2] : 1, w = p->in_shape[r - 1];
    int64_t oh = r >= 2 ? p->out_shape[r - 2] : 1, ow = p->out_shape[r - 1], planes = 1;
    float sh = r >= 2 ? p->scale[r - 2] : 1.0f, sw = p->scale[r - 1];
    for (int d = 0; d + 2 < r; d++) planes *= p->in_shape[d];
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *in = x + pl * h * w;
        float *out = y + pl * oh * ow;
        for (int64_t i = 0; i < oh; i++) {
            int64_t h0, h1, w0, w1;
            float th, tw;
            linear_taps(p->coordinate_mode, i, sh, h, oh, &h0, &h1, &th);
            for (int64_t j = 0; j < ow; j++) {
                linear_taps(p->coordinate_mode, j, sw, w, ow, &w0, &w1, &tw);
                float top = in[h0 * w + w0] * (1.0f - tw) + in[h0 * w + w1] * tw;
                float bottom = in[h1 * w + w0] * (1.0f - tw) + in[h1 * w + w1] * tw;
                out[i * ow + j] = top * (1.0f - th) + bottom * th;
            }
        }
    }
}
