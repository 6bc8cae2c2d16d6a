/* mrvl_kernels.c: the C99 host kernels, included by every generated `<model>.c`.
 *
 * Every kernel is `static`: each model gets its own copy with internal linkage, so two models
 * link into one program, and the compiler sees the kernels next to their constant parameters.
 * Kernels the model does not call are dropped by the compiler. Scratch memory (im2col columns,
 * a transposed B) is part of the caller's workspace, planned by the emitter: nothing here
 * allocates.
 */
#include "mrvl_kernels.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* a model calls only some kernels */
#endif

static int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

/* --- Matrix products ------------------------------------------------------------------ */

/* Block sizes of gemm_acc_f32: 4 rows of a NC-column strip of C (4 KiB) stay in L1 while a
 * KC x NC block of B (256 KiB) streams from L2 once for every 4 rows of A. */
#define MRVL_GEMM_NC 256
#define MRVL_GEMM_KC 256

/* c0..c3[j] += (4 x 4 block of a) x rows b0..b3, j < n. The 16 coefficients stay in registers
 * and the loop runs over contiguous columns, so gcc -O3 vectorises it without reassociating a
 * sum: 16 multiply-adds per 4 loads of B and 4 loads and stores of C. */
static void gemm_4x4(int64_t n, const float *a, int64_t a_rs, int64_t a_cs, const float *restrict b0,
                     const float *restrict b1, const float *restrict b2, const float *restrict b3,
                     float *restrict c0, float *restrict c1, float *restrict c2, float *restrict c3)
{
    const float *r0 = a, *r1 = a + a_rs, *r2 = a + 2 * a_rs, *r3 = a + 3 * a_rs;
    float a00 = r0[0], a01 = r0[a_cs], a02 = r0[2 * a_cs], a03 = r0[3 * a_cs];
    float a10 = r1[0], a11 = r1[a_cs], a12 = r1[2 * a_cs], a13 = r1[3 * a_cs];
    float a20 = r2[0], a21 = r2[a_cs], a22 = r2[2 * a_cs], a23 = r2[3 * a_cs];
    float a30 = r3[0], a31 = r3[a_cs], a32 = r3[2 * a_cs], a33 = r3[3 * a_cs];
    for (int64_t j = 0; j < n; j++) {
        float v0 = b0[j], v1 = b1[j], v2 = b2[j], v3 = b3[j];
        c0[j] += a00 * v0 + a01 * v1 + a02 * v2 + a03 * v3;
        c1[j] += a10 * v0 + a11 * v1 + a12 * v2 + a13 * v3;
        c2[j] += a20 * v0 + a21 * v1 + a22 * v2 + a23 * v3;
        c3[j] += a30 * v0 + a31 * v1 + a32 * v2 + a33 * v3;
    }
}

/* c[j] += a[0] b0[j] + a[a_cs] b1[j] + ... (one row of A, 4 of B). */
static void gemm_1x4(int64_t n, const float *a, int64_t a_cs, const float *restrict b0, const float *restrict b1,
                     const float *restrict b2, const float *restrict b3, float *restrict c)
{
    float a0 = a[0], a1 = a[a_cs], a2 = a[2 * a_cs], a3 = a[3 * a_cs];
    for (int64_t j = 0; j < n; j++) c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j];
}

static void axpy_f32(int64_t n, float a, const float *restrict b, float *restrict c)
{
    for (int64_t j = 0; j < n; j++) c[j] += a * b[j];
}

/* c (m, n) += a (m, k) b (k, n). A's element (i, p) is a[i * a_rs + p * a_cs] (so either
 * layout of A works); B's rows are contiguous, ldb apart; C's rows ldc apart. */
static void gemm_acc_f32(int64_t m, int64_t n, int64_t k, const float *a, int64_t a_rs, int64_t a_cs,
                         const float *b, int64_t ldb, float *c, int64_t ldc)
{
    for (int64_t jc = 0; jc < n; jc += MRVL_GEMM_NC) {
        int64_t nc = min_i64(MRVL_GEMM_NC, n - jc);
        for (int64_t pc = 0; pc < k; pc += MRVL_GEMM_KC) {
            int64_t kc = min_i64(MRVL_GEMM_KC, k - pc);
            for (int64_t i = 0; i < m; i += 4) {
                int64_t rows = min_i64(4, m - i), p = 0;
                const float *ai = a + i * a_rs + pc * a_cs, *bp = b + pc * ldb + jc;
                float *ci = c + i * ldc + jc;
                for (; p + 4 <= kc; p += 4, ai += 4 * a_cs, bp += 4 * ldb) {
                    if (rows == 4) {
                        gemm_4x4(nc, ai, a_rs, a_cs, bp, bp + ldb, bp + 2 * ldb, bp + 3 * ldb, ci, ci + ldc,
                                 ci + 2 * ldc, ci + 3 * ldc);
                    } else {
                        for (int64_t r = 0; r < rows; r++)
                            gemm_1x4(nc, ai + r * a_rs, a_cs, bp, bp + ldb, bp + 2 * ldb, bp + 3 * ldb, ci + r * ldc);
                    }
                }
                for (; p < kc; p++, ai += a_cs, bp += ldb)
                    for (int64_t r = 0; r < rows; r++) axpy_f32(nc, ai[r * a_rs], bp, ci + r * ldc);
            }
        }
    }
}

