/* mrvl_kernels_conv_transpose.c: the channels-last (NHWC) transposed convolution, for the host
 * glue between MLIP calls, which stays in MLIP's layout (the NCHW one is in mrvl_kernels_conv.c).
 *
 * Part of mrvl_kernels.c, which includes the family files in order into one translation unit:
 * not compiled on its own. */

/* Output channels per group up to which each output of a tap is a dot product over the input
 * channels (a DB head's one probability map), not a row of a GEMM tile of MRVL_GEMM_NR
 * channels that are mostly zeros. */
#define MRVL_CONV_TRANSPOSE_DOT_CHANNELS 2

/* Whether mrvl_conv_transpose_nhwc_f32 sums `p`'s taps as dot products (few output channels
 * per group), else as GEMMs. */
static int conv_transpose_nhwc_dots(const mrvl_conv_params *p)
{
    return p->m / p->group <= MRVL_CONV_TRANSPOSE_DOT_CHANNELS;
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
        for (int64_t ox = 0; ox < out[2]; ox++)
            for (int64_t m = 0; m < p->m; m++) row[ox * p->m + m] = a->b ? a->b[m] : 0.0f;
        for (int64_t kz = 0; kz < k[0]; kz++) {
            int64_t from_z = oz + pad[0] - kz * d[0], iz = from_z / s[0];
            if (from_z < 0 || from_z % s[0] || iz >= in[0]) continue;
            for (int64_t ky = 0; ky < k[1]; ky++) {
                int64_t from_y = oy + pad[1] - ky * d[1], iy = from_y / s[1];
                if (from_y < 0 || from_y % s[1] || iy >= in[1]) continue;
                const float *x_row = a->x + ((n * in[0] + iz) * in[1] + iy) * in[2] * p->c;
                for (int64_t kx = 0; kx < k[2]; kx++) {
                    /* Input column ix lands on output column ix * stride + at. */
                    int64_t at = kx * d[2] - pad[2], lo, hi;
                    valid_range(in[2], out[2], s[2], at, &lo, &hi);
                    const float *w_tap = a->packed + ((kz * k[1] + ky) * k[2] + kx) * p->group * block;
                    for (int64_t g = 0; g < p->group && lo < hi; g++) {
                        const float *xs = x_row + lo * p->c + g * cg, *wg = w_tap + g * block;
                        float *ys = row + (lo * s[2] + at) * p->m + g * mg;
                        if (!dots) {
                            gemm_packed_b_serial(hi - lo, mg, cg, xs, p->c, 1, wg, cg * MRVL_GEMM_NR, MRVL_GEMM_NR,
                                                 ys, pitch, NULL);
                            continue;
                        }
                        for (int64_t i = 0; i < hi - lo; i++)
                            for (int64_t m = 0; m < mg; m++) ys[i * pitch + m] += dot_f32(cg, xs + i * p->c, wg + m * cg);
                    }
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
