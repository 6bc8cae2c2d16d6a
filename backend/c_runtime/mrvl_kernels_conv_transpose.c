/* mrvl_kernels_conv_transpose.c: the channels-last (NHWC) transposed convolution, for the host
 * glue between MLIP calls, which stays in MLIP's layout (the NCHW one is in mrvl_kernels_conv.c).
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

/* Output channels per group up to which each output of a tap is a dot product over the input
 * channels (a DB head's one probability map), not a row of a GEMM tile of MRVL_GEMM_NR
 * channels that are mostly zeros. */
#define MRVL_CONV_TRANSPOSE_DOT_CHANNELS 4
/* Floats of the stack buffer the dot products take a block of an input row's columns in,
 * channel by channel (c/group rows of them). */
#define MRVL_CONV_TRANSPOSE_DOT_FLOATS 4096
/* Columns of sums the dot products keep in registers over the channels. */
#define MRVL_CONV_TRANSPOSE_DOT_TILE 64

/* Whether mrvl_conv_transpose_nhwc_f32 sums `p`'s taps as dot products (few output channels
 * per group, whose input channels fit the buffer), else as GEMMs. */
static int conv_transpose_nhwc_dots(const mrvl_conv_params *p)
{
    return p->m / p->group <= MRVL_CONV_TRANSPOSE_DOT_CHANNELS && p->c / p->group <= MRVL_CONV_TRANSPOSE_DOT_FLOATS;
}

/* Floats of one tap's and group's weights as mrvl_conv_transpose_nhwc_f32 packs them in its
 * scratch: the GEMM's B (c/group, m/group) in panels of MRVL_GEMM_NR columns, zeros past m/group;
 * for dot products, m/group rows of c/group. */
static int64_t conv_transpose_nhwc_block(const mrvl_conv_params *p)
{
    int64_t cg = p->c / p->group, mg = p->m / p->group;
    return cg * (conv_transpose_nhwc_dots(p) ? mg : (mg + MRVL_GEMM_NR - 1) / MRVL_GEMM_NR * MRVL_GEMM_NR);
}

typedef struct {
    const mrvl_conv_params *p;
    const float *x, *packed, *b; /* the input, the weights packed per tap and group, the bias or NULL */
    float *y;
} conv_transpose_nhwc_args;

/* Columns [0, n) of the cg channels at x (columns `stride` floats apart) into t, channel by
 * channel (cg rows of n): with GCC's vector extension a square of vector-width columns and
 * channels at a time, transposed in registers (conv_transpose), where the element by element
 * copy's strided stores take longer than the dot products it serves. */
static void conv_transpose_nhwc_columns(const float *x, int64_t stride, int64_t cg, int64_t n, float *restrict t)
{
    int64_t j = 0;
#if defined(__GNUC__)
    if (cg % MRVL_GEMM_VECTOR_FLOATS == 0) {
        for (; j + MRVL_GEMM_VECTOR_FLOATS <= n; j += MRVL_GEMM_VECTOR_FLOATS) {
            for (int64_t c0 = 0; c0 < cg; c0 += MRVL_GEMM_VECTOR_FLOATS) {
                conv_vec v[MRVL_GEMM_VECTOR_FLOATS];
                for (int i = 0; i < MRVL_GEMM_VECTOR_FLOATS; i++) memcpy(&v[i], x + (j + i) * stride + c0, sizeof v[i]);
                conv_transpose(v);
                for (int i = 0; i < MRVL_GEMM_VECTOR_FLOATS; i++) memcpy(t + (c0 + i) * n + j, &v[i], sizeof v[i]);
            }
        }
    }
#endif
    for (; j < n; j++)
        for (int64_t c = 0; c < cg; c++) t[c * n + j] = x[j * stride + c];
}

/* The dot products of input row x_row of group g with each tap (kz, ky, kx) of the weights at
 * w_taps (kx's m/group rows of c/group at w_taps + kx * group * block), added into the output
 * row: by blocks of columns, each held channel by channel (transposed) in a stack buffer, so
 * that a sum over the channels is a multiply-add of columns, which vectorises (a dot product
 * of the channels of one position would end in a sum across a vector). */