/* Each of the m rows of c (n elements, ldc apart) set to bias[i], or 0 without a bias. */
static void fill_rows_f32(int64_t m, int64_t n, const float *bias, float *c, int64_t ldc)
{
    for (int64_t i = 0; i < m; i++) {
        float v = bias ? bias[i] : 0.0f;
        for (int64_t j = 0; j < n; j++) c[i * ldc + j] = v;
    }
}

/* sum a[p] b[p], p < k, in 16 partial sums so the loop vectorises without reassociation. */
static float dot_f32(int64_t k, const float *restrict a, const float *restrict b)
{
    float part[16] = {0}, sum = 0.0f;
    int64_t whole = k - k % 16;
    for (int64_t p = 0; p < whole; p += 16)
        for (int l = 0; l < 16; l++) part[l] += a[p + l] * b[p + l];
    for (int l = 0; l < 16; l++) sum += part[l];
    for (int64_t p = whole; p < k; p++) sum += a[p] * b[p];
    return sum;
}

/* Rows of A at most this many with a transposed B: dot products along B's rows beat
 * transposing B first (a fully connected layer on one sample is a matrix-vector product). */
#define MRVL_GEMM_DOT_ROWS 4

/* y (m, n) = alpha * A' B' + beta * C; c may be NULL. `scratch`: k * n floats when trans_b
 * and m > MRVL_GEMM_DOT_ROWS (B is transposed into it), else unused. */
static void mrvl_gemm_f32(const mrvl_gemm_params *p, const float *a, const float *b, const float *c, float *y,
                          float *scratch)
{
    int64_t m = p->m, n = p->n, k = p->k;
    int64_t a_rs = p->trans_a ? 1 : k, a_cs = p->trans_a ? m : 1;
    /* With alpha 1, y starts as beta * C and the product accumulates onto it. */
    int scale_after = p->alpha != 1.0f;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
            y[i * n + j] = c && !scale_after ? p->beta * c[i * p->c_row_stride + j * p->c_col_stride] : 0.0f;
    if (p->trans_b && m <= MRVL_GEMM_DOT_ROWS && !p->trans_a) {
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) y[i * n + j] += dot_f32(k, a + i * k, b + j * k);
    } else {
        const float *rows = b;
        if (p->trans_b) {
            for (int64_t j = 0; j < n; j++)
                for (int64_t q = 0; q < k; q++) scratch[q * n + j] = b[j * k + q];
            rows = scratch;
        }
        gemm_acc_f32(m, n, k, a, a_rs, a_cs, rows, n, y, n);
    }
    if (scale_after) {
        for (int64_t i = 0; i < m; i++) {
            for (int64_t j = 0; j < n; j++) {
                float v = p->alpha * y[i * n + j];
                y[i * n + j] = c ? v + p->beta * c[i * p->c_row_stride + j * p->c_col_stride] : v;
            }
        }
    }
}

/* Batched matrix product (numpy's matmul). A batch whose B is shared and whose A matrices
 * are consecutive is one product of m * batch rows. */
static void mrvl_matmul_f32(const mrvl_matmul_params *p, const float *a, const float *b, float *y)
{
    int64_t idx[MRVL_MAX_RANK] = {0}, batches = 1, ao = 0, bo = 0, rows = p->m;
    int shared_b = 1, stacked_a = 1;
    for (int d = 0; d < p->batch_rank; d++) {
        batches *= p->batch[d];
        shared_b = shared_b && (p->b_batch_stride[d] == 0 || p->batch[d] == 1);
    }
    for (int d = p->batch_rank - 1, expected = 1; d >= 0; d--) {
        stacked_a = stacked_a && (p->batch[d] == 1 || p->a_batch_stride[d] == expected * p->m * p->k);
        expected *= p->batch[d];
    }
    if (shared_b && stacked_a) {
        rows *= batches;
        batches = 1;
    }
    fill_rows_f32(rows * batches, p->n, NULL, y, p->n);
    for (int64_t t = 0; t < batches; t++) {
        gemm_acc_f32(rows, p->n, p->k, a + ao, p->k, 1, b + bo, p->n, y + t * rows * p->n, p->n);
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

/* --- Convolution and pooling ------------------------------------------------------------ */

/* The output range [lo, hi) whose input index o * stride + offset lies in [0, size). */
static void valid_range(int64_t out, int64_t size, int64_t stride, int64_t offset, int64_t *lo, int64_t *hi)
{
    int64_t a = -offset, b = size - 1 - offset;
    int64_t l = a <= 0 ? 0 : (a + stride - 1) / stride;
    int64_t h = b < 0 ? 0 : b / stride + 1;
    *lo = l;
    *hi = h < out ? h : out;
    if (*hi < *lo) *hi = *lo;
}

static int64_t volume3(const int64_t *d) { return d[0] * d[1] * d[2]; }

/* The columns of one group: row (c, kz, ky, kx) of `col` holds, at every output position,
 * the input element under kernel tap (kz, ky, kx) of channel c (0 in the padding), so the
 * convolution is the product weights (mg, cg * taps) x col (cg * taps, out positions). */
static void im2col_f32(const mrvl_conv_params *p, const float *x, float *restrict col)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t cg = p->c / p->group, positions = volume3(out);
    float *row = col;
    for (int64_t c = 0; c < cg; c++) {
        const float *plane = x + c * volume3(in);
        for (int64_t kz = 0; kz < k[0]; kz++) {
            for (int64_t ky = 0; ky < k[1]; ky++) {
                for (int64_t kx = 0; kx < k[2]; kx++, row += positions) {
                    int64_t x0, x1, offset = kx * d[2] - pad[2];
                    valid_range(out[2], in[2], s[2], offset, &x0, &x1);
                    for (int64_t oz = 0; oz < out[0]; oz++) {
                        int64_t iz = oz * s[0] + kz * d[0] - pad[0];
                        for (int64_t oy = 0; oy < out[1]; oy++) {
                            int64_t iy = oy * s[1] + ky * d[1] - pad[1];
                            float *dst = row + (oz * out[1] + oy) * out[2];
                            if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1]) {
                                memset(dst, 0, (size_t)out[2] * sizeof(float));
                                continue;
                            }
                            const float *src = plane + (iz * in[1] + iy) * in[2] + offset;
                            for (int64_t ox = 0; ox < x0; ox++) dst[ox] = 0.0f;
                            if (s[2] == 1) memcpy(dst + x0, src + x0, (size_t)(x1 - x0) * sizeof(float));
                            else for (int64_t ox = x0; ox < x1; ox++) dst[ox] = src[ox * s[2]];
                            for (int64_t ox = x1; ox < out[2]; ox++) dst[ox] = 0.0f;
                        }
                    }
                }
            }
        }
    }
}

/* A 1x1 convolution with stride 1 and no padding reads its input as the columns. */
static int conv_is_pointwise(const mrvl_conv_params *p)
{
    for (int i = 0; i < MRVL_SPATIAL; i++)
        if (p->kernel[i] != 1 || p->stride[i] != 1 || p->pad[i] != 0 || p->in[i] != p->out[i]) return 0;
    return 1;
}

/* y (n, m, out) = conv(x (n, c, in), w (m, c/group, kernel)) + b (m); b may be NULL.
 * Per image and group: im2col into `scratch` (c/group * taps * out-positions floats; unused
 * for a pointwise conv), then one matrix product with the weights. */
static void mrvl_conv_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b, float *y,
                          float *scratch)
{
    int64_t cg = p->c / p->group, mg = p->m / p->group, taps = volume3(p->kernel);
    int64_t positions = volume3(p->out), plane = volume3(p->in), depth = cg * taps;
    int pointwise = conv_is_pointwise(p);
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            const float *xg = x + (n * p->c + g * cg) * plane;
            float *yg = y + (n * p->m + g * mg) * positions;
            const float *col = xg;
            if (!pointwise) {
                im2col_f32(p, xg, scratch);
                col = scratch;
            }
            fill_rows_f32(mg, positions, b ? b + g * mg : NULL, yg, positions);
            gemm_acc_f32(mg, positions, depth, w + g * mg * depth, depth, 1, col, positions, yg, positions);
        }
    }
}

/* A grouped conv with one input channel per group (depthwise, channel multiplier m/c):
 * each output plane is a weighted sum of shifted rows of its one input plane. */
static void mrvl_depthwise_conv_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                    float *y)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t mg = p->m / p->group, taps = volume3(k), positions = volume3(out);
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t m = 0; m < p->m; m++) {
            const float *plane = x + (n * p->c + m / mg) * volume3(in);
            const float *wm = w + m * taps;
            float *o = y + (n * p->m + m) * positions;
            fill_rows_f32(1, positions, b ? b + m : NULL, o, positions);
            for (int64_t kx = 0; kx < k[2]; kx++) {
                int64_t x0, x1, offset = kx * d[2] - pad[2];
                valid_range(out[2], in[2], s[2], offset, &x0, &x1);
                for (int64_t oz = 0; oz < out[0]; oz++) {
                    for (int64_t kz = 0; kz < k[0]; kz++) {
                        int64_t iz = oz * s[0] + kz * d[0] - pad[0];
                        if (iz < 0 || iz >= in[0]) continue;
                        for (int64_t oy = 0; oy < out[1]; oy++) {
                            float *orow = o + (oz * out[1] + oy) * out[2];
                            for (int64_t ky = 0; ky < k[1]; ky++) {
                                int64_t iy = oy * s[1] + ky * d[1] - pad[1];
                                if (iy < 0 || iy >= in[1]) continue;
                                float wv = wm[(kz * k[1] + ky) * k[2] + kx];
                                const float *src = plane + (iz * in[1] + iy) * in[2] + offset;
                                if (s[2] == 1) axpy_f32(x1 - x0, wv, src + x0, orow + x0);
                                else for (int64_t ox = x0; ox < x1; ox++) orow[ox] += wv * src[ox * s[2]];
                            }
                        }
                    }
                }
            }
        }
    }
}