static void conv_transpose_nhwc_dot_row(const mrvl_conv_params *p, const float *x_row, const float *w_taps, int64_t g,
                                        float *row)
{
    const int64_t *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t cg = p->c / p->group, mg = p->m / p->group, block = conv_transpose_nhwc_block(p), pitch = s[2] * p->m;
    int64_t cols = MRVL_CONV_TRANSPOSE_DOT_FLOATS / cg;
    float t[MRVL_CONV_TRANSPOSE_DOT_FLOATS];
    for (int64_t j0 = 0; j0 < p->in[2]; j0 += cols) {
        int64_t n = min_i64(cols, p->in[2] - j0);
        conv_transpose_nhwc_columns(x_row + j0 * p->c + g * cg, p->c, cg, n, t);
        for (int64_t kx = 0; kx < k[2]; kx++) {
            int64_t at = kx * d[2] - pad[2], lo, hi; /* input column ix lands on output column ix * stride + at */
            valid_range(p->in[2], p->out[2], s[2], at, &lo, &hi);
            lo = lo > j0 ? lo : j0;
            hi = min_i64(hi, j0 + n);
            for (int64_t m = 0; m < mg && lo < hi; m++) {
                const float *wm = w_taps + kx * p->group * block + g * block + m * cg;
                float *ys = row + (lo * s[2] + at) * p->m + g * mg + m;
                for (int64_t j = lo - j0; j < hi - j0; j += MRVL_CONV_TRANSPOSE_DOT_TILE) {
                    /* A tile of sums in registers over all the channels: a whole one unrolled. */
                    int64_t width = min_i64(MRVL_CONV_TRANSPOSE_DOT_TILE, hi - j0 - j);
                    float acc[MRVL_CONV_TRANSPOSE_DOT_TILE] = {0};
                    if (width == MRVL_CONV_TRANSPOSE_DOT_TILE) {
                        for (int64_t c = 0; c < cg; c++)
                            for (int i = 0; i < MRVL_CONV_TRANSPOSE_DOT_TILE; i++) acc[i] += wm[c] * t[c * n + j + i];
                    } else {
                        for (int64_t c = 0; c < cg; c++)
                            for (int64_t i = 0; i < width; i++) acc[i] += wm[c] * t[c * n + j + i];
                    }
                    for (int64_t i = 0; i < width; i++) ys[(j - (lo - j0) + i) * pitch] += acc[i];
                }
            }
        }
    }
}

/* Output rows [begin, end) of a channels-last transposed conv (an mrvl_task; row r is image
 * r / (out depth * out height), each row out width * m floats): the row set to the bias, then
 * for every tap whose input row lands on it, that input row times the tap's (c/group, m/group)
 * weights of each group added into every stride-th output position (a GEMM with rows `stride *
 * m` apart, or dot products), then the clamp, the activation and a PRelu's slope per channel
 * over the row while it is in cache. Each output is written by one thread only. */