/* y (n, m, out) from x (n, c, in) and w (c, m/group, kernel), plus b (m) or NULL. Per image
 * and group: the product w' (mg * taps, cg) x x (cg, in-positions) into `scratch` (mg * taps *
 * in-positions floats), then each column added into the output at its taps (col2im). */
static void mrvl_conv_transpose_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                    float *y, float *scratch)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t cg = p->c / p->group, mg = p->m / p->group, taps = volume3(k);
    int64_t in_positions = volume3(in), positions = volume3(out), rows = mg * taps;
    for (int64_t n = 0; n < p->n; n++) {
        for (int64_t g = 0; g < p->group; g++) {
            const float *xg = x + (n * p->c + g * cg) * in_positions;
            float *yg = y + (n * p->m + g * mg) * positions;
            /* w's group g is (cg, mg * taps): its transpose has row stride 1, column stride rows. */
            fill_rows_f32(rows, in_positions, NULL, scratch, in_positions);
            gemm_acc_f32(rows, in_positions, cg, w + g * cg * rows, 1, rows, xg, in_positions, scratch,
                         in_positions);
            fill_rows_f32(mg, positions, b ? b + g * mg : NULL, yg, positions);
            const float *col = scratch;
            for (int64_t m = 0; m < mg; m++) {
                float *o = yg + m * positions;
                for (int64_t kz = 0; kz < k[0]; kz++) {
                    for (int64_t ky = 0; ky < k[1]; ky++) {
                        for (int64_t kx = 0; kx < k[2]; kx++, col += in_positions) {
                            for (int64_t iz = 0; iz < in[0]; iz++) {
                                int64_t oz = iz * s[0] + kz * d[0] - pad[0];
                                if (oz < 0 || oz >= out[0]) continue;
                                for (int64_t iy = 0; iy < in[1]; iy++) {
                                    int64_t oy = iy * s[1] + ky * d[1] - pad[1];
                                    if (oy < 0 || oy >= out[1]) continue;
                                    const float *src = col + (iz * in[1] + iy) * in[2];
                                    float *dst = o + (oz * out[1] + oy) * out[2];
                                    for (int64_t ix = 0; ix < in[2]; ix++) {
                                        int64_t ox = ix * s[2] + kx * d[2] - pad[2];
                                        if (ox >= 0 && ox < out[2]) dst[ox] += src[ix];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/* Max or average over each window of x (n, c, in). Windows are clipped to the input; an
 * average divides by the elements inside it, or by those inside the padded input with
 * count_include_pad. */
static void mrvl_pool_f32(const mrvl_pool_params *p, const float *x, float *y)
{
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation;
    const int64_t *pb = p->pad_begin, *pe = p->pad_end;
    for (int64_t nc = 0; nc < p->n * p->c; nc++) {
        const float *plane = x + nc * volume3(in);
        float *o = y + nc * volume3(out);
        for (int64_t oz = 0; oz < out[0]; oz++) {
            for (int64_t oy = 0; oy < out[1]; oy++) {
                for (int64_t ox = 0; ox < out[2]; ox++) {
                    float acc = p->is_max ? -INFINITY : 0.0f;
                    int64_t valid = 0, padded = 0;
                    for (int64_t kz = 0; kz < k[0]; kz++) {
                        int64_t iz = oz * s[0] - pb[0] + kz * d[0];
                        int in_z = iz >= 0 && iz < in[0], pad_z = iz >= -pb[0] && iz < in[0] + pe[0];
                        for (int64_t ky = 0; ky < k[1]; ky++) {
                            int64_t iy = oy * s[1] - pb[1] + ky * d[1];
                            int in_y = in_z && iy >= 0 && iy < in[1];
                            int pad_y = pad_z && iy >= -pb[1] && iy < in[1] + pe[1];
                            for (int64_t kx = 0; kx < k[2]; kx++) {
                                int64_t ix = ox * s[2] - pb[2] + kx * d[2];
                                if (pad_y && ix >= -pb[2] && ix < in[2] + pe[2]) padded++;
                                if (!in_y || ix < 0 || ix >= in[2]) continue;
                                float v = plane[(iz * in[1] + iy) * in[2] + ix];
                                valid++;
                                if (p->is_max) acc = v > acc ? v : acc;
                                else acc += v;
                            }
                        }
                    }
                    if (!p->is_max) {
                        int64_t count = p->count_include_pad ? padded : valid;
                        acc = count ? acc / (float)count : 0.0f;
                    }
                    o[(oz * out[1] + oy) * out[2] + ox] = acc;
                }
            }
        }
    }
}

/* Max or average of each of `rows` rows of `size` elements. */
static void mrvl_global_pool_f32(int is_max, int64_t rows, int64_t size, const float *x, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *in = x + r * size;
        double acc = is_max ? -INFINITY : 0.0; /* a double sum: exact enough for large planes */
        for (int64_t i = 0; i < size; i++) acc = is_max ? (in[i] > acc ? in[i] : acc) : acc + in[i];
        y[r] = is_max ? (float)acc : (float)(acc / (double)size);
    }
}

/* --- Elementwise ---------------------------------------------------------------------- */

/* Runs BODY for every element of p's shape with `o` the result offset and `ia`, `ib`, `ic`
 * the operands' offsets: rows of the last dim, the outer dims by an odometer. A row whose
 * operands are contiguous or one repeated element gets its own loop, which gcc vectorises. */
#define MRVL_BROADCAST_ROW(A_STEP, B_STEP, C_STEP, BODY)                                    \
    for (int64_t j_ = 0; j_ < last_; j_++) {                                               \
        int64_t o = r_ * last_ + j_, ia = ra_ + j_ * (A_STEP), ib = rb_ + j_ * (B_STEP);    \
        int64_t ic = rc_ + j_ * (C_STEP);                                                  \
        (void)ic;                                                                          \
        BODY;                                                                              \
    }
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
            if (as_ == 1 && bs_ == 1 && cs_ == 1) MRVL_BROADCAST_ROW(1, 1, 1, BODY)           \
            else if (as_ == 1 && bs_ == 0 && cs_ == 0) MRVL_BROADCAST_ROW(1, 0, 0, BODY)      \
            else if (as_ == 0 && bs_ == 1 && cs_ == 0) MRVL_BROADCAST_ROW(0, 1, 0, BODY)      \
            else MRVL_BROADCAST_ROW(as_, bs_, cs_, BODY)                                      \
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

/* Python's modulo (the sign of the divisor): ONNX Mod with fmod = 0. */
static float mod_f32(float a, float b)
{
    float r = fmodf(a, b);
    return r != 0.0f && ((r < 0.0f) != (b < 0.0f)) ? r + b : r;
}

static double mod_f64(double a, double b)
{
    double r = fmod(a, b);
    return r != 0.0 && ((r < 0.0) != (b < 0.0)) ? r + b : r;
}

static int64_t mod_int(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

static int64_t fmod_int(int64_t a, int64_t b) { return a % b; }
static int64_t pow_int(int64_t a, int64_t b) { return (int64_t)pow((double)a, (double)b); }
static int64_t max_int(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min_int(int64_t a, int64_t b) { return a < b ? a : b; }

/* out = a `kind` b over elements of type T (comparisons write bool, one byte); MOD, FMOD,
 * POW, MAX and MIN name T's functions. Integer division truncates toward zero, as ONNX Div;
 * an integer division by zero is undefined, as in C. */
#define MRVL_DEFINE_BINARY(NAME, T, MOD, FMOD, POW, MAX, MIN)                                  \
    static void NAME(int kind, const mrvl_broadcast *p, const T *a, const T *b, void *y)      \
    {                                                                                          \
        T *t = (T *)y;                                                                         \
        uint8_t *u = (uint8_t *)y;                                                             \
        switch (kind) {                                                                        \
        case MRVL_ADD: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] + b[ib]); break;                    \
        case MRVL_SUB: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] - b[ib]); break;                    \
        case MRVL_MUL: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] * b[ib]); break;                    \
        case MRVL_DIV: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] / b[ib]); break;                    \
        case MRVL_POW: MRVL_BROADCAST_LOOP(p, t[o] = (T)POW(a[ia], b[ib])); break;             \
        case MRVL_MAX: MRVL_BROADCAST_LOOP(p, t[o] = (T)MAX(a[ia], b[ib])); break;             \
        case MRVL_MIN: MRVL_BROADCAST_LOOP(p, t[o] = (T)MIN(a[ia], b[ib])); break;             \
        case MRVL_MOD: MRVL_BROADCAST_LOOP(p, t[o] = (T)MOD(a[ia], b[ib])); break;             \
        case MRVL_FMOD: MRVL_BROADCAST_LOOP(p, t[o] = (T)FMOD(a[ia], b[ib])); break;           \
        case MRVL_PRELU: MRVL_BROADCAST_LOOP(p, t[o] = a[ia] < 0 ? a[ia] * b[ib] : a[ia]); break; \
        case MRVL_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] == b[ib]); break;                 \
        case MRVL_LESS: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] < b[ib]); break;                   \
        case MRVL_LESS_OR_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] <= b[ib]); break;         \
        case MRVL_GREATER: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] > b[ib]); break;                \
        case MRVL_GREATER_OR_EQUAL: MRVL_BROADCAST_LOOP(p, u[o] = a[ia] >= b[ib]); break;      \
        default: break; /* the emitter passes only the kinds above */                         \
        }                                                                                      \
    }

MRVL_DEFINE_BINARY(mrvl_binary_f32, float, mod_f32, fmodf, powf, fmaxf, fminf)
MRVL_DEFINE_BINARY(mrvl_binary_f64, double, mod_f64, fmod, pow, fmax, fmin)
MRVL_DEFINE_BINARY(mrvl_binary_i32, int32_t, mod_int, fmod_int, pow_int, max_int, min_int)
MRVL_DEFINE_BINARY(mrvl_binary_i64, int64_t, mod_int, fmod_int, pow_int, max_int, min_int)

/* and, or, xor, and comparisons of bool elements. */
static void mrvl_binary_bool(int kind, const mrvl_broadcast *p, const uint8_t *a, const uint8_t *b, uint8_t *y)
{
    switch (kind) {
    case MRVL_AND: MRVL_BROADCAST_LOOP(p, y[o] = a[ia] && b[ib]); break;
    case MRVL_OR: MRVL_BROADCAST_LOOP(p, y[o] = a[ia] || b[ib]); break;
    case MRVL_XOR: MRVL_BROADCAST_LOOP(p, y[o] = (a[ia] != 0) != (b[ib] != 0)); break;
    case MRVL_EQUAL: MRVL_BROADCAST_LOOP(p, y[o] = (a[ia] != 0) == (b[ib] != 0)); break;
    default: break;
    }
}