static void conv_transpose_nhwc_rows(const void *ctx, int64_t begin, int64_t end)
{
    const conv_transpose_nhwc_args *a = ctx;
    const mrvl_conv_params *p = a->p;
    const int64_t *in = p->in, *out = p->out, *k = p->kernel, *s = p->stride, *d = p->dilation, *pad = p->pad;
    int64_t cg = p->c / p->group, mg = p->m / p->group, block = conv_transpose_nhwc_block(p);
    int64_t row_floats = out[2] * p->m, pitch = s[2] * p->m;
    int dots = conv_transpose_nhwc_dots(p);
    for (int64_t r = begin; r < end; r++) {
        int64_t n = r / (out[0] * out[1]), oz = r / out[1] % out[0], oy = r % out[1];
        float *row = a->y + r * row_floats;
        if (p->m == 1) { /* one loop over the row, which vectorises */
            float bias = a->b ? a->b[0] : 0.0f;
            for (int64_t ox = 0; ox < out[2]; ox++) row[ox] = bias;
        } else {
            for (int64_t ox = 0; ox < out[2]; ox++)
                for (int64_t m = 0; m < p->m; m++) row[ox * p->m + m] = a->b ? a->b[m] : 0.0f;
        }
        for (int64_t kz = 0; kz < k[0]; kz++) {
            int64_t from_z = oz + pad[0] - kz * d[0], iz = from_z / s[0];
            if (from_z < 0 || from_z % s[0] || iz >= in[0]) continue;
            for (int64_t ky = 0; ky < k[1]; ky++) {
                int64_t from_y = oy + pad[1] - ky * d[1], iy = from_y / s[1];
                if (from_y < 0 || from_y % s[1] || iy >= in[1]) continue;
                const float *x_row = a->x + ((n * in[0] + iz) * in[1] + iy) * in[2] * p->c;
                const float *w_taps = a->packed + (kz * k[1] + ky) * k[2] * p->group * block;
                if (dots) {
                    for (int64_t g = 0; g < p->group; g++) conv_transpose_nhwc_dot_row(p, x_row, w_taps, g, row);
                    continue;
                }
                for (int64_t kx = 0; kx < k[2]; kx++) {
                    /* Input column ix lands on output column ix * stride + at. */
                    int64_t at = kx * d[2] - pad[2], lo, hi;
                    valid_range(in[2], out[2], s[2], at, &lo, &hi);
                    for (int64_t g = 0; g < p->group && lo < hi; g++)
                        gemm_packed_b_serial(hi - lo, mg, cg, x_row + lo * p->c + g * cg, p->c, 1,
                                             w_taps + (kx * p->group + g) * block, cg * MRVL_GEMM_NR, MRVL_GEMM_NR,
                                             row + (lo * s[2] + at) * p->m + g * mg, pitch, NULL);
                }
            }
        }
        if (p->clamp) clamp_f32(row_floats, p->min, p->max, row);
        activate_f32(p->activation, p->alpha, p->beta, row_floats, row);
        if (p->slope)
            for (int64_t ox = 0; ox < out[2]; ox++)
                for (int64_t m = 0; m < p->m; m++) row[ox * p->m + m] = prelu_value(row[ox * p->m + m], p->slope[m]);
    }
}

/* y (n, out, m) from x (n, in, c), both channels last, and w (c, m/group, kernel), plus b (m) or
 * NULL; then the fused clamp and activation (p's, a PRelu per channel; no residual, scale or
 * shift), as mrvl_conv_transpose_f32 computes in NCHW. Each tap's weights of each group are
 * packed into `scratch` first (conv_transpose_nhwc_block floats per tap and group), then the
 * output rows are split over the threads (conv_transpose_nhwc_rows). */
static void mrvl_conv_transpose_nhwc_f32(const mrvl_conv_params *p, const float *x, const float *w, const float *b,
                                         float *y, float *scratch)
{
    int64_t cg = p->c / p->group, mg = p->m / p->group, taps = volume3(p->kernel), block = conv_transpose_nhwc_block(p);
    for (int64_t t = 0; t < taps; t++) {
        for (int64_t g = 0; g < p->group; g++) {
            /* Group g's weights (c/group, m/group) of tap t: element (c, m) at c * mg * taps + m * taps. */
            const float *wg = w + g * cg * mg * taps + t;
            float *packed = scratch + (t * p->group + g) * block;
            if (!conv_transpose_nhwc_dots(p)) {
                gemm_pack(cg, mg, MRVL_GEMM_NR, wg, mg * taps, taps, packed);
                continue;
            }
            for (int64_t m = 0; m < mg; m++)
                for (int64_t c = 0; c < cg; c++) packed[m * cg + c] = wg[c * mg * taps + m * taps];
        }
    }
    conv_transpose_nhwc_args args = {p, x, scratch, b, y};
    int64_t rows = p->n * p->out[0] * p->out[1];
    if (p->n * volume3(p->in) * p->c * mg * taps < MRVL_PARALLEL_MACS) conv_transpose_nhwc_rows(&args, 0, rows);
    else mrvl_parallel(rows, conv_transpose_nhwc_rows, &args);
}