/* y = cond ? a : b, a and b of `elem` bytes (a_stride: cond, b_stride: a, c_stride: b). */
static void mrvl_where(const mrvl_broadcast *p, const uint8_t *cond, const void *a, const void *b, void *y,
                       size_t elem)
{
    const char *ca = (const char *)a, *cb = (const char *)b;
    char *cy = (char *)y;
    MRVL_BROADCAST_LOOP(p, memcpy(cy + o * elem, cond[ia] ? ca + ib * elem : cb + ic * elem, elem));
}

/* y = kind(x) over elements of floating type T; F is the suffix of T's <math.h> functions
 * (f for float, nothing for double). */
#define MRVL_DEFINE_UNARY_FLOAT(NAME, T, F)                                                     \
    static void NAME(int kind, int64_t count, const T *x, T *y)                               \
    {                                                                                          \
        int64_t i;                                                                             \
        switch (kind) {                                                                        \
        case MRVL_RELU: MRVL_UNARY(T, v > 0 ? v : 0);                                          \
        case MRVL_SIGMOID: MRVL_UNARY(T, 1 / (1 + exp##F(-v)));                                \
        case MRVL_TANH: MRVL_UNARY(T, tanh##F(v));                                             \
        case MRVL_SQRT: MRVL_UNARY(T, sqrt##F(v));                                             \
        case MRVL_EXP: MRVL_UNARY(T, exp##F(v));                                               \
        case MRVL_LOG: MRVL_UNARY(T, log##F(v));                                               \
        case MRVL_ERF: MRVL_UNARY(T, erf##F(v));                                               \
        case MRVL_NEG: MRVL_UNARY(T, -v);                                                      \
        case MRVL_ABS: MRVL_UNARY(T, fabs##F(v));                                              \
        case MRVL_RECIPROCAL: MRVL_UNARY(T, 1 / v);                                            \
        case MRVL_FLOOR: MRVL_UNARY(T, floor##F(v));                                           \
        case MRVL_CEIL: MRVL_UNARY(T, ceil##F(v));                                             \
        case MRVL_ROUND: MRVL_UNARY(T, nearbyint##F(v));                                       \
        case MRVL_SIGN: MRVL_UNARY(T, v > 0 ? 1 : (v < 0 ? -1 : v));                           \
        case MRVL_SIN: MRVL_UNARY(T, sin##F(v));                                               \
        case MRVL_COS: MRVL_UNARY(T, cos##F(v));                                               \
        case MRVL_TAN: MRVL_UNARY(T, tan##F(v));                                               \
        case MRVL_ASIN: MRVL_UNARY(T, asin##F(v));                                             \
        case MRVL_ACOS: MRVL_UNARY(T, acos##F(v));                                             \
        case MRVL_ATAN: MRVL_UNARY(T, atan##F(v));                                             \
        case MRVL_SINH: MRVL_UNARY(T, sinh##F(v));                                             \
        case MRVL_COSH: MRVL_UNARY(T, cosh##F(v));                                             \
        case MRVL_ASINH: MRVL_UNARY(T, asinh##F(v));                                           \
        case MRVL_ACOSH: MRVL_UNARY(T, acosh##F(v));                                           \
        case MRVL_ATANH: MRVL_UNARY(T, atanh##F(v));                                           \
        case MRVL_IDENTITY: MRVL_UNARY(T, v);                                                  \
        case MRVL_SOFTPLUS: MRVL_UNARY(T, v > 20 ? v : log1p##F(exp##F(v)));                   \
        case MRVL_SOFTSIGN: MRVL_UNARY(T, v / (1 + fabs##F(v)));                               \
        case MRVL_GELU: MRVL_UNARY(T, v * (T)0.5 * (1 + erf##F(v * (T)0.70710678118654752)));  \
        case MRVL_GELU_TANH:                                                                   \
            MRVL_UNARY(T, v * (T)0.5 * (1 + tanh##F((T)0.79788456080286536 * (v + (T)0.044715 * v * v * v)))); \
        default: break;                                                                        \
        }                                                                                      \
    }
#define MRVL_UNARY(T, EXPR) for (i = 0; i < count; i++) { T v = x[i]; y[i] = (T)(EXPR); } break

MRVL_DEFINE_UNARY_FLOAT(mrvl_unary_f32, float, f)
MRVL_DEFINE_UNARY_FLOAT(mrvl_unary_f64, double, )

/* The integer kinds (relu, neg, abs, sign) over elements of type T. */
#define MRVL_DEFINE_UNARY_INT(NAME, T)                                                          \
    static void NAME(int kind, int64_t count, const T *x, T *y)                               \
    {                                                                                          \
        int64_t i;                                                                             \
        switch (kind) {                                                                        \
        case MRVL_RELU: MRVL_UNARY(T, v > 0 ? v : 0);                                          \
        case MRVL_NEG: MRVL_UNARY(T, -v);                                                      \
        case MRVL_ABS: MRVL_UNARY(T, v < 0 ? -v : v);                                          \
        case MRVL_SIGN: MRVL_UNARY(T, v > 0 ? 1 : (v < 0 ? -1 : 0));                           \
        default: break; /* the emitter passes only the kinds above */                         \
        }                                                                                      \
    }

MRVL_DEFINE_UNARY_INT(mrvl_unary_i32, int32_t)
MRVL_DEFINE_UNARY_INT(mrvl_unary_i64, int64_t)
#undef MRVL_UNARY

static void mrvl_not(int64_t count, const uint8_t *x, uint8_t *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = !x[i];
}

static void mrvl_clip_f32(int64_t count, float low, float high, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) {
        float v = x[i] < low ? low : x[i];
        y[i] = v > high ? high : v;
    }
}

static void mrvl_leaky_relu_f32(int64_t count, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) y[i] = x[i] < 0.0f ? alpha * x[i] : x[i];
}

static void mrvl_hard_sigmoid_f32(int64_t count, float alpha, float beta, const float *x, float *y)
{
    for (int64_t i = 0; i < count; i++) {
        float v = alpha * x[i] + beta;
        y[i] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
    }
}

static void mrvl_hard_swish_f32(int64_t count, const float *x, float *y)
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

/* |v| (finite) rounded to nearest even in a binary format with `mant` stored mantissa bits
 * and normal exponents [emin, emax]: its bits without the sign, infinity past the largest.
 * Straight from double, so an f64 -> f16/bf16 cast rounds once. */
static uint32_t round_to_format(double v, int mant, int emin, int emax)
{
    uint32_t inf = (uint32_t)(emax - emin + 2) << mant;
    double a = fabs(v), q;
    int e;
    if (a == 0.0) return 0;
    if (isinf(a)) return inf;
    frexp(a, &e);
    e = e - 1 < emin ? emin : e - 1;            /* a = 1.f * 2^e, or a subnormal's quantum */
    q = nearbyint(ldexp(a, mant - e));           /* 2^mant <= q <= 2^(mant+1) for a normal */
    uint32_t bits = ((uint32_t)(e - emin) << mant) + (uint32_t)q; /* a carry moves to the exponent */
    return bits < inf ? bits : inf;
}

static uint16_t double_to_half(double v)
{
    uint16_t sign = signbit(v) ? 0x8000u : 0;
    if (v != v) return (uint16_t)(sign | 0x7e00u);
    return (uint16_t)(sign | round_to_format(v, 10, -14, 15));
}

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static uint16_t double_to_bf16(double v)
{
    uint16_t sign = signbit(v) ? 0x8000u : 0;
    if (v != v) return (uint16_t)(sign | 0x7fc0u);
    return (uint16_t)(sign | round_to_format(v, 7, -126, 127));
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
    case MRVL_F16: ((uint16_t *)y)[i] = double_to_half(v); break;
    case MRVL_BF16: ((uint16_t *)y)[i] = double_to_bf16(v); break;
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

static void mrvl_cast(int64_t count, int from, const void *x, int to, void *y)
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

/* Softmax over the middle dim of x viewed as (outer, axis, inner). */
static void mrvl_softmax_f32(int64_t outer, int64_t axis, int64_t inner, const float *x, float *y)
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

/* Each of `rows` rows of `size` normalised, times scale (size), plus b (size) or NULL. */
static void mrvl_layer_norm_f32(int64_t rows, int64_t size, float epsilon, const float *x, const float *scale,
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

/* x viewed as (n, c, spatial). */
static void mrvl_batch_norm_f32(int64_t n, int64_t c, int64_t spatial, float epsilon, const float *x,
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

/* x of `rank` dims `shape`; out_stride: the result's strides over x's dims, 0 on a
 * reduced dim; `count`: the elements reduced into each result. */
static void mrvl_reduce_f32(int kind, int rank, const int64_t *shape, const int64_t *out_stride, int64_t out_count,
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

/* dst[i] = src[i] over `shape`, each side with its own strides (elements). */
static void mrvl_copy_nd(int rank, const int64_t *shape, const void *src, const int64_t *src_stride, void *dst,
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

/* y (outer, count, inner) = data (outer, dim, inner) at `indices` (count, i32 or i64). */
static int mrvl_gather(int64_t outer, int64_t dim, int64_t inner, const void *data, int64_t count,
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

/* pads: rank begins then rank ends (negative: crop); fill: one element (constant mode). */
static void mrvl_pad(int mode, int rank, const int64_t *in_shape, const int64_t *out_shape, const int64_t *pads,
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
    case MRVL_ALIGN_CORNERS: {
        /* ONNX's resized length is scale * in, not the output's integer size. */
        float length = scale * (float)in;
        return length == 1.0f ? 0.0f : x * (float)(in - 1) / (length - 1.0f);
    }
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

static void mrvl_resize_nearest(const mrvl_resize_params *p, const void *x, void *y, size_t elem)
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

/* Cubic weights along one dim (ONNX Resize with coefficient a): the 4 input indices around
 * output index o (clamped to the edge, as ONNX pads with edge values) and their weights; with
 * exclude_outside, taps outside the input weigh 0 and the others are renormalised. */
static void cubic_taps(const mrvl_resize_params *p, int d, int64_t o, int64_t idx[4], float w[4])
{
    int64_t in = p->in_shape[d];
    float x = resize_coordinate(p->coordinate_mode, o, p->scale[d], in, p->out_shape[d]);
    float x0 = floorf(x), t = x - x0, a = p->cubic_coeff_a, sum = 0.0f;
    const float distance[4] = {t + 1.0f, t, 1.0f - t, 2.0f - t};
    for (int i = 0; i < 4; i++) {
        float u = distance[i];
        int64_t j = (int64_t)x0 - 1 + i;
        w[i] = u <= 1.0f ? ((a + 2.0f) * u - (a + 3.0f)) * u * u + 1.0f
                         : ((a * u - 5.0f * a) * u + 8.0f * a) * u - 4.0f * a;
        if (p->exclude_outside && (j < 0 || j >= in)) w[i] = 0.0f;
        idx[i] = j < 0 ? 0 : (j >= in ? in - 1 : j);
        sum += w[i];
    }
    if (p->exclude_outside && sum != 0.0f)
        for (int i = 0; i < 4; i++) w[i] /= sum;
}

/* Cubic over the last two dims (rank >= 2); the other dims keep their size, and so their
 * elements (a cubic tap at an unchanged coordinate is the identity). */
static void resize_cubic_f32(const mrvl_resize_params *p, const float *x, float *y)
{
    int r = p->rank;
    int64_t h = p->in_shape[r - 2], w = p->in_shape[r - 1], oh = p->out_shape[r - 2], ow = p->out_shape[r - 1];
    int64_t planes = 1;
    for (int d = 0; d + 2 < r; d++) planes *= p->in_shape[d];
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *in = x + pl * h * w;
        float *out = y + pl * oh * ow;
        for (int64_t i = 0; i < oh; i++) {
            int64_t hi[4], wi[4];
            float hw[4], ww[4];
            cubic_taps(p, r - 2, i, hi, hw);
            for (int64_t j = 0; j < ow; j++) {
                float acc = 0.0f;
                cubic_taps(p, r - 1, j, wi, ww);
                for (int a = 0; a < 4; a++) {
                    float row = 0.0f;
                    for (int b = 0; b < 4; b++) row += ww[b] * in[hi[a] * w + wi[b]];
                    acc += hw[a] * row;
                }
                out[i * ow + j] = acc;
            }
        }
    }
}

/* Nearest: any dims; linear and cubic: only the last two dims may change size. */
static void mrvl_resize_f32(const mrvl_resize_params *p, const float *x, float *y)
{
    if (p->mode == MRVL_RESIZE_NEAREST) {
        mrvl_resize_nearest(p, x, y, sizeof(float));
        return;
    }
    if (p->mode == MRVL_RESIZE_CUBIC) {
        resize_cubic_f32(p, x, y);
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

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
